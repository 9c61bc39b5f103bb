// SPDX-License-Identifier: GPL-2.0-or-later
/* Conditional lines in programs: see lang.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lang/lang.h"

static int directive(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);

	return len >= n && !strncmp(line, name, n) &&
	       (len == n || line[n] == ' ' || line[n] == '\t' || line[n] == '\r');
}

int lang_conditionals(char *text, int (*cond)(const char *expr, void *ctx), void *ctx,
		      struct lang_err *err)
{
	enum { OUTSIDE, TAKING, SKIPPING } state = OUTSIDE;
	int line = 0, if_line = 0;
	bool seen_else = false;

	for (char *p = text; *p; ) {
		size_t len = strcspn(p, "\n");

		line++;
		if (directive(p, len, "//#if")) {
			char expr[256];
			int v;

			if (state != OUTSIDE)
				goto nested;
			snprintf(expr, sizeof(expr), "%.*s", (int)(len - 5), p + 5);
			expr[strcspn(expr, "\r")] = '\0';
			v = cond(expr + strspn(expr, " \t"), ctx);
			if (v < 0) {
				snprintf(err->msg, sizeof(err->msg), "unknown condition '//#if%s'",
					 expr);
				goto bad;
			}
			state = v ? TAKING : SKIPPING;
			if_line = line;
			seen_else = false;
		} else if (directive(p, len, "//#else")) {
			if (state == OUTSIDE || seen_else) {
				snprintf(err->msg, sizeof(err->msg), "'//#else' without '//#if'");
				goto bad;
			}
			state = state == TAKING ? SKIPPING : TAKING;
			seen_else = true;
		} else if (directive(p, len, "//#endif")) {
			if (state == OUTSIDE) {
				snprintf(err->msg, sizeof(err->msg), "'//#endif' without '//#if'");
				goto bad;
			}
			state = OUTSIDE;
		} else if (state == SKIPPING) {
			/* Blanked, not removed: positions in messages stay right. */
			memset(p, ' ', len);
		}
		p += len + (p[len] == '\n');
	}
	if (state != OUTSIDE) {
		line = if_line;
		snprintf(err->msg, sizeof(err->msg), "'//#if' without '//#endif'");
		goto bad;
	}
	return 0;
nested:
	snprintf(err->msg, sizeof(err->msg), "'//#if' inside '//#if' (they do not nest)");
bad:
	err->line = line;
	err->col = 1;
	return -EINVAL;
}
