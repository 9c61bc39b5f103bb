// SPDX-License-Identifier: GPL-2.0-or-later
/* profile.proto by hand, gzipped with zlib: see pprof.h.  The field numbers
 * are those of github.com/google/pprof's proto/profile.proto. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/pprof.h"

#ifdef FTR_NO_PPROF
/* Built without the writer (a Makefile choice, for size): pprof_new says
 * so and nothing else is ever called. */
struct pprof *pprof_new(int64_t period_ns)
{
	errno = ENOTSUP;
	return NULL;
}

void pprof_free(struct pprof *pp)
{
}

uint64_t pprof_mapping(struct pprof *pp, uint64_t start, uint64_t limit, uint64_t off,
		       const char *file, const char *build_id)
{
	return 0;
}

uint64_t pprof_location(struct pprof *pp, uint64_t mapping, uint64_t addr, const char *name,
			const char *file)
{
	return 0;
}

int pprof_sample(struct pprof *pp, const uint64_t *locs, size_t n, uint64_t count,
		 const char *comm)
{
	return -ENOTSUP;
}

int pprof_write(struct pprof *pp, FILE *f, int64_t time_ns, int64_t duration_ns)
{
	return -ENOTSUP;
}
#else

struct buf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		unsigned char *p;

		while (cap < b->n + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	unsigned char t[10];
	size_t n = 0;

	do {
		t[n++] = (unsigned char)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
	put(b, t, n);
}

/* A varint field; proto3 leaves out zeros. */
static void field_u(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	varint(b, (uint64_t)field << 3);
	varint(b, v);
}

/* A length-delimited field: a sub-message, a packed array, a string. */
static void field_b(struct buf *b, unsigned field, const void *d, size_t n)
{
	varint(b, (uint64_t)field << 3 | 2);
	varint(b, n);
	put(b, d, n);
}

/* Deduplication: (kind, a, b, c) -> id, open addressing. */
struct ent {
	uint64_t a, b, c;
	uint32_t id;		/* 0: empty */
	uint32_t kind;
};

enum { K_STR, K_MAP, K_FUNC, K_LOC };

struct pprof {
	int64_t period;
	char **strs;
	size_t nstr, str_cap;
	struct ent *tab;
	size_t tab_n, tab_cap;
	uint32_t next_id[4];
	struct buf maps, funcs, locs, samples, m, packed;
};

static uint64_t hash3(uint64_t k, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = k * 0x9e3779b97f4a7c15ull;

	h = (h ^ a) * 0xff51afd7ed558ccdull;
	h = (h ^ b) * 0xc4ceb9fe1a85ec53ull;
	h = (h ^ c) * 0xff51afd7ed558ccdull;
	return h ^ h >> 29;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool same(const struct pprof *pp, const struct ent *e, uint32_t kind, uint64_t a,
		 uint64_t b, uint64_t c, const char *s)
{
	if (e->kind != kind)
		return false;
	if (kind == K_STR)
		return e->a == a && !strcmp(pp->strs[e->id - 1], s);
	return e->a == a && e->b == b && e->c == c;
}

/* The entry for the key: found (id set) or the empty slot to fill; NULL on
 * ENOMEM. */
static struct ent *lookup(struct pprof *pp, uint32_t kind, uint64_t a, uint64_t b, uint64_t c,
			  const char *s)
{
	size_t i;

	if ((pp->tab_n + 1) * 2 > pp->tab_cap) {
		size_t cap = pp->tab_cap ? pp->tab_cap * 2 : 1024;
		struct ent *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < pp->tab_cap; k++) {
			struct ent *e = &pp->tab[k];

			if (!e->id)
				continue;
			for (i = hash3(e->kind, e->a, e->b, e->c) & (cap - 1); t[i].id;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = *e;
		}
		free(pp->tab);
		pp->tab = t;
		pp->tab_cap = cap;
	}
	for (i = hash3(kind, a, b, c) & (pp->tab_cap - 1); pp->tab[i].id;
	     i = (i + 1) & (pp->tab_cap - 1))
		if (same(pp, &pp->tab[i], kind, a, b, c, s))
			break;
	return &pp->tab[i];
}

/* The string table index of s ("" is 0). */
static uint64_t str_id(struct pprof *pp, const char *s)
{
	uint64_t h;
	struct ent *e;

	if (!s || !*s)
		return 0;
	h = str_hash(s);
	e = lookup(pp, K_STR, h, 0, 0, s);
	if (!e)
		return UINT64_MAX;
	if (e->id)
		return e->id - 1;
	if (pp->nstr == pp->str_cap) {
		size_t cap = pp->str_cap * 2;
		char **v = realloc(pp->strs, cap * sizeof(*v));

		if (!v)
			return UINT64_MAX;
		pp->strs = v;
		pp->str_cap = cap;
	}
	pp->strs[pp->nstr] = strdup(s);
	if (!pp->strs[pp->nstr])
		return UINT64_MAX;
	*e = (struct ent){ .a = h, .id = (uint32_t)++pp->nstr, .kind = K_STR };
	pp->tab_n++;
	return pp->nstr - 1;
}

struct pprof *pprof_new(int64_t period_ns)
{
	struct pprof *pp = calloc(1, sizeof(*pp));

	if (!pp)
		return NULL;
	pp->period = period_ns;
	pp->str_cap = 64;
	pp->strs = calloc(pp->str_cap, sizeof(char *));
	if (!pp->strs || !(pp->strs[0] = strdup(""))) {
		pprof_free(pp);
		return NULL;
	}
	pp->nstr = 1;
	return pp;
}

void pprof_free(struct pprof *pp)
{
	if (!pp)
		return;
	for (size_t i = 0; i < pp->nstr; i++)
		free(pp->strs[i]);
	free(pp->strs);
	free(pp->tab);
	free(pp->maps.p);
	free(pp->funcs.p);
	free(pp->locs.p);
	free(pp->samples.p);
	free(pp->m.p);
	free(pp->packed.p);
	free(pp);
}

/* A new id of kind for the key, or the existing one; *fresh says which. */
static uint64_t new_id(struct pprof *pp, uint32_t kind, uint64_t a, uint64_t b, uint64_t c,
		       bool *fresh)
{
	struct ent *e = lookup(pp, kind, a, b, c, NULL);

	*fresh = false;
	if (!e)
		return 0;
	if (e->id)
		return e->id;
	*e = (struct ent){ a, b, c, ++pp->next_id[kind], kind };
	pp->tab_n++;
	*fresh = true;
	return e->id;
}

uint64_t pprof_mapping(struct pprof *pp, uint64_t start, uint64_t limit, uint64_t off,
		       const char *file, const char *build_id)
{
	uint64_t fsid = str_id(pp, file), bsid = str_id(pp, build_id), id;
	bool fresh;

	if (fsid == UINT64_MAX || bsid == UINT64_MAX)
		return 0;
	id = new_id(pp, K_MAP, start, fsid, 0, &fresh);
	if (!fresh)
		return id;
	pp->m.n = 0;
	field_u(&pp->m, 1, id);
	field_u(&pp->m, 2, start);
	field_u(&pp->m, 3, limit);
	field_u(&pp->m, 4, off);
	field_u(&pp->m, 5, fsid);
	field_u(&pp->m, 6, bsid);
	field_u(&pp->m, 7, 1);		/* has_functions: no symbolization needed */
	field_b(&pp->maps, 3, pp->m.p, pp->m.n);
	return pp->maps.oom || pp->m.oom ? 0 : id;
}

uint64_t pprof_location(struct pprof *pp, uint64_t mapping, uint64_t addr, const char *name,
			const char *file)
{
	uint64_t nsid = str_id(pp, name), fsid = str_id(pp, file), fid = 0, id;
	bool fresh;

	if (nsid == UINT64_MAX || fsid == UINT64_MAX)
		return 0;
	if (nsid) {
		fid = new_id(pp, K_FUNC, nsid, fsid, 0, &fresh);
		if (fresh) {
			pp->m.n = 0;
			field_u(&pp->m, 1, fid);
			field_u(&pp->m, 2, nsid);
			field_u(&pp->m, 3, nsid);	/* system_name */
			field_u(&pp->m, 4, fsid);
			field_b(&pp->funcs, 5, pp->m.p, pp->m.n);
		}
	}
	id = new_id(pp, K_LOC, mapping, addr, fid, &fresh);
	if (!fresh)
		return id;
	pp->m.n = 0;
	field_u(&pp->m, 1, id);
	field_u(&pp->m, 2, mapping);
	field_u(&pp->m, 3, addr);
	if (fid) {
		/* Line { function_id } */
		unsigned char line[12];
		struct buf l = { line, 0, sizeof(line), false };

		field_u(&l, 1, fid);
		field_b(&pp->m, 4, l.p, l.n);
	}
	field_b(&pp->locs, 4, pp->m.p, pp->m.n);
	return pp->locs.oom || pp->funcs.oom || pp->m.oom ? 0 : id;
}

int pprof_sample(struct pprof *pp, const uint64_t *locs, size_t n, uint64_t count,
		 const char *comm)
{
	uint64_t key = str_id(pp, "comm"), val = str_id(pp, comm);

	if (key == UINT64_MAX || val == UINT64_MAX)
		return -ENOMEM;
	pp->m.n = 0;
	pp->packed.n = 0;
	for (size_t i = 0; i < n; i++)
		varint(&pp->packed, locs[i]);
	field_b(&pp->m, 1, pp->packed.p, pp->packed.n);
	pp->packed.n = 0;
	varint(&pp->packed, count);
	varint(&pp->packed, count * (uint64_t)pp->period);
	field_b(&pp->m, 2, pp->packed.p, pp->packed.n);
	if (val) {
		unsigned char lab[24];
		struct buf l = { lab, 0, sizeof(lab), false };

		field_u(&l, 1, key);
		field_u(&l, 2, val);
		field_b(&pp->m, 3, l.p, l.n);
	}
	field_b(&pp->samples, 2, pp->m.p, pp->m.n);
	return pp->samples.oom || pp->m.oom || pp->packed.oom ? -ENOMEM : 0;
}

static void value_type(struct pprof *pp, struct buf *out, unsigned field, const char *type,
		       const char *unit)
{
	unsigned char vt[24];
	struct buf v = { vt, 0, sizeof(vt), false };

	field_u(&v, 1, str_id(pp, type));
	field_u(&v, 2, str_id(pp, unit));
	field_b(out, field, v.p, v.n);
}

unsigned char *pprof_encode(struct pprof *pp, int64_t time_ns, int64_t duration_ns, size_t *len)
{
	struct buf out = { 0 };

	value_type(pp, &out, 1, "samples", "count");
	value_type(pp, &out, 1, "cpu", "nanoseconds");
	put(&out, pp->samples.p, pp->samples.n);
	put(&out, pp->maps.p, pp->maps.n);
	put(&out, pp->locs.p, pp->locs.n);
	put(&out, pp->funcs.p, pp->funcs.n);
	value_type(pp, &out, 11, "cpu", "nanoseconds");	/* interns first */
	for (size_t i = 0; i < pp->nstr; i++)
		field_b(&out, 6, pp->strs[i], strlen(pp->strs[i]));
	field_u(&out, 9, (uint64_t)time_ns);
	field_u(&out, 10, (uint64_t)duration_ns);
	field_u(&out, 12, (uint64_t)pp->period);
	if (out.oom || pp->m.oom) {
		free(out.p);
		return NULL;
	}
	*len = out.n;
	return out.p;
}

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

int pprof_gzip_stored(FILE *f, const void *data, size_t len)
{
	/* RFC 1952's header (no name, no time, OS "Unix"), then RFC 1951's
	 * stored blocks of up to 65535 bytes (BFINAL on the last, BTYPE 00:
	 * a byte, then LEN and its complement, little-endian), then the CRC-32
	 * and the length.  zlib's crc32 is linked already (libelf, sym.c). */
	static const unsigned char head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	const unsigned char *p = data;
	unsigned char b[8];

	if (fwrite(head, 1, sizeof(head), f) != sizeof(head))
		return -EIO;
	do {
		size_t n = len > 65535 ? 65535 : len;

		b[0] = n == len;
		b[1] = (unsigned char)n;
		b[2] = (unsigned char)(n >> 8);
		b[3] = (unsigned char)~b[1];
		b[4] = (unsigned char)~b[2];
		if (fwrite(b, 1, 5, f) != 5 || fwrite(p, 1, n, f) != n)
			return -EIO;
		p += n;
		len -= n;
	} while (len);
	le32(b, (uint32_t)crc32_z(0, data, (z_size_t)(p - (const unsigned char *)data)));
	le32(b + 4, (uint32_t)(p - (const unsigned char *)data));
	return fwrite(b, 1, 8, f) == 8 ? 0 : -EIO;
}

int pprof_write(struct pprof *pp, FILE *f, int64_t time_ns, int64_t duration_ns)
{
	size_t len;
	unsigned char *raw = pprof_encode(pp, time_ns, duration_ns, &len);
	int err = 0;

	if (!raw)
		return -ENOMEM;
#ifdef FTR_PPROF_STORED
	err = pprof_gzip_stored(f, raw, len);
#else
	unsigned char out[16384];
	z_stream z = { 0 };
	int zr;

	/* windowBits 15 + 16: a gzip stream, as pprof expects. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(raw);
		return -ENOMEM;
	}
	z.next_in = raw;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out) {
			err = -EIO;
			break;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
#endif
	free(raw);
	return err;
}
#endif
