/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tuples: bpftrace's immutable (a, b, ...) values, as the language keeps
 * them.  Pure: no interpreter state, so that the unit tests reach them.
 *
 * A tuple's type is a signature string the semantic pass builds and keeps
 * on the nodes (node.tsig): "(" its elements ")", each element one of
 *
 *	i		a number
 *	eID;		a number of the enum of type id ID (printed by name)
 *	pSIZE;		a pointer to SIZE bytes (printed in hex)
 *	s		a string
 *	kM		a stack printed in mode M (a digit, LANG_STACK_*)
 *	( ... )		a tuple
 *
 * so that (1, "a", (2, 3)) is "(is(ii))".  Its value is bytes, each element
 * self-describing so that printing needs no type:
 *
 *	'i' int64 value, 1 byte unsigned, uint32 enum id	(14 bytes)
 *	's' uint32 length, the bytes
 *	't' uint32 length, a tuple's bytes
 *	'k' uint32 length, the mode (1 byte), the frames (8 bytes each)
 *
 * (host byte order: values live in this process only).  A C array read as
 * a value (fetchargs.c) is a tuple whose bytes open with the mark 'A', which only
 * printing sees ([1,2,3]; indexing, equality and the signature are a
 * tuple's); a C struct is a record.
 */
#ifndef FTR_LANG_TUPLE_H
#define FTR_LANG_TUPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct outbuf;

/* ---- signatures ------------------------------------------------------------ */

/* The elements of a tuple signature; -1 when sig is not one. */
int tuple_sig_count(const char *sig);
/* Element i of sig: where its signature starts and its length; false when
 * there is no element i. */
bool tuple_sig_elem(const char *sig, int i, const char **elem, size_t *len);

/* ---- values ----------------------------------------------------------------- */

/* A growable byte buffer a tuple is built in. */
struct tbuf {
	char *p;
	size_t len, cap;
};

void tbuf_reset(struct tbuf *b);
/* b holds p[0..len) (p not in b): 0 or -ENOMEM. */
int tbuf_set(struct tbuf *b, const char *p, size_t len);
void tbuf_free(struct tbuf *b);
/* Append one element; 0 or -ENOMEM. */
int tuple_put_int(struct tbuf *b, int64_t v, bool is_unsigned, uint32_t enum_id);
int tuple_put_str(struct tbuf *b, const char *s, size_t len);
int tuple_put_tuple(struct tbuf *b, const char *t, size_t len);
/* node.ival of an N_TUPLE that is a C array read as a value; node.idx: its
 * elements that are pointers, printed in hex (bit i: element i) */
#define TUPLE_ARRAY 1
#define TUPLE_STRUCT 2		/* a record (sval its names) read from a C struct */
/* The mark of an array, first. */
int tuple_put_mark(struct tbuf *b, char mark);
int tuple_put_stack(struct tbuf *b, const uint64_t *ips, size_t n, int mode);
/* A record, (a = 1, b = 2): a tuple whose first element names its fields,
 * "a,b" (signature "na,b;", bytes tag 'n' as 's'), printed by name:
 * { .a = 1, .b = 2 }, in JSON {"a": 1, "b": 2}.  tuple_put_names puts
 * that element; tuple_sig_field is the element of field name (from 1), or
 * -1 when sig is not a record or has no such field. */
int tuple_put_names(struct tbuf *b, const char *names);
int tuple_sig_field(const char *sig, const char *name);
/* The zero value of signature sig (numbers 0, strings ""), appended to b,
 * as bpftrace prints a scalar map it has not stored in: 0 or -ENOMEM. */
int tuple_zero(struct tbuf *b, const char *sig);

struct telem {
	char tag;			/* 'i', 's', 't', 'k' */
	int64_t i;
	bool u;
	uint32_t enum_id;
	const char *s;			/* 's', 't': into the tuple's bytes */
	size_t len;
};

/* Element i of the tuple bytes t[0..len): 0, or -ENOENT (no element i),
 * -EINVAL (bytes that are not a tuple's). */
int tuple_elem(const char *t, size_t len, int i, struct telem *out);

/* The enum id of an int element that is a pointer: printed in hex. */
#define TUPLE_HEX 0xfffffffeu

/* The enumerator's name of value v of enum id, or NULL (then the number). */
typedef const char *(*tuple_enum_fn)(uint32_t id, int64_t v, void *arg);

/* A stack element printed (agg_print_stack's mode); NULL: its addresses. */
typedef void (*tuple_stack_fn)(struct outbuf *ob, const uint64_t *ips, uint32_t n, int mode,
			       void *arg);

/* As bpftrace prints a tuple: (1, abc, (2, 3)); strings shown as the
 * language shows them (control characters escaped); a stack as bpftrace
 * prints one (a newline, a frame a line). */
void tuple_text(struct outbuf *ob, const char *t, size_t len, tuple_enum_fn en, tuple_stack_fn sf,
		void *arg);
/* As its -f json writes one: [1, "abc", [2, 3]]. */
void tuple_json(struct outbuf *ob, const char *t, size_t len);

#endif
