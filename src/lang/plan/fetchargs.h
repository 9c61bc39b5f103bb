/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C types in expressions, compiled into probe fetch arguments.
 *
 * A cast of an argument to a pointer type, `->`, `.`, `*p`, `p[N]`, `&`,
 * str() of a char * or char[] member, and buf() of a pointer, an array or
 * an argument (a u8[N] array fetch) become kernel fetchargs of the
 * clause's kprobe/uprobe ("t0=+0(+40(+24(%di))):string"), or of the eprobe
 * that stands in for its tracepoint (struct typed_tp), so that the
 * kernel reads the memory at the event — the only time it holds what the
 * program means.  The expression is rewritten into a read of that event
 * field (N_FIELD), so that the rest of ftr (filters, hist triggers, the
 * interpreter) sees an ordinary field.
 *
 * What a fetcharg cannot express is refused with its position and the
 * reason, never computed wrong: an address computed in user space (a
 * variable, arithmetic between two loads, a non-constant index), a struct
 * used as a value.  A pointer value plus a constant offset (&p->member) is
 * the fetched pointer plus the offset, added in user space.
 *
 * A $variable assigned a typed pointer keeps its type (at compile time)
 * for the reads that follow it in its clause; it is assigned once, outside
 * if blocks.  (TYPE)x to an integer type truncates as C does.
 */
#ifndef FTR_TYPED_H
#define FTR_TYPED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kallsyms.h"

struct clause;
struct lang_err;
struct program;
struct tenv;

#define TYPED_MAX_FIELDS 32
/* The most bytes buf() copies: bpftrace's default string length, which is
 * also the kernel's largest fetch array (MAX_ARRAY_LEN, since 4.20). */
#define TYPED_BUF_MAX 64

/* buf()'s largest copy: BPFTRACE_STRLEN where it is below TYPED_BUF_MAX. */
int typed_buf_cap(void);

struct typed_field {
	char name[16];		/* "t0" */
	char fetch[256];	/* "+24(%di)" */
	char type[24];		/* "u32", "string", "b3@5/8" */
};

/* A kfunc's arguments go by the names in its BTF prototype ("count",
 * "+64(file)") where the kernel takes them (PS_ARGNAME: it types them
 * from the same BTF); name[i] is fetched as off[i] ("$arg3") where it
 * refuses one after all (typed_fallback). */
#define TYPED_MAX_NAMES 8

struct typed_out {
	struct typed_field f[TYPED_MAX_FIELDS];
	int n;
	char explain[8192];	/* one line per field: the fetcharg and its source */
	char name[TYPED_MAX_NAMES][32], off[TYPED_MAX_NAMES][32];
	int nnames;
};

/* Field i's fetcharg with ftr's own argument fetches for the kernel's
 * argument names (the same value; a pure rewrite).  0, or -ENOSPC. */
int typed_fallback(const struct typed_out *o, int i, char *out, size_t len);

/*
 * A tracepoint clause's fields, read through by an eprobe on the event
 * (e:GRP/NAME SYS/EV t0=+8(+24($skbaddr)):u16): a field is the root of a
 * cast ((struct sk_buff *)args->skbaddr) or, where its format's type is a
 * struct pointer (args->rqtp->tv_sec), typed itself.  The fields of a
 * syscalls:* tracepoint are user addresses: their reads are +uOFF(...).
 */
struct typed_tp {
	bool eprobes;		/* this kernel has eprobe events */
	const char *why;	/* if not, what it lacks */
	bool user;		/* the fields point to user memory */
	/* The C type of field name in its format ("struct __kernel_timespec *"),
	 * the same in every event of the clause: 0, or -errno with why. */
	int (*field_type)(void *ctx, const char *name, char *type, size_t len, char *why,
			  size_t wlen);
	void *ctx;
};

/*
 * curtask where the kernel's probes have no $current fetch argument (added
 * to tracing/probes in July 2026; none of the kernels ftr is tested on has
 * it): the running task's per-CPU slot (kallsyms.h), read through a fetch
 * argument for each possible CPU, +&VAR(@&__per_cpu_offset[k]).
 * A handler runs on the CPU that records its event, with preemption off:
 * the slot of the event's CPU is the task that ran there, the others are
 * read harmlessly and dropped.  So each field that reads through curtask
 * becomes one field per CPU (t0 -> t0_0, t0_1...), and each read of it the
 * choice (cpu == 0 ? t0_0 : cpu == 1 ? t0_1 : ...), which no kernel filter
 * or hist trigger has: every plan computes it in ftr, alike.
 */
struct typed_cur {
	/* Where the slot is, asked on the first curtask (once per program):
	 * 0, or -errno with why. */
	int (*locate)(void *ctx, struct kallsyms_current *loc, char *why, size_t wlen);
	void *ctx;
	/* typed_compile's: */
	int state;		/* 0 not asked yet, 1 located, -errno */
	struct kallsyms_current loc;
	int64_t var;		/* &VAR plus the member's offset (pcpu_hot.current_task) */
	char why[256];
};

/*
 * Compile clause ci of p: the typed parts of its predicate and body are
 * rewritten in place, and the fetchargs they need are in out (one set for
 * every probe of the clause).  *env is opened on first need (BTF, the
 * program's definitions).  arch: arch_name()'s; probe_syntax: the kernel's
 * (features.h PS_*; PS_CURRENT: curtask is $current).  tp: for a
 * tracepoint clause, its fields (NULL: none can be read through).  cur:
 * where curtask is read without $current (NULL: refused there); the same
 * for every clause of p.  0, or -errno with err.
 */
int typed_compile(struct tenv **env, struct program *p, int ci, const char *arch,
		  unsigned probe_syntax, const struct typed_tp *tp, struct typed_cur *cur,
		  struct typed_out *out, struct lang_err *err);

#endif
