// SPDX-License-Identifier: GPL-2.0-or-later
/* pid → comm cache: see comm.h.  Open addressing, grows at 50% load. */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "comm.h"
#include "ftr.h"

struct centry {
	int pid;		/* 0: empty slot (pid 0 is handled apart) */
	char comm[16];
};

struct comm_cache {
	struct tep_handle *tep;
	struct centry *v;
	unsigned cap, used;
};

struct comm_cache *comm_cache_new(struct tep_handle *tep)
{
	struct comm_cache *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->tep = tep;
	cc->cap = 1024;
	cc->v = calloc(cc->cap, sizeof(*cc->v));
	if (!cc->v) {
		free(cc);
		return NULL;
	}
	return cc;
}

void comm_cache_free(struct comm_cache *cc)
{
	if (!cc)
		return;
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
		cc->used++;
	}
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

const char *comm_lookup(struct comm_cache *cc, int pid)
{
	struct centry *e;
	const char *c;
	char path[48], *text;

	if (pid == 0)
		return "<idle>";
	e = slot(cc, pid);
	if (e->pid == pid)
		return e->comm;
	/* Miss: the kernel's saved_cmdlines as loaded, then /proc (which
	 * also answers for threads: /proc/TID/comm exists for every tid). */
	c = cc->tep ? tep_data_comm_from_pid(cc->tep, pid) : NULL;
	if (c && strcmp(c, "<...>") != 0) {
		comm_set(cc, pid, c);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		text = read_file(path, NULL);
		comm_set(cc, pid, text ? str_trim(text) : "<...>");
		free(text);
	}
	e = slot(cc, pid);
	return e->pid == pid ? e->comm : "<...>";
}
