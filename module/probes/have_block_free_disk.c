// SPDX-License-Identifier: GPL-2.0
/* 5.18+: ->free_disk() runs when the last reference of an added disk goes */
#include <linux/blkdev.h>
void mqs_probe_free(struct gendisk *disk);
void mqs_probe_free(struct gendisk *disk)
{
}

const struct block_device_operations mqs_probe_fops = {
	.free_disk = mqs_probe_free,
};
