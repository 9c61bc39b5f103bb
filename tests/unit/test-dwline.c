// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DWARF reader (src/report/dwline.c) against binutils' addr2line -f -i
 * on every address of every function of tests/helpers/inlines.c built -O2
 * four ways (DWARF 5, DWARF 4, compressed, clang's when built): the
 * functions, files, lines and chains of inlined calls must be the same.
 * DWLINE_COMPARE=FILE:FILE... adds programs (bpftrace's testprogs), compared
 * with DWLINE_TOOL (default addr2line; llvm-addr2line takes the same options).
 * Then cut-down sections: fewer answers, never a read outside them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/dwline.h"
#include "report/elfsym.h"

#define MAX_ADDRS 40000

struct want {
	int n;
	struct dwline_frame f[DWLINE_MAX_FRAMES];
	char names[DWLINE_MAX_FRAMES][128];
};

/* addr2line's frames for addrs (its -a output: an address line, then a
 * function and a file:line a frame). */
static struct want *addr2line(const char *tool, const char *bin, const uint64_t *addrs, size_t n)
{
	char tmp[] = "/tmp/ftr-dwline-XXXXXX", cmd[4200], line[4096];
	struct want *w = calloc(n, sizeof(*w));
	int fd = mkstemp(tmp);
	FILE *f = fdopen(fd, "w"), *p;
	long cur = -1;
	bool name = true;

	assert_non_null(w);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%llx\n", (unsigned long long)addrs[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s -f -i -a -e '%s' < %s", tool, bin, tmp);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct want *x = cur >= 0 && (size_t)cur < n ? &w[cur] : NULL;
		char *colon, *disc;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "0x", 2) && name) {
			cur++;
			continue;
		}
		if (!x || x->n >= DWLINE_MAX_FRAMES)
			continue;
		if (name) {
			snprintf(x->names[x->n], sizeof(x->names[0]), "%.127s", line);
		} else {
			disc = strstr(line, " (discriminator");
			if (disc)
				*disc = '\0';
			colon = strrchr(line, ':');
			if (colon) {
				*colon = '\0';
				x->f[x->n].line = (uint32_t)strtoul(colon + 1, NULL, 10);
			}
			snprintf(x->f[x->n].file, sizeof(x->f[0].file), "%.255s", line);
			x->n++;
		}
		name = !name;
	}
	assert_int_equal(pclose(p), 0);
	unlink(tmp);
	assert_int_equal(cur + 1, (long)n);
	return w;
}

/* Every address of every function symbol of bin. */
static size_t text_addrs(const char *bin, uint64_t *addrs)
{
	struct elfsym *e;
	size_t n = 0;

	assert_int_equal(elfsym_open(bin, &e, NULL, 0), 0);
	for (size_t i = 0; i < elfsym_count(e); i++) {
		const struct elfsym_sym *s = elfsym_get(e, i);

		for (uint64_t a = s->addr; a < s->addr + s->size && n < MAX_ADDRS; a++)
			addrs[n++] = a;
	}
	elfsym_close(e);
	return n;
}

/* Compares; returns the number of addresses with inlined calls. */
static size_t compare(const char *tool, const char *bin)
{
	uint64_t *addrs = malloc(MAX_ADDRS * sizeof(*addrs));
	size_t n, bad = 0, inl = 0, known = 0;
	struct want *w;
	struct dwline *d;

	assert_non_null(addrs);
	n = text_addrs(bin, addrs);
	assert_true(n > 0);
	w = addr2line(tool, bin, addrs, n);
	assert_int_equal(dwline_open(bin, &d), 0);
	for (size_t i = 0; i < n; i++) {
		struct dwline_frame f[DWLINE_MAX_FRAMES];
		int k = dwline_lookup(d, addrs[i], f, DWLINE_MAX_FRAMES);
		/* addr2line's "??:0": no line for it */
		bool none = w[i].n == 1 && !strcmp(w[i].f[0].file, "??");
		bool same = none ? k == 0 : k == w[i].n;

		for (int j = 0; same && !none && j < k; j++)
			same = f[j].line == w[i].f[j].line && !strcmp(f[j].file, w[i].f[j].file) &&
			       !strcmp(f[j].name ? f[j].name : "??", w[i].names[j]);
		inl += k > 1;
		known += k > 0;
		if (same)
			continue;
		if (bad++ < 8) {
			fprintf(stderr, "%s 0x%llx: dwline %d frames, %s %d\n", bin,
				(unsigned long long)addrs[i], k, tool, none ? 0 : w[i].n);
			for (int j = 0; j < k; j++)
				fprintf(stderr, "  dwline    %s %s:%u\n", f[j].name ? f[j].name : "??",
					f[j].file, f[j].line);
			for (int j = 0; !none && j < w[i].n; j++)
				fprintf(stderr, "  %s %s %s:%u\n", tool, w[i].names[j],
					w[i].f[j].file, w[i].f[j].line);
		}
	}
	fprintf(stderr, "%s: %zu addresses, %zu with lines, %zu with inlined calls, %zu differ "
		"from %s\n", bin, n, known, inl, bad, tool);
	assert_int_equal(bad, 0);
	assert_true(known > 0);
	dwline_close(d);
	free(w);
	free(addrs);
	return inl;
}

static void test_against_addr2line(void **state)
{
	/* binutils 2.40's addr2line misreads clang's DWARF 5 (DW_AT_ranges
	 * by rnglistx: the inlined calls of a split range are lost), so
	 * clang's build is compared with LLVM's addr2line, when there */
	static const char *const variants[][2] = {
		{ "inlines-dw5", "addr2line" }, { "inlines-dw4", "addr2line" },
		{ "inlines-gz", "addr2line" }, { "inlines-clang", "llvm-addr2line" },
	};
	char bin[4096], *extra = getenv("DWLINE_COMPARE"), *tok, *save = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
		snprintf(bin, sizeof(bin), "%s/%s", TESTS_BIN, variants[i][0]);
		if (i == 3 && (access(bin, R_OK) ||
			       system("command -v llvm-addr2line > /dev/null") != 0)) {
			fprintf(stderr, "skip %s: no clang or no llvm-addr2line\n", variants[i][0]);
			continue;
		}
		/* -O2 inlines mix into twice into step into work */
		assert_true(compare(variants[i][1], bin) > 20);
	}
	extra = extra ? strdup(extra) : NULL;
	for (tok = extra ? strtok_r(extra, ":", &save) : NULL; tok; tok = strtok_r(NULL, ":", &save))
		compare(getenv("DWLINE_TOOL") ? getenv("DWLINE_TOOL") : "addr2line", tok);
	free(extra);
}

/* Every section cut short, one at a time, at many lengths: lookups give
 * what they can (ASan and UBSan watch the reads in make check-sanitize). */
static void test_truncated(void **state)
{
	static const char *const names[DWS_N] = {
		".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
		".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
		".debug_aranges",
	};
	uint64_t *addrs = malloc(MAX_ADDRS * sizeof(*addrs));
	char bin[4096];
	void *sec[DWS_N];
	size_t len[DWS_N], n;

	(void)state;
	assert_non_null(addrs);
	snprintf(bin, sizeof(bin), "%s/inlines-dw5", TESTS_BIN);
	n = text_addrs(bin, addrs);
	assert_int_equal(elfsym_sections(bin, names, DWS_N, sec, len), 0);
	for (int s = 0; s < DWS_N; s++) {
		void *full = sec[s];
		size_t flen = len[s];

		for (size_t cut = 0; full && cut < flen; cut += 1 + flen / 97) {
			struct dwline *d;
			void *copy = malloc(cut ? cut : 1);

			/* exactly cut bytes, so that ASan sees a read past them */
			assert_non_null(copy);
			memcpy(copy, full, cut);
			sec[s] = copy;
			len[s] = cut;
			assert_int_equal(dwline_from((const void *const *)sec, len, &d), 0);
			for (size_t i = 0; i < n; i += n / 13 + 1) {
				struct dwline_frame f[4];

				assert_true(dwline_lookup(d, addrs[i], f, 4) >= 0);
			}
			dwline_close(d);
			free(copy);
		}
		sec[s] = full;
		len[s] = flen;
	}
	for (int s = 0; s < DWS_N; s++)
		free(sec[s]);
	free(addrs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_addr2line),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
