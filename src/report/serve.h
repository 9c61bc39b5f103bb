/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --serve: GET /metrics over HTTP, with libmicrohttpd.  This module knows
 * nothing of maps: its caller (the interpreter's reading loop) renders the
 * text into a memfd and publishes it; the server hands each request a dup
 * of the latest one, so a slow reader holds a file, never a lock the loop
 * waits on.
 *
 *	s = serve_start("127.0.0.1:9469", types, ...)	binds, starts its thread
 *	(loop, every tick)  want = serve_wanted(s);	variants asked for
 *	                    serve_publish(s, v, fd);	a fresh rendering
 *	serve_stop(s);
 *
 * A request waits (at most SERVE_WAIT_MS) for the loop to publish a
 * rendering made after it arrived, so a scrape sees the maps as they are;
 * requests that arrive together share one rendering.  Variant 1 is asked
 * for by an Accept header naming application/openmetrics-text, variant 0
 * otherwise.
 *
 * Safe by default: the address is 127.0.0.1 unless one is given; GET and
 * HEAD of /metrics only (404 elsewhere, 405 for other methods); requests
 * are read into SERVE_REQ_MAX bytes at most; SERVE_CONNS connections at
 * once, SERVE_CONNS_PER_IP from one address, SERVE_IDLE_S seconds for each
 * request from its first byte to its response's last, however slowly it
 * trickles (then the connection is shut down); the server's own threads
 * never run the program or read events.
 *
 * Built without libmicrohttpd (FTR_NO_SERVE: the static binary), every
 * call fails with -ENOTSUP and serve_available() is false.
 */
#ifndef FTR_SERVE_H
#define FTR_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#define SERVE_VARIANTS 2
#define SERVE_WAIT_MS 1000
#define SERVE_REQ_MAX (16 * 1024)
#define SERVE_CONNS 64
#define SERVE_CONNS_PER_IP 8
#define SERVE_IDLE_S 10

struct serve;

#ifdef FTR_NO_SERVE
/* a constant: the code behind it goes from the static binary */
static inline bool serve_available(void) { return false; }
#else
bool serve_available(void);
#endif
/* Pure: "ADDR:PORT", ":PORT", "[V6]:PORT" into host (empty ":PORT" gives
 * 127.0.0.1) and port.  0 or -EINVAL. */
int serve_parse_addr(const char *addr, char *host, size_t hlen, unsigned *port);
#ifndef FTR_NO_SERVE
/* Pure, the request handler's decision (fuzzed, tests/fuzz/fuzz-serve.c):
 * 405 for a method other than GET and HEAD, 404 for a path other than
 * /metrics, else 200 with *variant 1 when accept (the Accept header, or
 * NULL) names application/openmetrics-text without q=0, 0 otherwise. */
unsigned serve_route(const char *method, const char *url, const char *accept, int *variant);
bool serve_wants_openmetrics(const char *accept);
#endif
/* Binds addr and starts the server thread (with every signal blocked).
 * types: each variant's Content-Type.  0, or -errno with why in err. */
int serve_start(const char *addr, const char *const types[SERVE_VARIANTS], struct serve **out,
		char *err, size_t elen);
/* "127.0.0.1:9469": where it listens (the port the kernel chose for 0). */
const char *serve_where(const struct serve *s);
/* A bit per variant that requests wait for. */
unsigned serve_wanted(struct serve *s);
/* fd (a file holding len bytes, read from offset 0) becomes variant v's
 * text; the server owns it. */
void serve_publish(struct serve *s, int v, int fd, size_t len);
/* Requests answered, and refused (404, 405, 503), so far. */
void serve_counts(const struct serve *s, unsigned long long *ok, unsigned long long *refused);
void serve_stop(struct serve *s);

#endif
