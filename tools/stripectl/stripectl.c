// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl - manage mqstripe striped block devices (/dev/mqstripeN)
 *
 * The command table and the global options; each command lives in its own
 * file (create.c, stop.c, status.c), declares its options next to its
 * variables and prints through one-line errors (common.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

static int cmd_help(const struct cmd *cmd, int argc, char **argv);

static const struct cmd commands[] = {
	{
		.name = "create",
		.fn = cmd_create,
		.args = "[OPTIONS] MEMBER...",
		.summary = "create an array over block devices, print its device",
		.description =
"Create a striped (RAID0) array over the MEMBER block devices, which take\n"
"the slots 0, 1, ... in the order given, and print the path of the new\n"
"device, /dev/mqstripeN, on stdout.  The module claims the members\n"
"exclusively: they must not be mounted, open or in another array.\n"
"\n"
"SIZE is a number of bytes, or a number with a K, M or G suffix (also KiB,\n"
"MiB, GiB; powers of 1024, any case).",
		.min_args = 1,
		.max_args = -1,
		.missing = "no members given",
	},
	{
		.name = "stop",
		.fn = cmd_stop,
		.args = "DEVICE",
		.summary = "stop an array and release its members",
		.description =
"Stop the array DEVICE (/dev/mqstripeN, mqstripeN, a link to the device\n"
"node or the array's name) and release its members.  An array that is\n"
"mounted or open is not stopped: unmount it first.  The data on the\n"
"members is left as it is.",
		.min_args = 1,
		.max_args = 1,
		.missing = "no DEVICE given",
	},
	{
		.name = "list",
		.fn = cmd_list,
		.args = "[OPTIONS]",
		.summary = "list the arrays",
		.description =
"List the arrays, one line each: device, name, UUID, number of members,\n"
"chunk, capacity and state.  Sizes in the text output are rounded; the\n"
"JSON output has exact byte counts.",
		.min_args = 0,
		.max_args = 0,
	},
	{
		.name = "status",
		.fn = cmd_status,
		.args = "[OPTIONS] DEVICE",
		.summary = "show an array's geometry, members and queue limits",
		.description =
"Show the array DEVICE (/dev/mqstripeN, mqstripeN, a link to the device\n"
"node or the array's name): name, UUID, state, geometry, the members by\n"
"slot with their error counters, and the queue limits the block layer\n"
"uses (/sys/block/mqstripeN/queue).",
		.min_args = 1,
		.max_args = 1,
		.missing = "no DEVICE given",
	},
	{
		.name = "help",
		.fn = cmd_help,
		.args = "[COMMAND]",
		.summary = "show the help of stripectl or of a command",
		.description = "Show the help of stripectl, or of COMMAND.",
		.min_args = 0,
		.max_args = 1,
	},
};

#define NR_COMMANDS ARRAY_SIZE(commands)

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void print_main_help(void)
{
	size_t i;

	printf("Usage: stripectl [--version] [--help] COMMAND [OPTIONS] [ARGS]\n\n"
	       "Manage mqstripe striped block devices (/dev/mqstripeN) over block\n"
	       "devices such as NVMe namespaces, through %s.\n\n"
	       "Commands:\n", MQS_CONTROL_PATH);
	for (i = 0; i < NR_COMMANDS; i++)
		printf("  %-10s%s\n", commands[i].name, commands[i].summary);
	printf("\nOptions:\n"
	       "  -h, --help     show this help\n"
	       "  -V, --version  show the versions of stripectl and of the loaded module\n"
	       "\n"
	       "Run 'stripectl COMMAND --help' for the options of a command.\n"
	       "Commands other than --help and --version need root (CAP_SYS_ADMIN).\n"
	       "\n"
	       "Exit status: 0 success, 1 failure, 2 usage error (unknown option, missing\n"
	       "or bad argument).  Errors are one line on stderr, \"stripectl: ...\".\n");
}

static int cmd_help(const struct cmd *cmd, int argc, char **argv)
{
	static const struct opt opts[] = { { 0 } };
	const struct cmd *c;
	char name[32], help[] = "--help";
	char *help_argv[] = { name, help, NULL };
	int first;

	switch (opts_parse(cmd, opts, argc, argv, &first)) {
	case OPTS_HELP:
		return MQS_EXIT_OK;
	case OPTS_USAGE:
		return MQS_EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	if (first == argc) {
		print_main_help();
		return MQS_EXIT_OK;
	}
	c = find_cmd(argv[first]);
	if (!c) {
		mqs_error("'%s' is not a stripectl command: see 'stripectl --help'",
			  argv[first]);
		return MQS_EXIT_USAGE;
	}
	snprintf(name, sizeof(name), "%s", c->name);
	return c->fn(c, 2, help_argv);
}

static void print_features(uint64_t features)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ MQSTRIPE_FEAT_DISCARD, "discard" },
		{ MQSTRIPE_FEAT_WRITE_ZEROES, "write_zeroes" },
		{ MQSTRIPE_FEAT_FLUSH_FUA, "flush_fua" },
		{ MQSTRIPE_FEAT_ERROR_MEMBER, "error_member" },
	};
	const char *sep = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (features & names[i].bit) {
			printf("%s%s", sep, names[i].name);
			sep = " ";
		}
	}
	if (features & ~MQSTRIPE_FEAT_ALL)
		printf("%sunknown(0x%llx)", sep,
		       (unsigned long long)(features & ~MQSTRIPE_FEAT_ALL));
	else if (!*sep)
		printf("none");
}

/*
 * stripectl's version, then the loaded module's: from GET_VERSION when
 * the control device answers, else from /sys/module (readable without
 * root), else nothing (the module is not loaded).
 */
static int print_version(void)
{
	struct mqs_ctl ctl;
	char buf[64];
	int rc;

	printf("stripectl %s\n", MQSTRIPE_VERSION);
	rc = mqs_ctl_open(&ctl);
	if (!rc || rc == -EPROTO) {
		printf("mqstripe module %s (ABI version %u",
		       ctl.version.module_version, ctl.version.abi_version);
		if (rc)
			printf(", stripectl has ABI version %u: install matching versions",
			       (unsigned int)MQSTRIPE_ABI_VERSION);
		printf(", features: ");
		print_features(ctl.version.features);
		printf(")\n");
		mqs_ctl_close(&ctl);
	} else if (!mqs_sysfs_read("/sys/module/mqstripe/version", buf,
				   sizeof(buf))) {
		printf("mqstripe module %s\n", buf);
	}
	return MQS_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cmd *cmd;

	if (argc < 2) {
		mqs_error("no command given: see 'stripectl --help'");
		return MQS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_main_help();
		return MQS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return print_version();
	if (argv[1][0] == '-') {
		mqs_error("unknown option '%s': the command comes first, see 'stripectl --help'",
			  argv[1]);
		return MQS_EXIT_USAGE;
	}
	cmd = find_cmd(argv[1]);
	if (!cmd) {
		mqs_error("'%s' is not a stripectl command: see 'stripectl --help'",
			  argv[1]);
		return MQS_EXIT_USAGE;
	}
	return cmd->fn(cmd, argc - 1, argv + 1);
}
