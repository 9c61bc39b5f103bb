// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr latency: ftrace's latency tracers (timerlat, osnoise, hwlat,
 * irqsoff, preemptoff, preemptirqsoff, wakeup, wakeup_rt, wakeup_dl), run
 * in ftr's own instance with rtla's habits and output.  One command with
 * the tracer as its first word (why: man/ftr-latency.1): they share the
 * options, the global knobs and their restoring, and the way a busy tracer
 * is refused.  The statistics and the analysis are report/latstat.c; the
 * tracers' records, kernel/lattracer.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "cmd/cmd.h"
#include "ftr.h"
#include "kernel/formats.h"
#include "kernel/lattracer.h"
#include "kernel/session.h"
#include "kernel/stream.h"
#include "report/latstat.h"
#include "report/sym.h"

static const char latency_usage[] =
	"usage: ftr latency timerlat [top|hist] [options]\n"
	"       ftr latency osnoise [top|hist] [options]\n"
	"       ftr latency hwlat [options]\n"
	"       ftr latency irqsoff|preemptoff|preemptirqsoff|wakeup|wakeup_rt|wakeup_dl [options]\n\n"
	"Run one of the kernel's latency tracers in ftr's own tracefs instance and\n"
	"print what it measured, as rtla does: per-CPU tables (top), histograms\n"
	"(hist), and with --stop-at, what made the sample that crossed it late.\n\n"
	"Note: timerlat runs a FIFO:95 thread per measured CPU, woken every period;\n"
	"osnoise runs a busy-looping thread that takes runtime/period of each measured\n"
	"CPU (all of it by default); hwlat spins with interrupts off for -r of every\n"
	"-p.  They load the CPUs they measure: choose them with -c.\n\n"
	"  -c, --cpus LIST        measure these CPUs ('1', '0-2,5'; osnoise/cpus)\n"
	"  -d, --duration TIME    run for TIME ('10', '500ms', '2m'); else until Ctrl-C\n"
	"  -p, --period US        timerlat: timer period (1000); osnoise: period\n"
	"                         (1000000); hwlat: window (1000000)\n"
	"  -r, --runtime US       osnoise: runtime per period (= period); hwlat: width\n"
	"                         (500000)\n"
	"  -a, --stop-at US       stop tracing when a latency (timerlat: IRQ or thread;\n"
	"                         osnoise: a single noise) reaches US, and say what\n"
	"                         made it (timerlat: IRQ handler delay, blocking\n"
	"                         thread, interfering IRQs, softirqs and threads, stack)\n"
	"      --no-aa            with --stop-at: stop, do not analyse\n"
	"  -T, --threshold US     osnoise, hwlat: the least gap counted as noise\n"
	"                         (tracing_thresh; the kernel's default when unset)\n"
	"  -b, --bucket-size US   hist: bucket width (1)\n"
	"  -E, --entries N        hist: buckets (256)\n"
	"  -q, --quiet            print only at the end (top redraws each second on\n"
	"                         a terminal otherwise)\n"
	"  -f, --format FMT       text (rtla's) or json\n"
	"  -h, --help             this help\n\n"
	"Global settings changed (osnoise/*, tracing_thresh, hwlat_detector/*) are\n"
	"put back at exit; after a SIGKILL, `ftr reset` puts them back.\n";

enum { OPT_NO_AA = 1000 };
#define LAT_MAX_CPUS 4096

struct lat_run {
	const char *tracer;
	struct lat_opts o;
	uint64_t duration_ns, period, runtime, thresh;
	bool period_set, runtime_set, thresh_set, quiet;
	const char *cpus;
	bool mask[LAT_MAX_CPUS];
	char maskhex[LAT_MAX_CPUS / 4 + LAT_MAX_CPUS / 32 + 8];
	struct session *s;
	struct tep_handle *tep;
	struct lat_stats *st;
	uint64_t records;
};

static bool is_section_tracer(const char *t)
{
	return str_has_prefix(t, "irqsoff") || str_has_prefix(t, "preempt") ||
	       str_has_prefix(t, "wakeup");
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int set_u64(struct session *s, const char *knob, uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return session_global_write(s, knob, buf);
}

static uint64_t read_u64(const char *tdir, const char *knob)
{
	char path[4096], *t;
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", tdir, knob);
	t = read_file(path, NULL);
	v = t ? strtoull(t, NULL, 10) : 0;
	free(t);
	return v;
}

/* A part and its whole (runtime and period, width and window): the kernel
 * refuses a part over the whole, so the one that keeps that true goes first. */
static int set_pair(struct session *s, const char *tdir, const char *part, uint64_t pv,
		    const char *whole, uint64_t wv)
{
	int err;

	if (pv <= read_u64(tdir, whole)) {
		err = set_u64(s, part, pv);
		return err ? err : set_u64(s, whole, wv);
	}
	err = set_u64(s, whole, wv);
	return err ? err : set_u64(s, part, pv);
}

/*
 * The global knobs (trace_osnoise.c keeps one osnoise_data for every
 * instance; tracing_thresh and hwlat_detector/ are top-level only), each
 * set to this run's value, none left at what another user chose.  runtime
 * may not exceed period (osnoise_runtime's max is the period, the period's
 * min the runtime).
 */
static int set_knobs(struct lat_run *r)
{
	const char *tdir = session_tracefs(r->s)->path;
	struct session *s = r->s;
	int err = 0;

	if (!strcmp(r->tracer, "timerlat") || !strcmp(r->tracer, "osnoise")) {
		uint64_t stop = r->o.stop_us;
		char *online = NULL;

		/* without -c: every online CPU, not what a former user chose */
		if (!r->cpus)
			online = read_file("/sys/devices/system/cpu/online", NULL);
		if (online)
			str_trim(online);
		if (r->cpus || online)
			err = session_global_write(s, "osnoise/cpus", r->cpus ? r->cpus : online);
		free(online);
		if (err)
			return err;
		if (!strcmp(r->tracer, "timerlat")) {
			err = set_u64(s, "osnoise/timerlat_period_us", r->period_set ? r->period : 1000);
			if (!err)
				err = set_u64(s, "osnoise/stop_tracing_us", stop);
			if (!err)
				err = set_u64(s, "osnoise/stop_tracing_total_us", stop);
			/* the stack at the IRQ, dumped by the thread when it
			 * is late by this much (timerlat_dump_stack) */
			if (!err)
				err = set_u64(s, "osnoise/print_stack", r->o.aa ? stop : 0);
		} else {
			uint64_t per = r->period_set ? r->period : 1000000;
			uint64_t run = r->runtime_set ? r->runtime : per;

			err = set_pair(s, tdir, "osnoise/runtime_us", run, "osnoise/period_us", per);
			if (!err)
				err = set_u64(s, "osnoise/stop_tracing_us", stop);
			if (!err)
				err = set_u64(s, "osnoise/stop_tracing_total_us", 0);
		}
		if (!err && r->thresh_set)
			err = set_u64(s, "tracing_thresh", r->thresh);
		return err;
	}
	/* the others follow the instance's tracing_cpumask (hwlat's
	 * per-cpu and round-robin modes, the section tracers' records) */
	if (r->cpus && (err = session_write(s, "tracing_cpumask", r->maskhex, NULL)))
		return err;
	if (!strcmp(r->tracer, "hwlat")) {
		uint64_t win = r->period_set ? r->period : 1000000;
		uint64_t width = r->runtime_set ? r->runtime : 500000;

		/* width's max is the window, the window's min the width */
		err = set_pair(s, tdir, "hwlat_detector/width", width, "hwlat_detector/window", win);
		if (!err && r->thresh_set)
			err = set_u64(s, "tracing_thresh", r->thresh);
		return err;
	}
	/* irqsoff, wakeup*: tracing_thresh 0 keeps the maximum only
	 * (report_latency, trace_irqsoff.c) */
	return session_global_write(s, "tracing_thresh", "0");
}

/* current_tracer, or the refusal with who holds it. */
static int set_tracer(struct lat_run *r)
{
	const char *tdir = session_tracefs(r->s)->path;
	char who[256];
	int err = session_try_write(r->s, "current_tracer", r->tracer);

	if (err == -EBUSY) {
		if (lat_tracer_holder(tdir, r->tracer, session_name(r->s), who, sizeof(who)))
			ftr_err("cannot run '%s': the kernel lets one user at a time run it, "
				"and %s has it", r->tracer, who);
		else
			ftr_err("cannot run '%s': %s (no instance holds it: another tracer "
				"user outside tracefs?)", r->tracer, strerror(EBUSY));
		return err;
	}
	/* the same value again, now with its undo (the kernel does nothing
	 * for a tracer already current: tracing_set_tracer) */
	return session_write(r->s, "current_tracer", r->tracer, "nop");
}

static int on_record(struct tep_record *rec, void *arg)
{
	struct lat_run *r = arg;
	struct lat_event ev;

	if (lat_decode(r->tep, rec, &ev) == 1) {
		lat_stats_add(r->st, &ev);
		r->records++;
	}
	return 0;
}

static bool instance_stopped(struct lat_run *r)
{
	char *t = tracefs_instance_file_read(session_instance(r->s), "tracing_on", NULL);
	bool off = t && t[0] == '0';

	free(t);
	return off;
}

/* timerlat, osnoise, hwlat: records into statistics until the end. */
static int run_sampled(struct lat_run *r)
{
	const char *tdir = session_tracefs(r->s)->path;
	static const char *const noise[] = { "nmi_noise", "irq_noise", "softirq_noise",
					     "thread_noise" };
	struct stream *st = NULL;
	struct ksyms *ks = NULL;
	uint64_t t0, last_draw = 0, lost;
	bool tty = isatty(STDOUT_FILENO) && !r->quiet && !r->o.json, stopped = false, unknown;
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), err, sig = 0;

	r->tep = formats_new(tdir);
	if (!r->tep) {
		ftr_err("cannot read the ring buffer's format in '%s': %s", tdir, strerror(errno));
		return -errno;
	}
	lat_formats_load(r->tep, tdir);
	r->st = lat_stats_new(&r->o, ncpus > 0 ? ncpus : 1);
	if (!r->st)
		return -ENOMEM;
	if ((err = set_knobs(r)))
		return err;
	if (r->o.aa && r->o.stop_us && !strcmp(r->tracer, "timerlat")) {
		for (size_t i = 0; i < ARRAY_SIZE(noise); i++) {
			if (!tep_find_event_by_name(r->tep, "osnoise", noise[i]))
				continue;	/* 5.14's events: all or none */
			err = session_event_write(r->s, "osnoise", noise[i], "enable", "1", "0");
			if (err)
				return err;
		}
	}
	if (r->o.mode == LAT_OSNOISE_HIST &&
	    (err = session_event_write(r->s, "osnoise", "sample_threshold", "enable", "1", "0")))
		return err;
	if ((err = set_tracer(r)))
		return err;
	if ((err = stream_open(&st, r->s, r->tep, NULL, 0)) < 0) {
		ftr_err("cannot open the instance's ring buffers: %s", strerror(-err));
		return err;
	}
	if ((err = session_start(r->s)) < 0)
		goto out;
	session_running(r->s);
	t0 = now_ns();
	for (;;) {
		err = stream_wait(st, session_signal_fd(r->s), 200);
		if (err == 1 && (sig = session_pending_signal(r->s)))
			break;
		if (err < 0)
			goto out;
		stream_drain(st, false, on_record, NULL, r);
		if (r->duration_ns && now_ns() - t0 >= r->duration_ns)
			break;
		if (r->o.stop_us && instance_stopped(r)) {
			stopped = true;
			break;
		}
		if (tty && (r->o.mode == LAT_TIMERLAT_TOP || r->o.mode == LAT_OSNOISE_TOP) &&
		    now_ns() - last_draw >= 1000000000ULL) {
			last_draw = now_ns();
			fputs("\033[H\033[2J", stdout);
			lat_stats_print(r->st, stdout, NULL);
			fflush(stdout);
		}
	}
	session_stop(r->s);
	err = stream_drain(st, true, on_record, NULL, r);
	if (err < 0)
		goto out;
	if (tty && (r->o.mode == LAT_TIMERLAT_TOP || r->o.mode == LAT_OSNOISE_TOP))
		fputs("\033[H\033[2J", stdout);
	if (stopped && lat_stats_stopped(r->st) >= 0 && r->o.aa)
		ksyms_load(NULL, &ks);
	lat_stats_print(r->st, stdout, ks);
	if (stopped && !r->o.json)
		printf("ftr latency: %s hit stop tracing\n", r->tracer);
	stream_read_stats(st);
	lost = stream_lost_total(st, &unknown);
	if (lost || unknown)
		ftr_warn("%s%llu records lost: the statistics miss them", unknown ? "some; at least " : "",
			 (unsigned long long)lost);
	if (!r->records && !sig)
		ftr_warn("the %s tracer wrote no records in the run", r->tracer);
	err = 0;
out:
	ksyms_free(ks);
	stream_free(st);
	return err;
}

/* irqsoff and the wakeup tracers: the worst section of the run, as the
 * kernel keeps it (tracing_max_latency and the max buffer's trace). */
static int run_section(struct lat_run *r)
{
	struct tracefs_instance *inst = session_instance(r->s);
	uint64_t t0 = now_ns();
	char *max, *trace;
	int err, sig = 0;

	if ((err = set_knobs(r)))
		return err;
	/* the section's stack, recorded with its end (__trace_stack in
	 * check_critical_timing, trace_irqsoff.c) */
	if (tracefs_file_exists(inst, "options/stacktrace") &&
	    (err = session_write(r->s, "options/stacktrace", "1", "0")))
		return err;
	if ((err = set_tracer(r)))
		return err;
	if ((err = session_write(r->s, "tracing_max_latency", "0", NULL)))
		return err;
	if ((err = session_start(r->s)) < 0)
		return err;
	session_running(r->s);
	while (!r->duration_ns || now_ns() - t0 < r->duration_ns) {
		struct timespec ts = { 0, 100000000 };

		if ((sig = session_pending_signal(r->s)))
			break;
		nanosleep(&ts, NULL);
	}
	session_stop(r->s);
	max = tracefs_instance_file_read(inst, "tracing_max_latency", NULL);
	trace = tracefs_instance_file_read(inst, "trace", NULL);
	if (r->o.json) {
		printf("{\"tracer\": \"%s\", \"max_latency_us\": %llu, \"trace\": ", r->tracer,
		       max ? strtoull(max, NULL, 10) : 0ULL);
		json_str(stdout, trace ? trace : "");
		printf("}\n");
	} else {
		printf("%s: max latency %llu us\n", r->tracer, max ? strtoull(max, NULL, 10) : 0ULL);
		if (trace)
			fputs(trace, stdout);
	}
	free(max);
	free(trace);
	return 0;
}

static int parse_us(const char *opt, const char *arg, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-')
		return cmd_usage_error("latency", "bad %s '%s' (microseconds)", opt, arg);
	return -1;
}

int cmd_latency(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "period", required_argument, NULL, 'p' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "stop-at", required_argument, NULL, 'a' },
		{ "no-aa", no_argument, NULL, OPT_NO_AA },
		{ "threshold", required_argument, NULL, 'T' },
		{ "bucket-size", required_argument, NULL, 'b' },
		{ "entries", required_argument, NULL, 'E' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lat_run r = { .o = { .bucket_us = 1, .entries = 256, .aa = true } };
	const char *sub = NULL;
	bool listed, known = false;
	int c, ret, err;

	if (argc > 1 && argv[1][0] != '-')
		r.tracer = argv[1];
	if (argc > 2 && r.tracer && argv[2][0] != '-')
		sub = argv[2];
	optind = 1 + (r.tracer != NULL) + (sub != NULL);
	while ((c = cmd_getopt("latency", argc, argv, "c:C:d:p:r:a:T:b:E:qf:h", longopts)) != -1) {
		uint64_t v;

		ret = -1;
		switch (c) {
		case 'c':
		case 'C':
			r.cpus = optarg;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &r.duration_ns) < 0 || !r.duration_ns)
				return cmd_usage_error("latency", "bad duration '%s'", optarg);
			break;
		case 'p':
			ret = parse_us("period", optarg, &r.period);
			r.period_set = true;
			break;
		case 'r':
			ret = parse_us("runtime", optarg, &r.runtime);
			r.runtime_set = true;
			break;
		case 'a':
			ret = parse_us("--stop-at", optarg, &r.o.stop_us);
			break;
		case OPT_NO_AA:
			r.o.aa = false;
			break;
		case 'T':
			ret = parse_us("threshold", optarg, &r.thresh);
			r.thresh_set = true;
			break;
		case 'b':
			ret = parse_us("bucket size", optarg, &r.o.bucket_us);
			break;
		case 'E':
			ret = parse_us("entries", optarg, &v);
			if (ret < 0 && (v < 1 || v > 1000000))
				return cmd_usage_error("latency", "bad entries '%s' (1 to 1000000)",
						       optarg);
			r.o.entries = (int)v;
			break;
		case 'q':
			r.quiet = true;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				r.o.json = true;
			else if (strcmp(optarg, "text"))
				return cmd_usage_error("latency", "bad format '%s' (text or json)",
						       optarg);
			break;
		case 'h':
			fputs(latency_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
		if (ret >= 0)
			return ret;
	}
	if (optind < argc)
		return cmd_usage_error("latency", "unexpected argument '%s'", argv[optind]);
	if (!r.tracer)
		return cmd_usage_error("latency", "which tracer? (timerlat, osnoise, hwlat, irqsoff, ...)");
	for (size_t i = 0; i < lat_ntracers; i++)
		known |= !strcmp(r.tracer, lat_tracers[i]);
	if (!known)
		return cmd_usage_error("latency", "unknown tracer '%s'", r.tracer);
	if (!strcmp(r.tracer, "timerlat") || !strcmp(r.tracer, "osnoise")) {
		bool tl = r.tracer[0] == 't';

		if (!sub || !strcmp(sub, "top"))
			r.o.mode = tl ? LAT_TIMERLAT_TOP : LAT_OSNOISE_TOP;
		else if (!strcmp(sub, "hist"))
			r.o.mode = tl ? LAT_TIMERLAT_HIST : LAT_OSNOISE_HIST;
		else
			return cmd_usage_error("latency", "'%s' has top and hist, not '%s'",
					       r.tracer, sub);
	} else if (sub) {
		return cmd_usage_error("latency", "unexpected argument '%s'", sub);
	} else if (!strcmp(r.tracer, "hwlat")) {
		r.o.mode = LAT_HWLAT;
	}
	if (!r.o.bucket_us)
		return cmd_usage_error("latency", "bad bucket size 0");
	if (r.runtime_set && r.period_set && r.runtime > r.period)
		return cmd_usage_error("latency", "runtime %llu us exceeds the period %llu us",
				       (unsigned long long)r.runtime,
				       (unsigned long long)r.period);
	if (r.cpus) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		if (n <= 0 || n > LAT_MAX_CPUS || parse_cpulist(r.cpus, r.mask, (int)n) < 0)
			return cmd_usage_error("latency", "bad CPU list '%s'", r.cpus);
		cpumask_hex(r.mask, (int)n, r.maskhex, sizeof(r.maskhex));
	}

	if (session_open(&r.s, 0) < 0)
		return FTR_EXIT_FAIL;
	listed = lat_tracer_listed(session_tracefs(r.s)->path, r.tracer);
	if (!listed) {
		ftr_err("this kernel has no '%s' tracer (%s/available_tracers does not list it; "
			"it needs %s)", r.tracer, session_tracefs(r.s)->path,
			lat_tracer_config(r.tracer));
		session_close(r.s);
		return FTR_EXIT_FAIL;
	}
	if (session_instance_ready(r.s) < 0) {
		session_close(r.s);
		return FTR_EXIT_FAIL;
	}
	err = is_section_tracer(r.tracer) ? run_section(&r) : run_sampled(&r);
	session_close(r.s);
	lat_stats_free(r.st);
	if (r.tep)
		tep_free(r.tep);
	return err ? FTR_EXIT_FAIL : FTR_EXIT_OK;
}
