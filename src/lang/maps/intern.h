/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Interned byte strings: each distinct value gets a small number, so that a
 * map whose values are numbers can keep strings and stacks (the language's
 * `@name[pid] = comm`, `@stack[tid] = kstack`).  Bounded: once full, new
 * values get 0 (read back as empty) and are counted.
 */
#ifndef FTR_INTERN_H
#define FTR_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern;

/* At most max values of max_bytes in all.  NULL on ENOMEM. */
struct intern *intern_new(uint32_t max, size_t max_bytes);
void intern_free(struct intern *t);
/* The number of the value (len bytes at p): 1.., or 0 when the table is
 * full or memory ran out. */
uint32_t intern_put(struct intern *t, const void *p, size_t len);
/* The bytes of value id (0 or unknown: NULL and *len 0). */
const void *intern_get(const struct intern *t, uint32_t id, size_t *len);
/* Values refused because the table was full. */
uint64_t intern_refused(const struct intern *t);

#endif
