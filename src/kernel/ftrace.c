// SPDX-License-Identifier: GPL-2.0-or-later
/* The function tracer in the session's instance: see ftrace.h. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
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
	const char *tdir = session_tracefs(s)->path;
	char fn[256], *back;
	int err;

	if (!inst) {
		snprintf(why, wlen, "no instance to try it in");
		return -ENOENT;
	}
	if (!tracefs_file_exists(inst, "set_ftrace_filter")) {
		/* Without CONFIG_DYNAMIC_FTRACE the tracer hooks every function:
		 * ftr never enables it without a filter. */
		snprintf(why, wlen, "no set_ftrace_filter (a kernel without dynamic ftrace): it "
			 "would trace every function");
		return -ENOENT;
	}
	err = first_function(tdir, fn, sizeof(fn));
	if (err) {
		snprintf(why, wlen, "present but not permitted: reading %s/available_filter_functions: "
			 "%s", tdir, strerror(-err));
		return err;
	}
	back = tracefs_instance_file_read(inst, "set_ftrace_filter", NULL);
	if (!back) {
		err = errno ? -errno : -EIO;
		snprintf(why, wlen, "present but not permitted: reading the instance's "
			 "set_ftrace_filter: %s", strerror(-err));
		return err;
	}
	free(back);
	err = session_try_write(s, "set_ftrace_filter", fn);
	if (err) {
		snprintf(why, wlen, "present but not permitted: writing '%s' to the instance's "
			 "set_ftrace_filter: %s", fn, strerror(-err));
		return err;
	}
	back = tracefs_instance_file_read(inst, "set_ftrace_filter", NULL);
	if (!back || !ftrace_filter_count(back, NULL, 0)) {
		free(back);
		session_try_write(s, "set_ftrace_filter", "");
		snprintf(why, wlen, "'%s' written to set_ftrace_filter did not read back", fn);
		return -EIO;
	}
	free(back);
	err = session_try_write(s, "current_tracer", tracer);
	if (err)
		snprintf(why, wlen, "present but not permitted: echo %s > "
			 "instances/%s/current_tracer: %s", tracer, session_name(s),
			 strerror(-err));
	else
		session_try_write(s, "current_tracer", "nop");
	/* Emptied after the tracer is off: an empty filter is every function. */
	session_try_write(s, "set_ftrace_filter", "");
	return err;
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

/* Functions that run on nearly every kernel path: tracing them is how a
 * machine is made to crawl.  Named in the refusal when a filter has any. */
static const char *const hot_globs[] = {
	"_raw_spin_*", "_raw_read_*", "_raw_write_*", "rcu_*", "__rcu_*", "*preempt*",
	"kmem_cache_*", "__kmalloc*", "kmalloc*", "kfree", "ktime_get*", "*_irq*",
	"__schedule", "schedule", "update_*", "native_*", "mutex_*", "__x64_sys_*",
};

static void hot_names(const char *text, char *out, size_t len)
{
	size_t used = 0, n = 0;

	out[0] = '\0';
	for (const char *p = text; *p && n < 5;) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		char name[128];

		snprintf(name, sizeof(name), "%.*s", (int)(l < 127 ? l : 127), p);
		for (size_t i = 0; i < ARRAY_SIZE(hot_globs) && name[0] != '#'; i++) {
			if (fnmatch(hot_globs[i], name, 0))
				continue;
			if (used + strlen(name) + 3 < len)
				used += snprintf(out + used, len - used, "%s%s", n ? ", " : "",
						 name);
			n++;
			break;
		}
		p = nl ? nl + 1 : p + l;
	}
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
	inst = session_instance(s);
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
			char hot[256];

			hot_names(back, hot, sizeof(hot));
			free(back);
			snprintf(why, wlen, "'%s' matches %zu functions (%s, ...), more than %zu%s%s; "
				 "narrow it, or raise the bound with --max-funcs N", o->filter, n,
				 eg, max, hot[0] ? "; hot ones among them: " : "", hot);
			return -E2BIG;
		}
		free(back);
	}
	if (o->pids && (err = session_write(s, "set_ftrace_pid", o->pids, ""))) {
		snprintf(why, wlen, "cannot write '%s' to set_ftrace_pid: %s", o->pids,
			 strerror(-err));
		return err;
	}
	if (o->pids && (err = session_write(s, "options/function-fork", "1", NULL))) {
		snprintf(why, wlen, "cannot set options/function-fork: %s", strerror(-err));
		return err;
	}
	if (!o->pids && o->notrace_pids && tracefs_file_exists(inst, "set_ftrace_notrace_pid"))
		session_write(s, "set_ftrace_notrace_pid", o->notrace_pids, "");
	if (!strcmp(tracer, "function"))
		stack0 = read_option(inst, "func_stack_trace");
	err = session_write(s, "current_tracer", tracer, "nop");
	if (err) {
		snprintf(why, wlen, "cannot set current_tracer to %s: %s", tracer, strerror(-err));
		return err;
	}
	if (!strcmp(tracer, "function") && stack0 >= 0 && (o->stack || stack0 == 1)) {
		char v[2] = { (char)('0' + (stack0 == 1)), 0 };

		/* func_flags is global: 0 first makes the kernel re-register
		 * this instance's ops whatever another user set; restored to
		 * the value found, while the tracer still runs here. */
		err = session_write(s, "options/func_stack_trace", "0", v);
		if (!err && o->stack)
			err = session_write(s, "options/func_stack_trace", "1", NULL);
		if (err) {
			snprintf(why, wlen, "cannot set options/func_stack_trace: %s",
				 strerror(-err));
			return err;
		}
	}
	return 0;
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
