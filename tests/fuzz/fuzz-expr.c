// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the event-filter language (src/filter/: parse, bind, eval, render): a -f
 * argument, a named filter, a predicate rendered for the kernel.  Parse any
 * bytes; on success print it back, ask whether the kernel could take it and
 * render it for the kernel into buffers small and large.  A refusal must
 * carry a message.  See driver.c for the harness.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[4096], small[16], why[256];
	const char *names[32];
	struct expr_err err = { 0 };
	struct expr *e;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	e = expr_parse(text, &err);
	fuzz_last_ok = e != NULL;
	if (!e) {
		if (!err.msg[0])
			abort();	/* a refusal without a reason */
	} else {
		expr_format(e, buf, sizeof(buf));
		expr_format(e, small, sizeof(small));
		if (expr_kernel_ok(e, why, sizeof(why))) {
			expr_to_kernel(e, buf, sizeof(buf));
			expr_to_kernel(e, small, sizeof(small));
		}
		expr_fields(e, names, 32);
		expr_free(e);
	}
	free(text);
	return 0;
}
