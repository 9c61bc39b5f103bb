// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ftr record: the events of `ftr trace`, filtered in the kernel, written
 * undecoded to a trace-cmd data file (kernel/record.c) that trace-cmd,
 * KernelShark and `ftr report` / `ftr run -i` read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "cmd/cmd.h"
#include "lang/load.h"
#include "cmd/trace.h"
#include "ftr.h"
#include "kernel/engine.h"
#include "kernel/record.h"
#include "kernel/session.h"
#include "kernel/stream.h"
#include "lang/interp.h"
#include "lang/lang.h"
#include "report/tdat.h"

static const char record_usage[] =
	"usage: ftr record [options] EVENT [-f FILTER] [EVENT [-f FILTER] ...] [-- CMD [ARGS]]\n"
	"       ftr record [options] -e 'PROGRAM' | FILE.bt [-- CMD [ARGS]]\n"
	"       ftr record --finish FILE\n\n"
	"Record events to a trace-cmd data file (version 6): the ring buffers' pages as\n"
	"the kernel wrote them, with the formats, kallsyms and comms to read them\n"
	"anywhere: 'ftr report FILE', 'ftr run -i FILE PROGRAM', 'trace-cmd report FILE'.\n\n"
	"EVENT is as in 'ftr trace': SYSTEM:EVENT (globs), kprobe:FUNC [NAME=FETCH ...],\n"
	"uprobe:PATH:SYMBOL, and eprobe:SYSTEM:EVENT NAME=FETCH... (kernel fetch syntax).\n"
	"A PROGRAM (or FILE.bt): the events its probes need, kprobes and uprobes made\n"
	"with their fields, for 'ftr run -i FILE PROGRAM' to answer as the live run.\n\n"
	"  -o, --output FILE      the file (default: trace.dat); pages go to FILE.cpuN\n"
	"                         until the end, then into FILE\n"
	"  -f, --filter EXPR      a filter, run in the kernel (record refuses one the\n"
	"                         kernel cannot take: filter when reading instead)\n"
	"      --kernel-filter RAW  the kernel's own filter syntax, unchecked\n"
	"  -k, --kstack           a kernel stack after each event (for kstack)\n"
	"  -p, --pid PID          only this process and its threads\n"
	"  -C, --cpus LIST        only these CPUs\n"
	"  -d, --duration TIME    stop after TIME\n"
	"  -b, --buffer-size KB   per-CPU ring buffer size\n"
	"      --max-size SIZE    stop when the file reaches SIZE (10M, 1G)\n"
	"      --fail-on-lost     exit 1 when the kernel lost events\n"
	"      --finish FILE      complete FILE after its recorder was killed\n"
	"  -E, --explain          print the tracefs writes, and exit\n"
	"  -h, --help             this help\n";

struct rec_ctx {
	struct recfile *rf;
	uint64_t pages, events;
	int err;		/* of the file */
	bool full;		/* --max-size reached */
	char offset[32];	/* the OFFSET option's text, "" for none */
};

static int on_page(struct engine *e, int cpu, const void *page, size_t len, int nrec, void *arg)
{
	struct rec_ctx *c = arg;
	int r = recfile_page(c->rf, cpu, page, len);

	if (r == 1) {
		c->full = true;
		return 1;
	}
	if (r < 0) {
		c->err = r;
		return 1;
	}
	c->pages++;
	c->events += (uint64_t)nrec;
	return 0;
}

static int finish_cmd(const char *path)
{
	char err[512];
	uint64_t pages;

	if (recfile_complete(path, &pages, err, sizeof(err)) < 0) {
		ftr_err("%s", err);
		return FTR_EXIT_FAIL;
	}
	fprintf(stderr, "ftr: '%s' finished: %llu pages\n", path, (unsigned long long)pages);
	return FTR_EXIT_OK;
}

/* The options trace-cmd reads: the clock (its timestamps' unit), the
 * machine, and each CPU's buffer statistics (trace-cmd report --stat). */
static int file_options(struct engine *e, const struct rec_ctx *c, struct rec_opt *opts,
			char **texts, int max)
{
	struct tracefs_instance *inst = session_instance(e->s);
	struct utsname u;
	int n = 0;

	texts[n] = tracefs_instance_file_read(inst, "trace_clock", NULL);
	if (texts[n]) {
		opts[n].id = TDAT_OPT_TRACECLOCK;
		opts[n].text = texts[n];
		n++;
	}
	if (uname(&u) == 0 && asprintf(&texts[n], "%s %s %s %s", u.sysname, u.release,
				       u.version, u.machine) > 0) {
		opts[n].id = TDAT_OPT_UNAME;
		opts[n].text = texts[n];
		n++;
	}
	if (c->offset[0]) {
		opts[n].id = TDAT_OPT_OFFSET;
		opts[n].text = c->offset;
		n++;
	}
	for (int i = 0; i < stream_ncpus(e->st) && n < max; i++) {
		char file[64];

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", stream_cpu(e->st, i, NULL));
		texts[n] = tracefs_instance_file_read(inst, file, NULL);
		if (texts[n]) {
			opts[n].id = TDAT_OPT_CPUSTAT;
			opts[n].text = texts[n];
			n++;
		}
	}
	return n;
}

/*
 * The buffer's clock is the instance's default, local (sched_clock), not
 * mono, the language's nsecs: in a KVM guest (kvm-clock) mono costs the
 * traced task some 90 ns more per event, 5-10% of a write(2) here (both
 * clocks read the paravirtual clock; mono adds the timekeeper's sequence
 * and an indirect call).  Readers get mono back from the OFFSET option,
 * mono minus local at the start, which trace-cmd's library adds to every
 * timestamp: nsecs read from the file are CLOCK_MONOTONIC to a few
 * microseconds (plus the two clocks' drift over the recording, NTP's
 * slew, a few ppm), and differences between events exact.
 */
static void clock_offset(struct engine *e, char *text, size_t len)
{
	char *clock = tracefs_instance_file_read(session_instance(e->s), "trace_clock", NULL);
	static const char *const no_offset[] = { "[mono]", "[counter]", "[uptime]", "[x86-tsc]" };
	bool want = clock != NULL;
	uint64_t gap;
	int64_t off;

	text[0] = '\0';
	for (size_t i = 0; want && i < ARRAY_SIZE(no_offset); i++)
		want = !strstr(clock, no_offset[i]);
	if (want && stream_clock_offset(e->st, &off, &gap) == 0) {
		snprintf(text, len, "%lld", (long long)off);
		ftr_info("trace clock to CLOCK_MONOTONIC: %+lld ns (read within %llu ns)",
			 (long long)off, (unsigned long long)gap);
	}
	free(clock);
}

/* What the events of e (prepared) write to the file: the command line's or a
 * program's. */
struct rec_job {
	struct trace_cli *a;
	const char *path;
};

static int record_events(struct engine *e, void *arg)
{
	struct rec_job *j = arg;
	struct trace_cli *a = j->a;
	struct rec_ctx c = { 0 };
	char err[512], **sys = NULL, **name = NULL;
	const char *path = j->path;
	int ret = FTR_EXIT_FAIL, n = 0;

	if (e->o.explain)
		return FTR_EXIT_OK;
	sys = calloc(e->nev, sizeof(*sys));
	name = calloc(e->nev, sizeof(*name));
	if (!sys || !name)
		goto out;
	for (int i = 0; i < e->nev; i++) {
		/* Nothing is decoded here: a filter must be the kernel's.  A
		 * program's predicates are applied again when it reads the
		 * file: what the kernel cannot filter is recorded whole. */
		if (e->ev[i].user_filter && !a->program && !a->program_file) {
			ftr_err("the filter of '%s:%s' cannot run in the kernel, and ftr record "
				"keeps what the kernel filters: record without it and filter when "
				"reading ('ftr report FILE -f ...')", e->ev[i].sys, e->ev[i].name);
			goto out;
		}
		if (e->ev[i].trigger_only)
			continue;
		sys[n] = e->ev[i].sys;
		name[n++] = e->ev[i].name;
	}
	if (recfile_create(&c.rf, path, session_tracefs(e->s)->path, sys, name, n,
			   (int)sysconf(_SC_NPROCESSORS_CONF), stream_subbuf_size(e->st), a->max_size,
			   err, sizeof(err)) < 0) {
		ftr_err("%s", err);
		goto out;
	}
	clock_offset(e, c.offset, sizeof(c.offset));
	e->page_hook = on_page;
	e->page_arg = &c;
	if (engine_run(e, NULL, NULL, NULL, 0, &c) < 0) {
		recfile_finish(c.rf, NULL, 0, err, sizeof(err));
		goto out;
	}
	{
		struct rec_opt opts[66];
		char *texts[66] = { 0 };
		int nopt = file_options(e, &c, opts, texts, 66);
		uint64_t size = recfile_size(c.rf);
		struct stat st;

		ret = recfile_finish(c.rf, opts, nopt, err, sizeof(err));
		for (int i = 0; i < nopt; i++)
			free(texts[i]);
		if (ret < 0) {
			ftr_err("%s", err);
			ret = FTR_EXIT_FAIL;
			goto out;
		}
		if (c.err)
			ftr_err("writing '%s' stopped: %s; the file holds what was written up to "
				"the last whole page", path, strerror(-c.err));
		else if (c.full)
			ftr_warn("--max-size reached: recording stopped at %llu bytes",
				 (unsigned long long)size);
		if (stat(path, &st) == 0)
			size = (uint64_t)st.st_size;
		fprintf(stderr, "ftr: %llu events in %llu pages of %zu KB written to '%s' "
			"(%llu bytes)\n", (unsigned long long)c.events,
			(unsigned long long)c.pages, stream_subbuf_size(e->st) / 1024, path,
			(unsigned long long)size);
	}
	engine_summary(e, false);
	ret = c.err ? FTR_EXIT_FAIL : FTR_EXIT_OK;
	if (a->fail_on_lost && engine_lost(e, NULL))
		ret = FTR_EXIT_FAIL;
out:
	free(sys);
	free(name);
	return ret;
}

/* ftr record -e 'PROGRAM' / FILE.bt: the events its probes need, as 'ftr run
 * --where user' would read them, so that 'ftr run -i FILE PROGRAM' answers
 * as the live run. */
static int record_program(struct trace_cli *a, struct rec_job *j)
{
	struct run_opts o = { .mode = OUT_TEXT, .eng = a->o };
	struct program prog;
	char *owned = NULL;
	int ret = FTR_EXIT_FAIL;

	if (lang_load(a->program_file, a->program, NULL, 0, &prog, &owned) == 0) {
		o.src = owned;
		ret = lang_record(&prog, &o, record_events, j);
		lang_free(&prog);
	}
	free(owned);
	return ret;
}

/* ftr record EVENTS: the events of the command line. */
static int record_selection(struct trace_cli *a, struct rec_job *j)
{
	struct engine e = { 0 };
	int ret = FTR_EXIT_FAIL;

	if (trace_engine_start(&e, a) == 0)
		ret = record_events(&e, j);
	engine_close(&e);
	return ret;
}

int cmd_record(int argc, char **argv)
{
	struct trace_cli a = { .cmd = "record", .usage = record_usage };
	struct rec_job j = { .a = &a };
	int ret = trace_parse_opts(&a, argc, argv);

	if (ret < 0 && a.finish) {
		ret = a.nsel ? cmd_usage_error("record", "--finish FILE goes alone") :
			       finish_cmd(a.finish);
	} else if (ret < 0) {
		j.path = a.output ? a.output : "trace.dat";
		ret = a.program || a.program_file ? record_program(&a, &j) :
						    record_selection(&a, &j);
	}
	trace_cli_free(&a);
	return ret;
}
