// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for sym.c: kallsyms extracts (modules, aliases, hidden
 * addresses), /proc/PID/maps lines, JIT maps, address spaces (overlaps,
 * fork, exec), user symbols through a real mapping of this very test
 * binary and of libc (PIE and shared-object load bias), a deleted file, and
 * the dpkg owner lookup.  Fixtures in tests/fixtures/sym/.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "ftr.h"
#include "report/elfsym.h"
#include "report/sym.h"

#define FIX "sym/"
#define FIXDIR FIXTURES "/sym/"

__attribute__((noinline, used)) int sym_test_marker(int x)
{
	return x * 3 + 1;
}

static char *fixture(const char *name)
{
	return fixture_text(NULL, "%s", name);
}

/* ---- kallsyms ------------------------------------------------------------------ */

/* This test program cut short: "truncated", not "stripped" (libelf finds
 * no section in it, which looked like a file without symbols). */
static void test_elf_truncated(void **state)
{
	char path[] = "/tmp/ftr-test-elf.XXXXXX", why[512] = "", *exe;
	struct elfsym *e = NULL;
	size_t len;
	int fd;

	exe = read_file("/proc/self/exe", &len);
	assert_non_null(exe);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, exe, len / 2), (ssize_t)(len / 2));
	close(fd);
	assert_int_equal(elfsym_open(path, &e, why, sizeof(why)), -ENOEXEC);
	assert_null(e);
	assert_non_null(strstr(why, "is truncated or corrupt"));
	/* whole, it opens */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, exe, len), (ssize_t)len);
	close(fd);
	assert_int_equal(elfsym_open(path, &e, why, sizeof(why)), 0);
	elfsym_close(e);
	unlink(path);
	free(exe);
}

static void test_ksyms_bad(void **state)
{
	struct ksyms *k = (void *)1;

	assert_int_equal(ksyms_parse("", &k), -EINVAL);
	assert_null(k);
	assert_int_equal(ksyms_parse("garbage\nmore garbage\n", &k), -EINVAL);
	assert_int_equal(ksyms_load("/nonexistent/kallsyms", &k), -ENOENT);
}

static void test_ksyms_hidden(void **state)
{
	char *t = fixture(FIX "kallsyms-hidden.txt");
	struct ksyms *k;

	/* kptr_restrict: every address is zero; parsed, empty, and says so. */
	assert_int_equal(ksyms_parse(t, &k), 0);
	assert_true(ksyms_hidden(k));
	assert_int_equal(ksyms_count(k), 0);
	assert_null(ksyms_at(k, 0xffffffff816b89f0ull, NULL, NULL));
	ksyms_free(k);
	free(t);
}

static void test_ksyms_lookup(void **state)
{
	char *t = fixture(FIX "kallsyms.txt");
	const char *mod = "x";
	struct ksyms *k;
	uint64_t off = 99;

	assert_int_equal(ksyms_parse(t, &k), 0);
	free(t);		/* the table keeps its own copy */
	assert_false(ksyms_hidden(k));
	/* Text only: the A, D, b and d lines are not functions. */
	assert_int_equal(ksyms_count(k), 19);
	assert_null(ksyms_at(k, 0xffffffff80000000ull, NULL, NULL));
	/* Two names at one address: the global T wins over the local t. */
	assert_string_equal(ksyms_at(k, 0xffffffff81000000ull, &off, &mod), "_stext");
	assert_int_equal(off, 0);
	assert_null(mod);
	assert_string_equal(ksyms_at(k, 0xffffffff816b89f0ull + 0x42, &off, NULL), "vfs_read");
	assert_int_equal(off, 0x42);
	assert_string_equal(ksyms_at(k, 0xffffffff816b96a5ull, &off, NULL), "ksys_read");
	assert_int_equal(off, 5);
	/* Far beyond the last kernel text symbol: not in it. */
	assert_null(ksyms_at(k, 0xffffffff82a00010ull, NULL, NULL));
	/* Modules. */
	assert_string_equal(ksyms_at(k, 0xffffffffc0a3e020ull, &off, &mod), "ext4_fill_super");
	assert_string_equal(mod, "ext4");
	assert_int_equal(off, 0x10);
	assert_string_equal(ksyms_at(k, 0xffffffffc0a3f300ull, NULL, &mod), "ext4_read_folio");
	assert_string_equal(ksyms_at(k, 0xffffffffc0b00010ull, NULL, &mod), "xfs_file_read_iter");
	assert_string_equal(mod, "xfs");
	assert_string_equal(ksyms_at(k, 0xffffffffc0b00400ull, NULL, &mod), "weak_thing");
	ksyms_free(k);
}

/* The way back from a name the kernel printed (a hist stack frame). */
static void test_ksyms_addr(void **state)
{
	char *t = fixture(FIX "kallsyms.txt");
	struct ksyms *k;
	uint64_t a = 0;

	assert_int_equal(ksyms_parse(t, &k), 0);
	free(t);
	assert_int_equal(ksyms_addr(k, "vfs_read", NULL, &a), 0);
	assert_int_equal(a, 0xffffffff816b89f0ull);
	assert_string_equal(ksyms_at(k, a, NULL, NULL), "vfs_read");
	assert_int_equal(ksyms_addr(k, "ext4_fill_super", "ext4", &a), 0);
	assert_string_equal(ksyms_at(k, a + 0x10, NULL, NULL), "ext4_fill_super");
	/* a module's function is not the kernel's, nor another module's */
	assert_int_equal(ksyms_addr(k, "ext4_fill_super", NULL, &a), -ENOENT);
	assert_int_equal(ksyms_addr(k, "ext4_fill_super", "xfs", &a), -ENOENT);
	assert_int_equal(ksyms_addr(k, "no_such_function", NULL, &a), -ENOENT);
	ksyms_free(k);
}

/* A resolver (a recording whose kallsyms a library holds): ksyms_load(NULL)
 * asks it, with the span limit of a table's lookups; unset, the table again. */
static const char *fake_resolve(uint64_t addr, uint64_t *start, void *arg)
{
	(void)arg;
	if (addr < 0xffffffff81000000ull)
		return NULL;
	*start = addr & ~0xfffull;
	return addr >= 0xffffffff82000000ull ? "far_away" : "vfs_write";
}

static void test_ksyms_resolver(void **state)
{
	struct ksyms *k;
	uint64_t a;
	char buf[64];

	ksyms_set_resolver(fake_resolve, NULL);
	assert_int_equal(ksyms_load(NULL, &k), 0);
	assert_false(ksyms_hidden(k));
	ksyms_format(k, 0xffffffff81000123ull, true, buf, sizeof(buf));
	assert_string_equal(buf, "vfs_write+0x123");
	ksyms_format(k, 0xffffffff81000123ull, false, buf, sizeof(buf));
	assert_string_equal(buf, "vfs_write");
	ksyms_format(k, 0x1000, false, buf, sizeof(buf));
	assert_string_equal(buf, "0x1000");
	assert_int_not_equal(ksyms_addr(k, "vfs_write", NULL, &a), 0);
	ksyms_free(k);
	ksyms_set_resolver(NULL, NULL);
	ksyms_set_source("ffffffff81000000 T other_fn\n");
	assert_int_equal(ksyms_load(NULL, &k), 0);
	ksyms_format(k, 0xffffffff81000010ull, false, buf, sizeof(buf));
	assert_string_equal(buf, "other_fn");
	ksyms_free(k);
	ksyms_set_source(NULL);
	(void)state;
}

/* What ksym() and ksymoff() keys show: the kernel's %ps and %pS renderings
 * without the size, " [module]" after a module's function. */
static void test_ksyms_format(void **state)
{
	char *t = fixture(FIX "kallsyms.txt"), buf[64];
	struct ksyms *k;

	assert_int_equal(ksyms_parse(t, &k), 0);
	free(t);
	assert_int_equal(ksyms_format(k, 0xffffffff816b89f0ull + 0x42, false, buf, sizeof(buf)), 8);
	assert_string_equal(buf, "vfs_read");
	ksyms_format(k, 0xffffffff816b89f0ull + 0x42, true, buf, sizeof(buf));
	assert_string_equal(buf, "vfs_read+0x42");
	ksyms_format(k, 0xffffffff816b9240ull, true, buf, sizeof(buf));
	assert_string_equal(buf, "vfs_write+0x0");
	ksyms_format(k, 0xffffffffc0a3e020ull, false, buf, sizeof(buf));
	assert_string_equal(buf, "ext4_fill_super [ext4]");
	ksyms_format(k, 0xffffffffc0a3e020ull, true, buf, sizeof(buf));
	assert_string_equal(buf, "ext4_fill_super+0x10 [ext4]");
	/* no function there, or no table: the address, as %ps prints it */
	ksyms_format(k, 0xffffffff82a00010ull, false, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff82a00010");
	ksyms_format(NULL, 0xffffffff816b89f0ull, true, buf, sizeof(buf));
	assert_string_equal(buf, "0xffffffff816b89f0");
	/* truncated like snprintf */
	assert_int_equal(ksyms_format(k, 0xffffffffc0a3e020ull, true, buf, 8), 27);
	assert_string_equal(buf, "ext4_fi");
	ksyms_free(k);
}

static void test_ksyms_real(void **state)
{
	struct ksyms *k;
	int err = ksyms_load(NULL, &k);

	if (err < 0)
		skip();
	/* Whatever this user may see, it parses: names, or hidden. */
	assert_true(ksyms_hidden(k) || ksyms_count(k) > 1000);
	ksyms_free(k);
}

/* ---- maps and JIT maps ------------------------------------------------------------ */

static void test_maps_bad(void **state)
{
	char l1[] = "", l2[] = "hello world", l3[] = "7f00-7e00 r-xp 00000000 00:00 0",
	     l4[] = "7f00-8000 r-xp zz 00:00 0 /x";
	struct map_line m;

	assert_int_equal(maps_parse_line(l1, &m), -EINVAL);
	assert_int_equal(maps_parse_line(l2, &m), -EINVAL);
	assert_int_equal(maps_parse_line(l3, &m), -EINVAL);	/* end before start */
	assert_int_equal(maps_parse_line(l4, &m), -EINVAL);
}

static void test_maps_lines(void **state)
{
	char *t = fixture(FIX "maps.txt"), *line = t, *nl;
	struct map_line v[16];
	int n = 0;

	for (; (nl = strchr(line, '\n')) && n < 16; line = nl + 1) {
		*nl = '\0';
		assert_int_equal(maps_parse_line(line, &v[n]), 0);
		n++;
	}
	assert_int_equal(n, 11);
	assert_int_equal(v[1].start, 0x55bdc64d6000ull);
	assert_int_equal(v[1].end, 0x55bdc64db000ull);
	assert_int_equal(v[1].pgoff, 0x2000);
	assert_int_equal(v[1].maj, 0xfe);
	assert_int_equal(v[1].min, 0);
	assert_int_equal(v[1].ino, 247134);
	assert_int_equal(v[1].prot, MAP_R | MAP_X);
	assert_string_equal(v[1].path, "/usr/bin/cat");
	assert_false(v[1].deleted);
	assert_int_equal(v[3].prot, MAP_R | MAP_W);
	assert_string_equal(v[3].path, "[heap]");
	assert_string_equal(v[6].path, "");	/* anonymous (JIT) code */
	assert_int_equal(v[6].prot, MAP_R | MAP_X);
	assert_string_equal(v[7].path, "/memfd:jit code");
	assert_true(v[7].deleted);
	assert_string_equal(v[8].path, "/opt/my app/bin/app");
	assert_true(v[8].deleted);
	assert_string_equal(v[9].path, "[vdso]");
	assert_int_equal(v[10].prot, MAP_X);
	free(t);
}

static void test_perfmap(void **state)
{
	char *t = fixture(FIX "perf-map.txt");
	struct perfmap *pm;
	uint64_t off;

	assert_int_equal(perfmap_parse("", &pm), 0);
	assert_int_equal(perfmap_count(pm), 0);
	assert_null(perfmap_at(pm, 0x1000, NULL));
	perfmap_free(pm);

	assert_int_equal(perfmap_parse(t, &pm), 0);
	free(t);
	/* The bad line and the zero-sized entry are skipped. */
	assert_int_equal(perfmap_count(pm), 4);
	/* Rewritten code: the later entry for the same start wins. */
	assert_string_equal(perfmap_at(pm, 0x7f1c2a700004ull, &off), "recompiled_entry");
	assert_int_equal(off, 4);
	assert_string_equal(perfmap_at(pm, 0x7f1c2a700020ull, &off), "Interpreter::run");
	assert_string_equal(perfmap_at(pm, 0x7f1c2a700050ull, &off),
			    "LazyCompile:~fib /app/fib.js:1");
	assert_int_equal(off, 0x10);
	assert_string_equal(perfmap_at(pm, 0x7f1c2a70010full, NULL), "stub with 0x prefix");
	assert_null(perfmap_at(pm, 0x7f1c2a700120ull, NULL));
	assert_null(perfmap_at(pm, 0x7f1c2a6fffffull, NULL));
	perfmap_free(pm);
}

/* ---- address spaces ---------------------------------------------------------------- */

static struct map_line anon(uint64_t s, uint64_t e)
{
	return (struct map_line){ .start = s, .end = e, .prot = MAP_X, .path = "" };
}

static void test_proc_overlaps(void **state)
{
	struct sym_ctx *c = sym_ctx_new();
	struct sym_proc *p, *q, *x;
	struct map_line a = { .start = 0x1000, .end = 0x9000, .prot = MAP_X, .path = "/no/such/a" };
	struct map_line b = { .start = 0x3000, .end = 0x4000, .prot = MAP_X, .path = "/no/such/b" };
	struct map_line bad = anon(0x5000, 0x5000);
	struct sym_res r;

	assert_non_null(c);
	p = sym_proc_find(c, 0, true);	/* pid 0: nothing to read from /proc */
	assert_non_null(p);
	assert_false(sym_proc_needs_maps(p));
	assert_ptr_equal(sym_proc_find(c, 0, false), p);
	assert_null(sym_proc_find(c, 12345, false));
	assert_int_equal(sym_proc_map(c, p, &bad), -EINVAL);
	assert_int_equal(sym_proc_map(c, p, &a), 0);
	assert_int_equal(sym_proc_map(c, p, &b), 0);	/* splits a in two */
	sym_resolve_user(c, p, 0x2000, &r);
	assert_true(r.mapped);
	assert_non_null(r.dso);
	assert_string_equal(r.dso->path, "/no/such/a");
	assert_null(r.name);	/* the file cannot be read */
	sym_resolve_user(c, p, 0x3800, &r);
	assert_string_equal(r.dso->path, "/no/such/b");
	sym_resolve_user(c, p, 0x8fff, &r);
	assert_string_equal(r.dso->path, "/no/such/a");
	sym_resolve_user(c, p, 0x9000, &r);
	assert_false(r.mapped);
	assert_null(r.dso);
	assert_int_equal(sym_dso_count(c), 2);

	/* fork copies the parent's mappings; exec starts empty. */
	sym_proc_set_comm(p, "parent-with-a-long-name");
	assert_string_equal(sym_proc_comm(p), "parent-with-a-l");	/* 15 + NUL */
	q = sym_proc_fork(c, 7, 0);
	assert_non_null(q);
	assert_string_equal(sym_proc_comm(q), "parent-with-a-l");
	sym_resolve_user(c, q, 0x3800, &r);
	assert_string_equal(r.dso->path, "/no/such/b");
	x = sym_proc_exec(c, 7);
	assert_non_null(x);
	assert_ptr_equal(sym_proc_find(c, 7, false), x);
	sym_resolve_user(c, x, 0x3800, &r);
	assert_false(r.mapped);
	/* The old address space still answers for stacks taken in it. */
	sym_resolve_user(c, q, 0x3800, &r);
	assert_true(r.mapped);
	/* Anonymous executable memory: mapped, no file. */
	a = anon(0x20000, 0x21000);
	assert_int_equal(sym_proc_map(c, x, &a), 0);
	sym_resolve_user(c, x, 0x20010, &r);
	assert_true(r.mapped);
	assert_true(r.anon);
	assert_null(r.dso);
	sym_ctx_free(c);
}

/* This process's own mapping of path (the executable one), from its maps. */
static int own_xmaps(const char *path, struct map_line *out, int max, char **keep)
{
	char *text = read_file("/proc/self/maps", NULL), *line, *nl;
	int n = 0;

	assert_non_null(text);
	for (line = text; (nl = strchr(line, '\n')) && n < max; line = nl + 1) {
		struct map_line m;

		*nl = '\0';
		if (maps_parse_line(line, &m) == 0 && (m.prot & MAP_X) &&
		    (!path ? strstr(m.path, "libc.so") != NULL : !strcmp(m.path, path)))
			out[n++] = m;
	}
	*keep = text;
	return n;
}

static void resolve_self(bool alive)
{
	char exe[PATH_MAX], *keep;
	struct map_line m[8];
	struct sym_ctx *c = sym_ctx_new();
	struct sym_proc *p;
	struct sym_res r;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int nm, pid = alive ? getpid() : 0;

	assert_true(n > 0);
	exe[n] = '\0';
	nm = own_xmaps(exe, m, 8, &keep);
	assert_true(nm >= 1);
	p = sym_proc_find(c, pid, true);
	sym_read_pending(c);	/* reads our own maps when alive: harmless */
	for (int i = 0; i < nm; i++)
		assert_int_equal(sym_proc_map(c, p, &m[i]), 0);
	free(keep);
	sym_resolve_user(c, p, (uintptr_t)sym_test_marker, &r);
	assert_true(r.mapped);
	assert_non_null(r.name);
	assert_string_equal(r.name, "sym_test_marker");
	assert_int_equal(r.off, 0);
	sym_resolve_user(c, p, (uintptr_t)sym_test_marker + 3, &r);
	assert_string_equal(r.name, "sym_test_marker");
	assert_int_equal(r.off, 3);
	assert_false(r.dso->stripped);
	/* A shared object at its own load address: libc. */
	nm = own_xmaps(NULL, m, 8, &keep);
	if (nm >= 1) {
		for (int i = 0; i < nm; i++)
			assert_int_equal(sym_proc_map(c, p, &m[i]), 0);
#ifndef __SANITIZE_ADDRESS__	/* (ASan's fopen is its interceptor, not libc's) */
		sym_resolve_user(c, p, (uintptr_t)fopen, &r);
		assert_non_null(r.name);
		assert_non_null(strstr(r.name, "fopen"));
#endif
	}
	free(keep);
	sym_ctx_free(c);
}

static void test_resolve_self_alive(void **state)
{
	/* Through /proc/PID/map_files (root) or /proc/PID/root. */
	resolve_self(true);
}

static void test_resolve_self_by_path(void **state)
{
	/* A process that is gone: by path, the inode checked. */
	resolve_self(false);
}

/* A process gone before its maps were read: the file a uprobe hit names its
 * frames, placed by the hit's address and file offset. */
static void test_map_file(void **state)
{
	char exe[PATH_MAX], *keep;
	struct map_line m[8];
	struct sym_ctx *c = sym_ctx_new();
	struct sym_proc *p = sym_proc_find(c, 0, true);
	struct sym_res r;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint64_t ip = (uintptr_t)sym_test_marker, off = 0;
	int nm;

	assert_true(n > 0);
	exe[n] = '\0';
	nm = own_xmaps(exe, m, 8, &keep);
	free(keep);
	for (int i = 0; i < nm; i++)
		if (ip >= m[i].start && ip < m[i].end)
			off = ip - m[i].start + m[i].pgoff;
	assert_true(off > 0);
	assert_int_equal(sym_proc_map_file(c, p, "/nonexistent/ftr-test", off, ip), -ENOENT);
	sym_resolve_user(c, p, ip, &r);
	assert_null(r.name);
	assert_int_equal(sym_proc_map_file(c, p, exe, off, ip), 0);
	sym_resolve_user(c, p, ip + 3, &r);
	assert_non_null(r.name);
	assert_string_equal(r.name, "sym_test_marker");
	assert_int_equal(r.off, 3);
	/* Another function of the file, by the same placing. */
	sym_resolve_user(c, p, (uintptr_t)test_map_file, &r);
	assert_non_null(r.name);
	assert_string_equal(r.name, "test_map_file");
	/* A mapping already there wins: a wrong offset changes nothing. */
	assert_int_equal(sym_proc_map_file(c, p, exe, off + 64, ip), 0);
	sym_resolve_user(c, p, ip, &r);
	assert_string_equal(r.name, "sym_test_marker");
	assert_int_equal(r.off, 0);
	sym_ctx_free(c);
}

static void test_resolve_deleted(void **state)
{
	char exe[PATH_MAX], copy[] = "/tmp/ftr-test-sym-XXXXXX", *keep, buf[65536];
	struct map_line m[8], mine;
	struct sym_ctx *c;
	struct sym_proc *p;
	struct sym_res r;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1), k;
	int in, out, nm;
	char *text, *line, *nl;
	void *map = NULL;
	size_t len;

	if (geteuid() != 0)
		skip();	/* /proc/PID/map_files needs root */
	exe[n] = '\0';
	nm = own_xmaps(exe, m, 8, &keep);
	assert_true(nm >= 1);
	free(keep);
	/* A copy of this binary, its code mapped like ld.so would, then
	 * deleted: only the mapping still shows the file. */
	in = open(exe, O_RDONLY);
	out = mkstemp(copy);
	assert_true(in >= 0 && out >= 0);
	while ((k = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, k), k);
	close(in);
	len = m[0].end - m[0].start;
	map = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, (off_t)m[0].pgoff);
	assert_true(map != MAP_FAILED);
	close(out);
	unlink(copy);
	text = read_file("/proc/self/maps", NULL);
	assert_non_null(text);
	memset(&mine, 0, sizeof(mine));
	for (line = text; (nl = strchr(line, '\n')); line = nl + 1) {
		*nl = '\0';
		if (maps_parse_line(line, &mine) == 0 && mine.start == (uintptr_t)map)
			break;
	}
	assert_int_equal(mine.start, (uintptr_t)map);
	assert_true(mine.deleted);
	c = sym_ctx_new();
	p = sym_proc_find(c, getpid(), true);
	assert_int_equal(sym_proc_map(c, p, &mine), 0);
	free(text);
	sym_pin_new(c);	/* read now, while the mapping is there */
	sym_resolve_user(c, p, (uintptr_t)map + ((uintptr_t)sym_test_marker - m[0].start), &r);
	assert_non_null(r.dso);
	assert_true(r.dso->deleted);
	assert_non_null(r.name);
	assert_string_equal(r.name, "sym_test_marker");
	/* Its build id, asked for after the mapping is gone (the file was
	 * read through map_files, now empty of it): the id read with the
	 * symbols, not a bare address (issue 38: ustack(build_id) of a
	 * process that exited before its stack was printed). */
	munmap(map, len);
	map = NULL;
	assert_non_null(sym_dso_build_id(c, r.dso));
	assert_int_equal(strlen(sym_dso_build_id(c, r.dso)), 40);
	sym_ctx_free(c);
}

static void test_jit_map(void **state)
{
	const int pid = 999999937;	/* no such process */
	char path[64];
	struct sym_ctx *c = sym_ctx_new();
	struct sym_proc *p;
	struct sym_res r;
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("7f0000001000 100 jitted_function\n", f);
	fclose(f);
	p = sym_proc_find(c, pid, true);
	sym_read_pending(c);	/* no /proc/PID/maps: stays empty */
	sym_resolve_user(c, p, 0x7f0000001010ull, &r);
	assert_false(r.mapped);
	assert_true(r.jit);
	assert_string_equal(r.name, "jitted_function");
	assert_int_equal(r.off, 0x10);
	sym_resolve_user(c, p, 0x7f0000002000ull, &r);
	assert_null(r.name);
	unlink(path);
	sym_ctx_free(c);
}

static void test_dpkg_owner(void **state)
{
	char pkg[64];

	assert_int_equal(sym_dpkg_owner("/nonexistent", "/usr/bin/ls", pkg, sizeof(pkg)), -ENOENT);
	assert_int_equal(sym_dpkg_owner(FIXDIR "dpkg-info", "/usr/bin/nothere", pkg, sizeof(pkg)),
			 -ENOENT);
	/* A prefix of a listed path is not that path. */
	assert_int_equal(sym_dpkg_owner(FIXDIR "dpkg-info", "/usr/bin/l", pkg, sizeof(pkg)), -ENOENT);
	assert_int_equal(sym_dpkg_owner(FIXDIR "dpkg-info", "/usr/bin/ls", pkg, sizeof(pkg)), 0);
	assert_string_equal(pkg, "coreutils");
	/* /usr-merged: mapped as /usr/lib/..., listed as /lib/...; ":arch" cut. */
	assert_int_equal(sym_dpkg_owner(FIXDIR "dpkg-info", "/usr/lib/x86_64-linux-gnu/libc.so.6",
					pkg, sizeof(pkg)), 0);
	assert_string_equal(pkg, "libc6");
	/* and the reverse */
	assert_int_equal(sym_dpkg_owner(FIXDIR "dpkg-info", "/usr/bin/cat", pkg, sizeof(pkg)), 0);
	assert_string_equal(pkg, "coreutils");
}

static void count_forget(void *arg, struct sym_proc *p)
{
	(*(int *)arg)++;
}

/* Address spaces of processes that came and went are freed two sym_reap
 * calls after their release, unless kept; the pid table still finds the
 * others (its linear probing survives the removals). */
static void test_reap(void **state)
{
	struct sym_ctx *c = sym_ctx_new();
	struct sym_proc *p[600], *kept;
	int forgotten = 0;

	assert_non_null(c);
	/* pids 1000..1599: forks of pid 0 (never read from /proc) */
	assert_non_null(sym_proc_find(c, 0, true));
	for (int i = 0; i < 600; i++)
		assert_non_null(p[i] = sym_proc_fork(c, 1000 + i, 0));
	kept = p[4];
	sym_proc_keep(kept);
	assert_int_equal(sym_nprocs(c), 601);
	for (int i = 0; i < 600; i += 2)	/* even ones exit */
		sym_proc_release(c, p[i]);
	sym_reap(c, count_forget, &forgotten);	/* a drain may still see them */
	assert_int_equal(sym_nprocs(c), 601);
	assert_int_equal(forgotten, 0);
	sym_reap(c, count_forget, &forgotten);
	assert_int_equal(forgotten, 299);	/* 300, less the kept one */
	assert_int_equal(sym_nprocs(c), 302);
	for (int i = 0; i < 600; i++)
		if (i % 2)
			assert_ptr_equal(sym_proc_find(c, 1000 + i, false), p[i]);
		else if (i != 4)
			assert_null(sym_proc_find(c, 1000 + i, false));
	/* a kept one outlives its release (sym_ctx_free frees it) */
	sym_proc_release(c, kept);
	sym_reap(c, count_forget, &forgotten);
	sym_reap(c, count_forget, &forgotten);
	assert_int_equal(sym_nprocs(c), 302);
	sym_ctx_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_elf_truncated),
		cmocka_unit_test(test_ksyms_bad),
		cmocka_unit_test(test_ksyms_hidden),
		cmocka_unit_test(test_ksyms_lookup),
		cmocka_unit_test(test_ksyms_addr),
		cmocka_unit_test(test_ksyms_format),
		cmocka_unit_test(test_ksyms_resolver),
		cmocka_unit_test(test_ksyms_real),
		cmocka_unit_test(test_maps_bad),
		cmocka_unit_test(test_maps_lines),
		cmocka_unit_test(test_perfmap),
		cmocka_unit_test(test_proc_overlaps),
		cmocka_unit_test(test_resolve_self_alive),
		cmocka_unit_test(test_resolve_self_by_path),
		cmocka_unit_test(test_map_file),
		cmocka_unit_test(test_resolve_deleted),
		cmocka_unit_test(test_jit_map),
		cmocka_unit_test(test_dpkg_owner),
		cmocka_unit_test(test_reap),
	};

	return cmocka_run_group_tests_name("sym", tests, NULL, NULL);
}
