// SPDX-License-Identifier: GPL-2.0
/* 6.8+: ->mark_dead(bdev, surprise), called with bd_holder_lock held */
#include <linux/blkdev.h>
void mqs_probe_dead(struct block_device *bdev, bool surprise);
void mqs_probe_dead(struct block_device *bdev, bool surprise)
{
}

const struct blk_holder_ops mqs_probe_ops = {
	.mark_dead = mqs_probe_dead,
};
