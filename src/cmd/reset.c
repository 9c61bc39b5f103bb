// SPDX-License-Identifier: GPL-2.0-or-later
/* ftr reset: remove what a killed ftr left behind, and nothing else. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "ftr.h"
#include "kernel/session.h"

static const char reset_usage[] =
	"usage: ftr reset [-n]\n\n"
	"Remove the tracefs instances and dynamic events that an ftr run killed with\n"
	"SIGKILL (or crashed) left behind: those named ftr_<pid> (ftr_<pid>_<pidns>)\n"
	"whose run's lock in /run/ftr is free.  Nothing that ftr did not create, and\n"
	"nothing of a running ftr or of an --emit-sh script (ftr_sh_<pid>), is touched.\n"
	"Global settings a killed run changed (osnoise/*, tracing_thresh,\n"
	"hwlat_detector/*, the top level's function_graph of --global-tracer: its\n"
	"current_tracer, set_ftrace_filter, set_ftrace_pid, trace_clock, tracing_on)\n"
	"are put back to the values it noted in /run/ftr.\n\n"
	"  -n, --dry-run   say what would be removed, remove nothing\n"
	"  -h, --help      this help\n";

int cmd_reset(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ftr_tracefs t;
	bool dry = false;
	int c, n;

	while ((c = cmd_getopt("reset", argc, argv, "nh", longopts)) != -1) {
		switch (c) {
		case 'n':
			dry = true;
			break;
		case 'h':
			fputs(reset_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("reset", "unexpected argument '%s'", argv[optind]);

	/* Nothing can be left in a tracefs that is not mounted: never mount
	 * it just to find that out. */
	if (tracefs_locate(&t, false) < 0) {
		printf("nothing to clean up (%s)\n", t.why);
		return FTR_EXIT_OK;
	}
	/* As a user tracefs may be readable but not writable, or not even
	 * listable: "nothing to clean up" would then be a guess. */
	if (access(t.path, R_OK | W_OK | X_OK) != 0) {
		ftr_err("cannot clean up tracefs at '%s': %s%s", t.path, strerror(errno),
			errno == EROFS ? " (it is mounted read-only: nothing can be removed "
			"until it is remounted read-write)" :
			geteuid() ? " (ftr reset needs root)" : "");
		return FTR_EXIT_FAIL;
	}
	n = session_reset(&t, dry, stdout);
	if (n == 0)
		printf("nothing to clean up\n");
	return n < 0 ? FTR_EXIT_FAIL : FTR_EXIT_OK;
}
