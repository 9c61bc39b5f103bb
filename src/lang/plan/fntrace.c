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

int fntrace_add(struct interp *in, const struct lang_probe *pr, const char *reads,
		struct lang_err *err)
{
	const char *env = getenv("FTR_KPROBE_BACKEND"), *g = fn_glob(pr), *t;
	bool forced = env && !strcmp(env, "ftrace"), kp = in->e.feat.f[F_KPROBE].yes;
	char mod[128] = "", why[400], *filter = NULL;
	struct pglob pg = { 0 };
	struct eng_event *v;
	size_t used = 0;
	int ret;

	if (pr->pv != PV_KPROBE || pr->usdt || !in->e.s || (env && !strcmp(env, "kprobe")))
		return 0;
	/* Absent or refused (listed, EPERM): kprobe's own refusal, which
	 * names the tracepoint to use. */
	if (!tracer_usable(in))
		return 0;
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
		snprintf(err->msg, sizeof(err->msg), "'%s' reads %s: %s, and the function tracer "
			 "that stands in for kprobe events records the "
			 "function, its caller, the task, CPU, time and kernel stack, no %s; a "
			 "tracepoint that carries it works ('ftr list')", pr->text, reads,
			 forced ? "FTR_KPROBE_BACKEND=ftrace" : "this kernel has no kprobe events",
			 !strcmp(reads, "retval") ? "return value" : "argument");
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
	ret = engine_add_function(&in->e, filter ? filter : g, 0, &v);
	free(filter);
	if (ret < 0) {
		pglob_free(&pg);
		err->msg[0] = '\0';	/* printed */
		return -EIO;
	}
	planf(in, "%s: the function tracer, %s: one ftrace:function event for every such clause, "
	      "set_ftrace_filter read back before it runs\n", pr->text,
	      forced ? "as FTR_KPROBE_BACKEND=ftrace asks" :
	      !kp ? "as this kernel has no kprobe events" :
	      "cheaper than a kprobe event per function");
	if (kp && !forced)
		planf(in, "%s: %zu functions armed in one batch instead of %zu kprobe events "
		      "(FTR_KPROBE_BACKEND=kprobe keeps kprobes)\n", pr->text, pg.n, pg.n);
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
