// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * usdt N: USDT probes (SystemTap's <sys/sdt.h>) of known behaviour.
 *
 *   ftr:tick (i, 3 * i + 7, -i, 42)   fired N times, i = 1..N (a register,
 *                                     an expression, a negative, a constant)
 *   ftr:mem  (counter, name)          fired N times: counter is a global read
 *                                     from memory (i), name a string
 *                                     ("usdt-hello")
 *   ftr:gated (i)                     guarded by a semaphore: fired only
 *                                     while a tracer has it raised
 *
 * Prints "gated=K" (how many ftr:gated fired) at the end, so that a test can
 * tell a semaphore was raised.  USDT_DELAY_MS (environment): sleep that long
 * before the probes, for a tracer to attach by pid.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

/* The semaphores the notes point at (section .probes, as dtrace -G would
 * make them): a tracer adds one while it is attached.  With semaphores on,
 * <sys/sdt.h> wants one per probe; only ftr:gated's guards its probe. */
#define SEMAPHORE(p, n) __extension__ unsigned short p##_##n##_semaphore \
	__attribute__((unused)) __attribute__((section(".probes")))
SEMAPHORE(ftr, tick);
SEMAPHORE(ftr, mem);
SEMAPHORE(ftr, gated);

volatile long usdt_counter;
static const char usdt_name[] = "usdt-hello";

static __attribute__((noinline)) void tick(long i)
{
	long j = 3 * i + 7;

	DTRACE_PROBE4(ftr, tick, i, j, -i, 42);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, gated = 0;
	const char *d = getenv("USDT_DELAY_MS");

	if (d) {
		struct timespec ts = { atol(d) / 1000, (atol(d) % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	}
	for (long i = 1; i <= n; i++) {
		tick(i);
		usdt_counter = i;
		DTRACE_PROBE2(ftr, mem, usdt_counter, usdt_name);
		if (ftr_gated_semaphore) {
			gated++;
			DTRACE_PROBE1(ftr, gated, i);
		}
	}
	printf("gated=%ld\n", gated);
	return 0;
}
