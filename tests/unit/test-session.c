// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the pure parts of session.c: names, /proc/mounts, undo order. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/session.h"

static void test_name_pid_rejects(void **state)
{
	assert_int_equal(ftr_name_pid(NULL), -1);
	assert_int_equal(ftr_name_pid(""), -1);
	assert_int_equal(ftr_name_pid("ftr_"), -1);
	assert_int_equal(ftr_name_pid("ftr_0"), -1);
	assert_int_equal(ftr_name_pid("ftr_012"), -1);
	assert_int_equal(ftr_name_pid("ftr_12x"), -1);
	assert_int_equal(ftr_name_pid("ftr_12_3"), -1);
	assert_int_equal(ftr_name_pid("xftr_12"), -1);
	assert_int_equal(ftr_name_pid("FTR_12"), -1);
	assert_int_equal(ftr_name_pid("ftr_99999999999"), -1);	/* > INT_MAX */
	assert_int_equal(ftr_name_pid("myftr"), -1);
}

static void test_name_roundtrip(void **state)
{
	char buf[32];

	ftr_name(buf, sizeof(buf), 4242);
	assert_string_equal(buf, "ftr_4242");
	assert_int_equal(ftr_name_pid(buf), 4242);
	assert_int_equal(ftr_name_pid("ftr_1"), 1);
}

static void test_name_namespaces(void **state)
{
	unsigned long ns;
	char buf[64], want[64];
	int pid;

	assert_int_equal(ftr_name_parse("ftr_1_4026532179", &pid, &ns), 0);
	assert_int_equal(pid, 1);
	assert_int_equal(ns, 4026532179ul);
	assert_int_equal(ftr_name_parse("ftr_12", &pid, &ns), 0);
	assert_int_equal(pid, 12);
	assert_int_equal(ns, 0);
	assert_int_equal(ftr_name_parse("ftr_1_", &pid, &ns), -1);
	assert_int_equal(ftr_name_parse("ftr_1_0", &pid, &ns), -1);
	assert_int_equal(ftr_name_parse("ftr_1_2_3", &pid, &ns), -1);
	assert_int_equal(ftr_name_parse("ftr_sh_12", &pid, &ns), -1);
	assert_int_equal(ftr_name_parse("ftr_1_99999999999", &pid, &ns), -1);
	/* a namespaced name is not a plain pid */
	assert_int_equal(ftr_name_pid("ftr_1_4026532179"), -1);
	/* the tests run in the initial PID namespace: the plain name */
	ftr_name_self(buf, sizeof(buf));
	snprintf(want, sizeof(want), "ftr_%d", (int)getpid());
	if (strcmp(buf, want))
		skip();	/* in a container */
}

/* A held lock is a live run, whatever its pid or comm; a released one is
 * stale; and names ftr does not make are never stale. */
static void test_lock_liveness(void **state)
{
	char name[64], path[128];
	int fd;

	snprintf(name, sizeof(name), "ftr_%d_77", (int)getpid());
	snprintf(path, sizeof(path), "%s/%s.lock", FTR_RUN_DIR, name);
	fd = ftr_lock_take(name);
	if (fd < 0)
		skip();	/* no writable /run here */
	assert_true(ftr_name_is_live(name));
	/* A killed run of the same name left "running" (session_running): a
	 * new run's lock file says nothing until it runs. */
	close(fd);
	assert_int_equal(write(fd = open(path, O_WRONLY), "running\n", 8), 8);
	close(fd);
	fd = ftr_lock_take(name);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), 0);
	assert_int_equal(ftr_lock_take(name), -EBUSY);
	close(fd);
	assert_false(ftr_name_is_live(name));
	unlink(path);
	assert_true(ftr_name_is_live("ftr_sh_12"));
	assert_true(ftr_name_is_live("other"));
}

static void test_pid_liveness(void **state)
{
	/* This test binary runs, but its comm is not "ftr...": a pid reused
	 * by another program is not a live ftr. */
	assert_false(ftr_pid_is_live(getpid()));
	assert_false(ftr_pid_is_live(0));
	assert_false(ftr_pid_is_live(-5));
}

static void test_mounts_none(void **state)
{
	char out[256];

	assert_int_equal(mounts_find_tracefs("", out, sizeof(out)), -ENOENT);
	assert_int_equal(mounts_find_tracefs("sysfs /sys sysfs rw 0 0\n"
					     "debugfs /sys/kernel/debug debugfs rw 0 0\n",
					     out, sizeof(out)), -ENOENT);
	/* A tracefs path alone is not tracefs: the type decides. */
	assert_int_equal(mounts_find_tracefs("none /sys/kernel/tracing tmpfs rw 0 0\n",
					     out, sizeof(out)), -ENOENT);
}

static void test_mounts_prefers_default(void **state)
{
	char out[256];

	assert_int_equal(mounts_find_tracefs("nodev /mnt/t\\040x tracefs rw 0 0\n"
					     "nodev /sys/kernel/tracing tracefs rw 0 0\n",
					     out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/kernel/tracing");
}

static void test_mounts_octal(void **state)
{
	char out[256];

	assert_int_equal(mounts_find_tracefs("proc /proc proc rw 0 0\n"
					     "nodev /mnt/my\\040trace tracefs rw 0 0",
					     out, sizeof(out)), 0);
	assert_string_equal(out, "/mnt/my trace");
	assert_int_equal(mounts_find_tracefs("debugfs /sys/kernel/debug debugfs rw 0 0\n"
					     "tracefs /sys/kernel/debug/tracing tracefs rw 0 0\n",
					     out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/kernel/debug/tracing");
}

static char order[64];

static int record(struct undo *u, void *ctx)
{
	size_t n = strlen(order);

	order[n] = u->data[0];
	order[n + 1] = '\0';
	return 0;
}

static void test_undo_reverse_order(void **state)
{
	struct undo_log log = { 0 };
	const char *steps[] = { "a", "b", "c", "d", "e" };

	order[0] = '\0';
	for (size_t i = 0; i < 5; i++) {
		struct undo u = { .kind = UNDO_WRITE, .path = "/x", .data = (char *)steps[i] };

		assert_int_equal(undo_push(&log, &u), 0);
	}
	assert_int_equal(log.n, 5);
	undo_replay(&log, record, NULL);
	assert_string_equal(order, "edcba");
	assert_int_equal(log.n, 0);
	assert_null(log.v);
}

static void test_undo_copies_strings(void **state)
{
	struct undo_log log = { 0 };
	char data[8] = "x";

	for (int i = 0; i < 40; i++) {	/* crosses the growth boundary */
		struct undo u = { .kind = UNDO_APPEND, .path = "/p", .data = data };

		data[0] = (char)('A' + i % 26);
		assert_int_equal(undo_push(&log, &u), 0);
	}
	data[0] = '?';
	assert_int_equal(log.v[0].data[0], 'A');
	assert_int_equal(log.v[39].data[0], 'A' + 39 % 26);
	assert_ptr_not_equal(log.v[0].data, data);
	order[0] = '\0';
	undo_replay(&log, record, NULL);
	assert_int_equal(strlen(order), 40);
	assert_int_equal(order[0], 'A' + 39 % 26);
	assert_int_equal(order[39], 'A');
}

/* A marker's line in the trace file gives the writer's kernel pid: the
 * text forms of 6.x (with and without record-tgid), a comm with '-', ' '
 * and '[' in it, another tag's line, and a tag that only starts the same. */
static void test_marker_pid(void **state)
{
	const char *t =
		"# tracer: nop\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"             ftr-812     [001] ..... 12.000001: tracing_mark_write: ftr-pid self\n"
		"   my-tr [x] 2-17851   [000] ..... 12.000002: tracing_mark_write: ftr-pid child\n";
	const char *tgid =
		"             ftr-4242    (   4240) [003] ...1. 99.5: tracing_mark_write: ftr-pid child\n";

	(void)state;
	assert_int_equal(marker_pid_parse(t, "ftr-pid self"), 812);
	assert_int_equal(marker_pid_parse(t, "ftr-pid child"), 17851);
	assert_int_equal(marker_pid_parse(t, "ftr-pid"), -ESRCH);
	assert_int_equal(marker_pid_parse(tgid, "ftr-pid child"), 4242);
	assert_int_equal(marker_pid_parse("# tracer: nop\n", "ftr-pid child"), -ESRCH);
	assert_int_equal(marker_pid_parse("", "ftr-pid child"), -ESRCH);
	/* No pid before the CPU field: not taken for one. */
	assert_int_equal(marker_pid_parse("x [001] 1.0: tracing_mark_write: ftr-pid child",
					  "ftr-pid child"), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_pid_rejects),
		cmocka_unit_test(test_name_roundtrip),
		cmocka_unit_test(test_name_namespaces),
		cmocka_unit_test(test_lock_liveness),
		cmocka_unit_test(test_pid_liveness),
		cmocka_unit_test(test_mounts_none),
		cmocka_unit_test(test_mounts_prefers_default),
		cmocka_unit_test(test_mounts_octal),
		cmocka_unit_test(test_undo_reverse_order),
		cmocka_unit_test(test_undo_copies_strings),
		cmocka_unit_test(test_marker_pid),
	};

	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
