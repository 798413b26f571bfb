// SPDX-License-Identifier: GPL-2.0
/*
 * The superblocks of a running array's members, rewritten while the array
 * runs (rename, grow): each member is read and checked to hold this
 * array's superblock, and the new superblocks go one event past the
 * newest member's, written through a shared O_DIRECT descriptor (the
 * module holds the members exclusively), the copy not in use first
 * (docs/FORMAT.md "Updates").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/sysmacros.h>

#include "common.h"
#include "devio.h"
#include "livesb.h"
#include "stripectl.h"
#include "superblock.h"

/**
 * livesb_read() - read every member's superblock for a rewrite
 * @node: the array's node, for messages.
 * @info: the array, from INFO.
 * @members: its members, from INFO, in slot order.
 * @rmp: set to @nr entries, filled (livesb_free() them, also on failure).
 * @wp: set to @nr writes, set up for a shared write.
 * @nr: number of members.
 * @none_at_all: set when no member has a superblock (an array started
 *	without superblocks).
 * @words: how the caller's messages say what it does.
 *
 * Return: MQS_EXIT_OK when all are this array's and may be rewritten (or
 * @none_at_all), MQS_EXIT_FAIL (said) otherwise.
 */
int livesb_read(const char *node, const struct mqstripe_info *info,
		const struct mqstripe_member_info *members, struct livesb **rmp,
		struct sbw **wp, uint32_t nr, bool *none_at_all,
		const struct livesb_words *words)
{
	struct livesb *rm = calloc(nr ? nr : 1, sizeof(*rm));
	struct sbw *w = calloc(nr ? nr : 1, sizeof(*w));
	uint32_t i, none = 0;
	int rc;

	*rmp = rm;
	*wp = w;
	if (!rm || !w) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < nr; i++)
		sbw_init(&w[i], NULL);

	for (i = 0; i < nr; i++) {
		const struct mqstripe_member_info *m = &members[i];
		struct mqs_cand *c = &rm[i].cand;
		char label[MQS_ERR_LEN];

		if (m->state == MQSTRIPE_MEMBER_GONE ||
		    mqs_find_node(makedev(m->major, m->minor), rm[i].path,
				  sizeof(rm[i].path))) {
			mqs_error("%s: slot %u (%u:%u) is gone: its superblock cannot take %s; stop the array and assemble it once the disk is back, then %s",
				  node, m->slot, m->major, m->minor,
				  words->what, words->then);
			return MQS_EXIT_FAIL;
		}
		rc = mqs_cand_read(c, rm[i].path);
		if (rc) {
			mqs_error("%s: slot %u: cannot read its superblock: %s",
				  rm[i].path, m->slot, strerror(-rc));
			return MQS_EXIT_FAIL;
		}
		if (c->status == MQS_SB_NONE) {
			none++;
			continue;
		}
		if (c->status != MQS_SB_OK ||
		    memcmp(c->sb.array_uuid, info->uuid, MQSTRIPE_UUID_LEN) ||
		    c->sb.slot != m->slot) {
			mqs_sb_describe(&c->sb, c->status, label,
					sizeof(label));
			mqs_error("%s: slot %u of %s holds %s, not this array's superblock: %s (see 'stripectl examine %s')",
				  rm[i].path, m->slot, node, label,
				  words->nothing, rm[i].path);
			return MQS_EXIT_FAIL;
		}
		if (c->sb.feature_ro_compat & ~MQS_SB_FEAT_RO_COMPAT_KNOWN) {
			mqs_error("%s: its superblock has read-only-compatible features 0x%" PRIx64 " this stripectl does not know: %s",
				  rm[i].path,
				  (uint64_t)(c->sb.feature_ro_compat &
					     ~MQS_SB_FEAT_RO_COMPAT_KNOWN),
				  words->nothing);
			return MQS_EXIT_FAIL;
		}
		sbw_init(&w[i], rm[i].path);
		w[i].shared = true;
		if (sbw_reread(&w[i]))
			return MQS_EXIT_FAIL;
		if (memcmp(w[i].old, c->block, MQS_SB_AREA_SIZE)) {
			mqs_error("%s: its superblock changed meanwhile: retry",
				  rm[i].path);
			return MQS_EXIT_FAIL;
		}
	}
	*none_at_all = none == nr;
	if (none && none < nr) {
		mqs_error("%s: some members have a superblock, some none: %s (see 'stripectl examine' of each member)",
			  node, words->nothing);
		return MQS_EXIT_FAIL;
	}
	return 0;
}

/**
 * livesb_build() - the new superblocks, from the edited @rm[].cand.sb
 * @rm: @nr members as read, their decoded superblocks edited by the caller.
 * @w: @nr writes: @w->new gets each member's new area.
 * @nr: number of members.
 *
 * Every member's event counter goes one past the newest member's, its
 * generation one up and its update time to now.
 */
void livesb_build(struct livesb *rm, struct sbw *w, uint32_t nr)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	uint32_t i;

	for (i = 0; i < nr; i++)
		if (rm[i].cand.sb.events > events)
			events = rm[i].cand.sb.events;
	for (i = 0; i < nr; i++) {
		struct mqs_sb *sb = &rm[i].cand.sb;

		sb->events = events + 1;
		sb->generation++;
		sb->utime = now;
		memcpy(w[i].new, w[i].old, MQS_SB_AREA_SIZE);
		w[i].copies = mqs_sb_encode_area(sb, w[i].old +
						 rm[i].cand.copies.chosen *
						 MQS_SB_SIZE, w[i].new);
	}
}

/**
 * livesb_free() - free what livesb_read() allocated
 * @rm: its members, or NULL.
 * @w: its writes, or NULL (released: descriptors closed).
 * @nr: number of members.
 */
void livesb_free(struct livesb *rm, struct sbw *w, uint32_t nr)
{
	uint32_t i;

	sbw_free(w, w ? nr : 0);
	for (i = 0; rm && i < nr; i++)
		mqs_cand_free(&rm[i].cand);
	free(rm);
}
