// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for all commands: each handler declares a table of
 * struct opt; this file turns it into getopt_long() options, converts and
 * checks the values, counts the positional arguments against the command
 * table, and prints the help from the same table.  Every mistake is one
 * line on stderr and exit status 2.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "opts.h"
#include "parse.h"
#include "stripectl.h"

#define MAX_OPTS	16
#define HELP_COL	26
#define HELP_WIDTH	79

enum opts_result {
	OPTS_OK,	/* go on with argv[*first_arg..] */
	OPTS_HELP,	/* help printed: exit 0 */
	OPTS_USAGE,	/* message printed: exit 2 */
};

static int opt_val(const struct opt *opts, size_t i)
{
	return opts[i].short_name ? opts[i].short_name : 256 + (int)i;
}

static int find_opt(const struct opt *opts, int val)
{
	size_t i;

	for (i = 0; opts[i].name; i++)
		if (opt_val(opts, i) == val)
			return (int)i;
	return -1;
}

static enum opts_result usage_error(const struct cmd *cmd, const char *what)
{
	mqs_error("%s: %s: see 'stripectl %s --help'", cmd->name, what,
		  cmd->name);
	return OPTS_USAGE;
}

static enum opts_result set_value(const struct opt *o, const char *arg)
{
	char err[MQS_ERR_LEN];
	uint64_t v = 0;
	int rc = 0;

	switch (o->type) {
	case OPT_FLAG:
		*(bool *)o->val = true;
		return OPTS_OK;
	case OPT_STR:
		*(const char **)o->val = arg;
		return OPTS_OK;
	case OPT_SIZE:
		rc = mqs_parse_size(arg, &v, err, sizeof(err));
		break;
	case OPT_UINT:
		rc = mqs_parse_uint(arg, UINT64_MAX, &v, err, sizeof(err));
		break;
	}
	if (rc) {
		mqs_error("--%s: %s", o->name, err);
		return OPTS_USAGE;
	}
	*(uint64_t *)o->val = v;
	return OPTS_OK;
}

/*
 * The work of opts_parse_exit(), with the same arguments.  Returns OPTS_OK,
 * OPTS_HELP (help printed on stdout) or OPTS_USAGE (one line printed on
 * stderr).
 */
static enum opts_result opts_parse(const struct cmd *cmd,
				   const struct opt *opts, int argc, char **argv,
				   int *first_arg)
{
	struct option lopts[MAX_OPTS + 2];
	char sopts[3 * MAX_OPTS + 4], what[MQS_ERR_LEN];
	bool seen[MAX_OPTS] = { false };
	size_t n, s = 0;
	int c, nargs;

	sopts[s++] = ':';	/* ':' for a missing value, not '?' */
	for (n = 0; n < MAX_OPTS && opts[n].name; n++) {
		bool has_arg = opts[n].type != OPT_FLAG;

		lopts[n] = (struct option){
			.name = opts[n].name,
			.has_arg = has_arg ? required_argument : no_argument,
			.val = opt_val(opts, n),
		};
		if (opts[n].short_name) {
			sopts[s++] = (char)opts[n].short_name;
			if (has_arg)
				sopts[s++] = ':';
		}
	}
	lopts[n] = (struct option){ .name = "help", .val = 'h' };
	lopts[n + 1] = (struct option){ 0 };
	sopts[s++] = 'h';
	sopts[s] = '\0';

	opterr = 0;
	optind = 0;	/* glibc: full reinitialisation */
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		int i;

		if (c == 'h') {
			print_cmd_help(cmd, opts);
			return OPTS_HELP;
		}
		if (c == '?') {
			i = find_opt(opts, optopt);
			if (i >= 0)	/* "--json=x" */
				snprintf(what, sizeof(what),
					 "option '--%s' takes no value",
					 opts[i].name);
			else if (optopt == 'h')
				snprintf(what, sizeof(what),
					 "option '--help' takes no value");
			else if (optopt)
				snprintf(what, sizeof(what),
					 "unknown option '-%c'", optopt);
			else
				snprintf(what, sizeof(what),
					 "unknown option '%.*s'",
					 (int)strcspn(argv[optind - 1], "="),
					 argv[optind - 1]);
			return usage_error(cmd, what);
		}
		i = find_opt(opts, c == ':' ? optopt : c);
		if (i < 0)	/* cannot happen: getopt knows only ours */
			return usage_error(cmd, "bad option");
		if (c == ':') {
			snprintf(what, sizeof(what), "--%s needs a value (%s)",
				 opts[i].name, opts[i].argname);
			return usage_error(cmd, what);
		}
		if (seen[i]) {
			snprintf(what, sizeof(what), "--%s given twice",
				 opts[i].name);
			return usage_error(cmd, what);
		}
		seen[i] = true;
		if (opts[i].given)
			*opts[i].given = true;
		if (set_value(&opts[i], optarg) != OPTS_OK)
			return OPTS_USAGE;
	}

	nargs = argc - optind;
	if (nargs < cmd->min_args)
		return usage_error(cmd, cmd->missing);
	if (cmd->max_args >= 0 && nargs > cmd->max_args) {
		snprintf(what, sizeof(what), "unexpected argument '%s'",
			 argv[optind + cmd->max_args]);
		return usage_error(cmd, what);
	}
	*first_arg = optind;
	return OPTS_OK;
}

/**
 * opts_parse_exit() - parse the options of one command, for its handler
 * @cmd: the command (name, positional argument counts).
 * @opts: its options; --help is added.
 * @argc: argument count, argv[0] being the command name.
 * @argv: arguments; permuted so that options may follow positionals.
 * @first_arg: index of the first positional argument.
 *
 * Return: -1 to go on with argv[*first_arg..]; else the exit status for the
 * handler to return: MQS_EXIT_OK when the help was printed on stdout,
 * MQS_EXIT_USAGE when a usage error was printed (one line on stderr).
 */
int opts_parse_exit(const struct cmd *cmd, const struct opt *opts, int argc,
		    char **argv, int *first_arg)
{
	switch (opts_parse(cmd, opts, argc, argv, first_arg)) {
	case OPTS_HELP:
		return MQS_EXIT_OK;
	case OPTS_USAGE:
		return MQS_EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	return -1;
}

/* Print @text from column @col, wrapped at HELP_WIDTH, indented HELP_COL. */
static void print_wrapped(const char *text, int col)
{
	while (*text) {
		int room = HELP_WIDTH - col;
		int len = (int)strlen(text), cut = len;

		if (len > room) {
			for (cut = room; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = (int)strcspn(text, " ");
		}
		printf("%.*s\n", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			printf("%*s", HELP_COL, "");
		col = HELP_COL;
	}
}

void print_cmd_help(const struct cmd *cmd, const struct opt *opts)
{
	char left[64];
	bool sizes = false;
	size_t i;

	printf("Usage: stripectl %s %s\n\n%s\n\nOptions:\n", cmd->name,
	       cmd->args, cmd->description);
	for (i = 0; opts[i].name; i++) {
		const struct opt *o = &opts[i];
		int n;

		if (o->short_name)
			n = snprintf(left, sizeof(left), "  -%c, --%s%s%s",
				     o->short_name, o->name,
				     o->argname ? " " : "",
				     o->argname ? o->argname : "");
		else
			n = snprintf(left, sizeof(left), "      --%s%s%s",
				     o->name, o->argname ? " " : "",
				     o->argname ? o->argname : "");
		if (n >= HELP_COL - 1) {
			printf("%s\n%*s", left, HELP_COL, "");
			n = HELP_COL;
		} else {
			printf("%-*s", HELP_COL, left);
			n = HELP_COL;
		}
		print_wrapped(o->help, n);
		sizes |= o->type == OPT_SIZE;
	}
	printf("%-*s%s\n", HELP_COL, "  -h, --help", "show this help");
	/* what mqs_parse_size() takes; stripectl(8), ARGUMENTS, says the same */
	if (sizes)
		printf("\nSIZE is a number of bytes, or a number with a K, M, G or T suffix (also\n"
		       "KiB, MiB, GiB, TiB; powers of 1024, any case).\n");
}
