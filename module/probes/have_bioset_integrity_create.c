// SPDX-License-Identifier: GPL-2.0
/* up to 6.13: integrity payloads of a bioset's bios come from its own pool */
#include <linux/bio.h>
#if __has_include("linux/blk-integrity.h")	/* 5.16+ (have_blk_integrity_h.c) */
#include <linux/blk-integrity.h>
#endif
int mqs_probe(struct bio_set *bs);
int mqs_probe(struct bio_set *bs)
{
	return bioset_integrity_create(bs, 4);
}
