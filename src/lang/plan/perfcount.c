// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Counts in perf tracepoint counters: a keyless or per-CPU count() whose
 * events a kernel without hist triggers still counts exactly, one counter per
 * event and CPU with the clause's predicate as its filter, read into the map
 * (pc_read) and cleared by keeping a base (pc_clear).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "filter/expr.h"
#include "ftr.h"
#include "lang/interp-int.h"
#include "lang/plan/fntrace.h"
#include "lang/plan/filtertext.h"
#include "perf/perf.h"
/* ---- counts in perf tracepoint counters -------------------------------------- */

/*
 * A key the predicate fixes: comm where the predicate is `comm == "NAME"`,
 * or that and more (&&).  The count is then one entry, NAME, counted by the
 * kernel's filter on the task's comm at the event: the comm a hist trigger's
 * filter and the user path's pushed filter test too.  A NAME with glob
 * characters is no fixed key (the kernel's == globs).
 */
static const char *fixed_comm(const struct node *pred, const struct node *key)
{
	const struct node *a, *b;

	if (!pred || key->k != N_BUILTIN || key->ival != B_COMM || pred->k != N_BINOP)
		return NULL;
	if (pred->op == T_ANDAND) {
		const char *l = fixed_comm(pred->a, key);

		return l ? l : fixed_comm(pred->b, key);
	}
	if (pred->op != T_EQ)
		return NULL;
	a = pred->a->k == N_STR ? pred->b : pred->a;
	b = pred->a->k == N_STR ? pred->a : pred->b;
	if (a->k != N_BUILTIN || a->ival != B_COMM || b->k != N_STR || !b->sval ||
	    !*b->sval || strpbrk(b->sval, "*?[]\\") || strlen(b->sval) > 15)
		return NULL;
	return b->sval;
}

/*
 * The same of the command's filter (ftr count -f, which stands for the
 * program with that predicate): the name it fixes comm to on every event of
 * clause ci, bound to each (a field of the event named comm is not the
 * task's), into name; false where it fixes none or the events disagree.
 */
static bool filter_fixed_comm(struct interp *in, int ci, const struct node *key, char *name,
			      size_t len)
{
	int n = 0;

	if (!in->o->filter || key->k != N_BUILTIN || key->ival != B_COMM)
		return false;
	for (int k = 0; k < in->e.nev; k++) {
		struct expr_err ee;
		struct expr *e;
		const char *f;
		bool mine = false;

		for (int i = 0; i < in->eb[k].ncl; i++)
			mine |= in->eb[k].clauses[i] == ci;
		if (!mine)
			continue;
		e = expr_parse(in->o->filter, &ee);
		f = e && !expr_bind(e, in->e.ev[k].ev, &ee) ? expr_fixed_comm(e) : NULL;
		if (!f || (n && strcmp(name, f))) {
			expr_free(e);
			return false;
		}
		snprintf(name, len, "%s", f);
		expr_free(e);
		n++;
	}
	return n > 0;
}

int pc_plan(struct interp *in, int ci, char *why, size_t wlen)
{
	const struct clause *c = &in->p->cl[ci];
	const struct node *st = c->body;
	struct mapdef *m = &in->maps[st->a->slot];
	struct pcount *pc;
	char pred[2048] = "", fname[16];
	const char *fixed = st->a->nargs == 1 ? fixed_comm(c->pred, st->a->args[0]) : NULL;
	bool ffixed = !fixed && st->a->nargs == 1 &&
		      filter_fixed_comm(in, ci, st->a->args[0], fname, sizeof(fname));
	bool by_cpu = st->a->nargs == 1 && !fixed && !ffixed;

	if (!in->e.feat.f[F_PERF].yes) {
		snprintf(why, wlen, "no perf_event_open");
		return -EINVAL;
	}
	if (fntrace_clause(in, ci)) {
		snprintf(why, wlen, "the function tracer's records are counted here");
		return -EINVAL;
	}
	if (st->next || m->kind != AGG_COUNT || m->refs != 1 || st->a->nargs > 1 ||
	    (by_cpu && !(st->a->args[0]->k == N_BUILTIN && st->a->args[0]->ival == B_CPU))) {
		snprintf(why, wlen, "only a keyless or per-CPU count() fits perf counters");
		return -EINVAL;
	}
	if (by_cpu && (in->o->eng.pid || in->o->eng.cmdv)) {
		snprintf(why, wlen, "per-CPU counts of one process are not kept by perf counters");
		return -EINVAL;
	}
	/* After zero() its keys print at 0; a counter that counted nothing
	 * since is no entry at all (pc_read). */
	if (m->zeroed) {
		snprintf(why, wlen, "zero() keeps its keys at 0, which a perf counter cannot tell "
			 "from no count");
		return -EINVAL;
	}
	if (c->pred && plan_render_pred(c->pred, pred, sizeof(pred), why, wlen) < 0)
		return -EINVAL;
	if (in->o->filter) {
		char both[2048];

		snprintf(both, sizeof(both), pred[0] ? "(%s) && (%s)" : "%s%s", pred, in->o->filter);
		snprintf(pred, sizeof(pred), "%s", both);
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc)
		return -ENOMEM;
	pc->by_cpu = by_cpu;
	pc->fixed = fixed;
	if (ffixed) {
		snprintf(pc->fixed_name, sizeof(pc->fixed_name), "%s", fname);
		pc->fixed = pc->fixed_name;
	}
	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];

		bool mine = false;

		for (int i = 0; i < in->eb[k].ncl; i++)
			mine |= in->eb[k].clauses[i] == ci;
		if (!mine)
			continue;
		/* Its events are then not read at all (trigger_only): another
		 * clause on them would see nothing. */
		if (in->eb[k].ncl > 1) {
			snprintf(why, wlen, "its events feed other clauses too");
			free(pc);
			return -EINVAL;
		}
		if (pc->nev == (int)ARRAY_SIZE(pc->ev)) {
			snprintf(why, wlen, "more than %zu events", ARRAY_SIZE(pc->ev));
			free(pc);
			return -EINVAL;
		}
		if (pred[0]) {
			struct expr_err ee;
			struct expr *e = expr_parse(pred, &ee);

			/* The perf filter is the same kernel filter language. */
			if (!e || expr_bind(e, v->ev, &ee) < 0 || !expr_kernel_ok(e, why, wlen) ||
			    expr_to_kernel(e, pc->filter[pc->nev], sizeof(pc->filter[0])) < 0) {
				if (!e || !why[0])
					snprintf(why, wlen, "the filter: %.200s", ee.msg);
				expr_free(e);
				free(pc);
				return -EINVAL;
			}
			expr_free(e);
		}
		pc->ev[pc->nev++] = v;
	}
	/* BEGIN, END, interval: no event to count, the count is the
	 * clause's runs (it was planned with none: a NULL session at the
	 * start, or beside a tracepoint a map never printed; issue 38). */
	if (!pc->nev) {
		snprintf(why, wlen, "its clause has no event a counter can count");
		free(pc);
		return -EINVAL;
	}
	m->pc = pc;
	for (int i = 0; i < pc->nev; i++) {
		pc->ev[i]->trigger_only = true;
		planf(in, "%s: in the kernel, perf tracepoint counter%s on %s:%s%s%s%s\n", m->name,
		      pc->by_cpu || (!in->o->eng.pid && !in->o->eng.cmdv) ? "s (one per CPU)" : "",
		      pc->ev[i]->sys, pc->ev[i]->name, pc->filter[i][0] ? " with filter '" : "",
		      pc->filter[i], pc->filter[i][0] ? "'" : "");
	}
	if (pc->fixed)
		planf(in, "%s: comm is '%s' by the filter\n", m->name, pc->fixed);
	return 0;
}

/* Closed through the undo log, before the dynamic events they count are
 * deleted: the kernel refuses (EBUSY) to delete a uprobe or kprobe while a
 * perf counter still holds it, and the run would leave it behind. */
static void pc_close_fds(void *arg)
{
	struct pcount *pc = arg;

	for (int i = 0; i < pc->nfds; i++)
		close(pc->fds[i]);
	pc->nfds = 0;
}

static int pc_open_one(struct pcount *pc, struct eng_event *v, const char *filter, int pid,
		       int cpu)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.config = (uint64_t)v->ev->id,
		.disabled = 1,
		.inherit = pid > 0,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd;

	if (pc->nfds == (int)ARRAY_SIZE(pc->fds))
		return -ENOSPC;
	fd = perf_open(&a, pid > 0 ? pid : -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		ftr_err("cannot count '%s:%s' with perf_event_open: %s", v->sys, v->name,
			strerror(-fd));
		return fd;
	}
	if (filter[0] && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
		int e = errno;

		close(fd);
		ftr_err("the kernel refused the filter '%s' on a perf counter of '%s:%s': %s",
			filter, v->sys, v->name, strerror(e));
		return -e;
	}
	pc->fd_cpu[pc->nfds] = cpu;
	pc->fds[pc->nfds++] = fd;
	return 0;
}

/* Opened when tracing starts: for the command (its pid, inherited by what
 * it forks), for -p's threads, or on every online CPU. */
int pc_start(struct interp *in, struct pcount *pc)
{
	int pid = in->o->eng.cmdv ? in->e.child.pid : in->o->eng.pid;
	static bool online[1024];
	int err;

	err = session_on_close(in->e.s, pc_close_fds, pc);
	if (err)
		return err;

	for (int i = 0; i < pc->nev; i++) {
		if (pid > 0) {
			int *tids, n;

			/* Every thread of the process, each counting what it
			 * forks from now on. */
			err = proc_threads(pid, &tids, &n);
			if (err)
				return err;
			raise_nofile();
			for (int t = 0; t < n && !err; t++)
				err = pc_open_one(pc, pc->ev[i], pc->filter[i], tids[t], -1);
			free(tids);
			if (err < 0)
				return err;
			continue;
		}
		err = perf_online_cpus(online, ARRAY_SIZE(online));
		if (err < 0)
			return err;
		for (int cpu = 0; cpu < (int)ARRAY_SIZE(online); cpu++) {
			if (!online[cpu])
				continue;
			err = pc_open_one(pc, pc->ev[i], pc->filter[i], -1, cpu);
			if (err < 0)
				return err;
		}
	}
	for (int i = 0; i < pc->nfds; i++)
		ioctl(pc->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	return 0;
}

void pc_stop(struct pcount *pc)
{
	for (int i = 0; i < pc->nfds; i++)
		ioctl(pc->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

/* The counters' values, read once per clause run (see struct pcount).  A
 * counter of a process opened with inherit reads its live children's
 * counts too (perf_event_read_value walks child_list). */
static int pc_snap(struct interp *in, struct pcount *pc)
{
	if (pc->snap_run && pc->snap_run == in->runs)
		return 0;
	for (int i = 0; i < pc->nfds; i++) {
		struct perf_count c;

		if (perf_count_read(pc->fds[i], &c) < 0)
			return -EIO;
		pc->raw[i] = c.value;
	}
	pc->snap_run = in->runs ? in->runs : 1;
	return 0;
}

int pc_read(struct interp *in, struct mapdef *m)
{
	struct pcount *pc = m->pc;

	if (pc_snap(in, pc) < 0)
		return -EIO;
	agg_clear(m->m);
	for (int i = 0; i < pc->nfds; i++) {
		struct agg_kpart k[1] = { { .i = pc->fd_cpu[i] } };
		uint64_t v = pc->raw[i] - pc->base[i];

		if (pc->fixed) {
			k[0].str.p = pc->fixed;
			k[0].str.len = strlen(pc->fixed);
		}
		/* A CPU that counted nothing since the clear has no entry,
		 * as in user space. */
		if (v)
			agg_add(m->m, pc->by_cpu || pc->fixed ? k : NULL, v, 0);
	}
	return 0;
}

int pc_clear(struct interp *in, struct mapdef *m)
{
	struct pcount *pc = m->pc;

	if (pc_snap(in, pc) < 0)
		return -EIO;
	memcpy(pc->base, pc->raw, sizeof(pc->raw[0]) * pc->nfds);
	return 0;
}

void pc_close(struct pcount *pc)
{
	if (pc)
		pc_close_fds(pc);
	free(pc);
}

