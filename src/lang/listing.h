/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bpftrace's listing of probes (listing.c), which ftr list and ftr -l share. */
#ifndef FTR_LANG_LISTING_H
#define FTR_LANG_LISTING_H

#include <stdbool.h>

struct tep_handle;

/* The probes pattern matches (NULL: all; an existing file: its program's),
 * as ftr -l [-v] [-p PID] prints them.  An exit status. */
int bt_list(const char *pattern, bool verbose, int pid);
/* The probes of program file or text (ftr -l -e PROG). */
int bt_list_program(const char *file, const char *text, bool verbose, int pid);
/* Sort a NULL-ended list of names; print the fields of event sys:ev as
 * bpftrace -lv does (ftr list -v too). */
void list_sort(char **v);
void list_print_fields(struct tep_handle *tep, const char *sys, const char *ev);

#endif
