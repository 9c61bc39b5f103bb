// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program's way in: from a FILE, a recipe NAME of ftr's library or -e's
 * text to a parsed program (load.h).  The planner is asked one question
 * here already: a //#if str SYS:EV line is decided by whether this kernel
 * can fetch that tracepoint's strings (plan/strfetch.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/filters.h"
#include "ftr.h"
#include "kernel/evsel.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "lang/lang.h"
#include "lang/load.h"
#include "lang/parse/ctypes.h"
#include "lang/plan/strfetch.h"

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

/* A FILE operand that names a recipe of the library, not a file. */
bool lang_is_recipe(const char *file)
{
	return !strchr(file, '/') && strcmp(file, "-") && access(file, R_OK) != 0;
}

/* The conditions of //#if lines (lang.h):
 *   str SYS:EV   str() reads the string arguments of tracepoint SYS:EV
 *   func NAME    this kernel has function NAME (/proc/kallsyms): a recipe
 *                picks the name of its kernel (folio_mark_accessed, 5.16,
 *                where mark_page_accessed became its wrapper) */
static int run_cond(const char *expr, void *arg)
{
	static bool probed;
	struct features *f = arg;
	char sys[128], ev[128], why[400];
	uint64_t addr;

	if (str_has_prefix(expr, "func ")) {
		const char *name = expr + 5 + strspn(expr + 5, " ");

		return *name && kallsyms_find(name, &addr) != -ENOENT;
	}

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

int lang_load(const char *file, const char *text, char **params, int nparams,
		     struct program *prog, char **owned)
{
	char path[PATH_MAX];
	struct lang_err err;

	*owned = NULL;
	if (file) {
		/* "-": the program from standard input (bpftrace's form), through
		 * /proc: a busybox system may have no /dev/stdin link */
		const char *p = !strcmp(file, "-") ? "/proc/self/fd/0" : !lang_is_recipe(file) ? file :
				find_recipe(file, path, sizeof(path));
		size_t len;
		const char *nul;

		/* A script's name (foo.bt) that is nowhere: bpftrace's words,
		 * which its users' scripts and tests read. */
		if (!p && strchr(file, '.')) {
			fprintf(stderr, "ERROR: failed to open file '%s': %s\n", file,
				strerror(ENOENT));
			return -1;
		}
		if (!p) {
			ftr_err("no file or recipe '%s' (see 'ftr run --list')", file);
			return -1;
		}
		if (p == file && strcmp(file, "-"))
			lang_program_dir_set(file);
		*owned = read_file_max(p, FTR_PROG_MAX, &len);
		if (!*owned && errno == EFBIG) {
			ftr_err("'%s': more than %u MiB of program text: not a program", file,
				FTR_PROG_MAX >> 20);
			return -1;
		}
		if (!*owned) {
			if (p == file)
				fprintf(stderr, "ERROR: failed to open file '%s': %s\n", file,
					strerror(errno));
			else
				ftr_err("cannot read '%s': %s", p, strerror(errno));
			return -1;
		}
		/* The parser takes a C string: a NUL would end the program
		 * there, silently. */
		nul = memchr(*owned, '\0', len);
		if (nul) {
			int line = 1, col = 1;

			for (const char *q = *owned; q < nul; q++, col++)
				if (*q == '\n')
					line++, col = 0;
			ftr_err("%s:%d:%d: a NUL byte: not a program file", p, line, col);
			return -1;
		}
		text = *owned;
	}
	/* /@name/: named filters of the library, rewritten in the language. */
	{
		char ferr[256], *x = filters_expand(text, true, ferr, sizeof(ferr));

		if (!x) {
			ftr_err("%s", ferr);
			return -1;
		}
		free(*owned);
		*owned = x;
		text = x;
	}
	if (strstr(text, "//#if")) {
		static struct features f;

		if (lang_conditionals(*owned, run_cond, &f, &err) < 0) {
			lang_perror(NULL, text, &err);
			return -1;
		}
	}
	if (lang_parse_args(text, params, nparams, prog, &err) < 0) {
		lang_perror(NULL, text, &err);
		return -1;
	}
	return 0;
}
