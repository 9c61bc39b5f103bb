/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function symbols of an ELF file (executable, PIE or shared library), read
 * once with libelf into memory (the file is closed again), sorted by address:
 * look up by name (uprobes: symbol → file offset) or by address (the
 * profiler: sampled address → symbol).
 *
 * Addresses are the file's own link-time virtual addresses (st_value).  A
 * uprobe wants a FILE OFFSET: elfsym_vaddr_to_offset().  A sample in a
 * mapping (/proc/PID/maps: start, pgoff) is at file offset
 * ip - start + pgoff: elfsym_offset_to_vaddr() gives the address to look up.
 */
#ifndef FTR_ELFSYM_H
#define FTR_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfsym_sym {
	const char *name;	/* as in the file, e.g. "memcpy@@GLIBC_2.14" */
	uint64_t addr;		/* st_value */
	uint64_t size;		/* st_size; 0 when unknown */
	unsigned char type;	/* STT_FUNC or STT_GNU_IFUNC */
	unsigned char bind;	/* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	bool dynamic;		/* from .dynsym (exported) */
	bool hidden;		/* an old symbol version (NAME@VER, not the
				 * default NAME@@VER): not chosen by name while
				 * the default exists */
};

struct elfsym;

/*
 * Open PATH and load its function symbols from .symtab and .dynsym.
 * 0 or -errno; on failure why (if not NULL) says what is wrong in words:
 * -ENOENT/-EACCES (file), -ENOEXEC (not ELF, or not an executable or
 * shared object), -EINVAL (corrupt).
 */
int elfsym_open(const char *path, struct elfsym **out, char *why, size_t whylen);
void elfsym_close(struct elfsym *e);

const char *elfsym_path(const struct elfsym *e);
bool elfsym_has_symtab(const struct elfsym *e);	/* false: stripped */
bool elfsym_is_pie_or_dso(const struct elfsym *e);	/* ET_DYN */
size_t elfsym_count(const struct elfsym *e);
const struct elfsym_sym *elfsym_get(const struct elfsym *e, size_t i);	/* by address */

/*
 * By name.  An exact match wins; else "NAME@VERSION" / "NAME@@VERSION"
 * symbols (.symtab spelling) match NAME, the default @@ version preferred;
 * in .dynsym, old versions (hidden in .gnu.version) give way to the default
 * one (libc's memcpy@GLIBC_2.2.5 vs memcpy@@GLIBC_2.14).  Aliases at one
 * address are one answer.  When the name is at several addresses, a single
 * global one wins; else -ENOTUNIQ and *sym is the first, *nmatch the count.
 * 0, -ENOENT, -ENOTUNIQ.
 */
int elfsym_find(const struct elfsym *e, const char *name, const struct elfsym_sym **sym,
		size_t *nmatch);

/* The function containing addr (NULL if none); *off = addr - sym->addr. */
const struct elfsym_sym *elfsym_at(const struct elfsym *e, uint64_t addr, uint64_t *off);

/* Through the executable PT_LOAD segment holding vaddr: file offset =
 * vaddr - p_vaddr + p_offset.  0, or -ERANGE (no executable segment holds
 * it). */
int elfsym_vaddr_to_offset(const struct elfsym *e, uint64_t vaddr, uint64_t *off);
/* The reverse, for any PT_LOAD segment holding file offset off.  0/-ERANGE. */
int elfsym_offset_to_vaddr(const struct elfsym *e, uint64_t off, uint64_t *vaddr);

/* The executable PT_LOAD segment holding file offset off: its file range
 * [*start, *start + *len).  0, or -ERANGE. */
int elfsym_exec_segment(const struct elfsym *e, uint64_t off, uint64_t *start, uint64_t *len);
/* The contents of section name (".gnu_debuglink", ".gnu_debugdata") of the
 * file at path, malloc'd into *data, *len bytes.  0, -ENOENT (no such
 * section), or -errno. */
int elfsym_section(const char *path, const char *name, void **data, size_t *len);
/* Sections names[0..n) at once, each into data[i], len[i] (NULL, 0: not
 * in the file), compressed ones (SHF_COMPRESSED) inflated.  0 (one at
 * least found), -ENOENT (none), or -errno. */
int elfsym_sections(const char *path, const char *const *names, size_t n, void **data,
		    size_t *len);

/* Up to n names "close" to name, for "did you mean": starting with it, then
 * containing it, then sharing its first four characters.  Returns how many
 * were stored. */
size_t elfsym_similar(const struct elfsym *e, const char *name, const char **out, size_t n);

#endif
