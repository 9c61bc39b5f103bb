/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef FTR_KERNEL_EXPEDITE_H
#define FTR_KERNEL_EXPEDITE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * /sys/kernel/rcu_expedited set to 1 while run `name` removes many triggers,
 * and put back by the last overlapping run (expedite.c says why).
 * expedite_begin: 1 when this run now holds it (call expedite_end), 0 when
 * there is nothing to do (no knob, rcu_normal, already on), -errno.
 */
int expedite_begin(const char *name);
void expedite_end(const char *name);
/* Will a run's grace periods be expedited (the knob on already, or there and
 * writable, and rcu_normal not set)?  Read only: for the plan's estimate. */
bool expedite_in_effect(void);
/* `ftr reset`: a killed holder's setting put back; 1 when it was. */
int expedite_reset(bool dry_run, FILE *report);
/* The knob's and the state file's paths (tests point them elsewhere). */
extern const char *expedite_knob_path, *expedite_state_path;

#endif
