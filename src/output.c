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
		if (n > sizeof(ob->buf)) {
			n = sizeof(ob->buf);	/* one field cannot be this long */
		}
	}
	memcpy(ob->buf + ob->len, s, n);
	ob->len += n;
}

void ob_puts(struct outbuf *ob, const char *s)
{
	ob_write(ob, s, strlen(s));
}

void ob_putc(struct outbuf *ob, char c)
{
	if (ob->len + 1 > sizeof(ob->buf))
		ob_flush(ob);
	ob->buf[ob->len++] = c;
}

void ob_u64(struct outbuf *ob, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
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
	static const char hex[] = "0123456789abcdef";

	ob_putc(ob, '"');
	for (size_t i = 0; i < maxlen && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			ob_putc(ob, '\\');
			ob_putc(ob, c);
		} else if (c == '\n') {
			ob_write(ob, "\\n", 2);
		} else if (c == '\t') {
			ob_write(ob, "\\t", 2);
		} else if (c < 0x20 || c == 0x7f) {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			ob_write(ob, u, 6);
		} else {
			ob_putc(ob, c);
		}
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

int evfmt_init(struct evfmt *f, struct tep_event *ev, char *const *only, int nonly)
{
	struct tep_format_field **common = tep_event_common_fields(ev);
	struct tep_format_field **all = tep_event_fields(ev);
	int n = 0;

	memset(f, 0, sizeof(*f));
	f->ev = ev;
	snprintf(f->name, sizeof(f->name), "%s:%s", ev->system, ev->name);
	f->pid = tep_find_common_field(ev, "common_pid");
	for (int i = 0; all && all[i]; i++)
		n++;
	f->fields = calloc(n + 1, sizeof(*f->fields));
	if (!f->fields) {
		free(all);
		free(common);
		return -ENOMEM;
	}
	if (!only) {
		for (int i = 0; i < n; i++)
			f->fields[f->nfields++] = all[i];
	} else {
		/* In the order the user gave them. */
		for (int j = 0; j < nonly; j++) {
			struct tep_format_field *fl = tep_find_any_field(ev, only[j]);

			if (fl)
				f->fields[f->nfields++] = fl;
		}
	}
	free(all);
	free(common);
	return 0;
}

void evfmt_free(struct evfmt *f)
{
	free(f->fields);
	f->fields = NULL;
}

int evfmt_pid(const struct evfmt *f, const struct tep_record *rec)
{
	return f->pid ? (int)field_signed(f->pid, rec->data) : -1;
}

static bool is_int_type(const char *t)
{
	return !strcmp(t, "int") || !strcmp(t, "pid_t") || !strcmp(t, "int32_t") ||
	       !strcmp(t, "s32") || !strcmp(t, "const int");
}

static void print_value(struct outbuf *ob, enum out_mode mode, const struct tep_format_field *fl,
			const struct tep_record *rec)
{
	if (fl->flags & TEP_FIELD_IS_STRING) {
		size_t len;
		const char *s = field_string(fl, rec->data, rec->size, &len);

		if (mode == OUT_JSON)
			ob_json_str(ob, s, len);
		else
			ob_write(ob, s, len);
		return;
	}
	if (fl->flags & TEP_FIELD_IS_ARRAY) {
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
	if (fl->flags & TEP_FIELD_IS_POINTER) {
		/* Addresses read as hex; in JSON as a string, since a 64-bit
		 * address does not survive a double. */
		if (mode == OUT_JSON)
			ob_putc(ob, '"');
		ob_hex(ob, field_unsigned(fl, rec->data));
		if (mode == OUT_JSON)
			ob_putc(ob, '"');
		return;
	}
	/* Syscall tracepoints store every argument in 8 unsigned bytes, whatever
	 * its C type: print an int as the int it is (dfd=-100, not 4294967196). */
	if (fl->size == 8 && !(fl->flags & TEP_FIELD_IS_SIGNED) && is_int_type(fl->type)) {
		ob_s64(ob, (int32_t)field_unsigned(fl, rec->data));
		return;
	}
	if (fl->flags & TEP_FIELD_IS_SIGNED)
		ob_s64(ob, field_signed(fl, rec->data));
	else
		ob_u64(ob, field_unsigned(fl, rec->data));
}

static void pad_left(struct outbuf *ob, const char *s, size_t width)
{
	size_t n = strlen(s);

	while (n < width--)
		ob_putc(ob, ' ');
	ob_puts(ob, s);
}

void evfmt_print(struct outbuf *ob, enum out_mode mode, const struct evfmt *f,
		 const struct tep_record *rec, const char *comm, int pid)
{
	uint64_t us = rec->ts / 1000;
	char frac[8];

	snprintf(frac, sizeof(frac), ".%06u", (unsigned)(us % 1000000));
	if (mode == OUT_JSON) {
		ob_puts(ob, "{\"ts\":");
		ob_u64(ob, us / 1000000);
		ob_puts(ob, frac);
		ob_puts(ob, ",\"cpu\":");
		ob_u64(ob, rec->cpu);
		ob_puts(ob, ",\"comm\":");
		ob_json_str(ob, comm, 16);
		ob_puts(ob, ",\"pid\":");
		ob_s64(ob, pid);
		ob_puts(ob, ",\"event\":");
		ob_json_str(ob, f->name, sizeof(f->name));
		ob_puts(ob, ",\"fields\":{");
		for (int i = 0; i < f->nfields; i++) {
			if (i)
				ob_putc(ob, ',');
			ob_json_str(ob, f->fields[i]->name, 256);
			ob_putc(ob, ':');
			print_value(ob, mode, f->fields[i], rec);
		}
		ob_puts(ob, "}}\n");
		return;
	}
	/* trace-cmd report's shape: comm-pid [cpu] secs.usecs: event: fields */
	pad_left(ob, comm, 16);
	ob_putc(ob, '-');
	ob_s64(ob, pid);
	ob_puts(ob, " [");
	if (rec->cpu < 100)
		ob_putc(ob, '0');
	if (rec->cpu < 10)
		ob_putc(ob, '0');
	ob_u64(ob, rec->cpu);
	ob_puts(ob, "] ");
	ob_u64(ob, us / 1000000);
	ob_puts(ob, frac);
	ob_puts(ob, ": ");
	ob_puts(ob, f->ev->name);
	ob_putc(ob, ':');
	for (int i = 0; i < f->nfields; i++) {
		ob_putc(ob, ' ');
		ob_puts(ob, f->fields[i]->name);
		ob_putc(ob, '=');
		print_value(ob, mode, f->fields[i], rec);
	}
	ob_putc(ob, '\n');
}
