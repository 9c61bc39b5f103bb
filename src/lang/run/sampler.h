/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The language's profile:hz:N probe: a cpu-clock (or cycles) sampler on
 * perf_event_open, its samples handed to the interpreter one by one with
 * their kernel and user stacks, and the naming of those stacks' frames when
 * the maps that keep them are printed.
 *
 *	lprof_open → lprof_start → lprof_drain ... → lprof_stop → lprof_drain
 *	→ (print maps with lprof_frame) → lprof_close
 *
 * Stacks are kept as addresses and named only at print time.  A user stack
 * needs its process to be named, so a ustack key carries it: its first
 * frame is LPROF_UTAG | pid, an address no process or kernel can have (not
 * canonical on any 64-bit architecture ftr runs on), which lprof_frame
 * takes as "the frames after this are in pid" and prints nothing for.
 */
#ifndef FTR_LPROF_H
#define FTR_LPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LPROF_UTAG 0xfeed000000000000ull
#define LPROF_TAG_MASK 0xffff000000000000ull
#define LPROF_MAX_FRAMES 127	/* as AGG_STACK_MAX and perf_event_max_stack */

struct lprof;

struct lprof_opts {
	unsigned hz;
	/* software:/hardware: probes: a perf event other than cpu-clock,
	 * sampled every `period` occurrences (type 0: cpu-clock at hz) */
	uint32_t type;
	uint64_t config, period;
	const char *name;		/* for messages: "software:page-faults:1" */
	bool kstack, ustack;		/* call chains wanted */
	int pid;			/* a process and what it forks; 0: every task */
	bool cmd;			/* pid is a command held before exec: enable
					 * on its exec */
	const bool *cpus;		/* NULL: all online */
	int ncpus;
};

struct lprof_sample {
	uint32_t pid, tid, cpu;
	uint64_t time;			/* CLOCK_MONOTONIC ns, as the trace clock */
	const uint64_t *k, *u;		/* innermost first */
	int nk, nu;
};

typedef int (*lprof_fn)(const struct lprof_sample *s, void *arg);

/* Open the sampler (disabled).  Errors are printed, with the setting to
 * change when perf_event_paranoid forbids it.  0 / -errno. */
int lprof_open(const struct lprof_opts *o, struct lprof **out);
/* No sampler: only the naming of kernel frames (lprof_frame), for the
 * kernel stacks of events.  Start, stop and drain do nothing.  0 / -errno. */
int lprof_names(struct lprof **out);
/* Called with each thread name the sampler's records carry (an exec, a
 * rename): a thread that is gone when a map prints keeps its name. */
void lprof_set_comm_fn(struct lprof *p, void (*fn)(int tid, const char *comm, void *arg),
		       void *arg);
int lprof_start(struct lprof *p);
int lprof_stop(struct lprof *p);
/* Hand every sample in the rings to fn, in time order.  fn's non-zero
 * return stops the read and is returned; else 0 (or -errno). */
int lprof_drain(struct lprof *p, lprof_fn fn, void *arg);
uint64_t lprof_samples(const struct lprof *p);
uint64_t lprof_lost(const struct lprof *p);
/* The sampling rate in effect (the kernel may allow less than asked). */
unsigned lprof_hz(const struct lprof *p);
/* An agg_sym_fn: a frame's name as bpftrace prints it ("vfs_write+5"),
 * "[unknown] (in /path)" for a user address in a file without its
 * symbol; 1 for a ustack tag (print nothing), 0 otherwise. */
int lprof_frame(uint64_t addr, uint32_t idx, unsigned how, char *buf, size_t len, void *p);
/* Whether user frames printed with AGG_SYM_LINES carry their source file
 * and line and the calls inlined there (config show_debug_info, on by
 * default as in bpftrace): "main+4@/src/a.c:12" after lines
 * "[inlined] f@/src/a.c:3", perf's "f (inlined)". */
void lprof_set_lines(struct lprof *p, bool on);
/* Process pid's user frames will be named: its /proc/PID/maps is read now,
 * once (an event's user stack, without the sampler's side band). */
void lprof_note_pid(struct lprof *p, int pid);
/* ... and process pid had the file path mapped with file offset off at
 * address ip (a uprobe's hit): its frames in that file are named from it
 * where its maps cannot be read (it has exited; another PID namespace). */
void lprof_note_file(struct lprof *p, int pid, const char *path, uint64_t off, uint64_t ip);
/* How many of the innermost frames of an event's kernel stack are the
 * tracing code that took it (trace_event_raw_event_*, __traceiter_*...). */
int lprof_skip_tracing(struct lprof *p, const uint64_t *ips, int n);
/* ... of a kernel stack recorded in the timer interrupt that takes a sample
 * (a profile clause's eprobe): the interrupt's, through its entry, so that
 * the stack starts where a sample's does, at the interrupted instruction
 * (none left: it interrupted user space).  0 where no entry is named. */
int lprof_skip_irq(struct lprof *p, const uint64_t *ips, int n);
/* The address of a frame as the kernel prints it in a hist ("func+0x4f8/
 * 0x9e0 [mod]"): the way back to what the user path keeps.  0 / -ENOENT. */
int lprof_kaddr(struct lprof *p, const char *frame, uint64_t *addr);
/* Why kernel frames cannot be named (kptr_restrict...), or NULL. */
const char *lprof_kernel_note(struct lprof *p);
void lprof_close(struct lprof *p);

#endif
