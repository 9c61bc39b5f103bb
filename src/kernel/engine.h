/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event engine: what `ftr trace` and the language share.  It owns a
 * session and turns event names and probe specs into enabled events of the
 * private instance, places each filter in the kernel or in user space, runs
 * the command or follows the pid, reads the raw buffers, and hands each
 * record (already filtered) to the caller, with timer ticks between.
 *
 *	engine_open → engine_add_spec / engine_add_probe ... → engine_prepare
 *	→ engine_run → engine_summary → engine_close
 */
#ifndef FTR_ENGINE_H
#define FTR_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "perf/child.h"
#include "kernel/features.h"

struct comm_cache;
struct expr;
struct probe_spec;
struct session;
struct stream;
struct tep_event;
struct tep_handle;
struct tep_record;
struct tracefs_dynevent;

struct eng_event {
	char *sys, *name;
	const char *filter_text;	/* ftr's filter syntax, or NULL */
	const char *raw_filter;		/* written to the kernel as it is, or NULL */
	struct expr *filter;
	bool user_filter;		/* evaluated here, not in the kernel */
	struct tep_event *ev;
	int idx;			/* 0..nev-1 */
	const char *probe_text;		/* "kprobe:vfs_write", or NULL for tracepoints */
	char *fetchargs;		/* a dynamic probe's fields ("count=$arg3:u64") */
	char *replaces;			/* "syscalls:sys_enter_openat": the tracepoint this
					 * probe stands in for (strfetch.c), or NULL */
	bool trigger_only;		/* aggregated by a hist trigger: not enabled for
					 * the ring buffer, nothing to read */
	bool oldest_first;		/* an eprobe: enabled in the program's order */
	bool want_kstack;		/* handed over with its kernel stack */
	bool want_ustack;		/* ... with its user stack */
	/* ftrace:function, written by the function tracer (kernel/ftrace.c)
	 * for the functions of fn_filter, not enabled through events/: no
	 * kernel filter, its own stack option (func_stack_trace). */
	bool ftrace_fn;
	/* A uprobe whose user stack its own fields carry (arch.h,
	 * arch_ustack_fetch: arm64, whose kernel writes no user_stack
	 * record); uentry: at a function's first instruction. */
	bool ufetch, uentry;
	/* A uprobe's file and the file offset it is at: with the event's
	 * address they place the file in a process that is gone by the time
	 * its user stack is named. */
	char *upath;
	uint64_t uoff;
	void *priv;			/* the caller's */
};

struct engine_opts {
	bool explain;			/* print the tracefs writes; change nothing */
	bool emit_sh;			/* keep them for session_script() instead */
	const char *bufsz;		/* per-CPU KB; NULL: sized from memory */
	const bool *cpus;		/* NULL: all */
	int ncpus;
	int pid;			/* follow this process (0: none) */
	char **cmdv;			/* run this command (NULL: none) */
	uint64_t duration_ns;		/* 0: until stopped */
	bool user_filter;		/* every filter in user space */
	const char *clock;		/* the instance's trace_clock, NULL: the kernel's */
	struct tep_handle *file_tep;	/* offline over a recording: its formats and
					 * cmdlines (the caller's; see engine_open_offline) */
	/* function_graph may take the top level's tracer where instances
	 * have none (before 6.11): the user allowed it (--global-tracer). */
	bool global_tracer;
	bool no_tracefs;		/* no events at all (a program of profile, interval,
					 * BEGIN, END): no session, no instance, so that
					 * it runs where lockdown empties tracefs */
};

struct eng_pending;

struct engine {
	struct engine_opts o;
	struct session *s;		/* NULL offline */
	const char *tdir;		/* offline: the directory standing for tracefs */
	struct features feat;
	struct tep_handle *tep;
	struct comm_cache *comms;
	struct eng_event *ev;
	int nev;
	struct eng_event **by_id;
	int max_id;
	int type_off;			/* of common_type (2 bytes), -1: ask libtraceevent */
	struct stream *st;
	struct child child;
	int marker_fd;			/* in a PID namespace: the child tells its pid */
	struct sigwatch sw;		/* no_tracefs: the signals (else the session's) */
	uint64_t filtered_out;
	bool stop;
	int stop_signal;		/* the signal that ended the run, or 0 */
	uint64_t abandoned;		/* records given up by a signal in the last drain */
	/* Called right after tracing is switched on (before the command is
	 * let go) and right after it is switched off: hist triggers are
	 * continued and paused there, so they count exactly what the ring
	 * buffer would have carried. */
	int (*start_hook)(struct engine *e, void *arg);
	int (*stop_hook)(struct engine *e, void *arg);
	/* Called once, after start_hook, when every event, trigger and
	 * counter is live and before the command is let go (the language's
	 * BEGIN, as bpftrace runs it once its probes are attached).  < 0: a
	 * failure; > 0: stop at once (exit() in BEGIN), the command never
	 * runs. */
	int (*ready_hook)(struct engine *e, void *arg);
	/* Called once per turn of the run loop (at least every 100 ms) and
	 * once more after the stop: other sources of records (the language's
	 * CPU sampler, whose rings are not in the poll set) are read there.
	 * Non-zero stops the run. */
	int (*drain_hook)(struct engine *e, void *arg);
	void *hook_arg;
	/* Set before engine_run (ftr record): the buffers' pages as the kernel
	 * wrote them, undecoded, instead of records to on_event (which may be
	 * NULL then); nrec: how many records the page holds.  Non-zero stops
	 * the run. */
	int (*page_hook)(struct engine *e, int cpu, const void *page, size_t len, int nrec,
			 void *arg);
	void *page_arg;			/* page_hook's (hook_arg is the other hooks') */
	/* Kernel stacks (set kstacks before engine_prepare): the instance's
	 * stacktrace option writes a kernel_stack record after each event,
	 * on its CPU; an event that wants one is held until it comes. */
	bool kstacks;
	struct tep_event *stack_ev;
	struct eng_pending *pend;	/* per CPU */
	int npend;
	const uint64_t *cur_stack;	/* during on_event */
	int cur_nstack;
	/* User stacks (set ustacks before engine_prepare): the instance's
	 * userstacktrace option (per instance since 5.10) writes a
	 * user_stack record after each event (after its kernel_stack): at
	 * most 8 frames, unwound by frame pointers. */
	bool ustacks;
	struct tep_event *ustack_ev;
	/* Before 4.7 there is no options/event-fork: set_event_pid follows
	 * no fork.  -p and -- CMD then follow in user space: these pids, and
	 * the children sched_process_fork names (engine.c, follow_*). */
	struct tep_event *fork_ev;
	int *follow;
	size_t nfollow, capfollow;
	const uint64_t *cur_ustack;	/* during on_event */
	int cur_nustack, cur_utgid;
	uint64_t ufetch_ips[16];	/* a ufetch event's frames */
	/* The function tracer (engine_add_function): its filter, the bound
	 * on its functions, and how many the kernel matched. */
	char *fn_filter;
	size_t fn_max, fn_count;
	bool fn_graph;			/* function_graph, not function */
};

/* Session, features, instance.  Prints its errors.  0 / -errno. */
int engine_open(struct engine *e, const struct engine_opts *o);
/* Without a kernel (the language's unit tests): events are resolved and
 * their formats read in tdir, laid out like tracefs (events/header_page,
 * events/SYS/EV/format); no session, no kernel features, every filter in
 * user space, and the records come from engine_feed, not engine_run. */
int engine_open_offline(struct engine *e, const struct engine_opts *o, const char *tdir);

/* Events named by spec ("sys:ev", globs, "t:..."), with a filter for each.
 * Returns how many were added (>= 1) or -errno (message printed). */
int engine_add_spec(struct engine *e, const char *spec, const char *filter);
/* A filter for the events of spec written to the kernel verbatim (its own
 * syntax and extras; its error_log says what it rejects).  0 / -errno. */
int engine_raw_filter(struct engine *e, const char *raw);
/* A dynamic probe; *out is its event.  0 / -errno. */
int engine_add_probe(struct engine *e, const struct probe_spec *p, const char *filter,
		     struct eng_event **out);
/* The function tracer's calls of the functions filter names (globs,
 * space-separated, as set_ftrace_filter takes them), at most max_funcs of
 * them (0: FTRACE_MAX_FUNCS): the event ftrace:function.  A second call
 * adds its patterns to the same filter and event.  0 / -errno (printed). */
int engine_add_function(struct engine *e, const char *filter, size_t max_funcs,
			struct eng_event **out);
/* The same with function_graph (in an instance: 6.11 and later; before,
 * the top level's, when o.global_tracer allows it and it is idle: the
 * session then reads the top level's buffers): the events
 * ftrace:funcgraph_entry (*entry) and ftrace:funcgraph_exit (*exit).  A
 * second call adds its patterns to the same filter and events. */
int engine_add_graph(struct engine *e, const char *filter, size_t max_funcs,
		     struct eng_event **entry, struct eng_event **exit);
/* Does function_graph run in ftr's instance here (6.11+)?  Under --explain
 * told by the kernel's version. */
bool engine_graph_in_instance(struct engine *e);
/* An eprobe on tracepoint sys:ev with these fetchargs; *out is its event.
 * 0 / -errno (printed). */
int engine_add_eprobe(struct engine *e, const char *sys, const char *ev, const char *fetchargs,
		      struct eng_event **out);
/* Parse the formats of the events added so far (engine_prepare does it when
 * not done: call it first to look at fields before choosing filters). */
int engine_load_formats(struct engine *e);
/* The format of an event the engine does not enable (a hist trigger's on
 * an event of its own choosing): parsed into the engine's handle, after
 * engine_load_formats.  NULL when it has none (not printed). */
struct tep_event *engine_format(struct engine *e, const char *sys, const char *name);
/* How many events of system sys have names starting with prefix, in tracefs
 * (or the offline directory): whether a glob covers all of them.  -errno. */
int engine_system_count(struct engine *e, const char *sys, const char *prefix);
/* Formats, filters, instance settings, enabling, buffers; under explain
 * prints the writes instead.  0 / -errno. */
int engine_prepare(struct engine *e);

/* Called per record that passed its filter; non-zero stops the run. */
typedef int (*engine_event_fn)(struct engine *e, struct eng_event *ev, struct tep_record *rec,
			       void *arg);
/* Called where the kernel reports lost events (n < 0: an unknown number). */
typedef void (*engine_lost_fn)(int cpu, long long n, unsigned long long ts, void *arg);
/* Called every tick_ns of CLOCK_MONOTONIC; non-zero stops the run. */
typedef int (*engine_tick_fn)(struct engine *e, uint64_t now_ns, void *arg);

/* Start tracing (and the command), read until the command or pid ends, the
 * duration passes, a signal arrives or a callback says stop; then stop and
 * read what is left.  0, or -errno on a failure (printed). */
int engine_run(struct engine *e, engine_event_fn on_event, engine_lost_fn on_lost,
	       engine_tick_fn on_tick, uint64_t tick_ns, void *arg);

/* One record as engine_run hands it on: its event (by common_type), that
 * event's user-space filter, then on_event.  on_event's value, or 0 for a
 * record that is not ours or is filtered out. */
int engine_feed(struct engine *e, struct tep_record *rec, engine_event_fn on_event, void *arg);
/* engine_open_offline with o->file_tep set (tdir NULL): the events are the
 * recording's, resolved in its tep; comms come from its saved cmdlines.
 * After the last engine_feed, engine_feed_end hands on the events still
 * held for a kernel stack. */
void engine_feed_end(struct engine *e, engine_event_fn on_event, void *arg);

/* Events lost by the kernel in this run (after engine_run). */
uint64_t engine_lost(struct engine *e, bool *unknown);
/* Events read, filtered and lost, on stderr: always, or only when lost. */
void engine_summary(struct engine *e, bool always);
void engine_close(struct engine *e);

const char *engine_comm(struct engine *e, int tid);
/* In on_event: the kernel stack of the event (innermost first) when it
 * wants one, and how many frames (0: none came). */
const uint64_t *engine_kstack(const struct engine *e, int *n);
/* The user stack of the event being delivered, and its process. */
const uint64_t *engine_ustack(const struct engine *e, int *n, int *tgid);
uint64_t engine_now_ns(void);

/* For command lines: a dynamic probe spec ("kprobe:", "u:", ...), and a
 * word that is one of its fields (NAME=FETCH, argN, retval, comm). */
bool engine_is_probe_spec(const char *s);
bool engine_is_fetch_word(const char *w);

#endif
