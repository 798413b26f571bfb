// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: the IO path.
 *
 * Each array request becomes at most one bio per member: the part of a
 * contiguous array range that lands on one member is contiguous on that
 * member (mqs_member_range() in mqstripe_map.h), so the request's segments
 * are gathered into one member bio per member touched.  Member bios come
 * from the array's bioset (GFP_NOIO, mempool-backed: they cannot fail) and
 * point at the request's own pages: no data is copied.
 *
 * Submitting to a member can sleep (tag waits, frozen queues, throttling),
 * so the tag set is BLK_MQ_F_BLOCKING.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/bio.h>

#include "mqs.h"

/* Flags of the array request that member bios inherit. */
#define MQS_RQ_FLAGS_PASSED	(REQ_FUA | REQ_SYNC | REQ_META | REQ_PRIO | \
				 REQ_IDLE | REQ_RAHEAD | REQ_BACKGROUND | \
				 REQ_NOUNMAP)

static void mqs_put_cmd(struct request *rq)
{
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);

	if (atomic_dec_and_test(&cmd->pending))
		blk_mq_end_request(rq, (__force blk_status_t)
				   atomic_read(&cmd->status));
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

static void mqs_end_io(struct bio *bio)
{
	struct mqs_bio *mb = container_of(bio, struct mqs_bio, bio);
	struct request *rq = mb->rq;
	bool flush = mb->flush;

	if (flush)
		mqs_flush_done(mb->member, bio->bi_status);
	else if (op_is_write(bio_op(bio)) && !(bio->bi_opf & REQ_FUA))
		mqs_mark_dirty(mb->member);

	if (unlikely(bio->bi_status)) {
		struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);

		mqs_member_failed(mb->member, bio_op(bio), flush,
				  bio->bi_status);
		atomic_cmpxchg(&cmd->status, 0, (__force int)bio->bi_status);
	}
	bio_put(bio);
	mqs_put_cmd(rq);
}

/*
 * With GFP_NOIO the bioset waits for its mempool and never returns NULL;
 * with GFP_NOWAIT it may.  Bios already handed to submit_bio_noacct() but
 * parked on current->bio_list are handed to the bioset's rescuer while we
 * wait (BIOSET_NEED_RESCUER).
 */
static struct bio *mqs_alloc_bio(struct mqs_array *a, struct request *rq,
				 u32 slot, unsigned short nr_vecs,
				 blk_opf_t opf, sector_t sector, gfp_t gfp)
{
	struct mqs_member *m = &a->members[slot];
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct mqs_bio *mb;
	struct bio *bio;

	bio = bio_alloc_bioset(m->bdev, nr_vecs, opf, gfp, &a->bs);
	if (!bio)
		return NULL;
	bio->bi_iter.bi_sector = sector;
	bio->bi_end_io = mqs_end_io;
	bio->bi_ioprio = req_get_ioprio(rq);
	mb = container_of(bio, struct mqs_bio, bio);
	mb->rq = rq;
	mb->member = m;
	mb->flush = false;
	atomic_inc(&cmd->pending);
	return bio;
}

/*
 * Flush: an empty PREFLUSH to every member with a volatile write cache that
 * was written since its last flush (see mqs_flush_needed()).
 */
static void mqs_queue_flush(struct mqs_array *a, struct request *rq)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		struct mqs_member *m = &a->members[i];
		struct bio *bio;

		if (!bdev_write_cache(m->bdev) || !mqs_flush_needed(m))
			continue;
		bio = mqs_alloc_bio(a, rq, i, 0, REQ_OP_WRITE | REQ_PREFLUSH |
				    REQ_SYNC, 0, GFP_NOIO);
		container_of(bio, struct mqs_bio, bio)->flush = true;
		submit_bio_noacct(bio);
	}
}

/* Discard and write-zeroes: one data-less bio per member range. */
static void mqs_queue_nodata(struct mqs_array *a, struct request *rq)
{
	blk_opf_t opf = req_op(rq) | (rq->cmd_flags & MQS_RQ_FLAGS_PASSED);
	sector_t start = blk_rq_pos(rq);
	u64 nr = blk_rq_sectors(rq);
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		u64 mstart, afirst, len;
		struct bio *bio;

		len = mqs_member_range(&a->geom, start, nr, i, &mstart,
				       &afirst);
		if (!len)
			continue;
		bio = mqs_alloc_bio(a, rq, i, 0, opf, mstart, GFP_NOIO);
		/* len <= max_discard/write_zeroes sectors: fits bi_size */
		bio->bi_iter.bi_size = len << SECTOR_SHIFT;
		submit_bio_noacct(bio);
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

static unsigned short mqs_nr_vecs(u64 bytes)
{
	return min_t(u64, BIO_MAX_VECS, (bytes >> PAGE_SHIFT) + 2);
}

static void mqs_submit_held(struct bio **bios, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		if (bios[i]) {
			submit_bio_noacct(bios[i]);
			bios[i] = NULL;
		}
	}
}

/*
 * A member bio for the gather.  Never sleep on the mempool while holding
 * bios not yet submitted: other requests could hold the rest of the reserve
 * the same way and none would progress.  So try without sleeping first; when
 * that fails, submit what is held (the member ranges then take one more bio)
 * and wait.
 */
static struct bio *mqs_gather_alloc(struct mqs_array *a, struct request *rq,
				    blk_opf_t opf, struct bio **held,
				    u32 nr_held, u32 member, sector_t sector)
{
	u64 mstart, afirst, len;
	unsigned short nr_vecs;
	struct bio *bio;

	len = mqs_member_range(&a->geom, blk_rq_pos(rq), blk_rq_sectors(rq),
			       member, &mstart, &afirst);
	nr_vecs = mqs_nr_vecs(len << SECTOR_SHIFT);
	bio = mqs_alloc_bio(a, rq, member, nr_vecs, opf, sector,
			    GFP_NOWAIT | __GFP_NOWARN);
	if (bio)
		return bio;
	mqs_submit_held(held, nr_held);
	return mqs_alloc_bio(a, rq, member, nr_vecs, opf, sector, GFP_NOIO);
}

/*
 * Gather the request's segments for the members of one group: members
 * first_member + base .. + base + nr - 1 (mod N), at most
 * MQS_GATHER_SLOTS of them.  Segments are walked in array order; the part of
 * each that lands on a member of the group is appended to that member's bio.
 * A bio that is full (BIO_MAX_VECS) is submitted and continued by a new one.
 */
static void mqs_gather(struct mqs_array *a, struct request *rq, blk_opf_t opf,
		       u32 first_member, u32 base, u32 nr)
{
	const struct mqs_geom *g = &a->geom;
	struct bio *bios[MQS_GATHER_SLOTS] = { };
	sector_t start = blk_rq_pos(rq);
	struct req_iterator iter;
	struct mqs_cursor cur;
	struct bio_vec bv;

	mqs_cursor_init(g, start, &cur);
	rq_for_each_segment(bv, rq, iter) {
		u32 done = 0;

		while (done < bv.bv_len) {
			u32 piece = min(bv.bv_len - done, cur.left);
			u32 idx = (cur.member + g->nr_members - first_member) %
				  g->nr_members;

			if (idx >= base && idx < base + nr) {
				struct bio **bp = &bios[idx - base];
				unsigned int off = bv.bv_offset + done;

				if (*bp && bio_add_page(*bp, bv.bv_page, piece,
							off) != piece) {
					/* full: a second bio continues it */
					submit_bio_noacct(*bp);
					*bp = NULL;
				}
				if (!*bp) {
					*bp = mqs_gather_alloc(a, rq, opf, bios,
							       nr, cur.member,
							       mqs_cursor_sector(g, &cur));
					/* a fresh bio takes one page */
					__bio_add_page(*bp, bv.bv_page, piece,
						       off);
				}
			}
			done += piece;
			mqs_cursor_advance(g, &cur, piece);
		}
	}
	mqs_submit_held(bios, nr);
}

static void mqs_queue_rw(struct mqs_array *a, struct request *rq)
{
	blk_opf_t opf = req_op(rq) | (rq->cmd_flags & MQS_RQ_FLAGS_PASSED);
	const struct mqs_geom *g = &a->geom;
	sector_t start = blk_rq_pos(rq);
	u64 last_chunk = (start + blk_rq_sectors(rq) - 1) >> g->chunk_shift;
	u64 chunks = last_chunk - (start >> g->chunk_shift) + 1;
	u32 touched = chunks < g->nr_members ? (u32)chunks : g->nr_members;
	struct mqs_loc loc;
	u32 base;

	mqs_map_sector(g, start, &loc);
	for (base = 0; base < touched; base += MQS_GATHER_SLOTS)
		mqs_gather(a, rq, opf, loc.member, base,
			   min_t(u32, MQS_GATHER_SLOTS, touched - base));
}

static blk_status_t mqs_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct mqs_array *a = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct mqs_cmd *cmd = blk_mq_rq_to_pdu(rq);
	struct blk_plug plug, *outer;

	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
	case REQ_OP_FLUSH:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		return BLK_STS_NOTSUPP;
	}

	/* the submitter holds one reference until every bio is out */
	atomic_set(&cmd->pending, 1);
	atomic_set(&cmd->status, (__force int)BLK_STS_OK);
	blk_mq_start_request(rq);

	/*
	 * We may be called while the caller's plug is being flushed
	 * (blk_finish_plug -> blk_mq_flush_plug_list -> direct issue).  Member
	 * requests must not be added to that plug: on 6.1 the flush is still
	 * walking its list (seen as an oops in blk_add_rq_to_plug).  Member
	 * bios of one request go under a plug of our own instead.
	 */
	outer = current->plug;
	current->plug = NULL;
	blk_start_plug(&plug);

	switch (req_op(rq)) {
	case REQ_OP_FLUSH:
		mqs_queue_flush(a, rq);
		break;
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		mqs_queue_nodata(a, rq);
		break;
	default:
		mqs_queue_rw(a, rq);
		break;
	}
	blk_finish_plug(&plug);
	current->plug = outer;
	mqs_put_cmd(rq);
	return BLK_STS_OK;
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
	.timeout	= mqs_timeout,
};
