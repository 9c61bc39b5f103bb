/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trace-cmd data files (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)): checking
 * their structure without trusting any of it, and reading their events.
 *
 * tdat_head_parse() walks a version 6 file's header with bounds checks on
 * every length (the writer's recovery and the reader's first look use it),
 * every record's length in every page included; a version 7 file is checked
 * as far as its fixed start there, and tdat_open() walks its sections (the
 * options' chain, the header info, each buffer's CPU data, decompressed
 * when zstd or zlib) and the records of its pages the same way.  Reading events
 * goes through libtracecmd, which the static build does not have
 * (FTR_NO_TRACECMD): there tdat_open() fails with ENOTSUP.
 */
#ifndef FTR_TDAT_H
#define FTR_TDAT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define TDAT_MAGIC "\027\010Dtracing"	/* 0x17 0x08 'D' "tracing" */
#define TDAT_MAGIC_LEN 10

/* Options of the v6 header that ftr writes (trace-cmd's numbering). */
enum {
	TDAT_OPT_DONE = 0,
	TDAT_OPT_CPUSTAT = 2,
	TDAT_OPT_TRACECLOCK = 4,
	TDAT_OPT_UNAME = 5,
	TDAT_OPT_OFFSET = 7,	/* added to every timestamp by readers */
};

struct tdat_head {
	int version;		/* 6 or 7 */
	bool big_endian;
	int long_size;
	int commit_size;	/* v6: of a page header's commit (the kernel's long) */
	uint32_t page_size;
	off_t ksyms_off;	/* v6: the kallsyms text */
	uint32_t ksyms_len;
	off_t fmt_off;		/* v6: the count of ftrace formats, then the formats */
	off_t cmd_off;		/* v6: where the saved cmdlines begin */
	off_t tab_off;		/* v6: the flyrecord table of (offset, size) per CPU */
	uint32_t ncpu;		/* v6 */
	bool unfinished;	/* v6: every CPU's offset is 0 (the recorder did not finish) */
	bool latency;		/* v6: text, not pages */
	off_t file_size;
	off_t v7_off;		/* v7: the compression header after the page size */
};

/* Walk the header of the file open on fd.  0, or -EINVAL/-EIO with what is
 * wrong (and at which offset) in err. */
int tdat_head_parse(int fd, struct tdat_head *h, char *err, size_t errlen);

struct tdat;
struct tep_handle;
struct tep_record;

/* Open for reading: the structure checked first, then libtracecmd's open
 * (or ENOTSUP without it).  NULL with errno, and why in err. */
struct tdat *tdat_open(const char *path, char *err, size_t errlen);
void tdat_close(struct tdat *t);
/* The file's formats, kallsyms, printk formats and saved cmdlines. */
struct tep_handle *tdat_tep(struct tdat *t);
/* Every record of the file, merged by timestamp; lost(cpu, n) where a page
 * says events were lost before it (n < 0: an unknown number).  The record
 * is valid during the call; non-zero from fn stops and is returned. */
int tdat_iterate(struct tdat *t, int (*fn)(struct tep_record *rec, void *arg),
		 void (*lost)(int cpu, long long n, unsigned long long ts, void *arg), void *arg);
/* The timestamp of the first record (0: none). */
unsigned long long tdat_first_ts(struct tdat *t);
/* The kallsyms text a v6 file carries (malloc'd), NULL+errno when none. */
char *tdat_kallsyms(struct tdat *t);
/* The kernel symbol holding addr and its start, from the kallsyms that
 * libtracecmd read into the file's tep (a version 7 file, whose kallsyms
 * ftr does not read itself); NULL when none.  t: the struct tdat.  For
 * ksyms_set_resolver(); tdat_nksyms() says whether there are any. */
const char *tdat_ksym(uint64_t addr, uint64_t *start, void *t);
int tdat_nksyms(struct tdat *t);
const struct tdat_head *tdat_head(const struct tdat *t);

#endif
