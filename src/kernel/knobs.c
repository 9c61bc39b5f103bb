// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The global knobs a run changed, on disk for `ftr reset`.
 *
 * The latency tracers are configured through files that are the system's,
 * not the instance's: osnoise/{cpus,period_us,runtime_us,stop_tracing_us,
 * stop_tracing_total_us,timerlat_period_us,print_stack} (one osnoise_data
 * for every instance, trace_osnoise.c), tracing_thresh (trace.c, top level
 * only) and hwlat_detector/{width,window} (trace_hwlat.c).  The undo log
 * restores them on every exit path a process lives through; a SIGKILL
 * leaves them changed, so each original value is noted here first, fsync'd,
 * before the write.  The run's flock on FTR_RUN_DIR/<name>.lock says
 * whether the noting run still lives (session.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/knobs.h"
#include "kernel/session.h"

const char *knobs_dir = FTR_RUN_DIR;

static void knobs_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s.knobs", knobs_dir, name);
}

int knobs_note(const char *name, const char *path, const char *orig)
{
	char file[PATH_MAX];
	int fd, err = 0;
	FILE *f;

	if (strchr(path, '\t') || strchr(path, '\n') || strchr(orig, '\n'))
		return -EINVAL;
	if (mkdir(knobs_dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	knobs_path(file, sizeof(file), name);
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "a");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	fprintf(f, "%s\t%s\n", path, orig);
	if (fflush(f) != 0 || fsync(fd) != 0)
		err = -errno;
	fclose(f);
	return err;
}

void knobs_forget(const char *name)
{
	char file[PATH_MAX];

	knobs_path(file, sizeof(file), name);
	unlink(file);
}

/* Put back one file's knobs, the last noted first (a knob noted twice gets
 * its first, oldest value last). */
static int restore_file(const char *file, bool dry_run, FILE *report)
{
	size_t len, n = 0;
	char *text = read_file(file, &len), *lines[256], *save = NULL, *l;
	int done = 0;

	if (!text)
		return -errno;
	for (l = strtok_r(text, "\n", &save); l && n < ARRAY_SIZE(lines);
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	while (n--) {
		char *tab = strchr(lines[n], '\t');

		if (!tab)
			continue;
		*tab = '\0';
		fprintf(report, "%s %s to '%s' (a killed run's global tracing setting)\n",
			dry_run ? "would restore" : "restored", lines[n], tab + 1);
		int err = dry_run ? 0 : write_file(lines[n], tab + 1);

		if (!err)
			done++;
		else
			ftr_err("cannot restore '%s' to '%s': %s", lines[n], tab + 1,
				strerror(-err));
	}
	free(text);
	return done;
}

int knobs_reset(bool dry_run, FILE *report)
{
	DIR *d = opendir(knobs_dir);
	struct dirent *de;
	int total = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char name[256], file[PATH_MAX];
		size_t n = strlen(de->d_name);
		int r;

		if (n < 7 || n - 6 >= sizeof(name) || strcmp(de->d_name + n - 6, ".knobs"))
			continue;
		memcpy(name, de->d_name, n - 6);
		name[n - 6] = '\0';
		if (ftr_name_is_live(name))
			continue;
		knobs_path(file, sizeof(file), name);
		r = restore_file(file, dry_run, report);
		if (r > 0)
			total += r;
		if (!dry_run && r >= 0)
			unlink(file);
	}
	closedir(d);
	return total;
}
