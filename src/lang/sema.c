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
#include "kernel/kcore.h"
#include "lang/interp-int.h"
/* ---- semantic pass --------------------------------------------------------- */

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

int check_field(struct sema *s, struct node *n)
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

int check_map_keys(struct sema *s, struct node *n)
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

int check(struct sema *s, struct node *n)
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
		return check_var(s, n);
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

int check_stmts(struct sema *s, struct node *st)
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

