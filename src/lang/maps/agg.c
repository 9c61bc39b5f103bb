// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Maps and aggregations: see agg.h.  The table is a slab of spec.size
 * entries and an open-addressing index of twice that many slots (a power of
 * two), both allocated by agg_alloc; the hot path (agg_update) serializes
 * the key on the stack, hashes, probes, and never allocates.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/maps/agg-int.h"
#include "ftr.h"
#include "report/output.h"


/* ---- keys ------------------------------------------------------------------ */

static size_t part_max(enum agg_ktype t)
{
	switch (t) {
	case AGG_K_STR: return KEY_STR_SZ;
	case AGG_K_STACK: return KEY_STACK_SZ;
	default: return KEY_INT_SZ;
	}
}

static size_t key_encode(const struct agg *m, const struct agg_kpart *keys, uint8_t *out)
{
	size_t off = 0;

	for (int i = 0; i < m->nkeys; i++) {
		const struct agg_kpart *k = &keys[i];

		switch (m->ktypes[i]) {
		case AGG_K_INT:
		case AGG_K_UINT:
		case AGG_K_HEX:
			memcpy(out + off, &k->u, 8);
			off += 8;
			break;
		case AGG_K_STR:
		case AGG_K_JSON: {
			size_t len = 0;

			if (k->str.p) {
				size_t max = k->str.len < AGG_STR_MAX ? k->str.len : AGG_STR_MAX;
				const char *nul = memchr(k->str.p, '\0', max);

				len = nul ? (size_t)(nul - k->str.p) : max;
			}
			memset(out + off, 0, ROUND8(1 + len));
			out[off] = (uint8_t)len;
			if (len)
				memcpy(out + off + 1, k->str.p, len);
			off += ROUND8(1 + len);
			break;
		}
		case AGG_K_STACK: {
			uint32_t n = k->stack.ips ? k->stack.n : 0;

			if (n > AGG_STACK_MAX)
				n = AGG_STACK_MAX;
			uint64_t n64 = n;

			memcpy(out + off, &n64, 8);
			if (n)
				memcpy(out + off + 8, k->stack.ips, n * 8);
			off += 8 + n * 8;
			break;
		}
		}
	}
	return off;
}

/* Decode an entry's key into parts pointing into the map. */
static void key_decode(const struct agg *m, const uint8_t *kb, struct agg_kpart *keys)
{
	size_t off = 0;

	for (int i = 0; i < m->nkeys; i++) {
		struct agg_kpart *k = &keys[i];

		switch (m->ktypes[i]) {
		case AGG_K_INT:
		case AGG_K_UINT:
		case AGG_K_HEX:
			memcpy(&k->u, kb + off, 8);
			off += 8;
			break;
		case AGG_K_STR:
		case AGG_K_JSON:
			k->str.len = kb[off];
			k->str.p = (const char *)kb + off + 1;
			off += ROUND8(1 + k->str.len);
			break;
		case AGG_K_STACK: {
			uint64_t n64;

			memcpy(&n64, kb + off, 8);
			k->stack.n = (uint32_t)n64;
			k->stack.ips = (const uint64_t *)(kb + off + 8);
			off += 8 + k->stack.n * 8;
			break;
		}
		}
	}
}

uint64_t agg_key_ip(const struct agg_kpart *k, uint32_t i)
{
	return k->stack.ips[i];
}

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	if (n) {
		w = 0;
		memcpy(&w, p, n);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	/* murmur3's finalizer */
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* ---- the table ------------------------------------------------------------- */

/* How many whole steps from lo to hi (lo <= hi, step > 0): exact in 64 bits,
 * the difference taken as unsigned, on targets with no 128-bit type too. */
static uint64_t steps(int64_t lo, int64_t hi, int64_t step)
{
	return ((uint64_t)hi - (uint64_t)lo) / (uint64_t)step;
}

struct agg *agg_alloc(const struct agg_spec *spec)
{
	struct agg *m;
	uint32_t slots = 1;

	if (!spec || spec->nkeys < 0 || spec->nkeys > AGG_MAX_KEYS || spec->size > AGG_MAX_SIZE ||
	    (unsigned)spec->kind > AGG_TSERIES || (spec->kind == AGG_TSERIES &&
	    (!spec->ts.interval || !spec->ts.num || spec->ts.num > AGG_TS_NUM_MAX))) {
		errno = EINVAL;
		return NULL;
	}
	if (spec->kind == AGG_HIST && (spec->hist_k < 0 || spec->hist_k > AGG_HIST_K_MAX)) {
		errno = EINVAL;
		return NULL;
	}
	if (spec->kind == AGG_LHIST) {
		if (spec->lstep <= 0 || spec->lmin >= spec->lmax ||
		    steps(spec->lmin, spec->lmax, spec->lstep) > AGG_LHIST_MAX ||
		    steps(spec->lmin, spec->lmax, spec->lstep) < 1) {
			errno = EINVAL;
			return NULL;
		}
	}
	for (int i = 0; i < spec->nkeys; i++) {
		if ((unsigned)spec->ktypes[i] > AGG_K_HEX) {
			errno = EINVAL;
			return NULL;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->name = strdup(spec->name ? spec->name : "@");
	m->kind = spec->kind;
	m->nkeys = spec->nkeys;
	memcpy(m->ktypes, spec->ktypes, sizeof(m->ktypes));
	m->is_unsigned = spec->is_unsigned;
	m->lmin = spec->lmin;
	m->lmax = spec->lmax;
	m->lstep = spec->lstep;
	m->hist_k = spec->kind == AGG_HIST ? spec->hist_k : 0;
	if (m->kind == AGG_HIST)	/* up to [2^63 + 2^63 * (2^k - 1) / 2^k, 2^64) */
		m->nbuckets = ((64 - m->hist_k) << m->hist_k) + (1 << m->hist_k) + 1;
	else if (m->kind == AGG_LHIST)
		m->nbuckets = (int)((m->lmax - m->lmin) / m->lstep) + 2;
	else if (m->kind == AGG_TSERIES)
		m->nbuckets = (int)spec->ts.num * AGG_TS_WORDS;
	m->ts = spec->ts;
	m->ts.is_unsigned = spec->is_unsigned;
	m->size = spec->size ? spec->size : AGG_DEFAULT_SIZE;
	m->lru = spec->lru;
	while (slots < 2 * m->size)
		slots <<= 1;
	m->mask = slots - 1;
	for (int i = 0; i < m->nkeys; i++)
		m->kslot += part_max(m->ktypes[i]);
	m->index = calloc(slots, sizeof(*m->index));
	m->ents = calloc(m->size, sizeof(*m->ents));
	/* never NULL, even for keyless maps: memcmp/memcpy of 0 bytes still
	 * want a valid pointer */
	m->keys = malloc((size_t)m->size * m->kslot + 8);
	m->bk = m->nbuckets ? calloc((size_t)m->size * m->nbuckets, sizeof(*m->bk)) : NULL;
	if (!m->name || !m->index || !m->ents || !m->keys || (m->nbuckets && !m->bk)) {
		agg_free(m);
		errno = ENOMEM;
		return NULL;
	}
	m->free_head = NONE;
	return m;
}

void agg_free(struct agg *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->index);
	free(m->ents);
	free(m->keys);
	free(m->bk);
	free(m);
}

void agg_clear(struct agg *m)
{
	if (!m)
		return;
	memset(m->index, 0, ((size_t)m->mask + 1) * sizeof(*m->index));
	m->n = 0;
	m->unused = 0;
	m->free_head = NONE;
	m->dropped = 0;
}

void agg_zero(struct agg *m)
{
	if (!m)
		return;
	for (uint32_t s = 0; s <= m->mask; s++) {
		uint32_t id = m->index[s];
		struct ent *e;

		if (!id--)
			continue;
		e = &m->ents[id];
		e->count = 0;
		e->sum = 0;
		e->min = e->max = e->value = 0;
		if (m->kind == AGG_TSERIES)
			agg_ts_zero(&m->bk[(size_t)id * m->nbuckets], &m->ts);
		else if (m->nbuckets)
			memset(&m->bk[(size_t)id * m->nbuckets], 0, m->nbuckets * sizeof(*m->bk));
	}
}

/* The index slot holding the key, or the empty slot where it would go. */
static uint32_t probe(const struct agg *m, const uint8_t *kb, size_t klen, uint64_t h, bool *found)
{
	uint32_t s = (uint32_t)h & m->mask;

	for (;;) {
		uint32_t id = m->index[s];

		if (!id) {
			*found = false;
			return s;
		}
		const struct ent *e = &m->ents[id - 1];

		if (e->hash == h && e->klen == klen &&
		    memcmp(m->keys + (size_t)(id - 1) * m->kslot, kb, klen) == 0) {
			*found = true;
			return s;
		}
		s = (s + 1) & m->mask;
	}
}

static void del_slot(struct agg *m, uint32_t i);

/* An LRU map that is full: its least recently updated entry goes (a scan:
 * such maps are declared with a size, and only a full one pays it). */
static void evict_lru(struct agg *m)
{
	uint32_t best = NONE;

	for (uint32_t s = 0; s <= m->mask; s++)
		if (m->index[s] && (best == NONE ||
				    m->ents[m->index[s] - 1].used < m->ents[m->index[best] - 1].used))
			best = s;
	if (best != NONE)
		del_slot(m, best);
}

/* The entry for keys, created when absent; NULL when the table is full. */
static struct ent *get(struct agg *m, const struct agg_kpart *keys, uint32_t *idp)
{
	uint8_t kb[KEY_MAX];
	size_t klen = key_encode(m, keys, kb);
	uint64_t h = hash_bytes(kb, klen);
	bool found;
	uint32_t s = probe(m, kb, klen, h, &found);
	uint32_t id;
	struct ent *e;

	if (found) {
		id = m->index[s] - 1;
		*idp = id;
		m->ents[id].used = ++m->clock;
		return &m->ents[id];
	}
	if (m->lru && m->free_head == NONE && m->unused >= m->size && m->n) {
		evict_lru(m);
		s = probe(m, kb, klen, h, &found);	/* the eviction may move it */
	}
	if (m->free_head != NONE) {
		id = m->free_head;
		m->free_head = m->ents[id].next_free;
	} else if (m->unused < m->size) {
		id = m->unused++;
	} else {
		return NULL;
	}
	e = &m->ents[id];
	memset(e, 0, sizeof(*e));
	e->hash = h;
	e->klen = (uint32_t)klen;
	e->used = ++m->clock;
	memcpy(m->keys + (size_t)id * m->kslot, kb, klen);
	if (m->nbuckets)
		memset(m->bk + (size_t)id * m->nbuckets, 0, m->nbuckets * sizeof(*m->bk));
	m->index[s] = id + 1;
	m->n++;
	*idp = id;
	return e;
}

static bool less(const struct agg *m, int64_t a, int64_t b)
{
	return m->is_unsigned ? (uint64_t)a < (uint64_t)b : a < b;
}

static wide_t wide(const struct agg *m, int64_t v)
{
	return m->is_unsigned ? (wide_t)(uint64_t)v : (wide_t)v;
}

static int bucket_of(const struct agg *m, int64_t v)
{
	if (m->kind == AGG_HIST)
		return agg_hist_bucket(v, m->is_unsigned, m->hist_k);
	if (m->is_unsigned && (uint64_t)v > INT64_MAX)
		return m->nbuckets - 1;
	return agg_lhist_bucket(v, m->lmin, m->lmax, m->lstep);
}

/* n updates with the value v on entry e. */
static void apply(struct agg *m, struct ent *e, uint32_t id, int64_t v, uint64_t n)
{
	bool first = e->count == 0;

	e->count += n;
	switch (m->kind) {
	case AGG_COUNT:
		break;
	case AGG_SUM:
	case AGG_AVG:
	case AGG_STATS:
		e->sum += wide(m, v) * n;
		break;
	case AGG_MIN:
	case AGG_MAX:
		if (first || less(m, v, e->min))
			e->min = v;
		if (first || less(m, e->max, v))
			e->max = v;
		break;
	case AGG_HIST:
	case AGG_LHIST:
		e->sum += wide(m, v) * n;
		m->bk[(size_t)id * m->nbuckets + bucket_of(m, v)] += n;
		break;
	case AGG_VALUE:
		e->value = v;
		break;
	case AGG_TSERIES:
		break;
	}
}

int agg_update_at(struct agg *m, const struct agg_kpart *keys, int64_t v, uint64_t ts)
{
	struct ent *e;
	uint32_t id;

	if (!m || (m->nkeys && !keys))
		return -EINVAL;
	e = get(m, keys, &id);
	if (!e) {
		m->dropped++;
		return -ENOSPC;
	}
	apply(m, e, id, v, 1);
	if (m->kind == AGG_TSERIES)
		agg_ts_apply(&m->bk[(size_t)id * m->nbuckets], &m->ts, v, ts);
	return 0;
}

void agg_ts_unsigned(struct agg *m, bool u)
{
	m->is_unsigned = m->ts.is_unsigned = u;
}

int agg_update(struct agg *m, const struct agg_kpart *keys, int64_t v)
{
	return agg_update_at(m, keys, v, 0);
}

int agg_add_hits(struct agg *m, const struct agg_kpart *keys, int64_t v, uint64_t n)
{
	struct ent *e;
	uint32_t id;

	if (!m || (m->nkeys && !keys))
		return -EINVAL;
	if (!n)
		return 0;
	e = get(m, keys, &id);
	if (!e) {
		m->dropped += n;
		return -ENOSPC;
	}
	apply(m, e, id, v, n);
	return 0;
}

int agg_add(struct agg *m, const struct agg_kpart *keys, uint64_t count, int64_t sum)
{
	struct ent *e;
	uint32_t id;

	if (!m || (m->nkeys && !keys))
		return -EINVAL;
	switch (m->kind) {
	case AGG_COUNT:
	case AGG_SUM:
	case AGG_AVG:
	case AGG_STATS:
		break;
	default:
		return -EINVAL;
	}
	if (!count && !sum)
		return 0;
	e = get(m, keys, &id);
	if (!e) {
		m->dropped += count;
		return -ENOSPC;
	}
	e->count += count;
	if (m->kind != AGG_COUNT)
		e->sum += wide(m, sum);
	return 0;
}

/* A map with m's spec and size, empty. */
struct agg *agg_alloc_like(const struct agg *m)
{
	struct agg_spec spec = {
		.name = m->name, .kind = m->kind, .nkeys = m->nkeys, .is_unsigned = m->is_unsigned,
		.lmin = m->lmin, .lmax = m->lmax, .lstep = m->lstep, .size = m->size, .lru = m->lru,
		.hist_k = m->hist_k,
	};

	memcpy(spec.ktypes, m->ktypes, sizeof(spec.ktypes));
	return agg_alloc(&spec);
}

int agg_merge_row(struct agg *m, const struct agg_row *r)
{
	struct ent *e;
	uint32_t id;
	bool first;

	if (!m || !r || m->kind == AGG_TSERIES)	/* intervals do not add up */
		return -EINVAL;
	if (!r->count && m->kind != AGG_VALUE)
		return 0;
	e = get(m, r->keys, &id);
	if (!e) {
		m->dropped += r->count;
		return -ENOSPC;
	}
	first = e->count == 0;
	e->count += r->count;
	e->sum += r->sum128;
	e->value = r->value;
	if (first || less(m, r->min, e->min))
		e->min = r->min;
	if (first || less(m, e->max, r->max))
		e->max = r->max;
	for (int b = 0; b < m->nbuckets && b < r->nbuckets; b++)
		m->bk[(size_t)id * m->nbuckets + b] += r->buckets[b];
	return 0;
}

void agg_add_dropped(struct agg *m, uint64_t n)
{
	if (m)
		m->dropped += n;
}

/* bpftrace's avg: the truncated quotient, in the value's signedness. */
int64_t agg_avg_of(const struct agg *m, wide_t sum, uint64_t count)
{
	if (!count)
		return 0;
	if (m->is_unsigned)
		return (int64_t)(uint64_t)((uwide_t)sum / count);
	return (int64_t)(sum / (wide_t)count);
}

static int64_t ent_avg(const struct agg *m, const struct ent *e)
{
	return agg_avg_of(m, e->sum, e->count);
}

static int64_t ent_value(const struct agg *m, const struct ent *e)
{
	switch (m->kind) {
	case AGG_COUNT:
	case AGG_STATS:
	case AGG_HIST:
	case AGG_LHIST:
		return (int64_t)e->count;
	case AGG_SUM:
		return (int64_t)(uint64_t)e->sum;
	case AGG_AVG:
		return ent_avg(m, e);
	case AGG_MIN:
		return e->min;
	case AGG_MAX:
		return e->max;
	case AGG_VALUE:
		return e->value;
	case AGG_TSERIES:	/* printed by key */
		break;
	}
	return 0;
}

/* The index slot of keys' entry: 0, -ENOENT, -EINVAL. */
static int find(const struct agg *m, const struct agg_kpart *keys, uint32_t *slot)
{
	uint8_t kb[KEY_MAX];
	size_t klen;
	bool found;

	if (!m || (m->nkeys && !keys))
		return -EINVAL;
	klen = key_encode(m, keys, kb);
	*slot = probe(m, kb, klen, hash_bytes(kb, klen), &found);
	return found ? 0 : -ENOENT;
}

int agg_lookup(const struct agg *m, const struct agg_kpart *keys, int64_t *v)
{
	uint32_t s;
	int err = find(m, keys, &s);

	if (!err && v)
		*v = ent_value(m, &m->ents[m->index[s] - 1]);
	return err;
}

static void fill_row(const struct agg *m, uint32_t id, struct agg_row *r);

int agg_lookup_row(const struct agg *m, const struct agg_kpart *keys, struct agg_row *row)
{
	uint32_t s;
	int err = find(m, keys, &s);

	if (!err)
		fill_row(m, m->index[s] - 1, row);
	return err;
}

int agg_delete(struct agg *m, const struct agg_kpart *keys)
{
	uint32_t i;
	int err = find(m, keys, &i);

	if (err)
		return err;
	del_slot(m, i);
	return 0;
}

/* Remove the entry of index slot i. */
static void del_slot(struct agg *m, uint32_t i)
{
	uint32_t j, id = m->index[i] - 1;

	m->ents[id].next_free = m->free_head;
	m->free_head = id;
	m->n--;
	/* Backward-shift deletion keeps every probe chain unbroken without
	 * tombstones: move later members of the run into the hole when their
	 * home slot is not between the hole and them. */
	j = i;
	for (;;) {
		uint32_t home;

		j = (j + 1) & m->mask;
		if (!m->index[j])
			break;
		home = (uint32_t)m->ents[m->index[j] - 1].hash & m->mask;
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->index[i] = m->index[j];
			i = j;
		}
	}
	m->index[i] = 0;
}

uint32_t agg_entries(const struct agg *m) { return m ? m->n : 0; }
uint32_t agg_size(const struct agg *m) { return m ? m->size : 0; }
uint64_t agg_dropped(const struct agg *m) { return m ? m->dropped : 0; }
const char *agg_name(const struct agg *m) { return m ? m->name : NULL; }
enum agg_kind agg_kind(const struct agg *m) { return m ? m->kind : AGG_COUNT; }

/* ---- iteration in print order ------------------------------------------------ */

/* Key part i of two decoded keys. */
static int cmp_part(const struct agg *m, int i, const struct agg_kpart *ka,
		    const struct agg_kpart *kb)
{
	int c = 0;

	switch (m->ktypes[i]) {
	case AGG_K_INT:
		c = (ka[i].i > kb[i].i) - (ka[i].i < kb[i].i);
		break;
	case AGG_K_UINT:
	case AGG_K_HEX:
		c = (ka[i].u > kb[i].u) - (ka[i].u < kb[i].u);
		break;
	case AGG_K_STR:
	case AGG_K_JSON: {
		size_t n = ka[i].str.len < kb[i].str.len ? ka[i].str.len : kb[i].str.len;

		c = memcmp(ka[i].str.p, kb[i].str.p, n);
		if (!c)
			c = (ka[i].str.len > kb[i].str.len) - (ka[i].str.len < kb[i].str.len);
		break;
	}
	case AGG_K_STACK:
		for (uint32_t f = 0; !c && f < ka[i].stack.n && f < kb[i].stack.n; f++) {
			uint64_t x = agg_key_ip(&ka[i], f), y = agg_key_ip(&kb[i], f);

			c = (x > y) - (x < y);
		}
		if (!c)
			c = (ka[i].stack.n > kb[i].stack.n) - (ka[i].stack.n < kb[i].stack.n);
		break;
	}
	return c;
}

/* Entries a and b by key part `part`, or by every part in order (-1). */
static int cmp_keys(const struct agg *m, uint32_t a, uint32_t b, int part)
{
	struct agg_kpart ka[AGG_MAX_KEYS], kb[AGG_MAX_KEYS];

	key_decode(m, m->keys + (size_t)a * m->kslot, ka);
	key_decode(m, m->keys + (size_t)b * m->kslot, kb);
	if (part >= 0)
		return part < m->nkeys ? cmp_part(m, part, ka, kb) : 0;
	for (int i = 0; i < m->nkeys; i++) {
		int c = cmp_part(m, i, ka, kb);

		if (c)
			return c;
	}
	return 0;
}

/* By what the entry prints: bpftrace's order. */
static int cmp_value(const struct agg *m, uint32_t a, uint32_t b)
{
	int64_t va, vb;

	switch (m->kind) {
	case AGG_STATS:		/* bpftrace sorts stats by their average */
	case AGG_AVG:
		va = ent_avg(m, &m->ents[a]);
		vb = ent_avg(m, &m->ents[b]);
		return less(m, va, vb) ? -1 : less(m, vb, va);
	case AGG_COUNT:
	case AGG_HIST:
	case AGG_LHIST: {
		uint64_t x = m->ents[a].count, y = m->ents[b].count;

		return (x > y) - (x < y);
	}
	default:
		va = ent_value(m, &m->ents[a]);
		vb = ent_value(m, &m->ents[b]);
		return less(m, va, vb) ? -1 : less(m, vb, va);
	}
}

static int cmp_ents(const void *pa, const void *pb, void *arg)
{
	const struct agg *m = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int c = cmp_value(m, a, b);

	return c ? c : cmp_keys(m, a, b, -1);
}

struct sort_ctx {
	const struct agg *m;
	const struct agg_sort *s;
};

static int cmp_sorted(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *x = arg;
	const struct agg *m = x->m;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	for (int i = 0; i < x->s->n; i++) {
		int c = 0;

		switch (x->s->k[i].by) {
		case AGG_BY_VALUE:
			c = cmp_value(m, a, b);
			break;
		case AGG_BY_COUNT:
			c = (m->ents[a].count > m->ents[b].count) -
			    (m->ents[a].count < m->ents[b].count);
			break;
		case AGG_BY_KEY:
			c = cmp_keys(m, a, b, x->s->k[i].key);
			break;
		}
		if (c)
			return x->s->k[i].desc ? -c : c;
	}
	return cmp_ents(pa, pb, (void *)m);
}

/* Live entry ids in print order; caller frees.  NULL with *n = 0 when empty. */
static uint32_t *sorted_ids(const struct agg *m, uint32_t *n, int *err)
{
	uint32_t *ids, k = 0;

	*n = 0;
	*err = 0;
	if (!m->n)
		return NULL;
	ids = malloc(m->n * sizeof(*ids));
	if (!ids) {
		*err = -ENOMEM;
		return NULL;
	}
	for (uint32_t s = 0; s <= m->mask; s++)
		if (m->index[s])
			ids[k++] = m->index[s] - 1;
	qsort_r(ids, k, sizeof(*ids), cmp_ents, (void *)m);
	*n = k;
	return ids;
}

static void fill_row(const struct agg *m, uint32_t id, struct agg_row *r)
{
	const struct ent *e = &m->ents[id];

	memset(r, 0, sizeof(*r));
	key_decode(m, m->keys + (size_t)id * m->kslot, r->keys);
	r->count = e->count;
	r->sum = (int64_t)(uint64_t)e->sum;
	r->sum128 = e->sum;
	r->min = e->min;
	r->max = e->max;
	r->value = ent_value(m, e);
	if (m->nbuckets) {
		r->buckets = m->bk + (size_t)id * m->nbuckets;
		r->nbuckets = m->nbuckets;
	}
}

/* The rows to print: the top N by the default order, then in o->sort's. */
int agg_foreach_ordered(const struct agg *m, const struct agg_print_opts *o,
			   int (*fn)(const struct agg_row *, void *), void *arg)
{
	uint32_t n, first = 0, *ids;
	struct agg_row row;
	int err, ret = 0;

	if (!m || !fn)
		return -EINVAL;
	if (o && o->empty_scalar && !m->nkeys && !m->n && !o->value && m->kind != AGG_HIST &&
	    m->kind != AGG_LHIST) {
		memset(&row, 0, sizeof(row));
		return fn(&row, arg);
	}
	ids = sorted_ids(m, &n, &err);
	if (err)
		return err;
	if (o && o->key_order) {
		static const struct agg_sort keys = { 1, { { AGG_BY_KEY, -1, false } } };
		struct sort_ctx x = { m, &keys };

		qsort_r(ids, n, sizeof(*ids), cmp_sorted, &x);
	}
	if (o && o->top && n > o->top)
		first = n - o->top;
	if (o && o->sort && o->sort->n > 0) {
		struct sort_ctx x = { m, o->sort };

		qsort_r(ids + first, n - first, sizeof(*ids), cmp_sorted, &x);
	}
	for (uint32_t i = first; i < n && !ret; i++) {
		fill_row(m, ids[i], &row);
		ret = fn(&row, arg);
	}
	free(ids);
	return ret;
}

int agg_foreach(const struct agg *m, int (*fn)(const struct agg_row *, void *), void *arg)
{
	return agg_foreach_ordered(m, NULL, fn, arg);
}

static int merge_cb(const struct agg_row *r, void *arg)
{
	agg_merge_row(arg, r);
	return 0;
}

int agg_merge(struct agg *dst, const struct agg *src)
{
	return agg_foreach(src, merge_cb, dst);
}

/* ---- --sort ------------------------------------------------------------------ */

static bool is_dir(const char *s, bool *desc)
{
	if (!strcmp(s, "asc") || !strcmp(s, "ascending")) {
		*desc = false;
		return true;
	}
	if (!strcmp(s, "desc") || !strcmp(s, "descending")) {
		*desc = true;
		return true;
	}
	return false;
}

static int sort_item(char *it, const char *const *names, int nnames, struct agg_sort *out,
		     char *err, size_t elen)
{
	char *dot = strrchr(it, '.');
	bool desc = false;
	int i = out->n;
	size_t nl;

	if (dot && is_dir(dot + 1, &desc))
		*dot = '\0';
	if (!*it) {
		snprintf(err, elen, "empty sort key");
		return -EINVAL;
	}
	if (out->n == AGG_MAX_SORT) {
		snprintf(err, elen, "at most %d sort keys", AGG_MAX_SORT);
		return -EINVAL;
	}
	out->k[i].desc = desc;
	out->k[i].key = -1;
	if (!strcmp(it, "count") || !strcmp(it, "hitcount")) {
		out->k[i].by = AGG_BY_COUNT;
	} else if (!strcmp(it, "value")) {
		out->k[i].by = AGG_BY_VALUE;
	} else if (!strcmp(it, "key")) {
		out->k[i].by = AGG_BY_KEY;
	} else {
		out->k[i].by = AGG_BY_KEY;
		out->k[i].key = -2;
		/* a key's name first: a field may be called "key1" */
		nl = strcspn(it, ".");
		for (int k = 0; k < nnames && out->k[i].key == -2; k++)
			if (names[k] && (!strcmp(it, names[k]) ||
					 (strlen(names[k]) == nl && !strncmp(it, names[k], nl))))
				out->k[i].key = k;
		if (out->k[i].key == -2 && !strncmp(it, "key", 3) && it[3] >= '1' && it[3] <= '9' &&
		    !it[4])
			out->k[i].key = it[3] - '1';
		if (names && out->k[i].key >= nnames) {
			snprintf(err, elen, "sort key '%s': there %s only %d key%s", it,
				 nnames == 1 ? "is" : "are", nnames, nnames == 1 ? "" : "s");
			return -EINVAL;
		}
		if (out->k[i].key == -2) {
			snprintf(err, elen, "unknown sort key '%s' (count, value, key, keyN%s)", it,
				 nnames ? " or a key's name" : "");
			return -EINVAL;
		}
	}
	out->n++;
	return 0;
}

int agg_sort_parse(const char *text, const char *const *names, int nnames, struct agg_sort *out,
		   char *err, size_t elen)
{
	char buf[256], *save = NULL;
	const char *p;

	if (!out || !text) {
		snprintf(err, elen, "no sort keys");
		return -EINVAL;
	}
	memset(out, 0, sizeof(*out));
	if (strlen(text) >= sizeof(buf)) {
		snprintf(err, elen, "sort keys too long");
		return -EINVAL;
	}
	/* strtok_r would skip empty items: "count,,key" is a mistake */
	for (p = text; *p; p++)
		if (*p == ',' && (p == text || p[1] == ',' || !p[1])) {
			snprintf(err, elen, "empty sort key in '%s'", text);
			return -EINVAL;
		}
	strcpy(buf, text);
	for (char *it = strtok_r(buf, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (sort_item(it, names, nnames, out, err, elen) < 0)
			return -EINVAL;
	if (!out->n) {
		snprintf(err, elen, "no sort keys");
		return -EINVAL;
	}
	return 0;
}

/* ---- buckets and labels ------------------------------------------------------ */

/*
 * hist(v, k): bucket 0 holds the negative values, buckets 1 .. 2n (n = 2^k)
 * one value each, 0 .. 2n - 1; above, each power of 2 [2^p, 2^(p+1)) is n
 * buckets of 2^(p-k) values.  Bucket b holds [agg_hist_end(b - 1), agg_hist_end(b)).
 */
int agg_hist_bucket(int64_t v, bool is_unsigned, int k)
{
	uint64_t u = (uint64_t)v, n = 1ull << k;
	int p;

	if (!is_unsigned && v < 0)
		return 0;
	if (u < 2 * n)
		return (int)u + 1;
	p = 63 - __builtin_clzll(u);
	return ((p - k + 1) << k) + (int)((u >> (p - k)) - n) + 1;
}

/* The end of bucket b (b >= 1), the first value past it: 2^64 saturates
 * to 0 (the caller's max is then UINT64_MAX).  bpftrace's label of it, in
 * text, where label: b itself up to 2n, else the multiple of the largest
 * power of 1024 below it, "9K", "1152", "16E". */
uint64_t agg_hist_end(int b, int k, char *label, size_t len)
{
	static const char suffix[] = "\0KMGTPE";
	unsigned n = 1u << k, power, decade;
	uint64_t mul;

	if (b <= (int)(2 * n)) {
		if (label)
			snprintf(label, len, "%d", b);
		return (uint64_t)b;
	}
	power = (unsigned)(b >> k) - 1;
	mul = n + ((unsigned)b & (n - 1));
	decade = power / 10;
	if (label)
		snprintf(label, len, decade ? "%llu%c" : "%llu", (unsigned long long)(mul <<
			 (power - 10 * decade)), suffix[decade]);
	return power >= 64 ? 0 : mul << power;
}

void agg_hist_label(int b, int k, char *buf, size_t len)
{
	char lo[24], hi[24];

	if (b <= 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (b <= 2 << k) {
		snprintf(buf, len, "[%d]", b - 1);
	} else {
		agg_hist_end(b - 1, k, lo, sizeof(lo));
		agg_hist_end(b, k, hi, sizeof(hi));
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

int agg_lhist_bucket(int64_t v, int64_t min, int64_t max, int64_t step)
{
	int n = (int)steps(min, max, step);

	if (v < min)
		return 0;
	if (v >= max)
		return n + 1;
	/* a partial last step (max - min not a multiple of step) lands in the
	 * ">= max" bucket, as in bpftrace */
	int64_t b = (int64_t)steps(min, v, step) + 1;

	return b > n ? n + 1 : (int)b;
}

/* bpftrace's lhist bound: K/M suffixes only when the step is a multiple of
 * 1024, so that every bound of the histogram gets one. */
static void lhist_num(int64_t x, int64_t step, char *buf, size_t len)
{
	if (step % 1024 || x == 0)
		snprintf(buf, len, "%lld", (long long)x);
	else if (x % (1024 * 1024) == 0)
		snprintf(buf, len, "%lldM", (long long)(x / (1024 * 1024)));
	else if (x % 1024 == 0)
		snprintf(buf, len, "%lldK", (long long)(x / 1024));
	else
		snprintf(buf, len, "%lld", (long long)x);
}

void agg_lhist_label(int b, int64_t min, int64_t max, int64_t step, char *buf, size_t len)
{
	int n = (int)steps(min, max, step);
	char lo[32], hi[32];

	if (b <= 0) {
		lhist_num(min, step, lo, sizeof(lo));
		snprintf(buf, len, "(..., %s)", lo);
	} else if (b > n) {
		lhist_num(max, step, lo, sizeof(lo));
		snprintf(buf, len, "[%s, ...)", lo);
	} else {
		lhist_num(min + (int64_t)(b - 1) * step, step, lo, sizeof(lo));
		lhist_num(min + (int64_t)b * step, step, hi, sizeof(hi));
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

int agg_bucket_max(const struct agg *m, int b, wide_t *max)
{
	if (m->kind == AGG_HIST) {
		uint64_t end;

		if (b < 0 || b >= m->nbuckets)
			return -EINVAL;
		/* (..., 0) holds -1 at most */
		end = b ? agg_hist_end(b, m->hist_k, NULL, 0) : 0;
		if (!end && b)	/* 2^64: its last value */
			*max = sizeof(wide_t) > 8 ? (wide_t)UINT64_MAX : INT64_MAX;
		else if (end - 1 > INT64_MAX && sizeof(wide_t) == 8)
			*max = INT64_MAX;	/* 32-bit targets: saturates */
		else
			*max = (wide_t)end - 1;
		return 0;
	}
	if (m->kind != AGG_LHIST || b < 0 || b >= m->nbuckets)
		return -EINVAL;
	if (b == m->nbuckets - 1)
		return -ERANGE;		/* [max, ...) */
	*max = (wide_t)m->lmin + (wide_t)b * m->lstep - 1;
	return 0;
}

int agg_nbuckets(const struct agg *m) { return m ? m->nbuckets : 0; }
int agg_nkeys(const struct agg *m) { return m ? m->nkeys : 0; }
enum agg_ktype agg_ktype(const struct agg *m, int i) { return m->ktypes[i]; }
bool agg_unsigned(const struct agg *m) { return m && m->is_unsigned; }

/* ---- the summary ----------------------------------------------------------------- */

int agg_modes(const uint64_t *bk, int n)
{
	int lo = -1, hi = -1, modes = 0;
	uint64_t total = 0, cur_h = 0;
	int cur_end = -1;

	for (int i = 0; i < n; i++) {
		if (bk[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
			total += bk[i];
		}
	}
	if (lo < 0)
		return 0;
	for (int a = lo; a <= hi;) {
		int b = a;
		uint64_t h = bk[a];

		while (b + 1 <= hi && bk[b + 1] == h)
			b++;
		/* a run [a, b] of equal buckets is a peak when both
		 * neighbours (inside the printed range) are lower */
		bool peak = h >= 2 && (a == lo || bk[a - 1] < h) && (b == hi || bk[b + 1] < h) &&
			    (uwide_t)h * 50 >= total;

		if (peak) {
			if (!modes) {
				modes = 1;
			} else {
				uint64_t valley = UINT64_MAX;
				uint64_t smaller = h < cur_h ? h : cur_h;

				for (int i = cur_end + 1; i < a; i++)
					if (bk[i] < valley)
						valley = bk[i];
				if ((uwide_t)valley * 2 < smaller) {
					modes++;
				} else if (h < cur_h) {
					/* one mode: keep the higher peak as its top */
					a = b + 1;
					continue;
				}
			}
			cur_h = h;
			cur_end = b;
		}
		a = b + 1;
	}
	return modes;
}

void agg_hist_stats(const uint64_t *bk, int n, uint64_t count, wide_t sum,
		    struct agg_hist_stats *st)
{
	static const int pct[3] = { 50, 90, 99 };
	int *out[3] = { &st->p50, &st->p90, &st->p99 };
	uint64_t total = 0;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < n; i++)
		total += bk[i];
	st->count = count;
	st->sum = sum;
	st->mean = count ? sum / (wide_t)count : 0;
	for (int k = 0; k < 3; k++) {
		/* rank ceil(p * N / 100), 1-based */
		uint64_t rank = (uint64_t)(((uwide_t)total * pct[k] + 99) / 100);
		uint64_t cum = 0;

		*out[k] = -1;
		if (!total)
			continue;
		if (!rank)
			rank = 1;
		for (int i = 0; i < n; i++) {
			cum += bk[i];
			if (cum >= rank) {
				*out[k] = i;
				break;
			}
		}
	}
	st->modes = agg_modes(bk, n);
}

void agg_pct_label(const struct agg *m, int b, char *buf, size_t len)
{
	char lo[32];

	if (b < 0) {
		snprintf(buf, len, "-");
	} else if (m->kind == AGG_HIST) {
		if (b == 0) {
			snprintf(buf, len, "<0");
		} else {
			agg_hist_end(b - 1, m->hist_k, lo, sizeof(lo));
			snprintf(buf, len, "~%s", lo);
		}
	} else {
		int nb = m->nbuckets - 2;

		if (b == 0) {
			lhist_num(m->lmin, m->lstep, lo, sizeof(lo));
			snprintf(buf, len, "<%s", lo);
		} else if (b > nb) {
			lhist_num(m->lmax, m->lstep, lo, sizeof(lo));
			snprintf(buf, len, ">=%s", lo);
		} else {
			lhist_num(m->lmin + (int64_t)(b - 1) * m->lstep, m->lstep, lo, sizeof(lo));
			snprintf(buf, len, "~%s", lo);
		}
	}
}

