// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rusage CMD [ARGS]: run CMD, then print to stderr the CPU time and peak RSS
 * of CMD and every descendant it waited for ("rusage: user=U sys=S
 * maxrss_kb=M").  For the benchmarks.  Exits with CMD's status.
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: rusage CMD [ARGS]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	getrusage(RUSAGE_CHILDREN, &ru);
	fprintf(stderr, "rusage: user=%.6f sys=%.6f maxrss_kb=%ld\n",
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
