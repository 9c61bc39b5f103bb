/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Named filters: filters/NAME.ftr holds one expression in the kernel's
 * filter syntax (with a comment header), used as @NAME in a filter
 * (ftr trace -f '@not_ftr && fd == 1') or a program's predicate
 * (/@not_ftr/).  Looked up in $FTR_FILTERS, next to the binary
 * (../filters) and in the installed library.
 */
#ifndef FTR_FILTERS_H
#define FTR_FILTERS_H

#include <stdbool.h>
#include <stddef.h>

/* text with each @NAME that names a filter replaced by "(its expression)";
 * in a program (lang), the expression is rewritten in the language (a bare
 * field f becomes args.f, COMM comm) and an @NAME the program assigns is
 * its map, left alone.  malloc'd; NULL with err when a filter cannot be
 * read.  An @NAME with no file is left as it is (a map, or the error of the
 * filter parser). */
char *filters_expand(const char *text, bool lang, char *err, size_t errlen);

/* The directories of ftr's library for sub ("events", "filters"), in the
 * order they are searched; returns how many. */
int data_dirs(const char *sub, char dirs[][4096], int max);

#endif
