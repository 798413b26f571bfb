/* SPDX-License-Identifier: GPL-2.0 */
/* livesb.c: the superblocks of a running array's members, rewritten */
#ifndef STRIPECTL_LIVESB_H
#define STRIPECTL_LIVESB_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "sbgroup.h"
#include "sbwrite.h"
#include "mqstripe.h"

/**
 * struct livesb - one member of a running array: its superblock as read
 * @path: its device node.
 * @cand: what was read from it.
 */
struct livesb {
	char path[PATH_MAX];
	struct mqs_cand cand;
};

/**
 * struct livesb_words - the words a command's messages use
 * @what: what the superblock cannot take when a member is gone ("the new
 *	name").
 * @nothing: said when nothing was done ("nothing renamed").
 * @then: what to run once the disk is back ("rename it").
 */
struct livesb_words {
	const char *what;
	const char *nothing;
	const char *then;
};

int livesb_read(const char *node, const struct mqstripe_info *info,
		const struct mqstripe_member_info *members, struct livesb **rmp,
		struct sbw **wp, uint32_t nr, bool *none_at_all,
		const struct livesb_words *words);
void livesb_build(struct livesb *rm, struct sbw *w, uint32_t nr);
void livesb_free(struct livesb *rm, struct sbw *w, uint32_t nr);

#endif /* STRIPECTL_LIVESB_H */
