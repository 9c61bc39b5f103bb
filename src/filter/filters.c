// SPDX-License-Identifier: GPL-2.0-or-later
/* Named filters: see filters.h. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter/filters.h"
#include "ftr.h"

int data_dirs(const char *sub, char dirs[][4096], int max)
{
	char self[4096], env[32];
	ssize_t n;
	int nd = 0;

	/* $FTR_EVENTS, $FTR_FILTERS: a directory of one's own first. */
	snprintf(env, sizeof(env), "FTR_%s", sub);
	for (char *p = env; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	if (getenv(env) && nd < max)
		snprintf(dirs[nd++], 4096, "%s", getenv(env));
	/* The source tree, when ftr runs from build/. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && nd < max) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dirs[nd++], 4096, "%.3000s/../%s", self, sub);
			/* Installed under any prefix: PREFIX/bin/ftr finds
			 * PREFIX/share/ftr, whatever it was built for. */
			if (nd < max)
				snprintf(dirs[nd++], 4096, "%.3000s/../share/ftr/%s", self, sub);
		}
	}
	if (nd < max)
		snprintf(dirs[nd++], 4096, "%s/%s", FTR_DATADIR, sub);
	return nd;
}

/* The expression of filters/NAME.ftr without its comments, or NULL. */
static char *load(const char *name, char *err, size_t errlen)
{
	char dirs[5][4096], *path, *text, *out, *w;
	int nd = data_dirs("filters", dirs, 5);

	for (int i = 0; i < nd; i++) {
		if (asprintf(&path, "%s/%s.ftr", dirs[i], name) < 0)
			return NULL;
		text = read_file(path, NULL);
		if (!text && errno != ENOENT) {
			snprintf(err, errlen, "cannot read filter '%s': %s", path, strerror(errno));
			free(path);
			return NULL;
		}
		free(path);
		if (!text)
			continue;
		out = w = malloc(strlen(text) + 1);
		for (char *l = text; out && l && *l;) {
			char *nl = strchr(l, '\n');
			size_t n = nl ? (size_t)(nl - l) : strlen(l);

			if (!(n >= 2 && l[0] == '/' && l[1] == '/')) {
				memcpy(w, l, n);
				w += n;
				*w++ = ' ';
			}
			l = nl ? nl + 1 : NULL;
		}
		if (out)
			*w = '\0';
		free(text);
		return out ? out : NULL;
	}
	errno = ENOENT;
	return NULL;
}

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the program assign @name (so that it is a map)? */
static bool assigned(const char *text, const char *name, size_t nl)
{
	for (const char *p = strchr(text, '@'); p; p = strchr(p + 1, '@')) {
		const char *q = p + 1 + nl;

		if (strncmp(p + 1, name, nl) || ident(*q))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '[' || (q[0] == '=' && q[1] != '=') || !strncmp(q, "+=", 2) ||
		    !strncmp(q, "-=", 2) || !strncmp(q, "++", 2) || !strncmp(q, "--", 2))
			return true;
	}
	return false;
}

/* Kernel filter syntax → the language: bare fields become args.f. */
static void to_lang(const char *e, FILE *out)
{
	static const char *const keep[] = { "comm", "cpu", "tid" };

	while (*e) {
		if (*e == '"' || *e == '\'') {
			char q = *e;

			fputc(*e++, out);
			while (*e && *e != q)
				fputc(*e++, out);
			if (*e)
				fputc(*e++, out);
		} else if (isalpha((unsigned char)*e) || *e == '_') {
			const char *b = e;
			bool k = false;

			while (ident(*e))
				e++;
			if ((e - b == 4 && !strncmp(b, "COMM", 4)) ||
			    (e - b == 3 && !strncmp(b, "CPU", 3))) {
				fputs(*b == 'C' && b[1] == 'O' ? "comm" : "cpu", out);
				continue;
			}
			for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
				k |= strlen(keep[i]) == (size_t)(e - b) && !strncmp(b, keep[i], e - b);
			fprintf(out, "%s%.*s", k ? "" : "args.", (int)(e - b), b);
		} else {
			fputc(*e++, out);
		}
	}
}

char *filters_expand(const char *text, bool lang, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	char q = 0;

	if (!out) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (const char *p = text; *p;) {
		if (q) {
			if (*p == q)
				q = 0;
			fputc(*p++, out);
			continue;
		}
		if (*p == '"' || (!lang && *p == '\'')) {
			q = *p;
			fputc(*p++, out);
			continue;
		}
		if (*p == '@' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
			const char *e = p + 1;
			char name[128], *expr;

			while (ident(*e))
				e++;
			snprintf(name, sizeof(name), "%.*s", (int)(e - p - 1), p + 1);
			if (lang && assigned(text, name, strlen(name))) {
				fwrite(p, 1, e - p, out);
				p = e;
				continue;
			}
			err[0] = '\0';
			expr = load(name, err, errlen);
			if (!expr && err[0]) {
				fclose(out);
				free(buf);
				return NULL;
			}
			if (!expr && !lang) {
				snprintf(err, errlen, "no named filter '@%s' (a file %s.ftr in "
					 "$FTR_FILTERS, ../filters or %s/filters)", name, name,
					 FTR_DATADIR);
				fclose(out);
				free(buf);
				return NULL;
			}
			if (!expr) {
				fwrite(p, 1, e - p, out);
			} else if (lang) {
				fputc('(', out);
				to_lang(expr, out);
				fputc(')', out);
			} else {
				fprintf(out, "(%s)", expr);
			}
			free(expr);
			p = e;
			continue;
		}
		fputc(*p++, out);
	}
	fclose(out);
	return buf;
}
