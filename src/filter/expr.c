// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event-filter expressions: parser, binder, evaluator, kernel renderer.  See
 * expr.h for the grammar and the contract.
 *
 * The evaluator does not re-invent the kernel's matching: every comparison
 * the kernel can do is evaluated here by a transcription of the kernel's
 * own predicate (kernel/trace/trace_events_filter.c, identical in 5.10 and
 * 6.18 for what is used here), on the same record bytes, oddities included:
 * == on char[N] is strncmp(field, pattern, N), and "*abc*" searches the
 * whole array with memcmp(), past the string's NUL.  Where the kernel's
 * predicate answers something other than what the user wrote, the kernel
 * rendering is adjusted (a pattern escaped) and the evaluator runs the
 * adjusted form, so both sides still agree:
 *
 *  - a '~' pattern "*abc" on a fixed char[N] field (and on comm) is the
 *    kernel's "end match", which compares the last bytes of the whole
 *    array, not of the string: "prev_comm ~ \"*zzy\"" never matches
 *    "xyzzy" (verified on 6.18).  ftr writes "*\abc" instead, which makes
 *    the kernel use its real glob_match().
 *  - a '~' pattern starting with a digit is the kernel's "index match" (a
 *    set_ftrace_filter feature that leaks into filters): "1*" is compared
 *    as the literal string "1*".  ftr writes "\1*".
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "filter/expr.h"
#include "filter/expr-int.h"

static const char *const op_str[] = {
	[N_NEG] = "-", [N_NOT] = "!", [N_AND] = "&&", [N_OR] = "||",
	[N_EQ] = "==", [N_NE] = "!=", [N_LT] = "<", [N_LE] = "<=", [N_GT] = ">",
	[N_GE] = ">=", [N_BAND] = "&", [N_GLOB] = "~", [N_NGLOB] = "!~",
	[N_ADD] = "+", [N_SUB] = "-", [N_MUL] = "*", [N_DIV] = "/", [N_MOD] = "%",
};

/* Binding precedence, for parenthesizing when rendering. */
enum { PR_OR = 1, PR_AND, PR_NOT, PR_CMP, PR_ADD, PR_MUL, PR_UNARY, PR_PRIMARY };

static int prec(enum nop op)
{
	switch (op) {
	case N_OR:
		return PR_OR;
	case N_AND:
		return PR_AND;
	case N_NOT:
		return PR_NOT;
	case N_EQ: case N_NE: case N_LT: case N_LE: case N_GT: case N_GE:
	case N_BAND: case N_GLOB: case N_NGLOB:
		return PR_CMP;
	case N_ADD: case N_SUB:
		return PR_ADD;
	case N_MUL: case N_DIV: case N_MOD:
		return PR_MUL;
	case N_NEG:
		return PR_UNARY;
	default:
		return PR_PRIMARY;
	}
}

static bool is_cmp(enum nop op)
{
	return prec(op) == PR_CMP;
}

static bool is_arith(enum nop op)
{
	return op == N_NEG || prec(op) == PR_ADD || prec(op) == PR_MUL;
}

/* ---- errors ------------------------------------------------------------ */

__attribute__((format(printf, 3, 4)))
static void seterr(struct expr_err *err, int pos, const char *fmt, ...)
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

static bool k_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

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

/* ---- binding ----------------------------------------------------------- */

static bool field_is_generic_cpu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "CPU") || !strcmp(name, "common_cpu");
}

static bool field_is_generic_comm(const char *name)
{
	return !strcmp(name, "comm") || !strcmp(name, "COMM");
}

/*
 * The kernel looks a filter's field up in the event's own fields, then in
 * its generic fields (cpu, CPU, common_cpu, comm, COMM), then in the common
 * fields (trace_find_event_field()).  Return a spelling of the generic field
 * that no field of this event shadows; common_cpu last, as it is the
 * youngest (stable backport).
 */
static const char *generic_kname(struct tep_event *ev, enum fkind kind)
{
	static const char *const cpu[] = { "cpu", "CPU", "common_cpu" };
	static const char *const comm[] = { "comm", "COMM" };
	const char *const *c = kind == FK_CPU ? cpu : comm;
	size_t n = kind == FK_CPU ? 3 : 2;

	for (size_t i = 0; i < n; i++)
		if (!tep_find_field(ev, c[i]))
			return c[i];
	return NULL;
}

/* "sched_switch's fields: a, b, ..., common_pid; also cpu, comm" */
static void unknown_field(struct tep_event *ev, const struct node *n, struct expr_err *err)
{
	struct tep_format_field *lists[2] = { ev->format.fields, ev->format.common_fields };
	char *b = err ? err->msg : NULL;
	size_t len = err ? sizeof(err->msg) : 0, off;
	const char *sep = "";

	if (!err)
		return;
	err->pos = n->pos;
	off = snprintf(b, len, "no field '%s' in %s:%s; fields: ", n->text,
		       ev->system ? ev->system : "?", ev->name ? ev->name : "?");
	if (off >= len)
		return;
	for (int l = 0; l < 2; l++) {
		for (struct tep_format_field *f = lists[l]; f; f = f->next) {
			size_t need = strlen(sep) + strlen(f->name);

			/* keep room for ", ..." */
			if (off + need + 6 >= len) {
				snprintf(b + off, len - off, ", ...");
				return;
			}
			off += snprintf(b + off, len - off, "%s%s", sep, f->name);
			sep = ", ";
		}
	}
	if (off < len)
		snprintf(b + off, len - off, "; also cpu, comm");
}

static int resolve_field(struct expr *x, struct node *n, struct expr_err *err)
{
	struct tep_event *ev = x->ev;
	struct tep_format_field *f = tep_find_field(ev, n->text);
	const char *type;

	memset(&n->f, 0, sizeof(n->f));
	if (!f && (field_is_generic_cpu(n->text) || field_is_generic_comm(n->text))) {
		n->f.kind = field_is_generic_cpu(n->text) ? FK_CPU : FK_COMM;
		n->f.sgn = n->f.kind == FK_CPU;
		n->f.size = 4;
		n->f.type = n->f.kind == FK_CPU ? "int" : "char[16]";
		n->f.kname = generic_kname(ev, n->f.kind);
		if (n->f.kind == FK_COMM) {
			/* comm is the current task's: looked up by common_pid */
			struct tep_format_field *pid = tep_find_common_field(ev, "common_pid");

			if (!pid) {
				seterr(err, n->pos, "'%s' needs common_pid, which %s:%s lacks",
				       n->text, ev->system, ev->name);
				return -1;
			}
			n->f.offset = pid->offset;
			n->f.size = pid->size;
			n->f.sgn = true;
		}
		return 0;
	}
	if (!f)
		f = tep_find_common_field(ev, n->text);
	if (!f) {
		unknown_field(ev, n, err);
		return -1;
	}
	type = f->type ? f->type : "";
	n->f.type = type;
	n->f.offset = f->offset;
	n->f.size = f->size;
	n->f.kname = n->text;

	/* filter_assign_type(), in the kernel's order */
	if (strstr(type, "__data_loc") || strstr(type, "__rel_loc")) {
		if (strstr(type, "cpumask")) {
			seterr(err, n->pos, "'%s' is a cpumask (%s); ftr cannot filter on cpumasks",
			       n->text, type);
			return -1;
		}
		if (!strstr(type, "char")) {
			seterr(err, n->pos, "'%s' is a dynamic array (%s); only char arrays "
			       "(strings) can be compared", n->text, type);
			return -1;
		}
		n->f.kind = strstr(type, "__rel_loc") ? FK_RSTR : FK_DSTR;
		if (f->size != 4) {
			seterr(err, n->pos, "'%s' (%s) has a %d-byte locator, not 4", n->text,
			       type, f->size);
			return -1;
		}
		return 0;
	}
	if (strchr(type, '[')) {
		if (!strstr(type, "char")) {
			seterr(err, n->pos, "'%s' is an array (%s); only char arrays (strings) "
			       "can be compared", n->text, type);
			return -1;
		}
		n->f.kind = FK_SSTR;
		return 0;
	}
	if (!strcmp(type, "char *") || !strcmp(type, "const char *")) {
		/* The kernel dereferences it at event time (kernel memory only
		 * without .ustring); the string is not in the record. */
		seterr(err, n->pos, "'%s' is a pointer (%s): the string it points to is not in "
		       "the event record, so ftr cannot compare it", n->text, type);
		return -1;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		seterr(err, n->pos, "'%s' is an array (%s); only char arrays (strings) can be "
		       "compared", n->text, type);
		return -1;
	}
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		/* select_comparison_fn() has no predicate for it: never true */
		seterr(err, n->pos, "'%s' (%s) is %d bytes; only 1, 2, 4 and 8-byte numbers can "
		       "be compared", n->text, type, f->size);
		return -1;
	}
	n->f.kind = FK_NUM;
	n->f.sgn = f->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

static bool is_str_kind(enum fkind k)
{
	return k == FK_SSTR || k == FK_DSTR || k == FK_RSTR || k == FK_COMM;
}

/* "'prev_comm', a string (char[16])" / "5, a number" / "the left side, a number" */
static void describe(const struct node *n, enum vtype t, char *buf, size_t len)
{
	const char *what = t == VT_STR ? "a string" : t == VT_NUM ? "a number" : "a condition";

	if (n->op == N_FIELD)
		snprintf(buf, len, "'%s', %s (%s)", n->text, what, n->f.type);
	else if (n->op == N_STR)
		snprintf(buf, len, "\"%.40s\", %s", n->text, what);
	else if (n->op == N_NUM)
		snprintf(buf, len, "%s%llu, %s", n->neg ? "-" : "", n->mag, what);
	else
		snprintf(buf, len, "the expression at column %d, %s", n->pos + 1, what);
}

/*
 * filter_parse_regex() without its leading '!': the kernel's choice of
 * match for a '~' pattern, and the part of the pattern it compares.
 */
static enum mtype classify(const char *b, int len, int *start, int *end)
{
	enum mtype type = M_FULL;

	*start = 0;
	*end = len;
	if (k_isdigit(b[0]))
		return M_FULL;		/* MATCH_INDEX, matched as MATCH_FULL */
	for (int i = 0; i < len; i++) {
		if (b[i] == '*') {
			if (!i) {
				type = M_END;
			} else if (i == len - 1) {
				type = type == M_END ? M_MIDDLE : M_FRONT;
				*end = i;
				break;
			} else {
				return M_GLOB;
			}
		} else if (b[i] == '[' || b[i] == '?' || b[i] == '\\') {
			return M_GLOB;
		}
	}
	if (b[0] == '*')
		*start = 1;
	return type;
}

/* The pattern to give the kernel for "field ~ pat" (see the top comment). */
static char *kernel_pattern(const char *pat, enum fkind kind)
{
	int bang = pat[0] == '!', len = (int)strlen(pat), start, end;
	const char *b = pat + bang;
	enum mtype m = classify(b, len - bang, &start, &end);
	char *k = malloc(len + 2);
	int at = -1;

	if (!k)
		return NULL;
	if (k_isdigit(b[0]) && strpbrk(b, "*?[\\"))
		at = bang;		/* "\1*": a glob, not an index */
	else if (m == M_END && (kind == FK_SSTR || kind == FK_COMM) && len - bang > 1)
		at = bang + 1;		/* "*\abc": a glob, not the array-end match */
	if (at < 0) {
		memcpy(k, pat, len + 1);
	} else {
		memcpy(k, pat, at);
		k[at] = '\\';
		memcpy(k + at + 1, pat + at, len - at + 1);
	}
	return k;
}

static int setup_str_pred(struct node *n, struct node *fld, struct node *lit, bool swapped,
			  struct expr_err *err)
{
	const char *src;
	int start, end, bang = 0;

	if (n->op != N_EQ && n->op != N_NE && n->op != N_GLOB && n->op != N_NGLOB) {
		seterr(err, n->pos, "'%s' does not apply to strings ('%s' is %s); use ==, != or ~",
		       op_str[n->op], fld->text, fld->f.type);
		return -1;
	}
	if (swapped && (n->op == N_GLOB || n->op == N_NGLOB)) {
		seterr(err, n->pos, "'%s' takes the field on its left and the pattern on its right",
		       op_str[n->op]);
		return -1;
	}
	n->p.type = fld->f.kind == FK_COMM ? P_COMM : P_STR;
	n->p.kop = n->op;
	n->p.fld = fld;
	if (n->op == N_EQ || n->op == N_NE) {
		/* == and != are MATCH_FULL on the pattern as written */
		n->p.kpat = strdup(lit->text);
		if (!n->p.kpat)
			goto oom;
		n->p.m = M_FULL;
		n->p.not = n->op == N_NE;
		start = 0;
		end = (int)strlen(n->p.kpat);
	} else {
		n->p.kpat = kernel_pattern(lit->text, fld->f.kind);
		if (!n->p.kpat)
			goto oom;
		/* filter_build_regex(): a leading '!' sets pred->not */
		bang = n->p.kpat[0] == '!';
		n->p.not = bang;
		n->p.m = classify(n->p.kpat + bang, (int)strlen(n->p.kpat) - bang, &start, &end);
	}
	src = n->p.kpat + bang;
	n->p.mpat = strndup(src + start, end - start);
	if (!n->p.mpat)
		goto oom;
	n->p.mlen = end - start;
	return 0;
oom:
	seterr(err, -1, "out of memory");
	return -1;
}

/*
 * A number for a numeric field, checked as the kernel's parse_pred() does:
 * kstrtoll() for a signed field, kstrtoull() (no '-') for an unsigned one;
 * the predicate then casts it to the field's type.  ftr is stricter on one
 * point: a value that fits the field's size in neither signedness would be
 * silently truncated by the kernel ("fd == 4294967297" is "fd == 1" on a
 * 4-byte fd), and for < <= > >= a value outside the field's own range would
 * change sign (0xffffffff is -1 to an int): both are refused.
 */
static int check_num_literal(const struct node *n, const struct node *fld,
			     const struct node *lit, unsigned long long *val, struct expr_err *err)
{
	int size = fld->op == N_FIELD ? fld->f.size : 8;
	bool sgn = fld->f.sgn, order = n->op != N_EQ && n->op != N_NE && n->op != N_BAND;
	const char *sign = sgn ? "signed" : "unsigned";
	long long lo;
	unsigned long long hi;

	if (fld->f.kind == FK_CPU)
		size = 4;
	if (!sgn && lit->neg) {
		seterr(err, lit->pos, "'%s' is unsigned (%s, %d bytes): the kernel refuses "
		       "negative values for it", fld->text, fld->f.type, size);
		return -1;
	}
	if (sgn && (lit->neg ? lit->mag > (1ULL << 63) : lit->mag > LLONG_MAX)) {
		seterr(err, lit->pos, "%s%llu is out of range for the signed '%s' (%s)",
		       lit->neg ? "-" : "", lit->mag, fld->text, fld->f.type);
		return -1;
	}
	*val = lit->neg ? 0 - lit->mag : lit->mag;
	if (size == 8)
		return 0;
	if (order && sgn) {
		lo = -(1LL << (8 * size - 1));
		hi = (1ULL << (8 * size - 1)) - 1;
	} else if (order || !sgn) {
		lo = 0;
		hi = (1ULL << (8 * size)) - 1;
	} else {
		lo = -(1LL << (8 * size - 1));
		hi = (1ULL << (8 * size)) - 1;
	}
	if (lit->neg ? (long long)*val < lo : lit->mag > hi) {
		seterr(err, lit->pos, "%s%llu does not fit the %s %d-byte '%s' (%s)",
		       lit->neg ? "-" : "", lit->mag, sign, size, fld->text, fld->f.type);
		return -1;
	}
	return 0;
}

static enum nop mirror(enum nop op)
{
	switch (op) {
	case N_LT: return N_GT;
	case N_LE: return N_GE;
	case N_GT: return N_LT;
	case N_GE: return N_LE;
	default: return op;
	}
}

static enum vtype bind_node(struct expr *x, struct node *n, struct expr_err *err);

/* An operand used as a condition: a comparison, a number, or a string field. */
static int bind_cond(struct expr *x, struct node *n, struct expr_err *err)
{
	enum vtype t = bind_node(x, n, err);

	if (t == VT_ERR)
		return -1;
	if (t == VT_STR && n->op != N_FIELD) {
		seterr(err, n->pos, "a string is not a condition; compare it with ==, != or ~");
		return -1;
	}
	return 0;
}

static int bind_number(struct expr *x, struct node *n, const struct node *op,
		       struct expr_err *err)
{
	enum vtype t = bind_node(x, n, err);
	char d[128];

	if (t == VT_ERR)
		return -1;
	if (t == VT_NUM)
		return 0;
	describe(n, t, d, sizeof(d));
	seterr(err, op->pos, "'%s' needs numbers, not %s", op_str[op->op], d);
	return -1;
}

static enum vtype bind_cmp(struct expr *x, struct node *n, struct expr_err *err)
{
	enum vtype lt = bind_node(x, n->l, err), rt;
	struct node *fld, *lit;
	bool swapped;
	char dl[128], dr[128];

	if (lt == VT_ERR)
		return VT_ERR;
	rt = bind_node(x, n->r, err);
	if (rt == VT_ERR)
		return VT_ERR;
	memset(&n->p, 0, sizeof(n->p));
	if (lt == VT_BOOL || rt == VT_BOOL) {
		seterr(err, (lt == VT_BOOL ? n->l : n->r)->pos,
		       "a comparison is not a value; '%s' needs %s on both sides",
		       op_str[n->op], n->op == N_GLOB || n->op == N_NGLOB ? "a string" : "values");
		return VT_ERR;
	}
	if ((n->op == N_GLOB || n->op == N_NGLOB) && (lt == VT_NUM || rt == VT_NUM)) {
		const struct node *num = lt == VT_NUM ? n->l : n->r;

		describe(num, VT_NUM, dl, sizeof(dl));
		seterr(err, n->pos, "'%s' matches strings, not %s", op_str[n->op], dl);
		return VT_ERR;
	}
	if (lt != rt) {
		describe(n->l, lt, dl, sizeof(dl));
		describe(n->r, rt, dr, sizeof(dr));
		seterr(err, n->pos, "cannot compare %s, with %s", dl, dr);
		return VT_ERR;
	}

	/* the kernel's shape: one field, one literal */
	swapped = n->l->op != N_FIELD && n->r->op == N_FIELD;
	fld = swapped ? n->r : n->l;
	lit = swapped ? n->l : n->r;
	if (lt == VT_STR) {
		if (fld->op == N_FIELD && lit->op == N_FIELD) {
			seterr(err, n->pos, "'%s' compares two string fields; a string field can "
			       "only be compared with a quoted string", op_str[n->op]);
			return VT_ERR;
		}
		if (fld->op != N_FIELD) {
			seterr(err, n->pos, "'%s' compares two constant strings", op_str[n->op]);
			return VT_ERR;
		}
		if (setup_str_pred(n, fld, lit, swapped, err))
			return VT_ERR;
		return VT_BOOL;
	}
	if (fld->op == N_FIELD && lit->op == N_NUM &&
	    (fld->f.kind == FK_NUM || fld->f.kind == FK_CPU)) {
		if (check_num_literal(n, fld, lit, &n->p.val, err))
			return VT_ERR;
		n->p.type = fld->f.kind == FK_CPU ? P_CPU : P_NUM;
		n->p.kop = swapped ? mirror(n->op) : n->op;
		n->p.fld = fld;
	} else {
		n->p.type = P_GENERIC;
	}
	return n->op == N_BAND ? VT_NUM : VT_BOOL;
}

static enum vtype bind_node(struct expr *x, struct node *n, struct expr_err *err)
{
	switch (n->op) {
	case N_NUM:
		if (n->neg && n->mag > (1ULL << 63)) {
			seterr(err, n->pos, "-%llu is below the smallest 64-bit number", n->mag);
			return VT_ERR;
		}
		return VT_NUM;
	case N_STR:
		return VT_STR;
	case N_FIELD:
		if (resolve_field(x, n, err))
			return VT_ERR;
		return is_str_kind(n->f.kind) ? VT_STR : VT_NUM;
	case N_NOT:
		return bind_cond(x, n->l, err) ? VT_ERR : VT_BOOL;
	case N_AND:
	case N_OR:
		if (bind_cond(x, n->l, err) || bind_cond(x, n->r, err))
			return VT_ERR;
		return VT_BOOL;
	case N_NEG:
		return bind_number(x, n->l, n, err) ? VT_ERR : VT_NUM;
	case N_ADD: case N_SUB: case N_MUL: case N_DIV: case N_MOD:
		if (bind_number(x, n->l, n, err) || bind_number(x, n->r, n, err))
			return VT_ERR;
		return VT_NUM;
	default:
		return bind_cmp(x, n, err);
	}
}

static void unbind(struct node *n)
{
	if (!n)
		return;
	unbind(n->l);
	unbind(n->r);
	free(n->p.kpat);
	free(n->p.mpat);
	memset(&n->p, 0, sizeof(n->p));
	memset(&n->f, 0, sizeof(n->f));
}

int expr_bind(struct expr *e, struct tep_event *ev, struct expr_err *err)
{
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	if (!e || !ev) {
		seterr(err, -1, "no expression or no event");
		return -EINVAL;
	}
	unbind(e->root);
	e->bound = false;
	e->ev = ev;
	e->tep = ev->tep;
	if (bind_cond(e, e->root, err)) {
		unbind(e->root);
		return -EINVAL;
	}
	e->bound = true;
	return 0;
}

/* ---- evaluation (hot path: no allocation, no formatting) --------------- */

struct val {
	uint64_t v;
	bool uns;			/* compare and divide as unsigned */
};

static int64_t sext(uint64_t v, int size)
{
	int shift = 64 - 8 * size;

	return size >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

static bool rd(const struct expr *x, const struct tep_record *rec, int off, int size,
	       uint64_t *v)
{
	if (off < 0 || size <= 0 || off + size > rec->size)
		return false;
	*v = tep_read_number(x->tep, (const char *)rec->data + off, size);
	return true;
}

static int cur_cpu(const struct tep_record *rec, const struct expr_ctx *ctx)
{
	return ctx && ctx->cpu >= 0 ? ctx->cpu : rec->cpu;
}

/* A string as the kernel's predicate sees it: pointer, its len argument, and
 * how many bytes may be read from it (the rest of the record). */
struct sview {
	const char *s;
	int len;
	size_t avail;
};

static bool get_str(const struct expr *x, const struct node *f, const struct tep_record *rec,
		    const struct expr_ctx *ctx, char comm[K_TASK_COMM_LEN], struct sview *sv)
{
	const char *data = rec->data;
	uint64_t item;
	size_t at;

	switch (f->f.kind) {
	case FK_SSTR:
		if (f->f.offset + f->f.size > rec->size)
			return false;
		sv->s = data + f->f.offset;
		sv->len = f->f.size;
		sv->avail = rec->size - f->f.offset;
		return true;
	case FK_DSTR:
	case FK_RSTR:
		if (!rd(x, rec, f->f.offset, 4, &item))
			return false;
		/* __data_loc: offset from the record start; __rel_loc: from the
		 * end of the locator (filter_pred_strloc/strrelloc) */
		at = (item & 0xffff) + (f->f.kind == FK_RSTR ? f->f.offset + 4 : 0);
		if (at > (size_t)rec->size)
			return false;
		sv->s = data + at;
		sv->len = (int)(item >> 16);
		sv->avail = rec->size - at;
		return true;
	case FK_COMM: {
		const char *c = NULL;
		uint64_t pid;

		memset(comm, 0, K_TASK_COMM_LEN);
		if (ctx && ctx->comm && rd(x, rec, f->f.offset, f->f.size, &pid))
			c = ctx->comm((int)sext(pid, f->f.size), ctx->arg);
		/* task->comm: at most 15 bytes, NUL-padded to TASK_COMM_LEN */
		if (c)
			strncpy(comm, c, K_TASK_COMM_LEN - 1);
		sv->s = comm;
		sv->len = K_TASK_COMM_LEN;
		sv->avail = K_TASK_COMM_LEN;
		return true;
	}
	default:
		return false;
	}
}

/* strncmp(s, pat, n) == 0, reading at most avail bytes of s */
static bool k_strneq(const char *s, size_t avail, const char *pat, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = i < avail ? s[i] : 0;

		if (c != (unsigned char)pat[i])
			return false;
		if (!c)
			return true;
	}
	return true;
}

/* lib/glob.c glob_match(), with the string ending at avail if no NUL comes first */
static bool k_glob(const char *pat, const char *str, size_t avail)
{
	const char *back_pat = NULL;
	size_t i = 0, back_i = 0;

	for (;;) {
		unsigned char c = i < avail ? (unsigned char)str[i] : 0;
		unsigned char d = *pat++;

		i++;
		switch (d) {
		case '?':
			if (c == '\0')
				return false;
			break;
		case '*':
			if (*pat == '\0')
				return true;
			back_pat = pat;
			back_i = --i;
			break;
		case '[': {
			bool match = false, inverted = (*pat == '!');
			const char *class = pat + inverted;
			unsigned char a = *class++;

			do {
				unsigned char b = a;

				if (a == '\0')
					goto literal;
				if (class[0] == '-' && class[1] != ']') {
					b = class[1];
					if (b == '\0')
						goto literal;
					class += 2;
				}
				match |= (a <= c && c <= b);
			} while ((a = *class++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = class;
			break;
		}
		case '\\':
			d = *pat++;
			/* fallthrough */
		default:
literal:
			if (c == d) {
				if (d == '\0')
					return true;
				break;
			}
backtrack:
			if (c == '\0' || !back_pat)
				return false;
			pat = back_pat;
			i = ++back_i;
			break;
		}
	}
}

/* regex_match_{full,front,middle,end,glob}() on the kernel's arguments */
static bool k_match(const struct node *n, const struct sview *sv)
{
	const char *s = sv->s, *pat = n->p.mpat;
	int len = sv->len, plen = n->p.mlen;
	size_t avail = sv->avail;

	switch (n->p.m) {
	case M_FULL:
		/* len 0: "str is dynamic and ends with '\0'": strcmp() */
		return k_strneq(s, avail, pat, len ? (size_t)len : SIZE_MAX);
	case M_FRONT:
		if (len && len < plen)
			return false;
		return k_strneq(s, avail, pat, plen);
	case M_MIDDLE: {
		size_t n_ = len ? (size_t)len : strnlen(s, avail);

		if (!plen)
			return true;
		/* strnstr() compares with memcmp(): it looks past a NUL */
		if (n_ > avail)
			n_ = avail;
		for (; n_ >= (size_t)plen; n_--, s++)
			if (!memcmp(s, pat, plen))
				return true;
		return false;
	}
	case M_END: {
		/* the last plen bytes before len - 1, whatever the string length */
		int slen = len - 1;

		return slen >= plen && (size_t)slen <= avail &&
		       !memcmp(s + slen - plen, pat, plen);
	}
	case M_GLOB:
		return k_glob(pat, s, avail);
	}
	return false;
}

static bool eval_bool(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx);

static struct val eval_num(const struct expr *x, const struct node *n,
			   const struct tep_record *rec, const struct expr_ctx *ctx)
{
	struct val a = { 0, false }, b;
	uint64_t raw;

	switch (n->op) {
	case N_NUM:
		a.v = n->neg ? 0 - n->mag : n->mag;
		a.uns = !n->neg && n->mag > LLONG_MAX;
		return a;
	case N_FIELD:
		if (n->f.kind == FK_CPU) {
			a.v = (uint64_t)(int64_t)cur_cpu(rec, ctx);
		} else if (rd(x, rec, n->f.offset, n->f.size, &raw)) {
			a.v = n->f.sgn ? (uint64_t)sext(raw, n->f.size) : raw;
			a.uns = !n->f.sgn && n->f.size == 8;
		}
		return a;
	case N_NEG:
		a = eval_num(x, n->l, rec, ctx);
		a.v = 0 - a.v;
		return a;
	default:
		break;
	}
	if (!is_arith(n->op) && n->op != N_BAND) {
		a.v = eval_bool(x, n, rec, ctx);
		return a;
	}
	a = eval_num(x, n->l, rec, ctx);
	b = eval_num(x, n->r, rec, ctx);
	a.uns |= b.uns;
	switch (n->op) {
	case N_ADD:
		a.v += b.v;
		break;
	case N_SUB:
		a.v -= b.v;
		break;
	case N_MUL:
		a.v *= b.v;
		break;
	case N_BAND:
		a.v &= b.v;
		break;
	case N_DIV:
	case N_MOD:
		if (!b.v) {
			a.v = 0;
		} else if (a.uns) {
			a.v = n->op == N_DIV ? a.v / b.v : a.v % b.v;
		} else if ((int64_t)a.v == INT64_MIN && (int64_t)b.v == -1) {
			a.v = n->op == N_DIV ? a.v : 0;	/* the one signed overflow */
		} else {
			a.v = n->op == N_DIV ? (uint64_t)((int64_t)a.v / (int64_t)b.v) :
					       (uint64_t)((int64_t)a.v % (int64_t)b.v);
		}
		break;
	default:
		break;
	}
	return a;
}

/* filter_pred_{s,u}{8,16,32,64}() and filter_pred_{8,16,32,64}() */
static bool k_cmp_num(enum nop op, uint64_t raw, int size, bool sgn, uint64_t val)
{
	uint64_t mask = size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
	int64_t sa, sb;

	switch (op) {
	case N_EQ:
		return (raw & mask) == (val & mask);
	case N_NE:
		return (raw & mask) != (val & mask);
	case N_BAND:
		return (raw & val & mask) != 0;
	default:
		break;
	}
	if (sgn) {
		sa = sext(raw, size);
		sb = sext(val, size);
		switch (op) {
		case N_LT: return sa < sb;
		case N_LE: return sa <= sb;
		case N_GT: return sa > sb;
		case N_GE: return sa >= sb;
		default: return false;
		}
	}
	raw &= mask;
	val &= mask;
	switch (op) {
	case N_LT: return raw < val;
	case N_LE: return raw <= val;
	case N_GT: return raw > val;
	case N_GE: return raw >= val;
	default: return false;
	}
}

static bool cmp_vals(enum nop op, struct val a, struct val b)
{
	bool uns = a.uns || b.uns;

	switch (op) {
	case N_EQ: return a.v == b.v;
	case N_NE: return a.v != b.v;
	case N_BAND: return (a.v & b.v) != 0;
	case N_LT: return uns ? a.v < b.v : (int64_t)a.v < (int64_t)b.v;
	case N_LE: return uns ? a.v <= b.v : (int64_t)a.v <= (int64_t)b.v;
	case N_GT: return uns ? a.v > b.v : (int64_t)a.v > (int64_t)b.v;
	case N_GE: return uns ? a.v >= b.v : (int64_t)a.v >= (int64_t)b.v;
	default: return false;
	}
}

static bool eval_pred(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx)
{
	const struct node *f = n->p.fld;
	char comm[K_TASK_COMM_LEN];
	struct sview sv;
	uint64_t raw;
	bool m;

	switch (n->p.type) {
	case P_NUM:
		if (!rd(x, rec, f->f.offset, f->f.size, &raw))
			return false;
		return k_cmp_num(n->p.kop, raw, f->f.size, f->f.sgn, n->p.val);
	case P_CPU:
		/* filter_pred_cpu(): int against (int)val */
		return k_cmp_num(n->p.kop, (uint32_t)cur_cpu(rec, ctx), 4, true, n->p.val);
	case P_STR:
	case P_COMM:
		if (!get_str(x, f, rec, ctx, comm, &sv))
			return false;
		m = k_match(n, &sv) ^ n->p.not;
		return n->op == N_NGLOB ? !m : m;
	case P_GENERIC:
		if (n->op == N_BAND)
			return eval_num(x, n, rec, ctx).v != 0;
		return cmp_vals(n->op, eval_num(x, n->l, rec, ctx), eval_num(x, n->r, rec, ctx));
	default:
		return false;
	}
}

static bool eval_bool(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx)
{
	char comm[K_TASK_COMM_LEN];
	struct sview sv;

	switch (n->op) {
	case N_AND:
		return eval_bool(x, n->l, rec, ctx) && eval_bool(x, n->r, rec, ctx);
	case N_OR:
		return eval_bool(x, n->l, rec, ctx) || eval_bool(x, n->r, rec, ctx);
	case N_NOT:
		return !eval_bool(x, n->l, rec, ctx);
	case N_FIELD:
		if (is_str_kind(n->f.kind))
			/* as the kernel's f != "": first byte non-NUL */
			return get_str(x, n, rec, ctx, comm, &sv) && sv.avail && sv.s[0];
		return eval_num(x, n, rec, ctx).v != 0;
	default:
		if (is_cmp(n->op))
			return eval_pred(x, n, rec, ctx);
		return eval_num(x, n, rec, ctx).v != 0;
	}
}

bool expr_glob(const char *pat, const char *s, size_t len)
{
	/* The kernel's rule: a pattern starting with '!' matches what the rest
	 * does not. */
	if (*pat == '!')
		return !k_glob(pat + 1, s, len);
	return k_glob(pat, s, len);
}

bool expr_eval(const struct expr *e, const struct tep_record *rec, const struct expr_ctx *ctx)
{
	if (!e || !e->bound || !rec || !rec->data)
		return false;
	return eval_bool(e, e->root, rec, ctx);
}

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
