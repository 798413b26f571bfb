// SPDX-License-Identifier: GPL-2.0
/* 5.19+: disk_openers() (a static inline: cannot #ifdef it) */
#include <linux/blkdev.h>
unsigned int mqs_probe(struct gendisk *disk);
unsigned int mqs_probe(struct gendisk *disk)
{
	return disk_openers(disk);
}
