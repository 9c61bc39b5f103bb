// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rthog CPU SPIN_MS BURSTS [GAP_MS]: a SCHED_FIFO 99 thread pinned to CPU
 * that spins SPIN_MS milliseconds BURSTS times, sleeping GAP_MS (20) in
 * between.  At priority 99 it keeps timerlat's FIFO:95 thread off the CPU
 * (DEFAULT_TIMERLAT_PRIO, trace_osnoise.c) for as long as it spins: a
 * known blocking thread for `ftr latency timerlat --stop-at`.  Prints its
 * pid, then "spun N" at the end.  Needs CAP_SYS_NICE; the kernel's RT
 * throttling (950 ms of each second by default) bounds a burst anyway.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 99 };
	long spin_ms, bursts, gap_ms = 20, n;
	cpu_set_t set;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: rthog CPU SPIN_MS BURSTS [GAP_MS]\n");
		return 2;
	}
	spin_ms = atol(argv[2]);
	bursts = atol(argv[3]);
	if (argc == 5)
		gap_ms = atol(argv[4]);
	CPU_ZERO(&set);
	CPU_SET(atoi(argv[1]), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		return 1;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("sched_setscheduler");
		return 1;
	}
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (n = 0; n < bursts; n++) {
		struct timespec gap = { gap_ms / 1000, gap_ms % 1000 * 1000000 };
		long long end = now_ns() + spin_ms * 1000000LL;

		while (now_ns() < end)
			;
		nanosleep(&gap, NULL);
	}
	printf("spun %ld\n", n);
	return 0;
}
