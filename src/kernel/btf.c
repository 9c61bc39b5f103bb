// SPDX-License-Identifier: GPL-2.0-or-later
/* ftr's BTF reader: see btf.h.  Written from the format's description. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/btf.h"

#define BTF_MAGIC 0xeB9F
#define HDR_LEN 24
#define MAX_CHAIN 32		/* typedef/const/... chains: longer is a loop */

struct btf {
	const struct btf *base;
	uint8_t *data;
	const uint8_t *types;		/* the type section */
	const char *strs;		/* the string section */
	uint32_t types_len, strs_len;
	uint32_t first;			/* the first id of this btf (1, or the base's nr) */
	uint32_t n;			/* types of its own */
	uint32_t str_base;		/* the base's strings come first */
	uint32_t *off;			/* record offsets in types, per own type */
	uint32_t *index;		/* name hash: own ids, 0 = empty */
	uint32_t index_mask;
};

static int bad(char *why, size_t wlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t wlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, wlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Trailing words of a record of kind k with vlen entries. */
static uint32_t extra_words(enum btf_kind k, unsigned vlen)
{
	switch (k) {
	case BTF_INT: case BTF_VAR: case BTF_DECL_TAG:
		return 1;
	case BTF_ARRAY:
		return 3;
	case BTF_STRUCT: case BTF_UNION: case BTF_DATASEC: case BTF_ENUM64:
		return 3 * vlen;
	case BTF_ENUM: case BTF_FUNC_PROTO:
		return 2 * vlen;
	default:
		return 0;
	}
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	while (b && off < b->str_base)
		b = b->base;
	if (!b)
		return "";
	off -= b->str_base;
	return off < b->strs_len ? b->strs + off : NULL;
}

static const struct btf *owner(const struct btf *b, uint32_t id)
{
	while (b && id < b->first)
		b = b->base;
	return b && id - b->first < b->n ? b : NULL;
}

uint32_t btf_nr(const struct btf *b)
{
	return b ? b->first + b->n : 1;
}

static const uint32_t *rec(const struct btf *b, uint32_t id)
{
	b = owner(b, id);
	return b ? (const uint32_t *)(b->types + b->off[id - b->first]) : NULL;
}

void btf_type(const struct btf *b, uint32_t id, struct btf_t *t)
{
	const uint32_t *r = id ? rec(b, id) : NULL;
	const char *name;

	memset(t, 0, sizeof(*t));
	t->name = "";
	if (!r)
		return;
	t->kind = (r[1] >> 24) & 0x1f;
	t->kflag = r[1] >> 31;
	t->vlen = r[1] & 0xffff;
	name = str_at(b, r[0]);
	t->name = name ? name : "";
	t->size_type = r[2];
	t->extra = r + 3;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static bool kind_ok(enum btf_kind have, enum btf_kind want)
{
	if (want)
		return have == want || (want == BTF_ENUM && have == BTF_ENUM64);
	return have != BTF_FUNC && have != BTF_VAR && have != BTF_DECL_TAG;
}

uint32_t btf_find(const struct btf *b, const char *name, enum btf_kind kind)
{
	for (; b; b = b->base) {
		if (!b->index)
			continue;
		for (uint32_t i = hash(name) & b->index_mask; b->index[i];
		     i = (i + 1) & b->index_mask) {
			struct btf_t t;

			btf_type(b, b->index[i], &t);
			if (kind_ok(t.kind, kind) && !strcmp(t.name, name))
				return b->index[i];
		}
	}
	return 0;
}

static bool is_ref(enum btf_kind k)
{
	return k == BTF_PTR || k == BTF_TYPEDEF || k == BTF_VOLATILE || k == BTF_CONST ||
	       k == BTF_RESTRICT || k == BTF_FUNC || k == BTF_TYPE_TAG || k == BTF_VAR ||
	       k == BTF_DECL_TAG || k == BTF_FUNC_PROTO;
}

static int check_ref(const struct btf *b, uint32_t id, uint32_t ref, char *why, size_t wlen)
{
	if (ref >= btf_nr(b))
		return bad(why, wlen, "type %u refers to type %u, past the last (%u)", id, ref,
			   btf_nr(b) - 1);
	return 0;
}

static int validate(struct btf *b, char *why, size_t wlen)
{
	uint32_t pos = 0, cap = 0;

	/* Pass 1: where each record is, and that it is whole. */
	while (pos < b->types_len) {
		uint32_t info, words;
		enum btf_kind k;

		if (b->types_len - pos < 12)
			return bad(why, wlen, "type %u: record cut at byte %u", b->first + b->n, pos);
		info = rd32(b->types + pos + 4);
		k = (info >> 24) & 0x1f;
		if (k == BTF_UNKN || k >= BTF_KIND_NR)
			return bad(why, wlen, "type %u: unknown kind %u", b->first + b->n, k);
		words = extra_words(k, info & 0xffff);
		if ((b->types_len - pos - 12) / 4 < words)
			return bad(why, wlen, "type %u: record cut at byte %u", b->first + b->n, pos);
		if (b->n == cap) {
			uint32_t *v;

			if (cap >= (1u << 24))
				return bad(why, wlen, "more than %u types", cap);
			cap = cap ? cap * 2 : 1024;
			v = realloc(b->off, cap * sizeof(*v));
			if (!v)
				return -ENOMEM;
			b->off = v;
		}
		b->off[b->n++] = pos;
		pos += 12 + words * 4;
	}
	/* Pass 2: names and references. */
	for (uint32_t i = 0; i < b->n; i++) {
		uint32_t id = b->first + i;
		const uint32_t *r = (const uint32_t *)(b->types + b->off[i]);
		enum btf_kind k = (r[1] >> 24) & 0x1f;
		unsigned vlen = r[1] & 0xffff;
		const uint32_t *x = r + 3;
		int ret = 0;

		if (!str_at(b, r[0]))
			return bad(why, wlen, "type %u: name offset %u out of the strings", id, r[0]);
		if (is_ref(k))
			ret = check_ref(b, id, r[2], why, wlen);
		if (k == BTF_ARRAY)
			ret = ret ? ret : check_ref(b, id, x[0], why, wlen) ?:
			      check_ref(b, id, x[1], why, wlen);
		for (unsigned j = 0; !ret && j < vlen; j++) {
			uint32_t name = 0, ref = 0;

			if (k == BTF_STRUCT || k == BTF_UNION)
				name = x[3 * j], ref = x[3 * j + 1];
			else if (k == BTF_FUNC_PROTO)
				name = x[2 * j], ref = x[2 * j + 1];
			else if (k == BTF_ENUM)
				name = x[2 * j];
			else if (k == BTF_ENUM64)
				name = x[3 * j];
			else if (k == BTF_DATASEC)
				ref = x[3 * j];
			if (!str_at(b, name))
				return bad(why, wlen, "type %u: entry %u's name out of the strings",
					   id, j);
			ret = check_ref(b, id, ref, why, wlen);
		}
		if (ret)
			return ret;
		if (k == BTF_INT && (x[0] & 0xff) > 128)
			return bad(why, wlen, "type %u: an int of %u bits", id, x[0] & 0xff);
	}
	return 0;
}

static int build_index(struct btf *b)
{
	uint32_t size = 64;

	while (size < b->n * 2)
		size *= 2;
	b->index = calloc(size, sizeof(*b->index));
	if (!b->index)
		return -ENOMEM;
	b->index_mask = size - 1;
	for (uint32_t i = 0; i < b->n; i++) {
		struct btf_t t;
		uint32_t h;

		btf_type(b, b->first + i, &t);
		if (!t.name[0])
			continue;
		for (h = hash(t.name) & b->index_mask; b->index[h]; h = (h + 1) & b->index_mask)
			;
		b->index[h] = b->first + i;
	}
	return 0;
}

int btf_load(const void *data, size_t len, const struct btf *base, struct btf **out,
	     char *why, size_t wlen)
{
	const uint8_t *d = data;
	uint32_t hdr_len, toff, tlen, soff, slen;
	struct btf *b;
	int ret;

	*out = NULL;
	if (len < HDR_LEN || d[0] != (BTF_MAGIC & 0xff) || d[1] != BTF_MAGIC >> 8)
		return bad(why, wlen, "not BTF (no 0xeb9f magic; a big-endian blob is not read)");
	if (d[2] != 1)
		return bad(why, wlen, "BTF version %u (ftr reads 1)", d[2]);
	hdr_len = rd32(d + 4);
	toff = rd32(d + 8), tlen = rd32(d + 12), soff = rd32(d + 16), slen = rd32(d + 20);
	if (hdr_len < HDR_LEN || hdr_len > len || toff > len - hdr_len ||
	    tlen > len - hdr_len - toff || soff > len - hdr_len || slen > len - hdr_len - soff ||
	    (toff | tlen) % 4)
		return bad(why, wlen, "header: sections out of the %zu bytes", len);
	if (slen && d[hdr_len + soff + slen - 1])
		return bad(why, wlen, "string section not NUL-terminated");
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->data = malloc(len);
	if (!b->data) {
		free(b);
		return -ENOMEM;
	}
	memcpy(b->data, data, len);
	b->base = base;
	b->types = b->data + hdr_len + toff;
	b->strs = (const char *)b->data + hdr_len + soff;
	b->types_len = tlen;
	b->strs_len = slen;
	b->first = btf_nr(base);
	if (base)
		b->str_base = base->str_base + base->strs_len;
	ret = validate(b, why, wlen);
	if (!ret)
		ret = build_index(b);
	if (ret) {
		btf_free(b);
		return ret;
	}
	*out = b;
	return 0;
}

int btf_load_file(const char *path, const struct btf *base, struct btf **out, char *why,
		  size_t wlen)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;
	ssize_t r;

	*out = NULL;
	if (fd < 0 || !buf) {
		ret = fd < 0 ? -errno : -ENOMEM;
		free(buf);
		if (fd >= 0)
			close(fd);
		snprintf(why, wlen, "%s", strerror(-ret));
		return ret;
	}
	/* sysfs files say size 4096 whatever they hold: read to the end. */
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			char *v = cap < (64u << 20) ? realloc(buf, cap * 2) : NULL;

			if (!v) {
				free(buf);
				close(fd);
				return bad(why, wlen, "larger than 64 MB");
			}
			buf = v;
			cap *= 2;
		}
	}
	ret = r < 0 ? -errno : 0;
	close(fd);
	if (ret)
		snprintf(why, wlen, "%s", strerror(-ret));
	else
		ret = btf_load(buf, len, base, out, why, wlen);
	free(buf);
	return ret;
}

void btf_free(struct btf *b)
{
	if (!b)
		return;
	free(b->data);
	free(b->off);
	free(b->index);
	free(b);
}

uint32_t btf_skip(const struct btf *b, uint32_t id)
{
	for (int i = 0; i < MAX_CHAIN; i++) {
		struct btf_t t;

		btf_type(b, id, &t);
		if (t.kind != BTF_TYPEDEF && t.kind != BTF_CONST && t.kind != BTF_VOLATILE &&
		    t.kind != BTF_RESTRICT && t.kind != BTF_TYPE_TAG)
			return id;
		id = t.size_type;
	}
	return 0;
}

int64_t btf_size(const struct btf *b, uint32_t id)
{
	int64_t n = 1;

	for (int i = 0; i < MAX_CHAIN; i++) {
		struct btf_t t;

		btf_type(b, btf_skip(b, id), &t);
		switch (t.kind) {
		case BTF_INT: case BTF_STRUCT: case BTF_UNION: case BTF_ENUM: case BTF_ENUM64:
		case BTF_FLOAT: case BTF_DATASEC:
			/* A hostile file's sizes: n * size would wrap negative
			 * (issue 38: sizeof and offsets went below zero). */
			if (t.size_type && n > INT64_MAX / 4 / t.size_type)
				return -EINVAL;
			return n * t.size_type;
		case BTF_PTR:
			if (n > INT64_MAX / 4 / BTF_PTR_SIZE)
				return -EINVAL;
			return n * BTF_PTR_SIZE;
		case BTF_ARRAY:
			/* bounded: MAX_CHAIN dimensions of < 2^32 */
			if (t.extra[2] && n > INT64_MAX / 4 / t.extra[2])
				return -EINVAL;
			n *= t.extra[2];
			id = t.extra[0];
			break;
		default:
			return -EINVAL;
		}
	}
	return -EINVAL;
}

void btf_member(const struct btf *b, uint32_t id, unsigned i, struct btf_member *m)
{
	struct btf_t t;
	const uint32_t *x;

	btf_type(b, id, &t);
	x = t.extra + 3 * i;
	m->name = str_at(b, x[0]);
	m->type = x[1];
	m->bit_off = t.kflag ? x[2] & 0xffffff : x[2];
	m->bits = t.kflag ? x[2] >> 24 : 0;
}

static int find_member(const struct btf *b, uint32_t id, const char *name, struct btf_member *m,
		       int depth)
{
	struct btf_t t;

	id = btf_skip(b, id);
	btf_type(b, id, &t);
	if ((t.kind != BTF_STRUCT && t.kind != BTF_UNION) || depth > MAX_CHAIN)
		return -ENOENT;
	for (unsigned i = 0; i < t.vlen; i++) {
		btf_member(b, id, i, m);
		if (!strcmp(m->name, name))
			return 0;
	}
	/* C11 anonymous struct/union members: their members are ours. */
	for (unsigned i = 0; i < t.vlen; i++) {
		struct btf_member a;

		btf_member(b, id, i, &a);
		if (!a.name[0] && !find_member(b, a.type, name, m, depth + 1)) {
			m->bit_off += a.bit_off;
			return 0;
		}
	}
	return -ENOENT;
}

int btf_find_member(const struct btf *b, uint32_t id, const char *name, struct btf_member *m)
{
	return find_member(b, id, name, m, 0);
}

const char *btf_param(const struct btf *b, uint32_t id, unsigned i, uint32_t *type)
{
	struct btf_t t;

	btf_type(b, id, &t);
	*type = t.extra[2 * i + 1];
	return str_at(b, t.extra[2 * i]);
}

const char *btf_enumerator(const struct btf *b, uint32_t id, unsigned i, int64_t *val)
{
	struct btf_t t;

	btf_type(b, id, &t);
	if (t.kind == BTF_ENUM64) {
		*val = (int64_t)((uint64_t)t.extra[3 * i + 2] << 32 | t.extra[3 * i + 1]);
		return str_at(b, t.extra[3 * i]);
	}
	*val = t.kflag ? (int64_t)t.extra[2 * i + 1] : (int64_t)(int32_t)t.extra[2 * i + 1];
	return str_at(b, t.extra[2 * i]);
}

void btf_type_str(const struct btf *b, uint32_t id, char *out, size_t len)
{
	char suffix[64] = "";
	size_t sl = 0;
	bool cnst = false;

	for (int i = 0; i < MAX_CHAIN; i++) {
		struct btf_t t;

		btf_type(b, id, &t);
		switch (t.kind) {
		case BTF_UNKN:
			snprintf(out, len, "void%s%s", sl ? " " : "", suffix);
			return;
		case BTF_PTR:
			sl += snprintf(suffix + sl, sl < sizeof(suffix) ? sizeof(suffix) - sl : 0,
				       "*");
			id = t.size_type;
			continue;
		case BTF_ARRAY:
			sl += snprintf(suffix + sl, sl < sizeof(suffix) ? sizeof(suffix) - sl : 0,
				       "[%u]", t.extra[2]);
			id = t.extra[0];
			continue;
		case BTF_CONST: case BTF_VOLATILE: case BTF_RESTRICT: case BTF_TYPE_TAG:
			cnst |= t.kind == BTF_CONST;
			id = t.size_type;
			continue;
		default:
			snprintf(out, len, "%s%s%s%s%s", cnst ? "const " : "", t.kind == BTF_STRUCT ? "struct " :
				 t.kind == BTF_UNION || (t.kind == BTF_FWD && t.kflag) ? "union " :
				 t.kind == BTF_FWD ? "struct " : t.kind == BTF_ENUM ||
				 t.kind == BTF_ENUM64 ? "enum " : "", t.name[0] ? t.name : "(anon)",
				 sl && suffix[0] == '*' ? " " : "", suffix);
			return;
		}
	}
	snprintf(out, len, "?");
}

/* ---- building ---------------------------------------------------------------- */

static void words(struct btf_builder *bb, size_t n)
{
	if (bb->ntw + n > bb->captw) {
		size_t cap = bb->captw ? bb->captw * 2 : 256;
		uint32_t *v = realloc(bb->types, cap * sizeof(*v));

		if (!v) {
			bb->oom = true;
			return;
		}
		bb->types = v;
		bb->captw = cap;
	}
}

void btfb_init(struct btf_builder *bb, const struct btf *base)
{
	memset(bb, 0, sizeof(*bb));
	bb->first_id = btf_nr(base);
	bb->str_base = base ? base->str_base + base->strs_len : 0;
	btfb_str(bb, "");
}

uint32_t btfb_str(struct btf_builder *bb, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off;

	if (bb->slen + n > bb->capstr) {
		size_t cap = (bb->capstr ? bb->capstr * 2 : 256) + n;
		char *v = realloc(bb->strs, cap);

		if (!v) {
			bb->oom = true;
			return 0;
		}
		bb->strs = v;
		bb->capstr = cap;
	}
	off = (uint32_t)bb->slen;
	memcpy(bb->strs + bb->slen, s, n);
	bb->slen += n;
	return (bb->str_base + off);
}

uint32_t btfb_add(struct btf_builder *bb, enum btf_kind kind, bool kflag, unsigned vlen,
		  const char *name, uint32_t size_type)
{
	uint32_t n = name && *name ? btfb_str(bb, name) : 0;

	words(bb, 3);
	if (bb->oom)
		return 0;
	bb->types[bb->ntw++] = n;
	bb->types[bb->ntw++] = (uint32_t)kflag << 31 | (uint32_t)kind << 24 | (vlen & 0xffff);
	bb->types[bb->ntw++] = size_type;
	return bb->first_id + bb->nr++;
}

void btfb_word(struct btf_builder *bb, uint32_t w)
{
	words(bb, 1);
	if (!bb->oom)
		bb->types[bb->ntw++] = w;
}

void *btfb_finish(struct btf_builder *bb, size_t *len)
{
	size_t tl = bb->ntw * 4;
	uint8_t *d = bb->oom ? NULL : malloc(HDR_LEN + tl + bb->slen);
	uint32_t h[5] = { HDR_LEN, 0, (uint32_t)tl, (uint32_t)tl, (uint32_t)bb->slen };

	if (d) {
		d[0] = BTF_MAGIC & 0xff, d[1] = BTF_MAGIC >> 8, d[2] = 1, d[3] = 0;
		memcpy(d + 4, h, sizeof(h));
		if (tl)
			memcpy(d + HDR_LEN, bb->types, tl);
		memcpy(d + HDR_LEN + tl, bb->strs, bb->slen);
		*len = HDR_LEN + tl + bb->slen;
	}
	free(bb->types);
	free(bb->strs);
	memset(bb, 0, sizeof(*bb));
	return d;
}
