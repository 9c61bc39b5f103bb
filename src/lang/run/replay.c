// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Over a recording (ftr run -i FILE): the program runs over every record of
 * a trace-cmd data file with the user-space semantics, through the unit
 * tests' seam (interp_open, interp_feed), with the file's kallsyms.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "lang/interp-int.h"
#include "report/sym.h"
#include "report/tdat.h"
/* ---- over a recording (ftr run -i FILE) ----------------------------------- */

#ifndef FTR_NO_TRACECMD
struct input_ctx {
	struct interp *in;
	bool intervals;
	uint64_t last;
};

static int input_record(struct tep_record *rec, void *arg)
{
	struct input_ctx *c = arg;

	/* Time is the recording's: interval clauses fire as its timestamps
	 * pass their periods. */
	if (c->intervals && interp_tick(c->in, rec->ts))
		return 1;
	c->last = rec->ts;
	return interp_feed(c->in, rec);
}
#endif

/* The program over every record of the file, with the user-space
 * semantics (nothing is in a kernel), and kernel symbols from the file's
 * kallsyms. */
#ifdef FTR_NO_TRACECMD
int lang_run_input(struct program *p, const struct run_opts *o)
{
	ftr_err("reading recordings (-i/--input) is not in this build (the static build has "
		"no libtracecmd): use the dynamic ftr");
	return FTR_EXIT_FAIL;
}
#else
int lang_run_input(struct program *p, const struct run_opts *o)
{
	struct run_opts ro = *o;
	struct input_ctx c = { 0 };
	struct lang_err lerr;
	struct tdat *td;
	char err[512], *ks;
	int ret = FTR_EXIT_FAIL, r;

	td = tdat_open(o->input, err, sizeof(err));
	if (!td) {
		ftr_err("cannot read '%s': %s", o->input, err);
		return FTR_EXIT_FAIL;
	}
	ks = tdat_kallsyms(td);
	ksyms_set_source(ks ? ks : "");
	/* trace-cmd's version 7 files: the kallsyms libtracecmd read. */
	if (!ks && tdat_nksyms(td) > 0)
		ksyms_set_resolver(tdat_ksym, td);
	ro.eng.file_tep = tdat_tep(td);
	ro.where = WHERE_USER;
	ro.input = NULL;
	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++) {
			enum probe_provider pv = p->cl[i].probes[j].pv;

			c.intervals |= pv == PV_INTERVAL;
			if (pv == PV_PROFILE) {
				ftr_err("'%s' samples the running system: a recording has only "
					"its events", p->cl[i].probes[j].text);
				goto out;
			}
			/* A kprobe or uprobe is the event 'ftr record -e PROGRAM'
			 * made for it (engine_add_probe finds it by name); or
			 * tracepoint:SYSTEM:EVENT names one ('ftr report FILE'). */
		}
	c.last = tdat_first_ts(td);
	c.in = interp_open(p, &ro, NULL, STDOUT_FILENO, c.last, &lerr);
	if (!c.in) {
		if (lerr.msg[0])
			lang_perror(p, o->src, &lerr);
		goto out;
	}
	/* kstack frames are named as live ones are (the file's kallsyms). */
	if (prof_open(c.in) < 0)
		goto out;
	r = tdat_iterate(td, input_record, NULL, &c);
	if (r < 0) {
		ftr_err("reading '%s': %s", o->input, strerror(-r));
		goto out;
	}
	engine_feed_end(interp_engine(c.in), on_event, c.in);
	r = interp_finish(c.in, c.last);
	ret = r < 0 && r != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
out:
	interp_close(c.in);
	ksyms_set_source(NULL);
	ksyms_set_resolver(NULL, NULL);
	free(ks);
	tdat_close(td);
	return ret;
}
#endif
