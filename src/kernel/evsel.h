/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event selection: turn what a user typed ("sched:sched_switch",
 * "syscalls:sys_enter_*", "tracepoint:x:y", "t:x:y", "x/y", a bare event
 * name) into the list of tracefs events it names, or an error that offers
 * the closest names.
 */
#ifndef FTR_EVSEL_H
#define FTR_EVSEL_H

#include <stddef.h>

struct evname {
	char *sys;
	char *name;
};

struct evlist {
	struct evname *v;
	size_t n, cap;
};

/* Pure: split a spec into system and event globs.  "tracepoint:" and "t:"
 * prefixes are dropped; ':' or '/' separates; no separator → sys is "*".
 * 0, or -EINVAL for an empty part. */
int evsel_split(const char *spec, char *sys, size_t syslen, char *ev, size_t evlen);

/* Append every event of tracefs (tdir) matching spec to list (deduplicated).
 * Returns the number added, or -ENOENT with a message in err naming up to
 * three close names, or another -errno. */
int evsel_resolve(const char *tdir, const char *spec, struct evlist *list, char *err,
		  size_t errlen);
void evlist_free(struct evlist *list);

/* Pure: Levenshtein distance, capped at cap+1 (for "did you mean"). */
int edit_distance(const char *a, const char *b, int cap);

#endif
