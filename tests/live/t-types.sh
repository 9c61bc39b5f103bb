# C types (ctypes.c, fetchargs.c): struct members read at the event by probe
# fetch arguments, with types from the kernel's BTF, a --btf file, or the
# program's own definitions.
. "$LIVE_DIR/lib.sh"
require_tracing types
snapshot > "$TMP/before"

# No BTF: a member of a kernel struct is refused, naming the remedy.
PROG='kprobe:vfs_write /comm == "dd"/ { @[str(((struct file *)arg0)->f_path.dentry->d_name.name)] = count(); }'
FTR_VMLINUX_BTF=/nonexistent "$FTR" -e "$PROG" > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q 'struct file is declared but not defined here: this kernel has no BTF' "$TMP/e" &&
	grep -q -- '--btf FILE' "$TMP/e" && grep -q '^ftr: error: 1:[0-9]*:' "$TMP/e" &&
	ok types-no-btf-refused || fail types-no-btf-refused "rc=$rc $(head -2 "$TMP/e")"

# A program's struct around a kernel one (bpftrace's tools without BTF:
# runqlen's load_weight, dcsnoop's path) and a kernel enumerator
# (tcplife's TCP_FIN_WAIT1): refused, naming the missing BTF and --btf.
FTR_VMLINUX_BTF=/nonexistent "$FTR" -e 'struct path; struct nd { struct path path; int x; };
kprobe:vfs_write { @[((struct nd *)arg0)->x, TCP_FIN_WAIT1] = count(); }' > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q "member 'path' has an incomplete type: this kernel has no BTF" "$TMP/e" &&
	grep -q -- '--btf FILE' "$TMP/e" && ok types-no-btf-member-refused ||
	fail types-no-btf-member-refused "rc=$rc $(head -2 "$TMP/e")"
FTR_VMLINUX_BTF=/nonexistent "$FTR" -e 'kprobe:vfs_write { @[TCP_FIN_WAIT1] = count(); }' > "$TMP/o" 2> "$TMP/e"
rc=$?
[ $rc -eq 1 ] && grep -q "unknown name 'TCP_FIN_WAIT1': .*; this kernel has no BTF" "$TMP/e" &&
	ok types-no-btf-enum-refused || fail types-no-btf-enum-refused "rc=$rc $(head -2 "$TMP/e")"

# Integer casts truncate as C does; sizeof of a program's struct.
"$FTR" -e 'enum e { E_A = 5, E_B }; struct s { int a; char b[3]; }; BEGIN { printf("%d %d %d %d %d %d %d\n", (uint8)300, (int8)255, (u16)-1, sizeof(struct s), sizeof(u32), E_B, AF_INET6); exit(); }' \
	> "$TMP/o" 2> "$TMP/e"
grep -qx '44 -1 65535 8 4 6 10' "$TMP/o" && ok types-int-casts ||
	fail types-int-casts "$(head -2 "$TMP/o" "$TMP/e")"

# The program's own struct (in the #ifndef BPFTRACE_HAVE_BTF block of
# bpftrace's tools), read at a uprobe: tests/helpers/structs.c calls
# ftr_struct_probe 10 times with known values.
cat > "$TMP/rec.bt" <<'EOF'
#include <linux/types.h>
#define LABEL_LEN 12
#ifndef BPFTRACE_HAVE_BTF
struct inner {
	short s;
	long l;
};
struct rec {
	char tag;
	int id;
	struct inner in;
	unsigned int flags : 3, kind : 5;
	unsigned char arr[5];
	const char *name;
	char label[LABEL_LEN];
	union {
		int u32;
		char c;
	} un;
};
#endif
/* rec's first 28 bytes, its bitfields signed: flags i%8 and kind 3i%32 in 3
 * and 5 bits, read unsigned as bpftrace reads every bitfield: they sum to 29
 * and 135 (a signed read would give -3 and 7), the least kind is 0. */
struct rec_s {
	char tag;
	int id;
	short s;
	long l;
	int flags : 3, kind : 5;
};
uprobe:structs:ftr_struct_probe {
	$r = (struct rec *)arg0;
	@ids = sum($r->id);
	@l = sum($r->in.l);
	@fl[$r->flags, $r->kind] = count();
	@name[str($r->name)] = count();
	@lab[str($r->label)] = count();
	@lab2[$r->label] = count();
	@a = sum($r->arr[2]);
	@u = sum((*$r).un.u32);
	@s = sum(sizeof(struct rec));
	@fs = sum(((struct rec_s *)arg0)->flags);
	@ks = sum(((struct rec_s *)arg0)->kind);
	@kmin = min(((struct rec_s *)arg0)->kind);
}
EOF
rec_ok() {
	grep -qx '@ids: 1045' "$1" && grep -qx '@l: 10000000000045' "$1" &&
		grep -qx '@fl\[1, 27\]: 1' "$1" && grep -qx '@fl\[0, 24\]: 1' "$1" &&
		grep -qx '@name\[even\]: 5' "$1" && grep -qx '@name\[odd\]: 5' "$1" &&
		grep -qx '@lab\[lab-0\]: 4' "$1" && grep -qx '@lab\[lab-2\]: 3' "$1" &&
		grep -qx '@lab2\[lab-1\]: 3' "$1" &&
		grep -qx '@a: 45' "$1" && grep -qx '@u: 315' "$1" && grep -qx '@s: 560' "$1" &&
		grep -qx '@fs: 29' "$1" && grep -qx '@ks: 135' "$1" && grep -qx '@kmin: 0' "$1"
}
if ! has_uprobes; then
	skip types-program-struct "no uprobe events on this kernel"
else
	FTR_VMLINUX_BTF=/nonexistent "$FTR" run "$TMP/rec.bt" -- structs 10 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && rec_ok "$TMP/o" && ok types-program-struct ||
		fail types-program-struct "rc=$rc $(head -3 "$TMP/e") $(tr '\n' ' ' < "$TMP/o" | head -c 300)"
	# --explain shows each fetch argument by its source.
	FTR_VMLINUX_BTF=/nonexistent "$FTR" run -E "$TMP/rec.bt" > "$TMP/x" 2>&1
	grep -q 't1=+4(%[a-z0-9]*):s32  <- \$r->id' "$TMP/x" &&
		grep -q 't3=+24(%[a-z0-9]*):b3@0/8  <- \$r->flags' "$TMP/x" &&
		grep -q 't5=+0(+32(%[a-z0-9]*)):string  <- \$r->name' "$TMP/x" &&
		ok types-explain || fail types-explain "$(grep -A4 'memory read' "$TMP/x" | head -5)"
	# ntop() of a u8[4]/u8[16] member (tcpconnect's skc_v6_daddr...u6_addr8)
	# fetches the bytes (u8[N]), not the string other char arrays are:
	# ftr_target_str's argument is "hello-ftr".
	# (the bytes are an array fetch, TYPE[N], which the probes have from 5.1)
	if ! grep -q 'array-size' "$T/README"; then
		skip types-ntop-array "no array types (TYPE[N], 5.1) in this kernel's probes"
	else
		FTR_VMLINUX_BTF=/nonexistent "$FTR" run -e 'struct A { unsigned char a[16]; };
		struct B { unsigned char b[4]; };
		uprobe:uprobe-target:ftr_target_str { printf("%s %s\n", ntop(((struct A *)arg0)->a),
			ntop(((struct B *)arg0)->b)); }' -- uprobe-target > "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc -eq 0 ] && grep -q '^6865:6c6c:6f2d:6674:7200:[0-9a-f:]* 104\.101\.108\.108$' "$TMP/o" &&
			ok types-ntop-array || fail types-ntop-array "rc=$rc $(head -2 "$TMP/e") $(head -2 "$TMP/o")"
	fi
	# bswap() swaps the bytes of its argument's type (tcpconnect's u16
	# skc_dport, also through a variable): "he" is 0x6568, swapped 0x6865.  %lx: %x prints
# 32 bits, as C and bpftrace.
	FTR_VMLINUX_BTF=/nonexistent "$FTR" run -e 'struct P { unsigned short port; };
	uprobe:uprobe-target:ftr_target_str { $p = (struct P *)arg0; $d = $p->port; $d = bswap($d);
		printf("%d %d %d %d %lx\n", $p->port, bswap($p->port), $d, bswap((uint16)arg1),
		       bswap(0x0102030405060708)); }' -- uprobe-target > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '25960 26725 26725 2560 807060504030201' "$TMP/o" &&
		ok types-bswap || fail types-bswap "rc=$rc $(head -2 "$TMP/e") $(head -2 "$TMP/o")"
	# A read through a NULL pointer is 0, as in bpftrace (the kernel's
	# failed fetch leaves the record's bytes unwritten): structs --links 4
	# calls ftr_link_probe with NULL, a {NULL, 5} and b {&a, 7}, 4 times;
	# the predicate on such a read stays out of the kernel's filter.
	FTR_VMLINUX_BTF=/nonexistent "$FTR" run -e 'struct link { struct link *next; long v; };
	uprobe:structs:ftr_link_probe { @v = sum(((struct link *)arg0)->v);
		@c[((struct link *)arg0)->next->v] = count(); }
	uprobe:structs:ftr_link_probe /((struct link *)arg0)->next->v == 0/ { @z = count(); }' \
		-- structs --links 4 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@v: 48' "$TMP/o" && grep -qx '@c\[0\]: 8' "$TMP/o" &&
		grep -qx '@c\[5\]: 4' "$TMP/o" && grep -qx '@z: 8' "$TMP/o" &&
		[ "$(grep -c '^@c' "$TMP/o")" = 2 ] && ok types-uprobe-null ||
		fail types-uprobe-null "rc=$rc $(head -2 "$TMP/e") $(tr '\n' ' ' < "$TMP/o" | head -c 300)"
	# A --btf file made by pahole from the helper's DWARF: the same reads
	# without a definition in the program (pahole exists on build hosts,
	# not in the test guests).
	bin=$(command -v structs)
	if command -v pahole > /dev/null 2>&1 && pahole --btf_encode_detached="$TMP/s.btf" "$bin" 2>/dev/null &&
	   [ -s "$TMP/s.btf" ]; then
		sed '/^#ifndef/,/^#endif/d' "$TMP/rec.bt" > "$TMP/rec2.bt"
		"$FTR" run --btf "$TMP/s.btf" "$TMP/rec2.bt" -- structs 10 > "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc -eq 0 ] && rec_ok "$TMP/o" && ok types-btf-file ||
			fail types-btf-file "rc=$rc $(head -3 "$TMP/e")"
	else
		skip types-btf-file "no pahole here to make a BTF file"
	fi
	# What a fetch argument cannot express is refused with its position.
	"$FTR" run -e 'struct s { int a; }; uprobe:structs:ftr_struct_probe { $i = 1; @ = sum(((struct s *)arg0)[$i].a); }' \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q '^ftr: error: 1:[0-9]*: the index must be a constant' "$TMP/e" &&
		ok types-refused-index || fail types-refused-index "rc=$rc $(head -2 "$TMP/e")"
fi

# A module's kfunc where the module is not loaded: refused, naming it.
if [ -r /sys/kernel/btf/vmlinux ]; then
	"$FTR" -e 'kfunc:ftrnomod:ftr_nofn { @ = count(); }' > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q "module 'ftrnomod' is not loaded (no /sys/kernel/btf/ftrnomod)" "$TMP/e" &&
		ok types-kfunc-module-missing || fail types-kfunc-module-missing "rc=$rc $(head -2 "$TMP/e")"
fi

# A kernel built without BTF (the matrix's bpfless row): a kfunc program
# is refused, naming the missing BTF and --btf, with no override in play.
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	"$FTR" -e 'kfunc:vfs_write { @ = sum(args->count); }' > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'kfunc:vfs_write: this kernel has no BTF (no /sys/kernel/btf/vmlinux)' "$TMP/e" &&
		grep -q -- '--btf FILE' "$TMP/e" && ok types-kfunc-no-btf-refused ||
		fail types-kfunc-no-btf-refused "rc=$rc $(head -2 "$TMP/e")"
fi

# The same kernel's types from a file: FTR_KERNEL_BTF is the BTF that
# `pahole -J` made on the build machine from this kernel's vmlinux (the
# matrix's bpfless-btf row).  With --btf, the kfunc program and the kernel
# struct read work.  Where the kernel has BTF, its own file is given.
btff=${FTR_KERNEL_BTF:-}
[ -z "$btff" ] && [ -r /sys/kernel/btf/vmlinux ] && btff=/sys/kernel/btf/vmlinux
if [ -z "$btff" ]; then
	skip types-kernel-btf-file "no BTF of this kernel (FTR_KERNEL_BTF, /sys/kernel/btf/vmlinux)"
elif ! has_kprobes; then
	skip types-kernel-btf-file "no kprobe events on this kernel"
else
	"$FTR" run --btf "$btff" -e 'kfunc:vfs_write /comm == "dd" && args->count == 512/ { @ = count(); }' \
		-- dd if=/dev/zero of="$TMP/ftr-btf-kfunc" bs=512 count=37 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@: 37' "$TMP/o" && ok types-kernel-btf-file-kfunc ||
		fail types-kernel-btf-file-kfunc "rc=$rc $(head -3 "$TMP/e") $(head -3 "$TMP/o" | tr '\n' ' ')"
	"$FTR" run --btf "$btff" -e "$PROG" -- dd if=/dev/zero of="$TMP/ftr-btf-file" bs=512 count=23 \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@\[ftr-btf-file\]: 23' "$TMP/o" && ok types-kernel-btf-file-struct ||
		fail types-kernel-btf-file-struct "rc=$rc $(head -3 "$TMP/e") $(head -3 "$TMP/o" | tr '\n' ' ')"
	# The same file as the kernel's own for every run (FTR_VMLINUX_BTF,
	# which doctor names): a program written for BTF runs unchanged.
	FTR_VMLINUX_BTF=$btff "$FTR" run -e "$PROG" -- dd if=/dev/zero of="$TMP/ftr-btf-env" bs=512 count=19 \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	FTR_VMLINUX_BTF=$btff "$FTR" doctor > "$TMP/d" 2>&1
	[ $rc -eq 0 ] && grep -qx '@\[ftr-btf-env\]: 19' "$TMP/o" &&
		grep -q "^btf  *$btff (FTR_VMLINUX_BTF)" "$TMP/d" && ok types-kernel-btf-env ||
		fail types-kernel-btf-env "rc=$rc $(head -3 "$TMP/e") $(head -3 "$TMP/o" | tr '\n' ' ') $(grep '^btf' "$TMP/d")"
	rm -f "$TMP/ftr-btf-kfunc" "$TMP/ftr-btf-file" "$TMP/ftr-btf-env"
fi

# The kernel's BTF: struct file at vfs_write, kfunc arguments.
if [ ! -r /sys/kernel/btf/vmlinux ]; then
	skip types-kernel "no /sys/kernel/btf/vmlinux on this kernel"
elif ! has_kprobes; then
	skip types-kernel "no kprobe events on this kernel"
else
	"$FTR" -e "$PROG" -- dd if=/dev/zero of="$TMP/ftr-types-out" bs=512 count=37 \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@\[ftr-types-out\]: 37' "$TMP/o" && ok types-vfs-write-file ||
		fail types-vfs-write-file "rc=$rc $(head -3 "$TMP/e") $(head -4 "$TMP/o" | tr '\n' ' ')"

	cat > "$TMP/fs.bt" <<'EOF'
#include <linux/fs.h>
kprobe:vfs_write /comm == "dd"/ {
	$f = (struct file *)arg0;
	@[str($f->f_path.dentry->d_name.name)] = count();
	@bytes = sum(arg2);
}
EOF
	"$FTR" run "$TMP/fs.bt" -- dd if=/dev/zero of="$TMP/ftr-types-var" bs=1k count=23 \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@\[ftr-types-var\]: 23' "$TMP/o" && ok types-include-var ||
		fail types-include-var "rc=$rc $(head -3 "$TMP/e") $(head -4 "$TMP/o" | tr '\n' ' ')"

	# A read through a NULL pointer at a kprobe is 0: vfs_write's pos is
	# NULL for a pipe (FMODE_STREAM), else the file's offset; 1-byte writes
	# of dd: 3 to a pipe, 3 to a file (offsets 0, 1, 2).  (On a fresh ring
	# buffer the bytes a failed fetch leaves are often 0 anyway: the code
	# before the fix passed this on 6.1; types-uprobe-null read a leftover
	# 5 there, and on the host.)
	"$FTR" -e 'struct lp { long long pos; };
	kprobe:vfs_write /comm == "dd" && arg2 == 1/ { @[((struct lp *)arg3)->pos] = count(); }
	kprobe:vfs_write /comm == "dd" && arg2 == 1 && ((struct lp *)arg3)->pos == 0/ { @z = count(); }' \
		-- sh -c "dd if=/dev/zero bs=1 count=3 2>/dev/null | cat > /dev/null; dd if=/dev/zero of=$TMP/lp bs=1 count=3 2>/dev/null" \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	rm -f "$TMP/lp"
	[ $rc -eq 0 ] && grep -qx '@\[0\]: 4' "$TMP/o" && grep -qx '@\[1\]: 1' "$TMP/o" &&
		grep -qx '@\[2\]: 1' "$TMP/o" && grep -qx '@z: 4' "$TMP/o" &&
		[ "$(grep -c '^@\[' "$TMP/o")" = 3 ] && ok types-kprobe-null ||
		fail types-kprobe-null "rc=$rc $(head -2 "$TMP/e") $(tr '\n' ' ' < "$TMP/o" | head -c 300)"

	# kfunc/kretfunc are fprobe events where the kernel has them (6.x),
	# kprobes elsewhere; args->NAME is the kernel's own BTF argument name
	# where its README lists <argname> (6.8+), ftr's $argN elsewhere (the
	# same values: types-kfunc-hist).
	"$FTR" -E -e 'kfunc:vfs_write { @ = sum(args->count); }' > "$TMP/x" 2>&1
	kind=p arg='[$]arg3' note=
	grep -qF 'f[:[<group>/][<event>]]' "$T/README" && kind=f
	grep -qF '<argname>' "$T/README" && arg=count note="BTF names: count (else [$]arg3)"
	want="'$kind:ftr_[0-9_]*/vfs_write vfs_write .*t0=$arg:u64"
	grep -q "$want" "$TMP/x" && grep -q "$note" "$TMP/x" && ok types-kfunc-event ||
		fail types-kfunc-event "want $want, $note: $(grep -e dynamic_events -e 'names:' "$TMP/x" | head -3)"

	# A kfunc run killed after each of its first kernel changes: `ftr reset`
	# removes what it left, an fprobe event (which libtracefs cannot list)
	# included.
	good=1 sawf=0 n=1
	while [ $n -le 4 ]; do
		FTR_TEST_KILL_AFTER=$n "$FTR" -e 'kfunc:vfs_write { @ = count(); }' -- true \
			> /dev/null 2>&1
		[ $? -eq 137 ] || break
		grep -q '^f:ftr_' "$T/dynamic_events" && sawf=1
		"$FTR" reset > /dev/null 2>&1
		grep -q '^[a-z]:ftr_' "$T/dynamic_events" && good=0
		n=$((n + 1))
	done
	wantf=0
	grep -qF 'f[:[<group>/][<event>]]' "$T/README" && wantf=1
	[ $good = 1 ] && [ $n -gt 1 ] && [ $sawf = $wantf ] && ok types-kfunc-killed-reset ||
		fail types-kfunc-killed-reset "good=$good kills=$((n - 1)) f-events-seen=$sawf want $wantf"

	# S4 at kfunc: the seed's write-size histogram from vfs_write's count,
	# and the files' names through args->file.
	"$FTR" -e 'kfunc:vfs_write /comm == "dd"/ { @bytes = hist(args->count);
		@n[str(args->file->f_path.dentry->d_name.name)] = count(); }' \
		-- sh -c "dd if=/dev/zero of=$TMP/z1 bs=4k count=2000 2>/dev/null; dd if=/dev/zero of=$TMP/z2 bs=1M count=60 2>/dev/null" \
		> "$TMP/h" 2> "$TMP/e"
	rc=$?
	rm -f "$TMP/z1" "$TMP/z2"
	b4=$(sed -n 's/^\[4K, 8K) *\([0-9]*\) .*/\1/p' "$TMP/h")
	b1=$(sed -n 's/^\[1M, 2M) *\([0-9]*\) .*/\1/p' "$TMP/h")
	[ $rc -eq 0 ] && [ "$b4" = 2000 ] && [ "$b1" = 60 ] && grep -qx '@n\[z1\]: 2000' "$TMP/h" &&
		! grep -q 'refuses an fprobe' "$TMP/e" &&
		grep -qx '@n\[z2\]: 60' "$TMP/h" && ok types-kfunc-hist ||
		fail types-kfunc-hist "rc=$rc [4K,8K) ${b4:-none} [1M,2M) ${b1:-none} $(head -3 "$TMP/e")"

	# kretfunc: retval typed by the prototype (ssize_t), the writes' sizes.
	"$FTR" -e 'kretfunc:vfs_write /comm == "writer"/ { @ret = sum(retval); @n = count(); }' \
		-- writer 50 3 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 0 ] && grep -qx '@ret: 150' "$TMP/o" && grep -qx '@n: 50' "$TMP/o" &&
		! grep -q 'refuses an fprobe' "$TMP/e" &&
		ok types-kretfunc-retval || fail types-kretfunc-retval "rc=$rc $(head -3 "$TMP/e") $(tr '\n' ' ' < "$TMP/o")"
fi

# Reads through a tracepoint's pointer fields (tcpdrop.bt's skb->sk, naptime.bt's
# args->rqtp->tv_sec): an eprobe on the event fetches them (fetchargs.c, strfetch.c).
if ! "$FTR" doctor 2> /dev/null | grep -q '^yes *eprobe events'; then
	# No eprobe events (5.10, this host): refused by name, at the cast.
	"$FTR" -e 'struct ts { long long s, ns; };
tracepoint:syscalls:sys_enter_clock_nanosleep { @ = sum(((struct ts *)args->rqtp)->ns); }' \
		> "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q '^ftr: error: 2:[0-9]*: a cast to a pointer reads memory, which ftr does at a tracepoint through an eprobe on it (Linux 5.15 on), and this kernel has no eprobe events' "$TMP/e" &&
		ok types-tp-no-eprobes || fail types-tp-no-eprobes "rc=$rc $(head -2 "$TMP/e")"
	skip types-tp-user "no eprobe events on this kernel"
	skip types-tp-kernel "no eprobe events on this kernel"
else
	# User memory at a syscall: timers' 3 clock_nanosleeps of { 0, 10000 },
	# through the program's struct and, with BTF, the format's own type.
	P='struct ts { long long s, ns; };
tracepoint:syscalls:sys_enter_clock_nanosleep /comm == "timers"/ {
	@p[((struct ts *)args->rqtp)->s, ((struct ts *)args->rqtp)->ns] = count();'
	want='@p[0, 10000]: 3'
	if [ -e /sys/kernel/btf/vmlinux ]; then
		P="$P"' @b[args->rqtp->tv_sec, args->rqtp->tv_nsec] = count();'
		want="$want @b[0, 10000]: 3"
	fi
	"$FTR" -e "$P }" -- timers 3 0 0 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	got=$(grep '^@' "$TMP/o" | sort -r | tr '\n' ' ')
	[ $rc -eq 0 ] && [ "$got" = "$want " ] && ok types-tp-user ||
		fail types-tp-user "rc=$rc got '$got' want '$want' $(head -3 "$TMP/e")"

	# Kernel memory: the sock behind inet_sock_set_state's skaddr when a
	# listener on port 7777 goes to LISTEN (10): its port, its state
	# before the change (TCP_CLOSE, 7), its family as the event's.
	if command -v busybox > /dev/null 2>&1; then NC="busybox nc"; else NC=nc; fi
	if [ ! -e /sys/kernel/btf/vmlinux ]; then
		skip types-tp-kernel "no /sys/kernel/btf/vmlinux on this kernel"
	elif ! $NC --help 2>&1 | grep -q -- '-l'; then
		skip types-tp-kernel "no nc to listen with"
	else
		"$FTR" -e 'tracepoint:sock:inet_sock_set_state /args->sport == 7777 && args->newstate == 10/ {
	$sk = (struct sock *)args->skaddr;
	@[$sk->__sk_common.skc_num, $sk->__sk_common.skc_state,
	  $sk->__sk_common.skc_family == args->family] = count(); }' \
			-- sh -c "$NC -l -p 7777 > /dev/null 2>&1 & sleep 0.3; kill \$!" \
			> "$TMP/o" 2> "$TMP/e"
		rc=$?
		[ $rc -eq 0 ] && [ "$(grep '^@' "$TMP/o")" = '@[7777, 7, true]: 1' ] &&
			ok types-tp-kernel ||
			fail types-tp-kernel "rc=$rc $(head -3 "$TMP/o" "$TMP/e")"
	fi
fi

# Kernel memory in a profile clause (runqlen.bt): an eprobe on
# timer:hrtimer_expire_entry, filtered to perf's cpu-clock timer, takes the
# clause (events.c, hrprof_clause).  A kernel variable's member of known
# value (init_uts_ns's "Linux"), read in each of hotpath's samples: one
# key, comm the sampled task's, about 999 samples for its 1 s of CPU (the
# bound of langprof-sample-count).
P='profile:hz:999 { @[comm, ((struct uts_namespace *)kaddr("init_uts_ns"))->name.sysname] = count(); }'
if ! "$FTR" doctor 2> /dev/null | grep -q '^yes *eprobe events'; then
	"$FTR" -e "$P" > "$TMP/o" 2> "$TMP/e"
	rc=$?
	[ $rc -eq 1 ] && grep -q '^ftr: error: 1:[0-9]*: .*reads memory, which ftr does in a profile clause through an eprobe on timer:hrtimer_expire_entry.*this kernel has no eprobe events' "$TMP/e" &&
		ok types-prof-no-eprobes || fail types-prof-no-eprobes "rc=$rc $(head -2 "$TMP/e")"
	skip types-prof-kernel "no eprobe events on this kernel"
	skip types-prof-kstack "no eprobe events on this kernel"
	skip types-prof-curtask "no eprobe events on this kernel"
elif [ ! -e /sys/kernel/btf/vmlinux ] || ! command -v hotpath > /dev/null 2>&1; then
	why="no /sys/kernel/btf/vmlinux on this kernel"
	[ -e /sys/kernel/btf/vmlinux ] && why="the hotpath helper is not on PATH (make helpers)"
	skip types-prof-kernel "$why"
	skip types-prof-kstack "$why"
	skip types-prof-curtask "$why"
else
	"$FTR" -e "$P" -- hotpath 1000 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	n=$(sed -n 's/^@\[hotpath, Linux\]: \([0-9]*\)$/\1/p' "$TMP/o")
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 999)
	[ "$max" -gt 999 ] && max=999
	if grep -q 'kaddr("init_uts_ns"): no such symbol' "$TMP/e"; then
		skip types-prof-kernel "$(grep -o 'kaddr.*' "$TMP/e")"
	elif [ $rc -eq 0 ] && [ "$(grep -c '^@' "$TMP/o")" = 1 ] && [ -n "$n" ] &&
			[ "$n" -ge $((max / 4)) ] && [ "$n" -le $((max * 3 / 2)) ]; then
		ok types-prof-kernel
	else
		fail types-prof-kernel "rc=$rc n=$n max=$max $(head -3 "$TMP/o" "$TMP/e")"
	fi
	# kstack there starts at the interrupted instruction, as a sample's:
	# dd's copy of /dev/zero, under vfs_read, without the interrupt's frames.
	# (The read: a function's first instruction, never 0: an endbr64, a nop
	# or BTI; functions are in kallsyms without CONFIG_KALLSYMS_ALL.)
	"$FTR" -e 'profile:hz:999 /0 != *(unsigned int *)kaddr("perf_swevent_hrtimer")/ {
	@[kstack] = count(); @p[probe] = count(); }' -- \
		dd if=/dev/zero of=/dev/null bs=64k count=5000 > "$TMP/o" 2> "$TMP/e"
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^        vfs_read+' "$TMP/o" &&
			grep -q '^@p\[profile:hz:999\]: [0-9]' "$TMP/o" &&
			! grep -Eq '^        (eprobe_trigger_func|trace_event_raw_event_hrtimer)' "$TMP/o"; then
		ok types-prof-kstack
	else
		fail types-prof-kstack "rc=$rc $(grep -c vfs_read "$TMP/o") vfs_read, $(grep '^@p' "$TMP/o") $(grep -E -m3 -B3 '(eprobe_trigger_func|trace_event_raw_event_hrtimer)' "$TMP/o" | tr '\n' ' ') $(head -2 "$TMP/e")"
	fi
	# curtask there is the interrupted task (runqlen.bt's $task): on every
	# sample of every CPU its pid is the event's tid (idle's 0 too), and
	# with /pid == X/ only the busy X's is read.
	hotpath 20000 & hp=$!
	"$FTR" -e 'profile:hz:99 { @same[((struct task_struct *)curtask)->pid == tid] = count(); }
profile:hz:99 /pid == '$hp'/ { @[((struct task_struct *)curtask)->pid] = count(); }
interval:s:1 { exit(); }' > "$TMP/o" 2> "$TMP/e"
	rc=$?
	kill $hp 2> /dev/null
	wait $hp 2> /dev/null
	got=$(grep '^@' "$TMP/o" | sed 's/: [0-9]*$//' | sort | tr '\n' ' ')
	if grep -q "curtask" "$TMP/e" && [ $rc -ne 0 ]; then
		skip types-prof-curtask "$(grep -o 'curtask.*' "$TMP/e" | head -1)"
	elif [ $rc -eq 0 ] && [ "$got" = "@[$hp] @same[true] " ]; then
		ok types-prof-curtask
	else
		fail types-prof-curtask "rc=$rc got '$got' want '@[$hp] @same[true]' $(head -3 "$TMP/e")"
	fi
fi

# buf(p, len) and %r at a uprobe: uprobe-target --buf passes known bytes;
# the lines are bpftrace 0.17's for the same program, byte for byte.  The
# last buffer ends a page whose next page is unmapped: the fixed 64-byte
# fetch faults past it, and the 10 bytes asked for still arrive.
if has_uprobes && ! grep -q 'array-size' "$T/README"; then
	skip types-uprobe-buf "no array types (TYPE[N], 5.1) in this kernel's probes, which buf() fetches"
elif has_uprobes && command -v uprobe-target > /dev/null; then
	cat > "$TMP/want" <<'EOF'
<Hi \ "q" %s\x09\x0a\x00\x7f\xff\x80 ~\x86>
<Hi \ "q" %s\x09\x0a\x00\x7f\xff\x80 ~\x86\x8d\x94\x9b\xa2\xa9\xb0\xb7\xbe\xc5\xcc\xd3\xda\xe1\xe8\xef\xf6\xfd\x04\x0b\x12\x19 '.5<CJQX_fmt{\x82\x89\x90\x97\x9e\xa5\xac\xb3\xba>
<>
<Hi \ "q" %s\x09\x0a\x00\x7f\xff\x80 ~\x86\x8d\x94\x9b\xa2\xa9\xb0\xb7\xbe\xc5\xcc\xd3\xda\xe1\xe8\xef\xf6\xfd\x04\x0b\x12\x19 '.5<CJQX_fmt{\x82\x89\x90\x97\x9e\xa5\xac\xb3\xba>
<0123456789>
EOF
	"$FTR" -e "uprobe:$(command -v uprobe-target):ftr_target_buf { printf(\"<%r>\n\", buf(arg0, arg1)); }" \
		-- uprobe-target --buf > "$TMP/o" 2> "$TMP/e"
	rc=$?
	grep '^<' "$TMP/o" > "$TMP/got"
	[ $rc -eq 0 ] && cmp -s "$TMP/got" "$TMP/want" && ok types-uprobe-buf ||
		fail types-uprobe-buf "rc=$rc $(head -3 "$TMP/e") $(head -5 "$TMP/o")"
else
	skip types-uprobe-buf "no uprobe events or no uprobe-target helper"
fi
same_as_before types-clean "$TMP/before"
exit $FAILED
