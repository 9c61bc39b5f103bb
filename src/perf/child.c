// SPDX-License-Identifier: GPL-2.0-or-later
/* The command under ftr, held back before exec; a run's signals. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf/child.h"
#include "ftr.h"

/*
 * Wait until the child blocks in its read of the go pipe (its syscall in
 * /proc/PID/syscall is read), for at most about two seconds: its
 * sys_enter_read then comes before anything is set up to trace it, on every
 * run.  Without this, that read raced the set-up, and a program counting
 * the command's reads saw one more in some runs than in others.
 */
static void wait_blocked(pid_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	for (int i = 0; i < 2000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n;

		if (fd < 0)
			return;		/* no /proc: nothing to wait on */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		if (buf[0] >= '0' && buf[0] <= '9' && strtol(buf, NULL, 10) == SYS_read)
			return;
		usleep(1000);
	}
}

int child_spawn(char **argv, struct child *c, void (*before_exec)(void *), void *arg)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return e;
	}
	if (c->pid == 0) {
		char b;
		int e;

		if (before_exec)
			before_exec(arg);
		close(go[1]);
		close(er[0]);
		/* ftr's own fds would close at exec; closed now, so that a held
		 * child does not keep them (the run's lock above all: a killed
		 * ftr's child, still waking up, made 'ftr reset' take the run
		 * for live).  The command's inherited fds stay. */
		for (int fd = 3; fd < 1024; fd++) {
			int fl = fd == go[0] || fd == er[1] ? -1 : fcntl(fd, F_GETFD);

			if (fl >= 0 && (fl & FD_CLOEXEC))
				close(fd);
		}
		if (read(go[0], &b, 1) != 1)
			_exit(127);	/* ftr gave up before starting us */
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	wait_blocked(c->pid);
	c->go_fd = go[1];
	c->err_fd = er[0];
	c->done = false;
	return 0;
}

int child_release(struct child *c, const char *cmd)
{
	int e = 0;
	ssize_t r;

	if (write(c->go_fd, "g", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	/* EOF: the exec succeeded (the pipe is close-on-exec). */
	do
		r = read(c->err_fd, &e, sizeof(e));
	while (r < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (r == (ssize_t)sizeof(e)) {
		ftr_err("cannot run '%s': %s", cmd, strerror(e));
		child_wait(c);
		return -e;
	}
	return 0;
}

bool child_reap(struct child *c)
{
	pid_t r;

	if (c->pid <= 0 || c->done)
		return true;
	r = wait4(c->pid, &c->status, WNOHANG, &c->ru);
	/* ECHILD: reaped behind our back (SIGCHLD ignored by whoever
	 * started us): it is gone all the same. */
	if (r == c->pid || (r < 0 && errno == ECHILD))
		c->done = true;
	return c->done;
}

void child_wait(struct child *c)
{
	if (c->pid <= 0 || c->done)
		return;
	while (wait4(c->pid, &c->status, 0, &c->ru) < 0 && errno == EINTR)
		;
	c->done = true;
}

void child_abandon(struct child *c)
{
	if (c->pid <= 0 || c->done)
		return;
	if (c->go_fd >= 0) {
		close(c->go_fd);	/* never released: it exits 127 */
		c->go_fd = -1;
	} else {
		kill(c->pid, SIGTERM);
	}
	if (c->err_fd >= 0) {
		close(c->err_fd);
		c->err_fd = -1;
	}
	child_wait(c);
}

void child_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status 0x%x", status);
}

int sigwatch_open(struct sigwatch *w, bool chld)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (chld) {
		/* Inherited SIG_IGN would reap our child for us (and never
		 * queue the signal): the default keeps it for wait4. */
		signal(SIGCHLD, SIG_DFL);
		sigaddset(&set, SIGCHLD);
	}
	if (sigprocmask(SIG_BLOCK, &set, &w->old) < 0)
		return -errno;
	w->fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (w->fd < 0) {
		int e = -errno;

		sigprocmask(SIG_SETMASK, &w->old, NULL);
		return e;
	}
	return 0;
}

void sigwatch_close(struct sigwatch *w)
{
	if (w->fd < 0)
		return;
	close(w->fd);
	w->fd = -1;
	sigprocmask(SIG_SETMASK, &w->old, NULL);
}

int sigwatch_take(struct sigwatch *w)
{
	struct signalfd_siginfo si;

	if (w->fd >= 0 && read(w->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		w->from_kernel = si.ssi_code == SI_KERNEL;
		return (int)si.ssi_signo;
	}
	return 0;
}

void sigwatch_restore(void *arg)
{
	struct sigwatch *w = arg;

	sigprocmask(SIG_SETMASK, &w->old, NULL);
}
