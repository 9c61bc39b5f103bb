/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kprobe:F and kfunc:F clauses on ftrace's function tracer, where the
 * kernel has no kprobe events (hardened and small configs): entry probes on
 * functions (wildcards included) whose clause reads no argument run on one
 * ftrace:function event in ftr's instance (kernel/ftrace.c), each record
 * dispatched to the clauses whose functions it is a call of, with `func`
 * and `probe` its own.  The function tracer records the function and its
 * caller, the task, CPU and time, and (func_stack_trace) the kernel stack:
 * comm, pid, tid, cpu, nsecs, func, probe, kstack, predicates and maps over
 * them; arguments, retval, memory reads and user stacks it cannot give:
 * those clauses are refused at their line:col, naming what is missing.
 */
#ifndef FTR_FNTRACE_H
#define FTR_FNTRACE_H

#include <stdbool.h>

#include "lang/lang.h"

struct interp;

/*
 * Does probe pr of clause c run on the function tracer?  1: yes (added:
 * its patterns are in the engine's function filter, *ev the event), 0: no
 * (kprobe events do it), < 0: refused, err set (reads is what the clause
 * reads that the function tracer has not, "arg0", "retval", or NULL).
 * Where kprobe events exist it is chosen for a wildcard of FNTRACE_MANY
 * functions or more (one filter armed in one batch, against one kprobe
 * event, each its own code patch, per function: kprobe:vfs_* set up for
 * 12 s in the 6.1 guest); FTR_KPROBE_BACKEND=ftrace or =kprobe in the
 * environment chooses (the differential tests).  The functions are the
 * kprobe wildcard's own (pglob), so both backends hook the same ones.
 */
#define FNTRACE_MANY 16

/* Does the function tracer's kstack show a kprobe's frames?  On x86 ftr
 * drops the trampoline and starts at the hook as a kprobe reads it.
 * Elsewhere (arm64) a kprobe at a function's first instruction misses the
 * caller that no frame record holds yet, and the tracer, after the
 * prologue, shows it: where kprobes exist, a clause reading kstack stays on
 * them unless --where ftrace asks. */
#if defined(__x86_64__) || defined(__i386__)
#define FNTRACE_KSTACK_AS_KPROBE 1
#else
#define FNTRACE_KSTACK_AS_KPROBE 0
#endif
int fntrace_add(struct interp *in, const struct lang_probe *pr, const char *reads,
		struct lang_err *err);
/*
 * Are the program's kprobe and kretprobe clauses served by function_graph
 * (its entry and exit records)?  Where kprobe events are absent or ftrace is
 * asked for (--where ftrace), when a clause is a kretprobe on a function and
 * function_graph runs in ftr's instance (6.11+) or the user allows the top
 * level's (--global-tracer).  Decided once a run.
 */
bool fntrace_graph(struct interp *in);
/* Is func one of the functions probe pr names (its glob, module aside)? */
bool fntrace_probe_matches(const struct lang_probe *pr, const char *func);

/* Does clause ci run on the function tracer?  Its records take no filter,
 * no trigger and no perf counter (ftrace's own events have no filter or
 * trigger file, trace_export.c; a perf counter on ftrace:function would
 * hook every function through its own ftrace_ops, set_ftrace_filter
 * aside): the pushdowns leave it to user space. */
bool fntrace_clause(const struct interp *in, int ci);

#endif
