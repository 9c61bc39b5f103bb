/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's symbols by name (functions and data), from /proc/kallsyms:
 * is a function there to probe, which eprobe code is built in, where is a
 * variable for kaddr().  The running kernel's are read once per run and
 * kept until kallsyms_drop(): a read of /proc/kallsyms is 100k+ lines the
 * kernel formats one by one (seconds in an emulated guest), and a program
 * asks per clause.  Symbolizing addresses is report/sym.c's (text symbols
 * sorted by address, or a recording's).
 */
#ifndef FTR_KALLSYMS_H
#define FTR_KALLSYMS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

struct kallsyms;

/* The symbols of a kallsyms file (NULL: /proc/kallsyms), read as far as
 * each question needs.  0 or -errno (it cannot be opened). */
int kallsyms_load(const char *path, struct kallsyms **out);
void kallsyms_free(struct kallsyms *k);
/* The address of name ("pre*": of the first symbol named pre...; the
 * first in the file of several with one name).  0; -ENOENT (absent: a
 * kernel without CONFIG_KALLSYMS_ALL lists functions only); -EPERM
 * (present, but kptr_restrict shows its address as 0); -ENOMEM. */
int kallsyms_lookup(struct kallsyms *k, const char *name, uint64_t *addr);
/* The same, skipping the symbols at address except (non-zero): the weak
 * aliases a kernel makes of a function it does not have (sys_ni.c's
 * compat_sys_* stubs all sit at sys_ni_syscall). */
int kallsyms_lookup_except(struct kallsyms *k, const char *name, uint64_t except,
			   uint64_t *addr);
/* kallsyms_lookup in the running kernel's, loaded on first use; -errno
 * when /proc/kallsyms cannot be read. */
int kallsyms_find(const char *name, uint64_t *addr);
int kallsyms_find_except(const char *name, uint64_t except, uint64_t *addr);
/* A kernel variable of the running kernel, from /proc/kallsyms: its
 * address, whether it is read-only data (within .rodata or the
 * __ro_after_init data, by the linker's bounds, or of type r or R: fixed
 * once the kernel has booted), and where the next symbol starts (its
 * extent, at most).  0, or -errno as kallsyms_lookup. */
int kallsyms_data(const char *name, uint64_t *addr, bool *rodata, uint64_t *end);
/* Free the running kernel's (setup is over); the next question reads
 * them again. */
void kallsyms_drop(void);

/*
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
