/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dynamic probes: kprobe, kretprobe, uprobe, uretprobe.
 *
 * Spec syntax (bpftrace spellings accepted):
 *
 *   kprobe:[MOD:]FUNC[+OFF]     k:      at a kernel function (or inside it)
 *   kretprobe:[MOD:]FUNC        kr:     when it returns; records `retval`
 *   uprobe:PATH:SYMBOL[+OFF]    u:      at a function of an executable or
 *   uprobe:PATH:0xADDR                  library (ADDR: a virtual address)
 *   uretprobe:PATH:SYMBOL       ur:     when it returns; records `retval`
 *
 * followed by fields, separated by spaces:  NAME=FETCH[:TYPE]  or  FETCH[:TYPE]
 * (the latter for argN/retval/comm, named after themselves), where FETCH is
 *
 *   argN     the N-th integer argument, numbered from 0 as in bpftrace
 *            (arg0 is the first; the kernel's $arg1).  Entry probes only,
 *            and only at the function's first instruction (no +OFF).
 *   retval   the return value (return probes only)
 *   comm     the current task's name
 *   %REG, $stackN, $stack, @ADDR, @SYM, +OFF(FETCH), $argN, \IMM ...
 *            a raw kernel fetcharg, passed through as written
 *
 * and TYPE is u8..u64, s8..s64, x8..x64, string or ustring.  Defaults: argN
 * u64, retval s64, comm string, raw: the kernel's default.  `string` on argN
 * or retval reads the string the value points to (+0(...):string); in
 * kprobes use `ustring` for a user-space pointer.  A PATH may be absolute,
 * relative, a program on $PATH or a library name ("libc", "libc.so.6");
 * paths with spaces or ':' cannot be probed (the kernel's command is
 * space-separated and splits PATH:OFFSET at ':').  Double quotes may group
 * a token ("uprobe:\"/a b\":f" is then refused with that reason).
 */
#ifndef FTR_PROBE_H
#define FTR_PROBE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct session;
struct features;
struct tracefs_dynevent;
struct tep_handle;
struct tep_event;

enum probe_kind {
	PROBE_KPROBE,
	PROBE_KRETPROBE,
	PROBE_UPROBE,
	PROBE_URETPROBE,
};

enum probe_fetch {
	PF_ARG,		/* argN */
	PF_RETVAL,	/* retval */
	PF_COMM,	/* comm */
	PF_RAW,		/* a kernel fetcharg as written */
};

#define PROBE_MAX_ARGS 24		/* join() fetches 16 strings, plus other fields */
#define PROBE_MAX_ARGN 15		/* arg0..arg15 (= ARCH_MAX_ARG) */
#define PROBE_NAME_MAX 64		/* kernel MAX_EVENT_NAME_LEN, with the NUL */
#define PROBE_SYM_MAX 512		/* kernel KSYM_NAME_LEN */

struct probe_arg {
	char name[PROBE_NAME_MAX];	/* the event's field name */
	enum probe_fetch fetch;
	unsigned idx;			/* PF_ARG: 0 = first argument */
	char raw[256];			/* PF_RAW: the fetcharg */
	char type[16];			/* "" = the default */
	int pos;			/* where the field starts in the spec text */
};

struct probe_spec {
	enum probe_kind kind;
	char module[64];		/* kprobe:MOD:FUNC; "" otherwise */
	char symbol[PROBE_SYM_MAX];	/* kernel function / ELF symbol; "" with has_addr */
	char path[PATH_MAX];		/* uprobes: the path as written */
	bool has_addr;			/* uprobe:PATH:0xADDR */
	unsigned long long addr;
	unsigned long long offset;	/* +OFF */
	unsigned long long ref_ctr;	/* uprobes: the file offset of a USDT semaphore
					 * the kernel raises while the probe exists
					 * (PATH:OFF(REF_CTR)); 0: none */
	/* kprobe/kretprobe of a function entry (kfunc:/kretfunc:): made an
	 * fprobe event ("f:") where the kernel has them (F_FPROBE), which
	 * ftrace attaches without a breakpoint; a kprobe otherwise. */
	bool fprobe;
	struct probe_arg args[PROBE_MAX_ARGS];
	int nargs;
	int pos_symbol, pos_path;	/* for messages */
};

struct probe_error {
	int pos;			/* byte offset in the spec text, -1 if none */
	char msg[320];
};

/* ---- pure parts (no tracefs, no root) ------------------------------------- */

/* Parse one probe spec.  0, or -EINVAL with err filled in. */
int probe_parse(const char *text, struct probe_spec *p, struct probe_error *err);
/* "ftr: bad probe 'TEXT': MSG", then the text and a caret under err->pos. */
void probe_perror(const char *text, const struct probe_error *err);

const char *probe_kind_name(enum probe_kind k);	/* "kprobe", "uretprobe", ... */
bool probe_kind_is_return(enum probe_kind k);
bool probe_kind_is_user(enum probe_kind k);

/*
 * The kernel fetchargs for p's fields ("count=$arg3:u64 retval=$retval:s64").
 * arch: arch_name()'s spelling; probe_syntax: features.probe_syntax.  argN
 * becomes $arg(N+1) in kprobes when the kernel has $argN (PS_ARGN), else —
 * and always in uprobes, which the kernel gives no $argN — the register or
 * stack slot from arch.c's table.  Return probes get retval=$retval:s64 when
 * no field fetches retval.  0, or -EINVAL/-ENOTSUP with err filled in.
 */
int probe_fetchargs(const struct probe_spec *p, const char *arch, unsigned probe_syntax,
		    char *out, size_t len, struct probe_error *err);

/*
 * Drop the retval field probe_fetchargs() adds to a return probe whose
 * fields fetch no retval (the last one, "retval=$retval:s64"), in place.
 * true if it was there.  A kernel that knows the function's type (BTF, 6.12)
 * refuses $retval where the function returns void: ftr then makes the probe
 * without it.
 */
bool probe_fetchargs_drop_retval(const struct probe_spec *p, char *fetchargs);

/*
 * A valid, unique event name for p: the symbol (or the file's name and the
 * address) sanitised to [A-Za-z0-9_], "__return" appended for return probes,
 * "_2", "_3"... appended when the name is in taken[0..ntaken), truncated to
 * fit PROBE_NAME_MAX.  0 or -ENOSPC.
 */
int probe_event_name(const struct probe_spec *p, const char *const *taken, size_t ntaken,
		     char *out, size_t len);

/*
 * Where this kernel has no kprobe events: the tracepoint carrying the same
 * data as kernel function func (entry, or its return when ret), from a small
 * table of common functions (vfs_write, vfs_read, do_sys_openat2, schedule,
 * do_exit, blk_mq_start_request, tcp_sendmsg, ...) and the __x64_sys_NAME /
 * ksys_NAME family.  Only tracepoints for which exists(sys, ev, ctx) is true
 * are offered.  0 with alt filled in, or -ENOENT.
 */
struct probe_alt {
	char tracepoint[128];		/* "syscalls:sys_enter_write" */
	const char *note;		/* "count = args.count", or NULL */
};
int probe_kprobe_alternative(const char *func, bool ret,
			     bool (*exists)(const char *sys, const char *ev, void *ctx),
			     void *ctx, struct probe_alt *alt);

/* ---- file system ------------------------------------------------------------ */

/*
 * The absolute canonical path of a uprobe PATH: a path with '/' (absolute or
 * relative to the current directory), else a library the process of
 * probe_lib_pid() maps, else a program on $PATH, else a library in ld.so's
 * cache, else in the system's library directories ("libc" → .../libc.so.6).
 * Refuses non-regular files and canonical paths with whitespace or ':'.
 * 0 or -errno with why filled in.
 */
int probe_resolve_path(const char *path, const char *arch, char *out, size_t len, char *why,
		       size_t whylen);

/* The process (-p) whose mappings a bare library name is looked up in
 * first, as bpftrace does; 0: none. */
void probe_lib_pid(int pid);

/*
 * The uprobe file offset of p (symbol or address, plus +OFF) in the ELF file
 * abspath, via elfsym.  *ifunc is set when the symbol is a GNU IFUNC (the
 * probe then hits its resolver).  0 or -errno with why filled in.
 */
int probe_uprobe_offset(const char *abspath, const struct probe_spec *p,
			unsigned long long *offset, bool *ifunc, char *why, size_t whylen);

/*
 * The loadable module kernel function func is likely to belong to, from the
 * files depmod and the kernel package leave in modroot (/lib/modules/RELEASE):
 * modules.symbols names the module of an exported function (md_flush_request:
 * md_mod); else a module named as the function's prefix (xfs_file_read_iter:
 * xfs; md_...: md_mod) in modules.dep or modules.order, unless it is built in
 * (modules.builtin).  1: mod is the function's module, 0: mod is a guess,
 * -ENOENT: none (or no such files).
 */
int probe_module_of(const char *modroot, const char *func, char *mod, size_t len);

/* Is module name loaded?  /proc/modules lists the loadable ones in memory. */
bool probe_module_loaded(const char *name);

/* Why kernel function func (of module, or NULL) cannot be probed, when it is
 * in neither available_filter_functions nor /proc/kallsyms: "not a function
 * of the running kernel (...): it is in module 'md_mod', which is not loaded
 * (modprobe md_mod)", from this machine's /lib/modules and /proc/modules.
 * snprintf's return. */
int probe_missing_why(const char *module, const char *func, char *buf, size_t len);

/* ---- creating probes --------------------------------------------------------- */

struct probe {
	enum probe_kind kind;
	char system[64];		/* session_name(): "ftr_<pid>" */
	char event[PROBE_NAME_MAX];
	char place[PATH_MAX + 64];	/* "vfs_write+4", "/usr/bin/x:0x1139" */
	bool fprobe;			/* made as an fprobe event ("f:") */
	char fetchargs[2048];
	/*
	 * The dynamic event, owned by the session once created: it is
	 * destroyed and freed at session_close(), so a struct probe must not be
	 * used after that.
	 */
	struct tracefs_dynevent *dyn;
};

/*
 * Create p as a dynamic event in the session's group (session_name(s)),
 * through session_dynevent_create(), which records its removal.  Prints its
 * own errors (with the kernel's error_log).  On a kernel without kprobe
 * events, kprobes fail with -ENOTSUP and a message naming a tracepoint that
 * carries the same data, when this kernel has one.  0 or -errno.
 *
 * The event is not enabled: enable out->system:out->event in the instance.
 * A tep loaded before the creation does not know the new event (records of
 * it are silently skipped): call probe_tep_event() for each probe, after
 * creating them all, before reading.
 */
int probe_create(struct session *s, const struct features *f, const struct probe_spec *p,
		 struct probe *out);

/*
 * The event name probe_create() (or, for an eprobe on tracepoint ev, kind
 * PROBE_KPROBE with symbol ev, probe_create_eprobe()) would give p next in
 * this process, without creating anything: over a recording that ftr record
 * made, the program's probes are the recorded events of these names, as
 * one process names its probes in the same order each run.  take: count
 * it as given.  0 or -ENOSPC.
 */
int probe_name_next(const struct probe_spec *p, bool take, char *out, size_t len);

/*
 * Create an eprobe on tracepoint sys:ev, in the session's group, with the
 * kernel fetchargs given ("path=+0($filename):ustring dfd=$dfd:u64"), named
 * after the tracepoint (made unique as probe_event_name() does).  Prints
 * its own errors.  0 or -errno; out as for probe_create (kind is left
 * PROBE_KPROBE, place is "sys.ev").
 */
int probe_create_eprobe(struct session *s, const char *sys, const char *ev, const char *fetchargs,
			struct probe *out);

/* Rescan pr's system into tep (tracefs_dynevent_get_event) and return the
 * event, or NULL. */
struct tep_event *probe_tep_event(struct tep_handle *tep, const struct probe *pr);

#endif
