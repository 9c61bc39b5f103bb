/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User strings at tracepoints.  A syscall tracepoint records a string
 * argument (openat's filename) as the user-space address it was given: the
 * kernel copies no string there.  Where a clause reads str(args.F) of such
 * a field, its tracepoint is replaced, for the run, by a dynamic event that
 * records the same fields and fetches the string:
 *
 *   1. an eprobe on the tracepoint (e:ftr_PID/NAME syscalls/sys_enter_openat
 *      filename=+0($filename):ustring dfd=$dfd:u64 ...), where the kernel
 *      has eprobe events that read a char * field whole;
 *   2. else, for syscalls:sys_enter_* only, a kprobe on the syscall's wrapper
 *      (__x64_sys_openat, __arm64_sys_openat) reading each argument from
 *      the saved user registers (filename=+0(+104(%di)):ustring);
 *   3. else nothing: the clause keeps its tracepoint and the semantic pass
 *      refuses str() with the reason.
 *
 * Every field the clause reads is fetched, with the type of the original
 * field and under its name, so that args.F and kernel filters work on the
 * replacement as on the tracepoint.  buf(args.F, len) of an address field
 * replaces the tracepoint the same way, the bytes at F fetched as F_buf
 * (+0($F):u8[64]).
 */
#ifndef FTR_STRFETCH_H
#define FTR_STRFETCH_H

#include <stdbool.h>
#include <stddef.h>

struct engine;
struct features;
struct node;
struct plan_field;
struct tep_event;
struct typed_out;

/* ---- pure parts ---------------------------------------------------------------- */

/* Eprobe fetchargs for fields f[0..n) of tracepoint tp: a str field as
 * "+0($F):ustring", others as "$F:TYPE" with tp's size and signedness.
 * 0, or -EINVAL with why (a field tp lacks, a string field read by str()). */
int strfetch_eprobe_args(const struct tep_event *tp, const struct plan_field *f, int n,
			 char *out, size_t len, char *why, size_t wlen);

/* Kprobe fetchargs at the syscall wrapper for fields f[0..n) of the
 * syscalls:sys_enter_* tracepoint tp: argument N is the N-th field after
 * __syscall_nr, read from the pt_regs (arch.c); __syscall_nr is the saved
 * number.  0, or -EINVAL/-ENOTSUP with why. */
int strfetch_kprobe_args(const char *arch, const struct tep_event *tp, const struct plan_field *f,
			 int n, char *out, size_t len, char *why, size_t wlen);

/* ---- replacing tracepoints ------------------------------------------------------ */

struct strfetch {
	char plan[1024];	/* what was replaced by what, and why (for --explain) */
	char why[640];		/* a str() field nothing can fetch: why, what would */
};

/*
 * For a tracepoint clause (spec: its "sys:ev" glob; pred, body: its syntax)
 * that reads str(args.F) of a field that is not a string: add each event
 * spec names to the engine, the ones with such a field replaced by an
 * eprobe or kprobe (eng_event.replaces names the tracepoint).  Returns the
 * number of events added (0: nothing to replace, or nothing can fetch the
 * string — sf->why says why —: add spec as usual), or -errno (printed).
 * typed: the clause's reads through the tracepoint's fields (fetchargs.h), or
 * NULL; with any, every event is an eprobe that fetches them too, and
 * nothing else can stand in (an error, printed, says why).
 */
int strfetch_add(struct engine *e, const char *spec, const struct node *pred,
		 const struct node *body, const struct typed_out *typed, struct strfetch *sf);

/*
 * The C type of field name ("struct __kernel_timespec *"), the same in
 * every event of tracepoint glob spec: 0, or -errno with why.
 */
int strfetch_field_type(struct engine *e, const char *spec, const char *name, char *type,
			size_t len, char *why, size_t wlen);

/* Eprobe events, judged without changing anything; why says what is
 * missing when there are none. */
bool strfetch_eprobes(const struct features *f, char *why, size_t wlen);

/*
 * A profile:hz clause that reads kernel memory runs on an eprobe on
 * timer:hrtimer_expire_entry filtered to perf's cpu-clock timer callback,
 * perf_swevent_hrtimer, whose expiry is the sample (the interrupted task is
 * current).  Its tracepoint and the callback's address (*fn) on this
 * kernel: true, or false with why.
 */
#define STRFETCH_HRPROF_TP "timer:hrtimer_expire_entry"
bool strfetch_hrprof(const struct engine *e, uint64_t *fn, char *why, size_t wlen);

/*
 * Can str() read the string arguments of tracepoint sys:ev on this kernel
 * (eprobe events, or kprobe events with ustring and the syscall's wrapper)?
 * Decided from tracefs and /proc/kallsyms without changing anything; a run
 * also checks that eprobes read a char * field whole.  why says what is
 * missing when it cannot.
 */
bool strfetch_possible(const struct features *f, const char *sys, const char *ev, char *why,
		       size_t wlen);

#endif
