// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-CPU latency statistics, histograms and the analysis at a stop, from
 * the latency tracers' records (kernel/trace/trace_osnoise.c,
 * trace_hwlat.c).  The layouts are rtla's (tools/tracing/rtla, 6.1): a
 * user of `rtla timerlat top` reads ours the same way.
 *
 * Units: timerlat's timer_latency is in ns (timerlat_irq: now -
 * abs_period); osnoise's sample fields and hwlat's durations are already
 * in µs (time_to_us() in osnoise_main and get_sample); the noise events'
 * start and duration are ns on the trace clock (osnoise's time_get() is
 * trace_clock_local, the records' own clock in an instance left at
 * "local").
 */
#include <stdlib.h>
#include <string.h>

#include "report/latstat.h"
#include "report/sym.h"

/* A CPU's recent noise, for the analysis: enough for the window between a
 * timer IRQ and its thread on a loaded CPU (each IRQ, softirq and switch
 * is one record). */
#define RING 512

struct series {
	uint64_t count, cur, min, max, sum, over;
	uint64_t *bucket;
};

struct noise {
	enum lat_ev_kind kind;
	uint64_t ts, start, duration;
	int pid, vector;
	char name[32];
};

struct cpu {
	bool seen;
	struct series s[2];	/* timerlat: IRQ, thread; osnoise hist: [0] */
	/* osnoise top */
	uint64_t samples, runtime, noise, max_noise, max_single;
	uint64_t hw, nmi, irq, softirq, thread;
	/* hwlat */
	uint64_t hw_samples, max_inner, max_outer;
	/* the analysis: the last samples and the noise around them */
	struct noise ring[RING];
	uint64_t nnoise;
	bool irq_valid, thr_valid;
	uint64_t irq_lat, irq_ts, irq_mark, thr_lat, thr_ts, thr_mark;
	unsigned irq_seq, thr_seq;
	int nips;
	uint64_t ips[LAT_STACK_MAX];
	bool stop_hit;
};

struct lat_stats {
	struct lat_opts o;
	int ncpus;
	struct cpu *cpu;
	int stop_cpu;
	uint64_t first_ts, last_ts;
};

struct lat_stats *lat_stats_new(const struct lat_opts *o, int ncpus)
{
	struct lat_stats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->o = *o;
	if (!st->o.bucket_us)
		st->o.bucket_us = 1;
	if (st->o.entries <= 0)
		st->o.entries = 256;
	st->ncpus = ncpus;
	st->stop_cpu = -1;
	st->cpu = calloc((size_t)ncpus, sizeof(*st->cpu));
	if (!st->cpu) {
		free(st);
		return NULL;
	}
	for (int c = 0; c < ncpus; c++)
		for (int k = 0; k < 2; k++) {
			st->cpu[c].s[k].min = UINT64_MAX;
			st->cpu[c].s[k].bucket = calloc((size_t)st->o.entries, sizeof(uint64_t));
			if (!st->cpu[c].s[k].bucket) {
				lat_stats_free(st);
				return NULL;
			}
		}
	return st;
}

void lat_stats_free(struct lat_stats *st)
{
	if (!st)
		return;
	for (int c = 0; c < st->ncpus && st->cpu; c++)
		for (int k = 0; k < 2; k++)
			free(st->cpu[c].s[k].bucket);
	free(st->cpu);
	free(st);
}

/* One value, in µs for the histogram (ns in the sums). */
static void series_add(const struct lat_stats *st, struct series *s, uint64_t ns)
{
	uint64_t i = ns / 1000 / st->o.bucket_us;

	s->count++;
	s->cur = ns;
	s->sum += ns;
	if (ns < s->min)
		s->min = ns;
	if (ns > s->max)
		s->max = ns;
	if (i < (uint64_t)st->o.entries)
		s->bucket[i]++;
	else
		s->over++;
}

static void note_noise(struct cpu *c, const struct lat_event *ev)
{
	struct noise *n = &c->ring[c->nnoise++ % RING];

	n->kind = ev->kind;
	n->ts = ev->ts;
	n->start = ev->start;
	n->duration = ev->duration;
	n->pid = ev->pid;
	n->vector = ev->vector;
	memcpy(n->name, ev->name, sizeof(n->name));
}

void lat_stats_add(struct lat_stats *st, const struct lat_event *ev)
{
	struct cpu *c;

	if (ev->cpu < 0 || ev->cpu >= st->ncpus)
		return;
	c = &st->cpu[ev->cpu];
	if (!st->first_ts)
		st->first_ts = ev->ts;
	st->last_ts = ev->ts;
	switch (ev->kind) {
	case LEV_TIMERLAT:
		if (ev->context > 1)
			break;	/* user-space return (6.5+ user workloads): not run here */
		c->seen = true;
		series_add(st, &c->s[ev->context], ev->latency);
		if (ev->context == 0) {
			c->irq_valid = true;
			c->thr_valid = false;
			c->irq_lat = ev->latency;
			c->irq_ts = ev->ts;
			c->irq_seq = ev->seq;
			c->irq_mark = c->nnoise;
			c->nips = 0;
		} else {
			c->thr_valid = c->irq_valid && ev->seq == c->irq_seq;
			c->thr_lat = ev->latency;
			c->thr_ts = ev->ts;
			c->thr_seq = ev->seq;
			c->thr_mark = c->nnoise;
		}
		if (st->o.stop_us && ev->latency >= st->o.stop_us * 1000 && st->stop_cpu < 0)
			st->stop_cpu = ev->cpu;
		break;
	case LEV_OSNOISE:
		c->seen = true;
		c->samples++;
		c->runtime += ev->runtime;
		c->noise += ev->noise;
		if (ev->noise > c->max_noise)
			c->max_noise = ev->noise;
		if (ev->max_sample > c->max_single)
			c->max_single = ev->max_sample;
		c->hw += ev->hw;
		c->nmi += ev->nmi;
		c->irq += ev->irq;
		c->softirq += ev->softirq;
		c->thread += ev->thread;
		if (st->o.stop_us && ev->max_sample >= st->o.stop_us && st->stop_cpu < 0)
			st->stop_cpu = ev->cpu;
		break;
	case LEV_THRESHOLD:
		c->seen = true;
		series_add(st, &c->s[0], ev->duration);
		break;
	case LEV_HWLAT:
		c->seen = true;
		c->hw_samples++;
		if (ev->inner > c->max_inner)
			c->max_inner = ev->inner;
		if (ev->outer > c->max_outer)
			c->max_outer = ev->outer;
		break;
	case LEV_NOISE_NMI:
	case LEV_NOISE_IRQ:
	case LEV_NOISE_SOFTIRQ:
	case LEV_NOISE_THREAD:
		note_noise(c, ev);
		break;
	case LEV_STOP:
		c->stop_hit = true;
		st->stop_cpu = ev->cpu;
		break;
	case LEV_STACK:
		/* timerlat_dump_stack writes it right after its sample */
		c->nips = ev->nips;
		memcpy(c->ips, ev->ips, sizeof(uint64_t) * (size_t)ev->nips);
		break;
	}
}

int lat_stats_stopped(const struct lat_stats *st)
{
	return st->stop_cpu;
}

/* ---- output --------------------------------------------------------------- */

static void dur(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000ULL;

	snprintf(buf, len, "%llu %02llu:%02llu:%02llu", (unsigned long long)(s / 86400),
		 (unsigned long long)(s / 3600 % 24), (unsigned long long)(s / 60 % 60),
		 (unsigned long long)(s % 60));
}

static void put_us(FILE *out, const struct series *s, uint64_t v, bool last)
{
	if (!s->count)
		fprintf(out, "        -%s", last ? "" : " ");
	else
		fprintf(out, "%9llu%s", (unsigned long long)(v / 1000), last ? "" : " ");
}

static void timerlat_top(const struct lat_stats *st, FILE *out)
{
	char d[32];

	dur(d, sizeof(d), st->last_ts - st->first_ts);
	fprintf(out, "                                     Timer Latency\n");
	fprintf(out, "%-6s   |          IRQ Timer Latency (us)        |         Thread Timer Latency (us)\n",
		d);
	fprintf(out, "CPU COUNT      |      cur       min       avg       max |      cur       min       avg       max\n");
	for (int i = 0; i < st->ncpus; i++) {
		const struct cpu *c = &st->cpu[i];

		if (!c->seen)
			continue;
		fprintf(out, "%3d #%-9llu |", i, (unsigned long long)c->s[0].count);
		for (int k = 0; k < 2; k++) {
			const struct series *s = &c->s[k];

			put_us(out, s, s->cur, false);
			put_us(out, s, s->min, false);
			put_us(out, s, s->count ? s->sum / s->count : 0, false);
			put_us(out, s, s->max, true);
			fputs(k ? "\n" : " |", out);
		}
	}
}

static void hist_row(const struct lat_stats *st, FILE *out, const char *label, int what)
{
	fprintf(out, "%-6s", label);
	for (int i = 0; i < st->ncpus; i++) {
		const struct cpu *c = &st->cpu[i];
		int nk = st->o.mode == LAT_TIMERLAT_HIST ? 2 : 1;

		if (!c->seen)
			continue;
		for (int k = 0; k < nk; k++) {
			const struct series *s = &c->s[k];

			switch (what) {
			case 0:
				fprintf(out, "%9llu ", (unsigned long long)s->over);
				break;
			case 1:
				fprintf(out, "%9llu ", (unsigned long long)s->count);
				break;
			default:
				put_us(out, s, what == 2 ? s->min : what == 4 ? s->max :
					       s->count ? s->sum / s->count : 0, false);
				break;
			}
		}
	}
	fputc('\n', out);
}

static void hist(const struct lat_stats *st, FILE *out)
{
	bool tl = st->o.mode == LAT_TIMERLAT_HIST;
	int nk = tl ? 2 : 1;
	char d[32];

	dur(d, sizeof(d), st->last_ts - st->first_ts);
	fprintf(out, "# RTLA %s histogram\n", tl ? "timerlat" : "osnoise");
	fprintf(out, "# Time unit is microseconds (us)\n");
	fprintf(out, "# Duration: %s\n", d);
	fputs("Index", out);
	for (int i = 0; i < st->ncpus; i++) {
		if (!st->cpu[i].seen)
			continue;
		if (tl)
			fprintf(out, "   IRQ-%03d   Thr-%03d", i, i);
		else
			fprintf(out, "   CPU-%03d", i);
	}
	fputc('\n', out);
	for (int b = 0; b < st->o.entries; b++) {
		bool any = false;

		for (int i = 0; i < st->ncpus && !any; i++)
			for (int k = 0; k < nk; k++)
				any |= st->cpu[i].seen && st->cpu[i].s[k].bucket[b];
		if (!any)
			continue;	/* rtla prints only buckets with counts (--with-zeros) */
		fprintf(out, "%-6llu", (unsigned long long)(b * st->o.bucket_us));
		for (int i = 0; i < st->ncpus; i++)
			for (int k = 0; k < nk && st->cpu[i].seen; k++)
				fprintf(out, "%9llu ", (unsigned long long)st->cpu[i].s[k].bucket[b]);
		fputc('\n', out);
	}
	hist_row(st, out, "over:", 0);
	hist_row(st, out, "count:", 1);
	hist_row(st, out, "min:", 2);
	hist_row(st, out, "avg:", 3);
	hist_row(st, out, "max:", 4);
}

static void osnoise_top(const struct lat_stats *st, FILE *out)
{
	char d[32];

	dur(d, sizeof(d), st->last_ts - st->first_ts);
	fprintf(out, "                                          Operating System Noise\n");
	fprintf(out, "duration: %9s | time is in us\n", d);
	fprintf(out, "CPU Period       Runtime        Noise  %% CPU Aval   Max Noise   Max Single"
		"          HW          NMI          IRQ      Softirq       Thread\n");
	for (int i = 0; i < st->ncpus; i++) {
		const struct cpu *c = &st->cpu[i];
		unsigned long long pct = 0;

		if (!c->seen)
			continue;
		/* rtla's figure: available share in 1/100000 of a percent */
		if (c->runtime)
			pct = (c->runtime - (c->noise < c->runtime ? c->noise : c->runtime)) *
			      10000000ULL / c->runtime;
		fprintf(out, "%3d #%-6llu %12llu %12llu   %3llu.%05llu%12llu %12llu", i,
			(unsigned long long)c->samples, (unsigned long long)c->runtime,
			(unsigned long long)c->noise, pct / 100000, pct % 100000,
			(unsigned long long)c->max_noise, (unsigned long long)c->max_single);
		fprintf(out, "%12llu %12llu %12llu %12llu %12llu\n", (unsigned long long)c->hw,
			(unsigned long long)c->nmi, (unsigned long long)c->irq,
			(unsigned long long)c->softirq, (unsigned long long)c->thread);
	}
}

static void hwlat(const struct lat_stats *st, FILE *out)
{
	fprintf(out, "CPU  SAMPLES  MAX-INNER(us)  MAX-OUTER(us)\n");
	for (int i = 0; i < st->ncpus; i++) {
		const struct cpu *c = &st->cpu[i];

		if (!c->seen)
			continue;
		fprintf(out, "%3d %8llu %14llu %14llu\n", i, (unsigned long long)c->hw_samples,
			(unsigned long long)c->max_inner, (unsigned long long)c->max_outer);
	}
}

/* ---- the analysis ------------------------------------------------------------ */

#define MAX_ITEMS 16

struct item {
	char what[64];
	uint64_t ns;
};

struct analysis {
	int cpu;
	bool at_irq;		/* the IRQ sample crossed it (no thread sample) */
	uint64_t irq_lat, thr_lat, total;
	uint64_t handler_delay, irq_duration;	/* the timerlat IRQ itself */
	bool have_irq_noise;
	struct item blocking;	/* the thread running when the timer fired */
	bool have_blocking;
	struct item irqs[MAX_ITEMS], softirqs[MAX_ITEMS], threads[MAX_ITEMS], before[MAX_ITEMS];
	int nirqs, nsoftirqs, nthreads, nbefore;
	uint64_t sum_irqs, sum_softirqs, sum_threads, sum_before;
};

static void item_add(struct item *v, int *n, uint64_t *sum, const char *what, uint64_t ns)
{
	*sum += ns;
	for (int i = 0; i < *n; i++)
		if (!strcmp(v[i].what, what)) {
			v[i].ns += ns;
			return;
		}
	if (*n == MAX_ITEMS)
		return;
	snprintf(v[*n].what, sizeof(v[*n].what), "%s", what);
	v[(*n)++].ns = ns;
}

static void noise_label(const struct noise *n, char *buf, size_t len)
{
	if (n->kind == LEV_NOISE_THREAD)
		snprintf(buf, len, "%s:%d", n->name, n->pid);
	else if (n->kind == LEV_NOISE_IRQ)
		snprintf(buf, len, "%s:%d", n->name, n->vector);
	else if (n->kind == LEV_NOISE_SOFTIRQ)
		snprintf(buf, len, "softirq:%d", n->vector);
	else
		snprintf(buf, len, "nmi");
}

/*
 * What delayed the CPU's last sample.  The timer was due at T = the IRQ
 * sample's time - its latency.  Noise recorded before the IRQ sample that
 * ended after T delayed the handler; the IRQ noise that holds the IRQ
 * sample's time is the timerlat IRQ itself (its start - T: the handler
 * delay).  Noise recorded between the IRQ sample and the thread's is what
 * ran before the thread: with timerlat on, osnoise reports a thread's noise
 * only in that window (timerlat_thread_exit), counted from the IRQ; the
 * first thread there that had started before the IRQ was running when the
 * timer fired: the blocking thread.
 */
static bool analyse(const struct lat_stats *st, struct analysis *a)
{
	const struct cpu *c;
	uint64_t due, lo, hi;
	char label[64];

	memset(a, 0, sizeof(*a));
	a->cpu = st->stop_cpu;
	if (a->cpu < 0)
		return false;
	c = &st->cpu[a->cpu];
	if (!c->irq_valid)
		return false;
	a->irq_lat = c->irq_lat;
	a->at_irq = !c->thr_valid || (st->o.stop_us && c->irq_lat >= st->o.stop_us * 1000);
	a->thr_lat = c->thr_valid ? c->thr_lat : 0;
	a->total = a->at_irq ? a->irq_lat : a->thr_lat;
	due = c->irq_ts > c->irq_lat ? c->irq_ts - c->irq_lat : 0;
	lo = c->nnoise > RING ? c->nnoise - RING : 0;
	hi = c->thr_valid ? c->thr_mark : c->nnoise;
	for (uint64_t i = lo; i < hi; i++) {
		const struct noise *n = &c->ring[i % RING];
		uint64_t end = n->start + n->duration;

		noise_label(n, label, sizeof(label));
		if (i < c->irq_mark) {
			if (n->kind == LEV_NOISE_IRQ && n->start <= c->irq_ts && end >= c->irq_ts &&
			    !a->have_irq_noise) {
				/* the timerlat IRQ: reported when it returns,
				 * but stamped with its start */
				a->have_irq_noise = true;
				a->irq_duration = n->duration;
				a->handler_delay = n->start > due ? n->start - due : 0;
			} else if (end > due && n->start < c->irq_ts && n->kind != LEV_NOISE_THREAD) {
				uint64_t from = n->start > due ? n->start : due;

				item_add(a->before, &a->nbefore, &a->sum_before, label, end - from);
			}
			continue;
		}
		if (n->kind == LEV_NOISE_IRQ && !a->have_irq_noise && n->start <= c->irq_ts) {
			a->have_irq_noise = true;
			a->irq_duration = n->duration;
			a->handler_delay = n->start > due ? n->start - due : 0;
			continue;
		}
		if (a->at_irq)
			continue;
		switch (n->kind) {
		case LEV_NOISE_THREAD:
			if (!a->have_blocking && n->start < c->irq_ts) {
				a->have_blocking = true;
				snprintf(a->blocking.what, sizeof(a->blocking.what), "%s", label);
				a->blocking.ns = n->duration;
			} else {
				item_add(a->threads, &a->nthreads, &a->sum_threads, label,
					 n->duration);
			}
			break;
		case LEV_NOISE_IRQ:
		case LEV_NOISE_NMI:
			item_add(a->irqs, &a->nirqs, &a->sum_irqs, label, n->duration);
			break;
		case LEV_NOISE_SOFTIRQ:
			item_add(a->softirqs, &a->nsoftirqs, &a->sum_softirqs, label, n->duration);
			break;
		default:
			break;
		}
	}
	return true;
}

static void line(FILE *out, const char *what, uint64_t ns, uint64_t total, bool pct)
{
	fprintf(out, "  %-30s %12.2f us", what, ns / 1000.0);
	if (pct && total)
		fprintf(out, " (%.2f %%)", ns * 100.0 / total);
	fputc('\n', out);
}

static void items(FILE *out, const char *title, const struct item *v, int n, uint64_t sum,
		  uint64_t total)
{
	if (!n)
		return;
	line(out, title, sum, total, true);
	for (int i = 0; i < n; i++)
		fprintf(out, "  %30s %12.2f us\n", v[i].what, v[i].ns / 1000.0);
}

static void stack_print(FILE *out, const struct cpu *c, const struct ksyms *ks, const char *title)
{
	char sym[256];

	if (!c->nips)
		return;
	fprintf(out, "  %s\n", title);
	for (int i = 0; i < c->nips; i++) {
		if (!ks || ksyms_format(ks, c->ips[i], true, sym, sizeof(sym)) < 0)
			snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)c->ips[i]);
		fprintf(out, "                -> %s\n", sym);
	}
}

void lat_analysis_print(const struct lat_stats *st, FILE *out, const struct ksyms *ks)
{
	struct analysis a;

	if (st->o.mode != LAT_TIMERLAT_TOP && st->o.mode != LAT_TIMERLAT_HIST) {
		if (st->stop_cpu >= 0)
			fprintf(out, "## CPU %d hit stop tracing (%llu us or more)\n", st->stop_cpu,
				(unsigned long long)st->o.stop_us);
		return;
	}
	if (!analyse(st, &a))
		return;
	fprintf(out, "## CPU %d hit stop tracing, analyzing it ##\n", a.cpu);
	if (a.have_irq_noise) {
		line(out, "IRQ handler delay:", a.handler_delay, a.total, true);
		if (a.nbefore)
			items(out, "IRQ interference (before the handler):", a.before, a.nbefore,
			      a.sum_before, a.total);
	}
	line(out, "IRQ latency:", a.irq_lat, a.total, false);
	if (a.have_irq_noise)
		line(out, "Timerlat IRQ duration:", a.irq_duration, a.total, true);
	if (a.at_irq) {
		stack_print(out, &st->cpu[a.cpu], ks, "IRQ stack trace (where the CPU was)");
		fprintf(out, "--------------------------------------------------------------------\n");
		line(out, "IRQ latency:", a.irq_lat, a.total, true);
		return;
	}
	if (a.have_blocking) {
		line(out, "Blocking thread:", a.blocking.ns, a.total, true);
		fprintf(out, "  %30s %12.2f us\n", a.blocking.what, a.blocking.ns / 1000.0);
	}
	stack_print(out, &st->cpu[a.cpu], ks, "Blocking thread stack trace");
	items(out, "IRQ interference", a.irqs, a.nirqs, a.sum_irqs, a.total);
	items(out, "Softirq interference", a.softirqs, a.nsoftirqs, a.sum_softirqs, a.total);
	items(out, "Thread interference", a.threads, a.nthreads, a.sum_threads, a.total);
	fprintf(out, "--------------------------------------------------------------------\n");
	line(out, "Thread latency:", a.thr_lat, a.total, true);
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_series(FILE *out, const struct lat_stats *st, const struct series *s, bool hist)
{
	fprintf(out, "{\"count\": %llu", (unsigned long long)s->count);
	if (s->count)
		fprintf(out, ", \"cur_ns\": %llu, \"min_ns\": %llu, \"avg_ns\": %llu, \"max_ns\": %llu",
			(unsigned long long)s->cur, (unsigned long long)s->min,
			(unsigned long long)(s->sum / s->count), (unsigned long long)s->max);
	if (hist) {
		bool first = true;

		fprintf(out, ", \"over\": %llu, \"buckets\": {", (unsigned long long)s->over);
		for (int b = 0; b < st->o.entries; b++) {
			if (!s->bucket[b])
				continue;
			fprintf(out, "%s\"%llu\": %llu", first ? "" : ", ",
				(unsigned long long)(b * st->o.bucket_us),
				(unsigned long long)s->bucket[b]);
			first = false;
		}
		fputc('}', out);
	}
	fputc('}', out);
}

static void json_items(FILE *out, const char *key, const struct item *v, int n)
{
	fprintf(out, ", \"%s\": [", key);
	for (int i = 0; i < n; i++)
		fprintf(out, "%s{\"what\": \"%s\", \"ns\": %llu}", i ? ", " : "", v[i].what,
			(unsigned long long)v[i].ns);
	fputc(']', out);
}

static void json_analysis(const struct lat_stats *st, FILE *out)
{
	struct analysis a;

	if (!analyse(st, &a)) {
		fprintf(out, "null");
		return;
	}
	fprintf(out, "{\"cpu\": %d, \"at\": \"%s\", \"irq_latency_ns\": %llu", a.cpu,
		a.at_irq ? "irq" : "thread", (unsigned long long)a.irq_lat);
	if (!a.at_irq)
		fprintf(out, ", \"thread_latency_ns\": %llu", (unsigned long long)a.thr_lat);
	if (a.have_irq_noise)
		fprintf(out, ", \"irq_handler_delay_ns\": %llu, \"timerlat_irq_duration_ns\": %llu",
			(unsigned long long)a.handler_delay, (unsigned long long)a.irq_duration);
	if (a.have_blocking)
		fprintf(out, ", \"blocking_thread\": {\"what\": \"%s\", \"ns\": %llu}",
			a.blocking.what, (unsigned long long)a.blocking.ns);
	json_items(out, "irq_before_handler", a.before, a.nbefore);
	json_items(out, "irq_interference", a.irqs, a.nirqs);
	json_items(out, "softirq_interference", a.softirqs, a.nsoftirqs);
	json_items(out, "thread_interference", a.threads, a.nthreads);
	fprintf(out, ", \"stack\": [");
	for (int i = 0; i < st->cpu[a.cpu].nips; i++)
		fprintf(out, "%s\"0x%llx\"", i ? ", " : "",
			(unsigned long long)st->cpu[a.cpu].ips[i]);
	fprintf(out, "]}");
}

static void json(const struct lat_stats *st, FILE *out)
{
	static const char *const modes[] = { "timerlat top", "timerlat hist", "osnoise top",
					     "osnoise hist", "hwlat" };
	bool first = true;

	fprintf(out, "{\"tracer\": \"%s\", \"duration_ns\": %llu, \"cpus\": [", modes[st->o.mode],
		(unsigned long long)(st->last_ts - st->first_ts));
	for (int i = 0; i < st->ncpus; i++) {
		const struct cpu *c = &st->cpu[i];
		bool h = st->o.mode == LAT_TIMERLAT_HIST || st->o.mode == LAT_OSNOISE_HIST;

		if (!c->seen)
			continue;
		fprintf(out, "%s{\"cpu\": %d", first ? "" : ", ", i);
		first = false;
		switch (st->o.mode) {
		case LAT_TIMERLAT_TOP:
		case LAT_TIMERLAT_HIST:
			fprintf(out, ", \"irq\": ");
			json_series(out, st, &c->s[0], h);
			fprintf(out, ", \"thread\": ");
			json_series(out, st, &c->s[1], h);
			break;
		case LAT_OSNOISE_HIST:
			fprintf(out, ", \"noise\": ");
			json_series(out, st, &c->s[0], true);
			break;
		case LAT_OSNOISE_TOP:
			fprintf(out, ", \"samples\": %llu, \"runtime_us\": %llu, \"noise_us\": %llu, "
				"\"max_noise_us\": %llu, \"max_single_us\": %llu, \"hw\": %llu, "
				"\"nmi\": %llu, \"irq\": %llu, \"softirq\": %llu, \"thread\": %llu",
				(unsigned long long)c->samples, (unsigned long long)c->runtime,
				(unsigned long long)c->noise, (unsigned long long)c->max_noise,
				(unsigned long long)c->max_single, (unsigned long long)c->hw,
				(unsigned long long)c->nmi, (unsigned long long)c->irq,
				(unsigned long long)c->softirq, (unsigned long long)c->thread);
			break;
		case LAT_HWLAT:
			fprintf(out, ", \"samples\": %llu, \"max_inner_us\": %llu, "
				"\"max_outer_us\": %llu", (unsigned long long)c->hw_samples,
				(unsigned long long)c->max_inner, (unsigned long long)c->max_outer);
			break;
		}
		fputc('}', out);
	}
	fprintf(out, "], \"stop_cpu\": %d", st->stop_cpu);
	if (st->o.aa && (st->o.mode == LAT_TIMERLAT_TOP || st->o.mode == LAT_TIMERLAT_HIST)) {
		fprintf(out, ", \"analysis\": ");
		json_analysis(st, out);
	}
	fprintf(out, "}\n");
}

void lat_stats_print(const struct lat_stats *st, FILE *out, const struct ksyms *ks)
{
	if (st->o.json) {
		json(st, out);
		return;
	}
	switch (st->o.mode) {
	case LAT_TIMERLAT_TOP:
		timerlat_top(st, out);
		break;
	case LAT_TIMERLAT_HIST:
	case LAT_OSNOISE_HIST:
		hist(st, out);
		break;
	case LAT_OSNOISE_TOP:
		osnoise_top(st, out);
		break;
	case LAT_HWLAT:
		hwlat(st, out);
		break;
	}
	if (st->stop_cpu >= 0 && st->o.aa) {
		fputc('\n', out);
		lat_analysis_print(st, out, ks);
	}
}
