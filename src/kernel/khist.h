/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hist triggers: build the trigger text, and parse what the kernel's `hist`
 * file gives back.  Pure: text in, struct out; nothing here touches tracefs
 * (session.c writes the trigger and records its removal).
 *
 *	khist_build(&spec, &cmd);		"hist:keys=...:size=N if ..."
 *	session_trigger_add(s, sys, ev, cmd.add);	  (records cmd.remove)
 *	khist_cmd(cmd.add, KHIST_PAUSE, buf, len)	pause before reading
 *	text = read events/S/E/hist
 *	khist_parse(text, len, &file, &err);	tables, entries, totals
 *	khist_file_free(&file);
 *
 * This is the one place that writes hist trigger text.  libtracefs 1.6.4's
 * builder (tracefs_hist_*) has no setter for :size= (docs/libraries.md L3), and
 * ftr needs the size to make the kernel's table exactly as large as the
 * user-space one (a pushdown must not change what is dropped), so the text
 * is built here.  The kernel rounds size up to a power of two between 128
 * and 131072 (TRACING_MAP_BITS_MIN/MAX): khist_build refuses any other
 * size rather than let the two paths differ; khist_size_round says what the
 * kernel would make of a size.
 *
 * The `hist` file (kernel/trace/trace_events_hist.c, hist_trigger_show),
 * one table per trigger on the event, tables separated by blank lines:
 *
 *	# event histogram
 *	#
 *	# trigger info: hist:keys=...:vals=hitcount,...:sort=...:size=N [active]
 *	#
 *
 *	{ key1: <key>, key2: <key> } hitcount:          N  val1:          N
 *	...
 *
 *	Totals:
 *	    Hits: N
 *	    Entries: N
 *	    Dropped: N
 *
 * Keys render by modifier (6.1 and 6.12, see tests/fixtures/hist):
 *	plain      "%10llu" (signed fields too: -1 prints 18446744073709551615)
 *	.hex       "%llx" without 0x
 *	.sym       "[%llx] %-45s"   address, then the symbol (may be "f [mod]")
 *	.sym-offset "[%llx] %-55s"  "func+0x2a/0xa0"
 *	.execname  "%-16s[%10llu]"  comm, then pid; the comm is the task's comm
 *	           at the entry's FIRST event, and may hold spaces and commas
 *	.syscall   "%-30s[%3llu]"   "sys_write", then the number
 *	.log2      "~ 2^%-2llu"     N = ceil(log2(v)): 4096 is 2^12, 4097 2^13
 *	.buckets=S "~ %llu-%llu"    lo-hi, lo = v / S * S, hi = lo + S - 1
 *	string     "%-50s"          char arrays (comm fields), trailing pad
 *	stacktrace "stacktrace:\n" (6.1; "common_stacktrace:" on 6.12) then one
 *	           frame per line, indented 9, "func+0x4f8/0x9e0", the entry
 *	           closing on a line of its own: "} hitcount: ..."
 * Values: "  name: %10llu" (.hex: "%10llx"); 6.12 adds ".percent"
 * ("  hitcount (%):   0.09") and ".graph" (a bar of '#') and :nohitcount,
 * which leaves hitcount out.  Hits counts events that found or made an
 * entry, Dropped those that did not (the table was full).
 *
 * Trailing spaces of a comm or string key cannot be told from the padding
 * and are lost; everything else round-trips.
 */
#ifndef FTR_KHIST_H
#define FTR_KHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KHIST_MAX_KEYS 8		/* the kernel takes fewer; it says so */
#define KHIST_MAX_VALS 8
#define KHIST_MAX_SORT 4
#define KHIST_MIN_SIZE 128		/* 1 << TRACING_MAP_BITS_MIN */
#define KHIST_MAX_SIZE 131072		/* 1 << TRACING_MAP_BITS_MAX */
#define KHIST_CMD_MAX 4096		/* what ftr ever writes in one trigger */

/* ---- building --------------------------------------------------------------- */

struct khist_spec {
	/* "common_pid.execname", "count", "count.log2", "count.buckets=1024",
	 * "call_site.sym", "common_stacktrace": field[.modifier] verbatim */
	const char *keys[KHIST_MAX_KEYS];
	int nkeys;			/* >= 1 */
	const char *vals[KHIST_MAX_VALS];	/* "hitcount", "count", ... */
	int nvals;			/* 0: the kernel's default, hitcount */
	const char *sort[KHIST_MAX_SORT];	/* "hitcount", "count.descending" */
	int nsort;
	uint32_t size;			/* 0: omitted (2048) */
	const char *name;		/* :name=, NULL: none */
	bool pause;			/* created paused */
	const char *filter;		/* kernel syntax (expr_to_kernel), NULL: none */
};

struct khist_cmd {
	char add[KHIST_CMD_MAX];	/* append to events/S/E/trigger */
	char remove[KHIST_CMD_MAX + 1];	/* "!" + add: removes exactly that trigger */
};

/* 0; -EINVAL (no key, a field with characters the trigger syntax gives a
 * meaning to — ':' ',' '!' spaces —, a size the kernel would change, a
 * filter with a newline); -ENOSPC (too long). */
int khist_build(const struct khist_spec *spec, struct khist_cmd *out);

/* What the kernel makes of a :size=: rounded up to a power of two; 0 when it
 * would refuse it. */
uint32_t khist_size_round(uint32_t size);

/* The same trigger with a command, for appending to the trigger file:
 * pause, continue (cont), clear (zero the counts) or remove ("!" + spec).
 * The kernel finds the trigger by its spec, so `spec` must be exactly what
 * was added (cmd.add).  0, -EINVAL, -ENOSPC. */
enum khist_op { KHIST_PAUSE, KHIST_CONT, KHIST_CLEAR, KHIST_REMOVE };
int khist_cmd(const char *spec, enum khist_op op, char *buf, size_t len);

/* ---- parsing ---------------------------------------------------------------- */

enum khist_fmt {
	KHIST_NUM,			/* u = value (also common_cpu, .usecs) */
	KHIST_HEX,			/* u = value */
	KHIST_SYM,			/* u = address, s = "func" or "func [mod]" */
	KHIST_SYM_OFFSET,		/* u = address, s = "func+0x2a/0xa0" */
	KHIST_EXECNAME,			/* u = pid, s = comm */
	KHIST_SYSCALL,			/* u = number, s = "sys_write" */
	KHIST_LOG2,			/* u = N of "~ 2^N": values in (2^(N-1), 2^N] */
	KHIST_BUCKETS,			/* u = lo, hi = hi */
	KHIST_STRING,			/* s = text, trailing spaces removed */
	KHIST_STACK,			/* frames[nframes], innermost first */
};

struct khist_kv {
	enum khist_fmt fmt;
	uint64_t u, hi;
	const char *s;			/* NUL-terminated, in the parsed copy */
	const char **frames;
	int nframes;
};

struct khist_field {
	char name[64];			/* "common_pid", "count", "hitcount" */
	char mod[48];			/* "execname", "buckets=1024", "" */
};

struct khist_entry {
	struct khist_kv keys[KHIST_MAX_KEYS];
	uint64_t hitcount;		/* 0 with :nohitcount */
	uint64_t vals[KHIST_MAX_VALS];	/* table.vals order; .percent: hundredths */
};

struct khist_table {
	char trigger[KHIST_CMD_MAX];	/* "# trigger info:" spec, as the kernel prints it:
					 * its order, its defaults (sort=, size=) */
	bool paused;
	int nkeys;
	struct khist_field keys[KHIST_MAX_KEYS];
	int nvals;			/* values printed after hitcount */
	struct khist_field vals[KHIST_MAX_VALS];
	bool has_hitcount;		/* false with :nohitcount */
	size_t nentries;
	struct khist_entry *entries;
	uint64_t hits, total_entries, dropped;	/* "Totals:" */
	/* Hits == sum of hitcounts and Entries == nentries: false when the
	 * table changed while it was read (read it paused) */
	bool consistent;
};

struct khist_file {
	int ntables;
	struct khist_table *tables;
	char *text;			/* private copy the strings point into */
};

struct khist_err {
	int line;			/* 1-based line of the text, 0 if none */
	char msg[160];			/* lowercase, no newline */
};

/* Parse the text of a `hist` file.  0, or -EINVAL with err filled (text that
 * is not a hist file, a truncated table, a malformed entry, a number that
 * does not fit 64 bits), -ENOMEM.  On error *out is empty.  err may be NULL.
 * Text with no table at all (no trigger on the event) parses to 0 tables. */
int khist_parse(const char *text, size_t len, struct khist_file *out, struct khist_err *err);
void khist_file_free(struct khist_file *f);

/* A .sym or .sym-offset key as ftr shows symbols (ksyms_format, sym.h):
 * "func [mod]" as printed, "func+0x2a/0xa0 [mod]" without the size,
 * "func+0x2a [mod]"; an address without a symbol stays "0x...".  What
 * snprintf returns, or -EINVAL (another kind of key, a malformed symbol). */
int khist_sym_text(const struct khist_kv *kv, char *buf, size_t len);

/* Split "[ffffffff9fb7b73a] single_open+0x2a/0xa0" style symbols:
 * "func+0x2a/0xa0" or "func+0x2a/0xa0 [mod]" into the function name, its
 * offset and size.  A bare address ("0xffffffff81000000") gives func "" and
 * off = the address.  0 or -EINVAL. */
int khist_frame_split(const char *frame, char *func, size_t len, uint64_t *off, uint64_t *size);

#endif
