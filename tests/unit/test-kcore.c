// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for kcore.c on files made here: an ELF64 core whose PT_LOAD
 * headers map kernel addresses to file offsets, as /proc/kcore does, and
 * a kallsyms extract with variables (what kaddr() reads).
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

#include "kernel/kallsyms.h"
#include "kernel/kcore.h"

#define TEXT 0xffffffff81000000ull
#define DATA 0xffffffff82000000ull

/* Two segments: 4 KB of text at TEXT (bytes i & 0xff), 16 bytes of data
 * at DATA ("Linux ve", then 1..8). */
static void make_core(const char *path)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[3] = { { 0 } };
	unsigned char text[4096], data[16] = "Linux ve";
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_type = ET_CORE;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 3;
	ph[0].p_type = PT_NOTE;
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = TEXT, .p_offset = 0x1000,
			      .p_filesz = sizeof(text) };
	ph[2] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_vaddr = DATA, .p_offset = 0x3000,
			      .p_filesz = sizeof(data) };
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = (unsigned char)i;
	for (int i = 8; i < 16; i++)
		data[i] = (unsigned char)(i - 7);
	fwrite(&eh, sizeof(eh), 1, f);
	fwrite(ph, sizeof(ph), 1, f);
	fseek(f, 0x1000, SEEK_SET);
	fwrite(text, sizeof(text), 1, f);
	fseek(f, 0x3000, SEEK_SET);
	fwrite(data, sizeof(data), 1, f);
	fclose(f);
}

static void test_kcore_read(void **state)
{
	char path[] = "/tmp/ftr-test-kcore.XXXXXX", why[256];
	struct kcore *k;
	uint64_t v;
	unsigned char b[4];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* bad input first: not ELF, then missing */
	assert_int_equal(kcore_open(path, &k, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not a 64-bit ELF core file"));
	make_core(path);
	assert_int_equal(kcore_open("/nonexistent/kcore", &k, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "CONFIG_PROC_KCORE"));

	assert_int_equal(kcore_open(path, &k, why, sizeof(why)), 0);
	assert_int_equal(kcore_read(k, DATA, &v, 8), 0);
	assert_int_equal(v, 0x65762078756e694cull);	/* "Linux ve", little-endian */
	assert_int_equal(kcore_read(k, DATA + 8, &v, 8), 0);
	assert_int_equal(v, 0x0807060504030201ull);
	assert_int_equal(kcore_read(k, TEXT + 0x102, b, 4), 0);
	assert_int_equal(b[0], 2);
	assert_int_equal(b[3], 5);
	/* outside every segment, or across a segment's end */
	assert_int_equal(kcore_read(k, DATA + 9, &v, 8), -EFAULT);
	assert_int_equal(kcore_read(k, TEXT - 8, &v, 8), -EFAULT);
	assert_int_equal(kcore_read(k, 0x1000, &v, 8), -EFAULT);
	kcore_close(k);
	unlink(path);
}

static int lookup(const char *path, const char *name, uint64_t *a)
{
	struct kallsyms *k;
	int r = kallsyms_load(path, &k);

	if (r)
		return r;
	r = kallsyms_lookup(k, name, a);
	kallsyms_free(k);
	return r;
}

static void test_kallsyms(void **state)
{
	char path[] = "/tmp/ftr-test-kallsyms.XXXXXX";
	int fd = mkstemp(path);
	uint64_t a = 0;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("ffffffff81000000 T _text\n"
	      "ffffffff82000000 R linux_banner\n"
	      "ffffffff82001000 B avenrun\n"
	      "ffffffff82002000 b avenrun_x\n"
	      "ffffffff81001000 t dup\n"
	      "ffffffff81000800 t dup\n"
	      "ffffffff81003000 t eprobe_register\n"
	      "ffffffffc0001000 d modvar\t[mod]\n", f);
	fclose(f);
	assert_int_equal(lookup(path, "avenrun", &a), 0);
	assert_int_equal(a, 0xffffffff82001000ull);
	assert_int_equal(lookup(path, "linux_banner", &a), 0);
	assert_int_equal(a, 0xffffffff82000000ull);
	assert_int_equal(lookup(path, "modvar", &a), 0);
	assert_int_equal(a, 0xffffffffc0001000ull);
	assert_int_equal(lookup(path, "avenru", &a), -ENOENT);
	assert_int_equal(lookup(path, "nosuch", &a), -ENOENT);
	assert_int_equal(lookup(path, "zzz", &a), -ENOENT);
	/* several of one name: the first in the file */
	assert_int_equal(lookup(path, "dup", &a), 0);
	assert_int_equal(a, 0xffffffff81001000ull);
	/* a prefix */
	assert_int_equal(lookup(path, "eprobe_*", &a), 0);
	assert_int_equal(a, 0xffffffff81003000ull);
	assert_int_equal(lookup(path, "avenrun_y*", &a), -ENOENT);
	assert_int_equal(lookup(path, "avenrun*", &a), 0);
	assert_int_equal(a, 0xffffffff82001000ull);
	assert_int_equal(lookup(path, "trace_eprobe*", &a), -ENOENT);
	/* except an address: the first of the others */
	{
		struct kallsyms *k;

		assert_int_equal(kallsyms_load(path, &k), 0);
		assert_int_equal(kallsyms_lookup_except(k, "dup", 0xffffffff81001000ull, &a), 0);
		assert_int_equal(a, 0xffffffff81000800ull);
		assert_int_equal(kallsyms_lookup_except(k, "eprobe_*", 0xffffffff81003000ull, &a),
				 -ENOENT);
		assert_int_equal(kallsyms_lookup_except(k, "avenrun*", 0, &a), 0);
		assert_int_equal(a, 0xffffffff82001000ull);
		kallsyms_free(k);
	}
	/* kptr_restrict: every address reads as 0 */
	f = fopen(path, "w");
	fputs("0000000000000000 B avenrun\n", f);
	fclose(f);
	assert_int_equal(lookup(path, "avenrun", &a), -EPERM);
	unlink(path);
	assert_int_equal(lookup(path, "avenrun", &a), -ENOENT);
}

/* /sys/devices/system/cpu/possible's lists (curtask reads one slot per CPU). */
static void test_cpu_list(void **state)
{
	int c[8];

	(void)state;
	assert_int_equal(kallsyms_cpu_list("0-1\n", c, 8), 2);
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 1);
	assert_int_equal(kallsyms_cpu_list("0\n", c, 8), 1);
	assert_int_equal(kallsyms_cpu_list("0-2,5,7-8\n", c, 8), 6);
	assert_int_equal(c[3], 5);
	assert_int_equal(c[5], 8);
	assert_int_equal(kallsyms_cpu_list("0-8\n", c, 8), -E2BIG);
	assert_int_equal(kallsyms_cpu_list("", c, 8), -EINVAL);
	assert_int_equal(kallsyms_cpu_list("3-1", c, 8), -EINVAL);
	assert_int_equal(kallsyms_cpu_list("0,x", c, 8), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcore_read),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_cpu_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
