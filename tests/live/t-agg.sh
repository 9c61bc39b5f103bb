# ftr count and ftr hist: exact answers for workloads of known size, the
# same by the kernel path (hist triggers) and the user path, bounded tables.
. "$LIVE_DIR/lib.sh"
require_tracing agg
if [ ! -d "$T/events/syscalls/sys_enter_write" ]; then
	skip agg "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"
# opener's openat flags, O_RDONLY|O_NOFOLLOW: the number differs by architecture.
OFLAGS=$(opener --flags)

"$FTR" count syscalls:sys_enter_openat -k comm -f "flags == $OFLAGS" -- opener 41 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[opener\]: 41' "$TMP/o" && ok count-by-comm || fail count-by-comm "$(cat "$TMP/o" "$TMP/e" | head -4)"

# A keyless count: a hist trigger where the kernel has them, perf tracepoint
# counters where it has not (exact, no ring buffer), the same number.
"$FTR" count syscalls:sys_enter_openat -f "flags == $OFLAGS" -- opener 33 > "$TMP/o" 2> "$TMP/e"
grep -qx '@: 33' "$TMP/o" && ok count-keyless || fail count-keyless "$(cat "$TMP/o" "$TMP/e" | head -4)"
# On a terminal, count says what it attached, as a program does (lang-attaching);
# -q leaves the line out and the table as it is.
if script -qec true /dev/null > /dev/null 2>&1; then
	script -qec "'$FTR' count syscalls:sys_enter_openat -f 'flags == $OFLAGS' -- opener 5" \
		/dev/null < /dev/null > "$TMP/a" 2>&1
	script -qec "'$FTR' count -q syscalls:sys_enter_openat -f 'flags == $OFLAGS' -- opener 5" \
		/dev/null < /dev/null > "$TMP/aq" 2>&1
	tr -d '\r' < "$TMP/a" | grep -v '^$' | tr '\n' '|' | grep -qx 'Attaching 1 probe\.\.\.|@: 5|' &&
		[ "$(tr -d '\r' < "$TMP/aq" | grep -v '^$')" = '@: 5' ] && ok count-attaching-quiet ||
		fail count-attaching-quiet "$(cat -v "$TMP/a" "$TMP/aq" | head -5)"
else
	skip count-attaching-quiet "no script(1) that runs a command on a terminal (util-linux's)"
fi
"$FTR" count -E syscalls:sys_enter_openat -f "flags == $OFLAGS" > "$TMP/x" 2>&1
if has_hist; then want='a hist trigger'; else want='perf tracepoint counter'; fi
grep -q "$want" "$TMP/x" && ok count-keyless-plan || fail count-keyless-plan "$(grep '^@' "$TMP/x")"

# One planner (issue 36): count and hist -f are the programs they stand
# for, and print their plan, whatever this kernel has (hist triggers, perf
# counters, user space).  The tracefs writes name ftr's instance (its pid);
# a hist trigger's set-up cost is a measured grace period, run to run.
plan_of() {
	sed -n '/^# plan$/,/^# tracefs writes$/p' "$1" |
		sed -E 's/~[0-9.]+ s \([0-9]+ waits, [0-9.]+ ms each/~T s (W waits, G ms each/'
}
"$FTR" count -E syscalls:sys_enter_write -k comm -f 'comm == "wl"' > "$TMP/x" 2>&1
"$FTR" -E -e 'tracepoint:syscalls:sys_enter_write /comm == "wl"/ { @[comm] = count(); }' \
	> "$TMP/y" 2>&1
plan_of "$TMP/x" > "$TMP/px"; plan_of "$TMP/y" > "$TMP/py"
[ -s "$TMP/px" ] && cmp -s "$TMP/px" "$TMP/py" && ok count-filter-plan-is-program ||
	fail count-filter-plan-is-program "$(diff "$TMP/px" "$TMP/py" | grep '^[<>]' | tr '\n' ' ')"
"$FTR" hist -E syscalls:sys_enter_write -k count -f 'fd == 3 && comm == "wl"' > "$TMP/x" 2>&1
"$FTR" -E -e 'tracepoint:syscalls:sys_enter_write /args.fd == 3 && comm == "wl"/ {
	@count = hist(args.count); }' > "$TMP/y" 2>&1
plan_of "$TMP/x" > "$TMP/px"; plan_of "$TMP/y" > "$TMP/py"
[ -s "$TMP/px" ] && cmp -s "$TMP/px" "$TMP/py" && ok hist-filter-plan-is-program ||
	fail hist-filter-plan-is-program "$(diff "$TMP/px" "$TMP/py" | grep '^[<>]' | tr '\n' ' ')"

# The seed's histogram: 2000 writes of 4K and 60 of 1M, by dd.
"$FTR" hist syscalls:sys_enter_write -k count -f 'comm == "dd"' \
	-- sh -c 'dd if=/dev/zero of=/tmp/ftr-h1 bs=4k count=2000 2>/dev/null; dd if=/dev/zero of=/tmp/ftr-h2 bs=1M count=60 2>/dev/null' \
	> "$TMP/h" 2> "$TMP/e"
rm -f /tmp/ftr-h1 /tmp/ftr-h2
grep -q '^\[4K, 8K) *2000 ' "$TMP/h" && grep -q '^\[1M, 2M) *60 ' "$TMP/h" && ok hist-write-sizes ||
	fail hist-write-sizes "$(head -12 "$TMP/h" "$TMP/e")"

"$FTR" hist syscalls:sys_enter_write -k count.linear=100,comm -f 'fd == 3' \
	-- sh -c 'writer 30 150; writer 5 1000' > "$TMP/o" 2> "$TMP/e"
grep -q '^@count\[writer\]:$' "$TMP/o" && grep -q '^\[100, 200) *30 ' "$TMP/o" &&
	grep -q '^\[1000, 1100) *5 ' "$TMP/o" && ok hist-linear-by-comm ||
	fail hist-linear-by-comm "$(head -12 "$TMP/o" "$TMP/e")"

"$FTR" count -v count syscalls:sys_enter_write -k comm -f 'fd == 3' -- writer 10 7 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[writer\]: 10' "$TMP/o" && grep -qx '@sum_count\[writer\]: 70' "$TMP/o" && ok count-with-sum ||
	fail count-with-sum "$(cat "$TMP/o" "$TMP/e" | head -5)"

# More distinct keys than --size: the excess is counted as dropped.  1000
# writes with sizes cycling 1..200, a table of 128: sizes 1..128 are kept
# (640 writes), the other 360 writes are dropped.
"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --size 128 --where user \
	-- writer 1000 -200 > "$TMP/u" 2> "$TMP/ue"
n=$(grep -c '^@\[' "$TMP/u")
[ "$n" -eq 128 ] && grep -q '360 updates dropped: the map holds 128 entries' "$TMP/ue" &&
	ok count-bounded-drops || fail count-bounded-drops "$n entries; $(cat "$TMP/ue")"

if has_hist; then
	"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --size 128 --where kernel \
		-- writer 1000 -200 > "$TMP/k" 2> "$TMP/ke"
	cmp -s "$TMP/u" "$TMP/k" && grep -q '360 updates dropped' "$TMP/ke" && ok count-bounded-kernel-same ||
		fail count-bounded-kernel-same "$(diff "$TMP/u" "$TMP/k" | head -3 | tr '\n' ' ') $(cat "$TMP/ke")"
	for kind in count hist; do
		"$FTR" $kind syscalls:sys_enter_write -k count,comm -f 'fd == 3' --where user \
			-- sh -c 'writer 100 10; writer 50 5000' > "$TMP/u" 2> /dev/null
		"$FTR" $kind syscalls:sys_enter_write -k count,comm -f 'fd == 3' --where kernel \
			-- sh -c 'writer 100 10; writer 50 5000' > "$TMP/k" 2> "$TMP/ke"
		[ -s "$TMP/u" ] && cmp -s "$TMP/u" "$TMP/k" && ok "$kind-kernel-equals-user" ||
			fail "$kind-kernel-equals-user" "$(diff "$TMP/u" "$TMP/k" | head -3 | tr '\n' ' ') $(head -2 "$TMP/ke")"
	done
else
	"$FTR" count syscalls:sys_enter_write -k comm --where kernel -d 1 > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no hist triggers' "$TMP/e" && ok count-where-kernel-refused ||
		fail count-where-kernel-refused "rc=$rc $(cat "$TMP/e")"
fi

# --sort by a number key, and --top: the N largest, in --sort's order.
"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --sort key.desc \
	-- sh -c 'writer 5 1; writer 3 2; writer 7 3' > "$TMP/o" 2> "$TMP/e"
[ "$(tr '\n' ' ' < "$TMP/o")" = '@[3]: 7 @[2]: 3 @[1]: 5 ' ] && ok count-sort-key-desc ||
	fail count-sort-key-desc "$(cat "$TMP/o" "$TMP/e" | head -4)"
"$FTR" count syscalls:sys_enter_write -k count -f 'fd == 3' --sort key --top 2 \
	-- sh -c 'writer 5 1; writer 3 2; writer 7 3' > "$TMP/o" 2> "$TMP/e"
[ "$(tr '\n' ' ' < "$TMP/o")" = '@[1]: 5 @[3]: 7 ' ] && ok count-sort-top ||
	fail count-sort-top "$(cat "$TMP/o" "$TMP/e" | head -4)"
"$FTR" hist syscalls:sys_enter_write -k count,count.hex -f 'fd == 3' --sort count.desc \
	-- sh -c 'writer 5 1; writer 3 2; writer 7 3' > "$TMP/o" 2> "$TMP/e"
[ "$(grep '^@' "$TMP/o" | tr '\n' ' ')" = '@count[0x3]: @count[0x1]: @count[0x2]: ' ] &&
	ok hist-sort-count-hex-key || fail hist-sort-count-hex-key "$(grep '^@' "$TMP/o" "$TMP/e" | head -4)"

# Kernel-address keys.  timers arms a known number of hrtimers of three
# kinds, each in relative mode (1): the ticks restarted on its CPU while it
# runs are absolute, and other tasks' timers have another comm.  Its own
# kfree_rcu() (closing the timerfd at exit) may arm one more, relative, with
# schedule_page_work_fn (seen on 5.10): the filter names the three functions
# by their addresses too.
ksym_addr() { awk -v n="$1" '$3 == n && NF == 3 { print "0x" $1; exit }' /proc/kallsyms; }
if [ -d "$T/events/timer/hrtimer_start" ]; then
	# (4.4's hrtimer_start has no mode field: the three functions alone single
	# them out there)
	mode='mode == 1 && '
	grep -q 'field:.* mode;' "$T/events/timer/hrtimer_start/format" || mode=
	TF="comm == \"timers\" && $mode(function == $(ksym_addr hrtimer_wakeup) ||
	    function == $(ksym_addr it_real_fn) || function == $(ksym_addr timerfd_tmrproc))"
	printf '@[timerfd_tmrproc]: 10\n@[hrtimer_wakeup]: 20\n@[it_real_fn]: 30\n' > "$TMP/want"
	"$FTR" count timer:hrtimer_start -k function.sym -f "$TF" -- timers 20 30 10 > "$TMP/s" 2> "$TMP/e"
	cmp -s "$TMP/s" "$TMP/want" && ok count-sym || fail count-sym "$(cat "$TMP/s" "$TMP/e" | head -5)"
	# The keys are functions of /proc/kallsyms (without " [module]"), and
	# the keyed counts add up to the unkeyed one.
	awk '{ print $3 }' /proc/kallsyms | sort -u > "$TMP/ksyms"
	sed -n 's/^@\[\([^] ]*\).*\]: [0-9]*$/\1/p' "$TMP/s" > "$TMP/keys"
	n=$(grep -c . "$TMP/keys"); nin=$(grep -Fxc -f "$TMP/ksyms" "$TMP/keys")
	[ "$n" -eq 3 ] && [ "$nin" -eq 3 ] && ok count-sym-in-kallsyms ||
		fail count-sym-in-kallsyms "$nin of $n keys in /proc/kallsyms"
	"$FTR" count timer:hrtimer_start -f "$TF" -- timers 20 30 10 > "$TMP/n" 2> "$TMP/e"
	sum=$(awk -F': ' '{ s += $2 } END { print s }' "$TMP/s")
	grep -qx "@: $sum" "$TMP/n" && [ "$sum" -eq 60 ] && ok count-sym-sum-is-total ||
		fail count-sym-sum-is-total "sum $sum; $(cat "$TMP/n" "$TMP/e" | head -3)"

	"$FTR" count timer:hrtimer_start -k function.sym-offset -f "$TF" -- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
	sed 's/\]/+0x0]/' "$TMP/want" > "$TMP/want-off"
	cmp -s "$TMP/o" "$TMP/want-off" && ok count-sym-offset ||
		fail count-sym-offset "$(cat "$TMP/o" "$TMP/e" | head -5)"

	# --sort, in both spellings, and --json in the same order.
	for spec in 'key:hrtimer_wakeup it_real_fn timerfd_tmrproc' \
		    'function.descending:timerfd_tmrproc it_real_fn hrtimer_wakeup' \
		    'count.desc:it_real_fn hrtimer_wakeup timerfd_tmrproc' \
		    'value.asc,key:timerfd_tmrproc hrtimer_wakeup it_real_fn'; do
		s=${spec%%:*}; want=${spec#*:}
		"$FTR" count timer:hrtimer_start -k function.sym -f "$TF" --sort "$s" \
			-- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
		got=$(sed -n 's/^@\[\(.*\)\]: [0-9]*$/\1/p' "$TMP/o" | tr '\n' ' ')
		[ "$got" = "$want " ] && ok "count-sort-$s" || fail "count-sort-$s" "got '$got'; $(head -2 "$TMP/e")"
	done
	"$FTR" count timer:hrtimer_start -k function.sym -f "$TF" --sort key -j -- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
	grep -qx '{"@": {"hrtimer_wakeup": 20, "it_real_fn": 30, "timerfd_tmrproc": 10}}' "$TMP/o" &&
		ok count-sort-json || fail count-sort-json "$(cat "$TMP/o" "$TMP/e" | head -3)"

	# The language's ksym(), and ftr -e's --sort.  (The two spaces: bpftrace's empty lines at exit.)
	# (args.function == 0xffffffff...: the predicate stays in user space,
	# which the planner says, as the literal reads as a negative number.)
	"$FTR" -e "tracepoint:timer:hrtimer_start /$(echo "$TF" | sed -e 's/mode /args.mode /' -e 's/function /args.function /g')/ {
		@[ksym(args.function)] = count(); }" --sort key.desc -- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
	[ "$(tr '\n' ' ' < "$TMP/o")" = '  @[timerfd_tmrproc]: 10 @[it_real_fn]: 30 @[hrtimer_wakeup]: 20 ' ] &&
		ok lang-ksym-sort || fail lang-ksym-sort "$(cat "$TMP/o" "$TMP/e" | head -4)"

	if has_hist; then
		"$FTR" count -E timer:hrtimer_start -k function.sym,function.sym-offset > "$TMP/x" 2>&1
		grep -q 'hist:keys=function.sym,function.sym-offset' "$TMP/x" && ok count-sym-kernel-modifiers ||
			fail count-sym-kernel-modifiers "$(grep '^@' "$TMP/x")"
		for k in 'function.sym' 'function.sym-offset' 'function.sym,comm --sort key.desc' \
			 'function.hex -j' 'function.sym-offset --sort count.desc -j'; do
			# shellcheck disable=SC2086  # $k is options
			"$FTR" count timer:hrtimer_start -k $k -f "$TF" --where user \
				-- timers 20 30 10 > "$TMP/u" 2> "$TMP/ue"
			# shellcheck disable=SC2086
			"$FTR" count timer:hrtimer_start -k $k -f "$TF" --where kernel \
				-- timers 20 30 10 > "$TMP/k" 2> "$TMP/ke"
			[ -s "$TMP/u" ] && cmp -s "$TMP/u" "$TMP/k" && ok "count-kernel-equals-user $k" ||
				fail "count-kernel-equals-user $k" "$(diff "$TMP/u" "$TMP/k" | head -4 | tr '\n' ' ') $(head -2 "$TMP/ke")"
		done
	fi

	# Addresses hidden (kptr_restrict=2, only in a guest, whose sysctl no
	# one else reads): user space says so and shows addresses; a hist
	# trigger still names them.
	if [ -d /tests/bin ] && [ "$(cat /proc/1/comm)" = init ] && [ -w /proc/sys/kernel/kptr_restrict ]; then
		kr=$(cat /proc/sys/kernel/kptr_restrict)
		echo 2 > /proc/sys/kernel/kptr_restrict
		"$FTR" count timer:hrtimer_start -k function.sym -f "$TF" --where user \
			-- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
		grep -q 'kallsyms hides kernel addresses (kptr_restrict=2)' "$TMP/e" &&
			[ "$(grep -c '^@\[0x[0-9a-f]*\]: ' "$TMP/o")" -eq 3 ] && ok count-sym-hidden-says-so ||
			fail count-sym-hidden-says-so "$(cat "$TMP/o" "$TMP/e" | head -5)"
		if has_hist; then
			"$FTR" count timer:hrtimer_start -k function.sym -f "$TF" --where kernel \
				-- timers 20 30 10 > "$TMP/o" 2> "$TMP/e"
			cmp -s "$TMP/o" "$TMP/want" && ok count-sym-hidden-kernel-names ||
				fail count-sym-hidden-kernel-names "$(cat "$TMP/o" "$TMP/e" | head -5)"
		fi
		echo "$kr" > /proc/sys/kernel/kptr_restrict
	fi
else
	skip count-sym "no timer:hrtimer_start event"
fi

# kmalloc's call sites, many and varied: by function (ksym) and by
# function+offset (ksymoff) in one run, each function's offsets add up to it,
# and both add up to the count.
if [ -d "$T/events/kmem/kmalloc" ]; then
	"$FTR" -e 'tracepoint:kmem:kmalloc /comm == "ls"/ { @s[ksym(args.call_site)] = count();
		@o[ksymoff(args.call_site)] = count(); @n = count(); }' -- ls -l / 2> "$TMP/e" |
		grep '^@' > "$TMP/o"
	# shellcheck disable=SC2016
	res=$(awk -F': ' '
		/^@n: / { n = $2; next }
		/^@s\[/ { k = substr($1, 4, length($1) - 4); s[k] += $2; ns += $2; next }
		/^@o\[/ { k = substr($1, 4, length($1) - 4); sub(/\+0x[0-9a-f]*/, "", k); o[k] += $2; no += $2 }
		END { bad = 0; for (k in s) if (s[k] != o[k]) bad++; for (k in o) if (!(k in s)) bad++
		      print (n > 0 && ns == n && no == n && bad == 0) ? "ok" : "n=" n " s=" ns " o=" no " bad=" bad }' "$TMP/o")
	[ "$res" = ok ] && ok ksym-ksymoff-add-up || fail ksym-ksymoff-add-up "$res; $(head -3 "$TMP/e")"
	sed -n 's/^@s\[\([^] ]*\).*\]: [0-9]*$/\1/p' "$TMP/o" > "$TMP/keys"
	[ -s "$TMP/ksyms" ] || awk '{ print $3 }' /proc/kallsyms | sort -u > "$TMP/ksyms"
	n=$(grep -c . "$TMP/keys"); nin=$(grep -Fxc -f "$TMP/ksyms" "$TMP/keys")
	[ "$n" -gt 0 ] && [ "$nin" -eq "$n" ] && ok ksym-in-kallsyms ||
		fail ksym-in-kallsyms "$nin of $n keys in /proc/kallsyms: $(grep -Fxv -f "$TMP/ksyms" "$TMP/keys" | head -3)"
	if has_hist; then
		# The kernel keys .sym by address: ftr adds each function's up.
		"$FTR" count kmem:kmalloc -k call_site.sym -f 'comm == "ls"' --where kernel \
			-- ls -l / 2> "$TMP/e" | grep '^@' > "$TMP/o"
		n=$(grep -c . "$TMP/o"); nu=$(sed 's/\]: .*//' "$TMP/o" | sort -u | grep -c .)
		sed -n 's/^@\[\([^] ]*\).*\]: [0-9]*$/\1/p' "$TMP/o" > "$TMP/keys"
		nin=$(grep -Fxc -f "$TMP/ksyms" "$TMP/keys")
		[ "$n" -gt 0 ] && [ "$nu" -eq "$n" ] && [ "$nin" -eq "$n" ] && ok count-sym-kernel-merged ||
			fail count-sym-kernel-merged "$n rows, $nu distinct, $nin in kallsyms; $(head -2 "$TMP/e")"
	fi
fi

# Bad input.
"$FTR" count syscalls:sys_enter_write -k nosuch -d 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && grep -q "unknown field 'nosuch'" "$TMP/e" && ok count-unknown-key ||
	fail count-unknown-key "rc=$rc $(cat "$TMP/e")"
"$FTR" hist syscalls:sys_enter_write -d 1 > /dev/null 2>&1; rc=$?
check hist-needs-key [ $rc -eq 2 ]
"$FTR" count nosuch:event > /dev/null 2> "$TMP/e"; rc=$?
check count-unknown-event [ $rc -eq 1 ]
"$FTR" count syscalls:sys_enter_write -k comm.sym -d 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 2 ] && grep -q "'.sym' applies to a field" "$TMP/e" && ok count-sym-of-builtin ||
	fail count-sym-of-builtin "rc=$rc $(cat "$TMP/e")"
"$FTR" count syscalls:sys_enter_write -k fd --sort nosuch -d 1 > /dev/null 2> "$TMP/e"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown sort key 'nosuch'" "$TMP/e" && ok count-sort-unknown ||
	fail count-sort-unknown "rc=$rc $(cat "$TMP/e")"
same_as_before agg-leaves-tracefs "$TMP/before"
