// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr — a tracer for Linux kernels where BPF is absent, forbidden or too heavy.
 *
 * main() only dispatches: global options, then one command from the table.
 * Exit codes: 0 success, 1 failure, 2 usage error (ftr(1)).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "ftr.h"

static const struct ftr_cmd commands[] = {
	{ "doctor", cmd_doctor, "what this kernel lets ftr do, and what ftr does instead" },
	{ "list", cmd_list, "list tracepoints, dynamic events and probeable functions" },
	{ "trace", cmd_trace, "stream events, filtered in the kernel, from the raw buffers" },
	{ "count", cmd_count, "count events, by comm, pid, field...: in the kernel when it can" },
	{ "hist", cmd_hist, "the distribution of a field, as a histogram" },
	{ "record", cmd_record, "record events to a trace-cmd data file (trace.dat)" },
	{ "report", cmd_report, "print the events of a recording (ftr's or trace-cmd's)" },
	{ "run", cmd_run, "run a program in ftr's language (also: ftr -e 'PROGRAM')" },
	{ "reset", cmd_reset, "remove what a killed ftr left in tracefs" },
	{ "profile", cmd_profile, "sample where the CPU time goes: symbols, call chains, flame graphs" },
	{ "funccount", cmd_funccount, "count kernel function calls with ftrace's function tracer" },
	{ "functrace", cmd_functrace, "print kernel function calls and their callers as they happen" },
	{ "graph", cmd_graph, "the call tree of kernel functions with durations (function_graph)" },
	{ "funcslower", cmd_funcslower, "the calls of a kernel function slower than a threshold" },
	{ "stat", cmd_stat, "count what a command, a process or the system cost: user, sys, waiting" },
	{ "latency", cmd_latency, "the kernel's latency tracers (timerlat, osnoise, hwlat, irqsoff...), as rtla runs them" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ftr [-v] [--version] [--help] <command> [<args>]\n"
		   "       ftr [run options] -e 'PROGRAM' [ARG...] [-- CMD]\n"
		   "       ftr [run options] FILE [ARG...] [-- CMD]   (a #! script: bpftrace's way)\n"
		   "       ftr -l[v] [PATTERN|FILE|-e PROGRAM] [-p PID] (probes, as bpftrace -l)\n\n"
		   "A tracer for kernels without BPF: tracefs, tracepoints, kprobe/uprobe\n"
		   "events, in-kernel filters, hist triggers and perf_event_open.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'ftr <command> -h' shows a command's options; man ftr-<command> says more.\n");
}

/*
 * ftr alone: the three commands a newcomer wants first, on stderr, exit 2.
 * git, perf and bpftrace also exit non-zero when given nothing to do (1,
 * their generic failure): a script whose command word came out empty must
 * not see success.  ftr's code for "the command line asked nothing valid"
 * is 2 (ftr(1)), and its usage errors go to stderr; -h is the full list.
 */
static void short_usage(FILE *f)
{
	fprintf(f, "usage: ftr <command> [<args>]    ftr -e 'PROGRAM'    ftr -h: every command\n\n"
		   "  ftr doctor                 what this kernel lets ftr do, and what it does instead\n"
		   "  ftr -e 'PROGRAM' [-- CMD]  a bpftrace program: counts, histograms, stacks\n"
		   "                             (ftr run --list: ready-made ones, as opensnoop)\n"
		   "  ftr trace EVENT [-- CMD]   stream events, filtered in the kernel\n\n"
		   "e.g.  ftr -e 'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }' "
		   "-- ls /\n");
}

static bool is_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return true;
	return false;
}

static bool is_run(int argc, char **argv)
{
	/* ftr run's options that take an argument, so that it is skipped */
	static const char *const long_arg[] = { "--pid", "--cmd", "--duration", "--output",
						"--format", "--buffering", "--where", "--sort",
						"--call-graph", "--include", "--mode",
						"--traceable-functions", "--input", "--btf",
						"--serve", "--prom-file", "--interval",
						"--probe-filter" };

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		/* -l, and -l among other short options: -lv, -vl */
		if (str_has_prefix(a, "-e") || !strcmp(a, "--list") ||
		    (a[0] == '-' && a[1] != '-' && strchr(a, 'l') && strspn(a + 1, "lvq") == strlen(a + 1)))
			return true;
		if (a[0] == '-') {
			if (!a[1])
				return true;	/* "-": a program on stdin */
			if (a[1] && a[1] != '-' && !a[2] && strchr("pcdofBwsiI", a[1]))
				i++;
			for (size_t j = 0; j < ARRAY_SIZE(long_arg); j++)
				if (!strcmp(a, long_arg[j]))
					i++;
			continue;
		}
		/* the first operand: a command's name, or a program file (a
		 * script's name, foo.bt, though it is not there: run says so) */
		return !is_command(a) && (access(a, R_OK) == 0 || strchr(a, '/') ||
					  strchr(a, '.'));
	}
	return false;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *name;
	int c, ret;

	/* A closed stdout pipe is an EPIPE error to handle, not a death that
	 * would skip cleanup of tracefs. */
	signal(SIGPIPE, SIG_IGN);
	/* A script's background job starts with SIGINT ignored (sh without job
	 * control).  ftr itself still gets it (blocked for its signalfd, it is
	 * queued), but a command it runs would inherit the ignore and never
	 * see the SIGINT that `ftr stat -- CMD` forwards, nor could its shell
	 * trap it.  Start from the defaults, as perf's and bpftrace's handlers
	 * leave their commands; an ignored SIGHUP (nohup) stays ignored. */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);

	/* bpftrace's spellings of ftr run, whose options may come first:
	 * ftr [options] -e 'PROGRAM' ..., ftr [options] FILE [ARGS] (a
	 * script's #! line runs that), ftr -l [PATTERN]. */
	if (is_run(argc, argv)) {
		argv[0] = (char *)"run";
		/* ftr --list is bpftrace's spelling of -l (ftr run --list
		 * lists the recipes). */
		for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
			if (!strcmp(argv[i], "--list"))
				argv[i] = (char *)"-l";
		ret = cmd_run(argc, argv);
		if (stdout_check() && ret == FTR_EXIT_OK)
			ret = FTR_EXIT_FAIL;
		return ret;
	}
	while ((c = cmd_getopt(NULL, argc, argv, "+hVv", longopts)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return stdout_check() ? FTR_EXIT_FAIL : FTR_EXIT_OK;
		case 'V':
			printf("ftr %s\n", FTR_VERSION);
			return stdout_check() ? FTR_EXIT_FAIL : FTR_EXIT_OK;
		case 'v':
			ftr_verbose++;
			break;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		short_usage(stderr);
		return FTR_EXIT_USAGE;
	}
	name = argv[optind];
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(name, commands[i].name) != 0)
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;	/* full getopt reinitialisation for the command */
		ret = commands[i].fn(argc, argv);
		if (stdout_check() && ret == FTR_EXIT_OK)
			ret = FTR_EXIT_FAIL;
		return ret;
	}
	fprintf(stderr, "ftr: '%s' is not an ftr command (see 'ftr --help')\n", name);
	return FTR_EXIT_USAGE;
}
