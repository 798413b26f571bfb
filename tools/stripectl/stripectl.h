/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stripectl.c: the exit status and the command table's entry; each
 * command's handler, cmd_NAME(), is declared in the header of its file
 * (create.h, assemble.h, examine.h, zero.h, stop.h, clear.h, monitor.h,
 * rename.h, list.h, status.h).
 */
#ifndef STRIPECTL_H
#define STRIPECTL_H

/* Exit status, documented in "stripectl --help". */
enum {
	MQS_EXIT_OK = 0,
	MQS_EXIT_FAIL = 1,
	MQS_EXIT_USAGE = 2,
};

struct cmd;
typedef int (*cmd_fn)(const struct cmd *cmd, int argc, char **argv);

/**
 * struct cmd - one stripectl command
 * @name: the word after "stripectl".
 * @fn: handler; gets argv[0] == @name; returns the exit status.
 * @args: synopsis of the arguments after the options.
 * @summary: one line for "stripectl --help".
 * @description: paragraph for "stripectl @name --help".
 * @min_args: fewest positional arguments.
 * @max_args: most positional arguments, -1 for no limit.
 * @missing: message when fewer than @min_args are given.
 */
struct cmd {
	const char *name;
	cmd_fn fn;
	const char *args;
	const char *summary;
	const char *description;
	int min_args;
	int max_args;
	const char *missing;
};

#endif /* STRIPECTL_H */
