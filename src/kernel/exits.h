/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who the tasks that exit were: the kernel's taskstats exit records (a
 * generic netlink family, CONFIG_TASKSTATS), sent from do_exit before the
 * task's /proc entry goes.  uid and gid of a task that exited before ftr
 * read its event are in no other place that user space can read without
 * BPF: /proc/PID is gone once its parent reaped it.  Subscribing costs the
 * kernel one message per exiting task, so only a program that asks
 * (uid, gid, username) subscribes, and only while it runs.
 */
#ifndef FTR_EXITS_H
#define FTR_EXITS_H

#include <stdint.h>

struct task_exits;

struct task_exit {
	int pid, tgid, uid, gid;	/* tgid -1: the kernel's record has none (< 5.19) */
	int ppid;			/* the real parent's tgid */
	char comm[16];			/* its name when it exited */
};

/* Subscribe to every possible CPU's exit records: 0, or -errno
 * (-EAFNOSUPPORT: no networking; -ENOENT: no taskstats family; -EPERM:
 * no CAP_NET_ADMIN, or not in the initial namespaces). */
int task_exits_open(struct task_exits **out);
/* Why task_exits_open failed, in words (its -errno). */
const char *task_exits_why(int err);
/* Unsubscribe and free; NULL is fine. */
void task_exits_close(struct task_exits *tx);
/* Take what the kernel has queued, without waiting, each record stamped
 * with now (CLOCK_MONOTONIC: its task exited at or before now). */
void task_exits_read(struct task_exits *tx);
/* The exit of the task with this pid that had an event at ts (CLOCK_MONOTONIC):
 * 0, or -ENOENT.  Reads first. */
int task_exits_find(struct task_exits *tx, int pid, uint64_t ts, struct task_exit *out);
/* Records the kernel dropped (a full socket), so far. */
unsigned long task_exits_lost(const struct task_exits *tx);

/* For tests: one netlink message from the kernel into *out (the pid's
 * record of a TASKSTATS_CMD_NEW of this family): 1, 0 (another message),
 * -EINVAL.  Pure. */
int task_exits_parse(const void *msg, size_t len, int family, struct task_exit *out);
/* For tests: no socket, family 0; task_exits_note keeps a message as if
 * read at now.  task_exits_close frees it. */
struct task_exits *task_exits_alloc(void);
int task_exits_note(struct task_exits *tx, const void *msg, size_t len, uint64_t now);

#endif
