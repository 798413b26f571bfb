// SPDX-License-Identifier: GPL-2.0
/*
 * Small readers of sysfs: device names from major:minor, queue attributes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mqstripe.h"
#include "parse.h"
#include "sysfs.h"

/**
 * mqs_sysfs_read() - the first line of a sysfs file, without the newline
 * @path: the file.
 * @buf: the text.
 * @len: room at @buf.
 *
 * Return: 0 or a negative errno.
 */
int mqs_sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int mqs_sysfs_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int rc = mqs_sysfs_read(path, buf, sizeof(buf));

	if (rc)
		return rc;
	return mqs_parse_uint(buf, UINT64_MAX, v, NULL, 0);
}

/*
 * mqs_array_readonly() - was array /dev/mqstripe@index started with
 *	assemble --readonly (its mqstripe/readonly reads 1)?
 * @index: the array's N.
 *
 * Return: true when it reads 1; false otherwise, also when it cannot be
 * read (a module without the attribute starts no read-only array).
 */
bool mqs_array_readonly(uint32_t index)
{
	char path[96];
	uint64_t v;

	mqs_array_sysfs(index, "mqstripe/readonly", path, sizeof(path));
	return !mqs_sysfs_read_u64(path, &v) && v == 1;
}

/* "MAJ:MIN" of a sysfs "dev" file */
int mqs_sysfs_devt(const char *path, uint32_t *major, uint32_t *minor)
{
	char buf[64];
	unsigned int ma, mi;
	char end;
	int rc = mqs_sysfs_read(path, buf, sizeof(buf));

	if (rc)
		return rc;
	if (sscanf(buf, "%u:%u%c", &ma, &mi, &end) != 2)
		return -EINVAL;
	*major = ma;
	*minor = mi;
	return 0;
}

/**
 * mqs_devname() - "/dev/NAME" of a block device, from its uevent DEVNAME
 * @major: device number.
 * @minor: device number.
 * @buf: the path, with the kernel's name (/dev/dm-3 for a map: messages
 *	name a device by mqs_devpath()).
 * @len: room at @buf.
 *
 * Return: 0 or a negative errno (-ENOENT: the device is gone).
 */
int mqs_devname(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char path[PATH_MAX], line[256];
	FILE *f;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major,
		 minor);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "DEVNAME=", 8) && line[8]) {
			snprintf(buf, len, "/dev/%s", line + 8);
			rc = 0;
			break;
		}
	}
	fclose(f);
	return rc;
}

/**
 * mqs_devpath() - the path that names a block device to people
 * @major: device number.
 * @minor: device number.
 * @buf: /dev/mapper/NAME for a device-mapper map (NAME from its sysfs
 *	dm/name) when that node is this device; else /dev/KNAME, as
 *	mqs_devname() (also for a map whose /dev/mapper node is missing).
 * @len: room at @buf.
 *
 * What messages and the text of status name a device by: /dev/dm-N says
 * nothing of the map and changes at every activation.  Fields scripts read
 * keep the kernel's name, mqs_devname(): list's DEVICES column (joined
 * with /sys/class/block), the JSON "device" (json_version 1) and the
 * Prometheus label "device" (as node_exporter names disks).
 *
 * Return: 0 or a negative errno (-ENOENT: the device is gone).
 */
int mqs_devpath(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char path[PATH_MAX], name[NAME_MAX + 1];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/name", major,
		 minor);
	if (!mqs_sysfs_read(path, name, sizeof(name)) && name[0] &&
	    !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..")) {
		snprintf(path, sizeof(path), "/dev/mapper/%s", name);
		if (!stat(path, &st) && S_ISBLK(st.st_mode) &&
		    st.st_rdev == makedev(major, minor)) {
			snprintf(buf, len, "%s", path);
			return 0;
		}
	}
	return mqs_devname(major, minor, buf, len);
}

/**
 * mqs_people_path() - @given, or the path that names its device to people
 *	when @given is the kernel's node of a device-mapper map
 * @given: a device path, as udev's $devnode ("/dev/dm-3") or an admin gave
 *	it.
 * @buf: /dev/mapper/NAME for "/dev/dm-N" (mqs_devpath()), else @given.
 * @len: room at @buf.
 *
 * Return: @buf.
 */
const char *mqs_people_path(const char *given, char *buf, size_t len)
{
	char kname[PATH_MAX];
	struct stat st;

	snprintf(buf, len, "%s", given);
	if (strncmp(given, "/dev/dm-", 8) || stat(given, &st) ||
	    !S_ISBLK(st.st_mode))
		return buf;
	if (mqs_devname(major(st.st_rdev), minor(st.st_rdev), kname,
			sizeof(kname)) || strcmp(kname, given))
		return buf;
	if (mqs_devpath(major(st.st_rdev), minor(st.st_rdev), kname,
			sizeof(kname)))
		return buf;
	snprintf(buf, len, "%s", kname);
	return buf;
}

/**
 * mqs_disk_name() - the kernel name of the whole disk holding major:minor
 * @major: device number.
 * @minor: device number.
 * @buf: "nvme0n1" for nvme0n1 and for its partition nvme0n1p1: the name
 *	under /sys/block/, where the queue attributes are.
 * @len: room at @buf.
 *
 * Return: 0 or a negative errno.
 */
int mqs_disk_name(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char path[PATH_MAX], real[PATH_MAX];
	const char *base;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major,
		 minor);
	if (!access(path, F_OK))
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/..", major,
			 minor);
	else
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major,
			 minor);
	if (!realpath(path, real))
		return -errno;
	base = strrchr(real, '/');
	snprintf(buf, len, "%s", base ? base + 1 : real);
	return 0;
}

/* 1 zoned, 0 not, negative errno if unknown */
int mqs_is_zoned(uint32_t major, uint32_t minor)
{
	char disk[NAME_MAX + 1], path[PATH_MAX], buf[64];
	int rc = mqs_disk_name(major, minor, disk, sizeof(disk));

	if (rc)
		return rc;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/zoned", disk);
	rc = mqs_sysfs_read(path, buf, sizeof(buf));
	if (rc)
		return rc;
	return strcmp(buf, "none") != 0;
}

/**
 * mqs_dev_identity() - a name a device keeps whichever node reaches it
 * @major: device number.
 * @minor: device number.
 * @buf: out: the disk's WWID (the "wwid" of an NVMe namespace, made from
 *	its NGUID, EUI-64 or UUID, else vendor, serial, model and NSID:
 *	drivers/nvme/host/core.c wwid_show(); "device/wwid" of a SCSI disk,
 *	from VPD page 0x83), and for a partition ":start=" and its first
 *	sector.
 * @len: room at @buf.
 *
 * Two nodes with one identity are one disk: two paths of a namespace with
 * the kernel's NVMe multipath off, two SCSI paths without multipathd.
 *
 * Return: 0, or a negative errno when the device has none (loop devices,
 * virtio disks, dm and md devices).
 */
int mqs_dev_identity(uint32_t major, uint32_t minor, char *buf, size_t len)
{
	static const char *const files[] = { "wwid", "device/wwid" };
	char path[PATH_MAX], start[32] = "", id[256];
	uint32_t dma, dmi;
	size_t i;
	int rc;

	rc = mqs_whole_disk(major, minor, &dma, &dmi);
	if (rc)
		return rc;
	if (dma != major || dmi != minor) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/start",
			 major, minor);
		rc = mqs_sysfs_read(path, start, sizeof(start));
		if (rc)
			return rc;
	}
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/%s", dma,
			 dmi, files[i]);
		if (!mqs_sysfs_read(path, id, sizeof(id)) && id[0]) {
			snprintf(buf, len, "%s%s%s", id, start[0] ? ":start=" : "",
				 start);
			return 0;
		}
	}
	return -ENOENT;
}

/**
 * mqs_whole_disk() - major:minor of the disk holding a partition
 * @major: device number.
 * @minor: device number.
 * @disk_major: the disk's; @major for a whole disk.
 * @disk_minor: the disk's; @minor for a whole disk.
 *
 * Return: 0 or a negative errno.
 */
int mqs_whole_disk(uint32_t major, uint32_t minor, uint32_t *disk_major,
		   uint32_t *disk_minor)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition", major,
		 minor);
	if (access(path, F_OK)) {
		*disk_major = major;
		*disk_minor = minor;
		return 0;
	}
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", major,
		 minor);
	return mqs_sysfs_devt(path, disk_major, disk_minor);
}
