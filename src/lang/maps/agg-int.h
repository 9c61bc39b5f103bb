/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The map table's insides, shared by its two files and by nothing else:
 * agg.c (the table, its order, buckets and summaries) and print.c (the
 * table printed as bpftrace prints it, as text and as JSON).
 */
#ifndef FTR_LANG_MAPS_AGG_INT_H
#define FTR_LANG_MAPS_AGG_INT_H

#include "lang/maps/agg.h"

/* Serialized key: per part, an int is 8 bytes; a string is a length byte
 * and its bytes, zero-padded to a multiple of 8; a stack is an 8-byte count
 * and 8 bytes per frame.  Lengths make the encoding prefix-free, so equal
 * bytes mean equal keys; parts stay 8-aligned, so rows can point at stack
 * frames in place. */
#define ROUND8(x) (((x) + 7) & ~(size_t)7)
#define KEY_INT_SZ 8
#define KEY_STR_SZ ROUND8(1 + AGG_STR_MAX)
#define KEY_STACK_SZ (8 + 8 * AGG_STACK_MAX)
#define KEY_MAX (AGG_MAX_KEYS * KEY_STACK_SZ)

#define NONE UINT32_MAX

struct ent {
	uint64_t hash;
	uint32_t klen;
	uint32_t next_free;		/* free list link */
	uint64_t count;
	int64_t min, max, value;
	wide_t sum;
	uint64_t used;			/* lru: the update clock at its last update */
};

struct agg {
	char *name;
	enum agg_kind kind;
	int nkeys;
	enum agg_ktype ktypes[AGG_MAX_KEYS];
	bool is_unsigned;
	int64_t lmin, lmax, lstep;
	int hist_k;			/* HIST: 2^k buckets a power of 2 */
	struct agg_ts ts;		/* TSERIES */
	int nbuckets;			/* HIST/LHIST, TSERIES's words, else 0 */

	uint32_t size;			/* max entries */
	uint32_t mask;			/* index slots - 1 */
	uint32_t n;			/* live entries */
	uint32_t unused;		/* first never-used slab entry */
	uint32_t free_head;
	uint32_t kslot;			/* bytes of key per entry */
	uint64_t dropped;
	bool lru;			/* full: the least recently updated entry goes */
	uint64_t clock;			/* lru: updates so far */

	uint32_t *index;		/* 0: empty, else entry + 1 */
	struct ent *ents;
	uint8_t *keys;			/* size * kslot */
	uint64_t *bk;			/* size * nbuckets */
};
/* The entries in print order (o's --sort, else the value's or the keys'
 * order), each given to fn as a row. */
int agg_foreach_ordered(const struct agg *m, const struct agg_print_opts *o,
			int (*fn)(const struct agg_row *, void *), void *arg);
/* Bucket b's upper end of a 2^k-step histogram; its label when label. */
uint64_t agg_hist_end(int b, int k, char *label, size_t len);
/* Frame i of a stack key part. */
uint64_t agg_key_ip(const struct agg_kpart *k, uint32_t i);
/* sum / count as the map's values are signed or not. */
int64_t agg_avg_of(const struct agg *m, wide_t sum, uint64_t count);

#endif
