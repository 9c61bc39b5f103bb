// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A program's top level besides its clauses, which lang_parse() (parser.c)
 * reads in any order: C definitions kept as text for ctypes.c, bpftrace's
 * config = { ... } block, map declarations (let @m = hash(N)) and macros,
 * with their expansion into the clauses once all are read (parameters
 * replaced, the macro's own variables renamed per expansion).  The lexer
 * and the parser's steps it uses are parser.c's (parse-int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftr.h"
#include "lang/maps/agg.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"
#include "lang/parse/parse-int.h"

/* macro NAME(x, $v, @m) { ... }: kept until the clauses are read. */
struct macro {
	char *name;
	char **params;		/* "x", "$v", "@m" */
	int nparams;
	struct node *body;	/* an N_BLOCK */
	int line, col;
};

/* Past white space and comments at p. */
static const char *skip_blank(const char *p)
{
	for (;;) {
		if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		else if (p[0] == '/' && p[1] == '*' && strstr(p + 2, "*/"))
			p = strstr(p + 2, "*/") + 2;
		else
			return p;
	}
}

/* After a struct's '}': past the __attribute__((...)) that follow it
 * (packed, aligned: ctypes.c reads them), or p itself when none does. */
static const char *attributes(const char *p)
{
	const char *t = skip_blank(p), *end = p;

	while (str_has_prefix(t, "__attribute__") && !ident_char(t[13])) {
		int depth = 0;

		t = skip_blank(t + 13);
		if (*t != '(')
			break;
		for (; *t; t++) {
			depth += (*t == '(') - (*t == ')');
			if (!depth)
				break;
		}
		if (!*t)
			break;
		end = ++t;
		t = skip_blank(t);
	}
	return end;
}

/* A C definition at the top level: struct/union/enum NAME {...}; or a
 * typedef, kept as text for ctypes.c, up to its ';' outside braces. */
bool definition(struct lexer *l, struct program *out)
{
	static const char *const kw[] = { "struct", "union", "enum", "typedef" };
	const char *s = l->p, *e = s;
	struct cdecl *v;
	int depth = 0;
	bool is = false;

	for (size_t i = 0; i < ARRAY_SIZE(kw); i++)
		if (str_has_prefix(s, kw[i]) && !ident_char(s[strlen(kw[i])]))
			is = true;
	if (!is)
		return false;
	for (; *e && !(*e == ';' && !depth); e++) {
		depth += (*e == '{') - (*e == '}');
		if (*e == '\n') {
			l->line++;
			l->line_start = e + 1;
		}
		/* bpftrace ends a struct at its '}' without a ';' (a typedef
		 * has its name after the brace: it needs the ';') */
		if (*e == '}' && !depth && strncmp(s, "typedef", 7)) {
			const char *t = attributes(e + 1);

			/* its __attribute__((...)) too */
			for (; e + 1 < t; e++)
				if (e[1] == '\n') {
					l->line++;
					l->line_start = e + 2;
				}
			t += strspn(t, " \t\r\n");
			if (*t != ';') {
				e++;
				break;
			}
		}
	}
	v = realloc(out->decls, (out->ndecls + 1) * sizeof(*v));
	if (!v) {
		lerr(l, l->line, 1, "out of memory");
		return true;
	}
	out->decls = v;
	v += out->ndecls++;
	v->line = l->tline;
	v->col = l->tcol;
	if (*e == ';') {
		v->text = strndup(s, e - s + 1);
		l->p = e + 1;
	} else if (e > s && (e[-1] == '}' || e[-1] == ')')) {	/* '}' or its attribute's */
		v->text = malloc(e - s + 2);
		if (v->text)
			sprintf(v->text, "%.*s;", (int)(e - s), s);
		l->p = e;
	} else {
		v->text = strndup(s, e - s);
		lerr(l, v->line, v->col, "expected ';' to end the definition");
		l->p = e;
	}
	return true;
}

int lang_stack_mode(const char *name)
{
	static const char *const modes[] = {
		[LANG_STACK_BPFTRACE] = "bpftrace", [LANG_STACK_PERF] = "perf",
		[LANG_STACK_RAW] = "raw", [LANG_STACK_BUILD_ID] = "build_id",
	};

	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(name, modes[i]))
			return (int)i;
	return -1;
}

/* config = { NAME = VALUE; ... }: bpftrace's settings.  The ones that shape
 * only a BPF program (its stack, its license, its buffers) change nothing
 * in ftr; the ones that would change what ftr prints are done or refused. */
static void config_item(struct lexer *l, struct program *out, const char *key, const char *val,
			int line, int col)
{
	static const char *const licenses[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
		"Dual MPL/GPL",
	};
	static const char *const no_effect[] = {
		"on_stack_limit", "log_size", "perf_rb_pages", "max_bpf_progs", "max_probes",
		"cache_user_symbols", "lazy_symbolication", "max_type_res_iterations",
	};
	char k[64];
	size_t i;

	snprintf(k, sizeof(k), "%s", key);
	for (i = 0; k[i]; i++)
		k[i] = (char)(k[i] >= 'A' && k[i] <= 'Z' ? k[i] - 'A' + 'a' : k[i]);
	if (str_has_prefix(k, "bpftrace_"))
		memmove(k, k + 9, strlen(k + 9) + 1);
	for (i = 0; i < ARRAY_SIZE(no_effect); i++)
		if (!strcmp(k, no_effect[i]))
			return;
	if (str_has_prefix(k, "unstable_")) {
		/* feature gates (enable, warn, error): ftr has no gates */
		return;
	}
	if (!strcmp(k, "license")) {
		for (i = 0; i < ARRAY_SIZE(licenses); i++)
			if (!strcmp(val, licenses[i]))
				return;
		lerr(l, line, col, "Invalid value for license. Found: %s. Valid values: Dual MIT/GPL, "
		     "Dual BSD/GPL, Dual MPL/GPL, GPL and additional rights, GPL v2, GPL", val);
		return;
	}
	if (!strcmp(k, "missing_probes")) {
		static const char *const modes[] = {
			[LANG_MISSING_ERROR] = "error", [LANG_MISSING_WARN] = "warn",
			[LANG_MISSING_IGNORE] = "ignore",
		};

		for (i = 0; i < ARRAY_SIZE(modes); i++)
			if (!strcmp(val, modes[i])) {
				out->missing_probes = i;
				return;
			}
		lerr(l, line, col, "missing_probes: expected error, warn or ignore, found '%s'",
		     val);
		return;
	}
	if (!strcmp(k, "print_maps_on_exit") || !strcmp(k, "show_debug_info")) {
		bool *no = k[0] == 'p' ? &out->no_print_maps : &out->no_debug_info;

		if (!strcmp(val, "0") || !strcmp(val, "false"))
			*no = true;
		else if (!strcmp(val, "1") || !strcmp(val, "true"))
			*no = false;
		else
			lerr(l, line, col, "%s: expected true or false, found '%s'", k, val);
		return;
	}
	if (!strcmp(k, "stack_mode")) {
		int mode = lang_stack_mode(val);

		if (mode < 0)
			lerr(l, line, col, "stack_mode: expected bpftrace, perf, raw or build_id, "
			     "found '%s'", val);
		else
			out->stack_mode = 1 + mode;
		return;
	}
	if (!strcmp(k, "max_strlen") ||
	    !strcmp(k, "max_map_keys") || !strcmp(k, "cpp_demangle") ||
	    !strcmp(k, "str_trunc_trailer") ||
	    !strcmp(k, "max_cat_bytes") || !strcmp(k, "max_ast_nodes")) {
		lerr(l, line, col, "config %s = %s is not in ftr yet", key, val);
		return;
	}
	lerr(l, line, col, "%s: not a known configuration option", key);
}

bool config_block(struct lexer *l, struct program *out)
{
	if (!word_at(l->p, "config"))
		return false;
	next(l);
	next(l);
	if (!expect(l, T_ASSIGN, "after 'config'") || !expect(l, T_LBRACE, "after 'config ='"))
		return true;
	while (!l->failed && l->t != T_RBRACE) {
		int line = l->tline, col = l->tcol;
		char key[64], val[256];

		if (accept(l, T_SEMI))
			continue;
		if (l->t != T_IDENT) {
			lerr(l, line, col, "expected a setting's name, found %s", lang_tok_str(l->t));
			return true;
		}
		snprintf(key, sizeof(key), "%s", l->sval);
		next(l);
		if (!expect(l, T_ASSIGN, "after a setting's name"))
			return true;
		if (l->t == T_INT)
			snprintf(val, sizeof(val), "%lld", (long long)l->ival);
		else if (l->t == T_STR || l->t == T_IDENT)
			snprintf(val, sizeof(val), "%s", l->sval);
		else {
			lerr(l, l->tline, l->tcol, "expected a value for %s, found %s", key,
			     lang_tok_str(l->t));
			return true;
		}
		next(l);
		config_item(l, out, key, val, line, col);
		if (l->t != T_SEMI && l->t != T_RBRACE)
			lerr(l, l->tline, l->tcol, "expected ';' or '}' in config, found %s",
			     lang_tok_str(l->t));
	}
	next(l);
	unread(l);
	return true;
}

/* macro NAME(x, $v, @m) { ... } before, between or after the clauses. */
bool macro_def(struct lexer *l)
{
	struct macro m = { 0 }, *v;

	if (!word_at(l->p, "macro"))
		return false;
	next(l);
	next(l);
	m.line = l->tline;
	m.col = l->tcol;
	if (l->t != T_IDENT) {
		lerr(l, l->tline, l->tcol, "expected a macro's name, found %s", lang_tok_str(l->t));
		return true;
	}
	m.name = l->sval;
	l->sval = NULL;
	next(l);
	if (!expect(l, T_LPAREN, "after the macro's name"))
		goto fail;
	while (!l->failed && l->t != T_RPAREN) {
		char **p;

		if (m.nparams && !expect(l, T_COMMA, "between a macro's parameters"))
			goto fail;
		if (l->t != T_IDENT && l->t != T_VAR && l->t != T_MAP) {
			lerr(l, l->tline, l->tcol, "a macro's parameter is a name, a $variable or "
			     "a @map, not %s", lang_tok_str(l->t));
			goto fail;
		}
		p = realloc(m.params, (m.nparams + 1) * sizeof(*p));
		if (!p) {
			lerr(l, l->tline, l->tcol, "out of memory");
			goto fail;
		}
		m.params = p;
		m.params[m.nparams++] = l->sval;
		l->sval = NULL;
		next(l);
	}
	if (!expect(l, T_RPAREN, NULL))
		goto fail;
	m.body = mk(l, N_BLOCK, l->tline, l->tcol);
	if (!m.body || l->t != T_LBRACE) {
		lerr(l, l->tline, l->tcol, "expected '{' to open the macro's body, found %s",
		     lang_tok_str(l->t));
		goto fail;
	}
	m.body->a = block_ex(l, &m.body->b);
	if (l->failed)
		goto fail;
	for (int i = 0; i < l->nmacros; i++)
		if (!strcmp(l->macros[i].name, m.name)) {
			lerr(l, m.line, m.col, "macro %s is defined twice (first at %d:%d)", m.name,
			     l->macros[i].line, l->macros[i].col);
			goto fail;
		}
	v = realloc(l->macros, (l->nmacros + 1) * sizeof(*v));
	if (!v) {
		lerr(l, m.line, m.col, "out of memory");
		goto fail;
	}
	l->macros = v;
	v[l->nmacros++] = m;
	unread(l);
	return true;
fail:
	free(m.name);
	for (int i = 0; i < m.nparams; i++)
		free(m.params[i]);
	free(m.params);
	node_free(m.body);
	return true;
}

void macros_free(struct lexer *l)
{
	for (int i = 0; i < l->nmacros; i++) {
		free(l->macros[i].name);
		for (int j = 0; j < l->macros[i].nparams; j++)
			free(l->macros[i].params[j]);
		free(l->macros[i].params);
		node_free(l->macros[i].body);
	}
	free(l->macros);
}

/* A deep copy of n (and of the statements after it when list). */
struct node *node_copy(struct lexer *l, const struct node *n, bool list)
{
	struct node *c, *head = NULL, **tail = &head;

	for (; n; n = list ? n->next : NULL) {
		c = malloc(sizeof(*c));
		if (!c) {
			lerr(l, n->line, n->col, "out of memory");
			node_free(head);
			return NULL;
		}
		*c = *n;
		c->next = NULL;
		c->a = c->b = c->c = NULL;
		c->args = NULL;
		c->nargs = 0;
		c->bind = NULL;
		c->sval = n->sval ? strdup(n->sval) : NULL;
		c->tsig = n->tsig ? strdup(n->tsig) : NULL;
		*tail = c;
		tail = &c->next;
		if ((n->sval && !c->sval) || (n->tsig && !c->tsig) ||
		    (n->a && !(c->a = node_copy(l, n->a, true))) ||
		    (n->b && !(c->b = node_copy(l, n->b, true))) ||
		    (n->c && !(c->c = node_copy(l, n->c, true)))) {
			lerr(l, n->line, n->col, "out of memory");
			node_free(head);
			return NULL;
		}
		for (int i = 0; i < n->nargs; i++)
			if (!push_arg(l, c, node_copy(l, n->args[i], false))) {
				node_free(head);
				return NULL;
			}
	}
	return head;
}

static bool is_bare(const struct node *n, const char *name)
{
	return ((n->k == N_CALL && n->idx == BARE_NAME) || n->k == N_BUILTIN) && n->sval &&
	       !strcmp(n->sval, name);
}

/*
 * A macro's body for one call: its parameters replaced by the arguments
 * (x by a copy of the expression, $v and @m by the caller's variable and
 * map), its own variables renamed so that they meet none of the caller's
 * (hygiene, as bpftrace's).  Walks n and what follows it; *np may change.
 */
static bool subst(struct lexer *l, struct node **np, const struct macro *m,
		  struct node *const *args, int tag)
{
	for (; *np && !l->failed; np = &(*np)->next) {
		struct node *n = *np;

		for (int i = 0; i < m->nparams; i++) {
			const char *p = m->params[i];

			if (p[0] != '$' && p[0] != '@' && is_bare(n, p) && !n->nargs) {
				struct node *c = node_copy(l, args[i], false);

				if (!c)
					return false;
				c->next = n->next;
				n->next = NULL;
				node_free(n);
				*np = n = c;
				goto next;	/* the argument is the caller's: as it is */
			}
			if ((n->k == N_VAR && p[0] == '$') || (n->k == N_MAP && p[0] == '@'))
				if (!strcmp(n->sval, p)) {
					free(n->sval);
					n->sval = strdup(args[i]->sval);
					if (!n->sval) {
						lerr(l, n->line, n->col, "out of memory");
						return false;
					}
					goto children;
				}
		}
		if (n->k == N_VAR) {
			char *r;

			if (asprintf(&r, "%s.%s.%d", n->sval, m->name, tag) < 0) {
				lerr(l, n->line, n->col, "out of memory");
				return false;
			}
			free(n->sval);
			n->sval = r;
		}
children:
		if (!subst(l, &n->a, m, args, tag) || !subst(l, &n->b, m, args, tag) ||
		    !subst(l, &n->c, m, args, tag))
			return false;
		for (int i = 0; i < n->nargs; i++)
			if (!subst(l, &n->args[i], m, args, tag))
				return false;
next:
		;
	}
	return !l->failed;
}

/* The call n of macro m, as an N_BLOCK: *np replaced. */
/* errorf()/warnf() in a macro's body: bpftrace's diagnostic then names the
 * place the macro was expanded from, with its source line; ftr's carries
 * the body's place only, so such a call is refused rather than printed
 * short of what bpftrace prints (call.errorf_macro_expansion). */
static const struct node *diag_call(const struct node *n)
{
	const struct node *f = NULL;

	for (; n && !f; n = n->next) {
		if (n->k == N_CALL && n->sval &&
		    (!strcmp(n->sval, "errorf") || !strcmp(n->sval, "warnf")))
			return n;
		if (!(f = diag_call(n->a)) && !(f = diag_call(n->b)))
			f = diag_call(n->c);
		for (int i = 0; !f && n->args && i < n->nargs; i++)
			f = diag_call(n->args[i]);
	}
	return f;
}

static bool expand_call(struct lexer *l, struct node **np, const struct macro *m, int depth)
{
	struct node *n = *np, *b;
	int argn;

	if (n->nargs != m->nparams && lang_builtin(m->name, &argn) >= 0)
		return true;	/* cpu(): the builtin, where macro cpu(x) takes one */
	if (n->nargs != m->nparams) {
		lerr(l, n->line, n->col, "macro %s takes %d argument%s, not %d", m->name, m->nparams,
		     m->nparams == 1 ? "" : "s", n->nargs);
		return false;
	}
	for (int i = 0; i < m->nparams; i++) {
		const char *p = m->params[i];
		const struct node *a = n->args[i];

		if ((p[0] == '$' && a->k != N_VAR) || (p[0] == '@' && (a->k != N_MAP || a->nargs))) {
			lerr(l, a->line, a->col, "macro %s's parameter %s takes a %s", m->name, p,
			     p[0] == '$' ? "$variable" : "@map (without keys)");
			return false;
		}
	}
	if (depth > 32) {
		lerr(l, n->line, n->col, "macro %s: macros call each other more than 32 deep "
		     "(a macro calling itself never ends)", m->name);
		return false;
	}
	{
		const struct node *d = diag_call(m->body);

		if (d) {
			lerr(l, d->line, d->col, "%s() in macro %s: ftr cannot yet say where the "
			     "macro was expanded from, as bpftrace's message does; call it outside "
			     "the macro", d->sval, m->name);
			return false;
		}
	}
	b = node_copy(l, m->body, false);
	if (!b)
		return false;
	b->line = n->line;
	b->col = n->col;
	if (!subst(l, &b->a, m, n->args, ++l->expansions) ||
	    !subst(l, &b->b, m, n->args, l->expansions) || !expand(l, &b->a, depth + 1) ||
	    !expand(l, &b->b, depth + 1)) {
		node_free(b);
		return false;
	}
	if (!b->a && b->b) {
		/* a macro that is an expression: that expression, as written
		 * in place of the call (printf(fmt()) takes its literal) */
		struct node *v = b->b;

		b->b = NULL;
		node_free(b);
		b = v;
	}
	b->next = n->next;
	n->next = NULL;
	node_free(n);
	*np = b;
	return true;
}

/* Every macro call in n and what follows it expanded; a bare name that
 * is no macro is an unknown name. */
bool expand(struct lexer *l, struct node **np, int depth)
{
	for (; *np && !l->failed; np = &(*np)->next) {
		struct node *n = *np;

		if (!expand(l, &n->a, depth) || !expand(l, &n->b, depth) ||
		    !expand(l, &n->c, depth))
			return false;
		for (int i = 0; i < n->nargs; i++)
			if (!expand(l, &n->args[i], depth))
				return false;
		if (n->k != N_CALL)
			continue;
		for (int i = 0; i < l->nmacros; i++)
			if (!strcmp(l->macros[i].name, n->sval)) {
				if (!expand_call(l, np, &l->macros[i], depth))
					return false;
				n = NULL;
				break;
			}
		if (n && n->idx == BARE_NAME) {
			lerr(l, n->line, n->col, "unknown name '%s' (builtins: %s; fields are "
			     "args.NAME)", n->sval, lang_builtin_names());
			return false;
		}
	}
	return true;
}

/* let @m = hash(N); (lruhash, percpuhash, percpulruhash) before the probes. */
bool map_decl(struct lexer *l, struct program *out)
{
	static const char *const types[] = {
		[LM_HASH] = "hash", [LM_LRUHASH] = "lruhash", [LM_PERCPUHASH] = "percpuhash",
		[LM_PERCPULRUHASH] = "percpulruhash",
	};
	struct lang_mapdecl d = { 0 }, *v;
	size_t i;

	if (!word_at(l->p, "let"))
		return false;
	next(l);
	next(l);
	if (l->t != T_MAP) {
		lerr(l, l->tline, l->tcol, "expected a @map after 'let' (a $variable is declared "
		     "in a probe's block)");
		return true;
	}
	d.line = l->tline;
	d.col = l->tcol;
	d.name = l->sval;
	l->sval = NULL;
	next(l);
	if (!expect(l, T_ASSIGN, "in a map declaration"))
		goto fail;
	for (i = 0; l->t == T_IDENT && i < ARRAY_SIZE(types); i++)
		if (!strcmp(l->sval, types[i]))
			break;
	if (l->t != T_IDENT || i == ARRAY_SIZE(types)) {
		lerr(l, l->tline, l->tcol, "expected a map type (hash, lruhash, percpuhash, "
		     "percpulruhash) in the declaration of %s", d.name);
		goto fail;
	}
	d.type = (enum lang_map_type)i;
	next(l);
	if (!expect(l, T_LPAREN, NULL))
		goto fail;
	if (l->t != T_INT || l->ival < 1 || l->ival > AGG_MAX_SIZE) {
		lerr(l, l->tline, l->tcol, "%s(N): N is how many keys %s holds, 1 to %u",
		     types[d.type], d.name, AGG_MAX_SIZE);
		goto fail;
	}
	d.max = (uint32_t)l->ival;
	next(l);
	if (!expect(l, T_RPAREN, NULL) || !expect(l, T_SEMI, "after a map declaration"))
		goto fail;
	for (int j = 0; j < out->nmdecls; j++)
		if (!strcmp(out->mdecls[j].name, d.name)) {
			lerr(l, d.line, d.col, "%s is declared twice (first at %d:%d)", d.name,
			     out->mdecls[j].line, out->mdecls[j].col);
			goto fail;
		}
	v = realloc(out->mdecls, (out->nmdecls + 1) * sizeof(*v));
	if (!v) {
		lerr(l, d.line, d.col, "out of memory");
		goto fail;
	}
	out->mdecls = v;
	v[out->nmdecls++] = d;
	unread(l);
	return true;
fail:
	free(d.name);
	return true;
}
