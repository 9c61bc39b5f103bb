/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pid → comm, for events that carry only common_pid: looked up once, in
 * /proc while the process lives, else in the kernel's saved_cmdlines, and
 * cached; a pid in neither is "<...>", looked up again in saved_cmdlines
 * at its next event (that list is read at most 4 times in 50 ms).
 */
#ifndef FTR_COMM_H
#define FTR_COMM_H

struct comm_cache;

/* tdir: tracefs, for its saved_cmdlines (NULL: none). */
struct comm_cache *comm_cache_new(const char *tdir);
void comm_cache_free(struct comm_cache *cc);
/* Over a recording: misses ask fn (the file's saved cmdlines; NULL:
 * unknown), never /proc; a thread is its own process, of no known user. */
void comm_cache_offline(struct comm_cache *cc, const char *(*fn)(int pid, void *arg), void *arg);
/* Never NULL; "<...>" when nobody knows.  Valid until the next call. */
const char *comm_lookup(struct comm_cache *cc, int pid);
/* The process (thread group), user and group of a thread, from
 * /proc/TID/status once; a thread that is gone gives its own tid, and uid
 * and gid -1. */
int comm_tgid(struct comm_cache *cc, int tid);
int comm_uid(struct comm_cache *cc, int tid);
int comm_gid(struct comm_cache *cc, int tid);
/* Record a comm the trace itself revealed (exec, rename). */
void comm_set(struct comm_cache *cc, int pid, const char *comm);

#endif
