// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The semantic pass: before anything runs, each clause's names, event
 * fields, types and maps are checked and bound (check(), check_stmts()): a
 * field becomes its format field, a variable its slot, a map its mapdef
 * with its kind and key types; a builtin function is checked by its row
 * (builtins.c, check_call()).  Errors carry the node's line and column.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "kernel/kallsyms.h"
#include "kernel/kcore.h"
#include "lang/maps/intern.h"
#include "lang/interp-int.h"
/* ---- semantic pass --------------------------------------------------------- */

struct mapdef *map_find(struct interp *in, const char *name)
{
	for (int i = 0; i < in->nmaps; i++)
		if (!strcmp(in->maps[i].name, name))
			return &in->maps[i];
	return NULL;
}

struct mapdef *map_get(struct interp *in, const char *name)
{
	for (int i = 0; i < in->nmaps; i++)
		if (!strcmp(in->maps[i].name, name))
			return &in->maps[i];
	if (in->nmaps == (int)ARRAY_SIZE(in->maps))
		return NULL;
	in->maps[in->nmaps].name = strdup(name);
	return &in->maps[in->nmaps++];
}

/* hex(x): x, a map key shown in hex. */
bool is_hex_call(const struct node *n)
{
	return n->k == N_CALL && !strcmp(n->sval, "hex");
}

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
struct tep_format_field **field_table(struct sema *s, struct node *n, size_t per)
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
bool addr_field(const struct sema *s, const struct node *n)
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
int int_width(const struct sema *s, const struct node *n)
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
		/* fetchargs.c's NULL guard (p ? read : 0): the read's width. */
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

int check_field(struct sema *s, struct node *n)
{
	struct tep_format_field **tab;
	enum vtype t = VT_NONE;

	if (!n->sval[0]) {
		/* args alone: fetchargs.c makes it a record at a kfunc only */
		lang_errf(s->err, n, "'args' as a value (the record of every argument) is in ftr "
			  "at kfunc/fentry probes only%s; here it needs a field: args.NAME",
			  s->is_uprobe ? " (a uprobe's arguments by name need DWARF, which ftr "
			  "does not read: arg0, arg1... are there)" : "");
		return -EINVAL;
	}
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
	/* A slot is shared by the clauses (one runs at a time): what another
	 * clause's variable of this slot was (an enum, a pointer, tuples)
	 * is not this one's. */
	s->in->varenum[s->in->nvars[c]] = 0;
	s->in->varptr[s->in->nvars[c]] = 0;
	free(s->in->vartsig[s->in->nvars[c]]);
	s->in->vartsig[s->in->nvars[c]] = NULL;
	return s->in->nvars[c]++;
}

/* A number known to be an unsigned 64-bit one where it is written: a
 * literal above INT64_MAX, a (uint64) or uint64() cast; as a map key it
 * prints unsigned (@a[18446744073709551615]). */
static bool u64_literal(const struct node *n)
{
	return (n->k == N_INT && n->ival < 0) || (n->k == N_CAST && n->ival == 8 && !n->idx) ||
	       (n->k == N_CALL && n->idx == 64 && n->op == T_PLUS);
}

static enum agg_ktype ktype_of(const struct node *n)
{
	return n->type == VT_STR ? AGG_K_STR : n->type == VT_STACK ? AGG_K_STACK :
	       is_hex_call(n) ? AGG_K_HEX : u64_literal(n) || n->type == VT_BUF ||
	       n->type == VT_TUPLE ? AGG_K_UINT : AGG_K_INT;
}

/* A key part's enum id (node.enum_id), or what stands for a buffer or a
 * tuple kept interned (keys_of), whose number the printer turns back into
 * its text (exec.c) */
static uint32_t key_enum_of(const struct node *n)
{
	return n->type == VT_BUF ? KEY_BUF_ID : n->type == VT_TUPLE ? KEY_TUPLE_ID : n->enum_id;
}

/* A buffer or a tuple as a key part: text output only, no record in it,
 * not a whole key (bpftrace's @m[(1, 2)] is @m[1, 2]: spread_tuple_key) */
static int check_interned_key(struct sema *s, struct node *n, const struct node *k)
{
	if (k->type != VT_BUF && k->type != VT_TUPLE)
		return 0;
	if (k->type == VT_TUPLE && n->nargs == 1) {
		lang_errf(s->err, k, "a tuple as a whole map key is spread into the keys, which "
			  "ftr does for a literal or a variable only");
		return -EINVAL;
	}
	if (k->type == VT_TUPLE && strstr(k->tsig, "(n")) {
		lang_errf(s->err, k, "a record in a map key is not in ftr yet (a value and "
			  "print() are)");
		return -EINVAL;
	}
	if (s->in->o && s->in->o->mode != OUT_TEXT) {
		lang_errf(s->err, k, "a %s in a map key in -f json is not in ftr yet",
			  k->type == VT_BUF ? "buffer" : "tuple");
		return -EINVAL;
	}
	if (!s->in->vals && !(s->in->vals = intern_new(INTERN_MAX, INTERN_MAX_BYTES)))
		return -ENOMEM;
	return 0;
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

/* A copy of $v or $v.N.M... (no side effects to run twice); NULL when n is
 * not one, or out of memory. */
static struct node *copy_var_chain(const struct node *n)
{
	struct node *c;

	if (n->k != N_VAR && (n->k != N_MEMBER || n->op != T_DOT))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->k = n->k;
	c->op = n->op;
	c->line = n->line;
	c->col = n->col;
	c->sval = strdup(n->sval);
	if (!c->sval || (n->k == N_MEMBER && !(c->a = copy_var_chain(n->a)))) {
		free(c->sval);
		free(c);
		return NULL;
	}
	return c;
}

/* @m[(1, 2)] and @m[$t] of a tuple of numbers and strings are @m[1, 2], as
 * bpftrace keys a map by a tuple: the key's elements become the keys (a
 * literal's own, or $t.0, $t.1...).  0, or -ENOMEM; other keys stay. */
/* A record's signature: its first element names the fields ('n'). */
static bool is_record_sig(const char *sig)
{
	const char *e;
	size_t len;

	return tuple_sig_elem(sig, 0, &e, &len) && e[0] == 'n';
}

static int spread_tuple_key(struct sema *s, struct node *n)
{
	struct node *t = n->args[0], **el;
	int cnt;

	if (t->k == N_TUPLE) {
		if (t->nargs < 1 || t->nargs > AGG_MAX_KEYS)
			return 0;
		free(n->args);
		n->args = t->args;
		n->nargs = t->nargs;
		t->args = NULL;
		t->nargs = 0;
		lang_node_free(t);
		return 0;
	}
	cnt = t->tsig ? tuple_sig_count(t->tsig) : -1;
	if (cnt < 1 || cnt > AGG_MAX_KEYS || !copy_var_chain(t))
		return 0;
	el = calloc((size_t)cnt, sizeof(*el));
	for (int i = 0; el && i < cnt; i++) {
		char num[16];

		snprintf(num, sizeof(num), "%d", i);
		el[i] = calloc(1, sizeof(*el[i]));
		if (!el[i] || !(el[i]->sval = strdup(num)) || !(el[i]->a = copy_var_chain(t))) {
			while (i >= 0)
				lang_node_free(el[i--]);
			free(el);
			return -ENOMEM;
		}
		el[i]->k = N_MEMBER;
		el[i]->op = T_DOT;
		el[i]->line = t->line;
		el[i]->col = t->col;
	}
	if (!el)
		return -ENOMEM;
	lang_node_free(t);
	free(n->args);
	n->args = el;
	n->nargs = cnt;
	return 0;
}

int check_map_keys(struct sema *s, struct node *n)
{
	struct mapdef *m = map_get(s->in, n->sval);
	bool checked = false;

	if (!m) {
		lang_errf(s->err, n, "too many maps (ftr keeps %d)", (int)ARRAY_SIZE(s->in->maps));
		return -EINVAL;
	}
	n->slot = (int)(m - s->in->maps);
	m->refs++;
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i]->k == N_TUPLE && !n->args[i]->ival && n->args[i]->sval) {
			/* spread as a tuple's elements, its names would be lost: how
			 * bpftrace prints such a key is not known here */
			lang_errf(s->err, n->args[i], "a record as a map key is not in ftr yet "
				  "(a value and print() are)");
			return -EINVAL;
		}
	for (int i = 0; i < n->nargs; i++)
		if (n->args[i]->k == N_TUPLE && n->args[i]->ival) {
			/* bpftrace keys by the whole value (@x[[1,2]], @s[{ .m = 1 }]),
			 * which ftr's maps do not keep */
			lang_errf(s->err, n->args[i], "a C %s as a map key is not in ftr yet (a "
				  "value, a tuple's element and print() are)",
				  n->args[i]->ival == TUPLE_ARRAY ? "array" : "struct");
			return -EINVAL;
		}
	if (n->nargs == 1 && n->args[0]->k == N_TUPLE) {
		if (spread_tuple_key(s, n))
			return -ENOMEM;
	} else if (n->nargs == 1 && (n->args[0]->k == N_VAR || (n->args[0]->k == N_MEMBER &&
							       n->args[0]->op == T_DOT))) {
		int err = check(s, n->args[0]);

		if (err)
			return err;
		checked = true;
		if (n->args[0]->type == VT_TUPLE && n->args[0]->tsig &&
		    is_record_sig(n->args[0]->tsig)) {
			lang_errf(s->err, n->args[0], "a record as a map key is not in ftr yet "
				  "(a value and print() are)");
			return -EINVAL;
		}
		if (n->args[0]->type == VT_TUPLE) {
			if (spread_tuple_key(s, n))
				return -ENOMEM;
			checked = n->args[0]->type == VT_TUPLE;
		}
	}
	for (int i = 0; i < n->nargs; i++) {
		int err;

		s->buf_ok = BUF_VALUE;
		err = i == 0 && checked ? 0 : check(s, n->args[i]);
		s->buf_ok = 0;
		if (!err)
			err = check_interned_key(s, n, n->args[i]);
		if (err)
			return err;
		if (n->args[i]->type == VT_NONE) {
			lang_errf(s->err, n->args[i], "a map key must be a number, a string, a "
				  "stack, a buffer or a tuple");
			return -EINVAL;
		}
	}
	if (!m->keys_known) {
		if (n->nargs > AGG_MAX_KEYS) {
			lang_errf(s->err, n, "at most %d keys", AGG_MAX_KEYS);
			return -EINVAL;
		}
		m->nkeys = n->nargs;
		m->stack_mode = s->in->stack_dflt;	/* its stored stacks' too */
		for (int i = 0; i < n->nargs; i++) {
			m->kt[i] = ktype_of(n->args[i]);
			m->key_enum[i] = key_enum_of(n->args[i]);
			if (n->args[i]->type == VT_STACK)
				m->stack_mode = stack_mode_of(s->in, n->args[i]);
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

		uint32_t ke = key_enum_of(n->args[i]);
		const char *sig = m->first->args[i]->tsig;

		if ((ke == KEY_BUF_ID || ke == KEY_TUPLE_ID || m->key_enum[i] == KEY_BUF_ID ||
		     m->key_enum[i] == KEY_TUPLE_ID) && (ke != m->key_enum[i] ||
		     (ke == KEY_TUPLE_ID && strcmp(sig, n->args[i]->tsig)))) {
			lang_errf(s->err, n->args[i], "key %d of %s is of another type than at %d:%d",
				  i + 1, m->name, m->first->line, m->first->col);
			return -EINVAL;
		}
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
	if (kind == AGG_HIST && rhs->nargs == 2)
		lstep = rhs->args[1]->ival;	/* k: check_hist */
	if (kind == AGG_LHIST) {
		if (rhs->nargs != 4 || !is_const(rhs->args[1], &lmin) ||
		    !is_const(rhs->args[2], &lmax) || !is_const(rhs->args[3], &lstep) ||
		    lstep <= 0 || lmax <= lmin) {
			lang_errf(s->err, rhs, "lhist(value, min, max, step) needs numbers with "
				  "min < max and step > 0");
			return -EINVAL;
		}
	}
	if (kind == AGG_TSERIES) {
		/* lmin, lmax, lstep: its interval (ns), intervals kept, agg_ts_fn */
		static const char *const fns[] = { "", "avg", "max", "min", "sum" };
		const char *fn = rhs->nargs == 4 ? rhs->args[3]->sval : "";

		while (lstep < 5 && strcmp(fn, fns[lstep]))
			lstep++;
		if (!is_const(rhs->args[1], &lmin) || !is_const(rhs->args[2], &lmax) ||
		    lmin <= 0 || lmax < 1 || lmax > AGG_TS_NUM_MAX || lstep == 5) {
			lang_errf(s->err, rhs, "tseries(value, interval, n[, agg]) needs a constant "
				  "interval above 0 (as 100ms), n from 1 to %d, and agg \"avg\", "
				  "\"max\", \"min\" or \"sum\"", AGG_TS_NUM_MAX);
			return -EINVAL;
		}
	}
	if (m->has_kind && (m->kind != (enum agg_kind)kind ||
			    ((kind == AGG_LHIST || kind == AGG_TSERIES || kind == AGG_HIST) &&
			     (m->lmin != lmin || m->lmax != lmax ||
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

/*
 * *ADDR at an event, where ADDR is kaddr("S") [+ or - an offset] and S is
 * read-only data (kallsyms type r/R: .rodata, the same at every moment
 * after boot, sys_call_table): read from /proc/kcore when the event is
 * handled, exact.  n->ival: where S ends (its next symbol), so that a read
 * past it, which could be writable data, is refused then (eval.c).  1 if
 * it is one, 0 if not, -EINVAL said.
 */
static int rodata_deref(struct sema *s, struct node *n)
{
	struct node *a = n->a, *k = NULL;
	uint64_t addr, end;
	bool ro;
	int err;

	if (a->k == N_CALL && a->sval && !strcmp(a->sval, "kaddr"))
		k = a;
	else if (a->k == N_BINOP && (a->op == T_PLUS || a->op == T_MINUS) && a->a->k == N_CALL &&
		 a->a->sval && !strcmp(a->a->sval, "kaddr"))
		k = a->a;
	else if (a->k == N_BINOP && a->op == T_PLUS && a->b->k == N_CALL && a->b->sval &&
		 !strcmp(a->b->sval, "kaddr"))
		k = a->b;
	if (!k || k->nargs != 1 || k->args[0]->k != N_STR)
		return 0;
	err = kallsyms_data(k->args[0]->sval, &addr, &ro, &end);
	if (err) {
		lang_errf(s->err, k, "kaddr(\"%s\"): %s", k->args[0]->sval, err == -ENOENT ?
			  "no such symbol in /proc/kallsyms (a kernel built without "
			  "CONFIG_KALLSYMS_ALL lists no variables)" : err == -EPERM ?
			  "/proc/kallsyms hides kernel addresses (kptr_restrict)" : strerror(-err));
		return -EINVAL;
	}
	if (!ro) {
		lang_errf(s->err, n, "*: kaddr(\"%s\") is writable kernel data, which changes "
			  "while the program runs: its value at the event needs a read at the "
			  "event (a kprobe's typed read, *(TYPE *)kaddr(\"%s\"), at a constant "
			  "address); ftr reads only read-only data (.rodata) when the event is "
			  "handled", k->args[0]->sval, k->args[0]->sval);
		return -EINVAL;
	}
	n->ival = (int64_t)end;
	return 1;
}

/* *ADDR: kernel memory now, from /proc/kcore: in BEGIN, END and interval
 * clauses, where "now" is what the program means, and at events where it
 * is read-only data (rodata_deref). */
static int check_deref(struct sema *s, struct node *n)
{
	char why[320];
	int ro = s->has_record || s->is_profile ? rodata_deref(s, n) : 0;

	if (ro < 0)
		return -EINVAL;
	if (ro) {
		if (check(s, n->a))
			return -EINVAL;
		if (!s->in->kc && kcore_open(NULL, &s->in->kc, why, sizeof(why)) < 0) {
			lang_errf(s->err, n, "*: reading the kernel's read-only data needs "
				  "/proc/kcore: %s", why);
			return -EINVAL;
		}
		n->type = VT_INT;
		return 0;
	}
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

/* A signature's one element as a node's type (tuple.h). */
static int type_of_sig(struct node *n, const char *e, size_t len)
{
	n->type = e[0] == 's' ? VT_STR : e[0] == '(' ? VT_TUPLE : VT_INT;
	n->enum_id = e[0] == 'e' ? (uint32_t)strtoul(e + 1, NULL, 10) : 0;
	n->ptr_size = e[0] == 'p' ? (uint32_t)strtoul(e + 1, NULL, 10) : 0;
	free(n->tsig);
	n->tsig = e[0] == '(' ? strndup(e, len) : NULL;
	return e[0] == '(' && !n->tsig ? -ENOMEM : 0;
}

/* (a, b, ...): numbers, strings and tuples; its signature and the buffer
 * it is built in (in->tbufs[n->slot]). */
static int check_tuple(struct sema *s, struct node *n)
{
	char *sig = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sig, &len);
	struct tbuf *v;

	if (!f)
		return -ENOMEM;
	fputc('(', f);
	if (n->sval)	/* a record: its fields' names first */
		fprintf(f, "n%s;", n->sval);
	for (int i = 0; i < n->nargs; i++) {
		struct node *a = n->args[i];
		int err = check(s, a);

		if (!err && a->type != VT_INT && a->type != VT_STR && a->type != VT_TUPLE &&
		    a->type != VT_STACK) {
			lang_errf(s->err, a, "a tuple holds numbers, strings, stacks and tuples, "
				  "which ftr keeps (not a %s)", a->type == VT_BUF ? "buffer" :
				  "value of no type");
			err = -EINVAL;
		}
		if (!err && a->type == VT_STACK && s->in->o && s->in->o->mode == OUT_BTJSON) {
			lang_errf(s->err, a, "a stack in a tuple in -f json is not in ftr yet");
			err = -EINVAL;
		}
		if (err) {
			fclose(f);
			free(sig);
			return err;
		}
		if (a->type == VT_TUPLE)
			fputs(a->tsig, f);
		else if (a->type == VT_STACK)
			fprintf(f, "k%d", stack_mode_of(s->in, a));
		else if (a->enum_id)
			fprintf(f, "e%u;", a->enum_id);
		else if (a->ptr_size)
			fprintf(f, "p%u;", a->ptr_size);
		else
			fputc(a->type == VT_STR ? 's' : 'i', f);
	}
	fputc(')', f);
	fclose(f);
	v = realloc(s->in->tbufs, (s->in->ntbufs + 1) * sizeof(*v));
	if (!sig || !v) {
		free(sig);
		return -ENOMEM;
	}
	s->in->tbufs = v;
	memset(&v[s->in->ntbufs], 0, sizeof(*v));
	n->slot = s->in->ntbufs++;
	free(n->tsig);
	n->tsig = sig;
	n->type = VT_TUPLE;
	return 0;
}

/* $t.N: element N of a tuple. */
static int check_tuple_elem(struct sema *s, struct node *n)
{
	const char *e;
	size_t len;
	int err = check(s, n->a);

	if (err)
		return err;
	if (n->a->type == VT_STR && strspn(n->sval, "0123456789") == strlen(n->sval) &&
	    strlen(n->sval) < 6) {
		/* $s[N] (fetchargs.c made it .N): a string's byte N, a char (int8) */
		n->idx = atoi(n->sval);
		n->type = VT_INT;
		return 0;
	}
	if (n->a->type != VT_TUPLE) {
		lang_errf(s->err, n, ".%s reads a tuple's element, and this is not a tuple", n->sval);
		return -EINVAL;
	}
	if (!n->a->tsig) {
		/* a map's tuples are typed by its first store, in program order */
		lang_errf(s->err, n, ".%s of a map read before the program stores a tuple in it: ftr "
			  "types a map's tuples at their first store", n->sval);
		return -EINVAL;
	}
	if (tuple_sig_field(n->a->tsig, "") == -1 && tuple_sig_elem(n->a->tsig, 0, &e, &len) &&
	    e[0] == 'n') {
		/* a record: by name only */
		n->idx = tuple_sig_field(n->a->tsig, n->sval);
		if (n->idx < 0) {
			lang_errf(s->err, n, "the record has no field %s", n->sval);
			return -EINVAL;
		}
	} else if (strspn(n->sval, "0123456789") != strlen(n->sval)) {
		lang_errf(s->err, n, ".%s: a tuple's elements are .0, .1...", n->sval);
		return -EINVAL;
	} else {
		n->idx = atoi(n->sval);
	}
	if (!tuple_sig_elem(n->a->tsig, n->idx, &e, &len)) {
		lang_errf(s->err, n, "the tuple has %d element%s: no .%s", tuple_sig_count(n->a->tsig),
			  tuple_sig_count(n->a->tsig) == 1 ? "" : "s", n->sval);
		return -EINVAL;
	}
	if (e[0] == 'k') {
		lang_errf(s->err, n, ".%s is a stack: a tuple's stack read out of it is not in ftr "
			  "yet (print the tuple, or take the stack where it is made)", n->sval);
		return -EINVAL;
	}
	return type_of_sig(n, e, len);
}

/* The tuple signature src carries to dst (a variable, a map read). */
static int keep_tsig(struct node *dst, const char *src)
{
	free(dst->tsig);
	dst->tsig = src ? strdup(src) : NULL;
	return src && !dst->tsig ? -ENOMEM : 0;
}

/* A condition: a tuple is neither true nor false (bpftrace refuses it). */
int check_cond(struct sema *s, struct node *n)
{
	int err = check(s, n);

	if (!err && (n->type == VT_TUPLE || n->type == VT_BUF)) {
		lang_errf(s->err, n, "a %s is not a condition", n->type == VT_BUF ? "buffer" :
			  "tuple");
		return -EINVAL;
	}
	return err;
}

int stack_mode_of(const struct interp *in, const struct node *n)
{
	if (n->k == N_BUILTIN && n->type == VT_STACK)
		return (int)n->op;
	if (n->k == N_VAR && n->slot >= 0 && n->type == VT_STACK)
		return in->varmode[n->slot];
	return in->stack_dflt;
}

int check(struct sema *s, struct node *n)
{
	unsigned char buf_ok = s->buf_ok;	/* a buffer may be this value */
	int err;

	if (n->k != N_CALL)
		s->buf_ok = false;	/* buf() as the value itself only */
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
		return check_var(s, n);
	case N_VAR:
		n->slot = var_slot(s, n->sval, false);
		if (n->slot < 0) {
			lang_errf(s->err, n, "%s is used before it is assigned", n->sval);
			return -EINVAL;
		}
		n->type = s->in->vars[n->slot].t;
		n->enum_id = s->in->varenum[n->slot];
		n->ptr_size = s->in->varptr[n->slot];
		return keep_tsig(n, n->type == VT_TUPLE ? s->in->vartsig[n->slot] : NULL);
	case N_MAP: {
		struct mapdef *m;

		err = check_map_keys(s, n);
		if (err)
			return err;
		m = &s->in->maps[n->slot];
		n->type = m->vt ? m->vt : VT_INT;
		n->enum_id = m->val_enum;
		n->ptr_size = m->val_ptr;
		return keep_tsig(n, m->vt == VT_TUPLE ? m->vtsig : NULL);
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
		if (n->a->type != VT_INT && (n->op != T_NOT || n->a->type == VT_TUPLE ||
					     n->a->type == VT_BUF)) {
			lang_errf(s->err, n, "%s needs a number", lang_tok_str(n->op));
			return -EINVAL;
		}
		if (n->op == T_STAR)
			return check_deref(s, n);
		n->type = VT_INT;
		if (n->op == T_NOT)
			n->enum_id = LANG_BOOL_ID;	/* !x is a bool, as a comparison */
		return 0;
	case N_BINOP:
		/* buffers are compared with == and != */
		s->buf_ok = n->op == T_EQ || n->op == T_NE ? BUF_VALUE : 0;
		err = check(s, n->a);
		s->buf_ok = n->op == T_EQ || n->op == T_NE ? BUF_VALUE : 0;
		if (!err)
			err = check(s, n->b);
		if (err)
			return err;
		if (n->a->type == VT_BUF && n->op != T_EQ && n->op != T_NE) {
			lang_errf(s->err, n, "%s of buffers: they are compared with == and !=",
				  lang_tok_str(n->op));
			return -EINVAL;
		}
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
					  n->a->type == VT_STR ? "string" : n->a->type == VT_TUPLE ?
					  "tuple" : "number", n->b->type == VT_STR ? "string" :
					  n->b->type == VT_TUPLE ? "tuple" : "number");
				return -EINVAL;
			}
			if (n->a->type == VT_TUPLE && ((n->op != T_EQ && n->op != T_NE) ||
						       strcmp(n->a->tsig, n->b->tsig))) {
				lang_errf(s->err, n, "%s of tuples: == and != of tuples of one type",
					  lang_tok_str(n->op));
				return -EINVAL;
			}
		} else if ((n->op != T_ANDAND && n->op != T_OROR &&
			    (n->a->type != VT_INT || n->b->type != VT_INT)) ||
			   n->a->type == VT_TUPLE || n->b->type == VT_TUPLE) {
			lang_errf(s->err, n, "%s needs numbers", lang_tok_str(n->op));
			return -EINVAL;
		}
		n->type = VT_INT;
		if ((n->a->ptr_size || n->b->ptr_size) && (n->op == T_PLUS || n->op == T_MINUS)) {
			/* C's pointer arithmetic: p + n, n + p, p - n move by n pointees */
			if ((n->a->ptr_size && n->b->ptr_size) || (n->op == T_MINUS && n->b->ptr_size)) {
				lang_errf(s->err, n, "%s of two pointers, or of a number less a pointer, "
					  "is not in ftr", lang_tok_str(n->op));
				return -EINVAL;
			}
			n->ptr_size = n->a->ptr_size ? n->a->ptr_size : n->b->ptr_size;
			n->idx = n->a->ptr_size ? 1 : 2;	/* which side is scaled: b, a */
		}
		/* comparisons and logic make bpftrace's bools (printed true, false) */
		if (n->op == T_EQ || n->op == T_NE || n->op == T_LT || n->op == T_LE ||
		    n->op == T_GT || n->op == T_GE || n->op == T_ANDAND || n->op == T_OROR ||
		    n->op == T_TILDE || n->op == T_NTILDE)
			n->enum_id = LANG_BOOL_ID;
		return 0;
	case N_CAST:
		/* An integer cast (fetchargs.c rewrote the others). */
		err = check(s, n->a);
		if (err)
			return err;
		if (n->a->type != VT_INT) {
			lang_errf(s->err, n, "(%s) needs a number", n->sval);
			return -EINVAL;
		}
		n->type = VT_INT;
		return 0;
	case N_TUPLE:
		return check_tuple(s, n);
	case N_BLOCK:
		/* { stmts; value }: a macro's call, a block expression */
		err = n->a ? check_stmts(s, n->a) : 0;
		if (!err && n->b)
			err = n->b->k == N_CALL ? check_call(s, n->b, false) : check(s, n->b);
		if (err)
			return err;
		n->type = n->b ? n->b->type : VT_NONE;
		n->enum_id = n->b ? n->b->enum_id : 0;
		return keep_tsig(n, n->b ? n->b->tsig : NULL);
	case N_MEMBER:
		if (n->op == T_DOT)
			return check_tuple_elem(s, n);
		/* fall through */
	case N_INDEX:
		if (n->k == N_INDEX) {
			/* $s[$i]: a string's byte i, a char (int8); fetchargs.c kept the
			 * rest, and made a constant index a .N */
			err = check(s, n->a);
			if (!err)
				err = check(s, n->b);
			if (err)
				return err;
			if (n->a->type != VT_STR || n->b->type != VT_INT) {
				lang_errf(s->err, n, "[] needs a typed pointer or array, or a string "
					  "and a number (maps are @name[key])");
				return -EINVAL;
			}
			n->type = VT_INT;
			return 0;
		}
		/* fall through */
	case N_SIZEOF:
		lang_errf(s->err, n, "%s here needs a typed value (internal)",
			  n->k == N_INDEX ? "[]" : n->k == N_SIZEOF ? "sizeof" : "a member");
		return -EINVAL;
	case N_TERNARY:
		err = check_cond(s, n->a);
		s->buf_ok = buf_ok;
		if (!err)
			err = check(s, n->b);
		s->buf_ok = buf_ok;
		if (!err)
			err = check(s, n->c);
		if (err)
			return err;
		if (n->b->type != n->c->type) {
			lang_errf(s->err, n, "the two sides of ?: differ in type");
			return -EINVAL;
		}
		n->type = n->b->type;
		n->enum_id = n->b->enum_id == n->c->enum_id ? n->b->enum_id : 0;
		n->ptr_size = n->b->ptr_size == n->c->ptr_size ? n->b->ptr_size : 0;
		if (n->type == VT_TUPLE && strcmp(n->b->tsig, n->c->tsig)) {
			lang_errf(s->err, n, "the two sides of ?: are tuples of other types");
			return -EINVAL;
		}
		if (n->type == VT_TUPLE)
			return keep_tsig(n, n->b->tsig);
		return 0;
	default:
		lang_errf(s->err, n, "internal: unexpected node");
		return -EINVAL;
	}
}

/*
 * cond ? a : b as a statement is if (cond) a else b: its sides may be
 * printf() or exit(), which have no value (bpftrace's "none" type).
 */
static int ternary_stmt(struct sema *s, struct node *st)
{
	struct node *t = st->a, *sides[2] = { t->b, t->c };
	struct node *b[2];
	int err;

	for (int i = 0; i < 2; i++) {
		b[i] = calloc(1, sizeof(*b[i]));
		if (!b[i]) {
			free(b[0]);
			return -ENOMEM;
		}
		b[i]->k = S_EXPR;
		b[i]->line = sides[i]->line;
		b[i]->col = sides[i]->col;
		b[i]->a = sides[i];
	}
	st->k = S_IF;
	st->a = t->a;
	st->b = b[0];
	st->c = b[1];
	t->a = t->b = t->c = NULL;
	lang_node_free(t);
	err = check(s, st->a);
	if (!err)
		err = check_stmts(s, st->b);
	return err ? err : check_stmts(s, st->c);
}

/* What follows exit() in its block never runs: bpftrace warns, in these
 * words (the suite checks them). */
static void unreachable_warn(const struct node *st)
{
	if (st->k == S_EXPR && st->a->k == N_CALL && !strcmp(st->a->sval, "exit") && st->next &&
	    !ftr_no_warnings)
		fprintf(stderr, "%s: %d:%d: WARNING: Unreachable statement\n", ftr_progname,
			st->next->line, st->next->col);
}

/* A map key part's or value's element in a tuple signature (tuple.h). */
static void sig_part(FILE *f, enum agg_ktype kt, uint32_t enum_id, int stack_mode)
{
	if (kt == AGG_K_STACK)
		fprintf(f, "k%d", stack_mode);
	else if (kt == AGG_K_STR)
		fputc('s', f);
	else if (enum_id)
		fprintf(f, "e%u;", enum_id);
	else
		fputc('i', f);
}

/* for ($kv : @m): $kv is (key, value), or ((k1, k2, ...), value), as bpftrace. */
static int check_map_loop(struct sema *s, struct node *st)
{
	struct node *mn = st->args[0];
	struct mapdef *m = map_find(s->in, mn->sval);
	char *sig = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (!m || !m->keys_known || !m->has_kind) {
		lang_errf(s->err, mn, "for over %s before the program stores into it: ftr types a "
			  "map at its first store", mn->sval);
		return -EINVAL;
	}
	if (!m->nkeys) {
		lang_errf(s->err, mn, "%s has no keys to iterate over", m->name);
		return -EINVAL;
	}
	for (int i = 0; i < m->nkeys; i++)
		if (m->key_enum[i] == KEY_BUF_ID || m->key_enum[i] == KEY_TUPLE_ID ||
		    m->vt == VT_BUF) {
			lang_errf(s->err, mn, "for over %s: its %s in a tuple are not in ftr yet",
				  m->name, m->vt == VT_BUF ? "buffers" : "keys of tuples or buffers");
			return -EINVAL;
		}
	for (int i = 0; i < m->nkeys; i++)
		if (m->kt[i] == AGG_K_STACK && s->in->o && s->in->o->mode == OUT_BTJSON) {
			lang_errf(s->err, mn, "for over %s: a stack key in a tuple in -f json is "
				  "not in ftr yet", m->name);
			return -EINVAL;
		}
	if (m->kind == AGG_HIST || m->kind == AGG_LHIST || m->kind == AGG_STATS ||
	    m->vt == VT_STACK || (m->vt == VT_TUPLE && !m->vtsig)) {
		lang_errf(s->err, mn, "for over %s: its values (%s) in a tuple are not in ftr yet",
			  m->name, m->vt == VT_STACK ? "stacks" : m->vt == VT_TUPLE ? "tuples stored "
			  "after the loop" : "histograms, stats");
		return -EINVAL;
	}
	f = open_memstream(&sig, &len);
	if (!f)
		return -ENOMEM;
	fputc('(', f);
	if (m->nkeys > 1)
		fputc('(', f);
	for (int i = 0; i < m->nkeys; i++)
		sig_part(f, m->kt[i], m->key_enum[i], m->stack_mode);
	if (m->nkeys > 1)
		fputc(')', f);
	if (m->vt == VT_TUPLE)
		fputs(m->vtsig, f);
	else if (m->val_ptr)
		fprintf(f, "p%u;", m->val_ptr);
	else
		sig_part(f, m->vt == VT_STR ? AGG_K_STR : AGG_K_INT, m->val_enum, 0);
	fputc(')', f);
	fclose(f);
	if (!sig)
		return -ENOMEM;
	mn->slot = (int)(m - s->in->maps);
	m->refs++;
	if (s->has_record)
		m->read_at_event = true;	/* the entries before this event */
	st->a->slot = var_slot(s, st->a->sval, true);
	if (st->a->slot < 0) {
		free(sig);
		lang_errf(s->err, st->a, "too many variables");
		return -EINVAL;
	}
	s->in->vars[st->a->slot].t = st->a->type = VT_TUPLE;
	s->in->varenum[st->a->slot] = 0;
	free(s->in->vartsig[st->a->slot]);
	s->in->vartsig[st->a->slot] = sig;
	err = keep_tsig(st->a, sig);
	s->loops++;
	if (!err)
		err = check_stmts(s, st->b);
	s->loops--;
	return err;
}

/* for ($i : A..B), while (c), unroll (N): numbers; $i is one in the body. */
static int check_loop(struct sema *s, struct node *st)
{
	int err = 0;

	if (st->k == S_FOR && st->nargs == 1)
		return check_map_loop(s, st);
	for (int i = 0; i < st->nargs && !err; i++)
		if (!(err = check(s, st->args[i])) && st->args[i]->type != VT_INT) {
			lang_errf(s->err, st->args[i], "a range's bounds are numbers");
			return -EINVAL;
		}
	if (!err && st->k == S_WHILE)
		err = check_cond(s, st->a);
	if (!err && st->k == S_FOR) {
		st->a->slot = var_slot(s, st->a->sval, true);
		if (st->a->slot < 0) {
			lang_errf(s->err, st->a, "too many variables");
			return -EINVAL;
		}
		s->in->vars[st->a->slot].t = st->a->type = VT_INT;
		s->in->varwidth[st->a->slot] = 8;
	}
	s->loops++;
	if (!err)
		err = check_stmts(s, st->b);
	s->loops--;
	return err;
}

/*
 * $a = (bar = e1, foo = e2) where $a held (foo = ..., bar = ...): bpftrace
 * keeps the first record's order of fields, and runs the expressions in the
 * order written.  The record literal n takes the order of sig's names (its
 * args moved) and keeps the order it runs them in n->bind (eval.c): 0, or
 * 0 with n as it was when its names are not those of sig.
 */
static int record_order(struct node *n, const char *sig)
{
	const char *names = sig + 2, *p = names;
	struct node **args;
	int *order, i = 0;

	if (sig[1] != 'n' || n->k != N_TUPLE || !n->sval || n->ival || n->bind ||
	    n->nargs > RECORD_ORDER_MAX)
		return 0;
	args = calloc((size_t)n->nargs, sizeof(*args));
	order = calloc((size_t)n->nargs, sizeof(*order));
	if (!args || !order) {
		free(args);
		free(order);
		return -ENOMEM;
	}
	for (; i < n->nargs && *p != ';'; i++) {
		size_t len = strcspn(p, ",;");
		const char *q = n->sval;
		int j = 0;

		/* where the target's i-th name is in n's */
		while (*q && (strncmp(q, p, len) || (q[len] != ',' && q[len]))) {
			q += strcspn(q, ",");
			q += *q == ',';
			j++;
		}
		if (!*q || args[i])
			break;
		args[i] = n->args[j];
		order[j] = i;
		p += len + (p[len] == ',');
	}
	if (i != n->nargs || *p != ';') {
		free(args);
		free(order);
		return 0;
	}
	free(n->args);
	n->args = args;
	free(n->sval);
	n->sval = strndup(names, (size_t)(p - names));
	n->bind = order;
	return n->sval ? 0 : -ENOMEM;
}

/* x += n, x -= n, x++ of a pointer x (of pointee size ptr): n is scaled. */
static int ptr_step(struct sema *s, struct node *st, uint32_t ptr)
{
	st->ptr_size = 0;
	if (!ptr || st->op == T_ASSIGN)
		return 0;
	if ((st->op != T_PLUSEQ && st->op != T_MINUSEQ) || st->b->ptr_size) {
		lang_errf(s->err, st, "%s of a pointer: a pointer moves by += and -= of a number",
			  lang_tok_str(st->op));
		return -EINVAL;
	}
	st->ptr_size = ptr;
	return 0;
}

int check_stmts(struct sema *s, struct node *st)
{
	int err;

	for (; st; st = st->next) {
		unreachable_warn(st);
		switch (st->k) {
		case S_EXPR:
			if (st->a->k == N_TERNARY)
				err = ternary_stmt(s, st);
			else if (st->a->k == N_CALL)
				err = check_call(s, st->a, false);
			else
				err = check(s, st->a);
			break;
		case S_IF:
			err = check_cond(s, st->a);
			if (!err)
				err = check_stmts(s, st->b);
			if (!err && st->c)
				err = check_stmts(s, st->c);
			break;
		case S_FOR: case S_WHILE: case S_UNROLL:
			err = check_loop(s, st);
			break;
		case S_BREAK: case S_CONTINUE:
			if (!s->loops) {
				lang_errf(s->err, st, "%s outside a loop",
					  st->k == S_BREAK ? "break" : "continue");
				return -EINVAL;
			}
			err = 0;
			break;
		case S_RETURN:
			err = st->a ? check(s, st->a) : 0;
			break;
		case S_ASSIGN:
			if (st->a->k == N_VAR && st->c) {
				/* let $v: typeof(e): e is not run, its type is $v's */
				err = check(s, st->c);
				if (!err && st->c->type != VT_INT) {
					lang_errf(s->err, st->c, "let %s: typeof() of a value other "
						  "than a number is not in ftr yet", st->a->sval);
					err = -EINVAL;
				}
				if (err)
					break;
			}
			if (st->a->k == N_VAR) {
				int vs = var_slot(s, st->a->sval, false);

				err = vs >= 0 && s->in->vartsig[vs] && st->op == T_ASSIGN ?
				      record_order(st->b, s->in->vartsig[vs]) : 0;
				if (err)
					break;
				s->buf_ok = BUF_VALUE;
				err = check(s, st->b);
				if (err)
					break;
				if (st->op != T_ASSIGN && var_slot(s, st->a->sval, false) < 0) {
					/* $x += 1 of no $x: bpftrace's error too */
					lang_errf(s->err, st->a, "%s is used before it is assigned",
						  st->a->sval);
					return -EINVAL;
				}
				st->a->slot = var_slot(s, st->a->sval, true);
				if (st->a->slot < 0) {
					lang_errf(s->err, st->a, "too many variables");
					return -EINVAL;
				}
				s->in->vars[st->a->slot].t = st->b->type;
				/* a stack keeps its print mode */
				if (st->b->type == VT_STACK)
					s->in->varmode[st->a->slot] =
						(unsigned char)stack_mode_of(s->in, st->b);
				s->in->varenum[st->a->slot] = st->op == T_ASSIGN ? st->b->enum_id : 0;
				st->a->enum_id = s->in->varenum[st->a->slot];
				/* a pointer: '=' makes one, += and -= move it by its pointee */
				if (st->op == T_ASSIGN)
					s->in->varptr[st->a->slot] = st->b->ptr_size;
				err = ptr_step(s, st, s->in->varptr[st->a->slot]);
				if (err)
					return err;
				st->a->ptr_size = s->in->varptr[st->a->slot];
				if (st->b->type == VT_TUPLE && s->in->vartsig[st->a->slot] &&
				    strcmp(s->in->vartsig[st->a->slot], st->b->tsig) &&
				    (s->in->vartsig[st->a->slot][1] == 'n' || st->b->tsig[1] == 'n')) {
					/* another order of the same fields is the first's
					 * (record_order); these are others */
					lang_errf(s->err, st->b, "%s held a record of other fields or "
						  "of other types", st->a->sval);
					return -EINVAL;
				}
				if (st->b->type == VT_TUPLE) {
					free(s->in->vartsig[st->a->slot]);
					s->in->vartsig[st->a->slot] = strdup(st->b->tsig);
					if (!s->in->vartsig[st->a->slot] || keep_tsig(st->a, st->b->tsig))
						return -ENOMEM;
				}
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

				s->buf_ok = BUF_VALUE;
				err = check(s, st->b);
				if (!err && st->b->type == VT_TUPLE && m->vt == VT_INT && !m->val_typed &&
				    st->op == T_ASSIGN) {
					/* @m = $t: the variable's type is known only now */
					m->vt = VT_TUPLE;
					if (!s->in->vals && !(s->in->vals = intern_new(INTERN_MAX,
										       INTERN_MAX_BYTES)))
						return -ENOMEM;
				}
				if (!err && st->b->type == VT_BUF && s->in->o &&
				    s->in->o->mode != OUT_TEXT) {
					lang_errf(s->err, st->b, "a map of buffers in -f json is not "
						  "in ftr yet");
					return -EINVAL;
				}
				if (!err && !m->val_typed) {
					m->val_typed = true;
					m->val_enum = st->op == T_ASSIGN ? st->b->enum_id : 0;
					m->val_ptr = st->op == T_ASSIGN ? st->b->ptr_size : 0;
					if (st->b->type == VT_TUPLE && !(m->vtsig = strdup(st->b->tsig)))
						return -ENOMEM;
				}
				if (!err)
					err = ptr_step(s, st, m->val_ptr);
				if (!err && st->b->type == VT_STACK &&
				    stack_mode_of(s->in, st->b) != m->stack_mode) {
					lang_errf(s->err, st->b, "a stack kept as a map's value in "
						  "another mode than the map's: ftr prints a map's "
						  "stacks in one mode (its stack key's, else the "
						  "program's: config stack_mode); print it where "
						  "it is taken, or key the map by it");
					return -EINVAL;
				}
				if (!err && st->b->type == VT_TUPLE && m->vtsig &&
				    strcmp(m->vtsig, st->b->tsig)) {
					lang_errf(s->err, st->b, "%s holds tuples of other types (first "
						  "stored at %d:%d)", m->name, m->first->line,
						  m->first->col);
					return -EINVAL;
				}
				if (!err && st->b->type != (m->vt ? m->vt : VT_INT)) {
					if (m->vt == VT_INT || !m->vt || st->op != T_ASSIGN)
						lang_errf(s->err, st->b, "%s holds numbers: a %s "
							  "needs a map of its own, stored with '=' "
							  "(wrap a string field in str())", m->name,
							  st->b->type == VT_STR ? "string" :
							  st->b->type == VT_BUF ? "buffer" : "stack");
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

