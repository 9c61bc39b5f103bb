/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Functions of inlines.c in another file: its line table names two. */
#define INLINE static inline __attribute__((always_inline))

INLINE unsigned mix(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	return x ^ (x >> 15);
}

INLINE unsigned twice(unsigned x)
{
	return mix(x) + mix(x + 1);
}
