// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Builtin functions: each one's check (semantic pass), value (evaluation)
 * and action (statements), beside one another.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <event-parse.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/comm.h"
#include "kernel/kallsyms.h"
#include "kernel/kcore.h"
#include "lang/intern.h"
#include "lang/interp-int.h"
#include "lang/plan.h"
#include "lang/typed.h"
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
			/* %s of an enum's value: its enumerator's name */
			enum vtype t = n->args[conv]->enum_id && want_str ? VT_STR :
				       n->args[conv]->type;

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

int check_call(struct sema *s, struct node *n, bool as_map_value)
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

/* ---- values ------------------------------------------------------------------ */

struct val eval_sym(struct xctx *x, const struct node *n)
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
struct val eval_ntop(struct xctx *x, const struct node *n)
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
struct val eval_buf(struct xctx *x, const struct node *n)
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

/* strftime(fmt, ns): the local time of ns, a time of nsecs' clock
 * (CLOCK_MONOTONIC), as strftime(3) formats it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
struct val eval_strftime(struct xctx *x, const struct node *n)
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

/* usym(addr): the function of a user address in the event's process, as
 * bpftrace prints it (no offset); the address in hex where none names it. */
struct val eval_usym(struct xctx *x, const struct node *n)
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

/* ---- actions ----------------------------------------------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
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
		if (*q == 's' && v.t == VT_INT)
			v = enum_text(x, n->args[arg - 1], v, true);
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

	if (v.t == VT_TUPLE) {
		/* (1, abc, (2, 3)); bpftrace's -f json: an array */
		if (in->o->mode == OUT_BTJSON) {
			ob_puts(&in->ob, "{\"type\": \"value\", \"data\": ");
			tuple_json(&in->ob, v.s, v.len);
			ob_puts(&in->ob, "}\n");
		} else {
			tuple_text(&in->ob, v.s, v.len, tuple_enum_name, in);
			ob_putc(&in->ob, '\n');
		}
		if (in->o->buffering != RUN_BUF_FULL)
			ob_flush(&in->ob);
		return;
	}
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

void exec_call(struct xctx *x, const struct node *n)
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
		/* an enum's value by its name (a number in bpftrace's JSON, a
		 * bool true or false there) */
		struct val v = eval(x, n->args[0]);

		if (in->o->mode == OUT_BTJSON && n->args[0]->enum_id == LANG_BOOL_ID) {
			ob_puts(&in->ob, v.i ? "{\"type\": \"value\", \"data\": true}\n" :
				"{\"type\": \"value\", \"data\": false}\n");
			if (in->o->buffering != RUN_BUF_FULL)
				ob_flush(&in->ob);
		} else {
			print_value(x, in->o->mode == OUT_BTJSON ? v : enum_text(x, n->args[0], v, false));
		}
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

#pragma GCC diagnostic pop
