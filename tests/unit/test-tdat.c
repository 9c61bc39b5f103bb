// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for report/tdat.c's walk of a trace-cmd v6 header, on a small
 * file written by ftr record (tests/fixtures/tdat-writer20.dat: 4 KB
 * pages, one CPU's page of 20 sys_enter_write records, a two-line kallsyms):
 * bad input first (empty, cut anywhere, a length or a page header
 * damaged, an unfinished table), then the good file's layout; and
 * version 7 files converted from it by trace-cmd (tdat-writer20-v7.dat,
 * zstd; -v7-plain.dat, uncompressed; tdat-back-v7.dat, from a copy whose
 * first record's length is 0xfffffffc), read and walked by tdat_open.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "ftr.h"
#include "report/tdat.h"

static char *good;
static size_t good_len;

static int setup(void **state)
{
	good = read_file(FIXTURES "/tdat-writer20.dat", &good_len);
	return good ? 0 : -1;
}

static int teardown(void **state)
{
	free(good);
	return 0;
}

/* Parse these bytes as a file. */
static int parse(const void *data, size_t len, struct tdat_head *h, char *err, size_t errlen)
{
	int fd = memfd_create("tdat", 0), r;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	r = tdat_head_parse(fd, h, err, errlen);
	close(fd);
	return r;
}

static void test_bad(void **state)
{
	struct tdat_head h;
	char err[512], *b;

	assert_int_equal(parse("", 0, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(parse("hello world, not a trace", 24, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "magic"));
	/* Cut anywhere in the header or the data: refused, never read past. */
	for (size_t n = 1; n < good_len; n += n < 200 ? 1 : 97) {
		err[0] = '\0';
		assert_int_equal(parse(good, n, &h, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
	b = malloc(good_len);
	/* header_page's length made huge */
	memcpy(b, good, good_len);
	memset(b + 30, 0xff, 8);
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "damaged"));
	/* the kallsyms length past the end */
	memcpy(b, good, good_len);
	{
		struct tdat_head g;

		assert_int_equal(parse(good, good_len, &g, err, sizeof(err)), 0);
		memset(b + g.ksyms_off - 4, 0x7f, 3);
	}
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "truncated"));
	/* the header page's text damaged (libtracecmd would crash on it) */
	memcpy(b, good, good_len);
	memset(b + 40, 0xff, 4);
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "header page"));
	/* the page's commit says more than a page */
	memcpy(b, good, good_len);
	memset(b + good_len - 4096 + 8, 0x7f, 3);
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than a page"));
	free(b);
}

static void test_good(void **state)
{
	struct tdat_head h;
	char err[512] = "", *b;

	assert_int_equal(parse(good, good_len, &h, err, sizeof(err)), 0);
	assert_int_equal(h.version, 6);
	assert_int_equal(h.page_size, 4096);
	assert_int_equal(h.commit_size, 8);
	assert_int_equal(h.ncpu, 1);
	assert_false(h.unfinished);
	assert_true(h.ksyms_len > 0 && h.ksyms_off > 0 && h.cmd_off > h.ksyms_off);
	assert_true(h.tab_off > h.cmd_off);
	/* Events lost before the page, their count stored after the data:
	 * the kernel's flags in a long, sign-extended on 64-bit. */
	b = malloc(good_len);
	memcpy(b, good, good_len);
	{
		uint64_t commit;

		memcpy(&commit, b + good_len - 4096 + 8, 8);
		commit = (commit & 0x7ffffff) | 0xffffffffc0000000ull;
		memcpy(b + good_len - 4096 + 8, &commit, 8);
	}
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), 0);
	free(b);
	/* A record whose length word is 0xfffffffc: kbuffer's walk went
	 * back 8 bytes, forever (issue 38); refused with where. */
	b = malloc(good_len);
	memcpy(b, good, good_len);
	{
		uint32_t w, back = 0xfffffffc;

		memcpy(&w, b + good_len - 4096 + 16, 4);
		w &= ~31u;	/* type_len 0: a length word follows */
		memcpy(b + good_len - 4096 + 16, &w, 4);
		memcpy(b + good_len - 4096 + 20, &back, 4);
	}
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a record of CPU 0's page"));
	free(b);
	assert_int_equal(parse(good, good_len, &h, err, sizeof(err)), 0);
	/* A table of zeros: the recorder did not finish. */
	b = malloc(good_len);
	memcpy(b, good, good_len);
	memset(b + h.tab_off, 0, 16);
	assert_int_equal(parse(b, good_len, &h, err, sizeof(err)), 0);
	assert_true(h.unfinished);
	free(b);
}

#ifndef FTR_NO_TRACECMD
static int count_rec(struct tep_record *rec, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

/* Open these bytes as a file with tdat_open; NULL with err when refused. */
static struct tdat *open_bytes(const void *data, size_t len, char *err, size_t errlen, int *fd)
{
	char path[64];

	*fd = memfd_create("tdat7", 0);
	assert_true(*fd >= 0);
	assert_int_equal(write(*fd, data, len), (ssize_t)len);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", *fd);
	return tdat_open(path, err, errlen);
}

/*
 * Version 7 (trace-cmd convert of tdat-writer20.dat): zstd-compressed and
 * plain, read whole; a record length changed in a page (0xfffffffc: kbuffer
 * went back 8 bytes forever, issue 38), in the plain file and in one
 * converted from the damaged version 6 file (its chunk decompressed first),
 * refused with where.
 */
static void test_v7(void **state)
{
	static const char *const ok[] = { "/tdat-writer20-v7.dat", "/tdat-writer20-v7-plain.dat" };
	char err[512] = "", path[256], *b;
	size_t len;
	struct tdat *t;
	int n, fd;

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		snprintf(path, sizeof(path), "%s%s", FIXTURES, ok[i]);
		t = tdat_open(path, err, sizeof(err));
		if (!t)
			fail_msg("%s: %s", ok[i], err);
		assert_int_equal(tdat_head(t)->version, 7);
		n = 0;
		assert_int_equal(tdat_iterate(t, count_rec, NULL, &n), 0);
		assert_int_equal(n, 20);
		tdat_close(t);
	}
	assert_null(tdat_open(FIXTURES "/tdat-back-v7.dat", err, sizeof(err)));
	assert_non_null(strstr(err, "a record of CPU 0's page"));
	assert_non_null(strstr(err, "decompressed from offset"));

	b = read_file(FIXTURES "/tdat-writer20-v7-plain.dat", &len);
	assert_non_null(b);
	{
		uint32_t w, back = 0xfffffffc;

		memcpy(&w, b + 4096 + 16, 4);
		w &= ~31u;
		memcpy(b + 4096 + 16, &w, 4);
		memcpy(b + 4096 + 20, &back, 4);
	}
	assert_null(open_bytes(b, len, err, sizeof(err), &fd));
	close(fd);
	assert_non_null(strstr(err, "at offset 4112: a record of CPU 0's page"));
	/* The page header's commit past the page. */
	free(b);
	b = read_file(FIXTURES "/tdat-writer20-v7-plain.dat", &len);
	memset(b + 4096 + 8, 0x7f, 3);
	assert_null(open_bytes(b, len, err, sizeof(err), &fd));
	close(fd);
	assert_non_null(strstr(err, "more than a page"));
	/* Cut anywhere: refused, never read past. */
	for (size_t cut = 1; cut < len; cut += cut < 64 ? 1 : 211) {
		t = open_bytes(b, cut, err, sizeof(err), &fd);
		assert_null(t);
		close(fd);
	}
	free(b);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_good),
#ifndef FTR_NO_TRACECMD
		cmocka_unit_test(test_v7),
#endif
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
