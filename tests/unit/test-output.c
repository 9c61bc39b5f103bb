// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the event printers of output.c (what `ftr trace` prints),
 * byte for byte: the text and JSON lines of real syscall and sched formats
 * and of a hand-made format with every field kind, at the edges of each
 * value (negative ints in syscall slots, the largest numbers, strings that
 * need escaping, a comm of 16 bytes without a NUL, a CPU above 99); --fields
 * order; then many events through a small-buffer flush boundary, which must
 * give the same bytes as one event at a time.
 */
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
#include <event-parse.h>

#include "fixture.h"
#include "ftr.h"
#include "report/output.h"

static struct tep_handle *tep;

static const char *const fixtures[] = {
	"syscalls:sys_enter_write", "syscalls:sys_enter_openat", "sched:sched_switch",
	"ipi:ipi_send_cpumask", "ftrtest:types", NULL,
};

static int setup(void **state)
{
	tep = fixture_tep(fixtures);
	return tep ? 0 : -1;
}

static int teardown(void **state)
{
	tep_free(tep);
	return 0;
}

struct rec {
	struct tep_record r;
	struct tep_event *ev;
	unsigned char data[4096];
};

static void rec_init(struct rec *r, const char *sys, const char *name, int pid, int cpu,
		     unsigned long long ts)
{
	int end = 0;

	memset(r, 0, sizeof(*r));
	r->ev = tep_find_event_by_name(tep, sys, name);
	assert_non_null(r->ev);
	for (struct tep_format_field *f = r->ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	r->r.data = r->data;
	r->r.size = end;
	r->r.cpu = cpu;
	r->r.ts = ts;
	memcpy(r->data, &r->ev->id, 2);
	memcpy(r->data + 4, &pid, 4);
}

/* Little-endian, as the fixtures and the machines ftr runs on. */
static void set_num(struct rec *r, const char *name, uint64_t v)
{
	struct tep_format_field *f = tep_find_any_field(r->ev, name);

	assert_non_null(f);
	memcpy(r->data + f->offset, &v, f->size < 8 ? f->size : 8);
}

/* A __data_loc (rel: __rel_loc) field pointing at bytes put after the
 * fixed part. */
static void set_dyn(struct rec *r, const char *name, const void *bytes, unsigned n, bool rel)
{
	struct tep_format_field *f = tep_find_any_field(r->ev, name);
	unsigned off = r->r.size;
	uint32_t loc;

	assert_non_null(f);
	memcpy(r->data + off, bytes, n);
	r->r.size += n;
	loc = (n << 16) | (rel ? off - (f->offset + f->size) : off);
	memcpy(r->data + f->offset, &loc, 4);
}

static void set_str(struct rec *r, const char *name, const char *s)
{
	struct tep_format_field *f = tep_find_any_field(r->ev, name);

	assert_non_null(f);
	memset(r->data + f->offset, 0, f->size);
	memcpy(r->data + f->offset, s, strnlen(s, f->size));
}

static char *fd_text(int fd)
{
	off_t len = lseek(fd, 0, SEEK_CUR);
	char *buf = calloc(1, len + 1);

	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), len);
	return buf;
}

/* One event printed through a real outbuf on a memfd. */
static char *render(struct rec *r, enum out_mode mode, char *const *only, int nonly,
		    const char *comm)
{
	static struct outbuf ob;
	struct evfmt f;
	int fd = memfd_create("out", 0);
	char *text;

	assert_true(fd >= 0);
	assert_int_equal(evfmt_init(&f, r->ev, only, nonly), 0);
	ob_init(&ob, fd);
	evfmt_print(&ob, mode, &f, &r->r, comm, evfmt_pid(&f, &r->r));
	assert_int_equal(ob_flush(&ob), 0);
	evfmt_free(&f);
	text = fd_text(fd);
	close(fd);
	return text;
}

static void check(struct rec *r, enum out_mode mode, const char *comm, const char *want)
{
	char *got = render(r, mode, NULL, 0, comm);

	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
	free(got);
}

static void write_rec(struct rec *r)
{
	rec_init(r, "syscalls", "sys_enter_write", 20465, 1, 10672811968123ull);
	set_num(r, "__syscall_nr", 1);
	set_num(r, "fd", 4);
	set_num(r, "buf", 0x559d0069f0a0ull);
	set_num(r, "count", 1);
}

static void test_write(void **state)
{
	struct rec r;

	write_rec(&r);
	check(&r, OUT_TEXT, "writer",
	      "          writer-20465 [001] 10672.811968: sys_enter_write: __syscall_nr=1 fd=4 "
	      "buf=0x559d0069f0a0 count=1\n");
	check(&r, OUT_JSON, "writer",
	      "{\"ts\":10672.811968,\"cpu\":1,\"comm\":\"writer\",\"pid\":20465,"
	      "\"event\":\"syscalls:sys_enter_write\",\"fields\":{\"__syscall_nr\":1,\"fd\":4,"
	      "\"buf\":\"0x559d0069f0a0\",\"count\":1}}\n");
	/* The largest values each slot can hold; ts 0; CPU above 99. */
	rec_init(&r, "syscalls", "sys_enter_write", 2147483647, 123, 0);
	set_num(&r, "__syscall_nr", 0x80000000u);
	set_num(&r, "fd", UINT32_MAX);
	set_num(&r, "buf", UINT64_MAX);
	set_num(&r, "count", UINT64_MAX);
	check(&r, OUT_TEXT, "a-sixteen-bytes!",
	      "a-sixteen-bytes!-2147483647 [123] 0.000000: sys_enter_write: __syscall_nr=-2147483648 "
	      "fd=4294967295 buf=0xffffffffffffffff count=18446744073709551615\n");
	check(&r, OUT_JSON, "a\"b\\c\td\x01\x7f",
	      "{\"ts\":0.000000,\"cpu\":123,\"comm\":\"a\\\"b\\\\c\\td\\u0001\\u007f\",\"pid\":2147483647,"
	      "\"event\":\"syscalls:sys_enter_write\",\"fields\":{\"__syscall_nr\":-2147483648,"
	      "\"fd\":4294967295,\"buf\":\"0xffffffffffffffff\",\"count\":18446744073709551615}}\n");
	/* Timestamps: microseconds (truncated) with leading zeros. */
	rec_init(&r, "syscalls", "sys_enter_write", 1, 0, 18446744073709551615ull);
	check(&r, OUT_TEXT, "x",
	      "               x-1 [000] 18446744073.709551: sys_enter_write: __syscall_nr=0 fd=0 "
	      "buf=0x0 count=0\n");
	rec_init(&r, "syscalls", "sys_enter_write", 1, 10, 5000999ull);
	check(&r, OUT_TEXT, "x",
	      "               x-1 [010] 0.005000: sys_enter_write: __syscall_nr=0 fd=0 buf=0x0 "
	      "count=0\n");
}

static void test_openat(void **state)
{
	struct rec r;

	rec_init(&r, "syscalls", "sys_enter_openat", 7, 3, 1000000000ull);
	set_num(&r, "__syscall_nr", 257);
	set_num(&r, "dfd", (uint64_t)-100);	/* AT_FDCWD, sign-extended by the kernel */
	set_num(&r, "filename", 0x7ffd12345678ull);
	set_num(&r, "flags", 0x80241);
	set_num(&r, "mode", 0644);
	check(&r, OUT_TEXT, "<...>",
	      "           <...>-7 [003] 1.000000: sys_enter_openat: __syscall_nr=257 dfd=-100 "
	      "filename=0x7ffd12345678 flags=524865 mode=420\n");
	check(&r, OUT_JSON, "<...>",
	      "{\"ts\":1.000000,\"cpu\":3,\"comm\":\"<...>\",\"pid\":7,\"event\":"
	      "\"syscalls:sys_enter_openat\",\"fields\":{\"__syscall_nr\":257,\"dfd\":-100,"
	      "\"filename\":\"0x7ffd12345678\",\"flags\":524865,\"mode\":420}}\n");
}

static void test_sched_switch(void **state)
{
	struct rec r;

	rec_init(&r, "sched", "sched_switch", 0, 1, 123456789012ull);
	set_str(&r, "prev_comm", "swapper/1");
	set_num(&r, "prev_pid", 0);
	set_num(&r, "prev_prio", 120);
	set_num(&r, "prev_state", (uint64_t)-1);
	set_str(&r, "next_comm", "0123456789abcdef");	/* 16 bytes, no NUL */
	set_num(&r, "next_pid", (uint32_t)-5);
	set_num(&r, "next_prio", (uint32_t)-1);
	check(&r, OUT_TEXT, "<idle>",
	      "          <idle>-0 [001] 123.456789: sched_switch: prev_comm=swapper/1 prev_pid=0 "
	      "prev_prio=120 prev_state=-1 next_comm=0123456789abcdef next_pid=-5 next_prio=-1\n");
	check(&r, OUT_JSON, "<idle>",
	      "{\"ts\":123.456789,\"cpu\":1,\"comm\":\"<idle>\",\"pid\":0,\"event\":"
	      "\"sched:sched_switch\",\"fields\":{\"prev_comm\":\"swapper/1\",\"prev_pid\":0,"
	      "\"prev_prio\":120,\"prev_state\":-1,\"next_comm\":\"0123456789abcdef\","
	      "\"next_pid\":-5,\"next_prio\":-1}}\n");
}

/* A __data_loc cpumask (neither a string nor an array to libtraceevent):
 * the CPUs whose bits are set, as a list. */
static void test_cpumask(void **state)
{
	static const unsigned char mask[8] = { 0x05, 0, 0, 0, 0, 0, 0, 0x80 };
	struct rec r;

	rec_init(&r, "ipi", "ipi_send_cpumask", 12, 0, 1ull);
	set_dyn(&r, "cpumask", mask, sizeof(mask), false);
	set_num(&r, "callsite", 0xffffffff81000000ull);
	set_num(&r, "callback", 0);
	check(&r, OUT_TEXT, "kworker/0:1",
	      "     kworker/0:1-12 [000] 0.000000: ipi_send_cpumask: cpumask={0,2,63} "
	      "callsite=0xffffffff81000000 callback=0x0\n");
	check(&r, OUT_JSON, "kworker/0:1",
	      "{\"ts\":0.000000,\"cpu\":0,\"comm\":\"kworker/0:1\",\"pid\":12,\"event\":"
	      "\"ipi:ipi_send_cpumask\",\"fields\":{\"cpumask\":[0,2,63],"
	      "\"callsite\":\"0xffffffff81000000\",\"callback\":\"0x0\"}}\n");
}

static void types_rec(struct rec *r, const char *name)
{
	static const unsigned char blob[3] = { 'b', 'l', 0xff };

	rec_init(r, "ftrtest", "types", 99, 2, 42000ull);
	set_num(r, "s8v", (uint8_t)-128);
	set_num(r, "u8v", 255);
	set_num(r, "s16v", (uint16_t)-32768);
	set_num(r, "u32v", UINT32_MAX);
	set_num(r, "cpu", (uint32_t)-1);
	set_num(r, "arr", 0xffffffff00000001ull);
	set_str(r, "small", "ab\"c");
	set_num(r, "kptr", 0xdeadbeefull);
	set_num(r, "odd", 0x7a7978);
	set_num(r, "weird", 0x0a0b0c);
	set_dyn(r, "name", name, strlen(name) + 1, true);
	set_dyn(r, "blob", blob, sizeof(blob), false);
}

static void test_types(void **state)
{
	struct rec r;

	types_rec(&r, "q\"b\\s\n\x1f");
	check(&r, OUT_TEXT, "t",
	      "               t-99 [002] 0.000042: types: s8v=-128 u8v=255 s16v=-32768 "
	      "u32v=4294967295 name=q\"b\\s\\x0a\\x1f cpu=-1 arr={1,4294967295} small=ab\"c "
	      "blob={98,108,255} kptr=0xdeadbeef odd={120,121,122} weird={12,11,10}\n");
	/* a comm with an escape sequence: shown, not obeyed */
	check(&r, OUT_TEXT, "t\x1b[7m",
	      "        t\\x1b[7m-99 [002] 0.000042: types: s8v=-128 u8v=255 s16v=-32768 "
	      "u32v=4294967295 name=q\"b\\s\\x0a\\x1f cpu=-1 arr={1,4294967295} small=ab\"c "
	      "blob={98,108,255} kptr=0xdeadbeef odd={120,121,122} weird={12,11,10}\n");
	check(&r, OUT_JSON, "t",
	      "{\"ts\":0.000042,\"cpu\":2,\"comm\":\"t\",\"pid\":99,\"event\":\"ftrtest:types\","
	      "\"fields\":{\"s8v\":-128,\"u8v\":255,\"s16v\":-32768,\"u32v\":4294967295,"
	      "\"name\":\"q\\\"b\\\\s\\n\\u001f\",\"cpu\":-1,\"arr\":[1,4294967295],"
	      "\"small\":\"ab\\\"c\",\"blob\":[98,108,255],\"kptr\":\"0xdeadbeef\","
	      "\"odd\":[120,121,122],\"weird\":[12,11,10]}}\n");
	/* Strings and bytes whose location points past the record print
	 * empty. */
	r.r.size = 56;
	check(&r, OUT_TEXT, "t",
	      "               t-99 [002] 0.000042: types: s8v=-128 u8v=255 s16v=-32768 "
	      "u32v=4294967295 name= cpu=-1 arr={1,4294967295} small=ab\"c blob={} "
	      "kptr=0xdeadbeef odd={120,121,122} weird={12,11,10}\n");
}

static void test_fields(void **state)
{
	char *only[] = { "count", "nosuch", "fd", "common_pid" };
	struct rec r;
	char *got;

	write_rec(&r);
	got = render(&r, OUT_TEXT, only, 4, "writer");
	assert_string_equal(got, "          writer-20465 [001] 10672.811968: sys_enter_write: count=1 "
				 "fd=4 common_pid=20465\n");
	free(got);
	got = render(&r, OUT_JSON, only, 4, "writer");
	assert_string_equal(got, "{\"ts\":10672.811968,\"cpu\":1,\"comm\":\"writer\",\"pid\":20465,"
				 "\"event\":\"syscalls:sys_enter_write\",\"fields\":{\"count\":1,"
				 "\"fd\":4,\"common_pid\":20465}}\n");
	free(got);
	got = render(&r, OUT_TEXT, only + 1, 1, "writer");
	assert_string_equal(got, "          writer-20465 [001] 10672.811968: sys_enter_write:\n");
	free(got);
}

/* Events of varied lengths, enough to fill the buffer many times: the
 * stream of bytes is the events one after the other, whatever the flush
 * points. */
static void test_flush_boundaries(void **state)
{
	static struct outbuf ob;
	static char name[3000];
	struct rec r;
	struct evfmt f;
	size_t wlen = 0;
	char *want = NULL, *got;
	FILE *w = open_memstream(&want, &wlen);
	int fd = memfd_create("out", 0);

	assert_non_null(w);
	assert_true(fd >= 0);
	ob_init(&ob, fd);
	for (int i = 0; i < 2000; i++) {
		enum out_mode mode = i % 3 ? OUT_TEXT : OUT_JSON;
		char *one;

		/* Names of 0 to 2999 bytes, every one escaped in JSON. */
		memset(name, i % 2 ? '"' : 'n', sizeof(name));
		name[(i * 7919) % sizeof(name)] = '\0';
		types_rec(&r, name);
		one = render(&r, mode, NULL, 0, "t");
		fputs(one, w);
		free(one);
		assert_int_equal(evfmt_init(&f, r.ev, NULL, 0), 0);
		evfmt_print(&ob, mode, &f, &r.r, "t", 99);
		evfmt_free(&f);
	}
	fclose(w);
	assert_int_equal(ob_flush(&ob), 0);
	got = fd_text(fd);
	close(fd);
	assert_int_equal(strlen(got), wlen);
	assert_true(memcmp(got, want, wlen) == 0);
	free(got);
	free(want);
}

/*
 * A line copies the task part and the seconds of the line before when they
 * are the same: a run of events that changes one thing at a time (pid, CPU,
 * comm, the comm's text under the same pointer as after an exec, second,
 * mode) through one outbuf must give the bytes of each event printed alone.
 */
static void test_line_reuse(void **state)
{
	static struct outbuf ob;
	static const struct { int pid, cpu; const char *comm; unsigned long long ts; int json; }
	ev[] = {
		{ 100, 1, "bash", 5999999000ull, 0 },
		{ 100, 1, "bash", 5999999500ull, 0 },	/* all the same */
		{ 100, 1, "bash", 6000000000ull, 0 },	/* next second */
		{ 101, 1, "bash", 6000000100ull, 0 },	/* pid */
		{ 101, 0, "bash", 6000000200ull, 0 },	/* CPU */
		{ 101, 0, "bash!", 6000000300ull, 0 },	/* comm's text, same pointer */
		{ 101, 0, "bash!", 6000000400ull, 1 },	/* mode */
		{ 101, 0, "bash!", 6000000500ull, 1 },
		{ 101, 0, "bash", 7000000000ull, 1 },	/* comm back, next second */
		{ 101, 0, "bash", 7000000100ull, 0 },
		{ 0, 0, "<idle>", 7000000200ull, 0 },
		{ 2147483647, 123, "a-sixteen-bytes!", 10000000000ull, 0 },
		{ 2147483647, 123, "a-sixteen-bytes!", 10000000001ull, 1 },
	};
	char comm[17];
	size_t wlen = 0;
	char *want = NULL, *got;
	FILE *w = open_memstream(&want, &wlen);
	int fd = memfd_create("out", 0);
	struct rec r;
	struct evfmt f;

	assert_non_null(w);
	assert_true(fd >= 0);
	ob_init(&ob, fd);
	for (size_t i = 0; i < ARRAY_SIZE(ev); i++) {
		enum out_mode mode = ev[i].json ? OUT_JSON : OUT_TEXT;
		char *one;

		/* One buffer for every comm, rewritten in place. */
		snprintf(comm, sizeof(comm), "%s", ev[i].comm);
		write_rec(&r);
		memcpy(r.data + 4, &ev[i].pid, 4);
		r.r.cpu = ev[i].cpu;
		r.r.ts = ev[i].ts;
		one = render(&r, mode, NULL, 0, comm);
		fputs(one, w);
		free(one);
		assert_int_equal(evfmt_init(&f, r.ev, NULL, 0), 0);
		evfmt_print(&ob, mode, &f, &r.r, comm, ev[i].pid);
		evfmt_free(&f);
	}
	fclose(w);
	assert_int_equal(ob_flush(&ob), 0);
	got = fd_text(fd);
	close(fd);
	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s---\n", want, got);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

/* A string longer than the buffer escapes whole, in pieces. */
static void test_long_json_string(void **state)
{
	static struct outbuf ob;
	static char s[100000];
	int fd = memfd_create("out", 0);
	char *got;

	assert_true(fd >= 0);
	memset(s, '"', sizeof(s));
	s[sizeof(s) - 1] = '\x01';
	ob_init(&ob, fd);
	ob_json_str(&ob, s, sizeof(s));
	assert_int_equal(ob_flush(&ob), 0);
	got = fd_text(fd);
	close(fd);
	assert_int_equal(strlen(got), 2 + 2 * (sizeof(s) - 1) + 6);
	assert_true(got[0] == '"' && !strncmp(got + 1, "\\\"\\\"", 4));
	assert_string_equal(got + strlen(got) - 9, "\\\"\\u0001\"");
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_openat),
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_cpumask),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_flush_boundaries),
		cmocka_unit_test(test_line_reuse),
		cmocka_unit_test(test_long_json_string),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
