/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftrace's latency tracers as tracefs offers them: which this kernel has,
 * who holds the single-user ones, and their records decoded (ftrace:timerlat,
 * ftrace:osnoise, ftrace:hwlat, the osnoise:* noise events, ftrace:print,
 * ftrace:kernel_stack) into struct lat_event for report/latstat.c.
 */
#ifndef FTR_KERNEL_LATTRACER_H
#define FTR_KERNEL_LATTRACER_H

#include <stdbool.h>
#include <stddef.h>

#include "report/latstat.h"

struct tep_handle;
struct tep_record;

/* The tracers `ftr latency` drives, in doctor's order. */
extern const char *const lat_tracers[];
extern const size_t lat_ntracers;

/* Is tracer listed in TDIR/available_tracers?  (Listed is not usable: a
 * locked-down or hardened kernel can refuse the write; the command says so.) */
bool lat_tracer_listed(const char *tdir, const char *tracer);
/* The kernel option a tracer comes with, for messages. */
const char *lat_tracer_config(const char *tracer);
/* Who runs a tracer that excludes `tracer` (the same one, or timerlat and
 * osnoise, which exclude each other): "the top level", "instance NAME"
 * (and "(ftr pid N)" for ftr's own), written into buf; false when nobody
 * does (the refusal then has another cause).  `self`: our instance, skipped. */
bool lat_tracer_holder(const char *tdir, const char *tracer, const char *self, char *buf,
		       size_t len);

/* The formats a latency run decodes, loaded into tep (those the kernel
 * lacks are left out: the osnoise:* events are 5.14+).  0 or -errno. */
int lat_formats_load(struct tep_handle *tep, const char *tdir);
/* Decode one record: 1 with *ev filled, 0 for a record of no interest. */
int lat_decode(struct tep_handle *tep, struct tep_record *rec, struct lat_event *ev);

#endif
