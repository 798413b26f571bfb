// SPDX-License-Identifier: GPL-2.0
/* 6.5 and 6.6: blkdev_get_by_dev() with blk_mode_t and holder ops */
#include <linux/blkdev.h>
int mqs_probe(void);
int mqs_probe(void)
{
	struct block_device *b = blkdev_get_by_dev(0, BLK_OPEN_READ, NULL,
						   NULL);

	return IS_ERR(b);
}
