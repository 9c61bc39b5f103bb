#!/bin/bash
# bench/profile-all.sh — the whole system (-a) with CFI call chains on a busy
# box: ftr profile against perf record, in the same run.
#
#   bench/profile-all.sh [-n RUNS] [-d SECONDS] [-F HZ]
#
# The box: a shell starting short dynamically linked processes one after
# another (ls, a few ms each: ld.so, libc, a new address space every time)
# beside bench/cpubound.c built -O2 -fomit-frame-pointer (deep stacks, libc).
# Each of RUNS iterations (default 5) runs, with the same box started anew:
#   perf    perf record -a -F HZ --call-graph dwarf -- sleep SECONDS;
#           perf report --stdio --no-children --sort symbol
#   ftr     ftr profile -a -F HZ --call-graph dwarf -d SECONDS
#   before  the same with FTR_BEFORE (another ftr build), when set
# and prints medians and ratios: the profiler's CPU (its rusage: for perf,
# record and report, and record alone), samples captured and lost, peak RSS,
# and the time from the end of sampling to a printed report.
#
# Environment: FTR (default build/ftr: the static one has no CFI unwinder),
# FTR_BEFORE, PERF (default perf), CC (default cc).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
RUNS=5 SECS=2 HZ=999
while getopts n:d:F:h o; do
	case $o in
	n) RUNS=$OPTARG ;;
	d) SECS=$OPTARG ;;
	F) HZ=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
	esac
done
FTR=${FTR:-$REPO/build/ftr}
PERF=${PERF:-perf}
CC=${CC:-cc}
TIME=/usr/bin/time
[ -x "$FTR" ] || { echo "profile-all.sh: no ftr at $FTR (make)" >&2; exit 2; }
command -v "$PERF" > /dev/null || { echo "profile-all.sh: no perf (package linux-perf)" >&2; exit 2; }
[ -x "$TIME" ] || { echo "profile-all.sh: no /usr/bin/time (package time)" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/ftr-bench-all.XXXXXX")
BOX=""
trap '[ -n "$BOX" ] && kill $BOX 2> /dev/null; rm -rf "$W"' EXIT
"$CC" -O2 -fomit-frame-pointer -g -o "$W/cpubound" "$HERE/cpubound.c"

# The box, for a little longer than the profile: its pids in BOX.
box() {
	sh -c 'end=$(($(date +%s) + $1)); while [ "$(date +%s)" -lt $end ]; do
		ls /usr/lib > /dev/null; done' box $((SECS + 2)) &
	BOX=$!
	"$W/cpubound" 100000 2> /dev/null &
	BOX="$BOX $!"
	sleep 0.3
}
unbox() { kill $BOX 2> /dev/null || true; wait $BOX 2> /dev/null || true; BOX=""; }
cpu_ms() { awk '{ printf "%.1f\n", ($2 + $3) * 1000 }' "$1"; }

variants="perf ftr"
[ -n "${FTR_BEFORE:-}" ] && variants="$variants before"
for i in $(seq 1 "$RUNS"); do
	for v in $variants; do
		box
		case $v in
		perf)
			t0=$(date +%s%N)
			"$TIME" -f '%M %U %S' -o "$W/t-rec" "$PERF" record -q -a -F "$HZ" \
				--call-graph dwarf -o "$W/p.data" -- sleep "$SECS" > /dev/null 2>&1
			unbox
			"$TIME" -f '%M %U %S' -o "$W/t-rep" "$PERF" report -i "$W/p.data" --stdio \
				--no-children --sort symbol > "$W/p.report" 2> /dev/null
			t1=$(date +%s%N)
			rec=$(cpu_ms "$W/t-rec"); rep=$(cpu_ms "$W/t-rep")
			n=$("$PERF" report -i "$W/p.data" --stats 2> /dev/null |
				awk '/SAMPLE events:/ { print $3; exit }')
			lost=$("$PERF" report -i "$W/p.data" --stats 2> /dev/null |
				awk '/LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }')
			r1=$(cut -d' ' -f1 "$W/t-rec"); r2=$(cut -d' ' -f1 "$W/t-rep")
			echo "perf $(awk -v a="$rec" -v b="$rep" 'BEGIN { print a + b }') $rec $n $lost" \
			     "$(( r1 > r2 ? r1 : r2 )) $(( (t1 - t0) / 1000000 - SECS * 1000 ))" >> "$W/res"
			;;
		ftr|before)
			f=$FTR; [ $v = before ] && f=$FTR_BEFORE
			t0=$(date +%s%N)
			"$TIME" -f '%M %U %S' -o "$W/t-ftr" "$f" profile -a -F "$HZ" --call-graph dwarf \
				-d "$SECS" -o "$W/f.top" > /dev/null 2>&1
			t1=$(date +%s%N)
			unbox
			c=$(cpu_ms "$W/t-ftr")
			n=$(sed -n 's/^# ftr profile: \([0-9]*\) samples.*/\1/p' "$W/f.top")
			lost=$(sed -n 's/.* \([0-9]*\) LOST.*/\1/p' "$W/f.top")
			echo "$v $c $c $n ${lost:-0} $(cut -d' ' -f1 "$W/t-ftr")" \
			     "$(( (t1 - t0) / 1000000 - SECS * 1000 ))" >> "$W/res"
			;;
		esac
	done
	echo "run $i of $RUNS done" >&2
done

median() {
	awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$W/res" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }
sum() { awk -v k="$1" -v c="$2" '$1 == k { s += $c } END { print s + 0 }' "$W/res"; }

echo
echo "## $(date -u +%Y-%m-%d) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "-a -F $HZ --call-graph dwarf for $SECS s on a busy box (ls in a loop + cpubound), $RUNS runs, medians; ftr = $FTR${FTR_BEFORE:+, before = $FTR_BEFORE}; $($PERF --version)"
echo
hdr="| | perf | ftr |"; sep="|---|---|---|"
[ -n "${FTR_BEFORE:-}" ] && hdr="$hdr ftr before |" && sep="$sep---|"
echo "$hdr ftr / perf |"
echo "$sep---|"
row() {
	local line="| $1 | $(median perf "$2") | $(median ftr "$2") |"
	[ -n "${FTR_BEFORE:-}" ] && line="$line $(median before "$2") |"
	echo "$line $(ratio "$(median ftr "$2")" "$(median perf "$2")") |"
}
row "profiler CPU, record + report (ms)" 2
row "profiler CPU while recording (ms)" 3
row "samples captured" 4
row "samples lost (median)" 5
line="| samples lost (all runs) | $(sum perf 5) | $(sum ftr 5) |"
[ -n "${FTR_BEFORE:-}" ] && line="$line $(sum before 5) |"
echo "$line |"
row "peak RSS (KiB)" 6
row "end of sampling to printed report (ms)" 7
