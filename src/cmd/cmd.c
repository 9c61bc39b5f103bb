// SPDX-License-Identifier: GPL-2.0-or-later
/* What every command shares: option parsing and usage errors. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "ftr.h"

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
