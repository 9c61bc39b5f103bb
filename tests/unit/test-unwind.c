// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the pure parts of call-chain unwinding and its outputs:
 * unwind_splice (auto mode: the CFI walk continued by the frame-pointer
 * chain), perf_sample_parse_regs (registers and a stack copy in a sample
 * record), and pprof.c's profile.proto (decoded back field by field, and
 * its gzip inflated by zlib).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "perf/perf.h"
#include "perf/unwind.h"
#include "report/pprof.h"

/* ---- unwind_splice ------------------------------------------------------------ */

static void test_splice_complete(void **state)
{
	const uint64_t dw[] = { 0x10, 0x20, 0x30 }, fp[] = { 0x10, 0x30, 0x99 };
	struct unwind_result r = { .n = 3, .end = UNWIND_END_OK };
	uint64_t out[8];

	/* A walk that reached the outermost frame is taken as it is. */
	assert_int_equal(unwind_splice(dw, &r, fp, 3, out, 8), 3);
	assert_memory_equal(out, dw, sizeof(dw));
	r.end = UNWIND_END_MAX;
	assert_int_equal(unwind_splice(dw, &r, fp, 3, out, 2), 2);
}

static void test_splice_stack_end(void **state)
{
	/* A frameless leaf (0x10) called from mid (0x20) called from deep
	 * recursion (0x30 twice in the copy, then beyond it): the FP walk
	 * skipped 0x20 and found one return address in the copy. */
	const uint64_t dw[] = { 0x10, 0x20, 0x30, 0x30 };
	const uint64_t fp[] = { 0x10, 0x30, 0x30, 0x30, 0x40 };
	struct unwind_result r = { .n = 4, .end = UNWIND_END_STACK, .fp_in_copy = 2 };
	const uint64_t want[] = { 0x10, 0x20, 0x30, 0x30, 0x30, 0x40 };
	uint64_t out[8];

	assert_int_equal(unwind_splice(dw, &r, fp, 5, out, 8), 6);
	assert_memory_equal(out, want, sizeof(want));
	/* Bounded by max. */
	assert_int_equal(unwind_splice(dw, &r, fp, 5, out, 5), 5);
}

static void test_splice_by_address(void **state)
{
	/* Stopped in code without CFI at 0x30: the FP chain goes on after
	 * the same address. */
	const uint64_t dw[] = { 0x10, 0x20, 0x30 }, fp[] = { 0x10, 0x30, 0x40, 0x50 };
	const uint64_t want[] = { 0x10, 0x20, 0x30, 0x40, 0x50 };
	struct unwind_result r = { .n = 3, .end = UNWIND_END_NOCFI };
	uint64_t out[8];

	assert_int_equal(unwind_splice(dw, &r, fp, 4, out, 8), 5);
	assert_memory_equal(out, want, sizeof(want));
	/* Nothing in common: the CFI frames alone. */
	const uint64_t other[] = { 0x77, 0x88 };

	assert_int_equal(unwind_splice(dw, &r, other, 2, out, 8), 3);
	assert_memory_equal(out, dw, sizeof(dw));
}

/* ---- perf_sample_parse_regs ----------------------------------------------------- */

static void test_parse_regs_stack(void **state)
{
	uint64_t rec[64] = { 0 };
	struct perf_event_header *h = (void *)rec;
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER |
			    PERF_SAMPLE_STACK_USER;
	struct perf_sample s;
	size_t i = 1;

	rec[i++] = 0x401000;			/* ip */
	rec[i++] = 7ull << 32 | 7;		/* pid, tid */
	rec[i++] = PERF_SAMPLE_REGS_ABI_64;	/* abi */
	rec[i++] = 0xaaa;			/* reg 0 */
	rec[i++] = 0xbbb;			/* reg 3 */
	rec[i++] = 16;				/* stack size */
	rec[i++] = 0x1111;
	rec[i++] = 0x2222;
	rec[i++] = 8;				/* dyn_size */
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)(i * 8);
	assert_int_equal(perf_sample_parse_regs(h, st, 1 | 1 << 3, &s), 0);
	assert_int_equal(s.ip, 0x401000);
	assert_int_equal(s.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(s.regs[1], 0xbbb);
	assert_int_equal(s.stack_len, 8);
	assert_int_equal(((const uint64_t *)s.stack)[0], 0x1111);
	/* The plain parser refuses what it cannot size. */
	assert_int_equal(perf_sample_parse(h, st, &s), -EINVAL);
	/* Short: the stack copy runs past the record. */
	h->size = (uint16_t)(7 * 8);
	assert_int_equal(perf_sample_parse_regs(h, st, 1 | 1 << 3, &s), -EINVAL);
	/* No user registers (a kernel thread): abi 0 and nothing after it. */
	h->size = (uint16_t)(i * 8);
	rec[3] = 0;
	rec[4] = 0;	/* the stack size, now right after abi */
	h->size = 5 * 8;
	assert_int_equal(perf_sample_parse_regs(h, st, 1 | 1 << 3, &s), 0);
	assert_null(s.regs);
	assert_null(s.stack);
}

/* ---- pprof ---------------------------------------------------------------------- */

struct pb {
	const unsigned char *p, *end;
};

static uint64_t pb_varint(struct pb *b)
{
	uint64_t v = 0;

	for (int sh = 0; b->p < b->end; sh += 7) {
		unsigned char c = *b->p++;

		v |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("truncated varint");
	return 0;
}

/* The next field: its number, and its value (varint) or bytes. */
static unsigned pb_field(struct pb *b, uint64_t *v, struct pb *sub)
{
	uint64_t key = pb_varint(b);

	if ((key & 7) == 0) {
		*v = pb_varint(b);
	} else {
		assert_int_equal(key & 7, 2);
		*v = pb_varint(b);
		assert_true(*v <= (uint64_t)(b->end - b->p));
		sub->p = b->p;
		sub->end = b->p + *v;
		b->p += *v;
	}
	return (unsigned)(key >> 3);
}

/* gz, a whole gzip file, inflates (zlib) to exactly want's n bytes. */
static void gunzip_equal(const char *gz, size_t gzlen, const void *want, size_t n)
{
	unsigned char *back = malloc(n + 16);
	z_stream z = { 0 };

	assert_non_null(back);
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)gzlen;
	z.next_out = back;
	z.avail_out = (uInt)n + 16;
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	assert_int_equal(z.total_out, n);
	assert_int_equal(z.avail_in, 0);
	assert_memory_equal(back, want, n);
	inflateEnd(&z);
	free(back);
}

static void test_pprof_encode(void **state)
{
	struct pprof *pp = pprof_new(1001001);
	uint64_t m1, m2, l1, l2, l3, locs[3];
	unsigned char *raw;
	size_t len, nstr = 0, nsample = 0, nloc = 0, nfunc = 0, nmap = 0;
	const char *strs[32];
	size_t slen[32] = { 0 };
	uint64_t values[2] = { 0, 0 };

	assert_non_null(pp);
	m1 = pprof_mapping(pp, 0x1000, 0x2000, 0, "/bin/prog", "abcd");
	m2 = pprof_mapping(pp, 0x7000, 0x8000, 0x1000, "/lib/libc.so.6", NULL);
	assert_int_equal(m1, 1);
	assert_int_equal(m2, 2);
	/* Deduplicated by start and file. */
	assert_int_equal(pprof_mapping(pp, 0x1000, 0x2000, 0, "/bin/prog", "abcd"), 1);
	l1 = pprof_location(pp, m1, 0x1010, "leaf", "/bin/prog");
	l2 = pprof_location(pp, m1, 0x1100, "main", "/bin/prog");
	l3 = pprof_location(pp, m2, 0x7010, "memcpy", "/lib/libc.so.6");
	assert_int_equal(pprof_location(pp, m1, 0x1010, "leaf", "/bin/prog"), l1);
	locs[0] = l1;
	locs[1] = l2;
	assert_int_equal(pprof_sample(pp, locs, 2, 300, "prog"), 0);
	locs[0] = l3;
	assert_int_equal(pprof_sample(pp, locs, 2, 1, "prog"), 0);
	raw = pprof_encode(pp, 5, 7, &len);
	assert_non_null(raw);

	struct pb b = { raw, raw + len }, sub;
	uint64_t v;

	while (b.p < b.end) {
		switch (pb_field(&b, &v, &sub)) {
		case 2: {	/* Sample */
			struct pb s2;

			nsample++;
			while (sub.p < sub.end) {
				unsigned f = pb_field(&sub, &v, &s2);

				if (f == 2 && nsample == 1) {	/* packed values */
					values[0] = pb_varint(&s2);
					values[1] = pb_varint(&s2);
				}
			}
			break;
		}
		case 3:
			nmap++;
			break;
		case 4:
			nloc++;
			break;
		case 5:
			nfunc++;
			break;
		case 6:
			assert_true(nstr < 32);
			strs[nstr] = (const char *)sub.p;
			slen[nstr++] = (size_t)(sub.end - sub.p);
			break;
		case 12:
			assert_int_equal(v, 1001001);
			break;
		default:
			break;
		}
	}
	assert_int_equal(nsample, 2);
	assert_int_equal(nmap, 2);
	assert_int_equal(nloc, 3);
	assert_int_equal(nfunc, 3);
	/* 300 samples: the varint 0xac 0x02; cpu = count x period. */
	assert_int_equal(values[0], 300);
	assert_int_equal(values[1], 300ull * 1001001);
	/* The string table starts with "" and holds every name once. */
	assert_true(nstr > 5);
	assert_int_equal(slen[0], 0);
	size_t leaf = 0;

	for (size_t i = 0; i < nstr; i++)
		leaf += slen[i] == 4 && !memcmp(strs[i], "leaf", 4);
	assert_int_equal(leaf, 1);

	/* The file: gzip of the same bytes. */
	char *gz = NULL;
	size_t gzlen = 0;
	FILE *m = open_memstream(&gz, &gzlen);

	assert_non_null(m);
	assert_int_equal(pprof_write(pp, m, 5, 7), 0);
	fclose(m);
	assert_true(gzlen > 18 && (unsigned char)gz[0] == 0x1f && (unsigned char)gz[1] == 0x8b);
	gunzip_equal(gz, gzlen, raw, len);
	free(gz);
	free(raw);
	pprof_free(pp);
}

/* The static binary's gzip (stored blocks): zlib inflates it back to the
 * same bytes, across several 65535-byte blocks and for no bytes at all. */
static void test_pprof_gzip_stored(void **state)
{
	(void)state;
	static const size_t sizes[] = { 0, 1, 65535, 65536, 200000 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], gzlen = 0;
		unsigned char *data = malloc(n + 1);
		char *gz = NULL;
		FILE *m = open_memstream(&gz, &gzlen);

		assert_non_null(data);
		assert_non_null(m);
		for (size_t i = 0; i < n; i++)
			data[i] = (unsigned char)(i * 7 + (i >> 9));
		assert_int_equal(pprof_gzip_stored(m, data, n), 0);
		fclose(m);
		/* header 10, 5 a block, trailer 8 */
		assert_int_equal(gzlen, 18 + n + 5 * (n ? (n + 65534) / 65535 : 1));
		gunzip_equal(gz, gzlen, data, n);
		free(gz);
		free(data);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pprof_gzip_stored),
		cmocka_unit_test(test_splice_complete),
		cmocka_unit_test(test_splice_stack_end),
		cmocka_unit_test(test_splice_by_address),
		cmocka_unit_test(test_parse_regs_stack),
		cmocka_unit_test(test_pprof_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
