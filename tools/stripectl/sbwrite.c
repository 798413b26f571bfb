// SPDX-License-Identifier: GPL-2.0
/*
 * Superblock writes as one transaction (create, assemble, zero-superblock,
 * rename):
 * claim each member exclusively (briefly: the module claims them itself
 * at CREATE), keep its superblock area as it was, write and verify the new
 * one, and put the old one back on every member when the array does not
 * start; and the two-pass rewrite of an array's members (a stop, a fault
 * recorded, a clean mark).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "devio.h"
#include "errmsg.h"
#include "member.h"
#include "parse.h"
#include "sbwrite.h"
#include "stripectl.h"
#include "sysfs.h"

#define EXCL_RETRY_MS	2000	/* after a stop: the module let go */

void sbw_init(struct sbw *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->excl = -1;
	w->dfd = -1;
	w->copies = 1;
}

/**
 * sbw_claim() - hold a member exclusively and read its current block
 * @w: from sbw_init().
 *
 * The exclusive descriptor keeps mounts, other arrays and device-mapper
 * away while we look at the member and write it; a member that is already
 * held (by a running array, a mount...) is refused with a message saying
 * by what.
 *
 * Return: MQS_EXIT_OK or MQS_EXIT_FAIL (message printed).
 */
int sbw_claim(struct sbw *w)
{
	int fd = mqs_open_excl(w->path);

	if (fd < 0) {
		report_open_error(w->path, -fd);
		return MQS_EXIT_FAIL;
	}
	w->excl = fd;
	return sbw_reread(w);
}

/* (Re)read the current area, e.g. after libblkid wiped signatures. */
int sbw_reread(struct sbw *w)
{
	struct mqs_sb_copies cp;
	struct mqs_sb sb;
	size_t len;
	int rc;

	if (w->dfd < 0) {
		w->dfd = mqs_dev_open_direct(w->path, true);
		if (w->dfd < 0) {
			report_open_error(w->path, -w->dfd);
			return MQS_EXIT_FAIL;
		}
	}
	if (!w->old)
		w->old = mqs_block_alloc();
	if (!w->new)
		w->new = mqs_block_alloc();
	if (!w->old || !w->new) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	rc = mqs_dev_read_area(w->dfd, w->old, &len);
	if (rc) {
		mqs_error("%s: cannot read the superblock area at byte %llu: %s",
			  w->path, MQS_SB_OFFSET, strerror(-rc));
		return MQS_EXIT_FAIL;
	}
	mqs_sb_decode_area(w->old, len, &sb, &cp, NULL, 0);
	w->second_first = cp.chosen == 0;
	return MQS_EXIT_OK;
}

/*
 * Write w->new on every member; if one fails, put back the old blocks of
 * those already written.  Return: MQS_EXIT_OK or MQS_EXIT_FAIL (message
 * printed).
 */
int sbw_write_all(struct sbw *w, size_t n)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = mqs_dev_write_area(w[i].dfd, w[i].new, w[i].copies,
					w[i].second_first);
		if (rc) {
			char ro[MQS_ERR_LEN] = "";

			/* blockdev --setro, or a write-protected device */
			if (rc == -EPERM || rc == -EROFS)
				snprintf(ro, sizeof(ro),
					 ": the device is read-only (check 'blockdev --getro %s'; 'blockdev --setrw %s' if that is not intended)",
					 w[i].path, w[i].path);
			mqs_error("%s: writing the superblock failed: %s%s",
				  w[i].path, strerror(-rc), ro);
			sbw_restore_all(w, i);
			return MQS_EXIT_FAIL;
		}
		w[i].written = true;
		if (w[i].excl >= 0)
			mqs_dev_drop_cache(w[i].excl);
	}
	return MQS_EXIT_OK;
}

/**
 * sbw_verify_all() - read back what sbw_write_all() wrote, before CREATE
 * @w: the members, all written.
 * @n: how many.
 *
 * One disk reached through two nodes (two paths of a namespace with the
 * kernel's NVMe multipath off, two loop devices over one file, a device
 * and a dm-linear map of all of it) takes both writes and keeps the later
 * one: the earlier node then reads back another slot's superblock, and an
 * array over both would put two slots' data on one disk.  Such a node is
 * marked not written (its block is the other node's, which
 * sbw_restore_all() puts back).  A block that reads back as zeros (a
 * device that keeps nothing, such as null_blk without memory_backed, used
 * in benchmarks) is a warning: the array works, but cannot be assembled
 * from that superblock later.  Anything else (another writer) is refused
 * too (sbw_restore_all() then leaves that block as it is).
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL with a message naming both nodes
 * (or a read that failed).
 */
int sbw_verify_all(struct sbw *w, size_t n)
{
	uint8_t *blk = mqs_block_alloc();
	size_t i, j;
	int rc = MQS_EXIT_OK;

	if (!blk) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < n && !rc; i++) {
		size_t bytes = w[i].copies * MQS_SB_SIZE;
		int err;

		/* a device that keeps no data may leave the buffer as it is */
		memset(blk, 0, MQS_SB_AREA_SIZE);
		err = mqs_dev_read_area(w[i].dfd, blk, NULL);

		if (err) {
			mqs_error("%s: cannot read back the superblock just written: %s",
				  w[i].path, strerror(-err));
			rc = MQS_EXIT_FAIL;
			break;
		}
		if (!memcmp(blk, w[i].new, bytes))
			continue;
		for (j = 0; j < n; j++)
			if (j != i && !memcmp(blk, w[j].new, bytes))
				break;
		if (j == n && mqs_all_zero(blk, bytes)) {
			mqs_error("warning: %s: the superblock reads back as zeros (a device that keeps no data, such as null_blk without memory_backed): the array cannot be assembled from it later",
				  w[i].path);
			continue;
		}
		rc = MQS_EXIT_FAIL;
		if (j == n) {
			/* sbw_restore_all() leaves a block that is not ours */
			mqs_error("%s: the superblock just written reads back as something else: another program writes to this device (or it does not keep what is written); find out which, then create again",
				  w[i].path);
			break;
		}
		w[i].written = false;
		mqs_error("%s and %s are one disk: the superblock written through %s (slot %zu) reads back through %s (slot %zu); give each disk once (two paths of one namespace, loop devices over one file, or a map over a whole device: see 'lsblk -o NAME,WWN,SERIAL' and 'losetup -l')",
			  w[j].path, w[i].path, w[j].path, j, w[i].path, i);
	}
	free(blk);
	return rc;
}

/**
 * sbw_keep_mid() - keep what the first pass of a two-pass update wrote
 * @w: the members, all written by that pass.
 * @n: how many.
 *
 * A rollback then goes back through it (sbw_restore_all()).
 *
 * Return: MQS_EXIT_OK or MQS_EXIT_FAIL (message printed).
 */
int sbw_keep_mid(struct sbw *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!w[i].mid)
			w[i].mid = mqs_block_alloc();
		if (!w[i].mid) {
			mqs_error("out of memory");
			return MQS_EXIT_FAIL;
		}
		memcpy(w[i].mid, w[i].new, MQS_SB_AREA_SIZE);
	}
	return MQS_EXIT_OK;
}

/*
 * Put @to back on member @w where it still holds @from (@cur: room for
 * the area).  Return: 0 written; 1 not ours any more (said), left as it
 * is; a negative errno (said): it may still hold @from.
 */
static int restore_one(struct sbw *w, uint8_t *cur, const uint8_t *from,
		       const uint8_t *to)
{
	int rc;

	if (w->excl < 0 && !w->shared) {
		w->excl = mqs_open_excl(w->path);
		if (w->excl < 0) {
			mqs_error("%s: cannot put its old superblock area back: %s",
				  w->path, strerror(-w->excl));
			return w->excl;
		}
	}
	if (w->dfd < 0)
		w->dfd = mqs_dev_open_direct(w->path, true);
	rc = w->dfd < 0 ? w->dfd : cur ? 0 : -ENOMEM;
	if (!rc)
		rc = mqs_dev_read_area(w->dfd, cur, NULL);
	if (!rc && memcmp(cur, from, w->copies * MQS_SB_SIZE)) {
		mqs_error("%s: not putting its old superblock area back: it no longer holds the superblock stripectl wrote (another program wrote it since)",
			  w->path);
		return 1;
	}
	if (!rc)
		rc = mqs_dev_write_area(w->dfd, to, w->copies, true);
	if (rc)
		mqs_error("%s: cannot put its old superblock area back: %s",
			  w->path, strerror(-rc));
	if (w->excl >= 0)
		mqs_dev_drop_cache(w->excl);
	return rc;
}

/*
 * Put the old block back on the first @n members that were written
 * (after a failed CREATE): best effort, claiming them again if needed.
 * Only a block that still holds what we wrote is put back: anything else
 * is somebody else's since, and stays.  After a two-pass update (@mid
 * kept), first every member gets the first pass's block back, then every
 * member its old one: a power cut anywhere in between leaves the members
 * at most one event apart, as a cut in the update itself does.  When the
 * first step fails on a member, the second is not taken (it would leave
 * that one two events ahead): the members stay one event on, which
 * assemble starts.
 */
void sbw_restore_all(struct sbw *w, size_t n)
{
	uint8_t *cur = mqs_block_alloc();
	bool stuck = false;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!w[i].written || !w[i].mid)
			continue;
		rc = restore_one(&w[i], cur, w[i].new, w[i].mid);
		if (rc > 0)
			w[i].written = false;
		else if (rc < 0)
			stuck = true;
	}
	for (i = 0; i < n && !stuck; i++) {
		if (!w[i].written)
			continue;
		if (restore_one(&w[i], cur, w[i].mid ? w[i].mid : w[i].new,
				w[i].old) >= 0)
			w[i].written = false;
	}
	free(cur);
	sbw_release(w, n);
}

/**
 * sbw_unwipe_all() - put back what "create --force" wiped
 * @w: the members.
 * @n: how many.
 *
 * When the array does not start after the wipe (a refusal, a failed
 * write, a failed CREATE), the filesystems, tables and RAID signatures
 * the wipe erased come back (mqs_unwipe(): only where the zeros it wrote
 * are still there), after sbw_restore_all() put the superblock areas back.
 * Best effort, with a message for each device it cannot put back.
 */
void sbw_unwipe_all(struct sbw *w, size_t n)
{
	size_t i;
	int fd, rc;

	for (i = 0; i < n; i++) {
		if (!w[i].wiped || !w[i].wiped->nr)
			continue;
		fd = w[i].excl >= 0 ? w[i].excl : mqs_open_excl(w[i].path);
		rc = fd < 0 ? fd : mqs_unwipe(fd, w[i].path, w[i].wiped);
		if (rc)
			mqs_error("%s: cannot put back the signatures --force wiped: %s",
				  w[i].path, strerror(-rc));
		else
			w[i].wiped->nr = 0;
		if (fd >= 0 && fd != w[i].excl)
			close(fd);
	}
}

/* Close the descriptors (before CREATE: the module claims the members). */
void sbw_release(struct sbw *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (w[i].dfd >= 0)
			close(w[i].dfd);
		if (w[i].excl >= 0)
			close(w[i].excl);
		w[i].dfd = -1;
		w[i].excl = -1;
	}
}

void sbw_free(struct sbw *w, size_t n)
{
	size_t i;

	if (!w)
		return;
	sbw_release(w, n);
	for (i = 0; i < n; i++) {
		free(w[i].old);
		free(w[i].new);
		free(w[i].mid);
		free(w[i].wiped);
	}
	free(w);
}

/**
 * sb_update_member() - rewrite one member's superblock
 * @path: the member.
 * @uuid: the array it must belong to.
 * @slot: the slot it must have.
 * @state: the new state (MQS_SB_STATE_*).
 * @events: the new event counter, or 0: one past the member's own.
 * @shared: the running array holds the member (record-fault, clear, the
 *	last resort's clean mark): written through an O_DIRECT descriptor
 *	alone, never claimed, as rename writes; else (after a stop) claimed
 *	exclusively for the write, retrying a transient hold by udev.
 * @faults: NULL: the fault record stays as it is; else the slots the
 *	module has as faulty or gone now (MQS_SB_FAULT_SLOTS_LEN bytes, a
 *	bit a slot), recorded at the new event counter, or, none set, the
 *	record removed.
 * @why: the reason when it was not updated.
 * @len: room at @why.
 *
 * Bumps the event counter (or sets it to @events) and sets the state and
 * update time.  A member without a superblock (an array started by hand
 * with the ioctl) is left alone.  Prints nothing: the caller decides how
 * bad it is.
 *
 * Return: 0 updated; 1 no superblock; -1 not updated (@why says why).
 */
int sb_update_member(const char *path, const uint8_t uuid[16], uint32_t slot,
		     uint32_t state, uint64_t events, bool shared,
		     const uint8_t *faults, char *why, size_t len)
{
	char label[MQS_ERR_LEN];
	struct mqs_sb_copies cp;
	enum mqs_sb_status st;
	unsigned int nr;
	size_t area_len;
	uint8_t *block = NULL;
	struct mqs_sb *sb;
	int excl = -EBADF, dfd = -EBADF, waited, rc = -1, err;

	sb = malloc(sizeof(*sb));
	block = mqs_block_alloc();
	if (!sb || !block) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (waited = 0; !shared; waited += 100) {
		excl = mqs_open_excl(path);
		if (excl != -EBUSY || waited >= EXCL_RETRY_MS)
			break;
		mqs_sleep_ms(100);
	}
	if (!shared && excl < 0) {
		snprintf(why, len, "cannot hold it exclusively: %s",
			 strerror(-excl));
		goto out;
	}
	dfd = mqs_dev_open_direct(path, true);
	err = dfd < 0 ? dfd : mqs_dev_read_area(dfd, block, &area_len);
	if (err) {
		snprintf(why, len, "cannot read its superblock: %s",
			 strerror(-err));
		goto out;
	}
	st = mqs_sb_decode_area(block, area_len, sb, &cp, why, len);
	if (st == MQS_SB_NONE) {
		rc = 1;
		goto out;
	}
	if (st != MQS_SB_OK)
		goto out;
	if (memcmp(sb->array_uuid, uuid, MQSTRIPE_UUID_LEN) ||
	    sb->slot != slot) {
		mqs_sb_describe(sb, st, label, sizeof(label));
		snprintf(why, len, "it holds %s, not this array's superblock",
			 label);
		goto out;
	}
	if (sb->feature_ro_compat & ~MQS_SB_FEAT_RO_COMPAT_KNOWN) {
		snprintf(why, len,
			 "its superblock has read-only-compatible features 0x%" PRIx64 " this stripectl does not know: not written",
			 (uint64_t)(sb->feature_ro_compat &
				    ~MQS_SB_FEAT_RO_COMPAT_KNOWN));
		goto out;
	}
	sb->events = events ? events : sb->events + 1;
	if (faults && !mqs_all_zero(faults, MQS_SB_FAULT_SLOTS_LEN)) {
		sb->feature_compat |= MQS_SB_FEAT_COMPAT_FAULTS;
		sb->fault_events = sb->events;
		memcpy(sb->fault_slots, faults, MQS_SB_FAULT_SLOTS_LEN);
	} else if (faults) {
		sb->feature_compat &= ~MQS_SB_FEAT_COMPAT_FAULTS;
		sb->fault_events = 0;
		memset(sb->fault_slots, 0, MQS_SB_FAULT_SLOTS_LEN);
	}
	sb->generation++;
	sb->state = state;
	sb->utime = (uint64_t)time(NULL);
	/* keeps what a newer writer added; both copies of format 2 */
	nr = mqs_sb_encode_area(sb, block + cp.chosen * MQS_SB_SIZE, block);
	err = mqs_dev_write_area(dfd, block, nr, cp.chosen == 0);
	if (err) {
		snprintf(why, len, "writing its superblock failed: %s",
			 strerror(-err));
		goto out;
	}
	if (excl >= 0)
		mqs_dev_drop_cache(excl);
	rc = 0;
out:
	if (dfd >= 0)
		close(dfd);
	if (excl >= 0)
		close(excl);
	free(block);
	free(sb);
	return rc;
}

/**
 * sb_update_members() - the two passes of an update over an array's members
 * @uuid: the array.
 * @members: its members (INFO).
 * @skip: members not to write (faulty or gone); a member that cannot be
 *	written is added, with a warning.
 * @nr: how many members.
 * @state: the second pass's state (the first says active).
 * @shared: the array runs and holds its members (sb_update_member()).
 * @tail: what the warnings say of the array ("the array is stopped").
 *
 * First events + 1 on every member, then events + 1 again with @state: a
 * member left out is two events behind afterwards, which assemble refuses
 * as stale, while a cut between any two writes leaves the members at most
 * one event apart, which it accepts (docs/FORMAT.md "Updates").  The first
 * pass also records the slots the module has as faulty or gone (the fault
 * record, at that pass's event counter; the second keeps it): a cut
 * before the second pass leaves such a member one event behind, and
 * assemble still refuses it (mqs_fault_recorded()).
 *
 * Return: how many members were written in both passes (members without
 * a superblock do not count).
 */
uint32_t sb_update_members(const uint8_t uuid[16],
			   const struct mqstripe_member_info *members,
			   bool *skip, uint32_t nr, uint32_t state, bool shared,
			   const char *tail)
{
	uint8_t faults[MQS_SB_FAULT_SLOTS_LEN] = { 0 };
	char path[PATH_MAX], why[MQS_ERR_LEN];
	uint32_t i, pass, done = 0;
	bool failed = false;
	int rc;

	for (i = 0; i < nr; i++) {
		if (!member_failed(&members[i]) ||
		    members[i].slot >= MQSTRIPE_MAX_MEMBERS)
			continue;
		faults[members[i].slot / 8] |= 1U << (members[i].slot % 8);
		failed = true;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nr; i++) {
			const struct mqstripe_member_info *m = &members[i];
			uint64_t devno = makedev(m->major, m->minor);

			if (skip[i])
				continue;
			if (mqs_find_node(devno, path, sizeof(path))) {
				mqs_error("warning: member %u:%u (slot %u) is gone: its superblock was not updated; %s (assembling it again takes 'assemble --force')",
					  m->major, m->minor, m->slot, tail);
				skip[i] = true;
				continue;
			}
			rc = sb_update_member(path, uuid, m->slot,
					      pass ? state :
					      MQS_SB_STATE_ACTIVE, 0, shared,
					      failed && !pass ? faults : NULL,
					      why, sizeof(why));
			if (rc < 0) {
				mqs_error("warning: %s (slot %u): superblock not updated: %s; %s (assembling it again may take 'assemble --force')",
					  path, m->slot, why, tail);
				skip[i] = true;
			} else if (pass && !rc) {
				done++;
			}
		}
	}
	return done;
}
