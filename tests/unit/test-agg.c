// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for agg.c: bad specs and calls first, then bpftrace's printing
 * (the seed's write-size histogram and opens-by-process count, line for
 * line), buckets and labels at their edges, the bounded table, deletion,
 * the kernel merges, the summary line and JSON.
 */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "lang/maps/agg.h"
#include "ftr.h"
#include "report/output.h"

/* Renders a map through a real outbuf (on a memfd) and returns the text:
 * json 0 text, 1 ftr's JSON, 2 bpftrace's -f json. */
static char *render(const struct agg *m, int json, const struct agg_print_opts *o)
{
	static struct outbuf ob;
	int fd = memfd_create("agg", 0);
	char *buf;
	off_t len;

	assert_true(fd >= 0);
	ob_init(&ob, fd);
	assert_int_equal(json == 2 ? agg_print_bt_json(m, &ob, o) :
			 json ? agg_print_json(m, &ob, o) : agg_print(m, &ob, o), 0);
	assert_int_equal(ob_flush(&ob), 0);
	len = lseek(fd, 0, SEEK_CUR);
	buf = calloc(1, len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), len);
	close(fd);
	return buf;
}

static void assert_render(const struct agg *m, int json, const struct agg_print_opts *o,
			  const char *want)
{
	char *got = render(m, json, o);

	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
	free(got);
}

static struct agg *mk(enum agg_kind kind, int nkeys, const enum agg_ktype *kt)
{
	struct agg_spec s = { .name = "@", .kind = kind, .nkeys = nkeys };
	struct agg *m;

	for (int i = 0; i < nkeys; i++)
		s.ktypes[i] = kt[i];
	m = agg_alloc(&s);
	assert_non_null(m);
	return m;
}

static struct agg_kpart kstr(const char *s)
{
	return (struct agg_kpart){ .str = { s, strlen(s) } };
}

/* ---- bad input -------------------------------------------------------------- */

static void test_alloc_bad(void **state)
{
	struct agg_spec s = { .name = "@", .kind = AGG_COUNT };

	errno = 0;
	assert_null(agg_alloc(NULL));
	assert_int_equal(errno, EINVAL);
	s.nkeys = AGG_MAX_KEYS + 1;
	assert_null(agg_alloc(&s));
	s.nkeys = -1;
	assert_null(agg_alloc(&s));
	s.nkeys = 0;
	s.size = AGG_MAX_SIZE + 1;
	assert_null(agg_alloc(&s));
	s.size = 0;
	s.kind = (enum agg_kind)99;
	assert_null(agg_alloc(&s));
	s.kind = AGG_COUNT;
	s.nkeys = 1;
	s.ktypes[0] = (enum agg_ktype)42;
	assert_null(agg_alloc(&s));
	s.nkeys = 0;

	s.kind = AGG_LHIST;			/* step, bounds, bucket count */
	s.lmin = 0, s.lmax = 100, s.lstep = 0;
	assert_null(agg_alloc(&s));
	s.lstep = -10;
	assert_null(agg_alloc(&s));
	s.lmin = 100, s.lmax = 100, s.lstep = 10;
	assert_null(agg_alloc(&s));
	s.lmin = 200, s.lmax = 100;
	assert_null(agg_alloc(&s));
	s.lmin = 0, s.lmax = 100000, s.lstep = 1;	/* > AGG_LHIST_MAX buckets */
	assert_null(agg_alloc(&s));
	s.lmin = 0, s.lmax = 10, s.lstep = 20;		/* no whole bucket */
	assert_null(agg_alloc(&s));
	s.lmin = INT64_MIN, s.lmax = INT64_MAX, s.lstep = 1;	/* no overflow */
	assert_null(agg_alloc(&s));
	assert_int_equal(errno, EINVAL);
	agg_free(NULL);
}

static void test_calls_bad(void **state)
{
	enum agg_ktype kt[1] = { AGG_K_INT };
	struct agg *m = mk(AGG_COUNT, 1, kt);
	struct agg *h = mk(AGG_HIST, 0, NULL);
	int64_t v;

	assert_int_equal(agg_update(NULL, NULL, 1), -EINVAL);
	assert_int_equal(agg_update(m, NULL, 1), -EINVAL);	/* keys missing */
	assert_int_equal(agg_add(m, NULL, 1, 1), -EINVAL);
	assert_int_equal(agg_add_hits(m, NULL, 1, 1), -EINVAL);
	assert_int_equal(agg_lookup(m, NULL, &v), -EINVAL);
	assert_int_equal(agg_delete(m, NULL), -EINVAL);
	assert_int_equal(agg_add(h, NULL, 5, 10), -EINVAL);	/* hist needs values */
	assert_int_equal(agg_lookup(h, NULL, &v), -ENOENT);
	assert_int_equal(agg_delete(h, NULL), -ENOENT);
	assert_int_equal(agg_add_hits(h, NULL, 7, 0), 0);	/* no hits: no entry */
	assert_int_equal(agg_entries(h), 0);
	assert_int_equal(agg_print(NULL, NULL, NULL), -EINVAL);
	assert_render(h, false, NULL, "");			/* empty prints nothing */
	assert_render(m, true, NULL, "{\"@\": {}}\n");
	agg_free(m);
	agg_free(h);
}

/* ---- the seed --------------------------------------------------------------- */

/* The seed's second tracer capture, bucket for bucket: 2000 dd writes of
 * 4 KiB, 60 of 1 MiB, and the machine's own small writes. */
static void seed_fill(struct agg *m)
{
	static const struct { int64_t v; int n; } w[] = {
		{ 0, 2 }, { 1, 22 }, { 3, 16 }, { 4, 154 }, { 8, 110 }, { 16, 8 },
		{ 32, 16 }, { 64, 9 }, { 128, 24 }, { 256, 4 }, { 512, 22 }, { 1024, 6 },
		{ 2048, 8 }, { 4096, 2000 }, { 6000, 96 }, { 8192, 4 }, { 1048576, 60 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(w); i++)
		for (int k = 0; k < w[i].n; k++)
			assert_int_equal(agg_update(m, NULL, w[i].v), 0);
}

static const char seed_hist[] =
	"@bytes:\n"
	"[0]                    2 |                                                    |\n"
	"[1]                   22 |                                                    |\n"
	"[2, 4)                16 |                                                    |\n"
	"[4, 8)               154 |@@@                                                 |\n"
	"[8, 16)              110 |@@                                                  |\n"
	"[16, 32)               8 |                                                    |\n"
	"[32, 64)              16 |                                                    |\n"
	"[64, 128)              9 |                                                    |\n"
	"[128, 256)            24 |                                                    |\n"
	"[256, 512)             4 |                                                    |\n"
	"[512, 1K)             22 |                                                    |\n"
	"[1K, 2K)               6 |                                                    |\n"
	"[2K, 4K)               8 |                                                    |\n"
	"[4K, 8K)            2096 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[8K, 16K)              4 |                                                    |\n"
	"[16K, 32K)             0 |                                                    |\n"
	"[32K, 64K)             0 |                                                    |\n"
	"[64K, 128K)            0 |                                                    |\n"
	"[128K, 256K)           0 |                                                    |\n"
	"[256K, 512K)           0 |                                                    |\n"
	"[512K, 1M)             0 |                                                    |\n"
	"[1M, 2M)              60 |@                                                   |\n";

static void test_seed_hist(void **state)
{
	struct agg_spec s = { .name = "@bytes", .kind = AGG_HIST };
	struct agg_print_opts plain = { .no_summary = true };
	struct agg *m = agg_alloc(&s);
	char want[sizeof(seed_hist) + 256];
	int64_t v;

	assert_non_null(m);
	seed_fill(m);
	/* bpftrace's exact text, then a blank line */
	snprintf(want, sizeof(want), "%s\n", seed_hist);
	assert_render(m, false, &plain, want);
	/* ftr's summary: 2561 writes, a mean near 28K that matches none of
	 * them, the median and p90 in [4K, 8K), p99 in [1M, 2M); three modes:
	 * the machine's small writes at [4, 8) (6%), the 4K spike and the 1M
	 * spike (2.3%) */
	snprintf(want, sizeof(want), "%s%s\n\n", seed_hist,
		 "count 2561, sum 71755998, mean 28018 (3 modes: a mean over them describes none of them), "
		 "p50 ~4K, p90 ~4K, p99 ~1M");
	assert_render(m, false, NULL, want);
	assert_int_equal(agg_lookup(m, NULL, &v), 0);
	assert_int_equal(v, 2561);
	agg_free(m);
}

/* The seed's opens-by-process count: printed ascending, the largest last. */
static void test_seed_count_sorted(void **state)
{
	static const struct { const char *comm; int n; } opens[] = {
		{ "crun", 423 }, { "sh", 18 }, { "podman", 540 }, { "systemd", 270 },
		{ "netavark", 84 }, { "sleep", 27 }, { "nft", 480 }, { "conmon", 165 },
		{ "systemd-journal", 43 },
	};
	enum agg_ktype kt[1] = { AGG_K_STR };
	struct agg *m = mk(AGG_COUNT, 1, kt);
	struct agg_print_opts top3 = { .top = 3 };

	/* interleaved, as events arrive */
	for (int round = 0; round < 540; round++)
		for (size_t i = 0; i < ARRAY_SIZE(opens); i++)
			if (round < opens[i].n)
				assert_int_equal(agg_update(m, (struct agg_kpart[]){ kstr(opens[i].comm) }, 0), 0);
	assert_render(m, false, NULL,
		      "@[sh]: 18\n"
		      "@[sleep]: 27\n"
		      "@[systemd-journal]: 43\n"
		      "@[netavark]: 84\n"
		      "@[conmon]: 165\n"
		      "@[systemd]: 270\n"
		      "@[crun]: 423\n"
		      "@[nft]: 480\n"
		      "@[podman]: 540\n");
	assert_render(m, false, &top3, "@[crun]: 423\n@[nft]: 480\n@[podman]: 540\n");
	assert_render(m, true, &top3, "{\"@\": {\"crun\": 423, \"nft\": 480, \"podman\": 540}}\n");
	agg_free(m);
}

/* ---- buckets and labels ------------------------------------------------------ */

static void test_hist_edges(void **state)
{
	char l[64];
	struct agg_spec s = { .name = "@", .kind = AGG_HIST };
	struct agg_spec su = { .name = "@u", .kind = AGG_HIST, .is_unsigned = true };
	struct agg *m, *u;

	assert_int_equal(agg_hist_bucket(-1, false, 0), 0);
	assert_int_equal(agg_hist_bucket(INT64_MIN, false, 0), 0);
	assert_int_equal(agg_hist_bucket(0, false, 0), 1);
	assert_int_equal(agg_hist_bucket(1, false, 0), 2);
	assert_int_equal(agg_hist_bucket(2, false, 0), 3);
	assert_int_equal(agg_hist_bucket(3, false, 0), 3);
	assert_int_equal(agg_hist_bucket(4095, false, 0), 13);
	assert_int_equal(agg_hist_bucket(4096, false, 0), 14);
	assert_int_equal(agg_hist_bucket(INT64_MAX, false, 0), 64);
	assert_int_equal(agg_hist_bucket(-1, true, 0), 65);	/* 2^64 - 1 */
	agg_hist_label(0, 0, l, sizeof(l));
	assert_string_equal(l, "(..., 0)");
	agg_hist_label(1, 0, l, sizeof(l));
	assert_string_equal(l, "[0]");
	agg_hist_label(2, 0, l, sizeof(l));
	assert_string_equal(l, "[1]");
	agg_hist_label(3, 0, l, sizeof(l));
	assert_string_equal(l, "[2, 4)");
	agg_hist_label(11, 0, l, sizeof(l));
	assert_string_equal(l, "[512, 1K)");
	agg_hist_label(31, 0, l, sizeof(l));
	assert_string_equal(l, "[512M, 1G)");
	agg_hist_label(42, 0, l, sizeof(l));
	assert_string_equal(l, "[1T, 2T)");
	agg_hist_label(64, 0, l, sizeof(l));
	assert_string_equal(l, "[4E, 8E)");
	agg_hist_label(65, 0, l, sizeof(l));
	assert_string_equal(l, "[8E, 16E)");
	/* hist(v, k): 2^k buckets a power of 2 above 2^(k+1) (bpftrace's
	 * hist(x, 2): [7], [8, 10), [16, 20), [224, 256)) */
	static const struct {
		int64_t v;
		int k, b;
		const char *label;
	} fine[] = {
		{ 7, 2, 8, "[7]" }, { 8, 2, 9, "[8, 10)" }, { 9, 2, 9, "[8, 10)" },
		{ 10, 2, 10, "[10, 12)" }, { 16, 2, 13, "[16, 20)" }, { 255, 2, 28, "[224, 256)" },
		{ 1152, 3, 66, "[1152, 1280)" }, { 9 * 1024, 3, 90, "[9K, 10K)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(fine); i++) {
		assert_int_equal(agg_hist_bucket(fine[i].v, false, fine[i].k), fine[i].b);
		agg_hist_label(fine[i].b, fine[i].k, l, sizeof(l));
		assert_string_equal(l, fine[i].label);
	}
	/* the last bucket of each k ends at 2^64 */
	for (int k = 0; k <= AGG_HIST_K_MAX; k++) {
		struct agg_spec sk = { .name = "@k", .kind = AGG_HIST, .hist_k = k };
		struct agg *mk = agg_alloc(&sk);
		wide_t max;

		assert_non_null(mk);
		assert_int_equal(agg_hist_bucket(-1, true, k), agg_nbuckets(mk) - 1);
		assert_int_equal(agg_bucket_max(mk, agg_nbuckets(mk) - 1, &max), 0);
		assert_true(max == (sizeof(wide_t) > 8 ? (wide_t)UINT64_MAX : INT64_MAX));
		agg_hist_label(agg_nbuckets(mk) - 1, k, l, sizeof(l));
		/* bpftrace's label: the bound over the largest power of 1024 under it */
		assert_non_null(strstr(l, k == 5 ? ", 16384P)" : ", 16E)"));
		agg_free(mk);
	}

	/* negatives, zero and the largest values, printed */
	m = agg_alloc(&s);
	u = agg_alloc(&su);
	assert_non_null(m);
	assert_non_null(u);
	agg_update(m, NULL, -5);
	agg_update(m, NULL, -5);
	agg_update(m, NULL, 0);
	agg_update(m, NULL, 1);
	assert_render(m, false, NULL,
		      "@:\n"
		      "(..., 0)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		      "[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		      "count 4, sum -9, mean -2, p50 <0, p90 ~1, p99 ~1\n\n");
	agg_update(u, NULL, (int64_t)UINT64_MAX);
	agg_update(u, NULL, (int64_t)UINT64_MAX);
	assert_render(u, false, NULL,
		      "@u:\n"
		      "[8E, 16E)              2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "count 2, sum 36893488147419103230, mean 18446744073709551615, "
		      "p50 ~8E, p90 ~8E, p99 ~8E\n\n");
	agg_free(m);
	agg_free(u);
}

static void test_lhist_edges(void **state)
{
	struct agg_spec s = { .name = "@bytes", .kind = AGG_LHIST, .lmin = 0, .lmax = 2000, .lstep = 200 };
	struct agg_spec k = { .name = "@k", .kind = AGG_LHIST, .lmin = 0, .lmax = 4096, .lstep = 1024 };
	struct agg *m, *mk2;
	char l[64];

	assert_int_equal(agg_lhist_bucket(-1, 0, 2000, 200), 0);
	assert_int_equal(agg_lhist_bucket(0, 0, 2000, 200), 1);
	assert_int_equal(agg_lhist_bucket(199, 0, 2000, 200), 1);
	assert_int_equal(agg_lhist_bucket(200, 0, 2000, 200), 2);
	assert_int_equal(agg_lhist_bucket(1999, 0, 2000, 200), 10);
	assert_int_equal(agg_lhist_bucket(2000, 0, 2000, 200), 11);
	assert_int_equal(agg_lhist_bucket(INT64_MAX, 0, 2000, 200), 11);
	assert_int_equal(agg_lhist_bucket(INT64_MIN, -10, 10, 5), 0);
	assert_int_equal(agg_lhist_bucket(-6, -10, 10, 5), 1);
	/* a partial last step counts as ">= max", as in bpftrace */
	assert_int_equal(agg_lhist_bucket(25, 0, 29, 10), 3);
	agg_lhist_label(0, 0, 2000, 200, l, sizeof(l));
	assert_string_equal(l, "(..., 0)");
	agg_lhist_label(1, 0, 2000, 200, l, sizeof(l));
	assert_string_equal(l, "[0, 200)");
	agg_lhist_label(11, 0, 2000, 200, l, sizeof(l));
	assert_string_equal(l, "[2000, ...)");
	agg_lhist_label(2, 0, 4096, 1024, l, sizeof(l));
	assert_string_equal(l, "[1K, 2K)");
	agg_lhist_label(2, 0, 2048, 512, l, sizeof(l));		/* step not a multiple of 1K */
	assert_string_equal(l, "[512, 1024)");
	agg_lhist_label(1, -2048 * 1024, 0, 1024 * 1024, l, sizeof(l));
	assert_string_equal(l, "[-2M, -1M)");

	m = agg_alloc(&s);
	assert_non_null(m);
	agg_update(m, NULL, -1);
	agg_update(m, NULL, 0);
	agg_update(m, NULL, 0);
	agg_update(m, NULL, 450);
	agg_update(m, NULL, 2000);
	agg_update(m, NULL, 123456);
	assert_render(m, false, NULL,
		      "@bytes:\n"
		      "(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		      "[0, 200)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[200, 400)             0 |                                                    |\n"
		      "[400, 600)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		      "[600, 800)             0 |                                                    |\n"
		      "[800, 1000)            0 |                                                    |\n"
		      "[1000, 1200)           0 |                                                    |\n"
		      "[1200, 1400)           0 |                                                    |\n"
		      "[1400, 1600)           0 |                                                    |\n"
		      "[1600, 1800)           0 |                                                    |\n"
		      "[1800, 2000)           0 |                                                    |\n"
		      "[2000, ...)            2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "count 6, sum 125905, mean 20984 (2 modes: a mean over them describes neither), "
		      "p50 ~0, p90 >=2000, p99 >=2000\n\n");
	assert_render(m, true, NULL,
		      "{\"@bytes\": {\"buckets\": [{\"max\": -1, \"count\": 1}, "
		      "{\"min\": 0, \"max\": 199, \"count\": 2}, {\"min\": 200, \"max\": 399, \"count\": 0}, "
		      "{\"min\": 400, \"max\": 599, \"count\": 1}, {\"min\": 600, \"max\": 799, \"count\": 0}, "
		      "{\"min\": 800, \"max\": 999, \"count\": 0}, {\"min\": 1000, \"max\": 1199, \"count\": 0}, "
		      "{\"min\": 1200, \"max\": 1399, \"count\": 0}, {\"min\": 1400, \"max\": 1599, \"count\": 0}, "
		      "{\"min\": 1600, \"max\": 1799, \"count\": 0}, {\"min\": 1800, \"max\": 1999, \"count\": 0}, "
		      "{\"min\": 2000, \"count\": 2}], \"count\": 6, \"sum\": 125905, \"mean\": 20984, "
		      "\"p50\": 0, \"p90\": 2000, \"p99\": 2000, \"modes\": 2}}\n");
	agg_free(m);

	/* leading and trailing empty buckets are not printed */
	mk2 = agg_alloc(&k);
	assert_non_null(mk2);
	agg_update(mk2, NULL, 1500);
	agg_update(mk2, NULL, 3500);
	assert_render(mk2, false, &(struct agg_print_opts){ .no_summary = true },
		      "@k:\n"
		      "[1K, 2K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		      "[2K, 3K)               0 |                                                    |\n"
		      "[3K, 4K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n");
	agg_free(mk2);
}

static void test_modes(void **state)
{
	/* one spike */
	uint64_t one[] = { 0, 5, 100, 5, 0 };
	/* two spikes with an empty valley */
	uint64_t two[] = { 50, 0, 0, 50 };
	/* two peaks whose valley is above half the smaller: one mode */
	uint64_t shallow[] = { 100, 60, 80 };
	/* a valley just under half of the smaller peak: two */
	uint64_t deep[] = { 100, 39, 80 };
	/* a peak under 2% of the count is noise, 2% and more is a mode */
	uint64_t noise[] = { 1000, 0, 40, 0, 10 };
	/* one stray event is an outlier, not a mode */
	uint64_t stray[] = { 0, 30, 0, 1 };
	/* three */
	uint64_t three[] = { 30, 0, 30, 0, 30 };
	/* a plateau is one peak */
	uint64_t plateau[] = { 10, 50, 50, 50, 10 };
	uint64_t none[] = { 0, 0 };

	assert_int_equal(agg_modes(one, 5), 1);
	assert_int_equal(agg_modes(two, 4), 2);
	assert_int_equal(agg_modes(shallow, 3), 1);
	assert_int_equal(agg_modes(deep, 3), 2);
	assert_int_equal(agg_modes(noise, 5), 2);
	assert_int_equal(agg_modes(stray, 4), 1);
	assert_int_equal(agg_modes(three, 5), 3);
	assert_int_equal(agg_modes(plateau, 5), 1);
	assert_int_equal(agg_modes(none, 2), 0);
}

/* ---- --sort --------------------------------------------------------------------- */

static void test_sort_parse_bad(void **state)
{
	static const char *const names[] = { "comm", "call_site" };
	struct agg_sort s;
	char err[160];
	char longer[300];

	assert_int_equal(agg_sort_parse(NULL, NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse("", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "no sort keys");
	assert_int_equal(agg_sort_parse("count,,key", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "empty sort key in 'count,,key'");
	assert_int_equal(agg_sort_parse(",count", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse("count,", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse(".desc", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "empty sort key");
	assert_int_equal(agg_sort_parse("nosuch", names, 2, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "unknown sort key 'nosuch' (count, value, key, keyN or a key's name)");
	/* a direction that is not one is part of the name */
	assert_int_equal(agg_sort_parse("count.sideways", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse("key3", names, 2, &s, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "sort key 'key3': there are only 2 keys");
	assert_int_equal(agg_sort_parse("key0", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse("key10", NULL, 0, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(agg_sort_parse("count,value,key,count,value", NULL, 0, &s, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "at most 4 sort keys");
	memset(longer, 'k', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(agg_sort_parse(longer, NULL, 0, &s, err, sizeof(err)), -EINVAL);
}

static void test_sort_parse(void **state)
{
	static const char *const names[] = { "comm", "call_site" };
	struct agg_sort s;
	char err[160];

	assert_int_equal(agg_sort_parse("count", NULL, 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.k[0].by, AGG_BY_COUNT);
	assert_false(s.k[0].desc);
	/* the kernel's spellings */
	assert_int_equal(agg_sort_parse("hitcount.descending,key.ascending", NULL, 0, &s, err,
					sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.k[0].by, AGG_BY_COUNT);
	assert_true(s.k[0].desc);
	assert_int_equal(s.k[1].by, AGG_BY_KEY);
	assert_int_equal(s.k[1].key, -1);
	assert_false(s.k[1].desc);
	assert_int_equal(agg_sort_parse("value.desc,call_site.sym.asc,comm.desc,key2", names, 2, &s,
					err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.k[0].by, AGG_BY_VALUE);
	assert_true(s.k[0].desc);
	assert_int_equal(s.k[1].by, AGG_BY_KEY);
	assert_int_equal(s.k[1].key, 1);
	assert_false(s.k[1].desc);
	assert_int_equal(s.k[2].key, 0);
	assert_true(s.k[2].desc);
	assert_int_equal(s.k[3].key, 1);
	/* without names, keyN up to what a map may have */
	assert_int_equal(agg_sort_parse("key8.desc", NULL, 0, &s, err, sizeof(err)), 0);
	assert_int_equal(s.k[0].key, 7);
}

static void test_sort_print(void **state)
{
	static const struct { const char *comm; int fd, n; } ev[] = {
		{ "sh", 1, 18 }, { "sh", 2, 3 }, { "podman", 1, 540 }, { "nft", 3, 18 },
		{ "crun", 2, 423 },
	};
	enum agg_ktype kt[2] = { AGG_K_STR, AGG_K_HEX };
	struct agg_spec ss = { .name = "@bytes", .kind = AGG_SUM, .nkeys = 2,
			       .ktypes = { AGG_K_STR, AGG_K_HEX } };
	struct agg *m = mk(AGG_COUNT, 2, kt), *sum = agg_alloc(&ss);
	struct agg_sort s;
	struct agg_print_opts o = { .sort = &s };
	char err[160];

	assert_non_null(sum);
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++)
		for (int j = 0; j < ev[i].n; j++) {
			struct agg_kpart k[2] = { kstr(ev[i].comm), AGG_KU(ev[i].fd) };

			assert_int_equal(agg_update(m, k, 0), 0);
			/* sums in another order than the counts */
			assert_int_equal(agg_update(sum, k, 1000 / ev[i].n), 0);
		}
	/* bpftrace's order: by value, then by key */
	assert_render(m, false, NULL,
		      "@[sh, 0x2]: 3\n@[nft, 0x3]: 18\n@[sh, 0x1]: 18\n@[crun, 0x2]: 423\n"
		      "@[podman, 0x1]: 540\n");
	assert_int_equal(agg_sort_parse("key", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(m, false, &o,
		      "@[crun, 0x2]: 423\n@[nft, 0x3]: 18\n@[podman, 0x1]: 540\n@[sh, 0x1]: 18\n"
		      "@[sh, 0x2]: 3\n");
	/* one part of the key, the default order breaking ties */
	assert_int_equal(agg_sort_parse("key2.desc", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(m, false, &o,
		      "@[nft, 0x3]: 18\n@[sh, 0x2]: 3\n@[crun, 0x2]: 423\n@[sh, 0x1]: 18\n"
		      "@[podman, 0x1]: 540\n");
	assert_int_equal(agg_sort_parse("count.desc,key1.desc", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(m, false, &o,
		      "@[podman, 0x1]: 540\n@[crun, 0x2]: 423\n@[sh, 0x1]: 18\n@[nft, 0x3]: 18\n"
		      "@[sh, 0x2]: 3\n");
	/* JSON follows, hex keys as strings */
	assert_render(m, true, &o,
		      "{\"@\": [{\"key\": [\"podman\", \"0x1\"], \"value\": 540}, "
		      "{\"key\": [\"crun\", \"0x2\"], \"value\": 423}, "
		      "{\"key\": [\"sh\", \"0x1\"], \"value\": 18}, "
		      "{\"key\": [\"nft\", \"0x3\"], \"value\": 18}, "
		      "{\"key\": [\"sh\", \"0x2\"], \"value\": 3}]}\n");
	/* --top picks the largest, --sort orders them */
	o.top = 3;
	assert_int_equal(agg_sort_parse("key", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(m, false, &o, "@[crun, 0x2]: 423\n@[podman, 0x1]: 540\n@[sh, 0x1]: 18\n");
	o.top = 0;
	/* value is the sum; count the updates */
	assert_int_equal(agg_sort_parse("value", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(sum, false, &o,
		      "@bytes[podman, 0x1]: 540\n@bytes[crun, 0x2]: 846\n@bytes[nft, 0x3]: 990\n"
		      "@bytes[sh, 0x1]: 990\n@bytes[sh, 0x2]: 999\n");
	assert_int_equal(agg_sort_parse("count,key.desc", NULL, 0, &s, err, sizeof(err)), 0);
	assert_render(sum, false, &o,
		      "@bytes[sh, 0x2]: 999\n@bytes[sh, 0x1]: 990\n@bytes[nft, 0x3]: 990\n"
		      "@bytes[crun, 0x2]: 846\n@bytes[podman, 0x1]: 540\n");
	/* no criteria: the default */
	s.n = 0;
	assert_render(sum, false, &o,
		      "@bytes[podman, 0x1]: 540\n@bytes[crun, 0x2]: 846\n@bytes[nft, 0x3]: 990\n"
		      "@bytes[sh, 0x1]: 990\n@bytes[sh, 0x2]: 999\n");
	agg_free(m);
	agg_free(sum);
}

/* ---- keys --------------------------------------------------------------------- */

static void test_string_keys(void **state)
{
	enum agg_ktype kt[2] = { AGG_K_STR, AGG_K_INT };
	struct agg *m = mk(AGG_COUNT, 2, kt);
	char longname[100];
	int64_t v;

	memset(longname, 'x', sizeof(longname));
	/* a key is cut at AGG_STR_MAX bytes, and at a NUL */
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ { .str = { longname, 100 } }, AGG_KI(1) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ { .str = { longname, 64 } }, AGG_KI(1) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ { .str = { "sh\0junk", 7 } }, AGG_KI(-7) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KS("sh"), AGG_KI(-7) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KS("my task"), AGG_KI(12) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KS(""), AGG_KI(0) }, 0), 0);
	assert_int_equal(agg_entries(m), 4);
	assert_int_equal(agg_lookup(m, (struct agg_kpart[]){ AGG_KS("sh"), AGG_KI(-7) }, &v), 0);
	assert_int_equal(v, 2);
	assert_int_equal(agg_lookup(m, (struct agg_kpart[]){ AGG_KS("sh"), AGG_KI(7) }, &v), -ENOENT);
	/* ties sort by key: "" < "my task" */
	assert_render(m, false, NULL,
		      "@[, 0]: 1\n"
		      "@[my task, 12]: 1\n"
		      "@[sh, -7]: 2\n"
		      "@[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx, 1]: 2\n");
	assert_render(m, true, NULL,
		      "{\"@\": [{\"key\": [\"\", 0], \"value\": 1}, "
		      "{\"key\": [\"my task\", 12], \"value\": 1}, "
		      "{\"key\": [\"sh\", -7], \"value\": 2}, "
		      "{\"key\": [\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", 1], "
		      "\"value\": 2}]}\n");
	agg_free(m);
}

static int fake_sym(uint64_t addr, uint32_t idx, unsigned how, char *buf, size_t len, void *arg)
{
	if (addr == 0xdead)
		return -1;
	snprintf(buf, len, "%s_%llx+4", (const char *)arg, (unsigned long long)addr);
	return 0;
}

static void test_stack_keys(void **state)
{
	enum agg_ktype kt[2] = { AGG_K_STACK, AGG_K_STR };
	struct agg *m = mk(AGG_COUNT, 2, kt);
	uint64_t a[3] = { 0x10, 0x20, 0x30 }, b[2] = { 0x10, 0xdead };
	uint64_t big[200];
	struct agg_print_opts o = { .sym = fake_sym, .sym_arg = "f" };

	for (int i = 0; i < 200; i++)
		big[i] = i;
	agg_update(m, (struct agg_kpart[]){ { .stack = { a, 3 } }, AGG_KS("dd") }, 0);
	agg_update(m, (struct agg_kpart[]){ { .stack = { a, 3 } }, AGG_KS("dd") }, 0);
	agg_update(m, (struct agg_kpart[]){ { .stack = { b, 2 } }, AGG_KS("sh") }, 0);
	/* frames beyond AGG_STACK_MAX are cut: these two are one key */
	agg_update(m, (struct agg_kpart[]){ { .stack = { big, 200 } }, AGG_KS("x") }, 0);
	agg_update(m, (struct agg_kpart[]){ { .stack = { big, AGG_STACK_MAX } }, AGG_KS("x") }, 0);
	assert_int_equal(agg_entries(m), 3);
	agg_delete(m, (struct agg_kpart[]){ { .stack = { big, 150 } }, AGG_KS("x") });
	assert_int_equal(agg_entries(m), 2);
	assert_render(m, false, &o,
		      "@[\n"
		      "        f_10+4\n"
		      "        0xdead\n"
		      ", sh]: 1\n"
		      "@[\n"
		      "        f_10+4\n"
		      "        f_20+4\n"
		      "        f_30+4\n"
		      ", dd]: 2\n");
	assert_render(m, true, &o,
		      "{\"@\": [{\"key\": [[\"f_10+4\", \"0xdead\"], \"sh\"], \"value\": 1}, "
		      "{\"key\": [[\"f_10+4\", \"f_20+4\", \"f_30+4\"], \"dd\"], \"value\": 2}]}\n");
	agg_free(m);
}

/* A stack printed in each of bpftrace's modes: 0xfeed... a marker (a
 * ustack's process), 0x10 a user frame in a file with a build id and
 * source lines (a function g inlined there), 0x20 one in no file,
 * 0xffff...0 a kernel frame. */
static int mode_sym(uint64_t addr, uint32_t idx, unsigned how, char *buf, size_t len, void *arg)
{
	bool user = !(addr >> 63);

	if (addr >> 48 == 0xfeed)
		return 1;
	if ((how & AGG_SYM_LINES) && (how & (AGG_SYM_MARK | AGG_SYM_BUILD_ID)))
		return snprintf(buf, len, "lines asked in raw or build_id mode"), 0;
	if (addr == 0x10 && (how & AGG_SYM_LINES)) {
		snprintf(buf, len, how & AGG_SYM_PERF ? "g (inlined)\nf_10+4 (/bin/f)" :
			 "[inlined] g@/s/a.c:3\nf_10+4@/s/a.c:9");
		return 0;
	}
	if (how & AGG_SYM_MARK)
		return -1;
	if (how & AGG_SYM_BUILD_ID) {
		if (addr != 0x10)
			return -1;
		snprintf(buf, len, "%s 0x%02llx", "0123456789abcdef0123456789abcdef01234567",
			 (unsigned long long)addr + 0x1000);
		return 0;
	}
	if (addr == 0x20 && !(how & AGG_SYM_PERF))
		return -1;
	if (addr == 0x20) {
		snprintf(buf, len, "0x20 ([unknown])");
		return 0;
	}
	snprintf(buf, len, "f_%llx+4%s", (unsigned long long)(addr & 0xff),
		 user && how & AGG_SYM_PERF ? " (/bin/f)" : "");
	return 0;
}

static void test_stack_modes(void **state)
{
	static const char *const want[] = {
		"\n        [inlined] g@/s/a.c:3\n        f_10+4@/s/a.c:9\n        0x20\n        f_0+4\n",
		"\n\t10 g (inlined)\n\t10 f_10+4 (/bin/f)\n\t20 0x20 ([unknown])\n"
		"\tffffffff81000000 f_0+4\n",
		"\n10\n20\nffffffff81000000\n",
		"\n0123456789abcdef0123456789abcdef01234567 0x1010\n20\nffffffff81000000\n",
	};
	uint64_t ips[] = { 0xfeed000000000042ull, 0x10, 0x20, 0xffffffff81000000ull };

	for (int mode = 0; mode < 4; mode++) {
		static struct outbuf ob;	/* 64 KiB */

		ob_init(&ob, -1);
		agg_print_stack(&ob, ips, 4, mode, mode_sym, NULL);
		if (ob.len != strlen(want[mode]) || memcmp(ob.buf, want[mode], ob.len))
			fail_msg("mode %d: got '%.*s'", mode, (int)ob.len, ob.buf);
	}
}

/* ---- values ----------------------------------------------------------------------- */

static void test_value_kinds(void **state)
{
	enum agg_ktype kt[1] = { AGG_K_UINT };
	struct agg_spec s = { .name = "@x", .kind = AGG_STATS };
	struct agg *st = agg_alloc(&s), *sum, *avg, *mn, *mx, *val;
	int64_t v;

	assert_non_null(st);
	agg_update(st, NULL, 2);
	agg_update(st, NULL, 5);
	agg_update(st, NULL, 8);
	assert_render(st, false, NULL, "@x: { .count = 3, .average = 5, .total = 15 }\n");
	assert_render(st, true, NULL, "{\"@x\": {\"count\": 3, \"average\": 5, \"total\": 15}}\n");

	sum = mk(AGG_SUM, 1, kt);
	avg = mk(AGG_AVG, 1, kt);
	mn = mk(AGG_MIN, 1, kt);
	mx = mk(AGG_MAX, 1, kt);
	val = mk(AGG_VALUE, 1, kt);
	for (int64_t i = -3; i <= 4; i++) {
		struct agg_kpart k[1] = { AGG_KU((uint64_t)(i & 1)) };

		agg_update(sum, k, i);
		agg_update(avg, k, i);
		agg_update(mn, k, i);
		agg_update(mx, k, i);
		agg_update(val, k, i * 1000);
	}
	/* key 0: -2 0 2 4; key 1: -3 -1 1 3 */
	assert_render(sum, false, NULL, "@[1]: 0\n@[0]: 4\n");
	assert_render(avg, false, NULL, "@[1]: 0\n@[0]: 1\n");
	assert_render(mn, false, NULL, "@[1]: -3\n@[0]: -2\n");
	assert_render(mx, false, NULL, "@[1]: 3\n@[0]: 4\n");
	assert_render(val, false, NULL, "@[1]: 3000\n@[0]: 4000\n");
	assert_int_equal(agg_lookup(val, (struct agg_kpart[]){ AGG_KU(0) }, &v), 0);
	assert_int_equal(v, 4000);
	assert_int_equal(agg_lookup(mn, (struct agg_kpart[]){ AGG_KU(1) }, &v), 0);
	assert_int_equal(v, -3);
	/* @start[tid] = nsecs; ... delete(@start[tid]) */
	assert_int_equal(agg_delete(val, (struct agg_kpart[]){ AGG_KU(0) }), 0);
	assert_int_equal(agg_lookup(val, (struct agg_kpart[]){ AGG_KU(0) }, &v), -ENOENT);
	assert_int_equal(agg_delete(val, (struct agg_kpart[]){ AGG_KU(0) }), -ENOENT);
	/* avg of negatives truncates toward zero, as bpftrace's */
	agg_clear(avg);
	agg_update(avg, (struct agg_kpart[]){ AGG_KU(9) }, -7);
	agg_update(avg, (struct agg_kpart[]){ AGG_KU(9) }, -8);
	assert_render(avg, false, NULL, "@[9]: -7\n");
	/* sum() wraps at 64 bits, as the kernel's hist sums */
	agg_clear(sum);
	agg_update(sum, (struct agg_kpart[]){ AGG_KU(1) }, INT64_MAX);
	agg_update(sum, (struct agg_kpart[]){ AGG_KU(1) }, 2);
	assert_render(sum, false, NULL, "@[1]: -9223372036854775807\n");
	agg_free(st);
	agg_free(sum);
	agg_free(avg);
	agg_free(mn);
	agg_free(mx);
	agg_free(val);
}

/* ---- the kernel merges -------------------------------------------------------------- */

/* A hist trigger keyed by the raw value, merged with agg_add_hits, prints
 * what the same events fed one by one print. */
static void test_merge_hits(void **state)
{
	static const struct { int64_t v; uint64_t n; } kern[] = {
		{ 33, 1 }, { 37, 1 }, { 60, 1 }, { 4096, 2000 }, { 1048576, 60 },
	};
	enum agg_ktype kt[1] = { AGG_K_STR };
	struct agg_spec s = { .name = "@bytes", .kind = AGG_HIST, .nkeys = 1, .ktypes = { AGG_K_STR } };
	struct agg *a = agg_alloc(&s), *b = agg_alloc(&s);
	struct agg *ca = mk(AGG_SUM, 1, kt), *cb = mk(AGG_SUM, 1, kt);
	char *ta, *tb;

	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < ARRAY_SIZE(kern); i++) {
		assert_int_equal(agg_add_hits(a, (struct agg_kpart[]){ AGG_KS("dd") }, kern[i].v, kern[i].n), 0);
		for (uint64_t k = 0; k < kern[i].n; k++)
			agg_update(b, (struct agg_kpart[]){ AGG_KS("dd") }, kern[i].v);
	}
	ta = render(a, false, NULL);
	tb = render(b, false, NULL);
	assert_string_equal(ta, tb);
	assert_non_null(strstr(ta, "[4K, 8K)            2000 |@@@@"));
	/* the issue's workload, dd alone: the two humps of the seed */
	assert_non_null(strstr(ta, "count 2063, sum 71106690, mean 34467 "
				   "(2 modes: a mean over them describes neither), "
				   "p50 ~4K, p90 ~4K, p99 ~1M\n"));
	free(ta);
	free(tb);
	ta = render(a, true, NULL);
	tb = render(b, true, NULL);
	assert_string_equal(ta, tb);
	free(ta);
	free(tb);

	/* sum(args.count) by comm from "hitcount: 2001  count: 8192037" */
	assert_int_equal(agg_add(ca, (struct agg_kpart[]){ AGG_KS("dd") }, 2001, 8192037), 0);
	assert_int_equal(agg_add(ca, (struct agg_kpart[]){ AGG_KS("dd") }, 61, 62914593), 0);
	assert_int_equal(agg_add(ca, (struct agg_kpart[]){ AGG_KS("sh") }, 1, 7), 0);
	agg_add_hits(cb, (struct agg_kpart[]){ AGG_KS("dd") }, 4096, 2000);
	agg_add_hits(cb, (struct agg_kpart[]){ AGG_KS("dd") }, 1048576, 60);
	agg_add_hits(cb, (struct agg_kpart[]){ AGG_KS("dd") }, 37, 1);
	agg_add_hits(cb, (struct agg_kpart[]){ AGG_KS("dd") }, 33, 1);
	agg_update(cb, (struct agg_kpart[]){ AGG_KS("sh") }, 7);
	assert_render(ca, false, NULL, "@[sh]: 7\n@[dd]: 71106630\n");
	assert_render(cb, false, NULL, "@[sh]: 7\n@[dd]: 71106630\n");
	agg_free(a);
	agg_free(b);
	agg_free(ca);
	agg_free(cb);
}

/* ---- the bounded table ------------------------------------------------------------- */

static void test_bounded(void **state)
{
	enum agg_ktype kt[1] = { AGG_K_UINT };
	struct agg *m = mk(AGG_COUNT, 1, kt);
	struct mallinfo2 before, after;
	uint64_t dropped = 0;
	int64_t v;

	assert_int_equal(agg_size(m), AGG_DEFAULT_SIZE);
	before = mallinfo2();
	for (uint64_t k = 0; k < 100000; k++)
		if (agg_update(m, (struct agg_kpart[]){ AGG_KU(k * 7919) }, 0) == -ENOSPC)
			dropped++;
	after = mallinfo2();
	/* the hot path allocated nothing: memory stays what agg_alloc took */
	assert_int_equal(after.uordblks, before.uordblks);
	assert_int_equal(agg_entries(m), 2048);
	assert_int_equal(dropped, 100000 - 2048);
	assert_int_equal(agg_dropped(m), 100000 - 2048);
	/* keys already in still count when full */
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KU(0) }, 0), 0);
	assert_int_equal(agg_lookup(m, (struct agg_kpart[]){ AGG_KU(0) }, &v), 0);
	assert_int_equal(v, 2);
	/* a delete makes room for one */
	assert_int_equal(agg_delete(m, (struct agg_kpart[]){ AGG_KU(7919) }), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KU(3) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KU(4) }, 0), -ENOSPC);
	/* merges count every event they drop, as the kernel's Dropped */
	assert_int_equal(agg_add(m, (struct agg_kpart[]){ AGG_KU(5) }, 10, 0), -ENOSPC);
	assert_int_equal(agg_add_hits(m, (struct agg_kpart[]){ AGG_KU(5) }, 0, 5), -ENOSPC);
	agg_add_dropped(m, 100);
	assert_int_equal(agg_dropped(m), 100000 - 2048 + 1 + 10 + 5 + 100);
	agg_clear(m);
	assert_int_equal(agg_entries(m), 0);
	assert_int_equal(agg_dropped(m), 0);
	assert_int_equal(agg_lookup(m, (struct agg_kpart[]){ AGG_KU(0) }, &v), -ENOENT);
	assert_render(m, false, NULL, "");
	for (uint64_t k = 0; k < 2048; k++)
		assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KU(k) }, 0), 0);
	assert_int_equal(agg_update(m, (struct agg_kpart[]){ AGG_KU(5000) }, 0), -ENOSPC);
	agg_free(m);
}

/* Random updates and deletes against a plain array: the table never loses
 * or invents an entry (backward-shift deletion keeps probe chains whole). */
static void test_delete_model(void **state)
{
	enum { N = 300, SIZE = 128 };
	struct agg_spec s = { .name = "@", .kind = AGG_SUM, .nkeys = 1, .ktypes = { AGG_K_INT }, .size = SIZE };
	struct agg *m = agg_alloc(&s);
	int64_t model[N];
	bool present[N] = { 0 };
	int live = 0;
	unsigned seed = 12345;

	assert_non_null(m);
	for (int step = 0; step < 200000; step++) {
		int k;
		int r;

		seed = seed * 1103515245 + 12345;
		k = (seed >> 8) % N;
		r = (seed >> 20) % 3;
		if (r == 0) {
			int ret = agg_delete(m, (struct agg_kpart[]){ AGG_KI(k - 100) });

			assert_int_equal(ret, present[k] ? 0 : -ENOENT);
			if (present[k])
				live--;
			present[k] = false;
		} else {
			int ret = agg_update(m, (struct agg_kpart[]){ AGG_KI(k - 100) }, k);

			if (!present[k] && live == SIZE) {
				assert_int_equal(ret, -ENOSPC);
				continue;
			}
			assert_int_equal(ret, 0);
			if (!present[k]) {
				present[k] = true;
				model[k] = 0;
				live++;
			}
			model[k] += k;
		}
		if (step % 997 == 0) {
			for (int i = 0; i < N; i++) {
				int64_t v;
				int ret = agg_lookup(m, (struct agg_kpart[]){ AGG_KI(i - 100) }, &v);

				assert_int_equal(ret, present[i] ? 0 : -ENOENT);
				if (present[i])
					assert_int_equal(v, model[i]);
			}
			assert_int_equal(agg_entries(m), live);
		}
	}
	agg_free(m);
}

/* ---- JSON --------------------------------------------------------------------- */

static void test_json(void **state)
{
	struct agg_spec s = { .name = "@bytes", .kind = AGG_HIST };
	enum agg_ktype kt[1] = { AGG_K_STR };
	struct agg *h = agg_alloc(&s), *c = mk(AGG_COUNT, 0, NULL), *q = mk(AGG_COUNT, 1, kt);

	assert_non_null(h);
	for (int i = 0; i < 3; i++)
		agg_update(h, NULL, 4096);
	agg_update(h, NULL, 1048576);
	agg_update(h, NULL, -3);
	assert_render(h, true, NULL,
		      "{\"@bytes\": {\"buckets\": [{\"max\": -1, \"count\": 1}, {\"min\": 0, \"max\": 0, \"count\": 0}, "
		      "{\"min\": 1, \"max\": 1, \"count\": 0}, {\"min\": 2, \"max\": 3, \"count\": 0}, "
		      "{\"min\": 4, \"max\": 7, \"count\": 0}, {\"min\": 8, \"max\": 15, \"count\": 0}, "
		      "{\"min\": 16, \"max\": 31, \"count\": 0}, {\"min\": 32, \"max\": 63, \"count\": 0}, "
		      "{\"min\": 64, \"max\": 127, \"count\": 0}, {\"min\": 128, \"max\": 255, \"count\": 0}, "
		      "{\"min\": 256, \"max\": 511, \"count\": 0}, {\"min\": 512, \"max\": 1023, \"count\": 0}, "
		      "{\"min\": 1024, \"max\": 2047, \"count\": 0}, {\"min\": 2048, \"max\": 4095, \"count\": 0}, "
		      "{\"min\": 4096, \"max\": 8191, \"count\": 3}, {\"min\": 8192, \"max\": 16383, \"count\": 0}, "
		      "{\"min\": 16384, \"max\": 32767, \"count\": 0}, {\"min\": 32768, \"max\": 65535, \"count\": 0}, "
		      "{\"min\": 65536, \"max\": 131071, \"count\": 0}, {\"min\": 131072, \"max\": 262143, \"count\": 0}, "
		      "{\"min\": 262144, \"max\": 524287, \"count\": 0}, {\"min\": 524288, \"max\": 1048575, \"count\": 0}, "
		      "{\"min\": 1048576, \"max\": 2097151, \"count\": 1}], \"count\": 5, \"sum\": 1060861, "
		      "\"mean\": 212172, \"p50\": 4096, \"p90\": 1048576, \"p99\": 1048576, \"modes\": 1}}\n");
	{
		char *t = render(h, true, &(struct agg_print_opts){ .no_summary = true });

		assert_null(strstr(t, "mean"));
		assert_non_null(strstr(t, "\"count\": 5, \"sum\": 1060861}}\n"));
		free(t);
	}
	assert_render(c, true, NULL, "{\"@\": null}\n");
	agg_update(c, NULL, 0);
	assert_render(c, true, NULL, "{\"@\": 1}\n");
	assert_render(c, false, NULL, "@: 1\n");
	agg_update(q, (struct agg_kpart[]){ AGG_KS("a \"quoted\"\\name\n") }, 0);
	assert_render(q, true, NULL, "{\"@\": {\"a \\\"quoted\\\"\\\\name\\n\": 1}}\n");
	agg_free(h);
	agg_free(c);
	agg_free(q);
}

/* bpftrace's -f json lines (as bpftrace 0.17 prints them; t-bpfjson compares
 * whole programs with bpftrace itself). */
static void test_bt_json(void **state)
{
	enum agg_ktype kt[2] = { AGG_K_STACK, AGG_K_STR }, ki[2] = { AGG_K_INT, AGG_K_STR };
	struct agg_spec ls = { .name = "@l", .kind = AGG_LHIST, .lmin = 0, .lmax = 10, .lstep = 2 };
	struct agg *st = mk(AGG_COUNT, 2, kt), *c = mk(AGG_COUNT, 0, NULL);
	struct agg *s = mk(AGG_STATS, 2, ki), *a = mk(AGG_AVG, 0, NULL), *l = agg_alloc(&ls);
	uint64_t ips[2] = { 0x10, 0x20 };
	struct agg_print_opts o = { .sym = fake_sym, .sym_arg = "f" };

	assert_non_null(l);
	assert_render(c, 2, NULL, "");	/* empty: nothing, as bpftrace */
	agg_update(c, NULL, 0);
	agg_update(c, NULL, 0);
	assert_render(c, 2, NULL, "{\"type\": \"map\", \"data\": {\"@\": 2}}\n");
	assert_render(c, 2, &(struct agg_print_opts){ .div = 2 },
		      "{\"type\": \"map\", \"data\": {\"@\": 1}}\n");
	agg_update(st, (struct agg_kpart[]){ { .stack = { ips, 2 } }, AGG_KS("a\"b") }, 0);
	assert_render(st, 2, &o, "{\"type\": \"map\", \"data\": {\"@\": "
		      "{\"\\n    f_10+4\\n    f_20+4\\n,a\\\"b\": 1}}}\n");
	agg_update(s, (struct agg_kpart[]){ AGG_KI(-1), AGG_KS("x") }, 5);
	agg_update(s, (struct agg_kpart[]){ AGG_KI(-1), AGG_KS("x") }, -8);
	assert_render(s, 2, NULL, "{\"type\": \"stats\", \"data\": {\"@\": "
		      "{\"-1,x\": {\"count\": 2, \"average\": -1, \"total\": -3}}}}\n");
	agg_update(a, NULL, 4);
	agg_update(a, NULL, 5);
	assert_render(a, 2, NULL, "{\"type\": \"stats\", \"data\": {\"@\": 4}}\n");
	agg_update(l, NULL, -5);
	agg_update(l, NULL, 50);
	assert_render(l, 2, NULL, "{\"type\": \"hist\", \"data\": {\"@l\": [{\"max\": -1, \"count\": 1}, "
		      "{\"min\": 0, \"max\": 1, \"count\": 0}, {\"min\": 2, \"max\": 3, \"count\": 0}, "
		      "{\"min\": 4, \"max\": 5, \"count\": 0}, {\"min\": 6, \"max\": 7, \"count\": 0}, "
		      "{\"min\": 8, \"max\": 9, \"count\": 0}, {\"min\": 10, \"count\": 1}]}}\n");
	agg_free(st);
	agg_free(c);
	agg_free(s);
	agg_free(a);
	agg_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_bad),
		cmocka_unit_test(test_calls_bad),
		cmocka_unit_test(test_seed_hist),
		cmocka_unit_test(test_seed_count_sorted),
		cmocka_unit_test(test_hist_edges),
		cmocka_unit_test(test_lhist_edges),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_sort_parse_bad),
		cmocka_unit_test(test_sort_parse),
		cmocka_unit_test(test_sort_print),
		cmocka_unit_test(test_string_keys),
		cmocka_unit_test(test_stack_keys),
		cmocka_unit_test(test_stack_modes),
		cmocka_unit_test(test_value_kinds),
		cmocka_unit_test(test_merge_hits),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_delete_model),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_bt_json),
	};

	return cmocka_run_group_tests_name("agg", tests, NULL, NULL);
}
