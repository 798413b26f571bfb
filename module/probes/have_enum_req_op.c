// SPDX-License-Identifier: GPL-2.0
/* 6.0+: enum req_op (enum req_opf before) */
#include <linux/blk_types.h>
enum req_op mqs_probe(enum req_op op);
enum req_op mqs_probe(enum req_op op)
{
	return op;
}
