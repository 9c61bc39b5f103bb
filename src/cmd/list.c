// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr list: tracepoints and dynamic events as `bpftrace -l` prints them, with
 * their fields under -v (parsed by libtraceevent from each format file), and
 * the functions kprobes could attach to under --functions.
 */
#include <errno.h>
#include <limits.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "cmd/cmd.h"
#include "lang/listing.h"
#include "kernel/formats.h"
#include "ftr.h"
#include "kernel/session.h"
#include "report/usdt.h"
#include "kernel/probe.h"
#include "kernel/arch.h"

static const char list_usage[] =
	"usage: ftr list [-v] [GLOB]\n"
	"       ftr list --functions [GLOB]\n"
	"       ftr list usdt:PATH[:PROVIDER:NAME]\n\n"
	"List tracepoints and dynamic events (tracepoint:SYSTEM:EVENT), or with\n"
	"--functions the kernel functions kprobes can attach to (kprobe:FUNCTION).\n"
	"GLOB matches the whole name, with or without the 'tracepoint:' prefix:\n"
	"'sched:*', '*openat*', 'tracepoint:syscalls:sys_enter_*'.  usdt:PATH lists\n"
	"the USDT probes of an executable or library (-v: their arguments).\n\n"
	"  -v, --verbose     show each event's fields and their types\n"
	"  -F, --functions   list functions instead of events\n"
	"  -h, --help        this help\n";

/* "tracepoint:x:y", "t:x:y" and "x:y" all name the same event. */
static const char *strip_provider(const char *glob)
{
	if (str_has_prefix(glob, "tracepoint:"))
		return glob + strlen("tracepoint:");
	if (str_has_prefix(glob, "t:"))
		return glob + 2;
	return glob;
}

static bool match(const char *glob, const char *sys, const char *ev)
{
	char name[512];

	if (!glob)
		return true;
	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	if (fnmatch(strip_provider(glob), name, 0) == 0)
		return true;
	/* A bare word without ':' matches event names: 'ftr list sched_switch'. */
	return !strchr(glob, ':') && fnmatch(glob, ev, 0) == 0;
}

struct dyn_desc {
	char *sys, *ev, *desc;
};

static struct dyn_desc *load_dynevents(int *n)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, NULL);
	struct dyn_desc *v;
	int cnt = 0;

	while (all && all[cnt])
		cnt++;
	v = calloc(cnt + 1, sizeof(*v));
	for (int i = 0; v && i < cnt; i++) {
		char *prefix = NULL, *addr = NULL, *fmt = NULL;
		enum tracefs_dynevent_type t;
		const char *kind;

		t = tracefs_dynevent_info(all[i], &v[i].sys, &v[i].ev, &prefix, &addr, &fmt);
		/* libtracefs 1.6.4 types a uprobe as a kprobe when
		 * dynamic_events exists (docs/libraries.md L2): a path means uprobe. */
		if ((t == TRACEFS_DYNEVENT_KPROBE || t == TRACEFS_DYNEVENT_KRETPROBE) && addr &&
		    strchr(addr, '/'))
			t = t == TRACEFS_DYNEVENT_KPROBE ? TRACEFS_DYNEVENT_UPROBE :
			    TRACEFS_DYNEVENT_URETPROBE;
		kind = t == TRACEFS_DYNEVENT_KPROBE ? "kprobe" :
		       t == TRACEFS_DYNEVENT_KRETPROBE ? "kretprobe" :
		       t == TRACEFS_DYNEVENT_UPROBE ? "uprobe" :
		       t == TRACEFS_DYNEVENT_URETPROBE ? "uretprobe" :
		       t == TRACEFS_DYNEVENT_EPROBE ? "eprobe" :
		       t == TRACEFS_DYNEVENT_SYNTH ? "synthetic" : "dynamic";
		if (asprintf(&v[i].desc, "%s %s", kind, addr ? addr : "") < 0)
			v[i].desc = NULL;
		free(prefix);
		free(addr);
		free(fmt);
	}
	tracefs_dynevent_list_free(all);
	*n = v ? cnt : 0;
	return v;
}

/*
 * The fprobe events of dynamic_events ("f:GRP/EV FUNC[%return] ARGS"), which
 * libtracefs 1.6.4 does not list (docs/libraries.md L9), added to v[0..*n).
 */
static struct dyn_desc *load_fprobes(const char *tdir, struct dyn_desc *v, int *n)
{
	char path[PATH_MAX + 32], *text, *save = NULL;

	snprintf(path, sizeof(path), "%s/dynamic_events", tdir);
	text = read_file(path, NULL);
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char sys[128], ev[128], place[256], *r;
		struct dyn_desc *nv;

		if (l[0] != 'f' || sscanf(l, "%*[^:]:%127[^/]/%127s %255s", sys, ev, place) != 3)
			continue;
		nv = realloc(v, (*n + 2) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		memset(&v[*n], 0, 2 * sizeof(*v));
		r = strstr(place, "%return");
		if (r)
			*r = '\0';
		v[*n].sys = strdup(sys);
		v[*n].ev = strdup(ev);
		if (asprintf(&v[*n].desc, "%s %s", r ? "fexit" : "fprobe", place) < 0)
			v[*n].desc = NULL;
		(*n)++;
	}
	free(text);
	return v;
}

static int list_events(const char *glob, bool verbose, const char *tdir)
{
	struct tep_handle *tep = verbose ? tep_alloc() : NULL;
	struct dyn_desc *dyn;
	char **systems;
	int ndyn = 0, found = 0;

	systems = tracefs_event_systems(tdir);
	if (!systems) {
		ftr_err("cannot read '%s/events': %s", tdir, strerror(errno ? errno : ENOENT));
		tep_free(tep);
		return FTR_EXIT_FAIL;
	}
	list_sort(systems);
	dyn = load_dynevents(&ndyn);
	dyn = load_fprobes(tdir, dyn, &ndyn);
	for (int i = 0; systems[i]; i++) {
		char **evs;

		/* "ftrace" holds the tracer's own records, not events one can
		 * enable; perf and bpftrace leave it out too. */
		if (!strcmp(systems[i], "ftrace"))
			continue;
		evs = tracefs_system_events(tdir, systems[i]);
		list_sort(evs);
		for (int j = 0; evs && evs[j]; j++) {
			const char *desc = NULL;

			if (!match(glob, systems[i], evs[j]))
				continue;
			for (int k = 0; k < ndyn; k++)
				if (dyn[k].sys && !strcmp(dyn[k].sys, systems[i]) &&
				    !strcmp(dyn[k].ev, evs[j]))
					desc = dyn[k].desc;
			found++;
			if (desc)
				printf("tracepoint:%s:%s    [%s]\n", systems[i], evs[j], desc);
			else
				printf("tracepoint:%s:%s\n", systems[i], evs[j]);
			if (verbose)
				list_print_fields(tep, systems[i], evs[j]);
		}
		tracefs_list_free(evs);
	}
	for (int k = 0; k < ndyn; k++) {
		free(dyn[k].sys);
		free(dyn[k].ev);
		free(dyn[k].desc);
	}
	free(dyn);
	tracefs_list_free(systems);
	tep_free(tep);
	if (!found && glob) {
		ftr_err("no event matches '%s' (try 'ftr list' for all of them)", glob);
		return FTR_EXIT_FAIL;
	}
	return FTR_EXIT_OK;
}

static int list_functions(const char *glob, const struct ftr_tracefs *t)
{
	char path[PATH_MAX + 64], *text, *line, *save = NULL;
	bool kprobes, from_kallsyms = false;
	int found = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", t->path);
	kprobes = path_exists(path);
	/* available_filter_functions is what ftrace can hook; without it
	 * (no dynamic ftrace) fall back to kallsyms' text symbols. */
	snprintf(path, sizeof(path), "%s/available_filter_functions", t->path);
	text = read_file(path, NULL);
	if (!text) {
		text = read_file("/proc/kallsyms", NULL);
		from_kallsyms = true;
	}
	if (!text) {
		ftr_err("cannot read '%s' or '/proc/kallsyms': %s", path, strerror(errno));
		return FTR_EXIT_FAIL;
	}
	if (!kprobes)
		fprintf(stderr, "ftr: note: this kernel has no kprobe events: these functions "
				"cannot be probed with kprobe: (see 'ftr doctor')\n");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[256] = "", mod[128] = "";

		if (from_kallsyms) {
			char type;

			if (sscanf(line, "%*s %c %255s %127s", &type, name, mod) < 2 ||
			    (type != 't' && type != 'T'))
				continue;
		} else if (sscanf(line, "%255s %127s", name, mod) < 1) {
			continue;
		}
		if (glob && fnmatch(str_has_prefix(glob, "kprobe:") ? glob + 7 : glob, name, 0))
			continue;
		found++;
		printf("kprobe:%s%s%s%s\n", name, mod[0] ? " " : "", mod,
		       kprobes ? "" : "    (unusable: no kprobe events)");
	}
	free(text);
	if (!found && glob) {
		ftr_err("no function matches '%s'", glob);
		return FTR_EXIT_FAIL;
	}
	return FTR_EXIT_OK;
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "functions", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ftr_tracefs t;
	bool verbose = false, functions = false;
	const char *glob = NULL;
	char readme[PATH_MAX + 16];
	int c;

	while ((c = cmd_getopt("list", argc, argv, "vFh", longopts)) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 'F':
			functions = true;
			break;
		case 'h':
			fputs(list_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind < argc)
		glob = argv[optind++];
	if (optind < argc)
		return cmd_usage_error("list", "unexpected argument '%s'", argv[optind]);

	if (glob && str_has_prefix(glob, "usdt:"))
		return bt_list(glob, verbose, 0);	/* an ELF file: no tracefs needed */
	if (tracefs_locate(&t, true) < 0) {
		ftr_err("%s", t.why);
		return FTR_EXIT_FAIL;
	}
	if (access(t.path, R_OK | X_OK) != 0) {
		ftr_err("cannot read tracefs at '%s': %s%s", t.path, strerror(errno),
			geteuid() ? " (tracing needs root)" : "");
		return FTR_EXIT_FAIL;
	}
	snprintf(readme, sizeof(readme), "%s/README", t.path);
	if (!path_exists(readme)) {
		ftr_err("tracefs at '%s' is empty: kernel lockdown forbids tracing "
			"(see 'ftr doctor')", t.path);
		return FTR_EXIT_FAIL;
	}
	if (functions)
		return list_functions(glob, &t);
	return list_events(glob, verbose, t.path);
}
