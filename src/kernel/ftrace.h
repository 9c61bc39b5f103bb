/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftrace's own function tracer in the session's instance: the functions it
 * hooks (set_ftrace_filter, written and read back before the tracer is
 * enabled: an empty filter means every function), the tasks it follows
 * (set_ftrace_pid), a kernel stack after each call (func_stack_trace), and
 * the ftrace:function record it writes.  Every setting goes through the
 * session's undo log; the instance's removal (at close, or by `ftr reset`
 * after SIGKILL) frees its ftrace_ops, filter and pid lists with it.
 *
 * Kernel facts (../shared/FTRACE.md, checked in 6.1 kernel/trace/):
 *  - trace_functions.c has .allow_instances: the function tracer runs in an
 *    instance with its own ops, filter and pid list (4.9 and later);
 *  - its options are one static func_flags for every instance
 *    (func_set_flag returns early "if already set"): func_stack_trace is
 *    written 0 then 1 after the tracer is set, and restored to what was
 *    found, so that another user's setting neither leaks into ftr's run nor
 *    is changed after it;
 *  - function_graph runs in instances from 6.11 only (trace.c,
 *    trace_ok_for_array: a tracer without .allow_instances is absent from
 *    an instance's available_tracers and refused by its current_tracer).
 */
#ifndef FTR_FTRACE_H
#define FTR_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct session;
struct tep_handle;
struct tep_record;
struct tep_format_field;

/*
 * Try tracer ("function" or "function_graph") in the session's instance,
 * the way a run uses it: available_filter_functions read, one function
 * written to set_ftrace_filter and read back, the tracer set and unset,
 * the filter emptied (the instance goes at close).  0 when it works, else
 * -errno and why: the step that failed, the file and the kernel's answer.
 */
int ftrace_try(struct session *s, const char *tracer, char *why, size_t wlen);

/* Without a session (a refusal's note): is the function tracer listed at
 * tdir but its function list closed to ftr (EPERM, a hardened kernel)?
 * why: the kernel's answer. */
bool ftrace_refused(const char *tdir, char *why, size_t wlen);

/* Can a run use the function tracer (graph: function_graph) in the
 * session's instance: in its available_tracers (function_graph from 6.11),
 * tried (ftrace_try), and for function_graph a global tracing_thresh of 0
 * (else it writes no entry records: someone else's, refused).  0, or
 * -errno with why, a whole sentence. */
int ftrace_usable(struct session *s, bool graph, char *why, size_t wlen);

/* Can a run take the top level's function_graph (before 6.11, where
 * instances have none; only when the user allows it): listed, and the top
 * level idle: current_tracer nop, no function filter, graph filter or pid
 * list, tracing_thresh and max_graph_depth 0.  Someone else's settings
 * are refused, never changed.  0, or -errno with why. */
int ftrace_top_usable(struct session *s, char *why, size_t wlen);

/* Is tracer in the instance's available_tracers (instances refuse
 * function_graph before 6.11, where the top level lists it)? */
bool ftrace_instance_has(struct session *s, const char *tracer);

/* The default bound on the functions one run hooks, unless asked
 * (--max-funcs): a filter matching more is refused with the count. */
#define FTRACE_MAX_FUNCS 1000

struct ftrace_opts {
	const char *filter;	/* set_ftrace_filter: globs, space-separated */
	const char *tracer;	/* "function" (NULL) or "function_graph" */
	const char *pids;	/* set_ftrace_pid, space-separated; NULL: every task */
	const char *notrace_pids;	/* set_ftrace_notrace_pid (5.8+; skipped where absent) */
	bool stack;		/* func_stack_trace: a kernel_stack record after each call */
	size_t max_funcs;	/* 0: FTRACE_MAX_FUNCS; SIZE_MAX: no bound */
	bool explain;		/* the writes are printed, nothing is read back */
};

/*
 * Arm the tracer in the session's instance (tracing still off: the
 * caller's session_start turns it on): filter written and read back,
 * refused when empty or over the bound; pids; the tracer; the stack
 * option.  *nfuncs: how many functions the kernel matched.  0, or -errno
 * with why (the refusal, with the count and a few of the names).
 */
int ftrace_arm(struct session *s, const struct ftrace_opts *o, size_t *nfuncs, char *why,
	       size_t wlen);

/* ftrace:function's fields in tep (its format, events/ftrace/function). */
struct ftrace_fn_fmt {
	int id;
	struct tep_format_field *ip, *parent_ip;
};
/* 0, or -ENOENT (the format lacks a field: not a function record). */
int ftrace_fn_fmt(struct tep_handle *tep, int id, struct ftrace_fn_fmt *f);
/* The traced function's address and its caller's, from a record. */
int ftrace_fn_decode(const struct ftrace_fn_fmt *f, struct tep_record *rec, uint64_t *ip,
		     uint64_t *parent_ip);

/* Pure, for tests: the functions a set_ftrace_filter read lists (one per
 * line, "#" comment lines when it is empty: "#### all functions enabled
 * ####"); how many, and the first few names into eg (", "-joined). */
size_t ftrace_filter_count(const char *text, char *eg, size_t eglen);

#endif
