// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A pointer stored at a function's entry and read through at its return
 * (issue 36, class 1): the commonest shape of published bpftrace tools,
 *
 *     kprobe:vfs_open { @file[tid] = arg1; }
 *     kretprobe:vfs_open { $f = (struct file *)@file[tid]; ... $f->f_path ... }
 *
 * bpftrace reads the memory at the return, through the value the entry
 * stored.  ftr reads memory only by the probe's fetch arguments, at the
 * event; a kernel from 6.10 fetches an entry argument in a return probe
 * ($argN in a kretprobe event: the kretprobe's entry handler keeps it; its
 * README then says "return probes support: $retval, $arg<N>"), so where
 * the map's value is provably that argument, the read is compiled into the
 * return probe as +OFF($argN), done at the return as bpftrace does it.
 *
 * Provably: the map is keyed by tid alone, read by tid in a kretprobe of
 * one function F, and every write of it anywhere in the program is
 * `@m[tid] = argN` (one N) in a kprobe clause of F alone, at its first
 * instruction.  Deletes and clears are fine.  At run time the read is
 * still guarded by the map (fetchargs.c's guard()): it goes through only
 * where @m[tid], as the interpreter holds it at that event, equals the
 * fetched $argN; where the map holds 0 (no entry: a call that began before
 * the program, a delete) bpftrace reads through NULL and gets 0, and so
 * does ftr.  What is left is a nonzero stale value (F recursing within a
 * thread without a delete at the return): bpftrace reads through the
 * inner call's pointer, ftr gives 0 (ftr-language(7) says so).
 *
 * Everything else is refused by the caller with the reason named here.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/features.h"
#include "lang/lang.h"
#include "lang/plan/entryarg.h"

/* The function of a kprobe/kretprobe at a single function's first
 * instruction (no wildcard, no offset), or NULL. */
static const char *one_function(const struct lang_probe *pr)
{
	const char *c = pr->text ? strchr(pr->text, ':') : NULL;

	if (pr->btf_func || pr->usdt || !c || !c[1] || strpbrk(c + 1, "*?[{+"))
		return NULL;
	return c + 1;
}

static bool by_tid(const struct node *m)
{
	return m->nargs == 1 && m->args[0]->k == N_BUILTIN && m->args[0]->ival == B_TID;
}

struct writes {
	const char *map, *fn;
	int arg;		/* the N of every write so far, -1 before the first */
	int n;
	char *why;
	size_t len;
	bool bad;
};

static void bad(struct writes *w, const struct node *n, const char *what)
{
	if (!w->bad)
		snprintf(w->why, w->len, "%s is written at %d:%d %s", w->map, n->line, n->col,
			 what);
	w->bad = true;
}

static void scan(const struct node *n, const struct clause *c, struct writes *w)
{
	for (; n && !w->bad; n = n->next) {
		if (n->k == S_ASSIGN && n->a && n->a->k == N_MAP && n->a->sval &&
		    !strcmp(n->a->sval, w->map)) {
			const struct lang_probe *pr = &c->probes[0];

			if (n->op != T_ASSIGN || !by_tid(n->a) || !n->b ||
			    n->b->k != N_BUILTIN || n->b->ival != B_ARG)
				bad(w, n, "other than as [tid] = argN");
			else if (c->nprobes != 1 || pr->pv != PV_KPROBE || !one_function(pr) ||
				 strcmp(one_function(pr), w->fn))
				bad(w, n, "other than at kprobe:F's entry alone");
			else if (w->arg >= 0 && w->arg != n->b->idx)
				bad(w, n, "with two different arguments");
			else {
				w->arg = n->b->idx;
				w->n++;
			}
		}
		scan(n->a, c, w);
		scan(n->b, c, w);
		scan(n->c, c, w);
		for (int i = 0; i < n->nargs; i++)
			scan(n->args[i], c, w);
	}
}

int entryarg_find(const struct program *p, const struct clause *c, const struct node *m,
		  unsigned probe_syntax, char *why, size_t len)
{
	const struct lang_probe *pr = &c->probes[0];
	struct writes w = { .map = m->sval, .fn = one_function(pr), .arg = -1, .why = why,
			    .len = len };

	if (!(probe_syntax & PS_RET_ARGN)) {
		snprintf(why, len, "this kernel fetches no entry argument in a return probe "
			 "($argN in a kretprobe event, Linux 6.10): read through the pointer "
			 "at the kprobe that stores it, or use kretfunc's args");
		return -1;
	}
	if (pr->pv != PV_KRETPROBE || c->nprobes != 1 || !w.fn) {
		snprintf(why, len, "a map is read through at a kretprobe of one function only "
			 "(its entry argument, fetched at the return)");
		return -1;
	}
	if (!by_tid(m)) {
		snprintf(why, len, "%s is keyed by other than tid alone: only @m[tid] is "
			 "provably this call's entry argument", m->sval);
		return -1;
	}
	for (int ci = 0; ci < p->ncl; ci++) {
		scan(p->cl[ci].pred, &p->cl[ci], &w);
		scan(p->cl[ci].body, &p->cl[ci], &w);
	}
	if (!w.bad && !w.n)
		snprintf(why, len, "%s is never written as @m[tid] = argN at kprobe:%s",
			 m->sval, w.fn);
	if (w.bad || !w.n) {
		size_t l = strlen(why);

		snprintf(why + l, len - l, " (read at kretprobe:%s, it is the entry argument "
			 "only where every write is %s[tid] = argN at kprobe:%s)", w.fn,
			 m->sval, w.fn);
		return -1;
	}
	if (w.arg >= ENTRYARG_MAX) {
		snprintf(why, len, "%s holds arg%d: ftr takes arg0 to arg%d at the return",
			 m->sval, w.arg, ENTRYARG_MAX - 1);
		return -1;
	}
	return w.arg;
}

static struct node *mk(enum nk k, enum tok op, int line, int col)
{
	struct node *n = calloc(1, sizeof(*n));

	if (n) {
		n->k = k;
		n->op = op;
		n->line = line;
		n->col = col;
	}
	return n;
}

static struct node *field(const char *f, int line, int col)
{
	struct node *n = mk(N_FIELD, T_EOF, line, col);

	if (n && !(n->sval = strdup(f))) {
		free(n);
		return NULL;
	}
	return n;
}

struct node *entryarg_cond(const struct node *m, const char *f, int line, int col)
{
	struct node *and = mk(N_BINOP, T_ANDAND, line, col);
	struct node *eq = mk(N_BINOP, T_EQ, line, col);

	if (and)
		and->a = eq;
	if (!and || !eq || !(eq->a = entryarg_copy(m)) || !(eq->b = field(f, line, col)) ||
	    !(and->b = field(f, line, col))) {
		if (and)
			lang_node_free(and);
		else
			free(eq);
		return NULL;
	}
	return and;
}

int entryarg_value(struct node *n, struct node *const *maps, const char *fetch, int64_t k)
{
	struct node *m, *sum = NULL, *old;
	int i, end = 0;

	if (sscanf(fetch, "$arg%d%n", &i, &end) != 1 || fetch[end] || i < 1 ||
	    i > ENTRYARG_MAX || !maps[i - 1])
		return 0;
	m = entryarg_copy(maps[i - 1]);
	if (!m || (k && !(sum = mk(N_BINOP, T_PLUS, n->line, n->col))) ||
	    (sum && !(sum->b = mk(N_INT, T_EOF, n->line, n->col)))) {
		lang_node_free(m);
		if (sum)
			lang_node_free(sum);
		return -1;
	}
	if (sum) {
		sum->a = m;
		sum->b->ival = k;
		m = sum;
	}
	old = malloc(sizeof(*old));
	if (!old) {
		lang_node_free(m);
		return -1;
	}
	*old = *n;		/* (n's own operands go with it) */
	old->next = NULL;
	lang_node_free(old);
	m->line = n->line;
	m->col = n->col;
	m->next = n->next;
	*n = *m;
	free(m);
	return 1;
}

int entryarg_of(const char *fetch, struct node *const *maps)
{
	const char *a = strstr(fetch, "($arg");
	int i, end = 0;

	if (!a || sscanf(a, "($arg%d%n", &i, &end) != 1 || a[end] != ')' || i < 1 ||
	    i > ENTRYARG_MAX || !maps[i - 1])
		return -1;
	return i - 1;
}

int entryarg_wrap_str(struct node *n, struct node *cond)
{
	struct node *in, *empty;

	if (!cond)
		return -1;
	in = malloc(sizeof(*in));
	empty = mk(N_STR, T_EOF, n->line, n->col);
	if (!in || !empty || !(empty->sval = strdup(""))) {
		free(in);
		lang_node_free(empty);
		lang_node_free(cond);
		return -1;
	}
	*in = *n;
	in->next = NULL;
	n->k = N_TERNARY;
	n->sval = NULL;
	n->args = NULL;
	n->nargs = 0;
	n->a = cond;
	n->b = in;
	n->c = empty;
	return 0;
}

struct node *entryarg_copy(const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	*c = *n;
	c->next = NULL;
	c->a = c->b = c->c = NULL;
	c->args = NULL;
	c->bind = NULL;
	c->tsig = NULL;
	c->sval = n->sval ? strdup(n->sval) : NULL;
	if ((n->sval && !c->sval) || (n->a && !(c->a = entryarg_copy(n->a))) ||
	    (n->b && !(c->b = entryarg_copy(n->b))) || (n->c && !(c->c = entryarg_copy(n->c))))
		goto fail;
	if (n->nargs) {
		c->args = calloc((size_t)n->nargs, sizeof(*c->args));
		c->nargs = 0;
		if (!c->args)
			goto fail;
		for (int i = 0; i < n->nargs; i++) {
			if (!(c->args[i] = entryarg_copy(n->args[i])))
				goto fail;
			c->nargs++;
		}
	}
	return c;
fail:
	lang_node_free(c);
	return NULL;
}
