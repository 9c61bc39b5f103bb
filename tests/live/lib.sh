# Shared by the live tests (sourced; POSIX sh, busybox-compatible).

ok() { echo "ok $1"; }
fail() { echo "not ok $1: $2"; FAILED=1; }
skip() { echo "skip $1: $2"; }
# check NAME CONDITION-COMMAND... : ok when the command succeeds
check() {
	n=$1; shift
	if "$@"; then ok "$n"; else fail "$n" "failed: $*"; fi
}

# Where ftr finds tracefs: /sys/kernel/tracing when it is mounted there,
# else the first tracefs mount (debugfs's automount at .../debug/tracing).
tracefs_path() {
	awk '$3 == "tracefs" { if ($2 == "/sys/kernel/tracing") { print $2; found = 1; exit }
			       if (!first) first = $2 }
	     END { if (!found && first) print first }' /proc/mounts
}

# The tests need tracefs; ftr mounts it, so mount it here the same way when a
# test runs first and finds it absent.
T=$(tracefs_path)
if [ -z "$T" ] && [ -z "$NO_AUTOMOUNT" ]; then
	"$FTR" doctor >/dev/null 2>&1
	T=$(tracefs_path)
fi

# Lockdown=confidentiality leaves tracefs mounted but empty.
tracing_locked() { [ -n "$T" ] && [ ! -e "$T/README" ]; }
require_tracing() {
	if [ -z "$T" ]; then skip "$1" "no tracefs on this kernel"; exit 0; fi
	if tracing_locked; then skip "$1" "kernel lockdown forbids tracing on this boot"; exit 0; fi
}
has_kprobes() { [ -e "$T/kprobe_events" ]; }
has_uprobes() { [ -e "$T/uprobe_events" ]; }
has_hist() { [ -e "$T/events/sched/sched_switch/hist" ]; }
# Whether the function tracer really runs in an instance: listed is no
# proof (a hardened 6.18 lists it and answers EPERM).  Tried with a filter
# of one function, never with an empty one (every function); $1 another
# tracer (function_graph).  Leaves nothing behind.
has_tracer() {
	_t=${1:-function} _d=$T/instances/ftrtest_has_tracer _r=1
	grep -qw "$_t" "$T/available_tracers" 2>/dev/null || return 1
	mkdir "$_d" 2>/dev/null || return 1
	_f=$(head -n 1 "$T/available_filter_functions" 2>/dev/null | cut -d' ' -f1)
	if [ -n "$_f" ] && echo "$_f" > "$_d/set_ftrace_filter" 2>/dev/null &&
		echo "$_t" > "$_d/current_tracer" 2>/dev/null; then
		_r=0
		echo nop > "$_d/current_tracer"
	fi
	echo > "$_d/set_ftrace_filter" 2>/dev/null
	rmdir "$_d"
	return $_r
}

# A canonical description of what tracefs holds, compared before and after a
# run: instances, dynamic events, and at the top level the enabled events,
# filters, triggers, tracer and tracing_on.
snapshot() {
	echo "instances: $(ls "$T/instances" 2>/dev/null | sort | tr '\n' ' ')"
	for f in dynamic_events kprobe_events uprobe_events synthetic_events; do
		[ -r "$T/$f" ] && sed "s|^|$f: |" "$T/$f"
	done
	grep -l '^1' "$T"/events/*/*/enable 2>/dev/null | sed 's|^|enabled: |'
	grep -H -v '^none$' "$T"/events/*/*/filter 2>/dev/null | sed 's|^|filter: |'
	grep -H -v '^#' "$T"/events/*/*/trigger 2>/dev/null | sed 's|^|trigger: |'
	echo "tracer: $(cat "$T/current_tracer")"
	echo "tracing_on: $(cat "$T/tracing_on")"
	echo "set_event_pid: $(cat "$T/set_event_pid" 2>/dev/null)"
	# ftr expedites RCU while it removes many triggers (src/kernel/expedite.c)
	echo "rcu_expedited: $(cat /sys/kernel/rcu_expedited 2>/dev/null)"
}

# same_as_before NAME SNAPSHOTFILE: ok when tracefs is as it was.
same_as_before() {
	snapshot > "$TMP/after"
	if cmp -s "$2" "$TMP/after"; then
		ok "$1"
	else
		fail "$1" "tracefs changed: $(diff -u "$2" "$TMP/after" | grep '^[-+][^-+]' | head -3 | tr '\n' ' ')"
	fi
}

# The two empty lines bpftrace prints at exit, before the maps: a program's
# run (ftr -e, run, scripts) prints them too; count and hist do not.
EXIT_LINES='

'

# A pid that does not run (a child that has exited and been reaped).
dead_pid() { sh -c 'exit 0' & p=$!; wait $p; echo $p; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ftr-live.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILED=0

# Wait (up to 10 s) until the ftr with pid $1 traces: everything live, the
# workload may start.  Its lock file says so (session_running); tracing_on
# does not: a new instance starts with tracing on, before ftr switches it
# off to configure it, and a workload started then ran before any event was
# enabled (t-prom lost one of its two writers, 500 of 1000 writes, in 2 of
# 10 runs of an ASan ftr on a loaded host).
wait_tracing() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(cat "/run/ftr/ftr_$1.lock" 2>/dev/null)" = running ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# count_lines PATTERN FILE
count_lines() { grep -c -- "$1" "$2" 2>/dev/null || true; }

# require_sampling NAME: the hotpath helper and CPU sampling are here, or
# the test prints why not and the script ends.
require_sampling() {
	if ! command -v hotpath > /dev/null 2>&1; then
		skip "$1" "the hotpath helper is not on PATH (make helpers)"
		exit 0
	fi
	if ! "$FTR" profile --folded -- true > "$TMP/o" 2> "$TMP/e" &&
			grep -q 'perf_event_open\|not supported' "$TMP/e"; then
		skip "$1" "no CPU sampling here: $(head -1 "$TMP/e")"
		exit 0
	fi
}
