// SPDX-License-Identifier: GPL-2.0-or-later
/* Event formats: see formats.h. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "kernel/formats.h"
#include "ftr.h"

struct tep_handle *formats_new(const char *tdir)
{
	enum tep_endian host = htons(1) == 1 ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN;
	struct tep_handle *tep = tep_alloc();
	char path[PATH_MAX], *buf;
	size_t len;

	if (!tep)
		return NULL;
	/* libtraceevent takes the long size for kbuffer from here; left at 0
	 * it silently reads 4-byte longs (docs/libraries.md L6). */
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	tep_set_file_bigendian(tep, host);
	tep_set_local_bigendian(tep, host);
	snprintf(path, sizeof(path), "%s/events/header_page", tdir);
	buf = read_file(path, &len);
	if (!buf || tep_parse_header_page(tep, buf, len, sizeof(long)) != 0) {
		int e = errno ? errno : EINVAL;

		free(buf);
		tep_free(tep);
		errno = e;
		return NULL;
	}
	free(buf);
	/* No tracefs_load_cmdlines(): comm.c looks pids up in /proc and in a
	 * fresh saved_cmdlines when it meets them, and parsing thousands of
	 * saved comms at every start cost 3 ms. */
	return tep;
}

struct tep_event *formats_add(struct tep_handle *tep, const char *tdir, const char *sys,
			      const char *ev)
{
	struct tep_event *event = tep_find_event_by_name(tep, sys, ev);
	char path[PATH_MAX], *buf;
	size_t len;

	if (event)
		return event;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tdir, sys, ev);
	buf = read_file(path, &len);
	if (!buf)
		return NULL;
	if (tep_parse_event(tep, buf, len, sys) != 0) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	free(buf);
	return tep_find_event_by_name(tep, sys, ev);
}
