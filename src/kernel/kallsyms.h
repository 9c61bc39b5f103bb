/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Names and addresses from /proc/kallsyms, and where the running task is.
 *
 * A read of /proc/kallsyms takes seconds in an emulated guest (its 100,000+
 * lines are generated as they are read), so the names ftr asks about on
 * every run (the eprobe code, the per-CPU current task) are answered from
 * one read of the file per run.
 *
 * The running task (bpf_get_current_task, curtask) is a per-CPU variable:
 * on CPU k its address is &VAR + __per_cpu_offset[k] (per_cpu_ptr).  A
 * probe's fetch argument can read it as +&VAR(@&__per_cpu_offset[k]):
 * the word at a constant address, then the word at that plus &VAR.  VAR:
 *   x86-64 up to 6.1 and from 6.15  current_task
 *   x86-64 6.2 to 6.14              pcpu_hot (its member current_task)
 *   arm64                           __entry_task (current is in sp_el0, a
 *                                   register no fetch argument reads;
 *                                   __switch_to keeps this copy)
 * Data symbols are in kallsyms with CONFIG_KALLSYMS_ALL only.
 */
#ifndef FTR_KALLSYMS_H
#define FTR_KALLSYMS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* Which of names[0..n) /proc/kallsyms lists (a name ending in '*' matches
 * as a prefix), and the address of each (0: kptr_restrict hides it; addr
 * may be NULL).  Names are listed whatever kptr_restrict hides.  0, or
 * -errno when it cannot be read. */
int kallsyms_find(const char *const *names, int n, bool *found, uint64_t *addr);

#define KALLSYMS_MAX_CPUS 64

struct kallsyms_current {
	char var[32];		/* "current_task", "pcpu_hot", "__entry_task" */
	char member[32];	/* the member of struct VAR that holds it, or "" */
	uint64_t addr;		/* &VAR */
	uint64_t offsets;	/* &__per_cpu_offset */
	int cpus[KALLSYMS_MAX_CPUS];	/* the possible CPUs */
	int ncpu;
};

/* Where the running task is on this kernel (arch: arch_name()'s).  0, or
 * -errno with why: the architecture, a symbol kallsyms lacks, addresses
 * kptr_restrict hides, more possible CPUs than KALLSYMS_MAX_CPUS. */
int kallsyms_current(const char *arch, struct kallsyms_current *out, char *why, size_t wlen);

/* Pure: the CPUs of a sysfs CPU list ("0-3,8\n") into cpus[0..max).
 * Their number, or -EINVAL (not a list), -E2BIG (more than max). */
int kallsyms_cpu_list(const char *text, int *cpus, int max);

#endif
