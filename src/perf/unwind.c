// SPDX-License-Identifier: GPL-2.0-or-later
/* User stacks from registers and a stack copy, with libdwfl: see unwind.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf.h"
#include "perf/unwind.h"
#include "report/sym.h"

const char *unwind_end_str(enum unwind_end e)
{
	static const char *const s[UNWIND_END_N] = {
		[UNWIND_END_OK] = "the outermost frame",
		[UNWIND_END_MAX] = "the frame limit",
		[UNWIND_END_STACK] = "the end of the stack copy",
		[UNWIND_END_NOCFI] = "a function without CFI or frame pointer",
		[UNWIND_END_JIT] = "JIT code (anonymous memory)",
		[UNWIND_END_UNMAPPED] = "an address in no mapping",
		[UNWIND_END_NOREGS] = "a sample without user registers",
		[UNWIND_END_ERROR] = "an unwinding error",
	};

	return (unsigned)e < UNWIND_END_N ? s[e] : "?";
}

int unwind_splice(const uint64_t *dw, const struct unwind_result *r, const uint64_t *fp, int nfp,
		  uint64_t *out, int max)
{
	int n = r->n < max ? r->n : max;

	memcpy(out, dw, (size_t)n * sizeof(*out));
	if (r->end == UNWIND_END_OK || r->end == UNWIND_END_MAX || !n)
		return n;
	if (r->end == UNWIND_END_STACK) {
		for (int j = 1 + r->fp_in_copy; j < nfp && n < max; j++)
			out[n++] = fp[j];
		return n;
	}
	/* The innermost CFI frame that the FP chain also holds: the FP chain
	 * goes on from there. */
	for (int i = n - 1; i >= 0; i--) {
		for (int j = 0; j < nfp; j++) {
			if (fp[j] != dw[i])
				continue;
			n = i + 1;
			for (j++; j < nfp && n < max; j++)
				out[n++] = fp[j];
			return n;
		}
	}
	return n;
}

/* libdw, and a register map for the architecture (else the stubs at the end). */
#if !defined(FTR_NO_DWARF) && (defined(__x86_64__) || defined(__aarch64__))

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/*
 * The registers perf copies (asm/perf_regs.h numbering) and where they go
 * in DWARF's numbering.  x86-64: AX BX CX DX SI DI BP SP IP (0-8) and R8-R15
 * (16-23); DWARF has rax rdx rcx rbx rsi rdi rbp rsp r8-r15 rip.  arm64:
 * X0-X30, SP, PC (0-32); DWARF has x0-x30 and sp as 0-31.
 */
#if defined(__x86_64__)
#define REGS_MASK 0xff01ffull
#define NDWARF 17
/* For each DWARF register, its index in the sample's registers. */
static const unsigned char dwarf_from_sample[NDWARF] = {
	0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 16, 8,
};
#define SAMPLE_FP 6
#define SAMPLE_SP 7
#define SAMPLE_PC 8
#elif defined(__aarch64__)
#define REGS_MASK ((1ull << 33) - 1)
#define NDWARF 32
#define SAMPLE_FP 29
#define SAMPLE_SP 31
#define SAMPLE_PC 32
#endif

bool unwind_built(void)
{
	return true;
}

uint64_t unwind_regs_mask(void)
{
	return REGS_MASK;
}

struct uw_proc {
	struct uw_proc *next;
	struct sym_proc *proc;
	Dwfl *dwfl;
	uint64_t used;		/* the unwinder's tick at its last walk */
	bool attached;
};

/*
 * libdwfl keeps each reported file's CFI per Dwfl, and a Dwfl is one
 * address space: on a busy system (-a, processes coming and going) one per
 * process ever sampled grew a soak by ~6 MB a second.  At most this many
 * are kept; the least recently used is ended (an exited process's never
 * comes back; a live one's is rebuilt at its next sample).
 */
#define MAX_DWFL 32

#define NBUCKETS 256

/*
 * What a file's debug file gives the unwinder, shared by every address
 * space that maps the file (keyed by its device and inode).  libdwfl keeps
 * what it finds per Dwfl, that is per process: where a file's .eh_frame
 * lacks a pc (ld.so's entry, say), each new process had it search the debug
 * directories again and open the debug file with libdw, which inflates its
 * compressed DWARF (Debian's ld.so: 1.2 MB) to learn that it has no
 * .debug_frame either.  A busy box starting processes lost most samples to
 * that (bench/profile-all.sh).  Now a debug file without .debug_frame, or
 * none, is known once per file and not looked for again; one with
 * .debug_frame is still opened per process, as libdwfl needs it.  A
 * direct-mapped table: bounded, a collision forgets the older file.
 */
#define NDBG 1024
struct dbg_slot {
	dev_t dev;
	ino_t ino;
	bool known;		/* its debug file looked at (or found absent) */
	bool frames;		/* ... and it has .debug_frame */
};

/*
 * A file's ELF, opened once and lent to the module of every address space
 * that maps it (libelf counts the references: elf_begin with the same
 * descriptor and this Elf as ref).  libdwfl's dwfl_report_elf opens and
 * maps the file anew for each process, and unmaps it at dwfl_end: on a busy
 * box that churn (open, mmap, munmap and its TLB flushes) was most of the
 * profiler's CPU.  It also keeps the file reachable: sym.c names a file
 * by a path through the first process that mapped it, which a later
 * process of the same file outlives.  Direct-mapped by dso (one per file),
 * bounded: a file that takes a slot lets the older one go (modules still holding it keep it
 * until their dwfl_end, which then closes the descriptor, as libdwfl does
 * for the last reference).
 */
#define NELF 256
struct elf_slot {
	struct sym_dso *dso;
	dev_t dev;
	ino_t ino;
	int fd;
	Elf *elf;
	char *path;
	GElf_Addr off0;		/* the address file offset 0 is linked at */
	GElf_Addr lo, hi;	/* the first PT_LOAD's start (aligned), the last's end */
};

struct unwinder {
	struct sym_ctx *sc;
	struct dbg_slot dbg[NDBG];
	uint64_t dbg_hits, dbg_misses;
	struct elf_slot elf[NELF];
	struct elf_slot *lend;	/* find_elf's, during report() */
	uint64_t elf_hits, elf_opens;
	struct uw_proc *tab[NBUCKETS];
	size_t nproc;
	uint64_t tick;
	/* the sample being unwound */
	struct uw_proc *cur;
	const struct perf_sample *s;
	uint64_t sp;
	uint64_t *ips;
	int max, n;
	enum unwind_end end;
	bool past_copy;		/* a read beyond the stack copy */
};

/* Debug files are not needed for CFI (.eh_frame is in the file itself);
 * where a file has only .debug_frame, the usual places are searched.  Never
 * the network: libdw would ask debuginfod when DEBUGINFOD_URLS is set. */
static bool has_debug_frame(int fd)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (!e)
		return false;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name;

			found = gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size &&
				(name = elf_strptr(e, shstrndx, sh.sh_name)) &&
				!strcmp(name, ".debug_frame");
		}
	}
	elf_end(e);
	return found;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct unwinder *u = *userdata;
	struct dbg_slot *sl = NULL;
	struct stat st;
	int fd;

	if (getenv("DEBUGINFOD_URLS"))
		return -1;
	if (u && file_name && stat(file_name, &st) < 0) {
		/* A path through a process that is gone: the file's slot. */
		for (int i = 0; i < NELF; i++) {
			if (u->elf[i].path && !strcmp(u->elf[i].path, file_name)) {
				st.st_dev = u->elf[i].dev;
				st.st_ino = u->elf[i].ino;
				goto known;
			}
		}
		file_name = NULL;
	}
known:
	if (u && file_name) {
		sl = &u->dbg[(mix64((uint64_t)st.st_dev) ^ mix64((uint64_t)st.st_ino)) % NDBG];
		if (sl->known && sl->dev == st.st_dev && sl->ino == st.st_ino && !sl->frames) {
			u->dbg_hits++;
			return -1;
		}
		u->dbg_misses++;
	}
	/* Where its build id names a debug file without .debug_frame (as
	 * Debian's are), no need of libdw's search: it would also open that
	 * file with libdw, inflating its DWARF, to look for a dwz link. */
	if (sl) {
		const unsigned char *id;
		GElf_Addr vaddr;
		int n = dwfl_module_build_id(mod, &id, &vaddr);

		if (n > 1 && n <= 64) {
			char path[64 + 2 * 64 + 8], *q = path;
			int dfd;

			q += sprintf(q, "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (int i = 1; i < n; i++)
				q += sprintf(q, "%02x", id[i]);
			strcpy(q, ".debug");
			dfd = open(path, O_RDONLY | O_CLOEXEC);
			if (dfd >= 0) {
				bool frames = has_debug_frame(dfd);

				close(dfd);
				if (!frames) {
					*sl = (struct dbg_slot){ st.st_dev, st.st_ino, true, false };
					return -1;
				}
			}
		}
	}
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (!sl)
		return fd;
	*sl = (struct dbg_slot){ st.st_dev, st.st_ino, true, fd >= 0 && has_debug_frame(fd) };
	if (fd >= 0 && !sl->frames) {
		/* What libdw would open it for, it has not. */
		close(fd);
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
		return -1;
	}
	return fd;
}

/* A module report() made with dwfl_report_module: the file it lends. */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	struct unwinder *u = *userdata;
	struct elf_slot *e = u ? u->lend : NULL;

	if (!e)
		return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
	*elfp = elf_begin(e->fd, ELF_C_READ_MMAP, e->elf);
	if (!*elfp)
		return -1;
	*file_name = strdup(e->path);
	return e->fd;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
};

static void elf_slot_drop(struct elf_slot *e)
{
	if (!e->elf)
		return;
	/* The last reference closes the descriptor (else a module's will). */
	if (elf_end(e->elf) == 0)
		close(e->fd);
	free(e->path);
	memset(e, 0, sizeof(*e));
}

/* The slot of dso d (its file opened now if it is not there), or NULL:
 * the caller then reports it as libdwfl would.  Keyed by the dso (one per
 * file for the whole run, sym.c): its file name may be a path through the
 * process that first mapped it (/proc/PID/map_files), gone by the time
 * another process runs it, where only the descriptor kept here still
 * reaches the file; else its own path, if it is still the same file. */
static struct elf_slot *elf_slot(struct unwinder *u, struct sym_dso *d, const char *file)
{
	struct elf_slot *e = &u->elf[((uintptr_t)d >> 4) % NELF], n = { .dso = d, .fd = -1 };
	struct stat st;
	size_t nph;
	bool first = true;

	if (e->elf && e->dso == d) {
		u->elf_hits++;
		return e;
	}
	n.fd = open(file, O_RDONLY | O_CLOEXEC);
	if (n.fd < 0 && d->path[0] == '/' && strcmp(file, d->path)) {
		file = d->path;
		n.fd = open(file, O_RDONLY | O_CLOEXEC);
		if (n.fd >= 0 && d->ino && (fstat(n.fd, &st) < 0 || st.st_ino != d->ino)) {
			close(n.fd);
			n.fd = -1;
		}
	}
	if (n.fd < 0 || fstat(n.fd, &st) < 0)
		goto fail;
	n.dev = st.st_dev;
	n.ino = st.st_ino;
	n.elf = elf_begin(n.fd, ELF_C_READ_MMAP, NULL);
	if (!n.elf || elf_kind(n.elf) != ELF_K_ELF || elf_getphdrnum(n.elf, &nph) < 0)
		goto fail;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(n.elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) {
			/* as libdwfl takes a module's start (open_elf) */
			n.lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
			n.off0 = ph.p_vaddr - ph.p_offset;
			first = false;
		}
		if (ph.p_vaddr + ph.p_memsz > n.hi)
			n.hi = ph.p_vaddr + ph.p_memsz;
	}
	n.path = strdup(file);
	if (first || !n.path)
		goto fail;
	elf_slot_drop(e);
	*e = n;
	u->elf_opens++;
	return e;
fail:
	if (n.elf)
		elf_end(n.elf);
	free(n.path);
	if (n.fd >= 0)
		close(n.fd);
	return NULL;
}

int unwind_new(struct sym_ctx *sc, struct unwinder **out)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	*out = NULL;
	if (!u)
		return -ENOMEM;
	u->sc = sc;
	*out = u;
	return 0;
}

void unwind_free(struct unwinder *u)
{
	if (!u)
		return;
	for (int i = 0; i < NBUCKETS; i++) {
		for (struct uw_proc *p = u->tab[i], *n; p; p = n) {
			n = p->next;
			if (p->dwfl)
				dwfl_end(p->dwfl);
			free(p);
		}
	}
	for (int i = 0; i < NELF; i++)
		elf_slot_drop(&u->elf[i]);
	free(u);
}

void unwind_forget(struct unwinder *u, struct sym_proc *proc)
{
	struct uw_proc **pp;

	if (!u || !proc)
		return;
	for (pp = &u->tab[((uintptr_t)proc >> 4) % NBUCKETS]; *pp; pp = &(*pp)->next) {
		struct uw_proc *p = *pp;

		if (p->proc != proc)
			continue;
		*pp = p->next;
		if (p->dwfl)
			dwfl_end(p->dwfl);
		free(p);
		u->nproc--;	/* else, past MAX_DWFL exits, every new one evicts */
		return;
	}
}

/* Report the file mapped at pc to libdwfl (once per file and address
 * space).  The module's bias is where its file offset 0 is mapped, as the
 * mapping's start and page offset say.  0, or the reason it cannot be. */
static enum unwind_end report(struct unwinder *u, uint64_t pc)
{
	struct sym_mapping m;
	const char *file;
	Dwfl_Module *mod;
	struct elf_slot *e;
	Elf *elf;
	void **ud;

	if (dwfl_addrmodule(u->cur->dwfl, pc))
		return UNWIND_END_OK;
	if (sym_proc_mapping(u->cur->proc, pc, &m) < 0)
		return UNWIND_END_UNMAPPED;
	if (!m.dso)
		return UNWIND_END_JIT;
	file = sym_dso_file(u->sc, m.dso);
	if (!file)
		return UNWIND_END_NOCFI;
	dwfl_report_begin_add(u->cur->dwfl);
	/* The shared file, at the bias its mapping gives (offset 0 mapped
	 * at m.start - m.pgoff); else libdwfl opens it itself. */
	e = elf_slot(u, m.dso, file);
	if (e) {
		GElf_Addr bias = m.start - m.pgoff - e->off0;

		mod = dwfl_report_module(u->cur->dwfl, m.dso->path, bias + e->lo, bias + e->hi);
	} else {
		mod = dwfl_report_elf(u->cur->dwfl, m.dso->path, file, -1, m.start - m.pgoff,
				      false);
	}
	if (!mod) {
		dwfl_report_end(u->cur->dwfl, NULL, NULL);
		return UNWIND_END_NOCFI;
	}
	/* find_elf's and find_debuginfo's: the unwinder (its tables of files) */
	if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = u;
	if (e) {
		Dwarf_Addr b;

		/* libdwfl asks find_elf when it first needs the file: now,
		 * while the slot is at hand. */
		u->lend = e;
		elf = dwfl_module_getelf(mod, &b);
		u->lend = NULL;
		if (!elf) {
			dwfl_report_end(u->cur->dwfl, NULL, NULL);
			return UNWIND_END_NOCFI;
		}
	}
	dwfl_report_end(u->cur->dwfl, NULL, NULL);
	return UNWIND_END_OK;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwinder *u = arg;

	/* One thread: the sample's, once. */
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return (pid_t)u->s->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct unwinder *u = arg;
	const struct perf_sample *s = u->s;

	if (addr >= u->sp && addr - u->sp <= s->stack_len && s->stack_len - (addr - u->sp) >= 8) {
		memcpy(result, s->stack + (addr - u->sp), 8);
		return true;
	}
	/* Above the copy, within reach of a stack: the copy was too small.
	 * (Below the stack pointer nothing is kept: the red zone is not.) */
	if (addr >= u->sp && addr - u->sp < (64u << 20))
		u->past_copy = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwinder *u = arg;
	const uint64_t *r = u->s->regs;
	Dwarf_Word regs[NDWARF];

	for (int i = 0; i < NDWARF; i++)
#if defined(__x86_64__)
		regs[i] = r[dwarf_from_sample[i]];
#else
		regs[i] = r[i];
#endif
	if (!dwfl_thread_state_registers(thread, 0, NDWARF, regs))
		return false;
	dwfl_thread_state_register_pc(thread, r[SAMPLE_PC]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame(Dwfl_Frame *state, void *arg)
{
	struct unwinder *u = arg;
	Dwarf_Addr pc;
	bool activation;
	enum unwind_end e;

	if (!dwfl_frame_pc(state, &pc, &activation)) {
		u->end = UNWIND_END_ERROR;
		return DWARF_CB_ABORT;
	}
	/* The frame-pointer chain's convention: the sampled pc, then return
	 * addresses; the file is found from the call (pc - 1) as libdw does. */
	u->ips[u->n++] = pc;
	if (u->n >= u->max) {
		u->end = UNWIND_END_MAX;
		return DWARF_CB_ABORT;
	}
	e = report(u, activation || !pc ? pc : pc - 1);
	if (e != UNWIND_END_OK) {
		u->end = e;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* What the kernel's frame-pointer walk (perf_callchain_user) finds inside
 * the stack copy: the frame records {next, return address} from the frame
 * pointer on, as long as they lie in it. */
static int fp_in_copy(const struct perf_sample *s, uint64_t sp)
{
	uint64_t fp = s->regs[SAMPLE_FP], end = sp + s->stack_len;
	int n = 0;

	while (fp >= sp && fp < end && end - fp >= 16 && n < 4096) {
		memcpy(&fp, s->stack + (fp - sp), 8);
		n++;
	}
	return n;
}

/* End the least recently used Dwfl (MAX_DWFL). */
static void uw_evict(struct unwinder *u)
{
	struct uw_proc **best = NULL, *p;

	for (int i = 0; i < NBUCKETS; i++)
		for (struct uw_proc **pp = &u->tab[i]; *pp; pp = &(*pp)->next)
			if (!best || (*pp)->used < (*best)->used)
				best = pp;
	if (!best)
		return;
	p = *best;
	*best = p->next;
	dwfl_end(p->dwfl);
	free(p);
	u->nproc--;
}

static struct uw_proc *uw_proc(struct unwinder *u, struct sym_proc *proc)
{
	size_t b = ((uintptr_t)proc >> 4) % NBUCKETS;
	struct uw_proc *p;

	u->tick++;
	for (p = u->tab[b]; p; p = p->next)
		if (p->proc == proc) {
			p->used = u->tick;
			return p;
		}
	if (u->nproc >= MAX_DWFL)
		uw_evict(u);
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->proc = proc;
	p->dwfl = dwfl_begin(&dwfl_cbs);
	if (!p->dwfl) {
		free(p);
		return NULL;
	}
	p->used = u->tick;
	p->next = u->tab[b];
	u->tab[b] = p;
	u->nproc++;
	return p;
}

int unwind_sample(struct unwinder *u, struct sym_proc *proc, const struct perf_sample *s,
		  uint64_t *ips, int max, struct unwind_result *r)
{
	uint64_t pc;
	int ret;

	*r = (struct unwind_result){ .end = UNWIND_END_NOREGS };
	if (!s->regs_abi || !s->regs || max < 1)
		return 0;
	pc = s->regs[SAMPLE_PC];
	u->cur = uw_proc(u, proc);
	if (!u->cur) {
		r->end = UNWIND_END_ERROR;
		return -ENOMEM;
	}
	u->s = s;
	u->sp = s->regs[SAMPLE_SP];
	u->ips = ips;
	u->max = max;
	u->n = 0;
	u->end = UNWIND_END_OK;
	u->past_copy = false;
	r->end = report(u, pc);
	if (r->end != UNWIND_END_OK) {
		/* The leaf alone: it has a name even where it cannot be
		 * unwound from. */
		ips[0] = pc;
		r->n = 1;
		r->end_pc = pc;
		return 0;
	}
	/* Attached once a first module tells libdw the architecture. */
	if (!u->cur->attached) {
		if (!dwfl_attach_state(u->cur->dwfl, NULL, sym_proc_pid(proc), &thread_cbs, u)) {
			ips[0] = pc;
			*r = (struct unwind_result){ .n = 1, .end = UNWIND_END_ERROR, .end_pc = pc };
			return 0;
		}
		u->cur->attached = true;
	}
	ret = dwfl_getthread_frames(u->cur->dwfl, (pid_t)s->tid, frame, u);
	/* libdw ends a walk quietly (0) where a read of the stack fails, as
	 * at the outermost frame: the reads beyond the copy tell the two apart. */
	if (u->end == UNWIND_END_OK && u->past_copy)
		u->end = UNWIND_END_STACK;
	else if (ret < 0 && u->end == UNWIND_END_OK)
		u->end = UNWIND_END_NOCFI;
	if (!u->n) {
		ips[u->n++] = pc;
	}
	r->n = u->n;
	r->end = u->end;
	r->end_pc = ips[u->n - 1];
	if (r->end == UNWIND_END_STACK)
		r->fp_in_copy = fp_in_copy(s, u->sp);
	return 0;
}

#else /* the static build, or an architecture without a register map */

bool unwind_built(void)
{
	return false;
}

uint64_t unwind_regs_mask(void)
{
	return 0;
}

int unwind_new(struct sym_ctx *sc, struct unwinder **out)
{
	*out = NULL;
	return -ENOTSUP;
}

void unwind_free(struct unwinder *u)
{
}

int unwind_sample(struct unwinder *u, struct sym_proc *proc, const struct perf_sample *s,
		  uint64_t *ips, int max, struct unwind_result *r)
{
	*r = (struct unwind_result){ .end = UNWIND_END_ERROR };
	return -ENOTSUP;
}

void unwind_forget(struct unwinder *u, struct sym_proc *proc)
{
}

#endif
