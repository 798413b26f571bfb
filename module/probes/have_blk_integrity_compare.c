// SPDX-License-Identifier: GPL-2.0
/* up to 6.10: blk_integrity_compare() and blk_integrity_register() */
#include <linux/blkdev.h>
#if __has_include("linux/blk-integrity.h")	/* 5.16+ (have_blk_integrity_h.c) */
#include <linux/blk-integrity.h>
#endif
int mqs_probe(struct gendisk *a, struct gendisk *b);
int mqs_probe(struct gendisk *a, struct gendisk *b)
{
	blk_integrity_register(a, bdev_get_integrity(b->part0));
	return blk_integrity_compare(a, b);
}
