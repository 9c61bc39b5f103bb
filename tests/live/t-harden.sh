# Regressions of the hostile-input and fault round (issue 18): what ftr
# leaves in tracefs, whose run a name belongs to, --emit-sh scripts, and
# messages where ftr used to be silent or wrong.
. "$LIVE_DIR/lib.sh"
require_tracing harden
snapshot > "$TMP/before"

tgt=$(command -v uprobe-target)

# A keyless count on a uprobe runs on perf counters: their fds must be
# closed before the probe is deleted (EBUSY left p:ftr_PID/... behind).
if has_uprobes && [ -n "$tgt" ]; then
	"$FTR" count uprobe:$tgt:ftr_target -- uprobe-target 7 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@: 7$' "$TMP/o" && ! grep -q 'cannot undo' "$TMP/e" &&
		! grep -q ftr_ "$T/uprobe_events" && ok harden-uprobe-count-cleans ||
		fail harden-uprobe-count-cleans "$(cat "$TMP/o" "$TMP/e") $(cat "$T/uprobe_events")"
	"$FTR" -e "uretprobe:$tgt:ftr_target { @ = count(); }" -- uprobe-target 5 > "$TMP/o" 2> "$TMP/e"
	grep -q '^@: 5$' "$TMP/o" && ! grep -q 'cannot undo' "$TMP/e" &&
		! grep -q ftr_ "$T/uprobe_events" && ok harden-uretprobe-count-cleans ||
		fail harden-uretprobe-count-cleans "$(cat "$TMP/o" "$TMP/e") $(cat "$T/uprobe_events")"
else
	skip harden-uprobe-count-cleans "no uprobe events or no uprobe-target helper"
fi

# Two runs in two PID namespaces are both pid 1: each must keep its own
# instance (the second used to destroy and reuse the first's).  Each runs a
# command, which waits until both instances exist: in a namespace the
# command's pid is not the kernel's, which ftr learns from a trace_marker
# write of the held command (it counted nothing before).
if command -v unshare > /dev/null 2>&1 && unshare -pf --mount-proc true 2> /dev/null; then
	w='while [ ! -e "$0" ]; do sleep 0.05; done; writer 50 1 > /dev/null'
	unshare -pf --mount-proc "$FTR" count -k comm syscalls:sys_enter_write -- \
		sh -c "$w" "$TMP/go" > "$TMP/n1" 2>&1 &
	p1=$!
	unshare -pf --mount-proc "$FTR" count -k comm syscalls:sys_enter_write -- \
		sh -c "$w" "$TMP/go" > "$TMP/n2" 2>&1 &
	p2=$!
	i=0
	while [ $i -lt 250 ] && [ "$(ls -d "$T"/instances/ftr_1_* 2>/dev/null | wc -l)" -lt 2 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	touch "$TMP/go"
	wait $p1 $p2
	grep -q '^@\[writer\]: 50$' "$TMP/n1" && grep -q '^@\[writer\]: 50$' "$TMP/n2" &&
		ok harden-pidns-names ||
		fail harden-pidns-names "first: $(cat "$TMP/n1") second: $(cat "$TMP/n2")"
	# The language and trace too, and a system-wide run leaves out ftr's
	# own reads by its kernel pid (set_event_notrace_pid was given the
	# namespace's 1).
	unshare -pf --mount-proc "$FTR" -e 'tracepoint:syscalls:sys_enter_write { @[comm] = count(); }' \
		-- sh -c 'writer 30 1 > /dev/null' > "$TMP/n1" 2>&1
	unshare -pf --mount-proc "$FTR" trace syscalls:sys_enter_write -- \
		sh -c 'writer 7 1 > /dev/null' > "$TMP/n2" 2>&1
	# ftr's kernel pid: the child of unshare (other ftr runs on this
	# machine may read too, so not by comm); /proc/PID/task/PID/children
	# needs CONFIG_PROC_CHILDREN, which Debian's kernels have.
	unshare -pf --mount-proc "$FTR" count -d 1 -k comm,pid syscalls:sys_enter_read > "$TMP/n3" 2>&1 &
	p3=$!
	self=
	i=0
	while [ $i -lt 200 ] && [ -z "$self" ]; do
		self=$(cat /proc/$p3/task/$p3/children 2> /dev/null | awk '{ print $1 }')
		[ -n "$self" ] || sleep 0.01
		i=$((i + 1))
	done
	wait $p3
	grep -q '^@\[writer\]: 30$' "$TMP/n1" && [ "$(grep -c 'writer-.*sys_enter_write' "$TMP/n2")" = 7 ] &&
		[ -n "$self" ] && ! grep -q "^@\[ftr, $self\]" "$TMP/n3" && ok harden-pidns-cmd ||
		fail harden-pidns-cmd "$(cat "$TMP/n1") trace: $(grep -c 'sys_enter_write' "$TMP/n2") self=$self $(grep ftr "$TMP/n3")"
	# -p names a pid the kernel does not know by that number: refused.
	unshare -pf --mount-proc "$FTR" count -d 1 syscalls:sys_enter_write -p 1 > /dev/null 2> "$TMP/e"
	[ $? -eq 1 ] && grep -q 'PID namespace' "$TMP/e" && ok harden-pidns-p-refused ||
		fail harden-pidns-p-refused "$(cat "$TMP/e")"
else
	skip harden-pidns-names "no unshare -p here"
	skip harden-pidns-cmd "no unshare -p here"
	skip harden-pidns-p-refused "no unshare -p here"
fi

# Liveness is a lock, not a comm: `ftr reset` leaves a live run of a copied
# binary alone, and the run still answers.
cp "$FTR" "$TMP/mytracer"
"$TMP/mytracer" count -k comm syscalls:sys_enter_write -- \
	sh -c 'sleep 2; writer 40 1 > /dev/null' > "$TMP/r" 2> "$TMP/re" &
p=$!
if wait_tracing $p; then
	"$FTR" reset > "$TMP/reset" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ -d "$T/instances/ftr_$p" ] && ! grep -q "ftr_$p" "$TMP/reset" &&
		ok harden-reset-lock-liveness ||
		fail harden-reset-lock-liveness "$(cat "$TMP/reset")"
else
	fail harden-reset-lock-liveness "the copied ftr never started: $(cat "$TMP/re")"
fi
wait $p
rc=$?
[ $rc -eq 0 ] && grep -q '^@\[writer\]: 40$' "$TMP/r" && ok harden-renamed-run-answers ||
	fail harden-renamed-run-answers "rc=$rc $(cat "$TMP/r" "$TMP/re")"

# --emit-sh: a uprobe path is one quoted word (a file named a';id;'b ran id), the script's probes are in its own group (ftr reset
# leaves them alone while it runs), its own pid is left out of the events,
# and a keyless count's event is enabled and counted.
if has_uprobes && [ -n "$tgt" ]; then
	d="$TMP/q';id;'x"
	mkdir -p "$d" "$TMP/run" && cp "$tgt" "$d/prog"
	"$FTR" --emit-sh -d 3 -e "uprobe:$d/prog:ftr_target { @ = count(); }" > "$TMP/s.sh" 2> "$TMP/e"
	grep -q "ftr_[0-9]" "$TMP/s.sh" && fail harden-emit-sh-names "$(grep "ftr_[0-9]" "$TMP/s.sh")" ||
		ok harden-emit-sh-names
	(cd "$TMP/run" && sh "$TMP/s.sh" > "$TMP/so" 2>&1) &
	sp=$!
	sleep 1
	"$d/prog" 6 > /dev/null
	"$FTR" reset > "$TMP/reset" 2>&1
	grep -q ftr_sh_ "$T/uprobe_events" && ok harden-emit-sh-reset-leaves-it ||
		fail harden-emit-sh-reset-leaves-it "$(cat "$TMP/reset")"
	wait $sp
	! grep -q 'uid=' "$TMP/so" && ok harden-emit-sh-quotes-paths ||
		fail harden-emit-sh-quotes-paths "the path ran a command"
	# Where the kernel has hist triggers, the script's count is a trigger
	# whose hist it prints as is (one entry, hitcount 6).
	{ grep -q '^@: 6$' "$TMP/so" || { has_hist && grep -q 'hitcount: *6$' "$TMP/so"; }; } &&
		ok harden-emit-sh-keyless-count ||
		fail harden-emit-sh-keyless-count "$(cat "$TMP/so")"
	grep -q 'echo "\$\$" > ${I}/set_event_notrace_pid' "$TMP/s.sh" || ! [ -e "$T/set_event_notrace_pid" ] &&
		ok harden-emit-sh-notrace-self || fail harden-emit-sh-notrace-self "$(grep notrace "$TMP/s.sh")"
fi

# As a user: reset fails naming why (it said "nothing to clean up", exit 0);
# doctor does not take tracefs's mode 0700 for lockdown.
if command -v asuser > /dev/null 2>&1 && [ "$(id -u)" = 0 ] &&
		! asuser 65534 test -r "$T/README" 2> /dev/null; then
	asuser 65534 "$FTR" reset > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'needs root' "$TMP/e" && ok harden-reset-user-fails ||
		fail harden-reset-user-fails "rc=$rc $(cat "$TMP/o" "$TMP/e")"
	asuser 65534 "$FTR" doctor > "$TMP/o" 2> "$TMP/e"
	if [ -r /sys/kernel/security/lockdown ] && grep -q '\[confidentiality\]' /sys/kernel/security/lockdown; then
		skip harden-doctor-user-not-lockdown "this boot is under lockdown=confidentiality"
	else
		! grep -q confidentiality "$TMP/o" && grep -q 'closed to uid 65534' "$TMP/o" &&
			ok harden-doctor-user-not-lockdown ||
			fail harden-doctor-user-not-lockdown "$(head -6 "$TMP/o")"
	fi
else
	skip harden-reset-user-fails "no asuser helper, not root, or tracefs open to every user"
fi

# A CPU that is not online is refused (stat said "<not supported>" and
# "busy 0%", profile dropped it).
last=$(sed 's/.*[-,]//' /sys/devices/system/cpu/online 2>/dev/null)
if [ -n "$last" ]; then
	bad=$((last + 1))
	"$FTR" stat -a -C $bad -d 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 2 ] && grep -q "CPU $bad is not online" "$TMP/e" && ok harden-stat-offline-cpu ||
		fail harden-stat-offline-cpu "rc=$rc $(head -3 "$TMP/e")"
	"$FTR" profile -a -C 0,$bad -d 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 2 ] && grep -q "CPU $bad is not online" "$TMP/e" && ok harden-profile-offline-cpu ||
		fail harden-profile-offline-cpu "rc=$rc $(head -3 "$TMP/e")"
fi

# A program's name with an escape sequence is shown escaped in text, as in
# JSON: in trace lines, in count's keys and in the language's printf %s.
esc=$(printf 'w\033[7mx')
if cp "$(command -v writer)" "$TMP/$esc" 2> /dev/null; then
	"$FTR" trace syscalls:sys_enter_write -- "$TMP/$esc" 3 1 > "$TMP/o" 2> "$TMP/e"
	"$FTR" count -k comm syscalls:sys_enter_write -- "$TMP/$esc" 3 1 >> "$TMP/o" 2>> "$TMP/e"
	"$FTR" -e 'tracepoint:syscalls:sys_enter_write { printf("%s\n", comm); }' -- "$TMP/$esc" 3 1 \
		>> "$TMP/o" 2>> "$TMP/e"
	n=$(grep -c 'w\\x1b\[7mx' "$TMP/o")
	! grep -q "$(printf '\033')" "$TMP/o" && [ "$n" -ge 7 ] && ok harden-text-escapes-comm ||
		fail harden-text-escapes-comm "n=$n $(od -c "$TMP/o" | head -5) $(head -3 "$TMP/e")"
fi

# A write error on the output is said (ftr count > /dev/full exited 1
# silently); a NUL byte in a program file is an error at its position.
if [ -w /dev/full ]; then
	"$FTR" count -k comm syscalls:sys_enter_write -- writer 3 1 > /dev/full 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'write error on standard output' "$TMP/e" && ok harden-dev-full ||
		fail harden-dev-full "rc=$rc $(cat "$TMP/e")"
fi
printf 'BEGIN { printf("a\\n");\n\0 exit(); }\n' > "$TMP/nul.ftr"
"$FTR" run "$TMP/nul.ftr" > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q 'nul.ftr:2:1: a NUL byte' "$TMP/e" && ok harden-nul-in-program ||
	fail harden-nul-in-program "rc=$rc $(cat "$TMP/o" "$TMP/e")"

# perf_event_paranoid=3: doctor says what the kernel allows (it said "no"
# while stat measured a user's process).  The sysctl is restored.
pf=/proc/sys/kernel/perf_event_paranoid
if command -v asuser > /dev/null 2>&1 && [ "$(id -u)" = 0 ] && [ -w $pf ]; then
	was=$(cat $pf)
	echo 3 > $pf
	(cd / && asuser 65534 "$FTR" stat -- true) > "$TMP/o" 2> "$TMP/e"
	src=$?
	(cd / && asuser 65534 "$FTR" doctor) > "$TMP/d" 2>&1
	echo "$was" > $pf
	if [ $src -eq 0 ]; then
		grep -q '^yes  perf_event_open' "$TMP/d" && ok harden-paranoid-3 ||
			fail harden-paranoid-3 "stat worked, doctor: $(grep perf_event_open "$TMP/d")"
	else
		grep -q '^no   perf_event_open' "$TMP/d" && ok harden-paranoid-3 ||
			fail harden-paranoid-3 "stat failed, doctor: $(grep perf_event_open "$TMP/d")"
	fi
	[ "$(cat $pf)" = "$was" ] || fail harden-paranoid-restored "$(cat $pf) != $was"
fi

# A glob leaves other runs' private events alone: '*:*' enabled another
# ftr's uprobe (ftr_PID/...) in this run's instance.
if has_uprobes && [ -n "$tgt" ]; then
	"$FTR" trace uprobe:$tgt:ftr_target -d 4 > /dev/null 2>&1 &
	p=$!
	if wait_tracing $p; then
		"$FTR" trace -E '*:*' -d 1 > "$TMP/o" 2>&1
		! grep -q "events/ftr_$p/" "$TMP/o" && grep -q 'events/sched/sched_switch/enable' "$TMP/o" &&
			ok harden-glob-skips-other-runs ||
			fail harden-glob-skips-other-runs "$(grep "ftr_$p/" "$TMP/o" | head -2)"
	else
		fail harden-glob-skips-other-runs "the uprobe run never started"
	fi
	wait $p
fi

# SIGINT sent to `ftr stat -- CMD` alone reaches CMD (it waited for CMD's
# own end).  Started as a background job of this script, ftr begins with
# SIGINT ignored, and CMD inherited that: its trap could not be set, and
# it ran on to "no-int".  ftr starts from the default now.
"$FTR" stat -- sh -c 'trap "echo got-int; exit 0" INT; : > "$0"
	i=0; while [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; echo no-int' "$TMP/ready" \
	> "$TMP/o" 2> "$TMP/e" &
p=$!
i=0
while [ $i -lt 300 ] && [ ! -e "$TMP/ready" ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $p
wait $p
grep -qx got-int "$TMP/o" && ! grep -qx no-int "$TMP/o" && cat "$TMP/o" "$TMP/e" | grep -q task-clock &&
	ok harden-stat-sigint-forwarded ||
	fail harden-stat-sigint-forwarded "$(cat "$TMP/o") $(head -3 "$TMP/e")"
# The same for a program: SIGINT ends it, and its maps print.
rm -f "$TMP/o"
"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @ = count(); }' > "$TMP/o" 2> "$TMP/e" &
p=$!
i=0
while [ $i -lt 300 ] && [ "$(cat "/run/ftr/ftr_$p.lock" 2> /dev/null)" != running ]; do
	sleep 0.1
	i=$((i + 1))
done
writer 5 1 > /dev/null
kill -INT $p
i=0
while [ $i -lt 300 ] && kill -0 $p 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
if kill -0 $p 2> /dev/null; then
	kill -KILL $p
	wait $p
	"$FTR" reset > /dev/null 2>&1
	fail harden-bg-sigint "a background ftr ignored SIGINT for 30 s"
else
	wait $p
	rc=$?
	[ $rc -eq 0 ] && grep -q '^@: [0-9][0-9]*$' "$TMP/o" && ok harden-bg-sigint ||
		fail harden-bg-sigint "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -3)"
fi

# kernel.kptr_restrict=2 hides kernel addresses from root too: kaddr() is
# refused naming the setting and the remedy (not "run as root"), exit 1,
# and the instance made before the program was checked is gone.  The
# sysctl is restored.
kr=/proc/sys/kernel/kptr_restrict
if [ "$(id -u)" = 0 ] && [ -w $kr ]; then
	was=$(cat $kr)
	echo 2 > $kr
	"$FTR" -e 'BEGIN { printf("%d\n", kaddr("schedule")); exit(); }' > "$TMP/o" 2> "$TMP/e"
	rc=$?
	"$FTR" doctor > "$TMP/d" 2>&1
	echo "$was" > $kr
	[ $rc -eq 1 ] && grep -q 'kaddr("schedule").*kptr_restrict=2.*root too' "$TMP/e" &&
		! grep -q 'run as root' "$TMP/e" && grep -q 'kptr_restrict=2 hides them from root too' "$TMP/d" &&
		[ -z "$(ls "$T/instances" | grep '^ftr_')" ] && ok harden-kptr-restrict-2 ||
		fail harden-kptr-restrict-2 "rc=$rc $(cat "$TMP/e") doctor: $(grep -i kallsyms "$TMP/d")"
else
	skip harden-kptr-restrict-2 "kernel.kptr_restrict is not writable here"
fi

# A read-only tracefs (a read-only bind mount in a mount namespace of its
# own, as a container has): runs, the language and reset fail naming it,
# exit 1; doctor says so.  Nothing can be left: the next check compares.
if command -v unshare > /dev/null 2>&1 && unshare -m true 2> /dev/null; then
	# (Private first, so that nothing reaches the host's mounts; a bind
	# mount is made read-only by a remount; the table must say "ro".)
	unshare -m sh -c 'mount --make-rprivate / && mount -o bind "$1" "$1" &&
		mount -o remount,bind,ro "$1" || exit 9
		awk -v m="$1" '\''$2 == m && $4 ~ /^ro(,|$)/ { f = 1 } END { exit !f }'\'' \
			/proc/self/mounts || exit 9
		"$2" count syscalls:sys_enter_write -- true 2> "$3/ro1"; echo $? >> "$3/rorc"
		"$2" -e "tracepoint:syscalls:sys_enter_write { @ = count(); }" -- true 2> "$3/ro2"
		echo $? >> "$3/rorc"
		"$2" reset > /dev/null 2> "$3/ro3"; echo $? >> "$3/rorc"
		"$2" doctor > "$3/ro4" 2>&1' sh "$T" "$FTR" "$TMP" > /dev/null 2>&1
	if [ $? -eq 9 ]; then
		skip harden-ro-tracefs "no read-only bind mount here"
	else
		[ "$(tr '\n' ' ' < "$TMP/rorc")" = "1 1 1 " ] &&
			grep -q "tracefs at '$T'.*mounted read-only" "$TMP/ro1" &&
			grep -q "tracefs at '$T'.*mounted read-only" "$TMP/ro2" &&
			grep -q "mounted read-only" "$TMP/ro3" && grep -q '^tracefs .*read-only' "$TMP/ro4" &&
			ok harden-ro-tracefs ||
			fail harden-ro-tracefs "rc $(cat "$TMP/rorc") $(cat "$TMP/ro1" "$TMP/ro3") $(grep tracefs "$TMP/ro4")"
	fi
else
	skip harden-ro-tracefs "no unshare -m here"
fi

same_as_before harden-leaves-tracefs "$TMP/before"
