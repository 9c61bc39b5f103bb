// SPDX-License-Identifier: GPL-2.0-or-later
/* intern.c: one number per distinct value, bounded in count and bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lang/maps/intern.h"

static void test_same_value_same_number(void **state)
{
	struct intern *t = intern_new(1000, 1 << 20);
	uint64_t stack[3] = { 1, 2, 3 };
	uint32_t a = intern_put(t, "bash", 4), b = intern_put(t, "cat", 3);
	size_t len;
	const void *p;

	assert_int_not_equal(a, 0);
	assert_int_not_equal(b, 0);
	assert_int_not_equal(a, b);
	assert_int_equal(intern_put(t, "bash", 4), a);
	/* a prefix is another value */
	assert_int_not_equal(intern_put(t, "bas", 3), a);
	p = intern_get(t, b, &len);
	assert_int_equal(len, 3);
	assert_memory_equal(p, "cat", 3);
	assert_int_not_equal(intern_put(t, stack, sizeof(stack)), 0);
	assert_int_equal(intern_put(t, stack, sizeof(stack)), intern_put(t, stack, sizeof(stack)));
	/* 0 and unknown numbers read back empty */
	assert_null(intern_get(t, 0, &len));
	assert_int_equal(len, 0);
	assert_null(intern_get(t, 999, &len));
	assert_int_equal(intern_refused(t), 0);
	intern_free(t);
}

static void test_growth_keeps_numbers(void **state)
{
	struct intern *t = intern_new(100000, 1 << 24);
	char buf[32];
	uint32_t ids[5000];

	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "v%d", i);
		ids[i] = intern_put(t, buf, strlen(buf));
		assert_int_equal(ids[i], i + 1);
	}
	for (int i = 0; i < 5000; i += 7) {
		size_t len;
		const char *p;

		snprintf(buf, sizeof(buf), "v%d", i);
		assert_int_equal(intern_put(t, buf, strlen(buf)), ids[i]);
		p = intern_get(t, ids[i], &len);
		assert_int_equal(len, strlen(buf));
		assert_memory_equal(p, buf, len);
	}
	intern_free(t);
}

static void test_bounds(void **state)
{
	struct intern *t = intern_new(2, 1 << 20), *u = intern_new(100, 10);

	assert_int_equal(intern_put(t, "a", 1), 1);
	assert_int_equal(intern_put(t, "b", 1), 2);
	assert_int_equal(intern_put(t, "c", 1), 0);		/* full: refused */
	assert_int_equal(intern_put(t, "a", 1), 1);		/* known: still found */
	assert_int_equal(intern_refused(t), 1);
	assert_int_equal(intern_put(u, "12345678", 8), 1);
	assert_int_equal(intern_put(u, "abc", 3), 0);		/* 11 bytes > 10 */
	assert_int_equal(intern_put(u, "ab", 2), 2);		/* 10 bytes: fits */
	assert_int_equal(intern_refused(u), 1);
	intern_free(t);
	intern_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_value_same_number),
		cmocka_unit_test(test_growth_keeps_numbers),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
