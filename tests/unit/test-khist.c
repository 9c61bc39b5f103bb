// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for khist.c: bad specs and bad text first (with a fuzz loop of
 * truncations and random bytes), then the trigger text, then the real `hist`
 * files of 6.1 and 6.12 (tests/fixtures/hist, see its README) with exact
 * values, and the kernel path end to end: a trigger keyed by the raw value,
 * merged into an agg map, prints the seed's histogram.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "lang/maps/agg.h"
#include "fixture.h"
#include "ftr.h"
#include "kernel/khist.h"
#include "report/output.h"
#include "report/sym.h"

#define KSYM_MAX 256

static char *fixture(const char *kernel, const char *name, size_t *len)
{
	return fixture_text(len, "hist/%s/%s.txt", kernel, name);
}

/* Parse a fixture; it must parse, and (but one) be consistent. */
static void load(const char *kernel, const char *name, struct khist_file *f)
{
	/* 6.12/usecs was read while its trigger was active on sched_switch,
	 * which the reading itself fires: Hits 57 against 54 in the entries */
	bool active_read = !strcmp(kernel, "6.12") && !strcmp(name, "usecs");
	struct khist_err err;
	size_t len;
	char *text = fixture(kernel, name, &len);
	int ret = khist_parse(text, len, f, &err);

	if (ret)
		fail_msg("%s/%s: line %d: %s", kernel, name, err.line, err.msg);
	free(text);
	for (int i = 0; i < f->ntables; i++)
		assert_true(f->tables[i].consistent != active_read);
}

static int parse_str(const char *s, struct khist_file *f, struct khist_err *err)
{
	return khist_parse(s, strlen(s), f, err);
}

/* ---- building: bad input --------------------------------------------------- */

static void test_build_bad(void **state)
{
	struct khist_cmd cmd;
	struct khist_spec s = { .keys = { "count" }, .nkeys = 1 };
	static char longkey[KHIST_CMD_MAX];

	assert_int_equal(khist_build(NULL, &cmd), -EINVAL);
	assert_int_equal(khist_build(&s, NULL), -EINVAL);
	s.nkeys = 0;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.nkeys = KHIST_MAX_KEYS + 1;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.nkeys = 1;
	/* characters the trigger syntax gives a meaning to */
	static const char *const bad[] = {
		"", "count:vals=x", "a,b", "count if", "!count", "co unt", "count\n", "cnt;", "x/y",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		s.keys[0] = bad[i];
		assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	}
	s.keys[0] = NULL;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.keys[0] = "count";
	s.vals[0] = "bytes:x";
	s.nvals = 1;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.nvals = -1;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.nvals = 0;
	s.sort[0] = "hitcount,x";
	s.nsort = 1;
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.nsort = 0;
	/* sizes the kernel would round or refuse */
	static const uint32_t sizes[] = { 1, 64, 100, 2000, 3000, 262144, UINT32_MAX };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		s.size = sizes[i];
		assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	}
	s.size = 0;
	s.name = "my-name";
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.name = NULL;
	s.filter = "count > 1\ncount < 2";
	assert_int_equal(khist_build(&s, &cmd), -EINVAL);
	s.filter = NULL;
	memset(longkey, 'k', sizeof(longkey) - 1);
	s.keys[0] = longkey;
	assert_int_equal(khist_build(&s, &cmd), -ENOSPC);
	assert_string_equal(cmd.add, "");

	assert_int_equal(khist_size_round(0), 0);
	assert_int_equal(khist_size_round(1), 0);
	assert_int_equal(khist_size_round(65), 128);
	assert_int_equal(khist_size_round(128), 128);
	assert_int_equal(khist_size_round(2000), 2048);
	assert_int_equal(khist_size_round(131072), 131072);
	assert_int_equal(khist_size_round(131073), 0);
}

static void test_cmd_bad(void **state)
{
	char buf[64];

	assert_int_equal(khist_cmd(NULL, KHIST_PAUSE, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(khist_cmd("traceoff:1", KHIST_PAUSE, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(khist_cmd("hist:keys=x", (enum khist_op)7, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(khist_cmd("hist:keys=x", KHIST_PAUSE, buf, 0), -EINVAL);
	assert_int_equal(khist_cmd("hist:keys=a_rather_long_field_name:vals=hitcount:size=2048",
				   KHIST_PAUSE, buf, 40), -ENOSPC);
	assert_int_equal(khist_cmd("hist:keys=x", KHIST_REMOVE, buf, 5), -ENOSPC);
}

/* ---- parsing: bad input ------------------------------------------------------ */

static void test_parse_bad(void **state)
{
	static const char head[] =
		"# event histogram\n#\n# trigger info: hist:keys=count:vals=hitcount:sort=hitcount:size=2048 [active]\n#\n\n";
	static const struct {
		const char *text;
		int line;
		const char *msg;
	} bad[] = {
		{ "hello\n", 1, "not a hist file" },
		{ "# event histogram\n", 1, "no '# trigger info:'" },
		{ "# event histogram\n#\n# trigger info: traceon [active]\n", 3, "not a hist trigger" },
		{ "# event histogram\n#\n# trigger info: hist:keys=count [sleeping]\n", 3, "unknown state" },
		{ "# event histogram\n#\n# trigger info: hist:vals=hitcount [active]\n", 3, "no keys" },
		{ "# event histogram\n#\n# trigger info: hist:keys=count:vals=count [active]\n", 3,
		  "vals do not start with hitcount" },
		{ "# event histogram\n#\n# trigger info: hist:keys=count,,x [active]\n", 3, "empty keys" },
		{ "# event histogram\n#\n# trigger info: hist:keys=count:vals=hitcount [active]\n# what\n", 4,
		  "unexpected comment" },
	};
	static const struct {
		const char *body;
		const char *msg;
	} entries[] = {
		{ "", "truncated: no Totals" },
		{ "{ count:         33 } hitcount:          1\n", "truncated: no Totals" },
		{ "{ count:         33 } hitcount: 99999999999999999999\n", "does not fit" },
		{ "{ count: 184467440737095516160 } hitcount: 1\n", "does not fit" },
		{ "{ count:         33 } hitcount:\n", "not a number" },
		{ "{ count:         33 } hitcount:          1  extra: 3\n", "unexpected text" },
		{ "{ count:         33 } hitcount:          1x\n", "unexpected text" },
		{ "{ bytes:         33 } hitcount:          1\n", "key 'count' expected" },
		{ "{ count:         33 hitcount:          1\n", "no closing" },
		{ "{ count:         33} hitcount:          1\n", "' }' expected" },
		{ "{ count:         33 } hits:          1\n", "'hitcount' expected" },
		{ "count: 33\n", "unexpected line" },
		{ "\nTotals:\n    Hits: 0\n", "truncated: no 'Entries'" },
		{ "\nTotals:\n    Hits: 0\n    Entries: x\n    Dropped: 0\n", "not a number" },
		{ "\nTotals:\n    Hits: 0\n    Entries: 0\n    Drops: 0\n", "'Dropped:' expected" },
		{ "\nTotals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\ntrailing\n", "not a hist file" },
	};
	struct khist_file f;
	struct khist_err err;
	char buf[1024];

	assert_int_equal(khist_parse(NULL, 0, &f, &err), -EINVAL);
	assert_int_equal(khist_parse("x", 1, NULL, &err), -EINVAL);
	assert_int_equal(khist_parse("# event\0histogram\n", 18, &f, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "NUL"));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		assert_int_equal(parse_str(bad[i].text, &f, &err), -EINVAL);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("'%s': got '%s'", bad[i].text, err.msg);
		assert_int_equal(err.line, bad[i].line);
		assert_int_equal(f.ntables, 0);		/* nothing left on error */
		assert_null(f.tables);
		assert_null(f.text);
	}
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, entries[i].body);
		assert_int_equal(parse_str(buf, &f, NULL), -EINVAL);
		assert_int_equal(parse_str(buf, &f, &err), -EINVAL);
		if (!strstr(err.msg, entries[i].msg))
			fail_msg("'%s': got '%s'", entries[i].body, err.msg);
	}
	/* modifiers whose renderings are wrong */
	static const char *const mods[][2] = {
		{ "count.log2", "{ count: 2^6 } hitcount: 1\n" },
		{ "count.log2", "{ count: ~ 2^99 } hitcount: 1\n" },
		{ "count.buckets=10", "{ count: ~ 10 } hitcount: 1\n" },
		{ "count.buckets=10", "{ count: ~ 20-10 } hitcount: 1\n" },
		{ "common_pid.execname", "{ common_pid: sh } hitcount: 1\n" },
		{ "common_pid.execname", "{ common_pid: sh [x] } hitcount: 1\n" },
		{ "id.syscall", "{ id: sys_read [] } hitcount: 1\n" },
		{ "call_site.sym", "{ call_site: ffff kmalloc } hitcount: 1\n" },
		{ "call_site.sym", "{ call_site: [zz] kmalloc } hitcount: 1\n" },
		{ "count.hex", "{ count: 0x10 } hitcount: 1\n" },
		{ "stacktrace", "{ stacktrace: x } hitcount: 1\n" },
		{ "stacktrace", "{ stacktrace:\n} hitcount: 1\n" },
		{ "stacktrace", "{ stacktrace:\n         f+0x1/0x2\n" },
		{ "stacktrace", "{ stacktrace:\n         f+0x1/0x2\nhitcount: 1\n" },
		{ "stacktrace,count", "{ stacktrace:\n         f+0x1/0x2\n} hitcount: 1\n" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(mods); i++) {
		snprintf(buf, sizeof(buf),
			 "# event histogram\n#\n# trigger info: hist:keys=%s:vals=hitcount [active]\n#\n\n%s"
			 "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
			 mods[i][0], mods[i][1]);
		if (parse_str(buf, &f, &err) != -EINVAL)
			fail_msg("accepted: %s", mods[i][1]);
	}
}

/* Every prefix of every fixture, and random bytes: an error or a result,
 * never a crash (run under valgrind or ASan to see more). */
static void test_parse_fuzz(void **state)
{
	static const char *const names[] = {
		"execname", "stacktrace", "multi", "kmalloc-symoff", "two-keys", "syscall", "comm-pair",
	};
	struct khist_file f;
	unsigned seed = 42;

	for (size_t n = 0; n < ARRAY_SIZE(names); n++) {
		size_t len;
		char *text = fixture("6.1", names[n], &len);
		int full;

		for (size_t cut = 0; cut < len; cut++) {
			int ret = khist_parse(text, cut, &f, NULL);

			assert_true(ret == 0 || ret == -EINVAL);
			if (!ret) {
				/* only whole tables parse: the cut is after a
				 * "Dropped:" line (digits may be cut short, so
				 * the counts are not compared) */
				assert_true(f.ntables >= 0);
				khist_file_free(&f);
			}
		}
		full = khist_parse(text, len, &f, NULL);
		assert_int_equal(full, 0);
		khist_file_free(&f);
		/* flip bytes */
		for (int round = 0; round < 3000; round++) {
			char *copy = malloc(len);
			int ret;

			memcpy(copy, text, len);
			for (int k = 0; k < 4; k++) {
				seed = seed * 1103515245 + 12345;
				copy[(seed >> 4) % len] = (char)(seed >> 16);
			}
			ret = khist_parse(copy, len, &f, NULL);
			assert_true(ret == 0 || ret == -EINVAL);
			khist_file_free(&f);
			free(copy);
		}
		free(text);
	}
	/* pure noise */
	for (int round = 0; round < 2000; round++) {
		char noise[300];
		int ret;

		for (size_t i = 0; i < sizeof(noise); i++) {
			seed = seed * 1103515245 + 12345;
			noise[i] = "{}[]:~^ ,#\n0123456789abx-+"[(seed >> 16) % 27];
		}
		memcpy(noise, "# event histogram\n#\n# trigger info: hist:keys=a,b:vals=hitcount [active]\n", 74);
		ret = khist_parse(noise, sizeof(noise), &f, NULL);
		assert_true(ret == 0 || ret == -EINVAL);
		khist_file_free(&f);
	}
	khist_file_free(NULL);
}

/* ---- building ---------------------------------------------------------------- */

static void test_build(void **state)
{
	struct khist_cmd cmd;
	struct khist_spec s = {
		.keys = { "common_pid.execname", "count" }, .nkeys = 2,
		.vals = { "hitcount", "count" }, .nvals = 2,
		.sort = { "hitcount.descending", "count" }, .nsort = 2,
		.size = 4096, .filter = "  count >= 4096",
	};
	char buf[KHIST_CMD_MAX + 8];

	assert_int_equal(khist_build(&s, &cmd), 0);
	assert_string_equal(cmd.add, "hist:keys=common_pid.execname,count:vals=hitcount,count"
				     ":sort=hitcount.descending,count:size=4096 if count >= 4096");
	assert_string_equal(cmd.remove, "!hist:keys=common_pid.execname,count:vals=hitcount,count"
					":sort=hitcount.descending,count:size=4096 if count >= 4096");
	/* pause before reading, continue, clear, remove: the same spec */
	assert_int_equal(khist_cmd(cmd.add, KHIST_PAUSE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hist:keys=common_pid.execname,count:vals=hitcount,count"
				 ":sort=hitcount.descending,count:size=4096:pause if count >= 4096");
	assert_int_equal(khist_cmd(cmd.add, KHIST_CONT, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hist:keys=common_pid.execname,count:vals=hitcount,count"
				 ":sort=hitcount.descending,count:size=4096:cont if count >= 4096");
	assert_int_equal(khist_cmd(cmd.add, KHIST_REMOVE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, cmd.remove);

	/* the smallest: keys only; a blank filter is none */
	s = (struct khist_spec){ .keys = { "count.log2" }, .nkeys = 1, .filter = "   " };
	assert_int_equal(khist_build(&s, &cmd), 0);
	assert_string_equal(cmd.add, "hist:keys=count.log2");
	assert_string_equal(cmd.remove, "!hist:keys=count.log2");

	/* created paused, named; its continue drops the :pause */
	s = (struct khist_spec){ .keys = { "count.buckets=1024", "common_stacktrace" }, .nkeys = 2,
				 .vals = { "hitcount" }, .nvals = 1, .size = 128, .pause = true,
				 .name = "ftr_12_0" };
	assert_int_equal(khist_build(&s, &cmd), 0);
	assert_string_equal(cmd.add, "hist:keys=count.buckets=1024,common_stacktrace:vals=hitcount"
				     ":size=128:pause:name=ftr_12_0");
	assert_int_equal(khist_cmd(cmd.add, KHIST_CONT, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hist:keys=count.buckets=1024,common_stacktrace:vals=hitcount"
				 ":size=128:name=ftr_12_0:cont");
	assert_int_equal(khist_cmd(cmd.add, KHIST_CLEAR, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hist:keys=count.buckets=1024,common_stacktrace:vals=hitcount"
				 ":size=128:name=ftr_12_0:clear");
	/* a filter with a colon stays whole */
	assert_int_equal(khist_cmd("hist:keys=x:pause if s == \"a:b\"", KHIST_CLEAR, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hist:keys=x:clear if s == \"a:b\"");
}

/* ---- parsing the real thing ------------------------------------------------------ */

static void check_execname(const struct khist_file *f)
{
	static const struct { const char *comm; uint64_t pid, hits, bytes; } want[] = {
		{ "cat", 103, 1, 83 }, { "ls", 108, 1, 62 }, { "two, words", 107, 3, 12 },
		{ "dd", 105, 61, 62914593 }, { "my task", 106, 100, 200 }, { "dd", 104, 2001, 8192037 },
	};
	const struct khist_table *t;

	assert_int_equal(f->ntables, 1);
	t = &f->tables[0];
	assert_string_equal(t->trigger, "hist:keys=common_pid.execname:vals=hitcount,count:sort=hitcount:size=2048");
	assert_false(t->paused);
	assert_int_equal(t->nkeys, 1);
	assert_string_equal(t->keys[0].name, "common_pid");
	assert_string_equal(t->keys[0].mod, "execname");
	assert_true(t->has_hitcount);
	assert_int_equal(t->nvals, 1);
	assert_string_equal(t->vals[0].name, "count");
	assert_int_equal(t->nentries, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct khist_entry *e = &t->entries[i];

		assert_int_equal(e->keys[0].fmt, KHIST_EXECNAME);
		assert_string_equal(e->keys[0].s, want[i].comm);
		assert_int_equal(e->keys[0].u, want[i].pid);
		assert_int_equal(e->hitcount, want[i].hits);
		assert_int_equal(e->vals[0], want[i].bytes);
	}
	assert_int_equal(t->hits, 2167);
	assert_int_equal(t->total_entries, 6);
	assert_int_equal(t->dropped, 0);
}

static void test_fixture_execname(void **state)
{
	struct khist_file f;

	/* comms with a space and a comma, from scripts named so */
	load("6.1", "execname", &f);
	check_execname(&f);
	khist_file_free(&f);
}

static void test_fixture_raw_log2_buckets_hex(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };

	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		struct khist_file f;
		const struct khist_table *t;

		load(kernels[k], "count-raw", &f);
		t = &f.tables[0];
		assert_int_equal(t->nentries, 5);
		assert_int_equal(t->entries[0].keys[0].fmt, KHIST_NUM);
		assert_int_equal(t->entries[0].keys[0].u, 33);
		assert_int_equal(t->entries[3].keys[0].u, 4096);
		assert_int_equal(t->entries[3].hitcount, 2000);
		assert_int_equal(t->entries[4].keys[0].u, 1048576);
		assert_int_equal(t->entries[4].hitcount, 60);
		assert_int_equal(t->hits, 2063);
		khist_file_free(&f);

		/* the kernel's log2 is ceil(log2 v): 4096 is "~ 2^12" */
		load(kernels[k], "count-log2", &f);
		t = &f.tables[0];
		assert_int_equal(t->nentries, 4);
		assert_string_equal(t->keys[0].mod, "log2");
		assert_int_equal(t->entries[0].keys[0].fmt, KHIST_LOG2);
		assert_int_equal(t->entries[0].keys[0].u, 6);
		assert_int_equal(t->entries[2].keys[0].u, 12);
		assert_int_equal(t->entries[2].hitcount, 2000);
		assert_int_equal(t->entries[3].keys[0].u, 20);
		assert_int_equal(t->entries[3].hitcount, 60);
		khist_file_free(&f);

		load(kernels[k], "count-buckets", &f);
		t = &f.tables[0];
		assert_int_equal(t->nentries, 3);
		assert_string_equal(t->keys[0].mod, "buckets=1024");
		assert_int_equal(t->entries[0].keys[0].fmt, KHIST_BUCKETS);
		assert_int_equal(t->entries[0].keys[0].u, 0);
		assert_int_equal(t->entries[0].keys[0].hi, 1023);
		assert_int_equal(t->entries[0].hitcount, 3);
		assert_int_equal(t->entries[1].keys[0].u, 4096);
		assert_int_equal(t->entries[1].keys[0].hi, 5119);
		assert_int_equal(t->entries[2].keys[0].u, 1048576);
		assert_int_equal(t->entries[2].keys[0].hi, 1049599);
		khist_file_free(&f);

		load(kernels[k], "count-hex", &f);
		t = &f.tables[0];
		assert_int_equal(t->entries[3].keys[0].fmt, KHIST_HEX);
		assert_int_equal(t->entries[3].keys[0].u, 4096);
		assert_int_equal(t->entries[3].vals[0], 2000 * 4096);	/* "7d0000" */
		assert_int_equal(t->entries[4].keys[0].u, 0x100000);
		assert_int_equal(t->entries[4].vals[0], 0x3c00000);
		khist_file_free(&f);
	}
}

static void test_fixture_syscall_cpu(void **state)
{
	struct khist_file f;
	const struct khist_table *t;
	uint64_t sum = 0;

	load("6.1", "syscall", &f);
	t = &f.tables[0];
	assert_int_equal(t->nentries, 33);
	assert_int_equal(t->entries[0].keys[0].fmt, KHIST_SYSCALL);
	assert_string_equal(t->entries[0].keys[0].s, "sys_munmap");
	assert_int_equal(t->entries[0].keys[0].u, 11);
	assert_string_equal(t->entries[32].keys[0].s, "sys_write");
	assert_int_equal(t->entries[32].keys[0].u, 1);
	assert_int_equal(t->entries[32].hitcount, 2167);
	assert_string_equal(t->entries[31].keys[0].s, "sys_read");
	assert_int_equal(t->entries[31].keys[0].u, 0);
	for (size_t i = 0; i < t->nentries; i++)
		sum += t->entries[i].hitcount;
	assert_int_equal(sum, 5112);
	khist_file_free(&f);

	load("6.1", "cpu", &f);
	t = &f.tables[0];
	assert_int_equal(t->nentries, 2);
	assert_int_equal(t->entries[1].keys[0].u, 1);
	assert_int_equal(t->entries[1].hitcount, 2062);
	assert_int_equal(t->entries[1].vals[0], 71106630);
	khist_file_free(&f);
}

static void test_fixture_two_keys(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };

	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		struct khist_file f;
		const struct khist_table *t;

		load(kernels[k], "two-keys", &f);
		t = &f.tables[0];
		assert_int_equal(t->nkeys, 2);
		assert_int_equal(t->nentries, 8);
		/* "{ common_pid: two, words      [       163], count:          4 }" */
		assert_string_equal(t->entries[6].keys[0].s, "two, words");
		assert_int_equal(t->entries[6].keys[1].fmt, KHIST_NUM);
		assert_int_equal(t->entries[6].keys[1].u, 4);
		assert_int_equal(t->entries[6].hitcount, 3);
		assert_int_equal(t->entries[6].vals[0], 12);
		assert_string_equal(t->entries[5].keys[0].s, "my task");
		assert_int_equal(t->entries[5].keys[1].u, 2);
		assert_string_equal(t->entries[2].keys[0].s, "dd");
		assert_int_equal(t->entries[2].keys[1].u, 4096);
		assert_int_equal(t->entries[2].hitcount, 2000);
		assert_int_equal(t->entries[2].vals[0], 8192000);
		khist_file_free(&f);

		load(kernels[k], "filtered", &f);
		t = &f.tables[0];
		assert_string_equal(t->trigger, "hist:keys=common_pid.execname,count:vals=hitcount"
						":sort=hitcount:size=2048 if count >= 4096");
		assert_int_equal(t->nentries, 2);
		assert_int_equal(t->entries[0].keys[1].u, 1048576);
		assert_int_equal(t->entries[1].keys[1].u, 4096);
		assert_int_equal(t->entries[1].hitcount, 2000);
		khist_file_free(&f);
	}
}

static void test_fixture_strings(void **state)
{
	struct khist_file f;
	const struct khist_table *t;
	bool seen_my = false, seen_two = false;

	load("6.1", "prev-comm", &f);
	t = &f.tables[0];
	assert_int_equal(t->nentries, 17);
	assert_int_equal(t->entries[0].keys[0].fmt, KHIST_STRING);
	for (size_t i = 0; i < t->nentries; i++) {
		if (!strcmp(t->entries[i].keys[0].s, "my task"))
			seen_my = true;
		if (!strcmp(t->entries[i].keys[0].s, "two, words"))
			seen_two = true;
	}
	assert_true(seen_my && seen_two);
	khist_file_free(&f);

	load("6.12", "comm-pair", &f);
	t = &f.tables[0];
	assert_int_equal(t->nentries, 32);
	/* "{ prev_comm: sh  ..., next_comm: ksoftirqd/0  ... }" */
	assert_string_equal(t->entries[0].keys[0].s, "sh");
	assert_string_equal(t->entries[0].keys[1].s, "ksoftirqd/0");
	assert_string_equal(t->entries[1].keys[0].s, "my task");
	assert_string_equal(t->entries[1].keys[1].s, "swapper/0");
	assert_int_equal(t->entries[1].keys[1].fmt, KHIST_STRING);
	khist_file_free(&f);
}

static void test_fixture_stacks(void **state)
{
	struct khist_file f;
	const struct khist_table *t;
	const struct khist_kv *kv;
	char func[128];
	uint64_t off, size, hits = 0;

	/* 6.1 prints "stacktrace:" */
	load("6.1", "stacktrace", &f);
	t = &f.tables[0];
	assert_string_equal(t->keys[0].name, "stacktrace");
	assert_int_equal(t->nentries, 14);
	kv = &t->entries[0].keys[0];
	assert_int_equal(kv->fmt, KHIST_STACK);
	assert_int_equal(kv->nframes, 10);
	assert_string_equal(kv->frames[0], "__schedule+0x4f8/0x9e0");
	assert_string_equal(kv->frames[9], "ret_from_fork+0x8/0x30");
	assert_int_equal(khist_frame_split(kv->frames[0], func, sizeof(func), &off, &size), 0);
	assert_string_equal(func, "__schedule");
	assert_int_equal(off, 0x4f8);
	assert_int_equal(size, 0x9e0);
	for (size_t i = 0; i < t->nentries; i++)
		hits += t->entries[i].hitcount;
	assert_int_equal(hits, 59);
	khist_file_free(&f);

	/* 6.12 calls it common_stacktrace, whether asked as stacktrace or not */
	load("6.12", "stacktrace", &f);
	t = &f.tables[0];
	assert_string_equal(t->trigger, "hist:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=256");
	assert_string_equal(t->keys[0].name, "common_stacktrace");
	kv = &t->entries[0].keys[0];
	assert_int_equal(kv->nframes, 4);
	assert_string_equal(kv->frames[3], "asm_sysvec_apic_timer_interrupt+0x1a/0x20");
	assert_int_equal(t->entries[1].keys[0].nframes, 7);
	khist_file_free(&f);
	load("6.12", "common-stacktrace", &f);
	assert_int_equal(f.tables[0].nentries, 9);
	khist_file_free(&f);

	/* a stack key beside another, both orders (the kernel's layout) */
	static const char two[] =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_pid.execname,common_stacktrace:vals=hitcount,count [active]\n#\n\n"
		"{ common_pid: my task         [        12], common_stacktrace:\n"
		"         __schedule+0x61f/0xbe0\n"
		"         vfs_write+0x1/0x2 [ext4]\n"
		"} hitcount:          3  count:         30\n"
		"\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n"
		"\n\n# event histogram\n#\n"
		"# trigger info: hist:keys=stacktrace,prev_comm:vals=hitcount [paused]\n#\n\n"
		"{ stacktrace:\n"
		"         0xffffffff81000000\n"
		", prev_comm: kworker/0:1                                        } hitcount:          2\n"
		"\nTotals:\n    Hits: 2\n    Entries: 1\n    Dropped: 0\n";

	assert_int_equal(parse_str(two, &f, NULL), 0);
	assert_int_equal(f.ntables, 2);
	t = &f.tables[0];
	assert_string_equal(t->entries[0].keys[0].s, "my task");
	assert_int_equal(t->entries[0].keys[0].u, 12);
	assert_int_equal(t->entries[0].keys[1].nframes, 2);
	assert_string_equal(t->entries[0].keys[1].frames[1], "vfs_write+0x1/0x2 [ext4]");
	assert_int_equal(t->entries[0].vals[0], 30);
	assert_true(t->consistent);
	t = &f.tables[1];
	assert_true(t->paused);
	assert_int_equal(t->entries[0].keys[0].nframes, 1);
	assert_string_equal(t->entries[0].keys[1].s, "kworker/0:1");
	assert_int_equal(t->entries[0].hitcount, 2);
	khist_file_free(&f);

	/* frames */
	assert_int_equal(khist_frame_split("vfs_write+0x1/0x2 [ext4]", func, sizeof(func), &off, &size), 0);
	assert_string_equal(func, "vfs_write");
	assert_int_equal(off, 1);
	assert_int_equal(size, 2);
	assert_int_equal(khist_frame_split("0xffffffff81000000", func, sizeof(func), &off, &size), 0);
	assert_string_equal(func, "");
	assert_int_equal(off, 0xffffffff81000000ull);
	static const char *const badf[] = {
		"", "f", "f+", "+0x1/0x2", "f+0x1", "f+0x1/", "f+1/0x2", "f+0x1/0x2x", "0x", "0xzz", "f+0xg/0x2",
	};
	for (size_t i = 0; i < ARRAY_SIZE(badf); i++)
		assert_int_equal(khist_frame_split(badf[i], func, sizeof(func), &off, &size), -EINVAL);
	assert_int_equal(khist_frame_split("averyveryverylongname+0x1/0x2", func, 8, &off, &size), -EINVAL);
}

static void test_fixture_syms(void **state)
{
	struct khist_file f;
	const struct khist_table *t;

	load("6.1", "kmalloc-sym", &f);
	t = &f.tables[0];
	assert_int_equal(t->nentries, 18);
	assert_int_equal(t->nvals, 2);
	assert_string_equal(t->vals[1].name, "bytes_alloc");
	assert_int_equal(t->entries[0].keys[0].fmt, KHIST_SYM);
	assert_int_equal(t->entries[0].keys[0].u, 0xffffffff8297b73aull);
	assert_string_equal(t->entries[0].keys[0].s, "single_open");
	assert_int_equal(t->entries[0].vals[0], 32);
	assert_int_equal(t->entries[0].vals[1], 32);
	khist_file_free(&f);

	load("6.12", "kmalloc-symoff", &f);
	t = &f.tables[0];
	assert_int_equal(t->entries[0].keys[0].fmt, KHIST_SYM_OFFSET);
	assert_int_equal(t->entries[0].keys[0].u, 0xffffffffb0c4a1d3ull);
	assert_string_equal(t->entries[0].keys[0].s, "event_hist_open+0x73/0x140");
	assert_int_equal(t->entries[0].vals[0], 24);
	khist_file_free(&f);
}

static void test_fixture_totals(void **state)
{
	struct khist_file f;
	const struct khist_table *t;

	/* a 128-entry table: 302 forks, 128 counted, 174 dropped */
	load("6.12", "dropped", &f);
	t = &f.tables[0];
	assert_string_equal(t->trigger, "hist:keys=child_pid:vals=hitcount:sort=hitcount:size=128");
	assert_int_equal(t->nentries, 128);
	assert_int_equal(t->hits, 128);
	assert_int_equal(t->total_entries, 128);
	assert_int_equal(t->dropped, 174);
	khist_file_free(&f);

	load("6.1", "empty", &f);
	assert_int_equal(f.ntables, 1);
	assert_int_equal(f.tables[0].nentries, 0);
	assert_null(f.tables[0].entries);
	khist_file_free(&f);

	/* three triggers on one event, the last one paused */
	load("6.12", "multi", &f);
	assert_int_equal(f.ntables, 3);
	assert_string_equal(f.tables[0].keys[0].mod, "log2");
	assert_int_equal(f.tables[0].nentries, 5);
	assert_int_equal(f.tables[1].nentries, 4);
	assert_string_equal(f.tables[1].trigger,
			    "hist:keys=common_pid.execname:vals=hitcount,count:sort=count.descending:size=2048");
	assert_int_equal(f.tables[1].entries[0].vals[0], 62914593);
	assert_true(f.tables[2].paused);
	assert_int_equal(f.tables[2].nentries, 0);
	khist_file_free(&f);

	/* a hist file with no trigger is empty */
	assert_int_equal(parse_str("", &f, NULL), 0);
	assert_int_equal(f.ntables, 0);
	khist_file_free(&f);

	/* read while events still arrive: counts that do not add up */
	assert_int_equal(parse_str("# event histogram\n#\n# trigger info: hist:keys=x:vals=hitcount [active]\n#\n\n"
				   "{ x:          1 } hitcount:          5\n\nTotals:\n    Hits: 7\n"
				   "    Entries: 1\n    Dropped: 0\n", &f, NULL), 0);
	assert_false(f.tables[0].consistent);
	khist_file_free(&f);
}

static void test_fixture_612_values(void **state)
{
	struct khist_file f;
	const struct khist_table *t;

	/* vals=hitcount,hitcount.percent,count.graph */
	load("6.12", "percent", &f);
	t = &f.tables[0];
	assert_int_equal(t->nvals, 2);
	assert_string_equal(t->vals[0].mod, "percent");
	assert_string_equal(t->vals[1].mod, "graph");
	assert_int_equal(t->entries[0].hitcount, 2);
	assert_int_equal(t->entries[0].vals[0], 9);		/* 0.09 % */
	assert_int_equal(t->entries[0].vals[1], 0);
	assert_int_equal(t->entries[2].vals[0], 9694);		/* 96.94 % */
	assert_int_equal(t->entries[2].vals[1], 2);		/* "##" */
	assert_int_equal(t->entries[3].vals[1], 20);
	khist_file_free(&f);

	/* :nohitcount: no hitcount, the count sums still there */
	load("6.12", "nohitcount", &f);
	t = &f.tables[0];
	assert_false(t->has_hitcount);
	assert_int_equal(t->nvals, 1);
	assert_int_equal(t->entries[2].keys[0].u, 12);
	assert_int_equal(t->entries[2].hitcount, 0);
	assert_int_equal(t->entries[2].vals[0], 8192000);
	khist_file_free(&f);

	/* common_timestamp.usecs prints as "common_timestamp:" */
	load("6.12", "usecs", &f);
	t = &f.tables[0];
	assert_false(t->consistent);
	assert_int_equal(t->hits, 57);
	assert_string_equal(t->vals[0].name, "common_timestamp");
	assert_int_equal(t->entries[0].keys[0].u, 28);
	assert_int_equal(t->entries[0].vals[0], 18481308);
	khist_file_free(&f);
}

/* Every fixture parses and adds up. */
static void test_fixture_all(void **state)
{
	static const char *const kernels[] = { "6.1", "6.12" };
	int n = 0;

	for (size_t k = 0; k < ARRAY_SIZE(kernels); k++) {
		char dir[512];
		DIR *d;
		struct dirent *de;

		snprintf(dir, sizeof(dir), "%s/hist/%s", FIXTURES, kernels[k]);
		d = opendir(dir);
		assert_non_null(d);
		while ((de = readdir(d))) {
			char name[256];
			size_t l = strlen(de->d_name);
			struct khist_file f;

			if (l < 5 || strcmp(de->d_name + l - 4, ".txt") || strstr(de->d_name, ".trigger.") ||
			    !strcmp(de->d_name, "error_log.txt"))
				continue;
			snprintf(name, sizeof(name), "%.*s", (int)(l - 4), de->d_name);
			load(kernels[k], name, &f);
			assert_true(f.ntables >= 1);
			khist_file_free(&f);
			n++;
		}
		closedir(d);
	}
	assert_true(n >= 35);
}

/* ---- the kernel path, end to end ------------------------------------------------- */

static int render_cmp(const struct agg *m, const char *want)
{
	static struct outbuf ob;
	int fd = memfd_create("khist", 0);
	char buf[8192];
	ssize_t n;

	assert_true(fd >= 0);
	ob_init(&ob, fd);
	assert_int_equal(agg_print(m, &ob, NULL), 0);
	assert_int_equal(ob_flush(&ob), 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	if (strcmp(buf, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, buf);
	return strcmp(buf, want);
}

/* keys=count keyed by the raw value, merged: the seed's two humps, in
 * bpftrace's buckets (the kernel's own .log2 would put 4096 in 2^12,
 * i.e. (2K, 4K]). */
static void test_kernel_path_hist(void **state)
{
	struct agg_spec s = { .name = "@bytes", .kind = AGG_HIST };
	struct agg *m = agg_alloc(&s);
	struct khist_file f;
	const struct khist_table *t;

	assert_non_null(m);
	load("6.1", "count-raw", &f);
	t = &f.tables[0];
	for (size_t i = 0; i < t->nentries; i++)
		assert_int_equal(agg_add_hits(m, NULL, (int64_t)t->entries[i].keys[0].u,
					      t->entries[i].hitcount), 0);
	agg_add_dropped(m, t->dropped);
	khist_file_free(&f);
	assert_int_equal(render_cmp(m,
		"@bytes:\n"
		"[32, 64)               3 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)               0 |                                                    |\n"
		"[2K, 4K)               0 |                                                    |\n"
		"[4K, 8K)            2000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[8K, 16K)              0 |                                                    |\n"
		"[16K, 32K)             0 |                                                    |\n"
		"[32K, 64K)             0 |                                                    |\n"
		"[64K, 128K)            0 |                                                    |\n"
		"[128K, 256K)           0 |                                                    |\n"
		"[256K, 512K)           0 |                                                    |\n"
		"[512K, 1M)             0 |                                                    |\n"
		"[1M, 2M)              60 |@                                                   |\n"
		"count 2063, sum 71106690, mean 34467 (2 modes: a mean over them describes neither), "
		"p50 ~4K, p90 ~4K, p99 ~1M\n\n"), 0);
	agg_free(m);
}

/* keys=common_pid.execname:vals=hitcount,count merged per comm: count()
 * and sum(args.count) by comm, as the user path would print them. */
static void test_kernel_path_count(void **state)
{
	struct agg_spec cs = { .name = "@", .kind = AGG_COUNT, .nkeys = 1, .ktypes = { AGG_K_STR } };
	struct agg_spec ss = { .name = "@bytes", .kind = AGG_SUM, .nkeys = 1, .ktypes = { AGG_K_STR } };
	struct agg *c = agg_alloc(&cs), *s = agg_alloc(&ss);
	struct khist_file f;
	const struct khist_table *t;

	load("6.12", "execname", &f);
	t = &f.tables[0];
	for (size_t i = 0; i < t->nentries; i++) {
		const struct khist_entry *e = &t->entries[i];
		struct agg_kpart k = { .str = { e->keys[0].s, strlen(e->keys[0].s) } };

		assert_int_equal(agg_add(c, &k, e->hitcount, 0), 0);
		assert_int_equal(agg_add(s, &k, e->hitcount, (int64_t)e->vals[0]), 0);
	}
	khist_file_free(&f);
	/* two dd processes fold into one comm */
	assert_int_equal(render_cmp(c, "@[cat]: 1\n@[ls]: 1\n@[two, words]: 3\n@[my task]: 100\n@[dd]: 2062\n"), 0);
	assert_int_equal(render_cmp(s, "@bytes[two, words]: 12\n@bytes[ls]: 62\n@bytes[cat]: 83\n"
				       "@bytes[my task]: 200\n@bytes[dd]: 71106630\n"), 0);
	agg_free(c);
	agg_free(s);
}

/* .sym and .sym-offset keys as ftr shows them: the size dropped, the
 * module kept, an address without a symbol left alone. */
static void test_sym_text(void **state)
{
	struct khist_kv kv = { .fmt = KHIST_SYM_OFFSET, .s = "single_open+0x2a/0xa0" };
	struct khist_kv num = { .fmt = KHIST_NUM, .u = 5 };
	char buf[64];

	assert_int_equal(khist_sym_text(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(khist_sym_text(&num, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(khist_sym_text(&kv, NULL, sizeof(buf)), -EINVAL);
	kv.s = NULL;
	assert_int_equal(khist_sym_text(&kv, buf, sizeof(buf)), -EINVAL);
	kv.s = "single_open+0x2a";		/* no size: not what the kernel prints */
	assert_int_equal(khist_sym_text(&kv, buf, sizeof(buf)), -EINVAL);
	kv.s = "single_open";
	assert_int_equal(khist_sym_text(&kv, buf, sizeof(buf)), -EINVAL);

	kv.s = "single_open+0x2a/0xa0";
	assert_int_equal(khist_sym_text(&kv, buf, sizeof(buf)), 16);
	assert_string_equal(buf, "single_open+0x2a");
	kv.s = "nf_hook_slow+0x0/0xc0 [nf_tables]";
	khist_sym_text(&kv, buf, sizeof(buf));
	assert_string_equal(buf, "nf_hook_slow+0x0 [nf_tables]");
	kv.s = "0xffffffffc0001234";
	khist_sym_text(&kv, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffffc0001234");
	kv.fmt = KHIST_SYM;
	kv.s = "ext4_fill_super [ext4]";
	khist_sym_text(&kv, buf, sizeof(buf));
	assert_string_equal(buf, "ext4_fill_super [ext4]");
}

/* The two paths of -k call_site.sym / .sym-offset name the same addresses
 * alike: the 6.1 guest's kmalloc call sites (the two fixtures saw the same
 * 18 addresses) resolved by ftr from a kallsyms made of the kernel's own
 * answers give the kernel's text; and the .sym table, keyed by address in
 * the kernel, merges into one row per function. */
static void test_kernel_path_sym(void **state)
{
	struct agg_spec cs = { .name = "@", .kind = AGG_COUNT, .nkeys = 1, .ktypes = { AGG_K_STR } };
	struct agg *c = agg_alloc(&cs);
	struct khist_file off, sym;
	char *ks = NULL, text[KSYM_MAX], mine[KSYM_MAX];
	size_t kslen = 0;
	FILE *f = open_memstream(&ks, &kslen);
	struct ksyms *k;
	int64_t v;

	assert_non_null(c);
	assert_non_null(f);
	load("6.1", "kmalloc-symoff", &off);
	load("6.1", "kmalloc-sym", &sym);
	for (size_t i = 0; i < off.tables[0].nentries; i++) {
		const struct khist_kv *kv = &off.tables[0].entries[i].keys[0];
		char func[128];
		uint64_t o, size;

		assert_int_equal(khist_frame_split(kv->s, func, sizeof(func), &o, &size), 0);
		fprintf(f, "%016llx T %s\n", (unsigned long long)(kv->u - o), func);
	}
	fclose(f);
	assert_int_equal(ksyms_parse(ks, &k), 0);
	free(ks);
	for (size_t i = 0; i < off.tables[0].nentries; i++) {
		const struct khist_kv *kv = &off.tables[0].entries[i].keys[0];

		assert_true(khist_sym_text(kv, text, sizeof(text)) > 0);
		ksyms_format(k, kv->u, true, mine, sizeof(mine));
		assert_string_equal(mine, text);
	}
	for (size_t i = 0; i < sym.tables[0].nentries; i++) {
		const struct khist_entry *e = &sym.tables[0].entries[i];
		struct agg_kpart key;

		assert_true(khist_sym_text(&e->keys[0], text, sizeof(text)) > 0);
		ksyms_format(k, e->keys[0].u, false, mine, sizeof(mine));
		assert_string_equal(mine, text);
		key.str.p = text;
		key.str.len = strlen(text);
		assert_int_equal(agg_add(c, &key, e->hitcount, 0), 0);
	}
	/* 18 addresses in 16 functions */
	assert_int_equal(agg_entries(c), 16);
	assert_int_equal(agg_lookup(c, (struct agg_kpart[]){ AGG_KS("alloc_pipe_info") }, &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(agg_lookup(c, (struct agg_kpart[]){ AGG_KS("tomoyo_find_next_domain") }, &v), 0);
	assert_int_equal(v, 10);
	khist_file_free(&off);
	khist_file_free(&sym);
	ksyms_free(k);
	agg_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_bad),
		cmocka_unit_test(test_cmd_bad),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_fuzz),
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_fixture_execname),
		cmocka_unit_test(test_fixture_raw_log2_buckets_hex),
		cmocka_unit_test(test_fixture_syscall_cpu),
		cmocka_unit_test(test_fixture_two_keys),
		cmocka_unit_test(test_fixture_strings),
		cmocka_unit_test(test_fixture_stacks),
		cmocka_unit_test(test_fixture_syms),
		cmocka_unit_test(test_fixture_totals),
		cmocka_unit_test(test_fixture_612_values),
		cmocka_unit_test(test_fixture_all),
		cmocka_unit_test(test_kernel_path_hist),
		cmocka_unit_test(test_kernel_path_count),
		cmocka_unit_test(test_sym_text),
		cmocka_unit_test(test_kernel_path_sym),
	};

	return cmocka_run_group_tests_name("khist", tests, NULL, NULL);
}
