/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A flags field's names as the kernel prints them: the {value, "name"}
 * table of a tracepoint's __print_flags(REC->FIELD, "|", ...) in its print
 * format (kmem:kmalloc's gfp_flags: show_gfp_flags(), the names of %pGg),
 * so that they are this kernel's, whatever its bit layout.
 */
#ifndef FTR_FLAGNAMES_H
#define FTR_FLAGNAMES_H

#include <stddef.h>
#include <stdint.h>

struct flagname {
	uint64_t mask;
	char *name;
};

struct flagnames {
	struct flagname *v;
	size_t n;
	char delim[8];
};

/* The table of FIELD's __print_flags in a print format's text.  0, or
 * -EINVAL / -ENOENT with the reason in why. */
int flagnames_parse(const char *fmt, const char *field, struct flagnames *out, char *why,
		    size_t wlen);
/* The same from TDIR/events/SYS/EV/format. */
int flagnames_load(const char *tdir, const char *sys, const char *ev, const char *field,
		   struct flagnames *out, char *why, size_t wlen);
/* v as the kernel's trace_print_flags_seq() prints it: the names whose
 * masks v holds whole, in the table's order, each one's bits taken out,
 * joined by the delimiter, then what is left in hex; "none" for 0 (the
 * kernel's own format says so for GFP flags).  The text's length. */
size_t flagnames_format(const struct flagnames *t, uint64_t v, char *out, size_t len);
void flagnames_free(struct flagnames *t);

#endif
