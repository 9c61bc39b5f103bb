/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftr's language: a bpftrace-compatible subset.  This header is the syntax
 * tree the parser builds and the semantic pass annotates; every node keeps
 * its source position, so that every error can point at its cause.
 *
 *	program := clause+
 *	clause  := probe ("," probe)* ["/" expr "/"] block
 *	block   := "{" [stmt (";" stmt)* [";"]] "}"
 *	stmt    := "if" expr block ["else" (block | if-stmt)]
 *	         | map "=" expr | map op= expr | map "++" | map "--"
 *	         | var "=" expr | var op= expr | expr
 *	         | "let" var [":" TYPE] ["=" expr]	(an S_ASSIGN with decl set)
 *	         | "for" "(" var ":" (expr ".." expr | map) ")" block
 *	         | "while" expr block | "unroll" "(" INT ")" block
 *	         | "break" | "continue" | "return"
 *	expr    := C's operators and precedence: ?: || && | ^ & == != ~ !~ < <= > >=
 *	           << >> + - * / % unary(! - ~) postfix(call, [keys], .field, ->field);
 *	           s ~ "glob" matches a string as the kernel's filter does, s !~ "glob"
 *	           is its negation (ftr's own); "!~x" before an operand is !(~x)
 *	primary := INT | "STRING" | builtin | args.F | $var | @map[keys] | name(args) | (expr)
 *
 * Before the clauses (the preamble), beside C definitions:
 *	config = { NAME = VALUE; ... }		(struct program's config fields)
 *	let @map = hash(N);			(and lruhash, percpuhash, percpulruhash)
 *	macro NAME(x, $v, @m) { ... }		(expanded by the parser: N_BLOCK)
 */
#ifndef FTR_LANG_H
#define FTR_LANG_H

#include <stdbool.h>
#include <stdint.h>

struct lang_err {
	int line, col;		/* 1-based; 0 when none */
	char msg[512];
};

enum tok {
	T_EOF, T_INT, T_STR, T_IDENT, T_VAR, T_MAP,
	T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK,
	T_COMMA, T_SEMI, T_DOT, T_ARROW, T_QUEST, T_COLON,
	T_ASSIGN, T_PLUSEQ, T_MINUSEQ, T_STAREQ, T_SLASHEQ, T_INCR, T_DECR,
	T_OROR, T_ANDAND, T_OR, T_XOR, T_AND, T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
	T_SHL, T_SHR, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT, T_NOT, T_TILDE, T_NTILDE,
	T_DOTDOT,
};

enum nk {
	N_INT, N_STR, N_BUILTIN, N_FIELD, N_VAR, N_MAP, N_CALL, N_BINOP, N_UNOP, N_TERNARY,
	/* C types (fetchargs.c): (TYPE)a with sval the type as written; a.NAME and
	 * a->NAME (op T_DOT/T_ARROW); a[b]; sizeof(TYPE: sval) or sizeof(a);
	 * N_UNOP also takes '*' and '&' (T_STAR, T_AND).  fetchargs.c rewrites what
	 * reads memory into N_FIELD reads of the probe's fetch arguments. */
	N_CAST, N_MEMBER, N_INDEX, N_SIZEOF,
	/* (a, b, ...), (a,) and (): a tuple of args; its element N is read as
	 * N_MEMBER a.N (op T_DOT, sval "N") */
	N_TUPLE,
	/* { stmt; ...; expr }: a block as an expression, a its statements (or
	 * NULL), b the value (NULL: none); a macro's call becomes one */
	N_BLOCK,
	S_EXPR, S_ASSIGN, S_IF,
	/* Loops, whose body is b (a block, as an if's): for ($v : START..END)
	 * with a the $v and args[0], args[1] the bounds (END excluded), or
	 * for ($v : @map) with args[0] the map; while (a); unroll (ival). */
	S_FOR, S_WHILE, S_UNROLL,
	S_BREAK, S_CONTINUE, S_RETURN,	/* return ends the clause's run */
};

enum builtin {
	B_PID, B_TID, B_COMM, B_CPU, B_NSECS, B_ELAPSED, B_UID, B_RETVAL, B_FUNC, B_PROBE,
	B_KSTACK, B_USTACK, B_ARG,
	B_CPID,		/* the pid of the command of -c */
	B_GID, B_NCPUS, B_RAND, B_USERMODE, B_NUMAID, B_USERNAME,
	B_CONST,	/* an UPPER_CASE name: an enumerator or a header's constant (fetchargs.c) */
	B_CURTASK,	/* the task_struct: $current where probes have it (fetchargs.c) */
	B_PROBETYPE,	/* bpftrace's name of the probe's type: begin and end's only */
	B_PPID, B_PCOMM, B_LEADER_COMM,	/* the parent's pid and name, the leader's name */
};

/* VT_BUF: buf()'s bytes, printed by printf's %r only; VT_TUPLE: see tsig */
enum vtype { VT_NONE, VT_INT, VT_STR, VT_STACK, VT_BUF, VT_TUPLE };

struct builtin_fn;

struct node {
	enum nk k;
	enum tok op;		/* BINOP/UNOP/ASSIGN (T_ASSIGN, T_PLUSEQ, ...) */
	int line, col;
	int64_t ival;		/* INT; STR: its bytes; BUILTIN: enum builtin; */
	int idx;		/* BUILTIN argN: N; kstack/ustack: frames (0: all);
				 * INT, STR: $N's N (-1: a bare stack mode word);
				 * CALL int8()..uint64(): the bits */
	char *sval;		/* STR, FIELD, VAR, MAP, CALL names */
	struct node *a, *b, *c;	/* operands; S_ASSIGN: a = target, b = value; S_IF: a, b, c */
	struct node **args;	/* CALL arguments, MAP keys */
	int nargs;
	struct node *next;	/* the next statement of a block */

	/* set by the semantic pass */
	enum vtype type;
	int slot;		/* VAR: scratch slot; MAP: map index */
	void *bind;		/* FIELD: per-event field table; CALL: private */
	const struct builtin_fn *fn;	/* CALL: its row of the builtins (lang/builtins.c) */
	bool int_in_long;	/* FIELD: an int in a syscall's 8 unsigned bytes (below) */
	/* S_ASSIGN: a declaration, let $x [: TYPE] [= e]: the variable starts
	 * again at each run of it; b is e, or 0 ((TYPE)e, (TYPE)0 with a type) */
	bool decl;
	/* A value of an enum type (an enumerator, a cast to the enum, a variable
	 * or map holding one): the enum's type id in the program's types
	 * (ctypes.h), which print(), printf's %s and map printing show as the
	 * enumerator's name.  Set by fetchargs.c, carried by the semantic pass. */
	uint32_t enum_id;
#define LANG_BOOL_ID UINT32_MAX	/* enum_id of a bool: true, false */
	/* VT_TUPLE: the elements' types, set by the semantic pass (tuple.h) */
	char *tsig;
	/* A pointer as a value ((int32 *)0x32 where no memory is read): the size
	 * of what it points to, by which + and - scale it (C's pointer
	 * arithmetic), and it prints in hex (0x36).  Carried by variables and
	 * maps as enum_id is.  BINOP/S_ASSIGN: the scale of the number added. */
	uint32_t ptr_size;
};

enum probe_provider {
	PV_TRACEPOINT, PV_KPROBE, PV_KRETPROBE, PV_UPROBE, PV_URETPROBE,
	PV_INTERVAL, PV_PROFILE, PV_BEGIN, PV_END,
};

/* kfunc:/fentry: and kretfunc:/fexit: are kprobes and kretprobes whose
 * args and retval have the types of the function's BTF prototype. */

struct lang_probe {
	char *text;		/* as written */
	int line, col;
	enum probe_provider pv;
	char *target;		/* tracepoint "sys:ev" glob; kprobe/uprobe spec; */
	uint64_t period_ns;	/* interval */
	uint64_t hz;		/* profile */
	bool btf_func;		/* kfunc/fentry/kretfunc/fexit: target is "FUNC" */
	bool usdt;		/* usdt:PATH[:PROVIDER]:NAME, a uprobe per site (pv PV_UPROBE) */
	/* rawtracepoint:[vmlinux:]NAME, rt:NAME: the trace event of tracepoint
	 * NAME (pv PV_TRACEPOINT, target "*:NAME"), for clauses that read none
	 * of its raw arguments (events.c) */
	bool raw_tp;
	/* software:EVENT[:PERIOD], hardware:EVENT[:PERIOD]: a sampler like
	 * profile's (pv PV_PROFILE) on another perf event; period 0: profile */
	uint32_t perf_type;
	uint64_t perf_config, period;
};

struct clause {
	struct lang_probe *probes;
	int nprobes;
	struct node *pred;	/* NULL when none */
	struct node *body;	/* statement list */
	int line, col;
};

struct cdecl;

/*
 * let @m = hash(N): the map holds at most N keys.  A store of a new key
 * into a full hash map is dropped, with bpftrace's warning; an LRU map
 * makes room by removing the key used least recently.  A per-CPU map is,
 * to ftr, the same map (its values are summed over the CPUs when read).
 */
enum lang_map_type { LM_HASH, LM_LRUHASH, LM_PERCPUHASH, LM_PERCPULRUHASH };

struct lang_mapdecl {
	char *name;		/* "@m" */
	enum lang_map_type type;
	uint32_t max;		/* keys */
	int line, col;
};

struct program {
	struct clause *cl;
	int ncl;
	struct cdecl *decls;	/* struct/union/enum/typedef definitions (ctypes.h) */
	int ndecls;
	struct lang_mapdecl *mdecls;
	int nmdecls;
	/* config = { ... }: what ftr does with it (the others are refused) */
	bool no_print_maps;	/* print_maps_on_exit = 0 */
	bool no_debug_info;	/* show_debug_info = 0: user frames without file:line */
	int stack_mode;		/* stack_mode = X: 1 + LANG_STACK_* (0: not set) */
	/* missing_probes: a probe that names nothing here is an error (the
	 * default), or is skipped with bpftrace's warning, or silently */
	enum { LANG_MISSING_ERROR, LANG_MISSING_WARN, LANG_MISSING_IGNORE } missing_probes;
	char *src;		/* a copy of the text, for error lines */
};

/* A stack's print mode (kstack(raw), config stack_mode, BPFTRACE_STACK_MODE):
 * bpftrace's, perf's "\tADDR frame (file)", bare addresses, and a user
 * frame's file as its build id and file offset. */
enum { LANG_STACK_BPFTRACE, LANG_STACK_PERF, LANG_STACK_RAW, LANG_STACK_BUILD_ID };
/* The mode of that name, or -1. */
int lang_stack_mode(const char *name);

/* Named parameters, getopt("name", default) (getopt.c): the words --name
 * and --name=VALUE set before a parse; after it, whether the program has a
 * getopt(), and 0 or -EINVAL (a word no getopt() names, a value of the
 * wrong type, --help: bpftrace's ERROR/HINT lines said on stderr). */
void lang_getopt_set(char *const *words, int n);
bool lang_getopt_used(void);
int lang_getopt_check(void);

/* Parse text into *out.  0, or -EINVAL with err (position and message). */
int lang_parse(const char *text, struct program *out, struct lang_err *err);
/* The same with positional parameters: $1..$N are params[0..nparams),
 * $# is nparams (bpftrace's arguments after the program).  A first line
 * starting with "#!" is skipped (both). */
int lang_parse_args(const char *text, char *const *params, int nparams, struct program *out,
		    struct lang_err *err);
/* An integer literal (1e6, 1_000, 0x1f, 017) at s: 0 with *out, *end past
 * it; -EINVAL / -ERANGE (*end still past it). */
int lang_number(const char *s, const char **end, int64_t *out);
/* Whether call names an aggregation (count, hist, tseries...). */
bool lang_is_agg(const char *call);
/*
 * int8() ... uint64(), and C's (uint8)x: the name's width and signedness
 * (also "u8".."s64", "char", "short", "int", "long" and unsigned forms);
 * false for another name.  lang_int_cast truncates v to bits and
 * sign-extends it when is_signed: the one place the language's integer
 * casts are computed.
 */
bool lang_int_type(const char *name, int *bits, bool *is_signed);
int64_t lang_int_cast(int64_t v, int bits, bool is_signed);
/* --probe-filter (bpftrace's): only the probes whose text keep() says yes
 * to, and begin/end; a clause left with no probe goes.  How many probes
 * other than begin/end stay. */
int lang_probe_filter(struct program *p, int (*keep)(const char *text, void *arg), void *arg);
void lang_free(struct program *p);
/* The declaration of map name (let @m = hash(N)), or NULL. */
const struct lang_mapdecl *lang_mapdecl_of(const struct program *p, const char *name);
/* An if or a loop: a statement whose b (and an if's c) are blocks. */
static inline bool lang_is_block_stmt(enum nk k)
{
	return k == S_IF || k == S_FOR || k == S_WHILE || k == S_UNROLL;
}
/* A node, its operands and the statements after it. */
void lang_node_free(struct node *n);
/* "ftr: error: L:C: MSG", the source line and a caret, on stderr. */
void lang_perror(const struct program *p, const char *src, const struct lang_err *err);
/* Set err from a node's position (printf-like). */
void lang_errf(struct lang_err *err, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Conditional lines, for recipes that do more where the kernel can:
 *
 *	//#if COND
 *	... used when cond(COND) is true
 *	//#else
 *	... used otherwise
 *	//#endif
 *
 * at the start of a line, not nested.  They are comments to the parser;
 * the lines not used are blanked in text (same length, so that positions
 * in messages stay right).  cond returns 1, 0, or < 0 for a COND it does
 * not know.  0, or -EINVAL with err.
 */
int lang_conditionals(char *text, int (*cond)(const char *expr, void *ctx), void *ctx,
		      struct lang_err *err);

/*
 * Pure: the perf event of a software:NAME or hardware:NAME probe (bpftrace's
 * names and short forms: cpu-clock/cpu, task-clock, page-faults/faults,
 * context-switches/cs, cpu-migrations, minor-faults, major-faults, ...;
 * cpu-cycles/cycles, instructions, cache-references, cache-misses,
 * branch-instructions/branches, branch-misses, bus-cycles, ref-cycles) and
 * the period bpftrace uses when none is given.  0 or -ENOENT.
 */
int lang_perf_event(bool hardware, const char *name, uint32_t *type, uint64_t *config,
		uint64_t *period);
/* The i-th of those events' name (NULL past the last), for a listing. */
const char *lang_perf_event_name(size_t i, bool *hardware, const char **alias);

const char *lang_tok_str(enum tok t);
/* The builtin variable named name (enum builtin; argN: B_ARG with N in
 * *argn), or -1: the table is lang/builtin-vars.c's. */
int lang_builtin(const char *name, int *argn);
/* Why bpftrace's builtin variable name is not ftr's (needs BPF, or not
 * yet), or NULL. */
const char *lang_builtin_refused(const char *name);
/* Their names, space-separated (argN for the arguments). */
const char *lang_builtin_names(void);

#endif
