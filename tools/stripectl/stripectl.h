/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stripectl.c: the exit status, the command table's entry and each
 * command's handler (create.c, assemble.c, examine.c, zero.c, stop.c,
 * list.c, status.c, clear.c, monitor.c).
 */
#ifndef STRIPECTL_H
#define STRIPECTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "libmqs.h"

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

int cmd_create(const struct cmd *cmd, int argc, char **argv);
int cmd_stop(const struct cmd *cmd, int argc, char **argv);
int cmd_clear(const struct cmd *cmd, int argc, char **argv);
int cmd_monitor(const struct cmd *cmd, int argc, char **argv);
int cmd_rename(const struct cmd *cmd, int argc, char **argv);
int check_name_unused(const char *what, const char *name,
		      const struct mqs_create_req *req, const uint8_t *self,
		      bool force);
int cmd_list(const struct cmd *cmd, int argc, char **argv);
int cmd_status(const struct cmd *cmd, int argc, char **argv);
int status_prometheus(const char *arg);
int cmd_assemble(const struct cmd *cmd, int argc, char **argv);
int cmd_examine(const struct cmd *cmd, int argc, char **argv);
int cmd_zero_superblock(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_H */
