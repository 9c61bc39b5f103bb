/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The language's dynamic probes: what one kprobe/kretprobe/uprobe/uretprobe
 * (or usdt) probe of a clause turns into on the engine — one event, or one
 * per function a wildcard matches, each with its own `probe` and `func`.
 */
#ifndef FTR_DYNPROBE_H
#define FTR_DYNPROBE_H

#include "lang/lang.h"

struct engine;
struct probe_arg;

/*
 * Add the events probe pr stands for, each with fields (" arg0 arg2", the
 * probe spec words that follow its place).  optional: the clause has other
 * probes, so a named kernel function this kernel does not have, or a
 * wildcard that matches nothing, is skipped with a note (as bpftrace skips
 * a probe it cannot attach), not an error.
 * *names gets a malloc'd array of the probe names ("kprobe:vfs_read"), one
 * per event added, in order; returns how many (0 only when optional), or
 * -errno with err set (or the message printed, err->msg left empty).
 * extra (nextra of them): fields already spelled as fetch arguments (the
 * clause's typed reads, fetchargs.h), added to every kprobe/uprobe event;
 * fallback, when not NULL, the same fields without the kernel's argument
 * names, used where the kernel refuses those.
 */
int dynprobe_add(struct engine *e, const struct lang_probe *pr, bool optional, const char *fields,
		 const struct probe_arg *extra, const struct probe_arg *fallback, int nextra,
		 char ***names, struct lang_err *err);

/* A uprobe on a function whose symbol has size 0 (_init): ftr cannot tell
 * whether the address is an instruction's start, and the kernel would write
 * its breakpoint there all the same.  bpftrace refuses it without --unsafe;
 * so does ftr: 1, bpftrace's message printed; 0: not such a probe. */
int dynprobe_zero_size(const struct engine *e, const struct lang_probe *pr);

/* A probe's name, the `probe` builtin's, as bpftrace spells it from text
 * as written: its provider's alias expanded (k:f is kprobe:f). */
void dynprobe_name(const char *text, char *buf, size_t len);

/*
 * Does the place probe pr names exist here (config missing_probes): a
 * tracepoint, a kernel function (in available_filter_functions, or any for
 * a wildcard), a file's function?  1 or 0; 1 where only trying tells
 * (offsets, addresses, usdt, a recording); -errno.
 */
int dynprobe_exists(struct engine *e, const struct lang_probe *pr);

#endif
