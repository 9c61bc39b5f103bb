/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event formats for decoding: a libtraceevent handle that knows exactly the
 * events a run enables.  tracefs_local_events_system() would load whole
 * systems plus all of /proc/kallsyms (100k+ symbols, a quarter of a second
 * here and much more on a small board) that decoding never needs; this
 * parses only the header page and the chosen format files, with the same
 * libtraceevent calls.
 */
#ifndef FTR_FORMATS_H
#define FTR_FORMATS_H

#include <stddef.h>

struct tep_handle;
struct tep_event;

/* A handle set up for this machine's ring buffer (long size, page size,
 * endianness, header page) and the saved comms.  NULL with errno. */
struct tep_handle *formats_new(const char *tdir);
/* Parse events/SYS/EV/format into tep (once).  The event, or NULL+errno. */
struct tep_event *formats_add(struct tep_handle *tep, const char *tdir, const char *sys,
			      const char *ev);

/* tep_parse_event on a format file's text, its "print fmt:" left out: ftr
 * prints events itself, and libtraceevent's parser of print formats is
 * where it fails on odd input (a division by a constant zero raises SIGFPE
 * in 1.7.1; a refused one leaks).  0, or -1 as tep_parse_event. */
int formats_parse(struct tep_handle *tep, const char *buf, size_t len, const char *sys);

#endif
