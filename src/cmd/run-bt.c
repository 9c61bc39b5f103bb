// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpftrace's own options and invocation forms, as ftr -e / ftr FILE take
 * them: -p's checks in bpftrace's words, the options ftr accepts for what
 * they mean to it (--no-warnings, --include, -I) and those it refuses,
 * saying why.  bpftrace's cases (its runtime suite) read these messages, so
 * where bpftrace prints a line of its own ("ERROR: ..."), ftr prints that
 * line.
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "lang/load.h"
#include "ftr.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"

/* The kernel's pid_max, or its largest (PID_MAX_LIMIT, 4M) unreadable. */
static long pid_max(void)
{
	char *t = read_file("/proc/sys/kernel/pid_max", NULL);
	long v = t ? strtol(t, NULL, 10) : 0;

	free(t);
	return v > 0 ? v : 4194304;
}

int cmd_bt_pid_opt(const char *arg, int *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *arg == '-' || *arg == '+' || *arg == ' ') {
		fprintf(stderr, "ERROR: Failed to parse pid: invalid integer: %s\n", arg);
		return FTR_EXIT_FAIL;
	}
	if (*end) {
		fprintf(stderr, "ERROR: Failed to parse pid: invalid trailing bytes: %s\n", arg);
		return FTR_EXIT_FAIL;
	}
	if (errno || v <= 0 || v >= pid_max()) {
		fprintf(stderr, "ERROR: Pid out of range: %s\n", arg);
		return FTR_EXIT_FAIL;
	}
	return cmd_pid_opt("run", arg, pid);
}

int cmd_bt_option(int c, const char *arg)
{
	char why[300];

	switch (c) {
	case CMD_BT_NO_WARNINGS:
		ftr_no_warnings = true;
		return -1;
	case CMD_BT_INCLUDE:
		/* bpftrace adds the header to the program's; ftr reads no
		 * header (types are BTF and the program's), but a header that
		 * is nowhere is an error, as #include's. */
		if (lang_header_check(arg, strlen(arg), true, why, sizeof(why)) < 0) {
			ftr_err("--include: %s", why);
			return FTR_EXIT_FAIL;
		}
		return -1;
	case 'I':
		if (lang_include_dir_add(arg) < 0)
			return cmd_usage_error("run", "-I: more than 16 directories");
		return -1;
	case 'k':
		ftr_err("-k reports the errors of BPF helper calls (a failed read, a missing "
			"map element) at run time: ftr makes no BPF helper call, and does "
			"not report those cases yet");
		return FTR_EXIT_FAIL;
	case CMD_BT_MODE:
		ftr_err("--mode %s: bpftrace's run modes (bench: probes, run: the default); "
			"ftr has the default only (leave --mode out)", arg);
		return FTR_EXIT_FAIL;
	case CMD_BT_TRACEABLE:
		ftr_err("--traceable-functions %s: bpftrace's list of the functions it may "
			"attach to; ftr reads the kernel's own "
			"(available_filter_functions) and takes no other", arg);
		return FTR_EXIT_FAIL;
	}
	return -1;
}

static int probe_matches(const char *text, void *arg)
{
	return regexec(arg, text, 0, NULL, 0) == 0;
}

int cmd_bt_probe_filter(struct program *prog, const char *regex)
{
	regex_t re;
	char why[200];
	int r = regcomp(&re, regex, REG_EXTENDED | REG_NOSUB), n;

	if (r) {
		regerror(r, &re, why, sizeof(why));
		ftr_err("Invalid --probe-filter regex '%s': %s", regex, why);
		return -1;
	}
	n = lang_probe_filter(prog, probe_matches, &re);
	regfree(&re);
	if (!n) {
		ftr_err("--probe-filter '%s': no probe of the program matches it (begin and end "
			"always stay): No probes to attach", regex);
		return -1;
	}
	return 0;
}

/*
 * bpftrace's named parameters: `PROGRAM [ARGS] -- --name=VALUE ... [ARGS]`.
 * A program that calls getopt() takes the words after "--" as its own
 * (--name[=VALUE] named, the others more positional parameters $N); one
 * that does not keeps ftr's meaning, a command to trace.  The program is
 * parsed again with them, since both getopt() and $N are literals.
 */
int cmd_bt_named_params(const char *file, const char *text, char **params, int *nparams,
			char ***cmdv, struct program *prog, char **owned)
{
	char **named;
	int nnamed = 0, ret;
	char *src;

	if (!lang_getopt_used())
		return 0;
	if (!*cmdv)
		return lang_getopt_check();
	named = calloc(64 + 1, sizeof(*named));
	if (!named)
		return -ENOMEM;
	for (char **w = *cmdv; *w; w++) {
		if (!strncmp(*w, "--", 2) && (*w)[2] && nnamed < 64)
			named[nnamed++] = *w;
		else
			params[(*nparams)++] = *w;
	}
	*cmdv = NULL;
	/* the text once read: "-" (standard input) cannot be read twice */
	src = *owned ? *owned : NULL;
	lang_free(prog);
	lang_getopt_set(named, nnamed);
	if (src) {
		*owned = NULL;
		ret = lang_load(NULL, src, params, *nparams, prog, owned);
		*owned = src;
	} else {
		ret = lang_load(file, text, params, *nparams, prog, owned);
	}
	if (ret == 0 && (ret = lang_getopt_check()) < 0)
		lang_free(prog);
	/* the words stay in use as the program's strings were copied */
	free(named);
	return ret;
}

/*
 * bpftrace's environment variables that change a program's answer: a
 * BPFTRACE_MAX_STRLEN that str() honours (builtins.c, max_strlen: up to
 * 1,024 bytes), else refused, never ignored (a string cut at bpftrace's
 * length printed whole would be a wrong answer).
 */
int cmd_bt_env_check(void)
{
	const char *v = getenv("BPFTRACE_MAX_STRLEN");
	char *end = NULL;
	long n = v && *v ? strtol(v, &end, 10) : 1;

	if (n < 1 || n > 1024 || (end && *end)) {
		ftr_err("BPFTRACE_MAX_STRLEN=%s: ftr cuts str() at 1 to 1024 bytes; unset it", v);
		return -EINVAL;
	}
	return 0;
}
