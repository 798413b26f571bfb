// SPDX-License-Identifier: GPL-2.0
/* 5.18+: bio_alloc_bioset(bdev, nr_vecs, opf, gfp, bs) */
#include <linux/bio.h>
struct bio *mqs_probe(struct block_device *bdev, struct bio_set *bs);
struct bio *mqs_probe(struct block_device *bdev, struct bio_set *bs)
{
	return bio_alloc_bioset(bdev, 1, REQ_OP_READ, GFP_NOIO, bs);
}
