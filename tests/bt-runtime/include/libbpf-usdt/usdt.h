/* The USDT macros bpftrace's test programs are written with (libbpf's
 * usdt.h, which bpftrace's tests/include holds and its copy in ../shared
 * does not), over systemtap's <sys/sdt.h> (Debian: systemtap-sdt-dev):
 * the same .note.stapsdt notes, which is what a tracer reads.
 *
 * A semaphore is sdt.h's: PROVIDER_NAME_semaphore in .probes, referenced by
 * every probe of a file built with -DBT_USDT_SEMAPHORES (build.sh does it for
 * the programs that define one).  Its first 16 bits are what the kernel
 * counts; `.active` reads them.
 */
#ifndef BT_RUNTIME_USDT_H
#define BT_RUNTIME_USDT_H

#ifdef BT_USDT_SEMAPHORES
#define _SDT_HAS_SEMAPHORES 1
#endif
#define SDT_USE_VARIADIC 1
#include <sys/sdt.h>

struct usdt_sema {
	volatile unsigned short active;
};

#define USDT(group, name, ...) STAP_PROBEV(group, name, ##__VA_ARGS__)
#define USDT_WITH_SEMA(group, name, ...) STAP_PROBEV(group, name, ##__VA_ARGS__)
/* sdt.h names the semaphore after the probe: SEMA must be GROUP_NAME_semaphore. */
#define USDT_WITH_EXPLICIT_SEMA(sema, group, name, ...) STAP_PROBEV(group, name, ##__VA_ARGS__)
#define USDT_DEFINE_SEMA(sema) \
	struct usdt_sema sema __attribute__((section(".probes"), used, weak))
#define USDT_SEMA(sema) (sema)
#define USDT_SEMA_IS_ACTIVE(sema) ((sema).active > 0)
#define USDT_IS_ACTIVE(group, name) 1

#endif
