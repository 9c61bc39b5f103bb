// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event-filter expressions written back: as text (expr_format), and as the
 * kernel's filter where the kernel can evaluate all of it with the same
 * answer (expr_kernel_ok says why not where it cannot; see expr.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "filter/expr-int.h"

/* ---- rendering --------------------------------------------------------- */

struct out {
	char *buf;
	size_t len, pos;
	bool over;
};

__attribute__((format(printf, 2, 3)))
static void put(struct out *o, const char *fmt, ...)
{
	size_t room = o->pos < o->len ? o->len - o->pos : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + (room ? o->pos : 0), room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		o->over = true;
	o->pos += n > 0 ? (size_t)n : 0;
}

static int finish(struct out *o)
{
	if (o->over || o->pos >= o->len) {
		if (o->len)
			o->buf[0] = '\0';
		return -ENOSPC;
	}
	return 0;
}

/* Numbers as written: the kernel's kstrtoll/kstrtoull read all three bases. */
static void put_num(struct out *o, const struct node *n)
{
	const char *sign = n->neg ? "-" : "";
	char tmp[32];

	if (n->base == 16)
		put(o, "%s0x%llx", sign, n->mag);
	else if (n->base == 8 && n->mag &&
		 snprintf(tmp, sizeof(tmp), "%s0%llo", sign, n->mag) < K_MAX_NUM_LEN)
		put(o, "%s", tmp);
	else
		put(o, "%s%llu", sign, n->mag);
}

/* Strings are verbatim between quotes: use the quote they do not contain. */
static char quote_for(const char *s)
{
	return !strchr(s, '"') ? '"' : !strchr(s, '\'') ? '\'' : 0;
}

static void put_str(struct out *o, const char *s)
{
	char q = quote_for(s);

	put(o, "%c%s%c", q ? q : '"', s, q ? q : '"');
}

static void fmt_node(struct out *o, const struct node *n, int min)
{
	int p = prec(n->op);
	bool paren = p < min;

	if (paren)
		put(o, "(");
	switch (n->op) {
	case N_NUM:
		put_num(o, n);
		break;
	case N_STR:
		put_str(o, n->text);
		break;
	case N_FIELD:
		put(o, "%s", n->text);
		break;
	case N_NOT:
		/* always parenthesized: "!a == 1" reads as C's (!a) == 1 */
		put(o, "!(");
		fmt_node(o, n->l, 0);
		put(o, ")");
		break;
	case N_NEG:
		put(o, "-");
		fmt_node(o, n->l, n->l->op == N_NUM || n->l->op == N_NEG ? PR_PRIMARY + 1 :
				  PR_UNARY);
		break;
	default:
		fmt_node(o, n->l, p == PR_CMP ? PR_CMP + 1 : p);
		put(o, " %s ", op_str[n->op]);
		fmt_node(o, n->r, p + 1);
		break;
	}
	if (paren)
		put(o, ")");
}

int expr_format(const struct expr *e, char *buf, size_t len)
{
	struct out o = { buf, len, 0, false };

	if (!e || !e->root)
		return -EINVAL;
	fmt_node(&o, e->root, 0);
	return finish(&o);
}

static bool has_field(const struct node *n)
{
	return n && (n->op == N_FIELD || has_field(n->l) || has_field(n->r));
}

/* The first arithmetic operator below n, or NULL. */
static const struct node *find_arith(const struct node *n)
{
	const struct node *a;

	if (!n)
		return NULL;
	if (is_arith(n->op))
		return n;
	a = find_arith(n->l);
	return a ? a : find_arith(n->r);
}

__attribute__((format(printf, 3, 4)))
static bool why_not(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return false;
}

static bool kname_ok(const struct node *f, char *why, size_t len)
{
	if (f->f.kname)
		return true;
	return why_not(why, len, "'%s' at column %d: every spelling of the kernel's %s field "
		       "is taken by a field of this event", f->text, f->pos + 1,
		       f->f.kind == FK_CPU ? "cpu" : "comm");
}

static bool arith_why(const struct node *a, char *why, size_t len)
{
	return why_not(why, len, "'%s' at column %d: arithmetic is evaluated by ftr only",
		       op_str[a->op], a->pos + 1);
}

/* Is the condition n something the kernel's filter evaluates the same way? */
static bool kok(const struct node *n, char *why, size_t len)
{
	const struct node *a;

	switch (n->op) {
	case N_AND:
	case N_OR:
		return kok(n->l, why, len) && kok(n->r, why, len);
	case N_NOT:
		return kok(n->l, why, len);
	case N_FIELD:
		return kname_ok(n, why, len);
	default:
		break;
	}
	if (!is_cmp(n->op)) {
		a = find_arith(n);
		if (a)
			return arith_why(a, why, len);
		return why_not(why, len, "a constant used as a condition at column %d",
			       n->pos + 1);
	}
	switch (n->p.type) {
	case P_NUM:
		return kname_ok(n->p.fld, why, len);
	case P_CPU:
		if (n->op == N_BAND)
			/* filter_pred_cpu() has no case for OP_BAND: never true */
			return why_not(why, len, "'&' at column %d: the kernel's cpu field has "
				       "no '&'", n->pos + 1);
		return kname_ok(n->p.fld, why, len);
	case P_STR:
	case P_COMM:
		a = n->l->op == N_STR ? n->l : n->r;
		if (!quote_for(n->p.kpat))
			return why_not(why, len, "the string at column %d has both kinds of quote",
				       a->pos + 1);
		if (strlen(n->p.kpat) >= K_MAX_STR_VAL)
			return why_not(why, len, "the string at column %d is longer than the "
				       "kernel's %d bytes", a->pos + 1, K_MAX_STR_VAL - 1);
		return kname_ok(n->p.fld, why, len);
	default:
		a = find_arith(n);
		if (a)
			return arith_why(a, why, len);
		if (n->l->op == N_FIELD && n->r->op == N_FIELD)
			return why_not(why, len, "'%s' at column %d compares two fields",
				       op_str[n->op], n->pos + 1);
		if (!has_field(n))
			return why_not(why, len, "'%s' at column %d compares no field",
				       op_str[n->op], n->pos + 1);
		return why_not(why, len, "'%s' at column %d is not a field-against-value "
			       "comparison", op_str[n->op], n->pos + 1);
	}
}

/* The kernel's grammar: "field op value", '!' only before a predicate or
 * a parenthesis, && tighter than ||. */
static void kren(struct out *o, const struct node *n, int min)
{
	const struct node *f;
	int p = prec(n->op);

	switch (n->op) {
	case N_AND:
	case N_OR:
		if (p < min)
			put(o, "(");
		kren(o, n->l, p);
		put(o, " %s ", op_str[n->op]);
		kren(o, n->r, p + 1);
		if (p < min)
			put(o, ")");
		return;
	case N_NOT:
		put(o, "!(");
		kren(o, n->l, 0);
		put(o, ")");
		return;
	case N_FIELD:
		/* a bare field: non-zero, or non-empty */
		put(o, "%s != %s", n->f.kname, is_str_kind(n->f.kind) ? "\"\"" : "0");
		return;
	default:
		break;
	}
	f = n->p.fld;
	if (n->op == N_NGLOB)
		put(o, "!(");
	put(o, "%s %s ", f->f.kname, op_str[n->op == N_NGLOB ? N_GLOB : n->p.kop]);
	if (n->p.type == P_STR || n->p.type == P_COMM)
		put_str(o, n->p.kpat);
	else
		put_num(o, n->l == f ? n->r : n->l);
	if (n->op == N_NGLOB)
		put(o, ")");
}

bool expr_kernel_ok(const struct expr *e, char *why, size_t len)
{
	char buf[K_MAX_FILTER];
	struct out o = { buf, sizeof(buf), 0, false };

	if (why && len)
		why[0] = '\0';
	if (!e || !e->bound)
		return why_not(why, len, "not bound to an event");
	if (!kok(e->root, why, len))
		return false;
	kren(&o, e->root, 0);
	if (finish(&o))
		return why_not(why, len, "longer than the kernel's %d-byte filter limit",
			       K_MAX_FILTER - 1);
	return true;
}

int expr_to_kernel(const struct expr *e, char *buf, size_t len)
{
	struct out o = { buf, len, 0, false };

	if (!e || !e->bound || !kok(e->root, NULL, 0)) {
		if (len)
			buf[0] = '\0';
		return -EINVAL;
	}
	kren(&o, e->root, 0);
	return finish(&o);
}

int expr_fields(const struct expr *e, const char **names, int max)
{
	int n = 0;

	if (!e)
		return 0;
	for (int i = 0; i < e->nfields; i++) {
		const char *name = e->fields[i]->text;
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(e->fields[j]->text, name);
		if (seen)
			continue;
		if (n < max)
			names[n] = name;
		n++;
	}
	return n;
}
