/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the unit tests share: the event formats of tests/fixtures/formats
 * (laid out like tracefs) and records built on them, field by field or from
 * a line of text:
 *
 *	syscalls:sys_enter_write tid=5000001 cpu=1 ts=1000 comm=bash fd=1 count=100
 *	sched:sched_process_exec tid=5000002 filename="/opt/my app" pid=5000002
 *
 * tid (common_pid), cpu, ts and comm describe the record; every other
 * NAME=VALUE sets a field of the event: a number (decimal, 0x hex, -N) in
 * the field's size, or a string (char[N], __data_loc or __rel_loc char[]),
 * in double quotes when it has spaces.  The records are little-endian, as
 * the x86-64 formats are.
 */
#ifndef FTR_TEST_FIXTURE_H
#define FTR_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>

#define FIXTURE_TRACEFS FIXTURES "/formats"

/* The text of tests/fixtures/PATH (printf-style), NUL-terminated, its length
 * in *len if not NULL; fails the test when it cannot be read.  free() it. */
char *fixture_text(size_t *len, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A handle with the header page and the formats of events ("sys:ev",
 * NULL-terminated), read the way ftr reads them (formats.c).  Fails the
 * test when one is missing. */
struct tep_handle *fixture_tep(const char *const *events);
struct tep_event *fixture_event(struct tep_handle *tep, const char *sys, const char *name);
struct tep_format_field *fixture_field(struct tep_event *ev, const char *name);

struct fx_rec {
	struct tep_record r;
	struct tep_event *ev;
	unsigned char data[512];
	int tail;			/* where the next dynamic string goes */
	char comm[16];			/* comm=, or "" */
};

/* Zeroed, with common_type and common_pid set, on cpu 3 at ts 0. */
void fx_rec_init(struct fx_rec *r, struct tep_event *ev, int pid);
void fx_set_num(struct fx_rec *r, const char *name, uint64_t v);
void fx_set_bytes(struct fx_rec *r, const char *name, const void *b, size_t n);
void fx_set_str(struct fx_rec *r, const char *name, const char *s);	/* char[N] */
void fx_set_dyn(struct fx_rec *r, const char *name, const char *s);	/* __data_loc, __rel_loc */
/* A record from a line of text (above).  0, or -1 with the reason in err. */
int fx_rec_parse(struct fx_rec *r, struct tep_handle *tep, const char *line, char *err,
		 size_t errlen);

#endif
