// SPDX-License-Identifier: GPL-2.0-or-later
/* pid → comm cache: see comm.h.  Open addressing, grows at 50% load. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernel/comm.h"
#include "kernel/exits.h"
#include "ftr.h"

struct centry {
	int pid;		/* 0: empty slot (pid 0 is handled apart) */
	int tgid, uid, gid;	/* -2: not looked up yet; -1: unknown */
	int ppid;		/* with them: the real parent's tgid, -1 unknown */
	bool unknown;		/* comm is "<...>": a later saved_cmdlines may tell */
	char comm[16];
};

struct comm_cache {
	char tdir[4096];		/* .../saved_cmdlines, or "" */
	uint64_t window;		/* start of the current 50 ms, and */
	unsigned loads;			/* the saved_cmdlines reads in it */
	struct centry *v;
	unsigned cap, used;
	/* A recording: its own saved cmdlines, never this machine's /proc. */
	const char *(*resolve)(int pid, void *arg);
	void *rarg;
	/* Exit records (comm_cache_watch_exits), for tasks gone from /proc;
	 * exits_err: why there are none (0: not asked for). */
	struct task_exits *exits;
	int exits_err;
	bool warned;
};

void comm_cache_offline(struct comm_cache *cc, const char *(*fn)(int pid, void *arg), void *arg)
{
	cc->resolve = fn;
	cc->rarg = arg;
}

struct comm_cache *comm_cache_new(const char *tdir)
{
	struct comm_cache *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	if (tdir)
		snprintf(cc->tdir, sizeof(cc->tdir), "%s/saved_cmdlines", tdir);
	cc->cap = 1024;
	cc->v = calloc(cc->cap, sizeof(*cc->v));
	if (!cc->v) {
		free(cc);
		return NULL;
	}
	return cc;
}

int comm_cache_watch_exits(struct comm_cache *cc)
{
	if (cc->exits || cc->resolve)
		return 0;
	cc->exits_err = task_exits_open(&cc->exits);
	return cc->exits_err;
}

void comm_cache_poll(struct comm_cache *cc)
{
	if (cc && cc->exits)
		task_exits_read(cc->exits);
}

void comm_cache_free(struct comm_cache *cc)
{
	if (!cc)
		return;
	task_exits_close(cc->exits);
	free(cc->v);
	free(cc);
}

static struct centry *slot(struct comm_cache *cc, int pid)
{
	unsigned h = (unsigned)pid * 2654435761u;

	for (unsigned i = 0;; i++) {
		struct centry *e = &cc->v[(h + i) & (cc->cap - 1)];

		if (e->pid == pid || e->pid == 0)
			return e;
	}
}

static int grow(struct comm_cache *cc)
{
	struct centry *old = cc->v;
	unsigned oldcap = cc->cap;

	cc->v = calloc(oldcap * 2, sizeof(*cc->v));
	if (!cc->v) {
		cc->v = old;
		return -1;
	}
	cc->cap = oldcap * 2;
	for (unsigned i = 0; i < oldcap; i++)
		if (old[i].pid)
			*slot(cc, old[i].pid) = old[i];
	free(old);
	return 0;
}

void comm_set(struct comm_cache *cc, int pid, const char *comm)
{
	struct centry *e;

	if (pid <= 0)
		return;
	if (cc->used * 2 >= cc->cap && grow(cc) < 0)
		return;
	e = slot(cc, pid);
	if (!e->pid) {
		e->pid = pid;
		e->tgid = e->uid = e->gid = -2;
		cc->used++;
	}
	e->unknown = false;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

/* A task gone from /proc before its event was read: its exit record, if
 * the kernel sent one; else say once why uid and gid are -1 (a number
 * that looks like an answer and is not). */
static void status_gone(struct comm_cache *cc, struct centry *e, int tid, uint64_t ts)
{
	struct task_exit x;

	if (cc->exits && task_exits_find(cc->exits, tid, ts, &x) == 0) {
		e->uid = x.uid;
		e->gid = x.gid;
		e->ppid = x.ppid;
		if (x.tgid > 0)
			e->tgid = x.tgid;
		return;
	}
	if (cc->warned || (!cc->exits_err && !cc->exits))
		return;
	cc->warned = true;
	if (cc->exits)
		ftr_warn("uid and gid of tid %d are unknown (-1): it was gone from /proc when "
			 "its event was read, and its exit record was not among the kernel's "
			 "(%lu lost to a full socket)", tid, task_exits_lost(cc->exits));
	else
		ftr_warn("uid and gid of tid %d are unknown (-1): it was gone from /proc when "
			 "its event was read, and this kernel sends no exit records "
			 "(taskstats: %s)", tid, task_exits_why(cc->exits_err));
}

/* Tgid, Uid and Gid (the real ones) of a thread from /proc, once; from
 * its exit record where /proc has it no more. */
static struct centry *status_of(struct comm_cache *cc, int tid, uint64_t ts)
{
	struct centry *e;
	char path[48], *text, *p;

	comm_lookup(cc, tid);
	e = slot(cc, tid);
	if (e->pid != tid)
		return NULL;
	if (e->tgid != -2)
		return e;
	e->tgid = e->uid = e->gid = e->ppid = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	text = cc->resolve ? NULL : read_file(path, NULL);
	if (!text && !cc->resolve) {
		status_gone(cc, e, tid, ts);
		return e;
	}
	if (text) {
		p = strstr(text, "\nTgid:");
		if (p)
			e->tgid = atoi(p + 6);
		p = strstr(text, "\nPPid:");
		if (p)
			e->ppid = atoi(p + 6);
		p = strstr(text, "\nUid:");
		if (p)
			e->uid = atoi(p + 5);
		p = strstr(text, "\nGid:");
		if (p)
			e->gid = atoi(p + 5);
		free(text);
	}
	return e;
}

int comm_tgid(struct comm_cache *cc, int tid, uint64_t ts)
{
	struct centry *e;

	if (tid <= 0)
		return tid;
	e = status_of(cc, tid, ts);
	/* A thread that has gone: its tid is the best answer left. */
	return e && e->tgid > 0 ? e->tgid : tid;
}

int comm_uid(struct comm_cache *cc, int tid, uint64_t ts)
{
	struct centry *e = tid > 0 ? status_of(cc, tid, ts) : NULL;

	return e ? e->uid : (tid == 0 ? 0 : -1);
}

int comm_ppid(struct comm_cache *cc, int tid, uint64_t ts)
{
	struct centry *e = tid > 0 ? status_of(cc, tid, ts) : NULL;

	return e ? e->ppid : (tid == 0 ? 0 : -1);
}

int comm_exit_name(struct comm_cache *cc, int pid, uint64_t ts, char *out)
{
	struct task_exit x;

	if (!cc->exits || pid <= 0 || task_exits_find(cc->exits, pid, ts, &x) || !x.comm[0])
		return -ENOENT;
	memcpy(out, x.comm, sizeof(x.comm));
	return 0;
}

int comm_gid(struct comm_cache *cc, int tid, uint64_t ts)
{
	struct centry *e = tid > 0 ? status_of(cc, tid, ts) : NULL;

	return e ? e->gid : (tid == 0 ? 0 : -1);
}

/* Read the kernel's saved_cmdlines ("pid comm" lines) into the cache, at
 * most 4 times in 50 ms: it is a few KB (more where saved_cmdlines_size
 * was raised), and misses come in bursts (the short-lived children of a
 * command, gone before their events are read).  One read per 50 ms made
 * the second exited child of a burst "<...>" for good, although the next
 * read had it (a slower reader, e.g. under ASan, misses more). */
static int load_saved(struct comm_cache *cc)
{
	struct timespec ts;
	uint64_t now;
	char *text, *line, *save = NULL;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
	if (!cc->tdir[0])
		return -EAGAIN;
	if (now - cc->window >= 50000000ull) {
		cc->window = now;
		cc->loads = 0;
	}
	if (cc->loads >= 4)
		return -EAGAIN;
	cc->loads++;
	text = read_file(cc->tdir, NULL);
	if (!text)
		return -errno;
	/* Thousands of lines where saved_cmdlines_size was raised: strtol,
	 * not sscanf. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *comm;
		long pid = strtol(line, &comm, 10);

		if (pid > 0 && pid <= INT32_MAX && *comm == ' ' && comm[1]) {
			struct centry *e = slot(cc, (int)pid);

			/* Never overwrite a comm read from /proc: it is newer.
			 * "<...>" is no comm. */
			if (e->pid != pid || e->unknown)
				comm_set(cc, (int)pid, comm + 1);
		}
	}
	free(text);
	return 0;
}

const char *comm_lookup(struct comm_cache *cc, int pid)
{
	struct centry *e;
	char path[48], *text;

	if (pid == 0)
		return "<idle>";
	e = slot(cc, pid);
	if (e->pid == pid && e->unknown && !cc->resolve && load_saved(cc) == 0)
		e = slot(cc, pid);	/* a "<...>" of before: the kernel's list again */
	if (e->pid == pid)
		return e->comm;
	if (cc->resolve) {
		const char *c = cc->resolve(pid, cc->rarg);

		comm_set(cc, pid, c ? c : "<...>");
		e = slot(cc, pid);
		return e->pid == pid ? e->comm : "<...>";
	}
	/* Miss: /proc first (the live truth), then the kernel's saved_cmdlines
	 * read afresh (a process already gone). */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	text = read_file(path, NULL);
	if (text) {
		comm_set(cc, pid, str_trim(text));
		free(text);
	} else {
		load_saved(cc);
		if (slot(cc, pid)->pid == pid)
			return slot(cc, pid)->comm;
		comm_set(cc, pid, "<...>");
		if (slot(cc, pid)->pid == pid)
			slot(cc, pid)->unknown = true;
	}
	e = slot(cc, pid);
	return e->pid == pid ? e->comm : "<...>";
}
