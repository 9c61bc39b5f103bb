// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr -e PROGRAM, ftr run FILE|NAME, ftr run --list: the language's
 * commands.  A NAME is a recipe of the library in events/ (installed under
 * $(PREFIX)/share/ftr/events).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/agg.h"
#include "cmd/cmd.h"
#include "kernel/evsel.h"
#include "kernel/features.h"
#include "ftr.h"
#include "filter/filters.h"
#include "lang/ctypes.h"
#include "lang/interp.h"
#include "lang/lang.h"
#include "lang/strfetch.h"

static const char run_usage[] =
	"usage: ftr -e 'PROGRAM' [options] [-- CMD [ARGS]]\n"
	"       ftr run FILE|NAME [options] [-- CMD [ARGS]]\n"
	"       ftr run --list\n\n"
	"Run a program in ftr's language (a bpftrace subset), e.g.\n"
	"  ftr -e 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'\n"
	"NAME is a recipe of ftr's library (see --list).\n\n"
	"  -e PROGRAM          the program text\n"
	"  -p, --pid PID       only this process and what it forks\n"
	"  -d, --duration TIME stop after TIME (5, 5s, 200ms, 2m)\n"
	"  -j, --json          print maps as JSON\n"
	"  -s, --sort KEYS     the maps' print order: count, value, key or keyN (from 1),\n"
	"                      each .asc (the default) or .desc; comma-separated\n"
	"  -w, --where W       aggregate in the kernel when it can (auto), always\n"
	"                      (kernel: fail when it cannot) or never (user)\n"
	"      --btf FILE      C types from this BTF file instead of the kernel's\n"
	"                      (pahole --btf_encode_detached; see ftr-language(7))\n"
	"      --force         no runaway guard for printf on hot probes\n"
	"  -E, --explain       print the plan and the tracefs writes, and exit\n"
	"      --emit-sh       print a sh script doing the in-kernel part (echo, cat)\n"
	"  -l, --list          list the recipes\n"
	"  -h, --help          this help\n\n"
	"Maps print when the program ends: exit(), -d, the command ending, or\n"
	"Ctrl-C.  See ftr-language(7).\n";

static char *find_recipe(const char *name, char *path, size_t len)
{
	char dirs[5][4096], *cand;
	int nd = data_dirs("events", dirs, 5);

	for (int i = 0; i < nd; i++) {
		if (asprintf(&cand, "%s/%s.ftr", dirs[i], name) < 0)
			return NULL;
		if (strlen(cand) < len && access(cand, R_OK) == 0) {
			memcpy(path, cand, strlen(cand) + 1);
			free(cand);
			return path;
		}
		free(cand);
	}
	return NULL;
}

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

/* The conditions of //#if lines (lang.h):
 *   str SYS:EV   str() reads the string arguments of tracepoint SYS:EV */
static int run_cond(const char *expr, void *arg)
{
	static bool probed;
	struct features *f = arg;
	char sys[128], ev[128], why[400];

	if (!str_has_prefix(expr, "str ") || evsel_split(expr + 4 + strspn(expr + 4, " "), sys,
							 sizeof(sys), ev, sizeof(ev)) < 0)
		return -1;
	if (!probed)
		features_probe(f, NULL);
	probed = true;
	if (strfetch_possible(f, sys, ev, why, sizeof(why)))
		return 1;
	ftr_info("//#if %s: no: %s", expr, why);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	enum { OPT_FORCE = 1000, OPT_EMIT_SH, OPT_BTF };
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "explain", no_argument, NULL, 'E' },
		{ "emit-sh", no_argument, NULL, OPT_EMIT_SH },
		{ "btf", required_argument, NULL, OPT_BTF },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "where", required_argument, NULL, 'w' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run_opts o = { .mode = OUT_TEXT };
	struct agg_sort sort;
	char serr[160];
	struct program prog;
	struct lang_err err;
	const char *text = NULL, *file = NULL;
	char *owned = NULL, path[PATH_MAX];
	uint64_t v;
	int c, ret;

	/* '-': operands come back in order as option 1, so that the FILE or
	 * NAME is told apart from a command after "--". */
	while ((c = cmd_getopt("run", argc, argv, "-e:p:d:jElhvw:s:", longopts)) != -1) {
		switch (c) {
		case 1:
			if (file || text)
				return cmd_usage_error("run", "unexpected argument '%s' (a command "
						       "to trace goes after --)", optarg);
			file = optarg;
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
			else
				return cmd_usage_error("run", "--where takes auto, kernel or user");
			break;
		case 'e':
			text = optarg;
			break;
		case 'p':
			if (parse_u64(optarg, &v) < 0 || !v || v > INT32_MAX)
				return cmd_usage_error("run", "bad pid '%s'", optarg);
			o.eng.pid = (int)v;
			if (!pid_alive(o.eng.pid)) {
				ftr_err("no process with pid %d", o.eng.pid);
				return FTR_EXIT_FAIL;
			}
			break;
		case 'd':
			if (parse_duration_ns(optarg, &o.eng.duration_ns) < 0 || !o.eng.duration_ns)
				return cmd_usage_error("run", "bad duration '%s' (e.g. 5, 5s, 200ms)",
						       optarg);
			break;
		case 'j':
			o.mode = OUT_JSON;
			break;
		case 's':
			if (agg_sort_parse(optarg, NULL, 0, &sort, serr, sizeof(serr)) < 0)
				return cmd_usage_error("run", "--sort: %s", serr);
			o.sort = &sort;
			break;
		case OPT_FORCE:
			o.force = true;
			break;
		case OPT_EMIT_SH:
			o.eng.emit_sh = true;
			break;
		case OPT_BTF:
			if (access(optarg, R_OK)) {
				ftr_err("--btf '%s': %s", optarg, strerror(errno));
				return FTR_EXIT_FAIL;
			}
			ctypes_set_btf_file(optarg);
			break;
		case 'E':
			o.eng.explain = true;
			break;
		case 'l':
			return list_recipes();
		case 'h':
			fputs(run_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (text && file)
		return cmd_usage_error("run", "-e and a FILE exclude each other");
	if (optind < argc)
		o.eng.cmdv = argv + optind;
	if (o.eng.pid && o.eng.cmdv)
		return cmd_usage_error("run", "-p and a command exclude each other");
	if (o.eng.emit_sh && o.eng.cmdv)
		return cmd_usage_error("run", "--emit-sh cannot hold a command back before its "
				       "exec: trace it with -p PID");
	if (!text && !file)
		return cmd_usage_error("run", "no program: give -e 'PROGRAM', a FILE or a recipe NAME");
	if (file) {
		const char *p = strchr(file, '/') || access(file, R_OK) == 0 ? file :
				find_recipe(file, path, sizeof(path));

		if (!p) {
			ftr_err("no file or recipe '%s' (see 'ftr run --list')", file);
			return FTR_EXIT_FAIL;
		}
		owned = read_file(p, NULL);
		if (!owned) {
			ftr_err("cannot read '%s': %s", p, strerror(errno));
			return FTR_EXIT_FAIL;
		}
		text = owned;
	}
	/* /@name/: named filters of the library, rewritten in the language. */
	{
		char ferr[256], *x = filters_expand(text, true, ferr, sizeof(ferr));

		if (!x) {
			ftr_err("%s", ferr);
			free(owned);
			return FTR_EXIT_FAIL;
		}
		free(owned);
		owned = x;
		text = x;
	}
	if (strstr(text, "//#if")) {
		static struct features f;

		if (lang_conditionals(owned, run_cond, &f, &err) < 0) {
			lang_perror(NULL, text, &err);
			free(owned);
			return FTR_EXIT_FAIL;
		}
	}
	o.src = text;
	if (lang_parse(text, &prog, &err) < 0) {
		lang_perror(NULL, text, &err);
		free(owned);
		return FTR_EXIT_FAIL;
	}
	ret = lang_run(&prog, &o);
	lang_free(&prog);
	free(owned);
	return ret;
}
