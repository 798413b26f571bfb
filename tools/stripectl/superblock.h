/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk superblock of an mqstripe member (docs/FORMAT.md): 4 KiB
 * blocks, little-endian, each protected by a CRC-32C.  Format version 2
 * keeps two copies, at bytes 4096 and 8192, with a generation counter;
 * format version 1 keeps one, at byte 4096.
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

#define MQS_SB_OFFSET		4096ULL	/* byte offset of the first copy */
#define MQS_SB_SIZE		4096U	/* bytes of one copy, covered by its CRC */
/* The area the copies live in: MQS_SB_COPIES_MAX blocks from MQS_SB_OFFSET. */
#define MQS_SB_COPIES_MAX	2U
#define MQS_SB_AREA_SIZE	(MQS_SB_COPIES_MAX * MQS_SB_SIZE)
#define MQS_SB_MAGIC		"MQSTRIPE"
#define MQS_SB_MAGIC_LEN	8
#define MQS_SB_VERSION_1	1U	/* one copy, 240 member UUIDs */
#define MQS_SB_VERSION_2	2U	/* two copies, generation, ro_compat */
#define MQS_SB_VERSION		MQS_SB_VERSION_2	/* what create writes */
/* The data offset must leave room for the copies (8K for version 1). */
#define MQS_SB_MIN_DATA_OFFSET	(MQS_SB_OFFSET + MQS_SB_AREA_SIZE)
/* Members with larger logical blocks cannot hold the 4 KiB block at 4 KiB. */
#define MQS_SB_MAX_LBS		4096U
#define MQS_SB_MIN_LBS		512U
/*
 * Member UUIDs of slots 0..N-1 are in every superblock: N = 240 in format
 * version 1, 224 in version 2 (mqs_sb_table_slots()).  The struct holds
 * the larger.
 */
#define MQS_SB_TABLE_SLOTS	240U
#define MQS_SB_V2_TABLE_SLOTS	224U
/* Version 2 with MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES: the sizes come first. */
#define MQS_SB_V2_SIZES_TABLE_SLOTS	96U
/* The fault record's slot bitmap: every slot the module allows. */
#define MQS_SB_FAULT_SLOTS_LEN	(MQSTRIPE_MAX_MEMBERS / 8)
/* Version 2: the layout segments the block has room for. */
#define MQS_SB_V2_SEGMENTS	4U

/*
 * Feature flags.  A reader refuses a superblock with an incompatible flag
 * it does not know, may only read (start read-only, never write) an array
 * with a read-only-compatible flag it does not know (format version 2),
 * and ignores compatible ones it does not know.  Compatible:
 * MQS_SB_FEAT_COMPAT_FAULTS, the fault record (@fault_events,
 * @fault_slots), in bytes both formats leave reserved.
 *
 * MEMBER_SIZES (format version 2): members of unequal size, each with its
 * own data size in a per-slot table (@sizes); the array is made of zones
 * (module/mqstripe_map.h).  An array of equal members never has it.
 */
#define MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES	(1ULL << 0)
/*
 * SEGMENTS (format version 2, with MEMBER_SIZES): members added to an
 * array ("stripectl add") make a segment of their own after the array's
 * end; @nr_segments (2..4) entries of the segment table, each laid out
 * as an array of its own (its zones).  At most 96 members (the table of
 * member UUIDs with MEMBER_SIZES).  An array of one segment never has it.
 */
#define MQS_SB_FEAT_INCOMPAT_SEGMENTS		(1ULL << 1)
#define MQS_SB_FEAT_COMPAT_FAULTS	(1ULL << 0)	/* the fault record */
#define MQS_SB_FEAT_COMPAT_KNOWN	MQS_SB_FEAT_COMPAT_FAULTS
#define MQS_SB_FEAT_RO_COMPAT_KNOWN	0ULL
#define MQS_SB_FEAT_INCOMPAT_KNOWN	(MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES | \
					 MQS_SB_FEAT_INCOMPAT_SEGMENTS)

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
	MQS_SB_OFF_RESERVED		= 0x0b0,	/* v1: 80 bytes, zero */
	MQS_SB_OFF_TABLE		= 0x100,	/* v1: 240 x 16 bytes */
	/* format version 2: the fields above, then */
	MQS_SB_OFF_FEAT_RO_COMPAT	= 0x0b0,	/* le64 */
	MQS_SB_OFF_GENERATION		= 0x0b8,	/* le64 */
	MQS_SB_OFF_QUEUE_DEPTH		= 0x0c0,	/* le32 */
	MQS_SB_OFF_NR_SEGMENTS		= 0x0c4,	/* le32 */
	MQS_SB_OFF_RESHAPE_POS		= 0x0c8,	/* le64 */
	MQS_SB_OFF_V2_RESERVED		= 0x0d0,	/* 48 bytes, zero */
	/* both formats, with MQS_SB_FEAT_COMPAT_FAULTS (else reserved) */
	MQS_SB_OFF_FAULT_EVENTS		= 0x0d0,	/* le64 */
	MQS_SB_OFF_FAULT_SLOTS		= 0x0d8,	/* 32 bytes, a bit a slot */
	MQS_SB_OFF_SEGMENTS		= 0x100,	/* 4 x 64 bytes */
	MQS_SB_OFF_V2_TABLE		= 0x200,	/* 224 x 16 bytes */
	/* format version 2 with MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES */
	MQS_SB_OFF_V2_SIZES		= 0x200,	/* 256 x le64 */
	MQS_SB_OFF_V2_SIZES_TABLE	= 0xa00,	/* 96 x 16 bytes */
};

/* Version 2: one layout segment (64 bytes), offsets within it. */
enum {
	MQS_SB_SEG_SIZE			= 0x40,
	MQS_SB_SEG_ARRAY_START		= 0x00,	/* le64, array byte */
	MQS_SB_SEG_DATA_OFFSET		= 0x08,	/* le64, member byte */
	MQS_SB_SEG_DATA_BYTES		= 0x10,	/* le64 */
	MQS_SB_SEG_CHUNK		= 0x18,	/* le64 */
	MQS_SB_SEG_LAYOUT		= 0x20,	/* le32 */
	MQS_SB_SEG_NR_MEMBERS		= 0x24,	/* le32 */
	MQS_SB_SEG_FIRST_SLOT		= 0x28,	/* le32, with SEGMENTS */
	MQS_SB_SEG_RESERVED		= 0x2c,	/* 20 bytes, zero */
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
 * @data_bytes: bytes of data on every member (a multiple of the chunk);
 *	with MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES the smallest of @sizes.
 * @array_lbs: logical block size of the array (largest member's), bytes.
 * @member_lbs: logical block size of this member when written, bytes.
 * @ctime: creation time, seconds since 1970-01-01 UTC.
 * @utime: time of the last write of this superblock, same unit.
 * @events: event counter, bumped at create, assemble and stop.
 * @name: array name, NUL-terminated (may be empty).
 * @table: member UUIDs of slots 0..min(@nr_members, mqs_sb_table_slots())-1.
 * @feature_ro_compat: read-only-compatible feature flags (version 2).
 * @generation: bumped at every write of this member's superblock; of two
 *	valid copies the higher one counts (version 2; 0 in version 1).
 * @queue_depth: the array's tags per hardware context, as created; 0 for
 *	the module's default (version 2; 0 in version 1).
 * @nr_segments: layout segments (version 2: 1, or 2..4 with
 *	MQS_SB_FEAT_INCOMPAT_SEGMENTS; 0 in version 1).
 * @seg_members: with MQS_SB_FEAT_INCOMPAT_SEGMENTS, the members of each
 *	segment, in slot order (the rest zero); else all zero.
 * @reshape_pos: array byte a reshape has reached, 0 for none (version 2).
 * @sizes: with MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES, each slot's data bytes
 *	(slots 0..@nr_members-1; the rest zero); else all zero.
 * @fault_events: with MQS_SB_FEAT_COMPAT_FAULTS, the event counter of the
 *	update that left the members of @fault_slots behind (faulty or gone
 *	in the module): a member of such a slot whose counter is below it is
 *	stale, however close; 0 without the feature.
 * @fault_slots: those slots, bit s % 8 of byte s / 8 for slot s.
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
	uint64_t feature_ro_compat;
	uint64_t generation;
	uint32_t queue_depth;
	uint32_t nr_segments;
	uint32_t seg_members[MQS_SB_V2_SEGMENTS];
	uint64_t reshape_pos;
	uint64_t sizes[MQSTRIPE_MAX_MEMBERS];
	uint64_t fault_events;
	uint8_t fault_slots[MQS_SB_FAULT_SLOTS_LEN];
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

/**
 * struct mqs_sb_copies - what the superblock area of a member holds
 * @status: per copy (0: byte 4096, 1: byte 8192), what decoding found.
 * @why: per copy, decode's reason.
 * @generation: per copy, its generation (valid copies only).
 * @chosen: the copy the superblock was taken from.
 * @nr: copies the chosen superblock's format keeps (1 or 2).
 */
struct mqs_sb_copies {
	enum mqs_sb_status status[MQS_SB_COPIES_MAX];
	char why[MQS_SB_COPIES_MAX][256];
	uint64_t generation[MQS_SB_COPIES_MAX];
	unsigned int chosen;
	unsigned int nr;
};

bool mqs_all_zero(const void *buf, size_t len);
uint32_t mqs_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t mqs_sb_block_crc(const uint8_t *block);
bool mqs_sb_has_magic(const uint8_t *block);
void mqs_sb_encode(const struct mqs_sb *sb, uint8_t *block);
void mqs_sb_encode_over(const struct mqs_sb *sb, uint8_t *block);
enum mqs_sb_status mqs_sb_decode(const uint8_t *block, struct mqs_sb *sb,
				 char *err, size_t len);
enum mqs_sb_status mqs_sb_decode_at(const uint8_t *block, uint64_t offset,
				    struct mqs_sb *sb, char *err, size_t len);
enum mqs_sb_status mqs_sb_decode_area(const uint8_t *area, size_t area_len,
				      struct mqs_sb *sb,
				      struct mqs_sb_copies *cp, char *err,
				      size_t len);
unsigned int mqs_sb_encode_area(const struct mqs_sb *sb, const uint8_t *from,
				uint8_t *area);
uint32_t mqs_sb_table_slots(const struct mqs_sb *sb);
bool mqs_sb_zoned(const struct mqs_sb *sb);
bool mqs_sb_segmented(const struct mqs_sb *sb);
uint32_t mqs_sb_segments(const struct mqs_sb *sb, uint32_t *members);
/* Members an array of segments may have (its member UUID table). */
#define MQS_SB_SEGMENTS_MAX_MEMBERS	MQS_SB_V2_SIZES_TABLE_SLOTS
uint64_t mqs_sb_slot_bytes(const struct mqs_sb *sb, uint32_t slot);
uint64_t mqs_sb_capacity(const struct mqs_sb *sb);
bool mqs_sb_fault_slot(const struct mqs_sb *sb, uint32_t slot);
uint64_t mqs_sb_min_data_offset(uint32_t version);
int mqs_sb_check_fields(const struct mqs_sb *sb, char *err, size_t len);
const char *mqs_sb_status_name(enum mqs_sb_status status);
const char *mqs_sb_state_name(uint32_t state);
/* Room for mqs_sb_shown_name(): every byte of a name as \xHH, and a NUL. */
#define MQS_SB_SHOWN_NAME_LEN	(4 * MQSTRIPE_NAME_LEN + 1)
const char *mqs_sb_shown_name(const char *name, char *buf);

uint64_t mqs_data_bytes(uint64_t min_member_bytes, uint64_t offset,
			uint64_t chunk);

/**
 * struct mqs_zone_desc - one zone of an array of members of unequal size
 * @array_start: its first array byte.
 * @array_bytes: its bytes in the array: @nr x @member_bytes.
 * @member_start: where it starts on its members, after the data offset.
 * @member_bytes: its bytes on each of its members.
 * @nr: its members: those holding more than @member_start.
 * @seg: the segment it is in (0 for an array of one segment).
 * @first_slot: the segment's first slot.
 */
struct mqs_zone_desc {
	uint32_t seg;
	uint32_t first_slot;
	uint64_t array_start;
	uint64_t array_bytes;
	uint64_t member_start;
	uint64_t member_bytes;
	uint32_t nr;
};

uint32_t mqs_zones_describe(const uint64_t *sizes, uint32_t n,
			    struct mqs_zone_desc *zones);
uint32_t mqs_segzones_describe(const uint64_t *sizes, const uint32_t *seg,
			       uint32_t nseg, struct mqs_zone_desc *zones);

#endif /* STRIPECTL_SUPERBLOCK_H */
