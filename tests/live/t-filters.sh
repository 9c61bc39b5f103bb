# Named filters (filters/NAME.ftr) as @NAME in filters and predicates.
. "$LIVE_DIR/lib.sh"
require_tracing filters
if [ ! -d "$T/events/raw_syscalls/sys_enter" ] || [ ! -d "$T/events/syscalls/sys_enter_write" ]; then
	skip filters "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"

# @stdio: fd < 3.  The writer writes to fd 3, echo to fd 1.
"$FTR" trace -F fd syscalls:sys_enter_write -f '@stdio' -- sh -c 'writer 5 1; echo x' > "$TMP/o" 2> "$TMP/e"
[ "$(count_lines 'fd=3$' "$TMP/o")" -eq 0 ] && [ "$(count_lines 'fd=1$' "$TMP/o")" -ge 1 ] &&
	ok filter-named-in-trace || fail filter-named-in-trace "$(head -3 "$TMP/o" "$TMP/e")"

# A named filter in a program's predicate: @stdio keeps fd 1, not fd 3.
"$FTR" -e 'tracepoint:syscalls:sys_enter_write /@stdio/ { @[args.fd] = count(); }' \
	-- sh -c 'writer 5 1; echo x' > "$TMP/o" 2> "$TMP/e"
grep -q '^@\[1\]: ' "$TMP/o" && ! grep -q '^@\[3\]: ' "$TMP/o" && ok filter-named-in-program ||
	fail filter-named-in-program "$(cat "$TMP/o" "$TMP/e" | head -4)"

# A system-wide trace leaves ftr's own events out (set_event_notrace_pid):
# it reads its buffers with system calls that would otherwise feed it.
if [ -e "$T/set_event_notrace_pid" ]; then
	# Keyed by process: another ftr on the machine (a second suite, a
	# developer's) is traced like any process; only this one must be absent.
	"$FTR" -d 1 -e 'tracepoint:raw_syscalls:sys_enter /comm == "ftr"/ { @[pid] = count(); }' \
		> "$TMP/all" 2>&1 &
	me=$!
	wait $me
	if grep -q "^@\[$me\]" "$TMP/all"; then
		fail trace-leaves-itself-out "pid $me: $(grep "^@\[$me\]" "$TMP/all")"
	else
		ok trace-leaves-itself-out
	fi
else
	skip trace-leaves-itself-out "no set_event_notrace_pid on this kernel (before 5.8)"
fi

"$FTR" trace -f '@no_such_filter' sched:sched_switch > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "no named filter '@no_such_filter'" "$TMP/e" && ok filter-named-unknown ||
	fail filter-named-unknown "rc=$rc $(cat "$TMP/e")"
same_as_before filters-leave-tracefs "$TMP/before"
