/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What this kernel lets ftr do, probed once per run from tracefs itself, from
 * /sys/kernel/security/lockdown, /proc/sys/kernel/{perf_event_paranoid,
 * kptr_restrict} and perf_event_open.  Never assumed from a version number.
 */
#ifndef FTR_FEATURES_H
#define FTR_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/session.h"

enum feat_id {
	F_TRACEPOINTS,
	F_SYSCALLS,
	F_FILTERS,
	F_KPROBE,
	F_UPROBE,
	F_FPROBE,
	F_EPROBE,
	F_HIST,
	F_SYNTH,
	F_FUNCTION,
	F_FUNCTION_GRAPH,
	F_ERROR_LOG,
	F_PERF,
	F_PERF_CPU_CLOCK,
	F_PERF_HW,
	F_KALLSYMS,
	F_NR
};

/* hist trigger modifiers, as listed in the tracefs README */
enum {
	HM_HEX = 1 << 0,
	HM_SYM = 1 << 1,
	HM_SYM_OFFSET = 1 << 2,
	HM_EXECNAME = 1 << 3,
	HM_SYSCALL = 1 << 4,
	HM_LOG2 = 1 << 5,
	HM_BUCKETS = 1 << 6,
	HM_USECS = 1 << 7,
	HM_PERCENT = 1 << 8,
	HM_GRAPH = 1 << 9,
	HM_STACKTRACE = 1 << 10,	/* .stacktrace modifier */
	HM_COMMON_STACKTRACE = 1 << 11,	/* key `common_stacktrace` (else `stacktrace`) */
};

/* probe fetch syntax, from the README */
enum {
	PS_ARGN = 1 << 0,	/* $arg<N> */
	PS_RETVAL = 1 << 1,
	PS_COMM = 1 << 2,
	PS_USTRING = 1 << 3,
	PS_SYMSTR = 1 << 4,
	PS_RETURN_SUFFIX = 1 << 5,	/* uprobe place%return */
	PS_FPROBE_LINE = 1 << 6,	/* "f[:[<group>/][<event>]]" */
	PS_EPROBE_LINE = 1 << 7,	/* "e[:[<group>/][<event>]]" — not proof (docs/libraries.md) */
	PS_CURRENT = 1 << 8,	/* $current, the task_struct (tracing/probes, July 2026) */
	PS_ARGNAME = 1 << 9,	/* <argname>: by BTF name (6.8, CONFIG_PROBE_EVENTS_BTF_ARGS) */
	PS_RET_ARGN = 1 << 10,	/* $arg<N> in a return probe, kept at the entry (6.10) */
};

struct feature {
	bool yes;
	char detail[192];
};

/* The kernel's BPF, for what bpftrace and bcc need (ftr needs none of it). */
enum bpf_state {
	BPF_PRESENT,	/* bpf() exists (it may still refuse this user) */
	BPF_ABSENT,	/* no bpf() system call: CONFIG_BPF_SYSCALL is off */
	BPF_BLOCKED,	/* the kernel has it, bpf() says ENOSYS: a seccomp filter */
};

/* Pure: the verdict from bpf(BPF_PROG_LOAD)'s errno (0 if it succeeded) and
 * whether /proc/sys/kernel/unprivileged_bpf_disabled exists. */
enum bpf_state features_bpf_state(int bpf_errno, bool bpf_sysctl);

struct features {
	struct ftr_tracefs tfs;
	enum bpf_state bpf;
	bool btf;		/* /sys/kernel/btf/vmlinux is readable */
	char kernel[128];	/* uname -r */
	char arch[65];		/* uname -m */
	char lockdown[32];	/* none, integrity, confidentiality, unknown */
	bool lockdown_inferred;
	bool tracing_locked;	/* lockdown forbids tracing: tracefs is empty */
	bool tracefs_closed;	/* tracefs's mode shuts this user out (not lockdown) */
	bool root;
	int paranoid;		/* INT_MIN when unreadable */
	int kptr_restrict;	/* -1 when unreadable */
	int panic_on_warn;	/* kernel.panic_on_warn, -1 when unreadable */
	int nr_systems, nr_events;
	unsigned hist_mods;
	unsigned probe_syntax;
	struct feature f[F_NR];
	/* The function tracers listed in available_tracers but refused when
	 * tried in the session's instance (a hardened kernel's EPERM): the
	 * refusal's -errno, 0 when usable or not listed.  probe_ftrace. */
	int func_err, graph_err;
	/* function_graph is listed at the top level only: before 6.11 it runs
	 * in no instance (trace_functions_graph.c, .allow_instances). */
	bool graph_top_only;
};

struct feature_info {
	const char *key;	/* JSON key */
	const char *label;	/* text label */
};
extern const struct feature_info feature_info[F_NR];

/* What ftr does instead when feature id is missing (depends on the rest). */
const char *features_instead(const struct features *f, enum feat_id id);

/* Pure: what the tracefs README says (hist modifiers, probe syntax). */
void features_parse_readme(const char *readme, unsigned *hist_mods, unsigned *probe_syntax);
/* Pure: the bracketed word of /sys/kernel/security/lockdown. */
int features_parse_lockdown(const char *text, char *out, size_t len);
/* Pure: true when every address in a /proc/kallsyms extract is zero. */
bool features_kallsyms_hidden(const char *text);
/* Names of hist modifiers set in mask, space-separated (".log2 .execname"). */
void features_hist_mods_str(unsigned mask, char *buf, size_t len);

/*
 * The cost of changing triggers and filters.  Adding, pausing and removing a
 * hist trigger, and replacing or clearing an event filter, each wait in the
 * kernel for the events running on every CPU to finish
 * (tracepoint_synchronize_unregister: SRCU and RCU grace periods): some
 * milliseconds on an idle machine, 10-30 ms in an emulated guest, longer on
 * a busy box.  features_grace_ns measures one RCU grace period the way the
 * kernel waits for it (membarrier(MEMBARRIER_CMD_GLOBAL) is
 * synchronize_rcu()): the median of three, in ns, or 0 when the kernel has
 * no membarrier.  Nothing changes in the kernel.
 *
 * Per hist trigger, counted in such waits (kernel/trace/trace_events_trigger.c
 * and trace_events_hist.c, 6.1): created, its `hist` read (the reader's
 * own), removed with the instance (one wait more for a filter, freed
 * behind one of its own); where the stop cannot be one wait for all
 * (session_freeze), a `:pause` each, one more with a filter (the command's
 * trigger and filter are parsed, then freed behind a wait each).
 * Measured in the 6.1 guest: 28, 28, 11 and 15 ms (32 with a filter).
 */
#define KCOST_TRIGGER_WAITS 3
#define KCOST_TRIGGER_FILTER_WAITS 1
#define KCOST_PAUSE_WAITS 1
#define KCOST_PAUSE_FILTER_WAITS 1
uint64_t features_grace_ns(void);

/* Probe everything.  A session is used only for eprobe support, which the
 * README cannot prove: one throwaway eprobe in the session's own group.
 * session may be NULL (then eprobe support is inferred from the README).  */
int features_probe(struct features *f, struct session *s);

#endif
