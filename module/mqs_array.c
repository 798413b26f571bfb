// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: creating and removing arrays, and their sysfs attributes.
 *
 * Locking: mqs_ctl_mutex serialises every remove, clear, rename, info and
 * list and protects mqs_arrays.  A create holds it only to reserve its name
 * and UUID and to publish the array at the end: a member open or the
 * partition scan of device_add_disk() can wait on a member for any time (a
 * suspended dm device), and no command on another array may wait with it.
 * A removal first marks the array dying under the disk's open_mutex (so no
 * new opener can slip in between the openers check and del_gendisk), as
 * loop does with Lo_rundown.  The array is freed with its disk's last
 * reference (->free_disk), which an opener can hold past del_gendisk().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/file.h>
#include <linux/idr.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uuid.h>
#include <linux/ctype.h>
#include <linux/string.h>

#include "mqs.h"

static DEFINE_MUTEX(mqs_ctl_mutex);
static LIST_HEAD(mqs_arrays);
static DEFINE_IDA(mqs_index_ida);
/* arrays allocated and not yet freed: the module's exit waits for none */
static atomic_t mqs_nr_arrays = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(mqs_arrays_freed);
int mqs_major;

/* ---- member state ------------------------------------------------- */

/*
 * One change uevent of the array: MQSTRIPE_EVENT=@what, the array's UUID,
 * name and state, and for a member event its slot, major:minor and the
 * block status of its first failed bio (as an errno name, "-EIO"), for
 * udev rules and "udevadm monitor --property".
 */
static void mqs_send_event(struct mqs_array *a, const char *what,
			   struct mqs_member *m)
{
	char ev[48], uuid[64], name[16 + MQSTRIPE_NAME_LEN], state[32];
	char slot[32], member[48], error[48], lat[40], median[40];
	char *envp[10] = { ev, uuid, name, state };
	int n = 4, status;

	snprintf(ev, sizeof(ev), "MQSTRIPE_EVENT=%s", what);
	snprintf(uuid, sizeof(uuid), "MQSTRIPE_ARRAY_UUID=%pUb", a->uuid);
	spin_lock(&a->name_lock);
	snprintf(name, sizeof(name), "MQSTRIPE_NAME=%s", a->name);
	spin_unlock(&a->name_lock);
	snprintf(state, sizeof(state), "MQSTRIPE_STATE=%s",
		 mqs_array_failed(a) ? "failed" : "active");
	if (m) {
		snprintf(slot, sizeof(slot), "MQSTRIPE_SLOT=%u", m->slot);
		snprintf(member, sizeof(member), "MQSTRIPE_MEMBER=%u:%u",
			 MAJOR(m->dev), MINOR(m->dev));
		envp[n++] = slot;
		envp[n++] = member;
		status = atomic_read(&m->first_status);
		if (status) {
			int err = blk_status_to_errno((__force blk_status_t)
						      status);

			snprintf(error, sizeof(error), "MQSTRIPE_ERROR=%pe",
				 ERR_PTR(err));
			envp[n++] = error;
		}
		if (!strncmp(what, "member_slow", 11)) {
			snprintf(lat, sizeof(lat), "MQSTRIPE_LATENCY_US=%u",
				 READ_ONCE(m->win_lat_us));
			snprintf(median, sizeof(median),
				 "MQSTRIPE_MEDIAN_LATENCY_US=%u",
				 READ_ONCE(m->win_median_us));
			envp[n++] = lat;
			envp[n++] = median;
		}
	}
	envp[n] = NULL;
	kobject_uevent_env(&disk_to_dev(a->disk)->kobj, KOBJ_CHANGE, envp);
}

/*
 * Has the member disk gone away (hot removal)?  6.8+ tells us through
 * ->mark_dead; before that only the disk itself does.
 */
static bool mqs_member_disk_gone(struct mqs_member *m)
{
	struct gendisk *disk = m->bdev->bd_disk;

	return !disk_live(disk) || test_bit(GD_DEAD, &disk->state) ||
	       blk_queue_dying(disk->queue);
}

/*
 * Mark @m gone.  Of all who do (->mark_dead, a failed bio, a look at the
 * disk), the one that makes the change logs it and returns true: it has
 * the member_gone uevent sent.  Any context.
 */
static bool mqs_member_set_gone(struct mqs_member *m)
{
	if (atomic_xchg(&m->state, MQSTRIPE_MEMBER_GONE) ==
	    MQSTRIPE_MEMBER_GONE)
		return false;
	/* may run before the disk exists: name the UUID */
	pr_err("array %pUb: member %u (%pg) is gone\n", m->array->uuid,
	       m->slot, m->bdev);
	return true;
}

/* A removal that neither IO nor ->mark_dead has told yet: as above. */
static bool mqs_member_note_gone(struct mqs_member *m)
{
	return atomic_read(&m->state) != MQSTRIPE_MEMBER_GONE &&
	       mqs_member_disk_gone(m) && mqs_member_set_gone(m);
}

/*
 * The member's state, noticing a removal that nothing has told yet: its
 * member_gone uevent and the poll() wake-ups follow from the event work.
 * Called from sysfs, the ioctls (process context), mqs_array_create()
 * and mqs_send_event() (the event work, or process context): queueing the
 * work is fine in all of them.  An array being torn down is past its last
 * reader when it cancels the work for the last time, and the work does
 * nothing once a->dying is set.
 */
static int mqs_member_state(struct mqs_member *m)
{
	if (mqs_member_note_gone(m))
		mqs_member_event(m, MQS_EV_GONE);
	return atomic_read(&m->state);
}

static void mqs_event_work(struct work_struct *work)
{
	struct mqs_array *a = container_of(work, struct mqs_array, event_work);
	struct kobject *kobj;
	bool failed = false;
	u32 i;

	/*
	 * A member can go away (->mark_dead) from its claim on, before the
	 * disk is allocated or added: its event stays pending here, and
	 * mqs_array_create() queues this work once the disk is added.  A
	 * dying array cancels this work before its disk goes.
	 */
	if (!smp_load_acquire(&a->disk_added) || READ_ONCE(a->dying))
		return;
	for (i = 0; i < a->nr_members; i++) {
		struct mqs_member *m = &a->members[i];

		/*
		 * Notice a removal nothing has told yet, so that its
		 * member_gone goes out in this pass; array_failed below
		 * follows only from the states read here, and a change after
		 * this read queues this work again.
		 */
		if (mqs_member_note_gone(m))
			set_bit(MQS_EV_GONE, &m->events);
		if (atomic_read(&m->state) != MQSTRIPE_MEMBER_OK)
			failed = true;
		if (test_and_clear_bit(MQS_EV_GONE, &m->events)) {
			clear_bit(MQS_EV_FAULTY, &m->events);
			mqs_send_event(a, "member_gone", m);
		} else if (test_and_clear_bit(MQS_EV_FAULTY, &m->events)) {
			mqs_send_event(a, "member_faulty", m);
		}
		if (test_and_clear_bit(MQS_EV_SLOW, &m->events))
			mqs_send_event(a, "member_slow", m);
		if (test_and_clear_bit(MQS_EV_SLOW_CLEARED, &m->events))
			mqs_send_event(a, "member_slow_cleared", m);
	}
	if (failed && !test_and_set_bit(MQS_ARRAY_FAILED_SENT, &a->flags))
		mqs_send_event(a, "array_failed", NULL);
	/* poll() on the state and members attributes wakes up */
	kobj = &disk_to_dev(a->disk)->kobj;
	sysfs_notify(kobj, "mqstripe", "state");
	sysfs_notify(kobj, "mqstripe", "members");
	sysfs_notify(kobj, "mqstripe", "io_stats");
}

/**
 * mqs_member_event() - a member changed state: queue its uevent
 * @m: the member.
 * @ev: MQS_EV_*.
 *
 * Context: any.
 */
void mqs_member_event(struct mqs_member *m, int ev)
{
	set_bit(ev, &m->events);
	schedule_work(&m->array->event_work);
}

/**
 * mqs_member_failed() - account a failed member bio
 * @m: the member.
 * @op: what failed.
 * @flush: it was an empty flush (a PREFLUSH write without data).
 * @status: the member's status.
 *
 * Called from bio completion (any context).  Counts the error, keeps the
 * first block status, marks the member faulty and, on the first failure,
 * has a change uevent sent for it (MQSTRIPE_EVENT=member_faulty) from
 * process context.  A member whose disk went away is marked gone instead;
 * its member_gone uevent is sent once, by whoever noticed the removal
 * first (->mark_dead, this, or a look at the member's state).  Log lines
 * are rate-limited.
 */
void mqs_member_failed(struct mqs_member *m, mqs_req_op_t op, bool flush,
		       blk_status_t status)
{
	struct mqs_array *a = m->array;

	if (flush)
		atomic64_inc(&m->flush_errors);
	else if (op == REQ_OP_READ)
		atomic64_inc(&m->read_errors);
	else
		atomic64_inc(&m->write_errors);
	pr_err_ratelimited("%s: member %u (%pg): %s error %d\n",
			   a->disk->disk_name, m->slot, m->bdev,
			   flush ? "FLUSH" : blk_op_str(op),
			   blk_status_to_errno(status));
	atomic_cmpxchg(&m->first_status, 0, (__force int)status);
	/*
	 * A member disk that was removed fails every bio.  Kernels without
	 * holder ops (before 6.8) tell us no other way: look at the disk.
	 */
	if (mqs_member_disk_gone(m)) {
		if (mqs_member_set_gone(m))
			mqs_member_event(m, MQS_EV_GONE);
		return;
	}
	if (atomic_cmpxchg(&m->state, MQSTRIPE_MEMBER_OK,
			   MQSTRIPE_MEMBER_FAULTY) == MQSTRIPE_MEMBER_OK)
		mqs_member_event(m, MQS_EV_FAULTY);
}

/**
 * mqs_member_refused() - a member refused discard or write-zeroes
 * @m: the member.
 * @op: REQ_OP_DISCARD or REQ_OP_WRITE_ZEROES.
 *
 * Called from bio completion (any context), before the array request ends,
 * when the member answered BLK_STS_NOTSUPP: it lost the operation at
 * runtime (sd and nvme drop write-zeroes after an Invalid Opcode, a dm
 * member can be reloaded onto a target without it).  That is no fault of
 * the member, whose data is intact: the array stops offering the operation,
 * as dm does (dm_io_complete() in drivers/md/dm.c), and the request fails
 * with EOPNOTSUPP, after which blkdev_issue_zeroout() writes zeroes
 * instead.  One log line per array and operation.
 */
void mqs_member_refused(struct mqs_member *m, mqs_req_op_t op)
{
	struct mqs_array *a = m->array;
	bool discard = op == REQ_OP_DISCARD;

	mqs_queue_disable_op(a->disk->queue, op);
	if (!test_and_set_bit(discard ? MQS_ARRAY_NO_DISCARD :
			      MQS_ARRAY_NO_WRITE_ZEROES, &a->flags))
		pr_warn("%s: member %u (%pg) does not support %s: no longer offered by the array\n",
			a->disk->disk_name, m->slot, m->bdev,
			discard ? "discard" : "write-zeroes");
}

/**
 * mqs_member_lost_feature() - a member refused a NOWAIT or polled bio
 * @m: the member.
 * @opf: the refused read or write bio's flags.
 *
 * Called from bio completion (any context), before the array request ends,
 * when a member answered a read or write that had REQ_NOWAIT or REQ_POLLED
 * with BLK_STS_NOTSUPP: the member no longer offers NOWAIT or polling
 * (submit_bio_noacct(), __submit_bio() in block/blk-core.c and
 * blk_mq_submit_bio() in block/blk-mq.c refuse such a bio with NOTSUPP
 * before it reaches the driver): a dm member reloaded onto a target
 * without them, an NVMe controller reset that brought no poll queues.
 * That is no fault of the member, whose data is intact.  The caller has
 * the request made again without REQ_NOWAIT (BLK_STS_AGAIN, mqs_put_cmd():
 * from kblockd, where it may wait), and the array stops polling member
 * bios at once (@a->poll: polled requests complete by interrupt).  The
 * array goes on offering NOWAIT and polling: the block layer decides
 * REQ_NOWAIT for a file when it is opened (blkdev_open() sets FMODE_NOWAIT
 * from bdev_nowait()), so a file opened before the member changed would
 * meet EOPNOTSUPP from the array for ever (as it does from a dm device
 * reloaded without NOWAIT); each NOWAIT request that reaches such a member
 * is made again instead.  A bio that had both flags costs NOWAIT first,
 * unless the member clearly lost polling too, so a request made again
 * always has one flag fewer.  One log line per array and feature.
 */
void mqs_member_lost_feature(struct mqs_member *m, blk_opf_t opf)
{
	struct mqs_array *a = m->array;
	bool nowait = (opf & REQ_NOWAIT) && !bdev_nowait(m->bdev);

	if ((opf & MQS_REQ_POLLED) &&
	    (!nowait || !mqs_bdev_can_poll(m->bdev))) {
		WRITE_ONCE(a->poll, false);
		if (!test_and_set_bit(MQS_ARRAY_NO_POLL, &a->flags))
			pr_warn("%s: member %u (%pg) no longer polls: the array's member IO is no longer polled\n",
				a->disk->disk_name, m->slot, m->bdev);
	}
	if (nowait && !test_and_set_bit(MQS_ARRAY_NO_NOWAIT, &a->flags))
		pr_warn("%s: member %u (%pg) no longer supports NOWAIT: NOWAIT IO of the array is made again without it there\n",
			a->disk->disk_name, m->slot, m->bdev);
}

/**
 * mqs_array_failed() - does any member of @a not answer?
 * @a: the array.
 *
 * Return: true when a member is faulty or gone.
 */
bool mqs_array_failed(struct mqs_array *a)
{
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		if (mqs_member_state(&a->members[i]) != MQSTRIPE_MEMBER_OK)
			return true;
	return false;
}

#ifdef MQS_HAVE_HOLDER_OPS
/* Called with bdev->bd_holder_lock held; drops it (block/bdev.c). */
static void mqs_member_mark_dead(struct block_device *bdev, bool surprise)
{
	struct mqs_array *a = bdev->bd_holder;
	u32 i;

	for (i = 0; i < a->nr_members; i++) {
		struct mqs_member *m = &a->members[i];

		if (m->bdev == bdev && mqs_member_set_gone(m))
			mqs_member_event(m, MQS_EV_GONE);
	}
	mutex_unlock(&bdev->bd_holder_lock);
}

static const struct blk_holder_ops mqs_holder_ops = {
	.mark_dead = mqs_member_mark_dead,
};

#define MQS_HOLDER_OPS (&mqs_holder_ops)
#else
#define MQS_HOLDER_OPS NULL
#endif

/* ---- block device operations --------------------------------------- */

#ifdef HAVE_BLOCK_OPEN_GENDISK
static int mqs_open(struct gendisk *disk, blk_mode_t mode)
{
	struct mqs_array *a = disk->private_data;
#else
static int mqs_open(struct block_device *bdev, fmode_t mode)
{
	struct mqs_array *a = bdev->bd_disk->private_data;
#endif
	/* called with disk->open_mutex held, as the removal sets dying */
	return READ_ONCE(a->dying) ? -ENXIO : 0;
}

/*
 * BLKROSET: an array started read-only stays so (its members are claimed
 * read-only; md refuses the same in md_set_read_only()).
 */
static int mqs_set_read_only(struct block_device *bdev, bool ro)
{
	struct mqs_array *a = bdev->bd_disk->private_data;

	return !ro && a->readonly ? -EROFS : 0;
}

/*
 * The last of an array, once nothing can reach it: its tag set (the queue
 * stopped using it in del_gendisk(), or blk_cleanup_disk() before 5.18),
 * its bio set, its index (so that a new array cannot take the number of a
 * disk still held) and itself.
 */
static void mqs_free_array(struct mqs_array *a)
{
	blk_mq_free_tag_set(&a->tag_set);
	bioset_exit(&a->bs);
	ida_free(&mqs_index_ida, a->index);
	kvfree(a->zones);
	kfree(a);
	if (atomic_dec_and_test(&mqs_nr_arrays))
		wake_up(&mqs_arrays_freed);
}

#ifdef HAVE_BLOCK_FREE_DISK
/*
 * The disk's last reference went (disk_release(), block/genhd.c): an
 * opener that held the disk across its removal has closed it.
 */
static void mqs_free_disk(struct gendisk *disk)
{
	mqs_free_array(disk->private_data);
}
#endif

static const struct block_device_operations mqs_fops = {
	.owner		= THIS_MODULE,
	.open		= mqs_open,
	.set_read_only	= mqs_set_read_only,
#ifdef HAVE_BLOCK_FREE_DISK
	.free_disk	= mqs_free_disk,
#endif
};

/* The creator's reference of an added disk: the array goes with the last. */
static void mqs_put_disk(struct mqs_array *a)
{
	mqs_cleanup_disk(a->disk);
#ifndef HAVE_BLOCK_FREE_DISK
	/* before 5.18: no ->free_disk; a REMOVE has checked for openers */
	mqs_free_array(a);
#endif
}

/*
 * The default queue depth: what the members take at once, summed (each
 * member's nr_requests: the requests of one of its hardware contexts, or
 * of its scheduler; BLKDEV_DEFAULT_RQ for a bio-based member such as dm),
 * at least MQSTRIPE_DEFAULT_QUEUE_DEPTH and at most
 * MQSTRIPE_MAX_QUEUE_DEPTH.  More requests than that would only wait in
 * ->queue_rq() for member tags.
 */
static u32 mqs_default_queue_depth(const struct mqs_array *a)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < a->nr_members; i++)
		sum += bdev_get_queue(a->members[i].bdev)->nr_requests;
	return clamp_t(u64, sum, MQSTRIPE_DEFAULT_QUEUE_DEPTH,
		       MQSTRIPE_MAX_QUEUE_DEPTH);
}

/* bio_vecs inside a bio of a bio set (BIO_INLINE_VECS, block/blk.h) */
#define MQS_BIO_INLINE_VECS	4

/*
 * The memory an array allocates up front, from the sizes of what blk-mq
 * and the bio set allocate (blk_mq_alloc_rqs() and blk_mq_alloc_rq_map()
 * in block/blk-mq.c, bioset_init() in block/bio.c): each request with its
 * driver data, cache-line aligned, and two pointers to it; each hardware
 * context with ours; the reserve of member bios, each with its largest
 * bio_vec array (BIO_MAX_VECS) from the bio_vec reserve.  Not counted:
 * blk-mq's per-CPU software contexts, bitmaps, and the requests of an IO
 * scheduler when one is set (nr_requests more).
 */
static u64 mqs_memory_bytes(const struct mqs_array *a)
{
	u64 rq = round_up(sizeof(struct request) + sizeof(struct mqs_cmd),
			  cache_line_size()) + 2 * sizeof(struct request *);
	u64 hctx = sizeof(struct blk_mq_hw_ctx) + sizeof(struct mqs_hctx);
	u64 bio = offsetof(struct mqs_bio, bio) + sizeof(struct bio) +
		  (MQS_BIO_INLINE_VECS + BIO_MAX_VECS) * sizeof(struct bio_vec);

	return a->queue_depth * rq + a->tag_set.nr_hw_queues * hctx +
	       MQS_BIO_POOL_SIZE * bio;
}

/* ---- sysfs: /sys/block/mqstripeN/mqstripe/ -------------------------- */

static struct mqs_array *mqs_dev_array(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t uuid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%pUb\n", mqs_dev_array(dev)->uuid);
}
static DEVICE_ATTR_RO(uuid);

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct mqs_array *a = mqs_dev_array(dev);
	char name[MQSTRIPE_NAME_LEN];

	spin_lock(&a->name_lock);
	memcpy(name, a->name, sizeof(name));
	spin_unlock(&a->name_lock);
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(name);

static ssize_t chunk_bytes_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mqs_dev_array(dev)->chunk_bytes);
}
static DEVICE_ATTR_RO(chunk_bytes);

static ssize_t data_offset_bytes_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", mqs_dev_array(dev)->data_offset_bytes);
}
static DEVICE_ATTR_RO(data_offset_bytes);

static const char *const mqs_member_state_names[] = {
	[MQSTRIPE_MEMBER_OK] = "ok",
	[MQSTRIPE_MEMBER_FAULTY] = "faulty",
	[MQSTRIPE_MEMBER_GONE] = "gone",
};

/*
 * "members" and "errors" have one line per slot: up to
 * MQSTRIPE_MAX_MEMBERS lines, more than the page a text attribute may
 * fill (sysfs_emit()).  They are binary attributes, which sysfs reads at
 * any offset: each read formats the text up to the end of the part asked
 * for and copies that part out.  A reader that needs several read() calls may see counts that
 * moved between them, as on any re-read.
 */
#define MQS_SLOT_LINE_MAX	80	/* longest line of either, with room */
/* io_stats: 9 numbers of up to 20 digits; latency_hist: 33 */
#define MQS_IO_LINE_MAX		200
#define MQS_HIST_LINE_MAX	(34 * 21 + 2)

typedef int (*mqs_slot_fmt_t)(struct mqs_array *a, u32 slot, char *buf,
			      size_t size);

/* "slot major:minor name state" */
static int mqs_member_line(struct mqs_array *a, u32 slot, char *buf,
			   size_t size)
{
	struct mqs_member *m = &a->members[slot];

	return scnprintf(buf, size, "%u %u:%u %pg %s\n", m->slot,
			 MAJOR(m->dev), MINOR(m->dev), m->bdev,
			 mqs_member_state_names[mqs_member_state(m)]);
}

/* "slot read_errors write_errors flush_errors" */
static int mqs_errors_line(struct mqs_array *a, u32 slot, char *buf,
			   size_t size)
{
	const struct mqs_member *m = &a->members[slot];

	return scnprintf(buf, size, "%u %lld %lld %lld\n", m->slot,
			 atomic64_read(&m->read_errors),
			 atomic64_read(&m->write_errors),
			 atomic64_read(&m->flush_errors));
}

static ssize_t mqs_slots_read(struct kobject *kobj, mqs_slot_fmt_t fmt,
			      size_t line_max, char *buf, loff_t off,
			      size_t count)
{
	struct mqs_array *a = mqs_dev_array(kobj_to_dev(kobj));
	size_t size = (size_t)a->nr_members * line_max, len = 0;
	ssize_t ret;
	char *text;
	u32 i;

	text = kvmalloc(size, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	/* lines past the part asked for are not needed */
	for (i = 0; i < a->nr_members && len < off + count; i++)
		len += fmt(a, i, text + len, size - len);
	ret = memory_read_from_buffer(buf, count, &off, text, len);
	kvfree(text);
	return ret;
}

/* A file of one line per slot: its line and their longest length. */
struct mqs_slot_file {
	mqs_slot_fmt_t fmt;
	size_t line_max;
};

static ssize_t mqs_slot_file_read(struct file *file, struct kobject *kobj,
				  mqs_bin_attr_t *attr, char *buf, loff_t off,
				  size_t count)
{
	const struct mqs_slot_file *f = attr->private;

	return mqs_slots_read(kobj, f->fmt, f->line_max, buf, off, count);
}

/* bin_attr_NAME: the read-only file NAME of one @fmt line per slot */
#define MQS_SLOT_FILE(_n, _fmt, _line_max)				\
	static const struct mqs_slot_file mqs_##_n##_file = {		\
		_fmt, _line_max						\
	};								\
	static mqs_bin_attr_t bin_attr_##_n = {				\
		.attr = { .name = #_n, .mode = 0444 },			\
		.read = mqs_slot_file_read,				\
		.private = (void *)&mqs_##_n##_file,			\
	}

MQS_SLOT_FILE(members, mqs_member_line, MQS_SLOT_LINE_MAX);
MQS_SLOT_FILE(errors, mqs_errors_line, MQS_SLOT_LINE_MAX);
MQS_SLOT_FILE(io_stats, mqs_stats_io_line, MQS_IO_LINE_MAX);
MQS_SLOT_FILE(latency_hist, mqs_stats_hist_line, MQS_HIST_LINE_MAX);

/**
 * struct mqs_tunable - a u32 tunable of the array in sysfs
 * @attr: its attribute.
 * @offset: where it is in struct mqs_array.
 * @min: smallest value accepted.
 * @max: largest value accepted.
 */
struct mqs_tunable {
	struct device_attribute attr;
	size_t offset;
	u32 min;
	u32 max;
};

static u32 *mqs_tunable_field(struct device *dev,
			      struct device_attribute *attr)
{
	const struct mqs_tunable *t = container_of(attr, struct mqs_tunable,
						   attr);

	return (u32 *)((char *)mqs_dev_array(dev) + t->offset);
}

static ssize_t mqs_tunable_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(*mqs_tunable_field(dev, attr)));
}

/* @min..@max, else EINVAL */
static ssize_t mqs_tunable_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	const struct mqs_tunable *t = container_of(attr, struct mqs_tunable,
						   attr);
	u32 v;

	if (kstrtou32(buf, 10, &v) || v < t->min || v > t->max)
		return -EINVAL;
	WRITE_ONCE(*mqs_tunable_field(dev, attr), v);
	return count;
}

static struct mqs_tunable mqs_slow_factor = {
	__ATTR(slow_factor, 0644, mqs_tunable_show, mqs_tunable_store),
	offsetof(struct mqs_array, slow_factor), 2, 1000,
};

static struct mqs_tunable mqs_slow_min_us = {
	__ATTR(slow_min_us, 0644, mqs_tunable_show, mqs_tunable_store),
	offsetof(struct mqs_array, slow_min_us), 0, 60 * USEC_PER_SEC,
};

static struct mqs_tunable mqs_slow_windows = {
	__ATTR(slow_windows, 0644, mqs_tunable_show, mqs_tunable_store),
	offsetof(struct mqs_array, slow_windows), 1, 60,
};

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", mqs_array_failed(mqs_dev_array(dev)) ?
			  "failed" : "active");
}
static DEVICE_ATTR_RO(state);

static ssize_t nr_members_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", mqs_dev_array(dev)->nr_members);
}
static DEVICE_ATTR_RO(nr_members);

static ssize_t memory_bytes_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", mqs_memory_bytes(mqs_dev_array(dev)));
}
static DEVICE_ATTR_RO(memory_bytes);

static ssize_t readonly_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", mqs_dev_array(dev)->readonly);
}
static DEVICE_ATTR_RO(readonly);

static struct attribute *mqs_attrs[] = {
	&dev_attr_uuid.attr,
	&dev_attr_name.attr,
	&dev_attr_chunk_bytes.attr,
	&dev_attr_data_offset_bytes.attr,
	&dev_attr_nr_members.attr,
	&dev_attr_state.attr,
	&dev_attr_memory_bytes.attr,
	&dev_attr_readonly.attr,
	&mqs_slow_factor.attr.attr,
	&mqs_slow_min_us.attr.attr,
	&mqs_slow_windows.attr.attr,
	NULL,
};

static mqs_bin_attr_t *mqs_bin_attrs[] = {
	&bin_attr_members,
	&bin_attr_errors,
	&bin_attr_io_stats,
	&bin_attr_latency_hist,
	NULL,
};

static const struct attribute_group mqs_attr_group = {
	.name = "mqstripe",
	.attrs = mqs_attrs,
	.bin_attrs = mqs_bin_attrs,
};

const struct attribute_group *mqs_attr_groups[] = {
	&mqs_attr_group,
	NULL,
};

/* ---- create ----------------------------------------------------------- */

static bool mqs_name_valid(const char *name)
{
	size_t len = strnlen(name, MQSTRIPE_NAME_LEN);
	size_t i;

	if (len == MQSTRIPE_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("._-", name[i]))
			return false;
	return true;
}

static int mqs_fail(struct mqstripe_create *c, u32 member, u32 code, int err)
{
	c->error_member = member;
	c->error_code = code;
	return err;
}

/*
 * The segments of MQSTRIPE_CREATE_F_SEGMENTS (uapi/mqstripe.h): with
 * MQSTRIPE_CREATE_F_MEMBER_SIZES, at least two, none empty before the
 * last, adding up to the members.  Sets @widest to the members of the
 * widest segment (without the flag: every member).
 */
static int mqs_check_segments(struct mqstripe_create *c, u32 *widest)
{
	u32 i, nr = 0;
	u64 sum = 0;

	*widest = c->nr_members;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS))
		return 0;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES))
		goto bad;
	*widest = 0;
	for (i = 0; i < MQSTRIPE_MAX_SEGMENTS; i++) {
		u32 n = c->segment_members[i];

		if (!n)
			continue;
		/* the first zero entry ends the list */
		if (i != nr)
			goto bad;
		nr++;
		sum += n;
		*widest = max(*widest, n);
	}
	if (nr < 2 || sum != c->nr_members)
		goto bad;
	return 0;
bad:
	return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY, -EINVAL);
}

/* Geometry checks that need no member (dm-stripe's ctr checks first). */
static int mqs_check_geometry(struct mqstripe_create *c)
{
	u32 widest;
	u64 width;
	int err;

	if (!mqs_name_valid(c->name))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_NAME,
				-EINVAL);
	if (c->nr_members < MQSTRIPE_MIN_MEMBERS ||
	    c->nr_members > MQSTRIPE_MAX_MEMBERS)
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	/* 0: sized from the members once they are claimed */
	if (c->queue_depth &&
	    (c->queue_depth < MQSTRIPE_MIN_QUEUE_DEPTH ||
	     c->queue_depth > MQSTRIPE_MAX_QUEUE_DEPTH))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_QUEUE_DEPTH,
				-EINVAL);
	if (!c->chunk_bytes)
		c->chunk_bytes = MQSTRIPE_DEFAULT_CHUNK_BYTES;
	if (c->chunk_bytes < MQSTRIPE_MIN_CHUNK_BYTES ||
	    c->chunk_bytes > MQSTRIPE_MAX_CHUNK_BYTES ||
	    !is_power_of_2(c->chunk_bytes))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	err = mqs_check_segments(c, &widest);
	if (err)
		return err;
	/* a stripe is over one segment's members at most */
	if (check_mul_overflow(c->chunk_bytes, (u64)widest, &width) ||
	    width > MQSTRIPE_MAX_STRIPE_WIDTH_BYTES)
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_DATA_OFFSET))
		c->data_offset_bytes = MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES;
	if (c->data_offset_bytes % MQSTRIPE_DATA_OFFSET_ALIGN_BYTES ||
	    c->data_offset_bytes > (U64_MAX >> 1))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	/* data over the superblock area only when the caller says so */
	if (c->data_offset_bytes < MQSTRIPE_SUPERBLOCK_END_BYTES &&
	    !(c->hdr.flags & MQSTRIPE_CREATE_F_NO_SUPERBLOCK))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	/* the recorded size: whole chunks; offset + size cannot overflow */
	if ((c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES) &&
	    (!c->member_data_bytes || c->member_data_bytes % c->chunk_bytes ||
	     c->member_data_bytes > (U64_MAX >> 1)))
		return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_GEOMETRY,
				-EINVAL);
	return 0;
}

/*
 * Each member's own size (MQSTRIPE_CREATE_F_MEMBER_SIZES): whole chunks,
 * offset + size cannot overflow, and the sum fits the block layer.
 */
static int mqs_check_sizes(struct mqstripe_create *c, const u64 *sizes)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < c->nr_members; i++) {
		if (!sizes[i] || sizes[i] % c->chunk_bytes ||
		    sizes[i] > (U64_MAX >> 1))
			return mqs_fail(c, i, MQSTRIPE_ERR_GEOMETRY, -EINVAL);
		if (check_add_overflow(sum, sizes[i], &sum) || sum > LLONG_MAX)
			return mqs_fail(c, MQSTRIPE_NO_MEMBER,
					MQSTRIPE_ERR_GEOMETRY, -EINVAL);
	}
	return 0;
}

/*
 * The members' data sizes of an array made with
 * MQSTRIPE_CREATE_F_MEMBER_SIZES: one zone when they are equal and there
 * is one segment (the IO path needs nothing but @a->geom), else the zone
 * table (mqs_segments_build(), mqstripe_map.h) of one allocation, the
 * zones' slot lists after the zones, and @a->geom the first zone's.  Sets
 * @capacity to the array's sectors, the sum of the sizes.
 */
static int mqs_setup_zones(struct mqs_array *a, const u64 *sizes,
			   sector_t *capacity)
{
	u32 nr, nr_slots, i, n = a->nr_members;
	u64 *sectors;

	sectors = kmalloc_array(n, sizeof(*sectors), GFP_KERNEL);
	if (!sectors)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sectors[i] = sizes[i] >> SECTOR_SHIFT;
		a->members[i].data_sectors = sectors[i];
	}
	nr = mqs_segments_count(sectors, a->segment_members, a->nr_segments,
				&nr_slots);
	/* zone 0's: the smallest member of the first segment */
	a->member_data_sectors = mqs_zone_next_size(sectors,
						    a->segment_members[0], 0);
	*capacity = a->member_data_sectors * n;
	if (nr > 1) {
		a->zones = kvzalloc(size_add(array_size(nr, sizeof(*a->zones)),
					     array_size(nr_slots, sizeof(u32))),
				    GFP_KERNEL);
		if (!a->zones) {
			kfree(sectors);
			return -ENOMEM;
		}
		*capacity = mqs_segments_build(a->geom.chunk_shift,
					       a->geom.data_offset_sectors,
					       sectors, a->segment_members,
					       a->nr_segments, a->zones,
					       (u32 *)(a->zones + nr));
		a->nr_zones = nr;
		/* zone 0 is over slots 0..n-1: @a->geom maps it the same */
		a->geom = a->zones[0].geom;
	}
	kfree(sectors);
	return 0;
}

static int mqs_check_unique(struct mqstripe_create *c)
{
	struct mqs_array *a;

	lockdep_assert_held(&mqs_ctl_mutex);
	list_for_each_entry(a, &mqs_arrays, node) {
		if (c->name[0] && !strcmp(a->name, c->name))
			return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_NAME_EXISTS,
				-EEXIST);
		if (!memcmp(a->uuid, c->uuid, MQSTRIPE_UUID_LEN))
			return mqs_fail(c, MQSTRIPE_NO_MEMBER, MQSTRIPE_ERR_UUID_EXISTS,
				-EEXIST);
	}
	return 0;
}

static void mqs_release_members(struct mqs_array *a, u32 nr)
{
	while (nr--) {
		struct mqs_member *m = &a->members[nr];

		mqs_close_member(m->handle, !a->readonly, a);
		m->bdev = NULL;
	}
}

/* Look up, check and claim member @i; on failure nothing is held. */
static int mqs_claim_member(struct mqs_array *a, struct mqstripe_create *c,
			    u32 i, s32 fd, const u64 *sizes)
{
	struct mqs_member *m = &a->members[i];
	u64 need = c->data_offset_bytes + c->chunk_bytes;
	struct block_device *bdev;
	struct inode *inode;
	struct file *f;
	dev_t dev;
	u32 j;

	/* with a recorded size, every member must hold all of it */
	if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES)
		need = c->data_offset_bytes + c->member_data_bytes;
	/* and with its own size, all of that */
	if (sizes)
		need = c->data_offset_bytes + sizes[i];
	f = fget(fd);
	if (!f)
		return mqs_fail(c, i, MQSTRIPE_ERR_BAD_FD, -EBADF);
	inode = file_inode(f);
	if (!S_ISBLK(inode->i_mode)) {
		fput(f);
		return mqs_fail(c, i, MQSTRIPE_ERR_NOT_BLOCK, -ENOTBLK);
	}
	dev = inode->i_rdev;
	fput(f);

	/* the same holder may claim a device twice: compare numbers */
	for (j = 0; j < i; j++)
		if (a->members[j].dev == dev)
			return mqs_fail(c, i, MQSTRIPE_ERR_DUPLICATE, -EINVAL);

	bdev = mqs_open_member(dev, !a->readonly, a, MQS_HOLDER_OPS,
			       &m->handle);
	if (IS_ERR(bdev)) {
		int err = PTR_ERR(bdev);

		return mqs_fail(c, i, err == -EBUSY ? MQSTRIPE_ERR_BUSY :
				MQSTRIPE_ERR_OPEN, err);
	}
	/* a disk and one of its partitions overlap */
	for (j = 0; j < i; j++) {
		struct block_device *o = a->members[j].bdev;

		if (o == bdev_whole(bdev) || bdev_whole(o) == bdev) {
			mqs_close_member(m->handle, !a->readonly, a);
			return mqs_fail(c, i, MQSTRIPE_ERR_DUPLICATE, -EINVAL);
		}
	}
	m->bdev = bdev;
	m->dev = dev;
	m->slot = i;
	m->array = a;
	m->size_sectors = bdev_nr_sectors(bdev);
	atomic_set(&m->state, MQSTRIPE_MEMBER_OK);
	atomic64_set(&m->read_errors, 0);
	atomic64_set(&m->write_errors, 0);
	atomic64_set(&m->flush_errors, 0);
	spin_lock_init(&m->flush_lock);
	m->flushes_inflight = 0;
	/* unknown past: the first flush goes everywhere */
	set_bit(MQS_MEMBER_DIRTY, &m->dirty);

	if (bdev_is_zoned(bdev)) {
		c->error_code = MQSTRIPE_ERR_ZONED;
		goto out_close;
	}
	if (c->chunk_bytes < bdev_physical_block_size(bdev)) {
		c->error_code = MQSTRIPE_ERR_CHUNK_LT_PBS;
		goto out_close;
	}
	if (c->data_offset_bytes % bdev_physical_block_size(bdev)) {
		c->error_code = MQSTRIPE_ERR_OFFSET_ALIGN;
		goto out_close;
	}
	if ((u64)m->size_sectors << SECTOR_SHIFT < need) {
		mqs_close_member(m->handle, !a->readonly, a);
		m->bdev = NULL;
		return mqs_fail(c, i, MQSTRIPE_ERR_TOO_SMALL, -ENOSPC);
	}
	return 0;

out_close:
	mqs_close_member(m->handle, !a->readonly, a);
	m->bdev = NULL;
	c->error_member = i;
	return -EINVAL;
}

static int mqs_init_tag_set(struct mqs_array *a)
{
	struct blk_mq_tag_set *set = &a->tag_set;
	u32 i;

	/* polled IO only when every member can poll (as blk_stack_limits()) */
	a->poll = MQS_CAN_POLL;
	for (i = 0; i < a->nr_members; i++)
		if (!mqs_bdev_can_poll(a->members[i].bdev))
			a->poll = false;

	memset(set, 0, sizeof(*set));
	set->ops = &mqs_mq_ops;
	/*
	 * One hardware context per possible CPU (mqs_map_queues() maps CPU n
	 * to context n); with polling, as many poll contexts after them.
	 */
	set->nr_hw_queues = nr_cpu_ids;
	set->nr_maps = 1;
	set->map[HCTX_TYPE_DEFAULT].nr_queues = nr_cpu_ids;
	if (a->poll) {
		set->nr_maps = HCTX_TYPE_POLL + 1;
		set->map[HCTX_TYPE_POLL].nr_queues = nr_cpu_ids;
		set->map[HCTX_TYPE_POLL].queue_offset = nr_cpu_ids;
		set->nr_hw_queues += nr_cpu_ids;
	}
	/*
	 * One tag space for all contexts (BLK_MQ_F_TAG_HCTX_SHARED): the
	 * requests of the array, and their memory, do not grow with the CPUs.
	 * With shared tags the block layer would pick mq-deadline by default
	 * (elevator_get_default() in block/elevator.c); the array has one
	 * context per CPU and, like any multi-queue device, no scheduler
	 * until the admin sets one.
	 */
	set->queue_depth = a->queue_depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = sizeof(struct mqs_cmd);
	set->flags = MQS_TAG_SET_MERGE_FLAG | BLK_MQ_F_BLOCKING |
		     BLK_MQ_F_STACKING | BLK_MQ_F_TAG_HCTX_SHARED |
		     BLK_MQ_F_NO_SCHED_BY_DEFAULT;
	set->driver_data = a;
	return blk_mq_alloc_tag_set(set);
}

/*
 * A flush of the array completes from inside a member's flush_end_io(),
 * which holds the member's fq->mq_flush_lock, and our flush_end_io() then
 * takes the array's: two locks of one lockdep class, reported as "possible
 * recursive locking".  They are different queues; give ours a class of its
 * own, as nvme-loop does.  A member can be an array itself (an array on an
 * array): each level of such a stack gets a class of its own, its depth
 * (0 over plain devices, else one more than its deepest member array), so
 * that the lower array's lock held while the upper one's is taken is not
 * taken for recursion either.  A level past the last class would share
 * one with the level below it: CREATE refuses it (MQSTRIPE_ERR_STACK_DEPTH,
 * mqs_check_stack_depth()).  Only a member that is an array itself counts:
 * an array under another driver (dm, md) between two arrays is not seen.
 * The hardware contexts exist from the disk's allocation on and are never
 * reallocated (nr_hw_queues does not change).
 */
static struct lock_class_key mqs_fq_lock_keys[MQSTRIPE_MAX_STACK_DEPTH];

/*
 * The array's depth in a stack of arrays (see above), or a refusal naming
 * the member array that is already at the deepest level.  The members are
 * claimed by us: a member array cannot go away meanwhile.
 */
static int mqs_check_stack_depth(struct mqs_array *a, struct mqstripe_create *c)
{
	u32 i, depth = 0;

	for (i = 0; i < a->nr_members; i++) {
		struct gendisk *g = a->members[i].bdev->bd_disk;
		u32 below;

		if (g->fops != &mqs_fops)
			continue;
		below = ((struct mqs_array *)g->private_data)->depth;
		if (below + 1 >= MQSTRIPE_MAX_STACK_DEPTH)
			return mqs_fail(c, i, MQSTRIPE_ERR_STACK_DEPTH, -EINVAL);
		depth = max(depth, below + 1);
	}
	a->depth = depth;
	return 0;
}

static void mqs_set_fq_lock_class(struct mqs_array *a)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	queue_for_each_hw_ctx(a->disk->queue, hctx, i)
		blk_mq_hctx_set_fq_lock_class(hctx, &mqs_fq_lock_keys[a->depth]);
}

/*
 * bd_link_disk_holder() with the member's holders directory pinned first,
 * as block/holder.c does itself since 6.2: take a reference under the
 * member disk's open_mutex, and only while the disk is live (del_gendisk()
 * unhashes it under that mutex before it drops its own reference and
 * removes the directory).  6.1's version takes its reference only after
 * it created the links, so a member deleted meanwhile (hot removal during
 * CREATE) freed the directory under sysfs_create_link().  Returns 0,
 * -ENODEV for a member already going away, or bd_link_disk_holder()'s
 * error.
 */
static int mqs_link_holder(struct block_device *bdev, struct gendisk *disk)
{
	struct gendisk *member_disk = bdev->bd_disk;
	struct kobject *dir;
	int err;

	mutex_lock(&member_disk->open_mutex);
	if (!disk_live(member_disk)) {
		mutex_unlock(&member_disk->open_mutex);
		return -ENODEV;
	}
	dir = kobject_get(bdev->bd_holder_dir);
	mutex_unlock(&member_disk->open_mutex);

	err = bd_link_disk_holder(bdev, disk);
	kobject_put(dir);
	return err;
}

static void mqs_unlink_holders(struct mqs_array *a)
{
	while (a->holders_linked) {
		a->holders_linked--;
		bd_unlink_disk_holder(a->members[a->holders_linked].bdev,
				      a->disk);
	}
}

/*
 * Tear down an array whose disk was added: @a->dying is set and @a is off
 * mqs_arrays.  Openers may remain only when a create failed late; their
 * IO ends with del_gendisk(), and the array goes with the disk's last
 * reference (mqs_put_disk()).
 */
static void mqs_teardown(struct mqs_array *a)
{
	mqs_unlink_holders(a);
	del_gendisk(a->disk);
	/*
	 * No IO is left (del_gendisk drained the queue) and a->dying is set,
	 * so a member event queued from now on does nothing; wait for one
	 * that runs, release the members (no mark_dead after that), wait
	 * again.
	 */
	cancel_work_sync(&a->event_work);
	mqs_stats_exit(a);
	mqs_release_members(a, a->nr_members);
	cancel_work_sync(&a->event_work);
	mqs_put_disk(a);
}

/* A failed create gives back the name and UUID it reserved. */
static void mqs_unreserve(struct mqs_array *a)
{
	mutex_lock(&mqs_ctl_mutex);
	list_del(&a->node);
	mutex_unlock(&mqs_ctl_mutex);
}

/**
 * mqs_array_create() - MQSTRIPE_IOC_CREATE
 * @c: the command, checked for header and reserved fields by the caller;
 *	defaults are filled in, @c->index, @c->error_member and
 *	@c->error_code are written.
 * @fds: @c->nr_members file descriptors of the members, in slot order.
 * @sizes: with MQSTRIPE_CREATE_F_MEMBER_SIZES, @c->nr_members data sizes
 *	in bytes, in slot order (zones when they differ, and with
 *	MQSTRIPE_CREATE_F_SEGMENTS each segment's zones after the segment
 *	before: @c->segment_members); else NULL.
 *
 * Validates the whole geometry, claims every member exclusively, computes
 * the limits and adds /dev/mqstripeN.  On failure everything done is undone
 * in reverse order: no device, no claimed member.  A failure after the
 * disk was added (a member gone before its holder link) removes the disk
 * even while someone has it open: the array is freed with the disk's last
 * reference.
 *
 * Context: process; takes mqs_ctl_mutex only to reserve the name and UUID
 * and to publish the array, not across member opens or device_add_disk().
 * Return: 0 or a negative errno (see struct mqstripe_create).
 */
int mqs_array_create(struct mqstripe_create *c, const s32 *fds,
		     const u64 *sizes)
{
	struct mqs_limits ml;
	struct mqs_array *a;
	sector_t min_size = ~(sector_t)0, capacity;
	u64 chunk_sectors;
	u32 i, claimed = 0;
	int err;

	c->error_member = MQSTRIPE_NO_MEMBER;
	c->error_code = MQSTRIPE_ERR_NONE;
	err = mqs_check_geometry(c);
	if (!err && sizes)
		err = mqs_check_sizes(c, sizes);
	if (err)
		return err;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_UUID))
		generate_random_uuid(c->uuid);

	a = kzalloc(struct_size(a, members, c->nr_members), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	atomic_inc(&mqs_nr_arrays);
	a->nr_members = c->nr_members;
	a->chunk_bytes = c->chunk_bytes;
	a->data_offset_bytes = c->data_offset_bytes;
	a->queue_depth = c->queue_depth;
	a->readonly = c->hdr.flags & MQSTRIPE_CREATE_F_READONLY;
	spin_lock_init(&a->name_lock);
	memcpy(a->name, c->name, MQSTRIPE_NAME_LEN);
	memcpy(a->uuid, c->uuid, MQSTRIPE_UUID_LEN);
	INIT_WORK(&a->event_work, mqs_event_work);
	chunk_sectors = a->chunk_bytes >> SECTOR_SHIFT;
	a->geom.nr_members = a->nr_members;
	a->geom.chunk_shift = ilog2(chunk_sectors);
	a->geom.data_offset_sectors = a->data_offset_bytes >> SECTOR_SHIFT;
	a->nr_zones = 1;
	a->nr_segments = 1;
	a->segment_members[0] = a->nr_members;
	if (c->hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS) {
		/* checked: at least two, the rest zero */
		for (i = 0; i < MQSTRIPE_MAX_SEGMENTS; i++)
			if (c->segment_members[i])
				a->nr_segments = i + 1;
		memcpy(a->segment_members, c->segment_members,
		       sizeof(a->segment_members));
	}

	err = mqs_stats_init(a);
	if (err)
		goto out_free;

	/*
	 * Reserve the name and UUID: the array is on mqs_arrays from here,
	 * unpublished (mqs_find() and LIST skip it), and the rest runs
	 * without mqs_ctl_mutex (see the top of this file).
	 */
	mutex_lock(&mqs_ctl_mutex);
	err = mqs_check_unique(c);
	if (!err)
		list_add_tail(&a->node, &mqs_arrays);
	mutex_unlock(&mqs_ctl_mutex);
	if (err)
		goto out_stats_exit;

	for (claimed = 0; claimed < a->nr_members; claimed++) {
		err = mqs_claim_member(a, c, claimed, fds[claimed], sizes);
		if (err)
			goto out_release;
		min_size = min(min_size, a->members[claimed].size_sectors);
	}
	err = mqs_check_stack_depth(a, c);
	if (err)
		goto out_release;
	if (sizes) {
		err = mqs_setup_zones(a, sizes, &capacity);
		if (err)
			goto out_release;
	} else {
		if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES)
			a->member_data_sectors = c->member_data_bytes >>
						 SECTOR_SHIFT;
		else
			a->member_data_sectors =
				round_down(min_size -
					   a->geom.data_offset_sectors,
					   chunk_sectors);
		for (i = 0; i < a->nr_members; i++)
			a->members[i].data_sectors = a->member_data_sectors;
		capacity = a->member_data_sectors * a->nr_members;
	}
	if (!a->queue_depth)
		a->queue_depth = mqs_default_queue_depth(a);

	err = ida_alloc_max(&mqs_index_ida, (MINORMASK >> MQS_PART_SHIFT) - 1,
			    GFP_KERNEL);
	if (err < 0)
		goto out_release;
	a->index = err;

	err = bioset_init(&a->bs, MQS_BIO_POOL_SIZE,
			  offsetof(struct mqs_bio, bio),
			  BIOSET_NEED_BVECS | BIOSET_NEED_RESCUER);
	if (err)
		goto out_free_index;

	err = mqs_init_tag_set(a);
	if (err)
		goto out_exit_bioset;
	/* blk-mq may have settled for less on ENOMEM */
	a->queue_depth = a->tag_set.queue_depth;

	mqs_compute_limits(a, &ml);
	if (ml.integrity_src) {
		/* integrity clones (mqs_io.c) need the bioset's bip pools */
		err = mqs_bioset_integrity_create(&a->bs, MQS_BIO_POOL_SIZE);
		if (err)
			goto out_free_tag_set;
	}
	a->disk = mqs_alloc_disk(&a->tag_set, &ml, a);
	if (IS_ERR(a->disk)) {
		err = PTR_ERR(a->disk);
		goto out_free_tag_set;
	}
	mqs_set_fq_lock_class(a);
	a->disk->major = mqs_major;
	a->disk->first_minor = a->index << MQS_PART_SHIFT;
	a->disk->minors = 1 << MQS_PART_SHIFT;
	a->disk->fops = &mqs_fops;
	a->disk->private_data = a;
	snprintf(a->disk->disk_name, DISK_NAME_LEN, MQSTRIPE_DISK_PREFIX "%d",
		 a->index);
	set_capacity(a->disk, capacity);
	set_disk_ro(a->disk, a->readonly);

	err = device_add_disk(NULL, a->disk, mqs_attr_groups);
	if (err)
		goto out_cleanup_disk;
	mqs_cap_readahead(a->disk);
	/* mqs_event_work() sends from now on (pairs with its acquire) */
	smp_store_release(&a->disk_added, true);
	/*
	 * A member event that came earlier was dropped: send it now.  The
	 * barrier orders the flag before the state reads, as the atomic
	 * state change orders it before the work is queued: either the work
	 * sees the flag or this sees the state.
	 */
	smp_mb();
	if (mqs_array_failed(a))
		schedule_work(&a->event_work);

	/*
	 * Holders are linked after add_disk, unlinked before del_gendisk.
	 * A member that went away since its claim is refused (-ENODEV).
	 */
	for (i = 0; i < a->nr_members; i++) {
		err = mqs_link_holder(a->members[i].bdev, a->disk);
		if (err) {
			mqs_fail(c, i, MQSTRIPE_ERR_OPEN, err);
			goto out_del_disk;
		}
		a->holders_linked++;
	}

	c->index = a->index;
	pr_info("%s: created: %u members, chunk %u bytes, data offset %llu bytes, %llu sectors\n",
		a->disk->disk_name, a->nr_members, a->chunk_bytes,
		a->data_offset_bytes, (u64)get_capacity(a->disk));
	if (a->nr_segments > 1)
		pr_info("%s: %u segments in %u zones, the first zone over the first %u members (%llu sectors of each)\n",
			a->disk->disk_name, a->nr_segments, a->nr_zones,
			a->geom.nr_members, (u64)a->member_data_sectors);
	else if (a->nr_zones > 1)
		pr_info("%s: %u zones of members of unequal size, the first over all %u members (%llu sectors of each)\n",
			a->disk->disk_name, a->nr_zones, a->nr_members,
			(u64)a->member_data_sectors);
	/* REMOVE, INFO and the others find it from here */
	mutex_lock(&mqs_ctl_mutex);
	a->published = true;
	mutex_unlock(&mqs_ctl_mutex);
	return 0;

out_del_disk:
	/*
	 * The disk was added: udev's blkid, or anyone, may have it open.  No
	 * new opener from here (mqs_open()); those there keep the disk, not
	 * the array's IO (del_gendisk() ends that), and the array is freed
	 * with their last reference (mqs_free_disk()).
	 */
	mutex_lock(&a->disk->open_mutex);
	WRITE_ONCE(a->dying, true);
	mutex_unlock(&a->disk->open_mutex);
	mqs_unreserve(a);
	mqs_teardown(a);
	return err;

out_cleanup_disk:
	WRITE_ONCE(a->dying, true);
	cancel_work_sync(&a->event_work);
	/* never added: ->free_disk does not run (disk_release()) */
	mqs_cleanup_disk(a->disk);
out_free_tag_set:
	blk_mq_free_tag_set(&a->tag_set);
out_exit_bioset:
	bioset_exit(&a->bs);
out_free_index:
	ida_free(&mqs_index_ida, a->index);
out_release:
	WRITE_ONCE(a->dying, true);
	mqs_release_members(a, claimed);
	cancel_work_sync(&a->event_work);
	mqs_unreserve(a);
out_stats_exit:
	mqs_stats_exit(a);
out_free:
	kvfree(a->zones);
	kfree(a);
	if (atomic_dec_and_test(&mqs_nr_arrays))
		wake_up(&mqs_arrays_freed);
	return err;
}

/* ---- remove -------------------------------------------------------- */

static struct mqs_array *mqs_find(u32 index)
{
	struct mqs_array *a;

	lockdep_assert_held(&mqs_ctl_mutex);
	list_for_each_entry(a, &mqs_arrays, node)
		if (a->published && a->index == index)
			return a;
	return NULL;
}

/* Tear down an array nobody has open; mqs_ctl_mutex held. */
static void mqs_destroy(struct mqs_array *a)
{
	list_del(&a->node);
	pr_info("%s: stopped\n", a->disk->disk_name);
	mqs_teardown(a);
}

/* Mark @a dying unless it is open; the caller then destroys it. */
static int mqs_start_removal(struct mqs_array *a)
{
	int err = 0;

	mutex_lock(&a->disk->open_mutex);
	if (disk_openers(a->disk))
		err = -EBUSY;
	else
		WRITE_ONCE(a->dying, true);
	mutex_unlock(&a->disk->open_mutex);
	return err;
}

/**
 * mqs_array_remove() - MQSTRIPE_IOC_REMOVE
 * @index: N of /dev/mqstripeN.
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0, -ENODEV when there is no such array, -EBUSY when it is open
 * (nothing changes then).
 */
int mqs_array_remove(u32 index)
{
	struct mqs_array *a;
	int err;

	mutex_lock(&mqs_ctl_mutex);
	a = mqs_find(index);
	if (!a) {
		err = -ENODEV;
		goto out;
	}
	err = mqs_start_removal(a);
	if (!err)
		mqs_destroy(a);
out:
	mutex_unlock(&mqs_ctl_mutex);
	return err;
}

/**
 * mqs_array_remove_all() - remove every array at module unload
 *
 * Open arrays hold a module reference (mqs_fops.owner), so none is open
 * here, and no CREATE runs (its caller holds the control device open).
 * An opener drops its module reference just before its disk reference
 * (bdev_release(), block/bdev.c): the exit waits for the last array freed
 * by mqs_free_disk().
 */
void mqs_array_remove_all(void)
{
	struct mqs_array *a, *tmp;

	mutex_lock(&mqs_ctl_mutex);
	list_for_each_entry_safe(a, tmp, &mqs_arrays, node)
		if (!mqs_start_removal(a))
			mqs_destroy(a);
	mutex_unlock(&mqs_ctl_mutex);
	wait_event(mqs_arrays_freed, !atomic_read(&mqs_nr_arrays));
}

/* ---- clear --------------------------------------------------------- */

/**
 * mqs_array_clear() - MQSTRIPE_IOC_CLEAR
 * @index: N of /dev/mqstripeN.
 * @slot: the member's slot.
 * @state: set to the member's state before (MQSTRIPE_MEMBER_*).
 *
 * A faulty member is ok again: its first block status is forgotten, the
 * array_failed uevent may go out again at the next failure, and a
 * member_cleared uevent tells udev and monitors.  The event work is
 * flushed first, so that an event of the failure being cleared does not
 * follow member_cleared.  A bio that fails after the state is ok again
 * marks the member faulty again, with its own uevent; one that fails
 * while the state is still faulty is one of the failures being cleared.
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0; -ENODEV (no such array), -EINVAL (@slot out of range),
 * -ENXIO (the member is gone).
 */
int mqs_array_clear(u32 index, u32 slot, u32 *state)
{
	struct mqs_array *a;
	struct mqs_member *m;
	int err = 0, status;

	mutex_lock(&mqs_ctl_mutex);
	a = mqs_find(index);
	if (!a) {
		err = -ENODEV;
		goto out;
	}
	if (slot >= a->nr_members) {
		err = -EINVAL;
		goto out;
	}
	m = &a->members[slot];
	flush_work(&a->event_work);
	status = atomic_read(&m->first_status);
	*state = mqs_member_state(m);
	if (*state == MQSTRIPE_MEMBER_FAULTY &&
	    atomic_cmpxchg(&m->state, MQSTRIPE_MEMBER_FAULTY,
			   MQSTRIPE_MEMBER_OK) != MQSTRIPE_MEMBER_FAULTY)
		*state = mqs_member_state(m);	/* gone meanwhile */
	if (*state == MQSTRIPE_MEMBER_GONE) {
		err = -ENXIO;
		goto out;
	}
	if (*state == MQSTRIPE_MEMBER_OK)
		goto out;
	/* a later failure keeps its own status */
	atomic_cmpxchg(&m->first_status, status, 0);
	pr_info("%s: member %u (%pg) cleared: faulty before, ok now\n",
		a->disk->disk_name, slot, m->bdev);
	if (!mqs_array_failed(a))
		clear_bit(MQS_ARRAY_FAILED_SENT, &a->flags);
	mqs_send_event(a, "member_cleared", m);
	sysfs_notify(&disk_to_dev(a->disk)->kobj, "mqstripe", "state");
	sysfs_notify(&disk_to_dev(a->disk)->kobj, "mqstripe", "members");
out:
	mutex_unlock(&mqs_ctl_mutex);
	return err;
}

/* ---- rename -------------------------------------------------------- */

/**
 * mqs_array_rename() - MQSTRIPE_IOC_RENAME
 * @index: N of /dev/mqstripeN.
 * @name: the new name (MQSTRIPE_NAME_LEN bytes, NUL-terminated if valid).
 *
 * The name in sysfs, INFO and the uevents changes at once; the IO path
 * never reads it.  A change uevent (MQSTRIPE_EVENT=renamed) lets udev
 * move the /dev/stripe/NAME link.
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0; -ENODEV (no such array), -EINVAL (@name invalid), -EEXIST
 * (another array has @name).
 */
int mqs_array_rename(u32 index, const char *name)
{
	char old[MQSTRIPE_NAME_LEN];
	struct mqs_array *a, *other;
	int err = 0;

	if (!mqs_name_valid(name))
		return -EINVAL;
	mutex_lock(&mqs_ctl_mutex);
	a = mqs_find(index);
	if (!a) {
		err = -ENODEV;
		goto out;
	}
	if (!strcmp(a->name, name))
		goto out;
	list_for_each_entry(other, &mqs_arrays, node) {
		if (other != a && name[0] && !strcmp(other->name, name)) {
			err = -EEXIST;
			goto out;
		}
	}
	memcpy(old, a->name, sizeof(old));
	spin_lock(&a->name_lock);
	strscpy(a->name, name, sizeof(a->name));
	spin_unlock(&a->name_lock);
	pr_info("%s: renamed from '%s' to '%s'\n", a->disk->disk_name, old,
		name);
	mqs_send_event(a, "renamed", NULL);
	sysfs_notify(&disk_to_dev(a->disk)->kobj, "mqstripe", "name");
out:
	mutex_unlock(&mqs_ctl_mutex);
	return err;
}

/* ---- resize -------------------------------------------------------- */

/**
 * mqs_array_resize() - MQSTRIPE_IOC_RESIZE
 * @r: the command: @r->index and @r->member_data_bytes in; @r->capacity_bytes,
 *	@r->error_member and @r->error_code out.
 *
 * The array takes @r->member_data_bytes of every member from now on.  Layout
 * version 1 (mqstripe_map.h) maps array chunk c to row c / nr_members, so
 * more rows only add array sectors past the old end: in-flight and later IO
 * below it maps as before, and the capacity grows under IO.  The members'
 * sizes are read again (they may have grown since the array started).
 * set_capacity_and_notify() sends the change uevent (RESIZE=1) that tells
 * udev and file systems.  Never shrinks: a smaller
 * size would cut the end off a file system that may use it.
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0; -ENODEV (no such array), -EINVAL (size not a multiple of the
 * chunk, smaller than the array's, or too large), -ENOSPC (a member too
 * small: @r->error_member, MQSTRIPE_ERR_TOO_SMALL), -EIO (a member is
 * faulty or gone), -EROFS (read-only array), -EOPNOTSUPP (several zones,
 * which an array of segments always has).
 */
int mqs_array_resize(struct mqstripe_resize *r)
{
	u64 bytes = r->member_data_bytes;
	sector_t new_sectors, old_sectors;
	struct mqs_array *a;
	int err = 0;
	u32 i;

	mutex_lock(&mqs_ctl_mutex);
	a = mqs_find(r->index);
	if (!a) {
		err = -ENODEV;
		goto out;
	}
	/*
	 * zones: a grown member would need a zone of its own; segments
	 * always have several zones (a segment is added, not grown)
	 */
	if (a->nr_zones > 1) {
		err = -EOPNOTSUPP;
		goto out;
	}
	old_sectors = a->member_data_sectors;
	if (!bytes || bytes % a->chunk_bytes ||
	    bytes < ((u64)old_sectors << SECTOR_SHIFT) ||
	    bytes > div_u64(LLONG_MAX, a->nr_members)) {
		err = -EINVAL;
		goto out;
	}
	if (a->readonly) {
		err = -EROFS;
		goto out;
	}
	if (mqs_array_failed(a)) {
		err = -EIO;
		goto out;
	}
	for (i = 0; i < a->nr_members; i++) {
		u64 size = (u64)bdev_nr_sectors(a->members[i].bdev) <<
			   SECTOR_SHIFT;

		if (size < a->data_offset_bytes + bytes) {
			r->error_member = i;
			r->error_code = MQSTRIPE_ERR_TOO_SMALL;
			err = -ENOSPC;
			goto out;
		}
	}
	new_sectors = bytes >> SECTOR_SHIFT;
	if (new_sectors != old_sectors) {
		a->member_data_sectors = new_sectors;
		for (i = 0; i < a->nr_members; i++)
			a->members[i].data_sectors = new_sectors;
		set_capacity_and_notify(a->disk, new_sectors * a->nr_members);
		pr_info("%s: grown from %llu to %llu sectors (%llu sectors of every member)\n",
			a->disk->disk_name, (u64)old_sectors * a->nr_members,
			(u64)get_capacity(a->disk), (u64)new_sectors);
	}
	r->capacity_bytes = (u64)get_capacity(a->disk) << SECTOR_SHIFT;
out:
	mutex_unlock(&mqs_ctl_mutex);
	return err;
}

/* ---- info and list --------------------------------------------------- */

/**
 * mqs_array_info() - MQSTRIPE_IOC_INFO
 * @index: N of /dev/mqstripeN.
 * @info: filled (the caller copies it out).
 * @members: kernel array of @cap entries, filled in slot order up to
 *	min(@cap, @info->nr_members); the caller copies them out after this
 *	returns, so that no user fault is taken under mqs_ctl_mutex (a fault
 *	can wait for IO or for userfaultfd for any time, and every create,
 *	remove, info and list would wait with it).
 * @cap: room at @members (may be 0).
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0 or -ENODEV.
 */
int mqs_array_info(u32 index, struct mqstripe_info *info,
		   struct mqstripe_member_info *members, u32 cap)
{
	struct mqs_array *a;
	int err = 0;
	u32 i;

	mutex_lock(&mqs_ctl_mutex);
	a = mqs_find(index);
	if (!a) {
		err = -ENODEV;
		goto out;
	}
	info->major = mqs_major;
	info->minor = a->disk->first_minor;
	info->nr_members = a->nr_members;
	info->state = mqs_array_failed(a) ? MQSTRIPE_STATE_FAILED :
		      MQSTRIPE_STATE_ACTIVE;
	info->chunk_bytes = a->chunk_bytes;
	info->data_offset_bytes = a->data_offset_bytes;
	info->capacity_bytes = (u64)get_capacity(a->disk) << SECTOR_SHIFT;
	info->member_data_bytes = (u64)a->member_data_sectors << SECTOR_SHIFT;
	info->queue_depth = a->queue_depth;
	info->nr_hw_queues = a->tag_set.nr_hw_queues;
	memcpy(info->name, a->name, MQSTRIPE_NAME_LEN);
	memcpy(info->uuid, a->uuid, MQSTRIPE_UUID_LEN);
	info->nr_segments = a->nr_segments;
	memcpy(info->segment_members, a->segment_members,
	       sizeof(info->segment_members));

	for (i = 0; i < min(cap, a->nr_members); i++) {
		struct mqs_member *m = &a->members[i];

		members[i] = (struct mqstripe_member_info){
			.major = MAJOR(m->dev),
			.minor = MINOR(m->dev),
			.slot = m->slot,
			.state = mqs_member_state(m),
			/* now: a member may have grown or shrunk since */
			.size_bytes = (u64)bdev_nr_sectors(m->bdev) <<
				      SECTOR_SHIFT,
			.read_errors = atomic64_read(&m->read_errors),
			.write_errors = atomic64_read(&m->write_errors),
			.flush_errors = atomic64_read(&m->flush_errors),
			.flags = READ_ONCE(m->slow) ? MQSTRIPE_MEMBER_F_SLOW :
				 0,
			.window_latency_us = READ_ONCE(m->win_lat_us),
			.data_bytes = (u64)m->data_sectors << SECTOR_SHIFT,
		};
	}
out:
	mutex_unlock(&mqs_ctl_mutex);
	return err;
}

/**
 * mqs_array_list() - MQSTRIPE_IOC_LIST
 * @indexes: filled with the lowest min(@cap, count) indexes, ascending.
 * @cap: room at @indexes.
 * @count: set to the number of arrays.
 *
 * mqs_arrays is in creation order, and a new array takes the lowest free
 * index, so the first @cap arrays of the list are not the lowest indexes:
 * each index is inserted into the sorted @indexes, the largest dropped
 * once they are full.
 *
 * Context: process, takes mqs_ctl_mutex.
 * Return: 0.
 */
int mqs_array_list(u32 *indexes, u32 cap, u32 *count)
{
	struct mqs_array *a;
	u32 n = 0, i, kept;

	mutex_lock(&mqs_ctl_mutex);
	list_for_each_entry(a, &mqs_arrays, node) {
		if (!a->published)
			continue;
		kept = min(n, cap);
		n++;
		if (kept == cap && (!cap || indexes[cap - 1] < a->index))
			continue;
		/* insertion sort: the list is short */
		i = kept < cap ? kept : cap - 1;
		for (; i > 0 && indexes[i - 1] > a->index; i--)
			indexes[i] = indexes[i - 1];
		indexes[i] = a->index;
	}
	mutex_unlock(&mqs_ctl_mutex);
	*count = n;
	return 0;
}
