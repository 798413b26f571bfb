// SPDX-License-Identifier: GPL-2.0
/* up to 6.13: BLK_MQ_F_SHOULD_MERGE (an enum value: cannot #ifdef it) */
#include <linux/blk-mq.h>
int mqs_probe(void);
int mqs_probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
