/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between architectures for ftr's probes: the normalised
 * machine name, where function arguments live at a function's first
 * instruction (when the kernel cannot say `$argN`), and the Debian multiarch
 * directory name libraries live under.  One table, in arch.c.
 */
#ifndef FTR_ARCH_H
#define FTR_ARCH_H

#include <stddef.h>

/* The running machine's architecture, normalised (uname -m, see below). */
const char *arch_name(void);

/* Pure: uname -m spelling to ftr's: x86_64, arm64 (aarch64), x86 (i?86),
 * arm (armv*), riscv64, ppc64le, ppc64, s390x...; unknown names unchanged.
 * Returns a static string, or `machine` itself. */
const char *arch_normalise(const char *machine);

/* Number of integer arguments passed in registers (x86_64 6, arm64 8);
 * 0 when ftr has no table for the architecture. */
unsigned arch_nr_arg_regs(const char *arch);

/*
 * Pure: the kernel fetcharg holding integer argument idx (0-based, as in
 * bpftrace's arg0) at the first instruction of a function, written to out:
 * "%di" for x86_64 arg0, "$stack1" for x86_64 arg6 (the return address is
 * $stack0), "%x0" / "$stack0" for arm64 arg0 / arg8.  Valid only at function
 * entry.  0; -ENOTSUP for an architecture without a table (errmsg says so);
 * -ERANGE when idx > ARCH_MAX_ARG.
 */
#define ARCH_MAX_ARG 15
int arch_arg_fetch(const char *arch, unsigned idx, char *out, size_t len);

/*
 * Pure: syscalls.  The function the syscall table calls with the saved user
 * registers, a struct pt_regs * (x86-64 "__x64_sys_openat", arm64
 * "__arm64_sys_openat"), and the kernel fetcharg of syscall argument idx
 * (0..5) at that function's first instruction, read from the pt_regs
 * ("+104(%di)" for x86-64 argument 1); idx -1 is the syscall number.  0,
 * -ENOTSUP for an architecture without a table, -ERANGE for idx.
 */
int arch_syscall_wrapper(const char *arch, const char *name, char *out, size_t len);
int arch_syscall_arg_fetch(const char *arch, int idx, char *out, size_t len);

/* Debian multiarch triplet ("x86_64-linux-gnu"), or NULL. */
const char *arch_multiarch(const char *arch);

#endif
