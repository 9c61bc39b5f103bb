/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A command run under ftr (`ftr trace|stat|profile -- CMD`): forked, held
 * back before exec until the measurement is set up for its pid, then
 * released, so that not one instruction of its own runs unobserved.
 *
 * And the signals of a run that has no tracefs session: SIGINT, SIGTERM and
 * SIGHUP (and SIGCHLD, so that a child's end wakes the poll loop at once)
 * blocked and read from a signalfd in the same poll set as the data.
 */
#ifndef FTR_CHILD_H
#define FTR_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int go_fd;		/* write a byte: the child may exec */
	int err_fd;		/* the child's exec errno, or EOF when exec worked */
	int status;		/* from wait4, once done */
	struct rusage ru;	/* its resource use (and its reaped children's) */
	bool done;
};
#define CHILD_INIT { .pid = -1, .go_fd = -1, .err_fd = -1 }

/* Fork argv held back before exec.  before_exec (may be NULL) runs in the
 * child first: it restores the signal mask ftr started with.  0 / -errno. */
int child_spawn(char **argv, struct child *c, void (*before_exec)(void *), void *arg);
/* Let it exec; says (as "cannot run 'cmd': ...") and returns -errno when
 * exec failed, the child then reaped. */
int child_release(struct child *c, const char *cmd);
/* Reap it without blocking: true once it has ended (c->status, c->ru). */
bool child_reap(struct child *c);
/* Wait for it to end. */
void child_wait(struct child *c);
/* On an error path: end it (never released: it exits 127; else SIGTERM)
 * and reap it.  Harmless when there is none or it is done. */
void child_abandon(struct child *c);
/* "exited with status 3", "killed by signal 9 (Killed)": for notes. */
void child_status_str(int status, char *buf, size_t len);

struct sigwatch {
	int fd;
	sigset_t old;
	bool from_kernel;	/* the last signal taken: the kernel's (a terminal's
				 * Ctrl-C, sent to the whole foreground group) */
};
/* Block SIGINT, SIGTERM, SIGHUP (and SIGCHLD when chld) and open a
 * non-blocking signalfd for them.  0 / -errno. */
int sigwatch_open(struct sigwatch *w, bool chld);
void sigwatch_close(struct sigwatch *w);
/* The next pending signal's number, or 0. */
int sigwatch_take(struct sigwatch *w);
/* For child_spawn's before_exec: the signal mask from before sigwatch_open. */
void sigwatch_restore(void *w);

#endif
