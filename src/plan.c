// SPDX-License-Identifier: GPL-2.0-or-later
/* The planner: see plan.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"
#include "plan.h"

struct rbuf {
	char *p;
	size_t len, off;
	char *why;
	size_t wlen;
	bool bad;
};

static void put(struct rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct rbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->bad)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->off, b->off < b->len ? b->len - b->off : 0, fmt, ap);
	va_end(ap);
	b->off += n;
	if (b->off >= b->len) {
		b->bad = true;
		snprintf(b->why, b->wlen, "the filter is too long");
	}
}

static void no(struct rbuf *b, const struct node *n, const char *what)
{
	if (!b->bad)
		snprintf(b->why, b->wlen, "%d:%d: %s is not an event field", n->line, n->col, what);
	b->bad = true;
}

static const char *binop(enum tok t)
{
	switch (t) {
	case T_OROR: return "||";
	case T_ANDAND: return "&&";
	case T_EQ: return "==";
	case T_NE: return "!=";
	case T_LT: return "<";
	case T_LE: return "<=";
	case T_GT: return ">";
	case T_GE: return ">=";
	case T_AND: return "&";
	case T_TILDE: return "~";
	case T_PLUS: return "+";
	case T_MINUS: return "-";
	case T_STAR: return "*";
	case T_SLASH: return "/";
	case T_PERCENT: return "%";
	default: return NULL;
	}
}

static void render(struct rbuf *b, const struct node *n)
{
	const char *op;

	if (b->bad)
		return;
	switch (n->k) {
	case N_INT:
		put(b, "%lld", (long long)n->ival);
		return;
	case N_STR:
		/* The filter grammar has no escapes: a quote cannot be said. */
		if (strchr(n->sval, '"')) {
			no(b, n, "a string with '\"'");
			return;
		}
		put(b, "\"%s\"", n->sval);
		return;
	case N_FIELD:
		put(b, "%s", n->sval);
		return;
	case N_BUILTIN:
		/* The event carries the thread id (common_pid) and the kernel
		 * knows comm and cpu; pid (the process) it does not. */
		if (n->ival == B_TID)
			put(b, "common_pid");
		else if (n->ival == B_COMM)
			put(b, "COMM");
		else if (n->ival == B_CPU)
			put(b, "CPU");
		else
			no(b, n, n->sval);
		return;
	case N_UNOP:
		if (n->op == T_NOT) {
			put(b, "!(");
			render(b, n->a);
			put(b, ")");
		} else if (n->op == T_MINUS && n->a->k == N_INT) {
			put(b, "-%lld", (long long)n->a->ival);
		} else {
			no(b, n, "this operator");
		}
		return;
	case N_BINOP:
		op = binop(n->op);
		if (!op) {
			no(b, n, "this operator");
			return;
		}
		put(b, "(");
		render(b, n->a);
		put(b, " %s ", op);
		render(b, n->b);
		put(b, ")");
		return;
	case N_MAP:
		no(b, n, "a map");
		return;
	case N_VAR:
		no(b, n, "a variable");
		return;
	default:
		no(b, n, "this expression");
		return;
	}
}

int plan_render_pred(const struct node *pred, char *buf, size_t len, char *why, size_t wlen)
{
	struct rbuf b = { buf, len, 0, why, wlen, false };

	if (len)
		buf[0] = '\0';
	render(&b, pred);
	return b.bad ? -EINVAL : 0;
}
