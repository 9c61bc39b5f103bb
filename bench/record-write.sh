#!/bin/bash
# Benchmark for `ftr record` (issue #16): N write(2) calls to /dev/null
# recorded to a file through syscalls:sys_enter_write (the workload's pid
# only), side by side in one run: untraced, the kernel's floor (the event
# enabled in an instance nobody reads), `ftr record` and `perf record`, and
# trace-cmd where it can record (not on a kernel that refuses writes to
# /proc/sys/kernel/ftrace_enabled).
#
#   bench/record-write.sh [N] [RUNS]      (defaults 2000000 and 5; root)
#
# FTR=path picks the ftr binary (the dynamic one: it also counts the file's
# events with `ftr run -i`); FTR_BASE=path adds a row for a second ftr
# record, run right after the first in each run, so that a change is
# compared under the same load.  A row for `ftr trace > /dev/null` (the same
# events decoded and printed, no file) is the reference of the read path.
# The files go to $TMPDIR (default /tmp).
#
# Reports medians of RUNS runs: the workload's slowdown against untraced and
# against the floor, the events in the file (counted by reading it back:
# `ftr run -i`, `perf script`), events lost, the file's bytes per event, and
# the recorder's CPU time per event (its rusage minus the workload's own).
set -u
. "$(dirname "$0")/write-common.sh"

FTR_BASE=${FTR_BASE:-}
# run_rec BINARY NAME: one recorded run, its figures appended to $work/NAME.*
run_rec() {
	"$BIN/rusage" "$1" record -o "$work/f.dat" -e syscalls:sys_enter_write -- $W 2> "$work/e" > /dev/null
	field elapsed "$work/e" >> "$work/$2.t"
	tracer_cpu "$work/e" >> "$work/$2.cpu"
	sed -n 's/.* \([0-9]*\) LOST.*/\1/p' "$work/e" | grep . >> "$work/$2.lost" || echo 0 >> "$work/$2.lost"
	n=$("$FTR" run -i "$work/f.dat" 'tracepoint:syscalls:sys_enter_write /args.count == 1/ { @ = count(); }' | sed -n 's/^@: //p')
	echo "${n:-0}" >> "$work/$2.n"
	stat -c %s "$work/f.dat" >> "$work/$2.bytes"
	# the pages alone (the file less its header: kallsyms, formats)
	sed -n 's/^ftr: \([0-9]*\) events in \([0-9]*\) pages of \([0-9]*\) KB.*/\2 \3 \1/p' "$work/e" |
		awk '{ printf "%.2f\n", $1 * $2 * 1024 / $3 }' >> "$work/$2.pagebytes"
	rm -f "$work/f.dat"
}

for r in $(seq "$RUNS"); do
	run_baselines

	run_rec "$FTR" ftr
	[ -n "$FTR_BASE" ] && run_rec "$FTR_BASE" ftrbase

	# ftr trace to /dev/null: the reference without a file
	"$BIN/rusage" "$FTR" -v trace syscalls:sys_enter_write -- $W 2> "$work/e" > /dev/null
	field elapsed "$work/e" >> "$work/trace.t"
	tracer_cpu "$work/e" >> "$work/trace.cpu"
	sed -n 's/.* \([0-9]*\) LOST.*/\1/p' "$work/e" | grep . >> "$work/trace.lost" || echo 0 >> "$work/trace.lost"
	sed -n 's/^ftr: \([0-9]*\) events read.*/\1/p' "$work/e" >> "$work/trace.n"
	echo 0 >> "$work/trace.bytes"

	run_perf 'count: 0x00000001'
done

un=$(median < "$work/untraced")
fl=$(median < "$work/floor")
printf 'N = %d writes, %d runs, medians; slowdown = workload time / untraced (%.3fs)\n\n' "$N" "$RUNS" "$un"
printf '%-26s %9s %9s %10s %8s %11s %10s  %s\n' tool slowdown vs-floor in-file lost file-MB bytes/event "ns CPU/event"
row() {
	t=$(median < "$work/$1.t"); n=$(median < "$work/$1.n"); l=$(median < "$work/$1.lost")
	c=$(median < "$work/$1.cpu"); b=$(median < "$work/$1.bytes")
	lo=$(sort -g "$work/$1.cpu" | head -1); hi=$(sort -g "$work/$1.cpu" | tail -1)
	awk -v name="$2" -v t="$t" -v u="$un" -v f="$fl" -v n="$n" -v l="$l" -v c="$c" -v N="$N" \
	    -v b="$b" -v lo="$lo" -v hi="$hi" \
	    'BEGIN { printf "%-26s %8.2fx %8.2fx %10d %8d %11.1f %10.1f  %.0f (%.0f-%.0f)\n", name, t / u, t / f, n, l,
		     b / 1048576, b / (n ? n : 1), c * 1e9 / N, lo * 1e9 / N, hi * 1e9 / N }'
}
awk -v f="$fl" -v u="$un" 'BEGIN { printf "%-26s %8.2fx %8.2fx\n", "floor (enabled, no reader)", f / u, 1 }'
row ftr "ftr record"
printf '%-26s %s bytes/event in its pages (the rest is the header: kallsyms, formats)\n' "" "$(median < "$work/ftr.pagebytes")"
[ -s "$work/ftrbase.t" ] && row ftrbase "ftr record (FTR_BASE)"
row trace "ftr trace > /dev/null"
row perf "perf record"
trace_cmd_line 26
