// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr trace: stream events from the kernel's raw ring buffers, filtered in
 * the kernel where it can, in user space where it cannot, with every lost
 * event accounted for.
 *
 * Lifecycle (rtla's): parse → resolve events → load formats → configure the
 * private instance with tracing off → enable → open buffers → start →
 * read until done → stop → final drain → summary → undo everything.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "child.h"
#include "cmd.h"
#include "comm.h"
#include "evsel.h"
#include "expr.h"
#include "features.h"
#include "formats.h"
#include "ftr.h"
#include "output.h"
#include "probe.h"
#include "session.h"
#include "stream.h"

static const char trace_usage[] =
	"usage: ftr trace [options] EVENT [-f FILTER] [EVENT [-f FILTER] ...] [-- CMD [ARGS]]\n\n"
	"Stream events as they happen, from the kernel's per-CPU raw buffers.\n\n"
	"EVENT is SYSTEM:EVENT (globs allowed: 'syscalls:sys_enter_*'), also spelled\n"
	"tracepoint:SYSTEM:EVENT or t:SYSTEM:EVENT, or a dynamic probe:\n"
	"  kprobe:FUNC [NAME=FETCH[:TYPE] ...]     kretprobe:FUNC\n"
	"  uprobe:PATH:SYMBOL[+OFF] [NAME=FETCH]    uretprobe:PATH:SYMBOL\n"
	"A -f after an EVENT filters that event; a -f before any EVENT filters all.\n\n"
	"  -f, --filter EXPR      the kernel's filter syntax: 'fd == 1 && count >= 4096'\n"
	"  -U, --user-filter      evaluate filters in user space, not in the kernel\n"
	"  -p, --pid PID          only this process and its threads (in the kernel)\n"
	"  -C, --cpus LIST        only these CPUs: '0', '0-2,5'\n"
	"  -d, --duration TIME    stop after TIME: '5' or '5s', '200ms', '2m'\n"
	"  -c, --count N          stop after N events\n"
	"  -b, --buffer-size KB   per-CPU ring buffer size (default: 1/64 of memory,\n"
	"                         at most 32 MB in all, 1.4 to 8 MB per CPU)\n"
	"  -j, --json             one JSON object per event\n"
	"  -F, --fields A,B,C     print only these fields\n"
	"      --fail-on-lost     exit 1 when the kernel lost events\n"
	"  -E, --explain          print the tracefs writes this run would make, and exit\n"
	"  -h, --help             this help\n\n"
	"With -- CMD, the command is started with tracing set up and filtered to it and\n"
	"its children; ftr ends when it ends, as with -p when the process exits.\n"
	"Otherwise Ctrl-C (or SIGTERM) ends the trace.\n";

struct tsel {
	char *spec;
	char *filter;
	struct probe_spec *probe;	/* a dynamic probe, else NULL */
	char *probe_text;		/* its spec with the fields that followed it */
};

/* One enabled event. */
struct tev {
	char *sys, *name;
	const char *filter_text;
	struct tep_event *ev;
	struct expr *filter;
	bool user_filter;	/* evaluated here, not in the kernel */
	struct evfmt fmt;
	struct tracefs_dynevent *dyn;
};

struct trace {
	struct session *s;
	struct tep_handle *tep;
	struct comm_cache *comms;
	struct tev *ev;
	int nev;
	struct tev **by_id;
	int max_id;
	struct outbuf *ob;
	enum out_mode mode;
	uint64_t count_limit, printed, filtered_out;
	char **only;
	int nonly;
	bool user_filter;
	bool stop;
};

static bool is_probe_spec(const char *s)
{
	static const char *const prefixes[] = {
		"kprobe:", "k:", "kretprobe:", "kr:", "uprobe:", "u:", "uretprobe:", "ur:",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(s, prefixes[i]))
			return true;
	return false;
}

/* A probe field after a probe spec: NAME=FETCH[:TYPE], or argN, retval,
 * comm (optionally :TYPE).  Anything else is the next event. */
static bool is_fetch_word(const char *w)
{
	size_t n = strcspn(w, ":");

	if (w[0] == '-' || is_probe_spec(w))
		return false;
	if (strchr(w, '='))
		return true;
	if ((n == 6 && !strncmp(w, "retval", 6)) || (n == 4 && !strncmp(w, "comm", 4)))
		return true;
	if (n > 3 && !strncmp(w, "arg", 3) && strspn(w + 3, "0123456789") == n - 3)
		return true;
	return false;
}

static const char *comm_cb(int pid, void *arg)
{
	return comm_lookup(arg, pid);
}

static int on_record(struct tep_record *rec, void *arg)
{
	struct trace *t = arg;
	int id = tep_data_type(t->tep, rec);
	struct tev *e;
	int pid;

	if (id < 0 || id > t->max_id || !(e = t->by_id[id]))
		return 0;	/* not ours (cannot happen in a private instance) */
	if (e->user_filter) {
		struct expr_ctx ctx = { .cpu = rec->cpu, .comm = comm_cb, .arg = t->comms };

		if (!expr_eval(e->filter, rec, &ctx)) {
			t->filtered_out++;
			return 0;
		}
	}
	pid = evfmt_pid(&e->fmt, rec);
	evfmt_print(t->ob, t->mode, &e->fmt, rec, comm_lookup(t->comms, pid), pid);
	if (t->ob->err)
		return t->ob->err;
	if (t->count_limit && ++t->printed >= t->count_limit)
		return 1;
	return 0;
}

static void on_lost(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct trace *t = arg;

	/* Inline, where it happened, in the same stream as the events. */
	if (t->mode == OUT_JSON) {
		ob_puts(t->ob, "{\"lost\":");
		if (n > 0)
			ob_s64(t->ob, n);
		else
			ob_puts(t->ob, "null");
		ob_puts(t->ob, ",\"cpu\":");
		ob_s64(t->ob, cpu);
		ob_puts(t->ob, "}\n");
	} else {
		ob_puts(t->ob, "-- cpu ");
		ob_s64(t->ob, cpu);
		ob_puts(t->ob, ": ");
		if (n > 0)
			ob_s64(t->ob, n);
		else
			ob_puts(t->ob, "an unknown number of");
		ob_puts(t->ob, " events lost here --\n");
	}
}

/* ---- setup ---------------------------------------------------------------------- */

static int add_event(struct trace *t, const char *sys, const char *name, const char *filter,
		     struct tracefs_dynevent *dyn)
{
	struct tev *v;

	for (int i = 0; i < t->nev; i++) {
		if (strcmp(t->ev[i].sys, sys) || strcmp(t->ev[i].name, name))
			continue;
		/* Named twice (two globs): the more specific filter wins. */
		if (filter)
			t->ev[i].filter_text = filter;
		return 0;
	}
	v = realloc(t->ev, (t->nev + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->ev = v;
	v = &t->ev[t->nev++];
	memset(v, 0, sizeof(*v));
	v->sys = strdup(sys);
	v->name = strdup(name);
	v->filter_text = filter;
	v->dyn = dyn;
	return v->sys && v->name ? 0 : -ENOMEM;
}

static int resolve(struct trace *t, struct tsel *sel, int nsel, const char *global_filter,
		   const struct features *feat)
{
	const char *tdir = session_tracefs(t->s)->path;
	char err[512];
	int ret;

	for (int i = 0; i < nsel; i++) {
		const char *filter = sel[i].filter ? sel[i].filter : global_filter;
		struct evlist l = { 0 };

		if (sel[i].probe) {
			struct probe made;

			ret = probe_create(t->s, feat, sel[i].probe, &made);
			if (ret < 0)
				return ret;
			ret = add_event(t, made.system, made.event, filter, made.dyn);
			if (ret < 0)
				return ret;
			continue;
		}
		ret = evsel_resolve(tdir, sel[i].spec, &l, err, sizeof(err));
		if (ret < 0) {
			ftr_err("%s", err);
			return ret;
		}
		for (size_t j = 0; j < l.n; j++) {
			ret = add_event(t, l.v[j].sys, l.v[j].name, filter, NULL);
			if (ret < 0)
				break;
		}
		evlist_free(&l);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int load_formats(struct trace *t)
{
	const char *tdir = session_tracefs(t->s)->path;

	t->tep = formats_new(tdir);
	if (!t->tep) {
		ftr_err("cannot read '%s/events/header_page': %s", tdir,
			strerror(errno ? errno : EIO));
		return -EIO;
	}
	for (int i = 0; i < t->nev; i++) {
		struct tev *e = &t->ev[i];

		e->ev = formats_add(t->tep, tdir, e->sys, e->name);
		if (!e->ev) {
			ftr_err("cannot read the format of '%s:%s'", e->sys, e->name);
			return -ENOENT;
		}
		if (e->ev->id > t->max_id)
			t->max_id = e->ev->id;
		if (evfmt_init(&e->fmt, e->ev, t->only, t->nonly) < 0)
			return -ENOMEM;
	}
	t->by_id = calloc(t->max_id + 1, sizeof(*t->by_id));
	if (!t->by_id)
		return -ENOMEM;
	for (int i = 0; i < t->nev; i++)
		t->by_id[t->ev[i].ev->id] = &t->ev[i];
	if (t->only) {
		/* A field no selected event has is a typo, not a choice. */
		for (int j = 0; j < t->nonly; j++) {
			bool found = false;

			for (int i = 0; i < t->nev && !found; i++)
				found = tep_find_any_field(t->ev[i].ev, t->only[j]) != NULL;
			if (!found) {
				ftr_err("no selected event has a field '%s'", t->only[j]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Parse, check and place each filter: in the kernel when it can take it,
 * in user space otherwise (or when asked). */
static int setup_filters(struct trace *t)
{
	for (int i = 0; i < t->nev; i++) {
		struct tev *e = &t->ev[i];
		struct expr_err err = { .pos = -1 };
		char why[256], ktext[4096];

		if (!e->filter_text)
			continue;
		e->filter = expr_parse(e->filter_text, &err);
		if (!e->filter || expr_bind(e->filter, e->ev, &err) < 0) {
			ftr_err("bad filter for '%s:%s': %s", e->sys, e->name, err.msg);
			if (err.pos >= 0)
				fprintf(stderr, "  %s\n  %*s^\n", e->filter_text, err.pos, "");
			return -EINVAL;
		}
		if (t->user_filter) {
			e->user_filter = true;
			continue;
		}
		if (!expr_kernel_ok(e->filter, why, sizeof(why))) {
			ftr_info("filter for '%s:%s' runs in user space: %s", e->sys, e->name, why);
			e->user_filter = true;
			continue;
		}
		if (expr_to_kernel(e->filter, ktext, sizeof(ktext)) < 0) {
			e->user_filter = true;
			continue;
		}
		/* Before enabling: an unfiltered burst must never get in. */
		if (session_event_write(t->s, e->sys, e->name, "filter", ktext, NULL) < 0)
			return -EINVAL;
	}
	return 0;
}

/* All threads of pid, so that -p follows a multi-threaded process. */
static int pid_threads(int pid, char *buf, size_t len)
{
	char path[64];
	struct dirent *de;
	size_t off;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return -errno;
	off = snprintf(buf, len, "%d", pid);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || atoi(de->d_name) == pid)
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, " %s", de->d_name);
	}
	closedir(d);
	return off < len ? 0 : -ENOSPC;
}

/* ---- the traced command ------------------------------------------------------ */

/* child_spawn's before_exec: the signal mask ftr started with. */
static void trace_child_signals(void *s)
{
	session_child_signals(s);
}

/* ---- the run -------------------------------------------------------------------- */

/*
 * The per-CPU buffer when the user names none.  The kernel's 1.4 MB holds
 * about 12 ms of a busy syscall tracepoint: one scheduling hiccup of the
 * reader and events are lost.  Take 1/64 of memory, at most 32 MB in all,
 * shared by the CPUs, between 1.4 MB and 8 MB each.
 */
static unsigned long default_buffer_kb(long ncpu)
{
	char *mi = read_file("/proc/meminfo", NULL);
	unsigned long mem_kb = 0, kb;
	char *p = mi ? strstr(mi, "MemTotal:") : NULL;

	if (p)
		mem_kb = strtoul(p + 9, NULL, 10);
	free(mi);
	kb = mem_kb / 64;
	if (kb > 32768)
		kb = 32768;
	kb /= ncpu > 0 ? (unsigned long)ncpu : 1;
	if (kb < 1408)
		kb = 1408;
	if (kb > 8192)
		kb = 8192;
	return kb;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void summary(struct trace *t, struct stream *st, bool always)
{
	uint64_t lost, delivered = 0;
	bool unknown;

	stream_read_stats(st);
	lost = stream_lost_total(st, &unknown);
	for (int i = 0; i < stream_ncpus(st); i++) {
		struct stream_cpu_stats cs;

		stream_cpu(st, i, &cs);
		delivered += cs.delivered;
	}
	if (!lost && !unknown && !always)
		return;
	fprintf(stderr, "ftr: %llu events read", (unsigned long long)delivered);
	if (t->filtered_out)
		fprintf(stderr, ", %llu dropped by the user-space filter",
			(unsigned long long)t->filtered_out);
	if (lost || unknown)
		fprintf(stderr, ", %s%llu LOST by the kernel", unknown ? "at least " : "",
			(unsigned long long)lost);
	fprintf(stderr, "\n");
	if (!lost && !unknown)
		return;
	fprintf(stderr, "  cpu      read      lost\n");
	for (int i = 0; i < stream_ncpus(st); i++) {
		struct stream_cpu_stats cs;
		int cpu = stream_cpu(st, i, &cs);
		uint64_t l = cs.overrun + cs.dropped;

		if (cs.lost_inline > l)
			l = cs.lost_inline;
		fprintf(stderr, "  %3d %9llu %9llu%s\n", cpu, (unsigned long long)cs.delivered,
			(unsigned long long)l, cs.lost_unknown && !l ? "+" : "");
	}
	fprintf(stderr, "  (a bigger --buffer-size, a filter, or fewer events would keep up)\n");
}

int cmd_trace(int argc, char **argv)
{
	enum { OPT_FAIL_LOST = 1000 };
	static const struct option longopts[] = {
		{ "filter", required_argument, NULL, 'f' },
		{ "user-filter", no_argument, NULL, 'U' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'c' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "fields", required_argument, NULL, 'F' },
		{ "fail-on-lost", no_argument, NULL, OPT_FAIL_LOST },
		{ "explain", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct outbuf ob;
	struct trace t = { .mode = OUT_TEXT, .ob = &ob };
	struct tsel *sel = NULL;
	struct child child = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct stream *st = NULL;
	struct features feat;
	char *global_filter = NULL, *fields = NULL, **cmdv = NULL;
	const char *pid_arg = NULL, *cpus_arg = NULL, *bufsz = NULL;
	bool explain = false, fail_on_lost = false;
	bool cpumask[1024];
	uint64_t duration = 0, deadline = 0, v;
	int nsel = 0, c, ret = FTR_EXIT_FAIL, err, pid = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	/* A leading '-': events come back in order as option 1, so that a
	 * -f applies to the event just before it (perf's rule). */
	while ((c = cmd_getopt("trace", argc, argv, "-f:Up:C:d:c:b:jF:Eh", longopts)) != -1) {
		switch (c) {
		case 1: {
			struct tsel *ns = realloc(sel, (nsel + 1) * sizeof(*sel));

			if (!ns)
				goto out;
			sel = ns;
			memset(&sel[nsel], 0, sizeof(*sel));
			sel[nsel].spec = optarg;
			if (is_probe_spec(optarg)) {
				/* kprobe:f count=arg2 ...: the NAME=FETCH words
				 * that follow belong to the probe. */
				struct probe_error perr = { .pos = -1 };
				size_t len = strlen(optarg) + 1;
				char *text;
				int first = optind;

				while (optind < argc && is_fetch_word(argv[optind]))
					len += strlen(argv[optind++]) + 1;
				text = malloc(len);
				sel[nsel].probe = calloc(1, sizeof(struct probe_spec));
				if (!text || !sel[nsel].probe) {
					free(text);
					goto out;
				}
				sel[nsel].probe_text = text;
				text += sprintf(text, "%s", optarg);
				for (int k = first; k < optind; k++)
					text += sprintf(text, " %s", argv[k]);
				if (probe_parse(sel[nsel].probe_text, sel[nsel].probe, &perr) < 0) {
					probe_perror(sel[nsel].probe_text, &perr);
					nsel++;
					ret = FTR_EXIT_USAGE;
					goto out;
				}
			}
			nsel++;
			break;
		}
		case 'f':
			if (nsel && !sel[nsel - 1].filter)
				sel[nsel - 1].filter = optarg;
			else if (!nsel && !global_filter)
				global_filter = optarg;
			else {
				ret = cmd_usage_error("trace", "two filters for one event: join "
						      "them with && in one -f");
				goto out;
			}
			break;
		case 'U':
			t.user_filter = true;
			break;
		case 'p':
			pid_arg = optarg;
			break;
		case 'C':
			cpus_arg = optarg;
			break;
		case 'd':
			if (parse_duration_ns(optarg, &duration) < 0 || !duration) {
				ret = cmd_usage_error("trace", "bad duration '%s' (e.g. 5, 5s, "
						      "200ms, 2m)", optarg);
				goto out;
			}
			break;
		case 'c':
			if (parse_u64(optarg, &t.count_limit) < 0 || !t.count_limit) {
				ret = cmd_usage_error("trace", "bad count '%s'", optarg);
				goto out;
			}
			break;
		case 'b':
			if (parse_u64(optarg, &v) < 0 || v < 4 || v > (1u << 22)) {
				ret = cmd_usage_error("trace", "bad buffer size '%s' (KB per CPU, "
						      "4 to 4194304)", optarg);
				goto out;
			}
			bufsz = optarg;
			break;
		case 'j':
			t.mode = OUT_JSON;
			break;
		case 'F':
			fields = optarg;
			break;
		case OPT_FAIL_LOST:
			fail_on_lost = true;
			break;
		case 'E':
			explain = true;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			ret = FTR_EXIT_OK;
			goto out;
		default:
			ret = FTR_EXIT_USAGE;
			goto out;
		}
	}
	if (optind < argc)
		cmdv = argv + optind;	/* after "--" */
	if (!nsel) {
		ret = cmd_usage_error("trace", "no event given (see 'ftr list')");
		goto out;
	}
	if (pid_arg && cmdv) {
		ret = cmd_usage_error("trace", "-p and a command exclude each other");
		goto out;
	}
	if (pid_arg) {
		if (parse_u64(pid_arg, &v) < 0 || v == 0 || v > INT32_MAX) {
			ret = cmd_usage_error("trace", "bad pid '%s'", pid_arg);
			goto out;
		}
		pid = (int)v;
		if (!pid_alive(pid)) {
			ftr_err("no process with pid %d", pid);
			goto out;
		}
	}
	if (cpus_arg) {
		if (ncpu > (long)ARRAY_SIZE(cpumask))
			ncpu = ARRAY_SIZE(cpumask);
		err = parse_cpulist(cpus_arg, cpumask, (int)ncpu);
		if (err) {
			ret = cmd_usage_error("trace", "bad CPU list '%s'%s", cpus_arg,
					      err == -ERANGE ? " (no such CPU)" : "");
			goto out;
		}
	}
	if (fields) {
		for (char *p = strtok(fields, ","); p; p = strtok(NULL, ",")) {
			char **n = realloc(t.only, (t.nonly + 1) * sizeof(*n));

			if (!n)
				goto out;
			t.only = n;
			t.only[t.nonly++] = p;
		}
	}

	if (session_open(&t.s, explain ? SESSION_DRY_RUN : 0) < 0)
		goto out;
	features_probe(&feat, NULL);
	if (feat.tracing_locked) {
		ftr_err("kernel lockdown forbids tracing: tracefs at '%s' is empty "
			"(see 'ftr doctor')", feat.tfs.path);
		goto out;
	}
	if (session_instance_ready(t.s) < 0)
		goto out;
	if (resolve(&t, sel, nsel, global_filter, &feat) < 0 || load_formats(&t) < 0)
		goto out;
	t.comms = comm_cache_new(t.tep);
	if (!t.comms)
		goto out;

	/* Configure the instance (tracing is off in it). */
	if (!bufsz) {
		static char dflt[32];

		snprintf(dflt, sizeof(dflt), "%lu", default_buffer_kb(ncpu));
		bufsz = dflt;
	}
	if (session_write(t.s, "buffer_size_kb", bufsz, NULL) < 0)
		goto out;
	if (cpus_arg) {
		char mask[512];

		cpumask_hex(cpumask, (int)ncpu, mask, sizeof(mask));
		if (session_write(t.s, "tracing_cpumask", mask, NULL) < 0)
			goto out;
	}
	if (setup_filters(&t) < 0)
		goto out;
	if (pid || cmdv) {
		char pids[4096];

		if (cmdv) {
			if (explain) {
				snprintf(pids, sizeof(pids), "$CMD_PID");
			} else {
				err = child_spawn(cmdv, &child, trace_child_signals, t.s);
				if (err < 0) {
					ftr_err("cannot start '%s': %s", cmdv[0], strerror(-err));
					goto out;
				}
				snprintf(pids, sizeof(pids), "%d", child.pid);
			}
		} else if (pid_threads(pid, pids, sizeof(pids)) < 0) {
			ftr_err("cannot list the threads of pid %d", pid);
			goto out;
		}
		/* In the kernel: only these pids, and what they fork. */
		if (session_write(t.s, "options/event-fork", "1", NULL) < 0 ||
		    session_write(t.s, "set_event_pid", pids, NULL) < 0)
			goto out;
	}
	for (int i = 0; i < t.nev; i++)
		if (session_event_write(t.s, t.ev[i].sys, t.ev[i].name, "enable", "1", "0") < 0)
			goto out;
	if (explain) {
		session_start(t.s);
		ret = FTR_EXIT_OK;
		goto out;
	}

	ob_init(&ob, STDOUT_FILENO);
	if (stream_open(&st, t.s, t.tep, cpus_arg ? cpumask : NULL, (int)ncpu) < 0)
		goto out;
	if (session_start(t.s) < 0)
		goto out;
	if (cmdv && child_release(&child, cmdv[0]) < 0)
		goto out;
	if (duration)
		deadline = now_ns() + duration;

	while (!t.stop) {
		int timeout = 100;

		if (deadline) {
			uint64_t now = now_ns();

			if (now >= deadline)
				break;
			if ((deadline - now) / 1000000 < (uint64_t)timeout)
				timeout = (int)((deadline - now) / 1000000) + 1;
		}
		err = stream_wait(st, session_signal_fd(t.s), timeout);
		if (err < 0) {
			ftr_err("poll: %s", strerror(-err));
			goto out;
		}
		if (err == 1 && session_pending_signal(t.s))
			t.stop = true;
		err = stream_drain(st, on_record, on_lost, &t);
		if (err)
			t.stop = true;
		if (ob_flush(&ob) < 0)
			break;
		if (cmdv && !child.done && waitpid(child.pid, &child.status, WNOHANG) == child.pid) {
			child.done = true;
			t.stop = true;
		}
		/* -p: the traced process is gone, nothing more will come. */
		if (pid && !pid_alive(pid))
			t.stop = true;
	}
	/* Stop, then read what is still in the buffers. */
	session_stop(t.s);
	if (!(t.count_limit && t.printed >= t.count_limit) && !ob.err)
		stream_drain(st, on_record, on_lost, &t);
	ob_flush(&ob);
	if (ob.err && ob.err != -EPIPE)
		ftr_err("write error on standard output: %s", strerror(-ob.err));
	summary(&t, st, ftr_verbose > 0);
	ret = ob.err && ob.err != -EPIPE ? FTR_EXIT_FAIL : FTR_EXIT_OK;
	if (fail_on_lost && stream_lost_total(st, NULL))
		ret = FTR_EXIT_FAIL;
out:
	child_abandon(&child);
	stream_free(st);
	session_close(t.s);
	for (int i = 0; i < t.nev; i++) {
		free(t.ev[i].sys);
		free(t.ev[i].name);
		expr_free(t.ev[i].filter);
		evfmt_free(&t.ev[i].fmt);
	}
	for (int i = 0; i < nsel; i++) {
		free(sel[i].probe);
		free(sel[i].probe_text);
	}
	free(t.ev);
	free(t.by_id);
	free(t.only);
	free(sel);
	comm_cache_free(t.comms);
	if (t.tep)
		tep_free(t.tep);
	return ret;
}
