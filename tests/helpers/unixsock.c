// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unixsock [N]: N times (1 by default) sends the 12 bytes "ftr-undump"
 * 0x01 0xff through a unix stream socket pair and reads them back, in one
 * process (comm "unixsock").  Known bytes for a tracer of unix socket
 * receives (bpftrace's undump.bt prints "ftr-undump\x01\xff", length 12).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const char msg[12] = "ftr-undump\x01\xff";
	long n = argc > 1 ? strtol(argv[1], NULL, 0) : 1;
	char got[sizeof(msg)];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) {
		perror("unixsock: socketpair");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		size_t off = 0;

		if (write(sv[0], msg, sizeof(msg)) != (ssize_t)sizeof(msg)) {
			perror("unixsock: write");
			return 1;
		}
		while (off < sizeof(got)) {
			ssize_t r = read(sv[1], got + off, sizeof(got) - off);

			if (r <= 0) {
				perror("unixsock: read");
				return 1;
			}
			off += (size_t)r;
		}
		if (memcmp(got, msg, sizeof(msg))) {
			fprintf(stderr, "unixsock: read other bytes than written\n");
			return 1;
		}
	}
	close(sv[0]);
	close(sv[1]);
	return 0;
}
