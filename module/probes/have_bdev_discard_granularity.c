// SPDX-License-Identifier: GPL-2.0
/* 5.19+: bdev_discard_granularity() (a static inline: cannot #ifdef it) */
#include <linux/blkdev.h>
unsigned int mqs_probe(struct block_device *bdev);
unsigned int mqs_probe(struct block_device *bdev)
{
	return bdev_discard_granularity(bdev);
}
