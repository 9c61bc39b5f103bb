/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command table: one cmd-<x>.c per subcommand, each exposing cmd_<x>(). */
#ifndef FTR_CMD_H
#define FTR_CMD_H

#include <stdbool.h>
#include <stddef.h>

struct option;

struct ftr_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_doctor(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_funccount(int argc, char **argv);
int cmd_functrace(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_funcslower(int argc, char **argv);
int cmd_latency(int argc, char **argv);

/* The usage error every command shares: message, hint, exit code 2. */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long with ftr's conventions (leading '+', ':' for missing args):
 * reports unknown options and missing arguments itself, returning '?'. */
int cmd_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* -p PID: an existing process into *pid.  -1 to go on, else the exit code
 * of the error it reported (a bad pid: usage; no such process: failure). */
int cmd_pid_opt(const char *cmd, const char *arg, int *pid);
struct program;
/* bpftrace's -p: its checks and messages ("ERROR: Failed to parse pid:
 * invalid integer: a1"), then cmd_pid_opt's.  -1 to go on, else the exit
 * code. */
int cmd_bt_pid_opt(const char *arg, int *pid);
/* bpftrace's options of ftr -e / ftr FILE (src/cmd/run-bt.c): 'k', 'I' and
 * these.  -1 to go on, else the exit code of the error it reported. */
enum { CMD_BT_NO_WARNINGS = 2000, CMD_BT_INCLUDE, CMD_BT_MODE, CMD_BT_TRACEABLE,
       CMD_BT_PROBE_FILTER };
int cmd_bt_option(int c, const char *arg);
/* --probe-filter REGEX on a parsed program: 0, or -1 (printed) for a bad
 * regex or when no probe is left but begin/end. */
int cmd_bt_probe_filter(struct program *prog, const char *regex);
/* BPFTRACE_* variables that would change an answer: 0, or -1 (said) for one
 * ftr cannot honour */
int cmd_bt_env_check(void);
/* getopt()'s named parameters after "--" (run-bt.c): the program parsed again
 * with them, *cmdv emptied; 0, or <0 with the error said (prog freed). */
int cmd_bt_named_params(const char *file, const char *text, char **params, int *nparams,
			char ***cmdv, struct program *prog, char **owned);
/* The command after the options (and a "--"), or NULL if none is given. */
char **cmd_command_args(int argc, char **argv);

/* The options and operands ftrace's function-tracer commands share
 * (funccount, functrace, graph, funcslower): -d TIME, -p PID,
 * --max-funcs N, -E into o and *max_funcs.  -1 to go on, else the exit
 * code of the error it reported (an option none of them knows: usage). */
struct engine_opts;
int cmd_fn_opt(const char *cmd, int ch, const char *arg, struct engine_opts *o,
	       size_t *max_funcs);
/* A PATTERN operand appended to the space-separated filter (*used bytes
 * of size): -1 to go on, else the usage error it reported. */
int cmd_fn_pattern(const char *cmd, const char *arg, char *filter, size_t size, size_t *used);

/* --serve ADDR:PORT ('s'), --prom-file FILE ('f'), the file's --interval
 * ('i') into o: 0, or the exit code of the error it reported. */
struct run_opts;
int cmd_metrics_opt(const char *cmd, int which, const char *arg, struct run_opts *o);


#endif
