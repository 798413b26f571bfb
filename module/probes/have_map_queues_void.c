// SPDX-License-Identifier: GPL-2.0
/* 6.0+: ->map_queues() and blk_mq_map_queues() return void */
#include <linux/blk-mq.h>
void mqs_probe_map(struct blk_mq_tag_set *set);
void mqs_probe_map(struct blk_mq_tag_set *set)
{
	blk_mq_map_queues(&set->map[HCTX_TYPE_DEFAULT]);
}

const struct blk_mq_ops mqs_probe_ops = {
	.map_queues = mqs_probe_map,
};
