/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the parser: the lexer's state and the few lexer and parser steps
 * that parser.c (tokens, expressions, statements, clauses) and preamble.c
 * (a program's other top-level items, macros) share.  Nothing outside
 * src/lang/ includes it; lang.h is the parser's public side.
 */
#ifndef FTR_PARSE_INT_H
#define FTR_PARSE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "lang/lang.h"

/* N_CALL.idx of a bare name the parser did not know (see expand). */
#define BARE_NAME (-2)

struct macro;

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
	char *const *params;	/* positional parameters $1..$N */
	int nparams;
	struct macro *macros;
	int nmacros;
	int expansions;		/* a macro's variables are renamed per expansion */
};

/* getopt.c: a getopt(...) call made its literal value; false after an error */
bool lang_getopt_call(struct lexer *l, struct node *n);

/* number.c: offsetof(TYPE, MEMBER...) after its name, at its '(' */
struct node *lang_offsetof_expr(struct lexer *l, int line, int col);
/* number.c: let $x [: TYPE] [= expr], at 'let' */
struct node *lang_let_stmt(struct lexer *l);

/* parser.c: the lexer */
void lerr(struct lexer *l, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool ident_char(char c);
void next(struct lexer *l);
bool expect(struct lexer *l, enum tok t, const char *what);
void unread(struct lexer *l);
bool word_at(const char *p, const char *w);

/* Inline, so that no global symbol named accept() meets libc's. */
static inline bool accept(struct lexer *l, enum tok t)
{
	if (l->t != t)
		return false;
	next(l);
	return true;
}

/* parser.c: an expression; the source text up to one of stop (at depth 0);
 * is a C type's name ahead of p (just after a '('), its length to ')' */
struct node *parse_expr(struct lexer *l);
char *text_until(struct lexer *l, const enum tok *stop, int nstop);
bool type_ahead(const char *p, size_t *len);

/* parser.c: nodes and blocks */
struct node *mk(struct lexer *l, enum nk k, int line, int col);
bool push_arg(struct lexer *l, struct node *n, struct node *a);
struct node *block_ex(struct lexer *l, struct node **value);

static inline void node_free(struct node *n)
{
	lang_node_free(n);
}

/* preamble.c: a program's top-level items other than clauses; each
 * returns false where the text there is not one (a clause, then) */
bool definition(struct lexer *l, struct program *out);
bool config_block(struct lexer *l, struct program *out);
bool map_decl(struct lexer *l, struct program *out);
bool macro_def(struct lexer *l);
void macros_free(struct lexer *l);
/* preamble.c: a deep copy of n (and what follows it when list), and the
 * macro calls in n and what follows it expanded */
struct node *node_copy(struct lexer *l, const struct node *n, bool list);
bool expand(struct lexer *l, struct node **np, int depth);

#endif
