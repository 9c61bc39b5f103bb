// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The builtin functions that act rather than give a value: printf, print,
 * cat, system, time, exit, clear, zero, delete and errorf, with their checks
 * (the semantic pass) beside what they do at an event.  Their rows are in
 * builtins.c's table, which names them through builtins-int.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>

#include <tracefs.h>

#include "ftr.h"
#include "kernel/flagnames.h"
#include "lang/interp-int.h"
#include "lang/run/builtins-int.h"

/* ---- checks ------------------------------------------------------------------ */

/* printf's %gr (bpftrace's): GFP flags as this kernel names them, from
 * kmem:kmalloc's print format (flagnames.h); loaded once.  Offline, the
 * formats' directory; over a recording (-i), this machine's tracefs. */
static int gfp_names(struct sema *s, const struct node *fmt)
{
	const char *tdir = s->in->e.s ? session_tracefs(s->in->e.s)->path :
			   s->in->e.tdir ? s->in->e.tdir : tracefs_tracing_dir();
	char why[320];

	if (s->in->gfp)
		return 0;
	s->in->gfp = calloc(1, sizeof(*s->in->gfp));
	if (!s->in->gfp)
		return -ENOMEM;
	if (!tdir) {
		snprintf(why, sizeof(why), "no tracefs");
	} else if (flagnames_load(tdir, "kmem", "kmalloc", "gfp_flags", s->in->gfp, why,
				  sizeof(why)) == 0) {
		return 0;
	}
	free(s->in->gfp);
	s->in->gfp = NULL;
	lang_errf(s->err, fmt, "printf: %%gr prints GFP flags by the kernel's names, read from "
		  "kmem:kmalloc's format: %s", why);
	return -EINVAL;
}

/*
 * A '%' that starts no conversion (no letter after its flags, width and
 * precision: "100%\n", "50%"): bpftrace hands such text to the C library's
 * printf, which prints it as written, but a '%' at the very end of the
 * format, which it drops.  How many bytes the '%' text takes, 0 if p starts
 * a conversion.
 */
static size_t lone_percent(const char *p)
{
	size_t len = 1 + strspn(p + 1, "-+ #0123456789.hlzjt");
	char c = p[len];

	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? 0 : len;
}

/* printf, system, cat: a literal format, its conversions against the
 * arguments, checked now rather than per event. */
int check_printf(struct sema *s, struct node *n)
{
	if (n->args[0]->k != N_STR) {
		lang_errf(s->err, n->args[0], "%s's format must be a string literal", n->sval);
		return -EINVAL;
	}
	/* Count the conversions against the arguments now, not per event. */
	int conv = 0;

	for (const char *p = n->args[0]->sval; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == '%') {
			p++;
			continue;
		}
		if (lone_percent(p))
			continue;
		conv++;
		/* Widths and precisions are bounded (printf's fields are
		 * ints, and %999999999d took 22 s of CPU). */
		for (const char *d = p + 1 + strspn(p + 1, "-+ #0"); *d; d++) {
			unsigned long v;

			if (*d == '.')
				continue;
			if (*d < '0' || *d > '9')
				break;
			v = 0;
			for (; *d >= '0' && *d <= '9'; d++)
				if (v <= PRINTF_FIELD_MAX)
					v = v * 10 + (unsigned long)(*d - '0');
			if (v > PRINTF_FIELD_MAX) {
				lang_errf(s->err, n->args[0], "%s: a width or precision of more than "
					  "%d", n->sval, PRINTF_FIELD_MAX);
				return -EINVAL;
			}
			d--;
		}
		p += strspn(p + 1, "-+ #0123456789.hlzjt");
		if (p[1] == 'g' && p[2] == 'r') {
			/* %gr: GFP flags by the kernel's names */
			if (gfp_names(s, n->args[0]))
				return -EINVAL;
			p++;
			if (conv < n->nargs && n->args[conv]->type != VT_INT) {
				lang_errf(s->err, n->args[conv], "printf: %%gr needs a number");
				return -EINVAL;
			}
			continue;
		}
		if (!p[1] || !strchr("diuxXoscpr", p[1])) {
			lang_errf(s->err, n->args[0], "%s: bad conversion in \"%s\"",
				  n->sval, n->args[0]->sval);
			return -EINVAL;
		}
		if (conv < n->nargs) {
			bool want_str = p[1] == 's', want_buf = p[1] == 'r';
			/* %s of an enum's value: its enumerator's name */
			enum vtype t = n->args[conv]->enum_id && want_str ? VT_STR :
				       n->args[conv]->type;

			if ((want_str && t != VT_STR && t != VT_STACK) || (want_buf && t != VT_BUF) ||
			    (!want_str && !want_buf && t != VT_INT)) {
				lang_errf(s->err, n->args[conv], "printf: %%%c needs a %s%s",
					  p[1], want_buf ? "buffer (buf())" : want_str ? "string" :
					  "number", t == VT_BUF ? ", not a buffer (buf() is printed "
					  "with %r)" : "");
				return -EINVAL;
			}
		}
	}
	if (conv != n->nargs - 1) {
		lang_errf(s->err, n, "printf: %d conversion%s for %d argument%s", conv,
			  conv == 1 ? "" : "s", n->nargs - 1, n->nargs == 2 ? "" : "s");
		return -EINVAL;
	}
	n->type = VT_NONE;
	return 0;
}

/* print(VALUE): a number, string or stack, a line of its own (bpftrace's
 * "value" in -f json); print(@m, top, div): numbers. */
/* print(@m[key]): the entry's value, as print(value); a histogram's or
 * stats' entry has no one number (and a map whose kind comes later in
 * the program is not known yet): refused. */
static int check_print_entry(struct sema *s, const struct node *m)
{
	const struct mapdef *md = &s->in->maps[m->slot];

	if (!md->has_kind && !md->vt) {
		lang_errf(s->err, m, "print(%s[...]): %s is assigned after this print(); print "
			  "the whole map, or assign it first", m->sval, m->sval);
		return -EINVAL;
	}
	if (md->has_kind && (md->kind == AGG_HIST || md->kind == AGG_LHIST ||
			     md->kind == AGG_STATS)) {
		lang_errf(s->err, m, "print(%s[...]) of a %s: print the whole map", m->sval,
			  md->kind == AGG_STATS ? "stats()" : "histogram");
		return -EINVAL;
	}
	return 0;
}

int check_print(struct sema *s, struct node *n)
{
	int err;

	if (n->args[0]->k != N_MAP || n->args[0]->nargs) {
		if (n->nargs > 1) {
			lang_errf(s->err, n, "print(value) takes 1 argument (print(@map, top, div) "
				  "takes a map)");
			return -EINVAL;
		}
		s->buf_ok = BUF_VALUE;
		err = check(s, n->args[0]);
		if (err)
			return err;
		if (n->args[0]->k == N_MAP)
			return check_print_entry(s, n->args[0]);
		if (n->args[0]->type == VT_BUF && s->in->o && s->in->o->mode != OUT_TEXT) {
			lang_errf(s->err, n->args[0], "print() of a buffer in -f json is not in "
				  "ftr yet");
			return -EINVAL;
		}
		if (n->args[0]->type == VT_NONE) {
			lang_errf(s->err, n->args[0], "print() takes a map or a value");
			return -EINVAL;
		}
		return 0;
	}
	for (int i = 1; i < n->nargs; i++) {
		err = check(s, n->args[i]);
		if (err)
			return err;
		if (n->args[i]->type != VT_INT) {
			lang_errf(s->err, n->args[i], "print(@map, top, div) takes numbers");
			return -EINVAL;
		}
	}
	return check_map_arg(s, n);
}

/* system(fmt, ...), cat(fmt, ...): printf's format, into in->fmt. */
int check_command(struct sema *s, struct node *n)
{
	if (!strcmp(n->sval, "system") && !s->in->o->unsafe) {
		lang_errf(s->err, n, "system() runs a command: it needs --unsafe, as in "
			  "bpftrace");
		return -EINVAL;
	}
	if (!s->in->fmt && !(s->in->fmt = calloc(1, sizeof(*s->in->fmt))))
		return -ENOMEM;
	ob_init(s->in->fmt, -1);
	return check_printf(s, n);
}

int check_exit(struct sema *s, struct node *n)
{
	s->in->exit_at_event |= s->has_record;
	if (n->nargs && n->args[0]->type != VT_INT) {
		lang_errf(s->err, n->args[0], "exit(code): the code is a number");
		return -EINVAL;
	}
	return 0;
}

int check_time(struct sema *s, struct node *n)
{
	if (n->nargs && n->args[0]->k != N_STR) {
		lang_errf(s->err, n->args[0], "time's format must be a string literal");
		return -EINVAL;
	}
	return 0;
}

/* ---- what they do ----------------------------------------------------------- */

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/*
 * An integer as printf's length modifier has C print it, as bpftrace does:
 * hh a char, h a short, none an int, l, ll, j, z and t 64 bits; %d and %i
 * signed, %u, %x, %X and %o unsigned (printf("%x", 0x12345678abcdef) is
 * 78abcdef there).
 */
static int64_t printf_int(int64_t v, const char *mods, size_t n, char conv)
{
	int bits = n == 2 && mods[0] == 'h' ? 8 : n == 1 && mods[0] == 'h' ? 16 : n ? 64 : 32;

	return lang_int_cast(v, bits, conv == 'd' || conv == 'i');
}

/* Room for one conversion's text: a field's width (PRINTF_FIELD_MAX at
 * most), a string's length, a number's digits (it was a fixed 512 bytes:
 * %600d gave 511 columns, and a 1,000-character %s 511 characters). */
static char *field_room(size_t need)
{
	static char *buf;
	static size_t cap;

	if (need > cap) {
		char *nb = realloc(buf, need);

		if (!nb)
			return NULL;
		buf = nb;
		cap = need;
	}
	return buf;
}

/*
 * The text a conversion wrote to ob from start on, made one word of the
 * shell: in single quotes, a quote in it as '\''.  system("echo %s", comm)
 * ran a process named ";id>/tmp/x" as a command (as root); the format is
 * the user's command, and what the conversions bring (a comm, a path, a
 * number) is data, an argument, never shell syntax.  Quoting keeps the
 * shell (bpftrace's system() is a shell command line: pipes, redirections
 * in the format work as there); a %s meant to bring shell syntax itself
 * now brings a word.  Only for an outbuf that is never flushed (in->fmt).
 */
static void shell_quote_from(struct outbuf *ob, size_t start)
{
	size_t n = ob->len - start;
	char *t = malloc(n ? n : 1);

	if (!t || start > ob->len) {
		free(t);
		ob->err = -ENOMEM;
		return;
	}
	memcpy(t, ob->buf + start, n);
	ob->len = start;
	ob_putc(ob, '\'');
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '\'')
			ob_write(ob, "'\\''", 4);
		else
			ob_putc(ob, t[i]);
	}
	ob_putc(ob, '\'');
	free(t);
}

static void do_printf(struct xctx *x, const struct node *n, struct outbuf *ob, bool shq)
{
	const char *p = n->args[0]->sval;
	size_t conv_start = SIZE_MAX;
	int arg = 1;

	x->in->printfs++;
	while (*p || conv_start != SIZE_MAX) {
		char spec[16], *out, flags[8] = "";
		int width = 0, prec = -1, nf = 0;
		size_t room;
		const char *q, *mods;
		struct val v;

		/* The previous conversion's text, quoted for the shell. */
		if (conv_start != SIZE_MAX) {
			shell_quote_from(ob, conv_start);
			conv_start = SIZE_MAX;
			if (!*p)
				break;
		}

		if (*p != '%') {
			q = strchr(p, '%');
			ob_write(ob, p, q ? (size_t)(q - p) : strlen(p));
			p = q ? q : p + strlen(p);
			continue;
		}
		if (p[1] == '%') {
			ob_putc(ob, '%');
			p += 2;
			continue;
		}
		if (lone_percent(p)) {
			size_t len = lone_percent(p);

			if (p[len])
				ob_putc(ob, '%');	/* the rest is text */
			p += p[len] ? 1 : len;
			continue;
		}
		if (shq)
			conv_start = ob->len;
		for (q = p + 1; *q && strchr("-+ #0", *q); q++)
			if (nf < 5 && !strchr(flags, *q))
				flags[nf++] = *q;
		/* check_printf() refused more than PRINTF_FIELD_MAX. */
		for (; *q >= '0' && *q <= '9'; q++)
			if (width <= PRINTF_FIELD_MAX)
				width = width * 10 + (*q - '0');
		if (*q == '.') {
			prec = 0;
			for (q++; *q >= '0' && *q <= '9'; q++)
				if (prec <= PRINTF_FIELD_MAX)
					prec = prec * 10 + (*q - '0');
		}
		if (width > PRINTF_FIELD_MAX)
			width = PRINTF_FIELD_MAX;
		if (prec > PRINTF_FIELD_MAX)
			prec = PRINTF_FIELD_MAX;
		mods = q;
		q += strspn(q, "hlzjt");
		v = eval(x, n->args[arg++]);
		if (*q == 's' && v.t == VT_INT)
			v = enum_text(x, n->args[arg - 1], v, true);
		if (*q == 's' && v.t == VT_STACK) {
			print_stack(x->in, ob, v, stack_mode_of(x->in, n->args[arg - 1]));
			p = q + 1;
			continue;
		}
		/* The field, a number's digits and sign (64 bits), a string
		 * (%s) or GFP names (%gr). */
		room = (size_t)width + (prec > 0 ? (size_t)prec : 0) + 64 +
		       (*q == 's' && v.t == VT_STR ? v.len : 0) + (*q == 'g' ? 400 : 0);
		out = field_room(room);
		if (!out) {
			p = q + 1 + (*q == 'g' && q[1] == 'r');
			continue;
		}
		if (*q == 'g' && q[1] == 'r') {
			char names[400];

			flagnames_format(x->in->gfp, (uint64_t)v.i, names, sizeof(names));
			snprintf(out, room, "%*s", strchr(flags, '-') ? -width : width, names);
			ob_puts(ob, out);
			p = q + 2;
			continue;
		}
		if (*q == 'r') {
			bool form = q[1] == 'x' || q[1] == 'h';

			buf_text(ob, v.s, v.len, form ? q[1] : 0);
			p = q + 1 + form;
			continue;
		}
		if (*q == 's') {
			int len = (int)v.len;

			if (prec >= 0 && prec < len)
				len = prec;
			snprintf(out, room, "%*.*s", strchr(flags, '-') ? -width : width, len,
				 v.s);
		} else if (*q == 'c') {
			snprintf(out, room, "%*c", strchr(flags, '-') ? -width : width, (int)v.i);
		} else if (*q == 'p') {
			snprintf(out, room, "0x%llx", (unsigned long long)v.i);
		} else {
			v.i = printf_int(v.i, mods, (size_t)(q - mods), *q);
			if (prec < 0) {
				snprintf(spec, sizeof(spec), "%%%s*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, room, spec, width, (long long)v.i);
			} else {
				snprintf(spec, sizeof(spec), "%%%s*.*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, room, spec, width, prec, (long long)v.i);
			}
		}
		/* A string from the kernel (a comm, a path) is shown, not
		 * obeyed: its control characters are escaped, but for a
		 * newline and a tab (ob_lang_str). */
		if (*q == 's')
			ob_lang_str(ob, out, strlen(out));
		else
			ob_puts(ob, out);
		p = q + 1;
	}
}

/* time(fmt): the local time now, as strftime formats it (bpftrace's). */
void exec_time(struct xctx *x, const struct node *n)
{
	char out[512];
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;

	if (localtime_r(&now, &tm))
		len = strftime(out, sizeof(out), n->nargs ? n->args[0]->sval : "%H:%M:%S\n", &tm);
	if (x->in->o->mode == OUT_BTJSON)
		bt_line(x->in, "time", out, len);
	else
		ob_write(&x->in->ob, out, len);
}
#pragma GCC diagnostic pop

/* What cat() prints of a file at most: bpftrace's max_cat_bytes, 10240,
 * or BPFTRACE_MAX_CAT_BYTES from the environment. */
static size_t cat_max_bytes(void)
{
	const char *e = getenv("BPFTRACE_MAX_CAT_BYTES");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return 10240;
	v = strtoull(e, &end, 0);
	return *end ? 10240 : (size_t)v;
}

/*
 * cat()'s file, its first max bytes: a FIFO (or a terminal, a socket) is
 * read as its data comes, and the stop signals are looked at while it does
 * not (they are blocked for the signalfd: a blocking read of a FIFO in
 * BEGIN ignored Ctrl-C).  NULL with errno; EINTR when a signal stopped it.
 */
static char *cat_read(struct interp *in, const struct node *n, const char *path, size_t max,
		      size_t *lenp)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		close(fd);
		return read_file_head(path, max, lenp);
	}
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	while (len < max) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int ready;

		/* Its data, or its end (a FIFO's writer gone: POLLHUP; none
		 * yet is neither, and is waited for, as a blocking open
		 * would), 100 ms at a time. */
		ready = poll(&p, 1, 100);
		if (ready < 0 && errno != EINTR)
			break;
		if (ready > 0) {
			r = read(fd, buf + len, max - len);
			if (r > 0) {
				len += (size_t)r;
				continue;
			}
			if (r == 0 || (errno != EAGAIN && errno != EINTR))
				break;
		}
		if (run_interrupted(in, n, true)) {
			e = EINTR;
			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
	}
	e = errno;
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	errno = e;
	return buf;
}

/* A file cat() cannot read: bpftrace's runtime error, in its words (the
 * suite matches the whole line), and the program goes on as there. */
static void cat_failed(struct interp *in, const char *path, int err)
{
	ob_flush(&in->ob);
	fprintf(stderr, "ERROR: failed to open file '%s' (%s)\n", path, strerror(err));
}

/*
 * system(fmt, ...) runs a shell command (with --unsafe), cat(fmt, ...)
 * prints a file, both in user space when the event is handled, as
 * bpftrace does them (asynchronously to the event there too).
 */
void exec_command(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct outbuf *f = in->fmt;
	char *text;
	int ret;

	f->len = 0;
	f->err = 0;
	do_printf(x, n, f, !strcmp(n->sval, "system"));
	if (f->err || f->len == sizeof(f->buf)) {
		ftr_warn("%d:%d: %s(): the text is too long", n->line, n->col, n->sval);
		return;
	}
	text = strndup(f->buf, f->len);
	if (!text)
		return;
	if (!strcmp(n->sval, "cat")) {
		size_t len;
		/* Only what is printed is read (cat("/dev/zero") read until
		 * the OOM killer came). */
		char *c = cat_read(in, n, text, cat_max_bytes(), &len);

		if (!c && errno == EINTR)
			;	/* said by run_interrupted() */
		else if (c && in->o->mode == OUT_BTJSON)
			bt_line(in, "cat", c, len);
		else if (c)
			ob_write(&in->ob, c, len);
		else
			cat_failed(in, text, errno);
		free(c);
	} else {
		/* the command's output after what the program printed before;
		 * fork and exec, not system(3), which costs 3 KB of the static
		 * binary */
		char *argv[] = { (char *)"sh", (char *)"-c", text, NULL };
		/* bpftrace's -f json: the output in one "syscall" line */
		int pfd[2];
		bool bt = in->o->mode == OUT_BTJSON && pipe(pfd) == 0;
		pid_t pid;

		ob_flush(&in->ob);
		pid = fork();
		if (pid == 0) {
			if (bt && (dup2(pfd[1], 1) < 0 || close(pfd[0]) < 0))
				_exit(127);
			execvp(argv[0], argv);
			_exit(127);
		}
		if (bt) {
			/* a buffer of it; the rest is read (the command runs to
			 * its end) and dropped, with a warning */
			char junk[512];
			bool cut = false;

			close(pfd[1]);
			f->len = 0;
			while (pid > 0) {
				bool room = f->len < sizeof(f->buf);
				ssize_t r = read(pfd[0], room ? f->buf + f->len : junk,
						 room ? sizeof(f->buf) - f->len : sizeof(junk));

				if (r > 0 && room)
					f->len += (size_t)r;
				else if (r > 0)
					cut = true;
				else if (r == 0 || errno != EINTR)
					break;
			}
			close(pfd[0]);
			if (cut)
				ftr_warn("system(\"%s\"): only the first %zu bytes of its output "
					 "printed", text, sizeof(f->buf));
			if (pid > 0)
				bt_line(in, "syscall", f->buf, f->len);
		}
		if (pid < 0)
			ftr_warn("system(\"%s\"): %s", text, strerror(errno));
		else
			while (waitpid(pid, &ret, 0) < 0 && errno == EINTR)
				;
	}
	free(text);
}

/* print(VALUE): as printf's %d (%u of an unsigned 64-bit number) or %s,
 * and a newline; in bpftrace's -f json, a "value" line. */
static void print_value(struct xctx *x, struct val v, int mode)
{
	struct interp *in = x->in;
	struct outbuf *ob = in->o->mode == OUT_BTJSON ? bt_out(in) : &in->ob;
	char num[32];

	if (v.t == VT_TUPLE) {
		/* (1, abc, (2, 3)); bpftrace's -f json: an array */
		if (in->o->mode == OUT_BTJSON) {
			ob_puts(&in->ob, "{\"type\": \"value\", \"data\": ");
			tuple_json(&in->ob, v.s, v.len);
			ob_puts(&in->ob, "}\n");
		} else {
			tuple_text(&in->ob, v.s, v.len, tuple_enum_name, tuple_stack, in);
			ob_putc(&in->ob, '\n');
		}
		if (in->o->buffering != RUN_BUF_FULL)
			ob_flush(&in->ob);
		return;
	}
	if (v.t == VT_STACK) {
		print_stack(in, ob, v, mode);
	} else if (v.t == VT_BUF) {
		buf_text(ob, v.s, v.len, 0);
	} else if (v.t == VT_STR) {
		if (ob == &in->ob)
			ob_lang_str(ob, v.s, v.len);
		else
			ob_write(ob, v.s, v.len);
	} else {
		snprintf(num, sizeof(num), v.u ? "%llu" : "%lld", (unsigned long long)v.i);
		ob_puts(ob, num);
	}
	if (ob == &in->ob) {
		ob_putc(ob, '\n');
	} else {
		/* {"type": "value", "data": 5} or "data": "text" */
		ob_puts(&in->ob, "{\"type\": \"value\", \"data\": ");
		if (v.t == VT_INT)
			ob_write(&in->ob, ob->buf, ob->len);
		else
			ob_json_str(&in->ob, ob->buf, ob->len);
		ob_puts(&in->ob, "}\n");
		ob->len = 0;
	}
	if (in->o->buffering != RUN_BUF_FULL)
		ob_flush(&in->ob);
}

void exec_printf(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct outbuf *ob = bt_out(in);

	do_printf(x, n, ob, false);
	bt_done(in, ob, "printf");
	if (in->o->buffering == RUN_BUF_NONE ||
	    (in->o->buffering == RUN_BUF_LINE && memchr(in->ob.buf, '\n', in->ob.len)))
		ob_flush(&in->ob);
}

/* exit(code): ftr's exit status, as bpftrace's (what a shell sees of it:
 * code & 255), unless the run fails otherwise. */
void exec_exit(struct xctx *x, const struct node *n)
{
	if (n->nargs) {
		x->in->exit_code = (int)(eval(x, n->args[0]).i & 255);
		x->in->exit_coded = true;
	}
	x->in->exit_req = true;
}

/* strcontains() and has_key() are bools in bpftrace (mark_bool) */
void exec_print(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	int64_t top, div;

	if (n->args[0]->k != N_MAP || n->args[0]->nargs) {
		struct val v = eval(x, n->args[0]);

		/* a bool (a comparison, strcontains(), has_key()...) prints
		 * true or false, as bpftrace (in -f json the JSON literal); an
		 * enum's value by its name (a number in bpftrace's JSON) */
		if (in->o->mode == OUT_BTJSON && n->args[0]->enum_id == LANG_BOOL_ID) {
			ob_puts(&in->ob, v.i ? "{\"type\": \"value\", \"data\": true}\n" :
				"{\"type\": \"value\", \"data\": false}\n");
			if (in->o->buffering != RUN_BUF_FULL)
				ob_flush(&in->ob);
			return;
		}
		if (in->o->mode != OUT_BTJSON)
			v = enum_text(x, n->args[0], v, false);
		print_value(x, v, stack_mode_of(in, n->args[0]));
		return;
	}
	top = n->nargs > 1 ? eval(x, n->args[1]).i : -1;
	div = n->nargs > 2 ? eval(x, n->args[2]).i : 0;
	print_map(in, &in->maps[n->args[0]->slot], top, div, true);
	if (in->o->buffering != RUN_BUF_FULL)
		ob_flush(&in->ob);
}

void exec_clear(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;

	prom_clearing(in->prom, n->args[0]->slot);	/* counters carry on */
	if (in->maps[n->args[0]->slot].pc)
		pc_clear(in, &in->maps[n->args[0]->slot]);
	agg_clear(in->maps[n->args[0]->slot].m);
}

void exec_zero(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;

	/* (a zeroed map is in neither a hist trigger nor a counter) */
	prom_clearing(in->prom, n->args[0]->slot);
	agg_zero(in->maps[n->args[0]->slot].m);
}

/* delete(): whether the entry was there (bpftrace's bool) */
struct val eval_delete(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct agg_kpart k[AGG_MAX_KEYS];

	keys_of(x, n->args[0], k);
	prom_deleting(in->prom, n->args[0]->slot, k);
	return vint(agg_delete(in->maps[n->args[0]->slot].m, k) == 0);
}

void exec_delete(struct xctx *x, const struct node *n)
{
	eval_delete(x, n);
}

int check_delete(struct sema *s, struct node *n)
{
	int err = check_map_arg(s, n);

	mark_bool(n);
	return err;
}

/*
 * The column after the ')' that closes the call at line:col of src (where
 * bpftrace's locations end), or col when not found.
 */
static int call_end_col(const char *src, int line, int col)
{
	const char *p = src;
	int depth = 0, c;
	char q = 0;

	for (int l = 1; p && *p && l < line; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || (int)strlen(p) < col)
		return col;
	for (c = col, p += col - 1; *p && *p != '\n'; p++, c++) {
		if (q) {
			if (*p == '\\' && p[1] && p[1] != '\n')
				p++, c++;
			else if (*p == q)
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')' && --depth == 0) {
			return c + 1;
		}
	}
	return col;
}

/* errorf(fmt, ...), warnf(fmt, ...): printf's text as bpftrace's runtime
 * error or warning, "stdin:L:C-E: ERROR: text" on stderr; the program
 * goes on. */
int check_errorf(struct sema *s, struct node *n)
{
	const char *src = s->in->p->src ? s->in->p->src : s->in->o->src;

	n->ival = src ? call_end_col(src, n->line, n->col) : n->col;
	return check_command(s, n);
}

void exec_errorf(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct outbuf *f = in->fmt;
	size_t len;

	if (ftr_no_warnings && strcmp(n->sval, "errorf"))
		return;
	f->len = 0;
	f->err = 0;
	do_printf(x, n, f, false);
	len = f->len;
	if (len && f->buf[len - 1] == '\n')
		len--;
	ob_flush(&in->ob);
	fprintf(stderr, "stdin:%d:%d-%d: %s: %.*s\n", n->line, n->col, (int)n->ival,
		strcmp(n->sval, "errorf") ? "WARNING" : "ERROR", (int)len, f->buf);
}