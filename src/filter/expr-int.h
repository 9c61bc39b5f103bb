/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Event-filter expressions' insides, shared by the four files of their four
 * jobs (and expr-lang.c, which reads it for ftr's language) and by nothing
 * else: parse.c (text to a tree), bind.c (the tree
 * against an event's fields, as the kernel would take it), eval.c (a record
 * matched as the kernel matches it) and render.c (the tree written back, for
 * the kernel's filter file or for people).  expr.h is the contract.
 */
#ifndef FTR_FILTER_EXPR_INT_H
#define FTR_FILTER_EXPR_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "filter/expr.h"

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

static const char *const op_str[] __attribute__((unused)) = {
	[N_NEG] = "-", [N_NOT] = "!", [N_AND] = "&&", [N_OR] = "||",
	[N_EQ] = "==", [N_NE] = "!=", [N_LT] = "<", [N_LE] = "<=", [N_GT] = ">",
	[N_GE] = ">=", [N_BAND] = "&", [N_GLOB] = "~", [N_NGLOB] = "!~",
	[N_ADD] = "+", [N_SUB] = "-", [N_MUL] = "*", [N_DIV] = "/", [N_MOD] = "%",
};

/* Binding precedence, for parenthesizing when rendering. */
enum { PR_OR = 1, PR_AND, PR_NOT, PR_CMP, PR_ADD, PR_MUL, PR_UNARY, PR_PRIMARY };

static inline int prec(enum nop op)
{
	switch (op) {
	case N_OR:
		return PR_OR;
	case N_AND:
		return PR_AND;
	case N_NOT:
		return PR_NOT;
	case N_EQ: case N_NE: case N_LT: case N_LE: case N_GT: case N_GE:
	case N_BAND: case N_GLOB: case N_NGLOB:
		return PR_CMP;
	case N_ADD: case N_SUB:
		return PR_ADD;
	case N_MUL: case N_DIV: case N_MOD:
		return PR_MUL;
	case N_NEG:
		return PR_UNARY;
	default:
		return PR_PRIMARY;
	}
}

static inline bool is_cmp(enum nop op)
{
	return prec(op) == PR_CMP;
}

static inline bool is_arith(enum nop op)
{
	return op == N_NEG || prec(op) == PR_ADD || prec(op) == PR_MUL;
}

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

/* The kernel's isdigit() (the C locale's, whatever ours is). */
static inline bool k_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

/* A field the kernel compares as a string. */
static inline bool is_str_kind(enum fkind k)
{
	return k == FK_SSTR || k == FK_DSTR || k == FK_RSTR || k == FK_COMM;
}

/* An error at column pos (parse.c). */
__attribute__((format(printf, 3, 4)))
void seterr(struct expr_err *err, int pos, const char *fmt, ...);

#endif
