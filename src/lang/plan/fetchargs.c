// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C types in expressions, compiled into probe fetch arguments: see
 * fetchargs.h.  Long because its one job is: one type-directed walk over a
 * clause (walk(), stmts()) decides, for every cast, member, index, deref
 * and per-CPU read, what the kernel fetches at the event, and each of those
 * is a case of the same walk over the same typed values (struct tv).  The
 * strings such reads end in are strfetch.c's; the char ** of tracepoints,
 * argvfetch.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/probe.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"
#include "lang/maps/tuple.h"
#include "lang/plan/entryarg.h"
#include "lang/plan/percpu.h"
#include "lang/plan/fetchargs.h"

#define MAX_TVARS 32

/* A typed value: the type (id plus nptr more '*'), and where it is.  An
 * lvalue is the object at address value(f) + k; an rvalue is value(f) + k
 * itself (f "" : the constant k). */
struct tv {
	uint32_t id;
	int nptr;
	bool lv;
	char f[256];
	int64_t k;
	uint32_t bits, pbit;	/* a bitfield lvalue: width, bit offset from k */
	bool user;		/* f points to user memory (a syscall tracepoint's field) */
	bool tproot;		/* f is a tracepoint's field itself ("$skbaddr") */
	bool kconst;		/* no f: k is a kernel address (kaddr()), read as @ADDR */
	char src[160];
};

struct tctx {
	struct tenv **env;
	struct program *p;
	struct clause *c;
	const char *arch;
	unsigned ps;
	const struct typed_tp *tp;	/* a tracepoint clause's fields, or NULL */
	struct typed_cur *cur;		/* curtask without $current, or NULL */
	/* The clause's first curtask read per CPU, for messages (the node
	 * itself goes when the expression around it becomes a field). */
	struct node cur_at;
	bool per_cpu;
	bool tracepoint;
	struct typed_out *out;
	struct lang_err *err;
	bool mem, ret, user, btf_func;
	bool prof;		/* a profile clause: an eprobe on the sampler's hrtimer */
	struct node *emap[ENTRYARG_MAX];	/* map reads that are $argN at the return */
	uint32_t proto;
	int ifdepth;
	struct {
		char name[64];
		struct tv tv;
	} vars[MAX_TVARS];
	int nvars;
	/* Variables assigned once a value without a C type whose bpftrace
	 * size is known (plain_size()), for sizeof($v). */
	struct {
		char name[64];
		int64_t size, align;
	} sized[MAX_TVARS];
	int nsized;
};

static const struct btf *B(struct tctx *x)
{
	return ctypes_btf(*x->env);
}

static int fail(struct tctx *x, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct tctx *x, const struct node *n, const char *fmt, ...)
{
	va_list ap;

	x->err->line = n->line;
	x->err->col = n->col;
	va_start(ap, fmt);
	vsnprintf(x->err->msg, sizeof(x->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int open_env(struct tctx *x)
{
	if (*x->env)
		return 0;
	return ctypes_open(x->p, x->env, x->err) ? -1 : 0;
}

static void type_str(struct tctx *x, const struct tv *v, char *out, size_t len)
{
	btf_type_str(B(x), v->id, out, len);
	for (int i = 0; i < v->nptr; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s", i || strchr(out, '*') ? "*" : " *");
}

/* The kind of v's type, through typedefs and qualifiers. */
static enum btf_kind kind(struct tctx *x, const struct tv *v, struct btf_t *t)
{
	struct btf_t tt;

	if (!t)
		t = &tt;
	if (v->nptr)
		return BTF_PTR;
	btf_type(B(x), btf_skip(B(x), v->id), t);
	return t->kind;
}

static int64_t size_of(struct tctx *x, const struct tv *v)
{
	return v->nptr ? 8 : btf_size(B(x), v->id);
}

/* The pointee of a pointer type, or the element of an array type. */
static bool target(struct tctx *x, struct tv *v)
{
	struct btf_t t;
	enum btf_kind k = kind(x, v, &t);

	if (v->nptr) {
		v->nptr--;
		return true;
	}
	if (k == BTF_PTR)
		v->id = t.size_type;
	else if (k == BTF_ARRAY)
		v->id = t.extra[0];
	else
		return false;
	return true;
}

static int cat(struct tctx *x, const struct node *n, char *dst, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int cat(struct tctx *x, const struct node *n, char *dst, size_t len, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (r < 0 || (size_t)r >= len)
		return fail(x, n, "this member chain is too long for a fetch argument");
	memcpy(dst, tmp, (size_t)r + 1);
	return 0;
}

/* "+K(f)": a read at f + K, of user memory "+uK(f)" (where the kernel
 * would read its own). */
static int at(struct tctx *x, const struct node *n, bool user, char *dst, size_t len, int64_t k,
	      const char *f)
{
	/* A kernel variable's own address (kaddr()): "@ADDR" reads there. */
	if (!f[0])
		return cat(x, n, dst, len, "@0x%" PRIx64, (uint64_t)k);
	return cat(x, n, dst, len, "%c%s%" PRIu64 "(%s)", k < 0 ? '-' : '+', user ? "u" : "",
		   k < 0 ? -(uint64_t)k : (uint64_t)k, f);
}

/* v as an rvalue: an array is its address, a scalar lvalue is loaded. */
static int value(struct tctx *x, const struct node *n, struct tv *v)
{
	enum btf_kind k;

	if (!v->lv)
		return 0;
	k = kind(x, v, NULL);
	if (k == BTF_ARRAY) {
		target(x, v);
		v->nptr++;
		v->lv = false;
		return 0;
	}
	if (k == BTF_STRUCT || k == BTF_UNION)
		return fail(x, n, "%s is a struct, not a value: read one of its members", v->src);
	if (v->bits)
		return fail(x, n, "%s is a bitfield: it has no address to read through", v->src);
	if (!v->f[0] && !v->kconst)
		return fail(x, n, "%s is at a constant address: ftr reads memory through a "
			    "probe's arguments only", v->src);
	if (at(x, n, v->user, v->f, sizeof(v->f), v->k, v->f))
		return -1;
	v->k = 0;
	v->lv = false;
	v->tproot = false;
	v->kconst = false;
	return 0;
}

/* *v */
static int deref(struct tctx *x, const struct node *n, struct tv *v)
{
	if (value(x, n, v))
		return -1;
	if (kind(x, v, NULL) != BTF_PTR || !target(x, v))
		return fail(x, n, "%s is not a pointer", v->src);
	if (!v->f[0] && !v->kconst)
		return fail(x, n, "%s points to a constant address: ftr reads memory through a "
			    "probe's arguments only", v->src);
	v->lv = true;
	return 0;
}

/* The kernel fetcharg holding argument idx at this clause's probe. */
static int arg_fetch(struct tctx *x, const struct node *n, unsigned idx, char *out, size_t len)
{
	const char *t = x->c->probes[0].text, *c = strrchr(t, ':');

	if (x->ret)
		return fail(x, n, "the arguments are gone when the function returns: read them "
			    "at its entry (kprobe/kfunc)");
	if (strchr(c ? c : t, '+'))
		return fail(x, n, "arguments are known at a function's first instruction only, "
			    "not at %s", c ? c + 1 : t);
	if (!x->user && (x->ps & PS_ARGN)) {
		snprintf(out, len, "$arg%u", idx + 1);
		return 0;
	}
	if (arch_arg_fetch(x->arch, idx, out, len))
		return fail(x, n, "argument %u: ftr has no register table for '%s'", idx, x->arch);
	return 0;
}

static int add_field(struct tctx *x, const struct node *n, const char *fetch, const char *type,
		     const char *src)
{
	struct typed_out *o = x->out;
	size_t el = strlen(o->explain);

	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->f[i].fetch, fetch) && !strcmp(o->f[i].type, type))
			return i;
	if (o->n == TYPED_MAX_FIELDS)
		return fail(x, n, "more than %d memory reads in one clause", TYPED_MAX_FIELDS);
	snprintf(o->f[o->n].name, sizeof(o->f[o->n].name), "t%d", o->n);
	snprintf(o->f[o->n].fetch, sizeof(o->f[o->n].fetch), "%s", fetch);
	snprintf(o->f[o->n].type, sizeof(o->f[o->n].type), "%s", type);
	snprintf(o->explain + el, sizeof(o->explain) - el, "  t%d=%s:%s  <- %s (%d:%d)\n", o->n,
		 fetch, type, src, n->line, n->col);
	return o->n++;
}

/* The probe type of a scalar: u8..s64 (pointers and enums unsigned). */
static int scalar_type(struct tctx *x, const struct node *n, const struct tv *v, char *out)
{
	struct btf_t t;
	enum btf_kind k = kind(x, v, &t);
	int64_t sz = size_of(x, v);

	if (k != BTF_PTR && k != BTF_INT && k != BTF_ENUM && k != BTF_ENUM64)
		return fail(x, n, "%s is not a number or a pointer", v->src);
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return fail(x, n, "%s is %" PRId64 " bytes: a fetch argument reads 1, 2, 4 or 8",
			    v->src, sz);
	sprintf(out, "%c%d", k == BTF_INT && (t.extra[0] >> 24 & BTF_INT_SIGNED) ? 's' : 'u',
		(int)sz * 8);
	return 0;
}

static void clear_node(struct node *n)
{
	lang_node_free(n->a);
	lang_node_free(n->b);
	lang_node_free(n->c);
	for (int i = 0; i < n->nargs; i++)
		lang_node_free(n->args[i]);
	free(n->args);
	free(n->sval);
	n->a = n->b = n->c = NULL;
	n->args = NULL;
	n->nargs = 0;
	n->sval = NULL;
}

/* Replace n by a read of field idx (plus add). */
static int become_field(struct tctx *x, struct node *n, int idx, int64_t add)
{
	struct node *f = n;

	if (idx < 0)
		return -1;
	clear_node(n);
	if (add) {
		n->k = N_BINOP;
		n->op = T_PLUS;
		n->a = calloc(1, sizeof(*n));
		n->b = calloc(1, sizeof(*n));
		if (!n->a || !n->b)
			return fail(x, n, "out of memory");
		n->a->line = n->b->line = n->line;
		n->a->col = n->b->col = n->col;
		n->b->k = N_INT;
		n->b->ival = add;
		f = n->a;
	}
	f->k = N_FIELD;
	f->sval = strdup(x->out->f[idx].name);
	return f->sval ? 0 : fail(x, n, "out of memory");
}

/*
 * A read through a NULL pointer (skb->sk of a packet no socket owns, a NULL
 * argument at a kprobe or uprobe) faults, and the kernel then stores
 * nothing for a fixed-size fetch argument (trace_probe_tmpl.h: only a
 * dynamic one, a string, gets a zero-length "fault" mark): the field's
 * bytes are whatever its ring buffer held there before.  bpftrace reads 0;
 * so does ftr: each pointer the read goes through is fetched too, and the
 * field read n becomes (p1 ? (p2 ? n : 0) : 0) — no kernel filter or hist
 * key has that form, so every plan computes it here, alike.  Only the
 * pointers dereferenced are fetched: +16(+24(%di)) adds %di and +24(%di).
 * What stays: a pointer neither NULL nor mapped (freed memory, a wild
 * user address) faults too, and then p itself is unwritten; telling that
 * would take a string fetch of every read, copying bytes up to a NUL.
 */
static int guard(struct tctx *x, struct node *n, const char *fetch)
{
	char ptrs[8][256];
	const char *s = fetch;
	int np = 0;

	while ((*s == '+' || *s == '-') && strchr(s, '(') && np < 8) {
		const char *o = strchr(s, '(');

		snprintf(ptrs[np], sizeof(ptrs[0]), "%.*s", (int)strlen(o + 2), o + 1);
		s = ptrs[np++];
	}
	for (int i = 0; i < np; i++) {
		struct node *g, *in, *zero;
		int idx = -1;

		if (!strcmp(ptrs[i], "$current") || !strcmp(ptrs[i], "$stack"))
			continue;	/* the running task, its stack: never NULL */
		/* $NAME: a tracepoint's own field; elsewhere $argN, $retval, a
		 * register or a stack slot, fetched. */
		if (ptrs[i][0] != '$' || strchr(ptrs[i], '(') || !x->tracepoint) {
			idx = add_field(x, n, ptrs[i], BTF_PTR_SIZE == 8 ? "u64" : "u32",
					"a pointer read through");
			if (idx < 0)
				return -1;
		}
		if (x->ret && idx >= 0 && !strncmp(ptrs[i], "$arg", 4) &&
		    x->emap[atoi(ptrs[i] + 4) - 1])	/* (only entryarg's $argN at a return) */
			g = entryarg_cond(x->emap[atoi(ptrs[i] + 4) - 1], x->out->f[idx].name,
					  n->line, n->col);
		else
			g = calloc(1, sizeof(*g));
		in = calloc(1, sizeof(*in));
		zero = calloc(1, sizeof(*zero));
		if (!g || !in || !zero || (g->k != N_BINOP && !(g->sval = strdup(idx < 0 ?
						ptrs[i] + 1 : x->out->f[idx].name)))) {
			lang_node_free(g);
			free(in);
			free(zero);
			return fail(x, n, "out of memory");
		}
		*in = *n;
		in->next = NULL;
		if (g->k != N_BINOP)
			g->k = N_FIELD;
		zero->k = N_INT;
		g->line = zero->line = n->line;
		g->col = zero->col = n->col;
		n->k = N_TERNARY;
		n->sval = NULL;
		n->args = NULL;
		n->nargs = 0;
		n->a = g;
		n->b = in;
		n->c = zero;
	}
	return 0;
}

/* become_field() for a number read from memory, guarded. */
static int become_read(struct tctx *x, struct node *n, int idx, int64_t add)
{
	if (become_field(x, n, idx, add))
		return -1;
	return guard(x, n, x->out->f[idx].fetch);
}

static int materialize(struct tctx *x, struct node *n, struct tv *v);

/* str() through an entry argument at a return: "" where the map does not
 * hold it (entryarg.c), as bpftrace's read through NULL. */
static int str_guard(struct tctx *x, struct node *n, int i)
{
	char a[16];
	int idx;

	snprintf(a, sizeof(a), "$arg%d", i + 1);
	idx = add_field(x, n, a, BTF_PTR_SIZE == 8 ? "u64" : "u32", "an entry argument");
	if (idx < 0 || entryarg_wrap_str(n, entryarg_cond(x->emap[i], x->out->f[idx].name,
							  n->line, n->col)))
		return idx < 0 ? -1 : fail(x, n, "out of memory");
	return 0;
}

/* k is an array or a struct or union (a value, not a number). */
static bool is_aggregate(enum btf_kind k)
{
	return k == BTF_ARRAY || k == BTF_STRUCT || k == BTF_UNION;
}

/*
 * A C array or struct where a value is wanted (@a = $p->x, print(*$p), a
 * map key, a tuple's element): each element or member read at the event as
 * materialize() reads it, into a tuple marked to print as bpftrace prints
 * the C value ([1,2], { .a = 1, .b = 2 }; tuple.h).  n becomes an N_TUPLE:
 * an array's ival TUPLE_ARRAY, a struct a record (sval its members' names,
 * comma-separated); idx has a bit for each pointer (printed in hex).
 */
static int aggregate(struct tctx *x, struct node *n, struct tv *v)
{
	struct btf_t t;
	bool arr = kind(x, v, &t) == BTF_ARRAY;
	struct tv e = *v;
	int64_t es = 0, cnt;
	struct node **args = NULL;
	char *names = NULL;
	size_t nlen = 0;
	uint32_t hex = 0;
	FILE *f;

	if (arr) {
		target(x, &e);
		es = size_of(x, &e);
		cnt = es > 0 ? size_of(x, v) / es : 0;
	} else {
		cnt = t.vlen;
	}
	if (cnt > TYPED_MAX_FIELDS)
		return fail(x, n, "%s has %" PRId64 " %s: ftr reads at most %d values in a clause",
			    v->src, cnt, arr ? "elements" : "members", TYPED_MAX_FIELDS);
	f = open_memstream(&names, &nlen);
	if (!f || (cnt && !(args = calloc((size_t)cnt, sizeof(*args))))) {
		if (f)
			fclose(f);
		free(names);
		return fail(x, n, "out of memory");
	}
	for (int64_t i = 0; i < cnt; i++) {
		struct btf_member m = { .name = "" };
		struct node *a = calloc(1, sizeof(*a));

		e = *v;
		e.lv = true;
		if (arr) {
			target(x, &e);
			e.k += i * es;
			snprintf(e.src + strlen(e.src), sizeof(e.src) - strlen(e.src),
				 "[%" PRId64 "]", i);
		} else {
			btf_member(B(x), btf_skip(B(x), v->id), (unsigned)i, &m);
			e.id = m.type;
			e.nptr = 0;
			if (m.bits) {
				e.bits = m.bits;
				e.pbit = m.bit_off;
			} else {
				e.k += m.bit_off / 8;
			}
			snprintf(e.src + strlen(e.src), sizeof(e.src) - strlen(e.src), ".%s",
				 m.name);
		}
		if (a) {
			a->line = n->line;
			a->col = n->col;
			args[i] = a;
		}
		if (!a || (!arr && !m.name[0])) {
			fclose(f);
			free(names);
			for (int64_t j = 0; j <= i; j++)
				lang_node_free(args[j]);
			free(args);
			return a ? fail(x, n, "%s has an anonymous member: ftr reads a struct as a "
					"value by its members' names", v->src) :
				   fail(x, n, "out of memory");
		}
		fprintf(f, "%s%s", i ? "," : "", m.name);
		if (kind(x, &e, NULL) == BTF_PTR)
			hex |= 1u << i;		/* printed in hex */
		if (materialize(x, a, &e)) {
			fclose(f);
			free(names);
			for (int64_t j = 0; j <= i; j++)
				lang_node_free(args[j]);
			free(args);
			return -1;
		}
	}
	fclose(f);
	clear_node(n);
	n->k = N_TUPLE;
	n->ival = arr ? TUPLE_ARRAY : TUPLE_STRUCT;
	n->idx = (int)hex;
	/* a struct is a record: its members by name ($s.m of a map's) */
	n->sval = arr ? NULL : names;
	if (arr)
		free(names);
	n->args = args;
	n->nargs = (int)cnt;
	return 0;
}

/* A typed value used where a number is wanted: a field of the probe. */
static int materialize(struct tctx *x, struct node *n, struct tv *v)
{
	char type[24], fetch[256];
	int r;

	if (v->lv && v->bits) {
		uint64_t p = (uint64_t)v->k * 8 + v->pbit;
		unsigned cs = 8;

		while (cs < 64 && p % cs + v->bits > cs)
			cs *= 2;
		if (!v->f[0] && !v->kconst)
			return fail(x, n, "%s is at a constant address", v->src);
		snprintf(type, sizeof(type), "b%u@%u/%u", v->bits, (unsigned)(p % cs), cs);
		/* Unsigned, as the kernel reads bW@O/S and as bpftrace reads
		 * every bitfield, a signed one too (its suite's bitfield_access_2:
		 * short b:8 holding 0xd9 prints 217). */
		if (at(x, n, v->user, fetch, sizeof(fetch), (int64_t)((p - p % cs) / 8), v->f))
			return -1;
		return become_read(x, n, add_field(x, n, fetch, type, v->src), 0);
	}
	if (v->lv && kind(x, v, NULL) != BTF_ARRAY && kind(x, v, NULL) != BTF_STRUCT &&
	    kind(x, v, NULL) != BTF_UNION) {
		bool addr = v->f[0] || v->kconst;

		if (scalar_type(x, n, v, type) || !addr ||
		    at(x, n, v->user, fetch, sizeof(fetch), v->k, v->f))
			return addr ? -1 : fail(x, n, "%s is at a constant address", v->src);
		return become_read(x, n, add_field(x, n, fetch, type, v->src), 0);
	}
	if (v->lv && kind(x, v, NULL) == BTF_ARRAY) {
		struct tv e = *v;

		/* char[N] is a string where a value is wanted, as in bpftrace. */
		target(x, &e);
		if (kind(x, &e, NULL) == BTF_INT && size_of(x, &e) == 1 && (v->f[0] || v->kconst)) {
			if (at(x, n, v->user, fetch, sizeof(fetch), v->k, v->f))
				return -1;
			return become_field(x, n, add_field(x, n, fetch, "string", v->src), 0);
		}
	}
	if (v->lv && is_aggregate(kind(x, v, NULL))) {
		if (!v->f[0] && !v->kconst)
			return fail(x, n, "%s is at a constant address", v->src);
		return aggregate(x, n, v);
	}
	if (value(x, n, v))
		return -1;
	if (!v->f[0]) {
		become_field(x, n, -1, 0);
		n->k = N_INT;
		n->ival = v->k;
		return 0;
	}
	if (scalar_type(x, n, v, type))
		return -1;
	if (v->tproot && !v->k) {
		/* A tracepoint's field as it is ((struct sk_buff *)args->skbaddr
		 * kept in a variable): the field itself, nothing to fetch. */
		char *name;

		if (n->k == N_FIELD)
			return 0;
		name = strdup(v->f + 1);
		if (!name)
			return fail(x, n, "out of memory");
		clear_node(n);
		n->k = N_FIELD;
		n->sval = name;
		return 0;
	}
	if (x->ret && (r = entryarg_value(n, x->emap, v->f, v->k)) != 0)
		return r < 0 ? fail(x, n, "out of memory") : 0;
	return become_read(x, n, add_field(x, n, v->f, type, v->src), v->k);
}

static int walk(struct tctx *x, struct node *n, struct tv *v);
static int plain_size(const struct tctx *x, const struct node *n, int64_t *size, int64_t *align);

/* A constant integer expression's value (numbers, unary -, + - *). */
static bool const_of(const struct node *n, int64_t *v)
{
	int64_t a, b;

	if (n->k == N_INT) {
		*v = n->ival;
		return true;
	}
	if (n->k == N_UNOP && n->op == T_MINUS && const_of(n->a, &a)) {
		*v = (int64_t)(0 - (uint64_t)a);
		return true;
	}
	if (n->k != N_BINOP || !const_of(n->a, &a) || !const_of(n->b, &b))
		return false;
	switch (n->op) {
	case T_PLUS: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
	case T_MINUS: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
	case T_STAR: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
	default: return false;
	}
}
static int stmts(struct tctx *x, struct node *st);

/* Walk n where a plain value is wanted. */
static int plain(struct tctx *x, struct node *n)
{
	struct tv v;
	int r = walk(x, n, &v);

	return r == 1 ? materialize(x, n, &v) : r;
}

static int walk_children(struct tctx *x, struct node *n)
{
	if ((n->a && plain(x, n->a) < 0) || (n->b && plain(x, n->b) < 0) ||
	    (n->c && plain(x, n->c) < 0))
		return -1;
	for (int i = 0; i < n->nargs; i++)
		if (plain(x, n->args[i]) < 0)
			return -1;
	return 0;
}

static int need_mem(struct tctx *x, const struct node *n, const char *what)
{
	if (x->mem)
		return 0;
	if (x->prof)
		return fail(x, n, "%s reads memory, which ftr does in a profile clause through an "
			    "eprobe on timer:hrtimer_expire_entry, the sampler's interrupt (Linux "
			    "5.15 on), and this kernel has %s", what,
			    x->tp && x->tp->why && x->tp->why[0] ? x->tp->why : "no eprobe events");
	if (x->tracepoint)
		return fail(x, n, "%s reads memory, which ftr does at a tracepoint through an "
			    "eprobe on it (Linux 5.15 on), and this kernel has %s", what,
			    x->tp && x->tp->why && x->tp->why[0] ? x->tp->why :
			    "no eprobe events");
	return fail(x, n, "%s reads memory, which ftr does at kprobe, kretprobe, kfunc, "
		    "kretfunc, uprobe and uretprobe events, and at tracepoints through eprobes, "
		    "only", what);
}

/*
 * args->NAME at a tracepoint whose format gives NAME a struct pointer type
 * (struct __kernel_timespec * rqtp): a typed pointer, fetched by the eprobe
 * from the field.  1 typed; 0 not (a number, a void *...); need: the reason
 * why not, as an error.
 */
static int tp_field(struct tctx *x, struct node *n, struct tv *v, bool need)
{
	char type[160], why[320], what[100], *t = type;
	uint32_t id;
	int nptr;

	snprintf(what, sizeof(what), "a read through args->%.60s", n->sval);
	if (!x->tp || !x->tp->field_type)
		return need ? need_mem(x, n, what) : 0;
	if (x->tp->field_type(x->tp->ctx, n->sval, type, sizeof(type), why, sizeof(why)))
		return need ? fail(x, n, "args->%s: %s", n->sval, why) : 0;
	while (str_has_prefix(t, "const ") || str_has_prefix(t, "volatile "))
		t = strchr(t, ' ') + 1;
	if ((!str_has_prefix(t, "struct ") && !str_has_prefix(t, "union ")) ||
	    strchr(t, '*') != strrchr(t, '*') || t[strlen(t) - 1] != '*')
		return need ? fail(x, n, "args->%s is '%s', not a pointer to a struct: cast "
				   "it, as ((struct NAME *)args->%s)", n->sval, type, n->sval) : 0;
	if (!x->mem)
		return need ? need_mem(x, n, what) : 0;
	if (open_env(x))
		return need ? -1 : 0;
	if (ctypes_parse_name(*x->env, t, &id, &nptr, why, sizeof(why)))
		return need ? fail(x, n, "args->%s is %s: %s", n->sval, t, why) : 0;
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->nptr = nptr;
	v->user = x->tp->user;
	v->tproot = true;
	snprintf(v->f, sizeof(v->f), "$%s", n->sval);
	snprintf(v->src, sizeof(v->src), "args->%s", n->sval);
	return 1;
}

/* Where curtask is without $current: located once per program (fetchargs.h). */
static int locate(struct tctx *x, const struct node *n)
{
	struct typed_cur *c = x->cur;

	if (!c->state) {
		c->state = c->locate(c->ctx, &c->loc, c->why, sizeof(c->why));
		if (!c->state) {
			struct btf_member m;
			uint32_t id = c->loc.member[0] ? btf_find(B(x), c->loc.var, BTF_STRUCT) : 0;

			c->state = 1;
			c->var = (int64_t)c->loc.addr;
			/* pcpu_hot.current_task: at 0 in every kernel that has it,
			 * from the BTF where there is one. */
			if (id && !btf_find_member(B(x), id, c->loc.member, &m))
				c->var += m.bit_off / 8;
		}
	}
	if (c->state < 0)
		return fail(x, n, "curtask: this kernel's probe events have no $current fetch "
			    "argument, and the running task's per-CPU slot cannot be read instead: "
			    "%s", c->why);
	if (!x->per_cpu) {
		x->per_cpu = true;
		x->cur_at.line = n->line;
		x->cur_at.col = n->col;
	}
	return 0;
}

/* curtask: the task_struct, $current where the kernel's probes have it, else
 * its per-CPU slot (per_cpu() below). */
static int curtask(struct tctx *x, struct node *n, struct tv *v)
{
	char why[320];
	uint32_t id;
	int nptr;

	if (!(x->ps & PS_CURRENT) && (!x->cur || !x->cur->locate))
		return fail(x, n, "'curtask' is the current task_struct's address, which only a BPF "
			    "program gets (bpf_get_current_task): this kernel's probe events have "
			    "no $current fetch argument (tracing/probes, July 2026) to read it");
	if (x->user)
		return fail(x, n, "curtask at a uprobe: a uprobe's fetch arguments read user "
			    "memory, the task_struct is the kernel's");
	if (!x->mem && !x->tracepoint && !x->prof)
		return fail(x, n, "curtask at %s: ftr reads the task_struct through a probe's "
			    "fetch arguments, at kprobe, kretprobe, kfunc and kretfunc events and at "
			    "tracepoints (through eprobes); this clause's has none, and there only a "
			    "BPF program reads kernel memory", x->c->probes[0].text);
	if (need_mem(x, n, "curtask"))
		return -1;
	if (open_env(x))
		return -1;
	if (!(x->ps & PS_CURRENT) && locate(x, n))
		return -1;
	if (ctypes_parse_name(*x->env, "struct task_struct *", &id, &nptr, why, sizeof(why)))
		return fail(x, n, "curtask is a struct task_struct *: %s", why);
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->nptr = nptr;
	/* Without $current, a placeholder that per_cpu() expands. */
	snprintf(v->f, sizeof(v->f), "$current");
	snprintf(v->src, sizeof(v->src), "curtask");
	return 1;
}

/*
 * (int8[8])12345, (int8[])"hello": a constant's bytes (a number's 8, a
 * string's with its NUL) as an array of integers, as bpftrace reads them
 * (host byte order); n becomes the array (aggregate()'s N_TUPLE).  A value
 * read at the event is refused: its bytes are not known here.
 */
static int array_cast(struct tctx *x, struct node *n, const char *br)
{
	char base[64], why[320];
	unsigned char bytes[256];
	struct tv e = { 0 };
	struct btf_t t;
	int64_t es, cnt, len, k;
	char *end = NULL;
	int nptr;
	struct node **args;
	bool sgn;

	snprintf(base, sizeof(base), "%.*s", (int)(br - n->sval), n->sval);
	if (ctypes_parse_name(*x->env, base, &e.id, &nptr, why, sizeof(why)))
		return fail(x, n, "(%s): %s", n->sval, why);
	e.nptr = nptr;
	es = size_of(x, &e);
	if (kind(x, &e, &t) != BTF_INT || (es != 1 && es != 2 && es != 4 && es != 8))
		return fail(x, n, "(%s): an array cast is to integers of 1, 2, 4 or 8 bytes",
			    n->sval);
	sgn = t.extra[0] >> 24 & BTF_INT_SIGNED;
	cnt = br[1] == ']' ? -1 : strtoll(br + 1, &end, 10);
	if (cnt == 0 || (cnt > 0 && strcmp(end, "]")))
		return fail(x, n, "(%s): an array's size is a positive number", n->sval);
	if (plain(x, n->a) < 0)
		return -1;
	if (const_of(n->a, &k)) {
		memcpy(bytes, &k, 8);
		len = 8;
	} else if (n->a->k == N_CAST && n->a->ival >= 1 && n->a->ival <= 8 &&
		   n->a->enum_id != LANG_BOOL_ID && const_of(n->a->a, &k)) {
		memcpy(bytes, &k, 8);	/* (bool[2])(uint16)1: the cast's low bytes */
		len = n->a->ival;
	} else if (n->a->k == N_STR && strlen(n->a->sval) < sizeof(bytes)) {
		len = (int64_t)strlen(n->a->sval) + 1;
		memcpy(bytes, n->a->sval, (size_t)len);
	} else {
		return fail(x, n, "(%s) of a value that is not a constant: ftr casts a number or "
			    "a string literal to an array", n->sval);
	}
	if (cnt < 0)
		cnt = len / es;
	if (cnt * es != len)
		return fail(x, n, "(%s): %" PRId64 " bytes cast to %" PRId64 " of them", n->sval,
			    len, cnt * es);
	args = calloc((size_t)cnt, sizeof(*args));
	if (!args)
		return fail(x, n, "out of memory");
	for (int64_t i = 0; i < cnt; i++) {
		uint64_t u = 0;

		memcpy(&u, bytes + i * es, (size_t)es);	/* the low bytes (little-endian) */
		if (!(args[i] = calloc(1, sizeof(*args[i])))) {
			while (i--)
				free(args[i]);
			free(args);
			return fail(x, n, "out of memory");
		}
		args[i]->k = N_INT;
		args[i]->line = n->line;
		args[i]->col = n->col;
		args[i]->ival = (int64_t)u;
		if (t.extra[0] >> 24 & BTF_INT_BOOL)
			args[i]->enum_id = LANG_BOOL_ID;	/* printed true, false */
		if (sgn && u >> (es * 8 - 1)) {
			/* a negative element: -(its magnitude), a negative
			 * N_INT being an unsigned literal above INT64_MAX */
			struct node *m = calloc(1, sizeof(*m));

			if (!m) {
				for (int64_t j = 0; j <= i; j++)
					free(args[j]);
				free(args);
				return fail(x, n, "out of memory");
			}
			*m = *args[i];
			m->ival = (int64_t)((es < 8 ? 1ULL << es * 8 : 0) - u);
			args[i]->k = N_UNOP;
			args[i]->op = T_MINUS;
			args[i]->ival = 0;
			args[i]->a = m;
		}
	}
	clear_node(n);
	n->k = N_TUPLE;
	n->ival = TUPLE_ARRAY;
	n->idx = 0;
	n->args = args;
	n->nargs = (int)cnt;
	return 0;
}

static int cast(struct tctx *x, struct node *n, struct tv *v)
{
	char why[320];
	struct tv a;
	int r, nptr;
	enum btf_kind k;
	struct btf_t t;

	if (open_env(x))
		return -1;
	memset(v, 0, sizeof(*v));
	if (strchr(n->sval, '[') && n->sval[strlen(n->sval) - 1] == ']')
		return array_cast(x, n, strchr(n->sval, '['));
	if (ctypes_parse_name(*x->env, n->sval, &v->id, &nptr, why, sizeof(why)))
		return fail(x, n, "(%s): %s", n->sval, why);
	v->nptr = nptr;
	k = kind(x, v, &t);
	if (k == BTF_STRUCT || k == BTF_UNION || k == BTF_FWD || k == BTF_ARRAY)
		return fail(x, n, "a cast to %s: cast a pointer, as (%s *)", n->sval, n->sval);
	if (k != BTF_PTR) {
		/* An integer cast: C's truncation, in the interpreter. */
		int64_t sz = size_of(x, v);

		if (plain(x, n->a) < 0)
			return -1;
		if (k != BTF_INT && k != BTF_ENUM && k != BTF_ENUM64)
			return fail(x, n, "a cast to '%s', which is not an integer or a pointer type",
				    n->sval);
		n->ival = sz;
		n->idx = k == BTF_INT && (t.extra[0] >> 24 & BTF_INT_SIGNED);
		if (k == BTF_ENUM || k == BTF_ENUM64)
			n->enum_id = v->id;	/* (enum Foo)1 prints as its enumerator */
		if (!strcmp(n->sval, "bool") || !strcmp(n->sval, "_Bool"))
			n->enum_id = LANG_BOOL_ID;	/* prints true or false */
		return 0;
	}
	/* The operand first: what it lacks (curtask's $current) is the reason. */
	r = walk(x, n->a, &a);
	if (r < 0)
		return -1;
	if (r == 0 && !x->mem && n->a->k != N_FIELD && n->a->k != N_CALL &&
	    !(n->a->k == N_BUILTIN && (n->a->ival == B_ARG || n->a->ival == B_RETVAL))) {
		/* Where no memory is read (BEGIN, END, interval), a pointer made
		 * of a number is a value: C's arithmetic on it, printed in hex;
		 * reading through it is refused (deref_value). */
		struct tv p = *v;

		p.nptr--;
		n->ptr_size = (uint32_t)(p.nptr ? 8 : size_of(x, &p) > 0 ? size_of(x, &p) : 1);
		n->ival = 8;
		n->idx = 0;
		return plain(x, n->a) < 0 ? -1 : 0;
	}
	if (need_mem(x, n, "a cast to a pointer"))
		return -1;
	if (r == 1) {
		if (value(x, n, &a))
			return -1;
		snprintf(v->f, sizeof(v->f), "%s", a.f);
		v->k = a.k;
		v->user = a.user;
		v->kconst = a.kconst;
		v->tproot = a.tproot && !a.k;
	} else if (n->a->k == N_FIELD && x->tracepoint && !x->btf_func) {
		/* (struct sk_buff *)args->skbaddr: the eprobe reads through the
		 * field ($skbaddr); a syscall's fields are user addresses. */
		snprintf(v->f, sizeof(v->f), "$%s", n->a->sval);
		v->user = x->tp && x->tp->user;
		v->tproot = true;
	} else if (n->a->k == N_BUILTIN && n->a->ival == B_ARG) {
		if (arg_fetch(x, n->a, (unsigned)n->a->idx, v->f, sizeof(v->f)))
			return -1;
	} else if (n->a->k == N_BUILTIN && n->a->ival == B_RETVAL) {
		if (!x->ret)
			return fail(x, n->a, "retval exists only in return probes");
		snprintf(v->f, sizeof(v->f), "$retval");
	} else if (n->a->k == N_INT) {
		v->k = n->a->ival;
	} else if (n->a->k == N_CALL && !strcmp(n->a->sval, "kaddr") && n->a->nargs == 1 &&
		   n->a->args[0]->k == N_STR && !x->user) {
		/* A kernel variable: its address is known now, read at the event
		 * as @ADDR (a kernel without CONFIG_KALLSYMS_ALL lists none). */
		uint64_t addr;
		int e = kallsyms_find(n->a->args[0]->sval, &addr);

		if (e < 0)
			return fail(x, n->a, "kaddr(\"%s\"): %s", n->a->args[0]->sval,
				    e == -EPERM ? "/proc/kallsyms hides kernel addresses "
				    "(kptr_restrict)" : e == -ENOENT ? "no such symbol in /proc/kallsyms "
				    "(a kernel built without CONFIG_KALLSYMS_ALL lists no variables)" :
				    strerror(-e));
		v->k = (int64_t)addr;
		v->kconst = true;
	} else if (n->a->k == N_MAP && x->ret && !x->user) {
		char ewhy[512];
		int i = entryarg_find(x->p, x->c, n->a, x->ps, ewhy, sizeof(ewhy));

		if (i < 0)
			return fail(x, n->a, "a pointer from a map, stored at another event: %s", ewhy);
		if (!x->emap[i] && !(x->emap[i] = entryarg_copy(n->a)))
			return fail(x, n, "out of memory");
		snprintf(v->f, sizeof(v->f), "$arg%d", i + 1);
	} else {
		return fail(x, n->a, "a pointer from %s: ftr reads memory through a probe's "
			    "arguments (argN, retval, args->NAME at kfunc), which the kernel fetches "
			    "at the event; an address computed in user space cannot be read there",
			    n->a->k == N_FIELD ? "a tracepoint field" : n->a->k == N_MAP ?
			    "a map (stored at another event: read through it at the probe that stores it)" :
			    n->a->k == N_VAR ? "a variable holding a number" : "an expression");
	}
	snprintf(v->src, sizeof(v->src), "(%.60s)%.90s", n->sval,
		 r == 1 ? a.src : n->a->sval ? n->a->sval : "...");
	return 1;
}

static int member(struct tctx *x, struct node *n, struct tv *v)
{
	struct btf_member m;
	struct btf_t t;
	enum btf_kind k;
	char ts[128];

	if (n->op == T_ARROW || kind(x, v, NULL) == BTF_PTR) {
		if (deref(x, n, v))
			return -1;
	} else if (!v->lv) {
		return fail(x, n, "%s is not a struct", v->src);
	}
	k = kind(x, v, &t);
	if (k == BTF_FWD) {
		/* A declaration (struct r *next inside struct r, or BTF's own):
		 * the definition of that name, where there is one. */
		uint32_t def = btf_find(B(x), t.name, t.kflag ? BTF_UNION : BTF_STRUCT);

		if (def) {
			v->id = def;
			k = kind(x, v, &t);
		}
	}
	type_str(x, v, ts, sizeof(ts));
	if (k == BTF_FWD)
		return fail(x, n, "%s is declared but not defined here: %s", ts,
			    ctypes_why(*x->env)[0] ? ctypes_why(*x->env) :
			    "it is not in the BTF; define it in the program");
	if (k != BTF_STRUCT && k != BTF_UNION)
		return fail(x, n, "%s is %s, not a struct or union: it has no member '%s'",
			    v->src, ts, n->sval);
	if (btf_find_member(B(x), btf_skip(B(x), v->id), n->sval, &m))
		return fail(x, n, "%s has no member '%s'", ts, n->sval);
	v->id = m.type;
	v->nptr = 0;
	if (m.bits) {
		v->bits = m.bits;
		v->pbit = m.bit_off;
	} else {
		v->k += m.bit_off / 8;
	}
	snprintf(v->src + strlen(v->src), sizeof(v->src) - strlen(v->src), "%s%s",
		 n->op == T_ARROW ? "->" : ".", n->sval);
	return 1;
}

/*
 * The kernel's own name for an argument, where it takes names at this
 * probe (fentry-like: kfunc, from the kernel's BTF, not --btf's): the
 * kernel then reads and types it from its BTF; off keeps ftr's fetch for
 * typed_fallback.  An identifier only (the kernel parses any other word as
 * something else).
 */
static void by_name(struct tctx *x, const char *name, char *f, size_t len)
{
	struct typed_out *o = x->out;
	int i;

	if (!(x->ps & PS_ARGNAME) || x->user || x->ret || !ctypes_btf_running(*x->env) ||
	    strlen(name) >= sizeof(o->name[0]) ||
	    strlen(f) >= sizeof(o->off[0]) || name[strspn(name, "abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")] || !name[0] ||
	    (name[0] >= '0' && name[0] <= '9'))
		return;
	for (i = 0; i < o->nnames && strcmp(o->name[i], name); i++)
		;
	if (i == TYPED_MAX_NAMES)
		return;
	if (i == o->nnames) {
		/* Both lengths checked above (a snprintf here warns at -Os). */
		memcpy(o->name[i], name, strlen(name) + 1);
		memcpy(o->off[i], f, strlen(f) + 1);
		o->nnames++;
	}
	snprintf(f, len, "%s", name);
}

int typed_fallback(const struct typed_out *o, int i, char *out, size_t len)
{
	const char *s = o->f[i].fetch;
	size_t off = 0;

	/* The names stand where a fetch does: whole, or innermost in
	 * "+K(...)"; every other word of a fetcharg starts with % $ @ + - \. */
	while (*s) {
		size_t w = strcspn(s, "()");
		int k = o->nnames;

		if (w)
			for (k = 0; k < o->nnames; k++)
				if (strlen(o->name[k]) == w && !strncmp(s, o->name[k], w))
					break;
		off += (size_t)snprintf(out + off, off < len ? len - off : 0, "%.*s",
					k < o->nnames ? (int)strlen(o->off[k]) : (int)(w ? w : 1),
					k < o->nnames ? o->off[k] : s);
		s += w ? w : 1;
	}
	return off < len ? 0 : -ENOSPC;
}

static int kfunc_arg(struct tctx *x, struct node *n, struct tv *v)
{
	struct btf_t t;
	char list[256] = "";
	size_t off = 0;

	btf_type(B(x), x->proto, &t);
	for (unsigned i = 0; i < t.vlen; i++) {
		uint32_t type;
		const char *name = btf_param(B(x), x->proto, i, &type);

		if (!strcmp(name, n->sval)) {
			memset(v, 0, sizeof(*v));
			if (arg_fetch(x, n, i, v->f, sizeof(v->f)))
				return -1;
			by_name(x, name, v->f, sizeof(v->f));
			v->id = type;
			snprintf(v->src, sizeof(v->src), "args->%s", n->sval);
			return 1;
		}
		off += snprintf(list + off, off < sizeof(list) ? sizeof(list) - off : 0, "%s%s",
				i ? ", " : "", name);
	}
	return fail(x, n, "%s has no argument '%s' (its arguments: %s)", x->c->probes[0].target,
		    n->sval, list);
}

/*
 * args alone at a kfunc: the record of every argument of its BTF prototype
 * ({ .path = 0x..., .file = 0x... }, as bpftrace prints it), each read as
 * args.NAME is; a pointer printed in hex.  n becomes that N_TUPLE.
 */
static int kfunc_args(struct tctx *x, struct node *n)
{
	struct btf_t t;
	struct node **args;
	char names[TYPED_MAX_FIELDS * 40] = "";
	size_t off = 0;
	uint32_t hex = 0;

	btf_type(B(x), x->proto, &t);
	if (!t.vlen)
		return fail(x, n, "args: %s has no arguments", x->c->probes[0].target);
	if (t.vlen > 32)
		return fail(x, n, "args: %s has %u arguments: ftr reads at most 32 as a record",
			    x->c->probes[0].target, t.vlen);
	args = calloc(t.vlen, sizeof(*args));
	if (!args)
		return fail(x, n, "out of memory");
	for (unsigned i = 0; i < t.vlen; i++) {
		uint32_t type;
		const char *name = btf_param(B(x), x->proto, i, &type);
		struct tv v = { .id = type };
		struct node *a = calloc(1, sizeof(*a));

		if (a) {
			a->k = N_FIELD;
			a->line = n->line;
			a->col = n->col;
			a->sval = strdup(name && name[0] ? name : "?");
		}
		args[i] = a;
		if (!a || !a->sval || !name || !name[0]) {
			for (unsigned j = 0; j <= i; j++)
				lang_node_free(args[j]);
			free(args);
			return a && a->sval ? fail(x, n, "args: argument %u of %s has no name in "
						  "its BTF", i, x->c->probes[0].target) :
					      fail(x, n, "out of memory");
		}
		off += (size_t)snprintf(names + off, off < sizeof(names) ? sizeof(names) - off : 0,
					"%s%s", i ? "," : "", name);
		if (kind(x, &v, NULL) == BTF_PTR)
			hex |= 1u << i;		/* printed in hex */
		if (off >= sizeof(names) || plain(x, a) < 0) {
			for (unsigned j = 0; j <= i; j++)
				lang_node_free(args[j]);
			free(args);
			return off >= sizeof(names) ? fail(x, n, "args: its names are too long") : -1;
		}
	}
	clear_node(n);
	n->k = N_TUPLE;
	n->ival = 0;		/* a record: not a C struct's */
	n->idx = (int)hex;
	n->sval = strdup(names);
	n->args = args;
	n->nargs = (int)t.vlen;
	return n->sval ? 0 : fail(x, n, "out of memory");
}

int typed_buf_cap(void)
{
	const char *e = getenv("BPFTRACE_STRLEN");
	long v = e && *e ? strtol(e, NULL, 10) : TYPED_BUF_MAX;

	return v >= 1 && v < TYPED_BUF_MAX ? (int)v : TYPED_BUF_MAX;
}

/*
 * buf(p, len), buf(array): the bytes at p, fetched at the event as a
 * fixed-size array (+0(p):u8[N]); the interpreter keeps the first len.  N is
 * what bpftrace would copy at most: a literal len, the array's size, else
 * its string length (BPFTRACE_STRLEN, 64), which is also the kernel's
 * largest array (MAX_ARRAY_LEN).  The kernel reads an array element by
 * element and goes on past a fault (trace_probe_tmpl.h): bytes beyond len
 * in a page that is not mapped cost nothing, the len the program names are
 * read as they are.  n->idx is N, the args[0] the array field.
 */
static int buf_call(struct tctx *x, struct node *n)
{
	struct node *a = n->args[0];
	char addr[256], type[16];
	int64_t arr = -1;
	int cap = typed_buf_cap(), r;
	struct tv s;

	if (n->nargs == 2 && plain(x, n->args[1]) < 0)
		return -1;
	r = walk(x, a, &s);
	if (r < 0)
		return -1;
	if (r == 1 && s.lv && kind(x, &s, NULL) == BTF_ARRAY) {
		if (!s.f[0])
			return fail(x, n, "buf(%s): a constant address", s.src);
		arr = size_of(x, &s);
		if (cat(x, n, addr, sizeof(addr), "+%" PRId64 "(%s)", s.k, s.f))
			return -1;
	} else if (r == 1) {
		if (value(x, n, &s))
			return -1;
		if (kind(x, &s, NULL) != BTF_PTR)
			return fail(x, n, "buf(%s): not a pointer or an array", s.src);
		if (!s.f[0])
			return fail(x, n, "buf(%s): a constant address", s.src);
		if (cat(x, n, addr, sizeof(addr), "+%" PRId64 "(%s)", s.k, s.f))
			return -1;
	} else if (x->mem && a->k == N_BUILTIN && (a->ival == B_ARG || a->ival == B_RETVAL)) {
		char reg[64];

		if (a->ival == B_RETVAL && !x->ret)
			return fail(x, a, "retval exists only in return probes");
		if (a->ival == B_RETVAL)
			snprintf(reg, sizeof(reg), "$retval");
		else if (arg_fetch(x, a, (unsigned)a->idx, reg, sizeof(reg)))
			return -1;
		snprintf(addr, sizeof(addr), "+0(%s)", reg);
		if (a->ival == B_ARG)
			snprintf(s.src, sizeof(s.src), "arg%d", a->idx);
		else
			snprintf(s.src, sizeof(s.src), "retval");
	} else {
		/* A tracepoint's field (strfetch.c fetches it), or nothing
		 * a probe can read: the semantic pass says. */
		return r == 1 && materialize(x, a, &s) ? -1 : 0;
	}
	if (n->nargs == 1 && arr < 0)
		return fail(x, n, "buf(%s) needs a length: buf(%s, LEN) (only an array has one)",
			    s.src, s.src);
	if (n->nargs == 1 && arr < cap)
		cap = arr > 0 ? (int)arr : 1;
	if (n->nargs == 2 && n->args[1]->k == N_INT && n->args[1]->ival >= 0 &&
	    n->args[1]->ival < cap)
		cap = n->args[1]->ival > 0 ? (int)n->args[1]->ival : 1;
	if (n->nargs == 2 && n->args[1]->k == N_INT && (uint64_t)n->args[1]->ival > (uint64_t)cap)
		ftr_warn("%d:%d: buf() length is too long and will be shortened to %d bytes (see "
			 "BPFTRACE_STRLEN)", n->line, n->col, cap);
	snprintf(type, sizeof(type), "u8[%d]", cap);
	n->idx = cap;
	return become_field(x, a, add_field(x, n, addr, type, s.src), 0) ? -1 : 0;
}

/*
 * curtask where only its truth is read (a condition; an operand of !, && or
 * ||): a task_struct's address is never NULL, whichever task runs (ftr's own
 * in BEGIN and END, the interrupted one, the idle task's too, in interval),
 * so it is true without reading it, in any clause.
 */
static void truth(struct node *n)
{
	if (n && n->k == N_BUILTIN && n->ival == B_CURTASK) {
		n->k = N_INT;
		n->ival = 1;
	}
}

/*
 * offsetof(TYPE, a.b): the byte offset of member b of member a of TYPE (v,
 * its type), as C's; n (an N_SIZEOF, idx 1, its path an N_STR) becomes that
 * number.  Each member as member() finds it: nested and anonymous ones.
 */
static int offset_of(struct tctx *x, struct node *n, struct tv *v)
{
	struct node m = { .k = N_MEMBER, .op = T_DOT, .line = n->line, .col = n->col };
	char path[128], *save = NULL;

	if (v->nptr)
		return fail(x, n, "offsetof(%s, ...): a pointer has no members", n->sval);
	snprintf(path, sizeof(path), "%s", n->a->sval);
	snprintf(v->src, sizeof(v->src), "%s", n->sval);
	v->lv = true;
	for (m.sval = strtok_r(path, ". \t", &save); m.sval; m.sval = strtok_r(NULL, ". \t", &save)) {
		if (member(x, &m, v) < 0)
			return -1;
		if (v->bits)
			return fail(x, n, "offsetof(%s, %s): a bitfield has no byte offset",
				    n->sval, n->a->sval);
	}
	if (!strcmp(v->src, n->sval))
		return fail(x, n, "offsetof(%s, ...) names no member", n->sval);
	clear_node(n);
	n->k = N_INT;
	n->idx = 0;
	n->ival = v->k;
	return 0;
}

static int walk(struct tctx *x, struct node *n, struct tv *v)
{
	int64_t idx;
	int r;

	if (n->k == N_TERNARY || (n->k == N_UNOP && n->op == T_NOT))
		truth(n->a);
	if (n->k == N_BINOP && (n->op == T_ANDAND || n->op == T_OROR)) {
		truth(n->a);
		truth(n->b);
	}
	switch (n->k) {
	case N_CAST:
		return cast(x, n, v);
	case N_BLOCK:
		/* a block expression's statements, as a clause's, then its value */
		if (n->a && stmts(x, n->a))
			return -1;
		return n->b && plain(x, n->b) < 0 ? -1 : 0;
	case N_MEMBER:
		if (n->op == T_DOT && n->sval[0] >= '0' && n->sval[0] <= '9')
			return plain(x, n->a) < 0 ? -1 : 0;	/* a tuple's element */
		r = walk(x, n->a, v);
		if (r == 0 && n->a->ptr_size)
			return need_mem(x, n->a, "a read through a pointer");
		if (r == 0 && n->a->k == N_FIELD && x->tracepoint && !x->btf_func)
			r = tp_field(x, n->a, v, true);
		if (r == 0 && n->op == T_DOT && (n->a->k == N_VAR || n->a->k == N_MEMBER ||
						 n->a->k == N_TUPLE || n->a->k == N_MAP))
			return 0;	/* a record's field, $r.name: the semantic pass's */
		if (r == 0)
			return fail(x, n, "'%s%s' needs a struct or a pointer to one: cast it, as "
				    "((struct NAME *)arg0)%s%s", n->op == T_ARROW ? "->" : ".", n->sval,
				    n->op == T_ARROW ? "->" : ".", n->sval);
		return r < 0 ? r : member(x, n, v);
	case N_INDEX:
		r = walk(x, n->a, v);
		if (r == 0 && n->a->ptr_size)
			return need_mem(x, n->a, "a read through a pointer");
		if (r == 0 && const_of(n->b, &idx) && idx >= 0) {
			/* $t[1 + 1]: a tuple's element by a constant, $t.2 */
			char num[24];

			snprintf(num, sizeof(num), "%lld", (long long)idx);
			if (plain(x, n->a) < 0)
				return -1;
			free(n->sval);
			n->sval = strdup(num);
			lang_node_free(n->b);
			n->b = NULL;
			n->k = N_MEMBER;
			n->op = T_DOT;
			return n->sval ? 0 : fail(x, n, "out of memory");
		}
		if (r == 0)	/* a string's byte by a computed index: the semantic pass's */
			return plain(x, n->a) < 0 || plain(x, n->b) < 0 ? -1 : 0;
		if (r < 0 || plain(x, n->b) < 0)
			return -1;
		if (n->b->k != N_INT)
			return fail(x, n->b, "the index must be a constant: a fetch argument cannot "
				    "compute an address from a value read at the event");
		if (kind(x, v, NULL) == BTF_PTR || kind(x, v, NULL) == BTF_ARRAY) {
			int64_t sz;
			bool arr = kind(x, v, NULL) == BTF_ARRAY;

			if (arr ? !v->lv : deref(x, n, v))
				return arr ? fail(x, n, "%s is not in memory", v->src) : -1;
			if (arr) {
				int64_t all = size_of(x, v);

				target(x, v);
				sz = size_of(x, v);
				/* bpftrace's refusal, in its words; a flexible
				 * array (int y[0]) has no bound. */
				if (all > 0 && sz > 0 && (n->b->ival < 0 || n->b->ival >= all / sz))
					return fail(x, n->b, "the index %" PRId64 " is out of bounds "
						    "for array of size %" PRId64, n->b->ival, all / sz);
			}
			sz = size_of(x, v);
			if (sz <= 0)
				return fail(x, n, "%s points to a type without size", v->src);
			/* Sizes from a hostile BTF: the offset must not wrap. */
			{
				int64_t off, k;

				if (__builtin_mul_overflow(n->b->ival, sz, &off) ||
				    __builtin_add_overflow(v->k, off, &k))
					return fail(x, n, "%s[%" PRId64 "]: the offset passes 2^63 "
						    "(its type's size is %" PRId64 ")", v->src,
						    n->b->ival, sz);
				v->k = k;
			}
			snprintf(v->src + strlen(v->src), sizeof(v->src) - strlen(v->src),
				 "[%" PRId64 "]", n->b->ival);
			return 1;
		}
		return fail(x, n, "%s is not a pointer or an array", v->src);
	case N_UNOP:
		if (n->op != T_STAR && n->op != T_AND)
			break;
		r = walk(x, n->a, v);
		if (r == 0 && n->a->ptr_size)
			return need_mem(x, n->a, "a read through a pointer");
		/* An untyped *: a read of kernel memory by address, which the
		 * interpreter does from /proc/kcore where it can (*kaddr("sym")
		 * in BEGIN, END, interval) and refuses at events. */
		if (r == 0 && n->op == T_STAR)
			return 0;
		if (r == 0)
			return fail(x, n, "& needs a typed member: cast it first, as "
				    "&((TYPE *)arg0)->member");
		if (r < 0)
			return r;
		if (n->op == T_STAR) {
			if (deref(x, n, v))
				return -1;
		} else {
			if (!v->lv || v->bits)
				return fail(x, n, "& needs a member or *pointer (not %s)", v->src);
			v->lv = false;
			v->nptr++;
		}
		{
			char s[160];

			snprintf(s, sizeof(s), "%c%.150s", n->op == T_STAR ? '*' : '&', v->src);
			memcpy(v->src, s, sizeof(s));
		}
		return 1;
	case N_SIZEOF: {
		int64_t sz = 8;

		if (n->sval) {
			int nptr;
			char why[320];

			if (open_env(x))
				return -1;
			memset(v, 0, sizeof(*v));
			if (ctypes_parse_name(*x->env, n->sval, &v->id, &nptr, why, sizeof(why)))
				return fail(x, n, "%s(%s): %s", n->idx ? "offsetof" : "sizeof", n->sval,
					    why);
			v->nptr = nptr;
			if (n->idx)
				return offset_of(x, n, v);
			sz = size_of(x, v);
		} else {
			int64_t align;

			if (!plain_size(x, n->a, &sz, &align))
				goto sized;
			r = walk(x, n->a, v);
			if (r < 0)
				return r;
			/* A value without a C type: bpftrace sizes it by its own types
			 * (a literal 1 is a uint8, 1 == 1 a bool, a tuple a packed
			 * struct of those), which ftr does not keep but where
			 * plain_size() knows them. */
			if (r == 0)
				return fail(x, n, "sizeof of a value without a C type (a number, a "
					    "string, a tuple, a variable holding one): bpftrace "
					    "sizes it by its literals' own types, which ftr has not; "
					    "sizeof(TYPE) and sizeof of a typed read are");
			sz = v->lv || v->nptr || kind(x, v, NULL) != BTF_UNKN ? size_of(x, v) : 8;
		}
		if (sz < 0)
			return fail(x, n, "sizeof: the type has no size");
sized:
		become_field(x, n, -1, 0);
		n->k = N_INT;
		n->ival = sz;
		return 0;
	}
	case N_FIELD:
		if (!x->btf_func)	/* args alone: refused by the semantic pass */
			return x->tracepoint && n->sval[0] ? tp_field(x, n, v, false) : 0;
		if (x->ret)
			return fail(x, n, "args%s%s: the arguments are gone when the function "
				    "returns: read them at kfunc:", n->sval[0] ? "->" : "", n->sval);
		if (!n->sval[0])
			return kfunc_args(x, n);
		return kfunc_arg(x, n, v);
	case N_BUILTIN:
		if (n->ival == B_CONST) {
			int64_t val;
			uint32_t eid;

			if (open_env(x))
				return -1;
			if (ctypes_constant(*x->env, n->sval, &val, &eid))
				return fail(x, n, "unknown name '%s': no enumerator of the program's "
					    "or the BTF's enums, no #define of the program, "
					    "no UAPI constant ftr knows on %s (ftr-language(7))%s%s",
					    n->sval, arch_name(), ctypes_why(*x->env)[0] ? "; " : "",
					    ctypes_why(*x->env));
			free(n->sval);
			n->sval = NULL;
			n->k = N_INT;
			n->ival = val;
			n->enum_id = eid;	/* printed by its name, as bpftrace */
			return 0;
		}
		if (n->ival == B_CURTASK)
			return curtask(x, n, v);
		if (n->ival == B_RETVAL && x->btf_func && x->ret) {
			struct btf_t t;

			btf_type(B(x), x->proto, &t);
			memset(v, 0, sizeof(*v));
			v->id = t.size_type;
			snprintf(v->f, sizeof(v->f), "$retval");
			snprintf(v->src, sizeof(v->src), "retval");
			return kind(x, v, NULL) == BTF_UNKN ? 0 : 1;
		}
		return 0;
	case N_VAR:
		for (int i = 0; i < x->nvars; i++)
			if (!strcmp(x->vars[i].name, n->sval)) {
				*v = x->vars[i].tv;
				snprintf(v->src, sizeof(v->src), "%s", n->sval);
				return 1;
			}
		return 0;
	case N_BINOP:
		if (n->op == T_PLUS || n->op == T_MINUS) {
			r = walk(x, n->a, v);
			if (r < 0)
				return r;
			if (r == 1 && (v->lv ? kind(x, v, NULL) == BTF_ARRAY :
				       kind(x, v, NULL) == BTF_PTR)) {
				struct tv t;
				int64_t sz;

				if (plain(x, n->b) < 0 || value(x, n, v))
					return -1;
				if (n->b->k != N_INT)
					return fail(x, n, "pointer arithmetic needs a constant here: a "
						    "fetch argument cannot add a value read at the "
						    "event");
				t = *v;
				target(x, &t);
				sz = size_of(x, &t);
				v->k += (n->op == T_PLUS ? 1 : -1) * n->b->ival * (sz > 0 ? sz : 1);
				return 1;
			}
			if (r == 1 && materialize(x, n->a, v))
				return -1;
			return plain(x, n->b) < 0 ? -1 : 0;
		}
		break;
	case N_CALL:
		if (!strcmp(n->sval, "str") && n->nargs >= 1) {
			struct tv s;
			char fetch[256];

			r = walk(x, n->args[0], &s);
			if (r < 0)
				return r;
			if (r == 1) {
				enum btf_kind k = kind(x, &s, NULL);

				if (k == BTF_PTR && value(x, n, &s))
					return -1;
				if (k != BTF_ARRAY && k != BTF_PTR)
					return fail(x, n, "str(%s): not a char * or char[]", s.src);
				if (!s.f[0])
					return fail(x, n, "str(%s): a constant address", s.src);
				if (at(x, n, s.user, fetch, sizeof(fetch), s.k, s.f) ||
				    become_field(x, n->args[0], add_field(x, n, fetch, "string",
									  s.src), 0))
					return -1;
			}
			for (int i = 1; i < n->nargs; i++)
				if (plain(x, n->args[i]) < 0)
					return -1;
			if (r == 1 && x->ret && entryarg_of(fetch, x->emap) >= 0)
				return str_guard(x, n, entryarg_of(fetch, x->emap));
			return 0;
		}
		if (!strcmp(n->sval, "buf") && (n->nargs == 1 || n->nargs == 2))
			return buf_call(x, n);
		if (!strcmp(n->sval, "ntop") && n->nargs >= 1) {
			/* ntop(sk->skc_v6_daddr.in6_u.u6_addr8): the address's
			 * bytes, an array fetch (u8[16]), not the string a
			 * char array is elsewhere (tcpconnect, tcpaccept). */
			struct node *a = n->args[n->nargs - 1];
			struct tv s, e;
			char fetch[256], type[16];

			if (n->nargs == 2 && plain(x, n->args[0]) < 0)
				return -1;
			r = walk(x, a, &s);
			if (r < 0)
				return r;
			if (r == 1 && s.lv && kind(x, &s, NULL) == BTF_ARRAY && s.f[0] &&
			    (size_of(x, &s) == 4 || size_of(x, &s) == 16)) {
				e = s;
				target(x, &e);
				if (kind(x, &e, NULL) == BTF_INT && size_of(x, &e) == 1) {
					snprintf(type, sizeof(type), "u8[%d]", (int)size_of(x, &s));
					if (at(x, n, s.user, fetch, sizeof(fetch), s.k, s.f))
						return -1;
					return become_field(x, a, add_field(x, n, fetch, type, s.src),
							    0) ? -1 : 0;
				}
			}
			if (r == 1 && materialize(x, a, &s))
				return -1;
			return 0;
		}
		break;
	default:
		break;
	}
	return walk_children(x, n) ? -1 : 0;
}

/*
 * bpftrace's size of a value without a C type, where ftr knows it exactly:
 * a cast to an integer type its width; a string literal its bytes with the
 * NUL (string[N]); a number literal its smallest type, and 0 ... 127 is
 * one byte whether that type is signed or unsigned (a larger literal or a
 * negative one is left out: which of int16 or uint8 it is, ftr does not
 * know); a tuple a C struct of its elements, each aligned to its own size
 * (a string to 1), the whole padded to its widest.  0, or -1 when unknown.
 */
static int plain_size(const struct tctx *x, const struct node *n, int64_t *size, int64_t *align)
{
	int bits;
	bool sgn;

	switch (n->k) {
	case N_INT:
		if (n->idx || n->enum_id || n->ptr_size || n->ival < 0 || n->ival > 127)
			return -1;
		*size = *align = 1;
		return 0;
	case N_STR:
		if (n->idx)
			return -1;
		*size = (int64_t)strlen(n->sval) + 1;
		*align = 1;
		return 0;
	case N_CAST:
	case N_CALL:
		if ((n->k == N_CALL && n->nargs != 1) || !lang_int_type(n->sval, &bits, &sgn))
			return -1;
		*size = *align = (bits + 7) / 8;
		return 0;
	case N_VAR:
		for (int i = 0; i < x->nsized; i++)
			if (!strcmp(x->sized[i].name, n->sval)) {
				*size = x->sized[i].size;
				*align = x->sized[i].align;
				return 0;
			}
		return -1;
	case N_TUPLE: {
		int64_t off = 0, max = 1, s, a;

		if (n->ival || !n->nargs)	/* a C array or struct read: typed */
			return -1;
		for (int i = 0; i < n->nargs; i++) {
			if (plain_size(x, n->args[i], &s, &a))
				return -1;
			off = (off + a - 1) / a * a + s;
			max = a > max ? a : max;
		}
		*size = (off + max - 1) / max * max;
		*align = max;
		return 0;
	}
	default:
		return -1;
	}
}

/* How many statements of st (and the if blocks in it) assign $name. */
static int assigns(const struct node *st, const char *name)
{
	int n = 0;

	for (; st; st = st->next) {
		if (lang_is_block_stmt(st->k))
			n += assigns(st->b, name) + assigns(st->c, name);
		else if (st->k == S_ASSIGN && st->a->k == N_VAR && !strcmp(st->a->sval, name))
			n++;
	}
	return n;
}

static int stmts(struct tctx *x, struct node *st)
{
	for (; st; st = st->next) {
		if (lang_is_block_stmt(st->k)) {
			/* an if's condition, a while's; a for's bounds */
			if (st->k == S_IF || st->k == S_WHILE)
				truth(st->a);
			if ((st->k == S_IF || st->k == S_WHILE) && plain(x, st->a) < 0)
				return -1;
			for (int i = 0; i < st->nargs; i++)
				if (plain(x, st->args[i]) < 0)
					return -1;
			x->ifdepth++;
			if (stmts(x, st->b) || (st->c && stmts(x, st->c)))
				return -1;
			x->ifdepth--;
		} else if (st->k == S_ASSIGN && st->a->k == N_VAR) {
			struct tv v;
			int64_t size, align;
			int r, i;

			/* A tuple (a scalar variable may be widened, a string
			 * resized, as bpftrace's are), before walk(), which turns
			 * casts and reads into fields. */
			if (st->op == T_ASSIGN && !x->ifdepth && x->nsized < MAX_TVARS &&
			    st->b->k == N_TUPLE &&
			    assigns(x->c->body, st->a->sval) == 1 &&
			    !plain_size(x, st->b, &size, &align)) {
				snprintf(x->sized[x->nsized].name, sizeof(x->sized[0].name), "%s",
					 st->a->sval);
				x->sized[x->nsized].size = size;
				x->sized[x->nsized++].align = align;
			}
			r = walk(x, st->b, &v);

			if (r < 0)
				return -1;
			for (i = 0; i < x->nvars; i++)
				if (!strcmp(x->vars[i].name, st->a->sval))
					break;
			if (r == 1) {
				struct tv keep = v;

				/* An array or struct stays one: $s.m, $a[1] read
				 * through it, print($s) prints it. */
				if (!(v.lv && !v.bits && is_aggregate(kind(x, &v, NULL))) &&
				    value(x, st->b, &keep))
					return -1;
				/* A number read is a plain number in the variable; a
				 * pointer keeps its type, known at compile time. */
				/* In an if block too when it is the clause's only
				 * assignment of the variable (tcplife's $tp = (struct
				 * tcp_sock *)$sk): the fetch arguments read at every
				 * event, the block uses them when it runs. */
				bool typed = kind(x, &keep, NULL) == BTF_PTR || keep.lv;

				if (typed &&
				    ((x->ifdepth && assigns(x->c->body, st->a->sval) != 1) ||
				     i < x->nvars || st->op != T_ASSIGN))
					return fail(x, st, "%s holds a typed %s: assign it once, "
						    "with '=' (its type is known when the program is "
						    "compiled)", st->a->sval,
						    keep.lv ? "array or struct" : "pointer");
				if (typed) {
					if (x->nvars == MAX_TVARS)
						return fail(x, st, "too many typed variables");
					snprintf(x->vars[x->nvars].name, sizeof(x->vars[0].name), "%s",
						 st->a->sval);
					x->vars[x->nvars++].tv = keep;
				}
				if (materialize(x, st->b, &v))
					return -1;
			} else if (i < x->nvars) {
				return fail(x, st, "%s holds a typed pointer: it is assigned once",
					    st->a->sval);
			}
		} else if (st->k == S_ASSIGN) {
			if (walk_children(x, st->a) || plain(x, st->b) < 0)
				return -1;
		} else if (st->a && plain(x, st->a) < 0) {	/* (break, continue, return: none) */
			return -1;
		}
	}
	return 0;
}

/*
 * curtask without $current (fetchargs.h): each field whose fetch reads through
 * the placeholder becomes one field per possible CPU, $current replaced by
 * that CPU's slot, and each read of it the choice of the event's CPU.
 */
static int per_cpu(struct tctx *x)
{
	struct typed_out *o = x->out;
	const struct kallsyms_current *l = &x->cur->loc;
	/* A kprobe takes PROBE_MAX_ARGS fields with the clause's others. */
	/* A profile clause's eprobe adds its filter's field (events.c, hrprof_clause). */
	int limit = x->tracepoint || x->prof ? TYPED_MAX_FIELDS - x->prof : PROBE_MAX_ARGS - 2;
	int nper = 0, n = o->n;
	struct typed_field *old = malloc(sizeof(o->f));
	char (*per)[16] = malloc(sizeof(char[TYPED_MAX_FIELDS][16]));
	size_t el = strlen(o->explain);
	uint64_t v = (uint64_t)x->cur->var;

	if (!old || !per) {
		free(old);
		free(per);
		return fail(x, &x->cur_at, "out of memory");
	}
	memcpy(old, o->f, sizeof(o->f));
	for (int i = 0; i < n; i++)
		if (strstr(old[i].fetch, "$current"))
			nper++;
	if (n + nper * (l->ncpu - 1) > limit) {
		free(old);
		free(per);
		return fail(x, &x->cur_at, "curtask is read on each CPU here (this kernel's probes "
			    "have no $current): %d read%s through it on %d possible CPUs, with %d "
			    "other%s, is %d fetch arguments, above the %d of one clause", nper,
			    nper == 1 ? "" : "s", l->ncpu, n - nper, n - nper == 1 ? "" : "s",
			    n + nper * (l->ncpu - 1), limit);
	}
	snprintf(o->explain + el, sizeof(o->explain) - el, "  $current: no such fetch argument "
		 "here; curtask is %s%s%s, per CPU at %c0x%" PRIx64 " + __per_cpu_offset[k] "
		 "(0x%" PRIx64 " + 8k), read on each possible CPU, the event's CPU choosing:\n",
		 l->var, l->member[0] ? "." : "", l->member, (int64_t)v < 0 ? '-' : '+',
		 (int64_t)v < 0 ? -v : v, l->offsets);
	o->n = 0;
	nper = 0;
	for (int i = 0; i < n; i++) {
		if (!strstr(old[i].fetch, "$current")) {
			o->f[o->n++] = old[i];
			continue;
		}
		memcpy(per[nper++], old[i].name, 16);
		for (int k = 0; k < l->ncpu; k++) {
			struct typed_field *f = &o->f[o->n++];
			char slot[64], *d = f->fetch;
			const char *s = old[i].fetch, *at;
			size_t left = sizeof(f->fetch);

			snprintf(slot, sizeof(slot), "%c0x%" PRIx64 "(@0x%" PRIx64 ")",
				 (int64_t)v < 0 ? '-' : '+', (int64_t)v < 0 ? -v : v,
				 l->offsets + 8 * (uint64_t)l->cpus[k]);
			while ((at = strstr(s, "$current"))) {
				int w = snprintf(d, left, "%.*s%s", (int)(at - s), s, slot);

				if (w < 0 || (size_t)w >= left)
					break;
				d += w;
				left -= (size_t)w;
				s = at + strlen("$current");
			}
			if (at || (size_t)snprintf(d, left, "%s", s) >= left) {
				free(old);
				free(per);
				return fail(x, &x->cur_at, "this member chain is too long for a fetch "
					    "argument once curtask is a per-CPU read");
			}
			if ((size_t)snprintf(f->name, sizeof(f->name), "%s_%d", old[i].name,
					     l->cpus[k]) >= sizeof(f->name)) {
				free(old);
				free(per);
				return fail(x, &x->cur_at, "too many fetch arguments once curtask "
					    "is a per-CPU read");
			}
			snprintf(f->type, sizeof(f->type), "%s", old[i].type);
			el = strlen(o->explain);
			snprintf(o->explain + el, sizeof(o->explain) - el, "    %s=%s:%s\n", f->name,
				 f->fetch, f->type);
		}
	}
	free(old);
	if ((x->c->pred && percpu_rewrite(x->c->pred, per, nper, l->cpus, l->ncpu)) ||
	    percpu_rewrite(x->c->body, per, nper, l->cpus, l->ncpu)) {
		free(per);
		return fail(x, &x->cur_at, "out of memory");
	}
	free(per);
	return 0;
}

int typed_compile(struct tenv **env, struct program *p, int ci, const char *arch,
		  unsigned probe_syntax, const struct typed_tp *tp, struct typed_cur *cur,
		  struct typed_out *out, struct lang_err *err)
{
	struct clause *c = &p->cl[ci];
	struct lang_probe *pr = &c->probes[0];
	struct tctx x = { .env = env, .p = p, .c = c, .arch = arch, .ps = probe_syntax,
			  .cur = cur, .out = out, .err = err };

	memset(out, 0, sizeof(*out));
	if (p->ndecls && open_env(&x))
		return -EINVAL;
	x.mem = pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE || pr->pv == PV_UPROBE ||
		pr->pv == PV_URETPROBE;
	x.ret = pr->pv == PV_KRETPROBE || pr->pv == PV_URETPROBE;
	x.user = pr->pv == PV_UPROBE || pr->pv == PV_URETPROBE;
	x.btf_func = pr->btf_func;
	x.tracepoint = pr->pv == PV_TRACEPOINT;
	/* profile:hz: the eprobe on the sampler's timer interrupt (tp->eprobes
	 * says whether this kernel has one; no fields of its own). */
	x.prof = pr->pv == PV_PROFILE && !pr->period;
	if (x.prof) {
		x.tp = tp;
		x.mem = tp && tp->eprobes;
	}
	if (x.tracepoint) {
		x.tp = tp;
		x.mem = tp && tp->eprobes;
	}
	if (x.btf_func) {
		char why[320];

		if (open_env(&x))
			return -EINVAL;
		/* config missing_probes = warn/ignore: a function of no
		 * prototype here is one events.c skips */
		for (int j = 0; j < c->nprobes; j++) {
			const struct lang_probe *q = &c->probes[j];
			uint32_t o = q->btf_func ? ctypes_func_proto(*env, q->target, why,
								     sizeof(why)) : 0;

			if (o && (!x.proto || o == x.proto)) {
				x.proto = o;
				continue;
			}
			if (!o && q->btf_func && p->missing_probes)
				continue;
			err->line = q->line;
			err->col = q->col;
			if (j == 0)
				snprintf(err->msg, sizeof(err->msg), "%s: %s", q->text, why);
			else
				snprintf(err->msg, sizeof(err->msg), "%s: the functions of one kfunc "
					 "clause must have one prototype", q->text);
			return -EINVAL;
		}
		x.btf_func = x.proto != 0;
	}
	for (int j = 1; j < c->nprobes; j++)
		if (c->probes[j].pv != pr->pv) {
			/* Other kinds keep their argument registers: allowed only
			 * when nothing is typed (checked below). */
			x.mem = false;
		}
	int r = (c->pred && plain(&x, c->pred) < 0) || stmts(&x, c->body);

	for (int i = 0; i < ENTRYARG_MAX; i++)
		lang_node_free(x.emap[i]);
	if (r)
		return -EINVAL;
	for (int i = 0; i < out->nnames; i++) {
		size_t el = strlen(out->explain);

		snprintf(out->explain + el, sizeof(out->explain) - el, "%s%s (else %s)%s",
			 i ? ", " : "  arguments by the kernel's BTF names: ", out->name[i],
			 out->off[i], i + 1 == out->nnames ? "\n" : "");
	}
	if (x.per_cpu && per_cpu(&x))
		return -EINVAL;
	return 0;
}
