// SPDX-License-Identifier: GPL-2.0
/* 5.19+: bdev_stable_writes() (a static inline: cannot #ifdef it) */
#include <linux/blkdev.h>
bool mqs_probe(struct block_device *bdev);
bool mqs_probe(struct block_device *bdev)
{
	return bdev_stable_writes(bdev);
}
