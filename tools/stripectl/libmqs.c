// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl wrappers: one place fills struct mqstripe_ioctl_hdr, one place
 * turns the module's answer into 0 / -errno, one place notices an ABI
 * version mismatch (the module writes its own version back into the
 * header, also on failure).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "errmsg.h"
#include "libmqs.h"
#include "parse.h"
#include "sysfs.h"

static void hdr_init(struct mqstripe_ioctl_hdr *hdr, size_t size,
		     uint32_t flags)
{
	hdr->version = MQSTRIPE_ABI_VERSION;
	hdr->size = (uint32_t)size;
	hdr->flags = flags;
	hdr->reserved = 0;
}

static int do_ioctl(struct mqs_ctl *ctl, unsigned long cmd,
		    struct mqstripe_ioctl_hdr *hdr)
{
	int err;

	if (ioctl(ctl->fd, cmd, hdr) == 0)
		return 0;
	err = errno;
	/*
	 * The module refuses a version it does not know with EINVAL and
	 * writes its own into the header: tell that apart from a real
	 * EINVAL, the admin needs to hear "versions differ".
	 */
	if (err == EINVAL && hdr->version != MQSTRIPE_ABI_VERSION) {
		ctl->kernel_abi = hdr->version;
		return -EPROTO;
	}
	return -err;
}

int mqs_get_version(struct mqs_ctl *ctl, struct mqstripe_version *v)
{
	memset(v, 0, sizeof(*v));
	hdr_init(&v->hdr, sizeof(*v), 0);
	/* GET_VERSION takes any version: an EINVAL here is not a mismatch */
	if (ioctl(ctl->fd, MQSTRIPE_IOC_GET_VERSION, v))
		return -errno;
	v->module_version[sizeof(v->module_version) - 1] = '\0';
	ctl->kernel_abi = v->abi_version;
	if (v->abi_version != MQSTRIPE_ABI_VERSION)
		return -EPROTO;
	return 0;
}

/*
 * Without devtmpfs and udev (minimal test guests), loading the module makes
 * /sys/class/misc/mqstripe-control but no /dev node: make it from the
 * "dev" attribute, as udev would.
 */
static void make_control_node(void)
{
	uint32_t major, minor;

	if (mqs_sysfs_devt("/sys/class/misc/" MQSTRIPE_CONTROL_NAME "/dev",
			   &major, &minor))
		return;
	/* fails harmlessly if someone made it meanwhile, or if not root */
	mknod(MQS_CONTROL_PATH, S_IFCHR | 0600, makedev(major, minor));
}

/**
 * mqs_ctl_open() - open /dev/mqstripe-control and check the ABI version
 * @ctl: filled; ctl->fd is -1 on failure.
 *
 * Return: 0, or a negative errno of open() or of GET_VERSION; -EPROTO
 * when the module's ABI version differs (in ctl->kernel_abi).
 */
int mqs_ctl_open(struct mqs_ctl *ctl)
{
	int rc;

	memset(ctl, 0, sizeof(*ctl));
	ctl->fd = open(MQS_CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (ctl->fd < 0 && errno == ENOENT) {
		make_control_node();
		ctl->fd = open(MQS_CONTROL_PATH, O_RDWR | O_CLOEXEC);
	}
	if (ctl->fd < 0)
		return -errno;
	rc = mqs_get_version(ctl, &ctl->version);
	if (rc) {
		close(ctl->fd);
		ctl->fd = -1;
	}
	return rc;
}

void mqs_ctl_close(struct mqs_ctl *ctl)
{
	if (ctl->fd >= 0)
		close(ctl->fd);
	ctl->fd = -1;
}

/*
 * The caller fills everything but the header's version and size, and sets
 * hdr.flags; on failure, error_code and error_member are valid.
 */
int mqs_create(struct mqs_ctl *ctl, struct mqstripe_create *c)
{
	int rc;

	hdr_init(&c->hdr, sizeof(*c), c->hdr.flags);
	/* outputs: the module wants them zero on input */
	c->index = 0;
	c->error_member = 0;
	c->error_code = MQSTRIPE_ERR_NONE;
	rc = do_ioctl(ctl, MQSTRIPE_IOC_CREATE, &c->hdr);
	/*
	 * A refusal before the module looked at the request (header,
	 * reserved fields, copying) leaves the struct as we sent it: then
	 * error_member is not an answer, do not blame member 0.
	 */
	if (rc && c->error_code == MQSTRIPE_ERR_NONE)
		c->error_member = (uint32_t)-1;
	return rc;
}

int mqs_remove(struct mqs_ctl *ctl, uint32_t index)
{
	struct mqstripe_remove r;

	memset(&r, 0, sizeof(r));
	hdr_init(&r.hdr, sizeof(r), 0);
	r.index = index;
	return do_ioctl(ctl, MQSTRIPE_IOC_REMOVE, &r.hdr);
}

/**
 * mqs_clear() - a faulty member of array @index is ok again
 * @ctl: open control.
 * @index: N of /dev/mqstripeN.
 * @slot: the member's slot.
 * @before: out: its state before (MQSTRIPE_MEMBER_*).
 *
 * Return: 0, -ENODEV (no such array), -ENXIO (the member is gone),
 * -EINVAL (no such slot), -ENOTTY (a module without the command), or
 * another negative errno.
 */
int mqs_clear(struct mqs_ctl *ctl, uint32_t index, uint32_t slot,
	      uint32_t *before)
{
	struct mqstripe_clear c;
	int rc;

	memset(&c, 0, sizeof(c));
	hdr_init(&c.hdr, sizeof(c), 0);
	c.index = index;
	c.slot = slot;
	rc = do_ioctl(ctl, MQSTRIPE_IOC_CLEAR, &c.hdr);
	*before = c.state;
	return rc;
}

/**
 * mqs_rename() - array @index is named @name from now on
 * @ctl: open control.
 * @index: N of /dev/mqstripeN.
 * @name: the new name (checked by the module as CREATE's).
 *
 * Return: 0, -ENODEV (no such array), -EEXIST (another array has it),
 * -EINVAL (an invalid name), -ENOTTY (a module without the command), or
 * another negative errno.
 */
int mqs_rename(struct mqs_ctl *ctl, uint32_t index, const char *name)
{
	struct mqstripe_rename r;

	memset(&r, 0, sizeof(r));
	hdr_init(&r.hdr, sizeof(r), 0);
	r.index = index;
	snprintf(r.name, sizeof(r.name), "%s", name);
	return do_ioctl(ctl, MQSTRIPE_IOC_RENAME, &r.hdr);
}

/**
 * mqs_resize() - array @index takes @member_data_bytes of every member
 * @ctl: open control.
 * @index: N of /dev/mqstripeN.
 * @member_data_bytes: the new bytes of data per member.
 * @capacity: out: the array's size after, in bytes.
 * @error_member: out: the slot without room (-ENOSPC), else
 *	MQSTRIPE_NO_MEMBER.
 *
 * Return: 0, -ENODEV (no such array), -EINVAL (not a multiple of the
 * chunk, or smaller than the array's), -ENOSPC (a member too small), -EIO
 * (the array failed), -EROFS (read-only), -ENOTTY (a module without the
 * command), or another negative errno.
 */
int mqs_resize(struct mqs_ctl *ctl, uint32_t index, uint64_t member_data_bytes,
	       uint64_t *capacity, uint32_t *error_member)
{
	struct mqstripe_resize r;
	int rc;

	memset(&r, 0, sizeof(r));
	hdr_init(&r.hdr, sizeof(r), 0);
	r.index = index;
	r.member_data_bytes = member_data_bytes;
	rc = do_ioctl(ctl, MQSTRIPE_IOC_RESIZE, &r.hdr);
	*capacity = r.capacity_bytes;
	/* error_member is an answer only with its error code */
	*error_member = r.error_code == MQSTRIPE_ERR_TOO_SMALL ?
			r.error_member : MQSTRIPE_NO_MEMBER;
	return rc;
}

/**
 * mqs_info() - describe array @index
 * @ctl: open control.
 * @index: N of /dev/mqstripeN.
 * @info: filled.
 * @members: room for @cap entries, filled in slot order; may be NULL.
 * @cap: entries at @members.
 *
 * Return: 0, -ENODEV (no such array), or another negative errno.
 */
int mqs_info(struct mqs_ctl *ctl, uint32_t index, struct mqstripe_info *info,
	     struct mqstripe_member_info *members, uint32_t cap)
{
	int rc;

	memset(info, 0, sizeof(*info));
	hdr_init(&info->hdr, sizeof(*info), 0);
	info->index = index;
	info->members_cap = members ? cap : 0;
	info->members_ptr = (uintptr_t)members;
	rc = do_ioctl(ctl, MQSTRIPE_IOC_INFO, &info->hdr);
	if (!rc)
		info->name[sizeof(info->name) - 1] = '\0';
	return rc;
}

/**
 * mqs_list() - the indexes of all arrays, ascending
 * @ctl: open control.
 * @indexes: allocated array of @count entries (free() it); NULL if none.
 * @count: number of arrays.
 *
 * Arrays may come and go while we ask: grow the buffer until it holds the
 * whole answer.
 *
 * Return: 0 or a negative errno.
 */
int mqs_list(struct mqs_ctl *ctl, uint32_t **indexes, uint32_t *count)
{
	struct mqstripe_list l;
	uint32_t *buf = NULL, cap = 0;
	int rc, tries;

	for (tries = 0; tries < 100; tries++) {
		memset(&l, 0, sizeof(l));
		hdr_init(&l.hdr, sizeof(l), 0);
		l.indexes_cap = cap;
		l.indexes_ptr = (uintptr_t)buf;
		rc = do_ioctl(ctl, MQSTRIPE_IOC_LIST, &l.hdr);
		if (rc)
			break;
		if (l.count <= cap) {
			*indexes = l.count ? buf : NULL;
			*count = l.count;
			if (!l.count)
				free(buf);
			return 0;
		}
		cap = l.count + 8;
		free(buf);
		buf = calloc(cap, sizeof(*buf));
		if (!buf)
			return -ENOMEM;
	}
	free(buf);
	return rc ? rc : -EAGAIN;
}

/* Array whose INFO satisfies @match, by walking LIST. */
static int find_by(struct mqs_ctl *ctl,
		   bool (*match)(const struct mqstripe_info *, const void *),
		   const void *arg, uint32_t *index, struct mqstripe_info *info)
{
	uint32_t *idx, n, i;
	int rc = mqs_list(ctl, &idx, &n);

	if (rc)
		return rc;
	rc = -ENODEV;
	for (i = 0; i < n; i++) {
		int r = mqs_info(ctl, idx[i], info, NULL, 0);

		if (r == -ENODEV)	/* removed meanwhile */
			continue;
		if (r) {
			rc = r;
			break;
		}
		if (match(info, arg)) {
			*index = idx[i];
			rc = 0;
			break;
		}
	}
	free(idx);
	return rc;
}

static bool match_devt(const struct mqstripe_info *info, const void *arg)
{
	const dev_t *devt = arg;

	return makedev(info->major, info->minor) == *devt;
}

static bool match_name(const struct mqstripe_info *info, const void *arg)
{
	return info->name[0] && !strcmp(info->name, arg);
}

static bool match_uuid(const struct mqstripe_info *info, const void *arg)
{
	return !memcmp(info->uuid, arg, sizeof(info->uuid));
}

/* The running array with this UUID.  Return: 0, -ENODEV, or -errno. */
int mqs_find_uuid(struct mqs_ctl *ctl, const uint8_t uuid[16],
		  uint32_t *index, struct mqstripe_info *info)
{
	return find_by(ctl, match_uuid, uuid, index, info);
}

/* The running array with this name (never a device spelling). */
int mqs_find_name(struct mqs_ctl *ctl, const char *name, uint32_t *index,
		  struct mqstripe_info *info)
{
	return find_by(ctl, match_name, name, index, info);
}

/**
 * mqs_find_array() - resolve "/dev/mqstripeN", "mqstripeN", a path to the
 * device node (a symlink, e.g. /dev/disk/by-...) or an array name
 * @ctl: open control.
 * @arg: what the admin typed.
 * @index: N.
 * @info: INFO of the array (without members).
 *
 * The device spelling wins over a name; stripectl create refuses names
 * that look like device names.
 *
 * Return: 0; -ENODEV (no such array), -ENOENT (path does not exist),
 * -ENOTBLK (path is not a block device), or another negative errno.
 */
int mqs_find_array(struct mqs_ctl *ctl, const char *arg, uint32_t *index,
		   struct mqstripe_info *info)
{
	struct stat st;

	if (mqs_parse_dev_index(arg, index))
		return mqs_info(ctl, *index, info, NULL, 0);
	if (strchr(arg, '/')) {
		if (stat(arg, &st))
			return -errno;
		if (!S_ISBLK(st.st_mode))
			return -ENOTBLK;
		return find_by(ctl, match_devt, &st.st_rdev, index, info);
	}
	return find_by(ctl, match_name, arg, index, info);
}
