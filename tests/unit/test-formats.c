// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for formats_parse (src/kernel/formats.c): a format file's
 * fields reach libtraceevent, its print format does not.  The first input
 * is what libFuzzer found (fuzz-formats): libtraceevent 1.7.1 raised SIGFPE
 * on its print format, a division by a constant zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event-parse.h>

#include "kernel/formats.h"

static const char fpe[] =
	"name: sys_exit_read\nID: 682\nformat:\n"
	"\tfield:unsigned chareempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
	"print fmt: \"0x%lx\", RE/C->ret\n";

static void test_print_fmt_left_out(void **state)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;

	assert_non_null(tep);
	assert_int_equal(formats_parse(tep, fpe, sizeof(fpe) - 1, "syscalls"), 0);
	ev = tep_find_event_by_name(tep, "syscalls", "sys_exit_read");
	assert_non_null(ev);
	assert_non_null(tep_find_field(ev, "ret"));
	assert_int_equal(tep_find_field(ev, "ret")->offset, 16);
	tep_free(tep);
}

/* Without a print format, and with nothing but one: parsed or refused. */
static void test_odd_formats(void **state)
{
	static const char *const odd[] = {
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n",
		"print fmt: \"%d\", 1/0\n",
		"",
		"name: b\nID: 2\nformat:\nprint fmt:",
	};

	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		struct tep_handle *tep = tep_alloc();

		formats_parse(tep, odd[i], strlen(odd[i]), "s");
		tep_free(tep);
	}
}

/* Field lines of another shape than the kernel's are refused before
 * libtraceevent reads them (1.7.1 dereferenced NULL on the first: the
 * fuzzer's); the kernel's own shapes, __data_loc and arrays included, pass. */
static void test_damaged_fields(void **state)
{
	static const char *const bad[] = {
		"name: a\nID: 1\nformat:\n\tfield:unsigsize\t\tx\t[\tM--\t:4;\tsigned:1;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize;4;\tsigned:1;\n",
		"name: a\nID: 1\nformat:\n\tfield:char c[16;\toffset:0;\tsize:16;\tsigned:0;\n",
		"name: a\nID: 1\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1; \n",
	};
	static const char good[] =
		"name: a\nID: 1\nformat:\n"
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n"
		"\tfield:int old;\toffset:28;\tsize:4;\n"
		"print fmt: \"%d\", REC->old\n";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tep_handle *tep = tep_alloc();

		assert_int_equal(formats_parse(tep, bad[i], strlen(bad[i]), "s"), -1);
		tep_free(tep);
	}
	struct tep_handle *tep = tep_alloc();

	assert_int_equal(formats_parse(tep, good, sizeof(good) - 1, "s"), 0);
	assert_non_null(tep_find_any_field(tep_find_event_by_name(tep, "s", "a"), "comm"));
	tep_free(tep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damaged_fields),
		cmocka_unit_test(test_print_fmt_left_out),
		cmocka_unit_test(test_odd_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
