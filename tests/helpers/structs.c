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
 *   structs --links K   calls ftr_link_probe(l) 3K times, l: NULL, then
 *                 {next NULL, v 5}, then {next: the former, v 7}: reads
 *                 through NULL pointers (bpftrace reads 0 there).
 *
 * The same definitions are in tests/live/t-types.sh and test-ctypes.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct link {
	struct link *next;
	long v;
};

__attribute__((noinline, used)) long ftr_link_probe(struct link *l)
{
	__asm__ volatile("" ::: "memory");
	return l ? l->v : 0;
}

static int links(int k)
{
	struct link a = { NULL, 5 }, b = { &a, 7 };
	long sum = 0;

	for (int i = 0; i < k; i++)
		sum += ftr_link_probe(NULL) + ftr_link_probe(&a) + ftr_link_probe(&b);
	printf("%ld\n", sum);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--links"))
		return links(atoi(argv[2]));
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
