// SPDX-License-Identifier: GPL-2.0
/*
 * What create and assemble share: checking member paths, claiming members
 * for the superblock write (exclusively, briefly: the module claims them
 * itself at CREATE), writing and restoring superblocks, and starting the
 * array with MQSTRIPE_IOC_CREATE until its device node exists.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "devio.h"
#include "errmsg.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

#define NODE_WAIT_MS	5000
#define NODE_POLL_MS	50
#define EXCL_RETRY_MS	2000	/* after a stop: the module let go */

/* stat() a member: exists, is a block device. */
int check_member_path(struct mqs_member_dev *m)
{
	struct stat st;

	if (stat(m->path, &st)) {
		int err = errno;

		if (err == ENOENT)
			mqs_error("%s: does not exist: check the path (see 'lsblk')",
				  m->path);
		else if (err == EACCES)
			mqs_error("%s: permission denied: needs root (CAP_SYS_ADMIN)",
				  m->path);
		else
			mqs_error("%s: %s", m->path, strerror(err));
		return MQS_EXIT_FAIL;
	}
	if (S_ISBLK(st.st_mode)) {
		m->rdev = st.st_rdev;
		return MQS_EXIT_OK;
	}
	if (S_ISREG(st.st_mode))
		mqs_error("%s: not a block device but a regular file: attach it with 'losetup --find --show %s' and give the loop device",
			  m->path, m->path);
	else if (S_ISCHR(st.st_mode))
		mqs_error("%s: not a block device but a character device: give the block device (for NVMe the namespace, e.g. /dev/nvme0n1, not /dev/nvme0)",
			  m->path);
	else if (S_ISDIR(st.st_mode))
		mqs_error("%s: not a block device but a directory", m->path);
	else
		mqs_error("%s: not a block device", m->path);
	return MQS_EXIT_FAIL;
}

void report_open_error(const char *path, int err)
{
	char why[MQS_ERR_LEN];

	switch (err) {
	case EACCES:
	case EPERM:
		if (geteuid() != 0)
			mqs_error("%s: permission denied: needs root (CAP_SYS_ADMIN)",
				  path);
		else
			mqs_error("%s: cannot open it for writing (read-only device?): check 'blockdev --getro %s'",
				  path, path);
		break;
	case EROFS:
		mqs_error("%s: the device is read-only: members must be writable (check 'blockdev --getro %s')",
			  path, path);
		break;
	case ENXIO:
	case ENODEV:
		mqs_error("%s: no disk behind the device node: it is gone or not attached (see 'lsblk')",
			  path);
		break;
	case ENOMEDIUM:
		mqs_error("%s: no medium in the device", path);
		break;
	case EBUSY:
		mqs_busy_reason(path, why, sizeof(why));
		mqs_error("%s: device is busy: %s", path, why);
		break;
	default:
		mqs_error("%s: cannot open: %s", path, strerror(err));
		break;
	}
}

/*
 * The device @second was given before as @first (the same path, or another
 * node or link of it); @tail follows the advice.
 */
void report_duplicate(const char *first, const char *second, const char *tail)
{
	if (!strcmp(first, second))
		mqs_error("%s: given twice: give each device once%s", second,
			  tail);
	else
		mqs_error("%s: the same device as %s (given twice): give each device once%s",
			  second, first, tail);
}

/* Each device once, and no disk together with its own partition. */
int check_distinct(const struct mqs_member_dev *members, size_t nr)
{
	uint64_t *ids, *disks;
	size_t i, a, b;
	int rc = MQS_EXIT_FAIL;

	ids = calloc(nr, sizeof(*ids));
	disks = calloc(nr, sizeof(*disks));
	if (!ids || !disks) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		uint32_t ma, mi;

		ids[i] = members[i].rdev;
		if (mqs_whole_disk(major(ids[i]), minor(ids[i]), &ma, &mi))
			disks[i] = ids[i];	/* no sysfs entry: no partition */
		else
			disks[i] = makedev(ma, mi);
	}
	if (mqs_find_duplicate(ids, nr, &a, &b)) {
		report_duplicate(members[a].path, members[b].path, "");
		goto out;
	}
	if (mqs_find_overlap(ids, disks, nr, &a, &b)) {
		if (ids[a] == disks[a])
			mqs_error("%s: a partition of %s, also given: members must not overlap",
				  members[b].path, members[a].path);
		else
			mqs_error("%s: holds the partition %s, also given: members must not overlap",
				  members[b].path, members[a].path);
		goto out;
	}
	rc = MQS_EXIT_OK;
out:
	free(ids);
	free(disks);
	return rc;
}

/* ----- superblock writes ----- */

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
 * sbw_restore_all() puts back).  A block that reads back as something
 * else (a device that keeps nothing, such as null_blk without
 * memory_backed, or another writer) is a warning: the array works, but
 * cannot be assembled from that superblock later.
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
		int err = mqs_dev_read_area(w[i].dfd, blk, NULL);

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
		if (j == n) {
			mqs_error("warning: %s: the superblock does not read back as written (a device that keeps no data, or another writer): the array cannot be assembled from it later",
				  w[i].path);
			continue;
		}
		rc = MQS_EXIT_FAIL;
		w[i].written = false;
		mqs_error("%s and %s are one disk: the superblock written through %s (slot %zu) reads back through %s (slot %zu); give each disk once (two paths of one namespace, loop devices over one file, or a map over a whole device: see 'lsblk -o NAME,WWN,SERIAL' and 'losetup -l')",
			  w[j].path, w[i].path, w[j].path, j, w[i].path, i);
	}
	free(blk);
	return rc;
}

/*
 * Put the old block back on the first @n members that were written
 * (after a failed CREATE): best effort, claiming them again if needed.
 * Only a block that still holds what we wrote is put back: anything else
 * is somebody else's since, and stays.
 */
void sbw_restore_all(struct sbw *w, size_t n)
{
	uint8_t *cur = mqs_block_alloc();
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!w[i].written)
			continue;
		if (w[i].excl < 0) {
			w[i].excl = mqs_open_excl(w[i].path);
			if (w[i].excl < 0) {
				mqs_error("%s: cannot put its old superblock area back: %s",
					  w[i].path, strerror(-w[i].excl));
				continue;
			}
		}
		if (w[i].dfd < 0)
			w[i].dfd = mqs_dev_open_direct(w[i].path, true);
		rc = w[i].dfd < 0 ? w[i].dfd : cur ? 0 : -ENOMEM;
		if (!rc)
			rc = mqs_dev_read_area(w[i].dfd, cur, NULL);
		if (!rc && memcmp(cur, w[i].new, w[i].copies * MQS_SB_SIZE)) {
			mqs_error("%s: not putting its old superblock area back: it no longer holds the superblock stripectl wrote (another program wrote it since)",
				  w[i].path);
			w[i].written = false;
			continue;
		}
		if (!rc)
			rc = mqs_dev_write_area(w[i].dfd, w[i].old,
						w[i].copies, true);
		if (rc)
			mqs_error("%s: cannot put its old superblock area back: %s",
				  w[i].path, strerror(-rc));
		else
			w[i].written = false;
		mqs_dev_drop_cache(w[i].excl);
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
		rc = fd < 0 ? fd : mqs_unwipe(fd, w[i].wiped);
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
		free(w[i].wiped);
	}
	free(w);
}

/**
 * sb_update_member() - rewrite one member's superblock after a stop
 * @path: the member.
 * @uuid: the array it must belong to.
 * @slot: the slot it must have.
 * @state: the new state (MQS_SB_STATE_*).
 * @why: the reason when it was not updated.
 * @len: room at @why.
 *
 * Claims the member exclusively for the write (retrying a transient hold
 * by udev), bumps the event counter and sets the state and update time.
 * A member without a superblock (an array started by hand with the ioctl)
 * is left alone.  Prints nothing: the caller decides how bad it is.
 *
 * Return: 0 updated; 1 no superblock; -1 not updated (@why says why).
 */
int sb_update_member(const char *path, const uint8_t uuid[16], uint32_t slot,
		     uint32_t state, char *why, size_t len)
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
	for (waited = 0;; waited += 100) {
		excl = mqs_open_excl(path);
		if (excl != -EBUSY || waited >= EXCL_RETRY_MS)
			break;
		mqs_sleep_ms(100);
	}
	if (excl < 0) {
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
		snprintf(why, len, "it holds %s, not the array just stopped",
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
	sb->events++;
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

/* ----- starting the array ----- */

static bool node_ok(const char *path, dev_t devt, bool *exists)
{
	struct stat st;

	*exists = !lstat(path, &st);
	return *exists && S_ISBLK(st.st_mode) &&
	       (!devt || st.st_rdev == devt);
}

/**
 * wait_node() - make sure /dev/mqstripeN is there for mkfs
 * @path: /dev/mqstripeN.
 * @major: device number from INFO, 0 if unknown.
 * @minor: device number from INFO.
 *
 * devtmpfs makes the node when the disk is added, udev may take a moment:
 * wait up to NODE_WAIT_MS.  Test guests without udev and without devtmpfs
 * on /dev never get one: make it ourselves from major:minor, as udev would
 * (a node left over from an earlier module load, with another device
 * number, is replaced).
 *
 * Return: 0 or a negative errno.
 */
static int wait_node(const char *path, uint32_t major, uint32_t minor)
{
	dev_t devt = major ? makedev(major, minor) : 0;
	struct group *disk;
	bool exists;
	int waited;

	for (waited = 0; waited < NODE_WAIT_MS; waited += NODE_POLL_MS) {
		if (node_ok(path, devt, &exists))
			return 0;
		mqs_sleep_ms(NODE_POLL_MS);
	}
	if (node_ok(path, devt, &exists))
		return 0;
	if (!devt)
		return -ENOENT;
	if (exists && unlink(path))
		return -errno;
	if (mknod(path, S_IFBLK | 0660, devt))
		return -errno;
	disk = getgrnam("disk");
	if (disk && chown(path, 0, disk->gr_gid))
		return -errno;
	return 0;
}

/**
 * start_array() - MQSTRIPE_IOC_CREATE with the members' open fds, in slot
 *	order, the UUID and the data offset always given
 * @ctl: open control device.
 * @req: the request (members[i].fd open, not exclusively).
 * @uuid: the array UUID.
 * @index: out: N of /dev/mqstripeN.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL after a message naming the member
 * at fault.
 */
int start_array(struct mqs_ctl *ctl, const struct mqs_create_req *req,
		const uint8_t uuid[16], uint32_t *index)
{
	struct mqstripe_create c;
	char msg[MQS_ERR_LEN];
	int32_t *fds;
	uint32_t i;
	int rc;

	fds = calloc(req->nr_members, sizeof(*fds));
	if (!fds) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < req->nr_members; i++)
		fds[i] = req->members[i].fd;

	memset(&c, 0, sizeof(c));
	c.hdr.flags = MQSTRIPE_CREATE_F_UUID | MQSTRIPE_CREATE_F_DATA_OFFSET;
	if (req->readonly)
		c.hdr.flags |= MQSTRIPE_CREATE_F_READONLY;
	c.members_ptr = (uintptr_t)fds;
	c.nr_members = req->nr_members;
	c.queue_depth = (uint32_t)req->queue_depth;
	c.chunk_bytes = req->chunk_bytes;
	c.data_offset_bytes = req->data_offset_bytes;
	if (req->name)
		snprintf(c.name, sizeof(c.name), "%s", req->name);
	memcpy(c.uuid, uuid, sizeof(c.uuid));

	rc = mqs_create(ctl, &c);
	free(fds);
	if (rc) {
		mqs_create_error(-rc, c.error_code, c.error_member,
				 ctl->kernel_abi, req, msg, sizeof(msg));
		mqs_error("%s", msg);
		return MQS_EXIT_FAIL;
	}
	*index = c.index;
	return MQS_EXIT_OK;
}

/*
 * Print /dev/mqstripeN once its node exists.  Return: MQS_EXIT_OK, or
 * MQS_EXIT_FAIL when the node is missing and could not be made.
 */
int announce_array(struct mqs_ctl *ctl, uint32_t index)
{
	struct mqstripe_info info;
	char path[64];
	int rc;

	mqs_array_node(index, path, sizeof(path));
	if (mqs_info(ctl, index, &info, NULL, 0))
		info.major = info.minor = 0;
	rc = wait_node(path, info.major, info.minor);
	printf("%s\n", path);
	fflush(stdout);
	if (rc) {
		mqs_error("%s: the array is created but its device node is missing and could not be made (%s): create it with 'mknod %s b %u %u'",
			  path, strerror(-rc), path, info.major, info.minor);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}
