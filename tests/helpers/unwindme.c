// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program for the CFI unwinder's tests:
 *
 *   main -> mid -> leaf_a      three quarters of the work
 *   main -> mid -> leaf_b      one quarter
 *   main -> copy -> memcpy     with -m: libc's memcpy, from a caller of ours
 *   main -> deep (x DEPTH) -> leaf_a   with -d DEPTH: each deep frame holds
 *                               1 KB of stack, so the stack copy runs out
 *
 * The leaves are true leaves (no call, no stack): GCC gives them no frame
 * even with -fno-omit-frame-pointer, so a frame-pointer walk from them
 * skips mid.  The Makefile builds it -O2 without frame pointers
 * (unwindme-nofp), the same stripped (unwindme-stripped), and -O2 with frame
 * pointers (unwindme-fp: frameless leaves only).
 *
 *   unwindme [-m | -d DEPTH] [MS]   about MS ms of CPU time (default 1000)
 *   unwindme -n ROUNDS              a fixed amount of work (benchmarks)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define KEEP __attribute__((noinline, noipa, used))
#else
#define KEEP __attribute__((noinline, used))
#endif

#define CHUNK 100000

volatile uint64_t sink;
static char src_buf[1 << 20], dst_buf[1 << 20];
volatile size_t copy_len = sizeof(src_buf);

KEEP uint64_t leaf_a(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

KEEP uint64_t leaf_b(uint64_t n, uint64_t x)
{
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1013904223ull;
	return x;
}

KEEP uint64_t mid(uint64_t x)
{
	x = leaf_a(3 * CHUNK, x) ^ 1;
	return leaf_b(CHUNK, x) ^ 2;
}

KEEP uint64_t copy(uint64_t x)
{
	/* Not a constant size: GCC keeps the call to libc. */
	memcpy(dst_buf, src_buf, copy_len);
	return x ^ (unsigned char)dst_buf[x & 0xfff];
}

KEEP uint64_t deep(int depth, uint64_t x)
{
	volatile char pad[1024];

	pad[0] = (char)x;
	if (depth > 0)
		x = deep(depth - 1, x) + 1;
	else
		x = leaf_a(4 * CHUNK, x);
	return x ^ (uint64_t)pad[0];
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long rounds = -1, r;
	double ms = 1000, start;
	int depth = -1, i = 1;
	uint64_t x = 42;
	bool do_copy = false;

	if (argc > 1 && !strcmp(argv[1], "-m")) {
		do_copy = true;
		i++;
	} else if (argc > 2 && !strcmp(argv[1], "-d")) {
		depth = atoi(argv[2]);
		i += 2;
	} else if (argc > 2 && !strcmp(argv[1], "-n")) {
		rounds = atol(argv[2]);
		i += 2;
	}
	if (i < argc)
		ms = atof(argv[i]);
	if (ms <= 0 || (argc > 2 && !strcmp(argv[1], "-n") && rounds <= 0)) {
		fprintf(stderr, "usage: unwindme [-m | -d DEPTH] [MS] | unwindme -n ROUNDS\n");
		return 2;
	}
	start = cpu_ms();
	for (r = 0; rounds < 0 || r < rounds; r++) {
		if (do_copy)
			x = copy(x);
		else if (depth >= 0)
			x = deep(depth, x);
		else
			x = mid(x);
		/* The clock is a system call: look at it every 8 rounds only. */
		if (rounds < 0 && (r & 7) == 7 && cpu_ms() - start >= ms)
			break;
	}
	sink = x;
	return 0;
}
