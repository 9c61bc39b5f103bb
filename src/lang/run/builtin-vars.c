// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Builtin variables: the table builtin_vars[] (near the end of this file),
 * one row each by enum builtin (lang.h): name, value type, clauses,
 * checker, evaluator, with the checkers and evaluators above it.  The
 * parser finds them by name (lang_builtin()); the semantic pass and
 * eval() reach them by check_var() and eval_var().  Adding one: its B_
 * name in lang.h, its row and eval here, its row in ftr-language(7)'s
 * variable table (test-builtins checks it); bpftrace's names ftr refuses
 * are in lang_builtin_refused().  The builtin functions are builtins.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/comm.h"
#include "kernel/kallsyms.h"
#include "lang/interp-int.h"

/* A bare kstack or ustack prints in the program's mode (stack_mode). */
static int stack_var_mode(struct sema *s, struct node *n)
{
	int mode;

	if (n->k != N_BUILTIN || n->op)
		return 0;	/* kstack(perf): its own */
	mode = stack_default_mode(s, n, n->ival == B_KSTACK);
	if (mode < 0)
		return mode;
	n->op = (enum tok)mode;
	return 0;
}

static int check_kstack_var(struct sema *s, struct node *n)
{
	/* Uprobes, and BEGIN and END (bpftrace runs them in its own process,
	 * in a uprobe): the registers are user space's, and the kernel gives
	 * bpftrace no kernel frames there; ftr none either. */
	if (s->is_begin_end || (s->is_uprobe && !s->is_profile))
		return stack_var_mode(s, n);
	if (!s->is_profile && !s->has_record) {
		lang_errf(s->err, n, "kstack exists in profile, tracepoint, kprobe, uprobe, BEGIN "
			  "and END clauses");
		return -EINVAL;
	}
	if (stack_var_mode(s, n))
		return -EINVAL;
	/* At an event: the instance's stacktrace option, which
	 * setup() turns on for the events still read after the
	 * plan (a hist trigger takes its own stacks). */
	for (int i = 0; i < s->nev; i++)
		s->evs[i]->want_kstack = true;
	s->in->prof_k = true;
	return 0;
}

static int check_ustack_var(struct sema *s, struct node *n)
{
	/* BEGIN and END: bpftrace's user stack there is its own process's, an
	 * artefact of how it runs them; ftr's is empty (no traced task). */
	if (s->is_begin_end)
		return stack_var_mode(s, n);
	if (!s->is_profile && !s->has_record) {
		lang_errf(s->err, n, "ustack exists in profile, tracepoint, kprobe, uprobe, BEGIN "
			  "and END clauses");
		return -EINVAL;
	}
	if (stack_var_mode(s, n))
		return -EINVAL;
	/* At an event: the instance's userstacktrace option (8
	 * frames, by frame pointers), or the uprobe's own
	 * fetches of the frame records where the kernel writes
	 * no user stacks (arch.h); its frames are named as
	 * profile's are. */
	for (int i = 0; i < s->nev; i++) {
		if (!s->is_profile && !s->evs[i]->ufetch &&
		    s->in->e.s && !arch_kernel_user_stacks()) {
			lang_errf(s->err, n, "ustack at tracepoints and kprobes needs "
				  "the kernel's user stack traces, which this kernel "
				  "(%s) does not write (no "
				  "CONFIG_USER_STACKTRACE_SUPPORT); at uprobes ftr reads "
				  "the frame-pointer chain itself", arch_name());
			return -EINVAL;
		}
		s->evs[i]->want_ustack = true;
	}
	if (s->is_profile)
		s->in->prof_u = true;
	else
		s->in->prof_k = true;
	return 0;
}

static int check_retval_var(struct sema *s, struct node *n)
{
	if (!s->is_ret) {
		lang_errf(s->err, n, "retval exists only in kretprobe and uretprobe "
			  "clauses (syscall returns are args.ret of sys_exit_*)");
		return -EINVAL;
	}
	return 0;
}

static int check_arg_var(struct sema *s, struct node *n)
{
	if (!s->is_kprobe && !s->is_uprobe) {
		lang_errf(s->err, n, "%s exists only in kprobe and uprobe clauses "
			  "(a tracepoint's arguments are args.NAME)", n->sval);
		return -EINVAL;
	}
	return 0;
}

static int check_cpid_var(struct sema *s, struct node *n)
{
	if (!s->in->o->eng.cmdv) {
		lang_errf(s->err, n, "cpid is the pid of the command of -c, and "
			  "there is none");
		return -EINVAL;
	}
	return 0;
}

/* pid, tid, cpu, uid and comm in BEGIN, END and interval clauses: ftr's own
 * process and CPU. */
static struct val eval_pid(struct xctx *x, const struct node *n)
{
	if (x->smp)
		return vint(x->smp->pid);
	return vint(x->rec ? comm_tgid(x->in->e.comms, tid_of(x), x->now) : getpid());
}

static struct val eval_tid(struct xctx *x, const struct node *n)
{
	return vint(tid_of(x));
}

static struct val eval_comm(struct xctx *x, const struct node *n)
{
	bool task = x->rec || x->smp;	/* else BEGIN, END, interval: ftr's */
	const char *s;

	/* The name at the event where the probe fetched it: a
	 * process that has since exec'd has another now (capable's
	 * asuser is "true" by the time its events are read). */
	if (x->rec && x->eb && x->eb->comm) {
		size_t len;

		s = field_string(x->eb->comm, x->rec->data, x->rec->size, &len);
		if (s && len)
			return vstr(s, strnlen(s, len < 16 ? len : 16));
	}
	if (!task) {
		/* the process's own name (bpftrace's comm there is its own:
		 * ftr run as "bpftrace" by a test suite says so too) */
		memset(x->scratch, 0, 17);
		if (prctl(PR_GET_NAME, x->scratch) < 0)
			snprintf(x->scratch, 17, "ftr");
		return vstr(x->scratch, strnlen(x->scratch, 16));
	}
	s = engine_comm(&x->in->e, tid_of(x));
	return vstr(s, strnlen(s, 16));
}

static struct val eval_cpu(struct xctx *x, const struct node *n)
{
	if (x->smp)
		return vint(x->smp->cpu);
	return vint(x->rec ? x->rec->cpu : sched_getcpu());
}

struct val eval_nsecs(struct xctx *x, const struct node *n)
{
	return vint((int64_t)x->now);
}

static struct val eval_cpid(struct xctx *x, const struct node *n)
{
	return vint(x->in->e.child.pid);
}

static struct val eval_elapsed(struct xctx *x, const struct node *n)
{
	return vint((int64_t)(x->now - x->in->start_ns));
}

/* uid, gid (and username) at an event of a task that may be gone from
 * /proc by the time it is read: the run subscribes to exit records. */
static int check_ids_var(struct sema *s, struct node *n)
{
	if (s->has_record || s->is_profile)
		s->in->want_exits = true;
	return 0;
}

static struct val eval_uid(struct xctx *x, const struct node *n)
{
	bool task = x->rec || x->smp;

	return vint(task ? comm_uid(x->in->e.comms, tid_of(x), x->now) : (int64_t)getuid());
}

static struct val eval_gid(struct xctx *x, const struct node *n)
{
	bool task = x->rec || x->smp;

	return vint(task ? comm_gid(x->in->e.comms, tid_of(x), x->now) : (int64_t)getgid());
}

/*
 * ppid, pcomm, leader_comm: the real parent's process id and name, and the
 * thread group leader's name (bpftrace's curtask->real_parent->tgid,
 * ->real_parent->comm and ->group_leader->comm), known in user space as
 * uid is: the thread's /proc status when ftr first reads one of its
 * events, or its exit record; the names the processes' own, from /proc or
 * the kernel's saved_cmdlines.  In BEGIN, END and interval clauses: ftr's.
 */
static struct val eval_ppid(struct xctx *x, const struct node *n)
{
	bool task = x->rec || x->smp;

	return vint(task ? comm_ppid(x->in->e.comms, tid_of(x), x->now) : (int64_t)getppid());
}

/* pcomm, leader_comm: a buffer of the node's own (two names in one tuple). */
static int check_name_var(struct sema *s, struct node *n)
{
	free(n->bind);
	n->bind = calloc(1, 17);
	return n->bind ? check_ids_var(s, n) : -ENOMEM;
}

static struct val eval_pcomm(struct xctx *x, const struct node *n)
{
	bool task = x->rec || x->smp;
	int pid;
	const char *s;

	if (n->ival == B_PCOMM)
		pid = task ? comm_ppid(x->in->e.comms, tid_of(x), x->now) : getppid();
	else
		pid = task ? comm_tgid(x->in->e.comms, tid_of(x), x->now) : getpid();
	s = pid > 0 ? engine_comm(&x->in->e, pid) : "<...>";
	snprintf(n->bind, 17, "%s", s);
	/* gone from /proc and the kernel's saved names: its exit record's */
	if (!strcmp(n->bind, "<...>") && task && pid > 0)
		comm_exit_name(x->in->e.comms, pid, x->now, n->bind);
	return vstr(n->bind, strnlen(n->bind, 16));
}

/* The CPUs the kernel could ever run (sysfs's possible list, as bpftrace's
 * libbpf_num_possible_cpus), read once. */
static struct val eval_ncpus(struct xctx *x, const struct node *n)
{
	static int ncpus;

	if (!ncpus) {
		char *text = read_file("/sys/devices/system/cpu/possible", NULL);
		int cpus[4096];

		ncpus = text ? kallsyms_cpu_list(text, cpus, (int)ARRAY_SIZE(cpus)) : -1;
		free(text);
		if (ncpus <= 0)
			ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	}
	return vint(ncpus);
}

/* A pseudo-random 32-bit number each time, as bpf_get_prandom_u32: made in
 * user space when the event is handled (xorshift32, seeded once). */
static struct val eval_rand(struct xctx *x, const struct node *n)
{
	static uint32_t state;

	if (!state) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		state = (uint32_t)(ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ getpid()) | 1;
	}
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return vint(state);
}

/* 1 where the clause runs on behalf of user code: ftr's own BEGIN, END and
 * interval, a uprobe (the task's user registers); 0 at a kprobe (kernel
 * code).  Tracepoints and samples are refused by the row's clauses (a
 * tracepoint's record holds no registers, a sample's mode is not kept),
 * a clause on kprobes and uprobes both here: the value is the clause's. */
static int check_usermode(struct sema *s, struct node *n)
{
	if (s->is_kprobe && s->is_uprobe) {
		lang_errf(s->err, n, "usermode in a clause on kprobes and uprobes both: ftr "
			  "knows it from the clause's kind; split the clause");
		return -EINVAL;
	}
	n->idx = clause_kind(s) != BW_KPROBE;
	return 0;
}

static struct val eval_usermode(struct xctx *x, const struct node *n)
{
	return vint(n->idx);
}

/* The NUMA node of the event's CPU (of ftr's, in BEGIN, END and interval):
 * sysfs's cpuN/nodeM link, read once per CPU; 0 where sysfs has none (a
 * kernel without NUMA). */
static struct val eval_numaid(struct xctx *x, const struct node *n)
{
	static int node[1024];
	static bool known[1024];
	int cpu = (int)eval_cpu(x, n).i;

	if (cpu < 0 || cpu >= (int)ARRAY_SIZE(node))
		return vint(0);
	if (!known[cpu]) {
		char path[64];
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
		d = opendir(path);
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' &&
			    e->d_name[4] <= '9') {
				node[cpu] = atoi(e->d_name + 4);
				break;
			}
		if (d)
			closedir(d);
		known[cpu] = true;
	}
	return vint(node[cpu]);
}

/* The name of the thread's user (uid): /etc/passwd's, read each time it
 * is asked (no NSS in the static binary); the number where it has none. */
static struct val eval_username(struct xctx *x, const struct node *n)
{
	int uid = (int)eval_uid(x, n).i;
	char *text = read_file("/etc/passwd", NULL), *line, *save = NULL;

	snprintf(x->scratch, sizeof(x->scratch), "%d", uid);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 && atoi(c2 + 1) == uid && c2[1] >= '0' && c2[1] <= '9') {
			snprintf(x->scratch, sizeof(x->scratch), "%.*s", (int)(c1 - line), line);
			break;
		}
	}
	free(text);
	return vstr(x->scratch, strlen(x->scratch));
}

static struct val eval_func(struct xctx *x, const struct node *n)
{
	return vstr(x->eb ? x->eb->func : "", x->eb ? strlen(x->eb->func) : 0);
}

static struct val eval_probe(struct xctx *x, const struct node *n)
{
	const char *s = x->eb ? x->eb->probe : x->scratch;

	return vstr(s, strlen(s));
}

/* probetype: bpftrace's name of the probe's type, "special" at begin and
 * end (its tests say so); its names of the others ftr does not assume. */
static int check_probetype(struct sema *s, struct node *n)
{
	for (int i = 0; i < s->c->nprobes; i++)
		if (s->c->probes[i].pv != PV_BEGIN && s->c->probes[i].pv != PV_END) {
			lang_errf(s->err, n, "probetype at %s: ftr has bpftrace's name of the "
				  "probe's type at begin and end only (\"special\")",
				  s->c->probes[i].text);
			return -EINVAL;
		}
	return 0;
}

static struct val eval_probetype(struct xctx *x, const struct node *n)
{
	return vstr("special", 7);
}

static struct val eval_kstack(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	int n_ips;
	const uint64_t *ips;

	if (x->smp)
		return (struct val){ .t = VT_STACK, .ips = x->smp->k,
				     .len = (size_t)(n->idx && x->smp->nk > n->idx ? n->idx :
						     x->smp->nk) };
	ips = engine_kstack(&in->e, &n_ips);
	/* From the event's own frame, as the kernel's hist key starts;
	 * a profile clause's, from the interrupted one, as a sample's. */
	if (in->prof && n_ips) {
		int skip = x->eb && x->eb->hrprof ? lprof_skip_irq(in->prof, ips, n_ips) :
			   lprof_skip_tracing(in->prof, ips, n_ips);

		ips += skip;
		n_ips -= skip;
	}
	/* The function tracer's stack starts in its trampoline (6.12: a
	 * marker, INT_MAX), then the traced function at its fentry call's
	 * return: from the function on, at the hook's address as a kprobe
	 * there reads it (x86: past its int3, hook + 1), so that both
	 * backends key the same frames. */
	if (x->ev && x->ev->ftrace_fn && !strcmp(x->ev->name, "function") && in->fn_hook) {
		int i = 0;

		while (i < n_ips && i < 4 && !(ips[i] > in->fn_hook && ips[i] <= in->fn_hook + 16))
			i++;
		if (i < n_ips && i < 4) {
			ips += i;
			n_ips -= i;
			if (n_ips > EVENT_KSTACK_MAX)
				n_ips = EVENT_KSTACK_MAX;
			memcpy(in->fn_kstk, ips, (size_t)n_ips * sizeof(*ips));
			if (!strcmp(arch_name(), "x86_64"))
				in->fn_kstk[0] = in->fn_hook + 1;
			ips = in->fn_kstk;
		}
	}
	if (n_ips > EVENT_KSTACK_MAX)
		n_ips = EVENT_KSTACK_MAX;
	if (n->idx && n_ips > n->idx)
		n_ips = n->idx;
	return (struct val){ .t = VT_STACK, .ips = ips, .len = (size_t)n_ips };
}

/* A uprobe's own file, placed by the event's address (sampler.h): a process
 * gone before its stack is named keeps the frames in the probed file. */
void note_probed_file(struct xctx *x, int tgid)
{
	struct tep_format_field *f;
	uint64_t ip;

	if (!x->ev || !x->ev->upath || !x->rec)
		return;
	f = tep_find_field(x->ev->ev, "__probe_func");	/* a uretprobe's function */
	if (!f)
		f = tep_find_field(x->ev->ev, "__probe_ip");
	if (!f || f->offset + f->size > x->rec->size)
		return;
	ip = (uint64_t)field_int(f, x->rec);
	lprof_note_file(x->in->prof, tgid, x->ev->upath, x->ev->uoff, ip);
}

static struct val eval_ustack(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;

	if (!x->smp && !x->rec)
		return (struct val){ .t = VT_STACK, .ips = in->ustk };	/* BEGIN, END */
	if (!x->smp) {
		int tgid, nu;
		const uint64_t *u = engine_ustack(&in->e, &nu, &tgid);

		if (n->idx && nu > n->idx)
			nu = n->idx;
		in->ustk[0] = LPROF_UTAG | (uint32_t)tgid;
		memcpy(in->ustk + 1, u, (size_t)nu * sizeof(uint64_t));
		/* The maps now, while the process may still run; in a PID
		 * namespace of its own ftr's /proc does not know the
		 * kernel's pid (or knows another process by it). */
		if (in->proc_kernel_pids)
			lprof_note_pid(in->prof, tgid);
		note_probed_file(x, tgid);
		return (struct val){ .t = VT_STACK, .ips = in->ustk, .len = (size_t)nu + 1 };
	}
	/* The process goes with the frames: it names them (sampler.h). */
	in->ustk[0] = LPROF_UTAG | x->smp->pid;
	memcpy(in->ustk + 1, x->smp->u, (size_t)x->smp->nu * sizeof(uint64_t));
	return (struct val){ .t = VT_STACK, .ips = in->ustk,
			     .len = (size_t)(n->idx && x->smp->nu > n->idx ? n->idx :
					     x->smp->nu) + 1 };
}

/* retval, argN: the probe's field of that name. */
static struct val eval_probe_arg(struct xctx *x, const struct node *n)
{
	char name[16];
	struct tep_format_field *f;

	if (n->ival == B_RETVAL)
		snprintf(name, sizeof(name), "retval");
	else
		snprintf(name, sizeof(name), "arg%d", n->idx);
	f = x->rec ? tep_find_field(x->ev->ev, name) : NULL;
	return vint(f ? field_int(f, x->rec) : 0);
}

/*
 * The builtin variables, one row each by enum builtin (lang.h): the name
 * (argN: "arg" and the parser's N), the value's type, the clauses where it
 * exists (checked after check, whose message says more), check (NULL: none
 * needed) and eval.  Adding one: its B_ name in lang.h, its row here, a row
 * in ftr-language(7)'s variable table.  B_CONST and B_CURTASK are no names of their own:
 * fetchargs.c makes them of constants and $current.
 */
static const struct builtin_var builtin_vars[] = {
	[B_PID] = { "pid", VT_INT, BW_ALL, NULL, eval_pid },
	[B_TID] = { "tid", VT_INT, BW_ALL, NULL, eval_tid },
	[B_COMM] = { "comm", VT_STR, BW_ALL, NULL, eval_comm },
	[B_CPU] = { "cpu", VT_INT, BW_ALL, NULL, eval_cpu },
	[B_NSECS] = { "nsecs", VT_INT, BW_ALL, NULL, eval_nsecs },
	[B_ELAPSED] = { "elapsed", VT_INT, BW_ALL, NULL, eval_elapsed },
	[B_UID] = { "uid", VT_INT, BW_ALL, check_ids_var, eval_uid },
	[B_GID] = { "gid", VT_INT, BW_ALL, check_ids_var, eval_gid },
	[B_NCPUS] = { "ncpus", VT_INT, BW_ALL, NULL, eval_ncpus },
	[B_RAND] = { "rand", VT_INT, BW_ALL, NULL, eval_rand },
	[B_USERMODE] = { "usermode", VT_INT, BW_SPECIAL | BW_KPROBE | BW_UPROBE,
			 check_usermode, eval_usermode },
	[B_NUMAID] = { "numaid", VT_INT, BW_ALL, NULL, eval_numaid },
	[B_USERNAME] = { "username", VT_STR, BW_ALL, check_ids_var, eval_username },
	[B_RETVAL] = { "retval", VT_INT, BW_KPROBE | BW_UPROBE, check_retval_var,
		       eval_probe_arg },
	[B_FUNC] = { "func", VT_STR, BW_ALL, NULL, eval_func },
	[B_PROBE] = { "probe", VT_STR, BW_ALL, NULL, eval_probe },
	[B_KSTACK] = { "kstack", VT_STACK, BW_ALL,
		       check_kstack_var, eval_kstack },
	[B_USTACK] = { "ustack", VT_STACK, BW_ALL, check_ustack_var,
		       eval_ustack },
	[B_ARG] = { "arg", VT_INT, BW_KPROBE | BW_UPROBE, check_arg_var, eval_probe_arg },
	[B_CPID] = { "cpid", VT_INT, BW_ALL, check_cpid_var, eval_cpid },
	[B_PROBETYPE] = { "probetype", VT_STR, BW_ALL, check_probetype, eval_probetype },
	[B_PPID] = { "ppid", VT_INT, BW_ALL, check_ids_var, eval_ppid },
	[B_PCOMM] = { "pcomm", VT_STR, BW_ALL, check_name_var, eval_pcomm },
	[B_LEADER_COMM] = { "leader_comm", VT_STR, BW_ALL, check_name_var, eval_pcomm },
};

/* bpftrace's builtins that ftr has not: why, for the error. */
const char *lang_builtin_refused(const char *name)
{
	static const struct {
		const char *name, *why;
	} t[] = {
		{ "cgroup", "is the task's cgroup id, which only a BPF program gets "
		  "(bpf_get_current_cgroup_id)" },
		{ "jiffies", "is read by a BPF helper at the event (bpf_jiffies64); nsecs is "
		  "the event's time" },
		{ "ctx", "is a BPF program's context pointer" },
		{ "sarg0", "reads the stack at the event (a BPF read); ftr's kprobes read "
		  "argN and retval" },
		{ "kfunc", "is a BPF (BTF) probe: use kprobe:" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(name, t[i].name) ||
		    (!strcmp(t[i].name, "sarg0") && !strncmp(name, "sarg", 4) &&
		     name[4] >= '0' && name[4] <= '9'))
			return t[i].why;
	return NULL;
}

/* The name's variable (enum builtin), argN's N in *argn; -1 if none. */
int lang_builtin(const char *name, int *argn)
{
	/* __builtin_comm: today's bpftrace's own name of comm, which its
	 * standard macros wrap */
	if (!strncmp(name, "__builtin_", 10) && name[10])
		name += 10;
	for (size_t i = 0; i < ARRAY_SIZE(builtin_vars); i++)
		if (builtin_vars[i].name && i != B_ARG && !strcmp(name, builtin_vars[i].name))
			return (int)i;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' &&
	    strspn(name + 3, "0123456789") == strlen(name + 3) && strlen(name + 3) <= 2) {
		*argn = atoi(name + 3);
		return B_ARG;
	}
	return -1;
}

const char *lang_builtin_names(void)
{
	static char names[320];
	size_t len = 0;

	if (!names[0])
		for (size_t i = 0; i < ARRAY_SIZE(builtin_vars); i++)
			if (builtin_vars[i].name)
				len += snprintf(names + len, sizeof(names) - len, "%s%s%s",
						len ? " " : "", builtin_vars[i].name,
						i == B_ARG ? "N" : "");
	return names;
}

const struct builtin_var *builtin_var(int b)
{
	return b >= 0 && (size_t)b < ARRAY_SIZE(builtin_vars) && builtin_vars[b].name ?
	       &builtin_vars[b] : NULL;
}

/* The semantic pass's part common to every builtin variable. */
int check_var(struct sema *s, struct node *n)
{
	const struct builtin_var *v = builtin_var((int)n->ival);
	int err;

	if (!v) {
		n->type = VT_INT;	/* B_CONST, B_CURTASK: fetchargs.c's */
		return 0;
	}
	err = v->check ? v->check(s, n) : 0;
	if (err)
		return err;
	if (!(v->where & clause_kind(s))) {
		lang_errf(s->err, n, "%s exists in %s clauses only", n->ival == B_ARG ? n->sval :
			  v->name, where_text(v->where));
		return -EINVAL;
	}
	n->type = v->ret;
	return 0;
}

struct val eval_var(struct xctx *x, const struct node *n)
{
	const struct builtin_var *v = builtin_var((int)n->ival);

	return v ? v->eval(x, n) : vint(0);
}
