// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the ELF reader (src/report/elfsym.c, through libelf): the
 * bytes as a file (a memfd), opened, every symbol looked up by name and by
 * address, and addresses turned into file offsets and back.  Truncated and
 * corrupted ELF files must be refused or read, never crash.  See driver.c
 * for the harness.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "report/elfsym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	char path[64], why[512];
	struct elfsym *e = NULL;

	fuzz_last_ok = 0;
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (elfsym_open(path, &e, why, sizeof(why)) == 0) {
			const char *near[4];

			fuzz_last_ok = 1;
			for (size_t i = 0; i < elfsym_count(e) && i < 4096; i++) {
				const struct elfsym_sym *s = elfsym_get(e, i), *f;
				uint64_t off, va;
				size_t n;

				elfsym_find(e, s->name, &f, &n);
				elfsym_at(e, s->addr, &off);
				if (elfsym_vaddr_to_offset(e, s->addr, &off) == 0)
					elfsym_offset_to_vaddr(e, off, &va);
			}
			elfsym_similar(e, "main", near, 4);
			elfsym_close(e);
		} else if (!why[0]) {
			abort();	/* a refusal without a reason */
		}
	}
	close(fd);
	return 0;
}
