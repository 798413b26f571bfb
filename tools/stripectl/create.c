// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl create: check everything userspace can see (options, paths,
 * duplicates, sizes, block sizes) with one precise message each, then
 * hand the member fds to MQSTRIPE_IOC_CREATE and turn the module's
 * (errno, error_code, error_member) into a message naming the member.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>

#include "errmsg.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

#define NODE_WAIT_MS	5000
#define NODE_POLL_MS	50

/* stat() a member: exists, is a block device. */
static int check_member_path(struct mqs_member *m)
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

static void report_open_error(const struct mqs_member *m, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		if (geteuid() != 0)
			mqs_error("%s: permission denied: needs root (CAP_SYS_ADMIN)",
				  m->path);
		else
			mqs_error("%s: cannot open it for writing (read-only device?): check 'blockdev --getro %s'",
				  m->path, m->path);
		break;
	case EROFS:
		mqs_error("%s: the device is read-only: members must be writable (check 'blockdev --getro %s')",
			  m->path, m->path);
		break;
	case ENXIO:
	case ENODEV:
		mqs_error("%s: no disk behind the device node: it is gone or not attached (see 'lsblk')",
			  m->path);
		break;
	case ENOMEDIUM:
		mqs_error("%s: no medium in the device", m->path);
		break;
	case EBUSY:
		mqs_error("%s: device is busy: it is mounted, in use or a member of another array (check 'lsblk %s' and 'stripectl list')",
			  m->path, m->path);
		break;
	default:
		mqs_error("%s: cannot open: %s", m->path, strerror(err));
		break;
	}
}

/*
 * Open a member read-write, NOT O_EXCL: the module claims it exclusively
 * itself, and would find it busy if we held it.  Then read what the
 * module will check, so that most refusals get a message naming the
 * numbers before any kernel call.
 */
static int open_member(struct mqs_member *m, uint64_t chunk, uint64_t offset)
{
	char err[MQS_ERR_LEN], disk[NAME_MAX + 1];
	unsigned int pbs = 0;
	uint64_t size = 0;
	struct stat st;

	m->fd = open(m->path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		report_open_error(m, errno);
		return MQS_EXIT_FAIL;
	}
	if (fstat(m->fd, &st) || !S_ISBLK(st.st_mode) ||
	    st.st_rdev != m->rdev) {
		mqs_error("%s: changed while being opened: retry", m->path);
		return MQS_EXIT_FAIL;
	}
	if (ioctl(m->fd, BLKGETSIZE64, &size)) {
		mqs_error("%s: cannot read its size: %s", m->path,
			  strerror(errno));
		return MQS_EXIT_FAIL;
	}
	if (ioctl(m->fd, BLKPBSZGET, &pbs))
		pbs = 0;	/* unknown: the module checks it */
	m->size_bytes = size;
	m->pbs = pbs;
	if (!mqs_disk_name(major(m->rdev), minor(m->rdev), disk, sizeof(disk)))
		snprintf(m->pbs_hint, sizeof(m->pbs_hint),
			 "/sys/block/%s/queue/physical_block_size", disk);

	if (mqs_is_zoned(major(m->rdev), minor(m->rdev)) == 1) {
		mqs_error("%s: zoned block devices cannot be members: use a conventional (non-zoned) device",
			  m->path);
		return MQS_EXIT_FAIL;
	}
	if (mqs_check_member_fit(size, pbs, chunk, offset,
				 m->pbs_hint[0] ? m->pbs_hint : NULL,
				 err, sizeof(err))) {
		mqs_error("%s: %s", m->path, err);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

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

static int check_options(uint64_t chunk, uint64_t offset, bool depth_given,
			 uint64_t depth, const char *name, const char *uuid_str,
			 uint8_t uuid[16], size_t nr)
{
	char err[MQS_ERR_LEN];

	if (mqs_check_chunk(chunk, err, sizeof(err))) {
		mqs_error("--chunk: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (mqs_check_data_offset(offset, err, sizeof(err))) {
		mqs_error("--data-offset: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (depth_given && mqs_check_queue_depth(depth, err, sizeof(err))) {
		mqs_error("--queue-depth: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (name && mqs_check_name(name, err, sizeof(err))) {
		mqs_error("--name: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (uuid_str && mqs_parse_uuid(uuid_str, uuid, err, sizeof(err))) {
		mqs_error("--uuid: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (mqs_check_nr_members(nr, err, sizeof(err))) {
		mqs_error("%s", err);
		return MQS_EXIT_USAGE;
	}
	if (mqs_check_stripe_width(chunk, nr, err, sizeof(err))) {
		mqs_error("--chunk: %s", err);
		return MQS_EXIT_USAGE;
	}
	return MQS_EXIT_OK;
}

/* Each device once, and no disk together with its own partition. */
static int check_distinct(const struct mqs_member *members, size_t nr)
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
		if (!strcmp(members[a].path, members[b].path))
			mqs_error("%s: given twice: give each device once",
				  members[b].path);
		else
			mqs_error("%s: the same device as %s (given twice): give each device once",
				  members[b].path, members[a].path);
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

static int check_members(struct mqs_member *members, size_t nr,
			 uint64_t chunk, uint64_t offset)
{
	size_t i;
	int rc;

	for (i = 0; i < nr; i++) {
		rc = check_member_path(&members[i]);
		if (rc)
			return rc;
	}
	rc = check_distinct(members, nr);
	if (rc)
		return rc;
	for (i = 0; i < nr; i++) {
		rc = open_member(&members[i], chunk, offset);
		if (rc)
			return rc;
	}
	return MQS_EXIT_OK;
}

static int do_create(struct mqs_create_req *req, bool offset_given,
		     const uint8_t uuid[16])
{
	struct mqstripe_create c;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	char msg[MQS_ERR_LEN], path[64];
	int32_t *fds;
	uint32_t i;
	int rc;

	rc = ctl_open_or_report(&ctl);
	if (rc)
		return rc;
	fds = calloc(req->nr_members, sizeof(*fds));
	if (!fds) {
		mqs_error("out of memory");
		mqs_ctl_close(&ctl);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < req->nr_members; i++)
		fds[i] = req->members[i].fd;

	memset(&c, 0, sizeof(c));
	c.members_ptr = (uintptr_t)fds;
	c.nr_members = req->nr_members;
	c.queue_depth = (uint32_t)req->queue_depth;
	c.chunk_bytes = req->chunk_bytes;
	if (offset_given) {
		c.hdr.flags |= MQSTRIPE_CREATE_F_DATA_OFFSET;
		c.data_offset_bytes = req->data_offset_bytes;
	}
	if (req->name)
		snprintf(c.name, sizeof(c.name), "%s", req->name);
	if (req->uuid) {
		c.hdr.flags |= MQSTRIPE_CREATE_F_UUID;
		memcpy(c.uuid, uuid, sizeof(c.uuid));
	}

	rc = mqs_create(&ctl, &c);
	free(fds);
	if (rc) {
		mqs_create_error(-rc, c.error_code, c.error_member,
				 ctl.kernel_abi, req, msg, sizeof(msg));
		mqs_error("%s", msg);
		mqs_ctl_close(&ctl);
		return MQS_EXIT_FAIL;
	}

	snprintf(path, sizeof(path), "/dev/%s%u", MQSTRIPE_DISK_PREFIX,
		 c.index);
	if (mqs_info(&ctl, c.index, &info, NULL, 0))
		info.major = info.minor = 0;
	mqs_ctl_close(&ctl);
	rc = wait_node(path, info.major, info.minor);
	printf("%s\n", path);
	if (rc) {
		mqs_error("%s: the array is created but its device node is missing and could not be made (%s): create it with 'mknod %s b %u %u'",
			  path, strerror(-rc), path, info.major, info.minor);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

int cmd_create(const struct cmd *cmd, int argc, char **argv)
{
	uint64_t chunk = MQSTRIPE_DEFAULT_CHUNK_BYTES;
	uint64_t offset = MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES;
	uint64_t depth = 0;
	const char *name = NULL, *uuid_str = NULL;
	bool offset_given = false, depth_given = false;
	const struct opt opts[] = {
		{ "chunk", 'c', OPT_SIZE, &chunk, NULL, "SIZE",
		  "chunk size: a power of two from 4K to 16M and at least the members' physical block size; members x chunk at most 1G (default 512K)" },
		{ "name", 'n', OPT_STR, &name, NULL, "NAME",
		  "array name: 1 to 31 characters of A-Z a-z 0-9 . _ -, not starting with '-', not mqstripeN (default: none)" },
		{ "uuid", 'u', OPT_STR, &uuid_str, NULL, "UUID",
		  "array UUID, as 01234567-89ab-cdef-0123-456789abcdef (default: random)" },
		{ "queue-depth", 'q', OPT_UINT, &depth, &depth_given, "N",
		  "tags per hardware queue, 1..4096 (default 128)" },
		{ "data-offset", 'o', OPT_SIZE, &offset, &offset_given,
		  "SIZE",
		  "where data starts on every member: a multiple of 4K and of the members' physical block size (default 1M)" },
		{ 0 }
	};
	struct mqs_create_req req;
	struct mqs_member *members;
	uint8_t uuid[16];
	size_t nr, i;
	int first, rc;

	switch (opts_parse(cmd, opts, argc, argv, &first)) {
	case OPTS_HELP:
		return MQS_EXIT_OK;
	case OPTS_USAGE:
		return MQS_EXIT_USAGE;
	case OPTS_OK:
		break;
	}
	nr = (size_t)(argc - first);
	rc = check_options(chunk, offset, depth_given, depth, name, uuid_str,
			   uuid, nr);
	if (rc)
		return rc;

	members = calloc(nr, sizeof(*members));
	if (!members) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		members[i].path = argv[first + i];
		members[i].fd = -1;
		members[i].size_bytes = MQS_SIZE_UNKNOWN;
	}
	req = (struct mqs_create_req){
		.members = members,
		.nr_members = (uint32_t)nr,
		.chunk_bytes = chunk,
		.data_offset_bytes = offset,
		.queue_depth = depth,
		.name = name,
		.uuid = uuid_str,
	};

	rc = check_members(members, nr, chunk, offset);
	if (!rc)
		rc = do_create(&req, offset_given, uuid);

	for (i = 0; i < nr; i++)
		if (members[i].fd >= 0)
			close(members[i].fd);
	free(members);
	return rc;
}
