// SPDX-License-Identifier: GPL-2.0-or-later
/* Numbers of the language: literals, durations (100ms), its integer types
 * and casts to them, offsetof(), and let's declared types: see lang.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "lang/lang.h"
#include "lang/parse/parse-int.h"

/*
 * An integer literal as bpftrace writes them: decimal, 0x hex or 0 octal;
 * '_' between digits (1_000_000); an exponent (1e6 is 1000000: an integer,
 * bpftrace has no floating point); a duration, a decimal number with ns, us,
 * ms, s, m, h or d, is its nanoseconds (100ms is 100000000).  *end is past
 * the literal's characters.
 * 0, or -ERANGE/-EINVAL.
 */
int lang_number(const char *s, const char **end, int64_t *out)
{
	char buf[72];
	size_t n = 0;
	const char *p = s;
	unsigned long long v, e = 0;
	char *stop;

	while (ident_char(*p)) {
		if (*p != '_' && n < sizeof(buf) - 1)
			buf[n++] = *p;
		p++;
	}
	*end = p;
	buf[n] = '\0';
	if (p[-1] == '_')
		return -EINVAL;
	for (const char *q = s; q < p; q++)
		if (q[0] == '_' && q[1] == '_')
			return -EINVAL;
	errno = 0;
	v = strtoull(buf, &stop, 0);
	if (*stop == 'e' && buf[0] != '0' && stop[1] >= '0' && stop[1] <= '9') {
		e = strtoull(stop + 1, &stop, 10);
		for (; e && !errno; e--) {
			if (v > UINT64_MAX / 10)
				errno = ERANGE;
			v *= 10;
		}
	}
	if (*stop && !errno && (buf[0] != '0' || stop == buf + 1)) {
		/* a duration, as bpftrace writes one: 100ms is 100000000 (ns) */
		static const struct { const char *u; uint64_t ns; } units[] = {
			{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
			{ "m", 60000000000ull }, { "h", 3600000000000ull },
			{ "d", 86400000000000ull },
		};
		size_t i = 0;

		while (i < sizeof(units) / sizeof(units[0]) && strcmp(stop, units[i].u))
			i++;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		if (v > UINT64_MAX / units[i].ns)
			return -ERANGE;
		v *= units[i].ns;
		stop += strlen(stop);
	}
	if (errno || *stop)
		return errno ? -ERANGE : -EINVAL;
	*out = (int64_t)v;
	return 0;
}

bool lang_int_type(const char *name, int *bits, bool *is_signed)
{
	static const struct {
		const char *n;
		unsigned char bits;
		bool sign;
	} t[] = {
		{ "int8", 8, true }, { "int16", 16, true }, { "int32", 32, true },
		{ "int64", 64, true }, { "uint8", 8, false }, { "uint16", 16, false },
		{ "uint32", 32, false }, { "uint64", 64, false }, { "s8", 8, true },
		{ "s16", 16, true }, { "s32", 32, true }, { "s64", 64, true }, { "u8", 8, false },
		{ "u16", 16, false }, { "u32", 32, false }, { "u64", 64, false },
		{ "int8_t", 8, true }, { "int16_t", 16, true }, { "int32_t", 32, true },
		{ "int64_t", 64, true }, { "uint8_t", 8, false }, { "uint16_t", 16, false },
		{ "uint32_t", 32, false }, { "uint64_t", 64, false }, { "char", 8, true },
		{ "short", 16, true }, { "int", 32, true }, { "long", 64, true },
		{ "unsigned char", 8, false }, { "unsigned short", 16, false },
		{ "unsigned int", 32, false }, { "unsigned", 32, false },
		{ "unsigned long", 64, false }, { "bool", 1, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (!strcmp(name, t[i].n)) {
			*bits = t[i].bits;
			*is_signed = t[i].sign;
			return true;
		}
	return false;
}

int64_t lang_int_cast(int64_t v, int bits, bool is_signed)
{
	uint64_t u = (uint64_t)v;

	if (bits == 1)
		return u != 0;	/* (bool)x, as C */
	if (bits <= 0 || bits >= 64)
		return v;
	u &= (1ull << bits) - 1;
	if (is_signed && (u >> (bits - 1)))
		u |= ~0ull << bits;
	return (int64_t)u;
}

/*
 * offsetof "(" TYPE "," MEMBER ["." MEMBER]... ")": an N_SIZEOF with idx 1,
 * sval the type as written and a the members' path (an N_STR), which fetchargs.c
 * resolves as it does sizeof(TYPE).
 */
struct node *lang_offsetof_expr(struct lexer *l, int line, int col)
{
	const char *s = l->p, *comma = strchr(s, ','), *q, *m;
	struct node *n;

	q = comma ? strchr(comma, ')') : NULL;
	if (!q || memchr(s, '(', q - s) || memchr(s, '\n', q - s)) {
		lerr(l, line, col, "offsetof takes (TYPE, MEMBER[.MEMBER]...)");
		return NULL;
	}
	m = comma + 1 + strspn(comma + 1, " \t");
	for (const char *c = m; c < q; c++)
		if (!ident_char(*c) && *c != '.' && *c != ' ' && *c != '\t') {
			lerr(l, line, col, "offsetof: '%.*s' is no member name", (int)(q - m), m);
			return NULL;
		}
	n = mk(l, N_SIZEOF, line, col);
	if (!n)
		return NULL;
	n->idx = 1;
	n->a = mk(l, N_STR, line, col);
	if (!n->a || !(n->sval = strndup(s, comma - s)) ||
	    !(n->a->sval = strndup(m, q - m))) {
		node_free(n);
		lerr(l, line, col, "out of memory");
		return NULL;
	}
	l->p = q + 1;
	next(l);
	return n;
}

/*
 * let $x [: TYPE] [= expr]: an assignment that declares, so that each run
 * of it starts the variable again (with 0 when nothing is assigned).  TYPE
 * is an integer type (int8 ... uint64): the value is cast to it.
 */
struct node *lang_let_stmt(struct lexer *l)
{
	static const enum tok stop[] = { T_ASSIGN, T_SEMI, T_RBRACE };
	int line = l->tline, col = l->tcol;
	struct node *n, *v;
	char *type = NULL;
	int tline = 0, tcol = 0;

	next(l);
	if (l->t == T_MAP) {
		lerr(l, l->tline, l->tcol, "a map is declared before the probes: let %s = hash(N);",
		     l->sval);
		return NULL;
	}
	if (l->t != T_VAR || strspn(l->sval + 1, "0123456789") == strlen(l->sval + 1)) {
		lerr(l, l->tline, l->tcol, "expected a $variable after 'let', found %s",
		     lang_tok_str(l->t));
		return NULL;
	}
	n = mk(l, S_ASSIGN, line, col);
	v = mk(l, N_VAR, l->tline, l->tcol);
	if (!n || !v) {
		free(n);
		free(v);
		return NULL;
	}
	n->op = T_ASSIGN;
	n->decl = true;
	n->a = v;
	v->sval = l->sval;
	l->sval = NULL;
	next(l);
	if (accept(l, T_COLON)) {
		static const enum tok rparen[] = { T_RPAREN };
		int bits;
		bool sign;
		size_t len;

		tline = l->tline;
		tcol = l->tcol;
		if (l->t == T_IDENT && !strcmp(l->sval, "typeof") && *l->p == '(') {
			/* typeof(TYPE) is TYPE; typeof(expr) its type, a number's
			 * only (n->c, sema.c), which no cast changes */
			bool is_type = type_ahead(l->p + 1, &len);

			next(l);
			next(l);
			if (is_type)
				type = text_until(l, rparen, 1);
			else
				n->c = parse_expr(l);
			if ((is_type ? !type : !n->c) || !expect(l, T_RPAREN, NULL))
				goto fail;
		} else {
			type = text_until(l, stop, ARRAY_SIZE(stop));
		}
		if (!n->c && (!type || !*type)) {
			lerr(l, tline, tcol, "expected a type after ':'");
			goto fail;
		}
		if (type && !lang_int_type(type, &bits, &sign)) {
			lerr(l, tline, tcol, "let %s: %s: a declared type other than an integer "
			     "type (int8 ... uint64) is not in ftr yet", v->sval, type);
			goto fail;
		}
	}
	if (accept(l, T_ASSIGN)) {
		n->b = parse_expr(l);
		if (!n->b)
			goto fail;
	} else {
		n->b = mk(l, N_INT, line, col);
		if (!n->b)
			goto fail;
	}
	if (type) {
		struct node *c = mk(l, N_CAST, tline, tcol);

		if (!c)
			goto fail;
		c->sval = type;
		c->a = n->b;
		n->b = c;
	}
	return n;
fail:
	free(type);
	node_free(n);
	return NULL;
}
