# ftr list finds events, their fields, and probeable functions.
. "$LIVE_DIR/lib.sh"
require_tracing list

snapshot > "$TMP/before"
"$FTR" list -v sched:sched_switch > "$TMP/v" 2>&1
grep -q '^tracepoint:sched:sched_switch$' "$TMP/v" && grep -q 'char prev_comm\[16\]' "$TMP/v" &&
	grep -q 'pid_t next_pid' "$TMP/v" && ok list-v-fields ||
	fail list-v-fields "$(head -3 "$TMP/v" | tr '\n' ' ')"

n=$("$FTR" list 'sched:*' | wc -l)
want=0
for d in "$T"/events/sched/*/; do [ -e "$d/format" ] && want=$((want + 1)); done
check list-glob-count [ "$n" -eq "$want" ]
n=$("$FTR" list 'tracepoint:sched:sched_sw*' | grep -c sched_switch)
check list-bpftrace-spelling [ "$n" -eq 1 ]

"$FTR" list nosuchevent_xyz > /dev/null 2> "$TMP/err"
rc=$?
check list-unknown-exit-1 [ $rc -eq 1 ]

if [ -e "$T/available_filter_functions" ] || [ -r /proc/kallsyms ]; then
	"$FTR" list --functions vfs_write > "$TMP/f" 2>/dev/null
	if has_kprobes; then
		grep -qx 'kprobe:vfs_write' "$TMP/f" && ok list-functions ||
			fail list-functions "$(cat "$TMP/f")"
	else
		grep -q '^kprobe:vfs_write .*unusable' "$TMP/f" && ok list-functions-unusable ||
			fail list-functions-unusable "$(cat "$TMP/f")"
	fi
fi
# An fprobe event (f:GRP/EV FUNC), which libtracefs does not list: named
# with its function, as kprobes are.
if grep -q 'f\[:\[<group>/\]\[<event>\]\]' "$T/README" 2> /dev/null &&
	echo 'f:ftrlisttest/fp vfs_read' >> "$T/dynamic_events" 2> /dev/null; then
	"$FTR" list 'ftrlisttest:*' > "$TMP/fp" 2>&1
	echo '-:ftrlisttest/fp' >> "$T/dynamic_events"
	grep -qx 'tracepoint:ftrlisttest:fp    \[fprobe vfs_read\]' "$TMP/fp" && ok list-fprobe ||
		fail list-fprobe "$(head -3 "$TMP/fp")"
else
	skip list-fprobe "no fprobe events on this kernel"
fi
same_as_before list-leaves-tracefs "$TMP/before"
