// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * forker N [PAUSE_MS]: exactly N fork(2)s, each child exiting at once and
 * reaped before the next fork; with PAUSE_MS, a pause of that long after
 * the first half, so that a program printing per interval sees the forks
 * in (at least) two intervals.  A sched_yield(2) after each half marks it
 * for a program that prints at an event.  A process-creation workload of known size
 * (a shell's loop may or may not fork for a builtin or a NOFORK applet).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	long pause_ms = argc > 2 ? atol(argv[2]) : 0;

	for (long i = 0; i < n; i++) {
		pid_t p;

		if (i == n / 2)
			sched_yield();
		if (pause_ms && i == n / 2) {
			struct timespec ts = { pause_ms / 1000, (pause_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
		}
		p = fork();
		if (p < 0)
			return 1;
		if (p == 0)
			_exit(0);
		if (waitpid(p, NULL, 0) != p)
			return 1;
	}
	sched_yield();
	return 0;
}
