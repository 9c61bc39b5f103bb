// SPDX-License-Identifier: GPL-2.0-or-later
/* Event formats and records for the unit tests: see fixture.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "ftr.h"
#include "kernel/formats.h"

struct tep_handle *fixture_tep(const char *const *events)
{
	struct tep_handle *tep = formats_new(FIXTURE_TRACEFS);

	if (!tep)
		fail_msg("cannot read %s/events/header_page", FIXTURE_TRACEFS);
	for (; *events; events++) {
		char sys[64];
		const char *colon = strchr(*events, ':');

		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - *events), *events);
		if (!formats_add(tep, FIXTURE_TRACEFS, sys, colon + 1))
			fail_msg("cannot load the format of %s", *events);
	}
	return tep;
}

struct tep_event *fixture_event(struct tep_handle *tep, const char *sys, const char *name)
{
	struct tep_event *ev = tep_find_event_by_name(tep, sys, name);

	if (!ev)
		fail_msg("no fixture for %s:%s", sys, name);
	return ev;
}

struct tep_format_field *fixture_field(struct tep_event *ev, const char *name)
{
	struct tep_format_field *f = tep_find_any_field(ev, name);

	if (!f)
		fail_msg("%s:%s has no field '%s'", ev->system, ev->name, name);
	return f;
}

void fx_rec_init(struct fx_rec *r, struct tep_event *ev, int pid)
{
	int end = 0;

	memset(r, 0, sizeof(*r));
	r->ev = ev;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > end)
			end = f->offset + f->size;
	r->tail = (end + 3) & ~3;
	r->r.data = r->data;
	r->r.size = r->tail;
	r->r.cpu = 3;
	fx_set_num(r, "common_type", ev->id);
	fx_set_num(r, "common_pid", pid);
}

void fx_set_num(struct fx_rec *r, const char *name, uint64_t v)
{
	struct tep_format_field *f = fixture_field(r->ev, name);

	/* little-endian host, as the fixtures' x86-64 */
	memcpy(r->data + f->offset, &v, f->size);
}

void fx_set_bytes(struct fx_rec *r, const char *name, const void *b, size_t n)
{
	struct tep_format_field *f = fixture_field(r->ev, name);

	assert_true(n <= (size_t)f->size);
	memset(r->data + f->offset, 0, f->size);
	memcpy(r->data + f->offset, b, n);
}

void fx_set_str(struct fx_rec *r, const char *name, const char *s)
{
	fx_set_bytes(r, name, s, strlen(s));
}

/* __data_loc / __rel_loc: the string goes at the end of the record */
void fx_set_dyn(struct fx_rec *r, const char *name, const char *s)
{
	struct tep_format_field *f = fixture_field(r->ev, name);
	uint32_t len = strlen(s) + 1, loc = r->tail;

	assert_true(r->tail + len <= sizeof(r->data));
	memcpy(r->data + r->tail, s, len);
	r->tail += len;
	r->r.size = r->tail;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		loc -= f->offset + f->size;
	fx_set_num(r, name, (uint64_t)len << 16 | loc);
}

static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int number(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = s[0] == '-' ? (uint64_t)strtoll(s, &end, 0) : strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

int fx_rec_parse(struct fx_rec *r, struct tep_handle *tep, const char *line, char *err,
		 size_t errlen)
{
	char name[128], val[256], sys[64];
	const char *p = line + strspn(line, " \t"), *colon;
	size_t n = strcspn(p, " \t");
	struct tep_event *ev;
	uint64_t v;

	colon = memchr(p, ':', n);
	if (!colon)
		return bad(err, errlen, "'%.*s' is not sys:event", (int)n, p);
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - p), p);
	snprintf(name, sizeof(name), "%.*s", (int)(p + n - colon - 1), colon + 1);
	ev = tep_find_event_by_name(tep, sys, name);
	if (!ev)
		return bad(err, errlen, "no format for %s:%s", sys, name);
	fx_rec_init(r, ev, 0);
	for (p += n; *(p += strspn(p, " \t"));) {
		struct tep_format_field *f;
		size_t w = 0;

		n = strcspn(p, "= \t");
		if (p[n] != '=')
			return bad(err, errlen, "'%.*s' is not NAME=VALUE", (int)n, p);
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n + 1;
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (w < sizeof(val) - 1)
					val[w++] = *p;
			if (*p++ != '"')
				return bad(err, errlen, "%s: unterminated string", name);
		} else {
			for (; *p && *p != ' ' && *p != '\t'; p++)
				if (w < sizeof(val) - 1)
					val[w++] = *p;
		}
		val[w] = '\0';
		if (!strcmp(name, "comm")) {
			snprintf(r->comm, sizeof(r->comm), "%.15s", val);
			continue;
		}
		if (!strcmp(name, "tid"))
			snprintf(name, sizeof(name), "common_pid");
		f = strcmp(name, "cpu") && strcmp(name, "ts") ? tep_find_any_field(ev, name) : NULL;
		if (f && (f->flags & TEP_FIELD_IS_STRING)) {
			if (f->flags & TEP_FIELD_IS_DYNAMIC)
				fx_set_dyn(r, name, val);
			else if (strlen(val) < (size_t)f->size)
				fx_set_str(r, name, val);
			else
				return bad(err, errlen, "%s: '%s' is longer than the field", name, val);
			continue;
		}
		if (number(val, &v))
			return bad(err, errlen, "%s: '%s' is not a number", name, val);
		if (!strcmp(name, "cpu"))
			r->r.cpu = (int)v;
		else if (!strcmp(name, "ts"))
			r->r.ts = v;
		else if (f)
			fx_set_num(r, name, v);
		else
			return bad(err, errlen, "%s:%s has no field '%s'", sys, ev->name, name);
	}
	return 0;
}

char *fixture_text(size_t *len, const char *fmt, ...)
{
	char rel[400], path[512];
	va_list ap;
	char *text;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", FIXTURES, rel);
	text = read_file(path, len);
	if (!text)
		fail_msg("cannot read the fixture %s", path);
	return text;
}
