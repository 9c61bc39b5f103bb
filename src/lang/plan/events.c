// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From a checked program to engine events (compile()): each clause's
 * tracepoints, kprobes, uprobes and eprobes added with exactly the fields it
 * reads, the sampler for profile/software/hardware clauses, str() of
 * pointers fetched by the probes (strfetch.h), typed reads (fetchargs.h), the
 * events read for the names tasks take (comm), and profile clauses that read
 * kernel memory moved onto an eprobe (hrprof_clause).
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/evsel.h"
#include "kernel/pglob.h"
#include "kernel/probe.h"
#include "lang/parse/ctypes.h"
#include "lang/plan/dynprobe.h"
#include "lang/plan/fntrace.h"
#include "lang/maps/intern.h"
#include "lang/interp-int.h"
#include "lang/plan/strfetch.h"
#include "lang/plan/structvar.h"
#include "lang/plan/fetchargs.h"
/* The argN and retval fields a kprobe/uprobe clause reads: its probe gets
 * exactly those fields.  str(argN) and str(retval) (index nargs) in a
 * uprobe: the string they point to, fetched by the probe (sargs). */
/* The first node of n's trees that match() picks, or NULL. */
static const struct node *node_find(const struct node *n, bool (*match)(const struct node *))
{
	for (; n; n = n->next) {
		const struct node *r = match(n) ? n : NULL;

		if (!r)
			r = node_find(n->a, match);
		if (!r)
			r = node_find(n->b, match);
		if (!r)
			r = node_find(n->c, match);
		for (int i = 0; !r && i < n->nargs; i++)
			r = node_find(n->args[i], match);
		if (r)
			return r;
	}
	return NULL;
}

static bool is_comm(const struct node *n)
{
	return n->k == N_BUILTIN && n->ival == B_COMM;
}

static bool uses_comm(const struct node *n)
{
	return node_find(n, is_comm);
}

static void probe_fields(const struct node *n, bool *args, bool *sargs, int nargs)
{
	for (; n; n = n->next) {
		if (n->k == N_BUILTIN && n->ival == B_ARG && n->idx < nargs)
			args[n->idx] = true;
		if (n->k == N_CALL && !strcmp(n->sval, "str") && n->nargs >= 1 &&
		    n->args[0]->k == N_BUILTIN) {
			if (n->args[0]->ival == B_ARG && n->args[0]->idx < nargs)
				sargs[n->args[0]->idx] = true;
			else if (n->args[0]->ival == B_RETVAL)
				sargs[nargs] = true;
		}
		probe_fields(n->a, args, sargs, nargs);
		probe_fields(n->b, args, sargs, nargs);
		probe_fields(n->c, args, sargs, nargs);
		for (int i = 0; i < n->nargs; i++)
			probe_fields(n->args[i], args, sargs, nargs);
	}
}

/* reg("name") calls: a field reg_NAME of the register's fetch argument
 * each (arch.h; check_reg made sure of the name), once per name. */
static void reg_fields(const struct node *n, char *fields, size_t *off, size_t len)
{
	for (; n; n = n->next) {
		char fetch[32], field[64];

		if (n->k == N_CALL && !strcmp(n->sval, "reg") && n->nargs == 1 &&
		    n->args[0]->k == N_STR &&
		    !arch_reg_fetch(arch_name(), n->args[0]->sval, fetch, sizeof(fetch))) {
			snprintf(field, sizeof(field), " reg_%s=", n->args[0]->sval);
			if (!strstr(fields, field))
				*off += snprintf(fields + *off, *off < len ? len - *off : 0,
						 "%s%s:%s", field, fetch,
						 sizeof(long) == 8 ? "u64" : "u32");
		}
		reg_fields(n->a, fields, off, len);
		reg_fields(n->b, fields, off, len);
		reg_fields(n->c, fields, off, len);
		for (int i = 0; i < n->nargs; i++)
			reg_fields(n->args[i], fields, off, len);
	}
}

static bool is_ustack(const struct node *n)
{
	return (n->k == N_BUILTIN && n->ival == B_USTACK) ||
	       (n->k == N_CALL && !strcmp(n->sval, "ustack"));
}

static bool is_retval(const struct node *n)
{
	return n->k == N_BUILTIN && n->ival == B_RETVAL;
}

static bool is_kstack(const struct node *n)
{
	return (n->k == N_BUILTIN && n->ival == B_KSTACK) ||
	       (n->k == N_CALL && !strcmp(n->sval, "kstack"));
}

static bool is_reg(const struct node *n)
{
	return n->k == N_CALL && !strcmp(n->sval, "reg");
}

static bool clause_uses(const struct clause *c, bool (*is)(const struct node *))
{
	return node_find(c->pred, is) || node_find(c->body, is);
}

static bool uses_ustack(const struct clause *c)
{
	return node_find(c->pred, is_ustack) || node_find(c->body, is_ustack);
}

/* What makes a profile clause read kernel memory (fetchargs.c): a cast to a
 * pointer, curtask. */
static bool is_memory_read(const struct node *n)
{
	return (n->k == N_CAST && n->sval && strchr(n->sval, '*')) ||
	       (n->k == N_BUILTIN && n->ival == B_CURTASK);
}

static bool is_field(const struct node *n)
{
	return n->k == N_FIELD;
}

bool prof_reads_memory(const struct clause *c)
{
	return c->probes[0].pv == PV_PROFILE && !c->probes[0].period &&
	       (node_find(c->pred, is_memory_read) || node_find(c->body, is_memory_read));
}

/* The fetchargs of a uprobe's user stack into out[0..max) (arch.h): how
 * many (0 where the kernel's userstacktrace option serves), -ENOSPC. */
static int ustack_fetches(struct probe_arg *out, int max)
{
	int n = 0;

	if (arch_kernel_user_stacks())
		return 0;
	for (;; n++) {
		struct probe_arg a = { .fetch = PF_RAW };

		if (arch_ustack_fetch(arch_name(), n, a.name, sizeof(a.name), a.raw, sizeof(a.raw),
				      a.type, sizeof(a.type)))
			return n;
		if (n == max)
			return -ENOSPC;
		out[n] = a;
	}
}

/* Is pr a uprobe at a function's first instruction (a function name, no
 * address, no +OFF, not a USDT site)?  There the link register holds the
 * caller, which the frame records do not name yet. */
static bool uprobe_at_entry(const struct lang_probe *pr)
{
	struct probe_spec spec;
	struct probe_error perr;

	return pr->pv == PV_UPROBE && !pr->usdt && !probe_parse(pr->text, &spec, &perr) &&
	       !spec.has_addr && !spec.offset;
}

/* Has an event added since index `before` replaced tracepoint v?  (Then v
 * does not feed the clause that added it.) */
static bool replaced_since(struct engine *e, int before, const struct eng_event *v)
{
	size_t ls = strlen(v->sys);

	for (int k = before; k < e->nev; k++) {
		const char *r = e->ev[k].replaces;

		if (r && !strncmp(r, v->sys, ls) && r[ls] == ':' && !strcmp(r + ls + 1, v->name))
			return true;
	}
	return false;
}

static int add_clause_probes(struct interp *in, int ci, struct clause *c, char ***pn, int *npn,
			     struct lang_err *err);

/* One sampler feeds every profile clause (and arms the timers of those
 * that run on its interrupt's eprobe): pr's rate must be the others'. */
static int prof_arm(struct interp *in, const struct lang_probe *pr, struct lang_err *err)
{
	if (in->prof_pr && (in->prof_pr->period != pr->period ||
			    in->prof_pr->perf_type != pr->perf_type ||
			    in->prof_pr->perf_config != pr->perf_config)) {
		snprintf(err->msg, sizeof(err->msg), "%s: a program has one sampler, "
			 "and it is '%s' here (profile:, software:, hardware: probes "
			 "must be the same)", pr->text, in->prof_pr->text);
		err->line = pr->line;
		err->col = pr->col;
		return -EINVAL;
	}
	if (pr->period) {
		in->prof_pr = pr;
		in->prof_hz = 1;	/* a sampler; its period is pr's */
		return 0;
	}
	if (in->prof_hz && in->prof_hz != pr->hz) {
		snprintf(err->msg, sizeof(err->msg), "profile:hz:%llu: every profile "
			 "probe of a program samples at one rate (%u Hz here)",
			 (unsigned long long)pr->hz, in->prof_hz);
		err->line = pr->line;
		err->col = pr->col;
		return -EINVAL;
	}
	in->prof_pr = pr;
	if (!pr->hz || pr->hz > 100000) {
		snprintf(err->msg, sizeof(err->msg), "profile:hz:%llu: the rate must be "
			 "1 to 100000 Hz", (unsigned long long)pr->hz);
		err->line = pr->line;
		err->col = pr->col;
		return -EINVAL;
	}
	in->prof_hz = (unsigned)pr->hz;
	return 0;
}

/* config missing_probes = warn or ignore: a probe naming nothing here is
 * skipped, with bpftrace's warnings or silently. */
static void missing_probe(struct interp *in, const struct lang_probe *pr)
{
	static const char *const kinds[] = {
		[PV_TRACEPOINT] = "tracepoint", [PV_KPROBE] = "kprobe",
		[PV_KRETPROBE] = "kretprobe", [PV_UPROBE] = "uprobe", [PV_URETPROBE] = "uretprobe",
	};
	const char *kind = pr->pv < ARRAY_SIZE(kinds) && kinds[pr->pv] ? kinds[pr->pv] : "probe";
	const char *what = strchr(pr->text, ':') ? strchr(pr->text, ':') + 1 : pr->text;

	if (in->p->missing_probes != LANG_MISSING_WARN || ftr_no_warnings)
		return;
	if ((pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) && !in->e.feat.f[F_KPROBE].yes) {
		ftr_err("%d:%d: WARNING: %s: this kernel has no kprobe events. Skipping.",
			pr->line, pr->col, pr->text);
		return;
	}
	if (pr->btf_func)
		kind = pr->pv == PV_KPROBE ? "fentry" : "fexit";
	else if ((pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) && !pglob_is_glob(what))
		ftr_err("%d:%d: WARNING: %s is not traceable (either non-existing, inlined, or "
			"marked as \"notrace\"); attaching to it will likely fail", pr->line,
			pr->col, what);
	ftr_err("%d:%d: WARNING: No matches for %s %s. Skipping.", pr->line, pr->col, kind, what);
}

/* The systems of the kernel's tracepoints' events: not ftrace's own, nor
 * its syscall events (made on raw_syscalls), nor dynamic events'. */
static bool raw_system(const char *sys)
{
	static const char *const other[] = { "ftrace", "syscalls", "kprobes", "uprobes",
					     "eprobes", "fprobes", "tracepoints", "synthetic" };

	if (str_has_prefix(sys, FTR_NAME_PREFIX))
		return false;
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (!strcmp(sys, other[i]))
			return false;
	return true;
}

/* Whether directory dir holds an event whose name matches glob name. */
static bool raw_has(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	while (d && !found && (de = readdir(d)))
		found = de->d_name[0] != '.' && !fnmatch(name, de->d_name, 0) &&
			strcmp(de->d_name, "enable") && strcmp(de->d_name, "filter");
	if (d)
		closedir(d);
	return found;
}

static bool is_arg(const struct node *n)
{
	return n->k == N_FIELD || (n->k == N_BUILTIN && n->ival == B_ARG);
}

/*
 * rawtracepoint:NAME: a BPF program on the tracepoint itself, fired where
 * its trace event is; a clause that reads none of its raw arguments
 * (TP_PROTO's, which only BPF reads) sees the same hits on the event of
 * that name, in whichever system it is (sys_exit is raw_syscalls').
 */
static int raw_tp_add(struct interp *in, const struct clause *c, const struct lang_probe *pr,
		      struct lang_err *err)
{
	const struct node *f = node_find(c->pred, is_arg);
	const char *name = pr->target + 2, *tdir;
	char spec[300], path[PATH_MAX + 300];
	char **systems;
	int n = 0, ret = 0;

	if (!f)
		f = node_find(c->body, is_arg);
	if (f) {
		lang_errf(err, f, "'%s': a raw tracepoint's arguments are its TP_PROTO "
			  "arguments, which only a BPF program reads; tracepoint:SYSTEM:%s has "
			  "its event's fields as args", pr->text, name);
		return -EINVAL;
	}
	if (!in->e.s) {
		err->line = pr->line;
		err->col = pr->col;
		snprintf(err->msg, sizeof(err->msg), "'%s': a live kernel's only (a recording "
			 "names its tracepoint events: tracepoint:SYSTEM:%s)", pr->text, name);
		return -EINVAL;
	}
	tdir = session_tracefs(in->e.s)->path;
	systems = tracefs_event_systems(tdir);
	for (int i = 0; systems && systems[i] && ret >= 0; i++) {
		if (!raw_system(systems[i]))
			continue;
		snprintf(spec, sizeof(spec), "%s:%s", systems[i], name);
		/* Looked up in the system's directory alone: evsel_resolve lists
		 * every system to suggest names where one has no match, which
		 * for each of a hundred systems took seconds in a guest. */
		snprintf(path, sizeof(path), "%s/events/%s", tdir, systems[i]);
		if (raw_has(path, name)) {
			ret = engine_add_spec(&in->e, spec, NULL);
			n++;
		}
	}
	tracefs_list_free(systems);
	if (ret >= 0 && !n) {
		err->line = pr->line;
		err->col = pr->col;
		snprintf(err->msg, sizeof(err->msg), "'%s': ERROR: Probe has no valid attach "
			 "points: no tracepoint event named '%s' (a tracepoint without a trace "
			 "event, which BPF attaches to, has nothing ftr reads)", pr->text, name);
		return -ENOENT;
	}
	return ret;
}

static int add_clause_events(struct interp *in, int ci, struct lang_err *err)
{
	struct clause *c = &in->p->cl[ci];
	char **pnames = NULL;	/* the dynamic probe's events, by name */
	int npnames = 0, ret;

	ret = add_clause_probes(in, ci, c, &pnames, &npnames, err);
	strv_free(pnames, npnames);
	return ret;
}

static int add_clause_probes(struct interp *in, int ci, struct clause *c, char ***pn, int *npn,
			     struct lang_err *err)
{
	for (int j = 0; j < c->nprobes; j++) {
		struct lang_probe *pr = &c->probes[j];
		int before = in->e.nev, ret, fn_k = -1;

		ret = in->p->missing_probes ? dynprobe_exists(&in->e, pr) : 1;
		if (ret < 0)
			return ret;
		if (!ret) {
			missing_probe(in, pr);
			continue;
		}
		if (pr->pv == PV_TRACEPOINT && pr->raw_tp) {
			ret = raw_tp_add(in, c, pr, err);
		} else if (pr->pv == PV_TRACEPOINT) {
			struct strfetch sf;

			/* A profile clause on its eprobe: the sampler still arms
			 * the timers. */
			if (in->hrprof && in->hrprof[ci]) {
				ret = prof_arm(in, pr, err);
				if (ret < 0)
					return ret;
			}
			/* str(args.F) of a user-space address: an eprobe or a
			 * kprobe stands in for the tracepoint. */
			ret = strfetch_add(&in->e, pr->target, c->pred, c->body,
					   in->typed ? &in->typed[ci] : NULL, &sf);
			if (sf.plan[0])
				planf(in, "clause %d: %s\n", ci + 1, sf.plan);
			if (sf.why[0] && ci < 256 && !in->fetch_why[ci])
				in->fetch_why[ci] = strdup(sf.why);
			if (ret == 0)
				ret = engine_add_spec(&in->e, pr->target, NULL);
		} else if (pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE || pr->pv == PV_UPROBE ||
			   pr->pv == PV_URETPROBE) {
			bool args[PROBE_MAX_ARGN + 1] = { false }, sargs[PROBE_MAX_ARGN + 2] = { false };
			bool user = pr->pv == PV_UPROBE || pr->pv == PV_URETPROBE;
			struct probe_arg extra[PROBE_MAX_ARGS], fb[PROBE_MAX_ARGS];
			bool names = in->typed && in->typed[ci].nnames;
			char fields[1024];
			size_t off = 0;
			int nextra, nuf;
			bool ura;

			probe_fields(c->pred, args, sargs, ARRAY_SIZE(args));
			probe_fields(c->body, args, sargs, ARRAY_SIZE(args));
			if ((pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) && !user) {
				bool graph = fntrace_graph(in);
				const char *want = !graph ? "function" :
						   pr->pv == PV_KPROBE ? "funcgraph_entry" :
						   "funcgraph_exit";
				char rd[16] = "";

				for (int a = 0; a < (int)ARRAY_SIZE(args) && !rd[0]; a++)
					if (args[a] || sargs[a])
						snprintf(rd, sizeof(rd), "arg%d", a);
				if (!rd[0] && in->typed && in->typed[ci].n)
					snprintf(rd, sizeof(rd), "args");
				if (!rd[0] && uses_ustack(c))
					snprintf(rd, sizeof(rd), "ustack");
				if (!rd[0] && clause_uses(c, is_reg))
					snprintf(rd, sizeof(rd), "reg()");
				if (!rd[0] && (sargs[ARRAY_SIZE(args)] || clause_uses(c, is_retval)))
					snprintf(rd, sizeof(rd), "retval");
				if (!rd[0] && (graph || !FNTRACE_KSTACK_AS_KPROBE) &&
				    clause_uses(c, is_kstack))
					snprintf(rd, sizeof(rd), "kstack");
				ret = fntrace_add(in, pr, rd[0] ? rd : NULL, err);
				if (ret < 0)
					return err->msg[0] ? -EINVAL : ret;
				if (ret > 0) {
					for (int k = 0; k < in->e.nev; k++)
						if (in->e.ev[k].ftrace_fn &&
						    !strcmp(in->e.ev[k].name, want))
							fn_k = k;
					goto bind;
				}
			}
			fields[0] = '\0';
			for (int a = 0; a < (int)ARRAY_SIZE(args); a++)
				if (args[a])
					off += snprintf(fields + off, off < sizeof(fields) ?
							sizeof(fields) - off : 0, " arg%d", a);
			/* A uprobe reads user memory: the string is fetched at
			 * the probe, as bpftrace's str() reads it there. */
			for (int a = 0; user && a <= (int)ARRAY_SIZE(args); a++)
				if (sargs[a] && a < (int)ARRAY_SIZE(args))
					off += snprintf(fields + off, off < sizeof(fields) ?
							sizeof(fields) - off : 0,
							" arg%d_str=arg%d:string", a, a);
				else if (sargs[a] && pr->pv == PV_URETPROBE)
					off += snprintf(fields + off, off < sizeof(fields) ?
							sizeof(fields) - off : 0,
							" retval_str=retval:string");
			/* comm as it is at the event ($comm), not when it is read;
			 * where the probes have no $comm (4.4's README does not
			 * list it), from the pid when read. */
			if ((uses_comm(c->pred) || uses_comm(c->body)) &&
			    (in->e.feat.probe_syntax & PS_COMM))
				off += snprintf(fields + off, off < sizeof(fields) ?
						sizeof(fields) - off : 0, " ftr_comm=comm");
			reg_fields(c->pred, fields, &off, sizeof(fields));
			reg_fields(c->body, fields, &off, sizeof(fields));
			strv_free(*pn, *npn);
			*pn = NULL;
			/* A wildcard adds one event per function, each its own
			 * probe and func. */
			/* The typed reads: raw fetchargs (fetchargs.h), added as
			 * parsed fields, as a bitfield type is no spec type. */
			nextra = 0;
			for (int f = 0; in->typed && f < in->typed[ci].n; f++) {
				struct probe_arg *a = &extra[nextra];

				if (nextra == PROBE_MAX_ARGS) {
					snprintf(err->msg, sizeof(err->msg), "too many fields for "
						 "one probe (%d)", PROBE_MAX_ARGS);
					err->line = pr->line;
					err->col = pr->col;
					return -EINVAL;
				}
				memset(a, 0, sizeof(*a));
				snprintf(a->name, sizeof(a->name), "%s", in->typed[ci].f[f].name);
				snprintf(a->raw, sizeof(a->raw), "%s", in->typed[ci].f[f].fetch);
				snprintf(a->type, sizeof(a->type), "%s", in->typed[ci].f[f].type);
				a->fetch = PF_RAW;
				nextra++;
			}
			/* ustack where the kernel writes no user stacks: the
			 * uprobe fetches the frame records itself (arch.h). */
			nuf = 0;
			if (user && in->e.s && uses_ustack(c))
				nuf = ustack_fetches(extra + nextra, PROBE_MAX_ARGS - nextra);
			if (nuf < 0) {
				snprintf(err->msg, sizeof(err->msg), "too many fields for one probe "
					 "(%d) with ustack's", PROBE_MAX_ARGS);
				err->line = pr->line;
				err->col = pr->col;
				return -EINVAL;
			}
			nextra += nuf;
			/* ... and where it does, at a function's entry, the
			 * return address its frame-pointer walk misses. */
			ura = !nuf && user && in->e.s && uses_ustack(c) && uprobe_at_entry(pr) &&
			      nextra < PROBE_MAX_ARGS &&
			      !arch_uentry_ret_fetch(arch_name(), extra[nextra].raw,
						     sizeof(extra[nextra].raw), extra[nextra].type,
						     sizeof(extra[nextra].type));
			if (ura) {
				snprintf(extra[nextra].name, sizeof(extra[nextra].name), "%s",
					 ARCH_UENTRY_RA);
				extra[nextra].fetch = PF_RAW;
				extra[nextra].pos = 0;
				nextra++;
			}
			/* The same reads by ftr's fetches, where the kernel
			 * refuses its argument names (fetchargs.h). */
			memcpy(fb, extra, (size_t)nextra * sizeof(*fb));
			for (int f = 0; names && f < in->typed[ci].n; f++)
				if (typed_fallback(&in->typed[ci], f, fb[f].raw, sizeof(fb[f].raw)))
					fb[f] = extra[f];
			if (!in->o->unsafe && dynprobe_zero_size(&in->e, pr)) {
				err->msg[0] = '\0';	/* printed */
				return -EPERM;
			}
			ret = *npn = dynprobe_add(&in->e, pr, c->nprobes > 1, fields, extra,
						  names ? fb : NULL, nextra, pn, err);
			if (ret < 0)
				return err->msg[0] ? -EINVAL : ret;
			for (int k = before; (nuf || ura) && k < in->e.nev; k++) {
				in->e.ev[k].ufetch = nuf > 0;
				in->e.ev[k].uentry = ura || uprobe_at_entry(pr);
			}
		} else if (pr->pv == PV_PROFILE) {
			ret = prof_arm(in, pr, err);
			if (ret < 0)
				return ret;
			continue;
		} else {
			continue;
		}
		if (ret < 0)
			return ret;
bind:
		/* Every new event has its (empty) binding, those of no clause
		 * yet too (function_graph's exit, added with its entry). */
		if (in->e.nev > before) {
			struct evbind *eb = realloc(in->eb, in->e.nev * sizeof(*in->eb));

			if (!eb)
				return -ENOMEM;
			in->eb = eb;
			memset(&in->eb[before], 0, (size_t)(in->e.nev - before) * sizeof(*in->eb));
		}
		/* Record which clauses each new (or shared) event feeds. */
		for (int k = 0; k < in->e.nev; k++) {
			struct eng_event *v = &in->e.ev[k];
			/* (the tracer's events: fn_k alone, function_graph's
			 * entry or exit) */
			bool mine = fn_k >= 0 ? k == fn_k : k >= before;

			if (!mine && pr->pv == PV_TRACEPOINT) {
				char sys[128], ev[128];

				evsel_split(pr->target, sys, sizeof(sys), ev, sizeof(ev));
				mine = !fnmatch(sys, v->sys, 0) && !fnmatch(ev, v->name, 0) &&
				       !replaced_since(&in->e, before, v) &&
				       (!pr->raw_tp || raw_system(v->sys));
			}
			if (!mine)
				continue;
			if (in->eb[k].ncl == 0 || in->eb[k].clauses[in->eb[k].ncl - 1] != ci) {
				struct evbind *b = &in->eb[k];

				if (b->ncl == b->cap) {
					int *nc = realloc(b->clauses, (b->cap + 8) * sizeof(*nc));

					if (!nc)
						return -ENOMEM;
					b->clauses = nc;
					b->cap += 8;
				}
				b->clauses[b->ncl++] = ci;
			}
			if (v->ftrace_fn) {
				/* probe and func are each record's own (on_event) */
			} else if (in->hrprof && in->hrprof[ci]) {
				in->eb[k].hrprof = true;
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "%s", pr->text);
			} else if (pr->pv == PV_TRACEPOINT && v->replaces) {
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "tracepoint:%s",
					 v->replaces);
			} else if (pr->pv == PV_TRACEPOINT && pr->raw_tp) {
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe),
					 "rawtracepoint:vmlinux:%s", v->name);
			} else if (pr->pv == PV_TRACEPOINT) {
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "tracepoint:%s:%s",
					 v->sys, v->name);
			} else {
				const char *name = k - before < *npn ? (*pn)[k - before] : pr->text;
				const char *f = strrchr(name, ':');

				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "%s", name);
				snprintf(in->eb[k].func, sizeof(in->eb[k].func), "%s", f ? f + 1 : "");
			}
		}
	}
	return 0;
}

/* Each clause's events, for the semantic pass. */
static int clause_events(struct interp *in, int ci, struct eng_event ***out)
{
	struct eng_event **v = calloc(in->e.nev + 1, sizeof(*v));
	int n = 0;

	if (!v)
		return -ENOMEM;
	for (int k = 0; k < in->e.nev; k++)
		for (int i = 0; i < in->eb[k].ncl; i++)
			if (in->eb[k].clauses[i] == ci) {
				v[n++] = &in->e.ev[k];
				break;
			}
	*out = v;
	return n;
}

/* The type of what a plain store keeps, from its syntax: a map's reads
 * may come before its stores in the program, so this is known first.  A
 * function's is its row's (strftime(), usym(): strings); a map's, that of
 * a map stored to earlier in the program (@a = @). */
static enum vtype store_type(struct interp *in, const struct node *v)
{
	const struct builtin_fn *f;
	struct mapdef *m;

	if (v->k == N_TUPLE)
		return VT_TUPLE;
	if (v->k == N_STR || (v->k == N_CALL && !strcmp(v->sval, "str")))
		return VT_STR;
	if (v->k == N_CALL && (f = builtin_find(v->sval)) && (f->ret == VT_STR || f->ret == VT_BUF))
		return f->ret;
	if (v->k == N_MAP && !v->nargs && (m = map_find(in, v->sval)) && m->vt == VT_STR)
		return VT_STR;
	if (v->k == N_BUILTIN)
		return v->ival == B_COMM || v->ival == B_FUNC || v->ival == B_PROBE ? VT_STR :
		       v->ival == B_KSTACK || v->ival == B_USTACK ? VT_STACK : VT_INT;
	return VT_INT;
}

static int value_types(struct interp *in, const struct node *n, struct lang_err *err)
{
	for (; n; n = n->next) {
		if (n->k == S_ASSIGN && n->a->k == N_MAP &&
		    !(n->b->k == N_CALL && agg_of(n->b->sval) >= 0)) {
			struct mapdef *m = map_get(in, n->a->sval);
			enum vtype t = n->op == T_ASSIGN ? store_type(in, n->b) : VT_INT;

			if (!m) {
				lang_errf(err, n->a, "too many maps (ftr keeps %d)",
					  (int)ARRAY_SIZE(in->maps));
				return -EINVAL;
			}
			if (m->vt && m->vt != t) {
				lang_errf(err, n->b, "%s holds %ss and %ss", m->name,
					  m->vt == VT_STR ? "string" : m->vt == VT_STACK ? "stack" :
					  "number", t == VT_STR ? "string" : t == VT_STACK ? "stack" :
					  "number");
				return -EINVAL;
			}
			m->vt = t;
			if (t != VT_INT && !in->vals && !(in->vals = intern_new(INTERN_MAX, INTERN_MAX_BYTES)))
				return -ENOMEM;
		}
		if (value_types(in, n->a, err) || value_types(in, n->b, err) ||
		    value_types(in, n->c, err))
			return -EINVAL;
	}
	return 0;
}

/* Is there a str(@name[...]) in n? */
static bool reads_str_of(const struct node *n, const char *name)
{
	for (; n; n = n->next) {
		if (n->k == N_CALL && !strcmp(n->sval, "str") && n->nargs &&
		    n->args[0]->k == N_MAP && !strcmp(n->args[0]->sval, name))
			return true;
		if (reads_str_of(n->a, name) || reads_str_of(n->b, name) ||
		    reads_str_of(n->c, name))
			return true;
		for (int i = 0; i < n->nargs; i++)
			if (reads_str_of(n->args[i], name))
				return true;
	}
	return false;
}

static bool program_reads_str_of(const struct program *p, const char *name)
{
	for (int ci = 0; ci < p->ncl; ci++)
		if (reads_str_of(p->cl[ci].pred, name) || reads_str_of(p->cl[ci].body, name))
			return true;
	return false;
}

/*
 * The entry/return pattern of opensnoop and statsnoop: @filename[tid] =
 * args.filename at sys_enter_*, str(@filename[tid]) at sys_exit_*.  The map
 * holds a user-space address, and only at the store does the string sit
 * there for the kernel to fetch (an eprobe or kprobe, strfetch.c).  So a
 * map read by str() anywhere keeps the string instead: each plain store of
 * an event field into it becomes a store of str(field), fetched where it is
 * stored, and str() of the map reads it back.  In a predicate the map is
 * true where it has the key, as the address it stands for is non-zero.
 */
static int str_stores(struct interp *in, struct node *n, bool user, bool typed)
{
	for (; n; n = n->next) {
		/* At a uprobe, argN and retval are the addresses (gethostlatency:
		 * @name[tid] = arg0 at getaddrinfo, str(@name[tid]) at its
		 * return), fetched as ustrings by the probe itself.  Before the
		 * typed reads are compiled (typed): a member, cast, index or
		 * dereference (dcsnoop: @fname[tid] = $name->name at d_lookup),
		 * whose str() fetchargs.c turns into a string fetch of the probe. */
		bool src = n->k == S_ASSIGN &&
			   (typed ? n->b->k == N_MEMBER || n->b->k == N_CAST || n->b->k == N_INDEX ||
				    (n->b->k == N_UNOP && n->b->op == T_STAR) :
				    n->b->k == N_FIELD ||
				    (user && n->b->k == N_BUILTIN &&
				     (n->b->ival == B_ARG || n->b->ival == B_RETVAL)));

		if (src && n->a->k == N_MAP && n->op == T_ASSIGN &&
		    program_reads_str_of(in->p, n->a->sval)) {
			struct node *c = calloc(1, sizeof(*c));
			struct mapdef *m = map_get(in, n->a->sval);

			if (!c || !m || !(c->args = calloc(1, sizeof(*c->args))) ||
			    !(c->sval = strdup("str"))) {
				if (c)
					free(c->args);
				free(c);
				return -ENOMEM;
			}
			c->k = N_CALL;
			c->ival = 1;	/* made here: errors say why */
			c->line = n->b->line;
			c->col = n->b->col;
			c->args[0] = n->b;
			c->nargs = 1;
			n->b = c;
			m->str_at_store = true;
		}
		if ((lang_is_block_stmt(n->k) && (str_stores(in, n->b, user, typed) < 0 ||
				      str_stores(in, n->c, user, typed) < 0)))
			return -ENOMEM;
	}
	return 0;
}

/* typed_tp.field_type over a tracepoint clause: the type in each of its
 * probes' events. */
struct tp_fields {
	struct interp *in;
	const struct clause *c;
};

static int tp_field_type(void *ctx, const char *name, char *type, size_t len, char *why,
			 size_t wlen)
{
	const struct tp_fields *t = ctx;
	char first[160] = "";

	for (int j = 0; j < t->c->nprobes; j++) {
		int ret = strfetch_field_type(&t->in->e, t->c->probes[j].target, name, type, len,
					      why, wlen);

		if (ret)
			return ret;
		if (j && strcmp(first, type)) {
			snprintf(why, wlen, "'%s' is '%s' in %s and '%s' in %s: one type is needed "
				 "to read through it", name, first, t->c->probes[0].target, type,
				 t->c->probes[j].target);
			return -EINVAL;
		}
		snprintf(first, sizeof(first), "%s", type);
	}
	return 0;
}

/*
 * comm at a tracepoint is looked up by pid when ftr reads the event, which
 * is after it happened: a task that has exec'd and exited since is known
 * only by saved_cmdlines, which may hold the name it had before the exec
 * (opensnoop printed "sh" for opener's opens, one run in two on 6.1).
 * bpftrace reads comm at the event.  So task_rename, which the kernel
 * emits wherever it sets a comm (exec, whose name is the file's base name:
 * "exe" for busybox's /proc/self/exe, and prctl, with which busybox then
 * names its applet), is read with the rest, in timestamp order, and gives
 * each task its new name from there on.  Likewise sched_process_fork names
 * a new task (child_comm): a child that exits before ftr reads its events,
 * without an exec, is in neither /proc nor, often, saved_cmdlines (which
 * holds 128 names by default), and was "<...>" one run in a few (the
 * signals recipe's SIGCHLD of ftrfuzz's children, on 6.12).
 */
static const struct { const char *sys, *name, *namef, *pidf; } name_srcs[2] = {
	{ "task", "task_rename", "newcomm", "pid" },
	{ "sched", "sched_process_fork", "child_comm", "child_pid" },
};

int name_events_add(struct interp *in)
{
	bool want = false;

	in->names[0].idx = in->names[1].idx = -1;
	if (!in->e.s || in->o->eng.file_tep)
		return 0;
	for (int ci = 0; ci < in->p->ncl; ci++)
		want |= in->p->cl[ci].probes[0].pv == PV_TRACEPOINT &&
			(uses_comm(in->p->cl[ci].pred) || uses_comm(in->p->cl[ci].body));
	if (!want)
		return 0;
	for (int i = 0; i < 2; i++) {
		int k, before = in->e.nev;
		char spec[64];

		if (!tracefs_event_file_exists(NULL, name_srcs[i].sys, name_srcs[i].name,
					       "format"))
			continue;
		for (k = 0; k < in->e.nev; k++)
			if (!strcmp(in->e.ev[k].sys, name_srcs[i].sys) &&
			    !strcmp(in->e.ev[k].name, name_srcs[i].name))
				break;
		if (k == in->e.nev) {
			snprintf(spec, sizeof(spec), "%s:%s", name_srcs[i].sys, name_srcs[i].name);
			if (engine_add_spec(&in->e, spec, NULL) < 0)
				return -EINVAL;
			in->eb = realloc(in->eb, in->e.nev * sizeof(*in->eb));
			if (!in->eb)
				return -ENOMEM;
			for (int j = before; j < in->e.nev; j++)
				memset(&in->eb[j], 0, sizeof(in->eb[j]));
		}
		in->names[i].idx = k;
		in->read_names = true;
		planf(in, "%s:%s: read for the names tasks take (comm)\n", name_srcs[i].sys,
		      name_srcs[i].name);
	}
	return 0;
}

static bool name_src_idx(const struct interp *in, int k)
{
	return k == in->names[0].idx || k == in->names[1].idx;
}

/* After the plan: the name events are read only where comm is read in ftr, at
 * an event the ring buffer carries (not one a hist trigger or counter
 * takes, whose predicate on comm is the kernel's). */
void name_events_plan(struct interp *in)
{
	bool need = false;

	if (!in->read_names)
		return;
	for (int k = 0; k < in->e.nev; k++) {
		if (name_src_idx(in, k) || in->e.ev[k].trigger_only)
			continue;
		for (int i = 0; i < in->eb[k].ncl; i++) {
			const struct clause *c = &in->p->cl[in->eb[k].clauses[i]];

			need |= c->probes[0].pv == PV_TRACEPOINT &&
				((uses_comm(c->pred) && !in->eb[k].pred_pushed) ||
				 uses_comm(c->body));
		}
	}
	if (need)
		return;
	in->read_names = false;
	for (int i = 0; i < 2; i++) {
		int k = in->names[i].idx;

		if (k < 0)
			continue;
		if (in->eb[k].ncl)
			in->read_names = true;	/* read anyway: names cost nothing */
		else
			in->e.ev[k].trigger_only = true;
	}
}

/*
 * Profile clause ci reads kernel memory, which a perf sample does not
 * carry: it becomes a clause of an eprobe on timer:hrtimer_expire_entry
 * whose fetch arguments are its reads, and whose filter keeps the expiries
 * of perf's cpu-clock timer, perf_swevent_hrtimer — the interrupt in which
 * the sampler takes each sample, on its CPU, with the interrupted task as
 * current (pid, comm, cpu are the event's).  The sampler is still opened
 * (prof_arm): its events arm the timers at the clause's rate.
 */

static int hrprof_clause(struct interp *in, int ci, struct lang_err *err)
{
	struct clause *c = &in->p->cl[ci];
	struct typed_out *t = &in->typed[ci];
	int n = 0;

	for (int i = 0; i < ci; i++)
		n += in->hrprof[i];
	if (n == HRPROF_MAX) {
		lang_errf(err, &(struct node){ .line = c->line, .col = c->col },
			  "more than %d profile clauses read kernel memory", HRPROF_MAX);
		return -EINVAL;
	}
	if (t->n == TYPED_MAX_FIELDS) {
		lang_errf(err, &(struct node){ .line = c->line, .col = c->col },
			  "too many memory reads for one probe (%d)", TYPED_MAX_FIELDS - 1);
		return -EINVAL;
	}
	t->f[t->n] = (struct typed_field){ .name = "ftr_hrfn", .fetch = "$function",
					   .type = "u64" };
	t->n++;
	for (int j = 0; j < c->nprobes; j++) {
		char *tgt = strdup(STRFETCH_HRPROF_TP);

		if (!tgt)
			return -ENOMEM;
		free(c->probes[j].target);
		c->probes[j].target = tgt;
		c->probes[j].pv = PV_TRACEPOINT;
	}
	in->hrprof[ci] = true;
	planf(in, "clause %d: %s reads kernel memory: its events are an eprobe on %s, the "
	      "expiries of perf's cpu-clock timer (function == perf_swevent_hrtimer, "
	      "0x%llx), in the interrupt that takes each sample\n", ci + 1, c->probes[0].text,
	      STRFETCH_HRPROF_TP, (unsigned long long)in->hrfn);
	return 0;
}

/* fetchargs.h's typed_cur: where the running task is on this kernel. */
static int locate_current(void *ctx, struct kallsyms_current *loc, char *why, size_t wlen)
{
	(void)ctx;
	return kallsyms_current(arch_name(), loc, why, wlen);
}

int compile(struct interp *in, struct lang_err *err)
{
	/* (a recording holds no per-CPU reads of it) */
	struct typed_cur cur = { .locate = in->e.o.file_tep ? NULL : locate_current };
	int ret, removed;

	in->typed = calloc(in->p->ncl, sizeof(*in->typed));
	in->hrprof = calloc(in->p->ncl, sizeof(*in->hrprof));
	if (!in->typed || !in->hrprof)
		return -ENOMEM;
	for (int ci = 0; ci < in->p->ncl; ci++) {
		enum probe_provider pv = in->p->cl[ci].probes[0].pv;

		struct_vars(&in->p->cl[ci]);

		if (pv <= PV_URETPROBE &&
		    str_stores(in, in->p->cl[ci].body, pv == PV_UPROBE || pv == PV_URETPROBE,
			       true) < 0)
			return -ENOMEM;
	}
	for (int ci = 0; ci < in->p->ncl; ci++) {
		const struct clause *c = &in->p->cl[ci];
		struct tp_fields tf = { .in = in, .c = c };
		char why[200] = "", sys[256] = "", ev[256];
		struct typed_tp tp = { .why = why, .field_type = tp_field_type, .ctx = &tf };

		/* A tracepoint's fields are read through by an eprobe on it;
		 * a syscall's are user addresses. */
		if (c->probes[0].pv == PV_TRACEPOINT) {
			tp.eprobes = in->e.s && !in->e.o.file_tep &&
				     strfetch_eprobes(&in->e.feat, why, sizeof(why));
			if (in->e.o.file_tep)
				snprintf(why, sizeof(why), "a recording holds no eprobe for it");
			else if (!in->e.s)
				snprintf(why, sizeof(why), "no tracefs to put an eprobe in");
			evsel_split(c->probes[0].target, sys, sizeof(sys), ev, sizeof(ev));
			tp.user = !strcmp(sys, "syscalls");
		}
		/* (before typed_compile rewrites its casts) */
		bool hr = prof_reads_memory(c);

		if (hr) {
			const struct node *f = node_find(c->pred, is_field);

			if (!f)
				f = node_find(c->body, is_field);
			if (f) {
				lang_errf(err, f, "args: a profile probe has no arguments");
				return -EINVAL;
			}
			tp.eprobes = strfetch_hrprof(&in->e, &in->hrfn, why, sizeof(why));
		}
		if (typed_compile(&in->types, in->p, ci, arch_name(), in->e.feat.probe_syntax,
				  c->probes[0].pv == PV_TRACEPOINT || hr ? &tp : NULL, &cur,
				  &in->typed[ci], err))
			return -EINVAL;
		if (hr && in->typed[ci].n) {
			ret = hrprof_clause(in, ci, err);
			if (ret < 0)
				return ret;
		}
		if (in->typed[ci].n)
			planf(in, "clause %d: memory read at the event by fetch arguments "
			      "(types from %s):\n%s", ci + 1,
			      in->types && ctypes_btf_source(in->types) ?
			      ctypes_btf_source(in->types) : "the program", in->typed[ci].explain);
	}
	for (int ci = 0; ci < in->p->ncl; ci++) {
		enum probe_provider pv = in->p->cl[ci].probes[0].pv;

		if (str_stores(in, in->p->cl[ci].body, pv == PV_UPROBE || pv == PV_URETPROBE,
			       false) < 0)
			return -ENOMEM;
	}

	for (int ci = 0; ci < in->p->ncl; ci++)
		if (value_types(in, in->p->cl[ci].body, err))
			return -EINVAL;

	for (int ci = 0; ci < in->p->ncl; ci++) {
		ret = add_clause_events(in, ci, err);
		if (ret < 0)
			return ret;
	}
	ret = name_events_add(in);
	if (ret < 0)
		return ret;
	if (in->e.nev) {
		ret = engine_load_formats(&in->e);
		if (ret < 0)
			return ret;
	}
	for (int k = 0; k < in->e.nev; k++) {
		in->eb[k].pid = tep_find_common_field(in->e.ev[k].ev, "common_pid");
		in->eb[k].comm = tep_find_field(in->e.ev[k].ev, "ftr_comm");
	}
	for (int i = 0; in->read_names && i < 2; i++) {
		struct tep_event *ev;

		if (in->names[i].idx < 0)
			continue;
		ev = in->e.ev[in->names[i].idx].ev;
		in->names[i].name = tep_find_field(ev, name_srcs[i].namef);
		in->names[i].pid = tep_find_field(ev, name_srcs[i].pidf);
		/* (a kernel whose task_rename has no pid field renames current) */
		if (!in->names[i].pid && i == 0)
			in->names[i].pid = tep_find_common_field(ev, "common_pid");
	}

	in->stack_dflt = stack_mode_env(in->p);
	if (in->stack_dflt < 0)
		in->stack_dflt = LANG_STACK_BPFTRACE;	/* refused where a stack is */
	removed = 0;
	for (int ci = 0; ci < in->p->ncl; ci++) {
		struct clause *c = &in->p->cl[ci];
		struct sema s = { .in = in, .clause = ci, .c = c, .err = err };
		enum probe_provider pv = c->probes[0].pv;

		for (int j = 1; j < c->nprobes; j++) {
			bool rec_a = pv <= PV_URETPROBE, rec_b = c->probes[j].pv <= PV_URETPROBE;

			if (rec_a != rec_b) {
				err->line = c->probes[j].line;
				err->col = c->probes[j].col;
				snprintf(err->msg, sizeof(err->msg), "a clause cannot mix event probes "
					 "with %s", rec_a ? "BEGIN/END/interval" : "event probes");
				return -EINVAL;
			}
		}
		for (int j = 1; j < c->nprobes; j++) {
			if ((pv == PV_PROFILE) != (c->probes[j].pv == PV_PROFILE)) {
				err->line = c->probes[j].line;
				err->col = c->probes[j].col;
				snprintf(err->msg, sizeof(err->msg), "a clause cannot mix profile "
					 "probes with other probes");
				return -EINVAL;
			}
		}
		s.has_record = pv <= PV_URETPROBE;
		s.is_profile = pv == PV_PROFILE;
		s.is_begin_end = pv == PV_BEGIN || pv == PV_END;
		s.is_ret = pv == PV_KRETPROBE || pv == PV_URETPROBE;
		s.is_kprobe = pv == PV_KPROBE || pv == PV_KRETPROBE;
		s.is_uprobe = pv == PV_UPROBE || pv == PV_URETPROBE;
		ret = clause_events(in, ci, &s.evs);
		if (ret < 0)
			return ret;
		s.nev = ret;
		if (s.has_record && s.nev == 0 && in->p->missing_probes) {
			/* all its probes skipped: the clause never runs, yet its
			 * maps' types are checked as far as they can be without
			 * an event (a map it alone stores, read elsewhere) */
			if (!(c->pred ? check_cond(&s, c->pred) : 0))
				check_stmts(&s, c->body);
			free(s.evs);
			err->msg[0] = '\0';
			if (in->p->missing_probes == LANG_MISSING_WARN && !ftr_no_warnings)
				ftr_err("%d:%d: WARNING: Probe has no valid attach points. It is being "
					"removed which may cause issues with program behavior.",
					c->line, c->col);
			removed++;
			continue;
		}
		if (s.has_record && s.nev == 0) {
			free(s.evs);
			err->line = c->probes[0].line;
			err->col = c->probes[0].col;
			snprintf(err->msg, sizeof(err->msg), "no event for '%s'%s", c->probes[0].text,
				 c->nprobes > 1 ? ": none of the clause's probes exists here (the "
				 "notes above say why)" : "");
			return -ENOENT;
		}
		ret = c->pred ? check_cond(&s, c->pred) : 0;
		if (!ret)
			ret = check_stmts(&s, c->body);
		free(s.evs);
		if (ret)
			return ret;
	}
	if (removed && removed == in->p->ncl) {
		err->line = in->p->cl[0].line;
		err->col = in->p->cl[0].col;
		snprintf(err->msg, sizeof(err->msg), "No probes to attach");
		return -ENOENT;
	}
	for (int i = 0; i < in->p->nmdecls; i++)
		if (!map_find(in, in->p->mdecls[i].name) && !ftr_no_warnings)
			ftr_err("%d:%d: WARNING: Unused map: %s", in->p->mdecls[i].line,
				in->p->mdecls[i].col, in->p->mdecls[i].name);
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];
		const struct lang_mapdecl *d = lang_mapdecl_of(in->p, m->name);
		struct agg_spec spec = { .name = m->name, .kind = m->kind, .nkeys = m->nkeys,
					 .lmin = m->lmin, .lmax = m->lmax, .lstep = m->lstep,
					 .hist_k = m->kind == AGG_HIST ? (int)m->lstep : 0,
					 .size = d ? d->max : in->o->map_size,
					 .lru = d && (d->type == LM_LRUHASH ||
						      d->type == LM_PERCPULRUHASH),
					 .ts = { (uint64_t)m->lmin, (uint32_t)m->lmax,
						 (enum agg_ts_fn)m->lstep, false } };

		if (!m->has_kind) {
			lang_errf(err, m->first, "%s is read but never assigned", m->name);
			return -EINVAL;
		}
		memcpy(spec.ktypes, m->kt, sizeof(spec.ktypes));
		m->m = agg_alloc(&spec);
		if (!m->m) {
			lang_errf(err, m->first, "cannot make map %s: %s", m->name, strerror(errno));
			return -ENOMEM;
		}
	}
	return 0;
}

