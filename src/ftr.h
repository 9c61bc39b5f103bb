/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ftr — common declarations: exit codes, messages, small helpers.
 *
 * Modules return 0 or -errno and never exit; only main.c and cmd-*.c decide
 * to end the program.  Messages follow git's shape: lowercase, what failed
 * first, the subject quoted ("ftr: cannot enable 'sched:sched_switch': ...").
 */
#ifndef FTR_H
#define FTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FTR_VERSION
#define FTR_VERSION "0.0.0"
#endif
#ifndef FTR_DATADIR
#define FTR_DATADIR "/usr/local/share/ftr"
#endif

/* Exit codes a script can rely on; documented in ftr(1). */
enum {
	FTR_EXIT_OK = 0,
	FTR_EXIT_FAIL = 1,
	FTR_EXIT_USAGE = 2,
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Wide integers: the exact sums of 64-bit values (@sum, @avg, hist
 * statistics, their Prometheus export).  128 bits wherever the compiler has
 * __int128, i.e. on every 64-bit target.  GCC has no __int128 on 32-bit
 * targets (armhf): there they are 64 bits, bpftrace's own width for sums,
 * and a sum beyond +-2^63 wraps as it does in bpftrace. */
#ifdef __SIZEOF_INT128__
typedef __int128 wide_t;
typedef unsigned __int128 uwide_t;
#else
typedef int64_t wide_t;
typedef uint64_t uwide_t;
#endif

/* util.c */
extern const char *ftr_progname;
extern int ftr_verbose;
/* --no-warnings (bpftrace's): no warning is printed, ftr's or the program's */
extern bool ftr_no_warnings;
void ftr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ftr_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Free n malloc'd strings and their array (v may be NULL). */
void strv_free(char **v, size_t n);
void ftr_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a multi-line kernel error_log entry, indented, after an error line. */
void ftr_err_kernel_log(const char *log);

char *read_file(const char *path, size_t *len);	/* malloc'd, NUL-terminated; NULL+errno */
/* The same, refusing (EFBIG) a file of more than max bytes: text from a
 * user (a program) read whole, which /dev/zero would make endless. */
char *read_file_max(const char *path, size_t max, size_t *len);
/* Its first max bytes at most (cat(): /dev/zero is endless). */
char *read_file_head(const char *path, size_t max, size_t *len);
/* The most program text ftr reads (a file, standard input, -e). */
#define FTR_PROG_MAX (8u << 20)
/* What to do when /proc/kallsyms reads as zeros, for a message, after
 * kernel.kptr_restrict's value (-1: unknown): at 2 root is refused too. */
const char *kptr_remedy(int kptr_restrict);
int write_file(const char *path, const char *s);	/* 0 / -errno; "": O_TRUNC */
bool path_exists(const char *path);
bool str_has_prefix(const char *s, const char *prefix);
bool str_has_suffix(const char *s, const char *suffix);
char *str_trim(char *s);
void sh_quote(FILE *f, const char *s);	/* one single-quoted sh word */
void json_str(FILE *f, const char *s);	/* a quoted, escaped JSON string */
/* One byte as it goes in a JSON string: its escape, or itself.  Length. */
size_t json_escape(unsigned char c, char out[7]);
bool pid_alive(int pid);
/* The threads of process pid (malloc'd array): 0, -ESRCH, -errno. */
int proc_threads(int pid, int **tids, int *n);
/* Raise the soft limit of open files to the hard one (many perf fds). */
void raise_nofile(void);
/* What standard output is, for messages: "standard output", or the
 * quoted FILE of -o FILE once a command has put FILE there. */
extern const char *ftr_stdout_file;
const char *stdout_name(void);
int stdout_check(void);

/* Pure parsers for command-line values: 0 or -EINVAL/-ERANGE. */
int parse_duration_ns(const char *s, uint64_t *ns);	/* "5", "5s", "200ms", "2m", "1h" */
int parse_u64(const char *s, uint64_t *out);
int parse_cpulist(const char *s, bool *mask, int n);	/* "0,2-3" */

/*
 * Symbol tables (kallsyms, ELF) sorted by address, aliases with their
 * preferred name first: the index of the symbol an address falls in, i.e.
 * the first of the entries with the greatest address <= addr, or -1 when
 * every entry is above addr.  The entries are `size` bytes apart, each with
 * a uint64_t address `key_off` bytes in.  *next (if not NULL): the index of
 * the first entry above addr (n if none), where the symbol ends at the latest.
 */
long addr_floor(const void *v, size_t n, size_t size, size_t key_off, uint64_t addr,
		size_t *next);
void cpumask_hex(const bool *mask, int n, char *buf, size_t len);	/* tracing_cpumask text */			/* after a command: report stdout write errors */

#endif
