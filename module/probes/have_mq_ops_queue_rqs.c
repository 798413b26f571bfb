// SPDX-License-Identifier: GPL-2.0
/* 5.17+: ->queue_rqs(), a whole plug list of requests in one call */
#include <linux/blk-mq.h>
const struct blk_mq_ops mqs_probe_ops = {
	.queue_rqs = NULL,
};
