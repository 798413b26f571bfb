// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl stop: MQSTRIPE_IOC_REMOVE, retried for a while on EBUSY.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "parse.h"
#include "stripectl.h"

/*
 * udev (blkid, the watch rule) opens a new or just-closed device for a
 * moment: retry EBUSY for this long before calling the device in use.
 */
#define BUSY_RETRY_MS	5000
#define BUSY_STEP_MS	100
#define NODE_GONE_MS	1000

/*
 * devtmpfs and udev remove /dev/mqstripeN with the disk.  Where neither
 * runs, "create" made the node itself: remove it too, but only if it is
 * still the node of the array just stopped.
 */
static void remove_stale_node(uint32_t index, uint32_t major, uint32_t minor)
{
	char path[64];
	struct stat st;
	int waited;

	snprintf(path, sizeof(path), "/dev/%s%u", MQSTRIPE_DISK_PREFIX, index);
	for (waited = 0; waited < NODE_GONE_MS; waited += BUSY_STEP_MS) {
		if (lstat(path, &st))
			return;
		mqs_sleep_ms(BUSY_STEP_MS);
	}
	if (!lstat(path, &st) && S_ISBLK(st.st_mode) &&
	    st.st_rdev == makedev(major, minor))
		unlink(path);
}

int cmd_stop(const struct cmd *cmd, int argc, char **argv)
{
	static const struct opt opts[] = { { 0 } };
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	const char *arg;
	uint32_t index;
	int first, rc, waited;

	switch (opts_parse(cmd, opts, argc, argv, &first)) {
	case OPTS_HELP:
		return MQS_EXIT_OK;
	case OPTS_USAGE:
		return MQS_EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	arg = argv[first];
	rc = ctl_open_or_report(&ctl);
	if (rc)
		return rc;
	rc = mqs_find_array(&ctl, arg, &index, &info);
	if (rc) {
		report_find_error(arg, rc, ctl.kernel_abi);
		mqs_ctl_close(&ctl);
		return MQS_EXIT_FAIL;
	}

	for (waited = 0;; waited += BUSY_STEP_MS) {
		rc = mqs_remove(&ctl, index);
		if (rc != -EBUSY || waited >= BUSY_RETRY_MS)
			break;
		mqs_sleep_ms(BUSY_STEP_MS);
	}
	mqs_ctl_close(&ctl);

	switch (rc) {
	case 0:
		remove_stale_node(index, info.major, info.minor);
		return MQS_EXIT_OK;
	case -EBUSY:
		mqs_error("/dev/%s%u: device is in use (mounted or open): unmount it first (see 'lsblk /dev/%s%u', 'fuser -vm /dev/%s%u')",
			  MQSTRIPE_DISK_PREFIX, index, MQSTRIPE_DISK_PREFIX,
			  index, MQSTRIPE_DISK_PREFIX, index);
		break;
	case -ENODEV:
		mqs_error("%s: no such array: see 'stripectl list'", arg);
		break;
	default:
		report_find_error(arg, rc, ctl.kernel_abi);
		break;
	}
	return MQS_EXIT_FAIL;
}
