// SPDX-License-Identifier: GPL-2.0
/* up to 5.19: ->timeout(struct request *, bool reserved) */
#include <linux/blk-mq.h>
enum blk_eh_timer_return mqs_probe_timeout(struct request *rq, bool reserved);
enum blk_eh_timer_return mqs_probe_timeout(struct request *rq, bool reserved)
{
	return BLK_EH_DONE;
}

const struct blk_mq_ops mqs_probe_ops = {
	.timeout = mqs_probe_timeout,
};
