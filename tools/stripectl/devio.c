// SPDX-License-Identifier: GPL-2.0
/*
 * Device IO for the superblock area: the 4 KiB copies at bytes 4096 and
 * 8192 (docs/FORMAT.md), read and written with O_DIRECT (no stale page cache in between), every write
 * followed by fsync() (the block layer turns it into a cache flush of the
 * device) and BLKFLSBUF on the buffered descriptor where one exists, so
 * that blkid and udev read what is on the device.
 *
 * libblkid finds foreign signatures (filesystems, partition tables, md and
 * LVM members) and wipes them the way wipefs does.
 */
#include <blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

#include <libmount.h>
#include <libudev.h>

#include "common.h"
#include "devio.h"
#include "stripectl.h"
#include "sysfs.h"

/*
 * A buffer for the superblock area (MQS_SB_AREA_SIZE bytes, zeroed) that
 * O_DIRECT accepts on any device with blocks up to 4 KiB.
 */
uint8_t *mqs_block_alloc(void)
{
	void *p;

	if (posix_memalign(&p, MQS_SB_SIZE, MQS_SB_AREA_SIZE))
		return NULL;
	memset(p, 0, MQS_SB_AREA_SIZE);
	return p;
}

/* Return: a descriptor, or a negative errno. */
int mqs_dev_open_direct(const char *path, bool write)
{
	int fd = open(path, (write ? O_RDWR : O_RDONLY) | O_DIRECT |
			    O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* One copy: MQS_SB_SIZE bytes at MQS_SB_OFFSET + @copy x MQS_SB_SIZE. */
static int full_io(int fd, uint8_t *buf, bool write, unsigned int copy)
{
	uint64_t at = MQS_SB_OFFSET + (uint64_t)copy * MQS_SB_SIZE;
	size_t done = 0;

	while (done < MQS_SB_SIZE) {
		ssize_t n;

		if (write)
			n = pwrite(fd, buf + done, MQS_SB_SIZE - done,
				   (off_t)(at + done));
		else
			n = pread(fd, buf + done, MQS_SB_SIZE - done,
				  (off_t)(at + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* past the end: a tiny device */
		done += (size_t)n;
	}
	return 0;
}

/**
 * mqs_dev_read_area() - read the superblock area of a member
 * @fd: the device (O_DIRECT).
 * @area: from mqs_block_alloc().
 * @area_len: out: MQS_SB_AREA_SIZE, or MQS_SB_SIZE when the device ends
 *	before the second copy (its bytes are then zero); may be NULL.
 *
 * Return: 0 or a negative errno (-EIO: the device ends before 8K).
 */
int mqs_dev_read_area(int fd, uint8_t *area, size_t *area_len)
{
	int rc = full_io(fd, area, false, 0);

	if (area_len)
		*area_len = MQS_SB_SIZE;
	if (rc)
		return rc;
	rc = full_io(fd, area + MQS_SB_SIZE, false, 1);
	if (rc == -EIO) {
		memset(area + MQS_SB_SIZE, 0, MQS_SB_SIZE);
		return 0;	/* no room for a second copy */
	}
	if (!rc && area_len)
		*area_len = MQS_SB_AREA_SIZE;
	return rc;
}

/**
 * mqs_dev_write_area() - write copies of the superblock area, durably
 * @fd: the device (O_DIRECT, read-write).
 * @area: MQS_SB_AREA_SIZE bytes.
 * @nr: copies to write: 1 (the copy at 4096 only) or 2.
 * @second_first: with @nr 2, write the copy at 8192 first.
 *
 * Each copy is followed by fsync() (on a block device: write-back and a
 * cache flush), so that it is on the device before the next is written:
 * whatever a cut or a torn write does to one, the other is whole.  The
 * caller writes first the copy that is not the one in use, so the one in
 * use stays until its successor is durable.
 *
 * Return: 0 or a negative errno.
 */
int mqs_dev_write_area(int fd, const uint8_t *area, unsigned int nr,
		       bool second_first)
{
	unsigned int i, copy;
	int rc;

	for (i = 0; i < nr; i++) {
		copy = nr == 2 && second_first ? 1 - i : i;
		rc = full_io(fd, (uint8_t *)area + copy * MQS_SB_SIZE, true,
			     copy);
		if (rc)
			return rc;
		if (fsync(fd))
			return -errno;
	}
	return 0;
}

/* Write back and drop the page cache of the device (needs CAP_SYS_ADMIN). */
void mqs_dev_drop_cache(int fd)
{
	if (fsync(fd) == 0)
		ioctl(fd, BLKFLSBUF, 0);
}

int mqs_dev_geometry(int fd, uint64_t *size, unsigned int *lbs)
{
	int ssz = 0;

	if (ioctl(fd, BLKGETSIZE64, size))
		return -errno;
	if (ioctl(fd, BLKSSZGET, &ssz))
		return -errno;
	*lbs = (unsigned int)ssz;
	return 0;
}

/**
 * mqs_cand_read() - read what a device says about itself
 * @c: filled: path, devno, size, block size, the raw block, the decoded
 *	superblock and its status; @c->read_err on failure.
 * @path: the device.
 *
 * Opens the device read-only and not exclusively: this works on members
 * of running arrays too.  A regular file (an image) is read as well.
 *
 * Return: 0, or the negative errno also in @c->read_err.
 */
int mqs_cand_read(struct mqs_cand *c, const char *path)
{
	struct stat st;
	int fd, rc = 0;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->status = MQS_SB_NONE;
	snprintf(c->why, sizeof(c->why), "no mqstripe superblock");
	if (stat(path, &st)) {
		rc = -errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		/* an image file: examine reads it, assemble refuses it */
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			goto fail;
		}
		c->size_bytes = (uint64_t)st.st_size;
		c->lbs = MQS_SB_MIN_LBS;
	} else if (S_ISBLK(st.st_mode)) {
		c->devno = st.st_rdev;
		fd = mqs_dev_open_direct(path, false);
		if (fd < 0) {
			rc = fd;
			goto fail;
		}
		rc = mqs_dev_geometry(fd, &c->size_bytes, &c->lbs);
		if (rc)
			goto out;
	} else {
		rc = -ENOTBLK;
		goto fail;
	}
	if (c->lbs > MQS_SB_MAX_LBS ||
	    c->size_bytes < MQS_SB_OFFSET + MQS_SB_SIZE) {
		snprintf(c->why, sizeof(c->why),
			 "no mqstripe superblock (the device %s)",
			 c->lbs > MQS_SB_MAX_LBS ?
			 "has logical blocks larger than 4096 bytes" :
			 "is smaller than 8K");
		goto out;
	}
	c->block = mqs_block_alloc();
	if (!c->block) {
		rc = -ENOMEM;
		goto out;
	}
	rc = mqs_dev_read_area(fd, c->block, &c->area_len);
	if (rc)
		goto out;
	c->status = mqs_sb_decode_area(c->block, c->area_len, &c->sb,
				       &c->copies, c->why, sizeof(c->why));
out:
	close(fd);
	if (!rc)
		return 0;
fail:
	c->read_err = -rc;
	snprintf(c->why, sizeof(c->why), "cannot read it: %s", strerror(-rc));
	return rc;
}

void mqs_cand_free(struct mqs_cand *c)
{
	free(c->block);
	c->block = NULL;
}

static bool dm_suspended(unsigned int ma, unsigned int mi)
{
	char path[64], buf[16];

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/dm/suspended", ma,
		 mi);
	return !mqs_sysfs_read(path, buf, sizeof(buf)) && !strcmp(buf, "1");
}

/*
 * The first entry of SYSDIR/holders (SYSDIR: /sys/dev/block/MAJ:MIN) whose
 * name does not start with @skip (NULL: any), if any.
 */
static bool first_holder(const char *sysdir, const char *skip, char *name,
			 size_t len)
{
	char path[PATH_MAX + 16];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	dir = opendir(path);
	if (!dir)
		return false;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' ||
		    (skip && !strncmp(d->d_name, skip, strlen(skip))))
			continue;
		snprintf(name, len, "%s", d->d_name);
		found = true;
		break;
	}
	closedir(dir);
	return found;
}

/**
 * mqs_stacked_under() - is the device held by a stacked device that is not
 *	an mqstripe array
 * @devno: the device.
 * @holder: out: the first such holder's kernel name ("dm-3", "md0").
 * @len: room at @holder.
 *
 * A device-mapper map over all of a member (a linear map, a multipath map
 * over its paths) or an md mirror with its metadata at the end shows the
 * member's superblock at the same place: assembly must use the top-most
 * device, never the one under it (which would bypass the mirror or the
 * map).  A member of a running mqstripe array is held by that array and
 * is not "under" anything here.
 *
 * Return: true when such a holder exists.
 */
bool mqs_stacked_under(uint64_t devno, char *holder, size_t len)
{
	char sysdir[64];

	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(devno),
		 minor(devno));
	return first_holder(sysdir, MQSTRIPE_DISK_PREFIX, holder, len);
}

/*
 * Does @path carry the metadata of an md array or a firmware RAID set
 * (libblkid types *_raid_member: linux_raid_member, isw_raid_member, ...)?
 * A leg of an md mirror with its metadata at the end shows the superblock
 * of an array on the mirror at the same place; started on the leg, the
 * array would split the mirror.  The udev rule skips the same devices
 * (ID_FS_TYPE=="?*_raid_member").
 */
static bool raid_leg(const char *path)
{
	const char *type = NULL;
	blkid_probe pr;
	bool leg = false;

	pr = blkid_new_probe_from_filename(path);
	if (!pr)
		return false;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE);
	blkid_probe_filter_superblocks_usage(pr, BLKID_FLTR_ONLYIN,
					     BLKID_USAGE_RAID);
	if (!blkid_do_safeprobe(pr) &&
	    !blkid_probe_lookup_value(pr, "TYPE", &type, NULL)) {
		size_t n = strlen(type), m = strlen("_raid_member");

		leg = n > m && !strcmp(type + n - m, "_raid_member");
	}
	blkid_free_probe(pr);
	return leg;
}

/*
 * Has udev marked MAJ:MIN a path of a multipath map?  multipath-tools'
 * rules (56-multipath.rules) set DM_MULTIPATH_DEVICE_PATH=1 and
 * ID_FS_TYPE=mpath_member on a path as it appears, before multipathd
 * builds the map over it and holds it: the map is the member, and an
 * array started on a path first would keep the map from forming.  The
 * udev rule skips the same devices.  No udev (@udev NULL) or no database
 * entry: not marked.
 */
static bool mpath_path(struct udev *udev, unsigned int ma, unsigned int mi)
{
	struct udev_device *d;
	const char *v;
	bool path;

	if (!udev)
		return false;
	d = udev_device_new_from_devnum(udev, 'b', makedev(ma, mi));
	if (!d)
		return false;
	v = udev_device_get_property_value(d, "DM_MULTIPATH_DEVICE_PATH");
	path = v && !strcmp(v, "1");
	v = udev_device_get_property_value(d, "ID_FS_TYPE");
	path = path || (v && !strcmp(v, "mpath_member"));
	udev_device_unref(d);
	return path;
}

/**
 * mqs_scan_devices() - read every block device that may carry a superblock
 * @out: the devices with one (any status but MQS_SB_NONE), paths
 *	/dev/NAME; free with mqs_free_cands().
 * @nout: how many.
 *
 * Every device in /proc/partitions that has a node, except suspended
 * device-mapper devices (a read would wait for the resume), devices
 * held by a stacked device (mqs_stacked_under(): the stacked one is
 * scanned instead), paths of a multipath map (mpath_path()) and devices
 * that carry md or firmware RAID metadata (a mirror's leg, raid_leg()).
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL (message printed).
 */
int mqs_scan_devices(struct mqs_cand **out, size_t *nout)
{
	struct mqs_cand *cands = NULL;
	char line[256], name[128], path[PATH_MAX];
	size_t n = 0, cap = 0;
	unsigned int ma, mi;
	struct udev *udev;
	FILE *f;

	f = fopen("/proc/partitions", "re");
	if (!f) {
		mqs_error("cannot read /proc/partitions: %s", strerror(errno));
		return MQS_EXIT_FAIL;
	}
	udev = udev_new();
	while (fgets(line, sizeof(line), f)) {
		unsigned long long blocks;
		char *p;

		if (sscanf(line, " %u %u %llu %127s", &ma, &mi, &blocks,
			   name) != 4)
			continue;	/* the header */
		if (mqs_find_node(makedev(ma, mi), path, sizeof(path)))
			continue;	/* no node: not examinable */
		if (dm_suspended(ma, mi))
			continue;	/* a read would wait for the resume */
		if (mqs_stacked_under(makedev(ma, mi), name, sizeof(name)))
			continue;	/* the device on top is the member */
		if (mpath_path(udev, ma, mi))
			continue;	/* the map is the member */
		if (n == cap) {
			struct mqs_cand *bigger;

			cap = cap ? 2 * cap : 32;
			bigger = realloc(cands, cap * sizeof(*cands));
			if (!bigger) {
				mqs_error("out of memory");
				break;
			}
			cands = bigger;
		}
		p = strdup(path);
		if (!p) {
			mqs_error("out of memory");
			break;
		}
		mqs_cand_read(&cands[n], p);
		if (cands[n].read_err || cands[n].status == MQS_SB_NONE ||
		    raid_leg(p)) {
			mqs_cand_free(&cands[n]);
			free(p);
			continue;
		}
		n++;
	}
	udev_unref(udev);
	fclose(f);
	*out = cands;
	*nout = n;
	return MQS_EXIT_OK;
}

/* Free what mqs_scan_devices() returned. */
void mqs_free_cands(struct mqs_cand *cands, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		mqs_cand_free(&cands[i]);
		free((char *)cands[i].path);
	}
	free(cands);
}

/* Return: a read-write descriptor holding @path exclusively, or -errno. */
int mqs_open_excl(const char *path)
{
	int fd = open(path, O_RDWR | O_EXCL | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * Where MAJ:MIN is mounted (its first mount point in mountinfo, as
 * libmount reads it: escaped spaces and all), if it is.
 */
static bool mount_point(uint32_t ma, uint32_t mi, char *buf, size_t len)
{
	struct libmnt_table *tb;
	struct libmnt_fs *fs;
	bool found = false;

	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return false;
	fs = mnt_table_find_devno(tb, makedev(ma, mi), MNT_ITER_FORWARD);
	if (fs && mnt_fs_get_target(fs)) {
		snprintf(buf, len, "%s", mnt_fs_get_target(fs));
		found = true;
	}
	mnt_unref_table(tb);
	return found;
}

/* What holds the device whose sysfs directory is @sysdir, as a phrase. */
static bool holder_phrase(const char *sysdir, const char *what, char *buf,
			  size_t len)
{
	char name[NAME_MAX + 1], mnt[PATH_MAX];
	char path[PATH_MAX + 8];
	uint32_t ma, mi;

	if (first_holder(sysdir, NULL, name, sizeof(name))) {
		if (!strncmp(name, MQSTRIPE_DISK_PREFIX,
			     strlen(MQSTRIPE_DISK_PREFIX)))
			snprintf(buf, len,
				 "%sa member of the running array /dev/%s (stop it first: 'stripectl stop /dev/%s')",
				 what, name, name);
		else
			snprintf(buf, len, "%sheld by %s (see 'lsblk')", what,
				 name);
		return true;
	}
	snprintf(path, sizeof(path), "%s/dev", sysdir);
	if (!mqs_sysfs_devt(path, &ma, &mi) &&
	    mount_point(ma, mi, mnt, sizeof(mnt))) {
		snprintf(buf, len, "%smounted on %s (unmount it first)", what,
			 mnt);
		return true;
	}
	return false;
}

/*
 * The mounts of the device MAJ:MIN in @tb: how many, and how many of them
 * have a read-only superblock.  Its holders: @held.
 */
static void count_users(struct libmnt_table *tb, const char *sysdir,
			unsigned int *mounts, unsigned int *ro, bool *held)
{
	char path[PATH_MAX + 8], name[NAME_MAX + 1];
	struct libmnt_iter *it;
	struct libmnt_fs *fs;
	uint32_t ma, mi;

	if (first_holder(sysdir, NULL, name, sizeof(name)))
		*held = true;
	snprintf(path, sizeof(path), "%s/dev", sysdir);
	if (mqs_sysfs_devt(path, &ma, &mi))
		return;
	it = mnt_new_iter(MNT_ITER_FORWARD);
	if (!it) {
		*held = true;
		return;
	}
	while (!mnt_table_next_fs(tb, it, &fs)) {
		const char *opts = mnt_fs_get_fs_options(fs);

		if (mnt_fs_get_devno(fs) != makedev(ma, mi))
			continue;
		(*mounts)++;
		if (opts && !mnt_optstr_get_option(opts, "ro", NULL, NULL))
			(*ro)++;
	}
	mnt_free_iter(it);
}

/**
 * mqs_only_readonly_mounts() - is a device (and its partitions) used by
 *	read-only mounts alone?
 * @major: the device.
 * @minor: the device.
 *
 * True when it or its partitions are mounted, every mount's superblock is
 * read-only (/proc/self/mountinfo: the root file system remounted
 * read-only at the end of a shutdown) and nothing holds them (no
 * device-mapper, md or array on top).  An open by a process cannot be
 * seen: the shutdown's last step, when no process is left, is where this
 * means nothing writes to it any more.
 *
 * Return: true or false.
 */
bool mqs_only_readonly_mounts(uint32_t major, uint32_t minor)
{
	char sysdir[64], part[PATH_MAX];
	unsigned int mounts = 0, ro = 0;
	struct libmnt_table *tb;
	struct dirent *d;
	bool held = false;
	DIR *dir;

	tb = mnt_new_table_from_file("/proc/self/mountinfo");
	if (!tb)
		return false;
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major, minor);
	count_users(tb, sysdir, &mounts, &ro, &held);
	dir = opendir(sysdir);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(part, sizeof(part), "%s/%.255s/partition", sysdir,
			 d->d_name);
		if (access(part, F_OK))
			continue;
		snprintf(part, sizeof(part), "%s/%.255s", sysdir, d->d_name);
		count_users(tb, part, &mounts, &ro, &held);
	}
	if (dir)
		closedir(dir);
	mnt_unref_table(tb);
	return !held && mounts && mounts == ro;
}

/**
 * mqs_busy_reason() - why an exclusive open of @path failed with EBUSY
 * @path: the device.
 * @buf: the phrase after "device is busy: ".
 * @len: room at @buf.
 *
 * Return: true when a holder or a mount was found, false when @buf has the
 * generic phrase (an open by some process, or nothing visible in sysfs).
 */
bool mqs_busy_reason(const char *path, char *buf, size_t len)
{
	char sysdir[64], part[PATH_MAX];
	char what[NAME_MAX + 32];
	struct dirent *d;
	struct stat st;
	DIR *dir;

	if (stat(path, &st) || !S_ISBLK(st.st_mode))
		goto generic;
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	if (holder_phrase(sysdir, "", buf, len))
		return true;
	/* a whole disk is busy when one of its partitions is */
	dir = opendir(sysdir);
	if (dir) {
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(part, sizeof(part), "%s/%.255s/partition",
				 sysdir, d->d_name);
			if (access(part, F_OK))
				continue;
			snprintf(part, sizeof(part), "%s/%.255s", sysdir,
				 d->d_name);
			snprintf(what, sizeof(what), "its partition %.255s is ",
				 d->d_name);
			if (holder_phrase(part, what, buf, len)) {
				closedir(dir);
				return true;
			}
		}
		closedir(dir);
	}
generic:
	snprintf(buf, len,
		 "it is mounted, in use or a member of another array (check 'lsblk %s' and 'stripectl list')",
		 path);
	return false;
}

static void describe_blkid(blkid_probe pr, char *buf, size_t len)
{
	const char *type = NULL, *usage = NULL, *label = NULL, *uuid = NULL;
	char extra[160] = "";

	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) &&
	    !blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL)) {
		snprintf(buf, len, "a partition table (%s)", type);
		return;
	}
	blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
	blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
	blkid_probe_lookup_value(pr, "UUID", &uuid, NULL);
	if (!type)
		type = "unknown";
	if (label && uuid)
		snprintf(extra, sizeof(extra), "%s, LABEL %.32s, UUID %.40s",
			 type, label, uuid);
	else if (uuid)
		snprintf(extra, sizeof(extra), "%s, UUID %.40s", type, uuid);
	else
		snprintf(extra, sizeof(extra), "%s", type);
	if (!strcmp(type, "linux_raid_member"))
		snprintf(buf, len, "an md RAID superblock (%s)", extra);
	else if (!strcmp(type, "LVM2_member"))
		snprintf(buf, len, "an LVM physical volume (%s)", extra);
	else if (usage && !strcmp(usage, "filesystem"))
		snprintf(buf, len, "a filesystem (%s)", extra);
	else if (usage && !strcmp(usage, "raid"))
		snprintf(buf, len, "a RAID signature (%s)", extra);
	else if (usage && !strcmp(usage, "crypto"))
		snprintf(buf, len, "an encrypted volume (%s)", extra);
	else
		snprintf(buf, len, "a signature (%s)", extra);
}

/*
 * Before blkid_do_wipe() erases the magic the probe just found (it writes
 * zeros over SBMAGIC or PTMAGIC at its offset), keep those bytes.
 */
static int wipe_save(blkid_probe pr, int fd, struct mqs_wipe_log *log)
{
	const char *off = NULL, *magic = NULL, *type = NULL;
	size_t mlen = 0;
	unsigned int i = log->nr;

	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL))
		blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL);
	if (blkid_probe_lookup_value(pr, "SBMAGIC_OFFSET", &off, NULL) ||
	    blkid_probe_lookup_value(pr, "SBMAGIC", &magic, &mlen)) {
		if (blkid_probe_lookup_value(pr, "PTMAGIC_OFFSET", &off,
					     NULL) ||
		    blkid_probe_lookup_value(pr, "PTMAGIC", &magic, &mlen))
			return 0;	/* nothing will be wiped */
	}
	if (i >= MQS_WIPE_MAX || !mlen || mlen > MQS_WIPE_MAGIC_MAX)
		return -E2BIG;
	log->off[i] = strtoull(off, NULL, 10);
	log->len[i] = (unsigned int)mlen;
	snprintf(log->type[i], sizeof(log->type[i]), "%s",
		 type ? type : "unknown");
	if (pread(fd, log->bytes[i], mlen, (off_t)log->off[i]) != (ssize_t)mlen)
		return -EIO;
	log->nr++;
	return 0;
}

/**
 * mqs_unwipe() - put back what mqs_signatures() erased
 * @fd: the device, open read-write (held exclusively).
 * @path: the device, for messages.
 * @log: what was erased.
 *
 * Newest first; a magic is put back only where the device still holds
 * the zeros the wipe wrote: anything else was written by someone since
 * and stays, with a message naming the signature and where it was.  Then
 * the kernel re-reads a partition table that came back.
 *
 * Return: 0, or the negative errno of the first failure (the rest are
 * still tried).
 */
int mqs_unwipe(int fd, const char *path, const struct mqs_wipe_log *log)
{
	static const uint8_t zero[MQS_WIPE_MAGIC_MAX];
	uint8_t cur[MQS_WIPE_MAGIC_MAX];
	unsigned int i;
	int rc = 0;

	for (i = log->nr; i-- > 0;) {
		ssize_t n = pread(fd, cur, log->len[i], (off_t)log->off[i]);

		if (n != (ssize_t)log->len[i]) {
			rc = rc ? rc : -EIO;
			continue;
		}
		if (memcmp(cur, zero, log->len[i])) {
			mqs_error("%s: not putting back the %s signature at byte %" PRIu64 " (%u bytes): another program wrote there since the wipe; it stays as it is",
				  path, log->type[i], log->off[i], log->len[i]);
			continue;
		}
		if (pwrite(fd, log->bytes[i], log->len[i],
			   (off_t)log->off[i]) != (ssize_t)log->len[i])
			rc = rc ? rc : -EIO;
	}
	if (fsync(fd) && !rc)
		rc = -errno;
	mqs_dev_drop_cache(fd);
	if (log->nr)
		ioctl(fd, BLKRRPART, 0);	/* a table back: its partitions */
	return rc;
}

/**
 * mqs_signatures() - find (and wipe) what libblkid recognises on a device
 * @fd: the device, open read-write (exclusively, to wipe).
 * @wipe: erase every signature found, as "wipefs -a" does, then re-read
 *	the partition table if one was erased.
 * @log: with @wipe, where to keep what was erased, for mqs_unwipe(); may
 *	be NULL.
 * @desc: the first signature, as a phrase ("a filesystem (xfs, UUID ..)").
 * @len: room at @desc.
 *
 * Superblocks (filesystems, md, LVM, crypto, swap...) and partition tables
 * are looked for, also those with a bad checksum.
 *
 * Return: the number of signatures found (0: none), or a negative errno.
 */
int mqs_signatures(int fd, bool wipe, struct mqs_wipe_log *log, char *desc,
		   size_t len)
{
	blkid_probe pr;
	bool pt = false;
	int found = 0, rc, tries;

	desc[0] = '\0';
	pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	if (blkid_probe_set_device(pr, fd, 0, 0)) {
		blkid_free_probe(pr);
		return -EIO;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_USAGE |
					  BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID |
					  BLKID_SUBLKS_MAGIC |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);

	/* bounded: a wipe steps back and probes the same area again */
	for (tries = 0; tries < 64; tries++) {
		rc = blkid_do_probe(pr);
		if (rc)
			break;
		if (!found++)
			describe_blkid(pr, desc, len);
		if (!blkid_probe_lookup_value(pr, "PTTYPE", NULL, NULL))
			pt = true;
		if (!wipe)
			continue;
		if (log && wipe_save(pr, fd, log)) {
			rc = -E2BIG;
			break;
		}
		if (blkid_do_wipe(pr, 0)) {
			rc = -EIO;
			break;
		}
	}
	blkid_free_probe(pr);
	if (rc < 0 && rc != -1)
		return rc;
	if (rc == -1)		/* libblkid's own error */
		return -EIO;
	if (wipe && found) {
		mqs_dev_drop_cache(fd);
		/* drop the kernel's partitions of the erased table */
		for (tries = 0; pt && tries < 20; tries++) {
			if (!ioctl(fd, BLKRRPART, 0) || errno == EINVAL)
				break;
			if (errno != EBUSY)
				return -errno;
			mqs_sleep_ms(100);
		}
	}
	return found;
}

/**
 * mqs_signatures_at() - what libblkid recognises on a device, by path
 * @path: the device, opened read-only (no exclusive claim).
 * @desc: the first signature, as a phrase ("a filesystem (ext4, UUID ..)").
 * @len: room at @desc.
 *
 * For the messages about a device without an mqstripe superblock: a
 * member that mkfs, a partitioning tool or another RAID wrote over shows
 * what is there now.
 *
 * Return: true when libblkid found something (@desc holds it).
 */
bool mqs_signatures_at(const char *path, char *desc, size_t len)
{
	int fd, found;

	desc[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	found = mqs_signatures(fd, false, NULL, desc, len);
	close(fd);
	return found > 0 && desc[0];
}

/* "an mqstripe superblock of array 'db' (UUID ..., slot 1 of 4)" */
void mqs_sb_describe(const struct mqs_sb *sb, enum mqs_sb_status status,
		     char *buf, size_t len)
{
	char label[MQS_ERR_LEN];

	if (status == MQS_SB_OK) {
		mqs_array_label(sb, label, sizeof(label));
		snprintf(buf, len,
			 "an mqstripe superblock of %s, slot %" PRIu32 " of %" PRIu32,
			 label, sb->slot, sb->nr_members);
	} else {
		snprintf(buf, len, "an mqstripe superblock (%s)",
			 mqs_sb_status_name(status));
	}
}

/* "/dev/NAME" of a block device number, checked to be that device. */
int mqs_find_node(uint64_t devno, char *buf, size_t len)
{
	struct stat st;
	int rc;

	rc = mqs_devpath(major(devno), minor(devno), buf, len);
	if (rc)
		return rc;
	if (stat(buf, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode) || st.st_rdev != devno)
		return -ENODEV;
	return 0;
}
