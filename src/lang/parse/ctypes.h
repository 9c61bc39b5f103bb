/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C types for the language: where they come from, and the C a program may
 * hold.  Types come, in this order, from the kernel's BTF
 * (/sys/kernel/btf/vmlinux, and the one module's whose kfuncs the program
 * probes, kfunc:MOD:FUNC or a FUNC vmlinux lacks: its split BTF is then the
 * base), or the BTF file given with --btf instead, and from
 * struct/union/enum/typedef definitions written in the program, laid out
 * with the LP64 C ABI of x86-64 and arm64 (alignment, padding, bitfields,
 * nested and anonymous members, arrays).  The program's types are BTF too —
 * built as split BTF over the kernel's — so one reader answers every
 * question about a type.
 *
 * The program's preprocessor lines: #include <...> is accepted and needs no
 * header; #define NAME TEXT replaces NAME in what follows, #define
 * NAME(A, B) TEXT replaces NAME(X, Y) (on one line) with TEXT, A and B
 * replaced by X and Y; a replacement is scanned again (a macro not inside
 * itself, as in C);
 * #ifdef/#ifndef/#if 0|1/#else/#endif nest, with BPFTRACE_HAVE_BTF defined
 * when BTF (the kernel's or --btf's) is in use.  Lines dropped are blanked,
 * so that positions in messages stay right.
 */
#ifndef FTR_CTYPES_H
#define FTR_CTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct lang_err;
struct program;

/* --btf FILE for this process (before lang_parse), or NULL. */
void ctypes_set_btf_file(const char *path);
/* Is BTF in use (the --btf file, else /sys/kernel/btf/vmlinux readable)? */
bool ctypes_have_btf(void);
/* That BTF's file (--btf's, else the kernel's if readable), or NULL. */
const char *ctypes_btf_path(void);

/* The preprocessor over text: a new string (malloc'd), or NULL with err. */
char *lang_cpp(const char *text, struct lang_err *err);
/* -I DIR (bpftrace's): a directory where #include's headers are looked
 * for.  The string is kept.  0, or -E2BIG past 16. */
int lang_include_dir_add(const char *dir);
/* The program file's directory, where #include "NAME" looks first, as C
 * looks beside the including file (the current directory when none). */
void lang_program_dir_set(const char *file);
/* 0 when the header NAME (len bytes, as between #include's <> or "") may
 * be included: found (an absolute NAME as it is; a quoted one beside the
 * program first), a kernel header (BTF to ftr), or nothing to look in;
 * else -ENOENT with why. */
int lang_header_check(const char *name, size_t len, bool quoted, char *why, size_t wlen);

/* A top-level C definition of a program, as written (preamble.c keeps them). */
struct cdecl {
	char *text;
	int line, col;
};

struct tenv;

/*
 * The types of program p: BTF loaded (when need_btf or p defines types
 * that name types it does not define), p's definitions laid out.  0, or
 * -errno with err (a definition's position and what is wrong with it).
 */
int ctypes_open(const struct program *p, struct tenv **out, struct lang_err *err);
void ctypes_close(struct tenv *t);
const struct btf *ctypes_btf(struct tenv *t);
/* Where the BTF came from ("/sys/kernel/btf/vmlinux", the --btf file), or NULL. */
const char *ctypes_btf_source(struct tenv *t);
/* The BTF is the running kernel's (the one its probes type arguments by),
 * not --btf's. */
bool ctypes_btf_running(struct tenv *t);

/*
 * The type a C type name spells ("struct file *", "unsigned char", "u32",
 * "struct sk_buff **"): the type and how many '*' follow it, loading the kernel's BTF when it names a type the
 * program does not define.  0, or -ENOENT/-EINVAL with why (naming a
 * missing BTF and the --btf remedy where that is the cause).
 */
int ctypes_parse_name(struct tenv *t, const char *text, uint32_t *id, int *nptr, char *why,
		      size_t wlen);
/* The prototype (FUNC_PROTO) of kernel function [MOD:]name, or 0 with why. */
uint32_t ctypes_func_proto(struct tenv *t, const char *name, char *why, size_t wlen);

/* Is w[0..n) a C type keyword or an integer type name ftr knows (u32, uint8)? */
bool ctypes_is_type_word(const char *w, size_t n);
/* Why there is no BTF (the remedy included), or "" when there is. */
const char *ctypes_why(struct tenv *t);

/* The value of an UPPER_CASE constant: an enumerator of the program's or
 * the BTF's enums (*eid its enum's type id), or a header constant
 * bpftrace's tools use (AF_INET...; *eid 0).  0, or -ENOENT. */
int ctypes_constant(struct tenv *t, const char *name, int64_t *val, uint32_t *eid);
/* The enumerator of enum type id (through typedefs) whose value is v, or
 * NULL: how bpftrace prints a value of an enum type. */
const char *ctypes_enum_name(struct tenv *t, uint32_t id, int64_t v);

/* C's alignment of type id on LP64, in bytes (1 when unknown). */
unsigned ctypes_align(const struct btf *b, uint32_t id);

#endif
