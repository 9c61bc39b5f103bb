// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by every module: messages, files, strings, JSON. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftr.h"

const char *ftr_progname = "ftr";
int ftr_verbose;

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: %s", ftr_progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void ftr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ftr_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

void ftr_info(const char *fmt, ...)
{
	va_list ap;

	if (!ftr_verbose)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ftr_err_kernel_log(const char *log)
{
	const char *p = log, *nl;

	if (!log || !*log)
		return;
	fprintf(stderr, "  kernel error_log:\n");
	while (*p) {
		nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(stderr, "    %.*s\n", n, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

char *read_file(const char *path, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf, *nb;
	ssize_t r;
	int fd, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	/* tracefs and procfs files report size 0: read until EOF. */
	for (;;) {
		if (len + 1 >= cap) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += r;
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

int write_file(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, s, len);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != len)
		err = -EIO;
	close(fd);
	return err;
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

bool str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

char *str_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (c < 0x20)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

bool pid_alive(int pid)
{
	if (pid <= 0)
		return false;
	return kill(pid, 0) == 0 || errno == EPERM;
}

int stdout_check(void)
{
	/* git's rule: a command whose output could not be written has failed. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			ftr_err("write error on standard output: %s", strerror(errno));
		return -EIO;
	}
	return 0;
}
