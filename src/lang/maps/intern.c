// SPDX-License-Identifier: GPL-2.0-or-later
/* Interned byte strings (see intern.h). */
#include <stdlib.h>
#include <string.h>

#include "lang/maps/intern.h"

struct ival {
	size_t len;
	uint64_t hash;
	unsigned char b[];
};

struct intern {
	struct ival **v;		/* by id - 1 */
	uint32_t n, max;
	size_t bytes, max_bytes;
	uint32_t *slot;			/* open addressing: id, 0 = free */
	uint32_t cap;			/* a power of two, > 2 * n */
	uint64_t refused;
};

static uint64_t hash_bytes(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

struct intern *intern_new(uint32_t max, size_t max_bytes)
{
	struct intern *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = max;
	t->max_bytes = max_bytes;
	return t;
}

void intern_free(struct intern *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->n; i++)
		free(t->v[i]);
	free(t->v);
	free(t->slot);
	free(t);
}

static int grow(struct intern *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 64;
	uint32_t *slot = calloc(cap, sizeof(*slot));
	struct ival **v = realloc(t->v, (size_t)cap / 2 * sizeof(*v));

	if (!slot || !v) {
		free(slot);
		if (v)
			t->v = v;
		return -1;
	}
	t->v = v;
	for (uint32_t id = 1; id <= t->n; id++) {
		uint32_t i = (uint32_t)t->v[id - 1]->hash & (cap - 1);

		while (slot[i])
			i = (i + 1) & (cap - 1);
		slot[i] = id;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
	return 0;
}

uint32_t intern_put(struct intern *t, const void *p, size_t len)
{
	uint64_t h = hash_bytes(p, len);
	struct ival *v;
	uint32_t i;

	for (i = t->cap ? (uint32_t)h & (t->cap - 1) : 0; t->cap && t->slot[i];
	     i = (i + 1) & (t->cap - 1)) {
		v = t->v[t->slot[i] - 1];
		if (v->hash == h && v->len == len && !memcmp(v->b, p, len))
			return t->slot[i];
	}
	if (t->n >= t->max || t->bytes + len > t->max_bytes) {
		t->refused++;
		return 0;
	}
	if (2 * (t->n + 1) >= t->cap) {
		if (grow(t) < 0)
			return 0;
		for (i = (uint32_t)h & (t->cap - 1); t->slot[i]; i = (i + 1) & (t->cap - 1))
			;
	}
	v = malloc(sizeof(*v) + len);
	if (!v)
		return 0;
	t->bytes += len;
	v->len = len;
	v->hash = h;
	memcpy(v->b, p, len);
	t->v[t->n++] = v;
	t->slot[i] = t->n;
	return t->n;
}

const void *intern_get(const struct intern *t, uint32_t id, size_t *len)
{
	if (!id || id > t->n) {
		*len = 0;
		return NULL;
	}
	*len = t->v[id - 1]->len;
	return t->v[id - 1]->b;
}

uint64_t intern_refused(const struct intern *t)
{
	return t->refused;
}
