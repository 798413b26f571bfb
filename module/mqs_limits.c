// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: the array's queue limits, computed from its members at create.
 * How they are applied differs by kernel version: mqs_alloc_disk() in
 * compat.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/backing-dev-defs.h>
#include <linux/blkdev.h>
#include <linux/minmax.h>
#include <linux/pagemap.h>
#include <linux/string.h>

#include "mqs.h"

/*
 * struct mqs_member_mins - the smallest of each member limit that the
 * array takes as the members' sum (in 512-byte sectors; segments a count)
 */
struct mqs_member_mins {
	unsigned int hw_sectors;
	unsigned int max_sectors;
	unsigned int segments;
	unsigned int discard_sectors;
	unsigned int write_zeroes_sectors;
};

/*
 * Fold member @b into @ml (the limits the array takes as the tightest or
 * widest of its members, as blk_stack_limits() does) and @mins.
 */
static void mqs_stack_member(struct mqs_limits *ml,
			     struct mqs_member_mins *mins,
			     struct block_device *b)
{
	struct request_queue *q = bdev_get_queue(b);

	ml->logical_block_size = max(ml->logical_block_size,
				     bdev_logical_block_size(b));
	ml->physical_block_size = max(ml->physical_block_size,
				      bdev_physical_block_size(b));
	mins->hw_sectors = min(mins->hw_sectors, queue_max_hw_sectors(q));
	mins->max_sectors = min(mins->max_sectors, queue_max_sectors(q));
	mins->segments = min_t(unsigned int, mins->segments,
			       queue_max_segments(q));
	ml->max_segment_size = min(ml->max_segment_size,
				   queue_max_segment_size(q));
	ml->seg_boundary_mask = min(ml->seg_boundary_mask,
				    queue_segment_boundary(q));
	ml->virt_boundary_mask = max(ml->virt_boundary_mask,
				     queue_virt_boundary(q));
	ml->dma_alignment = max_t(unsigned int, ml->dma_alignment,
				  queue_dma_alignment(q));
	mins->discard_sectors = min(mins->discard_sectors,
				    bdev_max_discard_sectors(b));
	ml->discard_granularity = max(ml->discard_granularity,
				      bdev_discard_granularity(b));
	mins->write_zeroes_sectors = min(mins->write_zeroes_sectors,
					 bdev_write_zeroes_sectors(b));
	if (!bdev_nonrot(b))
		ml->rotational = true;
	if (bdev_stable_writes(b))
		ml->stable_writes = true;
	if (!bdev_nowait(b))
		ml->nowait = false;
}

/*
 * The integrity (T10 PI) profile: the array takes the members' profile when
 * every member has the same one.  Members that differ, or one without a
 * profile, leave the array without one (md and dm do the same): it works,
 * its data simply carries no protection information of ours; members that
 * have a profile generate and verify their own.
 */
static void mqs_stack_integrity(struct mqs_array *a, struct mqs_limits *ml)
{
	struct block_device *first = a->members[0].bdev;
	u32 i;

	for (i = 1; i < a->nr_members; i++) {
		struct block_device *b = a->members[i].bdev;

		if (!mqs_integrity_same(first, b)) {
			pr_info(MQSTRIPE_DISK_PREFIX "%d: integrity profile of %pg differs from %pg's: the array has none\n",
				a->index, b, first);
			return;
		}
	}
	if (!bdev_get_integrity(first))
		return;
	ml->integrity_src = first;
	/* the guard tags are computed before the data reaches the member */
	ml->stable_writes = true;
}

/**
 * mqs_compute_limits() - the array's queue limits, from its members
 * @a: the array, its members claimed (a->members[i].bdev), its chunk and
 *     member count checked (mqs_check_geometry(): the stripe width is at
 *     most 1 GiB)
 * @ml: filled in; every field set (sectors are 512-byte sectors, sizes
 *      bytes, as in struct queue_limits)
 *
 * Rules in docs/IO_PATH.md "Queue limits"; the stacking semantics follow
 * blk_stack_limits() in block/blk-settings.c, our own hints (io_min the
 * chunk, io_opt the stripe width) follow dm-stripe's io_hints
 * (drivers/md/dm-stripe.c).  With zones io_opt is the first zone's
 * stripe (@a->geom): over every member, but with segments over the first
 * segment's members, where an array's file system began before a segment
 * was added.  The member-derived minimums are taken in one pass (struct
 * mqs_member_mins) and scaled by the member count: max_sectors_kb is what
 * the members take together, never the chunk.
 *
 * Context: process context, under mqs_ctl_mutex (create), which keeps
 * the members claimed; reads only.
 *
 * Not from the members: the array always has a volatile write cache and
 * FUA (compat.h), as md does (md_init_stacking_limits() in
 * drivers/md/md.c).  A member's cache can come and go after create (a dm
 * reload, sysfs write_cache), so which members get a flush is decided at
 * each flush (mqs_queue_flush()); the block layer strips FUA and flushes
 * from member bios of members without a cache and emulates FUA with a
 * flush on members without it (blk_insert_flush() in block/blk-flush.c).
 */
void mqs_compute_limits(struct mqs_array *a, struct mqs_limits *ml)
{
	struct mqs_member_mins mins = {
		.hw_sectors = UINT_MAX,
		.max_sectors = UINT_MAX,
		.segments = USHRT_MAX,
		.discard_sectors = UINT_MAX,
		.write_zeroes_sectors = UINT_MAX,
	};
	unsigned int width_sectors, lbs_sectors;
	u32 n = a->nr_members;
	u64 v;
	u32 i;

	memset(ml, 0, sizeof(*ml));
	ml->logical_block_size = SECTOR_SIZE;
	ml->physical_block_size = SECTOR_SIZE;
	ml->max_segment_size = UINT_MAX;
	ml->seg_boundary_mask = ULONG_MAX;
	ml->dma_alignment = SECTOR_SIZE - 1;	/* blk_set_stacking_limits() */
	ml->nowait = true;
	for (i = 0; i < n; i++)
		mqs_stack_member(ml, &mins, a->members[i].bdev);

	ml->io_min = a->chunk_bytes;
	/*
	 * the first zone's stripe: every member's, but with segments the
	 * first segment's (<= 1 GiB, checked at create)
	 */
	ml->io_opt = a->chunk_bytes * a->geom.nr_members;
	width_sectors = ml->io_opt >> SECTOR_SHIFT;

	/* as large as the members together take, and a whole stripe */
	v = max_t(u64, (u64)n * mins.hw_sectors, width_sectors);
	ml->max_hw_sectors = min_t(u64, v, MQS_MAX_HW_SECTORS_CEILING);
	/* never capped by the chunk */
	v = max_t(u64, (u64)n * mins.max_sectors, width_sectors);
	ml->max_sectors = min_t(u64, v, ml->max_hw_sectors);
	/* a request of scattered pages must not be split before us */
	v = max_t(u64, (u64)n * mins.segments,
		  ml->max_sectors >> (PAGE_SHIFT - SECTOR_SHIFT));
	ml->max_segments = min_t(u64, v, MQS_MAX_SEGMENTS_CEILING);

	lbs_sectors = ml->logical_block_size >> SECTOR_SHIFT;
	if (mins.discard_sectors) {
		v = min_t(u64, (u64)n * mins.discard_sectors, UINT_MAX >> SECTOR_SHIFT);
		ml->max_discard_sectors = round_down((unsigned int)v,
						     lbs_sectors);
	} else {
		ml->discard_granularity = 0;
	}
	if (mins.write_zeroes_sectors) {
		v = min_t(u64, (u64)n * mins.write_zeroes_sectors, UINT_MAX >> SECTOR_SHIFT);
		ml->max_write_zeroes_sectors = round_down((unsigned int)v,
							  lbs_sectors);
	}
	mqs_stack_integrity(a, ml);
}

/**
 * mqs_cap_readahead() - bound the read-ahead the block layer gave the array
 * @disk: the array's disk, just added (device_add_disk() returned 0)
 *
 * device_add_disk() sets read_ahead_kb to twice io_opt, the stripe width
 * (blk_apply_bdi_limits() in block/blk-settings.c since 6.10,
 * disk_update_readahead() in block/genhd.c before): up to 2 GiB for the
 * widest stripe (1 GiB).  Every sequential reader's window, and every
 * page fault of a mapped file (a read-around of the whole window:
 * do_sync_mmap_readahead() in mm/filemap.c), would read that much.  The
 * array keeps the block layer's rule up to two of its largest requests
 * (2 x max_sectors_kb, at most 128 MiB: MQS_MAX_HW_SECTORS_CEILING), which
 * is still two stripes whenever a stripe fits in one request, and never
 * goes below the kernel's default (VM_READAHEAD_PAGES).
 *
 * A later write to the array's max_sectors_kb makes 6.10+ raise it to
 * twice io_opt again (the block layer never lowers it); read_ahead_kb
 * itself stays the admin's to set.
 *
 * Context: process context, before the array is published; the disk's
 * openers (udev's probe) may read meanwhile, which is harmless.
 */
void mqs_cap_readahead(struct gendisk *disk)
{
	struct backing_dev_info *bdi = disk->bdi;
	unsigned long cap;

	/* 2 x max_sectors in pages: one shift fewer than sectors to pages */
	cap = queue_max_sectors(disk->queue) >> (PAGE_SHIFT - SECTOR_SHIFT - 1);
	cap = max_t(unsigned long, cap, VM_READAHEAD_PAGES);
	if (bdi->ra_pages > cap)
		bdi->ra_pages = cap;
}
