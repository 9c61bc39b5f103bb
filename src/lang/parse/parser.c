// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The language's lexer and recursive-descent parser (see lang.h): tokens,
 * expressions, statements, probes and clauses, and lang_parse(), which
 * reads a program's top level: its clauses here, the other items
 * (definitions, config, map declarations, macros) in preamble.c.
 *
 * Long because its one job is: a recursive-descent parser of a language
 * with bpftrace's grammar reads best as one file, each rule above the rules
 * that call it.  What is not grammar lives beside it: number literals and
 * integer types (number.c), the preamble (preamble.c), //#if lines
 * (conditionals.c), getopt() parameters (getopt.c), C definitions (ctypes.c).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "ftr.h"
#include "lang/maps/agg.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"
#include "lang/parse/parse-int.h"

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
	[T_NOT] = "'!'", [T_TILDE] = "'~'", [T_NTILDE] = "'!~'", [T_DOTDOT] = "'..'",
};

const char *lang_tok_str(enum tok t)
{
	return t < ARRAY_SIZE(tok_names) && tok_names[t] ? tok_names[t] : "?";
}

void lerr(struct lexer *l, int line, int col, const char *fmt, ...)
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

bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

void next(struct lexer *l)
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
		{ "]", T_RBRACK }, { ",", T_COMMA }, { ";", T_SEMI }, { "..", T_DOTDOT },
		{ ".", T_DOT },
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
		const char *e;

		if (lang_number(s, &e, &l->ival) < 0) {
			lerr(l, l->tline, l->tcol, "bad number '%.*s'", (int)(e - s), s);
			l->t = T_EOF;
			return;
		}
		l->p = e;
		l->t = T_INT;
		return;
	}
	if (s[0] == '$' && s[1] == '#') {
		/* $#: how many positional parameters were given */
		l->ival = l->nparams;
		l->p = s + 2;
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
		/* A newline in the literal is a character of it, as bpftrace
		 * reads "a
		 * b" (a shell's echo turns the \n of printf("%d\n") into one). */
		for (s++; *s && *s != '"'; s++) {
			if (*s == '\n') {
				l->line++;
				l->line_start = s + 1;
			}
			if (*s != '\\') {
				*w++ = *s;
				continue;
			}
			switch (*++s) {
			case 'n': *w++ = '\n'; break;
			case 't': *w++ = '\t'; break;
			case 'r': *w++ = '\r'; break;
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
		l->ival = w - buf;	/* its bytes, a \0 among them: buf("a\0b", 3) */
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

struct node *mk(struct lexer *l, enum nk k, int line, int col)
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

void lang_node_free(struct node *n)
{
	while (n) {
		struct node *nx = n->next;

		lang_node_free(n->a);
		lang_node_free(n->b);
		lang_node_free(n->c);
		for (int i = 0; i < n->nargs; i++)
			lang_node_free(n->args[i]);
		free(n->args);
		free(n->sval);
		free(n->bind);
		free(n->tsig);
		free(n);
		n = nx;
	}
}

bool expect(struct lexer *l, enum tok t, const char *what)
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

bool push_arg(struct lexer *l, struct node *n, struct node *a)
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

/*
 * $N, a positional parameter, is a literal: a number where its text is one
 * (bpftrace's rule), else a string; a missing one is 0 ("" in str($N)).
 * idx keeps N, so that str($N) can take the text of a numeric one.
 */
static struct node *positional(struct lexer *l, int line, int col)
{
	long pos = strtol(l->sval + 1, NULL, 10);
	const char *t = pos >= 1 && pos <= l->nparams ? l->params[pos - 1] : NULL;
	struct node *n;
	const char *end;
	int64_t v = 0;
	bool neg = t && t[0] == '-';

	if (pos < 1 || pos > 4096) {
		lerr(l, line, col, "bad positional parameter '%s' ($1, $2, ...)", l->sval);
		return NULL;
	}
	if (!t || (t[neg] >= '0' && t[neg] <= '9' && !lang_number(t + neg, &end, &v) && !*end)) {
		n = mk(l, N_INT, line, col);
		if (n)
			n->ival = neg ? (int64_t)(0 - (uint64_t)v) : v;
	} else {
		n = mk(l, N_STR, line, col);
		if (n && !(n->sval = strdup(t))) {
			free(n);
			n = NULL;
		}
	}
	if (n)
		n->idx = (int)pos;
	return n;
}

/* str($N): the parameter's text, even where it reads as a number. */
static void str_positional(struct lexer *l, struct node *call)
{
	struct node *a = call->nargs ? call->args[0] : NULL;
	int pos = a ? a->idx : 0;

	if (strcmp(call->sval, "str") || !a || pos <= 0 || (a->k != N_INT && a->k != N_STR))
		return;
	if (a->k == N_INT) {
		a->sval = strdup(pos <= l->nparams ? l->params[pos - 1] : "");
		if (!a->sval) {
			lerr(l, a->line, a->col, "out of memory");
			return;
		}
		a->k = N_STR;
	}
}

/*
 * At p (just after a '('): is a C type name next, up to its ')'?  A type
 * starts with a C keyword or a known integer name (u32, uint8, size_t...),
 * or is a name that is not a builtin followed by '*'s: "(foo *)".  Its
 * length up to the ')' in *len.
 */
bool type_ahead(const char *p, size_t *len)
{
	const char *s = p + strspn(p, " \t"), *e = s, *q;
	int argn;

	while (ident_char(*e))
		e++;
	if (e == s || (*s >= '0' && *s <= '9'))
		return false;
	q = strchr(e, ')');
	if (!q || memchr(e, '(', q - e) || memchr(e, '\n', q - e))
		return false;
	if (!ctypes_is_type_word(s, e - s)) {
		char w[64];
		const char *t = e + strspn(e, " \t");

		snprintf(w, sizeof(w), "%.*s", (int)(e - s), s);
		if (lang_builtin(w, &argn) >= 0 || !strcmp(w, "args") || *t != '*')
			return false;
		t += strspn(t, "* \t");
		if (t != q)
			return false;
	}
	*len = q - p;
	return true;
}

static struct node *unary(struct lexer *l);
static struct node *expr(struct lexer *l);

/* "(" TYPE ")" operand, or sizeof "(" TYPE ")": the type's text, then past ')'. */
static char *type_text(struct lexer *l, size_t len)
{
	char *t = strndup(l->p, len);

	l->p += len + 1;
	next(l);
	if (!t)
		lerr(l, l->tline, l->tcol, "out of memory");
	return t;
}

/* (first, ...): the rest of a tuple, up to its ')' (left to the caller);
 * a trailing ',' is allowed, as (1,) is a tuple of one. */
static struct node *tuple(struct lexer *l, struct node *first, int line, int col)
{
	struct node *t = mk(l, N_TUPLE, line, col);
	int d = l->depth;

	if (!t || !push_arg(l, t, first)) {
		if (!t)
			node_free(first);
		node_free(t);
		return NULL;
	}
	while (accept(l, T_COMMA) && l->t != T_RPAREN) {
		if (!push_arg(l, t, expr(l))) {
			node_free(t);
			return NULL;
		}
		d = l->depth > d ? l->depth : d;
	}
	if (!height(l, t, d)) {
		node_free(t);
		return NULL;
	}
	return t;
}

static struct node *if_expr(struct lexer *l, int line, int col);

/* (a = x, b = y): a tuple whose sval names its fields, "a,b" (tuple.h);
 * first is the bare name a, before its '='. */
static struct node *record(struct lexer *l, struct node *first, int line, int col)
{
	struct node *n = mk(l, N_TUPLE, line, col), *name = first;
	char *names = NULL;
	size_t len = 0;
	FILE *f = n ? open_memstream(&names, &len) : NULL;
	bool ok = f != NULL;

	while (ok) {
		char key[80];

		snprintf(key, sizeof(key), ",%s,", name->sval);
		fflush(f);
		if (len) {
			char *all = malloc(len + 3);

			if (all)
				snprintf(all, len + 3, ",%s,", names);
			ok = all && !strstr(all, key);
			free(all);
		}
		if (!ok) {
			lerr(l, name->line, name->col, "the record has two fields named %s", name->sval);
			break;
		}
		fprintf(f, "%s%s", len ? "," : "", name->sval);
		node_free(name);
		name = NULL;
		if (!expect(l, T_ASSIGN, NULL) || !push_arg(l, n, expr(l))) {
			ok = false;
			break;
		}
		if (!accept(l, T_COMMA) || l->t == T_RPAREN)
			break;
		name = l->t == T_IDENT ? mk(l, N_CALL, l->tline, l->tcol) : NULL;
		if (!name) {
			lerr(l, l->tline, l->tcol, "expected a field name, found %s",
			     lang_tok_str(l->t));
			ok = false;
			break;
		}
		name->sval = l->sval;
		l->sval = NULL;
		next(l);
	}
	node_free(name);
	if (f)
		fclose(f);
	if (!ok || !names) {
		free(names);
		node_free(n);
		return NULL;
	}
	n->sval = names;
	return n;
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
			n->ival = l->ival;
			l->sval = NULL;
		}
		next(l);
		return n;
	case T_LBRACE:
		/* { stmt; ...; expr }: a block expression */
		if (!enter(l))
			return NULL;
		n = mk(l, N_BLOCK, line, col);
		if (n)
			n->a = block_ex(l, &n->b);
		l->nest--;
		if (n && l->failed) {
			node_free(n);
			return NULL;
		}
		if (n)
			l->depth = 1;
		return n;
	case T_LPAREN: {
		size_t len;

		if (type_ahead(l->p, &len)) {
			/* A cast: binds as a unary operator. */
			if (!enter(l))
				return NULL;
			n = mk(l, N_CAST, line, col);
			if (n && !(n->sval = type_text(l, len))) {
				node_free(n);
				n = NULL;
			}
			if (n && (!(n->a = unary(l)) || !height(l, n, l->depth))) {
				node_free(n);
				n = NULL;
			}
			l->nest--;
			return n;
		}
		next(l);
		l->parens++;
		if (l->t == T_RPAREN) {
			/* (): the empty tuple */
			l->parens--;
			next(l);
			return mk(l, N_TUPLE, line, col);
		}
		n = expr(l);
		if (n && l->t == T_ASSIGN && n->k == N_CALL && n->idx == BARE_NAME) {
			n = record(l, n, line, col);
			l->parens--;
			if (!n || !expect(l, T_RPAREN, NULL)) {
				node_free(n);
				return NULL;
			}
			return n;
		}
		if (n && l->t == T_COMMA)
			n = tuple(l, n, line, col);
		l->parens--;
		if (!n || !expect(l, T_RPAREN, NULL)) {
			node_free(n);
			return NULL;
		}
		return n;
	}
	case T_VAR:
		if (strspn(l->sval + 1, "0123456789") == strlen(l->sval + 1)) {
			n = positional(l, line, col);
			next(l);
			return n;
		}
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
		if (n->nargs == 1 && n->args[0]->k == N_TUPLE && n->args[0]->nargs > 1 &&
		    !n->args[0]->sval && !n->args[0]->ival) {
			/* @m[(a, b)] is @m[a, b], as in bpftrace (not a record's
			 * (a = 1, ...) nor an array's: sema says) */
			struct node *t = n->args[0];

			free(n->args);
			n->args = t->args;
			n->nargs = t->nargs;
			t->args = NULL;
			t->nargs = 0;
			node_free(t);
		}
		return n;
	case T_IDENT: {
		char *name = l->sval;
		const char *why;
		int b, argn = 0;

		l->sval = NULL;
		next(l);
		if (!strcmp(name, "if")) {
			free(name);
			return if_expr(l, line, col);
		}
		if (!strcmp(name, "offsetof") && l->t == T_LPAREN) {
			free(name);
			return lang_offsetof_expr(l, line, col);
		}
		if (!strcmp(name, "sizeof") && l->t == T_LPAREN) {
			size_t len;

			free(name);
			n = mk(l, N_SIZEOF, line, col);
			if (n && type_ahead(l->p, &len)) {
				n->sval = type_text(l, len);
				if (!n->sval) {
					node_free(n);
					return NULL;
				}
				return n;
			}
			if (n && !(n->a = primary(l))) {
				node_free(n);
				return NULL;
			}
			return n;
		}
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
			str_positional(l, n);
			if (!lang_getopt_call(l, n)) {
				node_free(n);
				return NULL;
			}
			/* bpftrace's standard macro ppid(task) of the current
			 * task is the variable ppid (builtin-vars.c) */
			if (n->k == N_CALL && n->sval && !strcmp(n->sval, "ppid") && n->nargs == 1 &&
			    n->args[0]->k == N_BUILTIN && n->args[0]->ival == B_CURTASK) {
				node_free(n->args[0]);
				free(n->args);
				n->args = NULL;
				n->nargs = 0;
				n->k = N_BUILTIN;
				n->ival = B_PPID;
			}
			return n;
		}
		if (!strcmp(name, "args")) {
			/* args.F and the older args->F; args alone, the record of
			 * every argument, is the field "" (fetchargs.c, kfunc_args) */
			if (!accept(l, T_DOT) && !accept(l, T_ARROW)) {
				n = mk(l, N_FIELD, line, col);
				name[0] = '\0';
				if (n)
					n->sval = name;
				else
					free(name);
				return n;
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
		if (!strcmp(name, "true") || !strcmp(name, "false")) {
			/* bpftrace's bool: a number that prints as its name */
			n = mk(l, N_INT, line, col);
			if (n) {
				n->ival = name[0] == 't';
				n->enum_id = LANG_BOOL_ID;
			}
			free(name);
			return n;
		}
		b = lang_builtin(name, &argn);
		if (b < 0 && (lang_stack_mode(name) >= 0 || !strcmp(name, "monotonic") ||
			      !strcmp(name, "boot") || !strcmp(name, "tai") ||
			      !strcmp(name, "sw_tai"))) {
			/* kstack(perf), ustack(bpftrace, 5): a stack's print
			 * mode, nsecs(boot) a clock, a bare word; check_call
			 * allows it there only */
			n = mk(l, N_STR, line, col);
			if (n) {
				n->sval = name;
				n->idx = -1;
			} else {
				free(name);
			}
			return n;
		}
		if (b < 0 && !strcmp(name, "curtask"))
			b = B_CURTASK;	/* $current, or refused with why (fetchargs.c) */
		if (b < 0 && (why = lang_builtin_refused(name))) {
			lerr(l, line, col, "'%s' %s", name, why);
			free(name);
			return NULL;
		}
		if (b < 0 && strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") == strlen(name) &&
		    strpbrk(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
			b = B_CONST;	/* resolved with the types (fetchargs.c) */
		if (b < 0) {
			/* a macro's parameter or a macro without arguments, or an
			 * unknown name: known once the program is read (expand) */
			n = mk(l, N_CALL, line, col);
			if (n) {
				n->sval = name;
				n->idx = BARE_NAME;
			} else {
				free(name);
			}
			return n;
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

/* primary ("." NAME | "->" NAME | "[" expr "]")* */
/* $x++, $x--, ++$x, --$x (and of @m[k]) in an expression: the block
 * { $x += 1; $x - 1 } (post) or { $x += 1; $x } (pre), marked op T_INCR, of
 * which stmt() keeps the assignment alone where it is a whole statement. */
static struct node *incdec(struct lexer *l, struct node *t, enum tok op, bool post, int line,
			   int col)
{
	struct node *n, *s, *v = NULL, *b;

	if (t->k != N_MAP && t->k != N_VAR) {
		lerr(l, line, col, "only a @map or a $variable can be assigned");
		node_free(t);
		return NULL;
	}
	n = mk(l, N_BLOCK, line, col);
	s = n ? mk(l, S_ASSIGN, line, col) : NULL;
	if (!s) {
		node_free(n);
		node_free(t);
		return NULL;
	}
	n->op = T_INCR;
	n->a = s;
	s->op = op == T_INCR ? T_PLUSEQ : T_MINUSEQ;
	s->a = t;
	s->b = mk(l, N_INT, line, col);
	if (s->b) {
		s->b->ival = 1;
		v = node_copy(l, t, false);
	}
	if (v && post) {
		b = mk(l, N_BINOP, line, col);
		if (b) {
			b->op = op == T_INCR ? T_MINUS : T_PLUS;
			b->a = v;
			b->b = mk(l, N_INT, line, col);
		}
		if (!b || !b->b) {
			node_free(b ? b : v);
			v = NULL;
		} else {
			b->b->ival = 1;
			v = b;
		}
	}
	n->b = v;
	if (!v) {
		node_free(n);
		return NULL;
	}
	l->depth = 1;
	return n;
}

/* Whether the statements from s end in a value: an expression, or an
 * if/else whose branches both do. */
static bool ends_in_value(const struct node *s)
{
	while (s && s->next)
		s = s->next;
	return s && (s->k == S_EXPR || (s->k == S_IF && s->c && ends_in_value(s->b) &&
					ends_in_value(s->c)));
}

static struct node *list_value(struct lexer *l, struct node *head);

/* The if/else statement s (ends_in_value) as c ? a : b; s is used up. */
static struct node *if_value(struct lexer *l, struct node *s)
{
	struct node *t = mk(l, N_TERNARY, s->line, s->col);

	if (t) {
		t->a = s->a;
		t->b = list_value(l, s->b);
		t->c = list_value(l, s->c);
		s->a = s->b = s->c = NULL;
	}
	node_free(s);
	return t;
}

/* The statements from head (ends_in_value) as a block with that value. */
static struct node *list_value(struct lexer *l, struct node *head)
{
	struct node *n = mk(l, N_BLOCK, head->line, head->col), **last = &head, *s;

	while ((*last)->next)
		last = &(*last)->next;
	s = *last;
	*last = NULL;
	if (n) {
		n->a = head;
		if (s->k == S_EXPR) {
			n->b = s->a;
			s->a = NULL;
			node_free(s);
		} else {
			n->b = if_value(l, s);
		}
	} else {
		node_free(head);
		node_free(s);
	}
	return n;
}

/* A { block } whose last expression is its value (or an if/else whose
 * branches end in values: if (a) { if (b) { 1 } else { 2 } } else { 3 }). */
static struct node *value_block(struct lexer *l)
{
	struct node *n = mk(l, N_BLOCK, l->tline, l->tcol);

	if (n)
		n->a = block_ex(l, &n->b);
	if (n && !l->failed && !n->b && ends_in_value(n->a)) {
		struct node *v = list_value(l, n->a);

		n->a = NULL;
		node_free(n);
		n = v;
	}
	if (n && (l->failed || !n->b)) {
		if (!l->failed)
			lerr(l, n->line, n->col, "this block has no value: end it with one");
		node_free(n);
		return NULL;
	}
	return n;
}

/* if (c) { ...; a } else { ...; b } as an expression (after 'if'): c ? a : b,
 * its else a block or another if. */
static struct node *if_expr(struct lexer *l, int line, int col)
{
	struct node *n = enter(l) ? mk(l, N_TERNARY, line, col) : NULL;

	if (n && (n->a = expr(l)) && (n->b = value_block(l))) {
		if (l->t != T_IDENT || strcmp(l->sval, "else")) {
			lerr(l, l->tline, l->tcol, "an if with a value needs an else");
		} else {
			next(l);
			if (l->t == T_IDENT && !strcmp(l->sval, "if")) {
				int il = l->tline, ic = l->tcol;

				next(l);
				n->c = if_expr(l, il, ic);
			} else {
				n->c = value_block(l);
			}
		}
	}
	l->nest--;
	if (n && !n->c) {
		node_free(n);
		return NULL;
	}
	l->depth = 1;
	return n;
}

static struct node *postfix(struct lexer *l)
{
	struct node *n = primary(l), *m;

	while (n && (l->t == T_DOT || l->t == T_ARROW || l->t == T_LBRACK)) {
		int d = l->depth;

		m = mk(l, l->t == T_LBRACK ? N_INDEX : N_MEMBER, l->tline, l->tcol);
		if (!m) {
			node_free(n);
			return NULL;
		}
		m->op = l->t;
		m->a = n;
		n = m;
		next(l);
		if (m->k == N_INDEX) {
			l->parens++;
			m->b = expr(l);
			l->parens--;
			if (!m->b || !expect(l, T_RBRACK, NULL) ||
			    !height(l, m, d > l->depth ? d : l->depth)) {
				node_free(n);
				return NULL;
			}
			continue;
		}
		if (l->t == T_INT && m->op == T_DOT) {
			/* a tuple's element: $t.0 */
			char num[24];

			snprintf(num, sizeof(num), "%lld", (long long)l->ival);
			m->sval = strdup(num);
		} else if (l->t != T_IDENT) {
			lerr(l, l->tline, l->tcol, "expected a member name after %s",
			     lang_tok_str(m->op));
			node_free(n);
			return NULL;
		} else {
			m->sval = l->sval;
			l->sval = NULL;
		}
		next(l);
		if (!height(l, m, d)) {
			node_free(n);
			return NULL;
		}
	}
	if (n && (n->k == N_VAR || n->k == N_MAP) && (l->t == T_INCR || l->t == T_DECR)) {
		enum tok op = l->t;
		int line = l->tline, col = l->tcol;

		next(l);
		return incdec(l, n, op, true, line, col);
	}
	return n;
}

static struct node *unary(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	enum tok op = l->t;
	struct node *n;

	if (op == T_NOT || op == T_MINUS || op == T_TILDE || op == T_NTILDE || op == T_STAR ||
	    op == T_AND) {
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
	if (op == T_INCR || op == T_DECR) {
		next(l);
		n = postfix(l);
		return n ? incdec(l, n, op, false, line, col) : NULL;
	}
	return postfix(l);
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
		/* A flat chain (1 + 1 + ... + 1) is a tree as high as it is
		 * long: said as what it is, not as nesting (issue 38). */
		if (n->b && d >= MAX_DEPTH && d >= l->depth) {
			lerr(l, n->line, n->col, "more than %d terms in one chain of operators: "
			     "ftr evaluates it as a tree of that height at most (split it, with a "
			     "variable)", MAX_DEPTH);
			node_free(n);
			return NULL;
		}
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
	if (l->t == T_COLON) {
		/* a ?: b, GNU C's and bpftrace's a ? a : b: a is read twice,
		 * so it must be a plain read */
		if (c->k != N_VAR && c->k != N_MAP && c->k != N_INT && c->k != N_BUILTIN &&
		    c->k != N_FIELD) {
			lerr(l, l->tline, l->tcol, "'?:' without a middle operand takes a variable, a "
			     "map, a builtin or a field before it in ftr (it reads it twice)");
			goto fail;
		}
		n->b = node_copy(l, c, false);
	} else {
		n->b = expr(l);
	}
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

struct node *parse_expr(struct lexer *l)
{
	return expr(l);
}

static struct node *block(struct lexer *l);

static struct node *statement(struct lexer *l);

static struct node *binary(struct lexer *l, int lvl);

/* The source text from the current token up to (not including) the first
 * of stop at parenthesis depth 0, trimmed; the lexer stops on that token. */
char *text_until(struct lexer *l, const enum tok *stop, int nstop)
{
	const char *s = l->line_start + l->tcol - 1, *e;
	int depth = 0;

	while (l->t != T_EOF && !l->failed) {
		bool end = false;

		for (int i = 0; i < nstop && !depth; i++)
			end |= l->t == stop[i];
		if (end)
			break;
		depth += (l->t == T_LPAREN || l->t == T_LBRACK) -
			 (l->t == T_RPAREN || l->t == T_RBRACK);
		next(l);
	}
	/* the stop token starts on the lexer's current line */
	e = l->line_start + l->tcol - 1;
	while (e > s && strchr(" \t\r\n", e[-1]))
		e--;
	return strndup(s, e > s ? e - s : 0);
}

/*
 * for ($v : START..END) block, for ($v : @map) block (also without the
 * parentheses), while (cond) block, unroll (N) block with N in 1..100 as
 * bpftrace.
 */
static struct node *loop_stmt(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	char kw = l->sval[0];
	struct node *n = mk(l, kw == 'f' ? S_FOR : kw == 'w' ? S_WHILE : S_UNROLL, line, col);
	struct node *p = NULL;
	bool paren;

	if (!n)
		return NULL;
	next(l);
	if (kw == 'w') {
		if (!(n->a = expr(l)))
			goto fail;
	} else if (kw == 'u') {
		if (!expect(l, T_LPAREN, "after 'unroll'"))
			goto fail;
		if (l->t == T_VAR && l->sval[1] >= '0' && l->sval[1] <= '9')
			p = positional(l, l->tline, l->tcol);	/* unroll ($1): a constant */
		if (l->t != T_INT && (!p || p->k != N_INT)) {
			node_free(p);
			lerr(l, l->tline, l->tcol, "unroll (N): N is a number of times, 1 to 100");
			goto fail;
		}
		n->ival = p ? p->ival : l->ival;
		node_free(p);
		if (n->ival < 1 || n->ival > 100) {
			lerr(l, l->tline, l->tcol, "unroll %s value is %d",
			     n->ival < 1 ? "minimum" : "maximum", n->ival < 1 ? 1 : 100);
			goto fail;
		}
		next(l);
		if (!expect(l, T_RPAREN, NULL))
			goto fail;
	} else {
		paren = accept(l, T_LPAREN);
		if (l->t != T_VAR || strspn(l->sval + 1, "0123456789") == strlen(l->sval + 1)) {
			lerr(l, l->tline, l->tcol, "expected a $variable after 'for', found %s",
			     lang_tok_str(l->t));
			goto fail;
		}
		n->a = mk(l, N_VAR, l->tline, l->tcol);
		if (!n->a)
			goto fail;
		n->a->sval = l->sval;
		l->sval = NULL;
		next(l);
		if (!expect(l, T_COLON, "after the loop's variable"))
			goto fail;
		if (l->t == T_MAP) {
			if (!push_arg(l, n, primary(l)))
				goto fail;
		} else {
			l->parens++;
			if (!push_arg(l, n, binary(l, 6)) || !expect(l, T_DOTDOT, "in a range") ||
			    !push_arg(l, n, binary(l, 6))) {
				l->parens--;
				goto fail;
			}
			l->parens--;
		}
		if (paren && !expect(l, T_RPAREN, NULL))
			goto fail;
	}
	if (!(n->b = block(l)))
		goto fail;
	return n;
fail:
	node_free(n);
	return NULL;
}

/* @m = { ...; avg(x) }: the block's statements, then @m = avg(x) in it (an
 * aggregation is a map's value only), the block a statement. */
static struct node *agg_in_block(struct lexer *l, struct node *as)
{
	struct node *blk = as->b, **tail = &blk->a, *n = mk(l, S_EXPR, as->line, as->col);

	if (!n) {
		node_free(as);
		return NULL;
	}
	while (*tail)
		tail = &(*tail)->next;
	as->b = blk->b;
	blk->b = NULL;
	*tail = as;
	n->a = blk;
	return n;
}

static struct node *stmt(struct lexer *l)
{
	int line = l->tline, col = l->tcol;
	struct node *n, *e;

	if (l->t == T_IDENT && !strcmp(l->sval, "let"))
		return lang_let_stmt(l);
	if (l->t == T_IDENT && (!strcmp(l->sval, "for") || !strcmp(l->sval, "while") ||
				!strcmp(l->sval, "unroll")))
		return loop_stmt(l);
	if (l->t == T_IDENT && (!strcmp(l->sval, "break") || !strcmp(l->sval, "continue") ||
				!strcmp(l->sval, "return"))) {
		n = mk(l, l->sval[0] == 'b' ? S_BREAK : l->sval[0] == 'c' ? S_CONTINUE : S_RETURN,
		       line, col);
		next(l);
		if (n && n->k == S_RETURN && l->t != T_SEMI && l->t != T_RBRACE &&
		    !(n->a = expr(l))) {
			/* return VALUE: bpftrace's probes ignore the value; run for
			 * what it does */
			node_free(n);
			return NULL;
		}
		return n;
	}
	if (l->t == T_IDENT && !strcmp(l->sval, "if")) {
		next(l);
		n = mk(l, S_IF, line, col);
		if (!n)
			return NULL;
		/* if (cond) { or, as bpftrace also takes it, if cond { */
		if (!(n->a = expr(l)) || !(n->b = block(l))) {
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
	if (e->k == N_BLOCK && e->op == T_INCR && l->t != T_ASSIGN) {
		/* @x++; as a statement is @x += 1 */
		n = e->a;
		e->a = NULL;
		node_free(e);
		return n;
	}
	if (l->t == T_ASSIGN || l->t == T_PLUSEQ || l->t == T_MINUSEQ || l->t == T_STAREQ ||
	    l->t == T_SLASHEQ || l->t == T_INCR || l->t == T_DECR) {
		if (l->t == T_ASSIGN && e->k != N_MAP && e->k != N_VAR && e->sval &&
		    !strcmp(e->sval, "_")) {
			/* _ = expr: the value is discarded, on purpose */
			node_free(e);
			next(l);
			n = mk(l, S_EXPR, line, col);
			if (n && !(n->a = expr(l))) {
				node_free(n);
				n = NULL;
			}
			return n;
		}
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
		if (n->op == T_ASSIGN && n->b->k == N_BLOCK && n->b->b && n->b->b->k == N_CALL &&
		    lang_is_agg(n->b->b->sval))
			return agg_in_block(l, n);
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
	return block_ex(l, NULL);
}

/* A block; with value, an expression last and without ';' after it is
 * taken out of the statements into *value (a block expression's value). */
struct node *block_ex(struct lexer *l, struct node **value)
{
	struct node *head = NULL, **tail = &head, **last = NULL;
	int line = l->tline, col = l->tcol;
	bool semi = false;

	if (!expect(l, T_LBRACE, NULL))
		return NULL;
	while (l->t != T_RBRACE) {
		struct node *s;

		if (accept(l, T_SEMI)) {
			semi = true;
			continue;
		}
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
		last = tail;
		*tail = s;
		tail = &s->next;
		semi = false;
		if (l->t != T_RBRACE && l->t != T_SEMI && !lang_is_block_stmt(s->k)) {
			lerr(l, l->tline, l->tcol, "expected ';' or '}' after a statement, found %s",
			     lang_tok_str(l->t));
			node_free(head);
			return NULL;
		}
	}
	next(l);
	if (value && last && !semi && (*last)->k == S_EXPR) {
		struct node *e = *last;

		*value = e->a;
		e->a = NULL;
		*last = NULL;
		node_free(e);
		return head;	/* NULL when the value was all of it */
	}
	if (value)
		return head;
	if (!head) {
		/* An empty block is legal: the probe fires, nothing happens. */
		head = mk(l, S_EXPR, l->tline, l->tcol);
		if (head)
			head->a = mk(l, N_INT, l->tline, l->tcol);
	}
	return head;
}

/* ---- probes ----------------------------------------------------------------- */

/* $N in a probe (uprobe:$1:main, interval:s:$2) is the parameter's text,
 * as in bpftrace; a missing one is empty. */
static char *probe_params(struct lexer *l, char *text)
{
	size_t len = strlen(text) + 1, most = 0;
	char *out, *w;

	for (int i = 0; i < l->nparams; i++)
		most = strlen(l->params[i]) > most ? strlen(l->params[i]) : most;
	for (const char *r = text; (r = strchr(r, '$')); r++)
		len += most;
	out = malloc(len);
	if (!out) {
		free(text);
		return NULL;
	}
	w = out;
	for (const char *r = text; *r;) {
		if (r[0] == '$' && r[1] >= '1' && r[1] <= '9') {
			char *end;
			long pos = strtol(r + 1, &end, 10);

			if (pos <= l->nparams)
				w = stpcpy(w, l->params[pos - 1]);
			r = end;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	free(text);
	return out;
}

static const struct {
	const char *name, *alias;
	bool hw;
	uint8_t config;
	uint32_t period;
} perf_ev[] = {
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

const char *lang_perf_event_name(size_t i, bool *hardware, const char **alias)
{
	if (i >= ARRAY_SIZE(perf_ev))
		return NULL;
	*hardware = perf_ev[i].hw;
	*alias = perf_ev[i].alias;
	return perf_ev[i].name;
}

int lang_perf_event(bool hardware, const char *name, uint32_t *type, uint64_t *config,
		uint64_t *period)
{
	for (size_t i = 0; i < ARRAY_SIZE(perf_ev); i++)
		if (perf_ev[i].hw == hardware && (!strcmp(name, perf_ev[i].name) ||
					     (perf_ev[i].alias && !strcmp(name, perf_ev[i].alias)))) {
			*type = hardware ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
			*config = perf_ev[i].config;
			*period = perf_ev[i].period;
			return 0;
		}
	return -ENOENT;
}

/* A software/hardware event's period: 1000000, or 1e6 as bpftrace takes it. */
static int parse_period(const char *t, unsigned long long *v)
{
	size_t d = strspn(t, "0123456789");
	unsigned long long e = 0;

	if (!d || sscanf(t, "%llu", v) != 1)
		return -1;
	if (!t[d])
		return 0;
	if (t[d] != 'e' || !t[d + 1] || strspn(t + d + 1, "0123456789") != strlen(t + d + 1) ||
	    sscanf(t + d + 1, "%llu", &e) != 1 || e > 18)
		return -1;
	while (e--) {
		if (*v > UINT64_MAX / 10)
			return -1;
		*v *= 10;
	}
	return 0;
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
	if (!p->text || (strchr(p->text, '$') && !(p->text = probe_params(l, p->text)))) {
		lerr(l, p->line, p->col, "out of memory");
		return false;
	}
	l->p = e;
	t = p->text;
	colon = strchr(t, ':');
	/* begin and end: today's bpftrace spelling; BEGIN and END: its older one */
	if (!strcmp(t, "BEGIN") || !strcmp(t, "begin")) {
		p->pv = PV_BEGIN;
	} else if (!strcmp(t, "END") || !strcmp(t, "end")) {
		p->pv = PV_END;
	} else if (str_has_prefix(t, "tracepoint:") || str_has_prefix(t, "t:")) {
		p->pv = PV_TRACEPOINT;
		p->target = strdup(colon + 1);
	} else if (str_has_prefix(t, "rawtracepoint:") || str_has_prefix(t, "rt:")) {
		/* The kernel's own tracepoints (module vmlinux): their trace
		 * events, in whichever system (events.c). */
		const char *fn = strchr(colon + 1, ':');

		p->pv = PV_TRACEPOINT;
		p->raw_tp = true;
		if (fn && (size_t)(fn - colon - 1) < 64) {
			char mod[64];

			snprintf(mod, sizeof(mod), "%.*s", (int)(fn - colon - 1), colon + 1);
			if (fnmatch(mod, "vmlinux", 0)) {
				lerr(l, p->line, p->col, "'%s': ERROR: No matches for rawtracepoint "
				     "%s: ftr takes the kernel's own tracepoints (vmlinux)", t,
				     colon + 1);
				return false;
			}
		}
		if (asprintf(&p->target, "*:%s", fn ? fn + 1 : colon + 1) < 0)
			p->target = NULL;
	} else if (str_has_prefix(t, "kfunc:") || str_has_prefix(t, "fentry:") ||
		   str_has_prefix(t, "kretfunc:") || str_has_prefix(t, "fexit:")) {
		p->pv = str_has_prefix(t, "kretfunc:") || str_has_prefix(t, "fexit:") ? PV_KRETPROBE :
			PV_KPROBE;
		p->btf_func = true;
		p->target = strdup(colon + 1);
		/* kfunc:[MOD:]FUNC, MOD a module's name (its /sys/kernel/btf/MOD). */
		const char *fn = p->target ? strchr(p->target, ':') : NULL;

		fn = fn ? fn + 1 : p->target;
		if (!p->target || !*fn || strchr(fn, ':') || strpbrk(p->target, "*?[/ .") ||
		    fn == p->target + 1) {
			lerr(l, p->line, p->col, "'%s': a %s probe names one kernel function, "
			     "maybe of a module (e.g. kfunc:vfs_write, kfunc:ext4:ext4_sync_file)",
			     t, p->pv == PV_KPROBE ? "kfunc" : "kretfunc");
			return false;
		}
	} else if (str_has_prefix(t, "kprobe:") || str_has_prefix(t, "k:")) {
		p->pv = PV_KPROBE;
	} else if (str_has_prefix(t, "kretprobe:") || str_has_prefix(t, "kr:")) {
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
		if (c2 && (parse_period(c2 + 1, &v) < 0 || !v)) {
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
		int end = 0;

		/* interval:ms:100, or today's bpftrace's interval:100ms (i:5s) */
		if ((sscanf(colon + 1, "%7[a-z]:%llu", unit, &v) != 2 &&
		     (sscanf(colon + 1, "%llu%7[a-z]%n", &v, unit, &end) != 2 ||
		      colon[1 + end] || !isdigit((unsigned char)colon[1]))) || v == 0) {
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
		lerr(l, p->line, p->col, "unknown probe '%s' (tracepoint:, rawtracepoint:, kprobe:, kretprobe:, "
		     "kfunc:, kretfunc:, uprobe:, uretprobe:, usdt:, interval:, profile:, software:, "
		     "hardware:, begin, end)", t);
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

/* Top-level token parsing leaves the lexer one token past: put it back. */
void unread(struct lexer *l)
{
	if (l->t != T_EOF) {
		l->p = l->line_start + l->tcol - 1;
		l->line = l->tline;
	}
	free(l->sval);
	l->sval = NULL;
}

bool word_at(const char *p, const char *w)
{
	return str_has_prefix(p, w) && !ident_char(p[strlen(w)]);
}

int lang_parse(const char *text, struct program *out, struct lang_err *err)
{
	return lang_parse_args(text, NULL, 0, out, err);
}

int lang_parse_args(const char *text, char *const *params, int nparams, struct program *out,
		    struct lang_err *err)
{
	struct lexer l = { .line = 1, .err = err, .params = params, .nparams = nparams };
	char *pp;

	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	/* #include, #define, #ifdef...: see ctypes.h. */
	pp = lang_cpp(text, err);
	if (!pp)
		return -EINVAL;
	l.src = l.p = l.line_start = pp;
	out->src = strdup(text);
	/* A script's "#!/usr/bin/env bpftrace" (or ftr) line: the kernel's,
	 * not the program's.  The newline stays, so line numbers hold. */
	if (l.p[0] == '#' && l.p[1] == '!')
		l.p += strcspn(l.p, "\n");
	skip_space(&l);
	while (!l.failed && *l.p) {
		struct clause *v;

		l.tline = l.line;
		l.tcol = col_of(&l, l.p);
		if (definition(&l, out) || config_block(&l, out) || map_decl(&l, out) ||
		    macro_def(&l)) {
			skip_space(&l);
			continue;
		}
		v = realloc(out->cl, (out->ncl + 1) * sizeof(*v));

		if (!v) {
			lerr(&l, l.line, col_of(&l, l.p), "out of memory");
			break;
		}
		out->cl = v;
		memset(&v[out->ncl], 0, sizeof(*v));
		if (!clause(&l, &v[out->ncl++]))
			break;
		/* clause() has read one token past the block: put it back. */
		unread(&l);
		skip_space(&l);
	}
	free(l.sval);
	for (int i = 0; i < out->ncl && !l.failed; i++)
		if (!expand(&l, &out->cl[i].pred, 0))
			break;
		else
			expand(&l, &out->cl[i].body, 0);
	macros_free(&l);
	free(pp);
	if (!l.failed && out->ncl == 0)
		lerr(&l, 1, 1, "empty program");
	if (l.failed) {
		lang_free(out);
		return -EINVAL;
	}
	return 0;
}

const struct lang_mapdecl *lang_mapdecl_of(const struct program *p, const char *name)
{
	for (int i = 0; i < p->nmdecls; i++)
		if (!strcmp(p->mdecls[i].name, name))
			return &p->mdecls[i];
	return NULL;
}

int lang_probe_filter(struct program *p, int (*keep)(const char *text, void *arg), void *arg)
{
	int kept = 0, n = 0;

	for (int i = 0; i < p->ncl; i++) {
		struct clause *c = &p->cl[i];
		int m = 0;

		for (int j = 0; j < c->nprobes; j++) {
			struct lang_probe *pr = &c->probes[j];
			bool always = pr->pv == PV_BEGIN || pr->pv == PV_END;

			if (always || keep(pr->text, arg)) {
				kept += !always;
				c->probes[m++] = *pr;
				continue;
			}
			free(pr->text);
			free(pr->target);
		}
		c->nprobes = m;
		if (m) {
			p->cl[n++] = *c;
			continue;
		}
		free(c->probes);
		node_free(c->pred);
		node_free(c->body);
	}
	p->ncl = n;
	return kept;
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
	for (int i = 0; i < p->ndecls; i++)
		free(p->decls[i].text);
	free(p->decls);
	for (int i = 0; i < p->nmdecls; i++)
		free(p->mdecls[i].name);
	free(p->mdecls);
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
	/* A window of a long line around the column (a program of one 800 KB
	 * line was echoed whole), "..." where it is cut. */
	{
		int at = err->col - 1 < 0 ? 0 : err->col - 1;
		int from = at > 80 ? at - 80 : 0, to = from + 160 < len ? from + 160 : len;

		fprintf(stderr, "  %s%.*s%s\n  %s", from ? "..." : "", to - from, line + from,
			to < len ? "..." : "", from ? "   " : "");
		/* The caret under the column: a tab in the line is a tab above it. */
		for (int i = from; i < at; i++)
			fputc(i < len && line[i] == '\t' ? '\t' : ' ', stderr);
	}
	fputs("^\n", stderr);
}
