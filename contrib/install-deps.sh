#!/bin/sh
# Install the Debian packages ftr's build, tests and benchmarks need.
# Idempotent: installs only what is missing; refreshes the package lists when
# they are missing or older than a day.  Run as root on Debian 12 (bookworm).
set -eu

BUILD="gcc make pkg-config libtracefs-dev libtraceevent-dev libelf-dev zlib1g-dev libzstd-dev"
TEST="libcmocka-dev qemu-system-x86 busybox-static cpio gzip xz-utils ca-certificates"
DOCS="libtracefs-doc libtraceevent-doc man-db"
BENCH="${FTR_BENCH_DEPS:-}"	# bench/ sets this to "bpftrace linux-perf trace-cmd"

want="$BUILD $TEST $DOCS $BENCH"
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: everything is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing -- run as root to install them" >&2
	exit 1
fi
# Refresh the lists when there are none, or when they are more than a day old.
lists=/var/lib/apt/lists
if ! ls "$lists"/*_Packages* >/dev/null 2>&1 ||
   [ -n "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mtime +0 2>/dev/null | head -1)" ]; then
	apt-get update -qq
fi
echo "install-deps: installing$missing"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
