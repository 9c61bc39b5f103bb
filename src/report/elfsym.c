// SPDX-License-Identifier: GPL-2.0-or-later
/* ELF function symbols with libelf: see elfsym.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <stdarg.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/elfsym.h"
#include "ftr.h"

struct seg {
	uint64_t vaddr, memsz, offset, filesz;
	bool exec;
};

struct elfsym {
	char *path;
	bool has_symtab;
	bool dyn;
	struct seg *segs;
	size_t nsegs;
	struct elfsym_sym *syms;	/* sorted by address, preferred alias first */
	size_t nsyms;
	char *pool;			/* every name, NUL-separated */
};

/* While loading, names are offsets into the growing pool. */
struct raw_sym {
	struct elfsym_sym s;
	size_t name_off;
};

static int bind_rank(unsigned char bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* Among aliases at one address, the name to show: global before weak before
 * local, then fewer leading underscores ("malloc" before "__libc_malloc"),
 * then shorter, then alphabetical (for a stable order). */
static int alias_cmp(const struct elfsym_sym *a, const struct elfsym_sym *b)
{
	size_t ua = strspn(a->name, "_"), ub = strspn(b->name, "_");
	size_t la = strlen(a->name), lb = strlen(b->name);

	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int sym_cmp(const void *pa, const void *pb)
{
	const struct elfsym_sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return alias_cmp(a, b);
}

static void set_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

static int load_segments(struct elfsym *e, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	e->segs = calloc(n ? n : 1, sizeof(*e->segs));
	if (!e->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		e->segs[e->nsegs++] = (struct seg){
			.vaddr = ph.p_vaddr, .memsz = ph.p_memsz, .offset = ph.p_offset,
			.filesz = ph.p_filesz, .exec = ph.p_flags & PF_X,
		};
	}
	return 0;
}

struct loader {
	struct raw_sym *v;
	size_t n, cap;
	char *pool;
	size_t pool_len, pool_cap;
};

static int add_name(struct loader *l, const char *name, size_t *off)
{
	size_t len = strlen(name) + 1;

	if (l->pool_len + len > l->pool_cap) {
		size_t cap = l->pool_cap ? l->pool_cap * 2 : 65536;
		char *p;

		while (cap < l->pool_len + len)
			cap *= 2;
		p = realloc(l->pool, cap);
		if (!p)
			return -ENOMEM;
		l->pool = p;
		l->pool_cap = cap;
	}
	memcpy(l->pool + l->pool_len, name, len);
	*off = l->pool_len;
	l->pool_len += len;
	return 0;
}

static int load_symtab(struct loader *l, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, bool dynamic,
		       Elf_Data *versym)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count;

	/* A separate debug file's sections can be NOBITS: no data. */
	if (!data || !data->d_buf || sh->sh_entsize == 0)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < count; i++) {
		unsigned char type;
		const char *name;
		GElf_Sym sym;
		struct raw_sym *r;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;	/* imported, not defined here */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 1024;
			struct raw_sym *v = realloc(l->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			l->v = v;
			l->cap = cap;
		}
		r = &l->v[l->n];
		memset(r, 0, sizeof(*r));
		if (add_name(l, name, &r->name_off) < 0)
			return -ENOMEM;
		r->s.addr = sym.st_value;
		r->s.size = sym.st_size;
		r->s.type = type;
		r->s.bind = GELF_ST_BIND(sym.st_info);
		r->s.dynamic = dynamic;
		if (dynamic && versym) {
			GElf_Versym vs;

			/* Bit 15: a hidden, non-default version (NAME@VER). */
			if (gelf_getversym(versym, (int)i, &vs) && (vs & 0x8000))
				r->s.hidden = true;
		}
		l->n++;
	}
	return 0;
}

static int load_symbols(struct elfsym *e, Elf *elf)
{
	struct loader l = { 0 };
	Elf_Scn *scn = NULL;
	Elf_Data *versym = NULL;
	size_t w = 0;
	int err = 0;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			versym = elf_getdata(scn, NULL);
	}
	scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && sh.sh_size > 0) {
			e->has_symtab = true;
			err = load_symtab(&l, elf, scn, &sh, false, NULL);
		} else if (sh.sh_type == SHT_DYNSYM) {
			err = load_symtab(&l, elf, scn, &sh, true, versym);
		}
		if (err)
			goto fail;
	}
	e->syms = calloc(l.n ? l.n : 1, sizeof(*e->syms));
	if (!e->syms) {
		err = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < l.n; i++) {
		e->syms[i] = l.v[i].s;
		e->syms[i].name = l.pool + l.v[i].name_off;
	}
	qsort(e->syms, l.n, sizeof(*e->syms), sym_cmp);
	/* .symtab repeats what .dynsym exports: keep one of each, marked
	 * exported when either says so. */
	for (size_t i = 0; i < l.n; i++) {
		if (w > 0 && e->syms[w - 1].addr == e->syms[i].addr &&
		    !strcmp(e->syms[w - 1].name, e->syms[i].name)) {
			e->syms[w - 1].dynamic |= e->syms[i].dynamic;
			e->syms[w - 1].hidden &= e->syms[i].hidden;
			if (!e->syms[w - 1].size)
				e->syms[w - 1].size = e->syms[i].size;
			continue;
		}
		e->syms[w++] = e->syms[i];
	}
	e->nsyms = w;
	e->pool = l.pool;
	free(l.v);
	return 0;
fail:
	free(l.v);
	free(l.pool);
	return err;
}

/*
 * Whether the headers describe more than the file holds (a copy cut short,
 * a corrupted file).  libelf then finds no sections, and a file without
 * sections would pass for a stripped one.  true with why set.
 */
static bool elf_truncated(Elf *elf, const GElf_Ehdr *eh, int fd, char *why, size_t whylen,
			  const char *path)
{
	uint64_t need = 0, at = 0;
	Elf_Scn *scn = NULL;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	if (eh->e_phnum)
		need = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
	if (eh->e_shoff && eh->e_shoff + (uint64_t)(eh->e_shnum ? eh->e_shnum : 1) *
	    eh->e_shentsize > need) {
		need = eh->e_shoff + (uint64_t)(eh->e_shnum ? eh->e_shnum : 1) * eh->e_shentsize;
		at = eh->e_shoff;
	}
	if (need <= (uint64_t)st.st_size) {
		/* The section table is there: is every section's data? */
		need = 0;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
			    sh.sh_offset + sh.sh_size > need) {
				need = sh.sh_offset + sh.sh_size;
				at = sh.sh_offset;
			}
		}
	}
	if (need <= (uint64_t)st.st_size)
		return false;
	set_why(why, whylen, "'%s' is truncated or corrupt: its ELF headers describe %llu bytes "
		"(a table or section at %llu), the file has %llu", path,
		(unsigned long long)need, (unsigned long long)at, (unsigned long long)st.st_size);
	return true;
}

int elfsym_open(const char *path, struct elfsym **out, char *why, size_t whylen)
{
	struct elfsym *e = NULL;
	Elf *elf = NULL;
	GElf_Ehdr eh;
	int fd, err;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_why(why, whylen, "libelf is too old");
		return -ENOTSUP;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		set_why(why, whylen, "cannot open '%s': %s", path, strerror(errno));
		return err;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		set_why(why, whylen, "'%s' is not an ELF file", path);
		err = -ENOEXEC;
		goto out;
	}
	if (!gelf_getehdr(elf, &eh)) {
		set_why(why, whylen, "'%s': bad ELF header: %s", path, elf_errmsg(-1));
		err = -EINVAL;
		goto out;
	}
	if (elf_truncated(elf, &eh, fd, why, whylen, path)) {
		err = -ENOEXEC;
		goto out;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		set_why(why, whylen, "'%s' is an ELF %s, not an executable or a shared library",
			path, eh.e_type == ET_REL ? "object file" :
			eh.e_type == ET_CORE ? "core file" : "file of unknown type");
		err = -ENOEXEC;
		goto out;
	}
	e = calloc(1, sizeof(*e));
	if (!e || !(e->path = strdup(path))) {
		err = -ENOMEM;
		goto out;
	}
	e->dyn = eh.e_type == ET_DYN;
	err = load_segments(e, elf);
	if (!err)
		err = load_symbols(e, elf);
	if (err) {
		set_why(why, whylen, "'%s': cannot read ELF %s: %s", path,
			err == -ENOMEM ? "symbols" : "headers",
			err == -ENOMEM ? strerror(ENOMEM) : elf_errmsg(-1));
		goto out;
	}
	*out = e;
	e = NULL;
out:
	elfsym_close(e);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

int elfsym_sections(const char *path, const char *const *names, size_t n, void **data,
		    size_t *len)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int fd, err = -ENOENT;
	Elf *elf;

	memset(data, 0, n * sizeof(*data));
	memset(len, 0, n * sizeof(*len));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		err = -EINVAL;
	while (err != -EINVAL && err != -ENOMEM && (scn = elf_nextscn(elf, scn))) {
		const char *nm;
		Elf_Data *d;
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(nm = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; i < n && strcmp(nm, names[i]); i++)
			;
		if (i == n || data[i])
			continue;
		/* a debug section compressed by the linker (ld
		 * --compress-debug-sections, SHF_COMPRESSED): its bytes */
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || !d->d_size) {
			err = n == 1 ? -EINVAL : err;
			continue;
		}
		data[i] = malloc(d->d_size);
		if (!data[i]) {
			err = -ENOMEM;
			break;
		}
		memcpy(data[i], d->d_buf, d->d_size);
		len[i] = d->d_size;
		err = 0;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	if (err < 0 && err != -ENOENT)
		for (size_t i = 0; i < n; i++) {
			free(data[i]);
			data[i] = NULL;
		}
	return err;
}

int elfsym_section(const char *path, const char *name, void **data, size_t *len)
{
	return elfsym_sections(path, &name, 1, data, len);
}

void elfsym_close(struct elfsym *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->segs);
	free(e->syms);
	free(e->pool);
	free(e);
}

const char *elfsym_path(const struct elfsym *e)
{
	return e->path;
}

bool elfsym_has_symtab(const struct elfsym *e)
{
	return e->has_symtab;
}

bool elfsym_is_pie_or_dso(const struct elfsym *e)
{
	return e->dyn;
}

size_t elfsym_count(const struct elfsym *e)
{
	return e->nsyms;
}

const struct elfsym_sym *elfsym_get(const struct elfsym *e, size_t i)
{
	return i < e->nsyms ? &e->syms[i] : NULL;
}

/* NAME@VER or NAME@@VER for NAME; 2 for the default (@@) version. */
static int versioned_match(const char *symname, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(symname, name, n) != 0 || symname[n] != '@')
		return 0;
	return symname[n + 1] == '@' ? 2 : 1;
}

static int match_quality(const struct elfsym_sym *s, const char *name)
{
	int q = !strcmp(s->name, name) ? 6 : 2 * versioned_match(s->name, name);

	return q && s->hidden ? q - 1 : q;
}

int elfsym_find(const struct elfsym *e, const char *name, const struct elfsym_sym **sym,
		size_t *nmatch)
{
	const struct elfsym_sym *first = NULL, *global = NULL;
	size_t addrs = 0, globals = 0;
	uint64_t last_addr = 0;
	bool last_addr_set = false;
	int best = 0;

	*sym = NULL;
	if (nmatch)
		*nmatch = 0;
	/* Match quality: exact 6, NAME@@VER 4, NAME@VER 2, and one less for an
	 * old .dynsym version; only the best quality present counts. */
	for (size_t i = 0; i < e->nsyms; i++) {
		int q = match_quality(&e->syms[i], name);

		if (q > best)
			best = q;
	}
	if (!best)
		return -ENOENT;
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct elfsym_sym *s = &e->syms[i];
		int q = match_quality(s, name);

		if (q != best)
			continue;
		/* Sorted by address: matches at one address are aliases. */
		if (last_addr_set && s->addr == last_addr)
			continue;
		last_addr = s->addr;
		last_addr_set = true;
		addrs++;
		if (!first)
			first = s;
		if (s->bind != STB_LOCAL) {
			globals++;
			global = s;
		}
	}
	if (nmatch)
		*nmatch = addrs;
	if (addrs == 1) {
		*sym = first;
		return 0;
	}
	if (globals == 1) {
		*sym = global;
		return 0;
	}
	*sym = first;
	return -ENOTUNIQ;
}

const struct elfsym_sym *elfsym_at(const struct elfsym *e, uint64_t addr, uint64_t *off)
{
	const struct elfsym_sym *s;
	size_t lo;
	long i = addr_floor(e->syms, e->nsyms, sizeof(*e->syms),
			    offsetof(struct elfsym_sym, addr), addr, &lo);

	if (i < 0)
		return NULL;
	s = &e->syms[i];
	if (s->size) {
		if (addr - s->addr >= s->size)
			return NULL;
	} else if (lo < e->nsyms) {
		if (addr >= e->syms[lo].addr)
			return NULL;
	} else {
		uint64_t o;

		/* Last symbol, size unknown: as far as its segment goes. */
		if (elfsym_vaddr_to_offset(e, addr, &o) < 0 ||
		    elfsym_vaddr_to_offset(e, s->addr, &o) < 0)
			return NULL;
	}
	if (off)
		*off = addr - s->addr;
	return s;
}

int elfsym_vaddr_to_offset(const struct elfsym *e, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (g->exec && vaddr >= g->vaddr && vaddr - g->vaddr < g->filesz) {
			*off = vaddr - g->vaddr + g->offset;
			return 0;
		}
	}
	return -ERANGE;
}

int elfsym_offset_to_vaddr(const struct elfsym *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (off >= g->offset && off - g->offset < g->filesz) {
			*vaddr = off - g->offset + g->vaddr;
			return 0;
		}
	}
	return -ERANGE;
}

int elfsym_exec_segment(const struct elfsym *e, uint64_t off, uint64_t *start, uint64_t *len)
{
	for (size_t i = 0; i < e->nsegs; i++) {
		const struct seg *g = &e->segs[i];

		if (g->exec && off >= g->offset && off - g->offset < g->filesz) {
			*start = g->offset;
			*len = g->filesz;
			return 0;
		}
	}
	return -ERANGE;
}

static bool stored(const char **out, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(out[i], name))
			return true;
	return false;
}

size_t elfsym_similar(const struct elfsym *e, const char *name, const char **out, size_t n)
{
	size_t got = 0, plen = strlen(name) < 4 ? strlen(name) : 4;

	if (!*name)
		return 0;
	/* Names that start with the one asked for, then names that contain
	 * it, then names that share its first four characters. */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < e->nsyms && got < n; i++) {
			const char *s = e->syms[i].name;
			bool hit = pass == 0 ? strncasecmp(s, name, strlen(name)) == 0 :
				   pass == 1 ? strcasestr(s, name) != NULL :
				   strncasecmp(s, name, plen) == 0;

			if (hit && !stored(out, got, s))
				out[got++] = s;
		}
	}
	return got;
}
