/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A program's way in (load.c). */
#ifndef FTR_LANG_LOAD_H
#define FTR_LANG_LOAD_H

#include <stdbool.h>

struct program;

/* A program from a FILE ("-": standard input; a NAME without '/' that is
 * no file: the recipe of that name) or from text: read, /@name/ filters
 * expanded, //#if lines decided, parsed with these positional parameters.
 * *owned: the text parsed (the caller frees it, even on failure).  0, or
 * -1 with the error printed. */
int lang_load(const char *file, const char *text, char **params, int nparams,
	      struct program *prog, char **owned);
/* A FILE operand that names a recipe of the library, not a file. */
bool lang_is_recipe(const char *file);

#endif
