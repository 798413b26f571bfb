/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mqstripe: every kernel version difference lives here.
 *
 * The HAVE_* defines come from build-time feature probes (module/probes/,
 * run by module/probe.sh against the target kernel's build tree), never
 * from LINUX_VERSION_CODE alone: distribution kernels backport block-layer
 * changes (Debian's 6.12 carries 6.13/6.14 pieces, RHEL 9 mixes releases).
 */
#ifndef MQS_COMPAT_H
#define MQS_COMPAT_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/backing-dev.h>
#include <linux/mm.h>

#include "mqstripe_probed.h"
#include "mqs_limits.h"

#ifdef HAVE_BLK_INTEGRITY_H
/* 5.16+; before, the integrity API was in linux/blkdev.h */
#include <linux/blk-integrity.h>
#endif

/*
 * nth_page() (a macro of linux/mm.h) stepped from a page to the n-th one
 * after it, across memory sections on SPARSEMEM without VMEMMAP.  Linux
 * 6.18 has no nth_page(); its include/linux/bvec.h steps through the pages
 * of a bvec with pointer arithmetic, as this fallback does.
 */
#ifndef nth_page
#define nth_page(page, n)	((page) + (n))
#endif

#ifndef __counted_by
#define __counted_by(member)
#endif

/*
 * Binary sysfs attributes: ->read() takes a const struct bin_attribute *
 * and attribute_group.bin_attrs lists const pointers from 6.16 on
 * (include/linux/sysfs.h); before, both are non-const.
 */
#ifdef HAVE_BIN_ATTR_READ_CONST
typedef const struct bin_attribute mqs_bin_attr_t;
#else
typedef struct bin_attribute mqs_bin_attr_t;
#endif

/* ---- request operations (before 6.0) -------------------------------- */

#ifndef HAVE_BLK_OPF_T
/* before 6.0: operation and flags were a plain unsigned int (bi_opf) */
typedef unsigned int blk_opf_t;
#endif

/*
 * The operation of a request or bio (bio_op(), req_op()): enum req_op from
 * 6.0, enum req_opf before.  Code names it mqs_req_op_t.
 */
#ifdef HAVE_ENUM_REQ_OP
typedef enum req_op mqs_req_op_t;
#else
typedef enum req_opf mqs_req_op_t;
#endif

#ifndef HAVE_BIO_ALLOC_BIOSET_BDEV
/* before 5.18: bio_alloc_bioset(gfp, nr_vecs, bs), then set dev and op */
static inline struct bio *mqs_bio_alloc_bioset(struct block_device *bdev,
					       unsigned short nr_vecs,
					       blk_opf_t opf, gfp_t gfp,
					       struct bio_set *bs)
{
	struct bio *bio = bio_alloc_bioset(gfp, nr_vecs, bs);

	if (bio) {
		if (bdev)
			bio_set_dev(bio, bdev);
		bio->bi_opf = opf;
	}
	return bio;
}
#define bio_alloc_bioset mqs_bio_alloc_bioset

/* before 5.18: bio_clone_fast(bio, gfp, bs), then set the device */
static inline struct bio *mqs_bio_alloc_clone(struct block_device *bdev,
					      struct bio *src, gfp_t gfp,
					      struct bio_set *bs)
{
	struct bio *bio = bio_clone_fast(src, gfp, bs);

	if (bio && bdev)
		bio_set_dev(bio, bdev);
	return bio;
}

#define bio_alloc_clone mqs_bio_alloc_clone
#endif

/*
 * Stop offering discard or write-zeroes on @q from bio completion, as dm
 * does after a BLK_STS_NOTSUPP (disable_discard() and
 * disable_write_zeroes() in drivers/md/dm.c before 6.9,
 * blk_queue_disable_discard() and blk_queue_disable_write_zeroes() in
 * include/linux/blkdev.h since): a plain store of the limits, no queue
 * freeze, so that blkdev_issue_zeroout() sees the limit gone when the
 * failed request ends and falls back to writing zeroes.
 */
static inline void mqs_queue_disable_op(struct request_queue *q,
					mqs_req_op_t op)
{
	if (op == REQ_OP_DISCARD) {
		WRITE_ONCE(q->limits.max_discard_sectors, 0);
		WRITE_ONCE(q->limits.max_hw_discard_sectors, 0);
#ifdef HAVE_QUEUE_FLAG_DISCARD
		blk_queue_flag_clear(QUEUE_FLAG_DISCARD, q);
#endif
	} else {
		WRITE_ONCE(q->limits.max_write_zeroes_sectors, 0);
	}
}

/* ---- polled IO and batched dispatch ---------------------------------- */

/*
 * Polled IO needs bio_poll() and ->poll(hctx, struct io_comp_batch *)
 * (5.16+) and a ->map_queues() for the poll map; we take the one returning
 * void (6.0+).  Without them the array never has a poll queue map.
 */
#if defined(HAVE_BIO_POLL) && defined(HAVE_MAP_QUEUES_VOID)
#define MQS_CAN_POLL	1
#define MQS_REQ_POLLED	REQ_POLLED
#else
#define MQS_CAN_POLL	0
#define MQS_REQ_POLLED	0
#endif

/* The member has poll queues (queue/io_poll reads 1). */
static inline bool mqs_bdev_can_poll(struct block_device *bdev)
{
#if !MQS_CAN_POLL
	return false;
#elif defined(HAVE_QUEUE_LIMITS_FEATURES)
	return bdev_get_queue(bdev)->limits.features & BLK_FEAT_POLL;
#else
	return test_bit(QUEUE_FLAG_POLL, &bdev_get_queue(bdev)->queue_flags);
#endif
}

/*
 * ->queue_rqs() (5.17+) takes the plug's list of requests: a
 * struct request ** up to 6.12, a struct rq_list * from 6.13 (and in
 * Debian's 6.12).  rq_list_pop() takes either.
 */
#ifdef HAVE_RQ_LIST_STRUCT
typedef struct rq_list mqs_rq_list_t;
#else
typedef struct request *mqs_rq_list_t;
#endif

/* ---- member queue properties (helpers added in 5.19 and 6.0) -------- */

#ifndef HAVE_BDEV_NONROT
static inline bool bdev_nonrot(struct block_device *bdev)
{
	return blk_queue_nonrot(bdev_get_queue(bdev));
}
#endif

#ifndef HAVE_BDEV_STABLE_WRITES
static inline bool bdev_stable_writes(struct block_device *bdev)
{
	return blk_queue_stable_writes(bdev_get_queue(bdev));
}
#endif

#ifndef HAVE_BDEV_WRITE_CACHE
static inline bool bdev_write_cache(struct block_device *bdev)
{
	return test_bit(QUEUE_FLAG_WC, &bdev_get_queue(bdev)->queue_flags);
}
#endif

#ifndef HAVE_BDEV_NOWAIT
static inline bool bdev_nowait(struct block_device *bdev)
{
	return blk_queue_nowait(bdev_get_queue(bdev));
}
#endif

#ifndef HAVE_BDEV_MAX_DISCARD_SECTORS
/* before 5.19 a queue without QUEUE_FLAG_DISCARD may keep a stale limit */
static inline unsigned int bdev_max_discard_sectors(struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);

	return blk_queue_discard(q) ? q->limits.max_discard_sectors : 0;
}
#endif

#ifndef HAVE_BDEV_DISCARD_GRANULARITY
static inline unsigned int bdev_discard_granularity(struct block_device *bdev)
{
	return bdev_get_queue(bdev)->limits.discard_granularity;
}
#endif

#ifndef HAVE_DISK_OPENERS
/* before 5.19 bd_openers was a plain int, under disk->open_mutex */
static inline unsigned int disk_openers(struct gendisk *disk)
{
	return disk->part0->bd_openers;
}
#endif

/* ---- user memory -------------------------------------------------- */

#ifndef HAVE_FAULT_IN_SAFE_WRITEABLE
/*
 * 5.16 (and later 5.15.y) fault in user memory for writing without
 * changing it; before, only fault_in_pages_writeable() was there, and it
 * stores zeroes.  This is the 5.15.y stable version (mm/gup.c), with the
 * bytes-not-faulted-in count corrected for a fault past the first page.
 */
static inline size_t mqs_fault_in_safe_writeable(const char __user *uaddr,
						 size_t size)
{
	unsigned long start = (unsigned long)uaddr, end;
	struct mm_struct *mm = current->mm;
	bool unlocked = false;

	if (unlikely(size == 0))
		return 0;
	end = PAGE_ALIGN(start + size);
	if (end < start)
		end = 0;

	mmap_read_lock(mm);
	do {
		if (fixup_user_fault(mm, start, FAULT_FLAG_WRITE, &unlocked))
			break;
		start = (start + PAGE_SIZE) & PAGE_MASK;
	} while (start != end);
	mmap_read_unlock(mm);

	if (size > start - (unsigned long)uaddr)
		return size - (start - (unsigned long)uaddr);
	return 0;
}

#define fault_in_safe_writeable mqs_fault_in_safe_writeable
#endif

/* ---- opening and releasing members -------------------------------- */

/*
 * mqs_close_member() must give up the claim before it returns: the caller
 * frees the array (the holder) next, and with it maybe the module (rmmod
 * stops every array), while a claim that is still held with our holder ops
 * can call ->mark_dead() on the array at any time.  Every branch below
 * releases the claim synchronously:
 *
 *  - up to 6.6 blkdev_put() and in 6.7/6.8 bdev_release() end the claim
 *    before they return: bd_end_claim() clears bd_holder_ops under
 *    bd_holder_lock, the lock bdev_mark_dead() calls ->mark_dead() under
 *    (block/bdev.c).
 *
 *  - 6.9+ opens the member as a struct file.  Its release,
 *    blkdev_release() -> bdev_release() -> bd_end_claim() (block/fops.c,
 *    block/bdev.c), runs at the last fput(), which fput() defers to task
 *    work run on the way back to user space, after the ioctl (or
 *    delete_module()) has freed the array (fs/file_table.c).
 *    bdev_fput() yields the claim at once and leaves only the rest of the
 *    release to fput().  A kernel that opens members as files but has no
 *    bdev_fput() (a partial backport: mainline 6.9 has both) gets
 *    __fput_sync() instead, which runs the release before it returns: the
 *    file is ours alone (never in a file table), so this put is the last.
 *    flush_delayed_fput() would not do: it runs the fputs of kernel
 *    threads (delayed_fput_list), not the task work of the current task,
 *    and task_work_run() is not exported.
 */
#if defined(HAVE_BDEV_FILE_OPEN_BY_DEV)
/* 6.9+: the claim is a struct file. */
typedef struct file *mqs_bdev_handle_t;

static inline struct block_device *
mqs_open_member(dev_t dev, bool write, void *holder,
		const struct blk_holder_ops *hops, mqs_bdev_handle_t *handle)
{
	struct file *f = bdev_file_open_by_dev(dev, BLK_OPEN_READ |
					       (write ? BLK_OPEN_WRITE : 0),
					       holder, hops);

	if (IS_ERR(f))
		return ERR_CAST(f);
	*handle = f;
	return file_bdev(f);
}

static inline void mqs_close_member(mqs_bdev_handle_t handle, bool write,
				    void *holder)
{
#ifdef HAVE_BDEV_FPUT
	bdev_fput(handle);
#else
	/* not fput(): the claim must be gone when this returns (above) */
	__fput_sync(handle);
#endif
}
#elif defined(HAVE_BDEV_OPEN_BY_DEV)
/* 6.7 and 6.8: struct bdev_handle. */
typedef struct bdev_handle *mqs_bdev_handle_t;

static inline struct block_device *
mqs_open_member(dev_t dev, bool write, void *holder,
		const struct blk_holder_ops *hops, mqs_bdev_handle_t *handle)
{
	struct bdev_handle *h = bdev_open_by_dev(dev, BLK_OPEN_READ |
						 (write ? BLK_OPEN_WRITE : 0),
						 holder, hops);

	if (IS_ERR(h))
		return ERR_CAST(h);
	*handle = h;
	return h->bdev;
}

static inline void mqs_close_member(mqs_bdev_handle_t handle, bool write,
				    void *holder)
{
	bdev_release(handle);
}
#elif defined(HAVE_BLKDEV_GET_BY_DEV_HOPS)
/* 6.5 and 6.6: blk_mode_t and holder ops, put by holder. */
typedef struct block_device *mqs_bdev_handle_t;

static inline struct block_device *
mqs_open_member(dev_t dev, bool write, void *holder,
		const struct blk_holder_ops *hops, mqs_bdev_handle_t *handle)
{
	struct block_device *b = blkdev_get_by_dev(dev, BLK_OPEN_READ |
						   (write ? BLK_OPEN_WRITE : 0),
						   holder, hops);

	if (!IS_ERR(b))
		*handle = b;
	return b;
}

static inline void mqs_close_member(mqs_bdev_handle_t handle, bool write,
				    void *holder)
{
	blkdev_put(handle, holder);
}
#else
/* up to 6.4: fmode_t with FMODE_EXCL, no holder ops. */
typedef struct block_device *mqs_bdev_handle_t;
struct blk_holder_ops;

/* the mode of the open, which blkdev_put() must be given again */
#define MQS_OPEN_MODE(write)	(FMODE_READ | ((write) ? FMODE_WRITE : 0) | \
				 FMODE_EXCL)

static inline struct block_device *
mqs_open_member(dev_t dev, bool write, void *holder,
		const struct blk_holder_ops *hops, mqs_bdev_handle_t *handle)
{
	struct block_device *b = blkdev_get_by_dev(dev, MQS_OPEN_MODE(write),
						   holder);

	if (!IS_ERR(b))
		*handle = b;
	return b;
}

static inline void mqs_close_member(mqs_bdev_handle_t handle, bool write,
				    void *holder)
{
	blkdev_put(handle, MQS_OPEN_MODE(write));
}
#endif

/*
 * Holder ops are used only where ->mark_dead takes the surprise argument
 * (6.8+): from then on it is called with bd_holder_lock held and must drop
 * it (block/bdev.c: bdev_mark_dead()).  They rely on mqs_close_member()
 * ending the claim before it returns (above).
 */
#ifdef HAVE_MARK_DEAD_SURPRISE
#define MQS_HAVE_HOLDER_OPS 1
#endif

/* ---- tag set flags ------------------------------------------------ */

#ifdef HAVE_BLK_MQ_F_SHOULD_MERGE
#define MQS_TAG_SET_MERGE_FLAG	BLK_MQ_F_SHOULD_MERGE
#else
#define MQS_TAG_SET_MERGE_FLAG	0	/* 6.14+: merging is the default */
#endif

/* ---- the T10 PI integrity profile --------------------------------- */

/*
 * mqs_integrity_same() - whether @b has the integrity profile of @first, by
 * the block layer's own comparison (no profile on either counts as the
 * same).  Up to 6.10 the profile is queue->integrity and
 * blk_integrity_compare() compares it (as md does); from 6.11 it is part
 * of struct queue_limits and is stacked like md and dm stack it.
 */
#if defined(HAVE_QUEUE_LIMITS_STACK_INTEGRITY)
static inline bool mqs_integrity_same(struct block_device *first,
				      struct block_device *b)
{
	struct queue_limits t = { };

	queue_limits_stack_integrity_bdev(&t, first);
	return queue_limits_stack_integrity_bdev(&t, b);
}
#elif defined(HAVE_BLK_INTEGRITY_COMPARE)
static inline bool mqs_integrity_same(struct block_device *first,
				      struct block_device *b)
{
	return !blk_integrity_compare(first->bd_disk, b->bd_disk);
}
#else
/* neither: only "no profile at all" is known to be the same */
static inline bool mqs_integrity_same(struct block_device *first,
				      struct block_device *b)
{
	return !bdev_get_integrity(first) && !bdev_get_integrity(b);
}
#endif

/*
 * Integrity payloads of cloned bios come from the bioset's own mempools up
 * to 6.13 (bio_integrity_alloc()), so a GFP_NOIO clone cannot fail.  Later
 * kernels kmalloc() them and have no such pools; there a clone can fail, and
 * its request is made again after a pause (mqs_clone_held() in mqs_io.c).
 */
static inline int mqs_bioset_integrity_create(struct bio_set *bs,
					      int pool_size)
{
#ifdef HAVE_BIOSET_INTEGRITY_CREATE
	return bioset_integrity_create(bs, pool_size) ? -ENOMEM : 0;
#else
	return 0;
#endif
}

/* ---- the gendisk and its queue limits ------------------------------ */

#ifdef HAVE_QUEUE_LIMITS_FEATURES
/* 6.11+: everything, flags included, goes in through struct queue_limits. */
static inline struct gendisk *mqs_alloc_disk(struct blk_mq_tag_set *set,
					     const struct mqs_limits *ml,
					     void *queuedata)
{
	struct queue_limits lim = {
		.logical_block_size = ml->logical_block_size,
		.physical_block_size = ml->physical_block_size,
		.io_min = ml->io_min,
		.io_opt = ml->io_opt,
		.max_hw_sectors = ml->max_hw_sectors,
		/* 6.12 derives max_sectors from max_user_sectors */
		.max_user_sectors = ml->max_sectors,
		.max_segment_size = ml->max_segment_size,
		.max_segments = ml->max_segments,
		.seg_boundary_mask = ml->seg_boundary_mask,
		.virt_boundary_mask = ml->virt_boundary_mask,
		.dma_alignment = ml->dma_alignment,
		.max_hw_discard_sectors = ml->max_discard_sectors,
		.max_user_discard_sectors = UINT_MAX,
		.discard_granularity = ml->discard_granularity,
		.max_discard_segments = 1,
		.max_write_zeroes_sectors = ml->max_write_zeroes_sectors,
		.chunk_sectors = 0,
	};
	struct gendisk *disk;

	/* always: which members need a flush is decided per flush */
	lim.features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
	if (ml->rotational)
		lim.features |= BLK_FEAT_ROTATIONAL;
	if (ml->stable_writes)
		lim.features |= BLK_FEAT_STABLE_WRITES;
#ifdef HAVE_QUEUE_LIMITS_STACK_INTEGRITY
	/* an empty profile inherits the member's (blk-settings.c) */
	if (ml->integrity_src)
		queue_limits_stack_integrity_bdev(&lim, ml->integrity_src);
#endif

	disk = blk_mq_alloc_disk(set, &lim, queuedata);
	if (IS_ERR(disk) || ml->nowait)
		return disk;
	/* blk_mq_alloc_queue() always adds NOWAIT; a member lacks it */
	lim = queue_limits_start_update(disk->queue);
	lim.features &= ~BLK_FEAT_NOWAIT;
	if (queue_limits_commit_update(disk->queue, &lim)) {
		put_disk(disk);
		return ERR_PTR(-EINVAL);
	}
	return disk;
}
#else
/* up to 6.10: allocate, then the historic setters and queue flags. */
static inline struct gendisk *mqs_alloc_disk(struct blk_mq_tag_set *set,
					     const struct mqs_limits *ml,
					     void *queuedata)
{
	struct request_queue *q;
	struct gendisk *disk;

#ifdef HAVE_BLK_MQ_ALLOC_DISK_LIMITS
	disk = blk_mq_alloc_disk(set, NULL, queuedata);
#else
	disk = blk_mq_alloc_disk(set, queuedata);
#endif
	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, ml->logical_block_size);
	blk_queue_physical_block_size(q, ml->physical_block_size);
	blk_queue_io_min(q, ml->io_min);
	blk_queue_io_opt(q, ml->io_opt);
	blk_queue_max_hw_sectors(q, ml->max_hw_sectors);
	/*
	 * blk_queue_max_hw_sectors() caps max_sectors at BLK_DEF_MAX_SECTORS
	 * (1280 KiB); our default is larger, set it as max_sectors_kb's
	 * store does (block/blk-sysfs.c).
	 */
	q->limits.max_sectors = ml->max_sectors;
	disk->bdi->io_pages = ml->max_sectors >> (PAGE_SHIFT - SECTOR_SHIFT);
	blk_queue_max_segments(q, ml->max_segments);
	blk_queue_segment_boundary(q, ml->seg_boundary_mask);
	/*
	 * blk_queue_virt_boundary() sets max_segment_size to UINT_MAX, and
	 * blk_queue_max_segment_size() warns beside a boundary; a stacking
	 * driver keeps both (blk_stack_limits() in block/blk-settings.c,
	 * as dm does): a member without a boundary may take smaller
	 * segments than one with it.
	 */
	if (ml->virt_boundary_mask)
		blk_queue_virt_boundary(q, ml->virt_boundary_mask);
	q->limits.max_segment_size = ml->max_segment_size;
	blk_queue_dma_alignment(q, ml->dma_alignment);
	blk_queue_max_discard_sectors(q, ml->max_discard_sectors);
	q->limits.discard_granularity = ml->discard_granularity;
#ifdef HAVE_QUEUE_FLAG_DISCARD
	/* before 5.19 the flag, not the limit, says discard is supported */
	if (ml->max_discard_sectors)
		blk_queue_flag_set(QUEUE_FLAG_DISCARD, q);
#endif
	blk_queue_max_write_zeroes_sectors(q, ml->max_write_zeroes_sectors);
	blk_queue_chunk_sectors(q, 0);
	/* always: which members need a flush is decided per flush */
	blk_queue_write_cache(q, true, true);
	if (ml->rotational)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	if (ml->stable_writes)
		blk_queue_flag_set(QUEUE_FLAG_STABLE_WRITES, q);
	if (!ml->nowait)
		blk_queue_flag_clear(QUEUE_FLAG_NOWAIT, q);
#ifdef HAVE_BLK_INTEGRITY_COMPARE
	if (ml->integrity_src)
		blk_integrity_register(disk,
				       bdev_get_integrity(ml->integrity_src));
#endif
	return disk;
}
#endif

/*
 * mqs_cleanup_disk() - the last put of a disk from mqs_alloc_disk(), after
 * del_gendisk() or when device_add_disk() failed.  Up to 5.19 only
 * blk_cleanup_queue() exits the queue (blk_mq_exit_queue(),
 * block/blk-core.c), so a blk_mq_alloc_disk() disk must be put with
 * blk_cleanup_disk() (block/genhd.c), before blk_mq_free_tag_set().  6.0
 * removed it: del_gendisk() exits the queue, and so does disk_release()
 * for a disk never added (block/genhd.c).
 */
static inline void mqs_cleanup_disk(struct gendisk *disk)
{
#ifdef HAVE_BLK_CLEANUP_DISK
	blk_cleanup_disk(disk);
#else
	put_disk(disk);
#endif
}

#endif /* MQS_COMPAT_H */
