// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session: tracefs location and mounting, the private instance, the undo
 * log, signals, and `ftr reset`.  See session.h for the contract.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "ftr.h"
#include "kernel/expedite.h"
#include "kernel/knobs.h"
#include "kernel/session.h"

/* ---- locating tracefs ------------------------------------------------------ */

/* /proc/mounts escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int mounts_find_tracefs(const char *mounts, char *out, size_t outlen)
{
	char first[PATH_MAX] = "";
	const char *line = mounts;

	while (line && *line) {
		char dev[256], dir[PATH_MAX], type[64];
		const char *nl = strchr(line, '\n');

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
		    strcmp(type, "tracefs") == 0) {
			unescape_octal(dir);
			if (strcmp(dir, TRACEFS_DEFAULT_PATH) == 0) {
				snprintf(out, outlen, "%s", dir);
				return 0;
			}
			if (!first[0])
				snprintf(first, sizeof(first), "%s", dir);
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!first[0])
		return -ENOENT;
	snprintf(out, outlen, "%s", first);
	return 0;
}

static bool kernel_has_fs(const char *fs)
{
	char *text = read_file("/proc/filesystems", NULL);
	bool found = false;

	if (!text)
		return true;	/* cannot tell: let mount(2) answer */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *t = strrchr(line, '\t');

		if (t && strcmp(t + 1, fs) == 0)
			found = true;
	}
	free(text);
	return found;
}

int tracefs_locate(struct ftr_tracefs *t, bool may_mount)
{
	char *mounts = read_file("/proc/mounts", NULL);
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (mounts && mounts_find_tracefs(mounts, t->path, sizeof(t->path)) == 0) {
		free(mounts);
		t->how = TRACEFS_FOUND;
		goto found;
	}
	free(mounts);

	if (!kernel_has_fs("tracefs")) {
		t->err = -ENODEV;
		snprintf(t->why, sizeof(t->why),
			 "this kernel has no tracefs (built without CONFIG_TRACING)");
		return t->err;
	}
	if (!may_mount) {
		t->err = -ENOENT;
		snprintf(t->why, sizeof(t->why), "tracefs is not mounted");
		return t->err;
	}
	if (stat(TRACEFS_DEFAULT_PATH, &st) != 0 || !S_ISDIR(st.st_mode)) {
		t->err = -ENOENT;
		snprintf(t->why, sizeof(t->why),
			 "tracefs is not mounted and %s does not exist (is sysfs mounted?)",
			 TRACEFS_DEFAULT_PATH);
		return t->err;
	}
	if (mount("nodev", TRACEFS_DEFAULT_PATH, "tracefs", 0, NULL) != 0) {
		t->err = -errno;
		if (errno == EPERM || errno == EACCES)
			snprintf(t->why, sizeof(t->why),
				 "tracefs is not mounted, and mounting it at %s needs "
				 "CAP_SYS_ADMIN: run ftr as root", TRACEFS_DEFAULT_PATH);
		else
			snprintf(t->why, sizeof(t->why), "cannot mount tracefs at %s: %s",
				 TRACEFS_DEFAULT_PATH, strerror(errno));
		return t->err;
	}
	snprintf(t->path, sizeof(t->path), "%s", TRACEFS_DEFAULT_PATH);
	t->how = TRACEFS_MOUNTED;
found:
	/* Point libtracefs at it, so it never goes looking for debugfs itself. */
	tracefs_set_tracing_dir(t->path);
	return 0;
}

/* ---- names -------------------------------------------------------------- */

void ftr_name(char *buf, size_t len, int pid)
{
	snprintf(buf, len, FTR_NAME_PREFIX "%d", pid);
}

/* The kernel's inode number of the initial PID namespace (PROC_PID_INIT_INO,
 * fixed since Linux 3.8). */
#define PIDNS_INIT_INO 0xEFFFFFFCul

/* This process's PID namespace: 0 for the initial one (or when /proc cannot
 * tell), else its inode number. */
static unsigned long pidns_self(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) < 0 || st.st_ino == PIDNS_INIT_INO)
		return 0;
	return (unsigned long)st.st_ino;
}

void ftr_name_self(char *buf, size_t len)
{
	unsigned long ns = pidns_self();

	if (ns)
		snprintf(buf, len, FTR_NAME_PREFIX "%d_%lu", (int)getpid(), ns);
	else
		ftr_name(buf, len, getpid());
}

/* A decimal without a leading zero, up to max; the end in *end. */
static int parse_dec(const char *p, const char **end, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (*p < '1' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v > max)
			return -1;
	}
	*end = p;
	*out = v;
	return 0;
}

int ftr_name_parse(const char *name, int *pid, unsigned long *ns)
{
	const char *p;
	unsigned long v;

	if (!name || !str_has_prefix(name, FTR_NAME_PREFIX))
		return -1;
	if (parse_dec(name + strlen(FTR_NAME_PREFIX), &p, INT_MAX, &v) < 0)
		return -1;
	*pid = (int)v;
	*ns = 0;
	if (!*p)
		return 0;
	if (*p != '_' || parse_dec(p + 1, &p, 0xffffffffUL, ns) < 0 || *p)
		return -1;
	return 0;
}

int ftr_name_pid(const char *name)
{
	unsigned long ns;
	int pid;

	if (ftr_name_parse(name, &pid, &ns) < 0 || ns)
		return -1;
	return pid;
}

bool ftr_pid_is_live(int pid)
{
	char path[64], *comm;
	bool ftr;

	if (!pid_alive(pid))
		return false;
	/*
	 * The pid runs; is it still an ftr, or was the pid reused?  The
	 * comm of every ftr build starts with "ftr" (ftr, ftr-static).  When
	 * comm cannot be read, assume it is live: leaving a leftover is
	 * harmless, removing a running trace's instance is not.
	 */
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	comm = read_file(path, NULL);
	if (!comm)
		return true;
	ftr = str_has_prefix(comm, "ftr");
	free(comm);
	return ftr;
}

static void lock_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s.lock", FTR_RUN_DIR, name);
}

int ftr_lock_take(const char *name)
{
	char path[PATH_MAX];
	int fd;

	if (mkdir(FTR_RUN_DIR, 0700) < 0 && errno != EEXIST)
		return -errno;
	lock_path(path, sizeof(path), name);
	for (int tries = 0; tries < 8; tries++) {
		struct stat a, b;

		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int err = errno == EWOULDBLOCK ? -EBUSY : -errno;

			close(fd);
			return err;
		}
		/* `ftr reset` unlinks a free lock file: one it removed
		 * between our open and our flock is no lock at all. */
		if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev) {
			/* A killed run of the same name left "running". */
			if (ftruncate(fd, 0) < 0) {
				int err = -errno;

				close(fd);
				return err;
			}
			return fd;
		}
		close(fd);
	}
	return -EAGAIN;
}

/* The lock's answer: 1 live (held), 0 stale (free; *path names it, for
 * removal), -1 no lock file. */
static int lock_says(const char *name, char *path, size_t len)
{
	int fd, held;

	lock_path(path, len, name);
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	held = flock(fd, LOCK_EX | LOCK_NB) < 0;
	close(fd);
	return held;
}

bool ftr_name_is_live(const char *name)
{
	char path[PATH_MAX];
	unsigned long ns;
	int pid, says;

	if (ftr_name_parse(name, &pid, &ns) < 0)
		return true;	/* not ours: never touched */
	says = lock_says(name, path, sizeof(path));
	if (says >= 0)
		return says;
	/* No lock file: an older ftr's run.  Its pid means something only
	 * in its own namespace; from another, it cannot be told dead. */
	if (ns != pidns_self())
		return true;
	return pid == getpid() || ftr_pid_is_live(pid);
}

/* ---- the undo log ----------------------------------------------------------- */

/*
 * FTR_TEST_KILL_AFTER=N (read by tests only, t-kill.sh): the run raises
 * SIGKILL right after its Nth kernel change is in the undo log, so that
 * `ftr reset` can be checked at every step of a set-up.  0: never.
 */
static unsigned long kill_after, changes;

static void maybe_die(enum undo_kind kind)
{
	if (!kill_after || kind == UNDO_CLOSE || kind == UNDO_FUNC)
		return;
	if (++changes == kill_after)
		raise(SIGKILL);
}

int undo_push(struct undo_log *log, const struct undo *u)
{
	struct undo *e;

	if (log->n == log->cap) {
		size_t cap = log->cap ? log->cap * 2 : 16;
		struct undo *v = realloc(log->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		log->v = v;
		log->cap = cap;
	}
	e = &log->v[log->n];
	*e = *u;
	e->path = u->path ? strdup(u->path) : NULL;
	e->data = u->data ? strdup(u->data) : NULL;
	if ((u->path && !e->path) || (u->data && !e->data)) {
		free(e->path);
		free(e->data);
		return -ENOMEM;
	}
	log->n++;
	maybe_die(u->kind);
	return 0;
}

void undo_replay(struct undo_log *log, int (*run)(struct undo *, void *), void *ctx)
{
	while (log->n > 0) {
		struct undo *u = &log->v[--log->n];

		run(u, ctx);
		free(u->path);
		free(u->data);
	}
	free(log->v);
	log->v = NULL;
	log->cap = 0;
}

/* ---- the session ------------------------------------------------------------- */

struct session {
	unsigned flags;
	struct ftr_tracefs tfs;
	char name[32];
	char inst_dir[PATH_MAX];
	struct tracefs_instance *inst;
	bool inst_tried;
	struct undo_log undo;
	int sigfd;
	bool expedited;		/* holds rcu_expedited (session_expedite) */
	bool defer_triggers;	/* session_close: the rmdir removes our triggers */
	struct undo_log deferred;	/* the trigger removals it left to the rmdir */
	int frozen_pid;		/* session_freeze's zombie, reaped at the close */
	int lock_fd;		/* the flock that says this run is live, or -1 */
	bool left_busy;		/* the rmdir said EBUSY: instance left (rmdir_busy) */
	sigset_t oldmask;
	FILE *explain;
	char *script_buf;	/* SESSION_EMIT_SH: the setup lines, captured */
	size_t script_len;
	bool closed;
	bool quiet;		/* probing: failures are answers, not errors */
	bool knobs_noted;	/* global knobs noted for ftr reset (knobs.c) */
	bool top;		/* tracing_on and the buffers read: the top level's
				 * (session_use_top) */
};

static struct session *live_session;

/*
 * The file a probe definition goes to: dynamic_events takes every type, but
 * arrived in 4.20 (kernel/trace/trace_dynevent.c); before it, kprobe_events
 * and uprobe_events, each its own type.  A uprobe's place is PATH:OFFSET (a
 * path holds a '/'), a kprobe's a symbol or an address.  Removal lines
 * ("-:GRP/EV") go where the definition went.
 */
static const char *dynevent_file(const struct session *s, const char *place)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/dynamic_events", s->tfs.path);
	if (access(path, F_OK) == 0)
		return "dynamic_events";
	return place && strchr(place, '/') ? "uprobe_events" : "kprobe_events";
}

/* The same for an event of the undo log (its removal, for --explain). */
static const char *undo_dynevent_file(const struct session *s, const struct undo *u)
{
	enum tracefs_dynevent_type t = tracefs_dynevent_info(u->obj, NULL, NULL, NULL, NULL, NULL);

	if (!strcmp(dynevent_file(s, NULL), "dynamic_events"))
		return "dynamic_events";
	return t & (TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE) ? "uprobe_events" :
	       t & TRACEFS_DYNEVENT_SYNTH ? "synthetic_events" : "kprobe_events";
}

static void explain_write(struct session *s, const char *path, const char *val, bool append,
			  bool at_exit)
{
	if (!s->explain)
		return;
	fprintf(s->explain, "%secho ", at_exit ? "  " : "");
	sh_quote(s->explain, val);
	fprintf(s->explain, " %s %s\n", append ? ">>" : ">", path);
}

/* A trigger of an event of the session's own instance, not on one of its
 * dynamic events: those are removed before the rmdir, and cannot be while
 * a trigger holds them (EBUSY). */
static bool inst_trigger(const struct session *s, const struct undo *u)
{
	size_t li = strlen(s->inst_dir), l = u->path ? strlen(u->path) : 0;
	char group[64];

	snprintf(group, sizeof(group), "/events/%s/", s->name);
	return l > li + 8 && !strncmp(u->path, s->inst_dir, li) && u->path[li] == '/' &&
	       !strcmp(u->path + l - 8, "/trigger") && strncmp(u->path + li, group, strlen(group));
}

/*
 * Before 5.8 an instance cannot be removed while any instance's trace_pipe
 * or trace_pipe_raw is open: instance_rmdir (kernel/trace/trace.c) refuses
 * while current_trace->ref is held, the readers' count of the tracer, and
 * every instance's tracer is the one shared nop_trace (5.8 moved the count
 * to the trace_array).  So while another ftr, or trace-cmd, reads its own
 * instance, ours cannot go, for as long as that reader runs.  Tried again
 * a few times (another run's open of one of our files holds our own count
 * for a moment: EBUSY too), the instance is then left inert (tracing off,
 * no event enabled, a small buffer) and its name marked "left" in our lock
 * file: the next ftr run to open or close a session removes it
 * (sweep_left), and `ftr reset` does.
 */
static int rmdir_busy(struct session *s, struct tracefs_instance *inst)
{
	char path[PATH_MAX + 32];
	int fd;

	for (int i = 0; i < 10; i++) {
		usleep(20000);
		if (tracefs_instance_destroy(inst) == 0)
			return 0;
		if (errno != EBUSY)
			return -errno;
	}
	tracefs_instance_file_write(inst, "tracing_on", "0");
	/* set_event opened with O_TRUNC disables every event of the instance */
	snprintf(path, sizeof(path), "%s/set_event", s->inst_dir);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	tracefs_instance_file_write(inst, "buffer_size_kb", "4");
	s->left_busy = true;
	ftr_warn("instance '%s' left, inert, for the next ftr run to remove: this kernel "
		 "(before 5.8) refuses to remove an instance while any instance's trace_pipe "
		 "is open (another tracer is reading)", s->inst_dir);
	return 0;
}

/* Remove the instances that runs now gone left for that reason (their lock
 * file says "left"): the lock file goes with its instance. */
static void sweep_left(const char *self)
{
	DIR *d = opendir(FTR_RUN_DIR);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char name[256], path[PATH_MAX], *text;
		size_t n = strlen(de->d_name);
		struct tracefs_instance *inst;
		bool gone;

		if (n < 6 || n - 5 >= sizeof(name) || strcmp(de->d_name + n - 5, ".lock"))
			continue;
		memcpy(name, de->d_name, n - 5);
		name[n - 5] = '\0';
		if ((self && !strcmp(name, self)) || lock_says(name, path, sizeof(path)) != 0)
			continue;
		text = read_file(path, NULL);
		gone = text && str_has_prefix(text, "left");
		free(text);
		if (!gone)
			continue;
		inst = tracefs_instance_exists(name) ? tracefs_instance_alloc(NULL, name) : NULL;
		if (!inst || tracefs_instance_destroy(inst) == 0)
			unlink(path);
		tracefs_instance_free(inst);
	}
	if (d)
		closedir(d);
}

static int run_undo(struct undo *u, void *ctx)
{
	struct session *s = ctx;
	bool dry = s->flags & SESSION_DRY_RUN;
	int fd, err = 0;

	switch (u->kind) {
	case UNDO_CLOSE:
		if (!dry)
			close(u->fd);
		break;
	case UNDO_FUNC:
		if (!dry)
			u->fn(u->obj);
		break;
	case UNDO_WRITE:
		explain_write(s, u->path, u->data, false, true);
		if (!dry)
			err = write_file(u->path, u->data);
		break;
	case UNDO_APPEND:
		if (s->defer_triggers && inst_trigger(s, u)) {
			/* Left to the instance's rmdir (session_close says why);
			 * kept in case the rmdir fails. */
			err = dry ? 0 : undo_push(&s->deferred, u);
			break;
		}
		explain_write(s, u->path, u->data, true, true);
		if (dry)
			break;
		fd = open(u->path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, u->data, strlen(u->data)) < 0)
			err = -errno;
		if (fd >= 0)
			close(fd);
		break;
	case UNDO_DYNEVENT:
		if (s->explain) {
			fputs("  echo ", s->explain);
			sh_quote(s->explain, u->data);
			fprintf(s->explain, " >> %s/%s\n", s->tfs.path, undo_dynevent_file(s, u));
		}
		if (dry) {
			tracefs_dynevent_free(u->obj);
			break;
		}
		/* EBUSY while still enabled somewhere: force disables it in
		 * every instance first (the group name is ours alone). */
		if (tracefs_dynevent_destroy(u->obj, false) < 0 &&
		    tracefs_dynevent_destroy(u->obj, true) < 0)
			err = -(errno ? errno : EBUSY);
		tracefs_dynevent_free(u->obj);
		break;
	case UNDO_RMDIR_INSTANCE:
		if (s->explain)
			fprintf(s->explain, "  rmdir %s\n", u->path);
		if (dry)
			break;
		if (tracefs_instance_destroy(u->obj) < 0) {
			err = -errno;
			if (s->deferred.n) {
				/* Still there (a reader holds one of its files):
				 * the triggers go one by one, then it again. */
				s->defer_triggers = false;
				undo_replay(&s->deferred, run_undo, s);
				err = tracefs_instance_destroy(u->obj) < 0 ? -errno : 0;
			}
			if (err == -EBUSY)
				err = rmdir_busy(s, u->obj);
		}
		tracefs_instance_free(u->obj);
		break;
	}
	if (err)
		ftr_warn("cleanup: cannot undo change to '%s': %s (run 'ftr reset')",
			 u->path ? u->path : "?", strerror(-err));
	return err;
}

static void session_atexit(void)
{
	/* A safety net: a command that exits without closing still cleans up. */
	if (live_session)
		session_close(live_session);
}

int session_open(struct session **sp, unsigned flags)
{
	static bool atexit_done;
	struct session *s;
	sigset_t set;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->flags = flags;
	s->sigfd = -1;
	s->lock_fd = -1;
	if (!(flags & SESSION_DRY_RUN) && getenv("FTR_TEST_KILL_AFTER"))
		kill_after = strtoul(getenv("FTR_TEST_KILL_AFTER"), NULL, 10);
	if (flags & SESSION_EMIT_SH) {
		flags |= SESSION_DRY_RUN;
		s->flags = flags;
		s->explain = open_memstream(&s->script_buf, &s->script_len);
		if (!s->explain) {
			free(s);
			return -ENOMEM;
		}
	} else if (flags & SESSION_DRY_RUN)
		s->explain = stdout;
	else if (flags & SESSION_EXPLAIN)
		s->explain = stderr;
	ftr_name_self(s->name, sizeof(s->name));

	err = tracefs_locate(&s->tfs, !(flags & (SESSION_NO_MOUNT | SESSION_DRY_RUN)));
	if (err && (flags & SESSION_DRY_RUN)) {
		/* A plan can be printed for a machine where tracefs is not
		 * mounted yet: spell it with the default path. */
		snprintf(s->tfs.path, sizeof(s->tfs.path), "%s", TRACEFS_DEFAULT_PATH);
		err = 0;
	}
	if (err) {
		ftr_err("%s", s->tfs.why);
		free(s);
		return err;
	}
	if (!(flags & SESSION_DRY_RUN) && access(s->tfs.path, R_OK | W_OK | X_OK) != 0) {
		err = -errno;
		ftr_err("cannot use tracefs at '%s': %s%s", s->tfs.path, strerror(errno),
			err == -EROFS ? " (it is mounted read-only, and ftr traces in an instance "
			"it creates there: remount it read-write)" :
			geteuid() ? " (tracing needs root)" : "");
		free(s);
		return err;
	}
	snprintf(s->inst_dir, sizeof(s->inst_dir), "%s/instances/%s", s->tfs.path, s->name);
	if (!(flags & SESSION_DRY_RUN)) {
		/* Before the first kernel change.  Without /run, the pid alone
		 * tells `ftr reset` that this run is live. */
		s->lock_fd = ftr_lock_take(s->name);
		if (s->lock_fd == -EBUSY) {
			ftr_err("the name '%s' is held by another live ftr run (lock %s/%s.lock)",
				s->name, FTR_RUN_DIR, s->name);
			free(s);
			return -EBUSY;
		}
		if (s->lock_fd >= 0)
			sweep_left(s->name);
	}

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &s->oldmask);
	s->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->sigfd < 0) {
		err = -errno;
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
		ftr_err("cannot create signalfd: %s", strerror(errno));
		if (s->lock_fd >= 0)
			close(s->lock_fd);
		free(s);
		return err;
	}
	live_session = s;
	if (!atexit_done) {
		atexit(session_atexit);
		atexit_done = true;
	}
	*sp = s;
	return 0;
}


static size_t triggers_made(const struct session *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->undo.n; i++) {
		const char *p = s->undo.v[i].path;
		size_t l = p ? strlen(p) : 0;

		if ((s->undo.v[i].kind == UNDO_WRITE || s->undo.v[i].kind == UNDO_APPEND) &&
		    l >= 8 && !strcmp(p + l - 8, "/trigger"))
			n++;
	}
	return n;
}

void session_expedite(struct session *s, size_t ntriggers)
{
	if (!s)		/* a program of interval clauses only opens none */
		return;
	if (!ntriggers) {
		if (s->expedited)
			expedite_end(s->name);
		s->expedited = false;
		return;
	}
	if (s->expedited || ntriggers < SESSION_EXPEDITE_TRIGGERS || (s->flags & SESSION_DRY_RUN))
		return;
	s->expedited = expedite_begin(s->name) > 0;
	if (s->explain && s->expedited)
		fprintf(s->explain, "# %zu triggers: %s is 1 while they come and go, then as it was\n",
			ntriggers, expedite_knob_path);
}

void session_close(struct session *s)
{
	if (!s || s->closed)
		return;
	s->closed = true;
	if (s->flags & SESSION_EMIT_SH) {
		/* session_script() printed the undo lines; drop them. */
		fclose(s->explain);
		free(s->script_buf);
		s->explain = NULL;
	}
	if (s->explain && s->undo.n)
		fprintf(s->explain, "# at exit, in reverse order:\n");
	/* Removing the instance removes its triggers, each waiting once for
	 * the events in flight, twice with a filter (clear_event_triggers ->
	 * trigger_data_free, 6.1); a "!hist..." command waits twice as often
	 * (the command's own trigger and filter, parsed to find the trigger,
	 * are freed behind the same waits).  So the instance's triggers are
	 * left to its rmdir. */
	for (size_t i = 0; i < s->undo.n; i++)
		if (s->undo.v[i].kind == UNDO_RMDIR_INSTANCE)
			s->defer_triggers = true;
	session_expedite(s, triggers_made(s));
	undo_replay(&s->undo, run_undo, s);
	session_expedite(s, 0);
	for (size_t i = 0; i < s->deferred.n; i++) {
		free(s->deferred.v[i].path);
		free(s->deferred.v[i].data);
	}
	free(s->deferred.v);
	if (s->frozen_pid > 0)
		waitpid(s->frozen_pid, NULL, 0);
	if (s->lock_fd >= 0) {
		char path[PATH_MAX];
		static const char left[] = "left\n";

		lock_path(path, sizeof(path), s->name);
		/* Kept, saying "left", while our instance is (rmdir_busy). */
		if (!s->left_busy || ftruncate(s->lock_fd, 0) < 0 ||
		    pwrite(s->lock_fd, left, sizeof(left) - 1, 0) < 0)
			unlink(path);
		close(s->lock_fd);
		sweep_left(s->name);
	}
	if (s->sigfd >= 0) {
		/* A stop signal that came after the run had stopped reading them
		 * (a second SIGTERM just after the drain) was meant for this run,
		 * which is over: read, not left pending for the restored mask to
		 * deliver, which would kill ftr with 128+SIG after a clean end. */
		while (session_pending_signal(s))
			;
		close(s->sigfd);
	}
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	if (live_session == s)
		live_session = NULL;
	if (s->explain)
		fflush(s->explain);
	free(s);
}

/* Does text at p (n bytes left) start with word, not followed by more of a
 * name ("ftr_1" is not in "ftr_12" nor in "ftr_1_4026531837")? */
static bool word_at(const char *p, size_t n, const char *word)
{
	size_t l = strlen(word);

	return n >= l && !memcmp(p, word, l) &&
	       (n == l || !(p[l] == '_' || (p[l] >= '0' && p[l] <= '9')));
}

/*
 * A line of the script: the instance directory becomes $I, the tracefs path
 * $T, the run's name (dynamic-event groups) ${G}, which is ftr_sh_$$ like
 * the instance, so that `ftr reset` leaves a running script's probes alone;
 * and the quoted word '$$' (the engine's "this process") the script's pid.
 * Inside a single-quoted word the variables are spliced in as '"$X"'.
 */
static void put_line(FILE *out, const char *line, size_t n, const struct session *s,
		     const char *indent)
{
	const char *inst = s->inst_dir, *tfs = s->tfs.path;
	size_t li = strlen(inst), lt = strlen(tfs), lg = strlen(s->name);
	bool comment = n && line[0] == '#', sq = false;

	fputs(indent, out);
	for (size_t i = 0; i < n;) {
		const char *var = NULL;
		size_t skip = 0;

		if (!comment && !sq && line[i] == '\\' && i + 1 < n) {
			fwrite(line + i, 1, 2, out);
			i += 2;
			continue;
		}
		if (!comment && !sq && n - i >= 4 && !memcmp(line + i, "'$$'", 4)) {
			fputs("\"$$\"", out);
			i += 4;
			continue;
		}
		if (n - i >= li && !memcmp(line + i, inst, li))
			var = "I", skip = li;
		else if (n - i >= lt && !memcmp(line + i, tfs, lt))
			var = "T", skip = lt;
		else if (word_at(line + i, n - i, s->name))
			var = "G", skip = lg;
		if (var) {
			fprintf(out, sq ? "'\"${%s}\"'" : "${%s}", var);
			i += skip;
			continue;
		}
		if (!comment && line[i] == '\'')
			sq = !sq;
		fputc(line[i++], out);
	}
	fputc('\n', out);
}

int session_script(struct session *s, FILE *out, const char *body)
{
	char *undo_buf = NULL;
	size_t undo_len = 0, off;
	FILE *saved = s->explain, *uf;

	if (!(s->flags & SESSION_EMIT_SH))
		return -EINVAL;
	fflush(s->explain);
	/* The undo lines, in reverse order, as run_undo would print them. */
	uf = open_memstream(&undo_buf, &undo_len);
	if (!uf)
		return -ENOMEM;
	s->explain = uf;
	for (size_t i = s->undo.n; i-- > 0;) {
		switch (s->undo.v[i].kind) {
		case UNDO_WRITE:
		case UNDO_APPEND:
			explain_write(s, s->undo.v[i].path, s->undo.v[i].data,
				      s->undo.v[i].kind == UNDO_APPEND, false);
			break;
		case UNDO_DYNEVENT:
			fputs("echo ", uf);
			sh_quote(uf, s->undo.v[i].data);
			fprintf(uf, " >> %s/%s\n", s->tfs.path, undo_dynevent_file(s, &s->undo.v[i]));
			break;
		case UNDO_RMDIR_INSTANCE:
			fprintf(uf, "rmdir %s\n", s->undo.v[i].path);
			break;
		default:
			break;
		}
	}
	fclose(uf);
	s->explain = saved;

	fprintf(out, "#!/bin/sh\n"
		     "# Generated by ftr %s: the in-kernel part of a run, with echo and cat\n"
		     "# alone, for a machine without ftr.  Run as root.  Its instance is\n"
		     "# ftr_sh_PID, and so is its dynamic events' group: 'ftr reset' leaves\n"
		     "# them alone, the script cleans up (by hand after a kill -9: the\n"
		     "# lines of cleanup() below with PID for $$).\n"
		     "T=%s\n"
		     "[ -e \"$T/README\" ] || mount -t tracefs nodev \"$T\" || exit 1\n"
		     "G=ftr_sh_$$\n"
		     "I=$T/instances/$G\n"
		     "cleanup() {\n"
		     "\ttrap - INT TERM HUP EXIT\n",
		FTR_VERSION, TRACEFS_DEFAULT_PATH);
	for (off = 0; off < undo_len;) {
		size_t n = strcspn(undo_buf + off, "\n");

		put_line(out, undo_buf + off, n, s, "\t");
		off += n + 1;
	}
	fprintf(out, "}\ntrap cleanup EXIT\ntrap 'exit 0' INT TERM HUP\nset -e\n");
	for (off = 0; off < s->script_len;) {
		size_t n = strcspn(s->script_buf + off, "\n");

		put_line(out, s->script_buf + off, n, s, "");
		off += n + 1;
	}
	fprintf(out, "set +e\n");
	for (const char *b = body; b && *b;) {
		size_t n = strcspn(b, "\n");

		put_line(out, b, n, s, "");
		b += n + (b[n] == '\n');
	}
	free(undo_buf);
	return 0;
}

const struct ftr_tracefs *session_tracefs(const struct session *s)
{
	return &s->tfs;
}

const char *session_name(const struct session *s)
{
	return s->name;
}

bool session_dry_run(const struct session *s)
{
	return s->flags & SESSION_DRY_RUN;
}

static void warn_leftovers(const struct session *s)
{
	char **names = tracefs_instances("^" FTR_NAME_PREFIX);

	for (int i = 0; names && names[i]; i++) {
		if (strcmp(names[i], s->name) && !ftr_name_is_live(names[i]))
			ftr_warn("tracefs still holds instance '%s' of a killed ftr run; "
				 "'ftr reset' removes it", names[i]);
	}
	tracefs_list_free(names);
}

int session_instance_ready(struct session *s)
{
	struct tracefs_instance *inst;
	struct undo u = { .kind = UNDO_RMDIR_INSTANCE };
	int err;

	if (s->inst || (s->flags & SESSION_DRY_RUN && s->inst_tried))
		return 0;
	if (s->inst_tried)
		return -EIO;
	s->inst_tried = true;
	if (s->explain)
		fprintf(s->explain, "mkdir %s\n", s->inst_dir);
	if (s->flags & SESSION_DRY_RUN) {
		char path[PATH_MAX + 16];

		/* Recorded so that the plan shows the rmdir at exit. */
		u.path = s->inst_dir;
		err = undo_push(&s->undo, &u);
		snprintf(path, sizeof(path), "%s/tracing_on", s->inst_dir);
		explain_write(s, path, "0", false, false);
		return err;
	}
	warn_leftovers(s);
	inst = tracefs_instance_create(s->name);
	if (inst && !tracefs_instance_is_new(inst)) {
		/* Our own name, but we did not make it: a killed earlier run
		 * with the same pid.  Start from a fresh one. */
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		inst = tracefs_instance_create(s->name);
	}
	if (!inst) {
		err = -errno;
		ftr_err("cannot create tracefs instance '%s': %s", s->inst_dir, strerror(errno));
		return err ? err : -EIO;
	}
	u.obj = inst;
	u.path = s->inst_dir;
	err = undo_push(&s->undo, &u);
	if (err) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
		return err;
	}
	/* A new instance starts with tracing on; configure it switched off
	 * and turn it on only once everything is in place (rtla's order). */
	if (tracefs_trace_off(inst) < 0) {
		err = -errno;
		ftr_err("cannot turn tracing off in '%s': %s", s->inst_dir, strerror(errno));
		return err;
	}
	s->inst = inst;
	return 0;
}

struct tracefs_instance *session_instance(struct session *s)
{
	if (session_instance_ready(s) < 0)
		return NULL;
	return s->inst;
}

static int do_write(struct session *s, const char *rel, const char *val, const char *restore,
		    bool quiet)
{
	char path[PATH_MAX + 256];
	int ret, saved;

	ret = session_instance_ready(s);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", s->inst_dir, rel);
	explain_write(s, path, val, false, false);
	if (restore) {
		struct undo u = { .kind = UNDO_WRITE, .path = path, .data = (char *)restore };

		/* Recorded before the write: a write that half-succeeded is
		 * restored too (restoring an unchanged value is harmless). */
		ret = undo_push(&s->undo, &u);
		if (ret)
			return ret;
	}
	if (s->flags & SESSION_DRY_RUN)
		return 0;
	tracefs_error_clear(s->inst);
	if (tracefs_instance_file_write(s->inst, rel, val) < 0) {
		char *log;

		saved = errno ? errno : EIO;
		if (quiet)
			return -saved;
		log = tracefs_error_last(s->inst);
		ftr_err("cannot write '%s' to '%s': %s", val, path, strerror(saved));
		ftr_err_kernel_log(log);
		free(log);
		return -saved;
	}
	return 0;
}

int session_write(struct session *s, const char *file, const char *val, const char *restore)
{
	return do_write(s, file, val, restore, false);
}

int session_try_write(struct session *s, const char *file, const char *val)
{
	return do_write(s, file, val, NULL, true);
}

int session_append(struct session *s, const char *file, const char *val)
{
	char path[PATH_MAX + 256];
	int ret = session_instance_ready(s);

	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", s->inst_dir, file);
	explain_write(s, path, val, true, false);
	if (s->flags & SESSION_DRY_RUN)
		return 0;
	if (tracefs_instance_file_append(s->inst, file, val) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

int session_global_append(struct session *s, const char *file, const char *val)
{
	char path[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s/%s", s->tfs.path, file);
	explain_write(s, path, val, true, false);
	if (s->flags & SESSION_DRY_RUN)
		return 0;
	if (tracefs_instance_file_append(NULL, file, val) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

void session_use_top(struct session *s)
{
	s->top = true;
}

bool session_top(const struct session *s)
{
	return s->top;
}

static void knobs_done(void *arg)
{
	knobs_forget(arg);
}

int session_global_write(struct session *s, const char *file, const char *val)
{
	char path[PATH_MAX + 256], *orig;
	struct undo u = { .kind = UNDO_WRITE };
	int err;

	snprintf(path, sizeof(path), "%s/%s", s->tfs.path, file);
	explain_write(s, path, val, false, false);
	if (s->flags & SESSION_DRY_RUN)
		return 0;
	orig = read_file(path, NULL);
	if (!orig) {
		err = -errno;
		ftr_err("cannot read '%s': %s", path, strerror(errno));
		return err;
	}
	str_trim(orig);
	/* An empty function filter or pid list reads as a comment ("####
	 * all functions enabled ####", "no pid"): empty is written back. */
	if (orig[0] == '#' || !strcmp(orig, "no pid"))
		orig[0] = '\0';
	/* buffer_size_kb of a buffer never used: "7 (expanded: 1408)" */
	if (strstr(orig, " (expanded"))
		*strstr(orig, " (expanded") = '\0';
	/* trace_clock lists the clocks with the one in use in brackets */
	char *lb = strchr(orig, '['), *rb = lb ? strchr(lb, ']') : NULL;

	if (rb) {
		memmove(orig, lb + 1, (size_t)(rb - lb - 1));
		orig[rb - lb - 1] = '\0';
	}
	if (!s->knobs_noted) {
		/* pushed first, so replayed last: after every knob is back */
		err = session_on_close(s, knobs_done, s->name);
		if (err)
			goto out;
		s->knobs_noted = true;
	}
	err = knobs_note(s->name, path, orig);
	if (err) {
		ftr_err("cannot note '%s' in %s before changing it: %s", path, knobs_dir,
			strerror(-err));
		goto out;
	}
	u.path = path;
	u.data = orig;
	err = undo_push(&s->undo, &u);
	if (err)
		goto out;
	err = write_file(path, val);
	if (err)
		ftr_err("cannot write '%s' to '%s': %s", val, path, strerror(-err));
out:
	free(orig);
	return err;
}

int session_event_write(struct session *s, const char *sys, const char *ev, const char *file,
			const char *val, const char *restore)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "events/%s/%s/%s", sys, ev, file);
	return do_write(s, rel, val, restore, false);
}

int session_trigger_add(struct session *s, const char *sys, const char *ev, const char *spec)
{
	char rel[512], path[PATH_MAX + 512], *undo_spec;
	struct undo u = { .kind = UNDO_APPEND };
	int ret, saved;

	ret = session_instance_ready(s);
	if (ret)
		return ret;
	snprintf(rel, sizeof(rel), "events/%s/%s/trigger", sys, ev);
	snprintf(path, sizeof(path), "%s/%s", s->inst_dir, rel);
	/* Append, never truncate: O_TRUNC on a trigger file removes every
	 * hist trigger of the event (the kernel's unreg_all). */
	explain_write(s, path, spec, true, false);
	if (!(s->flags & SESSION_DRY_RUN)) {
		tracefs_error_clear(s->inst);
		if (tracefs_instance_file_append(s->inst, rel, spec) < 0) {
			char *log;

			saved = errno ? errno : EIO;
			log = tracefs_error_last(s->inst);
			ftr_err("cannot add trigger '%s' to '%s:%s': %s", spec, sys, ev,
				strerror(saved));
			ftr_err_kernel_log(log);
			free(log);
			return -saved;
		}
	}
	if (asprintf(&undo_spec, "!%s", spec) < 0)
		return -ENOMEM;
	u.path = path;
	u.data = undo_spec;
	ret = undo_push(&s->undo, &u);
	free(undo_spec);
	return ret;
}

int session_dynevent_create(struct session *s, struct tracefs_dynevent *dyn)
{
	return session_dynevent_create_at(s, dyn, NULL);
}

/* The place in a "PREFIX:GRP/EV PLACE ARGS" line. */
static const char *def_place(const char *def, char *buf, size_t len)
{
	const char *p = strchr(def, ' ');

	if (!p)
		return NULL;
	snprintf(buf, len, "%.*s", (int)strcspn(p + 1, " "), p + 1);
	return buf;
}

/* Append one line to the dynamic-event file of PLACE.  0 or -errno. */
static int dynevent_append(struct session *s, const char *line, const char *place)
{
	char path[PATH_MAX + 32];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", s->tfs.path, dynevent_file(s, place));
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 || write(fd, line, strlen(line)) < 0)
		ret = -(errno ? errno : EIO);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Write "PREFIX:SYS/EV ADDR FMT" to dynamic_events ourselves: libtracefs
 * spells a uprobe's place PATH:0xOFF and has no way to add the kernel's
 * (REF_CTR_OFFSET).  0 or -errno. */
static int dynevent_write(struct session *s, const char *prefix, const char *sys, const char *ev,
			  const char *addr, const char *fmt)
{
	char *line = NULL;
	int ret;

	if (asprintf(&line, "%s:%s/%s %s %s", prefix, sys, ev, addr, fmt ? fmt : "") < 0)
		return -ENOMEM;
	ret = dynevent_append(s, line, addr);
	free(line);
	return ret;
}

int session_dynevent_renew(struct session *s, const char *def)
{
	const char *name = strchr(def, ':'), *end = name ? strchr(name, ' ') : NULL;
	size_t gl = strlen(s->name);
	char *del = NULL, *log, place[PATH_MAX];
	int ret;

	if (!end || strncmp(name + 1, s->name, gl) || name[1 + gl] != '/') {
		ftr_err("internal: dynamic event '%s' is not in group '%s'", def, s->name);
		return -EINVAL;
	}
	if (s->explain || (s->flags & SESSION_DRY_RUN))
		return 0;
	if (asprintf(&del, "-:%.*s", (int)(end - name - 1), name + 1) < 0)
		return -ENOMEM;
	tracefs_error_clear(NULL);
	def_place(def, place, sizeof(place));
	ret = dynevent_append(s, del, place);
	if (ret == 0)
		ret = dynevent_append(s, def, place);
	if (ret < 0) {
		/* Gone if the second write failed: the undo log's removal
		 * then fails too, and says so. */
		log = tracefs_error_last(NULL);
		ftr_err("cannot create '%s' again (to order it before the older probes at its "
			"place): %s", def, strerror(-ret));
		ftr_err_kernel_log(log);
		free(log);
	}
	free(del);
	return ret;
}

int session_dynevent_create_at(struct session *s, struct tracefs_dynevent *dyn, const char *at)
{
	return session_dynevent_create_as(s, dyn, NULL, at, NULL);
}

/*
 * A refused probe definition where the kernel has no error_log (5.4) to say
 * why: what this version's probe syntax lacks of what the line uses, from
 * its tracefs README (the kernel's own list of what it parses), else what
 * the errno means for a probe line.
 */
static void explain_probe_refusal(struct session *s, const char *place, const char *fmt, int err)
{
	static const struct {
		const char *use, *readme, *what;
	} floors[] = {
		{ "$arg", "$arg<N>", "$argN (function arguments by number, 4.20): use the "
		  "calling convention's registers (x86-64: %di %si %dx %cx %r8 %r9)" },
		{ ":ustring", "ustring", "user-memory strings (:ustring, 5.5)" },
		{ "+u", "+u", "user-memory dereferences (+u, 5.5)" },
		{ ":symstr", "symstr", "symbol strings (:symstr)" },
		{ "$comm", "$comm", "the task's name ($comm)" },
		{ ":x8", "x8/", "hexadecimal types (x8..x64)" },
		{ ":x16", "x8/", "hexadecimal types (x8..x64)" },
		{ ":x32", "x8/", "hexadecimal types (x8..x64)" },
		{ ":x64", "x8/", "hexadecimal types (x8..x64)" },
		{ "[", "<array-size>", "array types (TYPE[N], 5.1)" },
	};
	char path[PATH_MAX + 32], *readme;
	bool said = false;

	snprintf(path, sizeof(path), "%s/error_log", s->tfs.path);
	if (access(path, F_OK) == 0)
		return;
	readme = tracefs_instance_file_read(NULL, "README", NULL);
	for (size_t i = 0; fmt && i < sizeof(floors) / sizeof(floors[0]); i++) {
		if (!strstr(fmt, floors[i].use) || (readme && strstr(readme, floors[i].readme)))
			continue;
		fprintf(stderr, "  this kernel's probes lack %s: its README does not list it\n",
			floors[i].what);
		said = true;
	}
	free(readme);
	if (said)
		return;
	fprintf(stderr, "  this kernel has no error_log (5.4) to say why: %s\n",
		err == ENOENT ? "ENOENT is a place it cannot find (not in kallsyms, or not a file)" :
		err == EINVAL ? "EINVAL is a line it cannot parse (a fetch argument or type this "
				"version lacks), or a place it cannot probe (notrace, blacklisted, "
				"not at an instruction)" :
		err == EEXIST ? "EEXIST is an event of that name already" :
		"the errno is all it gives");
	if (place)
		fprintf(stderr, "  (place '%s'; %s/README lists the syntax it takes)\n", place,
			s->tfs.path);
}

int session_dynevent_create_as(struct session *s, struct tracefs_dynevent *dyn, const char *as,
			       const char *at, const char *args)
{
	char *sys = NULL, *ev = NULL, *prefix = NULL, *addr = NULL, *fmt = NULL, *del = NULL;
	struct undo u = { .kind = UNDO_DYNEVENT, .obj = dyn };
	int ret = 0, saved;

	tracefs_dynevent_info(dyn, &sys, &ev, &prefix, &addr, &fmt);
	if (as) {
		free(prefix);
		free(fmt);
		prefix = strdup(as);
		fmt = args ? strdup(args) : NULL;
		if (!at)
			at = "";
	}
	if (!sys || strcmp(sys, s->name) != 0) {
		/* Only ftr_<pid> groups can be found again by `ftr reset`. */
		ftr_err("internal: dynamic event '%s/%s' is not in group '%s'", sys, ev, s->name);
		ret = -EINVAL;
		goto out;
	}
	if (at) {
		free(addr);
		addr = strdup(at);
	}
	if (s->explain) {
		/* The address holds a file name for a uprobe: any bytes. */
		char *def = NULL;

		if (asprintf(&def, "%s:%s/%s %s %s", prefix, sys, ev, addr ? addr : "",
			     fmt ? fmt : "") < 0) {
			ret = -ENOMEM;
			goto out;
		}
		fputs("echo ", s->explain);
		sh_quote(s->explain, def);
		fprintf(s->explain, " >> %s/%s\n", s->tfs.path, dynevent_file(s, addr));
		free(def);
	}
	if (asprintf(&del, "-:%s/%s", sys, ev) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	if (!(s->flags & SESSION_DRY_RUN)) {
		tracefs_error_clear(NULL);
		ret = at ? dynevent_write(s, prefix, sys, ev, addr ? addr : "", fmt) :
		      tracefs_dynevent_create(dyn) < 0 ? -(errno ? errno : EINVAL) : 0;
		if (ret < 0) {
			char *log;

			saved = -ret;
			/* Probe definition errors go to the top-level log. */
			log = tracefs_error_last(NULL);
			if (s->quiet) {
				free(log);
				ret = -saved;
				goto out;
			}
			ftr_err("cannot create %s '%s' at '%s': %s",
				prefix && prefix[0] == 'r' ? "return probe" : "probe", ev,
				addr ? addr : "?", strerror(saved));
			ftr_err_kernel_log(log);
			if (!log || !*log)
				explain_probe_refusal(s, addr, fmt, saved);
			free(log);
			ret = -saved;
			goto out;
		}
	}
	u.data = del;
	u.path = del;
	ret = undo_push(&s->undo, &u);
out:
	free(sys);
	free(ev);
	free(prefix);
	free(addr);
	free(fmt);
	free(del);
	return ret;
}

void session_track_fd(struct session *s, int fd)
{
	struct undo u = { .kind = UNDO_CLOSE, .fd = fd };

	if (undo_push(&s->undo, &u) < 0)
		close(fd);
}

int session_on_close(struct session *s, void (*fn)(void *), void *arg)
{
	struct undo u = { .kind = UNDO_FUNC, .fn = fn, .obj = arg };

	return undo_push(&s->undo, &u);
}

int session_start(struct session *s)
{
	int err = session_write(s, "tracing_on", "1", "0");

	/* The top level's tracer writes to the top level's buffer. */
	if (!err && s->top)
		err = session_global_write(s, "tracing_on", "1");
	return err;
}

void session_running(struct session *s)
{
	static const char word[] = "running\n";

	/* Best effort: the lock, not its text, is what liveness rests on. */
	if (s->lock_fd >= 0 && pwrite(s->lock_fd, word, sizeof(word) - 1, 0) < 0)
		ftr_warn("cannot mark '%s/%s.lock' running: %s", FTR_RUN_DIR, s->name,
			 strerror(errno));
}

int session_stop(struct session *s)
{
	if (s->flags & SESSION_DRY_RUN || !s->inst)
		return 0;
	/* (the top level's tracing_on goes back to what it was at close) */
	return tracefs_trace_off(s->inst) < 0 ? -errno : 0;
}

/*
 * Every event of the instance stopped at once, hist triggers included, with
 * one wait for the events in flight, where pausing each trigger waits once
 * per trigger, twice with a filter (the `:pause` command's own trigger and
 * filter are parsed, then freed behind tracepoint_synchronize_unregister;
 * kernel/trace/trace_events_hist.c and _trigger.c, 6.1).  tracing_on=0 stops
 * the buffer, not the triggers (trace_event_buffer_lock_reserve hands them a
 * scratch buffer), nor does an event's enable=0 (the trigger keeps it soft-
 * enabled); the pid filter is checked before either runs
 * (trace_event_buffer_reserve).  set_event_pid holding only a zombie's pid,
 * a task that never runs again, every task is ignored from the next switch,
 * and at once on each CPU (the write's IPI).  Written twice: the second
 * write waits (it frees the first list behind a tracepoint synchronisation),
 * after which no event begun before the first is still counting.  The
 * rmdir clears the list; the zombie is reaped after it.  -EOPNOTSUPP where
 * set_event_pid is in use already (-p, a command: a list only grows) or ftr
 * is in a PID namespace (the kernel knows the zombie by another pid): the
 * caller pauses the triggers.
 */
int session_freeze(struct session *s)
{
	char path[PATH_MAX + 32], buf[32];
	siginfo_t si;
	pid_t pid;
	int fd, n, err = 0;

	if ((s->flags & SESSION_DRY_RUN) || !s->inst || session_in_pidns())
		return -EOPNOTSUPP;
	/* Read here: libtracefs gives NULL for an empty file and a missing one */
	snprintf(path, sizeof(path), "%s/set_event_pid", s->inst_dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -EOPNOTSUPP;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EOPNOTSUPP;
	buf[n] = '\0';
	if (buf[strspn(buf, " \t\n")])
		return -EOPNOTSUPP;	/* pids already: -p or a command */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(0);
	s->frozen_pid = pid;
	/* WNOWAIT: dead, not reaped, so its pid is nobody else's */
	while (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	for (int i = 0; i < 2 && !err; i++) {
		/* O_APPEND, never O_TRUNC: truncating clears the list, which
		 * traces every task until the write */
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, buf, n) != n)
			err = -(errno ? errno : EIO);
		if (fd >= 0)
			close(fd);
	}
	if (err)
		ftr_warn("cannot stop the events at once through '%s': %s", path, strerror(-err));
	return err;
}

void session_set_quiet(struct session *s, bool quiet)
{
	s->quiet = quiet;
}

bool session_quiet(const struct session *s)
{
	return s->quiet;
}

int session_signal_fd(const struct session *s)
{
	return s->sigfd;
}

int session_pending_signal(struct session *s)
{
	struct signalfd_siginfo si;

	if (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		return (int)si.ssi_signo;
	return 0;
}

void session_child_signals(const struct session *s)
{
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
}

/* ---- pids in a PID namespace ------------------------------------------------- */

/* The initial PID namespace's inode number (PROC_PID_INIT_INO, fixed since
 * 3.8): /proc/self/ns/pid reads "pid:[4026531836]" there. */
#define PID_INIT_INO "4026531836"

bool session_in_pidns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

	if (n <= 0)
		return false;	/* no /proc, or no namespaces: the pids are the kernel's */
	link[n] = '\0';
	return strcmp(link, "pid:[" PID_INIT_INO "]") != 0;
}

bool session_proc_kernel_pids(void)
{
	char link[64];
	ssize_t n = readlink("/proc/1/ns/pid", link, sizeof(link) - 1);

	/* /proc's pid 1 is its namespace's init: the initial namespace's
	 * only where /proc shows the kernel's pids. */
	if (n <= 0)
		return !session_in_pidns();
	link[n] = '\0';
	return strcmp(link, "pid:[" PID_INIT_INO "]") == 0;
}

int marker_pid_parse(const char *text, const char *tag)
{
	static const char mark[] = "tracing_mark_write: ";
	size_t tl = strlen(tag);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *end = strchr(l, '\n'), *m, *q;
		long pid = 0, mul = 1;

		if (!end)
			end = l + strlen(l);
		m = memmem(l, end - l, mark, sizeof(mark) - 1);
		/* The tag, all of the marker's text. */
		if (*l == '#' || !m || (size_t)(end - m) != sizeof(mark) - 1 + tl ||
		    memcmp(m + sizeof(mark) - 1, tag, tl))
			continue;
		/* "  comm-PID  [003] d..1.  12.3: ..." (with record-tgid,
		 * "comm-PID  (TGID) [003]"): back from the CPU field's '[', the
		 * last one before the marker (a comm can hold anything). */
		for (q = m; q > l && *q != '['; q--)
			;
		if (*q != '[')
			continue;
		while (q > l && q[-1] == ' ')
			q--;
		if (q > l && q[-1] == ')') {
			while (q > l && q[-1] != '(')
				q--;
			if (q > l)
				q--;
			while (q > l && q[-1] == ' ')
				q--;
		}
		while (q > l && q[-1] >= '0' && q[-1] <= '9' && mul <= 100000000) {
			pid += (q[-1] - '0') * mul;
			mul *= 10;
			q--;
		}
		if (mul > 1 && q > l && q[-1] == '-' && pid > 0)
			return (int)pid;
	}
	return -ESRCH;
}

int session_marker_open(struct session *s)
{
	char path[PATH_MAX + 32];
	int fd, err = session_instance_ready(s);

	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/trace_marker", s->inst_dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		ftr_err("cannot open '%s': %s", path, strerror(errno));
		return err;
	}
	/* A marker write into a buffer that is off fails (EBADF).  Nothing
	 * else is enabled yet: the buffer holds the markers alone. */
	if (tracefs_trace_on(s->inst) < 0) {
		err = -errno;
		ftr_err("cannot turn tracing on in '%s': %s", s->inst_dir, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

int session_marker_pid(struct session *s, int fd, const char *tag)
{
	int pid = -ESRCH;

	close(fd);
	/* The write is done when the writer says so; a child that was not
	 * seen blocked (its /proc is another namespace's) may still be on
	 * its way: a few tries, 1 s in all. */
	for (int i = 0; i < 100 && pid == -ESRCH; i++) {
		char *text = tracefs_instance_file_read(s->inst, "trace", NULL);

		if (!text)
			break;
		pid = marker_pid_parse(text, tag);
		free(text);
		if (pid == -ESRCH)
			usleep(10000);
	}
	if (tracefs_trace_off(s->inst) < 0 && pid > 0)
		pid = -errno;
	/* Opening "trace" for writing with O_TRUNC empties the buffer. */
	if (tracefs_instance_file_clear(s->inst, "trace") < 0 && pid > 0)
		pid = -errno;
	if (pid < 0)
		ftr_err("cannot learn the kernel's pid of '%s' from '%s/trace_marker': %s", tag,
			s->inst_dir, strerror(-pid));
	return pid;
}

/* ---- ftr reset ---------------------------------------------------------------- */

static bool stale(const char *name)
{
	return !ftr_name_is_live(name);
}

/* A stale run's lock file goes with what it made; lock files whose run made
 * nothing (killed before its first change) go too. */
static void reset_locks(bool dry_run)
{
	DIR *d = opendir(FTR_RUN_DIR);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char name[256], path[PATH_MAX];
		size_t n = strlen(de->d_name);

		if (n < 6 || n - 5 >= sizeof(name) || strcmp(de->d_name + n - 5, ".lock"))
			continue;
		memcpy(name, de->d_name, n - 5);
		name[n - 5] = '\0';
		if (ftr_name_parse(name, &(int){ 0 }, &(unsigned long){ 0 }) == 0 &&
		    lock_says(name, path, sizeof(path)) == 0 && !dry_run)
			unlink(path);
	}
	if (d)
		closedir(d);
}

/* libtracefs 1.6.4 does not list the dynamic event types it cannot spell
 * (fprobes, "f:GRP/EV ...", docs/libraries.md L9): ftr's are found in
 * dynamic_events and removed by "-:GRP/EV", which takes any type. */
static void reset_raw_dynevents(const struct ftr_tracefs *t, bool dry_run, FILE *report,
				int *removed, int *failed)
{
	char path[PATH_MAX + 32], *text, *save = NULL;

	snprintf(path, sizeof(path), "%s/dynamic_events", t->path);
	text = read_file(path, NULL);
	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		char sys[128], ev[128], del[300];
		int fd;

		if (l[0] != 'f' || sscanf(l, "%*[^:]:%127[^/]/%127s", sys, ev) != 2 || !stale(sys))
			continue;
		fprintf(report, "%s dynamic event %s/%s\n", dry_run ? "would remove" : "removed",
			sys, ev);
		if (dry_run) {
			(*removed)++;
			continue;
		}
		snprintf(del, sizeof(del), "-:%s/%s", sys, ev);
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd >= 0 && write(fd, del, strlen(del)) == (ssize_t)strlen(del)) {
			(*removed)++;
		} else {
			ftr_err("cannot remove dynamic event '%s/%s': %s", sys, ev, strerror(errno));
			(*failed)++;
		}
		if (fd >= 0)
			close(fd);
	}
	free(text);
}

/*
 * A killed run's function tracer: options/func_stack_trace is one flag for
 * every instance (trace_functions.c, func_flags), which the run set for
 * kstack and would have restored; left on, the next user of the function
 * tracer anywhere gets a stack per call.  Cleared while the dead instance
 * still runs the tracer (func_set_flag changes nothing otherwise), then the
 * tracer stopped, before the filter goes with the instance.
 */
static void reset_function_tracer(struct tracefs_instance *inst, FILE *report)
{
	char *tracer = tracefs_instance_file_read(inst, "current_tracer", NULL);
	char *stack = tracefs_instance_file_read(inst, "options/func_stack_trace", NULL);

	if (tracer && !strcmp(tracer, "function\n") && stack && atoi(stack) == 1 &&
	    tracefs_instance_file_write(inst, "options/func_stack_trace", "0") > 0)
		fprintf(report, "cleared options/func_stack_trace (global) that it set\n");
	if (tracer && strncmp(tracer, "nop", 3))
		tracefs_instance_file_write(inst, "current_tracer", "nop");
	free(tracer);
	free(stack);
}

int session_reset(const struct ftr_tracefs *t, bool dry_run, FILE *report)
{
	struct tracefs_dynevent **dyns;
	char **names;
	int removed = 0, failed = 0, knobs;

	/* Instances first: a dynamic event cannot be deleted while an
	 * instance still has it enabled, and removing an instance drops its
	 * events, filters and triggers with it. */
	names = tracefs_instances("^" FTR_NAME_PREFIX);
	for (int i = 0; names && names[i]; i++) {
		struct tracefs_instance *inst;

		if (!stale(names[i]))
			continue;
		fprintf(report, "%s instance %s/instances/%s\n", dry_run ? "would remove" : "removed",
			t->path, names[i]);
		if (dry_run) {
			removed++;
			continue;
		}
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst)
			reset_function_tracer(inst, report);
		if (inst && tracefs_instance_destroy(inst) == 0) {
			removed++;
		} else {
			ftr_err("cannot remove instance '%s': %s", names[i], strerror(errno));
			failed++;
		}
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);

	/* libtracefs 1.6.4 lists a uprobe twice when asked for all types (once
	 * mistyped as a kprobe, docs/libraries.md L2): skip names already handled. */
	dyns = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_ALL, NULL);
	for (int i = 0; dyns && dyns[i]; i++) {
		char *sys = NULL, *ev = NULL, *psys = NULL, *pev = NULL;
		bool dup = false;

		tracefs_dynevent_info(dyns[i], &sys, &ev, NULL, NULL, NULL);
		for (int j = 0; j < i && !dup && sys && ev; j++) {
			tracefs_dynevent_info(dyns[j], &psys, &pev, NULL, NULL, NULL);
			dup = psys && pev && !strcmp(psys, sys) && !strcmp(pev, ev);
			free(psys);
			free(pev);
			psys = pev = NULL;
		}
		if (sys && !dup && stale(sys)) {
			fprintf(report, "%s dynamic event %s/%s\n",
				dry_run ? "would remove" : "removed", sys, ev);
			if (dry_run || tracefs_dynevent_destroy(dyns[i], true) == 0) {
				removed++;
			} else {
				ftr_err("cannot remove dynamic event '%s/%s': %s", sys, ev,
					strerror(errno));
				failed++;
			}
		}
		free(sys);
		free(ev);
	}
	tracefs_dynevent_list_free(dyns);
	reset_raw_dynevents(t, dry_run, report, &removed, &failed);
	removed += expedite_reset(dry_run, report);
	/* after the instances: a killed run's tracer is gone with its
	 * instance before the knobs it read are put back */
	knobs = knobs_reset(dry_run, report);
	if (knobs > 0)
		removed += knobs;
	if (!failed)
		reset_locks(dry_run);
	return failed ? -EIO : removed;
}
