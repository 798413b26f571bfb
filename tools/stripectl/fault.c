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
	uint8_t faults[MQS_SB_FAULT_SLOTS_LEN] = { 0 };
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
	/* the fault record keeps only the members still failed */
	for (i = 0; i < nr; i++)
		if (member_failed(&members[i]) &&
		    members[i].slot < MQSTRIPE_MAX_MEMBERS)
			faults[members[i].slot / 8] |=
				1U << (members[i].slot % 8);
	/* pass 0: the members behind; pass 1: the others */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			if (member_failed(&members[i]) ||
			    (ev[i] < max) != (pass == 0))
				continue;
			if (sb_update_member(path[i], info->uuid,
					     members[i].slot,
					     MQS_SB_STATE_ACTIVE, max + 1, true,
					     faults, why, sizeof(why))) {
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

/*
 * Say (@out, or stderr as a stripectl message when @out is NULL, and the
 * system log) which member is behind now, and why.
 */
static void report_recorded(const char *node,
			    const struct mqstripe_member_info *m,
			    uint32_t written, FILE *out)
{
	char dev[PATH_MAX + 32], what[PATH_MAX + 512];
	bool gone = m->state == MQSTRIPE_MEMBER_GONE;

	member_label(m, dev, sizeof(dev));
	snprintf(what, sizeof(what),
		 "%.63s: slot %u (%s) is %s: recorded in the superblocks of the %u other members, now two events ahead of it; the next 'stripectl assemble' refuses it as a stale member (start the array with it anyway with 'stripectl assemble --force')%s",
		 node, m->slot, dev, gone ? "gone" : "faulty", written,
		 gone ? "" : "; 'stripectl clear' brings it back once the fault is gone");
	if (out)
		fprintf(out, "%s\n", what);
	else
		mqs_error("%s", what);
	syslog(LOG_WARNING, "record-fault: %s", what);
}

/*
 * Do the superblocks of every member that works record every member that
 * the module has as faulty or gone, both passes done?  Each such member's
 * fault record names all of the failed slots and its event counter is
 * past the record's (the second pass reached it).  Assembly writes no
 * record and clear takes its member out of it, so a slot named means its
 * member was not written since it failed.
 */
static bool already_recorded(const struct mqstripe_info *info,
			     const struct mqstripe_member_info *members,
			     uint32_t nr)
{
	char path[PATH_MAX];
	struct mqs_cand c;
	uint32_t i, j;
	bool ok = true;

	for (i = 0; i < nr && ok; i++) {
		if (member_failed(&members[i]))
			continue;
		if (mqs_find_node(makedev(members[i].major, members[i].minor),
				  path, sizeof(path)))
			return false;
		memset(&c, 0, sizeof(c));
		ok = !mqs_cand_read(&c, path) && c.status == MQS_SB_OK &&
		     !memcmp(c.sb.array_uuid, info->uuid, MQSTRIPE_UUID_LEN) &&
		     c.sb.slot == members[i].slot && c.sb.fault_events && c.sb.events > c.sb.fault_events;
		for (j = 0; j < nr && ok; j++)
			if (member_failed(&members[j]))
				ok = mqs_sb_fault_slot(&c.sb, members[j].slot);
		mqs_cand_free(&c);
	}
	return ok;
}

/**
 * record_faults() - leave the failed members of a running array behind in
 *	the superblocks of the others
 * @index: the array.
 * @info: its INFO.
 * @members: its members, as INFO reports them.
 * @nr: how many.
 * @out: where the news go: stdout (record-fault), or NULL: stderr, as
 *	stripectl messages (another command noticed the fault: assemble
 *	--scan, stop --skip-busy, monitor).
 *
 * The caller holds the metadata lock.  Nothing is written when no member
 * is faulty or gone, when the array was assembled --readonly, or when the
 * superblocks record the failed members already (already_recorded(): the
 * udev rule's record-fault, or another command, was first); with @out
 * NULL nothing is said then either.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL (said): every member failed, or
 * no superblock written.
 */
int record_faults(uint32_t index, const struct mqstripe_info *info,
		  const struct mqstripe_member_info *members, uint32_t nr,
		  FILE *out)
{
	uint32_t i, failed = 0, written;
	char node[64];
	bool *skip;
	int rc = MQS_EXIT_FAIL;

	mqs_array_node(index, node, sizeof(node));
	for (i = 0; i < nr; i++)
		failed += member_failed(&members[i]);
	if (!failed) {
		if (out)
			fprintf(out, "%s: no member is faulty or gone: nothing to record\n",
				node);
		return MQS_EXIT_OK;
	}
	if (mqs_array_readonly(index)) {
		if (out)
			fprintf(out, "%s: assembled read-only (--readonly): nothing is written to its members, the fault is not recorded\n",
				node);
		return MQS_EXIT_OK;
	}
	if (failed == nr) {
		mqs_error("%s: every member is faulty or gone: no superblock can record it",
			  node);
		return MQS_EXIT_FAIL;
	}
	if (already_recorded(info, members, nr)) {
		if (out)
			fprintf(out, "%s: the superblocks of its other members record every member faulty or gone already: nothing to write\n",
				node);
		return MQS_EXIT_OK;
	}
	skip = calloc(nr, sizeof(*skip));
	if (!skip) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		skip[i] = member_failed(&members[i]);
	written = sb_update_members(info->uuid, members, skip, nr,
				    MQS_SB_STATE_ACTIVE, true,
				    "the array runs on");
	if (!written) {
		mqs_error("%s: the fault is not recorded: no other member's superblock was written",
			  node);
		goto out;
	}
	for (i = 0; i < nr; i++)
		if (member_failed(&members[i]))
			report_recorded(node, &members[i], written, out);
	rc = MQS_EXIT_OK;
out:
	free(skip);
	return rc;
}

/**
 * record_faults_of() - record_faults() of a running array, by its index
 * @index: the array.
 * @lock: take the metadata lock (false: the caller holds it).
 *
 * For a command that notices a fault udev may not have handled (no udevd
 * yet or any more, an event lost): quietly when there is nothing to do.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL (said).
 */
int record_faults_of(uint32_t index, bool lock)
{
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	char arg[32];
	uint32_t nr;
	int rc, fd = -1;

	mqs_array_kname(index, arg, sizeof(arg));
	rc = lock ? find_array_locked(&ctl, arg, &index, &info, &members, &nr,
				      &fd) :
		    find_array_or_report(&ctl, arg, &index, &info, &members,
					 &nr);
	if (rc)
		return MQS_EXIT_FAIL;
	rc = record_faults(index, &info, members, nr, NULL);
	free(members);
	mqs_ctl_close(&ctl);
	if (lock)
		mqs_meta_unlock(fd);
	return rc;
}

/**
 * record_faults_all() - record_faults_of() of every running array
 * @lock: as for record_faults_of().
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL: the arrays could not be listed,
 * or one's fault could not be recorded (said).
 */
int record_faults_all(bool lock)
{
	uint32_t *idx = NULL, n = 0, i;
	struct mqs_ctl ctl;
	int rc;

	rc = mqs_ctl_open(&ctl);
	if (rc == -ENOENT || rc == -ENXIO || rc == -ENODEV)
		return MQS_EXIT_OK;	/* no module: no array */
	if (!rc)
		mqs_ctl_close(&ctl);
	if (ctl_list_or_report(&ctl, "list", &idx, &n))
		return MQS_EXIT_FAIL;
	mqs_ctl_close(&ctl);
	rc = MQS_EXIT_OK;
	for (i = 0; i < n; i++)
		if (record_faults_of(idx[i], lock))
			rc = MQS_EXIT_FAIL;
	free(idx);
	return rc;
}

int cmd_record_fault(const struct cmd *cmd, int argc, char **argv)
{
	const struct opt opts[] = { { 0 } };
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	uint32_t index, nr;
	int first, rc, lock;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	/* no stop, clear or second record-fault in between */
	if (find_array_locked(&ctl, argv[first], &index, &info, &members,
			      &nr, &lock))
		return MQS_EXIT_FAIL;
	rc = record_faults(index, &info, members, nr, stdout);
	free(members);
	mqs_ctl_close(&ctl);
	mqs_meta_unlock(lock);
	return rc;
}
