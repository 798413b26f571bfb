// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl record-fault ARRAY: the members of a running array that the
 * module reports faulty or gone are left behind in the superblocks at
 * once, not only by the next stop: every other member's superblock goes
 * two events ahead, in two passes (docs/FORMAT.md "Updates"), written
 * while the array runs as rename writes them.  The udev rule runs it at
 * the array's member_faulty and member_gone uevents, so that after a crash
 * or a power cut the next assemble refuses the failed member as stale, as
 * it does after a clean stop.
 *
 * And what "clear" does after it: a member the module took back brought
 * up to the others' event counter (sb_bring_current()).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <sys/sysmacros.h>

#include "common.h"
#include "devio.h"
#include "fault.h"
#include "opts.h"
#include "sbwrite.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

/*
 * The path of a member and its superblock's event counter, if it carries
 * this array's superblock of its slot.  Return: 0; 1 no superblock; -1
 * gone or unreadable or not this array's (said, with @node).
 */
static int member_events(const char *node, const struct mqstripe_info *info,
			 const struct mqstripe_member_info *m, char *path,
			 size_t len, uint64_t *events)
{
	struct mqs_cand c;
	int rc;

	if (mqs_find_node(makedev(m->major, m->minor), path, len)) {
		mqs_error("%s: slot %u (%u:%u) is gone: its superblock cannot be brought up to date",
			  node, m->slot, m->major, m->minor);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	rc = mqs_cand_read(&c, path);
	if (!rc && c.status == MQS_SB_NONE) {
		mqs_cand_free(&c);
		return 1;
	}
	if (rc || c.status != MQS_SB_OK ||
	    memcmp(c.sb.array_uuid, info->uuid, MQSTRIPE_UUID_LEN) ||
	    c.sb.slot != m->slot) {
		mqs_error("%s: slot %u: cannot read this array's superblock on it (see 'stripectl examine %s')",
			  path, m->slot, path);
		mqs_cand_free(&c);
		return -1;
	}
	*events = c.sb.events;
	mqs_cand_free(&c);
	return 0;
}

/**
 * sb_bring_current() - every member that the module has as ok gets one
 *	event counter again
 * @node: the array's device, for the messages.
 * @info: INFO of the array.
 * @members: its members, as INFO reports them now.
 * @nr: how many.
 *
 * After "clear": the member taken back is still behind in its superblock
 * (record-fault left it there), and would be refused as stale by the next
 * assemble.  Every member the module has as ok gets the newest counter +
 * 1, the ones behind first: a cut after any write leaves the members that
 * were current at most one event from the rest, and the one taken back
 * either behind as before or current.  Members still faulty or gone stay
 * behind.  Nothing is written when the members agree already.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL (said).
 */
int sb_bring_current(const char *node, const struct mqstripe_info *info,
		     const struct mqstripe_member_info *members, uint32_t nr)
{
	char (*path)[PATH_MAX];
	char why[MQS_ERR_LEN];
	uint64_t *ev, max = 0, min = UINT64_MAX;
	uint32_t i, pass, n = 0;
	int rc = MQS_EXIT_FAIL, r;

	path = calloc(nr ? nr : 1, sizeof(*path));
	ev = calloc(nr ? nr : 1, sizeof(*ev));
	if (!path || !ev) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		if (member_failed(&members[i]))
			continue;
		r = member_events(node, info, &members[i], path[i],
				  sizeof(path[i]), &ev[i]);
		if (r < 0)
			goto out;
		if (r > 0) {	/* an array started without superblocks */
			rc = MQS_EXIT_OK;
			goto out;
		}
		max = ev[i] > max ? ev[i] : max;
		min = ev[i] < min ? ev[i] : min;
		n++;
	}
	rc = MQS_EXIT_OK;
	if (!n || min == max)
		goto out;
	/* pass 0: the members behind; pass 1: the others */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			if (member_failed(&members[i]) ||
			    (ev[i] < max) != (pass == 0))
				continue;
			if (sb_update_member(path[i], info->uuid,
					     members[i].slot,
					     MQS_SB_STATE_ACTIVE, max + 1, true,
					     NULL, why, sizeof(why))) {
				mqs_error("%s (slot %u): superblock not brought up to date: %s; the next 'stripectl assemble' may refuse a member as stale (then 'stripectl assemble --force')",
					  path[i], members[i].slot, why);
				rc = MQS_EXIT_FAIL;
				goto out;
			}
		}
	}
	printf("%s: the superblocks of its %u working members are current again (events %" PRIu64 ")\n",
	       node, n, max + 1);
out:
	free(ev);
	free(path);
	return rc;
}

/* Say (stdout and the system log) which member is behind now, and why. */
static void report_recorded(const char *node,
			    const struct mqstripe_member_info *m,
			    uint32_t written)
{
	char path[PATH_MAX], dev[PATH_MAX + 32], what[PATH_MAX + 512];
	bool gone = m->state == MQSTRIPE_MEMBER_GONE;

	if (mqs_find_node(makedev(m->major, m->minor), path, sizeof(path)))
		snprintf(dev, sizeof(dev), "%u:%u", m->major, m->minor);
	else
		snprintf(dev, sizeof(dev), "%s, %u:%u", path, m->major,
			 m->minor);
	snprintf(what, sizeof(what),
		 "%.63s: slot %u (%s) is %s: recorded in the superblocks of the %u other members, now two events ahead of it; the next 'stripectl assemble' refuses it as a stale member (start the array with it anyway with 'stripectl assemble --force')%s",
		 node, m->slot, dev, gone ? "gone" : "faulty", written,
		 gone ? "" : "; 'stripectl clear' brings it back once the fault is gone");
	printf("%s\n", what);
	syslog(LOG_WARNING, "record-fault: %s", what);
}

int cmd_record_fault(const struct cmd *cmd, int argc, char **argv)
{
	const struct opt opts[] = { { 0 } };
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	char node[64];
	uint32_t index, nr, i, failed = 0, written;
	bool *skip = NULL;
	int first, rc, lock;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	/* no stop, clear or second record-fault in between */
	if (find_array_locked(&ctl, argv[first], &index, &info, &members,
			      &nr, &lock))
		return MQS_EXIT_FAIL;
	mqs_array_node(index, node, sizeof(node));
	rc = MQS_EXIT_OK;
	for (i = 0; i < nr; i++)
		failed += member_failed(&members[i]);
	if (!failed) {
		printf("%s: no member is faulty or gone: nothing to record\n",
		       node);
		goto out;
	}
	if (mqs_array_readonly(index)) {
		printf("%s: assembled read-only (--readonly): nothing is written to its members, the fault is not recorded\n",
		       node);
		goto out;
	}
	rc = MQS_EXIT_FAIL;
	if (failed == nr) {
		mqs_error("%s: every member is faulty or gone: no superblock can record it",
			  node);
		goto out;
	}
	skip = calloc(nr, sizeof(*skip));
	if (!skip) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++)
		skip[i] = member_failed(&members[i]);
	written = sb_update_members(info.uuid, members, skip, nr,
				    MQS_SB_STATE_ACTIVE, true,
				    "the array runs on");
	if (!written) {
		mqs_error("%s: the fault is not recorded: no other member's superblock was written",
			  node);
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (member_failed(&members[i]))
			report_recorded(node, &members[i], written);
	rc = MQS_EXIT_OK;
out:
	free(skip);
	free(members);
	mqs_ctl_close(&ctl);
	mqs_meta_unlock(lock);
	return rc;
}
