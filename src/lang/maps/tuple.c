// SPDX-License-Identifier: GPL-2.0-or-later
/* Tuples' signatures, bytes and printing: see tuple.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "lang/lang.h"
#include "lang/maps/tuple.h"
#include "report/output.h"

/* The length of the element signature at s, or 0 when there is none. */
static size_t elem_len(const char *s)
{
	size_t n;
	int depth;

	switch (*s) {
	case 'i':
	case 's':
		return 1;
	case 'k':
		return s[1] >= '0' && s[1] <= '9' ? 2 : 0;
	case 'e':
	case 'p':
	case 'n':
		n = strcspn(s, ";");
		return s[n] == ';' ? n + 1 : 0;
	case '(':
		for (n = 0, depth = 0; s[n]; n++) {
			depth += (s[n] == '(') - (s[n] == ')');
			if (!depth)
				return n + 1;
		}
		return 0;
	default:
		return 0;
	}
}

bool tuple_sig_elem(const char *sig, int i, const char **elem, size_t *len)
{
	const char *p;

	if (!sig || sig[0] != '(' || i < 0)
		return false;
	for (p = sig + 1; *p && *p != ')'; ) {
		size_t n = elem_len(p);

		if (!n)
			return false;
		if (!i--) {
			*elem = p;
			*len = n;
			return true;
		}
		p += n;
	}
	return false;
}

int tuple_sig_count(const char *sig)
{
	const char *e;
	size_t n;
	int i = 0;

	if (!sig || sig[0] != '(')
		return -1;
	while (tuple_sig_elem(sig, i, &e, &n))
		i++;
	return i;
}

void tbuf_reset(struct tbuf *b)
{
	b->len = 0;
}

void tbuf_free(struct tbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int put(struct tbuf *b, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *np;

		while (cap < b->len + n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

int tbuf_set(struct tbuf *b, const char *p, size_t len)
{
	b->len = 0;
	return put(b, p, len);
}

int tuple_put_int(struct tbuf *b, int64_t v, bool is_unsigned, uint32_t enum_id)
{
	unsigned char u = is_unsigned;

	if (put(b, "i", 1) || put(b, &v, sizeof(v)) || put(b, &u, 1) ||
	    put(b, &enum_id, sizeof(enum_id)))
		return -ENOMEM;
	return 0;
}

static int put_bytes(struct tbuf *b, char tag, const char *s, size_t len)
{
	uint32_t n = (uint32_t)len;

	if (len > UINT32_MAX)
		return -E2BIG;
	if (put(b, &tag, 1) || put(b, &n, sizeof(n)) || put(b, s, len))
		return -ENOMEM;
	return 0;
}

int tuple_put_str(struct tbuf *b, const char *s, size_t len)
{
	return put_bytes(b, 's', s, len);
}

int tuple_put_tuple(struct tbuf *b, const char *t, size_t len)
{
	return put_bytes(b, 't', t, len);
}

int tuple_put_stack(struct tbuf *b, const uint64_t *ips, size_t n, int mode)
{
	unsigned char m = (unsigned char)mode;
	uint32_t len;

	if (n > (UINT32_MAX - 1) / 8)
		return -E2BIG;
	len = (uint32_t)(1 + 8 * n);
	if (put(b, "k", 1) || put(b, &len, sizeof(len)) || put(b, &m, 1) ||
	    put(b, ips, 8 * n))
		return -ENOMEM;
	return 0;
}

int tuple_put_mark(struct tbuf *b, char mark)
{
	return put(b, &mark, 1) ? -ENOMEM : 0;
}

int tuple_put_names(struct tbuf *b, const char *names)
{
	return put_bytes(b, 'n', names, strlen(names));
}

int tuple_zero(struct tbuf *b, const char *sig)
{
	const char *e;
	size_t len;
	int err = 0;

	for (int i = 0; !err && tuple_sig_elem(sig, i, &e, &len); i++) {
		if (e[0] == 'n') {
			char *names = strndup(e + 1, len - 2);

			err = names ? tuple_put_names(b, names) : -ENOMEM;
			free(names);
		} else if (e[0] == 's') {
			err = tuple_put_str(b, "", 0);
		} else if (e[0] == 'k') {
			err = tuple_put_stack(b, NULL, 0, e[1] - '0');
		} else if (e[0] == '(') {
			struct tbuf in = { 0 };
			char *sub = strndup(e, len);

			err = sub ? tuple_zero(&in, sub) : -ENOMEM;
			if (!err)
				err = tuple_put_tuple(b, in.p ? in.p : "", in.len);
			free(sub);
			tbuf_free(&in);
		} else {
			err = tuple_put_int(b, 0, false, e[0] == 'e' ? (uint32_t)strtoul(e + 1, NULL, 10) :
					    e[0] == 'p' ? TUPLE_HEX : 0);
		}
	}
	return err;
}

int tuple_sig_field(const char *sig, const char *name)
{
	const char *e, *p;
	size_t len, nl = strlen(name);
	int i = 1;

	if (!tuple_sig_elem(sig, 0, &e, &len) || e[0] != 'n')
		return -1;
	for (p = e + 1; p < e + len - 1; i++) {
		size_t fl = strcspn(p, ",;");

		if (fl == nl && !strncmp(p, name, nl))
			return i;
		p += fl + 1;
	}
	return -1;
}

/* The element at *off of t[0..len), and *off past it. */
static int next_elem(const char *t, size_t len, size_t *off, struct telem *e)
{
	size_t o = *off;
	uint32_t n;

	if (!o && len && t[0] == 'A')
		o++;	/* an array's mark: no element */
	if (o >= len)
		return -ENOENT;
	memset(e, 0, sizeof(*e));
	e->tag = t[o++];
	if (e->tag == 'i') {
		if (len - o < 13)
			return -EINVAL;
		memcpy(&e->i, t + o, 8);
		e->u = t[o + 8];
		memcpy(&e->enum_id, t + o + 9, 4);
		*off = o + 13;
		return 0;
	}
	if ((e->tag != 's' && e->tag != 't' && e->tag != 'k' && e->tag != 'n') || len - o < 4)
		return -EINVAL;
	memcpy(&n, t + o, 4);
	o += 4;
	if (len - o < n)
		return -EINVAL;
	e->s = t + o;
	e->len = n;
	*off = o + n;
	return 0;
}

int tuple_elem(const char *t, size_t len, int i, struct telem *out)
{
	size_t off = 0;
	int err;

	do {
		err = next_elem(t, len, &off, out);
		if (err)
			return err;
	} while (i-- > 0);
	return 0;
}

/* A stack element's frames, copied out of the bytes (unaligned there). */
static void stack_text(struct outbuf *ob, const struct telem *e, tuple_stack_fn sf, void *arg)
{
	uint64_t ips[256];
	uint32_t n = 0;

	if (!e->len)
		return;
	for (; n < ARRAY_SIZE(ips) && 1 + 8 * (n + 1) <= e->len; n++)
		memcpy(&ips[n], e->s + 1 + 8 * n, 8);
	if (sf) {
		sf(ob, ips, n, (unsigned char)e->s[0], arg);
		return;
	}
	ob_putc(ob, '\n');
	for (uint32_t i = 0; i < n; i++) {
		ob_hex(ob, ips[i]);
		ob_putc(ob, '\n');
	}
}

/* A record's names element, if t is a record's bytes: its names ("a,b")
 * and where its fields start. */
static bool record_names(const char *t, size_t len, struct telem *names, size_t *off)
{
	*off = 0;
	if (next_elem(t, len, off, names) || names->tag != 'n') {
		*off = 0;
		return false;
	}
	return true;
}

/* The next field's name of a record's names (at *p, moved on). */
static void put_field(struct outbuf *ob, const struct telem *names, size_t *p, bool json)
{
	size_t fl = 0;

	while (*p + fl < names->len && names->s[*p + fl] != ',')
		fl++;
	if (json) {
		ob_json_str(ob, names->s + *p, fl);
		ob_write(ob, ": ", 2);
	} else {
		ob_putc(ob, '.');
		ob_write(ob, names->s + *p, fl);
		ob_write(ob, " = ", 3);
	}
	*p += fl + 1;
}

void tuple_text(struct outbuf *ob, const char *t, size_t len, tuple_enum_fn en, tuple_stack_fn sf,
		void *arg)
{
	struct telem e, names;
	size_t off, np = 0;
	bool rec = record_names(t, len, &names, &off), arr = len && t[0] == 'A';

	/* a record as bpftrace prints one: { .a = 1, .b = (2, x) }; a C
	 * array [1,2] */
	ob_puts(ob, rec ? (names.len ? "{ " : "{") : arr ? "[" : "(");
	for (int i = 0; !next_elem(t, len, &off, &e); i++) {
		const char *name = e.tag == 'i' && e.enum_id && en ? en(e.enum_id, e.i, arg) : NULL;

		if (i)
			ob_puts(ob, arr ? "," : ", ");
		if (rec)
			put_field(ob, &names, &np, false);
		if (name)
			ob_puts(ob, name);
		else if (e.tag == 'i' && e.enum_id == TUPLE_HEX)
			ob_hex(ob, (uint64_t)e.i);
		else if (e.tag == 'i' && e.u)
			ob_u64(ob, (uint64_t)e.i);
		else if (e.tag == 'i')
			ob_s64(ob, e.i);
		else if (e.tag == 's')
			ob_text_str(ob, e.s, strnlen(e.s, e.len));
		else if (e.tag == 'k')
			stack_text(ob, &e, sf, arg);
		else
			tuple_text(ob, e.s, e.len, en, sf, arg);
	}
	ob_puts(ob, rec ? (names.len ? " }" : "}") : arr ? "]" : ")");
}

void tuple_json(struct outbuf *ob, const char *t, size_t len)
{
	struct telem e, names;
	size_t off, np = 0;
	bool rec = record_names(t, len, &names, &off);

	/* bpftrace's: [1,2,"a",[3,true]], no spaces; a record {"a": 1, "b": 2} */
	ob_putc(ob, rec ? '{' : '[');
	for (int i = 0; !next_elem(t, len, &off, &e); i++) {
		if (i)
			ob_puts(ob, rec ? ", " : ",");
		if (rec)
			put_field(ob, &names, &np, true);
		if (e.tag == 'i' && e.enum_id == LANG_BOOL_ID)
			ob_puts(ob, e.i ? "true" : "false");
		else if (e.tag == 'i' && e.u)
			ob_u64(ob, (uint64_t)e.i);
		else if (e.tag == 'i')
			ob_s64(ob, e.i);
		else if (e.tag == 's')
			ob_json_str(ob, e.s, e.len);
		else if (e.tag == 't')
			tuple_json(ob, e.s, e.len);
		else
			ob_puts(ob, "null");	/* a stack: the semantic pass refuses it */
	}
	ob_putc(ob, rec ? '}' : ']');
}
