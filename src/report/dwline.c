// SPDX-License-Identifier: GPL-2.0-or-later
/* Source lines and inlined calls from DWARF: see dwline.h.  The forms,
 * tags and opcodes are the DWARF 5 standard's numbers (DWARF 2-4 use a
 * subset of them). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/dwline.h"
#include "report/elfsym.h"

struct dwline {
	const uint8_t *s[DWS_N];
	size_t n[DWS_N];
	void *mem[DWS_N];	/* dwline_open's copies */
};

/* A bounded reader: a read past end sets bad and gives 0. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t rd(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if (c->bad || n > 8 || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static void skip(struct cur *c, uint64_t n)
{
	if (c->bad || (uint64_t)(c->end - c->p) < n)
		c->bad = true;
	else
		c->p += n;
}

/* A LEB128 number's bits; *sign: the sign bit's mask, when it had one. */
static uint64_t leb(struct cur *c, uint64_t *sign)
{
	uint64_t v = 0, b;
	unsigned sh = 0;

	do {
		b = rd(c, 1);
		if (sh < 64)
			v |= (b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	*sign = sh < 64 && (b & 0x40) ? ~(uint64_t)0 << sh : 0;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t sign;

	return leb(c, &sign);
}

static int64_t sleb(struct cur *c)
{
	uint64_t sign, v = leb(c, &sign);

	return (int64_t)(v | sign);
}

static const char *cstr(struct cur *c)
{
	const uint8_t *z = c->bad ? NULL : memchr(c->p, 0, (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!z) {
		c->bad = true;
		return NULL;
	}
	c->p = z + 1;
	return s;
}

/* Section s from offset off (to its end); bad when off is past it. */
static struct cur at(const struct dwline *d, int s, uint64_t off)
{
	struct cur c = { d->s[s], d->s[s] + d->n[s], !d->s[s] };

	skip(&c, off);
	return c;
}

static const char *str_at(const struct dwline *d, int s, uint64_t off)
{
	struct cur c = at(d, s, off);

	return cstr(&c);
}

/* A unit's length field: *u is the unit after it, c moves past the unit;
 * *osz the size of its offsets (8: 64-bit DWARF).  false: truncated. */
static bool unit(struct cur *c, struct cur *u, unsigned *osz)
{
	uint64_t len = rd(c, 4);

	*osz = 4;
	if (len == 0xffffffff) {
		len = rd(c, 8);
		*osz = 8;
	}
	if (c->bad || len > (uint64_t)(c->end - c->p) || len < 2)
		return false;
	*u = (struct cur){ c->p, c->p + len, false };
	c->p += len;
	return true;
}

/* ---- compilation units and their DIEs ------------------------------------------ */

enum {
	AT_sibling = 0x01, AT_name = 0x03, AT_stmt_list = 0x10, AT_low_pc = 0x11,
	AT_high_pc = 0x12, AT_comp_dir = 0x1b, AT_abstract_origin = 0x31,
	AT_specification = 0x47, AT_ranges = 0x55, AT_call_file = 0x58, AT_call_line = 0x59,
	AT_linkage_name = 0x6e, AT_str_offsets_base = 0x72, AT_addr_base = 0x73,
	AT_rnglists_base = 0x74, AT_MIPS_linkage_name = 0x2007,
	TAG_inlined = 0x1d, TAG_subprogram = 0x2e,
	FORM_addr = 0x01, FORM_string = 0x08, FORM_strp = 0x0e, FORM_ref_addr = 0x10,
	FORM_ref1 = 0x11, FORM_ref_udata = 0x15, FORM_indirect = 0x16, FORM_sec_offset = 0x17,
	FORM_strx = 0x1a, FORM_addrx = 0x1b, FORM_line_strp = 0x1f, FORM_implicit_const = 0x21,
	FORM_rnglistx = 0x23, FORM_strx1 = 0x25, FORM_strx4 = 0x28, FORM_addrx1 = 0x29,
	FORM_addrx4 = 0x2c, FORM_GNU_str_index = 0x1f02,
};

struct cu {
	uint64_t off, end;		/* in .debug_info: the unit header, its end */
	unsigned ver, asz, osz;
	struct cur abbrev;		/* its abbreviation table */
	const uint8_t **abbr;		/* by code (cu_index), or NULL: searched */
	size_t nabbr;
	uint64_t str_base, addr_base, rng_base, base;
	bool kids;
	struct cur dies;		/* the DIEs after the unit's own */
};

/* An attribute's value as read: a number, an offset, an index, or (a
 * DW_FORM_string) the string's address; what it means takes its form. */
struct aval {
	uint64_t form, v;
};

/* The attributes a lookup reads, by slot (form 0: absent). */
enum { A_SIB, A_NAME, A_LINK, A_LOW, A_HIGH, A_RANGES, A_COMP_DIR, A_ORIGIN, A_CALL_FILE,
       A_CALL_LINE, A_STMT, A_STR_BASE, A_ADDR_BASE, A_RNG_BASE, A_N };
static const uint16_t slot_at[A_N] = {
	AT_sibling, AT_name, AT_linkage_name, AT_low_pc, AT_high_pc, AT_ranges, AT_comp_dir,
	AT_abstract_origin, AT_call_file, AT_call_line, AT_stmt_list, AT_str_offsets_base,
	AT_addr_base, AT_rnglists_base,
};

struct die {
	uint64_t tag;
	bool kids;
	struct aval a[A_N];
};

/* The value of form f (implicit: an implicit_const's), cursor past it. */
static uint64_t form_val(const struct cu *u, struct cur *c, uint64_t f, int64_t implicit)
{
	static const uint8_t size[] = {
		[0x05] = 2, [0x06] = 4, [0x07] = 8, [0x0b] = 1, [0x0c] = 1, [0x11] = 1,
		[0x12] = 2, [0x13] = 4, [0x14] = 8, [0x1c] = 4, [0x20] = 8, [0x24] = 8,
		[0x25] = 1, [0x26] = 2, [0x27] = 3, [0x28] = 4, [0x29] = 1, [0x2a] = 2,
		[0x2b] = 3, [0x2c] = 4,
	};

	if (f < sizeof(size) && size[f])
		return rd(c, size[f]);
	switch (f) {
	case FORM_addr:
		return rd(c, u->asz);
	case 0x0d:	/* sdata */
		return (uint64_t)sleb(c);
	case 0x0f: case FORM_ref_udata: case FORM_strx: case FORM_addrx: case 0x22:
	case FORM_rnglistx: case 0x1f01: case FORM_GNU_str_index:
		return uleb(c);
	case FORM_strp: case FORM_sec_offset: case FORM_line_strp: case 0x1d:
	case 0x1f20: case 0x1f21:
		return rd(c, u->osz);
	case FORM_ref_addr:
		return rd(c, u->ver == 2 ? u->asz : u->osz);
	case FORM_string:
		return (uintptr_t)cstr(c);
	case 0x09: case 0x18:	/* block, exprloc */
		skip(c, uleb(c));
		return 0;
	case 0x0a:
		skip(c, rd(c, 1));
		return 0;
	case 0x03:
		skip(c, rd(c, 2));
		return 0;
	case 0x04:
		skip(c, rd(c, 4));
		return 0;
	case 0x1e:	/* data16 */
		skip(c, 16);
		return 0;
	case 0x19:	/* flag_present */
		return 1;
	case FORM_implicit_const:
		return (uint64_t)implicit;
	}
	c->bad = true;
	return 0;
}

/* The entry of index idx of a table of offsets or addresses of n bytes
 * each from base in section s. */
static uint64_t indexed(const struct dwline *d, int s, uint64_t base, uint64_t idx, unsigned n)
{
	struct cur c = at(d, s, base);

	skip(&c, idx * n);
	return rd(&c, n);
}

static const char *str_of(const struct dwline *d, const struct cu *u, const struct aval *a)
{
	switch (a->form) {
	case FORM_string:
		return (const char *)(uintptr_t)a->v;
	case FORM_strp:
		return str_at(d, DWS_STR, a->v);
	case FORM_line_strp:
		return str_at(d, DWS_LINE_STR, a->v);
	case FORM_strx: case FORM_GNU_str_index:
	case FORM_strx1: case FORM_strx1 + 1: case FORM_strx1 + 2: case FORM_strx4:
		return str_at(d, DWS_STR, indexed(d, DWS_STR_OFF, u->str_base, a->v, u->osz));
	}
	return NULL;
}

static bool is_addrx(uint64_t form)
{
	return form == FORM_addrx || (form >= FORM_addrx1 && form <= FORM_addrx4) ||
	       form == 0x1f01;
}

static uint64_t addr_of(const struct dwline *d, const struct cu *u, const struct aval *a)
{
	if (is_addrx(a->form))
		return indexed(d, DWS_ADDR, u->addr_base, a->v, u->asz);
	return a->v;
}

/* The next abbreviation of a table: its code (0: the end), *p where its
 * tag is; c moves past it. */
static uint64_t abbrev_next(struct cur *c, const uint8_t **p)
{
	uint64_t k = uleb(c), name, f;

	*p = c->p;
	if (!k)
		return 0;
	uleb(c);
	rd(c, 1);
	do {
		name = uleb(c);
		f = uleb(c);
		if (f == FORM_implicit_const)
			sleb(c);
	} while ((name || f) && !c->bad);
	return c->bad ? 0 : k;
}

/* The abbreviation of code: where its tag is, or NULL. */
static const uint8_t *abbrev(const struct cu *u, uint64_t code)
{
	struct cur c = u->abbrev;
	const uint8_t *p;
	uint64_t k;

	if (u->abbr)
		return code < u->nabbr ? u->abbr[code] : NULL;
	while ((k = abbrev_next(&c, &p)) != 0)
		if (k == code)
			return p;
	return NULL;
}

/* Every abbreviation of u by its code, for the walk over all its DIEs
 * (codes are dense from 1 in every producer's output; one out of range
 * leaves its DIEs unread). */
static int cu_index(struct cu *u)
{
	struct cur c = u->abbrev;
	const uint8_t *p;
	size_t cap = 0;
	uint64_t k;

	while ((k = abbrev_next(&c, &p)) != 0 && k < 1u << 20) {
		if (k >= cap) {
			size_t n = k < 2 * cap ? 2 * cap : k + 64;
			const uint8_t **v = realloc(u->abbr, n * sizeof(*v));

			if (!v)
				return -ENOMEM;
			memset(v + cap, 0, (n - cap) * sizeof(*v));
			u->abbr = v;
			cap = n;
		}
		u->abbr[k] = p;
	}
	u->nabbr = cap;
	return 0;
}

/* The DIE at c (its code read): what a lookup wants of it. */
static bool die_read(const struct cu *u, struct cur *c, uint64_t code, struct die *e)
{
	const uint8_t *p = abbrev(u, code);
	struct cur a = { p, u->abbrev.end, !p };
	uint64_t name, f;

	memset(e, 0, sizeof(*e));
	e->tag = uleb(&a);
	e->kids = rd(&a, 1);
	for (;;) {
		int64_t implicit = 0;
		uint64_t v;
		int k;

		name = uleb(&a);
		f = uleb(&a);
		if (f == FORM_implicit_const)
			implicit = sleb(&a);
		if (a.bad || (!name && !f))
			break;
		if (f == FORM_indirect)
			f = uleb(c);
		v = form_val(u, c, f, implicit);
		if (name == AT_specification)
			name = AT_abstract_origin;
		else if (name == AT_MIPS_linkage_name)
			name = AT_linkage_name;
		for (k = 0; k < A_N && slot_at[k] != name; k++)
			;
		if (k < A_N)
			e->a[k] = (struct aval){ f, v };
	}
	return !a.bad && !c->bad;
}

/* A reference (origin, sibling) as an offset in .debug_info; 0: none. */
static uint64_t ref_of(const struct cu *u, const struct aval *a)
{
	if (a->form >= FORM_ref1 && a->form <= FORM_ref_udata)
		return u->off + a->v;
	return a->form == FORM_ref_addr ? a->v : 0;
}

/* Whether e's code holds addr. */
static bool die_has(const struct dwline *d, const struct cu *u, const struct die *e,
		    uint64_t addr)
{
	const struct aval *low = &e->a[A_LOW], *high = &e->a[A_HIGH], *rng = &e->a[A_RANGES];
	uint64_t base = u->base, lo, hi, k = rng->v;
	struct cur c;

	if (low->form && high->form) {
		/* high_pc: an address, or (a constant) the size */
		lo = addr_of(d, u, low);
		hi = high->form == FORM_addr || is_addrx(high->form) ? addr_of(d, u, high) :
		     lo + high->v;
		return lo <= addr && addr < hi;
	}
	if (!rng->form)
		return false;
	if (u->ver < 5) {
		/* pairs from the unit's base; (max, X): the base is X */
		uint64_t max = u->asz == 4 ? 0xffffffff : ~(uint64_t)0;

		c = at(d, DWS_RANGES, k);
		while (!c.bad) {
			lo = rd(&c, u->asz);
			hi = rd(&c, u->asz);
			if (!lo && !hi)
				break;
			if (lo == max)
				base = hi;
			else if (base + lo <= addr && addr < base + hi)
				return !c.bad;
		}
		return false;
	}
	if (rng->form == FORM_rnglistx)
		k = u->rng_base + indexed(d, DWS_RNGLISTS, u->rng_base, k, u->osz);
	c = at(d, DWS_RNGLISTS, k);
	while (!c.bad) {
		/* DW_RLE_*: 0 the end; 1 a base by index; 2, 3 a range by
		 * indexes, by index and length; 4 from the base; 5 a base;
		 * 6, 7 a range, by start and length */
		unsigned kind = (unsigned)rd(&c, 1);
		struct aval x = { FORM_addrx, 0 };

		if (kind >= 1 && kind <= 3) {
			x.v = uleb(&c);
			lo = addr_of(d, u, &x);
			x.v = kind > 1 ? uleb(&c) : 0;
			hi = kind == 2 ? addr_of(d, u, &x) : lo + x.v;
		} else if (kind == 4) {
			lo = base + uleb(&c);
			hi = base + uleb(&c);
		} else if (kind == 5) {
			lo = rd(&c, u->asz);
		} else if (kind == 6 || kind == 7) {
			lo = rd(&c, u->asz);
			hi = kind == 6 ? rd(&c, u->asz) : lo + uleb(&c);
		} else {
			break;
		}
		if (kind == 1 || kind == 5)
			base = lo;
		else if (lo <= addr && addr < hi)
			return !c.bad;
	}
	return false;
}

/* The unit at off of .debug_info: *u, and *top its own DIE.  0, -ENOENT
 * (not a compile or partial unit: u->end still says where the next is), or
 * -EINVAL. */
static int cu_open(const struct dwline *d, uint64_t off, struct cu *u, struct die *top)
{
	struct cur c = at(d, DWS_INFO, off), b;
	uint64_t aoff, code;
	unsigned type = 1;

	memset(u, 0, sizeof(*u));
	if (!unit(&c, &b, &u->osz))
		return -EINVAL;
	u->off = off;
	u->end = (uint64_t)(b.end - d->s[DWS_INFO]);
	u->ver = (unsigned)rd(&b, 2);
	if (u->ver >= 5) {
		type = (unsigned)rd(&b, 1);
		u->asz = (unsigned)rd(&b, 1);
		aoff = rd(&b, u->osz);
	} else {
		aoff = rd(&b, u->osz);
		u->asz = (unsigned)rd(&b, 1);
	}
	if (b.bad || u->ver < 2 || u->ver > 5 || (u->asz != 4 && u->asz != 8))
		return -EINVAL;
	if (type != 1 && type != 3)
		return -ENOENT;
	u->abbrev = at(d, DWS_ABBREV, aoff);
	/* past the headers of .debug_str_offsets and .debug_addr, where
	 * the unit does not say */
	u->str_base = u->addr_base = u->osz == 8 ? 16 : 8;
	code = uleb(&b);
	if (!code || !die_read(u, &b, code, top))
		return -EINVAL;
	if (top->a[A_STR_BASE].form)
		u->str_base = top->a[A_STR_BASE].v;
	if (top->a[A_ADDR_BASE].form)
		u->addr_base = top->a[A_ADDR_BASE].v;
	u->rng_base = top->a[A_RNG_BASE].v;
	u->base = top->a[A_LOW].form ? addr_of(d, u, &top->a[A_LOW]) : 0;
	u->kids = top->kids;
	u->dies = b;
	return 0;
}

/* The unit whose code holds addr: by .debug_aranges, else by every
 * unit's own ranges (a producer may leave units out of aranges). */
static int cu_for(const struct dwline *d, uint64_t addr, struct cu *u, struct die *top)
{
	struct cur c = at(d, DWS_ARANGES, 0), b;
	uint64_t off;
	unsigned osz;

	while (unit(&c, &b, &osz)) {
		const uint8_t *start = b.p - (osz == 8 ? 12 : 4);
		uint64_t cu, s, l;
		unsigned asz;

		rd(&b, 2);
		cu = rd(&b, osz);
		asz = (unsigned)rd(&b, 1);
		rd(&b, 1);
		if (asz != 4 && asz != 8)
			continue;
		/* the tuples are aligned to their size from the unit's start */
		skip(&b, (2 * asz - (uint64_t)(b.p - start) % (2 * asz)) % (2 * asz));
		while (!b.bad) {
			s = rd(&b, asz);
			l = rd(&b, asz);
			if ((!s && !l) || b.bad)
				break;
			if (s <= addr && addr - s < l && cu_open(d, cu, u, top) == 0)
				return 0;
		}
	}
	for (off = 0; off < d->n[DWS_INFO]; off = u->end) {
		int err = cu_open(d, off, u, top);

		if (err == -EINVAL && u->end <= off)
			break;
		if (!err && die_has(d, u, top, addr))
			return 0;
	}
	return -ENOENT;
}

/* The subprogram and inlined subroutines holding addr, outermost first,
 * into chain: their number, or -ENOMEM. */
static int walk(const struct dwline *d, struct cu *u, uint64_t addr, struct die *chain, int max)
{
	const uint8_t *info = d->s[DWS_INFO];
	struct cur c = u->dies;
	unsigned depth[DWLINE_MAX_FRAMES], lvl = 1;
	int n = 0;

	if (!u->kids)
		return 0;
	if (cu_index(u) < 0)
		return -ENOMEM;
	while (!c.bad && c.p < c.end && lvl) {
		uint64_t code = uleb(&c);
		struct die e;

		if (!code) {
			/* the end of a DIE's children: past the outermost
			 * holder's, nothing else can hold addr */
			if (--lvl <= (n ? depth[0] : 0))
				break;
			continue;
		}
		if (!die_read(u, &c, code, &e))
			break;
		if ((e.tag == TAG_subprogram || e.tag == TAG_inlined) && die_has(d, u, &e, addr)) {
			while (n && depth[n - 1] >= lvl)
				n--;
			if (n < max) {
				chain[n] = e;
				depth[n++] = lvl;
			}
		} else if (e.tag == TAG_subprogram && e.kids &&
			   ref_of(u, &e.a[A_SIB]) > (uint64_t)(c.p - info) &&
			   ref_of(u, &e.a[A_SIB]) < u->end) {
			/* not here: skip its children */
			c.p = info + ref_of(u, &e.a[A_SIB]);
			continue;
		}
		lvl += e.kids;
	}
	return n;
}

/* A function's name: its own, else its abstract origin's or declaration's. */
static const char *die_name(const struct dwline *d, const struct cu *cu, const struct die *e)
{
	struct cu u = *cu;
	struct die o = *e, top;

	u.abbr = NULL;
	for (int hop = 0; hop < 4; hop++) {
		const char *s = str_of(d, &u, o.a[A_LINK].form ? &o.a[A_LINK] : &o.a[A_NAME]);
		uint64_t origin = ref_of(&u, &o.a[A_ORIGIN]);
		struct cur c;

		if (s && *s)
			return s;
		if (!origin)
			return NULL;
		if (origin < u.off || origin >= u.end) {
			/* in another unit (DW_FORM_ref_addr) */
			uint64_t off = 0;

			while (off < d->n[DWS_INFO] && cu_open(d, off, &u, &top) != -EINVAL &&
			       u.end <= origin)
				off = u.end;
			if (origin < u.off || origin >= u.end)
				return NULL;
		}
		c = at(d, DWS_INFO, origin);
		c.end = d->s[DWS_INFO] + u.end;
		if (!die_read(&u, &c, uleb(&c), &o))
			return NULL;
	}
	return NULL;
}

/* ---- the line-number program ------------------------------------------------------ */

struct lprog {
	unsigned ver, osz, asz, min_inst, line_range, opcode_base;
	int line_base;
	const uint8_t *std;	/* the standard opcodes' operand counts */
	struct cur tabs;	/* the directory and file tables */
	struct cur prog;
};

static bool lprog_open(const struct dwline *d, uint64_t off, struct lprog *l)
{
	struct cur c = at(d, DWS_LINE, off), u, h;
	uint64_t hlen;

	memset(l, 0, sizeof(*l));
	if (!unit(&c, &u, &l->osz))
		return false;
	l->ver = (unsigned)rd(&u, 2);
	if (l->ver >= 5) {
		l->asz = (unsigned)rd(&u, 1);
		rd(&u, 1);
	}
	hlen = rd(&u, l->osz);
	if (u.bad || l->ver < 2 || l->ver > 5 || hlen > (uint64_t)(u.end - u.p))
		return false;
	h = (struct cur){ u.p, u.p + hlen, false };
	l->prog = (struct cur){ h.end, u.end, false };
	l->min_inst = (unsigned)rd(&h, 1);
	if (l->ver >= 4)
		rd(&h, 1);	/* maximum_operations_per_instruction: VLIW only */
	rd(&h, 1);
	l->line_base = (int8_t)rd(&h, 1);
	l->line_range = (unsigned)rd(&h, 1);
	l->opcode_base = (unsigned)rd(&h, 1);
	l->std = h.p;
	skip(&h, l->opcode_base ? l->opcode_base - 1 : 0);
	l->tabs = h;
	return !h.bad && l->line_range;
}

/* Entry idx of the directory table (files false) or of the file table:
 * its path, and a file's directory in *dir.  DWARF 5 counts both from 0
 * (its directory 0 is the unit's), earlier versions from 1 (0 being the
 * unit's directory, not in the table). */
static const char *lentry(const struct dwline *d, const struct cu *u, const struct lprog *l,
			  bool files, uint64_t idx, uint64_t *dir)
{
	struct cu lc = { .ver = 5, .asz = l->asz ? l->asz : u->asz, .osz = l->osz };
	struct cur c = l->tabs;
	const char *s;
	uint64_t i = 1;

	if (l->ver < 5) {
		while ((s = cstr(&c)) && *s)
			if (!files && i++ == idx)
				return s;
		for (i = 1; files && (s = cstr(&c)) && *s; i++) {
			*dir = uleb(&c);
			uleb(&c);
			uleb(&c);
			if (i == idx)
				return c.bad ? NULL : s;
		}
		return NULL;
	}
	for (int t = 0; t <= files; t++) {
		unsigned nfmt = (unsigned)rd(&c, 1);
		struct cur fmt = c;
		uint64_t count;

		for (unsigned k = 0; k < 2 * nfmt; k++)
			uleb(&c);
		count = uleb(&c);
		for (i = 0; i < count && !c.bad; i++) {
			const uint8_t *was = c.p;
			struct cur f = fmt;

			s = NULL;
			for (unsigned k = 0; k < nfmt && !c.bad; k++) {
				uint64_t type = uleb(&f);
				struct aval v = { uleb(&f), 0 };

				v.v = form_val(&lc, &c, v.form, 0);
				if (type == 1)		/* DW_LNCT_path */
					s = str_of(d, u, &v);
				else if (type == 2)	/* DW_LNCT_directory_index */
					*dir = v.v;
			}
			if (t == files && i == idx)
				return c.bad ? NULL : s;
			if (c.p == was)
				return NULL;	/* entries of no bytes: a bad count */
		}
	}
	return NULL;
}

/* File idx of the table, with its directory, as addr2line joins them. */
static void lpath(const struct dwline *d, const struct cu *u, const char *comp,
		  const struct lprog *l, uint64_t idx, char *buf, size_t len)
{
	uint64_t di = 0, unused;
	const char *f = lentry(d, u, l, true, idx, &di), *dir = NULL;

	buf[0] = '\0';
	if (!f)
		return;
	if (f[0] != '/')
		dir = l->ver < 5 && !di ? comp : lentry(d, u, l, false, di, &unused);
	if (!dir || !*dir)
		snprintf(buf, len, "%s", f);
	else if (di && dir[0] != '/' && comp)
		snprintf(buf, len, "%s/%s/%s", comp, dir, f);
	else
		snprintf(buf, len, "%s/%s", dir, f);
}

/* The row of the line table holding addr: its file and line. */
static bool lrun(const struct lprog *l, uint64_t addr, uint64_t *file, uint64_t *line)
{
	struct cur c = l->prog;
	uint64_t a = 0, f = 1, ln = 1, pa = 0, pf = 0, pl = 0;
	bool prev = false;

	while (!c.bad && c.p < c.end) {
		unsigned op = (unsigned)rd(&c, 1);
		bool emit = false, end = false;

		if (op >= l->opcode_base) {
			op -= l->opcode_base;
			a += op / l->line_range * l->min_inst;
			ln += (uint64_t)(l->line_base + (int)(op % l->line_range));
			emit = true;
		} else if (op == 0) {
			uint64_t n = uleb(&c);
			struct cur e = c;

			skip(&c, n);
			e.end = c.p;
			switch (rd(&e, 1)) {
			case 1:		/* end_sequence */
				emit = end = true;
				break;
			case 2:		/* set_address */
				a = rd(&e, (unsigned)(e.end - e.p));
				break;
			}
		} else if (op == 1) {
			emit = true;
		} else if (op == 2) {
			a += uleb(&c) * l->min_inst;
		} else if (op == 3) {
			ln += (uint64_t)sleb(&c);
		} else if (op == 4) {
			f = uleb(&c);
		} else if (op == 8) {
			a += (255 - l->opcode_base) / l->line_range * l->min_inst;
		} else if (op == 9) {
			a += rd(&c, 2);
		} else {
			for (unsigned k = 0; k < l->std[op - 1]; k++)
				uleb(&c);
		}
		if (!emit || c.bad)
			continue;
		if (prev && pa <= addr && addr < a) {
			*file = pf;
			*line = pl;
			return true;
		}
		prev = !end;
		pa = a;
		pf = f;
		pl = ln;
		if (end) {
			a = 0;
			f = 1;
			ln = 1;
		}
	}
	return false;
}

/* ---- lookups -------------------------------------------------------------------- */

int dwline_lookup(struct dwline *d, uint64_t addr, struct dwline_frame *f, int max)
{
	struct die chain[DWLINE_MAX_FRAMES], top;
	uint64_t file, line;
	struct lprog l;
	const char *comp;
	struct cu u;
	int n, i;

	if (max < 1 || cu_for(d, addr, &u, &top) < 0)
		return 0;
	if (!top.a[A_STMT].form || !lprog_open(d, top.a[A_STMT].v, &l) ||
	    !lrun(&l, addr, &file, &line))
		return 0;
	comp = str_of(d, &u, &top.a[A_COMP_DIR]);
	n = walk(d, &u, addr, chain, DWLINE_MAX_FRAMES);
	if (n < 0)
		goto out;
	/* innermost first: the line table's place, then each call's */
	f[0].line = (uint32_t)line;
	lpath(d, &u, comp, &l, file, f[0].file, sizeof(f[0].file));
	f[0].name = n ? die_name(d, &u, &chain[n - 1]) : NULL;
	for (i = 1; i < n && i < max; i++) {
		const struct die *callee = &chain[n - i];

		f[i].name = die_name(d, &u, &chain[n - 1 - i]);
		f[i].line = (uint32_t)callee->a[A_CALL_LINE].v;
		lpath(d, &u, comp, &l, callee->a[A_CALL_FILE].v, f[i].file, sizeof(f[i].file));
	}
	n = n ? i : 1;
out:
	free(u.abbr);
	return n;
}

int dwline_from(const void *const sec[DWS_N], const size_t len[DWS_N], struct dwline **out)
{
	struct dwline *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	for (int i = 0; i < DWS_N; i++) {
		d->s[i] = sec[i];
		d->n[i] = sec[i] ? len[i] : 0;
	}
	*out = d;
	return 0;
}

int dwline_open(const char *path, struct dwline **out)
{
	static const char *const names[DWS_N] = {
		".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
		".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
		".debug_aranges",
	};
	void *mem[DWS_N];
	size_t len[DWS_N];
	int err = elfsym_sections(path, names, DWS_N, mem, len);

	if (!err && !mem[DWS_LINE])
		err = -ENOENT;
	if (!err)
		err = dwline_from((const void *const *)mem, len, out);
	if (err) {
		for (int i = 0; i < DWS_N; i++)
			free(mem[i]);
		return err;
	}
	memcpy((*out)->mem, mem, sizeof(mem));
	return 0;
}

void dwline_close(struct dwline *d)
{
	if (!d)
		return;
	for (int i = 0; i < DWS_N; i++)
		free(d->mem[i]);
	free(d);
}
