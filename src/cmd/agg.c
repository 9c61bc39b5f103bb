// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr count and ftr hist: "how often, and to whom" and "what is the
 * distribution".  Both are sugar: they write a program in ftr's language
 * and run it, so that they get the same planner (hist triggers where the
 * kernel has them, the raw stream where it has not) and the same printing.
 * --explain shows the program, the plan and the tracefs writes.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "lang/maps/agg.h"
#include "cmd/cmd.h"
#include "cmd/trace.h"
#include "kernel/engine.h"
#include "ftr.h"
#include "filter/expr.h"
#include "filter/filters.h"
#include "lang/interp.h"
#include "lang/lang.h"

static const char count_usage[] =
	"usage: ftr count EVENT [EVENT...] [-k KEY,...] [-v FIELD] [options] [-- CMD]\n\n"
	"Count events, by key.  KEY is comm, pid, tid, cpu, probe (the event's name),\n"
	"kstack (the kernel stack; also stacktrace) or a field of the event; with\n"
	"several events the default key is probe.  A field holding a kernel address\n"
	"shows as its function with FIELD.sym, as function+offset with\n"
	"FIELD.sym-offset; FIELD.hex shows a number in hex.\n";

static const char hist_usage[] =
	"usage: ftr hist EVENT [EVENT...] -k FIELD[.log2|.linear=STEP[/MAX]][,KEY...] [options]\n\n"
	"The distribution of a field: a power-of-2 histogram (.log2, the default) or a\n"
	"linear one (.linear=STEP, buckets STEP wide up to MAX, by default 20 buckets),\n"
	"for each value of the other keys (comm, pid, tid, cpu, probe, kstack, a field,\n"
	"and FIELD.sym, FIELD.sym-offset, FIELD.hex as for ftr count;\n"
	"common_pid.execname is comm).\n";

static const char common_usage[] =
	"\n  -k, --keys KEYS       what to group (and for hist, what to bucket) by\n"
	"  -v, --value FIELD     also sum FIELD for each key\n"
	"  -f, --filter EXPR     the kernel's filter syntax: 'fd == 1 && count > 0'\n"
	"  -p, --pid PID         only this process and what it forks\n"
	"  -d, --duration TIME   stop after TIME (5, 5s, 200ms)\n"
	"      --input FILE      over a recording (ftr record, trace-cmd), not live\n"
	"  -i, --interval TIME   print (and clear) every TIME\n"
	"      --cumulative      with -i: do not clear between prints\n"
	"      --top N           only the N largest entries\n"
	"      --size N          at most N entries per table (default 2048, like the\n"
	"                        kernel's hist triggers); more are counted as dropped\n"
	"  -w, --where W         auto (the kernel when it can), kernel, or user\n"
	"  -s, --sort KEYS       print order: count, value, key or a key's name, each\n"
	"                        .asc (the default) or .desc; comma-separated\n"
	"  -j, --json            JSON instead of tables\n"
	"      --serve ADDR:PORT answer GET /metrics with the table, Prometheus's\n"
	"                        format (:PORT is 127.0.0.1:PORT)\n"
	"      --prom-file FILE  write it there in that format, atomically, every -i\n"
	"                        (default 10s), for node_exporter's textfile collector\n"
	"  -E, --explain         print the program, the plan and the tracefs writes\n"
	"  -q, --quiet           no 'Attaching N probes...' line at start (on a terminal)\n"
	"  -h, --help            this help\n\n"
	"Without -d, the command, or -p's process ending, Ctrl-C ends the run and\n"
	"prints the result.\n";

struct buf {
	char s[8192];
	size_t n;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	b->n += vsnprintf(b->s + b->n, b->n < sizeof(b->s) ? sizeof(b->s) - b->n : 0, fmt, ap);
	va_end(ap);
}

static bool is_field_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* One key of -k, as an expression of the language. */
static int key_expr(const char *cmd, const char *k, struct buf *out)
{
	static const char *const builtins[] = { "comm", "pid", "tid", "cpu", "probe" };
	char name[128];
	const char *dot = strchr(k, '.');

	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - k) : (int)strlen(k), k);
	if (dot && !strcmp(dot, ".execname")) {
		if (strcmp(name, "common_pid")) {
			cmd_usage_error(cmd, "'.execname' applies to common_pid (it gives comm)");
			return -EINVAL;
		}
		add(out, "comm");
		return 0;
	}
	if (dot && strcmp(dot, ".hex") && strcmp(dot, ".sym") && strcmp(dot, ".sym-offset")) {
		cmd_usage_error(cmd, "unknown modifier '%s' in '%s' (.hex, .sym, .sym-offset, "
				"and common_pid.execname)", dot, k);
		return -EINVAL;
	}
	/* The kernel's spellings too: keys=stacktrace / common_stacktrace. */
	if (!strcmp(name, "kstack") || !strcmp(name, "stacktrace") ||
	    !strcmp(name, "common_stacktrace")) {
		if (dot) {
			cmd_usage_error(cmd, "'%s' applies to a field of the event, not to %s", dot,
					name);
			return -EINVAL;
		}
		add(out, "kstack");
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++)
		if (!strcmp(name, builtins[i])) {
			if (dot) {
				cmd_usage_error(cmd, "'%s' applies to a field of the event, not to %s",
						dot, name);
				return -EINVAL;
			}
			add(out, "%s", name);
			return 0;
		}
	if (!is_field_name(name)) {
		cmd_usage_error(cmd, "bad key '%s'", k);
		return -EINVAL;
	}
	/* the kernel's hist modifiers, as the language's functions */
	add(out, "%sargs.%s%s", !dot ? "" : !strcmp(dot, ".hex") ? "hex(" :
	    !strcmp(dot, ".sym") ? "ksym(" : "ksymoff(", name, dot ? ")" : "");
	return 0;
}

/* What the command line of count/hist said; agg_parse_opts fills it. */
struct agg_cli {
	bool hist;
	const char *cmd;
	struct run_opts o;
	char *evs[64];
	int nev;
	const char *keyarg, *value, *sortarg;
	uint64_t interval;
	bool cumulative;
};

/* Options and their checks.  Returns -1 to go on, else the exit code. */
static int agg_parse_opts(struct agg_cli *a, int argc, char **argv)
{
	enum { OPT_CUMUL = 1000, OPT_TOP, OPT_SIZE, OPT_INPUT, OPT_SERVE, OPT_PROM_FILE };
	static const struct option longopts[] = {
		{ "keys", required_argument, NULL, 'k' },
		{ "value", required_argument, NULL, 'v' },
		{ "filter", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "cumulative", no_argument, NULL, OPT_CUMUL },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "where", required_argument, NULL, 'w' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "explain", no_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "serve", required_argument, NULL, OPT_SERVE },
		{ "prom-file", required_argument, NULL, OPT_PROM_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd = a->cmd;
	struct run_opts *o = &a->o;
	uint64_t v;
	int c;

	/* '-': events come back in order as option 1; "--" ends them. */
	while ((c = cmd_getopt(cmd, argc, argv, "-k:v:f:p:d:i:w:s:jEqh", longopts)) != -1) {
		switch (c) {
		case 1:
			if (a->nev == (int)ARRAY_SIZE(a->evs))
				return cmd_usage_error(cmd, "too many events");
			a->evs[a->nev++] = optarg;
			break;
		case 'k':
			a->keyarg = optarg;
			break;
		case 'v':
			if (!is_field_name(optarg))
				return cmd_usage_error(cmd, "bad value field '%s'", optarg);
			a->value = optarg;
			break;
		case 'f':
			o->filter = optarg;
			break;
		case 'p': {
			int ret = cmd_pid_opt(cmd, optarg, &o->eng.pid);

			if (ret >= 0)
				return ret;
			break;
		}
		case 'd':
			if (parse_duration_ns(optarg, &o->eng.duration_ns) < 0 || !o->eng.duration_ns)
				return cmd_usage_error(cmd, "bad duration '%s' (e.g. 5, 5s, 200ms)",
						       optarg);
			break;
		case 'i':
			if (parse_duration_ns(optarg, &a->interval) < 0 || a->interval < 1000000)
				return cmd_usage_error(cmd, "bad interval '%s' (at least 1ms)", optarg);
			break;
		case OPT_INPUT:
			o->input = optarg;
			break;
		case OPT_CUMUL:
			a->cumulative = true;
			break;
		case OPT_TOP:
			if (parse_u64(optarg, &v) < 0 || !v || v > 1000000)
				return cmd_usage_error(cmd, "bad --top '%s'", optarg);
			o->top = (uint32_t)v;
			break;
		case OPT_SIZE:
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > (1u << 22))
				return cmd_usage_error(cmd, "bad --size '%s' (1 to 4194304)", optarg);
			o->map_size = (uint32_t)v;
			break;
		case 'w':
			if (!strcmp(optarg, "auto"))
				o->where = WHERE_AUTO;
			else if (!strcmp(optarg, "kernel"))
				o->where = WHERE_KERNEL;
			else if (!strcmp(optarg, "user"))
				o->where = WHERE_USER;
			else
				return cmd_usage_error(cmd, "--where takes auto, kernel or user");
			break;
		case 's':
			a->sortarg = optarg;
			break;
		case 'j':
			o->mode = OUT_JSON;
			break;
		case 'E':
			o->eng.explain = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_SERVE:
		case OPT_PROM_FILE: {
			int ret = cmd_metrics_opt(cmd, c == OPT_SERVE ? 's' : 'f', optarg, o);

			if (ret)
				return ret;
			break;
		}
		case 'h':
			fputs(a->hist ? hist_usage : count_usage, stdout);
			fputs(common_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind < argc)
		o->eng.cmdv = argv + optind;
	if (!a->nev)
		return cmd_usage_error(cmd, "no event given (see 'ftr list')");
	if (o->eng.pid && o->eng.cmdv)
		return cmd_usage_error(cmd, "-p and a command exclude each other");
	if (a->hist && !a->keyarg)
		return cmd_usage_error(cmd, "which field? -k FIELD[.log2|.linear=STEP]");
	if (a->cumulative && !a->interval)
		return cmd_usage_error(cmd, "--cumulative goes with -i");
	/* -i prints (and clears) the table and rewrites the file: the
	 * counters in the file carry what the clears removed. */
	o->prom_interval_ns = o->prom_file ? a->interval : 0;
	return -1;
}

/*
 * The program the command line stands for, into prog; --sort's order into
 * *sort (and a->o.sort).  Returns -1 to go on, else the exit code.
 */
static int agg_build_program(struct agg_cli *a, const char *pred, struct buf *prog,
			     struct agg_sort *sort)
{
	/* --sort's names of the keys: each key's field (or builtin) name */
	const char *keynames[AGG_MAX_KEYS];
	char keyname_buf[AGG_MAX_KEYS][128];
	int nkeynames = 0;
	const char *cmd = a->cmd, *hkey = NULL;
	struct buf keys = { .n = 0 }, probes = { .n = 0 };
	char hfield[128] = "", hmod[64] = "";

	for (int i = 0; i < a->nev; i++) {
		const char *e = a->evs[i];

		if (engine_is_probe_spec(e)) {
			add(&probes, "%s%s", i ? ", " : "", e);
			continue;
		}
		/* SYSTEM:EVENT, t:..., tracepoint:... all become tracepoint:... */
		if (str_has_prefix(e, "tracepoint:"))
			e += strlen("tracepoint:");
		else if (str_has_prefix(e, "t:"))
			e += 2;
		if (!strchr(e, ':'))
			return cmd_usage_error(cmd, "'%s': name an event as SYSTEM:EVENT",
					       a->evs[i]);
		add(&probes, "%stracepoint:%s", i ? ", " : "", e);
	}

	/* Keys; for hist, the one with .log2/.linear (or the first) is bucketed. */
	if (a->keyarg) {
		char *copy = strdup(a->keyarg), *save = NULL;
		bool first = true;

		for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
			char *dot = strchr(k, '.');

			if (a->hist && !hkey && (!dot || !strcmp(dot, ".log2") ||
						 str_has_prefix(dot, ".linear="))) {
				hkey = k;
				snprintf(hfield, sizeof(hfield), "%.*s",
					 dot ? (int)(dot - k) : (int)strlen(k), k);
				snprintf(hmod, sizeof(hmod), "%s", dot ? dot : ".log2");
				if (!is_field_name(hfield)) {
					free(copy);
					return cmd_usage_error(cmd, "bad field '%s'", k);
				}
				continue;
			}
			add(&keys, "%s", first ? "" : ", ");
			first = false;
			if (key_expr(cmd, k, &keys) < 0) {
				free(copy);
				return FTR_EXIT_USAGE;
			}
			if (nkeynames < AGG_MAX_KEYS) {
				/* common_pid.execname is comm */
				snprintf(keyname_buf[nkeynames], sizeof(keyname_buf[0]), "%.*s",
					 dot && strcmp(dot, ".execname") ? (int)(dot - k) :
					 (int)strlen(k), dot && !strcmp(dot, ".execname") ? "comm" : k);
				keynames[nkeynames] = keyname_buf[nkeynames];
				nkeynames++;
			}
		}
		free(copy);
	} else if (a->nev > 1) {
		add(&keys, "probe");
		keynames[nkeynames++] = "probe";
	}
	if (a->sortarg) {
		char serr[160];

		if (agg_sort_parse(a->sortarg, keynames, nkeynames, sort, serr, sizeof(serr)) < 0)
			return cmd_usage_error(cmd, "--sort: %s", serr);
		a->o.sort = sort;
	}

	/* Every key had a modifier of its own (count.sym): none to bucket
	 * (it was "bad '.linear='", of a .linear= nobody wrote). */
	if (a->hist && !hmod[0])
		return cmd_usage_error(cmd, "-k '%s': no key to bucket: a histogram needs a field "
				       "as FIELD, FIELD.log2 or FIELD.linear=STEP ('.sym', '.hex' "
				       "and the like make keys beside it)", a->keyarg ? a->keyarg : "");
	add(prog, "%s%s%s%s {", probes.s, pred ? " /" : "", pred ? pred : "", pred ? "/" : "");
	if (a->hist) {
		char *slash;
		uint64_t step, max = 0;

		if (!strcmp(hmod, ".log2")) {
			add(prog, " @%s%s%s%s = hist(args.%s);", hfield, keys.n ? "[" : "", keys.s,
			    keys.n ? "]" : "", hfield);
		} else {
			slash = strchr(hmod + 8, '/');
			if (slash)
				*slash = '\0';
			if (parse_u64(hmod + 8, &step) < 0 || !step ||
			    (slash && (parse_u64(slash + 1, &max) < 0 || max <= step)))
				return cmd_usage_error(cmd, "bad '.linear=' (.linear=STEP or "
						       ".linear=STEP/MAX)");
			if (!max)
				max = step * 20;
			add(prog, " @%s%s%s%s = lhist(args.%s, 0, %llu, %llu);", hfield,
			    keys.n ? "[" : "", keys.s, keys.n ? "]" : "", hfield,
			    (unsigned long long)max, (unsigned long long)step);
		}
	} else {
		add(prog, " @%s%s%s = count();", keys.n ? "[" : "", keys.s, keys.n ? "]" : "");
	}
	if (a->value)
		add(prog, " @sum_%s%s%s%s = sum(args.%s);", a->value, keys.n ? "[" : "", keys.s,
		    keys.n ? "]" : "", a->value);
	add(prog, " }");
	if (a->interval) {
		char m1[160], m2[160] = "";

		snprintf(m1, sizeof(m1), "@%s", a->hist ? hfield : "");
		if (a->value)
			snprintf(m2, sizeof(m2), "@sum_%s", a->value);
		add(prog, "\ninterval:ms:%llu { print(%s);",
		    (unsigned long long)(a->interval / 1000000), m1);
		if (a->value)
			add(prog, " print(%s);", m2);
		if (!a->cumulative) {
			add(prog, " clear(%s);", m1);
			if (a->value)
				add(prog, " clear(%s);", m2);
		}
		add(prog, " }");
	}
	if (prog->n >= sizeof(prog->s))
		return cmd_usage_error(cmd, "too many events or keys");
	return -1;
}

struct fields_of {
	const struct agg_cli *a;
	const char *tdir;
	bool unknown;		/* an event's fields could not be read */
};

/* Has one of the command's events a field of this name?  A probe spec's
 * own (NAME=...), a tracepoint's from its format. */
static bool event_has_field(const char *name, void *arg)
{
	struct fields_of *fo = arg;
	char path[PATH_MAX], pat[160], *text, *p;
	bool has = false;

	for (int i = 0; i < fo->a->nev && !has; i++) {
		const char *e = fo->a->evs[i];

		snprintf(pat, sizeof(pat), "%s=", name);
		if (engine_is_probe_spec(e)) {
			for (p = strstr(e, pat); p && !has; p = strstr(p + 1, pat))
				has = p > e && (p[-1] == ' ' || p[-1] == '\t');
			continue;
		}
		if (str_has_prefix(e, "tracepoint:"))
			e += strlen("tracepoint:");
		else if (str_has_prefix(e, "t:"))
			e += 2;
		snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", fo->tdir ? fo->tdir : "",
			 (int)strcspn(e, ":"), e, strchr(e, ':') ? strchr(e, ':') + 1 : "");
		text = fo->tdir && !strchr(e, '*') ? read_file(path, NULL) : NULL;
		if (!text) {
			fo->unknown = true;
			return true;
		}
		snprintf(pat, sizeof(pat), " %s;", name);
		has = strstr(text, pat) != NULL;
		snprintf(pat, sizeof(pat), " %s[", name);
		has |= strstr(text, pat) != NULL;
		free(text);
	}
	return has;
}

/*
 * -f FILTER as the program's predicate, so that the command is planned as
 * the program it stands for (the same pushdowns, the same -E plan).  A
 * filter the language says otherwise (~ patterns, arithmetic), or over a
 * recording, stays the command's filter (run_opts.filter), applied as
 * before.  The predicate (malloc'd) or NULL.
 */
static char *filter_as_pred(struct agg_cli *a)
{
	struct fields_of fo = { .a = a, .tdir = tracefs_tracing_dir() };
	char buf[4096], why[256];
	struct expr_err ee;
	struct expr *e;
	int r;

	if (!a->o.filter || a->o.input)
		return NULL;
	e = expr_parse(a->o.filter, &ee);
	r = e ? expr_to_lang(e, event_has_field, &fo, buf, sizeof(buf), why, sizeof(why)) : -1;
	expr_free(e);
	if (r || fo.unknown)
		return NULL;
	return strdup(buf);
}

static int run_agg(bool hist, int argc, char **argv)
{
	struct agg_cli a = { .hist = hist, .cmd = hist ? "hist" : "count",
			     .o = { .mode = OUT_TEXT } };
	struct buf prog = { .n = 0 };
	struct agg_sort sort;
	char *filter_owned = NULL, *pred = NULL;
	struct program p;
	struct lang_err err;
	int ret;

	ret = agg_parse_opts(&a, argc, argv);
	if (ret >= 0)
		return ret;
	if (a.o.filter) {
		char ferr[256];

		/* @name: named filters, expanded once for every path. */
		filter_owned = filters_expand(a.o.filter, false, ferr, sizeof(ferr));
		if (!filter_owned) {
			ftr_err("%s", ferr);
			return FTR_EXIT_FAIL;
		}
		a.o.filter = filter_owned;
		pred = filter_as_pred(&a);
		if (pred)
			a.o.filter = NULL;
	}
	ret = agg_build_program(&a, pred, &prog, &sort);
	if (ret >= 0) {
		free(pred);
		free(filter_owned);
		return ret;
	}
	if (a.o.eng.explain)
		printf("# program\n%s\n", prog.s);
	a.o.src = prog.s;
	if (lang_parse(prog.s, &p, &err) < 0) {
		/* Only a bad field or event name can get here. */
		lang_perror(NULL, prog.s, &err);
		free(pred);
		free(filter_owned);
		return FTR_EXIT_FAIL;
	}
	ret = lang_run(&p, &a.o);
	lang_free(&p);
	free(pred);
	free(filter_owned);
	return ret;
}

int cmd_count(int argc, char **argv)
{
	return run_agg(false, argc, argv);
}

int cmd_hist(int argc, char **argv)
{
	return run_agg(true, argc, argv);
}
