/* SPDX-License-Identifier: GPL-2.0-or-later */
/* perf_event_open: counters and samplers (the one place that calls it). */
#ifndef FTR_PERF_H
#define FTR_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd, unsigned long flags);
/* Can this process open (type, config) on itself?  0, or -errno. */
int perf_probe(unsigned type, unsigned long long config, bool sampling);
/* /proc/sys/kernel/perf_event_paranoid, or INT_MIN when unreadable. */
int perf_paranoid(void);

#endif
