/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What differs between architectures for ftr's probes: the normalised
 * machine name, where function arguments live at a function's first
 * instruction (when the kernel cannot say `$argN`), and the Debian multiarch
 * directory name libraries live under.  One table, in arch.c.
 */
#ifndef FTR_ARCH_H
#define FTR_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
/* Pure: does arch call its syscall functions with the arguments themselves
 * (32-bit ARM: sys_openat, in r0-r3 and on the stack), not a struct pt_regs *?
 * There arch_syscall_wrapper names the function, arch_syscall_arg_fetch
 * says -ENOTSUP, and the arguments are read as any function's
 * (arch_arg_fetch), by register slot. */
bool arch_syscall_direct(const char *arch);

/*
 * Pure: the kernel fetcharg of register `name`, by bpftrace's reg() names
 * ("ip", "sp", "di" on x86-64: "%ip"; arm64 "r0".."r30" or "x0".."x30",
 * "sp", "pc", "pstate": "%x0"; arm "r0".."r10", "fp", "ip", "sp", "lr",
 * "pc", "cpsr", "orig_r0").  0; -ENOENT for no register of arch;
 * -ENOTSUP for an architecture without a table.
 */
int arch_reg_fetch(const char *arch, const char *name, char *out, size_t len);

/* Debian multiarch triplet ("x86_64-linux-gnu"), or NULL. */
const char *arch_multiarch(const char *arch);

/*
 * User stacks at a uprobe where the kernel writes none.  The tracefs
 * userstacktrace option needs CONFIG_USER_STACKTRACE_SUPPORT, which arm64
 * kernels do not select: the option exists but no user_stack record ever
 * comes.  There the uprobe fetches the frame-pointer chain itself: the link
 * register (the caller, at a function's first instruction, before the
 * prologue saves it), the stack and frame pointers, and ARCH_USTACK_RECS
 * frame records {previous fp, return address}, each one dereference deeper
 * ("+0(+0(%x29)):u64[2]").  A read that faults leaves stale bytes in the
 * kernel's per-CPU fetch buffer, so the walk stops where the chain stops
 * making sense (a zero, a frame below the last, out of the stack's reach)
 * before it would read such a record.
 *
 * arch_ustack_fetch: fetcharg i (0..) of arch as a field name, the fetcharg
 * and its type; 0, -ERANGE past the last, -ENOTSUP where the kernel's
 * option serves (x86-64) or ftr has no table.
 */
#define ARCH_USTACK_RECS 6
int arch_ustack_fetch(const char *arch, int i, char *name, size_t nlen, char *fetch, size_t flen,
		      char *type, size_t tlen);
/* The fields' values in arch_ustack_fetch's order (lr, sp, fp, then the
 * records as pairs): return addresses into ips[0..max), ip first (the
 * probe's address, or a uretprobe's return address), the caller in lr only
 * when entry (lr holds anything elsewhere).  Pure; returns the count. */
int arch_ustack_walk(const char *arch, uint64_t ip, bool entry, const uint64_t *vals, int nvals,
		     uint64_t *ips, int max);
/*
 * At a uprobe on a function's first instruction the return address into
 * the caller is still where the call left it: at the stack pointer on x86
 * (in the link register on arm64: arch_ustack_fetch).  The kernel's
 * frame-pointer walk for the userstacktrace option starts from the frame
 * pointer, which is still the caller's and names the caller's caller: the
 * caller would be missing.  (Linux 6.11 reads [sp] there for perf's user
 * call chains, "perf,x86: avoid missing caller address in stack traces
 * captured in uprobe"; ftrace's user stacks never did.)  So such a uprobe
 * fetches that word too (the field ARCH_UENTRY_RA):
 * arch_uentry_ret_fetch gives its fetcharg and type (0; -ENOTSUP where the
 * word is no return address), and arch_ustack_splice_entry puts ret after
 * ips[0] of the kernel's n frames (ips holds max), unless the kernel
 * already named it there or ret is 0; it returns the new count.  Pure.
 */
#define ARCH_UENTRY_RA "ftr_ra"
int arch_uentry_ret_fetch(const char *arch, char *fetch, size_t flen, char *type, size_t tlen);
int arch_ustack_splice_entry(uint64_t *ips, int n, int max, uint64_t ret);
/* Does this kernel write user stacks for the userstacktrace option?
 * /proc/kallsyms names stack_trace_save_user where it does; unreadable, the
 * architecture decides (not arm64). */
bool arch_kernel_user_stacks(void);

#endif
