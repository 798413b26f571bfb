// SPDX-License-Identifier: GPL-2.0
/* up to 6.13: integrity payloads of a bioset's bios come from its own pool */
#include <linux/bio.h>
#include <linux/blk-integrity.h>	/* 6.1: bio.h; 6.12: bio-integrity.h */
int mqs_probe(struct bio_set *bs);
int mqs_probe(struct bio_set *bs)
{
	return bioset_integrity_create(bs, 4);
}
