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

/* digits, then *p past them; false if none */
static bool skip_digits(const char **p, const char *end)
{
	const char *s = *p;

	while (*p < end && **p >= '0' && **p <= '9')
		(*p)++;
	return *p > s;
}

/*
 * Each field line as the kernel writes it: "\tfield:DECL;\toffset:N;\tsize:N;"
 * and (since 2.6.32) "\tsigned:N;", DECL printable text with balanced
 * brackets.  libtraceevent 1.7.1 reads a damaged line past its tokens (a
 * NULL strcmp in its field reader: the fuzzer's format of a field with a
 * lone '[' and no offset), and formats also come from data files (ftr run
 * -i, report), so a line of another shape is refused before it.
 */
static bool field_line_ok(const char *p, const char *end)
{
	const char *decl = p, *semi;
	int depth = 0;

	semi = memchr(p, ';', end - p);
	if (!semi || semi == decl)
		return false;
	for (const char *c = decl; c < semi; c++) {
		if ((unsigned char)*c < ' ' || *c == 0x7f)
			return false;
		if (*c == '[')
			depth++;
		else if (*c == ']' && --depth < 0)
			return false;
	}
	if (depth)
		return false;
	p = semi + 1;
	if (end - p < 8 || memcmp(p, "\toffset:", 8))
		return false;
	p += 8;
	if (!skip_digits(&p, end) || end - p < 7 || memcmp(p, ";\tsize:", 7))
		return false;
	p += 7;
	if (!skip_digits(&p, end) || p >= end || *p++ != ';')
		return false;
	if (end - p >= 8 && !memcmp(p, "\tsigned:", 8)) {
		p += 8;
		if (!skip_digits(&p, end) || p >= end || *p++ != ';')
			return false;
	}
	return p == end;
}

static bool fields_ok(const char *buf, size_t len)
{
	const char *end = buf + len;

	for (const char *p = buf; p < end;) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;

		if (e - p >= 7 && !memcmp(p, "\tfield:", 7) && !field_line_ok(p + 7, e))
			return false;
		if (e - p >= 15 && !memcmp(p, "\tfield special:", 15) && !field_line_ok(p + 15, e))
			return false;
		p = nl ? nl + 1 : end;
	}
	return true;
}

int formats_parse(struct tep_handle *tep, const char *buf, size_t len, const char *sys)
{
	static const char empty[] = "\nprint fmt: \"\"\n";
	const char *pf = NULL;
	char *copy;
	size_t keep;
	int ret;

	for (const char *p = buf; p && p < buf + len; p = memchr(p, '\n', buf + len - p)) {
		if (*p == '\n')
			p++;
		if ((size_t)(buf + len - p) >= 10 && !memcmp(p, "print fmt:", 10)) {
			pf = p;
			break;
		}
	}
	keep = pf ? (size_t)(pf - buf) : len;
	if (!fields_ok(buf, keep)) {
		errno = EINVAL;
		return -1;
	}
	copy = malloc(keep + sizeof(empty));
	if (!copy)
		return -1;
	memcpy(copy, buf, keep);
	memcpy(copy + keep, empty, sizeof(empty));
	ret = tep_parse_event(tep, copy, keep + sizeof(empty) - 1, sys) != 0 ? -1 : 0;
	free(copy);
	return ret;
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
	if (formats_parse(tep, buf, len, sys) != 0) {
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	free(buf);
	return tep_find_event_by_name(tep, sys, ev);
}
