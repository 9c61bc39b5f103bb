// SPDX-License-Identifier: GPL-2.0-or-later
/* Event selection: see evsel.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "kernel/evsel.h"
#include "kernel/session.h"
#include "ftr.h"

int evsel_split(const char *spec, char *sys, size_t syslen, char *ev, size_t evlen)
{
	const char *sep;

	if (str_has_prefix(spec, "tracepoint:"))
		spec += strlen("tracepoint:");
	else if (str_has_prefix(spec, "t:"))
		spec += 2;
	sep = strpbrk(spec, ":/");
	if (!sep) {
		snprintf(sys, syslen, "*");
		snprintf(ev, evlen, "%s", spec);
	} else {
		snprintf(sys, syslen, "%.*s", (int)(sep - spec), spec);
		snprintf(ev, evlen, "%s", sep + 1);
	}
	if (!sys[0] || !ev[0] || strpbrk(ev, ":/"))
		return -EINVAL;
	return 0;
}

int edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[256], best;

	if (lb >= ARRAY_SIZE(row) || (la > lb ? la - lb : lb - la) > (size_t)cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int prev = row[0];

		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int cur = row[j];
			int sub = prev + (a[i - 1] != b[j - 1]);

			row[j] = cur + 1 < row[j - 1] + 1 ? cur + 1 : row[j - 1] + 1;
			if (sub < row[j])
				row[j] = sub;
			prev = cur;
			if (row[j] < best)
				best = row[j];
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb] > cap ? cap + 1 : row[lb];
}

static int push(struct evlist *l, const char *sys, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].sys, sys) && !strcmp(l->v[i].name, name))
			return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct evname *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].sys = strdup(sys);
	l->v[l->n].name = strdup(name);
	if (!l->v[l->n].sys || !l->v[l->n].name)
		return -ENOMEM;
	l->n++;
	return 1;
}

void evlist_free(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].sys);
		free(l->v[i].name);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

struct near {
	int d;
	char name[160];
};

static void consider(struct near *best, const char *want, const char *sys, const char *ev)
{
	char full[160];
	int d, d2;

	snprintf(full, sizeof(full), "%s:%s", sys, ev);
	d = edit_distance(want, full, 8);
	d2 = edit_distance(want, ev, 8);
	if (d2 < d)
		d = d2;
	for (int i = 0; i < 3; i++) {
		if (d < best[i].d) {
			memmove(&best[i + 1], &best[i], (2 - i) * sizeof(best[0]));
			best[i].d = d;
			snprintf(best[i].name, sizeof(best[i].name), "%s", full);
			break;
		}
	}
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* The events of one system that match the glob ev, added to l: how many,
 * or -errno. */
static int match_system(const char *tdir, const char *sys, const char *ev, struct evlist *l)
{
	char **evs, path[4096];
	int added = 0, ret = 0;

	/* ftrace: the tracers' records: nothing to enable. */
	if (!strcmp(sys, "ftrace"))
		return 0;
	if (!is_glob(ev)) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tdir, sys, ev);
		return access(path, F_OK) == 0 ? push(l, sys, ev) : 0;
	}
	evs = tracefs_system_events(tdir, sys);
	for (int j = 0; evs && evs[j] && ret >= 0; j++) {
		if (fnmatch(ev, evs[j], 0) == 0) {
			ret = push(l, sys, evs[j]);
			added += ret > 0;
		}
	}
	tracefs_list_free(evs);
	return ret < 0 ? ret : added;
}

int evsel_resolve(const char *tdir, const char *spec, struct evlist *list, char *err,
		  size_t errlen)
{
	struct near best[4] = { { 99, "" }, { 99, "" }, { 99, "" }, { 99, "" } };
	char sys[128], ev[128], want[260];
	char **systems;
	int added = 0, ret;

	if (evsel_split(spec, sys, sizeof(sys), ev, sizeof(ev)) < 0) {
		snprintf(err, errlen, "'%s' is not an event name (expected SYSTEM:EVENT, "
			 "e.g. sched:sched_switch)", spec);
		return -EINVAL;
	}
	/* Listing every event stats each of thousands of directories (15 ms
	 * here): a system without globs is the only one looked at, an event
	 * without globs is looked up, not listed, and all are listed only to
	 * suggest names. */
	if (!is_glob(sys)) {
		added = match_system(tdir, sys, ev, list);
		if (added)
			return added;
	}
	systems = tracefs_event_systems(tdir);
	if (!systems) {
		snprintf(err, errlen, "cannot read '%s/events': %s", tdir,
			 strerror(errno ? errno : ENOENT));
		return -EIO;
	}
	for (int i = 0; systems[i] && is_glob(sys); i++) {
		if (fnmatch(sys, systems[i], 0))
			continue;
		/* The dynamic events of ftr runs (ftr_<pid>, ftr_sh_<pid>) are
		 * theirs: a glob enabling them would feed another run's
		 * probes into this one and pin them (EBUSY at its cleanup).
		 * Named, or by a glob that says ftr_, they are taken. */
		if (str_has_prefix(systems[i], FTR_NAME_PREFIX) &&
		    !str_has_prefix(sys, FTR_NAME_PREFIX))
			continue;
		ret = match_system(tdir, systems[i], ev, list);
		if (ret < 0) {
			tracefs_list_free(systems);
			return ret;
		}
		added += ret;
	}
	if (added) {
		tracefs_list_free(systems);
		return added;
	}
	snprintf(want, sizeof(want), "%s%s%s", strcmp(sys, "*") ? sys : "",
		 strcmp(sys, "*") ? ":" : "", ev);
	for (int i = 0; systems[i]; i++) {
		char **evs;

		if (!strcmp(systems[i], "ftrace"))
			continue;
		evs = tracefs_system_events(tdir, systems[i]);
		for (int j = 0; evs && evs[j]; j++)
			consider(best, want, systems[i], evs[j]);
		tracefs_list_free(evs);
	}
	tracefs_list_free(systems);
	if (best[0].d <= 8) {
		snprintf(err, errlen, "no event '%s'; closest: %s%s%s%s%s", spec, best[0].name,
			 best[1].d <= 8 ? ", " : "", best[1].d <= 8 ? best[1].name : "",
			 best[2].d <= 8 ? ", " : "", best[2].d <= 8 ? best[2].name : "");
	} else {
		snprintf(err, errlen, "no event '%s' (see 'ftr list')", spec);
	}
	return -ENOENT;
}
