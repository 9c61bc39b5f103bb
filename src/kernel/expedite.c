// SPDX-License-Identifier: GPL-2.0-only
/*
 * Expedited RCU grace periods while a run removes many triggers.
 *
 * Removing a trigger costs the kernel a tracepoint synchronisation
 * (trigger_data_free -> tracepoint_synchronize_unregister: an SRCU, an RCU
 * and an RCU-tasks-trace grace period), two for a trigger with a filter.
 * With the hundreds of hist triggers of a syscall recipe's kernel plan that
 * is most of its exit: measured in the 6.1 guest (TCG, 2 vCPUs), 100
 * triggers removed in 3.6 s, 0.95 s with /sys/kernel/rcu_expedited set;
 * `ftr run syscount --where kernel -d 1` 33.5 s, 3.8 s.  The knob makes
 * synchronize_rcu() and synchronize_srcu() expedited (an IPI to each CPU
 * instead of waiting for quiescent states): a few hundred of them in the
 * second a teardown lasts.
 *
 * The knob is the system's, so ftr sets it only for the teardown, only
 * from 0 to 1, and puts back what it found.  Runs may overlap: the state
 * file FTR_RUN_DIR/rcu_expedited holds the value found first and the names
 * of the runs that hold it, under an flock; the last one out restores it.
 * A run killed while holding it is seen dead (its run lock is free) by the
 * next holder or by `ftr reset`, which restore the value.  rcu_normal=1
 * (real-time setups) overrides expediting: then ftr leaves both alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/expedite.h"
#include "kernel/session.h"

#define KNOB "/sys/kernel/rcu_expedited"
#define RCU_NORMAL "/sys/kernel/rcu_normal"
#define STATE FTR_RUN_DIR "/rcu_expedited"
#define MAX_HOLDERS 64
#define NAME_LEN 96

const char *expedite_knob_path = KNOB;
const char *expedite_state_path = STATE;

struct state {
	int orig;			/* value found before the first holder */
	int n;
	char names[MAX_HOLDERS][NAME_LEN];
};

/* 0 or 1 from a sysfs int file; -errno if unreadable. */
static int read_flag(const char *path)
{
	char buf[16] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	return atoi(buf) != 0;
}

static int write_flag(const char *path, int v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, v ? "1\n" : "0\n", 2) != 2)
		err = -errno;
	close(fd);
	return err;
}

/* The state file: "ORIG\nNAME\nNAME...\n".  false when there is none. */
static bool state_load(int fd, struct state *st)
{
	char buf[MAX_HOLDERS * NAME_LEN + 16], *save = NULL, *l;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return false;
	buf[n] = '\0';
	l = strtok_r(buf, "\n", &save);
	if (!l)
		return false;
	st->orig = atoi(l) != 0;
	while ((l = strtok_r(NULL, "\n", &save)) && st->n < MAX_HOLDERS)
		snprintf(st->names[st->n++], NAME_LEN, "%s", l);
	return true;
}

static int state_store(int fd, const struct state *st)
{
	char buf[MAX_HOLDERS * NAME_LEN + 16];
	int len = snprintf(buf, sizeof(buf), "%d\n", st->orig);

	for (int i = 0; i < st->n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s\n", st->names[i]);
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, len, 0) != len)
		return -errno;
	return 0;
}

/* Drop the holders that are not live runs, and `name` when given. */
static void prune(struct state *st, const char *name)
{
	int k = 0;

	for (int i = 0; i < st->n; i++) {
		if ((name && !strcmp(st->names[i], name)) || !ftr_name_is_live(st->names[i]))
			continue;
		if (k != i)
			memcpy(st->names[k], st->names[i], NAME_LEN);
		k++;
	}
	st->n = k;
}

static int state_open(void)
{
	int fd;

	if (mkdir(FTR_RUN_DIR, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = open(expedite_state_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Nobody holds it any more: put back what was found, forget the state. */
static void release_if_free(int fd, struct state *st, bool had)
{
	if (st->n) {
		state_store(fd, st);
		return;
	}
	if (had && !st->orig)
		write_flag(expedite_knob_path, 0);
	unlink(expedite_state_path);
}

bool expedite_in_effect(void)
{
	int cur = read_flag(expedite_knob_path);

	if (read_flag(RCU_NORMAL) == 1 || cur < 0)
		return false;
	return cur == 1 || access(expedite_knob_path, W_OK) == 0;
}

int expedite_begin(const char *name)
{
	struct state st;
	bool had;
	int fd, cur;

	if (read_flag(RCU_NORMAL) == 1)
		return 0;
	cur = read_flag(expedite_knob_path);
	if (cur < 0)
		return 0;	/* no such knob (!CONFIG_SYSFS, old kernel): nothing to gain */
	fd = state_open();
	if (fd < 0)
		return fd;
	had = state_load(fd, &st);
	prune(&st, name);
	/* Without a state file the knob's value is the system's; with one
	 * (live holders, or a killed run's), it is the value found first. */
	if (!had)
		st.orig = cur;
	if (st.orig) {
		/* The administrator keeps it on: nothing to do, nothing to undo. */
		release_if_free(fd, &st, false);
		close(fd);
		return 0;
	}
	if (st.n == MAX_HOLDERS) {
		close(fd);
		return 0;
	}
	snprintf(st.names[st.n++], NAME_LEN, "%s", name);
	if (state_store(fd, &st) < 0 || write_flag(expedite_knob_path, 1) < 0) {
		st.n--;
		release_if_free(fd, &st, true);
		close(fd);
		return 0;
	}
	close(fd);
	return 1;
}

void expedite_end(const char *name)
{
	struct state st;
	bool had;
	int fd = state_open();

	if (fd < 0)
		return;
	had = state_load(fd, &st);
	prune(&st, name);
	release_if_free(fd, &st, had);
	close(fd);
}

int expedite_reset(bool dry_run, FILE *report)
{
	struct state st;
	bool had, restored;
	int fd;

	if (access(expedite_state_path, F_OK) != 0)
		return 0;
	if (dry_run) {
		fprintf(report, "would check %s (a run's expedited RCU grace periods)\n",
			expedite_state_path);
		return 0;
	}
	fd = state_open();
	if (fd < 0)
		return 0;
	had = state_load(fd, &st);
	prune(&st, NULL);
	restored = !st.n && had && !st.orig;
	if (restored)
		fprintf(report, "restored %s to 0 (a killed run's expedited RCU)\n",
			expedite_knob_path);
	release_if_free(fd, &st, had);
	close(fd);
	return restored;
}
