/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftr's own BTF reader (the format of the kernel's Documentation/bpf/btf.rst;
 * no BPF library).  A blob is validated whole when loaded — every record
 * inside the type section, every name inside the string section, every type
 * id it refers to below the number of types — so the accessors need no
 * checks of their own and malformed input is refused, never read past.
 *
 * Split BTF (a module's, or the types a program defines, over the kernel's)
 * numbers its types after its base's and its strings after the base's
 * string section; a split btf keeps a pointer to its base, which must
 * outlive it.
 */
#ifndef FTR_BTF_H
#define FTR_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum btf_kind {
	BTF_UNKN, BTF_INT, BTF_PTR, BTF_ARRAY, BTF_STRUCT, BTF_UNION, BTF_ENUM, BTF_FWD,
	BTF_TYPEDEF, BTF_VOLATILE, BTF_CONST, BTF_RESTRICT, BTF_FUNC, BTF_FUNC_PROTO,
	BTF_VAR, BTF_DATASEC, BTF_FLOAT, BTF_DECL_TAG, BTF_TYPE_TAG, BTF_ENUM64, BTF_KIND_NR
};

/* BTF_INT encoding bits */
/* A pointer's size, which BTF does not record: the traced kernel's word.  ftr
 * runs on the machine it traces, so it is ftr's own (4 bytes on armhf). */
#define BTF_PTR_SIZE ((unsigned)sizeof(void *))

#define BTF_INT_SIGNED 1
#define BTF_INT_CHAR 2
#define BTF_INT_BOOL 4

struct btf;

/* One type record, decoded. */
struct btf_t {
	enum btf_kind kind;
	bool kflag;
	unsigned vlen;
	const char *name;	/* "" for anonymous */
	uint32_t size_type;	/* size (INT, STRUCT, UNION, ENUM*, FLOAT, DATASEC) or type */
	const uint32_t *extra;	/* the kind's trailing words (validated) */
};

struct btf_member {
	const char *name;
	uint32_t type;
	uint32_t bit_off;	/* from the start of the struct */
	uint32_t bits;		/* bitfield width; 0 when not a bitfield */
};

/* Load a blob (copied).  base: the kernel's BTF for split BTF, or NULL.
 * 0, or -EINVAL with why (what is malformed, where), or -ENOMEM. */
int btf_load(const void *data, size_t len, const struct btf *base, struct btf **out,
	     char *why, size_t wlen);
/* The same from a file (at most 64 MB). */
int btf_load_file(const char *path, const struct btf *base, struct btf **out, char *why,
		  size_t wlen);
void btf_free(struct btf *b);

/* Types 1..btf_nr(b)-1 exist (0 is void), the base's included. */
uint32_t btf_nr(const struct btf *b);
/* Type id: 0 with t->kind BTF_UNKN for void or an id out of range. */
void btf_type(const struct btf *b, uint32_t id, struct btf_t *t);
/* The first type named name of kind kind (BTF_UNKN: any kind but FUNC, VAR,
 * DECL_TAG), this btf's own types before its base's.  Id, or 0. */
uint32_t btf_find(const struct btf *b, const char *name, enum btf_kind kind);
/* Through typedefs, const, volatile, restrict and type tags (bounded). */
uint32_t btf_skip(const struct btf *b, uint32_t id);
/* Size in bytes of type id (pointers: 8), or -EINVAL for one with none. */
int64_t btf_size(const struct btf *b, uint32_t id);
/* Member i of struct/union id (i < vlen). */
void btf_member(const struct btf *b, uint32_t id, unsigned i, struct btf_member *m);
/* Member name of struct/union id, searching anonymous members too; bit_off
 * is from the start of id.  0, or -ENOENT. */
int btf_find_member(const struct btf *b, uint32_t id, const char *name, struct btf_member *m);
/* Parameter i of FUNC_PROTO id: its name (maybe "") and type. */
const char *btf_param(const struct btf *b, uint32_t id, unsigned i, uint32_t *type);
/* Enumerator i of ENUM/ENUM64 id. */
const char *btf_enumerator(const struct btf *b, uint32_t id, unsigned i, int64_t *val);
/* A C spelling of type id ("struct file *", "unsigned int", "char[16]"). */
void btf_type_str(const struct btf *b, uint32_t id, char *out, size_t len);

/* ---- building (types a program defines) ------------------------------------ */

/* A blob under construction: btf_load() it (with its base) when done. */
struct btf_builder {
	uint32_t *types;	/* header words, then records */
	size_t ntw, captw;
	char *strs;
	size_t slen, capstr;
	uint32_t first_id;	/* the base's btf_nr(), or 1 */
	uint32_t nr;		/* types added */
	uint32_t str_base;	/* the base's string section length */
	bool oom;
};

void btfb_init(struct btf_builder *bb, const struct btf *base);
/* Add a type record: the id it gets. */
uint32_t btfb_add(struct btf_builder *bb, enum btf_kind kind, bool kflag, unsigned vlen,
		  const char *name, uint32_t size_type);
/* Append one trailing word to the last record. */
void btfb_word(struct btf_builder *bb, uint32_t w);
/* A name's offset in the strings (added). */
uint32_t btfb_str(struct btf_builder *bb, const char *s);
/* The blob (malloc'd, caller frees) and its length; NULL on ENOMEM. */
void *btfb_finish(struct btf_builder *bb, size_t *len);

#endif
