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
#include "cmd/trace.h"
#include "kernel/evsel.h"

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

int trace_on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
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

void trace_on_lost(int cpu, long long n, unsigned long long ts, void *arg)
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
int trace_setup_output(struct engine *e, struct trace *t)
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

/*
 * Options and their checks.  Returns -1 to go on, else the exit code; what
 * it allocated (a->sel, a->t.only) is freed by the caller either way.
 */
/* "100000", "64K", "10M", "2G" (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;

	if (end == s || *s == '-')
		return -EINVAL;
	if (*end) {
		const char *u = strchr("KMGT", *end & ~0x20);

		if (!u || end[1])
			return -EINVAL;
		shift = 10 * (int)(u - "KMGT" + 1);
	}
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

int trace_parse_opts(struct trace_cli *a, int argc, char **argv)
{
	enum { OPT_FAIL_LOST = 1000, OPT_KFILTER, OPT_MAX_SIZE, OPT_FINISH };
	static const struct option longopts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "finish", required_argument, NULL, OPT_FINISH },
		{ "kstack", no_argument, NULL, 'k' },
		{ "input", required_argument, NULL, 'i' },
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

	/* Which options each command takes (record writes what the kernel
	 * keeps: no user-space filter, no printing; report reads a file). */
	static const struct {
		const char *cmd, *shorts;
		int longs[4];
	} allowed[] = {
		{ "trace", "fUpCdcbjFE", { OPT_FAIL_LOST, OPT_KFILTER } },
		{ "record", "fpCdbEok", { OPT_FAIL_LOST, OPT_KFILTER, OPT_MAX_SIZE, OPT_FINISH } },
		{ "report", "fcjFi", { 0 } },
	};
	const char *cmd = a->cmd ? a->cmd : "trace";
	int mode = !strcmp(cmd, "record") ? 1 : !strcmp(cmd, "report") ? 2 : 0;

	/* A leading '-': events come back in order as option 1, so that a
	 * -f applies to the event just before it (perf's rule). */
	while ((c = cmd_getopt(cmd, argc, argv, "-e:f:Up:C:d:c:b:jF:Eho:i:k", longopts)) != -1) {
		if (c > 1 && c != 'h' && c != 'e' && c != '?' && c != ':' &&
		    !(c < 256 ? strchr(allowed[mode].shorts, c) != NULL :
		      c == allowed[mode].longs[0] || c == allowed[mode].longs[1] ||
		      c == allowed[mode].longs[2] || c == allowed[mode].longs[3])) {
			const char *name = "?";

			for (int k = 0; longopts[k].name; k++)
				if (longopts[k].val == c)
					name = longopts[k].name;
			return cmd_usage_error(cmd, "--%s is not an option of ftr %s", name, cmd);
		}
		switch (c) {
		case 'e':	/* -e EVENT: the same as EVENT */
		case 1:
			if (c == 1 && mode == 2 && !a->input) {
				a->input = optarg;	/* ftr report FILE [EVENT ...] */
				break;
			}
			/* ftr record -e 'PROGRAM' or FILE.bt: a program's events. */
			if (mode == 1 && (strchr(optarg, '{') || (c == 1 && str_has_suffix(optarg, ".bt")))) {
				if (a->program || a->program_file)
					return cmd_usage_error(cmd, "one program at a time");
				*(strchr(optarg, '{') ? &a->program : &a->program_file) = optarg;
				break;
			}
			if (str_has_prefix(optarg, "eprobe:")) {
				/* eprobe:SYS:EV NAME=FETCH...: the fetchargs are the
				 * kernel's ($field, +0($field):ustring). */
				struct tsel *ns = realloc(a->sel, (a->nsel + 1) * sizeof(*a->sel));
				size_t len = 1;
				char *text;
				int first = optind;

				if (!ns)
					return ret;
				a->sel = ns;
				memset(&a->sel[a->nsel], 0, sizeof(*a->sel));
				a->sel[a->nsel].spec = optarg + strlen("eprobe:");
				while (optind < argc && engine_is_fetch_word(argv[optind]))
					len += strlen(argv[optind++]) + 1;
				text = a->sel[a->nsel++].eprobe = malloc(len);
				if (!text)
					return ret;
				*text = '\0';
				for (int k = first; k < optind; k++)
					text += sprintf(text, "%s%s", k > first ? " " : "", argv[k]);
				break;
			}
			{
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
					return FTR_EXIT_USAGE;
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
				return cmd_usage_error(cmd, "two filters for one event: join "
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
				return cmd_usage_error(cmd, "bad duration '%s' (e.g. 5, 5s, "
						       "200ms, 2m)", optarg);
			break;
		case 'c':
			if (parse_u64(optarg, &a->t.count_limit) < 0 || !a->t.count_limit)
				return cmd_usage_error(cmd, "bad count '%s'", optarg);
			break;
		case 'b':
			if (parse_u64(optarg, &v) < 0 || v < 4 || v > (1u << 22))
				return cmd_usage_error(cmd, "bad buffer size '%s' (KB per CPU, "
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
		case 'o':
			a->output = optarg;
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'k':
			a->kstack = true;
			break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &a->max_size) < 0 || !a->max_size)
				return cmd_usage_error(cmd, "bad size '%s' (bytes, or 10M, 2G...)",
						       optarg);
			break;
		case OPT_FINISH:
			a->finish = optarg;
			break;
		case 'h':
			fputs(a->usage ? a->usage : trace_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind < argc)
		a->o.cmdv = argv + optind;	/* after "--" */
	if (mode == 2 && !a->input)
		return cmd_usage_error(cmd, "no file given");
	if ((a->program || a->program_file) && (a->nsel || a->global_filter || a->kfilter ||
						 a->kstack || a->finish))
		return cmd_usage_error(cmd, "a program goes alone: its probes, predicates and "
				       "kstack say what is recorded (no other events, -f, "
				       "--kernel-filter, -k or --finish)");
	if (!a->nsel && mode != 2 && !a->finish && !a->program && !a->program_file)
		return cmd_usage_error(cmd, "no event given (see 'ftr list')");
	if (pid_arg && a->o.cmdv)
		return cmd_usage_error(cmd, "-p and a command exclude each other");
	if (a->kfilter && (a->global_filter || a->o.user_filter))
		return cmd_usage_error(cmd, "--kernel-filter goes alone: not with -f or -U");
	if (pid_arg && (ret = cmd_pid_opt(cmd, pid_arg, &a->o.pid)) >= 0)
		return ret;
	ret = FTR_EXIT_FAIL;
	if (cpus_arg) {
		if (ncpu > (long)ARRAY_SIZE(cpumask))
			ncpu = ARRAY_SIZE(cpumask);
		err = parse_cpulist(cpus_arg, cpumask, (int)ncpu);
		if (err)
			return cmd_usage_error(cmd, "bad CPU list '%s'%s", cpus_arg,
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
	int ret;

	ret = trace_parse_opts(&a, argc, argv);
	if (ret >= 0)
		goto out;
	ret = FTR_EXIT_FAIL;
	opened = true;
	if (trace_engine_start(&e, &a) < 0)
		goto out;
	if (a.o.explain) {
		ret = FTR_EXIT_OK;
		goto out;
	}
	if (trace_setup_output(&e, t) < 0)
		goto out;
	ob_init(&ob, STDOUT_FILENO);
	/* A tick to flush what was printed, so that a slow trace shows up. */
	if (engine_run(&e, trace_on_event, trace_on_lost, on_tick, 200000000, t) < 0)
		goto out;
	ob_flush(&ob);
	if (ob.err && ob.err != -EPIPE)
		ftr_err("write error on %s: %s", stdout_name(), strerror(-ob.err));
	engine_summary(&e, ftr_verbose > 0);
	ret = ob.err && ob.err != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
	if (a.fail_on_lost && engine_lost(&e, NULL))
		ret = FTR_EXIT_FAIL;
out:
	if (opened)
		engine_close(&e);
	trace_cli_free(&a);
	return ret;
}

int trace_add_events(struct engine *e, struct trace_cli *a)
{
	int err;

	for (int i = 0; i < a->nsel; i++) {
		const char *filter = a->sel[i].filter ? a->sel[i].filter : a->global_filter;
		struct tsel *s = &a->sel[i];

		if (s->eprobe) {
			struct eng_event *v;
			char sys[256], ev[256];

			if (evsel_split(s->spec, sys, sizeof(sys), ev, sizeof(ev)) < 0 ||
			    !strcmp(sys, "*")) {
				ftr_err("bad eprobe 'eprobe:%s': eprobe:SYSTEM:EVENT NAME=FETCH...",
					s->spec);
				return -EINVAL;
			}
			err = engine_add_eprobe(e, sys, ev, s->eprobe, &v);
			if (!err && filter)
				v->filter_text = filter;
		} else {
			err = s->probe ? engine_add_probe(e, s->probe, filter, NULL) :
					 engine_add_spec(e, s->spec, filter);
		}
		if (err < 0)
			return err;
	}
	if (a->kfilter)
		engine_raw_filter(e, a->kfilter);
	return 0;
}

int trace_engine_start(struct engine *e, struct trace_cli *a)
{
	if (engine_open(e, &a->o) < 0 || trace_add_events(e, a) < 0)
		return -1;
	e->kstacks = a->kstack;
	return engine_prepare(e) < 0 ? -1 : 0;
}

void trace_cli_free(struct trace_cli *a)
{
	for (int i = 0; i < a->t.nfmt; i++)
		evfmt_free(&a->t.fmt[i]);
	free(a->t.fmt);
	for (int i = 0; i < a->nsel; i++) {
		free(a->sel[i].probe);
		free(a->sel[i].probe_text);
		free(a->sel[i].eprobe);
	}
	free(a->t.only);
	free(a->sel);
}
