/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The language's semantics: the semantic pass (names, fields, types, maps)
 * and the interpreter that runs a program over the decoded event stream.
 * What the interpreter computes is the reference; the planner (filtertext.c) only
 * moves parts of it into the kernel where that cannot change the answer.
 */
#ifndef FTR_INTERP_H
#define FTR_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/engine.h"
#include "report/output.h"

struct lang_err;
struct program;
struct tep_record;
struct agg_sort;

enum where { WHERE_AUTO, WHERE_KERNEL, WHERE_USER };
/* -B: when printf's output is written (full: at least every second). */
enum run_buffering { RUN_BUF_FULL, RUN_BUF_LINE, RUN_BUF_NONE };

struct run_opts {
	enum where where;	/* aggregate in the kernel when it can (auto) */
	/* kprobe clauses on "ftrace" (the function tracer, function_graph) or
	 * "kprobe" events: --where ftrace|kprobe; NULL: chosen (or
	 * FTR_KPROBE_BACKEND) */
	const char *kbackend;
	struct engine_opts eng;	/* pid, cmdv, duration, explain */
	enum out_mode mode;	/* maps as bpftrace text or JSON */
	bool force;		/* no runaway guard */
	bool emit_sh;		/* print the in-kernel part as a sh script */
	const char *src;	/* the program text, for error lines */
	const char *filter;	/* a filter (expr.h syntax) on every event, or NULL */
	uint32_t top;		/* print only the N largest entries (0: all) */
	uint32_t map_size;	/* entries per map (0: 2048) */
	const struct agg_sort *sort;	/* the maps' print order (NULL: bpftrace's) */
	const char *input;	/* run over this recording (trace-cmd data file), not live */
	/* The maps as metrics (lang/prom.h), while the program runs: */
	const char *serve;		/* --serve ADDR:PORT: GET /metrics */
	const char *prom_file;		/* --prom-file FILE: rewritten atomically */
	uint64_t prom_interval_ns;	/* ... every this (0: PROM_FILE_INTERVAL) */
	enum run_buffering buffering;
	bool unsafe;		/* system() allowed (bpftrace's --unsafe) */
	bool dry_run;		/* --dry-run: set up and attach, run nothing (bpftrace's) */
	bool quiet;		/* -q: no 'Attaching N probes...' line, no attached_probes in -f json */
	bool exit_lines;	/* a program's run (not count/hist): bpftrace's two empty
				 * lines after END, before the maps, in text too */
	bool no_hist_summary;	/* text: no ftr line under a histogram (bpftrace's output) */
};

#define PROM_FILE_INTERVAL 10000000000ull	/* 10 s */

/* Compile and run p.  Prints its own errors.  Returns an exit code. */
int lang_run(struct program *p, const struct run_opts *o);

/* ftr record -e PROGRAM: the events p needs on the user path (its
 * tracepoints, the kprobes, uprobes and eprobes it would create, with
 * their fields, and stack records) set up as 'ftr run' would, then
 * body(e, arg) records them (e is prepared; explain: only printed).  The
 * probes are removed after, whatever body returns.  body's exit code, or
 * FTR_EXIT_FAIL (printed). */
struct engine;
int lang_record(struct program *p, const struct run_opts *o,
		int (*body)(struct engine *e, void *arg), void *arg);

/*
 * The same interpreter without a kernel (the unit tests' seam): events and
 * their formats come from tdir, laid out like tracefs (engine_open_offline),
 * records from the caller, output goes to out_fd.  Nothing goes in the
 * kernel: the plan finds no hist triggers or perf counters, and a predicate
 * it would hand to the kernel is the engine's user-space filter, which
 * answers as the kernel's.
 *
 *	interp_open (BEGIN at start_ns) → interp_feed / interp_tick ...
 *	→ interp_finish (END, the maps printed as at exit) → interp_close
 */
struct interp;
/* NULL with err set when the program is at fault (errno too), or with
 * err->msg empty on other failures (printed). */
struct interp *interp_open(struct program *p, const struct run_opts *o, const char *tdir,
			   int out_fd, uint64_t start_ns, struct lang_err *err);
/* Its events, formats (e->tep) and comms (comm_set), to build records with. */
struct engine *interp_engine(struct interp *in);
/* One record through its event's filter and clauses; 1 once exit() ran. */
int interp_feed(struct interp *in, struct tep_record *rec);
/* The interval clauses due at now; 1 once exit() ran. */
int interp_tick(struct interp *in, uint64_t now);
/* END, then the maps.  0 / -errno. */
int interp_finish(struct interp *in, uint64_t now);
void interp_close(struct interp *in);

#endif
