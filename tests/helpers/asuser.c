// SPDX-License-Identifier: GPL-2.0-or-later
/* asuser UID[:GID] CMD [ARGS]: run CMD with uid UID and gid GID (default
 * UID), no supplementary groups (busybox has no setpriv).  Test helper. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;
	char *colon;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID[:GID] CMD [ARGS]\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	colon = strchr(argv[1], ':');
	gid = colon ? (gid_t)atoi(colon + 1) : uid;
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		perror("asuser");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
