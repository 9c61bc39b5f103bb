// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statements: what a clause does once its predicate holds (exec(),
 * run_clause()): assignments and map updates, if/else, and a call as a
 * statement through its row's exec (builtins.c: printf, print, clear...);
 * the output they share: stacks printed as bpftrace does, -f json's lines
 * (bt_out, bt_done), and the maps printed (print_map), wherever they are
 * kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ftr.h"
#include "lang/parse/ctypes.h"
#include "lang/maps/intern.h"
#include "lang/interp-int.h"

static uint64_t tseries_time(struct xctx *x);
/* ---- statements -------------------------------------------------------------- */

/*
 * printf: the format was checked by the semantic pass (conversions against
 * arguments).  Each conversion is rebuilt from its validated flags, width
 * and precision with ftr's own length modifier (every number is 64-bit), so
 * the format passed to snprintf is ours, not the user's text.
 */
/* printf("%s", kstack): the stack as bpftrace prints it in its mode, as
 * map keys print (agg.h). */
void print_stack(struct interp *in, struct outbuf *ob, struct val v, int mode)
{
	agg_print_stack(ob, v.ips, (uint32_t)v.len, mode, in->prof ? lprof_frame : NULL, in->prof);
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

/* The name of value v of enum id (true and false of a bool), or NULL. */
const char *enum_name(const struct interp *in, uint32_t id, int64_t v)
{
	if (id == LANG_BOOL_ID)
		return v ? "true" : "false";
	return id && in->types ? ctypes_enum_name(in->types, id, v) : NULL;
}

/* A value of an enum (n->enum_id) as bpftrace prints it: the enumerator's
 * name; else the number, in text when always, else as it is. */
struct val enum_text(struct xctx *x, const struct node *n, struct val v, bool always)
{
	const char *name = enum_name(x->in, n->enum_id, v.i);

	if (n->ptr_size && !name) {
		/* a pointer prints in hex, as bpftrace's */
		snprintf(x->scratch, sizeof(x->scratch), "0x%llx", (unsigned long long)v.i);
		return vstr(x->scratch, strlen(x->scratch));
	}

	if (name)
		return vstr(name, strlen(name));
	if (!always)
		return v;
	snprintf(x->scratch, sizeof(x->scratch), v.u ? "%llu" : "%lld", (unsigned long long)v.i);
	return vstr(x->scratch, strlen(x->scratch));
}

#pragma GCC diagnostic pop


/* tuple.h's names of enum values. */
const char *tuple_enum_name(uint32_t id, int64_t v, void *arg)
{
	return enum_name(arg, id, v);
}

void tuple_stack(struct outbuf *ob, const uint64_t *ips, uint32_t n, int mode, void *arg)
{
	struct interp *in = arg;

	agg_print_stack(ob, ips, n, mode, in->prof ? lprof_frame : NULL, in->prof);
}

/* agg's value callback for a map of strings or stacks: the interned value
 * behind the number. */
struct vals_ctx {
	const struct intern *vals;
	enum vtype vt;
	struct interp *in;		/* tuples: their enums' names */
};

static int interned_value(int64_t v, struct agg_kpart *k, void *arg)
{
	const struct vals_ctx *c = arg;
	size_t len;
	const void *p = intern_get(c->vals, (uint32_t)v, &len);

	if (c->vt == VT_TUPLE) {
		/* its text, as print() shows it */
		static struct outbuf tob;

		ob_init(&tob, -1);
		if (c->in->o->mode == OUT_BTJSON)
			tuple_json(&tob, p ? p : "", p ? len : 0);
		else
			tuple_text(&tob, p ? p : "", p ? len : 0, tuple_enum_name, tuple_stack,
				   c->in);
		k->str.p = tob.buf;
		k->str.len = tob.len;
		return c->in->o->mode == OUT_BTJSON ? AGG_K_JSON : AGG_K_STR;
	}
	if (c->vt == VT_STR) {
		k->str.p = p ? p : "";
		k->str.len = len;
		return AGG_K_STR;
	}
	if (c->vt == VT_BUF) {
		/* as printf's %r shows it (text only: sema.c) */
		static struct outbuf bob;

		ob_init(&bob, -1);
		buf_text(&bob, p ? p : "", p ? len : 0, 0);
		k->str.p = bob.buf;
		k->str.len = bob.len;
		return AGG_K_STR;
	}
	k->stack.ips = p;
	k->stack.n = (uint32_t)(len / sizeof(uint64_t));
	return AGG_K_STACK;
}

/* Keys and values of a map that are an enum's values: their names (text). */
struct enum_ctx {
	struct interp *in;
	const struct mapdef *m;
};

static const char *enum_key_name(int part, int64_t v, void *arg)
{
	const struct enum_ctx *c = arg;
	uint32_t id = c->m->key_enum[part];

	if (id == KEY_BUF_ID || id == KEY_TUPLE_ID) {
		/* an interned buffer or tuple: its text (one part at a time) */
		static struct outbuf kob;
		size_t len;
		const char *p = intern_get(c->in->vals, (uint32_t)v, &len);

		ob_init(&kob, -1);
		if (id == KEY_BUF_ID)
			buf_text(&kob, p ? p : "", p ? len : 0, 0);
		else
			tuple_text(&kob, p ? p : "", p ? len : 0, tuple_enum_name, tuple_stack,
				   c->in);
		ob_putc(&kob, '\0');
		return kob.buf;
	}

	return enum_name(c->in, c->m->key_enum[part], v);
}

/* A map of pointers: its values in hex. */
static int ptr_value(int64_t v, struct agg_kpart *k, void *arg)
{
	(void)arg;
	k->u = (uint64_t)v;
	return AGG_K_HEX;
}

static int enum_value(int64_t v, struct agg_kpart *k, void *arg)
{
	const struct enum_ctx *c = arg;
	const char *name = enum_name(c->in, c->m->val_enum, v);

	if (!name)
		return -1;
	k->str.p = name;
	k->str.len = strlen(name);
	return AGG_K_STR;
}

void print_map(struct interp *in, struct mapdef *m, int64_t top, int64_t div, bool explicit)
{

	if (!m->m)
		return;
	if (m->k && hist_read(in, m) < 0)
		return;
	if (m->pc && pc_read(in, m) < 0)
		return;
	struct vals_ctx vc = { in->vals, m->vt, in };
	struct enum_ctx ec = { in, m };
	bool text = in->o->mode == OUT_TEXT;
	struct agg_print_opts po = { .top = top >= 0 ? (uint32_t)top : in->o->top,
				     .div = div > 0 ? (uint64_t)div : 0,
				     .stack_mode = m->stack_mode, .sort = in->o->sort,
				     /* bpftrace sorts a map of strings, stacks,
				      * tuples, buffers by its keys */
				     .key_order = m->vt > VT_INT,
				     .sym = in->prof ? lprof_frame : NULL, .sym_arg = in->prof,
				     .value = m->vt > VT_INT ? interned_value :
					      text && m->val_enum && m->kind == AGG_VALUE ?
					      enum_value :
					      text && m->val_ptr && m->kind == AGG_VALUE ? ptr_value : NULL,
				     .value_arg = m->vt > VT_INT ? (void *)&vc : &ec,
				     .key_name = text ? enum_key_name : NULL, .key_name_arg = &ec,
				     .empty_scalar = explicit,
				     .no_summary = text && in->o->no_hist_summary };

	if (explicit && text && !m->nkeys && !agg_entries(m->m) && m->vt == VT_TUPLE &&
	    m->vtsig) {
		/* a keyless map of tuples not stored in yet: its zero, as bpftrace */
		struct tbuf z = { 0 };

		if (tuple_zero(&z, m->vtsig) == 0) {
			ob_puts(&in->ob, m->name);
			ob_puts(&in->ob, ": ");
			tuple_text(&in->ob, z.p ? z.p : "", z.len, NULL, NULL, NULL);
			ob_putc(&in->ob, '\n');
		}
		tbuf_free(&z);
		return;
	}
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


/*
 * A bound on the turns of one loop: bpftrace's loops are bounded by the BPF
 * verifier, which refuses a program whose loop it cannot prove ends; ftr
 * stops the program with an error where such a loop turns on and on.
 */
#define LOOP_TURNS_MAX 1000000

bool run_interrupted(struct interp *in, const struct node *where, bool now)
{
	static const struct timespec zero;
	sigset_t stop;
	int sig;

	if (!now && (++in->work & 16383))
		return false;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sig = sigtimedwait(&stop, NULL, &zero);
	if (sig <= 0)
		return false;
	in->interrupted = sig;
	in->nsignals++;
	in->exit_req = true;
	ob_flush(&in->ob);
	if (where)
		ftr_err("%s: stopped the clause at %d:%d (the rest of its run is given up)",
			sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP",
			where->line, where->col);
	return true;
}

/* One turn of a loop's body: false when the loop ends (break, return). */
static bool loop_turn(struct xctx *x, const struct node *st, uint64_t *turns)
{
	if (run_interrupted(x->in, st, false))
		return false;
	if (++*turns > LOOP_TURNS_MAX) {
		ftr_err("%d:%d: error: the loop turned more than %d times: stopped (bpftrace "
			"refuses a loop it cannot prove ends)", st->line, st->col, LOOP_TURNS_MAX);
		x->in->guard_tripped = x->in->exit_req = true;
		return false;
	}
	exec(x, st->b);
	if (x->jump == S_BREAK || x->jump == S_CONTINUE) {
		bool more = x->jump == S_CONTINUE;

		x->jump = 0;
		return more && !x->in->exit_req;
	}
	return !x->jump && !x->in->exit_req;
}

/* The entries of a map, each its ((keys), value) tuple, as elements of one
 * tuple: the loop runs over this snapshot, whatever its body stores. */
struct map_snap {
	struct interp *in;
	const struct mapdef *m;
	struct tbuf all, one, keys;
	int err;
};

static int put_part(struct tbuf *b, enum agg_ktype kt, const struct agg_kpart *k, uint32_t eid,
		    int stack_mode)
{
	if (kt == AGG_K_STACK)
		return tuple_put_stack(b, k->stack.ips, k->stack.n, stack_mode);
	if (kt == AGG_K_STR)
		return tuple_put_str(b, k->str.p, strnlen(k->str.p, k->str.len));
	return tuple_put_int(b, k->i, kt != AGG_K_INT, eid);
}

static int snap_row(const struct agg_row *r, void *arg)
{
	struct map_snap *c = arg;
	const struct mapdef *m = c->m;
	struct tbuf *kb = m->nkeys > 1 ? &c->keys : &c->one;
	int err = 0;

	tbuf_reset(&c->one);
	tbuf_reset(&c->keys);
	for (int i = 0; i < m->nkeys && !err; i++)
		err = put_part(kb, m->kt[i], &r->keys[i], m->key_enum[i], m->stack_mode);
	if (!err && m->nkeys > 1)
		err = tuple_put_tuple(&c->one, c->keys.p, c->keys.len);
	if (!err && (m->vt == VT_STR || m->vt == VT_TUPLE)) {
		size_t len;
		const char *p = intern_get(c->in->vals, (uint32_t)r->value, &len);

		err = m->vt == VT_STR ? tuple_put_str(&c->one, p ? p : "", p ? strnlen(p, len) : 0) :
		      tuple_put_tuple(&c->one, p ? p : "", p ? len : 0);
	} else if (!err) {
		err = tuple_put_int(&c->one, r->value, agg_unsigned(m->m),
				    m->val_ptr ? TUPLE_HEX : m->val_enum);
	}
	if (!err)
		err = tuple_put_tuple(&c->all, c->one.p, c->one.len);
	c->err = err;
	return err;
}

static void exec_map_loop(struct xctx *x, const struct node *st, uint64_t *turns)
{
	struct interp *in = x->in;
	struct mapdef *m = &in->maps[st->args[0]->slot];
	struct map_snap c = { .in = in, .m = m };
	struct telem e;

	if ((m->k && hist_read(in, m) < 0) || (m->pc && pc_read(in, m) < 0))
		return;
	if (agg_foreach(m->m, snap_row, &c) || c.err) {
		ftr_err("%d:%d: out of memory for the entries of %s", st->line, st->col, m->name);
		in->exit_req = true;
	}
	for (int i = 0; !in->exit_req && !tuple_elem(c.all.p, c.all.len, i, &e); i++) {
		struct tbuf *vb = &in->varbuf[st->a->slot];

		if (tbuf_set(vb, e.s, e.len))
			break;
		in->vars[st->a->slot] = (struct val){ .t = VT_TUPLE, .s = vb->p, .len = vb->len };
		if (!loop_turn(x, st, turns))
			break;
	}
	tbuf_free(&c.all);
	tbuf_free(&c.one);
	tbuf_free(&c.keys);
}

static void exec_loop(struct xctx *x, const struct node *st)
{
	uint64_t turns = 0;

	if (st->k == S_FOR && st->nargs == 1) {
		exec_map_loop(x, st, &turns);
	} else if (st->k == S_FOR) {
		/* the bounds are read once, before the first turn */
		int64_t i = eval(x, st->args[0]).i, end = eval(x, st->args[1]).i;

		for (; i < end; i++) {
			x->in->vars[st->a->slot] = vint(i);
			if (!loop_turn(x, st, &turns))
				break;
		}
	} else if (st->k == S_WHILE) {
		while (truthy(eval(x, st->a)) && loop_turn(x, st, &turns))
			;
	} else {
		for (int64_t i = 0; i < st->ival && loop_turn(x, st, &turns); i++)
			;
	}
}

void exec(struct xctx *x, const struct node *st)
{
	struct interp *in = x->in;

	for (; st && !in->exit_req && !x->jump; st = st->next) {
		/* unroll(100) nested is 10^8 statements and no loop. */
		if (run_interrupted(in, st, false))
			break;
		switch (st->k) {
		case S_FOR: case S_WHILE: case S_UNROLL:
			exec_loop(x, st);
			break;
		case S_BREAK: case S_CONTINUE: case S_RETURN:
			if (st->a)	/* return VALUE: its value goes nowhere */
				eval(x, st->a);
			x->jump = st->k;
			break;
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

				div_zero_warn(in, st, st->op, nv.i);
				if (st->op == T_ASSIGN && nv.t == VT_TUPLE) {
					/* the variable's own copy: the expression's buffer
					 * changes when it runs again (a loop) */
					struct tbuf *vb = &in->varbuf[st->a->slot];

					if (tbuf_set(vb, nv.s, nv.len) == 0) {
						nv.s = vb->p;
						*var = nv;
					}
				} else if (st->op == T_ASSIGN)
					*var = nv;
				else if (st->ptr_size)	/* a pointer moves by pointees */
					*var = vint((int64_t)((uint64_t)var->i + (st->op == T_PLUSEQ ?
						    1 : -1) * (uint64_t)nv.i * st->ptr_size));
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
				if (st->b->nargs) {
					struct val a = eval(x, st->b->args[0]);

					v = a.i;
					/* bpftrace types a series by its value's type */
					if (m->kind == AGG_TSERIES && !agg_entries(m->m))
						agg_ts_unsigned(m->m, a.u);
				}
			} else if (m->vt > VT_INT) {
				struct val nv = eval(x, st->b);

				v = nv.t != VT_STACK ?
				    intern_put(in->vals, nv.s, nv.len) :
				    intern_put(in->vals, nv.ips, nv.len * sizeof(uint64_t));
			} else {
				struct val nv = eval(x, st->b);

				v = nv.i;
				/* bpftrace types a map by the value it stores: a
				 * u64 above INT64_MAX prints as such (kaddr(),
				 * (uint64)-1), not negative */
				if (st->op == T_ASSIGN && m->kind == AGG_VALUE && !agg_entries(m->m))
					agg_ts_unsigned(m->m, nv.u);
				if (st->ptr_size)	/* a pointer moves by pointees */
					v = (int64_t)((uint64_t)v * st->ptr_size);
				if (st->op != T_ASSIGN) {
					div_zero_warn(in, st, st->op, v);
					agg_lookup(m->m, k, &old);
					v = arith(st->op == T_PLUSEQ ? T_PLUS :
						  st->op == T_MINUSEQ ? T_MINUS :
						  st->op == T_STAREQ ? T_STAR : T_SLASH, old, v);
				}
			}
			if (agg_update_at(m->m, k, v, m->kind == AGG_TSERIES ? tseries_time(x) : 0) ==
			    -ENOSPC && !m->full_warned) {
				/* bpftrace's words; the count of drops comes at the end */
				m->full_warned = true;
				if (!ftr_no_warnings)
					ftr_err("%d:%d: WARNING: Map full; can't update element",
						st->line, st->col);
			}
			break;
		}
		default:
			break;
		}
	}
}

/* The time of a tseries() store, in ns of CLOCK_TAI (bpftrace's): the
 * event's; or, where bpftrace's tests set BPFTRACE_DUMMY_TS_MAP=@name, the
 * value of that keyless map (0 while it holds none), which they step. */
static uint64_t tseries_time(struct xctx *x)
{
	struct interp *in = x->in;
	struct timespec mono, tai;
	int64_t v = 0;

	if (!in->ts_looked) {
		const char *name = getenv("BPFTRACE_DUMMY_TS_MAP");

		in->ts_map = name ? map_find(in, name) : NULL;
		if (in->ts_map && in->ts_map->nkeys)
			in->ts_map = NULL;
		in->ts_looked = true;
	}
	if (in->ts_map) {
		agg_lookup(in->ts_map->m, NULL, &v);
		return (uint64_t)v;
	}
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_TAI, &tai);
	return x->now + (uint64_t)((tai.tv_sec - mono.tv_sec) * 1000000000 +
				   (tai.tv_nsec - mono.tv_nsec));
}

void run_clause(struct xctx *x, int ci, bool skip_pred)
{
	const struct clause *c = &x->in->p->cl[ci];

	x->in->runs++;
	if (c->pred && !skip_pred && !truthy(eval(x, c->pred)))
		return;
	exec(x, c->body);
	x->jump = 0;	/* a return */
}

