// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Flag names from a tracepoint's print format: see flagnames.h.
 *
 * The table's values are C constant expressions as the kernel's macros
 * expand them, e.g. ( unsigned long)(((( gfp_t)((((1UL))) << (10))) | ...)
 * & ~(( gfp_t)...)): numbers with u/l suffixes, casts, ~ - !, << >>, &, ^,
 * | and parentheses.  A small evaluator reads them here: libtraceevent's
 * parser of print formats is the one part of it ftr leaves out (formats.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "kernel/flagnames.h"

struct cur {
	const char *p;
	int err;
	int depth;	/* of parentheses and unary operators: bounded */
};

static void skip(struct cur *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

static uint64_t expr_or(struct cur *c);
static uint64_t unary(struct cur *c);
static uint64_t unary_at(struct cur *c);

/* (TYPE): words, and stars, in parentheses; a value in parentheses starts
 * with a digit or an operator. */
static bool at_cast(const char *p)
{
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ *");
	return *p == ')';
}

static uint64_t unary(struct cur *c)
{
	uint64_t v;

	skip(c);
	if (++c->depth > 256) {
		c->err = -EINVAL;
		return 0;
	}
	v = unary_at(c);
	c->depth--;
	return v;
}

static uint64_t unary_at(struct cur *c)
{
	uint64_t v;
	char *end;

	switch (*c->p) {
	case '~':
		c->p++;
		return ~unary(c);
	case '-':
		c->p++;
		return 0 - unary(c);
	case '!':
		c->p++;
		return !unary(c);
	case '(':
		if (at_cast(c->p)) {
			c->p = strchr(c->p, ')') + 1;
			return unary(c);	/* every type here is as wide as its value */
		}
		c->p++;
		v = expr_or(c);
		skip(c);
		if (*c->p != ')')
			c->err = -EINVAL;
		else
			c->p++;
		return v;
	}
	if (!isdigit((unsigned char)*c->p)) {
		c->err = -EINVAL;
		return 0;
	}
	errno = 0;
	v = strtoull(c->p, &end, 0);
	if (errno)
		c->err = -EINVAL;
	c->p = end + strspn(end, "uUlL");
	return v;
}

static uint64_t shift(struct cur *c)
{
	uint64_t v = unary(c), r;

	for (skip(c); !c->err && (!strncmp(c->p, "<<", 2) || !strncmp(c->p, ">>", 2)); skip(c)) {
		bool left = c->p[0] == '<';

		c->p += 2;
		r = unary(c);
		v = r > 63 ? 0 : left ? v << r : v >> r;
	}
	return v;
}

/* & ^ | at their C priorities (the expressions here hold no + or *). */
static uint64_t expr_and(struct cur *c)
{
	uint64_t v = shift(c);

	for (skip(c); !c->err && c->p[0] == '&' && c->p[1] != '&'; skip(c)) {
		c->p++;
		v &= shift(c);
	}
	return v;
}

static uint64_t expr_xor(struct cur *c)
{
	uint64_t v = expr_and(c);

	for (skip(c); !c->err && *c->p == '^'; skip(c)) {
		c->p++;
		v ^= expr_and(c);
	}
	return v;
}

static uint64_t expr_or(struct cur *c)
{
	uint64_t v = expr_xor(c);

	for (skip(c); !c->err && c->p[0] == '|' && c->p[1] != '|'; skip(c)) {
		c->p++;
		v |= expr_xor(c);
	}
	return v;
}

/* "text": copied (at most len - 1 bytes, no escapes in these names). */
static int quoted(struct cur *c, char *out, size_t len)
{
	const char *e;

	skip(c);
	if (*c->p != '"' || !(e = strchr(c->p + 1, '"')))
		return -EINVAL;
	snprintf(out, len, "%.*s", (int)(e - c->p - 1), c->p + 1);
	c->p = e + 1;
	return 0;
}

static bool punct(struct cur *c, char ch)
{
	skip(c);
	if (*c->p != ch)
		return false;
	c->p++;
	return true;
}

int flagnames_parse(const char *fmt, const char *field, struct flagnames *out, char *why,
		    size_t wlen)
{
	char head[96], name[128];
	struct cur c;
	const char *at;

	memset(out, 0, sizeof(*out));
	snprintf(head, sizeof(head), "__print_flags(REC->%s,", field);
	at = strstr(fmt, head);
	if (!at) {
		snprintf(why, wlen, "no __print_flags(REC->%s, ...) in its print format", field);
		return -ENOENT;
	}
	c.p = at + strlen(head);
	c.err = 0;
	c.depth = 0;
	if (quoted(&c, out->delim, sizeof(out->delim)) || !punct(&c, ','))
		goto bad;
	for (;;) {
		struct flagname *v;
		uint64_t mask;

		if (!punct(&c, '{'))
			goto bad;
		mask = expr_or(&c);
		if (c.err || !punct(&c, ','))
			goto bad;
		skip(&c);
		if (*c.p != '"') {
			/* { 0, NULL }: the kernel's end of the table, ((void *)0) */
			if (expr_or(&c) || c.err || !punct(&c, '}'))
				goto bad;
			goto next;
		}
		if (quoted(&c, name, sizeof(name)) || !punct(&c, '}'))
			goto bad;
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v)
			goto nomem;
		out->v = v;
		v[out->n].mask = mask;
		v[out->n].name = strdup(name);
		if (!v[out->n].name)
			goto nomem;
		out->n++;
next:
		if (punct(&c, ')'))
			return 0;
		if (!punct(&c, ','))
			goto bad;
	}
nomem:
	flagnames_free(out);
	snprintf(why, wlen, "out of memory");
	return -ENOMEM;
bad:
	snprintf(why, wlen, "cannot read the table of __print_flags(REC->%s, ...) at "
		 "\"%.24s\"", field, c.p);
	flagnames_free(out);
	return -EINVAL;
}

int flagnames_load(const char *tdir, const char *sys, const char *ev, const char *field,
		   struct flagnames *out, char *why, size_t wlen)
{
	char path[512], sub[256];
	char *text;
	int ret;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tdir, sys, ev);
	text = read_file(path, NULL);
	if (!text) {
		snprintf(why, wlen, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	ret = flagnames_parse(text, field, out, sub, sizeof(sub));
	if (ret)
		snprintf(why, wlen, "%s:%s: %s", sys, ev, sub);
	free(text);
	return ret;
}

size_t flagnames_format(const struct flagnames *t, uint64_t v, char *out, size_t len)
{
	size_t off = 0;
	bool first = true;

#define PUT(...) (off += (size_t)snprintf(out + (off < len ? off : len), \
					  off < len ? len - off : 0, __VA_ARGS__))
	if (len)
		out[0] = '\0';
	if (!v) {
		PUT("none");
		return off;
	}
	for (size_t i = 0; i < t->n && v; i++) {
		if ((v & t->v[i].mask) != t->v[i].mask)
			continue;
		v &= ~t->v[i].mask;
		PUT("%s%s", first ? "" : t->delim, t->v[i].name);
		first = false;
	}
	if (v)
		PUT("%s0x%llx", first ? "" : t->delim, (unsigned long long)v);
#undef PUT
	return off < len ? off : len ? len - 1 : 0;
}

void flagnames_free(struct flagnames *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
