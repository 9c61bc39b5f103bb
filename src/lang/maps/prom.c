// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Maps as metrics (prom.h): the Prometheus text format and OpenMetrics,
 * one family per map, its rows from agg_foreach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/maps/prom.h"
#include "report/output.h"

struct series {
	struct agg *off;		/* counts carried from clears and resets */
	struct agg *last;		/* the map as the last render saw it */
	struct agg *view;		/* off + the map: what is shown */
};

struct prom {
	struct prom_map *maps;
	struct series *s;
	int n;
};

static bool is_counter(enum agg_kind k)
{
	return k == AGG_COUNT || k == AGG_SUM || k == AGG_HIST || k == AGG_LHIST;
}

struct prom *prom_alloc(const struct prom_map *maps, int n)
{
	struct prom *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->n = n;
	p->maps = calloc(n ? n : 1, sizeof(*p->maps));
	p->s = calloc(n ? n : 1, sizeof(*p->s));
	if (!p->maps || !p->s)
		goto nomem;
	memcpy(p->maps, maps, n * sizeof(*maps));
	for (int i = 0; i < n; i++) {
		struct series *s = &p->s[i];
		const struct agg *m = maps[i].m;

		if (!m || !is_counter(agg_kind(m)))
			continue;
		s->off = agg_alloc_like(m);
		s->last = agg_alloc_like(m);
		s->view = agg_alloc_like(m);
		if (!s->off || !s->last || !s->view)
			goto nomem;
	}
	return p;
nomem:
	prom_free(p);
	errno = ENOMEM;
	return NULL;
}

void prom_free(struct prom *p)
{
	if (!p)
		return;
	for (int i = 0; p->s && i < p->n; i++) {
		agg_free(p->s[i].off);
		agg_free(p->s[i].last);
		agg_free(p->s[i].view);
	}
	free(p->s);
	free(p->maps);
	free(p);
}

unsigned long long prom_dropped(const struct prom *p)
{
	unsigned long long n = 0;

	for (int i = 0; p && i < p->n; i++)
		n += agg_dropped(p->s[i].off);
	return n;
}

void prom_clearing(struct prom *p, int i)
{
	if (!p || i < 0 || i >= p->n || !p->s[i].off)
		return;
	agg_merge(p->s[i].off, p->maps[i].m);
	agg_clear(p->s[i].last);
}

void prom_deleting(struct prom *p, int i, const struct agg_kpart *keys)
{
	struct agg_row r;

	if (!p || i < 0 || i >= p->n || !p->s[i].off)
		return;
	if (agg_lookup_row(p->maps[i].m, keys, &r) == 0)
		agg_merge_row(p->s[i].off, &r);
	agg_delete(p->s[i].last, keys);
}

/* ---- names and escaping ------------------------------------------------------ */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

void prom_metric_name(const char *map, char *out, size_t len)
{
	const char *s = map[0] == '@' ? map + 1 : map;
	size_t o;

	o = (size_t)snprintf(out, len, "ftr_%s", *s ? s : "map");
	for (size_t i = 4; i < o && i < len; i++)
		if (!name_char(out[i], false))
			out[i] = '_';
}

/* A map's family as the text format names it, _total stripped from a
 * counter's (render_map adds it back), so that names compare as families. */
static void family_key(const struct prom_map *pm, char *out, size_t len)
{
	size_t bl;

	prom_metric_name(agg_name(pm->m), out, len);
	bl = strlen(out);
	if (bl > 6 && !strcmp(out + bl - 6, "_total"))
		out[bl - 6] = '\0';
}

int prom_check_names(const struct prom_map *maps, int n, char *why, size_t len)
{
	for (int i = 0; i < n; i++) {
		char a[160];

		if (!maps[i].m)
			continue;
		family_key(&maps[i], a, sizeof(a));
		for (int j = 0; j < i; j++) {
			char b[160];

			if (!maps[j].m)
				continue;
			family_key(&maps[j], b, sizeof(b));
			if (!strcmp(a, b)) {
				snprintf(why, len, "maps %s and %s both export as the metric '%s': "
					 "rename one", agg_name(maps[j].m), agg_name(maps[i].m), a);
				return -EEXIST;
			}
		}
	}
	return 0;
}

bool prom_label_ok(const char *s)
{
	if (!s || !*s || !strncmp(s, "__", 2))
		return false;
	for (const char *c = s; *c; c++)
		if (!name_char(*c, c == s))
			return false;
	return true;
}

/* A label value: \\, \" and \n escaped; bytes that are not UTF-8 (a comm
 * may hold any) as the text \xHH, which Prometheus keeps as it is. */
static void put_value(struct outbuf *ob, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			     (c & 0xf8) == 0xf0 ? 4 : 0;
		bool ok = len && i + len <= n;

		for (size_t j = 1; ok && j < len; j++)
			ok = ((unsigned char)s[i + j] & 0xc0) == 0x80;
		/* overlong forms and surrogates are not UTF-8 either */
		if (ok && len == 2 && c < 0xc2)
			ok = false;
		if (ok && len == 3 && ((c == 0xe0 && (unsigned char)s[i + 1] < 0xa0) ||
				       (c == 0xed && (unsigned char)s[i + 1] >= 0xa0)))
			ok = false;
		if (ok && len == 4 && ((c == 0xf0 && (unsigned char)s[i + 1] < 0x90) || c > 0xf4 ||
				       (c == 0xf4 && (unsigned char)s[i + 1] >= 0x90)))
			ok = false;
		if (!ok) {
			static const char hex[] = "0123456789abcdef";
			char esc[6] = { '\\', '\\', 'x', hex[c >> 4], hex[c & 15] };

			ob_write(ob, esc, 5);
			continue;
		}
		if (c == '\\' || c == '"')
			ob_putc(ob, '\\');
		if (c == '\n') {
			ob_write(ob, "\\n", 2);
			continue;
		}
		ob_write(ob, s + i, len);
		i += len - 1;
	}
}

static void put_help(struct outbuf *ob, const char *s, enum prom_fmt fmt)
{
	for (; s && *s; s++) {
		if (*s == '\\' || (*s == '"' && fmt == PROM_OPENMETRICS))
			ob_putc(ob, '\\');
		if (*s == '\n')
			ob_write(ob, "\\n", 2);
		else
			ob_putc(ob, *s);
	}
}

/* ---- rendering ----------------------------------------------------------------- */

struct render {
	struct outbuf *ob;
	const struct prom_map *pm;
	const struct agg *m;
	enum prom_fmt fmt;
	const char *base;		/* ftr_bytes */
	const char *sample;		/* counters: ftr_bytes_total */
	char labels[AGG_MAX_KEYS][64];
	int err;
};

/* {k1="v1",k2="v2"[,extra]} or nothing. */
static int put_labels(struct render *x, const struct agg_row *r, const char *extra,
		      const char *extra_v)
{
	struct agg_print_opts po = { .sym = x->pm->sym, .sym_arg = x->pm->sym_arg };
	int n = agg_nkeys(x->m);

	if (!n && !extra)
		return 0;
	ob_putc(x->ob, '{');
	for (int i = 0; i < n; i++) {
		char *v = agg_key_text(agg_ktype(x->m, i), &r->keys[i], &po);

		if (!v)
			return -ENOMEM;
		ob_puts(x->ob, x->labels[i]);
		ob_write(x->ob, "=\"", 2);
		put_value(x->ob, v, strlen(v));
		ob_putc(x->ob, '"');
		if (i + 1 < n || extra)
			ob_putc(x->ob, ',');
		free(v);
	}
	if (extra) {
		ob_puts(x->ob, extra);
		ob_write(x->ob, "=\"", 2);
		ob_puts(x->ob, extra_v);
		ob_putc(x->ob, '"');
	}
	ob_putc(x->ob, '}');
	return 0;
}

static void put_int(struct outbuf *ob, const struct agg *m, int64_t v)
{
	if (agg_unsigned(m))
		ob_u64(ob, (uint64_t)v);
	else
		ob_s64(ob, v);
}

static int sample(struct render *x, const char *suffix, const struct agg_row *r,
		  const char *extra, const char *extra_v)
{
	ob_puts(x->ob, x->base);
	ob_puts(x->ob, suffix);
	return put_labels(x, r, extra, extra_v);
}

static int hist_row(struct render *x, const struct agg_row *r)
{
	int lo = -1, hi = -1, nb = r->nbuckets;
	uint64_t cum = 0;
	char le[48];

	for (int b = 0; b < nb; b++)
		if (r->buckets[b]) {
			if (lo < 0)
				lo = b;
			hi = b;
		}
	/* From the empty bucket below the lowest one used (histogram_quantile
	 * takes 0 as the lower bound of the first bucket shown), to the
	 * highest one used. */
	for (int b = lo > 0 ? lo - 1 : 0; lo >= 0 && b <= hi; b++) {
		wide_t max;

		cum += r->buckets[b];
		if (agg_bucket_max(x->m, b, &max) < 0)
			continue;	/* lhist's [max, ...): +Inf below */
		if (max < 0)
			snprintf(le, sizeof(le), "-%llu", (unsigned long long)-max);
		else
			snprintf(le, sizeof(le), "%llu", (unsigned long long)max);
		if (sample(x, "_bucket", r, "le", le) < 0)
			return -ENOMEM;
		ob_putc(x->ob, ' ');
		ob_u64(x->ob, cum);
		ob_putc(x->ob, '\n');
	}
	if (sample(x, "_bucket", r, "le", "+Inf") < 0)
		return -ENOMEM;
	ob_putc(x->ob, ' ');
	ob_u64(x->ob, r->count);
	ob_putc(x->ob, '\n');
	/* OpenMetrics: a sum that can go down is no counter; left out. */
	if (x->fmt == PROM_TEXT || r->sum128 >= 0) {
		if (sample(x, "_sum", r, NULL, NULL) < 0)
			return -ENOMEM;
		ob_putc(x->ob, ' ');
		ob_s128(x->ob, r->sum128);
		ob_putc(x->ob, '\n');
	}
	if (sample(x, "_count", r, NULL, NULL) < 0)
		return -ENOMEM;
	ob_putc(x->ob, ' ');
	ob_u64(x->ob, r->count);
	ob_putc(x->ob, '\n');
	return 0;
}

static int row(const struct agg_row *r, void *arg)
{
	struct render *x = arg;
	const struct agg *m = x->m;
	static const char *const stat[] = { "count", "average", "total" };

	switch (agg_kind(m)) {
	case AGG_COUNT:
	case AGG_SUM:
		ob_puts(x->ob, x->sample);
		if (put_labels(x, r, NULL, NULL) < 0)
			return x->err = -ENOMEM;
		ob_putc(x->ob, ' ');
		if (agg_kind(m) == AGG_COUNT)
			ob_u64(x->ob, r->count);
		else
			ob_s128(x->ob, r->sum128);
		ob_putc(x->ob, '\n');
		break;
	case AGG_HIST:
	case AGG_LHIST:
		if (hist_row(x, r) < 0)
			return x->err = -ENOMEM;
		break;
	case AGG_STATS:
		for (int i = 0; i < 3; i++) {
			if (sample(x, "", r, "stat", stat[i]) < 0)
				return x->err = -ENOMEM;
			ob_putc(x->ob, ' ');
			if (i == 0)
				ob_u64(x->ob, r->count);
			else if (i == 1)	/* bpftrace's: the truncated quotient */
				ob_s128(x->ob, r->count ? r->sum128 / (wide_t)r->count : 0);
			else
				ob_s128(x->ob, r->sum128);
			ob_putc(x->ob, '\n');
		}
		break;
	default:
		if (sample(x, "", r, NULL, NULL) < 0)
			return x->err = -ENOMEM;
		ob_putc(x->ob, ' ');
		put_int(x->ob, m, r->value);
		ob_putc(x->ob, '\n');
		break;
	}
	return 0;
}

/* A series's count went down since the last render, or it went: what the
 * last render showed is carried. */
struct carry {
	struct agg *off;
	const struct agg *m;
};

static int carry_row(const struct agg_row *r, void *arg)
{
	struct carry *c = arg;
	struct agg_row cur;

	if (agg_lookup_row(c->m, r->keys, &cur) < 0 || cur.count < r->count)
		agg_merge_row(c->off, r);
	return 0;
}

static int render_map(struct prom *p, int i, enum prom_fmt fmt, struct outbuf *ob)
{
	const struct prom_map *pm = &p->maps[i];
	struct series *s = &p->s[i];
	const struct agg *shown = pm->m;
	enum agg_kind k = agg_kind(pm->m);
	char base[160], total[176];
	const char *family = base, *type = "gauge";
	struct render x = { .ob = ob, .pm = pm, .m = pm->m, .fmt = fmt, .base = base,
			    .sample = base };
	size_t bl;

	prom_metric_name(agg_name(pm->m), base, sizeof(base));
	for (int j = 0; j < agg_nkeys(pm->m); j++) {
		const char *want = pm->labels[j];
		bool ok = prom_label_ok(want) && strlen(want) < sizeof(x.labels[j]) &&
			  strcmp(want, "le") && strcmp(want, "stat");

		for (int q = 0; ok && q < j; q++)
			ok = strcmp(x.labels[q], want) != 0;
		if (ok)
			snprintf(x.labels[j], sizeof(x.labels[j]), "%s", want);
		else
			snprintf(x.labels[j], sizeof(x.labels[j]), "key%d", j + 1);
	}
	if (s->off) {
		struct carry c = { s->off, pm->m };

		agg_foreach(s->last, carry_row, &c);
		agg_clear(s->last);
		agg_merge(s->last, pm->m);
		agg_clear(s->view);
		agg_merge(s->view, s->off);
		agg_merge(s->view, pm->m);
		shown = s->view;
		x.m = shown;
	}
	if (k == AGG_COUNT || k == AGG_SUM) {
		/* The text format names the family as its samples
		 * (ftr_x_total); OpenMetrics without the _total. */
		type = "counter";
		bl = strlen(base);
		if (bl > 6 && !strcmp(base + bl - 6, "_total"))
			base[bl - 6] = '\0';
		snprintf(total, sizeof(total), "%s_total", base);
		x.sample = total;
		family = fmt == PROM_TEXT ? total : base;
	} else if (k == AGG_HIST || k == AGG_LHIST) {
		type = "histogram";
	}
	ob_write(ob, "# HELP ", 7);
	ob_puts(ob, family);
	ob_putc(ob, ' ');
	put_help(ob, pm->help, fmt);
	ob_write(ob, "\n# TYPE ", 8);
	ob_puts(ob, family);
	ob_putc(ob, ' ');
	ob_puts(ob, type);
	ob_putc(ob, '\n');
	/* A keyless counter or histogram is 0 before its first event. */
	if (!agg_nkeys(pm->m) && !agg_entries(shown) && is_counter(k)) {
		struct agg_row zero = { .count = 0 };
		uint64_t none[1] = { 0 };

		zero.buckets = none;
		zero.nbuckets = 0;
		return row(&zero, &x) ? x.err : 0;
	}
	agg_foreach(shown, row, &x);
	return x.err;
}

int prom_render(struct prom *p, enum prom_fmt fmt, struct outbuf *ob)
{
	for (int i = 0; i < p->n; i++) {
		int err;

		if (!p->maps[i].m)
			continue;
		err = render_map(p, i, fmt, ob);
		if (err)
			return err;
	}
	if (fmt == PROM_OPENMETRICS)
		ob_write(ob, "# EOF\n", 6);
	return ob->err;
}
