// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the text symbol sources (src/report/sym.c): the first
 * byte picks /proc/kallsyms (ksyms_parse, then lookups), a /proc/PID/maps
 * line per line (maps_parse_line), or a perf map (perfmap_parse).  See
 * driver.c for the harness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, buf[256];
	uint64_t off, addr;
	const char *mod;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	fuzz_last_ok = 0;
	switch (data[0] % 3) {
	case 0: {
		struct ksyms *k = NULL;

		if (ksyms_parse(text, &k) == 0 && k) {
			fuzz_last_ok = 1;
			for (uint64_t a = 0; a < 1 << 20; a = a * 3 + 7) {
				ksyms_at(k, a | 0xffffffff80000000ull, &off, &mod);
				ksyms_format(k, a | 0xffffffff80000000ull, a & 1, buf, sizeof(buf));
			}
			ksyms_addr(k, "main", NULL, &addr);
			ksyms_addr(k, "x", "m", &addr);
			ksyms_free(k);
		}
		break;
	}
	case 1:
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
			struct map_line m;

			fuzz_last_ok |= maps_parse_line(line, &m) == 0;
		}
		break;
	default: {
		struct perfmap *pm = NULL;

		if (perfmap_parse(text, &pm) == 0 && pm) {
			fuzz_last_ok = 1;
			for (uint64_t a = 0; a < 1 << 24; a = a * 5 + 3)
				perfmap_at(pm, a, &off);
			perfmap_free(pm);
		}
		break;
	}
	}
	free(text);
	return 0;
}
