/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counting behind `ftr stat`: perf_event_open counters on a command
 * (from its exec), a process or the whole system, read with read(2), with
 * the elapsed/user/sys split of each run, and the reports: text with one
 * line saying what the split means (the seed's S1), or JSON.  Nothing is
 * sampled and no tracefs state is changed.  The command fills the target,
 * adds counters (stat_add_defaults, and stat_add_ctr for tracepoints by
 * id), measures each run and chooses the report.
 */
#ifndef FTR_STAT_H
#define FTR_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf/perf.h"

enum stat_target { STAT_CMD, STAT_PID, STAT_ALL };

struct sigwatch;

struct stat_ctr {
	char name[128];
	uint32_t type;
	uint64_t config;
	bool time_ns;		/* a clock: value in ns, printed as msec */
	bool hw;		/* a PMU event: may be <not supported> */
	bool supported;		/* opened (at least once) */
	bool counted;		/* ran at all */
	int *fds;
	int nfd;
	struct perf_count sum;	/* this run */
	double *runs;		/* per run, scaled */
	double running_pct;
};

struct stat_run {
	double elapsed, user, sys;	/* seconds */
};

struct stat_cnt {
	enum stat_target target;
	int pid;
	char **cmdv;
	bool *cpus;		/* -a -C */
	int ncpu;
	struct stat_ctr *c;
	int nc;
	int nruns, done_runs;
	struct stat_run *runs;
	bool user_only;		/* kernel.perf_event_paranoid made us exclude the kernel */
	bool json;
	FILE *out;
	char why_user_only[256];
	char status_note[128];
	bool interrupted;
};

/* The default counters: task-clock (cpu-clock system-wide), switches,
 * migrations, faults, and the PMU's where there is one.  0 or -ENOMEM. */
int stat_add_defaults(struct stat_cnt *st);
/* One counter more (a tracepoint: PERF_TYPE_TRACEPOINT and its id). */
int stat_add_ctr(struct stat_cnt *st, const char *name, uint32_t type, uint64_t config);
/* Room for st->nruns runs of every counter: 0 or -ENOMEM. */
int stat_alloc_runs(struct stat_cnt *st);
/* Run number run: the command once, or the span of duration_ns (0: until a
 * signal or the process's end).  0, or -1 once the failure is reported. */
int stat_measure(struct stat_cnt *st, struct sigwatch *sw, int run, uint64_t duration_ns);
/* The reports, to st->out. */
void stat_print_text(struct stat_cnt *st);
void stat_print_json(struct stat_cnt *st);
void stat_free(struct stat_cnt *st);

#endif
