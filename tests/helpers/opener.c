// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * opener N: exactly N openat(2) calls on /dev/null with flags
 * O_RDONLY|O_NOFOLLOW (131072 on x86-64 and arm64), a combination the
 * dynamic loader and libc never use, so a test can single them out.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY | O_NOFOLLOW);

		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}
