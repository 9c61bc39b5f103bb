// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Statements: what a clause does once its predicate holds (exec(),
 * run_clause()): assignments and map updates, printf and the other output
 * calls (print, time, join, system, cat), stacks printed as bpftrace does,
 * and the maps printed (print_map), wherever they are kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "ftr.h"
#include "lang/intern.h"
#include "lang/interp-int.h"
#include "lang/plan.h"
/* ---- statements -------------------------------------------------------------- */

/*
 * printf: the format was checked by the semantic pass (conversions against
 * arguments).  Each conversion is rebuilt from its validated flags, width
 * and precision with ftr's own length modifier (every number is 64-bit), so
 * the format passed to snprintf is ours, not the user's text.
 */
/* printf("%s", kstack): the stack as bpftrace prints it, a newline, then a
 * frame a line, indented 8 (as map keys print, agg.h). */
static void print_stack(struct interp *in, struct outbuf *ob, struct val v)
{
	char sym[512];

	ob_putc(ob, '\n');
	for (size_t i = 0; i < v.len; i++) {
		int r = in->prof ? lprof_frame(v.ips[i], (uint32_t)i, sym, sizeof(sym), in->prof) :
			-1;

		if (r > 0)
			continue;
		if (r < 0)
			snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)v.ips[i]);
		ob_write(ob, "        ", 8);
		ob_puts(ob, sym);
		ob_putc(ob, '\n');
	}
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/*
 * bpftrace's -f json: what printf, time, join, cat and system print is one
 * line {"type": "printf", "data": "hi\n"}.  bt_out gives where the text goes:
 * the scratch buffer in->fmt in that mode, the output otherwise (or when
 * out of memory); bt_done makes the line of it.
 */
static void bt_line(struct interp *in, const char *type, const char *s, size_t n)
{
	ob_puts(&in->ob, "{\"type\": \"");
	ob_puts(&in->ob, type);
	ob_puts(&in->ob, "\", \"data\": ");
	ob_json_str(&in->ob, s, n);
	ob_puts(&in->ob, "}\n");
}

static struct outbuf *bt_out(struct interp *in)
{
	if (in->o->mode != OUT_BTJSON ||
	    (!in->fmt && !(in->fmt = calloc(1, sizeof(*in->fmt)))))
		return &in->ob;
	ob_init(in->fmt, -1);
	return in->fmt;
}

static void bt_done(struct interp *in, struct outbuf *f, const char *type)
{
	if (f != &in->ob)
		bt_line(in, type, f->buf, f->len);
}

static void do_printf(struct xctx *x, const struct node *n, struct outbuf *ob)
{
	const char *p = n->args[0]->sval;
	int arg = 1;

	x->in->printfs++;
	while (*p) {
		char spec[16], out[512], flags[8] = "";
		int width = 0, prec = -1, nf = 0;
		const char *q;
		struct val v;

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
		for (q = p + 1; *q && strchr("-+ #0", *q); q++)
			if (nf < 5 && !strchr(flags, *q))
				flags[nf++] = *q;
		while (*q >= '0' && *q <= '9')
			width = width * 10 + (*q++ - '0') % 1000;
		if (*q == '.') {
			prec = 0;
			for (q++; *q >= '0' && *q <= '9'; q++)
				prec = prec * 10 + (*q - '0') % 1000;
		}
		q += strspn(q, "hlzjt");
		v = eval(x, n->args[arg++]);
		if (*q == 's' && v.t == VT_STACK) {
			print_stack(x->in, ob, v);
			p = q + 1;
			continue;
		}
		if (*q == 'r') {
			/* bpftrace's %r: printable ASCII as it is, any other
			 * byte as \xNN (a backslash too is kept as it is). */
			for (size_t i = 0; i < v.len; i++) {
				unsigned char c = (unsigned char)v.s[i];

				if (c >= 32 && c <= 126) {
					ob_putc(ob, (char)c);
				} else {
					ob_write(ob, "\\x", 2);
					ob_putc(ob, "0123456789abcdef"[c >> 4]);
					ob_putc(ob, "0123456789abcdef"[c & 15]);
				}
			}
			p = q + 1;
			continue;
		}
		if (*q == 's') {
			int len = (int)v.len;

			if (prec >= 0 && prec < len)
				len = prec;
			snprintf(out, sizeof(out), "%*.*s", strchr(flags, '-') ? -width : width,
				 len, v.s);
		} else if (*q == 'c') {
			snprintf(out, sizeof(out), "%*c", strchr(flags, '-') ? -width : width,
				 (int)v.i);
		} else if (*q == 'p') {
			snprintf(out, sizeof(out), "0x%llx", (unsigned long long)v.i);
		} else {
			if (prec < 0) {
				snprintf(spec, sizeof(spec), "%%%s*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, sizeof(out), spec, width, (long long)v.i);
			} else {
				snprintf(spec, sizeof(spec), "%%%s*.*ll%c", flags, *q == 'i' ? 'd' : *q);
				snprintf(out, sizeof(out), spec, width, prec, (long long)v.i);
			}
		}
		/* A string from the kernel (a comm, a path) is shown, not
		 * obeyed: its control characters are escaped. */
		if (*q == 's')
			ob_text_str(ob, out, strlen(out));
		else
			ob_puts(ob, out);
		p = q + 1;
	}
}

/* time(fmt): the local time now, as strftime formats it (bpftrace's). */
static void do_time(struct xctx *x, const struct node *n)
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


/* agg's value callback for a map of strings or stacks: the interned value
 * behind the number. */
struct vals_ctx {
	const struct intern *vals;
	enum vtype vt;
};

static int interned_value(int64_t v, struct agg_kpart *k, void *arg)
{
	const struct vals_ctx *c = arg;
	size_t len;
	const void *p = intern_get(c->vals, (uint32_t)v, &len);

	if (c->vt == VT_STR) {
		k->str.p = p ? p : "";
		k->str.len = len;
		return AGG_K_STR;
	}
	k->stack.ips = p;
	k->stack.n = (uint32_t)(len / sizeof(uint64_t));
	return AGG_K_STACK;
}

void print_map(struct interp *in, struct mapdef *m, int64_t top, int64_t div)
{
	if (!m->m)
		return;
	if (m->k && hist_read(in, m) < 0)
		return;
	if (m->pc && pc_read(in, m) < 0)
		return;
	struct vals_ctx vc = { in->vals, m->vt };
	struct agg_print_opts po = { .top = top >= 0 ? (uint32_t)top : in->o->top,
				     .div = div > 0 ? (uint64_t)div : 0,
				     .stack_mode = m->stack_mode, .sort = in->o->sort,
				     .sym = in->prof ? lprof_frame : NULL, .sym_arg = in->prof,
				     .value = m->vt > VT_INT ? interned_value : NULL, .value_arg = &vc };

	if (in->o->mode == OUT_BTJSON)
		agg_print_bt_json(m->m, &in->ob, &po);
	else if (in->o->mode == OUT_JSON)
		agg_print_json(m->m, &in->ob, &po);
	else
		agg_print(m->m, &in->ob, &po);
	if (agg_dropped(m->m))
		fprintf(stderr, "ftr: %s: %llu updates dropped: the map holds %u entries\n",
			m->name, (unsigned long long)agg_dropped(m->m), agg_size(m->m));
}

static void exec(struct xctx *x, const struct node *st);

/*
 * system(fmt, ...) runs a shell command (with --unsafe), cat(fmt, ...)
 * prints a file, both in user space when the event is handled, as
 * bpftrace does them (asynchronously to the event there too).
 */
static void do_command(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;
	struct outbuf *f = in->fmt;
	char *text;
	int ret;

	f->len = 0;
	f->err = 0;
	do_printf(x, n, f);
	if (f->err || f->len == sizeof(f->buf)) {
		ftr_warn("%d:%d: %s(): the text is too long", n->line, n->col, n->sval);
		return;
	}
	text = strndup(f->buf, f->len);
	if (!text)
		return;
	if (!strcmp(n->sval, "cat")) {
		size_t len;
		char *c = read_file(text, &len);

		if (c && in->o->mode == OUT_BTJSON)
			bt_line(in, "cat", c, len);
		else if (c)
			ob_write(&in->ob, c, len);
		else
			ftr_warn("cat(\"%s\"): %s", text, strerror(errno));
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

/* join(): the strings up to the first that faulted (a NULL entry: its
 * length is 0, where "" is 1 with its NUL), then a newline, as bpftrace. */
static void do_join(struct xctx *x, const struct node *n)
{
	struct tep_format_field **tab = n->bind;
	const char *delim = n->nargs == 2 ? n->args[1]->sval : " ";
	struct outbuf *ob = bt_out(x->in);

	for (int k = 0; x->rec && k < PLAN_JOIN_MAX; k++) {
		struct tep_format_field *f = tab[(size_t)x->ev->idx * PLAN_JOIN_MAX + k];
		uint32_t dl;
		size_t len;
		const char *str;

		if (!f || (size_t)f->offset + 4 > (size_t)x->rec->size)
			break;
		memcpy(&dl, (char *)x->rec->data + f->offset, 4);
		if (!(dl >> 16))
			break;
		str = field_string(f, x->rec->data, x->rec->size, &len);
		if (k)
			ob_puts(ob, delim);
		ob_write(ob, str, len);
	}
	if (ob == &x->in->ob)
		ob_putc(ob, '\n');
	bt_done(x->in, ob, "join");	/* without the newline, as bpftrace */
}

/* print(VALUE): as printf's %d (%u of an unsigned 64-bit number) or %s,
 * and a newline; in bpftrace's -f json, a "value" line. */
static void print_value(struct xctx *x, struct val v)
{
	struct interp *in = x->in;
	struct outbuf *ob = in->o->mode == OUT_BTJSON ? bt_out(in) : &in->ob;
	char num[32];

	if (v.t == VT_STACK) {
		print_stack(in, ob, v);
	} else if (v.t == VT_STR) {
		if (ob == &in->ob)
			ob_text_str(ob, v.s, v.len);
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

static void exec_call(struct xctx *x, const struct node *n)
{
	struct interp *in = x->in;

	if (!strcmp(n->sval, "printf")) {
		struct outbuf *ob = bt_out(in);

		do_printf(x, n, ob);
		bt_done(in, ob, "printf");
		if (in->o->buffering == RUN_BUF_NONE ||
		    (in->o->buffering == RUN_BUF_LINE && memchr(in->ob.buf, '\n', in->ob.len)))
			ob_flush(&in->ob);
	} else if (!strcmp(n->sval, "system") || !strcmp(n->sval, "cat")) {
		do_command(x, n);
	} else if (!strcmp(n->sval, "join")) {
		do_join(x, n);
	} else if (!strcmp(n->sval, "exit")) {
		in->exit_req = true;
	} else if (!strcmp(n->sval, "time")) {
		do_time(x, n);
	} else if (!strcmp(n->sval, "print") && n->args[0]->k != N_MAP) {
		print_value(x, eval(x, n->args[0]));
	} else if (!strcmp(n->sval, "print")) {
		int64_t top = n->nargs > 1 ? eval(x, n->args[1]).i : -1;
		int64_t div = n->nargs > 2 ? eval(x, n->args[2]).i : 0;

		print_map(in, &in->maps[n->args[0]->slot], top, div);
		if (in->o->buffering != RUN_BUF_FULL)
			ob_flush(&in->ob);
	} else if (!strcmp(n->sval, "clear")) {
		prom_clearing(in->prom, n->args[0]->slot);	/* counters carry on */
		if (in->maps[n->args[0]->slot].pc)
			pc_clear(in, &in->maps[n->args[0]->slot]);
		agg_clear(in->maps[n->args[0]->slot].m);
	} else if (!strcmp(n->sval, "zero")) {
		/* (a zeroed map is in neither a hist trigger nor a counter) */
		prom_clearing(in->prom, n->args[0]->slot);
		agg_zero(in->maps[n->args[0]->slot].m);
	} else if (!strcmp(n->sval, "delete")) {
		struct agg_kpart k[AGG_MAX_KEYS];

		keys_of(x, n->args[0], k);
		prom_deleting(in->prom, n->args[0]->slot, k);
		agg_delete(in->maps[n->args[0]->slot].m, k);
	}
}

static void exec(struct xctx *x, const struct node *st)
{
	struct interp *in = x->in;

	for (; st && !in->exit_req; st = st->next) {
		switch (st->k) {
		case S_EXPR:
			if (st->a->k == N_CALL)
				exec_call(x, st->a);
			else
				eval(x, st->a);
			break;
		case S_IF:
			if (truthy(eval(x, st->a)))
				exec(x, st->b);
			else if (st->c)
				exec(x, st->c);
			break;
		case S_ASSIGN: {
			struct agg_kpart k[AGG_MAX_KEYS];
			struct mapdef *m;
			int64_t v = 0, old = 0;

			if (st->a->k == N_VAR) {
				struct val nv = eval(x, st->b);
				struct val *var = &in->vars[st->a->slot];

				if (st->op == T_ASSIGN)
					*var = nv;
				else
					*var = vint(arith(st->op == T_PLUSEQ ? T_PLUS :
							  st->op == T_MINUSEQ ? T_MINUS :
							  st->op == T_STAREQ ? T_STAR : T_SLASH,
							  var->i, nv.i));
				break;
			}
			m = &in->maps[st->a->slot];
			keys_of(x, st->a, k);
			if (st->b->k == N_CALL && agg_of(st->b->sval) >= 0) {
				if (st->b->nargs)
					v = eval(x, st->b->args[0]).i;
			} else if (m->vt == VT_STR || m->vt == VT_STACK) {
				struct val nv = eval(x, st->b);

				v = nv.t == VT_STR ? intern_put(in->vals, nv.s, nv.len) :
				    intern_put(in->vals, nv.ips, nv.len * sizeof(uint64_t));
			} else {
				v = eval(x, st->b).i;
				if (st->op != T_ASSIGN) {
					agg_lookup(m->m, k, &old);
					v = arith(st->op == T_PLUSEQ ? T_PLUS :
						  st->op == T_MINUSEQ ? T_MINUS :
						  st->op == T_STAREQ ? T_STAR : T_SLASH, old, v);
				}
			}
			agg_update(m->m, k, v);
			break;
		}
		default:
			break;
		}
	}
}

void run_clause(struct xctx *x, int ci, bool skip_pred)
{
	const struct clause *c = &x->in->p->cl[ci];

	x->in->runs++;
	if (c->pred && !skip_pred && !truthy(eval(x, c->pred)))
		return;
	exec(x, c->body);
}

