/* SPDX-License-Identifier: GPL-2.0 */
/* sbwrite.c: superblock writes as one transaction */
#ifndef STRIPECTL_SBWRITE_H
#define STRIPECTL_SBWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mqs_wipe_log;
struct mqstripe_member_info;

/**
 * struct sbw - one member whose superblock is being written (sbwrite.c)
 * @path: the device.
 * @excl: exclusive read-write descriptor while claimed, else -1.
 * @dfd: O_DIRECT read-write descriptor for the superblock area, else -1.
 * @old: the superblock area as it was (restored if starting the array
 *	fails).
 * @new: the area to write.
 * @mid: the area the first pass of a two-pass update wrote (assemble),
 *	or NULL: a rollback puts it back on every member before @old, so
 *	that the members are never two events apart.
 * @copies: copies of @new to write: 1 (byte 4096 only) or 2.
 * @second_first: write the copy at 8192 first (the copy at 4096 is the one
 *	in use on the device: it stays until its successor is durable).
 * @written: @new is on the device.
 * @shared: a running array holds the member (rename): it is written and
 *	put back through @dfd alone, never claimed.
 * @wiped: what "create --force" wiped on it (put back if the array does not
 *	start), or NULL.
 */
struct sbw {
	const char *path;
	int excl;
	int dfd;
	uint8_t *old;
	uint8_t *new;
	uint8_t *mid;
	unsigned int copies;
	bool second_first;
	bool written;
	bool shared;
	struct mqs_wipe_log *wiped;
};

void sbw_init(struct sbw *w, const char *path);
int sbw_claim(struct sbw *w);
int sbw_reread(struct sbw *w);
int sbw_write_all(struct sbw *w, size_t n);
int sbw_keep_mid(struct sbw *w, size_t n);
int sbw_verify_all(struct sbw *w, size_t n);
void sbw_restore_all(struct sbw *w, size_t n);
void sbw_unwipe_all(struct sbw *w, size_t n);
void sbw_release(struct sbw *w, size_t n);
void sbw_free(struct sbw *w, size_t n);
int sb_update_member(const char *path, const uint8_t uuid[16], uint32_t slot,
		     uint32_t state, uint64_t events, bool shared,
		     const uint8_t *faults, char *why, size_t len);
uint32_t sb_update_members(const uint8_t uuid[16],
			   const struct mqstripe_member_info *members,
			   bool *skip, uint32_t nr, uint32_t state, bool shared,
			   const char *tail);

#endif /* STRIPECTL_SBWRITE_H */
