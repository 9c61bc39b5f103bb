// SPDX-License-Identifier: GPL-2.0-or-later
/* Small helpers shared by every module: messages, files, strings, JSON. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftr.h"

const char *ftr_progname = "ftr";
bool ftr_no_warnings;
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

	if (ftr_no_warnings)
		return;
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

static char *read_upto(const char *path, size_t max, size_t *lenp, bool cut);

char *read_file(const char *path, size_t *lenp)
{
	return read_upto(path, SIZE_MAX - 1, lenp, false);
}

char *read_file_max(const char *path, size_t max, size_t *lenp)
{
	return read_upto(path, max, lenp, false);
}

char *read_file_head(const char *path, size_t max, size_t *lenp)
{
	return read_upto(path, max, lenp, true);
}

static char *read_upto(const char *path, size_t max, size_t *lenp, bool cut)
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
		r = read(fd, buf + len, cut && cap - len - 1 > max - len ? max - len :
					cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += r;
		if (len >= max && cut)
			break;
		if (len > max) {
			errno = EFBIG;
			goto fail;
		}
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

	/* Empty: a list emptied (set_ftrace_filter, set_ftrace_pid take
	 * O_TRUNC as "clear"; a write of nothing clears nothing). */
	fd = open(path, O_WRONLY | O_CLOEXEC | (len ? 0 : O_TRUNC));
	if (fd < 0)
		return -errno;
	r = len ? write(fd, s, len) : 0;
	if (r < 0)
		err = -errno;
	else if ((size_t)r != len)
		err = -EIO;
	close(fd);
	return err;
}

const char *kptr_remedy(int kptr_restrict)
{
	return kptr_restrict >= 2 ?
	       "kernel.kptr_restrict=2 hides kernel addresses from root too: set it to 1 "
	       "(root sees them) or 0" :
	       "run as root, or set kernel.kptr_restrict=0";
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

bool str_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
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

size_t json_escape(unsigned char c, char out[7])
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"': case '\\':
		out[0] = '\\';
		out[1] = (char)c;
		return 2;
	case '\n':
		memcpy(out, "\\n", 2);
		return 2;
	case '\t':
		memcpy(out, "\\t", 2);
		return 2;
	case '\r':
		memcpy(out, "\\r", 2);
		return 2;
	default:
		if (c < 0x20 || c == 0x7f) {
			memcpy(out, "\\u00", 4);
			out[4] = hex[c >> 4];
			out[5] = hex[c & 15];
			return 6;
		}
		out[0] = (char)c;
		return 1;
	}
}

void sh_quote(FILE *f, const char *s)
{
	/* A newline cannot be in a tracefs value: dropped, so that every
	 * generated command stays on one line. */
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s != '\n')
			fputc(*s, f);
	}
	fputc('\'', f);
}

void json_str(FILE *f, const char *s)
{
	char e[7];

	fputc('"', f);
	for (; s && *s; s++)
		fwrite(e, 1, json_escape((unsigned char)*s, e), f);
	fputc('"', f);
}

bool pid_alive(int pid)
{
	if (pid <= 0)
		return false;
	return kill(pid, 0) == 0 || errno == EPERM;
}

const char *ftr_stdout_file;

const char *stdout_name(void)
{
	static char name[PATH_MAX + 2];

	if (!ftr_stdout_file)
		return "standard output";
	snprintf(name, sizeof(name), "'%s'", ftr_stdout_file);
	return name;
}

int stdout_check(void)
{
	/* git's rule: a command whose output could not be written has failed. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			ftr_err("write error on %s: %s", stdout_name(), strerror(errno));
		return -EIO;
	}
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v != v || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double r = v * units[i].mult;

			if (r > 1e18)
				return -ERANGE;
			*ns = (uint64_t)r;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int parse_cpulist(const char *s, bool *mask, int n)
{
	const char *p = s;
	int any = 0;

	if (!s || !*s)
		return -EINVAL;
	memset(mask, 0, n * sizeof(*mask));
	while (*p) {
		char *end;
		long a, b;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			b = strtol(end + 1, &end, 10);
		}
		if (b < a || b >= n)
			return -ERANGE;
		for (long c = a; c <= b; c++)
			mask[c] = true;
		any = 1;
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	return any ? 0 : -EINVAL;
}

void cpumask_hex(const bool *mask, int n, char *buf, size_t len)
{
	/* tracefs cpumask format: 32-bit hex groups, most significant first,
	 * separated by commas. */
	int groups = (n + 31) / 32;
	size_t off = 0;

	buf[0] = '\0';
	for (int g = groups - 1; g >= 0; g--) {
		uint32_t w = 0;

		for (int b = 0; b < 32 && g * 32 + b < n; b++)
			if (mask[g * 32 + b])
				w |= 1u << b;
		off += snprintf(buf + off, off < len ? len - off : 0, g == groups - 1 ? "%x" : ",%08x",
				w);
	}
}

void raise_nofile(void)
{
	struct rlimit rl;

	/* One perf fd per thread (and CPU): a big process needs more than the
	 * default soft limit; the hard limit is ours to take. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The threads of a process, from /proc/PID/task: 0, -ESRCH, -errno. */
int proc_threads(int pid, int **tids, int *n)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	*n = 0;
	*tids = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int *v;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		v = realloc(*tids, (*n + 1) * sizeof(**tids));
		if (!v) {
			closedir(d);
			return -ENOMEM;
		}
		*tids = v;
		(*tids)[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	return *n ? 0 : -ESRCH;
}

static uint64_t addr_key(const char *base, size_t i, size_t size, size_t key_off)
{
	uint64_t a;

	memcpy(&a, base + i * size + key_off, sizeof(a));
	return a;
}

long addr_floor(const void *v, size_t n, size_t size, size_t key_off, uint64_t addr,
		size_t *next)
{
	size_t lo = 0, hi = n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr_key(v, mid, size, key_off) <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (next)
		*next = lo;
	if (lo == 0)
		return -1;
	i = lo - 1;
	while (i > 0 && addr_key(v, i - 1, size, key_off) == addr_key(v, i, size, key_off))
		i--;
	return (long)i;
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}
