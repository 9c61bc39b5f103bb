# ftr trace: exact counts of a workload of known size, filters in the kernel
# and in user space agreeing, errors for bad input, nothing left behind.
. "$LIVE_DIR/lib.sh"
require_tracing trace
if [ ! -d "$T/events/syscalls/sys_enter_write" ]; then
	skip trace "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"

# A command that makes exactly 1000 writes of 7 bytes to /dev/null (fd 3).
"$FTR" trace -F fd,count syscalls:sys_enter_write -- writer 1000 7 > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(count_lines 'sys_enter_write: fd=3 count=7$' "$TMP/o")
all=$(count_lines 'sys_enter_write' "$TMP/o")
[ $rc -eq 0 ] && [ "$n" -eq 1000 ] && [ "$all" -eq 1000 ] && ok trace-cmd-exact ||
	fail trace-cmd-exact "rc=$rc, $n of $all lines match, want 1000 $(head -2 "$TMP/e")"

# The same by pid: a process held back on a fifo until ftr traces it, then
# it execs the writer (ftr ends when the pid exits).
mkfifo "$TMP/go"
sh -c "read x < '$TMP/go'; exec writer 500 5" &
wpid=$!
"$FTR" trace -p $wpid -F count syscalls:sys_enter_write > "$TMP/o" 2> "$TMP/e" &
fpid=$!
if wait_tracing $fpid; then echo go > "$TMP/go"; else kill $wpid; fi
wait $fpid
rc=$?
wait $wpid
n=$(count_lines 'count=5$' "$TMP/o")
[ $rc -eq 0 ] && [ "$n" -eq 500 ] && ok trace-pid-exact ||
	fail trace-pid-exact "rc=$rc, $n lines, want 500 $(head -2 "$TMP/e")"

# JSON, one object per event, typed fields.
"$FTR" trace -j syscalls:sys_enter_write -- writer 20 3 > "$TMP/o" 2>&1
n=$(count_lines '^{"ts":[0-9.]*,"cpu":[0-9]*,"comm":"writer","pid":[0-9]*,"event":"syscalls:sys_enter_write","fields":{"__syscall_nr":[0-9]*,"fd":3,"buf":"0x[0-9a-f]*","count":3}}$' "$TMP/o")
check trace-json [ "$n" -eq 20 ]

# -c stops after exactly N events.
"$FTR" trace -c 7 syscalls:sys_enter_write -- writer 100 1 > "$TMP/o" 2>&1
check trace-count-limit [ "$(count_lines sys_enter_write "$TMP/o")" -eq 7 ]

# Filters: in the kernel and in user space, the same events.
w='writer 300 7; writer 200 9; writer 100 4096'
"$FTR" trace -F count -f 'count >= 8 && fd == 3' syscalls:sys_enter_write -- sh -c "$w" > "$TMP/k" 2>&1
"$FTR" trace -U -F count -f 'count >= 8 && fd == 3' syscalls:sys_enter_write -- sh -c "$w" > "$TMP/u" 2>&1
k9=$(count_lines 'count=9$' "$TMP/k"); k4=$(count_lines 'count=4096$' "$TMP/k")
u9=$(count_lines 'count=9$' "$TMP/u"); u4=$(count_lines 'count=4096$' "$TMP/u")
[ "$k9" -eq 200 ] && [ "$k4" -eq 100 ] && [ "$(count_lines count= "$TMP/k")" -eq 300 ] &&
	ok trace-kernel-filter || fail trace-kernel-filter "count=9: $k9, count=4096: $k4"
[ "$u9" -eq 200 ] && [ "$u4" -eq 100 ] && [ "$(count_lines count= "$TMP/u")" -eq 300 ] &&
	ok trace-user-filter-agrees || fail trace-user-filter-agrees "count=9: $u9, count=4096: $u4"
# Arithmetic is not in the kernel's grammar: ftr runs it in user space.
"$FTR" trace -F count -f 'count * 2 == 18' syscalls:sys_enter_write -- sh -c "$w" > "$TMP/a" 2>&1
check trace-arith-filter-user-space [ "$(count_lines 'count=9$' "$TMP/a")" -eq 200 ]

# A filter the kernel rejects: its own error_log message, with the caret.
if [ -e "$T/error_log" ]; then
	"$FTR" trace --kernel-filter 'fd ==' syscalls:sys_enter_write > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'kernel error_log' "$TMP/e" && grep -q 'Command: fd ==' "$TMP/e" &&
		grep -q '^ *\^$' "$TMP/e" && ok trace-kernel-rejects-filter ||
		fail trace-kernel-rejects-filter "rc=$rc $(cat "$TMP/e")"
else
	skip trace-kernel-rejects-filter "no error_log in this kernel's tracefs"
fi
"$FTR" trace --kernel-filter 'count == 9' -F count syscalls:sys_enter_write -- sh -c "$w" > "$TMP/r" 2>&1
check trace-kernel-filter-raw [ "$(count_lines 'count=9$' "$TMP/r")" -eq 200 ]

# Lost events are never silent: with a tiny buffer, what was read plus what
# the kernel reports lost is exactly what happened.  ftr now keeps up with
# 20000 writes even in a 4 KB buffer, so it is stopped (SIGSTOP from its own
# command, its child) while they are made: the loss is certain.
"$FTR" trace -b 4 -F fd syscalls:sys_enter_write -- \
	sh -c 'kill -STOP $PPID; writer 20000 1 0; kill -CONT $PPID' > "$TMP/o" 2> "$TMP/e"
read_n=$(count_lines 'fd=3$' "$TMP/o")
lost=$(sed -n 's/.* \([0-9][0-9]*\) LOST by the kernel.*/\1/p' "$TMP/e")
inline=$(count_lines 'events lost here' "$TMP/o")
if [ -n "$lost" ] && [ "$lost" -gt 0 ] && [ $((read_n + lost)) -eq 20000 ] && [ "$inline" -gt 0 ]; then
	ok trace-lost-accounted
else
	fail trace-lost-accounted "read $read_n + lost ${lost:-none} != 20000 (inline reports: $inline)"
fi
# --fail-on-lost: 1 when events were lost (made certain as above), 0 when not.
"$FTR" trace -b 4 --fail-on-lost syscalls:sys_enter_write -- \
	sh -c 'kill -STOP $PPID; writer 20000 1 0; kill -CONT $PPID' > /dev/null 2>&1
check trace-fail-on-lost [ $? -eq 1 ]
"$FTR" trace --fail-on-lost syscalls:sys_enter_write -- writer 100 1 0 > /dev/null 2>&1
check trace-fail-on-lost-none [ $? -eq 0 ]

# Two CPUs writing at once: every event, the CPUs merged in timestamp order.
# A drain delivers only records stamped before it began (test-stream.c checks
# this exactly).  One a writer reserved before that but committed only after
# ftr read its CPU can still come out after newer ones of the other CPU: no
# streaming reader can wait for it.  Under emulation a vCPU can be held
# between the two long enough (before the drain's horizon, seen once in arm64
# TCG: 2 lines of 40,000), so up to 10 such lines are allowed; a broken merge
# gives thousands.  Counted: every line older than any printed before it.
#
# merged NAME N CMD: CMD writes N times with count 1 on CPU 0 and N times
# with count 2 on CPU 1; every event comes, and at most 10 lines are older
# than one printed before them.
merged() {
	"$FTR" trace -F count syscalls:sys_enter_write -- sh -c "$3" > "$TMP/o" 2> "$TMP/e"
	c0=$(count_lines '\[000\] .*count=1$' "$TMP/o")
	c1=$(count_lines '\[001\] .*count=2$' "$TMP/o")
	late=$(sed -n 's/.*\] \([0-9]*\.[0-9]*\): .*/\1/p' "$TMP/o" |
		awk 'NR > 1 && $1 < max { n++ } $1 > max { max = $1 } END { print n + 0 }')
	[ "$c0" -eq "$2" ] && [ "$c1" -eq "$2" ] && [ "$late" -le 10 ] && ok "$1" ||
		fail "$1" "cpu0 $c0, cpu1 $c1 of $2; $late lines older than one before them $(head -2 "$TMP/e" | tr '\n' '|')"
}
if [ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ]; then
	merged trace-cpus-merged 20000 'writer 20000 1 0 & writer 20000 2 1; wait'
	# Bursts with pauses between them: the reader catches up with each
	# CPU's writer, which then fills the rest of that page and more before
	# the next drain.  That rest reads back small; a drain that stopped a
	# CPU at it delivered the other CPU's later records first (30 bursts:
	# 11,691 and 17,672 lines of 90,000 older than one printed before them;
	# under load, a task's switch-in after its own exit: offcpu's lost
	# entry).
	w='i=0; while [ $i -lt 20 ]; do writer 1500 $1 $2; sleep 0.03; i=$((i + 1)); done'
	merged trace-cpus-merged-bursts 30000 "sh -c '$w' w 1 0 & sh -c '$w' w 2 1; wait"
else
	skip trace-cpus-merged "one CPU"
	skip trace-cpus-merged-bursts "one CPU"
fi

# Bad input: a clear message, a non-zero exit, nothing left.
"$FTR" trace sched:sched_swich > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "closest: sched:sched_switch" "$TMP/e" && ok trace-unknown-event ||
	fail trace-unknown-event "rc=$rc $(cat "$TMP/e")"
"$FTR" trace -f 'bytes > 1' syscalls:sys_enter_write > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "no field 'bytes'" "$TMP/e" && grep -q 'count' "$TMP/e" &&
	ok trace-unknown-field-lists-fields || fail trace-unknown-field-lists-fields "rc=$rc $(cat "$TMP/e")"
"$FTR" trace -f 'count == "x"' syscalls:sys_enter_write > /dev/null 2> "$TMP/e"; rc=$?
check trace-string-vs-number [ $rc -eq 1 ]
"$FTR" trace -f 'count >' syscalls:sys_enter_write > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q '\^' "$TMP/e" && ok trace-syntax-error-caret ||
	fail trace-syntax-error-caret "rc=$rc $(cat "$TMP/e")"
"$FTR" trace -d 0 sched:sched_switch > /dev/null 2>&1; rc=$?
check trace-bad-duration-usage [ $rc -eq 2 ]
"$FTR" trace sched:sched_switch -- /nonexistent/prog > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "cannot run '/nonexistent/prog'" "$TMP/e" && ok trace-bad-command ||
	fail trace-bad-command "rc=$rc $(cat "$TMP/e")"
"$FTR" trace -p 999999999 sched:sched_switch > /dev/null 2>&1; rc=$?
check trace-bad-pid [ $rc -ne 0 ]

# --explain prints the writes and makes none.
"$FTR" trace -E -f 'fd == 1' syscalls:sys_enter_write > "$TMP/x" 2>&1
grep -q "^mkdir $T/instances/ftr_" "$TMP/x" && grep -q "echo 'fd == 1' > .*sys_enter_write/filter" "$TMP/x" &&
	grep -q "rmdir" "$TMP/x" && ok trace-explain || fail trace-explain "$(head -3 "$TMP/x")"

# Sub-buffers: 64 KB where the kernel lets an instance choose (6.8+), fewer
# for a buffer that would hold less than 8, none where it cannot choose.
sub() { "$FTR" trace -E "$@" syscalls:sys_enter_write -- true 2>&1 |
	sed -n "s/^echo '\([0-9]*\)' > .*\/buffer_subbuf_size_kb$/\1/p"; }
page_kb=$(awk '/^KernelPageSize:/ { print $2; exit }' /proc/self/smaps)
if [ -e "$T/buffer_subbuf_size_kb" ] && [ "$page_kb" = 4 ]; then
	a=$(sub); b=$(sub -b 256); c=$(sub -b 16)
	[ "$a" = 64 ] && [ "$b" = 32 ] && [ -z "$c" ] && ok trace-subbuf ||
		fail trace-subbuf "default '$a' (want 64), -b 256 '$b' (32), -b 16 '$c' (none)"
	# A busy trace read 64 KB at a time, over many drains: every event.
	"$FTR" trace -F count syscalls:sys_enter_write -- writer 50000 3 > "$TMP/o" 2> "$TMP/e"; rc=$?
	n=$(count_lines 'count=3$' "$TMP/o")
	[ $rc -eq 0 ] && [ "$n" -eq 50000 ] && ok trace-subbuf-exact ||
		fail trace-subbuf-exact "rc=$rc, $n of 50000 $(tail -2 "$TMP/e")"
elif [ -e "$T/buffer_subbuf_size_kb" ]; then
	skip trace-subbuf "pages of ${page_kb:-?} KB: the sizes checked here are those of 4 KB pages"
else
	a=$(sub)
	[ -z "$a" ] && ok trace-subbuf || fail trace-subbuf "wrote '$a' where the kernel has no buffer_subbuf_size_kb"
fi

same_as_before trace-leaves-tracefs "$TMP/before"
