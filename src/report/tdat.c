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

#include "ftr.h"
#include "report/tdat.h"

/* A cursor over the file, or over data decompressed from it (mem, from the
 * file's offset base): every read is bounds-checked against its size. */
struct cur {
	int fd;
	off_t pos, size;
	bool swap;
	char *err;
	size_t errlen;
	const unsigned char *mem;
	off_t base;
};

static int fail(struct cur *c, const char *fmt, ...)
{
	va_list ap;
	int n = c->mem ? snprintf(c->err, c->errlen, "at offset %lld of the data decompressed "
				  "from offset %lld: ", (long long)c->pos, (long long)c->base) :
			 snprintf(c->err, c->errlen, "at offset %lld: ", (long long)c->pos);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->errlen)
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int get(struct cur *c, void *buf, size_t len, const char *what)
{
	if (c->pos < 0 || (off_t)len > c->size - c->pos)
		return fail(c, "the %s ends inside %s (truncated?)", c->mem ? "data" : "file", what);
	if (c->mem)
		memcpy(buf, c->mem + c->pos, len);
	else if (pread(c->fd, buf, len, c->pos) != (ssize_t)len)
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

/* The header page's text (v bytes): libtraceevent parses it, and the
 * commit's size (the kernel's long) goes to h->commit_size.  -EINVAL when
 * damaged. */
static int header_page(const char *hp, uint64_t v, struct tdat_head *h)
{
	struct tep_handle *tep = tep_alloc();
	bool bad = !tep || tep_parse_header_page(tep, (char *)hp, v, h->long_size) != 0 ||
		   !memmem(hp, v, "\tfield: u64 timestamp;", 22) ||
		   !memmem(hp, v, "\tfield: local_t commit;", 23) ||
		   !memmem(hp, v, "\tfield: char data;", 18);

	if (!bad) {
		const char *cs = memmem(hp, v, "local_t commit;", 15);
		const char *sz = cs ? memmem(cs, v - (cs - hp), "size:", 5) : NULL;

		h->commit_size = sz && sz + 6 < hp + v ? atoi(sz + 5) : 0;
		bad = h->commit_size != 4 && h->commit_size != 8;
	}
	if (tep)
		tep_free(tep);
	return bad ? -EINVAL : 0;
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
	if (h->version == 7) {
		h->v7_off = c.pos;	/* sections: tdat_open walks them */
		return 0;
	}

	if ((e = expect(&c, "header_page", 12, "header_page")) ||
	    (e = get_u(&c, 8, &v, "header_page's size")))
		return e;
	/* libtracecmd 1.x crashes (in its own cleanup) on a header page
	 * libtraceevent cannot parse: parse it here first. */
	if (v > 0 && v < 65536 && (uint64_t)(c.size - c.pos) >= v) {
		char *hp = malloc(v);
		bool bad = !hp || pread(fd, hp, v, c.pos) != (ssize_t)v ||
			   header_page(hp, v, h) < 0;

		free(hp);
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
#include <zlib.h>
#include <zstd.h>

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

/* ---- version 7: sections, maybe compressed ------------------------------- */

enum { V7_NONE, V7_ZSTD, V7_ZLIB };
/* What one section or chunk may decompress to: trace-cmd's chunks are some
 * pages, its metadata sections some megabytes. */
#define V7_MAX_DATA (64u << 20)

struct v7 {
	struct tdat_head *h;
	int alg;
	uint64_t hinfo;			/* the header info section's offset, or 0 */
	unsigned char **bufs;		/* the BUFFER options' data */
	uint32_t *buflen;
	int nbuf;
};

static int v7_decompress(struct cur *c, int alg, const void *in, size_t inlen, void *out,
			 size_t outlen, const char *what)
{
	if (alg == V7_ZSTD) {
		size_t r = ZSTD_decompress(out, outlen, in, inlen);

		if (!ZSTD_isError(r) && r == outlen)
			return 0;
	} else {
		uLongf n = outlen;

		if (uncompress(out, &n, in, inlen) == Z_OK && n == outlen)
			return 0;
	}
	return fail(c, "%s does not decompress to the %zu bytes it says: a damaged file", what,
		    outlen);
}

/* A compressed block at c->pos (its compressed and its plain size, then the
 * data), decompressed into a new buffer. */
static int v7_block(struct cur *c, int alg, unsigned char **out, uint64_t *outlen,
		    const char *what)
{
	uint64_t csize, usize;
	off_t at = c->pos;
	unsigned char *in;
	int e;

	if ((e = get_u(c, 4, &csize, what)) || (e = get_u(c, 4, &usize, what)))
		return e;
	if (csize > (uint64_t)(c->size - c->pos)) {
		c->pos = at;
		return fail(c, "%s says %llu compressed bytes, past the end of the file "
			    "(truncated?)", what, (unsigned long long)csize);
	}
	if (usize > V7_MAX_DATA) {
		c->pos = at;
		return fail(c, "%s says it holds %llu bytes, more than ftr reads in one (%u)",
			    what, (unsigned long long)usize, V7_MAX_DATA);
	}
	in = malloc(csize ? csize : 1);
	*out = malloc(usize ? usize : 1);
	if (!in || !*out) {
		free(in);
		free(*out);
		return -ENOMEM;
	}
	if ((e = get(c, in, csize, what)) == 0) {
		c->pos = at;
		e = v7_decompress(c, alg, in, csize, *out, usize, what);
		c->pos = at + 8 + (off_t)csize;
	}
	free(in);
	if (e) {
		free(*out);
		*out = NULL;
		return e;
	}
	*outlen = usize;
	return 0;
}

/* The section at off, whose id must be id: its data, decompressed. */
static int v7_section(struct cur *c, struct v7 *v, uint64_t off, unsigned id,
		      unsigned char **data, uint64_t *len, const char *what)
{
	uint64_t sid, flags, strid, size;
	int e;

	if (off > (uint64_t)c->size) {
		c->pos = c->size;
		return fail(c, "%s is said to be at offset %llu, past the end of the file "
			    "(truncated?)", what, (unsigned long long)off);
	}
	c->pos = (off_t)off;
	if ((e = get_u(c, 2, &sid, what)) || (e = get_u(c, 2, &flags, what)) ||
	    (e = get_u(c, 4, &strid, what)) || (e = get_u(c, 8, &size, what)))
		return e;
	if (sid != id) {
		c->pos = (off_t)off;
		return fail(c, "%s has the id %llu, not %u: a damaged file", what,
			    (unsigned long long)sid, id);
	}
	if (flags & 1) {
		if (v->alg == V7_NONE)
			return fail(c, "%s is compressed in a file that says it is not: a "
				    "damaged file", what);
		return v7_block(c, v->alg, data, len, what);
	}
	if (size > (uint64_t)(c->size - c->pos) || size > V7_MAX_DATA)
		return fail(c, "%s says %llu bytes, past the end of the file (truncated?)", what,
			    (unsigned long long)size);
	*data = malloc(size ? size : 1);
	if (!*data)
		return -ENOMEM;
	if ((e = get(c, *data, size, what))) {
		free(*data);
		return e;
	}
	*len = size;
	return 0;
}

/* One options section's options: the next section's offset (0: none) in
 * *next; where the header info is; a copy of each BUFFER option. */
static int v7_options(struct cur *fc, struct v7 *v, const unsigned char *d, uint64_t len,
		      off_t base, uint64_t *next)
{
	struct cur c = { .size = (off_t)len, .swap = fc->swap, .err = fc->err,
			 .errlen = fc->errlen, .mem = d, .base = base };
	uint64_t id, size;
	int e;

	*next = 0;
	for (;;) {
		if ((e = get_u(&c, 2, &id, "an option's id")) ||
		    (e = get_u(&c, 4, &size, "an option's size")))
			return e;
		if (size > (uint64_t)(c.size - c.pos))
			return fail(&c, "option %llu says %llu bytes, past its section's end",
				    (unsigned long long)id, (unsigned long long)size);
		if (id == 0)
			return size < 8 ? fail(&c, "the last option is too short") :
					  get_u(&c, 8, next, "the next options' offset");
		if (id == 16 && size >= 8) {
			off_t at = c.pos;

			if ((e = get_u(&c, 8, &v->hinfo, "the header info's offset")))
				return e;
			c.pos = at;
		} else if (id == 3) {
			unsigned char **b = realloc(v->bufs, (v->nbuf + 1) * sizeof(*b));
			uint32_t *l = b ? realloc(v->buflen, (v->nbuf + 1) * sizeof(*l)) : NULL;

			if (b)
				v->bufs = b;
			if (!l)
				return -ENOMEM;
			v->buflen = l;
			if (!(v->bufs[v->nbuf] = malloc(size ? size : 1)))
				return -ENOMEM;
			memcpy(v->bufs[v->nbuf], d + c.pos, size);
			v->buflen[v->nbuf++] = (uint32_t)size;
		}
		c.pos += (off_t)size;
	}
}

/* One CPU's data of a buffer: whole pages, walked as in a version 6 file,
 * after decompression when the file is compressed (its chunks: a count,
 * then each one's compressed and plain sizes and data). */
static int v7_cpu(struct cur *c, struct v7 *v, struct tdat_head *h, uint32_t cpu,
		  uint64_t off, uint64_t size)
{
	uint64_t n;
	int e;

	if (size == 0)
		return 0;	/* no data (its offset may be anything) */
	if (off > (uint64_t)c->size || size > (uint64_t)c->size - off) {
		c->pos = c->size;
		return fail(c, "CPU %u's data (%llu bytes at %llu) goes past the end of the "
			    "file (%lld bytes): truncated", cpu, (unsigned long long)size,
			    (unsigned long long)off, (long long)c->size);
	}
	if (v->alg == V7_NONE) {
		if (off % h->page_size || size % h->page_size) {
			c->pos = (off_t)off;
			return fail(c, "CPU %u's data is not in whole pages", cpu);
		}
		return check_pages(c, h, cpu, off, size);
	}
	c->pos = (off_t)off;
	if ((e = get_u(c, 4, &n, "a CPU's count of compressed chunks")))
		return e;
	for (uint64_t i = 0; i < n; i++) {
		struct cur m = { .swap = c->swap, .err = c->err, .errlen = c->errlen,
				 .base = c->pos };
		unsigned char *d;
		uint64_t len;

		if ((e = v7_block(c, v->alg, &d, &len, "a chunk of CPU data")))
			return e;
		m.mem = d;
		m.size = (off_t)len;
		e = len % h->page_size ? fail(&m, "CPU %u's chunk is not in whole pages", cpu) :
					 check_pages(&m, h, cpu, 0, len);
		free(d);
		if (e)
			return e;
	}
	return 0;
}

/* A BUFFER option: the flyrecord section's offset, the instance's name and
 * clock, its page size, its CPUs (id, offset, size). */
static int v7_buffer(struct cur *fc, struct v7 *v, const unsigned char *d, uint32_t len)
{
	struct cur c = { .size = len, .swap = fc->swap, .err = fc->err, .errlen = fc->errlen,
			 .mem = d, .base = 0 };
	struct tdat_head h = *v->h;
	char name[256];
	uint64_t x, ncpu;
	int e;

	if ((e = get_u(&c, 8, &x, "a buffer's section offset")) ||
	    (e = get_name(&c, name, sizeof(name), "a buffer's name")) ||
	    (e = get_name(&c, name, sizeof(name), "a buffer's clock")) ||
	    (e = get_u(&c, 4, &x, "a buffer's page size")))
		goto bad;
	if (x < 64 || x > (1u << 24) || (x & (x - 1))) {
		e = fail(&c, "a buffer's page size %llu is not a power of two up to 16 MB",
			 (unsigned long long)x);
		goto bad;
	}
	h.page_size = (uint32_t)x;
	if ((e = get_u(&c, 4, &ncpu, "a buffer's count of CPUs")))
		goto bad;
	for (uint64_t i = 0; i < ncpu; i++) {
		uint64_t cpu, off, size;

		if ((e = get_u(&c, 4, &cpu, "a CPU's id")) ||
		    (e = get_u(&c, 8, &off, "a CPU's data offset")) ||
		    (e = get_u(&c, 8, &size, "a CPU's data size")))
			goto bad;
		if ((e = v7_cpu(fc, v, &h, (uint32_t)cpu, off, size)))
			return e;
	}
	return 0;
bad:
	/* The option's own positions are in a copy: say which option. */
	if (e == -EINVAL && fc->errlen) {
		size_t n = strlen(fc->err);

		snprintf(fc->err + n, fc->errlen - n, " (in a BUFFER option)");
	}
	return e;
}

/*
 * A version 7 file: the compression header, the options sections (a chain,
 * each maybe compressed), the header info (the page header's commit size)
 * and every buffer's CPU data, each page's records walked as in a version 6
 * file (check_pages) before libtracecmd's kbuffer trusts them: a changed
 * record length made it loop or read past the page.
 */
static int v7_walk(int fd, struct tdat_head *h, char *err, size_t errlen)
{
	struct cur c = { .fd = fd, .pos = h->v7_off, .size = h->file_size,
			 .swap = h->big_endian, .err = err, .errlen = errlen };
	struct v7 v = { .h = h };
	char alg[256], ver[256];
	uint64_t next, seen[64];
	int e, nsect = 0;

	if ((e = get_name(&c, alg, sizeof(alg), "the compression's name")) ||
	    (e = get_name(&c, ver, sizeof(ver), "the compression's version")) ||
	    (e = get_u(&c, 8, &next, "the first options' offset")))
		return e;
	if (!strcmp(alg, "none"))
		v.alg = V7_NONE;
	else if (!strcmp(alg, "zstd"))
		v.alg = V7_ZSTD;
	else if (!strcmp(alg, "zlib"))
		v.alg = V7_ZLIB;
	else
		return fail(&c, "compression '%s' is not one ftr reads (none, zstd, zlib)", alg);
	while (next && !e) {
		unsigned char *d;
		uint64_t len, at = next;

		/* The sections are in no order: a chain that comes back to
		 * one is damaged (and would never end). */
		for (int i = 0; i < nsect && !e; i++)
			if (seen[i] == next)
				e = fail(&c, "the options sections' chain comes back to the one at "
					 "offset %llu: a damaged file", (unsigned long long)next);
		if (!e && nsect == (int)ARRAY_SIZE(seen))
			e = fail(&c, "more than %d options sections", nsect);
		if (e)
			break;
		seen[nsect++] = next;
		if ((e = v7_section(&c, &v, at, 0, &d, &len, "an options section")))
			break;
		e = v7_options(&c, &v, d, len, (off_t)at, &next);
		free(d);
	}
	if (!e && v.hinfo) {
		unsigned char *d;
		uint64_t len, sz;
		struct cur m = { .swap = c.swap, .err = err, .errlen = errlen, .base = v.hinfo };

		if (!(e = v7_section(&c, &v, v.hinfo, 16, &d, &len, "the header info"))) {
			m.mem = d;
			m.size = (off_t)len;
			if (!(e = expect(&m, "header_page", 12, "header_page")) &&
			    !(e = get_u(&m, 8, &sz, "header_page's size"))) {
				if (sz > (uint64_t)(m.size - m.pos) ||
				    header_page((const char *)d + m.pos, sz, h) < 0)
					e = fail(&m, "the header page cannot be parsed: a damaged file");
			}
			free(d);
		}
	} else if (!e) {
		e = fail(&c, "no header info option: a damaged file");
	}
	for (int i = 0; i < v.nbuf && !e; i++)
		e = v7_buffer(&c, &v, v.bufs[i], v.buflen[i]);
	for (int i = 0; i < v.nbuf; i++)
		free(v.bufs[i]);
	free(v.bufs);
	free(v.buflen);
	return e;
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
	if (e == 0 && t->h.version == 7)
		e = v7_walk(t->fd, &t->h, err, errlen);
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
