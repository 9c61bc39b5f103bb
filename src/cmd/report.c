// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr report: the events of a trace-cmd data file (ftr record's or
 * trace-cmd's own), printed as `ftr trace` prints them, with its -F, -j
 * and filters (run in user space, with the same meaning as the kernel's).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "cmd/cmd.h"
#include "cmd/trace.h"
#include "ftr.h"
#include "kernel/engine.h"
#include "filter/expr.h"
#include "kernel/record.h"
#include "report/tdat.h"

#ifndef FTR_NO_TRACECMD
static const char report_usage[] =
	"usage: ftr report [options] FILE [EVENT [-f FILTER] ...]\n\n"
	"Print the events of a trace-cmd data file (written by 'ftr record' or by\n"
	"trace-cmd), as 'ftr trace' prints them.  Without EVENT, every event of the\n"
	"file.  Reading never writes: a file its recorder left unfinished (killed) is\n"
	"refused, and 'ftr record --finish FILE' completes it from its side files.\n\n"
	"  -f, --filter EXPR      a filter ('ftr trace' syntax, evaluated here)\n"
	"  -F, --fields A,B,C     print only these fields\n"
	"  -j, --json             one JSON object per event\n"
	"  -c, --count N          stop after N events\n"
	"  -h, --help             this help\n";

struct rep_ctx {
	struct engine *e;
	struct trace *t;
};

static void on_lost(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct rep_ctx *r = arg;

	trace_on_lost(cpu, n, ts, r->t);
}

static int on_record(struct tep_record *rec, void *arg)
{
	struct rep_ctx *r = arg;

	return engine_feed(r->e, rec, trace_on_event, r->t);
}

/* No event named: all the file's, or with a filter, those that have the
 * fields it names (a trace-cmd file holds the formats of every event). */
static int add_all(struct engine *e, struct tep_handle *tep, const char *filter)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);
	struct expr_err xerr = { .pos = -1 };
	struct expr *x = filter ? expr_parse(filter, &xerr) : NULL;
	char spec[512];
	int n = 0, err = 0;

	if (filter && !x)
		return engine_add_spec(e, "*:*", filter);	/* its error */
	for (int i = 0; evs && evs[i] && !err; i++) {
		if (x && expr_bind(x, evs[i], &xerr) < 0)
			continue;
		snprintf(spec, sizeof(spec), "%s:%s", evs[i]->system, evs[i]->name);
		err = engine_add_spec(e, spec, filter) < 0;
		n++;
	}
	expr_free(x);
	if (!n && !err)
		ftr_err("no event of the file has the fields of '%s'", filter);
	return n && !err ? 0 : -EINVAL;
}

int cmd_report(int argc, char **argv)
{
	static struct outbuf ob;
	struct trace_cli a = { .cmd = "report", .usage = report_usage,
			       .t = { .mode = OUT_TEXT, .ob = &ob } };
	struct engine e = { 0 };
	struct tdat *td = NULL;
	bool opened = false;
	char err[512];
	int ret;

	ret = trace_parse_opts(&a, argc, argv);
	if (ret >= 0)
		goto out;
	ret = FTR_EXIT_FAIL;
	td = tdat_open(a.input, err, sizeof(err));
	if (!td) {
		ftr_err("cannot read '%s': %s", a.input, err);
		goto out;
	}
	a.o.file_tep = tdat_tep(td);
	opened = true;
	engine_open_offline(&e, &a.o, NULL);
	if (a.nsel) {
		if (trace_add_events(&e, &a) < 0)
			goto out;
	} else if (add_all(&e, a.o.file_tep, a.global_filter) < 0) {
		goto out;
	}
	if (engine_prepare(&e) < 0 || trace_setup_output(&e, &a.t) < 0)
		goto out;
	ob_init(&ob, STDOUT_FILENO);
	{
		struct rep_ctx r = { &e, &a.t };
		int r2 = tdat_iterate(td, on_record, on_lost, &r);

		if (r2 < 0 && r2 != -EPIPE && !ob.err) {
			ftr_err("reading '%s': %s", a.input, strerror(-r2));
			goto out;
		}
	}
	ob_flush(&ob);
	if (ob.err && ob.err != -EPIPE) {
		ftr_err("write error on %s: %s", stdout_name(), strerror(-ob.err));
		goto out;
	}
	ret = FTR_EXIT_OK;
out:
	if (opened)
		engine_close(&e);
	tdat_close(td);
	trace_cli_free(&a);
	return ret;
}

#else

/* The static build has no libtracecmd: reading is the dynamic ftr's. */
int cmd_report(int argc, char **argv)
{
	ftr_err("ftr report is not in this build (the static build has no libtracecmd): "
		"read the file with the dynamic ftr or trace-cmd");
	return FTR_EXIT_FAIL;
}

#endif
