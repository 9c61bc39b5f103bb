# Under lockdown=confidentiality ftr says that lockdown forbids tracing,
# instead of reporting events as missing; under lockdown=integrity it traces.
. "$LIVE_DIR/lib.sh"

mode=""
for a in $(cat /proc/cmdline); do
	case $a in lockdown=*) mode=${a#lockdown=} ;; esac
done
if [ -z "$mode" ]; then
	skip lockdown "this kernel was not booted with lockdown= (the matrix has rows that are)"
	exit 0
fi

# securityfs tells the mode when mounted; ftr must also cope without it, so
# the confidentiality row leaves it unmounted and the integrity row mounts it.
if [ "$mode" = integrity ] && [ ! -e /sys/kernel/security/lockdown ]; then
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
fi

"$FTR" doctor > "$TMP/out" 2>&1
rc=$?
if [ "$mode" = confidentiality ]; then
	check lockdown-doctor-exit-1 [ $rc -eq 1 ]
	grep -q 'lockdown forbids tracing' "$TMP/out" && ok lockdown-doctor-says-why ||
		fail lockdown-doctor-says-why "$(head -5 "$TMP/out" | tr '\n' ' ')"
	grep -q '^lockdown  *confidentiality' "$TMP/out" && ok lockdown-doctor-mode ||
		fail lockdown-doctor-mode "$(grep lockdown "$TMP/out" | head -2)"
	# Not "no such event": the reason.
	"$FTR" list sched:sched_switch > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'lockdown' "$TMP/e" && ok lockdown-list-says-why ||
		fail lockdown-list-says-why "rc=$rc $(cat "$TMP/e")"
	"$FTR" doctor --json | grep -q '"tracing_locked":true' && ok lockdown-json ||
		fail lockdown-json "tracing_locked not true"
else
	check lockdown-integrity-doctor-exit-0 [ $rc -eq 0 ]
	grep -q "^lockdown  *$mode" "$TMP/out" && ok lockdown-integrity-mode ||
		fail lockdown-integrity-mode "$(grep lockdown "$TMP/out" | head -2)"
	grep -q '^yes  *tracepoints' "$TMP/out" && ok lockdown-integrity-traces ||
		fail lockdown-integrity-traces "tracepoints not available"
fi
