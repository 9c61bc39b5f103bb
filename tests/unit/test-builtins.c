// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the builtins' tables (lang/builtins.c, lang/builtin-vars.c): the names they
 * resolve, and ftr-language(7)'s function and variable tables against
 * them, both ways (every row of the man page is a builtin with those
 * arguments, value and clauses, and every builtin has its row), so that
 * neither can gain or lose a builtin alone.
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

#include "kernel/abi.h"
#include "kernel/arch.h"
#include "lang/interp-int.h"
#include "lang/lang.h"

#define MAN FIXTURES "/../../man/ftr-language.7"
#define MAX_ROWS 256

struct man_row {
	char name[32], args[64], value[16], where[64];
	bool seen;
};

/* The rows of the which-th table (0: functions, 1: variables) of
 * BUILTINS: after ".TS", its format line and its header, one
 * tab-separated row per name.  ncol: the table's columns; an empty column
 * (a function without arguments) is two tabs in a row. */
static int man_rows(int which, int ncol, struct man_row *rows, int max)
{
	FILE *f = fopen(MAN, "r");
	char line[512];
	int n = 0, state = 0, table = -1;	/* 0: before BUILTINS, 1: before .TS, 2: format,
						 * 3: header, 4: rows */

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (state == 0 && !strcmp(line, ".SH BUILTINS"))
			state = 1;
		else if (state == 1 && !strcmp(line, ".TS"))
			state = ++table == which ? 2 : 1;
		else if (state == 2 || state == 3)
			state++;
		else if (state == 4 && !strcmp(line, ".TE"))
			break;
		else if (state == 4 && n < max) {
			char *cols[4] = { 0 }, *p = line;
			int c = 0;

			/* strsep keeps empty columns */
			while (c < ncol && (cols[c] = strsep(&p, "\t")))
				c++;
			assert_int_equal(c, ncol);
			snprintf(rows[n].name, sizeof(rows[n].name), "%s", cols[0]);
			snprintf(rows[n].args, sizeof(rows[n].args), "%s", ncol == 4 ? cols[1] : "");
			snprintf(rows[n].value, sizeof(rows[n].value), "%s",
				 !strcmp(cols[ncol - 2], "\\-") ? "-" : cols[ncol - 2]);
			snprintf(rows[n].where, sizeof(rows[n].where), "%s", cols[ncol - 1]);
			n++;
		}
	}
	fclose(f);
	assert_int_equal(state, 4);
	return n;
}

static const char *value_name(enum vtype t)
{
	switch (t) {
	case VT_INT: return "int";
	case VT_STR: return "string";
	case VT_BUF: return "buffer";
	case VT_STACK: return "stack";
	default: return "-";
	}
}

/* The man page's words for the clauses: events are tracepoint, kprobe and
 * uprobe clauses, profile is a perf sample's. */
static void where_name(unsigned w, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (w == BW_ALL) {
		snprintf(buf, len, "all");
		return;
	}
	if ((w & BW_EVENT) == BW_EVENT) {
		off += snprintf(buf + off, len - off, "events");
		w &= ~BW_EVENT;
	}
	if (w & BW_TRACEPOINT)
		off += snprintf(buf + off, len - off, "%stracepoint", off ? ", " : "");
	if (w & BW_KPROBE)
		off += snprintf(buf + off, len - off, "%skprobe", off ? ", " : "");
	if (w & BW_UPROBE)
		off += snprintf(buf + off, len - off, "%suprobe", off ? ", " : "");
	if (w & BW_SAMPLE)
		off += snprintf(buf + off, len - off, "%sprofile", off ? ", " : "");
	if (w & BW_SPECIAL)
		snprintf(buf + off, len - off, "%sBEGIN, END, interval", off ? ", " : "");
}

static void test_unknown_names(void **state)
{
	(void)state;
	assert_null(builtin_find(""));
	assert_null(builtin_find("nosuch"));
	assert_null(builtin_find("signal"));	/* needs BPF: refused by name */
	assert_null(builtin_find("int7"));
	assert_null(builtin_find("counts"));
	assert_int_equal(agg_of("printf"), -1);
	assert_int_equal(agg_of("nosuch"), -1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(builtin_find("count")->name, "count");
	assert_int_equal(agg_of("count"), AGG_COUNT);
	assert_int_equal(agg_of("lhist"), AGG_LHIST);
	/* C's other names of the casts are the cast of their width */
	assert_string_equal(builtin_find("int")->name, "int32");
	assert_string_equal(builtin_find("uint8_t")->name, "uint8");
	assert_string_equal(builtin_find("int64_t")->name, "int64");
	/* each row well formed, each name once */
	for (size_t i = 0; builtin_at(i); i++) {
		const struct builtin_fn *b = builtin_at(i);

		assert_true(b->min >= 0 && b->min <= b->max);
		assert_true(b->check || !(b->flags & BF_OWN_ARGS));
		assert_true(b->where != 0 && (b->where & ~(unsigned)BW_ALL) == 0);
		/* an aggregation has neither value nor action; a statement no value */
		if (b->flags & BF_AGG)
			assert_true(!b->eval && !b->exec && b->ret == VT_NONE);
		else if (b->ret == VT_NONE)
			assert_true(b->exec && !b->eval);
		assert_ptr_equal(builtin_find(b->name), b);
	}
}

/* syscall_name()'s tables and the UAPI constants (kernel/abi.c), per
 * architecture, against numbers the kernel's tables and headers fix. */
static void test_abi(void **state)
{
	static const struct {
		const char *arch;
		int nr;
		const char *name;
	} sc[] = {
		{ "x86_64", 0, "read" }, { "x86_64", 59, "execve" }, { "x86_64", 257, "openat" },
		{ "x86_64", 335, "uretprobe" }, { "x86_64", 469, "file_setattr" },
		{ "arm64", 0, "io_setup" }, { "arm64", 56, "openat" }, { "arm64", 79, "newfstatat" },
		{ "arm64", 221, "execve" }, { "arm64", 435, "clone3" }, { "arm64", 451, "cachestat" },
		{ "arm", 0, "restart_syscall" }, { "arm", 11, "execve" }, { "arm", 322, "openat" },
		{ "arm", 462, "mseal" },
	};
	static const struct {
		const char *arch, *name;
		int64_t v;
	} k[] = {
		{ "x86_64", "EPERM", 1 }, { "arm", "EINPROGRESS", 115 }, { "arm64", "EWOULDBLOCK", 11 },
		{ "x86_64", "SIGUSR1", 10 }, { "arm64", "SIGCHLD", 17 }, { "x86_64", "DT_REG", 8 },
		{ "x86_64", "AF_INET6", 10 }, { "x86_64", "O_CREAT", 0100 },
		{ "x86_64", "O_DIRECTORY", 0200000 }, { "arm64", "O_DIRECTORY", 040000 },
		{ "arm", "O_NOFOLLOW", 0100000 }, { "x86_64", "O_NOFOLLOW", 0400000 },
		{ "riscv64", "EPERM", 1 }, { "x86_64", "EHWPOISON", 133 }, { "arm", "SIGSYS", 31 },
		{ "x86_64", "EWOULDBLOCK", 11 }, { "x86_64", "SIGRTMIN", 32 },
	};
	int64_t v;

	/* a binary has its own architecture's table */
	assert_true(abi_syscall_table("x86_64") + abi_syscall_table("arm64") +
		    abi_syscall_table("arm") == 1);
	for (size_t i = 0; i < ARRAY_SIZE(sc); i++) {
		const char *got = abi_syscall_name(sc[i].arch, sc[i].nr);

		if (!abi_syscall_table(sc[i].arch))
			continue;

		if (!got || strcmp(got, sc[i].name))
			fail_msg("%s syscall %d: %s, not %s", sc[i].arch, sc[i].nr,
				 got ? got : "none", sc[i].name);
	}
	assert_null(abi_syscall_name("x86_64", 400));	/* no syscall by it */
	assert_null(abi_syscall_name("x86_64", -1));
	assert_null(abi_syscall_name("x86_64", 100000));
	assert_null(abi_syscall_name("riscv64", 0));
	assert_false(abi_syscall_table("riscv64"));
	for (size_t i = 0; i < ARRAY_SIZE(k); i++) {
		if (abi_constant(k[i].arch, k[i].name, &v) || v != k[i].v)
			fail_msg("%s %s is not %lld", k[i].arch, k[i].name, (long long)k[i].v);
	}
	/* reg()'s names as the kernel's probe parser has them (arch.h) */
	{
		static const struct {
			const char *arch, *name, *fetch;
		} r[] = {
			{ "x86_64", "ip", "%ip" }, { "x86_64", "di", "%di" },
			{ "x86_64", "orig_ax", "%orig_ax" }, { "arm64", "r0", "%x0" },
			{ "arm64", "x30", "%x30" }, { "arm64", "pc", "%pc" }, { "arm64", "sp", "%sp" },
			{ "arm", "r3", "%r3" }, { "arm", "orig_r0", "%ORIG_r0" }, { "arm", "pc", "%pc" },
		};
		char f[32];

		for (size_t i = 0; i < ARRAY_SIZE(r); i++)
			if (arch_reg_fetch(r[i].arch, r[i].name, f, sizeof(f)) || strcmp(f, r[i].fetch))
				fail_msg("%s reg(\"%s\") is not %s", r[i].arch, r[i].name, r[i].fetch);
		assert_int_equal(arch_reg_fetch("x86_64", "nip", f, sizeof(f)), -ENOENT);
		assert_int_equal(arch_reg_fetch("x86_64", "pc", f, sizeof(f)), -ENOENT);
		assert_int_equal(arch_reg_fetch("arm64", "r31", f, sizeof(f)), -ENOENT);
		assert_int_equal(arch_reg_fetch("arm64", "r01", f, sizeof(f)), -ENOENT);
		assert_int_equal(arch_reg_fetch("arm", "r11", f, sizeof(f)), -ENOENT);
		assert_int_equal(arch_reg_fetch("riscv64", "pc", f, sizeof(f)), -ENOTSUP);
	}
	/* the ABI's differences are unknown where ftr has no table */
	assert_int_equal(abi_constant("riscv64", "O_DIRECTORY", &v), -ENOENT);
	assert_int_equal(abi_constant("x86_64", "NOSUCH", &v), -ENOENT);
	assert_int_equal(abi_constant("x86_64", "ENOSUCH", &v), -ENOENT);
	assert_int_equal(abi_constant("x86_64", "SIGNOSUCH", &v), -ENOENT);
}

static void test_man_table(void **state)
{
	static struct man_row rows[MAX_ROWS];
	int n = man_rows(0, 4, rows, MAX_ROWS);
	size_t nb = 0;

	(void)state;
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		const struct builtin_fn *b = builtin_find(rows[i].name);
		char where[64];

		if (!b || strcmp(b->name, rows[i].name))
			fail_msg("ftr-language(7) lists %s(), which is no builtin", rows[i].name);
		if (strcmp(b->args, rows[i].args))
			fail_msg("%s(): the man page's arguments are '%s', the table's '%s'",
				 b->name, rows[i].args, b->args);
		if (strcmp(value_name(b->ret), rows[i].value))
			fail_msg("%s(): the man page's value is '%s', the table's '%s'", b->name,
				 rows[i].value, value_name(b->ret));
		where_name(b->where, where, sizeof(where));
		if (strcmp(where, rows[i].where))
			fail_msg("%s(): the man page's clauses are '%s', the table's '%s'",
				 b->name, rows[i].where, where);
	}
	for (; builtin_at(nb); nb++) {
		bool found = false;

		for (int i = 0; i < n; i++)
			found |= !strcmp(rows[i].name, builtin_at(nb)->name);
		if (!found)
			fail_msg("%s() is a builtin that ftr-language(7)'s table does not list",
				 builtin_at(nb)->name);
	}
	assert_int_equal((int)nb, n);
}

static void test_man_variables(void **state)
{
	static struct man_row rows[MAX_ROWS];
	int n = man_rows(1, 3, rows, MAX_ROWS), nv = 0, argn = -1;
	char *names = strdup(lang_builtin_names()), *p = names, *w;

	(void)state;
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		int b = lang_builtin(rows[i].name, &argn);
		const struct builtin_var *v = builtin_var(b);
		char where[64];

		/* argN: the man page's name of arg0...arg15 */
		if (!strcmp(rows[i].name, "argN"))
			v = builtin_var(lang_builtin("arg0", &argn));
		if (!v)
			fail_msg("ftr-language(7) lists the variable %s, which is no builtin",
				 rows[i].name);
		if (strcmp(value_name(v->ret), rows[i].value))
			fail_msg("%s: the man page's value is '%s', the table's '%s'", rows[i].name,
				 rows[i].value, value_name(v->ret));
		where_name(v->where, where, sizeof(where));
		if (strcmp(where, rows[i].where))
			fail_msg("%s: the man page's clauses are '%s', the table's '%s'",
				 rows[i].name, rows[i].where, where);
	}
	/* every variable has its row: the parser's list of them, one by one */
	assert_non_null(names);
	while ((w = strsep(&p, " "))) {
		bool found = false;

		for (int i = 0; i < n; i++)
			found |= !strcmp(rows[i].name, w);
		if (!found)
			fail_msg("%s is a builtin variable that ftr-language(7)'s table does not "
				 "list", w);
		nv++;
	}
	free(names);
	assert_int_equal(nv, n);
	/* the names resolve to their rows, B_CONST and B_CURTASK have none */
	assert_int_equal(lang_builtin("comm", &argn), B_COMM);
	assert_int_equal(lang_builtin("arg15", &argn), B_ARG);
	assert_int_equal(argn, 15);
	assert_int_equal(lang_builtin("arg", &argn), -1);
	assert_int_equal(lang_builtin("arg100", &argn), -1);
	assert_null(builtin_var(B_CONST));
	assert_int_equal(lang_builtin("ppid", &argn), B_PPID);
	assert_int_equal(lang_builtin("pcomm", &argn), B_PCOMM);
	assert_int_equal(lang_builtin("leader_comm", &argn), B_LEADER_COMM);
	assert_null(builtin_var(-1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_abi),
		cmocka_unit_test(test_man_table),
		cmocka_unit_test(test_man_variables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
