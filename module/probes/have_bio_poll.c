// SPDX-License-Identifier: GPL-2.0
/* 5.16+: bio_poll() and ->poll(hctx, struct io_comp_batch *) */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
int mqs_probe_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob);
int mqs_probe_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	return bio_poll(NULL, iob, BLK_POLL_ONESHOT);
}

const struct blk_mq_ops mqs_probe_ops = {
	.poll = mqs_probe_poll,
};
