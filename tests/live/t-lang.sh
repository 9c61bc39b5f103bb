# The language: the seed's one-liners and issue #5's acceptance programs give
# exact figures for workloads of known size, on the kernel path where the
# kernel has hist triggers and on the user path where it has not.
. "$LIVE_DIR/lib.sh"
require_tracing lang
if [ ! -d "$T/events/syscalls/sys_enter_openat" ]; then
	skip lang "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"
# opener's openat flags, O_RDONLY|O_NOFOLLOW: the number differs by architecture.
OFLAGS=$(opener --flags)

# S3: opens by process.  opener makes exactly 57 openat calls with flags
# O_RDONLY|O_NOFOLLOW ($OFLAGS: 131072 on x86-64, 32768 on arm64), which nothing else uses.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == '"$OFLAGS"'/ { @[comm] = count(); }' \
	-- opener 57 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[opener\]: 57' "$TMP/o" && ok lang-opens-by-comm ||
	fail lang-opens-by-comm "$(cat "$TMP/o" "$TMP/e" | head -5)"

# comm of short-lived tasks: forker's 300 children exit at once, without an
# exec, before ftr reads their events; their name is the one the kernel gave
# them at fork (sched_process_fork's child_comm).  saved_cmdlines holds 128
# names and can give a reused pid a former owner's name (246 of 301 were
# "forker" on the host before).  --where user: a hist trigger keys comm by
# saved_cmdlines (t-diff's known disagreement).
"$FTR" -e 'tracepoint:syscalls:sys_enter_exit_group { @[comm] = count(); }' --where user \
	-- forker 300 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[forker\]: 301' "$TMP/o" && ok lang-comm-forked ||
	fail lang-comm-forked "$(grep -e forker -e '<' "$TMP/o" | tr '\n' ' ') $(head -2 "$TMP/e")"

# The same with the seed's literal form: interval:N { exit(); }, the
# workload run from outside while ftr traces the whole system.  The exit
# waits for the workload's end, seen as an event (opener's exit): a fixed
# interval raced an opener slowed by load (the interval clock starts with
# tracing, the opener some time after); now no timing decides the answer.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == '"$OFLAGS"'/ { @[comm] = count(); }
	tracepoint:sched:sched_process_exit /comm == "opener"/ { @done = 1; }
	interval:ms:100 { if (@done) { printf("exit at an interval\n"); exit(); } }
	END { clear(@done); }' > "$TMP/o" 2> "$TMP/e" &
p=$!
if wait_tracing $p; then opener 23; else kill $p; fi
wait $p
grep -qx '@\[opener\]: 23' "$TMP/o" && grep -qx 'exit at an interval' "$TMP/o" &&
	! grep -q '@done' "$TMP/o" && ok lang-interval-exit ||
	fail lang-interval-exit "$(cat "$TMP/o" "$TMP/e" | head -5)"

# S4 in its sys_enter_write form: the seed's write-size histogram.
"$FTR" --hist-summary -e 'tracepoint:syscalls:sys_enter_write /comm == "dd"/ { @bytes = hist(args.count); }' \
	-- sh -c 'dd if=/dev/zero of=/tmp/ftr-z1 bs=4k count=2000 2>/dev/null; dd if=/dev/zero of=/tmp/ftr-z2 bs=1M count=60 2>/dev/null' \
	> "$TMP/h" 2> "$TMP/e"
rm -f /tmp/ftr-z1 /tmp/ftr-z2
b4=$(sed -n 's/^\[4K, 8K) *\([0-9]*\) .*/\1/p' "$TMP/h")
b1=$(sed -n 's/^\[1M, 2M) *\([0-9]*\) .*/\1/p' "$TMP/h")
[ "$b4" = 2000 ] && [ "$b1" = 60 ] && ok lang-write-size-hist ||
	fail lang-write-size-hist "[4K,8K) ${b4:-none} [1M,2M) ${b1:-none} $(head -3 "$TMP/e")"
grep -q '2 modes: a mean over them describes neither' "$TMP/h" && ok lang-hist-two-modes ||
	fail lang-hist-two-modes "$(tail -2 "$TMP/h")"

# ftr's line under a histogram: a program's output to a pipe or a file is
# bpftrace's; --hist-summary adds the line, a terminal does too, and
# --no-hist-summary takes it away there.
prog='BEGIN { @h = hist(5); exit(); }'
sum='count 1, sum 5, mean 5, p50 ~4, p90 ~4, p99 ~4'
"$FTR" -e "$prog" > "$TMP/o" 2>&1
"$FTR" --hist-summary -e "$prog" > "$TMP/o2" 2>&1
[ "$(count_lines "^$sum\$" "$TMP/o")" = 0 ] && [ "$(count_lines '^\[4, 8) ' "$TMP/o")" = 1 ] &&
	[ "$(count_lines "^$sum\$" "$TMP/o2")" = 1 ] && ok lang-hist-summary-option ||
	fail lang-hist-summary-option "$(cat "$TMP/o" "$TMP/o2")"
if command -v script > /dev/null 2>&1 && script -qc true /dev/null > /dev/null 2>&1; then
	script -qc "'$FTR' -e '$prog'" /dev/null > "$TMP/o" 2>&1
	script -qc "'$FTR' --no-hist-summary -e '$prog'" /dev/null > "$TMP/o2" 2>&1
	[ "$(tr -d '\r' < "$TMP/o" | grep -c "^$sum\$")" = 1 ] &&
		[ "$(tr -d '\r' < "$TMP/o2" | grep -c "^$sum\$")" = 0 ] &&
		[ "$(tr -d '\r' < "$TMP/o2" | grep -c '^\[4, 8) ')" = 1 ] &&
		ok lang-hist-summary-terminal || fail lang-hist-summary-terminal "$(cat "$TMP/o" "$TMP/o2")"
else
	skip lang-hist-summary-terminal "no script(1) to give ftr a terminal"
fi

# The kernel path and the user path print the same table.
prog='tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @[args.fd] = hist(args.count); }'
w='writer 300 7; writer 200 3000; writer 10 70000'
"$FTR" --where user -e "$prog" -- sh -c "$w" > "$TMP/u" 2> "$TMP/ue"
if has_hist; then
	"$FTR" --where kernel -e "$prog" -- sh -c "$w" > "$TMP/k" 2> "$TMP/ke"
	if cmp -s "$TMP/u" "$TMP/k" && grep -q '^\[2K, 4K) *200 ' "$TMP/k"; then
		ok lang-kernel-equals-user
	else
		fail lang-kernel-equals-user "$(diff "$TMP/u" "$TMP/k" | head -4 | tr '\n' ' ') $(head -2 "$TMP/ke")"
	fi
	"$FTR" -E -e "$prog" > "$TMP/x" 2>&1
	grep -q 'in the kernel, a hist trigger' "$TMP/x" && grep -q "hist:keys=fd,count" "$TMP/x" &&
		ok lang-explain-kernel-path || fail lang-explain-kernel-path "$(head -5 "$TMP/x")"
	# Nothing is written to the ring buffer then: ftr does not size it
	# (the user path does).
	"$FTR" -E --where user -e "$prog" > "$TMP/xu" 2>&1
	! grep -q buffer_size_kb "$TMP/x" && grep -q buffer_size_kb "$TMP/xu" &&
		ok lang-kernel-path-buffer-unsized ||
		fail lang-kernel-path-buffer-unsized "$(grep buffer_ "$TMP/x" "$TMP/xu")"
else
	grep -q '^\[2K, 4K) *200 ' "$TMP/u" && ok lang-user-path ||
		fail lang-user-path "$(head -5 "$TMP/u" "$TMP/ue")"
	"$FTR" --where kernel -e "$prog" > /dev/null 2> "$TMP/ke"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no hist triggers' "$TMP/ke" && ok lang-where-kernel-refused ||
		fail lang-where-kernel-refused "rc=$rc $(head -3 "$TMP/ke")"
fi

# sum() and lhist() on exact workloads.
"$FTR" -e 'tracepoint:syscalls:sys_exit_read /args.ret == 1000 && comm == "dd"/ { @[comm] = sum(args.ret); }' \
	-- dd if=/dev/zero of=/dev/null bs=1000 count=7 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[dd\]: 7000' "$TMP/o" && ok lang-sum || fail lang-sum "$(cat "$TMP/o" "$TMP/e" | head -4)"
"$FTR" -e 'tracepoint:syscalls:sys_enter_write /comm == "writer" && args.fd == 3/ { @b = lhist(args.count, 0, 2000, 200); }' \
	-- sh -c 'writer 30 100; writer 20 700' > "$TMP/o" 2> "$TMP/e"
grep -q '^\[0, 200) *30 ' "$TMP/o" && grep -q '^\[600, 800) *20 ' "$TMP/o" && ok lang-lhist ||
	fail lang-lhist "$(cat "$TMP/o" "$TMP/e" | head -6)"

# A start map, delete(), arithmetic on nsecs: one latency sample per write.
"$FTR" --hist-summary -e 'tracepoint:syscalls:sys_enter_write /comm == "writer"/ { @start[tid] = nsecs; }
	tracepoint:syscalls:sys_exit_write /@start[tid]/ { @ns[comm] = hist(nsecs - @start[tid]); delete(@start[tid]); }' \
	-- writer 500 1 > "$TMP/o" 2> "$TMP/e"
grep -q '^count 500, ' "$TMP/o" && grep -q '^@ns\[writer\]:' "$TMP/o" && ok lang-start-map-latency ||
	fail lang-start-map-latency "$(cat "$TMP/o" "$TMP/e" | tail -4)"

# printf with a string field.
"$FTR" -e 'tracepoint:sched:sched_process_exec { printf("exec %s\n", str(args.filename)); }' \
	-- sh -c 'exec /bin/true' > "$TMP/o" 2> "$TMP/e"
grep -qx 'exec /bin/true' "$TMP/o" && ok lang-printf-str || fail lang-printf-str "$(cat "$TMP/o" "$TMP/e" | head -4)"

# Globs and @[probe].
"$FTR" -d 1 -e 'tracepoint:sched:sched_process* { @[probe] = count(); }' -- sh -c 'sh -c true' > "$TMP/o" 2> "$TMP/e"
grep -q '^@\[tracepoint:sched:sched_process_exec\]: [0-9]' "$TMP/o" && ok lang-probe-glob ||
	fail lang-probe-glob "$(cat "$TMP/o" "$TMP/e" | head -4)"

# Errors point at their cause.
"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @x = hist(args.bytes); }' > /dev/null 2> "$TMP/e"; rc=$?
# (the syscall number's field is "nr" on older kernels, 4.4 to 4.19 among them)
nrf=$(sed -n 's/.*field:int \([_a-z]*nr\);.*/\1/p' "$T/events/syscalls/sys_enter_write/format" | head -n 1)
[ $rc -eq 1 ] && grep -q "error: 1:49: unknown field 'bytes' in syscalls:sys_enter_write (fields: ${nrf:-__syscall_nr}, fd, buf, count)" "$TMP/e" &&
	grep -q '^ *\^$' "$TMP/e" && ok lang-error-position || fail lang-error-position "rc=$rc $(cat "$TMP/e")"
"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @x = count( }' > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'error: 1:' "$TMP/e" && ok lang-syntax-error || fail lang-syntax-error "rc=$rc $(cat "$TMP/e")"

# str() of a number that is no field: an address, which no probe can stand
# in for; refused, not printed.  (str(args.F) of a syscall's pointer is
# fetched where the kernel can: t-strfetch.sh.)
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat { printf("%s\n", str(args.filename + 0)); }' \
	-- true > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'str(...): it is a user-space address' "$TMP/e" && ok lang-str-user-pointer ||
	fail lang-str-user-pointer "rc=$rc $(cat "$TMP/e")"

# The runaway guard: a printf per event on a hot probe stops with a reason.
"$FTR" -e 'tracepoint:syscalls:sys_enter_write /comm == "writer"/ { printf("w\n"); }' \
	-- writer 50000000 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q 'log generator' "$TMP/e" && ok lang-runaway-guard ||
	fail lang-runaway-guard "rc=$rc $(cat "$TMP/e")"

if has_kprobes; then
	"$FTR" -e 'kprobe:vfs_write /comm == "writer"/ { @bytes = hist(arg2); }' -- writer 300 13 > "$TMP/o" 2> "$TMP/e"
	grep -q '^\[8, 16) *300 ' "$TMP/o" && ok lang-kprobe-hist-arg2 ||
		fail lang-kprobe-hist-arg2 "$(cat "$TMP/o" "$TMP/e" | head -6)"
	"$FTR" -e 'kretprobe:vfs_write /comm == "writer"/ { @r = lhist(retval, 0, 2000, 200); }' -- writer 40 21 > "$TMP/o" 2> "$TMP/e"
	grep -q '^\[0, 200) *40 ' "$TMP/o" && ok lang-kretprobe-lhist ||
		fail lang-kretprobe-lhist "$(cat "$TMP/o" "$TMP/e" | head -6)"
else
	"$FTR" -e 'kprobe:vfs_write { @bytes = hist(arg2); }' > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'sys_enter_write' "$TMP/e" && ok lang-kprobe-absent ||
		fail lang-kprobe-absent "rc=$rc $(cat "$TMP/e")"
fi
# --emit-sh: the in-kernel part as a script that sets up, counts, prints
# and cleans up with echo and cat alone.
"$FTR" --emit-sh -d 2 -e 'tracepoint:syscalls:sys_enter_openat /args.flags == '"$OFLAGS"'/ { @[comm] = count(); }' \
	> "$TMP/s.sh" 2> "$TMP/e"
if sh -n "$TMP/s.sh"; then
	sh "$TMP/s.sh" > "$TMP/so" 2>&1 &
	sp=$!
	sleep 1
	opener 9
	wait $sp
	if has_hist; then
		# The kernel's own hist: 9 opens by opener.
		grep 'opener' "$TMP/so" | grep -q 'hitcount: *9$' && ok lang-emit-sh-hist ||
			fail lang-emit-sh-hist "$(head -20 "$TMP/so")"
	else
		grep -q 'computed by ftr in user space' "$TMP/s.sh" && ok lang-emit-sh-runs ||
			fail lang-emit-sh-runs "$(head -20 "$TMP/s.sh")"
	fi
	same_as_before lang-emit-sh-cleans-up "$TMP/before"
else
	fail lang-emit-sh "not valid sh: $(head -5 "$TMP/e")"
fi
# @[func] of kprobes: one key per probe, a hist trigger each where the
# kernel has them.  writer's 30 writes of one byte all go through vfs_write.
if has_kprobes; then
	"$FTR" -e 'kprobe:vfs_write,kprobe:vfs_read /comm == "writer"/ { @[func] = count(); }' \
		-- writer 30 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	"$FTR" -E -e 'kprobe:vfs_write,kprobe:vfs_read /comm == "writer"/ { @[func] = count(); }' \
		> "$TMP/p" 2>&1
	if has_hist; then where='@: in the kernel'; else where='@: in user space'; fi
	[ $rc -eq 0 ] && grep -qx '@\[vfs_write\]: 30' "$TMP/o" && grep -q "^$where" "$TMP/p" &&
		ok lang-func-key || fail lang-func-key "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -4) $(head -3 "$TMP/p")"
else
	skip lang-func-key "no kprobe events"
fi
# gid, ncpus, rand in BEGIN: ftr's own group, the kernel's possible CPUs
# (sysfs's list, as bpftrace's), two draws that differ.
"$FTR" -e 'BEGIN { printf("%d %d %u %u\n", gid, ncpus, rand, rand); }' > "$TMP/g" 2>&1
possible=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-");
	n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' /sys/devices/system/cpu/possible)
read -r g n r1 r2 < "$TMP/g"
[ "$g" = "$(id -g)" ] && [ "$n" = "$possible" ] && [ -n "$r2" ] && [ "$r1" != "$r2" ] &&
	ok lang-gid-ncpus-rand || fail lang-gid-ncpus-rand "$(head -3 "$TMP/g") (id -g $(id -g), possible $possible)"
# Today's bpftrace's spellings of a builtin variable: __builtin_NAME, and
# NAME() as a call.
"$FTR" -e 'BEGIN { printf("%d %d %d\n", __builtin_ncpus == ncpus, ncpus() == ncpus, __builtin_pid() == pid); }' > "$TMP/bw" 2>&1
[ "$(cat "$TMP/bw")" = "1 1 1" ] && ok lang-builtin-spellings || fail lang-builtin-spellings "$(head -3 "$TMP/bw")"
# usermode, numaid, username in BEGIN: ftr's own (user code; its CPU's
# node; its user's name); usermode at a uprobe is 1.
"$FTR" -e 'BEGIN { printf("%d %d %s\n", usermode, numaid >= 0, username); }' > "$TMP/um" 2>&1
who=$(awk -F: -v u="$(id -u)" '$3 == u { print $1; exit }' /etc/passwd 2>/dev/null)
[ -n "$who" ] || who=$(id -u)	# (a guest without /etc/passwd: the number)
[ "$(cat "$TMP/um")" = "1 1 $who" ] && ok lang-usermode-username ||
	fail lang-usermode-username "$(head -3 "$TMP/um") (/etc/passwd: $who)"
# uid and gid at the event of a task gone from /proc when ftr reads it: ftr
# is stopped while opener runs as 4242:4343 and is reaped, so that /proc
# has it no more, for certain; the kernel's exit records know it.
# exit_group's event comes before the record is sent, sched_process_exit's
# after it (5.10 to 6.12).  A kernel without taskstats (no CONFIG_TASKSTATS,
# or no networking at all: bpfless) gives -1, said on stderr.
if command -v asuser > /dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
		[ -d "$T/events/sched/sched_process_exit" ]; then
	"$FTR" -e 'tracepoint:syscalls:sys_enter_exit_group /comm == "opener"/ {
			printf("exit_group %d %d %d\n", uid, gid, pid == tid); }
		tracepoint:sched:sched_process_exit /comm == "opener"/ {
			printf("process_exit %d %d\n", uid, gid); exit(); }' > "$TMP/ug" 2> "$TMP/uge" &
	p=$!
	if wait_tracing $p; then
		kill -STOP $p
		asuser 4242:4343 opener 1
		kill -CONT $p
	else
		kill $p
	fi
	wait $p
	if grep -q 'sends no exit records' "$TMP/uge"; then
		skip lang-uid-gid-exited "$(sed -n 's/.*(taskstats: \(.*\))$/\1/p' "$TMP/uge" | head -1)"
	else
		[ "$(grep . "$TMP/ug" | tr '\n' '|')" = 'exit_group 4242 4343 1|process_exit 4242 4343|' ] &&
			[ ! -s "$TMP/uge" ] && ok lang-uid-gid-exited ||
			fail lang-uid-gid-exited "$(cat "$TMP/ug" "$TMP/uge" | head -4)"
	fi
else
	skip lang-uid-gid-exited "not root, no asuser helper or no sched_process_exit"
fi
# The same for a burst: forker's 300 children exit and are reaped at once
# (before 2026-12, 3000 of 3001 were @[-1, -1] on the host).
"$FTR" -e 'tracepoint:syscalls:sys_enter_exit_group /comm == "forker"/ { @[uid, gid] = count(); }' \
	-- forker 300 > "$TMP/ug" 2> "$TMP/uge"
if grep -q 'sends no exit records' "$TMP/uge"; then
	skip lang-uid-gid-forked "$(sed -n 's/.*(taskstats: \(.*\))$/\1/p' "$TMP/uge" | head -1)"
else
	[ "$(grep . "$TMP/ug")" = "@[$(id -u), $(id -g)]: 301" ] && [ ! -s "$TMP/uge" ] &&
		ok lang-uid-gid-forked || fail lang-uid-gid-forked "$(cat "$TMP/ug" "$TMP/uge" | grep . | head -4)"
fi
if has_uprobes && command -v uprobe-target > /dev/null 2>&1; then
	tgt=$(command -v uprobe-target)
	"$FTR" -e "uprobe:$tgt:ftr_target { @[usermode] = count(); }" -- uprobe-target 5 1000 \
		> "$TMP/um" 2>&1
	grep -qx '@\[1\]: 5' "$TMP/um" && ok lang-usermode-uprobe ||
		fail lang-usermode-uprobe "$(head -3 "$TMP/um")"
else
	skip lang-usermode-uprobe "no uprobe events or no uprobe-target helper"
fi
# exit(code) is the run's exit status, as in bpftrace; exit() leaves it 0.
"$FTR" -e 'BEGIN { exit(69); }' > /dev/null 2>&1; c1=$?
"$FTR" -e 'BEGIN { exit(); }' > /dev/null 2>&1; c2=$?
[ $c1 -eq 69 ] && [ $c2 -eq 0 ] && ok lang-exit-code || fail lang-exit-code "exit(69): $c1, exit(): $c2"
# The start-up line: on a terminal (script(1) gives ftr one) 'Attaching N
# probes...' on stderr before BEGIN's output, as bpftrace, N the clauses'
# probes (BEGIN and END are 2); nothing with -q, nor when stderr is no
# terminal.
if script -qec true /dev/null > /dev/null 2>&1; then
	script -qec "'$FTR' -e 'BEGIN { printf(\"hi\\n\"); exit(); } END { }'" /dev/null \
		< /dev/null > "$TMP/a" 2>&1
	script -qec "'$FTR' -q -e 'BEGIN { printf(\"hi\\n\"); exit(); }'" /dev/null \
		< /dev/null > "$TMP/aq" 2>&1
	"$FTR" -e 'BEGIN { printf("hi\n"); exit(); }' > /dev/null 2> "$TMP/ae"
	tr -d '\r' < "$TMP/a" | head -2 | tr '\n' '|' | grep -qx 'Attaching 2 probes\.\.\.|hi|' &&
		[ "$(tr -d '\r' < "$TMP/aq")" = hi ] && [ ! -s "$TMP/ae" ] && ok lang-attaching ||
		fail lang-attaching "$(cat -v "$TMP/a" "$TMP/aq" "$TMP/ae" | head -5)"
else
	skip lang-attaching "no script(1) that runs a command on a terminal (util-linux's)"
fi
same_as_before lang-leaves-tracefs "$TMP/before"
