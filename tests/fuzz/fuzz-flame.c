// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for folded-stack input (`ftr profile -i`, src/report/flame.c):
 * every line added, then the tree written back as folded lines and as the
 * SVG (to /dev/null).  See driver.c for the harness.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flame *f = flame_new();
	FILE *null = fopen("/dev/null", "w");
	char *text = malloc(size + 1);

	fuzz_last_ok = 0;
	if (f && null && text) {
		memcpy(text, data, size);
		text[size] = '\0';
		fuzz_last_ok = 1;
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			if (flame_add_folded(f, line) < 0)
				fuzz_last_ok = 0;
		flame_write_folded(f, null);
		flame_write_svg(f, null, NULL);
	}
	flame_free(f);
	if (null)
		fclose(null);
	free(text);
	return 0;
}
