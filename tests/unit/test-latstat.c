// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for report/latstat.c (rtla's tables, histograms and the
 * analysis at a stop) and kernel/knobs.c (global knobs put back after a
 * killed run), on records made here with known answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/knobs.h"
#include "kernel/session.h"
#include "report/latstat.h"

static char *print(struct lat_stats *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	lat_stats_print(st, f, NULL);
	fclose(f);
	return buf;
}

static void timerlat(struct lat_stats *st, int cpu, uint64_t ts, unsigned seq, int ctx,
		     uint64_t lat)
{
	struct lat_event e = { .kind = LEV_TIMERLAT, .cpu = cpu, .ts = ts, .seq = seq,
			       .context = ctx, .latency = lat };

	lat_stats_add(st, &e);
}

static void noise(struct lat_stats *st, enum lat_ev_kind k, int cpu, uint64_t ts, uint64_t start,
		  uint64_t dur, const char *name, int id)
{
	struct lat_event e = { .kind = k, .cpu = cpu, .ts = ts, .start = start, .duration = dur,
			       .pid = id, .vector = id };

	snprintf(e.name, sizeof(e.name), "%s", name);
	lat_stats_add(st, &e);
}

/* top: count, cur, min, avg, max in µs for each context */
static void test_top(void **state)
{
	struct lat_opts o = { .mode = LAT_TIMERLAT_TOP };
	struct lat_stats *st = lat_stats_new(&o, 2);
	char *out;

	(void)state;
	timerlat(st, 1, 1000, 1, 0, 3000);
	timerlat(st, 1, 2000, 1, 1, 9000);
	timerlat(st, 1, 3000, 2, 0, 5000);
	timerlat(st, 1, 4000, 2, 1, 11000);
	out = print(st);
	assert_non_null(strstr(out, "  1 #2         |        5         3         4         5 |"
				    "       11         9        10        11\n"));
	assert_null(strstr(out, "  0 #"));	/* CPU 0 wrote nothing */
	free(out);
	lat_stats_free(st);
}

/* hist: 10 µs buckets, 3 of them; the rest counted in over: */
static void test_hist(void **state)
{
	struct lat_opts o = { .mode = LAT_TIMERLAT_HIST, .bucket_us = 10, .entries = 3 };
	struct lat_stats *st = lat_stats_new(&o, 1);
	char *out;

	(void)state;
	timerlat(st, 0, 1, 1, 0, 5000);		/* bucket 0 */
	timerlat(st, 0, 2, 1, 1, 25000);	/* bucket 20 */
	timerlat(st, 0, 3, 2, 0, 12000);	/* bucket 10 */
	timerlat(st, 0, 4, 2, 1, 31000);	/* over */
	out = print(st);
	assert_non_null(strstr(out, "Index   IRQ-000   Thr-000\n"));
	assert_non_null(strstr(out, "0             1         0 \n"));
	assert_non_null(strstr(out, "10            1         0 \n"));
	assert_non_null(strstr(out, "20            0         1 \n"));
	assert_non_null(strstr(out, "over:         0         1 \n"));
	assert_non_null(strstr(out, "count:        2         2 \n"));
	assert_non_null(strstr(out, "min:          5        25 \n"));
	assert_non_null(strstr(out, "max:         12        31 \n"));
	free(out);
	lat_stats_free(st);
}

/*
 * The analysis.  Timer due at 100000 ns; the timerlat IRQ ran from 100500
 * to 101000 (handler delay 500 ns), its sample recorded at 100800 with
 * latency 800 ns; then "hog:42", running since before the IRQ, kept the
 * CPU 40000 ns, a local timer IRQ took 1000 ns and ksoftirqd 2000 ns; the
 * thread sample at 144000: latency 44000 ns.
 */
static void test_analysis(void **state)
{
	struct lat_opts o = { .mode = LAT_TIMERLAT_TOP, .stop_us = 40, .aa = true };
	struct lat_stats *st = lat_stats_new(&o, 2);
	struct lat_event stop = { .kind = LEV_STOP, .cpu = 1, .ts = 144001 };
	char *out;

	(void)state;
	noise(st, LEV_NOISE_IRQ, 1, 50000, 40000, 900, "virtio", 11);	/* long before */
	timerlat(st, 1, 100800, 7, 0, 800);
	noise(st, LEV_NOISE_IRQ, 1, 101000, 100500, 500, "local_timer", 236);
	noise(st, LEV_NOISE_IRQ, 1, 120000, 119000, 1000, "local_timer", 236);
	noise(st, LEV_NOISE_SOFTIRQ, 1, 130000, 128000, 2000, "", 1);
	noise(st, LEV_NOISE_THREAD, 1, 142000, 90000, 40000, "hog", 42);
	noise(st, LEV_NOISE_THREAD, 1, 143000, 142000, 1000, "kworker/1:0", 30);
	timerlat(st, 1, 144000, 7, 1, 44000);
	lat_stats_add(st, &stop);
	assert_int_equal(lat_stats_stopped(st), 1);
	out = print(st);
	assert_non_null(strstr(out, "## CPU 1 hit stop tracing, analyzing it ##\n"));
	assert_non_null(strstr(out, "  IRQ handler delay:                     0.50 us (1.14 %)\n"));
	assert_non_null(strstr(out, "  IRQ latency:                           0.80 us\n"));
	assert_non_null(strstr(out, "  Timerlat IRQ duration:                 0.50 us (1.14 %)\n"));
	assert_non_null(strstr(out, "  Blocking thread:                      40.00 us (90.91 %)\n"
				    "                          hog:42        40.00 us\n"));
	assert_non_null(strstr(out, "  IRQ interference                       1.00 us (2.27 %)\n"
				    "                 local_timer:236         1.00 us\n"));
	assert_non_null(strstr(out, "  Softirq interference                   2.00 us (4.55 %)\n"));
	assert_non_null(strstr(out, "                  kworker/1:0:30         1.00 us\n"));
	assert_non_null(strstr(out, "  Thread latency:                       44.00 us (100.00 %)\n"));
	assert_null(strstr(out, "virtio"));	/* over before the timer was due */
	free(out);
	lat_stats_free(st);
}

/* osnoise top: sums and maxima; the CPU share in rtla's 5 decimals */
static void test_osnoise(void **state)
{
	struct lat_opts o = { .mode = LAT_OSNOISE_TOP };
	struct lat_stats *st = lat_stats_new(&o, 1);
	struct lat_event a = { .kind = LEV_OSNOISE, .runtime = 50000, .noise = 100,
			       .max_sample = 40, .irq = 3, .thread = 1 };
	struct lat_event b = { .kind = LEV_OSNOISE, .runtime = 50000, .noise = 300,
			       .max_sample = 90, .irq = 2, .hw = 1 };
	char *out;

	(void)state;
	lat_stats_add(st, &a);
	lat_stats_add(st, &b);
	out = print(st);
	assert_non_null(strstr(out, "  0 #2            100000          400    99.60000         300"
				    "           90           1            0            5            0"
				    "            1\n"));
	free(out);
	lat_stats_free(st);
}

/* knobs: what a dead run noted goes back, the last noted first; a live
 * run's stays */
static void test_knobs(void **state)
{
	char dir[64], knob[96], path[160], buf[32] = "";
	FILE *f;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/ftr-test-knobs.%d", (int)getpid());
	mkdir(dir, 0700);
	knobs_dir = dir;
	snprintf(knob, sizeof(knob), "%s/period_us", dir);
	f = fopen(knob, "w");
	assert_non_null(f);
	fputs("7\n", f);
	fclose(f);
	/* a run whose pid is gone (no lock file: the pid rule) */
	assert_int_equal(knobs_note("ftr_999999999", knob, "1000"), 0);
	assert_int_equal(knobs_note("ftr_999999999", knob, "5"), 0);
	f = fopen("/dev/null", "w");
	assert_int_equal(knobs_reset(false, f), 2);
	fclose(f);
	f = fopen(knob, "r");
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "1000");
	snprintf(path, sizeof(path), "%s/ftr_999999999.knobs", dir);
	assert_int_not_equal(access(path, F_OK), 0);
	/* a live run (our own lock held) is left alone */
	snprintf(buf, sizeof(buf), "ftr_%d_77", (int)getpid());
	fd = ftr_lock_take(buf);
	if (fd >= 0) {
		assert_int_equal(knobs_note(buf, knob, "3"), 0);
		f = fopen("/dev/null", "w");
		assert_int_equal(knobs_reset(false, f), 0);
		fclose(f);
		knobs_forget(buf);
		close(fd);
	}
	unlink(knob);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_top),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_analysis),
		cmocka_unit_test(test_osnoise),
		cmocka_unit_test(test_knobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
