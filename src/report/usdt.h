/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * USDT probes (SystemTap's <sys/sdt.h>, also DTrace-compatible programs):
 * the ELF notes of type 3 owned by "stapsdt" in section .note.stapsdt.  Each
 * note's descriptor holds three addresses of the file's word size — the
 * probe's pc, the link-time address of section .stapsdt.base, and the
 * semaphore (0: none) — then the provider, the name and the arguments as
 * NUL-terminated strings.  When the file was prelinked (.stapsdt.base is
 * no longer at the address the note recorded) pc and semaphore move by the
 * same amount.  Arguments are assembler operands with a size ("-4@%eax":
 * signed, 4 bytes; "8@-16(%rbp)", "4@$42"; arm64 "8@x0", "-4@[sp, 12]").
 *
 * Each argument is translated here into a uprobe fetcharg: a register
 * (%di), memory at an offset from one (+16(%bp)), a constant (\42), or a
 * global of the file, read at its distance from the probe (+11454(%ip)).
 */
#ifndef FTR_USDT_H
#define FTR_USDT_H

#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12

struct usdt_probe {
	char provider[64], name[64];
	uint64_t pc;			/* virtual address (prelink-adjusted) */
	uint64_t pc_off;		/* its file offset: the uprobe's place */
	uint64_t sem_off;		/* the semaphore's file offset; 0: none */
	int nargs;
	char args[512];			/* the operand strings as in the note */
	/* per argument: a fetcharg with its type ("%di:s64"), or "" with
	 * why[i] saying why it cannot be fetched */
	char fetch[USDT_MAX_ARGS][80];
	char why[USDT_MAX_ARGS][80];
};

/*
 * The USDT probes of the ELF file path (x86-64 or arm64 code).  *out is a
 * malloc'd array of *n (0 when the file has none).  0 or -errno with why.
 */
int usdt_read(const char *path, struct usdt_probe **out, size_t *n, char *why, size_t whylen);

/*
 * Pure: one operand ("-4@-20(%rbp)") of a file for machine (EM_X86_64,
 * EM_AARCH64) of the probe at link-time address pc into a fetcharg with its
 * type.  Globals (x86 sym(%rip), arm64 [xN, #:lo12:sym]) are looked up with
 * sym_value(name, ctx, &value), which gives their link-time address (0, or
 * -1: no such global).  0, or -EINVAL/-ENOTSUP with why.
 */
int usdt_operand(const char *op, int machine, uint64_t pc,
		 int (*sym_value)(const char *name, void *ctx, uint64_t *value), void *ctx,
		 char *out, size_t len, char *why, size_t whylen);

#endif
