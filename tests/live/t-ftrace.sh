# ftrace's function tracer in ftr's own instance: funccount and functrace,
# exact counts of a known workload, the filter read back and bounded, every
# setting restored.  Skipped, with the kernel's answer, where the tracer is
# absent or refused (the project's 6.18 lists it and answers EPERM).
. "$LIVE_DIR/lib.sh"
require_tracing ftrace
snapshot > "$TMP/before"
fst() { cat "$T/options/func_stack_trace" 2>/dev/null; }
fst0=$(fst)

if ! has_tracer function; then
	if grep -qw function "$T/available_tracers" 2>/dev/null; then
		# Listed and refused: the command says so, with the kernel's answer.
		"$FTR" funccount vfs_write -d 1 > "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc -eq 1 ] && grep -q 'present but not permitted: .*: ' "$TMP/e" &&
			ok ftrace-refused || fail ftrace-refused "rc=$rc $(head -c 300 "$TMP/e")"
		"$FTR" -e 'kprobe:vfs_write { @ = count(); }' -d 1 > "$TMP/o" 2> "$TMP/e2"
		rc=$?
		[ $rc -eq 1 ] && grep -q 'function tracer.* is listed but refused here (.*: ' "$TMP/e2" &&
			ok ftrace-refused-lang || fail ftrace-refused-lang "rc=$rc $(head -c 300 "$TMP/e2")"
		skip ftrace "the function tracer is listed but not permitted here: $(sed -n \
			's/.*not permitted: //p' "$TMP/e" | head -1)"
	else
		skip ftrace "no function tracer in this kernel"
	fi
	same_as_before ftrace-leaves-tracefs "$TMP/before"
	exit 0
fi
if ! command -v writer > /dev/null 2>&1; then
	skip ftrace "the writer helper is not on PATH (make helpers)"
	exit 0
fi

# Exact: writer N makes N write(2) calls, each one vfs_write and one
# __ARCH_sys_write (ksys_write is inlined in 6.1); set_ftrace_pid follows
# the command from before its exec.
"$FTR" funccount vfs_write '__*_sys_write' -- writer 1000 > "$TMP/o" 2> "$TMP/e"
rc=$?
n1=$(awk '$1 == "vfs_write" { print $2 }' "$TMP/o" | tr '\n' ' ')
n2=$(awk '$1 ~ /^__(x64|arm64|arm)_sys_write$/ { print $2 }' "$TMP/o" | tr '\n' ' ')
[ $rc -eq 0 ] && [ "$n1" = "1000 " ] && [ "$n2" = "1000 " ] && [ "$(grep -c '^FUNC' "$TMP/o")" = 1 ] &&
	ok funccount-exact ||
	fail funccount-exact "rc=$rc vfs_write=$n1 sys_write=$n2 $(tr '\n' ' ' < "$TMP/o") $(head -c 300 "$TMP/e")"
grep -Eq 'Tracing "vfs_write __\*_sys_write" \([2-9] functions\)' "$TMP/e" &&
	ok funccount-says-how-many || fail funccount-says-how-many "$(head -2 "$TMP/e")"

# A glob, options after it, a duration: the table has its header.
"$FTR" funccount 'vfs_*' -d 1 > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 0 ] && grep -q '^FUNC  *COUNT$' "$TMP/o" && ok funccount-glob-duration ||
	fail funccount-glob-duration "rc=$rc $(head -c 300 "$TMP/e")"

# -t: only the top N, the most called last (perf-tools' order).
"$FTR" funccount 'vfs_*' 'ksys_*' -t 1 -- writer 300 > "$TMP/o" 2> "$TMP/e"
lines=$(awk 'f { n++ } /^FUNC/ { f = 1 } END { print n + 0 }' "$TMP/o")
[ "$lines" = 1 ] && grep -Eq '^(vfs_write|ksys_write) +300$' "$TMP/o" && ok funccount-top ||
	fail funccount-top "$(cat "$TMP/o")"

# A pattern that matches nothing is refused: the filter would read back
# empty, which to the tracer is every function.
"$FTR" funccount 'ftr_no_such_function_*' -d 1 > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q 'no function' "$TMP/e" && ok funccount-no-match ||
	fail funccount-no-match "rc=$rc $(head -c 300 "$TMP/e")"

# The bound: more functions than allowed is refused with the count.
"$FTR" funccount 'vfs_*' --max-funcs 2 -d 1 > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q "'vfs_\*' matches [0-9]* functions (.*), more than 2" "$TMP/e" &&
	ok funccount-bound || fail funccount-bound "rc=$rc $(head -c 300 "$TMP/e")"

# functrace: one line per call, with its caller.
"$FTR" functrace vfs_write -- writer 20 > "$TMP/o" 2> "$TMP/e"
rc=$?
n=$(grep -c ' vfs_write <-' "$TMP/o")
[ $rc -eq 0 ] && [ "$n" = 20 ] && ok functrace-exact ||
	fail functrace-exact "rc=$rc lines=$n $(head -c 300 "$TMP/e")"

# Differential: the function tracer and kprobe events count the same calls.
if has_kprobes; then
	"$FTR" -e 'kprobe:vfs_write /comm == "writer"/ { @ = count(); }' -- writer 700 \
		> "$TMP/k" 2> "$TMP/e"
	k=$(sed -n 's/^@: //p' "$TMP/k")
	"$FTR" funccount vfs_write -- writer 700 > "$TMP/o" 2>> "$TMP/e"
	f=$(awk '$1 == "vfs_write" { print $2 }' "$TMP/o")
	[ "$k" = 700 ] && [ "$f" = 700 ] && ok ftrace-diff-kprobe ||
		fail ftrace-diff-kprobe "kprobe=$k function=$f $(head -c 300 "$TMP/e")"
else
	skip ftrace-diff-kprobe "no kprobe events to compare with"
fi

# The language's kprobe clauses on the function tracer: where the kernel
# has no kprobe events, or chosen (FTR_KPROBE_BACKEND=ftrace) where it has.
if has_kprobes; then FB=ftrace; else FB=; fi
lang() { FTR_KPROBE_BACKEND=$FB "$FTR" "$@"; }
lang -e 'kprobe:vfs_write /comm == "writer"/ { @[comm] = count(); }' -- writer 1000 \
	> "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 0 ] && grep -q '^@\[writer\]: 1000$' "$TMP/o" && ok lang-fn-comm-count ||
	fail lang-fn-comm-count "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
lang -e 'kprobe:vfs_w* /comm == "writer"/ { @[func, probe] = count(); }' -- writer 700 \
	> "$TMP/o" 2> "$TMP/e"
grep -q '^@\[vfs_write, kprobe:vfs_write\]: 700$' "$TMP/o" && ok lang-fn-func-probe ||
	fail lang-fn-func-probe "$(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
lang -e 'kprobe:vfs_write /comm == "writer"/ { @[kstack(4)] = count(); }' -- writer 300 \
	> "$TMP/o" 2> "$TMP/e"
n=$(awk -F': ' '/^\]: / { s += $2 } END { print s + 0 }' "$TMP/o")
[ "$n" = 300 ] && grep -Eq 'sys_write|ksys_write|vfs_write' "$TMP/o" && ok lang-fn-kstack ||
	fail lang-fn-kstack "sum=$n $(cat "$TMP/o" "$TMP/e" | head -8 | tr '\n' '|')"
lang -E -e 'kprobe:vfs_write { @ = count(); }' > "$TMP/o" 2>&1
grep -q 'the function tracer' "$TMP/o" && grep -q 'set_ftrace_filter' "$TMP/o" &&
	ok lang-fn-explain || fail lang-fn-explain "$(head -c 300 "$TMP/o")"
lang -e 'kprobe:vfs_write { @ = sum(arg2); }' -d 1 > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -ne 0 ] && grep -q "1:1: .*'kprobe:vfs_write' reads arg2: .*function tracer" "$TMP/e" &&
	ok lang-fn-refuses-args || fail lang-fn-refuses-args "rc=$rc $(head -c 300 "$TMP/e")"
if has_kprobes; then
	"$FTR" -e 'kprobe:vfs_write, kprobe:vfs_read /comm == "writer"/ { @[func] = count(); }' \
		-- writer 500 > "$TMP/k" 2> "$TMP/e"
	lang -e 'kprobe:vfs_write, kprobe:vfs_read /comm == "writer"/ { @[func] = count(); }' \
		-- writer 500 > "$TMP/f" 2>> "$TMP/e"
	cmp -s "$TMP/k" "$TMP/f" && grep -q '^@\[vfs_write\]: 500$' "$TMP/f" &&
		ok lang-fn-diff-kprobe || fail lang-fn-diff-kprobe \
		"kprobe: $(tr '\n' '|' < "$TMP/k") function: $(tr '\n' '|' < "$TMP/f") $(head -c 200 "$TMP/e")"
	# The same kernel stacks, frame for frame (each backend's stack starts
	# in the probed function's caller chain).
	# Only x86's are made the same (fntrace.h FNTRACE_KSTACK_AS_KPROBE):
	# elsewhere the planner keeps a kstack on kprobes, however many functions.
	"$FTR" -E -e 'kprobe:vfs_* { @[kstack(4)] = count(); }' > "$TMP/x" 2>&1 || echo "rc=$?" >> "$TMP/x"
	case $(uname -m) in
	x86_64|i?86)
		prog='kprobe:vfs_write /comm == "writer"/ { @[kstack(4)] = count(); }'
		FTR_KPROBE_BACKEND=kprobe "$FTR" -e "$prog" -- writer 200 > "$TMP/k" 2> "$TMP/e"
		lang -e "$prog" -- writer 200 > "$TMP/f" 2>> "$TMP/e"
		cmp -s "$TMP/k" "$TMP/f" && grep -q ']: 200$' "$TMP/f" && ok lang-fn-diff-kstack ||
			fail lang-fn-diff-kstack "kprobe: $(tr '\n' '|' < "$TMP/k") function: $(tr '\n' '|' < "$TMP/f") $(head -c 200 "$TMP/e")"
		grep -q 'cheaper than a kprobe event' "$TMP/x" && ok lang-fn-kstack-plan ||
			fail lang-fn-kstack-plan "a wide kstack program is not on the function tracer: $(head -c 300 "$TMP/x")"
		;;
	*)
		skip lang-fn-diff-kstack "$(uname -m): a kprobe at a function's entry misses the caller the function tracer shows; only x86's frames are made the same"
		{ grep -q 'cheaper than a kprobe event\|^rc=' "$TMP/x" || ! grep -q vfs_write "$TMP/x"; } &&
			fail lang-fn-kstack-plan "a wide kstack program went to the function tracer: $(head -c 300 "$TMP/x")" ||
			ok lang-fn-kstack-plan
		;;
	esac
	# A wildcard of many functions (bpftrace's vfscount shape): set up in
	# one batch on the function tracer, against one kprobe event each.
	# (times in 1/100 s from /proc/uptime: busybox's date has no %N)
	cs() { tr -d . < /proc/uptime | cut -d' ' -f1; }
	for b in ftrace kprobe; do
		t0=$(cs)
		"$FTR" --where $b -B line -e 'kprobe:vfs_* { @[func] = count(); }
			BEGIN { printf("up\n"); }' -d 4 > "$TMP/o.$b" 2> "$TMP/e.$b" &
		p=$!
		while ! grep -q '^up$' "$TMP/o.$b" && kill -0 $p 2> /dev/null; do sleep 0.05; done
		t1=$(cs)
		wait $p
		rc=$?
		t2=$(cs)
		# (the times in the verdict's name: comments are not kept)
		[ $rc -eq 0 ] && grep -q '^@\[vfs_' "$TMP/o.$b" &&
			ok "lang-vfs-glob-$b (set up in $(((t1 - t0) * 10)) ms, exited after $(((t2 - t0) * 10)) ms of -d 4)" ||
			fail "lang-vfs-glob-$b" "rc=$rc $(head -c 300 "$TMP/e.$b")"
	done
fi

# After SIGKILL, ftr reset clears func_stack_trace (one flag for every
# instance) that the killed run set for kstack.  Killed once the flag is on
# (its instance made long before: a kill during the mkdir makes 6.1 WARN).
if [ "$(fst)" = 0 ]; then
	# env execs ftr: $! is ftr itself, not a subshell around it
	env FTR_KPROBE_BACKEND=$FB "$FTR" -e 'kprobe:vfs_write { @[kstack(2)] = count(); }' \
		> /dev/null 2>&1 &
	p=$!
	while [ "$(fst)" != 1 ] && kill -0 $p 2> /dev/null; do sleep 0.1; done
	kill -9 $p 2> /dev/null
	wait $p 2> /dev/null
	"$FTR" reset > "$TMP/o" 2>&1
	[ "$(fst)" = 0 ] && grep -q 'func_stack_trace' "$TMP/o" && ok ftrace-reset-stack-flag ||
		fail ftrace-reset-stack-flag "func_stack_trace=$(fst) $(head -c 300 "$TMP/o")"
fi

# function_graph: in ftr's instance from 6.11; before, the top level's
# alone, which ftr takes only with --global-tracer: refused in words
# without it.
G=
if ! has_tracer function_graph && grep -qw function_graph "$T/available_tracers" 2>/dev/null; then
	"$FTR" graph -g vfs_write -d 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'top level only.*--global-tracer' "$TMP/e" && ok graph-refused ||
		fail graph-refused "rc=$rc $(head -c 300 "$TMP/e")"
	G=--global-tracer
fi
if has_tracer function_graph || [ -n "$G" ]; then
	"$FTR" graph $G -g vfs_write rw_verify_area -- writer 5 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	o=$(grep -c '|  vfs_write() {$' "$TMP/o") c=$(grep -c '|  } /\* vfs_write \*/$' "$TMP/o")
	l=$(grep -Ec '[0-9]\.[0-9]{3} us +\|    rw_verify_area\(\);$' "$TMP/o")
	# (a kernel that inlines rw_verify_area into vfs_write, the tiny
	# row's 6.1.192: vfs_write is then a leaf, 5 times)
	v=$(grep -Ec '[0-9]\.[0-9]{3} us +\|  vfs_write\(\);$' "$TMP/o")
	inl=0; [ "$o$c$l" = 000 ] && [ "$v" = 5 ] && inl=1
	[ $rc -eq 0 ] && { [ $inl = 1 ] || { [ "$o" = 5 ] && [ "$c" = 5 ] && [ "$l" = 5 ]; }; } && ok graph-tree ||
		fail graph-tree "rc=$rc open=$o close=$c leaf=$l $(head -c 400 "$TMP/o") $(head -c 200 "$TMP/e")"
	"$FTR" graph $G -g vfs_write --max-depth 1 rw_verify_area -- writer 5 > "$TMP/o" 2> "$TMP/e"
	[ "$(grep -c rw_verify_area "$TMP/o")" = 0 ] && [ "$(grep -c vfs_write "$TMP/o")" = $((10 - 5 * inl)) ] &&
		ok graph-max-depth || fail graph-max-depth "$(head -c 400 "$TMP/o")"
	"$FTR" funcslower $G vfs_write 0 -- writer 7 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	n=$(grep -c ' us |  } /\* vfs_write \*/$' "$TMP/o")
	[ $rc -eq 0 ] && [ "$n" = 7 ] && ok funcslower-all ||
		fail funcslower-all "rc=$rc n=$n $(head -c 300 "$TMP/e")"
	"$FTR" funcslower $G vfs_write 1000000 -- writer 7 > "$TMP/o" 2> "$TMP/e"
	[ "$(grep -c vfs_write "$TMP/o")" = 0 ] && ok funcslower-none ||
		fail funcslower-none "$(head -c 600 "$TMP/o")"
else
	skip graph "no function_graph tracer in this kernel"
fi

# kretprobe clauses and the latency idiom on function_graph: where kprobe
# events are absent (or --where ftrace), in ftr's instance from 6.11, before
# that the top level's, taken only with --global-tracer when it is idle.
# Durations are the exit record's own; the counts are exact.
topstate() {
	for f in current_tracer set_ftrace_filter set_ftrace_pid set_graph_function \
		trace_clock tracing_on tracing_thresh buffer_size_kb options/function-fork \
		options/sleep-time; do
		echo "$f: $(tr '\n' ' ' < "$T/$f" 2> /dev/null)"
	done
}
topstate > "$TMP/top0"
GT=
if has_tracer function_graph; then
	where="ftr's instance"
elif grep -qw function_graph "$T/available_tracers" 2>/dev/null; then
	where="the top level"
	GT=--global-tracer
	# Without the option: refused, naming it.
	lang -e 'kretprobe:vfs_write { @ = count(); }' -d 1 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -ne 0 ] && grep -q "1:1: .*--global-tracer" "$TMP/e" && ok lang-graph-needs-global ||
		fail lang-graph-needs-global "rc=$rc $(head -c 300 "$TMP/e")"
else
	where=
fi
if [ -n "$where" ]; then
	glang() { lang --where ftrace $GT "$@"; }
	glang -e 'kretprobe:vfs_write /comm == "writer"/ { @[probe] = count(); }' -- writer 600 \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -q '^@\[kretprobe:vfs_write\]: 600$' "$TMP/o" && ok lang-graph-ret-count ||
		fail lang-graph-ret-count "rc=$rc $(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
	# bpftrace's latency idiom: every call timed, each duration positive.
	idiom='kprobe:vfs_write /comm == "writer"/ { @s[tid] = nsecs; }
kretprobe:vfs_write /@s[tid]/ { @n = count(); @neg = sum(nsecs < @s[tid]);
	@ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'
	glang -e "$idiom" -- writer 500 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	hn=$(awk '/^@ns:/ { f = 1; next } f && /\|/ { sub(/^[^)]*\)/, ""); s += $1 } END { print s + 0 }' "$TMP/o")
	[ $rc -eq 0 ] && grep -q '^@n: 500$' "$TMP/o" && grep -q '^@neg: 0$' "$TMP/o" && [ "$hn" = 500 ] &&
		ok lang-graph-idiom || fail lang-graph-idiom "rc=$rc hist=$hn $(cat "$TMP/o" "$TMP/e" | head -12 | tr '\n' '|')"
	glang -E -e "$idiom" > "$TMP/o" 2>&1
	grep -q "kretprobe:vfs_write: function_graph" "$TMP/o" && grep -q "rettime - calltime" "$TMP/o" &&
		ok lang-graph-explain || fail lang-graph-explain "$(head -c 400 "$TMP/o")"
	# retval: where the exit record carries it (6.5+, FUNCTION_GRAPH_RETVAL)
	if grep -q ' retval;' "$T/events/ftrace/funcgraph_exit/format" 2>/dev/null; then
		glang -e 'kretprobe:vfs_write /comm == "writer"/ { @ = sum(retval); @n = count(); }' \
			-- writer 100 > "$TMP/o" 2> "$TMP/e"
		grep -q '^@n: 100$' "$TMP/o" && grep -Eq '^@: [1-9][0-9]*$' "$TMP/o" &&
			ok lang-graph-retval || fail lang-graph-retval "$(cat "$TMP/o" "$TMP/e" | head -5 | tr '\n' '|')"
	else
		glang -e 'kretprobe:vfs_write { @ = sum(retval); }' -d 1 > "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc -ne 0 ] && grep -q "1:1: .*reads retval: .*function_graph" "$TMP/e" &&
			ok lang-graph-refuses-retval || fail lang-graph-refuses-retval "rc=$rc $(head -c 300 "$TMP/e")"
	fi
	# The call tree: ftr graph on the same tracer.
	"$FTR" graph $GT -g vfs_write -- dd if=/dev/zero of=/dev/null count=100 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	n=$(grep -Ec '[0-9]\.[0-9]{3} us +\|  (vfs_write\(\);|} /\* vfs_write \*/)$' "$TMP/o")
	[ $rc -eq 0 ] && [ "$n" -ge 100 ] && ok graph-dd-tree ||
		fail graph-dd-tree "rc=$rc n=$n $(head -c 300 "$TMP/o") $(head -c 300 "$TMP/e")"
	# Differential: kprobe+kretprobe and function_graph count the same calls.
	if has_kprobes; then
		"$FTR" --where kprobe -e "$idiom" -- writer 400 > "$TMP/k" 2> "$TMP/e"
		glang -e "$idiom" -- writer 400 > "$TMP/f" 2>> "$TMP/e"
		grep -q '^@n: 400$' "$TMP/k" && grep -q '^@n: 400$' "$TMP/f" && ok lang-graph-diff-kprobe ||
			fail lang-graph-diff-kprobe "kprobe: $(grep '^@n' "$TMP/k") graph: $(grep '^@n' "$TMP/f") $(head -c 300 "$TMP/e")"
	fi
	if [ -n "$GT" ]; then
		# Someone else's tracer at the top level: refused, left alone.
		f1=$(head -n 1 "$T/available_filter_functions" | cut -d' ' -f1)
		if echo "$f1" > "$T/set_ftrace_filter" && echo function > "$T/current_tracer"; then
			glang -e 'kretprobe:vfs_write { @ = count(); }' -d 1 > "$TMP/o" 2> "$TMP/e"
			rc=$?
			[ $rc -ne 0 ] && grep -q "current_tracer is 'function' (someone else's" "$TMP/e" &&
				[ "$(cat "$T/current_tracer")" = function ] && ok lang-graph-top-busy ||
				fail lang-graph-top-busy "rc=$rc $(head -c 300 "$TMP/e")"
		fi
		echo nop > "$T/current_tracer"
		: > "$T/set_ftrace_filter"
		# Killed: ftr reset puts the top level back.
		env FTR_KPROBE_BACKEND=ftrace "$FTR" $GT -e 'kretprobe:vfs_write { @ = count(); }' \
			> /dev/null 2>&1 &
		p=$!
		while [ "$(cat "$T/current_tracer")" != function_graph ] && kill -0 $p 2> /dev/null; do
			sleep 0.1
		done
		kill -9 $p 2> /dev/null
		wait $p 2> /dev/null
		"$FTR" reset > "$TMP/o" 2>&1
		topstate > "$TMP/top1"
		cmp -s "$TMP/top0" "$TMP/top1" && grep -q current_tracer "$TMP/o" && ok graph-top-reset ||
			fail graph-top-reset "$(diff "$TMP/top0" "$TMP/top1" | tr '\n' ' ' | head -c 300) $(head -c 300 "$TMP/o")"
	fi
	topstate > "$TMP/top1"
	cmp -s "$TMP/top0" "$TMP/top1" && ok graph-top-as-found ||
		fail graph-top-as-found "$(diff "$TMP/top0" "$TMP/top1" | tr '\n' ' ' | head -c 400)"
else
	skip lang-graph "no function_graph tracer in this kernel"
fi

check ftrace-func-stack-trace-restored [ "$(fst)" = "$fst0" ]
same_as_before ftrace-leaves-tracefs "$TMP/before"
