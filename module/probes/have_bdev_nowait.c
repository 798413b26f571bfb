// SPDX-License-Identifier: GPL-2.0
/* 6.0+: bdev_nowait() (a static inline: cannot #ifdef it) */
#include <linux/blkdev.h>
bool mqs_probe(struct block_device *bdev);
bool mqs_probe(struct block_device *bdev)
{
	return bdev_nowait(bdev);
}
