// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profiler behind `ftr profile`: where a command, a process or the
 * system spends its CPU time — perf_event_open sampling on cpu-clock
 * (cycles where there is a PMU), kernel and user call chains, one mmap ring
 * per CPU read in time order, symbols resolved once at the end, and the
 * reports the command chooses from: the self share by symbol (perf report
 * --no-children --sort symbol), JSON, folded stacks and the SVG flame graph
 * (report/flame.c), pprof.  And the seed's two warnings: one-frame stacks
 * (no frame pointers) and stripped binaries (which debug package would help).
 *
 * Lifecycle: open the per-CPU samplers (for a command: on the child held
 * back before exec, enable_on_exec) → release/enable → read the rings until
 * the command ends, the time is up, or a signal → disable, final read →
 * resolve the distinct stacks → report.
 *
 * Per sample nothing is allocated but a new distinct stack's few bytes (from
 * an arena) and, once per new process, its address space.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf/child.h"
#include "report/flame.h"
#include "ftr.h"
#include "perf/perf.h"
#include "perf/unwind.h"
#include "profile/profile.h"
#include "report/pprof.h"
#include "report/sym.h"

/* The one frame of the samples of stacks past --max-stacks. */
#define DROPPED_FRAME "[dropped]"
#define NAME_MAX_LEN 320

/* A distinct stack: frames leaf first, kernel part then user part. */
struct stk {
	struct stk *next;
	struct sym_proc *proc;	/* the address space it was taken in */
	uint64_t hash, count;
	uint32_t pid, tid;
	uint16_t nk, nu;
	uint64_t ips[];
};

struct chunk {
	struct chunk *next;
	size_t used, size;
	char mem[];
};

struct tcomm {
	int tid;
	bool used;
	char comm[16];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- per-thread comm ------------------------------------------------------------ */

static struct tcomm *tcomm_slot(struct prof *p, int tid, bool add)
{
	size_t i;

	if (add && (p->comm_n + 1) * 2 > p->comm_cap) {
		size_t ocap = p->comm_cap, ncap = ocap ? ocap * 2 : 256;
		struct tcomm *old = p->comms, *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return NULL;
		p->comms = nv;
		p->comm_cap = ncap;
		p->comm_n = 0;
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j].used)
				continue;
			struct tcomm *s = tcomm_slot(p, old[j].tid, true);

			*s = old[j];
		}
		free(old);
	}
	if (!p->comm_cap)
		return NULL;
	for (i = ((uint32_t)tid * 2654435761u) & (p->comm_cap - 1); p->comms[i].used;
	     i = (i + 1) & (p->comm_cap - 1))
		if (p->comms[i].tid == tid)
			return &p->comms[i];
	if (!add)
		return NULL;
	p->comms[i].used = true;
	p->comms[i].tid = tid;
	p->comms[i].comm[0] = '\0';
	p->comm_n++;
	return &p->comms[i];
}

static void tcomm_set(struct prof *p, int tid, const char *comm)
{
	struct tcomm *t = tcomm_slot(p, tid, true);

	if (t)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

/* ---- distinct stacks ------------------------------------------------------------- */

static void *arena_alloc(struct prof *p, size_t n)
{
	struct chunk *c = p->arena;

	n = (n + 7) & ~(size_t)7;
	if (!c || c->size - c->used < n) {
		size_t size = n > (1u << 20) ? n : (1u << 20);

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->used = 0;
		c->size = size;
		c->next = p->arena;
		p->arena = c;
	}
	c->used += n;
	return c->mem + c->used - n;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static int grow_buckets(struct prof *p)
{
	size_t n = p->nbuckets ? p->nbuckets * 4 : 4096;
	struct stk **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < p->nbuckets; i++) {
		for (struct stk *s = p->buckets[i], *next; s; s = next) {
			next = s->next;
			s->next = b[s->hash & (n - 1)];
			b[s->hash & (n - 1)] = s;
		}
	}
	free(p->buckets);
	p->buckets = b;
	p->nbuckets = n;
	return 0;
}

static int add_stack(struct prof *p, struct sym_proc *proc, uint32_t pid, uint32_t tid, int nk,
		     int nu)
{
	uint64_t h = mix(mix(mix(pid, tid), (uintptr_t)proc), (uint64_t)nk << 16 | nu);
	struct stk *s;

	for (int i = 0; i < nk; i++)
		h = mix(h, p->kips[i]);
	for (int i = 0; i < nu; i++)
		h = mix(h, p->uips[i]);
	if (p->nstacks >= p->nbuckets && grow_buckets(p) < 0)
		return -ENOMEM;
	for (s = p->buckets[h & (p->nbuckets - 1)]; s; s = s->next) {
		if (s->hash == h && s->pid == pid && s->tid == tid && s->proc == proc &&
		    s->nk == nk && s->nu == nu &&
		    !memcmp(s->ips, p->kips, nk * sizeof(uint64_t)) &&
		    !memcmp(s->ips + nk, p->uips, nu * sizeof(uint64_t))) {
			s->count++;
			return 0;
		}
	}
	/* A soak of a busy system sees new stacks without end (every pid and
	 * tid is part of the key): past the cap a new one is only counted, so
	 * that memory stays bounded and the report's total still holds every
	 * sample.  A sample of a stack already kept still counts there. */
	if (p->max_stacks && p->nstacks >= p->max_stacks) {
		p->dropped++;
		return 0;
	}
	s = arena_alloc(p, sizeof(*s) + (size_t)(nk + nu) * sizeof(uint64_t));
	if (!s)
		return -ENOMEM;
	sym_proc_keep(proc);
	*s = (struct stk){ .proc = proc, .hash = h, .count = 1, .pid = pid, .tid = tid,
			   .nk = (uint16_t)nk, .nu = (uint16_t)nu };
	memcpy(s->ips, p->kips, nk * sizeof(uint64_t));
	memcpy(s->ips + nk, p->uips, nu * sizeof(uint64_t));
	s->next = p->buckets[h & (p->nbuckets - 1)];
	p->buckets[h & (p->nbuckets - 1)] = s;
	p->nstacks++;
	return 0;
}

/* ---- where unwinding stopped ------------------------------------------------------- */

#ifdef FTR_NO_DWARF
/* The static build has no CFI unwinder (perf/unwind.h): p->uw stays NULL. */
static int unwind_user(struct prof *p, struct sym_proc *proc, const struct perf_sample *s, int nu)
{
	return nu;
}
#else
/* A place where CFI walks ended before the outermost frame: counted, and
 * named at the end (the warnings say where). */
struct stop {
	struct sym_proc *proc;
	uint64_t pc, count;
	enum unwind_end why;
	bool used;
};

static void stop_note(struct prof *p, struct sym_proc *proc, uint64_t pc, enum unwind_end why)
{
	size_t i;

	p->stopped[why]++;
	if (!p->stop_cap) {
		p->stops = calloc(4096, sizeof(*p->stops));
		p->stop_cap = p->stops ? 4096 : 0;
	}
	if (!p->stop_cap || (p->stop_n + 1) * 2 > p->stop_cap) {
		p->stop_other[why]++;	/* fixed size: per sample, nothing allocated */
		return;
	}
	for (i = mix((uintptr_t)proc, pc ^ why) & (p->stop_cap - 1); p->stops[i].used;
	     i = (i + 1) & (p->stop_cap - 1)) {
		struct stop *t = &p->stops[i];

		if (t->proc == proc && t->pc == pc && t->why == why) {
			t->count++;
			return;
		}
	}
	p->stops[i] = (struct stop){ proc, pc, 1, why, true };
	p->stop_n++;
}

/* The user stack of a sample by CFI (dwarf, auto): into p->uips. */
static int unwind_user(struct prof *p, struct sym_proc *proc, const struct perf_sample *s, int nu)
{
	struct unwind_result r;
	int n;

	if (!s->regs_abi || !proc)
		return nu;	/* a kernel thread: no user stack */
	/* A process that ran before the profile: its mappings now, once. */
	if (sym_proc_needs_maps(proc))
		sym_proc_read_maps(p->sc, proc);
	unwind_sample(p->uw, proc, s, p->dwips, PROF_MAX_FRAMES, &r);
	p->unwound++;
	if (p->cg == UNWIND_AUTO) {
		n = unwind_splice(p->dwips, &r, p->uips, nu, p->spliced, PROF_MAX_FRAMES);
		memcpy(p->uips, p->spliced, (size_t)n * sizeof(*p->uips));
		if (n > r.n)
			return n;	/* the FP chain went on: not a stop */
	} else {
		memcpy(p->uips, p->dwips, (size_t)r.n * sizeof(*p->uips));
		n = r.n;
	}
	if (r.end != UNWIND_END_OK && r.end != UNWIND_END_MAX)
		stop_note(p, proc, r.end_pc, r.end);
	return n;
}

#endif

/* ---- records ------------------------------------------------------------------------ */

static int on_sample(struct prof *p, const struct perf_event_header *h)
{
	struct perf_sample s;
	struct sym_proc *proc = NULL;
	int nk = 0, nu = 0;

	if (perf_sample_parse_regs(h, p->sample_type, p->regs_mask, &s) < 0) {
		p->bad_records++;
		return 0;
	}
	p->samples++;
	perf_sample_split(&s, p->kips, &nk, p->uips, &nu, PROF_MAX_FRAMES);
	if (p->uw && s.pid > 0) {
		proc = sym_proc_find(p->sc, (int)s.pid, true);
		nu = unwind_user(p, proc, &s, nu);
	}
	if (!nk && !nu) {
		p->other_mode++;	/* hypervisor or guest: not ours to name */
		return 0;
	}
	if (nu && s.pid > 0 && !proc)
		proc = sym_proc_find(p->sc, (int)s.pid, true);
	return add_stack(p, proc, s.pid, s.tid, nk, nu) < 0 ? -ENOMEM : 0;
}

/* Side-band records: the symbol side is sym.c's; the names of threads and
 * what a new thread inherits of them are ours. */
static void on_side(struct prof *p, const struct perf_event_header *h)
{
	const uint32_t *v = (const uint32_t *)(h + 1);
	struct tcomm *parent;
	struct sym_proc *gone = NULL;
	char comm[16];
	int tid;

	/* An address space ends (exit, exec): its unwinding state goes, and
	 * the address space itself unless a kept stack refers to it (under
	 * process churn, memory would grow with every process ever seen). */
	if ((h->type == PERF_RECORD_EXIT && h->size >= sizeof(*h) + 16 &&
	     v[0] == v[2]) ||	/* pid, ppid, tid, ptid */
	    (h->type == PERF_RECORD_COMM && h->size >= sizeof(*h) + 8 &&
	     v[0] == v[1] && (h->misc & PERF_RECORD_MISC_COMM_EXEC)))
		gone = sym_proc_find(p->sc, (int)v[0], false);
	sym_perf_side(p->sc, h, &tid, comm);
	if (gone) {
		unwind_forget(p->uw, gone);
		sym_proc_release(p->sc, gone);
	}
	if (tid > 0)
		tcomm_set(p, tid, comm);
	if (h->type != PERF_RECORD_FORK || h->size < sizeof(*h) + 16)
		return;
	/* pid, ppid, tid, ptid */
	parent = tcomm_slot(p, (int)v[3], false);
	if (parent && parent->comm[0]) {
		memcpy(comm, parent->comm, sizeof(comm));
		tcomm_set(p, (int)v[2], comm);
	}
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct prof *p = arg;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(p, h);
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		on_side(p, h);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			const uint64_t *v = (const uint64_t *)(h + 1);

			p->lost += v[1];
			p->lost_records++;
		}
		break;
	case PERF_RECORD_THROTTLE:
		p->throttles++;
		break;
	default:
		break;
	}
	return 0;
}

/* ---- setting up -------------------------------------------------------------------- */

static void explain_open(struct prof *p, int err, const struct perf_open_failure *f)
{
	/* -C on a command or a pid is still a per-task event: only -a asks
	 * for a whole CPU. */
	enum perf_scope scope = p->target == PROF_ALL ? PERF_SCOPE_CPU :
				p->user_only ? PERF_SCOPE_USER : PERF_SCOPE_KERNEL;
	char why[512];

	if (err == -EINVAL && perf_max_rate() && perf_max_rate() < p->hz) {
		ftr_err("cannot sample at %u Hz: the kernel allows at most %u "
			"(kernel.perf_event_max_sample_rate)", p->hz, perf_max_rate());
		return;
	}
	if (err == -ESRCH && p->target == PROF_PID) {
		ftr_err("no process with pid %d", p->pid);
		return;
	}
	perf_explain(err, scope, perf_paranoid(), perf_privileged(), why, sizeof(why));
	if (p->target == PROF_PID)
		ftr_err("cannot profile pid %d (thread %d, cpu %d): %s", p->pid, f->tid, f->cpu,
			why);
	else
		ftr_err("cannot profile %s on cpu %d: %s", p->event, f->cpu, why);
}

static int open_sampler(struct prof *p, int child_pid)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_sampler_cfg cfg = {
		.cpus = p->cpus_given ? p->cpus : NULL,
		.ncpus = (int)ARRAY_SIZE(p->cpus),
		.pages = p->pages,
		.all_tasks = p->target == PROF_ALL,
	};
	struct perf_open_failure f = { -1, -1 };
	int *tids = NULL, ntid = 0, err;

	perf_clamp_rate(&p->hz);
	p->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | (p->g ? PERF_SAMPLE_CALLCHAIN : 0) |
			 (p->uw ? PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER : 0);
	cfg.attr = (struct perf_event_attr){
		.size = sizeof(struct perf_event_attr),
		.type = p->ev_type,
		.config = p->ev_config,
		.sample_freq = p->hz,
		.freq = 1,
		.sample_type = p->sample_type,
		.mmap = 1, .mmap2 = 1, .comm = 1, .comm_exec = 1, .task = 1,
		.sample_id_all = 1,
		.inherit = p->target != PROF_ALL,
		.enable_on_exec = p->target == PROF_CMD,
		.exclude_kernel = p->user_only,
		.exclude_hv = 1,
		.watermark = 1,
		.wakeup_watermark = (uint32_t)((size_t)p->pages * psz / 2),
		.sample_regs_user = p->uw ? p->regs_mask : 0,
		.sample_stack_user = p->uw ? p->stack_size : 0,
		/* dwarf: the user chain is ours; auto: the FP chain continues
		 * ours past the stack copy. */
		.exclude_callchain_user = p->uw && p->cg == UNWIND_DWARF,
	};
	if (p->target == PROF_CMD) {
		cfg.tids = &child_pid;
		cfg.ntids = 1;
	} else if (p->target == PROF_PID) {
		raise_nofile();
		err = proc_threads(p->pid, &tids, &ntid);
		if (err < 0) {
			ftr_err(err == -ENOENT || err == -ESRCH ? "no process with pid %d" :
				"cannot list the threads of pid %d", p->pid);
			return err;
		}
		cfg.tids = tids;
		cfg.ntids = ntid;
	}
	err = perf_sampler_open(&cfg, &p->ps, &f);
	if ((err == -EACCES || err == -EPERM) && !p->user_only && p->target != PROF_ALL &&
	    !perf_privileged() && perf_paranoid() > 1) {
		/* kernel.perf_event_paranoid=2: unprivileged users may sample
		 * user space only.  Do that, and say what it costs. */
		perf_explain(err, PERF_SCOPE_KERNEL, perf_paranoid(), false, p->why_user_only,
			     sizeof(p->why_user_only));
		p->user_only = true;
		cfg.attr.exclude_kernel = 1;
		err = perf_sampler_open(&cfg, &p->ps, &f);
	}
	free(tids);
	if (err < 0) {
		explain_open(p, err, &f);
		return err;
	}
	p->ncpus = perf_sampler_nrings(p->ps);
	return 0;
}

/* ---- the run ------------------------------------------------------------------------- */

static void forget_proc(void *arg, struct sym_proc *proc)
{
	struct prof *p = arg;

	unwind_forget(p->uw, proc);
}

static int drain(struct prof *p)
{
	int r = perf_sampler_read_ordered(p->ps, on_record, p);

	if (r < 0)
		return r;
	/* Outside the per-record path: /proc reads for processes that ran
	 * before we started, and files that changed since they were mapped. */
	sym_read_pending(p->sc);
	sym_pin_new(p->sc);
	sym_reap(p->sc, forget_proc, p);
	return 0;
}

static int run(struct prof *p, struct sigwatch *sw)
{
	struct child ch = CHILD_INIT;
	struct pollfd *pfd;
	int npfd, err, sigs = 0;
	double end = 0;

	pfd = calloc(4097, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	if (p->target == PROF_CMD) {
		err = child_spawn(p->cmdv, &ch, sigwatch_restore, sw);
		if (err < 0) {
			ftr_err("cannot start '%s': %s", p->cmdv[0], strerror(-err));
			free(pfd);
			return err;
		}
	}
	p->child_pid = ch.pid;
	err = open_sampler(p, ch.pid);
	if (err < 0)
		goto out;
	pfd[0] = (struct pollfd){ .fd = sw->fd, .events = POLLIN };
	npfd = 1 + perf_sampler_pollfds(p->ps, pfd + 1, 4096);
	if (p->target == PROF_CMD) {
		p->t0 = now_s();
		err = child_release(&ch, p->cmdv[0]);
		if (err < 0)
			goto out;
	} else {
		err = perf_sampler_enable(p->ps);
		if (err < 0) {
			ftr_err("cannot start sampling: %s", strerror(-err));
			goto out;
		}
		p->t0 = now_s();
	}
	/* -v: the moment samples start to count, for whoever waits on it (a
	 * test that stops ftr to make its rings overflow). */
	ftr_info("sampling at %u Hz", p->hz);
	if (p->duration)
		end = p->t0 + p->duration / 1e9;
	for (;;) {
		int timeout = 100, sig;

		if (end) {
			double now = now_s();

			if (now >= end)
				break;
			if ((end - now) * 1000 < timeout)
				timeout = (int)((end - now) * 1000) + 1;
		}
		if (poll(pfd, npfd, timeout) < 0 && errno != EINTR) {
			err = -errno;
			ftr_err("poll: %s", strerror(errno));
			goto out;
		}
		while ((sig = sigwatch_take(sw))) {
			if (sig == SIGCHLD)
				continue;
			sigs++;
			/* The command may not have had the signal (kill(1) sent
			 * it to ftr alone): pass it on, and wait for its end;
			 * a second one ends the profile anyway. */
			if (p->target == PROF_CMD && !ch.done && sigs == 1)
				kill(ch.pid, sig);
		}
		err = drain(p);
		if (err < 0) {
			ftr_err("cannot keep the samples: %s", strerror(-err));
			goto out;
		}
		if (p->target == PROF_CMD && child_reap(&ch))
			break;
		if (p->target != PROF_CMD && sigs)
			break;
		if (sigs > 1)
			break;
		if (p->target == PROF_PID && !pid_alive(p->pid))
			break;
	}
	p->t1 = now_s();
	perf_sampler_disable(p->ps);
	err = drain(p);
	if (err < 0)
		ftr_err("cannot keep the samples: %s", strerror(-err));
	if (p->target == PROF_CMD && ch.done && (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status))) {
		char s[96];

		child_status_str(ch.status, s, sizeof(s));
		snprintf(p->status_note, sizeof(p->status_note), "'%s' %s", p->cmdv[0], s);
	}
out:
	child_abandon(&ch);
	perf_sampler_close(p->ps);
	p->ps = NULL;
	free(pfd);
	return err;
}

/* ---- from stacks to names -------------------------------------------------------------- */

static const char *comm_of(struct prof *p, const struct stk *s)
{
	struct tcomm *t = tcomm_slot(p, (int)s->tid, false);
	char path[96], *text;

	if (t && t->comm[0])
		return t->comm;
	if (s->tid == 0)
		return "swapper";
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", s->pid, s->tid);
	text = read_file(path, NULL);
	if (text) {
		tcomm_set(p, (int)s->tid, str_trim(text));
		free(text);
		t = tcomm_slot(p, (int)s->tid, false);
		if (t && t->comm[0])
			return t->comm;
	}
	if (s->proc && sym_proc_comm(s->proc)[0])
		return sym_proc_comm(s->proc);
	return "[unknown]";
}

/* Folded stacks separate frames with ';' and end with " COUNT": keep both
 * out of names. */
static void clean(char *s)
{
	for (; *s; s++)
		if (*s == ';' || *s == '\n' || *s == '\r')
			*s = ':';
}

/*
 * The C runtime's entry and thread start: below the program's own frames in
 * every stack.  Where frame pointers are missing, the walk may still reach
 * them (arm64 keeps a frame record chain through libc's start code) while
 * every frame of the program's own but the leaf is lost: such a stack is
 * one frame deep as far as the program goes.
 */
static bool startup_frame(const char *name)
{
	static const char *const names[] = {
		"_start", "__libc_start_main", "__libc_start_call_main",
		"__libc_start_main_impl", "libc_start_main_stage2", "start_thread",
		"clone", "clone3", "__clone", "__clone3", "thread_start",
	};
	size_t n = strcspn(name, "@");	/* "__libc_start_main@@GLIBC_2.34" */

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == n && !strncmp(name, names[i], n))
			return true;
	return false;
}

/* Name every frame of every distinct stack; the names, merged, go into the
 * flame tree.  Also the statistics the warnings read. */
/* --pprof: the location of a user frame, in its mapping (with the file's
 * build id, so that a profile store can find the file again). */
static uint64_t pp_user_loc(struct prof *p, struct sym_proc *proc, uint64_t addr,
			    const char *name, const struct sym_res *r)
{
	struct sym_mapping m;
	uint64_t map = 0;

	if (proc && sym_proc_mapping(proc, addr, &m) == 0)
		map = pprof_mapping(p->pp, m.start, m.end, m.pgoff,
				    m.dso ? m.dso->path : "[anon]",
				    m.dso ? sym_dso_build_id(p->sc, m.dso) : NULL);
	return pprof_location(p->pp, map, addr, name, r->dso ? r->dso->path : NULL);
}

static uint64_t pp_kernel_loc(struct prof *p, uint64_t addr, const char *name,
			      const struct sym_res *r)
{
	uint64_t map = pprof_mapping(p->pp, 0, 0, 0, "[kernel.kallsyms]", NULL);
	size_t len = strlen(name) - 4;	/* without "_[k]" */
	char fn[NAME_MAX_LEN];

	snprintf(fn, sizeof(fn), "%.*s", (int)len, name);
	return pprof_location(p->pp, map, addr, fn, r->module ? r->module : "[kernel.kallsyms]");
}

static int resolve(struct prof *p, uint64_t *kernel_frames)
{
	static char names[PROF_MAX_FRAMES * 2 + 1][NAME_MAX_LEN];
	static uint64_t locs[PROF_MAX_FRAMES * 2];
	const char *frames[PROF_MAX_FRAMES * 2 + 1];

	p->fl = flame_new();
	if (!p->fl)
		return -ENOMEM;
	/* pprof takes the first mapping for the program's: the command's
	 * lowest one, its executable. */
	if (p->pp && (p->target == PROF_CMD || p->target == PROF_PID)) {
		struct sym_proc *proc = sym_proc_find(p->sc, p->target == PROF_CMD ? p->child_pid :
						      p->pid, false);
		struct sym_mapping m;

		if (proc && sym_proc_mapping(proc, 0, &m) == 0 && m.dso)
			pprof_mapping(p->pp, m.start, m.end, m.pgoff, m.dso->path,
				      sym_dso_build_id(p->sc, m.dso));
	}
	for (size_t b = 0; b < p->nbuckets; b++) {
		for (struct stk *s = p->buckets[b]; s; s = s->next) {
			const uint64_t *kip = s->ips, *uip = s->ips + s->nk;
			struct sym_dso *leaf_dso = NULL;
			bool leaf_is_main = false;
			int n = 0, own = 0, err;

			snprintf(names[n], NAME_MAX_LEN, "%s", comm_of(p, s));
			clean(names[n]);
			frames[n] = names[n];
			n++;
			/* User frames, outermost first.  Below the leaf an address
			 * is a return address: the call is just before it. */
			for (int j = s->nu - 1; j >= 0; j--) {
				struct sym_res r;

				sym_resolve_user(p->sc, s->proc, j ? uip[j] - 1 : uip[j], &r);
				if (r.name)
					snprintf(names[n], NAME_MAX_LEN, "%s", r.name);
				else if (r.dso)
					snprintf(names[n], NAME_MAX_LEN, "[unknown] (in %s)",
						 r.dso->path);
				else
					snprintf(names[n], NAME_MAX_LEN, "[unknown] (in %s)",
						 r.anon ? "[anon]" : "[unmapped]");
				if (r.dso) {
					r.dso->frames += s->count;
					if (!r.name)
						r.dso->unresolved += s->count;
				}
				/* The program's own frames: in a mapping (not a
				 * garbage address), not the C runtime's start. */
				if (r.mapped && !(r.name && startup_frame(r.name)))
					own++;
				if (j == 0) {
					leaf_dso = r.dso;
					leaf_is_main = r.name && !strcmp(r.name, "main");
				}
				clean(names[n]);
				if (p->pp)
					locs[s->nk + j] = pp_user_loc(p, s->proc, j ? uip[j] - 1 : uip[j],
								      names[n], &r);
				frames[n] = names[n];
				n++;
			}
			if (leaf_dso && p->g && p->cg == UNWIND_FP && !leaf_is_main) {
				leaf_dso->leaf_samples += s->count;
				if (own <= 1)
					leaf_dso->one_frame_samples += s->count;
			}
			for (int j = s->nk - 1; j >= 0; j--) {
				struct sym_res r;

				sym_resolve_kernel(p->sc, j ? kip[j] - 1 : kip[j], &r);
				if (r.name)
					snprintf(names[n], NAME_MAX_LEN, "%s_[k]", r.name);
				else
					snprintf(names[n], NAME_MAX_LEN, "[unknown] (in [kernel])_[k]");
				clean(names[n]);
				if (p->pp)
					locs[j] = pp_kernel_loc(p, j ? kip[j] - 1 : kip[j], names[n], &r);
				frames[n] = names[n];
				n++;
			}
			*kernel_frames += s->nk ? s->count : 0;
			err = flame_add(p->fl, frames, n, s->count);
			if (!err && p->pp)
				err = pprof_sample(p->pp, locs, (size_t)s->nk + s->nu, s->count,
						   names[0]);
			if (err < 0)
				return err;
		}
	}
	/* One frame for them all: the total still holds every sample. */
	if (p->dropped) {
		frames[0] = DROPPED_FRAME;
		if (flame_add(p->fl, frames, 1, p->dropped) < 0)
			return -ENOMEM;
		if (p->pp) {
			locs[0] = pprof_location(p->pp, 0, 0, DROPPED_FRAME, NULL);
			if (pprof_sample(p->pp, locs, 1, p->dropped, DROPPED_FRAME) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* ---- the top report ------------------------------------------------------------------- */

struct chain {
	const char **f;		/* callers, nearest first */
	size_t n;
	uint64_t count;
};

struct tsym {
	const char *name;
	uint64_t self;
	struct chain *ch;
	size_t nch, cap;
};

struct top {
	struct tsym *v;
	size_t n, cap;
	size_t *tab;		/* name hash -> index + 1 */
	size_t tab_cap;
	bool skip_root;
};

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static struct tsym *top_sym(struct top *t, const char *name)
{
	size_t i;

	if ((t->n + 1) * 2 > t->tab_cap) {
		size_t cap = t->tab_cap ? t->tab_cap * 2 : 1024;
		size_t *tab = calloc(cap, sizeof(*tab));

		if (!tab)
			return NULL;
		for (size_t k = 0; k < t->n; k++) {
			for (i = str_hash(t->v[k].name) & (cap - 1); tab[i]; i = (i + 1) & (cap - 1))
				;
			tab[i] = k + 1;
		}
		free(t->tab);
		t->tab = tab;
		t->tab_cap = cap;
	}
	for (i = str_hash(name) & (t->tab_cap - 1); t->tab[i]; i = (i + 1) & (t->tab_cap - 1))
		if (!strcmp(t->v[t->tab[i] - 1].name, name))
			return &t->v[t->tab[i] - 1];
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct tsym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n] = (struct tsym){ .name = name };
	t->tab[i] = ++t->n;
	return &t->v[t->n - 1];
}

static int top_add(const char *const *path, size_t depth, uint64_t self, void *arg)
{
	struct top *t = arg;
	struct tsym *s = top_sym(t, path[depth - 1]);
	size_t first = t->skip_root ? 1 : 0, n = depth - 1 > first ? depth - 1 - first : 0;

	if (!s)
		return -ENOMEM;
	s->self += self;
	/* The callers, nearest first: merge with an identical chain (the same
	 * function under two comms). */
	for (size_t i = 0; i < s->nch; i++) {
		struct chain *c = &s->ch[i];
		bool same = c->n == n;

		for (size_t k = 0; same && k < n; k++)
			same = !strcmp(c->f[k], path[depth - 2 - k]);
		if (same) {
			c->count += self;
			return 0;
		}
	}
	if (s->nch == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4;
		struct chain *v = realloc(s->ch, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->ch = v;
		s->cap = cap;
	}
	s->ch[s->nch].f = calloc(n ? n : 1, sizeof(char *));
	if (!s->ch[s->nch].f)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		s->ch[s->nch].f[k] = path[depth - 2 - k];
	s->ch[s->nch].n = n;
	s->ch[s->nch].count = self;
	s->nch++;
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int chain_cmp(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

static void top_free(struct top *t)
{
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->v[i].nch; k++)
			free(t->v[i].ch[k].f);
		free(t->v[i].ch);
	}
	free(t->v);
	free(t->tab);
}

static bool kernel_name(const char *s, size_t *len)
{
	size_t n = strlen(s);
	bool k = n > 4 && !strcmp(s + n - 4, "_[k]");

	*len = k ? n - 4 : n;
	return k;
}

static int build_top(struct prof *p, struct top *t)
{
	int err;

	memset(t, 0, sizeof(*t));
	t->skip_root = p->skip_root;
	err = flame_walk(p->fl, top_add, t);
	if (err)
		return err;
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), sym_cmp);
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].nch > 1)
			qsort(t->v[i].ch, t->v[i].nch, sizeof(*t->v[i].ch), chain_cmp);
	return 0;
}

static void print_chains(FILE *o, const struct tsym *s, uint64_t total)
{
	const size_t max_chains = 8;
	size_t shown = 0, nonempty = 0;

	for (size_t i = 0; i < s->nch; i++)
		nonempty += s->ch[i].n > 0;
	if (!nonempty)
		return;
	fputs("            |\n", o);
	if (s->nch == 1) {
		for (size_t k = 0; k < s->ch[0].n; k++) {
			size_t len;

			kernel_name(s->ch[0].f[k], &len);
			fprintf(o, "            %s%.*s\n", k ? "   " : "---", (int)len, s->ch[0].f[k]);
		}
		fputc('\n', o);
		return;
	}
	for (size_t i = 0; i < s->nch && shown < max_chains; i++, shown++) {
		const struct chain *c = &s->ch[i];
		bool last = i + 1 == s->nch || shown + 1 == max_chains;
		char pct[32];
		int w;

		w = snprintf(pct, sizeof(pct), "%.2f%%", total ? 100.0 * c->count / total : 0);
		if (!c->n) {
			fprintf(o, "            %s--%s-- (no caller)\n", last ? " " : "|", pct);
		}
		for (size_t k = 0; k < c->n; k++) {
			size_t len;

			kernel_name(c->f[k], &len);
			if (!k)
				fprintf(o, "            %s--%s--%.*s\n", last ? " " : "|", pct,
					(int)len, c->f[k]);
			else
				fprintf(o, "            %s%*s%.*s\n", last ? " " : "|", w + 4, "",
					(int)len, c->f[k]);
		}
		if (!last)
			fputs("            |\n", o);
	}
	if (s->nch > shown) {
		uint64_t rest = 0;

		for (size_t i = shown; i < s->nch; i++)
			rest += s->ch[i].count;
		fprintf(o, "             (%zu more call chains, %.2f%%)\n", s->nch - shown,
			total ? 100.0 * rest / total : 0);
	}
	fputc('\n', o);
}

void prof_describe(const struct prof *p, char *buf, size_t len)
{
	uint64_t total = flame_total(p->fl);

	if (p->target == PROF_INPUT) {
		snprintf(buf, len, "%llu samples from folded stacks", (unsigned long long)total);
		return;
	}
	snprintf(buf, len, "%llu samples of %s at %u Hz on %d CPU%s in %.2f s, ",
		 (unsigned long long)p->samples, p->event, p->hz, p->ncpus, p->ncpus == 1 ? "" : "s",
		 p->t1 - p->t0);
	if (p->lost)
		snprintf(buf + strlen(buf), len - strlen(buf), "%llu LOST",
			 (unsigned long long)p->lost);
	else
		snprintf(buf + strlen(buf), len - strlen(buf), "none lost");
	if (p->user_only)
		snprintf(buf + strlen(buf), len - strlen(buf), "; user space only");
}

int prof_print_top(struct prof *p, FILE *o)
{
	struct top t;
	uint64_t total = flame_total(p->fl);
	char d[256];
	int err = build_top(p, &t);

	if (err) {
		top_free(&t);
		return err;
	}
	prof_describe(p, d, sizeof(d));
	fprintf(o, "# ftr profile: %s\n", d);
	fprintf(o, "# self share by symbol (no children); [k] kernel, [.] user space%s\n",
		p->g ? "; the callers under each, nearest first" : "");
	fputs("#\n", o);
	for (size_t i = 0; i < t.n; i++) {
		double share = total ? 100.0 * t.v[i].self / total : 0;
		size_t len;
		bool k = kernel_name(t.v[i].name, &len);

		if (share < p->percent_limit)
			continue;
		fprintf(o, "%9.2f%%  [%c] %.*s\n", share, k ? 'k' : '.', (int)len, t.v[i].name);
		if (p->g || p->target == PROF_INPUT)
			print_chains(o, &t.v[i], total);
	}
	if (!total)
		fputs("# no samples\n", o);
	top_free(&t);
	return 0;
}

struct jctx {
	FILE *o;
	bool first;
};

static int json_stack(const char *const *path, size_t depth, uint64_t self, void *arg)
{
	struct jctx *j = arg;

	fputs(j->first ? "{\"frames\":[" : ",{\"frames\":[", j->o);
	j->first = false;
	for (size_t i = 0; i < depth; i++) {
		if (i)
			fputc(',', j->o);
		json_str(j->o, path[i]);
	}
	fprintf(j->o, "],\"count\":%llu}", (unsigned long long)self);
	return 0;
}

int prof_print_json(struct prof *p, FILE *o, char **warnings, int nwarn)
{
	struct top t;
	struct jctx j = { .o = o, .first = true };
	uint64_t total = flame_total(p->fl);
	int err = build_top(p, &t);

	if (err) {
		top_free(&t);
		return err;
	}
	fputc('{', o);
	if (p->target != PROF_INPUT) {
		fputs("\"event\":", o);
		json_str(o, p->event);
		fprintf(o, ",\"frequency_hz\":%u,\"call_graph\":%s,\"unwind\":\"%s\",\"cpus\":%d,"
			"\"duration_s\":%.6f,\"lost\":%llu,\"throttled\":%llu,\"user_only\":%s,"
			"\"max_stacks\":%zu,\"dropped\":%llu,",
			p->hz, p->g ? "true" : "false",
			!p->g ? "none" : p->cg == UNWIND_FP ? "fp" : p->cg == UNWIND_DWARF ? "dwarf" :
			"auto", p->ncpus, p->t1 - p->t0,
			(unsigned long long)p->lost, (unsigned long long)p->throttles,
			p->user_only ? "true" : "false", p->max_stacks,
			(unsigned long long)p->dropped);
	}
	fprintf(o, "\"samples\":%llu,\"symbols\":[", (unsigned long long)total);
	for (size_t i = 0; i < t.n; i++) {
		size_t len;
		bool k = kernel_name(t.v[i].name, &len);
		char name[NAME_MAX_LEN];

		snprintf(name, sizeof(name), "%.*s", (int)len, t.v[i].name);
		fputs(i ? ",{\"name\":" : "{\"name\":", o);
		json_str(o, name);
		fprintf(o, ",\"kernel\":%s,\"self\":%llu,\"share_pct\":%.4f}", k ? "true" : "false",
			(unsigned long long)t.v[i].self, total ? 100.0 * t.v[i].self / total : 0);
	}
	fputs("],\"stacks\":[", o);
	flame_walk(p->fl, json_stack, &j);
	fputs("],\"warnings\":[", o);
	for (int i = 0; i < nwarn; i++) {
		if (i)
			fputc(',', o);
		json_str(o, warnings[i]);
	}
	fputs("]}\n", o);
	top_free(&t);
	return 0;
}

/* ---- the seed's warnings ------------------------------------------------------------ */

static void add_warning(char ***w, int *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_warning(char ***w, int *n, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, **v;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	v = realloc(*w, (*n + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return;
	}
	*w = v;
	v[(*n)++] = s;
}

#ifdef FTR_NO_DWARF
static void unwind_warnings(struct prof *p, char ***w, int *nw)
{
}
#else
/* Where CFI walks stopped early, for one reason: the place most of them
 * stopped at, named, and how many places there were. */
static void stop_where(struct prof *p, enum unwind_end why, char *buf, size_t len,
		       bool *jit_mapped)
{
	const struct stop *best = NULL;
	uint64_t best_n = 0;
	size_t places = 0;
	struct sym_res r;

	for (size_t i = 0; i < p->stop_cap; i++) {
		const struct stop *t = &p->stops[i];
		uint64_t n = 0;

		if (!t->used || t->why != why)
			continue;
		places++;
		/* Stops at one function but different addresses are one place. */
		sym_resolve_user(p->sc, t->proc, t->pc, &r);
		for (size_t k = 0; k < p->stop_cap; k++) {
			const struct stop *o = &p->stops[k];
			struct sym_res q;

			if (!o->used || o->why != why)
				continue;
			if (o->pc == t->pc && o->proc == t->proc) {
				n += o->count;
				continue;
			}
			sym_resolve_user(p->sc, o->proc, o->pc, &q);
			if (r.name && q.name && q.dso == r.dso && !strcmp(q.name, r.name))
				n += o->count;
		}
		if (n > best_n) {
			best_n = n;
			best = t;
		}
	}
	if (!best) {
		snprintf(buf, len, "places not kept");
		return;
	}
	*jit_mapped = sym_proc_has_jit_map(best->proc);
	sym_resolve_user(p->sc, best->proc, best->pc, &r);
	snprintf(buf, len, "%llu at %s%s%s (pid %d, 0x%llx)%s", (unsigned long long)best_n,
		 r.name ? r.name : "[unknown]", r.dso ? " in " : "", r.dso ? r.dso->path : "",
		 sym_proc_pid(best->proc), (unsigned long long)best->pc,
		 places > 1 ? ", and elsewhere" : "");
}

/* Honest call chains: where CFI walks stopped before the outermost frame,
 * counted by reason and located. */
static void unwind_warnings(struct prof *p, char ***w, int *nw)
{
	for (int e = 0; e < UNWIND_END_N; e++) {
		uint64_t n = p->stopped[e];
		double pct = p->unwound ? 100.0 * n / p->unwound : 0;
		char where[PATH_MAX + 200];
		const char *fix;
		bool jit_mapped = false;

		if (e == UNWIND_END_OK || e == UNWIND_END_MAX || e == UNWIND_END_NOREGS || !n)
			continue;
		/* A stray sample at a process's start or end is no news. */
		if ((n * 100 < p->unwound || n < 10) && !ftr_verbose)
			continue;
		stop_where(p, (enum unwind_end)e, where, sizeof(where), &jit_mapped);
		switch (e) {
		case UNWIND_END_STACK:
			fix = p->stack_size < UNWIND_STACK_MAX ?
			      ": a bigger copy (--call-graph dwarf,SIZE, up to 65528) reaches further" :
			      "";
			break;
		case UNWIND_END_NOCFI:
			fix = ": that code has neither call-frame information (.eh_frame) nor a "
			      "frame pointer, so its callers are lost";
			break;
		case UNWIND_END_JIT:
			fix = jit_mapped ? ": JIT code has no CFI (its perf map names it); "
			      "frame pointers in the runtime would give its callers" :
			      ": JIT code without a perf map (/tmp/perf-PID.map): no names, no "
			      "CFI; its runtime can write one, and keep frame pointers";
			break;
		default:
			fix = "";
			break;
		}
		if (e == UNWIND_END_STACK)
			add_warning(w, nw, "%llu of %llu user stacks (%.1f%%) end early, at the end "
				    "of the %u-byte stack copy: %s%s", (unsigned long long)n,
				    (unsigned long long)p->unwound, pct, p->stack_size, where, fix);
		else
			add_warning(w, nw, "%llu of %llu user stacks (%.1f%%) end early, at %s: "
				    "%s%s", (unsigned long long)n, (unsigned long long)p->unwound,
				    pct, unwind_end_str((enum unwind_end)e), where, fix);
	}
}

#endif

/* Stripped, and it matters: a fifth of its frames, and a hundredth of all
 * samples, have no name. */
static bool stripped_matters(const struct sym_dso *d, uint64_t total)
{
	return d->stripped && d->unresolved && d->unresolved * 5 >= d->frames &&
	       d->unresolved * 100 >= total;
}

static void warnings(struct prof *p, uint64_t kernel_samples, char ***w, int *nw)
{
	uint64_t total = flame_total(p->fl);
	const char *kwhy = NULL, **paths;
	char (*pkgs)[128];
	size_t nd, nown = 0;

	if (p->uw)
		unwind_warnings(p, w, nw);

	if (p->lost)
		add_warning(w, nw, "%llu samples LOST in %llu gaps (the ring was full): a bigger "
			    "-m, or a lower -F, keeps up", (unsigned long long)p->lost,
			    (unsigned long long)p->lost_records);
	if (p->dropped)
		add_warning(w, nw, "%llu samples of stacks past the first %zu distinct ones are "
			    "counted as " DROPPED_FRAME " (--max-stacks raises the limit)",
			    (unsigned long long)p->dropped, p->max_stacks);
	if (p->throttles) {
		char *max = read_file("/proc/sys/kernel/perf_event_max_sample_rate", NULL);

		add_warning(w, nw, "the kernel throttled sampling %llu times "
			    "(kernel.perf_event_max_sample_rate=%s): a lower -F gives even samples",
			    (unsigned long long)p->throttles, max ? str_trim(max) : "?");
		free(max);
	}
	if (p->user_only)
		add_warning(w, nw, "user space only: %s", p->why_user_only);
	if (kernel_samples && !sym_kernel(p->sc, &kwhy))
		add_warning(w, nw, "kernel frames have no names: %s", kwhy);
	/* The packages of the stripped files that matter, in one pass over
	 * dpkg's lists. */
	nd = sym_dso_count(p->sc);
	paths = calloc(nd ? nd : 1, sizeof(*paths));
	pkgs = calloc(nd ? nd : 1, sizeof(*pkgs));
	for (size_t i = 0; paths && pkgs && i < nd; i++) {
		struct sym_dso *d = sym_dso_get(p->sc, i);

		if (stripped_matters(d, total) && str_has_prefix(d->path, "/usr/"))
			paths[nown++] = d->path;
	}
	if (nown)
		sym_dpkg_owners(NULL, paths, (int)nown, pkgs);
	for (size_t i = 0, k = 0; i < nd; i++) {
		struct sym_dso *d = sym_dso_get(p->sc, i);
		const char *pkg = "";

		if (k < nown && paths[k] == d->path)
			pkg = pkgs[k++];
		if (!d->frames && !d->leaf_samples)
			continue;
		/* The seed's advice: one frame deep means no frame pointers. */
		if (d->leaf_samples >= 10 && d->one_frame_samples * 10 >= d->leaf_samples * 8) {
			/* A library's leaf (a syscall wrapper) keeps its caller's
			 * frame pointer: the walk stops in whichever of the two
			 * has none. */
			bool lib = strstr(d->path, ".so") != NULL;

			add_warning(w, nw, "%.0f%% of the samples in '%s' have a one-frame user "
				    "stack: %s built without frame pointers, so the callers are "
				    "lost. Rebuild with -fno-omit-frame-pointer (or use a "
				    "distribution built with frame pointers)",
				    100.0 * d->one_frame_samples / d->leaf_samples, d->path,
				    lib ? "it, or the program calling it, was" : "it was");
		}
		if (stripped_matters(d, total)) {
			bool owned = pkg[0];

			if (owned)
				add_warning(w, nw, "'%s' is stripped: %.0f%% of its frames have no "
					    "name. Its symbols are in %s-dbgsym (Debian's debug "
					    "archive), or come with debuginfod", d->path,
					    100.0 * d->unresolved / d->frames, pkg);
			else if (str_has_prefix(d->path, "/usr/") || str_has_prefix(d->path, "/lib"))
				add_warning(w, nw, "'%s' is stripped: %.0f%% of its frames have no "
					    "name. Install the matching -dbgsym (Debian, Ubuntu) or "
					    "-debuginfo (RHEL, Fedora) package", d->path,
					    100.0 * d->unresolved / d->frames);
			else
				add_warning(w, nw, "'%s' is stripped: %.0f%% of its frames have no "
					    "name. Profile a build that keeps its symbols (no -s, no "
					    "strip), or keep its debug file", d->path,
					    100.0 * d->unresolved / d->frames);
		} else if (!d->stripped && !d->special && d->loaded && d->why[0] &&
			   d->unresolved * 100 >= total) {
			add_warning(w, nw, "no symbols for '%s': %s", d->path, d->why);
		}
		if (d->replaced && d->frames * 100 >= total)
			add_warning(w, nw, "'%s' was replaced after it was mapped: its names may be "
				    "wrong", d->path);
	}
	free(paths);
	free(pkgs);
}

/* ---- gathering ------------------------------------------------------------------------ */

static bool pmu_cycles(void)
{
	return perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true) == 0;
}

int prof_gather(struct prof *p, const char *input, bool pprof, struct sigwatch *sw,
		char ***warn, int *nwarn)
{
	uint64_t kernel_samples = 0;
	int err;

	if (p->target == PROF_INPUT) {
		FILE *in = strcmp(input, "-") ? fopen(input, "re") : stdin;
		size_t line = 0;

		if (!in) {
			ftr_err("cannot read '%s': %s", input, strerror(errno));
			return -1;
		}
		p->fl = flame_new();
		err = p->fl ? flame_read_folded(p->fl, in, &line) : -ENOMEM;
		if (in != stdin)
			fclose(in);
		if (err == -EINVAL) {
			ftr_err("'%s' line %zu: not a folded stack ('frame;frame;... COUNT')",
				input, line);
			return -1;
		}
		if (err == -EOVERFLOW) {
			ftr_err("'%s' line %zu: the counts add up to more than 2^64 - 1",
				input, line);
			return -1;
		}
		if (err < 0) {
			ftr_err("cannot read '%s': %s", input, strerror(-err));
			return -1;
		}
		snprintf(p->title, sizeof(p->title), "Flame Graph: %s", input);
	} else {
		if (!p->event)
			p->event = pmu_cycles() ? "cycles" : "cpu-clock";
		p->ev_type = strcmp(p->event, "cycles") ? PERF_TYPE_SOFTWARE : PERF_TYPE_HARDWARE;
		p->ev_config = strcmp(p->event, "cycles") ? PERF_COUNT_SW_CPU_CLOCK :
			       PERF_COUNT_HW_CPU_CYCLES;
		p->sc = sym_ctx_new();
		if (!p->sc)
			return -1;
		p->skip_root = true;
		if (p->debuginfod) {
			const char *urls = getenv("DEBUGINFOD_URLS");

			err = sym_ctx_debuginfod(p->sc);
			if (err < 0) {
				ftr_err(err == -ENOTSUP ? "--debuginfod: not in this static build "
					"(it has no libdebuginfod); use the dynamic build" :
					"--debuginfod: cannot load libdebuginfod.so.1 (Debian: "
					"libdebuginfod1)");
				return -1;
			}
			if (!urls || !*urls) {
				ftr_err("--debuginfod: DEBUGINFOD_URLS is not set (the servers to "
					"ask, e.g. https://debuginfod.debian.net)");
				return -1;
			}
		}
		if (p->g && p->cg != UNWIND_FP) {
			err = unwind_new(p->sc, &p->uw);
			if (err == -ENOTSUP && p->cg == UNWIND_AUTO) {
				p->cg = UNWIND_FP;	/* the static build: what it has */
			} else if (err < 0) {
				ftr_err(err == -ENOTSUP && !unwind_built() ?
					"--call-graph dwarf: not in this static build (it has no "
					"libdw, for size); use the dynamic build, or --call-graph fp" :
					"--call-graph dwarf: %s", strerror(-err));
				return -1;
			} else {
				p->regs_mask = unwind_regs_mask();
				/* libdw keeps each file it unwinds through open, once
				 * per address space: many with -a. */
				raise_nofile();
				if (!p->stack_size)
					p->stack_size = UNWIND_STACK_DEFAULT;
				long psz = sysconf(_SC_PAGESIZE);
				unsigned need = 1;

				/* 8 KB a sample: the default ring holds 64 of them.  A
				 * record bigger than the ring is dropped without a
				 * trace (not even counted lost): some must fit. */
				if (!p->pages_given)
					p->pages = 1024;
				while ((size_t)need * psz < 4 * ((size_t)p->stack_size + 1024))
					need *= 2;
				if (p->pages < need) {
					ftr_warn("-m %u: too small a ring for %u-byte stack copies; "
						 "%u pages", p->pages, p->stack_size, need);
					p->pages = need;
				}
			}
		}
		err = sigwatch_open(sw, true);
		if (err < 0) {
			ftr_err("cannot set up signal handling: %s", strerror(-err));
			return -1;
		}
		err = run(p, sw);
		sigwatch_close(sw);
		if (err < 0)
			return -1;
		if (pprof && !(p->pp = pprof_new((int64_t)(1e9 / p->hz)))) {
			ftr_err(errno == ENOTSUP ? "--pprof: not in this build (FTR_NO_PPROF)" :
				"cannot build the pprof profile: %s", strerror(errno));
			return -1;
		}
		err = resolve(p, &kernel_samples);
		if (err < 0) {
			ftr_err("cannot name the stacks: %s", strerror(-err));
			return -1;
		}
		if (p->target == PROF_CMD)
			snprintf(p->title, sizeof(p->title), "Flame Graph: %s", p->cmdv[0]);
		else if (p->target == PROF_PID)
			snprintf(p->title, sizeof(p->title), "Flame Graph: pid %d", p->pid);
		else
			snprintf(p->title, sizeof(p->title), "Flame Graph: all CPUs");
		warnings(p, kernel_samples, warn, nwarn);
		if (p->status_note[0])
			ftr_warn("%s", p->status_note);
	}

	return 0;
}

void prof_init(struct prof *p)
{
	memset(p, 0, sizeof(*p));
	p->hz = 999;
	p->pages = 128;
	p->percent_limit = 0.1;
	p->max_stacks = PROF_DEFAULT_MAX_STACKS;
}

void prof_free(struct prof *p)
{
	flame_free(p->fl);
	pprof_free(p->pp);
	sym_ctx_free(p->sc);
	free(p->buckets);
	for (struct chunk *ch = p->arena, *next; ch; ch = next) {
		next = ch->next;
		free(ch);
	}
	free(p->comms);
	free(p->stops);
	unwind_free(p->uw);
}
