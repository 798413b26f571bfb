// SPDX-License-Identifier: GPL-2.0
/* 6.9+: members are opened as struct file */
#include <linux/blkdev.h>
int mqs_probe(void);
int mqs_probe(void)
{
	struct file *f = bdev_file_open_by_dev(0, BLK_OPEN_READ, NULL, NULL);

	return IS_ERR(f);
}
