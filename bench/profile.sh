#!/bin/bash
# bench/profile.sh — ftr profile against perf record, on the same CPU-bound
# program (bench/cpubound.c), in the same run, at the same frequency.
#
#   bench/profile.sh [-n RUNS] [-r ROUNDS] [-F HZ] [-G fp|dwarf]
#
# -G dwarf: call chains from CFI on both sides (perf record --call-graph
# dwarf, ftr profile --call-graph dwarf, 8 KB stack copies), cpubound built
# -O2 -fomit-frame-pointer as distributions build; ftr is then the dynamic
# build (the static one has no CFI unwinder).  Default fp: -g, frame pointers.
#
# Environment: FTR (default build/ftr-static, the binary that ships; else
# build/ftr; with -G dwarf build/ftr), PERF (default perf), CC (default cc).
#
# Each of RUNS iterations (default 5) runs, in this order, so that a drift in
# the machine's load hits every variant alike:
#   alone   cpubound ROUNDS
#   perf    perf record -F HZ -g -o DATA -- cpubound; perf report --stdio
#           --no-children --sort symbol; perf script | (collapse, in awk)
#   ftr     ftr profile -F HZ -g -o TOP -- cpubound        (the top report)
#   folded  ftr profile -F HZ -g --folded -- cpubound
# and prints medians and ratios:
#   overhead     the program's own time for its work (it measures itself)
#                under each profiler against alone; and the profiler's own
#                CPU time (its rusage, children included, less the
#                program's own CPU time)
#   samples      captured against expected (HZ x the program's CPU seconds:
#                cpu-clock samples a task only while it runs), and lost
#   report       from the program's last instant (it prints CLOCK_REALTIME
#                at its end) to a printed report: ftr's one command against
#                perf record's exit + perf report
#   agreement    the top 5 functions by self share, ftr --folded against
#                perf script collapsed (median share over the runs), within
#                2 percentage points
#   footprint    binary size and peak RSS (/usr/bin/time -f %M), and the
#                bytes each writes (perf.data; ftr's report)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
RUNS=5 ROUNDS=300 HZ=999 G=fp
while getopts n:r:F:G:h o; do
	case $o in
	n) RUNS=$OPTARG ;;
	r) ROUNDS=$OPTARG ;;
	F) HZ=$OPTARG ;;
	G) G=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 2 ;;
	esac
done
case $G in
fp) CG_PERF="-g" CG_FTR="-g" CFLAGS_PROG="-fno-omit-frame-pointer" ;;
dwarf) CG_PERF="--call-graph dwarf" CG_FTR="--call-graph dwarf" CFLAGS_PROG="-fomit-frame-pointer" ;;
*) echo "profile.sh: -G fp or dwarf" >&2; exit 2 ;;
esac
if [ -z "${FTR:-}" ]; then
	FTR=$REPO/build/ftr-static
	[ -x "$FTR" ] && [ "$G" = fp ] || FTR=$REPO/build/ftr
fi
PERF=${PERF:-perf}
CC=${CC:-cc}
TIME=/usr/bin/time
[ -x "$FTR" ] || { echo "profile.sh: no ftr at $FTR (make static)" >&2; exit 2; }
command -v "$PERF" > /dev/null || { echo "profile.sh: no perf (package linux-perf)" >&2; exit 2; }
[ -x "$TIME" ] || { echo "profile.sh: no /usr/bin/time (package time)" >&2; exit 2; }

W=$(mktemp -d "${TMPDIR:-/tmp}/ftr-bench-profile.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$CC" -O2 $CFLAGS_PROG -g -o "$W/cpubound" "$HERE/cpubound.c"
"$PERF" record -q -o "$W/t.data" -- true > /dev/null 2>&1 ||
	{ echo "profile.sh: perf record does not work here" >&2; exit 2; }

now_ns() { date +%s%N; }
# own_cpu TOOL TIMEFILE PROGERR: the profiler's CPU ms, without the program's.
own_cpu() {
	awk -v t="$1" -v c="$(field cpu_ms "$3")" '{ u = $2; s = $3 } END {
		printf "%s %.1f\n", t, (u + s) * 1000 - c }' "$2" >> "$W/own_cpu"
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | tail -1; }

# perf script's default output, collapsed into folded stacks: a header line
# per sample ("comm tid time: period event:"), its frames one per line
# ("addr sym+off (dso)"), leaf first, then a blank line.
COLLAPSE='
function flush() {
	if (n) {
		s = comm
		for (i = n; i >= 1; i--) s = s ";" f[i]
		count[s]++
	}
	n = 0
}
/^[^ \t]/ { flush(); comm = $1; next }
/^[ \t]+[0-9a-f]+ / {
	sym = $2
	sub(/\+0x[0-9a-f]+$/, "", sym)
	if ($NF ~ /kernel\.kallsyms/) sym = sym "_[k]"
	f[++n] = sym
	next
}
/^$/ { flush() }
END { flush(); for (s in count) print s, count[s] }'

# Leaf shares of folded stacks, names made comparable: "[unknown] (in X)"
# is perf's "[unknown]"; the kernel marker goes; and glibc's memcpy and
# memmove, one function at one address under several names, are named
# alike, and glibc's internal __GI_ aliases too (perf takes the longest
# alias, ftr's ELF reader the global one with the fewest underscores).
LEAVES='{ c = $NF; t += c; sub(/ [0-9]+$/, ""); k = split($0, a, ";"); l = a[k];
	sub(/_\[k\]$/, "", l); if (l ~ /^\[unknown\]/) l = "[unknown]";
	sub(/^__memmove_/, "__memcpy_", l); sub(/^__GI_/, "", l); sub(/^_+/, "", l); s[l] += c }
	END { for (l in s) printf "%s %.4f\n", l, 100 * s[l] / t }'

for i in $(seq 1 "$RUNS"); do
	"$W/cpubound" "$ROUNDS" 2> "$W/alone.err"
	echo "alone $(field work_ms "$W/alone.err") $(field cpu_ms "$W/alone.err")" >> "$W/work"

	"$TIME" -f '%M %U %S' -o "$W/rss-rec" "$PERF" record -q -F "$HZ" $CG_PERF -o "$W/p.data" -- \
		"$W/cpubound" "$ROUNDS" 2> "$W/perf.err" > /dev/null
	"$TIME" -f %M -o "$W/rss-rep" "$PERF" report -i "$W/p.data" --stdio --no-children \
		--sort symbol > "$W/p.report" 2> /dev/null
	done_ns=$(now_ns)
	end=$(field end_ns "$W/perf.err")
	echo "perf $(field work_ms "$W/perf.err") $(field cpu_ms "$W/perf.err")" >> "$W/work"
	echo "perf $(( (done_ns - end) / 1000 ))" >> "$W/report_us"
	echo "perf $(stat -c %s "$W/p.data")" >> "$W/bytes"
	rss=$(tail -1 "$W/rss-rec" | cut -d' ' -f1); rss2=$(tail -1 "$W/rss-rep")
	echo "perf $(( rss > rss2 ? rss : rss2 ))" >> "$W/rss"
	own_cpu perf "$W/rss-rec" "$W/perf.err"
	n=$("$PERF" script -i "$W/p.data" -F tid 2> /dev/null | wc -l)
	# perf report --stats: "LOST events: N" (LOST_SAMPLES too) when any were lost
	lost=$("$PERF" report -i "$W/p.data" --stats 2> /dev/null |
		awk '/LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }')
	echo "perf $n $(field cpu_ms "$W/perf.err") $lost" >> "$W/samples"
	"$PERF" script -i "$W/p.data" 2> /dev/null | awk "$COLLAPSE" > "$W/p.folded"
	awk "$LEAVES" "$W/p.folded" | sed 's/^/perf /' >> "$W/shares"

	"$TIME" -f '%M %U %S' -o "$W/rss-ftr" "$FTR" profile -F "$HZ" $CG_FTR -o "$W/f.top" -- \
		"$W/cpubound" "$ROUNDS" 2> "$W/ftr.err" > /dev/null
	done_ns=$(now_ns)
	end=$(field end_ns "$W/ftr.err")
	echo "ftr $(field work_ms "$W/ftr.err") $(field cpu_ms "$W/ftr.err")" >> "$W/work"
	echo "ftr $(( (done_ns - end) / 1000 ))" >> "$W/report_us"
	echo "ftr $(stat -c %s "$W/f.top")" >> "$W/bytes"
	echo "ftr $(tail -1 "$W/rss-ftr" | cut -d' ' -f1)" >> "$W/rss"
	own_cpu ftr "$W/rss-ftr" "$W/ftr.err"
	n=$(sed -n 's/^# ftr profile: \([0-9]*\) samples.*/\1/p' "$W/f.top")
	lost=$(sed -n 's/.* \([0-9]*\) LOST.*/\1/p' "$W/f.top")
	echo "ftr $n $(field cpu_ms "$W/ftr.err") ${lost:-0}" >> "$W/samples"

	"$FTR" profile -F "$HZ" $CG_FTR --folded -- "$W/cpubound" "$ROUNDS" > "$W/f.folded" 2> /dev/null
	awk "$LEAVES" "$W/f.folded" | sed 's/^/ftr /' >> "$W/shares"
	echo "run $i of $RUNS done" >&2
done

# median KEY FILE COLUMN: the median of COLUMN over the lines starting KEY.
median() {
	awk -v k="$1" -v c="$3" '$1 == k { print $c }' "$2" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

alone=$(median alone "$W/work" 2); pw=$(median perf "$W/work" 2); fw=$(median ftr "$W/work" 2)
calone=$(median alone "$W/work" 3); pc=$(median perf "$W/work" 3); fc=$(median ftr "$W/work" 3)
prep=$(median perf "$W/report_us" 2); frep=$(median ftr "$W/report_us" 2)
prss=$(median perf "$W/rss" 2); frss=$(median ftr "$W/rss" 2)
pbytes=$(median perf "$W/bytes" 2); fbytes=$(median ftr "$W/bytes" 2)
pcpu=$(median perf "$W/own_cpu" 2); fcpu=$(median ftr "$W/own_cpu" 2)
# samples per run against HZ x that run's own CPU time
awk -v hz="$HZ" '{ printf "%s %.4f %s\n", $1, $2 / (hz * $3 / 1000), ($4 == "" ? 0 : $4) }' \
	"$W/samples" > "$W/capture"
pcap=$(median perf "$W/capture" 2); fcap=$(median ftr "$W/capture" 2)
flost=$(awk '$1 == "ftr" { s += $3 } END { print s + 0 }' "$W/capture")
plost=$(awk '$1 == "perf" { s += $3 } END { print s + 0 }' "$W/capture")
psam=$(median perf "$W/samples" 2); fsam=$(median ftr "$W/samples" 2)

echo
echo "## $(date -u +%Y-%m-%d) $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "cpubound ($CFLAGS_PROG) $ROUNDS rounds, -F $HZ $CG_PERF, $RUNS runs, medians; ftr = $FTR; $($PERF --version)"
echo
echo "| | alone | perf record | ftr profile | ftr / perf |"
echo "|---|---|---|---|---|"
echo "| program's work time (ms) | $alone | $pw | $fw | $(ratio "$fw" "$pw") |"
echo "| slowdown against alone (wall) | 1 | $(ratio "$pw" "$alone") | $(ratio "$fw" "$alone") | |"
echo "| program's CPU time (ms) | $calone | $pc | $fc | $(ratio "$fc" "$pc") |"
echo "| slowdown against alone (CPU) | 1 | $(ratio "$pc" "$calone") | $(ratio "$fc" "$calone") | |"
echo "| profiler's own CPU while recording (ms) | | $pcpu | $fcpu | $(ratio "$fcpu" "$pcpu") |"
echo "| samples captured | | $psam | $fsam | |"
echo "| captured / expected (HZ x CPU s) | | $pcap | $fcap | |"
echo "| samples lost (all runs) | | $plost | $flost | |"
echo "| end of run to printed report (ms) | | $(awk -v v="$prep" 'BEGIN{printf "%.1f", v/1000}') | $(awk -v v="$frep" 'BEGIN{printf "%.1f", v/1000}') | $(ratio "$frep" "$prep") |"
echo "| peak RSS (KiB) | | $prss | $frss | $(ratio "$frss" "$prss") |"
echo "| bytes written (perf.data; the report) | | $pbytes | $fbytes | $(ratio "$fbytes" "$pbytes") |"
psize=$(stat -L -c %s "$(command -v "$PERF")"); fsize=$(stat -L -c %s "$FTR")
plibs=$(ldd "$(command -v "$PERF")" 2> /dev/null | grep -c '=>' || true)
echo "| binary size (bytes) | | $psize (+$plibs shared libraries) | $fsize ($(file -L "$FTR" | grep -q 'statically linked' && echo static || echo dynamic)) | $(ratio "$fsize" "$psize") |"
echo
echo "Top 5 by self share (median over runs), ftr --folded against perf script collapsed:"
echo
echo "| function | perf % | ftr % | difference | within 2 points |"
echo "|---|---|---|---|---|"
for tool in perf ftr; do
	awk -v t=$tool '$1 == t { print $2 }' "$W/shares" | sort -u | while read -r s; do
		echo "$s $(awk -v t=$tool -v s="$s" '$1 == t && $2 == s { print $3 }' "$W/shares" |
			sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')"
	done > "$W/med-$tool"
done
sort -k2 -g -r "$W/med-perf" | head -5 > "$W/top-perf"
sort -k2 -g -r "$W/med-ftr" | head -5 > "$W/top-ftr"
agree=0 total=0
for s in $(cut -d' ' -f1 "$W/top-perf" "$W/top-ftr" | sort -u); do
	p=$(awk -v s="$s" '$1 == s { print $2 }' "$W/med-perf"); p=${p:-0}
	f=$(awk -v s="$s" '$1 == s { print $2 }' "$W/med-ftr"); f=${f:-0}
	d=$(awk -v a="$f" -v b="$p" 'BEGIN { printf "%+.2f", a - b }')
	ok=$(awk -v d="$d" 'BEGIN { print (d <= 2 && d >= -2) ? "yes" : "NO" }')
	total=$((total + 1)); [ "$ok" = yes ] && agree=$((agree + 1))
	printf '| %s | %.2f | %.2f | %s | %s |\n' "$s" "$p" "$f" "$d" "$ok"
done | sort -t'|' -k3 -g -r
echo
echo "(the union of both top 5s; samples: perf's from perf script, ftr's from its report)"
