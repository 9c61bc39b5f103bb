// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr funccount: calls per kernel function, exact, from ftrace's function
 * tracer in ftr's own instance; perf-tools' funccount (which needs
 * CONFIG_FUNCTION_PROFILER and the top-level tracer) with its options and
 * its table.  And ftr functrace: the calls as they happen, each with its
 * caller, perf-tools' functrace.
 *
 * Every ftrace:function record is counted in user space (ftrace's own
 * events take no filter and no hist trigger: trace_export.c), so a lost
 * record is a lost count: the run says how many, and exits 1 with
 * --fail-on-lost.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "cmd/cmd.h"
#include "kernel/engine.h"
#include "kernel/ftrace.h"
#include "ftr.h"
#include "report/sym.h"

static const char funccount_usage[] =
	"usage: ftr funccount [options] PATTERN... [-- CMD]\n\n"
	"Exact calls of the kernel functions PATTERN matches, from ftrace's function\n"
	"tracer (perf-tools' funccount; man ftr-funccount).\n\n"
	"  -d TIME  stop after TIME     -i TIME  a table every TIME   -t N  the top N\n"
	"  -p PID   only this process   -E       explain\n"
	"  --max-funcs N (1000)  --fail-on-lost  -h\n";

static const char functrace_usage[] =
	"usage: ftr functrace [options] PATTERN... [-- CMD]\n\n"
	"Each call of the kernel functions PATTERN matches, with its caller, from\n"
	"ftrace's function tracer (perf-tools' functrace; man ftr-functrace).\n\n"
	"  -d TIME  -p PID  --max-funcs N (1000)  --fail-on-lost  -E  -h\n";

struct fcount {
	uint64_t ip, n;
};

struct fc {
	bool trace;		/* functrace */
	struct ftrace_fn_fmt fmt;
	struct fcount *tab;	/* open addressing on ip, size a power of two */
	size_t cap, used;
	uint64_t interval_ns, next_ns;
	unsigned top;
	bool fail_on_lost;
	struct ksyms *ks;
	struct engine *e;
};

static struct fcount *slot(struct fc *c, uint64_t ip)
{
	size_t i = (ip * 0x9E3779B97F4A7C15ull) >> 32;

	for (;; i++) {
		struct fcount *s = &c->tab[i & (c->cap - 1)];

		if (!s->ip || s->ip == ip)
			return s;
	}
}

static int count_ip(struct fc *c, uint64_t ip)
{
	struct fcount *s;

	if (2 * (c->used + 1) > c->cap) {
		struct fcount *old = c->tab;
		size_t n = c->cap;

		c->cap = n ? 2 * n : 1024;
		c->tab = calloc(c->cap, sizeof(*c->tab));
		if (!c->tab)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			if (old[i].ip)
				*slot(c, old[i].ip) = old[i];
		free(old);
	}
	s = slot(c, ip);
	if (!s->ip) {
		s->ip = ip;
		c->used++;
	}
	s->n++;
	return 0;
}

static const char *fname(struct fc *c, uint64_t ip, char *buf, size_t len)
{
	uint64_t off;
	const char *mod, *name = c->ks ? ksyms_at(c->ks, ip, &off, &mod) : NULL;

	if (!name) {
		snprintf(buf, len, "0x%" PRIx64, ip);
		return buf;
	}
	if (mod)
		snprintf(buf, len, "%s [%s]", name, mod);
	else
		snprintf(buf, len, "%s", name);
	return buf;
}

static int by_count(const void *a, const void *b)
{
	const struct fcount *x = a, *y = b;

	/* Ascending, as perf-tools sorts (sort -n -k2): the top at the end. */
	return x->n < y->n ? -1 : x->n > y->n ? 1 : x->ip < y->ip ? -1 : x->ip > y->ip;
}

static void print_table(struct fc *c)
{
	struct fcount *v = malloc((c->used + 1) * sizeof(*v));
	size_t n = 0, from = 0;
	char name[256];

	if (!v)
		return;
	for (size_t i = 0; i < c->cap; i++)
		if (c->tab[i].ip)
			v[n++] = c->tab[i];
	qsort(v, n, sizeof(*v), by_count);
	if (c->top && n > c->top)
		from = n - c->top;
	printf("\n%-30s %8s\n", "FUNC", "COUNT");
	for (size_t i = from; i < n; i++)
		printf("%-30s %8" PRIu64 "\n", fname(c, v[i].ip, name, sizeof(name)), v[i].n);
	fflush(stdout);
	free(v);
	memset(c->tab, 0, c->cap * sizeof(*c->tab));
	c->used = 0;
}

static int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg)
{
	struct fc *c = arg;
	uint64_t ip, parent;
	char a[256], b[256];

	(void)v;
	if (ftrace_fn_decode(&c->fmt, rec, &ip, &parent))
		return 0;
	if (!c->trace)
		return count_ip(c, ip);
	printf("%16s-%-7d [%03d] %llu.%06llu: %s <-%s\n", engine_comm(e, tep_data_pid(e->tep, rec)),
	       tep_data_pid(e->tep, rec), rec->cpu, rec->ts / 1000000000ull,
	       rec->ts % 1000000000ull / 1000, fname(c, ip, a, sizeof(a)),
	       fname(c, parent, b, sizeof(b)));
	return 0;
}

static int on_tick(struct engine *e, uint64_t now, void *arg)
{
	struct fc *c = arg;

	(void)e;
	if (c->trace || !c->interval_ns) {
		fflush(stdout);
		return 0;
	}
	if (!c->next_ns)
		c->next_ns = now + c->interval_ns;
	if (now >= c->next_ns) {
		print_table(c);
		c->next_ns += c->interval_ns;
	}
	return 0;
}

static int run(bool trace, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "top", required_argument, NULL, 't' },
		{ "pid", required_argument, NULL, 'p' },
		{ "max-funcs", required_argument, NULL, 'M' },
		{ "fail-on-lost", no_argument, NULL, 'L' },
		{ "explain", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = trace ? "functrace" : "funccount";
	struct engine_opts o = { 0 };
	struct engine e = { 0 };
	struct fc c = { .trace = trace, .e = &e };
	char filter[4096] = "", *end;
	struct eng_event *v;
	size_t max = 0, used = 0;
	int ch, ret;

	/* PATTERNs and options in any order (ftr funccount 'vfs_*' -d 5), up
	 * to a "--" and the command: '-' returns the PATTERNs in order. */
	while ((ch = cmd_getopt(cmd, argc, argv, trace ? "-d:p:Eh" : "-d:i:t:p:Eh",
				longopts)) != -1) {
		if (ch == 1) {
			if ((ret = cmd_fn_pattern(cmd, optarg, filter, sizeof(filter), &used)) >= 0)
				return ret;
			continue;
		}
		switch (ch) {
		case 'i':
			if (parse_duration_ns(optarg, &c.interval_ns) < 0 || !c.interval_ns)
				return cmd_usage_error(cmd, "bad interval '%s'", optarg);
			break;
		case 't':
			c.top = strtoul(optarg, &end, 10);
			if (*end || !c.top)
				return cmd_usage_error(cmd, "bad --top '%s': a count", optarg);
			break;
		case 'L':
			c.fail_on_lost = true;
			break;
		case 'h':
			fputs(trace ? functrace_usage : funccount_usage, stdout);
			return FTR_EXIT_OK;
		default:
			if ((ret = cmd_fn_opt(cmd, ch, optarg, &o, &max)) >= 0)
				return ret;
		}
	}
	o.cmdv = cmd_command_args(argc, argv);
	if (!used)
		return cmd_usage_error(cmd, "a PATTERN is needed: ftr %s 'vfs_*'", cmd);
	if (o.pid && o.cmdv)
		return cmd_usage_error(cmd, "-p and -- CMD exclude each other");

	ret = FTR_EXIT_FAIL;
	if (engine_open(&e, &o) < 0)
		goto out;
	if (engine_add_function(&e, filter, max, &v) < 0 || engine_prepare(&e) < 0)
		goto out;
	if (o.explain) {
		ret = FTR_EXIT_OK;
		goto out;
	}
	if (ftrace_fn_fmt(e.tep, v->ev->id, &c.fmt) < 0) {
		ftr_err("the format of 'ftrace:function' has no ip and parent_ip fields");
		goto out;
	}
	if (ksyms_load(NULL, &c.ks) < 0)
		c.ks = NULL;
	fprintf(stderr, "Tracing \"%s\" (%zu functions)... %s\n", filter, e.fn_count,
		o.cmdv ? "" : o.duration_ns ? "" : "Ctrl-C to end.");
	if (engine_run(&e, on_event, NULL, on_tick, c.interval_ns ? 100000000 : 200000000,
		       &c) < 0)
		goto out;
	if (!trace) {
		fprintf(stderr, "\nEnding tracing...\n");
		print_table(&c);
	}
	fflush(stdout);
	engine_summary(&e, ftr_verbose > 0);
	ret = c.fail_on_lost && engine_lost(&e, NULL) ? FTR_EXIT_FAIL : FTR_EXIT_OK;
out:
	engine_close(&e);
	ksyms_free(c.ks);
	free(c.tab);
	return ret;
}

int cmd_funccount(int argc, char **argv)
{
	return run(false, argc, argv);
}

int cmd_functrace(int argc, char **argv)
{
	return run(true, argc, argv);
}
