/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe wildcards: the functions a kprobe glob (kprobe:vfs_*) or a uprobe
 * glob (uprobe:/lib/x.so:SSL_*) stands for.  Kernel functions come from
 * tracefs' available_filter_functions (what ftrace, hence a kprobe at the
 * entry, can hook; notrace and __kprobes code is not in it), less the kprobe
 * blacklist where debugfs shows it, less names that are in the list more than
 * once (the kernel refuses a kprobe on an ambiguous name).  User functions
 * come from the ELF symbol table (elfsym), one per address.
 */
#ifndef FTR_PGLOB_H
#define FTR_PGLOB_H

#include <stdbool.h>
#include <stddef.h>

struct pglob {
	char **names;		/* the matches, sorted, unique */
	size_t n;
	size_t skipped;		/* matches the kernel cannot probe */
	char skipped_eg[160];	/* a few of them, for the note */
};

/* The default cap on the functions one glob may expand to (bpftrace's
 * BPFTRACE_MAX_PROBES default); FTR_MAX_PROBES or BPFTRACE_MAX_PROBES in
 * the environment raise it. */
#define PGLOB_MAX_DEFAULT 512
size_t pglob_max(void);

/* Has s a wildcard character (* ? [)? */
bool pglob_is_glob(const char *s);

/*
 * The kernel functions matching glob (in module mod, or any when mod is
 * NULL or ""), from tracefs at tdir.  0 (g->n may be 0), or -errno with why
 * filled in.  Free with pglob_free.
 */
int pglob_kernel(const char *tdir, const char *mod, const char *glob, struct pglob *g,
		 char *why, size_t whylen);

/* The functions of the ELF file abspath matching glob.  0 or -errno + why. */
int pglob_user(const char *abspath, const char *glob, struct pglob *g, char *why,
	       size_t whylen);

/* Is name a function of tdir's available_filter_functions (in mod)? */
bool pglob_kernel_has(const char *tdir, const char *mod, const char *name);

void pglob_free(struct pglob *g);

/* The regular files a glob in the last part of a path names
 * (./testprogs/uprobe*), as written, sorted; NULL-ended, or NULL.  (Not
 * glob(3): static glibc's brings the user database along, for ~.) */
char **pglob_paths(const char *pattern);
/* The files process pid maps executable, once each, as it names them
 * (uprobe:* -p PID); NULL-ended, or NULL. */
char **pglob_pid_files(int pid);
void pglob_list_free(char **v);

#endif
