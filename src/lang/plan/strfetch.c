// SPDX-License-Identifier: GPL-2.0-or-later
/* User strings at tracepoints: see strfetch.h. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/arch.h"
#include "kernel/engine.h"
#include "kernel/evsel.h"
#include "kernel/features.h"
#include "kernel/formats.h"
#include "kernel/kallsyms.h"
#include "ftr.h"
#include "report/output.h"
#include "lang/plan/filtertext.h"
#include "kernel/probe.h"
#include "kernel/session.h"
#include "lang/plan/strfetch.h"
#include "lang/plan/fetchargs.h"

#define MAX_FIELDS 32

static int put(char *out, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int put(char *out, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	*off += vsnprintf(out + *off, *off < len ? len - *off : 0, fmt, ap);
	va_end(ap);
	return *off < len ? 0 : -ENOSPC;
}

/* "u64", "s32"...: the probe type of a number field. */
static int num_type(const struct tep_format_field *fl, char *out, size_t len)
{
	if (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8)
		return -EINVAL;
	snprintf(out, len, "%c%d", fl->flags & TEP_FIELD_IS_SIGNED ? 's' : 'u', fl->size * 8);
	return 0;
}

static bool is_common(const char *name)
{
	return str_has_prefix(name, "common_");
}

/* buf(args.F) of an address (not of an array the event holds). */
static bool buf_wanted(const struct plan_field *f, const struct tep_format_field *fl)
{
	return f->buf && fl && !(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
					     TEP_FIELD_IS_STRING));
}

/* join(args.F) and str(args.F[K]) read F's entries as pointers: F must be
 * a pointer to pointers (execve's argv, "const char *const *"), not a
 * char * whose bytes would be taken for addresses. */
static int join_wanted(const struct tep_event *tp, const struct plan_field *f, char *why,
		       size_t wlen)
{
	struct tep_format_field *fl = tep_find_field((struct tep_event *)tp, f->name);
	const char *star = fl && fl->type ? strchr(fl->type, '*') : NULL;

	if (star && strchr(star + 1, '*'))
		return 0;
	snprintf(why, wlen, "join(args.%s) and str(args.%s[N]) read the strings of a char ** "
		 "field, and %s:%s's '%s' is %s", f->name, f->name, tp->system, tp->name, f->name,
		 fl && fl->type ? fl->type : "not one");
	return -EINVAL;
}

int strfetch_eprobe_args(const struct tep_event *tp, const struct plan_field *f, int n,
			 char *out, size_t len, char *why, size_t wlen)
{
	size_t off = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct tep_format_field *fl = tep_find_field((struct tep_event *)tp, f[i].name);
		char type[8];

		if (is_common(f[i].name))
			continue;	/* every event has them */
		if (!fl) {
			snprintf(why, wlen, "%s:%s has no field '%s'", tp->system, tp->name,
				 f[i].name);
			return -EINVAL;
		}
		if (f[i].join) {
			if (join_wanted(tp, &f[i], why, wlen))
				return -EINVAL;
			/* join(args.F), F a char **: the strings of F[0], F[1]... as
			 * F_0, F_1...; a NULL entry (the end) faults, and its field
			 * is empty (length 0), "" is 1 byte long.  The entries are
			 * pointers, as long as the field (4 bytes on 32-bit). */
			for (int k = 0; k < PLAN_JOIN_MAX; k++)
				put(out, len, &off, "%s%s_%d=+0(+u%d($%s)):ustring", off ? " " : "",
				    fl->name, k, fl->size * k, fl->name);
		} else if (field_is_string(fl)) {
			/* A string the tracepoint copied: $F is its address. */
			put(out, len, &off, "%s%s=$%s:string", off ? " " : "", fl->name, fl->name);
		} else if (f[i].str) {
			/* The value is the user-space address: the string is there. */
			put(out, len, &off, "%s%s=+0($%s):ustring", off ? " " : "", fl->name,
			    fl->name);
		} else if (num_type(fl, type, sizeof(type)) == 0) {
			put(out, len, &off, "%s%s=$%s:%s", off ? " " : "", fl->name, fl->name, type);
		} else {
			snprintf(why, wlen, "field '%s' of %s:%s is %d bytes long: an eprobe fetches "
				 "numbers of 1, 2, 4 or 8", fl->name, tp->system, tp->name, fl->size);
			return -EINVAL;
		}
		/* buf(args.F): the bytes at F as F_buf.  An array is never
		 * read with +u (the kernel allows arrays of kernel memory
		 * reads only: "String accepts only memory argument"), and
		 * needs none: where user and kernel addresses do not overlap
		 * (x86, arm64) a probe reads a user address as user memory. */
		if (buf_wanted(&f[i], fl))
			put(out, len, &off, " %s_buf=+0($%s):u8[%d]", fl->name, fl->name,
			    typed_buf_cap());
	}
	if (off >= len) {
		snprintf(why, wlen, "too many fields: the probe command is too long");
		return -ENOSPC;
	}
	return 0;
}

/*
 * 32-bit ARM (arch_syscall_direct): the syscall's function takes its
 * arguments as any function does, r0-r3 and then the stack, where the
 * system call entry pushed r4 and r5.  A 64-bit argument (loff_t: an
 * 8-byte field on a 32-bit kernel) takes an even/odd register pair, so the
 * fields before argument argn decide its slot.  -EOVERFLOW for a 64-bit
 * argument itself, which no one fetcharg reads; -ENOTSUP for the syscall
 * number, which is in no argument register there.
 */
static int direct_fetch(const char *arch, struct tep_format_field **all, int argn, char *out,
			size_t len)
{
	unsigned slot = 0;

	if (argn < 0)
		return -ENOTSUP;
	for (int j = 0, a = -1; all[j]; j++) {
		if (a < 0) {
			if (!strcmp(all[j]->name, "__syscall_nr"))
				a = 0;
			continue;
		}
		if (all[j]->size == 8)
			slot = (slot + 1) & ~1u;
		if (a == argn)
			return all[j]->size == 8 ? -EOVERFLOW : arch_arg_fetch(arch, slot, out, len);
		slot += all[j]->size == 8 ? 2 : 1;
		a++;
	}
	return -ERANGE;
}

int strfetch_kprobe_args(const char *arch, const struct tep_event *tp, const struct plan_field *f,
			 int n, char *out, size_t len, char *why, size_t wlen)
{
	struct tep_format_field **all = tep_event_fields((struct tep_event *)tp);
	size_t off = 0;
	int ret = 0;

	out[0] = '\0';
	if (!all)
		return -ENOMEM;
	for (int i = 0; i < n && !ret; i++) {
		char fetch[64], type[8];
		int argn = -2;

		if (is_common(f[i].name))
			continue;
		/* Argument N is the N-th field after __syscall_nr. */
		for (int j = 0, seen_nr = 0, a = 0; all[j]; j++) {
			if (!strcmp(all[j]->name, "__syscall_nr")) {
				seen_nr = 1;
				if (!strcmp(f[i].name, "__syscall_nr"))
					argn = -1;
				continue;
			}
			if (seen_nr && !strcmp(all[j]->name, f[i].name)) {
				argn = a;
				break;
			}
			a += seen_nr;
		}
		if (argn == -2) {
			snprintf(why, wlen, "%s:%s has no syscall argument '%s'", tp->system, tp->name,
				 f[i].name);
			ret = -EINVAL;
			break;
		}
		if (arch_syscall_direct(arch))
			ret = direct_fetch(arch, all, argn, fetch, sizeof(fetch));
		else
			ret = arch_syscall_arg_fetch(arch, argn, fetch, sizeof(fetch));
		if (ret == -EOVERFLOW) {
			snprintf(why, wlen, "'%s' is a 64-bit syscall argument, which 32-bit %s "
				 "passes in a pair of registers, and a kprobe reads one",
				 f[i].name, arch);
			break;
		}
		if (ret == -ENOTSUP) {
			snprintf(why, wlen, "ftr has no table of saved syscall registers for '%s' "
				 "(it has x86_64, arm64 and arm)", arch);
			break;
		}
		if (ret) {
			snprintf(why, wlen, "'%s' is syscall argument %d: the saved registers hold "
				 "six", f[i].name, argn + 1);
			break;
		}
		if (f[i].join) {
			struct tep_format_field *fl = tep_find_field((struct tep_event *)tp, f[i].name);
			int ptr = fl ? fl->size : 8;	/* a char **'s entries */

			ret = join_wanted(tp, &f[i], why, wlen);
			if (ret)
				break;
			for (int k = 0; k < PLAN_JOIN_MAX; k++)
				put(out, len, &off, "%s%s_%d=+0(+u%d(%s)):ustring", off ? " " : "",
				    f[i].name, k, ptr * k, fetch);
		} else if (f[i].str) {
			put(out, len, &off, "%s%s=+0(%s):ustring", off ? " " : "", f[i].name, fetch);
		} else if (argn < 0) {
			put(out, len, &off, "%s%s=%s:s32", off ? " " : "", f[i].name, fetch);
		} else {
			struct tep_format_field *fl = tep_find_field((struct tep_event *)tp, f[i].name);

			if (num_type(fl, type, sizeof(type)) < 0) {
				snprintf(why, wlen, "field '%s' of %s:%s is not a number", f[i].name,
					 tp->system, tp->name);
				ret = -EINVAL;
				break;
			}
			put(out, len, &off, "%s%s=%s:%s", off ? " " : "", f[i].name, fetch, type);
		}
		if (f[i].buf && argn >= 0)
			put(out, len, &off, " %s_buf=+0(%s):u8[%d]", f[i].name, fetch,
			    typed_buf_cap());
	}
	free(all);
	if (!ret && off >= len) {
		snprintf(why, wlen, "too many fields: the probe command is too long");
		ret = -ENOSPC;
	}
	return ret;
}

/* ---- what this kernel has ------------------------------------------------------ */

/*
 * Eprobe events, judged without changing anything.  The README's "e[:..."
 * line is no proof (docs/libraries.md: this host lists it without
 * CONFIG_EPROBE_EVENTS); their code in kallsyms is (names are listed
 * whatever kptr_restrict hides; unreadable, the kernel will say).
 */
bool strfetch_eprobes(const struct features *f, char *why, size_t wlen)
{
	uint64_t a;

	if (!tracefs_file_exists(NULL, "dynamic_events") || !(f->probe_syntax & PS_EPROBE_LINE)) {
		snprintf(why, wlen, "no eprobe events");
		return false;
	}
	if (kallsyms_find("eprobe_*", &a) == -ENOENT &&
	    kallsyms_find("trace_eprobe*", &a) == -ENOENT) {
		snprintf(why, wlen, "no eprobe events (built without CONFIG_EPROBE_EVENTS)");
		return false;
	}
	return true;
}

bool strfetch_hrprof(const struct engine *e, uint64_t *fn, char *why, size_t wlen)
{
	char ewhy[160];
	int err;

	if (e->o.file_tep) {
		snprintf(why, wlen, "a recording holds no eprobe for it");
		return false;
	}
	if (!e->s) {
		snprintf(why, wlen, "no tracefs to put an eprobe in");
		return false;
	}
	if (!strfetch_eprobes(&e->feat, ewhy, sizeof(ewhy))) {
		snprintf(why, wlen, "%s", ewhy);
		return false;
	}
	if (!tracefs_event_file_exists(NULL, "timer", "hrtimer_expire_entry",
				       "format")) {
		snprintf(why, wlen, "no tracepoint timer:hrtimer_expire_entry");
		return false;
	}
	err = kallsyms_find("perf_swevent_hrtimer", fn);
	if (err) {
		snprintf(why, wlen, "no address for perf_swevent_hrtimer in /proc/kallsyms (%s)",
			 err == -ENOENT ? "no such function" : err == -EPERM ?
			 "kptr_restrict hides it" : strerror(-err));
		return false;
	}
	return true;
}

/* The kprobe on sys:ev's syscall wrapper, when this kernel has one. */
static bool kprobe_possible(const struct features *f, const char *sys, const char *ev,
			    char *wrapper, size_t len, char *why, size_t wlen)
{
	const char *arch = f->arch[0] ? arch_normalise(f->arch) : arch_name();
	uint64_t a;
	int r;

	if (strcmp(sys, "syscalls") || !str_has_prefix(ev, "sys_enter_")) {
		snprintf(why, wlen, "a kprobe reads syscall arguments only at a syscall's entry "
			 "(syscalls:sys_enter_*)");
		return false;
	}
	if (!f->f[F_KPROBE].yes) {
		snprintf(why, wlen, "no kprobe events");
		return false;
	}
	if (!(f->probe_syntax & PS_USTRING)) {
		snprintf(why, wlen, "kprobes without the 'ustring' type");
		return false;
	}
	if (arch_syscall_wrapper(arch, ev + strlen("sys_enter_"), wrapper, len) < 0) {
		snprintf(why, wlen, "no table of syscall wrappers for '%s' (ftr has x86_64, "
			 "arm64 and arm)", arch);
		return false;
	}
	r = kallsyms_find(wrapper, &a);
	if (r && r != -EPERM) {
		snprintf(why, wlen, "no function '%s' in /proc/kallsyms to put a kprobe on",
			 wrapper);
		return false;
	}
	return true;
}

bool strfetch_possible(const struct features *f, const char *sys, const char *ev, char *why,
		       size_t wlen)
{
	char ewhy[160], kwhy[200], wrapper[PROBE_SYM_MAX];

	if (strfetch_eprobes(f, ewhy, sizeof(ewhy)) ||
	    kprobe_possible(f, sys, ev, wrapper, sizeof(wrapper), kwhy, sizeof(kwhy)))
		return true;
	snprintf(why, wlen, "%s; %s", ewhy, kwhy);
	return false;
}

/*
 * Do this kernel's eprobes read a char * field whole?  6.1's read its first
 * byte only (0x52 for 0x7ffe7468ff52, so every string behind it is a fault);
 * 6.12's read the pointer.  No version number tells: create an eprobe
 * fetching openat's filename pointer, open a path of ours while it records,
 * and look for our address in the trace.  Once per run.  1 yes, 0 no (why
 * says why), -errno when the check itself failed.
 */
static int eprobe_reads_pointers(struct engine *e, char *why, size_t wlen)
{
	static int known = -1;
	static char known_why[160];
	static const char path[] = "/nonexistent/ftr-eprobe-check";
	struct session *s = e->s;
	struct tracefs_dynevent *dyn;
	char want[64], *text;
	int err, fd;

	if (known >= 0) {
		snprintf(why, wlen, "%s", known_why);
		return known;
	}
	dyn = tracefs_eprobe_alloc(session_name(s), "ftr_eprobe_check", "syscalls",
				   "sys_enter_openat", "p=$filename:x64");
	if (!dyn)
		return -(errno ? errno : ENOMEM);
	session_set_quiet(s, true);
	err = session_dynevent_create(s, dyn);
	session_set_quiet(s, false);
	if (err) {
		tracefs_dynevent_free(dyn);
		snprintf(known_why, sizeof(known_why), "no eprobe events (creating one failed: %s)",
			 strerror(-err));
		known = 0;
		snprintf(why, wlen, "%s", known_why);
		return 0;
	}
	if (session_event_write(s, session_name(s), "ftr_eprobe_check", "enable", "1", "0") < 0 ||
	    session_start(s) < 0)
		return -EIO;
	fd = open(path, O_RDONLY);
	if (fd >= 0)
		close(fd);
	session_stop(s);
	if (session_event_write(s, session_name(s), "ftr_eprobe_check", "enable", "0", NULL) < 0)
		return -EIO;
	text = tracefs_instance_file_read(session_instance(s), "trace", NULL);
	snprintf(want, sizeof(want), "p=0x%lx\n", (unsigned long)path);
	known = text && strstr(text, want);
	free(text);
	snprintf(known_why, sizeof(known_why), "%s", known ? "" :
		 "this kernel's eprobes read a char * field as its first byte only (a kernel "
		 "bug, seen on 6.1), so the string behind it faults");
	snprintf(why, wlen, "%s", known_why);
	return known;
}

/* ---- replacing ----------------------------------------------------------------- */

static int replaced_by(struct eng_event *v, const char *sys, const char *ev)
{
	if (!v)
		return -ENOMEM;
	free(v->replaces);
	if (asprintf(&v->replaces, "%s:%s", sys, ev) < 0) {
		v->replaces = NULL;
		return -ENOMEM;
	}
	return 1;
}

static void note(struct strfetch *sf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct strfetch *sf, const char *fmt, ...)
{
	size_t off = strlen(sf->plan);
	va_list ap;

	if (off)
		put(sf->plan, sizeof(sf->plan), &off, "; ");
	va_start(ap, fmt);
	if (off < sizeof(sf->plan))
		vsnprintf(sf->plan + off, sizeof(sf->plan) - off, fmt, ap);
	va_end(ap);
}

/* A char * field of tp that a typed read goes through ("$name" in its
 * fetch), or NULL: 6.1's eprobes read such a field as its first byte. */
static const char *typed_char_root(const struct tep_event *tp, const struct typed_out *t)
{
	for (int i = 0; t && i < t->n; i++)
		for (const char *d = strchr(t->f[i].fetch, '$'); d; d = strchr(d + 1, '$')) {
			char name[64];
			size_t l = strspn(d + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789_");
			struct tep_format_field *fl;

			snprintf(name, sizeof(name), "%.*s", (int)l, d + 1);
			fl = tep_find_field((struct tep_event *)tp, name);
			if (fl && strstr(fl->type, "char") && strchr(fl->type, '*'))
				return fl->name;
		}
	return NULL;
}

/* Replace tracepoint tp: 1 done, 0 nothing can (sf->why says why), -errno. */
static int replace_one(struct engine *e, const struct tep_event *tp, const char *strf,
		       const struct plan_field *f, int n, const struct typed_out *typed,
		       struct strfetch *sf)
{
	const char *arch = e->feat.arch[0] ? arch_normalise(e->feat.arch) : arch_name();
	const char *croot = typed_char_root(tp, typed);
	char fa[4096], ewhy[200], kwhy[200], wrapper[PROBE_SYM_MAX];
	struct eng_event *v = NULL;
	int ret, nt = typed ? typed->n : 0;

	if (strfetch_eprobes(&e->feat, ewhy, sizeof(ewhy))) {
		size_t off;

		if (strfetch_eprobe_args(tp, f, n, fa, sizeof(fa), ewhy, sizeof(ewhy)) < 0) {
			if (nt) {
				ftr_err("tracepoint:%s:%s: %s", tp->system, tp->name, ewhy);
				return -EINVAL;
			}
			snprintf(sf->why, sizeof(sf->why), "%s", ewhy);
			return 0;
		}
		/* The typed reads through its fields (fetchargs.h). */
		off = strlen(fa);
		for (int i = 0; i < nt; i++)
			if (put(fa, sizeof(fa), &off, "%s%s=%s:%s", off ? " " : "", typed->f[i].name,
				typed->f[i].fetch, typed->f[i].type) < 0) {
				ftr_err("tracepoint:%s:%s: too many fields: the eprobe command is too "
					"long", tp->system, tp->name);
				return -ENOSPC;
			}
		ret = e->o.explain || (!strf && !croot) ? 1 :
		      eprobe_reads_pointers(e, ewhy, sizeof(ewhy));
		if (ret < 0)
			return ret;
		if (!ret && nt) {
			ftr_err("tracepoint:%s:%s: a read through args->%s needs an eprobe, and %s",
				tp->system, tp->name, croot ? croot : strf, ewhy);
			return -ENOTSUP;
		}
		if (!ret)
			ftr_info("str() at %s:%s: not an eprobe: %s", tp->system, tp->name, ewhy);
		if (ret) {
			ret = engine_add_eprobe(e, tp->system, tp->name, fa, &v);
			if (ret < 0)
				return ret;
			if (strf)
				note(sf, "tracepoint:%s:%s is an eprobe on it, %s/%s: str(args.%s) "
				     "reads a user-space address the tracepoint does not copy, and "
				     "the eprobe fetches the string (%s)%s", tp->system, tp->name,
				     v->sys, v->name, strf, fa, e->o.explain ? " — unchecked under "
				     "--explain: a run first makes sure this kernel's eprobes read a "
				     "char * field whole (6.1's do not), else takes the kprobe on the "
				     "syscall's wrapper" : "");
			else
				note(sf, "tracepoint:%s:%s is an eprobe on it, %s/%s, that reads "
				     "memory through the event's fields at the event (%s)", tp->system,
				     tp->name, v->sys, v->name, fa);
			return replaced_by(v, tp->system, tp->name);
		}
	} else if (nt) {
		ftr_err("tracepoint:%s:%s: reading memory through its fields needs an eprobe, and "
			"this kernel has %s", tp->system, tp->name, ewhy);
		return -ENOTSUP;
	}
	if (kprobe_possible(&e->feat, tp->system, tp->name, wrapper, sizeof(wrapper), kwhy,
			    sizeof(kwhy))) {
		struct probe_spec spec;
		struct probe_error perr = { .pos = -1 };
		char text[PROBE_SYM_MAX + 4096 + 16];

		if (strfetch_kprobe_args(arch, tp, f, n, fa, sizeof(fa), kwhy, sizeof(kwhy)) < 0) {
			snprintf(sf->why, sizeof(sf->why), "%s", kwhy);
			return 0;
		}
		snprintf(text, sizeof(text), "kprobe:%s %s", wrapper, fa);
		if (probe_parse(text, &spec, &perr) < 0) {
			ftr_err("internal: bad probe '%s': %s", text, perr.msg);
			return -EINVAL;
		}
		ret = engine_add_probe(e, &spec, NULL, &v);
		if (ret < 0)
			return ret;
		note(sf, "tracepoint:%s:%s is a kprobe on the syscall's wrapper, %s/%s at %s: "
		     "str(args.%s) reads a user-space address the tracepoint does not copy, "
		     "and the kprobe fetches the string from the saved registers (%s); not an "
		     "eprobe: %s", tp->system, tp->name, v->sys, v->name, wrapper, strf, fa, ewhy);
		return replaced_by(v, tp->system, tp->name);
	}
	snprintf(sf->why, sizeof(sf->why), "nothing on this kernel can fetch it: %s; %s. A kernel "
		 "with eprobe events, or kprobe events for a syscall's entry, would (see 'ftr "
		 "doctor')", ewhy, kwhy);
	return 0;
}

/* A recorded event of ftr's group (ftr_<pid>) named like glob, or NULL. */
static const char *recorded_named(struct tep_handle *tep, const char *glob)
{
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);

	for (int i = 0; evs && evs[i]; i++)
		if (str_has_prefix(evs[i]->system, "ftr_") && !fnmatch(glob, evs[i]->name, 0))
			return evs[i]->name;
	return NULL;
}

/*
 * Over a recording of 'ftr record -e PROGRAM' (ftr run -i): the eprobe, or
 * the kprobe on the syscall's wrapper, its recorder put in for tracepoint
 * spec, found by name as engine_add_probe finds a program's probes.  0 when
 * the file holds the tracepoint itself (or neither: engine_add_spec says).
 */
static int add_recorded(struct engine *e, const char *spec, struct strfetch *sf)
{
	struct probe_spec named = { .kind = PROBE_KPROBE };
	char sys[256], ev[256], name[PROBE_NAME_MAX], glob[300];
	struct eng_event *v = NULL;
	const char *k;
	int ret;

	if (evsel_split(spec, sys, sizeof(sys), ev, sizeof(ev)) < 0 || strpbrk(spec, "*?[") ||
	    tep_find_event_by_name(e->tep, sys, ev))
		return 0;
	snprintf(named.symbol, sizeof(named.symbol), "%s", ev);
	if (probe_name_next(&named, false, name, sizeof(name)) == 0 &&
	    recorded_named(e->tep, name)) {
		ret = engine_add_eprobe(e, sys, ev, "", &v);
	} else {
		/* The wrapper's own name (__x64_sys_openat...): a second probe
		 * on it would be NAME_2, found from NAME by engine_add_probe. */
		snprintf(glob, sizeof(glob), "__*_sys_%s", str_has_prefix(ev, "sys_enter_") ?
			 ev + strlen("sys_enter_") : ev);
		k = recorded_named(e->tep, glob);
		if (!k)
			return 0;
		snprintf(named.symbol, sizeof(named.symbol), "%s", k);
		ret = engine_add_probe(e, &named, NULL, &v);
	}
	if (ret < 0)
		return ret;
	note(sf, "tracepoint:%s:%s is the recorded %s/%s", sys, ev, v->sys, v->name);
	return replaced_by(v, sys, ev);
}

/* Is f one of the typed reads' own fields (t0...), which the eprobe adds? */
static bool typed_name(const struct typed_out *t, const char *f)
{
	for (int i = 0; t && i < t->n; i++)
		if (!strcmp(t->f[i].name, f))
			return true;
	return false;
}

int strfetch_field_type(struct engine *e, const char *spec, const char *name, char *type,
			size_t len, char *why, size_t wlen)
{
	struct tep_handle *tep = NULL;
	struct evlist l = { 0 };
	char err[512];
	int ret = -ENOENT;

	type[0] = '\0';
	snprintf(why, wlen, "no event for '%s' to read the type of its field from", spec);
	if (!e->s || evsel_resolve(session_tracefs(e->s)->path, spec, &l, err, sizeof(err)) < 0 ||
	    !l.n)
		goto out;
	tep = formats_new(session_tracefs(e->s)->path);
	if (!tep) {
		ret = -errno;
		snprintf(why, wlen, "cannot read the event formats: %s", strerror(errno));
		goto out;
	}
	for (size_t j = 0; j < l.n; j++) {
		struct tep_event *tp = formats_add(tep, session_tracefs(e->s)->path, l.v[j].sys,
						   l.v[j].name);
		struct tep_format_field *fl = tp ? tep_find_field(tp, name) : NULL;

		if (!fl) {
			snprintf(why, wlen, "%s:%s has no field '%s'", l.v[j].sys, l.v[j].name,
				 name);
			ret = -ENOENT;
			goto out;
		}
		if (j && strcmp(type, fl->type)) {
			snprintf(why, wlen, "'%s' is '%s' in %s:%s and '%s' in %s:%s: one type is "
				 "needed to read through it", name, type, l.v[0].sys, l.v[0].name,
				 fl->type, l.v[j].sys, l.v[j].name);
			ret = -EINVAL;
			goto out;
		}
		snprintf(type, len, "%s", fl->type);
	}
	ret = 0;
out:
	if (tep)
		tep_free(tep);
	evlist_free(&l);
	return ret;
}

int strfetch_add(struct engine *e, const char *spec, const struct node *pred,
		 const struct node *body, const struct typed_out *typed, struct strfetch *sf)
{
	const char *tdir;
	struct plan_field f[MAX_FIELDS];
	struct tep_handle *tep = NULL;
	struct evlist l = { 0 };
	char err[512];
	int n = plan_clause_fields(pred, body, f, MAX_FIELDS), added = 0, ret = 0;
	bool any = false;

	sf->plan[0] = sf->why[0] = '\0';
	for (int i = 0; i < n; i++)
		if (typed_name(typed, f[i].name))
			f[i--] = f[--n];
	for (int i = 0; i < n; i++)
		any |= f[i].str || f[i].buf;
	any |= typed && typed->n;
	if (any && e->o.file_tep)
		return add_recorded(e, spec, sf);
	/* Offline (the unit tests' engine): no kernel to fetch anything. */
	if (!e->s)
		return 0;
	tdir = session_tracefs(e->s)->path;
	if (!any || evsel_resolve(tdir, spec, &l, err, sizeof(err)) < 0 || !l.n)
		goto out;	/* engine_add_spec says what is wrong with spec */
	tep = formats_new(tdir);
	if (!tep) {
		ret = -errno;
		goto out;
	}
	for (size_t j = 0; j < l.n && ret >= 0; j++) {
		struct tep_event *tp = formats_add(tep, tdir, l.v[j].sys, l.v[j].name);
		const char *strf = NULL;

		for (int i = 0; tp && i < n && !strf; i++) {
			struct tep_format_field *fl = f[i].str || f[i].buf ?
						      tep_find_field(tp, f[i].name) : NULL;

			if ((f[i].str && fl && !field_is_string(fl)) || buf_wanted(&f[i], fl))
				strf = f[i].name;
		}
		ret = strf || (typed && typed->n) ? replace_one(e, tp, strf, f, n, typed, sf) : 0;
		if (ret == 0) {
			char name[300];

			snprintf(name, sizeof(name), "%s:%s", l.v[j].sys, l.v[j].name);
			ret = engine_add_spec(e, name, NULL);
		}
		added++;
	}
	if (ret < 0)
		added = ret;
out:
	if (tep)
		tep_free(tep);
	evlist_free(&l);
	return ret < 0 ? ret : added;
}
