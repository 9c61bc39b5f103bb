// SPDX-License-Identifier: GPL-2.0-or-later
/* Output: see output.h.  Everything here is on the per-event path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "ftr.h"
#include "report/output.h"

void ob_init(struct outbuf *ob, int fd)
{
	ob->fd = fd;
	ob->err = 0;
	ob->len = 0;
	ob->task.valid = false;
	ob->secs = UINT64_MAX;
}

int ob_flush(struct outbuf *ob)
{
	size_t off = 0;

	while (off < ob->len && !ob->err) {
		ssize_t w = write(ob->fd, ob->buf + off, ob->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			ob->err = w < 0 ? -errno : -EIO;
		else
			off += w;
	}
	ob->len = 0;
	return ob->err;
}

void ob_write(struct outbuf *ob, const char *s, size_t n)
{
	if (ob->len + n > sizeof(ob->buf)) {
		ob_flush(ob);
		if (n > sizeof(ob->buf))
			n = sizeof(ob->buf);	/* one field cannot be this long */
	}
	memcpy(ob->buf + ob->len, s, n);
	ob->len += n;
}

void ob_puts(struct outbuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

/*
 * The writers below fill the buffer through a cursor p: room() makes space
 * for the most a piece can take, once, and the piece is written without a
 * check per byte.  An event costs a few such checks, not one per character.
 */
static inline char *room(struct outbuf *ob, char *p, size_t n)
{
	if ((size_t)(ob->buf + sizeof(ob->buf) - p) >= n)
		return p;
	ob->len = p - ob->buf;
	ob_flush(ob);
	return ob->buf + ob->len;
}

/* The most a number takes: 20 digits, or a sign and 19. */
#define NUM_MAX 20
/* What an event's line takes before its fields, at the most: the longest
 * comm (escaped in JSON), pid, cpu and timestamp as the longest numbers,
 * the words around them and put_short()'s over-copy; the event's name is
 * added per event type. */
#define HEAD_MAX (16 * 6 + 4 * NUM_MAX + 7 + 64 + 32)

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline char *put_dec(char *p, uint64_t v)
{
	static const uint64_t pow10[] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
		100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
		1000000000000ull, 10000000000000ull, 100000000000000ull,
		1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	int n = 1;
	char *q;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	/* Most numbers are short: count the digits, then fill them from the
	 * right, two per division. */
	while (n < 20 && v >= pow10[n])
		n++;
	q = p + n;
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--q = digit_pairs[d + 1];
		*--q = digit_pairs[d];
	}
	if (v >= 10) {
		*--q = digit_pairs[v * 2 + 1];
		*--q = digit_pairs[v * 2];
	} else {
		*--q = (char)('0' + v);
	}
	return p + n;
}

static inline char *put_sdec(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_dec(p, -(uint64_t)v);
	}
	return put_dec(p, (uint64_t)v);
}

/* "0x" and the digits that matter: NUM_MAX bytes at most.  Two digits at a
 * time (addresses are long), from the right. */
static inline char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int n = (64 - __builtin_clzll(v | 1) + 3) / 4;
	char *q;

	*p++ = '0';
	*p++ = 'x';
	q = p + n;
	for (; q - p >= 2; v >>= 8) {
		*--q = digits[v & 15];
		*--q = digits[(v >> 4) & 15];
	}
	if (q > p)
		*--q = digits[v & 15];
	return p + n;
}

static inline char *put_mem(char *p, const void *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/*
 * Labels and names from an array of at least 32 bytes: one fixed 32-byte
 * move for the short ones, where a copy of variable length costs a call or
 * a slow "rep movs".  The room must be 32 bytes even when n is less.
 */
static inline char *put_short(char *p, const char *s, size_t n)
{
	if (n <= 32)
		memcpy(p, s, 32);
	else
		memcpy(p, s, n);
	return p + n;
}

void ob_u64(struct outbuf *ob, uint64_t v)
{
	ob->len = put_dec(room(ob, ob->buf + ob->len, NUM_MAX), v) - ob->buf;
}

void ob_s128(struct outbuf *ob, wide_t v)
{
	char tmp[48];
	int i = sizeof(tmp);
	uwide_t u;

	if (v < 0) {
		ob_putc(ob, '-');
		u = -(uwide_t)v;
	} else {
		u = (uwide_t)v;
	}
	do {
		tmp[--i] = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	ob_write(ob, tmp + i, sizeof(tmp) - i);
}

void ob_s64(struct outbuf *ob, int64_t v)
{
	ob->len = put_sdec(room(ob, ob->buf + ob->len, NUM_MAX), v) - ob->buf;
}

void ob_hex(struct outbuf *ob, uint64_t v)
{
	ob->len = put_hex(room(ob, ob->buf + ob->len, NUM_MAX), v) - ob->buf;
}

/* The quoted, escaped JSON string of s[0..n): each byte takes 6 at the most
 * ("\u001f"), so a long string goes in pieces that fit the buffer. */
static char *put_json(struct outbuf *ob, char *p, const char *s, size_t n)
{
	const size_t piece = (sizeof(ob->buf) - 2) / 6;

	p = room(ob, p, 1);
	*p++ = '"';
	do {
		size_t k = n < piece ? n : piece;

		p = room(ob, p, 6 * k + 1);
		for (size_t i = 0; i < k; i++) {
			unsigned char c = s[i];

			/* The common case without a call: nothing to escape. */
			if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
				*p++ = (char)c;
			else
				p += json_escape(c, p);
		}
		s += k;
		n -= k;
	} while (n);
	*p++ = '"';
	return p;
}

/* Text: the bytes as they are, but a control character as \xNN, so that a
 * program's name or a string (an escape sequence) cannot drive the
 * operator's terminal.  JSON escapes them alike. */
static char *put_text(struct outbuf *ob, char *p, const char *s, size_t n, bool layout)
{
	static const char hex[] = "0123456789abcdef";
	const size_t piece = sizeof(ob->buf) / 4;

	do {
		size_t k = n < piece ? n : piece;

		p = room(ob, p, 4 * k);
		for (size_t i = 0; i < k; i++) {
			unsigned char c = s[i];

			if ((c >= 0x20 && c != 0x7f) || (layout && (c == '\n' || c == '\t'))) {
				*p++ = (char)c;
			} else {
				p[0] = '\\';
				p[1] = 'x';
				p[2] = hex[c >> 4];
				p[3] = hex[c & 15];
				p += 4;
			}
		}
		s += k;
		n -= k;
	} while (n);
	return p;
}

void ob_text_str(struct outbuf *ob, const char *s, size_t n)
{
	ob->len = put_text(ob, ob->buf + ob->len, s, n, false) - ob->buf;
}

/* A program's string: a newline and a tab are printed as they are, as
 * bpftrace prints them (they lay out text and cannot drive a terminal). */
void ob_lang_str(struct outbuf *ob, const char *s, size_t n)
{
	ob->len = put_text(ob, ob->buf + ob->len, s, n, true) - ob->buf;
}

void ob_json_str(struct outbuf *ob, const char *s, size_t maxlen)
{
	ob->len = put_json(ob, ob->buf + ob->len, s, strnlen(s, maxlen)) - ob->buf;
}

/* ---- field values ---------------------------------------------------------- */

uint64_t field_unsigned(const struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;

	tep_read_number_field((struct tep_format_field *)f, data, &v);
	return v;
}

int64_t field_signed(const struct tep_format_field *f, const void *data)
{
	uint64_t v = field_unsigned(f, data);

	/* libtraceevent hands back raw bits: sign-extend from the field size. */
	switch (f->size) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	case 4: return (int32_t)v;
	default: return (int64_t)v;
	}
}

/* Whether n bytes at off lie within a record of size bytes: offsets and
 * sizes come from a format text (a trace.dat from anywhere) and from the
 * record itself, so they are taken as the 64-bit numbers they are, never
 * added in an int that wraps. */
static inline bool in_record(int64_t off, int64_t n, int size)
{
	return off >= 0 && n >= 0 && off + n <= (int64_t)size;
}

/* Where a field's bytes are: in place, or where its __data_loc /
 * __rel_loc word points.  NULL (and *len 0) when outside the record: the
 * word itself, or the bytes it points at (issue 38: an offset word of
 * 2,000,000,000 was read from far outside). */
static const unsigned char *field_bytes(const struct tep_format_field *f, const void *data,
					int size, size_t *len)
{
	int64_t off, n;

	*len = 0;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* __data_loc: 32 bits, offset in the low half, length in
		 * the high half; __rel_loc: offset from the end of the field. */
		uint32_t loc;

		if (f->size != 4 || !in_record(f->offset, 4, size))
			return NULL;
		memcpy(&loc, (const char *)data + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (int64_t)f->offset + f->size;
	} else {
		off = f->offset;
		n = f->size;
	}
	if (!in_record(off, n, size))
		return NULL;
	*len = (size_t)n;
	return (const unsigned char *)data + off;
}

const char *field_string(const struct tep_format_field *f, const void *data, int size,
			 size_t *len)
{
	const char *p = (const char *)field_bytes(f, data, size, len);

	if (!p)
		return "";
	*len = strnlen(p, *len);
	return p;
}

/* ---- event printing -------------------------------------------------------- */

static bool is_int_type(const char *t)
{
	return !strcmp(t, "int") || !strcmp(t, "pid_t") || !strcmp(t, "int32_t") ||
	       !strcmp(t, "s32") || !strcmp(t, "const int");
}

enum fkind field_kind(const struct tep_format_field *f)
{
	bool sgn = f->flags & TEP_FIELD_IS_SIGNED;

	if (f->flags & TEP_FIELD_IS_STRING)
		return FK_STRING;
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return FK_ARRAY;
	if (f->flags & TEP_FIELD_IS_POINTER)
		return FK_POINTER;
	/* Syscall tracepoints store every argument in 8 unsigned bytes,
	 * whatever its C type: print an int as the int it is (dfd=-100). */
	if (f->size == 8 && !sgn && is_int_type(f->type))
		return FK_INT_IN_LONG;
	switch (f->size) {
	case 1: return sgn ? FK_S8 : FK_U8;
	case 2: return sgn ? FK_S16 : FK_U16;
	case 4: return sgn ? FK_S32 : FK_U32;
	default: return sgn ? FK_S64 : FK_U64;
	}
}

static bool is_byte_type(const char *t)
{
	/* "u8 odd[3]" and "__data_loc u8[] blob": the type names the element */
	static const char *const b[] = { "u8", "__u8", "unsigned char", "uint8_t" };
	if (!strncmp(t, "__data_loc ", 11))
		t += 11;
	else if (!strncmp(t, "__rel_loc ", 10))
		t += 10;
	for (size_t i = 0; i < ARRAY_SIZE(b); i++) {
		size_t n = strlen(b[i]);

		if (!strncmp(t, b[i], n) && (t[n] == '[' || t[n] == ' ' || !t[n]))
			return true;
	}
	return false;
}

/* How a field prints: its field_kind, but for what libtraceevent takes for
 * a string or a number and is neither: bytes (u8 arrays), a cpumask, a
 * struct of an odd size. */
static enum fkind print_kind(const struct tep_format_field *f)
{
	enum fkind k = field_kind(f);

	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && strstr(f->type, "cpumask"))
		return FK_CPUMASK;
	if (k == FK_STRING && is_byte_type(f->type))
		return FK_BYTES;
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && k != FK_STRING)
		return FK_BYTES;
	if (k >= FK_S8 && k <= FK_U64 && f->size != 1 && f->size != 2 && f->size != 4 &&
	    f->size != 8)
		return FK_BYTES;
	return k;
}

int evfmt_init(struct evfmt *f, struct tep_event *ev, char *const *only, int nonly)
{
	struct tep_format_field **all = tep_event_fields(ev);
	int n = 0;

	memset(f, 0, sizeof(*f));
	f->ev = ev;
	snprintf(f->name, sizeof(f->name), "%s:%s", ev->system, ev->name);
	snprintf(f->jname, sizeof(f->jname), "\"%s\"", f->name);
	snprintf(f->ename, sizeof(f->ename), "%s", ev->name);
	f->enamelen = strlen(f->ename);
	f->jnamelen = strlen(f->jname);
	f->headmax = HEAD_MAX + (f->enamelen > f->jnamelen ? f->enamelen : f->jnamelen);
	f->pid = tep_find_common_field(ev, "common_pid");
	for (int i = 0; all && all[i]; i++)
		n++;
	f->fields = calloc(n + nonly + 1, sizeof(*f->fields));
	if (!f->fields) {
		free(all);
		return -ENOMEM;
	}
	for (int j = 0; j < (only ? nonly : n); j++) {
		/* With --fields, in the order the user gave them. */
		struct tep_format_field *fl = only ? tep_find_any_field(ev, only[j]) : all[j];
		struct ffmt *ff;

		if (!fl)
			continue;
		ff = &f->fields[f->nfields++];
		ff->f = fl;
		ff->kind = print_kind(fl);
		snprintf(ff->tlabel, sizeof(ff->tlabel), " %s=", fl->name);
		ff->tlen = (unsigned char)strlen(ff->tlabel);
		snprintf(ff->jlabel, sizeof(ff->jlabel), "\"%s\":", fl->name);
		ff->jlen = (unsigned char)strlen(ff->jlabel);
	}
	free(all);
	return 0;
}

void evfmt_free(struct evfmt *f)
{
	free(f->fields);
	f->fields = NULL;
}

int evfmt_pid(const struct evfmt *f, const struct tep_record *rec)
{
	int32_t pid;

	if (!f->pid || !in_record(f->pid->offset, sizeof(pid), rec->size))
		return -1;
	memcpy(&pid, (char *)rec->data + f->pid->offset, sizeof(pid));
	return pid;
}

/* The ring buffer is in this machine's byte order (ftr reads the running
 * kernel), so a field is read with one memcpy. */
static inline uint64_t rd(const struct tep_record *rec, const struct tep_format_field *f, int sz)
{
	const char *p = (const char *)rec->data + f->offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	if (!in_record(f->offset, sz, rec->size))
		return 0;
	switch (sz) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

int64_t field_int(const struct tep_format_field *f, const struct tep_record *rec)
{
	switch (field_kind(f)) {
	case FK_INT_IN_LONG: return (int32_t)rd(rec, f, 8);
	case FK_S8: return (int8_t)rd(rec, f, 1);
	case FK_S16: return (int16_t)rd(rec, f, 2);
	case FK_S32: return (int32_t)rd(rec, f, 4);
	case FK_S64: return (int64_t)rd(rec, f, 8);
	case FK_U8: return (int64_t)rd(rec, f, 1);
	case FK_U16: return (int64_t)rd(rec, f, 2);
	case FK_U32: return (int64_t)rd(rec, f, 4);
	case FK_POINTER: return (int64_t)rd(rec, f, f->size);
	default: return (int64_t)rd(rec, f, 8);
	}
}

int64_t field_from_u64(const struct tep_format_field *f, uint64_t u)
{
	switch (field_kind(f)) {
	case FK_INT_IN_LONG: case FK_S32: return (int32_t)u;
	case FK_S8: return (int8_t)u;
	case FK_S16: return (int16_t)u;
	default: return (int64_t)u;
	}
}

bool field_is_string(const struct tep_format_field *f)
{
	return field_kind(f) == FK_STRING;
}

/* A field's value; the caller made room for NUM_MAX + 2 bytes, which is
 * what every kind but strings and arrays takes. */
static char *put_value(struct outbuf *ob, char *p, enum out_mode mode, const struct ffmt *ff,
		       const struct tep_record *rec)
{
	const struct tep_format_field *fl = ff->f;

	switch (ff->kind) {
	case FK_STRING: {
		size_t len;
		const char *s = field_string(fl, rec->data, rec->size, &len);

		if (mode == OUT_JSON)
			return put_json(ob, p, s, len);
		return put_text(ob, p, s, len, false);
	}
	case FK_ARRAY: {
		unsigned esz = fl->elementsize ? fl->elementsize : 1;
		unsigned cnt = fl->arraylen ? fl->arraylen : fl->size / esz;

		*p++ = mode == OUT_JSON ? '[' : '{';
		for (unsigned i = 0; i < cnt && in_record(fl->offset, (int64_t)(i + 1) * esz, rec->size);
		     i++) {
			p = room(ob, p, NUM_MAX + 2);
			if (i)
				*p++ = ',';
			p = put_dec(p, tep_read_number(fl->event->tep,
						       (char *)rec->data + fl->offset + i * esz, esz));
		}
		*p++ = mode == OUT_JSON ? ']' : '}';
		return p;
	}
	case FK_BYTES: case FK_CPUMASK: {
		size_t n;
		const unsigned char *b = field_bytes(fl, rec->data, rec->size, &n);
		bool first = true;

		*p++ = mode == OUT_JSON ? '[' : '{';
		if (ff->kind == FK_BYTES) {
			for (size_t i = 0; b && i < n; i++) {
				p = room(ob, p, 6);
				if (i)
					*p++ = ',';
				p = put_dec(p, b[i]);
			}
		} else {
			/* The bits of little-endian longs, as the kernel
			 * stores a cpumask: CPU i is bit i. */
			for (size_t i = 0; b && i < n * 8; i++) {
				if (!(b[i / 8] & (1u << (i % 8))))
					continue;
				p = room(ob, p, NUM_MAX + 2);
				if (!first)
					*p++ = ',';
				p = put_dec(p, i);
				first = false;
			}
		}
		p = room(ob, p, 1);
		*p++ = mode == OUT_JSON ? ']' : '}';
		return p;
	}
	case FK_POINTER:
		/* An address survives JSON only as a string. */
		if (mode == OUT_JSON)
			*p++ = '"';
		p = put_hex(p, rd(rec, fl, fl->size));
		if (mode == OUT_JSON)
			*p++ = '"';
		return p;
	case FK_INT_IN_LONG: return put_sdec(p, (int32_t)rd(rec, fl, 8));
	case FK_S8: return put_sdec(p, (int8_t)rd(rec, fl, 1));
	case FK_S16: return put_sdec(p, (int16_t)rd(rec, fl, 2));
	case FK_S32: return put_sdec(p, (int32_t)rd(rec, fl, 4));
	case FK_S64: return put_sdec(p, (int64_t)rd(rec, fl, 8));
	case FK_U8: return put_dec(p, rd(rec, fl, 1));
	case FK_U16: return put_dec(p, rd(rec, fl, 2));
	case FK_U32: return put_dec(p, rd(rec, fl, 4));
	case FK_U64: return put_dec(p, rd(rec, fl, 8));
	}
	return p;
}

/* "secs.usecs" of the trace clock: 24 bytes at most (the seconds' copy
 * moves 24; the text is NUM_MAX + 7 at most). */
static inline char *put_ts(struct outbuf *ob, char *p, uint64_t ns)
{
	uint64_t us = ns / 1000, secs = us / 1000000;
	unsigned frac = (unsigned)(us % 1000000);

	if (secs != ob->secs) {
		char *e = put_dec(ob->secstext, secs);

		*e++ = '.';
		ob->secslen = (unsigned)(e - ob->secstext);
		ob->secs = secs;
	}
	memcpy(p, ob->secstext, sizeof(ob->secstext));
	p += ob->secslen;
	memcpy(p, digit_pairs + frac / 10000 * 2, 2);
	memcpy(p + 2, digit_pairs + frac / 100 % 100 * 2, 2);
	memcpy(p + 4, digit_pairs + frac % 100 * 2, 2);
	return p + 6;
}

/* Whether the line's task part is the one the last line wrote. */
static inline bool same_task(const struct outbuf *ob, enum out_mode mode, const char *comm,
			     int pid, int cpu)
{
	return ob->task.valid && ob->task.pid == pid && ob->task.cpu == cpu &&
	       ob->task.mode == (int)mode && !strncmp(ob->task.comm, comm, 16);
}

/* Keep the task part just written at [start, end) for the next line. */
static inline void keep_task(struct outbuf *ob, enum out_mode mode, const char *comm, int pid,
			     int cpu, const char *start, const char *end)
{
	ob->task.valid = (size_t)(end - start) <= sizeof(ob->task.text);
	if (!ob->task.valid)
		return;
	ob->task.pid = pid;
	ob->task.cpu = cpu;
	ob->task.mode = (int)mode;
	memset(ob->task.comm, 0, sizeof(ob->task.comm));
	memcpy(ob->task.comm, comm, strnlen(comm, sizeof(ob->task.comm)));
	ob->task.len = (unsigned)(end - start);
	memcpy(ob->task.text, start, ob->task.len);
}

void evfmt_print(struct outbuf *ob, enum out_mode mode, const struct evfmt *f,
		 const struct tep_record *rec, const char *comm, int pid)
{
	char *p = room(ob, ob->buf + ob->len, f->headmax), *start;
	bool same = same_task(ob, mode, comm, pid, rec->cpu);

	if (mode == OUT_JSON) {
		p = put_mem(p, "{\"ts\":", 6);
		p = put_ts(ob, p, rec->ts);
		if (same) {
			p = put_short(p, ob->task.text, ob->task.len);
		} else {
			start = p;
			p = put_mem(p, ",\"cpu\":", 7);
			p = put_dec(p, rec->cpu);
			p = put_mem(p, ",\"comm\":", 8);
			p = put_json(ob, p, comm, strnlen(comm, 16));
			p = put_mem(p, ",\"pid\":", 7);
			p = put_sdec(p, pid);
			keep_task(ob, mode, comm, pid, rec->cpu, start, p);
		}
		p = put_mem(p, ",\"event\":", 9);
		p = put_short(p, f->jname, f->jnamelen);
		p = put_mem(p, ",\"fields\":{", 11);
		for (int i = 0; i < f->nfields; i++) {
			const struct ffmt *ff = &f->fields[i];

			p = room(ob, p, 1 + sizeof(ff->jlabel) + NUM_MAX + 2);
			if (i)
				*p++ = ',';
			p = put_short(p, ff->jlabel, ff->jlen);
			p = put_value(ob, p, mode, ff, rec);
		}
		p = put_mem(room(ob, p, 3), "}}\n", 3);
	} else {
		/* trace-cmd report's shape: comm-pid [cpu] secs.usecs: event: fields */
		if (same) {
			p = put_short(p, ob->task.text, ob->task.len);
		} else {
			size_t n = strnlen(comm, 16), esc = 0;

			for (size_t i = 0; i < n; i++)
				esc += (unsigned char)comm[i] < 0x20 || comm[i] == 0x7f;
			start = p;
			if (esc) {
				/* (HEAD_MAX counts 6 bytes per comm byte) */
				for (size_t w = n + 3 * esc; w < 16; w++)
					*p++ = ' ';
				p = put_text(ob, p, comm, n, false);
			} else {
				memset(p, ' ', 16);
				memcpy(p + 16 - n, comm, n);
				p += 16;
			}
			*p++ = '-';
			p = put_sdec(p, pid);
			*p++ = ' ';
			*p++ = '[';
			if (rec->cpu < 100)
				*p++ = '0';
			if (rec->cpu < 10)
				*p++ = '0';
			p = put_dec(p, rec->cpu);
			*p++ = ']';
			*p++ = ' ';
			keep_task(ob, mode, comm, pid, rec->cpu, start, p);
		}
		p = put_ts(ob, p, rec->ts);
		*p++ = ':';
		*p++ = ' ';
		p = put_short(p, f->ename, f->enamelen);
		*p++ = ':';
		for (int i = 0; i < f->nfields; i++) {
			const struct ffmt *ff = &f->fields[i];

			p = room(ob, p, sizeof(ff->tlabel) + NUM_MAX + 2);
			p = put_short(p, ff->tlabel, ff->tlen);
			p = put_value(ob, p, mode, ff, rec);
		}
		p = room(ob, p, 1);
		*p++ = '\n';
	}
	ob->len = p - ob->buf;
}
