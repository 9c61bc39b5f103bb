// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event-filter expressions evaluated on a record (see expr.h).
 *
 * The evaluator does not re-invent the kernel's matching: every comparison
 * the kernel can do is evaluated here by a transcription of the kernel's
 * own predicate (kernel/trace/trace_events_filter.c, identical in 5.10 and
 * 6.18 for what is used here), on the same record bytes, oddities included:
 * == on char[N] is strncmp(field, pattern, N), and "*abc*" searches the
 * whole array with memcmp(), past the string's NUL.  Where the kernel's
 * predicate answers something other than what the user wrote, the kernel
 * rendering is adjusted (a pattern escaped) and the evaluator runs the
 * adjusted form, so both sides still agree:
 *
 *  - a '~' pattern "*abc" on a fixed char[N] field (and on comm) is the
 *    kernel's "end match", which compares the last bytes of the whole
 *    array, not of the string: "prev_comm ~ \"*zzy\"" never matches
 *    "xyzzy" (verified on 6.18).  ftr writes "*\abc" instead, which makes
 *    the kernel use its real glob_match().
 *  - a '~' pattern starting with a digit is the kernel's "index match" (a
 *    set_ftrace_filter feature that leaks into filters): "1*" is compared
 *    as the literal string "1*".  ftr writes "\1*".
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "filter/expr-int.h"

/* ---- evaluation (hot path: no allocation, no formatting) --------------- */

struct val {
	uint64_t v;
	bool uns;			/* compare and divide as unsigned */
};

static int64_t sext(uint64_t v, int size)
{
	int shift = 64 - 8 * size;

	return size >= 8 ? (int64_t)v : (int64_t)(v << shift) >> shift;
}

static bool rd(const struct expr *x, const struct tep_record *rec, int off, int size,
	       uint64_t *v)
{
	if (off < 0 || size <= 0 || off + size > rec->size)
		return false;
	*v = tep_read_number(x->tep, (const char *)rec->data + off, size);
	return true;
}

static int cur_cpu(const struct tep_record *rec, const struct expr_ctx *ctx)
{
	return ctx && ctx->cpu >= 0 ? ctx->cpu : rec->cpu;
}

/* A string as the kernel's predicate sees it: pointer, its len argument, and
 * how many bytes may be read from it (the rest of the record). */
struct sview {
	const char *s;
	int len;
	size_t avail;
};

static bool get_str(const struct expr *x, const struct node *f, const struct tep_record *rec,
		    const struct expr_ctx *ctx, char comm[K_TASK_COMM_LEN], struct sview *sv)
{
	const char *data = rec->data;
	uint64_t item;
	size_t at;

	switch (f->f.kind) {
	case FK_SSTR:
		if (f->f.offset + f->f.size > rec->size)
			return false;
		sv->s = data + f->f.offset;
		sv->len = f->f.size;
		sv->avail = rec->size - f->f.offset;
		return true;
	case FK_DSTR:
	case FK_RSTR:
		if (!rd(x, rec, f->f.offset, 4, &item))
			return false;
		/* __data_loc: offset from the record start; __rel_loc: from the
		 * end of the locator (filter_pred_strloc/strrelloc) */
		at = (item & 0xffff) + (f->f.kind == FK_RSTR ? f->f.offset + 4 : 0);
		if (at > (size_t)rec->size)
			return false;
		sv->s = data + at;
		sv->len = (int)(item >> 16);
		sv->avail = rec->size - at;
		return true;
	case FK_COMM: {
		const char *c = NULL;
		uint64_t pid;

		memset(comm, 0, K_TASK_COMM_LEN);
		if (ctx && ctx->comm && rd(x, rec, f->f.offset, f->f.size, &pid))
			c = ctx->comm((int)sext(pid, f->f.size), ctx->arg);
		/* task->comm: at most 15 bytes, NUL-padded to TASK_COMM_LEN */
		if (c)
			strncpy(comm, c, K_TASK_COMM_LEN - 1);
		sv->s = comm;
		sv->len = K_TASK_COMM_LEN;
		sv->avail = K_TASK_COMM_LEN;
		return true;
	}
	default:
		return false;
	}
}

/* strncmp(s, pat, n) == 0, reading at most avail bytes of s */
static bool k_strneq(const char *s, size_t avail, const char *pat, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = i < avail ? s[i] : 0;

		if (c != (unsigned char)pat[i])
			return false;
		if (!c)
			return true;
	}
	return true;
}

/* lib/glob.c glob_match(), with the string ending at avail if no NUL comes first */
static bool k_glob(const char *pat, const char *str, size_t avail)
{
	const char *back_pat = NULL;
	size_t i = 0, back_i = 0;

	for (;;) {
		unsigned char c = i < avail ? (unsigned char)str[i] : 0;
		unsigned char d = *pat++;

		i++;
		switch (d) {
		case '?':
			if (c == '\0')
				return false;
			break;
		case '*':
			if (*pat == '\0')
				return true;
			back_pat = pat;
			back_i = --i;
			break;
		case '[': {
			bool match = false, inverted = (*pat == '!');
			const char *class = pat + inverted;
			unsigned char a = *class++;

			do {
				unsigned char b = a;

				if (a == '\0')
					goto literal;
				if (class[0] == '-' && class[1] != ']') {
					b = class[1];
					if (b == '\0')
						goto literal;
					class += 2;
				}
				match |= (a <= c && c <= b);
			} while ((a = *class++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = class;
			break;
		}
		case '\\':
			d = *pat++;
			/* fallthrough */
		default:
literal:
			if (c == d) {
				if (d == '\0')
					return true;
				break;
			}
backtrack:
			if (c == '\0' || !back_pat)
				return false;
			pat = back_pat;
			i = ++back_i;
			break;
		}
	}
}

/* regex_match_{full,front,middle,end,glob}() on the kernel's arguments */
static bool k_match(const struct node *n, const struct sview *sv)
{
	const char *s = sv->s, *pat = n->p.mpat;
	int len = sv->len, plen = n->p.mlen;
	size_t avail = sv->avail;

	switch (n->p.m) {
	case M_FULL:
		/* len 0: "str is dynamic and ends with '\0'": strcmp() */
		return k_strneq(s, avail, pat, len ? (size_t)len : SIZE_MAX);
	case M_FRONT:
		if (len && len < plen)
			return false;
		return k_strneq(s, avail, pat, plen);
	case M_MIDDLE: {
		size_t n_ = len ? (size_t)len : strnlen(s, avail);

		if (!plen)
			return true;
		/* strnstr() compares with memcmp(): it looks past a NUL */
		if (n_ > avail)
			n_ = avail;
		for (; n_ >= (size_t)plen; n_--, s++)
			if (!memcmp(s, pat, plen))
				return true;
		return false;
	}
	case M_END: {
		/* the last plen bytes before len - 1, whatever the string length */
		int slen = len - 1;

		return slen >= plen && (size_t)slen <= avail &&
		       !memcmp(s + slen - plen, pat, plen);
	}
	case M_GLOB:
		return k_glob(pat, s, avail);
	}
	return false;
}

static bool eval_bool(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx);

static struct val eval_num(const struct expr *x, const struct node *n,
			   const struct tep_record *rec, const struct expr_ctx *ctx)
{
	struct val a = { 0, false }, b;
	uint64_t raw;

	switch (n->op) {
	case N_NUM:
		a.v = n->neg ? 0 - n->mag : n->mag;
		a.uns = !n->neg && n->mag > LLONG_MAX;
		return a;
	case N_FIELD:
		if (n->f.kind == FK_CPU) {
			a.v = (uint64_t)(int64_t)cur_cpu(rec, ctx);
		} else if (rd(x, rec, n->f.offset, n->f.size, &raw)) {
			a.v = n->f.sgn ? (uint64_t)sext(raw, n->f.size) : raw;
			a.uns = !n->f.sgn && n->f.size == 8;
		}
		return a;
	case N_NEG:
		a = eval_num(x, n->l, rec, ctx);
		a.v = 0 - a.v;
		return a;
	default:
		break;
	}
	if (!is_arith(n->op) && n->op != N_BAND) {
		a.v = eval_bool(x, n, rec, ctx);
		return a;
	}
	a = eval_num(x, n->l, rec, ctx);
	b = eval_num(x, n->r, rec, ctx);
	a.uns |= b.uns;
	switch (n->op) {
	case N_ADD:
		a.v += b.v;
		break;
	case N_SUB:
		a.v -= b.v;
		break;
	case N_MUL:
		a.v *= b.v;
		break;
	case N_BAND:
		a.v &= b.v;
		break;
	case N_DIV:
	case N_MOD:
		if (!b.v) {
			a.v = 0;
		} else if (a.uns) {
			a.v = n->op == N_DIV ? a.v / b.v : a.v % b.v;
		} else if ((int64_t)a.v == INT64_MIN && (int64_t)b.v == -1) {
			a.v = n->op == N_DIV ? a.v : 0;	/* the one signed overflow */
		} else {
			a.v = n->op == N_DIV ? (uint64_t)((int64_t)a.v / (int64_t)b.v) :
					       (uint64_t)((int64_t)a.v % (int64_t)b.v);
		}
		break;
	default:
		break;
	}
	return a;
}

/* filter_pred_{s,u}{8,16,32,64}() and filter_pred_{8,16,32,64}() */
static bool k_cmp_num(enum nop op, uint64_t raw, int size, bool sgn, uint64_t val)
{
	uint64_t mask = size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
	int64_t sa, sb;

	switch (op) {
	case N_EQ:
		return (raw & mask) == (val & mask);
	case N_NE:
		return (raw & mask) != (val & mask);
	case N_BAND:
		return (raw & val & mask) != 0;
	default:
		break;
	}
	if (sgn) {
		sa = sext(raw, size);
		sb = sext(val, size);
		switch (op) {
		case N_LT: return sa < sb;
		case N_LE: return sa <= sb;
		case N_GT: return sa > sb;
		case N_GE: return sa >= sb;
		default: return false;
		}
	}
	raw &= mask;
	val &= mask;
	switch (op) {
	case N_LT: return raw < val;
	case N_LE: return raw <= val;
	case N_GT: return raw > val;
	case N_GE: return raw >= val;
	default: return false;
	}
}

static bool cmp_vals(enum nop op, struct val a, struct val b)
{
	bool uns = a.uns || b.uns;

	switch (op) {
	case N_EQ: return a.v == b.v;
	case N_NE: return a.v != b.v;
	case N_BAND: return (a.v & b.v) != 0;
	case N_LT: return uns ? a.v < b.v : (int64_t)a.v < (int64_t)b.v;
	case N_LE: return uns ? a.v <= b.v : (int64_t)a.v <= (int64_t)b.v;
	case N_GT: return uns ? a.v > b.v : (int64_t)a.v > (int64_t)b.v;
	case N_GE: return uns ? a.v >= b.v : (int64_t)a.v >= (int64_t)b.v;
	default: return false;
	}
}

static bool eval_pred(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx)
{
	const struct node *f = n->p.fld;
	char comm[K_TASK_COMM_LEN];
	struct sview sv;
	uint64_t raw;
	bool m;

	switch (n->p.type) {
	case P_NUM:
		if (!rd(x, rec, f->f.offset, f->f.size, &raw))
			return false;
		return k_cmp_num(n->p.kop, raw, f->f.size, f->f.sgn, n->p.val);
	case P_CPU:
		/* filter_pred_cpu(): int against (int)val */
		return k_cmp_num(n->p.kop, (uint32_t)cur_cpu(rec, ctx), 4, true, n->p.val);
	case P_STR:
	case P_COMM:
		if (!get_str(x, f, rec, ctx, comm, &sv))
			return false;
		m = k_match(n, &sv) ^ n->p.not;
		return n->op == N_NGLOB ? !m : m;
	case P_GENERIC:
		if (n->op == N_BAND)
			return eval_num(x, n, rec, ctx).v != 0;
		return cmp_vals(n->op, eval_num(x, n->l, rec, ctx), eval_num(x, n->r, rec, ctx));
	default:
		return false;
	}
}

static bool eval_bool(const struct expr *x, const struct node *n, const struct tep_record *rec,
		      const struct expr_ctx *ctx)
{
	char comm[K_TASK_COMM_LEN];
	struct sview sv;

	switch (n->op) {
	case N_AND:
		return eval_bool(x, n->l, rec, ctx) && eval_bool(x, n->r, rec, ctx);
	case N_OR:
		return eval_bool(x, n->l, rec, ctx) || eval_bool(x, n->r, rec, ctx);
	case N_NOT:
		return !eval_bool(x, n->l, rec, ctx);
	case N_FIELD:
		if (is_str_kind(n->f.kind))
			/* as the kernel's f != "": first byte non-NUL */
			return get_str(x, n, rec, ctx, comm, &sv) && sv.avail && sv.s[0];
		return eval_num(x, n, rec, ctx).v != 0;
	default:
		if (is_cmp(n->op))
			return eval_pred(x, n, rec, ctx);
		return eval_num(x, n, rec, ctx).v != 0;
	}
}

bool expr_glob(const char *pat, const char *s, size_t len)
{
	/* The kernel's rule: a pattern starting with '!' matches what the rest
	 * does not. */
	if (*pat == '!')
		return !k_glob(pat + 1, s, len);
	return k_glob(pat, s, len);
}

bool expr_eval(const struct expr *e, const struct tep_record *rec, const struct expr_ctx *ctx)
{
	if (!e || !e->bound || !rec || !rec->data)
		return false;
	return eval_bool(e, e->root, rec, ctx);
}
