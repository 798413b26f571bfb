// SPDX-License-Identifier: GPL-2.0
/* 6.7 and 6.8: struct bdev_handle */
#include <linux/blkdev.h>
int mqs_probe(void);
int mqs_probe(void)
{
	struct bdev_handle *h = bdev_open_by_dev(0, BLK_OPEN_READ, NULL, NULL);

	return IS_ERR(h);
}
