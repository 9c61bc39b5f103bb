/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Libraries by bare name (uprobe:libc:getaddrinfo), found as the dynamic
 * linker would find them: in a process's mappings (-p), in ld.so's cache
 * (/etc/ld.so.cache, which knows the directories of /etc/ld.so.conf), and
 * the DT_NEEDED libraries of a file (a symbol glibc 2.34 moved from the
 * libpthread.so.0 stub into libc.so.6).
 *
 * A name matches a library whose file name is NAME, or starts with
 * NAME.so or NAME- (libc-2.31.so), with "lib" put in front when NAME lacks
 * it: "libc" and "c" both find libc.so.6.
 */
#ifndef FTR_LDCACHE_H
#define FTR_LDCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* Does file name base (no directory) name library name? */
bool ldcache_name_matches(const char *name, const char *base);

/*
 * The first library of an ld.so.cache image (buf, len bytes; glibc's
 * "glibc-ld.so.cache1.1" format, alone or after the old "ld.so-1.7.0"
 * table) whose soname matches name, for machine flags `flags` (the
 * cache's FLAG_*: 0x0303 x86-64, 0x0a03 aarch64; 0: any), into out.
 * 0, -ENOENT (none), -EINVAL (not a cache, or corrupt).
 */
int ldcache_lookup_buf(const void *buf, size_t len, const char *name, unsigned flags, char *out,
		       size_t outlen);

/* The same in /etc/ld.so.cache, for arch (arch_name(): "x86_64", "arm64"...). */
int ldcache_lookup(const char *name, const char *arch, char *out, size_t outlen);

/* The first file mapped by process pid (/proc/PID/maps) that names library
 * name.  0, -ENOENT, or -errno (no such process). */
int ldcache_in_maps(int pid, const char *name, char *out, size_t outlen);

/* The DT_NEEDED sonames of the ELF file at path, as a malloc'd array of n
 * malloc'd strings (strv_free).  0 or -errno. */
int ldcache_needed(const char *path, char ***names, size_t *n);

#endif
