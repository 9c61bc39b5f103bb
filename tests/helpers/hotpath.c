// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program with a known hot path, for the profiler's tests:
 *
 *   main -> run -> work_a -> leaf_a    three quarters of the work
 *   main -> run -> work_b -> leaf_b    one quarter
 *
 * The two leaves run the same loop (a chain of dependent multiply-adds),
 * leaf_a three times as many iterations per round: their CPU time is 3:1.
 *
 *   hotpath [MS]        about MS milliseconds of CPU time (default 1000)
 *   hotpath -n ROUNDS   a fixed amount of work (benchmarks)
 *
 * The Makefile builds it with frame pointers (hotpath), without them
 * (hotpath-nofp: the profiler must warn that stacks are one frame deep),
 * and stripped (hotpath-stripped: the profiler must say so).
 */
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

/*
 * A call makes the leaves non-leaf functions to the compiler: GCC sets up no
 * frame in a leaf (x86-64: one that needs no stack, even with
 * -fno-omit-frame-pointer; arm64: -momit-leaf-frame-pointer is its default),
 * and the frame-pointer walk would then skip the leaf's caller (work_a).
 */
KEEP uint64_t seed(uint64_t x)
{
	return x | 1;
}

/* Different constants, so that no compiler folds the two into one. */
KEEP uint64_t leaf_a(uint64_t n, uint64_t x)
{
	x = seed(x);
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

KEEP uint64_t leaf_b(uint64_t n, uint64_t x)
{
	x = seed(x);
	for (uint64_t i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1013904223ull;
	return x;
}

KEEP uint64_t work_a(uint64_t x)
{
	return leaf_a(3 * CHUNK, x) ^ 1;
}

KEEP uint64_t work_b(uint64_t x)
{
	return leaf_b(CHUNK, x) ^ 2;
}

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

KEEP uint64_t run(long rounds, double ms)
{
	uint64_t x = 42;
	double start = cpu_ms();

	for (long r = 0; rounds < 0 || r < rounds; r++) {
		x = work_a(x);
		x = work_b(x);
		/* The clock is a system call (arm64, or emulated): look at it
		 * only every 8 rounds, lest it show in the profile. */
		if (rounds < 0 && (r & 7) == 7 && cpu_ms() - start >= ms)
			break;
	}
	return x;
}

int main(int argc, char **argv)
{
	long rounds = -1;
	double ms = 1000;

	if (argc > 2 && !strcmp(argv[1], "-n"))
		rounds = atol(argv[2]);
	else if (argc > 1)
		ms = atof(argv[1]);
	if ((argc > 1 && rounds < 0 && ms <= 0) || (argc > 2 && rounds <= 0)) {
		fprintf(stderr, "usage: hotpath [MS] | hotpath -n ROUNDS\n");
		return 2;
	}
	sink = run(rounds, ms);
	return 0;
}
