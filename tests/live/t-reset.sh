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
