// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the language's parser (src/lang/parser.c, preamble.c): bad input first,
 * each error with its exact position and message, and lang_perror's report;
 * then every construct of the grammar, with the shape of the tree checked
 * through an S-expression rendering of it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftr.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"

/* ---- helpers ---------------------------------------------------------------- */

struct sx {
	char buf[4096];
	size_t off;
};

static void sxf(struct sx *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sxf(struct sx *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s->off += vsnprintf(s->buf + s->off, s->off < sizeof(s->buf) ? sizeof(s->buf) - s->off : 0,
			    fmt, ap);
	va_end(ap);
	assert_true(s->off < sizeof(s->buf));
}

/* An operator token without its quotes: '+' -> + */
static const char *opname(enum tok t)
{
	static char b[8];
	const char *q = lang_tok_str(t);

	snprintf(b, sizeof(b), "%.*s", (int)strlen(q) - 2, q + 1);
	return b;
}

static void sexp(struct sx *s, const struct node *n);

static void sexp_list(struct sx *s, const struct node *n)
{
	for (; n; n = n->next) {
		sexp(s, n);
		if (n->next)
			sxf(s, "; ");
	}
}

/* The tree as an S-expression: (op a b), f(x,y), @m[k], {stmt; stmt}. */
static void sexp(struct sx *s, const struct node *n)
{
	switch (n->k) {
	case N_INT:
		sxf(s, "%lld", (long long)n->ival);
		break;
	case N_STR:
		sxf(s, "\"%s\"", n->sval);
		break;
	case N_BUILTIN:
		sxf(s, "%s", n->sval);
		break;
	case N_FIELD:
		sxf(s, "args.%s", n->sval);
		break;
	case N_VAR:
		sxf(s, "%s", n->sval);
		break;
	case N_MAP:
	case N_CALL:
		sxf(s, "%s", n->sval);
		if (n->k == N_CALL || n->nargs)
			sxf(s, n->k == N_CALL ? "(" : "[");
		for (int i = 0; i < n->nargs; i++) {
			sexp(s, n->args[i]);
			if (i + 1 < n->nargs)
				sxf(s, ",");
		}
		if (n->k == N_CALL || n->nargs)
			sxf(s, n->k == N_CALL ? ")" : "]");
		break;
	case N_BINOP:
	case S_ASSIGN:
		sxf(s, "(%s ", opname(n->op));
		sexp(s, n->a);
		sxf(s, " ");
		sexp(s, n->b);
		sxf(s, ")");
		break;
	case N_UNOP:
		sxf(s, "(%s ", opname(n->op));
		sexp(s, n->a);
		sxf(s, ")");
		break;
	case N_CAST:
		sxf(s, "((%s) ", n->sval);
		sexp(s, n->a);
		sxf(s, ")");
		break;
	case N_MEMBER:
		sxf(s, "(%s ", opname(n->op));
		sexp(s, n->a);
		sxf(s, " %s)", n->sval);
		break;
	case N_INDEX:
		sxf(s, "([] ");
		sexp(s, n->a);
		sxf(s, " ");
		sexp(s, n->b);
		sxf(s, ")");
		break;
	case N_TUPLE:
		sxf(s, "(tuple");
		for (int i = 0; i < n->nargs; i++) {
			sxf(s, " ");
			sexp(s, n->args[i]);
		}
		sxf(s, ")");
		break;
	case N_SIZEOF:
		sxf(s, "sizeof(");
		if (n->sval)
			sxf(s, "%s", n->sval);
		else
			sexp(s, n->a);
		sxf(s, ")");
		break;
	case N_TERNARY:
		sxf(s, "(? ");
		sexp(s, n->a);
		sxf(s, " ");
		sexp(s, n->b);
		sxf(s, " ");
		sexp(s, n->c);
		sxf(s, ")");
		break;
	case N_BLOCK:
		sxf(s, "{");
		sexp_list(s, n->a);
		if (n->b) {
			sxf(s, n->a ? "; " : "");
			sexp(s, n->b);
		}
		sxf(s, "}");
		break;
	case S_EXPR:
		sexp(s, n->a);
		break;
	case S_FOR:
		sxf(s, "(for %s ", n->a->sval);
		sexp(s, n->args[0]);
		if (n->nargs > 1) {
			sxf(s, "..");
			sexp(s, n->args[1]);
		}
		sxf(s, " {");
		sexp_list(s, n->b);
		sxf(s, "})");
		break;
	case S_WHILE:
	case S_UNROLL:
		sxf(s, "(%s ", n->k == S_WHILE ? "while" : "unroll");
		if (n->k == S_WHILE)
			sexp(s, n->a);
		else
			sxf(s, "%lld", (long long)n->ival);
		sxf(s, " {");
		sexp_list(s, n->b);
		sxf(s, "})");
		break;
	case S_BREAK:
	case S_CONTINUE:
	case S_RETURN:
		sxf(s, "%s", n->k == S_BREAK ? "break" : n->k == S_CONTINUE ? "continue" : "return");
		break;
	case S_IF:
		sxf(s, "(if ");
		sexp(s, n->a);
		sxf(s, " {");
		sexp_list(s, n->b);
		sxf(s, "}");
		if (n->c) {
			sxf(s, " {");
			sexp_list(s, n->c);
			sxf(s, "}");
		}
		sxf(s, ")");
		break;
	}
}

static struct program prog;

/* Parse text, which must be accepted. */
static struct program *ok(const char *text)
{
	struct lang_err err;

	if (lang_parse(text, &prog, &err) < 0)
		fail_msg("'%s' refused: %d:%d: %s", text, err.line, err.col, err.msg);
	return &prog;
}

static void done(void)
{
	lang_free(&prog);
}

/* The body of clause ci as an S-expression. */
static const char *body(int ci)
{
	static struct sx s;

	s.off = 0;
	s.buf[0] = '\0';
	sexp_list(&s, prog.cl[ci].body);
	return s.buf;
}

static const char *pred(int ci)
{
	static struct sx s;

	s.off = 0;
	s.buf[0] = '\0';
	assert_non_null(prog.cl[ci].pred);
	sexp(&s, prog.cl[ci].pred);
	return s.buf;
}

/* ---- errors --------------------------------------------------------------- */

static const char *const BUILTINS_HINT = " (builtins: pid tid comm cpu nsecs elapsed uid "
	"retval func probe kstack ustack argN cpid gid ncpus rand usermode numaid username probetype "
	"ppid pcomm leader_comm; "
	"fields are args.NAME)";
static const char *const PROBES_HINT = " (tracepoint:, rawtracepoint:, kprobe:, kretprobe:, kfunc:, kretfunc:, "
	"uprobe:, uretprobe:, usdt:, interval:, profile:, software:, hardware:, begin, end)";

static const struct {
	const char *text;
	int line, col;
	const char *msg;	/* exact; a trailing '*' means "starts with" */
} bad[] = {
	/* nothing to run */
	{ "", 1, 1, "empty program" },
	{ "  // a comment\n  /* and another */\n", 1, 1, "empty program" },
	/* lexical */
	{ "BEGIN { \"abc", 1, 9, "unterminated string" },
	{ "BEGIN { printf(\"abc\n); }", 1, 16, "unterminated string" },
	{ "BEGIN { /* x", 1, 9, "unterminated comment" },
	{ "BEGIN {\n  exit(); /* a\n  b */ @x = 1; /* c", 3, 16, "unterminated comment" },
	{ "BEGIN { # }", 1, 9, "unexpected character '#'" },
	{ "BEGIN { exit(); } `", 1, 19, "unexpected character '`'" },
	{ "BEGIN { $x = 1 ` 2; }", 1, 16, "unexpected character '`'" },
	{ "BEGIN { \"a\\qb\" }", 1, 11, "unknown escape '\\q'" },
	{ "BEGIN { 0x1g }", 1, 9, "bad number '0x1g'" },
	{ "BEGIN { 12ab }", 1, 9, "bad number '12ab'" },
	{ "BEGIN { 18446744073709551616 }", 1, 9, "bad number '18446744073709551616'" },
	{ "BEGIN { $ }", 1, 9, "'$' must be followed by a variable name" },
	/* names */
	{ "BEGIN { foo }", 1, 9, "unknown name 'foo'*" },
	{ "BEGIN { arg100 }", 1, 9, "unknown name 'arg100'*" },
	{ "BEGIN {\n\t@x = nsec;\n}", 2, 7, "unknown name 'nsec'*" },
	{ "BEGIN { args.1 }", 1, 14, "expected a field name after 'args.'" },
	{ "BEGIN { args-> }", 1, 16, "expected a field name after 'args.'" },
	/* blocks and statements */
	{ "BEGIN", 1, 6, "expected '{', found end of input" },
	{ "BEGIN exit(); }", 1, 7, "expected '{', found name" },
	{ "BEGIN { exit();", 1, 16, "expected '}' to close the block opened at 1:7, found end of input" },
	{ "BEGIN {\n  if (1) { exit() }", 2, 20,
	  "expected '}' to close the block opened at 1:7, found end of input" },
	{ "BEGIN { @a = 1 @b = 2 }", 1, 16, "expected ';' or '}' after a statement, found @map" },
	{ "BEGIN {\n  exit()\n  @x = 1;\n}", 3, 3, "expected ';' or '}' after a statement, found @map" },
	{ "BEGIN { 1 = 2 }", 1, 11, "only a @map or a $variable can be assigned" },
	{ "BEGIN { 1 + 2 = 3 }", 1, 15, "only a @map or a $variable can be assigned" },
	{ "BEGIN { count() = 1 }", 1, 17, "only a @map or a $variable can be assigned" },
	{ "BEGIN { comm++ }", 1, 13, "only a @map or a $variable can be assigned" },
	{ "BEGIN { args.x += 1 }", 1, 16, "only a @map or a $variable can be assigned" },
	{ "BEGIN { $x = }", 1, 14, "expected an expression, found '}'" },
	{ "BEGIN { if 1 exit(); }", 1, 14, "expected '{', found name" },
	/* loops */
	{ "begin { for (1 : 0..2) { } }", 1, 14, "expected a $variable after 'for', found number" },
	{ "begin { for ($i = 0..2) { } }", 1, 17, "expected ':' after the loop's variable, found '='" },
	{ "begin { for ($i : 0.2) { } }", 1, 22, "expected '..' in a range, found ')'" },
	/* macros */
	{ "macro f(x) { x } begin { f(1, 2) }", 1, 26, "macro f takes 1 argument, not 2" },
	{ "macro f($v) { $v } begin { f(1) }", 1, 30, "macro f's parameter $v takes a $variable" },
	{ "macro f(@m) { @m } begin { f(@x[1]) }", 1, 30, "macro f's parameter @m takes a @map "
	  "(without keys)" },
	{ "macro f() { f() } begin { f() }", 1, 13, "macro f: macros call each other more than 32 "
	  "deep (a macro calling itself never ends)" },
	{ "macro f() { 1 } macro f() { 2 } begin { }", 1, 23, "macro f is defined twice (first at "
	  "1:7)" },
	{ "macro f(1) { } begin { }", 1, 9, "a macro's parameter is a name, a $variable or a @map, "
	  "not number" },
	{ "macro bad() { errorf(\"x\"); } begin { bad(); }", 1, 15, "errorf() in macro bad: ftr "
	  "cannot yet say where the macro was expanded from, as bpftrace's message does; call it "
	  "outside the macro" },
	{ "macro f() 1; begin { }", 1, 11, "expected '{' to open the macro's body, found number" },
	{ "begin { nosuch + 1 }", 1, 9, "unknown name 'nosuch'*" },
	/* tuples */
	{ "begin { (1, 2 }", 1, 15, "expected ')', found '}'" },
	{ "begin { $r = (a=1, b=2, a=3); }", 1, 25, "the record has two fields named a" },
	{ "begin { (1,, 2) }", 1, 12, "expected an expression, found ','" },
	{ "begin { $t->0 }", 1, 13, "expected a member name after '->'" },
	{ "begin { for ($i : 0, 2) { } }", 1, 20, "expected '..' in a range, found ','" },
	{ "begin { unroll (101) { } }", 1, 17, "unroll maximum value is 100" },
	{ "begin { unroll (0) { } }", 1, 17, "unroll minimum value is 1" },
	{ "begin { unroll ($x) { } }", 1, 17, "unroll (N): N is a number of times, 1 to 100" },
	{ "begin { return 1 2; }", 1, 18, "expected ';' or '}' after a statement, found number" },
	{ "begin { $a = f() ?: 1; }", 1, 19, "'?:' without a middle operand takes a variable, a "
	  "map, a builtin or a field before it in ftr (it reads it twice)" },
	/* declarations */
	{ "begin { let 1; }", 1, 13, "expected a $variable after 'let', found number" },
	{ "begin { let $1; }", 1, 13, "expected a $variable after 'let', found $variable" },
	{ "begin { let @m = hash(2); }", 1, 13,
	  "a map is declared before the probes: let @m = hash(N);" },
	{ "begin { let $x: ; }", 1, 17, "expected a type after ':'" },
	{ "begin { let $x: struct task_struct *; }", 1, 17, "let $x: struct task_struct *: a "
	  "declared type other than an integer type (int8 ... uint64) is not in ftr yet" },
	{ "let $x = hash(2); begin { }", 1, 5, "expected a @map after 'let' (a $variable is "
	  "declared in a probe's block)" },
	{ "let @m = array(2); begin { }", 1, 10, "expected a map type (hash, lruhash, "
	  "percpuhash, percpulruhash) in the declaration of @m" },
	{ "let @m = hash(0); begin { }", 1, 15, "hash(N): N is how many keys @m holds, 1 to "
	  "4194304" },
	{ "let @m = hash(2) begin { }", 1, 18, "expected ';' after a map declaration, found name" },
	{ "let @m = hash(2);\nlet @m = lruhash(3); begin { }", 2, 5,
	  "@m is declared twice (first at 1:5)" },
	/* config */
	{ "config = { bad_config=raw } begin {}", 1, 12,
	  "bad_config: not a known configuration option" },
	{ "config = { stack_mode=perfect } begin {}", 1, 12,
	  "stack_mode: expected bpftrace, perf, raw or build_id, found 'perfect'" },
	{ "config = { missing_probes = sometimes } begin {}", 1, 12,
	  "missing_probes: expected error, warn or ignore, found 'sometimes'" },
	{ "config = { print_maps_on_exit=2 } begin {}", 1, 12,
	  "print_maps_on_exit: expected true or false, found '2'" },
	{ "config = { show_debug_info = yes } begin {}", 1, 12,
	  "show_debug_info: expected true or false, found 'yes'" },
	{ "config = { license=\"x\" } begin {}", 1, 12, "Invalid value for license. Found: x.*" },
	{ "config = { 1 = 2 } begin {}", 1, 12, "expected a setting's name, found number" },
	{ "config { } begin {}", 1, 8, "expected '=' after 'config', found '{'" },
	{ "config = { log_size = 1 b = 2 } begin {}", 1, 25, "expected ';' or '}' in config, found name" },
	{ "BEGIN { if (1) exit(); }", 1, 16, "expected '{', found name" },
	{ "BEGIN { if (1) {} else exit(); }", 1, 24, "expected '{', found name" },
	/* expressions */
	{ "BEGIN { 1 + }", 1, 13, "expected an expression, found '}'" },
	{ "BEGIN { (1 }", 1, 12, "expected ')', found '}'" },
	{ "BEGIN { 1 ? 2 }", 1, 15, "expected ':' in '?:', found '}'" },
	{ "BEGIN { f(1,) }", 1, 13, "expected an expression, found ')'" },
	{ "BEGIN { f(1,2", 1, 14, "expected ')', found end of input" },
	{ "BEGIN { offsetof(int); }", 1, 9, "offsetof takes (TYPE, MEMBER[.MEMBER]...)" },
	{ "BEGIN { offsetof(struct A, b[1]); }", 1, 9, "offsetof: 'b[1]' is no member name" },
	{ "BEGIN { @m[1 }", 1, 14, "expected ']', found '}'" },
	{ "BEGIN { @x = 1 +/ 2; }", 1, 17, "expected an expression, found '/'" },
	/* probes */
	{ ", BEGIN {}", 1, 1, "expected a probe (e.g. tracepoint:syscalls:sys_enter_openat)" },
	{ "BEGIN, {}", 1, 8, "expected a probe (e.g. tracepoint:syscalls:sys_enter_openat)" },
	{ "BEGIN {}\nbogus:x { }", 2, 1, "unknown probe 'bogus:x'*" },
	{ "Begin { }", 1, 1, "unknown probe 'Begin'*" },
	{ "t:sched { }", 1, 1, "'t:sched': a tracepoint is tracepoint:SYSTEM:EVENT" },
	{ "tracepoint: { }", 1, 1, "'tracepoint:': a tracepoint is tracepoint:SYSTEM:EVENT" },
	{ "BEGIN {}  interval:m:5 { }", 1, 11, "unknown unit 'm' in 'interval:m:5' (s, ms, us, hz)" },
	{ "interval:s:0 { }", 1, 1, "bad interval probe 'interval:s:0' (e.g. interval:s:5)" },
	{ "interval:s { }", 1, 1, "bad interval probe 'interval:s' (e.g. interval:s:5)" },
	{ "interval:s:x { }", 1, 1, "bad interval probe 'interval:s:x' (e.g. interval:s:5)" },
	{ "i:5ms5 { }", 1, 1, "bad interval probe 'i:5ms5' (e.g. interval:s:5)" },
	{ "i:ms { }", 1, 1, "bad interval probe 'i:ms' (e.g. interval:s:5)" },
	{ "i:0ms { }", 1, 1, "bad interval probe 'i:0ms' (e.g. interval:s:5)" },
	{ "software:cpu:1e { }", 1, 1, "bad period in 'software:cpu:1e': a count of events, "
	  "e.g. software:cpu:100" },
	{ "software:cpu:1e99 { }", 1, 1, "bad period in 'software:cpu:1e99': a count of events, "
	  "e.g. software:cpu:100" },
	{ "#include <ftr-no-such/header.h>\nBEGIN { }", 1, 10, "'ftr-no-such/header.h' file not "
	  "found (in -I's directories and the system's; a kernel header's types need none: they "
	  "are BTF)" },
	{ "profile:hz { }", 1, 1, "bad profile probe 'profile:hz' (e.g. profile:hz:99)" },
	{ "profile:ns:10 { }", 1, 1, "unknown unit 'ns' in 'profile:ns:10' (s, ms, us, hz)" },
	/* predicates: '/' ends them, so division needs parentheses */
	{ "BEGIN /1 { exit(); }", 1, 10, "expected '/' to end the predicate, found '{'" },
	/* the glob non-match needs both operands; "!~" alone is !(~x) */
	{ "BEGIN { $x = comm !~; }", 1, 21, "expected an expression, found ';'" },
	{ "BEGIN /comm !~/ { }", 1, 15, "expected an expression, found '/'" },
	{ "BEGIN { $x = !~; }", 1, 16, "expected an expression, found ';'" },
	{ "BEGIN { $x = comm ! ~ \"a\"; }", 1, 19, "expected ';' or '}' after a statement, "
	  "found '!'" },
	/* time(fmt) is a call like the others */
	{ "BEGIN { time(\"%H\"; }", 1, 18, "expected ')', found ';'" },
	/* a bare name is known once the program is read (a macro's?): the
	 * syntax first */
	{ "BEGIN { time \"%H\"; }", 1, 14, "expected ';' or '}' after a statement, found string" },
	{ "BEGIN { time; }", 1, 9, "unknown name 'time'*" },
	{ "BEGIN /1 + / { }", 1, 12, "expected an expression, found '/'" },
	{ "t:syscalls:sys_enter_write /args.count / 2 > 1/ { }", 1, 42, "expected '{', found number" },
	/* "//" starts a comment: no empty predicate */
	{ "BEGIN // {}", 1, 12, "expected '{', found end of input" },
};

static void test_errors(void **state)
{
	char what[160];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct program p;
		struct lang_err err;
		size_t n = strlen(bad[i].msg);
		int ret = lang_parse(bad[i].text, &p, &err);

		snprintf(what, sizeof(what), "'%s'", bad[i].text);
		if (ret != -EINVAL)
			fail_msg("%s: accepted", what);
		if (err.line != bad[i].line || err.col != bad[i].col)
			fail_msg("%s: at %d:%d, not %d:%d (%s)", what, err.line, err.col,
				 bad[i].line, bad[i].col, err.msg);
		if (bad[i].msg[n - 1] == '*' ? strncmp(err.msg, bad[i].msg, n - 1) != 0 :
		    strcmp(err.msg, bad[i].msg) != 0)
			fail_msg("%s: message '%s', not '%s'", what, err.msg, bad[i].msg);
		/* a refusal leaves nothing to free */
		assert_int_equal(p.ncl, 0);
		assert_null(p.cl);
		assert_null(p.src);
	}
}

/* The hints that follow some messages, in full once. */
static void test_error_hints(void **state)
{
	struct program p;
	struct lang_err err;
	char want[512];

	assert_int_equal(lang_parse("BEGIN { foo }", &p, &err), -EINVAL);
	snprintf(want, sizeof(want), "unknown name 'foo'%s", BUILTINS_HINT);
	assert_string_equal(err.msg, want);
	assert_int_equal(lang_parse("bogus:x { }", &p, &err), -EINVAL);
	snprintf(want, sizeof(want), "unknown probe 'bogus:x'%s", PROBES_HINT);
	assert_string_equal(err.msg, want);
}

/* Deep nesting is refused with a position, not a stack overflow. */
static void test_errors_deep(void **state)
{
	size_t n = 100000, off = 0;
	char *t = malloc(3 * n + 64);
	struct program p;
	struct lang_err err;

	assert_non_null(t);
	/* ((((...1)))) */
	off = sprintf(t, "BEGIN { $x = ");
	memset(t + off, '(', n);
	off += n;
	off += sprintf(t + off, "1");
	memset(t + off, ')', n);
	off += n;
	sprintf(t + off, "; }");
	assert_int_equal(lang_parse(t, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "nested too deeply (more than 256 levels)");
	assert_int_equal(err.line, 1);
	/* the statement and its expression are 2 levels, each '(' one more:
	 * the 255th is too many, and the error points at what follows it */
	assert_int_equal(err.col, 14 + 255);

	/* !!!!...1 */
	off = sprintf(t, "BEGIN { $x = ");
	memset(t + off, '!', n);
	sprintf(t + off + n, "1; }");
	assert_int_equal(lang_parse(t, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "nested too deeply (more than 256 levels)");

	/* 1+1+...+1, a left-deep tree: no recursion in the parser, but
	 * node_free, the planner and the interpreter recurse on it */
	off = sprintf(t, "BEGIN { $x = 1");
	for (size_t i = 0; i < 2000; i++)
		off += sprintf(t + off, "+1");
	sprintf(t + off, "; }");
	assert_int_equal(lang_parse(t, &p, &err), -EINVAL);
	/* a chain, said so: not "nested" (issue 38) */
	assert_string_equal(err.msg, "more than 1024 terms in one chain of operators: ftr "
			    "evaluates it as a tree of that height at most (split it, with a "
			    "variable)");
	assert_int_equal(err.col, 13 + 2 * 1024);	/* the 1024th '+' */

	/* 1?1:1?1:... (right-deep) and nested ifs */
	off = sprintf(t, "BEGIN { $x = ");
	for (size_t i = 0; i < 1000; i++)
		off += sprintf(t + off, "1?1:");
	sprintf(t + off, "1; }");
	assert_int_equal(lang_parse(t, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "nested too deeply (more than 256 levels)");
	off = sprintf(t, "BEGIN { ");
	for (size_t i = 0; i < 1000; i++)
		off += sprintf(t + off, "if (1) { ");
	for (size_t i = 0; i < 1000; i++)
		off += sprintf(t + off, "} ");
	sprintf(t + off, "}");
	assert_int_equal(lang_parse(t, &p, &err), -EINVAL);
	assert_string_equal(err.msg, "nested too deeply (more than 256 levels)");

	/* ...while what a person writes still parses */
	off = sprintf(t, "BEGIN { $x = ");
	memset(t + off, '(', 200);
	off += 200;
	off += sprintf(t + off, "1");
	memset(t + off, ')', 200);
	off += 200;
	off += sprintf(t + off, " + 1");
	for (size_t i = 0; i < 1000; i++)
		off += sprintf(t + off, "+1");
	sprintf(t + off, "; }");
	ok(t);
	done();
	free(t);
}

/* lang_perror: "ftr: error: L:C: MSG", the line, a caret under the column. */
static char *perror_of(const char *src, const struct lang_err *err)
{
	static char out[2048];
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(f);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	lang_perror(NULL, src, err);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

static void test_perror(void **state)
{
	static const struct {
		const char *src, *want;
	} t[] = {
		{ "BEGIN { @a = 1 @b = 2 }",
		  "ftr: error: 1:16: expected ';' or '}' after a statement, found @map\n"
		  "  BEGIN { @a = 1 @b = 2 }\n"
		  "                 ^\n" },
		{ "BEGIN {\n  exit()\n  @x = 1;\n}",
		  "ftr: error: 3:3: expected ';' or '}' after a statement, found @map\n"
		  "    @x = 1;\n"
		  "    ^\n" },
		/* a tab above is a tab below, so that the caret lines up */
		{ "BEGIN {\n\t@x = 1 +/ 2;\n}",
		  "ftr: error: 2:10: expected an expression, found '/'\n"
		  "  \t@x = 1 +/ 2;\n"
		  "  \t        ^\n" },
		/* at the end of the input, one column past the last character */
		{ "BEGIN { exit();",
		  "ftr: error: 1:16: expected '}' to close the block opened at 1:7, found end of input\n"
		  "  BEGIN { exit();\n"
		  "                 ^\n" },
		{ "",
		  "ftr: error: 1:1: empty program\n"
		  "  \n"
		  "  ^\n" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct program p;
		struct lang_err err;

		assert_int_equal(lang_parse(t[i].src, &p, &err), -EINVAL);
		assert_string_equal(perror_of(t[i].src, &err), t[i].want);
	}
}

/* Errors the semantic pass makes with lang_errf, and ones without a position. */
static void test_perror_semantic(void **state)
{
	struct lang_err err = { 0 };
	struct node n = { .line = 1, .col = 27 };
	const char *src = "t:syscalls:sys_enter_write { @ = hist(args.bytes); }";

	ok(src);
	done();
	n.col = 39;
	lang_errf(&err, &n, "unknown field '%s' in %s", "bytes", "syscalls:sys_enter_write");
	assert_string_equal(perror_of(src, &err),
			    "ftr: error: 1:39: unknown field 'bytes' in syscalls:sys_enter_write\n"
			    "  t:syscalls:sys_enter_write { @ = hist(args.bytes); }\n"
			    "                                        ^\n");
	lang_errf(&err, NULL, "no position");
	assert_int_equal(err.line, 0);
	assert_string_equal(perror_of(src, &err), "ftr: error: no position\n");
	/* a line past the text: the message alone */
	err.line = 5;
	err.col = 1;
	assert_string_equal(perror_of(src, &err), "ftr: error: 5:1: no position\n");
	/* no source at all */
	err.line = 1;
	assert_string_equal(perror_of(NULL, &err), "ftr: error: 1:1: no position\n");
}

/* ---- probes ----------------------------------------------------------------- */

static void test_probes(void **state)
{
	static const struct {
		const char *text;
		enum probe_provider pv;
		const char *target;	/* NULL: none */
		uint64_t period_ns, hz;
	} t[] = {
		{ .text = "tracepoint:syscalls:sys_enter_openat", .pv = PV_TRACEPOINT, .target = "syscalls:sys_enter_openat" },
		{ .text = "t:syscalls:sys_enter_openat", .pv = PV_TRACEPOINT, .target = "syscalls:sys_enter_openat" },
		{ .text = "tracepoint:sched:sched*", .pv = PV_TRACEPOINT, .target = "sched:sched*" },
		{ .text = "t:*:sys_enter_*", .pv = PV_TRACEPOINT, .target = "*:sys_enter_*" },
		{ .text = "kprobe:vfs_read", .pv = PV_KPROBE },
		{ .text = "k:vfs_read", .pv = PV_KPROBE },
		{ .text = "kretprobe:vfs_read", .pv = PV_KRETPROBE },
		{ .text = "kr:vfs_read", .pv = PV_KRETPROBE },
		{ .text = "uprobe:/bin/bash:readline", .pv = PV_UPROBE },
		{ .text = "u:/bin/bash:readline", .pv = PV_UPROBE },
		{ .text = "uretprobe:/bin/bash:readline", .pv = PV_URETPROBE },
		{ .text = "ur:/bin/bash:readline", .pv = PV_URETPROBE },
		{ .text = "interval:s:5", .pv = PV_INTERVAL, .period_ns = 5000000000ull },
		{ .text = "interval:ms:250", .pv = PV_INTERVAL, .period_ns = 250000000ull },
		{ .text = "interval:us:100", .pv = PV_INTERVAL, .period_ns = 100000ull },
		{ .text = "i:s:1", .pv = PV_INTERVAL, .period_ns = 1000000000ull },
		{ .text = "interval:100ms", .pv = PV_INTERVAL, .period_ns = 100000000ull },
		{ .text = "i:5s", .pv = PV_INTERVAL, .period_ns = 5000000000ull },
		{ .text = "i:250us", .pv = PV_INTERVAL, .period_ns = 250000ull },
		{ .text = "profile:hz:99", .pv = PV_PROFILE, .period_ns = 1000000000ull / 99, .hz = 99 },
		{ .text = "profile:ms:10", .pv = PV_PROFILE, .period_ns = 10000000ull, .hz = 100 },
		{ .text = "p:hz:1000", .pv = PV_PROFILE, .period_ns = 1000000ull, .hz = 1000 },
		{ .text = "BEGIN", .pv = PV_BEGIN },
		{ .text = "END", .pv = PV_END },
		{ .text = "begin", .pv = PV_BEGIN },
		{ .text = "end", .pv = PV_END },
	};
	char text[256];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct lang_probe *p;

		snprintf(text, sizeof(text), "%s { exit(); }", t[i].text);
		ok(text);
		assert_int_equal(prog.ncl, 1);
		assert_int_equal(prog.cl[0].nprobes, 1);
		p = &prog.cl[0].probes[0];
		assert_string_equal(p->text, t[i].text);
		if (p->pv != t[i].pv)
			fail_msg("'%s': provider %d, not %d", t[i].text, p->pv, t[i].pv);
		if (t[i].target)
			assert_string_equal(p->target, t[i].target);
		else
			assert_null(p->target);
		assert_int_equal(p->period_ns, t[i].period_ns);
		assert_int_equal(p->hz, t[i].hz);
		assert_int_equal(p->line, 1);
		assert_int_equal(p->col, 1);
		assert_null(prog.cl[0].pred);
		assert_string_equal(body(0), "exit()");
		done();
	}
}

/* Several probes per clause, several clauses, positions across lines. */
static void test_clauses(void **state)
{
	ok("BEGIN, END { exit(); }\n"
	   "k:vfs_read,kr:vfs_read ,\n"
	   "  t:sched:sched_switch\n"
	   "{ @[probe] = count() }\n"
	   "// a comment between clauses\n"
	   "interval:s:1 { print(@); }");
	assert_int_equal(prog.ncl, 3);
	assert_int_equal(prog.cl[0].nprobes, 2);
	assert_int_equal(prog.cl[0].probes[0].pv, PV_BEGIN);
	assert_int_equal(prog.cl[0].probes[1].pv, PV_END);
	assert_int_equal(prog.cl[0].probes[1].col, 8);
	assert_int_equal(prog.cl[1].nprobes, 3);
	assert_int_equal(prog.cl[1].line, 2);
	assert_int_equal(prog.cl[1].col, 1);
	assert_int_equal(prog.cl[2].line, 6);
	assert_int_equal(prog.cl[2].col, 1);
	assert_string_equal(prog.cl[1].probes[0].text, "k:vfs_read");
	assert_string_equal(prog.cl[1].probes[1].text, "kr:vfs_read");
	assert_int_equal(prog.cl[1].probes[1].line, 2);
	assert_int_equal(prog.cl[1].probes[1].col, 12);
	assert_string_equal(prog.cl[1].probes[2].text, "t:sched:sched_switch");
	assert_int_equal(prog.cl[1].probes[2].line, 3);
	assert_int_equal(prog.cl[1].probes[2].col, 3);
	assert_string_equal(body(1), "(= @[probe] count())");
	assert_int_equal(prog.cl[1].body->line, 4);
	assert_int_equal(prog.cl[1].body->col, 3);
	assert_int_equal(prog.cl[2].probes[0].line, 6);
	assert_string_equal(body(2), "print(@)");
	/* the program keeps a copy of its text */
	assert_non_null(prog.src);
	assert_non_null(strstr(prog.src, "interval:s:1"));
	done();

	/* clauses back to back, no space */
	ok("BEGIN{exit()}END{exit()}");
	assert_int_equal(prog.ncl, 2);
	assert_int_equal(prog.cl[1].probes[0].pv, PV_END);
	assert_int_equal(prog.cl[1].probes[0].col, 14);
	done();
}

static void test_predicates(void **state)
{
	ok("t:syscalls:sys_enter_write /args.fd == 1/ { @ = count(); }");
	assert_string_equal(pred(0), "(== args.fd 1)");
	done();
	/* division inside parentheses, keys and arguments */
	ok("t:syscalls:sys_enter_write /(args.count / 2) > 10 && @m[args.fd / 2] && "
	   "f(args.fd / 3)/ { exit(); }");
	assert_string_equal(pred(0), "(&& (&& (> (/ args.count 2) 10) @m[(/ args.fd 2)]) "
			    "f((/ args.fd 3)))");
	done();
	/* no space before the block; a kprobe's '/' ends its spec */
	ok("k:vfs_read/arg2 > 0/{ exit(); }");
	assert_string_equal(prog.cl[0].probes[0].text, "k:vfs_read");
	assert_string_equal(pred(0), "(> arg2 0)");
	done();
	/* a uprobe's path holds '/': the predicate needs a space before it */
	ok("u:/bin/sh:main /pid == 1/ { exit(); }");
	assert_string_equal(prog.cl[0].probes[0].text, "u:/bin/sh:main");
	assert_string_equal(pred(0), "(== pid 1)");
	done();
	/* a predicate on several probes, across lines */
	ok("BEGIN, END\n/ 1 ||\n  !comm /\n{ }");
	assert_string_equal(pred(0), "(|| 1 (! comm))");
	assert_int_equal(prog.cl[0].pred->line, 2);
	assert_int_equal(prog.cl[0].pred->col, 5);
	done();
	/* after a predicate, '/' divides again in the block */
	ok("BEGIN /1/ { $x = 4 / 2; }");
	assert_string_equal(body(0), "(= $x (/ 4 2))");
	done();
	/* ternary and comparisons of strings */
	ok("BEGIN /comm == \"sh\" ? 1 : 0/ { }");
	assert_string_equal(pred(0), "(? (== comm \"sh\") 1 0)");
	done();
}

/* ---- statements ------------------------------------------------------------- */

static void test_statements(void **state)
{
	static const struct {
		const char *block, *want;
	} t[] = {
		{ "", "0" },	/* an empty block: a no-op statement */
		{ ";;", "0" },
		{ "exit()", "exit()" },
		{ "exit();", "exit()" },
		{ "@x[1, comm] = 3; @x[1, comm] += 4", "(= @x[1,comm] 3); (+= @x[1,comm] 4)" },
		{ "@ = count()", "(= @ count())" },
		{ "@n = sum(args.count)", "(= @n sum(args.count))" },
		{ "@l = lhist(retval, 0, 2000, 200)", "(= @l lhist(retval,0,2000,200))" },
		{ "@start[tid] = nsecs", "(= @start[tid] nsecs)" },
		{ "@y++; @z--", "(+= @y 1); (-= @z 1)" },
		{ "@y[pid]++", "(+= @y[pid] 1)" },
		{ "$v = 1; $v += 2; $v -= 3; $v *= 4; $v /= 5",
		  "(= $v 1); (+= $v 2); (-= $v 3); (*= $v 4); (/= $v 5)" },
		{ "$v++", "(+= $v 1)" },
		{ "delete(@start[tid])", "delete(@start[tid])" },
		{ "print(@x); clear(@x); exit()", "print(@x); clear(@x); exit()" },
		{ "printf(\"%s %d\\n\", comm, pid)", "printf(\"%s %d\n\",comm,pid)" },
		{ "str(args.filename, 64)", "str(args.filename,64)" },
		{ "time()", "time()" },
		{ "time(\"%H:%M:%S\\n\"); time()", "time(\"%H:%M:%S\n\"); time()" },
		{ "if (1) { exit() }", "(if 1 {exit()})" },
		{ "if (pid) { exit() } else { print(@) }", "(if pid {exit()} {print(@)})" },
		{ "if (1) { @a = 1 } else if (2) { @a = 2 } else { @a = 3 }",
		  "(if 1 {(= @a 1)} {(if 2 {(= @a 2)} {(= @a 3)})})" },
		/* an if needs no ';' after its block */
		{ "if (1) {} exit()", "(if 1 {0}); exit()" },
		{ "if (1) { if (2) { exit() } }", "(if 1 {(if 2 {exit()})})" },
		/* bpftrace's if without parentheses */
		{ "if pid > 1 { exit() } else if 2 { }", "(if (> pid 1) {exit()} {(if 2 {0})})" },
		/* tuples, and a tuple's elements */
		{ "$t = (1, \"a\", (2, 3)); $u = (1,); $e = (); print($t.2.1)",
		  "(= $t (tuple 1 \"a\" (tuple 2 3))); (= $u (tuple 1)); (= $e (tuple)); "
		  "print((. (. $t 2) 1))" },
		{ "@m[(1, 2)] = (3, 4); @n[((1, 2))] = 1", "(= @m[1,2] (tuple 3 4)); (= @n[1,2] 1)" },
		{ "@m[((1, 2), 3)] = true", "(= @m[(tuple 1 2),3] 1)" },
		/* a ?: b is a ? a : b; return VALUE */
		{ "$a = $x ?: 10; return $a", "(= $a (? $x $x 10)); return" },
		/* loops */
		{ "for ($i : 0..5) { print($i); break } exit()", "(for $i 0..5 {print($i); break}); exit()" },
		{ "for $i : (1+1)..$n*2 { continue; }", "(for $i (+ 1 1)..(* $n 2) {continue})" },
		{ "for ($kv : @m) { return }", "(for $kv @m {return})" },
		{ "while ($i < 3) { $i++ } unroll (3) { @x++ }",
		  "(while (< $i 3) {(+= $i 1)}); (unroll 3 {(+= @x 1)})" },
		{ "let $x; let $y = 2; let $z: uint8; let $w: int16 = -1",
		  "(= $x 0); (= $y 2); (= $z ((uint8) 0)); (= $w ((int16) (- 1)))" },
		{ "@m[1] = @m[1] + 1", "(= @m[1] (+ @m[1] 1))" },
		{ "1 + 2", "(+ 1 2)" },
	};
	char text[256];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(text, sizeof(text), "BEGIN { %s }", t[i].block);
		ok(text);
		if (strcmp(body(0), t[i].want))
			fail_msg("'%s': %s, not %s", t[i].block, body(0), t[i].want);
		done();
	}
}

/* The preamble: definitions without ';', config, map declarations. */
/* software:EVENT:PERIOD, the period as bpftrace writes it too (1e6); a
 * string literal may hold a newline (bpftrace reads it so). */
static void test_period_and_newline(void **state)
{
	ok("config = { missing_probes = error } software:cpu-clock:1e6 { exit(); }");
	assert_int_equal(prog.cl[0].probes[0].period, 1000000);
	assert_int_equal(prog.missing_probes, LANG_MISSING_ERROR);
	done();
	ok("config = { missing_probes = \"warn\" } begin {}");
	assert_int_equal(prog.missing_probes, LANG_MISSING_WARN);
	done();
	ok("config = { missing_probes=ignore } begin {}");
	assert_int_equal(prog.missing_probes, LANG_MISSING_IGNORE);
	done();
	ok("software:cpu-clock:250 { exit(); }");
	assert_int_equal(prog.cl[0].probes[0].period, 250);
	done();
	ok("BEGIN { printf(\"a\n\"); @x = 1; }");
	assert_string_equal(prog.cl[0].body->a->args[0]->sval, "a\n");
	assert_int_equal(prog.cl[0].body->next->line, 2);
	done();
}

static int keep_200(const char *text, void *arg)
{
	return strstr(text, ":200") != NULL;
}

/* --probe-filter: probes the test refuses go, a clause left with none goes,
 * begin and end stay. */
static void test_probe_filter(void **state)
{
	ok("interval:ms:100 { @a = 1; } BEGIN { @b = 1; } interval:ms:300, interval:ms:200 "
	   "{ @c = 1; } end { @d = 1; }");
	assert_int_equal(lang_probe_filter(&prog, keep_200, NULL), 1);
	assert_int_equal(prog.ncl, 3);
	assert_int_equal(prog.cl[0].probes[0].pv, PV_BEGIN);
	assert_int_equal(prog.cl[1].nprobes, 1);
	assert_string_equal(prog.cl[1].probes[0].text, "interval:ms:200");
	assert_string_equal(body(1), "(= @c 1)");
	assert_int_equal(prog.cl[2].probes[0].pv, PV_END);
	assert_int_equal(lang_probe_filter(&prog, keep_200, NULL), 1);
	done();
}

static void test_preamble(void **state)
{
	const struct node *s;

	ok("struct Foo { int x; struct Bar { int y; } b; } let @a = lruhash(2);\n"
	   "config = { on_stack_limit = 0; print_maps_on_exit = false; BPFTRACE_LOG_SIZE = 10 }\n"
	   "let @b = percpuhash(7); begin { let $v: uint16 = 1; }");
	assert_int_equal(prog.ndecls, 1);
	assert_string_equal(prog.decls[0].text, "struct Foo { int x; struct Bar { int y; } b; };");
	assert_int_equal(prog.nmdecls, 2);
	assert_string_equal(prog.mdecls[0].name, "@a");
	assert_int_equal(prog.mdecls[0].type, LM_LRUHASH);
	assert_int_equal(prog.mdecls[0].max, 2);
	assert_int_equal(prog.mdecls[0].line, 1);
	assert_int_equal(prog.mdecls[0].col, 52);
	assert_int_equal(prog.mdecls[1].type, LM_PERCPUHASH);
	assert_int_equal(prog.mdecls[1].max, 7);
	assert_int_equal(prog.mdecls[1].line, 3);
	assert_ptr_equal(lang_mapdecl_of(&prog, "@b"), &prog.mdecls[1]);
	assert_null(lang_mapdecl_of(&prog, "@c"));
	assert_true(prog.no_print_maps);
	assert_int_equal(prog.ncl, 1);
	assert_int_equal(prog.cl[0].line, 3);
	assert_int_equal(prog.cl[0].col, 25);
	s = prog.cl[0].body;
	assert_int_equal(s->k, S_ASSIGN);
	assert_true(s->decl);
	assert_int_equal(s->col, 33);
	assert_int_equal(s->b->k, N_CAST);
	assert_int_equal(s->b->col, 41);
	done();
	/* a typedef keeps needing its ';' */
	ok("typedef struct { int x; } foo_t; begin { }");
	assert_string_equal(prog.decls[0].text, "typedef struct { int x; } foo_t;");
	assert_false(prog.no_print_maps);
	assert_false(prog.no_debug_info);	/* user frames' source lines by default */
	done();
	ok("config = { show_debug_info = 0 } begin { }");
	assert_true(prog.no_debug_info);
	done();
	ok("config = { BPFTRACE_SHOW_DEBUG_INFO = true } begin { }");
	assert_false(prog.no_debug_info);
	done();
}

/* Positions of statements and nodes, and the kinds of the nodes. */
static void test_nodes(void **state)
{
	const struct node *s, *e;

	ok("BEGIN {\n  @x[tid] += 2;\n  $v = args->count;\n  @y++;\n}");
	s = prog.cl[0].body;
	assert_int_equal(s->k, S_ASSIGN);
	assert_int_equal(s->op, T_PLUSEQ);
	assert_int_equal(s->line, 2);
	assert_int_equal(s->col, 3);
	assert_int_equal(s->a->k, N_MAP);
	assert_string_equal(s->a->sval, "@x");
	assert_int_equal(s->a->nargs, 1);
	assert_int_equal(s->a->args[0]->k, N_BUILTIN);
	assert_int_equal(s->a->args[0]->ival, B_TID);
	assert_int_equal(s->a->args[0]->col, 6);
	assert_int_equal(s->b->k, N_INT);
	assert_int_equal(s->b->col, 14);
	s = s->next;
	assert_int_equal(s->k, S_ASSIGN);
	assert_int_equal(s->op, T_ASSIGN);
	assert_int_equal(s->a->k, N_VAR);
	assert_string_equal(s->a->sval, "$v");
	assert_int_equal(s->b->k, N_FIELD);
	assert_string_equal(s->b->sval, "count");
	assert_int_equal(s->b->line, 3);
	assert_int_equal(s->b->col, 8);
	s = s->next;
	assert_int_equal(s->line, 4);
	assert_int_equal(s->b->k, N_INT);
	assert_int_equal(s->b->ival, 1);
	assert_null(s->next);
	done();

	/* !~ sits at its '!'; unary "!~x" is a '!' and a '~' a column on */
	ok("BEGIN { $x = comm !~ \"a*\" || !~1; }");
	e = prog.cl[0].body->b;
	assert_int_equal(e->a->k, N_BINOP);
	assert_int_equal(e->a->op, T_NTILDE);
	assert_int_equal(e->a->col, 19);
	assert_int_equal(e->b->k, N_UNOP);
	assert_int_equal(e->b->op, T_NOT);
	assert_int_equal(e->b->col, 30);
	assert_int_equal(e->b->a->op, T_TILDE);
	assert_int_equal(e->b->a->col, 31);
	assert_int_equal(e->b->a->a->col, 32);
	done();

	/* operators sit at their token, calls at their name */
	ok("BEGIN { $x = 1 +\n 2 * f(3) ? 4 : 5; }");
	e = prog.cl[0].body->b;
	assert_int_equal(e->k, N_TERNARY);
	assert_int_equal(e->line, 2);
	assert_int_equal(e->col, 11);
	assert_int_equal(e->a->k, N_BINOP);
	assert_int_equal(e->a->op, T_PLUS);
	assert_int_equal(e->a->line, 1);
	assert_int_equal(e->a->col, 16);
	assert_int_equal(e->a->b->op, T_STAR);
	assert_int_equal(e->a->b->col, 4);
	assert_int_equal(e->a->b->b->k, N_CALL);
	assert_int_equal(e->a->b->b->col, 6);
	done();
}

/* ---- expressions ------------------------------------------------------------ */

/* C's precedence and associativity, and the shape of the tree. */
static void test_precedence(void **state)
{
	static const struct {
		const char *e, *want;
	} t[] = {
		{ "1 + 2 * 3", "(+ 1 (* 2 3))" },
		{ "1 * 2 + 3", "(+ (* 1 2) 3)" },
		{ "1 - 2 - 3", "(- (- 1 2) 3)" },
		{ "8 / 4 / 2", "(/ (/ 8 4) 2)" },
		{ "1 * 2 / 3 % 4", "(% (/ (* 1 2) 3) 4)" },
		{ "(1 + 2) * 3", "(* (+ 1 2) 3)" },
		{ "1 - (2 - 3)", "(- 1 (- 2 3))" },
		{ "1 << 2 + 3", "(<< 1 (+ 2 3))" },
		{ "1 >> 2 << 3", "(<< (>> 1 2) 3)" },
		{ "1 < 2 << 3", "(< 1 (<< 2 3))" },
		{ "1 < 2 == 3 > 4", "(== (< 1 2) (> 3 4))" },
		{ "1 <= 2 >= 3", "(>= (<= 1 2) 3)" },
		{ "1 == 2 != 3", "(!= (== 1 2) 3)" },
		/* ~ is a binary glob match at =='s level, and unary ~ still */
		{ "comm ~ \"s*\" && pid", "(&& (~ comm \"s*\") pid)" },
		{ "1 == 2 ~ \"x\"", "(~ (== 1 2) \"x\")" },
		{ "1 < 2 ~ \"x\"", "(~ (< 1 2) \"x\")" },
		{ "~1 ~ ~2", "(~ (~ 1) (~ 2))" },
		/* !~ is the glob non-match at ~'s level; before an operand, !(~x) */
		{ "comm !~ \"s*\" && pid", "(&& (!~ comm \"s*\") pid)" },
		{ "comm !~ \"s*\" == 0", "(== (!~ comm \"s*\") 0)" },
		{ "1 < 2 !~ \"x\"", "(!~ (< 1 2) \"x\")" },
		{ "!~1", "(! (~ 1))" },
		{ "!~ !~1 !~ \"x\"", "(!~ (! (~ (! (~ 1)))) \"x\")" },
		{ "comm !~ \"s*\" ? 1 : 0", "(? (!~ comm \"s*\") 1 0)" },
		{ "1 == 2 & 3", "(& (== 1 2) 3)" },	/* C's quirk, kept */
		{ "1 & 2 ^ 3 | 4", "(| (^ (& 1 2) 3) 4)" },
		{ "1 | 2 ^ 3 & 4", "(| 1 (^ 2 (& 3 4)))" },
		{ "1 | 2 && 3", "(&& (| 1 2) 3)" },
		{ "1 || 2 && 3", "(|| 1 (&& 2 3))" },
		{ "1 && 2 || 3 && 4", "(|| (&& 1 2) (&& 3 4))" },
		{ "1 || 2 || 3", "(|| (|| 1 2) 3)" },
		{ "!1 + -2 * ~3", "(+ (! 1) (* (- 2) (~ 3)))" },
		{ "- - 1", "(- (- 1))" },
		/* C types: casts bind as unary operators, members and [] tighter */
		{ "((struct file *)arg0)->f_path.dentry", "(. (-> ((struct file *) arg0) f_path) dentry)" },
		{ "(uint8)arg1 + 1", "(+ ((uint8) arg1) 1)" },
		{ "*(u32 *)arg0 * 2", "(* (* ((u32 *) arg0)) 2)" },
		{ "&$p->a[2] - sizeof(struct x)", "(- (& ([] (-> $p a) 2)) sizeof(struct x))" },
		{ "(pid) * 2", "(* pid 2)" },
		{ "sizeof($x)", "sizeof($x)" },
		{ "!!pid", "(! (! pid))" },
		{ "-1 - -1", "(- (- 1) (- 1))" },
		{ "1 ? 2 : 3", "(? 1 2 3)" },
		{ "1 ? 2 : 3 ? 4 : 5", "(? 1 2 (? 3 4 5))" },
		{ "1 ? 2 ? 3 : 4 : 5", "(? 1 (? 2 3 4) 5)" },
		{ "1 || 2 ? 3 + 4 : 5", "(? (|| 1 2) (+ 3 4) 5)" },
		{ "(1 ? 2 : 3) + 4", "(+ (? 1 2 3) 4)" },
		{ "comm == \"sh\" && pid != 1", "(&& (== comm \"sh\") (!= pid 1))" },
		{ "f(1 + 2, g(3)) * @m[4, 5]", "(* f((+ 1 2),g(3)) @m[4,5])" },
		{ "nsecs - @start[tid]", "(- nsecs @start[tid])" },
	};
	char text[256], want[256];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(text, sizeof(text), "BEGIN { $x = %s; }", t[i].e);
		snprintf(want, sizeof(want), "(= $x %s)", t[i].want);
		ok(text);
		if (strcmp(body(0), want))
			fail_msg("'%s': %s, not %s", t[i].e, body(0), want);
		done();
	}
}

static void test_builtins(void **state)
{
	static const struct {
		const char *name;
		enum builtin b;
		int idx;
	} t[] = {
		{ "pid", B_PID, 0 }, { "tid", B_TID, 0 }, { "comm", B_COMM, 0 },
		{ "cpu", B_CPU, 0 }, { "nsecs", B_NSECS, 0 }, { "elapsed", B_ELAPSED, 0 },
		{ "uid", B_UID, 0 }, { "retval", B_RETVAL, 0 }, { "func", B_FUNC, 0 },
		{ "probe", B_PROBE, 0 }, { "kstack", B_KSTACK, 0 }, { "ustack", B_USTACK, 0 },
		{ "arg0", B_ARG, 0 }, { "arg5", B_ARG, 5 }, { "arg12", B_ARG, 12 },
		{ "arg99", B_ARG, 99 },
	};
	char text[128];
	int argn;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const struct node *e;

		snprintf(text, sizeof(text), "BEGIN { $x = %s; }", t[i].name);
		ok(text);
		e = prog.cl[0].body->b;
		assert_int_equal(e->k, N_BUILTIN);
		assert_int_equal(e->ival, t[i].b);
		assert_int_equal(e->idx, t[i].idx);
		assert_string_equal(e->sval, t[i].name);
		done();
		argn = -1;
		assert_int_equal(lang_builtin(t[i].name, &argn), t[i].b);
		if (t[i].b == B_ARG)
			assert_int_equal(argn, t[i].idx);
	}
	assert_int_equal(lang_builtin("arg", &argn), -1);
	assert_int_equal(lang_builtin("arg100", &argn), -1);
	assert_int_equal(lang_builtin("arg1x", &argn), -1);
	assert_int_equal(lang_builtin("args", &argn), -1);
	assert_int_equal(lang_builtin("PID", &argn), -1);
}

static void test_fields(void **state)
{
	ok("BEGIN { $x = args.count + args->fd + args . ret; }");
	assert_string_equal(body(0), "(= $x (+ (+ args.count args.fd) args.ret))");
	done();
}

static void test_literals(void **state)
{
	static const struct {
		const char *lit;
		int64_t v;
	} ints[] = {
		{ "0", 0 }, { "42", 42 }, { "0x10", 16 }, { "0XfF", 255 },
		{ "0x7fffffffffffffff", INT64_MAX },
		{ "18446744073709551615", -1 },	/* u64 max, as the kernel's -1 */
		{ "0xffffffffffffffff", -1 },
		/* bpftrace's: an exponent (integers), '_' between digits */
		{ "1e6", 1000000 }, { "5e0", 5 }, { "1_000_000", 1000000 }, { "2_5e2", 2500 },
		{ "1e19", (int64_t)10000000000000000000ull },
	};
	static const struct {
		const char *lit, *v;
	} strs[] = {
		{ "\"\"", "" },
		{ "\"plain\"", "plain" },
		{ "\"a\\nb\"", "a\nb" },
		{ "\"a\\rb\"", "a\rb" },
		{ "\"\\t\\\"q\\\"\\\\\"", "\t\"q\"\\" },
		{ "\"a\\0b\"", "a" },		/* a C string: NUL ends it */
		{ "\"// not a comment /* */\"", "// not a comment /* */" },
		{ "\"{ } ; /\"", "{ } ; /" },
	};
	char text[128];

	for (size_t i = 0; i < ARRAY_SIZE(ints); i++) {
		snprintf(text, sizeof(text), "BEGIN { $x = %s; }", ints[i].lit);
		ok(text);
		assert_int_equal(prog.cl[0].body->b->k, N_INT);
		if (prog.cl[0].body->b->ival != ints[i].v)
			fail_msg("%s: %lld", ints[i].lit, (long long)prog.cl[0].body->b->ival);
		done();
	}
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		snprintf(text, sizeof(text), "BEGIN { $x = %s; }", strs[i].lit);
		ok(text);
		assert_int_equal(prog.cl[0].body->b->k, N_STR);
		assert_string_equal(prog.cl[0].body->b->sval, strs[i].v);
		done();
	}
}

/* Numbers that are not: a position and a message, not a wrong value. */
static void test_bad_numbers(void **state)
{
	static const char *const nums[] = { "1e", "1e20", "1_", "1__0", "0x", "12ab", "1e6x",
					   "99999999999999999999" };
	char text[128];

	for (size_t i = 0; i < ARRAY_SIZE(nums); i++) {
		struct lang_err err;
		char want[64];

		snprintf(text, sizeof(text), "BEGIN { $x = %s; }", nums[i]);
		if (lang_parse(text, &prog, &err) == 0)
			fail_msg("'%s' accepted", text);
		snprintf(want, sizeof(want), "bad number '%s'", nums[i]);
		assert_string_equal(err.msg, want);
		assert_int_equal(err.col, 14);
	}
}

/* $1..$N, $#, str($N), a #! line. */
/* getopt("name", default): a literal of the default's type, the value of
 * --name[=VALUE]; words no getopt() names, or of the wrong type, fail. */
static void test_getopt(void **state)
{
	static char *const words[] = { "--dd", "--aa=0xffffffffffffffff", "--bb=-10",
				       "--cc=False", "--ee=bye" };
	static char *const wrong[] = { "--aa=x" }, *const extra[] = { "--zz" };
	struct lang_err err;
	const struct node *b;

	(void)state;
	lang_getopt_set(words, 5);
	assert_int_equal(lang_parse("BEGIN { $a = getopt(\"aa\", 20); $b = getopt(\"bb\", -1); "
				    "$c = getopt(\"cc\", true); $d = getopt(\"dd\"); "
				    "$e = getopt(\"ee\", \"hi\"); $f = getopt(\"ff\", -3); }",
				    &prog, &err), 0);
	assert_true(lang_getopt_used());
	b = prog.cl[0].body;
	assert_int_equal(b->b->k, N_INT);
	assert_int_equal((uint64_t)b->b->ival, UINT64_MAX);	/* unsigned, as written */
	b = b->next;
	assert_int_equal(b->b->k, N_UNOP);			/* -10, as written */
	assert_int_equal(b->b->a->ival, 10);
	b = b->next;
	assert_int_equal(b->b->ival, 0);
	assert_int_equal(b->b->enum_id, LANG_BOOL_ID);
	b = b->next;
	assert_int_equal(b->b->ival, 1);			/* given without a value */
	b = b->next;
	assert_string_equal(b->b->sval, "bye");
	b = b->next;
	assert_int_equal(b->b->k, N_UNOP);			/* the default */
	assert_int_equal(b->b->a->ival, 3);
	assert_int_equal(lang_getopt_check(), 0);
	done();
	lang_getopt_set(wrong, 1);
	ok("BEGIN { $a = getopt(\"aa\", 1); }");
	assert_int_equal(lang_getopt_check(), -EINVAL);
	done();
	lang_getopt_set(extra, 1);
	ok("BEGIN { $a = getopt(\"aa\", 1); }");
	assert_int_equal(lang_getopt_check(), -EINVAL);
	done();
	lang_getopt_set(NULL, 0);
	ok("BEGIN { $a = 1; }");
	assert_false(lang_getopt_used());
	done();
	assert_int_equal(lang_parse("BEGIN { $a = getopt(1); }", &prog, &err), -EINVAL);
}

static void test_positional(void **state)
{
	static char *const params[] = { "42", "hello", "-7", "0x10" };
	struct lang_err err;
	const struct node *b;

	assert_int_equal(lang_parse_args("#!/usr/bin/env bpftrace\nBEGIN { $a = $1; $b = $2; "
					 "$c = $3; $d = $4; $e = $5; $f = $#; $g = str($1); "
					 "$h = str($9); $i = str($2); }", params, 4, &prog, &err), 0);
	b = prog.cl[0].body;
	assert_int_equal(prog.cl[0].line, 2);	/* the #! line still counts */
	assert_int_equal(b->b->k, N_INT);
	assert_int_equal(b->b->ival, 42);
	b = b->next;
	assert_int_equal(b->b->k, N_STR);
	assert_string_equal(b->b->sval, "hello");
	b = b->next;
	assert_int_equal(b->b->ival, -7);
	b = b->next;
	assert_int_equal(b->b->ival, 16);
	b = b->next;
	assert_int_equal(b->b->k, N_INT);	/* missing: 0 */
	assert_int_equal(b->b->ival, 0);
	b = b->next;
	assert_int_equal(b->b->ival, 4);	/* $# */
	b = b->next;
	assert_int_equal(b->b->args[0]->k, N_STR);	/* str($1): the text */
	assert_string_equal(b->b->args[0]->sval, "42");
	b = b->next;
	assert_string_equal(b->b->args[0]->sval, "");	/* str() of a missing one */
	b = b->next;
	assert_string_equal(b->b->args[0]->sval, "hello");
	done();
	/* without parameters, $# is 0 and a #! alone is no program */
	ok("BEGIN { $n = $#; }");
	assert_int_equal(prog.cl[0].body->b->ival, 0);
	done();
	assert_int_equal(lang_parse("#!/bin/ftr\n", &prog, &err), -EINVAL);
	assert_string_equal(err.msg, "empty program");
	/* in a probe, the parameter's text */
	assert_int_equal(lang_parse_args("uprobe:$2:$2$2, interval:ms:$1 { }", params, 4, &prog,
					 &err), 0);
	assert_string_equal(prog.cl[0].probes[0].text, "uprobe:hello:hellohello");
	assert_string_equal(prog.cl[0].probes[1].text, "interval:ms:42");
	assert_int_equal(prog.cl[0].probes[1].period_ns, 42000000);
	done();
	/* unroll ($1): the parameter's number; a string or a missing one is none */
	assert_int_equal(lang_parse_args("BEGIN { unroll ($4) { } }", params, 4, &prog, &err), 0);
	assert_int_equal(prog.cl[0].body->k, S_UNROLL);
	assert_int_equal(prog.cl[0].body->ival, 16);
	done();
	assert_int_equal(lang_parse_args("BEGIN { unroll ($2) { } }", params, 4, &prog, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "unroll (N): N is a number of times, 1 to 100");
	assert_int_equal(lang_parse_args("BEGIN { unroll ($7) { } }", params, 4, &prog, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "unroll minimum value is 1");
	/* bpftrace's builtins that need BPF: named, at their position */
	assert_int_equal(lang_parse("BEGIN { @x = cgroup; }", &prog, &err), -EINVAL);
	assert_int_equal(err.col, 14);
	assert_non_null(strstr(err.msg, "'cgroup' is the task's cgroup id"));
	assert_int_equal(lang_parse("BEGIN { $x = $0; }", &prog, &err), -EINVAL);
	assert_int_equal(err.col, 14);
}

/* The one integer cast of the language (int8() ... and the C casts). */
static void test_int_cast(void **state)
{
	int bits;
	bool sgn;

	assert_true(lang_int_type("int8", &bits, &sgn));
	assert_int_equal(bits, 8);
	assert_true(sgn);
	assert_true(lang_int_type("uint64", &bits, &sgn));
	assert_int_equal(bits, 64);
	assert_false(sgn);
	assert_false(lang_int_type("int7", &bits, &sgn));
	assert_int_equal(lang_int_cast(255, 8, true), -1);
	assert_int_equal(lang_int_cast(255, 8, false), 255);
	assert_int_equal(lang_int_cast(256, 8, false), 0);
	assert_int_equal(lang_int_cast(0x18000, 16, true), -32768);
	assert_int_equal(lang_int_cast(-1, 32, false), 4294967295ll);
	assert_int_equal(lang_int_cast(0x7fffffff, 32, true), 0x7fffffff);
	assert_int_equal(lang_int_cast(-5, 64, false), -5);
	assert_int_equal(lang_int_cast(2, 1, false), 1);
}

static void test_comments(void **state)
{
	ok("// a program\n"
	   "BEGIN /* here */ { /* a\n"
	   "   multi-line comment */ @x = 1; // the rest\n"
	   "\t@y = 2 /**/ ; }\r\n"
	   "END{}// no newline at the end");
	assert_int_equal(prog.ncl, 2);
	assert_int_equal(prog.cl[0].probes[0].line, 2);
	assert_string_equal(body(0), "(= @x 1); (= @y 2)");
	/* positions count lines inside comments */
	assert_int_equal(prog.cl[0].body->line, 3);
	assert_int_equal(prog.cl[0].body->col, 26);
	assert_int_equal(prog.cl[0].body->next->line, 4);
	assert_int_equal(prog.cl[0].body->next->col, 2);
	assert_int_equal(prog.cl[1].probes[0].line, 5);
	done();
}

/* The seed's one-liners and the acceptance programs all parse. */
static void test_acceptance(void **state)
{
	static const char *const t[] = {
		"tracepoint:syscalls:sys_enter_openat { @[comm] = count(); } interval:s:5 { exit(); }",
		"kprobe:vfs_write { @bytes = hist(arg2); } interval:s:5 { exit(); }",
		"tracepoint:syscalls:sys_enter_write { @bytes = hist(args.count); }",
		"tracepoint:syscalls:sys_enter_openat { printf(\"%s %s\\n\", comm, str(args.filename)); }",
		"tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }",
		"tracepoint:syscalls:sys_exit_read /args.ret/ { @[comm] = sum(args.ret); }",
		"tracepoint:syscalls:sys_exit_read { @[comm] = hist(args.ret); }",
		"kretprobe:vfs_read { @bytes = lhist(retval, 0, 2000, 200); }",
		"kprobe:vfs_read { @start[tid] = nsecs; } kretprobe:vfs_read /@start[tid]/ "
		"{ @ns[comm] = hist(nsecs - @start[tid]); delete(@start[tid]); }",
		"tracepoint:sched:sched* { @[probe] = count(); } interval:s:5 { exit(); }",
		"tracepoint:block:block_rq_issue { @ = hist(args.bytes); }",
		"profile:hz:99 { @[kstack] = count(); }",
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		ok(t[i]);
		done();
	}
	ok(t[8]);
	assert_int_equal(prog.ncl, 2);
	assert_string_equal(pred(1), "@start[tid]");
	assert_string_equal(body(1), "(= @ns[comm] hist((- nsecs @start[tid]))); delete(@start[tid])");
	done();
}

static void test_tok_str(void **state)
{
	assert_string_equal(lang_tok_str(T_EOF), "end of input");
	assert_string_equal(lang_tok_str(T_ARROW), "'->'");
	assert_string_equal(lang_tok_str(T_TILDE), "'~'");
	assert_string_equal(lang_tok_str((enum tok)1000), "?");
}

/* ---- //#if lines -------------------------------------------------------------- */

static int cond_yes(const char *expr, void *ctx)
{
	(void)ctx;
	return !strcmp(expr, "yes") ? 1 : !strcmp(expr, "no") ? 0 : -1;
}

static void test_conditionals(void **state)
{
	static const struct {
		const char *in, *msg;
		int line;
	} cbad[] = {
		{ "//#if maybe\n//#endif\n", "unknown condition '//#if maybe'", 1 },
		{ "x\n//#else\n", "'//#else' without '//#if'", 2 },
		{ "//#endif\n", "'//#endif' without '//#if'", 1 },
		{ "//#if yes\n//#else\n//#else\n//#endif\n", "'//#else' without '//#if'", 3 },
		{ "//#if yes\n//#if no\n", "'//#if' inside '//#if' (they do not nest)", 2 },
		{ "a\n//#if yes\nb\n", "'//#if' without '//#endif'", 2 },
	};
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "a\n//#if yes\nb\n//#else\nc\n//#endif\nd",
		  "a\n//#if yes\nb\n//#else\n \n//#endif\nd" },
		{ "a\n//#if no\nbb\n//#else\nc\n//#endif\n",
		  "a\n//#if no\n  \n//#else\nc\n//#endif\n" },
		{ "//#if no\nxyz\n//#endif", "//#if no\n   \n//#endif" },
		/* not directives: //#ifx, indented, in the middle of a line */
		{ "//#ifx\n //#if no\nq //#if no\n", "//#ifx\n //#if no\nq //#if no\n" },
	};
	struct lang_err err;
	char buf[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cbad); i++) {
		snprintf(buf, sizeof(buf), "%s", cbad[i].in);
		memset(&err, 0, sizeof(err));
		assert_int_equal(lang_conditionals(buf, cond_yes, NULL, &err), -EINVAL);
		assert_string_equal(err.msg, cbad[i].msg);
		assert_int_equal(err.line, cbad[i].line);
	}
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		snprintf(buf, sizeof(buf), "%s", good[i].in);
		assert_int_equal(lang_conditionals(buf, cond_yes, NULL, &err), 0);
		assert_string_equal(buf, good[i].out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conditionals),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_positional),
		cmocka_unit_test(test_getopt),
		cmocka_unit_test(test_int_cast),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_hints),
		cmocka_unit_test(test_errors_deep),
		cmocka_unit_test(test_perror),
		cmocka_unit_test(test_perror_semantic),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_period_and_newline),
		cmocka_unit_test(test_probe_filter),
		cmocka_unit_test(test_clauses),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_preamble),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_acceptance),
		cmocka_unit_test(test_tok_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
