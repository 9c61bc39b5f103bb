// SPDX-License-Identifier: GPL-2.0-or-later
/* What every command shares: option parsing and usage errors. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "ftr.h"
#include "kernel/engine.h"
#include "lang/interp.h"
#include "report/serve.h"

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "ftr%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'ftr%s%s -h')\n", cmd ? " " : "", cmd ? cmd : "");
	return FTR_EXIT_USAGE;
}

int cmd_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts)
{
	char opts[128];
	int c;

	/* ':' first: a missing argument comes back as ':' so the message is
	 * ours.  A leading '+' in shortopts (main's) stops at the first
	 * non-option; commands permute, so 'ftr list GLOB -v' works; a leading
	 * '-' returns non-options in order as option 1 (ftr trace). */
	if (shortopts[0] == '+' || shortopts[0] == '-')
		snprintf(opts, sizeof(opts), "%c:%s", shortopts[0], shortopts + 1);
	else
		snprintf(opts, sizeof(opts), ":%s", shortopts);
	opterr = 0;
	c = getopt_long(argc, argv, opts, longopts, NULL);
	if (c == '?') {
		if (optopt)
			cmd_usage_error(cmd, "unknown option '-%c'", optopt);
		else
			cmd_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
	} else if (c == ':') {
		cmd_usage_error(cmd, "option '%s' needs an argument", argv[optind - 1]);
		c = '?';
	}
	return c;
}

int cmd_pid_opt(const char *cmd, const char *arg, int *pid)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || !v || v > INT32_MAX)
		return cmd_usage_error(cmd, "bad pid '%s'", arg);
	*pid = (int)v;
	if (!pid_alive(*pid)) {
		ftr_err("no process with pid %d", *pid);
		return FTR_EXIT_FAIL;
	}
	return -1;
}

int cmd_fn_opt(const char *cmd, int ch, const char *arg, struct engine_opts *o,
	       size_t *max_funcs)
{
	char *end;

	switch (ch) {
	case 'd':
		if (parse_duration_ns(arg, &o->duration_ns) < 0 || !o->duration_ns)
			return cmd_usage_error(cmd, "bad duration '%s'", arg);
		return -1;
	case 'p':
		return cmd_pid_opt(cmd, arg, &o->pid);
	case 'M':
		*max_funcs = strtoul(arg, &end, 10);
		if (!*arg || *end || !*max_funcs)
			return cmd_usage_error(cmd, "bad --max-funcs '%s': a count", arg);
		return -1;
	case 'E':
		o->explain = true;
		return -1;
	case 'G':
		o->global_tracer = true;
		return -1;
	default:
		return FTR_EXIT_USAGE;
	}
}

int cmd_fn_pattern(const char *cmd, const char *arg, char *filter, size_t size, size_t *used)
{
	if (!*arg || strpbrk(arg, " \t\n") || *used + strlen(arg) + 2 > size)
		return cmd_usage_error(cmd, "bad pattern '%s'", arg);
	*used += snprintf(filter + *used, size - *used, "%s%s", *used ? " " : "", arg);
	return -1;
}

char **cmd_command_args(int argc, char **argv)
{
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	return optind < argc ? argv + optind : NULL;
}

int cmd_metrics_opt(const char *cmd, int which, const char *arg, struct run_opts *o)
{
	char host[256];
	unsigned port;

	switch (which) {
	case 's':
		if (!serve_available()) {
			ftr_err("--serve is not in this build (the static binary has no HTTP "
				"server); use --prom-file FILE with node_exporter's textfile "
				"collector, or the dynamic build");
			return FTR_EXIT_FAIL;
		}
		if (serve_parse_addr(arg, host, sizeof(host), &port) < 0)
			return cmd_usage_error(cmd, "bad --serve '%s' (ADDR:PORT, :PORT for "
					       "127.0.0.1:PORT, or [V6ADDR]:PORT)", arg);
		o->serve = arg;
		return 0;
	case 'f':
		if (!*arg)
			return cmd_usage_error(cmd, "--prom-file needs a file name");
		o->prom_file = arg;
		return 0;
	default:
		if (parse_duration_ns(arg, &o->prom_interval_ns) < 0 ||
		    o->prom_interval_ns < 100000000ull)
			return cmd_usage_error(cmd, "bad --interval '%s' (at least 100ms)", arg);
		return 0;
	}
}
