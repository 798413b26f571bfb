// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: per-member IO figures and the slow-member check.
 *
 * The IO path keeps, per member and per CPU (struct mqs_member_stats),
 * member bios made and completed, their completion latencies summed and a
 * log2 histogram of them, for reads and for the rest (writes, flushes,
 * discards, write-zeroes): a timestamp when a member bio is made, one
 * when it completes, this_cpu ops only (mqs_stats_issue(),
 * mqs_stats_done() in mqs.h).  Everything else happens in the readers:
 * sysfs (mqstripe/io_stats, mqstripe/latency_hist), INFO, and the check.
 *
 * The slow-member check runs once a second (a window) while the array has
 * IO: the first request after an idle window queues it again.  For each
 * member that completed IO in the window it takes the mean completion
 * latency; the median is the lower median of those means.  A member is
 * slow when its mean is above slow_factor x the median and above
 * slow_min_us, for slow_windows windows in a row; it is flagged
 * (MQSTRIPE_MEMBER_F_SLOW) and a change uevent MQSTRIPE_EVENT=member_slow
 * goes out once.  It stops being slow after slow_windows windows in a row
 * at or below half the threshold (or below the floor):
 * MQSTRIPE_EVENT=member_slow_cleared.  A window without IO on a member
 * counts neither way.  With half the members or more equally slow, the
 * median is slow too: the check names a member that stands out, not an
 * array that is slow as a whole.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "mqs.h"

#define MQS_STATS_WINDOW	HZ

/**
 * mqs_stats_sum() - a member's figures summed over the CPUs
 * @m: the member.
 * @sum: filled.
 */
void mqs_stats_sum(const struct mqs_member *m, struct mqs_member_stats *sum)
{
	int cpu, d, b;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct mqs_member_stats *s = per_cpu_ptr(m->stats, cpu);

		for (d = 0; d < MQS_DIRS; d++) {
			sum->issued[d] += READ_ONCE(s->issued[d]);
			sum->done[d] += READ_ONCE(s->done[d]);
			sum->lat_ns[d] += READ_ONCE(s->lat_ns[d]);
			for (b = 0; b < MQS_LAT_BUCKETS; b++)
				sum->hist[d][b] += READ_ONCE(s->hist[d][b]);
		}
	}
}

static int mqs_cmp_u64(const void *x, const void *y)
{
	u64 a = *(const u64 *)x, b = *(const u64 *)y;

	return a < b ? -1 : a > b;
}

/* A member's verdict of one window: flag or clear it, with its uevent. */
static void mqs_stats_judge(struct mqs_array *a, struct mqs_member *m,
			    u64 mean_ns, u64 median_ns)
{
	u64 threshold = median_ns * READ_ONCE(a->slow_factor);
	u64 floor = (u64)READ_ONCE(a->slow_min_us) * NSEC_PER_USEC;
	bool above = mean_ns > threshold && mean_ns > floor;
	bool below = mean_ns <= threshold / 2 || mean_ns <= floor;

	if (m->slow ? below : above)
		m->slow_windows++;
	else
		m->slow_windows = 0;
	if (m->slow_windows < READ_ONCE(a->slow_windows))
		return;
	m->slow_windows = 0;
	WRITE_ONCE(m->slow, !m->slow);
	mqs_member_event(m, m->slow ? MQS_EV_SLOW : MQS_EV_SLOW_CLEARED);
}

static void mqs_stats_work(struct work_struct *work)
{
	struct mqs_array *a = container_of(to_delayed_work(work),
					   struct mqs_array, stats_work);
	struct mqs_member_stats *sum;
	u64 inflight = 0, median_ns = 0;
	u32 i, nr = 0;

	sum = kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		goto again;
	for (i = 0; i < a->nr_members; i++) {
		struct mqs_member *m = &a->members[i];
		u64 done, lat, n;

		mqs_stats_sum(m, sum);
		done = sum->done[0] + sum->done[1];
		lat = sum->lat_ns[0] + sum->lat_ns[1];
		inflight += sum->issued[0] + sum->issued[1] - done;
		n = done - m->prev_done;
		/* the window's mean (at least 1), 0: no IO on it */
		a->stats_scratch[i] = n ? max_t(u64, div64_u64(lat -
							m->prev_lat_ns, n), 1) :
					  0;
		m->prev_done = done;
		m->prev_lat_ns = lat;
		if (n) {
			WRITE_ONCE(m->win_lat_us,
				   min_t(u64, a->stats_scratch[i] /
					 NSEC_PER_USEC, U32_MAX));
			nr++;
		}
	}
	kfree(sum);
	if (nr) {
		u64 *means = kmalloc_array(nr, sizeof(*means), GFP_KERNEL);
		u32 j = 0;

		if (!means)
			goto again;
		for (i = 0; i < a->nr_members; i++)
			if (a->stats_scratch[i])
				means[j++] = a->stats_scratch[i];
		sort(means, j, sizeof(*means), mqs_cmp_u64, NULL);
		median_ns = j ? means[(j - 1) / 2] : 0;
		kfree(means);
		for (i = 0; i < a->nr_members; i++) {
			struct mqs_member *m = &a->members[i];

			if (!a->stats_scratch[i])
				continue;
			WRITE_ONCE(m->win_median_us,
				   min_t(u64, median_ns / NSEC_PER_USEC,
					 U32_MAX));
			mqs_stats_judge(a, m, a->stats_scratch[i], median_ns);
		}
	} else if (!inflight) {
		/*
		 * Idle: sleep until the next request queues the check
		 * again (mqs_stats_kick()).
		 */
		clear_bit(MQS_ARRAY_STATS_ARMED, &a->flags);
		return;
	}
again:
	if (!READ_ONCE(a->dying))
		schedule_delayed_work(&a->stats_work, MQS_STATS_WINDOW);
}

/**
 * mqs_stats_arm() - queue the slow-member check of an array with IO
 * @a: the array.
 *
 * Called from the IO path (any context) when MQS_ARRAY_STATS_ARMED is
 * clear: the first request after an idle window.
 */
void mqs_stats_arm(struct mqs_array *a)
{
	if (!test_and_set_bit(MQS_ARRAY_STATS_ARMED, &a->flags))
		schedule_delayed_work(&a->stats_work, MQS_STATS_WINDOW);
}

/**
 * mqs_stats_init() - the figures of a new array's members
 * @a: the array, members not yet claimed.
 *
 * Return: 0 or -ENOMEM (nothing left allocated).
 */
int mqs_stats_init(struct mqs_array *a)
{
	u32 i;

	INIT_DELAYED_WORK(&a->stats_work, mqs_stats_work);
	a->slow_factor = 4;
	a->slow_min_us = 5000;
	a->slow_windows = 3;
	a->stats_scratch = kcalloc(a->nr_members, sizeof(*a->stats_scratch),
				   GFP_KERNEL);
	if (!a->stats_scratch)
		return -ENOMEM;
	for (i = 0; i < a->nr_members; i++) {
		a->members[i].stats = alloc_percpu(struct mqs_member_stats);
		if (!a->members[i].stats)
			goto out_free;
	}
	return 0;

out_free:
	while (i--)
		free_percpu(a->members[i].stats);
	kfree(a->stats_scratch);
	return -ENOMEM;
}

/**
 * mqs_stats_exit() - stop the check and free the figures
 * @a: the array, with no IO left and dying set (the check does not queue
 *	itself again).
 */
void mqs_stats_exit(struct mqs_array *a)
{
	u32 i;

	cancel_delayed_work_sync(&a->stats_work);
	for (i = 0; i < a->nr_members; i++)
		free_percpu(a->members[i].stats);
	kfree(a->stats_scratch);
}

/**
 * mqs_stats_io_line() - a line of sysfs mqstripe/io_stats
 * @a: the array.
 * @slot: the member.
 * @buf: where to write it.
 * @size: room at @buf.
 *
 * "slot reads writes reads_in_flight writes_in_flight read_latency_ns
 * write_latency_ns window_latency_us median_latency_us slow": completed
 * member bios, those in flight, their latencies summed (ns), the mean of
 * the last window with IO on the member and the median member's then (us),
 * and 1 when the member is slow.
 *
 * Return: the characters written.
 */
int mqs_stats_io_line(struct mqs_array *a, u32 slot, char *buf, size_t size)
{
	struct mqs_member *m = &a->members[slot];
	struct mqs_member_stats *s;
	int len;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return 0;
	mqs_stats_sum(m, s);
	/* a completion counted before its issue is summed: never below 0 */
	len = scnprintf(buf, size, "%u %llu %llu %lld %lld %llu %llu %u %u %d\n",
			slot, s->done[0], s->done[1],
			max_t(s64, s->issued[0] - s->done[0], 0),
			max_t(s64, s->issued[1] - s->done[1], 0),
			s->lat_ns[0], s->lat_ns[1], READ_ONCE(m->win_lat_us),
			READ_ONCE(m->win_median_us), READ_ONCE(m->slow));
	kfree(s);
	return len;
}

/**
 * mqs_stats_hist_line() - a line of sysfs mqstripe/latency_hist
 * @a: the array.
 * @slot: the member.
 * @buf: where to write it.
 * @size: room at @buf.
 *
 * "slot" then the MQS_LAT_BUCKETS read buckets, then the write buckets.
 *
 * Return: the characters written.
 */
int mqs_stats_hist_line(struct mqs_array *a, u32 slot, char *buf,
			size_t size)
{
	struct mqs_member_stats *s;
	int len, d, b;

	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return 0;
	mqs_stats_sum(&a->members[slot], s);
	len = scnprintf(buf, size, "%u", slot);
	for (d = 0; d < MQS_DIRS; d++)
		for (b = 0; b < MQS_LAT_BUCKETS; b++)
			len += scnprintf(buf + len, size - len, " %llu",
					 s->hist[d][b]);
	len += scnprintf(buf + len, size - len, "\n");
	kfree(s);
	return len;
}
