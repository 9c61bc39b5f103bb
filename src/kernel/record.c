// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing trace-cmd data files: see record.h. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/record.h"
#include "report/tdat.h"

struct recfile {
	int fd;
	char *path;
	const char *tdir;
	int ncpu;
	int *cfd;		/* side file per CPU, -1 before its first page */
	uint64_t *csize;
	size_t page_size;
	uint64_t max_size, total;
	uint64_t head, base;	/* header bytes; where the data will start, at most */
	off_t cmd_off;
	char *zpage;		/* a short read, padded to a whole page */
};

/* Buffered writes of the header (and only the header). */
struct wbuf {
	int fd;
	char b[65536];
	size_t n;
	int err;
};

static void wflush(struct wbuf *w)
{
	size_t off = 0;

	while (!w->err && off < w->n) {
		ssize_t r = write(w->fd, w->b + off, w->n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			w->err = r < 0 ? -errno : -EIO;
		else
			off += (size_t)r;
	}
	w->n = 0;
}

static void wput(struct wbuf *w, const void *p, size_t len)
{
	const char *s = p;

	while (len && !w->err) {
		size_t k = sizeof(w->b) - w->n < len ? sizeof(w->b) - w->n : len;

		memcpy(w->b + w->n, s, k);
		w->n += k;
		s += k;
		len -= k;
		if (w->n == sizeof(w->b))
			wflush(w);
	}
}

/* Numbers in this machine's order: the file says which (its endian byte). */
static void wnum(struct wbuf *w, uint64_t v, int bytes)
{
	uint32_t v32 = (uint32_t)v;
	uint16_t v16 = (uint16_t)v;

	wput(w, bytes == 8 ? (void *)&v : bytes == 4 ? (void *)&v32 : (void *)&v16, bytes);
}

/* A file's content preceded by its size (4 or 8 bytes); a missing one is
 * empty (no printk formats on a kernel without trace_printk users). */
static int wfile(struct wbuf *w, const char *path, int size_bytes, bool must)
{
	size_t len = 0;
	char *text = read_file(path, &len);

	if (!text && must)
		return -errno;
	wnum(w, text ? len : 0, size_bytes);
	if (text)
		wput(w, text, len);
	free(text);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every format of events/ftrace: the records the ftrace system writes
 * (kernel stacks, markers) stay readable.  Returns how many were written. */
static int ftrace_formats(struct wbuf *w, const char *tdir)
{
	char path[PATH_MAX], *names[128];
	struct dirent *d;
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/events/ftrace", tdir);
	dir = opendir(path);
	while (dir && (d = readdir(dir)) && n < (int)ARRAY_SIZE(names)) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", tdir, d->d_name);
		if (path_exists(path) && !(names[n] = strdup(d->d_name)))
			break;
		n += path_exists(path);
	}
	if (dir)
		closedir(dir);
	qsort(names, n, sizeof(*names), cmp_str);
	wnum(w, n, 4);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", tdir, names[i]);
		wfile(w, path, 8, false);
		free(names[i]);
	}
	return n;
}

/* The formats of the recorded events, by system (ftrace's are above). */
static int event_formats(struct wbuf *w, const char *tdir, char *const *sys, char *const *name,
			 int nev)
{
	char path[PATH_MAX];
	int nsys = 0, err;

	for (int i = 0; i < nev; i++) {
		bool seen = !strcmp(sys[i], "ftrace");

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(sys[j], sys[i]);
		nsys += !seen;
	}
	wnum(w, nsys, 4);
	for (int i = 0; i < nev; i++) {
		bool seen = !strcmp(sys[i], "ftrace");
		int n = 0;

		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(sys[j], sys[i]);
		if (seen)
			continue;
		for (int j = i; j < nev; j++)
			n += !strcmp(sys[j], sys[i]);
		wput(w, sys[i], strlen(sys[i]) + 1);
		wnum(w, n, 4);
		for (int j = i; j < nev; j++) {
			if (strcmp(sys[j], sys[i]))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", tdir, sys[j], name[j]);
			if ((err = wfile(w, path, 8, true)) < 0)
				return err;
		}
	}
	return 0;
}

/*
 * From cmd_off on: the saved cmdlines, the CPU count, the options, then
 * "flyrecord" and a table of zeros (where each CPU's data is, filled in
 * last by move_data).  *tab_off: where the table is.
 */
static int write_tail(int fd, off_t cmd_off, const char *tdir, int ncpu,
		      const struct rec_opt *opts, int nopt, off_t *tab_off)
{
	static struct wbuf w;
	char file[PATH_MAX];

	if (ftruncate(fd, cmd_off) < 0 || lseek(fd, cmd_off, SEEK_SET) < 0)
		return -errno;
	w.fd = fd;
	w.n = 0;
	w.err = 0;
	snprintf(file, sizeof(file), "%s/saved_cmdlines", tdir);
	wfile(&w, file, 8, false);
	wnum(&w, ncpu, 4);
	wput(&w, "options  ", 10);
	for (int i = 0; i < nopt; i++) {
		wnum(&w, opts[i].id, 2);
		wnum(&w, strlen(opts[i].text) + 1, 4);
		wput(&w, opts[i].text, strlen(opts[i].text) + 1);
	}
	wnum(&w, TDAT_OPT_DONE, 2);
	wput(&w, "flyrecord", 10);
	wflush(&w);
	if (tab_off)
		*tab_off = lseek(fd, 0, SEEK_CUR);
	for (int i = 0; i < ncpu; i++) {
		wnum(&w, 0, 8);
		wnum(&w, 0, 8);
	}
	wflush(&w);
	return w.err;
}

static void side_path(char *buf, size_t len, const char *path, int cpu)
{
	if (cpu < 0)
		snprintf(buf, len, "%s.reserve", path);
	else
		snprintf(buf, len, "%s.cpu%d", path, cpu);
}

/* Two pages held from the start, and given back before the data is moved
 * into FILE: room for the move (move_side) when the disk filled up. */
static void reserve(const char *path, size_t page_size, bool take)
{
	char file[PATH_MAX];
	struct stat st;
	int fd;

	side_path(file, sizeof(file), path, -1);
	if (!take) {
		/* Only ever the regular file it made. */
		if (lstat(file, &st) == 0 && S_ISREG(st.st_mode))
			unlink(file);
		return;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (posix_fallocate(fd, 0, 2 * (off_t)page_size))
		unlink(file);
	close(fd);
}

/* Copy len bytes of in at ioff to out at off: in the kernel where it
 * can, else through a buffer (another file system, an old kernel). */
static int copy_range(int in, off_t ioff, int out, off_t off, uint64_t len)
{
	static char buf[1 << 16];

	while (len) {
		ssize_t r = copy_file_range(in, &ioff, out, &off, len, 0);

		if (r > 0) {
			len -= (uint64_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
		    errno != EOPNOTSUPP)
			return -errno;
		break;
	}
	while (len) {
		ssize_t r = pread(in, buf, len < sizeof(buf) ? len : sizeof(buf), ioff);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		if (pwrite(out, buf, (size_t)r, off) != r)
			return errno ? -errno : -EIO;
		ioff += r;
		off += r;
		len -= (uint64_t)r;
	}
	return 0;
}

/*
 * A side file's len bytes into out at off, a page at a time, each page
 * punched out of the side file once copied: on a full disk the move needs
 * one page of room (the reserve gives two), not a second copy of the data.
 * A move cut short (no room, a kill) resumes where it stopped: the pages
 * already moved are holes in the side file now, skipped (SEEK_DATA).
 */
static int move_side(int in, int out, off_t off, uint64_t len, size_t page)
{
	for (off_t pos = 0; (uint64_t)pos < len;) {
		off_t d = lseek(in, pos, SEEK_DATA);
		int err;

		if (d < 0 && errno == ENXIO)
			return 0;	/* the rest was moved already */
		if (d < 0)
			d = pos;	/* no SEEK_DATA here: all of it is data */
		d = d / (off_t)page * (off_t)page;
		if ((uint64_t)d >= len)
			return 0;
		err = copy_range(in, d, out, off + d, page);
		if (err)
			return err;
		/* Where punching is not supported, the space comes back when
		 * the side file is removed. */
		fallocate(in, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, d, (off_t)page);
		pos = d + (off_t)page;
	}
	return 0;
}

/*
 * Move each CPU's side file (its whole pages) into FILE after the table,
 * at page-aligned offsets, then fill the table in: until that last write
 * the file still says "unfinished", so a stop half-way loses nothing (the
 * side files are removed after it).  A side file is only ever a regular
 * file of its own: a symbolic link or a device in its place (a file from
 * elsewhere, another user's trap) is refused before anything is written,
 * and so is an unfinished file without any (need_side: --finish), which
 * would otherwise be cut to its header.
 */
static int move_data(int fd, const char *path, off_t tab_off, int ncpu, size_t page_size,
		     uint64_t *pages, bool need_side, char *err, size_t errlen)
{
	off_t data = tab_off + 16 * (off_t)ncpu;
	uint64_t *tab = calloc(2 * (size_t)ncpu, sizeof(*tab));
	int *in = malloc(((size_t)ncpu + 1) * sizeof(*in));
	char side[PATH_MAX];
	int e = 0, nside = 0;

	if (!tab || !in) {
		free(tab);
		free(in);
		return -ENOMEM;
	}
	*pages = 0;
	for (int i = 0; i < ncpu; i++)
		in[i] = -1;
	for (int i = 0; i < ncpu && !e; i++) {
		struct stat st;

		side_path(side, sizeof(side), path, i);
		in[i] = open(side, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (in[i] < 0 && errno == ENOENT)
			continue;	/* no page of this CPU */
		if (in[i] < 0)
			e = -errno;
		else if (fstat(in[i], &st) < 0)
			e = -errno;
		else if (!S_ISREG(st.st_mode))
			e = -EINVAL;
		if (e) {
			snprintf(err, errlen, "'%s' is not a regular file (%s): refused, nothing "
				 "written", side, e == -ELOOP ? "a symbolic link" : strerror(-e));
			break;
		}
		nside++;
	}
	if (!e && need_side && !nside) {
		snprintf(err, errlen, "no side file '%s.cpuN' to complete '%s' from: nothing "
			 "written", path, path);
		e = -ENOENT;
	}
	data = (data + (off_t)page_size - 1) / (off_t)page_size * (off_t)page_size;
	for (int i = 0; i < ncpu && !e; i++) {
		struct stat st;

		if (in[i] < 0)
			continue;
		if (fstat(in[i], &st) == 0) {
			/* A kill or a full disk may have cut the last page. */
			uint64_t len = (uint64_t)st.st_size / page_size * page_size;

			tab[2 * i] = (uint64_t)data;
			tab[2 * i + 1] = len;
			e = move_side(in[i], fd, data, len, page_size);
			data += (off_t)len;
			*pages += len / page_size;
		} else {
			e = -errno;
		}
	}
	for (int i = 0; i < ncpu; i++)
		if (in[i] >= 0)
			close(in[i]);
	free(in);
	if (!e && ftruncate(fd, data) < 0)
		e = -errno;
	if (!e && pwrite(fd, tab, 16 * (size_t)ncpu, tab_off) != 16 * (ssize_t)ncpu)
		e = errno ? -errno : -EIO;
	free(tab);
	if (e)
		return e;
	for (int i = 0; i < ncpu; i++) {
		side_path(side, sizeof(side), path, i);
		unlink(side);
	}
	return 0;
}

int recfile_create(struct recfile **out, const char *path, const char *tdir, char *const *sys,
		   char *const *name, int nev, int ncpu, size_t page_size, uint64_t max_size,
		   char *err, size_t errlen)
{
	static struct wbuf w;
	struct recfile *rf = calloc(1, sizeof(*rf));
	char file[PATH_MAX];
	uint16_t one = 1;
	bool created = false;
	int e = -ENOMEM;
	off_t end;

	*out = NULL;
	if (!rf)
		return -ENOMEM;
	rf->fd = -1;
	rf->tdir = tdir;
	rf->ncpu = ncpu;
	rf->page_size = page_size;
	rf->max_size = max_size;
	rf->path = strdup(path);
	rf->cfd = malloc(ncpu * sizeof(*rf->cfd));
	rf->csize = calloc(ncpu, sizeof(*rf->csize));
	rf->zpage = calloc(1, page_size);
	if (!rf->path || !rf->cfd || !rf->csize || !rf->zpage)
		goto fail;
	for (int i = 0; i < ncpu; i++)
		rf->cfd[i] = -1;
	/* Created here, or an existing regular file emptied: a device, a
	 * pipe or /dev/stdout cannot hold a file completed by seeking back
	 * into it, and a failure below must remove only a file made here
	 * (never /dev/null). */
	rf->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	created = rf->fd >= 0;
	if (rf->fd < 0 && errno == EEXIST)
		rf->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (rf->fd < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(-e));
		goto fail;
	}
	if (!created) {
		struct stat st;

		if (fstat(rf->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			e = -EINVAL;
			snprintf(err, errlen, "'%s' is not a regular file: ftr record writes a file "
				 "it completes at the end by writing into it again", path);
			goto fail;
		}
		if (ftruncate(rf->fd, 0) < 0 || fcntl(rf->fd, F_SETFL, 0) < 0) {
			e = -errno;
			snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-e));
			goto fail;
		}
	}
	w.fd = rf->fd;
	w.n = 0;
	w.err = 0;
	wput(&w, TDAT_MAGIC, TDAT_MAGIC_LEN);
	wput(&w, "6", 2);
	wput(&w, (char[]){ *(char *)&one == 0, sizeof(long) }, 2);
	wnum(&w, page_size, 4);
	wput(&w, "header_page", 12);
	snprintf(file, sizeof(file), "%s/events/header_page", tdir);
	if ((e = wfile(&w, file, 8, true)) < 0)
		goto fmt;
	wput(&w, "header_event", 13);
	snprintf(file, sizeof(file), "%s/events/header_event", tdir);
	if ((e = wfile(&w, file, 8, true)) < 0)
		goto fmt;
	ftrace_formats(&w, tdir);
	if ((e = event_formats(&w, tdir, sys, name, nev)) < 0)
		goto fmt;
	/* Hidden addresses (kptr_restrict) are saved as they are: readers
	 * then print addresses, as they would here. */
	wfile(&w, "/proc/kallsyms", 4, false);
	snprintf(file, sizeof(file), "%s/printk_formats", tdir);
	wfile(&w, file, 4, false);
	wflush(&w);
	if (w.err) {
		e = w.err;
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-e));
		goto fail;
	}
	rf->cmd_off = lseek(rf->fd, 0, SEEK_CUR);
	/* Until finished, the saved cmdlines of the start and a table of
	 * zeros: a readable, empty trace that says it is unfinished. */
	if ((e = write_tail(rf->fd, rf->cmd_off, tdir, ncpu, NULL, 0, NULL)) < 0)
		goto wfail;
	end = lseek(rf->fd, 0, SEEK_END);
	rf->total = rf->head = (uint64_t)end;
	rf->base = (rf->head + 16384 + 256 * (uint64_t)ncpu + page_size - 1) / page_size * page_size;
	if (max_size && rf->base >= max_size) {
		snprintf(err, errlen, "--max-size %llu is smaller than the header (%llu bytes, "
			 "most of it kallsyms)", (unsigned long long)max_size,
			 (unsigned long long)rf->total);
		e = -EFBIG;
		goto fail;
	}
	reserve(path, page_size, true);
	*out = rf;
	return 0;
fmt:
	snprintf(err, errlen, "cannot read '%s' for the file's header: %s", file, strerror(-e));
	goto fail;
wfail:
	snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-e));
fail:
	if (rf->fd >= 0) {
		close(rf->fd);
		if (created)
			unlink(path);
	}
	free(rf->path);
	free(rf->cfd);
	free(rf->csize);
	free(rf->zpage);
	free(rf);
	return e;
}

int recfile_page(struct recfile *rf, int cpu, const void *page, size_t len)
{
	size_t off = 0;

	if (cpu < 0 || cpu >= rf->ncpu)
		return -EINVAL;
	/* The finished file: the header, fresh cmdlines and options (slack),
	 * padding to a page, then the pages. */
	if (rf->max_size && rf->base + (rf->total - rf->head) + rf->page_size > rf->max_size)
		return 1;
	if (len < rf->page_size) {
		memcpy(rf->zpage, page, len);
		memset(rf->zpage + len, 0, rf->page_size - len);
		page = rf->zpage;
	}
	if (rf->cfd[cpu] < 0) {
		char side[PATH_MAX];

		side_path(side, sizeof(side), rf->path, cpu);
		rf->cfd[cpu] = open(side, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
				    0644);
		if (rf->cfd[cpu] < 0)
			return -errno;
	}
	while (off < rf->page_size) {
		ssize_t r = write(rf->cfd[cpu], (const char *)page + off, rf->page_size - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? -errno : -ENOSPC;

			/* Back to the last whole page. */
			if (off && ftruncate(rf->cfd[cpu], (off_t)rf->csize[cpu]) == 0)
				lseek(rf->cfd[cpu], (off_t)rf->csize[cpu], SEEK_SET);
			return e;
		}
		off += (size_t)r;
	}
	rf->csize[cpu] += rf->page_size;
	rf->total += rf->page_size;
	return 0;
}

uint64_t recfile_size(const struct recfile *rf)
{
	return rf->total;
}

static void recfile_free(struct recfile *rf)
{
	for (int i = 0; i < rf->ncpu; i++)
		if (rf->cfd[i] >= 0)
			close(rf->cfd[i]);
	if (rf->fd >= 0)
		close(rf->fd);
	free(rf->path);
	free(rf->cfd);
	free(rf->csize);
	free(rf->zpage);
	free(rf);
}

int recfile_finish(struct recfile *rf, const struct rec_opt *opts, int nopt, char *err,
		   size_t errlen)
{
	uint64_t pages;
	off_t tab_off;
	int e;

	for (int i = 0; i < rf->ncpu; i++) {
		if (rf->cfd[i] >= 0)
			close(rf->cfd[i]);
		rf->cfd[i] = -1;
	}
	reserve(rf->path, rf->page_size, false);
	e = write_tail(rf->fd, rf->cmd_off, rf->tdir, rf->ncpu, opts, nopt, &tab_off);
	err[0] = 0;
	if (!e)
		e = move_data(rf->fd, rf->path, tab_off, rf->ncpu, rf->page_size, &pages, false,
			      err, errlen);
	if (e && !err[0])
		snprintf(err, errlen, "cannot finish '%s': %s (its pages stay in '%s.cpuN': "
			 "'ftr record --finish %s' completes it)", rf->path, strerror(-e),
			 rf->path, rf->path);
	recfile_free(rf);
	return e;
}

#ifdef FTR_NO_TRACECMD
/* Kept out of the static build (its size): the dynamic ftr finishes a
 * file copied with its side files (ftr report does it by itself). */
int recfile_complete(const char *path, uint64_t *pages, char *err, size_t errlen)
{
	snprintf(err, errlen, "--finish is not in this build: copy '%s' and its '%s.cpuN' "
		 "files to a machine with the dynamic ftr, where 'ftr report' finishes it", path,
		 path);
	return -ENOTSUP;
}
#else
int recfile_complete(const char *path, uint64_t *pages, char *err, size_t errlen)
{
	struct tdat_head h;
	struct stat st;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC), e;

	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(-e));
		return e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file: not a recording to finish", path);
		close(fd);
		return -EINVAL;
	}
	e = tdat_head_parse(fd, &h, err, errlen);
	if (!e && (h.version != 6 || !h.unfinished || h.latency)) {
		snprintf(err, errlen, "'%s' is not an unfinished recording: nothing to do", path);
		e = -EINVAL;
	}
	if (!e && h.big_endian != (htobe16(1) == 1)) {
		snprintf(err, errlen, "'%s' was written on a machine of the other byte order: "
			 "finish it there", path);
		e = -EINVAL;
	}
	if (!e) {
		reserve(path, h.page_size, false);
		err[0] = 0;
		e = move_data(fd, path, h.tab_off, (int)h.ncpu, h.page_size, pages, true, err,
			      errlen);
		if (e && !err[0])
			snprintf(err, errlen, "cannot finish '%s': %s", path, strerror(-e));
	}
	close(fd);
	return e;
}
#endif
