# Sourced by bench/trace-write.sh and bench/record-write.sh: their common
# set-up (the writer workload, tracefs, a work dir removed at exit), the
# figures' helpers, and the runs both make side by side: untraced, the
# kernel's floor, perf record, and trace-cmd's attempt.
#
# Under `flock FILE bench/...`, the lock is fd 3: the workload's /dev/null
# would be fd 4, and perf's and bpftrace's counts look for fd 3.  (flock
# itself keeps the lock.)
exec 3<&-
N=${1:-2000000}
RUNS=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
FTR=${FTR:-$top/build/ftr}
BIN=$top/build/tests-bin
W="$BIN/writer $N 1"
export WRITER_TIME=1
T=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$T" ] || { "$FTR" doctor > /dev/null; T=/sys/kernel/tracing; }
work=$(mktemp -d)
inst=$T/instances/bench_floor_$$
cleanup() { [ -d "$inst" ] && { echo 0 > "$inst/events/syscalls/sys_enter_write/enable"; rmdir "$inst"; }; rm -rf "$work"; }
trap cleanup EXIT INT TERM

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | tail -1; }
# tracer CPU seconds = all CPU of the run minus the workload's own
tracer_cpu() {
	awk '/^writer:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); w[kv[1]] = kv[2] } }
	     /^rusage:/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); r[kv[1]] = kv[2] } }
	     END { printf "%.6f\n", (r["user"] + r["sys"]) - (w["user"] + w["sys"]) }' "$1"
}

# The workload untraced, then the floor: the event enabled for its pid in
# an instance nobody reads, with the sub-buffers ftr takes (64 KB where the
# kernel lets it choose), the same buffer geometry for both.
run_baselines() {
	$W 2> "$work/e"; field elapsed "$work/e" >> "$work/untraced"
	mkdir "$inst"
	[ -e "$inst/buffer_subbuf_size_kb" ] && echo 64 > "$inst/buffer_subbuf_size_kb"
	sh -c "echo \$\$ > $inst/set_event_pid; echo 1 > $inst/events/syscalls/sys_enter_write/enable; exec $W" 2> "$work/e"
	field elapsed "$work/e" >> "$work/floor"
	echo 0 > "$inst/events/syscalls/sys_enter_write/enable"; rmdir "$inst"
}

# perf record of the workload to a file: perf.{t,cpu,n,lost,bytes}, n the
# lines of `perf script` matching PATTERN.
run_perf() {
	"$BIN/rusage" perf record -q -e syscalls:sys_enter_write -o "$work/p.data" -- $W 2> "$work/e" > /dev/null
	field elapsed "$work/e" >> "$work/perf.t"
	tracer_cpu "$work/e" >> "$work/perf.cpu"
	perf script -i "$work/p.data" -F trace 2> /dev/null | grep -c "$1" >> "$work/perf.n"
	perf report -i "$work/p.data" --stats 2> /dev/null | awk '/LOST/ && $NF ~ /^[0-9]+$/ { s += $NF } END { print s + 0 }' >> "$work/perf.lost"
	stat -c %s "$work/p.data" >> "$work/perf.bytes"
	rm -f "$work/p.data"
}

# One line on trace-cmd record, in a column of width $1.
trace_cmd_line() {
	msg=$(trace-cmd record -e syscalls:sys_enter_write -o "$work/tc.dat" true 2>&1 | tail -2 | tr '\n' ' ')
	if [ -s "$work/tc.dat" ]; then
		printf "%-$1s (recorded; not measured by this script)\n" "trace-cmd record"
	else
		printf "%-$1s cannot record on this kernel: %s\n" "trace-cmd record" "$msg"
	fi
}
