// SPDX-License-Identifier: GPL-2.0
/* 5.14 to 5.19: blk_cleanup_disk() tears down a blk_mq_alloc_disk() disk */
#include <linux/blkdev.h>
void mqs_probe(struct gendisk *disk);
void mqs_probe(struct gendisk *disk)
{
	blk_cleanup_disk(disk);
}
