#!/bin/sh
# run.sh — bpftrace's tools, unchanged, under ftr: on this machine and/or in
# the qemu matrix guests.  Prints each tool's status per kernel, then a table.
#
# Usage: tests/bt-tools/run.sh [--host] [--rows 6.1,6.12] [--secs N]
#                              [--min-pass N] [--max-fail N]
#
#   --host       run on this machine's kernel (with build/ftr)
#   --rows LIST  run in these matrix rows (build/ftr-static; default 6.1,6.12)
#                Neither: --rows 6.1,6.12.  Both may be given.
#   --secs N     seconds each tool runs after its workload (default 2)
#   --min-pass N fail unless at least N tools run as expected, on every
#                kernel (default 31: what 6.12 and 6.1 reached; the goal of
#                issue #13 is 32)
#   --max-fail N fail if more than N tools stop on a syntax/semantic error
#                (default 0, what both rows reached).  With --tools or on
#                the host (no kprobes), give lower thresholds.
#   --tools LIST run only these tools (comma-separated names, e.g. vfscount,opensnoop)
#   --parts N    live files the tools are spread over (default 4): a guest
#                that times out still reports the parts it finished
#   --no-shebang drop each tool's "#!" line first: a diagnostic of what
#                else stops the tools, NOT the acceptance run (unchanged files)
#   --no-kernel-btf  in a row whose kernel has no BTF but a file of it made
#                with pahole (4.19-btf), do not give the tools that file
#                (FTR_VMLINUX_BTF): the same kernel as a user without it has
#
# The tools come from Debian 12's bpftrace package (fetch.sh; cached in
# /var/cache/ftr-bt-tools).  Builds what it needs (make static helpers
# helpers-static); takes the matrix and live locks itself.  Per tool:
# ok = runs and prints what bpftrace prints for the workload; skip REFUSES =
# stops at once naming a missing kernel function/module/library/program;
# skip WRONG OUTPUT; skip FAILS = a syntax or semantic error.  See
# t-bt-tools.sh for the workload and expectation of each tool.
# Guest rows also get their kernels' xfs/raid1/zram modules and an XFS image
# (README.md): xfsdist, mdflush and swapin need them.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HOST=0 ROWS= SECS=2 MINPASS=31 MAXFAIL=0 NOSHEBANG=0 ONLY= PARTS=4 KBTF=1
while [ $# -gt 0 ]; do
	case $1 in
	--host) HOST=1; shift ;;
	--rows) ROWS=${2:?--rows needs a list}; shift 2 ;;
	--rows=*) ROWS=${1#--rows=}; shift ;;
	--secs) SECS=${2:?}; shift 2 ;;
	--min-pass) MINPASS=${2:?}; shift 2 ;;
	--max-fail) MAXFAIL=${2:?}; shift 2 ;;
	--no-shebang) NOSHEBANG=1; shift ;;
	--no-kernel-btf) KBTF=0; shift ;;
	--tools) ONLY=${2:?--tools needs a list}; shift 2 ;;
	--parts) PARTS=${2:?}; shift 2 ;;
	-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "bt-tools: unknown option '$1' (see -h)" >&2; exit 2 ;;
	esac
done
[ $HOST = 1 ] || [ -n "$ROWS" ] || ROWS=6.1,6.12

TOOLS=$("$HERE/fetch.sh")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ftr-bt-tools.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# A live directory holding only this test: the runner, lib.sh, the tools.
mkdir -p "$WORK/live/bt"
cp "$REPO/tests/live/run.sh" "$REPO/tests/live/lib.sh" "$WORK/live/"
cp "$HERE/t-bt-tools.sh" "$WORK/live/bt/tools.sh"
# In parts of a few tools each: the live runner prints a file's lines when
# it ends, so a guest killed by its timeout still reports the parts done.
for i in $(seq 1 $PARTS); do
	printf 'BT_PART=%s BT_PARTS=%s\n. "$LIVE_DIR/bt/tools.sh"\n' $i $PARTS \
		> "$WORK/live/t-bt-tools-$i.sh"
done
cp "$TOOLS"/*.bt "$TOOLS/VERSION" "$WORK/live/bt/"
if [ $NOSHEBANG = 1 ]; then
	for f in "$WORK"/live/bt/*.bt; do sed -i '1{/^#!/d}' "$f"; done
	echo "(shebang lines removed: diagnostic, not the acceptance run)" >> "$WORK/live/bt/VERSION"
fi
# The guests are busybox and static helpers: no bash, no libc.  The tools
# that probe those (bashreadline, gethostlatency, threadsnoop) get this
# machine's, with the libraries they load, which t-bt-tools.sh puts in
# place where a file is missing (in a guest of this architecture only).
SYSROOT="$WORK/live/bt/sysroot"
for prog in bash getent; do
	p=$(command -v $prog 2>/dev/null) || continue
	for f in "$p" $(ldd "$p" 2>/dev/null | grep -o '/[^ ]*') \
		 $(ldconfig -p 2>/dev/null | grep -o '/[^ ]*/libpthread\.so\.0$' | head -1); do
		[ -f "$f" ] || continue
		mkdir -p "$SYSROOT$(dirname "$f")"
		cp -L "$f" "$SYSROOT$f"
	done
done
# bashreadline probes /bin/bash: the guest has no /bin -> /usr/bin link.
[ -f "$SYSROOT/usr/bin/bash" ] && mkdir -p "$SYSROOT/bin" && cp "$SYSROOT/usr/bin/bash" "$SYSROOT/bin/"
[ -d "$SYSROOT" ] && uname -m > "$SYSROOT.arch"

# What a real machine has and a guest lacks, for xfsdist, mdflush and
# swapin: the rows' kernels' own modules (xfs, raid1, zram and what they
# depend on, from the image package fetch-kernels.sh --modules keeps) in
# bt/modules/RELEASE, which t-bt-tools.sh loads when its kernel is RELEASE
# (a guest; never the host), and a small XFS image made here.
# MODULE.dep lists what MODULE.ko depends on (modinfo's "depends").
bt_module() { # TREE DEST NAME
	[ -f "$2/$3.ko" ] && return 0
	f=$(find "$1" \( -name "$3.ko" -o -name "$3.ko.xz" -o -name "$(echo "$3" | tr _- -_).ko*" \) \
		-print 2>/dev/null | head -n1)
	[ -n "$f" ] || return 0	# built in, or not in this kernel
	case $f in
	*.xz) xz -dc "$f" > "$2/$3.ko" ;;
	*.zst) zstd -q -dc "$f" > "$2/$3.ko" ;;
	*) cp "$f" "$2/$3.ko" ;;
	esac
	# .modinfo's NUL-separated "depends=A,B" string (any architecture)
	tr '\0' '\n' < "$2/$3.ko" | sed -n '/^depends=/{s///;s/,/ /g;p;q}' > "$2/$3.dep"
	for d in $(cat "$2/$3.dep"); do bt_module "$1" "$2" "$d"; done
}
if [ -n "$ROWS" ]; then
	kernels=$("$REPO/tests/matrix/run.sh" --list | awk -v rows=",$ROWS," '
		index(rows, "," $1 ",") { sub(/^vmlinuz-/, "", $3); print $3 }' | sort -u)
	MCACHE=${FTR_CACHE:-/var/cache/ftr-matrix}
	# shellcheck disable=SC2086  # one word per kernel
	FTR_CACHE=$MCACHE "$REPO/tests/matrix/fetch-kernels.sh" --modules $kernels >&2 ||
		echo "bt-tools: no kernel modules: xfsdist, mdflush, swapin will refuse" >&2
	for k in $kernels; do
		for tree in "$MCACHE/modules-$k"/*/; do
			[ -d "$tree" ] || continue
			dst=$WORK/live/bt/modules/$(basename "$tree")
			mkdir -p "$dst"
			# lzo-rle: 6.1's zram compressor (a module there; its
			# automatic load needs a modprobe the guest lacks).
			for m in xfs raid1 zram lzo-rle; do bt_module "$tree" "$dst" $m; done
		done
	done
	# XFS refuses a device whose sectors are larger than its own (zram's
	# are 4 KiB), and mkfs.xfs (xfsprogs) makes nothing under 300 MB
	# unless told it is a test filesystem (fstests' variables).  32 MB,
	# of which 27 blocks of 4 KiB are not zeros: only those go to the
	# guest, as bt/xfs/BLOCK files (runs of blocks), written at BLOCK on a
	# fresh 32 MB zram disk, which reads as zeros elsewhere (writing the
	# whole image took 1.3-1.6 s under emulation).
	if PATH=$PATH:/sbin:/usr/sbin command -v mkfs.xfs > /dev/null; then
		truncate -s 32M "$WORK/xfs.img"
		if PATH=$PATH:/sbin:/usr/sbin TEST_DIR=1 TEST_DEV=1 QA_CHECK_FS=1 \
			mkfs.xfs -q -s size=4096 "$WORK/xfs.img"; then
			mkdir -p "$WORK/live/bt/xfs"
			cmp -l "$WORK/xfs.img" /dev/zero 2>/dev/null |
			awk 'BEGIN { last = -1 }
			     { b = int(($1 - 1) / 4096); if (b != last) print b; last = b }' |
			awk 'NR > 1 && $1 != prev + 1 { print start, prev - start + 1 }
			     NR == 1 || $1 != prev + 1 { start = $1 }
			     { prev = $1 }
			     END { if (NR) print start, prev - start + 1 }' |
			while read -r blk n; do
				dd if="$WORK/xfs.img" of="$WORK/live/bt/xfs/$blk" bs=4k \
				   skip="$blk" count="$n" 2>/dev/null
			done
		fi
		rm -f "$WORK/xfs.img"
	else
		echo "bt-tools: no mkfs.xfs (package xfsprogs): xfsdist will refuse" >&2
	fi
fi
printf 'BT_SECS=%s\nBT_ONLY=%s\nBT_KERNEL_BTF=%s\n' "$SECS" "$ONLY" "$KBTF" > "$WORK/live/bt/config"

rc=0
: > "$WORK/all"
if [ $HOST = 1 ]; then
	make -C "$REPO" -j2 --no-print-directory build/ftr helpers >&2
	flock -o /tmp/ftr-live.lock env FTR="$REPO/build/ftr" PATH="$REPO/build/tests-bin:$PATH" \
		sh "$WORK/live/run.sh" $(seq -f 'bt-tools-%g' 1 $PARTS) > "$WORK/host" 2>&1 || rc=1
	sed 's/^/[host] /' "$WORK/host" | tee -a "$WORK/all"
fi
if [ -n "$ROWS" ]; then
	make -C "$REPO" -j2 --no-print-directory static helpers-static >&2
	# (FTR_MATRIX_ALL: every file of this live directory, its parts, in
	# rows whose own list names other files, as the old kernels' do)
	flock -o /tmp/ftr-matrix.lock env FTR_LIVE_DIR="$WORK/live" FTR_MATRIX_ALL=1 \
		"$REPO/tests/matrix/run.sh" --rows "$ROWS" --timeout 1200 > "$WORK/matrix" 2>&1 || rc=1
	grep '^\[' "$WORK/matrix" | tee -a "$WORK/all"
	grep -v '^\[' "$WORK/matrix" || true
fi

# The table: one row per tool, one column per kernel.
echo
awk '
	match($0, /^\[[^]]*\] (ok|skip|not ok) bt-[a-z0-9_]+/) {
		k = substr($1, 2, length($1) - 2)
		line = substr($0, length($1) + 2)
		st = "?"
		if (line ~ /^ok /) st = "runs"
		else if (line ~ /REFUSES/) st = "refuses"
		else if (line ~ /WRONG OUTPUT/) st = "other-output"
		else if (line ~ /FAILS/) st = "FAILS"
		sub(/^(ok|skip|not ok) bt-/, "", line)
		t = line; sub(/[: ].*/, "", t)
		if (t ~ /^tools/) next
		if (!(k in ks)) { ks[k] = 1; kord[++nk] = k }
		if (!(t in ts)) { ts[t] = 1; tord[++nt] = t }
		s[t, k] = st; n[k, st]++
	}
	END {
		printf "%-16s", "tool"; for (j = 1; j <= nk; j++) printf " %-13s", kord[j]; print ""
		for (i = 1; i <= nt; i++) {
			printf "%-16s", tord[i]
			for (j = 1; j <= nk; j++) printf " %-13s", s[tord[i], kord[j]]
			print ""
		}
		bad = 0
		for (j = 1; j <= nk; j++) {
			k = kord[j]
			printf "%s: %d runs, %d other output, %d refuse, %d FAIL (of %d)\n", k,
			       n[k, "runs"], n[k, "other-output"], n[k, "refuses"], n[k, "FAILS"],
			       nt
			if (n[k, "runs"] < minpass || n[k, "FAILS"] > maxfail) {
				printf "bt-tools %s: below the thresholds (>= %d run, <= %d fail)\n",
				       k, minpass, maxfail
				bad = 1
			}
		}
		if (!nk) { print "bt-tools: no kernel reported"; bad = 1 }
		exit bad
	}' minpass="$MINPASS" maxfail="$MAXFAIL" "$WORK/all" || rc=1
exit $rc
