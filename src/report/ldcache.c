// SPDX-License-Identifier: GPL-2.0-or-later
/* Libraries by bare name: see ldcache.h. */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ftr.h"
#include "report/elfsym.h"
#include "report/ldcache.h"

bool ldcache_name_matches(const char *name, const char *base)
{
	char want[256];
	size_t n;

	if (!strcmp(name, base))
		return true;
	snprintf(want, sizeof(want), "%s%s", str_has_prefix(name, "lib") ? "" : "lib", name);
	n = strlen(want);
	return !strncmp(base, want, n) && (str_has_prefix(base + n, ".so") || base[n] == '-');
}

/*
 * glibc's cache (elf/cache.c, sysdeps/generic/dl-cache.h): a 48-byte header
 * "glibc-ld.so.cache" "1.1", nlibs, len_strings, flags, 3 bytes, an
 * extension offset, 3 unused words; then nlibs entries of 24 bytes (flags,
 * key, value, osversion, hwcap), key the soname and value the path, both
 * offsets from the header's start.  An old-format table ("ld.so-1.7.0",
 * nlibs, 12-byte entries) may come first, and the new header after it at an
 * 8-byte boundary.
 */
#define NEW_MAGIC "glibc-ld.so.cache1.1"
#define OLD_MAGIC "ld.so-1.7.0"
#define NEW_HDR 48
#define NEW_ENT 24

static uint32_t u32_at(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int ldcache_lookup_buf(const void *buf, size_t len, const char *name, unsigned flags, char *out,
		       size_t outlen)
{
	const unsigned char *b = buf, *h;
	size_t start = 0, nlibs;

	if (len >= 16 && !memcmp(b, OLD_MAGIC, sizeof(OLD_MAGIC) - 1)) {
		size_t nold = u32_at(b + 12);

		if (nold > len / 12)
			return -EINVAL;
		start = (16 + nold * 12 + 7) & ~(size_t)7;
	}
	if (start > len || len - start < NEW_HDR ||
	    memcmp(b + start, NEW_MAGIC, sizeof(NEW_MAGIC) - 1))
		return -EINVAL;
	h = b + start;
	nlibs = u32_at(h + 20);
	if (nlibs > (len - start - NEW_HDR) / NEW_ENT)
		return -EINVAL;
	for (size_t i = 0; i < nlibs; i++) {
		const unsigned char *ent = h + NEW_HDR + i * NEW_ENT;
		uint32_t fl = u32_at(ent), key = u32_at(ent + 4), val = u32_at(ent + 8);
		size_t room = len - start;
		const char *k, *v, *slash;

		if (key >= room || val >= room || !memchr(h + key, '\0', room - key) ||
		    !memchr(h + val, '\0', room - val))
			return -EINVAL;
		if (flags && (fl & 0xffff) != flags)
			continue;
		k = (const char *)h + key;
		v = (const char *)h + val;
		slash = strrchr(v, '/');
		if (!ldcache_name_matches(name, k) &&
		    !ldcache_name_matches(name, slash ? slash + 1 : v))
			continue;
		if (strlen(v) >= outlen)
			return -ENAMETOOLONG;
		snprintf(out, outlen, "%s", v);
		return 0;
	}
	return -ENOENT;
}

static bool regular(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int ldcache_lookup(const char *name, const char *arch, char *out, size_t outlen)
{
	/* FLAG_ELF_LIBC6 with the 64-bit flavour ld.so caches for the arch. */
	unsigned flags = !strcmp(arch, "x86_64") ? 0x0303 : !strcmp(arch, "arm64") ? 0x0a03 : 0;
	size_t len;
	char *buf = read_file("/etc/ld.so.cache", &len);
	int ret;

	if (!buf)
		return -errno;
	ret = ldcache_lookup_buf(buf, len, name, flags, out, outlen);
	free(buf);
	/* The cache can be stale: a library since removed is no answer. */
	return ret == 0 && !regular(out) ? -ENOENT : ret;
}

int ldcache_in_maps(int pid, const char *name, char *out, size_t outlen)
{
	char path[64], line[PATH_MAX + 256];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/'), *base;

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		base = strrchr(file, '/') + 1;
		if (ldcache_name_matches(name, base) && regular(file)) {
			if (strlen(file) >= outlen)
				ret = -ENAMETOOLONG;
			else
				snprintf(out, outlen, "%s", file), ret = 0;
		}
	}
	fclose(f);
	return ret;
}


int ldcache_needed(const char *path, char ***names, size_t *n)
{
	void *dyn = NULL, *str = NULL;
	size_t dl = 0, sl = 0, nd;
	int ret;

	*names = NULL;
	*n = 0;
	ret = elfsym_section(path, ".dynamic", &dyn, &dl);
	if (!ret)
		ret = elfsym_section(path, ".dynstr", &str, &sl);
	if (ret)
		goto out;
	nd = dl / sizeof(Elf64_Dyn);
	for (size_t i = 0; i < nd; i++) {
		Elf64_Dyn d;
		char **nn;

		memcpy(&d, (char *)dyn + i * sizeof(d), sizeof(d));
		if (d.d_tag == DT_NULL)
			break;
		if (d.d_tag != DT_NEEDED || d.d_un.d_val >= sl ||
		    !memchr((char *)str + d.d_un.d_val, '\0', sl - d.d_un.d_val))
			continue;
		nn = realloc(*names, (*n + 1) * sizeof(**names));
		if (!nn || !(nn[*n] = strdup((char *)str + d.d_un.d_val))) {
			if (nn)
				*names = nn;
			ret = -ENOMEM;
			break;
		}
		*names = nn;
		(*n)++;
	}
out:
	free(dyn);
	free(str);
	if (ret) {
		strv_free(*names, *n);
		*names = NULL;
		*n = 0;
	}
	return ret;
}
