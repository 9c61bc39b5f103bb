// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A filter expression read for what it says in ftr's language: the comm it
 * fixes (expr_fixed_comm), and the whole of it as a predicate
 * (expr_to_lang), so that `ftr count -f` and `ftr hist -f` are the
 * programs they stand for, planned by the one planner.  See expr.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filter/expr.h"
#include "filter/expr-int.h"

static const char *fixed_comm(const struct node *n)
{
	const char *l;

	if (!n)
		return NULL;
	if (n->op == N_AND) {
		l = fixed_comm(n->l);
		return l ? l : fixed_comm(n->r);
	}
	if (n->op != N_EQ || n->p.type != P_COMM || n->p.not || n->p.m != M_FULL ||
	    !n->p.kpat || !*n->p.kpat || strpbrk(n->p.kpat, "*?[]\\") ||
	    strlen(n->p.kpat) >= K_TASK_COMM_LEN)
		return NULL;
	return n->p.kpat;
}

const char *expr_fixed_comm(const struct expr *e)
{
	return e && e->bound ? fixed_comm(e->root) : NULL;
}

struct lout {
	char *buf, *why;
	size_t len, off, wlen;
	bool (*has_field)(const char *name, void *arg);
	void *arg;
	int err;
};

__attribute__((format(printf, 2, 3)))
static void lput(struct lout *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->off, o->off < o->len ? o->len - o->off : 0, fmt, ap);
	va_end(ap);
	o->off += n > 0 ? (size_t)n : 0;
	if (o->off >= o->len && !o->err)
		o->err = -ENOSPC;
}

__attribute__((format(printf, 3, 4)))
static void lnot(struct lout *o, const struct node *n, const char *fmt, ...)
{
	va_list ap;
	int at;

	if (o->err)
		return;
	o->err = -ENOTSUP;
	va_start(ap, fmt);
	at = vsnprintf(o->why, o->wlen, fmt, ap);
	va_end(ap);
	if (at >= 0 && (size_t)at < o->wlen)
		snprintf(o->why + at, o->wlen - at, " (column %d)", n->pos + 1);
}

/* A field: the kernel's generic spellings are the task's (comm, cpu) unless
 * the event has a field of that spelling, which wins (expr.h). */
static void lfield(struct lout *o, const struct node *n)
{
	static const struct {
		const char *name, *lang;
	} generic[] = { { "comm", "comm" }, { "COMM", "comm" }, { "cpu", "cpu" }, { "CPU", "cpu" },
			{ "common_cpu", "cpu" }, { "common_pid", "tid" } };

	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (!strcmp(n->text, generic[i].name)) {
			if (!strcmp(n->text, "common_pid") || !o->has_field(n->text, o->arg))
				lput(o, "%s", generic[i].lang);
			else
				lput(o, "args.%s", n->text);
			return;
		}
	if (!strncmp(n->text, "common_", 7))
		lnot(o, n, "'%s' is no field a program names", n->text);
	else
		lput(o, "args.%s", n->text);
}

static void lnode(struct lout *o, const struct node *n)
{
	static const char *const ops[] = {
		[N_AND] = "&&", [N_OR] = "||", [N_EQ] = "==", [N_NE] = "!=", [N_LT] = "<",
		[N_LE] = "<=", [N_GT] = ">", [N_GE] = ">=",
	};

	switch (n->op) {
	case N_NUM:
		lput(o, "%s%llu", n->neg ? "-" : "", n->mag);
		return;
	case N_STR:
		/* verbatim in a filter; a program's strings have escapes, and
		 * the kernel's == on strings globs */
		if (strpbrk(n->text, "\"\\*?["))
			lnot(o, n, "the string \"%s\" is a pattern or needs escapes", n->text);
		lput(o, "\"%s\"", n->text);
		return;
	case N_FIELD:
		lfield(o, n);
		return;
	case N_NOT:
		lput(o, "!(");
		lnode(o, n->l);
		lput(o, ")");
		return;
	case N_BAND:	/* true when the bits and is not 0 */
		lput(o, "((");
		lnode(o, n->l);
		lput(o, " & ");
		lnode(o, n->r);
		lput(o, ") != 0)");
		return;
	case N_AND: case N_OR: case N_EQ: case N_NE: case N_LT: case N_LE: case N_GT: case N_GE:
		lput(o, "(");
		lnode(o, n->l);
		lput(o, " %s ", ops[n->op]);
		lnode(o, n->r);
		lput(o, ")");
		return;
	default:
		/* ~ and !~ globs, and ftr's arithmetic (x / 0 is 0 here, 1 in a
		 * program) */
		lnot(o, n, "'%s' has no like in a program's predicate",
		     n->op == N_GLOB ? "~" : n->op == N_NGLOB ? "!~" : "arithmetic");
		return;
	}
}

int expr_to_lang(const struct expr *e, bool (*has_field)(const char *name, void *arg), void *arg,
		 char *buf, size_t len, char *why, size_t wlen)
{
	struct lout o = { buf, why, len, 0, wlen, has_field, arg, 0 };

	if (!e || !e->root || !len)
		return -EINVAL;
	buf[0] = '\0';
	lnode(&o, e->root);
	return o.err;
}
