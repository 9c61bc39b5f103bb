/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The language's semantics: the semantic pass (names, fields, types, maps)
 * and the interpreter that runs a program over the decoded event stream.
 * What the interpreter computes is the reference; the planner (plan.c) only
 * moves parts of it into the kernel where that cannot change the answer.
 */
#ifndef FTR_INTERP_H
#define FTR_INTERP_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "output.h"

struct program;
struct agg_sort;

enum where { WHERE_AUTO, WHERE_KERNEL, WHERE_USER };

struct run_opts {
	enum where where;	/* aggregate in the kernel when it can (auto) */
	struct engine_opts eng;	/* pid, cmdv, duration, explain */
	enum out_mode mode;	/* maps as bpftrace text or JSON */
	bool force;		/* no runaway guard */
	bool emit_sh;		/* print the in-kernel part as a sh script */
	const char *src;	/* the program text, for error lines */
	const char *filter;	/* a filter (expr.h syntax) on every event, or NULL */
	uint32_t top;		/* print only the N largest entries (0: all) */
	uint32_t map_size;	/* entries per map (0: 2048) */
	const struct agg_sort *sort;	/* the maps' print order (NULL: bpftrace's) */
};

/* Compile and run p.  Prints its own errors.  Returns an exit code. */
int lang_run(struct program *p, const struct run_opts *o);

#endif
