// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The maps as metrics while a program runs: --serve ADDR:PORT answers GET
 * /metrics, --prom-file FILE is rewritten atomically every interval; the
 * maps are read as at print (prom.h renders them), each with its HELP line
 * from the statement that stores it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <tracefs.h>

#include "ftr.h"
#include "lang/interp-int.h"
#include "report/serve.h"
/* ---- the maps as metrics: --serve, --prom-file ------------------------------- */

/* The first store into map slot in a statement list, or NULL. */
static const struct node *map_store(const struct node *st, int slot)
{
	for (; st; st = st->next) {
		const struct node *f;

		if (st->k == S_ASSIGN && st->a->k == N_MAP && st->a->slot == slot)
			return st;
		if (lang_is_block_stmt(st->k) &&
		    ((f = map_store(st->b, slot)) || (f = map_store(st->c, slot))))
			return f;
	}
	return NULL;
}

/* # HELP: the probes of the clause that stores into the map, and the
 * program's line of that store. */
static char *map_help(struct interp *in, int slot, const struct node **store)
{
	const char *src = in->o->src ? in->o->src : "";
	char *h = NULL, probes[512] = "";
	size_t pl = 0;
	int line = 1;

	*store = NULL;
	for (int i = 0; i < in->p->ncl && !*store; i++) {
		*store = map_store(in->p->cl[i].body, slot);
		for (int j = 0; *store && j < in->p->cl[i].nprobes && pl < sizeof(probes); j++)
			pl += snprintf(probes + pl, sizeof(probes) - pl, "%s%s", j ? ", " : "",
				       in->p->cl[i].probes[j].text);
	}
	if (!*store)
		return strdup(in->maps[slot].name);
	while (*src && line < (*store)->line)
		if (*src++ == '\n')
			line++;
	src += strspn(src, " \t");
	if (asprintf(&h, "%s at %s; line %d: %.*s", in->maps[slot].name, probes,
		     (*store)->line, (int)(strcspn(src, "\n") < 300 ? strcspn(src, "\n") : 300),
		     src) < 0)
		return NULL;
	return h;
}


int metrics_open(struct interp *in)
{
	static const char *const types[SERVE_VARIANTS] = { PROM_TEXT_TYPE, PROM_OM_TYPE };
	char err[256];

	if (!in->o->serve && !in->o->prom_file)
		return 0;
	for (int i = 0; i < in->nmaps; i++) {
		struct mapdef *m = &in->maps[i];
		struct prom_map *pm = &in->pmaps[i];
		const struct node *st;
		bool interned = false;

		/* strings and stacks kept as values are no numbers; a buffer's
		 * or a tuple's key is a number only ftr's printer reads back */
		for (int k = 0; k < m->nkeys; k++)
			interned |= m->key_enum[k] == KEY_BUF_ID || m->key_enum[k] == KEY_TUPLE_ID;
		if (!m->m || m->vt > VT_INT || interned)
			continue;
		in->phelp[i] = map_help(in, i, &st);
		if (!in->phelp[i])
			return -ENOMEM;
		pm->m = m->m;
		pm->help = in->phelp[i];
		pm->sym = in->prof ? lprof_frame : NULL;
		pm->sym_arg = in->prof;
		for (int k = 0; st && k < st->a->nargs && k < AGG_MAX_KEYS; k++) {
			const struct node *kn = st->a->args[k];

			if (kn->k == N_CALL && kn->nargs == 1)
				kn = kn->args[0];	/* ksym(args.x), hex(args.x) ... */
			if ((kn->k == N_BUILTIN || kn->k == N_FIELD) && kn->sval) {
				snprintf(in->plabels[i][k], sizeof(in->plabels[i][k]), "%s", kn->sval);
				pm->labels[k] = in->plabels[i][k];
			}
		}
	}
	if (prom_check_names(in->pmaps, in->nmaps, err, sizeof(err)) < 0) {
		ftr_err("%s: %s", in->o->serve ? "--serve" : "--prom-file", err);
		return -EINVAL;
	}
	in->prom = prom_alloc(in->pmaps, in->nmaps);
	in->pob = malloc(sizeof(*in->pob));
	if (!in->prom || !in->pob)
		return -ENOMEM;
	if (serve_available() && in->o->serve) {
		if (serve_start(in->o->serve, types, &in->srv, err, sizeof(err)) < 0) {
			ftr_err("--serve: %s", err);
			return -EIO;
		}
		fprintf(stderr, "ftr: metrics at http://%s/metrics\n", serve_where(in->srv));
	}
	/* The first file now: a path that cannot be written fails the run
	 * before it starts. */
	if (in->o->prom_file && metrics_write_file(in) < 0)
		return -EIO;
	return 0;
}

/* The maps the kernel or perf counters keep, read back. */
static int metrics_render(struct interp *in, int fd, enum prom_fmt fmt)
{
	for (int i = 0; i < in->nmaps; i++) {
		if (!in->pmaps[i].m)
			continue;
		if (in->maps[i].k && hist_read(in, &in->maps[i]) < 0)
			return -EIO;
		if (in->maps[i].pc && pc_read(in, &in->maps[i]) < 0)
			return -EIO;
	}
	ob_init(in->pob, fd);
	if (prom_render(in->prom, fmt, in->pob) < 0)
		return in->pob->err ? in->pob->err : -ENOMEM;
	return ob_flush(in->pob);
}

/* FILE.PID.tmp, then rename: node_exporter's textfile collector reads
 * *.prom files, and never sees one half written. */
int metrics_write_file(struct interp *in)
{
	char *tmp = NULL;
	int fd, err;

	if (asprintf(&tmp, "%s.%d.tmp", in->o->prom_file, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = fd < 0 ? -errno : metrics_render(in, fd, PROM_TEXT);
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, in->o->prom_file) < 0)
		err = -errno;
	if (err && fd >= 0)
		unlink(tmp);
	if (err && !in->prom_warned) {
		ftr_err("--prom-file: cannot write '%s': %s", err == -EIO || fd < 0 ? tmp :
			in->o->prom_file, strerror(-err));
		in->prom_warned = true;		/* once: the run goes on */
	}
	free(tmp);
	return err;
}

void metrics_tick(struct interp *in, uint64_t now)
{
	unsigned want;

	if (!in->prom)
		return;
	want = serve_available() && in->srv ? serve_wanted(in->srv) : 0;
	for (int v = 0; v < SERVE_VARIANTS; v++) {
		int fd;
		off_t len;

		if (!(want & (1u << v)))
			continue;
		fd = memfd_create("ftr-metrics", MFD_CLOEXEC);
		if (fd < 0 || metrics_render(in, fd, v ? PROM_OPENMETRICS : PROM_TEXT) < 0 ||
		    (len = lseek(fd, 0, SEEK_CUR)) < 0) {
			if (fd >= 0)
				close(fd);
			continue;	/* the request times out with the last one */
		}
		serve_publish(in->srv, v, fd, (size_t)len);
	}
	if (in->o->prom_file) {
		uint64_t every = in->o->prom_interval_ns ? in->o->prom_interval_ns :
				 PROM_FILE_INTERVAL;

		if (!in->prom_next)
			in->prom_next = now + every;
		if (now >= in->prom_next) {
			metrics_write_file(in);
			in->prom_next += every;
			if (in->prom_next <= now)
				in->prom_next = now + every;
		}
	}
}

void metrics_close(struct interp *in)
{
	if (in->prom && prom_dropped(in->prom))
		fprintf(stderr, "ftr: %llu counts not carried across clear() in the metrics: "
			"their maps were full\n", prom_dropped(in->prom));
	serve_stop(in->srv);
	in->srv = NULL;
	prom_free(in->prom);
	in->prom = NULL;
	for (int i = 0; i < in->nmaps; i++)
		free(in->phelp[i]);
	free(in->pob);
}
