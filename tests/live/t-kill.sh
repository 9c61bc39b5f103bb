# Kill at every step: each command is SIGKILLed right after each of its
# kernel changes in turn (FTR_TEST_KILL_AFTER=N, read by tests only), and at
# random moments of its run; after each kill `ftr reset` must give back
# tracefs exactly as it was, and what is not ftr's (an instance and a uprobe
# this test makes as "another tool") must be untouched.  Then runs at once:
# each exact, each cleaning up only its own.
. "$LIVE_DIR/lib.sh"
require_tracing kill

mkdir "$T/instances/othertool_$$"
other_probe=
if has_uprobes; then
	f=$T/dynamic_events
	[ -e "$f" ] || f=$T/uprobe_events
	echo "p:othertool_$$/x /bin/sh:0x0" >> "$f" 2> /dev/null && other_probe="$f"
fi
snapshot > "$TMP/before"
points=0
random=0

# after NAME: reset, and tracefs must be as before.
after() {
	"$FTR" reset > "$TMP/reset" 2>&1 || { fail "$1" "reset failed: $(cat "$TMP/reset")"; return 1; }
	snapshot > "$TMP/after"
	if ! cmp -s "$TMP/before" "$TMP/after"; then
		fail "$1" "tracefs changed: $(diff -u "$TMP/before" "$TMP/after" | grep '^[-+][^-+]' | head -3 | tr '\n' ' ')"
		return 1
	fi
	return 0
}

# steps NAME CMD...: kill after change 1, 2, ... until the command ends by
# itself; ok when every step was reset exactly and at least one change was
# made.
steps() {
	name=$1
	shift
	n=1
	good=1
	while [ $n -le 60 ]; do
		FTR_TEST_KILL_AFTER=$n "$@" > /dev/null 2> "$TMP/ke"
		rc=$?
		[ $rc -eq 137 ] || break
		points=$((points + 1))
		after "kill-$name-at-$n" || { good=0; break; }
		n=$((n + 1))
	done
	if [ $good = 1 ] && [ $rc -ne 137 ] && [ $n -gt 1 ]; then
		after "kill-$name-completed" && ok "kill-$name-every-step ($((n - 1)) points)"
	elif [ $good = 1 ]; then
		fail "kill-$name-every-step" "n=$n rc=$rc $(head -2 "$TMP/ke")"
	fi
}

# randomly NAME CMD...: SIGKILL after 0.05 .. 0.9 s, reset, compare.
randomly() {
	name=$1
	shift
	good=1
	for d in 0.05 0.1 0.2 0.3 0.5 0.9; do
		"$@" > /dev/null 2>&1 &
		p=$!
		sleep $d
		kill -9 $p 2> /dev/null
		wait $p 2> /dev/null
		random=$((random + 1))
		after "kill-$name-random-$d" || { good=0; break; }
	done
	[ $good = 1 ] && ok "kill-$name-random"
}

steps trace "$FTR" trace syscalls:sys_enter_write -- writer 3 1
steps count "$FTR" count -k comm syscalls:sys_enter_write -- writer 3 1
randomly trace "$FTR" trace syscalls:sys_enter_write -d 2
randomly count "$FTR" count -k comm syscalls:sys_enter_write -d 2
tgt=$(command -v uprobe-target)
if has_uprobes && [ -n "$tgt" ]; then
	steps lang-uprobes "$FTR" -e "uprobe:$tgt:ftr_target { @[tid] = count(); }
		uretprobe:$tgt:ftr_target { @r = sum(retval); }" -- uprobe-target 3
	randomly lang-uprobes "$FTR" -e "uprobe:$tgt:ftr_target { @[tid] = count(); }
		uretprobe:$tgt:ftr_target { @ = count(); }" -d 2
else
	skip kill-lang-uprobes "no uprobe events or no uprobe-target helper"
fi
if has_kprobes && has_hist; then
	steps lang-kprobe-hist "$FTR" -e 'kprobe:vfs_write { @[comm] = count(); }
		kretprobe:vfs_write { @r = hist(retval); }' -- writer 3 1
else
	skip kill-lang-kprobe-hist "no kprobe events or no hist triggers"
fi
if "$FTR" doctor 2> /dev/null | grep -q '^yes  eprobe events'; then
	steps lang-eprobe "$FTR" -e 'tracepoint:syscalls:sys_enter_openat { @[str(args.filename)] = count(); }' \
		-- opener 3
else
	skip kill-lang-eprobe "no eprobe events"
fi
if command -v hotpath > /dev/null 2>&1; then
	randomly profile "$FTR" profile -- hotpath
fi
randomly stat "$FTR" stat -- writer 100000 1
echo "kill: $points kill points after kernel changes, $random random kills"

# Runs at once: same and different events, each count exact, then nothing
# left but what was there.
"$FTR" count -k comm syscalls:sys_enter_write -- writer 40 1 > "$TMP/c1" 2>&1 &
a=$!
"$FTR" count -k comm syscalls:sys_enter_write -- writer 70 1 > "$TMP/c2" 2>&1 &
b=$!
"$FTR" -e 'tracepoint:syscalls:sys_enter_write { @ = count(); }' -- writer 90 1 > "$TMP/c3" 2>&1 &
c=$!
if has_uprobes && [ -n "$tgt" ]; then
	"$FTR" -e "uprobe:$tgt:ftr_target { @u = count(); }" -- uprobe-target 11 > "$TMP/c4" 2>&1
	grep -q '^@u: 11$' "$TMP/c4" && ok kill-concurrent-uprobe || fail kill-concurrent-uprobe "$(cat "$TMP/c4")"
fi
wait $a $b $c
grep -q '^@\[writer\]: 40$' "$TMP/c1" && grep -q '^@\[writer\]: 70$' "$TMP/c2" &&
	grep -q '^@: 90$' "$TMP/c3" && ok kill-concurrent-exact ||
	fail kill-concurrent-exact "$(cat "$TMP/c1" "$TMP/c2" "$TMP/c3")"
snapshot > "$TMP/after"
cmp -s "$TMP/before" "$TMP/after" && ok kill-concurrent-clean ||
	fail kill-concurrent-clean "$(diff "$TMP/before" "$TMP/after" | head -3 | tr '\n' ' ')"

[ -n "$other_probe" ] && echo "-:othertool_$$/x" >> "$other_probe"
rmdir "$T/instances/othertool_$$"
