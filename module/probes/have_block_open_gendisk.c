// SPDX-License-Identifier: GPL-2.0
/* 6.5+: ->open(struct gendisk *, blk_mode_t) */
#include <linux/blkdev.h>
int mqs_probe_open(struct gendisk *disk, blk_mode_t mode);
int mqs_probe_open(struct gendisk *disk, blk_mode_t mode)
{
	return 0;
}

const struct block_device_operations mqs_probe_fops = {
	.open = mqs_probe_open,
};
