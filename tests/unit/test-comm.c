// SPDX-License-Identifier: GPL-2.0-or-later
/* comm.c: the comm of a process already gone, from the kernel's
 * saved_cmdlines (here a file of ours in its place). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/comm.h"

/* A pid that runs no process: a child that has exited and been reaped. */
static int dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	assert_true(p > 0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static void saved(const char *dir, const int *pid, const char *const *comm, int n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %s\n", pid[i], comm[i]);
	fclose(f);
}

/*
 * The short-lived children of a command exit before their events are read:
 * their comm comes from saved_cmdlines, read again at a miss.  A second
 * miss right after the first used to be "<...>" for good (one read per
 * 50 ms, and a "<...>" was never replaced).
 */
static void test_gone_in_a_burst(void **state)
{
	char dir[] = "/tmp/ftr-test-comm.XXXXXX";
	const char *names[] = { "sh-a", "sh-b", "sh-e" };
	struct timespec wait = { 0, 60000000 };
	struct comm_cache *cc;
	char path[64];
	int d[5], p[3];

	(void)state;
	for (int i = 0; i < 5; i++)
		d[i] = dead_pid();
	assert_non_null(mkdtemp(dir));
	cc = comm_cache_new(dir);
	assert_non_null(cc);
	p[0] = d[0], p[1] = d[1], p[2] = d[4];
	saved(dir, p, names, 1);
	assert_string_equal(comm_lookup(cc, d[0]), "sh-a");
	/* written by the kernel after that read */
	saved(dir, p, names, 2);
	assert_string_equal(comm_lookup(cc, d[1]), "sh-b");
	/* not in the list: unknown; the reads of these 50 ms are spent */
	assert_string_equal(comm_lookup(cc, d[2]), "<...>");
	assert_string_equal(comm_lookup(cc, d[3]), "<...>");
	saved(dir, p, names, 3);
	assert_string_equal(comm_lookup(cc, d[4]), "<...>");
	/* later, the list is read again for it */
	nanosleep(&wait, NULL);
	assert_string_equal(comm_lookup(cc, d[4]), "sh-e");
	assert_string_equal(comm_lookup(cc, d[0]), "sh-a");
	comm_cache_free(cc);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gone_in_a_burst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
