/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing member superblocks, libblkid signature checks and
 * wiping, and telling who holds a busy device.
 */
#ifndef STRIPECTL_DEVIO_H
#define STRIPECTL_DEVIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbgroup.h"

uint8_t *mqs_block_alloc(void);
int mqs_dev_open_direct(const char *path, bool write);
int mqs_dev_read_area(int fd, uint8_t *area, size_t *area_len);
int mqs_dev_write_area(int fd, const uint8_t *area, unsigned int nr,
		       bool second_first);
void mqs_dev_drop_cache(int fd);
int mqs_dev_geometry(int fd, uint64_t *size, unsigned int *lbs);
int mqs_cand_read(struct mqs_cand *c, const char *path);
void mqs_cand_free(struct mqs_cand *c);
bool mqs_stacked_under(uint64_t devno, char *holder, size_t len);
int mqs_scan_devices(struct mqs_cand **out, size_t *nout);
void mqs_free_cands(struct mqs_cand *cands, size_t n);

/**
 * struct mqs_wipe_log - what mqs_signatures() erased on one device, to put
 *	back (as "wipefs --backup" keeps it)
 * @nr: entries used.
 * @off: byte offset of each erased magic.
 * @len: its length in bytes (at most MQS_WIPE_MAGIC_MAX).
 * @bytes: the bytes that were there.
 * @type: what they were the magic of, as libblkid names it ("ext4", "gpt").
 */
#define MQS_WIPE_MAX		64
#define MQS_WIPE_MAGIC_MAX	64
#define MQS_WIPE_TYPE_LEN	32
struct mqs_wipe_log {
	unsigned int nr;
	uint64_t off[MQS_WIPE_MAX];
	unsigned int len[MQS_WIPE_MAX];
	uint8_t bytes[MQS_WIPE_MAX][MQS_WIPE_MAGIC_MAX];
	char type[MQS_WIPE_MAX][MQS_WIPE_TYPE_LEN];
};

int mqs_open_excl(const char *path);
bool mqs_busy_reason(const char *path, char *buf, size_t len);
bool mqs_only_readonly_mounts(uint32_t major, uint32_t minor);
int mqs_signatures(int fd, bool wipe, struct mqs_wipe_log *log, char *desc,
		   size_t len);
bool mqs_signatures_at(const char *path, char *desc, size_t len);
int mqs_unwipe(int fd, const char *path, const struct mqs_wipe_log *log);
void mqs_sb_describe(const struct mqs_sb *sb, enum mqs_sb_status status,
		     char *buf, size_t len);
int mqs_find_node(uint64_t devno, char *buf, size_t len);

#endif /* STRIPECTL_DEVIO_H */
