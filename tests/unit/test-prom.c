// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for prom.c: names first (bad, then good), then the exposition
 * of each kind of map in both formats, label escaping (quotes, backslashes,
 * newlines, bytes that are not UTF-8), histogram buckets, and counters that
 * never go backwards across clear(), delete() and a map read back anew.
 */
#include <errno.h>
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
#include "lang/maps/prom.h"
#include "report/output.h"

static char *render(struct prom *p, enum prom_fmt fmt)
{
	static struct outbuf ob;
	int fd = memfd_create("prom", 0);
	char *buf;
	off_t len;

	assert_true(fd >= 0);
	ob_init(&ob, fd);
	assert_int_equal(prom_render(p, fmt, &ob), 0);
	assert_int_equal(ob_flush(&ob), 0);
	len = lseek(fd, 0, SEEK_CUR);
	buf = calloc(1, len + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), len);
	close(fd);
	return buf;
}

static void assert_render(struct prom *p, enum prom_fmt fmt, const char *want)
{
	char *got = render(p, fmt);

	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
	free(got);
}

static struct agg *mk(const char *name, enum agg_kind kind, int nkeys, enum agg_ktype kt)
{
	struct agg_spec s = { .name = name, .kind = kind, .nkeys = nkeys, .ktypes = { kt, kt },
			      .lmin = 0, .lmax = 100, .lstep = 10 };
	struct agg *m = agg_alloc(&s);

	assert_non_null(m);
	return m;
}

static void test_names(void **state)
{
	char buf[64];

	assert_false(prom_label_ok(NULL));
	assert_false(prom_label_ok(""));
	assert_false(prom_label_ok("__name"));
	assert_false(prom_label_ok("1x"));
	assert_false(prom_label_ok("a-b"));
	assert_true(prom_label_ok("comm"));
	assert_true(prom_label_ok("call_site2"));
	prom_metric_name("@", buf, sizeof(buf));
	assert_string_equal(buf, "ftr_map");
	prom_metric_name("@bytes", buf, sizeof(buf));
	assert_string_equal(buf, "ftr_bytes");
	prom_metric_name("@a.b", buf, sizeof(buf));
	assert_string_equal(buf, "ftr_a_b");
}

/* Families that would repeat are refused before a scrape sees them. */
static void test_name_clash(void **state)
{
	struct agg *a = mk("@", AGG_COUNT, 0, AGG_K_INT);
	struct agg *b = mk("@map", AGG_COUNT, 0, AGG_K_INT);
	struct agg *c = mk("@map_total", AGG_SUM, 0, AGG_K_INT);
	struct agg *d = mk("@bytes", AGG_HIST, 0, AGG_K_INT);
	struct prom_map ab[2] = { { .m = a }, { .m = b } }, bc[2] = { { .m = b }, { .m = c } },
			ad[2] = { { .m = a }, { .m = d } };
	char why[160];

	(void)state;
	assert_int_equal(prom_check_names(ab, 2, why, sizeof(why)), -EEXIST);
	assert_non_null(strstr(why, "@ and @map"));
	assert_non_null(strstr(why, "'ftr_map'"));
	assert_int_equal(prom_check_names(bc, 2, why, sizeof(why)), -EEXIST);
	assert_int_equal(prom_check_names(ad, 2, why, sizeof(why)), 0);
	agg_free(a);
	agg_free(b);
	agg_free(c);
	agg_free(d);
}

static void test_counter(void **state)
{
	struct agg *m = mk("@writes", AGG_COUNT, 1, AGG_K_STR);
	/* a quote, a backslash, a newline, and 0xff (no UTF-8) in one comm;
	 * "é" is UTF-8 and stays */
	struct agg_kpart odd = { .str = { "a\"b\\c\nd\xff" "\xc3\xa9", 10 } };
	struct prom_map pm = { .m = m, .help = "one\\two\nthree \"q\"", .labels = { "comm" } };
	struct prom *p;

	for (int i = 0; i < 3; i++)
		agg_update(m, &AGG_KS("writer"), 0);
	agg_update(m, &odd, 0);
	p = prom_alloc(&pm, 1);
	assert_non_null(p);
	assert_render(p, PROM_TEXT,
		      "# HELP ftr_writes_total one\\\\two\\nthree \"q\"\n"
		      "# TYPE ftr_writes_total counter\n"
		      "ftr_writes_total{comm=\"a\\\"b\\\\c\\nd\\\\xff\xc3\xa9\"} 1\n"
		      "ftr_writes_total{comm=\"writer\"} 3\n");
	assert_render(p, PROM_OPENMETRICS,
		      "# HELP ftr_writes one\\\\two\\nthree \\\"q\\\"\n"
		      "# TYPE ftr_writes counter\n"
		      "ftr_writes_total{comm=\"a\\\"b\\\\c\\nd\\\\xff\xc3\xa9\"} 1\n"
		      "ftr_writes_total{comm=\"writer\"} 3\n"
		      "# EOF\n");
	prom_free(p);
	agg_free(m);
}

/* Keyless maps are 0 before their first event; hist buckets' le is the
 * largest integer each holds, from the empty one below the lowest used. */
static void test_hist(void **state)
{
	struct agg *h = mk("@bytes", AGG_HIST, 0, AGG_K_INT);
	struct agg *c = mk("@", AGG_COUNT, 0, AGG_K_INT);
	struct prom_map pm[2] = { { .m = h, .help = "h" }, { .m = c, .help = "c" } };
	struct prom *p = prom_alloc(pm, 2);

	assert_non_null(p);
	assert_render(p, PROM_TEXT,
		      "# HELP ftr_bytes h\n# TYPE ftr_bytes histogram\n"
		      "ftr_bytes_bucket{le=\"+Inf\"} 0\nftr_bytes_sum 0\nftr_bytes_count 0\n"
		      "# HELP ftr_map_total c\n# TYPE ftr_map_total counter\nftr_map_total 0\n");
	agg_update(h, NULL, 4096);
	agg_update(h, NULL, 5000);
	agg_update(h, NULL, 16383);
	agg_update(c, NULL, 0);
	assert_render(p, PROM_TEXT,
		      "# HELP ftr_bytes h\n# TYPE ftr_bytes histogram\n"
		      "ftr_bytes_bucket{le=\"4095\"} 0\n"
		      "ftr_bytes_bucket{le=\"8191\"} 2\n"
		      "ftr_bytes_bucket{le=\"16383\"} 3\n"
		      "ftr_bytes_bucket{le=\"+Inf\"} 3\n"
		      "ftr_bytes_sum 25479\nftr_bytes_count 3\n"
		      "# HELP ftr_map_total c\n# TYPE ftr_map_total counter\nftr_map_total 1\n");
	/* the first buckets: (..., 0) is le="-1", [0] "0", [1] "1" */
	agg_update(h, NULL, -5);
	agg_update(h, NULL, 1);
	{
		char *t = render(p, PROM_TEXT);

		assert_non_null(strstr(t, "ftr_bytes_bucket{le=\"-1\"} 1\n"
					  "ftr_bytes_bucket{le=\"0\"} 1\n"
					  "ftr_bytes_bucket{le=\"1\"} 2\n"
					  "ftr_bytes_bucket{le=\"3\"} 2\n"));
		free(t);
		t = render(p, PROM_OPENMETRICS);
		/* a sum that can go down is left out of OpenMetrics only when < 0 */
		assert_non_null(strstr(t, "ftr_bytes_sum 25475\n"));
		free(t);
	}
	prom_free(p);
	agg_free(h);
	agg_free(c);
}

/* lhist(v, 0, 100, 10): below min is le="-1", the top [100, ...) +Inf only. */
static void test_lhist_stats_gauge(void **state)
{
	struct agg *l = mk("@l", AGG_LHIST, 0, AGG_K_INT);
	struct agg *s = mk("@st", AGG_STATS, 1, AGG_K_INT);
	struct agg *a = mk("@lat", AGG_AVG, 1, AGG_K_INT);
	struct prom_map pm[3] = {
		{ .m = l, .help = "l" },
		{ .m = s, .help = "s", .labels = { "stat" } },	/* taken: key1 */
		{ .m = a, .help = "a", .labels = { "pid" } },
	};
	struct prom *p;

	agg_update(l, NULL, -1);
	agg_update(l, NULL, 15);
	agg_update(l, NULL, 500);
	agg_update(s, &AGG_KI(7), 10);
	agg_update(s, &AGG_KI(7), 21);
	agg_update(a, &AGG_KI(-3), 10);
	agg_update(a, &AGG_KI(-3), 21);
	p = prom_alloc(pm, 3);
	assert_non_null(p);
	assert_render(p, PROM_TEXT,
		      "# HELP ftr_l l\n# TYPE ftr_l histogram\n"
		      "ftr_l_bucket{le=\"-1\"} 1\n"
		      "ftr_l_bucket{le=\"9\"} 1\n"
		      "ftr_l_bucket{le=\"19\"} 2\n"
		      "ftr_l_bucket{le=\"29\"} 2\n"
		      "ftr_l_bucket{le=\"39\"} 2\n"
		      "ftr_l_bucket{le=\"49\"} 2\n"
		      "ftr_l_bucket{le=\"59\"} 2\n"
		      "ftr_l_bucket{le=\"69\"} 2\n"
		      "ftr_l_bucket{le=\"79\"} 2\n"
		      "ftr_l_bucket{le=\"89\"} 2\n"
		      "ftr_l_bucket{le=\"99\"} 2\n"
		      "ftr_l_bucket{le=\"+Inf\"} 3\n"
		      "ftr_l_sum 514\nftr_l_count 3\n"
		      "# HELP ftr_st s\n# TYPE ftr_st gauge\n"
		      "ftr_st{key1=\"7\",stat=\"count\"} 2\n"
		      "ftr_st{key1=\"7\",stat=\"average\"} 15\n"
		      "ftr_st{key1=\"7\",stat=\"total\"} 31\n"
		      "# HELP ftr_lat a\n# TYPE ftr_lat gauge\n"
		      "ftr_lat{pid=\"-3\"} 15\n");
	prom_free(p);
	agg_free(l);
	agg_free(s);
	agg_free(a);
}

/* clear() and delete() carry their counts; a map read back lower than the
 * last render showed (a kernel trigger re-read) carries what was shown. */
static void test_monotonic(void **state)
{
	struct agg *m = mk("@n", AGG_COUNT, 1, AGG_K_INT);
	struct agg *h = mk("@h", AGG_HIST, 0, AGG_K_INT);
	struct prom_map pm[2] = { { .m = m, .help = "n", .labels = { "cpu" } },
				  { .m = h, .help = "h" } };
	struct prom *p = prom_alloc(pm, 2);
	char *t;

	assert_non_null(p);
	for (int i = 0; i < 5; i++)
		agg_update(m, &AGG_KI(0), 0);
	agg_update(m, &AGG_KI(1), 0);
	agg_update(h, NULL, 8);
	/* an interval's clear() before anything was rendered */
	prom_clearing(p, 0);
	agg_clear(m);
	prom_clearing(p, 1);
	agg_clear(h);
	agg_update(m, &AGG_KI(0), 0);
	agg_update(h, NULL, 9);
	t = render(p, PROM_TEXT);
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"0\"} 6\n"));
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"1\"} 1\n"));
	assert_non_null(strstr(t, "ftr_h_bucket{le=\"15\"} 2\nftr_h_bucket{le=\"+Inf\"} 2\n"
				  "ftr_h_sum 17\nftr_h_count 2\n"));
	free(t);
	/* delete() */
	prom_deleting(p, 0, &AGG_KI(0));
	agg_delete(m, &AGG_KI(0));
	agg_update(m, &AGG_KI(0), 0);
	t = render(p, PROM_TEXT);
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"0\"} 7\n"));
	free(t);
	agg_update(m, &AGG_KI(0), 0);
	agg_update(m, &AGG_KI(0), 0);
	t = render(p, PROM_TEXT);
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"0\"} 9\n"));	/* 6 carried + 3 */
	free(t);
	/* read back anew, lower (no prom_clearing: the caller did not know) */
	agg_clear(m);
	agg_update(m, &AGG_KI(0), 0);
	agg_update(m, &AGG_KI(1), 0);
	agg_update(m, &AGG_KI(1), 0);
	t = render(p, PROM_TEXT);
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"0\"} 10\n"));	/* 9 shown + 1 */
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"1\"} 3\n"));	/* 1 carried + 2: no reset */
	free(t);
	/* and higher again: counted once */
	agg_update(m, &AGG_KI(0), 0);
	t = render(p, PROM_TEXT);
	assert_non_null(strstr(t, "ftr_n_total{cpu=\"0\"} 11\n"));
	free(t);
	prom_free(p);
	agg_free(m);
	agg_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_name_clash),
		cmocka_unit_test(test_counter),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_lhist_stats_gauge),
		cmocka_unit_test(test_monotonic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
