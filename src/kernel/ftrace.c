// SPDX-License-Identifier: GPL-2.0-or-later
/* The function tracer in the session's instance: see ftrace.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/ftrace.h"
#include "kernel/session.h"
#include "ftr.h"

bool ftrace_instance_has(struct session *s, const char *tracer)
{
	struct tracefs_instance *inst = session_instance(s);
	char *text = inst ? tracefs_instance_file_read(inst, "available_tracers", NULL) : NULL;
	bool has = false;

	for (char *save = NULL, *w = text ? strtok_r(text, " \n", &save) : NULL; w && !has;
	     w = strtok_r(NULL, " \n", &save))
		has = !strcmp(w, tracer);
	free(text);
	return has;
}

/* The first function of available_filter_functions (top level: the list
 * is global), from its first page only: the file is 50k+ lines the kernel
 * formats one by one.  0 or -errno. */
static int first_function(const char *tdir, char *name, size_t len)
{
	char path[4200], buf[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/available_filter_functions", tdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	if (sscanf(buf, "%255s", name) != 1 || strlen(name) >= len)
		return -ENOENT;
	(void)len;
	return 0;
}

bool ftrace_refused(const char *tdir, char *why, size_t wlen)
{
	char fn[256];
	int err;

	if (!tdir || !tracefs_tracer_available(tdir, "function"))
		return false;
	err = first_function(tdir, fn, sizeof(fn));
	if (err != -EPERM && err != -EACCES)
		return false;
	snprintf(why, wlen, "reading available_filter_functions: %s", strerror(-err));
	return true;
}

int ftrace_try(struct session *s, const char *tracer, char *why, size_t wlen)
{
	struct tracefs_instance *inst = session_instance(s);
	const char *step = "reading available_filter_functions";
	char fn[256] = "", *back = NULL;
	int err;

	if (!inst || !tracefs_file_exists(inst, "set_ftrace_filter")) {
		/* Without CONFIG_DYNAMIC_FTRACE the tracer hooks every function:
		 * ftr never enables it without a filter. */
		snprintf(why, wlen, "no set_ftrace_filter (no dynamic ftrace): it would trace "
			 "every function");
		return -ENOENT;
	}
	err = first_function(session_tracefs(s)->path, fn, sizeof(fn));
	if (!err) {
		step = "reading set_ftrace_filter";
		back = tracefs_instance_file_read(inst, "set_ftrace_filter", NULL);
		err = back ? 0 : errno ? -errno : -EIO;
	}
	free(back);
	if (!err) {
		step = "writing set_ftrace_filter";
		err = session_try_write(s, "set_ftrace_filter", fn);
	}
	if (!err) {
		step = "setting current_tracer";
		err = session_try_write(s, "current_tracer", tracer);
		if (!err)
			session_try_write(s, "current_tracer", "nop");
		/* Emptied after the tracer is off: empty is every function. */
		session_try_write(s, "set_ftrace_filter", "");
	}
	if (err)
		snprintf(why, wlen, "present but not permitted: %s (instances/%s): %s", step,
			 session_name(s), strerror(-err));
	return err;
}

int ftrace_usable(struct session *s, bool graph, char *why, size_t wlen)
{
	const char *tracer = graph ? "function_graph" : "function";
	char *thresh, step[320];
	long t;

	if (!ftrace_instance_has(s, tracer)) {
		snprintf(why, wlen, "cannot run %s in ftr's instance: %s", tracer,
			 !tracefs_tracer_available(session_tracefs(s)->path, tracer) ?
			 "this kernel has none" : "this kernel runs it at the top level only "
			 "(instances have it from 6.11), the system's one tracer, which ftr takes "
			 "only when --global-tracer allows it");
		return -ENOTSUP;
	}
	if (ftrace_try(s, tracer, step, sizeof(step))) {
		snprintf(why, wlen, "cannot run %s: %s", tracer, step);
		return -EPERM;
	}
	if (!graph)
		return 0;
	/* tracing_thresh is global: set, function_graph writes no entry
	 * records and only the exits slower than it (trace_graph_entry, 6.1
	 * and 6.12).  Someone else's: refused, not changed. */
	thresh = tracefs_instance_file_read(NULL, "tracing_thresh", NULL);
	t = thresh ? atol(thresh) : 0;
	free(thresh);
	if (t) {
		snprintf(why, wlen, "tracing_thresh is %ld (global, someone else's): function_graph "
			 "would write no entry records", t);
		return -EBUSY;
	}
	return 0;
}

/* A top-level file's first line, trimmed ("" when unreadable). */
static void top_line(const char *file, char *buf, size_t len)
{
	char *text = tracefs_instance_file_read(NULL, file, NULL);

	snprintf(buf, len, "%s", text ? text : "");
	buf[strcspn(buf, "\n")] = '\0';
	free(text);
}

int ftrace_top_usable(struct session *s, char *why, size_t wlen)
{
	static const struct { const char *file, *idle; } idle[] = {
		{ "current_tracer", "nop" },
		{ "set_ftrace_filter", "#" },
		{ "set_ftrace_notrace", "" },
		{ "set_graph_function", "#" },
		{ "set_graph_notrace", "#" },
		{ "set_ftrace_pid", "no pid" },
		{ "tracing_thresh", "0" },
		{ "max_graph_depth", "0" },
	};
	char v[256];

	if (!tracefs_tracer_available(session_tracefs(s)->path, "function_graph")) {
		snprintf(why, wlen, "cannot run function_graph: this kernel has none");
		return -ENOTSUP;
	}
	/* Someone else's tracer or its settings: refused, never changed
	 * (the top level's tracer is the system's one). */
	for (size_t i = 0; i < ARRAY_SIZE(idle); i++) {
		top_line(idle[i].file, v, sizeof(v));
		if (!strcmp(v, idle[i].idle) ||
		    (!strcmp(idle[i].idle, "#") && (v[0] == '#' || !v[0])) ||
		    (!idle[i].idle[0] && (v[0] == '#' || !v[0])))
			continue;
		snprintf(why, wlen, "cannot take the top level's tracer: %s is '%s' (someone "
			 "else's; ftr takes it only from its idle state)", idle[i].file, v);
		return -EBUSY;
	}
	return 0;
}

size_t ftrace_filter_count(const char *text, char *eg, size_t eglen)
{
	size_t n = 0, used = 0;

	if (eg && eglen)
		eg[0] = '\0';
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len && p[0] != '#') {
			if (eg && n < 4 && used + len + 3 < eglen)
				used += snprintf(eg + used, eglen - used, "%s%.*s", n ? ", " : "",
						 (int)len, p);
			n++;
		}
		p = nl ? nl + 1 : p + len;
	}
	return n;
}

static int read_option(struct tracefs_instance *inst, const char *opt)
{
	char rel[128], *text;
	int v;

	snprintf(rel, sizeof(rel), "options/%s", opt);
	text = tracefs_instance_file_read(inst, rel, NULL);
	v = text ? atoi(text) : -1;
	free(text);
	return v;
}

/*
 * set_ftrace_filter takes one pattern per write() (ftrace_regex_write
 * returns after the first word, and a write of "a b" is short: the rest
 * would be lost): the first truncates, with the restore recorded; the
 * others are appended.  A pattern that matches nothing is EINVAL.
 */
static int write_patterns(struct session *s, const char *filter, char *why, size_t wlen)
{
	char *copy = strdup(filter), *save = NULL;
	int err = 0, n = 0;

	if (!copy)
		return -ENOMEM;
	for (char *w = strtok_r(copy, " \t\n", &save); w && !err;
	     w = strtok_r(NULL, " \t\n", &save), n++) {
		if (session_top(s))
			err = n ? session_global_append(s, "set_ftrace_filter", w) :
				  session_global_write(s, "set_ftrace_filter", w);
		else
			err = n ? session_append(s, "set_ftrace_filter", w) :
				  session_write(s, "set_ftrace_filter", w, "");
		if (err)
			snprintf(why, wlen, "cannot write '%s' to set_ftrace_filter: %s%s", w,
				 strerror(-err), err == -EINVAL ? " (no function matches it)" : "");
	}
	free(copy);
	return err;
}

int ftrace_arm(struct session *s, const struct ftrace_opts *o, size_t *nfuncs, char *why,
	       size_t wlen)
{
	const char *tracer = o->tracer ? o->tracer : "function";
	size_t max = o->max_funcs ? o->max_funcs : FTRACE_MAX_FUNCS;
	struct tracefs_instance *inst;
	char *back, eg[256];
	int err, stack0 = 0;
	size_t n;

	*nfuncs = 0;
	err = session_instance_ready(s);
	if (err) {
		snprintf(why, wlen, "no instance: %s", strerror(-err));
		return err;
	}
	inst = session_top(s) ? NULL : session_instance(s);
	/* Restored last (the log runs backwards): the tracer is off by then,
	 * and an empty filter is every function only to a running tracer. */
	err = write_patterns(s, o->filter, why, wlen);
	if (err)
		return err;
	if (!o->explain) {
		/* Read back: the kernel's own match, and never an empty filter
		 * (every function) under a running tracer. */
		back = tracefs_instance_file_read(inst, "set_ftrace_filter", NULL);
		if (!back) {
			err = errno ? -errno : -EIO;
			snprintf(why, wlen, "cannot read set_ftrace_filter back: %s",
				 strerror(-err));
			return err;
		}
		n = ftrace_filter_count(back, eg, sizeof(eg));
		*nfuncs = n;
		if (!n) {
			free(back);
			snprintf(why, wlen, "'%s' matches no function the function tracer can "
				 "hook (set_ftrace_filter read back empty)", o->filter);
			return -ENOENT;
		}
		if (n > max) {
			free(back);
			snprintf(why, wlen, "'%s' matches %zu functions (%s, ...), more than %zu: "
				 "narrow it, or raise the bound with --max-funcs N", o->filter, n,
				 eg, max);
			return -E2BIG;
		}
		free(back);
	}
	if (session_top(s)) {
		/* The top level's (function_graph before 6.11): each file's
		 * value found noted for `ftr reset`, put back at close. */
		if ((o->pids && (session_global_write(s, "set_ftrace_pid", o->pids) ||
				 session_global_write(s, "options/function-fork", "1"))) ||
		    session_global_write(s, "current_tracer", tracer))
			goto refused;
		return 0;
	}
	/* session_write has said what failed, with the kernel's answer */
	if (o->pids && (session_write(s, "set_ftrace_pid", o->pids, "") ||
			session_write(s, "options/function-fork", "1", NULL)))
		goto refused;
	if (!o->pids && o->notrace_pids && tracefs_file_exists(inst, "set_ftrace_notrace_pid"))
		session_write(s, "set_ftrace_notrace_pid", o->notrace_pids, "");
	if (!strcmp(tracer, "function"))
		stack0 = read_option(inst, "func_stack_trace");
	if (session_write(s, "current_tracer", tracer, "nop"))
		goto refused;
	if (!strcmp(tracer, "function") && stack0 >= 0 && (o->stack || stack0 == 1)) {
		char v[2] = { (char)('0' + (stack0 == 1)), 0 };

		/* func_flags is global: 0 first makes the kernel re-register
		 * this instance's ops whatever another user set; restored to
		 * the value found, while the tracer still runs here. */
		if (session_write(s, "options/func_stack_trace", "0", v) ||
		    (o->stack && session_write(s, "options/func_stack_trace", "1", NULL)))
			goto refused;
	}
	return 0;
refused:
	why[0] = '\0';	/* said */
	return -EIO;
}

int ftrace_fn_fmt(struct tep_handle *tep, int id, struct ftrace_fn_fmt *f)
{
	struct tep_event *ev = tep_find_event(tep, id);

	memset(f, 0, sizeof(*f));
	f->id = id;
	if (!ev)
		return -ENOENT;
	f->ip = tep_find_field(ev, "ip");
	f->parent_ip = tep_find_field(ev, "parent_ip");
	return f->ip && f->parent_ip ? 0 : -ENOENT;
}

int ftrace_fn_decode(const struct ftrace_fn_fmt *f, struct tep_record *rec, uint64_t *ip,
		     uint64_t *parent_ip)
{
	unsigned long long v;

	if (tep_read_number_field(f->ip, rec->data, &v))
		return -EINVAL;
	*ip = v;
	if (tep_read_number_field(f->parent_ip, rec->data, &v))
		return -EINVAL;
	*parent_ip = v;
	return 0;
}
