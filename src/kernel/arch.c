// SPDX-License-Identifier: GPL-2.0-or-later
/* Architecture facts for probes: see arch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "kernel/arch.h"
#include "kernel/kallsyms.h"
#include "ftr.h"

/*
 * Integer argument registers in calling-convention order, as the kernel's
 * probe parser names them (arch/<arch>/kernel/ptrace.c regoffset_table), and
 * the $stackN index of the first argument passed on the stack, at the
 * function's first instruction.  x86-64 pushes the return address, so the
 * 7th argument is $stack1; arm64 keeps it in the link register, so the 9th is
 * $stack0.  Both uprobes and kprobes use these names.
 */
static const struct arch_abi {
	const char *arch;
	const char *multiarch;
	const char *regs[8];
	unsigned nregs;
	unsigned stack_first;
	/* Syscalls: the wrapper's name prefix, and where in the struct pt_regs
	 * it is given (its first argument) the syscall number and the six
	 * arguments were saved (arch/<arch>/include/asm/ptrace.h). */
	const char *sys_prefix;
	int nr_off;
	int sys_off[6];
} abis[] = {
	/* x86-64 pt_regs: r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax cx dx si di
	 * orig_ax, 8 bytes each; arguments in di si dx r10 r8 r9, the number
	 * in orig_ax. */
	{ "x86_64", "x86_64-linux-gnu", { "di", "si", "dx", "cx", "r8", "r9" }, 6, 1,
	  "__x64_sys_", 120, { 112, 104, 96, 56, 72, 64 } },
	/* arm64 pt_regs: regs[31] sp pc pstate orig_x0 syscallno; arguments in
	 * regs[0..5]. */
	{ "arm64", "aarch64-linux-gnu", { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" }, 8, 0,
	  "__arm64_sys_", 280, { 0, 8, 16, 24, 32, 40 } },
	/* 32-bit ARM (EABI): four argument registers, the return address in
	 * lr, so the 5th argument is $stack0.  Registers are 32 bits: a 64-bit
	 * argument takes an even/odd pair (r0:r1 or r2:r3), so argN counts
	 * register slots there, as the ABI does.  No syscall wrappers taking a
	 * struct pt_regs: sys_openat is called with the arguments themselves
	 * (nr_off -1, arch_syscall_direct). */
	{ "arm", "arm-linux-gnueabihf", { "r0", "r1", "r2", "r3" }, 4, 0, "sys_", -1, { 0 } },
};

static const struct arch_abi *abi_of(const char *arch)
{
	for (size_t i = 0; arch && i < ARRAY_SIZE(abis); i++)
		if (!strcmp(abis[i].arch, arch))
			return &abis[i];
	return NULL;
}

const char *arch_normalise(const char *machine)
{
	static const struct {
		const char *prefix, *name;
		bool exact;
	} map[] = {
		{ "x86_64", "x86_64", true }, { "amd64", "x86_64", true },
		{ "aarch64", "arm64", true }, { "arm64", "arm64", true },
		{ "i386", "x86", true }, { "i486", "x86", true }, { "i586", "x86", true },
		{ "i686", "x86", true },
		{ "armv", "arm", false }, { "arm", "arm", true },
		{ "riscv64", "riscv64", true },
		{ "ppc64le", "ppc64le", true }, { "ppc64", "ppc64", true },
		{ "s390x", "s390x", true },
		{ "loongarch64", "loongarch64", true },
		{ "mips", "mips", false },
	};

	if (!machine)
		return "unknown";
	for (size_t i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].exact ? !strcmp(machine, map[i].prefix) :
		    str_has_prefix(machine, map[i].prefix))
			return map[i].name;
	}
	return machine;
}

const char *arch_name(void)
{
	static char machine[sizeof(((struct utsname *)0)->machine)];
	static const char *name;
	struct utsname u;

	if (name)
		return name;
	if (uname(&u) != 0)
		return "unknown";
	snprintf(machine, sizeof(machine), "%s", u.machine);
	name = arch_normalise(machine);
	return name;
}

unsigned arch_nr_arg_regs(const char *arch)
{
	const struct arch_abi *a = abi_of(arch);

	return a ? a->nregs : 0;
}

int arch_arg_fetch(const char *arch, unsigned idx, char *out, size_t len)
{
	const struct arch_abi *a = abi_of(arch);

	if (!a)
		return -ENOTSUP;
	if (idx > ARCH_MAX_ARG)
		return -ERANGE;
	if (idx < a->nregs)
		snprintf(out, len, "%%%s", a->regs[idx]);
	else
		snprintf(out, len, "$stack%u", a->stack_first + (idx - a->nregs));
	return 0;
}

/*
 * Registers by bpftrace's names (its arch/ sources), as the kernel's probe
 * parser names them (arch/<arch>/kernel/ptrace.c regoffset_table):
 * x86-64's are the kernel's own; arm64's r0..r30 are its x0..x30 (either
 * name is taken); arm's orig_r0 is the kernel's ORIG_r0.
 */
int arch_reg_fetch(const char *arch, const char *name, char *out, size_t len)
{
	static const char *const x86_64[] = {
		"ax", "bx", "cx", "dx", "si", "di", "bp", "sp", "r8", "r9", "r10", "r11",
		"r12", "r13", "r14", "r15", "ip", "flags", "cs", "ss", "orig_ax",
	};
	static const char *const arm[] = {
		"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "fp", "ip",
		"sp", "lr", "pc", "cpsr",
	};
	char *end;
	long n;

	if (!arch || !name)
		return -ENOTSUP;
	if (!strcmp(arch, "x86_64")) {
		for (size_t i = 0; i < ARRAY_SIZE(x86_64); i++)
			if (!strcmp(name, x86_64[i]))
				return snprintf(out, len, "%%%s", name) < (int)len ? 0 : -ERANGE;
		return -ENOENT;
	}
	if (!strcmp(arch, "arm64")) {
		if (!strcmp(name, "sp") || !strcmp(name, "pc") || !strcmp(name, "pstate"))
			return snprintf(out, len, "%%%s", name) < (int)len ? 0 : -ERANGE;
		if ((name[0] != 'r' && name[0] != 'x') || name[1] < '0' || name[1] > '9')
			return -ENOENT;
		n = strtol(name + 1, &end, 10);
		if (*end || n > 30 || (name[1] == '0' && name[2]))
			return -ENOENT;
		return snprintf(out, len, "%%x%ld", n) < (int)len ? 0 : -ERANGE;
	}
	if (!strcmp(arch, "arm")) {
		if (!strcmp(name, "orig_r0"))
			return snprintf(out, len, "%%ORIG_r0") < (int)len ? 0 : -ERANGE;
		for (size_t i = 0; i < ARRAY_SIZE(arm); i++)
			if (!strcmp(name, arm[i]))
				return snprintf(out, len, "%%%s", name) < (int)len ? 0 : -ERANGE;
		return -ENOENT;
	}
	return -ENOTSUP;
}

bool arch_syscall_direct(const char *arch)
{
	const struct arch_abi *a = abi_of(arch);

	return a && a->sys_prefix && a->nr_off < 0;
}

const char *arch_multiarch(const char *arch)
{
	const struct arch_abi *a = abi_of(arch);

	return a ? a->multiarch : NULL;
}

int arch_syscall_wrapper(const char *arch, const char *name, char *out, size_t len)
{
	const struct arch_abi *a = abi_of(arch);

	if (!a || !a->sys_prefix)
		return -ENOTSUP;
	snprintf(out, len, "%s%s", a->sys_prefix, name);
	return 0;
}

int arch_syscall_arg_fetch(const char *arch, int idx, char *out, size_t len)
{
	const struct arch_abi *a = abi_of(arch);

	if (!a || !a->sys_prefix || a->nr_off < 0)
		return -ENOTSUP;
	if (idx < -1 || idx >= (int)ARRAY_SIZE(a->sys_off))
		return -ERANGE;
	snprintf(out, len, "+%d(%%%s)", idx < 0 ? a->nr_off : a->sys_off[idx], a->regs[0]);
	return 0;
}

/* ---- user stacks at uprobes (see arch.h) ---------------------------------- */

int arch_ustack_fetch(const char *arch, int i, char *name, size_t nlen, char *fetch, size_t flen,
		      char *type, size_t tlen)
{
	static const char *const regs[][2] = {
		{ "ftr_lr", "%x30" }, { "ftr_sp", "%sp" }, { "ftr_fp", "%x29" },
	};
	size_t off = 0;

	if (!arch || strcmp(arch, "arm64"))
		return -ENOTSUP;
	if (i < 0 || i >= (int)ARRAY_SIZE(regs) + ARCH_USTACK_RECS)
		return -ERANGE;
	if (i < (int)ARRAY_SIZE(regs)) {
		snprintf(name, nlen, "%s", regs[i][0]);
		snprintf(fetch, flen, "%s", regs[i][1]);
		snprintf(type, tlen, "u64");
		return 0;
	}
	/* Record k (1..): the frame record k frame pointers up the chain. */
	i -= (int)ARRAY_SIZE(regs);
	snprintf(name, nlen, "ftr_f%d", i + 1);
	for (int k = 0; k <= i; k++)
		off += snprintf(fetch + off, off < flen ? flen - off : 0, "+0(");
	off += snprintf(fetch + off, off < flen ? flen - off : 0, "%%x29");
	for (int k = 0; k <= i; k++)
		off += snprintf(fetch + off, off < flen ? flen - off : 0, ")");
	snprintf(type, tlen, "u64[2]");
	return off < flen ? 0 : -ERANGE;
}

/*
 * arm64 user addresses have 48 bits (Debian's kernels: 48-bit VA; a 52-bit
 * one gives user space addresses above 2^48 only on request); a saved
 * return address may carry a pointer-authentication code above them.
 */
#define ARM64_UADDR(x) ((x) & ((1ull << 48) - 1))
/* Farther than this above the stack pointer no frame record lies. */
#define USTACK_REACH (64ull << 20)

int arch_ustack_walk(const char *arch, uint64_t ip, bool entry, const uint64_t *vals, int nvals,
		     uint64_t *ips, int max)
{
	uint64_t sp, fp, prev;
	int n = 0;

	if (max < 1)
		return 0;
	ips[n++] = ip;
	if (!arch || strcmp(arch, "arm64") || nvals < 3)
		return n;
	if (entry && ARM64_UADDR(vals[0]) && n < max)
		ips[n++] = ARM64_UADDR(vals[0]);
	sp = vals[1];
	prev = sp;
	fp = vals[2];
	for (int k = 0; 3 + 2 * k + 1 < nvals && n < max; k++) {
		uint64_t next = vals[3 + 2 * k], ret = ARM64_UADDR(vals[3 + 2 * k + 1]);

		/* A record lies above the last one (the stack grows down),
		 * 8-aligned, within reach of the stack pointer; the outermost
		 * frame (_start) has fp and lr 0. */
		if (!fp || fp < prev || (fp & 7) || fp - sp > USTACK_REACH || !ret)
			break;
		ips[n++] = ret;
		if (next <= fp)
			break;
		prev = fp;
		fp = next;
	}
	return n;
}

int arch_uentry_ret_fetch(const char *arch, char *fetch, size_t flen, char *type, size_t tlen)
{
	/* $stack0: the word at the user stack pointer (a uprobe's own
	 * fetcharg since uprobe events came, 3.5). */
	if (!arch || (strcmp(arch, "x86_64") && strcmp(arch, "x86")))
		return -ENOTSUP;
	snprintf(fetch, flen, "$stack0");
	snprintf(type, tlen, "%s", strcmp(arch, "x86") ? "u64" : "u32");
	return 0;
}

int arch_ustack_splice_entry(uint64_t *ips, int n, int max, uint64_t ret)
{
	if (n < 1 || !ret || (n > 1 && ips[1] == ret))
		return n;
	if (n == max)
		n--;		/* the outermost frame goes */
	memmove(ips + 2, ips + 1, (size_t)(n - 1) * sizeof(*ips));
	ips[1] = ret;
	return n + 1;
}

bool arch_kernel_user_stacks(void)
{
	static int known = -1;	/* asked at events too: after kallsyms_drop() */
	uint64_t a;
	int r;

	/* x86 selects USER_STACKTRACE_SUPPORT always: no need to read. */
	if (known < 0 && (!strcmp(arch_name(), "x86_64") || !strcmp(arch_name(), "x86")))
		known = 1;
	if (known < 0) {
		r = kallsyms_find("stack_trace_save_user", &a);
		known = r == 0 || r == -EPERM || (r != -ENOENT && strcmp(arch_name(), "arm64"));
	}
	return known;
}
