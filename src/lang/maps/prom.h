/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Maps as metrics: the Prometheus text exposition format (version 0.0.4)
 * and OpenMetrics 1.0, rendered from the maps through agg_foreach, for
 * --serve and --prom-file.
 *
 *	@m = count(), sum(x)	ftr_m_total			counter
 *	@m = hist(x), lhist()	ftr_m_bucket{le=...}, _sum, _count	histogram
 *	@m = avg(), min(), max(), @m = v	ftr_m		gauge
 *	@m = stats(x)		ftr_m{stat="count|average|total"}	gauge
 *
 * "@" is ftr_map.  Key parts are labels named by the caller (comm, pid, the
 * field's name, else keyN); a name Prometheus would refuse, or taken by an
 * earlier part, becomes keyN.  A bucket's le is the largest integer it holds
 * (hist's [4K, 8K) is le="8191"); every histogram ends with le="+Inf".
 *
 * Counters never go backwards: a clear() or delete() carries the counts it
 * removes into a per-series offset (prom_clearing, prom_deleting), and a
 * render that finds a series lower than the last render showed (a kernel
 * hist trigger read back anew, an entry dropped) carries what it had shown.
 * Both are kept in maps of the same spec and size as the map: a full one
 * drops (a warning says so).
 */
#ifndef FTR_PROM_H
#define FTR_PROM_H

#include <stdbool.h>

#include "lang/maps/agg.h"

struct outbuf;

enum prom_fmt { PROM_TEXT, PROM_OPENMETRICS };

#define PROM_TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define PROM_OM_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct prom_map {
	struct agg *m;				/* NULL: not a metric (skipped) */
	const char *help;			/* # HELP text, unescaped */
	const char *labels[AGG_MAX_KEYS];	/* per key part; NULL: keyN */
	agg_sym_fn sym;				/* stack frames' names */
	void *sym_arg;
};

struct prom;

/*
 * Two maps whose metric families would share a name (@ and @map are both
 * ftr_map; a count @x and a gauge @x_total are both ftr_x_total): Prometheus
 * rejects a whole scrape that repeats a family.  -EEXIST, naming both maps
 * and the family in why; 0 when every name is its own.
 */
int prom_check_names(const struct prom_map *maps, int n, char *why, size_t len);

/* The carried counts of maps[0..n) (their agg may change later, not their
 * spec).  NULL with errno. */
struct prom *prom_alloc(const struct prom_map *maps, int n);
void prom_free(struct prom *p);
/* Before map i is cleared, or the entry of keys deleted. */
void prom_clearing(struct prom *p, int i);
void prom_deleting(struct prom *p, int i, const struct agg_kpart *keys);
/* The exposition of every map (as registered with prom_alloc).  0 or the
 * outbuf's error, -ENOMEM. */
int prom_render(struct prom *p, enum prom_fmt fmt, struct outbuf *ob);
/* Counts the offsets could not carry (their maps were full). */
unsigned long long prom_dropped(const struct prom *p);

/* Pure: "@bytes" -> "ftr_bytes", "@" -> "ftr_map"; a name Prometheus would
 * refuse has its other characters as '_'. */
void prom_metric_name(const char *map, char *out, size_t len);
/* Pure: is s a valid label name (and not reserved: "__" prefix)? */
bool prom_label_ok(const char *s);

#endif
