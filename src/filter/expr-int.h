/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The insides of a parsed filter expression (expr.h), shared by the files
 * of filter/ that read its tree: expr.c, which parses, binds, evaluates and
 * renders it for the kernel, and expr-lang.c, which renders it in ftr's
 * language.  Private to this folder.
 */
#ifndef FTR_EXPR_INT_H
#define FTR_EXPR_INT_H

#include <stdbool.h>

/* Kernel limits (trace.h, trace_events_filter.c, trace_events.c). */
#define K_MAX_STR_VAL	256	/* MAX_FILTER_STR_VAL: a pattern must be shorter */
#define K_MAX_NUM_LEN	24	/* num_buf[24]: a number must be shorter */
#define K_MAX_FILTER	4096	/* event_filter_write(): cnt >= PAGE_SIZE is EINVAL */
#define K_TASK_COMM_LEN	16

#define MAX_NODES	4096	/* far above what fits in a kernel filter */

enum nop {
	N_NUM, N_STR, N_FIELD,
	N_NEG,
	N_NOT, N_AND, N_OR,
	N_EQ, N_NE, N_LT, N_LE, N_GT, N_GE, N_BAND, N_GLOB, N_NGLOB,
	N_ADD, N_SUB, N_MUL, N_DIV, N_MOD,
};

/* How the kernel stores a field (filter_assign_type() and the generic fields). */
enum fkind {
	FK_NONE,
	FK_NUM,		/* FILTER_OTHER of size 1, 2, 4 or 8 */
	FK_SSTR,	/* FILTER_STATIC_STRING: char[N] */
	FK_DSTR,	/* FILTER_DYN_STRING: __data_loc char[] */
	FK_RSTR,	/* FILTER_RDYN_STRING: __rel_loc char[] */
	FK_CPU,		/* FILTER_CPU: cpu, CPU, common_cpu */
	FK_COMM,	/* FILTER_COMM: comm, COMM */
};

/* How a comparison is evaluated. */
enum ptype {
	P_NONE,
	P_NUM,		/* numeric field OP literal: filter_pred_{s,u}{8..64} */
	P_CPU,		/* cpu OP literal: filter_pred_cpu() */
	P_STR,		/* string field OP literal: filter_pred_{string,strloc,strrelloc} */
	P_COMM,		/* comm OP literal: filter_pred_comm() */
	P_GENERIC,	/* ftr only: 64-bit values on both sides */
};

/* The kernel's regex_type, as chosen by filter_parse_regex(). */
enum mtype { M_FULL, M_FRONT, M_MIDDLE, M_END, M_GLOB };

enum vtype { VT_ERR = -1, VT_NUM, VT_STR, VT_BOOL };

struct node {
	enum nop op;
	int pos;			/* column of the operator, or of the token */
	struct node *l, *r;

	/* N_NUM: the literal as written, magnitude and sign, for the kernel */
	unsigned long long mag;
	bool neg;
	int base;

	/* N_STR: verbatim text; N_FIELD: the name.  NUL-terminated. */
	char *text;

	/* N_FIELD, after bind */
	struct {
		enum fkind kind;
		int offset, size;	/* FK_COMM: those of common_pid */
		bool sgn;
		const char *type;	/* C type, for messages */
		const char *kname;	/* a spelling the kernel resolves to this field */
	} f;

	/* comparisons, after bind */
	struct {
		enum ptype type;
		enum nop kop;		/* the operator with the field on the left */
		const struct node *fld;
		unsigned long long val;	/* the literal as the kernel stores it */
		char *kpat;		/* the pattern written to the kernel */
		char *mpat;		/* its search part (what the match compares) */
		int mlen;
		enum mtype m;
		bool not;		/* the kernel's pred->not */
	} p;
};

struct expr {
	struct node *root;
	int nnodes;
	struct node **fields;		/* N_FIELD nodes in source order */
	int nfields, capfields;
	struct tep_event *ev;
	struct tep_handle *tep;
	bool bound;
};

#endif
