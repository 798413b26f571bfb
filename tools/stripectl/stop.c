// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl stop: learn the members (INFO), MQSTRIPE_IOC_REMOVE, retried
 * for a while on EBUSY, then bump the event counter in every member's
 * superblock and mark it clean, each member claimed exclusively for its
 * write (the module has released them); members the module reported
 * faulty or gone are left as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "assemble.h"
#include "common.h"
#include "fault.h"
#include "devio.h"
#include "opts.h"
#include "parse.h"
#include "sbwrite.h"
#include "stop.h"
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
 * Say on stderr which member is left out (slot, device, why) and what the
 * next assemble does with it.  @all: every member is left out, so none
 * moves ahead of it.
 */
static void report_left_out(const struct mqstripe_member_info *m, bool all)
{
	char path[PATH_MAX], dev[PATH_MAX];

	if (mqs_find_node(makedev(m->major, m->minor), path, sizeof(path)))
		snprintf(dev, sizeof(dev), "member");
	else
		snprintf(dev, sizeof(dev), "%s", path);
	if (all)
		mqs_error("warning: %s (slot %u, %u:%u) is %s: its superblock was not updated, nor any other member's (every member is faulty or gone); the array is stopped",
			  dev, m->slot, m->major, m->minor,
			  m->state == MQSTRIPE_MEMBER_GONE ? "gone" : "faulty");
	else
		mqs_error("warning: %s (slot %u, %u:%u) is %s: its superblock was not updated, so it stays two events behind the others; the array is stopped; 'stripectl assemble' refuses it as a stale member (replace it, or start the array with it anyway with 'stripectl assemble --force')",
			  dev, m->slot, m->major, m->minor,
			  m->state == MQSTRIPE_MEMBER_GONE ?
			  "gone (its disk went away)" :
			  "faulty (the module saw IO errors on it)");
}

/*
 * Every member's superblock, in two passes over all members: events + 1
 * (state still active), then events + 1 and state clean
 * (sb_update_members()).  Members the module reported faulty or gone are
 * not written at all (report_left_out()).  The array is gone already, so
 * a member that is left out or cannot be written (it failed, or went
 * away) is a warning, not a failed stop.
 */
static void update_superblocks(const struct mqstripe_info *info,
			       const struct mqstripe_member_info *members,
			       uint32_t nr)
{
	uint32_t i, failed = 0;
	bool *skip;

	skip = calloc(nr ? nr : 1, sizeof(*skip));
	if (!skip) {
		mqs_error("warning: out of memory: the superblocks were not updated; the array is stopped");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		skip[i] = member_failed(&members[i]);
		failed += skip[i];
	}
	for (i = 0; i < nr; i++)
		if (skip[i])
			report_left_out(&members[i], failed == nr);
	sb_update_members(info->uuid, members, skip, nr, MQS_SB_STATE_CLEAN,
			  false, "the array is stopped");
	free(skip);
out:
	incr_stopped(info->uuid);
}

/*
 * stop_one() - stop one array and update its superblocks
 * @arg: the array as the user names it (also "mqstripeN").
 * @retry_ms: how long a busy array is retried (udev probing a new array
 *	holds it for a moment).
 * @report_busy: say why when it stays busy.
 *
 * Return: 0, -EBUSY (in use), or -EINVAL for any other failure (said).
 */
static int stop_one(const char *arg, int retry_ms, bool report_busy)
{
	struct mqstripe_member_info *members;
	struct mqstripe_info info;
	char path[32], why[MQS_ERR_LEN];
	struct mqs_ctl ctl;
	uint32_t index, nr;
	int rc, waited, lock;
	bool readonly;

	/*
	 * The metadata lock from before REMOVE until the superblocks say
	 * clean: no "assemble" in between sees them active and starts the
	 * array again.
	 */
	lock = mqs_meta_lock(false);
	if (lock == -ETIMEDOUT)
		return -EINVAL;
	/* the members, before REMOVE forgets them */
	rc = find_array_or_report(&ctl, arg, &index, &info, &members, &nr);
	if (rc) {
		mqs_meta_unlock(lock);
		return -EINVAL;
	}
	/* started with assemble --readonly: its members stay untouched */
	readonly = mqs_array_readonly(index);

	for (waited = 0;; waited += BUSY_STEP_MS) {
		rc = mqs_remove(&ctl, index);
		if (rc != -EBUSY || waited >= retry_ms)
			break;
		mqs_sleep_ms(BUSY_STEP_MS);
	}
	mqs_ctl_close(&ctl);

	switch (rc) {
	case 0:
		remove_stale_node(index, info.major, info.minor);
		if (readonly)
			incr_stopped(info.uuid);
		else
			update_superblocks(&info, members, nr);
		break;
	case -EBUSY:
		if (!report_busy)
			break;
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
		rc = -EINVAL;
		break;
	default:
		report_find_error(arg, rc, ctl.kernel_abi);
		rc = -EINVAL;
		break;
	}
	mqs_meta_unlock(lock);
	free(members);
	return rc;
}

/*
 * stop --mark-clean (the shutdown's last resort, mqstripe.shutdown): the
 * array @index is still in use, by read-only mounts alone (the root file
 * system remounted read-only): flushed, then its superblocks marked clean
 * in two passes while it runs, as a stop marks them; members the module
 * reports faulty or gone stay behind.  Return: true when marked.
 */
static bool mark_clean(uint32_t index, const char *path)
{
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	char arg[32];
	uint32_t nr, i, written = 0;
	bool *skip = NULL;
	int lock, fd;

	lock = mqs_meta_lock(false);
	if (lock == -ETIMEDOUT)
		return false;
	mqs_array_kname(index, arg, sizeof(arg));
	if (find_array_or_report(&ctl, arg, &index, &info, &members, &nr))
		goto out_unlock;
	if (mqs_array_readonly(index) ||
	    !mqs_only_readonly_mounts(info.major, info.minor))
		goto out;
	skip = calloc(nr ? nr : 1, sizeof(*skip));
	if (!skip)
		goto out;
	/* what the read-only file system left in the members' caches */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd)) {
		mqs_error("warning: %s: cannot flush it: %s; its superblocks still say active",
			  path, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	for (i = 0; i < nr; i++)
		skip[i] = member_failed(&members[i]);
	written = sb_update_members(info.uuid, members, skip, nr,
				    MQS_SB_STATE_CLEAN, true,
				    "the array is left running");
out:
	free(skip);
	free(members);
	mqs_ctl_close(&ctl);
out_unlock:
	mqs_meta_unlock(lock);
	return written > 0;
}

/*
 * stop --scan --skip-busy (the shutdown's): an array still in use is left
 * running, with a note instead of an error.  One that is mounted or held
 * (a holder or a mount named by mqs_busy_reason()) is left at once; one
 * open by no visible user (udev probing it after an unmount) gets the
 * usual retry first.  @quiet: no note (a stop before the network goes
 * down, while the local file systems are still mounted: the stop after
 * them names what is left).  @clean: one used by read-only mounts alone
 * gets clean superblocks (mark_clean()).
 */
static int leave_busy(const char *arg, uint32_t index, bool quiet, bool clean)
{
	char path[32], why[MQS_ERR_LEN];
	int rc;

	mqs_array_node(index, path, sizeof(path));
	if (!mqs_busy_reason(path, why, sizeof(why))) {
		rc = stop_one(arg, BUSY_RETRY_MS, false);
		if (rc != -EBUSY)
			return rc;
	}
	if (clean && mark_clean(index, path)) {
		if (!quiet)
			mqs_error("note: %s left running: %s; read-only to the end, its superblocks are marked clean",
				  path, why);
		return 0;
	}
	if (!quiet)
		mqs_error("note: %s left running: %s; its superblocks still say active, so the next assembly says it was not stopped cleanly",
			  path, why);
	/* a member failed: recorded, if udev did not (no udevd any more) */
	record_faults_of(index, true);
	return 0;
}

/*
 * stop --scan: every array that is not in use.  Arrays stacked on arrays
 * are stopped top first: passes without waiting repeat while one stops
 * something; what is still busy then gets the usual retry and message,
 * or with @skip_busy is left running (leave_busy(), @quiet, @clean).
 */
static int stop_scan(bool skip_busy, bool quiet, bool clean)
{
	uint32_t *idx = NULL, n = 0, i, left;
	char arg[32];
	bool progress;
	int rc, ret = MQS_EXIT_OK;
	struct mqs_ctl ctl;

	if (ctl_open_or_report(&ctl))
		return MQS_EXIT_FAIL;
	rc = mqs_list(&ctl, &idx, &n);
	mqs_ctl_close(&ctl);
	if (rc) {
		report_ctl_error("list", rc, ctl.kernel_abi);
		return MQS_EXIT_FAIL;
	}
	left = n;
	do {
		progress = false;
		for (i = 0; i < n; i++) {
			if (idx[i] == UINT32_MAX)
				continue;
			mqs_array_kname(idx[i], arg, sizeof(arg));
			rc = stop_one(arg, 0, false);
			if (rc == -EBUSY)
				continue;
			if (rc)
				ret = MQS_EXIT_FAIL;
			else
				progress = true;
			idx[i] = UINT32_MAX;
			left--;
		}
	} while (progress && left);
	for (i = 0; i < n; i++) {
		if (idx[i] == UINT32_MAX)
			continue;
		mqs_array_kname(idx[i], arg, sizeof(arg));
		if (skip_busy ? leave_busy(arg, idx[i], quiet, clean) :
				stop_one(arg, BUSY_RETRY_MS, true))
			ret = MQS_EXIT_FAIL;
	}
	free(idx);
	return ret;
}

int cmd_stop(const struct cmd *cmd, int argc, char **argv)
{
	bool scan = false, skip_busy = false, quiet = false, clean = false;
	const struct opt opts[] = {
		{ "scan", 's', OPT_FLAG, &scan, NULL, NULL,
		  "stop every array that is not in use (arrays on arrays top first); one in use is named with why, and the exit status is 1" },
		{ "skip-busy", 0, OPT_FLAG, &skip_busy, NULL, NULL,
		  "with --scan (what mqstripe-stop.service and mqstripe-netdev.service run at shutdown): an array in use is left running with a note saying why, and does not make the exit status 1" },
		{ "quiet", 'q', OPT_FLAG, &quiet, NULL, NULL,
		  "with --skip-busy: no note for the arrays left running" },
		{ "mark-clean", 0, OPT_FLAG, &clean, NULL, NULL,
		  "with --skip-busy (the shutdown's last step, mqstripe.shutdown): an array left running whose only users are read-only mounts (the root file system remounted read-only) is flushed and its superblocks marked clean" },
		{ 0 }
	};
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (scan && first < argc) {
		mqs_error("stop: unexpected argument '%s' with --scan: see 'stripectl stop --help'",
			  argv[first]);
		return MQS_EXIT_USAGE;
	}
	if (skip_busy && !scan) {
		mqs_error("stop: --skip-busy goes with --scan: see 'stripectl stop --help'");
		return MQS_EXIT_USAGE;
	}
	if ((quiet || clean) && !skip_busy) {
		mqs_error("stop: %s goes with --skip-busy: see 'stripectl stop --help'",
			  quiet ? "--quiet" : "--mark-clean");
		return MQS_EXIT_USAGE;
	}
	if (scan)
		return stop_scan(skip_busy, quiet, clean);
	if (first >= argc) {
		mqs_error("stop: no DEVICE given (or --scan): see 'stripectl stop --help'");
		return MQS_EXIT_USAGE;
	}
	return stop_one(argv[first], BUSY_RETRY_MS, true) ? MQS_EXIT_FAIL :
							     MQS_EXIT_OK;
}
