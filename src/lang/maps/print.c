// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Maps printed as bpftrace prints them: keys, values, histograms with their
 * bars, stacks with their frames; as text, as ftr's JSON and as bpftrace's
 * -f json (see agg.h).  The table itself is agg.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "lang/maps/agg-int.h"
#include "report/output.h"

/* ---- printing ------------------------------------------------------------------- */

static void ob_val(struct outbuf *ob, const struct agg *m, int64_t v)
{
	if (m->is_unsigned)
		ob_u64(ob, (uint64_t)v);
	else
		ob_s64(ob, v);
}

/* Frame fr of a stack key, named: 0, or > 0 when it prints as nothing. */
static int frame_name(const struct agg_print_opts *o, const struct agg_kpart *k, uint32_t fr,
		      char *buf, size_t len)
{
	uint64_t ip = agg_key_ip(k, fr);
	int r = o->sym ? o->sym(ip, fr, 0, buf, len, o->sym_arg) : -1;

	if (r < 0)
		snprintf(buf, len, "0x%llx", (unsigned long long)ip);
	return r > 0;
}

/* An address as bpftrace's perf mode prints it: hex digits, no 0x. */
static void ob_hex_bare(struct outbuf *ob, uint64_t v)
{
	char b[20];

	snprintf(b, sizeof(b), "%llx", (unsigned long long)v);
	ob_puts(ob, b);
}

void agg_print_stack(struct outbuf *ob, const uint64_t *ips, uint32_t n, int mode, agg_sym_fn sym,
		     void *arg)
{
	/* bpftrace's: each frame indented 8; perf's: a tab, the address in
	 * hex, the frame (a user frame with its file); raw: the address
	 * alone; build ids: a user frame's file's build id and file offset,
	 * else the address.  User frames' source lines (AGG_SYM_LINES) in
	 * bpftrace's mode and perf's. */
	static const unsigned how[] = { 0, AGG_SYM_PERF, AGG_SYM_MARK, AGG_SYM_BUILD_ID };
	char name[2048];

	ob_putc(ob, '\n');
	for (uint32_t f = 0; f < n; f++) {
		unsigned h = mode >= 0 && mode < (int)ARRAY_SIZE(how) ? how[mode] : 0;
		int r = sym ? sym(ips[f], f, h | (h & ~AGG_SYM_PERF ? 0 : AGG_SYM_LINES), name,
				  sizeof(name), arg) : -1;
		char *line = name, *nl;

		if (r > 0)
			continue;
		if (r < 0 && (h & (AGG_SYM_MARK | AGG_SYM_BUILD_ID)))
			snprintf(name, sizeof(name), "%llx", (unsigned long long)ips[f]);
		else if (r < 0)
			snprintf(name, sizeof(name), "0x%llx", (unsigned long long)ips[f]);
		/* a frame with functions inlined at it is a printed line each */
		do {
			nl = strchr(line, '\n');
			if (nl)
				*nl = '\0';
			if (h & AGG_SYM_PERF) {
				ob_putc(ob, '\t');
				ob_hex_bare(ob, ips[f]);
				ob_putc(ob, ' ');
			} else if (!h) {
				ob_write(ob, "        ", 8);
			}
			ob_puts(ob, line);
			ob_putc(ob, '\n');
			line = nl + 1;
		} while (nl);
	}
}

/* A stack key as one string: its frames joined by ';', innermost first
 * (malloc'd; NULL when out of memory). */
static char *stack_text(const struct agg_kpart *k, const struct agg_print_opts *o)
{
	char sym[512], *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	bool first = true;

	for (uint32_t fr = 0; f && fr < k->stack.n; fr++) {
		if (frame_name(o, k, fr, sym, sizeof(sym)))
			continue;
		fprintf(f, "%s%s", first ? "" : ";", sym);
		first = false;
	}
	if (f)
		fclose(f);
	return buf;
}

char *agg_key_text(enum agg_ktype t, const struct agg_kpart *k, const struct agg_print_opts *o)
{
	char *s = NULL;

	switch (t) {
	case AGG_K_INT:
		return asprintf(&s, "%lld", (long long)k->i) < 0 ? NULL : s;
	case AGG_K_UINT:
		return asprintf(&s, "%llu", (unsigned long long)k->u) < 0 ? NULL : s;
	case AGG_K_HEX:
		return asprintf(&s, "0x%llx", (unsigned long long)k->u) < 0 ? NULL : s;
	case AGG_K_STR:
	case AGG_K_JSON:
		return strndup(k->str.p, k->str.len);
	case AGG_K_STACK:
		return stack_text(k, o);
	}
	return NULL;
}

/* One key part as bpftrace prints it inside @name[...]. */
static void text_part(struct outbuf *ob, enum agg_ktype t, const struct agg_kpart *k,
		      const struct agg_print_opts *o)
{
	switch (t) {
	case AGG_K_INT:
		ob_s64(ob, k->i);
		break;
	case AGG_K_UINT:
		ob_u64(ob, k->u);
		break;
	case AGG_K_HEX:
		ob_hex(ob, k->u);
		break;
	case AGG_K_STR:
		ob_lang_str(ob, k->str.p, k->str.len);
		break;
	case AGG_K_JSON:
		ob_text_str(ob, k->str.p, k->str.len);
		break;
	case AGG_K_STACK:
		agg_print_stack(ob, k->stack.ips, k->stack.n, o->stack_mode, o->sym, o->sym_arg);
		break;
	}
}

static void text_key(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		     const struct agg_print_opts *o)
{
	ob_puts(ob, m->name);
	if (!m->nkeys)
		return;
	ob_putc(ob, '[');
	for (int i = 0; i < m->nkeys; i++) {
		const char *name = o && o->key_name && (m->ktypes[i] == AGG_K_INT ||
							m->ktypes[i] == AGG_K_UINT) ?
				   o->key_name(i, r->keys[i].i, o->key_name_arg) : NULL;

		if (i)
			ob_write(ob, ", ", 2);
		if (name)
			ob_puts(ob, name);
		else
			text_part(ob, m->ktypes[i], &r->keys[i], o);
	}
	ob_putc(ob, ']');
}

static void text_hist(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		      const struct agg_print_opts *o)
{
	int lo = -1, hi = -1;
	uint64_t max = 0;
	char label[64], line[160];

	for (int i = 0; i < r->nbuckets; i++) {
		if (r->buckets[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
		if (r->buckets[i] > max)
			max = r->buckets[i];
	}
	for (int i = lo; lo >= 0 && i <= hi; i++) {
		uint64_t c = r->buckets[i];
		/* bpftrace computes the bar in float: keep its rounding */
		int bar = (int)((float)c / (float)max * 52);
		char bars[53];

		if (m->kind == AGG_HIST)
			agg_hist_label(i, m->hist_k, label, sizeof(label));
		else
			agg_lhist_label(i, m->lmin, m->lmax, m->lstep, label, sizeof(label));
		memset(bars, '@', bar);
		bars[bar] = '\0';
		snprintf(line, sizeof(line), "%-16s%8llu |%-52s|\n", label, (unsigned long long)c, bars);
		ob_puts(ob, line);
	}
	if (!o->no_summary && r->count) {
		struct agg_hist_stats st;
		char p50[40], p90[40], p99[40];

		agg_hist_stats(r->buckets, r->nbuckets, r->count, r->sum128, &st);
		agg_pct_label(m, st.p50, p50, sizeof(p50));
		agg_pct_label(m, st.p90, p90, sizeof(p90));
		agg_pct_label(m, st.p99, p99, sizeof(p99));
		ob_puts(ob, "count ");
		ob_u64(ob, st.count);
		ob_puts(ob, ", sum ");
		ob_s128(ob, st.sum);
		ob_puts(ob, ", mean ");
		ob_s128(ob, st.mean);
		if (st.modes == 2)
			ob_puts(ob, " (2 modes: a mean over them describes neither)");
		else if (st.modes > 2)
			snprintf(line, sizeof(line), " (%d modes: a mean over them describes none of them)",
				 st.modes), ob_puts(ob, line);
		ob_puts(ob, ", p50 ");
		ob_puts(ob, p50);
		ob_puts(ob, ", p90 ");
		ob_puts(ob, p90);
		ob_puts(ob, ", p99 ");
		ob_puts(ob, p99);
		ob_putc(ob, '\n');
	}
}

struct print_ctx {
	const struct agg *m;
	struct outbuf *ob;
	const struct agg_print_opts *o;
	bool json_first;
	uint64_t ts_last;		/* TSERIES: the latest epoch of any entry */
};

static void json_part(struct outbuf *ob, enum agg_ktype t, const struct agg_kpart *k,
		      const struct agg_print_opts *o, bool as_string);

/* A value map whose numbers stand for strings or stacks (opts->value): the
 * value printed as such a key part is.  false: print the number. */
static bool value_part(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		       const struct agg_print_opts *o, bool json)
{
	struct agg_kpart k;
	int t;

	if (m->kind != AGG_VALUE || !o || !o->value)
		return false;
	t = o->value(r->value, &k, o->value_arg);
	if (t < 0)
		return false;
	if (json)
		json_part(ob, (enum agg_ktype)t, &k, o, false);
	else
		text_part(ob, (enum agg_ktype)t, &k, o);
	return true;
}

/* The number of a count, sum, avg, min, max or store, divided by print()'s
 * div: the same in text and in bpftrace's JSON. */
static void num_value(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		      const struct agg_print_opts *o)
{
	if (m->kind == AGG_COUNT)
		ob_u64(ob, o->div ? r->count / o->div : r->count);
	else if (o->div && m->is_unsigned)
		ob_u64(ob, (uint64_t)r->value / o->div);
	else if (o->div)
		ob_s64(ob, r->value / (int64_t)o->div);
	else
		ob_val(ob, m, r->value);
}

static int text_row(const struct agg_row *r, void *arg)
{
	struct print_ctx *c = arg;
	const struct agg *m = c->m;
	struct outbuf *ob = c->ob;

	text_key(ob, m, r, c->o);
	switch (m->kind) {
	case AGG_TSERIES:
		ob_puts(ob, ":\n");
		agg_ts_text(ob, r->buckets, &m->ts, c->ts_last);
		ob_putc(ob, '\n');
		return 0;
	case AGG_HIST:
	case AGG_LHIST:
		ob_puts(ob, ":\n");
		text_hist(ob, m, r, c->o);
		ob_putc(ob, '\n');
		return 0;
	case AGG_STATS:
		/* as bpftrace prints them today (0.17: count 3, average 2, ...) */
		ob_puts(ob, ": { .count = ");
		ob_u64(ob, r->count);
		ob_puts(ob, ", .average = ");
		ob_val(ob, m, agg_avg_of(m, r->sum128, r->count));
		ob_puts(ob, ", .total = ");
		ob_val(ob, m, r->sum);
		ob_puts(ob, " }");
		break;
	default:
		ob_puts(ob, ": ");
		if (!value_part(ob, m, r, c->o, false))
			num_value(ob, m, r, c->o);
		break;
	}
	ob_putc(ob, '\n');
	return 0;
}

/* The rows in print order, each by row(): text, ftr's JSON, bpftrace's. */
static int print_rows(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts,
		      int (*row)(const struct agg_row *r, void *arg))
{
	static const struct agg_print_opts none;
	struct print_ctx c = { m, ob, opts ? opts : &none, true, 0 };
	int err;

	for (uint32_t s = 0; m->kind == AGG_TSERIES && s <= m->mask; s++) {
		uint64_t e;

		if (m->index[s] && agg_ts_latest(&m->bk[(size_t)(m->index[s] - 1) * m->nbuckets],
						 &m->ts, &e) && e > c.ts_last)
			c.ts_last = e;
	}
	err = agg_foreach_ordered(m, c.o, row, &c);

	return err ? err : ob->err;
}

int agg_print(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts)
{
	return m && ob ? print_rows(m, ob, opts, text_row) : -EINVAL;
}

/* ---- JSON -------------------------------------------------------------------- */

static void json_part(struct outbuf *ob, enum agg_ktype t, const struct agg_kpart *k,
		      const struct agg_print_opts *o, bool as_string)
{
	switch (t) {
	case AGG_K_INT:
		if (as_string)
			ob_putc(ob, '"');
		ob_s64(ob, k->i);
		if (as_string)
			ob_putc(ob, '"');
		break;
	case AGG_K_UINT:
		if (as_string)
			ob_putc(ob, '"');
		ob_u64(ob, k->u);
		if (as_string)
			ob_putc(ob, '"');
		break;
	case AGG_K_HEX:
		/* JSON has no hex numbers */
		ob_putc(ob, '"');
		ob_hex(ob, k->u);
		ob_putc(ob, '"');
		break;
	case AGG_K_STR:
	case AGG_K_JSON:
		ob_json_str(ob, k->str.p, k->str.len);
		break;
	case AGG_K_STACK:
		if (as_string) {
			/* an object key must be a string */
			char *buf = stack_text(k, o);

			ob_json_str(ob, buf ? buf : "", buf ? strlen(buf) : 0);
			free(buf);
		} else {
			bool first = true;

			ob_putc(ob, '[');
			for (uint32_t fr = 0; fr < k->stack.n; fr++) {
				char sym[512];

				if (frame_name(o, k, fr, sym, sizeof(sym)))
					continue;
				if (!first)
					ob_write(ob, ", ", 2);
				ob_json_str(ob, sym, strlen(sym));
				first = false;
			}
			ob_putc(ob, ']');
		}
		break;
	}
}

static void json_pct(struct outbuf *ob, const struct agg *m, int b)
{
	if (b < 0 || b == 0) {
		ob_puts(ob, "null");	/* unknown, or below every bound */
	} else if (m->kind == AGG_HIST) {
		ob_u64(ob, agg_hist_end(b - 1, m->hist_k, NULL, 0));
	} else if (b > m->nbuckets - 2) {
		ob_s64(ob, m->lmax);
	} else {
		ob_s64(ob, m->lmin + (int64_t)(b - 1) * m->lstep);
	}
}

/* The buckets from the first used to the last used, as bpftrace lists them:
 * [{"min": 4, "max": 7, "count": 1}, ...] (both formats). */
static void json_buckets(struct outbuf *ob, const struct agg *m, const struct agg_row *r)
{
	int lo = -1, hi = -1;
	bool first = true;

	for (int i = 0; i < r->nbuckets; i++) {
		if (r->buckets[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
		}
	}
	ob_putc(ob, '[');
	for (int i = lo; lo >= 0 && i <= hi; i++) {
		if (!first)
			ob_write(ob, ", ", 2);
		first = false;
		ob_putc(ob, '{');
		if (m->kind == AGG_HIST) {
			if (i == 0) {
				ob_puts(ob, "\"max\": -1");
			} else {
				ob_puts(ob, "\"min\": ");
				ob_u64(ob, agg_hist_end(i - 1, m->hist_k, NULL, 0));
				ob_puts(ob, ", \"max\": ");
				ob_u64(ob, agg_hist_end(i, m->hist_k, NULL, 0) - 1);
			}
		} else {
			int nb = m->nbuckets - 2;

			if (i == 0) {
				ob_puts(ob, "\"max\": ");
				ob_s64(ob, m->lmin - 1);
			} else if (i > nb) {
				ob_puts(ob, "\"min\": ");
				ob_s64(ob, m->lmax);
			} else {
				ob_puts(ob, "\"min\": ");
				ob_s64(ob, m->lmin + (int64_t)(i - 1) * m->lstep);
				ob_puts(ob, ", \"max\": ");
				ob_s64(ob, m->lmin + (int64_t)i * m->lstep - 1);
			}
		}
		ob_puts(ob, ", \"count\": ");
		ob_u64(ob, r->buckets[i]);
		ob_putc(ob, '}');
	}
	ob_putc(ob, ']');
}

static void json_hist(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		      const struct agg_print_opts *o)
{
	ob_puts(ob, "{\"buckets\": ");
	json_buckets(ob, m, r);
	ob_puts(ob, ", \"count\": ");
	ob_u64(ob, r->count);
	ob_puts(ob, ", \"sum\": ");
	ob_s128(ob, r->sum128);
	if (!o->no_summary) {
		struct agg_hist_stats st;

		agg_hist_stats(r->buckets, r->nbuckets, r->count, r->sum128, &st);
		ob_puts(ob, ", \"mean\": ");
		ob_s128(ob, st.mean);
		ob_puts(ob, ", \"p50\": ");
		json_pct(ob, m, st.p50);
		ob_puts(ob, ", \"p90\": ");
		json_pct(ob, m, st.p90);
		ob_puts(ob, ", \"p99\": ");
		json_pct(ob, m, st.p99);
		ob_puts(ob, ", \"modes\": ");
		ob_u64(ob, st.modes);
	}
	ob_putc(ob, '}');
}

static void json_value(struct outbuf *ob, const struct agg *m, const struct agg_row *r,
		       const struct agg_print_opts *o)
{
	switch (m->kind) {
	case AGG_HIST:
	case AGG_LHIST:
		json_hist(ob, m, r, o);
		break;
	case AGG_STATS:
		ob_puts(ob, "{\"count\": ");
		ob_u64(ob, r->count);
		ob_puts(ob, ", \"average\": ");
		ob_val(ob, m, agg_avg_of(m, r->sum128, r->count));
		ob_puts(ob, ", \"total\": ");
		ob_val(ob, m, r->sum);
		ob_putc(ob, '}');
		break;
	case AGG_COUNT:
		ob_u64(ob, r->count);
		break;
	default:
		if (!value_part(ob, m, r, o, true))
			ob_val(ob, m, r->value);
		break;
	}
}

/* ftr's JSON of a row's value; a time series as bpftrace's array */
static void json_row_value(const struct print_ctx *c, const struct agg_row *r)
{
	if (c->m->kind == AGG_TSERIES)
		agg_ts_json(c->ob, r->buckets, &c->m->ts, c->ts_last);
	else
		json_value(c->ob, c->m, r, c->o);
}

static int json_row(const struct agg_row *r, void *arg)
{
	struct print_ctx *c = arg;
	const struct agg *m = c->m;
	struct outbuf *ob = c->ob;

	if (!c->json_first)
		ob_write(ob, ", ", 2);
	c->json_first = false;
	if (m->nkeys == 1) {
		json_part(ob, m->ktypes[0], &r->keys[0], c->o, true);
		ob_puts(ob, ": ");
		json_row_value(c, r);
	} else if (m->nkeys > 1) {
		ob_puts(ob, "{\"key\": [");
		for (int i = 0; i < m->nkeys; i++) {
			if (i)
				ob_write(ob, ", ", 2);
			json_part(ob, m->ktypes[i], &r->keys[i], c->o, false);
		}
		ob_puts(ob, "], \"value\": ");
		json_row_value(c, r);
		ob_putc(ob, '}');
	} else {
		json_row_value(c, r);
	}
	return 0;
}

int agg_print_json(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts)
{
	int err;

	if (!m || !ob)
		return -EINVAL;
	ob_putc(ob, '{');
	ob_json_str(ob, m->name, strlen(m->name));
	ob_puts(ob, ": ");
	if (m->nkeys == 1)
		ob_putc(ob, '{');
	else if (m->nkeys > 1)
		ob_putc(ob, '[');
	else if (!m->n)
		ob_puts(ob, "null");
	err = print_rows(m, ob, opts, json_row);
	if (m->nkeys == 1)
		ob_putc(ob, '}');
	else if (m->nkeys > 1)
		ob_putc(ob, ']');
	ob_puts(ob, "}\n");
	return err ? err : ob->err;
}

/* ---- bpftrace's -f json ---------------------------------------------------------- */

/* A key part, or a string or stack value, as bpftrace's JSON writes it in a
 * string: a stack as a newline, then its frames one a line, indented by
 * indent (4 in a key, 8 in a value, as bpftrace 0.17); anything else as
 * agg_key_text.  malloc'd; NULL when out of memory. */
static char *bt_text(enum agg_ktype t, const struct agg_kpart *k, const struct agg_print_opts *o,
		     int indent)
{
	char sym[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (t != AGG_K_STACK)
		return agg_key_text(t, k, o);
	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputc('\n', f);
	for (uint32_t fr = 0; fr < k->stack.n; fr++)
		if (!frame_name(o, k, fr, sym, sizeof(sym)))
			fprintf(f, "%*s%s\n", indent, "", sym);
	fclose(f);
	return buf;
}

static void bt_str(struct outbuf *ob, char *s)
{
	ob_json_str(ob, s ? s : "", s ? strlen(s) : 0);
	free(s);
}

static int bt_row(const struct agg_row *r, void *arg)
{
	struct print_ctx *c = arg;
	const struct agg *m = c->m;
	struct outbuf *ob = c->ob;
	struct agg_kpart k;
	int t;

	if (!c->json_first)
		ob_write(ob, ", ", 2);
	c->json_first = false;
	if (m->nkeys) {
		/* the parts joined by ',' in one string: "1,x" */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		for (int i = 0; f && i < m->nkeys; i++) {
			char *p = bt_text(m->ktypes[i], &r->keys[i], c->o, 4);

			fprintf(f, "%s%s", i ? "," : "", p ? p : "");
			free(p);
		}
		if (f)
			fclose(f);
		bt_str(ob, buf);
		ob_puts(ob, ": ");
	}
	switch (m->kind) {
	case AGG_TSERIES:
		agg_ts_json(ob, r->buckets, &m->ts, c->ts_last);
		break;
	case AGG_HIST:
	case AGG_LHIST:
		json_buckets(ob, m, r);
		break;
	case AGG_STATS:
		json_value(ob, m, r, c->o);
		break;
	default:
		t = m->kind == AGG_VALUE && c->o->value ? c->o->value(r->value, &k, c->o->value_arg) : -1;
		if (t == AGG_K_JSON)
			ob_write(ob, k.str.p, k.str.len);
		else if (t >= 0)
			bt_str(ob, bt_text((enum agg_ktype)t, &k, c->o, 8));
		else
			num_value(ob, m, r, c->o);
		break;
	}
	return 0;
}

int agg_print_bt_json(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts)
{
	int err;

	if (!m || !ob)
		return -EINVAL;
	if (!m->n)
		return 0;
	ob_puts(ob, m->kind == AGG_TSERIES ? "{\"type\": \"tseries\"" :
		    m->kind == AGG_HIST || m->kind == AGG_LHIST ? "{\"type\": \"hist\"" :
		    m->kind == AGG_STATS || m->kind == AGG_AVG ? "{\"type\": \"stats\"" :
		    "{\"type\": \"map\"");
	ob_puts(ob, ", \"data\": {");
	ob_json_str(ob, m->name, strlen(m->name));
	ob_puts(ob, ": ");
	if (m->nkeys)
		ob_putc(ob, '{');
	err = print_rows(m, ob, opts, bt_row);
	if (m->nkeys)
		ob_putc(ob, '}');
	ob_puts(ob, "}}\n");
	return err ? err : ob->err;
}
