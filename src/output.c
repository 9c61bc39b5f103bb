// SPDX-License-Identifier: GPL-2.0-or-later
/* Output: see output.h.  Everything here is on the per-event path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "ftr.h"
#include "output.h"

void ob_init(struct outbuf *ob, int fd)
{
	ob->fd = fd;
	ob->err = 0;
	ob->len = 0;
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

void ob_u64(struct outbuf *ob, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24];
	int i = sizeof(tmp);

	/* Two digits per division: numbers are most of what ftr prints. */
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		tmp[--i] = pairs[d + 1];
		tmp[--i] = pairs[d];
	}
	if (v >= 10) {
		tmp[--i] = pairs[v * 2 + 1];
		tmp[--i] = pairs[v * 2];
	} else {
		tmp[--i] = (char)('0' + v);
	}
	ob_write(ob, tmp + i, sizeof(tmp) - i);
}

void ob_s64(struct outbuf *ob, int64_t v)
{
	if (v < 0) {
		ob_putc(ob, '-');
		ob_u64(ob, -(uint64_t)v);
	} else {
		ob_u64(ob, (uint64_t)v);
	}
}

void ob_hex(struct outbuf *ob, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	tmp[--i] = 'x';
	tmp[--i] = '0';
	ob_write(ob, tmp + i, sizeof(tmp) - i);
}

void ob_json_str(struct outbuf *ob, const char *s, size_t maxlen)
{
	char e[7];

	ob_putc(ob, '"');
	for (size_t i = 0; i < maxlen && s[i]; i++) {
		unsigned char c = s[i];

		/* The common case without a call: nothing to escape. */
		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			ob_putc(ob, (char)c);
		else
			ob_write(ob, e, json_escape(c, e));
	}
	ob_putc(ob, '"');
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

const char *field_string(const struct tep_format_field *f, const void *data, int size,
			 size_t *len)
{
	const char *p;
	unsigned off, n;

	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* __data_loc: 32 bits, offset in the low half, length in
		 * the high half; __rel_loc: offset from the end of the field. */
		uint32_t loc = (uint32_t)field_unsigned(f, data);

		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	} else {
		off = f->offset;
		n = f->size;
	}
	if ((int)(off + n) > size) {
		*len = 0;
		return "";
	}
	p = (const char *)data + off;
	*len = strnlen(p, n);
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

int evfmt_init(struct evfmt *f, struct tep_event *ev, char *const *only, int nonly)
{
	struct tep_format_field **all = tep_event_fields(ev);
	int n = 0;

	memset(f, 0, sizeof(*f));
	f->ev = ev;
	snprintf(f->name, sizeof(f->name), "%s:%s", ev->system, ev->name);
	snprintf(f->jname, sizeof(f->jname), "\"%s\"", f->name);
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
		ff->kind = field_kind(fl);
		snprintf(ff->label, sizeof(ff->label), " %s=", fl->name);
		ff->tlen = (unsigned char)strlen(ff->label);
		snprintf(ff->label + ff->tlen + 1, sizeof(ff->label) - ff->tlen - 1, "\"%s\":",
			 fl->name);
		ff->jlen = (unsigned char)strlen(ff->label + ff->tlen + 1);
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

	if (!f->pid)
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

	if ((int)(f->offset + sz) > rec->size)
		return 0;
	switch (sz) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

static void print_value(struct outbuf *ob, enum out_mode mode, const struct ffmt *ff,
			const struct tep_record *rec)
{
	const struct tep_format_field *fl = ff->f;

	switch (ff->kind) {
	case FK_STRING: {
		size_t len;
		const char *s = field_string(fl, rec->data, rec->size, &len);

		if (mode == OUT_JSON)
			ob_json_str(ob, s, len);
		else
			ob_write(ob, s, len);
		return;
	}
	case FK_ARRAY: {
		unsigned esz = fl->elementsize ? fl->elementsize : 1;
		unsigned cnt = fl->arraylen ? fl->arraylen : fl->size / esz;

		ob_putc(ob, mode == OUT_JSON ? '[' : '{');
		for (unsigned i = 0; i < cnt && (int)(fl->offset + (i + 1) * esz) <= rec->size; i++) {
			if (i)
				ob_putc(ob, ',');
			ob_u64(ob, tep_read_number(fl->event->tep,
						   (char *)rec->data + fl->offset + i * esz, esz));
		}
		ob_putc(ob, mode == OUT_JSON ? ']' : '}');
		return;
	}
	case FK_POINTER:
		/* An address survives JSON only as a string. */
		if (mode == OUT_JSON)
			ob_putc(ob, '"');
		ob_hex(ob, rd(rec, fl, fl->size));
		if (mode == OUT_JSON)
			ob_putc(ob, '"');
		return;
	case FK_INT_IN_LONG: ob_s64(ob, (int32_t)rd(rec, fl, 8)); return;
	case FK_S8: ob_s64(ob, (int8_t)rd(rec, fl, 1)); return;
	case FK_S16: ob_s64(ob, (int16_t)rd(rec, fl, 2)); return;
	case FK_S32: ob_s64(ob, (int32_t)rd(rec, fl, 4)); return;
	case FK_S64: ob_s64(ob, (int64_t)rd(rec, fl, 8)); return;
	case FK_U8: ob_u64(ob, rd(rec, fl, 1)); return;
	case FK_U16: ob_u64(ob, rd(rec, fl, 2)); return;
	case FK_U32: ob_u64(ob, rd(rec, fl, 4)); return;
	case FK_U64: ob_u64(ob, rd(rec, fl, 8)); return;
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

/* "secs.usecs" of the trace clock, without printf. */
static void put_ts(struct outbuf *ob, uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned frac = (unsigned)(us % 1000000);
	char d[7];

	ob_u64(ob, us / 1000000);
	d[0] = '.';
	for (int i = 6; i >= 1; i--) {
		d[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	ob_write(ob, d, 7);
}

void evfmt_print(struct outbuf *ob, enum out_mode mode, const struct evfmt *f,
		 const struct tep_record *rec, const char *comm, int pid)
{
	if (mode == OUT_JSON) {
		ob_write(ob, "{\"ts\":", 6);
		put_ts(ob, rec->ts);
		ob_write(ob, ",\"cpu\":", 7);
		ob_u64(ob, rec->cpu);
		ob_write(ob, ",\"comm\":", 8);
		ob_json_str(ob, comm, 16);
		ob_write(ob, ",\"pid\":", 7);
		ob_s64(ob, pid);
		ob_write(ob, ",\"event\":", 9);
		ob_puts(ob, f->jname);
		ob_write(ob, ",\"fields\":{", 11);
		for (int i = 0; i < f->nfields; i++) {
			if (i)
				ob_putc(ob, ',');
			ob_write(ob, f->fields[i].label + f->fields[i].tlen + 1, f->fields[i].jlen);
			print_value(ob, mode, &f->fields[i], rec);
		}
		ob_write(ob, "}}\n", 3);
		return;
	}
	/* trace-cmd report's shape: comm-pid [cpu] secs.usecs: event: fields */
	size_t n = strnlen(comm, 16);

	for (size_t i = n; i < 16; i++)
		ob_putc(ob, ' ');
	ob_write(ob, comm, n);
	ob_putc(ob, '-');
	ob_s64(ob, pid);
	ob_write(ob, " [", 2);
	if (rec->cpu < 100)
		ob_putc(ob, '0');
	if (rec->cpu < 10)
		ob_putc(ob, '0');
	ob_u64(ob, rec->cpu);
	ob_write(ob, "] ", 2);
	put_ts(ob, rec->ts);
	ob_write(ob, ": ", 2);
	ob_puts(ob, f->ev->name);
	ob_putc(ob, ':');
	for (int i = 0; i < f->nfields; i++) {
		ob_write(ob, f->fields[i].label, f->fields[i].tlen);
		print_value(ob, mode, &f->fields[i], rec);
	}
	ob_putc(ob, '\n');
}
