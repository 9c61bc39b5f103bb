/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writing trace-cmd data files (trace-cmd.dat.v6(5)): the header from
 * tracefs (header page, the formats of the recorded events, kallsyms,
 * printk formats, saved cmdlines), then each CPU's ring-buffer pages as the
 * kernel wrote them.
 *
 * Version 6 keeps each CPU's pages in one run, so pages are appended to a
 * side file per CPU (FILE.cpuN) while recording, and recfile_finish() moves
 * them into FILE.  Until then FILE is complete but for the table that says
 * where each CPU's data is (all zeros: "unfinished"); recfile_complete()
 * finishes such a file from its side files, up to their last whole page,
 * after a kill or a full disk.
 */
#ifndef FTR_RECORD_H
#define FTR_RECORD_H

#include <stddef.h>
#include <stdint.h>

struct recfile;

struct rec_opt {
	int id;			/* TDAT_OPT_* */
	const char *text;	/* written with its NUL */
};

/* Create FILE with the header of these events (sys[i]:name[i]), formats
 * read from tracefs at tdir, for ncpu CPUs (numbered 0..ncpu-1) whose
 * sub-buffers are page_size bytes.  max_size (0: none) bounds the whole
 * file.  0 or -errno, with what failed in err. */
int recfile_create(struct recfile **out, const char *path, const char *tdir, char *const *sys,
		   char *const *name, int nev, int ncpu, size_t page_size, uint64_t max_size,
		   char *err, size_t errlen);
/* Append one sub-buffer of cpu.  0; 1 when it would pass max_size (not
 * written: the recording should stop); -errno (-ENOSPC: the disk is full; what
 * was written stays, up to the last whole page). */
int recfile_page(struct recfile *rf, int cpu, const void *page, size_t len);
/* Bytes in FILE and its side files now. */
uint64_t recfile_size(const struct recfile *rf);
/* Fresh saved cmdlines and these options, then the data moved into FILE;
 * frees rf.  0 or -errno (the side files stay: recfile_complete() retries). */
int recfile_finish(struct recfile *rf, const struct rec_opt *opts, int nopt, char *err,
		   size_t errlen);
/* Finish the unfinished FILE a killed recorder left, from FILE.cpuN.
 * 0 (*pages: how many pages it holds now), or -errno with err. */
int recfile_complete(const char *path, uint64_t *pages, char *err, size_t errlen);

#endif
