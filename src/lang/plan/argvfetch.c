// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The strings behind a tracepoint's char ** field (execve's argv), which
 * the kernel records as an address: join(args.F) and str(args.F[K]).
 * strfetch.c puts an eprobe or a kprobe in the tracepoint's place that
 * fetches F[0]..F[15] as the string fields F_0..F_15 (filtertext.c marks F).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "lang/interp-int.h"
#include "lang/plan/filtertext.h"

/* Why ev has no F_K strings: what strfetch.c found, or what would fetch them. */
static const char *why_none(struct sema *s, struct tep_event *ev, const char *field,
			    char *why, size_t len)
{
	snprintf(why, len, "the kernel records a char ** argument as an address and "
		 "copies none of its strings; %s", s->clause < 256 && s->in->fetch_why[s->clause] ?
		 s->in->fetch_why[s->clause] : tep_find_field(ev, field) ?
		 "nothing on this kernel can fetch them (eprobe events, or kprobe events at the "
		 "syscall's entry, would)" : "this event has no such field");
	return why;
}

/*
 * join(args.F[, delim]): F is a char ** (execve's argv).  strfetch.c put
 * an eprobe or kprobe in the tracepoint's place that fetches F[0]..F[15]
 * as strings F_0..F_15; their table per event is n->bind.
 */
int check_join(struct sema *s, struct node *n)
{
	struct node *a = n->args[0];
	struct tep_format_field **tab;

	if (a->k != N_FIELD || !s->has_record || s->is_uprobe || s->is_kprobe) {
		lang_errf(s->err, n, "join() takes a char ** field of a tracepoint: "
			  "join(args.argv)");
		return -EINVAL;
	}
	if (n->nargs == 2 && n->args[1]->k != N_STR) {
		lang_errf(s->err, n->args[1], "join's delimiter must be a string literal");
		return -EINVAL;
	}
	tab = field_table(s, n, PLAN_JOIN_MAX);
	if (!tab)
		return -ENOMEM;
	for (int i = 0; i < s->nev; i++) {
		struct tep_event *ev = s->evs[i]->ev;

		for (int k = 0; k < PLAN_JOIN_MAX; k++) {
			char name[80];
			struct tep_format_field *f;

			snprintf(name, sizeof(name), "%s_%d", a->sval, k);
			f = tep_find_field(ev, name);
			if (!f || !field_is_string(f)) {
				char why[512];

				lang_errf(s->err, n, "join(args.%s): %s", a->sval,
					  why_none(s, ev, a->sval, why, sizeof(why)));
				return -EINVAL;
			}
			tab[(size_t)s->evs[i]->idx * PLAN_JOIN_MAX + k] = f;
		}
	}
	n->type = VT_NONE;
	return 0;
}

/*
 * str(args.F[K]) at a tracepoint, F a char ** (execve's argv): the string
 * of F's element K, which the kernel does not copy.  The probe in the
 * tracepoint's place fetches F's strings as F_0..F_15 (filtertext.c marks F as
 * join() does), and args.F[K] becomes the field F_K.  An element past the
 * array's NULL faulted and is empty, as bpftrace's str() of NULL.  0 when
 * done or not this case; -EINVAL, said, when F's strings cannot be had.
 */
/* Is field F of ev a pointer to pointers (char **)? */
static bool is_ptr_ptr(struct tep_event *ev, const char *f)
{
	struct tep_format_field *fl = tep_find_field(ev, f);
	const char *star = fl && fl->type ? strchr(fl->type, '*') : NULL;

	/* "char **", "const char *const *" */
	return star && strchr(star + 1, '*');
}

int check_str_elem(struct sema *s, struct node *n)
{
	struct node *e = n->args[0];
	int k = plan_field_elem(e);
	char name[80];

	/* Past the elements fetched: said so (it was ".16 reads a tuple's
	 * element", of a tuple nobody wrote). */
	if (k < 0 && e && e->a && e->a->k == N_FIELD && s->has_record && !s->is_uprobe &&
	    !s->is_kprobe && s->nev && is_ptr_ptr(s->evs[0]->ev, e->a->sval) && ((e->k == N_INDEX && e->b && e->b->k == N_INT) ||
			      (e->k == N_MEMBER && e->op == T_DOT && e->sval && e->sval[0] &&
			       strspn(e->sval, "0123456789") == strlen(e->sval)))) {
		lang_errf(s->err, e, "str(args.%s[%s]): ftr fetches the first %d elements of a "
			  "char ** (args.%s[0] to args.%s[%d])", e->a->sval,
			  e->k == N_MEMBER ? e->sval : "K", PLAN_JOIN_MAX, e->a->sval, e->a->sval,
			  PLAN_JOIN_MAX - 1);
		return -EINVAL;
	}
	if (k < 0 || !s->has_record || s->is_uprobe || s->is_kprobe)
		return 0;
	snprintf(name, sizeof(name), "%s_%d", e->a->sval, k);
	for (int i = 0; i < s->nev; i++) {
		struct tep_format_field *f = tep_find_field(s->evs[i]->ev, name);

		if (!f || !field_is_string(f)) {
			char why[512];

			lang_errf(s->err, e, "str(args.%s[%d]): %s", e->a->sval, k,
				  why_none(s, s->evs[i]->ev, e->a->sval, why, sizeof(why)));
			return -EINVAL;
		}
	}
	lang_node_free(e->b);
	e->b = NULL;
	free(e->sval);
	e->sval = strdup(name);
	if (!e->sval)
		return -ENOMEM;
	e->k = N_FIELD;		/* e->a, args.F, is freed with it */
	return 0;
}

/* join(): the strings up to the first that faulted (a NULL entry: its
 * length is 0, where "" is 1 with its NUL), then a newline, as bpftrace. */
void exec_join(struct xctx *x, const struct node *n)
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
