// SPDX-License-Identifier: GPL-2.0-or-later
/* The planner: see filtertext.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "lang/plan/filtertext.h"

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

static void no(struct rbuf *b, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void no(struct rbuf *b, const struct node *n, const char *fmt, ...)
{
	va_list ap;
	int off;

	if (!b->bad) {
		off = snprintf(b->why, b->wlen, "%d:%d: ", n->line, n->col);
		va_start(ap, fmt);
		if (off >= 0 && (size_t)off < b->wlen)
			vsnprintf(b->why + off, b->wlen - off, fmt, ap);
		va_end(ap);
	}
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
	case T_NTILDE: return "!~";	/* the kernel gets !(f ~ "glob") (filter/render.c) */
	default: return NULL;
	}
}

/* A truth value: the filter syntax has these as conditions only, not as
 * numbers, and its '!' takes a whole comparison ("!(fd) == 1" is
 * !(fd == 1) there, (!fd) == 1 here). */
static bool is_cond(const struct node *n)
{
	if (n->k == N_UNOP)
		return n->op == T_NOT;
	if (n->k != N_BINOP)
		return false;
	switch (n->op) {
	case T_OROR: case T_ANDAND: case T_EQ: case T_NE: case T_LT: case T_LE: case T_GT:
	case T_GE: case T_TILDE: case T_NTILDE:
		return true;
	default:
		return false;
	}
}

/* A string: typed by the semantic pass, or visibly one. */
static bool is_str(const struct node *n)
{
	return n->type == VT_STR || n->k == N_STR || (n->k == N_BUILTIN && n->ival == B_COMM);
}

static void render(struct rbuf *b, const struct node *n)
{
	const char *op;

	if (b->bad)
		return;
	switch (n->k) {
	case N_INT:
		/* A literal above INT64_MAX (0xffffffffffffffff) wrapped
		 * when lexed: it is the unsigned number written. */
		put(b, n->ival < 0 ? "%llu" : "%lld", (unsigned long long)n->ival);
		return;
	case N_STR:
		/* The filter grammar has no escapes: a quote cannot be said. */
		if (strchr(n->sval, '"')) {
			no(b, n, "a string with '\"' cannot be written in a filter");
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
			no(b, n, "%s is not an event field", n->sval);
		return;
	case N_UNOP:
		if (n->op == T_NOT) {
			put(b, "!(");
			render(b, n->a);
			put(b, ")");
		} else if (n->op == T_MINUS && n->a->k == N_INT) {
			put(b, "-%lld", (long long)n->a->ival);
		} else {
			no(b, n, "%s has no filter form%s", lang_tok_str(n->op),
			   n->op == T_MINUS ? " except before a number" : "");
		}
		return;
	case N_BINOP:
		/* The kernel's filter has no arithmetic: the interpreter
		 * keeps it. */
		if (n->op == T_PLUS || n->op == T_MINUS || n->op == T_STAR || n->op == T_SLASH ||
		    n->op == T_PERCENT) {
			no(b, n, "%s: arithmetic has no kernel filter form", lang_tok_str(n->op));
			return;
		}
		op = binop(n->op);
		if (!op) {
			no(b, n, "%s has no filter form", lang_tok_str(n->op));
			return;
		}
		if (n->op != T_ANDAND && n->op != T_OROR) {
			const struct node *c = is_cond(n->a) ? n->a : is_cond(n->b) ? n->b : NULL;

			if (c) {
				no(b, c, "a comparison used as a number (an operand of %s) has no "
				   "filter form", lang_tok_str(n->op));
				return;
			}
		}
		if ((n->op == T_LT || n->op == T_LE || n->op == T_GT || n->op == T_GE) &&
		    (is_str(n->a) || is_str(n->b))) {
			no(b, n, "%s on strings has no filter form", lang_tok_str(n->op));
			return;
		}
		/*
		 * A syscall's int argument sits in 8 unsigned bytes: the
		 * language reads it as the int it is (dfd == -100), the kernel
		 * compares all 64 bits unsigned, so -100 < 0 there is false.
		 * Only == and != against a number an int holds alike both ways.
		 */
		if (n->op != T_ANDAND && n->op != T_OROR) {
			const struct node *f = n->a->k == N_FIELD && n->a->int_in_long ? n->a :
					       n->b->k == N_FIELD && n->b->int_in_long ? n->b : NULL;
			const struct node *v = f == n->a ? n->b : n->a;

			if (f && !((n->op == T_EQ || n->op == T_NE) && v->k == N_INT &&
				   v->ival >= 0 && v->ival <= INT32_MAX)) {
				no(b, n, "%s on %s, an int the kernel compares as an unsigned "
				   "64-bit number", lang_tok_str(n->op), f->sval);
				return;
			}
		}
		/* A string field against a "quoted" string, and nothing else. */
		if ((n->op == T_EQ || n->op == T_NE) && is_str(n->a) && is_str(n->b) &&
		    (n->a->k == N_STR) == (n->b->k == N_STR)) {
			no(b, n, "%s between two strings has no filter form but for a string "
			   "and a \"quoted\" one", lang_tok_str(n->op));
			return;
		}
		put(b, "(");
		render(b, n->a);
		put(b, " %s ", op);
		render(b, n->b);
		put(b, ")");
		return;
	case N_MAP:
		no(b, n, "a map is not an event field");
		return;
	case N_VAR:
		no(b, n, "a variable is not an event field");
		return;
	case N_CALL:
		no(b, n, "%s() is not an event field", n->sval);
		return;
	case N_TERNARY:
		no(b, n, "'?:' has no filter form");
		return;
	default:
		no(b, n, "this expression has no filter form");
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

int plan_field_elem(const struct node *n)
{
	long k;

	if (!n || !n->a || n->a->k != N_FIELD || !n->a->sval[0])
		return -1;
	if (n->k == N_INDEX && n->b && n->b->k == N_INT)
		k = (long)n->b->ival;
	else if (n->k == N_MEMBER && n->op == T_DOT && n->sval && n->sval[0] &&
		 strspn(n->sval, "0123456789") == strlen(n->sval) && strlen(n->sval) < 4)
		k = strtol(n->sval, NULL, 10);
	else
		return -1;
	return k >= 0 && k < PLAN_JOIN_MAX ? (int)k : -1;
}

static int fields_walk(const struct node *n, struct plan_field *f, int nf, int max)
{
	for (; n && nf >= 0; n = n->next) {
		bool str = n->k == N_CALL && !strcmp(n->sval, "str") && n->nargs;
		/* str(args.F[K]): F's strings, as join(args.F) reads them */
		bool elem = str && plan_field_elem(n->args[0]) >= 0;
		bool join = elem || (n->k == N_CALL && !strcmp(n->sval, "join"));
		bool buf = n->k == N_CALL && !strcmp(n->sval, "buf");
		const struct node *fld = n->k == N_FIELD ? n :
					 elem ? n->args[0]->a :
					 n->k == N_CALL && (join || buf || str) &&
					 n->nargs && n->args[0]->k == N_FIELD ? n->args[0] : NULL;
		int i = 0;

		if (fld) {
			while (i < nf && strcmp(f[i].name, fld->sval))
				i++;
			if (i == nf) {
				if (nf == max)
					return -ENOSPC;
				snprintf(f[nf].name, sizeof(f[nf].name), "%s", fld->sval);
				f[nf].join = f[nf].buf = false;
				f[nf++].str = false;
			}
			f[i].str |= fld != n && !buf;
			f[i].join |= join && fld != n;
			f[i].buf |= buf && fld != n;
		}
		nf = fields_walk(n->a, f, nf, max);
		nf = nf < 0 ? nf : fields_walk(n->b, f, nf, max);
		nf = nf < 0 ? nf : fields_walk(n->c, f, nf, max);
		for (int j = 0; j < n->nargs && nf >= 0; j++)
			nf = fields_walk(n->args[j], f, nf, max);
	}
	return nf;
}

int plan_clause_fields(const struct node *pred, const struct node *body, struct plan_field *f,
		       int max)
{
	int n = fields_walk(pred, f, 0, max);

	return n < 0 ? n : fields_walk(body, f, n, max);
}
