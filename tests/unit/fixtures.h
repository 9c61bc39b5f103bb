/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * For the unit tests that decode records: the event formats of
 * tests/fixtures/formats (6.18, x86-64) parsed into one tep_handle with the
 * long and page sizes of that machine.
 */
#ifndef FTR_TEST_FIXTURES_H
#define FTR_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>

#include "ftr.h"

/* events: n {system, event} pairs.  NULL (with the file named on stderr)
 * when one is missing or does not parse. */
static inline struct tep_handle *fixture_tep(const char *const (*events)[2], size_t n)
{
	struct tep_handle *tep = tep_alloc();
	char path[512];
	size_t len;
	char *text;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_page_size(tep, 4096);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/formats/events/%s/%s/format", FIXTURES,
			 events[i][0], events[i][1]);
		text = read_file(path, &len);
		if (!text || tep_parse_event(tep, text, len, events[i][0])) {
			fprintf(stderr, "cannot load %s\n", path);
			free(text);
			tep_free(tep);
			return NULL;
		}
		free(text);
	}
	return tep;
}

#endif
