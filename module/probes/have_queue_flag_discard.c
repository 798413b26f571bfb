// SPDX-License-Identifier: GPL-2.0
/* before 5.19: discard is offered only with QUEUE_FLAG_DISCARD set */
#include <linux/blkdev.h>
void mqs_probe(struct request_queue *q);
void mqs_probe(struct request_queue *q)
{
	blk_queue_flag_set(QUEUE_FLAG_DISCARD, q);
}
