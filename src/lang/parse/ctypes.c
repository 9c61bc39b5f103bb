// SPDX-License-Identifier: GPL-2.0-or-later
/* C types: their sources, the preprocessor, program definitions; see ctypes.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/abi.h"
#include "kernel/arch.h"
#include "kernel/btf.h"
#include "lang/parse/ctypes.h"
#include "lang/lang.h"

#define VMLINUX "/sys/kernel/btf/vmlinux"
#define MAX_LAYERS 512
#define MAX_DEFINES 256
#define MAX_IF 32

static const char *btf_file;

void ctypes_set_btf_file(const char *path)
{
	btf_file = path;
}

/* The kernel's BTF; FTR_VMLINUX_BTF names another file (tests: a kernel
 * without BTF is FTR_VMLINUX_BTF=/nonexistent). */
static const char *vmlinux(void)
{
	const char *e = getenv("FTR_VMLINUX_BTF");

	return e && *e ? e : VMLINUX;
}

/* Module BTF is in the directory of vmlinux's (/sys/kernel/btf/MOD). */
static void module_path(const char *mod, char *out, size_t len)
{
	const char *v = vmlinux(), *sl = strrchr(v, '/');

	snprintf(out, len, "%.*s/%s", sl ? (int)(sl - v) : 1, sl ? v : ".", mod);
}

bool ctypes_have_btf(void)
{
	return btf_file || access(vmlinux(), R_OK) == 0;
}

const char *ctypes_btf_path(void)
{
	return btf_file ? btf_file : access(vmlinux(), R_OK) == 0 ? vmlinux() : NULL;
}

/* ---- preprocessor ------------------------------------------------------------- */

static void cpp_err(struct lang_err *err, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define MAX_PARAMS 16
#define MAX_EXPAND 32		/* macros inside macros, deep */

struct define {
	char *name, *body;
	int np;			/* parameters; -1: an object-like macro */
	char *param[MAX_PARAMS];
};

static bool id_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool id_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool defined(struct define *d, int nd, const char *name, size_t n)
{
	for (int i = 0; i < nd; i++)
		if (strlen(d[i].name) == n && !strncmp(d[i].name, name, n))
			return true;
	return n == 17 && !strncmp(name, "BPFTRACE_HAVE_BTF", n) && ctypes_have_btf();
}

static void define_free(struct define *d)
{
	free(d->name);
	free(d->body);
	for (int i = 0; i < d->np; i++)
		free(d->param[i]);
}

/* Append s[0..n) to the output, growing it; no output (o NULL): nothing. */
static bool out(char **o, size_t *ol, size_t *cap, const char *s, size_t n)
{
	if (!o)
		return true;
	if (*ol + n + 1 > *cap) {
		size_t c = (*cap + n + 1) * 2;
		char *v = realloc(*o, c);

		if (!v)
			return false;
		*o = v;
		*cap = c;
	}
	memcpy(*o + *ol, s, n);
	*ol += n;
	(*o)[*ol] = '\0';
	return true;
}

/* Where expand() is, for its messages. */
struct xpos {
	struct lang_err *err;
	int line, col;		/* the outermost macro use's */
	bool busy[MAX_DEFINES];	/* macros being expanded: not again (C's rule) */
	int depth;
	bool *inc;		/* the line starts inside a block comment; left
				 * saying whether the next one does */
	bool *instr;		/* the same for a string literal (it may hold a
				 * newline, as bpftrace's); NULL: not tracked */
};

static int expand(char **o, size_t *ol, size_t *cap, const char *s, size_t n,
		  struct define *d, int nd, struct xpos *x);

/* The end of a string literal starting at s[i] (its closing quote + 1). */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	char q = s[i];

	for (i++; i < n && s[i] != q; i++)
		if (s[i] == '\\' && i + 1 < n)
			i++;
	return i < n ? i + 1 : n;
}

/* A function-like macro's use NAME(ARGS) at s[*j] = '(': its arguments
 * split at commas outside brackets and strings, trimmed. */
static int macro_args(const char *s, size_t n, size_t *j, const char **a, size_t *al, int *na,
		      const struct define *m, struct xpos *x)
{
	int depth = 0;
	size_t i = *j + 1, st = i;

	*na = 0;
	for (; i < n; i++) {
		if (s[i] == '"' || s[i] == '\'') {
			i = skip_string(s, n, i) - 1;
		} else if (s[i] == '(' || s[i] == '[' || s[i] == '{') {
			depth++;
		} else if ((s[i] == ')' || s[i] == ']' || s[i] == '}') && depth) {
			depth--;
		} else if (!depth && (s[i] == ',' || s[i] == ')')) {
			size_t b = st, e = i;

			while (b < e && isspace((unsigned char)s[b]))
				b++;
			while (e > b && isspace((unsigned char)s[e - 1]))
				e--;
			if (*na == MAX_PARAMS) {
				cpp_err(x->err, x->line, x->col, "macro '%s' used with more than "
					"%d arguments", m->name, MAX_PARAMS);
				return -EINVAL;
			}
			a[*na] = s + b;
			al[(*na)++] = e - b;
			st = i + 1;
			if (s[i] == ')')
				break;
		}
	}
	if (i >= n) {
		cpp_err(x->err, x->line, x->col, "macro '%s': its arguments must close on "
			"the line ('(' without ')')", m->name);
		return -EINVAL;
	}
	if (*na == 1 && !al[0] && m->np == 0)
		*na = 0;
	if (*na != m->np) {
		cpp_err(x->err, x->line, x->col, "macro '%s' takes %d argument%s, given %d",
			m->name, m->np, m->np == 1 ? "" : "s", *na);
		return -EINVAL;
	}
	*j = i + 1;
	return 0;
}

/* m's body with its parameters replaced by the arguments, appended. */
static bool substitute(char **o, size_t *ol, size_t *cap, const struct define *m,
		       const char **a, const size_t *al)
{
	const char *b = m->body;
	size_t n = strlen(b), i = 0;
	bool ok = true;

	while (ok && i < n) {
		size_t j = i + 1;
		int k = m->np;

		if (b[i] == '"' || b[i] == '\'') {
			j = skip_string(b, n, i);
		} else if (id_start(b[i]) && (!i || !id_char(b[i - 1]))) {
			for (j = i; j < n && id_char(b[j]); j++)
				;
			for (k = 0; k < m->np; k++)
				if (strlen(m->param[k]) == j - i && !strncmp(m->param[k], b + i, j - i))
					break;
		}
		ok = k < m->np ? out(o, ol, cap, a[k], al[k]) : out(o, ol, cap, b + i, j - i);
		i = j;
	}
	return ok;
}

/* One line (not a directive) with the macros replaced, outside strings and
 * comments; a replacement is scanned again for macros (not its own).  With
 * o NULL, only follows the block comments (text an #if skips).
 * 0, -ENOMEM or -EINVAL (x->err). */
static int expand(char **o, size_t *ol, size_t *cap, const char *s, size_t n,
		  struct define *d, int nd, struct xpos *x)
{
	size_t i = 0;
	int ret = 0;

	while (!ret && i < n) {
		size_t j = i;

		if ((x->instr && *x->instr) || (s[i] == '"' && !*x->inc)) {
			/* to the closing quote, or on to the next line */
			if (!*x->instr)
				j++;
			while (j < n && s[j] != '"')
				j += s[j] == '\\' && j + 1 < n ? 2 : 1;
			if (x->instr)
				*x->instr = j >= n;
			if (j < n)
				j++;
		} else if (*x->inc) {
			while (j < n && !(s[j] == '*' && j + 1 < n && s[j + 1] == '/'))
				j++;
			if (j < n) {
				j += 2;
				*x->inc = false;
			}
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
			*x->inc = true;
			j += 2;
		} else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
			j = n;
		} else if (o && id_start(s[i]) && (i == 0 || (!id_char(s[i - 1]) &&
							       s[i - 1] != '$' && s[i - 1] != '@'))) {
			const char *a[MAX_PARAMS];
			size_t al[MAX_PARAMS], p, start = *ol;
			char *body = NULL;
			size_t bl = 0, bcap = 0;
			int k, na;

			while (j < n && id_char(s[j]))
				j++;
			for (k = 0; k < nd; k++)
				if (!x->busy[k] && strlen(d[k].name) == j - i &&
				    !strncmp(d[k].name, s + i, j - i))
					break;
			p = j;
			while (k < nd && d[k].np >= 0 && p < n && (s[p] == ' ' || s[p] == '\t'))
				p++;
			/* A function-like macro's name without '(' is a name. */
			if (k < nd && (d[k].np < 0 || (p < n && s[p] == '('))) {
				if (!x->depth)
					x->col = (int)i + 1;
				if (x->depth == MAX_EXPAND) {
					cpp_err(x->err, x->line, x->col, "macros nested more than "
						"%d deep", MAX_EXPAND);
					return -EINVAL;
				}
				if (d[k].np >= 0) {
					j = p;
					if ((ret = macro_args(s, n, &j, a, al, &na, &d[k], x)))
						return ret;
				}
				if (!(d[k].np < 0 ? out(&body, &bl, &bcap, d[k].body,
							strlen(d[k].body)) :
				      substitute(&body, &bl, &bcap, &d[k], a, al))) {
					free(body);
					return -ENOMEM;
				}
				x->busy[k] = true;
				x->depth++;
				ret = body ? expand(o, ol, cap, body, bl, d, nd, x) : 0;
				x->depth--;
				x->busy[k] = false;
				free(body);
				/* Pad a shorter text: columns after it stay right. */
				for (size_t q = *ol - start; !ret && !x->depth && q < j - i; q++)
					ret = out(o, ol, cap, " ", 1) ? 0 : -ENOMEM;
				i = j;
				continue;
			}
		} else {
			j++;
		}
		if (!out(o, ol, cap, s + i, j - i))
			return -ENOMEM;
		i = j;
	}
	return ret;
}

static void cpp_err(struct lang_err *err, int line, int col, const char *fmt, ...)
{
	va_list ap;

	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* A function-like macro's "(A, B)" at *b (to end): its parameters; *b moves
 * past ')', or to what is wrong.  0 or -EINVAL. */
static int define_params(struct define *m, const char **b, const char *end)
{
	const char *p = *b + 1;

	m->np = 0;
	p += strspn(p, " \t");
	if (*p == ')') {
		*b = p + 1;
		return 0;
	}
	while (p < end) {
		size_t l = 0;

		while (p + l < end && id_char(p[l]))
			l++;
		if (!l || !id_start(*p) || m->np == MAX_PARAMS) {
			*b = p;
			return -EINVAL;
		}
		if (!(m->param[m->np] = strndup(p, l)))
			return -EINVAL;
		m->np++;
		p += l;
		p += strspn(p, " \t");
		if (*p == ')') {
			*b = p + 1;
			return 0;
		}
		if (*p != ',')
			break;
		p++;
		p += strspn(p, " \t");
	}
	*b = p;
	return -EINVAL;
}

/* -I DIR: where headers are looked for, before the system's. */
static const char *inc_dirs[16];
static int ninc_dirs;

int lang_include_dir_add(const char *dir)
{
	if (ninc_dirs == (int)ARRAY_SIZE(inc_dirs))
		return -E2BIG;
	inc_dirs[ninc_dirs++] = dir;
	return 0;
}

/*
 * A header is never read: a kernel header's types are the kernel's BTF, a
 * program's types its own declarations.  But bpftrace hands the include to
 * clang, which fails on a header that is nowhere; ftr says so too, for a
 * header that is neither in -I's directories nor the system's, and is not
 * one of the kernel's (linux/..., net/..., asm/...: those are BTF to ftr,
 * whether or not their files are installed), nor a compiler's own
 * (stddef.h, stdint.h...).  Where the system has no /usr/include (a busybox
 * board), the C library's names pass unchecked and others are nowhere.
 */
static char prog_dir[PATH_MAX];

void lang_program_dir_set(const char *file)
{
	const char *slash = file ? strrchr(file, '/') : NULL;

	if (!slash)
		snprintf(prog_dir, sizeof(prog_dir), ".");
	else if (slash == file)
		snprintf(prog_dir, sizeof(prog_dir), "/");
	else
		snprintf(prog_dir, sizeof(prog_dir), "%.*s", (int)(slash - file), file);
}

int lang_header_check(const char *name, size_t len, bool quoted, char *why, size_t wlen)
{
	static const char *const sys[] = { "/usr/local/include", "/usr/include" };
	static const char *const kernel[] = { "linux", "net", "asm", "asm-generic", "uapi",
					      "trace", "scsi", "sound", "video", "crypto",
					      "keys", "kvm", "media", "rdma", "xen", "drm",
					      "misc", "soc", "target", "vdso", "acpi",
					      "dt-bindings", "clocksource", "ras", "pcmcia" };
	static const char *const compiler[] = { "stddef.h", "stdarg.h", "stdbool.h", "stdint.h",
						"limits.h", "float.h", "stdalign.h", "iso646.h",
						"stdnoreturn.h" };
	static const char *const libc[] = { "sys", "netinet", "netinet6", "arpa", "bits", "gnu",
					    "rpc", "netpacket", "protocols" };
	char path[PATH_MAX];
	size_t top = strcspn(name, "/");
	struct dirent *de = NULL;
	DIR *dir;

	if (!len || len >= 256)
		return 0;
	/* An absolute name is that file (it was looked for below each
	 * directory, and said to be nowhere). */
	if (name[0] == '/') {
		snprintf(path, sizeof(path), "%.*s", (int)len, name);
		if (access(path, F_OK) == 0)
			return 0;
		snprintf(why, wlen, "'%s': %s", path, strerror(errno));
		return -ENOENT;
	}
	/* "NAME": beside the program first, as C looks beside the file
	 * that includes it. */
	if (quoted) {
		int n = snprintf(path, sizeof(path), "%s/%.*s", prog_dir[0] ? prog_dir : ".",
				 (int)len, name);

		if (n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0)
			return 0;
	}
	if (top < len)
		for (size_t i = 0; i < ARRAY_SIZE(kernel); i++)
			if (strlen(kernel[i]) == top && !strncmp(name, kernel[i], top))
				return 0;
	/* A compiler's own headers, which bpftrace's clang carries with it
	 * (and ftr needs none of: its integer types are built in). */
	for (size_t i = 0; i < ARRAY_SIZE(compiler); i++)
		if (strlen(compiler[i]) == len && !strncmp(name, compiler[i], len))
			return 0;
	/* Without /usr/include (a busybox board) the C library's own headers
	 * (stdio.h, sys/socket.h, netinet/in.h...: bpftrace 0.17's tools
	 * include some, and ftr needs none) cannot be told from a typo: they
	 * pass; a header of another tree (lol/no.h) is nowhere. */
	if (access("/usr/include", X_OK) != 0) {
		if (top >= len)
			return 0;
		for (size_t i = 0; i < ARRAY_SIZE(libc); i++)
			if (strlen(libc[i]) == top && !strncmp(name, libc[i], top))
				return 0;
	}
	for (int i = 0; i < ninc_dirs + (int)ARRAY_SIZE(sys); i++) {
		const char *d = i < ninc_dirs ? inc_dirs[i] : sys[i - ninc_dirs];

		snprintf(path, sizeof(path), "%s/%.*s", d, (int)len, name);
		if (access(path, F_OK) == 0)
			return 0;
	}
	/* Debian's multiarch directories, /usr/include/x86_64-linux-gnu/...
	 * (read by hand: a static glibc's glob() brings the user database
	 * and the resolver along, ~100 KB) */
	if ((dir = opendir("/usr/include"))) {
		while ((de = readdir(dir)))
			if (strstr(de->d_name, "-linux-")) {
				snprintf(path, sizeof(path), "/usr/include/%s/%.*s", de->d_name,
					 (int)len, name);
				if (access(path, F_OK) == 0)
					break;
			}
		closedir(dir);
		if (de)
			return 0;
	}
	snprintf(why, wlen, "'%.*s' file not found (in -I's directories%s the system's%s%s%s; "
		 "a kernel header's types need none: they are BTF)", (int)len, name,
		 quoted ? "," : " and", !quoted ? "" : prog_dir[0] ? " and beside the program in '" :
		 " and the current directory", quoted ? prog_dir : "",
		 quoted && prog_dir[0] ? "'" : "");
	return -ENOENT;
}

char *lang_cpp(const char *text, struct lang_err *err)
{
	struct define d[MAX_DEFINES];
	bool active[MAX_IF + 1] = { true }, taken[MAX_IF + 1] = { true };
	int nd = 0, depth = 0, line = 1, if_line[MAX_IF + 1] = { 0 };
	bool inc = false;	/* inside a block comment */
	bool instr = false;	/* inside a string literal */
	size_t ol = 0, cap = strlen(text) + 64;
	char *o = malloc(cap);
	const char *s = text;
	bool ok = o != NULL;

	if (o)
		o[0] = '\0';
	while (ok && *s) {
		size_t n = strcspn(s, "\n");
		const char *p = s + strspn(s, " \t");
		bool on = active[depth];

		/* A '#' inside a block comment is text, as cpp strips
		 * comments first (gethostlatency.bt has " # need" in one). */
		if (*p == '#' && !inc && !instr) {
			const char *w = p + 1 + strspn(p + 1, " \t"), *a;
			size_t wl = strspn(w, "abcdefghijklmnopqrstuvwxyz");

			a = w + wl + strspn(w + wl, " \t");
			if ((wl == 5 && !strncmp(w, "ifdef", 5)) || (wl == 6 && !strncmp(w, "ifndef", 6)) ||
			    (wl == 2 && !strncmp(w, "if", 2))) {
				size_t al = 0;
				bool c;

				while (id_char(a[al]))
					al++;
				if (depth == MAX_IF) {
					cpp_err(err, line, 1, "#if nested more than %d deep", MAX_IF);
					goto fail;
				}
				if (wl == 2) {
					if (al != 1 || (*a != '0' && *a != '1')) {
						cpp_err(err, line, (int)(a - s) + 1, "#if takes 0 or 1 "
							"here (use #ifdef/#ifndef)");
						goto fail;
					}
					c = *a == '1';
				} else {
					c = defined(d, nd, a, al) == (wl == 5);
				}
				depth++;
				if_line[depth] = line;
				active[depth] = on && c;
				taken[depth] = c;
			} else if (wl == 4 && !strncmp(w, "else", 4)) {
				if (!depth) {
					cpp_err(err, line, (int)(w - s), "#else without #if");
					goto fail;
				}
				active[depth] = active[depth - 1] && !taken[depth];
				taken[depth] = true;
			} else if (wl == 5 && !strncmp(w, "endif", 5)) {
				if (!depth) {
					cpp_err(err, line, (int)(w - s), "#endif without #if");
					goto fail;
				}
				depth--;
			} else if (line == 1 && w[0] == '!' && w == p + 1) {
				/* #!/usr/bin/env bpftrace */
			} else if (wl == 7 && !strncmp(w, "include", 7)) {
				/* Types come from BTF or the program: no header is read,
				 * but one that is nowhere is an error, as in bpftrace. */
				char why[200];

				if (on && (*a == '<' || *a == '"') &&
				    lang_header_check(a + 1, strcspn(a + 1, ">\"\n"), *a == '"',
						      why, sizeof(why)) < 0) {
					cpp_err(err, line, (int)(a - s) + 1, "%s", why);
					goto fail;
				}
			} else if (wl == 6 && !strncmp(w, "define", 6) && on) {
				size_t al = 0, bl;
				const char *b;

				while (id_char(a[al]))
					al++;
				b = a + al;
				if (!al) {
					cpp_err(err, line, (int)(a - s) + 1, "#define: a name must "
						"follow");
					goto fail;
				}
				if (nd == MAX_DEFINES) {
					cpp_err(err, line, 1, "more than %d #defines", MAX_DEFINES);
					goto fail;
				}
				memset(&d[nd], 0, sizeof(d[nd]));
				d[nd].np = -1;
				if (*b == '(' && define_params(&d[nd], &b, s + n)) {
					define_free(&d[nd]);
					cpp_err(err, line, (int)(b - s) + 1, "#define %.*s(...): the "
						"parameters are names, separated by commas (no '...')",
						(int)al, a);
					goto fail;
				}
				b += strspn(b, " \t");
				bl = n - (size_t)(b - s);
				while (bl && (b[bl - 1] == ' ' || b[bl - 1] == '\t' || b[bl - 1] == '\r'))
					bl--;
				d[nd].name = strndup(a, al);
				d[nd].body = strndup(b, bl);
				if (!d[nd].name || !d[nd].body) {
					define_free(&d[nd]);
					ok = false;
					break;
				}
				nd++;
			} else if ((wl == 5 && !strncmp(w, "undef", 5)) || (wl == 6 && !strncmp(w, "pragma", 6)) ||
				   !on) {
				/* nothing */
			} else if (on) {
				cpp_err(err, line, (int)(p - s) + 1, "unknown directive '#%.*s'",
					(int)wl, w);
				goto fail;
			}
			/* The directive itself: blanked. */
			for (size_t i = 0; ok && i < n; i++)
				ok = out(&o, &ol, &cap, " ", 1);
		} else if (on) {
			struct xpos x = { .err = err, .line = line, .inc = &inc, .instr = &instr };
			int r = expand(&o, &ol, &cap, s, n, d, nd, &x);

			if (r == -EINVAL)
				goto fail;
			ok = !r;
		} else {
			struct xpos x = { .err = err, .line = line, .inc = &inc, .instr = &instr };

			for (size_t i = 0; ok && i < n; i++)
				ok = out(&o, &ol, &cap, " ", 1);
			/* Skipped text still opens and closes comments. */
			expand(NULL, NULL, NULL, s, n, NULL, 0, &x);
		}
		if (ok && s[n])
			ok = out(&o, &ol, &cap, "\n", 1);
		s += n + (s[n] != '\0');
		line++;
	}
	if (ok && depth) {
		cpp_err(err, if_line[depth], 1, "#if without #endif");
		goto fail;
	}
	if (!ok)
		cpp_err(err, 0, 0, "out of memory");
	for (int i = 0; i < nd; i++)
		define_free(&d[i]);
	if (!ok)
		free(o);
	return ok ? o : NULL;
fail:
	for (int i = 0; i < nd; i++)
		define_free(&d[i]);
	free(o);
	return NULL;
}

/* ---- the environment -------------------------------------------------------- */

struct tenv {
	struct btf *kernel;		/* vmlinux or --btf; NULL when none */
	bool kernel_tried;
	char kernel_why[384];
	const char *source;
	struct btf *mods[512];		/* module BTF, loaded on a miss */
	char *mod_name[512];
	int nmods;
	bool mods_tried;
	struct btf *mod;		/* the module of the program's kfuncs, or NULL:
					 * its split BTF is the base of the layers */
	char mod_is[64];
	bool mod_own;			/* not one of mods[] */
	struct btf *layer[MAX_LAYERS];	/* the program's definitions */
	int nlayers;
};

/* The kernel's types: vmlinux's, or a module's over them. */
static const struct btf *kernel(struct tenv *t)
{
	return t->mod ? t->mod : t->kernel;
}

static const struct btf *top(struct tenv *t)
{
	return t->nlayers ? t->layer[t->nlayers - 1] : kernel(t);
}

const struct btf *ctypes_btf(struct tenv *t)
{
	return top(t);
}

bool ctypes_btf_running(struct tenv *t)
{
	/* FTR_VMLINUX_BTF stands for the running kernel's own BTF (the unit tests'
	 * kernels, a kernel whose BTF is kept elsewhere): argument names from it
	 * are used only where the kernel itself takes names (PS_ARGNAME, 6.8+,
	 * which has BTF of its own).  --btf FILE is another kernel's types. */
	return t->kernel && !btf_file;
}

const char *ctypes_btf_source(struct tenv *t)
{
	return t->kernel ? t->source : NULL;
}

static void load_kernel(struct tenv *t)
{
	char why[200];
	int ret;

	if (t->kernel_tried)
		return;
	t->kernel_tried = true;
	t->source = btf_file ? btf_file : vmlinux();
	ret = btf_load_file(t->source, NULL, &t->kernel, why, sizeof(why));
	if (ret == -ENOENT && !btf_file)
		snprintf(t->kernel_why, sizeof(t->kernel_why), "this kernel has no BTF (no %s): "
			 "give the types with --btf FILE or FTR_VMLINUX_BTF=FILE (made with "
			 "pahole --btf_encode_detached from a vmlinux with debug info: before 5.2 "
			 "no kernel has BTF, the distribution's debug vmlinux has the DWARF) or "
			 "define them in the program", t->source);
	else if (ret)
		snprintf(t->kernel_why, sizeof(t->kernel_why), "cannot read BTF '%s': %s",
			 t->source, why);
}

/* Module BTF, split over vmlinux: read on a name vmlinux lacks. */
static void load_modules(struct tenv *t)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *e;

	if (t->mods_tried || !t->kernel || btf_file)
		return;
	t->mods_tried = true;
	module_path("", dir, sizeof(dir));
	d = opendir(dir);
	while (d && (e = readdir(d)) && t->nmods < (int)ARRAY_SIZE(t->mods)) {
		char path[PATH_MAX + 256], why[160];

		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
			continue;
		module_path(e->d_name, path, sizeof(path));
		if (!btf_load_file(path, t->kernel, &t->mods[t->nmods], why, sizeof(why)) &&
		    (t->mod_name[t->nmods] = strdup(e->d_name)))
			t->nmods++;
		else if (ftr_verbose)
			ftr_warn("module BTF '%s' skipped: %s", path, why);
	}
	if (d)
		closedir(d);
}

/* kfunc:[MOD:]FUNC: FUNC, and MOD in mod ("" for vmlinux's). */
static const char *kfunc_split(const char *target, char *mod, size_t len)
{
	const char *c = strchr(target, ':');

	snprintf(mod, len, "%.*s", c ? (int)(c - target) : 0, target);
	if (!strcmp(mod, "vmlinux"))
		mod[0] = '\0';
	return c ? c + 1 : target;
}

void ctypes_close(struct tenv *t)
{
	if (!t)
		return;
	for (int i = t->nlayers - 1; i >= 0; i--)
		btf_free(t->layer[i]);
	for (int i = 0; i < t->nmods; i++)
		btf_free(t->mods[i]), free(t->mod_name[i]);
	if (t->mod_own)
		btf_free(t->mod);
	btf_free(t->kernel);
	free(t);
}

unsigned ctypes_align(const struct btf *b, uint32_t id)
{
	struct btf_t t;
	unsigned a = 1;

	for (int depth = 0; depth < 16; depth++) {
		id = btf_skip(b, id);
		btf_type(b, id, &t);
		switch (t.kind) {
		case BTF_INT: case BTF_ENUM: case BTF_ENUM64: case BTF_FLOAT:
			return t.size_type >= 16 ? 16 : t.size_type ? t.size_type : 1;
		case BTF_PTR:
			return BTF_PTR_SIZE;
		case BTF_ARRAY:
			id = t.extra[0];
			continue;
		case BTF_STRUCT: case BTF_UNION:
			for (unsigned i = 0; i < t.vlen; i++) {
				struct btf_member m;
				unsigned ma;

				btf_member(b, id, i, &m);
				ma = ctypes_align(b, m.type);
				/* A member off its alignment: a packed struct,
				 * which BTF does not mark (pahole infers it so). */
				if (!m.bits && m.bit_off % (ma * 8))
					return 1;
				a = ma > a ? ma : a;
			}
			/* packed too, where a size is not a multiple of it */
			return t.size_type % a ? 1 : a;
		default:
			return 1;
		}
	}
	return 1;
}

/* ---- C declarations ----------------------------------------------------------- */

enum { K_EOF, K_ID, K_NUM, K_P };

struct cparse {
	struct tenv *t;
	const char *s, *p;
	int line0, col0, line;
	const char *lstart;
	int k;			/* token kind */
	char tok[128];
	long long num;
	char c;			/* K_P: the character */
	const char *tpos;
	char *why;
	size_t wlen;
	bool failed;
	struct btf_builder bb;
	int nest;
	bool packed;		/* the struct being laid out is __attribute__((packed)) */
};

static void cfail(struct cparse *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void cfail(struct cparse *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = true;
	va_start(ap, fmt);
	vsnprintf(c->why, c->wlen, fmt, ap);
	va_end(ap);
}

static void cnext(struct cparse *c)
{
	for (;;) {
		while (isspace((unsigned char)*c->p)) {
			if (*c->p == '\n')
				c->line++, c->lstart = c->p + 1;
			c->p++;
		}
		if (c->p[0] == '/' && c->p[1] == '/') {
			c->p += strcspn(c->p, "\n");
		} else if (c->p[0] == '/' && c->p[1] == '*') {
			const char *e = strstr(c->p + 2, "*/");

			c->p = e ? e + 2 : c->p + strlen(c->p);
		} else {
			break;
		}
	}
	c->tpos = c->p;
	if (!*c->p || c->failed) {
		c->k = K_EOF;
	} else if (id_start(*c->p)) {
		size_t n = 0;

		while (id_char(c->p[n]))
			n++;
		snprintf(c->tok, sizeof(c->tok), "%.*s", (int)n, c->p);
		c->p += n;
		c->k = K_ID;
	} else if (isdigit((unsigned char)*c->p) || (*c->p == '-' && isdigit((unsigned char)c->p[1]))) {
		char *e;

		c->num = strtoll(c->p, &e, 0);
		while (*e == 'u' || *e == 'U' || *e == 'l' || *e == 'L')
			e++;
		c->p = e;
		c->k = K_NUM;
	} else {
		c->c = *c->p++;
		c->k = K_P;
	}
}

static bool is_p(struct cparse *c, char ch)
{
	return c->k == K_P && c->c == ch;
}

static bool eat(struct cparse *c, char ch)
{
	if (!is_p(c, ch))
		return false;
	cnext(c);
	return true;
}

static bool is_id(struct cparse *c, const char *w)
{
	return c->k == K_ID && !strcmp(c->tok, w);
}

static void want(struct cparse *c, char ch)
{
	if (!eat(c, ch))
		cfail(c, "expected '%c'%s%s", ch, c->k == K_ID ? " before " : "",
		      c->k == K_ID ? c->tok : "");
}

/* Layers: the types added so far become loadable BTF. */
static uint32_t flush(struct cparse *c)
{
	size_t len;
	void *blob;
	struct btf *b;
	char why[160];
	struct tenv *t = c->t;

	if (!c->bb.nr)
		return 0;
	blob = btfb_finish(&c->bb, &len);
	if (!blob || t->nlayers == MAX_LAYERS) {
		free(blob);
		cfail(c, blob ? "too many definitions" : "out of memory");
		btfb_init(&c->bb, top(t));
		return -1;
	}
	if (btf_load(blob, len, top(t), &b, why, sizeof(why)) < 0) {
		cfail(c, "internal: program types: %s", why);
		b = NULL;
	} else {
		t->layer[t->nlayers++] = b;
	}
	free(blob);
	btfb_init(&c->bb, top(t));
	return 0;
}

/* A type by name in the program's types, then BTF's (loaded on demand). */
static uint32_t lookup(struct tenv *t, const char *name, enum btf_kind k)
{
	uint32_t id = t->nlayers ? btf_find(top(t), name, k) : 0;

	if (id)
		return id;
	load_kernel(t);
	id = t->kernel ? btf_find(t->kernel, name, k) : 0;
	/* Module types are found but not layered under the program's:
	 * they are read through their own btf. */
	return id;
}

/* C integer spellings, and the kernel's and bpftrace's fixed-size names. */
static const struct {
	const char *name;
	unsigned char size, sign;
} ints[] = {
	{ "u8", 1, 0 }, { "u16", 2, 0 }, { "u32", 4, 0 }, { "u64", 8, 0 },
	{ "s8", 1, 1 }, { "s16", 2, 1 }, { "s32", 4, 1 }, { "s64", 8, 1 },
	{ "__u8", 1, 0 }, { "__u16", 2, 0 }, { "__u32", 4, 0 }, { "__u64", 8, 0 },
	{ "__s8", 1, 1 }, { "__s16", 2, 1 }, { "__s32", 4, 1 }, { "__s64", 8, 1 },
	{ "uint8", 1, 0 }, { "uint16", 2, 0 }, { "uint32", 4, 0 }, { "uint64", 8, 0 },
	{ "int8", 1, 1 }, { "int16", 2, 1 }, { "int32", 4, 1 }, { "int64", 8, 1 },
	{ "uint8_t", 1, 0 }, { "uint16_t", 2, 0 }, { "uint32_t", 4, 0 }, { "uint64_t", 8, 0 },
	{ "int8_t", 1, 1 }, { "int16_t", 2, 1 }, { "int32_t", 4, 1 }, { "int64_t", 8, 1 },
	{ "size_t", sizeof(size_t), 0 }, { "ssize_t", sizeof(size_t), 1 }, { "pid_t", 4, 1 }, { "uid_t", 4, 0 },
	{ "gid_t", 4, 0 }, { "dev_t", 4, 0 }, { "loff_t", 8, 1 }, { "sector_t", 8, 0 },
	{ "bool", 1, 0 }, { "_Bool", 1, 0 }, { "__be16", 2, 0 }, { "__be32", 4, 0 },
	{ "__le16", 2, 0 }, { "__le32", 4, 0 }, { "umode_t", 2, 0 }, { "gfp_t", 4, 0 },
};

bool ctypes_is_type_word(const char *w, size_t n)
{
	static const char *const kw[] = { "struct", "union", "enum", "const", "volatile",
					  "unsigned", "signed", "char", "short", "int", "long",
					  "void" };

	for (size_t i = 0; i < ARRAY_SIZE(kw); i++)
		if (strlen(kw[i]) == n && !strncmp(kw[i], w, n))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
		if (strlen(ints[i].name) == n && !strncmp(ints[i].name, w, n))
			return true;
	return false;
}

const char *ctypes_why(struct tenv *t)
{
	load_kernel(t);
	return t->kernel_why;
}

static uint32_t add_int(struct cparse *c, const char *name, unsigned size, bool sign)
{
	uint32_t id = btfb_add(&c->bb, BTF_INT, false, 0, name, size);

	btfb_word(&c->bb, (sign ? BTF_INT_SIGNED : 0) << 24 | size * 8);
	return id;
}

static uint32_t record(struct cparse *c, bool is_union, const char *name);
static uint32_t enum_def(struct cparse *c, const char *name);

/* A type's base: qualifiers, then struct/union/enum, an int spelling or a
 * typedef name.  Type id (0: void), or 0 with c->failed. */
static uint32_t base_type(struct cparse *c)
{
	static const char *const words[] = { "unsigned", "signed", "char", "short", "int",
					     "long" };
	int seen[6] = { 0 };
	bool any = false;

	while (is_id(c, "const") || is_id(c, "volatile") || is_id(c, "restrict") ||
	       is_id(c, "__restrict") || is_id(c, "extern") || is_id(c, "static"))
		cnext(c);
	if (is_id(c, "struct") || is_id(c, "union") || is_id(c, "enum")) {
		bool su = c->tok[0] == 's' ? false : c->tok[0] == 'u';
		bool en = c->tok[0] == 'e';
		char name[128] = "";
		uint32_t id;

		cnext(c);
		if (c->k == K_ID) {
			snprintf(name, sizeof(name), "%s", c->tok);
			cnext(c);
		}
		if (is_p(c, '{'))
			return en ? enum_def(c, name) : record(c, su, name);
		if (!name[0]) {
			cfail(c, "expected a name or '{' after %s", en ? "enum" : su ? "union" : "struct");
			return 0;
		}
		id = lookup(c->t, name, en ? BTF_ENUM : su ? BTF_UNION : BTF_STRUCT);
		if (!id) {
			/* A forward declaration: usable behind a pointer. */
			id = btfb_add(&c->bb, BTF_FWD, su, 0, name, 0);
			flush(c);
		}
		return id;
	}
	if (c->k != K_ID) {
		cfail(c, "expected a type");
		return 0;
	}
	for (;;) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (is_id(c, words[i]))
				break;
		if (i == ARRAY_SIZE(words))
			break;
		seen[i]++;
		any = true;
		cnext(c);
	}
	if (any) {
		/* long is the word (4 bytes on 32-bit targets), long long 8 */
		unsigned size = seen[2] ? 1 : seen[3] ? 2 : seen[5] > 1 ? 8 :
				seen[5] ? (unsigned)sizeof(long) : 4;
		/* Plain char: signed on x86-64, unsigned on arm64 (the ABI's;
		 * ftr runs on the machine it traces). */
		bool sign = !seen[0] && !(seen[2] && !seen[1] && (char)-1 > 0);
		char name[40];
		uint32_t id;

		/* The kernel's BTF spells them as gcc does. */
		snprintf(name, sizeof(name), "%s%s%s", !sign && size != 1 ? "unsigned " : "",
			 !sign && size == 1 ? "unsigned " : seen[1] && size == 1 ? "signed " : "",
			 size == 1 ? "char" : size == 2 ? "short" : seen[5] ?
			 (seen[5] > 1 ? "long long" : "long") : "int");
		if (seen[5] == 1 && size != 1 && size != 2)
			snprintf(name, sizeof(name), "%s", sign ? "long" : "long unsigned int");
		id = c->t->nlayers || c->t->kernel ? lookup(c->t, name, BTF_INT) : 0;
		if (!id) {
			id = add_int(c, name, size, sign);
			flush(c);
		}
		return id;
	}
	if (is_id(c, "void")) {
		cnext(c);
		return 0;
	}
	{
		char name[128];
		uint32_t id;

		snprintf(name, sizeof(name), "%s", c->tok);
		cnext(c);
		id = lookup(c->t, name, BTF_TYPEDEF);
		if (!id)
			id = lookup(c->t, name, BTF_INT);
		if (id)
			return id;
		for (size_t i = 0; i < ARRAY_SIZE(ints); i++)
			if (!strcmp(ints[i].name, name)) {
				id = add_int(c, name, ints[i].size, ints[i].sign);
				flush(c);
				return id;
			}
		if (c->t->kernel)
			cfail(c, "unknown type '%s' (not in %s nor defined in the program)", name,
			      c->t->source);
		else
			cfail(c, "unknown type '%s': %s", name, c->t->kernel_why[0] ?
			      c->t->kernel_why : "define it in the program");
		return 0;
	}
}

struct decl {
	char name[128];
	uint32_t type;
	int nptr;
	long long dims[4];
	int ndims;
	bool fnptr;
};

/* "*"* NAME ("[" N "]")*, or "(" "*" NAME ")" "(" ... ")" for a function pointer. */
static void declarator(struct cparse *c, struct decl *d, bool need_name)
{
	d->nptr = 0;
	d->ndims = 0;
	d->fnptr = false;
	d->name[0] = '\0';
	for (;;) {
		if (eat(c, '*'))
			d->nptr++;
		else if (is_id(c, "const") || is_id(c, "volatile") || is_id(c, "restrict"))
			cnext(c);
		else
			break;
	}
	if (eat(c, '(')) {
		int depth = 1;

		want(c, '*');
		if (c->k == K_ID) {
			snprintf(d->name, sizeof(d->name), "%s", c->tok);
			cnext(c);
		}
		want(c, ')');
		if (is_p(c, '(')) {
			cnext(c);
			while (depth && c->k != K_EOF) {
				depth += is_p(c, '(') - is_p(c, ')');
				cnext(c);
			}
		}
		d->fnptr = true;
		return;
	}
	if (c->k == K_ID) {
		snprintf(d->name, sizeof(d->name), "%s", c->tok);
		cnext(c);
	} else if (need_name) {
		cfail(c, "expected a member name");
		return;
	}
	while (eat(c, '[')) {
		if (d->ndims == 4) {
			cfail(c, "more than 4 array dimensions");
			return;
		}
		if (c->k == K_NUM && c->num >= 0 && c->num < (1 << 30)) {
			d->dims[d->ndims++] = c->num;
			cnext(c);
		} else if (is_p(c, ']')) {
			d->dims[d->ndims++] = 0;	/* a flexible array */
		} else {
			cfail(c, "an array size must be a number");
			return;
		}
		want(c, ']');
	}
}

/* The type a declarator makes of base: pointers, then arrays. */
static uint32_t derive(struct cparse *c, uint32_t base, struct decl *d)
{
	uint32_t id = base, idx;

	if (d->fnptr) {
		/* A function pointer is read as a pointer to void. */
		id = btfb_add(&c->bb, BTF_PTR, false, 0, NULL, 0);
		flush(c);
		return id;
	}
	for (int i = 0; i < d->nptr; i++)
		id = btfb_add(&c->bb, BTF_PTR, false, 0, NULL, id);
	if (d->ndims) {
		idx = add_int(c, "__ARRAY_SIZE_TYPE__", 4, false);
		for (int i = d->ndims - 1; i >= 0; i--) {
			uint32_t elem = id;

			id = btfb_add(&c->bb, BTF_ARRAY, false, 0, NULL, 0);
			btfb_word(&c->bb, elem);
			btfb_word(&c->bb, idx);
			btfb_word(&c->bb, (uint32_t)d->dims[i]);
		}
	}
	flush(c);
	return id;
}

struct mem {
	char name[128];
	uint32_t type;
	uint32_t bit_off, bits;
};

/* Lay out one member at *bit (LP64 C: gcc's rules on x86-64 and arm64). */
static bool place(struct cparse *c, bool is_union, uint32_t ty, bool fnptr, bool bf,
		  unsigned bits, const char *name, uint64_t *bit, uint64_t *size, unsigned *align,
		  uint64_t *at)
{
	int64_t sz = fnptr ? 8 : btf_size(top(c->t), ty);
	/* packed: every member at the next byte, a bitfield at the next bit */
	unsigned al = c->packed ? 1 : fnptr ? 8 : ctypes_align(top(c->t), ty);

	if (sz < 0 || (bf && !sz)) {
		/* Declared, not defined: a kernel type where there is no BTF
		 * (bpftrace's tools define their own structs around the
		 * kernel's, from kernel headers ftr does not read). */
		const char *why = ctypes_why(c->t);

		cfail(c, "member '%s' has an incomplete type%s%s", name, why[0] ? ": " : "", why);
		return false;
	}
	/* An unnamed bitfield does not align the struct (zero-width ones
	 * align the next member only). */
	if (!bf || name[0])
		*align = al > *align ? al : *align;
	if (is_union) {
		*bit = 0;
	} else if (bf && c->packed) {
		if (!bits)
			*bit = (*bit + 7) / 8 * 8;
	} else if (bf) {
		uint64_t unit = (uint64_t)sz * 8;

		/* A bitfield never straddles a unit of its type's size. */
		if (!bits || *bit / unit != (*bit + bits - 1) / unit)
			*bit = (*bit + unit - 1) / unit * unit;
	} else {
		*bit = (*bit + al * 8 - 1) / (al * 8) * (al * 8);
	}
	*at = *bit;
	*bit += bf ? bits : (uint64_t)sz * 8;
	if (is_union) {
		uint64_t bytes = bf ? (bits + 7) / 8 : (uint64_t)sz;

		*size = bytes > *size ? bytes : *size;
	}
	if (*bit > (1ull << 31)) {
		cfail(c, "'%s' is too large", name);
		return false;
	}
	return true;
}

/*
 * The __attribute__((...)) after the '}' of the struct whose '{' is at p:
 * whether one says packed.  (They follow the members, which a packed struct
 * lays out otherwise: read before them.)
 */
static bool packed_at(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		depth += (*p == '{') - (*p == '}');
		if (!depth)
			break;
	}
	while (*p) {
		p++;
		p += strspn(p, " \t\r\n");
		if (p[0] == '/' && p[1] == '*' && strstr(p + 2, "*/")) {
			p = strstr(p + 2, "*/") + 1;
			continue;
		}
		if (!str_has_prefix(p, "__attribute__") || id_char(p[13]))
			return false;
		for (p += 13, depth = 0; *p; p++) {
			if (str_has_prefix(p, "packed") || str_has_prefix(p, "__packed__"))
				if (!id_char(p[-1]) && !id_char(p[p[0] == '_' ? 10 : 6]))
					return true;
			depth += (*p == '(') - (*p == ')');
			if (*p == ')' && !depth)
				break;
		}
	}
	return false;
}

/* __attribute__((packed)), ((aligned(N))), ((aligned)): the alignment it
 * sets (0: none), past them. */
static unsigned attributes(struct cparse *c)
{
	unsigned al = 0;

	while (!c->failed && is_id(c, "__attribute__")) {
		cnext(c);
		want(c, '(');
		want(c, '(');
		while (!c->failed && c->k == K_ID) {
			if (!strcmp(c->tok, "packed") || !strcmp(c->tok, "__packed__")) {
				cnext(c);
			} else if (!strcmp(c->tok, "aligned") || !strcmp(c->tok, "__aligned__")) {
				cnext(c);
				al = 16;	/* the largest alignment, as GCC's bare aligned */
				if (eat(c, '(')) {
					if (c->k != K_NUM || c->num < 1 || c->num > 4096 ||
					    (c->num & (c->num - 1)))
						cfail(c, "aligned() takes a power of 2");
					al = (unsigned)c->num;
					cnext(c);
					want(c, ')');
				}
			} else {
				cfail(c, "__attribute__((%s)) is not in ftr (packed and aligned are)",
				      c->tok);
			}
			if (!eat(c, ','))
				break;
		}
		want(c, ')');
		want(c, ')');
	}
	return al;
}

static uint32_t record(struct cparse *c, bool is_union, const char *name)
{
	struct mem *m = NULL;
	int n = 0, cap = 0;
	uint64_t bit = 0, size = 0;
	unsigned align = 1, attr_al;
	bool kflag = false, outer = c->packed;
	uint32_t id = 0;

	if (++c->nest > 16) {
		cfail(c, "structs nested more than 16 deep");
		return 0;
	}
	c->packed = is_p(c, '{') && packed_at(c->tpos);
	want(c, '{');
	while (!c->failed && !is_p(c, '}') && c->k != K_EOF) {
		uint32_t base = base_type(c);
		bool anon = is_p(c, ';');

		flush(c);
		while (!c->failed) {
			struct decl d = { .name = "" };
			uint32_t ty = base;
			unsigned bits = 0;
			bool bf = false;
			uint64_t at;

			if (!anon) {
				declarator(c, &d, false);
				ty = derive(c, base, &d);
				if (eat(c, ':')) {
					if (c->k != K_NUM || c->num < 0 || c->num > 64) {
						cfail(c, "a bitfield width must be 0..64");
						break;
					}
					bits = (unsigned)c->num;
					bf = kflag = true;
					cnext(c);
				}
			}
			if (c->failed || !place(c, is_union, ty, d.fnptr, bf, bits, d.name, &bit,
						&size, &align, &at))
				break;
			if (n == cap) {
				struct mem *v = realloc(m, (cap = cap ? cap * 2 : 16) * sizeof(*m));

				if (!v) {
					cfail(c, "out of memory");
					break;
				}
				m = v;
			}
			if (!bf || d.name[0]) {
				snprintf(m[n].name, sizeof(m[n].name), "%s", d.name);
				m[n].type = ty;
				m[n].bit_off = (uint32_t)at;
				m[n].bits = bits;
				n++;
			}
			if (anon || !eat(c, ','))
				break;
		}
		/* bpftrace takes a last member without its ';' ({ int x }) */
		if (!c->failed && !eat(c, ';') && !is_p(c, '}'))
			cfail(c, "expected ';' after a member");
	}
	want(c, '}');
	attr_al = attributes(c);
	if (c->packed)
		align = 1;
	if (attr_al > align || (attr_al && c->packed))
		align = attr_al;
	c->packed = outer;
	if (!is_union)
		size = (bit + 7) / 8;
	size = (size + align - 1) / align * align;
	if (!c->failed) {
		id = btfb_add(&c->bb, is_union ? BTF_UNION : BTF_STRUCT, kflag, (unsigned)n, name,
			      (uint32_t)size);
		for (int i = 0; i < n; i++) {
			btfb_word(&c->bb, btfb_str(&c->bb, m[i].name));
			btfb_word(&c->bb, m[i].type);
			btfb_word(&c->bb, kflag ? m[i].bits << 24 | m[i].bit_off : m[i].bit_off);
		}
		flush(c);
	}
	free(m);
	c->nest--;
	return id;
}

static uint32_t enum_def(struct cparse *c, const char *name)
{
	struct { char name[128]; int64_t v; } e[128];
	int n = 0;
	int64_t v = 0;
	uint32_t id;

	want(c, '{');
	while (!c->failed && c->k == K_ID) {
		if (n == (int)ARRAY_SIZE(e)) {
			cfail(c, "more than %zu enumerators", ARRAY_SIZE(e));
			return 0;
		}
		snprintf(e[n].name, sizeof(e[n].name), "%s", c->tok);
		cnext(c);
		if (eat(c, '=')) {
			if (c->k != K_NUM) {
				cfail(c, "an enumerator's value must be a number");
				return 0;
			}
			v = c->num;
			cnext(c);
		}
		e[n++].v = v++;
		if (!eat(c, ','))
			break;
	}
	want(c, '}');
	if (c->failed)
		return 0;
	id = btfb_add(&c->bb, BTF_ENUM, true, (unsigned)n, name, 4);
	for (int i = 0; i < n; i++) {
		btfb_word(&c->bb, btfb_str(&c->bb, e[i].name));
		btfb_word(&c->bb, (uint32_t)e[i].v);
	}
	flush(c);
	return id;
}

/* One top-level definition: struct/union/enum {...}; or a typedef. */
static void definition(struct cparse *c)
{
	bool td = is_id(c, "typedef");
	uint32_t base;

	if (td)
		cnext(c);
	base = base_type(c);
	if (c->failed)
		return;
	if (td) {
		struct decl d;
		uint32_t ty;

		declarator(c, &d, true);
		if (c->failed)
			return;
		ty = derive(c, base, &d);
		btfb_add(&c->bb, BTF_TYPEDEF, false, 0, d.name, ty);
		flush(c);
	}
	if (!eat(c, ';'))
		cfail(c, "expected ';' after the definition");
	else if (c->k != K_EOF)
		cfail(c, "one definition at a time");
}

static void cparse_init(struct cparse *c, struct tenv *t, const char *s, char *why, size_t wlen)
{
	memset(c, 0, sizeof(*c));
	c->t = t;
	c->s = c->p = c->lstart = s;
	c->why = why;
	c->wlen = wlen;
	btfb_init(&c->bb, top(t));
	cnext(c);
}

/*
 * The module whose BTF holds the kfuncs of p that vmlinux lacks (named,
 * kfunc:MOD:FUNC, or found among the loaded modules'), made the base of
 * the program's types.  A module's BTF is split over vmlinux's alone, so
 * one module per program.  0, or -errno with err at the probe.
 */
static int kfunc_module(struct tenv *t, const struct program *p, struct lang_err *err)
{
	const struct lang_probe *first = NULL;

	for (int i = 0; i < p->ncl; i++)
		for (int j = 0; j < p->cl[i].nprobes; j++) {
			const struct lang_probe *pr = &p->cl[i].probes[j];
			char mod[64], path[PATH_MAX + 64], why[200];
			const char *fn = kfunc_split(pr->btf_func ? pr->target : "", mod,
						     sizeof(mod));
			struct btf *b = NULL;
			int ret = 0;

			if (!pr->btf_func || (!mod[0] && btf_find(t->kernel, fn, BTF_FUNC)))
				continue;
			if (!mod[0]) {
				/* Not vmlinux's: the loaded module's that has it. */
				load_modules(t);
				for (int k = 0; k < t->nmods && !mod[0]; k++)
					if (btf_find(t->mods[k], fn, BTF_FUNC))
						snprintf(mod, sizeof(mod), "%s", t->mod_name[k]);
				if (!mod[0])
					continue;	/* ctypes_func_proto() says */
			}
			if (t->mod && strcmp(mod, t->mod_is)) {
				err->line = pr->line;
				err->col = pr->col;
				snprintf(err->msg, sizeof(err->msg), "%s: the kfuncs of one program "
					 "are of one module (this one is in '%s', %s in '%s'): a "
					 "module's BTF is split over vmlinux's alone", pr->text, mod,
					 first->text, t->mod_is);
				return -EINVAL;
			}
			if (t->mod)
				continue;
			for (int k = 0; k < t->nmods && !b; k++)
				if (!strcmp(t->mod_name[k], mod))
					b = t->mods[k];
			module_path(mod, path, sizeof(path));
			if (!b && !btf_file) {
				ret = btf_load_file(path, t->kernel, &b, why, sizeof(why));
				t->mod_own = !ret;
			}
			if (!b) {
				err->line = pr->line;
				err->col = pr->col;
				if (btf_file)
					snprintf(err->msg, sizeof(err->msg), "%s: a module's function: "
						 "its types are not in --btf '%s'", pr->text, btf_file);
				else if (ret == -ENOENT && btf_find(t->kernel, fn, BTF_FUNC))
					snprintf(err->msg, sizeof(err->msg), "%s: no module '%s' is "
						 "loaded, and %s is vmlinux's (built in): kfunc:%s",
						 pr->text, mod, fn, fn);
				else if (ret == -ENOENT)
					snprintf(err->msg, sizeof(err->msg), "%s: module '%s' is not "
						 "loaded (no %.200s): load it first (modprobe %s)", pr->text,
						 mod, path, mod);
				else
					snprintf(err->msg, sizeof(err->msg), "%s: cannot read the BTF "
						 "of module '%s': %s", pr->text, mod, why);
				return -ENOENT;
			}
			t->mod = b;
			snprintf(t->mod_is, sizeof(t->mod_is), "%s", mod);
			first = pr;
		}
	return 0;
}

int ctypes_open(const struct program *p, struct tenv **out, struct lang_err *err)
{
	struct tenv *t = calloc(1, sizeof(*t));
	int ret;

	*out = t;
	if (!t)
		return -ENOMEM;
	/* First: the program's types are split BTF over it. */
	if (ctypes_have_btf())
		load_kernel(t);
	if (t->kernel && (ret = kfunc_module(t, p, err)))
		return ret;
	for (int i = 0; i < p->ndecls; i++) {
		struct cparse c;

		cparse_init(&c, t, p->decls[i].text, err->msg, sizeof(err->msg));
		definition(&c);
		free(btfb_finish(&c.bb, &(size_t){ 0 }));
		if (c.failed) {
			const char *ls = c.s;
			int line = p->decls[i].line;

			for (const char *q = c.s; q < c.tpos; q++)
				if (*q == '\n')
					line++, ls = q + 1;
			err->line = line;
			err->col = (int)(c.tpos - ls) + 1 + (line == p->decls[i].line ?
							     p->decls[i].col - 1 : 0);
			return -EINVAL;
		}
	}
	return 0;
}

int ctypes_parse_name(struct tenv *t, const char *text, uint32_t *id, int *nptr, char *why,
		      size_t wlen)
{
	struct cparse c;
	struct decl d;

	cparse_init(&c, t, text, why, wlen);
	*id = base_type(&c);
	if (!c.failed) {
		declarator(&c, &d, false);
		*nptr = d.nptr;
		if (!c.failed && (d.name[0] || d.ndims || d.fnptr || c.k != K_EOF))
			cfail(&c, "'%s' is not a type name", text);
	}
	free(btfb_finish(&c.bb, &(size_t){ 0 }));
	if (c.failed)
		return -EINVAL;
	return 0;
}

int ctypes_constant(struct tenv *t, const char *name, int64_t *val, uint32_t *eid)
{
	const struct btf *b = top(t);

	/* Enumerators: the program's, then the BTF's.  A #define of the
	 * program was replaced before (ctypes.h), so it wins. */
	for (uint32_t id = btf_nr(b) - 1; id > 0; id--) {
		struct btf_t e;

		btf_type(b, id, &e);
		if (e.kind != BTF_ENUM && e.kind != BTF_ENUM64)
			continue;
		for (unsigned i = 0; i < e.vlen; i++)
			if (!strcmp(btf_enumerator(b, id, i, val), name)) {
				*eid = id;
				return 0;
			}
	}
	/* What bpftrace's tools take from headers ftr does not read: the
	 * kernel's ABI, this machine's architecture's (abi.h). */
	*eid = 0;
	return abi_constant(arch_name(), name, val);
}

const char *ctypes_enum_name(struct tenv *t, uint32_t id, int64_t v)
{
	const struct btf *b = top(t);
	struct btf_t e;
	int64_t ev;

	id = btf_skip(b, id);
	btf_type(b, id, &e);
	if (e.kind != BTF_ENUM && e.kind != BTF_ENUM64)
		return NULL;
	for (unsigned i = 0; i < e.vlen; i++) {
		const char *name = btf_enumerator(b, id, i, &ev);

		/* a 32-bit enum's values compare as the 32 bits they are */
		if (ev == v || (e.kind == BTF_ENUM && (uint32_t)ev == (uint32_t)v))
			return name;
	}
	return NULL;
}

uint32_t ctypes_func_proto(struct tenv *t, const char *target, char *why, size_t wlen)
{
	uint32_t id;
	struct btf_t ft;
	char mod[64];
	const char *name = kfunc_split(target, mod, sizeof(mod));

	load_kernel(t);
	if (!t->kernel) {
		snprintf(why, wlen, "%s", t->kernel_why);
		return 0;
	}
	/* ctypes_open() chose the module (kfunc_module()). */
	id = btf_find(kernel(t), name, BTF_FUNC);
	/* MOD:FUNC is the module's own (its ids follow vmlinux's). */
	if (mod[0] && id < btf_nr(t->kernel))
		id = 0;
	if (!id) {
		snprintf(why, wlen, "no function '%s' in %s%s%s", name,
			 mod[0] ? "the BTF of module " : t->source, mod,
			 mod[0] || btf_file ? "" : " or its loaded modules'");
		return 0;
	}
	btf_type(kernel(t), id, &ft);
	return ft.size_type;
}
