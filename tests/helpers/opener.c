// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * opener N [PATH]: exactly N openat(2) calls on PATH (default /dev/null)
 * with flags O_RDONLY|O_NOFOLLOW, a combination the dynamic loader and libc
 * never use, so a test can single them out.  PATH is copied into a buffer
 * on the stack first: the name the kernel is given is then in a page just
 * written, so a probe that reads it (and cannot fault a page in) finds it.
 *
 * opener --flags: print that flags value.  It differs between architectures
 * (O_NOFOLLOW is 0400000 = 131072 on x86-64 but 0100000 = 32768 on arm64),
 * so tests ask for it instead of writing a number.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FLAGS (O_RDONLY | O_NOFOLLOW)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	char path[4096];

	if (argc > 1 && !strcmp(argv[1], "--flags")) {
		printf("%d\n", FLAGS);
		return 0;
	}
	snprintf(path, sizeof(path), "%s", argc > 2 ? argv[2] : "/dev/null");
	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, path, FLAGS);

		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}
