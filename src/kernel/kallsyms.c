// SPDX-License-Identifier: GPL-2.0-or-later
/* The kernel's symbols by name: see kallsyms.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int kallsyms_lookup(struct kallsyms *k, const char *name, uint64_t *addr)
{
	size_t l = strlen(name), i = 0, at = 0;
	bool prefix = l && name[l - 1] == '*';
	int r = 1;

	l -= prefix;
	for (; i < k->n || (r = more(k)) > 0; i++) {
		const char *s = k->pool + at;

		at += strlen(s) + 1;
		if (prefix ? !strncmp(s, name, l) : !strcmp(s, name)) {
			*addr = k->addr[i];
			return *addr ? 0 : -EPERM;
		}
	}
	return r < 0 ? r : -ENOENT;
}

static struct kallsyms *running;
static int running_err;

int kallsyms_find(const char *name, uint64_t *addr)
{
	if (!running && !running_err)
		running_err = kallsyms_load(NULL, &running);
	return running ? kallsyms_lookup(running, name, addr) : running_err;
}

void kallsyms_drop(void)
{
	kallsyms_free(running);
	running = NULL;
	running_err = 0;
}
