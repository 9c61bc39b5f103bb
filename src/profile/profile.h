/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The profiler of `ftr profile`: perf_event_open sampling of a command, a
 * process or the system, kernel and user call chains (the CFI unwinder of
 * perf/unwind.h where asked), the distinct stacks kept as they arrive and
 * named once at the end, and their reports: the self share by symbol, JSON,
 * and the flame graph and pprof profile the stacks go into (p->fl, p->pp).
 * The command fills the settings (prof_init gives the defaults), gathers,
 * and chooses what to print.
 */
#ifndef FTR_PROFILE_H
#define FTR_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/unwind.h"

#define PROF_MAX_FRAMES 512
/* Distinct stacks kept by default: some 30 MB with stacks 30 frames deep. */
#define PROF_DEFAULT_MAX_STACKS 100000u

enum prof_target { PROF_CMD, PROF_PID, PROF_ALL, PROF_INPUT };

struct stk;
struct chunk;
struct tcomm;
struct stop;
struct sigwatch;

struct prof {
	/* what and how */
	enum prof_target target;
	int pid;
	int child_pid;
	char **cmdv;
	bool cpus[4096];
	bool cpus_given;
	unsigned hz, pages;
	bool g;
	bool pages_given;
	bool debuginfod;	/* --debuginfod */
	enum unwind_mode cg;	/* with g: how user stacks are walked */
	unsigned stack_size;	/* dwarf, auto: bytes of user stack copied */
	uint64_t regs_mask;
	uint64_t duration;
	const char *event;	/* "cpu-clock" or "cycles" */
	uint32_t ev_type;
	uint64_t ev_config;
	uint64_t sample_type;
	bool user_only;
	char why_user_only[320];

	/* the run */
	struct perf_sampler *ps;
	struct sym_ctx *sc;
	struct stk **buckets;
	size_t nbuckets, nstacks;
	size_t max_stacks;	/* --max-stacks: beyond it, new stacks count as dropped */
	uint64_t dropped;	/* samples of new stacks past it */
	struct chunk *arena;
	struct tcomm *comms;
	size_t comm_cap, comm_n;
	uint64_t samples, lost, lost_records, throttles, other_mode, bad_records;
	uint64_t kips[PROF_MAX_FRAMES], uips[PROF_MAX_FRAMES];
	uint64_t dwips[PROF_MAX_FRAMES], spliced[PROF_MAX_FRAMES];
	struct unwinder *uw;
	struct stop *stops;	/* where CFI walks ended early, and why */
	size_t stop_cap, stop_n;
	uint64_t stop_other[UNWIND_END_N];	/* when the table is full */
	uint64_t unwound, stopped[UNWIND_END_N];
	double t0, t1;
	int ncpus;
	char status_note[128];

	/* the report */
	struct flame *fl;
	struct pprof *pp;	/* --pprof */
	bool skip_root;		/* the root frame is the comm (ours) */
	double percent_limit;
	char title[300];
};

/* The defaults: 999 Hz, 128 pages, --percent-limit 0.1, --max-stacks. */
void prof_init(struct prof *p);
/*
 * The stacks to report, into p->fl: read from a folded file (PROF_INPUT:
 * input), or sampled, named, and checked for what makes them untrustworthy
 * (the warnings, into *warn, *nwarn); with pprof, into p->pp as well.
 * Returns 0, or -1 once the failure is reported.
 */
int prof_gather(struct prof *p, const char *input, bool pprof, struct sigwatch *sw,
		char ***warn, int *nwarn);
/* The reports: 0 or -errno (-EIO: the stream's error, for the caller). */
int prof_print_top(struct prof *p, FILE *o);
int prof_print_json(struct prof *p, FILE *o, char **warnings, int nwarn);
/* One line on what was sampled: the flame graph's subtitle. */
void prof_describe(const struct prof *p, char *buf, size_t len);
void prof_free(struct prof *p);

#endif
