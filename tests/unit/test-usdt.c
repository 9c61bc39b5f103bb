// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for usdt.c: operand strings into uprobe fetchargs (bad input
 * first), and the notes of tests/helpers/usdt.c compiled at test time with
 * $CC (default cc) and <sys/sdt.h>.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ftr.h"
#include "report/usdt.h"

/* The probe is at 0x401234; "counter" is 0x4000 bytes past it. */
#define PC 0x401234
static int fake_sym(const char *name, void *ctx, uint64_t *value)
{
	(void)ctx;
	*value = PC + 0x4000;
	return !strcmp(name, "counter") ? 0 : -1;
}

static int op(const char *s, int machine, char *out)
{
	char why[128];

	return usdt_operand(s, machine, PC, fake_sym, NULL, out, 80, why, sizeof(why));
}

static void test_bad_operands(void **state)
{
	char out[80];

	(void)state;
	assert_int_equal(op("3@%rax", EM_X86_64, out), -EINVAL);	/* size */
	assert_int_equal(op("x@%rax", EM_X86_64, out), -EINVAL);
	assert_int_equal(op("8@%xmm0", EM_X86_64, out), -ENOTSUP);
	assert_int_equal(op("8@8(%rax,%rbx,4)", EM_X86_64, out), -ENOTSUP);
	assert_int_equal(op("8@nosuch(%rip)", EM_X86_64, out), -ENOTSUP);
	assert_int_equal(op("8@0x1234", EM_X86_64, out), -ENOTSUP);
	assert_int_equal(op("-8@[x21, #:lo12:.LANCHOR1]", EM_AARCH64, out), -ENOTSUP);
	assert_int_equal(op("-8@[x21, #:lo12:nosuch]", EM_AARCH64, out), -ENOTSUP);
	assert_int_equal(op("-8@[x21, #:lo12:counter", EM_AARCH64, out), -ENOTSUP);
	assert_int_equal(op("8@x31", EM_AARCH64, out), -ENOTSUP);
	assert_int_equal(op("8@%r0", 40 /* EM_ARM */, out), -ENOTSUP);
}

static void test_x86_operands(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "-4@%eax", "%ax:s32" }, { "8@%rdi", "%di:u64" }, { "-8@%r14", "%r14:s64" },
		{ "1@%sil", "%si:u8" }, { "-2@%r9w", "%r9:s16" }, { "-4@$42", "\\42:s32" },
		{ "-4@$-1", "\\-1:s32" }, { "-4@-20(%rbp)", "-20(%bp):s32" },
		{ "8@16(%rsp)", "+16(%sp):u64" }, { "8@(%rax)", "+0(%ax):u64" },
		{ "-8@counter(%rip)", "+16384(%ip):s64" }, { "4@counter+8(%rip)", "+16392(%ip):u32" },
		{ "4@counter-16384(%rip)", "+0(%ip):u32" },
		{ "%rdx", "%dx:u64" },	/* no size: before sdt.h version 3 */
	};
	char out[80];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(op(t[i].in, EM_X86_64, out), 0);
		assert_string_equal(out, t[i].out);
	}
}

static void test_arm64_operands(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "-8@x0", "%x0:s64" }, { "-4@w3", "%x3:s32" }, { "8@sp", "%sp:u64" },
		{ "-4@42", "\\42:s32" }, { "4@#7", "\\7:u32" }, { "-8@[sp, 16]", "+16(%sp):s64" },
		{ "-4@[x29, -8]", "-8(%x29):s32" }, { "8@[x1]", "+0(%x1):u64" },
		{ "8@[x2, #24]", "+24(%x2):u64" },
		/* adrp x21, counter; 0x405234 & 0xfff */
		{ "-8@[x21, #:lo12:counter]", "+564(%x21):s64" },
		{ "4@[x21, #:lo12:counter+8]", "+572(%x21):u32" },
	};
	char out[80];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(op(t[i].in, EM_AARCH64, out), 0);
		assert_string_equal(out, t[i].out);
	}
}

/* 32-bit ARM, as its usdt helper's notes write them (armhf, -marm) */
static void test_arm_operands(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "-4@r0", "%r0:s32" }, { "4@r9", "%r9:u32" }, { "-4@#42", "\\42:s32" },
		{ "4@sl", "%r10:u32" }, { "-4@[fp, #-12]", "-12(%fp):s32" }, { "4@[r3]", "+0(%r3):u32" },
		{ "-4@[sp, #8]", "+8(%sp):s32" },
	};
	char out[80];

	(void)state;
	assert_int_equal(op("-4@r11x", EM_ARM, out), -ENOTSUP);
	assert_int_equal(op("-4@x0", EM_ARM, out), -ENOTSUP);
	assert_int_equal(op("-4@[r16]", EM_ARM, out), -ENOTSUP);
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		assert_int_equal(op(t[i].in, EM_ARM, out), 0);
		assert_string_equal(out, t[i].out);
	}
}

static void test_notes(void **state)
{
	char bin[] = "/tmp/ftr-usdt-XXXXXX", cmd[512], why[256];
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	struct usdt_probe *u;
	size_t n;
	int fd = mkstemp(bin);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(usdt_read("/nonexistent/x", &u, &n, why, sizeof(why)), -ENOENT);
	assert_int_equal(usdt_read("/dev/null", &u, &n, why, sizeof(why)), -ENOEXEC);
	snprintf(cmd, sizeof(cmd), "%s -O2 -o %s tests/helpers/usdt.c", cc, bin);
	if (system(cmd) != 0) {
		unlink(bin);
		skip();		/* no compiler or no <sys/sdt.h> (systemtap-sdt-dev) */
	}
	assert_int_equal(usdt_read(bin, &u, &n, why, sizeof(why)), 0);
	unlink(bin);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(u[i].provider, "ftr");
		assert_true(u[i].pc_off > 0);
		assert_true(u[i].sem_off > 0);	/* every probe has one (usdt.c) */
		for (int a = 0; a < u[i].nargs; a++)
			assert_true(u[i].fetch[a][0] != '\0');
		if (!strcmp(u[i].name, "tick")) {
			assert_int_equal(u[i].nargs, 4);
			assert_string_equal(u[i].fetch[3], "\\42:s32");
		} else if (!strcmp(u[i].name, "mem")) {
			assert_int_equal(u[i].nargs, 2);
			assert_non_null(strstr(u[i].fetch[0], "(%ip):s64"));
		} else {
			assert_string_equal(u[i].name, "gated");
			assert_int_equal(u[i].nargs, 1);
		}
	}
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_operands),
		cmocka_unit_test(test_x86_operands),
		cmocka_unit_test(test_arm64_operands),
		cmocka_unit_test(test_arm_operands),
		cmocka_unit_test(test_notes),
	};

	return cmocka_run_group_tests_name("usdt", tests, NULL, NULL);
}
