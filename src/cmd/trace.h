/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What trace, record and report share: the event selection of the command
 * line (events, probes, filters, -p/-C/-d, -- CMD), and the printing of
 * events and lost-event notes.
 */
#ifndef FTR_CMD_TRACE_H
#define FTR_CMD_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/engine.h"
#include "report/output.h"

struct probe_spec;

struct tsel {
	char *spec;
	char *filter;
	struct probe_spec *probe;	/* a dynamic probe, else NULL */
	char *probe_text;		/* its spec with the fields that followed it */
	char *eprobe;			/* "eprobe:SYS:EV": its fetchargs (kernel syntax) */
};

struct trace {
	struct outbuf *ob;
	enum out_mode mode;
	struct evfmt *fmt;		/* per engine event */
	int nfmt;
	uint64_t count_limit, printed;
	char **only;
	int nonly;
};

/* What the command line said; trace_parse_opts fills it. */
struct trace_cli {
	const char *cmd;	/* "trace", "record" or "report" (NULL: trace) */
	const char *usage;	/* its -h text (NULL: trace's) */
	struct trace t;
	struct engine_opts o;
	struct tsel *sel;	/* the events, each with its filter or probe */
	int nsel;
	char *global_filter, *kfilter;
	bool fail_on_lost;
	/* record */
	const char *output;
	uint64_t max_size;
	const char *finish;
	bool kstack;
	const char *program;		/* -e 'PROGRAM': record its probes' events */
	const char *program_file;	/* FILE.bt: the same */
	/* report */
	const char *input;
};

/* Options and their checks.  Returns -1 to go on, else the exit code; what
 * it allocated is freed by trace_cli_free either way. */
int trace_parse_opts(struct trace_cli *a, int argc, char **argv);
void trace_cli_free(struct trace_cli *a);
/* The events and probes of the command line into the engine.  0/-errno. */
int trace_add_events(struct engine *e, struct trace_cli *a);
/* The engine of trace and record: opened, the command line's events in it
 * (with -k's kernel stacks), prepared.  0, or -1 once the failure is
 * printed; the caller closes e either way. */
int trace_engine_start(struct engine *e, struct trace_cli *a);
int trace_setup_output(struct engine *e, struct trace *t);
int trace_on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg);
void trace_on_lost(int cpu, long long n, unsigned long long ts, void *arg);

#endif
