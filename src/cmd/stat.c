// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr stat: what a command, a process or the whole system cost.  The
 * options, the tracepoints to count (by their ids in tracefs) and the
 * choice of report; the counting itself is profile/stat.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "ftr.h"
#include "kernel/session.h"
#include "perf/child.h"
#include "perf/perf.h"
#include "profile/stat.h"

static const char stat_usage[] =
	"usage: ftr stat [options] -- CMD [ARGS]\n"
	"       ftr stat [options] -p PID [-d TIME]\n"
	"       ftr stat [options] -a [-C CPUS] [-d TIME]\n\n"
	"Count what a command, a process or the whole system cost: task-clock,\n"
	"context switches, CPU migrations, page faults, cycles and instructions\n"
	"where there is a PMU; elapsed, user and sys time; and what the split says.\n\n"
	"  -p, --pid PID          an existing process and its threads\n"
	"  -a, --all-cpus         the whole system\n"
	"  -C, --cpus LIST        with -a: only these CPUs ('0', '0-2,5')\n"
	"  -d, --duration TIME    with -p or -a: count for TIME ('5', '200ms', '2m');\n"
	"                         else until Ctrl-C (or until the process ends)\n"
	"  -e, --event SYS:EVENT  also count a tracepoint, exactly (repeatable):\n"
	"                         -e syscalls:sys_enter_write\n"
	"  -r, --repeat N         run CMD N times: means, and the variation\n"
	"  -j, --json             one JSON object\n"
	"  -o, --output FILE      write the report to FILE, not standard output\n"
	"  -h, --help             this help\n";

/* -e SYS:EVENT (also tracepoint:SYS:EVENT, t:SYS:EVENT). */
static int add_tracepoint(struct stat_cnt *st, const char *spec, const char **tracefs)
{
	static struct ftr_tracefs tfs;
	char sys[64], ev[128], name[200];
	const char *s = spec;
	long id;

	if (str_has_prefix(s, "tracepoint:"))
		s += 11;
	else if (str_has_prefix(s, "t:"))
		s += 2;
	if (sscanf(s, "%63[^:]:%127s", sys, ev) != 2 || strchr(ev, ':') || strpbrk(s, "*?[")) {
		cmd_usage_error("stat", "bad event '%s': want SYSTEM:EVENT, e.g. "
				"syscalls:sys_enter_write", spec);
		return -EINVAL;
	}
	if (!*tracefs) {
		if (tracefs_locate(&tfs, true) < 0) {
			ftr_err("cannot count '%s': %s", spec, tfs.why);
			return -ENOENT;
		}
		*tracefs = tfs.path;
	}
	id = perf_tracepoint_id(*tracefs, sys, ev);
	if (id == -ENOENT) {
		ftr_err("no tracepoint '%s:%s' (see 'ftr list')", sys, ev);
		return -ENOENT;
	}
	if (id < 0) {
		ftr_err("cannot read the id of '%s:%s' in '%s': %s%s", sys, ev, *tracefs,
			strerror((int)-id), (id == -EACCES || id == -EPERM) && geteuid() ?
			" (tracepoints need root)" : "");
		return (int)id;
	}
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	return stat_add_ctr(st, name, PERF_TYPE_TRACEPOINT, (uint64_t)id);
}

struct stat_cli {
	struct stat_cnt st;
	const char **events;	/* -e tracepoints, counted beside the defaults */
	int nev;
	uint64_t duration;
	const char *out_arg;
	bool all, cpumask[4096];
};

/*
 * Options and their checks.  Returns -1 to go on, else the exit code; what
 * it allocated (a->events) is freed by the caller either way.
 */
static int stat_parse_opts(struct stat_cli *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "event", required_argument, NULL, 'e' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pid_arg = NULL, *cpus_arg = NULL;
	uint64_t v;
	int c, ret = FTR_EXIT_FAIL, err;

	while ((c = cmd_getopt("stat", argc, argv, "+p:aC:d:e:r:jo:h", longopts)) != -1) {
		switch (c) {
		case 'p':
			pid_arg = optarg;
			break;
		case 'a':
			a->all = true;
			break;
		case 'C':
			cpus_arg = optarg;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &a->duration) < 0 || !a->duration)
				return cmd_usage_error("stat", "bad duration '%s' (e.g. 5, 5s, 200ms, "
						       "2m)", optarg);
			break;
		case 'e': {
			const char **ne = realloc(a->events, (a->nev + 1) * sizeof(*ne));

			if (!ne)
				return ret;
			a->events = ne;
			a->events[a->nev++] = optarg;
			break;
		}
		case 'r':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 100000)
				return cmd_usage_error("stat", "bad repeat count '%s'", optarg);
			a->st.nruns = (int)v;
			break;
		case 'j':
			a->st.json = true;
			break;
		case 'o':
			a->out_arg = optarg;
			break;
		case 'h':
			fputs(stat_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	a->st.cmdv = cmd_command_args(argc, argv);
	if ((pid_arg != NULL) + a->all + (a->st.cmdv != NULL) != 1)
		return cmd_usage_error("stat", (pid_arg != NULL) + a->all + (a->st.cmdv != NULL) ?
				       "-p, -a and a command exclude each other" :
				       "nothing to count: give -- CMD, -p PID or -a");
	if (a->duration && a->st.cmdv)
		return cmd_usage_error("stat", "-d goes with -p or -a (a command is counted "
				       "until it ends)");
	if (a->st.nruns > 1 && !a->st.cmdv)
		return cmd_usage_error("stat", "-r repeats a command: not with -p or -a");
	if (cpus_arg && !a->all)
		return cmd_usage_error("stat", "-C goes with -a");
	if (pid_arg) {
		a->st.target = STAT_PID;
		if ((ret = cmd_pid_opt("stat", pid_arg, &a->st.pid)) >= 0)
			return ret;
		ret = FTR_EXIT_FAIL;
	}
	if (a->all) {
		a->st.target = STAT_ALL;
		a->st.ncpu = (int)ARRAY_SIZE(a->cpumask);
		err = perf_online_cpus(a->cpumask, a->st.ncpu);
		if (err < 0) {
			ftr_err("cannot read the online CPUs: %s", strerror(-err));
			return ret;
		}
		if (cpus_arg) {
			bool sel[ARRAY_SIZE(a->cpumask)];

			err = parse_cpulist(cpus_arg, sel, a->st.ncpu);
			if (err)
				return cmd_usage_error("stat", "bad CPU list '%s'%s", cpus_arg,
						       err == -ERANGE ? " (no such CPU)" : "");
			/* A CPU that is not online would only read as "not
			 * supported" (and a busy 0%). */
			if ((err = perf_first_offline(sel, a->st.ncpu)) >= 0)
				return cmd_usage_error("stat", "bad CPU list '%s' (CPU %d is not online)",
						       cpus_arg, err);
			for (int i = 0; i < a->st.ncpu; i++)
				a->cpumask[i] = a->cpumask[i] && sel[i];
		}
		a->st.cpus = a->cpumask;
	}
	return -1;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_cli a = { .st = { .target = STAT_CMD, .nruns = 1, .out = stdout } };
	struct sigwatch sw = { .fd = -1 };
	const char *tracefs = NULL;
	struct stat_cnt *st = &a.st;
	int ret, err;

	ret = stat_parse_opts(&a, argc, argv);
	if (ret >= 0)
		goto out;
	ret = FTR_EXIT_FAIL;
	if (stat_add_defaults(st) < 0)
		goto out;
	for (int i = 0; i < a.nev; i++) {
		err = add_tracepoint(st, a.events[i], &tracefs);
		if (err == -EINVAL) {
			ret = FTR_EXIT_USAGE;
			goto out;
		}
		if (err < 0)
			goto out;
	}
	if (stat_alloc_runs(st) < 0)
		goto out;
	if (a.out_arg && !(st->out = fopen(a.out_arg, "we"))) {
		ftr_err("cannot write '%s': %s", a.out_arg, strerror(errno));
		st->out = stdout;
		goto out;
	}
	err = sigwatch_open(&sw, true);
	if (err < 0) {
		ftr_err("cannot set up signal handling: %s", strerror(-err));
		goto out;
	}
	for (int r = 0; r < st->nruns && !st->interrupted; r++) {
		err = stat_measure(st, &sw, r, a.duration);
		if (err < 0)
			goto out;
		st->done_runs++;
	}
	if (st->status_note[0])
		ftr_warn("%s", st->status_note);
	if (st->json)
		stat_print_json(st);
	else
		stat_print_text(st);
	ret = FTR_EXIT_OK;
	if (st->out != stdout && (fclose(st->out) != 0)) {
		ftr_err("cannot write '%s': %s", a.out_arg, strerror(errno));
		ret = FTR_EXIT_FAIL;
	}
	st->out = stdout;
out:
	sigwatch_close(&sw);
	if (st->out != stdout)
		fclose(st->out);
	stat_free(st);
	free(a.events);
	return ret;
}
