// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-CPU raw buffer reading: see stream.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "ftr.h"
#include "kernel/session.h"
#include "kernel/stream.h"

struct scpu {
	int cpu, fd;
	void *page;
	struct kbuffer *kb;
	void *data;		/* current record in the loaded page, or NULL */
	unsigned long long ts;
	bool eof;		/* nothing more to read in this drain */
	bool small;		/* the last page read was under half full */
	bool top;		/* the top level's buffer (session_use_top) */
	struct stream_cpu_stats st;
};

struct stream {
	struct session *s;
	struct tep_handle *tep;
	struct scpu *c;
	int n;
	size_t pagesize;	/* of the sub-buffers: what one read returns */
	bool all;		/* this drain reads every page */
	bool horizon;		/* this drain delivers up to a horizon */
	int stats_fd;		/* a CPU's stats, for the buffer's clock; -1 */
	struct pollfd *pfd;
};

int stream_parse_stats(const char *text, uint64_t *overrun, uint64_t *dropped)
{
	const char *p;
	int found = 0;

	*overrun = 0;
	*dropped = 0;
	/* "overrun:" counts events overwritten (overwrite mode), "commit
	 * overrun:" events lost inside a nested commit, "dropped events:"
	 * events refused when the buffer is full (non-overwrite mode). */
	p = strstr(text, "\noverrun: ");
	if (!p && str_has_prefix(text, "overrun: "))
		p = text - 1;
	if (p) {
		*overrun += strtoull(p + 10, NULL, 10);
		found++;
	}
	p = strstr(text, "commit overrun: ");
	if (p) {
		*overrun += strtoull(p + 16, NULL, 10);
		found++;
	}
	p = strstr(text, "dropped events: ");
	if (p) {
		*dropped = strtoull(p + 16, NULL, 10);
		found++;
	}
	return found ? 0 : -EINVAL;
}

int stream_parse_now(const char *text, uint64_t *ts)
{
	const char *p = strstr(text, "now ts:");
	char *end;
	uint64_t secs, us = 0;

	if (!p)
		return -EINVAL;
	p += 7;
	while (*p == ' ')
		p++;
	secs = strtoull(p, &end, 10);
	if (end == p)
		return -EINVAL;
	if (*end != '.') {
		*ts = secs;	/* a counter clock: the records' unit too */
		return 0;
	}
	p = end + 1;
	us = strtoull(p, &end, 10);
	if (end - p != 6)
		return -EINVAL;
	*ts = secs * 1000000000ull + us * 1000;
	return 0;
}

/* The buffer's clock now, or UINT64_MAX when it cannot be read (then a drain
 * delivers all it reads, as the last one does). */
static uint64_t buffer_now(struct stream *st)
{
	char text[512];
	ssize_t r;
	uint64_t ts;

	if (st->stats_fd < 0)
		return UINT64_MAX;
	r = pread(st->stats_fd, text, sizeof(text) - 1, 0);
	if (r <= 0)
		return UINT64_MAX;
	text[r] = '\0';
	return stream_parse_now(text, &ts) < 0 ? UINT64_MAX : ts;
}

int stream_clock_offset(struct stream *st, int64_t *off_ns, uint64_t *gap_ns)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 8; i++) {
		struct timespec a, b;
		uint64_t now, t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &a);
		now = buffer_now(st);
		clock_gettime(CLOCK_MONOTONIC, &b);
		if (now == UINT64_MAX)
			return -EIO;
		t0 = (uint64_t)a.tv_sec * 1000000000ull + (uint64_t)a.tv_nsec;
		t1 = (uint64_t)b.tv_sec * 1000000000ull + (uint64_t)b.tv_nsec;
		if (t1 - t0 >= best)
			continue;
		best = t1 - t0;
		/* "now ts" is cut to the microsecond: the clock read was in
		 * [now, now + 1 us), its middle is now + 500 ns. */
		*off_ns = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)(now + 500);
	}
	if (gap_ns)
		*gap_ns = best;
	return 0;
}

static struct stream *stream_new(struct tep_handle *tep, int max, size_t subbuf)
{
	struct stream *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->tep = tep;
	st->stats_fd = -1;
	st->pagesize = subbuf;
	st->c = calloc(max, sizeof(*st->c));
	st->pfd = calloc(max + 1, sizeof(*st->pfd));
	if (!st->c || !st->pfd) {
		stream_free(st);
		return NULL;
	}
	return st;
}

static int add_cpu(struct stream *st, int cpu, int fd)
{
	struct scpu *c = &st->c[st->n++];

	c->cpu = cpu;
	c->fd = fd;
	c->page = malloc(st->pagesize);
	c->kb = tep_kbuffer(st->tep);
	return c->page && c->kb ? 0 : -ENOMEM;
}

int stream_open_fds(struct stream **out, struct tep_handle *tep, const int *cpus, const int *fds,
		    int n, size_t subbuf, int stats_fd)
{
	struct stream *st = stream_new(tep, n, subbuf);

	if (!st)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (add_cpu(st, cpus[i], fds[i]) < 0) {
			stream_free(st);
			return -ENOMEM;
		}
	}
	st->stats_fd = stats_fd;
	*out = st;
	return 0;
}

/* Each CPU's trace_pipe_raw of inst (NULL: the top level's) into st. */
static int open_cpus(struct stream *st, struct session *s, struct tracefs_instance *inst,
		     long nconf, const bool *cpus, int ncpus_mask)
{
	char file[64];
	int err;

	for (int cpu = 0; cpu < nconf; cpu++) {
		int fd;

		if (cpus && (cpu >= ncpus_mask || !cpus[cpu]))
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/trace_pipe_raw", cpu);
		if (!tracefs_file_exists(inst, file))
			continue;	/* possible but not present CPU */
		fd = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK);
		if (fd < 0) {
			err = -errno;
			ftr_err("cannot open '%s' of %s '%s': %s", file, inst ? "instance" : "the top level",
				inst ? session_name(s) : session_tracefs(s)->path, strerror(errno));
			return err;
		}
		session_track_fd(s, fd);
		err = add_cpu(st, cpu, fd);
		if (err)
			return err;
		st->c[st->n - 1].top = !inst;
	}
	return 0;
}

int stream_open(struct stream **out, struct session *s, struct tep_handle *tep, const bool *cpus,
		int ncpus_mask)
{
	struct tracefs_instance *inst = session_instance(s);
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	size_t subbuf = getpagesize();
	struct stream *st;
	char file[64];
	int err;

	if (!inst)
		return -EIO;
	/* The instance's sub-buffers may be bigger than a page (engine.c
	 * chooses; 6.8 and later): a read returns one whole sub-buffer. */
	if (tracefs_file_exists(inst, "buffer_subbuf_size_kb")) {
		char *v = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
		long kb = v ? strtol(v, NULL, 10) : 0;

		free(v);
		if (kb > 0 && (size_t)kb * 1024 > subbuf)
			subbuf = (size_t)kb * 1024;
	}
	/* The top level's tracer (function_graph before 6.11) writes to the
	 * top level's buffers, read beside the instance's (its events that
	 * name and follow tasks), on the same clock (engine.c sets both). */
	st = stream_new(tep, session_top(s) ? 2 * nconf : nconf, subbuf);
	if (!st)
		return -ENOMEM;
	st->s = s;
	err = open_cpus(st, s, inst, nconf, cpus, ncpus_mask);
	if (!err && session_top(s))
		err = open_cpus(st, s, NULL, nconf, cpus, ncpus_mask);
	if (err)
		goto fail;
	if (st->n == 0) {
		ftr_err("no CPU buffer to read in instance '%s'", session_name(s));
		err = -ENOENT;
		goto fail;
	}
	/* Any CPU's stats tell the buffer's clock (drain's horizon). */
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", st->c[0].cpu);
	st->stats_fd = tracefs_instance_file_open(inst, file, O_RDONLY);
	if (st->stats_fd >= 0)
		session_track_fd(s, st->stats_fd);
	*out = st;
	return 0;
fail:
	stream_free(st);
	return err;
}

void stream_free(struct stream *st)
{
	if (!st)
		return;
	for (int i = 0; st->c && i < st->n; i++) {
		free(st->c[i].page);
		kbuffer_free(st->c[i].kb);
	}
	free(st->c);
	free(st->pfd);
	free(st);
}

int stream_wait(struct stream *st, int extra_fd, int timeout_ms)
{
	int n = 0, r;

	for (int i = 0; i < st->n; i++) {
		st->pfd[n].fd = st->c[i].fd;
		st->pfd[n].events = POLLIN;
		st->pfd[n].revents = 0;
		n++;
	}
	if (extra_fd >= 0) {
		st->pfd[n].fd = extra_fd;
		st->pfd[n].events = POLLIN;
		st->pfd[n].revents = 0;
		n++;
	}
	r = poll(st->pfd, n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return extra_fd >= 0 && (st->pfd[n - 1].revents & POLLIN) ? 1 : 0;
}

/* Load the next page of a CPU; false when its buffer is empty now. */
static bool load_page(struct stream *st, struct scpu *c, stream_lost_fn lost, void *arg)
{
	ssize_t r;
	int missed;
	bool small;

	c->data = NULL;
	if (c->eof)
		return false;
	for (;;) {
		r = read(c->fd, c->page, st->pagesize);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			/* EAGAIN: empty for now.  Other errors end this CPU's
			 * drain; the next one retries. */
			c->eof = true;
			return false;
		}
		c->st.reads++;
		if (kbuffer_load_subbuffer(c->kb, c->page) < 0)
			continue;
		/*
		 * A drain with a horizon reads a CPU only while every record
		 * it holds is older than the horizon (stream_drain loads the
		 * next page when one is used up): the read after the writer's
		 * page gets what was written since, later than the horizon,
		 * or nothing.  A small page proves nothing about the pages
		 * behind it: the rest of the page the reader had caught up
		 * with, written after that read, comes back small while the
		 * writer has filled more pages since; stopping there let the
		 * other CPUs deliver past records still unread on this one.
		 *
		 * Without a horizon (a drain that cannot read the buffer's
		 * clock), a page under half full read right after a full one
		 * ends this CPU's drain, most likely the writer's page, copied:
		 * reading on would fetch a few events per read, each under the
		 * buffer's lock.  The next poll wakes at the watermark.
		 */
		small = (size_t)kbuffer_subbuffer_size(c->kb) < st->pagesize / 2;
		if (small && !c->small && !st->all && !st->horizon)
			c->eof = true;
		c->small = small;
		c->data = kbuffer_read_event(c->kb, &c->ts);
		/* The page header says whether events were lost before this
		 * page: a count, or -1 for "some". */
		missed = kbuffer_missed_events(c->kb);
		if (missed) {
			if (missed > 0)
				c->st.lost_inline += missed;
			else
				c->st.lost_unknown = true;
			if (lost)
				lost(c->cpu, missed, c->ts, arg);
		}
		if (c->data)
			return true;
		if (c->eof)
			return false;
	}
}

/* Whether a CPU's current record goes before b's: older first, and on equal
 * timestamps the CPU opened first. */
static inline bool before(const struct scpu *a, const struct scpu *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a < b);
}

int stream_drain(struct stream *st, bool all, stream_record_fn fn, stream_lost_fn lost,
		 void *arg)
{
	struct tep_record rec;
	uint64_t horizon;
	int ret;

	/*
	 * The horizon: the buffer's clock before any CPU is read.  A record
	 * stamped before it was committed before the read of its CPU (short
	 * of a writer held between reserving and committing it), so every
	 * record up to the horizon is in hand when the merge reaches it, on
	 * every CPU.  Later ones wait for the next drain: delivering them now
	 * could put them ahead of older ones a CPU read earlier did not have
	 * yet.
	 */
	st->all = all;
	horizon = all ? UINT64_MAX : buffer_now(st);
	st->horizon = horizon != UINT64_MAX;
	for (int i = 0; i < st->n; i++) {
		st->c[i].eof = false;
		if (!st->c[i].data)
			load_page(st, &st->c[i], lost, arg);
	}
	/* record_size and the other fields stay 0: nobody reads them. */
	memset(&rec, 0, sizeof(rec));
	rec.ref_count = 1;
	for (;;) {
		struct scpu *best = NULL, *next = NULL;

		/* k-way merge by timestamp; CPUs are few, a scan is cheapest.
		 * The runner-up bounds a run of records from the best CPU that
		 * needs no new scan: with one busy CPU, one scan per drain. */
		for (int i = 0; i < st->n; i++) {
			struct scpu *c = &st->c[i];

			if (c->data && (!best || before(c, best)))
				best = c;
		}
		if (!best || best->ts > horizon)
			return 0;
		for (int i = 0; i < st->n; i++) {
			struct scpu *c = &st->c[i];

			if (c != best && c->data && (!next || before(c, next)))
				next = c;
		}
		rec.cpu = best->cpu;
		do {
			rec.ts = best->ts;
			rec.data = best->data;
			rec.size = kbuffer_event_size(best->kb);
			best->st.delivered++;
			ret = fn(&rec, arg);
			best->data = kbuffer_next_event(best->kb, &best->ts);
			if (!best->data)
				load_page(st, best, lost, arg);
			if (ret)
				return ret;
		} while (best->data && best->ts <= horizon && (!next || before(best, next)));
	}
}

uint64_t stream_discard(struct stream *st)
{
	uint64_t n = 0;

	st->all = true;
	for (int i = 0; i < st->n; i++) {
		struct scpu *c = &st->c[i];

		c->eof = false;
		if (!c->data)
			load_page(st, c, NULL, NULL);
		while (c->data) {
			n++;
			c->data = kbuffer_next_event(c->kb, &c->ts);
			if (!c->data)
				load_page(st, c, NULL, NULL);
		}
	}
	return n;
}

/*
 * The records of a loaded page, counted from their headers alone, and the
 * page's time stamp (for a loss report): kbuffer_next_event() also decodes
 * each record's time, some 20 ns a record, a fifth of ftr record's CPU.
 * The header is the kernel's (events/header_event, the same since 2.6.3x):
 * a 32-bit word, type_len in its low 5 bits (the high 5 on a big-endian
 * kernel) and the time delta in the rest; type_len 1-28 is a record of
 * type_len * 4 bytes after the header, 0 a record whose length (from that
 * word on) is the next word, 29 padding: a discarded record of the same
 * kind, or the end of the page when its delta is 0; 30 and 31, a time
 * extend or stamp of 8 bytes, are not records.
 */
static int page_records(struct kbuffer *kb, const void *page, size_t len, size_t size,
			unsigned long long *ts)
{
	const unsigned char *p = (const unsigned char *)page + kbuffer_start_of_data(kb);
	const unsigned char *end = (const unsigned char *)page + len;
	int n = 0;

	if (p > end)
		return 0;
	if ((size_t)(end - p) > size)
		end = p + size;

	kbuffer_read_event(kb, ts);
	while (end - p >= 4) {
		uint32_t h, type, delta, word;

		memcpy(&h, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		type = h >> 27;
		delta = h & ((1u << 27) - 1);
#else
		type = h & 31;
		delta = h >> 5;
#endif
		if (type >= 30) {
			p += 8;
			continue;
		}
		if (type) {
			if (type == 29 && !delta)
				break;
			if (type < 29) {
				n++;
				p += 4 + 4 * (size_t)type;
				continue;
			}
		}
		if (end - p < 8)
			break;
		memcpy(&word, p + 4, 4);
		n += !type;
		p += 4 + (size_t)(word < 4 ? 4 : word);
	}
	return n;
}

int stream_drain_pages(struct stream *st, bool all, stream_page_fn fn, stream_lost_fn lost,
		       void *arg)
{
	for (int i = 0; i < st->n; i++) {
		struct scpu *c = &st->c[i];

		for (;;) {
			unsigned long long ts = 0;
			ssize_t r = read(c->fd, c->page, st->pagesize);
			int missed, n = 0, ret;
			size_t size;

			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;	/* EAGAIN: empty for now */
			c->st.reads++;
			if (kbuffer_load_subbuffer(c->kb, c->page) < 0)
				continue;
			size = (size_t)kbuffer_subbuffer_size(c->kb);
			missed = kbuffer_missed_events(c->kb);
			n = page_records(c->kb, c->page, (size_t)r, size, &ts);
			if (missed) {
				if (missed > 0)
					c->st.lost_inline += missed;
				else
					c->st.lost_unknown = true;
				if (lost)
					lost(c->cpu, missed, ts, arg);
			}
			c->st.delivered += n;
			if ((n || missed) && (ret = fn(c->cpu, c->page, (size_t)r, n, arg)))
				return ret;
			/* Under half full: most likely the writer's page,
			 * copied; reading on would fetch a few records a read.
			 * If it was the rest of a page read in part, the next
			 * drain reads on (pages need no merge here). */
			if (!all && size < st->pagesize / 2)
				break;
		}
	}
	return 0;
}

size_t stream_subbuf_size(const struct stream *st)
{
	return st->pagesize;
}

int stream_ncpus(const struct stream *st)
{
	return st->n;
}

int stream_cpu(const struct stream *st, int i, struct stream_cpu_stats *stats)
{
	if (stats)
		*stats = st->c[i].st;
	return st->c[i].cpu;
}

int stream_read_stats(struct stream *st)
{
	struct tracefs_instance *inst = session_instance(st->s);

	for (int i = 0; i < st->n; i++) {
		char file[64], *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", st->c[i].cpu);
		text = tracefs_instance_file_read(st->c[i].top ? NULL : inst, file, NULL);
		if (!text)
			return -errno;
		stream_parse_stats(text, &st->c[i].st.overrun, &st->c[i].st.dropped);
		free(text);
	}
	return 0;
}

uint64_t stream_lost_total(const struct stream *st, bool *unknown)
{
	uint64_t total = 0;

	if (unknown)
		*unknown = false;
	for (int i = 0; i < st->n; i++) {
		const struct stream_cpu_stats *c = &st->c[i].st;
		uint64_t k = c->overrun + c->dropped;

		/* The kernel's counters are exact; page headers may only say
		 * "some" — take whichever knows more. */
		total += k > c->lost_inline ? k : c->lost_inline;
		if (unknown && c->lost_unknown && !k)
			*unknown = true;
	}
	return total;
}
