// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: the IO path.
 *
 * Each array request becomes at most one bio per member: the part of a
 * contiguous array range that lands on one member is contiguous on that
 * member (mqs_member_range() in mqstripe_map.h), so the request's segments
 * are gathered into one member bio per member touched.  Member bios come
 * from the array's bio set (mempool-backed: they cannot fail, see
 * mqs_release_held() for how they wait) and point at the request's own
 * pages: no data is copied.
 *
 * Submitting to a member can sleep (tag waits, frozen queues, throttling),
 * so the tag set is BLK_MQ_F_BLOCKING, except for reads and writes with
 * REQ_NOWAIT: those never sleep here (member bios inherit REQ_NOWAIT,
 * allocations are GFP_NOWAIT); where they would have to wait they are
 * requeued and dispatched again from kblockd (mqs_put_cmd()).
 *
 * A request with an integrity payload (T10 PI) takes a clone path instead
 * (mqs_queue_integrity()): one clone per array bio and chunk piece.
 *
 * A request that fits in one chunk and has one bio (most small database
 * IO) takes a lean path: its member bio is a clone sharing the request's
 * bio_vec table, with no gather walk, made in the request's own driver
 * data (no allocation).
 *
 * Batching: member bios of a batch of requests (->queue_rqs(), or
 * ->queue_rq() with bd->last false until the last one or ->commit_rqs())
 * are submitted together under one plug, so members see batched doorbells.
 *
 * Polled IO: when every member has poll queues the tag set has a poll map;
 * a polled request's member bios are REQ_POLLED and listed on their
 * hardware context, whose ->poll() polls them (see mqs_poll()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/bio.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include "mqs.h"

/* Flags of the array request that member bios inherit. */
#define MQS_RQ_FLAGS_PASSED	(REQ_FUA | REQ_SYNC | REQ_META | REQ_PRIO | \
				 REQ_IDLE | REQ_RAHEAD | REQ_BACKGROUND | \
				 REQ_NOUNMAP | REQ_NOWAIT | MQS_REQ_POLLED)

/* Pause before a request that met AGAIN without REQ_NOWAIT runs again. */
#define MQS_AGAIN_DELAY_MS	3

/* First error of a request wins; the request ends with it. */
static void mqs_set_status(struct request *rq, blk_status_t status)
{
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);

	atomic_cmpxchg(&cmd->status, 0, (__force int)status);
}

/* End the request with its status (the first error of a member bio). */
static void mqs_end_cmd(struct request *rq, blk_status_t status)
{
	if (unlikely(status) && (rq->cmd_flags & REQ_RAHEAD))
		rq->rq_flags |= RQF_QUIET;
	blk_mq_end_request(rq, status);
}

/*
 * Drop a reference of the request; the last one ends it.
 *
 * BLK_STS_AGAIN means a NOWAIT request would have had to wait (for our
 * mempool, or for a member's tag: member bios inherit REQ_NOWAIT).  That is
 * not an error, and it must not reach the submitter as one: io_uring retries
 * an AGAIN only when it completes in the submitting task
 * (io_rw_should_reissue() in io_uring/rw.c), and member bios complete
 * anywhere.  So the request is requeued without REQ_NOWAIT and dispatched
 * again from kblockd, which may sleep.  Member writes that were done are
 * written again with the same data.  The block layer, dm and md answer
 * AGAIN only to REQ_NOWAIT bios (block/blk-mq.c, drivers/md/dm.c, md.c),
 * so a request without it should never see one; if a member does answer
 * AGAIN to a bio that may wait, the request is still requeued, after a
 * pause (as blk-mq does for BLK_STS_RESOURCE), never ended with EAGAIN.
 *
 * A failed read-ahead request is quiet: the page cache reads the pages
 * again without REQ_RAHEAD if they are wanted, and that read is reported.
 *
 * A polled request is ended by its poller, in task context, when its last
 * member bio completed in interrupt context (a member that cleared
 * REQ_POLLED, or lost polling: mqs_member_lost_feature()): the
 * submitter's bio of a polled request may come from the per-CPU bio cache
 * (REQ_ALLOC_CACHE), which 6.1's bio_put() refuses to take back from
 * interrupt context with a warning (block/bio.c).  It goes on the
 * context's @ended list, which ->poll() ends (mqs_poll()); a polled
 * request is polled until it ends (io_uring's iopoll, bio_poll() loops).
 */
static void mqs_put_cmd(struct request *rq)
{
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	blk_status_t status;

	if (!atomic_dec_and_test(&cmd->pending))
		return;
	status = (__force blk_status_t)atomic_read(&cmd->status);
	if (unlikely(status == BLK_STS_AGAIN)) {
		if (rq->cmd_flags & REQ_NOWAIT) {
			rq->cmd_flags &= ~REQ_NOWAIT;
			blk_mq_requeue_request(rq, true);
		} else {
			blk_mq_requeue_request(rq, false);
			blk_mq_delay_kick_requeue_list(rq->q,
						       MQS_AGAIN_DELAY_MS);
		}
		return;
	}
	if (unlikely(rq->cmd_flags & MQS_REQ_POLLED) && in_interrupt()) {
		struct mqs_hctx *h = rq->mq_hctx->driver_data;
		unsigned long flags;

		spin_lock_irqsave(&h->lock, flags);
		list_add_tail(&cmd->ended, &h->ended);
		spin_unlock_irqrestore(&h->lock, flags);
		return;
	}
	mqs_end_cmd(rq, status);
}

/*
 * Flush only where needed.
 *
 * A member is flushed only when a write completed on it since the last
 * flush sent to it was issued (MQS_MEMBER_DIRTY), or while another flush
 * to it is still in flight.  Why that is enough: a flush must make durable
 * every write that completed before the flush was issued (block layer
 * semantics, Documentation/block/writeback_cache_control.rst).  Such a write
 * set DIRTY in its completion, before its request completed.  The flush
 * decision clears DIRTY under flush_lock; so either it finds DIRTY set and
 * flushes, or an earlier flush cleared DIRTY after that write completed.
 * That earlier flush is either still in flight (then we flush too: we must
 * not report durability before it is done) or it completed: successfully
 * (the write is durable) or with an error, in which case its completion
 * set DIRTY again under flush_lock before dropping flushes_inflight, and we
 * flush.
 */
static void mqs_mark_dirty(struct mqs_member *m)
{
	/* test first: no cache line bouncing while already dirty */
	if (!test_bit(MQS_MEMBER_DIRTY, &m->dirty))
		set_bit(MQS_MEMBER_DIRTY, &m->dirty);
}

static bool mqs_flush_needed(struct mqs_member *m)
{
	unsigned long flags;
	bool need;

	spin_lock_irqsave(&m->flush_lock, flags);
	need = test_and_clear_bit(MQS_MEMBER_DIRTY, &m->dirty) ||
	       m->flushes_inflight;
	if (need)
		m->flushes_inflight++;
	spin_unlock_irqrestore(&m->flush_lock, flags);
	return need;
}

static void mqs_flush_done(struct mqs_member *m, blk_status_t status)
{
	unsigned long flags;

	spin_lock_irqsave(&m->flush_lock, flags);
	if (status)
		set_bit(MQS_MEMBER_DIRTY, &m->dirty);
	m->flushes_inflight--;
	spin_unlock_irqrestore(&m->flush_lock, flags);
}

/*
 * A polled bio completed: take it off its context's list, unless ->poll()
 * holds it right now; then ->poll() finishes it (mqs_finish_bio()).
 * Return: finish it here.
 */
static bool mqs_polled_done(struct mqs_bio *mb)
{
	struct mqs_hctx *h = mb->hctx;
	unsigned long flags;
	bool free_here;

	spin_lock_irqsave(&h->lock, flags);
	mb->done = true;
	free_here = !mb->polling;
	if (free_here)
		list_del(&mb->node);
	spin_unlock_irqrestore(&h->lock, flags);
	return free_here;
}

/*
 * A member bio is done with: free it (uninit the request's own, before the
 * request can be reused) and drop its reference of the request.
 */
static void mqs_finish_bio(struct mqs_bio *mb)
{
	struct request *rq = mb->rq;

	if (mb->embedded)
		bio_uninit(&mb->bio);
	else
		bio_put(&mb->bio);
	mqs_put_cmd(rq);
}

static void mqs_end_io(struct bio *bio)
{
	struct mqs_bio *mb = container_of(bio, struct mqs_bio, bio);
	struct request *rq = mb->rq;
	bool flush = mb->flush;

	mqs_stats_done(mb);
	if (flush)
		mqs_flush_done(mb->member, bio->bi_status);
	else if (op_is_write(bio_op(bio)) && !(bio->bi_opf & REQ_FUA))
		mqs_mark_dirty(mb->member);

	if (unlikely(bio->bi_status)) {
		blk_status_t status = bio->bi_status;
		mqs_req_op_t op = bio_op(bio);

		/*
		 * Not member faults: BLK_STS_AGAIN (a NOWAIT bio would have
		 * waited), any error of a read-ahead bio (a member may fail
		 * it without trying: dm does while suspended, see
		 * dm_submit_bio() in drivers/md/dm.c; dm-stripe's
		 * stripe_end_io() and md's raid1_should_handle_error() do
		 * not count them either), BLK_STS_NOTSUPP for discard
		 * or write-zeroes (the member lost the operation) and
		 * BLK_STS_NOTSUPP for a read or write with REQ_NOWAIT or
		 * REQ_POLLED (the member lost that: the request is made
		 * again without it).
		 */
		if (status == BLK_STS_NOTSUPP &&
		    (op == REQ_OP_DISCARD || op == REQ_OP_WRITE_ZEROES)) {
			mqs_member_refused(mb->member, op);
		} else if (status == BLK_STS_NOTSUPP &&
			   (bio->bi_opf & (REQ_NOWAIT | MQS_REQ_POLLED))) {
			mqs_member_lost_feature(mb->member, bio->bi_opf);
			status = BLK_STS_AGAIN;
		} else if (status != BLK_STS_AGAIN &&
			   !(bio->bi_opf & REQ_RAHEAD)) {
			mqs_member_failed(mb->member, op, flush, status);
		}
		mqs_set_status(rq, status);
	}
	if (mb->hctx && !mqs_polled_done(mb))
		return;		/* ->poll() holds it and finishes it */
	mqs_finish_bio(mb);
}

static void mqs_init_bio(struct bio *bio, struct request *rq,
			 struct mqs_member *m, blk_opf_t opf, sector_t sector)
{
	struct mqs_bio *mb = container_of(bio, struct mqs_bio, bio);

	bio->bi_opf = opf;
	bio->bi_iter.bi_sector = sector;
	bio->bi_end_io = mqs_end_io;
	bio->bi_ioprio = req_get_ioprio(rq);
	mb->rq = rq;
	mb->member = m;
	mb->hctx = opf & MQS_REQ_POLLED ? rq->mq_hctx->driver_data : NULL;
	mb->polling = false;
	mb->done = false;
	mb->flush = false;
	mb->embedded = false;
	mb->segs = 0;
	mqs_stats_issue(mb, opf);
}

/*
 * Point @bio, made without a device, at the member @bdev and charge it to
 * the cgroup of the IO it carries (@src, the array bio), or to the task's
 * when there is none (a flush).  Charging the member bio to its IO, not to
 * the task that happens to dispatch the request (kblockd after a plug
 * flush or a requeue, a scheduler's run), makes io.max, io.weight and
 * io.latency of the members apply.  Made with the device, the bio would be
 * charged twice: to the current task by bio_init(), then moved to its
 * source's cgroup (__bio_clone() in block/bio.c): two blkg lookups where
 * one does.  A member bio that gathers pieces of several bios of one
 * request takes the first one's cgroup, which is every one's: the block
 * layer merges a bio into a request, or two requests, only when their
 * blkg is the same (blk_cgroup_mergeable() in blk_rq_merge_ok(),
 * attempt_merge() and blk_attempt_bio_merge(), block/blk-merge.c, on
 * 6.1 and 6.12).
 */
static void mqs_bio_set_member(struct bio *bio, struct block_device *bdev,
			       struct bio *src)
{
	bio->bi_bdev = bdev;
#ifdef CONFIG_BLK_CGROUP
	if (src && src->bi_blkg) {
		bio_clone_blkg_association(bio, src);
		return;
	}
#endif
	bio_associate_blkg(bio);
}

static struct bio *mqs_alloc_bio(struct mqs_array *a, struct request *rq,
				 u32 slot, unsigned short nr_vecs,
				 blk_opf_t opf, sector_t sector, gfp_t gfp)
{
	struct mqs_member *m = &a->members[slot];
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct bio *bio;

	bio = bio_alloc_bioset(NULL, nr_vecs, opf, gfp, &a->bs);
	if (!bio)
		return NULL;
	mqs_bio_set_member(bio, m->bdev, rq->bio);
	mqs_init_bio(bio, rq, m, opf, sector);
	atomic_inc(&cmd->pending);
	return bio;
}

/*
 * Submit member bios.  A polled bio goes on its context's list first, so
 * that ->poll() finds it however early it completes.
 */
static void mqs_submit(struct bio *bio)
{
	struct mqs_bio *mb = container_of(bio, struct mqs_bio, bio);

	if (mb->hctx) {
		struct mqs_hctx *h = mb->hctx;

		spin_lock_irq(&h->lock);
		list_add_tail(&mb->node, &h->polled);
		spin_unlock_irq(&h->lock);
	}
	submit_bio_noacct(bio);
}

/*
 * Member bios go ahead of the bios the submitter has queued.
 *
 * ->queue_rq() and ->queue_rqs() can run inside submit_bio() of the task
 * that submitted an array bio: a direct issue, or a plug flushed when a
 * request is added to it (blk_add_rq_to_plug()).  There, submit_bio_noacct()
 * does not issue our member bios but appends them to current->bio_list,
 * which submit_bio() of a blk-mq disk works through in order
 * (__submit_bio_noacct_mq()).  That list may already hold array bios, e.g.
 * the rest of a bio split to the array's limits.  Left behind them, the
 * member bios wait until those array bios have got a request, and getting
 * one may wait for the very requests whose member bios are waiting: for
 * writeback throttling (wbt_wait()) or for a tag.  Neither ever completes.
 * Bio-based stacking avoids this by handling bios for lower devices first
 * (__submit_bio_noacct()); do the same: put the member bios first.
 */
static void mqs_submit_list(struct bio_list *bl)
{
	struct bio_list *pending = current->bio_list;
	struct bio_list later;
	struct bio *bio;

	if (bio_list_empty(bl))
		return;
	if (pending) {
		later = pending[0];
		bio_list_init(&pending[0]);
	}
	while ((bio = bio_list_pop(bl)))
		mqs_submit(bio);
	if (pending)
		bio_list_merge(&pending[0], &later);
}

/* Bios held on @h for the end of a batch: submit them now. */
static void mqs_submit_deferred(struct mqs_hctx *h)
{
	struct bio_list bl;

	spin_lock_irq(&h->lock);
	bl = h->deferred;
	bio_list_init(&h->deferred);
	spin_unlock_irq(&h->lock);
	mqs_submit_list(&bl);
}

/*
 * The bio reserve.  Member bios come from the array's bio set: a mempool
 * of MQS_BIO_POOL_SIZE bios behind the slab.  Where the slab has nothing,
 * a sleeping allocation waits until a member bio completes and returns to
 * the reserve; so it must never wait while holding member bios it has not
 * submitted: other dispatchers could hold the rest of the reserve the same
 * way, and none would progress.  Held bios are those of the request being
 * made (a flush or discard over N members holds N - 1), of the requests
 * before it in a ->queue_rqs() batch (@out) and of the batch deferred on
 * the hardware context.  So every allocation first tries without sleeping
 * (the slab, then the reserve), and when that fails, submits what is held
 * (mqs_release_held()) before it waits.  Bios that submit_bio_noacct()
 * parks on current->bio_list go to the bio set's rescuer while we wait
 * (BIOSET_NEED_RESCUER, bio_alloc_bioset()).
 */
static void mqs_release_held(struct request *rq, struct bio_list *out)
{
	mqs_submit_list(out);
	mqs_submit_deferred(rq->mq_hctx->driver_data);
}

/* A data-less member bio (flush, discard, write-zeroes); never NULL. */
static struct bio *mqs_alloc_held(struct mqs_array *a, struct request *rq,
				  u32 slot, blk_opf_t opf, sector_t sector,
				  struct bio_list *out)
{
	struct bio *bio;

	bio = mqs_alloc_bio(a, rq, slot, 0, opf, sector,
			    GFP_NOWAIT | __GFP_NOWARN);
	if (bio)
		return bio;
	mqs_release_held(rq, out);
	return mqs_alloc_bio(a, rq, slot, 0, opf, sector, GFP_NOIO);
}

/*
 * A clone of @src for @bdev (the integrity path, the piece path; the lean
 * path where the kernel has no bio_init_clone(), see mqs_clone_lean()).  A NOWAIT
 * request does not wait at all: NULL.  With GFP_NOIO the bio comes from
 * the bio set's mempool and cannot fail; its integrity payload comes from
 * the bio set's pools up to 6.13 but from kmalloc() later (see
 * mqs_bioset_integrity_create()), where bio_alloc_clone() returns NULL
 * when that fails: NULL here too, and the caller has the request made
 * again (BLK_STS_AGAIN, mqs_put_cmd()).
 */
static struct bio *mqs_clone_held(struct mqs_array *a, struct request *rq,
				  struct block_device *bdev, struct bio *src,
				  struct bio_list *out)
{
	struct bio *bio;

	bio = bio_alloc_clone(NULL, src, GFP_NOWAIT | __GFP_NOWARN, &a->bs);
	if (!bio) {
		if (rq->cmd_flags & REQ_NOWAIT)
			return NULL;
		mqs_release_held(rq, out);
		bio = bio_alloc_clone(NULL, src, GFP_NOIO, &a->bs);
		if (unlikely(!bio))
			return NULL;
	}
	mqs_bio_set_member(bio, bdev, src);
	return bio;
}

/*
 * The lean path's member bio: the request's own (struct mqs_cmd.mb), where
 * the kernel has bio_init_clone(), else one of the bio set
 * (mqs_clone_held()).  The in-place clone allocates nothing (a blk-crypto
 * context would: none reaches us, the array offers no crypto profile); a
 * NOWAIT request that could not have one gets NULL.
 */
static __always_inline struct bio *
mqs_clone_lean(struct mqs_array *a, struct request *rq,
	       struct block_device *bdev, struct bio_list *out, bool *embedded)
{
#ifdef HAVE_BIO_INIT_CLONE
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	gfp_t gfp = rq->cmd_flags & REQ_NOWAIT ? GFP_NOWAIT | __GFP_NOWARN :
						  GFP_NOIO;

	*embedded = true;
	if (bio_init_clone(NULL, &cmd->mb.bio, rq->bio, gfp))
		return NULL;
	mqs_bio_set_member(&cmd->mb.bio, bdev, rq->bio);
	return &cmd->mb.bio;
#else
	*embedded = false;
	return mqs_clone_held(a, rq, bdev, rq->bio, out);
#endif
}

/*
 * Flush: an empty PREFLUSH to every member with a volatile write cache that
 * was written since its last flush (see mqs_flush_needed()).
 */
static void mqs_queue_flush(struct mqs_array *a, struct request *rq,
			    struct bio_list *out)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		struct mqs_member *m = &a->members[i];
		struct bio *bio;

		if (!bdev_write_cache(m->bdev) || !mqs_flush_needed(m))
			continue;
		bio = mqs_alloc_held(a, rq, i, REQ_OP_WRITE | REQ_PREFLUSH |
				     REQ_SYNC, 0, out);
		container_of(bio, struct mqs_bio, bio)->flush = true;
		bio_list_add(out, bio);
	}
}

/*
 * Discard and write-zeroes of an array of several zones: one data-less
 * bio per member range in each zone the request touches (a member in two
 * zones gets two: its ranges there are not contiguous in the array).
 */
/* noinline: out of the path of an array of one zone (mqs_dispatch()) */
static noinline void mqs_queue_nodata_zoned(struct mqs_array *a,
					    struct request *rq, blk_opf_t opf,
					    struct bio_list *out)
{
	sector_t start = blk_rq_pos(rq), end = start + blk_rq_sectors(rq);
	u32 zi = mqs_zone_find(a->zones, a->nr_zones, start), i;

	for (; zi < a->nr_zones && a->zones[zi].array_start < end; zi++) {
		const struct mqs_zone *z = &a->zones[zi];
		sector_t zs = max_t(sector_t, start, z->array_start);
		sector_t ze = min_t(sector_t, end, z->array_end);

		for (i = 0; i < z->geom.nr_members; i++) {
			u64 mstart, afirst, len;
			struct bio *bio;

			len = mqs_member_range(&z->geom, zs - z->array_start,
					       ze - zs, i, &mstart, &afirst);
			if (!len)
				continue;
			bio = mqs_alloc_held(a, rq, z->slots[i], opf, mstart,
					     out);
			bio->bi_iter.bi_size = len << SECTOR_SHIFT;
			bio_list_add(out, bio);
		}
	}
}

/*
 * Discard and write-zeroes: one data-less bio per member range.  These (and
 * flushes) wait for bios even with REQ_NOWAIT: only reads and writes come
 * from io_uring's inline submission.
 */
static void mqs_queue_nodata(struct mqs_array *a, struct request *rq,
			     struct bio_list *out)
{
	blk_opf_t opf = req_op(rq) | (rq->cmd_flags & MQS_RQ_FLAGS_PASSED &
				      ~(REQ_NOWAIT | MQS_REQ_POLLED));
	sector_t start = blk_rq_pos(rq);
	u64 nr = blk_rq_sectors(rq);
	u32 i;

	if (unlikely(a->nr_zones > 1)) {
		mqs_queue_nodata_zoned(a, rq, opf, out);
		return;
	}
	for (i = 0; i < a->nr_members; i++) {
		u64 mstart, afirst, len;
		struct bio *bio;

		len = mqs_member_range(&a->geom, start, nr, i, &mstart,
				       &afirst);
		if (!len)
			continue;
		bio = mqs_alloc_held(a, rq, i, opf, mstart, out);
		/* len <= max_discard/write_zeroes sectors: fits bi_size */
		bio->bi_iter.bi_size = len << SECTOR_SHIFT;
		bio_list_add(out, bio);
	}
}

/**
 * struct mqs_cursor - walks an array range chunk by chunk, in bytes
 * @member: slot of the current chunk.
 * @row: row (stripe) of the current chunk.
 * @left: bytes from the position to the end of its chunk.
 */
struct mqs_cursor {
	u32 member;
	u64 row;
	u32 left;
};

static void mqs_cursor_init(const struct mqs_geom *g, sector_t sector,
			    struct mqs_cursor *cur)
{
	struct mqs_loc loc;

	mqs_map_sector(g, sector, &loc);
	cur->member = loc.member;
	cur->row = (loc.sector - g->data_offset_sectors) >> g->chunk_shift;
	cur->left = loc.chunk_left << SECTOR_SHIFT;
}

static void mqs_cursor_advance(const struct mqs_geom *g,
			       struct mqs_cursor *cur, u32 bytes)
{
	cur->left -= bytes;
	if (cur->left)
		return;
	cur->left = 1U << (g->chunk_shift + SECTOR_SHIFT);
	if (++cur->member == g->nr_members) {
		cur->member = 0;
		cur->row++;
	}
}

/* member sector of the cursor's position */
static sector_t mqs_cursor_sector(const struct mqs_geom *g,
				  const struct mqs_cursor *cur)
{
	u32 in_chunk = (1U << (g->chunk_shift + SECTOR_SHIFT)) - cur->left;

	return g->data_offset_sectors + (cur->row << g->chunk_shift) +
	       (in_chunk >> SECTOR_SHIFT);
}

/*
 * Vectors of a member bio for @bytes of data: one per page and two more
 * for a buffer that does not start or end on a page.  A fresh bio always
 * holds a logical block: O_DIRECT takes only vectors of whole blocks
 * (iov_iter_is_aligned() in bdev_iter_is_aligned()), so a block lies on
 * at most lbs / PAGE_SIZE + 1 pages, and @bytes is at least a block.
 */
static unsigned short mqs_nr_vecs(u64 bytes)
{
	return min_t(u64, BIO_MAX_VECS, (bytes >> PAGE_SHIFT) + 2);
}

/* mqs_gather_state.rewind when the walk goes on */
#define MQS_NO_REWIND	U32_MAX

/*
 * struct mqs_gather_state - one pass of the gather over a request (see
 * mqs_gather()): the request, the member bios of a group of at most
 * MQS_GATHER_SLOTS members being filled, and the list of finished ones.
 * @a, @rq, @opf: the array, the request, the op and flags of its member
 * bios; @out: member bios made, not yet submitted; @nr: members in the
 * group; @slide: the group is one member, which moves along with the walk
 * (a request that does not wrap, see mqs_gather()); @bios: each one's open
 * bio, or NULL (index: slot in the group);
 * @placed: each one's data is placed in bios up to this byte of the request;
 * @rewind: byte of the request the walk must go back to (a bio was cut
 * back to a logical block: mqs_gather_close()), or MQS_NO_REWIND;
 * @g: the rule of the walk (the array's, or of one zone); @start, @len:
 * the sectors the walk covers, by @g (the request's, or its part in the
 * zone); @z: the zone (an array of several zones), else NULL; @from, @to:
 * bytes of the request in the zone.
 */
struct mqs_gather_state {
	struct mqs_array *a;
	struct request *rq;
	blk_opf_t opf;
	struct bio_list *out;
	u32 nr;
	bool slide;
	u32 rewind;
	const struct mqs_geom *g;
	u64 start;
	u64 len;
	const struct mqs_zone *z;
	u32 from;
	u32 to;
	struct bio *bios[MQS_GATHER_SLOTS];
	u32 placed[MQS_GATHER_SLOTS];
};

/*
 * struct mqs_piece - a run of the request's data that lands on one member:
 * @len bytes at @page + @off, for @member (a slot) at member sector
 * @sector; @idx is the member's index by the walk's rule (@member but in a
 * zone of an array of several).
 */
struct mqs_piece {
	struct page *page;
	unsigned int off;
	u32 len;
	u32 member;
	u32 idx;
	sector_t sector;
};

/* Take the last @bytes off the end of @bio, which has at least that many. */
static void mqs_bio_cut_tail(struct bio *bio, u32 bytes)
{
	while (bytes) {
		struct bio_vec *bv = &bio->bi_io_vec[bio->bi_vcnt - 1];
		u32 n = min(bytes, bv->bv_len);

		bv->bv_len -= n;
		if (!bv->bv_len)
			bio->bi_vcnt--;
		bio->bi_iter.bi_size -= n;
		bytes -= n;
	}
}

/*
 * Queue the open bio of slot @slot on @gs->out, first cut back to the
 * member's logical block size.
 *
 * A member bio must be a whole number of the member's logical blocks: a
 * member fails one that is not (6.12 virtio-blk, NVMe: EIO) or, on some
 * drivers, truncates it and writes the rest at a rounded-down LBA (6.1
 * NVMe: nvme_setup_rw() takes the length in blocks).  The gather ends a
 * bio where a member limit falls (mqs_bio_room()) or its vectors run out,
 * and before a sleeping allocation (mqs_gather_alloc()); with a buffer
 * that is aligned only to the array's dma_alignment (512 bytes: O_DIRECT
 * allows it), none of these need fall on a block of a 4096-byte-block
 * member.  So the part past the bio's last whole block is taken off and
 * placed again: @gs->placed of the slot goes back by it, and the walk goes
 * back there (@gs->rewind), where the next bio of the slot takes it.
 * That point is on a logical block of the array too (the part is within
 * one chunk: a bio's size at a chunk's end is whole blocks), so on a
 * sector.  A bio of less than one block has nothing to keep: it goes as
 * it is (a fresh bio always takes a block: see mqs_nr_vecs()).
 */
static void mqs_gather_close(struct mqs_gather_state *gs, u32 slot)
{
	struct bio *bio = gs->bios[slot];
	u32 part = bio->bi_iter.bi_size &
		   (bdev_logical_block_size(bio->bi_bdev) - 1);

	gs->bios[slot] = NULL;
	if (part && part < bio->bi_iter.bi_size) {
		mqs_bio_cut_tail(bio, part);
		gs->placed[slot] -= part;
		gs->rewind = min(gs->rewind, gs->placed[slot]);
	}
	bio_list_add(gs->out, bio);
}

/*
 * Queue every open member bio of the group on @gs->out: cut back to whole
 * blocks (mqs_gather_close()) when the walk is not done, as they are when
 * it is (each ends its member's range in the request).
 */
static void mqs_gather_queue_open(struct mqs_gather_state *gs, bool done)
{
	u32 i;

	for (i = 0; i < gs->nr; i++) {
		if (!gs->bios[i])
			continue;
		if (done) {
			bio_list_add(gs->out, gs->bios[i]);
			gs->bios[i] = NULL;
		} else {
			mqs_gather_close(gs, i);
		}
	}
}

/*
 * A NOWAIT request could not get a bio: it is requeued and made again
 * (BLK_STS_AGAIN, mqs_put_cmd()), so its open bios are not submitted but
 * ended here, as a member bio answered AGAIN would be.
 */
static void mqs_gather_drop_open(struct mqs_gather_state *gs)
{
	u32 i;

	for (i = 0; i < gs->nr; i++) {
		struct bio *bio = gs->bios[i];

		if (!bio)
			continue;
		gs->bios[i] = NULL;
		/* never on a polled list: mqs_end_io() must not take it off */
		container_of(bio, struct mqs_bio, bio)->hctx = NULL;
		bio->bi_status = BLK_STS_AGAIN;
		mqs_end_io(bio);
	}
}

/*
 * A member bio for the gather (see mqs_release_held()): the member bios
 * being filled (@gs->bios) are held too; when they are submitted early,
 * their member ranges take one more bio each.  A NOWAIT request does not
 * wait: NULL.
 */
static __always_inline struct bio *
mqs_gather_alloc(struct mqs_gather_state *gs, const struct mqs_piece *p)
{
	struct mqs_array *a = gs->a;
	struct request *rq = gs->rq;
	u64 mstart, afirst, len;
	unsigned short nr_vecs;
	struct bio *bio;

	len = mqs_member_range(gs->g, gs->start, gs->len, p->idx, &mstart,
			       &afirst);
	/* one bio holds at most what the member takes (mqs_bio_room()) */
	len = min_t(u64, len,
		    queue_max_sectors(bdev_get_queue(a->members[p->member].bdev)));
	nr_vecs = mqs_nr_vecs(len << SECTOR_SHIFT);
	bio = mqs_alloc_bio(a, rq, p->member, nr_vecs, gs->opf, p->sector,
			    GFP_NOWAIT | __GFP_NOWARN);
	if (bio || (rq->cmd_flags & REQ_NOWAIT))
		return bio;
	mqs_gather_queue_open(gs, false);
	mqs_release_held(rq, gs->out);
	return mqs_alloc_bio(a, rq, p->member, nr_vecs, gs->opf, p->sector,
			     GFP_NOIO);
}

/*
 * Would @page + @off continue @bv in physical memory?  bio_add_page() then
 * merges it into @bv (bvec_try_merge_page() in block/bio.c): no new
 * segment, no gap.
 */
static bool mqs_bvec_continues(const struct bio_vec *bv, struct page *page,
			       unsigned int off)
{
	return page_to_phys(bv->bv_page) + bv->bv_offset + bv->bv_len ==
	       page_to_phys(page) + off;
}

/*
 * The member's segments for @bytes of physically contiguous memory at
 * @addr, as bvec_split_segs() and get_max_segment_size() count them
 * (block/blk-merge.c): each at most max_segment_size and none across the
 * segment boundary (seg_boundary_mask); within one page, one.  At most @max
 * are counted: *@bytes is then cut to what they hold.
 */
static unsigned int mqs_phys_segs(struct request_queue *q, phys_addr_t addr,
				  u64 *bytes, unsigned int max)
{
	unsigned long mask = queue_segment_boundary(q);
	unsigned int mss = queue_max_segment_size(q);
	unsigned int segs = 0;
	u64 left = *bytes;

	if (offset_in_page(addr) + left <= PAGE_SIZE)
		return 1;
	if (left - 1 <= mask - (addr & mask)) {
		/* no boundary inside (the common case): max_segment_size cuts */
		segs = left <= mss ? 1 : div_u64(left + mss - 1, mss);
		if (segs > max) {
			segs = max;
			*bytes = (u64)max * mss;
		}
		return segs;
	}
	while (left && segs < max) {
		/* + 1 after the min: no overflow with a mask of ULONG_MAX */
		u64 seg = min_t(u64, left,
				(u64)min_t(unsigned long, mask - (addr & mask),
					   mss - 1) + 1);

		addr += seg;
		left -= seg;
		segs++;
	}
	*bytes -= left;
	return segs;
}

/* mqs_phys_segs() without a cap, for a length that is taken whole */
static unsigned int mqs_all_segs(struct request_queue *q, phys_addr_t addr,
				 u64 bytes)
{
	return mqs_phys_segs(q, addr, &bytes, UINT_MAX);
}

/*
 * mqs_member_max_sectors() - the most a member takes in one bio unsplit
 * @bdev: the member.
 * @sector: where the bio starts on @bdev.
 *
 * get_max_io_size() of block/blk-merge.c (6.1 and 6.12) for a read or
 * write: max_sectors, within the member's chunk_sectors from @sector (the
 * NVMe NOIOB boundary, md raid0's chunk), and ending on a physical block
 * when that leaves anything.  The split sees the whole disk's sectors
 * (after blk_partition_remap()): a partition's start counts.
 *
 * Return: sectors, a multiple of the member's logical block.
 */
static u32 mqs_member_max_sectors(struct block_device *bdev,
				  sector_t sector)
{
	struct request_queue *q = bdev_get_queue(bdev);
	u32 pbs = queue_physical_block_size(q) >> SECTOR_SHIFT;
	u32 lbs = queue_logical_block_size(q) >> SECTOR_SHIFT;
	u32 max = queue_max_sectors(q), chunk = q->limits.chunk_sectors;
	u32 start, end;

	sector += get_start_sect(bdev);
	if (chunk) {
		/* blk_chunk_sectors_left(), which newer kernels renamed */
		sector_t at = sector;

		max = min(max, chunk - (is_power_of_2(chunk) ?
					(u32)(sector & (chunk - 1)) :
					(u32)sector_div(at, chunk)));
	}
	start = sector & (pbs - 1);
	end = (start + max) & ~(pbs - 1);
	if (end > start)
		return end - start;
	return max & ~(lbs - 1);
}

/*
 * How many bytes of a piece (@len at @page + @off) the member bio @bio can
 * take without the member having to split it, and the bio's segment count
 * with them (@segs).  The member splits a bio that exceeds what it takes
 * from the bio's start (mqs_member_max_sectors(): max_sectors, its
 * chunk_sectors, a physical block end), has more than max_segments
 * segments (mqs_phys_segs()), or a gap at its virt boundary
 * (bio_split_rw_at() in block/blk-merge.c): extra work on every large IO,
 * and the split of a REQ_NOWAIT bio is refused with BLK_STS_AGAIN, which
 * requeues the whole array request.  The limits are read at each call: an
 * admin may lower a member's max_sectors_kb at any time.
 *
 * Return: 0 when the bio must end before the piece: mqs_gather_close()
 * then cuts it back to whole logical blocks of the member, as a split
 * would, and the next bio takes the rest.  A bio of less than one block
 * takes the piece past max_segments (the member splits it, rightly), and
 * one that does not end a block takes it past a virt boundary gap (no
 * such gap is inside a block: the array's virt boundary is the members',
 * and the pieces of two chunks meet on a block).
 */
static u32 mqs_bio_room(const struct bio *bio, struct request_queue *q,
			struct page *page, unsigned int off, u32 len,
			unsigned int *segs)
{
	const struct mqs_bio *mb = container_of(bio, struct mqs_bio, bio);
	unsigned int lbs = queue_logical_block_size(q);
	unsigned long virt = queue_virt_boundary(q);
	u64 max = (u64)mqs_member_max_sectors(bio->bi_bdev,
					      bio->bi_iter.bi_sector) <<
		  SECTOR_SHIFT;
	phys_addr_t addr = page_to_phys(page) + off;
	u32 size = bio->bi_iter.bi_size;
	bool at_block = !(size & (lbs - 1));
	const struct bio_vec *bv;

	if (size >= max)
		return 0;
	len = min_t(u64, len, max - size);
	if (!bio->bi_vcnt) {
		/* a fresh bio: within max_segments too, in whole blocks */
		u64 fit = len;

		*segs = mqs_phys_segs(q, addr, &fit, queue_max_segments(q));
		/* less than a block is taken whole: the member splits it */
		if (fit < len && fit >= lbs)
			fit = round_down(fit, lbs);
		return fit;
	}
	bv = &bio->bi_io_vec[bio->bi_vcnt - 1];
	if (mqs_bvec_continues(bv, page, off)) {
		phys_addr_t bv_addr = page_to_phys(bv->bv_page) + bv->bv_offset;

		*segs = mb->segs - mqs_all_segs(q, bv_addr, bv->bv_len) +
			mqs_all_segs(q, bv_addr, (u64)bv->bv_len + len);
	} else {
		if (at_block && (((bv->bv_offset + bv->bv_len) & virt) ||
				 (off & virt)))
			return 0;
		*segs = mb->segs + mqs_all_segs(q, addr, len);
	}
	if (*segs > queue_max_segments(q) && size >= lbs)
		return 0;
	return len;
}

/*
 * Add as much of the piece @p as fits to the open bio of slot @slot of
 * the group: to the one open, or to a new one when that must end (queued
 * on @gs->out).  Return: bytes added; 0 when the walk must go back
 * (@gs->rewind: a bio was cut back, mqs_gather_close()) or a NOWAIT
 * request could not get a bio.  A sleeping allocation can set
 * @gs->rewind too, after which the piece is still added.  Inline in each
 * walk (mqs_gather(), mqs_gather_zoned()): no call per piece.
 */
static __always_inline u32
mqs_gather_add(struct mqs_gather_state *gs, u32 slot, const struct mqs_piece *p)
{
	struct request_queue *q = bdev_get_queue(gs->a->members[p->member].bdev);
	struct bio **bp = &gs->bios[slot];
	unsigned int segs;
	u32 take;

	if (*bp) {
		take = mqs_bio_room(*bp, q, p->page, p->off, p->len, &segs);
		if (take && bio_add_page(*bp, p->page, take, p->off) == take)
			goto added;
		/* full: a new bio continues it, here or where it was cut */
		mqs_gather_close(gs, slot);
		if (gs->rewind != MQS_NO_REWIND)
			return 0;
	}
	*bp = mqs_gather_alloc(gs, p);
	if (!*bp)
		return 0;
	take = mqs_bio_room(*bp, q, p->page, p->off, p->len, &segs);
	/* a fresh bio takes one bvec */
	__bio_add_page(*bp, p->page, take, p->off);
added:
	container_of(*bp, struct mqs_bio, bio)->segs = segs;
	return take;
}

/*
 * Gather the request's segments for the members of one group: members
 * first_member + base .. + base + @gs->nr - 1 (mod N), at most
 * MQS_GATHER_SLOTS of them; @gs->bios all NULL.  Segments are walked in
 * array order; the part of each that lands on a member of the group is
 * appended to that member's bio.
 * A bio that is full (BIO_MAX_VECS, or what the member takes in one bio:
 * mqs_bio_room()) is queued and continued by a new one.  One cut back to
 * whole blocks (mqs_gather_close()) sends the walk back to the cut, the
 * earliest of them, from where each slot skips what it has placed
 * (@gs->placed): only a buffer not aligned to the members' logical blocks
 * is cut, so only such a request walks part of itself twice.
 *
 * A request that does not wrap (no more chunks than members) needs no
 * groups: each member's range in it is one run of the walk, met once, in
 * member order.  With @gs->slide the group is the one member being walked
 * (@gs->nr is 1): when the walk moves to the next member, the last bio of
 * the one before is whole (its range ends at a chunk's end or the
 * request's, on a logical block of the array, so of the member; its bio
 * starts at its range's start or where a cut left whole blocks) and is
 * queued, and the slot takes the next member.  A walk that goes back to a
 * cut goes back into the member being walked (a cut keeps more than it
 * takes off, and the bio cut began in that member's range), so one walk
 * makes the request's member bios, however many members it touches.  A
 * request that wraps keeps every member it touches open until its end:
 * one walk per group of MQS_GATHER_SLOTS members.
 *
 * The walk is by multi-page bvec (rq_for_each_bvec), not by page: a piece
 * is as long as its bvec and chunk allow, so a large chunk over physically
 * contiguous memory costs one bio_add_page() per chunk, not one per page.
 * bio_add_page() takes a length beyond the page, as bio_add_folio() does.
 * Return: false when a NOWAIT request could not get a bio (the bios made so
 * far are queued on @gs->out, those being filled ended).
 *
 * @zoned: the walk is over one zone's part of the request
 * (mqs_gather_zoned()); a constant, so that the walk of an array of one
 * zone (mqs_gather()) compiles without the zone's steps.
 */
static __always_inline bool __mqs_gather(struct mqs_gather_state *gs,
					 u32 first_member, u32 base,
					 const bool zoned)
{
	const struct mqs_geom *g = zoned ? gs->g : &gs->a->geom;
	struct req_iterator iter;
	struct mqs_cursor cur;
	struct bio_vec bv;
	u32 from = zoned ? gs->from : 0, pos;

	gs->rewind = MQS_NO_REWIND;
walk:
	mqs_cursor_init(g, (zoned ? gs->start - (gs->from >> SECTOR_SHIFT) :
				    blk_rq_pos(gs->rq)) +
			   (from >> SECTOR_SHIFT), &cur);
	pos = 0;
	rq_for_each_bvec(bv, gs->rq, iter) {
		u32 done = 0;

		if (unlikely(pos + bv.bv_len <= from)) {
			pos += bv.bv_len;
			continue;
		}
		if (unlikely(pos < from))
			done = from - pos;
		while (done < bv.bv_len) {
			u32 piece = min(bv.bv_len - done, cur.left);
			u32 idx = (cur.member + g->nr_members - first_member) %
				  g->nr_members;
			u32 at = pos + done, slot;

			/* the zone's part ends on a chunk's end */
			if (zoned && at >= gs->to)
				goto out;
			if (gs->slide && idx != base) {
				/* the walk left member base: its bio is whole */
				mqs_gather_queue_open(gs, true);
				base = idx;
			}
			/* idx < base wraps: another group's too */
			slot = idx - base;
			if (slot >= gs->nr) {
				/* another group's member */
			} else if (unlikely(at < gs->placed[slot])) {
				/* placed before the walk went back */
				piece = min(piece, gs->placed[slot] - at);
			} else {
				unsigned int off = bv.bv_offset + done;
				struct mqs_piece p = {
					.page = nth_page(bv.bv_page,
							 off >> PAGE_SHIFT),
					.off = offset_in_page(off),
					.len = piece,
					.member = zoned ?
						  gs->z->slots[cur.member] :
						  cur.member,
					.idx = cur.member,
					.sector = mqs_cursor_sector(g, &cur),
				};

				piece = mqs_gather_add(gs, slot, &p);
				if (piece)
					gs->placed[slot] = at + piece;
				if (unlikely(gs->rewind != MQS_NO_REWIND)) {
					from = gs->rewind;
					gs->rewind = MQS_NO_REWIND;
					goto walk;
				}
				if (!piece) {
					mqs_gather_drop_open(gs);
					return false;
				}
			}
			done += piece;
			mqs_cursor_advance(g, &cur, piece);
		}
		pos += bv.bv_len;
	}
out:
	mqs_gather_queue_open(gs, true);
	return true;
}

/* out of line, as the one walk was before zones */
static noinline bool mqs_gather(struct mqs_gather_state *gs, u32 first_member,
				u32 base)
{
	return __mqs_gather(gs, first_member, base, false);
}

/*
 * The gather over the part of a request in one zone of an array of
 * several (@gs->z, @gs->g, @gs->from to @gs->to): members are the zone's,
 * @first_member and @base by its rule, each piece's member its slot.
 */
static bool mqs_gather_zoned(struct mqs_gather_state *gs, u32 first_member,
			     u32 base)
{
	return __mqs_gather(gs, first_member, base, true);
}

/*
 * The lean path: a request with one bio inside one chunk goes to one member
 * as a clone of that bio (sharing its bio_vec table, no gather walk).  The
 * clone takes over the submitter's reference: its completion is the only
 * atomic operation on the request's counter.
 * Return: 1 when the clone holds the reference, 0 when the request does not
 * qualify, -1 when a NOWAIT request got no bio (status set).  Inline in
 * mqs_queue_rw() and mqs_queue_rw_zoned(): no call on the commonest IO.
 */
static __always_inline int mqs_queue_lean(struct mqs_array *a,
					  struct request *rq, blk_opf_t opf,
					  const struct mqs_loc *loc,
					  struct bio_list *out)
{
	struct request_queue *q;
	struct mqs_member *m;
	struct bio *bio;
	bool embedded;

	if (rq->bio != rq->biotail || blk_rq_sectors(rq) > loc->chunk_left)
		return 0;
	m = &a->members[loc->member];
	/*
	 * and fits the member's limits (see mqs_bio_room()): the request's
	 * segments were counted with the array's, which are the members'
	 * tightest segment size, boundary and virt boundary
	 */
	q = bdev_get_queue(m->bdev);
	if (blk_rq_sectors(rq) > mqs_member_max_sectors(m->bdev, loc->sector) ||
	    rq->nr_phys_segments > queue_max_segments(q))
		return 0;
	bio = mqs_clone_lean(a, rq, m->bdev, out, &embedded);
	if (!bio) {
		mqs_set_status(rq, BLK_STS_AGAIN);
		return -1;
	}
	mqs_init_bio(bio, rq, m, opf, loc->sector);
	container_of(bio, struct mqs_bio, bio)->embedded = embedded;
	/*
	 * A clone owns no bio_vecs (bi_vcnt 0), so the member's
	 * bio_may_need_split() (block/blk.h) sends every clone through
	 * bio_split_rw_at(), a walk of its segments.  A source that owns a
	 * single bio_vec has all its data in it, and so has the clone: give
	 * the clone that count, and a bio within one page passes the member's
	 * quick check (every driver takes one segment up to PAGE_SIZE) as the
	 * source did at the array.
	 */
	if (rq->bio->bi_vcnt == 1 && !bio_flagged(rq->bio, BIO_CLONED))
		bio->bi_vcnt = 1;
	bio_list_add(out, bio);
	return 1;
}

/*
 * The piece path: a request of one bio that touches at most one chunk per
 * member (@chunks, no more than the members) puts one contiguous piece of that
 * bio on each member it touches.  Each member bio is a clone of the bio,
 * advanced to its piece and cut to its length: it shares the bio's bio_vec
 * table, as the splits of md and dm do, where the gather would copy the
 * table a page at a time (a bio_add_page() per page).  The first piece
 * gets the lean path's bio (struct mqs_cmd.mb where the kernel has
 * bio_init_clone()), the others come from the bio set.  Each piece must be
 * within its member's limits as the lean path's clone is: max_sectors, and
 * max_segments for the request's segment count (a piece of the request has
 * no more segments than the whole; they were counted with the array's
 * limits, the members' tightest segment size and boundaries).
 * Return: true when the request's member bios were made here (a NOWAIT
 * request that got no bio has its status set), false when it does not
 * qualify (the gather does it).
 */
static bool mqs_queue_pieces(struct mqs_array *a, struct request *rq,
			     blk_opf_t opf, const struct mqs_loc *loc,
			     u32 chunks, struct bio_list *out)
{
	const struct mqs_geom *g = &a->geom;
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	u32 chunk = 1U << g->chunk_shift;
	u32 left = blk_rq_sectors(rq), member = loc->member;
	u32 len = min(left, loc->chunk_left);
	/* the first piece's chunk on its member, where the next row starts */
	sector_t chunk_start = loc->sector - (chunk - loc->chunk_left);
	sector_t sector = loc->sector;
	u32 done = 0, i;

	if (rq->bio != rq->biotail)
		return false;
	for (i = 0; i < chunks; i++) {
		struct block_device *bdev = a->members[member].bdev;

		if (len > mqs_member_max_sectors(bdev, sector) ||
		    rq->nr_phys_segments >
		    queue_max_segments(bdev_get_queue(bdev)))
			return false;
		left -= len;
		len = min(left, chunk);
		if (++member == g->nr_members) {
			member = 0;
			chunk_start += chunk;
		}
		sector = chunk_start;
	}
	chunk_start = loc->sector - (chunk - loc->chunk_left);
	sector = loc->sector;

	left = blk_rq_sectors(rq);
	len = min(left, loc->chunk_left);
	member = loc->member;
	for (i = 0; i < chunks; i++) {
		struct mqs_member *m = &a->members[member];
		bool embedded = false;
		struct bio *bio;

		if (i == 0)
			bio = mqs_clone_lean(a, rq, m->bdev, out, &embedded);
		else
			bio = mqs_clone_held(a, rq, m->bdev, rq->bio, out);
		if (!bio) {
			mqs_set_status(rq, BLK_STS_AGAIN);
			break;
		}
		/* to the piece (this moves bi_sector too: set after it) */
		if (done)
			bio_advance(bio, done << SECTOR_SHIFT);
		bio->bi_iter.bi_size = len << SECTOR_SHIFT;
		mqs_init_bio(bio, rq, m, opf, sector);
		container_of(bio, struct mqs_bio, bio)->embedded = embedded;
		atomic_inc(&cmd->pending);
		bio_list_add(out, bio);

		done += len;
		left -= len;
		len = min(left, chunk);
		/* the next piece starts a chunk: in this row, or the next */
		if (++member == g->nr_members) {
			member = 0;
			chunk_start += chunk;
		}
		sector = chunk_start;
	}
	return true;
}

#ifdef CONFIG_BLK_DEV_INTEGRITY
/* A clone of @src for @member, counted in the request's references. */
static struct bio *mqs_clone_alloc(struct mqs_array *a, struct request *rq,
				   struct bio *src, u32 member,
				   struct bio_list *out)
{
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct bio *bio;

	bio = mqs_clone_held(a, rq, a->members[member].bdev, src, out);
	if (bio)
		atomic_inc(&cmd->pending);
	return bio;
}

/*
 * Why a clone path: the gather builds one member bio from pieces of
 * several array bios, but an integrity payload belongs to one bio and its
 * protection tuples must stay with their data.  So a request with a
 * payload becomes one clone per array bio and chunk piece, as in
 * dm-stripe: bio_alloc_clone() clones the payload too (sharing its buffer)
 * and bio_trim() trims it with the data (bio_integrity_trim()).
 *
 * Ref tags: blk_mq_start_request() on the array has remapped a write's tags
 * to the array's sectors (t10_pi_type1_prepare()) and flagged its payload
 * BIP_MAPPED_INTEGRITY, which clones inherit.  Each clone's seed is set to
 * its piece's array ref tag and the flag cleared, so that the member's
 * prepare remaps array to member sectors on a write, and the member's
 * complete remaps member to array sectors on a read, which the array's own
 * complete then maps back to the submitter's seed.
 *
 * When no clone can be had (a NOWAIT request, or a payload that could
 * not be allocated: mqs_clone_held()) the request's status is set to
 * BLK_STS_AGAIN: it is made again once its clones made so far (on @out)
 * are done, without REQ_NOWAIT or after a pause (mqs_put_cmd()), and
 * never fails for lack of memory.
 */
static void mqs_queue_integrity(struct mqs_array *a, struct request *rq,
				blk_opf_t opf, struct bio_list *out)
{
	unsigned int shift = blk_get_integrity(a->disk)->interval_exp -
			     SECTOR_SHIFT;
	sector_t pos = blk_rq_pos(rq);
	struct bio *src;

	__rq_for_each_bio(src, rq) {
		unsigned int len = bio_sectors(src), off = 0;

		while (off < len) {
			struct bio_integrity_payload *bip;
			struct mqs_loc loc;
			struct bio *bio;
			unsigned int n;

			if (a->nr_zones > 1)
				mqs_map_zoned(a->zones, a->nr_zones, pos + off,
					      &loc);
			else
				mqs_map_sector(&a->geom, pos + off, &loc);
			n = min_t(u64, len - off, loc.chunk_left);
			bio = mqs_clone_alloc(a, rq, src, loc.member, out);
			if (!bio) {
				mqs_set_status(rq, BLK_STS_AGAIN);
				return;
			}
			bio_trim(bio, off, n);
			/* the clone has REQ_INTEGRITY with its payload */
			mqs_init_bio(bio, rq, &a->members[loc.member],
				     opf | (bio->bi_opf & REQ_INTEGRITY),
				     loc.sector);
			bip = bio_integrity(bio);
			if (bip) {
				bip_set_seed(bip, (pos + off) >> shift);
				bip->bip_flags &= ~BIP_MAPPED_INTEGRITY;
			}
			bio_list_add(out, bio);
			off += n;
		}
		pos += len;
	}
}
#else
static void mqs_queue_integrity(struct mqs_array *a, struct request *rq,
				blk_opf_t opf, struct bio_list *out)
{
	/* blk_integrity_rq() is false: never called */
}
#endif

/*
 * A read or write of an array of several zones (mqstripe_map.h): a request
 * in one chunk takes the lean path (a chunk never crosses a zone), any
 * other is gathered zone by zone, each zone's part of it by the zone's
 * rule over its members (a request across a zone boundary makes bios of
 * both zones; a member of both gets one bio per zone).
 * Return: true when the lean path's bio took the submitter's reference.
 */
/* noinline: out of the path of an array of one zone (mqs_queue_rw()) */
static noinline bool mqs_queue_rw_zoned(struct mqs_array *a,
					struct request *rq, blk_opf_t opf,
					struct bio_list *out)
{
	sector_t start = blk_rq_pos(rq), end = start + blk_rq_sectors(rq);
	u32 zi = mqs_zone_find(a->zones, a->nr_zones, start);
	const struct mqs_zone *z = &a->zones[zi];
	struct mqs_loc loc;
	int lean;

	mqs_map_sector(&z->geom, start - z->array_start, &loc);
	loc.member = z->slots[loc.member];
	lean = mqs_queue_lean(a, rq, opf, &loc, out);
	if (lean)
		return lean > 0;
	for (; zi < a->nr_zones && a->zones[zi].array_start < end; zi++) {
		sector_t zs, ze;
		u64 chunks, rel;
		u32 base, touched, shift;
		bool slide;

		z = &a->zones[zi];
		zs = max_t(sector_t, start, z->array_start);
		ze = min_t(sector_t, end, z->array_end);
		rel = zs - z->array_start;
		shift = z->geom.chunk_shift;
		mqs_map_sector(&z->geom, rel, &loc);
		chunks = ((rel + (ze - zs) - 1) >> shift) - (rel >> shift) + 1;
		touched = min_t(u64, chunks, z->geom.nr_members);
		slide = chunks <= z->geom.nr_members;
		for (base = 0; base < touched;
		     base += slide ? touched : MQS_GATHER_SLOTS) {
			struct mqs_gather_state gs = {
				.a = a, .rq = rq, .opf = opf, .out = out,
				.nr = slide ? 1 :
				      min_t(u32, MQS_GATHER_SLOTS,
					    touched - base),
				.slide = slide,
				.g = &z->geom, .start = rel, .len = ze - zs,
				.z = z,
				.from = (zs - start) << SECTOR_SHIFT,
				.to = (ze - start) << SECTOR_SHIFT,
			};

			if (!mqs_gather_zoned(&gs, loc.member, base)) {
				mqs_set_status(rq, BLK_STS_AGAIN);
				return false;
			}
		}
	}
	return false;
}

/* Return: true when the lean path's bio took the submitter's reference. */
static bool mqs_queue_rw(struct mqs_array *a, struct request *rq,
			 struct bio_list *out)
{
	blk_opf_t opf = req_op(rq) | (rq->cmd_flags & MQS_RQ_FLAGS_PASSED);
	const struct mqs_geom *g = &a->geom;
	sector_t start = blk_rq_pos(rq);
	u64 last_chunk, chunks;
	struct mqs_loc loc;
	u32 base, touched;
	bool slide;
	int lean;

	if (!READ_ONCE(a->poll))
		opf &= ~MQS_REQ_POLLED;
	if (blk_integrity_rq(rq)) {
		mqs_queue_integrity(a, rq, opf, out);
		return false;
	}
	if (unlikely(a->nr_zones > 1))
		return mqs_queue_rw_zoned(a, rq, opf, out);
	/* the start is mapped once, for the lean path and the gather */
	mqs_map_sector(g, start, &loc);
	lean = mqs_queue_lean(a, rq, opf, &loc, out);
	if (lean)
		return lean > 0;
	last_chunk = (start + blk_rq_sectors(rq) - 1) >> g->chunk_shift;
	chunks = last_chunk - (start >> g->chunk_shift) + 1;
	if (chunks <= g->nr_members &&
	    mqs_queue_pieces(a, rq, opf, &loc, (u32)chunks, out))
		return false;
	touched = chunks < g->nr_members ? (u32)chunks : g->nr_members;
	/* one walk for a request that does not wrap (see mqs_gather()) */
	slide = chunks <= g->nr_members;
	for (base = 0; base < touched;
	     base += slide ? touched : MQS_GATHER_SLOTS) {
		struct mqs_gather_state gs = {
			.a = a, .rq = rq, .opf = opf, .out = out,
			.nr = slide ? 1 : min_t(u32, MQS_GATHER_SLOTS,
						touched - base),
			.slide = slide,
			.g = g, .start = start, .len = blk_rq_sectors(rq),
		};

		if (!mqs_gather(&gs, loc.member, base)) {
			mqs_set_status(rq, BLK_STS_AGAIN);
			break;
		}
	}
	return false;
}

/*
 * Start a request and make its member bios, queued on @out (not yet
 * submitted).  The request ends when its member bios are done.  While they
 * are made it holds one more reference, so that a bio submitted early (and
 * completed) cannot end it before the rest exist; once all exist (counted
 * in @pending) that reference is dropped: with no bio at all (a flush of
 * clean members, a NOWAIT request that could not start) it ends here.
 */
static void mqs_dispatch(struct mqs_array *a, struct request *rq,
			 struct bio_list *out)
{
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);

	atomic_set(&cmd->pending, 1);
	atomic_set(&cmd->status, (__force int)BLK_STS_OK);
	blk_mq_start_request(rq);
	mqs_stats_kick(a);

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		/* read-only: nothing was written, nothing to make durable */
		if (!a->readonly)
			mqs_queue_flush(a, rq, out);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		mqs_queue_nodata(a, rq, out);
		break;
	default:
		if (mqs_queue_rw(a, rq, out))
			return;		/* the lean path's bio has it */
		break;
	}
	mqs_put_cmd(rq);
}

/*
 * Why a request cannot be dispatched: an operation the array does not
 * offer, or one that writes to an array started read-only (the block
 * layer only warns of a write to a read-only disk: bio_check_ro() in
 * block/blk-core.c); BLK_STS_OK when it can.
 */
static blk_status_t mqs_refuse(struct mqs_array *a, struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_FLUSH:
		return BLK_STS_OK;
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		return a->readonly ? BLK_STS_IOERR : BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
}

/*
 * We may be called while the caller's plug is being flushed
 * (blk_finish_plug -> blk_mq_flush_plug_list -> direct issue or
 * ->queue_rqs()).  Member requests must not be added to that plug: on 6.1
 * the flush is still walking its list (seen as an oops in
 * blk_add_rq_to_plug).  Member bios go under a plug of our own instead.
 *
 * Inside submit_bio() (current->bio_list set: a direct issue, or a plug
 * flushed as a request is added to it) submit_bio_noacct() only queues
 * member bios on that list, issued after we return (mqs_submit_list()):
 * a plug of ours would always be empty there, and it would hide the
 * caller's plug, whose cached time blk_mq_start_request() would otherwise
 * take (blk_time_get_ns(), 6.9+), behind one that reads the clock again.
 * So there none is started.
 */
struct mqs_plug {
	struct blk_plug plug;
	struct blk_plug *outer;
	bool own;
};

static void mqs_plug_begin(struct mqs_plug *p)
{
	p->own = !current->bio_list;
	if (!p->own)
		return;
	p->outer = current->plug;
	current->plug = NULL;
	blk_start_plug(&p->plug);
}

static void mqs_plug_end(struct mqs_plug *p)
{
	if (!p->own)
		return;
	blk_finish_plug(&p->plug);
	current->plug = p->outer;
}

static blk_status_t mqs_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct mqs_array *a = hctx->queue->queuedata;
	struct mqs_hctx *h = hctx->driver_data;
	struct request *rq = bd->rq;
	struct mqs_plug plug;
	struct bio_list out;
	blk_status_t sts;

	sts = mqs_refuse(a, rq);
	if (sts)
		return sts;

	bio_list_init(&out);
	mqs_plug_begin(&plug);
	mqs_dispatch(a, rq, &out);
	if (bd->last) {
		mqs_submit_deferred(h);
		mqs_submit_list(&out);
	} else if (!bio_list_empty(&out)) {
		/* more requests follow: their bios go out together */
		spin_lock_irq(&h->lock);
		bio_list_merge(&h->deferred, &out);
		spin_unlock_irq(&h->lock);
	}
	mqs_plug_end(&plug);
	return BLK_STS_OK;
}

/* The batch ended without a request marked last. */
static void mqs_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct mqs_plug plug;

	mqs_plug_begin(&plug);
	mqs_submit_deferred(hctx->driver_data);
	mqs_plug_end(&plug);
}

#ifdef HAVE_MQ_OPS_QUEUE_RQS
/*
 * A plug's whole list of requests for this queue (no IO scheduler): every
 * member bio of the list is submitted under one plug.
 */
static void mqs_queue_rqs(mqs_rq_list_t *rqlist)
{
	struct mqs_plug plug;
	struct bio_list out;
	struct request *rq;

	bio_list_init(&out);
	mqs_plug_begin(&plug);
	while ((rq = rq_list_pop(rqlist))) {
		struct mqs_array *a = rq->q->queuedata;
		blk_status_t sts = mqs_refuse(a, rq);

		if (sts) {
			/* as blk-mq does when ->queue_rq() refuses one */
			blk_mq_end_request(rq, sts);
			continue;
		}
		mqs_dispatch(a, rq, &out);
	}
	mqs_submit_list(&out);
	mqs_plug_end(&plug);
}
#endif

#if MQS_CAN_POLL
/* Member queues one ->poll() call polls at most. */
#define MQS_POLL_QUEUES	16

/*
 * Poll the member bios of polled requests on this context.
 *
 * Polling a blk-mq member's queue completes every request that is done on
 * that hardware context (blk_mq_poll() in block/blk-mq.c), so one bio per
 * (member queue, cookie) is polled: io_uring calls ->poll() once per
 * request it waits for (io_do_iopoll() in io_uring/rw.c), and polling every
 * listed bio on each call would poll the same few queues dozens of times.
 * A bio-based member (dm) polls only the bio it is given (dm_poll_bio() in
 * drivers/md/dm.c): each of its bios is polled.  At most MQS_POLL_QUEUES
 * bios are polled per call; the list is rotated past the last one looked
 * at, so the next call goes on from there.
 *
 * Each polled bio is taken off the list meanwhile, so concurrent pollers
 * never poll the same bio and its completion (in bio_poll(), in the batch
 * completion @iob runs later, or in an interrupt when the member cleared
 * REQ_POLLED) knows that the poller finishes it (mqs_polled_done()): frees
 * it and drops its reference of the request, which may end the request
 * here.  So a bio that is part of its request (struct mqs_cmd.mb) is never
 * used after its request ended.  Completed member requests join the
 * caller's @iob.
 */
static int mqs_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	struct mqs_hctx *h = hctx->driver_data;
	struct mqs_bio *take[MQS_POLL_QUEUES];
	struct request_queue *qs[MQS_POLL_QUEUES];
	blk_qc_t cookies[MQS_POLL_QUEUES];
	struct mqs_bio *mb, *next;
	unsigned int nr = 0, nr_done = 0, i, j;
	int found = 0;

	spin_lock_irq(&h->lock);
	if (unlikely(!list_empty(&h->ended))) {
		LIST_HEAD(ended);
		struct mqs_cmd *cmd, *tmp;

		list_splice_init(&h->ended, &ended);
		spin_unlock_irq(&h->lock);
		list_for_each_entry_safe(cmd, tmp, &ended, ended) {
			list_del(&cmd->ended);
			mqs_end_cmd(blk_mq_rq_from_pdu(cmd),
				    (__force blk_status_t)
				    atomic_read(&cmd->status));
			found++;
		}
		spin_lock_irq(&h->lock);
	}
	list_for_each_entry_safe(mb, next, &h->polled, node) {
		struct request_queue *q = bdev_get_queue(mb->bio.bi_bdev);
		blk_qc_t cookie = READ_ONCE(mb->bio.bi_cookie);

		if (nr == MQS_POLL_QUEUES) {
			/* the next call starts here */
			list_rotate_to_front(&mb->node, &h->polled);
			break;
		}
		if (queue_is_mq(q)) {
			for (j = 0; j < nr; j++)
				if (qs[j] == q && cookies[j] == cookie)
					break;
			if (j < nr)
				continue;	/* its queue is polled already */
		}
		list_del(&mb->node);
		mb->polling = true;
		qs[nr] = q;
		cookies[nr] = cookie;
		take[nr++] = mb;
	}
	spin_unlock_irq(&h->lock);

	for (i = 0; i < nr; i++) {
		int ret = bio_poll(&take[i]->bio, iob, BLK_POLL_ONESHOT);

		if (ret > 0)
			found += ret;
	}

	spin_lock_irq(&h->lock);
	for (i = 0; i < nr; i++) {
		mb = take[i];
		mb->polling = false;
		if (mb->done)
			take[nr_done++] = mb;
		else
			list_add_tail(&mb->node, &h->polled);
	}
	spin_unlock_irq(&h->lock);
	for (i = 0; i < nr_done; i++)
		mqs_finish_bio(take[i]);
	return found;
}

/*
 * CPU n to default context n, and to poll context n when there are some.
 * blk_mq_alloc_tag_set() set every map's nr_queues to nr_hw_queues (both
 * kinds together): each map gets its own share back here, as nvme's
 * nvme_pci_map_queues() does.
 */
static void mqs_map_queues(struct blk_mq_tag_set *set)
{
	struct blk_mq_queue_map *def = &set->map[HCTX_TYPE_DEFAULT];
	struct blk_mq_queue_map *poll = &set->map[HCTX_TYPE_POLL];

	def->nr_queues = nr_cpu_ids;
	def->queue_offset = 0;
	blk_mq_map_queues(def);
	if (set->nr_maps <= HCTX_TYPE_POLL)
		return;
	set->map[HCTX_TYPE_READ].nr_queues = 0;
	poll->nr_queues = nr_cpu_ids;
	poll->queue_offset = nr_cpu_ids;
	blk_mq_map_queues(poll);
}
#endif

static int mqs_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			 unsigned int index)
{
	struct mqs_hctx *h;

	h = kzalloc_node(sizeof(*h), GFP_KERNEL, hctx->numa_node);
	if (!h)
		return -ENOMEM;
	spin_lock_init(&h->lock);
	bio_list_init(&h->deferred);
	INIT_LIST_HEAD(&h->polled);
	INIT_LIST_HEAD(&h->ended);
	hctx->driver_data = h;
	return 0;
}

static void mqs_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int index)
{
	struct mqs_hctx *h = hctx->driver_data;

	/* no request is in flight when a context goes away */
	WARN_ON_ONCE(!bio_list_empty(&h->deferred) ||
		     !list_empty(&h->polled) || !list_empty(&h->ended));
	kfree(h);
	hctx->driver_data = NULL;
}

#ifdef HAVE_TIMEOUT_RESERVED_ARG
static enum blk_eh_timer_return mqs_timeout(struct request *rq, bool reserved)
#else
static enum blk_eh_timer_return mqs_timeout(struct request *rq)
#endif
{
	/*
	 * The member owns the IO and has its own timeout and recovery; the
	 * array request ends when the member bios do.
	 */
	return BLK_EH_RESET_TIMER;
}

const struct blk_mq_ops mqs_mq_ops = {
	.queue_rq	= mqs_queue_rq,
	.commit_rqs	= mqs_commit_rqs,
#ifdef HAVE_MQ_OPS_QUEUE_RQS
	.queue_rqs	= mqs_queue_rqs,
#endif
#if MQS_CAN_POLL
	.poll		= mqs_poll,
	.map_queues	= mqs_map_queues,
#endif
	.init_hctx	= mqs_init_hctx,
	.exit_hctx	= mqs_exit_hctx,
	.timeout	= mqs_timeout,
};
