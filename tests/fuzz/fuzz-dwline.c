// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the DWARF reader (src/report/dwline.c): the bytes as an
 * ELF file (a memfd, as fuzz-elfsym), its debug sections read, and the
 * addresses of its function symbols (or a few fixed ones) looked up: lines,
 * files and inlined calls.  Corrupted DWARF must give fewer answers, never
 * a read outside its sections.  See driver.c for the harness.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/dwline.h"
#include "report/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

/* Each frame's strings are read whole: ASan sees a name that runs past
 * its section. */
static size_t lookup(struct dwline *d, uint64_t addr)
{
	struct dwline_frame f[DWLINE_MAX_FRAMES];
	int n = dwline_lookup(d, addr, f, DWLINE_MAX_FRAMES);
	size_t len = 0;

	if (n < 0 || n > DWLINE_MAX_FRAMES)
		abort();
	for (int i = 0; i < n; i++)
		len += strlen(f[i].file) + (f[i].name ? strlen(f[i].name) : 0);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-dwarf", MFD_CLOEXEC);
	struct elfsym *e = NULL;
	struct dwline *d = NULL;
	char path[64];

	fuzz_last_ok = 0;
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (write(fd, data, size) == (ssize_t)size && dwline_open(path, &d) == 0) {
		fuzz_last_ok = 1;
		if (elfsym_open(path, &e, NULL, 0) == 0) {
			for (size_t i = 0; i < elfsym_count(e) && i < 64; i++) {
				const struct elfsym_sym *s = elfsym_get(e, i);

				lookup(d, s->addr);
				lookup(d, s->addr + s->size / 2);
			}
			elfsym_close(e);
		}
		for (uint64_t a = 0x1000; a < 0x1400; a += 0x40)
			lookup(d, a);
		dwline_close(d);
	}
	close(fd);
	return 0;
}
