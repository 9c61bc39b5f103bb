/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Source file, line and inlined calls of an address, from the DWARF of an
 * ELF file (versions 2 to 5, 32- and 64-bit DWARF): the CU holding the
 * address (.debug_aranges, else every CU's own ranges), its line-number
 * program (.debug_line, .debug_line_str) for the file and line, and its DIE
 * tree (.debug_info, .debug_abbrev, ranges in .debug_ranges or
 * .debug_rnglists) for the DW_TAG_subprogram and DW_TAG_inlined_subroutine
 * that hold it: the chain of calls inlined there, as addr2line -f -i tells
 * it.  libdw would do it in ~600 KB the static binary does not have room
 * for; this reads only what that needs.
 *
 * The sections are read once, inflated when SHF_COMPRESSED, and the file
 * closed; every lookup parses what it needs again, bounds-checked (a
 * malformed file gives fewer answers, never a read outside its data).
 * Addresses are the file's own link-time ones (elfsym.h).  Little-endian
 * files only (those of the machine ftr runs on).
 */
#ifndef FTR_DWLINE_H
#define FTR_DWLINE_H

#include <stddef.h>
#include <stdint.h>

#define DWLINE_MAX_FRAMES 16

struct dwline_frame {
	const char *name;	/* the function (linkage name, else name); NULL: unknown */
	char file[256];		/* the source file, its directories joined as addr2line does */
	uint32_t line;		/* 0: unknown */
};

struct dwline;

/* The DWARF of the ELF file at path.  0, -ENOENT (no .debug_line: no
 * lines to give), -ENOMEM, or -errno (the file). */
int dwline_open(const char *path, struct dwline **out);
void dwline_close(struct dwline *d);
/* Pure: the same over sections already in memory (the fuzz target's way
 * in): info, abbrev, line, line_str, str, str_offsets, addr, ranges,
 * rnglists, aranges; each may be NULL.  They stay the caller's. */
enum { DWS_INFO, DWS_ABBREV, DWS_LINE, DWS_LINE_STR, DWS_STR, DWS_STR_OFF, DWS_ADDR,
       DWS_RANGES, DWS_RNGLISTS, DWS_ARANGES, DWS_N };
int dwline_from(const void *const sec[DWS_N], const size_t len[DWS_N], struct dwline **out);

/*
 * What is at addr: f[0] the innermost function inlined there (its file
 * and line the line table's for addr), then each function it was inlined
 * into (at the call's file and line), the last being the function the
 * code belongs to.  Returns the number of frames stored (up to max),
 * 0 when the line table does not cover addr, or -ENOMEM.
 */
int dwline_lookup(struct dwline *d, uint64_t addr, struct dwline_frame *f, int max);

#endif
