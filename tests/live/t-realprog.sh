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

same_as_before realprog-leaves-tracefs "$TMP/before"
