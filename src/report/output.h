/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output: a buffered writer for the hot path (no stdio locking, no printf
 * per field) and the event printers: text shaped like trace-cmd report, and
 * one JSON object per line with typed fields.
 */
#ifndef FTR_OUTPUT_H
#define FTR_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftr.h"

struct tep_event;
struct tep_format_field;
struct tep_record;

struct outbuf {
	int fd;
	int err;		/* first write error (-errno), sticky */
	size_t len;
	/* What the last event line said of its task and of its second, for
	 * the next line to copy: events come in runs from one task on one
	 * CPU, and seconds change slowly (evfmt_print). */
	struct {
		bool valid;
		int pid, cpu, mode;
		char comm[16];
		unsigned len;
		char text[160];	/* "comm-pid [cpu] ", or JSON's ,"cpu":..."pid":N */
	} task;
	uint64_t secs;		/* UINT64_MAX: none yet */
	unsigned secslen;
	char secstext[24];	/* "secs." */
	char buf[1 << 16];
};

void ob_init(struct outbuf *ob, int fd);
int ob_flush(struct outbuf *ob);
void ob_write(struct outbuf *ob, const char *s, size_t n);
void ob_puts(struct outbuf *ob, const char *s);
void ob_u64(struct outbuf *ob, uint64_t v);
void ob_s64(struct outbuf *ob, int64_t v);
void ob_s128(struct outbuf *ob, wide_t v);
void ob_hex(struct outbuf *ob, uint64_t v);
void ob_json_str(struct outbuf *ob, const char *s, size_t maxlen);
/* s[0..n) for a terminal: control characters as \xNN. */
void ob_text_str(struct outbuf *ob, const char *s, size_t n);

/* Hot path: one byte, inline. */
static inline void ob_putc(struct outbuf *ob, char c)
{
	if (ob->len == sizeof(ob->buf))
		ob_flush(ob);
	ob->buf[ob->len++] = c;
}

/* Pure helpers for field values (shared with the filter evaluator's
 * users): the value of a numeric field, sign-extended when signed. */
int64_t field_signed(const struct tep_format_field *f, const void *data);
uint64_t field_unsigned(const struct tep_format_field *f, const void *data);
/* A string field (char[N], __data_loc or __rel_loc char[]): pointer and
 * length (not NUL-terminated; stops at the first NUL). */
const char *field_string(const struct tep_format_field *f, const void *data, int size,
			 size_t *len);

/* A numeric field as the C type it has (an int in a syscall's 8-byte slot
 * is an int), for the language; strings are field_string's. */
int64_t field_int(const struct tep_format_field *f, const struct tep_record *rec);
bool field_is_string(const struct tep_format_field *f);
/* A value the kernel printed as unsigned (a hist key), as the field's type. */
int64_t field_from_u64(const struct tep_format_field *f, uint64_t u);

/* OUT_BTJSON: bpftrace's -f json (ftr run): a line {"type": ..., "data": ...}
 * per printf, print and map at exit. */
enum out_mode { OUT_TEXT, OUT_JSON, OUT_BTJSON };

/* How a field prints, decided once per event type, not per event. */
enum fkind {
	FK_STRING, FK_ARRAY, FK_POINTER,
	FK_INT_IN_LONG,		/* an int stored in 8 unsigned bytes (syscall args) */
	FK_S8, FK_S16, FK_S32, FK_S64,
	FK_U8, FK_U16, FK_U32, FK_U64,
	/* printing only (evfmt): */
	FK_BYTES,		/* u8 arrays, odd-sized fields, dynamic non-char data:
				 * the bytes as numbers */
	FK_CPUMASK,		/* a __data_loc cpumask: the CPUs in it, as a list */
};
/* How a numeric field is read: its size and signedness as the format says,
 * but for FK_INT_IN_LONG. */
enum fkind field_kind(const struct tep_format_field *f);

struct ffmt {
	struct tep_format_field *f;
	enum fkind kind;
	unsigned char tlen, jlen;
	char tlabel[80];	/* " name=" (text) */
	char jlabel[80];	/* "\"name\":" (JSON) */
};

/* How one event type prints: which fields, in which order. */
struct evfmt {
	struct tep_event *ev;
	char name[192];			/* "system:event" */
	char jname[200];		/* the same as a JSON string */
	char ename[192];		/* "event" */
	size_t enamelen, jnamelen;
	size_t headmax;			/* the most a line takes before its fields */
	struct tep_format_field *pid;	/* common_pid */
	struct ffmt *fields;
	int nfields;
};

/* only: NULL for every non-common field, else the names to print (those
 * the event lacks are skipped).  0 or -ENOMEM. */
int evfmt_init(struct evfmt *f, struct tep_event *ev, char *const *only, int nonly);
void evfmt_free(struct evfmt *f);
int evfmt_pid(const struct evfmt *f, const struct tep_record *rec);
void evfmt_print(struct outbuf *ob, enum out_mode mode, const struct evfmt *f,
		 const struct tep_record *rec, const char *comm, int pid);

#endif
