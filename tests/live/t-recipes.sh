# The recipe library (events/) and the named filters (filters/): every
# recipe plans on this kernel, and each one gives the answer a workload of
# known size calls for; every filter is accepted by the kernel and keeps out
# what it says it keeps out.
. "$LIVE_DIR/lib.sh"
require_tracing recipes
snapshot > "$TMP/before"
"$FTR" doctor --json > "$TMP/doctor" 2>/dev/null

# Where the library is: $FTR_EVENTS / $FTR_FILTERS, the source tree around
# these tests, a copy beside them (a scratch FTR_LIVE_DIR), beside the
# binary's directory (a build tree), or installed (the matrix guests have it
# in /usr/local/share/ftr, as make install puts it).
bindir=$(dirname "$FTR")
lib_dir() {
	for d in "$LIVE_DIR/../../$1" "$LIVE_DIR/$1" "$bindir/../$1" "$bindir/../share/ftr/$1" \
		 "/usr/local/share/ftr/$1" "/usr/share/ftr/$1"; do
		if [ -f "$d/$2" ]; then (cd "$d" && pwd); return; fi
	done
}
EV=${FTR_EVENTS:-$(lib_dir events opensnoop.ftr)}
FL=${FTR_FILTERS:-$(lib_dir filters not_ftr.ftr)}
if [ -z "$EV" ] || [ -z "$FL" ]; then
	fail recipes-found "no events/ or filters/ (looked in \$FTR_EVENTS, \$FTR_FILTERS, $LIVE_DIR/../.., $LIVE_DIR, $bindir/.., /usr/local/share/ftr, /usr/share/ftr)"
	exit 1
fi
FTR_EVENTS=$EV
export FTR_EVENTS

RECIPES="biolatency biosnoop cachestat cpudist errors execsnoop funccount killsnoop offcpu oncpu opensnoop
pidpersec readsize runqlat signals syscount vfscount writesize"
has_syscalls() { [ -d "$T/events/syscalls/sys_enter_openat" ]; }

# Every recipe is there, headed by "// NAME: what it answers" and a
# "// needs:" line, and listed by ftr run --list with what it answers.
"$FTR" run --list > "$TMP/list" 2> "$TMP/e"
bad=""
for r in $RECIPES; do
	f="$EV/$r.ftr"
	if [ ! -f "$f" ]; then bad="$bad $r(missing)"; continue; fi
	head -1 "$f" | grep -q "^// $r: ..*" || bad="$bad $r(first line)"
	grep -q '^// needs: ' "$f" || bad="$bad $r(needs)"
	sum=$(head -1 "$f" | sed "s|^// $r: ||")
	awk -v r="$r" -v s="$sum" '$1 == r && index($0, s) { f = 1 } END { exit !f }' "$TMP/list" ||
		bad="$bad $r(--list)"
done
[ -z "$bad" ] && ok recipes-headers-and-list || fail recipes-headers-and-list "$bad $(head -2 "$TMP/e")"

# Every recipe compiles and plans against this kernel's events (-E: the
# plan and the tracefs writes, nothing enabled).
bad=""
for r in $RECIPES; do
	case $r in vfscount|cachestat|funccount) continue ;; esac
	"$FTR" run "$r" -E > "$TMP/o" 2> "$TMP/e"
	rc=$?
	case "$r" in
	biolatency|biosnoop)
		[ -d "$T/events/block/block_rq_issue" ] || continue ;;
	esac
	if ! has_syscalls; then
		case "$r" in errors|execsnoop|killsnoop|opensnoop|readsize|syscount|writesize) continue ;; esac
	fi
	[ $rc -eq 0 ] && grep -q '^# plan' "$TMP/o" || bad="$bad $r(rc=$rc: $(head -3 "$TMP/e" | tr '\n' ' '))"
done
[ -z "$bad" ] && ok recipes-plan || fail recipes-plan "$bad"
# vfscount needs kprobes: without them it must say so, naming what to use
# instead.
"$FTR" run vfscount -E > "$TMP/o" 2> "$TMP/e"
rc=$?
if has_kprobes; then
	[ $rc -eq 0 ] && grep -q '^# plan' "$TMP/o" && ok recipes-plan-kprobes ||
		fail recipes-plan-kprobes "rc=$rc $(head -2 "$TMP/e")"
else
	[ $rc -eq 1 ] && grep -q 'no kprobe events' "$TMP/e" && ok recipes-plan-no-kprobes ||
		fail recipes-plan-no-kprobes "rc=$rc $(head -2 "$TMP/e")"
fi

# funccount: `ftr funccount PATTERN` as a program, on kprobe events or the
# function tracer (16 functions or more, or no kprobe events); exact.
if has_kprobes || has_tracer function; then
	"$FTR" run funccount 'vfs_*' -- writer 100 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^@\[vfs_write\]: 100$' "$TMP/o" && ok recipes-funccount ||
		fail recipes-funccount "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
fi

# cachestat: kprobes on the page-cache functions this kernel names (its
# //#if func lines); a second of a file read twice has hits.  Without
# kprobes, refused in words.
if has_kprobes; then
	dd if=/dev/zero of="$TMP/cache" bs=64k count=16 2> /dev/null
	"$FTR" run cachestat -- sh -c "cat $TMP/cache > /dev/null; cat $TMP/cache > /dev/null;
		sleep 1.2" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -Eq '^ +HITS +MISSES +DIRTIES +RATIO$' "$TMP/o" &&
		awk 'NR > 1 && $1 > 0 { f = 1 } END { exit !f }' "$TMP/o" && ok recipes-cachestat ||
		fail recipes-cachestat "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
else
	"$FTR" run cachestat -d 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no kprobe events' "$TMP/e" && ok recipes-cachestat-explains ||
		fail recipes-cachestat-explains "rc=$rc $(head -3 "$TMP/e")"
fi

# The aggregating recipes count in the kernel where it has hist triggers,
# and say why not where it has not.
"$FTR" run writesize -E > "$TMP/o" 2>&1
if has_hist; then
	grep -q '@bytes: in the kernel, a hist trigger on syscalls:sys_enter_write' "$TMP/o" &&
		ok recipes-writesize-in-kernel || fail recipes-writesize-in-kernel "$(head -4 "$TMP/o")"
else
	grep -q '@bytes: in user space: this kernel has no hist triggers' "$TMP/o" &&
		ok recipes-writesize-user-path || fail recipes-writesize-user-path "$(head -4 "$TMP/o")"
fi

if has_syscalls; then
	# opensnoop: opener's 7 openat calls with flags O_RDONLY|O_NOFOLLOW
	# (0x20000 on x86-64, 0x8000 on arm64), each returning fd 3, and cat's
	# failing open (ENOENT).
	# Where the kernel can fetch the names (eprobe events, or kprobe
	# events and openat's wrapper: t-strfetch.sh), each line ends with
	# its PATH: opener's, which it has just written (resident).
	fl=$(printf '0x%x' "$(opener --flags)")
	: > "$TMP/opensnoop-target"
	"$FTR" run opensnoop -- sh -c "opener 7 $TMP/opensnoop-target; cat /nonexistent-ftr-recipes 2>/dev/null; true" \
		> "$TMP/o" 2> "$TMP/e"
	n=$(count_lines "^[0-9][0-9]* *opener  *3  *0  *$fl  *[0-9][0-9]*\( .*\)\{0,1\}\$" "$TMP/o")
	f=$(count_lines '^[0-9][0-9]* *cat  *-1  *2 ' "$TMP/o")
	p=$(count_lines "^[0-9][0-9]* *opener  *3  *0  *$fl  *[0-9][0-9]* $TMP/opensnoop-target\$" "$TMP/o")
	if grep -q '"eprobe_events": *{ *"available": *true' "$TMP/doctor" ||
	   { has_kprobes && grep -q -E ' (__x64_sys_openat|__arm64_sys_openat)$' /proc/kallsyms; }; then
		head -1 "$TMP/o" | grep -q '^PID  *COMM  *FD  *ERR  *FLAGS  *US  *PATH$' && [ "$n" = 7 ] &&
			[ "$p" = 7 ] && [ "$f" -ge 1 ] && ok recipes-opensnoop-paths ||
			fail recipes-opensnoop-paths "$n opener lines, $p with the path (want 7, 7), $f cat ENOENT: $(head -3 "$TMP/o" "$TMP/e")"
	else
		head -1 "$TMP/o" | grep -q '^PID  *COMM  *FD  *ERR  *FLAGS  *US$' && [ "$n" = 7 ] &&
			[ "$p" = 0 ] && [ "$f" -ge 1 ] && ok recipes-opensnoop ||
			fail recipes-opensnoop "$n opener lines (want 7), $f cat ENOENT: $(head -3 "$TMP/o" "$TMP/e")"
	fi

	# syscount: opener N makes N openat and N close more than opener 0.
	# On the user path: on the kernel path its glob is one hist trigger per
	# syscall, about 350, which takes 50-110 s to set up in a TCG guest.
	"$FTR" run syscount --where user -- opener 0 > "$TMP/o0" 2> "$TMP/e"
	"$FTR" run syscount --where user -- opener 40 > "$TMP/o" 2>> "$TMP/e"
	val() { sed -n "s/^@$1\[$2\]: \([0-9]*\)$/\1/p" "$3"; }
	p0=$(val process opener "$TMP/o0"); p1=$(val process opener "$TMP/o")
	o0=$(val syscall tracepoint:syscalls:sys_enter_openat "$TMP/o0")
	o1=$(val syscall tracepoint:syscalls:sys_enter_openat "$TMP/o")
	c0=$(val syscall tracepoint:syscalls:sys_enter_close "$TMP/o0")
	c1=$(val syscall tracepoint:syscalls:sys_enter_close "$TMP/o")
	if [ -n "$p0" ] && [ -n "$p1" ] && [ -n "$o1" ] && [ -n "$c1" ] &&
	   [ $((p1 - p0)) -eq 80 ] && [ $((o1 - ${o0:-0})) -eq 40 ] && [ $((c1 - ${c0:-0})) -eq 40 ]; then
		ok recipes-syscount
	else
		fail recipes-syscount "process ${p0:-none}->${p1:-none} (want +80), openat ${o0:-none}->${o1:-none}, close ${c0:-none}->${c1:-none} (want +40) $(grep '^@process' "$TMP/o" | tail -3 | tr '\n' ' ') $(head -2 "$TMP/e")"
	fi

	# writesize: the seed's two humps, exactly.
	"$FTR" run writesize -- sh -c 'writer 2000 4096; writer 60 1048576' > "$TMP/o" 2> "$TMP/e"
	b4=$(sed -n 's/^\[4K, 8K) *\([0-9]*\) .*/\1/p' "$TMP/o")
	b1=$(sed -n 's/^\[1M, 2M) *\([0-9]*\) .*/\1/p' "$TMP/o")
	[ "$b4" = 2000 ] && [ "$b1" = 60 ] && grep -q '^@bytes:$' "$TMP/o" && ok recipes-writesize ||
		fail recipes-writesize "[4K, 8K) ${b4:-none} [1M, 2M) ${b1:-none} $(head -3 "$TMP/e")"

	# readsize: dd's 7 reads of 300000 bytes (nothing else reads that much).
	"$FTR" run readsize -- dd if=/dev/zero of=/dev/null bs=300000 count=7 > "$TMP/o" 2> "$TMP/e"
	b=$(sed -n 's/^\[256K, 512K) *\([0-9]*\) .*/\1/p' "$TMP/o")
	[ "$b" = 7 ] && ok recipes-readsize || fail recipes-readsize "[256K, 512K) ${b:-none} $(head -4 "$TMP/o" "$TMP/e")"

	# killsnoop: a check, a signal to a dead pid (ESRCH), one to a live child.
	dead=$(dead_pid)
	"$FTR" run killsnoop -- sh -c "kill -0 \$\$; kill -15 $dead 2>/dev/null; sleep 5 & kill \$!; echo sh=\$\$ child=\$!" \
		> "$TMP/o" 2> "$TMP/e"
	shp=$(sed -n 's/^sh=\([0-9]*\) child=\([0-9]*\)$/\1/p' "$TMP/o")
	chp=$(sed -n 's/^sh=\([0-9]*\) child=\([0-9]*\)$/\2/p' "$TMP/o")
	a=$(count_lines "^$shp  *sh  *kill  *0 $shp  *0$" "$TMP/o")
	b=$(count_lines "^$shp  *sh  *kill  *15 $dead  *3$" "$TMP/o")
	c=$(count_lines "^$shp  *sh  *kill  *15 $chp  *0$" "$TMP/o")
	[ -n "$shp" ] && [ "$a$b$c" = 111 ] && ok recipes-killsnoop ||
		fail recipes-killsnoop "sh=$shp: lines $a$b$c (want 111) $(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' '|')"

	# execsnoop: two runs of /bin/true by the shell, and its failed exec.
	"$FTR" run execsnoop -- sh -c '/bin/true; /bin/true; /nonexistent-ftr-recipes 2>/dev/null; true' \
		> "$TMP/o" 2> "$TMP/e"
	shp=$(sed -n '2s/^[0-9]*  *\([0-9]*\)  *[0-9]*  *.*sh$/\1/p' "$TMP/o")
	n=$(count_lines "^[0-9]*  *[0-9]*  *$shp  */bin/true$" "$TMP/o")
	[ -n "$shp" ] && [ "$n" = 2 ] && grep -q '^@failed\[sh, 2\]: [1-9]' "$TMP/o" && ok recipes-execsnoop ||
		fail recipes-execsnoop "sh=${shp:-none}, $n /bin/true lines with its ppid (want 2) $(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' '|')"

	# errors: cat's failing openat of a missing file, by errno (on the
	# user path, as syscount).
	"$FTR" run errors --where user -- sh -c 'cat /nonexistent-ftr-recipes 2>/dev/null; true' > "$TMP/o" 2> "$TMP/e"
	grep -q '^@\[cat, tracepoint:syscalls:sys_exit_openat, -2\]: [1-9]' "$TMP/o" && ok recipes-errors ||
		fail recipes-errors "$(cat "$TMP/o" "$TMP/e" | tail -4 | tr '\n' '|')"
else
	skip recipes-syscalls "no syscall tracepoints on this kernel (opensnoop, syscount, writesize, readsize, killsnoop, execsnoop, errors)"
fi

# pidpersec: 7 forks in the first second (sleep, five /bin/true, sleep),
# then none.
"$FTR" run pidpersec -- sh -c 'sleep 0.2; for i in 1 2 3 4 5; do /bin/true; done; sleep 2.3; true' \
	> "$TMP/o" 2> "$TMP/e"
l1=$(sed -n '2p' "$TMP/o"); l2=$(sed -n '3p' "$TMP/o")
head -1 "$TMP/o" | grep -q '^S  *FORKS$' && [ "$(echo $l1)" = "1 7" ] && [ "$(echo $l2)" = "2 0" ] &&
	ok recipes-pidpersec || fail recipes-pidpersec "$(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"

# signals: SIGUSR1 (10) from the shell to its sleeping child, delivered.
"$FTR" run signals -- sh -c 'sleep 3 & sleep 0.3; kill -USR1 $!; wait; true' > "$TMP/o" 2> "$TMP/e"
grep -q '^@\[sh, [a-z]*, 10, 0\]: 1$' "$TMP/o" && ok recipes-signals ||
	fail recipes-signals "$(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"

# The scheduler recipes need the switch that puts a task back on a CPU.
# The 6.18 host does not record every switch out of the idle task (a plain
# tracefs instance shows it, without ftr), so the commands keep each CPU
# busy with a shell loop while they sleep: the sleepers come back from a
# running task.  The loops run only while tracing is on: toggling the
# sched_switch tracepoint while they spin has crashed a TCG guest (a stale
# int3 of the text patching, in __schedule).
ncpu=$(grep -c '^processor' /proc/cpuinfo)
spin="b=''; i=0; while [ \$i -lt ${ncpu:-1} ]; do sh -c 'while :; do :; done' & b=\"\$b \$!\"; i=\$((i + 1)); done"
unspin='kill $b; wait; true'

# offcpu: sleep spends about a second off-CPU, sleeping (S), in the
# kernel's nanosleep.
"$FTR" run offcpu -- sh -c "$spin; sleep 1; $unspin" > "$TMP/o" 2> "$TMP/e"
us=$(awk '/^@offcpu_usecs\[sleep, S, $/ { on = 1; ns = 0; next }
	on && /nanosleep\+[0-9]+$/ { ns = 1 }
	on && /^\]: [0-9]+$/ { if (ns) t += $2; on = 0 } END { print t + 0 }' "$TMP/o")
# On failure: what ftr said (lost events, warnings), how many entries it
# printed, and sleep's own (the smallest entries, printed first, say little).
[ "$us" -ge 950000 ] && [ "$us" -lt 5000000 ] && ok recipes-offcpu ||
	fail recipes-offcpu "sleep S in nanosleep ${us:-none} us (want about 1000000); ftr: $(grep -v 'still holds instance' "$TMP/e" | head -5 | tr '\n' '|') $(grep -c '^@' "$TMP/o") entries; sleep's: $(awk '/^@offcpu_usecs\[sleep, / { on = 1; s = $0 } on && /nanosleep/ { s = s " " $1 } on && /^\]:/ { print s ": " $2; on = 0 }' "$TMP/o" | tail -4 | tr '\n' '|')"

# oncpu: hotpath's own stacks, its leaves under their callers, by its comm.
if command -v hotpath > /dev/null 2>&1; then
	"$FTR" run oncpu -- hotpath 300 > "$TMP/o" 2> "$TMP/e"; rc=$?
	if [ $rc -eq 0 ] && awk '/^@\[$/ { a = w = 0 } /^        leaf_a\+/ { a = 1 }
			a && /^        work_a\+/ { w = 1 } w && /^, hotpath\]: [0-9]+$/ { f = 1 }
			END { exit !f }' "$TMP/o"; then
		ok recipes-oncpu
	elif grep -q 'perf_event_open\|not supported' "$TMP/e"; then
		skip recipes-oncpu "no CPU sampling here: $(head -1 "$TMP/e")"
	else
		fail recipes-oncpu "rc=$rc $(head -12 "$TMP/o" "$TMP/e" | tr '\n' '|')"
	fi
else
	skip recipes-oncpu "the hotpath helper is not on PATH"
fi

# runqlat and cpudist: each wakeup of the three sleeps is a run-queue
# latency sample, each run of the command's tasks an on-CPU slice.
"$FTR" run runqlat -- sh -c "$spin; sleep 0.1; sleep 0.1; sleep 0.1; $unspin" > "$TMP/o" 2> "$TMP/e"
n=$(sed -n 's/^count \([0-9]*\), .*/\1/p' "$TMP/o")
grep -q '^@usecs:$' "$TMP/o" && [ -n "$n" ] && [ "$n" -ge 3 ] && ok recipes-runqlat ||
	fail recipes-runqlat "count ${n:-none} (want >= 3) $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' '|')"
"$FTR" run cpudist -- sh -c "$spin; sleep 0.1; sleep 0.1; $unspin" > "$TMP/o" 2> "$TMP/e"
n=$(sed -n 's/^count \([0-9]*\), .*/\1/p' "$TMP/o")
grep -q '^@usecs:$' "$TMP/o" && [ -n "$n" ] && [ "$n" -ge 3 ] && ok recipes-cpudist ||
	fail recipes-cpudist "count ${n:-none} (want >= 3) $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' '|')"

# vfscount: the writer's 100 writes are 100 calls of vfs_write.
if has_kprobes; then
	"$FTR" run vfscount -- writer 100 7 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@\[vfs_write\]: 100$' "$TMP/o" && ok recipes-vfscount ||
		fail recipes-vfscount "$(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' '|')"
else
	"$FTR" run vfscount -d 1 > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no kprobe events' "$TMP/e" && grep -q 'sys_enter_read' "$TMP/e" &&
		ok recipes-vfscount-explains || fail recipes-vfscount-explains "rc=$rc $(head -3 "$TMP/e")"
fi

# biolatency and biosnoop trace system-wide (completions come in interrupt
# context, which -p and -- CMD would filter out): 20 direct 4K writes to a
# file on a block device, when $TMP is on one.
if [ ! -d "$T/events/block/block_rq_issue" ]; then
	skip recipes-block "no block tracepoints on this kernel"
else
	src=$(df "$TMP" 2>/dev/null | awk 'NR == 2 { print $1 }')
	dev=""
	[ -n "$src" ] && [ -b "$src" ] && dd if=/dev/zero of="$TMP/bio" bs=4k count=20 oflag=direct 2>/dev/null && dev=$src
	# Ended by SIGINT (Ctrl-C) once dd is done: each direct write has
	# completed when dd returns, while a 2 s -d missed 4 of 20 when the
	# host's writeback of a build held dd up.
	"$FTR" run biolatency > "$TMP/o" 2> "$TMP/e" &
	p=$!
	if wait_tracing $p; then
		[ -n "$dev" ] && dd if=/dev/zero of="$TMP/bio" bs=4k count=20 oflag=direct conv=notrunc 2>/dev/null
	fi
	kill -INT $p 2> /dev/null
	wait $p; rc=$?
	n=$(sed -n 's/^count \([0-9]*\), .*/\1/p' "$TMP/o")
	if [ -n "$dev" ]; then
		[ $rc -eq 0 ] && grep -q '^@usecs:$' "$TMP/o" && [ -n "$n" ] && [ "$n" -ge 20 ] && ok recipes-biolatency ||
			fail recipes-biolatency "rc=$rc count ${n:-none} (want >= 20) $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' '|')"
	else
		[ $rc -eq 0 ] && [ ! -s "$TMP/e" ] && ok recipes-biolatency-runs ||
			fail recipes-biolatency-runs "rc=$rc $(head -3 "$TMP/e")"
	fi
	"$FTR" run biosnoop > "$TMP/o" 2> "$TMP/e" &
	p=$!
	ddp=none
	if wait_tracing $p && [ -n "$dev" ]; then
		dd if=/dev/zero of="$TMP/bio" bs=4k count=5 oflag=direct conv=notrunc 2>/dev/null &
		ddp=$!
		wait $ddp
	fi
	kill -INT $p 2> /dev/null
	wait $p; rc=$?
	n=$(count_lines "^[0-9]*  *$ddp  *[0-9]*,[0-9]*  *W[A-Z]*  *[0-9]*  *4096  *[0-9]*$" "$TMP/o")
	hdr=$(head -1 "$TMP/o" | grep -c '^MS  *PID  *DISK  *T  *SECTOR  *BYTES  *US$')
	if [ -n "$dev" ]; then
		[ $rc -eq 0 ] && [ "$hdr" = 1 ] && [ "$n" = 5 ] && ok recipes-biosnoop ||
			fail recipes-biosnoop "rc=$rc, $n lines of dd ($ddp) writing 4096 (want 5) $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' '|')"
	else
		[ $rc -eq 0 ] && [ "$hdr" = 1 ] && ok recipes-biosnoop-runs ||
			fail recipes-biosnoop-runs "rc=$rc $(head -3 "$TMP/o" "$TMP/e")"
		skip recipes-block-io "$TMP is not on a block device (${src:-none}): no I/O to measure"
	fi
	rm -f "$TMP/bio"
fi

# The named filters: each is headed by "// NAME: ...", is accepted by the
# kernel as @NAME on an event it applies to, and keeps out what it says.
bad=""
for f in failed no_idle no_kthreads no_tracers not_ftr stdio; do
	head -1 "$FL/$f.ftr" | grep -q "^// $f: " || bad="$bad $f(header)"
done
FTR_FILTERS=$FL
export FTR_FILTERS
for f in not_ftr no_kthreads no_idle no_tracers; do
	"$FTR" trace sched:sched_switch -f "@$f" -d 0.5 > "$TMP/o" 2> "$TMP/e" || bad="$bad $f($(head -1 "$TMP/e"))"
	case $f in
	not_ftr|no_tracers) grep -q 'prev_comm=ftr' "$TMP/o" && bad="$bad $f(ftr seen)" ;;
	no_kthreads) grep -Eq 'prev_comm=(kworker|ksoftirqd|rcu_|migration)' "$TMP/o" && bad="$bad $f(kthread seen)" ;;
	no_idle) grep -q 'prev_pid=0 ' "$TMP/o" && bad="$bad $f(idle seen)" ;;
	esac
done
if has_syscalls; then
	"$FTR" trace syscalls:sys_exit_openat -f '@failed' -- sh -c 'opener 3; cat /nonexistent-ftr-recipes 2>/dev/null; true' \
		> "$TMP/o" 2> "$TMP/e" || bad="$bad failed($(head -1 "$TMP/e"))"
	grep -q 'ret=-2' "$TMP/o" && ! grep -q 'ret=3' "$TMP/o" || bad="$bad failed(output)"
	"$FTR" trace syscalls:sys_enter_write -f '@stdio' -- sh -c 'writer 5 1; echo x' \
		> "$TMP/o" 2> "$TMP/e" || bad="$bad stdio($(head -1 "$TMP/e"))"
	[ "$(count_lines 'fd=1' "$TMP/o")" -ge 1 ] && [ "$(count_lines 'fd=3' "$TMP/o")" = 0 ] || bad="$bad stdio(output)"
fi
[ -z "$bad" ] && ok recipes-filters || fail recipes-filters "$bad"

# In a program: /@not_ftr && @no_idle/ leaves ftr and idle out of the
# switches counted by comm, in the kernel's filter where it can.
"$FTR" -d 1 -e 'tracepoint:sched:sched_switch /@not_ftr && @no_idle/ { @[comm] = count(); }' \
	> "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 0 ] && grep -q '^@\[' "$TMP/o" && ! grep -Eq '^@\[(ftr|swapper/[0-9]*)\]' "$TMP/o" &&
	ok recipes-filters-in-program || fail recipes-filters-in-program "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -4 | tr '\n' '|')"

same_as_before recipes-leave-tracefs "$TMP/before"
