/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel's user ABI in numbers, per architecture, for programs that use
 * them without a header: syscall numbers and their names (syscall_name()),
 * and the common UAPI constants (errno values, signal numbers, open(2)
 * flags, d_type, address families...).  The numbers are the kernel's own
 * uapi headers' and syscall tables' (linux 6.1's, with the syscalls added up
 * to 6.17), for the architectures ftr builds for: x86_64, arm64 and arm
 * (EABI), each binary its own architecture's syscall table.  Where the ABI differs (O_DIRECTORY, O_NOFOLLOW, O_DIRECT,
 * O_LARGEFILE on ARM) each architecture has its own value.
 */
#ifndef FTR_ABI_H
#define FTR_ABI_H

#include <stdint.h>

/* Pure: the name of syscall nr on arch (arch_name()'s spelling: "read"
 * for x86_64's 0), or NULL where the table has none (a number no syscall
 * has, or an architecture without a table: abi_syscall_table says). */
const char *abi_syscall_name(const char *arch, int64_t nr);
/* Pure: does ftr have arch's syscall table? */
int abi_syscall_table(const char *arch);

/* Pure: a UAPI constant's value on arch: 0, or -ENOENT (not one ftr knows;
 * an architecture without a table knows only the ones all share). */
int abi_constant(const char *arch, const char *name, int64_t *val);

#endif
