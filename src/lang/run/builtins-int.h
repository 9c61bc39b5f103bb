/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The builtin functions' rooms, private to run/: builtins.c holds the table
 * and the functions with a value; builtin-actions.c the ones that act.
 */
#ifndef FTR_LANG_RUN_BUILTINS_INT_H
#define FTR_LANG_RUN_BUILTINS_INT_H

#include "lang/interp-int.h"

/* printf's widest field and longest precision: printf's own are ints, and
 * bpftrace sizes its buffer per call from them (%999999999d, 1 GB there,
 * 22 s of CPU here); no line of output needs more. */
#define PRINTF_FIELD_MAX 4096
int check_printf(struct sema *s, struct node *n);
int check_print(struct sema *s, struct node *n);
int check_command(struct sema *s, struct node *n);
int check_exit(struct sema *s, struct node *n);
int check_time(struct sema *s, struct node *n);
void exec_time(struct xctx *x, const struct node *n);
void exec_command(struct xctx *x, const struct node *n);
void exec_printf(struct xctx *x, const struct node *n);
void exec_exit(struct xctx *x, const struct node *n);
void exec_print(struct xctx *x, const struct node *n);
void exec_clear(struct xctx *x, const struct node *n);
void exec_zero(struct xctx *x, const struct node *n);
struct val eval_delete(struct xctx *x, const struct node *n);
void exec_delete(struct xctx *x, const struct node *n);
int check_delete(struct sema *s, struct node *n);
int check_errorf(struct sema *s, struct node *n);
void exec_errorf(struct xctx *x, const struct node *n);
/* builtins.c's, for the actions' checks too */
int check_map_arg(struct sema *s, struct node *n);
void mark_bool(struct node *n);

#endif
