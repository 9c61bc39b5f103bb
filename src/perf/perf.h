/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_event_open: counters and samplers (the one place that calls it).
 *
 * Counters (ftr stat) are plain fds read with read(2).  Samplers (ftr
 * profile, and the language's profile:hz:N) are one event per CPU, each with
 * its own mmap ring; further events on a CPU (other threads of a -p target)
 * are redirected into that CPU's ring with PERF_EVENT_IOC_SET_OUTPUT.
 */
#ifndef FTR_PERF_H
#define FTR_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pollfd;

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags);
/* Can this process open (type, config) on itself?  0, or -errno. */
int perf_probe(unsigned type, unsigned long long config, bool sampling);
/* The same for user space only (exclude_kernel): what perf_event_paranoid 2
 * (and a distribution's 3, where the kernel has it) may still allow. */
int perf_probe_user(unsigned type, unsigned long long config, bool sampling);
/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. */
int perf_paranoid(void);

/* kernel.perf_event_max_sample_rate, or 0 when unreadable. */
unsigned perf_max_rate(void);
/* The kernel lowers perf_event_max_sample_rate by itself when sampling
 * interrupts take too long (a busy or emulated machine); perf then samples
 * at the lower rate.  Lower *hz to it, with a warning.  */
void perf_clamp_rate(unsigned *hz);

/* ---- permissions, in words --------------------------------------------------- */

/* What a measurement needs from perf_event_paranoid (unprivileged users). */
enum perf_scope {
	PERF_SCOPE_USER,	/* own processes, user space only: <= 2 */
	PERF_SCOPE_KERNEL,	/* own processes, kernel too (and tracepoints): <= 1 */
	PERF_SCOPE_CPU,		/* system-wide, per CPU (-a): <= 0 */
};
/* The highest perf_event_paranoid value that allows scope. */
int perf_scope_paranoid(enum perf_scope scope);
/* Root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set: the paranoid
 * setting does not apply. */
bool perf_privileged(void);
/*
 * Why perf_event_open failed with err for scope, in words, with the fix:
 * the setting and the value needed ("kernel.perf_event_paranoid is 2; this
 * needs 0 or less: ..."), or the plain error.  Pure (paranoid and privileged
 * are arguments) so that the words can be tested.
 */
void perf_explain(int err, enum perf_scope scope, int paranoid, bool privileged, char *buf,
		  size_t len);

/* ---- counters ------------------------------------------------------------------ */

struct perf_count {
	uint64_t value, enabled, running;	/* read_format with TOTAL_TIME_* */
};
/* Read a counter opened with read_format TOTAL_TIME_ENABLED|RUNNING. */
int perf_count_read(int fd, struct perf_count *c);
/* value scaled up when the counter was multiplexed (running < enabled). */
double perf_count_scaled(const struct perf_count *c);

/* The numeric id of tracepoint sys:name, from tracefs's events/SYS/NAME/id
 * (the config of a PERF_TYPE_TRACEPOINT event).  id, or -errno. */
long perf_tracepoint_id(const char *tracefs, const char *sys, const char *name);

/* /sys/devices/system/cpu/online into mask[0..n): 0 or -errno. */
int perf_online_cpus(bool *mask, int n);
/* The first CPU of sel[0..n) that is not online, -1 when all are (or when
 * the online CPUs cannot be read: perf_event_open answers then). */
int perf_first_offline(const bool *sel, int n);

/* ---- rings ----------------------------------------------------------------------- */

/* The biggest record the kernel writes (header.size is 16 bits): what the
 * scratch buffer for a record that wraps round the ring must hold. */
#define PERF_RECORD_MAX 65536

struct perf_ring {
	int fd;
	void *base;		/* the mmap: metadata page, then data */
	size_t map_len;
	unsigned char *data;
	uint64_t data_size;	/* a power of two */
};

/* Map 1 + pages (a power of two) pages of fd's ring.  0 / -errno. */
int perf_ring_map(struct perf_ring *r, int fd, unsigned pages);
void perf_ring_unmap(struct perf_ring *r);
/* fn sees each record, contiguous (a record that wraps round the end is
 * copied into scratch, PERF_RECORD_MAX bytes); the space is given back to
 * the kernel at the end.  A negative return from fn stops the read and is
 * returned; else the number of records read. */
typedef int (*perf_record_fn)(const struct perf_event_header *h, void *arg);
int perf_ring_read(struct perf_ring *r, void *scratch, perf_record_fn fn, void *arg);

/* ---- samples --------------------------------------------------------------------- */

struct perf_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	uint64_t nr;		/* callchain length, context markers included */
	const uint64_t *ips;	/* into the record */
	uint16_t misc;		/* header.misc: PERF_RECORD_MISC_CPUMODE_MASK */
	/* PERF_SAMPLE_REGS_USER: abi 0 (no user registers: a kernel thread),
	 * else the registers of the mask, in bit order. */
	uint64_t regs_abi;
	const uint64_t *regs;
	/* PERF_SAMPLE_STACK_USER: the copy of the user stack from its stack
	 * pointer up, stack_len bytes of it valid (the kernel's dyn_size). */
	const unsigned char *stack;
	uint64_t stack_len;
};
/* Parse a PERF_RECORD_SAMPLE written with sample_type, which may hold IP,
 * TID, TIME, CPU, PERIOD and CALLCHAIN (other bits: -EINVAL). 0 / -EINVAL
 * when the record is short. */
int perf_sample_parse(const struct perf_event_header *h, uint64_t sample_type,
		      struct perf_sample *s);
/* The same, sample_type also holding REGS_USER (regs_mask the attr's
 * sample_regs_user) and STACK_USER. */
int perf_sample_parse_regs(const struct perf_event_header *h, uint64_t sample_type,
			   uint64_t regs_mask, struct perf_sample *s);

/* A sample's frames split by context: kernel addresses into k[0..*nk),
 * user ones into u[0..*nu), innermost first, at most max of each.  From
 * the call chain when there is one (its context markers say whose
 * addresses follow), else the ip alone by the record's cpumode.  Frames of
 * a hypervisor or guest are left out. */
void perf_sample_split(const struct perf_sample *s, uint64_t *k, int *nk, uint64_t *u, int *nu,
		       int max);

/* The time of a record written with sample_type (PERF_SAMPLE_TIME set) and
 * sample_id_all: a sample's own, a side-band record's from its sample_id
 * trailer.  0 / -EINVAL (no time in it). */
int perf_record_time(const struct perf_event_header *h, uint64_t sample_type, uint64_t *t);

/* ---- the sampler: one sampling event per CPU, one ring each --------------------- */

struct perf_sampler_cfg {
	struct perf_event_attr attr;	/* the caller's; disabled is forced on */
	const int *tids;		/* threads to follow; NULL/0 with all_tasks */
	int ntids;
	bool all_tasks;			/* pid -1: everything on the CPUs (-a) */
	const bool *cpus;		/* which CPUs; NULL: all online */
	int ncpus;			/* size of cpus */
	unsigned pages;			/* ring data pages per CPU, a power of two */
};

struct perf_sampler;

/*
 * Open and map everything.  On failure -errno, and *failed (when not NULL)
 * says what was being opened: the tid (-1 for all) and cpu.
 */
struct perf_open_failure {
	int tid, cpu;
};
int perf_sampler_open(const struct perf_sampler_cfg *cfg, struct perf_sampler **out,
		      struct perf_open_failure *failed);
void perf_sampler_close(struct perf_sampler *s);
int perf_sampler_enable(struct perf_sampler *s);
int perf_sampler_disable(struct perf_sampler *s);
/* Fill up to max pollfds (POLLIN on each ring); returns how many. */
int perf_sampler_pollfds(const struct perf_sampler *s, struct pollfd *pfd, int max);
int perf_sampler_nrings(const struct perf_sampler *s);
/* Read every ring once: fn as for perf_ring_read.  Records read, or fn's
 * negative return. */
int perf_sampler_read(struct perf_sampler *s, perf_record_fn fn, void *arg);
/* The same, merged across rings in time order (attr.sample_type must hold
 * PERF_SAMPLE_TIME, and attr.sample_id_all be set): an exec or mmap seen on
 * one CPU is handed over before the samples taken after it on another. */
int perf_sampler_read_ordered(struct perf_sampler *s, perf_record_fn fn, void *arg);

#endif
