// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the language's parser: lang_parse + lang_free on any
 * bytes, and plan_render_pred on every predicate that parses.  Besides
 * crashes, leaks and undefined behaviour (the sanitizers' job), it checks
 * what the parser promises: a refusal carries a message and a position
 * inside the text, and every node of an accepted program has a position.
 *
 * Built with clang -fsanitize=fuzzer,address (make fuzz), or linked with
 * driver.c, a deterministic mutation driver for machines without libFuzzer
 * (make check-fuzz).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "lang/plan/filtertext.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *const params[] = { (char *)"7", (char *)"x" };

/* Whether the last input parsed: driver.c keeps such mutants. */
int fuzz_last_ok;

static void fail(const char *what, const char *text, int line, int col)
{
	fprintf(stderr, "fuzz-lang: %s (at %d:%d) on input:\n%s\n", what, line, col, text);
	abort();
}

/* The length of each line of the input, for pos_ok. */
static int *line_len;
static int nlines;

static void index_lines(const char *text)
{
	const char *p = text;
	int n = 1;

	for (const char *q = text; *q; q++)
		n += *q == '\n';
	line_len = realloc(line_len, n * sizeof(*line_len));
	if (!line_len)
		abort();
	nlines = 0;
	for (;;) {
		size_t len = strcspn(p, "\n");

		line_len[nlines++] = (int)len;
		if (!p[len])
			break;
		p += len + 1;
	}
}

/* Is line:col inside the text (col may be one past the line's end, where
 * an "expected X, found end of input" points)? */
static int pos_ok(int line, int col)
{
	return line >= 1 && line <= nlines && col >= 1 && col <= line_len[line - 1] + 1;
}

static void check_nodes(const char *text, const struct node *n)
{
	for (; n; n = n->next) {
		if (!pos_ok(n->line, n->col))
			fail("node without a valid position", text, n->line, n->col);
		if (n->nargs && !n->args)
			fail("node with arguments but no argument array", text, n->line, n->col);
		check_nodes(text, n->a);
		check_nodes(text, n->b);
		check_nodes(text, n->c);
		for (int i = 0; i < n->nargs; i++)
			check_nodes(text, n->args[i]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct program p;
	struct lang_err err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';	/* lang_parse takes a C string: it ends at a NUL */
	index_lines(text);
	/* with positional parameters, so that $1, $#, str($2) and $1 in a
	 * probe are exercised too */
	fuzz_last_ok = lang_parse_args(text, params, 2, &p, &err) == 0;
	if (!fuzz_last_ok) {
		if (!err.msg[0])
			fail("refusal without a message", text, err.line, err.col);
		if (!pos_ok(err.line, err.col))
			fail(err.msg, text, err.line, err.col);
		if (p.ncl || p.cl || p.src)
			fail("refusal left a program behind", text, err.line, err.col);
	} else {
		if (p.ncl < 1)
			fail("an accepted program without clauses", text, 0, 0);
		for (int i = 0; i < p.ncl; i++) {
			const struct clause *c = &p.cl[i];
			char buf[512], why[256] = "";

			if (c->nprobes < 1 || !c->body)
				fail("a clause without probes or body", text, c->line, c->col);
			if (!pos_ok(c->line, c->col))
				fail("a clause without a valid position", text, c->line, c->col);
			for (int j = 0; j < c->nprobes; j++)
				if (!c->probes[j].text ||
				    !pos_ok(c->probes[j].line, c->probes[j].col))
					fail("a probe without text or position", text,
					     c->probes[j].line, c->probes[j].col);
			check_nodes(text, c->pred);
			check_nodes(text, c->body);
			/* A small buffer, so that "too long" is reached too. */
			if (c->pred && plan_render_pred(c->pred, buf, sizeof(buf), why,
							sizeof(why)) < 0 && !why[0])
				fail("a refused predicate without a reason", text, 0, 0);
		}
		lang_free(&p);
	}
	free(text);
	return 0;
}
