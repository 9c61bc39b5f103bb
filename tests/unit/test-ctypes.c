// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for btf.c (the BTF reader: pahole's BTF of known structs, the
 * kernel's own when this machine has one, malformed blobs), ctypes.c (the
 * preprocessor; program-defined structs laid out as gcc lays out the same
 * definitions, compiled into this test) and fetchargs.c (member chains into
 * fetch arguments, per architecture).
 */
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

#include "fixture.h"
#include "ftr.h"
#include "kernel/btf.h"
#include "kernel/features.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"
#include "lang/maps/tuple.h"
#include "lang/plan/fetchargs.h"

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

#include "../fixtures/btf/layout.h"

/* gcc's bit offset of a bitfield: set it all ones in a zeroed struct, find
 * the first bit set (little-endian). */
#define BITOFF(T, F) ({ T _v; memset(&_v, 0, sizeof(_v)); _v.F--; first_bit(&_v, sizeof(_v)); })

static unsigned first_bit(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (unsigned i = 0; i < n * 8; i++)
		if (b[i / 8] >> (i % 8) & 1)
			return i;
	return ~0u;
}

struct want {
	const char *member;
	unsigned bit_off, bits;
};

static void check_struct(const struct btf *b, const char *name, enum btf_kind k, size_t size,
			 const struct want *w, int n)
{
	uint32_t id = btf_find(b, name, k);
	struct btf_member m;

	if (!id)
		fail_msg("%s: not found", name);
	if (btf_size(b, id) != (int64_t)size)
		fail_msg("%s: size %lld, gcc %zu", name, (long long)btf_size(b, id), size);
	for (int i = 0; i < n; i++) {
		if (btf_find_member(b, id, w[i].member, &m))
			fail_msg("%s.%s: not found", name, w[i].member);
		if (m.bit_off != w[i].bit_off || m.bits != w[i].bits)
			fail_msg("%s.%s: bit %u width %u, gcc bit %u width %u", name, w[i].member,
				 m.bit_off, m.bits, w[i].bit_off, w[i].bits);
	}
}

#define M(T, F) { #F, offsetof(T, F) * 8, 0 }
#define BF(T, F, W) { #F, BITOFF(T, F), W }

/* Every struct of layout.h, against gcc. */
static void check_layout(const struct btf *b)
{
	const struct want rec[] = { M(struct rec, tag), M(struct rec, id), M(struct rec, in),
		BF(struct rec, flags, 3), BF(struct rec, kind, 5), M(struct rec, arr),
		M(struct rec, name), M(struct rec, label), M(struct rec, un) };
	const struct want bits[] = { BF(struct bits, a, 3), BF(struct bits, b, 6),
		BF(struct bits, c, 30), BF(struct bits, d, 4), BF(struct bits, e, 40),
		M(struct bits, f), BF(struct bits, g, 9) };
	const struct want mixed[] = { M(struct mixed, c), M(struct mixed, ll), M(struct mixed, s),
		M(struct mixed, x), M(struct mixed, y), M(struct mixed, p), M(struct mixed, tail) };
	const struct want un[] = { M(union u, c), M(union u, i), M(union u, s) };
	const struct want nest[] = { M(struct nest, a), M(struct nest, u), M(struct nest, m),
		M(struct nest, b), M(struct nest, end) };

	check_struct(b, "inner", BTF_STRUCT, sizeof(struct inner), NULL, 0);
	check_struct(b, "rec", BTF_STRUCT, sizeof(struct rec), rec, ARRAY_SIZE(rec));
	check_struct(b, "bits", BTF_STRUCT, sizeof(struct bits), bits, ARRAY_SIZE(bits));
	check_struct(b, "mixed", BTF_STRUCT, sizeof(struct mixed), mixed, ARRAY_SIZE(mixed));
	check_struct(b, "u", BTF_UNION, sizeof(union u), un, ARRAY_SIZE(un));
	check_struct(b, "nest", BTF_STRUCT, sizeof(struct nest), nest, ARRAY_SIZE(nest));
}

/* pahole's BTF of layout.h: the reader against gcc's DWARF. */
static void test_pahole_blob(void **state)
{
	struct btf *b;
	char why[200];
	char s[128];
	uint32_t id;
	struct btf_member m;

	assert_int_equal(btf_load_file(FIXTURES "/btf/layout.btf", NULL, &b, why, sizeof(why)), 0);
	check_layout(b);
	id = btf_find(b, "rec", BTF_STRUCT);
	assert_int_equal(btf_find_member(b, id, "name", &m), 0);
	btf_type_str(b, m.type, s, sizeof(s));
	assert_string_equal(s, "const char *");
	assert_int_equal(btf_find_member(b, id, "label", &m), 0);
	btf_type_str(b, m.type, s, sizeof(s));
	assert_string_equal(s, "char[12]");
	assert_int_equal(btf_find_member(b, id, "nope", &m), -ENOENT);
	btf_free(b);
}

/* Split BTF (a module's over vmlinux): ids and strings after the base's. */
static void test_split(void **state)
{
	struct btf *base, *mod, *bad;
	struct btf_builder bb;
	char why[200], s[64];
	uint32_t rec, ptr, st;
	struct btf_member m;
	size_t len;
	void *blob;

	assert_int_equal(btf_load_file(FIXTURES "/btf/layout.btf", NULL, &base, why, sizeof(why)), 0);
	rec = btf_find(base, "rec", BTF_STRUCT);
	btfb_init(&bb, base);
	ptr = btfb_add(&bb, BTF_PTR, false, 0, NULL, rec);
	assert_int_equal(ptr, btf_nr(base));
	st = btfb_add(&bb, BTF_STRUCT, false, 1, "modstruct", 8);
	btfb_word(&bb, btfb_str(&bb, "r"));
	btfb_word(&bb, ptr);
	btfb_word(&bb, 0);
	blob = btfb_finish(&bb, &len);
	assert_int_equal(btf_load(blob, len, base, &mod, why, sizeof(why)), 0);
	assert_int_equal(btf_find(mod, "modstruct", BTF_STRUCT), st);
	assert_int_equal(btf_find(mod, "rec", BTF_STRUCT), rec);	/* through the base */
	assert_int_equal(btf_find_member(mod, st, "r", &m), 0);
	btf_type_str(mod, m.type, s, sizeof(s));
	assert_string_equal(s, "struct rec *");
	assert_int_equal(btf_find_member(mod, rec, "label", &m), 0);
	btf_type_str(mod, m.type, s, sizeof(s));
	assert_string_equal(s, "char[12]");
	/* Without its base, the same blob refers past its last type. */
	assert_int_equal(btf_load(blob, len, NULL, &bad, why, sizeof(why)), -EINVAL);
	btf_free(mod);
	btf_free(base);
	free(blob);
}

/* Malformed blobs are refused, saying what is wrong. */
static void test_malformed(void **state)
{
	size_t len;
	uint8_t *good = (uint8_t *)fixture_text(&len, "btf/layout.btf"), *d = malloc(len);
	struct btf *b;
	char why[200];
	uint32_t tlen, soff;

	memcpy(d, good, len);
	assert_int_equal(btf_load(d, 10, NULL, &b, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not BTF"));
	d[0] = 0;
	assert_int_equal(btf_load(d, len, NULL, &b, why, sizeof(why)), -EINVAL);
	memcpy(d, good, len);
	memcpy(&tlen, d + 12, 4);
	tlen += 4000;
	memcpy(d + 12, &tlen, 4);
	assert_int_equal(btf_load(d, len, NULL, &b, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "header"));
	/* A pointer to a type past the last. */
	memcpy(d, good, len);
	for (size_t off = 24; off + 12 <= len; off += 4) {
		uint32_t info, t;

		memcpy(&info, d + off + 4, 4);
		if ((info >> 24 & 0x1f) == BTF_PTR) {
			t = 99999;
			memcpy(d + off + 8, &t, 4);
			break;
		}
	}
	assert_int_equal(btf_load(d, len, NULL, &b, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "past the last"));
	/* A name offset out of the strings. */
	memcpy(d, good, len);
	memcpy(&soff, d + 20, 4);
	soff = 0x7fffff;
	memcpy(d + 24 + 12 * 1 + 4 * 1 - 16, &soff, 4);	/* type 1's name_off */
	assert_int_equal(btf_load(d, len, NULL, &b, why, sizeof(why)), -EINVAL);
	/* Every truncation: refused or read whole, never past the end. */
	for (size_t n = 0; n < len; n += 7) {
		uint8_t *t = malloc(n ? n : 1);

		memcpy(t, good, n);
		if (btf_load(t, n, NULL, &b, why, sizeof(why)) == 0)
			btf_free(b);
		free(t);
	}
	free(d);
	free(good);
}

static struct program prog;

static struct tenv *open_prog(const char *text)
{
	struct lang_err err;
	struct tenv *t;

	setenv("FTR_VMLINUX_BTF", "/nonexistent", 1);
	if (lang_parse(text, &prog, &err))
		fail_msg("parse: %d:%d %s", err.line, err.col, err.msg);
	if (ctypes_open(&prog, &t, &err))
		fail_msg("types: %d:%d %s", err.line, err.col, err.msg);
	return t;
}

/* The program's own definitions: as gcc lays them out. */
static void test_program_layout(void **state)
{
	size_t len;
	char *h = fixture_text(&len, "btf/layout.h"), *text;
	struct tenv *t;

	assert_true(asprintf(&text, "%s\nBEGIN { exit(); }\n", h) > 0);
	t = open_prog(text);
	check_layout(ctypes_btf(t));
	ctypes_close(t);
	lang_free(&prog);
	free(text);
	free(h);
}

/* __attribute__((packed)) and aligned(N) after a struct's '}', as bpftrace
 * takes them (its suite's "struct with attribute"), against gcc; the C text
 * and the program's are one. */
#define PACKED_DEFS \
	"struct pk { int x; char y; int z; } __attribute__((packed));\n" \
	"struct pkb { char a : 4; int b : 8; short c; } /* why */ __attribute__ ((__packed__));\n" \
	"struct pka { char c; struct pk p; } __attribute__((packed, aligned(2)));\n" \
	"struct al { int x; char y; } __attribute__((aligned(16)));\n" \
	"struct npk { char c; struct pk p; short s; };\n"
struct pk { int x; char y; int z; } __attribute__((packed));
struct pkb { char a : 4; int b : 8; short c; } /* why */ __attribute__ ((__packed__));
struct pka { char c; struct pk p; } __attribute__((packed, aligned(2)));
struct al { int x; char y; } __attribute__((aligned(16)));
struct npk { char c; struct pk p; short s; };

static void test_packed(void **state)
{
	const struct want pk[] = { M(struct pk, x), M(struct pk, y), M(struct pk, z) };
	const struct want pkb[] = { BF(struct pkb, a, 4), BF(struct pkb, b, 8), M(struct pkb, c) };
	const struct want pka[] = { M(struct pka, c), M(struct pka, p) };
	const struct want npk[] = { M(struct npk, c), M(struct npk, p), M(struct npk, s) };
	struct tenv *t = open_prog(PACKED_DEFS "BEGIN { exit(); }\n");

	check_struct(ctypes_btf(t), "pk", BTF_STRUCT, sizeof(struct pk), pk, ARRAY_SIZE(pk));
	check_struct(ctypes_btf(t), "pkb", BTF_STRUCT, sizeof(struct pkb), pkb, ARRAY_SIZE(pkb));
	check_struct(ctypes_btf(t), "pka", BTF_STRUCT, sizeof(struct pka), pka, ARRAY_SIZE(pka));
	check_struct(ctypes_btf(t), "al", BTF_STRUCT, sizeof(struct al), NULL, 0);
	/* a packed struct inside another is aligned at 1 */
	check_struct(ctypes_btf(t), "npk", BTF_STRUCT, sizeof(struct npk), npk, ARRAY_SIZE(npk));
	ctypes_close(t);
	lang_free(&prog);
}

static void test_cpp(void **state)
{
	struct lang_err err;
	char *o, *o2;

	setenv("FTR_VMLINUX_BTF", "/nonexistent", 1);
	o = lang_cpp("#include <linux/fs.h>\n#define N 4\n#define LONGER 12345\n"
		     "#ifndef BPFTRACE_HAVE_BTF\nA N\n#ifdef N\nB\n#else\nC\n#endif\n#else\nD\n"
		     "#endif\nx N \"N\" $N LONGER", &err);
	assert_non_null(o);
	/* Directives and lines dropped are blanks of their length. */
	assert_string_equal(o, "                     \n           \n                    \n"
			    "                         \nA 4\n        \nB\n     \n \n      \n     \n"
			    " \n      \nx 4 \"N\" $N 12345 ");
	free(o);
	assert_null(lang_cpp("#if 0\n", &err));
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "#if without #endif"));
	/* Function-like macros, as bpftrace's tools write them: arguments
	 * split outside brackets and strings, macros inside macros (the
	 * arguments' and the body's), a macro not expanded inside itself, a
	 * name without '(' left alone, columns after a use kept. */
	o = lang_cpp("#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define SQ(x) ((x) * (x))\n"
		     "#define NOARG() 7\n#define ONE 1\n#define P(f, s) printf(f, s, ONE)\n"
		     "#define SELF(x) SELF(x + 1)\n"
		     "@m = MAX(arg0, SQ(f(1, 2)));\nMAX (ONE,[1,2]) NOARG( ) MAX x\n"
		     "P(\"a,b(\", \")\") SELF(2) MAX(1,2)  z", &err);
	if (!o)
		fail_msg("%d:%d %s", err.line, err.col, err.msg);
	assert_non_null(strstr(o, "@m = ((arg0) > (((f(1, 2)) * (f(1, 2)))) ? (arg0) : "
				  "(((f(1, 2)) * (f(1, 2)))));\n"));
	assert_non_null(strstr(o, "\n((1) > ([1,2]) ? (1) : ([1,2])) 7        MAX x\n"));
	assert_non_null(strstr(o, "\nprintf(\"a,b(\", \")\", 1) SELF(2 + 1) "
				  "((1) > (2) ? (1) : (2))  z"));
	free(o);
	o = lang_cpp("#define LONGNAME(a) a\nLONGNAME(1) x", &err);
	assert_string_equal(o + strcspn(o, "\n") + 1, "1           x");
	free(o);
	assert_null(lang_cpp("x\n#define F(a, ...) a\n", &err));
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "the parameters are names"));
	assert_null(lang_cpp("#define F(a, b) a\n\n  F(1)\n", &err));
	assert_int_equal(err.line, 3);
	assert_int_equal(err.col, 3);
	assert_string_equal(err.msg, "macro 'F' takes 2 arguments, given 1");
	assert_null(lang_cpp("#define F(a) a\nF(1\n", &err));
	assert_non_null(strstr(err.msg, "must close on the line"));
	assert_null(lang_cpp("#endif\n", &err));
	assert_null(lang_cpp("#bogus\n", &err));
	/* In a block comment '#' is text and no define expands
	 * (gethostlatency.bt: " # need modifications" in its header). */
	o = lang_cpp("/*\n # need x\n N */ #define N 1\nN /* N\n#if 1 */ N \"/*\" N\n", &err);
	assert_non_null(o);
	assert_string_equal(o, "/*\n # need x\n N */ #define N 1\nN /* N\n#if 1 */ N \"/*\" N\n");
	o2 = lang_cpp("#define N 7\n#if 0\n/*\n#endif\n*/\n#endif\nN // /*\nN\n", &err);
	assert_non_null(o2);
	assert_string_equal(o2, "           \n     \n  \n      \n  \n      \n7 // /*\n7\n");
	free(o);
	free(o2);
	/* A string literal holding a newline (bpftrace's cases make one with
	 * the shell's echo): no define in it, one after it. */
	o = lang_cpp("#define N 7\nprintf(\"N\n#if N\", N); \"\\\"\nN\" N\n", &err);
	assert_non_null(o);
	assert_string_equal(o, "           \nprintf(\"N\n#if N\", 7); \"\\\"\nN\" 7\n");
	free(o);
}

/* The kernel BTF typed() compiles against, and a tracepoint clause's fields. */
static const char *typed_vmlinux = "/nonexistent";
static const struct typed_tp *typed_tp;
/* When set: each field's typed_fallback (ftr's fetches for the kernel's
 * argument names). */
static const char *const *typed_fb;
static struct typed_cur *typed_cur;

static void typed(const char *text, const char *arch, unsigned ps, const char *const *want,
		  const char *err_part)
{
	struct tenv *t = NULL;
	struct typed_out out;
	struct lang_err err;
	int ret;

	setenv("FTR_VMLINUX_BTF", typed_vmlinux, 1);
	if (lang_parse(text, &prog, &err))
		fail_msg("parse: %d:%d %s", err.line, err.col, err.msg);
	ret = typed_compile(&t, &prog, 0, arch, ps, typed_tp, typed_cur, &out, &err);
	if (err_part) {
		if (!ret || !strstr(err.msg, err_part))
			fail_msg("'%s': got %d '%s', want '%s'", text, ret, err.msg, err_part);
	} else {
		if (ret)
			fail_msg("'%s': %d:%d %s", text, err.line, err.col, err.msg);
		int nwant = 0;

		while (want[nwant])
			nwant++;
		if (nwant != out.n) {
			for (int i = 0; i < out.n; i++)
				print_message("  %s=%s:%s\n", out.f[i].name, out.f[i].fetch,
					      out.f[i].type);
			fail_msg("'%s': %d fields, want %d", text, out.n, nwant);
		}
		for (int i = 0; want[i]; i++) {
			char f[300];

			snprintf(f, sizeof(f), "%s=%s:%s", out.f[i].name, out.f[i].fetch,
				 out.f[i].type);
			if (i >= out.n || strcmp(f, want[i]))
				fail_msg("'%s': field %d is '%s', want '%s'", text, i,
					 i < out.n ? f : "none", want[i]);
			if (typed_fb) {
				assert_int_equal(typed_fallback(&out, i, f, sizeof(f)), 0);
				assert_string_equal(f, typed_fb[i]);
			}
		}
	}
	ctypes_close(t);
	lang_free(&prog);
}

#define DEFS "struct in { short s; long l; }; struct r { char c; struct in in; " \
	     "unsigned a : 3, b : 7; char *name; char lab[8]; struct r *next; };\n"

static void test_fetchargs(void **state)
{
	typed(DEFS "kprobe:f { @ = sum(((struct r *)arg0)->in.l); }", "x86_64", 0,
	      (const char *const[]){ "t0=+16(%di):s64", "t1=%di:u64", NULL }, NULL);
	typed(DEFS "kprobe:f { @ = sum(((struct r *)arg1)->next->next->b); }", "x86_64", PS_ARGN,
	      (const char *const[]){ "t0=+24(+48(+48($arg2))):b7@3/16",
	      "t1=+48(+48($arg2)):u64", "t2=+48($arg2):u64", "t3=$arg2:u64", NULL }, NULL);
	typed(DEFS "uprobe:/bin/true:f { $p = (struct r *)arg0; @[str($p->name), str($p->lab)] = count(); }",
	      "arm64", PS_ARGN, (const char *const[]){ "t0=%x0:u64", "t1=+0(+32(%x0)):string",
	      "t2=+40(%x0):string", NULL }, NULL);
	typed(DEFS "kprobe:f { @ = sum(((struct r *)arg0)[2].in.s + sizeof(struct r)); }",
	      "x86_64", 0, (const char *const[]){ "t0=+120(%di):s16", "t1=%di:u64", NULL }, NULL);
	typed(DEFS "kprobe:f { @ = sum((*(struct r *)arg0).c); }", "x86_64", 0,
	      (const char *const[]){ (char)-1 < 0 ? "t0=+0(%di):s8" : "t0=+0(%di):u8",
	      "t1=%di:u64", NULL }, NULL);
	/* &p->member: the pointer read, the offset added in user space. */
	typed(DEFS "kprobe:f { @ = sum((uint64)&((struct r *)arg0)->next->lab); }", "x86_64", 0,
	      (const char *const[]){ "t0=+48(%di):u64", "t1=%di:u64", NULL }, NULL);
	/* A typed pointer assigned once in an if block (tcplife's $tp); twice: refused. */
	typed(DEFS "kprobe:f { if (arg1) { $p = (struct r *)arg0; @ = sum($p->in.l); } }",
	      "x86_64", 0, (const char *const[]){ "t0=%di:u64", "t1=+16(%di):s64", NULL }, NULL);
	typed(DEFS "kprobe:f { $p = 0; if (arg1) { $p = (struct r *)arg0; @ = sum($p->in.l); } }",
	      "x86_64", 0, NULL, "holds a typed pointer: assign it once");
	/* ntop() of a u8[4]/u8[16] member: its bytes, not a string. */
	typed("struct s { unsigned char a4[4]; unsigned char a16[16]; };\n"
	      "kprobe:f { printf(\"%s %s\\n\", ntop(((struct s *)arg0)->a4), "
	      "ntop(10, ((struct s *)arg0)->a16)); }", "x86_64", 0,
	      (const char *const[]){ "t0=+0(%di):u8[4]", "t1=+4(%di):u8[16]", NULL }, NULL);
	/* buf(): a u8 array fetch of what bpftrace would copy at most (its
	 * string length, 64, or a literal length below it, or an array's
	 * size); the length itself is a field of its own. */
	typed("struct sk { unsigned int len; char *data; };\n"
	      "kprobe:f { $s = (struct sk *)arg0; printf(\"%r\\n\", buf($s->data, $s->len)); }",
	      "x86_64", 0, (const char *const[]){ "t0=%di:u64", "t1=+0(%di):u32",
	      "t2=+0(+8(%di)):u8[64]", NULL }, NULL);
	typed("uprobe:/bin/true:f { printf(\"%r %r\\n\", buf(arg1, 5), buf(arg0, arg2)); }",
	      "x86_64", PS_ARGN, (const char *const[]){ "t0=+0(%si):u8[5]", "t1=+0(%di):u8[64]",
	      NULL }, NULL);
	typed("kprobe:f { printf(\"%r\\n\", buf(arg1, 100)); }", "arm64", PS_ARGN,
	      (const char *const[]){ "t0=+0($arg2):u8[64]", NULL }, NULL);
	typed(DEFS "kretprobe:f { printf(\"%r %r\\n\", buf(retval, 0), "
	      "buf(((struct r *)arg0)->lab)); }", "x86_64", 0, NULL, "the arguments are gone");
	typed(DEFS "kprobe:f { printf(\"%r\\n\", buf(((struct r *)arg0)->lab)); }", "x86_64", 0,
	      (const char *const[]){ "t0=+40(%di):u8[8]", NULL }, NULL);
	typed(DEFS "uretprobe:/bin/true:f { printf(\"%r\\n\", buf(retval, 0)); }", "x86_64", 0,
	      (const char *const[]){ "t0=+0($retval):u8[1]", NULL }, NULL);
	typed(DEFS "kprobe:f { printf(\"%r\\n\", buf(((struct r *)arg0)->next)); }", "x86_64",
	      0, NULL, "buf((struct r *)arg0->next) needs a length");
	typed(DEFS "kprobe:f { printf(\"%r\\n\", buf(((struct r *)arg0)->in.l, 4)); }",
	      "x86_64", 0, NULL, "not a pointer or an array");
	setenv("BPFTRACE_STRLEN", "16", 1);
	typed("kprobe:f { printf(\"%r\\n\", buf(arg1, arg2)); }", "x86_64", 0,
	      (const char *const[]){ "t0=+0(%si):u8[16]", NULL }, NULL);
	setenv("BPFTRACE_STRLEN", "200", 1);
	typed("kprobe:f { printf(\"%r\\n\", buf(arg1, arg2)); }", "x86_64", 0,
	      (const char *const[]){ "t0=+0(%si):u8[64]", NULL }, NULL);
	unsetenv("BPFTRACE_STRLEN");
	/* char[N] where a value is wanted: a string, as in bpftrace. */
	typed(DEFS "kprobe:f { printf(\"%s\\n\", ((struct r *)arg0)->lab); }", "x86_64", 0,
	      (const char *const[]){ "t0=+40(%di):string", NULL }, NULL);
	/* UPPER_CASE names: the program's enumerators, header constants; a
	 * number read into a variable inside an if is a plain number. */
	typed("enum st { ST_A = 3, ST_B };\n" DEFS "kprobe:f { if (((struct r *)arg0)->c == ST_B + AF_INET6) "
	      "{ $x = ((struct r *)arg0)->in.s; @ = sum($x); } }", "x86_64", 0,
	      (const char *const[]){ (char)-1 < 0 ? "t0=+0(%di):s8" : "t0=+0(%di):u8",
	      "t1=%di:u64", "t2=+8(%di):s16", NULL }, NULL);
	typed(DEFS "kprobe:f { @ = sum(NOPE_X); }", "x86_64", 0, NULL, "unknown name 'NOPE_X'");
	typed(DEFS "kprobe:f+4 { @ = sum(((struct r *)arg0)->c); }", "x86_64", 0, NULL,
	      "first instruction only, not at f+4");
	/* Refusals, with the reason. */
	typed(DEFS "kprobe:f { $i = 1; @ = sum(((struct r *)arg0)[$i].c); }", "x86_64", 0, NULL,
	      "the index must be a constant");
	typed(DEFS "kprobe:f { $x = arg0 + 8; @ = sum(((struct r *)$x)->c); }", "x86_64", 0, NULL,
	      "a variable holding a number");
	typed(DEFS "tracepoint:a:b { @ = sum(((struct r *)args.p)->c); }", "x86_64", 0, NULL,
	      "reads memory");
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)arg0)->c); }", "x86_64", 0, NULL,
	      "the arguments are gone");
	typed(DEFS "kprobe:f { @ = sum(((struct r *)arg0)->nope); }", "x86_64", 0, NULL,
	      "struct r has no member 'nope'");
	/* A pointer stored at f's entry, read through at its return: the
	 * entry's argument fetched in the return probe (6.10), guarded by the
	 * map; refused where that is not provable or the kernel lacks it. */
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)@p[tid])->in.l); } "
	      "kprobe:f { @p[tid] = arg1; }", "x86_64", PS_ARGN | PS_RET_ARGN,
	      (const char *const[]){ "t0=+16($arg2):s64", "t1=$arg2:u64", NULL }, NULL);
	typed(DEFS "kretprobe:f { $r = (struct r *)@p[tid]; @[$r] = sum($r->next->c); "
	      "delete(@p[tid]); } kprobe:f /pid/ { @p[tid] = arg0; }", "x86_64",
	      PS_ARGN | PS_RET_ARGN, (const char *const[]){ "t0=+0(+48($arg1)):s8",
	      "t1=+48($arg1):u64", "t2=$arg1:u64", NULL }, NULL);
	typed(DEFS "kretprobe:f { @[str(((struct r *)@p[tid])->name)] = count(); } "
	      "kprobe:f { @p[tid] = arg0; }", "x86_64", PS_ARGN | PS_RET_ARGN,
	      (const char *const[]){ "t0=+0(+32($arg1)):string", "t1=$arg1:u64", NULL }, NULL);
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)@p[tid])->c); } "
	      "kprobe:f { @p[tid] = arg1; }", "x86_64", PS_ARGN, NULL,
	      "fetches no entry argument in a return probe");
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)@p[tid])->c); } "
	      "kprobe:f { @p[tid] = arg1; } kprobe:g { @p[tid] = arg1; }", "x86_64",
	      PS_ARGN | PS_RET_ARGN, NULL, "other than at kprobe:F's entry alone");
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)@p[tid])->c); } "
	      "kprobe:f { @p[tid] = arg1 + 8; }", "x86_64", PS_ARGN | PS_RET_ARGN, NULL,
	      "other than as [tid] = argN");
	typed(DEFS "kretprobe:f { @ = sum(((struct r *)@p[pid])->c); } "
	      "kprobe:f { @p[pid] = arg1; }", "x86_64", PS_ARGN | PS_RET_ARGN, NULL,
	      "keyed by other than tid alone");
	/* A struct or array as a value: each member read, into a tuple. */
	typed(DEFS "kprobe:f { @ = ((struct r *)arg0)->in; }", "x86_64", 0,
	      (const char *const[]){ "t0=+8(%di):s16", "t1=%di:u64", "t2=+16(%di):s64", NULL },
	      NULL);
	typed("kprobe:f { @ = sum(((struct file *)arg0)->f_mode); }", "x86_64", 0, NULL,
	      "this kernel has no BTF");
	typed(DEFS "kprobe:f { if (1) { $p = (struct r *)arg0; } else { $p = (struct r *)arg1; } }",
	      "x86_64", 0, NULL, "assign it once");
}

/* sum()'s argument in clause 0's first statement. */
static const struct node *sum_arg(void)
{
	const struct node *st = prog.cl[0].body;

	assert_non_null(st);
	assert_non_null(st->b);
	assert_int_equal(st->b->nargs, 1);
	return st->b->args[0];
}

/* Bitfields, signed ones too, read unsigned: the kernel's bW@O/S, and
 * bpftrace's reading (its suite's other.bitfield_access_2). */
static void test_signed_bitfield(void **state)
{
	static const char defs[] = "struct sb { unsigned char u : 2; int a : 3; signed char c : 4; "
				   "long l : 33; };\n";
	static const struct { const char *m; const char *type; } cases[] = {
		{ "a", "b3@2/8" },
		{ "c", "b4@0/8" },
		{ "l", "b33@12/64" },
		{ "u", "b2@0/8" },
	};
	struct tenv *t = NULL;
	struct typed_out out;
	struct lang_err err;
	char text[300];

	setenv("FTR_VMLINUX_BTF", "/nonexistent", 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "%skprobe:f { @ = sum(((struct sb *)arg0)->%s); }",
			 defs, cases[i].m);
		if (lang_parse(text, &prog, &err) || typed_compile(&t, &prog, 0, "x86_64", 0, NULL, NULL, &out, &err))
			fail_msg("'%s': %s", text, err.msg);
		/* The field, and the pointer it is read through (NULL: 0). */
		assert_int_equal(out.n, 2);
		assert_string_equal(out.f[0].type, cases[i].type);
		assert_string_equal(out.f[1].fetch, "%di");
		/* The field itself in its NULL guard: no sign extension. */
		assert_int_equal(sum_arg()->k, N_TERNARY);
		assert_int_equal(sum_arg()->b->k, N_FIELD);
		ctypes_close(t);
		t = NULL;
		lang_free(&prog);
	}
}

/* A C struct or array where a value is wanted: a tuple (tuple.h) of its
 * members' reads, marked to print as bpftrace prints it; a variable keeps
 * the struct (its members read through it); a constant index past an
 * array's end is refused, as bpftrace refuses it. */
static void test_aggregate_values(void **state)
{
	struct tenv *t = NULL;
	struct typed_out out;
	struct lang_err err;
	const struct node *v, *in;

	setenv("FTR_VMLINUX_BTF", "/nonexistent", 1);
	assert_int_equal(lang_parse(DEFS "struct m { int y[2][2]; };\nkprobe:f { $r = *(struct r *)arg0; "
				    "@ = $r; @m = ((struct m *)arg1)->y; @c = $r.in.l; }", &prog, &err), 0);
	if (typed_compile(&t, &prog, 0, "x86_64", 0, NULL, NULL, &out, &err))
		fail_msg("%d:%d: %s", err.line, err.col, err.msg);
	v = prog.cl[0].body->next->b;
	assert_int_equal(v->k, N_TUPLE);
	/* a record of its members; pointers print in hex; char lab[8] is a string */
	assert_int_equal(v->ival, TUPLE_STRUCT);
	assert_string_equal(v->sval, "c,in,a,b,name,lab,next");
	assert_int_equal(v->idx, 1 << 4 | 1 << 6);
	assert_int_equal(v->nargs, 7);
	in = v->args[1];
	assert_int_equal(in->k, N_TUPLE);
	assert_string_equal(in->sval, "s,l");
	assert_int_equal(v->args[5]->k, N_FIELD);
	/* int y[2][2]: an array of arrays */
	v = prog.cl[0].body->next->next->b;
	assert_int_equal(v->ival, TUPLE_ARRAY);
	assert_int_equal(v->nargs, 2);
	assert_int_equal(v->args[1]->ival, TUPLE_ARRAY);
	assert_int_equal(v->args[1]->nargs, 2);
	/* $r.in.l: the member read through the variable, a number */
	v = prog.cl[0].body->next->next->next->b;
	assert_int_equal(v->k, N_TERNARY);
	ctypes_close(t);
	t = NULL;
	lang_free(&prog);

	typed(DEFS "struct m { int y[4]; };\nkprobe:f { @ = ((struct m *)arg0)->y[4]; }", "x86_64",
	      0, NULL, "the index 4 is out of bounds for array of size 4");
	typed(DEFS "kprobe:f { $r = *(struct r *)arg0; $r = *(struct r *)arg1; }", "x86_64", 0,
	      NULL, "$r holds a typed array or struct: assign it once");
}

/* Debian's 6.1 (amd64) kernel BTF, trimmed (tests/fixtures/btf/trim.c):
 * offsets as pahole reads them from the same BTF. */
static void test_vmlinux_61(void **state)
{
	struct btf *b;
	char why[200];
	uint32_t id, type;
	struct btf_member m;
	struct btf_t t;

	assert_int_equal(btf_load_file(FIXTURES "/btf/vmlinux-6.1.btf", NULL, &b, why, sizeof(why)), 0);
	id = btf_find(b, "sk_buff", BTF_STRUCT);
	assert_int_equal(btf_size(b, id), 232);
	assert_int_equal(btf_find_member(b, id, "pkt_type", &m), 0);
	assert_int_equal(m.bit_off, 128 * 8);
	assert_int_equal(m.bits, 3);
	id = btf_find(b, "sock_common", BTF_STRUCT);
	assert_int_equal(btf_find_member(b, id, "skc_dport", &m), 0);
	assert_int_equal(m.bit_off, 12 * 8);
	id = btf_find(b, "tcp_connect", BTF_FUNC);
	btf_type(b, id, &t);
	assert_string_equal(btf_param(b, t.size_type, 0, &type), "sk");
	btf_free(b);

	/* The chains of the acceptance tests, compiled against it. */
	ctypes_set_btf_file(FIXTURES "/btf/vmlinux-6.1.btf");
	typed("kprobe:vfs_write { @[str(((struct file *)arg0)->f_path.dentry->d_name.name)] = count(); }",
	      "x86_64", PS_ARGN, (const char *const[]){ "t0=+0(+40(+24($arg1))):string", NULL },
	      NULL);
	typed("#include <linux/fs.h>\nkprobe:vfs_write { $f = (struct file *)arg0; "
	      "@[str($f->f_path.dentry->d_name.name)] = count(); }", "arm64", 0,
	      (const char *const[]){ "t0=%x0:u64", "t1=+0(+40(+24(%x0))):string", NULL }, NULL);
	typed("kfunc:vfs_write { @ = hist(args->count); }", "x86_64", PS_ARGN,
	      (const char *const[]){ "t0=$arg3:u64", NULL }, NULL);
	typed("kfunc:tcp_connect { @[args->sk->__sk_common.skc_dport, args.sk->__sk_common.skc_family] = count(); }",
	      "x86_64", 0, (const char *const[]){ "t0=+12(%di):u16", "t1=%di:u64", "t2=+16(%di):u16",
	      NULL }, NULL);
	typed("kprobe:f { @[((struct sk_buff *)arg1)->pkt_type, ((struct sk_buff *)arg1)->ip_summed] = count(); }",
	      "x86_64", 0, (const char *const[]){ "t0=+128(%si):b3@0/8", "t1=%si:u64",
	      "t2=+128(%si):b2@5/8", NULL }, NULL);
	/* args alone: the record of every argument, each fetched as args.NAME,
	 * the pointers printed in hex (bpftrace's { .file = 0x..., .count = 5 }) */
	typed("kfunc:vfs_write { @ = args; }", "x86_64", PS_ARGN,
	      (const char *const[]){ "t0=$arg1:u64", "t1=$arg2:u64", "t2=$arg3:u64",
	      "t3=$arg4:u64", NULL }, NULL);
	{
		struct tenv *te = NULL;
		struct typed_out out;
		struct lang_err err;
		const struct node *r;

		assert_int_equal(lang_parse("kfunc:vfs_write { @ = args; }", &prog, &err), 0);
		if (typed_compile(&te, &prog, 0, "x86_64", PS_ARGN, NULL, NULL, &out, &err))
			fail_msg("%d:%d: %s", err.line, err.col, err.msg);
		r = prog.cl[0].body->b;
		assert_int_equal(r->k, N_TUPLE);
		assert_string_equal(r->sval, "file,buf,count,pos");
		assert_int_equal(r->ival, 0);			/* a record, not a C struct */
		assert_int_equal(r->idx, 1 | 2 | 8);		/* file, buf, pos: pointers */
		assert_int_equal(r->nargs, 4);
		assert_int_equal(r->args[2]->k, N_FIELD);
		assert_string_equal(r->args[2]->sval, "t2");
		ctypes_close(te);
		lang_free(&prog);
	}
	typed("kretfunc:vfs_write { @ = args; }", "x86_64", 0, NULL,
	      "args: the arguments are gone when the function returns");
	typed("kfunc:vfs_write { @ = sum(args->nope); }", "x86_64", 0, NULL,
	      "vfs_write has no argument 'nope' (its arguments: file, buf, count, pos)");
	typed("kfunc:no_such_function { @ = count(); }", "x86_64", 0, NULL,
	      "no function 'no_such_function'");
	typed("kretfunc:vfs_write { @ = sum(args->count); }", "x86_64", 0, NULL,
	      "the arguments are gone");
	ctypes_set_btf_file(NULL);
}

/* Module kfuncs: a module's BTF (split over vmlinux's, in its directory)
 * with modfn(struct file *f, int n), over the trimmed 6.1 vmlinux. */
static void test_module_kfunc(void **state)
{
	char dir[] = "/tmp/ftr-test-btf-XXXXXX", path[64], why[200], *real;
	struct btf *base, *mod;
	struct btf_builder bb;
	uint32_t file, ptr, in, proto;
	size_t len;
	void *blob;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	real = realpath(FIXTURES "/btf/vmlinux-6.1.btf", NULL);
	assert_non_null(real);
	assert_int_equal(symlink(real, path), 0);
	free(real);
	assert_int_equal(btf_load_file(path, NULL, &base, why, sizeof(why)), 0);
	file = btf_find(base, "file", BTF_STRUCT);
	in = btf_find(base, "int", BTF_INT);
	assert_true(file && in);
	btfb_init(&bb, base);
	ptr = btfb_add(&bb, BTF_PTR, false, 0, NULL, file);
	proto = btfb_add(&bb, BTF_FUNC_PROTO, false, 2, NULL, in);
	btfb_word(&bb, btfb_str(&bb, "f"));
	btfb_word(&bb, ptr);
	btfb_word(&bb, btfb_str(&bb, "n"));
	btfb_word(&bb, in);
	btfb_add(&bb, BTF_FUNC, false, 0, "modfn", proto);
	blob = btfb_finish(&bb, &len);
	assert_int_equal(btf_load(blob, len, base, &mod, why, sizeof(why)), 0);
	btf_free(mod);
	snprintf(path, sizeof(path), "%s/mymod", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fwrite(blob, 1, len, f), len);
	fclose(f);
	free(blob);
	btf_free(base);

	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	typed_vmlinux = path;
	static const char *const want[] = { "t0=+0(+40(+24($arg1))):string", "t1=$arg2:s32", NULL };
	/* Named, found among the loaded modules, and vmlinux's spelt so. */
	typed("kfunc:mymod:modfn { @[str(args->f->f_path.dentry->d_name.name)] = sum(args->n); }",
	      "x86_64", PS_ARGN, want, NULL);
	typed("kfunc:modfn { @[str(args->f->f_path.dentry->d_name.name)] = sum(args->n); }",
	      "x86_64", PS_ARGN, want, NULL);
	typed("kfunc:vmlinux:vfs_write { @ = hist(args->count); }", "x86_64", PS_ARGN,
	      (const char *const[]){ "t0=$arg3:u64", NULL }, NULL);
	/* Where the kernel takes its BTF argument names (6.8+), they are the
	 * roots; ftr's own fetches are kept for where it refuses them. */
	typed_fb = (const char *const[]){ "+0(+40(+24($arg1)))", "$arg2", "%di" };
	typed("kfunc:mymod:modfn { @[str(args->f->f_path.dentry->d_name.name)] = sum(args->n); }",
	      "x86_64", PS_ARGN | PS_ARGNAME, (const char *const[]){
	      "t0=+0(+40(+24(f))):string", "t1=n:s32", NULL }, NULL);
	typed_fb = (const char *const[]){ "$arg3" };
	typed("kfunc:vmlinux:vfs_write { @ = hist(args->count); }", "x86_64", PS_ARGN | PS_ARGNAME,
	      (const char *const[]){ "t0=count:u64", NULL }, NULL);
	typed_fb = (const char *const[]){ "+68(%di)", "%di", "%dx" };
	typed("kfunc:vfs_write { @[args->file->f_mode] = sum(args->count); }", "x86_64",
	      PS_ARGNAME, (const char *const[]){ "t0=+68(file):u32", "t1=file:u64", "t2=count:u64",
	      NULL }, NULL);
	typed_fb = NULL;
	/* not at a return (the kernel reads entry arguments there only since 6.12) */
	typed("kretfunc:vfs_write { @ = sum(args->count); }", "x86_64", PS_ARGN | PS_ARGNAME, NULL,
	      "the arguments are gone");
	/* The program's types are split over the module's. */
	typed("struct s { struct file *f; };\nkfunc:mymod:modfn { @ = sum(((struct s *)args->f)->f->f_mode); }",
	      "x86_64", PS_ARGN, (const char *const[]){ "t0=+68(+0($arg1)):u32", "t1=+0($arg1):u64",
	      "t2=$arg1:u64", NULL }, NULL);
	typed("kfunc:nosuchmod:modfn { @ = count(); }", "x86_64", PS_ARGN, NULL,
	      "module 'nosuchmod' is not loaded (no /tmp/ftr-test-btf-");
	typed("kfunc:ext4:vfs_write { @ = count(); }", "x86_64", PS_ARGN, NULL,
	      "no module 'ext4' is loaded, and vfs_write is vmlinux's (built in): kfunc:vfs_write");
	typed("kfunc:mymod:vfs_write { @ = count(); }", "x86_64", PS_ARGN, NULL,
	      "no function 'vfs_write' in the BTF of module mymod");
	typed_vmlinux = "/nonexistent";
	snprintf(path, sizeof(path), "%s/mymod", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	unlink(path);
	rmdir(dir);
}

/* This machine's own kernel BTF, when it has one. */

/* Tracepoint fields as the formats of 6.1 give them. */
static int fake_field_type(void *ctx, const char *name, char *type, size_t len, char *why,
			   size_t wlen)
{
	static const char *const t[][2] = {
		{ "skbaddr", "void *" }, { "reason", "enum skb_drop_reason" },
		{ "rqtp", "struct __kernel_timespec *" }, { "buf", "const char *" },
		{ "rmtp", "struct __kernel_timespec *" }, { "count", "size_t" },
	};

	(void)ctx;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i][0], name)) {
			snprintf(type, len, "%s", t[i][1]);
			return 0;
		}
	snprintf(why, wlen, "no field '%s'", name);
	return -ENOENT;
}

/* Reads through a tracepoint's fields: eprobe fetchargs ($field roots),
 * user memory (+u) at syscalls:*, refused by name where no eprobes. */
static void test_tracepoint_fields(void **state)
{
	struct typed_tp k = { .eprobes = true, .field_type = fake_field_type };
	struct typed_tp u = { .eprobes = true, .user = true, .field_type = fake_field_type };
	struct typed_tp none = { .why = "no eprobe events (built without CONFIG_EPROBE_EVENTS)",
				 .field_type = fake_field_type };

	(void)state;
	ctypes_set_btf_file(FIXTURES "/btf/vmlinux-6.1.btf");
	typed_tp = &k;
	/* tcpdrop.bt's reads: skb->sk, then the sock's fields, in kernel memory. */
	typed("tracepoint:skb:kfree_skb { $skb = (struct sk_buff *)args->skbaddr; "
	      "$sk = ((struct sock *) $skb->sk); $f = $sk->__sk_common.skc_family; "
	      "if ($f == AF_INET) { @[ntop($sk->__sk_common.skc_daddr), $sk->__sk_common.skc_num, "
	      "bswap($sk->__sk_common.skc_dport), $sk->__sk_common.skc_state, "
	      "ntop($sk->__sk_common.skc_v6_daddr.in6_u.u6_addr8)] = count(); } }",
	      "x86_64", PS_ARGN, (const char *const[]){ "t0=+24($skbaddr):u64",
	      "t1=+16(+24($skbaddr)):u16", "t2=+0(+24($skbaddr)):u32",
	      "t3=+14(+24($skbaddr)):u16", "t4=+12(+24($skbaddr)):u16",
	      "t5=+18(+24($skbaddr)):u8", "t6=+56(+24($skbaddr)):u8[16]", NULL }, NULL);
	/* The pointer itself is the field: nothing to fetch. */
	typed("tracepoint:skb:kfree_skb { $skb = (struct sk_buff *)args->skbaddr; @[$skb] = count(); }",
	      "x86_64", 0, (const char *const[]){ NULL }, NULL);
	typed("tracepoint:skb:kfree_skb { @ = sum(((struct sk_buff *)args->skbaddr)->len); "
	      "@x = sum(args->reason); }", "arm64", 0,
	      (const char *const[]){ "t0=+112($skbaddr):u32", NULL }, NULL);
	typed("tracepoint:skb:kfree_skb { @ = sum(args->skbaddr->len); }", "x86_64", 0, NULL,
	      "args->skbaddr is 'void *', not a pointer to a struct: cast it");
	ctypes_set_btf_file(NULL);

	/* naptime.bt's args->rqtp->tv_sec: the format's struct pointer type, from
	 * the program here (no BTF), in user memory at a syscall. */
	typed_tp = &u;
	typed("struct __kernel_timespec { long long tv_sec; long long tv_nsec; };\n"
	      "tracepoint:syscalls:sys_enter_nanosleep /args->rqtp->tv_sec + args->rqtp->tv_nsec/ "
	      "{ printf(\"%d.%03d %p\\n\", args->rqtp->tv_sec, (uint64)args->rqtp->tv_nsec / 1e6, "
	      "args->rmtp); }", "x86_64", 0, (const char *const[]){ "t0=+u0($rqtp):s64",
	      "t1=+u8($rqtp):s64", NULL }, NULL);
	typed("struct pair { int a; char *name; };\n"
	      "tracepoint:syscalls:sys_enter_write { @[str(((struct pair *)args->buf)->name), "
	      "((struct pair *)args->buf)->a] = count(); }", "x86_64", 0,
	      (const char *const[]){ "t0=+u0(+u8($buf)):string", "t1=+u0($buf):s32", NULL }, NULL);
	typed("tracepoint:syscalls:sys_enter_nanosleep { @ = sum(args->rqtp->tv_sec); }",
	      "x86_64", 0, NULL, "struct __kernel_timespec is declared but not defined here: this "
	      "kernel has no BTF");

	/* A read through a NULL pointer faults, and the kernel stores nothing
	 * (the ring buffer's old bytes): read as 0, as bpftrace does, by
	 * (p ? field : 0) over each pointer on the way. */
	{
		struct tenv *t = NULL;
		struct typed_out out;
		struct lang_err err;
		const struct node *n;

		ctypes_set_btf_file(FIXTURES "/btf/vmlinux-6.1.btf");
		typed_tp = &k;
		assert_int_equal(lang_parse("tracepoint:skb:kfree_skb { @ = sum(((struct sock *)"
					    "((struct sk_buff *)args->skbaddr)->sk)->__sk_common."
					    "skc_family); }", &prog, &err), 0);
		assert_int_equal(typed_compile(&t, &prog, 0, "x86_64", 0, &k, NULL, &out, &err), 0);
		assert_int_equal(out.n, 2);
		assert_string_equal(out.f[0].fetch, "+16(+24($skbaddr))");
		assert_string_equal(out.f[1].fetch, "+24($skbaddr)");
		n = sum_arg();
		assert_int_equal(n->k, N_TERNARY);
		assert_string_equal(n->a->sval, "skbaddr");
		assert_int_equal(n->c->ival, 0);
		n = n->b;
		assert_int_equal(n->k, N_TERNARY);
		assert_string_equal(n->a->sval, "t1");
		assert_int_equal(n->b->k, N_FIELD);
		assert_string_equal(n->b->sval, "t0");
		ctypes_close(t);
		lang_free(&prog);
		ctypes_set_btf_file(NULL);
	}

	/* Where the kernel has no eprobes (5.10, this host): refused by name. */
	typed_tp = &none;
	typed("tracepoint:skb:kfree_skb { @ = sum(((struct sk_buff *)args->skbaddr)->len); }",
	      "x86_64", 0, NULL, "through an eprobe on it (Linux 5.15 on), and this kernel has "
	      "no eprobe events (built without CONFIG_EPROBE_EVENTS)");
	typed("struct __kernel_timespec { long long tv_sec; long long tv_nsec; };\n"
	      "tracepoint:syscalls:sys_enter_nanosleep { @ = sum(args->rqtp->tv_sec); }",
	      "x86_64", 0, NULL, "this kernel has no eprobe events");
	/* ... and a plain use of such a field needs none. */
	typed("tracepoint:syscalls:sys_enter_nanosleep { @[args->rqtp] = count(); }", "x86_64", 0,
	      (const char *const[]){ NULL }, NULL);
	typed_tp = NULL;
}

/* curtask: $current where the kernel's probes have it (tracing/probes,
 * July 2026: no kernel of the matrix has it, so only the compilation is
 * tested), refused naming what the kernel lacks elsewhere. */
static void test_curtask(void **state)
{
	static const char defs[] = "struct task_struct { int pid; int tgid; "
				   "struct task_struct *real_parent; char comm[16]; };\n";
	struct typed_tp k = { .eprobes = true, .field_type = fake_field_type };
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%skprobe:f { $t = (struct task_struct *)curtask; "
		 "@[$t->real_parent->pid, $t->real_parent->comm, curtask->tgid] = count(); }", defs);
	typed(text, "x86_64", PS_CURRENT, (const char *const[]){ "t0=$current:u64",
	      "t1=+0(+8($current)):s32", "t2=+8($current):u64", "t3=+16(+8($current)):string",
	      "t4=+4($current):s32", NULL }, NULL);
	/* At an eprobe on a syscall: the task is kernel memory, not +u. */
	typed_tp = &k;
	k.user = true;
	snprintf(text, sizeof(text), "%stracepoint:syscalls:sys_enter_nanosleep "
		 "{ @[curtask->real_parent->pid] = count(); }", defs);
	typed(text, "x86_64", PS_CURRENT, (const char *const[]){ "t0=+0(+8($current)):s32",
	      "t1=+8($current):u64", NULL }, NULL);
	typed_tp = NULL;
	snprintf(text, sizeof(text), "%skprobe:f { @[curtask->pid] = count(); }", defs);
	typed(text, "x86_64", 0, NULL, "no $current fetch argument");
	typed(text, "x86_64", PS_ARGN, NULL, "only a BPF program gets (bpf_get_current_task)");
	snprintf(text, sizeof(text), "%suprobe:/bin/true:f { @[curtask->pid] = count(); }", defs);
	typed(text, "x86_64", PS_CURRENT, NULL, "a uprobe's fetch arguments read user memory");
	/* runqlen.bt's cast at profile:hz: curtask is the reason. */
	snprintf(text, sizeof(text), "%sprofile:hz:99 { $t = (struct task_struct *)curtask; "
		 "@[$t->pid] = count(); }", defs);
	typed(text, "x86_64", PS_ARGN, NULL, "only a BPF program gets (bpf_get_current_task)");
	snprintf(text, sizeof(text), "%sBEGIN { @[curtask->pid] = count(); }", defs);
	typed(text, "x86_64", PS_CURRENT, NULL, "curtask at BEGIN: ftr reads the task_struct "
	      "through a probe's fetch arguments");
}

/* A fake locate(): x86-64 6.1's current_task, 6.12's pcpu_hot, arm64's
 * __entry_task (an address above 2^63: a negative offset), or a refusal. */
static int fake_locate(void *ctx, struct kallsyms_current *loc, char *why, size_t wlen)
{
	const char *which = ctx;

	memset(loc, 0, sizeof(*loc));
	loc->offsets = 0xffffffff82a0b8c0;
	loc->cpus[0] = 0;
	loc->cpus[1] = 1;
	loc->ncpu = 2;
	if (!strcmp(which, "none")) {
		snprintf(why, wlen, "/proc/kallsyms has no current_task");
		return -ENOENT;
	}
	if (!strcmp(which, "many")) {
		for (int k = 0; k < 20; k++)
			loc->cpus[k] = k;
		loc->ncpu = 20;
	}
	snprintf(loc->var, sizeof(loc->var), "%s", which);
	if (!strcmp(which, "pcpu_hot"))
		snprintf(loc->member, sizeof(loc->member), "current_task");
	loc->addr = !strcmp(which, "__entry_task") ? 0xffff80000a5c2a40 : 0x1fbc0;
	return 0;
}

/* n as text: fields, numbers, builtins, ==, ?: */
static void sexpr(const struct node *n, char *out, size_t len)
{
	size_t l = strlen(out);

	if (n->k == N_FIELD || n->k == N_BUILTIN) {
		snprintf(out + l, len - l, "%s", n->sval);
	} else if (n->k == N_INT) {
		snprintf(out + l, len - l, "%lld", (long long)n->ival);
	} else if (n->k == N_BINOP && n->op == T_EQ) {
		sexpr(n->a, out, len);
		l = strlen(out);
		snprintf(out + l, len - l, "==");
		sexpr(n->b, out, len);
	} else if (n->k == N_TERNARY) {
		snprintf(out + l, len - l, "(");
		sexpr(n->a, out, len);
		l = strlen(out);
		snprintf(out + l, len - l, "?");
		sexpr(n->b, out, len);
		l = strlen(out);
		snprintf(out + l, len - l, ":");
		sexpr(n->c, out, len);
		l = strlen(out);
		snprintf(out + l, len - l, ")");
	} else {
		snprintf(out + l, len - l, "<%d>", n->k);
	}
}

/* curtask without $current: one field per possible CPU, the event's CPU
 * choosing (fetchargs.h typed_cur). */
static void test_curtask_per_cpu(void **state)
{
	static const char defs[] = "struct task_struct { int pid; int tgid; "
				   "struct task_struct *real_parent; char comm[16]; };\n"
				   "struct pcpu_hot { long pad; struct task_struct *current_task; };\n";
	struct typed_cur cur = { .locate = fake_locate, .ctx = "current_task" };
	struct typed_tp k = { .eprobes = true, .field_type = fake_field_type, .user = true };
	struct typed_out out;
	struct lang_err err;
	struct tenv *t = NULL;
	char text[512], got[512] = "";

	(void)state;
	setenv("FTR_VMLINUX_BTF", "/nonexistent", 1);
	typed_cur = &cur;
	snprintf(text, sizeof(text), "%skprobe:f { @[curtask->real_parent->pid] = count(); }",
		 defs);
	typed(text, "x86_64", PS_ARGN, (const char *const[]){
	      "t0_0=+0(+8(+0x1fbc0(@0xffffffff82a0b8c0))):s32",
	      "t0_1=+0(+8(+0x1fbc0(@0xffffffff82a0b8c8))):s32",
	      "t1_0=+8(+0x1fbc0(@0xffffffff82a0b8c0)):u64",
	      "t1_1=+8(+0x1fbc0(@0xffffffff82a0b8c8)):u64", NULL }, NULL);
	/* The node reading them: the NULL guard and the read, both per CPU. */
	cur.state = 0;
	assert_int_equal(lang_parse(text, &prog, &err), 0);
	assert_int_equal(typed_compile(&t, &prog, 0, "x86_64", PS_ARGN, NULL, &cur, &out, &err), 0);
	sexpr(prog.cl[0].body->a->args[0], got, sizeof(got));
	assert_string_equal(got, "((cpu==0?t1_0:t1_1)?(cpu==0?t0_0:t0_1):0)");
	assert_non_null(strstr(out.explain, "curtask is current_task, per CPU at +0x1fbc0 + "
			       "__per_cpu_offset[k] (0xffffffff82a0b8c0 + 8k)"));
	assert_non_null(strstr(out.explain, "    t1_1=+8(+0x1fbc0(@0xffffffff82a0b8c8)):u64\n"));
	ctypes_close(t);
	t = NULL;
	lang_free(&prog);
	/* naptime.bt at an eprobe: kernel memory (no +u) through the task. */
	typed_tp = &k;
	cur.state = 0;
	snprintf(text, sizeof(text), "%stracepoint:syscalls:sys_enter_nanosleep { $task = "
		 "(struct task_struct *)curtask; printf(\"%%s\\n\", $task->comm); }", defs);
	typed(text, "x86_64", 0, (const char *const[]){
	      "t0_0=+0x1fbc0(@0xffffffff82a0b8c0):u64", "t0_1=+0x1fbc0(@0xffffffff82a0b8c8):u64",
	      "t1_0=+16(+0x1fbc0(@0xffffffff82a0b8c0)):string",
	      "t1_1=+16(+0x1fbc0(@0xffffffff82a0b8c8)):string", NULL }, NULL);
	typed_tp = NULL;
	/* 6.12: pcpu_hot's member current_task, from the types (8 here). */
	cur = (struct typed_cur){ .locate = fake_locate, .ctx = "pcpu_hot" };
	snprintf(text, sizeof(text), "%skprobe:f { @[curtask->pid] = count(); }", defs);
	typed(text, "x86_64", PS_ARGN, (const char *const[]){
	      "t0_0=+0(+0x1fbc8(@0xffffffff82a0b8c0)):s32",
	      "t0_1=+0(+0x1fbc8(@0xffffffff82a0b8c8)):s32", NULL }, NULL);
	/* arm64: __entry_task in the kernel image, a negative offset. */
	cur = (struct typed_cur){ .locate = fake_locate, .ctx = "__entry_task" };
	typed(text, "arm64", PS_ARGN, (const char *const[]){
	      "t0_0=+0(-0x7ffff5a3d5c0(@0xffffffff82a0b8c0)):s32",
	      "t0_1=+0(-0x7ffff5a3d5c0(@0xffffffff82a0b8c8)):s32", NULL }, NULL);
	/* $current where the kernel has it: the placeholder stays. */
	typed(text, "x86_64", PS_CURRENT, (const char *const[]){ "t0=+0($current):s32", NULL },
	      NULL);
	/* Refusals: what kallsyms lacks; too many CPUs for the fields. */
	cur = (struct typed_cur){ .locate = fake_locate, .ctx = "none" };
	typed(text, "x86_64", PS_ARGN, NULL, "cannot be read instead: /proc/kallsyms has no "
	      "current_task");
	cur = (struct typed_cur){ .locate = fake_locate, .ctx = "many" };
	snprintf(text, sizeof(text), "%skprobe:f { @[curtask->real_parent->pid] = count(); }",
		 defs);
	typed(text, "x86_64", PS_ARGN, NULL, "2 reads through it on 20 possible CPUs, with 0 "
	      "others, is 40 fetch arguments, above the 22 of one clause");
	/* runqlen.bt at profile:hz: through the eprobe on the sampler's timer
	 * interrupt (events.c hrprof_clause), which this kernel may lack. */
	snprintf(text, sizeof(text), "%sprofile:hz:99 { $t = (struct task_struct *)curtask; "
		 "@[$t->pid] = count(); }", defs);
	typed(text, "x86_64", PS_ARGN, NULL, "curtask reads memory, which ftr does in a profile "
	      "clause through an eprobe on timer:hrtimer_expire_entry, the sampler's interrupt "
	      "(Linux 5.15 on), and this kernel has no eprobe events");
	typed_tp = &(struct typed_tp){ .eprobes = true };
	cur = (struct typed_cur){ .locate = fake_locate, .ctx = "6.1" };
	typed(text, "x86_64", PS_ARGN, (const char *const[]){
	      "t0_0=+0x1fbc0(@0xffffffff82a0b8c0):u64", "t0_1=+0x1fbc0(@0xffffffff82a0b8c8):u64",
	      "t1_0=+0(+0x1fbc0(@0xffffffff82a0b8c0)):s32",
	      "t1_1=+0(+0x1fbc0(@0xffffffff82a0b8c8)):s32", NULL }, NULL);
	typed_tp = NULL;
	typed_cur = NULL;
}

static void test_vmlinux(void **state)
{
	struct btf *b;
	char why[200];
	uint32_t id, proto, type;
	struct btf_member m;
	struct btf_t t;

	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		skip();
		return;
	}
	assert_int_equal(btf_load_file("/sys/kernel/btf/vmlinux", NULL, &b, why, sizeof(why)), 0);
	id = btf_find(b, "file", BTF_STRUCT);
	assert_true(id > 0);
	assert_int_equal(btf_find_member(b, id, "f_path", &m), 0);
	id = btf_find(b, "vfs_write", BTF_FUNC);
	assert_true(id > 0);
	btf_type(b, id, &t);
	proto = t.size_type;
	btf_type(b, proto, &t);
	assert_int_equal(t.kind, BTF_FUNC_PROTO);
	assert_int_equal(t.vlen, 4);
	assert_string_equal(btf_param(b, proto, 2, &type), "count");
	assert_int_equal(btf_size(b, type), 8);
	btf_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pahole_blob),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_program_layout),
		cmocka_unit_test(test_cpp),
		cmocka_unit_test(test_fetchargs),
		cmocka_unit_test(test_signed_bitfield),
		cmocka_unit_test(test_packed),
		cmocka_unit_test(test_aggregate_values),
		cmocka_unit_test(test_vmlinux_61),
		cmocka_unit_test(test_module_kfunc),
		cmocka_unit_test(test_tracepoint_fields),
		cmocka_unit_test(test_curtask),
		cmocka_unit_test(test_curtask_per_cpu),
		cmocka_unit_test(test_vmlinux),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
