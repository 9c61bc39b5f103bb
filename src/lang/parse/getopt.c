// SPDX-License-Identifier: GPL-2.0-only
/*
 * Named program parameters: getopt("name"[, default[, "description"]]),
 * given as --name[=VALUE] after the program's "--" (bpftrace's form).
 *
 * Like $1, a getopt() call is a literal, known when the program is parsed:
 * the default's type is the parameter's (a number, a string, a bool; none:
 * a bool, true when --name is given without a value).  The command line's
 * words are set before the parse (lang_getopt_set); after it, the caller
 * asks which words no getopt() named (lang_getopt_check), and whether the
 * program has any getopt() at all: ftr's "-- CMD" is a command to trace
 * only when it has none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lang/lang.h"
#include "lang/parse/parse-int.h"

#define MAX_DECLARED 64

static struct {
	char *const *words;	/* "--name", "--name=value" */
	int n;
	bool used;		/* a getopt() was parsed */
	char *names[MAX_DECLARED], *descs[MAX_DECLARED];
	int ndeclared;
	char bad_value[256];	/* the first value of the wrong type, bpftrace's words */
} opts;

void lang_getopt_set(char *const *words, int n)
{
	for (int i = 0; i < opts.ndeclared; i++) {
		free(opts.names[i]);
		free(opts.descs[i]);
	}
	opts.bad_value[0] = '\0';
	opts.words = words;
	opts.n = n;
	opts.used = false;
	opts.ndeclared = 0;
}

bool lang_getopt_used(void)
{
	return opts.used;
}

/* The word for --name: its value after '=', "" without one; NULL: absent. */
static const char *given(const char *name)
{
	size_t l = strlen(name);

	for (int i = 0; i < opts.n; i++) {
		const char *w = opts.words[i] + 2;

		if (!strncmp(w, name, l) && (w[l] == '\0' || w[l] == '='))
			return w[l] ? w + l + 1 : "";
	}
	return NULL;
}

static void bad_value(const char *name, const char *what, const char *v)
{
	if (!opts.bad_value[0])
		snprintf(opts.bad_value, sizeof(opts.bad_value),
			 "program command line option --%s invalid %s (value: %s)", name, what, v);
}

static void declare(const char *name, const char *desc)
{
	for (int i = 0; i < opts.ndeclared; i++)
		if (!strcmp(opts.names[i], name))
			return;
	if (opts.ndeclared < MAX_DECLARED) {
		opts.names[opts.ndeclared] = strdup(name);
		opts.descs[opts.ndeclared++] = desc ? strdup(desc) : NULL;
	}
}

static bool bool_word(const char *v, bool *out)
{
	if (!*v || !strcasecmp(v, "true") || !strcmp(v, "1"))
		return *out = true, true;
	if (!strcasecmp(v, "false") || !strcmp(v, "0"))
		return *out = false, true;
	return false;
}

/* A negative value is written -N, as the program would: a literal with its
 * top bit set is an unsigned one above INT64_MAX (sema.c). */
static bool signed_literal(struct lexer *l, struct node *n, bool minus)
{
	struct node *mag;

	if (!minus || n->ival >= 0)
		return true;
	mag = mk(l, N_INT, n->line, n->col);
	if (!mag)
		return false;
	mag->ival = (int64_t)(0 - (uint64_t)n->ival);
	n->k = N_UNOP;
	n->op = T_MINUS;
	n->a = mag;
	n->ival = 0;
	return true;
}

/*
 * A call getopt(...) just parsed: becomes its value, a literal.  false
 * with an error said.
 */
bool lang_getopt_call(struct lexer *l, struct node *n)
{
	struct node *name = n->nargs ? n->args[0] : NULL, *def = n->nargs > 1 ? n->args[1] : NULL;
	struct node *desc = n->nargs > 2 ? n->args[2] : NULL;
	const char *v;
	int64_t num;
	const char *end, *pname;
	bool b, neg, def_minus = false;

	if (strcmp(n->sval, "getopt"))
		return true;
	/* a negative default, -1, is '-' applied to 1 */
	if (def && def->k == N_UNOP && def->op == T_MINUS && def->a && def->a->k == N_INT &&
	    !def->a->enum_id) {
		struct node *lit = def->a;

		def->a = NULL;
		node_free(def);
		lit->ival = (int64_t)(0 - (uint64_t)lit->ival);
		n->args[1] = def = lit;
		def_minus = true;
	}
	if (!name || name->k != N_STR || n->nargs > 3 || (def && def->k != N_INT &&
	    def->k != N_STR) || (desc && desc->k != N_STR)) {
		lerr(l, n->line, n->col, "getopt(\"NAME\"[, DEFAULT[, \"DESCRIPTION\"]]): a name, "
		     "a default (a number, a string or a bool) and a description, all literals");
		return false;
	}
	opts.used = true;
	declare(name->sval, desc ? desc->sval : NULL);
	v = given(name->sval);
	pname = opts.ndeclared ? opts.names[opts.ndeclared - 1] : "?";
	for (int i = 0; i < opts.ndeclared; i++)
		if (!strcmp(opts.names[i], name->sval))
			pname = opts.names[i];
	/* the node becomes its value; its arguments go */
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i] != def)
			node_free(n->args[i]);
	free(n->args);
	n->args = NULL;
	n->nargs = 0;
	free(n->sval);
	n->sval = NULL;
	if (def && def->k == N_STR) {
		n->k = N_STR;
		n->sval = strdup(v ? v : def->sval);
		n->ival = n->sval ? (int64_t)strlen(n->sval) : 0;
		node_free(def);
		return n->sval != NULL;
	}
	n->k = N_INT;
	if (!def || def->enum_id == LANG_BOOL_ID) {
		n->enum_id = LANG_BOOL_ID;
		n->ival = def ? def->ival : 0;
		if (v && !bool_word(v, &b))
			bad_value(pname, "boolean", v);
		else if (v)
			n->ival = b;
		node_free(def);
		return true;
	}
	n->ival = def->ival;
	node_free(def);
	if (!v)
		return signed_literal(l, n, def_minus);
	neg = v[0] == '-';
	if (!(v[neg] >= '0' && v[neg] <= '9') || lang_number(v + neg, &end, &num) < 0 || *end) {
		bad_value(pname, "integer", v);
		return true;
	}
	n->ival = neg ? (int64_t)(0 - (uint64_t)num) : num;
	return signed_literal(l, n, neg);
}

/*
 * After the parse: -EINVAL when a word names no getopt() of the program
 * (bpftrace's ERROR and HINT lines on stderr), or is --help (the HINT
 * alone); 0 otherwise.
 */
int lang_getopt_check(void)
{
	char bad[512] = "";
	size_t len = 0;
	bool help = false;

	for (int i = 0; i < opts.n; i++) {
		const char *w = opts.words[i] + 2;
		size_t l = strcspn(w, "=");
		bool known = false;

		if (!strcmp(w, "help")) {
			help = true;
			continue;
		}
		for (int j = 0; j < opts.ndeclared && !known; j++)
			known = strlen(opts.names[j]) == l && !strncmp(opts.names[j], w, l);
		if (!known && len < sizeof(bad))
			len += snprintf(bad + len, sizeof(bad) - len, "%s--%.*s", len ? ", " : "",
					(int)l, w);
	}
	/* bpftrace's words: its users' scripts and tests read them */
	if (opts.bad_value[0]) {
		fprintf(stderr, "ERROR: %s\n", opts.bad_value);
		return -EINVAL;
	}
	if (len) {
		fprintf(stderr, "ERROR: unexpected program command line options: %s\n", bad);
		fprintf(stderr, "HINT: expected program options: ");
		for (int j = 0; j < opts.ndeclared; j++)
			fprintf(stderr, "%s--%s", j ? ", " : "", opts.names[j]);
		fprintf(stderr, "\n");
		return -EINVAL;
	}
	if (!help)
		return 0;
	fprintf(stderr, "HINT: expected program options:\n");
	for (int j = 0; j < opts.ndeclared; j++)
		fprintf(stderr, "  --%s%s%s\n", opts.names[j], opts.descs[j] ? ": " : "",
			opts.descs[j] ? opts.descs[j] : "");
	return -EINVAL;
}
