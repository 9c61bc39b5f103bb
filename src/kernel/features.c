// SPDX-License-Identifier: GPL-2.0-or-later
/* Feature probing: see features.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "kernel/features.h"
#include "kernel/ftrace.h"
#include "ftr.h"
#include "perf/perf.h"

const struct feature_info feature_info[F_NR] = {
	[F_TRACEPOINTS] = { "tracepoints", "tracepoints" },
	[F_SYSCALLS] = { "syscall_tracepoints", "syscall tracepoints" },
	[F_FILTERS] = { "event_filters", "in-kernel event filters" },
	[F_KPROBE] = { "kprobe_events", "kprobe events" },
	[F_UPROBE] = { "uprobe_events", "uprobe events" },
	[F_FPROBE] = { "fprobe_events", "fprobe events" },
	[F_EPROBE] = { "eprobe_events", "eprobe events" },
	[F_HIST] = { "hist_triggers", "histogram triggers" },
	[F_SYNTH] = { "synthetic_events", "synthetic events" },
	[F_FUNCTION] = { "function_tracer", "function tracer" },
	[F_FUNCTION_GRAPH] = { "function_graph_tracer", "function_graph tracer" },
	[F_ERROR_LOG] = { "error_log", "kernel error_log" },
	[F_PERF] = { "perf_event_open", "perf_event_open" },
	[F_PERF_CPU_CLOCK] = { "perf_cpu_clock_sampling", "cpu-clock sampling" },
	[F_PERF_HW] = { "perf_hw_counters", "hardware counters" },
	[F_KALLSYMS] = { "kallsyms", "readable kallsyms" },
};

const char *features_instead(const struct features *f, enum feat_id id)
{
	bool kprobe = f->f[F_KPROBE].yes;

	/* What ftr does instead depends on what else this kernel has. */
	switch (id) {
	case F_TRACEPOINTS:
		return "nothing to trace with; 'ftr stat' and 'ftr profile' still work "
		       "through perf_event_open";
	case F_SYSCALLS:
		return "raw_syscalls:sys_enter/sys_exit carry the syscall number and raw arguments";
	case F_FILTERS:
		return "filters are evaluated in user space on every event (same result, more CPU)";
	case F_KPROBE:
		return f->f[F_FUNCTION].yes ?
			"kprobe: probes fail with an explanation naming a tracepoint that carries "
			"the same data where one exists (syscalls:sys_enter_write's count for "
			"vfs_write's); kprobe clauses that read no argument run on the function "
			"tracer (as do 'ftr funccount' and 'ftr functrace'), kretprobe clauses "
			"on function_graph where it runs (--global-tracer before 6.11)" :
			f->func_err ?
			"kprobe: probes fail with an explanation naming a tracepoint that carries "
			"the same data where one exists (syscalls:sys_enter_write's count for "
			"vfs_write's); the function tracer, listed, is refused too (below)" :
			"kprobe: probes fail with an explanation naming a tracepoint that carries "
			"the same data where one exists (syscalls:sys_enter_write's count for "
			"vfs_write's)";
	case F_UPROBE:
		return "no user-space function probes; 'ftr profile' samples user stacks instead";
	case F_FPROBE:
		return kprobe ? "function entry and exit are probed with kprobe/kretprobe events" :
			"no function entry/exit probes: use tracepoints";
	case F_EPROBE:
		return kprobe ? "string arguments of syscall tracepoints (user pointers) are "
				"fetched with kprobes" :
			"string arguments of syscall tracepoints are user pointers the kernel "
			"cannot fetch here: ftr says so instead of printing an address";
	case F_HIST:
		return "count()/sum()/hist() aggregate in user space from the raw ring buffer "
		       "(the same answer, more CPU); plain counts use perf tracepoint counters";
	case F_SYNTH:
		return "start/end latency joins are computed in user space";
	case F_FUNCTION:
		if (f->func_err)
			return kprobe ? "the kernel refuses the function tracer to ftr: funccount, "
					"functrace and graph refuse too; function calls are counted "
					"with kprobes" :
				"the kernel refuses the function tracer to ftr: funccount, "
				"functrace and graph refuse too, and no kernel function can be "
				"counted here; use tracepoints";
		return kprobe ? "function calls are counted with kprobes" :
			"no way to count arbitrary kernel function calls; use tracepoints";
	case F_FUNCTION_GRAPH:
		return kprobe ? "function durations come from kprobe/kretprobe pairs" :
			"no function durations; enter/exit tracepoint pairs time what they cover";
	case F_ERROR_LOG:
		return "a rejected filter or probe is reported with errno only, not the "
		       "kernel's reason";
	case F_PERF:
		return "no counters or profiles ('ftr stat', 'ftr profile'); tracing still works";
	case F_PERF_CPU_CLOCK:
		return "no CPU profiles; 'ftr stat' still counts software events";
	case F_PERF_HW:
		return "profiles sample on cpu-clock; cycles and instructions print "
		       "<not supported>";
	case F_KALLSYMS:
		return f->kptr_restrict >= 2 ?
		       "kernel frames print as addresses, kaddr() is refused; "
		       "kernel.kptr_restrict=2 hides them from root too: set it to 1 or 0" :
		       "kernel frames print as addresses, kaddr() is refused; run as root, or "
		       "set kernel.kptr_restrict=0";
	default:
		return "";
	}
}

static const struct {
	const char *name;
	unsigned bit;
} hist_mod_names[] = {
	{ "hex", HM_HEX },
	{ "sym", HM_SYM },
	{ "sym-offset", HM_SYM_OFFSET },
	{ "execname", HM_EXECNAME },
	{ "syscall", HM_SYSCALL },
	{ "log2", HM_LOG2 },
	{ "buckets", HM_BUCKETS },
	{ "usecs", HM_USECS },
	{ "percent", HM_PERCENT },
	{ "graph", HM_GRAPH },
	{ "stacktrace", HM_STACKTRACE },
};

void features_hist_mods_str(unsigned mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(hist_mod_names); i++) {
		if (!(mask & hist_mod_names[i].bit))
			continue;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s.%s", off ? " " : "",
				hist_mod_names[i].name);
	}
}

/*
 * The README lists hist modifiers one per line, e.g. "\t    .log2       display
 * log2 value", in the hist trigger section only; and probe fetch-args in the
 * dynamic event section.  Only the hist section's dotted words are taken, so
 * that no other ".word" in the README is mistaken for a modifier.
 */
void features_parse_readme(const char *readme, unsigned *hist_mods, unsigned *probe_syntax)
{
	const char *line = readme;
	bool in_hist = false;

	*hist_mods = 0;
	*probe_syntax = 0;
	if (!readme)
		return;
	if (strstr(readme, "$arg<N>"))
		*probe_syntax |= PS_ARGN;
	if (strstr(readme, "$retval"))
		*probe_syntax |= PS_RETVAL;
	if (strstr(readme, "$comm"))
		*probe_syntax |= PS_COMM;
	if (strstr(readme, "ustring"))
		*probe_syntax |= PS_USTRING;
	if (strstr(readme, "symstr"))
		*probe_syntax |= PS_SYMSTR;
	if (strstr(readme, "[%return]"))
		*probe_syntax |= PS_RETURN_SUFFIX;
	if (strstr(readme, "f[:[<group>/][<event>]]"))
		*probe_syntax |= PS_FPROBE_LINE;
	if (strstr(readme, "e[:[<group>/][<event>]]"))
		*probe_syntax |= PS_EPROBE_LINE;
	/* Listed only when built with CONFIG_PROBE_EVENTS_BTF_ARGS. */
	if (strstr(readme, "<argname>"))
		*probe_syntax |= PS_ARGNAME;
	if (strstr(readme, "$current"))
		*probe_syntax |= PS_CURRENT;
	/* 6.10's README: "kernel return probes support: $retval, $arg<N>, $comm" */
	if (strstr(readme, "return probes support: $retval, $arg<N>"))
		*probe_syntax |= PS_RET_ARGN;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		const char *p = line;

		if (memmem(line, n, "hist trigger", 12))
			in_hist = true;
		else if (in_hist && memmem(line, n, "trace_marker", 12))
			in_hist = false;
		if (in_hist) {
			if (memmem(line, n, "common_stacktrace", 17))
				*hist_mods |= HM_COMMON_STACKTRACE;
			while (p < line + n && (*p == ' ' || *p == '\t'))
				p++;
			if (*p == '.') {
				p++;
				for (size_t i = 0; i < ARRAY_SIZE(hist_mod_names); i++) {
					size_t l = strlen(hist_mod_names[i].name);

					if (strncmp(p, hist_mod_names[i].name, l) == 0 &&
					    (p[l] == ' ' || p[l] == '\t' || p[l] == '='))
						*hist_mods |= hist_mod_names[i].bit;
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

int features_parse_lockdown(const char *text, char *out, size_t len)
{
	const char *a = text ? strchr(text, '[') : NULL;
	const char *b = a ? strchr(a, ']') : NULL;

	if (!a || !b || b - a - 1 <= 0 || (size_t)(b - a - 1) >= len)
		return -EINVAL;
	memcpy(out, a + 1, b - a - 1);
	out[b - a - 1] = '\0';
	return 0;
}

bool features_kallsyms_hidden(const char *text)
{
	const char *line = text;
	int seen = 0;

	/* Look at the first lines only: with kptr_restrict every one is 0. */
	while (line && *line && seen < 50) {
		const char *p = line;

		while (*p == '0')
			p++;
		if (*p != ' ')
			return false;	/* a non-zero address */
		seen++;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return seen > 0;
}

static void set(struct features *f, enum feat_id id, bool yes, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void set(struct features *f, enum feat_id id, bool yes, const char *fmt, ...)
{
	va_list ap;

	f->f[id].yes = yes;
	f->f[id].detail[0] = '\0';
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(f->f[id].detail, sizeof(f->f[id].detail), fmt, ap);
		va_end(ap);
	}
}

static bool tfile(const char *name)
{
	return tracefs_file_exists(NULL, name);
}

/* Whether a directory entry is a directory: d_type where the file system
 * gives it (tracefs and eventfs do), a stat where it does not. */
static bool entry_is_dir(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_name[0] == '.')
		return false;
	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd(d), de->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/*
 * How many systems and events: the directories under events/ and under
 * each system.  Counted from readdir's types: libtracefs's listings stat
 * every entry, thousands of them, which cost every ftr command 8 ms here.
 */
static void probe_events(struct features *f)
{
	char path[PATH_MAX + 8];
	struct dirent *de;
	DIR *d;

	f->nr_systems = 0;
	f->nr_events = 0;
	snprintf(path, sizeof(path), "%s/events", f->tfs.path);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		int fd;
		DIR *sd;

		/* ftrace: the tracers' own records, not events to enable
		 * (libtracefs leaves it out of its systems too). */
		if (!entry_is_dir(d, de) || !strcmp(de->d_name, "ftrace"))
			continue;
		f->nr_systems++;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		sd = fd >= 0 ? fdopendir(fd) : NULL;
		if (!sd && fd >= 0)
			close(fd);
		while (sd && (de = readdir(sd)))
			f->nr_events += entry_is_dir(sd, de);
		if (sd)
			closedir(sd);
	}
	if (d)
		closedir(d);
}

static void probe_lockdown(struct features *f)
{
	char *text = read_file("/sys/kernel/security/lockdown", NULL);

	if (text && features_parse_lockdown(text, f->lockdown, sizeof(f->lockdown)) == 0) {
		free(text);
		return;
	}
	free(text);
	snprintf(f->lockdown, sizeof(f->lockdown), "unknown");
	f->lockdown_inferred = true;
}

enum bpf_state features_bpf_state(int bpf_errno, bool bpf_sysctl)
{
	if (bpf_errno != ENOSYS)
		return BPF_PRESENT;
	return bpf_sysctl ? BPF_BLOCKED : BPF_ABSENT;
}

/*
 * Two witnesses, because either alone can mislead.  bpf() itself: a kernel
 * built without CONFIG_BPF_SYSCALL has sys_ni_syscall in its slot (ENOSYS);
 * one with it refuses an empty BPF_PROG_LOAD (prog type 0, no instructions)
 * with EINVAL, or EPERM for a user, and loads nothing.  But a container's
 * seccomp filter may answer ENOSYS for a call it does not list, so the
 * sysctl unprivileged_bpf_disabled, which exists exactly when the kernel has
 * the bpf() syscall (kernel/bpf/syscall.c), tells "blocked" from "absent".
 * /proc/kallsyms (bpf_prog_load) was not used: kallsyms may be configured
 * out or restricted, and a kernel can have BPF symbols (the classic BPF
 * filter, BPF_JIT for seccomp) without the syscall.
 */
static void probe_bpf(struct features *f)
{
#ifdef __NR_bpf
	union {
		uint32_t prog_type;
		char attr[128];
	} a;
	long fd;
	int err = 0;

	memset(&a, 0, sizeof(a));
	fd = syscall(__NR_bpf, 5 /* BPF_PROG_LOAD */, &a, sizeof(a));
	if (fd < 0)
		err = errno;
	else
		close((int)fd);	/* not expected: prog type 0 has no verifier */
	f->bpf = features_bpf_state(err, access("/proc/sys/kernel/unprivileged_bpf_disabled",
						 F_OK) == 0);
#else
	f->bpf = BPF_ABSENT;
#endif
	f->btf = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

static void probe_perf(struct features *f)
{
	int err;

	f->paranoid = perf_paranoid();
	err = perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false);
	/* The kernel decides what a paranoid level forbids (3 means nothing
	 * more than 2 on a kernel without the distribution patch for it):
	 * ask it for user space alone before saying no. */
	if ((err == -EACCES || err == -EPERM) &&
	    perf_probe_user(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false) == 0) {
		set(f, F_PERF, true, "perf_event_paranoid=%d: user space only", f->paranoid);
		err = perf_probe_user(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true);
		set(f, F_PERF_CPU_CLOCK, err == 0, "%s", err ? strerror(-err) : "user space only");
		err = perf_probe_user(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false);
		set(f, F_PERF_HW, err == 0, "%s", err ? (err == -ENOENT || err == -EOPNOTSUPP ?
			"no PMU (cycles <not supported>)" : strerror(-err)) : "cycles, user space only");
		return;
	}
	if (err == -ENOSYS || (err && f->paranoid == INT_MIN)) {
		set(f, F_PERF, false, "%s", strerror(-err));
		set(f, F_PERF_CPU_CLOCK, false, "no perf_event_open");
		set(f, F_PERF_HW, false, "no perf_event_open");
		return;
	}
	if (err) {
		set(f, F_PERF, false, "%s (perf_event_paranoid=%d)", strerror(-err), f->paranoid);
	} else if (f->paranoid != INT_MIN) {
		set(f, F_PERF, true, "perf_event_paranoid=%d%s", f->paranoid,
		    f->paranoid > 1 && f->root ? " (root is exempt)" : "");
	} else {
		set(f, F_PERF, true, NULL);
	}
	err = perf_probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true);
	set(f, F_PERF_CPU_CLOCK, err == 0, "%s", err ? strerror(-err) : "");
	err = perf_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false);
	set(f, F_PERF_HW, err == 0, "%s", err ? (err == -ENOENT || err == -EOPNOTSUPP ?
		"no PMU (cycles <not supported>)" : strerror(-err)) : "cycles");
}

static void probe_kallsyms(struct features *f)
{
	char *ks, *text = read_file("/proc/sys/kernel/kptr_restrict", NULL);
	char buf[4096];
	FILE *fp;
	size_t n;

	f->kptr_restrict = text ? atoi(text) : -1;
	free(text);
	text = read_file("/proc/sys/kernel/panic_on_warn", NULL);
	f->panic_on_warn = text ? atoi(text) : -1;
	free(text);
	fp = fopen("/proc/kallsyms", "re");
	if (!fp) {
		set(f, F_KALLSYMS, false, "/proc/kallsyms: %s", strerror(errno));
		return;
	}
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	ks = buf;
	if (n == 0 || features_kallsyms_hidden(ks))
		set(f, F_KALLSYMS, false, "addresses read as zero (kptr_restrict=%d)",
		    f->kptr_restrict);
	else
		set(f, F_KALLSYMS, true, "kptr_restrict=%d", f->kptr_restrict);
}

/* README lines are a hint, not proof (docs/libraries.md): create one throwaway
 * eprobe in our own group; the session removes it at close. */
static void probe_eprobe(struct features *f, struct session *s)
{
	struct tracefs_dynevent *dyn;
	int err;

	if (!tfile("dynamic_events")) {
		set(f, F_EPROBE, false, "no dynamic_events file");
		return;
	}
	if (!s) {
		set(f, F_EPROBE, false, "not checked");
		return;
	}
	dyn = tracefs_eprobe_alloc(session_name(s), "eprobe_check", "sched", "sched_switch",
				   "pid=$next_pid");
	if (!dyn) {
		set(f, F_EPROBE, false, "%s", strerror(errno));
		return;
	}
	session_set_quiet(s, true);
	err = session_dynevent_create(s, dyn);
	session_set_quiet(s, false);
	if (err) {
		tracefs_dynevent_free(dyn);
		set(f, F_EPROBE, false, "creating one failed: %s", strerror(-err));
	} else {
		set(f, F_EPROBE, true, NULL);
	}
}

/*
 * The function tracers: listed in available_tracers is no proof (a
 * hardened 6.18 lists "function" and answers EPERM to every use of it), so
 * each listed one is tried in the session's instance (ftrace_try), as the
 * eprobe is.  function_graph listed at the top level only: a kernel before
 * 6.11, where it runs in no instance; ftr then takes the top level only
 * when asked, and doctor does not touch it.
 */
static void probe_ftrace(struct features *f, struct session *s)
{
	char **tracers = tracefs_tracers(f->tfs.path), why[160];
	bool fn = false, graph = false;

	for (int i = 0; tracers && tracers[i]; i++) {
		fn |= !strcmp(tracers[i], "function");
		graph |= !strcmp(tracers[i], "function_graph");
	}
	tracefs_list_free(tracers);
	if (!fn) {
		set(f, F_FUNCTION, false, "not in available_tracers");
	} else if (!s) {
		set(f, F_FUNCTION, false, "listed; not tried (no session)");
	} else {
		f->func_err = ftrace_try(s, "function", why, sizeof(why));
		set(f, F_FUNCTION, !f->func_err, "%s", f->func_err ? why : "tried in an instance");
	}
	if (!graph) {
		set(f, F_FUNCTION_GRAPH, false, "not in available_tracers");
	} else if (!s) {
		set(f, F_FUNCTION_GRAPH, false, "listed; not tried (no session)");
	} else if (!ftrace_instance_has(s, "function_graph")) {
		f->graph_top_only = true;
		set(f, F_FUNCTION_GRAPH, true, "top level only (instances have it from 6.11): "
		    "ftr takes it only with --global-tracer");
	} else {
		f->graph_err = ftrace_try(s, "function_graph", why, sizeof(why));
		set(f, F_FUNCTION_GRAPH, !f->graph_err, "%s",
		    f->graph_err ? why : "tried in an instance");
	}
}

int features_probe(struct features *f, struct session *s)
{
	struct utsname u;
	char *readme, mods[256];
	size_t readme_len = 0;
	int err;

	memset(f, 0, sizeof(*f));
	f->root = geteuid() == 0;
	if (uname(&u) == 0) {
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
		snprintf(f->arch, sizeof(f->arch), "%s", u.machine);
	}
	probe_lockdown(f);
	probe_bpf(f);
	probe_perf(f);
	probe_kallsyms(f);

	if (s) {
		f->tfs = *session_tracefs(s);
		err = 0;
	} else {
		err = tracefs_locate(&f->tfs, true);
	}
	if (err) {
		for (int i = F_TRACEPOINTS; i <= F_ERROR_LOG; i++)
			set(f, i, false, "%s", f->tfs.why);
		return err;
	}

	/* An unreadable tracefs is not always lockdown: as a user, it is
	 * usually the mount's mode (0700), and lockdown cannot be told then. */
	if (access(f->tfs.path, R_OK | X_OK) != 0 && errno == EACCES) {
		struct stat st;
		unsigned mode = stat(f->tfs.path, &st) == 0 ? st.st_mode & 07777 : 0;

		f->tracefs_closed = true;
		for (int i = F_TRACEPOINTS; i <= F_ERROR_LOG; i++)
			set(f, i, false, "tracefs (mode %04o) is closed to uid %d: tracing needs root",
			    mode, (int)geteuid());
		return -EACCES;
	}
	readme = tracefs_instance_file_read(NULL, "README", NULL);
	if (readme)
		readme_len = strlen(readme);
	/*
	 * Under lockdown=confidentiality tracefs mounts but is empty (or its
	 * files refuse to open).  Say that, instead of reporting every event
	 * as missing.
	 */
	if (!readme || readme_len == 0) {
		f->tracing_locked = true;
		if (!strcmp(f->lockdown, "unknown"))
			snprintf(f->lockdown, sizeof(f->lockdown), "confidentiality");
		for (int i = F_TRACEPOINTS; i <= F_ERROR_LOG; i++)
			set(f, i, false, "kernel lockdown forbids tracing");
		free(readme);
		return -EACCES;
	}
	if (f->lockdown_inferred && !strcmp(f->lockdown, "unknown"))
		snprintf(f->lockdown, sizeof(f->lockdown), "unknown");
	features_parse_readme(readme, &f->hist_mods, &f->probe_syntax);
	free(readme);

	probe_events(f);
	set(f, F_TRACEPOINTS, f->nr_events > 0, "%d events in %d systems", f->nr_events,
	    f->nr_systems);
	set(f, F_SYSCALLS, tracefs_dir_exists(NULL, "events/syscalls"), NULL);
	set(f, F_FILTERS, tracefs_file_exists(NULL, "events/sched/sched_switch/filter") ||
	    tracefs_file_exists(NULL, "events/syscalls/filter"), NULL);
	set(f, F_KPROBE, tfile("kprobe_events"), "%s",
	    tfile("kprobe_events") ? (f->probe_syntax & PS_ARGN ? "arguments by $argN" :
				      "arguments by register") : "no kprobe_events file");
	set(f, F_UPROBE, tfile("uprobe_events"), "%s",
	    tfile("uprobe_events") ? "" : "no uprobe_events file");
	set(f, F_FPROBE, tfile("dynamic_events") && (f->probe_syntax & PS_FPROBE_LINE), "%s",
	    f->probe_syntax & PS_ARGNAME ? "arguments by BTF name" : "");
	probe_eprobe(f, s);
	features_hist_mods_str(f->hist_mods, mods, sizeof(mods));
	if (tracefs_file_exists(NULL, "events/sched/sched_switch/hist"))
		set(f, F_HIST, true, "modifiers: %s%s", mods,
		    f->hist_mods & HM_COMMON_STACKTRACE ? "; key common_stacktrace" : "");
	else
		set(f, F_HIST, false, "no 'hist' file in event directories");
	set(f, F_SYNTH, tfile("synthetic_events"), NULL);
	probe_ftrace(f, s);
	set(f, F_ERROR_LOG, tfile("error_log"), NULL);
	return 0;
}

uint64_t features_grace_ns(void)
{
	uint64_t t[3];

	for (int i = 0; i < 3; i++) {
		struct timespec a, b;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) < 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &b);
		t[i] = (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + b.tv_nsec - a.tv_nsec;
	}
	/* the median of three */
	if (t[0] > t[1])
		t[0] ^= t[1], t[1] ^= t[0], t[0] ^= t[1];
	if (t[1] > t[2])
		t[1] = t[2];
	return t[0] > t[1] ? t[0] : t[1];
}
