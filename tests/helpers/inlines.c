// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program with functions inlined into each other, for the DWARF reader's
 * test (tests/unit/test-dwline.c compares src/report/dwline.c with
 * addr2line -f -i on every address of it): chains three deep, a function
 * inlined at several places, code from another file (inlines.h), and a
 * function split into hot and cold parts (several ranges).  The Makefile builds it -O2 with DWARF 5, DWARF 4,
 * compressed DWARF, and with clang when there is one.
 *
 *   inlines [N]   runs N rounds (default 1000) and prints a checksum
 */
#include <stdio.h>
#include <stdlib.h>

#define KEEP __attribute__((noinline, used))

static volatile unsigned sink;

#include "inlines.h"

INLINE unsigned step(unsigned x, int i)
{
	if (i % 7 == 0)
		sink = x;
	return twice(x + (unsigned)i);
}

KEEP unsigned rare(unsigned x)
{
	/* cold: GCC moves the unlikely branch to .text.unlikely */
	if (__builtin_expect(x == 12345, 0)) {
		fprintf(stderr, "rare %u\n", x);
		abort();
	}
	return step(x, 3);
}

KEEP unsigned work(unsigned seed, int n)
{
	unsigned acc = seed;

	for (int i = 0; i < n; i++)
		acc += step(acc, i);
	return acc + rare(acc | 1);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;

	printf("%u\n", work(1, n) + mix((unsigned)n));
	return 0;
}
