/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which devices make an array, and in which order: the decisions of
 * "stripectl assemble", made from decoded superblocks and a few facts
 * about each device.  Pure functions (no system calls, no output) so that
 * the unit tests (tools/tests/test_sb.c) drive every refusal directly.
 */
#ifndef STRIPECTL_SBGROUP_H
#define STRIPECTL_SBGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parse.h"
#include "superblock.h"

/**
 * struct mqs_cand - one device that may be a member
 * @path: as given, or /dev/NAME for a scanned device.
 * @devno: device number (st_rdev).
 * @read_err: 0, or the errno of opening or reading it.
 * @status: what its superblock is.
 * @why: decode's reason for @status.
 * @sb: the decoded superblock (see mqs_sb_decode()).
 * @size_bytes: size of the device now.
 * @lbs: logical block size of the device now.
 * @block: the superblock area as read (aligned buffer of
 *	MQS_SB_AREA_SIZE bytes: the copies at 4096 and 8192); may be NULL in
 *	the unit tests.
 * @area_len: bytes of @block read from the device (MQS_SB_SIZE when it
 *	ends before a second copy).
 * @copies: what each copy holds, and which one @sb is.
 */
struct mqs_cand {
	const char *path;
	uint64_t devno;
	int read_err;
	enum mqs_sb_status status;
	char why[MQS_ERR_LEN];
	struct mqs_sb sb;
	uint64_t size_bytes;
	unsigned int lbs;
	uint8_t *block;
	size_t area_len;
	struct mqs_sb_copies copies;
};

/*
 * Room for a refusal of mqs_group_check() or a phrase of mqs_cut_hint():
 * they may carry a create command line naming every member.
 */
#define MQS_GROUP_ERR_LEN	8192

void mqs_array_label(const struct mqs_sb *sb, char *buf, size_t len);
int mqs_select_array(struct mqs_cand *const *c, size_t n, const char *name,
		     const uint8_t *uuid, bool *chosen, char *err,
		     size_t len);
void mqs_cut_hint(struct mqs_cand *const *c, size_t n, size_t none,
		  char *buf, size_t len);
size_t mqs_newest(struct mqs_cand *const *c, size_t n);
size_t mqs_fault_recorded(struct mqs_cand *const *c, size_t n, size_t i);
size_t mqs_find_copies(struct mqs_cand *const *c, size_t n, size_t *x,
		       size_t *y);
bool mqs_add_leftover(struct mqs_cand *const *c, size_t n, size_t i);
size_t mqs_newer_copy(struct mqs_cand *const *c, size_t n, size_t i);
int mqs_group_check(struct mqs_cand *const *c, size_t n, bool accept_stale,
		    size_t *slots, char *err, size_t len);

#endif /* STRIPECTL_SBGROUP_H */
