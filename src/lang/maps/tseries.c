// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Time series, bpftrace's tseries(value, interval, n[, "avg"|"max"|"min"|
 * "sum"]): a map entry keeps its last n intervals of `interval` ns, each the
 * last value stored in it (or their mean, maximum, minimum, sum).  agg.c
 * keeps the words of an entry (AGG_TS_WORDS per interval); this file updates
 * them and prints them as bpftrace does.
 *
 * What bpftrace prints is what its BPF maps hold, so the rules below are
 * its, kept where they show in the output:
 *   - interval i of time t is its epoch t / interval, kept in slot epoch % n;
 *     a slot of another epoch starts again;
 *   - a slot stored in at epoch 0 reads back as the value 0 (bpftrace takes
 *     epoch 0 for "never used" when it reads its per-CPU slots back);
 *   - the window printed ends at the latest epoch of any key of the map and
 *     is n intervals long; each key prints from its own first epoch in the
 *     window, "-" for an interval with no value;
 *   - the scale is the smallest and largest value printed (one below and
 *     one above when they are equal); the times are the intervals' starts,
 *     local time, to the unit that divides the mean step between them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lang/maps/agg.h"
#include "report/output.h"

enum { W_EPOCH, W_VAL, W_META, W_USED };

static bool ts_less(const struct agg_ts *t, int64_t a, int64_t b)
{
	return t->is_unsigned ? (uint64_t)a < (uint64_t)b : a < b;
}

void agg_ts_apply(uint64_t *b, const struct agg_ts *t, int64_t v, uint64_t ts)
{
	uint64_t epoch = ts / t->interval;
	uint64_t *w = b + (size_t)(epoch % t->num) * AGG_TS_WORDS;
	int64_t cur = (int64_t)w[W_VAL];

	if (!w[W_USED] || w[W_EPOCH] != epoch) {
		w[W_EPOCH] = epoch;
		w[W_VAL] = (uint64_t)v;
		w[W_META] = 1;
		w[W_USED] = 1;
		return;
	}
	switch (t->fn) {
	case AGG_TS_LAST:
		w[W_VAL] = (uint64_t)v;
		break;
	case AGG_TS_AVG:
	case AGG_TS_SUM:
		w[W_VAL] += (uint64_t)v;
		w[W_META]++;
		break;
	case AGG_TS_MAX:
		if (ts_less(t, cur, v))
			w[W_VAL] = (uint64_t)v;
		break;
	case AGG_TS_MIN:
		if (ts_less(t, v, cur))
			w[W_VAL] = (uint64_t)v;
		break;
	}
}

void agg_ts_zero(uint64_t *b, const struct agg_ts *t)
{
	for (uint32_t i = 0; i < t->num; i++) {
		uint64_t *w = b + (size_t)i * AGG_TS_WORDS;

		w[W_EPOCH] = w[W_VAL] = w[W_META] = 0;
	}
}

/* Slot i's epoch and value as bpftrace reads them back: false if unused. */
static bool slot(const uint64_t *b, const struct agg_ts *t, uint32_t i, uint64_t *epoch,
		 int64_t *v)
{
	const uint64_t *w = b + (size_t)i * AGG_TS_WORDS;

	if (!w[W_USED])
		return false;
	*epoch = w[W_EPOCH];
	*v = 0;
	if (!*epoch)
		return true;
	*v = (int64_t)w[W_VAL];
	if (t->fn == AGG_TS_AVG && w[W_META])
		*v = t->is_unsigned ? (int64_t)(w[W_VAL] / w[W_META]) :
		     (int64_t)w[W_VAL] / (int64_t)w[W_META];
	return true;
}

bool agg_ts_latest(const uint64_t *b, const struct agg_ts *t, uint64_t *latest)
{
	bool any = false;
	uint64_t e;
	int64_t v;

	*latest = 0;
	for (uint32_t i = 0; i < t->num; i++)
		if (slot(b, t, i, &e, &v)) {
			any = true;
			if (e > *latest)
				*latest = e;
		}
	return any;
}

/* The value of epoch e: the first slot that holds it, in slot order. */
static bool value_at(const uint64_t *b, const struct agg_ts *t, uint64_t e, int64_t *v)
{
	uint64_t se;

	for (uint32_t i = 0; i < t->num; i++)
		if (slot(b, t, i, &se, v) && se == e)
			return true;
	return false;
}

/* The epochs a key prints, [*from, last]; false for none. */
static bool window(const uint64_t *b, const struct agg_ts *t, uint64_t last, uint64_t *from)
{
	uint64_t first = last - t->num + 1, own = last, e;	/* wraps, as bpftrace's */
	int64_t v;

	if (first > last)
		return false;
	for (uint32_t i = 0; i < t->num; i++)
		if (slot(b, t, i, &e, &v) && e >= first && e < own)
			own = e;
	*from = own;
	return true;
}

/* ns of CLOCK_TAI as ns of the wall clock */
static int64_t tai_offset(void)
{
	struct timespec tai, real;

	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_REALTIME, &real);
	/* whole seconds (leap seconds), the reads' distance aside */
	return ((int64_t)(tai.tv_sec - real.tv_sec) * 1000000000 + (tai.tv_nsec - real.tv_nsec) +
		500000000) / 1000000000 * 1000000000;
}

/* "%H:%M:%S" (text) or "%Y-%m-%d %H:%M:%S" (JSON) of the wall time ns, and
 * digits of its fraction. */
static void put_time(struct outbuf *ob, int64_t ns, bool date, int digits)
{
	time_t sec = (time_t)(ns / 1000000000);
	int64_t frac = ns % 1000000000;
	struct tm tm;
	char buf[64];
	size_t len = 0;

	if (frac < 0) {
		frac += 1000000000;
		sec--;
	}
	if (localtime_r(&sec, &tm))
		len = strftime(buf, sizeof(buf), date ? "%Y-%m-%d %H:%M:%S" : "%H:%M:%S", &tm);
	ob_write(ob, buf, len);
	if (digits) {
		for (int d = 9; d > digits; d--)
			frac /= 10;
		snprintf(buf, sizeof(buf), ".%0*lld", digits, (long long)frac);
		ob_puts(ob, buf);
	}
}

static void put_val(struct outbuf *ob, const struct agg_ts *t, int64_t v)
{
	if (t->is_unsigned)
		ob_u64(ob, (uint64_t)v);
	else
		ob_s64(ob, v);
}

static int val_text(char *buf, size_t len, const struct agg_ts *t, int64_t v)
{
	return snprintf(buf, len, t->is_unsigned ? "%llu" : "%lld", t->is_unsigned ?
			(unsigned long long)v : (unsigned long long)(long long)v);
}

/* The distance from a to b, as a float (bpftrace scales in float). */
static float dist(const struct agg_ts *t, int64_t a, int64_t b)
{
	return t->is_unsigned ? (float)((uint64_t)b - (uint64_t)a) : (float)(b - a);
}

#define GRAPH 53
#define PAD 21

static void scale_line(struct outbuf *ob, const struct agg_ts *t, int indent, int64_t lo,
		       int64_t hi)
{
	char a[32], b[32], buf[160];

	val_text(a, sizeof(a), t, lo);
	val_text(b, sizeof(b), t, hi);
	snprintf(buf, sizeof(buf), "%*s%-*s%*s\n", indent, "", PAD, a, GRAPH - PAD, b);
	ob_puts(ob, buf);
}

void agg_ts_text(struct outbuf *ob, const uint64_t *b, const struct agg_ts *t, uint64_t last)
{
	uint64_t from, step;
	int64_t lo = 0, hi = 0, v, off = tai_offset();
	int digits = 0, width, zero = 0;
	bool any = false;
	char line[GRAPH + 1], buf[32];

	if (!window(b, t, last, &from)) {
		ob_puts(ob, "<no data>\n");
		return;
	}
	for (uint64_t e = from; e <= last; e++)
		if (value_at(b, t, e, &v)) {
			if (!any || ts_less(t, v, lo))
				lo = v;
			if (!any || ts_less(t, hi, v))
				hi = v;
			any = true;
		}
	if (lo == hi) {
		/* a margin on both sides, where the type has room */
		if (t->is_unsigned ? (uint64_t)lo > 0 : lo > INT64_MIN)
			lo--;
		if (t->is_unsigned ? (uint64_t)hi < UINT64_MAX : hi < INT64_MAX)
			hi++;
	}
	/* the unit of the times: what divides the mean step between them */
	step = last > from ? t->interval : 0;
	if (step % 1000000000)
		digits = step % 1000000 ? step % 1000 ? 9 : 6 : 3;
	width = 8 + (digits ? 1 + digits : 0);
	scale_line(ob, t, width + 1, lo, hi);
	snprintf(buf, sizeof(buf), "%-*s|", width + 1, digits == 3 ? "hh:mm:ss.ms" :
		 digits == 6 ? "hh:mm:ss.us" : digits == 9 ? "hh:mm:ss.ns" : "hh:mm:ss");
	ob_puts(ob, buf);
	for (int i = 0; i < GRAPH - 2; i++)
		ob_putc(ob, '_');
	ob_puts(ob, "|\n");
	if (!t->is_unsigned && lo < 0 && hi > 0)
		zero = (int)((float)GRAPH * dist(t, lo, 0) / dist(t, lo, hi));
	for (uint64_t e = from; e <= last; e++) {
		memset(line, ' ', GRAPH);
		line[GRAPH] = '\0';
		line[0] = line[GRAPH - 1] = '|';
		if (zero > 0)
			line[zero] = '.';
		put_time(ob, (int64_t)(e * t->interval) - off, false, digits);
		ob_putc(ob, ' ');
		if (value_at(b, t, e, &v)) {
			int at = GRAPH / 2;

			if (lo != hi)
				at = (int)((float)(GRAPH - 1) * dist(t, lo, v) / dist(t, lo, hi));
			line[at < 0 ? 0 : at > GRAPH - 1 ? GRAPH - 1 : at] = '*';
			ob_puts(ob, line);
			ob_putc(ob, ' ');
			put_val(ob, t, v);
		} else {
			ob_puts(ob, line);
			ob_puts(ob, " -");
		}
		ob_putc(ob, '\n');
	}
	snprintf(buf, sizeof(buf), "%*s v", width, "");
	ob_puts(ob, buf);
	for (int i = 0; i < GRAPH - 2; i++)
		ob_putc(ob, '_');
	ob_puts(ob, "v\n");
	scale_line(ob, t, width + 1, lo, hi);
}

void agg_ts_json(struct outbuf *ob, const uint64_t *b, const struct agg_ts *t, uint64_t last)
{
	uint64_t from;
	int64_t v, off = tai_offset();

	bool first = true;

	/* intervals with no value are left out, as bpftrace's JSON does */
	ob_putc(ob, '[');
	if (window(b, t, last, &from))
		for (uint64_t e = from; e <= last; e++) {
			if (!value_at(b, t, e, &v))
				continue;
			ob_puts(ob, first ? "{\"interval_start\": \"" : ", {\"interval_start\": \"");
			first = false;
			put_time(ob, (int64_t)(e * t->interval) - off, true, 9);
			ob_puts(ob, "\", \"value\": ");
			put_val(ob, t, v);
			ob_putc(ob, '}');
		}
	ob_putc(ob, ']');
}
