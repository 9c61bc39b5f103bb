/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading the session instance's per-CPU raw ring buffers (trace_pipe_raw,
 * never the text trace_pipe), parsing pages with libtraceevent's kbuffer,
 * merging CPUs by timestamp, and accounting for every lost event.
 */
#ifndef FTR_STREAM_H
#define FTR_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct tep_handle;
struct tep_record;

/* Called for each record in timestamp order, with its ts, data, size and
 * cpu (not record_size); non-zero stops the drain. */
typedef int (*stream_record_fn)(struct tep_record *rec, void *arg);
/* Called where the kernel reports lost events on a CPU: n > 0 is a count,
 * n < 0 means "some, number unknown". */
typedef void (*stream_lost_fn)(int cpu, long long n, unsigned long long ts, void *arg);

struct stream_cpu_stats {
	uint64_t delivered;	/* records handed to the callback */
	uint64_t reads;		/* sub-buffers read */
	uint64_t lost_inline;	/* counts seen in page headers */
	bool lost_unknown;	/* a page said "lost, count unknown" */
	uint64_t overrun;	/* from per_cpu/cpuN/stats at the end */
	uint64_t dropped;
};

struct stream;

/* Open the instance's buffers for the CPUs in cpus (NULL: all).  The fds
 * belong to the session, which closes them before removing the instance. */
int stream_open(struct stream **out, struct session *s, struct tep_handle *tep,
		const bool *cpus, int ncpus_mask);
/* The same over open fds that read like trace_pipe_raw (O_NONBLOCK, one
 * sub-buffer per read) and a stats_fd that reads like a CPU's stats file
 * (or -1): for tests.  The fds stay the caller's. */
int stream_open_fds(struct stream **out, struct tep_handle *tep, const int *cpus, const int *fds,
		    int n, size_t subbuf, int stats_fd);
void stream_free(struct stream *st);

/* Wait for data (or extra_fd readable, or timeout).  Returns 1 when
 * extra_fd is readable, 0 otherwise, -errno on error. */
int stream_wait(struct stream *st, int extra_fd, int timeout_ms);
/* Deliver, merged by timestamp, the records written before the drain
 * began (every record when all is set: the last drain); the later ones wait
 * for the next drain.  A CPU is read up to where its reader catches up with
 * its writer.  Returns the callback's non-zero value when it stopped early,
 * else 0 or -errno. */
int stream_drain(struct stream *st, bool all, stream_record_fn fn, stream_lost_fn lost,
		 void *arg);
/* Read every record left in the buffers (tracing off) without delivering
 * it: how many there were. */
uint64_t stream_discard(struct stream *st);
/* Called per sub-buffer read, with the page as the kernel wrote it (len:
 * what the read returned) and how many records it holds; non-zero stops
 * the drain. */
typedef int (*stream_page_fn)(int cpu, const void *page, size_t len, int nrec, void *arg);
/* The same drain without decoding (ftr record): each CPU's pages in the
 * order read, CPU after CPU; lost events are reported as stream_drain
 * does.  A CPU is read until its reader catches up with its writer (every
 * page when all is set). */
int stream_drain_pages(struct stream *st, bool all, stream_page_fn fn, stream_lost_fn lost,
		       void *arg);
/* The size of the buffers' sub-buffers (pages): what one read moves. */
size_t stream_subbuf_size(const struct stream *st);

int stream_ncpus(const struct stream *st);
/* Per CPU (index into the opened list): cpu number and statistics;
 * stream_read_stats() refreshes overrun/dropped from tracefs. */
int stream_cpu(const struct stream *st, int i, struct stream_cpu_stats *stats);
int stream_read_stats(struct stream *st);
/* Total lost: max of inline counts and the kernel's stats per CPU. */
uint64_t stream_lost_total(const struct stream *st, bool *unknown);
/* CLOCK_MONOTONIC minus the buffer's clock (one counting nanoseconds),
 * from its stats file's "now ts" (microseconds) read between two
 * clock_gettime() calls, the tightest of a few tries: exact to about a
 * microsecond plus half the tightest pair's gap (*gap_ns).  0 or -errno. */
int stream_clock_offset(struct stream *st, int64_t *off_ns, uint64_t *gap_ns);

/* Pure, for tests: parse the overrun, commit overrun and dropped-events
 * counts of a per_cpu stats file. */
int stream_parse_stats(const char *text, uint64_t *overrun, uint64_t *dropped);
/* The same file's "now ts:" (the buffer's clock when it was read) in the
 * records' unit: nanoseconds from "secs.usecs", or a counter clock's raw
 * count.  0 or -EINVAL. */
int stream_parse_now(const char *text, uint64_t *ts);

#endif
