// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl add ARRAY DEVICE...: a stopped array gets more members, as a
 * segment of their own after its end (docs/FORMAT.md "Segments"): they
 * hold only the room they bring, and nothing already written moves (as
 * LVM's lvextend with a new stripe set; md's RAID0 reshapes instead).
 * The next assemble starts the array with the new capacity.
 *
 * Offline only: a running array is refused (stop it first).  The array's
 * members must all be there and current (no missing, stale or recorded
 * faulty member); each new device is checked as create checks a member
 * (size, physical block, signatures, in use, one disk twice).  Then the
 * superblocks are written with the event counter one past the newest:
 * first every new member's, then the array's own in slot order, each the
 * copy not in use first.  Until the first of the array's own holds the
 * new geometry, assembly takes the array as it was and leaves the new
 * members out (mqs_add_leftover()); from then on it takes the newest
 * geometry, the members one event behind included (docs/FORMAT.md
 * "Updates").  A failed write puts the written members back, the array's
 * own first.
 */
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
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include <uuid.h>

#include "add.h"
#include "common.h"
#include "devio.h"
#include "member.h"
#include "opts.h"
#include "parse.h"
#include "sbgroup.h"
#include "sbwrite.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

/* what add found: the array's members by slot, the devices to add */
struct add_ctx {
	struct mqs_cand *cands;		/* every device with a superblock */
	size_t ncands;
	struct mqs_cand **m;		/* the array's members, by slot */
	uint32_t nr;			/* its members */
	const struct mqs_sb *sb;	/* the newest member's superblock */
	char label[MQS_ERR_LEN];	/* "array 'NAME' (UUID ...)" */
	struct mqs_member_dev *dev;	/* the devices to add */
	uint64_t *bytes;		/* the data bytes of each */
	size_t ndev;
	bool force;
};

/*
 * ARRAY names a stopped array: a member (a block device), its UUID or
 * its name.  Its UUID at @uuid; MQS_EXIT_OK, else said.
 */
static int find_stopped(struct add_ctx *a, const char *arg, uint8_t *uuid)
{
	char err[MQS_ERR_LEN], u1[37], u2[37];
	struct stat st;
	size_t i, found = a->ncands;

	if (strchr(arg, '/')) {
		if (stat(arg, &st) || !S_ISBLK(st.st_mode)) {
			mqs_error("add: %s: not a block device: give the array's name, its UUID or one of its members",
				  arg);
			return MQS_EXIT_FAIL;
		}
		for (i = 0; i < a->ncands; i++)
			if (a->cands[i].devno == st.st_rdev)
				break;
		if (i == a->ncands || a->cands[i].status != MQS_SB_OK) {
			mqs_error("add: %s: %s: not a member of an array (see 'stripectl examine %s')",
				  arg, i == a->ncands ? "no mqstripe superblock" :
				  a->cands[i].why, arg);
			return MQS_EXIT_FAIL;
		}
		memcpy(uuid, a->cands[i].sb.array_uuid, MQSTRIPE_UUID_LEN);
		return MQS_EXIT_OK;
	}
	if (!mqs_parse_uuid(arg, uuid, err, sizeof(err))) {
		for (i = 0; i < a->ncands; i++)
			if (a->cands[i].status == MQS_SB_OK &&
			    !memcmp(a->cands[i].sb.array_uuid, uuid,
				    MQSTRIPE_UUID_LEN))
				return MQS_EXIT_OK;
		mqs_error("add: no member of the array with UUID %s found (%zu devices carry a superblock): attach its members",
			  arg, a->ncands);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < a->ncands; i++) {
		if (a->cands[i].status != MQS_SB_OK ||
		    strcmp(a->cands[i].sb.name, arg))
			continue;
		if (found == a->ncands) {
			found = i;
			continue;
		}
		if (!memcmp(a->cands[i].sb.array_uuid,
			    a->cands[found].sb.array_uuid, MQSTRIPE_UUID_LEN))
			continue;
		mqs_format_uuid(a->cands[found].sb.array_uuid, u1);
		mqs_format_uuid(a->cands[i].sb.array_uuid, u2);
		mqs_error("add: two arrays are named '%s' (UUID %s on %s, UUID %s on %s): give the UUID of the one to add to",
			  arg, u1, a->cands[found].path, u2, a->cands[i].path);
		return MQS_EXIT_FAIL;
	}
	if (found == a->ncands) {
		mqs_error("add: no array named '%s' found (%zu devices carry a superblock): give its name, UUID or a member (see 'stripectl examine --scan')",
			  arg, a->ncands);
		return MQS_EXIT_FAIL;
	}
	memcpy(uuid, a->cands[found].sb.array_uuid, MQSTRIPE_UUID_LEN);
	return MQS_EXIT_OK;
}

/*
 * The members of the array @uuid: complete, current, one array; a new
 * member of an earlier add that did not complete is not one of them (a
 * device given may be one: claim_devices() takes it).  Filled: @a->m, @a->nr, @a->sb, @a->label.
 */
static int array_members(struct add_ctx *a, const uint8_t *uuid)
{
	char err[MQS_GROUP_ERR_LEN];
	struct mqs_cand **c;
	size_t i, n = 0, k = 0, x, y, *slots;
	int rc = MQS_EXIT_FAIL;

	c = calloc(a->ncands ? a->ncands : 1, sizeof(*c));
	slots = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*slots));
	a->m = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*a->m));
	if (!c || !slots || !a->m) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < a->ncands; i++) {
		struct mqs_cand *d = &a->cands[i];

		if (d->status == MQS_SB_NONE || d->status == MQS_SB_BAD_VERSION ||
		    memcmp(d->sb.array_uuid, uuid, MQSTRIPE_UUID_LEN))
			continue;
		if (d->status != MQS_SB_OK) {
			mqs_error("add: %s: %s: the array's members must all be readable; nothing added",
				  d->path, d->why);
			goto out;
		}
		c[n++] = d;
	}
	/* an earlier add's new member: given again, or left alone */
	for (i = 0; i < n; i++)
		if (!mqs_add_leftover(c, n, i))
			c[k++] = c[i];
	n = k;
	mqs_array_label(&c[mqs_newest(c, n)]->sb, a->label, sizeof(a->label));
	if (mqs_find_copies(c, n, &x, &y)) {
		mqs_error("add: %s and %s both claim slot %" PRIu32 " of %s: detach the copy that is not the member; nothing added",
			  c[x]->path, c[y]->path, c[x]->sb.slot, a->label);
		goto out;
	}
	if (mqs_group_check(c, n, false, slots, err, sizeof(err))) {
		mqs_error("add: %s; nothing added: an array gets members only when all of its own are there and current ('stripectl assemble' it and see 'stripectl status')",
			  err);
		goto out;
	}
	a->sb = &c[mqs_newest(c, n)]->sb;
	a->nr = a->sb->nr_members;
	for (i = 0; i < a->nr; i++)
		a->m[i] = c[slots[i]];
	rc = MQS_EXIT_OK;
out:
	free(c);
	free(slots);
	return rc;
}

/* What the array is in, that add refuses: said; MQS_EXIT_OK when none. */
static int check_array(struct add_ctx *a)
{
	uint32_t seg[MQS_SB_V2_SEGMENTS], i;

	if (a->sb->version == MQS_SB_VERSION_1) {
		mqs_error("add: %s has superblock format 1, which cannot record members of several sizes or segments: convert it first with 'stripectl assemble --metadata 2 DEVICE...' (then stop it), or create a new array",
			  a->label);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < a->nr; i++) {
		const struct mqs_sb *sb = &a->m[i]->sb;

		if (!(sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS) ||
		    !sb->fault_events)
			continue;
		mqs_error("add: %s: %s holds a fault record (a member failed while the array ran, event %" PRIu64 "): nothing added; assemble the array ('stripectl assemble', with --force for the recorded member if its data is good) and stop it, then add",
			  a->label, a->m[i]->path, sb->fault_events);
		return MQS_EXIT_FAIL;
	}
	if (mqs_sb_segments(a->sb, seg) >= MQS_SB_V2_SEGMENTS) {
		mqs_error("add: %s has %u segments already, the most its superblocks record: nothing added; create a new array for more room",
			  a->label, MQS_SB_V2_SEGMENTS);
		return MQS_EXIT_FAIL;
	}
	if (a->nr + a->ndev > MQS_SB_SEGMENTS_MAX_MEMBERS) {
		mqs_error("add: %s has %u members; %zu more make %zu, above the %u an array of segments can record: nothing added",
			  a->label, a->nr, a->ndev, a->nr + a->ndev,
			  MQS_SB_SEGMENTS_MAX_MEMBERS);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/*
 * Each device to add: a block device, given once, not a second path of a
 * disk given or of a member, large enough, with a physical block that
 * fits the chunk and the data offset, a logical block no larger than the
 * array's.  Its data bytes at @a->bytes.
 */
static int check_devices(struct add_ctx *a)
{
	char err[MQS_ERR_LEN], disk[NAME_MAX + 1], hint[MQS_HINT_LEN];
	const char **paths = NULL;
	uint64_t *devs = NULL, size;
	unsigned int pbs, lbs;
	size_t i, n = 0;
	int fd, rc = MQS_EXIT_FAIL;

	for (i = 0; i < a->ndev; i++)
		if (check_member_path(&a->dev[i]))
			return MQS_EXIT_FAIL;
	if (check_distinct(a->dev, a->ndev))
		return MQS_EXIT_FAIL;
	paths = calloc(a->nr + a->ndev, sizeof(*paths));
	devs = calloc(a->nr + a->ndev, sizeof(*devs));
	if (!paths || !devs) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < a->nr; i++, n++) {
		paths[n] = a->m[i]->path;
		devs[n] = a->m[i]->devno;
	}
	for (i = 0; i < a->ndev; i++, n++) {
		paths[n] = a->dev[i].path;
		devs[n] = a->dev[i].rdev;
	}
	for (i = 0; i < a->ndev; i++) {
		size_t j;

		for (j = 0; j < a->nr; j++) {
			if (a->m[j]->devno != a->dev[i].rdev)
				continue;
			mqs_error("add: %s: already slot %" PRIu32 " of %s: give devices that are not its members",
				  a->dev[i].path, a->m[j]->sb.slot, a->label);
			goto out;
		}
	}
	if (check_one_disk(paths, devs, n))
		goto out;
	for (i = 0; i < a->ndev; i++) {
		struct mqs_member_dev *d = &a->dev[i];

		fd = open(d->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			report_open_error(d->path, errno);
			goto out;
		}
		pbs = 0;
		if (ioctl(fd, BLKPBSZGET, &pbs))
			pbs = 0;
		if (mqs_dev_geometry(fd, &size, &lbs)) {
			mqs_error("add: %s: cannot read its size: %s", d->path,
				  strerror(errno));
			close(fd);
			goto out;
		}
		close(fd);
		hint[0] = '\0';
		if (!mqs_disk_name(major(d->rdev), minor(d->rdev), disk,
				   sizeof(disk)))
			snprintf(hint, sizeof(hint),
				 "/sys/block/%s/queue/physical_block_size",
				 disk);
		if (mqs_check_member_fit(size, pbs, a->sb->chunk_bytes,
					 a->sb->data_offset_bytes,
					 hint[0] ? hint : NULL, err,
					 sizeof(err))) {
			mqs_error("add: %s: %s (the chunk and data offset of %s)",
				  d->path, err, a->label);
			goto out;
		}
		if (lbs > a->sb->array_lbs) {
			mqs_error("add: %s: logical block size %u is larger than the array's %" PRIu32 ": the array's block size would grow under its file system; give a device of %" PRIu32 "-byte blocks or smaller",
				  d->path, lbs, a->sb->array_lbs,
				  a->sb->array_lbs);
			goto out;
		}
		if (mqs_is_zoned(major(d->rdev), minor(d->rdev)) == 1) {
			mqs_error("add: %s: zoned block devices cannot be members: use a conventional (non-zoned) device",
				  d->path);
			goto out;
		}
		d->size_bytes = size;
		d->lbs = lbs;
		d->pbs = pbs;
		a->bytes[i] = mqs_data_bytes(size, a->sb->data_offset_bytes,
					     a->sb->chunk_bytes);
	}
	rc = MQS_EXIT_OK;
out:
	free(paths);
	free(devs);
	return rc;
}

/*
 * Claim each new device (O_EXCL: not in use) and look at what it holds:
 * a superblock of this array (a current member: refused; a new member of
 * an add that did not complete: taken again), of another array or a
 * signature libblkid knows: refused, unless --force wipes it (kept, to
 * be put back if the add fails).
 */
static int claim_devices(struct add_ctx *a, struct sbw *w)
{
	char desc[MQS_ERR_LEN];
	struct mqs_sb_copies cp;
	struct mqs_sb *sb;
	enum mqs_sb_status st;
	size_t i;
	int found, rc = MQS_EXIT_FAIL;

	sb = malloc(sizeof(*sb));
	if (!sb) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < a->ndev; i++)
		if (sbw_claim(&w[i]))
			goto out;
	for (i = 0; i < a->ndev; i++) {
		found = mqs_signatures(w[i].excl, false, NULL, desc,
				       sizeof(desc));
		if (found < 0) {
			mqs_error("add: %s: cannot look for signatures (libblkid): %s",
				  w[i].path, strerror(-found));
			goto out;
		}
		st = mqs_sb_decode_area(w[i].old, MQS_SB_AREA_SIZE, sb, &cp,
					NULL, 0);
		if (!found && st == MQS_SB_OK &&
		    !memcmp(sb->array_uuid, a->sb->array_uuid,
			    MQSTRIPE_UUID_LEN) && sb->slot >= a->nr)
			continue;	/* an add that did not complete */
		if (!found && st == MQS_SB_NONE)
			continue;
		if (!found)
			mqs_sb_describe(sb, st, desc, sizeof(desc));
		if (!found && st == MQS_SB_OK &&
		    !memcmp(sb->array_uuid, a->sb->array_uuid,
			    MQSTRIPE_UUID_LEN)) {
			mqs_error("add: %s: holds %s: a copy of one of its members? Nothing added; give devices that are not its members",
				  w[i].path, desc);
			goto out;
		}
		if (a->force)
			continue;
		mqs_error("add: %s: holds %s: refusing to overwrite it; give --force to wipe it%s",
			  w[i].path, desc,
			  found ? " (as 'wipefs -a' would)" :
			  "; or, if that array is no longer wanted, erase its superblocks ('stripectl zero-superblock' on its members)");
		goto out;
	}
	for (i = 0; a->force && i < a->ndev; i++) {
		w[i].wiped = calloc(1, sizeof(*w[i].wiped));
		if (!w[i].wiped) {
			mqs_error("out of memory");
			goto out;
		}
		found = mqs_signatures(w[i].excl, true, w[i].wiped, desc,
				       sizeof(desc));
		if (found < 0) {
			mqs_error("add: %s: wiping the old signatures failed: %s",
				  w[i].path, strerror(-found));
			goto out;
		}
		if (sbw_reread(&w[i]))
			goto out;
	}
	rc = MQS_EXIT_OK;
out:
	free(sb);
	return rc;
}

/*
 * The new superblocks: the array's geometry with the new members as one
 * more segment, events one past the newest.  @w: the new devices, then
 * the members by slot.
 */
static int build_added(struct add_ctx *a, struct sbw *w)
{
	uint32_t n = a->nr + (uint32_t)a->ndev, i, nseg;
	uint64_t now = (uint64_t)time(NULL), min = UINT64_MAX;
	char err[MQS_ERR_LEN];
	struct mqs_sb *geo, *sb;
	int rc = MQS_EXIT_FAIL;

	geo = malloc(sizeof(*geo));
	sb = malloc(sizeof(*sb));
	if (!geo || !sb) {
		mqs_error("out of memory");
		goto out;
	}
	*geo = *a->sb;
	for (i = 0; i < a->nr; i++)
		geo->sizes[i] = mqs_sb_slot_bytes(a->sb, i);
	for (i = 0; i < a->ndev; i++) {
		geo->sizes[a->nr + i] = a->bytes[i];
		uuid_generate(geo->table[a->nr + i]);
	}
	for (i = 0; i < n; i++)
		if (geo->sizes[i] < min)
			min = geo->sizes[i];
	nseg = mqs_sb_segments(a->sb, geo->seg_members);
	geo->seg_members[nseg] = (uint32_t)a->ndev;
	geo->nr_segments = nseg + 1;
	geo->nr_members = n;
	geo->data_bytes = min;
	geo->feature_incompat |= MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES |
				 MQS_SB_FEAT_INCOMPAT_SEGMENTS;
	geo->feature_compat &= ~MQS_SB_FEAT_COMPAT_FAULTS;
	geo->fault_events = 0;
	memset(geo->fault_slots, 0, sizeof(geo->fault_slots));
	geo->events = a->sb->events + 1;
	geo->utime = now;
	geo->version = MQS_SB_VERSION_2;
	geo->reshape_pos = 0;
	for (i = 0; i < n; i++) {
		struct sbw *x = &w[i < a->nr ? a->ndev + i : i - a->nr];
		const struct mqs_cand *m = i < a->nr ? a->m[i] : NULL;

		*sb = *geo;
		sb->slot = i;
		memcpy(sb->member_uuid, geo->table[i], MQSTRIPE_UUID_LEN);
		sb->member_lbs = m ? m->sb.member_lbs :
			a->dev[i - a->nr].lbs;
		sb->generation = m ? m->sb.generation + 1 : 1;
		if (mqs_sb_check_fields(sb, err, sizeof(err))) {
			mqs_error("add: %s: %s; nothing added", a->label, err);
			goto out;
		}
		memcpy(x->new, x->old, MQS_SB_AREA_SIZE);
		x->copies = mqs_sb_encode_area(sb, m ? x->old + m->copies.chosen *
					       MQS_SB_SIZE : NULL, x->new);
	}
	rc = MQS_EXIT_OK;
out:
	free(geo);
	free(sb);
	return rc;
}

/*
 * Write @w[0..n-1] in order (the new members, then the array's own);
 * on a failure put the written ones back in the reverse order, so that
 * the array's own members leave the new geometry before the new members
 * lose it.  Return: MQS_EXIT_OK or MQS_EXIT_FAIL (said).
 */
static int write_added(struct sbw *w, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (sbw_write_all(&w[i], 1))
			break;
	}
	if (i == n && !sbw_verify_all(w, n))
		return MQS_EXIT_OK;
	for (j = n; j-- > 0;)
		if (w[j].written)
			sbw_restore_all(&w[j], 1);
	return MQS_EXIT_FAIL;
}

static int add_devices(struct add_ctx *a)
{
	char sz[32], was[32], now[32], u[37], seg[64];
	uint32_t segs[MQS_SB_V2_SEGMENTS];
	uint64_t before = mqs_sb_capacity(a->sb), added = 0;
	size_t n = a->nr + a->ndev, i;
	struct sbw *w;
	int rc = MQS_EXIT_FAIL;

	w = calloc(n, sizeof(*w));
	if (!w) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < a->ndev; i++)
		sbw_init(&w[i], a->dev[i].path);
	for (i = 0; i < a->nr; i++)
		sbw_init(&w[a->ndev + i], a->m[i]->path);
	if (claim_devices(a, w))
		goto fail;
	for (i = 0; i < a->nr; i++) {
		if (sbw_claim(&w[a->ndev + i]))
			goto fail;
		/* the area as read by the scan: it must not have changed */
		if (memcmp(w[a->ndev + i].old, a->m[i]->block,
			   MQS_SB_AREA_SIZE)) {
			mqs_error("add: %s: its superblock changed meanwhile: nothing added; retry",
				  a->m[i]->path);
			goto fail;
		}
	}
	if (build_added(a, w) || write_added(w, n))
		goto fail;
	for (i = 0; i < a->ndev; i++) {
		printf("%s: added as slot %zu (%s of data)\n", a->dev[i].path,
		       a->nr + i, mqs_size_exact(a->bytes[i], sz, sizeof(sz)));
		added += a->bytes[i];
	}
	mqs_format_uuid(a->sb->array_uuid, u);
	snprintf(seg, sizeof(seg), "%u",
		 mqs_sb_segments(a->sb, segs) + 1);
	printf("%s: %zu members in %s segments; capacity %s (was %s); start it with 'stripectl assemble --scan --uuid %s'\n",
	       a->label, n, seg,
	       mqs_size_exact(before + added, now, sizeof(now)),
	       mqs_size_exact(before, was, sizeof(was)), u);
	rc = MQS_EXIT_OK;
	goto out;
fail:
	sbw_unwipe_all(w, a->ndev);
out:
	sbw_free(w, n);
	return rc;
}

/*
 * ARRAY given as a member of a running array (whose members the scan
 * leaves out: the module holds them): said, naming the array.  Return:
 * MQS_EXIT_OK when it is not one.
 */
static int running_member(struct mqs_ctl *ctl, const char *arg)
{
	struct mqstripe_member_info *m;
	struct mqstripe_info info;
	uint32_t *idx = NULL, count = 0, i, j;
	char node[64];
	struct stat st;
	int rc = MQS_EXIT_OK;

	if (!strchr(arg, '/') || stat(arg, &st) || !S_ISBLK(st.st_mode) ||
	    mqs_list(ctl, &idx, &count))
		return MQS_EXIT_OK;
	m = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*m));
	for (i = 0; m && i < count && !rc; i++) {
		if (mqs_info(ctl, idx[i], &info, m, MQSTRIPE_MAX_MEMBERS))
			continue;
		for (j = 0; j < info.nr_members && j < MQSTRIPE_MAX_MEMBERS;
		     j++) {
			if (makedev(m[j].major, m[j].minor) != st.st_rdev)
				continue;
			mqs_array_node(idx[i], node, sizeof(node));
			mqs_error("add: %s is slot %u of the running array %s: stop it first ('stripectl stop %s'), add, then assemble it; adding to a running array is not supported yet",
				  arg, m[j].slot, node, node);
			rc = MQS_EXIT_FAIL;
			break;
		}
	}
	free(m);
	free(idx);
	return rc;
}

int cmd_add(const struct cmd *cmd, int argc, char **argv)
{
	bool force = false;
	const struct opt opts[] = {
		{ "force", 'f', OPT_FLAG, &force, NULL, NULL,
		  "wipe what a new device holds (a file system, a partition table, another array's superblock) instead of refusing it" },
		{ 0 }
	};
	struct add_ctx a = { 0 };
	struct mqstripe_info info;
	struct mqs_ctl ctl = { .fd = -1 };
	uint8_t uuid[MQSTRIPE_UUID_LEN];
	char node[64];
	uint32_t index;
	int first, rc, lock = -1;
	size_t i;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	a.force = force;
	a.ndev = (size_t)(argc - first - 1);
	a.dev = calloc(a.ndev, sizeof(*a.dev));
	a.bytes = calloc(a.ndev, sizeof(*a.bytes));
	if (!a.dev || !a.bytes) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < a.ndev; i++) {
		a.dev[i].path = argv[first + 1 + i];
		a.dev[i].fd = -1;
	}
	rc = MQS_EXIT_FAIL;
	if (ctl_open_or_report(&ctl))
		goto out;
	/* a running array, named as status names it */
	if (!mqs_find_array(&ctl, argv[first], &index, &info)) {
		mqs_array_node(index, node, sizeof(node));
		mqs_error("add: %s is running as %s: stop it first ('stripectl stop %s'), add, then assemble it; adding to a running array is not supported yet",
			  argv[first], node, node);
		goto out;
	}
	if (running_member(&ctl, argv[first]))
		goto out;
	lock = mqs_meta_lock(false);
	if (lock == -ETIMEDOUT)
		goto out;
	if (mqs_scan_devices(&a.cands, &a.ncands))
		goto out;
	for (i = 0; i < a.ndev; i++)
		if (check_member_path(&a.dev[i]))
			goto out;
	if (find_stopped(&a, argv[first], uuid) ||
	    array_members(&a, uuid))
		goto out;
	if (!mqs_find_uuid(&ctl, uuid, &index, &info)) {
		mqs_array_node(index, node, sizeof(node));
		mqs_error("add: %s is running as %s: stop it first ('stripectl stop %s'), add, then assemble it; adding to a running array is not supported yet",
			  a.label, node, node);
		goto out;
	}
	if (check_array(&a) || check_devices(&a))
		goto out;
	rc = add_devices(&a);
out:
	if (lock >= 0)
		mqs_meta_unlock(lock);
	mqs_ctl_close(&ctl);
	free(a.m);
	free(a.dev);
	free(a.bytes);
	mqs_free_cands(a.cands, a.ncands);
	return rc;
}
