// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for expedite.c: who sets /sys/kernel/rcu_expedited, who puts
 * it back, on a stand-in file. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/expedite.h"
#include "kernel/session.h"

static char knob[64], statef[64];

static void knob_set(const char *v)
{
	FILE *f = fopen(knob, "w");

	assert_non_null(f);
	fputs(v, f);
	fclose(f);
}

static int knob_get(void)
{
	char buf[8] = "";
	FILE *f = fopen(knob, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	return atoi(buf);
}

/* A live run's name: its lock held (fd returned). */
static int live(char *name, size_t len, int tag)
{
	int fd;

	snprintf(name, len, "ftr_%d_%d", (int)getpid(), tag);
	fd = ftr_lock_take(name);
	if (fd < 0)
		skip();	/* no writable /run */
	return fd;
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(knob, sizeof(knob), "/tmp/ftr-test-knob.%d", (int)getpid());
	snprintf(statef, sizeof(statef), "/tmp/ftr-test-exp.%d", (int)getpid());
	expedite_knob_path = knob;
	expedite_state_path = statef;
	fd = open("/sys/kernel/rcu_normal", O_RDONLY);
	if (fd >= 0) {
		char c = '0';

		if (read(fd, &c, 1) == 1 && c == '1')
			fprintf(stderr, "rcu_normal is 1 here: expedite does nothing\n");
		close(fd);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(knob);
	unlink(statef);
	return 0;
}

/* Two runs overlap: the last one out puts 0 back. */
static void test_overlap(void **state)
{
	char a[64], b[64];
	int fa, fb, r;

	(void)state;
	knob_set("0\n");
	fa = live(a, sizeof(a), 91);
	fb = live(b, sizeof(b), 92);
	r = expedite_begin(a);
	if (r == 0)
		skip();	/* rcu_normal=1 on this machine */
	assert_int_equal(r, 1);
	assert_int_equal(knob_get(), 1);
	assert_int_equal(expedite_begin(b), 1);
	expedite_end(a);
	assert_int_equal(knob_get(), 1);
	expedite_end(b);
	assert_int_equal(knob_get(), 0);
	assert_int_not_equal(access(statef, F_OK), 0);
	close(fa);
	close(fb);
}

/* Set by the administrator: left alone, before and after. */
static void test_admin_on(void **state)
{
	char a[64];
	int fa;

	(void)state;
	knob_set("1\n");
	fa = live(a, sizeof(a), 93);
	assert_int_equal(expedite_begin(a), 0);
	expedite_end(a);
	assert_int_equal(knob_get(), 1);
	assert_int_not_equal(access(statef, F_OK), 0);
	close(fa);
}

/* A holder killed (its lock free): `ftr reset` and the next holder see it
 * dead and restore the value found first. */
static void test_killed_holder(void **state)
{
	char a[64], b[64], path[128];
	int fa, fb;

	(void)state;
	knob_set("0\n");
	fa = live(a, sizeof(a), 94);
	if (expedite_begin(a) == 0)
		skip();
	close(fa);	/* "killed" */
	assert_int_equal(knob_get(), 1);
	/* the next run finds 1, but knows 0 was the system's */
	fb = live(b, sizeof(b), 95);
	assert_int_equal(expedite_begin(b), 1);
	expedite_end(b);
	assert_int_equal(knob_get(), 0);
	close(fb);
	/* and reset, with no other run */
	fa = live(a, sizeof(a), 96);
	assert_int_equal(expedite_begin(a), 1);
	close(fa);
	assert_int_equal(expedite_reset(false, stderr), 1);
	assert_int_equal(knob_get(), 0);
	assert_int_equal(expedite_reset(false, stderr), 0);
	for (int t = 91; t <= 96; t++) {
		snprintf(path, sizeof(path), "%s/ftr_%d_%d.lock", FTR_RUN_DIR, (int)getpid(), t);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_admin_on),
		cmocka_unit_test(test_killed_holder),
	};

	return cmocka_run_group_tests_name("expedite", tests, setup, teardown);
}
