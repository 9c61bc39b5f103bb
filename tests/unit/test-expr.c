// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for filter/{parse,bind,eval,render}.c: syntax errors with positions, binding errors, the
 * kernel rendering, and evaluation on hand-built records of real event
 * formats (tests/fixtures/formats).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>

#include "filter/expr.h"
#include "ftr.h"
#include "fixture.h"

static struct tep_handle *tep;

static const char *const fixtures[] = {
	"syscalls:sys_enter_write", "syscalls:sys_exit_read", "syscalls:sys_enter_openat",
	"sched:sched_switch", "sched:sched_process_exec", "sched:sched_waking",
	"ipi:ipi_send_cpumask", "btrfs:btrfs_sync_fs", "ftrtest:types", NULL,
};

static int setup(void **state)
{
	tep = fixture_tep(fixtures);
	return 0;
}

static int teardown(void **state)
{
	tep_free(tep);
	return 0;
}

static struct tep_event *event(const char *sys, const char *name)
{
	return fixture_event(tep, sys, name);
}

/* ---- helpers ---- */

static struct expr *parse_bind(const char *text, struct tep_event *ev)
{
	struct expr_err err;
	struct expr *e = expr_parse(text, &err);

	if (!e)
		fail_msg("parse '%s': %d: %s", text, err.pos, err.msg);
	if (expr_bind(e, ev, &err))
		fail_msg("bind '%s': %d: %s", text, err.pos, err.msg);
	return e;
}

/* A syntax error at column pos whose message contains frag. */
static void bad_syntax(const char *text, int pos, const char *frag)
{
	struct expr_err err;
	struct expr *e;

	errno = 0;
	e = expr_parse(text, &err);
	if (e) {
		expr_free(e);
		fail_msg("'%s' parsed", text);
	}
	assert_int_equal(errno, EINVAL);
	if (err.pos != pos || !strstr(err.msg, frag))
		fail_msg("'%s': got %d '%s', want %d '%s'", text, err.pos, err.msg, pos, frag);
}

/* Parses, but binding to ev fails at column pos with frag in the message. */
static void bad_bind(const char *text, struct tep_event *ev, int pos, const char *frag)
{
	struct expr_err err;
	struct expr *e = expr_parse(text, &err);

	if (!e)
		fail_msg("parse '%s': %d: %s", text, err.pos, err.msg);
	assert_int_equal(expr_bind(e, ev, &err), -EINVAL);
	if (err.pos != pos || !strstr(err.msg, frag))
		fail_msg("'%s': got %d '%s', want %d '%s'", text, err.pos, err.msg, pos, frag);
	/* a failed bind leaves nothing usable */
	assert_false(expr_eval(e, &(struct tep_record){ .data = "", .size = 0 }, NULL));
	assert_false(expr_kernel_ok(e, NULL, 0));
	expr_free(e);
}

static void kernel_is(const char *text, struct tep_event *ev, const char *want)
{
	struct expr *e = parse_bind(text, ev);
	char buf[512], why[256];

	if (!expr_kernel_ok(e, why, sizeof(why)))
		fail_msg("'%s' not kernel-ok: %s", text, why);
	assert_int_equal(expr_to_kernel(e, buf, sizeof(buf)), 0);
	if (strcmp(buf, want))
		fail_msg("'%s' renders as '%s', want '%s'", text, buf, want);
	expr_free(e);
}

static void not_kernel(const char *text, struct tep_event *ev, const char *frag)
{
	struct expr *e = parse_bind(text, ev);
	char buf[512], why[256];

	assert_false(expr_kernel_ok(e, why, sizeof(why)));
	if (!strstr(why, frag))
		fail_msg("'%s': why '%s', want '%s'", text, why, frag);
	assert_int_equal(expr_to_kernel(e, buf, sizeof(buf)), -EINVAL);
	expr_free(e);
}

static bool eval_ctx(const char *text, struct fx_rec *r, const struct expr_ctx *ctx)
{
	struct expr *e = parse_bind(text, r->ev);
	bool v = expr_eval(e, &r->r, ctx);

	expr_free(e);
	return v;
}

static bool eval(const char *text, struct fx_rec *r)
{
	return eval_ctx(text, r, NULL);
}

#define assert_eval(text, rec, want)						\
	do {									\
		if (eval(text, rec) != (want))					\
			fail_msg("'%s' is not %s", text, (want) ? "true" : "false"); \
	} while (0)

/* ---- bad input: syntax ---- */

static void test_syntax_empty(void **state)
{
	bad_syntax("", 0, "empty expression");
	bad_syntax("   ", 0, "empty expression");
	bad_syntax(NULL, 0, "empty expression");
	bad_syntax("()", 1, "expected a field, number or string after '(', found ')'");
}

static void test_syntax_unbalanced(void **state)
{
	bad_syntax("(fd == 1", 0, "unbalanced '('");
	bad_syntax("((fd == 1) && (count > 2)", 0, "unbalanced '('");
	bad_syntax("fd == (1", 6, "unbalanced '('");
	bad_syntax("fd == 1)", 7, "unbalanced ')'");
	bad_syntax("(fd == 1))", 9, "unbalanced ')'");
	bad_syntax(")", 0, "found ')'");
	bad_syntax("(fd == 1 count", 9, "expected ')' or an operator, found 'count'");
}

static void test_syntax_dangling(void **state)
{
	bad_syntax("fd ==", 5, "after '==', found end of input");
	bad_syntax("fd == 1 &&", 10, "after '&&', found end of input");
	bad_syntax("fd == 1 ||   ", 13, "after '||', found end of input");
	bad_syntax("!", 1, "after '!'");
	bad_syntax("fd +", 4, "after '+'");
	bad_syntax("-", 1, "after '-'");
	bad_syntax("&& fd", 0, "expected a field, number or string, found '&&'");
	bad_syntax("fd == == 1", 6, "after '==', found '=='");
	bad_syntax("fd == 1 && || fd", 11, "after '&&', found '||'");
}

static void test_syntax_strings(void **state)
{
	bad_syntax("prev_comm == \"swap", 13, "unterminated string");
	bad_syntax("prev_comm == 'swap", 13, "unterminated string");
	/* a double quote does not end a single-quoted string */
	bad_syntax("prev_comm == 'swap\" && fd", 13, "unterminated string");
}

static void test_syntax_tokens(void **state)
{
	char deep[700];

	bad_syntax("fd = 1", 3, "did you mean '=='");
	bad_syntax("fd == 1 | fd == 2", 8, "did you mean '||'");
	bad_syntax("fd == 08", 6, "invalid number '08'");
	bad_syntax("fd == 0x", 6, "invalid number '0x'");
	bad_syntax("fd == 12ab", 6, "invalid number '12ab'");
	bad_syntax("fd == 18446744073709551616", 6, "larger than 64 bits");
	bad_syntax("fd == 1 2", 8, "expected an operator, found '2'");
	bad_syntax("fd == 1 (count > 1)", 8, "missing '&&' or '||'");
	bad_syntax("a < b < c", 6, "'<' cannot follow '<' without parentheses");
	bad_syntax("fd & 4 == 4", 7, "'==' cannot follow '&'");
	bad_syntax("fd @ 1", 3, "unexpected character '@'");
	bad_syntax("fd == 1 \x01", 8, "unexpected byte 0x01");
	bad_syntax("ip.function == 1", 2, "field modifiers");

	memset(deep, '(', 300);
	strcpy(deep + 300, "fd");
	bad_syntax(deep, 256, "nested too deeply");
}

/* ---- bad input: binding ---- */

static void test_bind_unknown_field(void **state)
{
	struct tep_event *sw = event("sched", "sched_switch");

	bad_bind("foo == 1", sw, 0,
		 "no field 'foo' in sched:sched_switch; fields: prev_comm, prev_pid, prev_prio, "
		 "prev_state, next_comm, next_pid, next_prio, common_type, common_flags, "
		 "common_preempt_count, common_pid; also cpu, comm");
	bad_bind("prev_pid == 1 && bogus > 2", sw, 17, "no field 'bogus'");
	/* a field of another event */
	bad_bind("fd == 1", sw, 0, "no field 'fd'");
	/* field names are case-sensitive, as in the kernel; only cpu/comm have
	 * upper-case spellings */
	bad_bind("PREV_PID == 1", sw, 0, "no field 'PREV_PID'");
	bad_bind("common_comm == \"x\"", sw, 0, "no field 'common_comm'");
}

static void test_bind_type_mismatch(void **state)
{
	struct tep_event *sw = event("sched", "sched_switch");
	struct tep_event *wr = event("syscalls", "sys_enter_write");

	bad_bind("prev_comm == 5", sw, 10,
		 "cannot compare 'prev_comm', a string (char[16]), with 5, a number");
	bad_bind("fd == \"1\"", wr, 3,
		 "cannot compare 'fd', a number (unsigned int), with \"1\", a string");
	bad_bind("count ~ \"4*\"", wr, 6, "'~' matches strings, not 'count', a number (size_t)");
	bad_bind("prev_comm < \"a\"", sw, 10, "'<' does not apply to strings");
	bad_bind("prev_comm & 1", sw, 10, "cannot compare");
	bad_bind("prev_comm + 1 == 2", sw, 10, "'+' needs numbers, not 'prev_comm', a string");
	bad_bind("\"swap*\" ~ prev_comm", sw, 8, "field on its left");
	bad_bind("prev_comm == next_comm", sw, 10, "two string fields");
	bad_bind("\"a\" == \"a\"", sw, 4, "two constant strings");
	bad_bind("\"abc\"", sw, 0, "a string is not a condition");
	bad_bind("fd == 1 && \"x\"", wr, 11, "a string is not a condition");
	bad_bind("(fd == 1) + 1 > 0", wr, 10, "'+' needs numbers, not the expression at column 5");
	bad_bind("(fd == 1) == 1", wr, 4, "a comparison is not a value");
	bad_bind("comm < 1", wr, 5, "cannot compare 'comm', a string");
	bad_bind("cpu == \"1\"", wr, 4, "cannot compare 'cpu', a number (int)");
}

static void test_bind_bad_values(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	struct tep_event *rd = event("syscalls", "sys_exit_read");
	struct tep_event *op = event("syscalls", "sys_enter_openat");
	struct tep_event *sw = event("sched", "sched_switch");
	struct tep_event *ty = event("ftrtest", "types");

	/* kstrtoull refuses a '-' on an unsigned field, even -0 */
	bad_bind("count > -1", wr, 8, "'count' is unsigned (size_t, 8 bytes)");
	bad_bind("fd == -0", wr, 6, "unsigned");
	/* syscall arguments are recorded as 8-byte unsigned, whatever their type */
	bad_bind("dfd == -100", op, 7, "'dfd' is unsigned (int, 8 bytes)");
	/* kstrtoll: a signed 64-bit field takes at most LLONG_MAX */
	bad_bind("ret == 0xfffffffffffffffe", rd, 7, "out of range for the signed 'ret'");
	bad_bind("ret == -9223372036854775809", rd, 7, "below the smallest");
	/* the kernel would truncate these to the field's size */
	bad_bind("prev_pid == 4294967297", sw, 12, "does not fit the signed 4-byte 'prev_pid'");
	bad_bind("prev_pid < 0xffffffff", sw, 11, "does not fit");
	bad_bind("u8v == 256", ty, 7, "does not fit the unsigned 1-byte 'u8v'");
	bad_bind("u8v != -1", ty, 7, "unsigned");
}

static void test_bind_rejected_fields(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	struct tep_event *op = event("syscalls", "sys_enter_openat");
	struct tep_event *ipi = event("ipi", "ipi_send_cpumask");
	struct tep_event *bt = event("btrfs", "btrfs_sync_fs");
	struct tep_event *ty = event("ftrtest", "types");

	bad_bind("filename == \"/etc/passwd\"", op, 0, "'filename' is a pointer (const char *)");
	/* the kernel takes char * for a string field: numbers are refused too */
	bad_bind("buf == 0", wr, 0, "pointer");
	bad_bind("kptr ~ \"a*\"", ty, 0, "pointer (char *)");
	bad_bind("fsid == 1", bt, 0, "'fsid' is an array (u8[16])");
	bad_bind("arr & 1", ty, 0, "'arr' is an array (u32[2])");
	bad_bind("odd == 1", ty, 0, "array");
	bad_bind("blob == \"x\"", ty, 0, "'blob' is a dynamic array (__data_loc u8[])");
	bad_bind("cpumask == 1", ipi, 0, "'cpumask' is a cpumask");
	bad_bind("weird == 1", ty, 0, "is 3 bytes");
}

/* ---- good input ---- */

static void test_format_roundtrip(void **state)
{
	static const char *const cases[][2] = {
		{ "ret<0", "ret < 0" },
		{ "ret == -2", "ret == -2" },
		{ "ret == - 2", "ret == -2" },
		{ "fd==1&&count>=4096", "fd == 1 && count >= 4096" },
		{ "a || b && c", "a || b && c" },
		{ "(a || b) && c", "(a || b) && c" },
		{ "a && (b && c)", "a && (b && c)" },
		{ "((a))", "a" },
		{ "!a == 1", "!(a == 1)" },
		{ "!(a || b)", "!(a || b)" },
		{ "!!a", "!(!(a))" },
		{ "count & 0x1000", "count & 0x1000" },
		{ "mode & 0755", "mode & 0755" },
		{ "x == 0X1F", "x == 0x1f" },
		{ "x == 00", "x == 0" },
		{ "prev_comm ~ 'swap*'", "prev_comm ~ \"swap*\"" },
		{ "s == 'say \"hi\"'", "s == 'say \"hi\"'" },
		{ "s !~ \"a\\\\b\"", "s !~ \"a\\\\b\"" },
		{ "a + b * c", "a + b * c" },
		{ "(a + b) * c", "(a + b) * c" },
		{ "a - (b - c)", "a - (b - c)" },
		{ "a - b - c", "a - b - c" },
		{ "-x", "-x" },
		{ "- -2", "-(-2)" },
		{ "-(a + 1) > 2", "-(a + 1) > 2" },
		{ "a - -2 == 0", "a - -2 == 0" },
		{ "(a & 4) == 4", "(a & 4) == 4" },
		{ "0 < ret", "0 < ret" },
		{ "fd", "fd" },
	};
	char buf[256], buf2[256];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct expr_err err;
		struct expr *e = expr_parse(cases[i][0], &err), *e2;

		if (!e)
			fail_msg("'%s': %d %s", cases[i][0], err.pos, err.msg);
		assert_int_equal(expr_format(e, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i][1]))
			fail_msg("'%s' formats as '%s', want '%s'", cases[i][0], buf, cases[i][1]);
		/* and the canonical form is a fixed point */
		e2 = expr_parse(buf, &err);
		assert_non_null(e2);
		assert_int_equal(expr_format(e2, buf2, sizeof(buf2)), 0);
		assert_string_equal(buf, buf2);
		expr_free(e2);
		expr_free(e);
	}
}

static void test_format_nospace(void **state)
{
	struct expr *e = expr_parse("fd == 1 && count >= 4096", NULL);
	char buf[8];

	assert_non_null(e);
	assert_int_equal(expr_format(e, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "");
	expr_free(e);
}

/* -f FILTER as a program's predicate (ftr count, issue 36): the kernel's
 * generic names are the task's unless the event has the field. */
static bool has_comm_field(const char *name, void *arg)
{
	return arg && !strcmp(name, "comm");
}

static void test_to_lang(void **state)
{
	static const struct {
		const char *in, *want;
		bool comm_field;
	} ok[] = {
		{ "comm == \"wl\" && fd == 1", "((comm == \"wl\") && (args.fd == 1))", false },
		{ "comm == \"wl\"", "(args.comm == \"wl\")", true },
		{ "COMM == \"wl\" || cpu & 2", "((comm == \"wl\") || ((cpu & 2) != 0))", true },
		{ "!common_pid == 5 && ret < -2", "(!((tid == 5)) && (args.ret < -2))", false },
	};
	static const char *const no[] = { "comm ~ \"w*\"", "fd + 1 == 2", "comm == \"a*\"",
					  "common_flags == 1", "comm !~ \"x\"" };
	char buf[256], why[128];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct expr *e = expr_parse(ok[i].in, NULL);

		assert_non_null(e);
		assert_int_equal(expr_to_lang(e, has_comm_field, ok[i].comm_field ? buf : NULL, buf,
					      sizeof(buf), why, sizeof(why)), 0);
		assert_string_equal(buf, ok[i].want);
		expr_free(e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		struct expr *e = expr_parse(no[i], NULL);

		assert_non_null(e);
		assert_int_equal(expr_to_lang(e, has_comm_field, NULL, buf, sizeof(buf), why,
					      sizeof(why)), -ENOTSUP);
		assert_true(why[0] != '\0');
		expr_free(e);
	}
}

static void test_kernel_render(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	struct tep_event *rd = event("syscalls", "sys_exit_read");
	struct tep_event *op = event("syscalls", "sys_enter_openat");
	struct tep_event *sw = event("sched", "sched_switch");
	struct tep_event *wk = event("sched", "sched_waking");
	struct tep_event *ex = event("sched", "sched_process_exec");
	struct tep_event *ty = event("ftrtest", "types");

	kernel_is("ret < 0", rd, "ret < 0");
	kernel_is("ret==-2", rd, "ret == -2");
	kernel_is("0 > ret", rd, "ret < 0");		/* the kernel wants field op value */
	kernel_is("-2 <= ret", rd, "ret >= -2");
	kernel_is("fd == 1 && count >= 4096", wr, "fd == 1 && count >= 4096");
	kernel_is("!(fd == 1 || fd == 2)", wr, "!(fd == 1 || fd == 2)");
	kernel_is("!fd == 1", wr, "!(fd == 1)");
	kernel_is("fd == 1 || fd == 2 && count > 0", wr, "fd == 1 || fd == 2 && count > 0");
	kernel_is("(fd == 1 || fd == 2) && count > 0", wr, "(fd == 1 || fd == 2) && count > 0");
	kernel_is("count & 0x1000", wr, "count & 0x1000");
	kernel_is("4096 & count", wr, "count & 4096");
	kernel_is("mode & 0100", op, "mode & 0100");
	kernel_is("fd", wr, "fd != 0");
	kernel_is("!fd", wr, "!(fd != 0)");
	kernel_is("prev_pid == 0xffffffff", sw, "prev_pid == 0xffffffff");
	kernel_is("prev_comm == \"swapper/0\"", sw, "prev_comm == \"swapper/0\"");
	kernel_is("\"swapper/0\" != prev_comm", sw, "prev_comm != \"swapper/0\"");
	kernel_is("prev_comm ~ 'swap*'", sw, "prev_comm ~ \"swap*\"");
	kernel_is("next_comm ~ \"*per*\"", sw, "next_comm ~ \"*per*\"");
	kernel_is("prev_comm ~ 'say \"hi\"*'", sw, "prev_comm ~ 'say \"hi\"*'");
	/* the kernel's end match on char[16] compares the array's tail: escape */
	kernel_is("prev_comm ~ \"*per/0\"", sw, "prev_comm ~ \"*\\per/0\"");
	kernel_is("prev_comm ~ \"!*per/0\"", sw, "prev_comm ~ \"!*\\per/0\"");
	kernel_is("prev_comm ~ \"*\"", sw, "prev_comm ~ \"*\"");
	kernel_is("comm ~ \"*sh\"", wr, "comm ~ \"*\\sh\"");
	/* ... but on a __data_loc string it is right */
	kernel_is("filename ~ \"*/ls\"", ex, "filename ~ \"*/ls\"");
	/* a leading digit is the kernel's index match: escape */
	kernel_is("prev_comm ~ \"1*\"", sw, "prev_comm ~ \"\\1*\"");
	kernel_is("prev_comm ~ \"!1*\"", sw, "prev_comm ~ \"!\\1*\"");
	kernel_is("prev_comm ~ \"12\"", sw, "prev_comm ~ \"12\"");
	kernel_is("prev_comm == \"1*\"", sw, "prev_comm == \"1*\"");
	kernel_is("prev_comm !~ \"k*\"", sw, "!(prev_comm ~ \"k*\")");
	kernel_is("prev_comm", sw, "prev_comm != \"\"");
	kernel_is("cpu == 1", wr, "cpu == 1");
	kernel_is("CPU >= 2", wr, "cpu >= 2");
	kernel_is("common_cpu == 1", wr, "cpu == 1");
	kernel_is("common_pid == 42 && comm == \"bash\"", wr,
		  "common_pid == 42 && comm == \"bash\"");
	/* the event's own field wins: "comm" is sched_waking's comm field, the
	 * current task is spelled COMM there */
	kernel_is("comm == \"a\" && COMM == \"b\"", wk, "comm == \"a\" && COMM == \"b\"");
	kernel_is("cpu == 1 && CPU == 2", ty, "cpu == 1 && CPU == 2");
	kernel_is("common_cpu == 2", ty, "CPU == 2");
	kernel_is("name ~ \"*llo\"", ty, "name ~ \"*llo\"");
	kernel_is("small ~ \"*b\"", ty, "small ~ \"*\\b\"");
}

static void test_kernel_render_nospace(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	struct expr *e = parse_bind("fd == 1 && count >= 4096", wr);
	struct expr *u = expr_parse("fd == 1", NULL);
	char buf[10];

	assert_int_equal(expr_to_kernel(e, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "");
	/* unbound */
	assert_int_equal(expr_to_kernel(u, buf, sizeof(buf)), -EINVAL);
	assert_false(expr_kernel_ok(u, buf, sizeof(buf)));
	expr_free(u);
	expr_free(e);
}

static void test_kernel_not_ok(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	struct tep_event *sw = event("sched", "sched_switch");
	char longpat[320];

	not_kernel("count + 1 > 4096", wr, "'+' at column 7: arithmetic");
	not_kernel("fd == 1 && count / 2 > 4096", wr, "'/' at column 18");
	not_kernel("-fd", wr, "'-' at column 1");
	not_kernel("prev_pid < next_pid", sw, "'<' at column 10 compares two fields");
	not_kernel("1 == 1", sw, "compares no field");
	not_kernel("1", sw, "a constant used as a condition");
	not_kernel("(fd & 4) == 4", wr, "is not a field-against-value");
	/* the kernel's filter_pred_cpu() has no '&': it would never match */
	not_kernel("cpu & 1", wr, "no '&'");

	memset(longpat, 'a', 300);
	longpat[0] = '\'';
	strcpy(longpat + 300, "' == prev_comm");
	not_kernel(longpat, sw, "longer than the kernel's 255 bytes");
}

static void test_kernel_too_long(void **state)
{
	struct tep_event *wr = event("syscalls", "sys_enter_write");
	char text[6000], why[128];
	struct expr *e;
	int n = 0;

	/* fits the parser, not the kernel's one-page filter write */
	for (int i = 0; i < 300; i++)
		n += sprintf(text + n, "%sfd == %d", i ? " || " : "", 1000 + i);
	e = parse_bind(text, wr);
	assert_false(expr_kernel_ok(e, why, sizeof(why)));
	assert_non_null(strstr(why, "4095-byte"));
	expr_free(e);
}

static void test_eval_signed_ret(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("syscalls", "sys_exit_read"), 100);
	fx_set_num(&r, "ret", (uint64_t)-2);
	/* long ret is signed: compared as s64 */
	assert_eval("ret < 0", &r, true);
	assert_eval("ret == -2", &r, true);
	assert_eval("ret != -2", &r, false);
	assert_eval("ret > -1", &r, false);
	assert_eval("ret >= -2", &r, true);
	assert_eval("ret <= -3", &r, false);
	assert_eval("0 > ret", &r, true);
	assert_eval("ret & 2", &r, true);
	assert_eval("ret & 1", &r, false);
	assert_eval("ret == 9223372036854775807", &r, false);
	assert_eval("-ret == 2", &r, true);
	assert_eval("ret * -1 == 2 && ret - 1 < -2", &r, true);
	fx_set_num(&r, "ret", 5);
	assert_eval("ret < 0", &r, false);
	assert_eval("ret > 4", &r, true);
}

static void test_eval_unsigned_count(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("syscalls", "sys_enter_write"), 100);
	fx_set_num(&r, "fd", 1);
	fx_set_num(&r, "count", 4096);
	assert_eval("fd == 1 && count >= 4096", &r, true);
	assert_eval("count > 4095", &r, true);
	assert_eval("count & 4096", &r, true);
	assert_eval("count & 0x0fff", &r, false);
	assert_eval("count / 2 == 2048 && count % 4096 == 0", &r, true);
	assert_eval("count / 0 == 0 && count % 0 == 0", &r, true);
	assert_eval("fd + count == 4097", &r, true);
	/* size_t is unsigned 64-bit: 4096 - 4097 wraps, as in C */
	assert_eval("count - 4097 < 0", &r, false);
	/* fd is an unsigned int recorded in 8 unsigned bytes: 1 - 2 wraps too */
	assert_eval("fd - 2 < 0", &r, false);
	fx_set_num(&r, "count", 4095);
	assert_eval("fd == 1 && count >= 4096", &r, false);
	assert_eval("count & 4096", &r, false);
	/* a huge size_t is huge, not negative */
	fx_set_num(&r, "count", UINT64_MAX);
	assert_eval("count > 4095", &r, true);
	assert_eval("count == 18446744073709551615", &r, true);
	assert_eval("count == 0xffffffffffffffff", &r, true);
}

static void test_eval_logic(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("syscalls", "sys_enter_write"), 100);
	fx_set_num(&r, "fd", 3);
	assert_eval("!(fd == 1 || fd == 2)", &r, true);
	assert_eval("!fd == 3", &r, false);
	assert_eval("fd == 1 || fd == 2 && count == 0", &r, false);
	assert_eval("fd == 3 || fd == 2 && count == 7", &r, true);
	assert_eval("(fd == 3 || fd == 2) && count == 7", &r, false);
	assert_eval("fd", &r, true);
	assert_eval("!count", &r, true);
	assert_eval("!!fd", &r, true);
	fx_set_num(&r, "fd", 2);
	assert_eval("!(fd == 1 || fd == 2)", &r, false);
}

static void test_eval_static_strings(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("sched", "sched_switch"), 0);
	fx_set_str(&r, "prev_comm", "swapper/0");
	fx_set_str(&r, "next_comm", "sleeper");
	fx_set_num(&r, "prev_pid", 0);
	fx_set_num(&r, "next_pid", 1234);
	fx_set_num(&r, "prev_state", 1);
	assert_eval("prev_comm == \"swapper/0\"", &r, true);
	assert_eval("prev_comm == 'swapper/0'", &r, true);
	assert_eval("prev_comm == \"swapper\"", &r, false);
	assert_eval("prev_comm == \"swapper/00\"", &r, false);
	assert_eval("prev_comm != \"swapper/0\"", &r, false);
	assert_eval("prev_comm ~ \"swap*\"", &r, true);
	assert_eval("prev_comm ~ \"swapper/0*\"", &r, true);
	assert_eval("prev_comm ~ \"wap*\"", &r, false);
	assert_eval("next_comm ~ \"*per*\"", &r, true);
	assert_eval("next_comm ~ \"*pex*\"", &r, false);
	/* ends-with works (the kernel gets the escaped pattern) */
	assert_eval("prev_comm ~ \"*per/0\"", &r, true);
	assert_eval("prev_comm ~ \"*per/1\"", &r, false);
	assert_eval("prev_comm ~ \"s?app[a-z]r/[0-9]\"", &r, true);
	assert_eval("prev_comm ~ \"s?app[!a-z]r/[0-9]\"", &r, false);
	assert_eval("prev_comm ~ \"*\"", &r, true);
	assert_eval("prev_comm ~ \"swapper/0\"", &r, true);
	/* '!' negates a pattern, as in the kernel; !~ is ftr's */
	assert_eval("prev_comm ~ \"!swap*\"", &r, false);
	assert_eval("prev_comm ~ \"!kworker*\"", &r, true);
	assert_eval("prev_comm !~ \"swap*\"", &r, false);
	assert_eval("prev_comm !~ \"!swap*\"", &r, true);
	assert_eval("prev_comm ~ \"\\\\*\"", &r, false);
	assert_eval("prev_pid == 0 && next_pid == 1234 && prev_state & 1", &r, true);
	assert_eval("!(prev_pid == 0 || next_pid == 0)", &r, false);
	assert_eval("prev_pid < next_pid", &r, true);
	assert_eval("prev_comm && next_comm", &r, true);
	fx_set_str(&r, "next_comm", "");
	assert_eval("next_comm", &r, false);
	assert_eval("!next_comm", &r, true);
	assert_eval("next_comm == \"\"", &r, true);

	/* 1abc: the kernel would compare "1*" literally; ftr escapes it */
	fx_set_str(&r, "prev_comm", "1abc");
	assert_eval("prev_comm ~ \"1*\"", &r, true);
	assert_eval("prev_comm ~ \"1abc\"", &r, true);
	assert_eval("prev_comm == \"1*\"", &r, false);
}

/* Where the kernel's matching is odd, ftr evaluates the same oddity. */
static void test_eval_kernel_quirks(void **state)
{
	char full[16], after[16] = "ab\0cdef";
	struct fx_rec r;

	fx_rec_init(&r, event("sched", "sched_switch"), 0);
	/* strnstr() in the kernel's middle match uses memcmp(): bytes after the
	 * NUL of a char[16] are searched too */
	fx_set_bytes(&r, "prev_comm", after, sizeof(after));
	assert_eval("prev_comm ~ \"*cd*\"", &r, true);
	assert_eval("prev_comm == \"ab\"", &r, true);
	assert_eval("prev_comm ~ \"*cd\"", &r, false);	/* a glob stops at the NUL */
	/* == is strncmp(field, pattern, 16): a full array without a NUL
	 * equals any pattern that starts with its 16 bytes */
	memset(full, 'a', sizeof(full));
	fx_set_bytes(&r, "prev_comm", full, sizeof(full));
	assert_eval("prev_comm == \"aaaaaaaaaaaaaaaa\"", &r, true);
	assert_eval("prev_comm == \"aaaaaaaaaaaaaaaaaaaa\"", &r, true);
	assert_eval("prev_comm == \"aaaaaaaaaaaaaaa\"", &r, false);
}

static const char *test_comm(int pid, void *arg)
{
	switch (pid) {
	case 42:
		return "bash";
	case 43:
		return "abcdefghijklmnopqrst";	/* longer than a comm */
	default:
		return NULL;
	}
}

static void test_eval_comm_cpu(void **state)
{
	struct expr_ctx ctx = { .cpu = 1, .comm = test_comm };
	struct expr_ctx ctx_rec = { .cpu = -1 };
	struct fx_rec r;

	fx_rec_init(&r, event("syscalls", "sys_enter_write"), 42);
	assert_true(eval_ctx("comm == \"bash\"", &r, &ctx));
	assert_true(eval_ctx("COMM == \"bash\" && common_pid == 42", &r, &ctx));
	assert_true(eval_ctx("comm ~ \"*sh\"", &r, &ctx));
	assert_true(eval_ctx("comm ~ \"ba*\"", &r, &ctx));
	assert_false(eval_ctx("comm == \"zsh\"", &r, &ctx));
	assert_true(eval_ctx("comm", &r, &ctx));
	/* no callback: comm is unknown, i.e. "" */
	assert_false(eval_ctx("comm == \"bash\"", &r, NULL));
	assert_true(eval_ctx("comm != \"bash\"", &r, NULL));
	assert_false(eval_ctx("comm", &r, NULL));
	fx_set_num(&r, "common_pid", 7);
	assert_false(eval_ctx("comm == \"bash\"", &r, &ctx));
	/* task->comm holds 15 bytes */
	fx_set_num(&r, "common_pid", 43);
	assert_true(eval_ctx("comm == \"abcdefghijklmno\"", &r, &ctx));
	assert_false(eval_ctx("comm == \"abcdefghijklmnop\"", &r, &ctx));

	assert_true(eval_ctx("cpu == 1", &r, &ctx));
	assert_false(eval_ctx("cpu != 1", &r, &ctx));
	assert_true(eval_ctx("CPU < 2 && common_cpu >= 1", &r, &ctx));
	assert_true(eval_ctx("cpu & 1", &r, &ctx));
	assert_true(eval_ctx("cpu + 1 == 2", &r, &ctx));
	/* cpu < 0 in the context: the record's cpu (3) */
	assert_true(eval_ctx("cpu == 3", &r, &ctx_rec));
	assert_true(eval_ctx("cpu == 3", &r, NULL));
}

static void test_eval_event_comm_field(void **state)
{
	struct expr_ctx ctx = { .cpu = 0, .comm = test_comm };
	struct fx_rec r;

	/* sched_waking has its own comm field: comm is that, COMM the current task */
	fx_rec_init(&r, event("sched", "sched_waking"), 42);
	fx_set_str(&r, "comm", "woken");
	assert_true(eval_ctx("comm == \"woken\"", &r, &ctx));
	assert_true(eval_ctx("COMM == \"bash\"", &r, &ctx));
	assert_true(eval_ctx("comm ~ \"*ken\"", &r, &ctx));
}

static void test_eval_data_loc(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("sched", "sched_process_exec"), 100);
	fx_set_dyn(&r, "filename", "/usr/bin/ls");
	fx_set_num(&r, "pid", 100);
	assert_eval("filename == \"/usr/bin/ls\"", &r, true);
	assert_eval("filename == \"/usr/bin/l\"", &r, false);
	assert_eval("filename == \"/usr/bin/lsx\"", &r, false);
	assert_eval("filename != \"/bin/sh\"", &r, true);
	assert_eval("filename ~ \"*/ls\"", &r, true);
	assert_eval("filename ~ \"*/l\"", &r, false);
	assert_eval("filename ~ \"/usr/*\"", &r, true);
	assert_eval("filename ~ \"*bin*\"", &r, true);
	assert_eval("filename ~ \"*/l?\"", &r, true);
	assert_eval("filename ~ \"/usr/bin/ls\"", &r, true);
	assert_eval("filename && pid == 100", &r, true);
	/* a locator pointing past the record matches nothing */
	fx_set_num(&r, "filename", (uint64_t)12 << 16 | 400);
	assert_eval("filename ~ \"*\"", &r, false);
	assert_eval("filename != \"x\"", &r, false);
}

static void test_eval_small_types(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("ftrtest", "types"), 100);
	fx_set_num(&r, "s8v", (uint8_t)-1);
	fx_set_num(&r, "u8v", 255);
	fx_set_num(&r, "s16v", (uint16_t)-300);
	fx_set_num(&r, "u32v", 0x80000000u);
	fx_set_num(&r, "cpu", 5);
	fx_set_str(&r, "small", "ab");
	fx_set_dyn(&r, "name", "hello");
	assert_eval("s8v < 0 && s8v == -1", &r, true);
	assert_eval("s8v == 0xff", &r, true);	/* (s8)0xff is -1, as in the kernel */
	assert_eval("u8v > 127 && u8v == 255", &r, true);
	assert_eval("u8v + 1 == 256", &r, true);
	assert_eval("s16v < -299 && s16v > -301", &r, true);
	assert_eval("u32v > 0x7fffffff", &r, true);
	assert_eval("cpu == 5", &r, true);	/* the event's own field */
	assert_eval("small ~ \"*b\"", &r, true);
	assert_eval("small == \"ab\"", &r, true);
	assert_eval("name == \"hello\" && name ~ \"*llo\" && name ~ \"he*\"", &r, true);
	assert_eval("name ~ \"*hel\"", &r, false);
}

static void test_eval_short_record(void **state)
{
	struct fx_rec r;

	fx_rec_init(&r, event("syscalls", "sys_enter_write"), 1);
	fx_set_num(&r, "count", 4096);
	r.r.size = 24;			/* count (offset 32) is not in it */
	assert_eval("count == 4096", &r, false);
	assert_eval("count != 4096", &r, false);
	assert_eval("common_pid == 1", &r, true);
}

static void test_rebind(void **state)
{
	struct expr_err err;
	struct expr *e = expr_parse("pid == 5 && comm ~ \"*x\"", &err);
	struct fx_rec r;
	char buf[128];

	assert_non_null(e);
	/* sched_process_exec has pid but no comm field: comm is the task's */
	assert_int_equal(expr_bind(e, event("sched", "sched_process_exec"), &err), 0);
	assert_int_equal(expr_to_kernel(e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "pid == 5 && comm ~ \"*\\x\"");
	/* sched_waking has both: comm is its __data_loc-free char[16] field */
	assert_int_equal(expr_bind(e, event("sched", "sched_waking"), &err), 0);
	fx_rec_init(&r, event("sched", "sched_waking"), 1);
	fx_set_num(&r, "pid", 5);
	fx_set_str(&r, "comm", "box");
	assert_true(expr_eval(e, &r.r, NULL));
	/* and a failed bind leaves it unbound */
	assert_int_equal(expr_bind(e, event("syscalls", "sys_enter_write"), &err), -EINVAL);
	assert_false(expr_eval(e, &r.r, NULL));
	expr_free(e);
}

static void test_fields(void **state)
{
	struct expr *e = expr_parse("fd == 1 && count > 2 || fd == 3 && comm == \"x\" || cpu",
				    NULL);
	const char *names[8];

	assert_non_null(e);
	assert_int_equal(expr_fields(e, names, 8), 4);
	assert_string_equal(names[0], "fd");
	assert_string_equal(names[1], "count");
	assert_string_equal(names[2], "comm");
	assert_string_equal(names[3], "cpu");
	assert_int_equal(expr_fields(e, names, 2), 4);
	expr_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_empty),
		cmocka_unit_test(test_syntax_unbalanced),
		cmocka_unit_test(test_syntax_dangling),
		cmocka_unit_test(test_syntax_strings),
		cmocka_unit_test(test_syntax_tokens),
		cmocka_unit_test(test_bind_unknown_field),
		cmocka_unit_test(test_bind_type_mismatch),
		cmocka_unit_test(test_bind_bad_values),
		cmocka_unit_test(test_bind_rejected_fields),
		cmocka_unit_test(test_format_roundtrip),
		cmocka_unit_test(test_format_nospace),
		cmocka_unit_test(test_to_lang),
		cmocka_unit_test(test_kernel_render),
		cmocka_unit_test(test_kernel_render_nospace),
		cmocka_unit_test(test_kernel_not_ok),
		cmocka_unit_test(test_kernel_too_long),
		cmocka_unit_test(test_eval_signed_ret),
		cmocka_unit_test(test_eval_unsigned_count),
		cmocka_unit_test(test_eval_logic),
		cmocka_unit_test(test_eval_static_strings),
		cmocka_unit_test(test_eval_kernel_quirks),
		cmocka_unit_test(test_eval_comm_cpu),
		cmocka_unit_test(test_eval_event_comm_field),
		cmocka_unit_test(test_eval_data_loc),
		cmocka_unit_test(test_eval_small_types),
		cmocka_unit_test(test_eval_short_record),
		cmocka_unit_test(test_rebind),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests_name("expr", tests, setup, teardown);
}
