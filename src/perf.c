// SPDX-License-Identifier: GPL-2.0-or-later
/* perf_event_open wrappers. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ftr.h"
#include "perf.h"

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int perf_probe(unsigned type, unsigned long long config, bool sampling)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.disabled = 1,
	};
	int fd;

	if (sampling) {
		attr.sample_freq = 99;
		attr.freq = 1;
		attr.sample_type = PERF_SAMPLE_IP;
	}
	fd = perf_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int perf_paranoid(void)
{
	char *s = read_file("/proc/sys/kernel/perf_event_paranoid", NULL);
	int v;

	if (!s)
		return INT_MIN;
	v = atoi(s);
	free(s);
	return v;
}
