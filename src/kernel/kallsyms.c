// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's symbols by name: see kallsyms.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "kernel/kallsyms.h"

/*
 * The names one after another ("name\0"), and their addresses, in the
 * file's order, read only as far as a question needs: the kernel formats
 * /proc/kallsyms as it is read, so a name found halfway (eprobe code, in
 * the kernel's text) costs half a read.  A run asks a handful of
 * questions: scanning beats sorting 100k+ names (in an emulated guest,
 * every byte written costs: the buffers start big enough for any
 * kallsyms, and only what is written is ever touched).
 */
struct kallsyms {
	FILE *f;		/* the rest to read, or NULL */
	char *pool;
	size_t plen, pcap;
	uint64_t *addr;
	size_t n, cap;
};

static int grow(void **p, size_t *cap, size_t need, size_t el, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *q;

	while (c < need)
		c *= 2;
	if (c == *cap)
		return 0;
	q = realloc(*p, c * el);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

void kallsyms_free(struct kallsyms *k)
{
	if (!k)
		return;
	if (k->f)
		fclose(k->f);
	free(k->pool);
	free(k->addr);
	free(k);
}

int kallsyms_load(const char *path, struct kallsyms **out)
{
	struct kallsyms *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return -ENOMEM;
	k->f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!k->f) {
		int err = -errno;

		free(k);
		return err;
	}
	*out = k;
	return 0;
}

/* One more symbol from the file: 1, 0 at its end, -ENOMEM. */
static int more(struct kallsyms *k)
{
	char line[512];

	while (k->f && fgets(line, sizeof(line), k->f)) {
		/* "ADDR T NAME\n", "ADDR t NAME\t[MOD]\n" */
		char *sp = strchr(line, ' '), *n = sp && sp[1] && sp[2] == ' ' ? sp + 3 : NULL;
		size_t l;

		if (!n)
			continue;
		l = strcspn(n, "\t\n");
		if (grow((void **)&k->pool, &k->pcap, k->plen + l + 1, 1, 16 << 20) ||
		    grow((void **)&k->addr, &k->cap, k->n + 1, sizeof(*k->addr), 1 << 19))
			return -ENOMEM;
		memcpy(k->pool + k->plen, n, l);
		k->pool[k->plen + l] = '\0';
		k->plen += l + 1;
		k->addr[k->n++] = strtoull(line, NULL, 16);
		return 1;
	}
	if (k->f)
		fclose(k->f);
	k->f = NULL;
	return 0;
}

int kallsyms_lookup_except(struct kallsyms *k, const char *name, uint64_t except,
			   uint64_t *addr)
{
	size_t l = strlen(name), i = 0, at = 0;
	bool prefix = l && name[l - 1] == '*';
	int r = 1;

	l -= prefix;
	for (; i < k->n || (r = more(k)) > 0; i++) {
		const char *s = k->pool + at;

		at += strlen(s) + 1;
		if ((prefix ? !strncmp(s, name, l) : !strcmp(s, name)) &&
		    (!except || k->addr[i] != except)) {
			*addr = k->addr[i];
			return *addr ? 0 : -EPERM;
		}
	}
	return r < 0 ? r : -ENOENT;
}

int kallsyms_lookup(struct kallsyms *k, const char *name, uint64_t *addr)
{
	return kallsyms_lookup_except(k, name, 0, addr);
}

static struct kallsyms *running;
static int running_err;

int kallsyms_find(const char *name, uint64_t *addr)
{
	return kallsyms_find_except(name, 0, addr);
}

int kallsyms_find_except(const char *name, uint64_t except, uint64_t *addr)
{
	if (!running && !running_err)
		running_err = kallsyms_load(NULL, &running);
	return running ? kallsyms_lookup_except(running, name, except, addr) : running_err;
}

void kallsyms_drop(void)
{
	kallsyms_free(running);
	running = NULL;
	running_err = 0;
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
	for (int i = 0; i < 4; i++) {
		addr[i] = 0;
		ret = kallsyms_find(names[i], &addr[i]);
		if (ret && ret != -ENOENT && ret != -EPERM) {
			snprintf(why, wlen, "cannot read /proc/kallsyms: %s", strerror(-ret));
			return ret;
		}
		/* -EPERM: listed at 0, hidden (or, for a zero-based x86-64
		 * per-CPU variable, truly 0: __per_cpu_offset tells). */
		found[i] = ret != -ENOENT;
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

int kallsyms_data(const char *name, uint64_t *addr, bool *rodata, uint64_t *end)
{
	/* The read-only sections' bounds, from the linker script's symbols
	 * (include/asm-generic/vmlinux.lds.h): .rodata, and the data made
	 * read-only once init is done (__ro_after_init: x86-64 keeps it inside
	 * .rodata, arm64 apart).  /proc/kallsyms's type letter does not tell
	 * (6.12 x86-64 lists linux_banner and sys_call_table as D). */
	static const char *const bounds[] = { "__start_rodata", "__end_rodata",
					      "__start_ro_after_init", "__end_ro_after_init" };
	uint64_t b[4] = { 0 };
	char *text = read_file("/proc/kallsyms", NULL), *line, *save = NULL;
	bool found = false, zero = false;
	char type = 0;

	if (!text)
		return -errno;
	*end = UINT64_MAX;
	/* the symbol (no module's) and the bounds */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char t, sym[256];
		unsigned long long a;

		if (sscanf(line, "%llx %c %255s", &a, &t, sym) != 3 || strchr(line, '['))
			continue;
		for (int i = 0; i < 4; i++)
			if (!b[i] && !strcmp(sym, bounds[i]))
				b[i] = a;
		if (!found && !strcmp(sym, name)) {
			found = true;
			zero = !a;
			*addr = a;
			type = t;
		}
	}
	free(text);
	if (!found)
		return -ENOENT;
	if (zero)
		return -EPERM;
	/* its extent: up to the least address above it */
	text = read_file("/proc/kallsyms", NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a = strtoull(line, NULL, 16);

		if (a > *addr && a < *end)
			*end = a;
	}
	free(text);
	*rodata = type == 'r' || type == 'R' ||
		  (b[0] && b[1] && *addr >= b[0] && *end <= b[1]) ||
		  (b[2] && b[3] && *addr >= b[2] && *end <= b[3]);
	return 0;
}
