// SPDX-License-Identifier: GPL-2.0-or-later
/* The sampler of profile:hz:N, software: and hardware: clauses, and the frames
 * of the stacks it takes (see sampler.h; its functions keep their lprof_
 * prefix, "the language's profiler"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ftr.h"
#include "lang/maps/agg.h"
#include "lang/run/sampler.h"
#include "perf/perf.h"
#include "perf/unwind.h"
#include "report/dwline.h"
#include "report/sym.h"

struct lprof {
	struct lprof_opts o;
	struct perf_sampler *ps;
	struct sym_ctx *sc;
	uint64_t sample_type;
	uint64_t samples, lost;
	lprof_fn fn;
	void *arg;
	void (*comm_fn)(int tid, const char *comm, void *arg);
	void *comm_arg;
	struct sym_proc *cur;		/* lprof_frame: the process of a ustack */
	bool lines;			/* lprof_set_lines */
	/* frame_lines' answers: a map's stacks share their frames, and
	 * reading DWARF takes up to a few hundred microseconds a frame */
	struct line_memo {
		const void *dso;
		uint64_t va, off;
		unsigned how;
		char *text;
	} memo[256];
	uint32_t leaf;			/* lprof_frame: the index of the innermost frame */
	uint64_t k[LPROF_MAX_FRAMES], u[LPROF_MAX_FRAMES];
	/* ustack by CFI (the dynamic build), as profile --call-graph auto */
	struct unwinder *uw;
	uint64_t regs_mask;
	uint64_t dw[LPROF_MAX_FRAMES], spliced[LPROF_MAX_FRAMES];
};

int lprof_open(const struct lprof_opts *o, struct lprof **out)
{
	struct lprof *p = calloc(1, sizeof(*p));
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_sampler_cfg cfg = {
		.cpus = o->cpus,
		.ncpus = o->ncpus,
		/* A call chain is up to a kilobyte: a ring of 32 pages holds
		 * more than the 100 ms between two reads at 999 Hz. */
		.pages = o->kstack || o->ustack || o->period ? 32 : 8,
		.all_tasks = o->pid <= 0,
	};
	struct perf_open_failure f = { -1, -1 };
	int *tids = NULL, ntid = 0, err;

	if (!p)
		return -ENOMEM;
	p->o = *o;
	p->sc = sym_ctx_new();
	if (!p->sc) {
		free(p);
		return -ENOMEM;
	}
	if (!o->period)
		perf_clamp_rate(&p->o.hz);
	p->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 (o->kstack || o->ustack ? PERF_SAMPLE_CALLCHAIN : 0);
	/* ustack: the frame-pointer chain, corrected and completed by CFI
	 * where this build has the unwinder (the static one does not). */
	if (o->ustack && unwind_new(p->sc, &p->uw) == 0) {
		p->regs_mask = unwind_regs_mask();
		p->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		/* 8 KB a sample, read every 100 ms or so at up to 999 Hz. */
		cfg.pages = 512;
	}
	cfg.attr = (struct perf_event_attr){
		.size = sizeof(struct perf_event_attr),
		.type = o->period ? o->type : PERF_TYPE_SOFTWARE,
		.config = o->period ? o->config : PERF_COUNT_SW_CPU_CLOCK,
		.freq = !o->period,
		.sample_type = p->sample_type,
		/* nsecs must agree with the events' timestamps, which the
		 * instance takes from the mono trace clock. */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		/* comm for the names of threads that are gone by the time a
		 * map prints; mappings and forks only to name user frames. */
		.comm = 1,
		.comm_exec = 1,
		.mmap = o->ustack, .mmap2 = o->ustack, .task = o->ustack,
		.exclude_callchain_user = !o->ustack,
		.exclude_callchain_kernel = !o->kstack,
		.sample_id_all = 1,
		.inherit = o->pid > 0,
		.enable_on_exec = o->cmd,
		.exclude_hv = 1,
		/* sample_freq (profile:hz) and sample_period (software:,
		 * hardware: every period-th event, exactly) are a union. */
		.sample_period = o->period ? o->period : p->o.hz,
		.watermark = 1,
		.wakeup_watermark = (uint32_t)((size_t)cfg.pages * psz / 2),
		.sample_regs_user = p->regs_mask,
		.sample_stack_user = p->uw ? UNWIND_STACK_DEFAULT : 0,
	};
	if (o->pid > 0 && o->cmd) {
		cfg.tids = &p->o.pid;
		cfg.ntids = 1;
	} else if (o->pid > 0) {
		raise_nofile();
		err = proc_threads(o->pid, &tids, &ntid);
		if (err < 0) {
			ftr_err("profile: no process with pid %d", o->pid);
			goto fail;
		}
		cfg.tids = tids;
		cfg.ntids = ntid;
	}
	err = perf_sampler_open(&cfg, &p->ps, &f);
	free(tids);
	if (err < 0) {
		char why[512];

		perf_explain(err, o->pid > 0 ? PERF_SCOPE_KERNEL : PERF_SCOPE_CPU, perf_paranoid(),
			     perf_privileged(), why, sizeof(why));
		if (o->period && o->type == PERF_TYPE_HARDWARE &&
		    (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
			ftr_err("%s: this machine has no hardware counter for it (no PMU that "
				"perf can use here, e.g. a VM without a virtual PMU): %s", o->name,
				strerror(-err));
		else if (o->period)
			ftr_err("%s: cannot sample it on cpu %d: %s", o->name, f.cpu, why);
		else
			ftr_err("profile:hz:%u: cannot sample cpu-clock on cpu %d: %s", p->o.hz,
				f.cpu, why);
		goto fail;
	}
	*out = p;
	return 0;
fail:
	unwind_free(p->uw);
	sym_ctx_free(p->sc);
	free(p);
	return err;
}

int lprof_names(struct lprof **out)
{
	struct lprof *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->sc = sym_ctx_new();
	if (!p->sc) {
		free(p);
		return -ENOMEM;
	}
	p->o.kstack = true;
	*out = p;
	return 0;
}

void lprof_set_comm_fn(struct lprof *p, void (*fn)(int, const char *, void *), void *arg)
{
	p->comm_fn = fn;
	p->comm_arg = arg;
}

int lprof_start(struct lprof *p)
{
	/* A command is enabled by its exec (enable_on_exec): not one sample
	 * of ftr's own fork path. */
	return !p->ps || p->o.cmd ? 0 : perf_sampler_enable(p->ps);
}

int lprof_stop(struct lprof *p)
{
	return p->ps ? perf_sampler_disable(p->ps) : 0;
}

/* The user stack of a sample by CFI, continued by the FP chain in p->u:
 * into p->u, the new count returned. */
static int unwind_ustack(struct lprof *p, const struct perf_sample *ps, int nu)
{
	struct sym_proc *proc = sym_proc_find(p->sc, (int)ps->pid, true);
	struct unwind_result r;
	int n;

	if (!proc)
		return nu;
	/* A process that ran before: its mappings now, once. */
	if (sym_proc_needs_maps(proc))
		sym_proc_read_maps(p->sc, proc);
	if (unwind_sample(p->uw, proc, ps, p->dw, LPROF_MAX_FRAMES, &r) < 0)
		return nu;
	n = unwind_splice(p->dw, &r, p->u, nu, p->spliced, LPROF_MAX_FRAMES);
	memcpy(p->u, p->spliced, (size_t)n * sizeof(*p->u));
	return n;
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct lprof *p = arg;
	struct perf_sample ps;
	struct lprof_sample s;
	char comm[16];
	int tid;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (perf_sample_parse_regs(h, p->sample_type, p->regs_mask, &ps) < 0)
			return 0;
		p->samples++;
		s = (struct lprof_sample){ .pid = ps.pid, .tid = ps.tid, .cpu = ps.cpu,
					   .time = ps.time, .k = p->k, .u = p->u };
		perf_sample_split(&ps, p->k, &s.nk, p->u, &s.nu, LPROF_MAX_FRAMES);
		if (p->uw && ps.pid > 0 && ps.regs_abi)
			s.nu = unwind_ustack(p, &ps, s.nu);
		/* Its maps are read from /proc while it still runs (in
		 * lprof_drain, outside this path). */
		if (s.nu && ps.pid > 0)
			sym_proc_find(p->sc, (int)ps.pid, true);
		return p->fn(&s, p->arg);
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16)
			p->lost += ((const uint64_t *)(h + 1))[1];
		return 0;
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
		sym_perf_side(p->sc, h, &tid, comm);
		if (tid > 0 && p->comm_fn)
			p->comm_fn(tid, comm, p->comm_arg);
		return 0;
	default:
		return 0;
	}
}

int lprof_drain(struct lprof *p, lprof_fn fn, void *arg)
{
	int r;

	if (!p->ps)
		return 0;
	p->fn = fn;
	p->arg = arg;
	r = perf_sampler_read_ordered(p->ps, on_record, p);
	if (p->o.ustack) {
		sym_read_pending(p->sc);
		sym_pin_new(p->sc);
	}
	return r < 0 ? r : 0;
}

uint64_t lprof_samples(const struct lprof *p)
{
	return p->samples;
}

uint64_t lprof_lost(const struct lprof *p)
{
	return p->lost;
}

unsigned lprof_hz(const struct lprof *p)
{
	return p->o.hz;
}

static bool tracing_frame(const char *name)
{
	static const char *const pfx[] = {
		"trace_event_raw_event_", "__traceiter_", "perf_trace_", "trace_event_buffer_",
		"__ftrace_trace_stack", "ftrace_trace_stack", "__trace_stack",
		"trace_buffer_unlock_commit", "__buffer_unlock_commit", "kprobe_dispatcher",
		"kprobe_trace_func", "kretprobe_dispatcher", "__kretprobe_trampoline_handler",
		"ftrace_syscall_enter", "ftrace_syscall_exit", "perf_syscall_enter",
		"perf_syscall_exit",
		/* The syscall tracepoints' callers: a hist trigger's stack key
		 * skips them too, and both paths must give one answer. */
		"syscall_trace_enter", "syscall_trace_exit", "syscall_exit_work",
		"syscall_slow_exit_work",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pfx); i++)
		if (!strncmp(name, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

void lprof_note_pid(struct lprof *p, int pid)
{
	struct sym_proc *sp = p && pid > 0 ? sym_proc_find(p->sc, pid, true) : NULL;

	if (sp && sym_proc_needs_maps(sp))
		sym_proc_read_maps(p->sc, sp);
}

void lprof_note_file(struct lprof *p, int pid, const char *path, uint64_t off, uint64_t ip)
{
	struct sym_proc *sp = p && pid > 0 && ip ? sym_proc_find(p->sc, pid, true) : NULL;

	if (sp)
		sym_proc_map_file(p->sc, sp, path, off, ip);
}

/* Does the kernel name this address?  (32-bit kernels: see below.) */
static bool kernel_named(struct lprof *p, uint64_t addr)
{
	struct sym_res r;

	sym_resolve_kernel(p->sc, addr, &r);
	return r.name != NULL;
}

/* ustack(build_id): a frame in a file as the file's build id (20 bytes in
 * hex, a shorter one padded with zeros, as the kernel's struct
 * bpf_stack_build_id holds it) and the address's file offset, as bpftrace
 * prints BPF's build-id stacks; < 0 where there is no such file. */
static int build_id_frame(struct lprof *p, uint64_t addr, char *buf, size_t len)
{
	struct sym_mapping m;
	const char *id;
	size_t n;

	if (!p->cur || sym_proc_mapping(p->cur, addr, &m) < 0 || !m.dso ||
	    !(id = sym_dso_build_id(p->sc, m.dso)))
		return -1;
	n = strlen(id);
	snprintf(buf, len, "%s%.*s 0x%02llx", id, n < 40 ? (int)(40 - n) : 0,
		 "0000000000000000000000000000000000000000",
		 (unsigned long long)(addr - m.start + m.pgoff));
	return 0;
}

void lprof_set_lines(struct lprof *p, bool on)
{
	if (p)
		p->lines = on;
}

/* A user frame with its source lines (lprof_set_lines) into buf, one
 * printed line each: the functions inlined at the address, innermost
 * first, then the frame's own symbol+off (perf's mode: no file:line, as
 * bpftrace prints it there).  false: no line information for it. */
static bool frame_lines(struct lprof *p, const struct sym_res *r, uint64_t off, unsigned how,
			char *buf, size_t len)
{
	struct line_memo *m = &p->memo[(r->va ^ r->va >> 8 ^ (uintptr_t)r->dso >> 4) % 256];
	struct dwline_frame f[DWLINE_MAX_FRAMES];
	size_t at = 0;
	int n;

	how &= AGG_SYM_PERF;
	if (m->text && m->dso == r->dso && m->va == r->va && m->off == off && m->how == how) {
		snprintf(buf, len, "%s", m->text);
		return m->text[0];
	}
	n = sym_lines(r, f, DWLINE_MAX_FRAMES);
	for (int i = 0; i < n && at < len; i++) {
		bool inl = i < n - 1;
		const char *name = !inl ? r->name : f[i].name ? f[i].name : "??";
		char where[sizeof(f[0].file) + 16] = "";
		int w;

		if (!how && f[i].file[0])
			snprintf(where, sizeof(where), "@%s:%u", f[i].file, f[i].line);
		if (inl)
			w = snprintf(buf + at, len - at, how ? "%s (inlined)%s\n" : "[inlined] %s%s\n",
				     name, where);
		else
			w = snprintf(buf + at, len - at, how ? "%s+%llu (%s)" : "%s+%llu%s", name,
				     (unsigned long long)off, how ? r->dso->path : where);
		at += w > 0 ? (size_t)w : 0;
	}
	free(m->text);
	*m = (struct line_memo){ r->dso, r->va, off, how, strdup(n > 0 ? buf : "") };
	return n > 0;
}

int lprof_frame(uint64_t addr, uint32_t idx, unsigned how, char *buf, size_t len, void *arg)
{
	struct lprof *p = arg;
	struct sym_res r;
	bool user;
	int ret;

	if (idx == 0)
		p->leaf = 0;
	if ((addr & LPROF_TAG_MASK) == LPROF_UTAG) {
		p->cur = sym_proc_find(p->sc, (int)(uint32_t)addr, false);
		p->leaf = idx + 1;
		return 1;
	}
	if (how & AGG_SYM_MARK)
		return -1;
	/* Above the leaf an address is a return address: the call is the
	 * instruction before it, and a call that ends a function returns to
	 * the start of the next one.  Name the call; print the offset of the
	 * return address, as bpftrace does. */
	ret = idx != p->leaf;
	/* The top half of the address space is the kernel's on x86-64 and
	 * arm64 alike.  A 32-bit kernel's begins at PAGE_OFFSET (0xc0000000
	 * with the usual 3G/1G split, ARM's modules just below it), close
	 * above user stacks (0xbe...): there a frame is the kernel's when the
	 * kernel's symbols name it (none lies below the first of them). */
	user = !(sizeof(void *) == 8 ? addr >> 63 : kernel_named(p, addr - ret));
	if (how & AGG_SYM_BUILD_ID)
		return user ? build_id_frame(p, addr, buf, len) : -1;
	if (!user) {
		sym_resolve_kernel(p->sc, addr - ret, &r);
		if (!r.name)
			return -1;
	} else {
		if (!p->cur)
			goto unknown;
		sym_resolve_user(p->sc, p->cur, addr - ret, &r);
		if (!r.name && r.dso && !(how & AGG_SYM_PERF)) {
			snprintf(buf, len, "[unknown] (in %s)", r.dso->path);
			return 0;
		}
		if (!r.name)
			goto unknown;
	}
	if (user && p->lines && (how & AGG_SYM_LINES) &&
	    frame_lines(p, &r, r.off + ret, how, buf, len))
		return 0;
	snprintf(buf, len, "%s+%llu", r.name, (unsigned long long)(r.off + ret));
	/* perf's: the file, as bpftrace prints it (the kernel's frames
	 * without one, as bpftrace 0.17 prints them) */
	if (user && (how & AGG_SYM_PERF))
		snprintf(buf + strlen(buf), len - strlen(buf), " (%s)", r.dso->path);
	return 0;
unknown:
	if (!(how & AGG_SYM_PERF))
		return -1;
	snprintf(buf, len, "0x%llx ([unknown])", (unsigned long long)addr);
	return 0;
}

int lprof_skip_tracing(struct lprof *p, const uint64_t *ips, int n)
{
	int i = 0;

	for (; i < n; i++) {
		struct sym_res r;

		sym_resolve_kernel(p->sc, ips[i], &r);
		if (!r.name || !tracing_frame(r.name))
			break;
	}
	return i;
}

int lprof_kaddr(struct lprof *p, const char *frame, uint64_t *addr)
{
	struct ksyms *k = (struct ksyms *)sym_kernel(p->sc, NULL);
	char name[256], mod[64] = "";
	unsigned long long off = 0;
	const char *plus, *br;
	uint64_t a;

	if (!k)
		return -ENOENT;
	/* "func+0x4f8/0x9e0", "func+0x10/0x20 [mod]", "func" */
	plus = strchr(frame, '+');
	snprintf(name, sizeof(name), "%.*s", (int)(plus ? plus - frame : (long)strcspn(frame, " ")),
		 frame);
	if (plus)
		off = strtoull(plus + 1, NULL, 16);
	br = strchr(frame, '[');
	if (br)
		snprintf(mod, sizeof(mod), "%.*s", (int)strcspn(br + 1, "]"), br + 1);
	if (ksyms_addr(k, name, mod[0] ? mod : NULL, &a) < 0)
		return -ENOENT;
	*addr = a + off;
	return 0;
}

/* An interrupt's entry from the interrupted context: x86-64's IDT stubs
 * (asm_sysvec_apic_timer_interrupt...), arm64's vectors (el1h_64_irq; the
 * C handler el1h_64_irq_handler is above it). */
static bool irq_entry(const char *name)
{
	static const char *const names[] = { "el1h_64_irq", "el0t_64_irq", "el0t_32_irq",
					     "el1h_64_fiq", "el0t_64_fiq" };

	if (str_has_prefix(name, "asm_sysvec_") || !strcmp(name, "asm_common_interrupt"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

int lprof_skip_irq(struct lprof *p, const uint64_t *ips, int n)
{
	for (int i = 0; i < n; i++) {
		struct sym_res r;

		sym_resolve_kernel(p->sc, ips[i], &r);
		if (r.name && irq_entry(r.name))
			return i + 1;
	}
	return 0;
}

const char *lprof_kernel_note(struct lprof *p)
{
	const char *why = NULL;

	return p->o.kstack && !sym_kernel(p->sc, &why) ? why : NULL;
}

void lprof_close(struct lprof *p)
{
	if (!p)
		return;
	if (p->ps)
		perf_sampler_close(p->ps);
	unwind_free(p->uw);
	sym_ctx_free(p->sc);
	for (size_t i = 0; i < ARRAY_SIZE(p->memo); i++)
		free(p->memo[i].text);
	free(p);
}
