/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Symbols for sampled addresses: the kernel's from /proc/kallsyms (modules
 * included), user space's from the ELF files a process has mapped (elfsym.c:
 * .symtab, else .dynsym; a separate debug file by build-id when the file is
 * stripped), and JIT code's from /tmp/perf-PID.map.
 *
 * A process's address space is rebuilt from the profiler's own mmap records
 * (or /proc/PID/maps for processes that were running before), so that a
 * process that has exited by the time of the report keeps its symbols.  A
 * sampled address in a mapping is at file offset ip - start + pgoff, looked
 * up through the file's PT_LOAD segments: that is the load bias of PIE
 * executables and shared objects taken care of.  The file is read through
 * /proc/PID/map_files or /proc/PID/root while the process lives (deleted or
 * replaced files, other mount namespaces), else by its path, checking that
 * its inode is still the one that was mapped.
 */
#ifndef FTR_SYM_H
#define FTR_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- kernel symbols ---------------------------------------------------------- */

struct ksyms;

/* Pure: the text symbols (t, T, w, W) of a /proc/kallsyms text.  0, -ENOMEM,
 * -EINVAL (no symbol at all).  When every address reads as zero
 * (kptr_restrict) the table is empty and ksyms_hidden() says so. */
int ksyms_parse(const char *text, struct ksyms **out);
/* Where ksyms_load(NULL) reads: text, when set (a recording's kallsyms,
 * for `ftr run -i`; NULL: /proc/kallsyms again).  The text stays the
 * caller's. */
void ksyms_set_source(const char *text);
/* Where ksyms_load(NULL) looks addresses up instead, when set: fn gives the
 * name of the symbol holding addr and its start, or NULL (a recording whose
 * kallsyms only its reading library holds: trace-cmd's version 7 files).
 * Names are not looked up then (ksyms_addr: -ENOENT).  NULL: unset. */
void ksyms_set_resolver(const char *(*fn)(uint64_t addr, uint64_t *start, void *arg),
			void *arg);
/* ksyms_parse of a file (NULL: /proc/kallsyms).  0 or -errno. */
int ksyms_load(const char *path, struct ksyms **out);
void ksyms_free(struct ksyms *k);
bool ksyms_hidden(const struct ksyms *k);
size_t ksyms_count(const struct ksyms *k);
/* The function holding addr, or NULL; *off from its start; *module is the
 * module's name or NULL for the kernel proper. */
const char *ksyms_at(const struct ksyms *k, uint64_t addr, uint64_t *off, const char **module);
/* The address of function name (of module, NULL: the kernel proper): the
 * way back from a name the kernel printed.  0, -ENOENT, -ENOMEM (the first
 * call sorts an index by name). */
int ksyms_addr(struct ksyms *k, const char *name, const char *module, uint64_t *addr);

/* A kernel address as ftr's keys show it (ksym(), ksymoff(), -k F.sym): the
 * function, "func" or "func [module]"; with_off, "func+0x2a" or "func+0x2a
 * [module]".  An address in no function (or k NULL) is "0x..." as the
 * kernel's own %ps prints it, so that a hist trigger's .sym keys and these
 * read alike.  Returns what snprintf returns. */
int ksyms_format(const struct ksyms *k, uint64_t addr, bool with_off, char *buf, size_t len);

/* ---- /proc/PID/maps lines, JIT maps ---------------------------------------------- */

enum { MAP_R = 1, MAP_W = 2, MAP_X = 4 };

struct map_line {
	uint64_t start, end, pgoff;
	uint32_t maj, min;
	uint64_t ino;
	unsigned prot;		/* MAP_R | MAP_W | MAP_X */
	const char *path;	/* into the line: "" for anonymous memory */
	bool deleted;		/* " (deleted)" was cut from path */
};
/* Pure: parse one line of /proc/PID/maps, in place (path is cut at its
 * end).  0 or -EINVAL. */
int maps_parse_line(char *line, struct map_line *m);

struct perfmap;
/* Pure: a JIT symbol map, lines "START SIZE NAME" in hex (perf's
 * documented /tmp/perf-PID.map format).  Bad lines are skipped.  0 or
 * -ENOMEM. */
int perfmap_parse(const char *text, struct perfmap **out);
void perfmap_free(struct perfmap *pm);
size_t perfmap_count(const struct perfmap *pm);
const char *perfmap_at(const struct perfmap *pm, uint64_t addr, uint64_t *off);

/* ---- files and processes ---------------------------------------------------------- */

/* One mapped file, shared by every process that maps it. */
struct sym_dso {
	char *path;		/* as the kernel named it, " (deleted)" cut */
	uint32_t maj, min;	/* device and inode at mapping time (0: unknown) */
	uint64_t ino;
	bool deleted;		/* the kernel said " (deleted)" */
	bool loaded;		/* a load was tried (elf may still be NULL) */
	bool replaced;		/* read from a path whose inode changed */
	bool stripped;		/* no .symtab, and no debug file found */
	bool has_debug;		/* symbols from /usr/lib/debug/.build-id */
	bool special;		/* [vdso] and friends: not a file */
	char why[160];		/* when elf is NULL: why */
	char *file;		/* where it was read (a /proc path while it runs) */
	char build_id[66];	/* GNU build id in hex ("": none or not read) */
	bool build_id_tried;
	struct elfsym *elf;	/* segments (and symbols) of the file itself */
	struct elfsym *dbg;	/* symbols of its debug file, or NULL */
	struct dwline *dw;	/* its DWARF lines (sym_lines), or NULL */
	bool dw_tried;
	/* For the caller's statistics (the profiler's warnings). */
	uint64_t frames, unresolved, leaf_samples, one_frame_samples;
};

struct perf_event_header;
struct sym_proc;
struct sym_ctx;

struct sym_ctx *sym_ctx_new(void);
void sym_ctx_free(struct sym_ctx *c);

/* --debuginfod: stripped files without a local debug file get it from the
 * servers in DEBUGINFOD_URLS (never without it).  0, or -ENOTSUP (not in
 * this build: the static one). */
int sym_ctx_debuginfod(struct sym_ctx *c);

/* Kernel symbols, loaded from /proc/kallsyms on first use.  NULL when they
 * cannot be had; then *why (when not NULL) says why, in words. */
const struct ksyms *sym_kernel(struct sym_ctx *c, const char **why);

/* The current address space of process pid (the thread-group id); created
 * empty, marked as needing /proc/PID/maps, when unknown and create. */
struct sym_proc *sym_proc_find(struct sym_ctx *c, int pid, bool create);
/* pid exec'd: a new, empty address space from now on.  NULL on ENOMEM. */
struct sym_proc *sym_proc_exec(struct sym_ctx *c, int pid);
/* A new process pid forked from ppid: a copy of its parent's mappings. */
struct sym_proc *sym_proc_fork(struct sym_ctx *c, int pid, int ppid);
/* Record an executable mapping (later ones win where they overlap). */
int sym_proc_map(struct sym_ctx *c, struct sym_proc *p, const struct map_line *m);
/* p mapped the file at path so that ip is at file offset off (a uprobe's
 * own hit: the event's address and the probe's offset): where p's maps
 * cannot be read (p has exited, or lives in another PID namespace), its
 * frames in that file's executable segment are named from this.  A mapping
 * p already has at ip wins.  0, or -errno (the file cannot be read, off is
 * in no executable segment). */
int sym_proc_map_file(struct sym_ctx *c, struct sym_proc *p, const char *path, uint64_t off,
		      uint64_t ip);
/* Fill an address space from /proc/PID/maps if it still needs it (a
 * process that ran before the profile started).  0 or -errno. */
int sym_proc_read_maps(struct sym_ctx *c, struct sym_proc *p);
bool sym_proc_needs_maps(const struct sym_proc *p);
/* sym_proc_read_maps for every address space found since the last call
 * that needs it (outside the per-sample path: it reads /proc). */
void sym_read_pending(struct sym_ctx *c);
int sym_proc_pid(const struct sym_proc *p);
/* Address spaces of processes that come and go (a system-wide profile
 * under churn): one the caller refers to beyond the next sym_reap is kept
 * (until sym_ctx_free); one whose process exited or exec'd is released,
 * and freed by the second sym_reap after that (unless kept), forget(arg, p)
 * called first so that the caller drops what it holds of it.  Without
 * this, every process ever seen stays in memory. */
void sym_proc_keep(struct sym_proc *p);
void sym_proc_release(struct sym_ctx *c, struct sym_proc *p);
void sym_reap(struct sym_ctx *c, void (*forget)(void *arg, struct sym_proc *p), void *arg);
size_t sym_nprocs(const struct sym_ctx *c);	/* address spaces held */
void sym_proc_set_comm(struct sym_proc *p, const char *comm);
const char *sym_proc_comm(const struct sym_proc *p);	/* "" when unknown */

/* The symbol side of a sampler's side-band records: PERF_RECORD_MMAP2 (an
 * executable mapping), COMM with the exec flag (a new address space) and
 * FORK (a copy of the parent's).  Others are ignored.  When comm is not
 * NULL, a COMM record's tid and name are given back there (*tid = 0
 * otherwise), so that callers keep their own per-thread names. */
void sym_perf_side(struct sym_ctx *c, const struct perf_event_header *h, int *tid,
		   char comm[16]);

/* While the processes still run: read the files mapped since the last call
 * whose path no longer shows the mapped inode (deleted, replaced, another
 * mount namespace), through /proc/PID/map_files or /proc/PID/root.  Cheap
 * when nothing changed: a stat per new file. */
void sym_pin_new(struct sym_ctx *c);

struct sym_res {
	const char *name;	/* NULL: unresolved */
	uint64_t off;		/* from the symbol's start */
	uint64_t va;		/* user: the file's own address of ip (elfsym.h) */
	struct sym_dso *dso;	/* the file, or NULL (kernel, anonymous, unmapped) */
	const char *module;	/* kernel: the module, or NULL */
	bool mapped;		/* user: in an executable mapping */
	bool jit;		/* from a /tmp/perf-PID.map */
	bool anon;		/* user: anonymous memory */
};
void sym_resolve_user(struct sym_ctx *c, struct sym_proc *p, uint64_t ip, struct sym_res *r);
void sym_resolve_kernel(struct sym_ctx *c, uint64_t ip, struct sym_res *r);
/* The source file and line of a user address r resolved (its file's DWARF,
 * else its debug file's, as for its symbols; read once per file), with the
 * calls inlined there: dwline_lookup's frames, 0 when there are none. */
struct dwline_frame;
int sym_lines(const struct sym_res *r, struct dwline_frame *f, int max);

/* The mapping of p holding ip (0: its lowest mapping): its range, file
 * offset and file (NULL: anonymous memory).  0 or -ENOENT. */
struct sym_mapping {
	uint64_t start, end, pgoff;
	struct sym_dso *dso;
};
int sym_proc_mapping(const struct sym_proc *p, uint64_t ip, struct sym_mapping *m);
/* The path d's file can be opened at now (read once, as for its symbols:
 * through /proc while its process runs), or NULL (d->why says why). */
const char *sym_dso_file(struct sym_ctx *c, struct sym_dso *d);
/* d's GNU build id in hex, or NULL. */
const char *sym_dso_build_id(struct sym_ctx *c, struct sym_dso *d);
/* p has a JIT symbol map (/tmp/perf-PID.map). */
bool sym_proc_has_jit_map(struct sym_proc *p);

size_t sym_dso_count(const struct sym_ctx *c);
struct sym_dso *sym_dso_get(struct sym_ctx *c, size_t i);

/* ---- which package would help --------------------------------------------------- */

/* The Debian package owning path, from infodir's *.list files (NULL:
 * /var/lib/dpkg/info), trying the /usr-merged spelling too; "pkg" without
 * ":arch".  0, -ENOENT (no owner or no dpkg database). */
int sym_dpkg_owner(const char *infodir, const char *path, char *pkg, size_t len);
/* The same for n paths at once, each list read once: pkgs[i] "" where no
 * package owns paths[i].  0, -ENOENT (no dpkg database), -ENOMEM. */
int sym_dpkg_owners(const char *infodir, const char *const *paths, int n, char (*pkgs)[128]);

#endif
