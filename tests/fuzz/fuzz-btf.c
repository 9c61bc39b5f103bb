// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for the BTF reader (kernel/btf.c): btf_load on any bytes,
 * alone and as split BTF over a valid base, and, when accepted, every
 * accessor on every type (names, sizes, members, parameters, enumerators,
 * C spellings, lookups by name).  The reader promises that a blob it
 * accepts is safe to walk: the sanitizers check that it is.
 *
 * Linked with driver.c (make check-fuzz), or libFuzzer (make fuzz).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/btf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether the last input was accepted: driver.c keeps such mutants. */
int fuzz_last_ok;

static void walk(const struct btf *b)
{
	char s[256];

	for (uint32_t id = 0; id < btf_nr(b) + 2; id++) {
		struct btf_t t;

		btf_type(b, id, &t);
		btf_type_str(b, id, s, sizeof(s));
		/* A size is one, or -EINVAL: never a product wrapped below
		 * zero (issue 38: sizeof and array offsets went negative). */
		{
			int64_t sz = btf_size(b, id);

			if (sz < 0 && sz != -EINVAL)
				abort();
		}
		(void)btf_skip(b, id);
		if (t.name[0])
			(void)btf_find(b, t.name, BTF_UNKN);
		for (unsigned i = 0; i < t.vlen; i++) {
			struct btf_member m;
			uint32_t type;
			int64_t v;

			if (t.kind == BTF_STRUCT || t.kind == BTF_UNION) {
				btf_member(b, id, i, &m);
				(void)btf_find_member(b, id, m.name, &m);
			} else if (t.kind == BTF_FUNC_PROTO) {
				(void)btf_param(b, id, i, &type);
			} else if (t.kind == BTF_ENUM || t.kind == BTF_ENUM64) {
				(void)btf_enumerator(b, id, i, &v);
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t base_blob[] = {
		/* header: magic, v1, hdr 24, types 0+16, strings 16+5 */
		0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 16, 0, 0, 0, 5, 0, 0, 0,
		/* type 1: INT "int" size 4, signed 32 bits */
		1, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 32, 0, 0, 1,
		0, 'i', 'n', 't', 0,
	};
	struct btf *base = NULL, *b = NULL, *split = NULL;
	char why[256];

	fuzz_last_ok = 0;
	if (btf_load(data, size, NULL, &b, why, sizeof(why)) == 0) {
		fuzz_last_ok = 1;
		walk(b);
		btf_free(b);
	} else if (!why[0]) {
		fprintf(stderr, "fuzz-btf: refused without a reason\n");
		abort();
	}
	if (btf_load(base_blob, sizeof(base_blob), NULL, &base, why, sizeof(why)) != 0)
		abort();
	if (btf_load(data, size, base, &split, why, sizeof(why)) == 0) {
		walk(split);
		btf_free(split);
	}
	btf_free(base);
	return 0;
}
