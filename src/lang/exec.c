// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statements: what a clause does once its predicate holds (exec(),
 * run_clause()): assignments and map updates, if/else, and a call as a
 * statement through its row's exec (builtins.c: printf, print, clear...);
 * the output they share: stacks printed as bpftrace does, -f json's lines
 * (bt_out, bt_done), and the maps printed (print_map), wherever they are
 * kept.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lang/intern.h"
#include "lang/interp-int.h"
/* ---- statements -------------------------------------------------------------- */

/*
 * printf: the format was checked by the semantic pass (conversions against
 * arguments).  Each conversion is rebuilt from its validated flags, width
 * and precision with ftr's own length modifier (every number is 64-bit), so
 * the format passed to snprintf is ours, not the user's text.
 */
/* printf("%s", kstack): the stack as bpftrace prints it, a newline, then a
 * frame a line, indented 8 (as map keys print, agg.h). */
void print_stack(struct interp *in, struct outbuf *ob, struct val v)
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
void bt_line(struct interp *in, const char *type, const char *s, size_t n)
{
	ob_puts(&in->ob, "{\"type\": \"");
	ob_puts(&in->ob, type);
	ob_puts(&in->ob, "\", \"data\": ");
	ob_json_str(&in->ob, s, n);
	ob_puts(&in->ob, "}\n");
}

struct outbuf *bt_out(struct interp *in)
{
	if (in->o->mode != OUT_BTJSON ||
	    (!in->fmt && !(in->fmt = calloc(1, sizeof(*in->fmt)))))
		return &in->ob;
	ob_init(in->fmt, -1);
	return in->fmt;
}

void bt_done(struct interp *in, struct outbuf *f, const char *type)
{
	if (f != &in->ob)
		bt_line(in, type, f->buf, f->len);
}

#pragma GCC diagnostic pop


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

void print_map(struct interp *in, struct mapdef *m, int64_t top, int64_t div)
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

static void exec(struct xctx *x, const struct node *st)
{
	struct interp *in = x->in;

	for (; st && !in->exit_req; st = st->next) {
		switch (st->k) {
		case S_EXPR:
			if (st->a->k == N_CALL && st->a->fn && st->a->fn->exec)
				st->a->fn->exec(x, st->a);
			else if (st->a->k != N_CALL)
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

void run_clause(struct xctx *x, int ci, bool skip_pred)
{
	const struct clause *c = &x->in->p->cl[ci];

	x->in->runs++;
	if (c->pred && !skip_pred && !truthy(eval(x, c->pred)))
		return;
	exec(x, c->body);
}

