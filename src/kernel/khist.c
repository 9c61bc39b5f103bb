// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hist triggers: build the trigger text, parse the `hist` file.  See
 * khist.h for the formats; the renderings quoted in comments here were seen
 * on 6.1 and 6.12 (tests/fixtures/hist).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/khist.h"

/* ---- building --------------------------------------------------------------- */

/* Field names, modifiers and sort keys: what the kernel's field syntax uses.
 * ':' ',' ' ' and '!' separate parts of the trigger and may not appear. */
static bool field_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '=' || c == '-' || c == '$'))
			return false;
	}
	return true;
}

static bool name_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

uint32_t khist_size_round(uint32_t size)
{
	uint32_t r = 1;

	if (!size || size > KHIST_MAX_SIZE)
		return 0;
	while (r < size)
		r <<= 1;
	/* the kernel refuses fewer than 2^7 buckets rather than raising it */
	return r < KHIST_MIN_SIZE ? 0 : r;
}

struct sbuf {
	char *p;
	size_t len, off;
	bool over;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p + b->off, b->len - b->off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= b->len - b->off)
		b->over = true;
	else
		b->off += n;
}

static int list_ok(const char *const *v, int n, int max)
{
	if (n < 0 || n > max)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		if (!field_ok(v[i]))
			return -EINVAL;
	return 0;
}

int khist_build(const struct khist_spec *s, struct khist_cmd *out)
{
	struct sbuf b;
	const char *filter = NULL;

	if (!s || !out || s->nkeys < 1 || list_ok(s->keys, s->nkeys, KHIST_MAX_KEYS) ||
	    list_ok(s->vals, s->nvals, KHIST_MAX_VALS) || list_ok(s->sort, s->nsort, KHIST_MAX_SORT))
		return -EINVAL;
	/* exactly the size asked, or the two paths would drop differently */
	if (s->size && khist_size_round(s->size) != s->size)
		return -EINVAL;
	if (s->name && !name_ok(s->name))
		return -EINVAL;
	if (s->filter) {
		filter = s->filter;
		while (*filter == ' ' || *filter == '\t')
			filter++;
		if (strpbrk(filter, "\n\r"))
			return -EINVAL;
		if (!*filter)
			filter = NULL;
	}
	/* libtracefs' layout (add_hist_commands), which the kernel prints back
	 * in its own order in "# trigger info:" */
	b = (struct sbuf){ out->add, sizeof(out->add), 0, false };
	sb_add(&b, "hist:keys=");
	for (int i = 0; i < s->nkeys; i++)
		sb_add(&b, "%s%s", i ? "," : "", s->keys[i]);
	if (s->nvals) {
		sb_add(&b, ":vals=");
		for (int i = 0; i < s->nvals; i++)
			sb_add(&b, "%s%s", i ? "," : "", s->vals[i]);
	}
	if (s->nsort) {
		sb_add(&b, ":sort=");
		for (int i = 0; i < s->nsort; i++)
			sb_add(&b, "%s%s", i ? "," : "", s->sort[i]);
	}
	if (s->size)
		sb_add(&b, ":size=%u", s->size);
	if (s->pause)
		sb_add(&b, ":pause");
	if (s->name)
		sb_add(&b, ":name=%s", s->name);
	if (filter)
		sb_add(&b, " if %s", filter);
	if (b.over) {
		out->add[0] = out->remove[0] = '\0';
		return -ENOSPC;
	}
	snprintf(out->remove, sizeof(out->remove), "!%s", out->add);
	return 0;
}

int khist_cmd(const char *spec, enum khist_op op, char *buf, size_t len)
{
	static const char *const ops[] = { ":pause", ":cont", ":clear" };
	const char *filter, *p;
	struct sbuf b = { buf, len, 0, false };

	if (!spec || !buf || !len || strncmp(spec, "hist:", 5) || (unsigned)op > KHIST_REMOVE)
		return -EINVAL;
	if (op == KHIST_REMOVE) {
		sb_add(&b, "!%s", spec);
		return b.over ? -ENOSPC : 0;
	}
	/* the attributes end at the filter; the spec itself has no spaces */
	filter = strstr(spec, " if ");
	if (!filter)
		filter = spec + strlen(spec);
	/* copy the attributes, dropping any pause/cont/clear already there
	 * (":pause:cont" would leave the trigger paused) */
	p = spec;
	while (p < filter) {
		const char *e = memchr(p + 1, ':', filter - p - 1);
		size_t n;

		if (!e)
			e = filter;
		n = e - p;
		if (!((n == 6 && !strncmp(p, ":pause", 6)) || (n == 5 && !strncmp(p, ":cont", 5)) ||
		      (n == 9 && !strncmp(p, ":continue", 9)) || (n == 6 && !strncmp(p, ":clear", 6))))
			sb_add(&b, "%.*s", (int)n, p);
		p = e;
	}
	sb_add(&b, "%s%s", ops[op], filter);
	return b.over ? -ENOSPC : 0;
}

/* ---- parsing ---------------------------------------------------------------- */

struct parser {
	char *text;			/* the copy */
	char *cur;			/* next unread line */
	char *end;
	int lineno;			/* of the line last returned */
	struct khist_err *err;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->err) {
		ps->err->line = ps->lineno;
		va_start(ap, fmt);
		vsnprintf(ps->err->msg, sizeof(ps->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The next line, NUL-terminated in place; NULL at the end. */
static char *next_line(struct parser *ps)
{
	char *l = ps->cur, *nl;

	if (l >= ps->end)
		return NULL;
	nl = memchr(l, '\n', ps->end - l);
	if (nl) {
		*nl = '\0';
		ps->cur = nl + 1;
	} else {
		ps->cur = ps->end;
	}
	ps->lineno++;
	return l;
}

static char *peek_line(struct parser *ps)
{
	return ps->cur < ps->end ? ps->cur : NULL;
}

static bool blank(const char *l)
{
	for (; *l; l++)
		if (*l != ' ' && *l != '\t')
			return false;
	return true;
}

static void rstrip(char *s, char *e)
{
	while (e > s && e[-1] == ' ')
		*--e = '\0';
	*e = '\0';
}

/* A decimal or hex number in [p, e) with blanks around it. */
static int number(struct parser *ps, const char *p, const char *e, int base, uint64_t *v,
		  const char *what)
{
	uint64_t r = 0;
	bool any = false;

	while (p < e && *p == ' ')
		p++;
	for (; p < e; p++) {
		int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (r > (UINT64_MAX - d) / base)
			return fail(ps, "%s: number does not fit 64 bits", what);
		r = r * base + d;
		any = true;
	}
	while (p < e && *p == ' ')
		p++;
	if (!any || p != e)
		return fail(ps, "%s: not a number", what);
	*v = r;
	return 0;
}

/* "name" and "mod" of "name.mod" ("count.buckets=1024" -> count, buckets=1024). */
static void split_field(const char *s, size_t n, struct khist_field *f)
{
	const char *dot = memchr(s, '.', n);
	size_t nl = dot ? (size_t)(dot - s) : n;

	snprintf(f->name, sizeof(f->name), "%.*s", (int)nl, s);
	if (dot)
		snprintf(f->mod, sizeof(f->mod), "%.*s", (int)(n - nl - 1), dot + 1);
	else
		f->mod[0] = '\0';
}

static int split_list(struct parser *ps, const char *p, const char *e, struct khist_field *v,
		      int max, int *n, const char *what)
{
	*n = 0;
	while (p < e) {
		const char *c = memchr(p, ',', e - p);

		if (!c)
			c = e;
		if (c == p)
			return fail(ps, "trigger info: empty %s", what);
		if (*n == max)
			return fail(ps, "trigger info: more than %d %s", max, what);
		split_field(p, c - p, &v[(*n)++]);
		p = c < e ? c + 1 : e;
	}
	return 0;
}

static bool is_stack(const struct khist_field *f)
{
	return !strcmp(f->name, "stacktrace") || !strcmp(f->name, "common_stacktrace");
}

static enum khist_fmt key_fmt(const struct khist_field *f)
{
	if (is_stack(f))
		return KHIST_STACK;
	if (!strcmp(f->mod, "hex"))
		return KHIST_HEX;
	if (!strcmp(f->mod, "sym"))
		return KHIST_SYM;
	if (!strcmp(f->mod, "sym-offset"))
		return KHIST_SYM_OFFSET;
	if (!strcmp(f->mod, "execname"))
		return KHIST_EXECNAME;
	if (!strcmp(f->mod, "syscall"))
		return KHIST_SYSCALL;
	if (!strcmp(f->mod, "log2"))
		return KHIST_LOG2;
	if (!strncmp(f->mod, "buckets", 7))
		return KHIST_BUCKETS;
	return KHIST_NUM;		/* or a string: decided by what is printed */
}

/* "# trigger info: hist:keys=...:vals=... [active]" */
static int trigger_info(struct parser *ps, char *l, struct khist_table *t)
{
	char *spec = l + strlen("# trigger info: ");
	char *state = strrchr(spec, '[');
	char *filter, *p, *e;
	struct khist_field vals[KHIST_MAX_VALS + 1];
	int nvals = 0;
	bool nohitcount = false, have_keys = false;

	if (!state || strncmp(spec, "hist:", 5))
		return fail(ps, "trigger info: not a hist trigger");
	if (!strcmp(state, "[paused]"))
		t->paused = true;
	else if (strcmp(state, "[active]"))
		return fail(ps, "trigger info: unknown state '%s'", state);
	rstrip(spec, state);
	if (strlen(spec) >= sizeof(t->trigger))
		return fail(ps, "trigger info: too long");
	strcpy(t->trigger, spec);
	filter = strstr(spec, " if ");
	e = filter ? filter : spec + strlen(spec);
	for (p = spec + 5; p < e;) {
		char *c = memchr(p, ':', e - p);

		if (!c)
			c = e;
		if (!strncmp(p, "keys=", 5) || !strncmp(p, "key=", 4)) {
			char *v = memchr(p, '=', c - p) + 1;

			if (split_list(ps, v, c, t->keys, KHIST_MAX_KEYS, &t->nkeys, "keys"))
				return -EINVAL;
			have_keys = true;
		} else if (!strncmp(p, "vals=", 5) || !strncmp(p, "values=", 7) || !strncmp(p, "val=", 4)) {
			char *v = memchr(p, '=', c - p) + 1;

			if (split_list(ps, v, c, vals, KHIST_MAX_VALS + 1, &nvals, "values"))
				return -EINVAL;
		} else if ((c - p == 10 && !strncmp(p, "nohitcount", 10)) || (c - p == 4 && !strncmp(p, "NOHC", 4))) {
			nohitcount = true;
		}
		p = c < e ? c + 1 : e;
	}
	if (!have_keys || !t->nkeys)
		return fail(ps, "trigger info: no keys");
	t->has_hitcount = !nohitcount;
	/* hitcount is always the first value printed in "vals=", and printed
	 * on each entry as "hitcount:", unless :nohitcount */
	{
		int first = 0;

		if (t->has_hitcount) {
			if (!nvals || strcmp(vals[0].name, "hitcount") || vals[0].mod[0])
				return fail(ps, "trigger info: vals do not start with hitcount");
			first = 1;
		}
		if (nvals - first > KHIST_MAX_VALS)
			return fail(ps, "trigger info: more than %d values", KHIST_MAX_VALS);
		t->nvals = nvals - first;
		memcpy(t->vals, vals + first, t->nvals * sizeof(*vals));
	}
	return 0;
}

/* In [p, e): the position of "[ digits]" whose ']' ends the window after
 * blanks, for .execname ("%-16s[%10llu]") and .syscall ("%-30s[%3llu]"). */
static char *bracket_num(char *p, char *e)
{
	char *q = e;

	while (q > p && q[-1] == ' ')
		q--;
	if (q == p || q[-1] != ']')
		return NULL;
	for (char *b = q - 2; b >= p; b--) {
		if (*b == '[')
			return b;
		if (*b != ' ' && (*b < '0' || *b > '9'))
			return NULL;
	}
	return NULL;
}

static bool all_digits(const char *p, const char *e)
{
	if (p == e)
		return false;
	for (; p < e; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* One key's printed value in [p, e) (not NUL-terminated yet). */
static int key_value(struct parser *ps, const struct khist_field *f, char *p, char *e,
		     struct khist_kv *kv)
{
	char *b, *q;

	kv->fmt = key_fmt(f);
	switch (kv->fmt) {
	case KHIST_EXECNAME:
	case KHIST_SYSCALL:
		b = bracket_num(p, e);
		if (!b)
			return fail(ps, "key '%s': no [number] after the name", f->name);
		q = strchr(b, ']');
		if (number(ps, b + 1, q, 10, &kv->u, f->name))
			return -EINVAL;
		rstrip(p, b);
		kv->s = p;
		return 0;
	case KHIST_SYM:
	case KHIST_SYM_OFFSET:
		/* "[ffffffff9fb7b73a] single_open+0x2a/0xa0" */
		if (*p != '[' || !(q = memchr(p, ']', e - p)))
			return fail(ps, "key '%s': no [address]", f->name);
		if (number(ps, p + 1, q, 16, &kv->u, f->name))
			return -EINVAL;
		q++;
		while (q < e && *q == ' ')
			q++;
		rstrip(q, e);
		kv->s = q;
		return 0;
	case KHIST_LOG2:
		/* "~ 2^12" */
		if (e - p < 4 || strncmp(p, "~ 2^", 4))
			return fail(ps, "key '%s': not '~ 2^N'", f->name);
		if (number(ps, p + 4, e, 10, &kv->u, f->name))
			return -EINVAL;
		if (kv->u > 64)
			return fail(ps, "key '%s': 2^%llu", f->name, (unsigned long long)kv->u);
		return 0;
	case KHIST_BUCKETS:
		/* "~ 4096-5119" */
		if (e - p < 2 || strncmp(p, "~ ", 2) || !(q = memchr(p + 2, '-', e - p - 2)))
			return fail(ps, "key '%s': not '~ lo-hi'", f->name);
		if (number(ps, p + 2, q, 10, &kv->u, f->name) ||
		    number(ps, q + 1, e, 10, &kv->hi, f->name))
			return -EINVAL;
		if (kv->hi < kv->u)
			return fail(ps, "key '%s': bucket %llu-%llu", f->name,
				    (unsigned long long)kv->u, (unsigned long long)kv->hi);
		return 0;
	case KHIST_HEX:
		return number(ps, p, e, 16, &kv->u, f->name);
	case KHIST_NUM:
	default:
		/* Numbers print "%10llu", right-aligned; strings "%-50s".  A
		 * value with a trailing blank or a non-digit is a string. */
		q = p;
		while (q < e && *q == ' ')
			q++;
		if (e > q && e[-1] != ' ' && all_digits(q, e))
			return number(ps, q, e, 10, &kv->u, f->name);
		kv->fmt = KHIST_STRING;
		rstrip(p, e);
		kv->s = p;
		return 0;
	}
}

/* Frames of a stack key: lines indented by blanks, up to a line that is not. */
static int stack_frames(struct parser *ps, struct khist_kv *kv)
{
	size_t cap = 0;

	kv->fmt = KHIST_STACK;
	for (;;) {
		char *l = peek_line(ps), *f;

		if (!l || *l != ' ')
			break;
		l = next_line(ps);
		f = l;
		while (*f == ' ')
			f++;
		if (!*f)
			return fail(ps, "stack: empty frame");
		rstrip(f, f + strlen(f));
		if ((size_t)kv->nframes == cap) {
			size_t nc = cap ? cap * 2 : 16;
			const char **nf = realloc(kv->frames, nc * sizeof(*nf));

			if (!nf)
				return -ENOMEM;
			kv->frames = nf;
			cap = nc;
		}
		kv->frames[kv->nframes++] = f;
	}
	if (!kv->nframes)
		return fail(ps, "stack: no frames");
	return 0;
}

/* Values after the closing brace: " hitcount:          1  count:         83". */
static int entry_values(struct parser *ps, const struct khist_table *t, char *p,
			struct khist_entry *en)
{
	char *e = p + strlen(p);

	for (int i = -1; i < t->nvals; i++) {
		const struct khist_field *f = NULL;
		const char *name = "hitcount";
		size_t nl;
		char *v, *ve;

		if (i < 0 && !t->has_hitcount)
			continue;
		if (i >= 0) {
			f = &t->vals[i];
			name = f->name;
		}
		while (*p == ' ')
			p++;
		nl = strlen(name);
		if (strncmp(p, name, nl))
			return fail(ps, "entry: '%s' expected", name);
		p += nl;
		if (f && !strcmp(f->mod, "percent")) {
			/* "hitcount (%):   0.09" -> 9 (hundredths) */
			uint64_t whole, frac = 0;
			char *dot;

			if (strncmp(p, " (%):", 5))
				return fail(ps, "entry: '%s (%%):' expected", name);
			v = p + 5;
			while (*v == ' ')
				v++;
			ve = v;
			while ((*ve >= '0' && *ve <= '9') || *ve == '.')
				ve++;
			dot = memchr(v, '.', ve - v);
			if (number(ps, v, dot ? dot : ve, 10, &whole, name))
				return -EINVAL;
			if (dot && ve - dot - 1 > 0) {
				if (ve - dot - 1 > 2 || number(ps, dot + 1, ve, 10, &frac, name))
					return fail(ps, "entry: '%s': bad percentage", name);
				if (ve - dot - 1 == 1)
					frac *= 10;
			}
			if (whole > UINT64_MAX / 100)
				return fail(ps, "entry: '%s': bad percentage", name);
			en->vals[i] = whole * 100 + frac;
			p = ve;
			continue;
		}
		if (*p != ':')
			return fail(ps, "entry: '%s:' expected", name);
		v = ++p;
		if (f && !strcmp(f->mod, "graph")) {
			/* a bar of '#', padded: its length */
			uint64_t n = 0;

			while (*p == ' ')
				p++;
			while (*p == '#')
				p++, n++;
			en->vals[i] = n;
			continue;
		}
		while (*p == ' ')
			p++;
		ve = p;
		while ((*ve >= '0' && *ve <= '9') || (*ve >= 'a' && *ve <= 'f') || (*ve >= 'A' && *ve <= 'F'))
			ve++;
		if (number(ps, v, ve, f && !strcmp(f->mod, "hex") ? 16 : 10,
			   i < 0 ? &en->hitcount : &en->vals[i], name))
			return -EINVAL;
		p = ve;
	}
	while (p < e && *p == ' ')
		p++;
	if (p != e)
		return fail(ps, "entry: unexpected text after the values");
	return 0;
}

/* One entry, from its "{ " line (already read) to its values. */
static int entry(struct parser *ps, const struct khist_table *t, char *l, struct khist_entry *en)
{
	char *p = l + 2;

	for (int i = 0; i < t->nkeys; i++) {
		const struct khist_field *f = &t->keys[i];
		size_t nl = strlen(f->name);
		char *close, *end;

		if (i) {
			if (strncmp(p, ", ", 2))
				return fail(ps, "entry: ', %s:' expected", f->name);
			p += 2;
		}
		if (strncmp(p, f->name, nl) || p[nl] != ':')
			return fail(ps, "entry: key '%s' expected", f->name);
		p += nl + 1;
		if (is_stack(f)) {
			int err;

			if (*p)
				return fail(ps, "entry: stack key '%s' not on lines of its own", f->name);
			err = stack_frames(ps, &en->keys[i]);
			if (err)
				return err;
			/* the line after the frames goes on with ", next: ..."
			 * or closes the entry with "} hitcount: ..." */
			p = next_line(ps);
			if (!p)
				return fail(ps, "entry: truncated after a stack");
			if (i == t->nkeys - 1) {
				if (*p != '}')
					return fail(ps, "entry: '}' expected after the stack");
				break;
			}
			continue;
		}
		if (*p != ' ')
			return fail(ps, "entry: blank expected after '%s:'", f->name);
		p++;
		/* Keys end at the last '}' on the line: what follows (values)
		 * never holds one, while a comm or a string might.  A line
		 * that goes on with a stack key has none. */
		close = strrchr(p, '}');
		if (i < t->nkeys - 1) {
			/* ", next:"; a .execname comm is 16 columns wide (a
			 * comm has at most 15 bytes): look after it */
			char pat[80], orig;
			char *from = p;

			if (!close)
				close = p + strlen(p);
			snprintf(pat, sizeof(pat), ", %s:", t->keys[i + 1].name);
			if (key_fmt(f) == KHIST_EXECNAME && close - p > 16 && p[16] == '[')
				from = p + 16;
			orig = *close;
			*close = '\0';
			end = strstr(from, pat);
			*close = orig;
			if (!end)
				return fail(ps, "entry: ', %s:' expected", t->keys[i + 1].name);
		} else {
			if (!close)
				return fail(ps, "entry: no closing '}'");
			end = close;
			if (end == p || end[-1] != ' ')
				return fail(ps, "entry: ' }' expected");
		}
		{
			char saved = *end;
			int err;

			/* key_value NUL-terminates its text at or before its
			 * end; keep the delimiter to go on from.  The last key
			 * leaves out the blank the kernel puts before '}'. */
			err = key_value(ps, f, p, i == t->nkeys - 1 ? end - 1 : end, &en->keys[i]);
			*end = saved;
			if (err)
				return err;
		}
		p = end;
	}
	if (*p != '}')
		return fail(ps, "entry: '}' expected");
	return entry_values(ps, t, p + 1, en);
}

static void table_free(struct khist_table *t)
{
	for (size_t i = 0; i < t->nentries; i++)
		for (int k = 0; k < KHIST_MAX_KEYS; k++)
			free(t->entries[i].keys[k].frames);
	free(t->entries);
	t->entries = NULL;
	t->nentries = 0;
}

static int totals_line(struct parser *ps, const char *name, uint64_t *v)
{
	char *l = next_line(ps);
	size_t n = strlen(name);

	if (!l)
		return fail(ps, "truncated: no '%s' in Totals", name);
	if (strncmp(l, "    ", 4) || strncmp(l + 4, name, n) || strncmp(l + 4 + n, ": ", 2))
		return fail(ps, "Totals: '%s:' expected", name);
	return number(ps, l + 6 + n, l + strlen(l), 10, v, name);
}

static int table(struct parser *ps, struct khist_table *t)
{
	char *l;
	size_t cap = 0;
	int err;
	bool info = false;
	uint64_t hits = 0;

	/* "#", "# trigger info: ...", "#" */
	while ((l = peek_line(ps)) && *l == '#') {
		l = next_line(ps);
		if (!strncmp(l, "# trigger info: ", 16)) {
			if (info)
				return fail(ps, "two trigger info lines");
			err = trigger_info(ps, l, t);
			if (err)
				return err;
			info = true;
		} else if (strcmp(l, "#")) {
			return fail(ps, "unexpected comment line");
		}
	}
	if (!info)
		return fail(ps, "no '# trigger info:' line");
	for (;;) {
		l = next_line(ps);
		if (!l)
			return fail(ps, "truncated: no Totals");
		if (blank(l))
			continue;
		if (!strcmp(l, "Totals:"))
			break;
		if (strncmp(l, "{ ", 2))
			return fail(ps, "unexpected line in a histogram");
		if (t->nentries == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct khist_entry *ne = realloc(t->entries, nc * sizeof(*ne));

			if (!ne)
				return -ENOMEM;
			t->entries = ne;
			cap = nc;
		}
		memset(&t->entries[t->nentries], 0, sizeof(t->entries[0]));
		t->nentries++;
		err = entry(ps, t, l, &t->entries[t->nentries - 1]);
		if (err)
			return err;
		hits += t->entries[t->nentries - 1].hitcount;
	}
	if ((err = totals_line(ps, "Hits", &t->hits)) ||
	    (err = totals_line(ps, "Entries", &t->total_entries)) ||
	    (err = totals_line(ps, "Dropped", &t->dropped)))
		return err;
	t->consistent = t->total_entries == t->nentries && (!t->has_hitcount || hits == t->hits);
	return 0;
}

int khist_parse(const char *text, size_t len, struct khist_file *out, struct khist_err *err)
{
	struct parser ps = { .err = err };
	size_t cap = 0;
	char *l;
	int ret = 0;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!text)
		return fail(&ps, "no text");
	if (memchr(text, '\0', len))
		return fail(&ps, "a NUL byte in the text");
	ps.text = malloc(len + 1);
	if (!ps.text)
		return -ENOMEM;
	memcpy(ps.text, text, len);
	ps.text[len] = '\0';
	ps.cur = ps.text;
	ps.end = ps.text + len;
	out->text = ps.text;
	while ((l = next_line(&ps))) {
		struct khist_table *t;

		if (blank(l))
			continue;
		if (strcmp(l, "# event histogram")) {
			ret = fail(&ps, "not a hist file: '# event histogram' expected");
			break;
		}
		if (out->ntables == (int)cap) {
			size_t nc = cap ? cap * 2 : 2;
			struct khist_table *nt = realloc(out->tables, nc * sizeof(*nt));

			if (!nt) {
				ret = -ENOMEM;
				break;
			}
			out->tables = nt;
			cap = nc;
		}
		t = &out->tables[out->ntables++];
		memset(t, 0, sizeof(*t));
		ret = table(&ps, t);
		if (ret)
			break;
	}
	if (ret)
		khist_file_free(out);
	return ret;
}

void khist_file_free(struct khist_file *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->ntables; i++)
		table_free(&f->tables[i]);
	free(f->tables);
	free(f->text);
	memset(f, 0, sizeof(*f));
}

int khist_frame_split(const char *frame, char *func, size_t len, uint64_t *off, uint64_t *size)
{
	const char *plus, *slash, *end;
	char *e;

	if (!frame || !func || !len)
		return -EINVAL;
	*off = *size = 0;
	if (!strncmp(frame, "0x", 2)) {
		/* no symbol: %pS printed the address */
		errno = 0;
		*off = strtoull(frame + 2, &e, 16);
		if (errno || e == frame + 2 || (*e && *e != ' '))
			return -EINVAL;
		func[0] = '\0';
		return 0;
	}
	end = strchr(frame, ' ');		/* " [module]" */
	if (!end)
		end = frame + strlen(frame);
	plus = memchr(frame, '+', end - frame);
	if (!plus || plus == frame || (size_t)(plus - frame) >= len)
		return -EINVAL;
	slash = memchr(plus, '/', end - plus);
	if (!slash || strncmp(plus + 1, "0x", 2) || strncmp(slash + 1, "0x", 2))
		return -EINVAL;
	errno = 0;
	*off = strtoull(plus + 3, &e, 16);
	if (errno || e != slash || e == plus + 3)
		return -EINVAL;
	*size = strtoull(slash + 3, &e, 16);
	if (errno || e != end || e == slash + 3)
		return -EINVAL;
	memcpy(func, frame, plus - frame);
	func[plus - frame] = '\0';
	return 0;
}

int khist_sym_text(const struct khist_kv *kv, char *buf, size_t len)
{
	char func[256];
	const char *mod;
	uint64_t off, size;

	if (!kv || !kv->s || !buf || (kv->fmt != KHIST_SYM && kv->fmt != KHIST_SYM_OFFSET))
		return -EINVAL;
	/* sprint_symbol's "0x%lx" for an address without a symbol */
	if (kv->fmt == KHIST_SYM || !strncmp(kv->s, "0x", 2))
		return snprintf(buf, len, "%s", kv->s);
	if (khist_frame_split(kv->s, func, sizeof(func), &off, &size) < 0)
		return -EINVAL;
	mod = strchr(kv->s, ' ');
	return snprintf(buf, len, "%s+0x%llx%s", func, (unsigned long long)off, mod ? mod : "");
}
