// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for event format files (events/SYS/EV/format), which ftr
 * hands to libtraceevent through formats_parse (src/kernel/formats.c): parse
 * any bytes as one, and walk the fields of an event that parses.  See
 * driver.c for the harness.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "kernel/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;

	fuzz_last_ok = 0;
	if (!tep)
		return 0;
	if (formats_parse(tep, (const char *)data, size, "fuzz") == 0 &&
	    (ev = tep_get_first_event(tep))) {
		struct tep_format_field **fields = tep_event_fields(ev);

		fuzz_last_ok = 1;
		for (int i = 0; fields && fields[i]; i++)
			tep_find_field(ev, fields[i]->name);
		free(fields);
	}
	tep_free(tep);
	return 0;
}
