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

# @not_ftr in a predicate: ftr's own system calls (reading its buffers) are
# counted without it and not with it.
"$FTR" -d 1 -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }' > "$TMP/all" 2>&1
"$FTR" -d 1 -e 'tracepoint:raw_syscalls:sys_enter /@not_ftr/ { @[comm] = count(); }' > "$TMP/nf" 2>&1
if grep -q '^@\[ftr' "$TMP/all" && ! grep -q '^@\[ftr' "$TMP/nf"; then
	ok filter-named-in-program
else
	fail filter-named-in-program "with: $(grep -c '^@\[ftr' "$TMP/all"), without: $(grep -c '^@\[ftr' "$TMP/nf")"
fi

"$FTR" trace -f '@no_such_filter' sched:sched_switch > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "no named filter '@no_such_filter'" "$TMP/e" && ok filter-named-unknown ||
	fail filter-named-unknown "rc=$rc $(cat "$TMP/e")"
same_as_before filters-leave-tracefs "$TMP/before"
