/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A CPU profile as pprof's profile.proto, gzipped: what go tool pprof,
 * Grafana Pyroscope, Parca and other profile stores read.
 *
 * Written by hand: the five messages ftr fills (Profile, ValueType, Sample,
 * Mapping, Location + Line, Function) are varints and length-delimited
 * fields, a page of code, where protobuf-c would add its runtime and
 * generated descriptors to the static binary for the same bytes.  gzip is
 * zlib's, which libelf brings already; the static binary leaves out zlib's
 * compressor and stores the bytes uncompressed in the gzip file
 * (pprof_gzip_stored).
 *
 * FTR_NO_PPROF (a Makefile choice) leaves the writer out: pprof_new then
 * fails with ENOTSUP.
 *
 * Ids are handed out as things are added, deduplicated: a mapping by its
 * start and file, a function by name and file, a location by mapping,
 * address and function.  Pure (memory in, bytes out) but for pprof_write.
 */
#ifndef FTR_PPROF_H
#define FTR_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct pprof;

/* period_ns: the sampling period (1e9 / Hz); each sample's values are its
 * count and count * period_ns ("samples"/"count", "cpu"/"nanoseconds"). */
struct pprof *pprof_new(int64_t period_ns);
void pprof_free(struct pprof *pp);

/* A mapping: [start, limit) at file offset off of file, with its GNU build
 * id in hex (NULL or "": unknown).  Its id (> 0), or 0 on ENOMEM. */
uint64_t pprof_mapping(struct pprof *pp, uint64_t start, uint64_t limit, uint64_t off,
		       const char *file, const char *build_id);
/* A location: addr in mapping (0: none) in function name (of file, NULL:
 * none).  Its id (> 0), or 0 on ENOMEM. */
uint64_t pprof_location(struct pprof *pp, uint64_t mapping, uint64_t addr, const char *name,
			const char *file);
/* A sample: locs[0..n) leaf first, count times; label comm (NULL: none).
 * 0 / -ENOMEM. */
int pprof_sample(struct pprof *pp, const uint64_t *locs, size_t n, uint64_t count,
		 const char *comm);

/* The encoded profile, not compressed (for tests): a buffer the caller
 * frees, its size in *len.  NULL on ENOMEM. */
unsigned char *pprof_encode(struct pprof *pp, int64_t time_ns, int64_t duration_ns, size_t *len);
/* pprof_encode, gzipped, into f.  0 / -errno.  The static binary
 * (FTR_PPROF_STORED) writes it with pprof_gzip_stored. */
int pprof_write(struct pprof *pp, FILE *f, int64_t time_ns, int64_t duration_ns);
/* data as a gzip file of stored (uncompressed) deflate blocks: what every
 * gzip reader reads, without zlib's compressor (30 KB of the static binary
 * for files of some tens of KB).  0 / -EIO. */
int pprof_gzip_stored(FILE *f, const void *data, size_t len);

#endif
