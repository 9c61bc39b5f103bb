// SPDX-License-Identifier: GPL-2.0-or-later
/* Symbols for sampled addresses: kernel, user files, JIT maps.  See sym.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "report/dwline.h"
#include "report/elfsym.h"
#include "ftr.h"
#include "report/sym.h"

#ifndef FTR_NO_LZMA
#include <lzma.h>
#endif
#ifndef FTR_NO_DEBUGINFOD
#include <dlfcn.h>
#endif
#include <zlib.h>

/* ---- kernel symbols ------------------------------------------------------------ */

/* 16 bytes a symbol, names in one pool: a kernel has 100 000 and more. */
struct ksym {
	uint64_t addr;
	uint32_t name;		/* offset in the pool */
	uint16_t module;	/* index in modules, 0: the kernel proper */
	uint8_t rank;		/* among aliases: T before t before W/w */
};

struct ksyms {
	struct ksym *v;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
	char **modules;
	size_t nmod;
	size_t lines, nonzero;
	bool hidden;
	uint32_t *by_name;	/* ksyms_addr: indexes of v, sorted by name */
	const char *(*resolve)(uint64_t addr, uint64_t *start, void *arg);
	void *resolve_arg;	/* instead of v (ksyms_set_resolver) */
};

/* A symbol further than this from its start is not in it: the last text
 * symbol before the module area would otherwise claim gigabytes. */
#define KSYM_MAX_SPAN (1u << 20)

static const struct ksyms *sort_ctx;

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	return strcmp(sort_ctx->pool + a->name, sort_ctx->pool + b->name);
}

static int pool_add(struct ksyms *k, const char *s, size_t len, uint32_t *off)
{
	if (k->pool_len + len + 1 > k->pool_cap) {
		size_t cap = k->pool_cap ? k->pool_cap * 2 : 1 << 16;
		char *p;

		while (cap < k->pool_len + len + 1)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -ENOMEM;
		p = realloc(k->pool, cap);
		if (!p)
			return -ENOMEM;
		k->pool = p;
		k->pool_cap = cap;
	}
	memcpy(k->pool + k->pool_len, s, len);
	k->pool[k->pool_len + len] = '\0';
	*off = (uint32_t)k->pool_len;
	k->pool_len += len + 1;
	return 0;
}

static int module_index(struct ksyms *k, const char *m, size_t len, uint16_t *idx)
{
	char **v;

	/* Modules come in runs: the last one is the likely one. */
	for (size_t i = k->nmod; i > 0; i--)
		if (!strncmp(k->modules[i - 1], m, len) && !k->modules[i - 1][len]) {
			*idx = (uint16_t)i;
			return 0;
		}
	if (k->nmod >= UINT16_MAX)
		return -ENOMEM;
	v = realloc(k->modules, (k->nmod + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	k->modules = v;
	if (!(v[k->nmod] = strndup(m, len)))
		return -ENOMEM;
	*idx = (uint16_t)++k->nmod;
	return 0;
}

/* One line: "ffffffff81000000 T _stext" or "... t name\t[module]". */
static int ksyms_line(struct ksyms *k, const char *p)
{
	unsigned long long addr;
	const char *name, *end, *mod;
	struct ksym e = { 0 };
	char *num_end;
	char type;

	addr = strtoull(p, &num_end, 16);
	if (num_end == p || *num_end != ' ' || !num_end[1] || num_end[2] != ' ')
		return 0;
	k->lines++;
	if (addr)
		k->nonzero++;
	type = num_end[1];
	name = num_end + 3;
	if (type != 't' && type != 'T' && type != 'w' && type != 'W')
		return 0;
	end = name + strcspn(name, "\t \n");
	if (!addr || end == name)
		return 0;
	mod = end + strspn(end, "\t ");
	if (*mod == '[') {
		size_t ml = strcspn(mod + 1, "]\n");

		if (module_index(k, mod + 1, ml, &e.module) < 0)
			return -ENOMEM;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		struct ksym *v = realloc(k->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	e.addr = addr;
	e.rank = type == 'T' ? 0 : type == 't' ? 1 : 2;
	if (pool_add(k, name, end - name, &e.name) < 0)
		return -ENOMEM;
	k->v[k->n++] = e;
	return 0;
}

static int ksyms_finish(struct ksyms *k, struct ksyms **out)
{
	if (!k->lines) {
		ksyms_free(k);
		return -EINVAL;
	}
	/* kptr_restrict: every address reads as zero. */
	k->hidden = k->nonzero == 0;
	if (k->n) {
		sort_ctx = k;
		qsort(k->v, k->n, sizeof(*k->v), ksym_cmp);
		sort_ctx = NULL;
	}
	*out = k;
	return 0;
}

int ksyms_parse(const char *text, struct ksyms **out)
{
	struct ksyms *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return -ENOMEM;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');

		if (ksyms_line(k, p) < 0) {
			ksyms_free(k);
			return -ENOMEM;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return ksyms_finish(k, out);
}

/* Process-wide: the interpreter and the profiler's symbol context both
 * load "the kernel's" symbols, and over a recording they are its. */
static const char *ksyms_source;

void ksyms_set_source(const char *text)
{
	ksyms_source = text;
}

static const char *(*ksyms_resolve)(uint64_t addr, uint64_t *start, void *arg);
static void *ksyms_resolve_arg;

void ksyms_set_resolver(const char *(*fn)(uint64_t addr, uint64_t *start, void *arg), void *arg)
{
	ksyms_resolve = fn;
	ksyms_resolve_arg = arg;
}

int ksyms_load(const char *path, struct ksyms **out)
{
	struct ksyms *k;
	char line[1024];
	FILE *f;

	*out = NULL;
	if (!path && ksyms_resolve) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return -ENOMEM;
		k->resolve = ksyms_resolve;
		k->resolve_arg = ksyms_resolve_arg;
		*out = k;
		return 0;
	}
	if (!path && ksyms_source)
		return ksyms_parse(ksyms_source, out);
	/* A line at a time: the text is megabytes, the table a third of it. */
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f)
		return -errno;
	k = calloc(1, sizeof(*k));
	if (!k) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		if (ksyms_line(k, line) < 0) {
			fclose(f);
			ksyms_free(k);
			return -ENOMEM;
		}
	}
	fclose(f);
	return ksyms_finish(k, out);
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->nmod; i++)
		free(k->modules[i]);
	free(k->modules);
	free(k->v);
	free(k->pool);
	free(k->by_name);
	free(k);
}

static int by_name_cmp(const void *a, const void *b, void *arg)
{
	const struct ksyms *k = arg;
	const struct ksym *x = &k->v[*(const uint32_t *)a], *y = &k->v[*(const uint32_t *)b];
	int c = strcmp(k->pool + x->name, k->pool + y->name);

	/* Same name (static functions of several files): the kernel's own
	 * before a module's, then by address, so that the choice is stable. */
	if (!c)
		c = (x->module > y->module) - (x->module < y->module);
	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

int ksyms_addr(struct ksyms *k, const char *name, const char *module, uint64_t *addr)
{
	size_t lo = 0, hi = k->n;

	if (!k->by_name) {
		k->by_name = malloc(k->n * sizeof(*k->by_name) + 1);
		if (!k->by_name)
			return -ENOMEM;
		for (size_t i = 0; i < k->n; i++)
			k->by_name[i] = (uint32_t)i;
		qsort_r(k->by_name, k->n, sizeof(*k->by_name), by_name_cmp, k);
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(k->pool + k->v[k->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < k->n && !strcmp(k->pool + k->v[k->by_name[lo]].name, name); lo++) {
		const struct ksym *s = &k->v[k->by_name[lo]];
		const char *m = s->module ? k->modules[s->module - 1] : NULL;

		if ((!module && !m) || (module && m && !strcmp(module, m))) {
			*addr = s->addr;
			return 0;
		}
	}
	return -ENOENT;
}

bool ksyms_hidden(const struct ksyms *k)
{
	return k->hidden;
}

size_t ksyms_count(const struct ksyms *k)
{
	return k->n;
}

const char *ksyms_at(const struct ksyms *k, uint64_t addr, uint64_t *off, const char **module)
{
	long i;

	if (k->resolve) {
		uint64_t start;
		const char *name = k->resolve(addr, &start, k->resolve_arg);

		if (!name || addr - start >= KSYM_MAX_SPAN)
			return NULL;
		if (off)
			*off = addr - start;
		if (module)
			*module = NULL;
		return name;
	}
	i = addr_floor(k->v, k->n, sizeof(*k->v), offsetof(struct ksym, addr), addr, NULL);
	if (i < 0)
		return NULL;
	if (addr - k->v[i].addr >= KSYM_MAX_SPAN)
		return NULL;
	if (off)
		*off = addr - k->v[i].addr;
	if (module)
		*module = k->v[i].module ? k->modules[k->v[i].module - 1] : NULL;
	return k->pool + k->v[i].name;
}

int ksyms_format(const struct ksyms *k, uint64_t addr, bool with_off, char *buf, size_t len)
{
	const char *mod = NULL, *name;
	uint64_t off = 0;
	char o[24] = "";

	name = k ? ksyms_at(k, addr, &off, &mod) : NULL;
	if (!name)
		return snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	if (with_off)
		snprintf(o, sizeof(o), "+0x%llx", (unsigned long long)off);
	return snprintf(buf, len, "%s%s%s%s%s", name, o, mod ? " [" : "", mod ? mod : "",
			mod ? "]" : "");
}

/* ---- /proc/PID/maps and JIT maps ------------------------------------------------- */

int maps_parse_line(char *line, struct map_line *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned maj, min;
	char perms[8];
	int n = 0;
	char *path;
	size_t len;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &pgoff, &maj,
		   &min, &ino, &n) != 7 || n == 0 || end <= start || strlen(perms) < 3)
		return -EINVAL;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->maj = maj;
	m->min = min;
	m->ino = ino;
	m->prot = (perms[0] == 'r' ? MAP_R : 0) | (perms[1] == 'w' ? MAP_W : 0) |
		  (perms[2] == 'x' ? MAP_X : 0);
	path = line + n;
	path += strspn(path, " \t");
	path[strcspn(path, "\n")] = '\0';
	len = strlen(path);
	if (len > 10 && !strcmp(path + len - 10, " (deleted)")) {
		path[len - 10] = '\0';
		m->deleted = true;
	}
	m->path = path;
	return 0;
}

struct pm_ent {
	uint64_t start, size;
	size_t order;
	const char *name;
};

struct perfmap {
	struct pm_ent *v;
	size_t n;
	char *buf;
};

static int pm_cmp(const void *pa, const void *pb)
{
	const struct pm_ent *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

int perfmap_parse(const char *text, struct perfmap **out)
{
	struct perfmap *pm;
	size_t cap = 0;
	char *p;

	*out = NULL;
	pm = calloc(1, sizeof(*pm));
	if (!pm || !(pm->buf = strdup(text))) {
		free(pm);
		return -ENOMEM;
	}
	for (p = pm->buf; *p;) {
		char *nl = strchr(p, '\n'), *e1, *e2;
		unsigned long long start, size;

		if (nl)
			*nl = '\0';
		start = strtoull(p, &e1, 16);
		if (e1 != p && *e1 == ' ') {
			size = strtoull(e1 + 1, &e2, 16);
			if (e2 != e1 + 1 && *e2 == ' ' && e2[1] && size) {
				if (pm->n == cap) {
					struct pm_ent *v;

					cap = cap ? cap * 2 : 256;
					v = realloc(pm->v, cap * sizeof(*v));
					if (!v) {
						perfmap_free(pm);
						return -ENOMEM;
					}
					pm->v = v;
				}
				pm->v[pm->n] = (struct pm_ent){ start, size, pm->n, e2 + 1 };
				pm->n++;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (pm->n)
		qsort(pm->v, pm->n, sizeof(*pm->v), pm_cmp);
	*out = pm;
	return 0;
}

void perfmap_free(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->v);
	free(pm->buf);
	free(pm);
}

size_t perfmap_count(const struct perfmap *pm)
{
	return pm->n;
}

const char *perfmap_at(const struct perfmap *pm, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = pm->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Code is recompiled at addresses used before: the newest entry (the
	 * last written, sorted last among equal starts) that holds addr. */
	for (size_t i = lo, k = 0; i > 0 && k < 64; i--, k++) {
		const struct pm_ent *e = &pm->v[i - 1];

		if (addr - e->start < e->size) {
			if (off)
				*off = addr - e->start;
			return e->name;
		}
	}
	return NULL;
}

/* ---- files and processes ----------------------------------------------------------- */

struct sym_map {
	uint64_t start, end, pgoff;
	struct sym_dso *dso;	/* NULL: anonymous */
};

struct sym_proc {
	int pid;
	bool need_maps;		/* unknown start: read /proc/PID/maps */
	bool jit_tried;
	char comm[16];
	struct sym_map *maps;	/* sorted by start, not overlapping */
	size_t n;
	struct perfmap *jit;
	struct sym_proc *all_next;
	bool kept;		/* sym_proc_keep: lives until sym_ctx_free */
	uint64_t released;	/* sym_proc_release's generation + 1, or 0 */
};

/* A dso's first mapping, to reach the file through /proc while it runs. */
struct dso_priv {
	struct sym_dso pub;
	int pid;
	uint64_t start, end;
};

struct sym_ctx {
	struct sym_proc *all;			/* every address space, ever */
	struct { int pid; struct sym_proc *p; } *tab;	/* pid -> current */
	size_t tab_cap, tab_n;
	struct dso_priv **dsos;
	size_t ndso, dso_cap, pin_from;
	struct ksyms *ks;
	bool ks_tried;
	char ks_why[160];
	struct elfsym *vdso;
	bool vdso_tried;
	int vdso_fd;		/* its memfd, kept for the unwinder (-1: none) */
	bool debuginfod;	/* --debuginfod: ask the servers of DEBUGINFOD_URLS */
	void *dc;		/* its debuginfod_client */
	/* libdebuginfod, opened only for --debuginfod: linked in, it would
	 * load libcurl and its TLS stack into every run. */
	void *(*dfd_begin)(void);
	int (*dfd_find)(void *, const unsigned char *, int, char **);
	void (*dfd_end)(void *);
	char vdso_path[64];
	struct sym_proc **pending;		/* need /proc/PID/maps */
	size_t npending, pending_cap;
	uint64_t gen;				/* sym_reap calls */
	size_t nprocs;				/* on the all list */
};

static void pending_push(struct sym_ctx *c, struct sym_proc *p)
{
	if (c->npending == c->pending_cap) {
		size_t cap = c->pending_cap ? c->pending_cap * 2 : 64;
		struct sym_proc **v = realloc(c->pending, cap * sizeof(*v));

		if (!v)
			return;	/* read at the end, or never: its frames stay unknown */
		c->pending = v;
		c->pending_cap = cap;
	}
	c->pending[c->npending++] = p;
}

void sym_read_pending(struct sym_ctx *c)
{
	for (size_t i = 0; i < c->npending; i++)
		sym_proc_read_maps(c, c->pending[i]);
	c->npending = 0;
}

struct sym_ctx *sym_ctx_new(void)
{
	return calloc(1, sizeof(struct sym_ctx));
}

void sym_ctx_free(struct sym_ctx *c)
{
	if (!c)
		return;
	for (struct sym_proc *p = c->all, *n; p; p = n) {
		n = p->all_next;
		free(p->maps);
		perfmap_free(p->jit);
		free(p);
	}
	for (size_t i = 0; i < c->ndso; i++) {
		struct sym_dso *d = &c->dsos[i]->pub;

		free(d->path);
		free(d->file);
		elfsym_close(d->elf);
		elfsym_close(d->dbg);
		dwline_close(d->dw);
		free(c->dsos[i]);
	}
	free(c->dsos);
	free(c->pending);
	free(c->tab);
	ksyms_free(c->ks);
	elfsym_close(c->vdso);
	if (c->vdso_fd > 0)
		close(c->vdso_fd);
#ifndef FTR_NO_DEBUGINFOD
	if (c->dc)
		c->dfd_end(c->dc);
#endif
	free(c);
}

const struct ksyms *sym_kernel(struct sym_ctx *c, const char **why)
{
	if (!c->ks_tried) {
		char *kr = read_file("/proc/sys/kernel/kptr_restrict", NULL);
		int err;

		c->ks_tried = true;
		err = ksyms_load(NULL, &c->ks);
		if (err < 0) {
			snprintf(c->ks_why, sizeof(c->ks_why), "cannot read /proc/kallsyms: %s",
				 strerror(-err));
		} else if (ksyms_hidden(c->ks)) {
			snprintf(c->ks_why, sizeof(c->ks_why), "/proc/kallsyms shows every address "
				 "as zero to this user (kernel.kptr_restrict=%s): %s",
				 kr ? str_trim(kr) : "?", kptr_remedy(kr ? atoi(kr) : -1));
			ksyms_free(c->ks);
			c->ks = NULL;
		}
		free(kr);
	}
	if (!c->ks && why)
		*why = c->ks_why;
	return c->ks;
}

static size_t tab_slot(const struct sym_ctx *c, int pid)
{
	size_t h = (size_t)(uint32_t)pid * 2654435761u;

	return h & (c->tab_cap - 1);
}

static struct sym_proc *tab_get(const struct sym_ctx *c, int pid)
{
	if (!c->tab_cap)
		return NULL;
	for (size_t i = tab_slot(c, pid);; i = (i + 1) & (c->tab_cap - 1)) {
		if (!c->tab[i].p)
			return NULL;
		if (c->tab[i].pid == pid)
			return c->tab[i].p;
	}
}

static int tab_put(struct sym_ctx *c, int pid, struct sym_proc *p)
{
	size_t i;

	if ((c->tab_n + 1) * 2 > c->tab_cap) {
		size_t ocap = c->tab_cap, ncap = ocap ? ocap * 2 : 256;
		__typeof__(c->tab) old = c->tab;

		c->tab = calloc(ncap, sizeof(*c->tab));
		if (!c->tab) {
			c->tab = old;
			return -ENOMEM;
		}
		c->tab_cap = ncap;
		c->tab_n = 0;
		for (size_t j = 0; j < ocap; j++)
			if (old[j].p)
				tab_put(c, old[j].pid, old[j].p);
		free(old);
	}
	for (i = tab_slot(c, pid); c->tab[i].p; i = (i + 1) & (c->tab_cap - 1)) {
		if (c->tab[i].pid == pid) {
			c->tab[i].p = p;
			return 0;
		}
	}
	c->tab[i].pid = pid;
	c->tab[i].p = p;
	c->tab_n++;
	return 0;
}

/* Linear probing: a removed entry's followers move back into the hole
 * unless their home slot lies cyclically after it. */
static void tab_del(struct sym_ctx *c, int pid, const struct sym_proc *p)
{
	size_t mask = c->tab_cap - 1, i, j, k;

	if (!c->tab_cap)
		return;
	for (i = tab_slot(c, pid); c->tab[i].p; i = (i + 1) & mask)
		if (c->tab[i].pid == pid)
			break;
	if (c->tab[i].p != p || !p)
		return;
	for (j = i;;) {
		c->tab[i].p = NULL;
		do {
			j = (j + 1) & mask;
			if (!c->tab[j].p) {
				c->tab_n--;
				return;
			}
			k = tab_slot(c, c->tab[j].pid);
		} while (i <= j ? i < k && k <= j : i < k || k <= j);
		c->tab[i] = c->tab[j];
		i = j;
	}
}

static struct sym_proc *proc_new(struct sym_ctx *c, int pid)
{
	struct sym_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	if (tab_put(c, pid, p) < 0) {
		free(p);
		return NULL;
	}
	p->all_next = c->all;
	c->all = p;
	c->nprocs++;
	return p;
}

struct sym_proc *sym_proc_find(struct sym_ctx *c, int pid, bool create)
{
	struct sym_proc *p = tab_get(c, pid);

	if (p || !create)
		return p;
	p = proc_new(c, pid);
	if (p && pid > 0) {
		p->need_maps = true;
		pending_push(c, p);
	}
	return p;
}

struct sym_proc *sym_proc_exec(struct sym_ctx *c, int pid)
{
	struct sym_proc *old = tab_get(c, pid), *p = proc_new(c, pid);

	if (p && old)
		memcpy(p->comm, old->comm, sizeof(p->comm));
	return p;
}

struct sym_proc *sym_proc_fork(struct sym_ctx *c, int pid, int ppid)
{
	struct sym_proc *parent = tab_get(c, ppid), *p = proc_new(c, pid);

	if (!p)
		return NULL;
	if (parent) {
		memcpy(p->comm, parent->comm, sizeof(p->comm));
		p->need_maps = parent->need_maps;
		if (parent->n) {
			p->maps = malloc(parent->n * sizeof(*p->maps));
			if (p->maps) {
				memcpy(p->maps, parent->maps, parent->n * sizeof(*p->maps));
				p->n = parent->n;
			}
		}
	} else {
		p->need_maps = true;
	}
	if (p->need_maps)
		pending_push(c, p);
	return p;
}

bool sym_proc_needs_maps(const struct sym_proc *p)
{
	return p->need_maps;
}

int sym_proc_pid(const struct sym_proc *p)
{
	return p->pid;
}

void sym_proc_keep(struct sym_proc *p)
{
	if (p)
		p->kept = true;
}

void sym_proc_release(struct sym_ctx *c, struct sym_proc *p)
{
	if (p && !p->released)
		p->released = c->gen + 1;
}

static bool reapable(const struct sym_ctx *c, const struct sym_proc *p)
{
	return !p->kept && p->released && p->released < c->gen;
}

void sym_reap(struct sym_ctx *c, void (*forget)(void *arg, struct sym_proc *p), void *arg)
{
	struct sym_proc **pp = &c->all;
	size_t n = 0;

	c->gen++;
	/* Released before the previous call: a whole drain of every ring
	 * has passed since, so no sample of it is still on its way. */
	for (size_t i = 0; i < c->npending; i++)
		if (!reapable(c, c->pending[i]))
			c->pending[n++] = c->pending[i];
	c->npending = n;
	while (*pp) {
		struct sym_proc *p = *pp;

		if (!reapable(c, p)) {
			pp = &p->all_next;
			continue;
		}
		*pp = p->all_next;
		tab_del(c, p->pid, p);
		if (forget)
			forget(arg, p);
		free(p->maps);
		perfmap_free(p->jit);
		free(p);
		c->nprocs--;
	}
}

size_t sym_nprocs(const struct sym_ctx *c)
{
	return c->nprocs;
}

void sym_proc_set_comm(struct sym_proc *p, const char *comm)
{
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
}

const char *sym_proc_comm(const struct sym_proc *p)
{
	return p->comm;
}

static bool is_special(const char *path)
{
	return path[0] == '[';
}

static struct sym_dso *dso_get(struct sym_ctx *c, const struct map_line *m, int pid)
{
	struct dso_priv *d;

	for (size_t i = 0; i < c->ndso; i++) {
		struct sym_dso *o = &c->dsos[i]->pub;

		if (o->ino == m->ino && o->maj == m->maj && o->min == m->min &&
		    !strcmp(o->path, m->path))
			return o;
	}
	if (c->ndso == c->dso_cap) {
		size_t cap = c->dso_cap ? c->dso_cap * 2 : 64;
		struct dso_priv **v = realloc(c->dsos, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->dsos = v;
		c->dso_cap = cap;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->pub.path = strdup(m->path))) {
		free(d);
		return NULL;
	}
	d->pub.maj = m->maj;
	d->pub.min = m->min;
	d->pub.ino = m->ino;
	d->pub.deleted = m->deleted;
	d->pub.special = is_special(m->path);
	d->pid = pid;
	d->start = m->start;
	d->end = m->end;
	c->dsos[c->ndso++] = d;
	return &d->pub;
}

int sym_proc_map(struct sym_ctx *c, struct sym_proc *p, const struct map_line *m)
{
	struct sym_dso *dso = NULL;
	struct sym_map *v;
	size_t w = 0, lo;

	if (m->end <= m->start)
		return -EINVAL;
	/* "//anon" (perf's name for anonymous memory), "" in maps: JIT code. */
	if (m->path[0] && strcmp(m->path, "//anon") && !str_has_prefix(m->path, "[anon")) {
		dso = dso_get(c, m, p->pid);
		if (!dso)
			return -ENOMEM;
	}
	v = malloc((p->n + 2) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* A new mapping replaces what it overlaps (mmap semantics); the kernel
	 * reports no munmap. */
	for (size_t i = 0; i < p->n; i++) {
		struct sym_map o = p->maps[i];

		if (o.end <= m->start || o.start >= m->end) {
			v[w++] = o;
			continue;
		}
		if (o.start < m->start)
			v[w++] = (struct sym_map){ o.start, m->start, o.pgoff, o.dso };
		if (o.end > m->end)
			v[w++] = (struct sym_map){ m->end, o.end, o.pgoff + (m->end - o.start), o.dso };
	}
	for (lo = 0; lo < w && v[lo].start < m->start; lo++)
		;
	memmove(&v[lo + 1], &v[lo], (w - lo) * sizeof(*v));
	v[lo] = (struct sym_map){ m->start, m->end, m->pgoff, dso };
	free(p->maps);
	p->maps = v;
	p->n = w + 1;
	return 0;
}

int sym_proc_read_maps(struct sym_ctx *c, struct sym_proc *p)
{
	char path[64], *text, *line, *nl;
	int err = 0;

	if (!p->need_maps)
		return 0;
	p->need_maps = false;
	snprintf(path, sizeof(path), "/proc/%d/maps", p->pid);
	text = read_file(path, NULL);
	if (!text)
		return -errno;
	if (!p->comm[0]) {
		char *comm;

		snprintf(path, sizeof(path), "/proc/%d/comm", p->pid);
		comm = read_file(path, NULL);
		if (comm)
			sym_proc_set_comm(p, str_trim(comm));
		free(comm);
	}
	for (line = text; *line && !err; line = nl + 1) {
		struct map_line m;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (maps_parse_line(line, &m) == 0 && (m.prot & MAP_X))
			err = sym_proc_map(c, p, &m);
		if (!nl)
			break;
	}
	free(text);
	return err;
}

static const struct sym_map *proc_map_at(const struct sym_proc *p, uint64_t ip)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || ip >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

static void dso_load(struct sym_ctx *c, struct dso_priv *dp);

int sym_proc_map_file(struct sym_ctx *c, struct sym_proc *p, const char *path, uint64_t off,
		      uint64_t ip)
{
	struct map_line m = { .path = path, .prot = MAP_R | MAP_X };
	uint64_t so, sl;
	struct sym_dso *d;
	struct stat st;

	if (proc_map_at(p, ip))
		return 0;
	if (stat(path, &st) < 0)
		return -errno;
	m.ino = st.st_ino;
	m.maj = major(st.st_dev);
	m.min = minor(st.st_dev);
	/* No process to read it through: the path, checked by its inode. */
	d = dso_get(c, &m, 0);
	if (!d)
		return -ENOMEM;
	dso_load(c, (struct dso_priv *)d);
	if (!d->elf)
		return -ENOENT;
	/* The loader maps each segment whole, at one bias: the segment's
	 * file range lies around ip as it lies around off. */
	if (elfsym_exec_segment(d->elf, off, &so, &sl) < 0 || ip < off - so)
		return -ERANGE;
	m.start = ip - (off - so);
	m.end = m.start + sl;
	m.pgoff = so;
	return sym_proc_map(c, p, &m);
}

/* ---- reading a file's symbols --------------------------------------------------- */

static bool same_inode(const char *path, const struct sym_dso *d)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (!d->ino)
		return true;	/* nothing to compare with */
	return st.st_ino == d->ino && major(st.st_dev) == d->maj && minor(st.st_dev) == d->min;
}

static int build_id(const char *path, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	int fd, ret = -ENOENT;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && ret && (scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (const unsigned char *)data->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)data->d_buf + noff, "GNU", 4) || !nh.n_descsz ||
			    nh.n_descsz * 2 + 1 > len)
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", id[i]);
			ret = 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* path as d's debug file, if it has the symbols. */
static bool try_debug(struct sym_dso *d, const char *path)
{
	if (elfsym_open(path, &d->dbg, NULL, 0) < 0)
		return false;
	if (!elfsym_has_symtab(d->dbg)) {
		elfsym_close(d->dbg);
		d->dbg = NULL;
		return false;
	}
	d->has_debug = true;
	return true;
}

static int crc_file(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, Z_NULL, 0);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, (uInt)n);
	close(fd);
	*crc = (uint32_t)c;
	return n < 0 ? -EIO : 0;
}

/* .gnu_debuglink: a file name and the CRC-32 of that file, looked for
 * where gdb looks: beside the file, in .debug/ beside it, and under
 * /usr/lib/debug/ + the file's directory. */
static bool load_debuglink(struct sym_dso *d, const char *from)
{
	static const char *const pre[] = { "", "", "/usr/lib/debug" }, *const mid[] = {
		"/", "/.debug/", "/" };
	char path[PATH_MAX * 2];
	const char *slash = strrchr(d->path, '/');
	size_t len, nlen, off;
	uint32_t want, crc;
	bool found = false;
	void *data;

	if (!slash || elfsym_section(from, ".gnu_debuglink", &data, &len) < 0)
		return false;
	nlen = strnlen(data, len);
	off = (nlen + 4) & ~(size_t)3;
	if (nlen && off + 4 <= len && !strchr(data, '/')) {
		memcpy(&want, (char *)data + off, 4);
		for (size_t i = 0; i < ARRAY_SIZE(pre) && !found; i++) {
			snprintf(path, sizeof(path), "%s%.*s%s%s", pre[i], (int)(slash - d->path),
				 d->path, mid[i], (char *)data);
			crc = ~want;
			found = crc_file(path, &crc) == 0 && crc == want && try_debug(d, path);
		}
	}
	free(data);
	return found;
}

#ifdef FTR_NO_LZMA
static bool load_minidebug(struct sym_dso *d, const char *from)
{
	return false;
}
#else
/* MiniDebugInfo (Fedora, RHEL): .gnu_debugdata is an xz-compressed ELF with
 * the function symbols that stripping took out.  Read through a memfd, as
 * libelf wants a file. */
static bool load_minidebug(struct sym_dso *d, const char *from)
{
	lzma_stream z = LZMA_STREAM_INIT;
	unsigned char *out = NULL;
	size_t xlen, cap = 0;
	bool found = false;
	lzma_ret r = LZMA_OK;
	void *xz;
	int fd;

	if (elfsym_section(from, ".gnu_debugdata", &xz, &xlen) < 0)
		return false;
	if (lzma_stream_decoder(&z, 256u << 20, 0) != LZMA_OK)
		goto out;
	z.next_in = xz;
	z.avail_in = xlen;
	while (r == LZMA_OK) {
		if (!z.avail_out) {
			size_t ncap = cap ? cap * 2 : xlen * 4 + 4096;
			unsigned char *n = realloc(out, ncap);

			if (!n)
				goto out;
			out = n;
			z.next_out = out + cap;
			z.avail_out = ncap - cap;
			cap = ncap;
		}
		r = lzma_code(&z, LZMA_FINISH);
	}
	if (r != LZMA_STREAM_END || (fd = memfd_create("ftr-minidebug", MFD_CLOEXEC)) < 0)
		goto out;
	if (write(fd, out, cap - z.avail_out) == (ssize_t)(cap - z.avail_out)) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		found = try_debug(d, path);
	}
	close(fd);
out:
	lzma_end(&z);
	free(out);
	free(xz);
	return found;
}
#endif

int sym_ctx_debuginfod(struct sym_ctx *c)
{
#ifdef FTR_NO_DEBUGINFOD
	return -ENOTSUP;
#else
	void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -ENOENT;
	/* The prototypes are those of debuginfod.h. */
	*(void **)&c->dfd_begin = dlsym(h, "debuginfod_begin");
	*(void **)&c->dfd_find = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&c->dfd_end = dlsym(h, "debuginfod_end");
	if (!c->dfd_begin || !c->dfd_find || !c->dfd_end)
		return -ENOENT;
	c->debuginfod = true;
	return 0;
#endif
}

/* --debuginfod only: the debug file by build id from the servers in
 * DEBUGINFOD_URLS, through libdebuginfod (which keeps them in its cache,
 * $XDG_CACHE_HOME/debuginfod_client, for the next run). */
static bool load_debuginfod(struct sym_ctx *c, struct sym_dso *d, const char *hex)
{
#ifdef FTR_NO_DEBUGINFOD
	return false;
#else
	char *path = NULL;
	bool found;
	int fd;

	if (!c->debuginfod)
		return false;
	if (!c->dc && !(c->dc = c->dfd_begin()))
		return false;
	fd = c->dfd_find(c->dc, (const unsigned char *)hex, 0, &path);
	if (fd < 0)
		return false;
	close(fd);
	found = try_debug(d, path);
	free(path);
	return found;
#endif
}

/* A stripped file's symbols: Debian's -dbgsym packages (and Fedora's
 * -debuginfo) install them under /usr/lib/debug/.build-id/XX/REST.debug;
 * else .gnu_debuglink, MiniDebugInfo, and with --debuginfod the network. */
static void load_debug(struct sym_ctx *c, struct sym_dso *d, const char *from)
{
	char hex[130], path[PATH_MAX];
	bool bid = build_id(from, hex, sizeof(hex)) == 0 && strlen(hex) >= 4;

	if (bid) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			 hex + 2);
		if (try_debug(d, path))
			return;
	}
	if (load_debuglink(d, from) || load_minidebug(d, from))
		return;
	if (bid)
		load_debuginfod(c, d, hex);
}

/* The vDSO is the same image in every process of this kernel (and ABI):
 * ours, copied into a memfd for libelf. */
static struct elfsym *load_vdso(struct sym_ctx *c)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct elfsym *e = NULL;
	char path[64];
	size_t size;
	int fd;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return NULL;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (size < sizeof(*eh) || size > (1u << 20))
		return NULL;
	fd = memfd_create("ftr-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, eh, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		elfsym_open(path, &e, NULL, 0);
	}
	/* Kept open: the unwinder reads the vDSO's CFI from it. */
	if (e) {
		c->vdso_fd = fd;
		snprintf(c->vdso_path, sizeof(c->vdso_path), "%s", path);
	} else {
		close(fd);
	}
	return e;
}

static void dso_load(struct sym_ctx *c, struct dso_priv *dp)
{
	struct sym_dso *d = &dp->pub;
	char path[PATH_MAX + 64];
	const char *from = NULL;
	bool alive;

	if (d->loaded)
		return;
	d->loaded = true;
	if (d->special) {
		if (!strcmp(d->path, "[vdso]")) {
			if (!c->vdso_tried) {
				c->vdso_tried = true;
				c->vdso = load_vdso(c);
			}
			/* Shared: the ctx owns it; d->elf stays NULL. */
			if (c->vdso)
				d->file = strdup(c->vdso_path);
		}
		if (!c->vdso || strcmp(d->path, "[vdso]"))
			snprintf(d->why, sizeof(d->why), "no symbols for %s", d->path);
		return;
	}
	alive = dp->pid > 0 && pid_alive(dp->pid);
	/* While it runs, the process shows the very file it mapped (deleted,
	 * replaced, or in another mount namespace) in map_files (root only). */
	if (alive) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", dp->pid,
			 (unsigned long long)dp->start, (unsigned long long)dp->end);
		if (access(path, R_OK) == 0)
			from = path;
	}
	if (!from && alive) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", dp->pid, d->path);
		if (same_inode(path, d))
			from = path;
	}
	if (!from && !d->deleted && same_inode(d->path, d))
		from = d->path;
	if (!from && !d->deleted && access(d->path, R_OK) == 0) {
		/* Replaced since it was mapped (a package upgrade): its symbols
		 * are likely the same, and the report says it may not be. */
		from = d->path;
		d->replaced = true;
	}
	if (!from) {
		snprintf(d->why, sizeof(d->why), "%s", d->deleted ? "deleted, and the process is gone" :
			 "cannot be read");
		return;
	}
	if (elfsym_open(from, &d->elf, d->why, sizeof(d->why)) < 0)
		return;
	d->file = strdup(from);
	/* The build id now, from the file just opened: `from` may be the
	 * process's map_files or root, gone once the process exits, and a
	 * ustack(build_id) printed after that (a short-lived process, a
	 * loaded machine: the read runs behind the events) would find no
	 * file and print a bare address (issue 38). */
	if (build_id(from, d->build_id, sizeof(d->build_id)) < 0)
		d->build_id[0] = '\0';
	d->build_id_tried = true;
	if (!elfsym_has_symtab(d->elf))
		load_debug(c, d, from);
	d->stripped = !elfsym_has_symtab(d->elf) && !d->dbg;
}

void sym_pin_new(struct sym_ctx *c)
{
	for (; c->pin_from < c->ndso; c->pin_from++) {
		struct dso_priv *dp = c->dsos[c->pin_from];
		struct sym_dso *d = &dp->pub;

		if (d->loaded || d->special || d->path[0] != '/')
			continue;
		if (!d->deleted && same_inode(d->path, d))
			continue;	/* still there: read it at the end */
		dso_load(c, dp);
	}
}

void sym_resolve_kernel(struct sym_ctx *c, uint64_t ip, struct sym_res *r)
{
	const struct ksyms *k = sym_kernel(c, NULL);

	memset(r, 0, sizeof(*r));
	if (k)
		r->name = ksyms_at(k, ip, &r->off, &r->module);
}

static void resolve_jit(struct sym_proc *p, uint64_t ip, struct sym_res *r)
{
	if (!p->jit_tried) {
		char path[128], *text;

		p->jit_tried = true;
		/* The map is in the process's own /tmp. */
		snprintf(path, sizeof(path), "/proc/%d/root/tmp/perf-%d.map", p->pid, p->pid);
		text = read_file(path, NULL);
		if (!text) {
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", p->pid);
			text = read_file(path, NULL);
		}
		if (text)
			perfmap_parse(text, &p->jit);
		free(text);
	}
	if (p->jit && (r->name = perfmap_at(p->jit, ip, &r->off)))
		r->jit = true;
}

void sym_resolve_user(struct sym_ctx *c, struct sym_proc *p, uint64_t ip, struct sym_res *r)
{
	const struct sym_map *m;
	struct sym_dso *d;
	const struct elfsym_sym *s;
	struct elfsym *segs, *syms;
	uint64_t va;

	memset(r, 0, sizeof(*r));
	if (!p)
		return;
	m = proc_map_at(p, ip);
	if (!m || !m->dso) {
		r->mapped = m != NULL;
		r->anon = m != NULL;
		resolve_jit(p, ip, r);
		return;
	}
	r->mapped = true;
	d = r->dso = m->dso;
	dso_load(c, (struct dso_priv *)d);
	segs = d->special && !strcmp(d->path, "[vdso]") ? c->vdso : d->elf;
	if (!segs)
		return;
	syms = d->dbg ? d->dbg : segs;
	if (elfsym_offset_to_vaddr(segs, ip - m->start + m->pgoff, &va) < 0)
		return;
	r->va = va;
	s = elfsym_at(syms, va, &r->off);
	if (s)
		r->name = s->name;
}

int sym_lines(const struct sym_res *r, struct dwline_frame *f, int max)
{
	struct sym_dso *d = r->dso;

	if (!d || !r->name || r->jit || d->special)
		return 0;
	/* lazily, once: most stacks never ask */
	if (!d->dw_tried) {
		d->dw_tried = true;
		/* the file read for its symbols (through /proc while its
		 * process ran), else by its name, else its debug file */
		if ((!d->file || dwline_open(d->file, &d->dw) < 0) &&
		    (d->deleted || dwline_open(d->path, &d->dw) < 0) && d->dbg)
			dwline_open(elfsym_path(d->dbg), &d->dw);
	}
	return d->dw ? dwline_lookup(d->dw, r->va, f, max) : 0;
}

int sym_proc_mapping(const struct sym_proc *p, uint64_t ip, struct sym_mapping *m)
{
	const struct sym_map *sm = !p ? NULL : ip ? proc_map_at(p, ip) : p->n ? &p->maps[0] : NULL;

	if (!sm)
		return -ENOENT;
	*m = (struct sym_mapping){ sm->start, sm->end, sm->pgoff, sm->dso };
	return 0;
}

const char *sym_dso_file(struct sym_ctx *c, struct sym_dso *d)
{
	dso_load(c, (struct dso_priv *)d);
	return d->file;
}

const char *sym_dso_build_id(struct sym_ctx *c, struct sym_dso *d)
{
	const char *f = sym_dso_file(c, d);

	if (!d->build_id_tried && f && build_id(f, d->build_id, sizeof(d->build_id)) < 0)
		d->build_id[0] = '\0';
	d->build_id_tried = true;
	return d->build_id[0] ? d->build_id : NULL;
}

bool sym_proc_has_jit_map(struct sym_proc *p)
{
	struct sym_res r;

	resolve_jit(p, 0, &r);
	return p->jit != NULL;
}

size_t sym_dso_count(const struct sym_ctx *c)
{
	return c->ndso;
}

struct sym_dso *sym_dso_get(struct sym_ctx *c, size_t i)
{
	return i < c->ndso ? &c->dsos[i]->pub : NULL;
}

/* ---- which package owns a file ---------------------------------------------------- */

static bool line_is(const char *line, size_t len, const char *path, size_t plen)
{
	return plen == len && !memcmp(line, path, len);
}

/* /usr-merged systems map /usr/lib/x/libc.so.6 while the package lists
 * /lib/x/libc.so.6 (or the reverse): the other spelling, or "". */
static void merged_alt(const char *path, char *alt, size_t len)
{
	static const char *const merged[] = { "/bin/", "/sbin/", "/lib/", "/lib64/", "/lib32/" };

	alt[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(merged); i++) {
		if (str_has_prefix(path, "/usr") && str_has_prefix(path + 4, merged[i]))
			snprintf(alt, len, "%s", path + 4);
		else if (str_has_prefix(path, merged[i]))
			snprintf(alt, len, "/usr%s", path);
	}
}

int sym_dpkg_owners(const char *infodir, const char *const *paths, int n, char (*pkgs)[128])
{
	char (*alt)[PATH_MAX] = calloc((size_t)(n > 0 ? n : 1), sizeof(*alt)), file[PATH_MAX];
	struct dirent *de;
	size_t *plen;
	int left = n;
	DIR *dir;

	for (int i = 0; i < n; i++)
		pkgs[i][0] = '\0';
	if (!alt)
		return -ENOMEM;
	plen = calloc((size_t)(n > 0 ? n : 1) * 2, sizeof(*plen));
	if (!plen) {
		free(alt);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		merged_alt(paths[i], alt[i], sizeof(alt[i]));
		plen[2 * i] = strlen(paths[i]);
		plen[2 * i + 1] = strlen(alt[i]);
	}
	if (!infodir)
		infodir = "/var/lib/dpkg/info";
	dir = opendir(infodir);
	if (!dir) {
		free(alt);
		free(plen);
		return -ENOENT;
	}
	/* Each list read once for all the paths (a box's database is
	 * thousands of files, tens of MB). */
	while (left > 0 && (de = readdir(dir))) {
		size_t len = strlen(de->d_name), k;
		char *text;

		if (len < 6 || strcmp(de->d_name + len - 5, ".list"))
			continue;
		snprintf(file, sizeof(file), "%s/%s", infodir, de->d_name);
		text = read_file(file, NULL);
		if (!text)
			continue;
		k = strcspn(de->d_name, ":");
		if (k > len - 5)
			k = len - 5;
		/* Line by line, lengths first: one pass whatever n is. */
		for (char *l = text, *nl; *l && left > 0; l = nl + 1) {
			size_t ll;

			nl = strchrnul(l, '\n');
			ll = (size_t)(nl - l);
			for (int i = 0; i < n; i++) {
				if (pkgs[i][0] || !(line_is(l, ll, paths[i], plen[2 * i]) ||
						    (alt[i][0] && line_is(l, ll, alt[i], plen[2 * i + 1]))))
					continue;
				snprintf(pkgs[i], sizeof(pkgs[i]), "%.*s", (int)k, de->d_name);
				left--;
			}
			if (!*nl)
				break;
		}
		free(text);
	}
	closedir(dir);
	free(alt);
	free(plen);
	return 0;
}

int sym_dpkg_owner(const char *infodir, const char *path, char *pkg, size_t len)
{
	char one[1][128];
	int ret = sym_dpkg_owners(infodir, &path, 1, one);

	if (ret)
		return ret;
	if (!one[0][0])
		return -ENOENT;
	snprintf(pkg, len, "%s", one[0]);
	return 0;
}

/* ---- perf side-band records ------------------------------------------------------- */

static void side_mmap2(struct sym_ctx *c, const struct perf_event_header *h)
{
	const char *rec = (const char *)(h + 1), *end = (const char *)h + h->size;
	uint32_t pid, maj = 0, min = 0, prot;
	uint64_t addr, len, pgoff, ino = 0;
	char path[PATH_MAX];
	struct map_line m;
	struct sym_proc *proc;
	size_t plen;

	if (end - rec < 56 + 1)
		return;
	memcpy(&pid, rec, 4);
	memcpy(&addr, rec + 8, 8);
	memcpy(&len, rec + 16, 8);
	memcpy(&pgoff, rec + 24, 8);
	/* 5.12+ may send a build id in place of device and inode. */
	if (!(h->misc & (1 << 14))) {
		memcpy(&maj, rec + 32, 4);
		memcpy(&min, rec + 36, 4);
		memcpy(&ino, rec + 40, 8);
	}
	memcpy(&prot, rec + 56, 4);
	plen = strnlen(rec + 64, end - (rec + 64));
	if ((int32_t)pid <= 0 || !(prot & PROT_EXEC) || plen >= sizeof(path))
		return;
	memcpy(path, rec + 64, plen);
	path[plen] = '\0';
	m = (struct map_line){ .start = addr, .end = addr + len, .pgoff = pgoff, .maj = maj,
			       .min = min, .ino = ino, .prot = MAP_X, .path = path };
	if (plen > 10 && !strcmp(path + plen - 10, " (deleted)")) {
		path[plen - 10] = '\0';
		m.deleted = true;
	}
	proc = sym_proc_find(c, (int)pid, true);
	if (proc)
		sym_proc_map(c, proc, &m);
}

void sym_perf_side(struct sym_ctx *c, const struct perf_event_header *h, int *tid,
		   char comm[16])
{
	const char *rec = (const char *)(h + 1);
	const uint32_t *v = (const uint32_t *)(h + 1);
	struct sym_proc *proc;
	char name[16];

	if (tid)
		*tid = 0;
	switch (h->type) {
	case PERF_RECORD_MMAP2:
		side_mmap2(c, h);
		break;
	case PERF_RECORD_COMM:
		if (h->size < sizeof(*h) + 9)
			return;
		snprintf(name, sizeof(name), "%.*s", (int)(h->size - sizeof(*h) - 8), rec + 8);
		if (tid && comm) {
			*tid = (int)v[1];
			memcpy(comm, name, sizeof(name));
		}
		if (v[0] != v[1])
			return;
		/* exec: a new address space from here on. */
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			proc = sym_proc_exec(c, (int)v[0]);
		else
			proc = sym_proc_find(c, (int)v[0], false);
		if (proc)
			sym_proc_set_comm(proc, name);
		break;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid: a new process when pid != ppid. */
		if (h->size >= sizeof(*h) + 16 && v[0] != v[1])
			sym_proc_fork(c, (int)v[0], (int)v[1]);
		break;
	default:
		break;
	}
}
