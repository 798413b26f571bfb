/* SPDX-License-Identifier: GPL-2.0 */
/* opts.c: command options, their parsing and help text */
#ifndef STRIPECTL_OPTS_H
#define STRIPECTL_OPTS_H

#include <stdbool.h>

struct cmd;

enum opt_type {
	OPT_FLAG,	/* bool */
	OPT_SIZE,	/* uint64_t, mqs_parse_size() */
	OPT_UINT,	/* uint64_t, plain decimal */
	OPT_STR,	/* const char * */
};

/**
 * struct opt - one option of a command, declared by the handler next to
 *	the variable it sets (the nvme-cli argconfig way); the same table makes
 *	the help text.  A table ends with an entry whose @name is NULL.
 * @name: long name, without "--".
 * @short_name: short letter, 0 for none.
 * @type: what @val points to.
 * @val: where the value goes.
 * @given: set to true when the option is on the command line; may be NULL.
 * @argname: "SIZE", "N"... for the help text.
 * @help: one sentence, with the default.
 */
struct opt {
	const char *name;
	int short_name;
	enum opt_type type;
	void *val;
	bool *given;
	const char *argname;
	const char *help;
};

int opts_parse_exit(const struct cmd *cmd, const struct opt *opts, int argc,
		    char **argv, int *first_arg);
void print_cmd_help(const struct cmd *cmd, const struct opt *opts);

#endif /* STRIPECTL_OPTS_H */
