// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr profile: where a command, a process or the system spends its CPU
 * time.  The options and the choice of report; the profiler itself, its
 * sampling, stacks and reports, is profile/profile.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "ftr.h"
#include "perf/child.h"
#include "perf/perf.h"
#include "profile/profile.h"
#include "report/flame.h"
#include "report/pprof.h"

static const char profile_usage[] =
	"usage: ftr profile [options] -- CMD [ARGS]\n"
	"       ftr profile [options] -p PID [-d TIME]\n"
	"       ftr profile [options] -a [-C CPUS] [-d TIME]\n"
	"       ftr profile [output options] -i FOLDED\n\n"
	"Sample where the CPU time goes (cpu-clock, or cycles where there is a PMU)\n"
	"and report it by symbol, kernel and user space, with call chains.\n\n"
	"  -F, --frequency HZ     samples per second on each CPU (default 999)\n"
	"  -g                     record call chains: --call-graph auto\n"
	"      --call-graph MODE[,SIZE]\n"
	"                         user call chains by fp (frame pointers), dwarf (the\n"
	"                         files' CFI on a SIZE-byte stack copy, 8192), or auto\n"
	"                         (CFI as far as the copy goes, frame pointers beyond;\n"
	"                         fp in the static build); kernel ones by the kernel\n"
	"  -p, --pid PID          an existing process and its threads\n"
	"  -a, --all-cpus         the whole system\n"
	"  -C, --cpus LIST        only these CPUs ('0', '0-2,5')\n"
	"  -d, --duration TIME    stop after TIME ('5', '200ms', '2m'); else at the\n"
	"                         command's end, the process's end, or Ctrl-C\n"
	"  -e, --event EV         cpu-clock or cycles (default: cycles if there is a\n"
	"                         PMU, else cpu-clock)\n"
	"  -m, --mmap-pages N     ring size per CPU in pages, a power of two (128;\n"
	"                         1024 with stack copies)\n"
	"      --max-stacks N     keep at most N distinct stacks (%u; 0: no limit);\n"
	"                         samples of new ones past it count as [dropped]\n"
	"output (--top unless another is given; --svg adds to any):\n"
	"      --top              self share by symbol; with -g the callers under each\n"
	"      --folded           folded stacks (FlameGraph, speedscope, inferno)\n"
	"      --svg FILE         an interactive flame graph, written by ftr itself\n"
	"  -j, --json             one JSON object\n"
	"      --pprof FILE       also a gzipped profile.proto (go tool pprof, Pyroscope)\n"
	"      --debuginfod       fetch missing debug files from DEBUGINFOD_URLS (cached)\n"
	"      --percent-limit P  --top: leave out symbols under P per cent (0.1)\n"
	"  -i, --input FILE       report folded stacks from FILE ('-': stdin) instead\n"
	"                         of profiling\n"
	"  -o, --output FILE      write the report to FILE, not standard output\n"
	"  -h, --help             this help\n";

enum out_mode { O_TOP, O_FOLDED, O_JSON, O_NONE };

/* What the command line of profile said; profile_parse_opts fills it. */
struct profile_cli {
	const char *pid_arg, *cpus_arg, *out_arg, *svg_arg, *input, *pprof_arg;
	enum out_mode mode;
	bool mode_given, all;
};

/*
 * Options and their checks, into *a and the sampler's settings in *p.
 * Returns -1 to go on, else the exit code.
 */
static int profile_parse_opts(struct profile_cli *a, struct prof *p, int argc, char **argv)
{
	enum { OPT_TOP = 1000, OPT_FOLDED, OPT_SVG, OPT_PCT, OPT_CG, OPT_PPROF, OPT_DEBUGINFOD,
	       OPT_MAX_STACKS };
	static const struct option longopts[] = {
		{ "frequency", required_argument, NULL, 'F' },
		{ "call-graph", required_argument, NULL, OPT_CG },
		{ "pprof", required_argument, NULL, OPT_PPROF },
		{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
		{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
		{ "pid", required_argument, NULL, 'p' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "event", required_argument, NULL, 'e' },
		{ "mmap-pages", required_argument, NULL, 'm' },
		{ "top", no_argument, NULL, OPT_TOP },
		{ "folded", no_argument, NULL, OPT_FOLDED },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "json", no_argument, NULL, 'j' },
		{ "percent-limit", required_argument, NULL, OPT_PCT },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = FTR_EXIT_FAIL, err;
	uint64_t v;
	char *end;

	while ((c = cmd_getopt("profile", argc, argv, "+F:gp:aC:d:e:m:ji:o:h", longopts)) != -1) {
		switch (c) {
		case 'F':
			if (parse_u64(optarg, &v) < 0 || v < 1 || v > 1000000)
				return cmd_usage_error("profile", "bad frequency '%s' (Hz, e.g. 99, "
						       "999)", optarg);
			p->hz = (unsigned)v;
			break;
		case 'g':
			p->g = true;
			p->cg = UNWIND_AUTO;
			break;
		case OPT_CG: {
			size_t len = strcspn(optarg, ",");

			p->g = true;
			if (len == 2 && !strncmp(optarg, "fp", 2))
				p->cg = UNWIND_FP;
			else if (len == 5 && !strncmp(optarg, "dwarf", 5))
				p->cg = UNWIND_DWARF;
			else if (len == 4 && !strncmp(optarg, "auto", 4))
				p->cg = UNWIND_AUTO;
			else
				return cmd_usage_error("profile", "bad call graph '%s': fp, dwarf "
						       "or auto, dwarf and auto with ',SIZE'",
						       optarg);
			if (!optarg[len])
				break;
			/* The kernel copies whole words, and a record is at
			 * most 64 KB with everything else in it. */
			if (p->cg == UNWIND_FP || parse_u64(optarg + len + 1, &v) < 0 || v < 64 ||
			    v > UNWIND_STACK_MAX || v % 8)
				return cmd_usage_error("profile", "bad stack size in '%s': bytes, a "
						       "multiple of 8 from 64 to %u (dwarf and auto "
						       "only)", optarg, UNWIND_STACK_MAX);
			p->stack_size = (unsigned)v;
			break;
		}
		case OPT_PPROF:
			a->pprof_arg = optarg;
			break;
		case OPT_DEBUGINFOD:
			p->debuginfod = true;
			break;
		case OPT_MAX_STACKS:
			if (parse_u64(optarg, &v) < 0 || v > SIZE_MAX / 2)
				return cmd_usage_error("profile", "bad stack count '%s' (a number; 0: "
						       "no limit)", optarg);
			p->max_stacks = (size_t)v;
			break;
		case 'p':
			a->pid_arg = optarg;
			break;
		case 'a':
			a->all = true;
			break;
		case 'C':
			a->cpus_arg = optarg;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &p->duration) < 0 || !p->duration)
				return cmd_usage_error("profile", "bad duration '%s' (e.g. 5, 5s, "
						       "200ms, 2m)", optarg);
			break;
		case 'e':
			if (strcmp(optarg, "cpu-clock") && strcmp(optarg, "cycles"))
				return cmd_usage_error("profile", "bad event '%s': cpu-clock or "
						       "cycles", optarg);
			p->event = optarg;
			break;
		case 'm':
			if (parse_u64(optarg, &v) < 0 || !v || (v & (v - 1)) || v > 65536)
				return cmd_usage_error("profile", "bad ring size '%s' (pages, a power "
						       "of two)", optarg);
			p->pages = (unsigned)v;
			p->pages_given = true;
			break;
		case OPT_TOP:
		case OPT_FOLDED:
		case 'j':
			if (a->mode_given)
				return cmd_usage_error("profile", "--top, --folded and --json exclude "
						       "each other");
			a->mode_given = true;
			a->mode = c == OPT_TOP ? O_TOP : c == OPT_FOLDED ? O_FOLDED : O_JSON;
			break;
		case OPT_SVG:
			a->svg_arg = optarg;
			break;
		case OPT_PCT:
			errno = 0;
			p->percent_limit = strtod(optarg, &end);
			if (errno || end == optarg || *end || p->percent_limit < 0 ||
			    p->percent_limit > 100)
				return cmd_usage_error("profile", "bad percent limit '%s'", optarg);
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->out_arg = optarg;
			break;
		case 'h':
			printf(profile_usage, PROF_DEFAULT_MAX_STACKS);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	p->cmdv = cmd_command_args(argc, argv);
	if ((a->pid_arg != NULL) + a->all + (p->cmdv != NULL) + (a->input != NULL) != 1)
		return cmd_usage_error("profile", (a->pid_arg != NULL) + a->all + (p->cmdv != NULL) +
				       (a->input != NULL) ? "-p, -a, -i and a command exclude each other" :
				       "nothing to profile: give -- CMD, -p PID or -a (or -i FILE)");
	if (a->svg_arg && !a->mode_given)
		a->mode = O_NONE;	/* --svg alone: the graph, no text */
	if (a->pprof_arg && a->input)
		return cmd_usage_error("profile", "--pprof writes a profile taken now, not one "
				       "read with -i (folded stacks have no addresses)");
	if (p->duration && p->cmdv)
		return cmd_usage_error("profile", "-d goes with -p or -a (a command is profiled "
				       "until it ends)");
	if (a->pid_arg) {
		p->target = PROF_PID;
		if ((ret = cmd_pid_opt("profile", a->pid_arg, &p->pid)) >= 0)
			return ret;
	} else if (a->all) {
		p->target = PROF_ALL;
	} else if (a->input) {
		p->target = PROF_INPUT;
	}
	if (a->cpus_arg) {
		err = parse_cpulist(a->cpus_arg, p->cpus, (int)ARRAY_SIZE(p->cpus));
		if (err)
			return cmd_usage_error("profile", "bad CPU list '%s'%s", a->cpus_arg,
					       err == -ERANGE ? " (no such CPU)" : "");
		if ((err = perf_first_offline(p->cpus, (int)ARRAY_SIZE(p->cpus))) >= 0)
			return cmd_usage_error("profile", "bad CPU list '%s' (CPU %d is not online)",
					       a->cpus_arg, err);
		p->cpus_given = true;
	}
	return -1;
}

int cmd_profile(int argc, char **argv)
{
	static struct prof pr;
	struct prof *p = &pr;
	struct profile_cli a = { .mode = O_TOP };
	struct sigwatch sw = { .fd = -1 };
	char **warn = NULL;
	int nwarn = 0, ret, err;
	FILE *out = stdout;

	prof_init(p);
	ret = profile_parse_opts(&a, p, argc, argv);
	if (ret >= 0)
		goto out;
	ret = FTR_EXIT_FAIL;
	if (a.out_arg && !(out = fopen(a.out_arg, "we"))) {
		ftr_err("cannot write '%s': %s", a.out_arg, strerror(errno));
		out = stdout;
		goto out;
	}

	if (prof_gather(p, a.input, a.pprof_arg != NULL, &sw, &warn, &nwarn) < 0)
		goto out;

	err = 0;
	if (a.mode == O_TOP)
		err = prof_print_top(p, out);
	else if (a.mode == O_FOLDED)
		err = flame_write_folded(p->fl, out);
	else if (a.mode == O_JSON)
		err = prof_print_json(p, out, warn, nwarn);
	if (err < 0 && err != -EIO) {
		ftr_err("cannot write the report: %s", strerror(-err));
		goto out;
	}
	if (a.svg_arg) {
		FILE *f = fopen(a.svg_arg, "we");
		char sub[256];
		struct flame_svg_opts o = { .title = p->title, .subtitle = sub };

		prof_describe(p, sub, sizeof(sub));
		if (!f) {
			ftr_err("cannot write '%s': %s", a.svg_arg, strerror(errno));
			goto out;
		}
		err = flame_write_svg(p->fl, f, &o);
		if (fclose(f) != 0 || err < 0) {
			ftr_err("cannot write '%s': %s", a.svg_arg, strerror(errno ? errno : EIO));
			goto out;
		}
	}
	if (a.pprof_arg) {
		FILE *f = fopen(a.pprof_arg, "we");
		struct timespec now;

		if (!f) {
			ftr_err("cannot write '%s': %s", a.pprof_arg, strerror(errno));
			goto out;
		}
		clock_gettime(CLOCK_REALTIME, &now);
		err = pprof_write(p->pp, f, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec -
				  (int64_t)((p->t1 - p->t0) * 1e9), (int64_t)((p->t1 - p->t0) * 1e9));
		if (fclose(f) != 0 && !err)
			err = -errno;
		if (err < 0) {
			ftr_err("cannot write '%s': %s", a.pprof_arg, strerror(-err));
			goto out;
		}
	}
	/* The warnings after the report, where they are read. */
	for (int i = 0; i < nwarn; i++)
		ftr_warn("%s", warn[i]);
	if (ftr_verbose && p->target != PROF_INPUT)
		ftr_info("%llu samples, %zu distinct stacks, %llu dropped, %llu lost in %llu "
			 "records, %llu throttled, %llu bad records", (unsigned long long)p->samples,
			 p->nstacks, (unsigned long long)p->dropped, (unsigned long long)p->lost,
			 (unsigned long long)p->lost_records, (unsigned long long)p->throttles,
			 (unsigned long long)p->bad_records);
	ret = FTR_EXIT_OK;
	if (out != stdout) {
		if (fclose(out) != 0) {
			ftr_err("cannot write '%s': %s", a.out_arg, strerror(errno));
			ret = FTR_EXIT_FAIL;
		}
		out = stdout;
	}
out:
	sigwatch_close(&sw);
	if (out != stdout)
		fclose(out);
	for (int i = 0; i < nwarn; i++)
		free(warn[i]);
	free(warn);
	prof_free(p);
	return ret;
}
