// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bench/unwind-libs.c — elfutils' libdwfl against libunwind's remote API,
 * on the problem ftr's profiler has: a register set and an 8 KB copy of the
 * user stack, unwound with the CFI of the mapped files.  x86-64 only.
 *
 * The program takes its own snapshot inside a frameless leaf (main -> mid
 * -> leaf, built -O2 -fomit-frame-pointer): the callee-saved registers, pc,
 * sp, and the stack above sp.  Each library then unwinds that snapshot N
 * times, reading the stack from the copy only (as from a sample) and the
 * rest of memory (CFI) from the process itself; libunwind is given each
 * module's .eh_frame_hdr table as perf gives it (dwarf_search_unwind_table).
 * It prints the frames each found (named with dladdr) and the time per walk.
 *
 *   unwind-libs [N]      (default 20000)
 *
 * Build (Debian: libdw-dev, libunwind-dev):
 *   cc -O2 -fomit-frame-pointer -g -rdynamic -o unwind-libs bench/unwind-libs.c \
 *      -ldw -lelf -lunwind-x86_64 -lunwind
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <libunwind.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAXF 64

struct snap {
	uint64_t ip, sp, bp, bx, r12, r13, r14, r15;
	unsigned char stack[8192];
	uint64_t len;
} S;

static uint64_t stack_top(uint64_t sp)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t lo, hi, top = sp + 8192;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && sp >= lo && sp < hi)
			top = hi;
	if (f)
		fclose(f);
	return top;
}

/* The stack above the leaf's sp, while the leaf runs (its callers' frames
 * are gone once it returns).  Writes below that sp only. */
__attribute__((noinline)) static void capture(void)
{
	uint64_t top = stack_top(S.sp);

	S.len = top - S.sp < sizeof(S.stack) ? top - S.sp : sizeof(S.stack);
	memcpy(S.stack, (const void *)S.sp, S.len);
}

__attribute__((noinline)) uint64_t leaf(uint64_t x)
{
	__asm__ volatile("lea 0(%%rip), %%rax\n\t"
			 "movq %%rax, S(%%rip)\n\t"
			 "movq %%rsp, S+8(%%rip)\n\t"
			 "movq %%rbp, S+16(%%rip)\n\t"
			 "movq %%rbx, S+24(%%rip)\n\t"
			 "movq %%r12, S+32(%%rip)\n\t"
			 "movq %%r13, S+40(%%rip)\n\t"
			 "movq %%r14, S+48(%%rip)\n\t"
			 "movq %%r15, S+56(%%rip)\n\t" ::: "rax", "memory");
	capture();
	return x * 3 + 1;
}

__attribute__((noinline)) uint64_t mid(uint64_t x)
{
	return leaf(x + 1) ^ 5;
}

static bool in_copy(uint64_t addr)
{
	return addr >= S.sp && addr - S.sp + 8 <= S.len;
}

/* ---- libdwfl ---- */

static pid_t dw_next_thread(Dwfl *d, void *arg, void **targ)
{
	if (*targ)
		return 0;
	*targ = arg;
	return getpid();
}

static bool dw_mem(Dwfl *d, Dwarf_Addr a, Dwarf_Word *r, void *arg)
{
	if (in_copy(a)) {
		memcpy(r, S.stack + (a - S.sp), 8);
		return true;
	}
	return false;
}

static bool dw_regs(Dwfl_Thread *t, void *arg)
{
	Dwarf_Word r[17] = { 0 };

	r[3] = S.bx;
	r[6] = S.bp;
	r[7] = S.sp;
	r[12] = S.r12;
	r[13] = S.r13;
	r[14] = S.r14;
	r[15] = S.r15;
	r[16] = S.ip;
	return dwfl_thread_state_registers(t, 0, 17, r);
}

static const Dwfl_Thread_Callbacks dw_cbs = { dw_next_thread, NULL, dw_mem, dw_regs, NULL, NULL };
static uint64_t dw_ips[MAXF];
static int dw_n;

static int dw_frame(Dwfl_Frame *f, void *arg)
{
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(f, &pc, NULL) || dw_n >= MAXF)
		return DWARF_CB_ABORT;
	dw_ips[dw_n++] = pc;
	return DWARF_CB_OK;
}

/* ---- libunwind (remote) ---- */

struct hdr_find {
	uint64_t ip, hdr, start, end;
};

static int find_hdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hdr_find *h = arg;
	uint64_t hdr = 0, lo = UINT64_MAX, hi = 0;
	bool hit = false;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_GNU_EH_FRAME)
			hdr = a;
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			lo = a < lo ? a : lo;
			hi = a + p->p_memsz > hi ? a + p->p_memsz : hi;
			hit |= h->ip >= a && h->ip < a + p->p_memsz;
		}
	}
	if (!hit || !hdr)
		return 0;
	h->hdr = hdr;
	h->start = lo;
	h->end = hi;
	return 1;
}

extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t, unw_word_t, unw_dyn_info_t *,
					      unw_proc_info_t *, int, void *);

static int lu_find(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need, void *arg)
{
	struct hdr_find h = { .ip = ip };
	const unsigned char *hdr;
	unw_dyn_info_t di;
	uint32_t count;

	if (!dl_iterate_phdr(find_hdr, &h))
		return -UNW_ENOINFO;
	hdr = (const unsigned char *)h.hdr;
	/* version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4, table
	 * datarel|sdata4: what GNU ld writes (perf accepts only this too). */
	if (hdr[0] != 1 || hdr[2] != 0x03 || hdr[3] != 0x3b)
		return -UNW_ENOINFO;
	memcpy(&count, hdr + 8, 4);
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = h.start;
	di.end_ip = h.end;
	di.u.rti.segbase = h.hdr;
	di.u.rti.table_data = h.hdr + 12;
	di.u.rti.table_len = count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need, arg);
}

static void lu_put(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
}

static int lu_dil(unw_addr_space_t as, unw_word_t *dil, void *arg)
{
	return -UNW_ENOINFO;
}

/* The loaded segments, where reads of CFI may go (libunwind also probes
 * stray addresses when a walk ends). */
static struct { uint64_t lo, hi; } segs[256];
static int nsegs;

static int note_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (int i = 0; i < info->dlpi_phnum && nsegs < 256; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			segs[nsegs].lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			segs[nsegs].hi = segs[nsegs].lo + info->dlpi_phdr[i].p_memsz;
			nsegs++;
		}
	return 0;
}

static int lu_mem(unw_addr_space_t as, unw_word_t a, unw_word_t *v, int write, void *arg)
{
	bool ok = false;

	if (write)
		return -UNW_EINVAL;
	if (in_copy(a)) {
		memcpy(v, S.stack + (a - S.sp), 8);
		return 0;
	}
	/* Not the stack: the CFI tables, read from this process. */
	for (int i = 0; i < nsegs && !ok; i++)
		ok = a >= segs[i].lo && a + 8 <= segs[i].hi;
	if (!ok)
		return -UNW_EINVAL;
	memcpy(v, (const void *)a, 8);
	return 0;
}

static int lu_reg(unw_addr_space_t as, unw_regnum_t r, unw_word_t *v, int write, void *arg)
{
	if (write)
		return -UNW_EINVAL;
	switch (r) {
	case UNW_X86_64_RIP: *v = S.ip; break;
	case UNW_X86_64_RSP: *v = S.sp; break;
	case UNW_X86_64_RBP: *v = S.bp; break;
	case UNW_X86_64_RBX: *v = S.bx; break;
	case UNW_X86_64_R12: *v = S.r12; break;
	case UNW_X86_64_R13: *v = S.r13; break;
	case UNW_X86_64_R14: *v = S.r14; break;
	case UNW_X86_64_R15: *v = S.r15; break;
	default: *v = 0; break;
	}
	return 0;
}

static int lu_fpreg(unw_addr_space_t as, unw_regnum_t r, unw_fpreg_t *v, int w, void *arg)
{
	return -UNW_EINVAL;
}

static int lu_resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

static int lu_name(unw_addr_space_t as, unw_word_t a, char *b, size_t l, unw_word_t *o, void *arg)
{
	return -UNW_EINVAL;
}

static unw_accessors_t lu_acc = { lu_find, lu_put, lu_dil, lu_mem, lu_reg, lu_fpreg, lu_resume,
				  lu_name };
static uint64_t lu_ips[MAXF];
static int lu_n;

static void lu_walk(unw_addr_space_t as)
{
	unw_cursor_t c;

	lu_n = 0;
	if (unw_init_remote(&c, as, NULL) < 0)
		return;
	do {
		unw_word_t ip;

		unw_get_reg(&c, UNW_REG_IP, &ip);
		lu_ips[lu_n++] = ip;
	} while (lu_n < MAXF && unw_step(&c) > 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void show(const char *who, const uint64_t *ips, int n, double us)
{
	printf("%-10s %6.2f us/walk, %d frames:", who, us, n);
	for (int i = 0; i < n; i++) {
		Dl_info d;

		printf(" %s", dladdr((void *)(ips[i] - (i ? 1 : 0)), &d) && d.dli_sname ?
		       d.dli_sname : "?");
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	static const Dwfl_Callbacks cbs = { .find_elf = dwfl_linux_proc_find_elf,
					    .find_debuginfo = dwfl_standard_find_debuginfo };
	double t;
	Dwfl *dwfl;
	unw_addr_space_t as;

	mid((uint64_t)argc);

	dwfl = dwfl_begin(&cbs);
	if (!dwfl || dwfl_linux_proc_report(dwfl, getpid()) || dwfl_report_end(dwfl, NULL, NULL) ||
	    !dwfl_attach_state(dwfl, NULL, getpid(), &dw_cbs, NULL)) {
		fprintf(stderr, "libdwfl: %s\n", dwfl_errmsg(-1));
		return 1;
	}
	dw_n = 0;
	dwfl_getthread_frames(dwfl, getpid(), dw_frame, NULL);	/* warm: CFI parsed */
	t = now();
	for (int i = 0; i < n; i++) {
		dw_n = 0;
		dwfl_getthread_frames(dwfl, getpid(), dw_frame, NULL);
	}
	show("libdwfl", dw_ips, dw_n, (now() - t) / n * 1e6);

	dl_iterate_phdr(note_segs, NULL);
	as = unw_create_addr_space(&lu_acc, 0);
	unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
	lu_walk(as);
	t = now();
	for (int i = 0; i < n; i++)
		lu_walk(as);
	show("libunwind", lu_ips, lu_n, (now() - t) / n * 1e6);
	printf("same frames: %s\n", dw_n == lu_n && !memcmp(dw_ips, lu_ips, dw_n * 8) ? "yes" :
	       "NO");
	dwfl_end(dwfl);
	unw_destroy_addr_space(as);
	return 0;
}
