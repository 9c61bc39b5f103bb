/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session: the only code in ftr that changes kernel state.
 *
 * Every change (the private instance, files written in it, triggers, dynamic
 * events, open buffer fds) goes through here and is recorded in an undo log
 * that session_close() replays in reverse, on normal exit, on every error
 * path and after SIGINT/SIGTERM/SIGHUP (delivered through a signalfd, so
 * cleanup runs in ordinary code, never in a handler).  What a SIGKILLed run
 * leaves is found by its name, ftr_<pid>, and removed by session_reset().
 */
#ifndef FTR_SESSION_H
#define FTR_SESSION_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct tracefs_instance;
struct tracefs_dynevent;

/* ---- where tracefs is ---------------------------------------------------- */

enum tracefs_how {
	TRACEFS_ABSENT = 0,	/* not mounted and could not be mounted */
	TRACEFS_FOUND,		/* already mounted (path from /proc/mounts) */
	TRACEFS_MOUNTED,	/* ftr mounted it at /sys/kernel/tracing */
};

struct ftr_tracefs {
	char path[PATH_MAX];
	enum tracefs_how how;
	int err;		/* -errno when absent */
	char why[256];		/* when absent: why, in words */
};

#define TRACEFS_DEFAULT_PATH "/sys/kernel/tracing"

/* Pure: first tracefs mount point in a /proc/mounts text (octal escapes
 * decoded), preferring TRACEFS_DEFAULT_PATH.  0, or -ENOENT. */
int mounts_find_tracefs(const char *mounts, char *out, size_t outlen);

/* Find tracefs by filesystem type, never by path: an empty unmounted
 * /sys/kernel/tracing is not tracefs.  Mount it when absent and may_mount.
 * Points libtracefs at the result.  0 or -errno (t->why says why). */
int tracefs_locate(struct ftr_tracefs *t, bool may_mount);

/* ---- names ---------------------------------------------------------------- */

#define FTR_NAME_PREFIX "ftr_"
/* "ftr_<pid>" for instances and dynamic-event groups. */
void ftr_name(char *buf, size_t len, int pid);
/* The name of this process's run: "ftr_<pid>" in the initial PID namespace,
 * "ftr_<pid>_<pidns inode>" in any other (two namespaces both have a pid 1:
 * their runs must not share, and destroy, one instance). */
void ftr_name_self(char *buf, size_t len);
/* The pid in a name ftr made ("ftr_123" → 123), else -1. */
int ftr_name_pid(const char *name);
/* The pid and namespace (0: the initial one) of "ftr_<pid>[_<ns>]": 0, or
 * -1 when the name is not one ftr makes. */
int ftr_name_parse(const char *name, int *pid, unsigned long *ns);
/* True when pid runs and its comm starts with "ftr": the liveness rule for
 * names without a lock file (runs of older ftr versions) only. */
bool ftr_pid_is_live(int pid);

/*
 * Liveness.  A run holds an flock on FTR_RUN_DIR/<name>.lock from before its
 * first kernel change until its last (the kernel drops the lock when the
 * process dies, SIGKILL included), so `ftr reset` decides by the lock, never
 * by a pid or a comm: a renamed or copied binary, or a run in another PID
 * namespace, stays live.  Names without a lock file fall back to the pid.
 */
#define FTR_RUN_DIR "/run/ftr"
/* Take the lock of name: an fd (O_CLOEXEC), -EBUSY when a live run holds
 * it, other -errno when no lock can be made (no /run: the pid rule then).
 * The file is emptied: it says "running" only once this run does
 * (session_running). */
int ftr_lock_take(const char *name);
/* Whether the run that made name (an instance or a dynamic-event group)
 * still runs.  Names ftr does not make count as live (never touched). */
bool ftr_name_is_live(const char *name);

/* ---- the undo log (pure data; exposed for unit tests) ---------------------- */

enum undo_kind {
	UNDO_RMDIR_INSTANCE,	/* tracefs_instance_destroy + free */
	UNDO_WRITE,		/* write data to file (restores a saved value) */
	UNDO_APPEND,		/* append data to file (e.g. "!hist:..." ) */
	UNDO_DYNEVENT,		/* tracefs_dynevent_destroy + free */
	UNDO_CLOSE,		/* close an fd that pins the instance */
	UNDO_FUNC,		/* call a function (commands' own cleanup) */
};

struct undo {
	enum undo_kind kind;
	char *path;		/* absolute path, for messages and --explain */
	char *data;
	int fd;
	void *obj;
	void (*fn)(void *);
};

struct undo_log {
	struct undo *v;
	size_t n, cap;
};

int undo_push(struct undo_log *log, const struct undo *u);	/* copies strings */
/* Replays in reverse order, calling run() on each entry; frees the log. */
void undo_replay(struct undo_log *log, int (*run)(struct undo *, void *), void *ctx);

/* ---- the session ---------------------------------------------------------- */

enum {
	SESSION_EXPLAIN = 1 << 0,	/* print each change as a shell command */
	SESSION_DRY_RUN = 1 << 1,	/* print, do not change anything */
	SESSION_NO_MOUNT = 1 << 2,	/* do not mount tracefs when absent */
	SESSION_EMIT_SH = 1 << 3,	/* dry run, the changes kept for session_script() */
};

struct session;

/* Locate (mount) tracefs and arm signal handling.  Prints its own errors. */
int session_open(struct session **sp, unsigned flags);
void session_close(struct session *s);
/* SESSION_EMIT_SH: a POSIX sh script making the session's changes with echo
 * alone, undoing them on exit or on a signal, and running body (shell
 * lines) in between.  0 / -errno. */
int session_script(struct session *s, FILE *out, const char *body);

const struct ftr_tracefs *session_tracefs(const struct session *s);
const char *session_name(const struct session *s);	/* "ftr_<pid>" */
bool session_dry_run(const struct session *s);

/* The private instance, created on first use with tracing off.  NULL on
 * error (printed) and in dry-run mode. */
struct tracefs_instance *session_instance(struct session *s);
int session_instance_ready(struct session *s);		/* create it; 0/-errno */

/* Write FILE (relative to the instance) and, if restore is not NULL, record
 * writing restore back at close.  Kernel error_log text is printed on
 * failure. */
int session_write(struct session *s, const char *file, const char *val, const char *restore);
/* The same without restore and without a message: for a setting ftr can do
 * without (the caller says what it does instead). */
int session_try_write(struct session *s, const char *file, const char *val);
/* Append val to FILE of the instance (no restore, no message: a file
 * whose first write recorded the restore, set_ftrace_filter's, whose
 * kernel takes one pattern per write()).  0 / -errno. */
int session_append(struct session *s, const char *file, const char *val);
/* The same for events/SYS/EV/FILE of the instance. */
int session_event_write(struct session *s, const char *sys, const char *ev,
			const char *file, const char *val, const char *restore);
/*
 * Write FILE relative to tracefs's top (a knob every instance shares:
 * osnoise/period_us, tracing_thresh), its value found first restored at
 * close and noted in FTR_RUN_DIR for `ftr reset` (knobs.h), written
 * before the change.  Errors printed.  0 / -errno.
 */
int session_global_write(struct session *s, const char *file, const char *val);
/* Append val to FILE at tracefs's top (set_ftrace_filter's later
 * patterns: the first, truncating write went through
 * session_global_write).  0 / -errno. */
int session_global_append(struct session *s, const char *file, const char *val);
/*
 * The top level's tracer (function_graph before 6.11, which instances do
 * not have), taken when the user allows it: from here the session's
 * tracing_on is also the top level's (turned on at start, put back at
 * close) and its buffers (stream_open) are the top level's.  The tracer's
 * files are written by session_global_write (noted for `ftr reset`).
 */
void session_use_top(struct session *s);
bool session_top(const struct session *s);
/* Append a trigger; its removal ("!spec") is recorded. */
/*
 * Expedited RCU grace periods (src/kernel/expedite.c) while the run adds,
 * pauses or removes ntriggers triggers, when they are many; 0: done (the
 * close ends it too).
 */
void session_expedite(struct session *s, size_t ntriggers);
/* From this many triggers on, a run expedites (each trigger's removal waits
 * for grace periods); below it the waits are few and the system's setting is
 * better left alone. */
#define SESSION_EXPEDITE_TRIGGERS 16
int session_trigger_add(struct session *s, const char *sys, const char *ev, const char *spec);
/* Create a dynamic event (group must be session_name()); destroyed at close. */
int session_dynevent_create(struct session *s, struct tracefs_dynevent *dyn);
/* The same with the place written as `at` instead of dyn's own (a uprobe's
 * "PATH:0xOFF(0xREF)": libtracefs cannot spell a reference counter). */
int session_dynevent_create_at(struct session *s, struct tracefs_dynevent *dyn, const char *at);
/* The same with the whole line written by ftr: "AS:SYS/EV AT ARGS".  For
 * the event types libtracefs 1.6.4 cannot spell (fprobes, "f"): dyn is then
 * only the handle that removes the event ("-:SYS/EV" to dynamic_events,
 * which removes a dynamic event of any type), an eprobe's (docs/libraries.md
 * L9). */
int session_dynevent_create_as(struct session *s, struct tracefs_dynevent *dyn, const char *as,
			       const char *at, const char *args);
/*
 * Remove one of the session's dynamic events and create it again from def,
 * its definition as dynamic_events shows it ("p:ftr_1/vfs_write vfs_write
 * count=$arg3:u64"): the same event, now the newest at its place (the
 * kernel calls a place's kprobes and fprobes newest first).  Its removal at
 * close stays recorded (by name).  Nothing under --explain or a dry run.
 */
int session_dynevent_renew(struct session *s, const char *def);
/* Record an fd opened on the instance; closed before the instance goes. */
void session_track_fd(struct session *s, int fd);
/* Record a function to call at close, in undo order. */
int session_on_close(struct session *s, void (*fn)(void *), void *arg);
/* Turn tracing on in the instance once it is fully configured. */
int session_start(struct session *s);
int session_stop(struct session *s);
/* Stop every event of the instance, triggers included, at once and wait for
 * those in flight: 0, or -EOPNOTSUPP where it cannot (session.c says how). */
int session_freeze(struct session *s);
/*
 * Everything is live (tracing on, triggers continued, BEGIN run, the
 * command let go): the lock file FTR_RUN_DIR/<name>.lock says "running".
 * A watcher cannot tell that from tracing_on: a new instance starts with
 * tracing on, before ftr switches it off to configure it (and the eprobe
 * check turns it on for a moment), so a workload started on tracing_on
 * could run before any event was enabled.
 */
void session_running(struct session *s);

/* While quiet, a failed dynamic event creation prints nothing (probing). */
void session_set_quiet(struct session *s, bool quiet);
bool session_quiet(const struct session *s);

/* Signals: SIGINT, SIGTERM, SIGHUP arrive on this fd (poll it). */
int session_signal_fd(const struct session *s);
/* Reads a pending signal without blocking: its number, or 0. */
int session_pending_signal(struct session *s);
/* For a forked child before exec: restore the signal mask ftr started with. */
void session_child_signals(const struct session *s);

/*
 * Pids in a PID namespace.  The kernel stamps events, and reads
 * set_event_pid, with a task's pid in the initial namespace; inside a
 * container ftr knows other numbers, and its /proc may show no other.
 * session_in_pidns: ftr runs in a PID namespace other than the initial one.
 * A process tells its kernel pid by writing a tag to the instance's
 * trace_marker, which the kernel stamps with that pid:
 * session_marker_open turns the instance on for it and returns the
 * marker's fd (close-on-exec; write "TAG\n" to it, from the process to
 * name); session_marker_pid turns it off again, finds the tag in the
 * buffer, empties the buffer and closes the fd: the kernel pid, or
 * -errno (-ESRCH: the tag never came).
 */
bool session_in_pidns(void);
/* Does /proc show the kernel's pids (the initial namespace's), so that
 * /proc/PID of an event's pid is that task? */
bool session_proc_kernel_pids(void);
int session_marker_open(struct session *s);
int session_marker_pid(struct session *s, int fd, const char *tag);
/* The pid of the line of the trace file's TEXT that carries TAG as its
 * marker (" comm-PID [cpu] ... tracing_mark_write: TAG"), or -ESRCH. */
int marker_pid_parse(const char *text, const char *tag);

/* Remove what killed ftr runs left: instances and dynamic events named
 * ftr_<pid> whose pid no longer runs an ftr.  Returns the number removed or
 * -errno; each removal is reported on `report`. */
int session_reset(const struct ftr_tracefs *t, bool dry_run, FILE *report);

#endif
