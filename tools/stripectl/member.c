// SPDX-License-Identifier: GPL-2.0
/*
 * Member checks of create and assemble: a member path is a block device
 * that exists (and the message when it cannot be opened), and no device
 * is given twice, under two names, or with a partition of it.
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

#include "common.h"
#include "devio.h"
#include "errmsg.h"
#include "member.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

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

/**
 * check_one_disk() - refuse two nodes of one disk
 * @paths: the device paths.
 * @devs: their device numbers.
 * @nr: how many.
 *
 * Two nodes whose disks report one identity (mqs_dev_identity(): an NVMe
 * namespace's wwid from its NGUID, EUI-64 or UUID, a SCSI disk's) are two
 * paths of one disk: a namespace reached through two controllers with
 * the kernel's NVMe multipath off, SCSI paths without multipathd.  As two
 * members they would put two slots' data on one disk; in assemble they
 * carry one superblock.  Devices that report no identity (loop, virtio,
 * dm, md) pass.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL after an error naming both
 * nodes, the identity and what to give instead.
 */
int check_one_disk(const char *const *paths, const uint64_t *devs, size_t nr)
{
	char (*id)[288];
	size_t i, j;
	int rc = MQS_EXIT_OK;

	id = calloc(nr, sizeof(*id));
	if (!id) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr && !rc; i++) {
		if (mqs_dev_identity(major(devs[i]), minor(devs[i]), id[i],
				     sizeof(id[i])))
			continue;
		for (j = 0; j < i; j++) {
			if (strcmp(id[i], id[j]))
				continue;
			mqs_error("%s and %s are one disk: both report the identity %s; give each disk once (two paths of one namespace: use the multipath device, the NVMe head with nvme_core.multipath=Y or the dm-multipath map)",
				  paths[j], paths[i], id[i]);
			rc = MQS_EXIT_FAIL;
			break;
		}
	}
	free(id);
	return rc;
}

/*
 * Do @a and @b report one identity (mqs_dev_identity()): two paths of one
 * disk?  A device without one (loop, virtio, dm, md) is no other's path.
 */
bool same_disk(uint64_t a, uint64_t b)
{
	char x[288], y[288];

	return !mqs_dev_identity(major(a), minor(a), x, sizeof(x)) &&
	       !mqs_dev_identity(major(b), minor(b), y, sizeof(y)) &&
	       !strcmp(x, y);
}
