// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Aggregation in the kernel: which maps a hist trigger can keep with the
 * answer the interpreter would give (hist_pushable, hist_plan_clause; else
 * a perf counter, pcplan.c; else user space), the triggers written and read
 * back into the maps (hist_read), paused and continued with tracing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "filter/expr.h"
#include "ftr.h"
#include "lang/interp-int.h"
#include "lang/plan.h"
#include "report/sym.h"
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
	if (m->kind == AGG_VALUE || !builtin_of(rhs) || !(builtin_of(rhs)->push & BP_HIST_MAP))
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
		else if (k->k == N_FIELD)
			km->kk[i] = KK_FIELD;
		else if (builtin_of(k) && (builtin_of(k)->push & BP_HIST_KEY_ANY) &&
			 k->args[0]->k == N_FIELD)
			/* f(field): the field, with the modifier f's push says */
			km->kk[i] = builtin_of(k)->push & BP_HIST_KEY_SYM ? KK_SYM :
				    builtin_of(k)->push & BP_HIST_KEY_SYMOFF ? KK_SYMOFF : KK_FIELD;
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
	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];
		struct ktrig *t = &km->t[km->nt];
		struct khist_spec spec = { .size = agg_size(m->m), .pause = true };
		bool one_entry = !km->value_is_key;
		char ktext[4096] = "", keybuf[AGG_MAX_KEYS + 1][80];
		const struct node *val = st->b->nargs ? st->b->args[0] : NULL;

		if (in->eb[k].ncl != 1 || in->eb[k].clauses[0] != ci)
			continue;
		t->ev = v;
		for (int i = 0; i < km->nkeys; i++) {
			const struct node *kn = st->a->args[i];
			bool sym = km->kk[i] == KK_SYM;

			if (kn->k == N_CALL)
				kn = kn->args[0];	/* hex(), ksym(), ksymoff() of a field */
			switch (km->kk[i]) {
			case KK_COMM:
				spec.keys[spec.nkeys++] = "common_pid.execname";
				break;
			case KK_TID:
				spec.keys[spec.nkeys++] = "common_pid";
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

int hist_read(struct interp *in, struct mapdef *m)
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
		char *text = tracefs_event_file_read(inst, t->ev->sys, t->ev->name, "hist", &size);

		if (!text || khist_parse(text, size, &f, &err) < 0) {
			ftr_err("cannot read the hist of '%s:%s': %s", t->ev->sys, t->ev->name,
				text ? err.msg : strerror(errno));
			free(text);
			return -EIO;
		}
		free(text);
		for (int tb = 0; tb < f.ntables; tb++) {
			struct khist_table *tab = &f.tables[tb];

			for (size_t j = 0; j < tab->nentries; j++) {
				struct khist_entry *en = &tab->entries[j];
				struct agg_kpart k[AGG_MAX_KEYS];
				uint64_t stk[AGG_MAX_KEYS][EVENT_KSTACK_MAX];
				char sym[AGG_MAX_KEYS][KSYM_TEXT];
				int64_t v = 0;

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
						k[q].str.p = eb->probe;
						k[q].str.len = strlen(eb->probe);
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

int hist_op_all(struct interp *in, enum khist_op op)
{
	for (int i = 0; i < in->nmaps; i++) {
		struct kmap *km = in->maps[i].k;

		for (int j = 0; km && j < km->nt; j++) {
			char buf[KHIST_CMD_MAX + 16];

			if (khist_cmd(km->t[j].cmd.add, op, buf, sizeof(buf)) < 0 ||
			    tracefs_event_file_append(session_instance(in->e.s), km->t[j].ev->sys,
						      km->t[j].ev->name, "trigger", buf) < 0) {
				ftr_err("cannot %s the hist trigger of '%s:%s': %s",
					op == KHIST_CONT ? "start" : "pause", km->t[j].ev->sys,
					km->t[j].ev->name, strerror(errno));
				return -EIO;
			}
		}
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
	return hist_op_all(arg, KHIST_CONT);
}

int hist_stop(struct engine *e, void *arg)
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
	if (lang_mapdecl_of(in->p, m->name))
		return "it is declared with a size (let @m = hash(N)), which ftr keeps exactly";
	if (m->read_at_event)
		return "print() or clear() of it at an event must see the events before that "
		       "one only";
	if (in->exit_at_event)
		return "exit() at an event stops the maps at that event";
	return NULL;
}

void plan_hists(struct interp *in)
{
	for (int ci = 0; ci < in->p->ncl; ci++) {
		const struct node *st = in->p->cl[ci].body;
		char why[256] = "";
		struct mapdef *m;

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

			bool pc = builtin_of(st->b)->push & BP_PERF_COUNT;

			if (pc && pc_plan(in, ci, why2, sizeof(why2)) == 0)
				continue;
			planf(in, "%s: in user space: %s%s%s\n", m->name, why,
			      pc && why2[0] ? "; not perf counters: " : "", why2);
			continue;
		}
		for (int j = 0; j < m->k->nt; j++) {
			m->k->t[j].ev->trigger_only = true;
			planf(in, "%s: in the kernel, a hist trigger on %s:%s: %s\n", m->name,
			      m->k->t[j].ev->sys, m->k->t[j].ev->name, m->k->t[j].cmd.add);
		}
		if (m->k->kk[0] == KK_COMM && m->k->nkeys)
			planf(in, "%s: the kernel keys by pid (common_pid.execname); ftr adds "
			      "the pids of each comm\n", m->name);
		for (int i = 0; i < m->k->nkeys; i++)
			if (m->k->kk[i] == KK_SYM) {
				planf(in, "%s: the kernel keys .sym by address; ftr adds the "
				      "addresses of each function\n", m->name);
				break;
			}
	}
}

/* Triggers go in before the events are enabled; they are created paused
 * and continued when tracing starts (hist_start). */
int hist_install(struct interp *in)
{
	for (int i = 0; i < in->nmaps; i++) {
		struct kmap *km = in->maps[i].k;

		for (int j = 0; km && j < km->nt; j++)
			if (session_trigger_add(in->e.s, km->t[j].ev->sys, km->t[j].ev->name,
						km->t[j].cmd.add) < 0)
				return -EIO;
	}
	in->e.start_hook = hist_start;
	in->e.stop_hook = hist_stop;
	in->e.hook_arg = in;
	return 0;
}

