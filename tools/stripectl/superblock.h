/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk superblock of an mqstripe member (docs/FORMAT.md): one 4 KiB
 * block at byte 4096 of every member, little-endian, protected by a CRC-32C.
 *
 * Pure functions: encode, decode, check, CRC-32C.  No system calls and no
 * output, so that the host unit tests (tools/tests/test_sb.c) link them as
 * they are; messages go to an @err buffer as in parse.h.
 */
#ifndef STRIPECTL_SUPERBLOCK_H
#define STRIPECTL_SUPERBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mqstripe.h"

#define MQS_SB_OFFSET		4096ULL	/* byte offset on every member */
#define MQS_SB_SIZE		4096U	/* bytes, covered by the CRC */
#define MQS_SB_MAGIC		"MQSTRIPE"
#define MQS_SB_MAGIC_LEN	8
#define MQS_SB_VERSION		1U	/* format version this code writes */
/* The data offset must leave room for the superblock. */
#define MQS_SB_MIN_DATA_OFFSET	(MQS_SB_OFFSET + MQS_SB_SIZE)
/* Members with larger logical blocks cannot hold the 4 KiB block at 4 KiB. */
#define MQS_SB_MAX_LBS		4096U
#define MQS_SB_MIN_LBS		512U
/* Member UUIDs of slots 0..MQS_SB_TABLE_SLOTS-1 are in every superblock. */
#define MQS_SB_TABLE_SLOTS	240U

/*
 * Feature flags.  A reader refuses a superblock with an incompatible flag
 * it does not know and ignores compatible ones it does not know.  Format
 * version 1 defines none.
 */
#define MQS_SB_FEAT_COMPAT_KNOWN	0ULL
#define MQS_SB_FEAT_INCOMPAT_KNOWN	0ULL

/* The mapping rule (module/mqstripe_map.h, MQS_LAYOUT_VERSION). */
#define MQS_SB_LAYOUT_STRIPE		1U

/* state */
#define MQS_SB_STATE_CLEAN	0U	/* stopped by stripectl stop */
#define MQS_SB_STATE_ACTIVE	1U	/* started, not stopped (yet) */

/* Byte offsets of the fields in the block (docs/FORMAT.md). */
enum {
	MQS_SB_OFF_MAGIC		= 0x000,	/* 8 bytes */
	MQS_SB_OFF_VERSION		= 0x008,	/* le32 */
	MQS_SB_OFF_CRC			= 0x00c,	/* le32 */
	MQS_SB_OFF_FEAT_COMPAT		= 0x010,	/* le64 */
	MQS_SB_OFF_FEAT_INCOMPAT	= 0x018,	/* le64 */
	MQS_SB_OFF_SB_OFFSET		= 0x020,	/* le64 */
	MQS_SB_OFF_LAYOUT		= 0x028,	/* le32 */
	MQS_SB_OFF_STATE		= 0x02c,	/* le32 */
	MQS_SB_OFF_ARRAY_UUID		= 0x030,	/* 16 bytes */
	MQS_SB_OFF_MEMBER_UUID		= 0x040,	/* 16 bytes */
	MQS_SB_OFF_SLOT			= 0x050,	/* le32 */
	MQS_SB_OFF_NR_MEMBERS		= 0x054,	/* le32 */
	MQS_SB_OFF_CHUNK		= 0x058,	/* le64 */
	MQS_SB_OFF_DATA_OFFSET		= 0x060,	/* le64 */
	MQS_SB_OFF_DATA_BYTES		= 0x068,	/* le64 */
	MQS_SB_OFF_ARRAY_LBS		= 0x070,	/* le32 */
	MQS_SB_OFF_MEMBER_LBS		= 0x074,	/* le32 */
	MQS_SB_OFF_CTIME		= 0x078,	/* le64 */
	MQS_SB_OFF_UTIME		= 0x080,	/* le64 */
	MQS_SB_OFF_EVENTS		= 0x088,	/* le64 */
	MQS_SB_OFF_NAME			= 0x090,	/* 32 bytes */
	MQS_SB_OFF_RESERVED		= 0x0b0,	/* 80 bytes, zero */
	MQS_SB_OFF_TABLE		= 0x100,	/* 240 x 16 bytes */
};

/**
 * struct mqs_sb - a superblock in host byte order
 * @version: format version (MQS_SB_VERSION).
 * @crc: the CRC-32C stored in the block (as read; encode ignores it).
 * @feature_compat: compatible feature flags.
 * @feature_incompat: incompatible feature flags.
 * @sb_offset: byte offset of this copy on the member (MQS_SB_OFFSET).
 * @layout: mapping rule (MQS_SB_LAYOUT_STRIPE).
 * @state: MQS_SB_STATE_*.
 * @array_uuid: the array's UUID, the same on every member.
 * @member_uuid: this member's UUID.
 * @slot: position of this member in the stripe, 0..@nr_members-1.
 * @nr_members: number of members.
 * @chunk_bytes: chunk size in bytes.
 * @data_offset_bytes: start of the data on every member, in bytes.
 * @data_bytes: bytes of data on every member (a multiple of the chunk).
 * @array_lbs: logical block size of the array (largest member's), bytes.
 * @member_lbs: logical block size of this member when written, bytes.
 * @ctime: creation time, seconds since 1970-01-01 UTC.
 * @utime: time of the last write of this superblock, same unit.
 * @events: event counter, bumped at create, assemble and stop.
 * @name: array name, NUL-terminated (may be empty).
 * @table: member UUIDs of slots 0..min(@nr_members, 240)-1.
 */
struct mqs_sb {
	uint32_t version;
	uint32_t crc;
	uint64_t feature_compat;
	uint64_t feature_incompat;
	uint64_t sb_offset;
	uint32_t layout;
	uint32_t state;
	uint8_t array_uuid[MQSTRIPE_UUID_LEN];
	uint8_t member_uuid[MQSTRIPE_UUID_LEN];
	uint32_t slot;
	uint32_t nr_members;
	uint64_t chunk_bytes;
	uint64_t data_offset_bytes;
	uint64_t data_bytes;
	uint32_t array_lbs;
	uint32_t member_lbs;
	uint64_t ctime;
	uint64_t utime;
	uint64_t events;
	char name[MQSTRIPE_NAME_LEN];
	uint8_t table[MQS_SB_TABLE_SLOTS][MQSTRIPE_UUID_LEN];
};

/* What decoding a block found, from worst to best. */
enum mqs_sb_status {
	MQS_SB_NONE,		/* no magic: not a member */
	MQS_SB_BAD_VERSION,	/* a format version this code cannot read */
	MQS_SB_BAD_CRC,		/* the checksum does not match */
	MQS_SB_INCOMPAT,	/* unknown incompatible feature flags */
	MQS_SB_BAD_LAYOUT,	/* unknown mapping rule */
	MQS_SB_INVALID,		/* a field out of its range */
	MQS_SB_OK,
};

uint32_t mqs_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t mqs_sb_block_crc(const uint8_t *block);
bool mqs_sb_has_magic(const uint8_t *block);
void mqs_sb_encode(const struct mqs_sb *sb, uint8_t *block);
void mqs_sb_encode_over(const struct mqs_sb *sb, uint8_t *block);
enum mqs_sb_status mqs_sb_decode(const uint8_t *block, struct mqs_sb *sb,
				 char *err, size_t len);
int mqs_sb_check_fields(const struct mqs_sb *sb, char *err, size_t len);
const char *mqs_sb_status_name(enum mqs_sb_status status);
const char *mqs_sb_state_name(uint32_t state);

uint64_t mqs_data_bytes(uint64_t min_member_bytes, uint64_t offset,
			uint64_t chunk);
bool mqs_uuid_is_nil(const uint8_t uuid[MQSTRIPE_UUID_LEN]);
void mqs_uuid_make_v4(uint8_t uuid[MQSTRIPE_UUID_LEN]);

#endif /* STRIPECTL_SUPERBLOCK_H */
