#!/bin/bash
# Benchmark for `ftr trace` (issue #3): N write(2) calls to /dev/null traced
# through syscalls:sys_enter_write, filtered to the workload's pid, output to
# /dev/null (ftr counts what it delivered; perf's file is counted afterwards;
# bpftrace's output goes through grep -c, the only way to count it).  Side by side in one run: untraced, the kernel's floor
# (event enabled in an instance, no reader), ftr, perf record, bpftrace
# printing each event, and trace-cmd (which cannot record on a kernel that
# refuses writes to /proc/sys/kernel/ftrace_enabled).
#
#   bench/trace-write.sh [N] [RUNS]      (defaults 2000000 and 5; root)
#
# TOOLS="ftr perf" (default: "ftr perf bpftrace trace-cmd") runs only those
# tracers (the untraced run and the floor always run: the ratios need them);
# FTR=path picks the ftr binary; FTR_BASE=path adds a row for a second ftr,
# run right after the first in each run, so that a change is compared under
# the same load.
#
# Reports medians of RUNS runs: the workload's slowdown against untraced and
# against the floor, events delivered against N, events lost (and in how many
# runs any were), and the tracer's CPU time per event (its rusage minus the
# workload's own; the lowest and highest run in brackets).
set -u
FTR_BASE=${FTR_BASE:-}
TOOLS=${TOOLS:-ftr perf bpftrace trace-cmd}
. "$(dirname "$0")/write-common.sh"
want() { case " $TOOLS " in *" $1 "*) command -v "$2" > /dev/null;; *) false;; esac; }

# run_ftr BINARY NAME: one traced run, its figures appended to $work/NAME.*
run_ftr() {
	"$BIN/rusage" "$1" -v trace syscalls:sys_enter_write -- $W 2> "$work/e" > /dev/null
	sed -n 's/^ftr: \([0-9]*\) events read.*/\1/p' "$work/e" >> "$work/$2.n"
	field elapsed "$work/e" >> "$work/$2.t"
	tracer_cpu "$work/e" >> "$work/$2.cpu"
	sed -n 's/.* \([0-9]*\) LOST.*/\1/p' "$work/e" | grep . >> "$work/$2.lost" || echo 0 >> "$work/$2.lost"
}

for r in $(seq "$RUNS"); do
	run_baselines

	# ftr (and the one to compare it with)
	want ftr "$FTR" && run_ftr "$FTR" ftr
	[ -n "$FTR_BASE" ] && want ftr "$FTR_BASE" && run_ftr "$FTR_BASE" ftrbase

	# perf record
	want perf perf && run_perf 'fd: 0x00000003'

	# bpftrace, a printf per event
	if want bpftrace bpftrace; then
		"$BIN/rusage" bpftrace -e 'tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("%d %d\n", args->fd, args->count); }' \
			-c "$W" 2> "$work/e" | grep -c '^3 1$' >> "$work/bpftrace.n"
		field elapsed "$work/e" >> "$work/bpftrace.t"
		tracer_cpu "$work/e" >> "$work/bpftrace.cpu"
		sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' "$work/e" | awk '{ s += $1 } END { print s + 0 }' >> "$work/bpftrace.lost"
	fi
done

un=$(median < "$work/untraced")
fl=$(median < "$work/floor")
printf 'N = %d writes, %d runs, medians; slowdown = workload time / untraced (%.3fs)\n\n' "$N" "$RUNS" "$un"
printf '%-22s %9s %9s %12s %10s %6s  %s\n' tool slowdown vs-floor delivered lost lossy "ns CPU/event"
row() {
	t=$(median < "$work/$1.t"); n=$(median < "$work/$1.n"); l=$(median < "$work/$1.lost"); c=$(median < "$work/$1.cpu")
	k=$(awk '$1 > 0' "$work/$1.lost" | wc -l)
	lo=$(sort -g "$work/$1.cpu" | head -1); hi=$(sort -g "$work/$1.cpu" | tail -1)
	awk -v name="$2" -v t="$t" -v u="$un" -v f="$fl" -v n="$n" -v l="$l" -v c="$c" -v N="$N" \
	    -v k="$k" -v R="$RUNS" -v lo="$lo" -v hi="$hi" \
	    'BEGIN { printf "%-22s %8.2fx %8.2fx %12d %10d %6s  %.0f (%.0f-%.0f)\n", name, t / u, t / f, n, l,
		     k "/" R, c * 1e9 / N, lo * 1e9 / N, hi * 1e9 / N }'
}
awk -v f="$fl" -v u="$un" 'BEGIN { printf "%-22s %8.2fx %8.2fx %12s %10s %6s  %s\n", "floor (enabled, no reader)", f / u, 1, "-", "-", "-", "-" }'
[ -s "$work/ftr.t" ] && row ftr "ftr trace"
[ -s "$work/ftrbase.t" ] && row ftrbase "ftr trace (FTR_BASE)"
[ -s "$work/perf.t" ] && row perf "perf record"
[ -s "$work/bpftrace.t" ] && row bpftrace "bpftrace printf"
want trace-cmd trace-cmd && trace_cmd_line 22
