// SPDX-License-Identifier: GPL-2.0
/* 5.18+: bio_init_clone(bdev, bio, src, gfp), a clone in the caller's memory */
#include <linux/bio.h>
int mqs_probe(struct block_device *bdev, struct bio *bio, struct bio *src);
int mqs_probe(struct block_device *bdev, struct bio *bio, struct bio *src)
{
	return bio_init_clone(bdev, bio, src, GFP_NOIO);
}
