# ftr reset removes what a killed ftr left (ftr_<pid> whose pid is gone or is
# no longer an ftr) and touches nothing else.
. "$LIVE_DIR/lib.sh"
require_tracing reset

dead=$(dead_pid)
sleep 60 & reused=$!		# a live pid whose comm is not ftr: a reused pid
mkdir "$T/instances/ftr_$dead" "$T/instances/ftr_$reused" "$T/instances/other_ftr_1" \
	"$T/instances/ftr_keep_me"
probes=no
if has_uprobes; then
	f=$T/dynamic_events
	[ -e "$f" ] || f=$T/uprobe_events
	echo "p:ftr_$dead/leak /bin/sh:0x0" >> "$f" && echo "p:ftrtest_$dead/mine /bin/sh:0x0" >> "$f" &&
		probes=yes
	# A leftover probe still enabled in a leftover instance: reset must
	# remove the instance first, or the probe is busy.
	[ $probes = yes ] && echo 1 > "$T/instances/ftr_$dead/events/ftr_$dead/leak/enable"
fi

"$FTR" reset -n > "$TMP/dry" 2>&1
[ -d "$T/instances/ftr_$dead" ] && grep -q "would remove instance .*ftr_$dead" "$TMP/dry" &&
	ok reset-dry-run || fail reset-dry-run "$(cat "$TMP/dry")"

"$FTR" reset > "$TMP/out" 2>&1
rc=$?
check reset-exit-0 [ $rc -eq 0 ]
check reset-removes-dead-instance [ ! -d "$T/instances/ftr_$dead" ]
check reset-removes-reused-pid-instance [ ! -d "$T/instances/ftr_$reused" ]
check reset-keeps-foreign-instance [ -d "$T/instances/other_ftr_1" ]
check reset-keeps-unparsable-name [ -d "$T/instances/ftr_keep_me" ]
if [ $probes = yes ]; then
	grep -q "ftr_$dead/leak" "$T/uprobe_events" && fail reset-removes-dead-probe "still there" ||
		ok reset-removes-dead-probe
	grep -q "ftrtest_$dead/mine" "$T/uprobe_events" && ok reset-keeps-foreign-probe ||
		fail reset-keeps-foreign-probe "removed"
	echo "-:ftrtest_$dead/mine" >> "$f"
else
	skip reset-probes "no uprobe events on this kernel"
fi
kill $reused 2>/dev/null
rmdir "$T/instances/other_ftr_1" "$T/instances/ftr_keep_me" "$T/instances/ftr_$reused" \
	"$T/instances/ftr_$dead" 2>/dev/null

"$FTR" reset > "$TMP/out2" 2>&1
grep -q "nothing to clean up" "$TMP/out2" && ok reset-idempotent || fail reset-idempotent "$(cat "$TMP/out2")"

# Two runs at once leave nothing behind.  Before 5.8 the kernel refuses to
# remove an instance while any instance's trace_pipe is open (the shared
# nop tracer's reader count, kernel/trace/trace.c's instance_rmdir): the
# short run A ends while the long run B reads; A leaves its instance inert
# and marked, and B, ending, removes it.  4.19 left ftr_A behind (EBUSY).
snapshot > "$TMP/before2"
"$FTR" trace sched:sched_process_exit > /dev/null 2> "$TMP/eb" &
b=$!
if wait_tracing $b; then
	"$FTR" trace sched:sched_process_exit -- true > "$TMP/oa" 2> "$TMP/ea" &
	a=$!
	wait $a; rca=$?
	kill -INT $b; wait $b; rcb=$?
	left=$(ls -d "$T/instances/ftr_$a" "$T/instances/ftr_$b" /run/ftr/ftr_$a.lock \
		/run/ftr/ftr_$b.lock 2>/dev/null | tr '\n' ' ')
	[ $rca = 0 ] && [ $rcb = 0 ] && [ -z "$left" ] && ok reset-overlap-runs-clean ||
		fail reset-overlap-runs-clean "rc $rca $rcb, left: $left; $(cat "$TMP/ea" "$TMP/eb" | head -3)"
	grep -q 'cannot undo' "$TMP/ea" "$TMP/eb" && fail reset-overlap-no-warning "$(cat "$TMP/ea")" ||
		ok reset-overlap-no-warning
	same_as_before reset-overlap-tracefs "$TMP/before2"
else
	kill $b 2>/dev/null; wait $b
	fail reset-overlap-runs-clean "the long run did not start: $(head -3 "$TMP/eb")"
fi
