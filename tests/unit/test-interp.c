// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the language's interpreter (runloop.c) on recorded events:
 * a program runs without a kernel (interp_open over the fixture formats of
 * tests/fixtures/formats), is fed records described as text (fixture.h),
 * and its whole output — printf lines, then the maps printed at the end as
 * at the end of a real run — is compared exactly.  Semantic errors first,
 * then the aggregations, predicates, statements and builtins, and a
 * differential check: a predicate the planner hands to the engine's filter
 * (the kernel's semantics) counts what the interpreter counts for it.
 */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>

#include "kernel/comm.h"
#include "kernel/engine.h"
#include "fixture.h"
#include "ftr.h"
#include "lang/interp.h"
#include "lang/lang.h"
#include "lang/maps/tuple.h"
#include "report/output.h"

/* Thread ids above PID_MAX_LIMIT (2^22): /proc never has them, so pid is
 * the tid and uid is -1, whatever runs on the machine. */
#define T1 "5000001"
#define T2 "5000002"
#define T3 "5000003"

/* ---- running a program on records ------------------------------------------- */

struct outcome {
	struct program p;
	struct interp *in;
	FILE *out;
	char text[16384];
};

/* Parse and open prog; NULL (and err) when the semantic pass refuses it. */
static struct interp *start(struct outcome *o, const char *prog, const struct run_opts *ro,
			    struct lang_err *err)
{
	memset(o, 0, sizeof(*o));
	if (lang_parse(prog, &o->p, err) < 0)
		fail_msg("'%s': %d:%d: %s", prog, err->line, err->col, err->msg);
	o->out = tmpfile();
	assert_non_null(o->out);
	o->in = interp_open(&o->p, ro, FIXTURE_TRACEFS, fileno(o->out), 0, err);
	return o->in;
}

/*
 * Feed records (one per line; "tick NS" runs the interval clauses at NS;
 * '#' starts a comment), then END and the maps at the last timestamp.
 */
static void feed(struct outcome *o, const char *records)
{
	struct engine *e = interp_engine(o->in);
	uint64_t now = 0;
	const char *p = records;

	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char line[512], err[256];
		struct fx_rec r;

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p += n + (p[n] == '\n');
		line[strcspn(line, "#")] = '\0';
		if (!line[strspn(line, " \t")])
			continue;
		if (!strncmp(line, "tick ", 5)) {
			now = strtoull(line + 5, NULL, 0);
			interp_tick(o->in, now);
			continue;
		}
		if (fx_rec_parse(&r, e->tep, line, err, sizeof(err)) < 0)
			fail_msg("record '%s': %s", line, err);
		if (r.comm[0])
			comm_set(e->comms, (int)field_int(fixture_field(r.ev, "common_pid"), &r.r),
				 r.comm);
		now = r.r.ts;
		interp_feed(o->in, &r.r);
	}
	assert_int_equal(interp_finish(o->in, now), 0);
}

static void stop(struct outcome *o)
{
	size_t n;

	interp_close(o->in);
	o->in = NULL;
	rewind(o->out);
	n = fread(o->text, 1, sizeof(o->text) - 1, o->out);
	o->text[n] = '\0';
	fclose(o->out);
	lang_free(&o->p);
}

/* The output of prog on records. */
static const char *run_opts(const char *prog, const char *records, const struct run_opts *ro)
{
	static struct outcome o;
	struct lang_err err;

	if (!start(&o, prog, ro, &err))
		fail_msg("'%s': %d:%d: %s", prog, err.line, err.col, err.msg);
	feed(&o, records);
	stop(&o);
	return o.text;
}

static const char *run(const char *prog, const char *records)
{
	static const struct run_opts ro = { .where = WHERE_AUTO };

	return run_opts(prog, records, &ro);
}

struct icase {
	const char *name, *prog, *records, *want;
};

static void run_cases(const struct icase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = run(c[i].prog, c[i].records);

		if (strcmp(got, c[i].want)) {
			/* whole, past cmocka's message size */
			fprintf(stderr, "%s: %s\n--- got:\n%s--- want:\n%s---\n", c[i].name,
				c[i].prog, got, c[i].want);
			fail();
		}
	}
}

/* ---- the semantic pass: errors with their positions ------------------------- */

static const struct {
	const char *prog, *want;
} refused[] = {
	{ "tracepoint:syscalls:sys_enter_write { @[args.nosuch] = count(); }",
	  "1:41: unknown field 'nosuch' in syscalls:sys_enter_write (fields: __syscall_nr, fd, "
	  "buf, count)" },
	{ "tracepoint:syscalls:sys_enter_write { print(args); }", "1:45: 'args' as a value (the "
	  "record of every argument) is in ftr at kfunc/fentry probes only; here it needs a "
	  "field: args.NAME" },
	{ "BEGIN { @ = args; }", "1:13: 'args' as a value (the record of every argument) is in "
	  "ftr at kfunc/fentry probes only; here it needs a field: args.NAME" },
	{ "tracepoint:syscalls:sys_enter_write /comm ~ args.fd/ { @ = count(); }",
	  "1:43: ~ matches a string against a \"glob*\" literal" },
	{ "tracepoint:syscalls:sys_enter_write /args.fd !~ \"a*\"/ { @ = count(); }",
	  "1:46: !~ matches a string against a \"glob*\" literal" },
	{ "tracepoint:syscalls:sys_enter_write /comm == 1/ { @ = count(); }",
	  "1:43: '==' compares a string with a number" },
	{ "tracepoint:syscalls:sys_enter_write { time(comm); }", "1:44: time's format must be a "
	  "string literal" },
	{ "BEGIN { time(\"%H\", 1); }", "1:9: time() takes at most 1 argument: time([fmt])" },
	{ "BEGIN { @ = 1; print(@, 1, 1, 1); }", "1:16: print() takes at most 3 arguments: "
	  "print(@map[, top, div] | value)" },
	{ "BEGIN { printf(\"%d\\n\", comm); }", "1:24: printf: %d needs a number" },
	{ "BEGIN { printf(\"%d %d\\n\", 1); }", "1:9: printf: 2 conversions for 1 argument" },
	{ "BEGIN { printf(\"%4097d\\n\", 1); }", "1:16: printf: a width or precision of more "
	  "than 4096" },
	{ "BEGIN { printf(\"%.99999999999999999999d\\n\", 1); }", "1:16: printf: a width or "
	  "precision of more than 4096" },
	{ "BEGIN { @x = count(); @x = sum(1); }", "1:28: @x is used two ways (first at 1:9)" },
	{ "BEGIN { @x[1] = count(); @x[\"a\"] = count(); }",
	  "1:29: key 1 of @x is a string here but a number at 1:9" },
	{ "BEGIN { $y = $x + 1; }", "1:14: $x is used before it is assigned" },
	{ "BEGIN { $p = (int32 *)8; } END { $n += 1; }", "1:34: $n is used before it is assigned" },
	{ "BEGIN { if (1) { continue } }", "1:18: continue outside a loop" },
	{ "BEGIN { $t = (1, 2); print($t.2); }", "1:30: the tuple has 2 elements: no .2" },
	{ "BEGIN { $t = 1; print($t.0); }", "1:25: .0 reads a tuple's element, and this is not a tuple" },
	{ "BEGIN { print((int8[3])1); }", "1:15: (int8[3]): 8 bytes cast to 3 of them" },
	{ "BEGIN { @x[(int8[2])\"a\", 1] = 1; }", "1:12: a C array as a map key is not in ftr "
	  "yet (a value, a tuple's element and print() are)" },
	{ "BEGIN { @x[(a = 1, b = 2)] = 1; }", "1:12: a record as a map key is not in ftr yet "
	  "(a value and print() are)" },
	{ "BEGIN { $r = (a = 1); @x[$r] = 1; }", "1:26: a record as a map key is not in ftr yet "
	  "(a value and print() are)" },
	{ "BEGIN { $x = 1; print((int8[])$x); }", "1:23: (int8[]) of a value that is not a constant: "
	  "ftr casts a number or a string literal to an array" },
	{ "BEGIN { print((1, 2) == (1, \"a\")); }", "1:22: '==' of tuples: == and != of tuples of one "
	  "type" },
	{ "BEGIN { $p = (int8 *)1; $p *= 2; }", "1:25: '*=' of a pointer: a pointer moves by += and "
	  "-= of a number" },
	{ "BEGIN { $p = (int8 *)1; print($p - $p); }", "1:34: '-' of two pointers, or of a number "
	  "less a pointer, is not in ftr" },
	{ "BEGIN { print(*(int32 *)8); }", "1:16: a read through a pointer reads memory, which ftr "
	  "does at kprobe, kretprobe, kfunc, kretfunc, uprobe and uretprobe events, and at "
	  "tracepoints through eprobes, only" },
	{ "BEGIN { $t = (1, 2); if ($t) { } }", "1:26: a tuple is not a condition" },
	{ "BEGIN { $t = 1 ? (1, \"a\") : (2, 3); }", "1:16: the two sides of ?: are tuples of "
	  "other types" },
	{ "BEGIN { $x = 1; print(sizeof($x)); }", "1:23: sizeof of a value without a C type (a "
	  "number, a string, a tuple, a variable holding one): bpftrace sizes it by its literals' "
	  "own types, which ftr has not; sizeof(TYPE) and sizeof of a typed read are" },
	{ "BEGIN { for ($kv : @m) { } @m[1] = 1; }", "1:20: for over @m before the program stores "
	  "into it: ftr types a map at its first store" },
	{ "BEGIN { @m = 1; for ($kv : @m) { } }", "1:28: @m has no keys to iterate over" },
	{ "BEGIN { @m[1] = hist(1); for ($kv : @m) { } }", "1:37: for over @m: its values "
	  "(histograms, stats) in a tuple are not in ftr yet" },
	{ "BEGIN { @m = (1, 2); @m = (\"a\", 2); }", "1:27: @m holds tuples of other types (first "
	  "stored at 1:9)" },
	{ "BEGIN { print(@m.1); @m = (1, 2); }", "1:17: .1 of a map read before the program stores "
	  "a tuple in it: ftr types a map's tuples at their first store" },
	{ "BEGIN { @t = (1, 2); @[@t] = 1; }", "1:24: a tuple as a whole map key is spread into "
	  "the keys, which ftr does for a literal or a variable only" },
	{ "BEGIN { @[1, (1, 2)] = 1; @[1, (1, \"a\")] = 2; }", "1:32: key 2 of @ is of another "
	  "type than at 1:9" },
	{ "BEGIN { @[buf(\"a\", 1)] = 1; @[1] = 2; }", "1:31: key 1 of @ is of another type than "
	  "at 1:9" },
	{ "BEGIN { @[1, (2, (a = 1, b = 2))] = 1; }", "1:14: a record in a map key is not in ftr "
	  "yet (a value and print() are)" },
	{ "BEGIN { @[1, (1, 2)] = 1; for ($kv : @) { } }", "1:38: for over @: its keys of tuples or "
	  "buffers in a tuple are not in ftr yet" },
	{ "BEGIN { print(buf(\"hi\", 4)); }", "1:15: buf(\"...\", len): len is a constant from 0 "
	  "to the literal's size with its NUL (3)" },
	{ "BEGIN { $a = buf(\"hi\", 2); if ($a) { } }", "1:32: a buffer is not a condition" },
	{ "BEGIN { $a = buf(\"hi\", 2); print($a < $a); }", "1:37: '<' of buffers: they are "
	  "compared with == and !=" },
	{ "BEGIN { print((buf(\"hi\", 2), 1)); }", "1:16: buf() is printed (printf's %r, print()), "
	  "kept in a variable or map (a key or a value) and compared (==, !=); ftr computes "
	  "nothing else with one" },
	{ "BEGIN { for ($i : \"a\"..2) { } }", "1:19: a range's bounds are numbers" },
	{ "BEGIN { printf(\"%d\\n\", @never[1]); }", "1:24: @never is read but never assigned" },
	{ "tracepoint:syscalls:sys_enter_write { @ = count() ; @m = lhist(args.count, 10, 0, 1); }",
	  "1:58: lhist(value, min, max, step) needs numbers with min < max and step > 0" },
	/* what needs BPF: refused by name, at its position */
	{ "tracepoint:syscalls:sys_enter_write { signal(9); }",
	  "1:39: signal() sends a signal from inside the kernel at the event (bpf_send_signal); "
	  "ftr reads events after they happened, when the signal would come too late; this "
	  "kernel has no BPF for it, and ftr uses none" },
	{ "kprobe:vfs_read { override(1); }", "" },
	{ "tracepoint:syscalls:sys_enter_write { @x = *args.buf; }",
	  "1:44: *: reading kernel memory at an event needs BPF (a read at the moment of the "
	  "event); ftr reads events after they happened.  In BEGIN, END and interval clauses "
	  "ftr reads it from /proc/kcore; at a kprobe or uprobe, a typed read (*(TYPE *)arg0) "
	  "is made by the kernel" },
	{ "BEGIN { system(\"ls\"); }",
	  "1:9: system() runs a command: it needs --unsafe, as in bpftrace" },
	{ "BEGIN { printf(\"%d\\n\", int8(comm)); }", "1:29: int8() takes a number" },
	{ "BEGIN { print(@x, \"a\"); @x = 1; }", "1:19: print(@map, top, div) takes numbers" },
	{ "BEGIN { @x = kstack(5, 6); }",
	  "1:21: kstack(): takes a mode (bpftrace, perf, raw, build_id) and a number of frames, "
	  "e.g. kstack(perf, 5)" },
	{ "BEGIN { $x = perf; }", "1:14: 'perf' is a stack's print mode: kstack(perf), ustack(perf)" },
	{ "tracepoint:syscalls:sys_enter_write { @m = kstack(perf); }",
	  "1:44: a stack kept as a map's value in another mode than the map's: ftr prints a "
	  "map's stacks in one mode (its stack key's, else the program's: config stack_mode); "
	  "print it where it is taken, or key the map by it" },
	{ "interval:s:1 { print(kstack); }",
	  "1:22: kstack exists in profile, tracepoint, kprobe, uprobe, BEGIN and END clauses" },
	{ "BEGIN { join(1); }", "" },
	{ "BEGIN { printf(\"%gr\\n\", \"x\"); }", "1:25: printf: %gr needs a number" },
	{ "BEGIN { @x = nosuch(1); }", "1:14: unknown function 'nosuch'" },
	{ "BEGIN { @x = pton(\"::1\"); }", "1:14: pton() is read by ntop(af, pton(...)) and "
	  "printf's %r: ftr keeps no byte array in a variable or map, nor computes with one" },
	{ "BEGIN { printf(\"%s\\n\", ntop(2, pton(\"1.2.3\"))); }",
	  "1:37: pton(\"1.2.3\"): not an IPv4 or IPv6 address" },
	{ "BEGIN { @ = 0; printf(\"%d\\n\", len(@)); }",
	  "1:31: call to len() expects a map with explicit keys (non-scalar map)" },
	{ "BEGIN { @g = 2; if (has_key(@g, 2)) { exit(); } }",
	  "1:21: call to has_key() expects a map with explicit keys (non-scalar map)" },
	{ "BEGIN { @g[1, \"a\"] = 2; if (has_key(@g, 2)) { exit(); } }",
	  "" },
	{ "BEGIN { @h[1] = hist(5); print(@h[1]); }",
	  "1:32: print(@h[...]) of a histogram: print the whole map" },
	{ "BEGIN { print(strcontains(\"a\", 1)); }",
	  "1:15: strcontains(haystack, needle) takes two strings" },
	{ "tracepoint:syscalls:sys_enter_openat { write_user(args.filename, \"x\", 1); }",
	  "1:40: write_user() writes user memory at the event (bpf_probe_write_user); ftr only "
	  "observes; this kernel has no BPF for it, and ftr uses none" },
	{ "tracepoint:ftrtest:types { printf(\"%s\\n\", buf(args.arr, 2)); }",
	  "1:43: printf: %s needs a string, not a buffer (buf() is printed with %r)" },
	{ "tracepoint:ftrtest:types { printf(\"%r\\n\", args.name); }",
	  "1:43: printf: %r needs a buffer (buf())" },
	{ "tracepoint:ftrtest:types { printf(\"%r\\n\", buf(args.u32v, 2)); }",
	  "1:43: buf(args.u32v): ftrtest:types records the address, and the kernel copies no "
	  "bytes behind it at a tracepoint; nothing on this kernel can fetch them (eprobe "
	  "events, or kprobe events at the syscall's entry, would)" },
	{ "tracepoint:ftrtest:types { @x[1] = buf(args.arr, 2) + 1; }",
	  "1:36: buf() is printed (printf's %r, print()), kept in a variable or map (a key or a "
	  "value) and compared (==, !=); ftr computes nothing else with one" },
	/* sizes ftr does not know: a scalar variable's (bpftrace may widen it),
	 * a literal's over 127 (int16 or uint8), a tuple assigned twice */
	{ "BEGIN { $x = 1; print(sizeof($x)); }",
	  "1:23: sizeof of a value without a C type (a number, a string, a tuple, a variable "
	  "holding one): bpftrace sizes it by its literals' own types, which ftr has not; "
	  "sizeof(TYPE) and sizeof of a typed read are" },
	{ "BEGIN { print(sizeof(200)); }", "" },
	{ "BEGIN, interval:ms:1 { print(probetype); }",
	  "1:30: probetype at interval:ms:1: ftr has bpftrace's name of the probe's type at "
	  "begin and end only (\"special\")" },
	{ "BEGIN { $t = (1, 2); $i = 1; print($t[$i]); }",
	  "1:38: [] needs a typed pointer or array, or a string and a number (maps are @name[key])" },
	{ "BEGIN { $a = (a = 1, b = 2); $a = (b = 1, c = 2); }", "1:35: $a held a record of other "
	  "fields or of other types" },
	{ "BEGIN { let $a: typeof(\"x\"); }", "1:24: let $a: typeof() of a value other than a "
	  "number is not in ftr yet" },
	{ "BEGIN { @ = hist(5, 6); }", "1:21: hist(x, k): k is a constant from 0 to 5" },
	{ "BEGIN { @ = hist(5, 2); @ = hist(5, 3); }", "1:29: @ is used two ways (first at 1:9)" },
	{ "BEGIN { $k = 0; @ = hist(5, $k); }", "1:29: hist(x, k): k is a constant from 0 to 5" },
	{ "struct A { int b : 3; } BEGIN { print(offsetof(struct A, b)); }",
	  "1:39: offsetof(struct A, b): a bitfield has no byte offset" },
	{ "struct A { int b; } BEGIN { print(offsetof(struct A *, b)); }",
	  "1:35: offsetof(struct A *, ...): a pointer has no members" },
	{ "BEGIN { @ = curtask; }",
	  "1:13: curtask at BEGIN: ftr reads the task_struct through a probe's fetch arguments, "
	  "at kprobe, kretprobe, kfunc and kretfunc events and at tracepoints (through eprobes); "
	  "this clause's has none, and there only a BPF program reads kernel memory" },
	{ "BEGIN { $t = (1, 2); $t = (3, 4); print(sizeof($t)); }", "" },
	{ "BEGIN { printf(\"%r\\n\", buf(1, 2)); }",
	  "1:24: buf() copies memory at the event, which ftr does at kprobes and uprobes "
	  "(buf(argN, len), buf(ptr->member, len)) and at tracepoints (buf(args.F, len)) "
	  "through a probe's array fetch" },
};

static void test_refused(void **state)
{
	static const struct run_opts ro = { .where = WHERE_AUTO };

	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		struct outcome o;
		struct lang_err err;
		char got[600];

		if (start(&o, refused[i].prog, &ro, &err)) {
			interp_close(o.in);
			fail_msg("'%s' was accepted", refused[i].prog);
		}
		fclose(o.out);
		lang_free(&o.p);
		snprintf(got, sizeof(got), "%d:%d: %s", err.line, err.col, err.msg);
		if (refused[i].want[0] && strcmp(got, refused[i].want))
			fail_msg("'%s':\n got  '%s'\n want '%s'", refused[i].prog, got,
				 refused[i].want);
	}
}

/* 64 maps, then a 65th named by print/clear/delete or stored to: a message at
 * its position (it was an index past the map table, and a silent exit 1). */
static void test_too_many_maps(void **state)
{
	static const char *const tails[] = { "print(@x);", "clear(@x);", "delete(@x[1]);",
					     "@x = 1;", "@x = count();" };
	static const struct run_opts ro = { .where = WHERE_AUTO };

	for (size_t t = 0; t < ARRAY_SIZE(tails); t++) {
		for (int plain = 0; plain < 2; plain++) {
			char prog[4096], want[64];
			size_t n = (size_t)snprintf(prog, sizeof(prog), "BEGIN { ");
			struct outcome o;
			struct lang_err err;

			for (int m = 0; m < 64; m++)
				n += (size_t)snprintf(prog + n, sizeof(prog) - n,
						      plain ? "@m%d = %d; " : "@m%d = count(); ", m, m);
			snprintf(prog + n, sizeof(prog) - n, "%s }", tails[t]);
			if (start(&o, prog, &ro, &err)) {
				interp_close(o.in);
				fail_msg("'%s' was accepted", prog);
			}
			fclose(o.out);
			lang_free(&o.p);
			snprintf(want, sizeof(want), "too many maps (ftr keeps 64)");
			if (strcmp(err.msg, want) || err.line != 1 || err.col < 9)
				fail_msg("%s: %d:%d: %s", tails[t], err.line, err.col, err.msg);
		}
	}
}

/* ---- aggregations --------------------------------------------------------------- */

#define WRITES \
	"syscalls:sys_enter_write tid=" T1 " comm=bash fd=1 count=10 ts=1000\n" \
	"syscalls:sys_enter_write tid=" T2 " comm=python3 fd=2 count=20 ts=2000\n" \
	"syscalls:sys_enter_write tid=" T1 " fd=1 count=33 ts=3000\n" \
	"syscalls:sys_enter_write tid=" T3 " comm=sh fd=5 count=0 ts=4000\n" \
	"syscalls:sys_enter_write tid=" T1 " fd=1 count=4096 ts=5000\n" \
	"syscalls:sys_enter_write tid=" T2 " fd=1 count=7 ts=6000\n"

/* 20 clauses on one tracepoint: every one runs (past 16 it was "no event"). */
static void test_many_clauses(void **state)
{
	char prog[4096], want[1024];
	size_t n = 0, w = 0;

	for (int c = 0; c < 20; c++) {
		n += (size_t)snprintf(prog + n, sizeof(prog) - n, "tracepoint:syscalls:sys_enter_write "
				      "/args.fd == 1/ { @c%02d = sum(%d); } ", c, c + 1);
		w += (size_t)snprintf(want + w, sizeof(want) - w, "%s@c%02d: %d\n", c ? "\n" : "", c,
				      4 * (c + 1));
	}
	assert_string_equal(run(prog, WRITES), want);
}

static const struct icase aggs[] = {
	{ "count by comm", "tracepoint:syscalls:sys_enter_write { @[comm] = count(); }", WRITES,
	  "@[sh]: 1\n@[python3]: 2\n@[bash]: 3\n" },
	{ "count, no key", "tracepoint:syscalls:sys_enter_write { @writes = count(); }", WRITES,
	  "@writes: 6\n" },
	{ "count by two keys", "tracepoint:syscalls:sys_enter_write { @[comm, args.fd] = count(); }",
	  WRITES, "@[python3, 1]: 1\n@[python3, 2]: 1\n@[sh, 5]: 1\n@[bash, 1]: 3\n" },
	{ "sum, avg, min, max",
	  "tracepoint:syscalls:sys_enter_write { @s = sum(args.count); @a = avg(args.count); "
	  "@lo = min(args.count); @hi = max(args.count); }", WRITES,
	  "@s: 4166\n\n@a: 694\n\n@lo: 0\n\n@hi: 4096\n" },
	{ "sum by comm", "tracepoint:syscalls:sys_enter_write { @[comm] = sum(args.count); }",
	  WRITES, "@[sh]: 0\n@[python3]: 27\n@[bash]: 4139\n" },
	{ "stats", "tracepoint:syscalls:sys_enter_write { @[comm] = stats(args.count); }", WRITES,
	  "@[sh]: { .count = 1, .average = 0, .total = 0 }\n@[python3]: { .count = 2, .average = 13, .total = 27 }\n"
	  "@[bash]: { .count = 3, .average = 1379, .total = 4139 }\n" },
	{ "signed sum, min, avg",
	  "tracepoint:syscalls:sys_exit_read { @s = sum(args.ret); @lo = min(args.ret); "
	  "@a = avg(args.ret); }",
	  "syscalls:sys_exit_read tid=" T1 " ret=-14\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=4\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=-11\n",
	  "@s: -21\n\n@lo: -14\n\n@a: -7\n" },
	/* bpftrace's hist(x, k): 0 .. 2^(k+1) - 1 a value a bucket, then 2^k
	 * buckets a power of 2, labelled by their bounds (K, M... where a
	 * bucket spans 1024 values or more, as bpftrace) */
	{ "hist(x, k)",
	  "BEGIN { @[1] = hist(-5, 2); @[1] = hist(7, 2); @[1] = hist(9, 2); @[1] = hist(9, 2); "
	  "@[1] = hist(17, 2); @b = hist(9300, 3); @b = hist(1152, 3); }", "",
	  "@[1]:\n"
	  "(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "[0]                    0 |                                                    |\n"
	  "[1]                    0 |                                                    |\n"
	  "[2]                    0 |                                                    |\n"
	  "[3]                    0 |                                                    |\n"
	  "[4]                    0 |                                                    |\n"
	  "[5]                    0 |                                                    |\n"
	  "[6]                    0 |                                                    |\n"
	  "[7]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "[8, 10)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[10, 12)               0 |                                                    |\n"
	  "[12, 14)               0 |                                                    |\n"
	  "[14, 16)               0 |                                                    |\n"
	  "[16, 20)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "count 5, sum 37, mean 7, p50 ~8, p90 ~16, p99 ~16\n"
	  "\n"
	  "\n"
	  "@b:\n"
	  "[1152, 1280)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[1280, 1408)           0 |                                                    |\n"
	  "[1408, 1536)           0 |                                                    |\n"
	  "[1536, 1664)           0 |                                                    |\n"
	  "[1664, 1792)           0 |                                                    |\n"
	  "[1792, 1920)           0 |                                                    |\n"
	  "[1920, 2048)           0 |                                                    |\n"
	  "[2048, 2304)           0 |                                                    |\n"
	  "[2304, 2560)           0 |                                                    |\n"
	  "[2560, 2816)           0 |                                                    |\n"
	  "[2816, 3072)           0 |                                                    |\n"
	  "[3072, 3328)           0 |                                                    |\n"
	  "[3328, 3584)           0 |                                                    |\n"
	  "[3584, 3840)           0 |                                                    |\n"
	  "[3840, 4096)           0 |                                                    |\n"
	  "[4096, 4608)           0 |                                                    |\n"
	  "[4608, 5120)           0 |                                                    |\n"
	  "[5120, 5632)           0 |                                                    |\n"
	  "[5632, 6144)           0 |                                                    |\n"
	  "[6144, 6656)           0 |                                                    |\n"
	  "[6656, 7168)           0 |                                                    |\n"
	  "[7168, 7680)           0 |                                                    |\n"
	  "[7680, 8K)             0 |                                                    |\n"
	  "[8K, 9K)               0 |                                                    |\n"
	  "[9K, 10K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 2, sum 10452, mean 5226, p50 ~1152, p90 ~9K, p99 ~9K\n"
	  "\n" },
	{ "hist(x, 0) is hist(x)",
	  "BEGIN { @a[(uint8)1] = hist(3, 0); @a[2] = hist(0); }", "",
	  "@a[1]:\n[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 1, sum 3, mean 3, p50 ~2, p90 ~2, p99 ~2\n\n"
	  "@a[2]:\n[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 1, sum 0, mean 0, p50 ~0, p90 ~0, p99 ~0\n\n" },
	{ "hist",
	  "tracepoint:syscalls:sys_enter_write { @bytes = hist(args.count); }", WRITES,
	  "@bytes:\n"
	  "[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[1]                    0 |                                                    |\n"
	  "[2, 4)                 0 |                                                    |\n"
	  "[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[32, 64)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[64, 128)              0 |                                                    |\n"
	  "[128, 256)             0 |                                                    |\n"
	  "[256, 512)             0 |                                                    |\n"
	  "[512, 1K)              0 |                                                    |\n"
	  "[1K, 2K)               0 |                                                    |\n"
	  "[2K, 4K)               0 |                                                    |\n"
	  "[4K, 8K)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 6, sum 4166, mean 694, p50 ~8, p90 ~4K, p99 ~4K\n\n" },
	{ "hist by comm",
	  "tracepoint:syscalls:sys_enter_write /comm != \"bash\"/ { @[comm] = hist(args.count); }",
	  WRITES,
	  "@[sh]:\n"
	  "[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 1, sum 0, mean 0, p50 ~0, p90 ~0, p99 ~0\n"
	  "\n"
	  "@[python3]:\n"
	  "[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[8, 16)                0 |                                                    |\n"
	  "[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "count 2, sum 27, mean 13, p50 ~4, p90 ~16, p99 ~16\n\n" },
	{ "lhist",
	  "tracepoint:syscalls:sys_enter_write { @l = lhist(args.count, 5, 45, 10); }", WRITES,
	  "@l:\n"
	  "(..., 5)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "[5, 15)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	  "[15, 25)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "[25, 35)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "[35, 45)               0 |                                                    |\n"
	  "[45, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	  "count 6, sum 4166, mean 694, p50 ~5, p90 >=45, p99 >=45\n\n" },
	{ "nothing recorded", "tracepoint:syscalls:sys_enter_write { @[comm] = count(); }", "", "" },
	{ "print() and clear()",
	  "tracepoint:syscalls:sys_enter_write { @n = count(); } "
	  "interval:ms:1 { print(@n); clear(@n); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash ts=500\n"
	  "syscalls:sys_enter_write tid=" T1 " ts=600\n"
	  "tick 1000000\n"
	  "syscalls:sys_enter_write tid=" T1 " ts=1000500\n",
	  "@n: 2\n@n: 1\n" },
};

static void test_aggregations(void **state)
{
	run_cases(aggs, ARRAY_SIZE(aggs));
}

/* ---- predicates, statements, builtins ------------------------------------------- */

/* a syscall's filename is a user-space address: a number here */
#define OPENS \
	"syscalls:sys_enter_openat tid=" T1 " comm=bash dfd=-100 filename=0x7ffd1000 flags=0\n" \
	"syscalls:sys_enter_openat tid=" T2 " comm=python3 dfd=3 filename=0x7ffd2000 " \
	"flags=0x80000\n" \
	"syscalls:sys_enter_openat tid=" T3 " comm=sh dfd=-100 filename=0x7ffd3000 flags=0\n" \
	"syscalls:sys_enter_openat tid=" T2 " dfd=-100 filename=0x7ffd4000 flags=0x241\n"

static const struct icase stmts[] = {
	{ "records: fields by name, printed and stored as bpftrace's",
	  "BEGIN { $v = (x=1, y=\"s\"); $t = (a=0, d=(5, 6), e=$v); printf(\"%d %s %d\\n\", $t.a, "
	  "$t.e.y, $t.d.1); print($t); @m[1] = (r=$v, n=2); print(@m[1].r.x); }", "",
	  "0 s 6\n{ .a = 0, .d = (5, 6), .e = { .x = 1, .y = s } }\n1\n"
	  "@m[1]: { .r = { .x = 1, .y = s }, .n = 2 }\n" },
	{ "print() of a keyless map of records before its first store: its zero",
	  "BEGIN { print(@e); @e = (a=1, b=(\"x\", 2)); clear(@e); }", "",
	  "@e: { .a = 0, .b = (, 0) }\n" },
	{ "delete()'s value; a tuple as a map's keys",
	  "BEGIN { @b[1, \"a\"] = 2; @[0, 1] = 1; $t = (1, \"a\"); @c[(3, 4)] = 1; "
	  "printf(\"%d %d %d\\n\", delete(@b, (1, \"a\")), delete(@b, $t), has_key(@c, 3, 4)); "
	  "for ($kv : @) { delete(@, $kv.0); } }", "", "1 0 1\n@c[3, 4]: 1\n" },
	{ "if/else as an expression, nested; _ = discards; an aggregation ending a block",
	  "BEGIN { $y = 0; print(if (1) { printf(\"a\"); if ($y) { 5 } else if ($y + 1) { 6 } "
	  "else { 7 } } else { 3 }); $z = if ($y) { 1 } else { 2 }; _ = { print($z); 1 }; "
	  "@ = { let $a = 100; avg($a) }; }", "", "a6\n2\n@: 100\n" },
	{ "++ and -- inside expressions: post, pre, of maps, of pointers",
	  "BEGIN { $i = 0; while ($i++ < 3) { printf(\"%d \", $i); } $j = 5; "
	  "printf(\"%d %d %d %d\\n\", --$j, $j--, ++$j, $j); @m[1]++; print(@m[1]++); "
	  "$p = (int32 *)0x40; $p--; printf(\"%p \", $p--); print($p); @a = avg($i--); }", "",
	  "1 2 3 4 4 4 4\n1\n0x3c 0x38\n@m[1]: 2\n\n@a: 4\n" },
	{ "numeric predicate",
	  "tracepoint:syscalls:sys_enter_write /args.fd == 1/ { @[comm] = count(); }", WRITES,
	  "@[python3]: 1\n@[bash]: 3\n" },
	{ "string predicate", "tracepoint:syscalls:sys_enter_write /comm == \"python3\"/ "
	  "{ @ = sum(args.count); }", WRITES, "@: 27\n" },
	{ "glob predicate", "tracepoint:syscalls:sys_enter_write /comm ~ \"*h\"/ "
	  "{ @[comm] = count(); }", WRITES, "@[sh]: 1\n@[bash]: 3\n" },
	{ "glob non-match", "tracepoint:syscalls:sys_enter_write /comm !~ \"*h\"/ "
	  "{ @[comm] = count(); }", WRITES, "@[python3]: 2\n" },
	{ "an int in a syscall's 8 bytes, as a key",
	  "tracepoint:syscalls:sys_enter_openat { @[args.dfd] = count(); }", OPENS,
	  "@[3]: 1\n@[-100]: 3\n" },
	{ "!~ in a body", "tracepoint:sched:sched_process_exec "
	  "{ if (args.filename !~ \"/usr/*\") { printf(\"%s\\n\", args.filename); } }",
	  "sched:sched_process_exec tid=" T1 " filename=/usr/bin/ls pid=" T1 "\n"
	  "sched:sched_process_exec tid=" T2 " filename=/bin/sh pid=" T2 "\n"
	  "sched:sched_process_exec tid=" T3 " filename=\"/opt/my app\" pid=" T3 "\n",
	  "/bin/sh\n/opt/my app\n" },
	{ "predicate of several", "tracepoint:syscalls:sys_enter_write "
	  "/(args.fd == 1 || args.fd == 5) && comm != \"bash\" && !(args.count > 100)/ "
	  "{ @[comm, args.fd] = count(); }", WRITES, "@[python3, 1]: 1\n@[sh, 5]: 1\n" },
	{ "if, else if, else", "tracepoint:syscalls:sys_enter_write { "
	  "if (args.count > 100) { @big = count(); } else if (args.count == 0) { @zero = count(); } "
	  "else { @small = count(); } }", WRITES, "@big: 1\n\n@zero: 1\n\n@small: 4\n" },
	{ "ternary", "tracepoint:syscalls:sys_enter_write "
	  "{ @[args.count >= 20 ? \"large\" : \"small\"] = count(); }", WRITES,
	  "@[large]: 3\n@[small]: 3\n" },
	{ "variables", "tracepoint:syscalls:sys_enter_write { $k = args.count * 2; $k += 1; "
	  "$name = comm; printf(\"%s %d\\n\", $name, $k); }", WRITES,
	  "bash 21\npython3 41\nbash 67\nsh 1\nbash 8193\npython3 15\n" },
	{ "latency join",
	  "tracepoint:syscalls:sys_enter_read { @start[tid] = nsecs; } "
	  "tracepoint:syscalls:sys_exit_read /@start[tid]/ { @us[comm] = sum((nsecs - "
	  "@start[tid]) / 1000); @n[comm] = count(); delete(@start[tid]); }",
	  "syscalls:sys_exit_read tid=" T1 " comm=bash ret=1 ts=500\n"	/* no start: skipped */
	  "syscalls:sys_enter_read tid=" T1 " fd=0 ts=1000\n"
	  "syscalls:sys_enter_read tid=" T2 " comm=cat fd=3 ts=2000\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=1 ts=11000\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=1 ts=12000\n"	/* deleted: skipped */
	  "syscalls:sys_exit_read tid=" T2 " ret=100 ts=32000\n"
	  "syscalls:sys_enter_read tid=" T1 " fd=0 ts=40000\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=1 ts=45000\n",
	  "@us[bash]: 15\n@us[cat]: 30\n\n@n[cat]: 1\n@n[bash]: 2\n" },
	{ "printf conversions", "tracepoint:syscalls:sys_enter_write { printf(\"%s|%d|%5d|%-5d|"
	  "%05d|%x|%X|%#x|%o|\", comm, args.fd, args.fd, args.fd, args.count, args.count, "
	  "args.count, args.count, args.count); printf(\"%c|%%|%.3s|%8s|%-8s|%p|%u|%i|%+d\\n\", "
	  "65, comm, comm, comm, args.count, args.fd, args.fd, args.fd); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=python3 fd=2 count=255\n",
	  "python3|2|    2|2    |00255|ff|FF|0xff|377|A|%|pyt| python3|python3 |0xff|2|2|+2\n" },
	{ "builtins", "tracepoint:syscalls:sys_enter_write { printf(\"%s %d %d %d %d %d %d %s\\n\", "
	  "comm, pid, tid, cpu, nsecs, elapsed, uid, probe); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash cpu=1 ts=1234567\n",
	  "bash " T1 " " T1 " 1 1234567 1234567 -1 tracepoint:syscalls:sys_enter_write\n" },
	{ "one clause, two probes", "tracepoint:syscalls:sys_enter_write, "
	  "tracepoint:syscalls:sys_enter_read { @[probe] = count(); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash\n"
	  "syscalls:sys_enter_read tid=" T1 "\n"
	  "syscalls:sys_enter_read tid=" T1 "\n",
	  "@[tracepoint:syscalls:sys_enter_write]: 1\n@[tracepoint:syscalls:sys_enter_read]: 2\n" },
	{ "a glob of events", "tracepoint:syscalls:sys_enter_* { @[probe] = count(); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash\n"
	  "syscalls:sys_enter_openat tid=" T1 " filename=0x1000\n",
	  "@[tracepoint:syscalls:sys_enter_openat]: 1\n@[tracepoint:syscalls:sys_enter_write]: 1\n" },
	{ "string fields", "tracepoint:sched:sched_switch /args.prev_state == 0/ "
	  "{ @[args.prev_comm, args.next_comm] = count(); }",
	  "sched:sched_switch tid=" T1 " prev_comm=bash prev_pid=" T1 " prev_state=1 "
	  "next_comm=swapper/0 next_pid=0\n"
	  "sched:sched_switch tid=0 prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=bash "
	  "next_pid=" T1 "\n",
	  "@[swapper/0, bash]: 1\n" },
	{ "BEGIN, events, interval, END in order",
	  "BEGIN { printf(\"begin\\n\"); } "
	  "tracepoint:syscalls:sys_enter_write { @c = count(); printf(\"write %d\\n\", args.count); } "
	  "interval:ms:100 { printf(\"tick at %d ms\\n\", elapsed / 1000000); } "
	  "END { printf(\"end\\n\"); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash count=1 ts=50000000\n"
	  "tick 100000000\n"
	  "tick 150000000\n"	/* not due: nothing */
	  "syscalls:sys_enter_write tid=" T1 " count=2 ts=160000000\n"
	  "tick 200000000\n",
	  "begin\nwrite 1\ntick at 100 ms\nwrite 2\ntick at 200 ms\nend\n@c: 2\n" },
	{ "exit() stops the events, END still runs",
	  "tracepoint:syscalls:sys_enter_write { @c = count(); if (args.count == 2) { exit(); } "
	  "printf(\"after\\n\"); } END { printf(\"end\\n\"); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash count=1\n"
	  "syscalls:sys_enter_write tid=" T1 " count=2\n"
	  "syscalls:sys_enter_write tid=" T1 " count=3\n",
	  "after\nend\n@c: 2\n" },
	{ "time() with a format", "BEGIN { time(\"[%%]\\n\"); }", "", "[%]\n" },
	{ "strings kept as map values, carried from entry to return",
	  "tracepoint:sched:sched_switch { @who[args.next_pid] = str(args.next_comm); } "
	  "tracepoint:syscalls:sys_enter_write /@who[tid] != \"\"/ "
	  "{ printf(\"%s wrote %d\\n\", @who[tid], args.count); @by[@who[tid]] = sum(args.count); } "
	  "END { print(@who); clear(@who); }",
	  "sched:sched_switch tid=0 prev_comm=swapper/0 next_comm=bash next_pid=" T1 "\n"
	  "syscalls:sys_enter_write tid=" T1 " comm=bash count=7\n"
	  "syscalls:sys_enter_write tid=" T2 " comm=cat count=9\n"	/* no name kept */
	  "syscalls:sys_enter_write tid=" T1 " count=5\n",
	  "bash wrote 7\nbash wrote 5\n@who[" T1 "]: bash\n@by[bash]: 12\n" },
	/* bpftrace sorts a map by its values when they are numbers, else by
	 * its keys (then print(@m, N) keeps the last N keys) */
	{ "a map of strings, buffers or tuples printed in its keys' order",
	  "BEGIN { @s[3] = \"a\"; @s[1] = \"c\"; @s[2] = \"b\"; @b[2] = buf(\"a\", 1); "
	  "@b[1] = buf(\"c\", 1); @b[3] = buf(\"b\", 1); print(@b, 2); @t[2, \"b\"] = (1, 2); "
	  "@t[1, \"z\"] = (3, 4); @t[1, \"a\"] = (0, 0); }", "",
	  "@b[2]: a\n@b[3]: b\n@s[1]: c\n@s[2]: b\n@s[3]: a\n\n@b[1]: c\n@b[2]: a\n@b[3]: b\n\n"
	  "@t[1, a]: (0, 0)\n@t[1, z]: (3, 4)\n@t[2, b]: (1, 2)\n" },
	{ "a function's string kept as a map value; a string map copied",
	  "BEGIN { @t[1] = strftime(\"at %%\", 0); @u = usym(1); @a = @u; @n = ntop(2, 0x0100007f); }",
	  "", "@t[1]: at %\n\n@u: 0x1\n\n@a: 0x1\n\n@n: 127.0.0.1\n" },
};

/* Declarations: let $x starts again at each run; let @m = hash(N) bounds @m. */
static const struct icase decls[] = {
	{ "let starts the variable again",
	  "tracepoint:syscalls:sys_enter_write { let $n; if (args.fd == 2) { $n = args.count; } "
	  "let $m: uint8 = args.count; printf(\"%d %d\\n\", $n, $m); }", WRITES,
	  "0 10\n20 20\n0 33\n0 0\n0 0\n0 7\n" },
	{ "a full hash map drops the new key",
	  "let @a = hash(2); tracepoint:syscalls:sys_enter_write { @a[args.count] = args.fd; }",
	  WRITES, "@a[10]: 1\n@a[20]: 2\n" },
	{ "a full hash map still updates its keys",
	  "let @a = percpuhash(1); tracepoint:syscalls:sys_enter_write { @a[tid] = count(); }",
	  WRITES, "@a[" T1 "]: 3\n" },
	{ "a full LRU map drops the key updated least recently",
	  "let @a = lruhash(2); tracepoint:syscalls:sys_enter_write { @a[comm] = sum(args.count); }",
	  WRITES, "@a[python3]: 7\n@a[bash]: 4139\n" },
	/* typeof(TYPE) is TYPE; typeof(a number) is not run (no print) */
	{ "let $v: typeof(...)",
	  "macro add(x) { let $y: typeof(x); if (true) { $y = 1 } x + $y } BEGIN { "
	  "let $a: typeof(uint8) = 257; let $b: typeof({ print(7); 1 }) = 3; print(($a, $b, "
	  "add(1))); }", "", "(1, 3, 2)\n" },
	{ "config print_maps_on_exit",
	  "config = { print_maps_on_exit = 0 } tracepoint:syscalls:sys_enter_write { @ = count(); } "
	  "end { printf(\"end\\n\"); }", WRITES, "end\n" },
};

static void test_declarations(void **state)
{
	run_cases(decls, ARRAY_SIZE(decls));
}

/* Loops: a range read once, break and continue of the innermost, return. */
static const struct icase loops[] = {
	{ "for over a range",
	  "tracepoint:syscalls:sys_enter_write { $s = 0; for ($i : 0..args.fd + 1) { $s += $i; } "
	  "@[comm] = sum($s); }", WRITES, "@[bash]: 3\n@[python3]: 4\n@[sh]: 15\n" },
	{ "break and continue",
	  "BEGIN { for ($i : 0..3) { for ($j : 0..3) { if ($j == 1) { continue } "
	  "if ($j == 2) { break } printf(\"%d%d \", $i, $j); } } printf(\"\\n\"); }", "",
	  "00 10 20 \n" },
	{ "the bounds are read once",
	  "BEGIN { $n = 3; for ($i : 0..$n) { $n++; printf(\"%d\", $i); } printf(\" %d\\n\", $n); }",
	  "", "012 6\n" },
	{ "for over a map: a snapshot of (key, value) tuples",
	  "tracepoint:syscalls:sys_enter_write { @n[comm, args.fd] = count(); @s[comm] = "
	  "str(comm); } END { for ($kv : @n) { printf(\"%s %d %d|\", $kv.0.0, $kv.0.1, $kv.1); "
	  "@n[\"x\", 0] = count(); } for ($kv : @s) { print($kv); } clear(@n); clear(@s); }", WRITES,
	  "python3 1 1|python3 2 1|sh 5 1|bash 1 3|(bash, bash)\n(python3, python3)\n(sh, sh)\n" },
	{ "while, unroll, return",
	  "tracepoint:syscalls:sys_enter_write { $c = args.count; $b = 0; while ($c > 1) { $c /= 2; "
	  "$b++ } if (args.fd == 5) { return } unroll (2) { @[comm] = sum($b); } }", WRITES,
	  "@[python3]: 12\n@[bash]: 40\n" },
};

static void test_loops(void **state)
{
	run_cases(loops, ARRAY_SIZE(loops));
}

/* Values of an enum print by their enumerators' names, as bpftrace's. */
static const struct icase enums[] = {
	{ "keys, values, print, printf",
	  "enum Foo { ONE = 1, TWO = 2, BIG = 99999 }; BEGIN { @[ONE, TWO] = BIG; @n[ONE + 1] = TWO - 1; "
	  "$t = TWO; print($t); print((enum Foo)1); print((enum Foo)7); "
	  "printf(\"%d %s %-5s|%s\\n\", ONE, ONE, $t, (enum Foo)100); }", "",
	  "TWO\nONE\n7\n1 ONE TWO  |100\n@[ONE, TWO]: BIG\n\n@n[2]: 1\n" },
	{ "the first key and the first store make the map's type",
	  "enum { A = 1, B = 2 }; BEGIN { @[A + 1] = B + 1; @[A] = A; @s = A; @s = 5; }", "",
	  "@[1]: 1\n@[2]: 3\n\n@s: 5\n" },
};

static void test_enums(void **state)
{
	run_cases(enums, ARRAY_SIZE(enums));
}

/* Tuples as values, in variables and maps, printed as bpftrace; bools. */
static const struct icase tuples[] = {
	{ "stacks in tuples and as a loop's keys: BEGIN's are empty, printed in their modes",
	  "BEGIN { print((kstack, \"a\")); $t = (1, ustack(build_id, 3), kstack(raw)); print($t); "
	  "@m[kstack(raw)] = count(); for ($kv : @m) { print($kv.1); print($kv); } clear(@m); }",
	  "", "(\n, a)\n(1, \n, \n)\n1\n(\n, 1)\n" },
	{ "elements, nesting, printing",
	  "tracepoint:syscalls:sys_enter_write /args.fd != 5/ { $t = (args.fd, comm, (args.count, "
	  "(int8)-1)); printf(\"%d %s %d|\", $t.0, $t.1, $t.2.0); print($t); @[tid] = $t; }",
	  WRITES, "1 bash 10|(1, bash, (10, -1))\n2 python3 20|(2, python3, (20, -1))\n"
	  "1 bash 33|(1, bash, (33, -1))\n1 bash 4096|(1, bash, (4096, -1))\n"
	  "1 python3 7|(1, python3, (7, -1))\n"
	  "@[" T1 "]: (1, bash, (4096, -1))\n@[" T2 "]: (1, python3, (7, -1))\n" },
	{ "a variable keeps its own copy; equality",
	  "BEGIN { $a = (0, \"x\"); for ($i : 1..3) { $b = $a; $a = ($i, \"y\"); print(($b, $a)); } "
	  "print($a == (2, \"y\")); print($a != (2, \"y\")); @m = (1, \"z\"); print(@m.1); }", "",
	  "((0, x), (1, y))\n((1, y), (2, y))\ntrue\nfalse\nz\n@m: (1, z)\n" },
	{ "an element by a constant index", "BEGIN { $a = (1, \"b\", 3); print($a[1 + 1]); "
	  "print($a[-1 + 2]); }", "", "3\nb\n" },
	{ "a constant cast to an array of integers: its bytes",
	  "BEGIN { print((int8[])\"hi\"); printf(\"%x\\n\", ((int8[8])12345)[0]); "
	  "print((int16[4])-2); @a[1] = (uint8[2])\"a\"; print(@a[1][0]); }", "",
	  "[104,105,0]\n39\n[-2,-1,-1,-1]\n97\n@a[1]: [97,0]\n" },
	/* bpftrace keeps a variable's first order of fields; the expressions
	 * run in the order written */
	{ "a record assigned in another order of its fields",
	  "BEGIN { $a = (foo = { printf(\"h\"); 1 }, bar = { printf(\"w\"); 2 }); "
	  "$a = (bar = { printf(\"H\"); 3 }, foo = { printf(\"W\\n\"); 4 }); print($a); "
	  "$b = (a = 1, b = \"x\", c = (1, 2)); $b = (c = (3, 4), a = 5, b = \"y\"); print($b); }",
	  "", "hwHW\n{ .foo = 4, .bar = 3 }\n{ .a = 5, .b = y, .c = (3, 4) }\n" },
	{ "an array cast of a constant integer cast: its width's bytes; bools",
	  "BEGIN { @a = (bool[2])(uint16)1; print((uint8[2])(uint16)258); "
	  "print((int8[4])(int32)-2); $b = (bool[8])1; print(($b[0], $b[1])); }", "",
	  "[2,1]\n[-2,-1,-1,-1]\n(true, false)\n@a: [true,false]\n" },
	/* bpftrace's sizes: a tuple is a C struct of its elements (each aligned
	 * to its size, a string to 1), a literal 0 ... 127 one byte */
	{ "sizeof of tuples and literals",
	  "BEGIN { $t = ((int8)1, (int64)1, (int8)1, (int64)1); $u = ((int32)1, (int16)1, (int8)1); "
	  "$a = ((int8)-100, (int8)100, \"abcdef\", 3, (int32)1, (int64)-10, (int8)10, (int16)-555, "
	  "\"abc\"); printf(\"%d %d %d %d %d %d\\n\", sizeof($t), sizeof($u), sizeof($a), "
	  "sizeof(\"abc\"), sizeof(((uint16)1, (1, (int32)2))), sizeof(127)); }", "",
	  "32 8 32 4 12 1\n" },
	{ "a string's bytes by a constant index, chars",
	  "BEGIN { $a = \"foo\"; printf(\"%c is the first letter\\n\", $a[0]); "
	  "print(($a[1 + 1], $a[3], \"AB\"[0])); }", "", "f is the first letter\n(111, 0, 65)\n" },
	{ "probetype at begin and end, bpftrace's \"special\"",
	  "BEGIN { printf(\"%s %d\\n\", __builtin_probetype, probetype() == \"special\"); exit(); } "
	  "END { print(probetype); }", "", "special 1\nspecial\n" },
	{ "a string's bytes by a computed index, 0 outside it",
	  "BEGIN { $a = \"foo\"; $j = 1; $k = (uint64)10; print(($a[$j], $a[$j + 1], $a[$j - 2], "
	  "$a[$k], comm[$j - 1] > 0)); }", "", "(111, 111, 0, 0, true)\n" },
	/* C's offsets (gcc's offsetof() for the same struct gives them) */
	{ "offsetof: nested, anonymous and union members",
	  "struct Foo { int x; char c; struct { long a; int b : 3; } s; union { short u; long v; } w; "
	  "union { char p; int q; }; } BEGIN { print((offsetof(struct Foo, s.a), "
	  "offsetof(struct Foo, c), offsetof(struct Foo, s), offsetof(struct Foo, w . v), "
	  "offsetof(struct Foo, q), offsetof(struct Foo, x))); }", "", "(8, 4, 8, 24, 32, 0)\n" },
	/* a tuple in a map key: kept interned, printed as print() prints it */
	{ "nested tuples in map keys",
	  "BEGIN { @[\"hi\", (\"hellolongstr\", 2)] = 1; @[\"hellolongstr\", (\"hi\", 5)] = 2; "
	  "$c = ((int8)-4, ((int16)-5, -6)); @a[$c] = 12; @a[(int16)-1, ((int32)-2, 3)] = 10; "
	  "@a[-4, (-5, -6)] += 1; print(@a[-1, (-2, 3)]); print(has_key(@a, (5, (6, 7)))); "
	  "@b[(1, 2), 3] = 1; }", "",
	  "10\nfalse\n@[hi, (hellolongstr, 2)]: 1\n@[hellolongstr, (hi, 5)]: 2\n\n"
	  "@a[-1, (-2, 3)]: 10\n@a[-4, (-5, -6)]: 13\n\n@b[(1, 2), 3]: 1\n" },
	/* buf() of a literal: its bytes and its NUL, len of them */
	{ "buf of a literal: variables, maps, ?:, ==, print, %r %rx %rh",
	  "BEGIN { printf(\"%rx|%rh|%r\\n\", buf(\"Hello\\0\", 6), buf(\"Hello\\0\", 6), "
	  "buf(\"a\\\\b\", 4)); $n = 1; $a = $n ? buf(\"hi\", 2) : buf(\"bye\", 3); print($a); "
	  "@v = buf(\"ok_value\", 8); @k[buf(\"ok_key\", 7), 1] = count(); "
	  "print(($a == buf(\"hi\", 2), $a != buf(\"hi\", 3), $a == buf(\"bye\", 2))); "
	  "printf(\"%r|\\n\", @v); print(buf(\"x\", 0)); }", "",
	  "\\x48\\x65\\x6c\\x6c\\x6f\\x00|48 65 6c 6c 6f 00|a\\b\\x00\nhi\n(true, true, false)\n"
	  "ok_value|\n\n@v: ok_value\n\n@k[ok_key\\x00, 1]: 1\n" },
	{ "bools", "BEGIN { @[true] = (false, (bool)256, 7 > 1); print(true); printf(\"%d %s\\n\", true, "
	  "false); }", "", "true\n1 false\n@[true]: (false, true, true)\n" },
};

static void test_tuples(void **state)
{
	static const struct run_opts btjson = { .where = WHERE_AUTO, .mode = OUT_BTJSON };
	const char *got;

	run_cases(tuples, ARRAY_SIZE(tuples));
	/* bpftrace's -f json: arrays without spaces, bools as JSON's */
	got = run_opts("BEGIN { print((1, \"a\\\"b\", (true, 2))); print(1 > 2); @ = (3, (false,)); }",
		       "", &btjson);
	assert_non_null(strstr(got, "{\"type\": \"value\", \"data\": [1,\"a\\\"b\",[true,2]]}\n"
			       "{\"type\": \"value\", \"data\": false}\n"));
	assert_non_null(strstr(got, "{\"type\": \"map\", \"data\": {\"@\": [3,[false]]}}\n"));
}

/* A C array read as a value (fetchargs.c) is a tuple whose bytes open with a
 * mark: printed as bpftrace prints the C array, indexed as a tuple; a C
 * struct is a record. */
static void test_tuple_marks(void **state)
{
	static struct outbuf ob;
	struct tbuf in = { 0 }, arr = { 0 }, st = { 0 };
	struct telem e;

	assert_int_equal(tuple_put_mark(&arr, 'A'), 0);
	for (int i = 5; i <= 6; i++)
		assert_int_equal(tuple_put_int(&arr, i, false, 0), 0);
	assert_int_equal(tuple_put_names(&in, "m"), 0);
	assert_int_equal(tuple_put_tuple(&in, arr.p, arr.len), 0);
	assert_int_equal(tuple_put_names(&st, "y,p,s"), 0);
	assert_int_equal(tuple_put_tuple(&st, in.p, in.len), 0);
	assert_int_equal(tuple_put_int(&st, 0x10, true, TUPLE_HEX), 0);
	assert_int_equal(tuple_put_str(&st, "ab", 2), 0);
	ob_init(&ob, -1);
	tuple_text(&ob, st.p, st.len, NULL, NULL, NULL);
	ob_putc(&ob, '|');
	tuple_json(&ob, st.p, st.len);
	assert_int_equal(ob.len, strlen("{ .y = { .m = [5,6] }, .p = 0x10, .s = ab }|"
					 "{\"y\": {\"m\": [5,6]}, \"p\": 16, \"s\": \"ab\"}"));
	assert_memory_equal(ob.buf, "{ .y = { .m = [5,6] }, .p = 0x10, .s = ab }|"
			    "{\"y\": {\"m\": [5,6]}, \"p\": 16, \"s\": \"ab\"}", ob.len);
	/* the mark is no element */
	assert_int_equal(tuple_elem(arr.p, arr.len, 0, &e), 0);
	assert_int_equal(e.i, 5);
	assert_int_equal(tuple_elem(arr.p, arr.len, 1, &e), 0);
	assert_int_equal(e.i, 6);
	assert_int_equal(tuple_elem(arr.p, arr.len, 2, &e), -ENOENT);
	tbuf_free(&in);
	tbuf_free(&arr);
	tbuf_free(&st);
}

/* Macros, expanded by the parser, and block expressions. */
static const struct icase macros[] = {
	{ "parameters: an expression, a variable, a map; hygiene",
	  "macro add(x) { $y = x + 1; $y } macro inc($v) { $v += 1; $v } macro set(@m, k) { @m[k] = 2; } "
	  "macro one() { 1 } "
	  "BEGIN { $y = 10; $z = add($y * 2); inc($y); set(@a, one); print(($y, $z, add(add(one)))); }",
	  "", "(11, 21, 3)\n@a[1]: 2\n" },
	{ "a macro per event, a block expression as a condition",
	  "macro big(c) { c > 20 } tracepoint:syscalls:sys_enter_write "
	  "{ if ({ let $b = big(args.count); $b }) { @[comm] = count(); } }", WRITES,
	  "@[bash]: 2\n" },
	{ "a block expression's value and its statements",
	  "BEGIN { print({ $x = 1; printf(\"bob\\n\"); $x > 1 }); $s = { \"a\" }; print($s); }", "",
	  "bob\nfalse\na\n" },
};

static void test_macros(void **state)
{
	run_cases(macros, ARRAY_SIZE(macros));
}

/* Pointers as values where no memory is read: C's arithmetic, hex. */
static const struct icase pointers[] = {
	{ "arithmetic by the pointee's size",
	  "struct A { int a; char c[28] } BEGIN { @p = (int32 *)0x32; @p += 2; @q = (int64 *)0x32; @q++; "
	  "$s = (struct A *)1024; $t = $s - 5; $s++; printf(\"%lu %lu %d\\n\", $t, $s, $s > 1024); "
	  "print($s + 1); print(2 + (int16 *)0); $t = ((int32 *)8, ()); print($t); print($t.0 + 1); }",
	  "", "864 1056 1\n0x440\n0x4\n(0x8, ())\n0xc\n@p: 0x3a\n\n@q: 0x3a\n" },
	/* a task_struct's address is never NULL: its truth needs no read */
	{ "curtask's truth where no memory is read",
	  "BEGIN { if (curtask) { @a = 1; } @b = curtask ? 1 : 2; @c = (curtask && 0) ? 1 : 2; "
	  "@d = (curtask || 0) ? 1 : 2; print((!curtask, curtask && 1)); "
	  "while (!curtask) { @e = 1; } }", "",
	  "(false, true)\n@a: 1\n\n@b: 1\n\n@c: 2\n\n@d: 1\n" },
};

static void test_pointers(void **state)
{
	run_cases(pointers, ARRAY_SIZE(pointers));
}

static void test_statements(void **state)
{
	run_cases(stmts, ARRAY_SIZE(stmts));
}

/* Issue 38 #2: printf's fields went through a fixed 512-byte buffer (%600d
 * gave 511 columns, a 1,000-character %s 511 characters). */
static void test_printf_wide(void **state)
{
	static char prog[1200], want[1200];
	char s[1001];
	const char *got;

	memset(s, 'a', 1000);
	s[1000] = 0;
	snprintf(prog, sizeof(prog), "BEGIN { printf(\"%%600d|%%-4096s|%%s|\\n\", 7, \"x\", "
		 "\"%s\"); }", s);
	got = run(prog, "");
	snprintf(want, sizeof(want), "%599s7|x", "");
	assert_int_equal(strlen(got), 600 + 1 + 4096 + 1 + 1000 + 2);
	assert_memory_equal(got, want, 602);
	assert_memory_equal(got + 602 + 4096, s, 1000);
}

static void test_time(void **state)
{
	const char *got = run("BEGIN { time(); time(\"%Y\\n\"); }", "");
	regex_t re;

	assert_int_equal(regcomp(&re, "^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\n[0-9]{4}\n$",
				 REG_EXTENDED), 0);
	if (regexec(&re, got, 0, NULL, 0))
		fail_msg("time(): '%s'", got);
	regfree(&re);
}

/* tseries(): on the clock of a map, as bpftrace's tests step it (epoch 0
 * reads back as 0; a window of n intervals; "-" where none was stored; the
 * scale one either side of a flat series; '.' marks 0 between them). */
static const struct icase tseries[] = {
	{ "tseries with durations",
	  "BEGIN { @ts = 1s; @s = tseries(-2, 1s, 3); @ts = 3s; @s = tseries(4, 1s, 3); @ts = 0; "
	  "@z = tseries(7, 100ms, 2, \"avg\"); @ts = 100ms; @z = tseries(7, 100ms, 2, \"avg\"); "
	  "@z = tseries(8, 100ms, 2, \"avg\"); @ts = 1001ms; @m[\"k\"] = tseries(3, 1ms, 2, \"max\"); "
	  "@m[\"k\"] = tseries(1, 1ms, 2, \"max\"); clear(@ts); print(1ms + 2us); }", "",
	  "1002000\n"
	  "@s:\n"
	  "         -2                                                  4\n"
	  "hh:mm:ss |___________________________________________________|\n"
	  "00:00:01 *                .                                  | -2\n"
	  "00:00:02 |                .                                  | -\n"
	  "00:00:03 |                .                                  * 4\n"
	  "         v___________________________________________________v\n"
	  "         -2                                                  4\n\n\n"
	  "@z:\n"
	  "             0                                                   7\n"
	  "hh:mm:ss.ms  |___________________________________________________|\n"
	  "00:00:00.000 *                                                   | 0\n"
	  "00:00:00.100 |                                                   * 7\n"
	  "             v___________________________________________________v\n"
	  "             0                                                   7\n\n\n"
	  /* one interval: no step between times, whole seconds */
	  "@m[k]:\n"
	  "         2                                                   4\n"
	  "hh:mm:ss |___________________________________________________|\n"
	  "00:00:01 |                         *                         | 3\n"
	  "         v___________________________________________________v\n"
	  "         2                                                   4\n\n" },
};

static void test_tseries(void **state)
{
	char *tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;

	setenv("BPFTRACE_DUMMY_TS_MAP", "@ts", 1);
	setenv("TZ", "UTC", 1);
	tzset();
	run_cases(tseries, ARRAY_SIZE(tseries));
	unsetenv("BPFTRACE_DUMMY_TS_MAP");
	if (tz)
		setenv("TZ", tz, 1);
	else
		unsetenv("TZ");
	free(tz);
	tzset();
}

/* ---- integers ------------------------------------------------------------------- */

#define HUGE_WRITES \
	"syscalls:sys_enter_write tid=" T1 " comm=bash fd=1 count=5\n" \
	"syscalls:sys_enter_write tid=" T1 " fd=1 count=0x7fffffffffffffff\n" \
	"syscalls:sys_enter_write tid=" T1 " fd=1 count=0x8000000000000000\n" \
	"syscalls:sys_enter_write tid=" T1 " fd=0xffffffff count=0xffffffffffffffff\n"

static const struct icase ints[] = {
	/* size_t count and unsigned int fd are unsigned 64-bit fields: above
	 * INT64_MAX they are large, not negative, as in the kernel's filter */
	{ "u64 above INT64_MAX, in the interpreter", "tracepoint:syscalls:sys_enter_write "
	  "{ if (args.count > 100) { @big = count(); } if (args.count < 0) { @neg = count(); } }",
	  HUGE_WRITES, "@big: 3\n" },
	{ "u64 above INT64_MAX, in a predicate", "tracepoint:syscalls:sys_enter_write "
	  "/args.count > 100/ { @big = count(); }", HUGE_WRITES, "@big: 3\n" },
	{ "u64 arithmetic is unsigned", "tracepoint:syscalls:sys_enter_write /args.fd > 1/ "
	  "{ printf(\"%lu %u %u %d\\n\", args.count / 2, args.count % 10, args.count >> 60, "
	  "args.count + 1 > 0); }", HUGE_WRITES, "9223372036854775807 5 15 0\n" },
	{ "u64 printed", "tracepoint:syscalls:sys_enter_write /args.count > 0x7fffffffffffffff/ "
	  "{ printf(\"%lu %ld %lx\\n\", args.count, args.count, args.count); }", HUGE_WRITES,
	  "9223372036854775808 -9223372036854775808 8000000000000000\n"
	  "18446744073709551615 -1 ffffffffffffffff\n" },
	{ "signed fields stay signed", "tracepoint:syscalls:sys_exit_read "
	  "{ @[args.ret < 0 ? \"error\" : \"ok\"] = count(); }",
	  "syscalls:sys_exit_read tid=" T1 " ret=-1\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=0x7fffffffffffffff\n"
	  "syscalls:sys_exit_read tid=" T1 " ret=-9223372036854775808\n",
	  "@[ok]: 1\n@[error]: 2\n" },
	{ "an int in a syscall's 8 bytes", "tracepoint:syscalls:sys_enter_openat "
	  "/args.dfd == -100/ { @ = count(); }", OPENS, "@: 3\n" },
	/* the kernel would compare its 8 bytes unsigned: the interpreter keeps it */
	{ "an int in a syscall's 8 bytes, ordered", "tracepoint:syscalls:sys_enter_openat "
	  "/args.dfd < 0/ { @ = count(); }", OPENS, "@: 3\n" },
	{ "an int in a syscall's 8 bytes, a filter", "tracepoint:syscalls:sys_enter_openat "
	  "/args.dfd == 3 || args.dfd != 2147483647 && args.flags == 0/ { @ = count(); }", OPENS,
	  "@: 3\n" },
	{ "division by zero (1, as bpftrace), INT64_MIN / -1", "BEGIN { $z = 0; $m = -9223372036854775807 - 1; "
	  "printf(\"%d %d %ld %ld\\n\", 7 / $z, 7 % $z, $m / -1, $m % -1); }", "",
	  "1 1 -9223372036854775808 0\n" },
	{ "wrapping", "BEGIN { $m = 9223372036854775807; printf(\"%ld %ld\\n\", $m + 1, -($m + 1)); }",
	  "", "-9223372036854775808 -9223372036854775808\n" },
};

static void test_integers(void **state)
{
	run_cases(ints, ARRAY_SIZE(ints));
}

/* ---- the engine's filter and the interpreter agree ------------------------------ */

/*
 * Each predicate twice: as a clause's predicate, which the planner hands to
 * the event's filter (filter/eval.c, whose answers are the kernel's), and inside
 * an if, which the interpreter evaluates.  Both must count the same, and
 * the count is pinned too.
 */
static const struct {
	const char *pred;
	const char *want;
	bool pushed;
} agree[] = {
	{ "args.count > 100", "@: 4\n", true },
	{ "args.count >= 0x8000000000000000", "@: 2\n", true },
	{ "args.count < 0x8000000000000000", "@: 4\n", true },
	{ "args.count == 0xffffffffffffffff", "@: 1\n", true },
	{ "args.count != 5 && args.fd < 3", "@: 3\n", true },
	{ "args.fd > 2", "@: 2\n", true },
	{ "args.fd & 0x80000000", "@: 1\n", true },
	{ "!(args.count <= 100)", "@: 4\n", true },
	{ "comm ~ \"ba*\"", "@: 4\n", true },
	{ "comm !~ \"ba*\"", "@: 2\n", true },
	{ "!(comm ~ \"ba*\")", "@: 2\n", true },
	{ "comm !~ \"*[hn]\" || args.fd == 5", "@: 2\n", true },
	{ "comm == \"sh\" || comm == \"python3\"", "@: 2\n", true },
	{ "tid == " T1 " && cpu == 3", "@: 4\n", true },
	/* the interpreter's only (arithmetic): the same answers */
	{ "args.count - 1 > 100", "@: 5\n", false },	/* 0 - 1 wraps, as in C */
	{ "args.count + 1 < 6", "@: 2\n", false },
};

static void test_filter_agrees(void **state)
{
	static const char recs[] =
		"syscalls:sys_enter_write tid=" T1 " comm=bash fd=1 count=5\n"
		"syscalls:sys_enter_write tid=" T1 " fd=1 count=0x7fffffffffffffff\n"
		"syscalls:sys_enter_write tid=" T1 " fd=2 count=0x8000000000000000\n"
		"syscalls:sys_enter_write tid=" T1 " fd=0xffffffff count=0xffffffffffffffff\n"
		"syscalls:sys_enter_write tid=" T2 " comm=sh fd=5 count=200\n"
		"syscalls:sys_enter_write tid=" T3 " comm=python3 fd=2 count=0 cpu=1\n";
	static const struct run_opts ro = { .where = WHERE_AUTO };

	for (size_t i = 0; i < ARRAY_SIZE(agree); i++) {
		char a[512], b[512];
		struct outcome o;
		struct lang_err err;
		const char *got;

		snprintf(a, sizeof(a), "tracepoint:syscalls:sys_enter_write /%s/ { @ = count(); }",
			 agree[i].pred);
		if (!start(&o, a, &ro, &err))
			fail_msg("'%s': %d:%d: %s", a, err.line, err.col, err.msg);
		/* handed to the filter, or kept */
		if ((interp_engine(o.in)->ev[0].filter_text != NULL) != agree[i].pushed)
			fail_msg("/%s/ is %s the event's filter", agree[i].pred,
				 agree[i].pushed ? "not" : "");
		feed(&o, recs);
		stop(&o);
		if (strcmp(o.text, agree[i].want))
			fail_msg("/%s/ as the filter: '%s', not '%s'", agree[i].pred, o.text,
				 agree[i].want);
		snprintf(b, sizeof(b), "tracepoint:syscalls:sys_enter_write { if (%s) { @ = count(); } }",
			 agree[i].pred);
		got = run(b, recs);
		if (strcmp(got, agree[i].want))
			fail_msg("if (%s) in the interpreter: '%s', not '%s'", agree[i].pred, got,
				 agree[i].want);
	}
}

/* ---- output modes ----------------------------------------------------------------- */

/* bpftrace's functions and its printing of maps at exit. */
static const struct icase bt_funcs[] = {
	{ "print(@m, top)",
	  "tracepoint:syscalls:sys_enter_write { @[comm] = count(); } END { print(@, 2); clear(@); }",
	  WRITES, "@[python3]: 2\n@[bash]: 3\n" },
	{ "print(@m, top, div)",
	  "tracepoint:syscalls:sys_enter_write { @[comm] = sum(args.count); } "
	  "END { print(@, 0, 10); clear(@); }",
	  WRITES, "@[sh]: 0\n@[python3]: 2\n@[bash]: 413\n" },
	{ "plain stores print at exit",
	  "tracepoint:syscalls:sys_enter_write { @last[comm] = args.count; @n = 5; @s = comm; }",
	  WRITES, "@last[sh]: 0\n@last[python3]: 7\n@last[bash]: 4096\n\n@n: 5\n\n@s: python3\n" },
	{ "printf's %gr: GFP flags by the names of kmem:kmalloc's format",
	  "BEGIN { printf(\"%gr|%-12gr|%gr|%gr\\n\", 0x1, 0, 0xdc0, 0x80000000); exit(); }", "",
	  "GFP_DMA|none        |GFP_KERNEL|__GFP_ZERO|0x80000000\n" },
	{ "str(s, len): len counts the NUL, as bpftrace's read",
	  "BEGIN { $a = 1; printf(\"%s|%s|%s|%s|%s|\\n\", str(\"zztest\", 5), "
	  "str(\"zztest\", $a + 4), str(\"ab\", 3), str(\"ab\", 2), str(\"ab\", 0)); exit(); }",
	  "", "zzte|zzte|ab|a||\n" },
	{ "int8() ... uint64()",
	  "BEGIN { printf(\"%d %d %d %u %d\\n\", int8(255), uint8(-1), int16(0x18000), "
	  "uint32(-1), int64(1e6)); exit(); }", "",
	  "-1 255 -32768 4294967295 1000000\n" },
	{ "printf's length modifiers as C's (bpftrace's)",
	  "BEGIN { $x = 0x12345678abcdef; printf(\"%hhx %hx %x %jx %lx %d %u %hhd\\n\", $x, $x, $x, "
	  "$x, $x, 0x1ffffffff, 0x1ffffffff, 255); exit(); }", "",
	  "ef cdef 78abcdef 12345678abcdef 12345678abcdef -1 4294967295 -1\n" },
	{ "division and remainder by zero are 1 (bpftrace's)",
	  "BEGIN { $z = 0; $a = 7; $a /= $z; printf(\"%d %d %d %d\\n\", 10 / $z, 10 % $z, "
	  "(uint64)10 / (uint64)$z, $a); exit(); }", "",
	  "1 1 1 1\n" },
	{ "print() of an empty scalar map prints its zero; stats as bpftrace prints them",
	  "BEGIN { print(@c); print(@s); @s = stats(-10); @s = stats(-5); @s = stats(5); "
	  "@c = count(); print(@s); @k[18446744073709551615] = 1; @k[1] = 2; exit(); }", "",
	  "@c: 0\n@s: { .count = 0, .average = 0, .total = 0 }\n"
	  "@s: { .count = 3, .average = -3, .total = -10 }\n"
	  "@k[18446744073709551615]: 1\n@k[1]: 2\n\n@c: 1\n\n"
	  "@s: { .count = 3, .average = -3, .total = -10 }\n" },
	{ "strcontains, strlen, len, has_key, pton, strerror, signal_name",
	  "BEGIN { @m[1, \"a\"] = 1; @m[2, \"b\"] = 2; "
	  "printf(\"%d %d %d %d %d %d %d %d\\n\", strcontains(\"hello-test\", \"test\"), "
	  "strcontains(\"ab\", \"abc\"), strcontains(\"\", \"\"), strlen(\"hello\"), len(@m), "
	  "has_key(@m, 2, \"b\"), has_key(@m, 2, \"a\"), len(@n)); "
	  "printf(\"%s %s|%s|%s|%s|%s\\n\", ntop(2, pton(\"127.0.0.1\")), ntop(10, pton(\"::1\")), "
	  "strerror(22), signal_name(2), signal_name(0), signal_name(1024)); "
	  "@n[1] = 1; clear(@m); clear(@n); exit(); }", "",
	  "1 0 1 5 2 1 0 0\n127.0.0.1 ::1|Invalid argument|Interrupt|Unknown signal 0|N/A\n" },
	{ "a lone % prints as written, at the very end nothing (the C library's printf)",
	  "BEGIN { printf(\"100%\\n\"); printf(\"%d% |%5\\n\", 7); printf(\"end%\"); "
	  "printf(\"|\\n\"); exit(); }", "", "100%\n7% |%5\nend|\n" },
	{ "UAPI constants without a header; a #define of the program wins",
	  "#define EPERM 99\nBEGIN { printf(\"%d %d %d %d %d %d %d\\n\", EPERM, EINPROGRESS, "
	  "DT_REG, AF_INET, SIGUSR1, O_CREAT, AT_FDCWD); exit(); }", "",
	  "99 115 8 2 10 64 -100\n" },
	{ "ppid(curtask), bpftrace's standard macro, is ppid; ftr's own in BEGIN",
	  "BEGIN { printf(\"%d\\n\", ppid(curtask) == ppid && ppid > 0); exit(); }", "",
	  "1\n" },
	{ "print() of strcontains() and has_key(): bools, true and false",
	  "BEGIN { @m[2] = 1; print(strcontains(\"ab\", \"b\")); print(has_key(@m, 1)); "
	  "clear(@m); exit(); }", "", "true\nfalse\n" },
	{ "nsecs(clock): boot time is no earlier than monotonic, tai later still",
	  "BEGIN { $m = nsecs(monotonic); $b = nsecs(boot); $t = nsecs(tai); "
	  "printf(\"%d %d %d\\n\", $b >= $m, $t > $b, nsecs() >= $m); exit(); }", "",
	  "1 1 1\n" },
	{ "print(@m[key]) prints the entry's value",
	  "BEGIN { @x[1] = 5; @c[2] = count(); @s[\"a\"] = \"str\"; print(@x[1]); print(@c[2]); "
	  "print(@c[3]); print(@s[\"a\"]); clear(@x); clear(@c); clear(@s); exit(); }", "",
	  "5\n1\n0\nstr\n" },
	{ "comm in BEGIN is the process's own name (the test's here)",
	  "BEGIN { printf(\"%s\\n\", comm); exit(); }", "", "test-interp\n" },
	{ "delete(@m, key...) and delete(@) of a map without keys",
	  "BEGIN { @ = count(); @a[1] = count(); @b[1, \"x\"] = 2; @b[2, \"y\"] = 3; delete(@); "
	  "delete(@a, 1); delete(@b, 1, \"x\"); exit(); }", "", "@b[2, y]: 3\n" },
	{ "a ?: statement of printf()s runs one side",
	  "BEGIN { 1 ? printf(\"yes\\n\") : printf(\"no\\n\"); 0 ? printf(\"yes\\n\") : "
	  "printf(\"no\\n\"); exit(); }", "",
	  "yes\nno\n" },
	{ "casts of fields",
	  "tracepoint:syscalls:sys_enter_write /int8(args.count) < 0/ { @[comm] = count(); }",
	  "syscalls:sys_enter_write tid=" T1 " comm=bash count=200\n"
	  "syscalls:sys_enter_write tid=" T1 " count=100\n"
	  "syscalls:sys_enter_write tid=" T1 " count=255\n", "@[bash]: 2\n" },
	{ "ntop",
	  "BEGIN { printf(\"%s %s %s|%s\\n\", ntop(0x0100007f), ntop(2, 0x0101a8c0), ntop(10, 0), "
	  "ntop(0)); exit(); }", "", "127.0.0.1 192.168.1.1 ::|0.0.0.0\n" },
	{ "bswap",
	  "BEGIN { $v = (uint16)0x1234; printf(\"%x %x %x %lx\\n\", bswap($v), bswap(uint32(0x01020304)), "
	  "bswap((int8)0x1ff), bswap(0x0102030405060708)); exit(); }", "",
	  "3412 4030201 ff 807060504030201\n" },
	{ "strncmp",
	  "BEGIN { printf(\"%d %d %d\\n\", strncmp(\"abc\", \"abd\", 2), "
	  "strncmp(\"abc\", \"abd\", 3), strncmp(\"ab\", \"abc\", 9)); exit(); }", "",
	  "0 1 1\n" },
	{ "strftime", "BEGIN { printf(\"%s\\n\", strftime(\"x%%\", nsecs)); exit(); }", "", "x%\n" },
	/* buf() of an array field, printed by %r as bpftrace 0.17 prints it
	 * (checked byte for byte against it): printable ASCII as it is, a
	 * backslash too, any other byte \xNN; the length unsigned, at most
	 * the array (-1 is all of it). */
	{ "buf and %r",
	  "tracepoint:ftrtest:types { printf(\"<%r|%r>\\n\", buf(args.arr, args.s8v), "
	  "buf(args.small)); }",
	  "ftrtest:types tid=" T1 " s8v=8 arr=0x7f5c41000a09ff68 small=~\n"
	  "ftrtest:types tid=" T1 " s8v=3 arr=0x7f5c41000a09ff68 small=ABC\n"
	  "ftrtest:types tid=" T1 " s8v=0 arr=0x7f5c41000a09ff68\n"
	  "ftrtest:types tid=" T1 " s8v=-1 arr=0x7f5c41000a09ff68 small=\"a b\"\n",
	  "<h\\xff\\x09\\x0a\\x00A\\\\x7f|~\\x00\\x00\\x00>\n<h\\xff\\x09|ABC\\x00>\n"
	  "<|\\x00\\x00\\x00\\x00>\n<h\\xff\\x09\\x0a\\x00A\\\\x7f|a b\\x00>\n" },
	/* kept in maps (interned: the bytes, not the event's record), as keys
	 * and values; in a variable; compared */
	{ "buf in maps and variables",
	  "tracepoint:ftrtest:types { @x[args.s8v] = buf(args.arr, 2); @y[buf(args.arr, args.s8v)] "
	  "= count(); $b = buf(args.arr, 3); print(($b == buf(args.arr, 3), $b != buf(args.arr, 2))); "
	  "printf(\"%rx %rh\\n\", $b, $b); }",
	  "ftrtest:types tid=" T1 " s8v=8 arr=0x7f5c41000a09ff68 small=~\n"
	  "ftrtest:types tid=" T1 " s8v=3 arr=0x7f5c41000a09ff68 small=ABC\n"
	  "ftrtest:types tid=" T1 " s8v=0 arr=0x7f5c41000a09ff68\n"
	  "ftrtest:types tid=" T1 " s8v=-1 arr=0x7f5c41000a09ff68 small=\"a b\"\n",
	  "(true, true)\n\\x68\\xff\\x09 68 ff 09\n(true, true)\n\\x68\\xff\\x09 68 ff 09\n"
	  "(true, true)\n\\x68\\xff\\x09 68 ff 09\n(true, true)\n\\x68\\xff\\x09 68 ff 09\n"
	  "@x[-1]: h\\xff\n@x[0]: h\\xff\n@x[3]: h\\xff\n@x[8]: h\\xff\n\n"
	  "@y[h\\xff\\x09]: 1\n@y[]: 1\n@y[h\\xff\\x09\\x0a\\x00A\\\\x7f]: 2\n" },
	/* A string's newline and tab print as they are, as bpftrace prints
	 * them (other control characters are escaped: t-harden). */
	{ "%s and print() of a newline and a tab",
	  "BEGIN { printf(\"<%s>\\n\", \"a\\tb\\nc\"); print(\"d\\te\\n\"); "
	  "@[\"k\\tl\"] = 1; exit(); }",
	  "", "<a\tb\nc>\nd\te\n\n@[k\tl]: 1\n" },
	/* bpftrace 0.17 prints these alike (its -f json: t-bpfjson). */
	{ "print(value)",
	  "BEGIN { $x = 5; print(1); print(\"str\"); print($x); print(-3); print((uint8)255); "
	  "print((uint64)-1); print((int8)-1); print((uint32)-1); print(1 < 2); exit(); }", "",
	  "1\nstr\n5\n-3\n255\n18446744073709551615\n-1\n4294967295\ntrue\n" },
	/* A map's values are unsigned when the value stored first is:
	 * bpftrace types a map by its value. */
	{ "a map of unsigned values",
	  "BEGIN { @u = (uint64)-1; @s = -1; @k[1] = (uint64)1 << 63; @k[2] = (uint64)5; exit(); }",
	  "", "@u: 18446744073709551615\n\n@s: -1\n\n@k[2]: 5\n@k[1]: 9223372036854775808\n" },
	{ "print(value) at an event",
	  "tracepoint:syscalls:sys_enter_write /args.count > 100/ { print(args.count); print(comm); }",
	  WRITES, "4096\nbash\n" },
	{ "zero() keeps the keys",
	  "tracepoint:syscalls:sys_enter_write { @[comm] = count(); @s = sum(args.count); "
	  "@h = hist(args.count); @a = avg(args.count); @st = stats(args.count); "
	  "@mn = min(args.count); @mx = max(args.count); @v = args.count; } "
	  "END { zero(@); zero(@s); zero(@h); zero(@a); zero(@st); zero(@mn); zero(@mx); zero(@v); }",
	  WRITES, "@v: 0\n\n@[bash]: 0\n@[python3]: 0\n@[sh]: 0\n\n@s: 0\n\n@h:\n\n\n@a: 0\n\n"
	  "@st: { .count = 0, .average = 0, .total = 0 }\n\n@mn: 0\n\n@mx: 0\n" },
	{ "zero() then updates",
	  "tracepoint:syscalls:sys_enter_write /args.count < 4096/ { @mn = min(args.count); "
	  "@mx = max(args.count); @c = count(); } tracepoint:syscalls:sys_enter_write "
	  "/args.count == 4096/ { zero(@mn); zero(@mx); zero(@c); }",
	  WRITES, "@mn: 7\n\n@mx: 7\n\n@c: 1\n" },
	{ "cat",
	  "BEGIN { cat(\"/proc/sys/kernel/%s\", \"ostype\"); exit(); }", "", "Linux\n" },
};

/* strftime's %f: the microseconds of the instant on the wall clock, whose
 * offset from nsecs' clock is what it is: two instants 123 us apart. */
static void test_strftime_usecs(void **state)
{
	const char *got = run("BEGIN { printf(\"%s %s\\n\", strftime(\"%%f|%f\", 0), "
			      "strftime(\"%%f|%f\", 123000)); exit(); }", "");
	unsigned a, b;

	(void)state;
	assert_int_equal(sscanf(got, "%%f|%6u %%f|%6u\n", &a, &b), 2);
	assert_int_equal((b + 1000000 - a) % 1000000, 123);
}

static void test_bpftrace_functions(void **state)
{
	static const struct icase cat_cap[] = {
		{ "cat() prints at most BPFTRACE_MAX_CAT_BYTES",
		  "BEGIN { cat(\"/proc/sys/kernel/%s\", \"ostype\"); exit(); }", "", "Li" },
	};

	run_cases(bt_funcs, ARRAY_SIZE(bt_funcs));
	setenv("BPFTRACE_MAX_CAT_BYTES", "2", 1);
	run_cases(cat_cap, ARRAY_SIZE(cat_cap));
	unsetenv("BPFTRACE_MAX_CAT_BYTES");
}

static void test_top_and_json(void **state)
{
	static const char prog[] = "tracepoint:syscalls:sys_enter_write { @[comm] = count(); }";
	const struct run_opts top = { .where = WHERE_AUTO, .top = 2 };
	const struct run_opts json = { .where = WHERE_AUTO, .mode = OUT_JSON };
	const char *got;

	got = run_opts(prog, WRITES, &top);
	assert_string_equal(got, "@[python3]: 2\n@[bash]: 3\n");
	got = run_opts(prog, WRITES, &json);
	assert_string_equal(got, "{\"@\": {\"sh\": 1, \"python3\": 2, \"bash\": 3}}\n");
}

/* --no-hist-summary (a program's output to a pipe): the histogram as
 * bpftrace prints it, without ftr's line; ftr's JSON keeps its figures. */
static void test_no_hist_summary(void **state)
{
	static const char prog[] = "tracepoint:syscalls:sys_enter_write /comm != \"bash\"/ "
				   "{ @[comm] = hist(args.count); }";
	const struct run_opts bare = { .where = WHERE_AUTO, .no_hist_summary = true };
	const struct run_opts json = { .where = WHERE_AUTO, .mode = OUT_JSON,
				       .no_hist_summary = true };

	assert_string_equal(run_opts(prog, WRITES, &bare),
		"@[sh]:\n"
		"[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n"
		"@[python3]:\n"
		"[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[8, 16)                0 |                                                    |\n"
		"[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n");
	assert_non_null(strstr(run_opts(prog, WRITES, &json), "\"p50\": 4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_aggregations),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_printf_wide),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_loops),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_tuples),
		cmocka_unit_test(test_tuple_marks),
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_tseries),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_too_many_maps),
		cmocka_unit_test(test_many_clauses),
		cmocka_unit_test(test_filter_agrees),
		cmocka_unit_test(test_top_and_json),
		cmocka_unit_test(test_no_hist_summary),
		cmocka_unit_test(test_bpftrace_functions),
		cmocka_unit_test(test_strftime_usecs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
