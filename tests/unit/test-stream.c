// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for stream.c's drains, on sub-buffers built by hand in the
 * ring buffer's page format (events/header_page of the fixtures: a u64
 * timestamp, an 8-byte commit, then events with a 4-byte header of type_len
 * and time delta) and fed through pipes that read like trace_pipe_raw:
 *
 * - the merge delivers only what was written before the drain began (the
 *   buffer's clock, from a stats file): a CPU found empty whose record comes
 *   later, older than records another CPU already had, still comes out in
 *   timestamp order;
 * - a drain reads a CPU on past a small page (the rest of a page the reader
 *   had caught up with may have full ones behind it) until it holds a
 *   record later than the horizon; without a horizon it stops where a
 *   small page follows a full one, goes on after a small page that follows
 *   a small one; the last drain reads everything;
 * - lost events as the kernel marks pages (RB_MISSED_EVENTS, with the count
 *   stored after the data under RB_MISSED_STORED): reported, counted per
 *   CPU and in the total, by both drains;
 * - a drain stopped by its callback, and the rest discarded and counted;
 * - the "now ts:" parser.
 */
#include <errno.h>
#include <fcntl.h>
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
#include <event-parse.h>
#include <kbuffer.h>

#include "fixture.h"
#include "ftr.h"
#include "kernel/stream.h"

#define SUBBUF 4096

static struct tep_handle *tep;

static int setup(void **state)
{
	static const char *const none[] = { NULL };

	tep = fixture_tep(none);
	return tep ? 0 : -1;
}

static int teardown(void **state)
{
	tep_free(tep);
	return 0;
}

/* A sub-buffer being built: events of 12 bytes (type_len 3) whose id is
 * where common_pid would be. */
struct page {
	unsigned char b[SUBBUF];
	size_t len;			/* of data, after the 16-byte header */
	uint64_t last;			/* timestamp of the last event */
};

static void page_begin(struct page *p, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->b, &ts, 8);
	p->last = ts;
}

static void page_add(struct page *p, uint64_t ts, int id)
{
	uint32_t delta = (uint32_t)(ts - p->last), hdr = 3 | (delta << 5);
	unsigned char *d = p->b + 16 + p->len;

	assert_true(ts >= p->last && delta < (1u << 27));
	assert_true(16 + p->len + 16 <= SUBBUF);
	memcpy(d, &hdr, 4);
	memset(d + 4, 0, 12);
	memcpy(d + 8, &id, 4);		/* payload offset 4: common_pid */
	p->len += 16;
	p->last = ts;
}

/* The page as the kernel hands it over: the whole sub-buffer. */
static void page_write(int fd, struct page *p)
{
	uint64_t commit = p->len;

	memcpy(p->b + 8, &commit, 8);
	assert_int_equal(write(fd, p->b, SUBBUF), SUBBUF);
}

/* A page of n events from ts on, 100 ns apart, ids from id on. */
static void write_events(int fd, uint64_t ts, int id, int n)
{
	struct page p;

	page_begin(&p, ts);
	for (int i = 0; i < n; i++)
		page_add(&p, ts + 100 * i, id + i);
	page_write(fd, &p);
}

static void set_now(int fd, const char *now)
{
	char text[256];
	int n = snprintf(text, sizeof(text), "entries: 0\noverrun: 0\nnow ts: %s\n"
			 "dropped events: 0\n", now);

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, text, n, 0), n);
}

struct got {
	int n;
	int cpu[1024], id[1024];
	uint64_t ts[1024];
};

static int collect(struct tep_record *rec, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 1024);
	g->cpu[g->n] = rec->cpu;
	memcpy(&g->id[g->n], (char *)rec->data + 4, 4);
	g->ts[g->n] = rec->ts;
	g->n++;
	return 0;
}

struct rig {
	int rd[2], wr[2], stats;
	struct stream *st;
};

static void rig_open(struct rig *r, int ncpu, bool stats)
{
	static const int cpus[] = { 0, 1 };

	for (int i = 0; i < ncpu; i++) {
		int p[2];

		/* Room for 16 sub-buffers, as a pipe has by default. */
		assert_int_equal(pipe2(p, O_NONBLOCK), 0);
		r->rd[i] = p[0];
		r->wr[i] = p[1];
	}
	r->stats = stats ? memfd_create("stats", 0) : -1;
	assert_int_equal(stream_open_fds(&r->st, tep, cpus, r->rd, ncpu, SUBBUF, r->stats), 0);
}

static void rig_close(struct rig *r, int ncpu)
{
	stream_free(r->st);
	for (int i = 0; i < ncpu; i++) {
		close(r->rd[i]);
		close(r->wr[i]);
	}
	if (r->stats >= 0)
		close(r->stats);
}

/* CPU 0 is empty when the drain begins and gets a record later, older than
 * CPU 1's last: it must come out before it. */
static void test_horizon(void **state)
{
	struct rig r;
	struct got g = { 0 };
	struct page p;

	rig_open(&r, 2, true);
	page_begin(&p, 10000);
	page_add(&p, 10000, 1);
	page_add(&p, 20000, 2);
	page_add(&p, 30000, 3);
	page_write(r.wr[1], &p);
	set_now(r.stats, "    0.000025");		/* 25 us */
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.id[0], 1);
	assert_int_equal(g.id[1], 2);

	write_events(r.wr[0], 22000, 100, 1);
	set_now(r.stats, "    0.000040");
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.cpu[2], 0);
	assert_int_equal(g.id[2], 100);
	assert_int_equal(g.cpu[3], 1);
	assert_int_equal(g.id[3], 3);
	for (int i = 1; i < g.n; i++)
		assert_true(g.ts[i] >= g.ts[i - 1]);
	rig_close(&r, 2);
}

/* Without the buffer's clock, a drain delivers all it reads; the last drain
 * always does. */
static void test_no_clock_and_last_drain(void **state)
{
	struct rig r;
	struct got g = { 0 };

	rig_open(&r, 1, false);
	write_events(r.wr[0], 1000, 1, 3);
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, 3);
	rig_close(&r, 1);

	memset(&g, 0, sizeof(g));
	rig_open(&r, 1, true);
	write_events(r.wr[0], 1000, 1, 3);
	set_now(r.stats, "0.000000");		/* before every record */
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(stream_drain(r.st, true, collect, NULL, &g), 0);
	assert_int_equal(g.n, 3);
	rig_close(&r, 1);
}

/*
 * A small page proves nothing about what follows it: the rest of the page
 * a reader had caught up with, written after that read, comes back small
 * while the writer has filled more pages since (seen on the 6.18 host: 30
 * records a 5 s system-wide run delivered up to 72 ms late, a task switched
 * in on one CPU after its exit on the other).  CPU 0 holds full, small
 * (the rest), full, all older than the horizon, then a page after it; CPU
 * 1's records fall between CPU 0's last two pages.  The drain delivers in
 * timestamp order and stops reading CPU 0 at the page past the horizon
 * (the one behind it stays unread until the next drain).
 */
static void test_small_page_then_more(void **state)
{
	const int full = (SUBBUF - 16) / 16, small = 5;
	struct stream_cpu_stats cs;
	struct rig r;
	struct got g = { 0 };

	rig_open(&r, 2, true);
	set_now(r.stats, "    0.001000");		/* 1 ms */
	write_events(r.wr[0], 1000, 0, full);
	write_events(r.wr[0], 100000, 1000, small);
	write_events(r.wr[0], 200000, 2000, full);
	write_events(r.wr[0], 2000000, 3000, small);
	write_events(r.wr[0], 3000000, 4000, small);
	write_events(r.wr[1], 150000, 500, 3);
	write_events(r.wr[1], 900000, 600, 2);
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, full + small + full + 5);
	for (int i = 1; i < g.n; i++)
		assert_true(g.ts[i] >= g.ts[i - 1]);
	assert_int_equal(g.cpu[g.n - 1], 1);
	assert_int_equal(g.id[g.n - 1], 601);
	stream_cpu(r.st, 0, &cs);
	assert_int_equal(cs.reads, 4);
	set_now(r.stats, "   10.000000");
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, full + small + full + 5 + 2 * small);
	assert_int_equal(g.id[g.n - 1], 4000 + small - 1);
	rig_close(&r, 2);
}

/* Without the buffer's clock: full, small, small, full: the drain stops
 * after the small page that follows a full one (most likely the writer's);
 * the next drain starts with a small page after a small one (it may be the
 * rest of a page read in part, with full ones behind it), reads on, and
 * gets the full one.  The last drain reads through. */
static void test_caught_up(void **state)
{
	const int full = (SUBBUF - 16) / 16, small = 5;
	struct rig r;
	struct got g = { 0 };

	rig_open(&r, 1, false);
	write_events(r.wr[0], 1000, 0, full);
	write_events(r.wr[0], 100000, 1000, small);
	write_events(r.wr[0], 200000, 2000, small);
	write_events(r.wr[0], 300000, 3000, full);
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, full + small);
	assert_int_equal(g.id[g.n - 1], 1000 + small - 1);
	assert_int_equal(stream_drain(r.st, false, collect, NULL, &g), 0);
	assert_int_equal(g.n, full + small + small + full);
	assert_int_equal(g.id[g.n - 1], 3000 + full - 1);
	rig_close(&r, 1);

	memset(&g, 0, sizeof(g));
	rig_open(&r, 1, true);
	write_events(r.wr[0], 1000, 0, full);
	write_events(r.wr[0], 100000, 1000, small);
	write_events(r.wr[0], 200000, 2000, full);
	assert_int_equal(stream_drain(r.st, true, collect, NULL, &g), 0);
	assert_int_equal(g.n, full + small + full);
	rig_close(&r, 1);
}

static int stop_at_3(struct tep_record *rec, void *arg)
{
	struct got *g = arg;

	collect(rec, arg);
	return g->n == 3;
}

/* A drain its callback stops (a signal in ftr's run) leaves the rest of the
 * loaded page and the pages behind it; stream_discard reads them all, on
 * every CPU, delivers none and counts each once. */
static void test_discard(void **state)
{
	struct rig r;
	struct got g = { 0 };

	rig_open(&r, 2, true);
	set_now(r.stats, "100.000000");
	write_events(r.wr[0], 1000, 0, 10);
	write_events(r.wr[0], 50000, 10, 4);
	write_events(r.wr[1], 1050, 100, 7);
	assert_int_equal(stream_drain(r.st, false, stop_at_3, NULL, &g), 1);
	assert_int_equal(g.n, 3);
	assert_int_equal(stream_discard(r.st), 10 + 4 + 7 - 3);
	assert_int_equal(stream_discard(r.st), 0);
	assert_int_equal(stream_drain(r.st, true, collect, NULL, &g), 0);
	assert_int_equal(g.n, 3);
	rig_close(&r, 2);
}

/* The kernel's flags in a sub-buffer's commit word (ring_buffer.c): events
 * were lost before this page; and their count is stored after the data. */
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)

/* The page with the missed-events flags, and the count after the data
 * when there is one. */
static void page_write_missed(int fd, struct page *p, long long missed)
{
	uint64_t commit = p->len | RB_MISSED_EVENTS;

	if (missed >= 0) {
		memcpy(p->b + 16 + p->len, &missed, 8);
		commit |= RB_MISSED_STORED;
	}
	memcpy(p->b + 8, &commit, 8);
	assert_int_equal(write(fd, p->b, SUBBUF), SUBBUF);
}

struct lost_seen {
	int n, records;
	long long v[8];
};

static void on_lost(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct lost_seen *l = arg;

	assert_true(l->n < 8);
	l->v[l->n++] = n;
}

static int count_records(struct tep_record *rec, void *arg)
{
	((struct lost_seen *)arg)->records++;
	return 0;
}

static int count_pages(int cpu, const void *page, size_t len, int nrec, void *arg)
{
	((struct lost_seen *)arg)->records += nrec;
	return 0;
}

/* Lost events as the kernel marks them: a page whose commit has
 * RB_MISSED_EVENTS and RB_MISSED_STORED carries the count (36) after its
 * data; one with RB_MISSED_EVENTS alone says "some" (-1).  Both drains
 * report them, count them per CPU, and the total holds them; the records
 * of those pages are all delivered, the stored count not taken for one. */
static void write_lossy(int fd)
{
	struct page p;

	write_events(fd, 1000, 1, 2);
	page_begin(&p, 5000);
	page_add(&p, 5000, 3);
	page_add(&p, 5100, 4);
	page_add(&p, 5200, 5);
	page_write_missed(fd, &p, 36);
	page_begin(&p, 9000);
	page_add(&p, 9000, 6);
	page_write_missed(fd, &p, -1);
}

/* What both drains must have seen of write_lossy's pages. */
static void check_lossy(struct rig *r, const struct lost_seen *l)
{
	struct stream_cpu_stats cs;
	bool unknown;

	assert_int_equal(l->records, 6);
	assert_int_equal(l->n, 2);
	assert_true(l->v[0] == 36);
	assert_true(l->v[1] == -1);
	stream_cpu(r->st, 0, &cs);
	assert_true(cs.lost_inline == 36);
	assert_true(cs.lost_unknown);
	assert_true(cs.delivered == 6);
	assert_true(stream_lost_total(r->st, &unknown) == 36);
	assert_true(unknown);
}

static void test_missed_events(void **state)
{
	struct rig r;
	struct lost_seen l = { 0 };

	rig_open(&r, 1, false);
	write_lossy(r.wr[0]);
	assert_int_equal(stream_drain(r.st, true, count_records, on_lost, &l), 0);
	check_lossy(&r, &l);
	rig_close(&r, 1);

	memset(&l, 0, sizeof(l));
	rig_open(&r, 1, false);
	write_lossy(r.wr[0]);
	assert_int_equal(stream_drain_pages(r.st, true, count_pages, on_lost, &l), 0);
	check_lossy(&r, &l);
	rig_close(&r, 1);
}

/* Put a 4-byte word at d. */
static unsigned char *put4(unsigned char *d, uint32_t v)
{
	memcpy(d, &v, 4);
	return d + 4;
}

/* ftr record counts a page's records from their headers, without
 * kbuffer's walk: the same count as kbuffer's over every kind of header
 * (a small record, a time extend, a long record whose length is the next
 * word, a discarded record, the padding that ends a page). */
static void test_page_count(void **state)
{
	struct page p;
	unsigned char *d;
	struct kbuffer *kb;
	unsigned long long ts;
	struct lost_seen l = { 0 };
	struct rig r;
	uint64_t commit;
	int n = 0;

	page_begin(&p, 1000);
	page_add(&p, 1000, 1);				/* type_len 3, 16 bytes */
	d = p.b + 16 + p.len;
	d = put4(d, 30 | (7u << 5));			/* time extend, 8 bytes */
	d = put4(d, 1);
	d = put4(d, 0 | (5u << 5));			/* long record: 4 + 124 bytes */
	d = put4(d, 124);
	memset(d, 0, 120);
	d += 120;
	d = put4(d, 29 | (1u << 5));			/* discarded: 4 + 16 bytes */
	d = put4(d, 16);
	memset(d, 0, 12);
	d += 12;
	d = put4(d, 2 | (3u << 5));			/* type_len 2, 12 bytes */
	memset(d, 0, 8);
	d += 8;
	d = put4(d, 29);				/* padding to the end */
	commit = (uint64_t)(d - (p.b + 16));
	memcpy(p.b + 8, &commit, 8);

	kb = tep_kbuffer(tep);
	assert_non_null(kb);
	assert_true(kbuffer_load_subbuffer(kb, p.b) >= 0);
	for (void *e = kbuffer_read_event(kb, &ts); e; e = kbuffer_next_event(kb, &ts))
		n++;
	kbuffer_free(kb);
	assert_int_equal(n, 3);

	rig_open(&r, 1, false);
	assert_int_equal(write(r.wr[0], p.b, SUBBUF), SUBBUF);
	assert_int_equal(stream_drain_pages(r.st, true, count_pages, on_lost, &l), 0);
	assert_int_equal(l.records, 3);
	rig_close(&r, 1);
}

static void test_parse_now(void **state)
{
	uint64_t ts = 0;

	assert_int_equal(stream_parse_now("entries: 0\nnow ts: 22184.770878\n", &ts), 0);
	assert_true(ts == 22184770878000ull);
	assert_int_equal(stream_parse_now("now ts:     0.000025\n", &ts), 0);
	assert_true(ts == 25000);
	/* a counter clock (x86-tsc, counter): the raw count */
	assert_int_equal(stream_parse_now("oldest event ts: 5\nnow ts: 123456789\n", &ts), 0);
	assert_true(ts == 123456789);
	assert_int_equal(stream_parse_now("entries: 0\n", &ts), -EINVAL);
	assert_int_equal(stream_parse_now("now ts: x\n", &ts), -EINVAL);
	assert_int_equal(stream_parse_now("now ts: 12.34\n", &ts), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_horizon),
		cmocka_unit_test(test_small_page_then_more),
		cmocka_unit_test(test_no_clock_and_last_drain),
		cmocka_unit_test(test_caught_up),
		cmocka_unit_test(test_parse_now),
		cmocka_unit_test(test_missed_events),
		cmocka_unit_test(test_page_count),
		cmocka_unit_test(test_discard),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
