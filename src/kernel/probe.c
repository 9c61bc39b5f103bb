// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Dynamic probes: spec parsing, argument translation, uprobe symbol
 * resolution, tracepoint suggestions where kprobes are missing, and creation
 * through the session.  See probe.h.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <dirent.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "kernel/arch.h"
#include "report/elfsym.h"
#include "report/ldcache.h"
#include "kernel/features.h"
#include "kernel/kallsyms.h"
#include "kernel/pglob.h"
#include "ftr.h"
#include "kernel/probe.h"
#include "kernel/ftrace.h"
#include "kernel/session.h"

_Static_assert(PROBE_MAX_ARGN == ARCH_MAX_ARG, "probe.h and arch.h disagree on argN");

/* ---- small helpers ------------------------------------------------------------- */

static int fail(struct probe_error *err, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct probe_error *err, int pos, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->pos = pos;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void set_why(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_why(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

const char *probe_kind_name(enum probe_kind k)
{
	switch (k) {
	case PROBE_KPROBE: return "kprobe";
	case PROBE_KRETPROBE: return "kretprobe";
	case PROBE_UPROBE: return "uprobe";
	case PROBE_URETPROBE: return "uretprobe";
	}
	return "?";
}

bool probe_kind_is_return(enum probe_kind k)
{
	return k == PROBE_KRETPROBE || k == PROBE_URETPROBE;
}

bool probe_kind_is_user(enum probe_kind k)
{
	return k == PROBE_UPROBE || k == PROBE_URETPROBE;
}

/* Unsigned number: decimal, or 0x hex.  Whole string.  0 / -1. */
static int parse_num(const char *s, size_t n, unsigned long long *v)
{
	char buf[32], *end;

	if (n == 0 || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &end, buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X') ? 16 : 10);
	return errno || *end ? -1 : 0;
}

/* ---- parsing -------------------------------------------------------------------- */

/* A token: a run of non-blank characters; blanks inside "..." do not end
 * it.  Offsets into the spec text. */
struct tok {
	int start, len;
};

static int tokenize(const char *text, struct tok *toks, int max, int *n, struct probe_error *err)
{
	const char *p = text;

	*n = 0;
	for (;;) {
		bool quoted = false;
		const char *s;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			return 0;
		s = p;
		while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n'))) {
			/* Every '"' counts, the kernel's \"imm-string" too. */
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		if (quoted)
			return fail(err, (int)(s - text), "unterminated '\"'");
		if (*n == max)
			return fail(err, (int)(s - text), "too many fields (at most %d)",
				    PROBE_MAX_ARGS);
		toks[*n].start = (int)(s - text);
		toks[*n].len = (int)(p - s);
		(*n)++;
	}
}

static bool is_ident(const char *s, size_t n)
{
	if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return false;
	return true;
}

/* Kernel symbols: letters, digits, '_' and '.' ("foo.isra.0", "foo.cold"). */
static int check_ksym(const char *s, size_t n, int pos, const char *what, struct probe_error *err)
{
	if (n == 0)
		return fail(err, pos, "missing %s", what);
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return fail(err, pos, "%s '%.*s' must start with a letter or '_'", what, (int)n, s);
	for (size_t i = 0; i < n; i++) {
		if (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.')
			continue;
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return fail(err, pos + (int)i, "wildcards are not supported: name one "
				    "function per probe");
		return fail(err, pos + (int)i, "invalid character '%c' in %s '%.*s'", s[i], what,
			    (int)n, s);
	}
	return 0;
}

static const char *const types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
	"x8", "x16", "x32", "x64", "string", "ustring",
};

static bool is_string_type(const char *t)
{
	return !strcmp(t, "string") || !strcmp(t, "ustring");
}

/* "[MOD:]FUNC[+OFF]" for kprobes. */
static int parse_kplace(int pos, const char *s, size_t n, struct probe_spec *p,
			struct probe_error *err)
{
	const char *colon = memchr(s, ':', n), *plus;
	size_t fn;
	int ret;

	if (n == 0)
		return fail(err, pos, "missing function name after '%s:'", probe_kind_name(p->kind));
	if (colon) {
		size_t mn = (size_t)(colon - s);

		ret = check_ksym(s, mn, pos, "module name", err);
		if (ret)
			return ret;
		if (mn >= sizeof(p->module))
			return fail(err, pos, "module name too long");
		memcpy(p->module, s, mn);
		p->module[mn] = '\0';
		pos += (int)mn + 1;
		n -= mn + 1;
		s = colon + 1;
		if (n == 0)
			return fail(err, pos, "missing function name after '%s:'", p->module);
	}
	plus = memchr(s, '+', n);
	fn = plus ? (size_t)(plus - s) : n;
	p->pos_symbol = pos;
	ret = check_ksym(s, fn, pos, "function name", err);
	if (ret)
		return ret;
	if (fn >= sizeof(p->symbol))
		return fail(err, pos, "function name too long");
	memcpy(p->symbol, s, fn);
	p->symbol[fn] = '\0';
	if (plus && parse_num(plus + 1, n - fn - 1, &p->offset) < 0)
		return fail(err, pos + (int)fn + 1, "bad offset '%.*s': expected a number "
			    "(decimal or 0x hex)", (int)(n - fn - 1), plus + 1);
	return 0;
}

/* Does a token look like the rest of a path cut at a space ("prog:main"),
 * rather than a field ("arg0:u32", "x=arg0")? */
static bool path_rest(const char *s, size_t n)
{
	if (!memchr(s, ':', n) || memchr(s, '=', n))
		return false;
	return !(n > 3 && !strncmp(s, "arg", 3) && isdigit((unsigned char)s[3])) &&
	       strncmp(s, "retval:", 7) && strncmp(s, "comm:", 5);
}

/* "PATH:SYMBOL[+OFF]" or "PATH:ADDR" for uprobes; s is the unquoted token
 * and map[i] the text position of s[i]; split_path: the next token looks
 * like the rest of a path that had a space. */
static int parse_uplace(const char *s, const int *map, int endpos, bool split_path,
			struct probe_spec *p, struct probe_error *err)
{
	const char *colon = strchr(s, ':'), *sym, *plus;
	size_t pn, sn, n = strlen(s);

	if (n == 0)
		return fail(err, endpos, "missing PATH:SYMBOL after '%s:'", probe_kind_name(p->kind));
	if (!colon) {
		if (split_path)
			return fail(err, endpos, "a path containing a space cannot be probed: the "
				    "kernel's probe command is space-separated");
		return fail(err, endpos, "missing ':SYMBOL' after the path: expected %s:PATH:SYMBOL",
			    probe_kind_name(p->kind));
	}
	pn = (size_t)(colon - s);
	if (pn == 0)
		return fail(err, map[0], "missing path before ':': expected %s:PATH:SYMBOL",
			    probe_kind_name(p->kind));
	for (size_t i = 0; i < pn; i++) {
		if (isspace((unsigned char)s[i]))
			return fail(err, map[i], "path '%.*s' contains a space: the kernel's probe "
				    "command is space-separated, so it cannot be probed (probe a "
				    "hard link or a copy without spaces)", (int)pn, s);
	}
	if (pn >= sizeof(p->path))
		return fail(err, map[0], "path too long");
	memcpy(p->path, s, pn);
	p->path[pn] = '\0';
	p->pos_path = map[0];

	sym = colon + 1;
	sn = n - pn - 1;
	p->pos_symbol = sn ? map[pn + 1] : endpos;
	if (sn == 0)
		return fail(err, endpos, "missing symbol after '%s:'", p->path);
	if (isdigit((unsigned char)sym[0])) {
		if (parse_num(sym, sn, &p->addr) < 0)
			return fail(err, p->pos_symbol, "bad address '%s': expected a symbol, or a "
				    "number (decimal or 0x hex)", sym);
		p->has_addr = true;
		return 0;
	}
	plus = strchr(sym, '+');
	sn = plus ? (size_t)(plus - sym) : sn;
	for (size_t i = 0; i < sn; i++) {
		char c = sym[i];

		if (isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '@')
			continue;
		if (c == ':')
			return fail(err, map[pn + 1 + i], "invalid character ':' in symbol '%.*s' "
				    "(a path containing ':' cannot be probed: the kernel splits "
				    "PATH:OFFSET at ':')", (int)sn, sym);
		if (c == '*' || c == '?' || c == '[')
			return fail(err, map[pn + 1 + i], "wildcards are not supported: name one "
				    "function per probe");
		return fail(err, map[pn + 1 + i], "invalid character '%c' in symbol '%.*s'", c,
			    (int)sn, sym);
	}
	if (sn >= sizeof(p->symbol))
		return fail(err, p->pos_symbol, "symbol name too long");
	memcpy(p->symbol, sym, sn);
	p->symbol[sn] = '\0';
	if (plus && parse_num(plus + 1, strlen(plus + 1), &p->offset) < 0)
		return fail(err, map[pn + 1 + sn + 1], "bad offset '%s': expected a number "
			    "(decimal or 0x hex)", plus + 1);
	return 0;
}

static int parse_arg(const char *text, const struct tok *t, struct probe_spec *p,
		     struct probe_error *err)
{
	const char *s = text + t->start, *eq, *f, *colon;
	struct probe_arg *a = &p->args[p->nargs];
	size_t n = (size_t)t->len, fn, nn = 0;
	int fpos;

	memset(a, 0, sizeof(*a));
	a->pos = t->start;
	eq = memchr(s, '=', n);
	if (eq) {
		nn = (size_t)(eq - s);
		if (nn == 0)
			return fail(err, t->start, "missing field name before '='");
		if (!is_ident(s, nn))
			return fail(err, t->start, "bad field name '%.*s': letters, digits and '_', "
				    "not starting with a digit", (int)nn, s);
		if (nn >= sizeof(a->name))
			return fail(err, t->start, "field name '%.*s' too long (at most %d)",
				    (int)nn, s, PROBE_NAME_MAX - 1);
		if (!strncmp(s, "common_", 7) || !strncmp(s, "__probe_", 8))
			return fail(err, t->start, "field name '%.*s' is reserved by the kernel",
				    (int)nn, s);
		memcpy(a->name, s, nn);
		a->name[nn] = '\0';
		f = eq + 1;
		fn = n - nn - 1;
		fpos = t->start + (int)nn + 1;
		if (fn == 0)
			return fail(err, fpos, "missing value after '%s=': expected argN, retval, "
				    "comm or a kernel fetcharg", a->name);
	} else {
		f = s;
		fn = n;
		fpos = t->start;
	}

	/* The type follows the last ':' (a raw fetcharg may hold none). */
	colon = NULL;
	for (size_t i = fn; i > 0; i--) {
		if (f[i - 1] == ':') {
			colon = f + i - 1;
			break;
		}
	}
	if (colon) {
		size_t tn = fn - (size_t)(colon - f) - 1;
		bool known = false;

		if (tn == 0)
			return fail(err, fpos + (int)(colon - f) + 1, "missing type after ':'");
		const char *br = memchr(colon + 1, '[', tn);
		/* TYPE[N]: an array of N numbers (4.20; N <= MAX_ARRAY_LEN) */
		size_t bn = br ? (size_t)(br - colon - 1) : tn;
		unsigned long long cnt = 0;

		for (size_t i = 0; i < ARRAY_SIZE(types) - (br ? 2 : 0); i++)
			if (strlen(types[i]) == bn && !strncmp(colon + 1, types[i], bn))
				known = true;
		if (br && (colon[tn] != ']' || parse_num(br + 1, tn - bn - 2, &cnt) < 0 ||
			   cnt < 1 || cnt > 64))
			known = false;
		if (!known || tn >= sizeof(a->type))
			return fail(err, fpos + (int)(colon - f) + 1, "unknown type '%.*s': "
				    "expected u8..u64, s8..s64, x8..x64 (or an array of 1 to 64 of "
				    "them, u8[16]), string or ustring", (int)tn, colon + 1);
		memcpy(a->type, colon + 1, tn);
		a->type[tn] = '\0';
		fn = (size_t)(colon - f);
		if (fn == 0)
			return fail(err, fpos, "missing value before ':%s'", a->type);
	}

	if (fn > 3 && !strncmp(f, "arg", 3) && isdigit((unsigned char)f[3])) {
		unsigned long long idx;

		if (parse_num(f + 3, fn - 3, &idx) < 0 || (f[3] == '0' && fn > 4))
			return fail(err, fpos, "bad argument '%.*s': expected arg0, arg1, ...",
				    (int)fn, f);
		if (idx > PROBE_MAX_ARGN)
			return fail(err, fpos, "argument index out of range: '%.*s' (ftr reads "
				    "arg0..arg%d; arg0 is the first)", (int)fn, f, PROBE_MAX_ARGN);
		if (probe_kind_is_return(p->kind))
			return fail(err, fpos, "'%.*s' is not available in a %s: the arguments "
				    "are gone when the function returns (probe its entry with "
				    "%s:)", (int)fn, f, probe_kind_name(p->kind),
				    p->kind == PROBE_KRETPROBE ? "kprobe" : "uprobe");
		a->fetch = PF_ARG;
		a->idx = (unsigned)idx;
	} else if (fn == 6 && !strncmp(f, "retval", 6)) {
		if (!probe_kind_is_return(p->kind))
			return fail(err, fpos, "'retval' exists only in return probes (%s:)",
				    p->kind == PROBE_KPROBE ? "kretprobe" : "uretprobe");
		a->fetch = PF_RETVAL;
	} else if (fn == 4 && !strncmp(f, "comm", 4)) {
		if (a->type[0] && strcmp(a->type, "string"))
			return fail(err, fpos, "'comm' is a string: type '%s' does not fit it",
				    a->type);
		a->fetch = PF_COMM;
	} else if (strchr("%$@+-\\", f[0])) {
		if (!eq)
			return fail(err, fpos, "a kernel fetcharg needs a field name: NAME=%.*s",
				    (int)fn, f);
		if (fn >= sizeof(a->raw))
			return fail(err, fpos, "fetcharg too long");
		memcpy(a->raw, f, fn);
		a->raw[fn] = '\0';
		a->fetch = PF_RAW;
	} else {
		return fail(err, fpos, "unknown value '%.*s': expected argN, retval, comm or a "
			    "kernel fetcharg (%%REG, $stackN, @SYM, +OFF(...))", (int)fn, f);
	}
	if (!eq) {
		memcpy(a->name, f, fn);
		a->name[fn] = '\0';
	}
	for (int i = 0; i < p->nargs; i++)
		if (!strcmp(p->args[i].name, a->name))
			return fail(err, t->start, "field '%s' is given twice", a->name);
	p->nargs++;
	return 0;
}

int probe_parse(const char *text, struct probe_spec *p, struct probe_error *err)
{
	static const struct {
		const char *name;
		enum probe_kind kind;
	} kinds[] = {
		{ "kprobe", PROBE_KPROBE }, { "k", PROBE_KPROBE },
		{ "kretprobe", PROBE_KRETPROBE }, { "kr", PROBE_KRETPROBE },
		{ "uprobe", PROBE_UPROBE }, { "u", PROBE_UPROBE },
		{ "uretprobe", PROBE_URETPROBE }, { "ur", PROBE_URETPROBE },
	};
	struct tok toks[PROBE_MAX_ARGS + 1];
	const char *s, *colon;
	int ntok, ret, kn, *map = NULL;
	char *loc = NULL;
	bool found = false;

	memset(p, 0, sizeof(*p));
	if (err) {
		err->pos = -1;
		err->msg[0] = '\0';
	}
	if (!text)
		return fail(err, -1, "no probe given");
	ret = tokenize(text, toks, (int)ARRAY_SIZE(toks), &ntok, err);
	if (ret)
		return ret;
	if (ntok == 0)
		return fail(err, 0, "empty probe: expected kprobe:FUNC or uprobe:PATH:SYMBOL");

	s = text + toks[0].start;
	colon = memchr(s, ':', (size_t)toks[0].len);
	kn = colon ? (int)(colon - s) : toks[0].len;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if ((int)strlen(kinds[i].name) == kn && !strncmp(s, kinds[i].name, (size_t)kn)) {
			p->kind = kinds[i].kind;
			found = true;
		}
	}
	if (!found)
		return fail(err, toks[0].start, "unknown probe type '%.*s': expected kprobe:, "
			    "kretprobe:, uprobe: or uretprobe:", kn, s);
	if (!colon)
		return fail(err, toks[0].start + kn, "expected ':' after '%.*s'", kn, s);

	if (!probe_kind_is_user(p->kind)) {
		ret = parse_kplace(toks[0].start + kn + 1, colon + 1,
				   (size_t)(toks[0].len - kn - 1), p, err);
		if (!ret && p->kind == PROBE_KRETPROBE && p->offset)
			ret = fail(err, p->pos_symbol, "a return probe goes on a function, not at "
				   "an offset in it");
	} else {
		/* Unquote, keeping each character's position in the text. */
		int n = toks[0].len - kn - 1, w = 0, start = toks[0].start + kn + 1;

		loc = malloc((size_t)n + 1);
		map = malloc(((size_t)n + 1) * sizeof(*map));
		if (!loc || !map) {
			free(loc);
			free(map);
			return fail(err, -1, "out of memory");
		}
		for (int i = 0; i < n; i++) {
			if (text[start + i] == '"')
				continue;
			map[w] = start + i;
			loc[w++] = text[start + i];
		}
		loc[w] = '\0';
		map[w] = start + n;
		ret = parse_uplace(loc, map, start + n,
				   ntok > 1 && path_rest(text + toks[1].start, (size_t)toks[1].len),
				   p, err);
		if (!ret && p->kind == PROBE_URETPROBE && (p->offset))
			ret = fail(err, p->pos_symbol, "a return probe goes on a function, not at "
				   "an offset in it");
		free(loc);
		free(map);
	}
	if (ret)
		return ret;
	for (int i = 1; i < ntok; i++) {
		ret = parse_arg(text, &toks[i], p, err);
		if (ret)
			return ret;
	}
	return 0;
}

void probe_perror(const char *text, const struct probe_error *err)
{
	ftr_err("bad probe '%s': %s", text ? text : "", err->msg);
	if (text && err->pos >= 0 && err->pos <= (int)strlen(text) && !strchr(text, '\n'))
		fprintf(stderr, "  %s\n  %*s^\n", text, err->pos, "");
}

/* ---- fetchargs ------------------------------------------------------------------ */

int probe_fetchargs(const struct probe_spec *p, const char *arch, unsigned probe_syntax,
		    char *out, size_t len, struct probe_error *err)
{
	bool user = probe_kind_is_user(p->kind), has_retval = false;
	size_t off = 0;

	out[0] = '\0';
	for (int i = 0; i < p->nargs; i++) {
		const struct probe_arg *a = &p->args[i];
		char fetch[300], wrapped[320];
		const char *type = a->type, *val = fetch;
		int ret;

		switch (a->fetch) {
		case PF_ARG:
			if (p->offset)
				return fail(err, a->pos, "'%s' is only known at the function's first "
					    "instruction, not at +%llu: name a register instead "
					    "(e.g. x=%%REG)", a->name, p->offset);
			if (!user && (probe_syntax & PS_ARGN)) {
				snprintf(fetch, sizeof(fetch), "$arg%u", a->idx + 1);
				break;
			}
			ret = arch_arg_fetch(arch, a->idx, fetch, sizeof(fetch));
			if (ret == -ENOTSUP)
				return fail(err, a->pos, "argument numbers need a register table for "
					    "'%s', which ftr lacks (it has x86_64, arm64 and arm)%s: name "
					    "a register or stack slot instead (NAME=%%REG)", arch,
					    user ? "" : " and this kernel has no $argN");
			if (ret)
				return fail(err, a->pos, "argument index out of range: arg%u",
					    a->idx);
			break;
		case PF_RETVAL:
			snprintf(fetch, sizeof(fetch), "$retval");
			has_retval = true;
			break;
		case PF_COMM:
			snprintf(fetch, sizeof(fetch), "$comm");
			break;
		case PF_RAW:
			snprintf(fetch, sizeof(fetch), "%s", a->raw);
			if (!strcmp(a->raw, "$retval"))
				has_retval = true;
			break;
		}
		if (!type[0])
			type = a->fetch == PF_ARG ? (sizeof(long) == 8 ? "u64" : "u32") :
			       a->fetch == PF_RETVAL ? (sizeof(long) == 8 ? "s64" : "s32") :
			       a->fetch == PF_COMM ? "string" : "";
		if (!strcmp(type, "ustring")) {
			/* uprobes read user memory anyway: plain string. */
			if (user)
				type = "string";
			else if (!(probe_syntax & PS_USTRING))
				return fail(err, a->pos, "this kernel's probes cannot read user-space "
					    "strings (no 'ustring' type)");
		}
		if (is_string_type(type) && (a->fetch == PF_ARG || a->fetch == PF_RETVAL)) {
			/* The value is a pointer: the string is where it points. */
			snprintf(wrapped, sizeof(wrapped), "+0(%s)", fetch);
			val = wrapped;
		}
		off += snprintf(out + off, off < len ? len - off : 0, "%s%s=%s%s%s", off ? " " : "",
				a->name, val, type[0] ? ":" : "", type);
		if (off >= len)
			return fail(err, a->pos, "too many fields: the probe command is too long");
	}
	if (probe_kind_is_return(p->kind) && !has_retval) {
		for (int i = 0; i < p->nargs; i++)
			if (!strcmp(p->args[i].name, "retval"))
				return fail(err, p->args[i].pos, "field name 'retval' is kept for "
					    "the return value in a %s", probe_kind_name(p->kind));
		off += snprintf(out + off, off < len ? len - off : 0, "%sretval=$retval:%s",
				off ? " " : "", sizeof(long) == 8 ? "s64" : "s32");
		if (off >= len)
			return fail(err, -1, "too many fields: the probe command is too long");
	}
	return 0;
}

bool probe_fetchargs_drop_retval(const struct probe_spec *p, char *fetchargs)
{
	const char *tail = sizeof(long) == 8 ? "retval=$retval:s64" : "retval=$retval:s32";
	size_t n = strlen(fetchargs), t = strlen(tail);

	if (!probe_kind_is_return(p->kind))
		return false;
	for (int i = 0; i < p->nargs; i++)
		if (p->args[i].fetch == PF_RETVAL ||
		    (p->args[i].fetch == PF_RAW && !strcmp(p->args[i].raw, "$retval")))
			return false;	/* the program's own: never dropped */
	if (n < t || strcmp(fetchargs + n - t, tail) || (n > t && fetchargs[n - t - 1] != ' '))
		return false;
	n -= t;
	fetchargs[n ? n - 1 : 0] = '\0';
	return true;
}

/* ---- event names ------------------------------------------------------------------ */

static bool name_taken(const char *name, const char *const *taken, size_t ntaken)
{
	for (size_t i = 0; i < ntaken; i++)
		if (taken[i] && !strcmp(taken[i], name))
			return true;
	return false;
}

int probe_event_name(const struct probe_spec *p, const char *const *taken, size_t ntaken,
		     char *out, size_t len)
{
	const char *suffix = probe_kind_is_return(p->kind) ? "__return" : "";
	char base[PROBE_NAME_MAX], cand[PROBE_NAME_MAX], src[PATH_MAX + 32];
	size_t w = 0, max;

	if (len < 16)
		return -ENOSPC;
	if (p->has_addr) {
		const char *slash = strrchr(p->path, '/');

		snprintf(src, sizeof(src), "%s_0x%llx", slash ? slash + 1 : p->path, p->addr);
	} else {
		snprintf(src, sizeof(src), "%s", p->symbol);
	}
	/* Sanitise: [A-Za-z0-9_], not starting with a digit. */
	if (isdigit((unsigned char)src[0]))
		base[w++] = '_';
	for (size_t i = 0; src[i] && w < sizeof(base) - 1; i++)
		base[w++] = isalnum((unsigned char)src[i]) ? src[i] : '_';
	base[w] = '\0';
	if (!w)
		snprintf(base, sizeof(base), "probe");

	max = (len < PROBE_NAME_MAX ? len : PROBE_NAME_MAX) - 1;
	for (unsigned n = 1; n < 100000; n++) {
		char num[16] = "";
		size_t keep;

		if (n > 1)
			snprintf(num, sizeof(num), "_%u", n);
		keep = max - strlen(suffix) - strlen(num);
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)keep, base, suffix, num);
		if (!name_taken(cand, taken, ntaken)) {
			snprintf(out, len, "%s", cand);
			return 0;
		}
	}
	return -ENOSPC;
}

/* ---- tracepoints in place of kprobes --------------------------------------------- */

/*
 * Kernel functions people probe, and the tracepoint(s) that carry the same
 * data: at entry (ent) and at return (ret), best first.  Only those that
 * exist on the running kernel are offered.
 */
static const struct kalt {
	const char *funcs[5];
	const char *ent[3];
	const char *ret[3];
	const char *ent_note, *ret_note;
} kalts[] = {
	{ { "vfs_write", "ksys_write" },
	  { "syscalls:sys_enter_write" }, { "syscalls:sys_exit_write" },
	  "count = args.count (the bytes asked for; also fd, buf)",
	  "the bytes written = args.ret" },
	{ { "vfs_read", "ksys_read" },
	  { "syscalls:sys_enter_read" }, { "syscalls:sys_exit_read" },
	  "count = args.count (the bytes asked for; also fd, buf)",
	  "the bytes read = args.ret" },
	{ { "vfs_writev", "do_writev" }, { "syscalls:sys_enter_writev" },
	  { "syscalls:sys_exit_writev" }, "vlen = args.vlen", "args.ret" },
	{ { "vfs_readv", "do_readv" }, { "syscalls:sys_enter_readv" },
	  { "syscalls:sys_exit_readv" }, "vlen = args.vlen", "args.ret" },
	{ { "do_sys_openat2", "do_sys_open", "do_filp_open", "vfs_open", "do_dentry_open" },
	  { "syscalls:sys_enter_openat", "syscalls:sys_enter_open" },
	  { "syscalls:sys_exit_openat", "syscalls:sys_exit_open" },
	  "the path = args.filename, args.flags, args.mode", "the fd = args.ret" },
	{ { "vfs_fsync", "vfs_fsync_range", "do_fsync" }, { "syscalls:sys_enter_fsync" },
	  { "syscalls:sys_exit_fsync" }, "args.fd", "args.ret" },
	{ { "do_unlinkat", "vfs_unlink" }, { "syscalls:sys_enter_unlinkat" },
	  { "syscalls:sys_exit_unlinkat" }, "args.pathname", "args.ret" },
	{ { "tcp_sendmsg", "tcp_sendmsg_locked", "sock_sendmsg", "inet_sendmsg" },
	  { "sock:sock_send_length", "tcp:tcp_sendmsg_locked" },
	  { "sock:sock_send_length" },
	  "sock:sock_send_length fires after each send with the bytes sent = args.ret",
	  "the bytes sent = args.ret" },
	{ { "tcp_recvmsg", "sock_recvmsg", "inet_recvmsg" }, { "sock:sock_recv_length" },
	  { "sock:sock_recv_length" }, "fires after each receive: the bytes = args.ret",
	  "the bytes received = args.ret" },
	{ { "tcp_set_state", "tcp_connect", "tcp_v4_connect", "tcp_v6_connect",
	    "inet_csk_accept" },
	  { "sock:inet_sock_set_state" }, { "sock:inet_sock_set_state" },
	  "args.oldstate -> args.newstate, addresses and ports", NULL },
	{ { "tcp_retransmit_skb", "__tcp_retransmit_skb" }, { "tcp:tcp_retransmit_skb" },
	  { NULL }, NULL, NULL },
	{ { "tcp_rcv_established" }, { "tcp:tcp_probe" }, { NULL }, NULL, NULL },
	{ { "tcp_send_reset", "tcp_v4_send_reset", "tcp_v6_send_reset" },
	  { "tcp:tcp_send_reset" }, { NULL }, NULL, NULL },
	{ { "schedule", "__schedule", "finish_task_switch", "context_switch" },
	  { "sched:sched_switch" }, { "sched:sched_switch" },
	  "args.prev_comm/prev_pid/prev_state -> args.next_comm/next_pid", NULL },
	{ { "do_exit", "do_group_exit" }, { "sched:sched_process_exit" }, { NULL },
	  NULL, NULL },
	{ { "wake_up_new_task" }, { "sched:sched_wakeup_new" }, { NULL }, NULL, NULL },
	{ { "try_to_wake_up", "wake_up_process" }, { "sched:sched_waking" },
	  { "sched:sched_wakeup" }, NULL, NULL },
	{ { "kernel_clone", "_do_fork", "do_fork", "copy_process" },
	  { "sched:sched_process_fork" }, { "sched:sched_process_fork" },
	  "args.parent_pid -> args.child_pid", NULL },
	{ { "do_execveat_common", "bprm_execve", "exec_binprm", "begin_new_exec",
	    "search_binary_handler" },
	  { "sched:sched_process_exec", "syscalls:sys_enter_execve" },
	  { "sched:sched_process_exec" }, "args.filename, args.pid", NULL },
	{ { "set_task_cpu", "move_queued_task" }, { "sched:sched_migrate_task" }, { NULL },
	  NULL, NULL },
	{ { "blk_mq_start_request", "blk_start_request" }, { "block:block_rq_issue" },
	  { NULL }, "args.dev, args.sector, args.nr_sector, args.bytes, args.rwbs", NULL },
	{ { "blk_mq_end_request", "__blk_mq_end_request", "blk_account_io_done",
	    "blk_mq_complete_request", "blk_update_request" },
	  { "block:block_rq_complete" }, { "block:block_rq_complete" },
	  "args.dev, args.sector, args.nr_sector, args.error", NULL },
	{ { "blk_mq_insert_request", "blk_mq_sched_insert_request" },
	  { "block:block_rq_insert" }, { NULL }, NULL, NULL },
	{ { "submit_bio", "submit_bio_noacct" }, { "block:block_bio_queue" }, { NULL },
	  NULL, NULL },
	{ { "handle_mm_fault", "exc_page_fault", "do_user_addr_fault", "do_page_fault" },
	  { "exceptions:page_fault_user" }, { NULL }, "args.address, args.ip",
	  NULL },
	{ { "__kmalloc", "kmalloc", "__kmalloc_noprof", "kmalloc_trace",
	    "__kmalloc_node" },
	  { "kmem:kmalloc" }, { "kmem:kmalloc" }, "args.bytes_req, args.bytes_alloc",
	  NULL },
	{ { "kfree" }, { "kmem:kfree" }, { NULL }, NULL, NULL },
	{ { "kmem_cache_alloc", "kmem_cache_alloc_noprof" }, { "kmem:kmem_cache_alloc" },
	  { "kmem:kmem_cache_alloc" }, NULL, NULL },
	{ { "kmem_cache_free" }, { "kmem:kmem_cache_free" }, { NULL }, NULL, NULL },
	{ { "__alloc_pages", "__alloc_pages_noprof", "alloc_pages" },
	  { "kmem:mm_page_alloc" }, { "kmem:mm_page_alloc" }, "args.order", NULL },
	{ { "handle_irq_event", "__handle_irq_event_percpu", "handle_irq_event_percpu" },
	  { "irq:irq_handler_entry" }, { "irq:irq_handler_exit" }, NULL, NULL },
	{ { "__do_softirq", "handle_softirqs" }, { "irq:softirq_entry" },
	  { "irq:softirq_exit" }, NULL, NULL },
	{ { "send_signal", "__send_signal", "__send_signal_locked", "send_signal_locked" },
	  { "signal:signal_generate" }, { "signal:signal_generate" }, NULL, NULL },
	{ { "get_signal" }, { "signal:signal_deliver" }, { NULL }, NULL, NULL },
	{ { "oom_kill_process", "__oom_kill_process" }, { "oom:mark_victim" }, { NULL },
	  NULL, NULL },
	{ { "process_one_work" }, { "workqueue:workqueue_execute_start" },
	  { "workqueue:workqueue_execute_end" }, NULL, NULL },
	{ { "do_idle", "cpuidle_enter", "cpuidle_enter_state", "default_idle_call" },
	  { "power:cpu_idle" }, { "power:cpu_idle" }, NULL, NULL },
	{ { "hrtimer_start_range_ns" }, { "timer:hrtimer_start" }, { NULL }, NULL, NULL },
	{ { "do_nanosleep", "hrtimer_nanosleep" },
	  { "syscalls:sys_enter_clock_nanosleep", "syscalls:sys_enter_nanosleep" },
	  { "syscalls:sys_exit_clock_nanosleep", "syscalls:sys_exit_nanosleep" }, NULL, NULL },
	{ { "do_mmap", "mmap_region", "vm_mmap_pgoff", "ksys_mmap_pgoff" },
	  { "syscalls:sys_enter_mmap" }, { "syscalls:sys_exit_mmap" }, NULL, NULL },
	{ { "do_syscall_64", "x64_sys_call", "el0_svc", "invoke_syscall" },
	  { "raw_syscalls:sys_enter" }, { "raw_syscalls:sys_exit" },
	  "the syscall number = args.id", "args.ret" },
	{ { "netif_receive_skb", "__netif_receive_skb", "netif_receive_skb_core" },
	  { "net:netif_receive_skb" }, { NULL }, NULL, NULL },
	{ { "dev_queue_xmit", "__dev_queue_xmit" }, { "net:net_dev_queue" }, { NULL },
	  NULL, NULL },
	{ { "dev_hard_start_xmit", "xmit_one" }, { "net:net_dev_xmit" },
	  { "net:net_dev_xmit" }, NULL, NULL },
	{ { "kfree_skb", "kfree_skb_reason", "sk_skb_reason_drop" }, { "skb:kfree_skb" },
	  { NULL }, NULL, NULL },
	{ { "mutex_lock", "__mutex_lock", "__mutex_lock_slowpath", "rwsem_down_read_slowpath",
	    "rwsem_down_write_slowpath" },
	  { "lock:contention_begin" }, { "lock:contention_end" },
	  "contended acquisitions only", NULL },
};

static bool try_tp(const char *tp, bool (*exists)(const char *, const char *, void *), void *ctx,
		   struct probe_alt *alt)
{
	char sys[64];
	const char *colon = strchr(tp, ':');

	if (!colon || (size_t)(colon - tp) >= sizeof(sys))
		return false;
	memcpy(sys, tp, (size_t)(colon - tp));
	sys[colon - tp] = '\0';
	if (!exists(sys, colon + 1, ctx))
		return false;
	snprintf(alt->tracepoint, sizeof(alt->tracepoint), "%s", tp);
	return true;
}

/* The syscall a function implements: __x64_sys_NAME, __arm64_sys_NAME,
 * __se_sys_NAME, __do_sys_NAME, __ia32_sys_NAME, ksys_NAME, sys_NAME. */
static const char *syscall_of(const char *func)
{
	static const char *const prefixes[] = {
		"__x64_sys_", "__arm64_sys_", "__ia32_sys_", "__ia32_compat_sys_",
		"__x64_compat_sys_", "__se_sys_", "__do_sys_", "__sys_", "ksys_", "sys_",
		"__riscv_sys_", "__s390x_sys_",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(func, prefixes[i]) && func[strlen(prefixes[i])])
			return func + strlen(prefixes[i]);
	return NULL;
}

int probe_kprobe_alternative(const char *func, bool ret,
			     bool (*exists)(const char *sys, const char *ev, void *ctx),
			     void *ctx, struct probe_alt *alt)
{
	char name[PROBE_SYM_MAX], tp[160];
	const char *sc, *dot;

	memset(alt, 0, sizeof(*alt));
	if (!func || !exists)
		return -ENOENT;
	/* The compiler's clones keep the function's meaning:
	 * "finish_task_switch.isra.0", "foo.constprop.0", "foo.cold". */
	dot = strchr(func, '.');
	snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - func) : (int)strlen(func), func);

	for (size_t i = 0; i < ARRAY_SIZE(kalts); i++) {
		const struct kalt *k = &kalts[i];
		bool match = false;

		for (size_t j = 0; j < ARRAY_SIZE(k->funcs) && k->funcs[j]; j++)
			if (!strcmp(k->funcs[j], name))
				match = true;
		if (!match)
			continue;
		/* At return, the exit tracepoint; else (and failing that) the
		 * entry one. */
		for (int pass = ret ? 0 : 1; pass < 2; pass++) {
			const char *const *tps = pass == 0 ? k->ret : k->ent;

			for (size_t j = 0; j < 3 && tps[j]; j++) {
				if (try_tp(tps[j], exists, ctx, alt)) {
					alt->note = pass == 0 ? k->ret_note : k->ent_note;
					return 0;
				}
			}
		}
		return -ENOENT;
	}
	sc = syscall_of(name);
	if (sc) {
		snprintf(tp, sizeof(tp), "syscalls:sys_%s_%s", ret ? "exit" : "enter", sc);
		if (try_tp(tp, exists, ctx, alt)) {
			alt->note = ret ? "the return value = args.ret" :
				"the arguments by name: args.<name>";
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- uprobe paths and offsets ------------------------------------------------------ */

static bool bad_path_char(const char *s, char *c)
{
	for (; *s; s++) {
		if (isspace((unsigned char)*s) || *s == ':') {
			*c = *s;
			return true;
		}
	}
	return false;
}

static bool regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool find_on_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; p; ) {
		const char *c = strchr(p, ':');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		char cand[PATH_MAX];

		/* An empty $PATH entry is the current directory. */
		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)n, n ? p : ".", "/", name);
		if (regular_file(cand) && access(cand, X_OK) == 0) {
			snprintf(out, len, "%s", cand);
			return true;
		}
		p = c ? c + 1 : NULL;
	}
	return false;
}

/*
 * The first regular file of dir (in name order, as glob(3) would sort) whose
 * name matches pat.  Not glob(3) itself: it drags getpwnam and the whole NSS
 * machinery into the static binary for the sake of "~" expansion.
 */
static bool first_match(const char *dir, const char *pat, char *out, size_t len)
{
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while ((de = readdir(d))) {
		if (fnmatch(pat, de->d_name, 0) != 0)
			continue;
		if (best[0] && strcmp(de->d_name, best) >= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (regular_file(path))
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return false;
	snprintf(out, len, "%s/%s", dir, best);
	return true;
}

static bool find_library(const char *name, const char *arch, char *out, size_t len)
{
	const char *ma = arch_multiarch(arch);
	char dirs[8][128], pat[PATH_MAX];
	int nd = 0;
	bool has_lib = str_has_prefix(name, "lib");

	if (ma) {
		snprintf(dirs[nd++], sizeof(dirs[0]), "/lib/%s", ma);
		snprintf(dirs[nd++], sizeof(dirs[0]), "/usr/lib/%s", ma);
	}
	snprintf(dirs[nd++], sizeof(dirs[0]), "/lib64");
	snprintf(dirs[nd++], sizeof(dirs[0]), "/usr/lib64");
	snprintf(dirs[nd++], sizeof(dirs[0]), "/lib");
	snprintf(dirs[nd++], sizeof(dirs[0]), "/usr/lib");
	snprintf(dirs[nd++], sizeof(dirs[0]), "/usr/local/lib");

	for (int d = 0; d < nd; d++) {
		/* The exact name, then the run-time name (libc.so.6): NAME.so
		 * alone is often a linker script for the compiler. */
		static const char *const forms[][2] = {
			{ "", "" }, { "", ".so.*" }, { "lib", ".so.*" }, { "", ".so" },
			{ "lib", ".so" },
		};

		for (size_t f = 0; f < ARRAY_SIZE(forms); f++) {
			if (has_lib && forms[f][0][0])
				continue;
			snprintf(pat, sizeof(pat), "%s%s%s", forms[f][0], name, forms[f][1]);
			if (first_match(dirs[d], pat, out, len))
				return true;
		}
	}
	return false;
}

static int lib_pid;	/* probe_lib_pid() */

void probe_lib_pid(int pid)
{
	lib_pid = pid;
}

int probe_resolve_path(const char *path, const char *arch, char *out, size_t len, char *why,
		       size_t whylen)
{
	char found[PATH_MAX], real[PATH_MAX], c;
	struct stat st;

	if (!path || !*path) {
		set_why(why, whylen, "no path given");
		return -EINVAL;
	}
	if (bad_path_char(path, &c)) {
		set_why(why, whylen, "path '%s' contains %s: the kernel's probe command cannot "
			"hold it (probe a hard link or a copy without it)", path,
			c == ':' ? "':'" : "a space");
		return -EINVAL;
	}
	/* A bare name, as the dynamic linker finds a library: the
	 * followed process's own (-p), a program on $PATH, ld.so's cache
	 * (the directories of /etc/ld.so.conf), the usual directories. */
	if (strchr(path, '/')) {
		snprintf(found, sizeof(found), "%s", path);
	} else if (!(lib_pid > 0 && ldcache_in_maps(lib_pid, path, found, sizeof(found)) == 0) &&
		   !find_on_path(path, found, sizeof(found)) &&
		   ldcache_lookup(path, arch, found, sizeof(found)) != 0 &&
		   !find_library(path, arch, found, sizeof(found))) {
		set_why(why, whylen, "cannot find '%s': not a program on $PATH, nor a library in "
			"the system's library directories%s", path,
			regular_file(path) ? " (for the file in the current directory, say ./NAME)" :
			"");
		return -ENOENT;
	}
	if (stat(found, &st) != 0) {
		int e = errno;

		set_why(why, whylen, "cannot probe '%s': %s", found, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		set_why(why, whylen, "cannot probe '%s': not a regular file", found);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	/* The kernel resolves the path when the probe is created; give it
	 * the canonical one, so the command means the same file anywhere. */
	if (!realpath(found, real)) {
		int e = errno;

		set_why(why, whylen, "cannot probe '%s': %s", found, strerror(e));
		return -e;
	}
	if (bad_path_char(real, &c)) {
		set_why(why, whylen, "'%s' is '%s', which contains %s: the kernel's probe "
			"command cannot hold it (probe a hard link or a copy without it)", path,
			real, c == ':' ? "':'" : "a space");
		return -EINVAL;
	}
	if (strlen(real) >= len) {
		set_why(why, whylen, "path '%s' is too long", real);
		return -ENAMETOOLONG;
	}
	snprintf(out, len, "%s", real);
	return 0;
}

int probe_uprobe_offset(const char *abspath, const struct probe_spec *p,
			unsigned long long *offset, bool *ifunc, char *why, size_t whylen)
{
	const struct elfsym_sym *sym = NULL;
	struct elfsym *e;
	uint64_t vaddr, off;
	size_t nmatch;
	int ret;

	*ifunc = false;
	ret = elfsym_open(abspath, &e, why, whylen);
	if (ret)
		return ret;
	if (p->has_addr) {
		vaddr = p->addr;
	} else {
		ret = elfsym_find(e, p->symbol, &sym, &nmatch);
		if (ret == -ENOENT) {
			const char *near[4];
			size_t nn = elfsym_similar(e, p->symbol, near, ARRAY_SIZE(near));
			char hint[256] = "";
			size_t h = 0;

			for (size_t i = 0; i < nn; i++)
				h += snprintf(hint + h, h < sizeof(hint) ? sizeof(hint) - h : 0,
					      "%s%s", i ? ", " : " (similar: ", near[i]);
			if (nn && h < sizeof(hint))
				snprintf(hint + h, sizeof(hint) - h, ")");
			if (!elfsym_has_symtab(e))
				set_why(why, whylen, "'%s' is stripped and does not export '%s'%s: "
					"install its debug symbols (the -dbgsym package) or probe "
					"an unstripped build", abspath, p->symbol, hint);
			else
				set_why(why, whylen, "no function '%s' in '%s'%s", p->symbol,
					abspath, hint);
			goto out;
		}
		if (ret == -ENOTUNIQ) {
			set_why(why, whylen, "'%s' names %zu different functions in '%s' (the "
				"first at 0x%llx): probe one by address, %s:%s:0xADDR",
				p->symbol, nmatch, abspath, (unsigned long long)sym->addr,
				probe_kind_name(p->kind), p->path);
			goto out;
		}
		vaddr = sym->addr;
		*ifunc = sym->type == STT_GNU_IFUNC;
	}
	if (p->offset && sym && sym->size && p->offset >= sym->size) {
		set_why(why, whylen, "offset +%llu is beyond the end of '%s' (%llu bytes)",
			p->offset, p->symbol, (unsigned long long)sym->size);
		ret = -ERANGE;
		goto out;
	}
	vaddr += p->offset;
	ret = elfsym_vaddr_to_offset(e, vaddr, &off);
	if (ret) {
		set_why(why, whylen, "address 0x%llx is not in an executable segment of '%s'",
			(unsigned long long)vaddr, abspath);
		goto out;
	}
	*offset = off;
out:
	elfsym_close(e);
	return ret;
}

/*
 * A function not in the library a bare name found, but in one it needs:
 * glibc 2.34 moved pthread_create and the rest of libpthread into libc, and
 * left libpthread.so.0 a stub that only needs libc.so.6, where the dynamic
 * linker then finds them (bpftrace's threadsnoop probes
 * uprobe:libpthread:pthread_create).  On success path holds the library
 * that has it (and a note says so); else -ENOENT and path is unchanged.
 */
static int in_needed(const struct probe_spec *p, const char *arch, char *path, size_t len,
		     unsigned long long *off, bool *ifunc)
{
	char **need, lib[PATH_MAX], why[256];
	size_t n;
	int ret = -ENOENT;

	if (ldcache_needed(path, &need, &n))
		return -ENOENT;
	for (size_t i = 0; i < n && ret; i++) {
		if (probe_resolve_path(need[i], arch, lib, sizeof(lib), why, sizeof(why)) ||
		    probe_uprobe_offset(lib, p, off, ifunc, why, sizeof(why)))
			continue;
		fprintf(stderr, "ftr: note: '%s' is not in '%s' but in '%s', which it loads: "
			"probing it there\n", p->symbol, path, lib);
		snprintf(path, len, "%s", lib);
		ret = 0;
	}
	strv_free(need, n);
	return ret;
}

/* ---- creation ------------------------------------------------------------------------- */

/* The names this process gave its events (one group per process). */
static char **taken_names;
static size_t ntaken;

static void remember_name(const char *name)
{
	char **v = realloc(taken_names, (ntaken + 1) * sizeof(*v));

	if (!v)
		return;
	taken_names = v;
	v[ntaken] = strdup(name);
	if (v[ntaken])
		ntaken++;
}

int probe_name_next(const struct probe_spec *p, bool take, char *out, size_t len)
{
	int ret = probe_event_name(p, (const char *const *)taken_names, ntaken, out, len);

	if (!ret && take)
		remember_name(out);
	return ret;
}

/* The probe as the user would write it, for messages. */
/* A module file's name as the kernel spells the module: md-mod.ko.xz → md_mod. */
static void mod_name(const char *path, size_t n, char *out, size_t len)
{
	const char *b = memrchr(path, '/', n);
	size_t i = 0;

	b = b ? b + 1 : path;
	for (; b < path + n && *b != '.' && i + 1 < len; b++)
		out[i++] = *b == '-' ? '_' : *b;
	out[i] = '\0';
}

/* Is a module of that name listed in modroot's file (one module path at the
 * start of each line: modules.order, modules.dep, modules.builtin)? */
static bool mod_listed(const char *modroot, const char *file, const char *name)
{
	char path[PATH_MAX], line[1024], m[128];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", modroot, file);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		mod_name(line, strcspn(line, ": \n"), m, sizeof(m));
		found = !strcmp(m, name);
	}
	fclose(f);
	return found;
}

int probe_module_of(const char *modroot, const char *func, char *mod, size_t len)
{
	char path[PATH_MAX], line[512], pre[64];
	size_t fl = strlen(func), pl = strcspn(func, "_");
	FILE *f;

	snprintf(path, sizeof(path), "%s/modules.symbols", modroot);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		/* "alias symbol:md_flush_request md_mod" */
		const char *s = line + 13;

		if (str_has_prefix(line, "alias symbol:") && !strncmp(s, func, fl) && s[fl] == ' ') {
			snprintf(mod, len, "%.*s", (int)strcspn(s + fl + 1, " \n"), s + fl + 1);
			fclose(f);
			return 1;
		}
	}
	if (f)
		fclose(f);
	if (pl == fl || pl + 5 > sizeof(pre))
		return -ENOENT;
	for (int i = 0; i < 2; i++) {
		snprintf(pre, sizeof(pre), "%.*s%s", (int)pl, func, i ? "_mod" : "");
		if ((mod_listed(modroot, "modules.dep", pre) ||
		     mod_listed(modroot, "modules.order", pre)) &&
		    !mod_listed(modroot, "modules.builtin", pre)) {
			snprintf(mod, len, "%s", pre);
			return 0;
		}
	}
	return -ENOENT;
}

bool probe_module_loaded(const char *name)
{
	char line[512];
	size_t n = strlen(name);
	bool found = false;
	FILE *f = fopen("/proc/modules", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, n) && line[n] == ' ';
	if (f)
		fclose(f);
	return found;
}

int probe_missing_why(const char *module, const char *func, char *buf, size_t len)
{
	char root[PATH_MAX], mod[128] = "";
	struct utsname u;
	int r = -ENOENT;

	if (module && module[0]) {
		snprintf(mod, sizeof(mod), "%s", module);
		r = 1;
	} else if (!uname(&u)) {
		snprintf(root, sizeof(root), "/lib/modules/%s", u.release);
		r = probe_module_of(root, func, mod, sizeof(mod));
	}
	if (r >= 0 && !probe_module_loaded(mod))
		return snprintf(buf, len, "not a function of the running kernel (not in "
				"available_filter_functions or /proc/kallsyms): it is %s module "
				"'%s', which is not loaded (modprobe %s)",
				r ? "in" : "probably in", mod, mod);
	return snprintf(buf, len, "not a function of the running kernel (not in "
			"available_filter_functions or /proc/kallsyms): a function of a module "
			"that is not loaded, or one renamed or inlined in this kernel");
}

/*
 * A kernel function the running kernel does not have (mdflush's
 * md_flush_request without the md module; swapin's swap_readpage, renamed
 * in 6.12): the kernel says only EINVAL (6.12) or ENOENT (6.1), this says
 * which, then the kernel's error_log, which it still holds.
 */
static void refuse_missing(const struct probe_spec *p)
{
	char why[512], *log;

	probe_missing_why(p->module, p->symbol, why, sizeof(why));
	ftr_err("cannot probe '%s': %s", p->symbol, why);
	log = tracefs_error_last(NULL);
	ftr_err_kernel_log(log);
	free(log);
}

static const char *spec_str(const struct probe_spec *p, char *buf, size_t len)
{
	char off[32] = "";

	if (p->offset)
		snprintf(off, sizeof(off), "+%llu", p->offset);
	if (probe_kind_is_user(p->kind) && p->has_addr)
		snprintf(buf, len, "%s:%s:0x%llx", probe_kind_name(p->kind), p->path, p->addr);
	else if (probe_kind_is_user(p->kind))
		snprintf(buf, len, "%s:%s:%s%s", probe_kind_name(p->kind), p->path, p->symbol, off);
	else
		snprintf(buf, len, "%s:%s%s%s%s", probe_kind_name(p->kind), p->module,
			 p->module[0] ? ":" : "", p->symbol, off);
	return buf;
}

static bool tp_exists(const char *sys, const char *ev, void *ctx)
{
	(void)ctx;
	return tracefs_event_file_exists(NULL, sys, ev, "format");
}

static int no_kprobes(const struct probe_spec *p)
{
	struct probe_alt alt;
	bool ret = p->kind == PROBE_KRETPROBE;
	char where[PATH_MAX + PROBE_SYM_MAX + 64], why[160];

	ftr_err("cannot probe '%s': this kernel has no kprobe events (it was built "
		"without CONFIG_KPROBE_EVENTS)", spec_str(p, where, sizeof(where)));
	if (probe_kprobe_alternative(p->symbol, ret, tp_exists, NULL, &alt) == 0)
		fprintf(stderr, "  the tracepoint '%s' carries the same data%s%s: use "
			"tracepoint:%s\n", alt.tracepoint, alt.note ? ": " : "",
			alt.note ? alt.note : "", alt.tracepoint);
	else
		fprintf(stderr, "  no tracepoint of this kernel is known to carry what '%s' "
			"does; 'ftr list' shows the tracepoints there are\n", p->symbol);
	/* The function tracer stands in for kprobes in clauses that read no
	 * argument (lang/plan/fntrace.c): say why it does not here. */
	if (ftrace_refused(tracefs_tracing_dir(), why, sizeof(why)))
		fprintf(stderr, "  the function tracer, which stands in for kprobe events where a "
			"clause reads no argument, is listed but refused here (%s; 'ftr doctor')\n",
			why);
	return -ENOTSUP;
}

/* After the session's creation of dyn (ret): out owns it, or it is freed. */
static int adopt(struct probe *out, struct tracefs_dynevent *dyn, int ret)
{
	if (ret) {
		tracefs_dynevent_free(dyn);
		return ret;
	}
	out->dyn = dyn;		/* the session destroys and frees it */
	remember_name(out->event);
	return 0;
}

/*
 * An fprobe event, "f:GRP/EV SYM[%return] ARGS", written by ftr: libtracefs
 * 1.6.4 has no fprobe type (docs/libraries.md L9).  Its handle in the
 * session is an eprobe's with the same group and name, whose removal,
 * "-:GRP/EV" to dynamic_events, removes a dynamic event of any type and
 * whose event is found in a tep by group and name as any other's.
 */
static int create_fprobe(struct session *s, const struct probe_spec *p, struct probe *out)
{
	struct tracefs_dynevent *dyn;
	bool quiet;
	int ret;

	out->fprobe = true;
	snprintf(out->place, sizeof(out->place), "%s%s", p->symbol,
		 probe_kind_is_return(p->kind) ? "%return" : "");
	dyn = tracefs_eprobe_alloc(out->system, out->event, "ftr", "fprobe",
				   out->fetchargs[0] ? out->fetchargs : NULL);
	if (!dyn) {
		ret = -(errno ? errno : ENOMEM);
		ftr_err("cannot prepare fprobe '%s': %s", out->place, strerror(-ret));
		return -ENOMEM;
	}
	/* Quiet: where the kernel refuses it, a kprobe is tried, which says
	 * why if it fails too. */
	quiet = session_quiet(s);
	session_set_quiet(s, true);
	ret = session_dynevent_create_as(s, dyn, "f", out->place, out->fetchargs);
	session_set_quiet(s, quiet);
	if (ret)
		fprintf(stderr, "ftr: note: the kernel refuses an fprobe at '%s' (%s): a kprobe "
			"instead\n", out->place, strerror(-ret));
	return adopt(out, dyn, ret);
}

int probe_create(struct session *s, const struct features *f, const struct probe_spec *p,
		 struct probe *out)
{
	const char *arch = f->arch[0] ? arch_normalise(f->arch) : arch_name();
	struct tracefs_dynevent *dyn = NULL;
	struct probe_error perr;
	char why[1024], where[PATH_MAX + PROBE_SYM_MAX + 64];
	bool missing = false, quiet, retry;
	int ret;

	memset(out, 0, sizeof(*out));
	out->kind = p->kind;
	if (f->tracing_locked) {
		ftr_err("cannot probe '%s': kernel lockdown (%s) forbids tracing",
			spec_str(p, where, sizeof(where)), f->lockdown);
		return -EACCES;
	}
	if (!probe_kind_is_user(p->kind) && !f->f[F_KPROBE].yes)
		return no_kprobes(p);
	if (probe_kind_is_user(p->kind) && !f->f[F_UPROBE].yes) {
		ftr_err("cannot probe '%s': this kernel has no uprobe events (it was built "
			"without CONFIG_UPROBE_EVENTS)", spec_str(p, where, sizeof(where)));
		return -ENOTSUP;
	}
	ret = probe_fetchargs(p, arch, f->probe_syntax, out->fetchargs, sizeof(out->fetchargs),
			      &perr);
	if (ret) {
		ftr_err("cannot probe '%s': %s", spec_str(p, where, sizeof(where)), perr.msg);
		return ret;
	}

	snprintf(out->system, sizeof(out->system), "%s", session_name(s));
	ret = probe_event_name(p, (const char *const *)taken_names, ntaken, out->event,
			       sizeof(out->event));
	if (ret) {
		ftr_err("cannot name a probe for '%s': too many", spec_str(p, where, sizeof(where)));
		return ret;
	}

	if (probe_kind_is_user(p->kind)) {
		char path[PATH_MAX];
		unsigned long long off;
		bool ifunc;

		ret = probe_resolve_path(p->path, arch, path, sizeof(path), why, sizeof(why));
		if (!ret)
			ret = probe_uprobe_offset(path, p, &off, &ifunc, why, sizeof(why));
		if (ret == -ENOENT && !p->has_addr && !strchr(p->path, '/'))
			ret = in_needed(p, arch, path, sizeof(path), &off, &ifunc);
		if (ret) {
			ftr_err("cannot probe '%s': %s", spec_str(p, where, sizeof(where)), why);
			return ret;
		}
		if (ifunc)
			ftr_warn("'%s' is a GNU IFUNC in '%s': the probe hits its resolver, which "
				 "runs once when the file is loaded, not each call; probe the "
				 "implementation it picks instead", p->symbol, path);
		if (p->ref_ctr)
			snprintf(out->place, sizeof(out->place), "%s:0x%llx(0x%llx)", path, off,
				 p->ref_ctr);
		else
			snprintf(out->place, sizeof(out->place), "%s:0x%llx", path, off);
		dyn = p->kind == PROBE_UPROBE ?
			tracefs_uprobe_alloc(out->system, out->event, path, off,
					     out->fetchargs[0] ? out->fetchargs : NULL) :
			tracefs_uretprobe_alloc(out->system, out->event, path, off,
						out->fetchargs[0] ? out->fetchargs : NULL);
	} else if (p->fprobe && !p->module[0] && !p->offset && f->f[F_FPROBE].yes &&
		   ((ret = create_fprobe(s, p, out)) == 0 || ret == -ENOMEM)) {
		return ret;
	} else {
		/* A function ftrace cannot attach to (notrace, not in
		 * available_filter_functions) may still take a kprobe. */
		out->fprobe = false;
		if (p->offset)
			snprintf(out->place, sizeof(out->place), "%s%s%s+%llu", p->module,
				 p->module[0] ? ":" : "", p->symbol, p->offset);
		else
			snprintf(out->place, sizeof(out->place), "%s%s%s", p->module,
				 p->module[0] ? ":" : "", p->symbol);
		/* max = 0: libtracefs 1.6.4 writes "r5::" for max > 0 (docs/libraries.md L1). */
		dyn = p->kind == PROBE_KPROBE ?
			tracefs_kprobe_alloc(out->system, out->event, out->place,
					     out->fetchargs[0] ? out->fetchargs : NULL) :
			tracefs_kretprobe_alloc(out->system, out->event, out->place,
						out->fetchargs[0] ? out->fetchargs : NULL, 0);
	}
	if (!dyn) {
		ret = -(errno ? errno : ENOMEM);
		ftr_err("cannot prepare %s '%s': %s", probe_kind_name(p->kind), out->place,
			strerror(-ret));
		return ret;
	}
	/* A kernel function in neither list: the kernel's refusal is made
	 * quietly, and said as what it is (refuse_missing). */
	if (!probe_kind_is_user(p->kind) && !p->has_addr) {
		uint64_t a;

		/* (both lists are read once per run) */
		missing = !pglob_kernel_has(session_tracefs(s)->path, p->module, p->symbol) &&
			  kallsyms_find(p->symbol, &a) == -ENOENT;
	}
	quiet = session_quiet(s);
	/* A return probe with the retval ftr adds on its own is tried quietly
	 * first: 6.12 refuses $retval on a function returning void ("This
	 * function returns 'void' type", ENOENT: kretprobe:mutex_lock), and
	 * then the probe is made without it, which a program that reads no
	 * retval never misses; a second refusal says why. */
	retry = p->kind == PROBE_KRETPROBE && !p->ref_ctr;
	if (missing || retry)
		session_set_quiet(s, true);
	/* libtracefs cannot spell a reference counter: the place is written
	 * as it is. */
	ret = p->ref_ctr ? session_dynevent_create_at(s, dyn, out->place) :
			   session_dynevent_create(s, dyn);
	if (ret && retry && probe_fetchargs_drop_retval(p, out->fetchargs)) {
		tracefs_dynevent_free(dyn);
		dyn = tracefs_kretprobe_alloc(out->system, out->event, out->place,
					      out->fetchargs[0] ? out->fetchargs : NULL, 0);
		if (!dyn) {
			session_set_quiet(s, quiet);
			ret = -(errno ? errno : ENOMEM);
			ftr_err("cannot prepare %s '%s': %s", probe_kind_name(p->kind),
				out->place, strerror(-ret));
			return ret;
		}
		session_set_quiet(s, quiet || missing);
		ret = session_dynevent_create(s, dyn);
	} else if (ret && retry && !missing && !quiet) {
		/* refused for another reason: said as the kernel says it */
		session_set_quiet(s, false);
		ret = session_dynevent_create(s, dyn);
	}
	session_set_quiet(s, quiet);
	if (ret && missing && !quiet)
		refuse_missing(p);
	return adopt(out, dyn, ret);
}

int probe_create_eprobe(struct session *s, const char *sys, const char *ev, const char *fetchargs,
			struct probe *out)
{
	struct probe_spec named = { .kind = PROBE_KPROBE };
	struct tracefs_dynevent *dyn;
	int ret;

	memset(out, 0, sizeof(*out));
	snprintf(out->system, sizeof(out->system), "%s", session_name(s));
	snprintf(out->place, sizeof(out->place), "%s.%s", sys, ev);
	snprintf(out->fetchargs, sizeof(out->fetchargs), "%s", fetchargs);
	snprintf(named.symbol, sizeof(named.symbol), "%s", ev);
	ret = probe_event_name(&named, (const char *const *)taken_names, ntaken, out->event,
			       sizeof(out->event));
	if (ret) {
		ftr_err("cannot name an eprobe for '%s:%s': too many", sys, ev);
		return ret;
	}
	dyn = tracefs_eprobe_alloc(out->system, out->event, sys, ev, fetchargs);
	if (!dyn) {
		ret = -(errno ? errno : ENOMEM);
		ftr_err("cannot prepare an eprobe on '%s:%s': %s", sys, ev, strerror(-ret));
		return ret;
	}
	return adopt(out, dyn, session_dynevent_create(s, dyn));
}

struct tep_event *probe_tep_event(struct tep_handle *tep, const struct probe *pr)
{
	if (!tep || !pr || !pr->dyn)
		return NULL;
	return tracefs_dynevent_get_event(tep, pr->dyn);
}
