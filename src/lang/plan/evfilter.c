// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Predicates into event filters: a clause's predicate rendered (filtertext.c) and
 * handed to the engine as its events' filter where each event feeds that
 * clause only and the kernel can parse it, joined with the command line's
 * filter; and --emit-sh, the in-kernel part of a program as a sh script.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/expr.h"
#include "ftr.h"
#include "lang/interp-int.h"
#include "lang/plan/filtertext.h"
/* Does the rendered predicate parse and bind on every event of clause ci?
 * (A negative number against an unsigned field, a pointer...: then the
 * interpreter keeps it.) */
static bool filter_fits(struct interp *in, int ci, const char *text, char *why, size_t wlen)
{
	for (int k = 0; k < in->e.nev; k++) {
		struct expr_err ee;
		struct expr *e;
		bool mine = false;

		for (int i = 0; i < in->eb[k].ncl; i++)
			mine |= in->eb[k].clauses[i] == ci;
		if (!mine)
			continue;
		e = expr_parse(text, &ee);
		if (!e || expr_bind(e, in->e.ev[k].ev, &ee) < 0) {
			snprintf(why, wlen, "on %s:%s: %.200s", in->e.ev[k].sys, in->e.ev[k].name,
				 ee.msg);
			expr_free(e);
			return false;
		}
		expr_free(e);
	}
	return true;
}

/* The eprobes of profile clauses (hrprof_clause) keep the sampler's timer
 * only, and then what plan_filters put there. */
static void hrprof_filters(struct interp *in)
{
	static char keep[HRPROF_MAX][4300];
	int n = 0;

	for (int k = 0; k < in->e.nev; k++) {
		struct eng_event *v = &in->e.ev[k];

		if (in->eb[k].ncl != 1 || !in->hrprof[in->eb[k].clauses[0]])
			continue;
		if (n == (int)ARRAY_SIZE(keep))
			break;	/* (hrprof_clause allows HRPROF_MAX) */
		snprintf(keep[n], sizeof(keep[n]), v->filter_text ? "ftr_hrfn == 0x%llx && (%s)" :
			 "ftr_hrfn == 0x%llx%s", (unsigned long long)in->hrfn,
			 v->filter_text ? v->filter_text : "");
		v->filter_text = keep[n++];
	}
}

/*
 * Predicates into the event filters, where each event feeds one clause; and
 * the command line's filter (ftr count/hist -f) on every event, joined to
 * the predicate when that goes too.
 */
void plan_filters(struct interp *in)
{
	static char keep[64][4200];

	for (int ci = 0; ci < in->p->ncl; ci++) {
		struct clause *c = &in->p->cl[ci];
		char text[2048] = "", why[256];
		bool alone = true, pushed = false;
		int n = 0;

		if (!c->pred && !in->o->filter)
			continue;
		if (c->body && c->body->k == S_ASSIGN && c->body->a->k == N_MAP &&
		    (in->maps[c->body->a->slot].k || in->maps[c->body->a->slot].pc))
			continue;	/* the filter is the trigger's or the counter's */
		for (int k = 0; k < in->e.nev; k++)
			for (int i = 0; i < in->eb[k].ncl; i++)
				if (in->eb[k].clauses[i] == ci) {
					n++;
					alone &= in->eb[k].ncl == 1;
				}
		if (!n)
			continue;
		if (ci >= (int)ARRAY_SIZE(keep)) {
			planf(in, "clause %d: predicate in user space: too many clauses\n", ci + 1);
			continue;
		}
		if (c->pred && !alone) {
			planf(in, "clause %d: predicate in user space: its events feed other "
			      "clauses too\n", ci + 1);
		} else if (c->pred && plan_render_pred(c->pred, text, sizeof(text), why,
						       sizeof(why)) < 0) {
			planf(in, "clause %d: predicate in user space: %s\n", ci + 1, why);
		} else if (c->pred && !filter_fits(in, ci, text, why, sizeof(why))) {
			planf(in, "clause %d: predicate in user space: %s\n", ci + 1, why);
		} else if (c->pred) {
			pushed = true;
		}
		if (pushed && in->o->filter)
			snprintf(keep[ci], sizeof(keep[ci]), "(%s) && (%s)", text, in->o->filter);
		else if (pushed)
			snprintf(keep[ci], sizeof(keep[ci]), "%s", text);
		else if (in->o->filter)
			snprintf(keep[ci], sizeof(keep[ci]), "%s", in->o->filter);
		else
			continue;
		for (int k = 0; k < in->e.nev; k++)
			for (int i = 0; i < in->eb[k].ncl; i++)
				if (in->eb[k].clauses[i] == ci) {
					in->e.ev[k].filter_text = keep[ci];
					in->eb[k].pred_pushed = pushed;
				}
		planf(in, "clause %d: filter '%s' on its %d event%s (in the kernel where it "
		      "can evaluate it)\n", ci + 1, keep[ci], n, n == 1 ? "" : "s");
	}
	hrprof_filters(in);
}

/* echo 'VAL' > $I/events/SYS/EV/FILE, VAL quoted for sh. */
static void emit_echo(FILE *b, const char *val, const char *sys, const char *name,
		      const char *file)
{
	fputs("echo ", b);
	sh_quote(b, val);
	/* Append to a trigger file: truncating it removes every trigger. */
	fprintf(b, " %s $I/events/%s/%s/%s\n", strcmp(file, "trigger") ? ">" : ">>", sys, name,
		file);
}

/* --emit-sh: the in-kernel part as a script: set up, count, read, undo. */
int emit_sh(struct interp *in)
{
	char *body = NULL;
	size_t len = 0;
	FILE *b = open_memstream(&body, &len);
	int err;

	if (!b)
		return -ENOMEM;
	for (const char *p = in->plan; *p;) {
		size_t n = strcspn(p, "\n");

		fprintf(b, "# %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	/* A keyless count runs on perf counters in ftr: in sh, the events
	 * themselves go to the buffer (filtered alike) and are counted there. */
	for (int i = 0; i < in->nmaps; i++) {
		struct pcount *pc = in->maps[i].pc;

		for (int j = 0; pc && j < pc->nev; j++) {
			if (pc->filter[j][0])
				emit_echo(b, pc->filter[j], pc->ev[j]->sys, pc->ev[j]->name, "filter");
			emit_echo(b, "1", pc->ev[j]->sys, pc->ev[j]->name, "enable");
		}
	}
	if (in->o->eng.duration_ns)
		fprintf(b, "sleep %llu\n",
			(unsigned long long)((in->o->eng.duration_ns + 999999999) / 1000000000));
	else
		fprintf(b, "echo 'tracing: Ctrl-C to stop' >&2\n"
			   "trap 'stop=1' INT TERM HUP\nstop=\n"
			   "while [ -z \"$stop\" ]; do sleep 1; done\n");
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];

		if (m->kind == AGG_VALUE)
			continue;
		for (int j = 0; m->k && j < m->k->nt; j++) {
			char cmd[KHIST_CMD_MAX + 16];

			if (khist_cmd(m->k->t[j].cmd.add, KHIST_PAUSE, cmd, sizeof(cmd)) == 0)
				emit_echo(b, cmd, m->k->t[j].sys, m->k->t[j].name, "trigger");
			fprintf(b, "echo '%s (raw values; ftr would bucket and merge them):'\n"
				   "cat $I/events/%s/%s/hist\n", m->name, m->k->t[j].sys,
				m->k->t[j].name);
		}
		if (m->pc && !m->pc->by_cpu) {
			/* The events of a count, by name, in the buffer. */
			fprintf(b, "echo 0 > $I/tracing_on\necho \"%s%s%s%s: $(awk '", m->name,
				m->pc->fixed ? "[" : "", m->pc->fixed ? m->pc->fixed : "",
				m->pc->fixed ? "]" : "");
			for (int j = 0; j < m->pc->nev; j++)
				fprintf(b, "%s/ %s: /", j ? " || " : "", m->pc->ev[j]->name);
			fprintf(b, " { n++ } END { print n + 0 }' $I/trace)\"\n");
		} else if (!m->k) {
			fprintf(b, "# %s is computed by ftr in user space (%s): sh cannot do it; "
				   "the events are in $I/trace\n", m->name,
				m->pc ? "perf counters" : "from the event stream");
		}
	}
	fclose(b);
	err = session_script(in->e.s, stdout, body);
	free(body);
	return err;
}
