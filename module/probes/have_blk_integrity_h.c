// SPDX-License-Identifier: GPL-2.0
/* 5.16+: the integrity API has its own header (before, linux/blkdev.h) */
#include <linux/blkdev.h>
#include <linux/blk-integrity.h>
int mqs_probe(struct block_device *bdev);
int mqs_probe(struct block_device *bdev)
{
	return !!bdev_get_integrity(bdev);
}
