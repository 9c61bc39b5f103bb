// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The language: semantic pass and interpreter (see interp.h).
 *
 * A program runs on the engine: its tracepoint and probe clauses become
 * engine events, each event knows the clauses it feeds, and each record is
 * run through them.  A predicate that only reads event fields is handed to
 * the engine as the event's filter (plan.c), which puts it in the kernel
 * when the kernel can evaluate it, so that the record never reaches us.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <event-parse.h>

#include "lang/agg.h"
#include "kernel/comm.h"
#include "kernel/engine.h"
#include "kernel/evsel.h"
#include "kernel/kallsyms.h"
#include "ftr.h"
#include "filter/expr.h"
#include "lang/interp.h"
#include "lang/intern.h"
#include "kernel/kcore.h"
#include "kernel/khist.h"
#include "lang/lprof.h"
#include "lang/dynprobe.h"
#include "perf/perf.h"
#include "lang/lang.h"
#include "lang/plan.h"
#include "lang/prom.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "lang/strfetch.h"
#include "report/serve.h"
#include "lang/ctypes.h"
#include "lang/typed.h"
#include "kernel/arch.h"
#include "report/sym.h"
#include "report/tdat.h"
#include <tracefs.h>

#define MAX_VARS 64
#define PRINTF_GUARD_RATE 5000		/* printf/s in a program's first quarter second */
/* The frames of an event's kstack: as many as a hist trigger's stacktrace
 * key holds (HIST_STACKTRACE_DEPTH), so that both paths give one answer. */
#define EVENT_KSTACK_MAX 16
/* Strings and stacks kept as map values: bounded, as maps are. */
#define INTERN_MAX (1u << 20)
#define INTERN_MAX_BYTES ((size_t)64 << 20)
/* Measured on arm64 6.1: a hist trigger's stacktrace key at sched_switch
 * starts at schedule (or do_task_dead), one frame above __schedule, where
 * x86 starts at __schedule: the kernel skips a fixed number of frames,
 * counted for x86's unwinder.  The user path keeps that frame, so on arm64
 * stack keys stay there, and both paths still give one answer. */
#if defined(__aarch64__)
#define KSTACK_HIST_SHORT 1
#else
#define KSTACK_HIST_SHORT 0
#endif

/* A map aggregated by hist triggers, one per event of its clause. */
enum kkey { KK_COMM, KK_TID, KK_FIELD, KK_PROBE, KK_FUNC, KK_STACK, KK_SYM, KK_SYMOFF };

struct ktrig {
	struct eng_event *ev;
	const char *sys, *name;		/* the event the trigger is on: ev's, or
					 * raw_syscalls' for a fold (sys_fold) */
	int fold;			/* a fold: the clause's index + 1, else 0 */
	const char *fold_prefix;	/* a fold's "sys_enter_" or "sys_exit_" */
	struct khist_cmd cmd;
	struct tep_format_field *kf[AGG_MAX_KEYS];	/* KK_FIELD and KK_SYM* keys */
	struct tep_format_field *vf;			/* the value field, or NULL */
};

struct kmap {
	int nkeys;
	enum kkey kk[AGG_MAX_KEYS];
	bool value_is_key;		/* hist/lhist: the raw value is the last key */
	struct ktrig *t;
	int nt;
};

/* A keyless (or per-CPU) count kept by perf tracepoint counters: exact, no
 * ring buffer, where the kernel has no hist triggers. */
struct pcount {
	bool by_cpu;
	const char *fixed;		/* the comm a filter fixes the only key to, or NULL */
	struct eng_event *ev[64];
	char filter[64][2048];
	int nev;
	int fds[4096];
	int fd_cpu[4096];
	int nfds;
	/* clear(): a counter cannot be reset without losing the events that
	 * come between its read and the reset, so the map is each counter's
	 * value less its value at the last clear (base).  raw holds the values
	 * read once per clause run (snap_run): print(@); clear(@) then print
	 * and clear at one instant, and no event falls between the two. */
	uint64_t raw[4096];
	uint64_t base[4096];
	uint64_t snap_run;
};

struct mapdef {
	char *name;
	struct kmap *k;			/* in the kernel, or NULL */
	struct pcount *pc;		/* in perf counters, or NULL */
	int refs;			/* how many places name it */
	bool planned;			/* the plan says where it runs */
	enum agg_kind kind;
	int nkeys;
	enum agg_ktype kt[AGG_MAX_KEYS];
	int64_t lmin, lmax, lstep;
	bool has_kind, keys_known;
	bool cleared;			/* clear() or zero() names it somewhere */
	bool zeroed;			/* zero() names it: its keys stay, at 0 */
	bool read_at_event;		/* print() or clear() of it at an event */
	bool str_at_store;		/* str(@m[k]) of a pointer: the string, fetched
					 * where the pointer is stored (str_stores) */
	enum vtype vt;			/* what a plain store keeps: VT_INT, or a
					 * string or stack interned (VT_STR/STACK) */
	const struct node *first;
	struct agg *m;
	int stack_mode;			/* a stack key's kstack(perf|raw) mode */
};

/* What one engine event needs to run its clauses. */
struct evbind {
	int *clauses;			/* as many as the program has */
	int ncl, cap;
	char probe[256];		/* the `probe` builtin */
	char func[128];			/* the `func` builtin */
	struct tep_format_field *pid;
	struct tep_format_field *comm;	/* ftr_comm: the kprobe/uprobe's $comm */
	bool pred_pushed;		/* its clause's predicate is the event filter */
	bool hrprof;			/* a profile clause's eprobe (hrprof_clause) */
};

struct val {
	enum vtype t;
	int64_t i;
	bool u;			/* an unsigned 64-bit number (a u64 field, or computed from one) */
	const char *s;
	size_t len;			/* VT_STR: bytes; VT_STACK: frames */
	const uint64_t *ips;		/* VT_STACK */
};

struct interp {
	struct program *p;
	const struct run_opts *o;
	struct engine e;
	struct mapdef maps[64];
	int nmaps;
	struct evbind *eb;
	/* The events read for the names tasks take (exec_comm): task_rename
	 * at exec or prctl, sched_process_fork for a new task; each one's
	 * event index (-1: not read), name and pid fields. */
	bool exec_comm;
	struct name_src {
		int idx;
		struct tep_format_field *name, *pid;
	} names[2];
	int nvars[256];			/* scratch variables per clause */
	char *varnames[256][MAX_VARS];
	struct val vars[MAX_VARS];
	unsigned char varwidth[MAX_VARS];	/* bytes of what a variable holds (bswap) */
	struct outbuf ob;
	struct lang_err err;
	bool exit_req;
	uint64_t start_ns;
	uint64_t *next_fire;		/* per clause, for interval clauses */
	uint64_t printfs;
	bool guard_checked;
	bool guard_tripped;
	char plan[4096];
	size_t planlen;
	/* profile:hz:N */
	unsigned prof_hz;
	const struct lang_probe *prof_pr;	/* the sampler's probe (profile:, software:...) */
	bool prof_k, prof_u;		/* kstack / ustack read somewhere */
	struct lprof *prof;
	uint64_t ustk[1 + LPROF_MAX_FRAMES];	/* a ustack key: its tag, then frames */
	struct intern *vals;		/* strings and stacks kept as map values */
	char *fetch_why[256];		/* per clause: why str() cannot fetch (strfetch.h) */
	struct tenv *types;		/* C types (ctypes.h), opened on first need */
	struct typed_out *typed;	/* per clause: the fetchargs of its typed reads */
	/* per clause: a profile:hz clause that reads kernel memory, run on an
	 * eprobe on the sampler's timer interrupt (strfetch_hrprof) */
	bool *hrprof;
	uint64_t hrfn;			/* perf_swevent_hrtimer, the eprobe's filter */
	uint64_t runs;			/* clause runs so far: a perf counter's snapshot */
	bool exit_at_event;		/* an event clause calls exit() */
	struct ksyms *ks;		/* for ksym(), loaded when a program uses it */
	int ks_err;
	bool ks_warned;
	/* --serve, --prom-file: the maps as metrics */
	struct prom *prom;
	struct prom_map pmaps[64];
	char *phelp[64];
	char plabels[64][AGG_MAX_KEYS][64];
	struct serve *srv;
	struct outbuf *pob;
	uint64_t prom_next;
	bool prom_warned;
	struct kcore *kc;		/* *kaddr("sym") in BEGIN/END/interval */
	bool kc_warned;
	struct outbuf *fmt;		/* system() and cat(): their formatted text */
};

static void planf(struct interp *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void planf(struct interp *in, const char *fmt, ...)
{
	va_list ap;

	if (in->planlen >= sizeof(in->plan))
		return;
	va_start(ap, fmt);
	in->planlen += vsnprintf(in->plan + in->planlen, sizeof(in->plan) - in->planlen, fmt, ap);
	va_end(ap);
}

/* ---- semantic pass --------------------------------------------------------- */

static struct mapdef *map_get(struct interp *in, const char *name)
{
	for (int i = 0; i < in->nmaps; i++)
		if (!strcmp(in->maps[i].name, name))
			return &in->maps[i];
	if (in->nmaps == (int)ARRAY_SIZE(in->maps))
		return NULL;
	in->maps[in->nmaps].name = strdup(name);
	return &in->maps[in->nmaps++];
}

static int agg_of(const char *call)
{
	static const struct {
		const char *n;
		enum agg_kind k;
	} t[] = {
		{ "count", AGG_COUNT }, { "sum", AGG_SUM }, { "avg", AGG_AVG }, { "min", AGG_MIN },
		{ "max", AGG_MAX }, { "stats", AGG_STATS }, { "hist", AGG_HIST },
		{ "lhist", AGG_LHIST },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(call, t[i].n))
			return t[i].k;
	return -1;
}

struct sema {
	struct interp *in;
	int clause;
	const struct clause *c;
	struct eng_event **evs;		/* the clause's events */
	int nev;
	bool is_ret, is_kprobe, is_uprobe, has_record, is_profile;
	bool buf_ok;			/* checking an argument of printf */
	struct lang_err *err;
};

static int check(struct sema *s, struct node *n);

/* ksym(addr), ksymoff(addr): the kernel symbol of an address, as a string;
 * hex(x): x, a map key shown in hex. */
static bool is_sym_call(const struct node *n)
{
	return n->k == N_CALL && (!strcmp(n->sval, "ksym") || !strcmp(n->sval, "ksymoff"));
}

static bool is_hex_call(const struct node *n)
{
	return n->k == N_CALL && !strcmp(n->sval, "hex");
}

#define KSYM_TEXT 256

static int fields_of(struct tep_event *ev, char *buf, size_t len)
{
	struct tep_format_field **f = tep_event_fields(ev);
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; f && f[i]; i++)
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%s", i ? ", " : "",
				f[i]->name);
	free(f);
	return 0;
}

/* A node's fields, per fields for each engine event, in n->bind. */
static struct tep_format_field **field_table(struct sema *s, struct node *n, size_t per)
{
	struct tep_format_field **tab = calloc((size_t)(s->in->e.nev ? s->in->e.nev : 1) * per,
					       sizeof(*tab));

	if (tab) {
		free(n->bind);
		n->bind = tab;
	}
	return tab;
}

/* An address field: u8[4] or u8[16] in every event of the clause (which
 * libtraceevent flags a string, as it does any u8 array). */
static bool addr_field(const struct sema *s, const struct node *n)
{
	if (n->k != N_FIELD || !s->nev)
		return false;
	for (int i = 0; i < s->nev; i++) {
		const struct tep_format_field *f = tep_find_any_field(s->evs[i]->ev, n->sval);

		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
		    (f->size != 4 && f->size != 16))
			return false;
	}
	return true;
}

/* The size in bytes of an integer expression's type: a field's, a cast's,
 * a variable's (what was last stored in it), a conditional's wider branch,
 * else 8. */
static int int_width(const struct sema *s, const struct node *n)
{
	if (n->k == N_FIELD && s->nev) {
		const struct tep_format_field *f = tep_find_any_field(s->evs[0]->ev, n->sval);

		if (f && (f->size == 1 || f->size == 2 || f->size == 4))
			return f->size;
	} else if (n->k == N_VAR && n->slot >= 0 && s->in->varwidth[n->slot]) {
		return s->in->varwidth[n->slot];
	} else if (n->k == N_CAST && n->ival >= 1 && n->ival <= 8) {
		return (int)n->ival;	/* (uint16)x: ival bytes */
	} else if (n->k == N_TERNARY) {
		/* typed.c's NULL guard (p ? read : 0): the read's width. */
		int a = int_width(s, n->b),
		    c = n->c->k == N_INT && !n->c->ival ? 1 : int_width(s, n->c);

		return a > c ? a : c;
	} else if (n->k == N_CALL && n->type == VT_INT && !strcmp(n->sval, "bswap")) {
		return n->idx;
	} else if (n->k == N_CALL && n->type == VT_INT && n->idx >= 8 && n->idx <= 64 &&
		   n->op && (n->op == T_MINUS || n->op == T_PLUS)) {
		return n->idx / 8;	/* int16(), (uint16) ... */
	}
	return 8;
}

static int check_field(struct sema *s, struct node *n)
{
	struct tep_format_field **tab;
	enum vtype t = VT_NONE;

	if (!s->has_record) {
		lang_errf(s->err, n, "args.%s: this probe has no event fields", n->sval);
		return -EINVAL;
	}
	tab = field_table(s, n, 1);
	if (!tab)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++) {
		struct tep_event *ev = s->evs[i]->ev;
		struct tep_format_field *f = tep_find_any_field(ev, n->sval);
		enum vtype ft;

		if (!f) {
			char list[384];

			fields_of(ev, list, sizeof(list));
			lang_errf(s->err, n, "unknown field '%s' in %s:%s (fields: %s)", n->sval,
				  ev->system, ev->name, list);
			return -EINVAL;
		}
		tab[s->evs[i]->idx] = f;
		n->int_in_long |= field_kind(f) == FK_INT_IN_LONG;
		ft = field_is_string(f) ? VT_STR : VT_INT;
		if (t != VT_NONE && ft != t) {
			lang_errf(s->err, n, "field '%s' is a string in some events of this probe "
				  "and a number in others", n->sval);
			return -EINVAL;
		}
		t = ft;
	}
	n->type = t;
	return 0;
}

static int var_slot(struct sema *s, const char *name, bool create)
{
	int c = s->clause;

	for (int i = 0; i < s->in->nvars[c]; i++)
		if (!strcmp(s->in->varnames[c][i], name))
			return i;
	if (!create || s->in->nvars[c] == MAX_VARS)
		return -1;
	s->in->varnames[c][s->in->nvars[c]] = strdup(name);
	return s->in->nvars[c]++;
}

static enum agg_ktype ktype_of(const struct node *n)
{
	return n->type == VT_STR ? AGG_K_STR : n->type == VT_STACK ? AGG_K_STACK :
	       is_hex_call(n) ? AGG_K_HEX : AGG_K_INT;
}

/* Keys of one map agree in kind: strings, stacks or numbers (hex()
 * numbers are numbers too). */
static int kclass(enum agg_ktype kt)
{
	return kt == AGG_K_STR ? 0 : kt == AGG_K_STACK ? 1 : 2;
}

static const char *ktype_name(enum agg_ktype kt)
{
	return kt == AGG_K_STR ? "string" : kt == AGG_K_STACK ? "stack" : "number";
}

static int check_map_keys(struct sema *s, struct node *n)
{
	struct mapdef *m = map_get(s->in, n->sval);

	if (!m) {
		lang_errf(s->err, n, "too many maps (ftr keeps %d)", (int)ARRAY_SIZE(s->in->maps));
		return -EINVAL;
	}
	n->slot = (int)(m - s->in->maps);
	m->refs++;
	for (int i = 0; i < n->nargs; i++) {
		int err = check(s, n->args[i]);

		if (err)
			return err;
		if (n->args[i]->type != VT_INT && n->args[i]->type != VT_STR &&
		    n->args[i]->type != VT_STACK) {
			lang_errf(s->err, n->args[i], "a map key must be a number, a string or a "
				  "stack");
			return -EINVAL;
		}
	}
	if (!m->keys_known) {
		if (n->nargs > AGG_MAX_KEYS) {
			lang_errf(s->err, n, "at most %d keys", AGG_MAX_KEYS);
			return -EINVAL;
		}
		m->nkeys = n->nargs;
		for (int i = 0; i < n->nargs; i++) {
			m->kt[i] = ktype_of(n->args[i]);
			if (n->args[i]->k == N_BUILTIN && n->args[i]->type == VT_STACK)
				m->stack_mode = (int)n->args[i]->op;
		}
		m->keys_known = true;
		m->first = n;
		return 0;
	}
	if (m->nkeys != n->nargs) {
		lang_errf(s->err, n, "%s has %d key%s here but %d at %d:%d", m->name, n->nargs,
			  n->nargs == 1 ? "" : "s", m->nkeys, m->first->line, m->first->col);
		return -EINVAL;
	}
	for (int i = 0; i < n->nargs; i++) {
		enum agg_ktype kt = ktype_of(n->args[i]);

		if (kclass(kt) != kclass(m->kt[i])) {
			lang_errf(s->err, n->args[i], "key %d of %s is a %s here but a %s at %d:%d",
				  i + 1, m->name, ktype_name(kt), ktype_name(m->kt[i]),
				  m->first->line, m->first->col);
			return -EINVAL;
		}
	}
	return 0;
}

static bool is_const(const struct node *n, int64_t *v)
{
	if (n->k == N_INT) {
		*v = n->ival;
		return true;
	}
	if (n->k == N_UNOP && n->op == T_MINUS && n->a->k == N_INT) {
		*v = -n->a->ival;
		return true;
	}
	return false;
}

static int set_kind(struct sema *s, struct node *map, struct node *rhs)
{
	struct mapdef *m = &s->in->maps[map->slot];
	int kind = rhs->k == N_CALL ? agg_of(rhs->sval) : -1;
	int64_t lmin = 0, lmax = 0, lstep = 0;

	if (kind < 0)
		kind = AGG_VALUE;
	if (kind == AGG_LHIST) {
		if (rhs->nargs != 4 || !is_const(rhs->args[1], &lmin) ||
		    !is_const(rhs->args[2], &lmax) || !is_const(rhs->args[3], &lstep) ||
		    lstep <= 0 || lmax <= lmin) {
			lang_errf(s->err, rhs, "lhist(value, min, max, step) needs numbers with "
				  "min < max and step > 0");
			return -EINVAL;
		}
	}
	if (m->has_kind && (m->kind != (enum agg_kind)kind ||
			    (kind == AGG_LHIST && (m->lmin != lmin || m->lmax != lmax ||
						   m->lstep != lstep)))) {
		lang_errf(s->err, rhs, "%s is used two ways (first at %d:%d)", m->name,
			  m->first->line, m->first->col);
		return -EINVAL;
	}
	m->kind = kind;
	m->lmin = lmin;
	m->lmax = lmax;
	m->lstep = lstep;
	m->has_kind = true;
	return 0;
}

static int check_sym_call(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "%s() takes a number", n->sval);
		return -EINVAL;
	}
	if (is_hex_call(n)) {
		n->type = VT_INT;
		return 0;
	}
	/* The symbol's text lives here until the next event. */
	free(n->bind);
	n->bind = malloc(KSYM_TEXT);
	if (!n->bind)
		return -ENOMEM;
	if (!s->in->ks && !s->in->ks_err)
		s->in->ks_err = ksyms_load(NULL, &s->in->ks);
	n->type = VT_STR;
	return 0;
}

/* bpftrace's functions that need BPF: each refused with what the kernel
 * lacks without it. */
static const struct {
	const char *name, *why;
} no_bpf[] = {
	{ "signal", "sends a signal from inside the kernel at the event (bpf_send_signal); "
	  "ftr reads events after they happened, when the signal would come too late" },
	{ "override", "changes a function's return value at the event (bpf_override_return); "
	  "kprobe events only observe" },
	{ "kptr", "marks kernel memory for a BPF read at the event; ftr reads no memory "
	  "through pointers at events (kprobe fetchargs read fixed offsets: ftr trace)" },
	{ "uptr", "marks user memory for a BPF read at the event; ftr reads user strings at "
	  "syscalls with str(args.F) only" },
	{ "reg", "reads a register in a BPF program; ftr's kprobes read argN and retval only" },
	{ "uaddr", "resolves a user symbol's address for a BPF read at the event" },
	{ "path", "needs bpf_d_path, which only BPF programs can call" },
	{ "macaddr", "reads memory at the event (a BPF read)" },
	{ "cgroupid", "needs a BPF helper (the kernel's cgroup ids are not in events)" },
	{ "cgroup_path", "needs a BPF helper (the kernel's cgroup ids are not in events)" },
	{ "skboutput", "writes packets through BPF's perf output" },
	{ "percpu_kaddr", "reads a per-CPU variable at the event (a BPF read)" },
	{ "printk", "writes through bpf_trace_printk" },
	{ "debugf", "writes through bpf_trace_printk" },
};

/* ... and the ones ftr has not yet. */
static const char *const not_yet[] = { "pton", "len", "strcontains", "has_key",
				       "socket_cookie", "errorf", "warnf" };

/* kstack(N), kstack(perf), ustack(bpftrace, N): the builtin, N frames at
 * most, printed in that mode. */
static int check_stack_call(struct sema *s, struct node *n)
{
	int mode = 0, limit = 0;

	for (int i = 0; i < n->nargs; i++) {
		const struct node *a = n->args[i];

		if (i == 0 && a->k == N_STR && a->idx == -1) {
			mode = !strcmp(a->sval, "perf") ? 1 : !strcmp(a->sval, "raw") ? 2 : 0;
		} else if (a->k == N_INT && a->ival > 0 && i == n->nargs - 1) {
			limit = a->ival > AGG_STACK_MAX ? AGG_STACK_MAX : (int)a->ival;
		} else {
			lang_errf(s->err, a, "%s(): takes a mode (bpftrace, perf, raw) and a number "
				  "of frames, e.g. %s(perf, 5)", n->sval, n->sval);
			return -EINVAL;
		}
	}
	n->k = N_BUILTIN;
	n->ival = strcmp(n->sval, "kstack") ? B_USTACK : B_KSTACK;
	n->idx = limit;
	n->op = (enum tok)mode;
	return check(s, n);
}

/* printf, system, cat: a literal format, its conversions against the
 * arguments, checked now rather than per event. */
static int check_printf(struct sema *s, struct node *n)
{
	if (n->args[0]->k != N_STR) {
		lang_errf(s->err, n->args[0], "%s's format must be a string literal", n->sval);
		return -EINVAL;
	}
	/* Count the conversions against the arguments now, not per event. */
	int conv = 0;

	for (const char *p = n->args[0]->sval; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		conv++;
		p += strspn(p + 1, "-+ #0123456789.hlzjt");
		if (!p[1] || !strchr("diuxXoscpr", p[1])) {
			lang_errf(s->err, n->args[0], "%s: bad conversion in \"%s\"",
				  n->sval, n->args[0]->sval);
			return -EINVAL;
		}
		if (conv < n->nargs) {
			bool want_str = p[1] == 's', want_buf = p[1] == 'r';
			enum vtype t = n->args[conv]->type;

			if ((want_str && t != VT_STR && t != VT_STACK) || (want_buf && t != VT_BUF) ||
			    (!want_str && !want_buf && t != VT_INT)) {
				lang_errf(s->err, n->args[conv], "printf: %%%c needs a %s%s",
					  p[1], want_buf ? "buffer (buf())" : want_str ? "string" :
					  "number", t == VT_BUF ? ", not a buffer (buf() is printed "
					  "with %r)" : "");
				return -EINVAL;
			}
		}
	}
	if (conv != n->nargs - 1) {
		lang_errf(s->err, n, "printf: %d conversion%s for %d argument%s", conv,
			  conv == 1 ? "" : "s", n->nargs - 1, n->nargs == 2 ? "" : "s");
		return -EINVAL;
	}
	n->type = VT_NONE;
	return 0;
}

/* A call whose string result lives in a buffer of its node until the
 * next event. */
static int text_buffer(struct node *n, size_t len)
{
	free(n->bind);
	n->bind = malloc(len);
	if (!n->bind)
		return -ENOMEM;
	n->type = VT_STR;
	return 0;
}

/*
 * join(args.F[, delim]): F is a char ** (execve's argv).  strfetch.c put
 * an eprobe or kprobe in the tracepoint's place that fetches F[0]..F[15]
 * as strings F_0..F_15; their table per event is n->bind.
 */
static int check_join(struct sema *s, struct node *n)
{
	struct node *a = n->args[0];
	struct tep_format_field **tab;

	if (a->k != N_FIELD || !s->has_record || s->is_uprobe || s->is_kprobe) {
		lang_errf(s->err, n, "join() takes a char ** field of a tracepoint: "
			  "join(args.argv)");
		return -EINVAL;
	}
	if (n->nargs == 2 && n->args[1]->k != N_STR) {
		lang_errf(s->err, n->args[1], "join's delimiter must be a string literal");
		return -EINVAL;
	}
	tab = field_table(s, n, PLAN_JOIN_MAX);
	if (!tab)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++) {
		struct tep_event *ev = s->evs[i]->ev;

		for (int k = 0; k < PLAN_JOIN_MAX; k++) {
			char name[80];
			struct tep_format_field *f;

			snprintf(name, sizeof(name), "%s_%d", a->sval, k);
			f = tep_find_field(ev, name);
			if (!f || !field_is_string(f)) {
				lang_errf(s->err, n, "join(args.%s): the kernel records a char ** "
					  "argument as an address and copies none of its strings; %s",
					  a->sval, s->clause < 256 && s->in->fetch_why[s->clause] ?
					  s->in->fetch_why[s->clause] : tep_find_field(ev, a->sval) ?
					  "nothing on this kernel can fetch them (eprobe events, or "
					  "kprobe events at the syscall's entry, would)" :
					  "this event has no such field");
				return -EINVAL;
			}
			tab[(size_t)s->evs[i]->idx * PLAN_JOIN_MAX + k] = f;
		}
	}
	n->type = VT_NONE;
	return 0;
}

/* kaddr("sym"): the address of a kernel symbol, known now. */
static int check_kaddr(struct sema *s, struct node *n)
{
	struct interp *in = s->in;
	uint64_t addr;
	int err;

	if (n->args[0]->k != N_STR) {
		lang_errf(s->err, n->args[0], "kaddr() takes a symbol's name as a string literal");
		return -EINVAL;
	}
	err = kallsyms_find(n->args[0]->sval, &addr);
	if (err == -EPERM) {
		lang_errf(s->err, n, "kaddr(\"%s\"): /proc/kallsyms hides kernel addresses "
			  "(kptr_restrict=%d%s): %s", n->args[0]->sval, in->e.feat.kptr_restrict,
			  geteuid() ? ", not root" : "", kptr_remedy(in->e.feat.kptr_restrict));
		return -EINVAL;
	}
	if (err < 0) {
		lang_errf(s->err, n->args[0], "kaddr(\"%s\"): %s", n->args[0]->sval,
			  err == -ENOENT ? "no such symbol in /proc/kallsyms (a kernel built "
			  "without CONFIG_KALLSYMS_ALL lists no variables)" : strerror(-err));
		return -EINVAL;
	}
	n->ival = (int64_t)addr;
	n->type = VT_INT;
	return 0;
}

/* *ADDR: kernel memory now, from /proc/kcore: in BEGIN, END and interval
 * clauses only, where "now" is what the program means. */
static int check_deref(struct sema *s, struct node *n)
{
	char why[320];

	if (s->has_record || s->is_profile) {
		lang_errf(s->err, n, "*: reading kernel memory at an event needs BPF (a read at "
			  "the moment of the event); ftr reads events after they happened.  In "
			  "BEGIN, END and interval clauses ftr reads it from /proc/kcore; at a "
			  "kprobe or uprobe, a typed read (*(TYPE *)arg0) is made by the kernel");
		return -EINVAL;
	}
	if (!s->in->kc && kcore_open(NULL, &s->in->kc, why, sizeof(why)) < 0) {
		lang_errf(s->err, n, "*: cannot read kernel memory: %s", why);
		return -EINVAL;
	}
	n->type = VT_INT;
	return 0;
}

/*
 * buf(p, len), buf(array): the bytes the event's probe fetched as a fixed
 * array (typed.c at kprobes and uprobes, a tracepoint's own array field,
 * or strfetch.c's F_buf at a tracepoint whose F is an address); the first
 * len of them are kept (bpftrace's length rule: unsigned, at most the
 * copy).  n->bind is the array per event, n->idx the bytes kept at most.
 */
static int check_buf(struct sema *s, struct node *n, bool buf_ok)
{
	struct node *a = n->args[0];
	struct tep_format_field **tab;
	int cap = typed_buf_cap();

	if (!buf_ok) {
		/* Its bytes are the record's, gone after the event. */
		lang_errf(s->err, n, "buf() is printed by printf's %%r: ftr keeps no buffer in a "
			  "variable or map, nor computes with one");
		return -EINVAL;
	}
	if (n->nargs == 2 && n->args[1]->type != VT_INT) {
		lang_errf(s->err, n->args[1], "buf(): the length is a number");
		return -EINVAL;
	}
	if (a->k != N_FIELD || !s->has_record) {
		lang_errf(s->err, n, "buf() copies memory at the event, which ftr does at kprobes "
			  "and uprobes (buf(argN, len), buf(ptr->member, len)) and at tracepoints "
			  "(buf(args.F, len)) through a probe's array fetch");
		return -EINVAL;
	}
	tab = field_table(s, n, 1);
	if (!tab)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++) {
		struct tep_event *ev = s->evs[i]->ev;
		struct tep_format_field *f = tep_find_any_field(ev, a->sval);
		char name[80];

		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC)) {
			snprintf(name, sizeof(name), "%s_buf", a->sval);
			f = tep_find_field(ev, name);
		}
		if (!f || !(f->flags & TEP_FIELD_IS_ARRAY) || (f->flags & TEP_FIELD_IS_DYNAMIC)) {
			lang_errf(s->err, n, "buf(args.%s): %s:%s records the address, and the "
				  "kernel copies no bytes behind it at a tracepoint; %s", a->sval,
				  ev->system, ev->name, s->clause < 256 &&
				  s->in->fetch_why[s->clause] ? s->in->fetch_why[s->clause] :
				  "nothing on this kernel can fetch them (eprobe events, or kprobe "
				  "events at the syscall's entry, would)");
			return -EINVAL;
		}
		if (f->size < cap)
			cap = f->size;
		tab[s->evs[i]->idx] = f;
	}
	if (n->nargs == 2 && n->args[1]->k == N_INT && n->args[1]->ival >= 0 &&
	    n->args[1]->ival < cap)
		cap = (int)n->args[1]->ival;
	n->idx = cap;
	n->type = VT_BUF;
	return 0;
}

static int check_call(struct sema *s, struct node *n, bool as_map_value)
{
	static const struct {
		const char *name;
		int min, max;
	} calls[] = {
		{ "count", 0, 0 }, { "sum", 1, 1 }, { "avg", 1, 1 }, { "min", 1, 1 },
		{ "max", 1, 1 }, { "stats", 1, 1 }, { "hist", 1, 1 }, { "lhist", 4, 4 },
		{ "printf", 1, 16 }, { "print", 1, 3 }, { "clear", 1, 1 }, { "delete", 1, 1 },
		{ "zero", 1, 1 },
		{ "exit", 0, 0 }, { "str", 1, 2 }, { "time", 0, 1 }, { "ksym", 1, 1 },
		{ "ksymoff", 1, 1 }, { "hex", 1, 1 }, { "ntop", 1, 2 }, { "kaddr", 1, 1 },
		{ "system", 1, 16 }, { "cat", 1, 16 }, { "usym", 1, 1 }, { "kstack", 0, 2 },
		{ "ustack", 0, 2 }, { "join", 1, 2 }, { "strncmp", 3, 3 }, { "strftime", 2, 2 },
		{ "bswap", 1, 1 }, { "buf", 1, 2 }, { "(cast)", 1, 1 },
	};
	int found = -1, err, bits;
	bool sgn, buf_ok = s->buf_ok;

	s->buf_ok = false;

	for (size_t i = 0; i < ARRAY_SIZE(calls); i++)
		if (!strcmp(n->sval, calls[i].name))
			found = (int)i;
	/* int8(x) ... uint64(x): C's casts, as functions */
	if ((str_has_prefix(n->sval, "int") || str_has_prefix(n->sval, "uint")) &&
	    lang_int_type(n->sval, &bits, &sgn))
		found = (int)ARRAY_SIZE(calls) - 1;
	if (found < 0) {
		for (size_t i = 0; i < ARRAY_SIZE(no_bpf); i++)
			if (!strcmp(n->sval, no_bpf[i].name)) {
				lang_errf(s->err, n, "%s() %s; this kernel has no BPF for it, and "
					  "ftr uses none", n->sval, no_bpf[i].why);
				return -EINVAL;
			}
		for (size_t i = 0; i < ARRAY_SIZE(not_yet); i++)
			if (!strcmp(n->sval, not_yet[i])) {
				lang_errf(s->err, n, "%s() is bpftrace's, not in ftr yet", n->sval);
				return -EINVAL;
			}
		lang_errf(s->err, n, "unknown function '%s'", n->sval);
		return -EINVAL;
	}
	if (n->nargs < calls[found].min || n->nargs > calls[found].max) {
		lang_errf(s->err, n, "%s() takes %d%s argument%s", n->sval, calls[found].min,
			  calls[found].max > calls[found].min ? " or more" : "",
			  calls[found].min == 1 && calls[found].max == 1 ? "" : "s");
		return -EINVAL;
	}
	if (agg_of(n->sval) >= 0 && !as_map_value) {
		lang_errf(s->err, n, "%s() is an aggregation: assign it to a map, "
			  "as in @x = %s(...)", n->sval, n->sval);
		return -EINVAL;
	}
	if (!strcmp(n->sval, "kstack") || !strcmp(n->sval, "ustack"))
		return check_stack_call(s, n);
	/* print(VALUE): a number, string or stack, a line of its own
	 * (bpftrace's "value" in -f json). */
	if (!strcmp(n->sval, "print") && n->args[0]->k != N_MAP) {
		if (n->nargs > 1) {
			lang_errf(s->err, n, "print(value) takes 1 argument (print(@map, top, div) "
				  "takes a map)");
			return -EINVAL;
		}
		err = check(s, n->args[0]);
		if (err)
			return err;
		if (n->args[0]->type == VT_NONE) {
			lang_errf(s->err, n->args[0], "print() takes a map or a value");
			return -EINVAL;
		}
		n->type = VT_NONE;
		return 0;
	}
	if (!strcmp(n->sval, "print") && n->nargs > 1) {
		/* print(@m, top[, div]): numbers */
		for (int i = 1; i < n->nargs; i++) {
			err = check(s, n->args[i]);
			if (err)
				return err;
			if (n->args[i]->type != VT_INT) {
				lang_errf(s->err, n->args[i], "print(@map, top, div) takes numbers");
				return -EINVAL;
			}
		}
	}
	if ((!strcmp(n->sval, "clear") || !strcmp(n->sval, "zero") ||
	     !strcmp(n->sval, "delete")) && n->nargs > 1) {
		lang_errf(s->err, n, "%s() takes 1 argument", n->sval);
		return -EINVAL;
	}
	if (!strcmp(n->sval, "print") || !strcmp(n->sval, "clear") ||
	    !strcmp(n->sval, "zero") || !strcmp(n->sval, "delete")) {
		struct node *m = n->args[0];
		struct mapdef *md;

		if (m->k != N_MAP) {
			lang_errf(s->err, m, "%s() takes a map", n->sval);
			return -EINVAL;
		}
		if (strcmp(n->sval, "delete") && m->nargs) {
			lang_errf(s->err, m, "%s() takes the whole map: %s", n->sval, m->sval);
			return -EINVAL;
		}
		if (m->nargs)
			return check_map_keys(s, m);
		md = map_get(s->in, m->sval);
		if (!md) {
			lang_errf(s->err, m, "too many maps (ftr keeps %d)",
				  (int)ARRAY_SIZE(s->in->maps));
			return -EINVAL;
		}
		if (!strcmp(n->sval, "delete") && md->nkeys) {
			lang_errf(s->err, m, "delete() takes one entry: %s[key]", m->sval);
			return -EINVAL;
		}
		m->slot = (int)(md - s->in->maps);
		if (!strcmp(n->sval, "clear") || !strcmp(n->sval, "zero"))
			s->in->maps[m->slot].cleared = true;
		if (!strcmp(n->sval, "zero"))
			s->in->maps[m->slot].zeroed = true;
		if (s->has_record)
			s->in->maps[m->slot].read_at_event = true;
		n->type = VT_NONE;
		return 0;
	}
	if (!strcmp(n->sval, "kaddr"))
		return check_kaddr(s, n);
	if (!strcmp(n->sval, "join"))
		return check_join(s, n);
	for (int i = 0; i < n->nargs; i++) {
		s->buf_ok = i > 0 && !strcmp(n->sval, "printf");
		err = check(s, n->args[i]);
		s->buf_ok = false;
		if (err)
			return err;
	}
	if (found == (int)ARRAY_SIZE(calls) - 1) {
		if (n->args[0]->type != VT_INT) {
			lang_errf(s->err, n->args[0], "%s() takes a number", n->sval);
			return -EINVAL;
		}
		n->idx = bits;
		n->op = sgn ? T_MINUS : T_PLUS;
		n->type = VT_INT;
		return 0;
	}
	if (!strcmp(n->sval, "bswap")) {
		if (n->args[0]->type != VT_INT) {
			lang_errf(s->err, n->args[0], "bswap() takes a number");
			return -EINVAL;
		}
		/* The bytes of the argument's type, as bpftrace swaps them
		 * (tcpconnect: bswap of the u16 skc_dport). */
		n->idx = int_width(s, n->args[0]);
		n->type = VT_INT;
		return 0;
	}
	if (!strcmp(n->sval, "buf"))
		return check_buf(s, n, buf_ok);
	if (!strcmp(n->sval, "ntop")) {
		if ((n->args[n->nargs - 1]->type != VT_INT && !addr_field(s, n->args[n->nargs - 1])) ||
		    (n->nargs == 2 && n->args[0]->type != VT_INT)) {
			lang_errf(s->err, n, "ntop([AF_INET|AF_INET6,] address) takes numbers or "
				  "an address field (u8[4], u8[16])");
			return -EINVAL;
		}
		return text_buffer(n, 64);
	}
	if (!strcmp(n->sval, "usym")) {
		if (n->args[0]->type != VT_INT) {
			lang_errf(s->err, n->args[0], "usym() takes a number");
			return -EINVAL;
		}
		/* frames are named by the profiler's symbol cache */
		s->in->prof_k = true;
		return text_buffer(n, KSYM_TEXT);
	}
	if (!strcmp(n->sval, "strftime")) {
		if (n->args[0]->k != N_STR || n->args[1]->type != VT_INT) {
			lang_errf(s->err, n, "strftime(\"format\", nsecs): a literal format and a "
				  "time in nanoseconds");
			return -EINVAL;
		}
		return text_buffer(n, 256);
	}
	if (!strcmp(n->sval, "strncmp")) {
		if (n->args[0]->type != VT_STR || n->args[1]->type != VT_STR ||
		    n->args[2]->type != VT_INT) {
			lang_errf(s->err, n, "strncmp(string, string, n)");
			return -EINVAL;
		}
		n->type = VT_INT;
		return 0;
	}
	if (!strcmp(n->sval, "system") || !strcmp(n->sval, "cat")) {
		if (!strcmp(n->sval, "system") && !s->in->o->unsafe) {
			lang_errf(s->err, n, "system() runs a command: it needs --unsafe, as in "
				  "bpftrace");
			return -EINVAL;
		}
		if (!s->in->fmt && !(s->in->fmt = calloc(1, sizeof(*s->in->fmt))))
			return -ENOMEM;
		ob_init(s->in->fmt, -1);
		err = check_printf(s, n);
		n->type = VT_NONE;
		return err;
	}
	if (!strcmp(n->sval, "printf"))
		return check_printf(s, n);
	if (!strcmp(n->sval, "str")) {
		struct node *a = n->args[0];

		/* str(argN)/str(retval) of a uprobe: the field its probe
		 * fetched (add_clause_probes); the node becomes that field. */
		if (s->is_uprobe && a->k == N_BUILTIN && (a->ival == B_ARG || a->ival == B_RETVAL)) {
			char name[32];

			snprintf(name, sizeof(name), a->ival == B_ARG ? "arg%d_str" : "retval_str",
				 a->idx);
			if (s->nev && tep_find_any_field(s->evs[0]->ev, name)) {
				free(n->sval);
				n->sval = strdup(name);
				if (!n->sval)
					return -ENOMEM;
				n->k = N_FIELD;
				n->a = a;	/* freed with the node */
				n->nargs = 0;
				return check_field(s, n);
			}
		}
		if (a->type == VT_STR) {
			n->type = VT_STR;
			return 0;
		}
		/* A number here is a user-space address (a syscall's char *):
		 * the kernel copies no string at a tracepoint, and strfetch.c
		 * found nothing to fetch it with. */
		lang_errf(s->err, n, "%sstr(%s%s): %s is a user-space address, and the kernel "
			  "copies no string at a tracepoint; %s", n->ival ? "a map read by str() "
			  "keeps the string behind the address stored in it, fetched here, at the "
			  "store: " : "", a->k == N_FIELD ? "args." : "",
			  a->sval ? a->sval : "...", a->k == N_FIELD ? a->sval : "it",
			  s->clause < 256 && s->in->fetch_why[s->clause] ?
			  s->in->fetch_why[s->clause] : s->in->e.feat.f[F_KPROBE].yes ?
			  "use a kprobe with a ustring field, e.g. kprobe:do_sys_openat2 "
			  "name=+0(%si):ustring" :
			  "this kernel has neither kprobe nor eprobe events to fetch it "
			  "(see 'ftr doctor')");
		return -EINVAL;
	}
	if (!strcmp(n->sval, "exit")) {
		s->in->exit_at_event |= s->has_record;
		n->type = VT_NONE;
		return 0;
	}
	if (!strcmp(n->sval, "time")) {
		if (n->nargs && n->args[0]->k != N_STR) {
			lang_errf(s->err, n->args[0], "time's format must be a string literal");
			return -EINVAL;
		}
		n->type = VT_NONE;
		return 0;
	}
	if (is_sym_call(n) || !strcmp(n->sval, "hex"))
		return check_sym_call(s, n);
	/* aggregations */
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i]->type != VT_INT) {
			lang_errf(s->err, n->args[i], "%s() takes a number", n->sval);
			return -EINVAL;
		}
	n->type = VT_NONE;
	return 0;
}

static int check(struct sema *s, struct node *n)
{
	int err;

	if (n->k != N_CALL)
		s->buf_ok = false;	/* buf() as printf's own argument only */
	switch (n->k) {
	case N_INT:
		n->type = VT_INT;
		return 0;
	case N_STR:
		if (n->idx == -1) {
			lang_errf(s->err, n, "'%s' is a stack's print mode: kstack(%s), ustack(%s)",
				  n->sval, n->sval, n->sval);
			return -EINVAL;
		}
		n->type = VT_STR;
		return 0;
	case N_FIELD:
		return check_field(s, n);
	case N_BUILTIN:
		switch (n->ival) {
		case B_COMM: case B_FUNC: case B_PROBE:
			n->type = VT_STR;
			break;
		case B_KSTACK:
			if (!s->is_profile && (!s->has_record || s->is_uprobe)) {
				lang_errf(s->err, n, "kstack exists in profile, tracepoint and "
					  "kprobe clauses");
				return -EINVAL;
			}
			/* At an event: the instance's stacktrace option, which
			 * setup() turns on for the events still read after the
			 * plan (a hist trigger takes its own stacks). */
			for (int i = 0; i < s->nev; i++)
				s->evs[i]->want_kstack = true;
			s->in->prof_k = true;
			n->type = VT_STACK;
			break;
		case B_USTACK:
			if (!s->is_profile && !s->has_record) {
				lang_errf(s->err, n, "ustack exists in profile, tracepoint, kprobe and "
					  "uprobe clauses");
				return -EINVAL;
			}
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
			n->type = VT_STACK;
			break;
		case B_RETVAL:
			if (!s->is_ret) {
				lang_errf(s->err, n, "retval exists only in kretprobe and uretprobe "
					  "clauses (syscall returns are args.ret of sys_exit_*)");
				return -EINVAL;
			}
			n->type = VT_INT;
			break;
		case B_CPID:
			if (!s->in->o->eng.cmdv) {
				lang_errf(s->err, n, "cpid is the pid of the command of -c, and "
					  "there is none");
				return -EINVAL;
			}
			n->type = VT_INT;
			break;
		case B_ARG:
			if (!s->is_kprobe && !s->is_uprobe) {
				lang_errf(s->err, n, "%s exists only in kprobe and uprobe clauses "
					  "(a tracepoint's arguments are args.NAME)", n->sval);
				return -EINVAL;
			}
			n->type = VT_INT;
			break;
		default:
			if (!s->has_record && (n->ival == B_PID || n->ival == B_TID ||
					       n->ival == B_CPU || n->ival == B_UID)) {
				/* BEGIN/END/interval: ftr's own process and CPU. */
			}
			n->type = VT_INT;
		}
		return 0;
	case N_VAR:
		n->slot = var_slot(s, n->sval, false);
		if (n->slot < 0) {
			lang_errf(s->err, n, "%s is used before it is assigned", n->sval);
			return -EINVAL;
		}
		n->type = s->in->vars[n->slot].t;
		return 0;
	case N_MAP: {
		struct mapdef *m;

		err = check_map_keys(s, n);
		if (err)
			return err;
		m = &s->in->maps[n->slot];
		n->type = m->vt ? m->vt : VT_INT;
		return 0;
	}
	case N_CALL:
		return check_call(s, n, false);
	case N_UNOP:
		if (n->op == T_STAR && (s->has_record || s->is_profile))
			return check_deref(s, n);
		err = check(s, n->a);
		if (err)
			return err;
		/* An untyped * is a read of kernel memory by address (check_deref,
		 * below); & has nothing to take the address of without a type. */
		if (n->op == T_AND) {
			lang_errf(s->err, n, "& needs a typed lvalue: cast it first, as &((TYPE *)arg0)->member");
			return -EINVAL;
		}
		if (n->a->type != VT_INT && n->op != T_NOT) {
			lang_errf(s->err, n, "%s needs a number", lang_tok_str(n->op));
			return -EINVAL;
		}
		if (n->op == T_STAR)
			return check_deref(s, n);
		n->type = VT_INT;
		return 0;
	case N_BINOP:
		err = check(s, n->a);
		if (!err)
			err = check(s, n->b);
		if (err)
			return err;
		if (n->op == T_TILDE || n->op == T_NTILDE) {
			if (n->a->type != VT_STR || n->b->k != N_STR) {
				lang_errf(s->err, n, "%s matches a string against a \"glob*\" literal",
					  n->op == T_TILDE ? "~" : "!~");
				return -EINVAL;
			}
		} else if (n->op == T_EQ || n->op == T_NE || n->op == T_LT || n->op == T_LE ||
		    n->op == T_GT || n->op == T_GE) {
			if (n->a->type != n->b->type) {
				lang_errf(s->err, n, "%s compares a %s with a %s", lang_tok_str(n->op),
					  n->a->type == VT_STR ? "string" : "number",
					  n->b->type == VT_STR ? "string" : "number");
				return -EINVAL;
			}
		} else if (n->op != T_ANDAND && n->op != T_OROR &&
			   (n->a->type != VT_INT || n->b->type != VT_INT)) {
			lang_errf(s->err, n, "%s needs numbers", lang_tok_str(n->op));
			return -EINVAL;
		}
		n->type = VT_INT;
		return 0;
	case N_CAST:
		/* An integer cast (typed.c rewrote the others). */
		err = check(s, n->a);
		if (err)
			return err;
		if (n->a->type != VT_INT) {
			lang_errf(s->err, n, "(%s) needs a number", n->sval);
			return -EINVAL;
		}
		n->type = VT_INT;
		return 0;
	case N_MEMBER: case N_INDEX: case N_SIZEOF:
		lang_errf(s->err, n, "%s here needs a typed value (internal)",
			  n->k == N_INDEX ? "[]" : n->k == N_SIZEOF ? "sizeof" : "a member");
		return -EINVAL;
	case N_TERNARY:
		err = check(s, n->a);
		if (!err)
			err = check(s, n->b);
		if (!err)
			err = check(s, n->c);
		if (err)
			return err;
		if (n->b->type != n->c->type) {
			lang_errf(s->err, n, "the two sides of ?: differ in type");
			return -EINVAL;
		}
		n->type = n->b->type;
		return 0;
	default:
		lang_errf(s->err, n, "internal: unexpected node");
		return -EINVAL;
	}
}

static int check_stmts(struct sema *s, struct node *st)
{
	int err;

	for (; st; st = st->next) {
		switch (st->k) {
		case S_EXPR:
			if (st->a->k == N_CALL)
				err = check_call(s, st->a, false);
			else
				err = check(s, st->a);
			break;
		case S_IF:
			err = check(s, st->a);
			if (!err)
				err = check_stmts(s, st->b);
			if (!err && st->c)
				err = check_stmts(s, st->c);
			break;
		case S_ASSIGN:
			if (st->a->k == N_VAR) {
				err = check(s, st->b);
				if (err)
					break;
				st->a->slot = var_slot(s, st->a->sval, true);
				if (st->a->slot < 0) {
					lang_errf(s->err, st->a, "too many variables");
					return -EINVAL;
				}
				s->in->vars[st->a->slot].t = st->b->type;
				/* '=' sets the width bswap() swaps; += keeps it */
				if (st->op == T_ASSIGN)
					s->in->varwidth[st->a->slot] = (unsigned char)int_width(s, st->b);
				st->a->type = st->b->type;
				if (st->op != T_ASSIGN && st->b->type != VT_INT) {
					lang_errf(s->err, st, "%s needs a number",
						  lang_tok_str(st->op));
					return -EINVAL;
				}
				break;
			}
			err = check_map_keys(s, st->a);
			if (err)
				break;
			if (st->b->k == N_CALL && agg_of(st->b->sval) >= 0) {
				if (st->op != T_ASSIGN) {
					lang_errf(s->err, st, "an aggregation is assigned with '='");
					return -EINVAL;
				}
				err = check_call(s, st->b, true);
			} else {
				struct mapdef *m = &s->in->maps[st->a->slot];

				err = check(s, st->b);
				if (!err && st->b->type != (m->vt ? m->vt : VT_INT)) {
					if (m->vt == VT_INT || !m->vt || st->op != T_ASSIGN)
						lang_errf(s->err, st->b, "%s holds numbers: a %s "
							  "needs a map of its own, stored with '=' "
							  "(wrap a string field in str())", m->name,
							  st->b->type == VT_STR ? "string" : "stack");
					else
						lang_errf(s->err, st->b, "%s holds %ss", m->name,
							  m->vt == VT_STR ? "string" : "stack");
					return -EINVAL;
				}
			}
			if (!err)
				err = set_kind(s, st->a, st->b);
			break;
		default:
			lang_errf(s->err, st, "internal: unexpected statement");
			return -EINVAL;
		}
		if (err)
			return err;
	}
	return 0;
}

/* ---- values ------------------------------------------------------------------ */

struct xctx {
	struct interp *in;
	struct eng_event *ev;
	struct evbind *eb;
	struct tep_record *rec;
	const struct lprof_sample *smp;	/* profile:hz: the sample */
	uint64_t now;
	char scratch[128];
};

static struct val vint(int64_t i)
{
	return (struct val){ .t = VT_INT, .i = i };
}

static struct val vstr(const char *s, size_t len)
{
	return (struct val){ .t = VT_STR, .s = s, .len = len };
}

static bool truthy(struct val v)
{
	return v.t == VT_STR || v.t == VT_STACK ? v.len > 0 || v.i : v.i != 0;
}

static struct val eval(struct xctx *x, const struct node *n);

/* The kernel's symbols; once, say why there are none (keys then show
 * addresses, as the kernel's %ps does for an address it cannot name). */
static const struct ksyms *kernel_syms(struct interp *in)
{
	if (!in->ks_warned && (!in->ks || ksyms_hidden(in->ks))) {
		in->ks_warned = true;
		if (in->ks)
			ftr_warn("/proc/kallsyms hides kernel addresses (kptr_restrict=%d): kernel "
				 "symbols show as addresses; %s", in->e.feat.kptr_restrict,
				 kptr_remedy(in->e.feat.kptr_restrict));
		else
			ftr_warn("cannot read /proc/kallsyms (%s): kernel symbols show as addresses",
				 strerror(-in->ks_err));
	}
	return in->ks && !ksyms_hidden(in->ks) ? in->ks : NULL;
}

static struct val eval_sym(struct xctx *x, const struct node *n)
{
	uint64_t addr = (uint64_t)eval(x, n->args[0]).i;
	const struct ksyms *ks = kernel_syms(x->in);
	const char *mod = NULL, *name;
	int len;

	/* the common case, a function of the kernel proper, formats nothing */
	if (ks && !strcmp(n->sval, "ksym") && (name = ksyms_at(ks, addr, NULL, &mod)) && !mod)
		return vstr(name, strlen(name));
	len = ksyms_format(ks, addr, !strcmp(n->sval, "ksymoff"), n->bind, KSYM_TEXT);
	return vstr(n->bind, len < KSYM_TEXT ? (size_t)len : KSYM_TEXT - 1);
}

/* inet_ntop's text (RFC 5952: the longest run of two or more zero groups
 * is "::"), without libc's inet_ntop, which the static binary does not
 * otherwise need. */
static void ip_text(const unsigned char *b, bool v6, char *out)
{
	int best = -1, blen = 0;

	static const unsigned char zero[10];

	if (!v6) {
		sprintf(out, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
		return;
	}
	/* A v4-mapped (::ffff:a.b.c.d: a dual-stack socket's IPv4 peer) or
	 * v4-compatible address ends in dotted form, as inet_ntop writes it. */
	if (!memcmp(b, zero, 10) && ((b[10] == 0xff && b[11] == 0xff) ||
				     (!b[10] && !b[11] && (b[12] || b[13])))) {
		sprintf(out, "::%s%u.%u.%u.%u", b[10] ? "ffff:" : "", b[12], b[13], b[14], b[15]);
		return;
	}
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && !b[2 * j] && !b[2 * j + 1])
			j++;
		if (j - i > blen && j - i >= 2)
			best = i, blen = j - i;
		i = j > i ? j : i + 1;
	}
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			out += sprintf(out, "::");
			i += blen - 1;
			continue;
		}
		out += sprintf(out, "%s%x", i && i != best + blen ? ":" : "", b[2 * i] << 8 | b[2 * i + 1]);
	}
	*out = '\0';
}

/* ntop([af,] addr): an IPv4 address from a number (its bytes in memory
 * order, as the kernel stores __be32), or IPv4/IPv6 from a u8[4]/u8[16]
 * field. */
static struct val eval_ntop(struct xctx *x, const struct node *n)
{
	const struct node *a = n->args[n->nargs - 1];
	int af = n->nargs == 2 ? (int)eval(x, n->args[0]).i : 0;
	unsigned char b[16] = { 0 };
	size_t blen = 0;

	if (a->k == N_FIELD && x->rec) {
		struct tep_format_field *f = ((struct tep_format_field **)a->bind)[x->ev->idx];

		if (f && (f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    (f->size == 4 || f->size == 16) &&
		    (size_t)f->offset + f->size <= (size_t)x->rec->size) {
			blen = (size_t)f->size;
			memcpy(b, (char *)x->rec->data + f->offset, blen);
		}
	}
	if (!blen) {
		uint32_t u = (uint32_t)eval(x, a).i;

		memcpy(b, &u, 4);
		blen = 4;
	}
	ip_text(b, blen == 16 || af == 10 /* AF_INET6 */, n->bind);
	return vstr(n->bind, strlen(n->bind));
}

/* buf(): the first len bytes of the fetched array, len taken unsigned (so
 * -1 is all of it), as bpftrace caps it. */
static struct val eval_buf(struct xctx *x, const struct node *n)
{
	struct tep_format_field *f = x->rec ? ((struct tep_format_field **)n->bind)[x->ev->idx] :
					      NULL;
	uint64_t len = (uint64_t)n->idx;

	if (n->nargs == 2) {
		uint64_t want = (uint64_t)eval(x, n->args[1]).i;

		if (want < len)
			len = want;
	}
	if (!f || (size_t)f->offset + f->size > (size_t)x->rec->size)
		return (struct val){ .t = VT_BUF, .s = "", .len = 0 };
	if (len > (uint64_t)f->size)
		len = (uint64_t)f->size;
	return (struct val){ .t = VT_BUF, .s = (char *)x->rec->data + f->offset, .len = len };
}

/* usym(addr): the function of a user address in the event's process, as
 * bpftrace prints it (no offset); the address in hex where none names it. */
static struct val eval_usym(struct xctx *x, const struct node *n);
static struct val eval_strftime(struct xctx *x, const struct node *n);

static int keys_of(struct xctx *x, const struct node *map, struct agg_kpart *k)
{
	for (int i = 0; i < map->nargs; i++) {
		struct val v = eval(x, map->args[i]);

		if (v.t == VT_STR)
			k[i].str.p = v.s, k[i].str.len = v.len;
		else if (v.t == VT_STACK)
			k[i].stack.ips = v.ips, k[i].stack.n = (uint32_t)v.len;
		else
			k[i].i = v.i;
	}
	return 0;
}

static int tid_of(struct xctx *x)
{
	if (x->smp)
		return (int)x->smp->tid;
	if (x->rec && x->eb->pid) {
		int32_t pid;

		memcpy(&pid, (char *)x->rec->data + x->eb->pid->offset, 4);
		return pid;
	}
	return getpid();
}

static struct val builtin(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	bool task = x->rec || x->smp;	/* else BEGIN, END, interval: ftr's */
	const char *s;

	switch (n->ival) {
	case B_PID:
		if (x->smp)
			return vint(x->smp->pid);
		return vint(x->rec ? comm_tgid(in->e.comms, tid_of(x)) : getpid());
	case B_TID:
		return vint(tid_of(x));
	case B_COMM:
		/* The name at the event where the probe fetched it: a
		 * process that has since exec'd has another now (capable's
		 * asuser is "true" by the time its events are read). */
		if (x->rec && x->eb && x->eb->comm) {
			size_t len;

			s = field_string(x->eb->comm, x->rec->data, x->rec->size, &len);
			if (s && len)
				return vstr(s, strnlen(s, len < 16 ? len : 16));
		}
		s = task ? engine_comm(&in->e, tid_of(x)) : "ftr";
		return vstr(s, strnlen(s, 16));
	case B_CPU:
		if (x->smp)
			return vint(x->smp->cpu);
		return vint(x->rec ? x->rec->cpu : sched_getcpu());
	case B_NSECS:
		return vint((int64_t)x->now);
	case B_CPID:
		return vint(in->e.child.pid);
	case B_ELAPSED:
		return vint((int64_t)(x->now - in->start_ns));
	case B_UID:
		return vint(task ? comm_uid(in->e.comms, tid_of(x)) : (int64_t)getuid());
	case B_FUNC:
		return vstr(x->eb ? x->eb->func : "", x->eb ? strlen(x->eb->func) : 0);
	case B_PROBE:
		s = x->eb ? x->eb->probe : x->scratch;
		return vstr(s, strlen(s));
	case B_KSTACK: {
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
		if (n_ips > EVENT_KSTACK_MAX)
			n_ips = EVENT_KSTACK_MAX;
		if (n->idx && n_ips > n->idx)
			n_ips = n->idx;
		return (struct val){ .t = VT_STACK, .ips = ips, .len = (size_t)n_ips };
	}
	case B_USTACK:
		if (!x->smp) {
			int tgid, nu;
			const uint64_t *u = engine_ustack(&in->e, &nu, &tgid);

			if (n->idx && nu > n->idx)
				nu = n->idx;
			in->ustk[0] = LPROF_UTAG | (uint32_t)tgid;
			memcpy(in->ustk + 1, u, (size_t)nu * sizeof(uint64_t));
			lprof_note_pid(in->prof, tgid);
			return (struct val){ .t = VT_STACK, .ips = in->ustk, .len = (size_t)nu + 1 };
		}
		/* The process goes with the frames: it names them (lprof.h). */
		in->ustk[0] = LPROF_UTAG | x->smp->pid;
		memcpy(in->ustk + 1, x->smp->u, (size_t)x->smp->nu * sizeof(uint64_t));
		return (struct val){ .t = VT_STACK, .ips = in->ustk,
				     .len = (size_t)(n->idx && x->smp->nu > n->idx ? n->idx :
						     x->smp->nu) + 1 };
	case B_RETVAL: case B_ARG: {
		char name[16];
		struct tep_format_field *f;

		if (n->ival == B_RETVAL)
			snprintf(name, sizeof(name), "retval");
		else
			snprintf(name, sizeof(name), "arg%d", n->idx);
		f = x->rec ? tep_find_field(x->ev->ev, name) : NULL;
		return vint(f ? field_int(f, x->rec) : 0);
	}
	default:
		return vint(0);
	}
}

static int64_t arith(enum tok op, int64_t a, int64_t b)
{
	switch (op) {
	case T_PLUS: return (int64_t)((uint64_t)a + (uint64_t)b);
	case T_MINUS: return (int64_t)((uint64_t)a - (uint64_t)b);
	case T_STAR: return (int64_t)((uint64_t)a * (uint64_t)b);
	case T_SLASH: return b ? (b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b) : 0;
	case T_PERCENT: return b && b != -1 ? a % b : 0;
	case T_AND: return a & b;
	case T_OR: return a | b;
	case T_XOR: return a ^ b;
	case T_SHL: return (int64_t)((uint64_t)a << (b & 63));
	case T_SHR: return a >> (b & 63);
	case T_EQ: return a == b;
	case T_NE: return a != b;
	case T_LT: return a < b;
	case T_LE: return a <= b;
	case T_GT: return a > b;
	case T_GE: return a >= b;
	default: return 0;
	}
}

/*
 * C's usual conversions: with an unsigned 64-bit operand the operation is
 * unsigned, so that args.count > 100 holds for a count above INT64_MAX here
 * as in the kernel's filter, which compares a field in its own signedness.
 */
static struct val arith_u(enum tok op, uint64_t a, uint64_t b)
{
	struct val v;

	switch (op) {
	case T_LT: return vint(a < b);
	case T_LE: return vint(a <= b);
	case T_GT: return vint(a > b);
	case T_GE: return vint(a >= b);
	case T_EQ: case T_NE: return vint(arith(op, (int64_t)a, (int64_t)b));
	case T_SLASH: v = vint(b ? (int64_t)(a / b) : 0); break;
	case T_PERCENT: v = vint(b ? (int64_t)(a % b) : 0); break;
	case T_SHR: v = vint((int64_t)(a >> (b & 63))); break;
	default: v = vint(arith(op, (int64_t)a, (int64_t)b)); break;
	}
	v.u = true;
	return v;
}

static int strcmp_v(struct val a, struct val b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = memcmp(a.s, b.s, n);

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static struct val eval(struct xctx *x, const struct node *n)
{
	struct val a, b;

	switch (n->k) {
	case N_INT:
		/* above INT64_MAX: an unsigned literal, as in C */
		a = vint(n->ival);
		a.u = n->ival < 0;
		return a;
	case N_STR:
		return vstr(n->sval, strlen(n->sval));
	case N_FIELD: {
		struct tep_format_field *f = x->rec ? ((struct tep_format_field **)n->bind)[x->ev->idx] :
						      NULL;
		size_t len;
		const char *s;

		if (!f)
			return n->type == VT_STR ? vstr("", 0) : vint(0);
		if (n->type == VT_STR) {
			s = field_string(f, x->rec->data, x->rec->size, &len);
			return vstr(s, len);
		}
		a = vint(field_int(f, x->rec));
		a.u = field_kind(f) == FK_U64 || (field_kind(f) == FK_POINTER && f->size == 8);
		return a;
	}
	case N_BUILTIN:
		return builtin(x, n);
	case N_VAR:
		return x->in->vars[n->slot];
	case N_MAP: {
		struct agg_kpart k[AGG_MAX_KEYS];
		int64_t v = 0;

		keys_of(x, n, k);
		agg_lookup(x->in->maps[n->slot].m, k, &v);
		if (x->in->maps[n->slot].vt == VT_STR || x->in->maps[n->slot].vt == VT_STACK) {
			size_t len;
			const void *p = intern_get(x->in->vals, (uint32_t)v, &len);

			if (x->in->maps[n->slot].vt == VT_STR) {
				struct val sv = vstr(p ? p : "", len);

				/* An address kept as its string: true where set. */
				sv.i = x->in->maps[n->slot].str_at_store && p;
				return sv;
			}
			return (struct val){ .t = VT_STACK, .ips = p, .len = len / sizeof(uint64_t) };
		}
		return vint(v);
	}
	case N_CALL:
		if (!strcmp(n->sval, "str")) {
			a = eval(x, n->args[0]);
			if (n->nargs > 1) {
				b = eval(x, n->args[1]);
				if (b.i >= 0 && (size_t)b.i < a.len)
					a.len = (size_t)b.i;
			}
			return a;
		}
		if (!strcmp(n->sval, "buf"))
			return eval_buf(x, n);
		if (is_sym_call(n))
			return eval_sym(x, n);
		if (is_hex_call(n))
			return eval(x, n->args[0]);
		if (!strcmp(n->sval, "ntop"))
			return eval_ntop(x, n);
		if (!strcmp(n->sval, "bswap")) {
			uint64_t v = (uint64_t)eval(x, n->args[0]).i;
			struct val r;

			v = n->idx == 1 ? v & 0xff : n->idx == 2 ? __builtin_bswap16((uint16_t)v) :
			    n->idx == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
			r = vint((int64_t)v);
			r.u = n->idx == 8;
			return r;
		}
		if (!strcmp(n->sval, "usym"))
			return eval_usym(x, n);
		if (!strcmp(n->sval, "strftime"))
			return eval_strftime(x, n);
		if (!strcmp(n->sval, "kaddr")) {
			a = vint(n->ival);
			a.u = true;
			return a;
		}
		if (!strcmp(n->sval, "strncmp")) {
			a = eval(x, n->args[0]);
			b = eval(x, n->args[1]);
			int64_t lim = eval(x, n->args[2]).i;
			size_t la = a.len, lb = b.len;

			if (lim < 0)
				lim = 0;
			la = la > (size_t)lim ? (size_t)lim : la;
			lb = lb > (size_t)lim ? (size_t)lim : lb;
			a.len = la;
			b.len = lb;
			/* bpftrace's strncmp: 0 when equal */
			return vint(strcmp_v(a, b) != 0);
		}
		if (n->idx > 0) {
			/* int8() ... uint64() */
			a = eval(x, n->args[0]);
			b = vint(lang_int_cast(a.i, n->idx, n->op == T_MINUS));
			b.u = n->idx == 64 && n->op != T_MINUS;
			return b;
		}
		return vint(0);
	case N_UNOP:
		a = eval(x, n->a);
		if (n->op == T_NOT)
			return vint(!truthy(a));
		if (n->op == T_STAR) {
			int64_t v = 0;

			if (kcore_read(x->in->kc, (uint64_t)a.i, &v, sizeof(v)) < 0 &&
			    !x->in->kc_warned) {
				x->in->kc_warned = true;
				ftr_warn("%d:%d: *0x%llx: no such address in /proc/kcore (read as 0)",
					 n->line, n->col, (unsigned long long)a.i);
			}
			return vint(v);
		}
		b = vint(n->op == T_MINUS ? (int64_t)(0 - (uint64_t)a.i) : ~a.i);
		b.u = a.u;
		return b;
	case N_BINOP:
		if (n->op == T_ANDAND) {
			a = eval(x, n->a);
			return vint(truthy(a) && truthy(eval(x, n->b)));
		}
		if (n->op == T_OROR) {
			a = eval(x, n->a);
			return vint(truthy(a) || truthy(eval(x, n->b)));
		}
		a = eval(x, n->a);
		b = eval(x, n->b);
		if (n->op == T_TILDE || n->op == T_NTILDE)
			return vint(expr_glob(b.s, a.s, a.len) == (n->op == T_TILDE));
		if (a.t == VT_STR) {
			int c = strcmp_v(a, b);

			return vint(arith(n->op, c, 0));
		}
		if (a.u || b.u)
			return arith_u(n->op, a.i, b.i);
		return vint(arith(n->op, a.i, b.i));
	case N_TERNARY:
		return truthy(eval(x, n->a)) ? eval(x, n->b) : eval(x, n->c);
	case N_CAST:
		/* (uint8)x...: C's conversion to an integer of ival bytes. */
		a = eval(x, n->a);
		if (n->ival < 8) {
			int sh = 64 - (int)n->ival * 8;

			a.i = n->idx ? (int64_t)((uint64_t)a.i << sh) >> sh :
			      (int64_t)((uint64_t)a.i << sh >> sh);
		}
		a.u = !n->idx && n->ival == 8;
		return a;
	default:
		return vint(0);
	}
}

/* strftime(fmt, ns): the local time of ns, a time of nsecs' clock
 * (CLOCK_MONOTONIC), as strftime(3) formats it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static struct val eval_strftime(struct xctx *x, const struct node *n)
{
	uint64_t ns = (uint64_t)eval(x, n->args[1]).i, mono = engine_now_ns();
	struct timespec now;
	time_t t;
	struct tm tm;
	size_t len = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	t = now.tv_sec - (time_t)((int64_t)(mono - ns) / 1000000000);
	if (localtime_r(&t, &tm))
		len = strftime(n->bind, 256, n->args[0]->sval, &tm);
	return vstr(n->bind, len);
}
#pragma GCC diagnostic pop

static struct val eval_usym(struct xctx *x, const struct node *n)
{
	uint64_t addr = (uint64_t)eval(x, n->args[0]).i;
	char *buf = n->bind;
	int pid = x->smp ? (int)x->smp->pid : x->rec ? comm_tgid(x->in->e.comms, tid_of(x)) : 0;

	buf[0] = '\0';
	lprof_note_pid(x->in->prof, pid);
	if (x->in->prof && pid > 0) {
		lprof_frame(LPROF_UTAG | (uint32_t)pid, 0, buf, KSYM_TEXT, x->in->prof);
		if (lprof_frame(addr, 1, buf, KSYM_TEXT, x->in->prof) == 0)
			buf[strcspn(buf, "+")] = '\0';
		else
			buf[0] = '\0';
	}
	if (!buf[0])
		snprintf(buf, KSYM_TEXT, "0x%llx", (unsigned long long)addr);
	return vstr(buf, strlen(buf));
}

/* ---- statements -------------------------------------------------------------- */

/*
 * printf: the format was checked by the semantic pass (conversions against
 * arguments).  Each conversion is rebuilt from its validated flags, width
 * and precision with ftr's own length modifier (every number is 64-bit), so
 * the format passed to snprintf is ours, not the user's text.
 */
/* printf("%s", kstack): the stack as bpftrace prints it, a newline, then a
 * frame a line, indented 8 (as map keys print, agg.h). */
static void print_stack(struct interp *in, struct outbuf *ob, struct val v)
{
	char sym[512];

	ob_putc(ob, '\n');
	for (size_t i = 0; i < v.len; i++) {
		int r = in->prof ? lprof_frame(v.ips[i], (uint32_t)i, sym, sizeof(sym), in->prof) :
			-1;

		if (r > 0)
			continue;
		if (r < 0)
			snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)v.ips[i]);
		ob_write(ob, "        ", 8);
		ob_puts(ob, sym);
		ob_putc(ob, '\n');
	}
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/*
 * bpftrace's -f json: what printf, time, join, cat and system print is one
 * line {"type": "printf", "data": "hi\n"}.  bt_out gives where the text goes:
 * the scratch buffer in->fmt in that mode, the output otherwise (or when
 * out of memory); bt_done makes the line of it.
 */
static void bt_line(struct interp *in, const char *type, const char *s, size_t n)
{
	ob_puts(&in->ob, "{\"type\": \"");
	ob_puts(&in->ob, type);
	ob_puts(&in->ob, "\", \"data\": ");
	ob_json_str(&in->ob, s, n);
	ob_puts(&in->ob, "}\n");
}

static struct outbuf *bt_out(struct interp *in)
{
	if (in->o->mode != OUT_BTJSON ||
	    (!in->fmt && !(in->fmt = calloc(1, sizeof(*in->fmt)))))
		return &in->ob;
	ob_init(in->fmt, -1);
	return in->fmt;
}

static void bt_done(struct interp *in, struct outbuf *f, const char *type)
{
	if (f != &in->ob)
		bt_line(in, type, f->buf, f->len);
}

static void do_printf(struct xctx *x, const struct node *n, struct outbuf *ob)
{
	const char *p = n->args[0]->sval;
	int arg = 1;

	x->in->printfs++;
	while (*p) {
		char spec[16], out[512], flags[8] = "";
		int width = 0, prec = -1, nf = 0;
		const char *q;
		struct val v;

		if (*p != '%') {
			q = strchr(p, '%');
			ob_write(ob, p, q ? (size_t)(q - p) : strlen(p));
			p = q ? q : p + strlen(p);
			continue;
		}
		if (p[1] == '%') {
			ob_putc(ob, '%');
			p += 2;
			continue;
		}
		for (q = p + 1; *q && strchr("-+ #0", *q); q++)
			if (nf < 5 && !strchr(flags, *q))
				flags[nf++] = *q;
		while (*q >= '0' && *q <= '9')
			width = width * 10 + (*q++ - '0') % 1000;
		if (*q == '.') {
			prec = 0;
			for (q++; *q >= '0' && *q <= '9'; q++)
				prec = prec * 10 + (*q - '0') % 1000;
		}
		q += strspn(q, "hlzjt");
		v = eval(x, n->args[arg++]);
		if (*q == 's' && v.t == VT_STACK) {
			print_stack(x->in, ob, v);
			p = q + 1;
			continue;
		}
		if (*q == 'r') {
			/* bpftrace's %r: printable ASCII as it is, any other
			 * byte as \xNN (a backslash too is kept as it is). */
			for (size_t i = 0; i < v.len; i++) {
				unsigned char c = (unsigned char)v.s[i];

				if (c >= 32 && c <= 126) {
					ob_putc(ob, (char)c);
				} else {
					ob_write(ob, "\\x", 2);
					ob_putc(ob, "0123456789abcdef"[c >> 4]);
					ob_putc(ob, "0123456789abcdef"[c & 15]);
				}
			}
			p = q + 1;
			continue;
		}
		if (*q == 's') {
			int len = (int)v.len;

			if (prec >= 0 && prec < len)
				len = prec;
			snprintf(out, sizeof(out), "%*.*s", strchr(flags, '-') ? -width : width,
				 len, v.s);
		} else if (*q == 'c') {
			snprintf(out, sizeof(out), "%*c", strchr(flags, '-') ? -width : width,
				 (int)v.i);
		} else if (*q == 'p') {
			snprintf(out, sizeof(out), "0x%llx", (unsigned long long)v.i);
		} else {
			if (prec < 0) {
				snprintf(spec, sizeof(spec), "%%%s*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, sizeof(out), spec, width, (long long)v.i);
			} else {
				snprintf(spec, sizeof(spec), "%%%s*.*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, sizeof(out), spec, width, prec, (long long)v.i);
			}
		}
		/* A string from the kernel (a comm, a path) is shown, not
		 * obeyed: its control characters are escaped. */
		if (*q == 's')
			ob_text_str(ob, out, strlen(out));
		else
			ob_puts(ob, out);
		p = q + 1;
	}
}

/* time(fmt): the local time now, as strftime formats it (bpftrace's). */
static void do_time(struct xctx *x, const struct node *n)
{
	char out[512];
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;

	if (localtime_r(&now, &tm))
		len = strftime(out, sizeof(out), n->nargs ? n->args[0]->sval : "%H:%M:%S\n", &tm);
	if (x->in->o->mode == OUT_BTJSON)
		bt_line(x->in, "time", out, len);
	else
		ob_write(&x->in->ob, out, len);
}
#pragma GCC diagnostic pop

static int hist_read(struct interp *in, struct mapdef *m);
static int pc_read(struct interp *in, struct mapdef *m);
static int pc_clear(struct interp *in, struct mapdef *m);

/* agg's value callback for a map of strings or stacks: the interned value
 * behind the number. */
struct vals_ctx {
	const struct intern *vals;
	enum vtype vt;
};

static int interned_value(int64_t v, struct agg_kpart *k, void *arg)
{
	const struct vals_ctx *c = arg;
	size_t len;
	const void *p = intern_get(c->vals, (uint32_t)v, &len);

	if (c->vt == VT_STR) {
		k->str.p = p ? p : "";
		k->str.len = len;
		return AGG_K_STR;
	}
	k->stack.ips = p;
	k->stack.n = (uint32_t)(len / sizeof(uint64_t));
	return AGG_K_STACK;
}

static void print_map(struct interp *in, struct mapdef *m, int64_t top, int64_t div)
{
	if (!m->m)
		return;
	if (m->k && hist_read(in, m) < 0)
		return;
	if (m->pc && pc_read(in, m) < 0)
		return;
	struct vals_ctx vc = { in->vals, m->vt };
	struct agg_print_opts po = { .top = top >= 0 ? (uint32_t)top : in->o->top,
				     .div = div > 0 ? (uint64_t)div : 0,
				     .stack_mode = m->stack_mode, .sort = in->o->sort,
				     .sym = in->prof ? lprof_frame : NULL, .sym_arg = in->prof,
				     .value = m->vt > VT_INT ? interned_value : NULL, .value_arg = &vc };

	if (in->o->mode == OUT_BTJSON)
		agg_print_bt_json(m->m, &in->ob, &po);
	else if (in->o->mode == OUT_JSON)
		agg_print_json(m->m, &in->ob, &po);
	else
		agg_print(m->m, &in->ob, &po);
	if (agg_dropped(m->m))
		fprintf(stderr, "ftr: %s: %llu updates dropped: the map holds %u entries\n",
			m->name, (unsigned long long)agg_dropped(m->m), agg_size(m->m));
}

static void exec(struct xctx *x, const struct node *st);

/*
 * system(fmt, ...) runs a shell command (with --unsafe), cat(fmt, ...)
 * prints a file, both in user space when the event is handled, as
 * bpftrace does them (asynchronously to the event there too).
 */
static void do_command(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct outbuf *f = in->fmt;
	char *text;
	int ret;

	f->len = 0;
	f->err = 0;
	do_printf(x, n, f);
	if (f->err || f->len == sizeof(f->buf)) {
		ftr_warn("%d:%d: %s(): the text is too long", n->line, n->col, n->sval);
		return;
	}
	text = strndup(f->buf, f->len);
	if (!text)
		return;
	if (!strcmp(n->sval, "cat")) {
		size_t len;
		char *c = read_file(text, &len);

		if (c && in->o->mode == OUT_BTJSON)
			bt_line(in, "cat", c, len);
		else if (c)
			ob_write(&in->ob, c, len);
		else
			ftr_warn("cat(\"%s\"): %s", text, strerror(errno));
		free(c);
	} else {
		/* the command's output after what the program printed before;
		 * fork and exec, not system(3), which costs 3 KB of the static
		 * binary */
		char *argv[] = { (char *)"sh", (char *)"-c", text, NULL };
		/* bpftrace's -f json: the output in one "syscall" line */
		int pfd[2];
		bool bt = in->o->mode == OUT_BTJSON && pipe(pfd) == 0;
		pid_t pid;

		ob_flush(&in->ob);
		pid = fork();
		if (pid == 0) {
			if (bt && (dup2(pfd[1], 1) < 0 || close(pfd[0]) < 0))
				_exit(127);
			execvp(argv[0], argv);
			_exit(127);
		}
		if (bt) {
			/* a buffer of it; the rest is read (the command runs to
			 * its end) and dropped, with a warning */
			char junk[512];
			bool cut = false;

			close(pfd[1]);
			f->len = 0;
			while (pid > 0) {
				bool room = f->len < sizeof(f->buf);
				ssize_t r = read(pfd[0], room ? f->buf + f->len : junk,
						 room ? sizeof(f->buf) - f->len : sizeof(junk));

				if (r > 0 && room)
					f->len += (size_t)r;
				else if (r > 0)
					cut = true;
				else if (r == 0 || errno != EINTR)
					break;
			}
			close(pfd[0]);
			if (cut)
				ftr_warn("system(\"%s\"): only the first %zu bytes of its output "
					 "printed", text, sizeof(f->buf));
			if (pid > 0)
				bt_line(in, "syscall", f->buf, f->len);
		}
		if (pid < 0)
			ftr_warn("system(\"%s\"): %s", text, strerror(errno));
		else
			while (waitpid(pid, &ret, 0) < 0 && errno == EINTR)
				;
	}
	free(text);
}

/* join(): the strings up to the first that faulted (a NULL entry: its
 * length is 0, where "" is 1 with its NUL), then a newline, as bpftrace. */
static void do_join(struct xctx *x, const struct node *n)
{
	struct tep_format_field **tab = n->bind;
	const char *delim = n->nargs == 2 ? n->args[1]->sval : " ";
	struct outbuf *ob = bt_out(x->in);

	for (int k = 0; x->rec && k < PLAN_JOIN_MAX; k++) {
		struct tep_format_field *f = tab[(size_t)x->ev->idx * PLAN_JOIN_MAX + k];
		uint32_t dl;
		size_t len;
		const char *str;

		if (!f || (size_t)f->offset + 4 > (size_t)x->rec->size)
			break;
		memcpy(&dl, (char *)x->rec->data + f->offset, 4);
		if (!(dl >> 16))
			break;
		str = field_string(f, x->rec->data, x->rec->size, &len);
		if (k)
			ob_puts(ob, delim);
		ob_write(ob, str, len);
	}
	if (ob == &x->in->ob)
		ob_putc(ob, '\n');
	bt_done(x->in, ob, "join");	/* without the newline, as bpftrace */
}

/* print(VALUE): as printf's %d (%u of an unsigned 64-bit number) or %s,
 * and a newline; in bpftrace's -f json, a "value" line. */
static void print_value(struct xctx *x, struct val v)
{
	struct interp *in = x->in;
	struct outbuf *ob = in->o->mode == OUT_BTJSON ? bt_out(in) : &in->ob;
	char num[32];

	if (v.t == VT_STACK) {
		print_stack(in, ob, v);
	} else if (v.t == VT_STR) {
		if (ob == &in->ob)
			ob_text_str(ob, v.s, v.len);
		else
			ob_write(ob, v.s, v.len);
	} else {
		snprintf(num, sizeof(num), v.u ? "%llu" : "%lld", (unsigned long long)v.i);
		ob_puts(ob, num);
	}
	if (ob == &in->ob) {
		ob_putc(ob, '\n');
	} else {
		/* {"type": "value", "data": 5} or "data": "text" */
		ob_puts(&in->ob, "{\"type\": \"value\", \"data\": ");
		if (v.t == VT_INT)
			ob_write(&in->ob, ob->buf, ob->len);
		else
			ob_json_str(&in->ob, ob->buf, ob->len);
		ob_puts(&in->ob, "}\n");
		ob->len = 0;
	}
	if (in->o->buffering != RUN_BUF_FULL)
		ob_flush(&in->ob);
}

static void exec_call(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;

	if (!strcmp(n->sval, "printf")) {
		struct outbuf *ob = bt_out(in);

		do_printf(x, n, ob);
		bt_done(in, ob, "printf");
		if (in->o->buffering == RUN_BUF_NONE ||
		    (in->o->buffering == RUN_BUF_LINE && memchr(in->ob.buf, '\n', in->ob.len)))
			ob_flush(&in->ob);
	} else if (!strcmp(n->sval, "system") || !strcmp(n->sval, "cat")) {
		do_command(x, n);
	} else if (!strcmp(n->sval, "join")) {
		do_join(x, n);
	} else if (!strcmp(n->sval, "exit")) {
		in->exit_req = true;
	} else if (!strcmp(n->sval, "time")) {
		do_time(x, n);
	} else if (!strcmp(n->sval, "print") && n->args[0]->k != N_MAP) {
		print_value(x, eval(x, n->args[0]));
	} else if (!strcmp(n->sval, "print")) {
		int64_t top = n->nargs > 1 ? eval(x, n->args[1]).i : -1;
		int64_t div = n->nargs > 2 ? eval(x, n->args[2]).i : 0;

		print_map(in, &in->maps[n->args[0]->slot], top, div);
		if (in->o->buffering != RUN_BUF_FULL)
			ob_flush(&in->ob);
	} else if (!strcmp(n->sval, "clear")) {
		prom_clearing(in->prom, n->args[0]->slot);	/* counters carry on */
		if (in->maps[n->args[0]->slot].pc)
			pc_clear(in, &in->maps[n->args[0]->slot]);
		agg_clear(in->maps[n->args[0]->slot].m);
	} else if (!strcmp(n->sval, "zero")) {
		/* (a zeroed map is in neither a hist trigger nor a counter) */
		prom_clearing(in->prom, n->args[0]->slot);
		agg_zero(in->maps[n->args[0]->slot].m);
	} else if (!strcmp(n->sval, "delete")) {
		struct agg_kpart k[AGG_MAX_KEYS];

		keys_of(x, n->args[0], k);
		prom_deleting(in->prom, n->args[0]->slot, k);
		agg_delete(in->maps[n->args[0]->slot].m, k);
	}
}

static void exec(struct xctx *x, const struct node *st)
{
	struct interp *in = x->in;

	for (; st && !in->exit_req; st = st->next) {
		switch (st->k) {
		case S_EXPR:
			if (st->a->k == N_CALL)
				exec_call(x, st->a);
			else
				eval(x, st->a);
			break;
		case S_IF:
			if (truthy(eval(x, st->a)))
				exec(x, st->b);
			else if (st->c)
				exec(x, st->c);
			break;
		case S_ASSIGN: {
			struct agg_kpart k[AGG_MAX_KEYS];
			struct mapdef *m;
			int64_t v = 0, old = 0;

			if (st->a->k == N_VAR) {
				struct val nv = eval(x, st->b);
				struct val *var = &in->vars[st->a->slot];

				if (st->op == T_ASSIGN)
					*var = nv;
				else
					*var = vint(arith(st->op == T_PLUSEQ ? T_PLUS :
							  st->op == T_MINUSEQ ? T_MINUS :
							  st->op == T_STAREQ ? T_STAR : T_SLASH,
							  var->i, nv.i));
				break;
			}
			m = &in->maps[st->a->slot];
			keys_of(x, st->a, k);
			if (st->b->k == N_CALL && agg_of(st->b->sval) >= 0) {
				if (st->b->nargs)
					v = eval(x, st->b->args[0]).i;
			} else if (m->vt == VT_STR || m->vt == VT_STACK) {
				struct val nv = eval(x, st->b);

				v = nv.t == VT_STR ? intern_put(in->vals, nv.s, nv.len) :
				    intern_put(in->vals, nv.ips, nv.len * sizeof(uint64_t));
			} else {
				v = eval(x, st->b).i;
				if (st->op != T_ASSIGN) {
					agg_lookup(m->m, k, &old);
					v = arith(st->op == T_PLUSEQ ? T_PLUS :
						  st->op == T_MINUSEQ ? T_MINUS :
						  st->op == T_STAREQ ? T_STAR : T_SLASH, old, v);
				}
			}
			agg_update(m->m, k, v);
			break;
		}
		default:
			break;
		}
	}
}

static void run_clause(struct xctx *x, int ci, bool skip_pred)
{
	const struct clause *c = &x->in->p->cl[ci];

	x->in->runs++;
	if (c->pred && !skip_pred && !truthy(eval(x, c->pred)))
		return;
	exec(x, c->body);
}

/* ---- running ------------------------------------------------------------------- */

static int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
{
	struct interp *in = arg;
	struct evbind *eb = &in->eb[v->idx];
	struct xctx x = { .in = in, .ev = v, .eb = eb, .rec = rec, .now = rec->ts };

	/* The task's new name, for its events from here on. */
	for (int i = 0; in->exec_comm && i < 2; i++) {
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
static int prof_open(struct interp *in)
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
	note = lprof_kernel_note(in->prof);
	if (note)
		ftr_warn("kstack frames print as addresses: %s", note);
	in->e.drain_hook = prof_drain;
	return 0;
}

static void metrics_tick(struct interp *in, uint64_t now);

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

static bool is_ustack(const struct node *n)
{
	return (n->k == N_BUILTIN && n->ival == B_USTACK) ||
	       (n->k == N_CALL && !strcmp(n->sval, "ustack"));
}

static bool uses_ustack(const struct clause *c)
{
	return node_find(c->pred, is_ustack) || node_find(c->body, is_ustack);
}

/* What makes a profile clause read kernel memory (typed.c): a cast to a
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

static bool prof_reads_memory(const struct clause *c)
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
		int before = in->e.nev, ret;

		if (pr->pv == PV_TRACEPOINT) {
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

			probe_fields(c->pred, args, sargs, ARRAY_SIZE(args));
			probe_fields(c->body, args, sargs, ARRAY_SIZE(args));
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
			/* comm as it is at the event ($comm), not when it is read. */
			if (uses_comm(c->pred) || uses_comm(c->body))
				off += snprintf(fields + off, off < sizeof(fields) ?
						sizeof(fields) - off : 0, " ftr_comm=comm");
			strv_free(*pn, *npn);
			*pn = NULL;
			/* A wildcard adds one event per function, each its own
			 * probe and func. */
			/* The typed reads: raw fetchargs (typed.h), added as
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
			/* The same reads by ftr's fetches, where the kernel
			 * refuses its argument names (typed.h). */
			memcpy(fb, extra, (size_t)nextra * sizeof(*fb));
			for (int f = 0; names && f < in->typed[ci].n; f++)
				if (typed_fallback(&in->typed[ci], f, fb[f].raw, sizeof(fb[f].raw)))
					fb[f] = extra[f];
			ret = *npn = dynprobe_add(&in->e, pr, c->nprobes > 1, fields, extra,
						  names ? fb : NULL, nextra, pn, err);
			if (ret < 0)
				return err->msg[0] ? -EINVAL : ret;
			for (int k = before; nuf && k < in->e.nev; k++) {
				in->e.ev[k].ufetch = true;
				in->e.ev[k].uentry = uprobe_at_entry(pr);
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
		/* Record which clauses each new (or shared) event feeds. */
		for (int k = 0; k < in->e.nev; k++) {
			struct eng_event *v = &in->e.ev[k];
			bool mine = k >= before;

			if (!mine && pr->pv == PV_TRACEPOINT) {
				char sys[128], ev[128];

				evsel_split(pr->target, sys, sizeof(sys), ev, sizeof(ev));
				mine = !fnmatch(sys, v->sys, 0) && !fnmatch(ev, v->name, 0) &&
				       !replaced_since(&in->e, before, v);
			}
			if (!mine)
				continue;
			in->eb = realloc(in->eb, in->e.nev * sizeof(*in->eb));
			if (!in->eb)
				return -ENOMEM;
			if (k >= before)
				memset(&in->eb[k], 0, sizeof(in->eb[k]));
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
			if (in->hrprof && in->hrprof[ci]) {
				in->eb[k].hrprof = true;
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "%s", pr->text);
			} else if (pr->pv == PV_TRACEPOINT && v->replaces) {
				snprintf(in->eb[k].probe, sizeof(in->eb[k].probe), "tracepoint:%s",
					 v->replaces);
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
 * may come before its stores in the program, so this is known first. */
static enum vtype store_type(const struct node *v)
{
	if (v->k == N_STR || (v->k == N_CALL && !strcmp(v->sval, "str")))
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
			enum vtype t = n->op == T_ASSIGN ? store_type(n->b) : VT_INT;

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
		 * whose str() typed.c turns into a string fetch of the probe. */
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
		if ((n->k == S_IF && (str_stores(in, n->b, user, typed) < 0 ||
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

static int exec_comm(struct interp *in)
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
		in->exec_comm = true;
		planf(in, "%s:%s: read for the names tasks take (comm)\n", name_srcs[i].sys,
		      name_srcs[i].name);
	}
	return 0;
}

static bool name_src_idx(const struct interp *in, int k)
{
	return k == in->names[0].idx || k == in->names[1].idx;
}

/* After the plan: task_rename is read only where comm is read in ftr, at
 * an event the ring buffer carries (not one a hist trigger or counter
 * takes, whose predicate on comm is the kernel's). */
static void exec_comm_plan(struct interp *in)
{
	bool need = false;

	if (!in->exec_comm)
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
	in->exec_comm = false;
	for (int i = 0; i < 2; i++) {
		int k = in->names[i].idx;

		if (k < 0)
			continue;
		if (in->eb[k].ncl)
			in->exec_comm = true;	/* read anyway: names cost nothing */
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
#define HRPROF_MAX 8

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

/* typed.h's typed_cur: where the running task is on this kernel. */
static int locate_current(void *ctx, struct kallsyms_current *loc, char *why, size_t wlen)
{
	(void)ctx;
	return kallsyms_current(arch_name(), loc, why, wlen);
}

static int compile(struct interp *in, struct lang_err *err)
{
	/* (a recording holds no per-CPU reads of it) */
	struct typed_cur cur = { .locate = in->e.o.file_tep ? NULL : locate_current };
	int ret;

	in->typed = calloc(in->p->ncl, sizeof(*in->typed));
	in->hrprof = calloc(in->p->ncl, sizeof(*in->hrprof));
	if (!in->typed || !in->hrprof)
		return -ENOMEM;
	for (int ci = 0; ci < in->p->ncl; ci++) {
		enum probe_provider pv = in->p->cl[ci].probes[0].pv;

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
	ret = exec_comm(in);
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
	for (int i = 0; in->exec_comm && i < 2; i++) {
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
		s.is_ret = pv == PV_KRETPROBE || pv == PV_URETPROBE;
		s.is_kprobe = pv == PV_KPROBE || pv == PV_KRETPROBE;
		s.is_uprobe = pv == PV_UPROBE || pv == PV_URETPROBE;
		ret = clause_events(in, ci, &s.evs);
		if (ret < 0)
			return ret;
		s.nev = ret;
		if (s.has_record && s.nev == 0) {
			free(s.evs);
			err->line = c->probes[0].line;
			err->col = c->probes[0].col;
			snprintf(err->msg, sizeof(err->msg), "no event for '%s'%s", c->probes[0].text,
				 c->nprobes > 1 ? ": none of the clause's probes exists here (the "
				 "notes above say why)" : "");
			return -ENOENT;
		}
		ret = c->pred ? check(&s, c->pred) : 0;
		if (!ret)
			ret = check_stmts(&s, c->body);
		free(s.evs);
		if (ret)
			return ret;
	}
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];
		struct agg_spec spec = { .name = m->name, .kind = m->kind, .nkeys = m->nkeys,
					 .lmin = m->lmin, .lmax = m->lmax, .lstep = m->lstep,
					 .size = in->o->map_size };

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

/* ---- aggregation in the kernel: hist triggers --------------------------------- */

static bool key_field_ok(struct tep_format_field *f)
{
	/* Numbers and fixed char arrays; a dynamic string or a pointer is
	 * not a key the kernel and user space would read the same. */
	return f && !(f->flags & (TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_POINTER)) &&
	       (field_is_string(f) || !(f->flags & TEP_FIELD_IS_ARRAY));
}

/* A number, or a pointer read as one: the key of ksym(), ksymoff(), hex(). */
static bool addr_field_ok(struct tep_format_field *f)
{
	return f && !field_is_string(f) &&
	       !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC));
}

/*
 * Can clause ci's only statement, @m[keys] = count()|sum(x)|avg(x)|stats(x)|
 * hist(x)|lhist(x, ...), be a hist trigger on each of its events?  Keys map
 * to comm (common_pid.execname, merged by comm here), tid (common_pid),
 * probe (one trigger per event) and event fields; the value to a field.
 * hist/lhist key the trigger by the raw value and bucket here: the kernel's
 * .log2 buckets are not bpftrace's.  Returns the reason it cannot, or NULL.
 */
static const char *hist_pushable(struct interp *in, int ci, struct kmap *km, char *why,
				 size_t wlen)
{
	const struct clause *c = &in->p->cl[ci];
	const struct node *st = c->body, *rhs, *tgt;
	struct mapdef *m;

	if (!in->e.feat.f[F_HIST].yes)
		return "this kernel has no hist triggers";
	if (!st || st->next || st->k != S_ASSIGN || st->a->k != N_MAP || st->b->k != N_CALL)
		return "the clause does more than one aggregation";
	tgt = st->a;
	rhs = st->b;
	m = &in->maps[tgt->slot];
	if (m->refs != 1)
		return "the map is used elsewhere too";
	/* A trigger's clear command loses the events that come between the
	 * read before it and the clear; user space clears at one instant. */
	if (m->cleared)
		return m->zeroed ? "zero() of a hist trigger would lose the events between its "
				   "read and the clear" :
				   "clear() of a hist trigger would lose the events between its read "
				   "and the clear";
	if (m->kind == AGG_MIN || m->kind == AGG_MAX || m->kind == AGG_VALUE)
		return "min/max are not kept by hist triggers";
	if (tgt->nargs + (m->kind == AGG_HIST || m->kind == AGG_LHIST) > 3)
		return "too many keys for a hist trigger";
	km->nkeys = tgt->nargs;
	for (int i = 0; i < tgt->nargs; i++) {
		const struct node *k = tgt->args[i];

		if (k->k == N_BUILTIN && k->ival == B_COMM)
			km->kk[i] = KK_COMM;
		else if (k->k == N_BUILTIN && k->ival == B_TID)
			km->kk[i] = KK_TID;
		else if (k->k == N_BUILTIN && k->ival == B_PROBE)
			km->kk[i] = KK_PROBE;
		else if (k->k == N_BUILTIN && k->ival == B_FUNC)
			km->kk[i] = KK_FUNC;	/* one per event too */
		else if (k->k == N_BUILTIN && k->ival == B_KSTACK && k->idx) {
			snprintf(why, wlen, "kstack(%d): the kernel's stacktrace key keeps %d frames",
				 k->idx, EVENT_KSTACK_MAX);
			return why;
		} else if (k->k == N_BUILTIN && k->ival == B_KSTACK && !KSTACK_HIST_SHORT)
			km->kk[i] = KK_STACK;	/* every hist kernel has the key */
		else if (k->k == N_BUILTIN && k->ival == B_KSTACK) {
			snprintf(why, wlen, "on arm64 the kernel's stacktrace key leaves out the "
				 "event's own caller (its skip count is x86's)");
			return why;
		}
		else if (k->k == N_FIELD || (is_hex_call(k) && k->args[0]->k == N_FIELD))
			km->kk[i] = KK_FIELD;
		else if (is_sym_call(k) && k->args[0]->k == N_FIELD)
			km->kk[i] = strcmp(k->sval, "ksym") ? KK_SYMOFF : KK_SYM;
		else {
			snprintf(why, wlen, "key %d:%d is not a field, comm, tid, probe, func, kstack, "
				 "or ksym()/ksymoff()/hex() of a field", k->line, k->col);
			return why;
		}
	}
	if (rhs->nargs && rhs->args[0]->k != N_FIELD)
		return "the aggregated value is not an event field";
	km->value_is_key = m->kind == AGG_HIST || m->kind == AGG_LHIST;
	for (int k = 0; k < in->e.nev; k++) {
		struct evbind *eb = &in->eb[k];

		for (int i = 0; i < eb->ncl; i++)
			if (eb->clauses[i] == ci && eb->ncl > 1)
				return "its events feed other clauses too";
	}
	return NULL;
}

/* The trigger key of comm (by pid, merged by comm in hist_read) and tid. */
static const char *pid_key(enum kkey kk)
{
	return kk == KK_COMM ? "common_pid.execname" : "common_pid";
}

/*
 * A clause on every syscalls:sys_enter_* (or sys_exit_*) event: one trigger
 * on raw_syscalls:sys_enter (sys_exit) keyed by the syscall's number instead
 * of one per event.  The syscalls: events are ftrace's probes on that same
 * tracepoint, each firing for the numbers whose syscall metadata made it;
 * the kernel prints the number's name from that metadata (.syscall:
 * "sys_write"), which names the event (sys_enter_write), and hist_read keys
 * by that event's probe, leaving out numbers without one ("unknown_syscall"),
 * which no syscalls: event counts either.  Each trigger costs a tracepoint
 * synchronisation or two to create, pause and remove (in an emulated 6.1
 * guest 30-60 ms each: 40 s for ~350 events), so this is what lets a recipe
 * over all syscalls start and stop at once.  Keys and the predicate may name
 * what both events have alike: probe, comm, tid, the common fields, and ret
 * at the exit; the arguments differ from event to event.  Not the same:
 * a 32-bit (compat) task's syscalls, which the syscalls: events leave out
 * and raw_syscalls counts under its numbers, named by the native table.
 * 1: folded into km->t[0]; 0: not foldable; -EINVAL (why said).
 */
static int sys_fold(struct interp *in, int ci, struct kmap *km, const char *pred, char *why,
		    size_t wlen)
{
	static const char *const prefixes[] = { "sys_enter_", "sys_exit_" };
	const struct node *st = in->p->cl[ci].body;
	const struct node *val = st->b->nargs ? st->b->args[0] : NULL;
	struct mapdef *m = &in->maps[st->a->slot];
	struct khist_spec spec = { .size = agg_size(m->m) };
	struct ktrig *t = &km->t[0];
	static char ktext[4096];
	struct tep_event *raw;
	const char *px = NULL, *names[16];
	bool probe_key = false;
	int n = 0, nf;

	if (!(in->e.feat.hist_mods & HM_SYSCALL))
		return 0;
	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];

		if (in->eb[k].ncl != 1 || in->eb[k].clauses[0] != ci)
			continue;
		if (strcmp(v->sys, "syscalls") || v->probe_text || v->replaces)
			return 0;
		if (!px)
			px = str_has_prefix(v->name, prefixes[0]) ? prefixes[0] :
			     str_has_prefix(v->name, prefixes[1]) ? prefixes[1] : NULL;
		if (!px || !str_has_prefix(v->name, px))
			return 0;
		if (!n++)
			t->ev = v;
	}
	if (n < 2 || engine_system_count(&in->e, "syscalls", px) != n)
		return 0;
	raw = engine_format(&in->e, "raw_syscalls", px == prefixes[0] ? "sys_enter" : "sys_exit");
	if (!raw)
		return 0;
	for (int i = 0; i < km->nkeys; i++) {
		const struct node *kn = st->a->args[i];

		switch (km->kk[i]) {
		case KK_PROBE:
			spec.keys[spec.nkeys++] = "id.syscall";
			probe_key = true;
			break;
		case KK_COMM:
		case KK_TID:
			spec.keys[spec.nkeys++] = pid_key(km->kk[i]);
			break;
		case KK_FIELD:
			if (kn->k != N_FIELD || strcmp(kn->sval, "ret") || px == prefixes[0])
				return 0;
			t->kf[i] = tep_find_field(raw, "ret");
			if (!t->kf[i])
				return 0;
			spec.keys[spec.nkeys++] = "ret";
			break;
		default:
			return 0;
		}
	}
	if (!probe_key)
		return 0;	/* one trigger per event is then no more than one key */
	if (val) {
		if (val->k != N_FIELD || strcmp(val->sval, "ret") || px == prefixes[0] ||
		    !(t->vf = tep_find_field(raw, "ret")))
			return 0;
		if (km->value_is_key)
			spec.keys[spec.nkeys++] = "ret";
		else
			spec.vals[spec.nvals++] = "ret";
	}
	if (pred[0]) {
		struct expr_err ee;
		struct expr *e = expr_parse(pred, &ee);

		if (!e)
			return 0;
		nf = expr_fields(e, names, ARRAY_SIZE(names));
		for (int i = 0; i < nf; i++)
			if (i >= (int)ARRAY_SIZE(names) ||
			    !(str_has_prefix(names[i], "common_") || !strcasecmp(names[i], "comm") ||
			      !strcasecmp(names[i], "cpu") ||
			      (px == prefixes[1] && !strcmp(names[i], "ret")))) {
				expr_free(e);
				return 0;
			}
		if (expr_bind(e, raw, &ee) < 0 || !expr_kernel_ok(e, why, wlen) ||
		    expr_to_kernel(e, ktext, sizeof(ktext)) < 0) {
			expr_free(e);
			why[0] = '\0';
			return 0;
		}
		expr_free(e);
		spec.filter = ktext;
	}
	if (khist_build(&spec, &t->cmd) < 0)
		return 0;
	t->sys = "raw_syscalls";
	t->name = raw->name;
	t->fold = ci + 1;
	t->fold_prefix = px;
	km->nt = 1;
	return 1;
}

/* The probe of a folded trigger's syscall name ("sys_write"): the clause's
 * event named by it, or NULL (a number without a syscalls: event). */
static const char *fold_probe(struct interp *in, const struct ktrig *t, const char *sc)
{
	char name[160];

	if (!sc || !str_has_prefix(sc, "sys_"))
		return NULL;
	snprintf(name, sizeof(name), "%s%s", t->fold_prefix, sc + 4);
	for (int k = 0; k < in->e.nev; k++)
		if (in->eb[k].ncl == 1 && in->eb[k].clauses[0] == t->fold - 1 &&
		    !strcmp(in->e.ev[k].name, name))
			return in->eb[k].probe;
	return NULL;
}

static int hist_plan_clause(struct interp *in, int ci, char *why, size_t wlen)
{
	const struct clause *c = &in->p->cl[ci];
	const struct node *st = c->body;
	struct mapdef *m = &in->maps[st->a->slot];
	char pred[2048] = "", pwhy[256];
	struct kmap *km = calloc(1, sizeof(*km));
	const char *no;

	if (!km)
		return -ENOMEM;
	no = hist_pushable(in, ci, km, why, wlen);
	if (!no && c->pred && plan_render_pred(c->pred, pred, sizeof(pred), pwhy, sizeof(pwhy)) < 0)
		no = "the predicate is not made of event fields";
	if (!no && in->o->filter) {
		char both[2048];

		snprintf(both, sizeof(both), pred[0] ? "(%s) && (%s)" : "%s%s", pred, in->o->filter);
		snprintf(pred, sizeof(pred), "%s", both);
	}
	if (no) {
		if (no != why)
			snprintf(why, wlen, "%s", no);
		free(km);
		return -EINVAL;
	}
	km->t = calloc(in->e.nev, sizeof(*km->t));
	if (!km->t) {
		free(km);
		return -ENOMEM;
	}
	if (sys_fold(in, ci, km, pred, why, wlen) > 0) {
		m->k = km;
		return 0;
	}
	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];
		struct ktrig *t = &km->t[km->nt];
		struct khist_spec spec = { .size = agg_size(m->m) };
		bool one_entry = !km->value_is_key;
		char ktext[4096] = "", keybuf[AGG_MAX_KEYS + 1][80];
		const struct node *val = st->b->nargs ? st->b->args[0] : NULL;

		if (in->eb[k].ncl != 1 || in->eb[k].clauses[0] != ci)
			continue;
		t->ev = v;
		t->sys = v->sys;
		t->name = v->name;
		for (int i = 0; i < km->nkeys; i++) {
			const struct node *kn = st->a->args[i];
			bool sym = km->kk[i] == KK_SYM;

			if (kn->k == N_CALL)
				kn = kn->args[0];	/* hex(), ksym(), ksymoff() of a field */
			switch (km->kk[i]) {
			case KK_COMM:
			case KK_TID:
				spec.keys[spec.nkeys++] = pid_key(km->kk[i]);
				break;
			case KK_PROBE:
			case KK_FUNC:
				spec.keys[spec.nkeys++] = "common_type";
				break;
			case KK_STACK:
				spec.keys[spec.nkeys++] = in->e.feat.hist_mods & HM_COMMON_STACKTRACE ?
							  "common_stacktrace" : "stacktrace";
				break;
			case KK_FIELD:
				t->kf[i] = ((struct tep_format_field **)kn->bind)[v->idx];
				if (kn == st->a->args[i] ? !key_field_ok(t->kf[i]) :
				    !addr_field_ok(t->kf[i])) {
					snprintf(why, wlen, "field '%s' cannot be a hist key", kn->sval);
					goto fail;
				}
				snprintf(keybuf[i], sizeof(keybuf[i]), "%s", t->kf[i]->name);
				spec.keys[spec.nkeys++] = keybuf[i];
				break;
			case KK_SYM:
			case KK_SYMOFF:
				/* An address: a number, or a pointer (void *function). */
				t->kf[i] = ((struct tep_format_field **)kn->bind)[v->idx];
				if (!addr_field_ok(t->kf[i])) {
					snprintf(why, wlen, "field '%s' cannot be a hist key", kn->sval);
					goto fail;
				}
				/* The kernel's own symbols where its README lists the
				 * modifier; else the raw address, named here. */
				snprintf(keybuf[i], sizeof(keybuf[i]), "%s%s", t->kf[i]->name,
					 !(in->e.feat.hist_mods & (sym ? HM_SYM : HM_SYM_OFFSET)) ? "" :
					 sym ? ".sym" : ".sym-offset");
				spec.keys[spec.nkeys++] = keybuf[i];
				break;
			}
		}
		if (val) {
			t->vf = ((struct tep_format_field **)val->bind)[v->idx];
			if (!t->vf || field_is_string(t->vf) || !key_field_ok(t->vf)) {
				snprintf(why, wlen, "field '%s' cannot be aggregated by a hist trigger",
					 val->sval);
				goto fail;
			}
			if (km->value_is_key)
				spec.keys[spec.nkeys++] = t->vf->name;
			else
				spec.vals[spec.nvals++] = t->vf->name;
		}
		/* Keyless count()/sum(): a constant key, one entry per event. */
		if (!spec.nkeys)
			spec.keys[spec.nkeys++] = "common_type";
		for (int i = 0; i < km->nkeys; i++)
			one_entry &= km->kk[i] == KK_PROBE || km->kk[i] == KK_FUNC;
		/* A table that holds one entry needs the kernel's smallest (and
		 * hundreds of 2048-entry tables take long to set up). */
		if (one_entry)
			spec.size = KHIST_MIN_SIZE;
		if (pred[0]) {
			struct expr_err ee;
			struct expr *e = expr_parse(pred, &ee);

			if (!e || expr_bind(e, v->ev, &ee) < 0 ||
			    !expr_kernel_ok(e, why, wlen) ||
			    expr_to_kernel(e, ktext, sizeof(ktext)) < 0) {
				if (e && !why[0])
					snprintf(why, wlen, "the predicate: %.200s", ee.msg);
				expr_free(e);
				goto fail;
			}
			expr_free(e);
			spec.filter = ktext;
		}
		if (khist_build(&spec, &t->cmd) < 0) {
			snprintf(why, wlen, "the trigger cannot be spelled (size %u)", spec.size);
			goto fail;
		}
		km->nt++;
	}
	m->k = km;
	return 0;
fail:
	free(km->t);
	free(km);
	return -EINVAL;
}

/* Merge what the kernel counted into the map (replacing what it held). */
/* A stack key the kernel printed, back to addresses (what the user path
 * keys by): "func+0x4f8/0x9e0" is func's address plus 0x4f8. */
static const uint64_t *kstack_of(struct interp *in, const struct khist_kv *kv, uint64_t *out)
{
	for (int i = 0; i < kv->nframes && i < EVENT_KSTACK_MAX; i++)
		if (!in->prof || lprof_kaddr(in->prof, kv->frames[i], &out[i]) < 0)
			out[i] = 0;
	return out;
}

/* The table of trigger `add` in a hist file: the only one, or, where an
 * event holds several (a fold's raw_syscalls trigger beside another map's),
 * the one with its keys and its filter. */
static struct khist_table *table_of(struct khist_file *f, const char *add)
{
	const char *keys = strstr(add, "keys="), *filt = strstr(add, " if ");
	size_t kl = keys ? strcspn(keys, ": ") : 0;

	if (f->ntables == 1)
		return &f->tables[0];
	for (int i = 0; keys && i < f->ntables; i++) {
		const char *tk = strstr(f->tables[i].trigger, "keys="),
			   *tf = strstr(f->tables[i].trigger, " if ");

		if (tk && strcspn(tk, ": ") == kl && !strncmp(tk, keys, kl) &&
		    !strcmp(tf ? tf : "", filt ? filt : ""))
			return &f->tables[i];
	}
	return NULL;
}

static int hist_read(struct interp *in, struct mapdef *m)
{
	struct kmap *km = m->k;
	struct tracefs_instance *inst = session_instance(in->e.s);

	agg_clear(m->m);
	for (int i = 0; i < km->nt; i++) {
		struct ktrig *t = &km->t[i];
		struct evbind *eb = &in->eb[t->ev->idx];
		struct khist_file f;
		struct khist_err err;
		int size = 0;
		char *text = tracefs_event_file_read(inst, t->sys, t->name, "hist", &size);
		struct khist_table *tab;

		if (!text || khist_parse(text, size, &f, &err) < 0) {
			ftr_err("cannot read the hist of '%s:%s': %s", t->sys, t->name,
				text ? err.msg : strerror(errno));
			free(text);
			return -EIO;
		}
		free(text);
		tab = table_of(&f, t->cmd.add);
		if (!tab && f.ntables) {
			ftr_err("cannot find the table of '%s' in the hist of '%s:%s'", t->cmd.add,
				t->sys, t->name);
			khist_file_free(&f);
			return -EIO;
		}
		if (tab) {
			for (size_t j = 0; j < tab->nentries; j++) {
				struct khist_entry *en = &tab->entries[j];
				struct agg_kpart k[AGG_MAX_KEYS];
				uint64_t stk[AGG_MAX_KEYS][EVENT_KSTACK_MAX];
				char sym[AGG_MAX_KEYS][KSYM_TEXT];
				int64_t v = 0;
				bool skip = false;

				for (int q = 0; q < km->nkeys; q++) {
					struct khist_kv *kv = &en->keys[q];
					int len;

					switch (km->kk[q]) {
					case KK_COMM:
						k[q].str.p = kv->s;
						k[q].str.len = strlen(kv->s);
						break;
					case KK_TID:
						k[q].i = (int64_t)kv->u;
						break;
					case KK_PROBE:
						k[q].str.p = t->fold ? fold_probe(in, t, kv->s) :
								       eb->probe;
						if (!k[q].str.p)
							skip = true;
						else
							k[q].str.len = strlen(k[q].str.p);
						break;
					case KK_FUNC:
						k[q].str.p = eb->func;
						k[q].str.len = strlen(eb->func);
						break;
					case KK_STACK:
						k[q].stack.ips = kstack_of(in, kv, stk[q]);
						k[q].stack.n = (uint32_t)(kv->nframes < EVENT_KSTACK_MAX ?
									  kv->nframes : EVENT_KSTACK_MAX);
						break;
					case KK_FIELD:
						if (field_is_string(t->kf[q])) {
							k[q].str.p = kv->s;
							k[q].str.len = strlen(kv->s);
						} else {
							k[q].i = field_from_u64(t->kf[q], kv->u);
						}
						break;
					case KK_SYM:
					case KK_SYMOFF:
						/* .sym keys by address: the addresses of
						 * one function add up here, as in user space */
						if (kv->fmt == KHIST_SYM || kv->fmt == KHIST_SYM_OFFSET)
							len = khist_sym_text(kv, sym[q], KSYM_TEXT);
						else
							len = ksyms_format(kernel_syms(in), kv->u,
									   km->kk[q] == KK_SYMOFF,
									   sym[q], KSYM_TEXT);
						if (len < 0)
							len = snprintf(sym[q], KSYM_TEXT, "0x%llx",
								       (unsigned long long)kv->u);
						k[q].str.p = sym[q];
						k[q].str.len = len < KSYM_TEXT ? (size_t)len : KSYM_TEXT - 1;
						break;
					}
				}
				if (skip)
					continue;
				if (km->value_is_key) {
					v = field_from_u64(t->vf, en->keys[km->nkeys].u);
					agg_add_hits(m->m, k, v, en->hitcount);
				} else {
					agg_add(m->m, k, en->hitcount,
						t->vf ? (int64_t)en->vals[0] : 0);
				}
			}
			if (tab->dropped)
				agg_add_dropped(m->m, tab->dropped);
		}
		khist_file_free(&f);
	}
	return 0;
}

static int hist_op_all(struct interp *in, enum khist_op op)
{
	for (int i = 0; i < in->nmaps; i++) {
		struct kmap *km = in->maps[i].k;

		for (int j = 0; km && j < km->nt; j++) {
			char buf[KHIST_CMD_MAX + 16];

			if (khist_cmd(km->t[j].cmd.add, op, buf, sizeof(buf)) < 0 ||
			    tracefs_event_file_append(session_instance(in->e.s), km->t[j].sys,
						      km->t[j].name, "trigger", buf) < 0) {
				ftr_err("cannot %s the hist trigger of '%s:%s': %s",
					op == KHIST_CONT ? "start" : "pause", km->t[j].sys,
					km->t[j].name, strerror(errno));
				return -EIO;
			}
		}
	}
	return 0;
}


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

static int pc_plan(struct interp *in, int ci, char *why, size_t wlen)
{
	const struct clause *c = &in->p->cl[ci];
	const struct node *st = c->body;
	struct mapdef *m = &in->maps[st->a->slot];
	struct pcount *pc;
	char pred[2048] = "";
	const char *fixed = st->a->nargs == 1 ? fixed_comm(c->pred, st->a->args[0]) : NULL;
	bool by_cpu = st->a->nargs == 1 && !fixed;

	if (!in->e.feat.f[F_PERF].yes) {
		snprintf(why, wlen, "no perf_event_open");
		return -EINVAL;
	}
	if (st->next || m->kind != AGG_COUNT || m->refs != 1 || st->a->nargs > 1 ||
	    (by_cpu && !(st->a->args[0]->k == N_BUILTIN && st->a->args[0]->ival == B_CPU))) {
		snprintf(why, wlen, "only a keyless or per-CPU count(), or one keyed by the comm "
			 "its predicate fixes, fits perf counters");
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
	m->pc = pc;
	for (int i = 0; i < pc->nev; i++) {
		pc->ev[i]->trigger_only = true;
		planf(in, "%s: in the kernel, perf tracepoint counter%s on %s:%s%s%s%s\n", m->name,
		      pc->by_cpu || (!in->o->eng.pid && !in->o->eng.cmdv) ? "s (one per CPU)" : "",
		      pc->ev[i]->sys, pc->ev[i]->name, pc->filter[i][0] ? " with filter '" : "",
		      pc->filter[i], pc->filter[i][0] ? "'" : "");
	}
	if (pc->fixed)
		planf(in, "%s: its only key, comm, is '%s' by the filter: one count\n", m->name,
		      pc->fixed);
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
static int pc_start(struct interp *in, struct pcount *pc)
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

static void pc_stop(struct pcount *pc)
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

static int pc_read(struct interp *in, struct mapdef *m)
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

static int pc_clear(struct interp *in, struct mapdef *m)
{
	struct pcount *pc = m->pc;

	if (pc_snap(in, pc) < 0)
		return -EIO;
	memcpy(pc->base, pc->raw, sizeof(pc->raw[0]) * pc->nfds);
	return 0;
}

static void pc_close(struct pcount *pc)
{
	if (pc)
		pc_close_fds(pc);
	free(pc);
}

static int hist_add_all(struct interp *in)
{
	for (int i = 0; i < in->nmaps; i++) {
		struct kmap *km = in->maps[i].k;

		for (int j = 0; km && j < km->nt; j++)
			if (session_trigger_add(in->e.s, km->t[j].sys, km->t[j].name,
						km->t[j].cmd.add) < 0)
				return -EIO;
	}
	return 0;
}

static int hist_start(struct engine *e, void *arg)
{
	struct interp *in = arg;

	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].pc && pc_start(in, in->maps[i].pc) < 0)
			return -EIO;
	if (in->prof && lprof_start(in->prof) < 0)
		return -EIO;
	return hist_add_all(in);
}

static int hist_stop(struct engine *e, void *arg)
{
	struct interp *in = arg;

	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].pc)
			pc_stop(in->maps[i].pc);
	if (in->prof)
		lprof_stop(in->prof);
	return hist_op_all(arg, KHIST_PAUSE);
}

/*
 * What no kernel-side map can honour, whatever holds it.  The interpreter
 * runs events in the order they happened, so at an event a map holds what
 * came before that event; a hist trigger or a counter read then holds also
 * what happened since, up to the read (the ring buffer is read later).
 * The same holds of exit() at an event: user space stops counting at that
 * event, the kernel when tracing stops.  Reads in BEGIN, END and interval
 * clauses have no place in the event order, and read the kernel's maps as
 * they are.
 */
static const char *kernel_map_refused(struct interp *in, const struct mapdef *m)
{
	if (m->read_at_event)
		return "print() or clear() of it at an event must see the events before that "
		       "one only";
	if (in->exit_at_event)
		return "exit() at an event stops the maps at that event";
	return NULL;
}

/*
 * What a map's hist triggers cost to set up and take down on this kernel:
 * the kernel's waits for the events in flight (features.h), each taken as
 * two grace periods (tracepoint_synchronize_unregister waits for SRCU and
 * RCU), a grace period measured once per run.  0 where nothing can be
 * measured (offline, no membarrier).
 */
#define HIST_BUDGET_NS 2000000000ull	/* more, and auto plans user space */

static uint64_t hist_grace_ns(struct interp *in)
{
	static uint64_t grace;
	static bool done;

	if (!in->e.s)
		return 0;
	if (!done)
		grace = features_grace_ns();
	done = true;
	return grace;
}

static uint64_t hist_cost_ns(struct interp *in, const struct kmap *km, int *waits)
{
	*waits = 0;
	for (int j = 0; j < km->nt; j++)
		*waits += KCOST_TRIGGER_WAITS +
			  (strstr(km->t[j].cmd.add, " if ") ? KCOST_TRIGGER_FILTER_WAITS : 0);
	return (uint64_t)*waits * 2 * hist_grace_ns(in);
}

static void kmap_free(struct kmap *km)
{
	if (km)
		free(km->t);
	free(km);
}

static void plan_hists(struct interp *in)
{
	for (int ci = 0; ci < in->p->ncl; ci++) {
		const struct node *st = in->p->cl[ci].body;
		char why[256] = "";
		struct mapdef *m;
		uint64_t cost;
		int waits;

		if (!st || st->k != S_ASSIGN || st->a->k != N_MAP)
			continue;
		m = &in->maps[st->a->slot];
		if (m->k || !st->b || st->b->k != N_CALL || agg_of(st->b->sval) < 0)
			continue;
		m->planned = true;
		if (in->p->cl[ci].probes[0].pv == PV_PROFILE) {
			planf(in, "%s: in user space, from the samples\n", m->name);
			continue;
		}
		/* A hist trigger or counter would count every expiry, not
		 * only the sampler's: the filter on the callback is ftr's. */
		if (in->hrprof[ci]) {
			planf(in, "%s: in user space, from the sampler's eprobe\n", m->name);
			continue;
		}
		if (in->o->where == WHERE_USER) {
			planf(in, "%s: in user space (--where user)\n", m->name);
			continue;
		}
		if (kernel_map_refused(in, m)) {
			planf(in, "%s: in user space: %s\n", m->name, kernel_map_refused(in, m));
			continue;
		}
		if (hist_plan_clause(in, ci, why, sizeof(why)) < 0) {
			char why2[256] = "";

			if (m->kind == AGG_COUNT && pc_plan(in, ci, why2, sizeof(why2)) == 0)
				continue;
			planf(in, "%s: in user space: %s%s%s\n", m->name, why,
			      m->kind == AGG_COUNT && why2[0] ? "; not perf counters: " : "", why2);
			continue;
		}
		cost = hist_cost_ns(in, m->k, &waits);
		if (in->o->where == WHERE_AUTO && cost > HIST_BUDGET_NS) {
			planf(in, "%s: in user space: its %d hist trigger%s would take about %.1f s "
			      "to set up and take down here (%d waits of the kernel's for the events "
			      "in flight; a grace period measured at %.1f ms)\n", m->name, m->k->nt,
			      m->k->nt == 1 ? "" : "s", cost / 1e9, waits,
			      hist_grace_ns(in) / 1e6);
			kmap_free(m->k);
			m->k = NULL;
			continue;
		}
		for (int j = 0; j < m->k->nt && m->k->t[0].fold; j++) {
			int n = 0;

			for (int k = 0; k < in->e.nev; k++)
				if (in->eb[k].ncl == 1 && in->eb[k].clauses[0] == ci) {
					in->e.ev[k].trigger_only = true;
					n++;
				}
			planf(in, "%s: in the kernel, one hist trigger on %s:%s for the %d "
			      "syscalls:%s* events, keyed by the syscall's number, which the kernel "
			      "names (32-bit tasks' syscalls, which those events leave out, count "
			      "under the native names): %s\n", m->name, m->k->t[j].sys,
			      m->k->t[j].name, n, m->k->t[j].fold_prefix, m->k->t[j].cmd.add);
		}
		for (int j = 0; j < m->k->nt && !m->k->t[0].fold; j++) {
			m->k->t[j].ev->trigger_only = true;
			planf(in, "%s: in the kernel, a hist trigger on %s:%s: %s\n", m->name,
			      m->k->t[j].sys, m->k->t[j].name, m->k->t[j].cmd.add);
		}
		if (m->k->kk[0] == KK_COMM && m->k->nkeys)
			planf(in, "%s: the kernel keys by pid (common_pid.execname); ftr adds "
			      "the pids of each comm\n", m->name);
		if (cost)
			planf(in, "%s: set up and taken down in about %.2f s here (%d waits of the "
			      "kernel's for the events in flight; a grace period measured at "
			      "%.1f ms)\n", m->name, cost / 1e9, waits, hist_grace_ns(in) / 1e6);
		for (int i = 0; i < m->k->nkeys; i++)
			if (m->k->kk[i] == KK_SYM) {
				planf(in, "%s: the kernel keys .sym by address; ftr adds the "
				      "addresses of each function\n", m->name);
				break;
			}
	}
}

/* Triggers go in when tracing starts (hist_start), counting from then on:
 * created paused beforehand, each would cost a second command, :cont, which
 * the kernel takes as a new trigger with its filter parsed and freed again
 * behind a tracepoint synchronisation (2.6-3.3 s per 100 triggers in an
 * emulated 6.1 guest).  A plan that is only printed (-n, --emit-sh) has them
 * now, in the order the script runs them. */
static int hist_install(struct interp *in)
{
	if (in->e.s && session_dry_run(in->e.s) && hist_add_all(in) < 0)
		return -EIO;
	in->e.start_hook = hist_start;
	in->e.stop_hook = hist_stop;
	in->e.hook_arg = in;
	return 0;
}

/* Does the rendered predicate parse and bind on every event of clause ci?
 * (A negative number against an unsigned field, a pointer...: then the
 * interpreter keeps it.) */
static bool filter_fits(struct interp *in, int ci, const char *text, char *why, size_t wlen)
{
	for (int k = 0; k < in->e.nev; k++) {
		struct expr_err ee;
		struct expr *e;
		bool mine = false;

		for (int i = 0; i < in->eb[k].ncl; i++)
			mine |= in->eb[k].clauses[i] == ci;
		if (!mine)
			continue;
		e = expr_parse(text, &ee);
		if (!e || expr_bind(e, in->e.ev[k].ev, &ee) < 0) {
			snprintf(why, wlen, "on %s:%s: %.200s", in->e.ev[k].sys, in->e.ev[k].name,
				 ee.msg);
			expr_free(e);
			return false;
		}
		expr_free(e);
	}
	return true;
}

/* The eprobes of profile clauses (hrprof_clause) keep the sampler's timer
 * only, and then what plan_filters put there. */
static void hrprof_filters(struct interp *in)
{
	static char keep[HRPROF_MAX][4300];
	int n = 0;

	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];

		if (in->eb[k].ncl != 1 || !in->hrprof[in->eb[k].clauses[0]])
			continue;
		if (n == (int)ARRAY_SIZE(keep))
			break;	/* (hrprof_clause allows HRPROF_MAX) */
		snprintf(keep[n], sizeof(keep[n]), v->filter_text ? "ftr_hrfn == 0x%llx && (%s)" :
			 "ftr_hrfn == 0x%llx%s", (unsigned long long)in->hrfn,
			 v->filter_text ? v->filter_text : "");
		v->filter_text = keep[n++];
	}
}

/*
 * Predicates into the event filters, where each event feeds one clause; and
 * the command line's filter (ftr count/hist -f) on every event, joined to
 * the predicate when that goes too.
 */
static void plan_filters(struct interp *in)
{
	static char keep[64][4200];

	for (int ci = 0; ci < in->p->ncl; ci++) {
		struct clause *c = &in->p->cl[ci];
		char text[2048] = "", why[256];
		bool alone = true, pushed = false;
		int n = 0;

		if (!c->pred && !in->o->filter)
			continue;
		if (c->body && c->body->k == S_ASSIGN && c->body->a->k == N_MAP &&
		    (in->maps[c->body->a->slot].k || in->maps[c->body->a->slot].pc))
			continue;	/* the filter is the trigger's or the counter's */
		for (int k = 0; k < in->e.nev; k++)
			for (int i = 0; i < in->eb[k].ncl; i++)
				if (in->eb[k].clauses[i] == ci) {
					n++;
					alone &= in->eb[k].ncl == 1;
				}
		if (!n)
			continue;
		if (ci >= (int)ARRAY_SIZE(keep)) {
			planf(in, "clause %d: predicate in user space: too many clauses\n", ci + 1);
			continue;
		}
		if (c->pred && !alone) {
			planf(in, "clause %d: predicate in user space: its events feed other "
			      "clauses too\n", ci + 1);
		} else if (c->pred && plan_render_pred(c->pred, text, sizeof(text), why,
						       sizeof(why)) < 0) {
			planf(in, "clause %d: predicate in user space: %s\n", ci + 1, why);
		} else if (c->pred && !filter_fits(in, ci, text, why, sizeof(why))) {
			planf(in, "clause %d: predicate in user space: %s\n", ci + 1, why);
		} else if (c->pred) {
			pushed = true;
		}
		if (pushed && in->o->filter)
			snprintf(keep[ci], sizeof(keep[ci]), "(%s) && (%s)", text, in->o->filter);
		else if (pushed)
			snprintf(keep[ci], sizeof(keep[ci]), "%s", text);
		else if (in->o->filter)
			snprintf(keep[ci], sizeof(keep[ci]), "%s", in->o->filter);
		else
			continue;
		for (int k = 0; k < in->e.nev; k++)
			for (int i = 0; i < in->eb[k].ncl; i++)
				if (in->eb[k].clauses[i] == ci) {
					in->e.ev[k].filter_text = keep[ci];
					in->eb[k].pred_pushed = pushed;
				}
		planf(in, "clause %d: filter '%s' on its %d event%s (in the kernel where it "
		      "can evaluate it)\n", ci + 1, keep[ci], n, n == 1 ? "" : "s");
	}
	hrprof_filters(in);
}

/* echo 'VAL' > $I/events/SYS/EV/FILE, VAL quoted for sh. */
static void emit_echo(FILE *b, const char *val, const char *sys, const char *name,
		      const char *file)
{
	fputs("echo ", b);
	sh_quote(b, val);
	/* Append to a trigger file: truncating it removes every trigger. */
	fprintf(b, " %s $I/events/%s/%s/%s\n", strcmp(file, "trigger") ? ">" : ">>", sys, name,
		file);
}

/* --emit-sh: the in-kernel part as a script: set up, count, read, undo. */
static int emit_sh(struct interp *in)
{
	char *body = NULL;
	size_t len = 0;
	FILE *b = open_memstream(&body, &len);
	int err;

	if (!b)
		return -ENOMEM;
	for (const char *p = in->plan; *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(b, "# %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	/* A keyless count runs on perf counters in ftr: in sh, the events
	 * themselves go to the buffer (filtered alike) and are counted there. */
	for (int i = 0; i < in->nmaps; i++) {
		struct pcount *pc = in->maps[i].pc;

		for (int j = 0; pc && j < pc->nev; j++) {
			if (pc->filter[j][0])
				emit_echo(b, pc->filter[j], pc->ev[j]->sys, pc->ev[j]->name, "filter");
			emit_echo(b, "1", pc->ev[j]->sys, pc->ev[j]->name, "enable");
		}
	}
	if (in->o->eng.duration_ns)
		fprintf(b, "sleep %llu\n",
			(unsigned long long)((in->o->eng.duration_ns + 999999999) / 1000000000));
	else
		fprintf(b, "echo 'tracing: Ctrl-C to stop' >&2\n"
			   "trap 'stop=1' INT TERM HUP\nstop=\n"
			   "while [ -z \"$stop\" ]; do sleep 1; done\n");
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];

		if (m->kind == AGG_VALUE)
			continue;
		for (int j = 0; m->k && j < m->k->nt; j++) {
			char cmd[KHIST_CMD_MAX + 16];

			if (khist_cmd(m->k->t[j].cmd.add, KHIST_PAUSE, cmd, sizeof(cmd)) == 0)
				emit_echo(b, cmd, m->k->t[j].sys, m->k->t[j].name, "trigger");
			fprintf(b, "echo '%s (raw values; ftr would bucket and merge them):'\n"
				   "cat $I/events/%s/%s/hist\n", m->name, m->k->t[j].sys,
				m->k->t[j].name);
		}
		if (m->pc && !m->pc->by_cpu) {
			/* The events of a count, by name, in the buffer. */
			fprintf(b, "echo 0 > $I/tracing_on\necho \"%s%s%s%s: $(awk '", m->name,
				m->pc->fixed ? "[" : "", m->pc->fixed ? m->pc->fixed : "",
				m->pc->fixed ? "]" : "");
			for (int j = 0; j < m->pc->nev; j++)
				fprintf(b, "%s/ %s: /", j ? " || " : "", m->pc->ev[j]->name);
			fprintf(b, " { n++ } END { print n + 0 }' $I/trace)\"\n");
		} else if (!m->k) {
			fprintf(b, "# %s is computed by ftr in user space (%s): sh cannot do it; "
				   "the events are in $I/trace\n", m->name,
				m->pc ? "perf counters" : "from the event stream");
		}
	}
	fclose(b);
	err = session_script(in->e.s, stdout, body);
	free(body);
	return err;
}

/* Compile p on the opened engine and decide what runs where.  0, or an
 * error (in in->err with its position when the program is at fault). */
static int setup(struct interp *in)
{
	int err = compile(in, &in->err);
	bool ufetch = false;

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
	}
	if (in->e.ustacks)
		planf(in, "ustack at events: the instance's userstacktrace option records a user "
		      "stack (8 frames at most, by frame pointers) after every event\n");
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
	exec_comm_plan(in);
	return hist_install(in);
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
		int n = 0;

		for (int i = 0; i < p->ncl; i++)
			n += p->cl[i].nprobes;
		ob_puts(&in->ob, "{\"type\": \"attached_probes\", \"data\": {\"probes\": ");
		ob_u64(&in->ob, n);
		ob_puts(&in->ob, "}}\n");
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
	if (in->o->mode == OUT_BTJSON)
		ob_puts(&in->ob, "\n\n");
	for (int n = 0, i = -1, printed = 0; n < in->nmaps; n++) {
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
		print_map(in, &in->maps[i], -1, 0);
	}
	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].m && in->maps[i].kind == AGG_VALUE && agg_dropped(in->maps[i].m))
			fprintf(stderr, "ftr: %s: %llu stores dropped: the map holds %u entries "
				"(some lookups of it found nothing)\n", in->maps[i].name,
				(unsigned long long)agg_dropped(in->maps[i].m), agg_size(in->maps[i].m));
	return ob_flush(&in->ob);
}

static void metrics_close(struct interp *in);

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
	free(in->eb);
	free(in->next_fire);
	for (int c = 0; c < 256; c++)
		free(in->fetch_why[c]);
	ksyms_free(in->ks);
	kcore_close(in->kc);
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

/* ---- over a recording (ftr run -i FILE) ----------------------------------- */

#ifndef FTR_NO_TRACECMD
struct input_ctx {
	struct interp *in;
	bool intervals;
	uint64_t last;
};

static int input_record(struct tep_record *rec, void *arg)
{
	struct input_ctx *c = arg;

	/* Time is the recording's: interval clauses fire as its timestamps
	 * pass their periods. */
	if (c->intervals && interp_tick(c->in, rec->ts))
		return 1;
	c->last = rec->ts;
	return interp_feed(c->in, rec);
}
#endif

/* The program over every record of the file, with the user-space
 * semantics (nothing is in a kernel), and kernel symbols from the file's
 * kallsyms. */
#ifdef FTR_NO_TRACECMD
static int lang_run_input(struct program *p, const struct run_opts *o)
{
	ftr_err("reading recordings (-i/--input) is not in this build (the static build has "
		"no libtracecmd): use the dynamic ftr");
	return FTR_EXIT_FAIL;
}
#else
static int lang_run_input(struct program *p, const struct run_opts *o)
{
	struct run_opts ro = *o;
	struct input_ctx c = { 0 };
	struct lang_err lerr;
	struct tdat *td;
	char err[512], *ks;
	int ret = FTR_EXIT_FAIL, r;

	td = tdat_open(o->input, err, sizeof(err));
	if (!td) {
		ftr_err("cannot read '%s': %s", o->input, err);
		return FTR_EXIT_FAIL;
	}
	ks = tdat_kallsyms(td);
	ksyms_set_source(ks ? ks : "");
	/* trace-cmd's version 7 files: the kallsyms libtracecmd read. */
	if (!ks && tdat_nksyms(td) > 0)
		ksyms_set_resolver(tdat_ksym, td);
	ro.eng.file_tep = tdat_tep(td);
	ro.where = WHERE_USER;
	ro.input = NULL;
	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++) {
			enum probe_provider pv = p->cl[i].probes[j].pv;

			c.intervals |= pv == PV_INTERVAL;
			if (pv == PV_PROFILE) {
				ftr_err("'%s' samples the running system: a recording has only "
					"its events", p->cl[i].probes[j].text);
				goto out;
			}
			/* A kprobe or uprobe is the event 'ftr record -e PROGRAM'
			 * made for it (engine_add_probe finds it by name); or
			 * tracepoint:SYSTEM:EVENT names one ('ftr report FILE'). */
		}
	c.last = tdat_first_ts(td);
	c.in = interp_open(p, &ro, NULL, STDOUT_FILENO, c.last, &lerr);
	if (!c.in) {
		if (lerr.msg[0])
			lang_perror(p, o->src, &lerr);
		goto out;
	}
	/* kstack frames are named as live ones are (the file's kallsyms). */
	if (prof_open(c.in) < 0)
		goto out;
	r = tdat_iterate(td, input_record, NULL, &c);
	if (r < 0) {
		ftr_err("reading '%s': %s", o->input, strerror(-r));
		goto out;
	}
	engine_feed_end(interp_engine(c.in), on_event, c.in);
	r = interp_finish(c.in, c.last);
	ret = r < 0 && r != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
out:
	interp_close(c.in);
	ksyms_set_source(NULL);
	ksyms_set_resolver(NULL, NULL);
	free(ks);
	tdat_close(td);
	return ret;
}
#endif
/* ---- the maps as metrics: --serve, --prom-file ------------------------------- */

/* The first store into map slot in a statement list, or NULL. */
static const struct node *map_store(const struct node *st, int slot)
{
	for (; st; st = st->next) {
		const struct node *f;

		if (st->k == S_ASSIGN && st->a->k == N_MAP && st->a->slot == slot)
			return st;
		if (st->k == S_IF && ((f = map_store(st->b, slot)) || (f = map_store(st->c, slot))))
			return f;
	}
	return NULL;
}

/* # HELP: the probes of the clause that stores into the map, and the
 * program's line of that store. */
static char *map_help(struct interp *in, int slot, const struct node **store)
{
	const char *src = in->o->src ? in->o->src : "";
	char *h = NULL, probes[512] = "";
	size_t pl = 0;
	int line = 1;

	*store = NULL;
	for (int i = 0; i < in->p->ncl && !*store; i++) {
		*store = map_store(in->p->cl[i].body, slot);
		for (int j = 0; *store && j < in->p->cl[i].nprobes && pl < sizeof(probes); j++)
			pl += snprintf(probes + pl, sizeof(probes) - pl, "%s%s", j ? ", " : "",
				       in->p->cl[i].probes[j].text);
	}
	if (!*store)
		return strdup(in->maps[slot].name);
	while (*src && line < (*store)->line)
		if (*src++ == '\n')
			line++;
	src += strspn(src, " \t");
	if (asprintf(&h, "%s at %s; line %d: %.*s", in->maps[slot].name, probes,
		     (*store)->line, (int)(strcspn(src, "\n") < 300 ? strcspn(src, "\n") : 300),
		     src) < 0)
		return NULL;
	return h;
}

static int metrics_write_file(struct interp *in);

static int metrics_open(struct interp *in)
{
	static const char *const types[SERVE_VARIANTS] = { PROM_TEXT_TYPE, PROM_OM_TYPE };
	char err[256];

	if (!in->o->serve && !in->o->prom_file)
		return 0;
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];
		struct prom_map *pm = &in->pmaps[i];
		const struct node *st;

		/* strings and stacks kept as values are no numbers */
		if (!m->m || m->vt > VT_INT)
			continue;
		in->phelp[i] = map_help(in, i, &st);
		if (!in->phelp[i])
			return -ENOMEM;
		pm->m = m->m;
		pm->help = in->phelp[i];
		pm->sym = in->prof ? lprof_frame : NULL;
		pm->sym_arg = in->prof;
		for (int k = 0; st && k < st->a->nargs && k < AGG_MAX_KEYS; k++) {
			const struct node *kn = st->a->args[k];

			if (kn->k == N_CALL && kn->nargs == 1)
				kn = kn->args[0];	/* ksym(args.x), hex(args.x) ... */
			if ((kn->k == N_BUILTIN || kn->k == N_FIELD) && kn->sval) {
				snprintf(in->plabels[i][k], sizeof(in->plabels[i][k]), "%s", kn->sval);
				pm->labels[k] = in->plabels[i][k];
			}
		}
	}
	if (prom_check_names(in->pmaps, in->nmaps, err, sizeof(err)) < 0) {
		ftr_err("%s: %s", in->o->serve ? "--serve" : "--prom-file", err);
		return -EINVAL;
	}
	in->prom = prom_alloc(in->pmaps, in->nmaps);
	in->pob = malloc(sizeof(*in->pob));
	if (!in->prom || !in->pob)
		return -ENOMEM;
	if (serve_available() && in->o->serve) {
		if (serve_start(in->o->serve, types, &in->srv, err, sizeof(err)) < 0) {
			ftr_err("--serve: %s", err);
			return -EIO;
		}
		fprintf(stderr, "ftr: metrics at http://%s/metrics\n", serve_where(in->srv));
	}
	/* The first file now: a path that cannot be written fails the run
	 * before it starts. */
	if (in->o->prom_file && metrics_write_file(in) < 0)
		return -EIO;
	return 0;
}

/* The maps the kernel or perf counters keep, read back. */
static int metrics_render(struct interp *in, int fd, enum prom_fmt fmt)
{
	for (int i = 0; i < in->nmaps; i++) {
		if (!in->pmaps[i].m)
			continue;
		if (in->maps[i].k && hist_read(in, &in->maps[i]) < 0)
			return -EIO;
		if (in->maps[i].pc && pc_read(in, &in->maps[i]) < 0)
			return -EIO;
	}
	ob_init(in->pob, fd);
	if (prom_render(in->prom, fmt, in->pob) < 0)
		return in->pob->err ? in->pob->err : -ENOMEM;
	return ob_flush(in->pob);
}

/* FILE.PID.tmp, then rename: node_exporter's textfile collector reads
 * *.prom files, and never sees one half written. */
static int metrics_write_file(struct interp *in)
{
	char *tmp = NULL;
	int fd, err;

	if (asprintf(&tmp, "%s.%d.tmp", in->o->prom_file, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = fd < 0 ? -errno : metrics_render(in, fd, PROM_TEXT);
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, in->o->prom_file) < 0)
		err = -errno;
	if (err && fd >= 0)
		unlink(tmp);
	if (err && !in->prom_warned) {
		ftr_err("--prom-file: cannot write '%s': %s", err == -EIO || fd < 0 ? tmp :
			in->o->prom_file, strerror(-err));
		in->prom_warned = true;		/* once: the run goes on */
	}
	free(tmp);
	return err;
}

static void metrics_tick(struct interp *in, uint64_t now)
{
	unsigned want;

	if (!in->prom)
		return;
	want = serve_available() && in->srv ? serve_wanted(in->srv) : 0;
	for (int v = 0; v < SERVE_VARIANTS; v++) {
		int fd;
		off_t len;

		if (!(want & (1u << v)))
			continue;
		fd = memfd_create("ftr-metrics", MFD_CLOEXEC);
		if (fd < 0 || metrics_render(in, fd, v ? PROM_OPENMETRICS : PROM_TEXT) < 0 ||
		    (len = lseek(fd, 0, SEEK_CUR)) < 0) {
			if (fd >= 0)
				close(fd);
			continue;	/* the request times out with the last one */
		}
		serve_publish(in->srv, v, fd, (size_t)len);
	}
	if (in->o->prom_file) {
		uint64_t every = in->o->prom_interval_ns ? in->o->prom_interval_ns :
				 PROM_FILE_INTERVAL;

		if (!in->prom_next)
			in->prom_next = now + every;
		if (now >= in->prom_next) {
			metrics_write_file(in);
			in->prom_next += every;
			if (in->prom_next <= now)
				in->prom_next = now + every;
		}
	}
}

static void metrics_close(struct interp *in)
{
	if (in->prom && prom_dropped(in->prom))
		fprintf(stderr, "ftr: %llu counts not carried across clear() in the metrics: "
			"their maps were full\n", prom_dropped(in->prom));
	serve_stop(in->srv);
	in->srv = NULL;
	prom_free(in->prom);
	in->prom = NULL;
	for (int i = 0; i < in->nmaps; i++)
		free(in->phelp[i]);
	free(in->pob);
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
	if (o->eng.explain) {
		ret = FTR_EXIT_OK;
		goto out;
	}
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
		ftr_err("write error on standard output: %s", strerror(-in->ob.err));
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
