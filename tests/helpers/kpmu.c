// SPDX-License-Identifier: GPL-2.0
/*
 * kpmu SECS FUNC...: entry and return probes on each FUNC through
 * perf_event_open's kprobe PMU (the way perf and bpftrace attach them, with
 * no tracefs), on every CPU, with kernel callchains, opened, enabled,
 * disabled and closed again and again for SECS seconds.  Each round arms
 * and disarms the functions' ftrace call sites, as a tracefs kprobe event
 * does: t-survive's storm through the other door, so that what a storm
 * does to a kernel can be told apart from what ftr's way of asking does.
 * Prints "kpmu: N rounds, M samples"; exits 2 on bad usage, 77 when the
 * kernel has no kprobe PMU, 1 on any other failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PMU "/sys/bus/event_source/devices/kprobe/"
#define MAXFD 256

static int read_int(const char *path, const char *prefix, int *out)
{
	char buf[64];
	FILE *f = fopen(path, "r");
	size_t n = strlen(prefix);

	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	if (strncmp(buf, prefix, n))
		return -EINVAL;
	*out = atoi(buf + n);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int type, retbit, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int fds[MAXFD], nfd, i, f, cpu, r;
	long rounds = 0;
	uint64_t samples = 0;
	double end;

	if (argc < 3 || atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: kpmu SECS FUNC...\n");
		return 2;
	}
	if (read_int(PMU "type", "", &type) ||
	    read_int(PMU "format/retprobe", "config:", &retbit)) {
		fprintf(stderr, "kpmu: no kprobe PMU in " PMU "\n");
		return 77;
	}
	end = now() + atoi(argv[1]);
	srand(getpid());
	while (now() < end) {
		nfd = 0;
		for (f = 2; f < argc; f++) {
			for (r = 0; r < 2; r++) {
				for (cpu = 0; cpu < ncpu && nfd < MAXFD; cpu++) {
					struct perf_event_attr a = {
						.size = sizeof(a),
						.type = type,
						.config = r ? 1ULL << retbit : 0,
						.config1 = (uintptr_t)argv[f],
						.sample_period = 1,
						.sample_type = PERF_SAMPLE_CALLCHAIN,
						.exclude_callchain_user = 1,
						.disabled = 1,
						.wakeup_events = 1,
					};
					int fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);

					if (fd < 0) {
						fprintf(stderr, "kpmu: perf_event_open(%s%s, cpu %d): %s\n",
							r ? "return of " : "", argv[f], cpu,
							strerror(errno));
						return 1;
					}
					fds[nfd++] = fd;
				}
			}
		}
		for (i = 0; i < nfd; i++)
			ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0);
		usleep((rand() % 7) * 10000);
		for (i = 0; i < nfd; i++) {
			uint64_t c = 0;

			ioctl(fds[i], PERF_EVENT_IOC_DISABLE, 0);
			if (read(fds[i], &c, sizeof(c)) == sizeof(c))
				samples += c;
			close(fds[i]);
		}
		rounds++;
	}
	printf("kpmu: %ld rounds, %llu samples\n", rounds, (unsigned long long)samples);
	return 0;
}
