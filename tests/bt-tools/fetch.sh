#!/bin/sh
# fetch.sh — the 38 tools of Debian 12's bpftrace package, cached once.
#
# Usage: tests/bt-tools/fetch.sh      (prints the directory holding *.bt)
#
# `apt-get download bpftrace=0.17.0-1` (bookworm's) with the system's apt,
# `dpkg-deb -x`, and keep only usr/sbin/*.bt and the package's copyright file
# in ${FTR_BT_CACHE:-/var/cache/ftr-bt-tools}/0.17.0-1/, outside the
# repository (the tools are Apache-2.0, bpftrace's; ftr keeps no copy).
# Nothing is fetched when the cache is complete.
set -eu
VER=${FTR_BT_VERSION:-0.17.0-1}
CACHE=${FTR_BT_CACHE:-/var/cache/ftr-bt-tools}
DIR=$CACHE/$VER

if [ "$(ls "$DIR"/*.bt 2>/dev/null | wc -l)" -ge 38 ]; then
	echo "$DIR"
	exit 0
fi
command -v apt-get >/dev/null || { echo "bt-tools: apt-get is missing: cannot fetch bpftrace $VER" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftr-bt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# -o APT::Sandbox::User=root: run as root, apt's _apt user cannot write $tmp.
if ! (cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download "bpftrace=$VER" >&2); then
	echo "bt-tools: cannot download bpftrace $VER (Debian 12's); this needs a" \
	     "bookworm apt source, or FTR_BT_VERSION set to a version apt knows" >&2
	exit 1
fi
dpkg-deb -x "$tmp"/bpftrace_*.deb "$tmp/x"
mkdir -p "$DIR"
cp "$tmp"/x/usr/sbin/*.bt "$DIR/"
cp "$tmp"/x/usr/share/doc/bpftrace/copyright "$DIR/copyright" 2>/dev/null || true
echo "bpftrace $VER (Debian package bpftrace_$VER), $(ls "$DIR"/*.bt | wc -l) tools" > "$DIR/VERSION"
echo "$DIR"
