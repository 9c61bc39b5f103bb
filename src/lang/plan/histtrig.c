// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Aggregation in the kernel: which maps a hist trigger can keep with the
 * answer the interpreter would give (hist_pushable, hist_plan_clause; else
 * a perf counter, perfcount.c; else user space), the triggers written and read
 * back into the maps (hist_read), created when tracing starts and stopped
 * with it (hist_stop), a clause's sharing one table where they can; a clause over every syscall event folded into one
 * raw_syscalls trigger (sys_fold); what the triggers cost to set up and take
 * down on this kernel (hist_cost_ns), which the plan weighs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "filter/expr.h"
#include "ftr.h"
#include "kernel/expedite.h"
#include "kernel/kallsyms.h"
#include "lang/interp-int.h"
#include "lang/plan/fntrace.h"
#include "lang/plan/filtertext.h"
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
	if (fntrace_clause(in, ci))
		return "the function tracer's records take no trigger";
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
 * and raw_syscalls counts under its numbers, named by the native table:
 * so the fold is made only where the kernel has no 32-bit syscall entry
 * (compat_syscalls_absent), never where a 32-bit task could change it.
 * 1: folded into km->t[0]; 0: not (then one trigger per event).
 */
/*
 * True only when kallsyms shows that this kernel runs no 32-bit (compat)
 * syscalls: none of the compat entry points is listed (x86-64 since 4.17
 * names them __ia32_sys_* and __*_compat_sys_*, before that and elsewhere
 * compat_sys_*; arm64 __arm64_compat_sys_*).  Unreadable kallsyms: not known,
 * so false.  Debian's x86-64 and arm64 kernels have compat syscalls.
 * A kernel without them may still list compat_sys_* names: kernel/sys_ni.c
 * makes each a weak alias of sys_ni_syscall (seen on a 6.1 x86-64 built
 * without IA32_EMULATION): those at sys_ni_syscall's address do not count.
 * Where that address is hidden (kptr_restrict: every address is 0), they
 * cannot be told apart, and any name counts.
 */
static bool compat_syscalls_absent(void)
{
	static const char *const entries[] = {
		"__ia32_sys_*", "__ia32_compat_sys_*", "__x64_compat_sys_*",
		"__arm64_compat_sys_*", "compat_sys_*",
	};
	uint64_t addr, ni = 0;

	if (kallsyms_find("sys_ni_syscall", &ni) != 0)
		ni = 0;
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		if (kallsyms_find_except(entries[i], ni, &addr) != -ENOENT)
			return false;
	return true;
}

static int sys_fold(struct interp *in, int ci, struct kmap *km, const char *pred, char *why,
		    size_t wlen)
{
	static const char *const prefixes[] = { "sys_enter_", "sys_exit_" };
	const struct node *st = in->p->cl[ci].body;
	const struct node *val = st->b->nargs ? st->b->args[0] : NULL;
	struct mapdef *m = &in->maps[st->a->slot];
	struct khist_spec spec = { .size = agg_size(m->m) };
	struct ktrig *t = &km->t[0];
	char ktext[KHIST_CMD_MAX];
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
	if (!compat_syscalls_absent()) {
		planf(in, "  %s: not one raw_syscalls trigger: this kernel runs 32-bit tasks' "
		      "syscalls, which raw_syscalls counts and the syscalls: events do not\n",
		      m->name);
		return 0;
	}
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

/*
 * One table for all of a clause's triggers: each named alike (hist's
 * name=), the kernel keeps a single map for them, allocated once, where
 * each trigger would have its own of the map's size, every entry of it
 * allocated when the trigger is made and freed when it goes (trace's
 * tracing_map_init): for `errors` on a kernel with 32-bit syscalls, ~350
 * tables of 2048 entries, 6-7 s of the run's 7 in the 6.1 guest, where
 * waiting for the events in flight is under 1 s.  The probe's key is then
 * the event's number (common_type), which it was already, and the table
 * holds what the map holds, at the map's size, as a single trigger's does.
 * The kernel takes a trigger into the named table only when its keys and
 * values are fields of the same name, type, size and sign (compatible_field,
 * 6.1); the filter may differ.  Where they do not, one table each.
 */
static bool same_field(const struct tep_format_field *a, const struct tep_format_field *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a->name, b->name) && !strcmp(a->type, b->type) && a->size == b->size &&
	       (a->flags & TEP_FIELD_IS_SIGNED) == (b->flags & TEP_FIELD_IS_SIGNED);
}

static bool shared_ok(const struct kmap *km)
{
	if (km->nt < 2)
		return false;
	for (int j = 1; j < km->nt; j++) {
		if (!same_field(km->t[0].vf, km->t[j].vf))
			return false;
		for (int i = 0; i < km->nkeys; i++)
			if (!same_field(km->t[0].kf[i], km->t[j].kf[i]))
				return false;
	}
	return true;
}

/* How many of the engine's events run clause ci. */
static int clause_events(const struct interp *in, int ci)
{
	int n = 0;

	for (int k = 0; k < in->e.nev; k++)
		for (int i = 0; i < in->eb[k].ncl; i++)
			n += in->eb[k].clauses[i] == ci;
	return n;
}

/* A shared table of one entry per event: room for each event. */
static uint32_t shared_size(struct interp *in, int ci)
{
	uint32_t n = 0;

	for (int k = 0; k < in->e.nev; k++)
		n += in->eb[k].ncl == 1 && in->eb[k].clauses[0] == ci;
	return khist_size_round(n < KHIST_MIN_SIZE ? KHIST_MIN_SIZE : n);
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
	/* Pass 1 names the table when pass 0 shows that its events can share
	 * it (shared_ok). */
	for (int pass = 0; pass < 2; pass++) {
		char tname[64] = "";

		if (pass) {
			if (!shared_ok(km))
				break;
			km->shared = true;
			km->nt = 0;
			snprintf(tname, sizeof(tname), "%sm%d",
				 in->e.s ? session_name(in->e.s) : "ftr", st->a->slot);
		}
		for (int k = 0; k < in->e.nev; k++) {
			struct eng_event *v = &in->e.ev[k];
			struct ktrig *t = &km->t[km->nt];
			struct khist_spec spec = { .size = agg_size(m->m),
						   .name = tname[0] ? tname : NULL };
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
			/* At most TRACING_MAP_KEYS_MAX keys (kernel/trace/tracing_map.h):
			 * 2 until the inter-event series of 4.17 made it 3, the
			 * series whose .usecs modifier the README lists (4.9 and
			 * 4.14 refuse a third key with EINVAL). */
			if (spec.nkeys > (in->e.feat.hist_mods & HM_USECS ? 3 : 2)) {
				snprintf(why, wlen, "%d keys: this kernel's hist triggers take 2 "
					 "(3 from 4.17)", spec.nkeys);
				goto fail;
			}
			for (int i = 0; i < km->nkeys; i++)
				one_entry &= km->kk[i] == KK_PROBE || km->kk[i] == KK_FUNC;
			/* A table that holds one entry needs the kernel's smallest (and
			 * hundreds of 2048-entry tables take long to set up). */
			if (one_entry)
				spec.size = km->shared ? shared_size(in, ci) : KHIST_MIN_SIZE;
			/* The table is the first trigger's; the kernel still
			 * builds each other's at its own size, then drops it (a
			 * size hist_trigger_match does not compare): the
			 * smallest, which in the 6.1 guest makes 100 triggers in
			 * 0.09 s, not 1.0 s. */
			if (km->shared && km->nt)
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

/* The event of a shared table's entry, by its common_type key (the probe's
 * or func's; a keyless map's constant one); NULL if none of the clause's. */
static struct evbind *shared_event(struct interp *in, const struct kmap *km,
				   const struct khist_entry *en)
{
	int q = 0;

	while (q < km->nkeys && km->kk[q] != KK_PROBE && km->kk[q] != KK_FUNC)
		q++;
	if (q == km->nkeys && km->nkeys)
		return &in->eb[km->t[0].ev->idx];	/* no per-event key: any */
	for (int j = 0; j < km->nt; j++)
		if (km->t[j].ev->ev && (uint64_t)km->t[j].ev->ev->id == en->keys[q].u)
			return &in->eb[km->t[j].ev->idx];
	return NULL;
}

int hist_read(struct interp *in, struct mapdef *m)
{
	struct kmap *km = m->k;
	struct tracefs_instance *inst = session_instance(in->e.s);

	agg_clear(m->m);
	/* Before tracing starts (--prom-file's first write) the triggers are
	 * not there yet (hist_start adds them): nothing counted, an empty map;
	 * the kernel's hist file of an event without one reads empty. */
	if (!in->hists_added)
		return 0;
	/* A shared table reads alike through each of its events: once. */
	for (int i = 0; i < (km->shared ? 1 : km->nt); i++) {
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
			ftr_err("cannot read the hist of '%s:%s': %s", t->sys, t->name,
				strerror(ENOENT));
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

				if (km->shared) {
					/* the event whose number the entry holds */
					eb = shared_event(in, km, en);
					if (!eb)
						continue;
				}
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

int hist_op_all(struct interp *in, enum khist_op op)
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


static size_t triggers_planned(const struct interp *in)
{
	size_t n = 0;

	for (int i = 0; i < in->nmaps; i++)
		n += in->maps[i].k ? in->maps[i].k->nt : 0;
	return n;
}

/* Each trigger added or paused waits for the kernel's grace periods: the
 * session expedites them while there are many (until the close). */
static int hist_add_all(struct interp *in)
{
	session_expedite(in->e.s, triggers_planned(in));
	for (int i = 0; i < in->nmaps; i++) {
		struct kmap *km = in->maps[i].k;

		for (int j = 0; km && j < km->nt; j++)
			if (session_trigger_add(in->e.s, km->t[j].sys, km->t[j].name,
						km->t[j].cmd.add) < 0)
				return -EIO;
	}
	session_expedite(in->e.s, 0);
	in->hists_added = true;
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

int hist_stop(struct engine *e, void *arg)
{
	struct interp *in = arg;

	for (int i = 0; i < in->nmaps; i++)
		if (in->maps[i].pc)
			pc_stop(in->maps[i].pc);
	if (in->prof)
		lprof_stop(in->prof);
	if (!triggers_planned(in))
		return 0;
	/* One wait for all (session_freeze), else a pause per trigger. */
	session_expedite(in->e.s, triggers_planned(in));
	if (session_freeze(in->e.s) == 0)
		return 0;
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

/*
 * What a map's hist triggers cost to set up and take down on this kernel:
 * the kernel's waits for the events in flight (features.h), each taken as
 * two grace periods (tracepoint_synchronize_unregister waits for SRCU and
 * RCU), a grace period measured once per run.  0 where nothing can be
 * measured (offline, no membarrier).
 */
#define HIST_BUDGET_NS 2000000000ull	/* more, and auto plans user space */
#define PLAN_TRIGGERS_SHOWN 4		/* a map's triggers the plan lists */

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

/* Does the stop pause each trigger (session_freeze cannot stop them all)? */
static bool hist_pauses(const struct interp *in)
{
	return in->e.o.pid || in->e.o.cmdv || session_in_pidns();
}

static uint64_t hist_cost_ns(struct interp *in, const struct kmap *km, int *waits)
{
	bool pause = hist_pauses(in);

	*waits = !pause;	/* the one stop */
	for (int j = 0; j < km->nt; j++) {
		bool filter = strstr(km->t[j].cmd.add, " if ");

		*waits += KCOST_TRIGGER_WAITS + (filter ? KCOST_TRIGGER_FILTER_WAITS : 0) +
			  (pause ? KCOST_PAUSE_WAITS + (filter ? KCOST_PAUSE_FILTER_WAITS : 0) : 0);
	}
	return (uint64_t)*waits * 2 * hist_grace_ns(in);
}

static void plan_cost(struct interp *in, const struct mapdef *m, const char *where,
		      uint64_t cost, int waits)
{
	/* The grace period measured is a normal one: -E may not set
	 * rcu_expedited to measure an expedited one, which the run's
	 * many triggers get (6.1 guest, errors: 1381 waits priced 43.8 s,
	 * the whole run -d 1 took 2.14 s).  So many waits are an upper bound, and
	 * the auto plan, which weighs it, stays on the safe side. */
	bool fast = m->k->nt >= SESSION_EXPEDITE_TRIGGERS && expedite_in_effect();

	planf(in, "%s: %s%d hist triggers, setup+teardown %s~%.2f s (%d waits, %.1f ms each%s)\n",
	      m->name, where, m->k->nt, fast ? "at most " : "", cost / 1e9, waits,
	      2 * hist_grace_ns(in) / 1e6,
	      fast ? " as measured; rcu_expedited, which ftr sets while it adds and removes "
	      "them, makes them shorter" : "");
}

static void kmap_free(struct kmap *km)
{
	if (km)
		free(km->t);
	free(km);
}

void plan_hists(struct interp *in)
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
		/* BEGIN, END, interval: no event for the kernel to count (a
		 * perf counter planned with none crashed, or beside another
		 * clause's tracepoint left the map empty; issue 38). */
		if (!clause_events(in, ci)) {
			planf(in, "%s: in user space: its clause runs on no event\n", m->name);
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
		cost = hist_cost_ns(in, m->k, &waits);
		if (in->o->where == WHERE_AUTO && cost > HIST_BUDGET_NS) {
			plan_cost(in, m, "in user space: ", cost, waits);
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
			planf(in, "%s: in the kernel, one hist trigger on %s:%s for %d events: %s\n",
			      m->name, m->k->t[j].sys, m->k->t[j].name, n, m->k->t[j].cmd.add);
		}
		for (int j = 0; j < m->k->nt && !m->k->t[0].fold; j++) {
			m->k->t[j].ev->trigger_only = true;
			/* hundreds of lines would fill the plan's buffer, and
			 * leave out what follows (the cost) */
			if (j < PLAN_TRIGGERS_SHOWN || m->k->nt <= 2 * PLAN_TRIGGERS_SHOWN)
				planf(in, "%s: in the kernel, a hist trigger on %s:%s: %s\n",
				      m->name, m->k->t[j].sys, m->k->t[j].name, m->k->t[j].cmd.add);
		}
		if (!m->k->t[0].fold && m->k->nt > 2 * PLAN_TRIGGERS_SHOWN)
			planf(in, "%s: ... and %d more alike, one on each of its other events "
			      "(-E's tracefs writes list them)\n", m->name,
			      m->k->nt - PLAN_TRIGGERS_SHOWN);
		if (m->k->shared)
			planf(in, "%s: its %d triggers fill one table (hist's name=), made once\n",
			      m->name, m->k->nt);
		if (m->k->kk[0] == KK_COMM && m->k->nkeys)
			planf(in, "%s: the kernel keys by pid (common_pid.execname); ftr adds "
			      "the pids of each comm\n", m->name);
		if (cost)
			plan_cost(in, m, "", cost, waits);
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
int hist_install(struct interp *in)
{
	if (in->e.s && session_dry_run(in->e.s) && hist_add_all(in) < 0)
		return -EIO;
	in->e.start_hook = hist_start;
	in->e.stop_hook = hist_stop;
	in->e.hook_arg = in;
	return 0;
}

