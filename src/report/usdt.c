// SPDX-License-Identifier: GPL-2.0-or-later
/* USDT probes from an ELF file's .note.stapsdt: see usdt.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "report/usdt.h"

#ifndef NT_STAPSDT
#define NT_STAPSDT 3
#endif

static int setwhy(char *why, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int setwhy(char *why, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* The kernel's pt_regs names for x86-64's registers, by any width's name. */
static const char *x86_reg(const char *r, size_t n)
{
	static const struct {
		const char *pt, *names[4];
	} regs[] = {
		{ "ax", { "rax", "eax", "ax", "al" } }, { "bx", { "rbx", "ebx", "bx", "bl" } },
		{ "cx", { "rcx", "ecx", "cx", "cl" } }, { "dx", { "rdx", "edx", "dx", "dl" } },
		{ "si", { "rsi", "esi", "si", "sil" } }, { "di", { "rdi", "edi", "di", "dil" } },
		{ "bp", { "rbp", "ebp", "bp", "bpl" } }, { "sp", { "rsp", "esp", "sp", "spl" } },
		{ "ip", { "rip", "eip", "ip", NULL } },
		{ "r8", { "r8", "r8d", "r8w", "r8b" } }, { "r9", { "r9", "r9d", "r9w", "r9b" } },
		{ "r10", { "r10", "r10d", "r10w", "r10b" } }, { "r11", { "r11", "r11d", "r11w", "r11b" } },
		{ "r12", { "r12", "r12d", "r12w", "r12b" } }, { "r13", { "r13", "r13d", "r13w", "r13b" } },
		{ "r14", { "r14", "r14d", "r14w", "r14b" } }, { "r15", { "r15", "r15d", "r15w", "r15b" } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		for (int j = 0; j < 4; j++)
			if (regs[i].names[j] && strlen(regs[i].names[j]) == n &&
			    !strncmp(regs[i].names[j], r, n))
				return regs[i].pt;
	return NULL;
}

/* arm64: x0..x30 (or w0..w30, their low halves) and sp. */
static bool arm64_reg(const char *r, size_t n, char *out, size_t len)
{
	char *end;
	long v;

	if (n == 2 && !strncmp(r, "sp", 2)) {
		snprintf(out, len, "sp");
		return true;
	}
	if (n < 2 || n > 3 || (r[0] != 'x' && r[0] != 'w') || !isdigit((unsigned char)r[1]))
		return false;
	v = strtol(r + 1, &end, 10);
	if (end != r + n || v > 30)
		return false;
	snprintf(out, len, "x%d", (int)v);
	return true;
}

/* 32-bit ARM, as gas writes its registers: r0-r12 (r9 also sb, r10 sl, r11
 * fp, r12 ip), sp, lr, pc; the kernel's fetchargs call them r0-r10, fp, ip,
 * sp, lr, pc (arch/arm/kernel/ptrace.c). */
static bool arm_reg(const char *r, size_t n, char *out, size_t len)
{
	static const char *const alias[][2] = {
		{ "sb", "r9" }, { "sl", "r10" }, { "fp", "fp" }, { "ip", "ip" }, { "sp", "sp" },
		{ "lr", "lr" }, { "pc", "pc" }, { "r11", "fp" }, { "r12", "ip" }, { "r13", "sp" },
		{ "r14", "lr" }, { "r15", "pc" },
	};
	char *end;
	long v;

	for (size_t i = 0; i < ARRAY_SIZE(alias); i++) {
		if (strlen(alias[i][0]) == n && !strncmp(r, alias[i][0], n)) {
			snprintf(out, len, "%s", alias[i][1]);
			return true;
		}
	}
	if (n < 2 || n > 3 || r[0] != 'r' || !isdigit((unsigned char)r[1]))
		return false;
	v = strtol(r + 1, &end, 10);
	if (end != r + n || v > 10)
		return false;
	snprintf(out, len, "r%d", (int)v);
	return true;
}

/* A number as gas writes one: decimal, 0x hex, with a sign.  Sets *end. */
static bool number(const char *s, long long *v, const char **end)
{
	char *e;

	if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') &&
					     isdigit((unsigned char)s[1]))))
		return false;
	errno = 0;
	*v = strtoll(s, &e, 0);
	if (errno)
		return false;
	*end = e;
	return true;
}

static void disp_str(long long d, const char *reg, char *out, size_t len, const char *type)
{
	snprintf(out, len, "%s%lld(%%%s):%s", d < 0 ? "-" : "+", d < 0 ? -d : d, reg, type);
}

typedef int (*sym_fn)(const char *name, void *ctx, uint64_t *value);

static int x86_operand(const char *op, sym_fn sym_value, void *ctx, uint64_t pc,
		       const char *type, char *out, size_t len, char *why, size_t wl)
{
	const char *p = op, *reg, *e;
	long long d = 0;
	char sym[128] = "";

	if (*p == '%') {
		reg = x86_reg(p + 1, strlen(p + 1));
		if (!reg)
			return setwhy(why, wl, -ENOTSUP, "register '%s'", p);
		snprintf(out, len, "%%%s:%s", reg, type);
		return 0;
	}
	if (*p == '$') {
		if (!number(p + 1, &d, &e) || *e)
			return setwhy(why, wl, -ENOTSUP, "constant '%s'", p);
		snprintf(out, len, "\\%lld:%s", d, type);
		return 0;
	}
	/* Memory: [DISP](%REG) with DISP a number or SYMBOL[+-N]. */
	if (*p == '(') {
		e = p;
	} else if (!number(p, &d, &e)) {
		size_t n = strcspn(p, "+-(");

		if (!n || n >= sizeof(sym))
			return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
		memcpy(sym, p, n);
		e = p + n;
		if ((*e == '+' || *e == '-') && !number(e, &d, &e))
			return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
	}
	if (!*e || !strcmp(e, "(%rip)")) {
		uint64_t v;

		if (!sym[0])
			return setwhy(why, wl, -ENOTSUP, "an absolute address '%s'", op);
		if (!sym_value || sym_value(sym, ctx, &v) < 0)
			return setwhy(why, wl, -ENOTSUP, "'%s' is not a global of the file", sym);
		/* Read relative to the probe's own address, which is the ip at
		 * the probe (PIE or not): the uprobe fetch @+FILE_OFFSET reads
		 * 0 on 5.10 and 6.1 (seen in the matrix), +DISP(%ip)
		 * everywhere. */
		disp_str((int64_t)(v - pc) + d, "ip", out, len, type);
		return 0;
	}
	if (e[0] != '(' || e[1] != '%' || e[strlen(e) - 1] != ')' || strchr(e, ','))
		return setwhy(why, wl, -ENOTSUP, "operand '%s' (indexed memory)", op);
	if (sym[0])
		return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
	reg = x86_reg(e + 2, strlen(e + 2) - 1);
	if (!reg)
		return setwhy(why, wl, -ENOTSUP, "register in '%s'", op);
	disp_str(d, reg, out, len, type);
	return 0;
}

/*
 * gcc's way to a global on arm64: "adrp xN, SYM" before the probe puts SYM's
 * 4 KiB page in xN, and the operand "[xN, #:lo12:SYM]" adds the low 12 bits.
 * A load bias is page-aligned, so the link-time value's low bits are the
 * run-time ones.  gcc often names a section anchor (.LANCHOR1) instead of
 * the variable: a local label no symbol table keeps, which cannot be read.
 */
static int arm64_lo12(const char *op, const char *sym, const char *reg, sym_fn sym_value,
		      void *ctx, const char *type, char *out, size_t len, char *why, size_t wl)
{
	char name[128];
	size_t n = strcspn(sym, "+-]");
	long long d = 0;
	const char *e = sym + n;
	uint64_t v;

	if (!n || n >= sizeof(name))
		return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
	memcpy(name, sym, n);
	name[n] = '\0';
	if ((*e != ']' && !number(e, &d, &e)) || strcmp(e, "]"))
		return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
	if (!sym_value || sym_value(name, ctx, &v) < 0)
		return setwhy(why, wl, -ENOTSUP, name[0] == '.' ?
			      "operand '%s': '%s' is an assembler-local label, in no symbol table" :
			      "operand '%s': '%s' is not a global of the file", op, name);
	disp_str((long long)(v & 0xfff) + d, reg, out, len, type);
	return 0;
}

/* arm64's operands; 32-bit ARM's have the same shapes ("r0", "#42",
 * "[fp, #-12]"), with its own register names (reg). */
static int arm64_operand(const char *op, sym_fn sym_value, void *ctx, const char *type, char *out,
			 size_t len, char *why, size_t wl,
			 bool (*reg_name)(const char *r, size_t n, char *out, size_t len))
{
	char reg[16];
	const char *e;
	long long d = 0;

	if (reg_name(op, strlen(op), reg, sizeof(reg))) {
		snprintf(out, len, "%%%s:%s", reg, type);
		return 0;
	}
	if (number(op[0] == '#' ? op + 1 : op, &d, &e) && !*e) {
		snprintf(out, len, "\\%lld:%s", d, type);
		return 0;
	}
	if (op[0] == '[' && op[strlen(op) - 1] == ']') {
		const char *r = op + 1, *c = strchr(r, ',');
		size_t n = c ? (size_t)(c - r) : strlen(r) - 1;

		if (!reg_name(r, n, reg, sizeof(reg)))
			return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
		if (c) {
			c++;
			while (*c == ' ')
				c++;
			if (*c == '#')
				c++;
			if (!strncmp(c, ":lo12:", 6))
				return arm64_lo12(op, c + 6, reg, sym_value, ctx, type, out, len, why, wl);
			if (!number(c, &d, &e) || strcmp(e, "]"))
				return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
		}
		disp_str(d, reg, out, len, type);
		return 0;
	}
	return setwhy(why, wl, -ENOTSUP, "operand '%s'", op);
}

int usdt_operand(const char *op, int machine, uint64_t pc,
		 int (*sym_value)(const char *name, void *ctx, uint64_t *value), void *ctx, char *out,
		 size_t len, char *why, size_t whylen)
{
	const char *at = strchr(op, '@');
	long size = 8;
	char type[8];

	/* "N@OPERAND"; sdt.h before version 3 wrote no size. */
	if (at && at > op) {
		char *e;

		size = strtol(op, &e, 10);
		if (e != at || !size)
			return setwhy(why, whylen, -EINVAL, "bad size in '%s'", op);
		op = at + 1;
	}
	switch (size < 0 ? -size : size) {
	case 1: case 2: case 4: case 8:
		break;
	default:
		return setwhy(why, whylen, -EINVAL, "bad size in '%s'", op);
	}
	snprintf(type, sizeof(type), "%c%ld", size < 0 ? 's' : 'u', (size < 0 ? -size : size) * 8);
	if (machine == EM_X86_64)
		return x86_operand(op, sym_value, ctx, pc, type, out, len, why, whylen);
	if (machine == EM_AARCH64)
		return arm64_operand(op, sym_value, ctx, type, out, len, why, whylen, arm64_reg);
	if (machine == EM_ARM)
		return arm64_operand(op, sym_value, ctx, type, out, len, why, whylen, arm_reg);
	return setwhy(why, whylen, -ENOTSUP, "USDT arguments of this machine (ELF e_machine %d)",
		      machine);
}

struct file {
	Elf *elf;
	size_t nph;
	uint64_t pc;		/* the probe's address */
};

/* The file offset of a virtual address, through the PT_LOAD holding it. */
static int64_t vaddr_off(struct file *f, uint64_t v)
{
	for (size_t i = 0; i < f->nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz)
			return (int64_t)(v - ph.p_vaddr + ph.p_offset);
	}
	return -1;
}

static int sym_value(const char *name, void *ctx, uint64_t *value)
{
	struct file *f = ctx;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			n = elf_strptr(f->elf, sh.sh_link, s.st_name);
			if (n && !strcmp(n, name)) {
				*value = s.st_value;
				return 0;
			}
		}
	}
	return -1;
}

/*
 * The arguments are separated by spaces, but an arm64 memory operand has one
 * of its own ("-8@[x21, #:lo12:.LANCHOR1]"): split outside brackets only.
 */
static void translate(struct usdt_probe *p, int machine, struct file *f)
{
	const char *s = p->args;

	while (p->nargs < USDT_MAX_ARGS) {
		char op[sizeof(p->args)];
		size_t n = 0;
		int depth = 0;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		for (; *s && (depth || *s != ' '); s++) {
			depth += *s == '[' ? 1 : *s == ']' && depth ? -1 : 0;
			op[n++] = *s;
		}
		op[n] = '\0';
		if (usdt_operand(op, machine, f->pc, sym_value, f, p->fetch[p->nargs],
				 sizeof(p->fetch[p->nargs]), p->why[p->nargs],
				 sizeof(p->why[p->nargs])) < 0)
			p->fetch[p->nargs][0] = '\0';
		p->nargs++;
	}
}

static int read_notes(struct file *f, int machine, uint64_t base_addr, bool has_base,
		      struct usdt_probe **out, size_t *n)
{
	Elf_Scn *scn = NULL;
	size_t shstr, word = gelf_getclass(f->elf) == ELFCLASS32 ? 4 : 8;

	if (elf_getshdrstrndx(f->elf, &shstr))
		return -EINVAL;
	while ((scn = elf_nextscn(f->elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		Elf_Data *d;
		size_t off = 0, noff, doff;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(f->elf, shstr, sh.sh_name);
		if (!name || strcmp(name, ".note.stapsdt") || !(d = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const char *desc = (const char *)d->d_buf + doff, *s, *end = desc + nh.n_descsz;
			uint64_t a[3] = { 0, 0, 0 };
			struct usdt_probe *p, *v;

			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + noff, "stapsdt", 8) ||
			    nh.n_descsz < 3 * word + 3)
				continue;
			for (int i = 0; i < 3; i++) {
				if (word == 8) {
					memcpy(&a[i], desc + 8 * i, 8);
				} else {
					uint32_t w;

					memcpy(&w, desc + 4 * i, 4);
					a[i] = w;
				}
			}
			v = realloc(*out, (*n + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			*out = v;
			p = &v[*n];
			memset(p, 0, sizeof(*p));
			s = desc + 3 * word;
			snprintf(p->provider, sizeof(p->provider), "%.*s", (int)strnlen(s, end - s), s);
			s += strnlen(s, end - s) + 1;
			if (s >= end)
				continue;
			snprintf(p->name, sizeof(p->name), "%.*s", (int)strnlen(s, end - s), s);
			s += strnlen(s, end - s) + 1;
			if (s < end)
				snprintf(p->args, sizeof(p->args), "%.*s", (int)strnlen(s, end - s), s);
			/* Prelinked: .stapsdt.base moved, and pc and semaphore
			 * with it. */
			p->pc = a[0];
			if (has_base && a[1]) {
				p->pc += base_addr - a[1];
				if (a[2])
					a[2] += base_addr - a[1];
			}
			if (vaddr_off(f, p->pc) < 0)
				continue;
			p->pc_off = (uint64_t)vaddr_off(f, p->pc);
			p->sem_off = a[2] && vaddr_off(f, a[2]) > 0 ? (uint64_t)vaddr_off(f, a[2]) : 0;
			f->pc = p->pc;
			translate(p, machine, f);
			(*n)++;
		}
	}
	return 0;
}

int usdt_read(const char *path, struct usdt_probe **out, size_t *n, char *why, size_t whylen)
{
	struct file f = { 0 };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	uint64_t base = 0;
	bool has_base = false;
	size_t shstr;
	int fd, ret;

	*out = NULL;
	*n = 0;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return setwhy(why, whylen, -EINVAL, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return setwhy(why, whylen, -errno, "cannot open '%s': %s", path, strerror(errno));
	f.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!f.elf || elf_kind(f.elf) != ELF_K_ELF || !gelf_getehdr(f.elf, &eh) ||
	    elf_getphdrnum(f.elf, &f.nph)) {
		ret = setwhy(why, whylen, -ENOEXEC, "'%s' is not an ELF file", path);
		goto out;
	}
	if (!elf_getshdrstrndx(f.elf, &shstr)) {
		while ((scn = elf_nextscn(f.elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) && (name = elf_strptr(f.elf, shstr, sh.sh_name)) &&
			    !strcmp(name, ".stapsdt.base")) {
				base = sh.sh_addr;
				has_base = true;
			}
		}
	}
	ret = read_notes(&f, eh.e_machine, base, has_base, out, n);
	if (ret) {
		free(*out);
		*out = NULL;
		*n = 0;
		setwhy(why, whylen, ret, "cannot read the USDT notes of '%s': %s", path,
		       strerror(-ret));
	}
out:
	if (f.elf)
		elf_end(f.elf);
	close(fd);
	return ret;
}
