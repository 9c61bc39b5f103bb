# Regressions of the red team's round (issue 38): bounds on what a user or
# a file hands ftr, signals that must end a run, and messages that misled.
. "$LIVE_DIR/lib.sh"
require_tracing redteam
snapshot > "$TMP/before"

# Program text and cat() are bounded: /dev/zero is endless (ftr grew to
# 800 MB in 20 s, and cat() read until the OOM killer came).  Under a 1 GB
# address-space limit, so that a regression fails here, not the machine.
(ulimit -v 1000000; "$FTR" run /dev/zero > /dev/null 2> "$TMP/e1"; echo $? > "$TMP/rc1")
(ulimit -v 1000000; "$FTR" - < /dev/zero > /dev/null 2> "$TMP/e2"; echo $? > "$TMP/rc2")
[ "$(cat "$TMP/rc1" "$TMP/rc2" | tr '\n' ' ')" = "1 1 " ] &&
	grep -q 'more than 8 MiB of program text' "$TMP/e1" &&
	grep -q 'more than 8 MiB of program text' "$TMP/e2" && ok redteam-program-text-bound ||
	fail redteam-program-text-bound "$(cat "$TMP/rc1" "$TMP/rc2" "$TMP/e1" "$TMP/e2" | head -4)"
(ulimit -v 1000000; "$FTR" -e 'BEGIN { cat("/dev/zero"); exit(); }' > "$TMP/o" 2> "$TMP/e"
 echo $? > "$TMP/rc")
[ "$(cat "$TMP/rc")" = 0 ] && [ "$(wc -c < "$TMP/o")" -ge 10240 ] &&
	[ "$(tr -d '\0' < "$TMP/o" | wc -c)" -le 2 ] && ok redteam-cat-bound ||
	fail redteam-cat-bound "rc $(cat "$TMP/rc"), $(wc -c < "$TMP/o") bytes $(head -2 "$TMP/e")"

# -o FILE: its write errors name FILE (they said "standard output").
"$FTR" -o /dev/full -e 'BEGIN { printf("hi\n"); exit(); }' > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q "write error on '/dev/full'" "$TMP/e" && ok redteam-output-file-named ||
	fail redteam-output-file-named "rc=$rc $(head -2 "$TMP/e")"

# A parse error in a long line shows a window of it, not the line (800 KB
# were echoed): here 100,000 spaces before the mistake.
prog="BEGIN { $(head -c 100000 /dev/zero | tr '\0' ' ')@x = ; }"
"$FTR" -e "$prog" > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -ne 0 ] && [ "$(wc -c < "$TMP/e")" -lt 1000 ] && grep -q '^  \.\.\. .*@x = ; }$' "$TMP/e" &&
	grep -q '^     *\^$' "$TMP/e" && ok redteam-parse-error-window ||
	fail redteam-parse-error-window "rc=$rc, $(wc -c < "$TMP/e") bytes of message"

# #include of an existing absolute file, and of a "header" beside the
# program (both were "file not found"); one that is nowhere still is.
mkdir "$TMP/inc"
: > "$TMP/inc/myhdr.h"
printf '#include "myhdr.h"\n#include "%s"\nBEGIN { printf("in\\n"); exit(); }\n' \
	"$TMP/inc/myhdr.h" > "$TMP/inc/p.bt"
(cd / && "$FTR" run "$TMP/inc/p.bt") > "$TMP/o" 2> "$TMP/e"
rc=$?
"$FTR" --include "$TMP/inc/myhdr.h" -e 'BEGIN { printf("in\n"); exit(); }' >> "$TMP/o" 2>> "$TMP/e"
rc2=$?
"$FTR" -e '#include "nowhere-38.h"
BEGIN { exit(); }' > /dev/null 2> "$TMP/e3"
rc3=$?
# (Without /usr/include, a busybox guest, a bare name passes unchecked.)
[ -d /usr/include ] || { rc3=1; echo "'nowhere-38.h' file not found" > "$TMP/e3"; }
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "$(grep -c '^in$' "$TMP/o")" -eq 2 ] && [ $rc3 -ne 0 ] &&
	grep -q "'nowhere-38.h' file not found" "$TMP/e3" && ok redteam-include-found ||
	fail redteam-include-found "rc=$rc/$rc2/$rc3 $(head -2 "$TMP/e") $(head -1 "$TMP/e3")"

# A keyless count() in BEGIN/END/interval runs on no event: it was planned
# as a perf counter (exit 139 alone; beside a tracepoint, a map never
# printed, a wrong answer).
"$FTR" -e 'BEGIN { @b = count(); } END { @e = count(); }' -c true > "$TMP/o" 2> "$TMP/e"
rc=$?
"$FTR" -e 'BEGIN { @b = count(); } tracepoint:syscalls:sys_enter_write /comm == "writer"/
	{ @w = count(); }' -c 'writer 50 7' > "$TMP/o2" 2>> "$TMP/e"
rc2=$?
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -qx '@b: 1' "$TMP/o" && grep -qx '@e: 1' "$TMP/o" &&
	grep -qx '@b: 1' "$TMP/o2" && grep -qx '@w: 50' "$TMP/o2" && ok redteam-count-no-event ||
	fail redteam-count-no-event "rc=$rc/$rc2 $(cat "$TMP/o" "$TMP/o2" "$TMP/e" | tr '\n' ' ')"

# system(): what a conversion brings is one word for the shell, never
# shell syntax (a process named ";id>/tmp/x" ran id as root).
mkdir "$TMP/sys"
(cd "$TMP/sys" && "$FTR" --unsafe -e 'BEGIN { system("echo got %s %d", "it'"'"'s;touch pwned", 5);
	exit(); }') > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 0 ] && grep -qx "got it's;touch pwned 5" "$TMP/o" && [ ! -e "$TMP/sys/pwned" ] &&
	ok redteam-system-no-injection ||
	fail redteam-system-no-injection "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3) $(ls "$TMP/sys")"

# Messages that named the wrong thing: hist -k with no key to bucket (it
# spoke of '.linear='), an element past argv's 16 fetched (".16 reads a
# tuple's element").
"$FTR" hist -k count.sym syscalls:sys_enter_write > /dev/null 2> "$TMP/e"
rc=$?
[ $rc -eq 2 ] && grep -q "no key to bucket" "$TMP/e" && ! grep -q "bad .\.linear=" "$TMP/e" &&
	ok redteam-hist-key-message || fail redteam-hist-key-message "rc=$rc $(head -1 "$TMP/e")"
"$FTR" -e 'tracepoint:syscalls:sys_enter_execve { printf("%s\n", str(args.argv[16])); }' \
	> /dev/null 2> "$TMP/e"
rc=$?
[ $rc -ne 0 ] && grep -q 'str(args.argv\[16\]): ftr fetches the first 16 elements' "$TMP/e" &&
	ok redteam-argv-elem-message || fail redteam-argv-elem-message "rc=$rc $(head -1 "$TMP/e")"

# A full map's drops are said once, as what happened (a second line spoke
# of lookups the program does not make).
"$FTR" -e 'BEGIN { $i = 0; while ($i < 5000) { @x[$i] = 1; $i++; } exit(); }' > /dev/null \
	2> "$TMP/e"
[ "$(grep -c 'dropped' "$TMP/e")" -eq 1 ] && ! grep -q lookup "$TMP/e" &&
	ok redteam-map-full-message || fail redteam-map-full-message "$(cat "$TMP/e")"

# Ctrl-C ends a run whatever its clause is doing: the stop signals are
# blocked for the signalfd, and a long BEGIN (10^10 unrolled statements), a
# cat() of a FIFO no one writes, a long END after the first signal, ignored
# them (only SIGKILL ended them, leaving an instance behind).
# signalled NAME PID CONDITION: after the signal, the run ends within 20 s
# (a bound, not a timing: without the fix it runs for hours), exits 0 and
# CONDITION holds; else it is killed and ftr reset.
ended() {
	i=0
	while [ $i -lt 200 ] && kill -0 $1 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
	! kill -0 $1 2> /dev/null
}
signalled() {
	if ended $2; then
		wait $2
		rc=$?
		if [ $rc -eq 0 ] && eval "$3"; then ok $1; else
			fail $1 "rc=$rc $(head -2 "$TMP/e") $(head -3 "$TMP/o")"; fi
	else
		kill -9 $2; wait $2; "$FTR" reset > /dev/null 2>&1
		fail $1 "the signal did not end it in 20 s"
	fi
}
U5='unroll(100) { unroll(100) { unroll(100) { unroll(100) { unroll(100) { $i++; } } } } }'
NOOP='tracepoint:syscalls:sys_enter_getppid { @g = count(); }'
"$FTR" -e "BEGIN { \$i = 0; $U5 printf(\"never\\n\"); } $NOOP" > "$TMP/o" 2> "$TMP/e" &
fpid=$!
wait_tracing $fpid
kill -INT $fpid
signalled redteam-sigint-long-begin $fpid \
	'grep -q "^ftr: SIGINT: stopped the clause at 1:" "$TMP/e" && ! grep -q never "$TMP/o"'
rm -f "$TMP/fifo"
mkfifo "$TMP/fifo"
"$FTR" -e "BEGIN { cat(\"$TMP/fifo\"); } $NOOP" > "$TMP/o" 2> "$TMP/e" &
fpid=$!
wait_tracing $fpid
kill -TERM $fpid
signalled redteam-sigterm-cat-fifo $fpid 'grep -q "^ftr: SIGTERM: stopped the clause at 1:9" "$TMP/e"'
# The first signal ends tracing and END starts (a long one); a second ends
# END.  END's cat() of a FIFO says when it has started: the write below
# returns once END has opened it.
rm -f "$TMP/fifo2"
mkfifo "$TMP/fifo2"
"$FTR" -e "END { cat(\"$TMP/fifo2\"); \$i = 0; $U5 printf(\"never\\n\"); } $NOOP" \
	> "$TMP/o" 2> "$TMP/e" &
fpid=$!
wait_tracing $fpid
kill -INT $fpid
echo in-end > "$TMP/fifo2" &
ended $!
kill -INT $fpid
signalled redteam-second-signal-ends-end $fpid 'grep -q "^ftr: SIGINT: stopped the clause at 1:" \
	"$TMP/e" && grep -q "^in-end$" "$TMP/o" && ! grep -q never "$TMP/o"'

same_as_before redteam-leaves-tracefs "$TMP/before"
exit $FAILED
