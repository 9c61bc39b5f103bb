// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for feature detection from README/lockdown/kallsyms text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/features.h"
#include "kernel/ftrace.h"
#include "fixture.h"
#include "ftr.h"

static char *fixture(const char *name)
{
	return fixture_text(NULL, "%s", name);
}

static void test_readme_empty(void **state)
{
	unsigned hm = ~0u, ps = ~0u;

	features_parse_readme(NULL, &hm, &ps);
	assert_int_equal(hm, 0);
	assert_int_equal(ps, 0);
	features_parse_readme("", &hm, &ps);
	assert_int_equal(hm, 0);
	assert_int_equal(ps, 0);
}

static void test_readme_dots_outside_hist(void **state)
{
	unsigned hm, ps;

	/* A ".log2" outside the hist section is not a modifier. */
	features_parse_readme("tracing mini-HOWTO:\n\t    .log2   nothing\n", &hm, &ps);
	assert_int_equal(hm, 0);
}

static void test_readme_618(void **state)
{
	char *t = fixture("readme-6.18.txt");
	unsigned hm, ps;

	/* 6.18 here: no hist triggers, uprobes with $arg<N>, eprobe syntax
	 * line present (but no eprobes: the README is not proof). */
	features_parse_readme(t, &hm, &ps);
	assert_int_equal(hm, 0);
	assert_true(ps & PS_ARGN);
	assert_true(ps & PS_RETVAL);
	assert_true(ps & PS_USTRING);
	assert_true(ps & PS_EPROBE_LINE);
	assert_false(ps & PS_FPROBE_LINE);
	assert_false(ps & PS_ARGNAME);
	free(t);
}

static void test_readme_510(void **state)
{
	char *t = fixture("readme-5.10.txt");
	unsigned hm, ps;

	/* Debian's 5.10 cloud kernel: kprobes with $arg<N>, no hist triggers,
	 * no eprobes or fprobes in its syntax. */
	features_parse_readme(t, &hm, &ps);
	assert_int_equal(hm, 0);
	assert_true(ps & PS_ARGN);
	assert_false(ps & PS_EPROBE_LINE);
	assert_false(ps & PS_FPROBE_LINE);
	free(t);
}

static void test_readme_61(void **state)
{
	char *t = fixture("readme-6.1.txt");
	unsigned hm, ps;

	features_parse_readme(t, &hm, &ps);
	assert_int_equal(hm, HM_HEX | HM_SYM | HM_SYM_OFFSET | HM_EXECNAME | HM_SYSCALL |
			 HM_LOG2 | HM_BUCKETS | HM_USECS | HM_PERCENT | HM_GRAPH);
	assert_true(ps & PS_EPROBE_LINE);
	assert_false(ps & PS_FPROBE_LINE);
	free(t);
}

static void test_readme_612(void **state)
{
	char *t = fixture("readme-6.12.txt");
	unsigned hm, ps;

	/* 6.12 adds .percent and .graph, names the stack key
	 * common_stacktrace, and has fprobe events. */
	features_parse_readme(t, &hm, &ps);
	assert_int_equal(hm, HM_HEX | HM_SYM | HM_SYM_OFFSET | HM_EXECNAME | HM_SYSCALL |
			 HM_LOG2 | HM_BUCKETS | HM_USECS | HM_PERCENT | HM_GRAPH |
			 HM_COMMON_STACKTRACE);
	assert_true(ps & PS_FPROBE_LINE);
	assert_true(ps & PS_ARGN);
	assert_true(ps & PS_ARGNAME);
	free(t);
}

static void test_readme_hist_synthetic(void **state)
{
	unsigned hm, ps;
	const char *t =
		"      hist trigger\t- If set, event hits are aggregated into a hash table\n"
		"\t    Format: hist:keys=<field1[,field2,...]>\n"
		"\t    The available modifiers are:\n"
		"\t    .hex        display a number as a hex value\n"
		"\t    .sym        display an address as a symbol\n"
		"\t    .sym-offset display an address as a symbol and offset\n"
		"\t    .execname   display a common_pid as a program name\n"
		"\t    .log2       display log2 value rather than raw number\n"
		"\t    .buckets=size  display values in groups of size\n"
		"\t    When a matching event is hit, common_stacktrace ...\n"
		"  trace_marker\t\t- Writes into this file\n"
		"\t    .graph      not in the hist section any more\n";

	features_parse_readme(t, &hm, &ps);
	assert_int_equal(hm, HM_HEX | HM_SYM | HM_SYM_OFFSET | HM_EXECNAME | HM_LOG2 |
			 HM_BUCKETS | HM_COMMON_STACKTRACE);
}

static void test_hist_mods_str(void **state)
{
	char buf[128];

	features_hist_mods_str(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	features_hist_mods_str(HM_LOG2 | HM_EXECNAME, buf, sizeof(buf));
	assert_string_equal(buf, ".execname .log2");
	features_hist_mods_str(HM_SYM | HM_SYM_OFFSET, buf, 6);	/* truncates safely */
	assert_int_equal(strlen(buf), 5);
}

static void test_lockdown(void **state)
{
	char out[32];

	assert_int_equal(features_parse_lockdown(NULL, out, sizeof(out)), -EINVAL);
	assert_int_equal(features_parse_lockdown("none integrity", out, sizeof(out)), -EINVAL);
	assert_int_equal(features_parse_lockdown("[]", out, sizeof(out)), -EINVAL);
	assert_int_equal(features_parse_lockdown("[none] integrity confidentiality\n", out,
						 sizeof(out)), 0);
	assert_string_equal(out, "none");
	assert_int_equal(features_parse_lockdown("none integrity [confidentiality]\n", out,
						 sizeof(out)), 0);
	assert_string_equal(out, "confidentiality");
	assert_int_equal(features_parse_lockdown("[confidentiality]", out, 8), -EINVAL);
}

static void test_kallsyms(void **state)
{
	assert_false(features_kallsyms_hidden(""));
	assert_true(features_kallsyms_hidden("0000000000000000 T _stext\n"
					     "0000000000000000 T _text\n"));
	assert_false(features_kallsyms_hidden("0000000000000000 T _stext\n"
					      "ffffffff81000010 T __entry_text_start\n"));
	assert_false(features_kallsyms_hidden("ffffffff81000000 T _stext\n"));
}

/* set_ftrace_filter read back: names counted, the empty filter's comment
 * line ("every function") is none. */
static void test_ftrace_filter_count(void **state)
{
	char eg[64];

	assert_int_equal(ftrace_filter_count("#### all functions enabled ####\n", eg, sizeof(eg)), 0);
	assert_string_equal(eg, "");
	assert_int_equal(ftrace_filter_count("", NULL, 0), 0);
	assert_int_equal(ftrace_filter_count("vfs_read\nvfs_write\n", eg, sizeof(eg)), 2);
	assert_string_equal(eg, "vfs_read, vfs_write");
	assert_int_equal(ftrace_filter_count("a\nb\nc\nd\ne\nf", eg, sizeof(eg)), 6);
	assert_string_equal(eg, "a, b, c, d");
	assert_int_equal(ftrace_filter_count("ext4_read [ext4]\n", eg, 8), 1);
	assert_string_equal(eg, "");	/* does not fit: left out, still counted */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_readme_empty),
		cmocka_unit_test(test_readme_dots_outside_hist),
		cmocka_unit_test(test_readme_618),
		cmocka_unit_test(test_readme_510),
		cmocka_unit_test(test_readme_61),
		cmocka_unit_test(test_readme_612),
		cmocka_unit_test(test_readme_hist_synthetic),
		cmocka_unit_test(test_hist_mods_str),
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_ftrace_filter_count),
	};

	return cmocka_run_group_tests_name("features", tests, NULL, NULL);
}
