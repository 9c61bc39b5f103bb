// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * writer N [SIZE [CPU]]: exactly N write(2) calls of SIZE bytes (default 1)
 * to /dev/null, pinned to CPU when given.  A negative SIZE -K cycles the
 * sizes 1, 2, ... K, 1, 2, ...: K distinct values (for bounded tables).  A workload of known size for the
 * live tests and benchmarks.  With WRITER_TIME set in the environment it
 * prints its own wall and CPU time of the write loop to stderr (benchmarks).
 * With WRITER_LINGER=S it stays S seconds after its writes before exiting,
 * so that a tracer looking its comm up by pid (in /proc) still finds it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	long n, size = 1;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: writer N [SIZE [CPU]]\n");
		return 2;
	}
	n = atol(argv[1]);
	if (argc > 2)
		size = atol(argv[2]);
	if (size < -(long)sizeof(buf) || size > (long)sizeof(buf))
		return 2;
	if (argc > 3) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[3]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("/dev/null");
		return 1;
	}
	struct timespec t0, t1;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		long sz = size >= 0 ? size : 1 + i % -size;

		if (write(fd, buf, sz) != sz)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("WRITER_TIME")) {
		char line[160];
		struct iovec iov = { line, 0 };

		getrusage(RUSAGE_SELF, &ru);
		iov.iov_len = snprintf(line, sizeof(line), "writer: elapsed=%.6f user=%.6f sys=%.6f\n",
				       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
				       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
				       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
		/* writev, not write: the report must not add a sys_enter_write
		 * event to the N the tracers count. */
		if (writev(2, &iov, 1) < 0)
			return 1;
	}
	if (getenv("WRITER_LINGER"))
		sleep((unsigned)atoi(getenv("WRITER_LINGER")));
	return 0;
}
