/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pointer stored at a function's entry and read through at its return
 * (entryarg.c): `kprobe:f { @m[tid] = argN } kretprobe:f { (T *)@m[tid] }`
 * is the entry's argument N, which a kernel from 6.10 fetches in the
 * return probe itself ($argN in a kretprobe event).
 */
#ifndef FTR_ENTRYARG_H
#define FTR_ENTRYARG_H

#include <stddef.h>
#include <stdint.h>

/* Entry arguments a return probe can name: arg0 to arg7. */
#define ENTRYARG_MAX 8

struct clause;
struct node;
struct program;

/* Whether map read m, in return-probe clause c, is provably the entry
 * argument of c's function: its index (0 for arg0), or -1 with why (what
 * stops it, and what would work). */
int entryarg_find(const struct program *p, const struct clause *c, const struct node *m,
		  unsigned probe_syntax, char *why, size_t len);

/* The guard of a read through field f ("t3", the fetched $argN) whose
 * map read is m: `m == f && f` (f non-NULL: a NULL pointer reads 0, as
 * bpftrace's).  NULL when out of memory. */
struct node *entryarg_cond(const struct node *m, const char *f, int line, int col);

/* n, the pointer value itself (fetch "$argN" plus k), becomes the map read
 * maps[N-1] (plus k), the value bpftrace has: 1 if so, 0 where fetch is no
 * entry argument with a map, -1 when out of memory. */
int entryarg_value(struct node *n, struct node *const *maps, const char *fetch, int64_t k);

/* The entry argument (0 for $arg1) a fetch reads through whose map is
 * maps[i], or -1. */
int entryarg_of(const char *fetch, struct node *const *maps);

/* str() call n of a read through an entry argument becomes
 * (cond ? n : ""), cond from entryarg_cond() (taken).  0, or -1 when out
 * of memory. */
int entryarg_wrap_str(struct node *n, struct node *cond);

/* A deep copy of expression n (NULL when out of memory). */
struct node *entryarg_copy(const struct node *n);

#endif
