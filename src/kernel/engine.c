// SPDX-License-Identifier: GPL-2.0-or-later
/* The event engine: see engine.h.  The lifecycle is rtla's: configure the
 * instance with tracing off, enable, open the buffers, start, read, stop,
 * drain, undo. */
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/arch.h"
#include "kernel/comm.h"
#include "kernel/engine.h"
#include "kernel/ftrace.h"
#include "kernel/evsel.h"
#include "filter/expr.h"
#include "filter/filters.h"
#include "kernel/formats.h"
#include "kernel/kallsyms.h"
#include "report/output.h"
#include "ftr.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "kernel/stream.h"

bool engine_is_probe_spec(const char *s)
{
	static const char *const prefixes[] = {
		"kprobe:", "k:", "kretprobe:", "kr:", "uprobe:", "u:", "uretprobe:", "ur:",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(s, prefixes[i]))
			return true;
	return false;
}

bool engine_is_fetch_word(const char *w)
{
	size_t n = strcspn(w, ":");

	if (w[0] == '-' || engine_is_probe_spec(w))
		return false;
	if (strchr(w, '='))
		return true;
	if ((n == 6 && !strncmp(w, "retval", 6)) || (n == 4 && !strncmp(w, "comm", 4)))
		return true;
	if (n > 3 && !strncmp(w, "arg", 3) && strspn(w + 3, "0123456789") == n - 3)
		return true;
	return false;
}

uint64_t engine_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

const char *engine_comm(struct engine *e, int tid)
{
	return comm_lookup(e->comms, tid);
}

const uint64_t *engine_kstack(const struct engine *e, int *n)
{
	*n = e->cur_nstack;
	return e->cur_stack;
}

const uint64_t *engine_ustack(const struct engine *e, int *n, int *tgid)
{
	*n = e->cur_nustack;
	*tgid = e->cur_utgid;
	return e->cur_ustack;
}

int engine_open(struct engine *e, const struct engine_opts *o)
{
	memset(e, 0, sizeof(*e));
	e->o = *o;
	e->child = (struct child)CHILD_INIT;
	e->marker_fd = -1;
	if (o->emit_sh)
		e->o.explain = true;
	e->sw.fd = -1;
	/* uprobe:libc:F with -p PID: the library that process maps. */
	probe_lib_pid(o->pid);
	if (o->no_tracefs && !o->emit_sh) {
		features_probe(&e->feat, NULL);
		/* Names from /proc (and the sampler's records) alone. */
		e->comms = comm_cache_new(NULL);
		if (!e->comms)
			return -ENOMEM;
		return o->explain ? 0 : sigwatch_open(&e->sw, true);
	}
	if (session_open(&e->s, o->emit_sh ? SESSION_EMIT_SH : o->explain ? SESSION_DRY_RUN : 0) < 0)
		return -EIO;
	features_probe(&e->feat, NULL);
	if (e->feat.tracing_locked) {
		ftr_err("kernel lockdown forbids tracing: tracefs at '%s' is empty "
			"(see 'ftr doctor')", e->feat.tfs.path);
		return -EACCES;
	}
	/* Fail early (permissions, tracefs) before any work; a plan is
	 * printed before its writes, so --explain makes the instance lazily. */
	return e->o.explain ? 0 : session_instance_ready(e->s);
}

int engine_open_offline(struct engine *e, const struct engine_opts *o, const char *tdir)
{
	memset(e, 0, sizeof(*e));
	e->o = *o;
	e->o.user_filter = true;
	e->child = (struct child)CHILD_INIT;
	e->marker_fd = -1;
	e->sw.fd = -1;
	e->tdir = tdir;
	e->tep = o->file_tep;
	return 0;
}


static const char *tdir_of(struct engine *e)
{
	return e->s ? session_tracefs(e->s)->path : e->tdir;
}

static struct eng_event *add_event(struct engine *e, const char *sys, const char *name,
				   const char *filter)
{
	struct eng_event *v;

	for (int i = 0; i < e->nev; i++) {
		if (strcmp(e->ev[i].sys, sys) || strcmp(e->ev[i].name, name))
			continue;
		/* Named twice (two globs): the later filter wins. */
		if (filter)
			e->ev[i].filter_text = filter;
		return &e->ev[i];
	}
	v = realloc(e->ev, (e->nev + 1) * sizeof(*v));
	if (!v)
		return NULL;
	e->ev = v;
	v = &e->ev[e->nev];
	memset(v, 0, sizeof(*v));
	v->idx = e->nev++;
	v->sys = strdup(sys);
	v->name = strdup(name);
	v->filter_text = filter;
	return v->sys && v->name ? v : NULL;
}

#ifndef FTR_NO_TRACECMD
/* A recording's events matching spec, the way evsel_resolve matches
 * tracefs's. */
static int resolve_in_file(struct engine *e, const char *spec, const char *filter)
{
	struct tep_event **evs = tep_list_events(e->tep, TEP_EVENT_SORT_SYSTEM);
	char sys[256], ev[256];
	int n = 0;

	if (evsel_split(spec, sys, sizeof(sys), ev, sizeof(ev)) < 0) {
		ftr_err("bad event '%s': SYSTEM:EVENT", spec);
		return -EINVAL;
	}
	for (int i = 0; evs && evs[i]; i++) {
		if (fnmatch(sys, evs[i]->system, 0) || fnmatch(ev, evs[i]->name, 0))
			continue;
		if (!add_event(e, evs[i]->system, evs[i]->name, filter))
			return -ENOMEM;
		n++;
	}
	if (!n) {
		ftr_err("no event '%s' in the recording (see 'ftr report FILE' without events)",
			spec);
		return -ENOENT;
	}
	return n;
}
#endif

int engine_add_spec(struct engine *e, const char *spec, const char *filter)
{
	struct evlist l = { 0 };
	char err[512];
	int ret;

#ifndef FTR_NO_TRACECMD
	if (e->o.file_tep)
		return resolve_in_file(e, spec, filter);
#endif
	ret = evsel_resolve(tdir_of(e), spec, &l, err, sizeof(err));
	if (ret < 0) {
		ftr_err("%s", err);
		return ret;
	}
	for (size_t j = 0; j < l.n; j++) {
		if (!add_event(e, l.v[j].sys, l.v[j].name, filter)) {
			ret = -ENOMEM;
			break;
		}
	}
	evlist_free(&l);
	return ret;
}

int engine_raw_filter(struct engine *e, const char *raw)
{
	for (int i = 0; i < e->nev; i++)
		if (!e->ev[i].raw_filter)
			e->ev[i].raw_filter = raw;
	return 0;
}

static int add_made(struct engine *e, const struct probe *made, const char *filter,
		    struct eng_event **out)
{
	struct eng_event *v = add_event(e, made->system, made->event, filter);

	if (!v)
		return -ENOMEM;
	free(v->fetchargs);
	v->fetchargs = strdup(made->fetchargs);
	if (probe_kind_is_user(made->kind) && !v->upath) {
		const char *c = strrchr(made->place, ':');

		/* "/path:0xOFF", "/path:0xOFF(0xREF)" */
		v->upath = c ? strndup(made->place, (size_t)(c - made->place)) : NULL;
		v->uoff = c ? strtoull(c + 1, NULL, 16) : 0;
	}
	if (out)
		*out = v;
	return v->fetchargs ? 0 : -ENOMEM;
}

#ifndef FTR_NO_TRACECMD
/* Over a recording: the probe ftr record made for p is the event of the
 * name this process gives p next, in a group of ftr's ("ftr_<pid>"). */
static int add_recorded(struct engine *e, const struct probe_spec *p, const char *what,
			const char *filter, struct eng_event **out)
{
	struct tep_event **evs = tep_list_events(e->tep, TEP_EVENT_SORT_SYSTEM);
	char name[PROBE_NAME_MAX];
	struct eng_event *v;

	if (probe_name_next(p, false, name, sizeof(name)) < 0)
		return -ENOSPC;
	for (int i = 0; evs && evs[i]; i++) {
		if (!str_has_prefix(evs[i]->system, "ftr_") || strcmp(evs[i]->name, name))
			continue;
		v = add_event(e, evs[i]->system, name, filter);
		if (!v)
			return -ENOMEM;
		probe_name_next(p, true, name, sizeof(name));
		if (out)
			*out = v;
		return 0;
	}
	ftr_err("'%s' is not in the recording (no event 'ftr_*:%s'): record the program's "
		"probes with 'ftr record -e PROGRAM'", what, name);
	return -ENOENT;
}
#endif

int engine_add_eprobe(struct engine *e, const char *sys, const char *ev, const char *fetchargs,
		      struct eng_event **out)
{
	struct probe made;
	int ret;

#ifndef FTR_NO_TRACECMD
	if (e->o.file_tep) {
		struct probe_spec named = { .kind = PROBE_KPROBE };
		char what[300];

		snprintf(named.symbol, sizeof(named.symbol), "%s", ev);
		snprintf(what, sizeof(what), "eprobe:%s:%s", sys, ev);
		return add_recorded(e, &named, what, NULL, out);
	}
#endif
	ret = probe_create_eprobe(e->s, sys, ev, fetchargs, &made);
	if (ret >= 0)
		ret = add_made(e, &made, NULL, out);
	if (ret >= 0 && out && *out)
		(*out)->oldest_first = true;	/* an eprobe */
	return ret;
}

int engine_add_probe(struct engine *e, const struct probe_spec *p, const char *filter,
		     struct eng_event **out)
{
	struct probe made;
	int ret;

#ifndef FTR_NO_TRACECMD
	if (e->o.file_tep) {
		char what[PATH_MAX + 1024];

		snprintf(what, sizeof(what), "%s:%s%s%s", probe_kind_name(p->kind),
			 probe_kind_is_user(p->kind) ? p->path : p->module,
			 probe_kind_is_user(p->kind) || p->module[0] ? ":" : "", p->symbol);
		return add_recorded(e, p, what, filter, out);
	}
#endif
	ret = probe_create(e->s, &e->feat, p, &made);
	if (ret < 0)
		return ret;
	return add_made(e, &made, filter, out);
}

/*
 * Under --explain a probe is not created, so it has no format file: make
 * the one the kernel would, from its fields, so that the program can still
 * be checked and planned.  Kprobe/uprobe events start with the common
 * fields and __probe_ip; each fetcharg is a field of its type (a string is
 * a __data_loc).
 */
static struct tep_event *explain_format(struct engine *e, struct eng_event *v)
{
	char *buf = NULL, *args, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int off = 16;
	struct tep_event *ev = NULL;

	if (!f)
		return NULL;
	fprintf(f, "name: %s\nID: %d\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		   "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n",
		v->name, 60000 + v->idx);
	args = strdup(v->fetchargs ? v->fetchargs : "");
	for (char *a = args ? strtok_r(args, " ", &save) : NULL; a; a = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(a, '='), *type = strrchr(a, ':');
		bool sgn = type && type[1] == 's' && type[2] != 't';

		if (!eq)
			continue;
		*eq = '\0';
		if (type && (!strcmp(type, ":string") || !strcmp(type, ":ustring"))) {
			fprintf(f, "\tfield:__data_loc char[] %s;\toffset:%d;\tsize:4;\tsigned:0;\n",
				a, off);
			off += 4;
		} else if (type && strchr(type, '[')) {
			/* u8[64]: an array of N elements of the base's size */
			int bits = atoi(type + 2), n = atoi(strchr(type, '[') + 1);
			int size = (bits >= 8 ? bits / 8 : 1) * (n > 0 ? n : 1);

			fprintf(f, "\tfield:%.*s %s[%d];\toffset:%d;\tsize:%d;\tsigned:%d;\n",
				(int)(strchr(type, '[') - type - 1), type + 1, a, n, off, size, sgn);
			off += size;
		} else {
			fprintf(f, "\tfield:%s %s;\toffset:%d;\tsize:8;\tsigned:%d;\n",
				sgn ? "s64" : "u64", a, off, sgn);
			off += 8;
		}
	}
	free(args);
	fprintf(f, "\nprint fmt: \"(%%lx)\", REC->__probe_ip\n");
	fclose(f);
	if (buf && formats_parse(e->tep, buf, len, v->sys) == 0)
		ev = tep_find_event_by_name(e->tep, v->sys, v->name);
	free(buf);
	return ev;
}

static const char *file_comm(int pid, void *tep)
{
	return tep_is_pid_registered(tep, pid) ? tep_data_comm_from_pid(tep, pid) : NULL;
}

struct tep_event *engine_format(struct engine *e, const char *sys, const char *name)
{
	if (!e->tep || e->o.file_tep)
		return e->tep ? tep_find_event_by_name(e->tep, sys, name) : NULL;
	return formats_add(e->tep, tdir_of(e), sys, name);
}

int engine_system_count(struct engine *e, const char *sys, const char *prefix)
{
	char **evs;
	int n = 0;

	if (e->o.file_tep)
		return -ENOENT;
	evs = tracefs_system_events(tdir_of(e), sys);
	if (!evs)
		return -ENOENT;
	for (int i = 0; evs[i]; i++)
		n += str_has_prefix(evs[i], prefix);
	tracefs_list_free(evs);
	return n;
}

/* ---- one place's probes in the program's order ------------------------------ */

/* A dynamic event of the session, as dynamic_events shows it.  (The lines
 * are read here, not through tracefs_dynevent_get_all: libtracefs 1.6 has
 * no fprobe type, and the line is what session_dynevent_renew writes.) */
struct pdef {
	char kind;		/* 'p' kprobe, 'f' fprobe, 'F' fprobe's return */
	char *place;		/* "vfs_write", "vfs_write%return" */
	const char *def;	/* the whole line */
	const char *name;	/* its event: after the '/' */
	size_t nlen;
	int idx;		/* the engine's event; the line's, until looked up */
};

static int pdef_cmp(const void *a, const void *b)
{
	const struct pdef *x = a, *y = b;
	int c = x->kind - y->kind;

	if (!c)
		c = strcmp(x->place, y->place);
	return c ? c : x->idx - y->idx;
}

/* The session's kprobe or fprobe that line shows, as a pdef (idx: n);
 * false when it is none. */
static bool pdef_parse(struct engine *e, char *line, int n, struct pdef *d)
{
	const char *grp = session_name(e->s), *c = strchr(line, ':'), *sp;
	size_t gl = strlen(grp);

	if (!c || strncmp(c + 1, grp, gl) || c[1 + gl] != '/' || !(sp = strchr(c, ' ')))
		return false;
	/* Returns (r), eprobes (e), uprobes (p:, at a /path): see order_places.
	 * An address shows as a hashed %p: not a definition to write again. */
	if ((line[0] != 'p' && line[0] != 'f') || sp[1] == '/' || !strncmp(sp + 1, "0x", 2))
		return false;
	d->def = line;
	d->name = c + 2 + gl;
	d->nlen = (size_t)(sp - d->name);
	d->place = strndup(sp + 1, strcspn(sp + 1, " "));
	d->kind = line[0] == 'f' && d->place && str_has_suffix(d->place, "%return") ? 'F' : line[0];
	d->idx = n;
	return d->place != NULL;
}

/* The engine's event d shows, -1 when none (or a uprobe). */
static int pdef_event(struct engine *e, const struct pdef *d)
{
	const char *grp = session_name(e->s);

	for (int i = 0; i < e->nev; i++)
		if (!strcmp(e->ev[i].sys, grp) && strlen(e->ev[i].name) == d->nlen &&
		    !strncmp(e->ev[i].name, d->name, d->nlen))
			return e->ev[i].upath ? -1 : i;
	return -1;
}

/*
 * Two clauses on one place run in the program's order in bpftrace.  The
 * kernel calls the kprobe events at one address newest created first
 * (register_aggr_kprobe adds a kprobe at the head of the address's list,
 * aggr_pre_handler walks it from there), and the fprobe events of one
 * function too (up to 6.13 each is an ftrace_ops, added at the head of
 * ftrace_ops_list; from 6.14 a node added before the function's first),
 * whatever order they are enabled in: both are registered when created.
 * The program's probes were created in its order; so every one but the
 * last of a place is created again, from the last but one back to the
 * first, which ends the newest and is called first.
 *
 * Return probes are left as they are: their handlers run at the return
 * in the reverse order of their entries' (kretprobes and fprobes up to
 * 6.13: one rethook node pushed per probe on the task's stack, popped last
 * first), the program's order.  (Fprobes on the function-graph tracer,
 * 6.14+, run the returns in the entries' order, by their source: there
 * the later clause would come first.  No row of the matrix has them, and
 * telling them apart costs a read of /proc/kallsyms, which in an emulated
 * guest delays the attach past bpftrace's tests' patience: not done.)
 * Uprobes and eprobes
 * attach when enabled: engine_prepare enables them in the right order.
 * The rest is ftr's own order: one tracepoint event feeds all its clauses,
 * and one sampler all profile/software/hardware clauses, each handed the
 * record in clause order; and the records of one CPU are read in the
 * order its ring buffer holds them (stream_drain merges CPUs by time
 * only), so a clause never overtakes another's record of the same hit.
 */
static int order_places(struct engine *e)
{
	size_t len = 0, n = 0, cap = 0;
	struct pdef *d = NULL;
	char path[PATH_MAX + 32], *text, *line, *save = NULL;
	int kprobes = 0, ret = 0;

	for (int i = 0; i < e->nev; i++)
		kprobes += e->ev[i].fetchargs && !e->ev[i].upath;
	if (kprobes < 2 || !e->s || e->o.explain || session_dry_run(e->s))
		return 0;
	snprintf(path, sizeof(path), "%s/dynamic_events", session_tracefs(e->s)->path);
	text = read_file(path, &len);
	if (!text) {
		/* Before 4.20 (no dynamic_events): the kprobes' own file, whose
		 * lines are the same. */
		snprintf(path, sizeof(path), "%s/kprobe_events", session_tracefs(e->s)->path);
		text = read_file(path, &len);
	}
	if (!text)
		return 0;	/* no dynamic events: nothing to order */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n == cap) {
			struct pdef *nd = realloc(d, (cap = cap ? 2 * cap : 16) * sizeof(*d));

			if (!nd) {
				ret = -ENOMEM;
				goto out;
			}
			d = nd;
		}
		n += pdef_parse(e, line, (int)n, &d[n]);
	}
	/* By place; the events of a place (few) looked up, in the program's
	 * order. */
	qsort(d, n, sizeof(*d), pdef_cmp);
	for (size_t i = 0, j; i < n && !ret; i = j) {
		size_t m = i;

		for (j = i + 1; j < n && d[j].kind == d[i].kind && !strcmp(d[j].place, d[i].place);)
			j++;
		if (j - i < 2 || d[i].kind == 'F')
			continue;
		for (size_t k = i; k < j; k++)
			if ((d[k].idx = pdef_event(e, &d[k])) >= 0) {
				struct pdef t = d[m];	/* each place freed once */

				d[m++] = d[k];
				d[k] = t;
			}
		qsort(d + i, m - i, sizeof(*d), pdef_cmp);
		for (size_t k = m - i > 1 ? m - 1 : i; k-- > i && !ret;)
			ret = session_dynevent_renew(e->s, d[k].def);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(d[i].place);
	free(d);
	free(text);
	return ret < 0 ? -EIO : 0;
}

int engine_load_formats(struct engine *e)
{
	if (e->by_id || (e->tep && !e->o.file_tep))
		return 0;
	const char *tdir = tdir_of(e);
	int ret = order_places(e);

	if (ret < 0)
		return ret;

	if (!e->tep)
		e->tep = formats_new(tdir);
	if (!e->tep) {
		ftr_err("cannot read '%s/events/header_page': %s", tdir,
			strerror(errno ? errno : EIO));
		return -EIO;
	}
	for (int i = 0; i < e->nev; i++) {
		struct eng_event *v = &e->ev[i];

		v->ev = e->o.file_tep ? tep_find_event_by_name(e->tep, v->sys, v->name) :
					formats_add(e->tep, tdir, v->sys, v->name);
		if (!v->ev && e->o.explain && v->fetchargs)
			v->ev = explain_format(e, v);
		if (!v->ev) {
			ftr_err("cannot read the format of '%s:%s'", v->sys, v->name);
			return -ENOENT;
		}
		if (v->ev->id > e->max_id)
			e->max_id = v->ev->id;
	}
	e->by_id = calloc(e->max_id + 1, sizeof(*e->by_id));
	if (!e->by_id)
		return -ENOMEM;
	for (int i = 0; i < e->nev; i++)
		e->by_id[e->ev[i].ev->id] = &e->ev[i];
	e->type_off = -1;
	if (e->nev) {
		struct tep_format_field *t = tep_find_common_field(e->ev[0].ev, "common_type");

		if (t && t->size == 2)
			e->type_off = t->offset;
	}
	e->comms = comm_cache_new(tdir);
	if (e->comms && e->o.file_tep)
		comm_cache_offline(e->comms, file_comm, e->tep);
	return e->comms ? 0 : -ENOMEM;
}

/* Another clause's functions join the one set_ftrace_filter the tracer has:
 * one filter, the same events. */
static int fn_filter_add(struct engine *e, const char *filter)
{
	char *more;

	if (!e->fn_filter) {
		e->fn_filter = strdup(filter);
		return e->fn_filter ? 0 : -ENOMEM;
	}
	if (asprintf(&more, "%s %s", e->fn_filter, filter) < 0)
		return -ENOMEM;
	free(e->fn_filter);
	e->fn_filter = more;
	return 0;
}

int engine_add_function(struct engine *e, const char *filter, size_t max_funcs,
			struct eng_event **out)
{
	struct eng_event *v;
	char why[320];

	if (e->s && !e->o.explain && !e->fn_filter && ftrace_usable(e->s, false, why, sizeof(why))) {
		ftr_err("%s (see 'ftr doctor')", why);
		return -ENOTSUP;
	}
	if (e->fn_graph)
		return -EINVAL;
	v = add_event(e, "ftrace", "function", NULL);
	if (fn_filter_add(e, filter) < 0 || !v)
		return -ENOMEM;
	v->ftrace_fn = true;
	e->fn_max = max_funcs;
	if (out)
		*out = v;
	return 0;
}

/* Does function_graph run in an instance here (6.11)?  Under --explain,
 * which makes none, told by the kernel's version. */
bool engine_graph_in_instance(struct engine *e)
{
	struct utsname u;
	int maj = 0, min = 0;

	if (!e->o.explain)
		return ftrace_instance_has(e->s, "function_graph");
	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 11);
}

int engine_add_graph(struct engine *e, const char *filter, size_t max_funcs,
		     struct eng_event **entry, struct eng_event **exit)
{
	char why[320];
	int idx, err;

	if (e->fn_filter && !e->fn_graph)
		return -EINVAL;
	if (e->s && !e->fn_graph && !engine_graph_in_instance(e) && e->o.global_tracer) {
		/* Before 6.11: the top level's, taken as the user allowed. */
		err = e->o.explain ? 0 : ftrace_top_usable(e->s, why, sizeof(why));
		if (err) {
			ftr_err("%s", why);
			return err;
		}
		session_use_top(e->s);
	} else if (e->s && !e->o.explain && !e->fn_graph &&
		   ftrace_usable(e->s, true, why, sizeof(why))) {
		ftr_err("%s (see 'ftr doctor')", why);
		return -ENOTSUP;
	}
	*entry = add_event(e, "ftrace", "funcgraph_entry", NULL);
	idx = *entry ? (*entry)->idx : -1;
	*exit = add_event(e, "ftrace", "funcgraph_exit", NULL);	/* may move e->ev */
	if (idx < 0 || !*exit)
		return -ENOMEM;
	if (fn_filter_add(e, filter) < 0)
		return -ENOMEM;
	*entry = &e->ev[idx];
	(*entry)->ftrace_fn = (*exit)->ftrace_fn = true;
	e->fn_graph = true;
	e->fn_max = max_funcs;
	return 0;
}

/* The function tracer, once the pids are known: filter read back and
 * bounded before it is enabled (kernel/ftrace.c). */
static int arm_functions(struct engine *e, const char *pids, const char *notrace)
{
	struct ftrace_opts o = { .filter = e->fn_filter, .pids = pids, .notrace_pids = notrace,
				 .max_funcs = e->fn_max, .explain = e->o.explain,
				 .tracer = e->fn_graph ? "function_graph" : "function" };
	char why[1024];
	int err;

	for (int i = 0; i < e->nev; i++)
		o.stack |= e->ev[i].ftrace_fn && e->ev[i].want_kstack && e->kstacks;
	err = ftrace_arm(e->s, &o, &e->fn_count, why, sizeof(why));
	if (err && why[0])
		ftr_err("function tracer: %s", why);
	return err;
}

/* Parse, check and place each filter: in the kernel when it can take it,
 * in user space otherwise (or when asked). */
static int setup_filters(struct engine *e)
{
	for (int i = 0; i < e->nev; i++) {
		struct eng_event *v = &e->ev[i];
		struct expr_err err = { .pos = -1 };
		char why[256], ktext[4096];

		char ferr[256], *text;

		if (v->raw_filter) {
			/* The user's own kernel filter: the kernel judges it. */
			if (!e->s || session_event_write(e->s, v->sys, v->name, "filter", v->raw_filter,
						NULL) < 0)
				return -EINVAL;
			continue;
		}
		if (!v->filter_text)
			continue;
		/* @name: a named filter of the library (filters/NAME.ftr). */
		text = filters_expand(v->filter_text, false, ferr, sizeof(ferr));
		if (!text) {
			ftr_err("%s", ferr);
			return -EINVAL;
		}
		v->filter = expr_parse(text, &err);
		if (!v->filter || expr_bind(v->filter, v->ev, &err) < 0) {
			ftr_err("bad filter for '%s:%s': %s", v->sys, v->name, err.msg);
			if (err.pos >= 0)
				fprintf(stderr, "  %s\n  %*s^\n", text, err.pos, "");
			free(text);
			return -EINVAL;
		}
		free(text);
		/* ftrace:function has no filter file (trace_export.c: ftrace's
		 * own events are TRACE_EVENT_FL_IGNORE_ENABLE). */
		if (e->o.user_filter || v->ftrace_fn) {
			v->user_filter = true;
			continue;
		}
		if (!expr_kernel_ok(v->filter, why, sizeof(why)) ||
		    expr_to_kernel(v->filter, ktext, sizeof(ktext)) < 0) {
			ftr_info("filter for '%s:%s' runs in user space: %s", v->sys, v->name, why);
			v->user_filter = true;
			continue;
		}
		/* Before enabling: an unfiltered burst must never get in. */
		if (session_event_write(e->s, v->sys, v->name, "filter", ktext, NULL) < 0)
			return -EINVAL;
	}
	return 0;
}

/* All threads of pid, so that -p follows a multi-threaded process. */
static int pid_threads(int pid, char *buf, size_t len)
{
	int *tids, n, err = proc_threads(pid, &tids, &n);
	size_t off = 0;

	if (err)
		return err;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%d", i ? " " : "", tids[i]);
	free(tids);
	return off < len ? 0 : -ENOSPC;
}

/*
 * The per-CPU buffer when the user names none.  The kernel's 1.4 MB holds
 * about 12 ms of a busy syscall tracepoint: one scheduling hiccup of the
 * reader and events are lost.  Take 1/64 of memory, at most 32 MB in all,
 * shared by the CPUs, between 1.4 MB and 8 MB each.
 */
static unsigned long default_buffer_kb(long ncpu)
{
	char *mi = read_file("/proc/meminfo", NULL);
	unsigned long mem_kb = 0, kb;
	char *p = mi ? strstr(mi, "MemTotal:") : NULL;

	if (p)
		mem_kb = strtoul(p + 9, NULL, 10);
	free(mi);
	kb = mem_kb / 64;
	if (kb > 32768)
		kb = 32768;
	kb /= ncpu > 0 ? (unsigned long)ncpu : 1;
	if (kb < 1408)
		kb = 1408;
	if (kb > 8192)
		kb = 8192;
	return kb;
}

/*
 * Sub-buffers of up to 64 KB where the kernel lets an instance choose (6.8
 * and later; before, they are pages).  A read of trace_pipe_raw returns one
 * sub-buffer, and a busy trace is read a sub-buffer at a time: 16 times
 * fewer reads, each taking the buffer's lock once.  The buffer keeps at
 * least 8 of them, so that a small --buffer-size stays as small as asked
 * (the kernel rounds a buffer up to whole sub-buffers).  Written before
 * buffer_size_kb: a change reallocates the buffer.
 */
static void set_subbuf_size(struct engine *e)
{
	unsigned long page_kb = (unsigned long)getpagesize() / 1024, kb = 64;
	unsigned long buf_kb = strtoul(e->o.bufsz, NULL, 10);
	char val[sizeof("18446744073709551615")];	/* any unsigned long */
	int err;

	if (!tracefs_file_exists(session_instance(e->s), "buffer_subbuf_size_kb"))
		return;
	while (kb > page_kb && kb * 8 > buf_kb)
		kb /= 2;
	if (kb <= page_kb)
		return;
	snprintf(val, sizeof(val), "%lu", kb);
	/* A refusal (ENOMEM: they are blocks of 2^4 pages, which a fragmented
	 * memory may not have) leaves the page-sized ones, which work. */
	err = session_try_write(e->s, "buffer_subbuf_size_kb", val);
	if (err)
		ftr_info("kept page-sized sub-buffers: writing '%s' to buffer_subbuf_size_kb: %s",
			 val, strerror(-err));
}

#define MARK_CHILD "ftr-pid child"
#define MARK_SELF "ftr-pid self"

/* In the child before exec; in a PID namespace it also tells the kernel's
 * pid for it (session_marker_open). */
/*
 * The kernel copies a trace_marker write without taking page faults, up to
 * 6.1 at least: text in a page this process has not touched yet (a
 * forked child's .rodata) is recorded as "<faulted>".  So the text is
 * written from a copy on the stack, which the copy itself has faulted in.
 */
static ssize_t write_marker(int fd, const char *text)
{
	char buf[32];
	size_t n = strlen(text);

	if (n + 1 > sizeof(buf))
		return -1;
	memcpy(buf, text, n);
	buf[n++] = '\n';
	return write(fd, buf, n);
}

static void child_before_exec(void *arg)
{
	struct engine *e = arg;

	session_child_signals(e->s);
	if (e->marker_fd >= 0 && write_marker(e->marker_fd, MARK_CHILD) < 0)
		_exit(127);
}

/* The pid the kernel knows this process (or, with the child, the command)
 * by: inside a PID namespace not the one getpid() says, and set_event_pid
 * and set_event_notrace_pid take the kernel's (session.h). */
static int kernel_pid(struct engine *e, bool child)
{
	int fd, pid;

	if (!session_in_pidns()) {
		if (!child)
			return getpid();
		pid = child_spawn(e->o.cmdv, &e->child, child_before_exec, e);
		return pid < 0 ? pid : e->child.pid;
	}
	fd = session_marker_open(e->s);
	if (fd < 0)
		return fd;
	if (child) {
		e->marker_fd = fd;
		pid = child_spawn(e->o.cmdv, &e->child, child_before_exec, e);
		e->marker_fd = -1;
		if (pid < 0) {
			close(fd);
			return pid;
		}
	} else if (write_marker(fd, MARK_SELF) < 0) {
		pid = -errno;
		close(fd);
		return pid;
	}
	return session_marker_pid(e->s, fd, child ? MARK_CHILD : MARK_SELF);
}

/* ---- following a process tree without event-fork -------------------------- */

static bool following(const struct engine *e, int pid)
{
	for (size_t i = 0; i < e->nfollow; i++)
		if (e->follow[i] == pid)
			return true;
	return false;
}

static int follow_add(struct engine *e, int pid)
{
	if (following(e, pid))
		return 0;
	if (e->nfollow == e->capfollow) {
		size_t cap = e->capfollow ? 2 * e->capfollow : 16;
		int *v = realloc(e->follow, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		e->follow = v;
		e->capfollow = cap;
	}
	e->follow[e->nfollow++] = pid;
	return 0;
}

/*
 * options/event-fork arrived in 4.7 (kernel/trace/trace.c, TRACE_ITER_EVENT_FORK):
 * before it, set_event_pid keeps what the listed pids do and nothing of
 * their children.  Instead, no pid list in the kernel, and sched_process_fork
 * in the instance: the stream is merged by time, and a fork is recorded by
 * its parent before the child can run, so each child is known here before
 * its first event is read (feed).  The same answer, more events read.
 */
static int follow_setup(struct engine *e, const char *pids)
{
	const char *p = pids;
	char *end;

	/* A script has no ftr reading its stream to do that. */
	if (e->o.emit_sh) {
		ftr_err("--emit-sh -p %s: this kernel has no options/event-fork (4.7), so "
			"set_event_pid would keep these threads' events and none of their "
			"children's, which ftr follows itself by reading sched_process_fork; "
			"a script cannot: run ftr without --emit-sh", pids);
		return -EOPNOTSUPP;
	}
	while (*p) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0 && follow_add(e, (int)pid) < 0)
			return -ENOMEM;
		p = end + strspn(end, " ");
	}
	e->fork_ev = formats_add(e->tep, session_tracefs(e->s)->path, "sched",
				 "sched_process_fork");
	if (!e->fork_ev && !e->o.explain) {
		ftr_err("cannot follow the children of pid %s: this kernel has no "
			"options/event-fork (4.7) and no sched:sched_process_fork to follow "
			"them by", pids);
		return -ENOENT;
	}
	if (session_event_write(e->s, "sched", "sched_process_fork", "enable", "1", "0") < 0)
		return -EIO;
	return 0;
}

/* false: the record is not of a followed task (dropped). */
static bool follow_record(struct engine *e, int id, struct tep_record *rec)
{
	unsigned long long parent, child;

	if (e->fork_ev && id == e->fork_ev->id &&
	    tep_get_field_val(NULL, e->fork_ev, "parent_pid", rec, &parent, 0) == 0 &&
	    tep_get_field_val(NULL, e->fork_ev, "child_pid", rec, &child, 0) == 0 &&
	    following(e, (int)parent) && follow_add(e, (int)child) < 0)
		ftr_warn("out of memory: a child of pid %llu is not followed", parent);
	return following(e, tep_data_pid(e->tep, rec));
}

int engine_prepare(struct engine *e)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	static char buf[32];	/* e->o.bufsz points here after return */
	bool streams = false;
	int err;

	if (e->o.no_tracefs && !e->s) {
		if (!e->o.cmdv || e->o.explain)
			return 0;
		err = child_spawn(e->o.cmdv, &e->child, sigwatch_restore, &e->sw);
		if (err < 0)
			ftr_err("cannot start '%s': %s", e->o.cmdv[0], strerror(-err));
		return err;
	}
	err = engine_load_formats(e);
	if (!err && !e->s && e->kstacks) {
		e->stack_ev = tep_find_event_by_name(e->tep, "ftrace", "kernel_stack");
		if (!e->stack_ev)
			ftr_warn("the recording has no kernel stacks (record with -k): kstack "
				 "is empty");
		e->kstacks = e->stack_ev != NULL;
	}
	if (err || !e->s)
		return err ? err : setup_filters(e);
	/* Instance settings first: a clock change resets the buffer. */
	if (e->o.clock && session_write(e->s, "trace_clock", e->o.clock, NULL) < 0)
		return -EIO;
	if (session_top(e->s)) {
		/* The top level's buffer is read beside the instance's
		 * (stream.c): the same clock in both (put back at close). */
		if (e->o.clock && session_global_write(e->s, "trace_clock", e->o.clock) < 0)
			return -EIO;
	}
	/* Events that only feed hist triggers or perf counters write nothing
	 * to the buffer: it keeps the size mkdir gave it, unless asked. */
	for (int i = 0; i < e->nev; i++)
		streams |= !e->ev[i].trigger_only;
	if (!e->o.bufsz && streams) {
		snprintf(buf, sizeof(buf), "%lu", default_buffer_kb(ncpu));
		e->o.bufsz = buf;
	}
	if (e->o.bufsz) {
		set_subbuf_size(e);
		if (session_write(e->s, "buffer_size_kb", e->o.bufsz, NULL) < 0)
			return -EIO;
		/* The top level's tracer writes to the top level's buffer, as
		 * small as 7 KB a CPU (the 6.1 guest's): sized as the
		 * instance's, put back at close. */
		if (session_top(e->s) &&
		    session_global_write(e->s, "buffer_size_kb", e->o.bufsz) < 0)
			return -EIO;
	}
	if (e->o.cpus) {
		char mask[512];

		cpumask_hex(e->o.cpus, e->o.ncpus, mask, sizeof(mask));
		if (session_write(e->s, "tracing_cpumask", mask, NULL) < 0)
			return -EIO;
	}
	err = setup_filters(e);
	if (err)
		return err;
	/* A system-wide trace leaves ftr out: its own reads, polls and
	 * writes would otherwise feed on themselves (set_event_notrace_pid,
	 * 5.8 and later). */
	char me[16] = "", pids[4096] = "";

	if (!e->o.pid && !e->o.cmdv && tracefs_file_exists(session_instance(e->s),
							   "set_event_notrace_pid")) {

		int pid = e->o.emit_sh ? 0 : e->o.explain ? getpid() : kernel_pid(e, false);

		if (pid < 0)
			return pid;
		/* A script (--emit-sh) leaves out its own shell, not ours.
		 * What it forks is left out too (event-fork follows both pid
		 * lists): the zombie session_freeze makes at the stop would
		 * otherwise be counted, its exit_group under ftr's comm. */
		snprintf(me, sizeof(me), e->o.emit_sh ? "$$" : "%d", pid);
		if (session_write(e->s, "options/event-fork", "1", NULL) < 0 ||
		    session_write(e->s, "set_event_notrace_pid", me, NULL) < 0)
			return -EIO;
	}
	if (e->o.pid || e->o.cmdv) {
		if (e->o.cmdv) {
			if (e->o.explain) {
				snprintf(pids, sizeof(pids), "$CMD_PID");
			} else {
				int pid = kernel_pid(e, true);

				if (pid < 0) {
					if (e->child.pid <= 0)
						ftr_err("cannot start '%s': %s", e->o.cmdv[0],
							strerror(-pid));
					return pid;
				}
				snprintf(pids, sizeof(pids), "%d", pid);
			}
		} else if (session_in_pidns()) {
			/* Its threads could tell their kernel pids only by writing
			 * a marker themselves. */
			ftr_err("-p %d: ftr runs in a PID namespace, where pid %d is not the "
				"kernel's pid of that process, which tracefs needs; run the "
				"command under ftr (-- CMD), or ftr in the initial PID namespace",
				e->o.pid, e->o.pid);
			return -EINVAL;
		} else if (pid_threads(e->o.pid, pids, sizeof(pids)) < 0) {
			ftr_err("cannot list the threads of pid %d: it has ended", e->o.pid);
			return -ESRCH;
		}
		/* In the kernel: only these pids, and what they fork; before
		 * 4.7, in user space (follow_setup). */
		if (!tracefs_file_exists(session_instance(e->s), "options/event-fork")) {
			err = follow_setup(e, pids);
			if (err)
				return err;
		} else if (session_write(e->s, "options/event-fork", "1", NULL) < 0 ||
			   session_write(e->s, "set_event_pid", pids, NULL) < 0) {
			return -EIO;
		}
	}
	if (e->kstacks) {
		e->stack_ev = formats_add(e->tep, session_tracefs(e->s)->path, "ftrace",
					  "kernel_stack");
		if (!e->stack_ev && !e->o.explain) {
			ftr_err("cannot read the format of 'ftrace:kernel_stack', which carries "
				"kernel stacks");
			return -ENOENT;
		}
		/* Every event of the instance gets a stack record after it; the
		 * ones no clause wants are dropped when read. */
		if (session_write(e->s, "options/stacktrace", "1", NULL) < 0)
			return -EIO;
	}
	if (e->ustacks) {
		e->ustack_ev = formats_add(e->tep, session_tracefs(e->s)->path, "ftrace",
					   "user_stack");
		if (!e->ustack_ev && !e->o.explain) {
			ftr_err("cannot read the format of 'ftrace:user_stack', which carries "
				"user stacks");
			return -ENOENT;
		}
		if (session_write(e->s, "options/userstacktrace", "1", NULL) < 0)
			return -EIO;
	}
	if (e->fn_filter && (err = arm_functions(e, pids[0] ? pids : NULL, me[0] ? me : NULL)))
		return err;
	/* Last first: the kernel calls a place's uprobes newest enabled
	 * first (a uprobe event registers its consumer when enabled, at the
	 * head of the uprobe's list, and handler_chain and the return's
	 * handle_uretprobe_chain walk it from there), so two clauses on one
	 * place run in the program's order, as bpftrace runs them.  Eprobes
	 * are the other way: enabling one appends a trigger to its
	 * tracepoint's list (enable_eprobe, list_add_tail_rcu), called oldest
	 * first: those go first first, in a pass of their own
	 * (probe.tracepoint_order).  Kprobes and fprobes are ordered by their
	 * creation, not here (order_places). */
	for (int pass = 0; pass < 2; pass++)
		for (int j = 0; j < e->nev; j++) {
			int i = pass ? e->nev - 1 - j : j;

			if (e->ev[i].trigger_only || e->ev[i].ftrace_fn ||
			    e->ev[i].oldest_first != !pass)
				continue;
			if (session_event_write(e->s, e->ev[i].sys, e->ev[i].name, "enable", "1",
						"0") < 0)
				return -EIO;
		}
	if (e->o.explain)
		return session_start(e->s);
	return stream_open(&e->st, e->s, e->tep, e->o.cpus, e->o.ncpus);
}

struct run_ctx {
	struct engine *e;
	engine_event_fn on_event;
	engine_lost_fn on_lost;
	void *arg;
	/* The look at the signals inside a drain (signal_check). */
	unsigned nrec;
	uint64_t checked_ns;
	bool final;		/* the drain after the stop */
	bool signalled;		/* a signal ended the drain, not the callback */
	int abandon_signal;	/* the signal that ended it */
};

static void lost_cb(int cpu, long long n, unsigned long long ts, void *arg)
{
	struct run_ctx *rc = arg;

	if (rc->on_lost)
		rc->on_lost(cpu, n, ts, rc->arg);
}

static const char *comm_cb(int pid, void *arg)
{
	return comm_lookup(arg, pid);
}

/* The event id of a record.  The buffers are the running kernel's, in this
 * machine's byte order: one load, where tep_data_type() costs more than
 * the rest of the record's routing. */
static inline int record_type(const struct engine *e, const struct tep_record *rec)
{
	uint16_t id;

	if (e->type_off < 0 || rec->size < e->type_off + 2)
		return tep_data_type(e->tep, (struct tep_record *)rec);
	memcpy(&id, (const char *)rec->data + e->type_off, sizeof(id));
	return id;
}

/* ---- kernel stacks -------------------------------------------------------- */

/* An event held until its stack record comes (the next record of its CPU). */
struct eng_pending {
	struct eng_event *v;
	struct tep_record rec;		/* .data: buf */
	void *buf;
	size_t cap;
	/* with user stacks too: the kernel stack waits for the user one */
	uint64_t kips[128];
	int nk;
};

static struct eng_pending *pending_of(struct engine *e, int cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if (cpu >= e->npend) {
		int n = cpu + 1 > 2 * e->npend ? cpu + 1 : 2 * e->npend;
		struct eng_pending *p = realloc(e->pend, (size_t)n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + e->npend, 0, (size_t)(n - e->npend) * sizeof(*p));
		e->pend = p;
		e->npend = n;
	}
	return &e->pend[cpu];
}

/* A ufetch uprobe's user stack, from its fields (arch.h). */
static void ustack_fetched(struct engine *e, struct eng_event *v, struct tep_record *rec)
{
	uint64_t vals[3 + 2 * ARCH_USTACK_RECS], ip = 0;
	char name[16], fetch[160], type[16];
	struct tep_format_field *f;
	int nv = 0;

	f = tep_find_field(v->ev, v->uentry || !tep_find_field(v->ev, "__probe_ret_ip") ?
			   "__probe_ip" : "__probe_ret_ip");
	if (f)
		ip = (uint64_t)field_int(f, rec);
	for (int i = 0; nv < (int)ARRAY_SIZE(vals) &&
	     !arch_ustack_fetch(arch_name(), i, name, sizeof(name), fetch, sizeof(fetch), type,
				sizeof(type)); i++) {
		f = tep_find_field(v->ev, name);
		if (!f || f->offset + f->size > rec->size)
			break;
		for (int k = 0; k * 8 < f->size && nv < (int)ARRAY_SIZE(vals); k++)
			memcpy(&vals[nv++], (char *)rec->data + f->offset + k * 8, 8);
	}
	e->cur_nustack = arch_ustack_walk(arch_name(), ip, v->uentry, vals, nv, e->ufetch_ips,
					  (int)ARRAY_SIZE(e->ufetch_ips));
	e->cur_ustack = e->ufetch_ips;
	e->cur_utgid = comm_tgid(e->comms, tep_data_pid(e->tep, rec), rec->ts);
}

static int deliver(struct run_ctx *rc, struct eng_event *v, struct tep_record *rec,
		   const uint64_t *stack, int n)
{
	struct engine *e = rc->e;
	int r;

	if (v->ufetch && v->want_ustack)
		ustack_fetched(e, v, rec);
	e->cur_stack = stack;
	e->cur_nstack = n;
	r = rc->on_event(e, v, rec, rc->arg);
	e->cur_stack = NULL;
	e->cur_nstack = 0;
	e->cur_ustack = NULL;
	e->cur_nustack = 0;
	return r;
}

/* The held event of p, with the stack (or none: its record was lost); a
 * kernel stack kept for the user one goes with it. */
static int flush_pending(struct run_ctx *rc, struct eng_pending *p, const uint64_t *stack, int n)
{
	struct eng_event *v = p->v;

	if (!v)
		return 0;
	p->v = NULL;
	if (!stack && p->nk) {
		stack = p->kips;
		n = p->nk;
	}
	p->nk = 0;
	return deliver(rc, v, &p->rec, stack, n);
}

static int hold(struct eng_pending *p, struct eng_event *v, const struct tep_record *rec)
{
	if ((size_t)rec->size > p->cap) {
		void *b = realloc(p->buf, (size_t)rec->size);

		if (!b)
			return -ENOMEM;
		p->buf = b;
		p->cap = (size_t)rec->size;
	}
	memcpy(p->buf, rec->data, (size_t)rec->size);
	p->rec = *rec;
	p->rec.data = p->buf;
	p->v = v;
	return 0;
}

/* A kernel_stack record: "int size" frames in "unsigned long caller[]",
 * which the format gives a nominal length (8) that the record exceeds. */
static int stack_record(struct run_ctx *rc, struct tep_record *rec)
{
	struct engine *e = rc->e;
	struct eng_pending *p = pending_of(e, rec->cpu);
	struct tep_format_field *fs, *fc;
	uint64_t ips[512];
	int n = 0, size;

	if (!p || !p->v)
		return 0;	/* after an event no clause wants */
	fs = tep_find_field(e->stack_ev, "size");
	fc = tep_find_field(e->stack_ev, "caller");
	if (!fs || !fc || fc->elementsize != sizeof(uint64_t) || rec->size < fc->offset)
		return flush_pending(rc, p, NULL, 0);
	size = (int)field_int(fs, rec);
	for (int i = 0; i < size && i < (int)ARRAY_SIZE(ips) &&
			fc->offset + (i + 1) * 8 <= rec->size; i++) {
		uint64_t ip;

		memcpy(&ip, (char *)rec->data + fc->offset + i * 8, 8);
		/* Older kernels end the list with ULONG_MAX. */
		if (!ip || ip == UINT64_MAX)
			break;
		ips[n++] = ip;
	}
	if (e->ustacks) {
		/* the user stack comes next */
		p->nk = n < (int)ARRAY_SIZE(p->kips) ? n : (int)ARRAY_SIZE(p->kips);
		memcpy(p->kips, ips, (size_t)p->nk * sizeof(*ips));
		return 0;
	}
	return flush_pending(rc, p, ips, n);
}

/* A user_stack record: "tgid" and "caller[8]", ended by a 0. */
static int ustack_record(struct run_ctx *rc, struct tep_record *rec)
{
	struct engine *e = rc->e;
	struct eng_pending *p = pending_of(e, rec->cpu);
	struct tep_format_field *ft, *fc, *fr;
	uint64_t ips[64];
	int n = 0;

	if (!p || !p->v)
		return 0;
	ft = tep_find_field(e->ustack_ev, "tgid");
	fc = tep_find_field(e->ustack_ev, "caller");
	if (!ft || !fc || fc->elementsize != sizeof(uint64_t))
		return flush_pending(rc, p, NULL, 0);
	for (int i = 0; i < (int)ARRAY_SIZE(ips) && fc->offset + (i + 1) * 8 <= rec->size &&
			(i + 1) * 8 <= fc->size; i++) {
		uint64_t ip;

		memcpy(&ip, (char *)rec->data + fc->offset + i * 8, 8);
		if (!ip || ip == UINT64_MAX)
			break;
		ips[n++] = ip;
	}
	/* At a function's entry, the caller the kernel's walk skips (arch.h). */
	if (p->v->uentry && (fr = tep_find_field(p->v->ev, ARCH_UENTRY_RA)) &&
	    fr->offset + fr->size <= p->rec.size)
		n = arch_ustack_splice_entry(ips, n, (int)ARRAY_SIZE(ips),
					     (uint64_t)field_int(fr, &p->rec));
	e->cur_ustack = ips;
	e->cur_nustack = n;
	e->cur_utgid = (int)field_int(ft, rec);
	return flush_pending(rc, p, NULL, 0);
}

static void flush_all_pending(struct run_ctx *rc)
{
	for (int i = 0; i < rc->e->npend; i++)
		flush_pending(rc, &rc->e->pend[i], NULL, 0);
}

static int feed(struct run_ctx *rc, struct tep_record *rec)
{
	struct engine *e = rc->e;
	int id = record_type(e, rec);
	struct eng_event *v;
	struct eng_pending *p;
	int r;

	if (e->stack_ev && id == e->stack_ev->id)
		return stack_record(rc, rec);
	if (e->ustack_ev && id == e->ustack_ev->id)
		return ustack_record(rc, rec);
	if (e->nfollow && !follow_record(e, id, rec))
		return 0;
	if (id < 0 || id > e->max_id || !(v = e->by_id[id]))
		return 0;	/* not ours (cannot happen in a private instance) */
	if (v->user_filter) {
		struct expr_ctx ctx = { .cpu = rec->cpu, .comm = comm_cb, .arg = e->comms };

		if (!expr_eval(v->filter, rec, &ctx)) {
			e->filtered_out++;
			return 0;
		}
	}
	if (!e->kstacks && !e->ustacks)
		return v->ufetch ? deliver(rc, v, rec, NULL, 0) : rc->on_event(e, v, rec, rc->arg);
	/* A held event whose stack never came (lost): without it. */
	p = pending_of(e, rec->cpu);
	if (p && (r = flush_pending(rc, p, NULL, 0)))
		return r;
	if ((v->want_kstack || (v->want_ustack && !v->ufetch)) && p)
		return hold(p, v, rec) < 0 ? -ENOMEM : 0;
	return deliver(rc, v, rec, NULL, 0);
}

int engine_feed(struct engine *e, struct tep_record *rec, engine_event_fn on_event, void *arg)
{
	struct run_ctx rc = { .e = e, .on_event = on_event, .arg = arg };

	return feed(&rc, rec);
}

void engine_feed_end(struct engine *e, engine_event_fn on_event, void *arg)
{
	struct run_ctx rc = { .e = e, .on_event = on_event, .arg = arg };

	flush_all_pending(&rc);
}

/* A stop signal, or 0: SIGCHLD only wakes the loop (the command's end is
 * reaped there, every turn). */
static int take_signal(struct engine *e)
{
	int sig;

	do
		sig = e->s ? session_pending_signal(e->s) : sigwatch_take(&e->sw);
	while (sig == SIGCHLD);
	return sig;
}

/*
 * A drain may last long: a program whose action makes more events than it
 * handles (system() on sched_switch: each command switches tasks several
 * times) never catches up, and the loop would never reach its poll of the
 * signals.  So the drain looks at them itself, every 20 ms (the clock every
 * 16 records, the signalfd only then: a read per record would cost more
 * than the record).  The first stop signal switches tracing off at once and
 * ends this drain; the last one (engine_run) then reads what was written
 * before the stop.  A signal during that last drain gives it up.
 */
static int signal_check(struct run_ctx *rc)
{
	struct engine *e = rc->e;
	uint64_t now;
	int sig;

	if (++rc->nrec & 15)
		return 0;
	now = engine_now_ns();
	if (now - rc->checked_ns < 20000000)
		return 0;
	rc->checked_ns = now;
	if (!(sig = take_signal(e)))
		return 0;
	if (!rc->final) {
		e->stop_signal = sig;
		e->stop = true;
		if (e->s)
			session_stop(e->s);
	}
	rc->signalled = true;
	rc->abandon_signal = sig;
	return 1;
}

static int on_record(struct tep_record *rec, void *arg)
{
	struct run_ctx *rc = arg;
	int r = feed(rc, rec);

	return r ? r : signal_check(rc);
}

static int on_page(int cpu, const void *page, size_t len, int nrec, void *arg)
{
	struct run_ctx *rc = arg;
	int r = rc->e->page_hook(rc->e, cpu, page, len, nrec, rc->e->page_arg);

	/* A page is some hundred records: the clock at each. */
	rc->nrec |= 15;
	return r ? r : signal_check(rc);
}

/* Records, or pages as they are (ftr record). */
static int drain(struct run_ctx *rc, bool all)
{
	struct engine *e = rc->e;

	if (e->page_hook)
		return stream_drain_pages(e->st, all, on_page, lost_cb, rc);
	return stream_drain(e->st, all, on_record, lost_cb, rc);
}

/* Without a stream: the signals alone.  1 when one is pending. */
static int wait_signal(int fd, int timeout)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, fd >= 0, timeout);

	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return r > 0 && (p.revents & POLLIN);
}

/* A signal during the last drain: what is still in the buffers is given
 * up, counted, and said. */
static void abandon(struct engine *e, int sig)
{
	uint64_t n = stream_discard(e->st);

	e->abandoned += n;
	ftr_err("%s during the drain after the stop: %llu event%s still in the buffers "
		"not processed", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
		sig == SIGHUP ? "SIGHUP" : "a signal", (unsigned long long)n, n == 1 ? "" : "s");
}

int engine_run(struct engine *e, engine_event_fn on_event, engine_lost_fn on_lost,
	       engine_tick_fn on_tick, uint64_t tick_ns, void *arg)
{
	struct run_ctx rc = { .e = e, .on_event = on_event, .on_lost = on_lost, .arg = arg,
			       .checked_ns = engine_now_ns() };
	uint64_t deadline = 0, next_tick = 0;
	bool cb_stop = false;	/* a callback said stop: it wants no more */
	int err, ret = 0;

	/* Setup is over: its kernel symbol questions are answered. */
	kallsyms_drop();
	if (e->s && session_start(e->s) < 0)
		return -EIO;
	if (e->start_hook && e->start_hook(e, e->hook_arg) < 0)
		return -EIO;
	if (e->ready_hook && (err = e->ready_hook(e, e->hook_arg)) != 0) {
		if (err < 0)
			ret = err;
		e->stop = cb_stop = true;
	} else if (e->o.cmdv && child_release(&e->child, e->o.cmdv[0]) < 0) {
		return -ENOEXEC;
	}
	if (e->s && !e->stop)
		session_running(e->s);
	if (e->o.duration_ns)
		deadline = engine_now_ns() + e->o.duration_ns;
	if (on_tick && tick_ns)
		next_tick = engine_now_ns() + tick_ns;

	while (!e->stop) {
		int timeout = 100;
		uint64_t now = engine_now_ns();

		if (deadline && now >= deadline)
			break;
		if (deadline && (deadline - now) / 1000000 < (uint64_t)timeout)
			timeout = (int)((deadline - now) / 1000000) + 1;
		if (next_tick && (next_tick <= now ? 0 : (next_tick - now) / 1000000) <
				 (uint64_t)timeout)
			timeout = next_tick <= now ? 0 : (int)((next_tick - now) / 1000000) + 1;
		err = e->st ? stream_wait(e->st, session_signal_fd(e->s), timeout) :
			      wait_signal(e->sw.fd, timeout);
		if (err < 0) {
			ftr_err("poll: %s", strerror(-err));
			ret = err;
			break;
		}
		if (err == 1 && (e->stop_signal = e->s ? session_pending_signal(e->s) :
						      sigwatch_take(&e->sw)))
			e->stop = true;
		/* SIGCHLD only wakes the loop: the command's end is reaped below. */
		if (e->stop_signal == SIGCHLD)
			e->stop = false, e->stop_signal = 0;
		rc.signalled = false;
		/* Exit records first: the events about to be read are older. */
		comm_cache_poll(e->comms);
		if (e->st && drain(&rc, false) && !rc.signalled)
			e->stop = cb_stop = true;
		if (!cb_stop && e->drain_hook && e->drain_hook(e, e->hook_arg))
			e->stop = cb_stop = true;
		if (!cb_stop && next_tick && engine_now_ns() >= next_tick) {
			next_tick += tick_ns;
			if (on_tick(e, engine_now_ns(), arg))
				e->stop = cb_stop = true;
		}
		if (e->o.cmdv && child_reap(&e->child))
			e->stop = true;
		/* -p: the traced process is gone, nothing more will come. */
		if (e->o.pid && !pid_alive(e->o.pid))
			e->stop = true;
	}
	/* Stop, then read what is still in the buffers (unless a callback
	 * asked to stop: then it wants no more). */
	if (e->s)
		session_stop(e->s);
	if (e->stop_hook)
		e->stop_hook(e, e->hook_arg);
	if (!cb_stop) {
		rc.final = true;
		rc.signalled = false;
		if (e->st && drain(&rc, true) && rc.signalled)
			abandon(e, rc.abandon_signal);
		flush_all_pending(&rc);
		if (e->drain_hook)
			e->drain_hook(e, e->hook_arg);
	}
	return ret;
}

uint64_t engine_lost(struct engine *e, bool *unknown)
{
	if (unknown)
		*unknown = false;
	if (!e->st)
		return 0;
	stream_read_stats(e->st);
	return stream_lost_total(e->st, unknown);
}

void engine_summary(struct engine *e, bool always)
{
	uint64_t lost, delivered = 0, reads = 0;
	bool unknown;

	if (!e->st)
		return;
	lost = engine_lost(e, &unknown);
	for (int i = 0; i < stream_ncpus(e->st); i++) {
		struct stream_cpu_stats cs;

		stream_cpu(e->st, i, &cs);
		delivered += cs.delivered;
		reads += cs.reads;
	}
	if (!lost && !unknown && !always)
		return;
	fprintf(stderr, "ftr: %llu events read", (unsigned long long)delivered);
	if (always)
		fprintf(stderr, " (%llu reads of %zu KB)", (unsigned long long)reads,
			stream_subbuf_size(e->st) / 1024);
	if (e->filtered_out)
		fprintf(stderr, ", %llu dropped by the user-space filter",
			(unsigned long long)e->filtered_out);
	if (lost || unknown)
		fprintf(stderr, ", %s%llu LOST by the kernel", unknown ? "at least " : "",
			(unsigned long long)lost);
	fprintf(stderr, "\n");
	if (!lost && !unknown)
		return;
	fprintf(stderr, "  cpu      read      lost\n");
	for (int i = 0; i < stream_ncpus(e->st); i++) {
		struct stream_cpu_stats cs;
		int cpu = stream_cpu(e->st, i, &cs);
		uint64_t l = cs.overrun + cs.dropped;

		if (cs.lost_inline > l)
			l = cs.lost_inline;
		fprintf(stderr, "  %3d %9llu %9llu%s\n", cpu, (unsigned long long)cs.delivered,
			(unsigned long long)l, cs.lost_unknown && !l ? "+" : "");
	}
	fprintf(stderr, "  (a bigger --buffer-size, a filter, or fewer events would keep up)\n");
}

void engine_close(struct engine *e)
{
	child_abandon(&e->child);
	stream_free(e->st);
	e->st = NULL;
	session_close(e->s);
	e->s = NULL;
	if (e->sw.fd >= 0)
		sigwatch_close(&e->sw);
	for (int i = 0; i < e->nev; i++) {
		free(e->ev[i].sys);
		free(e->ev[i].name);
		free(e->ev[i].fetchargs);
		free(e->ev[i].upath);
		free(e->ev[i].replaces);
		expr_free(e->ev[i].filter);
	}
	free(e->ev);
	free(e->by_id);
	free(e->fn_filter);
	free(e->follow);
	for (int i = 0; i < e->npend; i++)
		free(e->pend[i].buf);
	free(e->pend);
	comm_cache_free(e->comms);
	if (e->tep && !e->o.file_tep)
		tep_free(e->tep);
	memset(e, 0, sizeof(*e));
}
