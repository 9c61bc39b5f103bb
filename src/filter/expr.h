/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftr's event-filter expressions: one parser and evaluator whose answers are
 * the kernel's.  libtraceevent's tep_filter is not used: it compares signed
 * fields as unsigned, misparses negative numbers and crashes on incomplete
 * input (docs/libraries.md L5).
 *
 * Life of an expression:
 *
 *	e = expr_parse(text, &err);		syntax only, no event needed
 *	expr_bind(e, event, &err);		fields resolved, types checked
 *	expr_kernel_ok(e, why, len)		can events/S/E/filter do it?
 *	expr_to_kernel(e, buf, len)		  ... then this is what to write there
 *	expr_eval(e, record, &ctx)		per event in user space (hot path)
 *	expr_free(e);
 *
 * A bound expression gives the same answer in the kernel (after
 * expr_to_kernel) and in expr_eval, on every kernel from 5.10 on.
 *
 * Grammar (the kernel's filter grammar, Documentation/trace/events.rst §5,
 * plus arithmetic):
 *
 *	expr    := or
 *	or      := and ( "||" and )*
 *	and     := not ( "&&" not )*
 *	not     := "!" not | cmp		! negates a whole comparison, as in
 *						the kernel: !a == 1 is !(a == 1)
 *	cmp     := sum [ cmpop sum ]		comparisons do not chain
 *	cmpop   := "==" | "!=" | "<" | "<=" | ">" | ">=" | "&" | "~" | "!~"
 *	sum     := product ( ("+" | "-") product )*
 *	product := unary ( ("*" | "/" | "%") unary )*
 *	unary   := "-" unary | primary
 *	primary := NUMBER | STRING | FIELD | "(" expr ")"
 *
 *	NUMBER  decimal, 0x hex, 0 octal (the kernel's kstrtoull rules);
 *		"-2" is a negative literal
 *	STRING  "..." or '...', taken verbatim up to the next matching quote:
 *		no escapes, as in the kernel (a backslash reaches the glob)
 *	FIELD   any field of the event (common_pid, ...), and the kernel's
 *		special fields cpu/CPU/common_cpu (the CPU the event ran on)
 *		and comm/COMM (the current task's name).  As in the kernel, a
 *		field of the event itself wins: on sched:sched_waking, "comm"
 *		is the woken task's comm field, "COMM" the current task.
 *
 * Semantics, all as the kernel's kernel/trace/trace_events_filter.c:
 *  - field OP number compares in the field's own C type: its size (1, 2, 4
 *    or 8 bytes) and signedness (format "signed:1").  A negative number
 *    on an unsigned field is an error (the kernel's kstrtoull refuses it).
 *    Syscall tracepoints record every argument as 8-byte unsigned, whatever
 *    its C type: "dfd == -100" is refused on syscalls:sys_enter_openat.
 *  - field & number is true when the bitwise and is non-zero.
 *  - strings: == and != compare exactly; ~ matches a glob (*, ?, [a-z],
 *    [!a], \x) against the whole string; a pattern starting with '!'
 *    negates the match (the kernel's rule).  !~ is ftr's: !(f ~ "p").
 *  - && binds tighter than ||; both short-circuit.
 *  - a bare field is a condition: non-zero, or non-empty for a string.
 *  - arithmetic (+ - * / %) is ftr's own: 64-bit two's complement, signed
 *    unless an operand is an unsigned 64-bit field; x / 0 and x % 0 are 0.
 *    Anything with arithmetic, or comparing two fields, runs in user space
 *    only (expr_kernel_ok says why).
 */
#ifndef FTR_EXPR_H
#define FTR_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct tep_event;
struct tep_record;

struct expr;				/* opaque; every node keeps its source position */

struct expr_err {
	int pos;			/* 0-based column in the source text, -1 if none */
	char msg[256];			/* lowercase, no trailing newline */
};

/* Parse text.  NULL on error with err filled and errno set (EINVAL for a
 * bad expression, ENOMEM).  err may be NULL. */
struct expr *expr_parse(const char *text, struct expr_err *err);
void expr_free(struct expr *e);

/* Resolve the field names against one event and type-check.  0, or -EINVAL
 * with err filled: an unknown field (the message lists the event's fields,
 * its own first, then common_*), a string against a number or the reverse
 * (naming both), ~ on a number, a value the field cannot hold, a pointer or
 * a non-string array.  May be called again to bind to another event; the
 * previous binding is dropped. */
int expr_bind(struct expr *e, struct tep_event *ev, struct expr_err *err);

/* What expr_eval needs that is not in the record. */
struct expr_ctx {
	int cpu;			/* CPU the record was written on; < 0: rec->cpu */
	/* current task name for comm/COMM; NULL (or no ctx): unknown, which
	 * compares as the empty string */
	const char *(*comm)(int pid, void *arg);
	void *arg;
};

/* Evaluate a bound expression on one record of the bound event.  No
 * allocation, no formatting, no writes to e: threads may share one bound
 * expression (the tep_handle is only read).  false if e is not bound. */
bool expr_eval(const struct expr *e, const struct tep_record *rec, const struct expr_ctx *ctx);

/* The kernel's ~ on a string of len bytes (stopping at a NUL): its glob,
 * and a leading '!' in pat negates.  For the language's ~. */
bool expr_glob(const char *pat, const char *s, size_t len);

/* Can the kernel's filter evaluate this bound expression exactly?  false
 * with the reason in why (may be NULL) for arithmetic, field-to-field
 * comparisons, strings the kernel cannot quote or hold, and the like. */
bool expr_kernel_ok(const struct expr *e, char *why, size_t len);

/* Render a bound, kernel-ok expression in the kernel's filter syntax, for
 * events/S/E/filter.  Patterns may come out escaped (see render.c) so that
 * the kernel matches exactly what expr_eval matches.  0, -ENOSPC when len
 * is too small, -EINVAL when unbound or not kernel-ok. */
int expr_to_kernel(const struct expr *e, char *buf, size_t len);

/* Render in ftr's own syntax, normalized spacing and parentheses; works
 * unbound (for --explain and error messages).  0 or -ENOSPC. */
int expr_format(const struct expr *e, char *buf, size_t len);

/* The distinct field names e reads, as written, in order of first use.
 * Fills up to max pointers (valid until expr_free) and returns how many
 * there are, which may be more than max. */
int expr_fields(const struct expr *e, const char **names, int max);

/* The name a bound e fixes the current task's comm to: e is `comm == "NAME"`
 * (the generic comm, not a field of the event by that name), or that and
 * more (&&), NAME without glob characters; else NULL.  Valid until
 * expr_free. */
const char *expr_fixed_comm(const struct expr *e);

/* Render a parsed e (bound or not) as a predicate of ftr's language with
 * the same meaning, for the commands that stand for a program (ftr count
 * -f): fields are args.NAME, the kernel's generic comm, cpu and common_pid
 * the task's comm, cpu and tid unless has_field(name, arg) says the event
 * has a field of that spelling (which the kernel's filter takes).  0;
 * -ENOTSUP with why where the language says it otherwise (~ and !~
 * patterns, arithmetic, strings with glob characters or escapes, other
 * common_ fields); -ENOSPC. */
int expr_to_lang(const struct expr *e, bool (*has_field)(const char *name, void *arg), void *arg,
		 char *buf, size_t len, char *why, size_t wlen);

#endif
