// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Struct-valued variables read by member only (issue 36): `$skb = *(struct
 * sk_buff *)arg0; ... $skb.len` is the pointer `$skb = (struct sk_buff
 * *)arg0; ... $skb->len`.  bpftrace copies the whole struct at the
 * assignment; ftr's reads are all the probe's fetch arguments, made at the
 * event, so reading only the members the clause names is the same answer,
 * and a struct of more members than a clause reads (sk_buff's) is no
 * longer refused.  A variable used otherwise (printed whole, stored,
 * assigned twice) keeps its value semantics (fetchargs.c).
 */
#include <string.h>

#include "lang/lang.h"
#include "lang/plan/structvar.h"

struct use {
	const char *var;
	struct node *assign;	/* the one S_ASSIGN of var, or NULL */
	int assigns;
	bool other;		/* var used other than as $var.member */
};

static void scan(struct node *n, const struct node *parent, struct use *u)
{
	for (; n; n = n->next) {
		if (n->k == S_ASSIGN && n->a && n->a->k == N_VAR && !strcmp(n->a->sval, u->var)) {
			u->assigns++;
			u->assign = n;
			if (n->op != T_ASSIGN)
				u->other = true;
		} else if (n->k == N_VAR && n->sval && !strcmp(n->sval, u->var) &&
			   !(parent && parent->k == N_MEMBER && parent->op == T_DOT &&
			     parent->a == n) &&
			   !(parent && parent->k == S_ASSIGN && parent->a == n)) {
			u->other = true;
		}
		scan(n->a, n, u);
		scan(n->b, n, u);
		scan(n->c, n, u);
		for (int i = 0; i < n->nargs; i++)
			scan(n->args[i], n, u);
	}
}

static void to_arrow(struct node *n, const char *var)
{
	for (; n; n = n->next) {
		if (n->k == N_MEMBER && n->op == T_DOT && n->a && n->a->k == N_VAR &&
		    !strcmp(n->a->sval, var))
			n->op = T_ARROW;
		to_arrow(n->a, var);
		to_arrow(n->b, var);
		to_arrow(n->c, var);
		for (int i = 0; i < n->nargs; i++)
			to_arrow(n->args[i], var);
	}
}

/* The struct-valued assignments of the statements at n (nested too). */
static void find(struct clause *c, struct node *n)
{
	for (; n; n = n->next) {
		struct node *rhs = n->k == S_ASSIGN && n->op == T_ASSIGN ? n->b : NULL;

		if (rhs && n->a && n->a->k == N_VAR && rhs->k == N_UNOP && rhs->op == T_STAR &&
		    rhs->a && rhs->a->k == N_CAST && rhs->a->sval && strchr(rhs->a->sval, '*') &&
		    !strchr(rhs->a->sval, '[')) {
			struct use u = { .var = n->a->sval };

			scan(c->pred, NULL, &u);
			scan(c->body, NULL, &u);
			if (u.assigns == 1 && !u.other && u.assign == n) {
				n->b = rhs->a;		/* the pointer itself */
				rhs->a = NULL;
				lang_node_free(rhs);
				to_arrow(c->pred, u.var);
				to_arrow(c->body, u.var);
			}
		}
		find(c, n->a);
		find(c, n->b);
		find(c, n->c);
	}
}

void struct_vars(struct clause *c)
{
	find(c, c->body);
}
