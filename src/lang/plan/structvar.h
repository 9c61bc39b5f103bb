/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Struct-valued variables read by member only, made pointers before the
 * typed pass (structvar.c).
 */
#ifndef FTR_STRUCTVAR_H
#define FTR_STRUCTVAR_H

struct clause;

/* Rewrite clause c's `$v = *(T *)p` read only as `$v.m` into `$v = (T *)p`
 * read as `$v->m`. */
void struct_vars(struct clause *c);

#endif
