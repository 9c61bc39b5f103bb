/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The planner: which parts of a program the kernel can do for it without
 * changing the answer.  Pure functions over the syntax tree, so that they
 * are tested table-driven without a kernel.
 */
#ifndef FTR_PLAN_H
#define FTR_PLAN_H

#include <stdbool.h>
#include <stddef.h>

struct node;

/* Render a predicate in ftr's filter syntax (expr.h), the syntax the engine
 * places in the kernel's filter when the kernel can evaluate it and runs in
 * user space otherwise.  Only event fields, numbers, strings, comm, cpu and
 * tid, comparisons, '&' and logic render, where the filter's answer is the
 * language's; anything else (maps, variables, pid — a process id the event
 * does not carry —, calls, arithmetic, a comparison used as a number,
 * strings ordered or compared with each other) stays with the interpreter.
 * 0, or -EINVAL with the reason in why. */
int plan_render_pred(const struct node *pred, char *buf, size_t len, char *why, size_t wlen);

/*
 * The event fields (args.NAME) a clause reads in its predicate and body,
 * each once, in the order first met; str is true when one of the reads is
 * str(args.NAME), the string the field points to, and join too when one is
 * join(args.NAME), the strings of the array it points to; buf when one is
 * buf(args.NAME, ...), the bytes it points to.  The count, or -ENOSPC
 * when there are more than max.
 */
struct plan_field {
	char name[64];
	bool str;
	bool join;	/* join(args.NAME): the strings of a char ** (with str) */
	bool buf;	/* buf(args.NAME, ...): the bytes it points to */
};
/* join(args.F) reads F_0 .. F_{PLAN_JOIN_MAX-1}: bpftrace's 16 arguments */
#define PLAN_JOIN_MAX 16
int plan_clause_fields(const struct node *pred, const struct node *body, struct plan_field *f,
		       int max);
/* K when n is args.F[K] (args.F.K once fetchargs.c has been by), K a constant
 * below PLAN_JOIN_MAX: in str(args.F[K]), F a char **, the string join()
 * reads as F_K.  Else -1. */
int plan_field_elem(const struct node *n);

#endif
