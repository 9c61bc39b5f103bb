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

struct clause;
struct lang_err;
struct program;
struct tenv;

#define TYPED_MAX_FIELDS 16
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
	char explain[2048];	/* one line per field: the fetcharg and its source */
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
 * Compile clause ci of p: the typed parts of its predicate and body are
 * rewritten in place, and the fetchargs they need are in out (one set for
 * every probe of the clause).  *env is opened on first need (BTF, the
 * program's definitions).  arch: arch_name()'s; probe_syntax: the kernel's
 * (features.h PS_*; PS_CURRENT: curtask is $current).  tp: for a
 * tracepoint clause, its fields (NULL: none can be read through).  0, or
 * -errno with err.
 */
int typed_compile(struct tenv **env, struct program *p, int ci, const char *arch,
		  unsigned probe_syntax, const struct typed_tp *tp, struct typed_out *out,
		  struct lang_err *err);

#endif
