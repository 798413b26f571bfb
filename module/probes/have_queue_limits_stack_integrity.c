// SPDX-License-Identifier: GPL-2.0
/* 6.11+: the integrity profile is part of struct queue_limits */
#include <linux/blkdev.h>
#if __has_include("linux/blk-integrity.h")	/* 5.16+ (have_blk_integrity_h.c) */
#include <linux/blk-integrity.h>
#endif
bool mqs_probe(struct queue_limits *lim, struct block_device *bdev);
bool mqs_probe(struct queue_limits *lim, struct block_device *bdev)
{
	return queue_limits_stack_integrity_bdev(lim, bdev);
}
