// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl stop: learn the members (INFO), MQSTRIPE_IOC_REMOVE, retried
 * for a while on EBUSY, then bump the event counter in every member's
 * superblock and mark it clean, each member claimed exclusively for its
 * write (the module has released them).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "devio.h"
#include "parse.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

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

	mqs_array_node(index, path, sizeof(path));
	for (waited = 0; waited < NODE_GONE_MS; waited += BUSY_STEP_MS) {
		if (lstat(path, &st))
			return;
		mqs_sleep_ms(BUSY_STEP_MS);
	}
	if (!lstat(path, &st) && S_ISBLK(st.st_mode) &&
	    st.st_rdev == makedev(major, minor))
		unlink(path);
}

/*
 * Every member's superblock, in two passes over all members: events + 1
 * (state still active), then events + 1 and state clean.  A member copied
 * (or left out) while the array ran is then two events behind the others,
 * which assemble refuses as stale; a stop cut short leaves at most one
 * event between members, which it accepts (docs/FORMAT.md "Updates").
 * The array is gone already, so a member that cannot be written (it
 * failed, or went away) is a warning, not a failed stop.
 */
static void update_superblocks(const struct mqstripe_info *info,
			       const struct mqstripe_member_info *members,
			       uint32_t nr)
{
	char path[PATH_MAX], why[MQS_ERR_LEN];
	uint32_t i, pass;
	bool *skip;

	skip = calloc(nr ? nr : 1, sizeof(*skip));
	if (!skip) {
		mqs_error("warning: out of memory: the superblocks were not updated; the array is stopped");
		goto out;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			const struct mqstripe_member_info *m = &members[i];
			uint64_t devno = makedev(m->major, m->minor);

			if (skip[i])
				continue;
			if (mqs_find_node(devno, path, sizeof(path))) {
				mqs_error("warning: member %u:%u (slot %u) is gone: its superblock was not updated; the array is stopped (assembling it again takes 'assemble --force')",
					  m->major, m->minor, m->slot);
				skip[i] = true;
				continue;
			}
			if (sb_update_member(path, info->uuid, m->slot,
					     pass ? MQS_SB_STATE_CLEAN :
					     MQS_SB_STATE_ACTIVE,
					     why, sizeof(why)) < 0) {
				mqs_error("warning: %s (slot %u): superblock not updated: %s; the array is stopped (assembling it again may take 'assemble --force')",
					  path, m->slot, why);
				skip[i] = true;
			}
		}
	}
	free(skip);
out:
	incr_forget(info->uuid);
}

int cmd_stop(const struct cmd *cmd, int argc, char **argv)
{
	static const struct opt opts[] = { { 0 } };
	struct mqstripe_member_info *members;
	struct mqstripe_info info;
	char path[32], why[MQS_ERR_LEN];
	char sys[96];
	struct mqs_ctl ctl;
	const char *arg;
	uint32_t index, nr;
	int first, rc, waited, lock;
	uint64_t readonly = 0;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	arg = argv[first];
	/*
	 * The metadata lock from before REMOVE until the superblocks say
	 * clean: no "assemble" in between sees them active and starts the
	 * array again.
	 */
	lock = mqs_meta_lock();
	/* the members, before REMOVE forgets them */
	rc = find_array_or_report(&ctl, arg, &index, &info, &members, &nr);
	if (rc) {
		mqs_meta_unlock(lock);
		return rc;
	}

	/* started with assemble --readonly: its members stay untouched */
	snprintf(sys, sizeof(sys), "/sys/block/%s%u/mqstripe/readonly",
		 MQSTRIPE_DISK_PREFIX, index);
	if (mqs_sysfs_read_u64(sys, &readonly))
		readonly = 0;

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
		if (readonly)
			incr_forget(info.uuid);
		else
			update_superblocks(&info, members, nr);
		mqs_meta_unlock(lock);
		free(members);
		return MQS_EXIT_OK;
	case -EBUSY:
		mqs_array_node(index, path, sizeof(path));
		/* a mount or a holder (another array, md, dm) is named */
		if (mqs_busy_reason(path, why, sizeof(why)))
			mqs_error("%s: device is busy: %s", path, why);
		else
			mqs_error("%s: device is in use (mounted or open): unmount it first (see 'lsblk %s', 'fuser -vm %s')",
				  path, path, path);
		break;
	case -ENODEV:
		mqs_error("%s: no such array: see 'stripectl list'", arg);
		break;
	default:
		report_find_error(arg, rc, ctl.kernel_abi);
		break;
	}
	mqs_meta_unlock(lock);
	free(members);
	return MQS_EXIT_FAIL;
}
