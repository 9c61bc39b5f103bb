/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pid → comm, for events that carry only common_pid: looked up once, in
 * /proc while the process lives, else in the kernel's saved_cmdlines, and
 * cached; a pid in neither is "<...>", looked up again in saved_cmdlines
 * at its next event (that list is read at most 4 times in 50 ms).
 */
#ifndef FTR_COMM_H
#define FTR_COMM_H

#include <stdint.h>

struct comm_cache;

/* tdir: tracefs, for its saved_cmdlines (NULL: none). */
struct comm_cache *comm_cache_new(const char *tdir);
void comm_cache_free(struct comm_cache *cc);
/* Over a recording: misses ask fn (the file's saved cmdlines; NULL:
 * unknown), never /proc; a thread is its own process, of no known user. */
void comm_cache_offline(struct comm_cache *cc, const char *(*fn)(int pid, void *arg), void *arg);
/* Never NULL; "<...>" when nobody knows.  Valid until the next call. */
const char *comm_lookup(struct comm_cache *cc, int pid);
/* The process (thread group), user and group of a thread that had an
 * event at ts (CLOCK_MONOTONIC), from /proc/TID/status once; a thread gone
 * from /proc by then: from its exit record (comm_cache_watch_exits), else
 * its own tid, and uid and gid -1 (said once on stderr). */
int comm_tgid(struct comm_cache *cc, int tid, uint64_t ts);
int comm_uid(struct comm_cache *cc, int tid, uint64_t ts);
int comm_gid(struct comm_cache *cc, int tid, uint64_t ts);
/* The real parent's process id of the thread, from the same status read
 * (or exit record): as it was then, not at the event if the parent has
 * exited in between (the thread was re-parented); -1 where unknown. */
int comm_ppid(struct comm_cache *cc, int tid, uint64_t ts);
/* The name a task (pid: a thread's id, a process's leader's) had when it
 * exited, from its exit record, into out[16]: 0, or -ENOENT (no record:
 * it has not exited, or the exits are not watched). */
int comm_exit_name(struct comm_cache *cc, int pid, uint64_t ts, char *out);
/* Subscribe to the kernel's task exit records (exits.h) until
 * comm_cache_free: 0 or -errno (the lookups then say why they fail). */
int comm_cache_watch_exits(struct comm_cache *cc);
/* Take the exit records queued so far (each turn of the run loop, so that
 * the socket never fills). */
void comm_cache_poll(struct comm_cache *cc);
/* Record a comm the trace itself revealed (exec, rename). */
void comm_set(struct comm_cache *cc, int pid, const char *comm);

#endif
