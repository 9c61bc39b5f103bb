// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The run loop (see interp.h): a program is compiled onto the engine,
 * planned (histtrig.c, perfcount.c, evfilter.c), set up, and run: each record
 * through its event's clauses (on_event), samples and interval clauses
 * (on_sample, on_tick), BEGIN and END, the maps printed at exit, and
 * everything released.  lang_run() for 'ftr run', lang_record() for
 * 'ftr record -e', and the same interpreter without a kernel for the unit
 * tests (interp_open...).
 *
 * A predicate that only reads event fields is handed to the engine as the
 * event's filter (evfilter.c), which puts it in the kernel when the kernel can
 * evaluate it, so that the record never reaches us.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/comm.h"
#include "kernel/flagnames.h"
#include "kernel/kcore.h"
#include "lang/parse/ctypes.h"
#include "lang/maps/intern.h"
#include "lang/interp-int.h"
#include "lang/plan/fntrace.h"
#include "report/sym.h"

void planf(struct interp *in, const char *fmt, ...)
{
	va_list ap;

	if (in->planlen >= sizeof(in->plan))
		return;
	va_start(ap, fmt);
	in->planlen += vsnprintf(in->plan + in->planlen, sizeof(in->plan) - in->planlen, fmt, ap);
	va_end(ap);
}

/* ---- running ------------------------------------------------------------------- */

/*
 * function_graph's open calls per task (its entry records' times, by
 * depth): an exit's nsecs is its entry's time plus the exit record's own
 * rettime - calltime, so that `nsecs - @s[tid]` stored at the entry is the
 * kernel's own duration of that call, whatever ran in between.
 */
#define FG_DEPTH 32
#define FG_TASKS 1024

struct fg_task {
	int tid;
	uint64_t ts[FG_DEPTH], func[FG_DEPTH];
};

static struct fg_task *fg_task(struct interp *in, int tid)
{
	struct fg_task *t;

	if (!in->fg_tasks) {
		in->fg_tasks = calloc(FG_TASKS, sizeof(*in->fg_tasks));
		if (!in->fg_tasks)
			return NULL;
	}
	for (int i = 0; i < FG_TASKS; i++) {
		t = &in->fg_tasks[((unsigned)tid + (unsigned)i) % FG_TASKS];
		if (t->tid == tid || !t->tid) {
			t->tid = tid;
			return t;
		}
	}
	/* full: a task's slot taken over (its open calls' exits then
	 * have the exit record's own time) */
	t = &in->fg_tasks[(unsigned)tid % FG_TASKS];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static uint64_t fg_num(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

/*
 * A call the function tracer recorded (plan/fntrace.h), or function_graph's
 * entry or exit: the clauses whose kprobe (kretprobe at an exit) names its
 * function run, with `func` and `probe` the function's.  Its address is the
 * hooked call site, inside the function (past an endbr64 on x86 with IBT):
 * named by the symbol that holds it.
 */
static int on_function(struct xctx *x)
{
	struct interp *in = x->in;
	struct evbind eb = *x->eb;
	const struct ksyms *ks;
	unsigned long long ip = 0;
	const char *name, *mod;
	bool entry = !strcmp(x->ev->name, "funcgraph_entry");
	bool exit = !strcmp(x->ev->name, "funcgraph_exit");
	struct tep_format_field *f;
	uint64_t off;

	if (!in->ks && !in->ks_err)
		in->ks_err = ksyms_load(NULL, &in->ks);
	if (entry || exit) {
		if (!in->fg_func[exit]) {
			in->fg_func[exit] = tep_find_field(x->ev->ev, "func");
			in->fg_depth[exit] = tep_find_field(x->ev->ev, "depth");
			if (exit) {
				in->fg_call = tep_find_field(x->ev->ev, "calltime");
				in->fg_ret = tep_find_field(x->ev->ev, "rettime");
			}
		}
		f = in->fg_func[exit];
	} else {
		if (!in->fn_ip)
			in->fn_ip = tep_find_field(x->ev->ev, "ip");
		f = in->fn_ip;
	}
	if (!f || tep_read_number_field(f, x->rec->data, &ip))
		return 0;
	in->fn_hook = ip;
	if (entry || exit) {
		uint64_t depth = fg_num(in->fg_depth[exit], x->rec);
		struct fg_task *t = fg_task(in, tep_data_pid(in->e.tep, x->rec));

		if (t && depth < FG_DEPTH && entry) {
			t->ts[depth] = x->rec->ts;
			t->func[depth] = ip;
		} else if (t && depth < FG_DEPTH && t->func[depth] == ip && t->ts[depth]) {
			x->now = t->ts[depth] + fg_num(in->fg_ret, x->rec) -
				 fg_num(in->fg_call, x->rec);
			t->ts[depth] = 0;
		}
	}
	ks = kernel_syms(in);
	name = ks ? ksyms_at(ks, ip, &off, &mod) : NULL;
	if (!name)
		return 0;	/* no name, no clause to match */
	snprintf(eb.func, sizeof(eb.func), "%s", name);
	x->eb = &eb;
	for (int i = 0; i < eb.ncl && !in->exit_req; i++) {
		const struct clause *c = &in->p->cl[eb.clauses[i]];

		for (int j = 0; j < c->nprobes; j++) {
			const struct lang_probe *pr = &c->probes[j];

			if (pr->pv != (exit ? PV_KRETPROBE : PV_KPROBE) ||
			    !fntrace_probe_matches(pr, name))
				continue;
			/* bpftrace's probe of a wildcard's match: its own kind */
			snprintf(eb.probe, sizeof(eb.probe), "%s:%s",
				 exit ? (pr->btf_func ? "fexit" : "kretprobe") :
				 pr->btf_func ? "fentry" : "kprobe", name);
			run_clause(x, eb.clauses[i], false);
			break;
		}
	}
	return in->exit_req || in->ob.err;
}

int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
{
	struct interp *in = arg;
	struct evbind *eb = &in->eb[v->idx];
	struct xctx x = { .in = in, .ev = v, .eb = eb, .rec = rec, .now = rec->ts };

	/* The task's new name, for its events from here on. */
	for (int i = 0; in->read_names && i < 2; i++) {
		const struct name_src *ns = &in->names[i];
		size_t len;
		const char *f;
		char name[16];
		unsigned long long pid = 0;

		if (v->idx != ns->idx || !ns->name || !ns->pid)
			continue;
		f = field_string(ns->name, rec->data, rec->size, &len);
		snprintf(name, sizeof(name), "%.*s", (int)strnlen(f, len), f);
		if (!tep_read_number_field(ns->pid, rec->data, &pid) && name[0])
			comm_set(in->e.comms, (int)pid, name);
	}
	if (v->ftrace_fn)
		return on_function(&x);
	for (int i = 0; i < eb->ncl && !in->exit_req; i++)
		run_clause(&x, eb->clauses[i], eb->pred_pushed);
	return in->exit_req || in->ob.err;
}

static void run_special(struct interp *in, enum probe_provider pv, uint64_t now)
{
	struct xctx x = { .in = in, .now = now };

	for (int i = 0; i < in->p->ncl && !in->exit_req; i++) {
		const struct clause *c = &in->p->cl[i];

		for (int j = 0; j < c->nprobes; j++) {
			if (c->probes[j].pv != pv)
				continue;
			if (pv == PV_INTERVAL) {
				if (now < in->next_fire[i])
					continue;
				in->next_fire[i] += c->probes[j].period_ns;
			}
			snprintf(x.scratch, sizeof(x.scratch), "%s", c->probes[j].text);
			run_clause(&x, i, false);
		}
	}
}

/* profile:hz: each sample runs the profile clauses. */
static int on_sample(const struct lprof_sample *smp, void *arg)
{
	struct interp *in = arg;
	struct xctx x = { .in = in, .smp = smp, .now = smp->time };

	for (int i = 0; i < in->p->ncl && !in->exit_req; i++) {
		const struct clause *c = &in->p->cl[i];

		if (c->probes[0].pv != PV_PROFILE)
			continue;
		snprintf(x.scratch, sizeof(x.scratch), "%s", c->probes[0].text);
		run_clause(&x, i, false);
	}
	return in->exit_req || in->ob.err;
}

static int prof_drain(struct engine *e, void *arg)
{
	struct interp *in = arg;

	return in->prof ? lprof_drain(in->prof, on_sample, in) != 0 : 0;
}

static void prof_comm(int tid, const char *comm, void *arg)
{
	comm_set(arg, tid, comm);
}

/* The sampler is opened once the command exists (held before its exec),
 * before tracing starts: its errors come before anything runs. */
int prof_open(struct interp *in)
{
	struct lprof_opts po = {
		.hz = in->prof_hz,
		.type = in->prof_pr ? in->prof_pr->perf_type : 0,
		.config = in->prof_pr ? in->prof_pr->perf_config : 0,
		.period = in->prof_pr ? in->prof_pr->period : 0,
		.name = in->prof_pr ? in->prof_pr->text : "profile",
		.kstack = in->prof_k,
		.ustack = in->prof_u,
		.pid = in->o->eng.cmdv ? in->e.child.pid : in->o->eng.pid,
		.cmd = in->o->eng.cmdv != NULL,
		.cpus = in->o->eng.cpus,
		.ncpus = in->o->eng.ncpus,
	};
	const char *note;

	in->proc_kernel_pids = session_proc_kernel_pids();
	if (!in->prof_hz && !in->prof_k)
		return 0;
	if (!in->prof_hz) {
		/* kstack at events: only the naming of their frames. */
		if (lprof_names(&in->prof) < 0)
			return -ENOMEM;
	} else if (lprof_open(&po, &in->prof) < 0) {
		return -EIO;
	}
	lprof_set_comm_fn(in->prof, prof_comm, in->e.comms);
	lprof_set_lines(in->prof, !in->p->no_debug_info);
	note = lprof_kernel_note(in->prof);
	if (note)
		ftr_warn("kstack frames print as addresses: %s", note);
	in->e.drain_hook = prof_drain;
	return 0;
}


/* bpftrace's -f json line for events the kernel lost (with a count: the
 * total goes to stderr at the end as in every mode). */
static void bt_lost(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct interp *in = arg;

	if (n <= 0)
		return;
	ob_puts(&in->ob, "{\"type\": \"lost_events\", \"data\": {\"events\": ");
	ob_u64(&in->ob, (uint64_t)n);
	ob_puts(&in->ob, "}}\n");
}

static int on_tick(struct engine *e, uint64_t now, void *arg)
{
	struct interp *in = arg;

	run_special(in, PV_INTERVAL, now);
	metrics_tick(in, now);
	/* The runaway guard: a printf per event on a hot probe turns the box
	 * into a log generator (the seed's warning). */
	if (!in->guard_checked && now - in->start_ns >= 250000000ull) {
		uint64_t rate = in->printfs * 1000000000ull / (now - in->start_ns);

		in->guard_checked = true;
		if (rate > PRINTF_GUARD_RATE && !in->o->force) {
			ob_flush(&in->ob);
			ftr_err("stopped: printf runs %llu times a second, which turns this machine "
				"into a log generator; aggregate instead (@[...] = count(), hist()), "
				"filter with a /predicate/, or run with --force",
				(unsigned long long)rate);
			in->guard_tripped = true;
			return 1;
		}
	}
	ob_flush(&in->ob);
	return in->exit_req || in->ob.err;
}


/* Compile p on the opened engine and decide what runs where.  0, or an
 * error (in in->err with its position when the program is at fault). */
static int setup(struct interp *in)
{
	int err = compile(in, &in->err);
	bool ufetch = false, ura = false;

	if (err)
		return err;
	plan_hists(in);
	plan_filters(in);
	/* Stacks the hist triggers take need no stack records. */
	in->e.kstacks = in->e.ustacks = false;
	for (int i = 0; i < in->e.nev; i++) {
		in->e.kstacks |= in->e.ev[i].want_kstack && !in->e.ev[i].trigger_only;
		in->e.ustacks |= in->e.ev[i].want_ustack && !in->e.ev[i].trigger_only &&
				 !in->e.ev[i].ufetch;
		ufetch |= in->e.ev[i].want_ustack && in->e.ev[i].ufetch;
		ura |= in->e.ev[i].want_ustack && !in->e.ev[i].ufetch && in->e.ev[i].uentry;
	}
	if (in->e.ustacks)
		planf(in, "ustack at events: the instance's userstacktrace option records a user "
		      "stack (8 frames at most, by frame pointers) after every event\n");
	if (ura)
		planf(in, "ustack at a function's entry: the uprobe also fetches the return "
		      "address at the stack pointer (%s), the caller the kernel's walk misses\n",
		      ARCH_UENTRY_RA);
	if (ufetch)
		planf(in, "ustack at uprobes: this kernel writes no user stacks; each uprobe "
		      "fetches the link, stack and frame pointers and %d frame records (%d "
		      "frames at most, by frame pointers)\n", ARCH_USTACK_RECS,
		      ARCH_USTACK_RECS + 2);
	if (in->e.kstacks)
		planf(in, "kstack at events: the instance's stacktrace option records a kernel "
		      "stack after every event; ftr joins each to its event\n");
	if (in->prof_pr && in->prof_pr->period)
		planf(in, "%s: perf_event_open sampling of every %llu-th event on %s, one ring "
		      "per CPU; its clauses run in user space on each sample\n", in->prof_pr->text,
		      (unsigned long long)in->prof_pr->period, in->o->eng.cmdv ?
		      "the command and its children" : in->o->eng.pid ?
		      "the process and its children" : "every CPU");
	else if (in->prof_hz)
		planf(in, "profile:hz:%u: perf_event_open cpu-clock sampling at %u Hz on %s, "
		      "one ring per CPU%s%s%s; its clauses run in user space on each sample\n",
		      in->prof_hz, in->prof_hz, in->o->eng.cmdv ? "the command and its children" :
		      in->o->eng.pid ? "the process and its children" : "every task",
		      in->prof_k || in->prof_u ? ", with " : "", in->prof_k ? "kernel" : "",
		      in->prof_k && in->prof_u ? " and user call chains" :
		      in->prof_k ? " call chains" : in->prof_u ? "user call chains" : "");
	for (int i = 0; i < in->nmaps; i++)
		if (!in->maps[i].planned && in->maps[i].kind != AGG_VALUE)
			planf(in, "%s: in user space, from the raw event stream\n",
			      in->maps[i].name);
	if (in->o->where == WHERE_KERNEL) {
		for (int i = 0; i < in->nmaps; i++)
			if (!in->maps[i].k && !in->maps[i].pc && in->maps[i].kind != AGG_VALUE) {
				ftr_err("--where kernel: %s cannot be aggregated in the kernel:\n%s",
					in->maps[i].name, in->plan);
				return -EINVAL;
			}
	}
	name_events_plan(in);
	return hist_install(in);
}

/* The probes bpftrace would say it attaches: each clause's probes, BEGIN
 * and END included, a wildcard's or a USDT probe's as the probes it
 * names (the sites of one USDT probe are one). */
static int probe_count(const struct interp *in)
{
	const struct program *p = in->p;
	int n = 0;

	for (int i = 0; i < p->ncl; i++) {
		bool evs = false;

		for (int j = 0; j < p->cl[i].nprobes; j++) {
			enum probe_provider pv = p->cl[i].probes[j].pv;

			if (pv == PV_TRACEPOINT || pv == PV_KPROBE || pv == PV_KRETPROBE ||
			    pv == PV_UPROBE || pv == PV_URETPROBE)
				evs = true;
			else
				n++;
		}
		for (int k = 0; evs && in->eb && k < in->e.nev; k++) {
			bool mine = false, seen = false;

			for (int c = 0; c < in->eb[k].ncl && !mine; c++)
				mine = in->eb[k].clauses[c] == i;
			if (!mine || in->eb[k].hrprof)
				continue;
			/* the function tracer's event: a probe per function */
			if (in->e.ev[k].ftrace_fn) {
				n += in->e.fn_count;
				continue;
			}
			for (int q = 0; q < k && !seen; q++)
				for (int c = 0; c < in->eb[q].ncl && !seen; c++)
					seen = in->eb[q].clauses[c] == i && !in->eb[q].hrprof &&
					       !strcmp(in->eb[q].probe, in->eb[k].probe);
			n += !seen;
		}
	}
	return n;
}

/* The clock starts; BEGIN runs (engine_run's ready_hook, ready() below,
 * where there are events to wait for). */
static int begin(struct interp *in, uint64_t now)
{
	const struct program *p = in->p;

	in->next_fire = calloc(p->ncl, sizeof(*in->next_fire));
	if (!in->next_fire)
		return -ENOMEM;
	in->start_ns = now;
	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++)
			if (p->cl[i].probes[j].pv == PV_INTERVAL)
				in->next_fire[i] = in->start_ns + p->cl[i].probes[j].period_ns;
	if (in->o->mode == OUT_BTJSON && !in->o->quiet) {
		int n = probe_count(in);

		ob_puts(&in->ob, "{\"type\": \"attached_probes\", \"count\": ");
		ob_u64(&in->ob, n);
		ob_puts(&in->ob, ", \"data\": {\"probes\": ");
		ob_u64(&in->ob, n);
		ob_puts(&in->ob, "}}\n");
	}
	/* bpftrace's test engine's variable: the line it waits for on
	 * stdout once the probes are live, and bpftrace's own count of them
	 * on stderr, which its tests check (ftr-run(1), ENVIRONMENT). */
	if (getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED")) {
		int n = probe_count(in);

		if (!in->o->quiet && in->o->mode != OUT_BTJSON)
			fprintf(stderr, "Attached %d probe%s\n", n, n == 1 ? "" : "s");
		ob_puts(&in->ob, "__BPFTRACE_NOTIFY_PROBES_ATTACHED\n");
		ob_flush(&in->ob);
	}
	run_special(in, PV_BEGIN, now);
	return 0;
}

/*
 * engine_run's ready_hook: BEGIN runs once every event, hist trigger,
 * perf counter and sampler is live, as bpftrace runs it once its probes
 * are attached, so that whoever waits for BEGIN's output ("Tracing...
 * Hit Ctrl-C to end.") before starting a workload misses none of it.  The
 * command (-c) is let go after BEGIN, as bpftrace does.
 */
static int ready(struct engine *e, void *arg)
{
	struct interp *in = arg;
	int err = begin(in, engine_now_ns());

	if (err < 0)
		return err;
	ob_flush(&in->ob);
	if (!in->exit_req)
		return 0;
	/* exit() in BEGIN: nothing is counted, on any plan.  The user path
	 * reads no record after it; the kernel's maps may have counted a
	 * few events since they started: paused and emptied. */
	hist_stop(e, in);
	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].pc)
			pc_clear(in, &in->maps[i]);
	hist_op_all(in, KHIST_CLEAR);
	return 1;
}

/* The map whose name comes next after map prev's (-1: the first). */
static int map_after(const struct interp *in, int prev)
{
	int best = -1;

	for (int i = 0; i < in->nmaps; i++)
		if ((prev < 0 || strcmp(in->maps[i].name, in->maps[prev].name) > 0) &&
		    (best < 0 || strcmp(in->maps[i].name, in->maps[best].name) < 0))
			best = i;
	return best;
}

/* END runs, and the maps print, as bpftrace prints them at exit. */
static int finish(struct interp *in, uint64_t now)
{
	in->exit_req = false;
	run_special(in, PV_END, now);
	/* Every map, plain stores too (@x = 5 prints "@x: 5"), as bpftrace;
	 * its -f json: after two empty lines, in the order of their names. */
	in->runs++;	/* the maps' last read is a fresh one (struct pcount) */
	/* bpftrace ends what END printed with two newlines, before the maps
	 * and where there are none (0.17 and today's: the suite's cases of a
	 * printf without its newline match whole lines only so) */
	if (in->o->mode == OUT_BTJSON || (in->o->exit_lines && in->o->mode == OUT_TEXT))
		ob_puts(&in->ob, "\n\n");
	/* config = { print_maps_on_exit = 0 }: none */
	for (int n = 0, i = -1, printed = 0; n < in->nmaps && !in->p->no_print_maps; n++) {
		i = in->o->mode == OUT_BTJSON ? map_after(in, i) : n;
		if (!in->maps[i].m)
			continue;
		if (in->maps[i].k && hist_read(in, &in->maps[i]) < 0)
			return -EIO;
		if (in->maps[i].pc && pc_read(in, &in->maps[i]) < 0)
			return -EIO;
		if (!agg_entries(in->maps[i].m))
			continue;
		if (printed++ && in->o->mode == OUT_TEXT)
			ob_putc(&in->ob, '\n');
		print_map(in, &in->maps[i], -1, 0, false);
	}
	/* A map printed said its drops (print_map); one not printed says
	 * them here, as what happened (it spoke of lookups the program may
	 * not make; issue 38). */
	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].m && in->maps[i].kind == AGG_VALUE && agg_dropped(in->maps[i].m) &&
		    (in->p->no_print_maps || !agg_entries(in->maps[i].m)))
			fprintf(stderr, "ftr: %s: %llu stores of new keys dropped: the map holds %u "
				"entries\n", in->maps[i].name,
				(unsigned long long)agg_dropped(in->maps[i].m), agg_size(in->maps[i].m));
	return ob_flush(&in->ob);
}


static void release(struct interp *in)
{
	metrics_close(in);
	ob_flush(&in->ob);
	for (int k = 0; in->eb && k < in->e.nev; k++)
		free(in->eb[k].clauses);
	/* The perf counters' fds are closed by the session's undo log (before
	 * the dynamic events they count: pc_close_fds), so they are freed
	 * only after it has run. */
	engine_close(&in->e);
	for (int i = 0; i < in->nmaps; i++) {
		pc_close(in->maps[i].pc);
		in->maps[i].pc = NULL;
		agg_free(in->maps[i].m);
		free(in->maps[i].name);
		if (in->maps[i].k)
			free(in->maps[i].k->t);
		free(in->maps[i].k);
	}
	for (int c = 0; c < 256; c++)
		for (int i = 0; i < in->nvars[c]; i++)
			free(in->varnames[c][i]);
	for (int i = 0; i < MAX_VARS; i++) {
		free(in->vartsig[i]);
		tbuf_free(&in->varbuf[i]);
	}
	for (int i = 0; i < in->ntbufs; i++)
		tbuf_free(&in->tbufs[i]);
	free(in->tbufs);
	for (int i = 0; i < in->nmaps; i++)
		free(in->maps[i].vtsig);
	free(in->eb);
	free(in->fg_tasks);
	free(in->next_fire);
	for (int c = 0; c < 256; c++)
		free(in->fetch_why[c]);
	ksyms_free(in->ks);
	kcore_close(in->kc);
	if (in->gfp)
		flagnames_free(in->gfp);
	free(in->gfp);
	free(in->fmt);
	ctypes_close(in->types);
	free(in->typed);
	free(in->hrprof);
	lprof_close(in->prof);
	if (in->vals && intern_refused(in->vals))
		fprintf(stderr, "ftr: %llu strings or stacks not kept as map values (read back "
			"empty): ftr keeps %u distinct ones, %u MB in all\n",
			(unsigned long long)intern_refused(in->vals), INTERN_MAX,
			(unsigned)(INTERN_MAX_BYTES >> 20));
	intern_free(in->vals);
}


/* The engine opened and the program set up on it (errors printed). */
static int open_setup(struct interp *in, const struct engine_opts *eo)
{
	int err;

	if (engine_open(&in->e, eo) < 0)
		return -1;
	err = setup(in);
	if (err && in->err.msg[0])
		lang_perror(in->p, in->o->src, &in->err);
	return err ? -1 : 0;
}

int lang_run(struct program *p, const struct run_opts *o)
{
	static struct interp in_storage;
	struct interp *in = &in_storage;
	struct engine_opts eo = o->eng;
	bool any_events = false, any_interval = false;
	uint64_t tick = 0;
	int ret = FTR_EXIT_FAIL, err;

	if (o->input)
		return lang_run_input(p, o);
	memset(in, 0, sizeof(*in));
	in->p = p;
	in->o = o;
	ob_init(&in->ob, STDOUT_FILENO);
	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++) {
			enum probe_provider pv = p->cl[i].probes[j].pv;

			any_events |= pv <= PV_URETPROBE || pv == PV_PROFILE;
			if (pv == PV_INTERVAL) {
				any_interval = true;
				if (!tick || p->cl[i].probes[j].period_ns < tick)
					tick = p->cl[i].probes[j].period_ns;
			}
		}
	/* nsecs in every probe is CLOCK_MONOTONIC: events' timestamps too. */
	eo.clock = "mono";
	/* Without events (profile, interval, BEGIN, END) tracefs is not
	 * needed: such a program runs even where lockdown empties it. */
	eo.no_tracefs = true;
	for (int i = 0; i < p->ncl; i++) {
		for (int j = 0; j < p->cl[i].nprobes; j++)
			if (p->cl[i].probes[j].pv <= PV_URETPROBE)
				eo.no_tracefs = false;
		/* (an eprobe on the sampler's timer: hrprof_clause) */
		if (prof_reads_memory(&p->cl[i]))
			eo.no_tracefs = false;
	}
	if (open_setup(in, &eo) < 0)
		goto out;
	if (o->eng.explain && !o->eng.emit_sh) {
		printf("# plan\n%s# tracefs writes\n", in->plan);
		fflush(stdout);
	}
	if (engine_prepare(&in->e) < 0)
		goto out;
	if (o->eng.emit_sh) {
		ret = emit_sh(in) < 0 ? FTR_EXIT_FAIL : FTR_EXIT_OK;
		goto out;
	}
	if (o->eng.explain || o->dry_run) {
		ret = FTR_EXIT_OK;
		goto out;
	}
	/* On a terminal, say at once that the program is set up (bpftrace's
	 * line), so that a run that sees no event at first is not silent;
	 * -q, or -f json's attached_probes line, instead. */
	if (!o->quiet && o->mode != OUT_BTJSON && isatty(STDERR_FILENO))
		fprintf(stderr, "Attaching %d probe%s...\n", probe_count(in),
			probe_count(in) == 1 ? "" : "s");
	/* Before tracing starts: the exit of a task with an event comes after. */
	if (in->want_exits)
		comm_cache_watch_exits(in->e.comms);
	if (prof_open(in) < 0)
		goto out;
	if (metrics_open(in) < 0)
		goto out;
	if (any_events || any_interval || o->eng.cmdv || o->eng.duration_ns || in->prom) {
		/* Ticks for interval probes, and once a second for the guard
		 * and to flush printf output. */
		if (!tick || tick > 1000000000ull)
			tick = 1000000000ull;
		in->e.ready_hook = ready;
		in->e.hook_arg = in;
		if (engine_run(&in->e, on_event, o->mode == OUT_BTJSON ? bt_lost : NULL, on_tick,
			       tick < 100000000ull ? tick : 100000000ull, in) < 0)
			goto out;
	} else if (begin(in, engine_now_ns()) < 0) {
		goto out;
	}
	if (in->guard_tripped)
		goto out;
	/* The file's last values: the run's, before END changes the maps. */
	if (o->prom_file && in->prom)
		metrics_write_file(in);
	err = finish(in, engine_now_ns());
	if (err < 0 && err != in->ob.err)
		goto out;	/* a map the kernel kept could not be read */
	engine_summary(&in->e, ftr_verbose > 0);
	if (in->prof && lprof_lost(in->prof))
		fprintf(stderr, "ftr: %s: %llu samples LOST (%llu read)\n",
			in->prof_pr ? in->prof_pr->text : "profile", (unsigned long long)lprof_lost(in->prof),
			(unsigned long long)lprof_samples(in->prof));
	ret = in->ob.err && in->ob.err != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
	if (ret == FTR_EXIT_FAIL)	/* (a closed pipe is the reader's choice) */
		ftr_err("write error on %s: %s", stdout_name(), strerror(-in->ob.err));
	else if (in->exit_coded)
		ret = in->exit_code;
out:
	release(in);
	return ret;
}

/* ---- ftr record -e PROGRAM ---------------------------------------------------- */

int lang_record(struct program *p, const struct run_opts *o,
		int (*body)(struct engine *e, void *arg), void *arg)
{
	static struct interp in_storage;
	struct interp *in = &in_storage;
	struct run_opts ro = *o;
	int ret = FTR_EXIT_FAIL;

	/* The user path's events: what 'ftr run -i' reads back.  A hist
	 * trigger or a perf counter would keep its events out of the buffers. */
	ro.where = WHERE_USER;
	ro.input = NULL;
	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++)
			if (p->cl[i].probes[j].pv == PV_PROFILE) {
				ftr_err("'%s' samples with perf_event_open: there is nothing of it "
					"in the ring buffers to record", p->cl[i].probes[j].text);
				return FTR_EXIT_FAIL;
			}
	memset(in, 0, sizeof(*in));
	in->p = p;
	in->o = &ro;
	ob_init(&in->ob, STDOUT_FILENO);
	if (open_setup(in, &ro.eng) < 0)
		goto out;
	if (!in->e.nev) {
		ftr_err("the program has no events to record (tracepoints, kprobes, uprobes)");
		goto out;
	}
	if (ro.eng.explain) {
		printf("# plan\n%s# tracefs writes\n", in->plan);
		fflush(stdout);
	}
	if (engine_prepare(&in->e) < 0)
		goto out;
	ret = body(&in->e, arg);
out:
	/* The session's undo log removes the probes, on every path. */
	release(in);
	return ret;
}

/* ---- without a kernel: the unit tests' seam ----------------------------------- */

struct interp *interp_open(struct program *p, const struct run_opts *o, const char *tdir,
			   int out_fd, uint64_t start_ns, struct lang_err *err)
{
	struct interp *in = calloc(1, sizeof(*in));

	memset(err, 0, sizeof(*err));
	if (!in)
		return NULL;
	in->p = p;
	in->o = o;
	ob_init(&in->ob, out_fd);
	if (engine_open_offline(&in->e, &o->eng, tdir) < 0 || setup(in) < 0 ||
	    engine_prepare(&in->e) < 0 || begin(in, start_ns) < 0) {
		*err = in->err;
		interp_close(in);
		return NULL;
	}
	return in;
}

struct engine *interp_engine(struct interp *in)
{
	return &in->e;
}

int interp_feed(struct interp *in, struct tep_record *rec)
{
	return in->exit_req ? 1 : engine_feed(&in->e, rec, on_event, in);
}

int interp_tick(struct interp *in, uint64_t now)
{
	if (!in->exit_req)
		run_special(in, PV_INTERVAL, now);
	return in->exit_req;
}

int interp_finish(struct interp *in, uint64_t now)
{
	return finish(in, now);
}

void interp_close(struct interp *in)
{
	if (!in)
		return;
	release(in);
	free(in);
}
