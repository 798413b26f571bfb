// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl - manage mqstripe striped block devices (/dev/mqstripeN)
 *
 * The command table and the global options; each command lives in its own
 * file (create.c, stop.c, list.c, status.c...) whose header (create.h...)
 * declares its handler, declares its options next to its variables and
 * prints through one-line errors (common.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "add.h"
#include "assemble.h"
#include "clear.h"
#include "common.h"
#include "create.h"
#include "errmsg.h"
#include "examine.h"
#include "fault.h"
#include "list.h"
#include "monitor.h"
#include "opts.h"
#include "parse.h"
#include "grow.h"
#include "rename.h"
#include "status.h"
#include "stop.h"
#include "stripectl.h"
#include "sysfs.h"
#include "zero.h"

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
"exclusively: they must not be mounted or held by another exclusive user\n"
"(md, dm, another array, an O_EXCL open; a plain open does not count).\n"
"\n"
"Before the array starts, every member gets a superblock (4 KiB at byte\n"
"4096, see docs/FORMAT.md) with the array's UUID, name and geometry and the\n"
"member's slot and UUID, written and flushed; 'stripectl assemble' starts\n"
"the array again from them, in slot order whatever the device names.\n"
"Members that carry a filesystem, a partition table, an md or LVM\n"
"signature or an mqstripe superblock are refused, naming what was found,\n"
"unless --force wipes it.  A member in use is refused even with --force.\n"
"\n"
"The array uses all of every member after the data offset.  Members of\n"
"unequal size make zones (as md's RAID0): the first stripes over all\n"
"members up to the smallest, the next over the larger ones, and so on;\n"
"create says so in one line.  --size SIZE uses the same part of every\n"
"member instead (one zone).",
		.min_args = 1,
		.max_args = -1,
		.missing = "no members given",
	},
	{
		.name = "assemble",
		.fn = cmd_assemble,
		.args = "[OPTIONS] DEVICE... | --scan [OPTIONS] | --incremental [--change] DEVICE",
		.summary = "start an array from the superblocks on its members",
		.description =
"Start an array from the superblocks on its members and print its device,\n"
"/dev/mqstripeN.  Members are matched by the array UUID and put in the\n"
"order of the slots in their superblocks, never by device name or by the\n"
"order given.  Nothing is started when a slot is missing, two devices\n"
"claim one slot, a device belongs to another array, the superblocks\n"
"disagree on the geometry, a checksum fails, a superblock needs an unknown\n"
"incompatible feature, a member's logical block size grew, a member is\n"
"smaller than the recorded size needs, or a member is stale (its event\n"
"counter behind the others'; --force starts it anyway, saying how far\n"
"behind); the message names the device, slot or member UUID.  The array\n"
"keeps the size its superblocks record, however much the members grew\n"
"(--grow takes their new room).  Starting bumps every member's event\n"
"counter (not with --readonly, which writes nothing to the members).\n"
"\n"
"With --scan, every block device in /proc/partitions is examined and\n"
"every complete array found that is not running is started (one failing\n"
"does not keep the others from starting; of two complete arrays with one\n"
"name neither, a stray disk of an incomplete one is named and left\n"
"alone; an older copy of a member is left out for the newer one, as with\n"
"--incremental); arrays already running are skipped.  With --incremental (for udev), DEVICE is recorded under\n"
"/run/mqstripe (MQSTRIPE_RUN_DIR) and its array starts when the last slot\n"
"arrives; a member of a running array is accepted and nothing done.\n"
"--incremental --change, for udev's change events of device-mapper, md\n"
"and loop devices, leaves an array that 'stripectl stop' stopped since\n"
"boot stopped.\n"
"\n"
"--scan without --name or --uuid and --incremental start only what\n"
"/etc/mqstripe.conf (MQSTRIPE_CONF) allows: with 'AUTO no' there, only\n"
"the arrays its ARRAY lines name (mqstripe.conf(5); 'stripectl examine\n"
"--scan --brief' prints the lines).  Without the file every array may\n"
"start.  DEVICEs given by hand, --name and --uuid start what they name.",
		.min_args = 0,
		.max_args = -1,
	},
	{
		.name = "examine",
		.fn = cmd_examine,
		.args = "[--json | --export] MEMBER | --scan [--brief]",
		.summary = "print the superblock of a member",
		.description =
"Print the mqstripe superblock of MEMBER (docs/FORMAT.md): array UUID and\n"
"name, slot and member UUID, geometry, event counter, state, checksum and\n"
"the member UUIDs of all slots.  Exit status 0 for a valid superblock, 1\n"
"when there is none or it is damaged or unsupported (its fields are still\n"
"printed, and the reason on stderr; with --json a device without one gives\n"
"{\"device\": ..., \"status\": \"none\"}).\n"
"\n"
"With --scan, every block device is examined and one line\n"
"'ARRAY uuid=UUID name=NAME' is printed per array found: the lines that\n"
"/etc/mqstripe.conf takes to let the automatic assembly start it\n"
"(mqstripe.conf(5)); exit status 1 when there is none.",
		.min_args = 0,
		.max_args = 1,
		.missing = "no MEMBER given",
	},
	{
		.name = "zero-superblock",
		.fn = cmd_zero_superblock,
		.args = "MEMBER...",
		.summary = "erase the superblock of members",
		.description =
"Erase the mqstripe superblock (the 4 KiB at byte 4096) of each MEMBER, so\n"
"that it is no longer taken for a member of its array.  Refused while\n"
"MEMBER is in use (in a running array, mounted, ...).  Nothing else on\n"
"the device is changed.",
		.min_args = 1,
		.max_args = -1,
		.missing = "no MEMBER given",
	},
	{
		.name = "stop",
		.fn = cmd_stop,
		.args = "DEVICE | --scan",
		.summary = "stop an array and release its members",
		.description =
"Stop the array DEVICE (/dev/mqstripeN, mqstripeN, a link to the device\n"
"node or the array's name) and release its members.  An array that is\n"
"mounted, open or a member of another array is not stopped; the message\n"
"names the mount point or the holding array.  The data on the members is\n"
"left as it is; their superblocks are marked clean and their event\n"
"counter bumped: 'stripectl assemble' starts the array again (an array\n"
"started with 'assemble --readonly' is stopped without writing to them).\n"
"A member the module reports faulty or gone keeps its superblock as it\n"
"was (a warning names its slot and device; the exit status stays 0): two\n"
"events behind, the next 'assemble' refuses it as stale unless --force.\n"
"\n"
"With --scan, every array not in use is stopped (an array that is a\n"
"member of another after the one on top of it); each one in use is\n"
"named with why, and the exit status is then 1.",
		.min_args = 0,
		.max_args = 1,
		.missing = "no DEVICE given",
	},
	{
		.name = "clear",
		.fn = cmd_clear,
		.args = "ARRAY SLOT",
		.summary = "bring a faulty member back",
		.description =
"A member that the module marked faulty after IO errors (state 'faulty'\n"
"in 'stripectl status'; the array is 'failed') is ok again, and the array\n"
"active when no other member is faulty or gone: for an error that was\n"
"transient (a path, a cable, a controller reset) once the member answers\n"
"again.  Its error counts stay.  Nothing is read or written to check the\n"
"member: check it first (and the data that the failed IO touched).  The\n"
"superblocks of the members that are ok then get one event counter again\n"
"(the member's first): record-fault left it behind, and the next\n"
"'assemble' would refuse it as stale.  A member that is gone (its disk\n"
"went away) cannot be cleared: stop the array and assemble it once the\n"
"disk is back (with --force: it is stale).  ARRAY is /dev/mqstripeN,\n"
"mqstripeN, a link to it or the array's name; SLOT as 'stripectl status'\n"
"shows it.",
		.min_args = 2,
		.max_args = 2,
		.missing = "give ARRAY and SLOT",
	},
	{
		.name = "record-fault",
		.fn = cmd_record_fault,
		.args = "ARRAY",
		.summary = "record in the superblocks that members failed",
		.description =
"The members of the running array ARRAY that the module reports faulty or\n"
"gone are left behind in the superblocks now, not only by the next stop:\n"
"every other member's superblock goes two events ahead (two passes, each\n"
"write flushed, while the array runs), so that after a crash or a power\n"
"cut the next 'assemble' refuses a failed member as stale, naming it (and\n"
"--force starts the array with it anyway), as after a clean stop.  The\n"
"udev rule runs it at the array's member_faulty and member_gone events.\n"
"Each member left behind is named on stdout and in the system log.\n"
"Nothing to record (no member faulty or gone), an array assembled\n"
"--readonly: nothing written, exit 0; every member faulty or gone, or no\n"
"superblock written: exit 1.  'stripectl clear' brings a member back.\n"
"ARRAY is /dev/mqstripeN, mqstripeN, a link to it or the array's name.",
		.min_args = 1,
		.max_args = 1,
		.missing = "no ARRAY given",
	},
	{
		.name = "monitor",
		.fn = cmd_monitor,
		.args = "[OPTIONS] --scan | [OPTIONS] DEVICE...",
		.summary = "report array events to a program, by mail, to syslog",
		.description =
"Watch the arrays and report each event: a member faulty after IO errors\n"
"(member_faulty), a member whose disk went away (member_gone), the array\n"
"failed (array_failed), a member cleared (member_cleared), the array\n"
"renamed (renamed), an array started or stopped (array_started,\n"
"array_stopped), a member slower than the others and back to normal\n"
"(member_slow, member_slow_cleared), a test (test).  Each event is a\n"
"line on stdout and goes to the --program (run as 'CMD EVENT DEVICE\n"
"[SLOT MEMBER]', the event's fields also in MQSTRIPE_* variables; the\n"
"monitor waits for it), to a\n"
"mail to --mail (through 'sendmail -t', MQSTRIPE_SENDMAIL overrides\n"
"/usr/sbin/sendmail) and to syslog (--syslog).  At start it reports what\n"
"is already wrong (faulty or gone members, failed arrays); SIGTERM,\n"
"SIGINT or SIGHUP end it.\n"
"\n"
"--scan watches every array, also those started later, and takes the\n"
"MAILADDR, MAILFROM and PROGRAM lines of /etc/mqstripe.conf\n"
"(MQSTRIPE_CONF; mqstripe.conf(5)); --program and --mail override them.\n"
"DEVICE (/dev/mqstripeN, mqstripeN, a link to it), an array name or UUID\n"
"limits the monitor to those arrays, running or not.  Without --program,\n"
"--mail or --syslog (nor a MAILADDR or PROGRAM line) the events go to\n"
"stdout only; the monitor runs all the same: it records each member\n"
"fault in the superblocks, as record-fault does.",
		.min_args = 0,
		.max_args = -1,
	},
	{
		.name = "rename",
		.fn = cmd_rename,
		.args = "[--force] ARRAY NAME",
		.summary = "give a running array a new name",
		.description =
"The running array ARRAY is named NAME from now on: in the module (sysfs\n"
"mqstripe/name, the uevents: udev moves /dev/stripe/NAME and\n"
"/dev/disk/by-id/mqstripe-name-NAME) and in the superblock of every\n"
"member, so the name lasts.  IO goes on meanwhile; the array may be\n"
"mounted.  NAME is checked as 'create --name' checks it; a name another\n"
"running array has is refused, and one that another array's superblocks\n"
"carry unless --force.  An array assembled --readonly or with a gone\n"
"member is refused: nothing can be written.  A failed superblock write\n"
"puts every superblock and the old name back.  ARRAY is /dev/mqstripeN,\n"
"mqstripeN, a link to it or the array's name.",
		.min_args = 2,
		.max_args = 2,
		.missing = "give ARRAY and NAME",
	},
	{
		.name = "grow",
		.fn = cmd_grow,
		.args = "[--size SIZE] ARRAY",
		.summary = "grow a running array onto its members' new room",
		.description =
"The running array ARRAY takes the room its members gained since it was\n"
"created (a namespace resize, a dm or LVM member extended, a bigger\n"
"cloud volume): every member then gives what the one with the least\n"
"room holds after the data offset, in whole chunks, or --size SIZE in\n"
"all.  The array grows at its end and no data moves, online: it may be\n"
"mounted and in use.  The superblocks record the new size first; a\n"
"change uevent (RESIZE=1) follows, after which the file system on it\n"
"grows with 'xfs_growfs MOUNTPOINT' or 'resize2fs'.  An array never\n"
"shrinks, and one assembled --readonly or with a faulty or gone member\n"
"is refused, and so is an array of members of unequal size (zones:\n"
"not supported yet).  With --on-resize, ARRAY is a member that reported a new\n"
"size (the udev rule runs this): the running array holding it grows\n"
"when mqstripe.conf says GROW auto (mqstripe.conf(5)) and every member\n"
"has room, and in any case says when the member shrank below what the\n"
"array keeps on it (then IO to the array's end fails: give it its size\n"
"back).  ARRAY is /dev/mqstripeN,\n"
"mqstripeN, a link to it or the array's name.",
		.min_args = 1,
		.max_args = 1,
		.missing = "give ARRAY (or, with --on-resize, the member)",
	},
	{
		.name = "add",
		.fn = cmd_add,
		.args = "[--force] ARRAY DEVICE...",
		.summary = "add members to a stopped array, as a segment after its end",
		.description =
"The stopped array ARRAY gets the DEVICEs as new members, in the order\n"
"given, as one more segment after the array's end: they hold only the\n"
"room they bring (all of each after the data offset; devices of unequal\n"
"size make zones within the segment), and nothing already written moves.\n"
"The superblocks of the new members, then of the array's own, record the\n"
"new geometry (docs/FORMAT.md \"Segments\"); the next 'stripectl\n"
"assemble' starts the array with the new capacity, and the file system\n"
"on it then grows with 'xfs_growfs MOUNTPOINT' or 'resize2fs'.  A running\n"
"array is refused (stop it first; adding online is not supported yet),\n"
"and so is one with a member missing, stale or recorded faulty, one of\n"
"format 1 ('assemble --metadata 2' converts it), one of 4 segments or\n"
"of more than 96 members in all.  Each DEVICE is checked as create checks\n"
"a member: a device in use, given twice or a second path of one disk, too\n"
"small for the data offset and a chunk, or whose physical block does not\n"
"fit the chunk and the data offset is refused; so is one that holds a\n"
"file system, a partition table or another array's superblock, unless\n"
"--force wipes it.  A failed write puts every superblock back.  ARRAY is\n"
"the array's name, its UUID or one of its members.",
		.min_args = 2,
		.max_args = -1,
		.missing = "give ARRAY and the DEVICEs to add",
	},
	{
		.name = "list",
		.fn = cmd_list,
		.args = "[OPTIONS]",
		.summary = "list the arrays",
		.description =
"List the arrays, one line each: device, name, UUID, number of members,\n"
"chunk, capacity, state and the member devices by slot.  Sizes in the\n"
"text output are rounded; the JSON output has exact byte counts.",
		.min_args = 0,
		.max_args = 0,
	},
	{
		.name = "status",
		.fn = cmd_status,
		.args = "[--json] DEVICE | --prometheus [DEVICE]",
		.summary = "show an array's geometry, members and queue limits",
		.description =
"Show the array DEVICE (/dev/mqstripeN, mqstripeN, a link to the device\n"
"node or the array's name): name, UUID, state, geometry, the members by\n"
"slot with their member UUIDs (from their superblocks) and error\n"
"counters, and the queue limits the block layer uses\n"
"(/sys/block/mqstripeN/queue).\n"
"\n"
"With --prometheus, metrics in the Prometheus text format for\n"
"node_exporter's textfile collector, of DEVICE or without it of every\n"
"array: mqstripe_array_* (state, read-only, capacity, IO counters from\n"
"/sys/block/mqstripeN/stat) and mqstripe_member_* (state, read, write and\n"
"flush error counters, the member device's IO counters), labelled\n"
"array=\"mqstripeN\" and slot=\"S\"; and the module's own figures of the\n"
"array's IO on each member: the histogram\n"
"mqstripe_member_io_latency_seconds, the gauges\n"
"mqstripe_member_io_array_in_flight and mqstripe_member_slow.",
		.min_args = 0,
		.max_args = 1,
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
		printf("  %-17s%s\n", commands[i].name, commands[i].summary);
	printf("\nOptions:\n"
	       "  -h, --help     show this help\n"
	       "  -V, --version  show the versions of stripectl and of the loaded module\n"
	       "\n"
	       "Run 'stripectl COMMAND --help' for the options of a command.\n"
	       "Commands other than help, --help and --version need root (CAP_SYS_ADMIN).\n"
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
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
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
		{ MQSTRIPE_FEAT_POLL, "poll" },
		{ MQSTRIPE_FEAT_NOWAIT, "nowait" },
		{ MQSTRIPE_FEAT_READONLY, "readonly" },
		{ MQSTRIPE_FEAT_CLEAR, "clear" },
		{ MQSTRIPE_FEAT_RENAME, "rename" },
		{ MQSTRIPE_FEAT_MEMBER_DATA_BYTES, "member_data_bytes" },
		{ MQSTRIPE_FEAT_RESIZE, "resize" },
		{ MQSTRIPE_FEAT_MEMBER_SIZES, "member_sizes" },
		{ MQSTRIPE_FEAT_SEGMENTS, "segments" },
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

/*
 * The output reached stdout, or the exit status says it did not: what a
 * command printed may sit in stdio's buffer until now, and a full disk
 * ("examine --scan > /etc/mqstripe.conf") or a closed pipe shows only
 * when it is written out.  A stdout closed before start (">&-") with
 * nothing to write is no error (as coreutils' close_stdout()).
 */
static int close_stdout(int rc)
{
	bool pending = __fpending(stdout) != 0;
	bool failed = ferror(stdout) != 0;
	int err;

	errno = 0;
	if (fclose(stdout)) {
		err = errno;
		if (!failed && !pending && err == EBADF)
			return rc;
		failed = true;
	} else {
		err = 0;
	}
	if (!failed)
		return rc;
	if (err)
		mqs_error("cannot write to standard output: %s", strerror(err));
	else
		mqs_error("cannot write to standard output");
	return rc == MQS_EXIT_OK ? MQS_EXIT_FAIL : rc;
}

static int run(int argc, char **argv)
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

int main(int argc, char **argv)
{
	return close_stdout(run(argc, argv));
}
