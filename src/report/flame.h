/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stacks, merged into a tree, written as folded stacks or as a
 * self-contained interactive SVG flame graph.  Pure: no I/O beyond the
 * FILE * it is given.
 *
 * Folded stacks are one line per distinct stack, frames from the outermost
 * caller to the leaf joined by ';', a space, then the number of samples:
 * "dd;_start;main;write;entry_SYSCALL_64_[k] 12" — the format FlameGraph,
 * speedscope and inferno read.  A frame ending in "_[k]" is a kernel
 * function (the annotation FlameGraph's palettes know).
 *
 * In the graph, siblings are sorted alphabetically: the x axis is not time,
 * and sorting makes two graphs of the same program line up.
 */
#ifndef FTR_FLAME_H
#define FTR_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct flame;

struct flame *flame_new(void);
void flame_free(struct flame *f);

/* Add count samples of one stack, frames[0] the outermost caller.  A stack
 * of no frames is counted at the root.  0, -ENOMEM. */
int flame_add(struct flame *f, const char *const *frames, size_t n, uint64_t count);
/* One folded line ("a;b;c 12", a trailing newline allowed).  0, -EINVAL
 * (no count, or a bad one), -ENOMEM.  A blank line is 0 and adds nothing. */
int flame_add_folded(struct flame *f, const char *line);
/* Every line of in; on -EINVAL *lineno (when not NULL) is the bad line. */
int flame_read_folded(struct flame *f, FILE *in, size_t *lineno);

uint64_t flame_total(const struct flame *f);
size_t flame_max_depth(const struct flame *f);

/* Each stack that has samples of its own (self > 0), in sorted order:
 * path[0..depth) from the outermost caller.  fn returning non-zero stops
 * the walk and is returned. */
typedef int (*flame_walk_fn)(const char *const *path, size_t depth, uint64_t self, void *arg);
int flame_walk(struct flame *f, flame_walk_fn fn, void *arg);

/* The same stacks as folded lines.  0 or -EIO (a write error on out). */
int flame_write_folded(struct flame *f, FILE *out);

struct flame_svg_opts {
	const char *title;	/* default "Flame Graph" */
	const char *subtitle;	/* a second line, e.g. how it was taken; or NULL */
	const char *unit;	/* default "samples" */
	int width;		/* default 1200 */
	double min_width;	/* frames narrower (pixels) are left out; default 0.05 */
};
/* The interactive SVG: hover shows name, samples and share; click zooms
 * (Escape or "Reset Zoom" goes back); "Search" (or Ctrl-F) highlights the
 * frames matching a regular expression and shows their share.  opts may
 * be NULL.  0 or -EIO. */
int flame_write_svg(struct flame *f, FILE *out, const struct flame_svg_opts *opts);

#endif
