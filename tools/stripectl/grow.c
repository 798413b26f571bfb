// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl grow ARRAY: a running array takes the room its members gained
 * (a namespace resize, a dm or LVM member extended, a bigger cloud volume),
 * online, while it is mounted and in use.
 *
 * Layout version 1 maps array chunk c to row c / N of member c % N
 * (docs/FORMAT.md), so more rows extend the array at its end and no data
 * moves.  Every member's superblock first records the new size (one event
 * past the newest, as rename writes them: a cut between the writes leaves
 * members one event apart, and the newest member's size counts); then the
 * module takes it (MQSTRIPE_IOC_RESIZE), and the array's change uevent
 * (RESIZE=1) lets the file system on it grow.  When the module refuses,
 * the old superblocks are put back.  Growing is always this command: an
 * assembly never takes the members' new room by itself (only
 * assemble --grow does).
 *
 * grow --on-resize DEVICE is what the udev rule runs when a member reports
 * a new size: with "GROW auto" in mqstripe.conf it grows the running array
 * that holds DEVICE once every member has room; in any case a member that
 * shrank below what the array keeps on it is said (system log).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common.h"
#include "conf.h"
#include "devio.h"
#include "grow.h"
#include "livesb.h"
#include "opts.h"
#include "parse.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

/* --on-resize: every message goes to syslog too (udev keeps no output) */
static bool grow_syslog;

static void grow_note(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void grow_note(int prio, const char *fmt, ...)
{
	char msg[2 * MQS_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (prio <= LOG_WARNING)
		mqs_error("%s", msg);
	else
		printf("%s\n", msg);
	if (grow_syslog)
		syslog(prio, "grow: %s", msg);
}

/* The slot whose member holds the least data room; its room at @room. */
static uint32_t smallest_member(const struct livesb *rm, uint32_t nr,
				const struct mqstripe_info *info,
				uint64_t *room)
{
	uint32_t i, min = 0;
	uint64_t r;

	*room = UINT64_MAX;
	for (i = 0; i < nr; i++) {
		r = mqs_data_bytes(rm[i].cand.size_bytes,
				   info->data_offset_bytes, info->chunk_bytes);
		if (r < *room) {
			*room = r;
			min = i;
		}
	}
	return min;
}

/*
 * The new bytes of data per member: @want_size (the array's size, 0 for
 * all the room).  Return: MQS_EXIT_OK with @per set, or MQS_EXIT_FAIL
 * (said).
 */
static int new_member_bytes(const char *node, const struct mqstripe_info *info,
			    const struct livesb *rm, uint32_t nr,
			    uint64_t want_size, uint64_t *per)
{
	uint64_t width = info->chunk_bytes * nr, room;
	char a[32], b[32], c[32], d[32], e[32];
	uint32_t s = smallest_member(rm, nr, info, &room);

	if (!want_size) {
		*per = room;
		return MQS_EXIT_OK;
	}
	/*
	 * Below the array first: the capacity is whole stripes, so past this
	 * check the nearest whole stripes offered below are never under it.
	 */
	if (want_size < info->capacity_bytes) {
		grow_note(LOG_ERR, "%s: --size %s is smaller than the array (%s): grow never shrinks an array (its end may hold data)",
			  node, mqs_size_exact(want_size, a, sizeof(a)),
			  mqs_size_exact(info->capacity_bytes, b, sizeof(b)));
		return MQS_EXIT_FAIL;
	}
	if (want_size % width) {
		grow_note(LOG_ERR, "%s: --size %s is not a whole number of stripes (%u members x %s chunk = %s): use %s or %s",
			  node, mqs_size_exact(want_size, a, sizeof(a)), nr,
			  mqs_size_exact(info->chunk_bytes, b, sizeof(b)),
			  mqs_size_exact(width, c, sizeof(c)),
			  mqs_size_exact(want_size / width * width, d,
					 sizeof(d)),
			  mqs_size_exact((want_size / width + 1) * width, e,
					 sizeof(e)));
		return MQS_EXIT_FAIL;
	}
	*per = want_size / nr;
	if (*per > room) {
		snprintf(e, sizeof(e), "%s", room * nr > info->capacity_bytes ?
			 ", or give --size " : "");
		grow_note(LOG_ERR, "%s: --size %s needs %s of data on every member; %s (slot %u) holds %s after its data offset: grow that member first%s%s%s",
			  node, mqs_size_exact(want_size, a, sizeof(a)),
			  mqs_size_exact(*per, b, sizeof(b)), rm[s].path, s,
			  mqs_size_exact(room, c, sizeof(c)), e,
			  e[0] ? mqs_size_exact(room * nr, d, sizeof(d)) : "",
			  e[0] ? " or less" : "");
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/* Why the array cannot grow now, said; MQS_EXIT_OK when it can. */
static int check_growable(uint32_t index, const char *node,
			  const struct mqstripe_info *info,
			  const struct mqstripe_member_info *members,
			  uint32_t nr)
{
	char dev[PATH_MAX + 32];
	uint32_t i;

	if (mqs_array_readonly(index)) {
		grow_note(LOG_ERR, "%s: assembled read-only (--readonly): nothing is written to its members; stop it and assemble it without --readonly to grow it",
			  node);
		return MQS_EXIT_FAIL;
	}
	if (info->nr_segments > 1) {
		grow_note(LOG_ERR, "%s: its members were added in %u segments ('stripectl add'): growing such an array is not supported yet",
			  node, info->nr_segments);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		if (!members[i].data_bytes ||
		    members[i].data_bytes == info->member_data_bytes)
			continue;
		grow_note(LOG_ERR, "%s: its members are of unequal size (the array is made of zones): growing such an array is not supported yet",
			  node);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		if (members[i].state == MQSTRIPE_MEMBER_OK)
			continue;
		grow_note(LOG_ERR, "%s: slot %u (%s) is %s: a failed array does not grow (every member's superblock records the size); see 'stripectl status %s', and grow it once every member is ok",
			  node, members[i].slot,
			  member_label(&members[i], dev, sizeof(dev)),
			  member_state_name(members[i].state), node);
		return MQS_EXIT_FAIL;
	}
	if (info->state != MQSTRIPE_STATE_ACTIVE) {
		grow_note(LOG_ERR, "%s: the array is %s: it does not grow (see 'stripectl status %s')",
			  node, array_state_name(info->state), node);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/* The module's answer to RESIZE, said; MQS_EXIT_OK or MQS_EXIT_FAIL. */
static int module_resize(struct mqs_ctl *ctl, uint32_t index, const char *node,
			 const struct livesb *rm, uint64_t per,
			 uint64_t *capacity)
{
	uint32_t slot;
	char a[32];
	int rc = mqs_resize(ctl, index, per, capacity, &slot);

	switch (-rc) {
	case 0:
		return MQS_EXIT_OK;
	case ENOSPC:
		grow_note(LOG_ERR, "%s: the module finds slot %u (%s) too small for %s of data: did it shrink meanwhile? See 'blockdev --getsize64 %s'",
			  node, slot,
			  slot < MQSTRIPE_MAX_MEMBERS ? rm[slot].path : "?",
			  mqs_size_exact(per, a, sizeof(a)),
			  slot < MQSTRIPE_MAX_MEMBERS ? rm[slot].path : node);
		break;
	case EIO:
		grow_note(LOG_ERR, "%s: a member failed meanwhile: a failed array does not grow (see 'stripectl status %s')",
			  node, node);
		break;
	case ENOTTY:
		grow_note(LOG_ERR, "%s: the loaded mqstripe module cannot grow a running array (an older module): load the module of this stripectl, or stop the array and 'stripectl assemble --grow' it",
			  node);
		break;
	default:
		report_ctl_error(node, rc, ctl->kernel_abi);
		break;
	}
	return MQS_EXIT_FAIL;
}

/*
 * A member that holds less than the array keeps on it (it shrank: the
 * array's end on it fails), said; MQS_EXIT_OK when none.
 */
static int check_shrunk(const char *node, const struct mqstripe_info *info,
			const struct mqstripe_member_info *members,
			const struct livesb *rm, uint32_t nr)
{
	uint64_t per, room;
	char a[32], b[32], c[32];
	uint32_t i;

	for (i = 0; i < nr; i++) {
		/* its own size in an array of zones */
		per = members[i].data_bytes ? members[i].data_bytes :
					      info->member_data_bytes;
		room = mqs_data_bytes(rm[i].cand.size_bytes,
				      info->data_offset_bytes,
				      info->chunk_bytes);
		if (room >= per)
			continue;
		grow_note(LOG_ERR, "%s: %s (slot %u) shrank: it holds %s of data after its data offset, less than the %s the array keeps on every member, and IO to the array's end on it fails; give it back at least %s in all",
			  node, rm[i].path, i, mqs_size_exact(room, a, sizeof(a)),
			  mqs_size_exact(per, b, sizeof(b)),
			  mqs_size_exact(info->data_offset_bytes + per, c,
					 sizeof(c)));
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/*
 * Grow array @index to @want_size bytes (0: all its members' room).
 * @on_resize: a member reported a new size: say nothing when there is
 * nothing to grow.  @grow: false: only say whether a member shrank (a
 * resize event without GROW auto).
 */
static int grow_array(struct mqs_ctl *ctl, uint32_t index,
		      const struct mqstripe_info *info,
		      const struct mqstripe_member_info *members, uint32_t nr,
		      uint64_t want_size, bool on_resize, bool grow)
{
	static const struct livesb_words words = {
		.what = "the new size",
		.nothing = "nothing grown",
		.then = "grow it",
	};
	char node[64], a[32], b[32], c[32], d[32];
	uint64_t per, old_per = info->member_data_bytes, capacity;
	struct livesb *rm = NULL;
	struct sbw *w = NULL;
	bool no_sb = false;
	uint32_t i;
	int rc = MQS_EXIT_FAIL;

	mqs_array_node(index, node, sizeof(node));
	if (!grow) {
		/* only a shrink is news here: a failed array says so itself */
		for (i = 0; i < nr; i++)
			if (members[i].state != MQSTRIPE_MEMBER_OK)
				return MQS_EXIT_OK;
	} else if (check_growable(index, node, info, members, nr)) {
		return MQS_EXIT_FAIL;
	}
	if (livesb_read(node, info, members, &rm, &w, nr, &no_sb, &words) ||
	    check_shrunk(node, info, members, rm, nr))
		goto out;
	rc = MQS_EXIT_OK;
	if (!grow)
		goto out;
	rc = MQS_EXIT_FAIL;
	if (new_member_bytes(node, info, rm, nr, want_size, &per))
		goto out;
	if (per <= old_per) {
		uint64_t room;
		uint32_t s = smallest_member(rm, nr, info, &room);

		rc = MQS_EXIT_OK;
		if (on_resize)
			goto out;
		if (want_size)
			printf("%s: already %s: nothing to grow\n", node,
			       mqs_size_exact(info->capacity_bytes, a,
					      sizeof(a)));
		else
			printf("%s: already uses its members' room (%s of data on each; %s (slot %u) has no more): nothing to grow\n",
			       node, mqs_size_exact(old_per, a, sizeof(a)),
			       rm[s].path, s);
		goto out;
	}
	if (!no_sb) {
		for (i = 0; i < nr; i++)
			rm[i].cand.sb.data_bytes = per;
		livesb_build(rm, w, nr);
		if (sbw_write_all(w, nr)) {
			/* sbw_write_all() put the written members' blocks back */
			grow_note(LOG_ERR, "%s: nothing grown: the superblocks say %s of data per member again",
				  node, mqs_size_exact(old_per, a, sizeof(a)));
			goto out;
		}
	}
	if (module_resize(ctl, index, node, rm, per, &capacity)) {
		if (!no_sb) {
			sbw_restore_all(w, nr);
			grow_note(LOG_ERR, "%s: nothing grown: the superblocks were put back to %s of data per member",
				  node, mqs_size_exact(old_per, a, sizeof(a)));
		}
		goto out;
	}
	grow_note(LOG_NOTICE, "%s: grown from %s to %s (%s of data on every member, was %s)%s; now grow what is on it: 'xfs_growfs MOUNTPOINT', 'resize2fs %s' or 'pvresize %s'",
		  node, mqs_size_exact(info->capacity_bytes, a, sizeof(a)),
		  mqs_size_exact(capacity, b, sizeof(b)),
		  mqs_size_exact(per, c, sizeof(c)),
		  mqs_size_exact(old_per, d, sizeof(d)),
		  no_sb ? " (no superblocks: the size lasts until the array stops)" :
			  "",
		  node, node);
	rc = MQS_EXIT_OK;
out:
	livesb_free(rm, w, nr);
	return rc;
}

/*
 * --on-resize DEVICE: the running array that holds DEVICE, if any: its
 * index at @index.  Return: 0 found, -ENODEV none (nothing to do), or
 * MQS_EXIT_FAIL (said).
 */
static int array_of_member(struct mqs_ctl *ctl, const char *dev,
			   uint32_t *index)
{
	struct mqstripe_member_info *m;
	struct mqstripe_info info;
	uint32_t *idx = NULL, count = 0, i, j;
	struct stat st;
	int rc = -ENODEV;

	if (stat(dev, &st) || !S_ISBLK(st.st_mode)) {
		grow_note(LOG_ERR, "--on-resize %s: not a block device", dev);
		return MQS_EXIT_FAIL;
	}
	if (ctl_list_or_report(ctl, "grow", &idx, &count))
		return MQS_EXIT_FAIL;
	m = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*m));
	if (!m) {
		free(idx);
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < count && rc == -ENODEV; i++) {
		if (mqs_info(ctl, idx[i], &info, m, MQSTRIPE_MAX_MEMBERS))
			continue;	/* gone meanwhile */
		for (j = 0; j < info.nr_members && j < MQSTRIPE_MAX_MEMBERS;
		     j++) {
			if (makedev(m[j].major, m[j].minor) == st.st_rdev) {
				*index = idx[i];
				rc = 0;
				break;
			}
		}
	}
	free(m);
	free(idx);
	return rc;
}

/* GROW auto in mqstripe.conf?  A bad GROW line is said and counts as no. */
static bool conf_grows(void)
{
	struct mqs_conf conf;
	char err[MQS_ERR_LEN], text[2 * MQS_ERR_LEN];
	bool yes;
	size_t i;

	if (mqs_conf_load(&conf, err, sizeof(err))) {
		grow_note(LOG_WARNING, "%s: %s: no array grows by itself",
			  mqs_conf_path(), err);
		mqs_conf_free(&conf);
		return false;
	}
	for (i = 0; i < conf.nr_issues; i++) {
		if (conf.issues[i].bad != MQS_CONF_BAD_GROW)
			continue;
		mqs_conf_issue_text(&conf.issues[i], false, text,
				    sizeof(text));
		grow_note(LOG_WARNING, "%s", text);
	}
	yes = conf.grow_auto;
	mqs_conf_free(&conf);
	return yes;
}

int cmd_grow(const struct cmd *cmd, int argc, char **argv)
{
	uint64_t size = 0;
	bool size_given = false, on_resize = false;
	const struct opt opts[] = {
		{ "size", 's', OPT_SIZE, &size, &size_given, "SIZE",
		  "the array's size after: a whole number of stripes (members x chunk), at least its size now (default: all the room every member has)" },
		{ "on-resize", 0, OPT_FLAG, &on_resize, NULL, NULL,
		  "ARRAY is a member that reported a new size (the udev rule): grow the running array holding it when mqstripe.conf says GROW auto and every member has room; say (also in the system log) when it shrank below what the array keeps on it" },
		{ 0 }
	};
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl = { .fd = -1 };
	uint32_t index, nr;
	int first, rc, lock = -1;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (size_given && !size) {
		mqs_error("grow: --size 0: give the array's size after, or leave --size out for all the room");
		return MQS_EXIT_USAGE;
	}
	if (on_resize) {
		if (size_given) {
			mqs_error("grow: --on-resize takes all the room: no --size");
			return MQS_EXIT_USAGE;
		}
		grow_syslog = true;
		rc = array_of_member(&ctl, argv[first], &index);
		if (rc == -ENODEV) {
			rc = MQS_EXIT_OK;	/* no running array holds it */
			goto out;
		}
		if (rc)
			goto out;
		rc = MQS_EXIT_FAIL;
		members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*members));
		if (!members || mqs_info(&ctl, index, &info, members,
					 MQSTRIPE_MAX_MEMBERS))
			goto out;
		nr = info.nr_members < MQSTRIPE_MAX_MEMBERS ?
		     info.nr_members : MQSTRIPE_MAX_MEMBERS;
	} else if (find_array_or_report(&ctl, argv[first], &index, &info,
					&members, &nr)) {
		return MQS_EXIT_FAIL;
	}
	lock = mqs_meta_lock(false);
	rc = MQS_EXIT_FAIL;
	if (lock == -ETIMEDOUT)
		goto out;
	/* INFO again under the lock: a grow or a failure meanwhile */
	if (mqs_info(&ctl, index, &info, members, MQSTRIPE_MAX_MEMBERS)) {
		grow_note(LOG_ERR, "%s: the array stopped meanwhile", argv[first]);
		goto out;
	}
	rc = grow_array(&ctl, index, &info, members, nr, size, on_resize,
			!on_resize || conf_grows());
out:
	if (lock != -1)
		mqs_meta_unlock(lock);
	free(members);
	mqs_ctl_close(&ctl);
	return rc;
}
