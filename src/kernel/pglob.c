// SPDX-License-Identifier: GPL-2.0-or-later
/* Probe wildcards: see pglob.h. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ftr.h"
#include "kernel/pglob.h"
#include "report/elfsym.h"

struct kfunc {
	const char *name, *mod;	/* mod: "" for vmlinux */
	unsigned count;		/* lines with this name, any module */
	bool blacklisted;
};

/* available_filter_functions, read once per run (a few MB on 6.1). */
static struct {
	char *text;
	struct kfunc *f;
	size_t n;
	char tdir[PATH_MAX];
} kcache;

static int kfunc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kfunc *)a)->name, ((const struct kfunc *)b)->name);
}

static struct kfunc *kfunc_find(const char *name)
{
	struct kfunc key = { .name = name };

	return bsearch(&key, kcache.f, kcache.n, sizeof(key), kfunc_cmp);
}

/* The kprobe blacklist, where debugfs is mounted: "0xSTART-0xEND\tNAME [MOD]". */
static void load_blacklist(void)
{
	char *text = read_file("/sys/kernel/debug/kprobes/blacklist", NULL), *save = NULL;

	if (!text)
		return;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char name[256];
		struct kfunc *f;

		if (sscanf(l, "%*s %255s", name) != 1)
			continue;
		/* bsearch lands on one of the equal names: mark them all. */
		f = kfunc_find(name);
		for (struct kfunc *g = f; g && g >= kcache.f && !strcmp(g->name, name); g--)
			g->blacklisted = true;
		for (struct kfunc *g = f; g && g < kcache.f + kcache.n && !strcmp(g->name, name); g++)
			g->blacklisted = true;
	}
	free(text);
}

static int load_kernel(const char *tdir, char *why, size_t whylen)
{
	char path[PATH_MAX + 64], *save = NULL;
	size_t cap = 0;

	if (kcache.text && !strcmp(kcache.tdir, tdir))
		return 0;
	free(kcache.text);
	free(kcache.f);
	memset(&kcache, 0, sizeof(kcache));
	snprintf(path, sizeof(path), "%s/available_filter_functions", tdir);
	kcache.text = read_file(path, NULL);
	if (!kcache.text) {
		int ret = -errno;

		snprintf(why, whylen, "cannot read '%s': %s (a kernel without dynamic ftrace "
			 "cannot expand kprobe wildcards)", path, strerror(errno));
		return ret;
	}
	snprintf(kcache.tdir, sizeof(kcache.tdir), "%s", tdir);
	for (char *l = strtok_r(kcache.text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' '), *mod = "";

		if (sp) {
			*sp = '\0';
			mod = sp + 1;
			if (*mod == '[') {
				mod++;
				mod[strcspn(mod, "]")] = '\0';
			}
		}
		/* 6.x lists functions whose address ftrace could not resolve
		 * as __ftrace_invalid_address___N: nothing to probe. */
		if (str_has_prefix(l, "__ftrace_invalid_address__"))
			continue;
		if (kcache.n == cap) {
			struct kfunc *v = realloc(kcache.f, (cap = cap ? cap * 2 : 4096) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			kcache.f = v;
		}
		kcache.f[kcache.n++] = (struct kfunc){ .name = l, .mod = mod };
	}
	qsort(kcache.f, kcache.n, sizeof(*kcache.f), kfunc_cmp);
	for (size_t i = 0, j; i < kcache.n; i = j) {
		for (j = i + 1; j < kcache.n && !strcmp(kcache.f[i].name, kcache.f[j].name); j++)
			;
		for (size_t k = i; k < j; k++)
			kcache.f[k].count = (unsigned)(j - i);
	}
	load_blacklist();
	return 0;
}

size_t pglob_max(void)
{
	const char *v = getenv("FTR_MAX_PROBES");
	char *end;
	unsigned long n;

	if (!v || !*v)
		v = getenv("BPFTRACE_MAX_PROBES");
	if (!v || !*v)
		return PGLOB_MAX_DEFAULT;
	n = strtoul(v, &end, 10);
	return *end || !n ? PGLOB_MAX_DEFAULT : n;
}

bool pglob_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int add_name(struct pglob *g, const char *name)
{
	char **v;

	if (g->n && !strcmp(g->names[g->n - 1], name))
		return 0;	/* sorted input: a repeat */
	v = realloc(g->names, (g->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	g->names = v;
	if (!(g->names[g->n] = strdup(name)))
		return -ENOMEM;
	g->n++;
	return 0;
}

static void note_skip(struct pglob *g, const char *name, const char *why)
{
	size_t l = strlen(g->skipped_eg);

	if (g->skipped++ < 3)
		snprintf(g->skipped_eg + l, sizeof(g->skipped_eg) - l, "%s%s (%s)", l ? ", " : "",
			 name, why);
}

int pglob_kernel(const char *tdir, const char *mod, const char *glob, struct pglob *g,
		 char *why, size_t whylen)
{
	int ret;

	memset(g, 0, sizeof(*g));
	ret = load_kernel(tdir, why, whylen);
	if (ret)
		return ret;
	for (size_t i = 0; i < kcache.n; i++) {
		const struct kfunc *f = &kcache.f[i];

		if (fnmatch(glob, f->name, 0) || (mod && *mod && strcmp(mod, f->mod)))
			continue;
		if (f->blacklisted) {
			if (!i || strcmp(kcache.f[i - 1].name, f->name))
				note_skip(g, f->name, "on the kprobe blacklist");
			continue;
		}
		if (f->count > 1) {
			if (!i || strcmp(kcache.f[i - 1].name, f->name))
				note_skip(g, f->name, "several functions have this name");
			continue;
		}
		ret = add_name(g, f->name);
		if (ret) {
			pglob_free(g);
			return ret;
		}
	}
	return 0;
}

bool pglob_kernel_has(const char *tdir, const char *mod, const char *name)
{
	char why[64];
	struct kfunc *f;

	if (load_kernel(tdir, why, sizeof(why)))
		return true;	/* cannot tell: let the kernel answer */
	f = kfunc_find(name);
	if (!f)
		return false;
	while (f > kcache.f && !strcmp(f[-1].name, name))
		f--;
	for (; f < kcache.f + kcache.n && !strcmp(f->name, name); f++)
		if (!mod || !*mod || !strcmp(mod, f->mod))
			return true;
	return false;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pglob_user(const char *abspath, const char *glob, struct pglob *g, char *why,
	       size_t whylen)
{
	struct elfsym *e;
	char **v = NULL;
	size_t n = 0;
	uint64_t last = 0;
	int ret;

	memset(g, 0, sizeof(*g));
	ret = elfsym_open(abspath, &e, why, whylen);
	if (ret)
		return ret;
	/* elfsym is sorted by address: one name per address (aliases such as
	 * __libc_read/read are one function). */
	for (size_t i = 0; i < elfsym_count(e); i++) {
		const struct elfsym_sym *s = elfsym_get(e, i);
		char name[512], **nv;

		snprintf(name, sizeof(name), "%s", s->name);
		name[strcspn(name, "@")] = '\0';	/* NAME@@VERSION */
		if (s->hidden || !s->addr || fnmatch(glob, name, 0))
			continue;
		if (n && s->addr == last)
			continue;
		last = s->addr;
		nv = realloc(v, (n + 1) * sizeof(*nv));
		if (nv)
			v = nv;
		if (!nv || !(v[n] = strdup(name))) {
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (n)	/* qsort(NULL, 0, ...) is undefined */
		qsort(v, n, sizeof(*v), str_cmp);
	for (size_t i = 0; i < n; i++) {
		/* Two addresses with one name: elfsym_find cannot choose. */
		if ((i && !strcmp(v[i], v[i - 1])) || (i + 1 < n && !strcmp(v[i], v[i + 1]))) {
			if (!i || strcmp(v[i], v[i - 1]))
				note_skip(g, v[i], "several functions have this name");
			continue;
		}
		if (!ret)
			ret = add_name(g, v[i]);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	elfsym_close(e);
	if (ret)
		pglob_free(g);
	return ret;
}

void pglob_free(struct pglob *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->names[i]);
	free(g->names);
	g->names = NULL;
	g->n = 0;
}

/* A NULL-ended list's strings added to: 0 or -ENOMEM. */
static int list_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	nv[*n + 1] = NULL;
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

char **pglob_pid_files(int pid)
{
	char path[64], line[PATH_MAX + 128], **v = NULL;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		char perm[8], *file = strchr(line, '/');
		bool seen = false;

		if (sscanf(line, "%*s %7s", perm) != 1 || perm[2] != 'x' || !file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		if (str_has_suffix(file, " (deleted)"))
			continue;
		for (size_t i = 0; i < n && !seen; i++)
			seen = !strcmp(v[i], file);
		if (!seen)
			list_add(&v, &n, file);
	}
	if (f)
		fclose(f);
	return v;
}

char **pglob_paths(const char *pattern)
{
	const char *slash = strrchr(pattern, '/');
	char dir[PATH_MAX], path[PATH_MAX * 2], **v = NULL;
	struct dirent **ents;
	size_t nv = 0;
	int n;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - pattern) : 1,
		 slash ? pattern : ".");
	if (slash == pattern)
		snprintf(dir, sizeof(dir), "/");
	if (pglob_is_glob(dir))
		return NULL;	/* a glob over directories: not searched */
	n = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		struct stat st;

		snprintf(path, sizeof(path), "%.*s%s", slash ? (int)(slash - pattern + 1) : 0,
			 pattern, ents[i]->d_name);
		if (!fnmatch(slash ? slash + 1 : pattern, ents[i]->d_name, FNM_PERIOD) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode))
			list_add(&v, &nv, path);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return v;
}

void pglob_list_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}
