/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mqstripe: internal definitions shared by the control, array and IO code.
 */
#ifndef MQS_H
#define MQS_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "uapi/mqstripe.h"
#include "mqstripe_map.h"

#define MQS_NAME		"mqstripe"

/*
 * Member bios a request may have open at once while its segments are
 * walked.  A request that wraps (more chunks than members) has every
 * member it touches open to its end: more members touched means more
 * passes over it, so the per-request data does not grow with the member
 * count.  One that does not wrap has one open at a time: one pass.
 */
#define MQS_GATHER_SLOTS	16
/* Minors per array: the whole device and 15 partitions. */
#define MQS_PART_SHIFT		4
/* Bios kept in reserve per array so the IO path never fails on memory. */
#define MQS_BIO_POOL_SIZE	256

struct mqs_array;

/* bits of mqs_array.flags */
#define MQS_ARRAY_NO_DISCARD		0	/* a member refused discard */
#define MQS_ARRAY_NO_WRITE_ZEROES	1	/* ... write-zeroes */
#define MQS_ARRAY_FAILED_SENT		2	/* array_failed uevent sent */
#define MQS_ARRAY_STATS_ARMED		3	/* @stats_work is queued */
#define MQS_ARRAY_NO_NOWAIT		4	/* a member lost REQ_NOWAIT */
#define MQS_ARRAY_NO_POLL		5	/* a member lost polling */

/* bits of mqs_member.events: uevents to send (mqs_event_work()) */
#define MQS_EV_FAULTY			0
#define MQS_EV_GONE			1
#define MQS_EV_SLOW			2	/* member_slow */
#define MQS_EV_SLOW_CLEARED		3	/* member_slow_cleared */

/*
 * Completion latency histogram of a member: bucket 0 counts bios done in
 * under 2^MQS_LAT_SHIFT ns (16.4 us), bucket i (1..14) those of
 * [2^(MQS_LAT_SHIFT + i - 1), 2^(MQS_LAT_SHIFT + i)) ns, the last one
 * everything from 2^(MQS_LAT_SHIFT + 14) ns (268 ms) on.
 */
#define MQS_LAT_BUCKETS		MQSTRIPE_LAT_BUCKETS
#define MQS_LAT_SHIFT		14

/* Directions of the member figures: reads, and everything else. */
#define MQS_DIR_READ		0
#define MQS_DIR_WRITE		1
#define MQS_DIRS		2

/**
 * struct mqs_member_stats - per-CPU IO figures of a member
 * @issued: member bios made, by direction (MQS_DIR_*).
 * @done: member bios completed, by direction.
 * @lat_ns: their completion latencies summed, in ns, by direction.
 * @hist: their completion latencies (MQS_LAT_BUCKETS), by direction.
 *
 * Written with this_cpu ops only: no shared cache line, no atomic on the
 * IO path.  Readers sum over the CPUs (mqs_stats_sum()); a sum may mix a
 * bio's issue and not yet its completion, never more.
 */
struct mqs_member_stats {
	u64 issued[MQS_DIRS];
	u64 done[MQS_DIRS];
	u64 lat_ns[MQS_DIRS];
	u64 hist[MQS_DIRS][MQS_LAT_BUCKETS];
};

/**
 * struct mqs_member - one member of an array
 * @array: the array it belongs to.
 * @bdev: the member, claimed exclusively with the array as holder.
 * @handle: what the kernel's open call returned (compat.h).
 * @dev: device number, for duplicate checks and reports.
 * @slot: position in the stripe.
 * @size_sectors: size of the member device at create (INFO reports its
 *	size now).
 * @data_sectors: sectors of the member the array uses for data, from the
 *	data offset on: @member_data_sectors of the array, but each member's
 *	own in an array of several zones.
 * @state: MQSTRIPE_MEMBER_*; written from IO completion, ->mark_dead and
 *	any reader that notices a removal, read anywhere.
 * @read_errors: failed member reads.
 * @write_errors: failed member writes, discards and write-zeroes.
 * @flush_errors: failed member flushes.
 * @flush_lock: protects @flushes_inflight and orders flush decisions.
 * @flushes_inflight: member flushes issued and not completed.
 * @dirty: MQS_MEMBER_DIRTY set when a write (not FUA) completed on the
 *	member since the last flush was issued to it.
 * @events: MQS_EV_* uevents to send for this member.
 * @first_status: the block status of its first failed bio (0: none).
 * @stats: per-CPU IO figures (struct mqs_member_stats).
 * @slow: the slow-member check flagged it (see mqs_stats.c); read
 *	anywhere, written by that check only.
 * @win_lat_us: its mean completion latency over the last window with IO
 *	on it, in us (the check's; read anywhere).
 * @win_median_us: the median member's of that window.
 * @prev_done: completions summed at the last window's end (the check's).
 * @prev_lat_ns: latencies summed at the last window's end (the check's).
 * @slow_windows: consecutive windows above (or, while slow, below) the
 *	threshold (the check's).
 */
struct mqs_member {
	struct mqs_array *array;
	struct block_device *bdev;
	mqs_bdev_handle_t handle;
	dev_t dev;
	u32 slot;
	sector_t size_sectors;
	sector_t data_sectors;
	atomic_t state;
	atomic64_t read_errors;
	atomic64_t write_errors;
	atomic64_t flush_errors;
	spinlock_t flush_lock;	/* flushes_inflight, flush decisions */
	unsigned int flushes_inflight;
	unsigned long dirty;
	unsigned long events;
	atomic_t first_status;
	struct mqs_member_stats __percpu *stats;
	bool slow;
	u32 win_lat_us;
	u32 win_median_us;
	u64 prev_done;
	u64 prev_lat_ns;
	u32 slow_windows;
};

#define MQS_MEMBER_DIRTY	0

/**
 * struct mqs_array - one striped device
 * @node: entry in the list of arrays, under mqs_ctl_mutex.
 * @index: N of /dev/mqstripeN.
 * @disk: the gendisk; its private_data and queuedata point here.
 * @tag_set: one hardware context per possible CPU, one tag space shared
 *	by all of them.
 * @bs: bioset of the member bios, with struct mqs_bio as front pad.
 * @geom: the mapping (mqstripe_map.h); in an array of several zones, the
 *	first zone's: all members from the data offset, or with segments
 *	the first segment's members (its zone 0's slots are 0..n-1, so
 *	@geom maps zone 0 as its own table does).  The queue limits' io_opt
 *	is its stripe (mqs_compute_limits()).
 * @nr_zones: zones of the array: 1 when its members give equal sizes and
 *	there is one segment (the IO path maps with @geom alone), else one
 *	per distinct size of each segment, summed (at least one a segment).
 * @zones: with @nr_zones > 1, the zone table (mqs_segments_build()), its
 *	slot lists after it in the same allocation; else NULL.
 * @nr_segments: segments of the array (MQSTRIPE_CREATE_F_SEGMENTS), 1
 *	without the flag.
 * @segment_members: members of each segment, in slot order; the entries
 *	from @nr_segments on are zero.
 * @chunk_bytes: chunk size.
 * @data_offset_bytes: start of data on every member.
 * @member_data_sectors: sectors of each member used for data (the first
 *	zone's with several zones: the first segment's smallest member).
 * @queue_depth: requests of the array (tags, shared by its hardware
 *	contexts).
 * @poll: every member has poll queues: the tag set has a poll map
 *	(HCTX_TYPE_POLL) and polled requests poll their member bios; cleared
 *	(WRITE_ONCE()) when a member loses polling, after which member bios
 *	are not polled.
 * @depth: 0 over plain devices, else one more than the deepest member that
 *	is an array itself: the lockdep class of its flush lock.
 * @readonly: started with MQSTRIPE_CREATE_F_READONLY: members claimed
 *	read-only, the disk read-only for its life, writes refused, flushes
 *	ended at once; set before the first claim, never changed.
 * @dying: set under disk->open_mutex when a REMOVE has started, or a
 *	CREATE failed after adding the disk; refuses new opens.
 * @published: set under mqs_ctl_mutex when CREATE has succeeded; before,
 *	the array is on mqs_arrays only to hold its name and UUID, and the
 *	commands that take an index do not find it.
 * @holders_linked: members linked as holders (sysfs slaves).
 * @flags: MQS_ARRAY_NO_DISCARD, MQS_ARRAY_NO_WRITE_ZEROES: a member
 *	refused the operation and the array stopped offering it (logged once);
 *	MQS_ARRAY_FAILED_SENT: the array_failed uevent went out;
 *	MQS_ARRAY_NO_NOWAIT, MQS_ARRAY_NO_POLL: a member refused a REQ_NOWAIT
 *	or polled bio (mqs_member_lost_feature(), logged once).
 * @disk_added: set (smp_store_release()) once device_add_disk() has
 *	succeeded; until then @event_work sends nothing, as @disk is NULL, an
 *	ERR_PTR or not yet added.
 * @stats_work: the slow-member check, once a second while the array has
 *	IO (mqs_stats.c); queued from the IO path when MQS_ARRAY_STATS_ARMED
 *	is clear.
 * @slow_factor: a member is slow when its mean latency of a window is
 *	above this many times the median member's ...
 * @slow_min_us: ... and above this floor, in us ...
 * @slow_windows: ... for this many windows in a row; it is no longer slow
 *	after as many windows below half the threshold (sysfs, tunable).
 * @stats_scratch: room for one figure per member, for the check.
 * @event_work: sends the change uevents of member state changes
 *	(mqs_member.events) and of the array's failure; member events come
 *	from the first claim on.
 * @name_lock: protects @name against readers outside mqs_ctl_mutex (sysfs,
 *	@event_work); @name changes under both.
 * @name: NUL-terminated array name (may be empty).
 * @uuid: array UUID.
 * @nr_members: number of members.
 * @members: the members, by slot.
 */
struct mqs_array {
	struct list_head node;
	int index;
	struct gendisk *disk;
	struct blk_mq_tag_set tag_set;
	struct bio_set bs;
	struct mqs_geom geom;
	u32 nr_zones;
	struct mqs_zone *zones;
	u32 nr_segments;
	u32 segment_members[MQSTRIPE_MAX_SEGMENTS];
	u32 chunk_bytes;
	u64 data_offset_bytes;
	sector_t member_data_sectors;
	u32 queue_depth;
	bool poll;
	u32 depth;
	bool readonly;
	bool dying;
	bool published;
	u32 holders_linked;
	unsigned long flags;
	bool disk_added;
	struct delayed_work stats_work;
	u32 slow_factor;
	u32 slow_min_us;
	u32 slow_windows;
	u64 *stats_scratch;
	struct work_struct event_work;
	spinlock_t name_lock;	/* @name outside mqs_ctl_mutex */
	char name[MQSTRIPE_NAME_LEN];
	u8 uuid[MQSTRIPE_UUID_LEN];
	u32 nr_members;
	struct mqs_member members[] __counted_by(nr_members);
};

/**
 * struct mqs_hctx - per hardware context data (hctx->driver_data)
 * @lock: protects everything below; taken from bio completion (any
 *	context), so with interrupts off.
 * @deferred: member bios of requests dispatched with bd->last false, held
 *	until the last request of the batch or ->commit_rqs() so that members
 *	see the batch under one plug.
 * @polled: member bios of polled requests on this context that are in
 *	flight, for ->poll() (struct mqs_bio.node).
 * @ended: polled requests whose member bios completed in interrupt
 *	context, for ->poll() to end (struct mqs_cmd.ended).
 */
struct mqs_hctx {
	spinlock_t lock;	/* see above */
	struct bio_list deferred;
	struct list_head polled;
	struct list_head ended;
};

/**
 * struct mqs_bio - a member bio and what its completion needs
 * @rq: the array request it carries a part of.
 * @member: the member it goes to.
 * @hctx: for a polled bio, the context whose @polled list has it; NULL
 *	for every other bio.
 * @node: entry in @hctx->polled.
 * @polling: ->poll() took the bio off the list and polls it (under
 *	@hctx->lock).
 * @done: it completed while polled: ->poll() finishes it, frees it and
 *	drops its reference of @rq (under @hctx->lock).
 * @flush: an empty PREFLUSH (the member may strip the flag on the way).
 * @embedded: the bio is the request's own (struct mqs_cmd.mb), not one of
 *	the bio set: its completion uninits it instead of putting it.
 * @start_ns: when its request started, for its latency (see
 *	mqs_stats_issue()).
 * @segs: segments the member counts in the bio (the gather's, which keeps
 *	it within the member's max_segments; see mqs_bio_room()).
 * @bio: the bio itself; must be last (bioset front pad).
 */
struct mqs_bio {
	struct request *rq;
	struct mqs_member *member;
	struct mqs_hctx *hctx;
	struct list_head node;
	bool polling;
	bool done;
	bool flush;
	bool embedded;
	unsigned int segs;
	u64 start_ns;
	struct bio bio;
};

/**
 * struct mqs_cmd - per-request driver data (cmd_size), independent of the
 * member count
 * @pending: member bios in flight plus one held by the submitter.
 * @status: first error seen (blk_status_t), 0 while none.
 * @ended: on its context's list of polled requests to end (struct
 *	mqs_hctx.ended).
 * @mb: the member bio of the lean path: a clone made in place
 *	(bio_init_clone()), so that the commonest IO allocates no bio.  Its
 *	bio_vec table is the request bio's.  Must be last (struct bio ends in
 *	a flexible array).
 */
struct mqs_cmd {
	atomic_t pending;
	atomic_t status;
	struct list_head ended;
#ifdef HAVE_BIO_INIT_CLONE
	struct mqs_bio mb;
#endif
};

extern const struct blk_mq_ops mqs_mq_ops;
extern int mqs_major;
extern const struct attribute_group *mqs_attr_groups[];

int mqs_array_create(struct mqstripe_create *c, const s32 *fds,
		     const u64 *sizes);
int mqs_array_remove(u32 index);
int mqs_array_info(u32 index, struct mqstripe_info *info,
		   struct mqstripe_member_info *members, u32 cap);
int mqs_array_list(u32 *indexes, u32 cap, u32 *count);
int mqs_array_clear(u32 index, u32 slot, u32 *state);
int mqs_array_rename(u32 index, const char *name);
int mqs_array_resize(struct mqstripe_resize *r);
void mqs_array_remove_all(void);
void mqs_member_failed(struct mqs_member *m, mqs_req_op_t op, bool flush,
		       blk_status_t status);
void mqs_member_refused(struct mqs_member *m, mqs_req_op_t op);
void mqs_member_lost_feature(struct mqs_member *m, blk_opf_t opf);
bool mqs_array_failed(struct mqs_array *a);
void mqs_member_event(struct mqs_member *m, int ev);

int mqs_stats_init(struct mqs_array *a);
void mqs_stats_exit(struct mqs_array *a);
void mqs_stats_arm(struct mqs_array *a);
void mqs_stats_sum(const struct mqs_member *m, struct mqs_member_stats *sum);
int mqs_stats_io_line(struct mqs_array *a, u32 slot, char *buf, size_t size);
int mqs_stats_hist_line(struct mqs_array *a, u32 slot, char *buf,
			size_t size);

/*
 * The IO path's part of the member figures: a count and a timestamp when a
 * member bio is made, a count, a sum and a bucket when it completes; and
 * the slow-member check queued when it is not (a flag test per request).
 *
 * The timestamp is the time blk_mq_start_request() took for the array
 * request (RQF_STATS: the queue keeps request statistics, as writeback
 * throttling makes it), the same clock (ktime_get_ns()) read just before
 * the member bios are made; only where it took none is the clock read
 * here.  A member's latency runs from its request's start to the member
 * bio's end.
 */
static inline void mqs_stats_issue(struct mqs_bio *mb, blk_opf_t opf)
{
	struct request *rq = mb->rq;

	mb->start_ns = rq->rq_flags & RQF_STATS ? rq->io_start_time_ns :
						   ktime_get_ns();
	this_cpu_inc(mb->member->stats->issued[op_is_write(opf)]);
}

static inline void mqs_stats_done(struct mqs_bio *mb)
{
	struct mqs_member_stats __percpu *s = mb->member->stats;
	u64 ns = ktime_get_ns() - mb->start_ns;
	int dir = op_is_write(bio_op(&mb->bio));
	int b = fls64(ns >> MQS_LAT_SHIFT);

	this_cpu_inc(s->done[dir]);
	this_cpu_add(s->lat_ns[dir], ns);
	this_cpu_inc(s->hist[dir][min(b, MQS_LAT_BUCKETS - 1)]);
}

static inline void mqs_stats_kick(struct mqs_array *a)
{
	if (unlikely(!test_bit(MQS_ARRAY_STATS_ARMED, &a->flags)))
		mqs_stats_arm(a);
}

#endif /* MQS_H */
