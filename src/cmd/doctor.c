// SPDX-License-Identifier: GPL-2.0-or-later
/* ftr doctor: what this kernel lets ftr do, and what ftr does instead. */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "kernel/features.h"
#include "ftr.h"
#include "kernel/lattracer.h"
#include "kernel/session.h"

static const char doctor_usage[] =
	"usage: ftr doctor [--json]\n\n"
	"Probe this kernel's tracing features and say, for each one missing, what ftr\n"
	"does instead.\n\n"
	"  -j, --json   one JSON object instead of the table\n"
	"  -h, --help   this help\n";

static const char *tracefs_how(const struct features *f)
{
	switch (f->tfs.how) {
	case TRACEFS_FOUND:
		return "already mounted";
	case TRACEFS_MOUNTED:
		return "was not mounted: mounted by ftr";
	default:
		return "absent";
	}
}

/* A read-only tracefs (mount -o ro, a read-only bind mount in a
 * container): nothing can be traced, whatever the features say. */
static bool tracefs_ro(const struct features *f)
{
	struct statvfs v;

	return f->tfs.how != TRACEFS_ABSENT && statvfs(f->tfs.path, &v) == 0 &&
	       (v.f_flag & ST_RDONLY);
}

/* Word-wrap text at width, every line indented by indent columns. */
static void print_wrapped(const char *lead, const char *text, int indent, int width)
{
	int col = printf("%*s%s", indent, "", lead);
	const char *p = text;

	while (*p) {
		const char *sp = strchr(p, ' ');
		int n = sp ? (int)(sp - p) : (int)strlen(p);

		if (col + n + 1 > width && col > indent + (int)strlen(lead))
			col = printf("\n%*s", indent + (int)strlen(lead), "") - 1;
		col += printf("%s%.*s", col > indent + (int)strlen(lead) ? " " : "", n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
	putchar('\n');
}

/* First, as it is why ftr exists: whether BPF tools could run here at all. */
static void print_bpf(const struct features *f)
{
	switch (f->bpf) {
	case BPF_ABSENT:
		printf("bpf         none: this kernel has no bpf() system call (built without\n"
		       "            CONFIG_BPF_SYSCALL): bpftrace and bcc cannot run here.  ftr does\n"
		       "            without it: tracepoints, kprobe/uprobe events, filters and hist\n"
		       "            triggers through tracefs, counters and samples through\n"
		       "            perf_event_open, the rest in user space (list below).\n");
		break;
	case BPF_BLOCKED:
		printf("bpf         blocked: bpf() says ENOSYS but the kernel has it (a seccomp\n"
		       "            filter?): bpftrace and bcc cannot run in this context; ftr\n"
		       "            needs no bpf() and traces through tracefs and perf_event_open.\n");
		break;
	default:
		printf("bpf         yes (ftr does not use it)\n");
		break;
	}
	const char *env = getenv("FTR_VMLINUX_BTF");

	if (env && *env && access(env, R_OK) == 0)
		printf("btf         %s (FTR_VMLINUX_BTF)%s\n", env,
		       f->btf ? "" : "; the kernel has none of its own");
	else if (f->btf)
		printf("btf         /sys/kernel/btf/vmlinux\n");
	else
		printf("btf         none: kfunc probes and kernel struct types need --btf FILE\n"
		       "            or FTR_VMLINUX_BTF=FILE (pahole -J --btf_encode_detached=FILE\n"
		       "            on this kernel's vmlinux with debug info, e.g. the distribution's\n"
		       "            debug vmlinux; kernels before 5.2 have no BTF of their own)\n");
}

/* Then what an older kernel lacks that ftr's plans lean on, in one place:
 * hist triggers (4.7), $argN (4.20), dynamic_events (4.20), error_log
 * (5.4).  Each is listed below too; here it is said what ftr does. */
static void print_gaps(const struct features *f)
{
	unsigned major = 0, minor = 0;

	if (!f->f[F_TRACEPOINTS].yes)
		return;
	sscanf(f->kernel, "%u.%u", &major, &minor);
	if (!f->f[F_HIST].yes)
		printf("hist        none (%s): count(), sum() and hist()\n"
		       "            aggregate in user space from the raw ring buffer, the same\n"
		       "            answer; plain counts use perf tracepoint counters\n",
		       major * 1000 + minor < 4007 ? "hist triggers arrived in 4.7" :
		       "CONFIG_HIST_TRIGGERS is off");
	if (f->f[F_KPROBE].yes && !(f->probe_syntax & PS_ARGN))
		printf("kprobes     arguments by register: no $argN before 4.20, so argN is the\n"
		       "            calling convention's register (ftr -E shows the fetch args)\n");
	if (!f->f[F_ERROR_LOG].yes)
		printf("error_log   none (5.4): a refused probe or filter is explained by ftr from\n"
		       "            what this kernel's version lacks, not by the kernel\n");
}

/* The latency tracers (ftr latency): which are here, and which another
 * user holds now (each is one user at a time, kernel/lattracer.c). */
static void print_latency(const struct features *f, bool json)
{
	char who[256];
	bool any = false;

	if (f->tfs.how == TRACEFS_ABSENT || f->tracing_locked)
		return;
	if (json) {
		printf(",\"latency_tracers\":{");
		for (size_t i = 0; i < lat_ntracers; i++) {
			bool yes = lat_tracer_listed(f->tfs.path, lat_tracers[i]);

			printf("%s\"%s\":{\"present\":%s", i ? "," : "", lat_tracers[i],
			       yes ? "true" : "false");
			if (yes && lat_tracer_holder(f->tfs.path, lat_tracers[i], NULL, who,
						     sizeof(who))) {
				printf(",\"held_by\":");
				json_str(stdout, who);
			}
			printf("}");
		}
		printf("}");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool first = true;

		for (size_t i = 0; i < lat_ntracers; i++) {
			if (lat_tracer_listed(f->tfs.path, lat_tracers[i]) != !pass)
				continue;
			printf("%s%s", first ? (pass ? "\n            absent: " :
					       "latency     present: ") : " ", lat_tracers[i]);
			first = false;
			any |= !pass;
		}
		if (first && !pass)
			printf("latency     present: none");
	}
	printf("%s\n", any ? "\n            (ftr latency; osnoise and timerlat load the CPUs they "
	       "measure)" : "");
	/* one line per holder: the first tracer of each busy group names it */
	for (size_t i = 0; i < lat_ntracers; i++) {
		char prev[256] = "";

		if (!lat_tracer_listed(f->tfs.path, lat_tracers[i]) ||
		    !lat_tracer_holder(f->tfs.path, lat_tracers[i], NULL, who, sizeof(who)))
			continue;
		for (size_t j = 0; j < i && !prev[0]; j++)
			if (lat_tracer_listed(f->tfs.path, lat_tracers[j]) &&
			    lat_tracer_holder(f->tfs.path, lat_tracers[j], NULL, prev,
					      sizeof(prev)) && strcmp(prev, who))
				prev[0] = '\0';
		if (!prev[0])
			printf("            busy: %s and the tracers it excludes, held by %s\n",
			       lat_tracers[i], who);
	}
	if (any && !f->root)
		printf("            not permitted: ftr latency needs root\n");
}

static void print_text(const struct features *f)
{
	printf("kernel      %s %s\n", f->kernel, f->arch);
	print_bpf(f);
	if (!f->tracing_locked)
		print_gaps(f);
	if (f->tfs.how != TRACEFS_ABSENT)
		printf("tracefs     %s (%s%s)\n", f->tfs.path, tracefs_how(f),
		       tracefs_ro(f) ? "; read-only: ftr cannot trace until it is remounted "
		       "read-write" : "");
	else
		printf("tracefs     none: %s\n", f->tfs.why);
	printf("lockdown    %s%s\n", f->lockdown,
	       f->tracing_locked ? " (tracefs is empty: kernel lockdown forbids tracing)" :
	       f->tracefs_closed && f->lockdown_inferred ?
	       " (cannot tell: securityfs and tracefs are closed to this user)" :
	       f->lockdown_inferred ? " (securityfs not mounted; tracefs is readable)" : "");
	printf("user        %s\n", f->root ? "root" : "not root: tracing needs root");
	/* A kernel bug any tracer meets (docs/kernel-safety.md): a mkdir of an
	 * instance killed by SIGKILL while its ring buffer is allocated makes
	 * trace_rb_cpu_prepare WARN (6.1 and 6.12 seen), which this setting
	 * turns into a panic. */
	if (f->panic_on_warn > 0)
		printf("warnings    panic (kernel.panic_on_warn=%d): a tracer killed by SIGKILL while\n"
		       "            it creates its instance can make the kernel WARN (6.1, 6.12 do),\n"
		       "            and so panic: stop ftr with Ctrl-C, SIGTERM or -d, not kill -9\n",
		       f->panic_on_warn);
	putchar('\n');
	if (f->tracing_locked) {
		printf("Kernel lockdown (confidentiality) forbids tracing: tracefs, kprobes and\n"
		       "tracepoints are closed to every tool.  ftr cannot trace on this boot; a kernel\n"
		       "booted with lockdown=integrity or without lockdown can.\n\n");
	}
	for (int i = 0; i < F_NR; i++) {
		const struct feature *ft = &f->f[i];

		printf("%-4s %-24s %s\n", ft->yes ? "yes" : "no", feature_info[i].label, ft->detail);
		if (!ft->yes && !f->tracing_locked)
			print_wrapped("instead: ", features_instead(f, i), 30, 96);
	}
	putchar('\n');
	print_latency(f, false);
}

static void print_json(const struct features *f)
{
	char mods[256];

	printf("{\"kernel\":");
	json_str(stdout, f->kernel);
	printf(",\"arch\":");
	json_str(stdout, f->arch);
	printf(",\"bpf\":\"%s\",\"btf\":%s", f->bpf == BPF_ABSENT ? "absent" :
	       f->bpf == BPF_BLOCKED ? "blocked" : "present", f->btf ? "true" : "false");
	printf(",\"tracefs\":{\"path\":");
	json_str(stdout, f->tfs.how != TRACEFS_ABSENT ? f->tfs.path : "");
	printf(",\"how\":\"%s\"", f->tfs.how == TRACEFS_FOUND ? "found" :
	       f->tfs.how == TRACEFS_MOUNTED ? "mounted" : "absent");
	printf(",\"read_only\":%s", tracefs_ro(f) ? "true" : "false");
	if (f->tfs.how == TRACEFS_ABSENT) {
		printf(",\"why\":");
		json_str(stdout, f->tfs.why);
	}
	printf("},\"lockdown\":");
	json_str(stdout, f->lockdown);
	printf(",\"tracing_locked\":%s,\"root\":%s", f->tracing_locked ? "true" : "false",
	       f->root ? "true" : "false");
	if (f->paranoid != INT_MIN)
		printf(",\"perf_event_paranoid\":%d", f->paranoid);
	if (f->panic_on_warn >= 0)
		printf(",\"panic_on_warn\":%d", f->panic_on_warn);
	printf(",\"kptr_restrict\":%d", f->kptr_restrict);
	features_hist_mods_str(f->hist_mods, mods, sizeof(mods));
	printf(",\"hist_modifiers\":");
	json_str(stdout, mods);
	printf(",\"hist_common_stacktrace\":%s",
	       f->hist_mods & HM_COMMON_STACKTRACE ? "true" : "false");
	printf(",\"features\":{");
	for (int i = 0; i < F_NR; i++) {
		printf("%s\"%s\":{\"available\":%s,\"detail\":", i ? "," : "", feature_info[i].key,
		       f->f[i].yes ? "true" : "false");
		json_str(stdout, f->f[i].detail);
		if (!f->f[i].yes) {
			printf(",\"instead\":");
			json_str(stdout, features_instead(f, i));
		}
		printf("}");
	}
	printf("}");
	print_latency(f, true);
	printf("}\n");
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct session *s = NULL;
	struct features f;
	bool json = false;
	int c, err;

	while ((c = cmd_getopt("doctor", argc, argv, "jh", longopts)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(doctor_usage, stdout);
			return FTR_EXIT_OK;
		default:
			return FTR_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cmd_usage_error("doctor", "unexpected argument '%s'", argv[optind]);

	/*
	 * The session is only for the eprobe check; without one (not root, no
	 * tracefs) doctor still reports what it can see.
	 */
	if (session_open(&s, 0) < 0)
		s = NULL;
	err = features_probe(&f, s);
	session_close(s);
	if (json)
		print_json(&f);
	else
		print_text(&f);
	/* 1 when this kernel cannot trace at all: scripts can test for it. */
	return err ? FTR_EXIT_FAIL : FTR_EXIT_OK;
}
