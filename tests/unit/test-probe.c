// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for probe.c (spec parsing, argument translation, event names,
 * tracepoint suggestions, uprobe paths and offsets), arch.c and elfsym.c.
 *
 * The ELF tests compile tests/helpers/uprobe-target.c at test time with $CC
 * (default cc) as a PIE, a non-PIE, a stripped PIE and a shared library, and
 * check every computed file offset against the one the program itself
 * reports from /proc/self/maps (`uprobe-target --where SYM`).
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/arch.h"
#include "report/elfsym.h"
#include "kernel/features.h"
#include "ftr.h"
#include "kernel/probe.h"
#include "lang/plan/dynprobe.h"
#include "report/ldcache.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif
#define HELPER_SRC FIXTURES "/../helpers/uprobe-target.c"

/* ---- parsing: bad specs first ------------------------------------------------ */

static void bad(const char *text, const char *msg_part, int pos)
{
	struct probe_spec p;
	struct probe_error e;
	int ret = probe_parse(text, &p, &e);

	if (ret != -EINVAL || !strstr(e.msg, msg_part) || (pos >= 0 && e.pos != pos))
		fail_msg("'%s': got %d pos %d '%s', want pos %d and '%s'", text, ret, e.pos,
			 e.msg, pos, msg_part);
}

static void test_parse_bad(void **state)
{
	bad("", "empty probe", 0);
	bad("   ", "empty probe", 0);
	bad("kprobe", "expected ':'", 6);
	bad("kprobe:", "missing function name", 7);
	bad("k:", "missing function name", 2);
	bad("tracepoint:sched:sched_switch", "unknown probe type 'tracepoint'", 0);
	bad("kprobe:9f", "must start with a letter", 7);
	bad("kprobe:vfs_*", "wildcards are not supported", 11);
	bad("kprobe:vfs-write", "invalid character '-'", 10);
	bad("kprobe:f+zz", "bad offset 'zz'", 9);
	bad("kprobe:ext4:", "missing function name after 'ext4:'", 12);
	bad("kretprobe:f+4", "not at an offset", 10);
	bad("kprobe:f x=", "missing value after 'x='", 11);
	bad("kprobe:f =arg0", "missing field name", 9);
	bad("kprobe:f 1x=arg0", "bad field name '1x'", 9);
	bad("kprobe:f x-y=arg0", "bad field name", 9);
	bad("kprobe:f common_pid=arg0", "reserved", 9);
	bad("kprobe:f x=arg0:u128", "unknown type 'u128'", 16);
	bad("kprobe:f x=+0(%di):u8[65]", "unknown type 'u8[65]'", 19);
	bad("kprobe:f x=+0(%di):u8[0]", "unknown type 'u8[0]'", 19);
	bad("kprobe:f x=+0(%di):string[2]", "unknown type 'string[2]'", 19);
	bad("kprobe:f x=+0(%di):u8[4", "unknown type 'u8[4'", 19);
	bad("kprobe:f x=arg0:", "missing type", 16);
	bad("kprobe:f x=:u32", "missing value before ':u32'", 11);
	bad("kprobe:f x=arg16", "out of range: 'arg16'", 11);
	bad("kprobe:f arg99:u8", "out of range", 9);
	bad("kprobe:f x=arg01", "bad argument 'arg01'", 11);
	bad("kprobe:f x=argx", "unknown value 'argx'", 11);
	bad("kprobe:f x=foo", "unknown value 'foo'", 11);
	bad("kprobe:f %di", "needs a field name: NAME=%di", 9);
	bad("kprobe:f x=arg0 x=arg1", "'x' is given twice", 16);
	bad("kprobe:f arg0 arg0:u32", "'arg0' is given twice", 14);
	bad("kprobe:f retval", "only in return probes (kretprobe:)", 9);
	bad("uprobe:/bin/ls:main r=retval", "only in return probes (uretprobe:)", 22);
	bad("kretprobe:f x=arg1", "not available in a kretprobe", 14);
	bad("uretprobe:/bin/ls:main arg0", "probe its entry with uprobe:", 23);
	bad("kprobe:f comm:u32", "'comm' is a string", 9);
	bad("kprobe:f x=\"abc", "unterminated", 9);
	bad("kprobe:f a=arg0 b=arg0 c=arg0 d=arg0 e=arg0 f=arg0 g=arg0 h=arg0 i=arg0 "
	    "j=arg0 k=arg0 l=arg0 m=arg0 n=arg0 o=arg0 p=arg0 q=arg0 r=arg0 s=arg0 t=arg0 u=arg0 "
	    "v=arg0 w=arg0 x=arg0 y=arg0", "too many fields", -1);

	bad("uprobe:/bin/ls", "missing ':SYMBOL' after the path", 14);
	bad("u:", "missing PATH:SYMBOL", 2);
	bad("uprobe::sym", "missing path before ':'", 7);
	bad("uprobe:/bin/ls:", "missing symbol after '/bin/ls:'", 15);
	bad("uprobe:/bin/ls:0xzz", "bad address '0xzz'", 15);
	bad("uprobe:/bin/ls:main+", "bad offset", 20);
	bad("uprobe:/bin/ls:ma*n", "wildcards", 17);
	bad("uretprobe:/bin/ls:main+8", "not at an offset", 18);
	/* Paths the kernel's space-separated "PATH:OFFSET" cannot hold. */
	bad("uprobe:\"/tmp/my prog\":main", "contains a space", 15);
	bad("uprobe:/tmp/my prog:main", "a path containing a space cannot be probed", 14);
	bad("uprobe:/tmp/a:b:main", "a path containing ':' cannot be probed", 15);
	bad("uprobe:/bin/ls arg0:u32", "missing ':SYMBOL'", 14);
}

/* ---- parsing: good specs ------------------------------------------------------ */

static void test_parse_kprobe(void **state)
{
	struct probe_spec p;
	struct probe_error e;

	assert_int_equal(probe_parse("kprobe:vfs_write count=arg2:u64 buf=arg1", &p, &e), 0);
	assert_int_equal(p.kind, PROBE_KPROBE);
	assert_string_equal(p.symbol, "vfs_write");
	assert_string_equal(p.module, "");
	assert_int_equal(p.offset, 0);
	assert_int_equal(p.nargs, 2);
	assert_string_equal(p.args[0].name, "count");
	assert_int_equal(p.args[0].fetch, PF_ARG);
	assert_int_equal(p.args[0].idx, 2);
	assert_string_equal(p.args[0].type, "u64");
	assert_int_equal(p.args[0].pos, 17);
	assert_string_equal(p.args[1].name, "buf");
	assert_string_equal(p.args[1].type, "");

	/* bpftrace's short names, offsets in hex, modules, clones. */
	assert_int_equal(probe_parse("  k:vfs_read+0x10   ", &p, &e), 0);
	assert_int_equal(p.kind, PROBE_KPROBE);
	assert_string_equal(p.symbol, "vfs_read");
	assert_int_equal(p.offset, 16);
	assert_int_equal(probe_parse("kr:do_sys_openat2", &p, &e), 0);
	assert_int_equal(p.kind, PROBE_KRETPROBE);
	assert_int_equal(p.nargs, 0);
	assert_int_equal(probe_parse("kretprobe:do_sys_openat2 ret=retval:s32 comm", &p, &e), 0);
	assert_int_equal(p.args[0].fetch, PF_RETVAL);
	assert_string_equal(p.args[0].type, "s32");
	assert_int_equal(p.args[1].fetch, PF_COMM);
	assert_string_equal(p.args[1].name, "comm");
	assert_int_equal(probe_parse("kprobe:ext4:ext4_sync_file+4", &p, &e), 0);
	assert_string_equal(p.module, "ext4");
	assert_string_equal(p.symbol, "ext4_sync_file");
	assert_int_equal(p.offset, 4);
	assert_int_equal(probe_parse("kprobe:finish_task_switch.isra.0", &p, &e), 0);
	assert_string_equal(p.symbol, "finish_task_switch.isra.0");

	/* Raw fetchargs pass through, the type split at the last ':'. */
	assert_int_equal(probe_parse("kprobe:f a=%di b=+8($stack):u32 c=@jiffies d=$arg1 "
				     "e=+0(%si):ustring f=\\1", &p, &e), 0);
	assert_int_equal(p.nargs, 6);
	assert_string_equal(p.args[0].raw, "%di");
	assert_string_equal(p.args[1].raw, "+8($stack)");
	assert_string_equal(p.args[1].type, "u32");
	assert_string_equal(p.args[2].raw, "@jiffies");
	assert_string_equal(p.args[3].raw, "$arg1");
	assert_string_equal(p.args[4].type, "ustring");
	assert_string_equal(p.args[5].raw, "\\1");
	assert_int_equal(probe_parse("kprobe:f arg15 comm:string", &p, &e), 0);
	assert_int_equal(p.args[0].idx, 15);
}

static void test_parse_uprobe(void **state)
{
	struct probe_spec p;
	struct probe_error e;

	assert_int_equal(probe_parse("uprobe:/usr/bin/bash:readline arg0:string", &p, &e), 0);
	assert_int_equal(p.kind, PROBE_UPROBE);
	assert_string_equal(p.path, "/usr/bin/bash");
	assert_string_equal(p.symbol, "readline");
	assert_int_equal(p.pos_path, 7);
	assert_int_equal(p.pos_symbol, 21);
	assert_false(p.has_addr);
	assert_int_equal(p.nargs, 1);
	assert_string_equal(p.args[0].type, "string");

	assert_int_equal(probe_parse("u:ls:main+4", &p, &e), 0);
	assert_string_equal(p.path, "ls");
	assert_int_equal(p.offset, 4);
	assert_int_equal(probe_parse("ur:libc:malloc", &p, &e), 0);
	assert_int_equal(p.kind, PROBE_URETPROBE);
	assert_string_equal(p.path, "libc");
	assert_int_equal(probe_parse("uretprobe:./build/x:f r=retval:x64", &p, &e), 0);
	assert_string_equal(p.path, "./build/x");
	assert_int_equal(probe_parse("uprobe:/lib/x86_64-linux-gnu/libc.so.6:memcpy@@GLIBC_2.14",
				     &p, &e), 0);
	assert_string_equal(p.path, "/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(p.symbol, "memcpy@@GLIBC_2.14");
	assert_int_equal(probe_parse("uprobe:/bin/x:0x1139 a=arg0", &p, &e), 0);
	assert_true(p.has_addr);
	assert_int_equal(p.addr, 0x1139);
	assert_string_equal(p.symbol, "");
	/* Quotes group; a quoted path without spaces is fine. */
	assert_int_equal(probe_parse("uprobe:\"/bin/x\":f", &p, &e), 0);
	assert_string_equal(p.path, "/bin/x");
	assert_string_equal(p.symbol, "f");
}

/* ---- arch.c ---------------------------------------------------------------------- */

static void test_arch(void **state)
{
	char r[32], sc[64];

	/* syscalls: the wrapper and the saved registers (strfetch.c) */
	assert_int_equal(arch_syscall_wrapper("riscv64", "openat", sc, sizeof(sc)), -ENOTSUP);
	assert_int_equal(arch_syscall_arg_fetch("riscv64", 0, sc, sizeof(sc)), -ENOTSUP);
	assert_int_equal(arch_syscall_arg_fetch("x86_64", 6, sc, sizeof(sc)), -ERANGE);
	assert_int_equal(arch_syscall_arg_fetch("x86_64", -2, sc, sizeof(sc)), -ERANGE);
	assert_int_equal(arch_syscall_wrapper("x86_64", "openat", sc, sizeof(sc)), 0);
	assert_string_equal(sc, "__x64_sys_openat");
	assert_int_equal(arch_syscall_wrapper("arm64", "execve", sc, sizeof(sc)), 0);
	assert_string_equal(sc, "__arm64_sys_execve");
	assert_int_equal(arch_syscall_arg_fetch("x86_64", 3, sc, sizeof(sc)), 0);
	assert_string_equal(sc, "+56(%di)");	/* r10, not cx */
	assert_int_equal(arch_syscall_arg_fetch("x86_64", -1, sc, sizeof(sc)), 0);
	assert_string_equal(sc, "+120(%di)");	/* orig_ax */
	assert_int_equal(arch_syscall_arg_fetch("arm64", 5, sc, sizeof(sc)), 0);
	assert_string_equal(sc, "+40(%x0)");
	assert_int_equal(arch_syscall_arg_fetch("arm64", -1, sc, sizeof(sc)), 0);
	assert_string_equal(sc, "+280(%x0)");	/* syscallno */

	assert_string_equal(arch_normalise("x86_64"), "x86_64");
	assert_string_equal(arch_normalise("aarch64"), "arm64");
	assert_string_equal(arch_normalise("i686"), "x86");
	assert_string_equal(arch_normalise("armv7l"), "arm");
	assert_string_equal(arch_normalise("riscv64"), "riscv64");
	assert_string_equal(arch_normalise("weird9"), "weird9");
	assert_non_null(arch_name());

	assert_int_equal(arch_nr_arg_regs("x86_64"), 6);
	assert_int_equal(arch_nr_arg_regs("arm64"), 8);
	assert_int_equal(arch_nr_arg_regs("riscv64"), 0);
	assert_int_equal(arch_arg_fetch("x86_64", 0, r, sizeof(r)), 0);
	assert_string_equal(r, "%di");
	assert_int_equal(arch_arg_fetch("x86_64", 3, r, sizeof(r)), 0);
	assert_string_equal(r, "%cx");
	assert_int_equal(arch_arg_fetch("x86_64", 5, r, sizeof(r)), 0);
	assert_string_equal(r, "%r9");
	/* The 7th argument: above the return address. */
	assert_int_equal(arch_arg_fetch("x86_64", 6, r, sizeof(r)), 0);
	assert_string_equal(r, "$stack1");
	assert_int_equal(arch_arg_fetch("x86_64", 7, r, sizeof(r)), 0);
	assert_string_equal(r, "$stack2");
	assert_int_equal(arch_arg_fetch("arm64", 7, r, sizeof(r)), 0);
	assert_string_equal(r, "%x7");
	assert_int_equal(arch_arg_fetch("arm64", 8, r, sizeof(r)), 0);
	assert_string_equal(r, "$stack0");
	/* 32-bit ARM: r0-r3, then the stack (lr holds the return address);
	 * no pt_regs syscall wrappers there */
	assert_int_equal(arch_nr_arg_regs("arm"), 4);
	assert_int_equal(arch_arg_fetch("arm", 3, r, sizeof(r)), 0);
	assert_string_equal(r, "%r3");
	assert_int_equal(arch_arg_fetch("arm", 4, r, sizeof(r)), 0);
	assert_string_equal(r, "$stack0");
	assert_true(arch_syscall_direct("arm"));
	assert_false(arch_syscall_direct("arm64"));
	assert_int_equal(arch_syscall_wrapper("arm", "openat", sc, sizeof(sc)), 0);
	assert_string_equal(sc, "sys_openat");
	assert_int_equal(arch_syscall_arg_fetch("arm", 0, sc, sizeof(sc)), -ENOTSUP);
	assert_string_equal(arch_multiarch("arm"), "arm-linux-gnueabihf");
	assert_int_equal(arch_arg_fetch("x86_64", ARCH_MAX_ARG + 1, r, sizeof(r)), -ERANGE);
	assert_int_equal(arch_arg_fetch("riscv64", 0, r, sizeof(r)), -ENOTSUP);
	assert_int_equal(arch_arg_fetch("x86", 0, r, sizeof(r)), -ENOTSUP);
	assert_string_equal(arch_multiarch("arm64"), "aarch64-linux-gnu");
	assert_null(arch_multiarch("weird9"));
}

/* A uprobe's own user stack (arm64): the fetchargs, and the walk over the
 * values a 6.1 arm64 guest gave at hotpath's leaf_b (main -> run -> work_b
 * -> leaf_b; the last record is _start's, fp 0). */
static void test_arch_ustack(void **state)
{
	char name[16], fetch[160], type[16];
	uint64_t ips[16];
	/* lr sp fp, then {next fp, return address} per record */
	uint64_t v[3 + 2 * ARCH_USTACK_RECS] = {
		0x400818, 0xfffff9a006b0, 0xfffff9a006b0,
		0xfffff9a006c0, 0x40087c,		/* run's return into main */
		0xfffff9a006e0, 0x400974,		/* main's into libc */
		0xfffff9a00800, 0x400a58,
		0, 0x400b00,				/* _start's record */
		0x1234, 0x999,				/* stale: never read */
		0x5678, 0x888,
	};
	int n;

	assert_int_equal(arch_ustack_fetch("x86_64", 0, name, sizeof(name), fetch, sizeof(fetch),
					   type, sizeof(type)), -ENOTSUP);
	assert_int_equal(arch_ustack_fetch("arm64", 0, name, sizeof(name), fetch, sizeof(fetch),
					   type, sizeof(type)), 0);
	assert_string_equal(name, "ftr_lr");
	assert_string_equal(fetch, "%x30");
	assert_int_equal(arch_ustack_fetch("arm64", 4, name, sizeof(name), fetch, sizeof(fetch),
					   type, sizeof(type)), 0);
	assert_string_equal(name, "ftr_f2");
	assert_string_equal(fetch, "+0(+0(%x29))");
	assert_string_equal(type, "u64[2]");
	assert_int_equal(arch_ustack_fetch("arm64", 3 + ARCH_USTACK_RECS, name, sizeof(name),
					   fetch, sizeof(fetch), type, sizeof(type)), -ERANGE);

	n = arch_ustack_walk("arm64", 0x400788, true, v, (int)ARRAY_SIZE(v), ips, 16);
	assert_int_equal(n, 6);
	assert_int_equal(ips[0], 0x400788);
	assert_int_equal(ips[1], 0x400818);	/* lr: work_b */
	assert_int_equal(ips[2], 0x40087c);
	assert_int_equal(ips[5], 0x400b00);	/* _start's, then fp 0 ends it */
	/* Not at the entry: lr is not the caller. */
	n = arch_ustack_walk("arm64", 0x4007a0, false, v, (int)ARRAY_SIZE(v), ips, 16);
	assert_int_equal(n, 5);
	assert_int_equal(ips[1], 0x40087c);
	/* A pointer-authentication code above the 48 address bits goes. */
	v[4] |= 0x003d000000000000ull;
	n = arch_ustack_walk("arm64", 0x400788, true, v, (int)ARRAY_SIZE(v), ips, 3);
	assert_int_equal(n, 3);
	assert_int_equal(ips[2], 0x40087c);
	/* A frame pointer below the stack pointer (a general register in code
	 * without frame pointers): the probe's frame and the caller alone. */
	v[2] = 0x1000;
	assert_int_equal(arch_ustack_walk("arm64", 0x400788, true, v, (int)ARRAY_SIZE(v), ips, 16),
			 2);
	/* No table: the probe's address. */
	assert_int_equal(arch_ustack_walk("x86_64", 0x400788, true, v, (int)ARRAY_SIZE(v), ips, 16),
			 1);
}

/* x86's kernel walk at a function's entry, and the caller put back. */
static void test_uentry_ret(void **state)
{
	char fetch[32], type[16];
	uint64_t ips[4] = { 0x401126, 0x401185, 0x7f0000001000 };

	assert_int_equal(arch_uentry_ret_fetch("arm64", fetch, sizeof(fetch), type, sizeof(type)),
			 -ENOTSUP);
	assert_int_equal(arch_uentry_ret_fetch("x86_64", fetch, sizeof(fetch), type, sizeof(type)),
			 0);
	assert_string_equal(fetch, "$stack0");
	assert_string_equal(type, "u64");
	assert_int_equal(arch_uentry_ret_fetch("x86", fetch, sizeof(fetch), type, sizeof(type)), 0);
	assert_string_equal(type, "u32");
	/* uprobeFunction1+0, main: spin goes between. */
	assert_int_equal(arch_ustack_splice_entry(ips, 3, 4, 0x401160), 4);
	assert_int_equal(ips[0], 0x401126);
	assert_int_equal(ips[1], 0x401160);
	assert_int_equal(ips[2], 0x401185);
	assert_int_equal(ips[3], 0x7f0000001000);
	/* A kernel that names it already, or no word: unchanged. */
	assert_int_equal(arch_ustack_splice_entry(ips, 4, 4, 0x401160), 4);
	assert_int_equal(arch_ustack_splice_entry(ips, 4, 4, 0), 4);
	assert_int_equal(ips[1], 0x401160);
	/* Full: the outermost frame makes room. */
	assert_int_equal(arch_ustack_splice_entry(ips, 4, 4, 0x500000), 4);
	assert_int_equal(ips[1], 0x500000);
	assert_int_equal(ips[2], 0x401160);
	assert_int_equal(ips[3], 0x401185);
	/* The probe's frame alone. */
	assert_int_equal(arch_ustack_splice_entry(ips, 1, 4, 0x401160), 2);
	assert_int_equal(ips[1], 0x401160);
	assert_int_equal(arch_ustack_splice_entry(ips, 0, 4, 0x401160), 0);
}

/* ---- argument translation ----------------------------------------------------------- */

static void fa(const char *spec, const char *arch, unsigned ps, const char *want)
{
	struct probe_spec p;
	struct probe_error e;
	char out[1024];
	int ret;

	if (probe_parse(spec, &p, &e))
		fail_msg("'%s' does not parse: %s", spec, e.msg);
	ret = probe_fetchargs(&p, arch, ps, out, sizeof(out), &e);
	if (ret)
		fail_msg("'%s' on %s: %d %s", spec, arch, ret, e.msg);
	if (strcmp(out, want))
		fail_msg("'%s' on %s: got '%s', want '%s'", spec, arch, out, want);
}

/* spec's fetchargs after probe_fetchargs_drop_retval: want, and whether it dropped. */
static void fa_drop(const char *spec, bool want_dropped, const char *want)
{
	struct probe_spec p;
	struct probe_error e;
	char out[1024];

	if (probe_parse(spec, &p, &e))
		fail_msg("'%s' does not parse: %s", spec, e.msg);
	if (probe_fetchargs(&p, "x86_64", PS_ARGN, out, sizeof(out), &e))
		fail_msg("'%s': %s", spec, e.msg);
	bool dropped = probe_fetchargs_drop_retval(&p, out);

	if (dropped != want_dropped || strcmp(out, want))
		fail_msg("'%s': dropped %d, '%s'; want %d, '%s'", spec, dropped, out,
			 want_dropped, want);
}

/* 6.12 refuses $retval on a function returning void (kretprobe:mutex_lock,
 * issue #27): the retval ftr adds on its own goes, the program's never. */
static void test_drop_retval(void **state)
{
	(void)state;
	/* not a return probe, or a retval the probe's fields ask for: kept */
	fa_drop("kprobe:f x=arg0", false, "x=$arg1:u64");
	fa_drop("kretprobe:f retval:s32", false, "retval=$retval:s32");
	fa_drop("kretprobe:f r=retval:x64 c=comm", false, "r=$retval:x64 c=$comm:string");
	fa_drop("kretprobe:f r=$retval:s64", false, "r=$retval:s64");
	/* the one ftr adds: dropped, alone or after other fields */
	fa_drop("kretprobe:f", true, "");
	fa_drop("kretprobe:f c=comm", true, "c=$comm:string");
	fa_drop("uretprobe:/bin/x:f", true, "");
}

static void fa_bad(const char *spec, const char *arch, unsigned ps, int want_ret,
		   const char *msg_part)
{
	struct probe_spec p;
	struct probe_error e;
	char out[1024];
	int ret;

	if (probe_parse(spec, &p, &e))
		fail_msg("'%s' does not parse: %s", spec, e.msg);
	ret = probe_fetchargs(&p, arch, ps, out, sizeof(out), &e);
	if (ret != want_ret || !strstr(e.msg, msg_part))
		fail_msg("'%s' on %s: got %d '%s', want %d '%s'", spec, arch, ret, e.msg,
			 want_ret, msg_part);
}

static void test_fetchargs(void **state)
{
	/* Kernels with $argN: bpftrace's arg0 is the kernel's $arg1. */
	fa("kprobe:vfs_write count=arg2", "x86_64", PS_ARGN, "count=$arg3:u64");
	fa("kprobe:vfs_write fd=arg0:s32 count=arg2:x64", "arm64", PS_ARGN,
	   "fd=$arg1:s32 count=$arg3:x64");
	fa("kprobe:f a=arg7", "riscv64", PS_ARGN, "a=$arg8:u64");
	/* Without: the register table. */
	fa("kprobe:vfs_write count=arg2", "x86_64", 0, "count=%dx:u64");
	fa("kprobe:vfs_write count=arg2", "arm64", 0, "count=%x2:u64");
	fa("kprobe:f a=arg5 b=arg6 c=arg7", "x86_64", 0, "a=%r9:u64 b=$stack1:u64 c=$stack2:u64");
	fa("kprobe:f a=arg8", "arm64", 0, "a=$stack0:u64");
	/* uprobes never have $argN (the kernel allows it in kernel probes only). */
	fa("uprobe:/bin/x:f x=arg0 y=arg1:s32", "x86_64", PS_ARGN, "x=%di:u64 y=%si:s32");
	fa("uprobe:/bin/x:f x=arg0", "arm64", PS_ARGN, "x=%x0:u64");
	/* Return probes record retval, once. */
	fa("kretprobe:f", "x86_64", PS_ARGN, "retval=$retval:s64");
	fa("uretprobe:/bin/x:f", "x86_64", 0, "retval=$retval:s64");
	fa("kretprobe:f retval:s32", "x86_64", 0, "retval=$retval:s32");
	fa("kretprobe:f r=retval:x64 c=comm", "x86_64", 0, "r=$retval:x64 c=$comm:string");
	fa("kretprobe:f r=$retval:u16", "x86_64", 0, "r=$retval:u16");
	fa("kretprobe:f c=comm", "x86_64", 0, "c=$comm:string retval=$retval:s64");
	/* Arrays (buf(), ntop()): N numbers at an address, 64 at most. */
	fa("kprobe:f b=+u0(+104(%di)):u8[64]", "x86_64", 0, "b=+u0(+104(%di)):u8[64]");
	fa("kprobe:f b=+4(%di):x16[2]", "x86_64", 0, "b=+4(%di):x16[2]");
	/* Strings: the value is a pointer. */
	fa("kprobe:f p=arg1:string", "x86_64", PS_ARGN, "p=+0($arg2):string");
	fa("kprobe:f p=arg1:ustring", "x86_64", PS_ARGN | PS_USTRING, "p=+0($arg2):ustring");
	fa("kprobe:f p=arg1:string", "x86_64", 0, "p=+0(%si):string");
	fa("uprobe:/bin/x:f p=arg0:ustring", "x86_64", 0, "p=+0(%di):string");
	fa("uretprobe:/bin/x:getenv retval:string", "x86_64", 0, "retval=+0($retval):string");
	/* Raw fetchargs as written; comm. */
	fa("kprobe:f a=%ax b=+8($stack):u32 c=+0(%si):string comm", "x86_64", 0,
	   "a=%ax b=+8($stack):u32 c=+0(%si):string comm=$comm:string");
	fa("kprobe:f+4 a=%di", "x86_64", PS_ARGN, "a=%di");
	fa("kprobe:f", "x86_64", PS_ARGN, "");

	fa_bad("kprobe:f x=arg0", "riscv64", 0, -EINVAL, "register table for 'riscv64'");
	fa_bad("uprobe:/bin/x:f x=arg0", "riscv64", PS_ARGN, -EINVAL, "ftr lacks");
	fa_bad("kprobe:f+4 x=arg0", "x86_64", PS_ARGN, -EINVAL, "first instruction");
	fa_bad("uprobe:/bin/x:f+4 x=arg0", "x86_64", 0, -EINVAL, "name a register");
	fa_bad("kprobe:f p=arg1:ustring", "x86_64", PS_ARGN, -EINVAL, "no 'ustring'");
	fa_bad("kretprobe:f retval=comm", "x86_64", 0, -EINVAL, "'retval' is kept");
}

/* ---- event names ---------------------------------------------------------------------- */

static void name_of(const char *spec, const char *const *taken, size_t n, const char *want)
{
	struct probe_spec p;
	struct probe_error e;
	char out[PROBE_NAME_MAX];

	if (probe_parse(spec, &p, &e))
		fail_msg("'%s' does not parse: %s", spec, e.msg);
	assert_int_equal(probe_event_name(&p, taken, n, out, sizeof(out)), 0);
	if (strcmp(out, want))
		fail_msg("'%s': got '%s', want '%s'", spec, out, want);
}

/* Over a recording, a program's probes are found by the names its recorder
 * gave them: the same names in the same order, a name counted only when
 * taken. */
static void test_name_next(void **state)
{
	struct probe_spec p;
	struct probe_error e;
	char out[PROBE_NAME_MAX];

	assert_int_equal(probe_parse("uprobe:/bin/x:name_next_fn", &p, &e), 0);
	assert_int_equal(probe_name_next(&p, false, out, sizeof(out)), 0);
	assert_string_equal(out, "name_next_fn");
	assert_int_equal(probe_name_next(&p, false, out, sizeof(out)), 0);
	assert_string_equal(out, "name_next_fn");
	assert_int_equal(probe_name_next(&p, true, out, sizeof(out)), 0);
	assert_string_equal(out, "name_next_fn");
	assert_int_equal(probe_name_next(&p, true, out, sizeof(out)), 0);
	assert_string_equal(out, "name_next_fn_2");
	assert_int_equal(probe_parse("uretprobe:/bin/x:name_next_fn", &p, &e), 0);
	assert_int_equal(probe_name_next(&p, true, out, sizeof(out)), 0);
	assert_string_equal(out, "name_next_fn__return");
	(void)state;
}

static void test_event_names(void **state)
{
	const char *taken[] = { "vfs_write", "vfs_write_2", "vfs_read__return" };
	char longsym[300], want[PROBE_NAME_MAX], first[PROBE_NAME_MAX], spec[400];
	const char *taken2[1];

	name_of("kprobe:vfs_write", NULL, 0, "vfs_write");
	name_of("kprobe:vfs_write", taken, 3, "vfs_write_3");
	name_of("kretprobe:vfs_write", taken, 3, "vfs_write__return");
	name_of("kretprobe:vfs_read", taken, 3, "vfs_read__return_2");
	name_of("kprobe:finish_task_switch.isra.0", NULL, 0, "finish_task_switch_isra_0");
	name_of("kprobe:ext4:ext4_sync_file", NULL, 0, "ext4_sync_file");
	name_of("uprobe:/x/libc.so.6:memcpy@@GLIBC_2.14", NULL, 0, "memcpy__GLIBC_2_14");
	name_of("uprobe:/usr/bin/uprobe-target:0x1139", NULL, 0, "uprobe_target_0x1139");
	name_of("uprobe:/opt/7zip:0x10", NULL, 0, "_7zip_0x10");

	/* Long names are cut to the kernel's 63 characters, suffixes kept. */
	memset(longsym, 'a', 100);
	longsym[100] = '\0';
	snprintf(spec, sizeof(spec), "kretprobe:%s", longsym);
	snprintf(want, sizeof(want), "%.*s__return", 63 - 8, longsym);
	name_of(spec, NULL, 0, want);
	assert_int_equal(strlen(want), 63);
	snprintf(first, sizeof(first), "%s", want);
	taken2[0] = first;
	snprintf(want, sizeof(want), "%.*s__return_2", 63 - 10, longsym);
	name_of(spec, taken2, 1, want);
	assert_int_equal(strlen(want), 63);
}

/* ---- tracepoints in place of kprobes ------------------------------------------------------ */

static bool in_list(const char *sys, const char *ev, void *ctx)
{
	const char *const *l = ctx;
	char full[160];

	snprintf(full, sizeof(full), "%s:%s", sys, ev);
	for (; *l; l++)
		if (!strcmp(*l, full))
			return true;
	return false;
}

static void alt_is(const char *const *events, const char *func, bool ret, const char *want,
		   const char *note_part)
{
	struct probe_alt a;
	int r = probe_kprobe_alternative(func, ret, in_list, (void *)events, &a);

	if (!want) {
		if (r != -ENOENT)
			fail_msg("%s%s: got '%s', want none", func, ret ? " (ret)" : "",
				 a.tracepoint);
		return;
	}
	if (r != 0 || strcmp(a.tracepoint, want))
		fail_msg("%s%s: got %d '%s', want '%s'", func, ret ? " (ret)" : "", r,
			 r ? "" : a.tracepoint, want);
	if (note_part && (!a.note || !strstr(a.note, note_part)))
		fail_msg("%s: note '%s' lacks '%s'", func, a.note ? a.note : "(null)", note_part);
}

static void test_kprobe_alternatives(void **state)
{
	const char *const host[] = {
		"syscalls:sys_enter_write", "syscalls:sys_exit_write", "syscalls:sys_enter_read",
		"syscalls:sys_enter_openat", "syscalls:sys_exit_openat", "sched:sched_switch",
		"sched:sched_process_exit", "sched:sched_wakeup_new", "block:block_rq_issue",
		"tcp:tcp_sendmsg_locked", "sched:sched_process_fork", NULL,
	};
	const char *const none[] = { NULL };
	const char *const sock[] = { "sock:sock_send_length", "tcp:tcp_sendmsg_locked", NULL };

	alt_is(host, "vfs_write", false, "syscalls:sys_enter_write", "count = args.count");
	alt_is(host, "ksys_write", false, "syscalls:sys_enter_write", NULL);
	alt_is(host, "vfs_write", true, "syscalls:sys_exit_write", "args.ret");
	alt_is(host, "vfs_read", false, "syscalls:sys_enter_read", "args.count");
	/* No sys_exit_read in this list: the entry tracepoint still helps. */
	alt_is(host, "vfs_read", true, "syscalls:sys_enter_read", NULL);
	alt_is(host, "do_sys_openat2", false, "syscalls:sys_enter_openat", "filename");
	alt_is(host, "do_sys_open", true, "syscalls:sys_exit_openat", NULL);
	alt_is(host, "schedule", false, "sched:sched_switch", NULL);
	alt_is(host, "finish_task_switch.isra.0", false, "sched:sched_switch", NULL);
	alt_is(host, "do_exit", false, "sched:sched_process_exit", NULL);
	alt_is(host, "wake_up_new_task", false, "sched:sched_wakeup_new", NULL);
	alt_is(host, "blk_mq_start_request", false, "block:block_rq_issue", NULL);
	alt_is(host, "kernel_clone", false, "sched:sched_process_fork", NULL);
	/* The best that exists: sock_send_length first, else tcp_sendmsg_locked. */
	alt_is(host, "tcp_sendmsg", false, "tcp:tcp_sendmsg_locked", NULL);
	alt_is(sock, "tcp_sendmsg", false, "sock:sock_send_length", "args.ret");
	/* Syscall entry points by name. */
	alt_is(host, "__x64_sys_openat", false, "syscalls:sys_enter_openat", NULL);
	alt_is(host, "__arm64_sys_write", true, "syscalls:sys_exit_write", NULL);
	alt_is(host, "ksys_read", false, "syscalls:sys_enter_read", NULL);
	alt_is(host, "__x64_sys_nosuch", false, NULL, NULL);
	/* Only what exists is offered. */
	alt_is(none, "vfs_write", false, NULL, NULL);
	alt_is(none, "schedule", false, NULL, NULL);
	alt_is(host, "blk_mq_end_request", false, NULL, NULL);
	alt_is(host, "some_function_nobody_knows", false, NULL, NULL);
	alt_is(host, "", false, NULL, NULL);
}

/* ---- ELF fixtures ----------------------------------------------------------------------- */

static char tmpdir[] = "/tmp/ftr-test-probe-XXXXXX";
static bool have_elf;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static const char *cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

static int elf_setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	/* Built with the Makefile's helper flags (-O1), plus variants. */
	if (sh("cd %s && %s -std=gnu11 -O1 -g -pie -fPIE -o pie %s 2>cc.log && "
	       "%s -std=gnu11 -O1 -g -no-pie -fno-PIE -o nopie %s 2>>cc.log && "
	       "%s -std=gnu11 -O1 -s -pie -fPIE -o stripped %s 2>>cc.log && "
	       "%s -std=gnu11 -O1 -g -shared -fPIC -DFTR_TARGET_LIB -o lib.so %s 2>>cc.log && "
	       "%s -std=gnu11 -O1 -s -shared -fPIC -DFTR_TARGET_LIB -o libstripped.so %s "
	       "2>>cc.log && %s -c -o obj.o %s 2>>cc.log",
	       tmpdir, cc(), HELPER_SRC, cc(), HELPER_SRC, cc(), HELPER_SRC, cc(), HELPER_SRC,
	       cc(), HELPER_SRC, cc(), HELPER_SRC) != 0) {
		print_message("ELF tests skipped: cannot compile %s with %s (see %s/cc.log)\n",
			      HELPER_SRC, cc(), tmpdir);
		return 0;
	}
	/* Two static functions of one name (ambiguous), and a versioned
	 * symbol whose default is the newer version. */
	if (sh("cd %s && printf '%%s\\n' "
	       "'static __attribute__((noinline,used)) int dup(int x) { return x + 1; }' "
	       "'int fa(int x) { return dup(x); }' > a.c && "
	       "printf '%%s\\n' "
	       "'static __attribute__((noinline,used)) int dup(int x) { return x + 2; }' "
	       "'int fa(int); int main(int c, char **v) { return fa(c) + dup(c); }' > b.c && "
	       "%s -O1 -o dup a.c b.c 2>>cc.log && "
	       "printf '%%s\\n' "
	       "'__attribute__((noinline,used)) int foo_v1(int x) { return x; }' "
	       "'__attribute__((noinline,used)) int foo_v2(int x) { return x + 1; }' "
	       "'__asm__(\".symver foo_v1, foo@V1\");' '__asm__(\".symver foo_v2, foo@@V2\");' "
	       "> v.c && printf 'V1 { local: foo_v*; };\\nV2 { } V1;\\n' > v.map && "
	       "%s -O1 -shared -fPIC -Wl,--version-script=v.map -o libv.so v.c 2>>cc.log",
	       tmpdir, cc(), cc()) != 0) {
		print_message("ELF tests skipped: cannot compile fixtures (see %s/cc.log)\n", tmpdir);
		return 0;
	}
	have_elf = true;
	return 0;
}

static int elf_teardown(void **state)
{
	sh("rm -rf %s", tmpdir);
	return 0;
}

static char *fixture(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

/* The file offset the program reports for itself. */
static uint64_t where(const char *exe, const char *sym)
{
	char cmd[512], line[64] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s --where %s", exe, sym);
	p = popen(cmd, "r");
	assert_non_null(p);
	if (!fgets(line, sizeof(line), p))
		line[0] = '\0';
	assert_int_equal(pclose(p), 0);
	return strtoull(line, NULL, 16);
}

#define NEED_ELF() do { if (!have_elf) skip(); } while (0)

static void test_elfsym_errors(void **state)
{
	struct elfsym *e = (void *)1;
	char why[256];

	NEED_ELF();
	assert_int_equal(elfsym_open(fixture("nonexistent"), &e, why, sizeof(why)), -ENOENT);
	assert_null(e);
	assert_non_null(strstr(why, "cannot open"));
	assert_int_equal(elfsym_open(FIXTURES "/readme-6.18.txt", &e, why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "is not an ELF file"));
	assert_int_equal(elfsym_open(fixture("obj.o"), &e, why, sizeof(why)), -ENOEXEC);
	assert_non_null(strstr(why, "object file"));
	assert_int_equal(elfsym_open(tmpdir, &e, why, sizeof(why)), -ENOEXEC);
}

static void check_offsets(const char *exe, bool pie)
{
	static const char *const syms[] = { "ftr_target", "ftr_target_str", "ftr_target_many",
					    "ftr_local" };
	const struct elfsym_sym *s, *at;
	struct elfsym *e;
	char why[256];
	uint64_t off, va, o;
	size_t n;

	assert_int_equal(elfsym_open(exe, &e, why, sizeof(why)), 0);
	assert_true(elfsym_has_symtab(e));
	assert_int_equal(elfsym_is_pie_or_dso(e), pie);
	assert_true(elfsym_count(e) > 4);
	for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
		assert_int_equal(elfsym_find(e, syms[i], &s, &n), 0);
		assert_int_equal(n, 1);
		assert_string_equal(s->name, syms[i]);
		assert_int_equal(s->type, STT_FUNC);
		assert_int_equal(s->bind, i == 3 ? STB_LOCAL : STB_GLOBAL);
		assert_int_equal(elfsym_vaddr_to_offset(e, s->addr, &off), 0);
		if (off != where(exe, syms[i]))
			fail_msg("%s:%s: offset 0x%llx, the process says 0x%llx", exe, syms[i],
				 (unsigned long long)off, (unsigned long long)where(exe, syms[i]));
		/* And back: file offset -> address -> symbol. */
		assert_int_equal(elfsym_offset_to_vaddr(e, off, &va), 0);
		assert_int_equal(va, s->addr);
		at = elfsym_at(e, s->addr + 1, &o);
		assert_non_null(at);
		assert_string_equal(at->name, syms[i]);
		assert_int_equal(o, 1);
		at = elfsym_at(e, s->addr, &o);
		assert_ptr_equal(at, s);
		assert_int_equal(o, 0);
	}
	assert_int_equal(elfsym_find(e, "ftr_nosuch", &s, &n), -ENOENT);
	assert_null(elfsym_at(e, 0, &o));
	/* Data is not code. */
	assert_int_equal(elfsym_vaddr_to_offset(e, 0, &off), -ERANGE);
	elfsym_close(e);
}

static void test_elfsym_pie(void **state)
{
	NEED_ELF();
	check_offsets(fixture("pie"), true);
}

static void test_elfsym_nopie(void **state)
{
	NEED_ELF();
	check_offsets(fixture("nopie"), false);
}

static void test_elfsym_stripped_and_dso(void **state)
{
	const struct elfsym_sym *s;
	struct elfsym *e;
	char why[256];
	size_t n;

	NEED_ELF();
	/* A stripped executable exports nothing of its own. */
	assert_int_equal(elfsym_open(fixture("stripped"), &e, why, sizeof(why)), 0);
	assert_false(elfsym_has_symtab(e));
	assert_int_equal(elfsym_find(e, "ftr_target", &s, &n), -ENOENT);
	elfsym_close(e);
	/* A stripped library still exports its global functions. */
	assert_int_equal(elfsym_open(fixture("libstripped.so"), &e, why, sizeof(why)), 0);
	assert_false(elfsym_has_symtab(e));
	assert_true(elfsym_is_pie_or_dso(e));
	assert_int_equal(elfsym_find(e, "ftr_target", &s, &n), 0);
	assert_true(s->dynamic);
	assert_int_equal(elfsym_find(e, "ftr_local", &s, &n), -ENOENT);
	elfsym_close(e);
	assert_int_equal(elfsym_open(fixture("lib.so"), &e, why, sizeof(why)), 0);
	assert_true(elfsym_has_symtab(e));
	assert_int_equal(elfsym_find(e, "ftr_target", &s, &n), 0);
	assert_true(s->dynamic);
	assert_int_equal(elfsym_find(e, "ftr_local", &s, &n), 0);
	assert_false(s->dynamic);
	elfsym_close(e);
}

static void test_elfsym_ambiguous_and_versions(void **state)
{
	const struct elfsym_sym *s, *v1, *v2;
	const char *near[4];
	struct elfsym *e;
	char why[256];
	size_t n;

	NEED_ELF();
	assert_int_equal(elfsym_open(fixture("dup"), &e, why, sizeof(why)), 0);
	assert_int_equal(elfsym_find(e, "dup", &s, &n), -ENOTUNIQ);
	assert_int_equal(n, 2);
	assert_non_null(s);
	assert_int_equal(elfsym_find(e, "fa", &s, &n), 0);
	/* "did you mean": names containing the one asked for come first. */
	n = elfsym_similar(e, "du", near, ARRAY_SIZE(near));
	assert_true(n >= 1);
	assert_string_equal(near[0], "dup");
	elfsym_close(e);

	assert_int_equal(elfsym_open(fixture("libv.so"), &e, why, sizeof(why)), 0);
	assert_int_equal(elfsym_find(e, "foo@V1", &v1, &n), 0);
	assert_int_equal(elfsym_find(e, "foo@@V2", &v2, &n), 0);
	assert_true(v1->addr != v2->addr);
	/* "foo" is the default version. */
	assert_int_equal(elfsym_find(e, "foo", &s, &n), 0);
	assert_int_equal(s->addr, v2->addr);
	elfsym_close(e);
}

static void test_libc(void **state)
{
	const struct elfsym_sym *s;
	struct elfsym *e;
	char path[4096], why[512];
	uint64_t off;
	size_t n;

	/* Debian's libc.so.6 has no .symtab: .dynsym and .gnu.version only. */
	if (probe_resolve_path("libc", arch_name(), path, sizeof(path), why, sizeof(why)) != 0) {
		print_message("libc tests skipped: %s\n", why);
		skip();
	}
	assert_non_null(strstr(path, "libc.so"));
	assert_int_equal(path[0], '/');
	assert_int_equal(elfsym_open(path, &e, why, sizeof(why)), 0);
	assert_int_equal(elfsym_find(e, "malloc", &s, &n), 0);
	assert_int_equal(s->type, STT_FUNC);
	assert_int_equal(elfsym_vaddr_to_offset(e, s->addr, &off), 0);
	/* memcpy@GLIBC_2.2.5 and memcpy@@GLIBC_2.14: the default wins. */
	if (elfsym_find(e, "memcpy", &s, &n) != 0)
		fail_msg("memcpy in %s: %zu matches", path, n);
	assert_false(s->hidden);
	/* strlen is an IFUNC (its resolver picks __strlen_avx2 & co). */
	if (elfsym_find(e, "strlen", &s, &n) == 0 && !strcmp(arch_name(), "x86_64"))
		assert_int_equal(s->type, STT_GNU_IFUNC);
	elfsym_close(e);
}

static void test_resolve_path(void **state)
{
	char out[4096], why[512], p[512];

	assert_int_equal(probe_resolve_path("sh", arch_name(), out, sizeof(out), why,
					    sizeof(why)), 0);
	assert_int_equal(out[0], '/');
	assert_int_equal(probe_resolve_path("ftr-no-such-program-xyz", arch_name(), out,
					    sizeof(out), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "not a program on $PATH"));
	assert_int_equal(probe_resolve_path("/tmp/my prog", arch_name(), out, sizeof(out), why,
					    sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "contains a space"));
	assert_int_equal(probe_resolve_path("/tmp/a:b", arch_name(), out, sizeof(out), why,
					    sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "contains ':'"));
	assert_int_equal(probe_resolve_path("/", arch_name(), out, sizeof(out), why,
					    sizeof(why)), -EISDIR);
	assert_int_equal(probe_resolve_path("/nonexistent/x", arch_name(), out, sizeof(out), why,
					    sizeof(why)), -ENOENT);
	if (!have_elf)
		return;
	/* A relative path becomes absolute and canonical. */
	snprintf(p, sizeof(p), "%s/../%s/./pie", tmpdir, strrchr(tmpdir, '/') + 1);
	assert_int_equal(probe_resolve_path(p, arch_name(), out, sizeof(out), why, sizeof(why)), 0);
	assert_string_equal(out, fixture("pie"));
	/* A canonical path with a space is refused even via a clean symlink. */
	assert_int_equal(sh("mkdir -p '%s/a b' && cp %s/pie '%s/a b/x' && ln -sf '%s/a b/x' %s/ln",
			    tmpdir, tmpdir, tmpdir, tmpdir, tmpdir), 0);
	assert_int_equal(probe_resolve_path(fixture("ln"), arch_name(), out, sizeof(out), why,
					    sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "contains a space"));
}


/* An ld.so.cache image: the new format after an old table of `old` entries
 * (0: the new format alone), with entries (flags, soname, path). */
static size_t make_cache(unsigned char *b, size_t cap, int old, const unsigned *flags,
			 const char *const *key, const char *const *val, int n)
{
	size_t start = 0, str, off;
	uint32_t v;

	memset(b, 0, cap);
	if (old) {
		memcpy(b, "ld.so-1.7.0", 11);
		v = old;
		memcpy(b + 12, &v, 4);
		start = (16 + old * 12 + 7) & ~7ul;
	}
	memcpy(b + start, "glibc-ld.so.cache1.1", 20);
	v = n;
	memcpy(b + start + 20, &v, 4);
	str = off = 48 + n * 24;
	for (int i = 0; i < n; i++) {
		unsigned char *e = b + start + 48 + i * 24;
		uint32_t k, f = flags[i];

		memcpy(e, &f, 4);
		k = off;
		strcpy((char *)b + start + off, key[i]);
		off += strlen(key[i]) + 1;
		memcpy(e + 4, &k, 4);
		k = off;
		strcpy((char *)b + start + off, val[i]);
		off += strlen(val[i]) + 1;
		memcpy(e + 8, &k, 4);
	}
	(void)str;
	assert_true(start + off <= cap);
	return start + off;
}

static void test_ldcache(void **state)
{
	static const unsigned fl[] = { 0x0003, 0x0303, 0x0303, 0x0303 };
	static const char *const key[] = { "libc.so.6", "libc.so.6", "libcrypto.so.3",
					   "libpthread.so.0" };
	static const char *const val[] = { "/lib32/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6",
					   "/opt/ssl/lib/libcrypto.so.3",
					   "/lib/x86_64-linux-gnu/libpthread.so.0" };
	unsigned char b[1024];
	char out[256], why[512], **need;
	size_t len, n;

	assert_true(ldcache_name_matches("libc", "libc.so.6"));
	assert_true(ldcache_name_matches("c", "libc.so.6"));
	assert_true(ldcache_name_matches("libc", "libc-2.31.so"));
	assert_true(ldcache_name_matches("libc.so.6", "libc.so.6"));
	assert_false(ldcache_name_matches("libc", "libcrypto.so.3"));
	assert_false(ldcache_name_matches("libc", "libc_malloc_debug.so.0"));
	for (int old = 0; old <= 3; old += 3) {
		len = make_cache(b, sizeof(b), old, fl, key, val, 4);
		/* The entry of this machine's flavour, not the first. */
		assert_int_equal(ldcache_lookup_buf(b, len, "libc", 0x0303, out, sizeof(out)), 0);
		assert_string_equal(out, "/lib/x86_64-linux-gnu/libc.so.6");
		assert_int_equal(ldcache_lookup_buf(b, len, "libc", 0, out, sizeof(out)), 0);
		assert_string_equal(out, "/lib32/libc.so.6");
		assert_int_equal(ldcache_lookup_buf(b, len, "libcrypto", 0x0303, out,
						    sizeof(out)), 0);
		assert_string_equal(out, "/opt/ssl/lib/libcrypto.so.3");
		assert_int_equal(ldcache_lookup_buf(b, len, "libssl", 0x0303, out, sizeof(out)),
				 -ENOENT);
		assert_int_equal(ldcache_lookup_buf(b, len, "libc", 0x0a03, out, sizeof(out)),
				 -ENOENT);
		/* Truncated or corrupt: refused, never read past the end. */
		for (size_t l = 0; l < len; l += 7)
			assert_true(ldcache_lookup_buf(b, l, "libpthread", 0x0303, out,
						       sizeof(out)) < 0);
	}
	b[0] = 'X';
	assert_int_equal(ldcache_lookup_buf(b, len, "libc", 0, out, sizeof(out)), -EINVAL);

	/* This process maps its own libc (the unit tests link dynamically). */
	if (ldcache_in_maps(getpid(), "libc", out, sizeof(out)) == 0)
		assert_non_null(strstr(out, "/libc"));
	assert_int_equal(ldcache_in_maps(getpid(), "ftr-no-such-lib", out, sizeof(out)), -ENOENT);
	assert_true(ldcache_in_maps(-1, "libc", out, sizeof(out)) < 0);

	/* libpthread.so.0 (glibc >= 2.34 a stub) needs libc.so.6: pthread_create
	 * is found there. */
	if (probe_resolve_path("libpthread", arch_name(), out, sizeof(out), why,
			       sizeof(why)) == 0) {
		bool libc = false;

		assert_int_equal(ldcache_needed(out, &need, &n), 0);
		for (size_t i = 0; i < n; i++)
			libc |= !strcmp(need[i], "libc.so.6");
		assert_true(libc);
		strv_free(need, n);
	}
	assert_true(ldcache_needed("/nonexistent", &need, &n) < 0);
	assert_int_equal(n, 0);
}

static void test_uprobe_offset(void **state)
{
	struct probe_spec p;
	struct probe_error pe;
	unsigned long long off, off2;
	char spec[600], why[512];
	bool ifunc;

	NEED_ELF();
	snprintf(spec, sizeof(spec), "uprobe:%s:ftr_target", fixture("pie"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("pie"), &p, &off, &ifunc, why, sizeof(why)), 0);
	assert_int_equal(off, where(fixture("pie"), "ftr_target"));
	assert_false(ifunc);
	/* +OFFSET adds; beyond the function's end is refused. */
	snprintf(spec, sizeof(spec), "uprobe:%s:ftr_target+1", fixture("pie"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("pie"), &p, &off2, &ifunc, why, sizeof(why)), 0);
	assert_int_equal(off2, off + 1);
	snprintf(spec, sizeof(spec), "uprobe:%s:ftr_target+4096", fixture("pie"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("pie"), &p, &off2, &ifunc, why, sizeof(why)),
			 -ERANGE);
	assert_non_null(strstr(why, "beyond the end"));
	/* The stripped binary: say so, and what to do. */
	snprintf(spec, sizeof(spec), "uprobe:%s:ftr_target", fixture("stripped"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("stripped"), &p, &off2, &ifunc, why,
					     sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "is stripped and does not export 'ftr_target'"));
	assert_non_null(strstr(why, "-dbgsym"));
	/* Absent, with near names. */
	snprintf(spec, sizeof(spec), "uprobe:%s:ftr_targ", fixture("pie"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("pie"), &p, &off2, &ifunc, why, sizeof(why)),
			 -ENOENT);
	assert_non_null(strstr(why, "no function 'ftr_targ'"));
	assert_non_null(strstr(why, "similar: ftr_target"));
	/* Ambiguous. */
	snprintf(spec, sizeof(spec), "uprobe:%s:dup", fixture("dup"));
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("dup"), &p, &off2, &ifunc, why, sizeof(why)),
			 -ENOTUNIQ);
	assert_non_null(strstr(why, "names 2 different functions"));
	/* By address (a virtual address, as bpftrace): the same offset. */
	{
		struct elfsym *e;
		const struct elfsym_sym *s;
		size_t n;

		assert_int_equal(elfsym_open(fixture("nopie"), &e, why, sizeof(why)), 0);
		assert_int_equal(elfsym_find(e, "ftr_target", &s, &n), 0);
		snprintf(spec, sizeof(spec), "uprobe:%s:0x%llx", fixture("nopie"),
			 (unsigned long long)s->addr);
		elfsym_close(e);
	}
	assert_int_equal(probe_parse(spec, &p, &pe), 0);
	assert_int_equal(probe_uprobe_offset(fixture("nopie"), &p, &off2, &ifunc, why,
					     sizeof(why)), 0);
	assert_int_equal(off2, where(fixture("nopie"), "ftr_target"));
	/* Not an ELF file. */
	assert_int_equal(probe_uprobe_offset(FIXTURES "/readme-6.18.txt", &p, &off2, &ifunc, why,
					     sizeof(why)), -ENOEXEC);
}

static void test_perror(void **state)
{
	struct probe_spec p;
	struct probe_error e;

	/* Prints; must not crash on odd positions. */
	assert_int_equal(probe_parse("kprobe:f x=arg0:u128", &p, &e), -EINVAL);
	probe_perror("kprobe:f x=arg0:u128", &e);
	e.pos = 999;
	probe_perror("kprobe:f", &e);
	e.pos = -1;
	probe_perror(NULL, &e);
	assert_int_equal(probe_parse(NULL, &p, &e), -EINVAL);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The module of a kernel function the running kernel lacks, from the files
 * of /lib/modules/RELEASE (excerpts of Debian 12's). */
static void test_module_of(void **state)
{
	char dir[] = "/tmp/ftr-test-modules.XXXXXX", mod[64], cmd[600];

	assert_non_null(mkdtemp(dir));
	/* No files: nothing to say. */
	assert_int_equal(probe_module_of(dir, "md_flush_request", mod, sizeof(mod)), -ENOENT);
	assert_int_equal(probe_module_of("/nonexistent", "xfs_file_read_iter", mod, sizeof(mod)),
			 -ENOENT);
	put(dir, "modules.order", "kernel/fs/xfs/xfs.ko\nkernel/drivers/md/md-mod.ko\n"
	    "kernel/fs/ext4/ext4.ko\n");
	put(dir, "modules.builtin", "kernel/fs/ext4/ext4.ko\n");
	/* By the function's prefix: xfs_ → xfs, md_ → md_mod ('-' is '_'). */
	assert_int_equal(probe_module_of(dir, "xfs_file_read_iter", mod, sizeof(mod)), 0);
	assert_string_equal(mod, "xfs");
	assert_int_equal(probe_module_of(dir, "md_flush_request", mod, sizeof(mod)), 0);
	assert_string_equal(mod, "md_mod");
	/* Built in: not a module to load; no prefix; no such module. */
	assert_int_equal(probe_module_of(dir, "ext4_file_open", mod, sizeof(mod)), -ENOENT);
	assert_int_equal(probe_module_of(dir, "schedule", mod, sizeof(mod)), -ENOENT);
	assert_int_equal(probe_module_of(dir, "swap_readpage", mod, sizeof(mod)), -ENOENT);
	assert_int_equal(probe_module_of(dir, "xfsx_y", mod, sizeof(mod)), -ENOENT);
	/* modules.dep spells paths with a colon after; modules.symbols names
	 * an exported function's module, whatever its prefix. */
	put(dir, "modules.order", "");
	put(dir, "modules.dep", "kernel/fs/nfs/nfs.ko.xz: kernel/fs/lockd/lockd.ko.xz\n");
	assert_int_equal(probe_module_of(dir, "nfs_file_read", mod, sizeof(mod)), 0);
	assert_string_equal(mod, "nfs");
	put(dir, "modules.symbols", "# Aliases for symbols, used by symbol_request().\n"
	    "alias symbol:md_flush_requestx other\nalias symbol:md_flush_request md_mod\n");
	assert_int_equal(probe_module_of(dir, "md_flush_request", mod, sizeof(mod)), 1);
	assert_string_equal(mod, "md_mod");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* A module that cannot be loaded is not (kprobe:nonsense:vfs_read, refused in
 * bpftrace's words before the kernel, which would wait for it); one listed in
 * /proc/modules is, when there is one to read. */
static void test_module_loaded(void **state)
{
	char line[512];
	FILE *f = fopen("/proc/modules", "re");

	(void)state;
	assert_false(probe_module_loaded("nonsense"));
	assert_false(probe_module_loaded(""));
	if (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, " ")] = '\0';
		assert_true(probe_module_loaded(line));
		/* a prefix of a loaded module's name is not it */
		if (strlen(line) > 1) {
			line[strlen(line) - 1] = '\0';
			assert_false(probe_module_loaded(line));
		}
	}
	if (f)
		fclose(f);
}

/* The `probe` builtin's names: bpftrace's provider, never the alias. */
static void test_probe_name(void **state)
{
	static const char *const cases[][2] = {
		{ "k:do_nanosleep", "kprobe:do_nanosleep" },
		{ "kr:vfs_read", "kretprobe:vfs_read" },
		{ "u:./testprogs/uprobe_test:main", "uprobe:./testprogs/uprobe_test:main" },
		{ "ur:/bin/sh:main", "uretprobe:/bin/sh:main" },
		{ "kprobe:vmlinux:vfs_read", "kprobe:vmlinux:vfs_read" },
		/* a word that only starts as an alias is left as written */
		{ "kfunc:vfs_read", "kfunc:vfs_read" },
		{ "k", "k" },
	};
	char b[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dynprobe_name(cases[i][0], b, sizeof(b));
		assert_string_equal(b, cases[i][1]);
	}
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_module_loaded),
		cmocka_unit_test(test_probe_name),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_kprobe),
		cmocka_unit_test(test_parse_uprobe),
		cmocka_unit_test(test_arch),
		cmocka_unit_test(test_arch_ustack),
		cmocka_unit_test(test_uentry_ret),
		cmocka_unit_test(test_fetchargs),
		cmocka_unit_test(test_event_names),
		cmocka_unit_test(test_name_next),
		cmocka_unit_test(test_kprobe_alternatives),
		cmocka_unit_test(test_perror),
		cmocka_unit_test(test_module_of),
	};
	const struct CMUnitTest elf[] = {
		cmocka_unit_test(test_elfsym_errors),
		cmocka_unit_test(test_elfsym_pie),
		cmocka_unit_test(test_elfsym_nopie),
		cmocka_unit_test(test_elfsym_stripped_and_dso),
		cmocka_unit_test(test_elfsym_ambiguous_and_versions),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_resolve_path),
		cmocka_unit_test(test_ldcache),
		cmocka_unit_test(test_uprobe_offset),
		cmocka_unit_test(test_drop_retval),
	};
	int failed = cmocka_run_group_tests_name("probe", pure, NULL, NULL);

	failed += cmocka_run_group_tests_name("elfsym", elf, elf_setup, elf_teardown);
	return failed;
}
