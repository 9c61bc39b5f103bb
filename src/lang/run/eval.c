// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Values: the evaluation of expressions over one event (eval()), with the
 * builtin variables (builtin(): pid, comm, nsecs...), arithmetic as
 * bpftrace's (signed and unsigned 64 bits) and the map keys of an
 * expression (keys_of).  A builtin function's value is its row's eval
 * (builtins.c).
 */




#include <string.h>
#include <unistd.h>

#include "filter/expr.h"
#include "ftr.h"
#include "kernel/kcore.h"
#include "lang/maps/intern.h"
#include "lang/interp-int.h"
#include "report/sym.h"
/* ---- values ------------------------------------------------------------------ */

struct val vint(int64_t i)
{
	return (struct val){ .t = VT_INT, .i = i };
}

struct val vstr(const char *s, size_t len)
{
	return (struct val){ .t = VT_STR, .s = s, .len = len };
}

bool truthy(struct val v)
{
	return v.t == VT_STR || v.t == VT_STACK ? v.len > 0 || v.i : v.i != 0;
}

/* { stmts; value }: the statements run, then the value; a value of no type
 * (printf(), a macro's last action) runs as a statement. */
static struct val eval_block(struct xctx *x, const struct node *n)
{
	if (n->a)
		exec(x, n->a);
	if (!n->b || x->jump || x->in->exit_req)
		return vint(0);
	if (n->b->k == N_CALL && n->b->type == VT_NONE) {
		if (n->b->fn && n->b->fn->exec)
			n->b->fn->exec(x, n->b);
		return vint(0);
	}
	return eval(x, n->b);
}

/* (a, b, ...) built in its buffer: valid until the expression runs again
 * (a variable keeps its own copy). */
static struct val eval_tuple(struct xctx *x, const struct node *n)
{
	struct tbuf *b = &x->in->tbufs[n->slot];
	struct val run[RECORD_ORDER_MAX];
	const int *order = n->bind;	/* a record in another order (sema.c) */
	int err = 0;

	tbuf_reset(b);
	if (n->sval)	/* a record's names (a C struct's too) */
		err = tuple_put_names(b, n->sval);
	else if (n->ival == TUPLE_ARRAY)	/* a C array (fetchargs.c) */
		err = tuple_put_mark(b, 'A');
	for (int i = 0; order && i < n->nargs; i++)	/* its elements run as written */
		run[order[i]] = eval(x, n->args[order[i]]);
	for (int i = 0; i < n->nargs && !err; i++) {
		struct val e = order ? run[i] : eval(x, n->args[i]);
		/* a C struct's or array's pointer (fetchargs.c) */
		bool hex = i < 32 && ((uint32_t)n->idx >> i & 1);

		/* an element that is an earlier run of this tuple's bytes has
		 * been copied by its variable: b is free to change */
		if (e.t == VT_INT)
			err = tuple_put_int(b, e.i, e.u, n->args[i]->ptr_size || hex ? TUPLE_HEX :
					    n->args[i]->enum_id);
		else if (e.t == VT_STR)
			err = tuple_put_str(b, e.s, strnlen(e.s, e.len));
		else if (e.t == VT_STACK)
			err = tuple_put_stack(b, e.ips, e.len, stack_mode_of(x->in, n->args[i]));
		else
			err = tuple_put_tuple(b, e.s, e.len);
	}
	if (err) {
		ftr_err("%d:%d: out of memory for a tuple", n->line, n->col);
		x->in->exit_req = true;
	}
	return (struct val){ .t = VT_TUPLE, .s = b->p ? b->p : "", .len = b->len };
}

/* The kernel's symbols; once, say why there are none (keys then show
 * addresses, as the kernel's %ps does for an address it cannot name). */
const struct ksyms *kernel_syms(struct interp *in)
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

int keys_of(struct xctx *x, const struct node *map, struct agg_kpart *k)
{
	for (int i = 0; i < map->nargs; i++) {
		struct val v = eval(x, map->args[i]);

		if (v.t == VT_STR)
			k[i].str.p = v.s, k[i].str.len = v.len;
		else if (v.t == VT_BUF || v.t == VT_TUPLE)
			k[i].u = intern_put(x->in->vals, v.s, v.len);
		else if (v.t == VT_STACK)
			k[i].stack.ips = v.ips, k[i].stack.n = (uint32_t)v.len;
		else
			k[i].i = v.i;
	}
	return 0;
}

int tid_of(struct xctx *x)
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

/*
 * A division or remainder by zero is 1, as in bpftrace, with its warning
 * (in its words: the suite checks them), once per run at the first place
 * it happens, not once per event.
 */
void div_zero_warn(struct interp *in, const struct node *n, enum tok op, int64_t b)
{
	if (b || in->div_zero_warned || ftr_no_warnings || (op != T_SLASH && op != T_PERCENT && op != T_SLASHEQ))
		return;
	in->div_zero_warned = true;
	/* one write, after what the program printed before (ftr_err writes in
	 * pieces, which a reader of both pipes may interleave with stdout) */
	ob_flush(&in->ob);
	fprintf(stderr, "%s: %d:%d: WARNING: Divide or modulo by 0 detected. This can lead to "
		"unexpected results. 1 is being used as the result.\n", ftr_progname, n->line,
		n->col);
}

int64_t arith(enum tok op, int64_t a, int64_t b)
{
	switch (op) {
	case T_PLUS: return (int64_t)((uint64_t)a + (uint64_t)b);
	case T_MINUS: return (int64_t)((uint64_t)a - (uint64_t)b);
	case T_STAR: return (int64_t)((uint64_t)a * (uint64_t)b);
	/* by zero: 1, as bpftrace (warned once, div_zero_warn) */
	case T_SLASH: return b ? (b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b) : 1;
	case T_PERCENT: return b ? (b != -1 ? a % b : 0) : 1;
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
	case T_SLASH: v = vint(b ? (int64_t)(a / b) : 1); break;
	case T_PERCENT: v = vint(b ? (int64_t)(a % b) : 1); break;
	case T_SHR: v = vint((int64_t)(a >> (b & 63))); break;
	default: v = vint(arith(op, (int64_t)a, (int64_t)b)); break;
	}
	v.u = true;
	return v;
}

int strcmp_v(struct val a, struct val b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int c = memcmp(a.s, b.s, n);

	return c ? c : (a.len > b.len) - (a.len < b.len);
}

struct val eval(struct xctx *x, const struct node *n)
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
		return eval_var(x, n);
	case N_VAR:
		return x->in->vars[n->slot];
	case N_TUPLE:
		return eval_tuple(x, n);
	case N_BLOCK:
		return eval_block(x, n);
	case N_INDEX: {
		/* a string's byte by a computed index (sema.c), 0 outside it */
		struct val t = eval(x, n->a), i = eval(x, n->b);

		return vint((int8_t)(i.i >= 0 && (uint64_t)i.i < t.len ? t.s[i.i] : 0));
	}
	case N_MEMBER: {
		/* a tuple's element (fetchargs.c rewrote the other members) */
		struct val t = eval(x, n->a), r;
		struct telem e;

		/* a string's byte (sema.c), 0 past its end as in its zeroed buffer */
		if (t.t == VT_STR)
			return vint((int8_t)((size_t)n->idx < t.len ? t.s[n->idx] : 0));
		if (t.t != VT_TUPLE || tuple_elem(t.s, t.len, n->idx, &e))
			return vint(0);
		if (e.tag == 'i') {
			r = vint(e.i);
			r.u = e.u;
			return r;
		}
		return (struct val){ .t = e.tag == 's' ? VT_STR : VT_TUPLE, .s = e.s, .len = e.len };
	}
	case N_MAP: {
		struct agg_kpart k[AGG_MAX_KEYS];
		int64_t v = 0;

		keys_of(x, n, k);
		agg_lookup(x->in->maps[n->slot].m, k, &v);
		if (x->in->maps[n->slot].vt > VT_INT) {
			size_t len;
			const void *p = intern_get(x->in->vals, (uint32_t)v, &len);

			if (x->in->maps[n->slot].vt == VT_TUPLE || x->in->maps[n->slot].vt == VT_BUF)
				return (struct val){ .t = x->in->maps[n->slot].vt, .s = p ? p : "",
						     .len = p ? len : 0 };
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
		return n->fn && n->fn->eval ? n->fn->eval(x, n) : vint(0);
	case N_UNOP:
		a = eval(x, n->a);
		if (n->op == T_NOT)
			return vint(!truthy(a));
		if (n->op == T_STAR) {
			int64_t v = 0;

			/* read-only data at an event: within its symbol only
			 * (sema.c, rodata_deref) */
			if (n->ival && (uint64_t)a.i + sizeof(v) > (uint64_t)n->ival) {
				if (!x->in->kc_warned)
					ftr_warn("%d:%d: *0x%llx: past the end of the read-only "
						 "symbol (0x%llx), whose neighbours may change: not "
						 "read (0)", n->line, n->col,
						 (unsigned long long)a.i, (unsigned long long)n->ival);
				x->in->kc_warned = true;
				return vint(0);
			}
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
		if (a.t == VT_STR || a.t == VT_TUPLE || a.t == VT_BUF) {
			int c = strcmp_v(a, b);

			return vint(arith(n->op, c, 0));
		}
		div_zero_warn(x->in, n, n->op, b.i);
		if (n->ptr_size && n->idx == 1)	/* p + n: n pointees */
			b.i = (int64_t)((uint64_t)b.i * n->ptr_size);
		else if (n->ptr_size)
			a.i = (int64_t)((uint64_t)a.i * n->ptr_size);
		if (a.u || b.u)
			return arith_u(n->op, a.i, b.i);
		return vint(arith(n->op, a.i, b.i));
	case N_TERNARY:
		return truthy(eval(x, n->a)) ? eval(x, n->b) : eval(x, n->c);
	case N_CAST:
		/* (uint8)x...: C's conversion to an integer of ival bytes. */
		a = eval(x, n->a);
		if (n->enum_id == LANG_BOOL_ID) {
			/* (bool)x: C's, whatever the width */
			a = vint(truthy(a));
			return a;
		}
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

