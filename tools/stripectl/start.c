// SPDX-License-Identifier: GPL-2.0
/*
 * Starting an array: MQSTRIPE_IOC_CREATE, then waiting until its device
 * node exists (made by udev or devtmpfs, or here), and announcing it.
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
#include "cryptlist.h"
#include "devio.h"
#include "errmsg.h"
#include "parse.h"
#include "start.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

#define NODE_WAIT_MS	5000
#define NODE_POLL_MS	50

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
 * mqs_req_data_bytes() - the data bytes per member that the members of
 *	@req give: what the smallest holds after the data offset, in whole
 *	chunks (what the module makes of them without a recorded size)
 * @req: the request, every member's size known.
 *
 * Return: the bytes, 0 when a member holds not even one chunk.
 */
uint64_t mqs_req_data_bytes(const struct mqs_create_req *req)
{
	uint64_t min_size = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < req->nr_members; i++)
		if (req->members[i].size_bytes < min_size)
			min_size = req->members[i].size_bytes;
	return mqs_data_bytes(min_size, req->data_offset_bytes,
			      req->chunk_bytes);
}

/**
 * start_array() - MQSTRIPE_IOC_CREATE with the members' open fds, in slot
 *	order, the UUID and the data offset always given, and the recorded
 *	data bytes per member (a module without MQSTRIPE_FEAT_MEMBER_DATA_BYTES
 *	gets none: it is refused unless the members give that size anyway),
 *	or each member's own (MQSTRIPE_CREATE_F_MEMBER_SIZES: zones)
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
	char a[32], b[32];
	uint32_t i;
	int rc;

	if (req->member_sizes &&
	    !(ctl->version.features & MQSTRIPE_FEAT_MEMBER_SIZES)) {
		mqs_error("the loaded mqstripe module cannot start an array of members of unequal size, in zones (its features lack 'member_sizes': see 'stripectl --version'); update the module");
		return MQS_EXIT_FAIL;
	}
	if (req->segment_members &&
	    !(ctl->version.features & MQSTRIPE_FEAT_SEGMENTS)) {
		mqs_error("the loaded mqstripe module cannot start an array of segments, members added with 'stripectl add' (its features lack 'segments': see 'stripectl --version'); update the module");
		return MQS_EXIT_FAIL;
	}
	if (req->member_data_bytes && !req->member_sizes &&
	    !(ctl->version.features & MQSTRIPE_FEAT_MEMBER_DATA_BYTES) &&
	    req->member_data_bytes != mqs_req_data_bytes(req)) {
		mqs_error("the loaded mqstripe module cannot start an array at its recorded size (its features lack 'member_data_bytes': see 'stripectl --version'): %s of data per member recorded, the members give %s; update the module",
			  mqs_size_human(req->member_data_bytes, a, sizeof(a)),
			  mqs_size_human(mqs_req_data_bytes(req), b,
					 sizeof(b)));
		return MQS_EXIT_FAIL;
	}
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
	if (req->member_sizes) {
		c.hdr.flags |= MQSTRIPE_CREATE_F_MEMBER_SIZES;
		c.member_sizes_ptr = (uintptr_t)req->member_sizes;
		if (req->segment_members) {
			c.hdr.flags |= MQSTRIPE_CREATE_F_SEGMENTS;
			for (i = 0; i < req->nr_segments &&
			     i < MQSTRIPE_MAX_SEGMENTS; i++)
				c.segment_members[i] = req->segment_members[i];
		}
	} else if (req->member_data_bytes &&
		   (ctl->version.features & MQSTRIPE_FEAT_MEMBER_DATA_BYTES)) {
		c.hdr.flags |= MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
		c.member_data_bytes = req->member_data_bytes;
	}
	if (req->name)
		snprintf(c.name, sizeof(c.name), "%s", req->name);
	memcpy(c.uuid, uuid, sizeof(c.uuid));

	rc = mqs_create(ctl, &c);
	if (rc) {
		free(fds);
		mqs_create_error(-rc, c.error_code, c.error_member,
				 ctl->kernel_abi, req, msg, sizeof(msg));
		mqs_error("%s", msg);
		return MQS_EXIT_FAIL;
	}
	/* dm-crypt members: for the shutdown's order (mqstripe-generator) */
	mqs_crypt_list_started(uuid, fds, req->nr_members);
	free(fds);
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
