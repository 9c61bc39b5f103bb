// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The latency tracers as this kernel has them: see lattracer.h.
 *
 * Instances: every one of these tracers sets allow_instances in 6.1
 * (trace_osnoise.c, trace_hwlat.c, trace_irqsoff.c, trace_sched_wakeup.c),
 * and so do irqsoff and the wakeup tracers from 4.4 and hwlat from its
 * first release, 4.9 (the 4.x trees in ../shared/kernels): so ftr's own
 * instance always, never the top level.  But each is one user at a time: irqsoff_busy, wakeup_busy, hwlat_busy,
 * and osnoise_tracer_init/timerlat_tracer_init refuse (-EBUSY) while the
 * other of the two runs anywhere.  A refusal is explained by looking for
 * the holder in every instance's current_tracer and in the top level's.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <tracefs.h>

#include "ftr.h"
#include "kernel/formats.h"
#include "kernel/lattracer.h"
#include "kernel/session.h"

const char *const lat_tracers[] = {
	"timerlat", "osnoise", "hwlat", "irqsoff", "preemptoff", "preemptirqsoff",
	"wakeup", "wakeup_rt", "wakeup_dl",
};
const size_t lat_ntracers = ARRAY_SIZE(lat_tracers);

bool lat_tracer_listed(const char *tdir, const char *tracer)
{
	char path[PATH_MAX], *text, *save = NULL, *w;
	bool yes = false;

	snprintf(path, sizeof(path), "%s/available_tracers", tdir);
	text = read_file(path, NULL);
	if (!text)
		return false;
	for (w = strtok_r(text, " \t\n", &save); w && !yes; w = strtok_r(NULL, " \t\n", &save))
		yes = !strcmp(w, tracer);
	free(text);
	return yes;
}

const char *lat_tracer_config(const char *tracer)
{
	if (!strcmp(tracer, "timerlat"))
		return "CONFIG_TIMERLAT_TRACER (5.14)";
	if (!strcmp(tracer, "osnoise"))
		return "CONFIG_OSNOISE_TRACER (5.14)";
	if (!strcmp(tracer, "hwlat"))
		return "CONFIG_HWLAT_TRACER";
	if (!strcmp(tracer, "irqsoff"))
		return "CONFIG_IRQSOFF_TRACER";
	if (!strcmp(tracer, "preemptoff"))
		return "CONFIG_PREEMPT_TRACER";
	if (!strcmp(tracer, "preemptirqsoff"))
		return "CONFIG_IRQSOFF_TRACER and CONFIG_PREEMPT_TRACER";
	return "CONFIG_SCHED_TRACER";
}

/* The tracers that keep `tracer` out: itself, and for each of the groups
 * of one busy flag, the others (irqsoff_busy covers irqsoff, preemptoff and
 * preemptirqsoff; wakeup_busy the three wakeup tracers; timerlat and osnoise
 * exclude each other). */
static bool excludes(const char *held, const char *tracer)
{
	static const char *const groups[][3] = {
		{ "irqsoff", "preemptoff", "preemptirqsoff" },
		{ "wakeup", "wakeup_rt", "wakeup_dl" },
		{ "timerlat", "osnoise", NULL },
		{ "hwlat", NULL, NULL },
	};

	for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
		bool a = false, b = false;

		for (int i = 0; i < 3 && groups[g][i]; i++) {
			a |= !strcmp(held, groups[g][i]);
			b |= !strcmp(tracer, groups[g][i]);
		}
		if (a && b)
			return true;
	}
	return false;
}

static bool holds(const char *dir, const char *tracer, char *held, size_t len)
{
	char path[PATH_MAX], *t;
	bool yes;

	snprintf(path, sizeof(path), "%s/current_tracer", dir);
	t = read_file(path, NULL);
	if (!t)
		return false;
	str_trim(t);
	yes = excludes(t, tracer);
	snprintf(held, len, "%s", t);
	free(t);
	return yes;
}

bool lat_tracer_holder(const char *tdir, const char *tracer, const char *self, char *buf,
		       size_t len)
{
	char held[64], dir[PATH_MAX];
	char **names;
	bool found = false;

	if (holds(tdir, tracer, held, sizeof(held))) {
		snprintf(buf, len, "the top level (%s/current_tracer is %s)", tdir, held);
		return true;
	}
	names = tracefs_instances(NULL);
	for (int i = 0; names && names[i] && !found; i++) {
		int pid;

		if (self && !strcmp(names[i], self))
			continue;
		snprintf(dir, sizeof(dir), "%s/instances/%s", tdir, names[i]);
		if (!holds(dir, tracer, held, sizeof(held)))
			continue;
		found = true;
		pid = ftr_name_pid(names[i]);
		if (pid > 0)
			snprintf(buf, len, "instance %s (%s, an ftr run, pid %d)", names[i], held,
				 pid);
		else
			snprintf(buf, len, "instance %s (its current_tracer is %s)", names[i],
				 held);
	}
	tracefs_list_free(names);
	return found;
}

int lat_formats_load(struct tep_handle *tep, const char *tdir)
{
	static const char *const ftrace[] = { "timerlat", "osnoise", "hwlat", "print",
					      "kernel_stack" };
	static const char *const noise[] = { "nmi_noise", "irq_noise", "softirq_noise",
					     "thread_noise", "sample_threshold" };

	for (size_t i = 0; i < ARRAY_SIZE(ftrace); i++)
		formats_add(tep, tdir, "ftrace", ftrace[i]);	/* absent: not decoded */
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		formats_add(tep, tdir, "osnoise", noise[i]);
	return 0;
}

static uint64_t num(struct tep_event *e, struct tep_record *rec, const char *name)
{
	struct tep_format_field *f = tep_find_field(e, name);
	unsigned long long v = 0;

	if (f)
		tep_read_number_field(f, rec->data, &v);
	return v;
}

/* A string field: dynamic (__string: offset and length in a u32) or an
 * array (char comm[16]). */
static void str(struct tep_event *e, struct tep_record *rec, const char *name, char *buf,
		size_t len)
{
	struct tep_format_field *f = tep_find_field(e, name);
	unsigned off, n;

	buf[0] = '\0';
	if (!f)
		return;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		unsigned long long v = 0;

		tep_read_number_field(f, rec->data, &v);
		off = v & 0xffff;
		n = (v >> 16) & 0xffff;
	} else {
		off = f->offset;
		n = f->size ? (unsigned)f->size : (unsigned)(rec->size - f->offset);
	}
	if (off >= (unsigned)rec->size)
		return;
	if (n > (unsigned)rec->size - off)
		n = rec->size - off;
	if (n >= len)
		n = len - 1;
	memcpy(buf, (char *)rec->data + off, n);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static void stack(struct tep_event *e, struct tep_record *rec, struct lat_event *ev)
{
	struct tep_format_field *fs = tep_find_field(e, "size"), *fc = tep_find_field(e, "caller");
	int size;

	ev->nips = 0;
	if (!fs || !fc || fc->elementsize != sizeof(uint64_t))
		return;
	size = (int)num(e, rec, "size");
	/* The format gives caller[] a nominal length (8); the record holds
	 * size entries (older kernels end it with ULONG_MAX). */
	for (int i = 0; i < size && i < LAT_STACK_MAX &&
			fc->offset + (i + 1) * 8 <= rec->size; i++) {
		uint64_t ip;

		memcpy(&ip, (char *)rec->data + fc->offset + i * 8, 8);
		if (!ip || ip == UINT64_MAX)
			break;
		ev->ips[ev->nips++] = ip;
	}
}

int lat_decode(struct tep_handle *tep, struct tep_record *rec, struct lat_event *ev)
{
	struct tep_event *e = tep_find_event_by_record(tep, rec);
	const char *sys, *name;
	char buf[96];

	if (!e)
		return 0;
	sys = e->system;
	name = e->name;
	memset(ev, 0, offsetof(struct lat_event, ips));
	ev->cpu = rec->cpu;
	ev->ts = rec->ts;
	if (!strcmp(sys, "ftrace")) {
		if (!strcmp(name, "timerlat")) {
			ev->kind = LEV_TIMERLAT;
			ev->seq = (unsigned)num(e, rec, "seqnum");
			ev->context = (int)num(e, rec, "context");
			ev->latency = num(e, rec, "timer_latency");
		} else if (!strcmp(name, "osnoise")) {
			ev->kind = LEV_OSNOISE;
			ev->noise = num(e, rec, "noise");
			ev->runtime = num(e, rec, "runtime");
			ev->max_sample = num(e, rec, "max_sample");
			ev->hw = (unsigned)num(e, rec, "hw_count");
			ev->nmi = (unsigned)num(e, rec, "nmi_count");
			ev->irq = (unsigned)num(e, rec, "irq_count");
			ev->softirq = (unsigned)num(e, rec, "softirq_count");
			ev->thread = (unsigned)num(e, rec, "thread_count");
		} else if (!strcmp(name, "hwlat")) {
			ev->kind = LEV_HWLAT;
			ev->inner = num(e, rec, "duration");
			ev->outer = num(e, rec, "outer_duration");
			ev->nmi_total = num(e, rec, "nmi_total_ts");
			ev->nmi_count = (unsigned)num(e, rec, "nmi_count");
			ev->seq = (unsigned)num(e, rec, "seqnum");
		} else if (!strcmp(name, "print")) {
			/* osnoise_stop_tracing: "stop tracing hit on cpu %d" */
			str(e, rec, "buf", buf, sizeof(buf));
			if (!strstr(buf, "stop tracing hit"))
				return 0;
			ev->kind = LEV_STOP;
		} else if (!strcmp(name, "kernel_stack")) {
			ev->kind = LEV_STACK;
			stack(e, rec, ev);
		} else {
			return 0;
		}
		return 1;
	}
	if (strcmp(sys, "osnoise"))
		return 0;
	ev->start = num(e, rec, "start");
	ev->duration = num(e, rec, "duration");
	if (!strcmp(name, "thread_noise")) {
		ev->kind = LEV_NOISE_THREAD;
		ev->pid = (int)num(e, rec, "pid");
		str(e, rec, "comm", ev->name, sizeof(ev->name));
	} else if (!strcmp(name, "irq_noise")) {
		ev->kind = LEV_NOISE_IRQ;
		ev->vector = (int)num(e, rec, "vector");
		str(e, rec, "desc", ev->name, sizeof(ev->name));
	} else if (!strcmp(name, "softirq_noise")) {
		ev->kind = LEV_NOISE_SOFTIRQ;
		ev->vector = (int)num(e, rec, "vector");
	} else if (!strcmp(name, "nmi_noise")) {
		ev->kind = LEV_NOISE_NMI;
	} else if (!strcmp(name, "sample_threshold")) {
		ev->kind = LEV_THRESHOLD;
	} else {
		return 0;
	}
	return 1;
}
