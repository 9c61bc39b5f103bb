/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FTR_KERNEL_KNOBS_H
#define FTR_KERNEL_KNOBS_H

#include <stdbool.h>
#include <stdio.h>

/*
 * The system-wide tracefs knobs a run changes (osnoise/ files, tracing_thresh,
 * hwlat_detector/ files: global, not per instance), written down before each
 * change in FTR_RUN_DIR/<name>.knobs, "PATH\tVALUE" a line, so that `ftr
 * reset` can put back what a run killed with SIGKILL changed.  The run
 * itself restores them through its undo log and then forgets the file.
 */
/* Note PATH's value found before run NAME changes it: 0 or -errno. */
int knobs_note(const char *name, const char *path, const char *orig);
/* The run restored them all: the file goes. */
void knobs_forget(const char *name);
/* `ftr reset`: every knob a run no longer live noted, put back (the last
 * noted first), reported on `report`.  How many were, or -errno. */
int knobs_reset(bool dry_run, FILE *report);
/* Where the files are (tests point it elsewhere). */
extern const char *knobs_dir;

#endif
