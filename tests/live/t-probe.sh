# Dynamic probes: uprobes and uretprobes on a test binary, kprobes on
# vfs_write where the kernel has them, and the explanation where it has not.
. "$LIVE_DIR/lib.sh"
require_tracing probe
snapshot > "$TMP/before"

tgt=$(command -v uprobe-target)
if has_uprobes && [ -n "$tgt" ]; then
	# ftr_target(x) is called for x = 1000..1024 and returns 3x + 7.
	"$FTR" trace -F x uprobe:$tgt:ftr_target x=arg0:s64 -- uprobe-target 25 1000 > "$TMP/o" 2> "$TMP/e"
	n=$(count_lines 'ftr_target: x=' "$TMP/o")
	first=$(sed -n 's/.*ftr_target: x=//p' "$TMP/o" | head -1)
	last=$(sed -n 's/.*ftr_target: x=//p' "$TMP/o" | tail -1)
	sum=$(sed -n 's/.*ftr_target: x=//p' "$TMP/o" | awk '{s += $1} END {print s}')
	[ "$n" -eq 25 ] && [ "$first" = 1000 ] && [ "$last" = 1024 ] && [ "$sum" = 25300 ] &&
		ok uprobe-args || fail uprobe-args "n=$n first=$first last=$last sum=$sum $(head -2 "$TMP/e")"
	"$FTR" trace -F retval uretprobe:$tgt:ftr_target -- uprobe-target 10 50 > "$TMP/o" 2> "$TMP/e"
	vals=$(sed -n 's/.*retval=//p' "$TMP/o" | tr '\n' ' ')
	# 3 * (50..59) + 7
	[ "$vals" = "157 160 163 166 169 172 175 178 181 184 " ] && ok uretprobe-retval ||
		fail uretprobe-retval "got: $vals $(head -2 "$TMP/e")"
	"$FTR" trace uprobe:$tgt:no_such_function_xyz > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -ne 0 ] && grep -q no_such_function_xyz "$TMP/e" && ok uprobe-missing-symbol ||
		fail uprobe-missing-symbol "rc=$rc $(cat "$TMP/e")"
	"$FTR" trace uprobe:/nonexistent/bin:main > /dev/null 2> "$TMP/e"; rc=$?
	check uprobe-missing-binary [ $rc -ne 0 ]
else
	skip uprobe "no uprobe events or no uprobe-target helper"
fi

if has_kprobes; then
	# Each write(2) passes through vfs_write once with its count.
	"$FTR" trace -F count kprobe:vfs_write count=arg2:u64 -- writer 300 13 > "$TMP/o" 2> "$TMP/e"
	n=$(count_lines 'vfs_write: count=13$' "$TMP/o")
	[ "$n" -eq 300 ] && ok kprobe-vfs-write-count ||
		fail kprobe-vfs-write-count "$n of 300 $(head -3 "$TMP/e")"
	"$FTR" trace -F retval kretprobe:vfs_write -- writer 40 21 > "$TMP/o" 2> "$TMP/e"
	check kretprobe-retval [ "$(count_lines 'retval=21$' "$TMP/o")" -eq 40 ]
	"$FTR" trace kprobe:no_such_kernel_function_xyz > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no_such_kernel_function_xyz' "$TMP/e" && ok kprobe-bad-function ||
		fail kprobe-bad-function "rc=$rc $(cat "$TMP/e")"
	# What goes into the kernel, shown by -E and --emit-sh: arg2 is $arg3
	# from 4.20 on; before it (no $arg<N> in the README) the calling
	# convention's third register, %dx on x86-64; and the line goes to
	# dynamic_events, or before 4.20 to kprobe_events.
	if grep -q 'arg<N>' "$T/README"; then want='arg2=$arg3'
	elif [ "$(uname -m)" = x86_64 ]; then want='arg2=%dx'
	else want=; fi
	[ -e "$T/dynamic_events" ] && file=dynamic_events || file=kprobe_events
	"$FTR" -E -e 'kprobe:vfs_write { @ = sum(arg2); }' > "$TMP/o" 2>&1
	"$FTR" --emit-sh -d 1 -e 'kprobe:vfs_write { @ = sum(arg2); }' > "$TMP/sh" 2>&1
	if [ -z "$want" ]; then
		skip kprobe-fetch-args "no register table for $(uname -m) in this test"
	elif grep -F "vfs_write" "$TMP/o" | grep -qF "$want" &&
			grep -F "vfs_write" "$TMP/sh" | grep -F "$want" | grep -qF "/$file"; then
		ok "kprobe-fetch-args ($want, $file)"
	else
		fail kprobe-fetch-args "want $want into $file: $(grep vfs_write "$TMP/o" "$TMP/sh" | head -3)"
	fi
	# --emit-sh -p: before 4.7 (no options/event-fork) ftr follows the
	# children itself, which a script cannot: refused, saying so.
	"$FTR" --emit-sh -p $$ -e 'kprobe:vfs_write { @ = count(); }' > "$TMP/sh" 2> "$TMP/e"; rc=$?
	if [ -e "$T/options/event-fork" ]; then
		[ $rc -eq 0 ] && grep -q 'event-fork' "$TMP/sh" && grep -q "set_event_pid" "$TMP/sh" &&
			ok emit-sh-pid-follows || fail emit-sh-pid-follows "rc=$rc $(head -3 "$TMP/e")"
	else
		[ $rc -eq 1 ] && grep -q -- "--emit-sh -p $$: this kernel has no options/event-fork (4.7)" "$TMP/e" &&
			ok emit-sh-pid-refused || fail emit-sh-pid-refused "rc=$rc $(head -3 "$TMP/e")"
	fi
	# A line this kernel refuses is explained, error_log or not.
	"$FTR" trace kprobe:vfs_write 'x=%nosuchreg:u64' > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l < "$TMP/e")" -ge 2 ] && ok kprobe-refusal-explained ||
		fail kprobe-refusal-explained "rc=$rc $(cat "$TMP/e")"
else
	"$FTR" trace kprobe:vfs_write count=arg2 > /dev/null 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && grep -q 'no kprobe events' "$TMP/e" &&
		grep -q 'syscalls:sys_enter_write' "$TMP/e" && ok kprobe-absent-explained ||
		fail kprobe-absent-explained "rc=$rc $(cat "$TMP/e")"
fi

# Two clauses on one place run in the program's order, as bpftrace runs
# them, whatever order this kernel calls one place's events in: kprobes
# and fprobes newest created first, uprobes newest enabled first, eprobes
# oldest enabled first, kretprobes in the reverse of their entries
# (src/kernel/engine.c's order_places and engine_prepare say how ftr
# makes each come out right).
# order_run N "TAG PROBE"... -- CMD: in one run, two clauses on each
# PROBE, printing TAG1 and TAG2; each TAG's lines must be 1 then 2, N
# times (test order-TAG).
order_run() {
	n=$1 prog= tags=
	shift
	while [ "$1" != -- ]; do
		t=${1%% *} p=${1#* }
		prog="$prog $p { printf(\"${t}1\\n\"); } $p { printf(\"${t}2\\n\"); }"
		tags="$tags $t"
		shift
	done
	shift
	"$FTR" -e "$prog" -- "$@" > "$TMP/o" 2> "$TMP/e"
	want=$(i=0; while [ $i -lt "$n" ]; do printf 12; i=$((i + 1)); done)
	for t in $tags; do
		got=$(sed -n "s/^$t\([12]\)\$/\1/p" "$TMP/o" | tr -d '\n')
		[ "$got" = "$want" ] && ok "order-$t" ||
			fail "order-$t" "got '$got' $(head -3 "$TMP/e" | tr '\n' ' ')"
	done
}
# One tracepoint event feeds both clauses (ftr's own order).
order_run 3 'tracepoint tracepoint:syscalls:sys_enter_write /args.count == 13/' -- writer 3 13
# str() of a user pointer: an eprobe per clause, or a kprobe on the
# syscall's wrapper where this kernel's eprobes cannot read it (6.1).
# (The README lists eprobes in kernels built without them: their code is
# the sign.)
if { grep -qF 'e[:[<group>/][<event>]]' "$T/README" 2> /dev/null &&
	grep -qE ' (eprobe_|trace_eprobe)' /proc/kallsyms; } ||
	{ has_kprobes && grep -q ustring "$T/README"; }; then
	order_run 3 'tracepointfetch tracepoint:syscalls:sys_enter_write
		/args.count == 13 && str(args.buf) == ""/' -- writer 3 13
else
	skip order-tracepointfetch "no eprobe events, nor kprobes that read user memory (ustring, 5.5) on this kernel"
fi
if has_kprobes; then
	# kfunc/kretfunc: fprobe events where the kernel has them, kprobes
	# elsewhere (four kprobes at one place then).
	set -- 'kprobe kprobe:vfs_write /arg2 == 13/' 'kretprobe kretprobe:vfs_write /retval == 13/'
	if [ -e /sys/kernel/btf/vmlinux ]; then
		set -- "$@" 'kfunc kfunc:vfs_write /args->count == 13/' \
			'kretfunc kretfunc:vfs_write /retval == 13/'
	else
		skip order-kfunc "no BTF on this kernel"
	fi
	order_run 3 "$@" -- writer 3 13
	# Three at one place, one of them from a wildcard: the two older ones
	# made again, the second before the first.
	p='kprobe:vfs_write /arg2 == 13/'
	"$FTR" -e "$p { printf(\"a\"); } kprobe:vfs_writ* /arg2 == 13/ { printf(\"b\"); }
		$p { printf(\"c\\n\"); }" -- writer 3 13 > "$TMP/o" 2> "$TMP/e"
	[ "$(grep -c '^abc$' "$TMP/o")" = 3 ] && [ "$(grep -c . "$TMP/o")" = 3 ] &&
		ok order-kprobe-three || fail order-kprobe-three "$(cat "$TMP/o" "$TMP/e" | head -6 | tr '\n' ' ')"
else
	skip order-kprobe "no kprobe events on this kernel"
fi
if has_uprobes && [ -n "$tgt" ]; then
	order_run 3 "uprobe uprobe:$tgt:ftr_target" "uretprobe uretprobe:$tgt:ftr_target" -- \
		uprobe-target 3 1000
else
	skip order-uprobe "no uprobe events or no uprobe-target helper"
fi

"$FTR" trace 'kprobe:' > /dev/null 2>&1; rc=$?
check probe-bad-spec-usage [ $rc -eq 2 ]
same_as_before probe-leaves-tracefs "$TMP/before"
