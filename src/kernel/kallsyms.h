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
/* kallsyms_lookup in the running kernel's, loaded on first use; -errno
 * when /proc/kallsyms cannot be read. */
int kallsyms_find(const char *name, uint64_t *addr);
/* Free the running kernel's (setup is over); the next question reads
 * them again. */
void kallsyms_drop(void);

#endif
