// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * curtask's reads without $current, made once per CPU (fetchargs.c's
 * per_cpu()): each read of such a field chooses, at the event, the copy of
 * the event's CPU.  See percpu.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "lang/plan/percpu.h"

/* A new node at n's position. */
static struct node *node_at(const struct node *n, enum nk k)
{
	struct node *m = calloc(1, sizeof(*m));

	if (m) {
		m->k = k;
		m->line = n->line;
		m->col = n->col;
	}
	return m;
}

/*
 * n, a read of field name, becomes the read of its copy for the event's CPU:
 * (cpu == c0 ? name_c0 : (cpu == c1 ? name_c1 : ... name_cN)).
 */
static int choose_cpu(struct node *n, const char *name, const int *cpus, int ncpu)
{
	char copy[32];

	free(n->sval);
	n->sval = NULL;
	if (ncpu == 1) {
		snprintf(copy, sizeof(copy), "%s_%d", name, cpus[0]);
		n->sval = strdup(copy);
		return n->sval ? 0 : -ENOMEM;
	}
	n->k = N_TERNARY;
	n->a = node_at(n, N_BINOP);
	n->b = node_at(n, N_FIELD);
	n->c = node_at(n, N_FIELD);
	if (!n->a || !n->b || !n->c)
		return -ENOMEM;
	n->a->op = T_EQ;
	n->a->a = node_at(n, N_BUILTIN);
	n->a->b = node_at(n, N_INT);
	if (!n->a->a || !n->a->b || !(n->a->a->sval = strdup("cpu")))
		return -ENOMEM;
	n->a->a->ival = B_CPU;
	n->a->b->ival = cpus[0];
	snprintf(copy, sizeof(copy), "%s_%d", name, cpus[0]);
	n->b->sval = strdup(copy);
	if (!n->b->sval)
		return -ENOMEM;
	return choose_cpu(n->c, name, cpus + 1, ncpu - 1);
}

/* Every read in n (and the statements after it) of a field of per[], the
 * fields read per CPU, chooses its event's CPU. */
int percpu_rewrite(struct node *n, char (*per)[16], int nper, const int *cpus, int ncpu)
{
	for (; n; n = n->next) {
		bool done = false;

		for (int i = 0; n->k == N_FIELD && n->sval && !done && i < nper; i++)
			if (!strcmp(n->sval, per[i])) {
				char name[16];

				memcpy(name, per[i], sizeof(name));
				if (choose_cpu(n, name, cpus, ncpu))
					return -ENOMEM;
				done = true;
			}
		if (done)
			continue;
		if ((n->a && percpu_rewrite(n->a, per, nper, cpus, ncpu)) ||
		    (n->b && percpu_rewrite(n->b, per, nper, cpus, ncpu)) ||
		    (n->c && percpu_rewrite(n->c, per, nper, cpus, ncpu)))
			return -ENOMEM;
		for (int i = 0; i < n->nargs; i++)
			if (percpu_rewrite(n->args[i], per, nper, cpus, ncpu))
				return -ENOMEM;
	}
	return 0;
}
