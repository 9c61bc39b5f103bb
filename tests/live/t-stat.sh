# ftr stat: the seed's S1 lines, exact tracepoint counts through perf
# counters, the reading of the split where it cannot be in doubt, -p, -a,
# -r, --json, and bad input (usage 2, failures 1, paranoid explained).
. "$LIVE_DIR/lib.sh"

if ! "$FTR" stat -- true > "$TMP/o" 2> "$TMP/e"; then
	if grep -q 'perf_event_open' "$TMP/e"; then
		skip stat "no perf_event_open here: $(head -1 "$TMP/e")"
		exit 0
	fi
fi

# A JSON parser when there is one (python3 on the host; not in busybox guests).
json_ok() {
	if command -v python3 > /dev/null 2>&1; then
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2> /dev/null
	else
		return 2
	fi
}

# The seed's S1 lines, in perf stat's shape.
"$FTR" stat -- writer 100 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
ok_lines=1
for l in 'msec task-clock .*CPUs utilized' ' context-switches ' ' cpu-migrations ' \
	' page-faults ' ' minor-faults ' ' major-faults ' ' cycles' ' instructions' \
	'seconds time elapsed' 'seconds user' 'seconds sys' "Performance counter stats for 'writer 100 1'"; do
	grep -q -- "$l" "$TMP/o" || { ok_lines=0; missing=$l; }
done
[ $rc -eq 0 ] && [ $ok_lines = 1 ] && ok stat-lines || fail stat-lines "rc=$rc, no '$missing' $(head -3 "$TMP/e")"
# One line reads the split.
grep -Eq '^ (mostly user|mostly sys|mostly waiting|both|too short)' "$TMP/o" &&
	ok stat-reading-line || fail stat-reading-line "$(tail -3 "$TMP/o")"
# Hardware counters: a number where there is a PMU, else <not supported>.
grep -Eq '(<not supported>|[0-9]) +cycles' "$TMP/o" && ok stat-cycles-line ||
	fail stat-cycles-line "$(grep cycles "$TMP/o")"

# Exact tracepoint counts, through perf counters (no tracefs state).
if [ -n "$T" ] && ! tracing_locked && [ -d "$T/events/syscalls/sys_enter_write" ]; then
	snapshot > "$TMP/before"
	"$FTR" stat -e syscalls:sys_enter_write -- writer 2500 7 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 0 ] && grep -Eq '^ +2,500 +syscalls:sys_enter_write' "$TMP/o" &&
		ok stat-tracepoint-exact || fail stat-tracepoint-exact "rc=$rc $(grep sys_enter "$TMP/o") $(head -2 "$TMP/e")"
	"$FTR" stat -j -r 3 -e syscalls:sys_enter_write -- writer 100 1 > "$TMP/j" 2> "$TMP/e"; rc=$?
	grep -q '"runs":3,' "$TMP/j" &&
		grep -q '"event":"syscalls:sys_enter_write","supported":true,"counted":true,"value":100,' "$TMP/j" &&
		grep -q '"variation_pct":0[,}]' "$TMP/j" && ok stat-repeat-exact ||
		fail stat-repeat-exact "rc=$rc $(cat "$TMP/j") $(head -2 "$TMP/e")"
	# By pid: a process held back on a fifo until ftr counts it, then it
	# execs the writer; ftr ends when the pid ends.
	mkfifo "$TMP/go"
	sh -c "read x < '$TMP/go'; exec writer 700 3" &
	wpid=$!
	"$FTR" stat -j -p $wpid -e syscalls:sys_enter_write > "$TMP/j" 2> "$TMP/e" &
	fpid=$!
	# Counting is on once ftr waits in poll(2).
	i=0
	while [ $i -lt 100 ] && ! grep -q poll /proc/$fpid/wchan 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	echo go > "$TMP/go"
	wait $wpid; wait $fpid; rc=$?
	[ $rc -eq 0 ] && grep -q '"target":"pid"' "$TMP/j" &&
		grep -q '"event":"syscalls:sys_enter_write","supported":true,"counted":true,"value":700,' "$TMP/j" &&
		ok stat-pid-exact || fail stat-pid-exact "rc=$rc $(cat "$TMP/j") $(head -2 "$TMP/e")"
	same_as_before stat-leaves-tracefs "$TMP/before"
	"$FTR" stat -e syscalls:sys_enter_nosuch -- true > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q "no tracepoint 'syscalls:sys_enter_nosuch'" "$TMP/e" &&
		ok stat-unknown-tracepoint || fail stat-unknown-tracepoint "rc=$rc $(cat "$TMP/e")"
else
	skip stat-tracepoint "no syscall tracepoints here"
fi

# The reading where it cannot be in doubt: sleeping is waiting.
"$FTR" stat -j -- sleep 0.3 > "$TMP/j" 2> "$TMP/e"
grep -q '"verdict":"waiting"' "$TMP/j" && ok stat-reading-waiting ||
	fail stat-reading-waiting "$(cat "$TMP/j")"
# Copying /dev/zero is the kernel's work; a loop is the program's.  (Only
# the user/sys comparison is checked: on a busy machine either may also
# read as waiting for a CPU, and under emulation dd's own loop can take a
# third of the time: "mixed", with sys still the larger.  1 MB blocks: with
# 64 KB ones the loop and syscall entries took a share that rusage's tick
# sampling could put above sys in a 65 ms run.)
"$FTR" stat -j -- dd if=/dev/zero of=/dev/null bs=1M count=1500 > "$TMP/j" 2> "$TMP/e"
us=$(sed -n 's/.*"user_s":\([0-9.e-]*\),"sys_s":\([0-9.e-]*\),.*/\1 \2/p' "$TMP/j")
echo "$us" | awk '{ exit !($2 > $1) }' && grep -Eq '"verdict":"(sys|waiting|mixed)"' "$TMP/j" &&
	ok stat-reading-sys || fail stat-reading-sys "user sys = $us; $(cat "$TMP/j")"
"$FTR" stat -j -- hotpath 300 > "$TMP/j" 2> "$TMP/e"
us=$(sed -n 's/.*"user_s":\([0-9.e-]*\),"sys_s":\([0-9.e-]*\),.*/\1 \2/p' "$TMP/j")
echo "$us" | awk '{ exit !($1 > $2) }' && grep -Eq '"verdict":"(user|waiting)"' "$TMP/j" &&
	ok stat-reading-user || fail stat-reading-user "user sys = $us; $(cat "$TMP/j")"
json_ok "$TMP/j"; r=$?
if [ $r -eq 2 ]; then skip stat-json-parses "no JSON parser (python3) here"
elif [ $r -eq 0 ]; then ok stat-json-parses; else fail stat-json-parses "$(cat "$TMP/j")"; fi

# -p for a time, -a for a time.
sleep 5 &
spid=$!
"$FTR" stat -p $spid -d 200ms > "$TMP/o" 2> "$TMP/e"; rc=$?
kill $spid 2>/dev/null; wait $spid 2>/dev/null
[ $rc -eq 0 ] && grep -q "for process id '$spid'" "$TMP/o" && grep -q 'context-switches' "$TMP/o" &&
	ok stat-pid-duration || fail stat-pid-duration "rc=$rc $(head -2 "$TMP/e")"
"$FTR" stat -a -d 200ms > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && grep -q "for 'system wide'" "$TMP/o" && grep -q 'msec cpu-clock' "$TMP/o" &&
	ok stat-all-cpus || fail stat-all-cpus "rc=$rc $(head -2 "$TMP/e")"

# Bad input.
"$FTR" stat -h > "$TMP/o" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q 'usage: ftr stat' "$TMP/o" && ok stat-help || fail stat-help "rc=$rc"
"$FTR" stat > /dev/null 2>&1; rc=$?
check stat-nothing-usage [ $rc -eq 2 ]
"$FTR" stat -d 1 -- true > /dev/null 2>&1; rc=$?
check stat-duration-with-command-usage [ $rc -eq 2 ]
"$FTR" stat -e 'not an event' -- true > /dev/null 2>&1; rc=$?
check stat-bad-event-usage [ $rc -eq 2 ]
"$FTR" stat -p 999999999 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'no process with pid 999999999' "$TMP/e" && ok stat-bad-pid ||
	fail stat-bad-pid "rc=$rc $(cat "$TMP/e")"
"$FTR" stat -p "$(dead_pid)" > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'no process with pid' "$TMP/e" && ok stat-dead-pid ||
	fail stat-dead-pid "rc=$rc $(cat "$TMP/e")"
"$FTR" stat -- /nonexistent/prog > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot run '/nonexistent/prog'" "$TMP/e" && ok stat-bad-command ||
	fail stat-bad-command "rc=$rc $(cat "$TMP/e")"

# Not root: what perf_event_paranoid allows, and what it takes when not.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" = 0 ] && command -v asuser > /dev/null 2>&1 && [ -n "$par" ]; then
	asuser 65534 "$FTR" stat -a -d 100ms > /dev/null 2> "$TMP/e"; rc=$?
	if [ "$par" -gt 0 ]; then
		[ $rc -eq 1 ] && grep -q "kernel.perf_event_paranoid is $par" "$TMP/e" &&
			grep -q 'perf_event_paranoid=0' "$TMP/e" && ok stat-paranoid-explained ||
			fail stat-paranoid-explained "rc=$rc $(cat "$TMP/e")"
	else
		check stat-paranoid-allows-all [ $rc -eq 0 ]
	fi
	asuser 65534 "$FTR" stat -- writer 10 > "$TMP/o" 2> "$TMP/e"; rc=$?
	if [ "$par" -ge 3 ]; then
		[ $rc -eq 1 ] && grep -q 'no perf for unprivileged users' "$TMP/e" &&
			ok stat-paranoid-3 || fail stat-paranoid-3 "rc=$rc $(cat "$TMP/e")"
	elif [ "$par" -eq 2 ]; then
		[ $rc -eq 0 ] && grep -q 'user space only' "$TMP/o" && ok stat-user-only ||
			fail stat-user-only "rc=$rc $(cat "$TMP/e")"
	else
		check stat-unprivileged [ $rc -eq 0 ]
	fi
else
	skip stat-paranoid "needs root, the asuser helper and perf_event_paranoid"
fi
