/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Maps and aggregations with bpftrace's semantics, and bpftrace's printing.
 * The user-space path of `ftr count`/`ftr hist` and the language's @maps
 * keep their data here; the kernel path (hist triggers, khist.h) merges what
 * it read back into the same maps, so both paths print through one printer.
 *
 * Life of a map:
 *
 *	m = agg_alloc(&spec);			all memory for spec.size entries
 *	agg_update(m, keys, v);			per event: no allocation, no I/O
 *	agg_add(m, keys, count, sum);		merge a kernel hist entry
 *	agg_add_hits(m, keys, v, n);		merge n kernel hits of raw value v
 *	agg_print(m, ob, &opts);		bpftrace's text; or agg_print_json
 *	agg_free(m);
 *
 * A map is a bounded table, like the kernel's (hist triggers default to
 * 2048 entries): an update that needs a new entry when the table is full is
 * dropped and counted (agg_dropped), never grown.  Open addressing, linear
 * probing, a slab of spec.size entries allocated up front.
 *
 * Keys: 0..AGG_MAX_KEYS parts, each an integer (signed, unsigned or shown
 * in hex), a string (at most AGG_STR_MAX bytes are kept, as bpftrace truncates to its
 * string size) or a stack (at most AGG_STACK_MAX addresses, symbolized only
 * at print time through a callback).
 *
 * Values are 64-bit integers, signed unless spec.is_unsigned.  count, sum,
 * min, max and avg print as bpftrace does (sum wraps at 64 bits, as the
 * kernel's hist sums do; avg is the truncated integer quotient).  hist and
 * lhist keep exact 128-bit sums for the summary line.
 *
 * Histograms are bucketed HERE, always: the kernel's .log2 buckets are
 * ceil-log2, (2^(N-1), 2^N], while bpftrace's are [2^N, 2^(N+1)), so the
 * kernel path keys its trigger by the raw value and feeds agg_add_hits.
 *
 *	hist:  bucket 0 holds negative values "(..., 0)", 1 holds 0 "[0]",
 *	       2 holds 1 "[1]", and bucket k >= 3 holds [2^(k-2), 2^(k-1)),
 *	       labelled with K/M/G/T/P/E suffixes: "[4K, 8K)".  AGG_HIST_BUCKETS.
 *	       hist(v, k), spec.hist_k = k from 1 to AGG_HIST_K_MAX: 0 .. 2^(k+1) - 1
 *	       one value a bucket, then each power of 2 in 2^k buckets,
 *	       "[1152, 1280)", "[8K, 9K)" (agg_hist_bucket).
 *	lhist(min, max, step): bucket 0 holds v < min "(..., min)", bucket
 *	       i in 1..n holds [min + (i-1)*step, min + i*step), bucket n+1
 *	       holds v >= max "[max, ...)"; n = (max - min) / step, at most
 *	       AGG_LHIST_MAX; labels use K/M only when step is a multiple of 1024.
 *
 * Printing (text) follows bpftrace: count/sum/min/max/avg/value maps one
 * line per key, "@name[k1, k2]: V", sorted by value ascending (the largest
 * last); keyless "@name: V"; stats "@x[k]: count 3, average 5, total 15";
 * histograms "@name[k]:" then lines of a 16-column left-aligned label, an
 * 8-column right-aligned count, " |", 52 columns of '@' scaled to the
 * largest bucket, "|", from the first to the last non-empty bucket (empty
 * ones between are printed), keys sorted by total count; a blank line after
 * each histogram.  A stack key prints as bpftrace prints kstack: a newline,
 * then each frame on its own line indented by 8 spaces.
 *
 * Below each histogram, unless opts.no_summary, ftr adds one line:
 *
 *	count N, sum S, mean M, p50 ~X, p90 ~Y, p99 ~Z
 *
 * N and S are exact; M = S / N truncated.  A percentile p is the lower
 * bound of the bucket holding the value of rank ceil(p * N): the true value
 * lies in that bucket ("~4K" means in [4K, 8K)); "<0" / "<min" and
 * ">=max" name the open-ended buckets.  When the histogram has several
 * modes, "(K modes: a mean over them describes neither)" follows the mean
 * ("none of them" for K > 2).  A mode is a peak: a bucket, or a run of equal
 * buckets, higher than its neighbours on both sides, holding at least 2% of
 * N and at least 2 events (one stray event is an outlier, not a mode).  Two
 * neighbouring peaks are distinct modes only if some bucket between them
 * holds less than half of the smaller peak; otherwise they are one mode.
 * Why 2%: the seed's 60 one-megabyte writes are 2.3% of its 2561 writes
 * (2.9% of a dd-only capture) and are the hump that drags the mean from 4K
 * to 28K; a 5% threshold would not see them.
 */
#ifndef FTR_AGG_H
#define FTR_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftr.h"

struct outbuf;

#define AGG_MAX_KEYS 8
#define AGG_STR_MAX 64			/* bytes of a string key kept */
#define AGG_STACK_MAX 127		/* frames of a stack key kept */
#define AGG_DEFAULT_SIZE 2048		/* the kernel's hist trigger default */
#define AGG_MAX_SIZE (1u << 22)
#define AGG_HIST_BUCKETS 66		/* <0, 0, 1, [2,4) ... [2^63, 2^64) */
#define AGG_HIST_K_MAX 5		/* hist(v, k): 2^k buckets a power of 2 */
#define AGG_LHIST_MAX 1000		/* linear buckets, as bpftrace */

enum agg_kind {
	AGG_COUNT,			/* count(): the value is ignored */
	AGG_SUM,			/* sum(v) */
	AGG_AVG,			/* avg(v) */
	AGG_MIN,			/* min(v) */
	AGG_MAX,			/* max(v) */
	AGG_STATS,			/* stats(v): count, average, total */
	AGG_HIST,			/* hist(v): power-of-2 buckets */
	AGG_LHIST,			/* lhist(v, min, max, step) */
	AGG_VALUE,			/* @m[k] = v: a plain store */
	AGG_TSERIES,			/* tseries(v, interval, n[, agg]): tseries.c */
};

/* A time series (tseries.c): how it combines the values of one interval,
 * its intervals' length (ns, > 0) and how many it keeps (1..AGG_TS_NUM_MAX). */
enum agg_ts_fn { AGG_TS_LAST, AGG_TS_AVG, AGG_TS_MAX, AGG_TS_MIN, AGG_TS_SUM };
#define AGG_TS_NUM_MAX 1000
#define AGG_TS_WORDS 4			/* per interval: epoch, value, count, used */

struct agg_ts {
	uint64_t interval;
	uint32_t num;
	enum agg_ts_fn fn;
	bool is_unsigned;		/* set by agg_alloc from the spec */
};

enum agg_ktype {
	AGG_K_INT,			/* int64_t, printed signed */
	AGG_K_UINT,			/* uint64_t */
	AGG_K_STR,			/* bytes, at most AGG_STR_MAX kept */
	AGG_K_STACK,			/* addresses, at most AGG_STACK_MAX kept */
	AGG_K_HEX,			/* uint64_t, printed "0x1f" (a JSON string) */
	AGG_K_JSON,			/* values only (opts.value): text in str, and
					 * in bpftrace's JSON that text as it is */
};

/* One part of a key, as given to update/lookup/delete and as returned in
 * rows (where the pointers point into the map: valid until it changes). */
struct agg_kpart {
	union {
		int64_t i;		/* AGG_K_INT */
		uint64_t u;		/* AGG_K_UINT, AGG_K_HEX */
		struct {		/* AGG_K_STR: not NUL-terminated; stops */
			const char *p;	/* at the first NUL or len */
			size_t len;
		} str;
		struct {		/* AGG_K_STACK: innermost frame first */
			const uint64_t *ips;
			uint32_t n;
		} stack;
	};
};

#define AGG_KI(v) ((struct agg_kpart){ .i = (v) })
#define AGG_KU(v) ((struct agg_kpart){ .u = (v) })
#define AGG_KS(s) ((struct agg_kpart){ .str = { (s), sizeof(s) - 1 } })	/* literal */

struct agg_spec {
	const char *name;		/* "@", "@bytes" (copied) */
	enum agg_kind kind;
	int nkeys;			/* 0..AGG_MAX_KEYS */
	enum agg_ktype ktypes[AGG_MAX_KEYS];
	bool is_unsigned;		/* values are u64 (compare, bucket, print) */
	int64_t lmin, lmax, lstep;	/* AGG_LHIST: min < max, step > 0 */
	int hist_k;			/* AGG_HIST: 0..AGG_HIST_K_MAX, hist(v, k) */
	uint32_t size;			/* max entries; 0: AGG_DEFAULT_SIZE */
	bool lru;			/* when full, a new key replaces the least
					 * recently updated one (none is dropped) */
	struct agg_ts ts;		/* AGG_TSERIES */
};

struct agg;

/* NULL with errno: EINVAL (a bad spec: nkeys out of range, lhist bounds,
 * size above AGG_MAX_SIZE), ENOMEM. */
struct agg *agg_alloc(const struct agg_spec *spec);
void agg_free(struct agg *m);

/* The hot path.  keys: spec.nkeys parts (NULL when 0).  0; -ENOSPC when a
 * new entry was needed and the table is full (counted as dropped); -EINVAL
 * for a NULL map or missing keys.  Never allocates. */
int agg_update(struct agg *m, const struct agg_kpart *keys, int64_t v);
/* The same for an AGG_TSERIES map, of the value v at the time ts (ns of
 * CLOCK_TAI, the clock bpftrace's time series read); other maps ignore ts. */
int agg_update_at(struct agg *m, const struct agg_kpart *keys, int64_t v, uint64_t ts);

/* Merges from a kernel hist trigger.  agg_add: count and sum of one entry
 * (count, sum, avg and stats maps; sum ignored by count maps).  agg_add_hits:
 * n occurrences of the raw value v (hist and lhist maps, and any map whose
 * kind agg_update accepts: the result is that of n updates with v).
 * 0; -ENOSPC when the table is full (count or n updates are counted as
 * dropped, as the kernel counts events); -EINVAL for a kind that cannot
 * merge (agg_add on min/max/hist/lhist/value maps). */
int agg_add(struct agg *m, const struct agg_kpart *keys, uint64_t count, int64_t sum);
int agg_add_hits(struct agg *m, const struct agg_kpart *keys, int64_t v, uint64_t n);
/* Count updates the caller dropped for this map (the kernel's "Dropped"). */
void agg_add_dropped(struct agg *m, uint64_t n);

/* The entry's value: the stored value (AGG_VALUE), count, sum, min, max,
 * average (AVG), count (STATS, HIST, LHIST).  0 or -ENOENT. */
int agg_lookup(const struct agg *m, const struct agg_kpart *keys, int64_t *v);
int agg_delete(struct agg *m, const struct agg_kpart *keys);	/* 0 / -ENOENT */
void agg_clear(struct agg *m);		/* every entry, and the dropped count */
/* bpftrace's zero(): every entry keeps its key and starts again as if it
 * had seen nothing (count, sum, buckets 0; min and max 0 until the next
 * update sets them); a plain store holds 0. */
void agg_zero(struct agg *m);

uint32_t agg_entries(const struct agg *m);
uint32_t agg_size(const struct agg *m);
uint64_t agg_dropped(const struct agg *m);
const char *agg_name(const struct agg *m);
enum agg_kind agg_kind(const struct agg *m);

/* One entry, for iteration in print order. */
struct agg_row {
	struct agg_kpart keys[AGG_MAX_KEYS];
	uint64_t count;			/* updates (hits) */
	int64_t sum;			/* wraps at 64 bits */
	wide_t sum128;		/* exact */
	int64_t min, max;		/* meaningful when count > 0 */
	int64_t value;			/* what agg_lookup returns */
	const uint64_t *buckets;	/* HIST/LHIST, else NULL */
	int nbuckets;
};

/* The entry of keys as a row (pointers into the map): 0 or -ENOENT. */
int agg_lookup_row(const struct agg *m, const struct agg_kpart *keys, struct agg_row *row);

/* Merging (the metrics' carried counts, lang/prom.h): agg_alloc_like makes
 * an empty map of m's spec; agg_merge_row adds a row of such a map (its
 * count, exact sum and buckets; min/max widen, a value replaces), and
 * agg_merge every row of src.  0; -ENOSPC when dst is full (counted as
 * dropped). */
struct agg *agg_alloc_like(const struct agg *m);
int agg_merge_row(struct agg *dst, const struct agg_row *r);
int agg_merge(struct agg *dst, const struct agg *src);

/* Calls fn for every entry in print order (ascending by value; histograms
 * by count; ties by key).  Stops when fn returns non-zero and returns that.
 * -ENOMEM (the sort needs an index array). */
int agg_foreach(const struct agg *m, int (*fn)(const struct agg_row *, void *), void *arg);

/* Names frame idx (0: the innermost) of a stack into buf: returns 0, < 0
 * to print the address, or > 0 to print nothing for this frame (a marker
 * the callback keeps for the frames after it).  how: AGG_SYM_* */
enum {
	AGG_SYM_PERF = 1,	/* a user frame's file after it: "main+4 (/bin/x)" */
	AGG_SYM_MARK = 2,	/* only say whether it is a marker (> 0; else < 0) */
	AGG_SYM_BUILD_ID = 4,	/* "BUILDID 0xFILEOFFSET" of a user frame, else < 0 */
	AGG_SYM_LINES = 8,	/* source lines if on: several printed lines, '\n' apart */
};
typedef int (*agg_sym_fn)(uint64_t addr, uint32_t idx, unsigned how, char *buf, size_t len,
			  void *arg);
/* Prints stack ips[0..n) as bpftrace prints one in mode (LANG_STACK_*: 0
 * bpftrace's, 1 perf's, 2 raw, 3 build ids): a newline, then a frame a
 * line.  sym may be NULL (addresses). */
struct outbuf;
void agg_print_stack(struct outbuf *ob, const uint64_t *ips, uint32_t n, int mode, agg_sym_fn sym,
		     void *arg);

/*
 * A print order other than bpftrace's (--sort): up to AGG_MAX_SORT criteria,
 * each ascending unless desc, the default order breaking the remaining ties.
 *	AGG_BY_VALUE	what the entry prints (count, sum, average...; a
 *			histogram's count), compared as the default order does
 *	AGG_BY_COUNT	the number of updates (the kernel's hitcount)
 *	AGG_BY_KEY	key part `key` (0-based), or every part in order (-1):
 *			numbers by value, strings bytewise, stacks frame by frame
 */
#define AGG_MAX_SORT 4
enum agg_sort_by { AGG_BY_VALUE, AGG_BY_COUNT, AGG_BY_KEY };

struct agg_sort {
	int n;				/* 0: the default order */
	struct {
		enum agg_sort_by by;
		int key;
		bool desc;
	} k[AGG_MAX_SORT];
};

/* Pure: "count,key.desc" into *out.  An item is count (or the kernel's
 * hitcount), value, key (every part), keyN (part N, from 1), or one of
 * names[0..nnames) (the keys' names, part i for names[i]; "name.modifier"
 * matches "name"), followed by .asc/.ascending or .desc/.descending.  0, or
 * -EINVAL with why (lowercase, naming the item) in err. */
int agg_sort_parse(const char *text, const char *const *names, int nnames, struct agg_sort *out,
		   char *err, size_t elen);

struct agg_print_opts {
	bool no_summary;		/* omit ftr's line under histograms */
	uint32_t top;			/* print only the N largest (by the default
					 * order), in the order of sort; 0: all */
	uint64_t div;			/* print(@m, top, div): values divided by div
					 * (not histograms or stats); 0: as they are */
	int stack_mode;			/* stacks' mode (agg_print_stack) */
	const struct agg_sort *sort;	/* NULL or n == 0: bpftrace's order */
	agg_sym_fn sym;			/* NULL: stacks print as 0x addresses */
	void *sym_arg;
	/* AGG_VALUE maps whose numbers stand for strings or stacks (the
	 * language's interned values): fills *k and returns its type
	 * (AGG_K_STR, AGG_K_STACK), or -1 to print the number. */
	int (*value)(int64_t v, struct agg_kpart *k, void *arg);
	void *value_arg;
	/* a keyless map of numbers (not a histogram) with no entry prints its
	 * zero, as bpftrace's print(@) of a scalar map, which always holds
	 * one: "@: 0", "@: { .count = 0, .average = 0, .total = 0 }" */
	bool empty_scalar;
	/* the default order is by key (every part), not by value: bpftrace's
	 * for a map whose values are not numbers (opts.value's) */
	bool key_order;
	/* Number key parts that stand for an enum's values (the language's):
	 * the enumerator's name of part i, or NULL to print the number (text
	 * output only; JSON keeps numbers). */
	const char *(*key_name)(int part, int64_t v, void *arg);
	void *key_name_arg;
};

/* Text as bpftrace; nothing for an empty map.  opts may be NULL.  Returns
 * the outbuf's error state (0 or -errno), or -ENOMEM. */
int agg_print(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts);
/* One JSON object on one line:
 *	{"@": {"sh": 18, "bash": 40}}			one key: an object
 *	{"@": 5}					no key
 *	{"@": [{"key": ["sh", 12], "value": 3}, ...]}	several keys: an array
 *	{"@bytes": {"buckets": [{"min": 4096, "max": 8191, "count": 2096},
 *	  ...], "count": N, "sum": S, "mean": M, "p50": 4096, "p90": ...,
 *	  "p99": ..., "modes": 2}}			a histogram
 *	{"@x": {"count": 3, "average": 5, "total": 15}}	stats
 * The open-ended buckets lack "min" (below) or "max" (above), as bpftrace's.
 * Percentiles are bucket lower bounds (null for the "<0"/"<min" bucket).
 * String keys are JSON-escaped, stack keys are arrays of frame strings. */
int agg_print_json(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts);
/* bpftrace's `-f json` line of print(@m) and of the maps at exit; nothing
 * for an empty map:
 *	{"type": "map", "data": {"@": {"sh": 18, "1,x": 3}}}	keys joined by ','
 *	{"type": "hist", "data": {"@h": [{"min": 4, "max": 7, "count": 1}]}}
 *	{"type": "stats", "data": {"@s": {"count": 1, "average": 5, "total": 5}}}
 *	{"type": "stats", "data": {"@avg": 5}}
 * A stack, as a key or a value, is its text in a string. */
int agg_print_bt_json(const struct agg *m, struct outbuf *ob, const struct agg_print_opts *opts);

/* ---- time series (tseries.c) ------------------------------------------------ */

/* An entry's words (AGG_TS_WORDS * t->num of them): the value v at ts (ns
 * of CLOCK_TAI); zero() of them; the latest epoch (ts / interval) they
 * hold (false for none); bpftrace's text (from the "@m[k]:" line on, the
 * graph of the window that ends at epoch last) and its JSON array. */
/* An AGG_TSERIES or AGG_VALUE map's values are unsigned (u) or not: set
 * before its first store, from the value's type. */
void agg_ts_unsigned(struct agg *m, bool u);
void agg_ts_apply(uint64_t *b, const struct agg_ts *t, int64_t v, uint64_t ts);
void agg_ts_zero(uint64_t *b, const struct agg_ts *t);
bool agg_ts_latest(const uint64_t *b, const struct agg_ts *t, uint64_t *latest);
void agg_ts_text(struct outbuf *ob, const uint64_t *b, const struct agg_ts *t, uint64_t last);
void agg_ts_json(struct outbuf *ob, const uint64_t *b, const struct agg_ts *t, uint64_t last);

/* ---- pure helpers (exposed for tests and the planner) --------------------- */

/* hist bucket of v (signed or not) and its label, e.g. "[4K, 8K)". */
int agg_hist_bucket(int64_t v, bool is_unsigned, int k);
void agg_hist_label(int bucket, int k, char *buf, size_t len);
/* lhist bucket of v and its label. */
int agg_lhist_bucket(int64_t v, int64_t min, int64_t max, int64_t step);
void agg_lhist_label(int bucket, int64_t min, int64_t max, int64_t step, char *buf, size_t len);

/* The largest value bucket b of a hist or lhist map holds (the Prometheus
 * "le" bound: values are integers): 0, -ERANGE for lhist's open top bucket
 * [max, ...), -EINVAL for a bucket or map without one. */
int agg_bucket_max(const struct agg *m, int b, wide_t *max);
int agg_nbuckets(const struct agg *m);	/* hist/lhist buckets per entry, else 0 */
bool agg_unsigned(const struct agg *m);
int agg_nkeys(const struct agg *m);
enum agg_ktype agg_ktype(const struct agg *m, int i);
/* One key part as text (malloc'd, NULL when out of memory): numbers in
 * decimal, AGG_K_HEX as 0x..., a stack's frames (named by o->sym when o
 * has one) joined by ';', innermost first. */
char *agg_key_text(enum agg_ktype t, const struct agg_kpart *k, const struct agg_print_opts *o);

/* The summary of one histogram (bucket array as in agg_row). */
struct agg_hist_stats {
	uint64_t count;
	wide_t sum;
	wide_t mean;
	int p50, p90, p99;		/* bucket indexes; -1 when count == 0 */
	int modes;			/* 0 when count == 0 */
};
void agg_hist_stats(const uint64_t *buckets, int n, uint64_t count, wide_t sum,
		    struct agg_hist_stats *st);
int agg_modes(const uint64_t *buckets, int n);
/* The text of a percentile estimate: "~4K", "<0", "~0", ">=2000". */
void agg_pct_label(const struct agg *m, int bucket, char *buf, size_t len);

#endif
