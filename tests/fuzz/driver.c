// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A libFuzzer stand-in for machines (and `make check`) without it: runs
 * LLVMFuzzerTestOneInput on every seed, then on a bounded, deterministic
 * campaign of inputs mutated from them (a fixed PRNG seed, so that a crash
 * found once is found again).  There is no coverage feedback; as a cheap
 * substitute, mutants the parser accepts join the pool, so that mutation
 * reaches past the first syntax error.  Meant to be built with
 * -fsanitize=address,undefined: the sanitizers find the bugs, the driver
 * feeds them and saves the input that crashed.
 *
 *	driver [-n RUNS] [-t SECONDS] [-s SEED] [-o CRASH_DIR] [-m MAXLEN] PATH...
 *
 * Every target (fuzz-NAME.c) sets fuzz_last_ok when an input was accepted:
 * such mutants join the pool.  MAXLEN (default 4096, libFuzzer's) bounds a
 * seed and a mutant: ELF files need more.
 * PATH is a seed file or a directory of them (its files in name order).
 * With -n 0 only the seeds run: a reproducer for a saved crash.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define HAVE_DEATH_CALLBACK 1
#endif
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern int fuzz_last_ok;	/* the target's: was the last input accepted? */

#define MAX_POOL 4096

static size_t max_len = 4096;	/* -m; libFuzzer's default -max_len */

struct input {
	uint8_t *d;
	size_t n;
};

static struct input pool[MAX_POOL];
static size_t npool, nseeds;
static uint64_t rng;

/* The input being run, for the death callback. */
static const uint8_t *cur;
static size_t curlen;
static unsigned long curiter;
static const char *crash_dir = ".";
static pid_t main_pid;

/* Tokens of the language, inserted whole: random bytes alone rarely
 * spell "interval:ms:" or close a comment. */
static const char *const dict[] = {
	"{", "}", "(", ")", "[", "]", "/", ",", ";", ":", ".", "->", "?", "=", "+=", "-=",
	"*=", "/=", "++", "--", "||", "&&", "|", "^", "&", "==", "!=", "<", "<=", ">", ">=",
	"<<", ">>", "+", "-", "*", "%", "!", "~", "\"", "\\", "\\n", "\\\"", "\\q", "/*",
	"*/", "//", "\n", " ", "\t", "@", "@m", "@m[", "$", "$x", "args", "args.", "args->",
	"arg0", "arg99", "arg123", "if", "else", "else if", "if (", "BEGIN", "END",
	"tracepoint:", "t:", "kprobe:", "k:", "kretprobe:", "kr:", "uprobe:", "u:",
	"uretprobe:", "ur:", "interval:", "i:", "interval:s:1", "interval:ms:",
	"interval:us:", "interval:m:1", "profile:hz:99", "p:hz:", "profile:s:0",
	"syscalls:sys_enter_write", "sched:sched_*", "pid", "tid", "comm", "cpu", "nsecs",
	"elapsed", "uid", "retval", "func", "probe", "kstack", "ustack", "count()",
	"sum(", "hist(", "lhist(", "avg(", "min(", "max(", "stats(", "str(", "printf(",
	"print(", "clear(", "delete(", "exit()", "0", "1", "0x", "0xffffffffffffffff",
	"18446744073709551616", "-9223372036854775808", "077", "08", "1e3",
	/* today's bpftrace: declarations, loops, tuples, the preamble */
	"begin", "end", "let ", "let $x: uint8 = ", "let @m = hash(", "lruhash(2);", "..",
	"for ($i : ", "for ($kv : @m)", "while (", "unroll (", "break", "continue", "return",
	"config = {", "print_maps_on_exit", "true", "false", "(bool)", "(1, ", ",)", ".0",
	"enum E { A, B }", "(enum E)",
};

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

static size_t below(size_t n)
{
	return n ? rnd() % n : 0;
}

#ifdef HAVE_DEATH_CALLBACK
/* Runs when a sanitizer has found something, before the process dies. */
static void save_crash(void)
{
	char path[4096];
	FILE *f;

	/* A target's child that dies on purpose (tdat.c parses formats in
	 * one) is not a crash of the target's. */
	if (!cur || getpid() != main_pid)
		return;
	snprintf(path, sizeof(path), "%s/crash-%lu", crash_dir, curiter);
	f = fopen(path, "wb");
	if (f) {
		fwrite(cur, 1, curlen, f);
		fclose(f);
		fprintf(stderr, "fuzz: the input is saved in %s (rerun: driver -n 0 %s)\n", path,
			path);
	}
}
#endif

static void run(const uint8_t *d, size_t n, unsigned long iter)
{
	cur = d;
	curlen = n;
	curiter = iter;
	LLVMFuzzerTestOneInput(d, n);
	cur = NULL;
}

static int add(struct input *in, const uint8_t *d, size_t n)
{
	in->d = malloc(n ? n : 1);
	if (!in->d)
		return -ENOMEM;
	memcpy(in->d, d, n);
	in->n = n;
	return 0;
}

static int load_file(const char *path)
{
	uint8_t *buf = malloc(max_len);
	FILE *f = fopen(path, "rb");
	size_t n;
	int ret = 0;

	if (!f || !buf) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return -1;
	}
	n = fread(buf, 1, max_len, f);
	fclose(f);
	if (npool == MAX_POOL || add(&pool[npool], buf, n) < 0)
		ret = -1;
	else
		npool++;
	free(buf);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int load(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int ret = 0;
	DIR *dir;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return load_file(path);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		char **v;

		if (de->d_name[0] == '.')
			continue;
		v = realloc(names, (n + 1) * sizeof(*v));
		if (!v)
			break;
		names = v;
		if (asprintf(&names[n], "%s/%s", path, de->d_name) < 0)
			break;
		n++;
	}
	closedir(dir);
	qsort(names, n, sizeof(*names), by_name);	/* readdir's order is the disk's */
	for (size_t i = 0; i < n; i++) {
		if (!ret && load_file(names[i]) < 0)
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

/* One mutation of b (length *n, capacity max_len). */
static void mutate(uint8_t *b, size_t *n)
{
	static const char special[] = "{}()[]/\\\"*@$,;:.?-+<>=!&|^~%# \n\t0123456789xab_";
	size_t pos = below(*n + 1), len;

	switch (below(10)) {
	case 0:		/* flip a bit */
		if (*n)
			b[below(*n)] ^= 1u << below(8);
		break;
	case 1:		/* a byte becomes a character that means something */
		if (*n)
			b[below(*n)] = special[below(sizeof(special) - 1)];
		break;
	case 2:		/* any byte, NUL and 8-bit included */
		if (*n < max_len) {
			memmove(b + pos + 1, b + pos, *n - pos);
			b[pos] = (uint8_t)rnd();
			(*n)++;
		}
		break;
	case 3:
	case 4: {	/* insert a token */
		const char *t = dict[below(sizeof(dict) / sizeof(dict[0]))];

		len = strlen(t);
		if (*n + len <= max_len) {
			memmove(b + pos + len, b + pos, *n - pos);
			memcpy(b + pos, t, len);
			*n += len;
		}
		break;
	}
	case 5:		/* delete a range */
		if (pos < *n) {
			len = 1 + below(*n - pos < 16 ? *n - pos : 16);
			memmove(b + pos, b + pos + len, *n - pos - len);
			*n -= len;
		}
		break;
	case 6: {	/* copy a range of itself elsewhere: nesting, repetition */
		size_t from = below(*n), to;

		if (!*n)
			break;
		len = 1 + below(*n - from < 64 ? *n - from : 64);
		if (*n + len > max_len)
			break;
		to = below(*n + 1);
		memmove(b + to + len, b + to, *n - to);
		memmove(b + to, b + (from >= to ? from + len : from), len);
		*n += len;
		break;
	}
	case 7: {	/* splice: this input's head, another's tail */
		const struct input *o = &pool[below(npool)];
		size_t at = below(o->n + 1);

		len = o->n - at;
		if (pos + len > max_len)
			len = max_len - pos;
		memcpy(b + pos, o->d + at, len);
		*n = pos + len;
		break;
	}
	case 8:		/* truncate */
		*n = pos;
		break;
	default: {	/* repeat one character many times: deep nesting */
		uint8_t c = *n ? b[below(*n)] : '(';

		len = 1 + below(512);
		if (*n + len > max_len)
			len = max_len - *n;
		memmove(b + pos + len, b + pos, *n - pos);
		memset(b + pos, c, len);
		*n += len;
		break;
	}
	}
}

/* "driver-expr" → "expr" */
static const char *target_name(const char *argv0)
{
	const char *b = strrchr(argv0, '/'), *d;

	b = b ? b + 1 : argv0;
	d = strchr(b, '-');
	return d ? d + 1 : b;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long runs = 20000, done = 0;
	double limit = 0, t0 = now();
	uint64_t seed = 1;
	uint8_t *buf;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (i + 1 == argc || strlen(argv[i]) != 2 || !strchr("ntsom", argv[i][1])) {
			fprintf(stderr, "usage: %s [-n RUNS] [-t SECONDS] [-s SEED] "
				"[-o CRASH_DIR] [-m MAXLEN] PATH...\n", argv[0]);
			return 2;
		}
		switch (argv[i][1]) {
		case 'n': runs = strtoul(argv[++i], NULL, 0); break;
		case 't': limit = strtod(argv[++i], NULL); break;
		case 's': seed = strtoull(argv[++i], NULL, 0); break;
		case 'o': crash_dir = argv[++i]; break;
		case 'm': max_len = strtoul(argv[++i], NULL, 0); break;
		}
	}
	if (i == argc || max_len < 16) {
		fprintf(stderr, "%s: no seed given\n", argv[0]);
		return 2;
	}
	buf = malloc(max_len);
	if (!buf)
		return 1;
	for (; i < argc; i++)
		if (load(argv[i]) < 0)
			return 1;
	if (!npool) {
		fprintf(stderr, "%s: no seed given\n", argv[0]);
		return 2;
	}
	nseeds = npool;
#ifdef HAVE_DEATH_CALLBACK
	main_pid = getpid();
	__sanitizer_set_death_callback(save_crash);
#endif
	rng = seed ? seed : 1;
	for (size_t k = 0; k < nseeds; k++)
		run(pool[k].d, pool[k].n, 0);
	for (done = 0; done < runs; done++) {
		const struct input *from = &pool[below(npool)];
		size_t n = from->n, m = 1 + below(4);

		if (limit > 0 && !(done & 255) && now() - t0 > limit)
			break;
		memcpy(buf, from->d, n);
		while (m--)
			mutate(buf, &n);
		run(buf, n, done + 1);
		/* Keep mutants that parse: they lead deeper than the seeds.  A
		 * full pool replaces one of its mutants now and then. */
		if (!fuzz_last_ok) {
			continue;
		} else if (npool < MAX_POOL) {
			if (add(&pool[npool], buf, n) == 0)
				npool++;
		} else if (!below(4)) {
			struct input *old = &pool[nseeds + below(MAX_POOL - nseeds)];

			free(old->d);
			if (add(old, buf, n) < 0) {
				fprintf(stderr, "fuzz: out of memory\n");
				return 1;
			}
		}
	}
	printf("fuzz: %s: %zu seeds and %lu mutants (seed %llu, pool %zu) in %.1f s: no crash%s\n",
	       target_name(argv[0]), nseeds, done, (unsigned long long)seed, npool, now() - t0,
	       done < runs ? " (stopped at the time limit)" : "");
	for (size_t k = 0; k < npool; k++)
		free(pool[k].d);
	free(buf);
	return 0;
}
