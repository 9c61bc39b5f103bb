// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A uprobe target of known behaviour.
 *
 *   uprobe-target [K [BASE]]   calls ftr_target(BASE + i) for i in 0..K-1
 *                              (K=10, BASE=1000 by default); each returns
 *                              3 * x + 7.  Then ftr_target_str("hello-ftr", K)
 *                              once, and ftr_target_many(10, 11, ..., 17)
 *                              once (arguments 7 and 8 are on the stack on
 *                              x86-64).  Prints the sum of the results.
 *   uprobe-target --buf        calls ftr_target_buf(B, N) for N = 20, 100, 0,
 *                              -1 over a buffer of known bytes B (printable
 *                              ones, a backslash, quotes, \t \n \0 0x7f
 *                              0xff 0x80, then (7 * i + 1) & 0xff), then
 *                              ftr_target_buf(E, 10): 10 bytes "0123456789"
 *                              that end a page whose next page is unmapped.
 *   uprobe-target --where SYM  prints SYM's file offset, computed from this
 *                              process's own /proc/self/maps (an answer
 *                              independent of ELF symbol tables, for tests).
 *
 * The unit tests also build this file with -DFTR_TARGET_LIB as a shared
 * library, and stripped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#if defined(__GNUC__) && !defined(__clang__)
#define PROBED __attribute__((noinline, noclone, used))
#else
#define PROBED __attribute__((noinline, used))
#endif

PROBED long ftr_target(long x)
{
	__asm__ volatile("" ::: "memory");
	return 3 * x + 7;
}

PROBED long ftr_target_str(const char *s, long n)
{
	__asm__ volatile("" ::: "memory");
	return (long)strlen(s) + n;
}

PROBED long ftr_target_many(long a0, long a1, long a2, long a3, long a4, long a5, long a6,
			    long a7)
{
	__asm__ volatile("" ::: "memory");
	return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

PROBED long ftr_target_buf(const void *p, long n)
{
	/* p an input of the asm: the caller's writes to *p happen first */
	__asm__ volatile("" : : "r"(p) : "memory");
	return n;
}

/* Only in .symtab: gone when stripped, never exported. */
static PROBED long ftr_local(long x)
{
	__asm__ volatile("" ::: "memory");
	return x - 1;
}

#ifndef FTR_TARGET_LIB
static int bufs(void)
{
	static unsigned char b[300];
	long page = sysconf(_SC_PAGESIZE);
	char *m;

	for (int i = 0; i < 300; i++)
		b[i] = (unsigned char)(7 * i + 1);
	memcpy(b, "Hi \\ \"q\" %s\t\n\0\x7f\xff\x80 ~", 19);
	ftr_target_buf(b, 20);
	ftr_target_buf(b, 100);
	ftr_target_buf(b, 0);
	ftr_target_buf(b, -1);
	/* A buffer at a page's end, the next page unmapped: what a fixed-size
	 * read past the buffer meets. */
	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || munmap(m + page, page))
		return 1;
	memcpy(m + page - 10, "0123456789", 10);
	ftr_target_buf(m + page - 10, 10);
	return 0;
}

static int where(const char *sym)
{
	static const struct {
		const char *name;
		void *fn;
	} fns[] = {
		{ "ftr_target", (void *)ftr_target },
		{ "ftr_target_str", (void *)ftr_target_str },
		{ "ftr_target_many", (void *)ftr_target_many },
		{ "ftr_local", (void *)ftr_local },
	};
	uintptr_t addr = 0;
	char line[4096];
	FILE *f;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(fns[i].name, sym))
			addr = (uintptr_t)fns[i].fn;
	if (!addr)
		return 2;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, pgoff;

		if (sscanf(line, "%lx-%lx %*s %lx", &start, &end, &pgoff) == 3 &&
		    addr >= start && addr < end) {
			printf("0x%lx\n", (unsigned long)(addr - start + pgoff));
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return 1;
}

int main(int argc, char **argv)
{
	long k = 10, base = 1000, sum = 0;

	if (argc == 3 && !strcmp(argv[1], "--where"))
		return where(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--buf"))
		return bufs();
	if (argc > 1)
		k = strtol(argv[1], NULL, 0);
	if (argc > 2)
		base = strtol(argv[2], NULL, 0);
	for (long i = 0; i < k; i++)
		sum += ftr_target(base + i);
	sum += ftr_target_str("hello-ftr", k);
	sum += ftr_target_many(10, 11, 12, 13, 14, 15, 16, 17);
	sum += ftr_local(1);
	printf("%ld\n", sum);
	return 0;
}
#endif
