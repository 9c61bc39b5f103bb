// SPDX-License-Identifier: GPL-2.0-or-later
/* trace-cmd data files: see tdat.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>

#include "report/tdat.h"

/* A cursor over the file: every read is bounds-checked against its size. */
struct cur {
	int fd;
	off_t pos, size;
	bool swap;
	char *err;
	size_t errlen;
};

static int fail(struct cur *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->errlen, "at offset %lld: ", (long long)c->pos);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int get(struct cur *c, void *buf, size_t len, const char *what)
{
	if (c->pos < 0 || (off_t)len > c->size - c->pos)
		return fail(c, "the file ends inside %s (truncated?)", what);
	if (pread(c->fd, buf, len, c->pos) != (ssize_t)len)
		return -EIO;
	c->pos += len;
	return 0;
}

static int get_u(struct cur *c, int bytes, uint64_t *v, const char *what)
{
	unsigned char b[8];
	int err = get(c, b, bytes, what);

	if (err)
		return err;
	/* b[] is in the file's order: little endian unless swap says big. */
	if (!c->swap) {
		*v = 0;
		for (int i = bytes - 1; i >= 0; i--)
			*v = (*v << 8) | b[i];
	} else {
		*v = 0;
		for (int i = 0; i < bytes; i++)
			*v = (*v << 8) | b[i];
	}
	return 0;
}

/* A block of len bytes, skipped. */
static int skip(struct cur *c, uint64_t len, const char *what)
{
	if (len > (uint64_t)(c->size - c->pos))
		return fail(c, "%s says %llu bytes, past the end of the file (truncated?)", what,
			    (unsigned long long)len);
	c->pos += (off_t)len;
	return 0;
}

static int expect(struct cur *c, const char *s, size_t len, const char *what)
{
	char buf[16];
	int err = get(c, buf, len, what);

	if (err)
		return err;
	if (memcmp(buf, s, len)) {
		c->pos -= len;
		return fail(c, "no '%s' here: not a trace-cmd data file, or a damaged one", what);
	}
	return 0;
}

/* A NUL-terminated name of at most 255 bytes. */
static int get_name(struct cur *c, char *out, size_t outlen, const char *what)
{
	for (size_t i = 0; i < outlen; i++) {
		int err = get(c, &out[i], 1, what);

		if (err)
			return err;
		if (!out[i])
			return 0;
	}
	return fail(c, "%s is not a name", what);
}

static uint32_t word(const unsigned char *b, bool swap)
{
	return swap ? (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] :
		      (uint32_t)b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0];
}

/*
 * The records of one page's len bytes, walked as libtraceevent's kbuffer
 * walks them: each 4-byte header's low 5 bits (type_len; the first 5 on a
 * big-endian file) say how long the record is — 1..28 words of data, 0 a
 * length word (itself included) then the data, 29 padding (a length word
 * after the header), 30 and 31 a time word.  kbuffer computes the next
 * record's place in an int: a length word of 0xfffffffc sent it 8 bytes
 * back, and ftr report printed the same two events forever (issue 38).
 * Every record must lie within the page and move the walk forward.
 */
static int check_records(struct cur *c, const struct tdat_head *h, uint32_t cpu,
			 const unsigned char *d, uint64_t len, off_t at)
{
	uint64_t q = 0;

	while (q < len) {
		uint32_t w, tl;
		uint64_t rlen;

		if (len - q < 4)
			goto bad;
		w = word(d + q, h->big_endian);
		tl = h->big_endian ? w >> 27 : w & 31;
		if (tl >= 1 && tl <= 28) {
			rlen = 4 + 4 * (uint64_t)tl;
		} else if (len - q < 8) {
			goto bad;
		} else if (tl == 0) {
			uint64_t a = word(d + q + 4, h->big_endian);

			if (a < 4)
				goto bad;
			rlen = 8 + ((a - 4 + 3) & ~(uint64_t)3);
		} else if (tl == 29) {
			rlen = 4 + (uint64_t)word(d + q + 4, h->big_endian);
		} else {
			rlen = 8;
		}
		if (rlen > len - q)
			goto bad;
		q += rlen;
	}
	return 0;
bad:
	c->pos = at + (off_t)q;
	return fail(c, "a record of CPU %u's page has a length that does not fit the page "
		    "(%llu bytes from the page's data): a damaged file", cpu,
		    (unsigned long long)q);
}

/*
 * Each page's header: libtraceevent's kbuffer trusts the length it gives
 * (and reads past the page on a damaged one), so it is checked here: a
 * timestamp, then the commit (kernel long) whose low 27 bits are the data's
 * length and bits 30 and 31 flags (events lost; their count stored after
 * the data); then the records' lengths (check_records).
 */
static int check_pages(struct cur *c, const struct tdat_head *h, uint32_t cpu, uint64_t off,
		       uint64_t size)
{
	uint32_t hdr = 8 + h->commit_size;
	unsigned char *pg = size ? malloc(h->page_size) : NULL;
	off_t save = c->pos;
	int e = 0;

	if (size && !pg)
		return -ENOMEM;
	for (uint64_t p = off; p < off + size && !e; p += h->page_size) {
		uint64_t commit, len;

		c->pos = (off_t)p + 8;
		if ((e = get_u(c, h->commit_size, &commit, "a page header")))
			break;
		/* The kernel sets the flags as (1 << 31) in a long: on 64-bit
		 * the upper half is the sign's; readers look at 32 bits. */
		len = commit & ((1u << 27) - 1);
		if ((commit & 0x38000000) ||
		    len + hdr + ((commit >> 30) & 1 ? h->commit_size : 0) > h->page_size) {
			c->pos = (off_t)p;
			e = fail(c, "CPU %u's page says it holds %llu bytes, more than a page: "
				 "a damaged file", cpu, (unsigned long long)len);
			break;
		}
		c->pos = (off_t)p + hdr;
		if (!(e = get(c, pg, len, "a page's records")))
			e = check_records(c, h, cpu, pg, len, (off_t)p + hdr);
	}
	free(pg);
	if (!e)
		c->pos = save;
	return e;
}

int tdat_head_parse(int fd, struct tdat_head *h, char *err, size_t errlen)
{
	struct cur c = { .fd = fd, .err = err, .errlen = errlen };
	struct stat st;
	char ver[8], name[256];
	unsigned char b[2];
	uint64_t v, n;
	int e;

	memset(h, 0, sizeof(*h));
	if (fstat(fd, &st) < 0)
		return -errno;
	c.size = h->file_size = st.st_size;
	if (c.size == 0) {
		snprintf(err, errlen, "the file is empty");
		return -EINVAL;
	}
	if ((e = expect(&c, TDAT_MAGIC, TDAT_MAGIC_LEN, "trace-cmd magic")) ||
	    (e = get_name(&c, ver, sizeof(ver), "the version")))
		return e;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return fail(&c, "version '%s' is not one ftr reads (6 or 7)", ver);
	h->version = ver[0] - '0';
	if ((e = get(&c, b, 2, "the endianness")))
		return e;
	if (b[0] > 1 || (b[1] != 4 && b[1] != 8))
		return fail(&c, "bad endianness %u or long size %u", b[0], b[1]);
	h->big_endian = b[0];
	h->long_size = b[1];
	c.swap = h->big_endian;
	if ((e = get_u(&c, 4, &v, "the page size")))
		return e;
	if (v < 64 || v > (1u << 24) || (v & (v - 1)))
		return fail(&c, "page size %llu is not a power of two up to 16 MB",
			    (unsigned long long)v);
	h->page_size = (uint32_t)v;
	if (h->version == 7)
		return 0;	/* sections: libtracecmd's to walk */

	if ((e = expect(&c, "header_page", 12, "header_page")) ||
	    (e = get_u(&c, 8, &v, "header_page's size")))
		return e;
	/* libtracecmd 1.x crashes (in its own cleanup) on a header page
	 * libtraceevent cannot parse: parse it here first. */
	if (v > 0 && v < 65536 && (uint64_t)(c.size - c.pos) >= v) {
		char *hp = malloc(v);
		struct tep_handle *tep = tep_alloc();
		bool bad = !hp || !tep || pread(fd, hp, v, c.pos) != (ssize_t)v ||
			   tep_parse_header_page(tep, hp, v, h->long_size) != 0 ||
			   !memmem(hp, v, "\tfield: u64 timestamp;", 22) ||
			   !memmem(hp, v, "\tfield: local_t commit;", 23) ||
			   !memmem(hp, v, "\tfield: char data;", 18);

		if (!bad) {
			const char *cs = memmem(hp, v, "local_t commit;", 15);
			const char *sz = cs ? memmem(cs, v - (cs - hp), "size:", 5) : NULL;

			h->commit_size = sz && sz + 6 < hp + v ? atoi(sz + 5) : 0;
			bad = h->commit_size != 4 && h->commit_size != 8;
		}
		free(hp);
		if (tep)
			tep_free(tep);
		if (bad)
			return fail(&c, "the header page cannot be parsed: a damaged file");
	} else if (v >= 65536) {
		return fail(&c, "a header page of %llu bytes: a damaged file", (unsigned long long)v);
	}
	if ((e = skip(&c, v, "header_page")) ||
	    (e = expect(&c, "header_event", 13, "header_event")) ||
	    (e = get_u(&c, 8, &v, "header_event's size")) || (e = skip(&c, v, "header_event")))
		return e;
	h->fmt_off = c.pos;
	if ((e = get_u(&c, 4, &n, "the count of ftrace formats")))
		return e;
	for (uint64_t i = 0; i < n; i++)
		if ((e = get_u(&c, 8, &v, "an ftrace format's size")) ||
		    (e = skip(&c, v, "an ftrace format")))
			return e;
	if ((e = get_u(&c, 4, &n, "the count of event systems")))
		return e;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t nev;

		if ((e = get_name(&c, name, sizeof(name), "a system name")) ||
		    (e = get_u(&c, 4, &nev, "a system's count of events")))
			return e;
		for (uint64_t j = 0; j < nev; j++)
			if ((e = get_u(&c, 8, &v, "an event format's size")) ||
			    (e = skip(&c, v, "an event format")))
				return e;
	}
	if ((e = get_u(&c, 4, &v, "the kallsyms size")))
		return e;
	h->ksyms_off = c.pos;
	h->ksyms_len = (uint32_t)v;
	if ((e = skip(&c, v, "kallsyms")) || (e = get_u(&c, 4, &v, "the printk formats' size")) ||
	    (e = skip(&c, v, "the printk formats")))
		return e;
	h->cmd_off = c.pos;
	if ((e = get_u(&c, 8, &v, "the saved cmdlines' size")) ||
	    (e = skip(&c, v, "the saved cmdlines")) ||
	    (e = get_u(&c, 4, &v, "the CPU count")))
		return e;
	if (v == 0 || v > 65536)
		return fail(&c, "%llu CPUs", (unsigned long long)v);
	h->ncpu = (uint32_t)v;
	if ((e = get(&c, name, 10, "the data's kind")))
		return e;
	if (!memcmp(name, "options  ", 10)) {
		for (;;) {
			if ((e = get_u(&c, 2, &v, "an option's id")))
				return e;
			if (v == TDAT_OPT_DONE)
				break;
			if ((e = get_u(&c, 4, &n, "an option's size")) ||
			    (e = skip(&c, n, "an option")))
				return e;
		}
		if ((e = get(&c, name, 10, "the data's kind")))
			return e;
	}
	if (!memcmp(name, "latency  ", 10)) {
		h->latency = true;
		return 0;
	}
	if (memcmp(name, "flyrecord", 10)) {
		c.pos -= 10;
		return fail(&c, "neither 'flyrecord' nor 'latency': a damaged file");
	}
	h->tab_off = c.pos;
	h->unfinished = true;
	for (uint32_t i = 0; i < h->ncpu; i++) {
		uint64_t off, size;

		if ((e = get_u(&c, 8, &off, "a CPU's data offset")) ||
		    (e = get_u(&c, 8, &size, "a CPU's data size")))
			return e;
		if (off)
			h->unfinished = false;
		if (off > (uint64_t)c.size || size > (uint64_t)c.size - off) {
			c.pos -= 16;
			return fail(&c, "CPU %u's data (%llu bytes at %llu) goes past the end of the "
				    "file (%lld bytes): truncated", i, (unsigned long long)size,
				    (unsigned long long)off, (long long)c.size);
		}
		if (off % h->page_size || size % h->page_size) {
			c.pos -= 16;
			return fail(&c, "CPU %u's data is not in whole pages", i);
		}
		if ((e = check_pages(&c, h, i, off, size)))
			return e;
	}
	return 0;
}

#ifdef FTR_NO_TRACECMD

struct tdat *tdat_open(const char *path, char *err, size_t errlen)
{
	snprintf(err, errlen, "reading trace-cmd data files is not in this build (the static "
		 "build has no libtracecmd): read '%s' with the dynamic ftr or trace-cmd", path);
	errno = ENOTSUP;
	return NULL;
}

void tdat_close(struct tdat *t)
{
}

struct tep_handle *tdat_tep(struct tdat *t)
{
	return NULL;
}

int tdat_iterate(struct tdat *t, int (*fn)(struct tep_record *rec, void *arg),
		 void (*lost)(int cpu, long long n, unsigned long long ts, void *arg), void *arg)
{
	return -ENOTSUP;
}

unsigned long long tdat_first_ts(struct tdat *t)
{
	return 0;
}

char *tdat_kallsyms(struct tdat *t)
{
	errno = ENOTSUP;
	return NULL;
}

const struct tdat_head *tdat_head(const struct tdat *t)
{
	return NULL;
}

#else

#include <signal.h>
#include <sys/wait.h>
#include <trace-cmd.h>

/*
 * libtraceevent's format parser crashes on some damaged print formats
 * (one byte changed: "__get_st%(filename)" divides by zero, SIGFPE, in
 * tep_parse_event; trace-cmd crashes the same way), and libtracecmd hands
 * it every format of a file.  What crashes it cannot be listed in advance,
 * so each format is first parsed in a child process: the child says where
 * each format begins before parsing it, and if it dies, the file is refused
 * with the format it died on (a sanitizer's report in the child exits 1:
 * a crash too; 3 is the child's own "cannot walk", left to the open).  A
 * version 7 file (sections, maybe
 * compressed) is opened whole in the child instead.
 */
static int parse_formats_child(int fd, const struct tdat_head *h, const char *path, int out)
{
	struct cur c = { .fd = fd, .pos = h->fmt_off, .size = h->file_size, .swap = h->big_endian };
	struct tep_handle *tep = tep_alloc();
	char sys[256] = "ftrace", err[256];
	uint64_t nsys = 1, n, v;

	c.err = err;
	c.errlen = sizeof(err);
	if (!tep)
		return 3;
	if (h->version == 7) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		return tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS) ? 0 : 3;
	}
	for (uint64_t i = 0; i <= nsys; i++) {
		if (i == 1 && get_u(&c, 4, &nsys, "the count of event systems"))
			return 3;
		if (i >= 1 && i <= nsys && get_name(&c, sys, sizeof(sys), "a system name"))
			return 3;
		if (i > nsys)
			break;
		if (get_u(&c, 4, &n, "a count of formats"))
			return 3;
		for (uint64_t j = 0; j < n; j++) {
			off_t at = c.pos;
			char *buf;

			if (get_u(&c, 8, &v, "a format's size") || v > (uint64_t)(c.size - c.pos))
				return 3;
			buf = malloc(v + 1);
			if (!buf || pread(fd, buf, v, c.pos) != (ssize_t)v)
				return 3;
			buf[v] = 0;
			if (write(out, &at, sizeof(at)) != sizeof(at))
				return 3;
			tep_parse_event(tep, buf, v, sys);
			free(buf);
			c.pos += (off_t)v;
		}
	}
	return 0;
}

static int check_formats(int fd, const struct tdat_head *h, const char *path, char *err,
			 size_t errlen)
{
	int p[2], status;
	off_t at = -1, next;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		close(p[0]);
		/* Its death is reported by the parent, not by libtraceevent's
		 * warnings or a sanitizer's report. */
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		/* A parser that loops is a damaged file too. */
		alarm(30);
		_exit(parse_formats_child(fd, h, path, p[1]));
	}
	close(p[1]);
	while (read(p[0], &next, sizeof(next)) == sizeof(next))
		at = next;
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		return 0;	/* not a crash: the open below says what it finds */
	if (h->version == 7 || at < 0)
		snprintf(err, errlen, "libtracecmd's reading of its header dies (%s): a damaged "
			 "file", WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "a crash");
	else
		snprintf(err, errlen, "at offset %lld: the event format there makes libtraceevent's "
			 "parser die (%s): a damaged file", (long long)at,
			 WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "a crash");
	return -EINVAL;
}

struct tdat {
	struct tracecmd_input *in;
	struct tracecmd_input **all;	/* in, then its instances' buffers */
	int nall;
	struct tdat_head h;
	int fd;
	int (*fn)(struct tep_record *rec, void *arg);
	void (*lost)(int cpu, long long n, unsigned long long ts, void *arg);
	void *arg;
};

struct tdat *tdat_open(const char *path, char *err, size_t errlen)
{
	struct tdat *t = calloc(1, sizeof(*t));
	int e;

	if (!t)
		return NULL;
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		e = errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
		free(t);
		errno = e;
		return NULL;
	}
	e = tdat_head_parse(t->fd, &t->h, err, errlen);
	if (e == 0 && t->h.latency) {
		snprintf(err, errlen, "a latency-format file (text, no events to read)");
		e = -EINVAL;
	}
	if (e == 0 && t->h.unfinished) {
		snprintf(err, errlen, "the file is unfinished: its recorder was stopped before it "
			 "wrote where each CPU's data is (reading never writes: 'ftr record --finish "
			 "FILE' completes a file of ftr's from its FILE.cpuN side files)");
		e = -EINVAL;
	}
	if (e) {
		close(t->fd);
		free(t);
		errno = -e;
		return NULL;
	}
	e = check_formats(t->fd, &t->h, path, err, errlen);
	if (e) {
		close(t->fd);
		free(t);
		errno = -e;
		return NULL;
	}
	/* Quiet: its messages go to stdout; ours say what failed. */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	t->in = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!t->in) {
		snprintf(err, errlen, "libtracecmd cannot read it (a damaged or unsupported "
			 "trace-cmd file)");
		close(t->fd);
		free(t);
		errno = EINVAL;
		return NULL;
	}
	/* trace-cmd records an instance (-B NAME, extract -B) as a buffer of
	 * its own, beside the top level's (often empty). */
	t->nall = 1 + (tracecmd_buffer_instances(t->in) > 0 ? tracecmd_buffer_instances(t->in) : 0);
	t->all = calloc(t->nall, sizeof(*t->all));
	if (!t->all) {
		tdat_close(t);
		return NULL;
	}
	t->all[0] = t->in;
	for (int i = 1; i < t->nall; i++) {
		t->all[i] = tracecmd_buffer_instance_handle(t->in, i - 1);
		if (!t->all[i]) {
			snprintf(err, errlen, "libtracecmd cannot read its buffer '%s'",
				 tracecmd_buffer_instance_name(t->in, i - 1));
			t->nall = i;
			tdat_close(t);
			errno = EINVAL;
			return NULL;
		}
	}
	return t;
}

void tdat_close(struct tdat *t)
{
	if (!t)
		return;
	for (int i = 1; i < t->nall; i++)
		tracecmd_close(t->all[i]);
	free(t->all);
	tracecmd_close(t->in);
	close(t->fd);
	free(t);
}

struct tep_handle *tdat_tep(struct tdat *t)
{
	return tracecmd_get_tep(t->in);
}

const struct tdat_head *tdat_head(const struct tdat *t)
{
	return &t->h;
}

static int iter_cb(struct tracecmd_input *in, struct tep_record *rec, int cpu, void *arg)
{
	struct tdat *t = arg;

	/* libtracecmd marks the first record after a gap: -1 when the page
	 * said "some" without a count. */
	if (rec->missed_events && t->lost)
		t->lost(cpu, rec->missed_events, rec->ts, t->arg);
	return t->fn(rec, t->arg);
}

int tdat_iterate(struct tdat *t, int (*fn)(struct tep_record *rec, void *arg),
		 void (*lost)(int cpu, long long n, unsigned long long ts, void *arg), void *arg)
{
	t->fn = fn;
	t->lost = lost;
	t->arg = arg;
	if (t->nall > 1)
		return tracecmd_iterate_events_multi(t->all, t->nall, iter_cb, t);
	return tracecmd_iterate_events(t->in, NULL, 0, iter_cb, t);
}

unsigned long long tdat_first_ts(struct tdat *t)
{
	return tracecmd_get_first_ts(t->in);
}

const char *tdat_ksym(uint64_t addr, uint64_t *start, void *t)
{
	const char *name = NULL;
	unsigned long long st = 0;
	unsigned long size = 0;

	if (!tep_find_function_info(tdat_tep(t), addr, &name, &st, &size))
		return NULL;
	*start = st;
	return name;
}

int tdat_nksyms(struct tdat *t)
{
	return tep_get_function_count(tdat_tep(t));
}

char *tdat_kallsyms(struct tdat *t)
{
	char *text;

	if (t->h.version != 6 || !t->h.ksyms_len) {
		errno = ENOENT;
		return NULL;
	}
	text = malloc((size_t)t->h.ksyms_len + 1);
	if (!text)
		return NULL;
	if (pread(t->fd, text, t->h.ksyms_len, t->h.ksyms_off) != (ssize_t)t->h.ksyms_len) {
		free(text);
		errno = EIO;
		return NULL;
	}
	text[t->h.ksyms_len] = '\0';
	return text;
}

#endif
