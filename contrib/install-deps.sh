#!/bin/sh
# Install the Debian packages ftr's build, tests and benchmarks need.
# Idempotent: installs only what is missing; refreshes the package lists when
# they are missing or older than a day.  Run as root on Debian 12 (bookworm).
#
# arm64: `make check` runs an arm64 kernel-matrix row, so by default this also
# installs the aarch64 cross compiler, the arm64 multiarch -dev packages
# `make static ARCH=arm64` links against (after `dpkg --add-architecture
# arm64`) and qemu-system-arm.  FTR_DEPS_ARM64=0 leaves all of that out (and
# then the matrix's arm64 row cannot run).  The arm64 kernel and busybox are
# not installed: tests/matrix/fetch-kernels.sh downloads them into its cache.
#
# armhf: the same for the matrix's 32-bit ARM row (`make static ARCH=armhf`):
# the arm-linux-gnueabihf cross compiler and the armhf multiarch -dev
# packages (after `dpkg --add-architecture armhf`).  FTR_DEPS_ARMHF=0 leaves
# them out (and then the armhf row cannot run).
set -eu

# libdw-dev, liblzma-dev: the dynamic build's CFI unwinder (profile
# --call-graph dwarf) and MiniDebugInfo.
BUILD="gcc make pkg-config libtracefs-dev libtraceevent-dev libelf-dev zlib1g-dev libzstd-dev
       libtracecmd-dev libdw-dev liblzma-dev libmicrohttpd-dev"
# prometheus (its server and promtool) and curl: t-prom scrapes ftr --serve with them;
# dwarves: pahole, which makes the --btf files of tests/live/t-types.sh;
# systemtap-sdt-dev: <sys/sdt.h>, for tests/helpers/usdt.c (USDT probes);
# golang-go: go tool pprof reads profile --pprof's files in the tests;
# debuginfod: elfutils' server, for profile --debuginfod's test (ftr opens
# libdebuginfod1 when --debuginfod asks for it).
# bpftrace: t-bpfjson compares ftr -f json with bpftrace -f json on the host.
# xfsprogs: mkfs.xfs makes the small XFS image of the bt-tools guests (xfsdist).
# python3, g++, zip, bc: tests/bt-runtime (bpftrace's runtime suite: its runner,
# its C++ test program, its archive.zip, two cases' `| bc`); util-linux and procps for its cases
# (unshare, nsenter; ps, pkill, pidof).  lintian: checks the packages of `make deb` (tests/deb.sh).
TEST="python3 g++ zip bc util-linux procps libcmocka-dev trace-cmd qemu-system-x86 busybox-static cpio gzip xz-utils ca-certificates golang-go
      debuginfod libdebuginfod1 prometheus curl dwarves systemtap-sdt-dev bpftrace xfsprogs lintian"
DOCS="libtracefs-doc libtraceevent-doc man-db"
BENCH="${FTR_BENCH_DEPS:-}"	# bench/ sets this to "bpftrace linux-perf trace-cmd"
# libc6-dev:arm64 is named so that the multiarch -dev packages' "libc-dev"
# dependency is met by it and not left to apt's choice.  The same packages
# serve the dynamic cross build (`make sysroot ARCH=arm64`: ftr with libdw
# for the arm64 guest's t-unwind), whose libraries (libdw1:arm64, libc6:arm64
# and the loader...) come with them; it needs no libtracecmd or
# libmicrohttpd (a cross build leaves them out).
ARM64="gcc-aarch64-linux-gnu libc6-dev:arm64 libtracefs-dev:arm64 libtraceevent-dev:arm64
       libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64 libdw-dev:arm64
       liblzma-dev:arm64 systemtap-sdt-dev:arm64 qemu-system-arm"
case ${FTR_DEPS_ARM64:-1} in
0|no|false) ARM64="" ;;
esac
# armhf: the static build and its helpers only (no sysroot in its row); the
# libdw and liblzma -dev packages because pkg-config asks about every
# library the build names at once.
ARMHF="gcc-arm-linux-gnueabihf libc6-dev:armhf libtracefs-dev:armhf libtraceevent-dev:armhf
       libelf-dev:armhf zlib1g-dev:armhf libzstd-dev:armhf libdw-dev:armhf liblzma-dev:armhf
       systemtap-sdt-dev:armhf qemu-system-arm"
case ${FTR_DEPS_ARMHF:-1} in
0|no|false) ARMHF="" ;;
esac

want="$BUILD $TEST $DOCS $BENCH $ARM64 $ARMHF"
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
missing=""
for p in $want; do
	installed "$p" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: everything is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing -- run as root to install them" >&2
	exit 1
fi

lists=/var/lib/apt/lists
update=0
# arm64 packages need arm64 as a dpkg foreign architecture, and package lists
# that include it: a freshly added architecture has none yet.
if [ -n "$ARM64" ] && [ "$(dpkg --print-architecture)" != arm64 ]; then
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "install-deps: dpkg --add-architecture arm64"
		dpkg --add-architecture arm64
		update=1
	elif ! ls "$lists"/*_binary-arm64_Packages* >/dev/null 2>&1; then
		update=1
	fi
fi
if [ -n "$ARMHF" ] && [ "$(dpkg --print-architecture)" != armhf ]; then
	if ! dpkg --print-foreign-architectures | grep -qx armhf; then
		echo "install-deps: dpkg --add-architecture armhf"
		dpkg --add-architecture armhf
		update=1
	elif ! ls "$lists"/*_binary-armhf_Packages* >/dev/null 2>&1; then
		update=1
	fi
fi
# Refresh the lists when there are none, or when they are more than a day old.
if ! ls "$lists"/*_Packages* >/dev/null 2>&1 ||
   [ -n "$(find "$lists" -maxdepth 1 -name '*_Packages*' -mtime +0 2>/dev/null | head -1)" ]; then
	update=1
fi
[ $update = 0 ] || apt-get update -qq
echo "install-deps: installing$missing"
# An arm64 -dev package (Multi-Arch: same) must have the very version of its
# installed amd64 twin; apt upgrades the amd64 one in the same step when the
# lists have a newer one.  If apt still refuses, say what to do.
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; then
	echo "install-deps: apt-get install failed" >&2
	[ -n "$ARM64$ARMHF" ] && echo "install-deps: if an arm64 or armhf package clashes with its amd64 twin's version," \
		"run 'apt-get update && apt-get upgrade' first, or set FTR_DEPS_ARM64=0 / FTR_DEPS_ARMHF=0 to skip them" >&2
	exit 1
fi
