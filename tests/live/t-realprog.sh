# Issue 36: what real, published bpftrace programs use and ftr had not: the
# parent's pid and name, syscall names, the kernel's UAPI constants without a
# header.  Exact figures of known workloads: opener makes exactly N openat
# calls with flags O_RDONLY|O_NOFOLLOW, which nothing else uses.
. "$LIVE_DIR/lib.sh"
require_tracing realprog
if [ ! -d "$T/events/syscalls/sys_enter_openat" ]; then
	skip realprog "no syscall tracepoints on this kernel"
	exit 0
fi
snapshot > "$TMP/before"

# O_NOFOLLOW differs by architecture (0400000 on x86-64, 0100000 on ARM):
# the name is the kernel's ABI here, as opener's C library has it.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == (O_RDONLY | O_NOFOLLOW)/ {
	@[comm] = count(); }' -- opener 57 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[opener\]: 57' "$TMP/o" && ok realprog-uapi-constant ||
	fail realprog-uapi-constant "$(cat "$TMP/o" "$TMP/e" | head -5)"

# syscall_name() of the tracepoint's own syscall number.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == (O_RDONLY | O_NOFOLLOW)/ {
	@[syscall_name(args.__syscall_nr)] = count(); }' -- opener 31 > "$TMP/o" 2> "$TMP/e"
grep -qx '@\[openat\]: 31' "$TMP/o" && ok realprog-syscall-name ||
	fail realprog-syscall-name "$(cat "$TMP/o" "$TMP/e" | head -5)"

# ppid and pcomm: sh, run by -c (cpid), forks opener; leader_comm is
# opener's own (one thread).
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == (O_RDONLY | O_NOFOLLOW)/ {
	@[pcomm, leader_comm, ppid == cpid] = count(); }' -- sh -c 'opener 12; true' \
	> "$TMP/o" 2> "$TMP/e"
grep -qx '@\[sh, opener, true\]: 12' "$TMP/o" && ok realprog-ppid-pcomm ||
	fail realprog-ppid-pcomm "$(cat "$TMP/o" "$TMP/e" | head -5)"

# reg(): a register by the probe's own fetch argument.  At a uprobe on a
# function, the instruction pointer is the function's first byte (usym
# names it, the process gone or not) and the first argument's register
# holds uprobe-target's 1000, 1001, 1002.
U=$(command -v uprobe-target)
case $(uname -m) in
x86_64) ip=ip a0=di ;; aarch64) ip=pc a0=r0 ;; arm*) ip=pc a0=r0 ;; *) ip= ;;
esac
if has_uprobes && [ -n "$U" ]; then
	if [ -n "$ip" ]; then
		"$FTR" -e 'uprobe:'"$U"':ftr_target { @[usym(reg("'$ip'")), reg("'$a0'") - 1000] = count(); }' \
			-c "$U 3" > "$TMP/o" 2> "$TMP/e"
		[ "$(grep -c '^@\[ftr_target, [012]\]: 1$' "$TMP/o")" = 3 ] && ok realprog-reg-uprobe ||
			fail realprog-reg-uprobe "$(cat "$TMP/o" "$TMP/e" | head -5)"
	else
		skip realprog-reg-uprobe "no register names for $(uname -m)"
	fi
else
	skip realprog-reg-uprobe "no uprobe events on this kernel"
fi
# At a kprobe, the kernel's: do_nanosleep's first instruction.
if has_kprobes && [ -n "$ip" ]; then
	"$FTR" -e 'kprobe:do_nanosleep /comm == "sleep"/ { @[ksym(reg("'$ip'"))] = count(); }' \
		-- sleep 0.1 > "$TMP/o" 2> "$TMP/e"
	grep -qx '@\[do_nanosleep\]: 1' "$TMP/o" && ok realprog-reg-kprobe ||
		fail realprog-reg-kprobe "$(cat "$TMP/o" "$TMP/e" | head -5)"
else
	skip realprog-reg-kprobe "no kprobe events on this kernel"
fi
# A tracepoint's record holds no registers: refused, naming where they are.
"$FTR" -e 'tracepoint:syscalls:sys_enter_openat { @ = reg("sp"); }' > "$TMP/o" 2> "$TMP/e"
[ $? = 1 ] && grep -q 'reads a register at kprobe, kretprobe, uprobe and uretprobe events' "$TMP/e" &&
	ok realprog-reg-refused || fail realprog-reg-refused "$(cat "$TMP/e" | head -3)"

# A struct-valued variable read by member only: the members it names, read
# at the event, not the whole struct (40 members, more than a clause reads).
S=$(command -v structs)
if has_uprobes && [ -n "$S" ]; then
	big="struct big {"
	for i in $(seq 0 39); do big="$big long a$i;"; done
	"$FTR" -e "$big }; struct rec { char tag; int id; };
		uprobe:$S:ftr_struct_probe { \$b = *(struct big *)arg0; \$r = *(struct rec *)arg0;
		@[\$r.id - 100] = sum(\$b.a1 & 0xffff); }" -c "$S 3" > "$TMP/o" 2> "$TMP/e"
	grep -qx '@\[2\]: 2' "$TMP/o" && grep -qx '@\[1\]: 1' "$TMP/o" && ok realprog-struct-var ||
		fail realprog-struct-var "$(cat "$TMP/o" "$TMP/e" | head -5)"
else
	skip realprog-struct-var "no uprobe events on this kernel"
fi

# A pointer kept in a map at the entry and read through at the return:
# refused, naming why and what works (never read at the entry instead).
if has_uprobes && [ -n "$U" ]; then
	"$FTR" -e 'uprobe:'"$U"':ftr_target { @p[tid] = arg0; }
		uretprobe:'"$U"':ftr_target { $f = (uint64 *)@p[tid]; @ = *$f; }' -c "$U 1" \
		> "$TMP/o" 2> "$TMP/e"
	[ $? = 1 ] && grep -q 'a pointer from a map (stored at another event: read through it at the probe that stores it)' "$TMP/e" &&
		ok realprog-map-pointer-refused ||
		fail realprog-map-pointer-refused "$(head -3 "$TMP/e")"
else
	skip realprog-map-pointer-refused "no uprobe events on this kernel"
fi

# The same at a kprobe and its kretprobe: the map holds vfs_open's entry
# argument (struct file *), which a kernel from 6.10 fetches in the return
# probe itself ($argN there); the dentry name is read at the return, as
# bpftrace reads it, through the stored pointer.  Older kernels: refused,
# naming the kernel feature.
prog='kprobe:vfs_open /comm == "opener"/ { @file[tid] = arg1; }
	kretprobe:vfs_open /@file[tid]/ { $file = (struct file *)@file[tid];
	@[str($file->f_path.dentry->d_name.name), $file == @file[tid]] = count();
	delete(@file[tid]); }'
if has_kprobes && [ -e /sys/kernel/btf/vmlinux ] && grep -q ' vfs_open$' /proc/kallsyms; then
	: > "$TMP/ftr-entry-arg"
	"$FTR" -e "$prog" -- opener 7 "$TMP/ftr-entry-arg" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	if grep -q 'return probes support: $retval, $arg<N>' "$T/README"; then
		[ $rc = 0 ] && grep -qx '@\[ftr-entry-arg, true\]: 7' "$TMP/o" &&
			ok realprog-entry-arg-at-return ||
			fail realprog-entry-arg-at-return "$(cat "$TMP/o" "$TMP/e" | head -5)"
	else
		[ $rc = 1 ] && grep -q 'fetches no entry argument in a return probe' "$TMP/e" &&
			ok realprog-entry-arg-refused ||
			fail realprog-entry-arg-refused "$(cat "$TMP/o" "$TMP/e" | head -5)"
	fi
else
	skip realprog-entry-arg-at-return "no kprobe events, BTF or vfs_open on this kernel"
fi

# Kernel globals at events: read-only data (.rodata) is the same at the
# event and when ftr reads it from /proc/kcore.  linux_banner starts
# "Linux ve" (0x65762078756e694c, little-endian); sys_call_table's entry
# for openat is its syscall function (64-bit kernels: 8-byte entries).
prog='tracepoint:syscalls:sys_enter_openat /args.flags == (O_RDONLY | O_NOFOLLOW)/ {
	@[*kaddr("linux_banner")] = count(); } END { printf("%lx\n", *kaddr("linux_banner")); }'
if grep -q ' linux_banner$' /proc/kallsyms 2>/dev/null && head -c 4 /proc/kcore > /dev/null 2>&1; then
	"$FTR" -e "$prog" -- opener 5 > "$TMP/o" 2> "$TMP/e"
	grep -qx '@\[7311066746820913484\]: 5' "$TMP/o" && grep -qx 65762078756e694c "$TMP/o" &&
		ok realprog-rodata-at-event ||
		fail realprog-rodata-at-event "$(cat "$TMP/o" "$TMP/e" | head -5)"
	case $(uname -m) in x86_64) want=__x64_sys_openat ;; aarch64) want=__arm64_sys_openat ;;
	*) want= ;; esac
	if [ -n "$want" ] && grep -q ' sys_call_table$' /proc/kallsyms; then
		"$FTR" -e 'tracepoint:syscalls:sys_enter_openat /args.flags == (O_RDONLY | O_NOFOLLOW)/ {
			@[ksym(*(kaddr("sys_call_table") + args.__syscall_nr * 8))] = count(); }' \
			-- opener 4 > "$TMP/o" 2> "$TMP/e"
		grep -qx "@\[$want\]: 4" "$TMP/o" && ok realprog-sys-call-table ||
			fail realprog-sys-call-table "$(cat "$TMP/o" "$TMP/e" | head -5)"
	else
		skip realprog-sys-call-table "no 64-bit sys_call_table in /proc/kallsyms"
	fi
	# writable data changes while the program runs: refused at events
	"$FTR" -e 'tracepoint:syscalls:sys_enter_openat { @ = *kaddr("jiffies"); }' \
		> "$TMP/o" 2> "$TMP/e"
	[ $? = 1 ] && grep -q 'writable kernel data' "$TMP/e" && ok realprog-writable-refused ||
		fail realprog-writable-refused "$(head -3 "$TMP/e")"
else
	"$FTR" -e "$prog" -- opener 5 > "$TMP/o" 2> "$TMP/e"
	[ $? = 1 ] && grep -q -E 'CONFIG_KALLSYMS_ALL|/proc/kcore|kptr_restrict' "$TMP/e" &&
		ok realprog-rodata-refused || fail realprog-rodata-refused "$(head -3 "$TMP/e")"
	skip realprog-rodata-at-event "no linux_banner in /proc/kallsyms or no /proc/kcore"
fi

# rawtracepoint: the tracepoint's trace event where the clause reads none
# of its raw arguments; one that does is refused, naming why.
"$FTR" -e 'rt:sched_process_exec /comm == "opener"/ { @[probe] = count(); }' -- opener 1 \
	> "$TMP/o" 2> "$TMP/e"
grep -qx '@\[rawtracepoint:vmlinux:sched_process_exec\]: 1' "$TMP/o" && ok realprog-rawtracepoint ||
	fail realprog-rawtracepoint "$(cat "$TMP/o" "$TMP/e" | head -5)"
"$FTR" -e 'rawtracepoint:sched_switch { @[arg0] = count(); }' > "$TMP/o" 2> "$TMP/e"
[ $? = 1 ] && grep -q "a raw tracepoint's arguments are its TP_PROTO arguments" "$TMP/e" &&
	ok realprog-rawtracepoint-args-refused ||
	fail realprog-rawtracepoint-args-refused "$(head -3 "$TMP/e")"

same_as_before realprog-leaves-tracefs "$TMP/before"
