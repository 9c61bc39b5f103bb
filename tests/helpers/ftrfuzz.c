// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The differential fuzzer's two halves (t-fuzz.sh runs them):
 *
 * ftrfuzz gen SEED N: N programs of ftr's language, one a line, generated
 * from its grammar with a seeded generator (the same programs for a seed on
 * every machine): several clauses on shared events, predicates, every
 * aggregation (count sum avg min max stats hist lhist), print/clear/delete
 * at a marker event and in END.  Each program's output is a function of the
 * workload's events alone: nothing prints per interval (the time an
 * interval fires is not the events'), and no key is a pid, tid or time.
 *
 * ftrfuzz work: the workload, the same syscalls in the same order every
 * run: three phases of write(2)s of varied sizes to /dev/null, read(2)s of
 * 1000 and 4096 bytes from /dev/zero, openat(2)s with three flag sets, two
 * fork(2)s (children exit at once), each phase ended by a sched_yield(2),
 * the marker the programs print and clear at.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static int work(void)
{
	static char buf[4096];
	int fd = open("/dev/null", O_WRONLY), zero = open("/dev/zero", O_RDONLY);

	if (fd < 0 || zero < 0)
		return 1;
	for (int p = 0; p < 3; p++) {
		for (int i = 0; i < 20 + 7 * p; i++) {
			size_t n = i % 9 == 8 ? 4096 : (size_t)((i * 37 + p * 11) % 300 + 1);

			if (write(fd, buf, n) != (ssize_t)n)
				return 1;
		}
		for (int i = 0; i < 10 + p; i++) {
			size_t n = i % 4 == 3 ? 4096 : 1000;

			if (read(zero, buf, n) != (ssize_t)n)
				return 1;
		}
		for (int i = 0; i < 5 + p; i++) {
			static const int fl[] = { O_RDONLY, O_WRONLY, O_RDONLY | O_NOFOLLOW };
			int o = openat(AT_FDCWD, "/dev/null", fl[i % 3]);

			if (o < 0)
				return 1;
			close(o);
		}
		for (int i = 0; i < 2; i++) {
			pid_t c = fork();

			if (c < 0)
				return 1;
			if (c == 0)
				_exit(0);
			waitpid(c, NULL, 0);
		}
		sched_yield();
	}
	return 0;
}

static uint64_t rs;

static unsigned rnd(unsigned n)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return (unsigned)((rs >> 11) % n);
}

#define W "tracepoint:syscalls:sys_enter_write"
#define O "tracepoint:syscalls:sys_enter_openat"
#define X "tracepoint:syscalls:sys_exit_write"
#define F "tracepoint:sched:sched_process_fork"
#define Y "tracepoint:syscalls:sys_enter_sched_yield"

/* An event, its numeric fields (values), and the keys it offers. */
struct ev {
	const char *probe;
	const char *vals[2];
	const char *keys[3];
	const char *preds[6];
};

static const struct ev evs[] = {
	{ W, { "args.count", "args.fd" }, { "comm", "args.fd", "args.count" },
	  { "args.count > 100", "args.count < 50", "args.count == 4096", "args.fd != 1",
	    "comm == \"ftrfuzz\"", "args.count >= 10 && args.count <= 200" } },
	{ W, { "args.count", "args.count" }, { "comm", "args.fd", "args.count" },
	  { "args.count > 250", "args.count != 4096", "args.count < 4 || args.count > 290",
	    "comm != \"sh\"", "args.count & 1", "args.count == 38" } },
	{ O, { "args.flags", "args.mode" }, { "comm", "args.flags", "args.dfd" },
	  { "args.flags == 0", "args.flags != 0", "args.mode == 0", "comm == \"ftrfuzz\"",
	    "args.flags & 1", "args.flags > 1" } },
	{ X, { "args.ret", "args.ret" }, { "comm", "args.ret", "comm" },
	  { "args.ret > 100", "args.ret < 100", "args.ret == 4096", "args.ret != 1",
	    "comm == \"ftrfuzz\"", "args.ret >= 0" } },
	{ "tracepoint:syscalls:sys_enter_read", { "args.count", "args.fd" },
	  { "comm", "args.count", "args.fd" },
	  { "args.count == 1000", "args.count > 1000", "args.fd > 2", "comm == \"ftrfuzz\"",
	    "args.count != 4096", "args.count < 2000 && args.fd != 0" } },
	{ "tracepoint:syscalls:sys_exit_read", { "args.ret", "args.ret" }, { "comm", "args.ret", "comm" },
	  { "args.ret == 1000", "args.ret > 0", "args.ret >= 4096", "comm == \"ftrfuzz\"",
	    "args.ret != 1000", "args.ret < 0" } },
	{ "tracepoint:syscalls:sys_exit_openat", { "args.ret", "args.ret" }, { "comm", "args.ret", "comm" },
	  { "args.ret > 2", "args.ret < 0", "args.ret == 4", "comm == \"ftrfuzz\"",
	    "args.ret != 3", "args.ret >= 0" } },
	{ "tracepoint:syscalls:sys_enter_close", { "args.fd", "args.fd" }, { "comm", "args.fd", "comm" },
	  { "args.fd > 2", "args.fd == 4", "args.fd != 3", "comm == \"ftrfuzz\"",
	    "args.fd < 100", "args.fd >= 3 && args.fd <= 5" } },
	{ F, { NULL, NULL }, { "comm", "args.parent_comm", "args.child_comm" },
	  { "comm == \"ftrfuzz\"", "args.parent_comm == \"ftrfuzz\"", "comm != \"x\"",
	    "args.child_comm == \"ftrfuzz\"", "comm == \"ftrfuzz\"", "comm == \"y\"" } },
};

static const char *const aggs[] = { "count", "sum", "avg", "min", "max", "stats", "hist",
				    "lhist" };

struct map {
	int ev, agg, key;	/* key: -1 none */
};

static void gen(unsigned long seed, int idx)
{
	struct map m[4];
	int nm = 1 + rnd(4), nc = 0;
	char out[4096];
	size_t off = 0;

#define PUT(...) (off += snprintf(out + off, off < sizeof(out) ? sizeof(out) - off : 0, __VA_ARGS__))
	rs = seed * 0x9e3779b97f4a7c15ull + (uint64_t)idx * 0xbf58476d1ce4e5b9ull + 1;
	for (int i = 0; i < 8; i++)
		rnd(2);
	for (int i = 0; i < nm; i++) {
		m[i].ev = rnd(sizeof(evs) / sizeof(evs[0]));
		m[i].agg = evs[m[i].ev].vals[0] ? rnd(8) : 0;
		m[i].key = rnd(3) ? -1 + (int)rnd(4) : -1;
		if (m[i].key == 3)
			m[i].key = -1;
	}
	/* The clauses: each map fed by one clause, some by two (one map
	 * from two clauses, on one event or another of its kind). */
	for (int i = 0; i < nm; i++) {
		int feeds = rnd(5) ? 1 : 2;

		for (int f = 0; f < feeds; f++, nc++) {
			const struct ev *e = &evs[m[i].ev];

			PUT("%s ", e->probe);
			if (rnd(2)) {
				PUT("/%s", e->preds[rnd(6)]);
				if (!rnd(4))
					PUT(" %s %s", rnd(2) ? "&&" : "||", e->preds[rnd(6)]);
				PUT("/ ");
			}
			PUT("{ @m%d", i);
			if (m[i].key >= 0)
				PUT("[%s]", e->keys[m[i].key]);
			PUT(" = %s(", aggs[m[i].agg]);
			if (m[i].agg)
				PUT("%s", e->vals[f]);
			if (m[i].agg == 7)
				PUT(", 0, 400, 50");
			PUT("); } ");
		}
	}
	/* The marker: print, clear, delete at an event. */
	if (!rnd(3)) {
		PUT(Y " /comm == \"ftrfuzz\"/ { ");
		for (int i = 0; i < nm; i++) {
			int r = rnd(5);
			const char *k = m[i].key >= 0 ? evs[m[i].ev].keys[m[i].key] : NULL;

			if (r == 0)
				PUT("print(@m%d); ", i);
			else if (r == 1)
				PUT("print(@m%d); clear(@m%d); ", i, i);
			else if (r == 2)
				PUT("clear(@m%d); ", i);
			else if (r == 3 && k && strstr(k, "comm"))
				PUT("delete(@m%d[\"ftrfuzz\"]); ", i);
			else if (r == 3 && k && !strcmp(k, "args.count"))
				PUT("delete(@m%d[4096]); ", i);
		}
		PUT("} ");
	}
	if (rnd(2)) {
		PUT("END { ");
		for (int i = 0; i < nm; i++) {
			int r = rnd(4);

			if (r == 0)
				PUT("print(@m%d); ", i);
			else if (r == 1)
				PUT("clear(@m%d); ", i);
		}
		PUT("}");
	}
	/* An event clause with nothing else to do would be dropped: say
	 * something harmless. */
	(void)nc;
	printf("%s\n", out);
#undef PUT
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "work"))
		return work();
	if (argc == 4 && !strcmp(argv[1], "gen")) {
		unsigned long seed = strtoul(argv[2], NULL, 0);
		int n = atoi(argv[3]);

		for (int i = 0; i < n; i++)
			gen(seed, i);
		return 0;
	}
	fprintf(stderr, "usage: ftrfuzz gen SEED N | ftrfuzz work\n");
	return 2;
}
