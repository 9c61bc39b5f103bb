// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counting behind `ftr stat`: what a command, a process or the whole
 * system cost — task-clock, context switches, migrations, faults, hardware
 * counters where there is a PMU, tracepoint counts — with the
 * elapsed/user/sys split and one line saying what the split means (the
 * seed's S1).
 *
 * Counters are perf_event_open counting events read with read(2); nothing
 * is sampled and no tracefs state is changed (a tracepoint counter needs
 * only the event's id, which the command reads).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ftr.h"
#include "perf/child.h"
#include "perf/perf.h"
#include "profile/stat.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} default_events[] = {
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int stat_add_ctr(struct stat_cnt *st, const char *name, uint32_t type, uint64_t config)
{
	struct stat_ctr *v = realloc(st->c, (st->nc + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	st->c = v;
	v = &st->c[st->nc++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->type = type;
	v->config = config;
	v->time_ns = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK ||
						    config == PERF_COUNT_SW_CPU_CLOCK);
	v->hw = type == PERF_TYPE_HARDWARE;
	return 0;
}


static void close_ctrs(struct stat_cnt *st)
{
	for (int i = 0; i < st->nc; i++) {
		for (int j = 0; j < st->c[i].nfd; j++)
			close(st->c[i].fds[j]);
		free(st->c[i].fds);
		st->c[i].fds = NULL;
		st->c[i].nfd = 0;
	}
}

static void explain_fail(struct stat_cnt *st, const char *what, int err, enum perf_scope scope)
{
	char why[512];

	perf_explain(err, scope, perf_paranoid(), perf_privileged(), why, sizeof(why));
	if (st->target == STAT_PID)
		ftr_err("cannot count %s of pid %d: %s", what, st->pid, why);
	else
		ftr_err("cannot count %s: %s", what, why);
}

/* Open every counter on the target.  For a command, pid is the child held
 * back before exec: enable_on_exec starts the counters at its exec. */
static int open_ctrs(struct stat_cnt *st, int child_pid)
{
	int *tids = NULL, ntid = 1, err = 0;
	enum perf_scope scope = st->target == STAT_ALL ? PERF_SCOPE_CPU : PERF_SCOPE_KERNEL;

	if (st->target == STAT_PID) {
		raise_nofile();
		err = proc_threads(st->pid, &tids, &ntid);
		if (err < 0) {
			ftr_err("cannot list the threads of pid %d: %s", st->pid, strerror(-err));
			return err;
		}
	}
	for (int i = 0; i < st->nc; i++) {
		struct stat_ctr *c = &st->c[i];
		int nfd = st->target == STAT_ALL ? st->ncpu : ntid;

		c->fds = calloc(nfd, sizeof(*c->fds));
		if (!c->fds) {
			err = -ENOMEM;
			break;
		}
		for (int k = 0; k < nfd; k++) {
			struct perf_event_attr a = {
				.size = sizeof(a), .type = c->type, .config = c->config,
				.disabled = 1,
				.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					       PERF_FORMAT_TOTAL_TIME_RUNNING,
				.exclude_kernel = st->user_only, .exclude_hv = st->user_only,
			};
			int pid = -1, cpu = -1, fd;

			if (st->target == STAT_ALL) {
				if (!st->cpus[k])
					continue;
				cpu = k;
			} else {
				pid = st->target == STAT_CMD ? child_pid : tids[k];
				a.inherit = 1;	/* and what it starts */
				a.enable_on_exec = st->target == STAT_CMD;
			}
			fd = perf_open(&a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd == -ESRCH && st->target == STAT_PID && k > 0)
				continue;	/* a thread ended meanwhile */
			if (fd < 0 && (fd == -EACCES || fd == -EPERM) && !st->user_only &&
			    st->target != STAT_ALL && c->type != PERF_TYPE_TRACEPOINT &&
			    !perf_privileged() && perf_paranoid() > 1) {
				/* kernel.perf_event_paranoid=2: what an unprivileged
				 * user may count is user space only.  Say so once. */
				st->user_only = true;
				perf_explain(fd, PERF_SCOPE_KERNEL, perf_paranoid(), false,
					     st->why_user_only, sizeof(st->why_user_only));
				close_ctrs(st);
				free(tids);
				return open_ctrs(st, child_pid);
			}
			if (fd < 0 && c->hw && fd != -EACCES && fd != -EPERM)
				break;	/* no PMU (or not this event): <not supported> */
			if (fd < 0) {
				if (fd == -ESRCH && st->target == STAT_PID)
					ftr_err("no process with pid %d", st->pid);
				else
					explain_fail(st, c->name, fd,
						     c->type == PERF_TYPE_TRACEPOINT ? PERF_SCOPE_KERNEL :
						     scope);
				err = fd;
				break;
			}
			c->fds[c->nfd++] = fd;
		}
		if (err)
			break;
		c->supported |= c->nfd > 0;
	}
	free(tids);
	return err;
}

static void ctrs_ioctl(struct stat_cnt *st, unsigned long req)
{
	for (int i = 0; i < st->nc; i++)
		for (int j = 0; j < st->c[i].nfd; j++)
			ioctl(st->c[i].fds[j], req, 0);
}

static int read_ctrs(struct stat_cnt *st, int run)
{
	for (int i = 0; i < st->nc; i++) {
		struct stat_ctr *c = &st->c[i];

		memset(&c->sum, 0, sizeof(c->sum));
		for (int j = 0; j < c->nfd; j++) {
			struct perf_count v;

			if (perf_count_read(c->fds[j], &v) < 0)
				continue;
			c->sum.value += v.value;
			c->sum.enabled += v.enabled;
			c->sum.running += v.running;
		}
		/* A task that never ran enables nothing: that is a count of 0.
		 * Enabled but never on the PMU (multiplexed out) is not. */
		if (c->nfd && (c->sum.running || !c->sum.enabled))
			c->counted = true;
		c->running_pct = c->sum.enabled ? 100.0 * c->sum.running / c->sum.enabled : 100;
		c->runs[run] = perf_count_scaled(&c->sum);
	}
	return 0;
}

/* utime and stime of a process, from /proc/PID/stat (clock ticks). */
static int proc_times(int pid, double *user, double *sys)
{
	char path[64], *s, *p;
	unsigned long long ut, stt;
	long hz = sysconf(_SC_CLK_TCK);

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	s = read_file(path, NULL);
	if (!s)
		return -errno;
	/* The comm (field 2) may hold spaces and ')': start after the last ')'. */
	p = strrchr(s, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &stt) != 2) {
		free(s);
		return -EINVAL;
	}
	free(s);
	*user = (double)ut / hz;
	*sys = (double)stt / hz;
	return 0;
}

/* The whole system's user and sys time, summed over CPUs (/proc/stat). */
static int system_times(double *user, double *sys)
{
	unsigned long long u, n, sy, idle, io, irq, sirq;
	long hz = sysconf(_SC_CLK_TCK);
	char *s = read_file("/proc/stat", NULL);

	if (!s)
		return -errno;
	if (sscanf(s, "cpu %llu %llu %llu %llu %llu %llu %llu", &u, &n, &sy, &idle, &io, &irq,
		   &sirq) != 7) {
		free(s);
		return -EINVAL;
	}
	free(s);
	*user = (double)(u + n) / hz;
	*sys = (double)(sy + irq + sirq) / hz;
	return 0;
}

/* ---- one measurement ----------------------------------------------------------- */

static int measure_cmd(struct stat_cnt *st, struct sigwatch *sw, int run)
{
	struct child ch = CHILD_INIT;
	double t0, t1;
	int err;

	err = child_spawn(st->cmdv, &ch, sigwatch_restore, sw);
	if (err < 0) {
		ftr_err("cannot start '%s': %s", st->cmdv[0], strerror(-err));
		return err;
	}
	err = open_ctrs(st, ch.pid);
	if (err < 0) {
		child_abandon(&ch);
		close_ctrs(st);
		return err;
	}
	t0 = now_s();
	err = child_release(&ch, st->cmdv[0]);
	if (err < 0) {
		close_ctrs(st);
		return err;
	}
	/* Ctrl-C goes to the command too (same process group): ftr waits
	 * for it to end, then reports what it counted.  A SIGINT sent to
	 * ftr alone (kill -INT) is passed on, or ftr would wait for the
	 * command's own end. */
	while (!child_reap(&ch)) {
		struct pollfd p = { .fd = sw->fd, .events = POLLIN };
		int sig;

		poll(&p, 1, 200);
		while ((sig = sigwatch_take(sw))) {
			if (sig == SIGTERM || sig == SIGHUP || (sig == SIGINT && !sw->from_kernel))
				kill(ch.pid, sig);
			if (sig != SIGCHLD)
				st->interrupted = true;
		}
	}
	t1 = now_s();
	read_ctrs(st, run);
	close_ctrs(st);
	st->runs[run].elapsed = t1 - t0;
	st->runs[run].user = ch.ru.ru_utime.tv_sec + ch.ru.ru_utime.tv_usec / 1e6;
	st->runs[run].sys = ch.ru.ru_stime.tv_sec + ch.ru.ru_stime.tv_usec / 1e6;
	if (!WIFEXITED(ch.status) || WEXITSTATUS(ch.status)) {
		char s[96];

		child_status_str(ch.status, s, sizeof(s));
		snprintf(st->status_note, sizeof(st->status_note), "'%s' %s", st->cmdv[0], s);
	}
	return 0;
}

static int measure_span(struct stat_cnt *st, struct sigwatch *sw, uint64_t duration_ns)
{
	double t0, t1, end, u0 = 0, s0 = 0, u1 = 0, s1 = 0;
	bool have_times;
	int err;

	err = open_ctrs(st, -1);
	if (err < 0) {
		close_ctrs(st);
		return err;
	}
	have_times = (st->target == STAT_ALL ? system_times(&u0, &s0) :
		      proc_times(st->pid, &u0, &s0)) == 0;
	u1 = u0;
	s1 = s0;
	ctrs_ioctl(st, PERF_EVENT_IOC_ENABLE);
	t0 = now_s();
	end = duration_ns ? t0 + duration_ns / 1e9 : 0;
	for (;;) {
		struct pollfd p = { .fd = sw->fd, .events = POLLIN };
		int timeout = 100, sig;
		double now = now_s();

		if (end && now >= end)
			break;
		if (end && (end - now) * 1000 < timeout)
			timeout = (int)((end - now) * 1000) + 1;
		poll(&p, 1, timeout);
		if ((sig = sigwatch_take(sw)) && sig != SIGCHLD) {
			st->interrupted = true;
			break;
		}
		/* Keep the last reading: a process that ends takes its
		 * /proc/PID/stat with it. */
		if (st->target == STAT_PID) {
			if (have_times)
				proc_times(st->pid, &u1, &s1);
			if (!pid_alive(st->pid)) {
				snprintf(st->status_note, sizeof(st->status_note),
					 "pid %d ended during the count", st->pid);
				break;
			}
		}
	}
	ctrs_ioctl(st, PERF_EVENT_IOC_DISABLE);
	t1 = now_s();
	if (have_times && st->target == STAT_ALL)
		system_times(&u1, &s1);
	else if (have_times && pid_alive(st->pid))
		proc_times(st->pid, &u1, &s1);
	read_ctrs(st, 0);
	close_ctrs(st);
	st->runs[0].elapsed = t1 - t0;
	st->runs[0].user = have_times ? u1 - u0 : NAN;
	st->runs[0].sys = have_times ? s1 - s0 : NAN;
	return 0;
}

/* ---- the report ---------------------------------------------------------------- */

static double mean(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : 0;
}

/* Newton's square root: libm is not linked (the static binary's size). */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double n = 0.5 * (r + x / r);

		if (n == r)
			break;
		r = n;
	}
	return r;
}

/* The sample standard deviation relative to the mean, in per cent. */
static double variation(const double *v, int n)
{
	double m = mean(v, n), s = 0;

	if (n < 2 || m == 0)
		return 0;
	for (int i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return 100.0 * root(s / (n - 1)) / fabs(m);
}

static void with_commas(double v, char *buf, size_t len)
{
	char tmp[64];
	int n, o = 0;

	n = snprintf(tmp, sizeof(tmp), "%.0f", v);
	for (int i = 0; i < n && o + 2 < (int)len; i++) {
		buf[o++] = tmp[i];
		if (tmp[i] != '-' && (n - 1 - i) % 3 == 0 && i != n - 1)
			buf[o++] = ',';
	}
	buf[o] = '\0';
}

enum verdict { V_USER, V_SYS, V_WAIT, V_MIXED, V_IDLE, V_UNKNOWN };

static const char *const verdict_key[] = {
	[V_USER] = "user", [V_SYS] = "sys", [V_WAIT] = "waiting", [V_MIXED] = "mixed",
	[V_IDLE] = "idle", [V_UNKNOWN] = "unknown",
};

/*
 * The seed's reading of the split: mostly user — the answer is in the code,
 * profile it; mostly sys — it asks the kernel for things, see what and how
 * often; neither, with time passing — it waits, and a profiler cannot see
 * waiting: look off-CPU.
 */
static enum verdict reading(const struct stat_cnt *st, double oncpu, double elapsed, double user,
			    double sys, char *buf, size_t len)
{
	double cpu = user + sys, cap = elapsed;

	if (isnan(user) || isnan(sys) || elapsed <= 0) {
		snprintf(buf, len, "no user/sys split could be read");
		return V_UNKNOWN;
	}
	if (st->target == STAT_ALL) {
		int n = 0;

		for (int i = 0; i < st->ncpu; i++)
			n += st->cpus[i];
		cap = elapsed * (n ? n : 1);
		oncpu = cpu;
	}
	if (oncpu <= 0)
		oncpu = cpu;
	if (elapsed < 0.01) {
		snprintf(buf, len, "too short (%.1f ms) for the split to mean much: most of it "
			 "is starting the program", elapsed * 1e3);
		return V_UNKNOWN;
	}
	if (oncpu < 0.5 * cap) {
		if (st->target == STAT_ALL) {
			snprintf(buf, len, "mostly idle: the CPUs were busy %.0f%% of the time; "
				 "a slow service on an idle system is waiting, not computing: look "
				 "off-CPU (scheduler and block tracepoints)", 100 * oncpu / cap);
			return V_IDLE;
		}
		snprintf(buf, len, "mostly waiting: on a CPU for %.0f%% of the elapsed time; the "
			 "rest went to waiting (I/O, locks, sleep, or a busy CPU's run queue), which a "
			 "profile cannot see: "
			 "look off-CPU (scheduler and block tracepoints)", 100 * oncpu / cap);
		return V_WAIT;
	}
	if (cpu <= 0) {
		snprintf(buf, len, "too short to split into user and sys");
		return V_UNKNOWN;
	}
	if (user >= 0.7 * cpu) {
		snprintf(buf, len, "mostly user: %.0f%% of the CPU time is in its own code: "
			 "profile it ('ftr profile -g')", 100 * user / cpu);
		return V_USER;
	}
	if (sys >= 0.7 * cpu) {
		snprintf(buf, len, "mostly sys: %.0f%% of the CPU time is in the kernel, doing "
			 "what it asks for: look at what it asks and how often (its syscalls: "
			 "'ftr stat -e syscalls:sys_enter_NAME', 'ftr trace'), then "
			 "'ftr profile -g' for the kernel paths", 100 * sys / cpu);
		return V_SYS;
	}
	snprintf(buf, len, "both: user %.0f%%, sys %.0f%% of the CPU time; 'ftr profile -g' "
		 "shows the user and kernel frames together", 100 * user / cpu, 100 * sys / cpu);
	return V_MIXED;
}

static void target_text(const struct stat_cnt *st, char *buf, size_t len)
{
	size_t o = 0;

	if (st->target == STAT_PID) {
		snprintf(buf, len, "%d", st->pid);
		return;
	}
	if (st->target == STAT_ALL) {
		snprintf(buf, len, "system wide");
		return;
	}
	buf[0] = '\0';
	for (char **a = st->cmdv; *a && o < len; a++)
		o += snprintf(buf + o, len - o, "%s%s", a == st->cmdv ? "" : " ", *a);
}

static const struct stat_ctr *find_ctr(const struct stat_cnt *st, uint32_t type, uint64_t config)
{
	for (int i = 0; i < st->nc; i++)
		if (st->c[i].type == type && st->c[i].config == config && st->c[i].counted)
			return &st->c[i];
	return NULL;
}

/* Each run's elapsed, user and sys time into el, us, sy; returns the clock
 * counter (task-clock, or cpu-clock system-wide), or NULL. */
static const struct stat_ctr *split_runs(const struct stat_cnt *st, double *el, double *us,
					 double *sy)
{
	const struct stat_ctr *clk = find_ctr(st, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);

	for (int i = 0; i < st->done_runs; i++) {
		el[i] = st->runs[i].elapsed;
		us[i] = st->runs[i].user;
		sy[i] = st->runs[i].sys;
	}
	return clk ? clk : find_ctr(st, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

void stat_print_text(struct stat_cnt *st)
{
	FILE *o = st->out;
	int n = st->done_runs;
	double el[n], us[n], sy[n], clock_ms;
	const struct stat_ctr *clk = split_runs(st, el, us, sy);
	const struct stat_ctr *cyc = find_ctr(st, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	const struct stat_ctr *br = find_ctr(st, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	char tgt[512], text[512];
	enum verdict v;

	clock_ms = clk ? mean(clk->runs, n) / 1e6 : 0;
	target_text(st, tgt, sizeof(tgt));
	fprintf(o, "\n Performance counter stats for %s'%s'", st->target == STAT_PID ? "process id " : "",
		tgt);
	if (n > 1)
		fprintf(o, " (%d runs)", n);
	fputs(":\n\n", o);
	for (int i = 0; i < st->nc; i++) {
		const struct stat_ctr *c = &st->c[i];
		double val = mean(c->runs, n);
		char num[64], note[96] = "";

		if (!c->supported) {
			fprintf(o, "%18s      %s\n", "<not supported>", c->name);
			continue;
		}
		if (!c->counted) {
			fprintf(o, "%18s      %s\n", "<not counted>", c->name);
			continue;
		}
		if (c->time_ns) {
			snprintf(num, sizeof(num), "%.2f", val / 1e6);
			if (mean(el, n) > 0)
				snprintf(note, sizeof(note), "#  %7.3f CPUs utilized",
					 val / 1e9 / mean(el, n));
			fprintf(o, "%18s msec %-32s %s", num, c->name, note);
		} else {
			with_commas(val, num, sizeof(num));
			if (c->type == PERF_TYPE_HARDWARE && c->config == PERF_COUNT_HW_INSTRUCTIONS &&
			    cyc && mean(cyc->runs, n) > 0)
				snprintf(note, sizeof(note), "#  %7.2f insn per cycle",
					 val / mean(cyc->runs, n));
			else if (c->type == PERF_TYPE_HARDWARE &&
				 c->config == PERF_COUNT_HW_BRANCH_MISSES && br &&
				 mean(br->runs, n) > 0)
				snprintf(note, sizeof(note), "#  %7.2f%% of all branches",
					 100 * val / mean(br->runs, n));
			else if (c->type == PERF_TYPE_HARDWARE && c->config == PERF_COUNT_HW_CPU_CYCLES &&
				 clock_ms > 0)
				snprintf(note, sizeof(note), "#  %7.3f GHz", val / clock_ms / 1e6);
			else if (clock_ms > 0) {
				double rate = val / (clock_ms / 1e3);
				const char *u = "";

				if (rate >= 1e9) {
					rate /= 1e9;
					u = "G";
				} else if (rate >= 1e6) {
					rate /= 1e6;
					u = "M";
				} else if (rate >= 1e3) {
					rate /= 1e3;
					u = "K";
				}
				snprintf(note, sizeof(note), "#  %7.3f %s/sec", rate, u);
			}
			fprintf(o, "%18s      %-32s %s", num, c->name, note);
		}
		if (n > 1)
			fprintf(o, "  ( +- %5.2f%% )", variation(c->runs, n));
		if (c->running_pct < 99.99)
			fprintf(o, "  (%.2f%%)", c->running_pct);
		fputc('\n', o);
	}
	fprintf(o, "\n%18.9f seconds time elapsed", mean(el, n));
	if (n > 1)
		fprintf(o, "  ( +- %5.2f%% )", variation(el, n));
	fputc('\n', o);
	if (!isnan(mean(us, n))) {
		fprintf(o, "\n%18.9f seconds user\n%18.9f seconds sys\n", mean(us, n), mean(sy, n));
	}
	v = reading(st, clock_ms / 1e3, mean(el, n), mean(us, n), mean(sy, n), text, sizeof(text));
	(void)v;
	fprintf(o, "\n %s\n", text);
	if (n > 1)
		fprintf(o, " (%d runs; +- is the standard deviation of the runs, relative to "
			"their mean)\n", n);
	if (st->user_only)
		fprintf(o, " (user space only: %s)\n", st->why_user_only);
	fputc('\n', o);
}

static void json_num(FILE *o, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", o);
	else
		fprintf(o, "%.9g", v);
}

void stat_print_json(struct stat_cnt *st)
{
	FILE *o = st->out;
	int n = st->done_runs;
	double el[n], us[n], sy[n];
	const struct stat_ctr *clk = split_runs(st, el, us, sy);
	char tgt[512], text[512];
	enum verdict v;

	target_text(st, tgt, sizeof(tgt));
	v = reading(st, clk ? mean(clk->runs, n) / 1e9 : 0, mean(el, n), mean(us, n), mean(sy, n),
		    text, sizeof(text));
	fprintf(o, "{\"target\":\"%s\",",
		st->target == STAT_CMD ? "command" : st->target == STAT_PID ? "pid" : "system");
	fputs(st->target == STAT_CMD ? "\"command\":" : "\"what\":", o);
	json_str(o, tgt);
	if (st->target == STAT_PID)
		fprintf(o, ",\"pid\":%d", st->pid);
	fprintf(o, ",\"runs\":%d,\"elapsed_s\":", n);
	json_num(o, mean(el, n));
	fputs(",\"user_s\":", o);
	json_num(o, mean(us, n));
	fputs(",\"sys_s\":", o);
	json_num(o, mean(sy, n));
	if (n > 1) {
		fputs(",\"elapsed_variation_pct\":", o);
		json_num(o, variation(el, n));
	}
	fprintf(o, ",\"user_only\":%s,\"counters\":[", st->user_only ? "true" : "false");
	for (int i = 0; i < st->nc; i++) {
		const struct stat_ctr *c = &st->c[i];

		fputs(i ? ",{\"event\":" : "{\"event\":", o);
		json_str(o, c->name);
		fprintf(o, ",\"supported\":%s,\"counted\":%s", c->supported ? "true" : "false",
			c->counted ? "true" : "false");
		if (c->supported && c->counted) {
			fputs(",\"value\":", o);
			json_num(o, c->time_ns ? mean(c->runs, n) / 1e6 : mean(c->runs, n));
			fprintf(o, ",\"unit\":\"%s\",\"running_pct\":", c->time_ns ? "msec" : "");
			json_num(o, c->running_pct);
			if (n > 1) {
				fputs(",\"variation_pct\":", o);
				json_num(o, variation(c->runs, n));
			}
		}
		fputc('}', o);
	}
	fprintf(o, "],\"reading\":{\"verdict\":\"%s\",\"text\":", verdict_key[v]);
	json_str(o, text);
	fputs("}}\n", o);
}

/* What the command line of stat said; stat_parse_opts fills it. */

int stat_measure(struct stat_cnt *st, struct sigwatch *sw, int run, uint64_t duration_ns)
{
	return st->target == STAT_CMD ? measure_cmd(st, sw, run) :
	       measure_span(st, sw, duration_ns);
}

int stat_add_defaults(struct stat_cnt *st)
{
	for (size_t i = 0; i < ARRAY_SIZE(default_events); i++) {
		const char *name = default_events[i].name;
		uint64_t config = default_events[i].config;

		/* System-wide, the clock that means something is the CPUs'. */
		if (st->target == STAT_ALL && config == PERF_COUNT_SW_TASK_CLOCK &&
		    default_events[i].type == PERF_TYPE_SOFTWARE) {
			name = "cpu-clock";
			config = PERF_COUNT_SW_CPU_CLOCK;
		}
		if (stat_add_ctr(st, name, default_events[i].type, config) < 0)
			return -ENOMEM;
	}
	return 0;
}

int stat_alloc_runs(struct stat_cnt *st)
{
	st->runs = calloc(st->nruns, sizeof(*st->runs));
	for (int i = 0; i < st->nc; i++)
		if (!(st->c[i].runs = calloc(st->nruns, sizeof(double))))
			return -ENOMEM;
	return st->runs ? 0 : -ENOMEM;
}

void stat_free(struct stat_cnt *st)
{
	close_ctrs(st);
	for (int i = 0; i < st->nc; i++)
		free(st->c[i].runs);
	free(st->c);
	free(st->runs);
}
