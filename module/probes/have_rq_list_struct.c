// SPDX-License-Identifier: GPL-2.0
/* 6.13+ (Debian 6.12 backports it): struct rq_list, ->queue_rqs(struct rq_list *) */
#include <linux/blk-mq.h>
void mqs_probe_queue_rqs(struct rq_list *rl);
void mqs_probe_queue_rqs(struct rq_list *rl)
{
	rq_list_init(rl);
}

const struct blk_mq_ops mqs_probe_ops = {
	.queue_rqs = mqs_probe_queue_rqs,
};
