// SPDX-License-Identifier: GPL-2.0-or-later
/* exits.c: taskstats exit records as the kernel sends them (built here),
 * and which record answers for an event when a pid was used twice. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include <cmocka.h>

#include "kernel/exits.h"

struct msg {
	char b[1024];
	size_t len;
};

static struct nlattr *put(struct msg *m, int type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->b + m->len);

	a->nla_type = (uint16_t)type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (data)
		memcpy(a + 1, data, len);
	m->len += NLA_ALIGN(a->nla_len);
	return a;
}

/* TASKSTATS_CMD_NEW of family 0 for pid: AGGR_PID { PID, STATS } with the
 * first slen bytes of a struct taskstats (older kernels send less). */
static void record(struct msg *m, int cmd, int pid, int tgid, int uid, int gid, size_t slen)
{
	struct nlmsghdr *nh = (struct nlmsghdr *)m->b;
	struct genlmsghdr *g = NLMSG_DATA(nh);
	struct taskstats st = { .version = TASKSTATS_VERSION, .ac_pid = (uint32_t)pid,
				.ac_tgid = (uint32_t)tgid, .ac_uid = (uint32_t)uid,
				.ac_gid = (uint32_t)gid };
	uint32_t p = (uint32_t)pid;
	struct nlattr *aggr;

	memset(m->b, 0, sizeof(m->b));
	g->cmd = (uint8_t)cmd;
	m->len = NLMSG_LENGTH(GENL_HDRLEN);
	aggr = put(m, TASKSTATS_TYPE_AGGR_PID, NULL, 0);
	put(m, TASKSTATS_TYPE_PID, &p, sizeof(p));
	put(m, TASKSTATS_TYPE_STATS, &st, slen);
	aggr->nla_len = (uint16_t)(m->b + m->len - (char *)aggr);
	nh->nlmsg_len = (uint32_t)m->len;
}

static void test_bad_messages(void **state)
{
	struct task_exit x;
	struct msg m;

	(void)state;
	record(&m, TASKSTATS_CMD_NEW, 7, 7, 1, 2, sizeof(struct taskstats));
	/* shorter than a header; a length beyond what was read */
	assert_int_equal(task_exits_parse(m.b, 10, 0, &x), -EINVAL);
	assert_int_equal(task_exits_parse(m.b, m.len - 4, 0, &x), -EINVAL);
	/* another family's message, another command: not a record */
	assert_int_equal(task_exits_parse(m.b, m.len, 5, &x), 0);
	record(&m, TASKSTATS_CMD_GET, 7, 7, 1, 2, sizeof(struct taskstats));
	assert_int_equal(task_exits_parse(m.b, m.len, 0, &x), 0);
	/* stats cut before ac_pid */
	record(&m, TASKSTATS_CMD_NEW, 7, 7, 1, 2, offsetof(struct taskstats, ac_uid));
	assert_int_equal(task_exits_parse(m.b, m.len, 0, &x), -EINVAL);
	/* a nested attribute longer than its message */
	record(&m, TASKSTATS_CMD_NEW, 7, 7, 1, 2, sizeof(struct taskstats));
	((struct nlattr *)(m.b + NLMSG_LENGTH(GENL_HDRLEN)))->nla_len = 2000;
	assert_int_equal(task_exits_parse(m.b, m.len, 0, &x), 0);
}

static void test_records(void **state)
{
	struct task_exit x;
	struct msg m;

	(void)state;
	record(&m, TASKSTATS_CMD_NEW, 4100, 4099, 4242, 4343, sizeof(struct taskstats));
	assert_int_equal(task_exits_parse(m.b, m.len, 0, &x), 1);
	assert_int_equal(x.pid, 4100);
	assert_int_equal(x.tgid, 4099);
	assert_int_equal(x.uid, 4242);
	assert_int_equal(x.gid, 4343);
	/* 5.10's record ends before ac_tgid: no tgid */
	record(&m, TASKSTATS_CMD_NEW, 4100, 4099, 4242, 4343, offsetof(struct taskstats, ac_tgid));
	assert_int_equal(task_exits_parse(m.b, m.len, 0, &x), 1);
	assert_int_equal(x.tgid, -1);
	assert_int_equal(x.gid, 4343);
}

/* pid 300 exits three times, read at 10, 20 and 30: an event at 15 is the
 * second task's, one at 20 too (it exited by then), one at 5 the first's;
 * one at 35 is on an exit path, after the last record was read: the last. */
static void test_pid_used_again(void **state)
{
	struct task_exits *tx = task_exits_alloc();
	struct task_exit x;
	struct msg m;

	(void)state;
	assert_non_null(tx);
	assert_int_equal(task_exits_find(tx, 300, 0, &x), -ENOENT);
	for (int i = 1; i <= 3; i++) {
		record(&m, TASKSTATS_CMD_NEW, 301, 301, 0, 0, sizeof(struct taskstats));
		assert_int_equal(task_exits_note(tx, m.b, m.len, 10 * (uint64_t)i), 1);
		record(&m, TASKSTATS_CMD_NEW, 300, 300, i, 100 + i, sizeof(struct taskstats));
		assert_int_equal(task_exits_note(tx, m.b, m.len, 10 * (uint64_t)i), 1);
	}
	assert_int_equal(task_exits_find(tx, 300, 15, &x), 0);
	assert_int_equal(x.uid, 2);
	assert_int_equal(x.gid, 102);
	assert_int_equal(task_exits_find(tx, 300, 20, &x), 0);
	assert_int_equal(x.uid, 2);
	assert_int_equal(task_exits_find(tx, 300, 5, &x), 0);
	assert_int_equal(x.uid, 1);
	assert_int_equal(task_exits_find(tx, 300, 35, &x), 0);
	assert_int_equal(x.gid, 103);
	assert_int_equal(task_exits_find(tx, 302, 15, &x), -ENOENT);
	/* a ring of the last exits: 5000 more push pid 300's out */
	for (int i = 0; i < 5000; i++) {
		record(&m, TASKSTATS_CMD_NEW, 1000 + i, 1000 + i, 0, 0, sizeof(struct taskstats));
		task_exits_note(tx, m.b, m.len, 40);
	}
	assert_int_equal(task_exits_find(tx, 300, 15, &x), -ENOENT);
	assert_int_equal(task_exits_find(tx, 5999, 15, &x), 0);
	task_exits_close(tx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_messages),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_pid_used_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
