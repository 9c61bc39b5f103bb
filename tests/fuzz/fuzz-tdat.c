// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for reading trace-cmd data files (report/tdat.c): the header
 * walk, then libtracecmd's open and a walk of every record, each decoded
 * enough to find its event and print it, by libtraceevent and by ftr's own
 * printer (report/output.c, text and JSON: its fields, __data_loc words
 * included, read where the file's formats say), as `ftr report` does.  The input
 * is put in a memfd and opened by its /proc/self/fd path, as a file would be.
 *
 * Linked with driver.c (make check-fuzz: a bounded deterministic campaign
 * over tests/fuzz/corpus-tdat, under ASan and UBSan).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>

#include "report/output.h"
#include "report/tdat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libtraceevent and libtracecmd leak on some refusals (their error paths);
 * those are not ftr's to fix, and a leak report would end the campaign. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

/* driver.c keeps the mutants that were read whole. */
int fuzz_last_ok;

static struct trace_seq seq;

static int on_record(struct tep_record *rec, void *arg)
{
	struct tep_handle *tep = arg;
	struct tep_event *ev = tep_find_event_by_record(tep, rec);

	static struct outbuf ob;
	struct evfmt f;

	if (ev) {
		trace_seq_reset(&seq);
		tep_print_event(tep, &seq, rec, "%s %d %s", TEP_PRINT_COMM, TEP_PRINT_PID,
				TEP_PRINT_INFO);
		if (evfmt_init(&f, ev, NULL, 0) == 0) {
			if (!ob.fd)
				ob_init(&ob, open("/dev/null", O_WRONLY | O_CLOEXEC));
			evfmt_print(&ob, OUT_TEXT, &f, rec, "fuzz", evfmt_pid(&f, rec));
			evfmt_print(&ob, OUT_JSON, &f, rec, "fuzz", evfmt_pid(&f, rec));
			ob_flush(&ob);
			evfmt_free(&f);
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[512];
	struct tdat *t;
	int fd = memfd_create("fuzz-tdat", MFD_CLOEXEC);

	fuzz_last_ok = 0;
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	if (!seq.buffer)
		trace_seq_init(&seq);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	t = tdat_open(path, err, sizeof(err));
	if (t) {
		if (tdat_iterate(t, on_record, NULL, tdat_tep(t)) >= 0)
			fuzz_last_ok = 1;
		free(tdat_kallsyms(t));
		tdat_close(t);
	} else if (!err[0]) {
		fprintf(stderr, "fuzz-tdat: a refusal without a message\n");
		abort();
	}
	close(fd);
	return 0;
}
