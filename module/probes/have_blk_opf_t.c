// SPDX-License-Identifier: GPL-2.0
/* 6.0+: request/bio operation and flags are a blk_opf_t (a typedef) */
#include <linux/blk_types.h>
blk_opf_t mqs_probe(blk_opf_t opf);
blk_opf_t mqs_probe(blk_opf_t opf)
{
	return opf;
}
