/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the interpreter: what its rooms share and nothing outside
 * src/lang/ includes.  struct interp is one run of a program; its maps
 * (mapdef) say where each is kept (user space, a hist trigger, perf
 * counters); sema is the semantic pass's state, xctx one evaluation.  The
 * rooms: sema.c (semantic pass), eval.c (values), exec.c (statements),
 * events.c (the events a program needs), runloop.c (the run loop),
 * histtrig.c, perfcount.c, evfilter.c (the kernel pushdowns: hist triggers, perf
 * counters, event filters), replay.c (recordings), metrics.c (--serve).
 */
#ifndef FTR_INTERP_INT_H
#define FTR_INTERP_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>

#include "kernel/engine.h"
#include "kernel/khist.h"
#include "lang/maps/agg.h"
#include "lang/interp.h"
#include "lang/lang.h"
#include "lang/run/sampler.h"
#include "lang/maps/prom.h"
#include "lang/maps/tuple.h"
#include "report/output.h"

#define MAX_VARS 64
#define PRINTF_GUARD_RATE 5000		/* printf/s in a program's first quarter second */
/* The frames of an event's kstack: as many as a hist trigger's stacktrace
 * key holds (HIST_STACKTRACE_DEPTH), so that both paths give one answer. */
#define EVENT_KSTACK_MAX 16
/* Strings and stacks kept as map values: bounded, as maps are. */
#define INTERN_MAX (1u << 20)
/* A record literal assigned in another order of fields than its variable's
 * first (sema.c's record_order): at most this many fields */
#define RECORD_ORDER_MAX 16
/* mapdef.key_enum of a key part that is a buffer or a tuple, kept as the
 * number intern_put gives its bytes */
#define KEY_BUF_ID 0xfffffff0u
#define KEY_TUPLE_ID 0xfffffff1u
#define INTERN_MAX_BYTES ((size_t)64 << 20)
/* Measured on arm64 6.1: a hist trigger's stacktrace key at sched_switch
 * starts at schedule (or do_task_dead), one frame above __schedule, where
 * x86 starts at __schedule: the kernel skips a fixed number of frames,
 * counted for x86's unwinder.  The user path keeps that frame, so on arm64
 * stack keys stay there, and both paths still give one answer. */
#if defined(__aarch64__)
#define KSTACK_HIST_SHORT 1
#else
#define KSTACK_HIST_SHORT 0
#endif

/* A map aggregated by hist triggers, one per event of its clause. */
enum kkey { KK_COMM, KK_TID, KK_FIELD, KK_PROBE, KK_FUNC, KK_STACK, KK_SYM, KK_SYMOFF };

struct ktrig {
	struct eng_event *ev;
	const char *sys, *name;		/* the event the trigger is on: ev's, or
					 * raw_syscalls' for a fold (sys_fold) */
	int fold;			/* a fold: the clause's index + 1, else 0 */
	const char *fold_prefix;	/* a fold's "sys_enter_" or "sys_exit_" */
	struct khist_cmd cmd;
	struct tep_format_field *kf[AGG_MAX_KEYS];	/* KK_FIELD and KK_SYM* keys */
	struct tep_format_field *vf;			/* the value field, or NULL */
};

struct kmap {
	int nkeys;
	enum kkey kk[AGG_MAX_KEYS];
	bool value_is_key;		/* hist/lhist: the raw value is the last key */
	bool shared;			/* the triggers fill one named table (histtrig.c) */
	struct ktrig *t;
	int nt;
};

/* A keyless (or per-CPU) count kept by perf tracepoint counters: exact, no
 * ring buffer, where the kernel has no hist triggers. */
struct pcount {
	bool by_cpu;
	const char *fixed;		/* the comm a filter fixes the only key to, or NULL */
	char fixed_name[16];		/* its bytes, where -f's filter fixes it */
	struct eng_event *ev[64];
	char filter[64][2048];
	int nev;
	int fds[4096];
	int fd_cpu[4096];
	int nfds;
	/* clear(): a counter cannot be reset without losing the events that
	 * come between its read and the reset, so the map is each counter's
	 * value less its value at the last clear (base).  raw holds the values
	 * read once per clause run (snap_run): print(@); clear(@) then print
	 * and clear at one instant, and no event falls between the two. */
	uint64_t raw[4096];
	uint64_t base[4096];
	uint64_t snap_run;
};

struct mapdef {
	char *name;
	struct kmap *k;			/* in the kernel, or NULL */
	struct pcount *pc;		/* in perf counters, or NULL */
	int refs;			/* how many places name it */
	bool planned;			/* the plan says where it runs */
	enum agg_kind kind;
	int nkeys;
	enum agg_ktype kt[AGG_MAX_KEYS];
	int64_t lmin, lmax, lstep;	/* lhist; tseries: interval, n, agg_ts_fn */
	bool has_kind, keys_known;
	bool cleared;			/* clear() or zero() names it somewhere */
	bool zeroed;			/* zero() names it: its keys stay, at 0 */
	bool read_at_event;		/* print() or clear() of it at an event */
	bool full_warned;		/* a store found it full (let @m = hash(N)) */
	/* values of an enum (node.enum_id), as the first store and the first
	 * keys made them: printed by their enumerators' names */
	uint32_t key_enum[AGG_MAX_KEYS], val_enum;
	uint32_t val_ptr;		/* pointers as values (node.ptr_size) */
	bool val_typed;
	char *vtsig;			/* vt VT_TUPLE: the tuples' signature (tuple.h) */
	bool str_at_store;		/* str(@m[k]) of a pointer: the string, fetched
					 * where the pointer is stored (str_stores) */
	enum vtype vt;			/* what a plain store keeps: VT_INT, or a
					 * string or stack interned (VT_STR/STACK) */
	const struct node *first;
	struct agg *m;
	int stack_mode;			/* a stack key's kstack(perf|raw) mode */
};

/* What one engine event needs to run its clauses. */
struct evbind {
	int *clauses;			/* as many as the program has */
	int ncl, cap;
	char probe[256];		/* the `probe` builtin */
	char func[128];			/* the `func` builtin */
	struct tep_format_field *pid;
	struct tep_format_field *comm;	/* ftr_comm: the kprobe/uprobe's $comm */
	bool pred_pushed;		/* its clause's predicate is the event filter */
	bool hrprof;			/* a profile clause's eprobe (hrprof_clause) */
};

struct val {
	enum vtype t;
	int64_t i;
	bool u;			/* an unsigned 64-bit number (a u64 field, or computed from one) */
	const char *s;
	size_t len;			/* VT_STR: bytes; VT_STACK: frames */
	const uint64_t *ips;		/* VT_STACK */
};

struct interp {
	struct program *p;
	const struct run_opts *o;
	struct engine e;
	struct mapdef maps[64];
	int nmaps;
	/* tseries()'s clock: BPFTRACE_DUMMY_TS_MAP's map (bpftrace's tests), or
	 * NULL for the events' time; looked up at the first store */
	struct mapdef *ts_map;
	bool ts_looked;
	struct evbind *eb;
	/* The events read for the names tasks take (name_events_add): task_rename
	 * at exec or prctl, sched_process_fork for a new task; each one's
	 * event index (-1: not read), name and pid fields. */
	bool read_names;
	struct name_src {
		int idx;
		struct tep_format_field *name, *pid;
	} names[2];
	int nvars[256];			/* scratch variables per clause */
	char *varnames[256][MAX_VARS];
	struct val vars[MAX_VARS];
	unsigned char varwidth[MAX_VARS];	/* bytes of what a variable holds (bswap) */
	unsigned char varmode[MAX_VARS];	/* a stack's print mode (LANG_STACK_*) */
	int stack_dflt;				/* a stack's mode where none is named */
	uint32_t varenum[MAX_VARS];	/* the enum a variable holds a value of (node.enum_id) */
	uint32_t varptr[MAX_VARS];	/* a pointer's pointee size (node.ptr_size) */
	char *vartsig[MAX_VARS];	/* the tuples a variable holds (tuple.h) */
	struct tbuf varbuf[MAX_VARS];	/* a tuple variable's own copy of its bytes */
	struct tbuf *tbufs;		/* per tuple expression, where it is built */
	int ntbufs;
	struct outbuf ob;
	struct lang_err err;
	bool exit_req;
	bool exit_coded;	/* exit(code) ran: exit_code is the run's status */
	bool hists_added;	/* the hist triggers are in (hist_add_all) */
	int exit_code;
	uint64_t start_ns;
	uint64_t *next_fire;		/* per clause, for interval clauses */
	uint64_t printfs;
	bool guard_checked;
	bool guard_tripped;
	/* A stop signal seen during a clause (run_interrupted): SIGINT...,
	 * and how many; the work done since the last look. */
	int interrupted, nsignals;
	unsigned work;
	char plan[4096];
	size_t planlen;
	/* profile:hz:N */
	unsigned prof_hz;
	const struct lang_probe *prof_pr;	/* the sampler's probe (profile:, software:...) */
	bool prof_k, prof_u;		/* kstack / ustack read somewhere */
	bool proc_kernel_pids;		/* /proc/PID is the event's pid's (session.h) */
	struct lprof *prof;
	uint64_t ustk[1 + LPROF_MAX_FRAMES];	/* a ustack key: its tag, then frames */
	struct intern *vals;		/* strings and stacks kept as map values */
	char *fetch_why[256];		/* per clause: why str() cannot fetch (strfetch.h) */
	struct tenv *types;		/* C types (ctypes.h), opened on first need */
	struct typed_out *typed;	/* per clause: the fetchargs of its typed reads */
	/* per clause: a profile:hz clause that reads kernel memory, run on an
	 * eprobe on the sampler's timer interrupt (strfetch_hrprof) */
	bool *hrprof;
	uint64_t hrfn;			/* perf_swevent_hrtimer, the eprobe's filter */
	uint64_t runs;			/* clause runs so far: a perf counter's snapshot */
	bool exit_at_event;		/* an event clause calls exit() */
	struct ksyms *ks;		/* for ksym(), loaded when a program uses it */
	struct tep_format_field *fn_ip;	/* ftrace:function's ip (run/runloop.c) */
	int fn_graph;			/* fntrace_graph: 0 not decided, 1 no, 2 yes */
	/* the function tracer's record: its hook address, and its kstack
	 * as a kprobe's at that address reads (builtin-vars.c) */
	uint64_t fn_hook, fn_kstk[EVENT_KSTACK_MAX];
	/* function_graph's fields and each task's open calls (runloop.c) */
	struct tep_format_field *fg_func[2], *fg_depth[2], *fg_call, *fg_ret;
	struct fg_task *fg_tasks;
	bool want_exits;		/* uid or gid at events: the kernel's exit records */
	int ks_err;
	bool ks_warned;
	/* --serve, --prom-file: the maps as metrics */
	struct prom *prom;
	struct prom_map pmaps[64];
	char *phelp[64];
	char plabels[64][AGG_MAX_KEYS][64];
	struct serve *srv;
	struct outbuf *pob;
	uint64_t prom_next;
	bool prom_warned;
	struct kcore *kc;		/* *kaddr("sym") in BEGIN/END/interval */
	bool kc_warned;
	struct flagnames *gfp;		/* printf's %gr: kmem:kmalloc's gfp_flags names */
	bool div_zero_warned;
	struct outbuf *fmt;		/* system() and cat(): their formatted text */
};

struct sema {
	struct interp *in;
	int clause;
	const struct clause *c;
	struct eng_event **evs;		/* the clause's events */
	int nev;
	bool is_ret, is_kprobe, is_uprobe, has_record, is_profile;
	bool is_begin_end;		/* BEGIN, END: bpftrace's run in its own process */
	/* buf() may be the value checked: BUF_PRINTF an argument of printf or
	 * ntop (pton() too), BUF_VALUE a value kept or compared (check_buf) */
	unsigned char buf_ok;
#define BUF_PRINTF 1
#define BUF_VALUE 2
	int loops;			/* loops around the statement checked */
	struct lang_err *err;
};

struct xctx {
	struct interp *in;
	struct eng_event *ev;
	struct evbind *eb;
	struct tep_record *rec;
	const struct lprof_sample *smp;	/* profile:hz: the sample */
	uint64_t now;
	enum nk jump;			/* S_BREAK, S_CONTINUE, S_RETURN under way, or 0 */
	char scratch[128];
};

#define KSYM_TEXT 256

#define HRPROF_MAX 8

/* sema.c */
struct tep_format_field **field_table(struct sema *s, struct node *n, size_t per);
bool addr_field(const struct sema *s, const struct node *n);
int int_width(const struct sema *s, const struct node *n);
int check_field(struct sema *s, struct node *n);
int check_map_keys(struct sema *s, struct node *n);
struct mapdef *map_get(struct interp *in, const char *name);
struct mapdef *map_find(struct interp *in, const char *name);	/* NULL: none */
int agg_of(const char *call);
bool is_sym_call(const struct node *n);
bool is_hex_call(const struct node *n);
int check(struct sema *s, struct node *n);
/* builtins.c: the mode of a stack that names none (BPFTRACE_STACK_MODE,
 * config stack_mode), -1 for a bad BPFTRACE_STACK_MODE; the same at node n
 * (kstack's build_id is raw), or -EINVAL with the error. */
int stack_mode_env(const struct program *p);
int stack_default_mode(struct sema *s, struct node *n, bool kernel);
/* The print mode of a stack-valued expression (LANG_STACK_*). */
int stack_mode_of(const struct interp *in, const struct node *n);
int check_stmts(struct sema *s, struct node *st);
/* A condition (if, while, ?:, a predicate): a tuple is none. */
int check_cond(struct sema *s, struct node *n);

/* eval.c */
struct val vstr(const char *s, size_t len);
int tid_of(struct xctx *x);
/* A uprobe event's own file, placed by its address (builtin-vars.c), so that
 * a process gone before its addresses are named keeps the probed file's. */
void note_probed_file(struct xctx *x, int tgid);
struct val vint(int64_t i);
bool truthy(struct val v);
const struct ksyms *kernel_syms(struct interp *in);
int keys_of(struct xctx *x, const struct node *map, struct agg_kpart *k);
int64_t arith(enum tok op, int64_t a, int64_t b);
void div_zero_warn(struct interp *in, const struct node *n, enum tok op, int64_t b);
int strcmp_v(struct val a, struct val b);
struct val eval(struct xctx *x, const struct node *n);

/* builtins.c: a buffer's bytes as printf's %r (form 0), %rx ('x'), %rh ('h') */
void buf_text(struct outbuf *ob, const char *s, size_t len, char form);

/* exec.c */
void print_stack(struct interp *in, struct outbuf *ob, struct val v, int mode);
/* A tuple's stack element printed (tuple.h's tuple_stack_fn; arg: the interp). */
void tuple_stack(struct outbuf *ob, const uint64_t *ips, uint32_t n, int mode, void *arg);
void bt_line(struct interp *in, const char *type, const char *s, size_t n);
struct outbuf *bt_out(struct interp *in);
void bt_done(struct interp *in, struct outbuf *f, const char *type);
/* explicit: a print() call (an empty scalar map prints its zero) */
void print_map(struct interp *in, struct mapdef *m, int64_t top, int64_t div, bool explicit);
void run_clause(struct xctx *x, int ci, bool skip_pred);

/* runloop.c */
void planf(struct interp *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int on_event(struct engine *e, struct eng_event *v, struct tep_record *rec, void *arg);
int prof_open(struct interp *in);

/* events.c */
bool prof_reads_memory(const struct clause *c);
int name_events_add(struct interp *in);
void name_events_plan(struct interp *in);
int compile(struct interp *in, struct lang_err *err);

/* histtrig.c */
int hist_read(struct interp *in, struct mapdef *m);
int hist_op_all(struct interp *in, enum khist_op op);
int hist_stop(struct engine *e, void *arg);
void plan_hists(struct interp *in);
int hist_install(struct interp *in);

/* perfcount.c */
/* A stop signal (SIGINT, SIGTERM, SIGHUP) pending while a clause runs
 * (they are blocked for the session's signalfd, so nothing else would see
 * them before the clause ends): taken, said once, and the clause stopped
 * (exit_req).  Looked at every 16384 calls, or at each when now. */
bool run_interrupted(struct interp *in, const struct node *where, bool now);
int pc_plan(struct interp *in, int ci, char *why, size_t wlen);
int pc_start(struct interp *in, struct pcount *pc);
void pc_stop(struct pcount *pc);
int pc_read(struct interp *in, struct mapdef *m);
int pc_clear(struct interp *in, struct mapdef *m);
void pc_close(struct pcount *pc);

/* evfilter.c */
void plan_filters(struct interp *in);
int emit_sh(struct interp *in);

/* replay.c */
int lang_run_input(struct program *p, const struct run_opts *o);

/* metrics.c */
int metrics_open(struct interp *in);
int metrics_write_file(struct interp *in);
void metrics_tick(struct interp *in, uint64_t now);
void metrics_close(struct interp *in);

/* builtins.c: one row per builtin function (the table's format is
 * explained at the top of builtins.c). */
enum {					/* where: the clauses where it exists */
	BW_TRACEPOINT = 1 << 0,		/* tracepoints (and what replaces them) */
	BW_KPROBE = 1 << 1,		/* kprobe, kretprobe */
	BW_UPROBE = 1 << 2,		/* uprobe, uretprobe, usdt */
	BW_SAMPLE = 1 << 3,		/* profile, software, hardware: a perf sample */
	BW_SPECIAL = 1 << 4,		/* BEGIN, END, interval: no event */
	BW_EVENT = BW_TRACEPOINT | BW_KPROBE | BW_UPROBE,
	BW_ALL = BW_EVENT | BW_SAMPLE | BW_SPECIAL,
};
enum {					/* flags */
	BF_AGG = 1 << 0,		/* an aggregation (of kind agg): @m[k] = f(...) only */
	BF_OWN_ARGS = 1 << 1,		/* its checker checks its arguments itself */
	BF_BUF_ARGS = 1 << 2,		/* buf() may be an argument after the first */
};
enum {					/* push: what a kernel pushdown computes of it */
	BP_HIST_MAP = 1 << 0,		/* the aggregation, in a hist trigger (histtrig.c) */
	BP_PERF_COUNT = 1 << 1,		/* the aggregation, in perf counters (perfcount.c) */
	BP_HIST_KEY = 1 << 2,		/* f(field) as a hist key: the field */
	BP_HIST_KEY_SYM = 1 << 3,	/* ... the field.sym */
	BP_HIST_KEY_SYMOFF = 1 << 4,	/* ... the field.sym-offset */
	BP_HIST_KEY_ANY = BP_HIST_KEY | BP_HIST_KEY_SYM | BP_HIST_KEY_SYMOFF,
};

struct builtin_fn {
	const char *name;
	int min, max;			/* arguments */
	const char *args;		/* as ftr-language(7)'s table writes them */
	enum vtype ret;			/* VT_NONE: a statement or an aggregation */
	unsigned where, flags, push;
	enum agg_kind agg;		/* BF_AGG */
	int (*check)(struct sema *s, struct node *n);
	struct val (*eval)(struct xctx *x, const struct node *n);	/* a value */
	void (*exec)(struct xctx *x, const struct node *n);		/* a statement */
};

/* A builtin variable (enum builtin, lang.h): lang_builtin() finds it by
 * name for the parser. */
struct builtin_var {
	const char *name;
	enum vtype ret;
	unsigned where;
	int (*check)(struct sema *s, struct node *n);
	struct val (*eval)(struct xctx *x, const struct node *n);
};

/* The row of enum builtin b, or NULL (B_CONST, B_CURTASK: fetchargs.c's). */
const struct builtin_var *builtin_var(int b);
int check_var(struct sema *s, struct node *n);
struct val eval_var(struct xctx *x, const struct node *n);
/* nsecs, the variable's value (builtin-vars.c), which nsecs(clock) adjusts. */
struct val eval_nsecs(struct xctx *x, const struct node *n);
/* The kind of clause the semantic pass is in, as a BW_* bit, and a BW_*
 * set as text, for the messages of builtins.c and builtin-vars.c. */
unsigned clause_kind(const struct sema *s);
const char *where_text(unsigned where);
/* The row of a name (int(x), uint8_t(x)...: the cast of that width), or
 * NULL. */
const struct builtin_fn *builtin_find(const char *name);
/* The i-th row, NULL past the last (for tests and listings). */
const struct builtin_fn *builtin_at(size_t i);
/* A checked call's row; NULL for any other node. */
const struct builtin_fn *builtin_of(const struct node *n);
/* The agg_kind of an aggregation's name, or -1. */
int agg_of(const char *call);
int check_call(struct sema *s, struct node *n, bool as_map_value);
/* argvfetch.c: join(args.F) and str(args.F[K]) of a char ** field */
int check_join(struct sema *s, struct node *n);
void exec_join(struct xctx *x, const struct node *n);
int check_str_elem(struct sema *s, struct node *n);

/* exec.c: statements; values of enums and bools by name (node.enum_id) */
void exec(struct xctx *x, const struct node *st);
const char *enum_name(const struct interp *in, uint32_t id, int64_t v);
struct val enum_text(struct xctx *x, const struct node *n, struct val v, bool always);
const char *tuple_enum_name(uint32_t id, int64_t v, void *arg);

#endif
