// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A CPU-bound program for bench/profile.sh: a fixed amount of work spread
 * over functions of different weights (own code, a libc call, a syscall
 * loop for kernel frames), single-threaded, small in memory.
 *
 *   cpubound [ROUNDS]    (default 300)
 *
 * On standard error at the end: "cpubound work_ms=W cpu_ms=C end_ns=E": its
 * own (wall) time for the work, its CPU time, and the CLOCK_REALTIME instant
 * it ended, so that the benchmark measures the time from the end of the run
 * to a printed report.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static unsigned char buf[1 << 16];
static uint32_t arr[4096];
double ma[48][48], mb[48][48], mc[48][48];
volatile uint64_t sink;

NOINLINE uint64_t hash_bytes(int reps)
{
	uint64_t h = 1469598103934665603ull;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < sizeof(buf); i++)
			h = (h ^ buf[i]) * 1099511628211ull;
	return h;
}

NOINLINE uint32_t crc_bits(int reps)
{
	uint32_t c = 0xffffffffu;

	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < sizeof(buf) / 4; i++) {
			c ^= buf[i];
			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
		}
	return c;
}

NOINLINE void mat_mul(int reps)
{
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 48; i++)
			for (int j = 0; j < 48; j++) {
				double s = 0;

				for (int k = 0; k < 48; k++)
					s += ma[i][k] * mb[k][j];
				mc[i][j] = s + r;
			}
}

NOINLINE void insertion_sort(int reps)
{
	for (int r = 0; r < reps; r++) {
		uint32_t x = (uint32_t)r * 2654435761u;

		for (int i = 0; i < 1024; i++)
			arr[i] = x = x * 1664525u + 1013904223u;
		for (int i = 1; i < 1024; i++) {
			uint32_t v = arr[i];
			int j = i - 1;

			while (j >= 0 && arr[j] > v) {
				arr[j + 1] = arr[j];
				j--;
			}
			arr[j + 1] = v;
		}
	}
}

NOINLINE uint64_t copy_around(int reps)
{
	static unsigned char dst[1 << 16];
	uint64_t s = 0;

	for (int r = 0; r < reps; r++) {
		memcpy(dst, buf, sizeof(buf));
		s += dst[r & 0xffff];
	}
	return s;
}

NOINLINE uint64_t ask_kernel(int reps)
{
	uint64_t s = 0;

	for (int r = 0; r < reps; r++)
		s += (uint64_t)getppid();
	return s;
}

NOINLINE void round_of_work(void)
{
	sink += hash_bytes(14);
	sink += crc_bits(3);
	mat_mul(36);
	sink += (uint64_t)mc[7][9];
	insertion_sort(5);
	sink += copy_around(600);
	sink += ask_kernel(12000);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	struct timespec a, b, e, c;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	for (int i = 0; i < 48; i++)
		for (int j = 0; j < 48; j++) {
			ma[i][j] = i + j;
			mb[i][j] = i - j;
		}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int r = 0; r < rounds; r++)
		round_of_work();
	clock_gettime(CLOCK_MONOTONIC, &b);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	clock_gettime(CLOCK_REALTIME, &e);
	fprintf(stderr, "cpubound work_ms=%.3f cpu_ms=%.3f end_ns=%lld%09ld\n",
		(b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6,
		c.tv_sec * 1e3 + c.tv_nsec / 1e6, (long long)e.tv_sec, e.tv_nsec);
	return 0;
}
