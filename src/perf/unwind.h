/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * User stacks from a sample's registers and a copy of its stack
 * (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER), unwound with the
 * call-frame information (.eh_frame, .debug_frame) of the mapped files by
 * elfutils' libdwfl, as the samples arrive: only the return addresses are
 * kept, never the stack copies.
 *
 * One Dwfl per address space (struct sym_proc), its modules reported as the
 * walk meets them, from the profiler's own mmap records; libdw keeps each
 * file's CFI once parsed.  Where a file has no CFI, libdw's backend follows
 * the frame pointer.
 *
 * The static build has no libdw (it would not fit the size budget):
 * unwind_new() fails with -ENOTSUP there, and the callers say so.
 */
#ifndef FTR_UNWIND_H
#define FTR_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

struct perf_sample;
struct sym_ctx;
struct sym_proc;

enum unwind_mode {
	UNWIND_FP,	/* the kernel's frame-pointer chain */
	UNWIND_DWARF,	/* CFI from registers and a stack copy */
	UNWIND_AUTO,	/* CFI as far as the stack copy goes, then the FP chain */
};
#define UNWIND_STACK_DEFAULT 8192u
#define UNWIND_STACK_MAX 65528u	/* a record is at most 64 KB, registers too */

/* Why a walk ended. */
enum unwind_end {
	UNWIND_END_OK,		/* the outermost frame (CFI says: no caller) */
	UNWIND_END_MAX,		/* as many frames as the caller wanted */
	UNWIND_END_STACK,	/* the stack copy was too small */
	UNWIND_END_NOCFI,	/* a file without CFI, and no frame pointer */
	UNWIND_END_JIT,		/* code in anonymous memory (JIT) */
	UNWIND_END_UNMAPPED,	/* an address in no mapping */
	UNWIND_END_NOREGS,	/* no user registers in the sample */
	UNWIND_END_ERROR,	/* another libdw failure */
	UNWIND_END_N,
};
const char *unwind_end_str(enum unwind_end e);

/* Is there a CFI unwinder in this build (false: the static one). */
bool unwind_built(void);
/* sample_regs_user for this architecture (0: not supported here). */
uint64_t unwind_regs_mask(void);

struct unwinder;
/* An unwinder naming files through sc (its mappings, and where to read
 * them).  0, -ENOTSUP (no libdw in this build, or an architecture it does
 * not know), -ENOMEM. */
int unwind_new(struct sym_ctx *sc, struct unwinder **out);
void unwind_free(struct unwinder *u);
/* proc's address space is gone (its exit, or an exec): its libdwfl state
 * (files mapped, descriptors) goes too.  A sample of it read late only
 * builds it again. */
void unwind_forget(struct unwinder *u, struct sym_proc *proc);

struct unwind_result {
	int n;			/* frames in ips */
	enum unwind_end end;
	uint64_t end_pc;	/* the last frame's address (where it stopped) */
	int fp_in_copy;		/* how many return addresses a frame-pointer walk
				 * finds inside the stack copy */
};
/*
 * Unwind sample s (parsed with unwind_regs_mask()) of a thread of proc:
 * return addresses into ips[0..max), innermost (the sampled pc) first, as
 * the kernel's frame-pointer chain gives them.  0, or -errno (r->end says
 * why it stopped in either case).
 */
int unwind_sample(struct unwinder *u, struct sym_proc *proc, const struct perf_sample *s,
		  uint64_t *ips, int max, struct unwind_result *r);

/*
 * Auto mode: dw[0..r->n) from unwind_sample, fp[0..nfp) the kernel's
 * frame-pointer chain of the same sample (fp[0] the sampled pc).  Where the
 * CFI walk stopped early, the FP chain continues it: at the end of the
 * stack copy, with the FP chain's first return address stored beyond the
 * copy (r->fp_in_copy tells which: the CFI walk has found every one inside
 * it, the frameless callers the FP walk skips included); elsewhere, after
 * the first address the two chains share.  Writes into out[0..max)
 * (distinct from both); returns the count.
 */
int unwind_splice(const uint64_t *dw, const struct unwind_result *r, const uint64_t *fp, int nfp,
		  uint64_t *out, int max);

#endif
