/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `ftr latency` makes of the latency tracers' records: per-CPU
 * statistics and histograms (rtla's top and hist), and at a stop, the
 * analysis of the sample that crossed the threshold (which IRQs, softirqs
 * and threads delayed it, by how much).  Pure: records in, text or JSON
 * out; kernel/lattracer.c decodes the records.
 */
#ifndef FTR_REPORT_LATSTAT_H
#define FTR_REPORT_LATSTAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum lat_ev_kind {
	LEV_TIMERLAT,		/* ftrace:timerlat: seq, context, latency (ns) */
	LEV_OSNOISE,		/* ftrace:osnoise: one sample period of a CPU */
	LEV_HWLAT,		/* ftrace:hwlat: one gap seen with IRQs off */
	LEV_NOISE_NMI,		/* osnoise:nmi_noise */
	LEV_NOISE_IRQ,		/* osnoise:irq_noise (name: the handler, vector) */
	LEV_NOISE_SOFTIRQ,	/* osnoise:softirq_noise (vector) */
	LEV_NOISE_THREAD,	/* osnoise:thread_noise (name: comm, pid) */
	LEV_THRESHOLD,		/* osnoise:sample_threshold (duration) */
	LEV_STOP,		/* ftrace:print "stop tracing hit on cpu N" */
	LEV_STACK,		/* ftrace:kernel_stack */
};

#define LAT_STACK_MAX 64

struct lat_event {
	enum lat_ev_kind kind;
	int cpu;
	uint64_t ts;		/* the record's time (the buffer's clock, ns) */
	unsigned seq;		/* timerlat seqnum, hwlat seqnum */
	int context;		/* timerlat: 0 IRQ, 1 thread, 2 user return */
	uint64_t latency;	/* timerlat: timer_latency, ns */
	uint64_t start, duration;	/* noise: start (buffer clock) and ns */
	int pid, vector;
	char name[32];		/* noise: the thread's comm, the IRQ's name */
	uint64_t noise, runtime, max_sample;	/* osnoise sample, ns */
	unsigned hw, nmi, irq, softirq, thread;	/* osnoise sample counts */
	uint64_t inner, outer, nmi_total;	/* hwlat, ns */
	unsigned nmi_count;
	int nips;
	uint64_t ips[LAT_STACK_MAX];
};

enum lat_mode { LAT_TIMERLAT_TOP, LAT_TIMERLAT_HIST, LAT_OSNOISE_TOP, LAT_OSNOISE_HIST,
		LAT_HWLAT };

struct lat_opts {
	enum lat_mode mode;
	uint64_t bucket_us;	/* hist: bucket width (µs) */
	int entries;		/* hist: buckets */
	uint64_t stop_us;	/* --stop-at: 0 none */
	bool json;
	bool aa;		/* analyse at the stop */
};

struct lat_stats;
struct ksyms;

struct lat_stats *lat_stats_new(const struct lat_opts *o, int ncpus);
void lat_stats_free(struct lat_stats *st);
void lat_stats_add(struct lat_stats *st, const struct lat_event *ev);
/* The CPU whose sample crossed --stop-at (the kernel's "stop tracing hit"
 * line, else a sample at or over it), or -1. */
int lat_stats_stopped(const struct lat_stats *st);
/* rtla's output for o->mode (text or JSON); with ksyms (may be NULL), the
 * analysis's stack by name. */
void lat_stats_print(const struct lat_stats *st, FILE *out, const struct ksyms *ks);
/* The analysis of the stopped CPU's last sample alone (text, or inside the
 * JSON of lat_stats_print).  Nothing when no CPU stopped. */
void lat_analysis_print(const struct lat_stats *st, FILE *out, const struct ksyms *ks);

#endif
