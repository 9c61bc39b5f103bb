// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * badclient MODE PORT [N] [SRC]: the clients a metrics server must survive,
 * against 127.0.0.1:PORT, from the loopback address SRC (default
 * 127.0.0.1; any 127.x.y.z works on Linux, so that a per-address limit
 * can be tested).  Only loopback: the address is fixed.
 *
 *	big	one GET /metrics with a 1 MB header; prints the status line
 *		("HTTP/1.1 431 ..."), or "closed" when the server hangs up
 *	idle	opens N connections and sends nothing; prints "idle K" (K
 *		connected), then holds them until killed
 *	noread	sends N requests for /metrics on one connection with a tiny
 *		receive buffer and never reads; prints "noread", then holds
 *		it until killed
 *	trickle	opens N connections and sends one byte of a request on each
 *		every 2 s; prints "trickle K" (K connected), then, once the
 *		server has dropped every one, "dropped K" and the status line
 *		of a whole request sent afterwards from the same address (a
 *		slot freed).  Stops sending after 40 s ("held K")
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int dial(int port, const char *src)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in s = { .sin_family = AF_INET };
	int one = 1, small = 1024;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	inet_pton(AF_INET, src, &s.sin_addr);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) < 0 ||
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void hold(void)
{
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *src;
	int port, n;

	if (argc < 3) {
		fprintf(stderr, "usage: badclient big|idle|noread|trickle PORT [N] [SRC]\n");
		return 2;
	}
	port = atoi(argv[2]);
	n = argc > 3 ? atoi(argv[3]) : 1;
	src = argc > 4 ? argv[4] : "127.0.0.1";
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(argv[1], "big")) {
		static char big[1 << 20];
		const char *head = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ";
		char resp[256];
		int fd = dial(port, src);
		ssize_t r;
		size_t off = 0;

		if (fd < 0) {
			perror("connect");
			return 1;
		}
		memset(big, 'a', sizeof(big));
		if (write(fd, head, strlen(head)) < 0)
			return 1;
		/* the server may hang up before it has all: that is fine */
		while (off < sizeof(big) && (r = write(fd, big + off, sizeof(big) - off)) > 0)
			off += (size_t)r;
		if (write(fd, "\r\n\r\n", 4) < 0) {
			/* it stopped reading */
		}
		r = read(fd, resp, sizeof(resp) - 1);
		if (r <= 0) {
			printf("closed\n");
		} else {
			resp[r] = '\0';
			resp[strcspn(resp, "\r\n")] = '\0';
			printf("%s\n", resp);
		}
		return 0;
	}
	if (!strcmp(argv[1], "idle")) {
		int k = 0;

		for (int i = 0; i < n; i++)
			if (dial(port, src) >= 0)
				k++;
		printf("idle %d\n", k);
		hold();
	}
	if (!strcmp(argv[1], "noread")) {
		const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
		int fd = dial(port, src);

		if (fd < 0) {
			perror("connect");
			return 1;
		}
		for (int i = 0; i < n; i++)
			if (send(fd, req, strlen(req), MSG_DONTWAIT) < 0)
				break;
		printf("noread\n");
		hold();
	}
	if (!strcmp(argv[1], "trickle")) {
		const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
		int fd[64], k = 0, left, round;
		char resp[256];
		ssize_t r;

		for (int i = 0; i < n && k < 64; i++)
			if ((fd[k] = dial(port, src)) >= 0)
				k++;
		printf("trickle %d\n", k);
		left = k;
		/* One byte a connection every 2 s, never the whole header;
		 * a connection is dropped when the server closes it. */
		for (round = 0; left && round < 20; round++) {
			for (int i = 0; i < k; i++) {
				struct pollfd p = { .fd = fd[i], .events = POLLIN };

				if (fd[i] < 0)
					continue;
				if ((poll(&p, 1, 0) > 0 && read(fd[i], resp, sizeof(resp)) <= 0) ||
				    write(fd[i], "G", 1) < 0) {
					close(fd[i]);
					fd[i] = -1;
					left--;
				}
			}
			if (left)
				sleep(2);
		}
		if (left) {
			printf("held %d\n", left);
			return 1;
		}
		printf("dropped %d\n", k);
		fd[0] = dial(port, src);
		if (fd[0] < 0 || write(fd[0], req, strlen(req)) < 0 ||
		    (r = read(fd[0], resp, sizeof(resp) - 1)) <= 0) {
			printf("closed\n");
			return 1;
		}
		resp[r] = '\0';
		resp[strcspn(resp, "\r\n")] = '\0';
		printf("%s\n", resp);
		return 0;
	}
	fprintf(stderr, "badclient: unknown mode '%s'\n", argv[1]);
	return 2;
}
