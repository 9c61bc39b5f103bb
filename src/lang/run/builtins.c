// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Builtin functions: one row each in builtins[] (near the end of this
 * file), with its check (the semantic pass) and its value (evaluation)
 * written above the table, beside one another; the functions that act (a
 * statement: printf, print, cat, system, time, exit, clear, zero, delete,
 * errorf) have theirs in builtin-actions.c, named here through
 * builtins-int.h.
 *
 * A row (struct builtin_fn, interp-int.h):
 *
 *   name      as a program calls it
 *   min, max  how many arguments it takes
 *   args      its arguments as ftr-language(7)'s table writes them
 *   ret       the type of its value (VT_INT, VT_STR, VT_BUF, VT_STACK), or
 *             VT_NONE for a statement or an aggregation
 *   where     the clauses where it exists (BW_*), checked after its checker,
 *             whose own message says more where it has one
 *   flags     BF_AGG: an aggregation of kind .agg, only as a map's value;
 *             BF_OWN_ARGS: the checker checks the arguments itself (else
 *             each argument is checked first); BF_BUF_ARGS: buf() may be an
 *             argument after the first (printf's %r)
 *   push      what a kernel pushdown computes of it (BP_*): an aggregation a
 *             hist trigger or perf counters keep (plan/histtrig.c, plan/perfcount.c), or a
 *             hist key of a field (hex, ksym, ksymoff); 0: user space only
 *   check     binds the node (its arguments checked unless BF_OWN_ARGS): 0,
 *             or -errno with lang_errf() at the node at fault; the node's
 *             type is then ret.  NULL: any arguments of the right count
 *   eval      its value at an event (a value), or NULL
 *   exec      what it does at an event (a statement), or NULL
 *
 * Adding a builtin function: its check and eval above the table (or its
 * check and exec in builtin-actions.c),
 * its row, a row in ftr-language(7)'s function table (test-builtins checks
 * the two tables agree), and a unit test in test-interp.c.  A name that
 * bpftrace has and ftr cannot or not yet has is in no_bpf[] or not_yet[].
 *
 * The builtin variables (pid, comm, nsecs...) are builtin-vars.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <signal.h>

#include <tracefs.h>

#include "ftr.h"
#include "kernel/abi.h"
#include "kernel/arch.h"
#include "kernel/comm.h"
#include "kernel/flagnames.h"
#include "kernel/session.h"
#include "lang/interp-int.h"
#include "lang/plan/filtertext.h"
#include "lang/plan/fetchargs.h"
#include "lang/run/builtins-int.h"
#include "report/sym.h"

/* ---- checks ------------------------------------------------------------------ */

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
	{ "uaddr", "resolves a user symbol's address for a BPF read at the event" },
	{ "path", "needs bpf_d_path, which only BPF programs can call" },
	{ "macaddr", "reads memory at the event (a BPF read)" },
	{ "cgroupid", "needs a BPF helper (the kernel's cgroup ids are not in events)" },
	{ "cgroup_path", "needs a BPF helper (the kernel's cgroup ids are not in events)" },
	{ "skboutput", "writes packets through BPF's perf output" },
	{ "percpu_kaddr", "reads a per-CPU variable at the event (a BPF read)" },
	{ "printk", "writes through bpf_trace_printk" },
	{ "debugf", "writes through bpf_trace_printk" },
	{ "write_user", "writes user memory at the event (bpf_probe_write_user); ftr only "
	  "observes" },
};

/* ... and the ones ftr has not yet. */
static const char *const not_yet[] = { "socket_cookie" };

/* kstack(build_id): bpftrace warns and prints it raw. */
static int kstack_mode(int mode)
{
	static bool warned;

	if (mode != LANG_STACK_BUILD_ID)
		return mode;
	if (!warned)
		ftr_warn("'build_id' stack mode can only be used for ustack. Falling back "
			 "to 'raw' mode.");
	warned = true;
	return LANG_STACK_RAW;
}

/* A stack's mode where the program names none: BPFTRACE_STACK_MODE, which
 * wins over the config block's stack_mode (as in bpftrace), else that,
 * else bpftrace's own.  kstack has no build ids: raw, with bpftrace's
 * warning.  The mode, or -EINVAL. */
int stack_mode_env(const struct program *p)
{
	const char *env = getenv("BPFTRACE_STACK_MODE");

	if (env && *env)
		return lang_stack_mode(env);
	return p->stack_mode ? p->stack_mode - 1 : LANG_STACK_BPFTRACE;
}

int stack_default_mode(struct sema *s, struct node *n, bool kernel)
{
	int mode = stack_mode_env(s->in->p);

	if (mode < 0) {
		lang_errf(s->err, n, "BPFTRACE_STACK_MODE='%s': the modes are bpftrace, perf, "
			  "raw and build_id", getenv("BPFTRACE_STACK_MODE"));
		return -EINVAL;
	}
	return kernel ? kstack_mode(mode) : mode;
}

/* kstack(N), kstack(perf), ustack(bpftrace, N): the builtin, N frames at
 * most, printed in that mode. */
static int check_stack_call(struct sema *s, struct node *n)
{
	bool kernel = !strcmp(n->sval, "kstack");
	int mode = stack_default_mode(s, n, kernel), limit = 0;

	if (mode < 0)
		return mode;
	for (int i = 0; i < n->nargs; i++) {
		const struct node *a = n->args[i];

		if (i == 0 && a->k == N_STR && a->idx == -1 && lang_stack_mode(a->sval) >= 0) {
			mode = lang_stack_mode(a->sval);
			if (kernel)
				mode = kstack_mode(mode);
		} else if (a->k == N_INT && a->ival > 0 && i == n->nargs - 1) {
			limit = a->ival > AGG_STACK_MAX ? AGG_STACK_MAX : (int)a->ival;
		} else {
			lang_errf(s->err, a, "%s(): takes a mode (bpftrace, perf, raw, build_id) and "
				  "a number of frames, e.g. %s(perf, 5)", n->sval, n->sval);
			return -EINVAL;
		}
	}
	n->k = N_BUILTIN;
	n->ival = kernel ? B_KSTACK : B_USTACK;
	n->idx = limit;
	n->op = (enum tok)mode;
	return check(s, n);
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

/*
 * buf(p, len), buf(array): the bytes the event's probe fetched as a fixed
 * array (fetchargs.c at kprobes and uprobes, a tracepoint's own array field,
 * or strfetch.c's F_buf at a tracepoint whose F is an address); the first
 * len of them are kept (bpftrace's length rule: unsigned, at most the
 * copy).  n->bind is the array per event, n->idx the bytes kept at most.
 */
static int check_buf(struct sema *s, struct node *n)
{
	struct node *a = n->args[0];
	struct tep_format_field **tab;
	int cap = typed_buf_cap();

	if (!s->buf_ok) {
		lang_errf(s->err, n, "buf() is printed (printf's %%r, print()), kept in a variable "
			  "or map (a key or a value) and compared (==, !=); ftr computes nothing "
			  "else with one");
		return -EINVAL;
	}
	if (a->k == N_STR && a->idx != -1) {
		/* buf("lit", len): the literal's bytes with its NUL, bpftrace's
		 * char array, of which len are kept */
		size_t size = strlen(a->sval);

		if (a->ival > (int64_t)size)
			size = (size_t)a->ival;	/* "a\0b": the lexer's count */
		size++;
		if (n->nargs != 2 || n->args[1]->k != N_INT || n->args[1]->ival < 0 ||
		    (uint64_t)n->args[1]->ival > size) {
			lang_errf(s->err, n, "buf(\"...\", len): len is a constant from 0 to the "
				  "literal's size with its NUL (%zu)", size);
			return -EINVAL;
		}
		free(n->bind);
		n->bind = malloc(size);
		if (!n->bind)
			return -ENOMEM;
		memcpy(n->bind, a->sval, size);
		n->idx = (int)n->args[1]->ival;
		n->type = VT_BUF;
		return 0;
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

/* The arguments are numbers: the aggregations, print's top and div. */
static int check_numbers(struct sema *s, struct node *n, int from)
{
	for (int i = from; i < n->nargs; i++)
		if (n->args[i]->type != VT_INT) {
			lang_errf(s->err, n->args[i], "%s() takes a number", n->sval);
			return -EINVAL;
		}
	return 0;
}

static int check_agg(struct sema *s, struct node *n)
{
	return check_numbers(s, n, 0);
}

/* hist(x[, k]): k, a constant 0 to 5, splits each power of 2 into 2^k
 * linear buckets; 0, bpftrace's default, is hist(x), which the argument
 * then leaves. */
static int check_hist(struct sema *s, struct node *n)
{
	if (n->nargs == 2) {
		struct node *k = n->args[1];

		if (k->k != N_INT || k->ival < 0 || k->ival > 5) {
			lang_errf(s->err, k, "hist(x, k): k is a constant from 0 to 5");
			return -EINVAL;
		}
		if (!k->ival) {
			lang_node_free(k);
			n->nargs = 1;
		}
	}
	return check_agg(s, n);
}

/* tseries(value, interval, n[, "avg"|"max"|"min"|"sum"]): set_kind (sema.c)
 * reads the constants. */
static int check_tseries(struct sema *s, struct node *n)
{
	if (s->in->o->eng.file_tep) {
		lang_errf(s->err, n, "tseries() over a recording: its intervals are wall-clock "
			  "times of the machine that recorded, which the file does not keep");
		return -EINVAL;
	}
	if (n->nargs == 4 && n->args[3]->k != N_STR) {
		lang_errf(s->err, n->args[3], "tseries(): the aggregation is a literal: \"avg\", "
			  "\"max\", \"min\" or \"sum\"");
		return -EINVAL;
	}
	for (int i = 0; i < 3; i++)
		if (n->args[i]->type != VT_INT) {
			lang_errf(s->err, n->args[i], "tseries() takes a number");
			return -EINVAL;
		}
	return 0;
}

/* print(@m[, top[, div]]), clear(@m), zero(@m), delete(@m[k]): the map. */
/* f(@m, k1, k2) of today's bpftrace: the keys move to the map node,
 * f(@m[k1, k2]). */
static int keys_to_map(struct node *n)
{
	struct node *m = n->args[0];

	m->args = malloc((size_t)(n->nargs - 1) * sizeof(*m->args));
	if (!m->args)
		return -ENOMEM;
	memcpy(m->args, n->args + 1, (size_t)(n->nargs - 1) * sizeof(*m->args));
	m->nargs = n->nargs - 1;
	n->nargs = 1;
	return 0;
}

int check_map_arg(struct sema *s, struct node *n)
{
	struct node *m = n->args[0];
	struct mapdef *md;

	if (m->k != N_MAP) {
		lang_errf(s->err, m, "%s() takes a map", n->sval);
		return -EINVAL;
	}
	if (n->nargs > 1 && !strcmp(n->sval, "delete")) {
		/* delete(@m, k1, k2), today's spelling of delete(@m[k1, k2]) */
		if (m->nargs) {
			lang_errf(s->err, n, "delete(@map, key) or delete(@map[key])");
			return -EINVAL;
		}
		if (keys_to_map(n) < 0)
			return -ENOMEM;
	}
	if (strcmp(n->sval, "delete") && m->nargs) {
		lang_errf(s->err, m, "%s() takes the whole map: %s", n->sval, m->sval);
		return -EINVAL;
	}
	if (m->nargs)
		return check_map_keys(s, m);
	md = map_get(s->in, m->sval);
	if (!md) {
		lang_errf(s->err, m, "too many maps (ftr keeps %d)", (int)ARRAY_SIZE(s->in->maps));
		return -EINVAL;
	}
	if (!strcmp(n->sval, "delete") && md->nkeys) {
		lang_errf(s->err, m, "delete() takes one entry: %s[key]", m->sval);
		return -EINVAL;
	}
	m->slot = (int)(md - s->in->maps);
	/* delete(@) of a map without keys empties it, as clear() */
	if (!strcmp(n->sval, "clear") || !strcmp(n->sval, "zero") || !strcmp(n->sval, "delete"))
		s->in->maps[m->slot].cleared = true;
	if (!strcmp(n->sval, "zero"))
		s->in->maps[m->slot].zeroed = true;
	if (s->has_record)
		s->in->maps[m->slot].read_at_event = true;
	return 0;
}

/* int8(x) ... uint64(x): C's casts, as functions (any C integer type name
 * that starts with int or uint: builtin_find). */
static int check_cast(struct sema *s, struct node *n)
{
	int bits = 64;
	bool sgn = false;

	if (n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "%s() takes a number", n->sval);
		return -EINVAL;
	}
	lang_int_type(n->sval, &bits, &sgn);
	n->idx = bits;
	n->op = sgn ? T_MINUS : T_PLUS;
	return 0;
}

static int check_bswap(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "bswap() takes a number");
		return -EINVAL;
	}
	/* The bytes of the argument's type, as bpftrace swaps them
	 * (tcpconnect: bswap of the u16 skc_dport). */
	n->idx = int_width(s, n->args[0]);
	return 0;
}

static bool is_pton(const struct node *n)
{
	return n->k == N_CALL && !strcmp(n->sval, "pton");
}

static int check_ntop(struct sema *s, struct node *n)
{
	const struct node *a = n->args[n->nargs - 1];

	if ((a->type != VT_INT && !addr_field(s, a) && !is_pton(a)) ||
	    (n->nargs == 2 && n->args[0]->type != VT_INT)) {
		lang_errf(s->err, n, "ntop([AF_INET|AF_INET6,] address) takes numbers or "
			  "an address field (u8[4], u8[16])");
		return -EINVAL;
	}
	return text_buffer(n, 64);
}

static int check_usym(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "usym() takes a number");
		return -EINVAL;
	}
	/* frames are named by the profiler's symbol cache */
	s->in->prof_k = true;
	return text_buffer(n, KSYM_TEXT);
}

static int check_strftime(struct sema *s, struct node *n)
{
	if (n->args[0]->k != N_STR || n->args[1]->type != VT_INT) {
		lang_errf(s->err, n, "strftime(\"format\", nsecs): a literal format and a "
			  "time in nanoseconds");
		return -EINVAL;
	}
	return text_buffer(n, 256);
}

static int check_strncmp(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_STR || n->args[1]->type != VT_STR ||
	    n->args[2]->type != VT_INT) {
		lang_errf(s->err, n, "strncmp(string, string, n)");
		return -EINVAL;
	}
	return 0;
}

static int check_str(struct sema *s, struct node *n)
{
	unsigned char buf_ok = s->buf_ok;
	struct node *a;
	int err = check_str_elem(s, n);

	/* (BF_OWN_ARGS: args.F[K] is made a field before it is checked) */
	s->buf_ok = 0;
	for (int i = 0; !err && i < n->nargs; i++)
		err = check(s, n->args[i]);
	s->buf_ok = buf_ok;
	if (err)
		return err;
	a = n->args[0];

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
	if (a->type == VT_STR)
		return 0;
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

/* ---- values ------------------------------------------------------------------ */

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

	if (is_pton(a)) {
		blen = (size_t)a->ival;
		memcpy(b, a->bind, blen);
	} else if (a->k == N_FIELD && x->rec) {
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

/* A buffer as bpftrace prints it: %r (form 0) printable ASCII as it is
 * (a backslash too), any other byte as \xNN; %rx every byte as \xNN; %rh
 * every byte as two hex digits, a space between them. */
void buf_text(struct outbuf *ob, const char *s, size_t len, char form)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!form && c >= 32 && c <= 126) {
			ob_putc(ob, (char)c);
			continue;
		}
		if (form == 'h' && i)
			ob_putc(ob, ' ');
		if (form != 'h')
			ob_write(ob, "\\x", 2);
		ob_putc(ob, hex[c >> 4]);
		ob_putc(ob, hex[c & 15]);
	}
}

/* buf(): the first len bytes of the fetched array, len taken unsigned (so
 * -1 is all of it), as bpftrace caps it. */
static struct val eval_buf(struct xctx *x, const struct node *n)
{
	struct tep_format_field *f;
	uint64_t len = (uint64_t)n->idx;

	if (n->args[0]->k == N_STR)
		return (struct val){ .t = VT_BUF, .s = n->bind, .len = len };
	f = x->rec ? ((struct tep_format_field **)n->bind)[x->ev->idx] : NULL;

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

/* strftime(fmt, ns): the local time of ns, a time of nsecs' clock
 * (CLOCK_MONOTONIC), as strftime(3) formats it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* bpftrace's %f of strftime(): the microseconds of ns (below a second),
 * six digits, written into the format before strftime(3) sees it. */
static void strftime_usecs(char *out, size_t size, const char *fmt, uint64_t ns)
{
	size_t o = 0;

	for (const char *p = fmt; *p && o + 7 < size; p++) {
		if (p[0] == '%' && p[1] == 'f') {
			o += (size_t)snprintf(out + o, size - o, "%06llu",
					      (unsigned long long)(ns / 1000 % 1000000));
			p++;
		} else if (p[0] == '%' && p[1]) {
			out[o++] = *p++;
			out[o++] = *p;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
}

/*
 * The wall clock less nsecs' clock, taken once a run and kept in whole
 * microseconds: two strftime()s of one run then differ by exactly what
 * their times differ by (strftime("%s.%f", a) - strftime("%s.%f", b) is
 * (a - b) in microseconds, as in bpftrace), where an offset read at each
 * call moved by a microsecond between calls.
 */
static int64_t wall_offset_ns(void)
{
	static int64_t off;
	static bool known;
	struct timespec now;
	uint64_t mono;

	if (!known) {
		mono = engine_now_ns();
		clock_gettime(CLOCK_REALTIME, &now);
		off = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - (int64_t)mono;
		off -= off % 1000;
		known = true;
	}
	return off;
}

static struct val eval_strftime(struct xctx *x, const struct node *n)
{
	uint64_t ns = (uint64_t)eval(x, n->args[1]).i;
	int64_t wall = (int64_t)ns + wall_offset_ns();
	time_t t;
	struct tm tm;
	size_t len = 0;
	char fmt[256];

	/* ns on the wall clock: seconds and microseconds of one instant */
	t = (time_t)(wall / 1000000000);
	strftime_usecs(fmt, sizeof(fmt), n->args[0]->sval, (uint64_t)(wall % 1000000000));
	if (localtime_r(&t, &tm))
		len = strftime(n->bind, 256, fmt, &tm);
	return vstr(n->bind, len);
}
#pragma GCC diagnostic pop

/* usym(addr): the function of a user address in the event's process, as
 * bpftrace prints it (no offset); the address in hex where none names it. */
static struct val eval_usym(struct xctx *x, const struct node *n)
{
	uint64_t addr = (uint64_t)eval(x, n->args[0]).i;
	char *buf = n->bind;
	int pid = x->smp ? (int)x->smp->pid : x->rec ? comm_tgid(x->in->e.comms, tid_of(x), x->now) : 0;

	buf[0] = '\0';
	lprof_note_pid(x->in->prof, pid);
	if (pid > 0)
		note_probed_file(x, pid);	/* reg("ip") of a process gone since */
	if (x->in->prof && pid > 0) {
		lprof_frame(LPROF_UTAG | (uint32_t)pid, 0, 0, buf, KSYM_TEXT, x->in->prof);
		if (lprof_frame(addr, 1, 0, buf, KSYM_TEXT, x->in->prof) == 0)
			buf[strcspn(buf, "+")] = '\0';
		else
			buf[0] = '\0';
	}
	if (!buf[0])
		snprintf(buf, KSYM_TEXT, "0x%llx", (unsigned long long)addr);
	return vstr(buf, strlen(buf));
}

/*
 * BPFTRACE_MAX_STRLEN=N: bpftrace keeps at most N bytes of str(); a longer
 * string is cut there and ends in BPFTRACE_STR_TRUNC_TRAILER (".." unless
 * set), as its suite's str_truncated wants.
 * An explicit str(x, len) cuts with no trailer.  The cut string lives in a
 * ring of buffers, for the event's evaluation, as a record's bytes do.
 */
static struct val max_strlen(struct val a)
{
	static char ring[8][1024];
	static unsigned next;
	static long max = -1;
	static const char *trailer;
	char *b;

	if (max < 0) {
		const char *e = getenv("BPFTRACE_MAX_STRLEN");

		max = e && *e ? strtol(e, NULL, 10) : 0;
		trailer = getenv("BPFTRACE_STR_TRUNC_TRAILER");
		if (!trailer)
			trailer = "..";
	}
	if (max <= 0 || a.t != VT_STR || a.len <= (size_t)max)
		return a;
	b = ring[next++ % 8];
	a.len = snprintf(b, sizeof(ring[0]), "%.*s%s", (int)max, a.s, trailer);
	if (a.len >= sizeof(ring[0]))
		a.len = sizeof(ring[0]) - 1;
	a.s = b;
	return a;
}

static struct val eval_str(struct xctx *x, const struct node *n)
{
	struct val a = eval(x, n->args[0]);

	if (n->nargs == 1)
		return max_strlen(a);

	if (n->nargs > 1) {
		/* bpftrace's length is the read's, its NUL included: at
		 * most length - 1 characters (str(s, 5) of "zztest" is "zzte") */
		struct val b = eval(x, n->args[1]);

		if (b.i >= 0 && (size_t)b.i <= a.len)
			a.len = b.i ? (size_t)b.i - 1 : 0;
	}
	return a;
}

/* hex(x): x itself; only a map key prints it in hex. */
static struct val eval_hex(struct xctx *x, const struct node *n)
{
	return eval(x, n->args[0]);
}

static struct val eval_bswap(struct xctx *x, const struct node *n)
{
	uint64_t v = (uint64_t)eval(x, n->args[0]).i;
	struct val r;

	v = n->idx == 1 ? v & 0xff : n->idx == 2 ? __builtin_bswap16((uint16_t)v) :
	    n->idx == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
	r = vint((int64_t)v);
	r.u = n->idx == 8;
	return r;
}

/* kaddr("sym"): the address check_kaddr found. */
static struct val eval_kaddr(struct xctx *x, const struct node *n)
{
	struct val a = vint(n->ival);

	a.u = true;
	return a;
}

static struct val eval_strncmp(struct xctx *x, const struct node *n)
{
	struct val a = eval(x, n->args[0]), b = eval(x, n->args[1]);
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

/* int8() ... uint64(): n->idx bits, signed where n->op is T_MINUS. */
static struct val eval_cast(struct xctx *x, const struct node *n)
{
	struct val a = eval(x, n->args[0]), b;

	b = vint(lang_int_cast(a.i, n->idx, n->op == T_MINUS));
	b.u = n->idx == 64 && n->op != T_MINUS;
	return b;
}

/* ---- strings, maps and messages of today's bpftrace ------------------------------ */

/*
 * A bool of bpftrace's (strcontains(), has_key()): the number 0 or 1,
 * which print() shows as false or true where the language has bools (the
 * enum id LANG_BOOL_ID of lang.h; until that is in, they print as 0 and 1).
 */
void mark_bool(struct node *n)
{
#ifdef LANG_BOOL_ID
	n->enum_id = LANG_BOOL_ID;
#else
	(void)n;
#endif
}

static int check_strcontains(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_STR || n->args[1]->type != VT_STR) {
		lang_errf(s->err, n, "strcontains(haystack, needle) takes two strings");
		return -EINVAL;
	}
	mark_bool(n);
	return 0;
}

/* Every string holds the empty one, as in bpftrace. */
static struct val eval_strcontains(struct xctx *x, const struct node *n)
{
	struct val h = eval(x, n->args[0]), d = eval(x, n->args[1]);

	return vint(!d.len || (h.len >= d.len && memmem(h.s, h.len, d.s, d.len)));
}

static int check_strlen(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_STR) {
		lang_errf(s->err, n->args[0], "strlen() takes a string");
		return -EINVAL;
	}
	return 0;
}

static struct val eval_strlen(struct xctx *x, const struct node *n)
{
	return vint((int64_t)eval(x, n->args[0]).len);
}

/* The map of len(@m) or has_key(@m, ...), which must have keys (bpftrace's
 * words); its keys as has_key's map node's (the node becomes @m[k, ...]). */
static int check_keyed_map(struct sema *s, struct node *n)
{
	struct node *m = n->args[0];
	struct mapdef *md;

	if (m->k != N_MAP || m->nargs) {
		lang_errf(s->err, m, "%s() takes a map: %s(@name%s)", n->sval, n->sval,
			  strcmp(n->sval, "len") ? ", key" : "");
		return -EINVAL;
	}
	md = map_get(s->in, m->sval);
	if (!md) {
		lang_errf(s->err, m, "too many maps (ftr keeps %d)", (int)ARRAY_SIZE(s->in->maps));
		return -EINVAL;
	}
	if ((md->keys_known && !md->nkeys) || (!strcmp(n->sval, "has_key") && n->nargs < 2)) {
		lang_errf(s->err, n, "call to %s() expects a map with explicit keys (non-scalar "
			  "map)", n->sval);
		return -EINVAL;
	}
	if (!strcmp(n->sval, "len")) {
		m->slot = (int)(md - s->in->maps);
		md->refs++;	/* read here: the map stays in ftr */
		return 0;
	}
	/* has_key(@m, k1, k2): @m[k1, k2] */
	if (keys_to_map(n) < 0)
		return -ENOMEM;
	mark_bool(n);
	return check_map_keys(s, m);
}

static struct val eval_has_key(struct xctx *x, const struct node *n)
{
	struct agg_kpart k[AGG_MAX_KEYS];
	const struct mapdef *md = &x->in->maps[n->args[0]->slot];
	int64_t v;

	keys_of(x, n->args[0], k);
	return vint(md->m && agg_lookup(md->m, k, &v) == 0);
}

static int check_len(struct sema *s, struct node *n)
{
	if (n->args[0]->k != N_MAP) {
		int err = check(s, n->args[0]);

		if (err)
			return err;
		if (n->args[0]->type != VT_STACK) {
			lang_errf(s->err, n->args[0], "len() takes a map or a stack");
			return -EINVAL;
		}
		return 0;
	}
	return check_keyed_map(s, n);
}

static struct val eval_len(struct xctx *x, const struct node *n)
{
	struct val v;

	if (n->args[0]->k == N_MAP) {
		const struct agg *m = x->in->maps[n->args[0]->slot].m;

		return vint(m ? (int64_t)agg_entries(m) : 0);
	}
	/* a user stack's first word names its process (sampler.h): no frame */
	v = eval(x, n->args[0]);
	if (v.len && (v.ips[0] & LPROF_TAG_MASK) == LPROF_UTAG)
		v.len--;
	return vint((int64_t)v.len);
}

/* pton("addr"): the address's bytes in network order, 4 or 16, for
 * ntop(af, pton(...)) or printf's %r; from a literal, as bpftrace asks. */
static int check_pton(struct sema *s, struct node *n)
{
	struct node *a = n->args[0];
	unsigned char *b;

	if (s->buf_ok != BUF_PRINTF) {
		lang_errf(s->err, n, "pton() is read by ntop(af, pton(...)) and printf's %%r: ftr "
			  "keeps no byte array in a variable or map, nor computes with one");
		return -EINVAL;
	}
	if (a->k != N_STR) {
		lang_errf(s->err, a, "pton() takes a string literal");
		return -EINVAL;
	}
	free(n->bind);
	n->bind = b = calloc(1, 16);
	if (!b)
		return -ENOMEM;
	if (inet_pton(AF_INET, a->sval, b) == 1) {
		n->ival = 4;
	} else if (inet_pton(AF_INET6, a->sval, b) == 1) {
		n->ival = 16;
	} else {
		lang_errf(s->err, a, "pton(\"%s\"): not an IPv4 or IPv6 address", a->sval);
		return -EINVAL;
	}
	return 0;
}

static struct val eval_pton(struct xctx *x, const struct node *n)
{
	return (struct val){ .t = VT_BUF, .s = n->bind, .len = (size_t)n->ival };
}

static int check_errno_text(struct sema *s, struct node *n)
{
	if (n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "%s() takes a number", n->sval);
		return -EINVAL;
	}
	return text_buffer(n, 128);
}

/* strerror(e): the C library's text of errno e, as bpftrace's; signal_name(n):
 * the signal's, "N/A" past the last. */
static struct val eval_errno_text(struct xctx *x, const struct node *n)
{
	int64_t v = eval(x, n->args[0]).i;
	const char *t;

	if (!strcmp(n->sval, "strerror"))
		t = strerror(v < INT32_MIN || v > INT32_MAX ? -1 : (int)v);
	else
		t = v >= 0 && v < NSIG ? strsignal((int)v) : "N/A";
	snprintf(n->bind, 128, "%s", t);
	return vstr(n->bind, strlen(n->bind));
}

/*
 * reg("name"): a register at the event, as a kprobe or uprobe event's fetch
 * argument %REG reads it (the kernel's names, arch.h): kprobes the kernel's
 * registers, uprobes the task's user ones; at a return probe their values
 * at the return.  The event's field reg_NAME (plan/events.c).
 */
static int check_reg(struct sema *s, struct node *n)
{
	const char *name = n->args[0]->k == N_STR ? n->args[0]->sval : NULL, *arch = arch_name();
	char fetch[32];
	int r;

	if (!name) {
		lang_errf(s->err, n, "reg() takes a register's name in quotes (reg(\"ip\"))");
		return -EINVAL;
	}
	for (int i = 0; i < s->c->nprobes; i++)
		if (s->c->probes[i].btf_func) {
			lang_errf(s->err, n, "reg(\"%s\") at kfunc: its events take the arguments "
				  "by name; at kprobe: events a fetch argument reads a register", name);
			return -EINVAL;
		}
	if (s->is_kprobe && s->is_uprobe) {
		lang_errf(s->err, n, "reg(\"%s\") in a clause on kprobes and uprobes both: "
			  "kprobes read the kernel's registers, uprobes the task's; split the "
			  "clause", name);
		return -EINVAL;
	}
	if (!s->is_kprobe && !s->is_uprobe) {
		lang_errf(s->err, n, "reg(\"%s\") reads a register at kprobe, kretprobe, uprobe "
			  "and uretprobe events (their fetch arguments name registers); this "
			  "clause's events hold none", name);
		return -EINVAL;
	}
	r = arch_reg_fetch(arch, name, fetch, sizeof(fetch));
	if (r == -ENOTSUP) {
		lang_errf(s->err, n, "reg(\"%s\"): ftr has no register names for '%s' (it has "
			  "x86_64's, arm64's and arm's)", name, arch);
		return -EINVAL;
	}
	if (r) {
		lang_errf(s->err, n, "reg(\"%s\"): no register of %s by that name%s", name, arch,
			  !strcmp(arch, "x86_64") ? " (ip, sp, bp, ax, bx, cx, dx, si, di, "
			  "r8..r15, flags, cs, ss, orig_ax)" : !strcmp(arch, "arm64") ?
			  " (r0..r30 or x0..x30, sp, pc, pstate)" :
			  " (r0..r10, fp, ip, sp, lr, pc, cpsr, orig_r0)");
		return -EINVAL;
	}
	snprintf(fetch, sizeof(fetch), "reg_%s", name);
	free(n->bind);
	n->bind = strdup(fetch);
	return n->bind ? 0 : -ENOMEM;
}

static struct val eval_reg(struct xctx *x, const struct node *n)
{
	struct tep_format_field *f = x->rec ? tep_find_field(x->ev->ev, n->bind) : NULL;

	return vint(f ? (int64_t)field_int(f, x->rec) : 0);
}

/* syscall_name(id): the syscall's name on this machine's architecture
 * (kernel/abi.h), the number itself where the table has no syscall by it. */
static int check_syscall_name(struct sema *s, struct node *n)
{
	if (!abi_syscall_table(arch_name())) {
		lang_errf(s->err, n, "syscall_name(): this ftr has no syscall table for this "
			  "machine's architecture (%s): a build for x86_64, arm64 or arm has its "
			  "own", arch_name());
		return -EINVAL;
	}
	return check_errno_text(s, n);
}

static struct val eval_syscall_name(struct xctx *x, const struct node *n)
{
	int64_t v = eval(x, n->args[0]).i;
	const char *t = abi_syscall_name(arch_name(), v);

	if (t)
		snprintf(n->bind, 128, "%s", t);
	else
		snprintf(n->bind, 128, "%lld", (long long)v);
	return vstr(n->bind, strlen(n->bind));
}

/* nsecs(), nsecs(monotonic | boot | tai | sw_tai): the event's time on that
 * clock (n->ival: its clockid).  Events carry CLOCK_MONOTONIC times; the
 * other clocks differ from it by an offset, read when the event is handled
 * (the same at the event, unless the machine was suspended in between). */
static int check_nsecs_call(struct sema *s, struct node *n)
{
	static const struct {
		const char *name;
		int clock;
	} clocks[] = { { "monotonic", CLOCK_MONOTONIC }, { "boot", CLOCK_BOOTTIME },
		       { "tai", CLOCK_TAI }, { "sw_tai", CLOCK_TAI } };
	const struct node *a = n->nargs ? n->args[0] : NULL;

	n->ival = CLOCK_MONOTONIC;
	for (size_t i = 0; a && i < ARRAY_SIZE(clocks); i++)
		if (a->k == N_STR && a->idx == -1 && !strcmp(a->sval, clocks[i].name))
			n->ival = clocks[i].clock;
	if (a && (a->k != N_STR || a->idx != -1 || (n->ival == CLOCK_MONOTONIC &&
						     strcmp(a->sval, "monotonic")))) {
		lang_errf(s->err, a, "nsecs() takes a clock: monotonic, boot, tai or sw_tai");
		return -EINVAL;
	}
	return 0;
}

static int64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct val eval_nsecs_call(struct xctx *x, const struct node *n)
{
	struct val v = eval_nsecs(x, n);

	if (n->ival != CLOCK_MONOTONIC) {
		/* the other clock between two monotonic reads: their mean */
		int64_t m1 = clock_ns(CLOCK_MONOTONIC), c = clock_ns((clockid_t)n->ival);
		int64_t off = c - (m1 + (clock_ns(CLOCK_MONOTONIC) - m1) / 2);

		/* boot time counts suspends on top of monotonic: never less */
		v.i += n->ival == CLOCK_BOOTTIME && off < 0 ? 0 : off;
	}
	return v;
}

/* ---- the table ---------------------------------------------------------------- */

#define AGG(nm, lo, hi, a, kind, pd) \
	{ .name = nm, .min = lo, .max = hi, .args = a, .ret = VT_NONE, .where = BW_ALL, \
	  .flags = BF_AGG, .agg = kind, .push = pd, .check = check_agg }
#define CAST(nm) \
	{ .name = nm, .min = 1, .max = 1, .args = "x", .ret = VT_INT, .where = BW_ALL, \
	  .check = check_cast, .eval = eval_cast }

static const struct builtin_fn builtins[] = {
	/* aggregations: @map[keys] = f(...) */
	AGG("count", 0, 0, "", AGG_COUNT, BP_HIST_MAP | BP_PERF_COUNT),
	AGG("sum", 1, 1, "x", AGG_SUM, BP_HIST_MAP),
	AGG("avg", 1, 1, "x", AGG_AVG, BP_HIST_MAP),
	AGG("min", 1, 1, "x", AGG_MIN, 0),
	AGG("max", 1, 1, "x", AGG_MAX, 0),
	AGG("stats", 1, 1, "x", AGG_STATS, BP_HIST_MAP),
	{ .name = "hist", .min = 1, .max = 2, .args = "x[, k]", .ret = VT_NONE, .where = BW_ALL,
	  .flags = BF_AGG, .agg = AGG_HIST, .push = BP_HIST_MAP, .check = check_hist },
	AGG("lhist", 4, 4, "x, min, max, step", AGG_LHIST, BP_HIST_MAP),
	{ .name = "tseries", .min = 3, .max = 4, .args = "x, interval, n[, agg]", .ret = VT_NONE,
	  .where = BW_ALL, .flags = BF_AGG, .agg = AGG_TSERIES, .check = check_tseries },
	/* statements */
	{ .name = "printf", .min = 1, .max = 16, .args = "fmt, ...", .ret = VT_NONE,
	  .where = BW_ALL, .flags = BF_BUF_ARGS, .check = check_printf, .exec = exec_printf },
	{ .name = "print", .min = 1, .max = 3, .args = "@map[, top, div] | value",
	  .ret = VT_NONE, .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_print,
	  .exec = exec_print },
	{ .name = "clear", .min = 1, .max = 1, .args = "@map", .ret = VT_NONE, .where = BW_ALL,
	  .flags = BF_OWN_ARGS, .check = check_map_arg, .exec = exec_clear },
	{ .name = "zero", .min = 1, .max = 1, .args = "@map", .ret = VT_NONE, .where = BW_ALL,
	  .flags = BF_OWN_ARGS, .check = check_map_arg, .exec = exec_zero },
	{ .name = "delete", .min = 1, .max = 1 + AGG_MAX_KEYS, .args = "@map[key]", .ret = VT_INT,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_delete, .eval = eval_delete,
	  .exec = exec_delete },
	{ .name = "exit", .min = 0, .max = 1, .args = "[code]", .ret = VT_NONE, .where = BW_ALL,
	  .check = check_exit, .exec = exec_exit },
	{ .name = "time", .min = 0, .max = 1, .args = "[fmt]", .ret = VT_NONE, .where = BW_ALL,
	  .check = check_time, .exec = exec_time },
	{ .name = "system", .min = 1, .max = 16, .args = "fmt, ...", .ret = VT_NONE,
	  .where = BW_ALL, .check = check_command, .exec = exec_command },
	{ .name = "cat", .min = 1, .max = 16, .args = "fmt, ...", .ret = VT_NONE,
	  .where = BW_ALL, .check = check_command, .exec = exec_command },
	{ .name = "join", .min = 1, .max = 2, .args = "args.F[, delim]", .ret = VT_NONE,
	  .where = BW_TRACEPOINT, .flags = BF_OWN_ARGS, .check = check_join,
	  .exec = exec_join },
	/* values */
	{ .name = "str", .min = 1, .max = 2, .args = "x[, len]", .ret = VT_STR, .where = BW_ALL,
	  .flags = BF_OWN_ARGS, .check = check_str, .eval = eval_str },
	{ .name = "ksym", .min = 1, .max = 1, .args = "addr", .ret = VT_STR, .where = BW_ALL,
	  .push = BP_HIST_KEY_SYM, .check = check_sym_call, .eval = eval_sym },
	{ .name = "ksymoff", .min = 1, .max = 1, .args = "addr", .ret = VT_STR, .where = BW_ALL,
	  .push = BP_HIST_KEY_SYMOFF, .check = check_sym_call, .eval = eval_sym },
	{ .name = "hex", .min = 1, .max = 1, .args = "x", .ret = VT_INT, .where = BW_ALL,
	  .push = BP_HIST_KEY, .check = check_sym_call, .eval = eval_hex },
	{ .name = "ntop", .min = 1, .max = 2, .args = "[af, ]addr", .ret = VT_STR,
	  .where = BW_ALL, .flags = BF_BUF_ARGS, .check = check_ntop, .eval = eval_ntop },
	{ .name = "kaddr", .min = 1, .max = 1, .args = "\"sym\"", .ret = VT_INT,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_kaddr, .eval = eval_kaddr },
	{ .name = "usym", .min = 1, .max = 1, .args = "addr", .ret = VT_STR, .where = BW_ALL,
	  .check = check_usym, .eval = eval_usym },
	{ .name = "kstack", .min = 0, .max = 2, .args = "[mode][, frames]", .ret = VT_STACK,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_stack_call },
	{ .name = "ustack", .min = 0, .max = 2, .args = "[mode][, frames]", .ret = VT_STACK,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_stack_call },
	{ .name = "strncmp", .min = 3, .max = 3, .args = "a, b, n", .ret = VT_INT,
	  .where = BW_ALL, .check = check_strncmp, .eval = eval_strncmp },
	{ .name = "strftime", .min = 2, .max = 2, .args = "fmt, ns", .ret = VT_STR,
	  .where = BW_ALL, .check = check_strftime, .eval = eval_strftime },
	{ .name = "bswap", .min = 1, .max = 1, .args = "x", .ret = VT_INT, .where = BW_ALL,
	  .check = check_bswap, .eval = eval_bswap },
	{ .name = "buf", .min = 1, .max = 2, .args = "ptr, len | array", .ret = VT_BUF,
	  .where = BW_ALL, .check = check_buf, .eval = eval_buf },
	{ .name = "strcontains", .min = 2, .max = 2, .args = "s, sub", .ret = VT_INT,
	  .where = BW_ALL, .check = check_strcontains, .eval = eval_strcontains },
	{ .name = "nsecs", .min = 0, .max = 1, .args = "[clock]", .ret = VT_INT, .where = BW_ALL,
	  .flags = BF_OWN_ARGS, .check = check_nsecs_call, .eval = eval_nsecs_call },
	{ .name = "strlen", .min = 1, .max = 1, .args = "s", .ret = VT_INT, .where = BW_ALL,
	  .check = check_strlen, .eval = eval_strlen },
	{ .name = "len", .min = 1, .max = 1, .args = "@map | stack", .ret = VT_INT,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_len, .eval = eval_len },
	{ .name = "has_key", .min = 1, .max = 1 + AGG_MAX_KEYS, .args = "@map, key...",
	  .ret = VT_INT, .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_keyed_map,
	  .eval = eval_has_key },
	{ .name = "pton", .min = 1, .max = 1, .args = "\"addr\"", .ret = VT_BUF,
	  .where = BW_ALL, .flags = BF_OWN_ARGS, .check = check_pton, .eval = eval_pton },
	{ .name = "strerror", .min = 1, .max = 1, .args = "errno", .ret = VT_STR,
	  .where = BW_ALL, .check = check_errno_text, .eval = eval_errno_text },
	{ .name = "signal_name", .min = 1, .max = 1, .args = "sig", .ret = VT_STR,
	  .where = BW_ALL, .check = check_errno_text, .eval = eval_errno_text },
	{ .name = "reg", .min = 1, .max = 1, .args = "\"name\"", .ret = VT_INT,
	  .where = BW_KPROBE | BW_UPROBE, .flags = BF_OWN_ARGS, .check = check_reg,
	  .eval = eval_reg },
	{ .name = "syscall_name", .min = 1, .max = 1, .args = "id", .ret = VT_STR,
	  .where = BW_ALL, .check = check_syscall_name, .eval = eval_syscall_name },
	{ .name = "errorf", .min = 1, .max = 16, .args = "fmt, ...", .ret = VT_NONE,
	  .where = BW_ALL, .check = check_errorf, .exec = exec_errorf },
	{ .name = "warnf", .min = 1, .max = 16, .args = "fmt, ...", .ret = VT_NONE,
	  .where = BW_ALL, .check = check_errorf, .exec = exec_errorf },
	CAST("int8"), CAST("int16"), CAST("int32"), CAST("int64"),
	CAST("uint8"), CAST("uint16"), CAST("uint32"), CAST("uint64"),
};

const struct builtin_fn *builtin_at(size_t i)
{
	return i < ARRAY_SIZE(builtins) ? &builtins[i] : NULL;
}

const struct builtin_fn *builtin_find(const char *name)
{
	char cast[16];
	int bits;
	bool sgn;

	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i].name))
			return &builtins[i];
	/* int(x), int32_t(x), uint8_t(x)...: C's other names of the casts */
	if ((str_has_prefix(name, "int") || str_has_prefix(name, "uint")) &&
	    lang_int_type(name, &bits, &sgn)) {
		snprintf(cast, sizeof(cast), "%sint%d", sgn ? "" : "u", bits);
		return builtin_find(cast);
	}
	return NULL;
}

const struct builtin_fn *builtin_of(const struct node *n)
{
	return n && n->k == N_CALL ? n->fn : NULL;
}

int agg_of(const char *call)
{
	const struct builtin_fn *b = builtin_find(call);

	return b && (b->flags & BF_AGG) ? (int)b->agg : -1;
}

bool lang_is_agg(const char *call)
{
	return agg_of(call) >= 0;
}

/* The kind of clause the semantic pass is in, as a BW_* bit. */
unsigned clause_kind(const struct sema *s)
{
	if (s->is_profile)
		return BW_SAMPLE;
	if (s->is_kprobe)
		return BW_KPROBE;
	if (s->is_uprobe)
		return BW_UPROBE;
	return s->has_record ? BW_TRACEPOINT : BW_SPECIAL;
}

const char *where_text(unsigned where)
{
	static char buf[96];
	static const char *const kinds[] = { "tracepoint", "kprobe", "uprobe", "profile",
					     "BEGIN, END and interval" };
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (where & (1u << i))
			len += snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? ", " : "",
					kinds[i]);
	return buf;
}

/* A name no row has: one of bpftrace's that needs BPF, one ftr has not yet,
 * or unknown. */
static int check_unknown(struct sema *s, struct node *n)
{
	int b, argn = 0;

	/* comm(), cpu(), ncpus()...: today's bpftrace calls its builtin
	 * variables as functions too (after the macros: a macro of that name
	 * was expanded before) */
	if (!n->nargs && (b = lang_builtin(n->sval, &argn)) >= 0 && b != B_ARG) {
		n->k = N_BUILTIN;
		n->ival = b;
		n->idx = argn;
		return check(s, n);
	}
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

/*
 * The semantic pass's part common to every builtin: its row, its number of
 * arguments, an aggregation only as a map's value, the arguments checked
 * (unless BF_OWN_ARGS), then its checker, then where it exists (after the
 * checker, whose message says more where it has one).  n->fn is the row.
 */
int check_call(struct sema *s, struct node *n, bool as_map_value)
{
	const struct builtin_fn *b = builtin_find(n->sval);
	unsigned char buf_ok = s->buf_ok;
	int err;

	s->buf_ok = 0;
	if (!b)
		return check_unknown(s, n);
	if (n->nargs < b->min || n->nargs > b->max) {
		/* The bound that was passed (print(@,1,1,1) was told "1 or more"). */
		int want = n->nargs > b->max ? b->max : b->min;

		lang_errf(s->err, n, "%s() takes %s%d argument%s: %s(%s)", n->sval,
			  b->min == b->max ? "" : n->nargs > b->max ? "at most " : "at least ", want,
			  want == 1 ? "" : "s", n->sval, b->args ? b->args : "");
		return -EINVAL;
	}
	if ((b->flags & BF_AGG) && !as_map_value) {
		lang_errf(s->err, n, "%s() is an aggregation: assign it to a map, "
			  "as in @x = %s(...)", n->sval, n->sval);
		return -EINVAL;
	}
	n->fn = b;
	for (int i = 0; !(b->flags & BF_OWN_ARGS) && i < n->nargs; i++) {
		s->buf_ok = i > 0 && (b->flags & BF_BUF_ARGS) ? BUF_PRINTF : 0;
		err = check(s, n->args[i]);
		s->buf_ok = false;
		if (err)
			return err;
	}
	s->buf_ok = buf_ok;	/* buf(): is it an argument of printf? */
	err = b->check ? b->check(s, n) : 0;
	s->buf_ok = false;
	if (err)
		return err;
	if (!(b->where & clause_kind(s))) {
		lang_errf(s->err, n, "%s() exists in %s clauses only", b->name,
			  where_text(b->where));
		return -EINVAL;
	}
	if (n->k == N_CALL)
		n->type = b->ret;
	return 0;
}
