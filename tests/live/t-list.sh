# ftr list finds events, their fields, and probeable functions.
. "$LIVE_DIR/lib.sh"
require_tracing list

snapshot > "$TMP/before"
"$FTR" list -v sched:sched_switch > "$TMP/v" 2>&1
grep -q '^tracepoint:sched:sched_switch$' "$TMP/v" && grep -q 'char prev_comm\[16\]' "$TMP/v" &&
	grep -q 'pid_t next_pid' "$TMP/v" && ok list-v-fields ||
	fail list-v-fields "$(head -3 "$TMP/v" | tr '\n' ' ')"

n=$("$FTR" list 'sched:*' | wc -l)
want=0
for d in "$T"/events/sched/*/; do [ -e "$d/format" ] && want=$((want + 1)); done
check list-glob-count [ "$n" -eq "$want" ]
n=$("$FTR" list 'tracepoint:sched:sched_sw*' | grep -c sched_switch)
check list-bpftrace-spelling [ "$n" -eq 1 ]

"$FTR" list nosuchevent_xyz > /dev/null 2> "$TMP/err"
rc=$?
check list-unknown-exit-1 [ $rc -eq 1 ]

if [ -e "$T/available_filter_functions" ] || [ -r /proc/kallsyms ]; then
	"$FTR" list --functions vfs_write > "$TMP/f" 2>/dev/null
	if has_kprobes; then
		grep -qx 'kprobe:vfs_write' "$TMP/f" && ok list-functions ||
			fail list-functions "$(cat "$TMP/f")"
	else
		grep -q '^kprobe:vfs_write .*unusable' "$TMP/f" && ok list-functions-unusable ||
			fail list-functions-unusable "$(cat "$TMP/f")"
	fi
fi
# An fprobe event (f:GRP/EV FUNC), which libtracefs does not list: named
# with its function, as kprobes are.
if grep -q 'f\[:\[<group>/\]\[<event>\]\]' "$T/README" 2> /dev/null &&
	echo 'f:ftrlisttest/fp vfs_read' >> "$T/dynamic_events" 2> /dev/null; then
	"$FTR" list 'ftrlisttest:*' > "$TMP/fp" 2>&1
	echo '-:ftrlisttest/fp' >> "$T/dynamic_events"
	grep -qx 'tracepoint:ftrlisttest:fp    \[fprobe vfs_read\]' "$TMP/fp" && ok list-fprobe ||
		fail list-fprobe "$(head -3 "$TMP/fp")"
else
	skip list-fprobe "no fprobe events on this kernel"
fi
# bpftrace's listing, ftr -l: its providers' lines, the probes of a program,
# a type of the BTF, and a pattern that matches nothing refused saying why.
"$FTR" -l 'interval:*' > "$TMP/o" 2> "$TMP/e"
[ "$(tr '\n' ' ' < "$TMP/o")" = "interval:hz: interval:s: interval:ms: interval:us: " ] &&
	ok list-bt-interval || fail list-bt-interval "$(cat "$TMP/o" "$TMP/e" | head -5)"
# the 9 software events and 3 aliases (cpu, faults, cs), the 8 hardware ones and 2
"$FTR" -l '*ware:*' > "$TMP/o" 2> "$TMP/e"
[ "$(grep -c '^software:' "$TMP/o")" = 12 ] && [ "$(grep -c '^hardware:' "$TMP/o")" = 10 ] &&
	grep -qx 'software:cpu:' "$TMP/o" && [ "$(wc -l < "$TMP/o")" = 22 ] && ok list-bt-perf ||
	fail list-bt-perf "$(wc -l < "$TMP/o") lines $(head -3 "$TMP/e")"
"$FTR" -l '*sched_switch*' > "$TMP/o" 2> "$TMP/e"
grep -qx 'tracepoint:sched:sched_switch' "$TMP/o" && ok list-bt-whole-name ||
	fail list-bt-whole-name "$(head -3 "$TMP/e")"
"$FTR" -l 'rawtracepoint:*' > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/o" ] && grep -q 'they are BPF programs' "$TMP/e" &&
	ok list-bt-bpf-only || fail list-bt-bpf-only "rc=$rc $(head -3 "$TMP/e")"
"$FTR" -l 'software:*,nosuch_xyz*' > "$TMP/o" 2> "$TMP/e"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$TMP/o" ] && grep -q "no probe matches 'nosuch_xyz\*'" "$TMP/e" &&
	ok list-bt-nothing || fail list-bt-nothing "rc=$rc $(head -3 "$TMP/e")"
if has_kprobes; then
	"$FTR" -l 'kprobe:vfs_read' > "$TMP/o" 2> "$TMP/e"
	[ "$(cat "$TMP/o")" = "kprobe:vfs_read" ] && ok list-bt-kprobe ||
		fail list-bt-kprobe "$(cat "$TMP/o" "$TMP/e" | head -3)"
else
	"$FTR" -l 'kprobe:vfs_read' > "$TMP/o" 2> "$TMP/e"; rc=$?
	[ $rc -eq 1 ] && [ ! -s "$TMP/o" ] && grep -q 'no kprobe events' "$TMP/e" &&
		ok list-bt-kprobe-none || fail list-bt-kprobe-none "rc=$rc $(head -3 "$TMP/e")"
fi
prog='tracepoint:sched:sched_switch { } hardware:cache-misses:10, interval:s:1 { } end { }'
want="tracepoint:sched:sched_switch hardware:cache-misses: interval:s: end "
"$FTR" -l -e "$prog" > "$TMP/o" 2> "$TMP/e"
[ "$(tr '\n' ' ' < "$TMP/o")" = "$want" ] && ok list-bt-program ||
	fail list-bt-program "$(cat "$TMP/o" "$TMP/e" | head -5)"
echo "$prog" > "$TMP/p.bt"
"$FTR" -l "$TMP/p.bt" > "$TMP/o" 2> "$TMP/e"
[ "$(tr '\n' ' ' < "$TMP/o")" = "$want" ] && ok list-bt-file ||
	fail list-bt-file "$(cat "$TMP/o" "$TMP/e" | head -5)"
# A type, whole under -v (-lv), from a BTF: the trimmed fixture of Debian
# 6.1's where the tree has it, else the kernel's own (the matrix's guests
# carry tests/live only); struct path is the same two members in both.
btf="$LIVE_DIR/../fixtures/btf/vmlinux-6.1.btf"
[ -r "$btf" ] || btf=/sys/kernel/btf/vmlinux
if [ -r "$btf" ]; then
	FTR_VMLINUX_BTF="$btf" "$FTR" -lv 'struct path' > "$TMP/o" 2> "$TMP/e"
	printf 'vmlinux: struct path {\n\tstruct vfsmount * mnt;\n\tstruct dentry * dentry;\n};\n' \
		> "$TMP/want"
	cmp -s "$TMP/o" "$TMP/want" && ok list-bt-struct ||
		fail list-bt-struct "$(cat "$TMP/o" "$TMP/e" | head -5)"
else
	skip list-bt-struct "no BTF fixture in this tree and no /sys/kernel/btf/vmlinux"
fi
# uprobe: a file's functions (the helper's four ftr_target*)
tgt=$(command -v uprobe-target)
if [ -n "$tgt" ]; then
	"$FTR" -l "uretprobe:$tgt:ftr_target*" > "$TMP/o" 2> "$TMP/e"
	printf 'uretprobe:%s:%s\n' "$tgt" ftr_target "$tgt" ftr_target_buf "$tgt" ftr_target_many \
		"$tgt" ftr_target_str > "$TMP/want"
	cmp -s "$TMP/o" "$TMP/want" && ok list-bt-uprobe ||
		fail list-bt-uprobe "$(cat "$TMP/o" "$TMP/e" | head -5)"
else
	skip list-bt-uprobe "no uprobe-target helper"
fi
same_as_before list-leaves-tracefs "$TMP/before"
