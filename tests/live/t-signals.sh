# SIGINT, SIGTERM and SIGHUP in the middle of a run leave nothing behind;
# SIGKILL leaves the instance, and ftr reset removes it.
. "$LIVE_DIR/lib.sh"
require_tracing signals
snapshot > "$TMP/before"

probe_arg=""
if has_uprobes && command -v uprobe-target >/dev/null 2>&1; then
	# A dynamic event too, so that its removal is checked as well.
	probe_arg="uprobe:$(command -v uprobe-target):ftr_target"
fi

for sig in INT TERM HUP; do
	"$FTR" trace sched:sched_switch $probe_arg > /dev/null 2>&1 &
	p=$!
	if ! wait_tracing $p; then
		kill -KILL $p 2>/dev/null
		fail "signal-$sig" "ftr never started tracing"
		"$FTR" reset > /dev/null 2>&1
		continue
	fi
	kill -$sig $p
	wait $p
	rc=$?
	snapshot > "$TMP/after"
	if cmp -s "$TMP/before" "$TMP/after" && [ $rc -eq 0 ]; then
		ok "signal-$sig-leaves-nothing"
	else
		fail "signal-$sig-leaves-nothing" "rc=$rc; $(diff -u "$TMP/before" "$TMP/after" | grep '^[-+][^-+]' | head -3 | tr '\n' ' ')"
	fi
done

"$FTR" trace sched:sched_switch $probe_arg > /dev/null 2>&1 &
p=$!
if wait_tracing $p; then
	kill -KILL $p
	wait $p 2>/dev/null
	[ -d "$T/instances/ftr_$p" ] && ok signal-KILL-leaves-instance ||
		fail signal-KILL-leaves-instance "no instance to clean?"
	"$FTR" reset > "$TMP/r" 2>&1
	grep -q "removed instance .*ftr_$p" "$TMP/r" && ok reset-after-kill-reports ||
		fail reset-after-kill-reports "$(cat "$TMP/r")"
	same_as_before reset-after-kill-leaves-nothing "$TMP/before"
else
	kill -KILL $p 2>/dev/null
	fail signal-KILL "ftr never started tracing"
fi

# A run ended by a closed pipe (ftr trace | head) cleans up too.
"$FTR" trace sched:sched_switch 2>/dev/null | head -1 > /dev/null
same_as_before sigpipe-leaves-nothing "$TMP/before"
