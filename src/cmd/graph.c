// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr graph: the function_graph tracer's call tree with durations, printed
 * as the kernel and trace-cmd report print it (trace-cmd record -p
 * function_graph -g F, perf-tools' funcgraph); ftr funcslower: the calls of
 * F slower than a threshold (perf-tools' funcslower).  Both in ftr's own
 * instance, which runs function_graph from 6.11 on (trace_functions_graph.c,
 * .allow_instances); before that it is the top level's alone, which ftr
 * does not take: the run is refused and says so.
 *
 * Durations are the exit record's own rettime - calltime (taken by fgraph
 * at the hooked call and return): exact under nesting and recursion.  An
 * entry followed on its CPU by its own exit is one line, a leaf, as
 * trace-cmd report merges them.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "cmd/cmd.h"
#include "kernel/engine.h"
#include "ftr.h"
#include "report/sym.h"

static const char graph_usage[] =
	"usage: ftr graph [options] [-g FUNC] [PATTERN...] [-- CMD]\n\n"
	"The call tree of the hooked functions with durations, from function_graph in\n"
	"ftr's instance, 6.11+ (trace-cmd -p function_graph, funcgraph; man ftr-graph).\n\n"
	"  -g FUNC  only under FUNC   -m N  --max-depth N   -d TIME   -p PID\n"
	"  --max-funcs N (1000)  -E  -h\n"
	"  --global-tracer  before 6.11, the top level's function_graph (the system's one\n"
	"                   tracer), taken when idle and put back as found\n";

static const char funcslower_usage[] =
	"usage: ftr funcslower [options] FUNC USECS [-- CMD]\n\n"
	"Calls of FUNC that took USECS or more, from function_graph in ftr's instance,\n"
	"6.11+ (perf-tools' funcslower; man ftr-funcslower).\n\n"
	"  -d TIME  -p PID  -E  -h\n"
	"  --global-tracer  before 6.11, the top level's function_graph, taken when idle\n";

struct held {
	bool on;
	uint64_t func, ts;
	int depth, pid;
};

struct gtask {
	int tid, inside, base;
};

struct graph {
	bool slower;
	uint64_t min_ns;
	const char *root;
	uint64_t root_ip;
	int max_depth;
	struct tep_format_field *en_func, *en_depth, *ex_func, *ex_depth, *calltime, *rettime;
	int entry_id, exit_id;
	struct held *held;	/* per CPU */
	int ncpu;
	struct gtask tasks[512];
	struct ksyms *ks;
};

static uint64_t num(struct tep_format_field *f, struct tep_record *rec)
{
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

static const char *sym(struct graph *g, uint64_t ip, char *buf, size_t len)
{
	uint64_t off;
	const char *mod, *name = g->ks ? ksyms_at(g->ks, ip, &off, &mod) : NULL;

	if (name)
		return name;
	snprintf(buf, len, "0x%" PRIx64, ip);
	return buf;
}

/* The kernel's duration column (trace_functions_graph.c,
 * print_graph_duration, and trace_output.c's marks). */
static void duration(char *buf, size_t len, uint64_t ns)
{
	static const struct { uint64_t ns; char mark; } marks[] = {
		{ 1000000000ull, '$' }, { 100000000ull, '@' }, { 10000000ull, '*' },
		{ 1000000ull, '#' }, { 100000ull, '!' }, { 10000ull, '+' },
	};
	char mark = ' ';

	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		if (ns > marks[i].ns) {
			mark = marks[i].mark;
			break;
		}
	snprintf(buf, len, "%c %8" PRIu64 ".%03" PRIu64 " us", mark, ns / 1000, ns % 1000);
}

static struct gtask *task(struct graph *g, int tid)
{
	for (size_t i = 0; i < ARRAY_SIZE(g->tasks); i++) {
		struct gtask *t = &g->tasks[(tid + i) % ARRAY_SIZE(g->tasks)];

		if (t->tid == tid || !t->tid) {
			t->tid = tid;
			return t;
		}
	}
	return &g->tasks[0];	/* full: shared (indentation only) */
}

/* Is func -g's function?  By name, once: the record's address is the
 * hooked call site, which is past the function's start where the kernel
 * has an endbr64 before it (x86 IBT). */
static bool is_root(struct graph *g, uint64_t func)
{
	uint64_t off;
	const char *mod, *name;

	if (!g->root)
		return false;
	if (g->root_ip)
		return func == g->root_ip;
	name = g->ks ? ksyms_at(g->ks, func, &off, &mod) : NULL;
	if (!name || strcmp(name, g->root))
		return false;
	g->root_ip = func;
	return true;
}

/* Whether a record at depth of tid's is printed, and its indentation. */
static bool shown(struct graph *g, int tid, int depth, int *indent)
{
	struct gtask *t = task(g, tid);

	if (!g->root) {
		*indent = depth;
		return !g->max_depth || depth < g->max_depth;
	}
	if (!t->inside)
		return false;
	*indent = depth - t->base;
	return *indent >= 0 && (!g->max_depth || *indent < g->max_depth);
}

static void line(int cpu, const char *dur, int indent, const char *text)
{
	printf("%3d) %-14s |  %*s%s\n", cpu, dur, 2 * indent, "", text);
}

static void flush_held(struct graph *g, int cpu)
{
	struct held *h = &g->held[cpu];
	char b[64], text[300];
	int indent;

	if (!h->on)
		return;
	h->on = false;
	if (!shown(g, h->pid, h->depth, &indent))
		return;
	snprintf(text, sizeof(text), "%s() {", sym(g, h->func, b, sizeof(b)));
	line(cpu, "", indent, text);
}

static int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
{
	struct graph *g = arg;
	int cpu = rec->cpu < g->ncpu ? rec->cpu : 0, pid = tep_data_pid(e->tep, rec);
	uint64_t func;
	char b[64], d[32], text[300];
	int depth, indent;

	if (v->ev->id == g->entry_id && g->slower)
		return 0;	/* an exit carries its own calltime */
	if (v->ev->id == g->entry_id) {
		func = num(g->en_func, rec);
		depth = (int)num(g->en_depth, rec);
		if (is_root(g, func)) {
			struct gtask *t = task(g, pid);

			if (!t->inside++)
				t->base = depth;
		}
		flush_held(g, cpu);
		g->held[cpu] = (struct held){ .on = true, .func = func, .ts = rec->ts,
					      .depth = depth, .pid = pid };
		return 0;
	}
	func = num(g->ex_func, rec);
	depth = (int)num(g->ex_depth, rec);
	uint64_t ns = num(g->rettime, rec) - num(g->calltime, rec);

	if (g->slower) {
		if (ns >= g->min_ns) {
			duration(d, sizeof(d), ns);
			printf("%3d) %16s-%-7d %s |  } /* %s */\n", rec->cpu, engine_comm(e, pid),
			       pid, d, sym(g, func, b, sizeof(b)));
		}
		return 0;
	}
	struct held *h = &g->held[cpu];
	bool leaf = h->on && h->func == func && h->depth == depth && h->pid == pid;

	if (!leaf)
		flush_held(g, cpu);
	h->on = false;
	duration(d, sizeof(d), ns);
	if (shown(g, pid, depth, &indent)) {
		if (leaf)
			snprintf(text, sizeof(text), "%s();", sym(g, func, b, sizeof(b)));
		else
			snprintf(text, sizeof(text), "} /* %s */", sym(g, func, b, sizeof(b)));
		line(rec->cpu, d, indent, text);
	}
	if (is_root(g, func)) {
		struct gtask *t = task(g, pid);

		if (t->inside)
			t->inside--;
	}
	return 0;
}

static int on_tick(struct engine *e, uint64_t now, void *arg)
{
	(void)e, (void)now, (void)arg;
	fflush(stdout);
	return 0;
}

static int run(bool slower, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "graph", required_argument, NULL, 'g' },
		{ "max-depth", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "max-funcs", required_argument, NULL, 'M' },
		{ "explain", no_argument, NULL, 'E' },
		{ "global-tracer", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = slower ? "funcslower" : "graph";
	struct engine_opts o = { 0 };
	struct engine e = { 0 };
	struct graph g = { .slower = slower };
	struct eng_event *en, *ex;
	char filter[4096] = "", *words[2] = { NULL, NULL }, *end;
	size_t max = 0, used = 0;
	int ch, ret, nwords = 0;

	while ((ch = cmd_getopt(cmd, argc, argv, slower ? "-d:p:Eh" : "-g:m:d:p:Eh",
				longopts)) != -1) {
		switch (ch) {
		case 1:
			if (slower) {
				if (nwords == 2)
					return cmd_usage_error(cmd, "unexpected argument '%s'", optarg);
				words[nwords++] = optarg;
				continue;
			}
			if ((ret = cmd_fn_pattern(cmd, optarg, filter, sizeof(filter), &used)) >= 0)
				return ret;
			break;
		case 'g':
			g.root = optarg;
			break;
		case 'm':
			g.max_depth = (int)strtol(optarg, &end, 10);
			if (*end || g.max_depth <= 0)
				return cmd_usage_error(cmd, "bad --max-depth '%s'", optarg);
			break;
		case 'h':
			fputs(slower ? funcslower_usage : graph_usage, stdout);
			return FTR_EXIT_OK;
		default:
			if ((ret = cmd_fn_opt(cmd, ch, optarg, &o, &max)) >= 0)
				return ret;
		}
	}
	o.cmdv = cmd_command_args(argc, argv);
	if (slower) {
		double us;

		if (nwords != 2)
			return cmd_usage_error(cmd, "FUNC and USECS are needed: ftr funcslower "
					       "vfs_read 100");
		us = strtod(words[1], &end);
		if (*end || us < 0)
			return cmd_usage_error(cmd, "bad USECS '%s'", words[1]);
		g.min_ns = (uint64_t)(us * 1000);
		snprintf(filter, sizeof(filter), "%s", words[0]);
		used = strlen(filter);
	}
	if (g.root && (strpbrk(g.root, " *?[") || used + strlen(g.root) + 2 > sizeof(filter)))
		return cmd_usage_error(cmd, "bad -g '%s': one function", g.root);
	if (g.root)
		used += snprintf(filter + used, sizeof(filter) - used, "%s%s", used ? " " : "",
				 g.root);
	if (!used)
		return cmd_usage_error(cmd, "a PATTERN or -g FUNC is needed");
	if (o.pid && o.cmdv)
		return cmd_usage_error(cmd, "-p and -- CMD exclude each other");

	ret = FTR_EXIT_FAIL;
	if (engine_open(&e, &o) < 0 || engine_add_graph(&e, filter, max, &en, &ex) < 0 ||
	    engine_prepare(&e) < 0)
		goto out;
	if (o.explain) {
		ret = FTR_EXIT_OK;
		goto out;
	}
	g.entry_id = en->ev->id;
	g.exit_id = ex->ev->id;
	g.en_func = tep_find_field(en->ev, "func");
	g.en_depth = tep_find_field(en->ev, "depth");
	g.ex_func = tep_find_field(ex->ev, "func");
	g.ex_depth = tep_find_field(ex->ev, "depth");
	g.calltime = tep_find_field(ex->ev, "calltime");
	g.rettime = tep_find_field(ex->ev, "rettime");
	if (!g.en_func || !g.ex_func || !g.calltime || !g.rettime) {
		ftr_err("ftrace:funcgraph_exit: no calltime/rettime");
		goto out;
	}
	if (ksyms_load(NULL, &g.ks) < 0)
		g.ks = NULL;
	g.ncpu = 1024;
	g.held = calloc(g.ncpu, sizeof(*g.held));
	if (!g.held)
		goto out;
	fprintf(stderr, "Tracing \"%s\" (%zu functions)...\n", filter, e.fn_count);
	if (!slower)
		printf(" CPU) DURATION       |  FUNCTION CALLS\n");
	if (engine_run(&e, on_event, NULL, on_tick, 200000000, &g) < 0)
		goto out;
	for (int i = 0; i < g.ncpu && !slower; i++)
		flush_held(&g, i);
	fflush(stdout);
	engine_summary(&e, ftr_verbose > 0);
	ret = FTR_EXIT_OK;
out:
	engine_close(&e);
	ksyms_free(g.ks);
	free(g.held);
	return ret;
}

int cmd_graph(int argc, char **argv)
{
	return run(false, argc, argv);
}

int cmd_funcslower(int argc, char **argv)
{
	return run(true, argc, argv);
}
