// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr -e PROGRAM, ftr run FILE|NAME, ftr run --list: the language's
 * commands.  A NAME is a recipe of the library in events/ (installed under
 * $(PREFIX)/share/ftr/events).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/maps/agg.h"
#include "cmd/cmd.h"
#include "lang/listing.h"
#include "lang/load.h"
#include "cmd/trace.h"
#include "kernel/evsel.h"
#include "kernel/features.h"
#include "ftr.h"
#include "filter/filters.h"
#include "lang/parse/ctypes.h"
#include "lang/interp.h"
#include "lang/lang.h"
#include "lang/plan/strfetch.h"

static const char run_usage[] =
	"usage: ftr -e 'PROGRAM' [options] [ARG...] [-- CMD [ARGS]]\n"
	"       ftr [run] FILE [options] [ARG...] [-- CMD [ARGS]]\n"
	"       ftr - [options] < FILE   (the program on standard input)\n"
	"       ftr run NAME [options]\n"
	"       ftr run --list\n"
	"       ftr -l[v] [PATTERN[,PATTERN...]|FILE] [-p PID]\n"
	"       ftr -l[v] -e PROGRAM\n\n"
	"Run a program in ftr's language (a bpftrace subset), e.g.\n"
	"  ftr -e 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'\n"
	"NAME is a recipe of ftr's library (see --list).  A FILE may start with a\n"
	"'#!' line: a tool whose first line is '#!/usr/bin/env ftr' runs when\n"
	"executed.  ARGs are the program's positional parameters $1, $2 ... ($# of\n"
	"them; str($1) is the text).\n\n"
	"  -e PROGRAM          the program text\n"
	"  -c, --cmd CMD       run CMD (split at blanks) and trace it (as -- CMD)\n"
	"  -p, --pid PID       only this process and what it forks (and uprobe:LIB:F\n"
	"                      finds LIB in its maps)\n"
	"  -d, --duration TIME stop after TIME (5, 5s, 200ms, 2m)\n"
	"  -i, --input FILE    run over a recording (ftr record, trace-cmd), not live\n"
	"  -o, --output FILE   write the program's output to FILE\n"
	"  -f, --format F      text (the default) or json: bpftrace's JSON lines\n"
	"  -j, --json          print maps as ftr's JSON (one object a map)\n"
	"  -B, --buffering M   output buffering: line (each line as printed), full\n"
	"                      (the default: written at least every second) or none\n"
	"  -q, --quiet         no 'Attaching N probes...' line at start (on a terminal),\n"
	"                      nor attached_probes line in -f json\n"
	"      --unsafe        allow system(), as bpftrace's --unsafe\n"
	"      --dry-run       set up and attach the probes, then stop: nothing runs, not\n"
	"                      even BEGIN (bpftrace's --dry-run)\n"
	"      --usdt-file-activation  accepted, as bpftrace's: ftr always raises a USDT\n"
	"                      probe's semaphore in every process of the file\n"
	"  -s, --sort KEYS     the maps' print order: count, value, key or keyN (from 1),\n"
	"                      each .asc (the default) or .desc; comma-separated\n"
	"  -w, --where W       aggregate in the kernel when it can (auto), always\n"
	"                      (kernel: fail when it cannot) or never (user); kprobe\n"
	"                      and kretprobe clauses on ftrace's function tracer and\n"
	"                      function_graph (ftrace) or on kprobe events (kprobe)\n"
	"      --global-tracer function_graph at the top level where instances have\n"
	"                      none (before 6.11): the system's one tracer, taken when\n"
	"                      idle and put back as found\n"
	"      --btf FILE      C types from this BTF file instead of the kernel's\n"
	"                      (pahole --btf_encode_detached; see ftr-language(7))\n"
	"      --force         no runaway guard for printf on hot probes\n"
	"      --hist-summary  ftr's line under each histogram (count, sum, mean,\n"
	"                      percentiles): by default only when stdout is a\n"
	"                      terminal, and always for a recipe NAME\n"
	"      --no-hist-summary  never that line\n"
	"      --no-warnings   print no warning (bpftrace's), warnf() included\n"
	"      --include FILE  accepted, as bpftrace's (a header that is nowhere is an\n"
	"                      error; ftr reads none: types are BTF and the program's)\n"
	"  -I DIR              where #include and --include look for headers\n"
	"      --probe-filter REGEX  only the probes (as written) REGEX matches, and\n"
	"                      begin and end\n"
	"  -k, --mode M, --traceable-functions FILE  bpftrace's: refused, saying why\n"
	"      --serve ADDR:PORT  answer GET /metrics with the maps, Prometheus's\n"
	"                      format (:PORT is 127.0.0.1:PORT); runs until stopped\n"
	"      --prom-file FILE  write the maps there in that format, atomically,\n"
	"                      every --interval (default 10s), for node_exporter\n"
	"      --interval TIME with --prom-file: how often it is rewritten\n"
	"  -E, --explain       print the plan and the tracefs writes, and exit\n"
	"      --emit-sh       print a sh script doing the in-kernel part (echo, cat)\n"
	"  -l [PATTERN]        list the probes (matching PATTERN, of FILE's or -e's\n"
	"                      program, of the files process -p maps) as bpftrace -l\n"
	"                      does: -l 'kprobe:vfs_*', -l '*sleep*', -lv 'struct file'\n"
	"                      (-v: fields, arguments, a type's definition)\n"
	"      --list          list the recipes (ftr --list: as -l)\n"
	"  -v, --verbose       say more\n"
	"  -h, --help          this help\n\n"
	"Maps print when the program ends: exit(), -d, the command ending, or\n"
	"Ctrl-C.  See ftr-language(7).\n";


/* The first comment line of a recipe: what it answers. */
static void recipe_summary(const char *path, char *buf, size_t len)
{
	char *text = read_file(path, NULL), *p;

	buf[0] = '\0';
	if (!text)
		return;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (str_has_prefix(p, "// ")) {
			snprintf(buf, len, "%.*s", (int)strcspn(p + 3, "\n"), p + 3);
			break;
		}
	}
	free(text);
}

static int list_recipes(void)
{
	char dirs[5][4096];
	int nd = data_dirs("events", dirs, 5), found = 0;

	for (int i = 0; i < nd && !found; i++) {
		struct dirent **ents;
		int n = scandir(dirs[i], &ents, NULL, alphasort);

		for (int j = 0; j < n; j++) {
			size_t l = strlen(ents[j]->d_name);

			if (l > 4 && !strcmp(ents[j]->d_name + l - 4, ".ftr")) {
				char *path, sum[200], *p;

				if (asprintf(&path, "%s/%s", dirs[i], ents[j]->d_name) < 0)
					break;
				recipe_summary(path, sum, sizeof(sum));
				free(path);
				/* The header says "NAME: what it answers". */
				p = sum;
				if (!strncmp(p, ents[j]->d_name, l - 4) && p[l - 4] == ':')
					p += l - 3 + (p[l - 3] == ' ');
				printf("%-14.*s %s\n", (int)(l - 4), ents[j]->d_name, p);
				found++;
			}
			free(ents[j]);
		}
		if (n >= 0)
			free(ents);
	}
	if (!found) {
		ftr_err("no recipes found (looked in $FTR_EVENTS, next to the binary, and %s/events)",
			FTR_DATADIR);
		return FTR_EXIT_FAIL;
	}
	return FTR_EXIT_OK;
}

/* -c "CMD ARGS": split at blanks, as bpftrace does (no quoting). */
static char **split_cmd(const char *cmd)
{
	char *copy = strdup(cmd), *save = NULL, **v;
	int n = 0;

	v = calloc(strlen(cmd) / 2 + 2, sizeof(*v));
	if (!copy || !v) {
		free(copy);
		free(v);
		return NULL;
	}
	for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
		v[n++] = t;
	if (!n) {
		free(copy);
		free(v);
		errno = EINVAL;
		return NULL;
	}
	return v;
}

int cmd_run(int argc, char **argv)
{
	enum { OPT_FORCE = 1000, OPT_EMIT_SH, OPT_SERVE, OPT_PROM_FILE, OPT_INTERVAL, OPT_UNSAFE,
	       OPT_USDT_FILE, OPT_DRY_RUN, OPT_BTF, OPT_CALL_GRAPH, OPT_HIST_SUMMARY,
	       OPT_NO_HIST_SUMMARY, OPT_GLOBAL_TRACER };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "cmd", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, 'f' },
		{ "buffering", required_argument, NULL, 'B' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "unsafe", no_argument, NULL, OPT_UNSAFE },
		{ "usdt-file-activation", no_argument, NULL, OPT_USDT_FILE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "explain", no_argument, NULL, 'E' },
		{ "emit-sh", no_argument, NULL, OPT_EMIT_SH },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "where", required_argument, NULL, 'w' },
		{ "sort", required_argument, NULL, 's' },
		{ "serve", required_argument, NULL, OPT_SERVE },
		{ "prom-file", required_argument, NULL, OPT_PROM_FILE },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
		{ "hist-summary", no_argument, NULL, OPT_HIST_SUMMARY },
		{ "no-warnings", no_argument, NULL, CMD_BT_NO_WARNINGS },
		{ "include", required_argument, NULL, CMD_BT_INCLUDE },
		{ "mode", required_argument, NULL, CMD_BT_MODE },
		{ "traceable-functions", required_argument, NULL, CMD_BT_TRACEABLE },
		{ "probe-filter", required_argument, NULL, CMD_BT_PROBE_FILTER },
		{ "no-hist-summary", no_argument, NULL, OPT_NO_HIST_SUMMARY },
		{ "global-tracer", no_argument, NULL, OPT_GLOBAL_TRACER },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { .mode = OUT_TEXT, .exit_lines = true };
	struct agg_sort sort;
	char serr[160];
	struct program prog;
	const char *text = NULL, *file = NULL, *outfile = NULL, *cmdline = NULL, *pfilter = NULL;
	char *owned = NULL, **params, **cmdv = NULL;
	int nparams = 0;
	bool list = false, probes = false;
	int c, ret, hist_summary = -1;	/* -1: on a terminal, and for a recipe */

	params = calloc(argc + 1, sizeof(*params));
	if (!params)
		return FTR_EXIT_FAIL;
	/* '-': operands come back in order as option 1: the FILE or NAME,
	 * then the program's positional parameters; "--" ends them and a
	 * command to trace follows. */
	while ((c = cmd_getopt("run", argc, argv, "-e:p:c:d:i:o:f:B:qjElhvw:s:kI:", longopts)) != -1) {
		switch (c) {
		case 1:
			if (!file && !text)
				file = optarg;
			else
				params[nparams++] = optarg;
			break;
		case 'v':
			ftr_verbose++;
			break;
		case 'w':
			if (!strcmp(optarg, "auto"))
				o.where = WHERE_AUTO;
			else if (!strcmp(optarg, "kernel"))
				o.where = WHERE_KERNEL;
			else if (!strcmp(optarg, "user"))
				o.where = WHERE_USER;
			else if (!strcmp(optarg, "ftrace") || !strcmp(optarg, "kprobe"))
				o.kbackend = optarg;
			else
				goto usage_where;
			break;
		case 'e':
			if (file) {
				/* ftr FILE -e ...: not a program file after all */
				params[nparams++] = (char *)file;
				file = NULL;
			}
			text = optarg;
			break;
		case 'i':
			o.input = optarg;
			break;
		case 'c':
			cmdline = optarg;
			break;
		case 'o':
			outfile = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				o.mode = OUT_BTJSON;
			else if (!strcmp(optarg, "text"))
				o.mode = OUT_TEXT;
			else {
				free(params);
				return cmd_usage_error("run", "-f takes text or json");
			}
			break;
		case 'B':
			if (!strcmp(optarg, "line"))
				o.buffering = RUN_BUF_LINE;
			else if (!strcmp(optarg, "full"))
				o.buffering = RUN_BUF_FULL;
			else if (!strcmp(optarg, "none"))
				o.buffering = RUN_BUF_NONE;
			else {
				free(params);
				return cmd_usage_error("run", "-B takes line, full or none");
			}
			break;
		case 'q':
			o.quiet = true;
			break;
		case OPT_UNSAFE:
			o.unsafe = true;
			break;
		case OPT_DRY_RUN:
			o.dry_run = true;
			break;
		case OPT_USDT_FILE:
			/* The kernel raises a USDT semaphore (the uprobe's
			 * reference counter) in every process that maps the
			 * file, running or to come: bpftrace's file activation. */
			break;
		case 'k':
		case 'I':
		case CMD_BT_NO_WARNINGS:
		case CMD_BT_INCLUDE:
		case CMD_BT_MODE:
		case CMD_BT_TRACEABLE:
			if ((ret = cmd_bt_option(c, optarg)) >= 0) {
				free(params);
				return ret;
			}
			break;
		case 'p':
			if ((ret = cmd_bt_pid_opt(optarg, &o.eng.pid)) >= 0) {
				free(params);
				return ret;
			}
			break;
		case 'd':
			if (parse_duration_ns(optarg, &o.eng.duration_ns) < 0 || !o.eng.duration_ns) {
				free(params);
				return cmd_usage_error("run", "bad duration '%s' (e.g. 5, 5s, 200ms)",
						       optarg);
			}
			break;
		case 'j':
			o.mode = OUT_JSON;
			break;
		case 's':
			if (agg_sort_parse(optarg, NULL, 0, &sort, serr, sizeof(serr)) < 0) {
				free(params);
				return cmd_usage_error("run", "--sort: %s", serr);
			}
			o.sort = &sort;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case CMD_BT_PROBE_FILTER:
			pfilter = optarg;
			break;
		case OPT_GLOBAL_TRACER:
			o.eng.global_tracer = true;
			break;
		case OPT_HIST_SUMMARY:
		case OPT_NO_HIST_SUMMARY:
			hist_summary = c == OPT_HIST_SUMMARY;
			break;
		case OPT_EMIT_SH:
			o.eng.emit_sh = true;
			break;
		case OPT_SERVE:
		case OPT_PROM_FILE:
		case OPT_INTERVAL:
			ret = cmd_metrics_opt("run", c == OPT_SERVE ? 's' : c == OPT_PROM_FILE ? 'f' :
					      'i', optarg, &o);
			if (ret)
				return free(params), ret;
			break;
		case OPT_CALL_GRAPH:
			/* profile's option, asked of a program: say what there is. */
			free(params);
			return cmd_usage_error("run", "--call-graph is ftr profile's: in a program, "
					       "ustack at tracepoints, kprobes and uprobes is walked by "
					       "frame pointers (a tracefs record carries no registers "
					       "and no stack copy to unwind by CFI), and in profile "
					       "clauses by CFI where this build has it, as ftr profile "
					       "--call-graph auto");
		case OPT_BTF:
			if (access(optarg, R_OK)) {
				ftr_err("--btf '%s': %s", optarg, strerror(errno));
				return free(params), FTR_EXIT_FAIL;
			}
			ctypes_set_btf_file(optarg);
			break;
		case 'E':
			o.eng.explain = true;
			break;
		case 'l':
			/* -l is bpftrace's (probes), --list ftr's (recipes) */
			list = true;
			probes = strcmp(argv[optind - 1], "--list") != 0;
			break;
		case 'h':
			free(params);
			fputs(run_usage, stdout);
			return FTR_EXIT_OK;
		default:
			free(params);
			return FTR_EXIT_USAGE;
		}
	}
	if (list) {
		free(params);
		if (text)
			return bt_list_program(NULL, text, ftr_verbose > 0, o.eng.pid);
		if (!probes && !file && !o.eng.pid)
			return list_recipes();
		return bt_list(file, ftr_verbose > 0, o.eng.pid);
	}
	if (optind < argc)
		o.eng.cmdv = argv + optind;
	if (o.eng.pid && o.eng.cmdv)
		return free(params), cmd_usage_error("run", "-p and a command exclude each other");
	if (o.eng.emit_sh && o.eng.cmdv)
		return free(params), cmd_usage_error("run", "--emit-sh cannot hold a command back before its "
				       "exec: trace it with -p PID");
	/* ftr run -i FILE 'PROGRAM': a program given where a file goes. */
	if (file && !text && strchr(file, '{')) {
		text = file;
		file = NULL;
	}
	if (o.input && (o.eng.pid || o.eng.cmdv || o.eng.duration_ns || o.eng.explain ||
			o.eng.emit_sh))
		return free(params), cmd_usage_error("run", "-i FILE reads a recording: not with -p, -d, -E, "
				       "--emit-sh or a command");
	if (o.prom_interval_ns && !o.prom_file)
		return free(params), cmd_usage_error("run", "--interval goes with --prom-file");
	if (!text && !file)
		return free(params), cmd_usage_error("run", "no program: give -e 'PROGRAM', a FILE or a recipe NAME");
	ret = FTR_EXIT_USAGE;
	if (cmdline && o.eng.cmdv) {
		cmd_usage_error("run", "-c and -- CMD exclude each other");
		goto out;
	}
	if (cmdline) {
		cmdv = split_cmd(cmdline);
		if (!cmdv) {
			cmd_usage_error("run", "-c: no command in '%s'", cmdline);
			goto out;
		}
		o.eng.cmdv = cmdv;
	}
	if (o.eng.pid && o.eng.cmdv) {
		cmd_usage_error("run", "-p and a command exclude each other");
		goto out;
	}
	if (o.eng.emit_sh && o.eng.cmdv) {
		cmd_usage_error("run", "--emit-sh cannot hold a command back before its "
				"exec: trace it with -p PID");
		goto out;
	}
	if (!text && !file) {
		cmd_usage_error("run", "no program: give -e 'PROGRAM', a FILE or a recipe NAME");
		goto out;
	}
	ret = FTR_EXIT_FAIL;
	lang_getopt_set(NULL, 0);
	if (cmd_bt_env_check() < 0 ||
	    lang_load(file, text, params, nparams, &prog, &owned) < 0)
		goto out;
	if (cmd_bt_named_params(file, text, params, &nparams, cmdline ? &(char **){ NULL } :
				&o.eng.cmdv, &prog, &owned) < 0)
		goto out;
	if (pfilter && cmd_bt_probe_filter(&prog, pfilter) < 0) {
		lang_free(&prog);
		goto out;
	}
	o.src = owned;
	if (outfile) {
		/* After the program parsed: a mistake leaves no empty file. */
		int fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
			ftr_err("cannot write '%s': %s", outfile, strerror(errno));
			if (fd >= 0)
				close(fd);
			lang_free(&prog);
			goto out;
		}
		close(fd);
		/* Its write errors name it, not "standard output". */
		ftr_stdout_file = outfile;
	}
	/* ftr's line under a histogram: a program's output is bpftrace's,
	 * which tools read, unless a person reads it; a recipe is ftr's own. */
	if (hist_summary < 0)
		hist_summary = (file && lang_is_recipe(file)) || isatty(STDOUT_FILENO);
	o.no_hist_summary = !hist_summary;
	ret = lang_run(&prog, &o);
	lang_free(&prog);
out:
	free(owned);
	free(params);
	if (cmdv) {
		free(cmdv[0]);
		free(cmdv);
	}
	return ret;
usage_where:
	free(params);
	return cmd_usage_error("run", "--where takes auto, kernel or user (where maps are "
			       "aggregated), ftrace or kprobe (what serves kprobe clauses), not '%s'",
			       optarg);
}
