/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mqstripe: the array's queue limits, computed from its members
 * (mqs_limits.c) and applied when its disk is allocated (mqs_alloc_disk()
 * in compat.h: how they go in differs by kernel version).
 */
#ifndef MQS_LIMITS_H
#define MQS_LIMITS_H

#include <linux/types.h>
#include <linux/blk_types.h>

/*
 * Ceiling of max_hw_sectors: 64 MiB.  One request never pins more than this
 * many bytes of pages, a member bio's bi_size (unsigned int bytes) always
 * fits, and it is 32 x the largest NVMe MDTS commonly seen (2 MiB).
 */
#define MQS_MAX_HW_SECTORS_CEILING	((64U << 20) >> SECTOR_SHIFT)
/* max_segments is an unsigned short in struct queue_limits. */
#define MQS_MAX_SEGMENTS_CEILING	65535U

struct mqs_array;
struct block_device;
struct gendisk;

/**
 * struct mqs_limits - the array's queue limits, in the units struct
 * queue_limits uses (block/blk-settings.c); computed by
 * mqs_compute_limits(), applied by mqs_alloc_disk()
 * @logical_block_size: bytes, the largest of the members'
 * @physical_block_size: bytes, the largest of the members'
 * @io_min: bytes, the chunk
 * @io_opt: bytes, the stripe width of the first zone (members x chunk;
 *	with segments the first segment's members x chunk)
 * @max_hw_sectors: members x the smallest member max_hw_sectors, at least
 *	a stripe, at most MQS_MAX_HW_SECTORS_CEILING
 * @max_sectors: the same from the members' max_sectors, at most
 *	@max_hw_sectors (the default of max_sectors_kb)
 * @max_segment_size: bytes, the smallest of the members'
 * @max_segments: members x the smallest member count, at least one per
 *	page of @max_sectors, at most MQS_MAX_SEGMENTS_CEILING
 * @seg_boundary_mask: the tightest of the members'
 * @virt_boundary_mask: the widest of the members', 0: none
 * @dma_alignment: a mask, the widest of the members' and 511
 * @max_discard_sectors: members x the smallest member's, in whole logical
 *	blocks; 0 when a member has no discard
 * @discard_granularity: bytes, the largest of the members'; 0 without
 *	discard
 * @max_write_zeroes_sectors: as @max_discard_sectors, for write-zeroes
 * @rotational: a member is rotational
 * @stable_writes: a member needs stable pages, or the array carries an
 *	integrity profile
 * @nowait: every member takes REQ_NOWAIT
 * @integrity_src: the member whose integrity profile every member has
 *	(mqs_integrity_same()) and the array takes, or NULL: no profile
 */
struct mqs_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_hw_sectors;
	unsigned int max_sectors;
	unsigned int max_segment_size;
	unsigned short max_segments;
	unsigned long seg_boundary_mask;
	unsigned long virt_boundary_mask;
	unsigned int dma_alignment;
	unsigned int max_discard_sectors;
	unsigned int discard_granularity;
	unsigned int max_write_zeroes_sectors;
	bool rotational;
	bool stable_writes;
	bool nowait;
	struct block_device *integrity_src;
};

void mqs_compute_limits(struct mqs_array *a, struct mqs_limits *ml);
void mqs_cap_readahead(struct gendisk *disk);

#endif /* MQS_LIMITS_H */
