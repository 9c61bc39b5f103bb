// SPDX-License-Identifier: GPL-2.0-or-later
/* Architecture facts for probes: see arch.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "arch.h"
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
} abis[] = {
	{ "x86_64", "x86_64-linux-gnu", { "di", "si", "dx", "cx", "r8", "r9" }, 6, 1 },
	{ "arm64", "aarch64-linux-gnu", { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" }, 8, 0 },
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

const char *arch_multiarch(const char *arch)
{
	const struct arch_abi *a = abi_of(arch);

	return a ? a->multiarch : NULL;
}
