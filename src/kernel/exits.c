// SPDX-License-Identifier: GPL-2.0-or-later
/* Task exit records from taskstats: see exits.h.  Raw generic netlink over
 * an AF_NETLINK socket (a few messages; libnl would cost the static binary
 * more than this file). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "kernel/exits.h"
#include "ftr.h"

/* The last exits, oldest first from head: enough for the exits of one
 * turn of the run loop on a busy machine. */
#define NREC 4096

struct rec {
	struct task_exit x;
	uint64_t seen;		/* CLOCK_MONOTONIC when read: the exit was before */
};

struct task_exits {
	int fd, family;
	char mask[64];		/* the CPUs subscribed, as the kernel parses them */
	unsigned long lost;
	unsigned head, n;
	struct rec r[NREC];
};

#define GENL_ATTRS(nh) ((char *)NLMSG_DATA(nh) + GENL_HDRLEN)

static void *put_attr(struct nlmsghdr *nh, int type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)nh + NLMSG_ALIGN(nh->nlmsg_len));

	a->nla_type = (uint16_t)type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	nh->nlmsg_len = NLMSG_ALIGN(nh->nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

/* One request with one attribute; the kernel's answer (a message of
 * family type) into buf when reply, else its ack: 0 or -errno. */
static int request(int fd, int family, int cmd, int attr, const void *data, size_t len,
		   char *buf, size_t size, bool reply)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr g;
		char attrs[128];
	} m = { .nh = { .nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN), .nlmsg_type = (uint16_t)family,
			.nlmsg_flags = NLM_F_REQUEST | (reply ? 0 : NLM_F_ACK), .nlmsg_seq = 1 },
		.g = { .cmd = (uint8_t)cmd, .version = 1 } };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };

	if (len > sizeof(m.attrs) - NLA_HDRLEN)
		return -EINVAL;
	put_attr(&m.nh, attr, data, len);
	if (sendto(fd, &m, m.nh.nlmsg_len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		return -errno;
	/* Exit records may come first once subscribed: wait for ours (seq 1). */
	for (;;) {
		ssize_t r = recv(fd, buf, size, 0);
		struct nlmsghdr *nh = (struct nlmsghdr *)buf;

		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (!NLMSG_OK(nh, (size_t)r) || nh->nlmsg_seq != 1)
			continue;
		if (nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = NLMSG_DATA(nh);

			return e->error;
		}
		if (reply && nh->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN))
			return 0;
	}
}

/* The attribute of this type among those from a to a + len, or NULL. */
static const struct nlattr *attr(const void *a, size_t len, int type)
{
	const struct nlattr *x = a;

	while (len >= NLA_HDRLEN && x->nla_len >= NLA_HDRLEN && x->nla_len <= len) {
		if ((x->nla_type & NLA_TYPE_MASK) == type)
			return x;
		if ((size_t)NLA_ALIGN(x->nla_len) >= len)
			break;
		len -= NLA_ALIGN(x->nla_len);
		x = (const struct nlattr *)((const char *)x + NLA_ALIGN(x->nla_len));
	}
	return NULL;
}

/* The taskstats family's id, from the generic netlink controller. */
static int family_id(int fd)
{
	char buf[4096];
	struct nlmsghdr *nh = (struct nlmsghdr *)buf;
	int err = request(fd, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
			  TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), buf, sizeof(buf), true);
	const struct nlattr *a;

	if (err)
		return err;
	a = attr(GENL_ATTRS(nh), nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), CTRL_ATTR_FAMILY_ID);
	if (a && a->nla_len >= NLA_HDRLEN + 2)
		return *(const uint16_t *)(a + 1);
	return -ENOENT;
}

struct task_exits *task_exits_alloc(void)
{
	struct task_exits *tx = calloc(1, sizeof(*tx));

	if (tx)
		tx->fd = -1;
	return tx;
}

int task_exits_open(struct task_exits **out)
{
	struct task_exits *tx = task_exits_alloc();
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int sz = 8 << 20, err;
	char buf[256], *p;

	*out = NULL;
	if (!tx)
		return -ENOMEM;
	tx->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (tx->fd < 0 || bind(tx->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		goto fail;
	}
	/* Room for the exits of a busy second (a record is ~1 KB queued);
	 * a full socket drops the newest, the ones wanted. */
	if (setsockopt(tx->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		setsockopt(tx->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	setsockopt(tx->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	err = family_id(tx->fd);
	if (err < 0)
		goto fail;
	tx->family = err;
	/* Every possible CPU: a record goes to the listeners of the CPU the
	 * task exits on. */
	p = read_file("/sys/devices/system/cpu/possible", NULL);
	snprintf(tx->mask, sizeof(tx->mask), "%s", p ? str_trim(p) : "0");
	if (!p) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		snprintf(tx->mask, sizeof(tx->mask), "0-%ld", n > 1 ? n - 1 : 0);
	}
	free(p);
	err = request(tx->fd, tx->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		      tx->mask, strlen(tx->mask) + 1, buf, sizeof(buf), false);
	if (err < 0)
		goto fail;
	*out = tx;
	return 0;
fail:
	if (tx->fd >= 0)
		close(tx->fd);
	free(tx);
	return err;
}

const char *task_exits_why(int err)
{
	switch (err) {
	case -ENOSYS:		/* no socket(2) at all: CONFIG_NET is off */
	case -EAFNOSUPPORT:
	case -EPROTONOSUPPORT:
		return "no networking in this kernel, which taskstats needs";
	case -ENOENT:
		return "no taskstats in this kernel (CONFIG_TASKSTATS)";
	case -EPERM:
		return "subscribing needs CAP_NET_ADMIN";
	case -EINVAL:
		return "the kernel takes subscriptions only from the initial user and pid "
		       "namespaces";
	default:
		return strerror(-err);
	}
}

void task_exits_close(struct task_exits *tx)
{
	char buf[256];

	if (!tx)
		return;
	/* Else the kernel keeps the listener until a send to it fails. */
	if (tx->fd >= 0)
		request(tx->fd, tx->family, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		tx->mask, strlen(tx->mask) + 1, buf, sizeof(buf), false);
	if (tx->fd >= 0)
		close(tx->fd);
	free(tx);
}

#define HAS(len, field) ((len) >= offsetof(struct taskstats, field) + \
			 sizeof(((struct taskstats *)0)->field))
#define GET32(s, field) (*(const uint32_t *)((const char *)(s) + \
					     offsetof(struct taskstats, field)))

int task_exits_parse(const void *msg, size_t len, int family, struct task_exit *out)
{
	const struct nlmsghdr *nh = msg;
	const struct genlmsghdr *g;
	const struct nlattr *aggr, *pid, *st;
	const void *s;
	size_t slen;

	if (len < NLMSG_LENGTH(GENL_HDRLEN) || nh->nlmsg_len > len ||
	    nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EINVAL;
	g = NLMSG_DATA(nh);
	if (nh->nlmsg_type != family || g->cmd != TASKSTATS_CMD_NEW)
		return 0;
	aggr = attr(GENL_ATTRS(nh), nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
		    TASKSTATS_TYPE_AGGR_PID);
	if (!aggr)
		return 0;
	pid = attr(aggr + 1, aggr->nla_len - NLA_HDRLEN, TASKSTATS_TYPE_PID);
	st = attr(aggr + 1, aggr->nla_len - NLA_HDRLEN, TASKSTATS_TYPE_STATS);
	if (!pid || !st || pid->nla_len < NLA_HDRLEN + 4)
		return -EINVAL;
	s = (const char *)st + NLA_HDRLEN;
	slen = st->nla_len - NLA_HDRLEN;
	if (!HAS(slen, ac_pid))
		return -EINVAL;
	out->pid = (int)*(const uint32_t *)(pid + 1);
	out->uid = (int)GET32(s, ac_uid);
	out->gid = (int)GET32(s, ac_gid);
	out->tgid = HAS(slen, ac_tgid) ? (int)GET32(s, ac_tgid) : -1;
	out->ppid = (int)GET32(s, ac_ppid);	/* beside ac_pid since version 1 */
	/* ac_comm comes before ac_pid: there too */
	memcpy(out->comm, s + offsetof(struct taskstats, ac_comm), sizeof(out->comm) - 1);
	out->comm[sizeof(out->comm) - 1] = '\0';
	return 1;
}

int task_exits_note(struct task_exits *tx, const void *msg, size_t len, uint64_t now)
{
	struct rec *e = &tx->r[(tx->head + tx->n) % NREC];
	int r = task_exits_parse(msg, len, tx->family, &e->x);

	if (r != 1)
		return r;
	e->seen = now;
	if (tx->n < NREC)
		tx->n++;
	else
		tx->head = (tx->head + 1) % NREC;
	return 1;
}

void task_exits_read(struct task_exits *tx)
{
	char buf[2048];
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (;;) {
		ssize_t r = tx->fd >= 0 ? recv(tx->fd, buf, sizeof(buf), MSG_DONTWAIT) : 0;

		if (r < 0 && errno == ENOBUFS) {
			tx->lost++;	/* (how many the kernel does not say) */
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		task_exits_note(tx, buf, (size_t)r, now);
	}
}

/* A pid is used again only after the kernel went once round pid_max, so
 * two records of one pid are far apart: the first whose task exited after
 * the event (read at or after its time) is the event's task; none, for
 * an event on the exit path itself after the record was sent: the last. */
int task_exits_find(struct task_exits *tx, int pid, uint64_t ts, struct task_exit *out)
{
	const struct rec *last = NULL;

	task_exits_read(tx);
	for (unsigned i = 0; i < tx->n; i++) {
		const struct rec *e = &tx->r[(tx->head + i) % NREC];

		if (e->x.pid != pid)
			continue;
		last = e;
		if (e->seen >= ts)
			break;
	}
	if (!last)
		return -ENOENT;
	*out = last->x;
	return 0;
}

unsigned long task_exits_lost(const struct task_exits *tx)
{
	return tx->lost;
}
