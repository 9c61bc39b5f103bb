// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr trace: stream events from the kernel's raw ring buffers, filtered in
 * the kernel where it can, in user space where it cannot, with every lost
 * event accounted for.
 *
 * Lifecycle (rtla's): parse → resolve events → load formats → configure the
 * private instance with tracing off → enable → open buffers → start →
 * read until done → stop → final drain → summary → undo everything.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "cmd/cmd.h"
#include "kernel/engine.h"
#include "ftr.h"
#include "report/output.h"
#include "kernel/probe.h"

static const char trace_usage[] =
	"usage: ftr trace [options] EVENT [-f FILTER] [EVENT [-f FILTER] ...] [-- CMD [ARGS]]\n\n"
	"Stream events as they happen, from the kernel's per-CPU raw buffers.\n\n"
	"EVENT is SYSTEM:EVENT (globs allowed: 'syscalls:sys_enter_*'), also spelled\n"
	"tracepoint:SYSTEM:EVENT or t:SYSTEM:EVENT, or a dynamic probe:\n"
	"  kprobe:FUNC [NAME=FETCH[:TYPE] ...]     kretprobe:FUNC\n"
	"  uprobe:PATH:SYMBOL[+OFF] [NAME=FETCH]    uretprobe:PATH:SYMBOL\n"
	"A -f after an EVENT filters that event; a -f before any EVENT filters all.\n\n"
	"  -f, --filter EXPR      the kernel's filter syntax: 'fd == 1 && count >= 4096';\n"
	"                         @NAME is a named filter of ftr's library (@not_ftr)\n"
	"  -U, --user-filter      evaluate filters in user space, not in the kernel\n"
	"      --kernel-filter RAW  write RAW as the events' filter, unchecked: the\n"
	"                         kernel's own syntax and extras (CPUS{0-3}, .function)\n"
	"  -p, --pid PID          only this process and its threads (in the kernel)\n"
	"  -C, --cpus LIST        only these CPUs: '0', '0-2,5'\n"
	"  -d, --duration TIME    stop after TIME: '5' or '5s', '200ms', '2m'\n"
	"  -c, --count N          stop after N events\n"
	"  -b, --buffer-size KB   per-CPU ring buffer size (default: 1/64 of memory,\n"
	"                         at most 32 MB in all, 1.4 to 8 MB per CPU)\n"
	"  -j, --json             one JSON object per event\n"
	"  -F, --fields A,B,C     print only these fields\n"
	"      --fail-on-lost     exit 1 when the kernel lost events\n"
	"  -E, --explain          print the tracefs writes this run would make, and exit\n"
	"  -h, --help             this help\n\n"
	"With -- CMD, the command is started with tracing set up and filtered to it and\n"
	"its children; ftr ends when it ends, as with -p when the process exits.\n"
	"Otherwise Ctrl-C (or SIGTERM) ends the trace.\n";

struct tsel {
	char *spec;
	char *filter;
	struct probe_spec *probe;	/* a dynamic probe, else NULL */
	char *probe_text;		/* its spec with the fields that followed it */
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

static int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
{
	struct trace *t = arg;
	struct evfmt *f = &t->fmt[v->idx];
	int pid = evfmt_pid(f, rec);

	evfmt_print(t->ob, t->mode, f, rec, engine_comm(e, pid), pid);
	if (t->ob->err)
		return t->ob->err;
	if (t->count_limit && ++t->printed >= t->count_limit)
		return 1;
	return 0;
}

static void on_lost(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct trace *t = arg;

	/* Inline, where it happened, in the same stream as the events. */
	if (t->mode == OUT_JSON) {
		ob_puts(t->ob, "{\"lost\":");
		if (n > 0)
			ob_s64(t->ob, n);
		else
			ob_puts(t->ob, "null");
		ob_puts(t->ob, ",\"cpu\":");
		ob_s64(t->ob, cpu);
		ob_puts(t->ob, "}\n");
	} else {
		ob_puts(t->ob, "-- cpu ");
		ob_s64(t->ob, cpu);
		ob_puts(t->ob, ": ");
		if (n > 0)
			ob_s64(t->ob, n);
		else
			ob_puts(t->ob, "an unknown number of");
		ob_puts(t->ob, " events lost here --\n");
	}
}

/* The output is flushed once per drain, not per event. */
static int on_tick(struct engine *e, uint64_t now, void *arg)
{
	struct trace *t = arg;

	return ob_flush(t->ob) < 0;
}

/* Formats for each event; a --fields name that no event has is a typo. */
static int setup_output(struct engine *e, struct trace *t)
{
	t->fmt = calloc(e->nev, sizeof(*t->fmt));
	if (!t->fmt)
		return -ENOMEM;
	for (int i = 0; i < e->nev; i++, t->nfmt++)
		if (evfmt_init(&t->fmt[i], e->ev[i].ev, t->only, t->nonly) < 0)
			return -ENOMEM;
	for (int j = 0; j < t->nonly; j++) {
		bool found = false;

		for (int i = 0; i < e->nev && !found; i++)
			found = tep_find_any_field(e->ev[i].ev, t->only[j]) != NULL;
		if (!found) {
			ftr_err("no selected event has a field '%s'", t->only[j]);
			return -EINVAL;
		}
	}
	return 0;
}

/* What the command line of trace said; trace_parse_opts fills it. */
struct trace_cli {
	struct trace t;
	struct engine_opts o;
	struct tsel *sel;	/* the events, each with its filter or probe */
	int nsel;
	char *global_filter, *kfilter;
	bool fail_on_lost;
};

/*
 * Options and their checks.  Returns -1 to go on, else the exit code; what
 * it allocated (a->sel, a->t.only) is freed by the caller either way.
 */
static int trace_parse_opts(struct trace_cli *a, int argc, char **argv)
{
	enum { OPT_FAIL_LOST = 1000, OPT_KFILTER };
	static const struct option longopts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "user-filter", no_argument, NULL, 'U' },
		{ "kernel-filter", required_argument, NULL, OPT_KFILTER },
		{ "pid", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "fields", required_argument, NULL, 'F' },
		{ "fail-on-lost", no_argument, NULL, OPT_FAIL_LOST },
		{ "explain", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static bool cpumask[1024];
	char *fields = NULL;
	const char *pid_arg = NULL, *cpus_arg = NULL;
	uint64_t v;
	int c, ret = FTR_EXIT_FAIL, err;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	/* A leading '-': events come back in order as option 1, so that a
	 * -f applies to the event just before it (perf's rule). */
	while ((c = cmd_getopt("trace", argc, argv, "-f:Up:C:d:c:b:jF:Eh", longopts)) != -1) {
		switch (c) {
		case 1: {
			struct tsel *ns = realloc(a->sel, (a->nsel + 1) * sizeof(*a->sel));

			if (!ns)
				return ret;
			a->sel = ns;
			memset(&a->sel[a->nsel], 0, sizeof(*a->sel));
			a->sel[a->nsel].spec = optarg;
			if (engine_is_probe_spec(optarg)) {
				/* kprobe:f count=arg2 ...: the NAME=FETCH words
				 * that follow belong to the probe. */
				struct probe_error perr = { .pos = -1 };
				size_t len = strlen(optarg) + 1;
				char *text;
				int first = optind;

				while (optind < argc && engine_is_fetch_word(argv[optind]))
					len += strlen(argv[optind++]) + 1;
				text = malloc(len);
				a->sel[a->nsel].probe = calloc(1, sizeof(struct probe_spec));
				if (!text || !a->sel[a->nsel].probe) {
					free(text);
					a->nsel++;
					return ret;
				}
				a->sel[a->nsel].probe_text = text;
				text += sprintf(text, "%s", optarg);
				for (int k = first; k < optind; k++)
					text += sprintf(text, " %s", argv[k]);
				if (probe_parse(a->sel[a->nsel].probe_text, a->sel[a->nsel].probe, &perr) < 0) {
					probe_perror(a->sel[a->nsel].probe_text, &perr);
					a->nsel++;
					ret = FTR_EXIT_USAGE;
					return ret;
				}
			}
			a->nsel++;
			break;
		}
		case 'f':
			if (a->nsel && !a->sel[a->nsel - 1].filter)
				a->sel[a->nsel - 1].filter = optarg;
			else if (!a->nsel && !a->global_filter)
				a->global_filter = optarg;
			else
				return cmd_usage_error("trace", "two filters for one event: join "
						       "them with && in one -f");
			break;
		case 'U':
			a->o.user_filter = true;
			break;
		case OPT_KFILTER:
			a->kfilter = optarg;
			break;
		case 'p':
			pid_arg = optarg;
			break;
		case 'C':
			cpus_arg = optarg;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &a->o.duration_ns) < 0 || !a->o.duration_ns)
				return cmd_usage_error("trace", "bad duration '%s' (e.g. 5, 5s, "
						       "200ms, 2m)", optarg);
			break;
		case 'c':
			if (parse_u64(optarg, &a->t.count_limit) < 0 || !a->t.count_limit)
				return cmd_usage_error("trace", "bad count '%s'", optarg);
			break;
		case 'b':
			if (parse_u64(optarg, &v) < 0 || v < 4 || v > (1u << 22))
				return cmd_usage_error("trace", "bad buffer size '%s' (KB per CPU, "
						       "4 to 4194304)", optarg);
			a->o.bufsz = optarg;
			break;
		case 'j':
			a->t.mode = OUT_JSON;
			break;
		case 'F':
			fields = optarg;
			break;
		case OPT_FAIL_LOST:
			a->fail_on_lost = true;
			break;
		case 'E':
			a->o.explain = true;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			ret = FTR_EXIT_OK;
			return ret;
		default:
			ret = FTR_EXIT_USAGE;
			return ret;
		}
	}
	if (optind < argc)
		a->o.cmdv = argv + optind;	/* after "--" */
	if (!a->nsel)
		return cmd_usage_error("trace", "no event given (see 'ftr list')");
	if (pid_arg && a->o.cmdv)
		return cmd_usage_error("trace", "-p and a command exclude each other");
	if (a->kfilter && (a->global_filter || a->o.user_filter))
		return cmd_usage_error("trace", "--kernel-filter goes alone: not with -f or -U");
	if (pid_arg) {
		if (parse_u64(pid_arg, &v) < 0 || v == 0 || v > INT32_MAX)
			return cmd_usage_error("trace", "bad pid '%s'", pid_arg);
		a->o.pid = (int)v;
		if (!pid_alive(a->o.pid)) {
			ftr_err("no process with pid %d", a->o.pid);
			return ret;
		}
	}
	if (cpus_arg) {
		if (ncpu > (long)ARRAY_SIZE(cpumask))
			ncpu = ARRAY_SIZE(cpumask);
		err = parse_cpulist(cpus_arg, cpumask, (int)ncpu);
		if (err)
			return cmd_usage_error("trace", "bad CPU list '%s'%s", cpus_arg,
					       err == -ERANGE ? " (no such CPU)" : "");
		a->o.cpus = cpumask;
		a->o.ncpus = (int)ncpu;
	}
	if (fields) {
		for (char *p = strtok(fields, ","); p; p = strtok(NULL, ",")) {
			char **n = realloc(a->t.only, (a->t.nonly + 1) * sizeof(*n));

			if (!n)
				return ret;
			a->t.only = n;
			a->t.only[a->t.nonly++] = p;
		}
	}

	return -1;
}

int cmd_trace(int argc, char **argv)
{
	static struct outbuf ob;
	struct trace_cli a = { .t = { .mode = OUT_TEXT, .ob = &ob } };
	struct trace *t = &a.t;
	struct engine e = { 0 };
	bool opened = false;
	int ret, err;

	ret = trace_parse_opts(&a, argc, argv);
	if (ret >= 0)
		goto out;
	ret = FTR_EXIT_FAIL;
	opened = true;
	if (engine_open(&e, &a.o) < 0)
		goto out;
	for (int i = 0; i < a.nsel; i++) {
		const char *filter = a.sel[i].filter ? a.sel[i].filter : a.global_filter;

		err = a.sel[i].probe ? engine_add_probe(&e, a.sel[i].probe, filter, NULL) :
				     engine_add_spec(&e, a.sel[i].spec, filter);
		if (err < 0)
			goto out;
	}
	if (a.kfilter)
		engine_raw_filter(&e, a.kfilter);
	if (engine_prepare(&e) < 0)
		goto out;
	if (a.o.explain) {
		ret = FTR_EXIT_OK;
		goto out;
	}
	if (setup_output(&e, t) < 0)
		goto out;
	ob_init(&ob, STDOUT_FILENO);
	/* A tick to flush what was printed, so that a slow trace shows up. */
	if (engine_run(&e, on_event, on_lost, on_tick, 200000000, t) < 0)
		goto out;
	ob_flush(&ob);
	if (ob.err && ob.err != -EPIPE)
		ftr_err("write error on standard output: %s", strerror(-ob.err));
	engine_summary(&e, ftr_verbose > 0);
	ret = ob.err && ob.err != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
	if (a.fail_on_lost && engine_lost(&e, NULL))
		ret = FTR_EXIT_FAIL;
out:
	if (opened)
		engine_close(&e);
	for (int i = 0; i < t->nfmt; i++)
		evfmt_free(&t->fmt[i]);
	free(t->fmt);
	for (int i = 0; i < a.nsel; i++) {
		free(a.sel[i].probe);
		free(a.sel[i].probe_text);
	}
	free(t->only);
	free(a.sel);
	return ret;
}
