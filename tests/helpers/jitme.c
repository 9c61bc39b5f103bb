// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program that runs generated code (a countdown loop copied into an
 * anonymous executable mapping, as a JIT would), for the profiler's JIT
 * warnings: code with no file, no CFI and no symbols.
 *
 *   jitme [-p] [MS]    about MS ms of CPU time (default 1000); -p also
 *                      writes /tmp/perf-PID.map naming the code "jit_loop",
 *                      and leaves it (profilers read it after the end, as
 *                      runtimes leave theirs): the caller removes it
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* mov %rdi,%rcx; 1: dec %rcx; jnz 1b; ret */
static const unsigned char code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
#elif defined(__aarch64__)
/* 1: subs x0, x0, #1; b.ne 1b; ret */
static const uint32_t code[] = { 0xf1000400, 0x54ffffe1, 0xd65f03c0 };
#elif defined(__arm__)
/* A32 code, entered in ARM state from Thumb-2 callers too (the pointer's bit
 * 0 is clear, and blx interworks); the uint64_t argument's low word is r0,
 * and 2000000 fits in it.  1: subs r0, r0, #1; bne 1b; bx lr */
static const uint32_t code[] = { 0xe2500001, 0x1afffffd, 0xe12fff1e };
#else
#error "jitme: no code for this architecture"
#endif

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	int i = 1, map = 0;
	double ms = 1000, start;
	void (*fn)(uint64_t);
	unsigned char *mem;

	if (i < argc && !strcmp(argv[i], "-p")) {
		map = 1;
		i++;
	}
	if (i < argc)
		ms = atof(argv[i]);
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (mem == MAP_FAILED || ms <= 0) {
		fprintf(stderr, "usage: jitme [-p] [MS] (or no executable mapping)\n");
		return 2;
	}
	memcpy(mem, code, sizeof(code));
	__builtin___clear_cache((char *)mem, (char *)mem + sizeof(code));
	if (map) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%lx %zx jit_loop\n", (unsigned long)(uintptr_t)mem, sizeof(code));
			fclose(f);
		}
	}
	fn = (void (*)(uint64_t))(uintptr_t)mem;
	start = cpu_ms();
	while (cpu_ms() - start < ms)
		fn(2000000);
	return 0;
}
