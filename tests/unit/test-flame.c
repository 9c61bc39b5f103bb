// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for flame.c: folded lines (bad first), merging, sorting, the
 * folded writer, and the SVG: structure, escaping, alphabetical order, and
 * widths that add up.
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

#include "report/flame.h"

static char *folded(struct flame *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(flame_write_folded(f, m), 0);
	fclose(m);
	return buf;
}

static char *svg(struct flame *f, const struct flame_svg_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(flame_write_svg(f, m, o), 0);
	fclose(m);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_folded_bad(void **state)
{
	static const char *const bad[] = {
		"main", "main;work", "main;work x", "main;work 12x", "main;work -3",
		"main;work 1.5", " 5", "7", "a;b 99999999999999999999999",
	};
	struct flame *f = flame_new();

	assert_non_null(f);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = flame_add_folded(f, bad[i]);

		if (r != -EINVAL)
			fail_msg("'%s' gave %d, want -EINVAL", bad[i], r);
	}
	/* A blank line is nothing, not an error. */
	assert_int_equal(flame_add_folded(f, ""), 0);
	assert_int_equal(flame_add_folded(f, "  \r\n"), 0);
	assert_int_equal(flame_total(f), 0);
	assert_int_equal(flame_max_depth(f), 0);
	flame_free(f);
}

static void test_read_folded_reports_line(void **state)
{
	const char text[] = "a;b 1\na;c 2\nthis is not folded\na;d 3\n";
	FILE *in = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct flame *f = flame_new();
	size_t line = 0;

	assert_non_null(in);
	assert_int_equal(flame_read_folded(f, in, &line), -EINVAL);
	assert_int_equal(line, 3);
	fclose(in);
	flame_free(f);
}

/* Issue 38 #4: counts near 2^64 wrapped the total (every stack 100%). */
static void test_folded_count_overflow(void **state)
{
	const char text[] = "a;b 18446744073709551615\na;c 1\n";
	FILE *in = fmemopen((void *)text, sizeof(text) - 1, "r");
	struct flame *f = flame_new();
	const char *st[] = { "a", "d" };
	size_t line = 0;

	assert_non_null(in);
	assert_int_equal(flame_read_folded(f, in, &line), -EOVERFLOW);
	assert_int_equal(line, 2);
	assert_true(flame_total(f) == UINT64_MAX);
	assert_int_equal(flame_add(f, st, 2, 1), -EOVERFLOW);
	assert_true(flame_total(f) == UINT64_MAX);
	fclose(in);
	flame_free(f);
}

static void test_merge_and_sort(void **state)
{
	struct flame *f = flame_new();
	const char *st[] = { "prog", "main", "zeta" };
	char *out;

	assert_int_equal(flame_add_folded(f, "prog;main;work;leaf_b 10\n"), 0);
	assert_int_equal(flame_add_folded(f, "prog;main;work;leaf_a 30\r\n"), 0);
	assert_int_equal(flame_add_folded(f, "prog;main;work;leaf_a 5"), 0);	/* merged */
	assert_int_equal(flame_add_folded(f, "prog;main 2"), 0);		/* self in main */
	assert_int_equal(flame_add_folded(f, "prog;main;a frame with spaces 1"), 0);
	assert_int_equal(flame_add(f, st, 3, 4), 0);
	assert_int_equal(flame_add(f, NULL, 0, 0), 0);
	assert_int_equal(flame_total(f), 52);
	assert_int_equal(flame_max_depth(f), 4);
	out = folded(f);
	/* Sorted, merged, interior self counts kept. */
	assert_string_equal(out, "prog;main 2\n"
				 "prog;main;a frame with spaces 1\n"
				 "prog;main;work;leaf_a 35\n"
				 "prog;main;work;leaf_b 10\n"
				 "prog;main;zeta 4\n");
	free(out);
	flame_free(f);
}

static int collect(const char *const *path, size_t depth, uint64_t self, void *arg)
{
	uint64_t *sum = arg;

	assert_true(depth > 0);
	assert_non_null(path[depth - 1]);
	*sum += self;
	return strcmp(path[depth - 1], "stop") ? 0 : 42;
}

static void test_walk(void **state)
{
	struct flame *f = flame_new();
	uint64_t sum = 0;

	flame_add_folded(f, "a;b 3");
	flame_add_folded(f, "a;c 4");
	assert_int_equal(flame_walk(f, collect, &sum), 0);
	assert_int_equal(sum, 7);
	flame_add_folded(f, "a;stop 1");
	flame_add_folded(f, "a;zz 100");
	sum = 0;
	assert_int_equal(flame_walk(f, collect, &sum), 42);	/* stopped */
	assert_int_equal(sum, 8);
	flame_free(f);
}

static double attr(const char *p, const char *name)
{
	const char *a = strstr(p, name);

	assert_non_null(a);
	return strtod(a + strlen(name), NULL);
}

static void test_svg(void **state)
{
	struct flame *f = flame_new();
	struct flame_svg_opts o = { .title = "T <&> \"q\"", .subtitle = "sub", .width = 1000 };
	const char *pc, *pb, *root;
	char *s;
	double wb, wc, wall;

	/* c added before b: the graph must still show b first (alphabetical). */
	flame_add_folded(f, "prog;main;c 25");
	flame_add_folded(f, "prog;main;b 70");
	flame_add_folded(f, "prog;main;b;vfs_write_[k] 5");
	flame_add_folded(f, "prog;never 0");
	s = svg(f, &o);
	assert_true(strncmp(s, "<?xml version=\"1.0\"", 19) == 0);
	assert_non_null(strstr(s, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(s, "</svg>\n"));
	assert_int_equal(count(s, "<script"), 1);
	assert_non_null(strstr(s, "<![CDATA["));
	assert_int_equal(count(s, "]]>"), 1);
	/* Title escaped; every frame a <g> with a title, rect and text. */
	assert_non_null(strstr(s, ">T &lt;&amp;&gt; &quot;q&quot;</text>"));
	assert_int_equal(count(s, "<g class=\"f\""), count(s, "</g>"));
	assert_int_equal(count(s, "<g class=\"f\""), 6);
	assert_non_null(strstr(s, "<title>all (100 samples, 100.00%)</title>"));
	assert_non_null(strstr(s, "<title>b (75 samples, 75.00%)</title>"));
	assert_non_null(strstr(s, "<title>vfs_write [kernel] (5 samples, 5.00%)</title>"));
	/* A frame with no samples is in the tree, not in the drawing. */
	assert_null(strstr(s, "<title>never"));
	/* The interactive parts. */
	assert_non_null(strstr(s, "id=\"search\""));
	assert_non_null(strstr(s, "id=\"unzoom\""));
	assert_non_null(strstr(s, "id=\"details\""));
	assert_non_null(strstr(s, "onload=\"init(evt)\""));
	/* Alphabetical: b left of c, widths in proportion to samples. */
	pb = strstr(s, "<title>b (");
	pc = strstr(s, "<title>c (");
	root = strstr(s, "<title>all (");
	assert_true(pb && pc && root);
	assert_true(attr(pb, "<rect x=\"") < attr(pc, "<rect x=\""));
	wb = attr(pb, "width=\"");
	wc = attr(pc, "width=\"");
	wall = attr(root, "width=\"");
	assert_true(wall > 979 && wall < 981);	/* 1000 - 2 * 10 */
	assert_true(wb / wc > 2.99 && wb / wc < 3.01);
	free(s);
	flame_free(f);
}

static void test_svg_escapes(void **state)
{
	struct flame *f = flame_new();
	char *s;

	flame_add_folded(f, "prog;x<y>&\"z\"'w 1");
	flame_add_folded(f, "prog;bad\xff\xfeutf8;caf\xc3\xa9 1");
	flame_add_folded(f, "prog;ctl\001char 1");
	s = svg(f, NULL);
	assert_non_null(strstr(s, "<title>x&lt;y&gt;&amp;&quot;z&quot;&apos;w ("));
	/* Bytes that are not UTF-8, and control characters, are replaced;
	 * UTF-8 is kept: the file must parse. */
	assert_non_null(strstr(s, "bad??utf8"));
	assert_non_null(strstr(s, "caf\xc3\xa9"));
	assert_non_null(strstr(s, "ctl?char"));
	assert_null(strchr(s, '\xff'));
	assert_null(strchr(s, 1));
	free(s);
	flame_free(f);
}

static void test_svg_empty(void **state)
{
	struct flame *f = flame_new();
	char *s = svg(f, NULL);

	assert_non_null(strstr(s, ">Flame Graph</text>"));
	assert_int_equal(count(s, "<g class=\"f\""), 0);
	assert_non_null(strstr(s, "</svg>"));
	free(s);
	flame_free(f);
}

/* One line 200,000 frames deep (past what recursion on an 8 MB stack
 * survives), merged, walked, folded back and drawn: the walks are loops. */
static void test_deep_line(void **state)
{
	const size_t depth = 200000;
	char *line = malloc(depth * 8 + 16), *p = line, *out, *pic;
	struct flame *f = flame_new();

	assert_non_null(line);
	for (size_t i = 0; i < depth; i++)
		p += sprintf(p, "%sf%zu", i ? ";" : "", i);
	strcpy(p, " 3\n");
	assert_int_equal(flame_add_folded(f, line), 0);
	assert_int_equal(flame_add_folded(f, line), 0);
	assert_int_equal(flame_max_depth(f), depth);
	assert_int_equal(flame_total(f), 6);
	out = folded(f);
	line[strlen(line) - 2] = '6';
	assert_string_equal(out, line);
	pic = svg(f, NULL);
	assert_non_null(strstr(pic, ">f199999 (6 samples"));
	free(pic);
	free(out);
	free(line);
	flame_free(f);
}

/* 100,000 callees of one caller: each found again by name (the hash),
 * written back sorted. */
static void test_wide_node(void **state)
{
	struct flame *f = flame_new();
	char line[64], *out, *p;
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 99999; i >= 0; i--) {
			snprintf(line, sizeof(line), "main;f%06d 1", i);
			assert_int_equal(flame_add_folded(f, line), 0);
		}
	assert_int_equal(flame_total(f), 200000);
	out = folded(f);
	assert_true(!strncmp(out, "main;f000000 2\nmain;f000001 2\n", 30));
	for (p = out; (p = strchr(p, '\n')); p++)
		n++;
	assert_int_equal(n, 100000);
	free(out);
	flame_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_bad),
		cmocka_unit_test(test_read_folded_reports_line),
		cmocka_unit_test(test_folded_count_overflow),
		cmocka_unit_test(test_merge_and_sort),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_svg_escapes),
		cmocka_unit_test(test_svg_empty),
		cmocka_unit_test(test_deep_line),
		cmocka_unit_test(test_wide_node),
	};

	return cmocka_run_group_tests_name("flame", tests, NULL, NULL);
}
