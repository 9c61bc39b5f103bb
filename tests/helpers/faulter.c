// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * faulter N: maps N fresh anonymous pages (huge pages refused) and writes
 * one byte to each: exactly N page faults more than `faulter 0` makes.  A
 * workload of known size for software:page-faults.
 *
 * The faults of starting a program vary by one or two with the randomised
 * stack position, so faulter first re-executes itself without address
 * space randomisation, as /proc/self/exe: from then on (the process named
 * "exe") the count is the same on every run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, psz = sysconf(_SC_PAGESIZE);
	volatile char *p;
	int pers = personality(0xffffffff);

	if (pers != -1 && !(pers & ADDR_NO_RANDOMIZE) &&
	    personality((unsigned long)pers | ADDR_NO_RANDOMIZE) != -1) {
		execv("/proc/self/exe", argv);
		perror("faulter: exec /proc/self/exe");
		return 1;
	}
	if (n <= 0)
		return 0;
	p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("faulter: mmap");
		return 1;
	}
	/* One fault per page, not one per 2 MB. */
	madvise((void *)p, (size_t)(n * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * psz] = 1;
	return 0;
}
