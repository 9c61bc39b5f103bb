// SPDX-License-Identifier: GPL-2.0-or-later
/* The language's lexer and recursive-descent parser: see lang.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ftr.h"
#include "lang/lang.h"

struct lexer {
	const char *src, *p;
	int line;
	const char *line_start;
	/* the current token */
	enum tok t;
	int tline, tcol;
	int64_t ival;
	char *sval;
	struct lang_err *err;
	bool failed;
	bool in_pred;		/* a predicate: '/' at paren depth 0 ends it */
	int parens;
	int nest;		/* the parser's own recursion */
	int depth;		/* the height of the expression just parsed */
};

/*
 * Bounds on nesting: the parser, node_free, the planner and the interpreter
 * all recurse on the tree, and "((((...1))))" or "1+1+...+1" a few thousand
 * deep overflowed the stack (fuzz-lang).  No program a person writes comes
 * near either bound.
 */
#define MAX_NEST 256		/* (), [], calls, unary operators, ?:, nested ifs */
#define MAX_DEPTH 1024		/* the height of an expression's tree */

static const char *const tok_names[] = {
	[T_EOF] = "end of input", [T_INT] = "number", [T_STR] = "string",
	[T_IDENT] = "name", [T_VAR] = "$variable", [T_MAP] = "@map",
	[T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_LPAREN] = "'('", [T_RPAREN] = "')'",
	[T_LBRACK] = "'['", [T_RBRACK] = "']'", [T_COMMA] = "','", [T_SEMI] = "';'",
	[T_DOT] = "'.'", [T_ARROW] = "'->'", [T_QUEST] = "'?'", [T_COLON] = "':'",
	[T_ASSIGN] = "'='", [T_PLUSEQ] = "'+='", [T_MINUSEQ] = "'-='", [T_STAREQ] = "'*='",
	[T_SLASHEQ] = "'/='", [T_INCR] = "'++'", [T_DECR] = "'--'", [T_OROR] = "'||'",
	[T_ANDAND] = "'&&'", [T_OR] = "'|'", [T_XOR] = "'^'", [T_AND] = "'&'",
	[T_EQ] = "'=='", [T_NE] = "'!='", [T_LT] = "'<'", [T_LE] = "'<='", [T_GT] = "'>'",
	[T_GE] = "'>='", [T_SHL] = "'<<'", [T_SHR] = "'>>'", [T_PLUS] = "'+'",
	[T_MINUS] = "'-'", [T_STAR] = "'*'", [T_SLASH] = "'/'", [T_PERCENT] = "'%'",
	[T_NOT] = "'!'", [T_TILDE] = "'~'", [T_NTILDE] = "'!~'",
};

const char *lang_tok_str(enum tok t)
{
	return t < ARRAY_SIZE(tok_names) && tok_names[t] ? tok_names[t] : "?";
}

static const char *const builtins[] = {
	[B_PID] = "pid", [B_TID] = "tid", [B_COMM] = "comm", [B_CPU] = "cpu",
	[B_NSECS] = "nsecs", [B_ELAPSED] = "elapsed", [B_UID] = "uid", [B_RETVAL] = "retval",
	[B_FUNC] = "func", [B_PROBE] = "probe", [B_KSTACK] = "kstack", [B_USTACK] = "ustack",
};

int lang_builtin(const char *name, int *argn)
{
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (builtins[i] && !strcmp(name, builtins[i]))
			return (int)i;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' &&
	    strspn(name + 3, "0123456789") == strlen(name + 3) && strlen(name + 3) <= 2) {
		*argn = atoi(name + 3);
		return B_ARG;
	}
	return -1;
}

static void lerr(struct lexer *l, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void lerr(struct lexer *l, int line, int col, const char *fmt, ...)
{
	va_list ap;

	if (l->failed)
		return;	/* the first error is the one that matters */
	l->failed = true;
	l->err->line = line;
	l->err->col = col;
	va_start(ap, fmt);
	vsnprintf(l->err->msg, sizeof(l->err->msg), fmt, ap);
	va_end(ap);
}

/* Enter one level of the parser's recursion; false (and an error) when too deep. */
static bool enter(struct lexer *l)
{
	if (++l->nest <= MAX_NEST)
		return true;
	lerr(l, l->tline, l->tcol, "nested too deeply (more than %d levels)", MAX_NEST);
	return false;
}

/* The height of a new node over children of height d; false when too high. */
static bool height(struct lexer *l, const struct node *n, int d)
{
	l->depth = d + 1;
	if (l->depth <= MAX_DEPTH)
		return true;
	lerr(l, n->line, n->col, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
	return false;
}

void lang_errf(struct lang_err *err, const struct node *n, const char *fmt, ...)
{
	va_list ap;

	err->line = n ? n->line : 0;
	err->col = n ? n->col : 0;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static int col_of(struct lexer *l, const char *p)
{
	return (int)(p - l->line_start) + 1;
}

static void skip_space(struct lexer *l)
{
	for (;;) {
		if (*l->p == '\n') {
			l->line++;
			l->line_start = ++l->p;
		} else if (*l->p == ' ' || *l->p == '\t' || *l->p == '\r') {
			l->p++;
		} else if (l->p[0] == '/' && l->p[1] == '/') {
			while (*l->p && *l->p != '\n')
				l->p++;
		} else if (l->p[0] == '/' && l->p[1] == '*') {
			int line = l->line, col = col_of(l, l->p);

			l->p += 2;
			while (*l->p && !(l->p[0] == '*' && l->p[1] == '/')) {
				if (*l->p == '\n') {
					l->line++;
					l->line_start = l->p + 1;
				}
				l->p++;
			}
			if (!*l->p) {
				lerr(l, line, col, "unterminated comment");
				return;
			}
			l->p += 2;
		} else {
			return;
		}
	}
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static void next(struct lexer *l)
{
	static const struct {
		const char *s;
		enum tok t;
	} ops[] = {
		{ "->", T_ARROW }, { "+=", T_PLUSEQ }, { "-=", T_MINUSEQ }, { "*=", T_STAREQ },
		{ "/=", T_SLASHEQ }, { "++", T_INCR }, { "--", T_DECR }, { "||", T_OROR },
		{ "&&", T_ANDAND }, { "==", T_EQ }, { "!=", T_NE }, { "!~", T_NTILDE }, { "<=", T_LE },
		{ ">=", T_GE }, { "<<", T_SHL }, { ">>", T_SHR }, { "{", T_LBRACE },
		{ "}", T_RBRACE }, { "(", T_LPAREN }, { ")", T_RPAREN }, { "[", T_LBRACK },
		{ "]", T_RBRACK }, { ",", T_COMMA }, { ";", T_SEMI }, { ".", T_DOT },
		{ "?", T_QUEST }, { ":", T_COLON }, { "=", T_ASSIGN }, { "|", T_OR },
		{ "^", T_XOR }, { "&", T_AND }, { "<", T_LT }, { ">", T_GT }, { "+", T_PLUS },
		{ "-", T_MINUS }, { "*", T_STAR }, { "/", T_SLASH }, { "%", T_PERCENT },
		{ "!", T_NOT }, { "~", T_TILDE },
	};
	const char *s;

	free(l->sval);
	l->sval = NULL;
	skip_space(l);
	l->tline = l->line;
	l->tcol = col_of(l, l->p);
	s = l->p;
	if (l->failed || !*s) {
		l->t = T_EOF;
		return;
	}
	if (*s >= '0' && *s <= '9') {
		char *end;

		errno = 0;
		l->ival = (int64_t)strtoull(s, &end, 0);
		if (errno || ident_char(*end)) {
			const char *e = s;

			while (ident_char(*e))
				e++;
			lerr(l, l->tline, l->tcol, "bad number '%.*s'", (int)(e - s), s);
			l->t = T_EOF;
			return;
		}
		l->p = end;
		l->t = T_INT;
		return;
	}
	if (*s == '"') {
		char *buf = malloc(strlen(s) + 1), *w = buf;

		if (!buf) {
			lerr(l, l->tline, l->tcol, "out of memory");
			l->t = T_EOF;
			return;
		}
		for (s++; *s && *s != '"' && *s != '\n'; s++) {
			if (*s != '\\') {
				*w++ = *s;
				continue;
			}
			switch (*++s) {
			case 'n': *w++ = '\n'; break;
			case 't': *w++ = '\t'; break;
			case '"': *w++ = '"'; break;
			case '\\': *w++ = '\\'; break;
			case '0': *w++ = '\0'; break;
			default:
				lerr(l, l->line, col_of(l, s) - 1, "unknown escape '\\%c'", *s);
				s--;
				break;
			}
		}
		if (*s != '"') {
			lerr(l, l->tline, l->tcol, "unterminated string");
			free(buf);
			l->t = T_EOF;
			return;
		}
		*w = '\0';
		l->sval = buf;
		l->p = s + 1;
		l->t = T_STR;
		return;
	}
	if ((*s == '$' || *s == '@') || ident_char(*s)) {
		const char *b = s + (*s == '$' || *s == '@');
		const char *e = b;

		while (ident_char(*e))
			e++;
		if (*s == '$' && e == b) {
			lerr(l, l->tline, l->tcol, "'$' must be followed by a variable name");
			l->t = T_EOF;
			return;
		}
		l->t = *s == '$' ? T_VAR : *s == '@' ? T_MAP : T_IDENT;
		l->sval = strndup(s, e - s);
		l->p = e;
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
		size_t n = strlen(ops[i].s);

		if (!strncmp(s, ops[i].s, n)) {
			l->t = ops[i].t;
			l->p += n;
			return;
		}
	}
	lerr(l, l->tline, l->tcol, "unexpected character '%c'", *s);
	l->t = T_EOF;
}

/* ---- nodes ---------------------------------------------------------------- */

static struct node *mk(struct lexer *l, enum nk k, int line, int col)
{
	struct node *n = calloc(1, sizeof(*n));

	if (!n) {
		lerr(l, line, col, "out of memory");
		return NULL;
	}
	n->k = k;
	n->line = line;
	n->col = col;
	return n;
}

static void node_free(struct node *n)
{
	while (n) {
		struct node *nx = n->next;

		node_free(n->a);
		node_free(n->b);
		node_free(n->c);
		for (int i = 0; i < n->nargs; i++)
			node_free(n->args[i]);
		free(n->args);
		free(n->sval);
		free(n->bind);
		free(n);
		n = nx;
	}
}

static bool accept(struct lexer *l, enum tok t)
{
	if (l->t != t)
		return false;
	next(l);
	return true;
}

static bool expect(struct lexer *l, enum tok t, const char *what)
{
	if (l->t == t) {
		next(l);
		return true;
	}
	lerr(l, l->tline, l->tcol, "expected %s%s%s, found %s", lang_tok_str(t),
	     what ? " " : "", what ? what : "", lang_tok_str(l->t));
	return false;
}

static struct node *expr(struct lexer *l);

static bool push_arg(struct lexer *l, struct node *n, struct node *a)
{
	struct node **v;

	/* A failed argument first: realloc has freed the old array once it
	 * returns, so leaving without storing v frees it twice. */
	if (!a)
		return false;
	v = realloc(n->args, (n->nargs + 1) * sizeof(*v));
	if (!v) {
		lerr(l, a->line, a->col, "out of memory");
		node_free(a);
		return false;
	}
	n->args = v;
	n->args[n->nargs++] = a;
	return true;
}

/* "(" [expr ("," expr)*] ")" or "[" ... "]" into n->args */
static bool arg_list(struct lexer *l, struct node *n, enum tok close)
{
	bool ok = true;
	int d = 0;

	if (accept(l, close))
		return height(l, n, 0);
	l->parens++;
	do {
		if (!push_arg(l, n, expr(l))) {
			ok = false;
			break;
		}
		d = l->depth > d ? l->depth : d;
	} while (accept(l, T_COMMA));
	l->parens--;
	return ok && expect(l, close, NULL) && height(l, n, d);
}

static struct node *primary(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	struct node *n = NULL;

	l->depth = 1;	/* a leaf; (expr), keys and arguments say otherwise */
	switch (l->t) {
	case T_INT:
		n = mk(l, N_INT, line, col);
		if (n)
			n->ival = l->ival;
		next(l);
		return n;
	case T_STR:
		n = mk(l, N_STR, line, col);
		if (n) {
			n->sval = l->sval;
			l->sval = NULL;
		}
		next(l);
		return n;
	case T_LPAREN:
		next(l);
		l->parens++;
		n = expr(l);
		l->parens--;
		if (!expect(l, T_RPAREN, NULL)) {
			node_free(n);
			return NULL;
		}
		return n;
	case T_VAR:
		n = mk(l, N_VAR, line, col);
		if (n) {
			n->sval = l->sval;
			l->sval = NULL;
		}
		next(l);
		return n;
	case T_MAP:
		n = mk(l, N_MAP, line, col);
		if (!n)
			return NULL;
		n->sval = l->sval;
		l->sval = NULL;
		next(l);
		if (accept(l, T_LBRACK) && !arg_list(l, n, T_RBRACK)) {
			node_free(n);
			return NULL;
		}
		return n;
	case T_IDENT: {
		char *name = l->sval;
		int b, argn = 0;

		l->sval = NULL;
		next(l);
		if (l->t == T_LPAREN) {
			n = mk(l, N_CALL, line, col);
			if (!n) {
				free(name);
				return NULL;
			}
			n->sval = name;
			next(l);
			if (!arg_list(l, n, T_RPAREN)) {
				node_free(n);
				return NULL;
			}
			return n;
		}
		if (!strcmp(name, "args")) {
			/* args.F and the older args->F */
			if (!accept(l, T_DOT) && !accept(l, T_ARROW)) {
				lerr(l, line, col, "'args' needs a field: args.NAME");
				free(name);
				return NULL;
			}
			if (l->t != T_IDENT) {
				lerr(l, l->tline, l->tcol, "expected a field name after 'args.'");
				free(name);
				return NULL;
			}
			n = mk(l, N_FIELD, line, col);
			if (n) {
				n->sval = l->sval;
				l->sval = NULL;
			}
			free(name);
			next(l);
			return n;
		}
		b = lang_builtin(name, &argn);
		if (b < 0) {
			lerr(l, line, col, "unknown name '%s' (builtins: pid tid comm cpu nsecs "
			     "elapsed uid retval func probe kstack ustack argN; fields are args.NAME)",
			     name);
			free(name);
			return NULL;
		}
		n = mk(l, N_BUILTIN, line, col);
		if (n) {
			n->ival = b;
			n->idx = argn;
			n->sval = name;
		} else {
			free(name);
		}
		return n;
	}
	default:
		lerr(l, line, col, "expected an expression, found %s", lang_tok_str(l->t));
		return NULL;
	}
}

static struct node *unary(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	enum tok op = l->t;
	struct node *n;

	if (op == T_NOT || op == T_MINUS || op == T_TILDE || op == T_NTILDE) {
		if (!enter(l))
			return NULL;
		next(l);
		n = mk(l, N_UNOP, line, col);
		if (n && op == T_NTILDE) {
			/* "!~x" where an operand starts: C's !(~x), not the
			 * glob non-match the lexer took it for. */
			n->op = T_NOT;
			n->a = mk(l, N_UNOP, line, col + 1);
			if (n->a) {
				n->a->op = T_TILDE;
				n->a->a = unary(l);
			}
			if (!n->a || !n->a->a || !height(l, n->a, l->depth) ||
			    !height(l, n, l->depth)) {
				node_free(n);
				n = NULL;
			}
		} else if (n) {
			n->op = op;
			n->a = unary(l);
			if (!n->a || !height(l, n, l->depth)) {
				node_free(n);
				n = NULL;
			}
		}
		l->nest--;
		return n;
	}
	return primary(l);
}

/* Binary operators by precedence, lowest first (C's order). */
static const enum tok levels[][5] = {
	{ T_OROR }, { T_ANDAND }, { T_OR }, { T_XOR }, { T_AND }, { T_EQ, T_NE, T_TILDE, T_NTILDE },
	{ T_LT, T_LE, T_GT, T_GE }, { T_SHL, T_SHR }, { T_PLUS, T_MINUS },
	{ T_STAR, T_SLASH, T_PERCENT },
};

static bool at_level(enum tok t, int lvl)
{
	for (int i = 0; i < 5 && levels[lvl][i]; i++)
		if (levels[lvl][i] == t)
			return true;
	return false;
}

static struct node *binary(struct lexer *l, int lvl)
{
	struct node *left;
	int d;

	if (lvl == (int)ARRAY_SIZE(levels))
		return unary(l);
	left = binary(l, lvl + 1);
	d = l->depth;
	while (left && at_level(l->t, lvl) && !(l->t == T_SLASH && l->in_pred && !l->parens)) {
		struct node *n = mk(l, N_BINOP, l->tline, l->tcol);

		if (!n) {
			node_free(left);
			return NULL;
		}
		n->op = l->t;
		next(l);
		n->a = left;
		n->b = binary(l, lvl + 1);
		if (!n->b || !height(l, n, d > l->depth ? d : l->depth)) {
			node_free(n);
			return NULL;
		}
		d = l->depth;
		left = n;
	}
	return left;
}

static struct node *ternary(struct lexer *l)
{
	struct node *c = binary(l, 0), *n;
	int d;

	if (!c || l->t != T_QUEST)
		return c;
	d = l->depth;
	n = mk(l, N_TERNARY, l->tline, l->tcol);
	if (!n) {
		node_free(c);
		return NULL;
	}
	next(l);
	n->a = c;
	n->b = expr(l);
	if (!n->b)
		goto fail;
	d = d > l->depth ? d : l->depth;
	if (!expect(l, T_COLON, "in '?:'") || !(n->c = expr(l)) ||
	    !height(l, n, d > l->depth ? d : l->depth))
		goto fail;
	return n;
fail:
	node_free(n);
	return NULL;
}

static struct node *expr(struct lexer *l)
{
	struct node *n = enter(l) ? ternary(l) : NULL;

	l->nest--;
	return n;
}

static struct node *block(struct lexer *l);

static struct node *statement(struct lexer *l);

static struct node *stmt(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	struct node *n, *e;

	if (l->t == T_IDENT && !strcmp(l->sval, "if")) {
		next(l);
		n = mk(l, S_IF, line, col);
		if (!n)
			return NULL;
		if (!expect(l, T_LPAREN, "after 'if'") || !(n->a = expr(l)) ||
		    !expect(l, T_RPAREN, NULL) || !(n->b = block(l))) {
			node_free(n);
			return NULL;
		}
		if (l->t == T_IDENT && !strcmp(l->sval, "else")) {
			next(l);
			n->c = l->t == T_IDENT && !strcmp(l->sval, "if") ? statement(l) : block(l);
			if (!n->c) {
				node_free(n);
				return NULL;
			}
		}
		return n;
	}
	e = expr(l);
	if (!e)
		return NULL;
	if (l->t == T_ASSIGN || l->t == T_PLUSEQ || l->t == T_MINUSEQ || l->t == T_STAREQ ||
	    l->t == T_SLASHEQ || l->t == T_INCR || l->t == T_DECR) {
		if (e->k != N_MAP && e->k != N_VAR) {
			lerr(l, l->tline, l->tcol, "only a @map or a $variable can be assigned");
			node_free(e);
			return NULL;
		}
		n = mk(l, S_ASSIGN, line, col);
		if (!n) {
			node_free(e);
			return NULL;
		}
		n->op = l->t;
		n->a = e;
		next(l);
		if (n->op == T_INCR || n->op == T_DECR) {
			/* @x++ is @x += 1 */
			n->b = mk(l, N_INT, line, col);
			if (n->b)
				n->b->ival = 1;
			n->op = n->op == T_INCR ? T_PLUSEQ : T_MINUSEQ;
		} else {
			n->b = expr(l);
		}
		if (!n->b) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	n = mk(l, S_EXPR, line, col);
	if (!n) {
		node_free(e);
		return NULL;
	}
	n->a = e;
	return n;
}

static struct node *statement(struct lexer *l)
{
	struct node *n = enter(l) ? stmt(l) : NULL;

	l->nest--;
	return n;
}

static struct node *block(struct lexer *l)
{
	struct node *head = NULL, **tail = &head;
	int line = l->tline, col = l->tcol;

	if (!expect(l, T_LBRACE, NULL))
		return NULL;
	while (l->t != T_RBRACE) {
		struct node *s;

		if (accept(l, T_SEMI))
			continue;
		if (l->t == T_EOF) {
			/* (after a lexer error too; lerr keeps the first) */
			lerr(l, l->tline, l->tcol, "expected '}' to close the block opened "
			     "at %d:%d, found end of input", line, col);
			node_free(head);
			return NULL;
		}
		s = statement(l);
		if (!s) {
			node_free(head);
			return NULL;
		}
		*tail = s;
		tail = &s->next;
		if (l->t != T_RBRACE && l->t != T_SEMI && s->k != S_IF) {
			lerr(l, l->tline, l->tcol, "expected ';' or '}' after a statement, found %s",
			     lang_tok_str(l->t));
			node_free(head);
			return NULL;
		}
	}
	next(l);
	if (!head) {
		/* An empty block is legal: the probe fires, nothing happens. */
		head = mk(l, S_EXPR, l->tline, l->tcol);
		if (head)
			head->a = mk(l, N_INT, l->tline, l->tcol);
	}
	return head;
}

/* ---- probes ----------------------------------------------------------------- */

int lang_perf_event(bool hardware, const char *name, uint32_t *type, uint64_t *config,
		uint64_t *period)
{
	static const struct {
		const char *name, *alias;
		bool hw;
		uint8_t config;
		uint32_t period;
	} ev[] = {
		{ "cpu-clock", "cpu", false, PERF_COUNT_SW_CPU_CLOCK, 1000000 },
		{ "task-clock", NULL, false, PERF_COUNT_SW_TASK_CLOCK, 1000000 },
		{ "page-faults", "faults", false, PERF_COUNT_SW_PAGE_FAULTS, 100 },
		{ "context-switches", "cs", false, PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
		{ "cpu-migrations", NULL, false, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
		{ "minor-faults", NULL, false, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100 },
		{ "major-faults", NULL, false, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
		{ "alignment-faults", NULL, false, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
		{ "emulation-faults", NULL, false, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
		{ "cpu-cycles", "cycles", true, PERF_COUNT_HW_CPU_CYCLES, 1000000 },
		{ "instructions", NULL, true, PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
		{ "cache-references", NULL, true, PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
		{ "cache-misses", NULL, true, PERF_COUNT_HW_CACHE_MISSES, 1000000 },
		{ "branch-instructions", "branches", true, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		  100000 },
		{ "branch-misses", NULL, true, PERF_COUNT_HW_BRANCH_MISSES, 100000 },
		{ "bus-cycles", NULL, true, PERF_COUNT_HW_BUS_CYCLES, 100000 },
		{ "ref-cycles", NULL, true, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
		if (ev[i].hw == hardware && (!strcmp(name, ev[i].name) ||
					     (ev[i].alias && !strcmp(name, ev[i].alias)))) {
			*type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
			*config = ev[i].config;
			*period = ev[i].period;
			return 0;
		}
	return -ENOENT;
}


static bool parse_probe(struct lexer *l, struct lang_probe *p)
{
	const char *s = l->p, *e, *colon;
	char *t;

	/* A probe spec is raw text up to whitespace, ',', '{'; a '/' ends it
	 * too, except inside a uprobe's path (put a space before the
	 * predicate there). */
	skip_space(l);
	s = l->p;
	p->line = l->line;
	p->col = col_of(l, s);
	e = s;
	while (*e && !strchr(" \t\r\n,{", *e))
		e++;
	if (!(str_has_prefix(s, "uprobe:") || str_has_prefix(s, "u:") ||
	      str_has_prefix(s, "uretprobe:") || str_has_prefix(s, "ur:") ||
	      str_has_prefix(s, "usdt:") || str_has_prefix(s, "U:"))) {
		const char *slash = memchr(s, '/', e - s);

		if (slash)
			e = slash;
	}
	if (e == s) {
		lerr(l, p->line, p->col, "expected a probe (e.g. tracepoint:syscalls:sys_enter_openat)");
		return false;
	}
	p->text = strndup(s, e - s);
	if (!p->text) {
		lerr(l, p->line, p->col, "out of memory");
		return false;
	}
	l->p = e;
	t = p->text;
	colon = strchr(t, ':');
	if (!strcmp(t, "BEGIN")) {
		p->pv = PV_BEGIN;
	} else if (!strcmp(t, "END")) {
		p->pv = PV_END;
	} else if (str_has_prefix(t, "tracepoint:") || str_has_prefix(t, "t:")) {
		p->pv = PV_TRACEPOINT;
		p->target = strdup(colon + 1);
	} else if (str_has_prefix(t, "kprobe:") || str_has_prefix(t, "k:")) {
		p->pv = PV_KPROBE;
	} else if (str_has_prefix(t, "kretprobe:") || str_has_prefix(t, "kr:") ||
		   str_has_prefix(t, "kretfunc:") || str_has_prefix(t, "fexit:")) {
		/* kretfunc:/fexit: are bpftrace's BPF-trampoline return
		 * probes: a kretprobe records the same return (retval). */
		p->pv = PV_KRETPROBE;
	} else if (str_has_prefix(t, "uprobe:") || str_has_prefix(t, "u:")) {
		p->pv = PV_UPROBE;
	} else if (str_has_prefix(t, "uretprobe:") || str_has_prefix(t, "ur:")) {
		p->pv = PV_URETPROBE;
	} else if (str_has_prefix(t, "usdt:") || str_has_prefix(t, "U:")) {
		/* A USDT probe is a uprobe at each of its sites (dynprobe.c). */
		p->pv = PV_UPROBE;
		p->usdt = true;
		p->target = strdup(colon + 1);
	} else if (str_has_prefix(t, "software:") || str_has_prefix(t, "s:") ||
		   str_has_prefix(t, "hardware:") || str_has_prefix(t, "h:")) {
		bool hw = t[0] == 'h';
		char name[64] = "";
		const char *c2 = strchr(colon + 1, ':');
		unsigned long long v = 0;

		snprintf(name, sizeof(name), "%.*s", (int)(c2 ? c2 - colon - 1 : (long)strlen(colon + 1)),
			 colon + 1);
		if (lang_perf_event(hw, name, &p->perf_type, &p->perf_config, &p->period) < 0) {
			lerr(l, p->line, p->col, "unknown %s event '%s' in '%s' (e.g. %s)",
			     hw ? "hardware" : "software", name, t,
			     hw ? "hardware:cache-misses:1000000" : "software:page-faults:100");
			return false;
		}
		if (c2 && (sscanf(c2 + 1, "%llu", &v) != 1 || !v ||
			   strspn(c2 + 1, "0123456789") != strlen(c2 + 1))) {
			lerr(l, p->line, p->col, "bad period in '%s': a count of events, e.g. %s:%s:100",
			     t, hw ? "hardware" : "software", name);
			return false;
		}
		if (v)
			p->period = v;
		p->pv = PV_PROFILE;
	} else if (str_has_prefix(t, "interval:") || str_has_prefix(t, "i:") ||
		   str_has_prefix(t, "profile:") || str_has_prefix(t, "p:")) {
		char unit[8];
		unsigned long long v;
		bool prof = t[0] == 'p';

		if (sscanf(colon + 1, "%7[a-z]:%llu", unit, &v) != 2 || v == 0) {
			lerr(l, p->line, p->col, "bad %s probe '%s' (e.g. %s)",
			     prof ? "profile" : "interval", t, prof ? "profile:hz:99" : "interval:s:5");
			return false;
		}
		p->pv = prof ? PV_PROFILE : PV_INTERVAL;
		if (!strcmp(unit, "hz"))
			p->hz = v, p->period_ns = 1000000000ull / v;
		else if (!strcmp(unit, "s"))
			p->period_ns = v * 1000000000ull;
		else if (!strcmp(unit, "ms"))
			p->period_ns = v * 1000000ull;
		else if (!strcmp(unit, "us"))
			p->period_ns = v * 1000ull;
		else {
			lerr(l, p->line, p->col, "unknown unit '%s' in '%s' (s, ms, us, hz)", unit, t);
			return false;
		}
		if (prof && !p->hz)
			p->hz = 1000000000ull / p->period_ns;
	} else {
		lerr(l, p->line, p->col, "unknown probe '%s' (tracepoint:, kprobe:, kretprobe:, "
		     "uprobe:, uretprobe:, usdt:, interval:, profile:, software:, hardware:, BEGIN, END)",
		     t);
		return false;
	}
	if ((p->pv == PV_TRACEPOINT && (!p->target || !*p->target || !strchr(p->target, ':')))) {
		lerr(l, p->line, p->col, "'%s': a tracepoint is tracepoint:SYSTEM:EVENT", t);
		return false;
	}
	return true;
}

static bool clause(struct lexer *l, struct clause *c)
{
	c->line = l->line;
	c->col = col_of(l, l->p);
	do {
		struct lang_probe *v = realloc(c->probes, (c->nprobes + 1) * sizeof(*v));

		if (!v) {
			lerr(l, l->line, col_of(l, l->p), "out of memory");
			return false;
		}
		c->probes = v;
		memset(&v[c->nprobes], 0, sizeof(*v));
		if (!parse_probe(l, &v[c->nprobes++]))
			return false;
		skip_space(l);
		if (*l->p != ',')
			break;
		l->p++;
	} while (true);
	next(l);
	if (l->t == T_SLASH) {
		/* A predicate: the expression up to the closing '/'; division
		 * needs parentheses there, as in bpftrace. */
		next(l);
		l->in_pred = true;
		c->pred = expr(l);
		l->in_pred = false;
		if (!c->pred)
			return false;
		if (!expect(l, T_SLASH, "to end the predicate"))
			return false;
	}
	c->body = block(l);
	return c->body != NULL;
}

int lang_parse(const char *text, struct program *out, struct lang_err *err)
{
	struct lexer l = { .src = text, .p = text, .line = 1, .line_start = text, .err = err };

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	out->src = strdup(text);
	skip_space(&l);
	while (!l.failed && *l.p) {
		struct clause *v = realloc(out->cl, (out->ncl + 1) * sizeof(*v));

		if (!v) {
			lerr(&l, l.line, col_of(&l, l.p), "out of memory");
			break;
		}
		out->cl = v;
		memset(&v[out->ncl], 0, sizeof(*v));
		if (!clause(&l, &v[out->ncl++]))
			break;
		/* clause() has read one token past the block: put it back. */
		if (l.t != T_EOF) {
			l.p = l.line_start + l.tcol - 1;
			l.line = l.tline;
		}
		free(l.sval);
		l.sval = NULL;
		skip_space(&l);
	}
	free(l.sval);
	if (!l.failed && out->ncl == 0)
		lerr(&l, 1, 1, "empty program");
	if (l.failed) {
		lang_free(out);
		return -EINVAL;
	}
	return 0;
}

void lang_free(struct program *p)
{
	for (int i = 0; i < p->ncl; i++) {
		struct clause *c = &p->cl[i];

		for (int j = 0; j < c->nprobes; j++) {
			free(c->probes[j].text);
			free(c->probes[j].target);
		}
		free(c->probes);
		node_free(c->pred);
		node_free(c->body);
	}
	free(p->cl);
	free(p->src);
	memset(p, 0, sizeof(*p));
}

void lang_perror(const struct program *p, const char *src, const struct lang_err *err)
{
	const char *line = src;
	int len;

	fflush(stdout);
	if (err->line <= 0) {
		fprintf(stderr, "ftr: error: %s\n", err->msg);
		return;
	}
	fprintf(stderr, "ftr: error: %d:%d: %s\n", err->line, err->col, err->msg);
	for (int i = 1; i < err->line && line; i++) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return;
	len = (int)strcspn(line, "\n");
	fprintf(stderr, "  %.*s\n  ", len, line);
	/* The caret under the column: a tab in the line is a tab above it. */
	for (int i = 0; i < err->col - 1; i++)
		fputc(i < len && line[i] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
}
