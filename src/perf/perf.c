// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_event_open: counters, rings, samples and the per-CPU sampler. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ftr.h"
#include "perf/perf.h"

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static int probe_attr(unsigned type, unsigned long long config, bool sampling, bool user_only)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = 1,
		.exclude_kernel = user_only,
		.exclude_hv = user_only,
	};
	int fd;

	if (sampling) {
		attr.sample_freq = 99;
		attr.freq = 1;
		attr.sample_type = PERF_SAMPLE_IP;
	}
	fd = perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int perf_probe(unsigned type, unsigned long long config, bool sampling)
{
	return probe_attr(type, config, sampling, false);
}

int perf_probe_user(unsigned type, unsigned long long config, bool sampling)
{
	return probe_attr(type, config, sampling, true);
}

int perf_paranoid(void)
{
	char *s = read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	int v;

	if (!s)
		return INT_MIN;
	v = atoi(s);
	free(s);
	return v;
}

unsigned perf_max_rate(void)
{
	char *s = read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);
	int v = s ? atoi(s) : 0;

	free(s);
	return v > 0 ? (unsigned)v : 0;
}

void perf_clamp_rate(unsigned *hz)
{
	unsigned max = perf_max_rate();

	if (max && max < *hz) {
		ftr_warn("sampling at %u Hz, not %u: the kernel allows at most that now "
			 "(kernel.perf_event_max_sample_rate)", max, *hz);
		*hz = max;
	}
}

/* ---- permissions ------------------------------------------------------------ */

int perf_scope_paranoid(enum perf_scope scope)
{
	/* Documented in the kernel's sysctl/kernel.rst: >= 0 forbids raw
	 * tracepoint data, >= 1 CPU (system-wide) events, >= 2 kernel
	 * profiling; Debian and others patch in 3, nothing unprivileged. */
	switch (scope) {
	case PERF_SCOPE_USER:
		return 2;
	case PERF_SCOPE_KERNEL:
		return 1;
	case PERF_SCOPE_CPU:
	default:
		return 0;
	}
}

bool perf_privileged(void)
{
	char *s = read_file("/proc/self/status", NULL), *p;
	unsigned long long caps;
	bool yes;

	if (!s || !(p = strstr(s, "\nCapEff:"))) {
		free(s);
		return geteuid() == 0;
	}
	caps = strtoull(p + 8, NULL, 16);
	free(s);
	/* CAP_SYS_ADMIN is 21; CAP_PERFMON (5.8+) is 38. */
	yes = (caps >> 21 & 1) || (caps >> 38 & 1);
	return yes;
}

void perf_explain(int err, enum perf_scope scope, int paranoid, bool privileged, char *buf,
		  size_t len)
{
	static const char *const what[] = {
		[PERF_SCOPE_USER] = "measuring your own processes",
		[PERF_SCOPE_KERNEL] = "kernel samples and tracepoint counts",
		[PERF_SCOPE_CPU] = "system-wide measurement (-a, -C)",
	};
	int need = perf_scope_paranoid(scope);

	if (err > 0)
		err = -err;
	switch (err) {
	case -ENOSYS:
		snprintf(buf, len, "this kernel has no perf_event_open (built without "
			 "CONFIG_PERF_EVENTS)");
		return;
	case -ENOENT:
	case -EOPNOTSUPP:
		snprintf(buf, len, "this event is not supported by this kernel or CPU");
		return;
	case -ESRCH:
		snprintf(buf, len, "no such process");
		return;
	case -EMFILE:
		snprintf(buf, len, "too many open files (raise 'ulimit -n')");
		return;
	case -EACCES:
	case -EPERM:
		break;
	default:
		snprintf(buf, len, "%s", strerror(-err));
		return;
	}
	if (privileged) {
		snprintf(buf, len, "permission denied although privileged: a security policy "
			 "(lockdown, SELinux, a seccomp filter) forbids perf_event_open");
	} else if (paranoid == INT_MIN) {
		snprintf(buf, len, "permission denied, and /proc/sys/kernel/perf_event_paranoid "
			 "cannot be read: run as root");
	} else if (paranoid > need) {
		snprintf(buf, len, "permission denied: kernel.perf_event_paranoid is %d%s; %s "
			 "takes %d or less: run as root (or with CAP_PERFMON), or as root "
			 "'sysctl kernel.perf_event_paranoid=%d'", paranoid,
			 paranoid >= 3 ? " (no perf for unprivileged users at all)" : "",
			 what[scope], need, need);
	} else {
		snprintf(buf, len, "permission denied: the process belongs to another user "
			 "(needs root or CAP_PERFMON, and ptrace access to it)");
	}
}

/* ---- counters --------------------------------------------------------------- */

int perf_count_read(int fd, struct perf_count *c)
{
	uint64_t v[3];
	ssize_t r = read(fd, v, sizeof(v));

	if (r < 0)
		return -errno;
	if (r != (ssize_t)sizeof(v))
		return -EIO;
	c->value = v[0];
	c->enabled = v[1];
	c->running = v[2];
	return 0;
}

double perf_count_scaled(const struct perf_count *c)
{
	/* Multiplexed with other hardware events: scale by the share of
	 * time it was on the PMU (what perf stat prints). */
	if (c->running && c->running < c->enabled)
		return (double)c->value * ((double)c->enabled / (double)c->running);
	return (double)c->value;
}

long perf_tracepoint_id(const char *tracefs, const char *sys, const char *name)
{
	char path[4096], *s, *end;
	long id;

	if (strchr(sys, '/') || strchr(name, '/') || !strcmp(sys, "..") || !strcmp(name, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracefs, sys, name);
	s = read_file(path, NULL);
	if (!s)
		return -errno;
	errno = 0;
	id = strtol(s, &end, 10);
	if (errno || end == s || id < 0)
		id = -EINVAL;
	free(s);
	return id;
}

int perf_online_cpus(bool *mask, int n)
{
	char *s = read_file("/sys/devices/system/cpu/online", NULL);
	int err;

	if (!s) {
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		/* No sysfs (a minimal container): every configured CPU. */
		if (conf < 1)
			return -ENOENT;
		for (int i = 0; i < n; i++)
			mask[i] = i < conf;
		return 0;
	}
	err = parse_cpulist(str_trim(s), mask, n);
	free(s);
	return err;
}

int perf_first_offline(const bool *sel, int n)
{
	bool *on = calloc(n, sizeof(*on));
	int bad = -1;

	if (on && perf_online_cpus(on, n) == 0)
		for (int i = 0; i < n && bad < 0; i++)
			if (sel[i] && !on[i])
				bad = i;
	free(on);
	return bad;
}

/* ---- rings ------------------------------------------------------------------ */

int perf_ring_map(struct perf_ring *r, int fd, unsigned pages)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *m;

	if (!pages || (pages & (pages - 1)))
		return -EINVAL;
	r->fd = fd;
	r->map_len = (size_t)(pages + 1) * psz;
	r->base = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -errno;
	}
	m = r->base;
	/* data_offset/data_size exist since 4.1; before, data follows the
	 * first page. */
	if (m->data_size) {
		r->data = (unsigned char *)r->base + m->data_offset;
		r->data_size = m->data_size;
	} else {
		r->data = (unsigned char *)r->base + psz;
		r->data_size = (uint64_t)pages * psz;
	}
	return 0;
}

void perf_ring_unmap(struct perf_ring *r)
{
	if (r->base)
		munmap(r->base, r->map_len);
	r->base = NULL;
}

int perf_ring_read(struct perf_ring *r, void *scratch, perf_record_fn fn, void *arg)
{
	struct perf_event_mmap_page *m = r->base;
	uint64_t head, tail, mask = r->data_size - 1;
	int n = 0, ret = 0;

	if (!m)
		return 0;
	/* Acquire: the records before head are written (the kernel's
	 * smp_wmb() before it publishes data_head). */
	head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
	tail = m->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		uint64_t off = tail & mask;
		const struct perf_event_header *h = (const void *)(r->data + off);
		size_t sz = h->size;

		/* Records are 8-byte aligned, so a header never wraps. */
		if (sz < sizeof(*h) || sz > head - tail)
			break;
		if (off + sz > r->data_size) {
			size_t first = r->data_size - off;

			memcpy(scratch, r->data + off, first);
			memcpy((char *)scratch + first, r->data, sz - first);
			h = scratch;
		}
		ret = fn(h, arg);
		tail += sz;
		n++;
		if (ret < 0)
			break;
	}
	/* Release: done reading before the kernel may write there again. */
	__atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
	return ret < 0 ? ret : n;
}

/* ---- samples ---------------------------------------------------------------- */

void perf_sample_split(const struct perf_sample *s, uint64_t *k, int *nk, uint64_t *u, int *nu,
		       int max)
{
	unsigned mode;

	*nk = *nu = 0;
	if (s->ips) {
		int ctx = 0;

		for (uint64_t i = 0; i < s->nr; i++) {
			uint64_t v = s->ips[i];

			if (v >= (uint64_t)PERF_CONTEXT_MAX) {
				ctx = v == (uint64_t)PERF_CONTEXT_KERNEL ? 1 :
				      v == (uint64_t)PERF_CONTEXT_USER ? 2 : 3;
				continue;
			}
			if (ctx == 1 && *nk < max)
				k[(*nk)++] = v;
			else if (ctx == 2 && *nu < max)
				u[(*nu)++] = v;
		}
		return;
	}
	mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL && max > 0)
		k[(*nk)++] = s->ip;
	else if (mode == PERF_RECORD_MISC_USER && max > 0)
		u[(*nu)++] = s->ip;
}

int perf_sample_parse(const struct perf_event_header *h, uint64_t st, struct perf_sample *s)
{
	if (st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) {
		memset(s, 0, sizeof(*s));
		return -EINVAL;
	}
	return perf_sample_parse_regs(h, st, 0, s);
}

int perf_sample_parse_regs(const struct perf_event_header *h, uint64_t st, uint64_t regs_mask,
			   struct perf_sample *s)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)((const char *)h + h->size);
	const uint64_t known = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
			       PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	memset(s, 0, sizeof(*s));
	if (h->type != PERF_RECORD_SAMPLE || (st & ~known))
		return -EINVAL;
	s->misc = h->misc;
	/* The order is the bit order (perf_event.h, PERF_RECORD_SAMPLE). */
#define TAKE(dst) do { if (p >= end) return -EINVAL; (dst) = *p++; } while (0)
	if (st & PERF_SAMPLE_IP)
		TAKE(s->ip);
	if (st & PERF_SAMPLE_TID) {
		uint64_t v;

		TAKE(v);
		memcpy(&s->pid, &v, 4);
		memcpy(&s->tid, (char *)&v + 4, 4);
	}
	if (st & PERF_SAMPLE_TIME)
		TAKE(s->time);
	if (st & PERF_SAMPLE_CPU) {
		uint64_t v;

		TAKE(v);
		memcpy(&s->cpu, &v, 4);
	}
	if (st & PERF_SAMPLE_PERIOD)
		TAKE(s->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		TAKE(s->nr);
		if (s->nr > (uint64_t)(end - p))
			return -EINVAL;
		s->ips = p;
		p += s->nr;
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		uint64_t n = (uint64_t)__builtin_popcountll(regs_mask);

		TAKE(s->regs_abi);
		if (s->regs_abi) {
			if (n > (uint64_t)(end - p))
				return -EINVAL;
			s->regs = p;
			p += n;
		}
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size;

		/* size, data[size], then dyn_size only when size is not 0. */
		TAKE(size);
		if (size) {
			if (size / 8 + 1 > (uint64_t)(end - p))
				return -EINVAL;
			s->stack = (const unsigned char *)p;
			p += size / 8;
			TAKE(s->stack_len);
			if (s->stack_len > size)
				s->stack_len = size;
		}
	}
#undef TAKE
	return 0;
}

int perf_record_time(const struct perf_event_header *h, uint64_t st, uint64_t *t)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	size_t words = (h->size - sizeof(*h)) / 8, i;

	if (!(st & PERF_SAMPLE_TIME))
		return -EINVAL;
	if (h->type == PERF_RECORD_SAMPLE) {
		i = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
		    !!(st & PERF_SAMPLE_TID);
		if (i >= words)
			return -EINVAL;
		*t = p[i];
		return 0;
	}
	if (h->type >= PERF_RECORD_MAX)
		return -EINVAL;
	/* The sample_id trailer: {pid,tid} time id stream_id {cpu,res} identifier
	 * for the bits set; time is counted from the end. */
	i = 1 + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
	    !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
	if (i > words)
		return -EINVAL;
	*t = p[words - i];
	return 0;
}

/* ---- the sampler ------------------------------------------------------------ */

struct perf_sampler {
	int *fds;
	int nfds;
	struct perf_ring *rings;
	int nrings;
	void *scratch;
	uint64_t sample_type;
	/* for the ordered read, per ring: */
	unsigned char *scratches;	/* PERF_RECORD_MAX each */
	uint64_t *heads, *tails, *when;
	const struct perf_event_header **cur;
};

void perf_sampler_close(struct perf_sampler *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nrings; i++)
		perf_ring_unmap(&s->rings[i]);
	for (int i = 0; i < s->nfds; i++)
		close(s->fds[i]);
	free(s->fds);
	free(s->rings);
	free(s->scratch);
	free(s->scratches);
	free(s->heads);
	free(s->tails);
	free(s->when);
	free(s->cur);
	free(s);
}

int perf_sampler_open(const struct perf_sampler_cfg *cfg, struct perf_sampler **out,
		      struct perf_open_failure *failed)
{
	struct perf_event_attr attr = cfg->attr;
	struct perf_sampler *s;
	bool online[4096];
	int ncpu = (int)ARRAY_SIZE(online), ntask = cfg->all_tasks ? 1 : cfg->ntids;
	int err;

	*out = NULL;
	if (ntask < 1)
		return -EINVAL;
	err = perf_online_cpus(online, ncpu);
	if (err < 0)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fds = calloc((size_t)ncpu * ntask, sizeof(*s->fds));
	s->rings = calloc(ncpu, sizeof(*s->rings));
	s->scratch = malloc(PERF_RECORD_MAX);
	s->sample_type = cfg->attr.sample_type;
	if (!s->fds || !s->rings || !s->scratch) {
		err = -ENOMEM;
		goto fail;
	}
	attr.size = sizeof(attr);
	attr.disabled = 1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int ring_fd = -1;

		if (!online[cpu] || (cfg->cpus && (cpu >= cfg->ncpus || !cfg->cpus[cpu])))
			continue;
		for (int t = 0; t < ntask; t++) {
			int tid = cfg->all_tasks ? -1 : cfg->tids[t];
			int fd = perf_open(&attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

			/* A thread of a -p target may end while we open. */
			if (fd == -ESRCH && t > 0)
				continue;
			if (fd < 0) {
				err = fd;
				if (failed)
					*failed = (struct perf_open_failure){ tid, cpu };
				goto fail;
			}
			s->fds[s->nfds++] = fd;
			if (ring_fd < 0) {
				err = perf_ring_map(&s->rings[s->nrings], fd, cfg->pages);
				if (err < 0) {
					if (failed)
						*failed = (struct perf_open_failure){ tid, cpu };
					goto fail;
				}
				s->nrings++;
				ring_fd = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
				err = -errno;
				if (failed)
					*failed = (struct perf_open_failure){ tid, cpu };
				goto fail;
			}
		}
	}
	if (!s->nrings) {
		err = -ENODEV;	/* no online CPU among those asked for */
		goto fail;
	}
	s->heads = calloc(s->nrings, sizeof(*s->heads));
	s->tails = calloc(s->nrings, sizeof(*s->tails));
	s->when = calloc(s->nrings, sizeof(*s->when));
	s->cur = calloc(s->nrings, sizeof(*s->cur));
	if (!s->heads || !s->tails || !s->when || !s->cur) {
		err = -ENOMEM;
		goto fail;
	}
	*out = s;
	return 0;
fail:
	perf_sampler_close(s);
	return err;
}

int perf_sampler_enable(struct perf_sampler *s)
{
	for (int i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

int perf_sampler_disable(struct perf_sampler *s)
{
	for (int i = 0; i < s->nfds; i++)
		if (ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0) < 0)
			return -errno;
	return 0;
}

int perf_sampler_pollfds(const struct perf_sampler *s, struct pollfd *pfd, int max)
{
	int n = 0;

	for (int i = 0; i < s->nrings && n < max; i++, n++)
		pfd[n] = (struct pollfd){ .fd = s->rings[i].fd, .events = POLLIN };
	return n;
}

int perf_sampler_nrings(const struct perf_sampler *s)
{
	return s->nrings;
}

int perf_sampler_read(struct perf_sampler *s, perf_record_fn fn, void *arg)
{
	int total = 0;

	for (int i = 0; i < s->nrings; i++) {
		int r = perf_ring_read(&s->rings[i], s->scratch, fn, arg);

		if (r < 0)
			return r;
		total += r;
	}
	return total;
}

/* The record at ring i's tail, contiguous (copied when it wraps), or NULL. */
static const struct perf_event_header *peek(struct perf_sampler *s, int i)
{
	struct perf_ring *r = &s->rings[i];
	uint64_t head = s->heads[i], tail = s->tails[i], off;
	const struct perf_event_header *h;
	size_t sz;

	if (head - tail < sizeof(*h))
		return NULL;
	off = tail & (r->data_size - 1);
	h = (const void *)(r->data + off);
	sz = h->size;
	if (sz < sizeof(*h) || sz > head - tail) {
		s->tails[i] = head;	/* corrupt: drop the rest */
		return NULL;
	}
	if (off + sz > r->data_size) {
		unsigned char *buf = s->scratches + (size_t)i * PERF_RECORD_MAX;
		size_t first = r->data_size - off;

		memcpy(buf, r->data + off, first);
		memcpy(buf + first, r->data, sz - first);
		h = (const void *)buf;
	}
	return h;
}

int perf_sampler_read_ordered(struct perf_sampler *s, perf_record_fn fn, void *arg)
{
	const struct perf_event_header **cur = s->cur;
	uint64_t *when = s->when;
	int n = 0, ret = 0;

	if (s->nrings == 1)
		return perf_sampler_read(s, fn, arg);
	if (!s->scratches) {
		s->scratches = malloc((size_t)s->nrings * PERF_RECORD_MAX);
		if (!s->scratches)
			return -ENOMEM;
	}
	for (int i = 0; i < s->nrings; i++) {
		struct perf_event_mmap_page *m = s->rings[i].base;

		s->heads[i] = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
		s->tails[i] = m->data_tail;
		cur[i] = peek(s, i);
		if (cur[i] && perf_record_time(cur[i], s->sample_type, &when[i]) < 0)
			when[i] = 0;
	}
	/* A k-way merge: each ring is in time order already.  Records read
	 * in a later call are later than these but for the few written while
	 * this merge ran. */
	for (;;) {
		int best = -1;

		for (int i = 0; i < s->nrings; i++)
			if (cur[i] && (best < 0 || when[i] < when[best]))
				best = i;
		if (best < 0)
			break;
		ret = fn(cur[best], arg);
		n++;
		s->tails[best] += cur[best]->size;
		if (ret < 0)
			break;
		cur[best] = peek(s, best);
		if (cur[best] && perf_record_time(cur[best], s->sample_type, &when[best]) < 0)
			when[best] = 0;
	}
	for (int i = 0; i < s->nrings; i++) {
		struct perf_event_mmap_page *m = s->rings[i].base;

		__atomic_store_n(&m->data_tail, s->tails[i], __ATOMIC_RELEASE);
	}
	return ret < 0 ? ret : n;
}
