// SPDX-License-Identifier: GPL-2.0-or-later
/* kprobe clauses on the function tracer: see fntrace.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include <tracefs.h>

#include "kernel/engine.h"
#include "kernel/ftrace.h"
#include "kernel/pglob.h"
#include "kernel/session.h"
#include "lang/interp-int.h"
#include "lang/plan/fntrace.h"

/* The function glob of a kprobe/kfunc probe: its text less the kind and a module
 * ("vmlinux:vfs_read", "ext4:ext4_*"), NULL for a place the function
 * tracer cannot hook (an offset, an address). */
static const char *fn_glob(const struct lang_probe *pr)
{
	const char *t = strchr(pr->text, ':'), *c;

	t = t ? t + 1 : "";
	c = strrchr(t, ':');
	if (c)
		t = c + 1;
	if (!*t || strchr(t, '+') || (t[0] == '0' && t[1] == 'x'))
		return NULL;
	return t;
}

bool fntrace_probe_matches(const struct lang_probe *pr, const char *func)
{
	const char *g = fn_glob(pr);

	return g && !fnmatch(g, func, 0);
}

/* Does the function tracer work here?  Tried once in the instance (listed
 * is no proof: a hardened kernel answers EPERM), or, under --explain,
 * which changes nothing, read from available_tracers and whether its
 * function list opens. */
static bool tracer_usable(struct interp *in)
{
	static int usable = -1;
	char why[256];

	if (usable < 0)
		usable = in->e.o.explain ?
			tracefs_tracer_available(session_tracefs(in->e.s)->path, "function") &&
			!ftrace_refused(session_tracefs(in->e.s)->path, why, sizeof(why)) :
			ftrace_instance_has(in->e.s, "function") &&
			!ftrace_try(in->e.s, "function", why, sizeof(why));
	return usable > 0;
}

/* The backend asked for: --where ftrace|kprobe, else FTR_KPROBE_BACKEND. */
static const char *asked(const struct interp *in)
{
	return in->o && in->o->kbackend ? in->o->kbackend : getenv("FTR_KPROBE_BACKEND");
}

/* A kretprobe clause on a function (not an offset, not a uretprobe)? */
static bool kernel_return(const struct lang_probe *pr)
{
	return pr->pv == PV_KRETPROBE && !pr->usdt && fn_glob(pr);
}

/* Does function_graph's exit record carry the return value (6.5+ with
 * CONFIG_FUNCTION_GRAPH_RETVAL: its format has the field)? */
static bool graph_retval(struct interp *in)
{
	char path[4200], *text;
	bool has;

	snprintf(path, sizeof(path), "%s/events/ftrace/funcgraph_exit/format",
		 session_tracefs(in->e.s)->path);
	text = read_file(path, NULL);
	has = text && strstr(text, " retval;");
	free(text);
	return has;
}

bool fntrace_graph(struct interp *in)
{
	const char *env = asked(in);
	bool forced = env && !strcmp(env, "ftrace"), kp = in->e.feat.f[F_KPROBE].yes, ret = false;

	if (in->fn_graph)
		return in->fn_graph == 2;
	in->fn_graph = 1;
	if (!in->e.s || (env && !strcmp(env, "kprobe")) || (kp && !forced) || !tracer_usable(in))
		return false;
	for (int i = 0; i < in->p->ncl && !ret; i++)
		for (int j = 0; j < in->p->cl[i].nprobes; j++)
			ret |= kernel_return(&in->p->cl[i].probes[j]);
	if (!ret)
		return false;
	/* In ftr's instance from 6.11; before, the top level's, taken only
	 * when the user allows it (--global-tracer). */
	ret = engine_graph_in_instance(&in->e) ||
	      (in->e.o.global_tracer &&
	       tracefs_tracer_available(session_tracefs(in->e.s)->path, "function_graph"));
	in->fn_graph = ret ? 2 : 1;
	return ret;
}

int fntrace_add(struct interp *in, const struct lang_probe *pr, const char *reads,
		struct lang_err *err)
{
	const char *env = asked(in), *g = fn_glob(pr), *t;
	bool forced = env && !strcmp(env, "ftrace"), kp = in->e.feat.f[F_KPROBE].yes;
	bool graph = fntrace_graph(in), ret_probe = pr->pv == PV_KRETPROBE;
	char mod[128] = "", why[400], *filter = NULL;
	struct pglob pg = { 0 };
	struct eng_event *v, *ex;
	size_t used = 0;
	int ret;

	if ((pr->pv != PV_KPROBE && pr->pv != PV_KRETPROBE) || pr->usdt || !in->e.s ||
	    (env && !strcmp(env, "kprobe")))
		return 0;
	/* Absent or refused (listed, EPERM): kprobe's own refusal, which
	 * names the tracepoint to use. */
	if (!tracer_usable(in))
		return 0;
	if (ret_probe && !graph) {
		bool top = tracefs_tracer_available(session_tracefs(in->e.s)->path,
						    "function_graph");

		if (kp && !forced)
			return 0;
		snprintf(err->msg, sizeof(err->msg), "cannot probe '%s' %s: return probes need "
			 "kprobe events or function_graph, %s", pr->text,
			 forced ? "on ftrace's tracers (as asked)" : "(this kernel has no kprobe "
			 "events)", !top ? "which this kernel has neither" :
			 "which runs in an instance from 6.11 only: here it is the top level's, "
			 "the system's one tracer, which --global-tracer allows ftr to take");
		err->line = pr->line;
		err->col = pr->col;
		return -ENOTSUP;
	}
	/* function_graph: a retval its exit record carries (6.5+,
	 * FUNCTION_GRAPH_RETVAL) is read as any field. */
	if (graph && reads && !strcmp(reads, "retval") && ret_probe && graph_retval(in))
		reads = NULL;
	/* The function tracer's own frames (fntrace.h): kprobes' where they
	 * exist and are not refused by --where ftrace. */
	if (!graph && reads && !strcmp(reads, "kstack")) {
		if (kp && !forced)
			return 0;
		reads = NULL;
	}
	if (!g && (!kp || forced)) {
		snprintf(err->msg, sizeof(err->msg), "cannot probe '%s' on the function tracer (this "
			 "kernel has no kprobe events): it hooks functions at their entry only",
			 pr->text);
		err->line = pr->line;
		err->col = pr->col;
		return -ENOTSUP;
	}
	if (!g || (kp && !forced && reads))
		return 0;
	/* The functions a kprobe wildcard stands for (pglob: less the kprobe
	 * blacklist and names the kernel has twice), so that both backends
	 * hook the same ones; written by name. */
	t = strchr(pr->text, ':') + 1;
	if (strrchr(t, ':') && strrchr(t, ':') != t)
		snprintf(mod, sizeof(mod), "%.*s", (int)(strrchr(t, ':') - t), t);
	if (!strcmp(mod, "vmlinux"))
		mod[0] = '\0';
	if (pglob_is_glob(g)) {
		ret = pglob_kernel(session_tracefs(in->e.s)->path, mod, g, &pg, why, sizeof(why));
		if (ret < 0) {
			if (kp && !forced)
				return 0;
			snprintf(err->msg, sizeof(err->msg), "'%s': %s", pr->text, why);
			err->line = pr->line;
			err->col = pr->col;
			return ret;
		}
		/* Where kprobes exist, the function tracer when it is cheaper:
		 * one filter armed in one batch against one kprobe event, each
		 * its own code patch, per function.  Over the kprobe cap
		 * (FTR_MAX_PROBES), the kprobe path refuses it, in its words. */
		if (kp && !forced && (pg.n < FNTRACE_MANY || pg.n > pglob_max())) {
			pglob_free(&pg);
			return 0;
		}
	} else if (kp && !forced) {
		return 0;
	}
	if (reads) {
		pglob_free(&pg);
		snprintf(err->msg, sizeof(err->msg), "'%s' reads %s: %s, and the %s that stands in "
			 "for kprobe events records the function, %s the task, CPU and time%s, "
			 "no %s; a tracepoint that carries it works ('ftr list')", pr->text, reads,
			 !kp ? "this kernel has no kprobe events" : "ftrace's tracers as asked",
			 graph ? "function_graph" : "function tracer",
			 graph ? "its depth and durations," : "its caller,",
			 graph ? "" : " and kernel stack",
			 !strcmp(reads, "retval") ? "return value (function_graph has it from 6.5 "
			 "with CONFIG_FUNCTION_GRAPH_RETVAL)" : !strcmp(reads, "kstack") ?
			 "kernel stack" : "argument");
		err->line = pr->line;
		err->col = pr->col;
		return -ENOTSUP;
	}
	if (pglob_is_glob(g) && !pg.n) {
		pglob_free(&pg);
		return 0;	/* kprobe's "no matches" (or skip, in a clause of several) */
	}
	/* By name only where the glob would hook more than the wildcard's
	 * functions (a blacklisted one, a name the kernel has twice): the
	 * kernel takes one pattern per write and matches each against every
	 * function, 78 writes of vfs_* cost seconds in an emulated guest. */
	for (size_t i = 0; pg.skipped && i < pg.n; i++) {
		size_t l = strlen(pg.names[i]) + 1;
		char *more = realloc(filter, used + l + 1);

		if (!more) {
			free(filter);
			pglob_free(&pg);
			return -ENOMEM;
		}
		filter = more;
		used += snprintf(filter + used, l + 1, "%s%s", i ? " " : "", pg.names[i]);
	}
	ret = graph ? engine_add_graph(&in->e, filter ? filter : g, 0, &v, &ex) :
		      engine_add_function(&in->e, filter ? filter : g, 0, &v);
	free(filter);
	if (ret < 0) {
		pglob_free(&pg);
		err->msg[0] = '\0';	/* printed */
		return -EIO;
	}
	if (graph)
		planf(in, "%s: function_graph%s, %s: ftrace:funcgraph_%s, %s\n", pr->text,
		      session_top(in->e.s) ? " at the top level (--global-tracer: before 6.11 "
		      "instances have none; put back as found at exit)" : " in ftr's instance",
		      !kp ? "as this kernel has no kprobe events" : "as --where ftrace asks",
		      ret_probe ? "exit: nsecs there is the entry's plus the exit record's own "
		      "rettime - calltime, exact under nesting" : "entry",
		      "set_ftrace_filter read back before it runs");
	else
		planf(in, "%s: the function tracer, %s: one ftrace:function event for every such "
		      "clause, set_ftrace_filter read back before it runs\n", pr->text,
		      forced ? "as --where ftrace (FTR_KPROBE_BACKEND=ftrace) asks" :
		      !kp ? "as this kernel has no kprobe events" :
		      "cheaper than a kprobe event per function");
	if (kp && !forced)
		planf(in, "%s: %zu functions armed in one batch instead of %zu kprobe events "
		      "(--where kprobe keeps kprobes)\n", pr->text, pg.n, pg.n);
	pglob_free(&pg);
	return 1;
}

bool fntrace_clause(const struct interp *in, int ci)
{
	for (int k = 0; in->eb && k < in->e.nev; k++)
		for (int i = 0; in->e.ev[k].ftrace_fn && i < in->eb[k].ncl; i++)
			if (in->eb[k].clauses[i] == ci)
				return true;
	return false;
}
