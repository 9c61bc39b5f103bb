// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Event-filter expressions bound to an event: each field resolved as the
 * kernel resolves it (filter_assign_type(), the generic fields), each
 * comparison typed as the kernel's predicate for it (see expr.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "filter/expr-int.h"

/* ---- binding ----------------------------------------------------------- */

static bool field_is_generic_cpu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "CPU") || !strcmp(name, "common_cpu");
}

static bool field_is_generic_comm(const char *name)
{
	return !strcmp(name, "comm") || !strcmp(name, "COMM");
}

/*
 * The kernel looks a filter's field up in the event's own fields, then in
 * its generic fields (cpu, CPU, common_cpu, comm, COMM), then in the common
 * fields (trace_find_event_field()).  Return a spelling of the generic field
 * that no field of this event shadows; common_cpu last, as it is the
 * youngest (stable backport).
 */
static const char *generic_kname(struct tep_event *ev, enum fkind kind)
{
	static const char *const cpu[] = { "cpu", "CPU", "common_cpu" };
	static const char *const comm[] = { "comm", "COMM" };
	const char *const *c = kind == FK_CPU ? cpu : comm;
	size_t n = kind == FK_CPU ? 3 : 2;

	for (size_t i = 0; i < n; i++)
		if (!tep_find_field(ev, c[i]))
			return c[i];
	return NULL;
}

/* "sched_switch's fields: a, b, ..., common_pid; also cpu, comm" */
static void unknown_field(struct tep_event *ev, const struct node *n, struct expr_err *err)
{
	struct tep_format_field *lists[2] = { ev->format.fields, ev->format.common_fields };
	char *b = err ? err->msg : NULL;
	size_t len = err ? sizeof(err->msg) : 0, off;
	const char *sep = "";

	if (!err)
		return;
	err->pos = n->pos;
	off = snprintf(b, len, "no field '%s' in %s:%s; fields: ", n->text,
		       ev->system ? ev->system : "?", ev->name ? ev->name : "?");
	if (off >= len)
		return;
	for (int l = 0; l < 2; l++) {
		for (struct tep_format_field *f = lists[l]; f; f = f->next) {
			size_t need = strlen(sep) + strlen(f->name);

			/* keep room for ", ..." */
			if (off + need + 6 >= len) {
				snprintf(b + off, len - off, ", ...");
				return;
			}
			off += snprintf(b + off, len - off, "%s%s", sep, f->name);
			sep = ", ";
		}
	}
	if (off < len)
		snprintf(b + off, len - off, "; also cpu, comm");
}

static int resolve_field(struct expr *x, struct node *n, struct expr_err *err)
{
	struct tep_event *ev = x->ev;
	struct tep_format_field *f = tep_find_field(ev, n->text);
	const char *type;

	memset(&n->f, 0, sizeof(n->f));
	if (!f && (field_is_generic_cpu(n->text) || field_is_generic_comm(n->text))) {
		n->f.kind = field_is_generic_cpu(n->text) ? FK_CPU : FK_COMM;
		n->f.sgn = n->f.kind == FK_CPU;
		n->f.size = 4;
		n->f.type = n->f.kind == FK_CPU ? "int" : "char[16]";
		n->f.kname = generic_kname(ev, n->f.kind);
		if (n->f.kind == FK_COMM) {
			/* comm is the current task's: looked up by common_pid */
			struct tep_format_field *pid = tep_find_common_field(ev, "common_pid");

			if (!pid) {
				seterr(err, n->pos, "'%s' needs common_pid, which %s:%s lacks",
				       n->text, ev->system, ev->name);
				return -1;
			}
			n->f.offset = pid->offset;
			n->f.size = pid->size;
			n->f.sgn = true;
		}
		return 0;
	}
	if (!f)
		f = tep_find_common_field(ev, n->text);
	if (!f) {
		unknown_field(ev, n, err);
		return -1;
	}
	type = f->type ? f->type : "";
	n->f.type = type;
	n->f.offset = f->offset;
	n->f.size = f->size;
	n->f.kname = n->text;

	/* filter_assign_type(), in the kernel's order */
	if (strstr(type, "__data_loc") || strstr(type, "__rel_loc")) {
		if (strstr(type, "cpumask")) {
			seterr(err, n->pos, "'%s' is a cpumask (%s); ftr cannot filter on cpumasks",
			       n->text, type);
			return -1;
		}
		if (!strstr(type, "char")) {
			seterr(err, n->pos, "'%s' is a dynamic array (%s); only char arrays "
			       "(strings) can be compared", n->text, type);
			return -1;
		}
		n->f.kind = strstr(type, "__rel_loc") ? FK_RSTR : FK_DSTR;
		if (f->size != 4) {
			seterr(err, n->pos, "'%s' (%s) has a %d-byte locator, not 4", n->text,
			       type, f->size);
			return -1;
		}
		return 0;
	}
	if (strchr(type, '[')) {
		if (!strstr(type, "char")) {
			seterr(err, n->pos, "'%s' is an array (%s); only char arrays (strings) "
			       "can be compared", n->text, type);
			return -1;
		}
		n->f.kind = FK_SSTR;
		return 0;
	}
	if (!strcmp(type, "char *") || !strcmp(type, "const char *")) {
		/* The kernel dereferences it at event time (kernel memory only
		 * without .ustring); the string is not in the record. */
		seterr(err, n->pos, "'%s' is a pointer (%s): the string it points to is not in "
		       "the event record, so ftr cannot compare it", n->text, type);
		return -1;
	}
	if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) {
		seterr(err, n->pos, "'%s' is an array (%s); only char arrays (strings) can be "
		       "compared", n->text, type);
		return -1;
	}
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) {
		/* select_comparison_fn() has no predicate for it: never true */
		seterr(err, n->pos, "'%s' (%s) is %d bytes; only 1, 2, 4 and 8-byte numbers can "
		       "be compared", n->text, type, f->size);
		return -1;
	}
	n->f.kind = FK_NUM;
	n->f.sgn = f->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

/* "'prev_comm', a string (char[16])" / "5, a number" / "the left side, a number" */
static void describe(const struct node *n, enum vtype t, char *buf, size_t len)
{
	const char *what = t == VT_STR ? "a string" : t == VT_NUM ? "a number" : "a condition";

	if (n->op == N_FIELD)
		snprintf(buf, len, "'%s', %s (%s)", n->text, what, n->f.type);
	else if (n->op == N_STR)
		snprintf(buf, len, "\"%.40s\", %s", n->text, what);
	else if (n->op == N_NUM)
		snprintf(buf, len, "%s%llu, %s", n->neg ? "-" : "", n->mag, what);
	else
		snprintf(buf, len, "the expression at column %d, %s", n->pos + 1, what);
}

/*
 * filter_parse_regex() without its leading '!': the kernel's choice of
 * match for a '~' pattern, and the part of the pattern it compares.
 */
static enum mtype classify(const char *b, int len, int *start, int *end)
{
	enum mtype type = M_FULL;

	*start = 0;
	*end = len;
	if (k_isdigit(b[0]))
		return M_FULL;		/* MATCH_INDEX, matched as MATCH_FULL */
	for (int i = 0; i < len; i++) {
		if (b[i] == '*') {
			if (!i) {
				type = M_END;
			} else if (i == len - 1) {
				type = type == M_END ? M_MIDDLE : M_FRONT;
				*end = i;
				break;
			} else {
				return M_GLOB;
			}
		} else if (b[i] == '[' || b[i] == '?' || b[i] == '\\') {
			return M_GLOB;
		}
	}
	if (b[0] == '*')
		*start = 1;
	return type;
}

/* The pattern to give the kernel for "field ~ pat" (see the top comment). */
static char *kernel_pattern(const char *pat, enum fkind kind)
{
	int bang = pat[0] == '!', len = (int)strlen(pat), start, end;
	const char *b = pat + bang;
	enum mtype m = classify(b, len - bang, &start, &end);
	char *k = malloc(len + 2);
	int at = -1;

	if (!k)
		return NULL;
	if (k_isdigit(b[0]) && strpbrk(b, "*?[\\"))
		at = bang;		/* "\1*": a glob, not an index */
	else if (m == M_END && (kind == FK_SSTR || kind == FK_COMM) && len - bang > 1)
		at = bang + 1;		/* "*\abc": a glob, not the array-end match */
	if (at < 0) {
		memcpy(k, pat, len + 1);
	} else {
		memcpy(k, pat, at);
		k[at] = '\\';
		memcpy(k + at + 1, pat + at, len - at + 1);
	}
	return k;
}

static int setup_str_pred(struct node *n, struct node *fld, struct node *lit, bool swapped,
			  struct expr_err *err)
{
	const char *src;
	int start, end, bang = 0;

	if (n->op != N_EQ && n->op != N_NE && n->op != N_GLOB && n->op != N_NGLOB) {
		seterr(err, n->pos, "'%s' does not apply to strings ('%s' is %s); use ==, != or ~",
		       op_str[n->op], fld->text, fld->f.type);
		return -1;
	}
	if (swapped && (n->op == N_GLOB || n->op == N_NGLOB)) {
		seterr(err, n->pos, "'%s' takes the field on its left and the pattern on its right",
		       op_str[n->op]);
		return -1;
	}
	n->p.type = fld->f.kind == FK_COMM ? P_COMM : P_STR;
	n->p.kop = n->op;
	n->p.fld = fld;
	if (n->op == N_EQ || n->op == N_NE) {
		/* == and != are MATCH_FULL on the pattern as written */
		n->p.kpat = strdup(lit->text);
		if (!n->p.kpat)
			goto oom;
		n->p.m = M_FULL;
		n->p.not = n->op == N_NE;
		start = 0;
		end = (int)strlen(n->p.kpat);
	} else {
		n->p.kpat = kernel_pattern(lit->text, fld->f.kind);
		if (!n->p.kpat)
			goto oom;
		/* filter_build_regex(): a leading '!' sets pred->not */
		bang = n->p.kpat[0] == '!';
		n->p.not = bang;
		n->p.m = classify(n->p.kpat + bang, (int)strlen(n->p.kpat) - bang, &start, &end);
	}
	src = n->p.kpat + bang;
	n->p.mpat = strndup(src + start, end - start);
	if (!n->p.mpat)
		goto oom;
	n->p.mlen = end - start;
	return 0;
oom:
	seterr(err, -1, "out of memory");
	return -1;
}

/*
 * A number for a numeric field, checked as the kernel's parse_pred() does:
 * kstrtoll() for a signed field, kstrtoull() (no '-') for an unsigned one;
 * the predicate then casts it to the field's type.  ftr is stricter on one
 * point: a value that fits the field's size in neither signedness would be
 * silently truncated by the kernel ("fd == 4294967297" is "fd == 1" on a
 * 4-byte fd), and for < <= > >= a value outside the field's own range would
 * change sign (0xffffffff is -1 to an int): both are refused.
 */
static int check_num_literal(const struct node *n, const struct node *fld,
			     const struct node *lit, unsigned long long *val, struct expr_err *err)
{
	int size = fld->op == N_FIELD ? fld->f.size : 8;
	bool sgn = fld->f.sgn, order = n->op != N_EQ && n->op != N_NE && n->op != N_BAND;
	const char *sign = sgn ? "signed" : "unsigned";
	long long lo;
	unsigned long long hi;

	if (fld->f.kind == FK_CPU)
		size = 4;
	if (!sgn && lit->neg) {
		seterr(err, lit->pos, "'%s' is unsigned (%s, %d bytes): the kernel refuses "
		       "negative values for it", fld->text, fld->f.type, size);
		return -1;
	}
	if (sgn && (lit->neg ? lit->mag > (1ULL << 63) : lit->mag > LLONG_MAX)) {
		seterr(err, lit->pos, "%s%llu is out of range for the signed '%s' (%s)",
		       lit->neg ? "-" : "", lit->mag, fld->text, fld->f.type);
		return -1;
	}
	*val = lit->neg ? 0 - lit->mag : lit->mag;
	if (size == 8)
		return 0;
	if (order && sgn) {
		lo = -(1LL << (8 * size - 1));
		hi = (1ULL << (8 * size - 1)) - 1;
	} else if (order || !sgn) {
		lo = 0;
		hi = (1ULL << (8 * size)) - 1;
	} else {
		lo = -(1LL << (8 * size - 1));
		hi = (1ULL << (8 * size)) - 1;
	}
	if (lit->neg ? (long long)*val < lo : lit->mag > hi) {
		seterr(err, lit->pos, "%s%llu does not fit the %s %d-byte '%s' (%s)",
		       lit->neg ? "-" : "", lit->mag, sign, size, fld->text, fld->f.type);
		return -1;
	}
	return 0;
}

static enum nop mirror(enum nop op)
{
	switch (op) {
	case N_LT: return N_GT;
	case N_LE: return N_GE;
	case N_GT: return N_LT;
	case N_GE: return N_LE;
	default: return op;
	}
}

static enum vtype bind_node(struct expr *x, struct node *n, struct expr_err *err);

/* An operand used as a condition: a comparison, a number, or a string field. */
static int bind_cond(struct expr *x, struct node *n, struct expr_err *err)
{
	enum vtype t = bind_node(x, n, err);

	if (t == VT_ERR)
		return -1;
	if (t == VT_STR && n->op != N_FIELD) {
		seterr(err, n->pos, "a string is not a condition; compare it with ==, != or ~");
		return -1;
	}
	return 0;
}

static int bind_number(struct expr *x, struct node *n, const struct node *op,
		       struct expr_err *err)
{
	enum vtype t = bind_node(x, n, err);
	char d[128];

	if (t == VT_ERR)
		return -1;
	if (t == VT_NUM)
		return 0;
	describe(n, t, d, sizeof(d));
	seterr(err, op->pos, "'%s' needs numbers, not %s", op_str[op->op], d);
	return -1;
}

static enum vtype bind_cmp(struct expr *x, struct node *n, struct expr_err *err)
{
	enum vtype lt = bind_node(x, n->l, err), rt;
	struct node *fld, *lit;
	bool swapped;
	char dl[128], dr[128];

	if (lt == VT_ERR)
		return VT_ERR;
	rt = bind_node(x, n->r, err);
	if (rt == VT_ERR)
		return VT_ERR;
	memset(&n->p, 0, sizeof(n->p));
	if (lt == VT_BOOL || rt == VT_BOOL) {
		seterr(err, (lt == VT_BOOL ? n->l : n->r)->pos,
		       "a comparison is not a value; '%s' needs %s on both sides",
		       op_str[n->op], n->op == N_GLOB || n->op == N_NGLOB ? "a string" : "values");
		return VT_ERR;
	}
	if ((n->op == N_GLOB || n->op == N_NGLOB) && (lt == VT_NUM || rt == VT_NUM)) {
		const struct node *num = lt == VT_NUM ? n->l : n->r;

		describe(num, VT_NUM, dl, sizeof(dl));
		seterr(err, n->pos, "'%s' matches strings, not %s", op_str[n->op], dl);
		return VT_ERR;
	}
	if (lt != rt) {
		describe(n->l, lt, dl, sizeof(dl));
		describe(n->r, rt, dr, sizeof(dr));
		seterr(err, n->pos, "cannot compare %s, with %s", dl, dr);
		return VT_ERR;
	}

	/* the kernel's shape: one field, one literal */
	swapped = n->l->op != N_FIELD && n->r->op == N_FIELD;
	fld = swapped ? n->r : n->l;
	lit = swapped ? n->l : n->r;
	if (lt == VT_STR) {
		if (fld->op == N_FIELD && lit->op == N_FIELD) {
			seterr(err, n->pos, "'%s' compares two string fields; a string field can "
			       "only be compared with a quoted string", op_str[n->op]);
			return VT_ERR;
		}
		if (fld->op != N_FIELD) {
			seterr(err, n->pos, "'%s' compares two constant strings", op_str[n->op]);
			return VT_ERR;
		}
		if (setup_str_pred(n, fld, lit, swapped, err))
			return VT_ERR;
		return VT_BOOL;
	}
	if (fld->op == N_FIELD && lit->op == N_NUM &&
	    (fld->f.kind == FK_NUM || fld->f.kind == FK_CPU)) {
		if (check_num_literal(n, fld, lit, &n->p.val, err))
			return VT_ERR;
		n->p.type = fld->f.kind == FK_CPU ? P_CPU : P_NUM;
		n->p.kop = swapped ? mirror(n->op) : n->op;
		n->p.fld = fld;
	} else {
		n->p.type = P_GENERIC;
	}
	return n->op == N_BAND ? VT_NUM : VT_BOOL;
}

static enum vtype bind_node(struct expr *x, struct node *n, struct expr_err *err)
{
	switch (n->op) {
	case N_NUM:
		if (n->neg && n->mag > (1ULL << 63)) {
			seterr(err, n->pos, "-%llu is below the smallest 64-bit number", n->mag);
			return VT_ERR;
		}
		return VT_NUM;
	case N_STR:
		return VT_STR;
	case N_FIELD:
		if (resolve_field(x, n, err))
			return VT_ERR;
		return is_str_kind(n->f.kind) ? VT_STR : VT_NUM;
	case N_NOT:
		return bind_cond(x, n->l, err) ? VT_ERR : VT_BOOL;
	case N_AND:
	case N_OR:
		if (bind_cond(x, n->l, err) || bind_cond(x, n->r, err))
			return VT_ERR;
		return VT_BOOL;
	case N_NEG:
		return bind_number(x, n->l, n, err) ? VT_ERR : VT_NUM;
	case N_ADD: case N_SUB: case N_MUL: case N_DIV: case N_MOD:
		if (bind_number(x, n->l, n, err) || bind_number(x, n->r, n, err))
			return VT_ERR;
		return VT_NUM;
	default:
		return bind_cmp(x, n, err);
	}
}

static void unbind(struct node *n)
{
	if (!n)
		return;
	unbind(n->l);
	unbind(n->r);
	free(n->p.kpat);
	free(n->p.mpat);
	memset(&n->p, 0, sizeof(n->p));
	memset(&n->f, 0, sizeof(n->f));
}

int expr_bind(struct expr *e, struct tep_event *ev, struct expr_err *err)
{
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	if (!e || !ev) {
		seterr(err, -1, "no expression or no event");
		return -EINVAL;
	}
	unbind(e->root);
	e->bound = false;
	e->ev = ev;
	e->tep = ev->tep;
	if (bind_cond(e, e->root, err)) {
		unbind(e->root);
		return -EINVAL;
	}
	e->bound = true;
	return 0;
}
