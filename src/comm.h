/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pid → comm, for events that carry only common_pid.  libtraceevent knows
 * the saved_cmdlines of the moment it was loaded, so processes started later
 * would print as "<...>": look them up in /proc once and cache the answer.
 */
#ifndef FTR_COMM_H
#define FTR_COMM_H

struct tep_handle;
struct comm_cache;

/* tdir: tracefs, for its saved_cmdlines (NULL: none). */
struct comm_cache *comm_cache_new(struct tep_handle *tep, const char *tdir);
void comm_cache_free(struct comm_cache *cc);
/* Never NULL; "<...>" when nobody knows.  Valid until the next call. */
const char *comm_lookup(struct comm_cache *cc, int pid);
/* The process (thread group) and user of a thread, from /proc/TID/status
 * once; a thread that is gone gives its own tid, and uid -1. */
int comm_tgid(struct comm_cache *cc, int tid);
int comm_uid(struct comm_cache *cc, int tid);
/* Record a comm the trace itself revealed (exec, rename). */
void comm_set(struct comm_cache *cc, int pid, const char *comm);

#endif
