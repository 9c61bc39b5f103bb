// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A uprobe target whose argument is a struct of known layout (padding,
 * a nested struct, bitfields, arrays, a char * and a char[], a union), for
 * the language's program-defined types.
 *
 *   structs [K]   calls ftr_struct_probe(&r) K times (default 10), call i
 *                 with: id 100+i, in.s i, in.l 1000000000000+i, flags i%8,
 *                 kind (3*i)%32, arr[2] i, name "even"/"odd" by i's parity,
 *                 label "lab-X" (X: i%3), un.u32 7*i.
 *
 * The same definitions are in tests/live/t-types.sh and test-ctypes.c.
 */
#include <stdio.h>
#include <stdlib.h>

struct inner {
	short s;
	long l;
};

struct rec {
	char tag;
	int id;
	struct inner in;
	unsigned int flags : 3, kind : 5;
	unsigned char arr[5];
	const char *name;
	char label[12];
	union {
		int u32;
		char c;
	} un;
};

__attribute__((noinline, used)) long ftr_struct_probe(struct rec *r)
{
	__asm__ volatile("" ::: "memory");
	return r->id;
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 10;
	long sum = 0;

	for (int i = 0; i < k; i++) {
		struct rec r = { .tag = 'r', .id = 100 + i, .in = { (short)i, 1000000000000L + i },
				 .flags = (unsigned)i % 8, .kind = (3u * (unsigned)i) % 32,
				 .name = i % 2 ? "odd" : "even", .un.u32 = 7 * i };

		r.arr[2] = (unsigned char)i;
		snprintf(r.label, sizeof(r.label), "lab-%d", i % 3);
		sum += ftr_struct_probe(&r);
	}
	printf("%ld\n", sum);
	return 0;
}
