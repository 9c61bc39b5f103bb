// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for flagnames.c: the GFP names of kmem:kmalloc's print format
 * (tests/fixtures/formats, 6.18.44), printed as the kernel's
 * trace_print_flags_seq() prints them, and formats it cannot read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/flagnames.h"

static const char *text(const struct flagnames *t, uint64_t v)
{
	static char out[256];

	flagnames_format(t, v, out, sizeof(out));
	return out;
}

static void test_kmalloc(void **state)
{
	struct flagnames t;
	char why[256];

	(void)state;
	assert_int_equal(flagnames_load(FIXTURES "/formats", "kmem", "kmalloc", "gfp_flags", &t,
					why, sizeof(why)), 0);
	/* 38 names, the kernel's table's NULL end left out */
	assert_int_equal(t.n, 38);
	assert_string_equal(t.delim, "|");
	assert_string_equal(t.v[0].name, "GFP_TRANSHUGE");
	assert_int_equal(t.v[0].mask, 0x1c24ca);
	assert_string_equal(t.v[6].name, "GFP_KERNEL");
	assert_int_equal(t.v[6].mask, 0xcc0);	/* (RECLAIM | IO | FS), bits 10, 11, 6, 7 */
	assert_string_equal(t.v[37].name, "__GFP_NO_OBJ_EXT");
	assert_int_equal(t.v[37].mask, 1 << 24);
	/* masks first, in the table's order, each one's bits taken out */
	assert_string_equal(text(&t, 0x1), "GFP_DMA");
	assert_string_equal(text(&t, 0xcc0), "GFP_KERNEL");
	assert_string_equal(text(&t, 0xcc0 | 0x100), "GFP_KERNEL|__GFP_ZERO");
	assert_string_equal(text(&t, 0x400cc0), "GFP_KERNEL_ACCOUNT");
	/* what no name covers, in hex; nothing: "none", as the format says */
	assert_string_equal(text(&t, 0x80000000u | 0x2000), "__GFP_NOWARN|0x80000000");
	assert_string_equal(text(&t, 0x80000000u), "0x80000000");
	assert_string_equal(text(&t, 0), "none");
	flagnames_free(&t);
	assert_int_equal(t.n, 0);
}

static void test_expressions(void **state)
{
	struct flagnames t;
	char why[256], out[8];

	(void)state;
	assert_int_equal(flagnames_parse("x, __print_flags(REC->f, \",\", "
					 "{ ( unsigned long)((1UL << 3) | 0x1), \"A\" }, "
					 "{ (u32)~(~0x4u & 0xff) & 0x7, \"B\" }, { 0x10 >> 4, \"C\" }, "
					 "{ 0, ((void *)0) } ) : \"none\"", "f", &t, why, sizeof(why)),
			 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.v[0].mask, 9);
	assert_int_equal(t.v[1].mask, 4);
	assert_int_equal(t.v[2].mask, 1);
	assert_string_equal(text(&t, 0xd), "A,B");
	assert_string_equal(text(&t, 0x7), "B,C,0x2");
	/* a short buffer: cut, NUL-terminated */
	assert_int_equal(flagnames_format(&t, 0xd, out, sizeof(out)), 3);
	assert_string_equal(out, "A,B");
	assert_int_equal(flagnames_format(&t, 0x7, out, 4), 3);
	assert_string_equal(out, "B,C");
	flagnames_free(&t);
}

static void test_refusals(void **state)
{
	struct flagnames t;
	char why[256];

	(void)state;
	assert_int_equal(flagnames_parse("\"%d\", REC->x", "f", &t, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no __print_flags(REC->f"));
	assert_int_equal(flagnames_parse("__print_flags(REC->f, \"|\", { 1 << , \"A\" })", "f",
					 &t, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "cannot read the table"));
	assert_int_equal(t.n, 0);
	assert_int_equal(flagnames_parse("__print_flags(REC->f, \"|\", { 1, \"A\" }, { 2 \"B\" })",
					 "f", &t, why, sizeof(why)), -EINVAL);
	assert_int_equal(flagnames_parse("__print_flags(REC->f, \"|\", { 1, \"A\"", "f", &t, why,
					 sizeof(why)), -EINVAL);
	{
		/* parentheses nested past the evaluator's bound */
		static char deep[1200];

		strcpy(deep, "__print_flags(REC->f, \"|\", { ");
		memset(deep + strlen(deep), '(', 400);
		strcat(deep, "1 }, \"A\" })");
		assert_int_equal(flagnames_parse(deep, "f", &t, why, sizeof(why)), -EINVAL);
	}
	assert_int_equal(flagnames_load(FIXTURES "/formats", "kmem", "nosuch", "gfp_flags", &t,
					why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "nosuch/format"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmalloc),
		cmocka_unit_test(test_expressions),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
