// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * writer N [SIZE [CPU]]: exactly N write(2) calls of SIZE bytes (default 1)
 * to /dev/null, pinned to CPU when given.  A workload of known size for the
 * live tests and benchmarks.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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
	if (size < 0 || size > (long)sizeof(buf))
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
	for (long i = 0; i < n; i++)
		if (write(fd, buf, size) != size)
			return 1;
	return 0;
}
