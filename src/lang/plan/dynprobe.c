// SPDX-License-Identifier: GPL-2.0-or-later
/* The language's dynamic probes, wildcards expanded: see dynprobe.h. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftr.h"
#include "kernel/arch.h"
#include "kernel/engine.h"
#include "kernel/evsel.h"
#include "kernel/kallsyms.h"
#include "kernel/pglob.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "lang/plan/dynprobe.h"
#include "report/elfsym.h"
#include "report/usdt.h"

static int errp(struct lang_err *err, const struct lang_probe *pr, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int errp(struct lang_err *err, const struct lang_probe *pr, int ret, const char *fmt, ...)
{
	va_list ap;

	err->line = pr->line;
	err->col = pr->col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return ret;
}


static int push_name(char ***names, int *n, const char *name)
{
	char **v = realloc(*names, (*n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	*names = v;
	if (!(v[*n] = strdup(name)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The probe spelled as probe.c reads it: bpftrace's other spellings of a
 * return probe (kretfunc:, fexit:) are kretprobe:. */
static const char *canonical(const struct lang_probe *pr, char *buf, size_t len)
{
	const char *rest = strchr(pr->text, ':');
	static const char *const kind[] = {
		[PV_KPROBE] = "kprobe", [PV_KRETPROBE] = "kretprobe",
		[PV_UPROBE] = "uprobe", [PV_URETPROBE] = "uretprobe",
	};

	/* kprobe:vmlinux:FUNC, kfunc:vmlinux:FUNC are FUNC, vmlinux's (the
	 * kernel takes "vmlinux:FUNC" for a module's, and waits for it). */
	if ((pr->btf_func || pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) && rest &&
	    str_has_prefix(rest, ":vmlinux:"))
		rest += 8;
	snprintf(buf, len, "%s%s", kind[pr->pv], rest ? rest : ":");
	return buf;
}

/* The typed reads of the probe dynprobe_add is adding (its extra):
 * the same for each event a wildcard makes. */
static const struct probe_arg *cur_extra, *cur_fallback;
static int cur_nextra;
static bool cur_fprobe;		/* kfunc/kretfunc: an fprobe where there are */

/* Create one probe from spec text (place and fields), with cur_extra.
 * quiet: a failure prints nothing (a wildcard's match the kernel refuses). */
static int add_one(struct engine *e, const char *text, bool quiet, struct probe_error *perr)
{
	struct probe_spec spec;
	int ret, base;

	perr->pos = -1;
	perr->msg[0] = '\0';
	if (probe_parse(text, &spec, perr) < 0)
		return -EINVAL;
	if (spec.nargs + cur_nextra > PROBE_MAX_ARGS) {
		snprintf(perr->msg, sizeof(perr->msg), "too many fields for one probe (%d)",
			 PROBE_MAX_ARGS);
		return -EINVAL;
	}
	base = spec.nargs;
	for (int i = 0; i < cur_nextra; i++)
		spec.args[spec.nargs++] = cur_extra[i];
	spec.fprobe = cur_fprobe;
	if ((quiet || cur_fallback) && e->s)
		session_set_quiet(e->s, true);
	ret = engine_add_probe(e, &spec, NULL, NULL);
	/* The kernel's argument names refused (a function its BTF does not
	 * describe as ftr's does): ftr's own fetches, the same values. */
	if (ret < 0 && cur_fallback && e->s) {
		char *log = tracefs_error_last(NULL);
		int err = ret;

		session_set_quiet(e->s, quiet);
		for (int i = 0; i < cur_nextra; i++)
			spec.args[base + i] = cur_fallback[i];
		ret = engine_add_probe(e, &spec, NULL, NULL);
		if (!ret)
			fprintf(stderr, "ftr: note: '%s': the kernel refused its BTF argument names "
				"(%s): ftr's argument fetches instead\n", text,
				log && *log ? log : strerror(-err));
		free(log);
	}
	if ((quiet || cur_fallback) && e->s)
		session_set_quiet(e->s, false);
	return ret;
}

/* kprobe:[MOD:]GLOB or uprobe:PATH:GLOB, one probe per function. */
static int add_glob(struct engine *e, const struct lang_probe *pr, bool optional,
		    const char *spec, const char *fields, char ***names, struct lang_err *err)
{
	bool user = pr->pv == PV_UPROBE || pr->pv == PV_URETPROBE;
	const char *kind = user ? (pr->pv == PV_UPROBE ? "uprobe" : "uretprobe") :
				  (pr->pv == PV_KPROBE ? "kprobe" : "kretprobe");
	char place[PATH_MAX + 64] = "", why[1024], *glob, *rest = strdup(strchr(spec, ':') + 1);
	struct pglob g = { 0 };
	int n = 0, ret;

	if (!rest)
		return -ENOMEM;
	glob = strrchr(rest, ':');
	if (glob)
		*glob++ = '\0';
	else
		glob = rest;
	if (strchr(glob, '+')) {
		ret = errp(err, pr, -EINVAL, "'%s': an offset cannot follow a wildcard", pr->text);
		goto out;
	}
	if (!e->s) {
		ret = errp(err, pr, -ENOTSUP, "'%s': wildcards are expanded on a live kernel only",
			   pr->text);
		goto out;
	}
	if (!user && !e->feat.f[F_KPROBE].yes) {
		ret = errp(err, pr, -ENOTSUP, "cannot probe '%s': this kernel has no kprobe events "
			   "(see 'ftr doctor')", pr->text);
		goto out;
	}
	if (user) {
		const char *arch = e->feat.arch[0] ? arch_normalise(e->feat.arch) : arch_name();

		if (glob == rest) {
			ret = errp(err, pr, -EINVAL, "'%s': a uprobe is uprobe:PATH:FUNCTION",
				   pr->text);
			goto out;
		}
		ret = probe_resolve_path(rest, arch, place, sizeof(place), why, sizeof(why));
		if (!ret)
			ret = pglob_user(place, glob, &g, why, sizeof(why));
	} else {
		if (glob != rest)
			snprintf(place, sizeof(place), "%s", rest);	/* the module */
		ret = pglob_kernel(session_tracefs(e->s)->path, place, glob, &g, why, sizeof(why));
	}
	if (ret) {
		errp(err, pr, ret, "'%s': %s", pr->text, why);
		goto out;
	}
	if (g.n > pglob_max()) {
		ret = errp(err, pr, -E2BIG, "'%s' matches %zu functions, more than %zu (one %s "
			   "event each); narrow the wildcard, or raise the cap with "
			   "FTR_MAX_PROBES=N in the environment", pr->text, g.n, pglob_max(), kind);
		goto out;
	}
	for (size_t i = 0; i < g.n; i++) {
		char text[PATH_MAX + 2048], pname[PATH_MAX + 600];
		struct probe_error perr;
		int sig;

		/* Thousands of probes take minutes where the kernel is slow to
		 * make each (kprobe:_* under emulation): a stop signal is heard
		 * between two, and what is made is undone. */
		if (e->s && (sig = session_pending_signal(e->s))) {
			e->stop_signal = sig;
			fprintf(stderr, "ftr: '%s': stopped by signal %d after %zu of %zu probes\n",
				pr->text, sig, i, g.n);
			ret = -EINTR;
			err->msg[0] = '\0';	/* printed */
			goto out;
		}
		snprintf(pname, sizeof(pname), "%s:%s%s%s", kind, place, place[0] ? ":" : "",
			 g.names[i]);
		snprintf(text, sizeof(text), "%s%s", pname, fields);
		/* The probe's name (the probe builtin) keeps a path as
		 * written, as bpftrace: uprobe:./prog:f; a bare library
		 * name is the file found. */
		if (user && strchr(rest, '/'))
			snprintf(pname, sizeof(pname), "%s:%s:%s", kind, rest, g.names[i]);
		ret = add_one(e, text, true, &perr);
		if (ret == -EINVAL && perr.msg[0]) {
			errp(err, pr, ret, "'%s': %s", pname, perr.msg);
			goto out;
		}
		if (ret == -ENOMEM || ret == -EACCES || ret == -ENOTSUP) {
			err->msg[0] = '\0';	/* printed */
			goto out;
		}
		if (ret < 0) {
			/* In available_filter_functions yet refused (a
			 * function kprobes may not hook, an address that is
			 * not an instruction boundary...): skip it. */
			size_t l = strlen(g.skipped_eg);

			if (g.skipped++ < 3)
				snprintf(g.skipped_eg + l, sizeof(g.skipped_eg) - l, "%s%s (%s)",
					 l ? ", " : "", g.names[i], strerror(-ret));
			continue;
		}
		ret = push_name(names, &n, pname);
		if (ret)
			goto out;
	}
	ret = 0;
	if (g.skipped)
		fprintf(stderr, "ftr: note: '%s': %zu matching function%s cannot be probed, "
			"skipped: %s%s\n", pr->text, g.skipped, g.skipped == 1 ? "" : "s",
			g.skipped_eg, g.skipped > 3 ? ", ..." : "");
	/* Beside other probes of its clause, a wildcard that matches nothing
	 * here (dcsnoop's lookup_fast.constprop.*, a compiler's clone of
	 * lookup_fast that a kernel may not have) is skipped, as bpftrace
	 * 0.17 skips it; the clause's other probes still run. */
	if (!n && optional)
		fprintf(stderr, "ftr: note: '%s': no %s function matches%s: skipped\n", pr->text,
			user ? "probeable" : "probeable kernel",
			g.skipped ? " that the kernel lets ftr probe" : "");
	else if (!n)
		ret = errp(err, pr, -ENOENT, "'%s': no %s function matches%s", pr->text,
			   user ? "probeable" : "probeable kernel",
			   g.skipped ? " that the kernel lets ftr probe" : "");
out:
	pglob_free(&g);
	free(rest);
	if (ret < 0) {
		strv_free(*names, n);
		*names = NULL;
		return ret;
	}
	return n;
}

/* " arg0 arg2" → " arg0=%di:s64 arg2=\\42:s32", from the note's operands;
 * str(arg1)'s " arg1_str=arg1:string" → " arg1_str=+0(%si):string". */
static int usdt_fields(const struct usdt_probe *u, const char *fields, char *out, size_t len,
		       char *why, size_t wl)
{
	char buf[256], *save = NULL;
	size_t off = 0;

	out[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", fields);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		int i = atoi(w + 3);
		bool str = strchr(w, '=') != NULL;

		w[strcspn(w, "_=")] = '\0';	/* "argN" */
		if (i >= u->nargs) {
			snprintf(why, wl, "%s: USDT probe %s:%s has %d argument%s (arg0..arg%d)", w,
				 u->provider, u->name, u->nargs, u->nargs == 1 ? "" : "s",
				 u->nargs - 1);
			return -EINVAL;
		}
		if (!u->fetch[i][0]) {
			snprintf(why, wl, "%s of USDT probe %s:%s ('%s'): uprobes cannot fetch %s",
				 w, u->provider, u->name, u->args, u->why[i]);
			return -ENOTSUP;
		}
		if (str && u->fetch[i][0] == '\\') {
			snprintf(why, wl, "str(%s): USDT probe %s:%s's %s is a constant, not a "
				 "pointer", w, u->provider, u->name, w);
			return -EINVAL;
		}
		if (str)
			off += snprintf(out + off, off < len ? len - off : 0, " %s_str=+0(%.*s):string",
					w, (int)strcspn(u->fetch[i], ":"), u->fetch[i]);
		else
			off += snprintf(out + off, off < len ? len - off : 0, " %s=%s", w,
					u->fetch[i]);
	}
	return off < len ? 0 : -E2BIG;
}

/* One file's sites of usdt:...:PROV:NAME (prov NULL: any): how many match,
 * and with add, a uprobe at each (its name in *names); or -errno, said in
 * err unless quiet (a file of many that cannot be read is skipped). */
static int usdt_file(struct engine *e, const struct lang_probe *pr, const char *fields,
		     const char *file, const char *prov, const char *name, bool add, bool quiet,
		     char ***names, int *n, struct lang_err *err)
{
	char path[PATH_MAX], why[1024];
	const char *arch = e->feat.arch[0] ? arch_normalise(e->feat.arch) : arch_name();
	struct usdt_probe *u = NULL;
	size_t nu = 0;
	int matched = 0, ret;

	ret = probe_resolve_path(file, arch, path, sizeof(path), why, sizeof(why));
	if (!ret)
		ret = usdt_read(path, &u, &nu, why, sizeof(why));
	if (ret) {
		if (!quiet)
			errp(err, pr, ret, "'%s': %s", pr->text, why);
		return ret;
	}
	for (size_t i = 0; i < nu; i++) {
		char text[PATH_MAX + 2048], f[1024], pname[PATH_MAX + 200];
		struct probe_spec spec;
		struct probe_error perr = { .pos = -1 };

		if (fnmatch(name, u[i].name, 0) || (prov && fnmatch(prov, u[i].provider, 0)))
			continue;
		matched++;
		if (!add)
			continue;
		ret = usdt_fields(&u[i], fields, f, sizeof(f), why, sizeof(why));
		if (ret) {
			errp(err, pr, ret, "'%s': %s", pr->text, why);
			goto out;
		}
		snprintf(text, sizeof(text), "uprobe:%s:0x%llx%s", path,
			 (unsigned long long)u[i].pc, f);
		if (probe_parse(text, &spec, &perr) < 0) {
			ret = errp(err, pr, -EINVAL, "'%s': %s", pr->text, perr.msg);
			goto out;
		}
		spec.ref_ctr = u[i].sem_off;
		ret = engine_add_probe(e, &spec, NULL, NULL);
		if (ret < 0) {
			err->msg[0] = '\0';	/* printed */
			goto out;
		}
		/* A path as written, as bpftrace names it (add_glob). */
		snprintf(pname, sizeof(pname), "usdt:%s:%s:%s", strchr(file, '/') ? file : path,
			 u[i].provider, u[i].name);
		ret = push_name(names, n, pname);
		if (ret)
			goto out;
	}
	if (!matched && !quiet) {
		size_t l = 0;

		why[0] = '\0';
		for (size_t i = 0; i < nu && i < 6 && l < sizeof(why); i++)
			l += snprintf(why + l, sizeof(why) - l, "%s%s:%s", i ? ", " : "",
				      u[i].provider, u[i].name);
		ret = errp(err, pr, -ENOENT, nu ? "'%s': no such USDT probe in '%s' (it has "
			   "%s%s)" : "'%s': '%s' has no USDT probes (no .note.stapsdt)%s%s",
			   pr->text, path, why, nu > 6 ? ", ..." : "");
		goto out;
	}
	ret = matched;
out:
	free(u);
	return ret;
}

/* usdt:PATH[:PROVIDER]:NAME (globs in PATH, PROVIDER and NAME; no PATH
 * with -p: the files the process maps; an empty PROVIDER: any): a uprobe
 * at each site of each matching probe, its semaphore raised by the kernel
 * while the uprobe exists (a reference counter, since Linux 4.20). */
static int add_usdt(struct engine *e, const struct lang_probe *pr, const char *fields,
		    char ***names, struct lang_err *err)
{
	char *t = strdup(pr->target), *name, *prov = NULL, **files = NULL;
	size_t matched = 0, nf = 0;
	int n = 0, ret, *cnt = NULL;
	bool many;

	if (!t)
		return -ENOMEM;
	name = strrchr(t, ':');
	if (!name) {
		ret = errp(err, pr, -EINVAL, "'%s': a USDT probe is usdt:PATH[:PROVIDER]:NAME",
			   pr->text);
		goto out;
	}
	*name++ = '\0';
	if (name[0] == '"' && strlen(name) > 1 && name[strlen(name) - 1] == '"') {
		/* test:"\"probe1\"": a quoted name, its \" and \\ unescaped */
		char *w = name;

		name[strlen(name) - 1] = '\0';
		for (const char *r = name + 1; *r; r++)
			*w++ = r[0] == '\\' && r[1] ? *++r : *r;
		*w = '\0';
	}
	prov = strrchr(t, ':');
	if (prov)
		*prov++ = '\0';
	if (prov && !*prov)
		prov = NULL;	/* usdt:PATH::NAME, as bpftrace: any provider */
	many = (!*t && e->o.pid > 0) || pglob_is_glob(t);
	if (many && e->o.pid > 0)
		files = pglob_pid_files(e->o.pid);	/* of them, those t matches */
	else if (many)
		files = pglob_paths(t);
	for (size_t i = 0; files && files[i]; i++) {
		if (e->o.pid > 0 && *t && fnmatch(t, files[i], 0))
			free(files[i]);
		else
			files[nf++] = files[i];
	}
	if (files)
		files[nf] = NULL;
	if (many && !(cnt = calloc(nf + 1, sizeof(*cnt)))) {
		ret = -ENOMEM;
		goto out;
	}
	/* what matches first, then the probes: none made for a refusal */
	for (size_t i = 0; i < (many ? nf : 1); i++) {
		ret = usdt_file(e, pr, fields, many ? files[i] : t, prov, name, false, many,
				names, &n, err);
		if (!many && ret <= 0)
			goto out;
		if (many)
			cnt[i] = ret;
		matched += ret > 0 ? (size_t)ret : 0;
	}
	if (!matched) {
		if (e->o.pid > 0)
			ret = errp(err, pr, -ENOENT, "'%s': no USDT probe matches in the files "
				   "process %d maps", pr->text, e->o.pid);
		else
			ret = errp(err, pr, -ENOENT, "'%s': no USDT probe matches in the files "
				   "'%s' names", pr->text, t);
		goto out;
	}
	if (matched > pglob_max()) {
		ret = errp(err, pr, -E2BIG, "'%s' matches %zu USDT sites, more than %zu; narrow it, "
			   "or raise the cap with FTR_MAX_PROBES=N", pr->text, matched, pglob_max());
		goto out;
	}
	for (size_t i = 0; i < (many ? nf : 1); i++) {
		if (many && cnt[i] <= 0)
			continue;
		ret = usdt_file(e, pr, fields, many ? files[i] : t, prov, name, true, false,
				names, &n, err);
		if (ret < 0)
			goto out;
	}
	ret = 0;
out:
	free(cnt);
	pglob_list_free(files);
	free(t);
	if (ret < 0) {
		strv_free(*names, n);
		*names = NULL;
		return ret;
	}
	return n;
}

void dynprobe_name(const char *text, char *buf, size_t len)
{
	static const char *const alias[][2] = {
		{ "k", "kprobe" }, { "kr", "kretprobe" }, { "u", "uprobe" },
		{ "ur", "uretprobe" }, { "f", "fentry" }, { "fr", "fexit" },
	};
	const char *colon = strchr(text, ':');
	size_t n = colon ? (size_t)(colon - text) : 0;

	for (size_t i = 0; colon && i < sizeof(alias) / sizeof(alias[0]); i++)
		if (strlen(alias[i][0]) == n && !strncmp(text, alias[i][0], n)) {
			snprintf(buf, len, "%s%s", alias[i][1], colon);
			return;
		}
	snprintf(buf, len, "%s", text);
}

/*
 * A named kernel function the running kernel has not, or one of a module
 * that is not loaded: refused before the kernel is asked, which takes
 * "MOD:FUNC" of a module not loaded and waits for the module.  Said in
 * bpftrace's words (its runtime tests check them), then why.  1: refused
 * (printed), 0: go on.
 */
static int refuse_absent(struct engine *e, const struct lang_probe *pr, const char *place)
{
	const char *fn = strrchr(place, ':'), *f = fn ? fn + 1 : place;
	const char *target = strchr(pr->text, ':') + 1;
	char mod[128] = "", why[512], where[32];
	uint64_t a;

	/* (kprobe:0xADDR: the kernel says whether it takes one) */
	if (isdigit((unsigned char)f[0]))
		return 0;
	if (fn)
		snprintf(mod, sizeof(mod), "%.*s", (int)(fn - place), place);
	snprintf(where, sizeof(where), "%d:%d", pr->line, pr->col);
	/* (a module built in is in /sys/module, not in /proc/modules) */
	snprintf(why, sizeof(why), "/sys/module/%s", mod);
	if (mod[0] && !probe_module_loaded(mod) && access(why, F_OK)) {
		fprintf(stderr, "%s: %s: ERROR: specified module %s in probe %s is not loaded.\n",
			ftr_progname, where, mod, pr->text);
		return 1;
	}
	if (pglob_kernel_has(session_tracefs(e->s)->path, mod, f) ||
	    kallsyms_find(f, &a) != -ENOENT)
		return 0;
	probe_missing_why(mod, f, why, sizeof(why));
	fprintf(stderr, "%s: %s: WARNING: %s is not traceable (either non-existing, inlined, or "
		"marked as \"notrace\"); attaching to it will likely fail\n"
		"%s: %s: ERROR: No matches for %s %s.\n"
		"%s: note: cannot probe '%s': %s\n", ftr_progname, where, f, ftr_progname, where,
		pr->pv == PV_KPROBE ? "kprobe" : "kretprobe", target, ftr_progname, f, why);
	return 1;
}

int dynprobe_zero_size(const struct engine *e, const struct lang_probe *pr)
{
	const char *arch = e->feat.arch[0] ? arch_normalise(e->feat.arch) : arch_name();
	char spec[PATH_MAX + 600], path[PATH_MAX], why[1024];
	const struct elfsym_sym *sym;
	struct probe_error perr;
	struct probe_spec p;
	struct elfsym *el;
	size_t nmatch;
	int ret = 0;

	if ((pr->pv != PV_UPROBE && pr->pv != PV_URETPROBE) || pr->usdt)
		return 0;
	canonical(pr, spec, sizeof(spec));
	/* (a wildcard, a bad spec, a file not there: said where they are met) */
	if (pglob_is_glob(strrchr(spec, ':')) || probe_parse(spec, &p, &perr) < 0 || p.has_addr ||
	    p.offset || probe_resolve_path(p.path, arch, path, sizeof(path), why, sizeof(why)) ||
	    elfsym_open(path, &el, why, sizeof(why)))
		return 0;
	if (elfsym_find(el, p.symbol, &sym, &nmatch) == 0 && sym->size == 0) {
		fprintf(stderr, "ERROR: Could not determine boundary for %s (symbol has size 0).\n"
			"Use --unsafe to force attachment. WARNING: This option could lead "
			"to data corruption in the target process.\n", p.symbol);
		ret = 1;
	}
	elfsym_close(el);
	return ret;
}

int dynprobe_add(struct engine *e, const struct lang_probe *pr, bool optional, const char *fields,
		 const struct probe_arg *extra, const struct probe_arg *fallback, int nextra,
		 char ***names, struct lang_err *err)
{
	cur_extra = extra;
	cur_fallback = fallback;
	cur_nextra = nextra;
	cur_fprobe = pr->btf_func;
	char spec[PATH_MAX + 600], text[PATH_MAX + 2048];
	struct probe_error perr;
	const char *place;
	int n = 0, ret;

	*names = NULL;
	err->msg[0] = '\0';
	if (pr->usdt)
		return add_usdt(e, pr, fields, names, err);
	canonical(pr, spec, sizeof(spec));
	place = strchr(spec, ':') + 1;
	if (pr->pv == PV_UPROBE || pr->pv == PV_URETPROBE ? pglob_is_glob(strrchr(place, ':') ?
								  strrchr(place, ':') : place) :
	    pglob_is_glob(place))
		return add_glob(e, pr, optional, spec, fields, names, err);

	/* A named kernel function this kernel lacks, in a clause of several
	 * probes (biolatency's blk_account_io_start, __blk_account_io_start):
	 * the others still run. */
	if (optional && e->s && (pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) &&
	    e->feat.f[F_KPROBE].yes && !strchr(place, '+')) {
		char mod[128] = "";
		const char *fn = strrchr(place, ':');

		if (fn)
			snprintf(mod, sizeof(mod), "%.*s", (int)(fn - place), place);
		if (!pglob_kernel_has(session_tracefs(e->s)->path, mod, fn ? fn + 1 : place)) {
			const char *f = fn ? fn + 1 : place;
			char why[512];
			uint64_t a;

			if (kallsyms_find(f, &a) == -ENOENT) {
				probe_missing_why(mod, f, why, sizeof(why));
				fprintf(stderr, "ftr: note: '%s': cannot probe '%s': %s: skipped\n",
					pr->text, f, why);
			} else {
				fprintf(stderr, "ftr: note: '%s': '%s' is not a probeable function "
					"of this kernel: skipped\n", pr->text, f);
			}
			return 0;
		}
	}
	if (!optional && e->s && (pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) &&
	    !pr->btf_func && e->feat.f[F_KPROBE].yes && !strchr(place, '+') &&
	    refuse_absent(e, pr, place)) {
		err->msg[0] = '\0';	/* printed */
		return -ENOENT;
	}
	snprintf(text, sizeof(text), "%s%s", spec, fields);
	ret = add_one(e, text, false, &perr);
	/* Over a recording: a probe its recorder skipped (above) is not in it. */
	if (ret == -ENOENT && optional && e->o.file_tep)
		return 0;
	if (ret == -EINVAL && perr.msg[0]) {
		snprintf(err->msg, sizeof(err->msg), "%s", perr.msg);
		err->line = pr->line;
		err->col = pr->col + (perr.pos > 0 && perr.pos < (int)strlen(pr->text) ? perr.pos : 0);
		return ret;
	}
	if (ret < 0)
		return ret;
	dynprobe_name(pr->text, text, sizeof(text));
	ret = push_name(names, &n, text);
	return ret ? ret : n;
}

int dynprobe_exists(struct engine *e, const struct lang_probe *pr)
{
	char spec[PATH_MAX + 600], place[PATH_MAX + 64], why[1024], *rest, *fn;
	const char *tdir = e->s ? session_tracefs(e->s)->path : NULL;
	struct pglob g = { 0 };
	int ret;

	if (!tdir || pr->usdt)
		return 1;	/* over a recording, usdt: as before */
	if (pr->pv == PV_TRACEPOINT) {
		struct evlist l = { 0 };

		ret = evsel_resolve(tdir, pr->target, &l, why, sizeof(why));
		evlist_free(&l);
		return ret == -ENOENT ? 0 : ret < 0 ? ret : 1;
	}
	if (pr->pv != PV_KPROBE && pr->pv != PV_KRETPROBE && pr->pv != PV_UPROBE &&
	    pr->pv != PV_URETPROBE)
		return 1;
	if ((pr->pv == PV_KPROBE || pr->pv == PV_KRETPROBE) && !e->feat.f[F_KPROBE].yes)
		return 0;	/* nothing of the kernel's can be probed */
	canonical(pr, spec, sizeof(spec));
	rest = strchr(spec, ':') + 1;
	fn = strrchr(rest, ':');
	if (fn)
		*fn++ = '\0';
	else
		fn = rest;
	/* an offset or an address: the kernel's answer, as before */
	if (strchr(fn, '+') || (*fn >= '0' && *fn <= '9'))
		return 1;
	if (pr->pv == PV_UPROBE || pr->pv == PV_URETPROBE) {
		const char *arch = e->feat.arch[0] ? arch_normalise(e->feat.arch) : arch_name();

		if (fn == rest || probe_resolve_path(rest, arch, place, sizeof(place), why,
						     sizeof(why)))
			return fn == rest ? 1 : 0;
		ret = pglob_user(place, fn, &g, why, sizeof(why));
	} else {
		if (!pglob_is_glob(fn))
			return pglob_kernel_has(tdir, fn == rest ? "" : rest, fn);
		ret = pglob_kernel(tdir, fn == rest ? "" : rest, fn, &g, why, sizeof(why));
	}
	ret = ret ? 0 : g.n > 0;
	pglob_free(&g);
	return ret;
}
