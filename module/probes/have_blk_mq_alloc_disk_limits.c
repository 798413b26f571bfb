// SPDX-License-Identifier: GPL-2.0
/* 6.9+: blk_mq_alloc_disk(set, lim, queuedata) */
#include <linux/blk-mq.h>
struct gendisk *mqs_probe(struct blk_mq_tag_set *set);
struct gendisk *mqs_probe(struct blk_mq_tag_set *set)
{
	return blk_mq_alloc_disk(set, (struct queue_limits *)NULL, NULL);
}
