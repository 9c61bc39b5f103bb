// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timers SLEEPS ITIMERS TIMERFDS: arms exactly that many kernel hrtimers of
 * three kinds, each once per call and each in relative mode, so that
 * timer:hrtimer_start sees SLEEPS events with function hrtimer_wakeup
 * (nanosleep), ITIMERS with it_real_fn (setitimer ITIMER_REAL) and TIMERFDS
 * with timerfd_tmrproc (timerfd_settime): a workload whose kernel-address
 * keys are known.  The itimer and the timerfd are armed 100 s ahead and
 * never fire; exit cancels them (a cancel is not a start).
 * timers SLEEPS ITIMERS TIMERFDS nanosleep: the sleeps are the nanosleep
 * system call itself (syscalls:sys_enter_nanosleep, naptime.bt), where
 * glibc's nanosleep() is clock_nanosleep.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 10000 };
	struct itimerval it = { .it_value = { 100, 0 } };
	struct itimerspec tfs = { .it_value = { 100, 0 } };
	long sleeps, itimers, tfds;
	int fd;

	if (argc != 4 && !(argc == 5 && !strcmp(argv[4], "nanosleep"))) {
		fprintf(stderr, "usage: timers SLEEPS ITIMERS TIMERFDS [nanosleep]\n");
		return 2;
	}
	sleeps = atol(argv[1]);
	itimers = atol(argv[2]);
	tfds = atol(argv[3]);
	fd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (fd < 0) {
		perror("timerfd_create");
		return 1;
	}
	for (long i = 0; i < sleeps; i++)
		if (argc == 5)
			syscall(SYS_nanosleep, &ts, NULL);
		else
			nanosleep(&ts, NULL);
	for (long i = 0; i < itimers; i++)
		if (setitimer(ITIMER_REAL, &it, NULL) < 0) {
			perror("setitimer");
			return 1;
		}
	for (long i = 0; i < tfds; i++)
		if (timerfd_settime(fd, 0, &tfs, NULL) < 0) {
			perror("timerfd_settime");
			return 1;
		}
	return 0;
}
