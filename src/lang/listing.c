// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bpftrace's listing: ftr -l [PATTERN[,PATTERN...]], -lv, -l -e PROG,
 * -l FILE.bt, -l -p PID.  Each probe is a line as bpftrace names it
 * (kprobe:vfs_read, tracepoint:sched:sched_switch, software:cpu-clock:),
 * of the providers ftr has, and only where ftr can probe it here: no
 * kprobe: lines on a kernel without kprobe events, no fentry: lines
 * without its BTF.  A provider that is BPF's alone (rawtracepoint:, iter:)
 * lists nothing, and a pattern that finds nothing says why.
 *
 * A PATTERN is PROVIDER:REST, both globs (kprobe:vfs_*, *ware:*), or a glob
 * without ':' matched against whole names (*do_nanosleep*); 'struct X'
 * (union, enum) is a type of the kernel's BTF, printed whole under -v.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/btf.h"
#include "kernel/formats.h"
#include "kernel/pglob.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"
#include "lang/listing.h"
#include "lang/load.h"
#include "report/usdt.h"

/* Why a provider listed nothing: said when nothing matched at all, and
 * under a listing of everything. */
enum {
	WHY_KPROBES = 1,	/* no kprobe events */
	WHY_BTF = 2,		/* fentry:/fexit: without the kernel's BTF */
	WHY_BPF = 4,		/* rawtracepoint:, iter: */
	WHY_TRACEFS = 8,	/* tracefs unreadable */
	WHY_PATH = 16,		/* uprobe:/usdt: file not found or not ELF */
	WHY_UARGS = 32,		/* uprobe: under -v */
};

struct bfunc {
	const char *name;
	uint32_t id;
};

struct btl {
	const char *pat;	/* the whole item */
	const char *rest;	/* the glob after PROVIDER:, or NULL: pat matches whole names */
	bool named;		/* the provider was named (no glob): say why it lists nothing */
	bool all;		/* no pattern: every provider named */
	bool dry;		/* count the matches, print nothing */
	bool verbose;
	int pid;
	const char *tdir;	/* tracefs, or NULL */
	bool kprobes;
	struct btf *btf;	/* the kernel's, loaded on first use */
	bool btf_tried;
	struct bfunc *bf;	/* its functions, sorted by name */
	size_t nbf;
	struct pglob kf;	/* the functions a kprobe can attach to */
	bool kf_tried;
	struct tep_handle *tep;
	unsigned why;
	char path_why[512];
	size_t found;
};

struct provider {
	const char *name, *alias, *alias2;
	void (*list)(struct btl *L, const struct provider *pv);
};

/* Print PROVIDER:REST when the item matches it (or short, REST without
 * its "vmlinux:"): whether it did. */
static bool emit(struct btl *L, const struct provider *pv, const char *rest, const char *shrt)
{
	char full[PATH_MAX + 512];
	const char *last;

	snprintf(full, sizeof(full), "%s:%s", pv->name, rest);
	if (L->rest) {
		if (fnmatch(L->rest, rest, 0) &&
		    (!shrt || strchr(L->rest, ':') || fnmatch(L->rest, shrt, 0)))
			return false;
	} else if (fnmatch(L->pat, full, 0)) {
		/* A bare word names a probe by its last part (do_nanosleep). */
		last = strrchr(full, ':');
		if (pglob_is_glob(L->pat) || strcmp(L->pat, last + 1))
			return false;
	}
	L->found++;
	if (L->dry)
		return false;
	puts(full);
	return true;
}

/* ---- the kernel's BTF ------------------------------------------------------ */

static int cmp_bfunc(const void *a, const void *b)
{
	return strcmp(((const struct bfunc *)a)->name, ((const struct bfunc *)b)->name);
}

static struct btf *kernel_btf(struct btl *L)
{
	const char *path = ctypes_btf_path();
	char why[256];

	if (L->btf_tried)
		return L->btf;
	L->btf_tried = true;
	if (!path || btf_load_file(path, NULL, &L->btf, why, sizeof(why)))
		return NULL;
	L->bf = calloc(btf_nr(L->btf), sizeof(*L->bf));
	for (uint32_t id = 1; L->bf && id < btf_nr(L->btf); id++) {
		struct btf_t t;

		btf_type(L->btf, id, &t);
		if (t.kind == BTF_FUNC)
			L->bf[L->nbf++] = (struct bfunc){ t.name, id };
	}
	qsort(L->bf, L->nbf, sizeof(*L->bf), cmp_bfunc);
	return L->btf;
}

/* The FUNC_PROTO of kernel function name, or 0. */
static uint32_t func_proto(struct btl *L, const char *name)
{
	struct bfunc key = { name, 0 }, *f;
	struct btf_t t;

	if (!kernel_btf(L))
		return 0;
	f = bsearch(&key, L->bf, L->nbf, sizeof(*L->bf), cmp_bfunc);
	if (!f)
		return 0;
	btf_type(L->btf, f->id, &t);
	return t.size_type;
}

/* "    TYPE NAME": how bpftrace -lv shows a parameter or a field. */
static void print_typed(const struct btf *b, uint32_t type, const char *name, const char *pre,
			const char *post)
{
	char s[256];
	const char *br;

	btf_type_str(b, type, s, sizeof(s));
	br = strchr(s, '[');
	if (br)
		printf("%s%.*s%s%s%s%s\n", pre, (int)(br - s), s, *name ? " " : "", name, br, post);
	else
		printf("%s%s%s%s%s\n", pre, s, *name ? " " : "", name, post);
}

static void print_params(struct btl *L, uint32_t proto, bool retval)
{
	struct btf_t t;

	btf_type(L->btf, proto, &t);
	for (unsigned i = 0; i < t.vlen; i++) {
		uint32_t type;
		const char *name = btf_param(L->btf, proto, i, &type);

		if (type)	/* 0: the "..." of a variadic function */
			print_typed(L->btf, type, name, "    ", "");
	}
	if (retval && t.size_type)
		print_typed(L->btf, t.size_type, "retval", "    ", "");
}

/* ---- providers ------------------------------------------------------------- */

/* Every event, from available_events ("SYS:EV" lines): one read, where a
 * directory walk of events/ costs a guest's eventfs a second. */
static void list_tracepoints(struct btl *L, const struct provider *pv)
{
	char path[PATH_MAX + 32], *text, *save = NULL, **v = NULL;
	size_t n = 0, cap = 0;

	if (L->rest && strchr(L->rest, '/'))
		return;	/* a path: no event's name */
	snprintf(path, sizeof(path), "%s/available_events", L->tdir ? L->tdir : "");
	text = L->tdir ? read_file(path, NULL) : NULL;
	if (!text) {
		L->why |= WHY_TRACEFS;
		return;
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		/* ftrace's own records are no events to enable */
		if (str_has_prefix(l, "ftrace:") || !strchr(l, ':'))
			continue;
		if (n + 1 >= cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 4096) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n++] = l;
		v[n] = NULL;
	}
	list_sort(v);
	for (size_t i = 0; i < n; i++) {
		if (emit(L, pv, v[i], NULL) && L->verbose) {
			char *c = strchr(v[i], ':');

			if (!L->tep)
				L->tep = tep_alloc();
			*c = '\0';
			list_print_fields(L->tep, v[i], c + 1);
			*c = ':';
		}
	}
	free(v);
	free(text);
}

/* kprobe:, kretprobe:, and fentry:/fexit: (kprobes or fprobes in ftr, with
 * the arguments the BTF names): the functions a kprobe can attach to. */
static void list_kfuncs(struct btl *L, const struct provider *pv)
{
	bool btf_only = pv->name[0] == 'f', ret = !strcmp(pv->name, "fexit");
	char why[256], rest[300];

	if (L->rest && strchr(L->rest, '/'))
		return;	/* a path: no function's name */
	if (!L->kprobes) {
		L->why |= WHY_KPROBES;
		return;
	}
	if (btf_only && !kernel_btf(L)) {
		L->why |= WHY_BTF;
		return;
	}
	if (!L->kf_tried) {
		L->kf_tried = true;
		if (pglob_kernel(L->tdir, NULL, "*", &L->kf, why, sizeof(why)))
			L->kf.n = 0;
	}
	for (size_t i = 0; i < L->kf.n; i++) {
		const char *fn = L->kf.names[i];
		uint32_t proto = (btf_only || L->verbose) ? func_proto(L, fn) : 0;

		if (btf_only && !proto)
			continue;
		snprintf(rest, sizeof(rest), btf_only ? "vmlinux:%s" : "%s", fn);
		if (emit(L, pv, rest, btf_only ? fn : NULL) && L->verbose && proto)
			print_params(L, proto, ret);
	}
}

static void list_perf(struct btl *L, const struct provider *pv)
{
	const char *name, *alias;
	char rest[80];
	bool hw;

	for (size_t i = 0; (name = lang_perf_event_name(i, &hw, &alias)); i++) {
		if (hw != (pv->name[0] == 'h'))
			continue;
		/* Both spellings probe the same event (cpu-clock, cpu). */
		snprintf(rest, sizeof(rest), "%s:", name);
		emit(L, pv, rest, NULL);
		if (alias) {
			snprintf(rest, sizeof(rest), "%s:", alias);
			emit(L, pv, rest, NULL);
		}
	}
}

static void list_timers(struct btl *L, const struct provider *pv)
{
	static const char *const units[] = { "hz:", "s:", "ms:", "us:" };

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		emit(L, pv, units[i], NULL);
}

static void list_bpf_only(struct btl *L, const struct provider *pv)
{
	(void)pv;
	if (L->named)
		L->why |= WHY_BPF;
}

/* One file's functions (uprobe:, uretprobe:) or USDT probes (usdt:):
 * shown as written, read at path (under /proc/PID/root for a process's). */
static void list_file(struct btl *L, const struct provider *pv, const char *shown,
		      const char *path)
{
	char why[512], rest[PATH_MAX + 512];
	bool usdt = pv->name[2] == 'd';

	if (usdt) {
		struct usdt_probe *u = NULL;
		size_t n = 0;

		if (usdt_read(path, &u, &n, why, sizeof(why)))
			return;
		for (size_t i = 0; i < n; i++) {
			bool dup = false;

			/* a line per probe, not per site (a probe inlined twice) */
			for (size_t j = 0; j < i && !dup; j++)
				dup = !strcmp(u[j].provider, u[i].provider) &&
				      !strcmp(u[j].name, u[i].name);
			snprintf(rest, sizeof(rest), "%s:%s:%s", shown, u[i].provider, u[i].name);
			if (!dup && emit(L, pv, rest, NULL) && L->verbose)
				printf("    %s\n", u[i].args);
		}
		free(u);
	} else {
		struct pglob g;

		/* A function's parameters are in its DWARF, which ftr does not
		 * read: no names without what -v asked for. */
		if (L->verbose) {
			L->why |= WHY_UARGS;
			return;
		}
		if (pglob_user(path, "*", &g, why, sizeof(why)))
			return;
		for (size_t i = 0; i < g.n; i++) {
			snprintf(rest, sizeof(rest), "%s:%s", shown, g.names[i]);
			emit(L, pv, rest, NULL);
		}
		pglob_free(&g);
	}
}

/* uprobe:PATH:FUNC, uretprobe:PATH:FUNC, usdt:PATH:PROVIDER:NAME: PATH a
 * glob over files (./testprogs/uprobe*), a library's name (libc), or '*'
 * with -p: the files the process maps. */
static void list_user(struct btl *L, const struct provider *pv)
{
	char *want = L->rest ? strdup(L->rest) : NULL, *c, path[PATH_MAX], why[512];
	char eff[PATH_MAX + 256];
	const char *saved = L->rest;

	c = want ? strchr(want, ':') : NULL;
	if (c)
		*c = '\0';
	/* No file named (a whole-name glob, '*' without -p): nothing to list. */
	if (!L->pid && (!want || !strcmp(want, "*"))) {
		free(want);
		return;
	}
	/* usdt:PATH lists all of the file's, usdt:PATH:NAME any provider's. */
	if (want && !c) {
		snprintf(eff, sizeof(eff), "%s:*", want);
		L->rest = eff;
	} else if (want && pv->name[2] == 'd' && !strchr(c + 1, ':')) {
		snprintf(eff, sizeof(eff), "%s:*:%s", want, c + 1);
		L->rest = eff;
	}
	if (L->pid && (!want || !strcmp(want, "*"))) {
		char **files = pglob_pid_files(L->pid);

		for (size_t i = 0; files && files[i]; i++) {
			snprintf(path, sizeof(path), "/proc/%d/root%s", L->pid, files[i]);
			list_file(L, pv, files[i], path);
		}
		pglob_list_free(files);
	} else if (want && pglob_is_glob(want)) {
		char **files = pglob_paths(want);

		for (size_t i = 0; files && files[i]; i++)
			list_file(L, pv, files[i], files[i]);
		pglob_list_free(files);
	} else if (want) {
		if (probe_resolve_path(want, arch_name(), path, sizeof(path), why, sizeof(why))) {
			L->why |= WHY_PATH;
			snprintf(L->path_why, sizeof(L->path_why), "%s", why);
		} else {
			list_file(L, pv, strchr(want, '/') ? want : path, path);
		}
	}
	L->rest = saved;
	free(want);
}

/* The short lists first: a listing read by a pipe starts at once. */
static const struct provider providers[] = {
	{ "software", "s", NULL, list_perf },
	{ "hardware", "h", NULL, list_perf },
	{ "interval", "i", NULL, list_timers },
	{ "profile", "p", NULL, list_timers },
	{ "tracepoint", "t", NULL, list_tracepoints },
	{ "kprobe", "k", NULL, list_kfuncs },
	{ "kretprobe", "kr", NULL, list_kfuncs },
	{ "fentry", "f", "kfunc", list_kfuncs },
	{ "fexit", "fr", "kretfunc", list_kfuncs },
	{ "uprobe", "u", NULL, list_user },
	{ "uretprobe", "ur", NULL, list_user },
	{ "usdt", "U", NULL, list_user },
	{ "rawtracepoint", "rt", NULL, list_bpf_only },
	{ "iter", "it", NULL, list_bpf_only },
};

/* ---- types ----------------------------------------------------------------- */

/* 'struct task_struct' (union, enum): its definition from the BTF. */
static int list_type(struct btl *L, const char *item)
{
	enum btf_kind kind = str_has_prefix(item, "struct ") ? BTF_STRUCT :
			     str_has_prefix(item, "union ") ? BTF_UNION : BTF_ENUM;
	const char *name = strchr(item, ' ') + 1;
	struct btf_t t;
	uint32_t id;

	if (!kernel_btf(L)) {
		ftr_err("'%s': no BTF to read it from (%s; --btf FILE names one)", item,
			ctypes_btf_path() ? "it cannot be read" : "this kernel has no "
			"/sys/kernel/btf/vmlinux");
		return -1;
	}
	id = btf_find(L->btf, name, kind);
	if (!id && kind == BTF_ENUM)
		id = btf_find(L->btf, name, BTF_ENUM64);
	if (!id) {
		ftr_err("'%s': no such type in the kernel's BTF", item);
		return -1;
	}
	L->found++;
	if (L->dry)
		return 0;
	if (!L->verbose) {
		puts(item);
		return 0;
	}
	btf_type(L->btf, id, &t);
	printf("vmlinux: %s {\n", item);
	for (unsigned i = 0; i < t.vlen; i++) {
		if (t.kind == BTF_STRUCT || t.kind == BTF_UNION) {
			struct btf_member m;
			char bits[24] = ";";

			btf_member(L->btf, id, i, &m);
			if (m.bits)
				snprintf(bits, sizeof(bits), " : %u;", m.bits);
			print_typed(L->btf, m.type, m.name, "\t", bits);
		} else {
			int64_t v;
			const char *e = btf_enumerator(L->btf, id, i, &v);

			printf("\t%s = %lld,\n", e, (long long)v);
		}
	}
	printf("};\n");
	return 0;
}

/* ---- patterns -------------------------------------------------------------- */

/* Can whole-name glob pat match a name of provider pv?  Only by what it
 * starts with, before its first wildcard ('kprobe*' is no tracepoint): the
 * providers it cannot match are not read (the kernel's functions, its BTF). */
static bool whole_may_match(const struct provider *pv, const char *pat)
{
	size_t lit = strcspn(pat, "*?[\\"), n = strlen(pv->name);

	return !strncmp(pat, pv->name, lit < n ? lit : n) && (lit <= n || pat[n] == ':');
}

static bool provider_matches(const struct provider *pv, const char *glob)
{
	return !fnmatch(glob, pv->name, 0) || !strcmp(glob, pv->alias) ||
	       (pv->alias2 && !strcmp(glob, pv->alias2));
}

static int list_item(struct btl *L, char *item)
{
	char *colon;

	if (str_has_prefix(item, "struct ") || str_has_prefix(item, "union ") ||
	    str_has_prefix(item, "enum "))
		return list_type(L, item);
	L->pat = item;
	colon = strchr(item, ':');
	L->rest = colon ? colon + 1 : NULL;
	if (colon)
		*colon = '\0';
	L->named = L->all || (colon && !pglob_is_glob(item));
	for (size_t i = 0; i < ARRAY_SIZE(providers); i++)
		if (colon ? provider_matches(&providers[i], item) :
			    whole_may_match(&providers[i], item))
			providers[i].list(L, &providers[i]);
	if (colon)
		*colon = ':';
	return 0;
}

static void say_why(const struct btl *L, const char *pre)
{
	if (L->why & WHY_TRACEFS)
		fprintf(stderr, "%stracefs cannot be read: no tracepoint: (see 'ftr doctor')\n", pre);
	if (L->why & WHY_KPROBES)
		fprintf(stderr, "%sthis kernel has no kprobe events: no kprobe:, kretprobe:, "
			"fentry: or fexit: probes (see 'ftr doctor')\n", pre);
	if ((L->why & WHY_BTF) && !(L->why & WHY_KPROBES))
		fprintf(stderr, "%sno fentry: or fexit: probes: they are the functions of the "
			"kernel's BTF, and there is none (/sys/kernel/btf/vmlinux)\n", pre);
	if (L->why & WHY_BPF)
		fprintf(stderr, "%sno rawtracepoint: or iter: probes: they are BPF programs, "
			"which ftr does not load (tracepoint: reads the same events)\n", pre);
	if (L->why & WHY_PATH)
		fprintf(stderr, "%s%s\n", pre, L->path_why);
	if (L->why & WHY_UARGS)
		fprintf(stderr, "%sa uprobe's arguments (-v) are in the DWARF debug information, "
			"which ftr does not read (list the functions without -v)\n", pre);
}

static void btl_init(struct btl *L, bool verbose, int pid)
{
	static struct ftr_tracefs t;
	char path[PATH_MAX + 32];

	memset(L, 0, sizeof(*L));
	L->verbose = verbose;
	L->pid = pid;
	if (tracefs_locate(&t, true) == 0 && access(t.path, R_OK | X_OK) == 0) {
		snprintf(path, sizeof(path), "%s/README", t.path);
		if (path_exists(path))
			L->tdir = t.path;
	}
	if (L->tdir) {
		snprintf(path, sizeof(path), "%s/kprobe_events", L->tdir);
		L->kprobes = path_exists(path);
	}
}

static void btl_free(struct btl *L)
{
	if (L->kf_tried)
		pglob_free(&L->kf);
	btf_free(L->btf);
	free(L->bf);
	tep_free(L->tep);
}

/*
 * The items of pattern, in order: each is counted first, and one that
 * matches nothing is an error that says why; then, when every item
 * matched, they are listed (print).  An exit status.
 */
static int list_patterns(struct btl *L, const char *pattern, bool print)
{
	char *copy = strdup(pattern), *save = NULL, *item;
	int ret = FTR_EXIT_OK;

	if (!copy)
		return FTR_EXIT_FAIL;
	/* One item is listed as it is found (nothing printed when it
	 * matches nothing): no counting first. */
	bool one = !strchr(pattern, ',');

	for (int pass = one && print; pass < 1 + print && ret == FTR_EXIT_OK; pass++) {
		snprintf(copy, strlen(pattern) + 1, "%s", pattern);
		L->dry = pass == 0;
		for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
			while (*item == ' ')
				item++;
			if (!*item)
				continue;
			L->found = 0;
			L->why = 0;
			if (list_item(L, item) < 0) {
				ret = FTR_EXIT_FAIL;
			} else if ((L->dry || one) && !L->found) {
				ftr_err("no probe matches '%s'%s", item, L->why ? ":" : "");
				say_why(L, "  ");
				ret = FTR_EXIT_FAIL;
			} else if (!L->dry && L->all) {
				say_why(L, "ftr: note: ");
			}
		}
	}
	free(copy);
	return ret;
}

int bt_list(const char *pattern, bool verbose, int pid)
{
	struct btl L;
	int ret;
	struct stat st;

	if (pattern && stat(pattern, &st) == 0 && S_ISREG(st.st_mode))
		return bt_list_program(pattern, NULL, verbose, pid);
	if (pattern && str_has_suffix(pattern, ".bt"))
		fprintf(stderr, "ftr: warning: no file '%s': listing the probes it matches as a "
			"pattern\n", pattern);
	btl_init(&L, verbose, pid);
	L.all = !pattern;
	/* -p PID alone: the process's probes (uprobe:, uretprobe:, usdt:) */
	ret = list_patterns(&L, pattern ? pattern : pid ? "u*:*" : "*:*", true);
	btl_free(&L);
	return ret;
}

/* A probe of a program as a listing pattern: its spelling without a
 * period (hardware:cache-misses:10 -> hardware:cache-misses:). */
static void program_pattern(const struct lang_probe *p, char *out, size_t len)
{
	const char *t = p->text, *c = strchr(t, ':');

	if (c && (p->pv == PV_INTERVAL || p->pv == PV_PROFILE) && (c = strchr(c + 1, ':')))
		snprintf(out, len, "%.*s:", (int)(c - t), t);
	else if (c && (p->pv == PV_INTERVAL || p->pv == PV_PROFILE))
		snprintf(out, len, "%s:", t);
	else
		snprintf(out, len, "%s", t);
}

int bt_list_program(const char *file, const char *text, bool verbose, int pid)
{
	struct program prog = { 0 };
	char *owned = NULL, pat[PATH_MAX + 64];
	struct btl L;
	int ret = FTR_EXIT_OK;

	if (lang_load(file, text, NULL, 0, &prog, &owned) < 0) {
		free(owned);
		return FTR_EXIT_FAIL;
	}
	btl_init(&L, verbose, pid);
	/* Every probe counted before any is listed (list_patterns). */
	for (int pass = 0; pass < 2 && ret == FTR_EXIT_OK; pass++)
		for (int i = 0; i < prog.ncl; i++)
			for (int j = 0; j < prog.cl[i].nprobes; j++) {
				const struct lang_probe *p = &prog.cl[i].probes[j];

				if (p->pv == PV_BEGIN || p->pv == PV_END) {
					if (pass)
						puts(p->text);
					continue;
				}
				program_pattern(p, pat, sizeof(pat));
				if (list_patterns(&L, pat, pass) != FTR_EXIT_OK)
					ret = FTR_EXIT_FAIL;
			}
	btl_free(&L);
	lang_free(&prog);
	free(owned);
	return ret;
}

void list_print_fields(struct tep_handle *tep, const char *sys, const char *ev)
{
	struct tep_event *event;
	char *fmt;
	int size = 0;

	fmt = tracefs_event_file_read(NULL, sys, ev, "format", &size);
	if (!fmt || size <= 0 || formats_parse(tep, fmt, size, sys) != 0) {
		printf("    (format unreadable)\n");
		free(fmt);
		return;
	}
	free(fmt);
	event = tep_find_event_by_name(tep, sys, ev);
	if (!event)
		return;
	/* Common fields (common_pid, ...) are the same on every event and
	 * are left out, as bpftrace -lv does. */
	for (struct tep_format_field *fl = event->format.fields; fl; fl = fl->next) {
		const char *br = strchr(fl->type, '[');

		/* libtraceevent keeps "char[16]" as the type; C spells it
		 * "char prev_comm[16]", as bpftrace -lv prints it. */
		if (br)
			printf("    %.*s %s%s\n", (int)(br - fl->type), fl->type, fl->name, br);
		else
			printf("    %s %s\n", fl->type, fl->name);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void list_sort(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
}
