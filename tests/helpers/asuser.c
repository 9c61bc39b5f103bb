// SPDX-License-Identifier: GPL-2.0-or-later
/* asuser UID CMD [ARGS]: run CMD with uid and gid UID, no supplementary
 * groups (busybox has no setpriv).  Test helper. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID CMD [ARGS]\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("asuser");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
