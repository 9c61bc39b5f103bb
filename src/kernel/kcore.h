/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reads of kernel memory from /proc/kcore, for the language's *kaddr("sym")
 * in BEGIN, END and interval clauses (the value now, not at an event).
 * /proc/kcore is an ELF core file: each PT_LOAD program header maps a range
 * of kernel virtual addresses to an offset in the file.  Read-only: nothing
 * in the kernel changes.
 */
#ifndef FTR_KCORE_H
#define FTR_KCORE_H

#include <stddef.h>
#include <stdint.h>

struct kcore;

/* 0, or -errno with why: lockdown (EPERM under lockdown=confidentiality),
 * no /proc/kcore (CONFIG_PROC_KCORE), not root, not an ELF64 core. */
int kcore_open(const char *path, struct kcore **out, char *why, size_t wlen);
/* len bytes at kernel address addr.  0, -EFAULT (not mapped), -EIO. */
int kcore_read(struct kcore *k, uint64_t addr, void *buf, size_t len);
void kcore_close(struct kcore *k);

#endif
