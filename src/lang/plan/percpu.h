/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A field fetched once per CPU (curtask without $current, fetchargs.c),
 * read as the copy of the event's CPU (percpu.c).
 */
#ifndef FTR_PERCPU_H
#define FTR_PERCPU_H

struct node;

/* Every read in n (and the statements after it) of a field named in per[]
 * becomes (cpu == c0 ? NAME_c0 : (cpu == c1 ? NAME_c1 : ... NAME_cN)) over
 * cpus[0..ncpu).  0, or -ENOMEM. */
int percpu_rewrite(struct node *n, char (*per)[16], int nper, const int *cpus, int ncpu);

#endif
