// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl create: check everything userspace can see (options, paths,
 * duplicates, sizes, block sizes) with one precise message each; claim the
 * members exclusively for a moment, refuse members that carry a filesystem,
 * a partition table, an md/LVM or an mqstripe signature (libblkid) unless
 * --force wipes them; write every member's superblock (docs/FORMAT.md)
 * durably; release the members and hand their fds to MQSTRIPE_IOC_CREATE,
 * turning the module's (errno, error_code, error_member) into a message
 * naming the member.  A failed CREATE puts the old blocks back.
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
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include <uuid.h>

#include "common.h"
#include "create.h"
#include "devio.h"
#include "errmsg.h"
#include "member.h"
#include "opts.h"
#include "parse.h"
#include "sbwrite.h"
#include "start.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

/*
 * Open a member read-write, NOT O_EXCL: the module claims it exclusively
 * itself, and would find it busy if we held it.  Then read what the
 * module will check, so that most refusals get a message naming the
 * numbers before any kernel call.
 */
static int open_member(struct mqs_member_dev *m, uint64_t chunk,
		       uint64_t offset)
{
	char err[MQS_ERR_LEN], disk[NAME_MAX + 1];
	unsigned int pbs = 0;
	uint64_t size = 0;
	struct stat st;
	int lbs = 0;

	m->fd = open(m->path, O_RDWR | O_CLOEXEC);
	if (m->fd < 0) {
		report_open_error(m->path, errno);
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
	if (ioctl(m->fd, BLKSSZGET, &lbs)) {
		mqs_error("%s: cannot read its logical block size: %s",
			  m->path, strerror(errno));
		return MQS_EXIT_FAIL;
	}
	m->size_bytes = size;
	m->pbs = pbs;
	m->lbs = (unsigned int)lbs;
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
	if (m->lbs > MQS_SB_MAX_LBS) {
		mqs_error("%s: logical block size %u is larger than %u: the superblock at 4K needs blocks of 4K or smaller (docs/FORMAT.md)",
			  m->path, m->lbs, MQS_SB_MAX_LBS);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

static int check_options(uint64_t chunk, uint64_t offset, bool depth_given,
			 uint64_t depth, const char *name, const char *uuid_str,
			 uint8_t uuid[16], size_t nr, uint64_t metadata)
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
	if (metadata != MQS_SB_VERSION_1 && metadata != MQS_SB_VERSION_2) {
		mqs_error("--metadata: superblock format version %" PRIu64 " is not one this stripectl writes: use 2 (two copies, the default) or 1 (one copy, read by older stripectl)",
			  metadata);
		return MQS_EXIT_USAGE;
	}
	if (offset < mqs_sb_min_data_offset((uint32_t)metadata)) {
		mqs_error("--data-offset: data offset %s is below %s: the superblock takes bytes 4K to %s of every member; use e.g. 1M",
			  mqs_size_exact(offset, err, sizeof(err)),
			  metadata == MQS_SB_VERSION_1 ? "8K" : "12K",
			  metadata == MQS_SB_VERSION_1 ? "8K" : "12K (two copies)");
		return MQS_EXIT_USAGE;
	}
	if (depth_given && mqs_check_queue_depth(depth, err, sizeof(err))) {
		mqs_error("--queue-depth: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (name && mqs_check_new_name(name, err, sizeof(err))) {
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

/*
 * Two nodes of one disk (two paths of a namespace with NVMe multipath
 * off, SCSI paths without multipathd) are refused before anything is
 * written, by the identity the disk reports (check_one_disk()).  Disks
 * that report none are caught after the writes instead: the superblocks
 * are read back (sbw_verify_all()).
 */
static int check_identities(const struct mqs_member_dev *members,
			    size_t nr)
{
	const char **paths;
	uint64_t *devs;
	size_t i;
	int rc = MQS_EXIT_FAIL;

	paths = calloc(nr, sizeof(*paths));
	devs = calloc(nr, sizeof(*devs));
	if (!paths || !devs) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < nr; i++) {
		paths[i] = members[i].path;
		devs[i] = members[i].rdev;
	}
	rc = check_one_disk(paths, devs, nr);
out:
	free(paths);
	free(devs);
	return rc;
}

static int check_members(struct mqs_member_dev *members, size_t nr,
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
	if (!rc)
		rc = check_identities(members, nr);
	if (rc)
		return rc;
	for (i = 0; i < nr; i++) {
		rc = open_member(&members[i], chunk, offset);
		if (rc)
			return rc;
	}
	return MQS_EXIT_OK;
}

/*
 * The array's name or UUID is taken already by a running array: refused,
 * naming that array by its node and, when it has a name, its link.
 */
static int check_not_running(struct mqs_ctl *ctl,
			     const struct mqs_create_req *req,
			     const uint8_t uuid[16])
{
	struct mqstripe_info info;
	char node[64], u[37];
	uint32_t index;

	if (req->name && !mqs_find_name(ctl, req->name, &index, &info)) {
		mqs_array_node(index, node, sizeof(node));
		/* a name create takes passed mqs_check_new_name(): printable */
		mqs_error("--name '%s': the running array %s (/dev/stripe/%s) has this name: choose another name (see 'stripectl list')",
			  req->name, node, req->name);
		return MQS_EXIT_FAIL;
	}
	if (!mqs_find_uuid(ctl, uuid, &index, &info)) {
		mqs_array_node(index, node, sizeof(node));
		mqs_format_uuid(uuid, u);
		info.name[sizeof(info.name) - 1] = '\0';
		if (info.name[0] && !mqs_check_name(info.name, NULL, 0))
			mqs_error("--uuid %s: the running array %s (/dev/stripe/%s) has this UUID: give another or leave out --uuid (see 'stripectl list')",
				  u, node, info.name);
		else
			mqs_error("--uuid %s: the running array %s has this UUID: give another or leave out --uuid (see 'stripectl list')",
				  u, node);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/* The arrays check_name_unused() found carrying a name. */
struct name_user {
	uint8_t uuid[MQSTRIPE_UUID_LEN];
	char devs[MQS_ERR_LEN];		/* "DEV, DEV" */
	size_t used;
};

/* Does @c carry @name for another array than @self and @req's members? */
static bool carries_name(const struct mqs_cand *c, const char *name,
			 const struct mqs_create_req *req, const uint8_t *self)
{
	uint32_t j;

	if (c->status == MQS_SB_NONE || c->status == MQS_SB_BAD_VERSION ||
	    strcmp(c->sb.name, name))
		return false;
	if (self && !memcmp(c->sb.array_uuid, self, MQSTRIPE_UUID_LEN))
		return false;
	/* create's members: their superblocks are replaced */
	for (j = 0; req && j < req->nr_members; j++)
		if (req->members[j].rdev == c->devno)
			return false;
	return true;
}

/*
 * "array UUID (not running) on DEV, DEV and of array ..." for the @nr
 * arrays @u, each said running (as the array node, without the name: it
 * started after another array of the name) or not.
 */
static void say_name_users(struct mqs_ctl *ctl, const struct name_user *u,
			   size_t nr, char *buf, size_t len)
{
	struct mqstripe_info info;
	char uuid[37], state[96], node[64];
	size_t i, used = 0;
	uint32_t index;

	buf[0] = '\0';
	for (i = 0; i < nr && used < len; i++) {
		mqs_format_uuid(u[i].uuid, uuid);
		if (!mqs_find_uuid(ctl, u[i].uuid, &index, &info)) {
			mqs_array_node(index, node, sizeof(node));
			snprintf(state, sizeof(state),
				 "running as %s without that name", node);
		} else {
			snprintf(state, sizeof(state), "not running");
		}
		used += (size_t)snprintf(buf + used, len - used,
					 "%sarray %s (%s) on %s",
					 i ? " and of " : "", uuid, state,
					 u[i].devs);
	}
}

/**
 * check_name_unused() - is a name free for an array
 * @ctl: the control device (which arrays run).
 * @what: the start of the messages ("--name", "/dev/mqstripe0: rename").
 * @name: the name, or NULL (nothing to check).
 * @req: create's request, whose members do not count (their superblocks
 *	are replaced; create refuses a member of another array unless
 *	--force wipes it), or NULL.
 * @self: the array UUID whose superblocks do not count (rename), or NULL.
 * @force: take the name anyway, with a warning.
 *
 * A name is how an admin and "assemble --scan --name" find an array, and
 * what /dev/stripe/NAME points to: refuse one that a superblock of another
 * array on a visible device already carries (a stopped array, or one that
 * started without the name because a third had it), naming each such
 * array, where it is and the ways out; --force takes it anyway, with a
 * warning (then the array that starts first gets the name, the other one
 * starts without it).  The caller has refused the name of a running array.
 *
 * Return: MQS_EXIT_OK or MQS_EXIT_FAIL (message printed).
 */
int check_name_unused(struct mqs_ctl *ctl, const char *what,
		      const char *name, const struct mqs_create_req *req,
		      const uint8_t *self, bool force)
{
	char users[2 * MQS_ERR_LEN];
	struct name_user *u = NULL;
	struct mqs_cand *c = NULL, t;
	size_t n = 0, i, j, nr = 0;
	int rc = MQS_EXIT_FAIL;

	if (!name)
		return MQS_EXIT_OK;
	if (mqs_scan_devices(&c, &n))
		return MQS_EXIT_FAIL;
	/* each array's devices in slot order (insertion sort: stable) */
	for (i = 1; i < n; i++) {
		t = c[i];
		for (j = i; j > 0 && c[j - 1].sb.slot > t.sb.slot; j--)
			c[j] = c[j - 1];
		c[j] = t;
	}
	u = calloc(n ? n : 1, sizeof(*u));
	if (!u) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (!carries_name(&c[i], name, req, self))
			continue;
		for (j = 0; j < nr; j++)
			if (!memcmp(u[j].uuid, c[i].sb.array_uuid,
				    MQSTRIPE_UUID_LEN))
				break;
		if (j == nr)
			memcpy(u[nr++].uuid, c[i].sb.array_uuid,
			       MQSTRIPE_UUID_LEN);
		if (u[j].used < sizeof(u[j].devs))
			u[j].used += (size_t)snprintf(u[j].devs + u[j].used,
						      sizeof(u[j].devs) -
						      u[j].used, "%s%s",
						      u[j].used ? ", " : "",
						      c[i].path);
	}
	rc = MQS_EXIT_OK;
	if (!nr)
		goto out;
	say_name_users(ctl, u, nr, users, sizeof(users));
	if (force) {
		mqs_error("warning: %s '%s': also the name of %s; of two arrays of one name the one started first gets the name, the other starts without it",
			  what, name, users);
		goto out;
	}
	mqs_error("%s '%s': already the name of %s: pick another name; or rename %s ('stripectl rename ARRAY NEWNAME', a stopped one once started with 'stripectl assemble --scan --uuid UUID'); or, if %s no longer wanted, erase its superblocks ('stripectl zero-superblock' on the devices named); or give --force to use the name anyway",
		  what, name, users, nr > 1 ? "those arrays" : "that array",
		  nr > 1 ? "one is" : "it is");
	rc = MQS_EXIT_FAIL;
out:
	free(u);
	mqs_free_cands(c, n);
	return rc;
}

/*
 * Claim every member, then look for signatures: libblkid's (filesystems,
 * partition tables, md, LVM...) and our own superblock.  Without --force
 * the first one found is refused; with it they are wiped.  Claiming all
 * members first means nothing is wiped when one of them is busy.
 */
static int check_signatures(struct sbw *w, size_t nr, bool force)
{
	char desc[MQS_ERR_LEN];
	struct mqs_sb_copies cp;
	struct mqs_sb sb;
	enum mqs_sb_status st;
	size_t i;
	int *found, rc = MQS_EXIT_FAIL;

	found = calloc(nr, sizeof(*found));
	if (!found) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++) {
		if (sbw_claim(&w[i]))
			goto out;
	}
	for (i = 0; i < nr; i++) {
		found[i] = mqs_signatures(w[i].excl, false, NULL, desc,
					  sizeof(desc));
		if (found[i] < 0) {
			mqs_error("%s: cannot look for signatures (libblkid): %s",
				  w[i].path, strerror(-found[i]));
			goto out;
		}
		if (force)
			continue;
		if (!found[i]) {
			st = mqs_sb_decode_area(w[i].old, MQS_SB_AREA_SIZE,
						&sb, &cp, NULL, 0);
			if (st == MQS_SB_NONE)
				continue;
			mqs_sb_describe(&sb, st, desc, sizeof(desc));
		}
		mqs_error("%s: holds %s: refusing to overwrite it; give --force to wipe it%s",
			  w[i].path, desc,
			  found[i] ? " (as 'wipefs -a' would)" :
			  "; or, if that array is no longer wanted, erase its superblocks ('stripectl zero-superblock' on its members); or start it with 'stripectl assemble'");
		goto out;
	}
	for (i = 0; force && i < nr; i++) {
		if (!found[i])
			continue;
		w[i].wiped = calloc(1, sizeof(*w[i].wiped));
		if (!w[i].wiped) {
			mqs_error("out of memory");
			goto out;
		}
		found[i] = mqs_signatures(w[i].excl, true, w[i].wiped, desc,
					  sizeof(desc));
		if (found[i] < 0) {
			mqs_error("%s: wiping the old signatures failed: %s",
				  w[i].path, strerror(-found[i]));
			goto out;
		}
		if (sbw_reread(&w[i]))
			goto out;
	}
	rc = MQS_EXIT_OK;
out:
	free(found);
	return rc;
}

/*
 * How much of each member the array takes: each member's room after the
 * data offset, in whole chunks (@sizes, by slot).  Equal rooms make one
 * zone, as ever (@req->member_data_bytes for every member); unequal ones
 * make zones (docs/FORMAT.md "The layout": every member's room is used),
 * said in one line (@note, printed once the array runs), unless
 * @size_given: @size bytes of array, the same from every member, one
 * zone.  Format 1 has no room to record each member's size: unequal
 * members there are refused (--size, or format 2).
 */
static int plan_sizes(struct mqs_create_req *req, uint64_t *sizes,
		      bool size_given, uint64_t size, char *note,
		      size_t note_len)
{
	uint64_t min = UINT64_MAX, max = 0, stripe, over_all, rest;
	struct mqs_zone_desc z[MQSTRIPE_MAX_MEMBERS];
	uint32_t i, n = req->nr_members, zones;
	char a[32], b[32], c[32], d[32], e[32], f[32];

	for (i = 0; i < n; i++) {
		sizes[i] = mqs_data_bytes(req->members[i].size_bytes,
					  req->data_offset_bytes,
					  req->chunk_bytes);
		if (sizes[i] < min)
			min = sizes[i];
		if (sizes[i] > max)
			max = sizes[i];
	}
	req->member_data_bytes = min;
	stripe = req->chunk_bytes * n;
	if (size_given) {
		if (!size || size % stripe || size / n > min) {
			mqs_error("--size: %s is not a whole number of stripes (%u members x chunk %s = %s) from %s to %s (%u x the smallest member's %s of room)",
				  mqs_size_exact(size, a, sizeof(a)), n,
				  mqs_size_exact(req->chunk_bytes, b,
						 sizeof(b)),
				  mqs_size_exact(stripe, c, sizeof(c)),
				  mqs_size_exact(stripe, d, sizeof(d)),
				  mqs_size_exact(min * n, e, sizeof(e)), n,
				  mqs_size_exact(min, f, sizeof(f)));
			return MQS_EXIT_USAGE;
		}
		req->member_data_bytes = size / n;
		return MQS_EXIT_OK;
	}
	if (min == max)
		return MQS_EXIT_OK;
	if (req->metadata == MQS_SB_VERSION_1) {
		mqs_error("members of unequal size (room for %s to %s of data): superblock format 1 cannot record each member's size; give --size %s (every member used up to the smallest), or leave out --metadata 1 (format 2 uses all of every member, in zones)",
			  mqs_size_exact(min, a, sizeof(a)),
			  mqs_size_exact(max, b, sizeof(b)),
			  mqs_size_exact(min * n, c, sizeof(c)));
		return MQS_EXIT_USAGE;
	}
	req->member_sizes = sizes;
	over_all = min * n;
	rest = 0;
	for (i = 0; i < n; i++)
		rest += sizes[i] - min;
	zones = mqs_zones_describe(sizes, n, z);
	snprintf(note, note_len,
		 "note: members of unequal size: the array is %s in %u zones; the first %s stripes over all %u members (up to the smallest, %s of each), the other %s over the members that are larger; --size %s makes one zone over all of them",
		 mqs_size_exact(over_all + rest, a, sizeof(a)), zones,
		 mqs_size_exact(over_all, b, sizeof(b)), n,
		 mqs_size_exact(min, c, sizeof(c)),
		 mqs_size_exact(rest, d, sizeof(d)),
		 mqs_size_exact(over_all, e, sizeof(e)));
	return MQS_EXIT_OK;
}

/* One superblock per member: the array fields, then slot and member UUID. */
static int build_superblocks(struct sbw *w, const struct mqs_create_req *req,
			     const uint8_t uuid[16])
{
	const struct mqs_member_dev *m = req->members;
	uint32_t i, array_lbs = 0;
	struct mqs_sb *sb;

	sb = calloc(1, sizeof(*sb));
	if (!sb) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < req->nr_members; i++)
		if (m[i].lbs > array_lbs)
			array_lbs = m[i].lbs;
	sb->version = req->metadata;
	sb->sb_offset = MQS_SB_OFFSET;
	sb->layout = MQS_SB_LAYOUT_STRIPE;
	if (sb->version != MQS_SB_VERSION_1) {
		sb->generation = 1;
		sb->nr_segments = 1;
		sb->queue_depth = (uint32_t)req->queue_depth;
	}
	sb->state = MQS_SB_STATE_ACTIVE;
	memcpy(sb->array_uuid, uuid, MQSTRIPE_UUID_LEN);
	sb->nr_members = req->nr_members;
	sb->chunk_bytes = req->chunk_bytes;
	sb->data_offset_bytes = req->data_offset_bytes;
	sb->data_bytes = req->member_data_bytes;
	if (req->member_sizes) {
		/* zones: each member's own size; data_bytes the smallest */
		sb->feature_incompat |= MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES;
		for (i = 0; i < req->nr_members; i++)
			sb->sizes[i] = req->member_sizes[i];
	}
	sb->array_lbs = array_lbs;
	sb->ctime = (uint64_t)time(NULL);
	sb->utime = sb->ctime;
	sb->events = 1;
	if (req->name)
		snprintf(sb->name, sizeof(sb->name), "%s", req->name);
	for (i = 0; i < req->nr_members && i < mqs_sb_table_slots(sb); i++)
		uuid_generate_random(sb->table[i]);
	for (i = 0; i < req->nr_members; i++) {
		sb->slot = i;
		sb->member_lbs = m[i].lbs;
		if (i < mqs_sb_table_slots(sb))
			memcpy(sb->member_uuid, sb->table[i],
			       MQSTRIPE_UUID_LEN);
		else
			uuid_generate_random(sb->member_uuid);
		w[i].copies = mqs_sb_encode_area(sb, NULL, w[i].new);
		/*
		 * A format-2 copy at 8192 left over from an earlier array would
		 * come back when this one-copy superblock is erased: clear it
		 * (bytes 8192.. are reserved here, not data).
		 */
		if (w[i].copies == 1 &&
		    req->data_offset_bytes >= MQS_SB_MIN_DATA_OFFSET &&
		    mqs_sb_has_magic(w[i].old + MQS_SB_SIZE)) {
			memset(w[i].new + MQS_SB_SIZE, 0, MQS_SB_SIZE);
			w[i].copies = 2;
		}
	}
	free(sb);
	return MQS_EXIT_OK;
}

/*
 * Superblocks first, durably, then the array: after a crash in between
 * the members say what they were meant to be and "assemble" starts them.
 * All under the metadata lock: the uevents of the members just written
 * must not let "assemble --incremental" start the array first.
 */
static int do_create(struct mqs_create_req *req, const uint8_t uuid[16],
		     bool force, bool size_given, uint64_t size)
{
	char note[2 * MQS_ERR_LEN] = "";
	struct mqs_ctl ctl;
	uint64_t *sizes;
	struct sbw *w;
	uint32_t i, index;
	bool started = false;
	int rc, lock;

	sizes = calloc(req->nr_members, sizeof(*sizes));
	if (!sizes) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	/* the sizes the superblocks record are the ones the module gets */
	rc = plan_sizes(req, sizes, size_given, size, note, sizeof(note));
	if (!rc)
		rc = ctl_open_or_report(&ctl);
	if (rc) {
		free(sizes);
		return rc;
	}
	lock = mqs_meta_lock(false);
	rc = lock == -ETIMEDOUT ? MQS_EXIT_FAIL :
	     check_not_running(&ctl, req, uuid);
	if (!rc)
		rc = check_name_unused(&ctl, "--name", req->name, req, NULL,
				       force);
	if (rc)
		goto out_ctl;
	w = calloc(req->nr_members, sizeof(*w));
	if (!w) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out_ctl;
	}
	for (i = 0; i < req->nr_members; i++)
		sbw_init(&w[i], req->members[i].path);
	rc = check_signatures(w, req->nr_members, force);
	if (!rc)
		rc = build_superblocks(w, req, uuid);
	if (!rc)
		rc = sbw_write_all(w, req->nr_members);
	if (!rc && sbw_verify_all(w, req->nr_members)) {
		sbw_restore_all(w, req->nr_members);
		rc = MQS_EXIT_FAIL;
	}
	sbw_release(w, req->nr_members);
	if (!rc) {
		rc = start_array(&ctl, req, uuid, &index);
		if (rc)
			sbw_restore_all(w, req->nr_members);
		else
			started = true;
	}
	/* no array: what --force wiped comes back */
	if (!started)
		sbw_unwipe_all(w, req->nr_members);
	else if (note[0])
		mqs_error("%s", note);
	if (started)
		rc = announce_array(&ctl, index);
	sbw_free(w, req->nr_members);
out_ctl:
	mqs_meta_unlock(lock);
	mqs_ctl_close(&ctl);
	req->member_sizes = NULL;
	free(sizes);
	return rc;
}

int cmd_create(const struct cmd *cmd, int argc, char **argv)
{
	uint64_t chunk = MQSTRIPE_DEFAULT_CHUNK_BYTES;
	uint64_t offset = MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES;
	uint64_t depth = 0, metadata = MQS_SB_VERSION;
	const char *name = NULL, *uuid_str = NULL;
	bool depth_given = false, force = false, size_given = false;
	uint64_t size = 0;
	const struct opt opts[] = {
		{ "chunk", 'c', OPT_SIZE, &chunk, NULL, "SIZE",
		  "chunk size: a power of two from 4K to 16M and at least the members' physical block size; members x chunk at most 1G (default 512K)" },
		{ "name", 'n', OPT_STR, &name, NULL, "NAME",
		  "array name: 1 to 31 characters of A-Z a-z 0-9 . _ -, not starting with '-', not . or .., not mqstripeN, and not a name another array's superblocks carry unless --force (default: none)" },
		{ "uuid", 'u', OPT_STR, &uuid_str, NULL, "UUID",
		  "array UUID, as 01234567-89ab-cdef-0123-456789abcdef (default: random)" },
		{ "queue-depth", 'q', OPT_UINT, &depth, &depth_given, "N",
		  "requests of the array, shared by its hardware queues (one per CPU), 1..4096 (default: the members' nr_requests summed, 128..4096)" },
		{ "data-offset", 'o', OPT_SIZE, &offset, NULL, "SIZE",
		  "where data starts on every member: at least 12K, the end of the superblock's two copies at 4K and 8K (at least 8K for format 1), a multiple of 4K and of the members' physical block size (default 1M)" },
		{ "size", 's', OPT_SIZE, &size, &size_given, "SIZE",
		  "the array's size, the same part of every member (one zone striped over all of them): a whole number of stripes (members x chunk), at most members x the smallest member's room (default: all of every member; members of unequal size make zones)" },
		{ "metadata", 'e', OPT_UINT, &metadata, NULL, "VERSION",
		  "superblock format version: 2 (two copies with a generation counter; the default) or 1 (one copy, for stripectl older than format 2)" },
		{ "force", 'f', OPT_FLAG, &force, NULL, NULL,
		  "wipe what the members carry (filesystems, partition tables, md or LVM signatures, an mqstripe superblock) instead of refusing, and put it back if the array does not start; members in use are refused all the same; and take a --name that another (stopped) array's superblocks carry, with a warning" },
		{ 0 }
	};
	struct mqs_create_req req;
	struct mqs_member_dev *members;
	uint8_t uuid[16];
	size_t nr, i;
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	nr = (size_t)(argc - first);
	rc = check_options(chunk, offset, depth_given, depth, name, uuid_str,
			   uuid, nr, metadata);
	if (rc)
		return rc;
	if (!uuid_str)
		uuid_generate_random(uuid);

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
		.metadata = (uint32_t)metadata,
	};

	rc = check_members(members, nr, chunk, offset);
	if (!rc)
		rc = do_create(&req, uuid, force, size_given, size);

	for (i = 0; i < nr; i++)
		if (members[i].fd >= 0)
			close(members[i].fd);
	free(members);
	return rc;
}
