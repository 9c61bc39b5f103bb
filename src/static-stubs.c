// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Static build only (the Makefile leaves this file out of the dynamic one):
 * definitions that keep library objects ftr never uses out of ftr-static.
 * Each replaces the one symbol through which the linker would pull a whole
 * archive member; should a library start using more of that member, the
 * link fails on a duplicate symbol, loudly, instead of shipping a stub.
 *
 * - free_tep_plugin_paths: libtraceevent's tep_free() calls it to free the
 *   plugin directories that tep_add_plugin_path() recorded.  ftr loads no
 *   plugins (they are shared objects, which a static binary cannot load), so
 *   the list is always empty; defining it here keeps event-plugin.o out, and
 *   with it libtraceevent's dlopen() and the linker's warning about it
 *   (8 KB on x86-64).
 *
 * - _Unwind_Resume, __gcc_personality_v0: glibc is built with -fexceptions,
 *   so its stdio cleanups name libgcc's unwinder (libgcc_eh.a, about 25 KB).
 *   The unwinder only ever runs for C++ exceptions, thread cancellation and
 *   backtrace(), none of which the static ftr has (C, one thread); and it
 *   links without unwind tables (.eh_frame is discarded, see the Makefile),
 *   so it could not unwind anything anyway.  Not on 32-bit ARM: there every
 *   function's .ARM.exidx entry names an EHABI personality routine
 *   (__aeabi_unwind_cpp_pr0), which brings libgcc's unwinder in regardless.
 *
 * - deflateInit_, deflate, deflateEnd: zlib's compressor (deflate.o with
 *   trees.o, about 33 KB), which libelf's elf_compress() names for writing
 *   compressed sections.  ftr only reads ELF files (libelf inflates their
 *   compressed sections with inflate.o, which stays), and the static
 *   --pprof writes its gzip in stored blocks (FTR_PPROF_STORED, pprof.c).
 *   Should anything call them, they fail as zlib does on a bad stream.
 */
#include <stdlib.h>
#include <zlib.h>

int deflateInit_(z_streamp strm, int level, const char *version, int stream_size)
{
	(void)strm, (void)level, (void)version, (void)stream_size;
	return Z_STREAM_ERROR;
}

int deflate(z_streamp strm, int flush)
{
	(void)strm, (void)flush;
	return Z_STREAM_ERROR;
}

int deflateEnd(z_streamp strm)
{
	(void)strm;
	return Z_STREAM_ERROR;
}

struct tep_handle;
void free_tep_plugin_paths(struct tep_handle *tep);

void free_tep_plugin_paths(struct tep_handle *tep)
{
	(void)tep;
}

#ifndef __arm__
void _Unwind_Resume(void *exception);
int __gcc_personality_v0(int version, int actions, unsigned long long cls, void *exc, void *ctx);

void _Unwind_Resume(void *exception)
{
	(void)exception;
	abort();
}

int __gcc_personality_v0(int version, int actions, unsigned long long cls, void *exc, void *ctx)
{
	(void)version, (void)actions, (void)cls, (void)exc, (void)ctx;
	abort();
}
#endif
