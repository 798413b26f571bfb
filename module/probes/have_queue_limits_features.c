// SPDX-License-Identifier: GPL-2.0
/* 6.11+: queue flags are lim.features, updated with start/commit_update */
#include <linux/blkdev.h>
int mqs_probe(struct request_queue *q);
int mqs_probe(struct request_queue *q)
{
	struct queue_limits lim = queue_limits_start_update(q);

	lim.features |= BLK_FEAT_WRITE_CACHE;
	return queue_limits_commit_update(q, &lim);
}
