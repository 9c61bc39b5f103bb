// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event-filter expressions, from text to a tree: the lexer and a
 * precedence-climbing parser, with the errors of both (see expr.h for the
 * grammar).
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

/* ---- errors ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
void seterr(struct expr_err *err, int pos, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* ---- lexer ------------------------------------------------------------- */

enum tok {
	T_EOF, T_NUM, T_STR, T_IDENT, T_LP, T_RP,
	T_OR, T_AND, T_NOT, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE, T_BAND, T_GLOB, T_NGLOB,
	T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PCT,
};

struct token {
	enum tok t;
	int pos, len;			/* in the source */
	unsigned long long num;
	int base;
	const char *str;		/* T_STR: the text inside the quotes */
	int slen;
};

struct parser {
	const char *src;
	int at;				/* next unread column */
	struct token tok;		/* current token */
	struct token prev;		/* the one before, for messages */
	struct expr *x;
	struct expr_err *err;
	int depth;
	bool oom;
};

static bool k_isalnum(int c)
{
	return k_isdigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool k_isspace(int c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/*
 * The kernel's kstrtoull(s, 0, &v): "0x" with a hex digit after it is hex,
 * any other leading 0 is octal, else decimal; every character must be used.
 */
static int k_strtoull(const char *s, int n, unsigned long long *v, int *basep)
{
	unsigned long long acc = 0;
	int base = 10, i = 0;

	if (s[0] == '0') {
		if (n > 2 && (s[1] == 'x' || s[1] == 'X') &&
		    (k_isdigit(s[2]) || ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'f'))) {
			base = 16;
			i = 2;
		} else {
			base = 8;
		}
	}
	for (; i < n; i++) {
		int c = s[i], d;

		if (k_isdigit(c))
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -EINVAL;
		if (d >= base)
			return -EINVAL;
		if (acc > (ULLONG_MAX - d) / base)
			return -ERANGE;
		acc = acc * base + d;
	}
	*v = acc;
	*basep = base;
	return 0;
}

/* A token as the user typed it, for messages. */
static void tok_desc(const struct parser *p, const struct token *t, char *buf, size_t len)
{
	if (t->t == T_EOF)
		snprintf(buf, len, "end of input");
	else
		snprintf(buf, len, "'%.*s'", t->len > 40 ? 40 : t->len, p->src + t->pos);
}

static int lex(struct parser *p)
{
	const char *s = p->src;
	struct token *t = &p->tok;
	int i = p->at, c;

	p->prev = *t;
	while (k_isspace(s[i]))
		i++;
	memset(t, 0, sizeof(*t));
	t->pos = i;
	c = s[i];
	if (!c) {
		t->t = T_EOF;
		p->at = i;
		return 0;
	}
	if (k_isdigit(c)) {
		/* As the kernel: a number is every alphanumeric that follows. */
		int n = 0, r;

		while (k_isalnum(s[i + n]))
			n++;
		r = k_strtoull(s + i, n, &t->num, &t->base);
		if (r) {
			seterr(p->err, i, r == -ERANGE ? "number '%.*s' is larger than 64 bits" :
			       "invalid number '%.*s'", n > 40 ? 40 : n, s + i);
			return -1;
		}
		t->t = T_NUM;
		t->len = n;
		p->at = i + n;
		return 0;
	}
	if (c == '_' || k_isalnum(c)) {
		int n = 0;

		while (s[i + n] == '_' || k_isalnum(s[i + n]))
			n++;
		t->t = T_IDENT;
		t->len = n;
		p->at = i + n;
		if (s[p->at] == '.') {
			seterr(p->err, p->at, "field modifiers ('%.*s.') are not supported",
			       n, s + i);
			return -1;
		}
		return 0;
	}
	if (c == '"' || c == '\'') {
		/* Verbatim up to the next matching quote: the kernel has no escapes. */
		const char *end = strchr(s + i + 1, c);

		if (!end) {
			seterr(p->err, i, "unterminated string");
			return -1;
		}
		t->t = T_STR;
		t->str = s + i + 1;
		t->slen = (int)(end - (s + i + 1));
		t->len = t->slen + 2;
		p->at = i + t->len;
		return 0;
	}

	static const struct {
		char s[3];
		enum tok t;
	} ops[] = {
		/* two-character operators first */
		{ "||", T_OR }, { "&&", T_AND }, { "==", T_EQ }, { "!=", T_NE },
		{ "<=", T_LE }, { ">=", T_GE }, { "!~", T_NGLOB },
		{ "!", T_NOT }, { "<", T_LT }, { ">", T_GT }, { "&", T_BAND }, { "~", T_GLOB },
		{ "(", T_LP }, { ")", T_RP }, { "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR },
		{ "/", T_SLASH }, { "%", T_PCT },
	};
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		size_t n = strlen(ops[k].s);

		if (!strncmp(s + i, ops[k].s, n)) {
			t->t = ops[k].t;
			t->len = (int)n;
			p->at = i + (int)n;
			return 0;
		}
	}
	if (c == '=')
		seterr(p->err, i, "'=' is not an operator; did you mean '=='?");
	else if (c == '|')
		seterr(p->err, i, "'|' is not an operator; did you mean '||'?");
	else if (c > ' ' && c < 0x7f)
		seterr(p->err, i, "unexpected character '%c'", c);
	else
		seterr(p->err, i, "unexpected byte 0x%02x", (unsigned char)c);
	return -1;
}

/* ---- parser ------------------------------------------------------------ */

static struct node *mknode(struct parser *p, enum nop op, int pos)
{
	struct node *n;

	if (p->x->nnodes >= MAX_NODES) {
		seterr(p->err, pos, "expression too long (more than %d terms)", MAX_NODES);
		return NULL;
	}
	n = calloc(1, sizeof(*n));
	if (!n) {
		p->oom = true;
		seterr(p->err, -1, "out of memory");
		return NULL;
	}
	n->op = op;
	n->pos = pos;
	p->x->nnodes++;
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	node_free(n->l);
	node_free(n->r);
	free(n->text);
	free(n->p.kpat);
	free(n->p.mpat);
	free(n);
}

static struct node *parse_or(struct parser *p);

static struct node *binary(struct parser *p, enum nop op, int pos, struct node *l, struct node *r)
{
	struct node *n;

	if (!r) {
		node_free(l);
		return NULL;
	}
	n = mknode(p, op, pos);
	if (!n) {
		node_free(l);
		node_free(r);
		return NULL;
	}
	n->l = l;
	n->r = r;
	return n;
}

/* Something was needed and the current token is not it. */
static struct node *expected(struct parser *p, const char *what)
{
	char got[64], after[64];

	tok_desc(p, &p->tok, got, sizeof(got));
	if (p->prev.len) {
		tok_desc(p, &p->prev, after, sizeof(after));
		seterr(p->err, p->tok.pos, "expected %s after %s, found %s", what, after, got);
	} else {
		seterr(p->err, p->tok.pos, "expected %s, found %s", what, got);
	}
	return NULL;
}

static struct node *parse_primary(struct parser *p)
{
	struct token t = p->tok;
	struct node *n;

	switch (t.t) {
	case T_NUM:
		n = mknode(p, N_NUM, t.pos);
		if (!n)
			return NULL;
		n->mag = t.num;
		n->base = t.base;
		break;
	case T_STR:
	case T_IDENT:
		n = mknode(p, t.t == T_STR ? N_STR : N_FIELD, t.pos);
		if (!n)
			return NULL;
		n->text = t.t == T_STR ? strndup(t.str, t.slen) : strndup(p->src + t.pos, t.len);
		if (!n->text)
			goto oom;
		if (t.t == T_IDENT) {
			struct expr *x = p->x;

			if (x->nfields == x->capfields) {
				int cap = x->capfields ? 2 * x->capfields : 8;
				struct node **nf = realloc(x->fields, cap * sizeof(*nf));

				if (!nf)
					goto oom;
				x->fields = nf;
				x->capfields = cap;
			}
			x->fields[x->nfields++] = n;
		}
		break;
	case T_LP:
		if (++p->depth > 256) {
			seterr(p->err, t.pos, "parentheses nested too deeply");
			return NULL;
		}
		if (lex(p))
			return NULL;
		n = parse_or(p);
		if (!n)
			return NULL;
		if (p->tok.t != T_RP) {
			char got[64];

			node_free(n);
			if (p->tok.t == T_EOF) {
				seterr(p->err, t.pos, "unbalanced '(': no matching ')'");
				return NULL;
			}
			tok_desc(p, &p->tok, got, sizeof(got));
			seterr(p->err, p->tok.pos, "expected ')' or an operator, found %s", got);
			return NULL;
		}
		p->depth--;
		break;
	default:
		return expected(p, "a field, number or string");
	}
	if (lex(p)) {
		node_free(n);
		return NULL;
	}
	return n;
oom:
	node_free(n);
	p->oom = true;
	seterr(p->err, -1, "out of memory");
	return NULL;
}

static struct node *parse_unary(struct parser *p)
{
	struct node *n, *c;
	int pos = p->tok.pos;

	if (p->tok.t != T_MINUS)
		return parse_primary(p);
	if (++p->depth > 256) {
		seterr(p->err, pos, "expression nested too deeply");
		return NULL;
	}
	if (lex(p))
		return NULL;
	/* "-2" is one literal (the kernel's negative value), "-x" is arithmetic */
	if (p->tok.t == T_NUM) {
		c = parse_primary(p);
		if (!c)
			return NULL;
		c->neg = true;
		c->pos = pos;
		p->depth--;
		return c;
	}
	c = parse_unary(p);
	if (!c)
		return NULL;
	p->depth--;
	n = mknode(p, N_NEG, pos);
	if (!n) {
		node_free(c);
		return NULL;
	}
	n->l = c;
	return n;
}

static struct node *parse_product(struct parser *p)
{
	struct node *n = parse_unary(p);

	while (n && (p->tok.t == T_STAR || p->tok.t == T_SLASH || p->tok.t == T_PCT)) {
		enum nop op = p->tok.t == T_STAR ? N_MUL : p->tok.t == T_SLASH ? N_DIV : N_MOD;
		int pos = p->tok.pos;

		if (lex(p)) {
			node_free(n);
			return NULL;
		}
		n = binary(p, op, pos, n, parse_unary(p));
	}
	return n;
}

static struct node *parse_sum(struct parser *p)
{
	struct node *n = parse_product(p);

	while (n && (p->tok.t == T_PLUS || p->tok.t == T_MINUS)) {
		enum nop op = p->tok.t == T_PLUS ? N_ADD : N_SUB;
		int pos = p->tok.pos;

		if (lex(p)) {
			node_free(n);
			return NULL;
		}
		n = binary(p, op, pos, n, parse_product(p));
	}
	return n;
}

static enum nop cmp_op(enum tok t)
{
	switch (t) {
	case T_EQ: return N_EQ;
	case T_NE: return N_NE;
	case T_LT: return N_LT;
	case T_LE: return N_LE;
	case T_GT: return N_GT;
	case T_GE: return N_GE;
	case T_BAND: return N_BAND;
	case T_GLOB: return N_GLOB;
	case T_NGLOB: return N_NGLOB;
	default: return N_NUM;		/* not a comparison */
	}
}

static struct node *parse_cmp(struct parser *p)
{
	struct node *n = parse_sum(p);
	enum nop op;
	int pos;

	if (!n)
		return NULL;
	op = cmp_op(p->tok.t);
	if (op == N_NUM)
		return n;
	pos = p->tok.pos;
	if (lex(p)) {
		node_free(n);
		return NULL;
	}
	n = binary(p, op, pos, n, parse_sum(p));
	if (n && cmp_op(p->tok.t) != N_NUM) {
		/* C would read "a & 4 == 4" as "a & (4 == 4)": refuse to guess */
		seterr(p->err, p->tok.pos, "'%s' cannot follow '%s' without parentheses",
		       op_str[cmp_op(p->tok.t)], op_str[op]);
		node_free(n);
		return NULL;
	}
	return n;
}

static struct node *parse_not(struct parser *p)
{
	struct node *n, *c;
	int pos = p->tok.pos;

	if (p->tok.t != T_NOT)
		return parse_cmp(p);
	if (++p->depth > 256) {
		seterr(p->err, pos, "expression nested too deeply");
		return NULL;
	}
	if (lex(p))
		return NULL;
	c = parse_not(p);
	if (!c)
		return NULL;
	p->depth--;
	n = mknode(p, N_NOT, pos);
	if (!n) {
		node_free(c);
		return NULL;
	}
	n->l = c;
	return n;
}

static struct node *parse_and(struct parser *p)
{
	struct node *n = parse_not(p);

	while (n && p->tok.t == T_AND) {
		int pos = p->tok.pos;

		if (lex(p)) {
			node_free(n);
			return NULL;
		}
		n = binary(p, N_AND, pos, n, parse_not(p));
	}
	return n;
}

static struct node *parse_or(struct parser *p)
{
	struct node *n = parse_and(p);

	while (n && p->tok.t == T_OR) {
		int pos = p->tok.pos;

		if (lex(p)) {
			node_free(n);
			return NULL;
		}
		n = binary(p, N_OR, pos, n, parse_and(p));
	}
	return n;
}

void expr_free(struct expr *e)
{
	if (!e)
		return;
	node_free(e->root);
	free(e->fields);
	free(e);
}

struct expr *expr_parse(const char *text, struct expr_err *err)
{
	struct parser p = { .src = text ? text : "", .err = err };
	struct expr *x;

	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		seterr(err, -1, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	p.x = x;
	if (lex(&p))
		goto fail;
	if (p.tok.t == T_EOF) {
		seterr(err, 0, "empty expression");
		goto fail;
	}
	x->root = parse_or(&p);
	if (!x->root)
		goto fail;
	if (p.tok.t != T_EOF) {
		char got[64];

		tok_desc(&p, &p.tok, got, sizeof(got));
		if (p.tok.t == T_RP)
			seterr(err, p.tok.pos, "unbalanced ')'");
		else if (p.tok.t == T_LP || p.tok.t == T_NOT)
			seterr(err, p.tok.pos, "unexpected %s; missing '&&' or '||'?", got);
		else
			seterr(err, p.tok.pos, "expected an operator, found %s", got);
		goto fail;
	}
	return x;
fail:
	errno = p.oom ? ENOMEM : EINVAL;
	expr_free(x);
	return NULL;
}
