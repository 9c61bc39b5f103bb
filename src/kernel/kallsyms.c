// SPDX-License-Identifier: GPL-2.0-or-later
/* Names and addresses from /proc/kallsyms, and the running task: see kallsyms.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "kernel/kallsyms.h"

/* The names asked on every run, answered from one read of the file. */
static const char *const common[] = {
	"eprobe_*", "trace_eprobe*",				/* strfetch.c: eprobes built */
	"current_task", "pcpu_hot", "__entry_task", "__per_cpu_offset",	/* curtask */
	"perf_swevent_hrtimer",		/* strfetch.c: a profile clause's eprobe filter */
};
#define NCOMMON (sizeof(common) / sizeof(common[0]))

static bool match(const char *sym, const char *name)
{
	size_t l = strlen(name);

	return name[l - 1] == '*' ? !strncmp(sym, name, l - 1) : !strcmp(sym, name);
}

static int scan(const char *const *names, int n, bool *found, uint64_t *addr)
{
	FILE *fp = fopen("/proc/kallsyms", "re");
	char line[512];

	for (int i = 0; i < n; i++) {
		found[i] = false;
		addr[i] = 0;
	}
	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *sym = strchr(line, ' ');

		sym = sym ? strchr(sym + 1, ' ') : NULL;
		if (!sym)
			continue;
		sym++;
		sym[strcspn(sym, " \t\n")] = '\0';
		for (int i = 0; i < n; i++)
			if (!found[i] && match(sym, names[i])) {
				found[i] = true;
				addr[i] = strtoull(line, NULL, 16);
			}
	}
	fclose(fp);
	return 0;
}

int kallsyms_find(const char *const *names, int n, bool *found, uint64_t *addr)
{
	static int done = 1;	/* 1: not read yet; else scan()'s result */
	static bool cfound[NCOMMON];
	static uint64_t caddr[NCOMMON];
	int idx[NCOMMON];

	for (int i = 0; i < n; i++) {
		idx[i] = -1;
		for (size_t j = 0; i < (int)NCOMMON && j < NCOMMON; j++)
			if (!strcmp(names[i], common[j]))
				idx[i] = (int)j;
		if (idx[i] < 0) {
			/* Another name: a read of its own. */
			uint64_t *a = addr ? addr : calloc((size_t)n, sizeof(*a));
			int ret = a ? scan(names, n, found, a) : -ENOMEM;

			if (a != addr)
				free(a);
			return ret;
		}
	}
	if (done == 1)
		done = scan(common, NCOMMON, cfound, caddr);
	if (done < 0)
		return done;
	for (int i = 0; i < n; i++) {
		found[i] = cfound[idx[i]];
		if (addr)
			addr[i] = caddr[idx[i]];
	}
	return 0;
}

int kallsyms_cpu_list(const char *text, int *cpus, int max)
{
	const char *s = text;
	int n = 0;

	while (*s && *s != '\n') {
		char *e;
		long a = strtol(s, &e, 10), b = a;

		if (e == s || a < 0)
			return -EINVAL;
		s = e;
		if (*s == '-') {
			b = strtol(s + 1, &e, 10);
			if (e == s + 1 || b < a)
				return -EINVAL;
			s = e;
		}
		for (long k = a; k <= b; k++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)k;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

int kallsyms_current(const char *arch, struct kallsyms_current *out, char *why, size_t wlen)
{
	const char *const names[] = { "current_task", "pcpu_hot", "__entry_task",
				      "__per_cpu_offset" };
	bool found[4];
	uint64_t addr[4];
	char *list;
	int v, ret;

	memset(out, 0, sizeof(*out));
	if (strcmp(arch, "x86_64") && strcmp(arch, "arm64")) {
		snprintf(why, wlen, "ftr knows where the running task is on x86_64 and arm64, not "
			 "on '%s'", arch);
		return -ENOTSUP;
	}
	ret = kallsyms_find(names, 4, found, addr);
	if (ret < 0) {
		snprintf(why, wlen, "cannot read /proc/kallsyms: %s", strerror(-ret));
		return ret;
	}
	/* x86-64 6.2 to 6.14 keep it in pcpu_hot, earlier and later kernels in
	 * current_task; arm64 in __entry_task. */
	v = !strcmp(arch, "arm64") ? 2 : found[0] ? 0 : 1;
	if (!found[v] || !found[3]) {
		snprintf(why, wlen, "/proc/kallsyms has no %s%s%s (data symbols are listed with "
			 "CONFIG_KALLSYMS_ALL only)", found[v] ? "" : v == 1 ?
			 "current_task or pcpu_hot" : names[v], !found[v] && !found[3] ? " and no " :
			 "", found[3] ? "" : "__per_cpu_offset");
		return -ENOENT;
	}
	if (!addr[3]) {
		snprintf(why, wlen, "/proc/kallsyms shows every address as 0 (kptr_restrict, or "
			 "lockdown): the per-CPU slot of the running task cannot be located");
		return -EPERM;
	}
	snprintf(out->var, sizeof(out->var), "%s", names[v]);
	if (v == 1)
		snprintf(out->member, sizeof(out->member), "current_task");
	out->addr = addr[v];
	out->offsets = addr[3];
	list = read_file("/sys/devices/system/cpu/possible", NULL);
	if (!list) {
		ret = -errno;
		snprintf(why, wlen, "cannot read /sys/devices/system/cpu/possible: %s",
			 strerror(errno));
		return ret;
	}
	ret = kallsyms_cpu_list(list, out->cpus, KALLSYMS_MAX_CPUS);
	if (ret == -E2BIG)
		snprintf(why, wlen, "more than %d possible CPUs (%.40s): the running task is read "
			 "per CPU, one fetch argument each", KALLSYMS_MAX_CPUS, list);
	else if (ret < 0)
		snprintf(why, wlen, "/sys/devices/system/cpu/possible: not a CPU list: '%.40s'",
			 list);
	free(list);
	if (ret < 0)
		return ret;
	out->ncpu = ret;
	return 0;
}
