// SPDX-License-Identifier: GPL-2.0
/*
 * Encode, decode and check the member superblock (docs/FORMAT.md).  The
 * block is built byte by byte with explicit little-endian stores, never by
 * casting a struct onto it, so the code does not depend on the host's
 * byte order or on struct padding.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <uuid.h>

#include "parse.h"
#include "superblock.h"

/* ----- CRC-32C (Castagnoli), as in iSCSI, ext4, btrfs and XFS ----- */

/*
 * Reflected polynomial 0x82F63B78 (0x1EDC6F41 unreflected); the caller
 * starts with crc = 0 and chains calls; init and final inversion are done
 * here, so mqs_crc32c(0, "123456789", 9) == 0xE3069283.
 */
/**
 * mqs_all_zero() - are all @len bytes at @buf zero?
 * @buf: the bytes.
 * @len: how many.
 *
 * Return: true when they are (also for @len 0).
 */
bool mqs_all_zero(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

uint32_t mqs_crc32c(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	static bool ready;
	const uint8_t *p = buf;
	size_t i;

	if (!ready) {
		for (i = 0; i < 256; i++) {
			uint32_t c = (uint32_t)i;
			int k;

			for (k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0x82F63B78U : c >> 1;
			table[i] = c;
		}
		ready = true;
	}
	crc = ~crc;
	for (i = 0; i < len; i++)
		crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* CRC-32C of the 4096-byte block, its checksum field taken as zero. */
uint32_t mqs_sb_block_crc(const uint8_t *block)
{
	static const uint8_t zero[4];
	uint32_t crc;

	crc = mqs_crc32c(0, block, MQS_SB_OFF_CRC);
	crc = mqs_crc32c(crc, zero, sizeof(zero));
	return mqs_crc32c(crc, block + MQS_SB_OFF_CRC + 4,
			  MQS_SB_SIZE - MQS_SB_OFF_CRC - 4);
}

/* ----- little-endian fields ----- */

static void put_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get_le64(const uint8_t *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

bool mqs_sb_has_magic(const uint8_t *block)
{
	return !memcmp(block + MQS_SB_OFF_MAGIC, MQS_SB_MAGIC,
		       MQS_SB_MAGIC_LEN);
}

/**
 * mqs_sb_encode() - the 4096-byte block of a new superblock
 * @sb: the superblock; @sb->crc is ignored.
 * @block: MQS_SB_SIZE bytes, overwritten entirely (reserved bytes and
 *	unused table entries are zero).
 */
void mqs_sb_encode(const struct mqs_sb *sb, uint8_t *block)
{
	memset(block, 0, MQS_SB_SIZE);
	mqs_sb_encode_over(sb, block);
}

/**
 * mqs_sb_table_slots() - member UUIDs a superblock of this format holds
 * @sb: the superblock (its @version counts).
 *
 * Return: 240 for format version 1, 224 for version 2, 96 for version 2
 * with member sizes (docs/FORMAT.md).
 */
uint32_t mqs_sb_table_slots(const struct mqs_sb *sb)
{
	if (sb->version == MQS_SB_VERSION_1)
		return MQS_SB_TABLE_SLOTS;
	return mqs_sb_zoned(sb) ? MQS_SB_V2_SIZES_TABLE_SLOTS :
				  MQS_SB_V2_TABLE_SLOTS;
}

/**
 * mqs_sb_zoned() - does the superblock record each member's size
 * @sb: the superblock.
 *
 * Return: true with MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES (format version 2).
 */
bool mqs_sb_zoned(const struct mqs_sb *sb)
{
	return sb->version == MQS_SB_VERSION_2 &&
	       (sb->feature_incompat & MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES);
}

/**
 * mqs_sb_segmented() - is the array made of several segments
 * @sb: the superblock.
 *
 * Return: true with MQS_SB_FEAT_INCOMPAT_SEGMENTS (format version 2).
 */
bool mqs_sb_segmented(const struct mqs_sb *sb)
{
	return sb->version == MQS_SB_VERSION_2 &&
	       (sb->feature_incompat & MQS_SB_FEAT_INCOMPAT_SEGMENTS);
}

/**
 * mqs_sb_segments() - the members of each segment of the array
 * @sb: a valid superblock.
 * @members: room for MQS_SB_V2_SEGMENTS entries: the members of each
 *	segment, in slot order; the entries past the segments are zero.
 *
 * Return: the number of segments: 1 (every member) without
 * MQS_SB_FEAT_INCOMPAT_SEGMENTS.
 */
uint32_t mqs_sb_segments(const struct mqs_sb *sb, uint32_t *members)
{
	uint32_t i;

	memset(members, 0, MQS_SB_V2_SEGMENTS * sizeof(*members));
	if (!mqs_sb_segmented(sb)) {
		members[0] = sb->nr_members;
		return 1;
	}
	for (i = 0; i < sb->nr_segments && i < MQS_SB_V2_SEGMENTS; i++)
		members[i] = sb->seg_members[i];
	return sb->nr_segments;
}

/**
 * mqs_sb_slot_bytes() - data bytes of the member in a slot
 * @sb: the superblock.
 * @slot: below @sb->nr_members.
 *
 * Return: its entry of the size table, or @sb->data_bytes (every member's)
 * without one.
 */
uint64_t mqs_sb_slot_bytes(const struct mqs_sb *sb, uint32_t slot)
{
	return mqs_sb_zoned(sb) ? sb->sizes[slot] : sb->data_bytes;
}

/**
 * mqs_sb_capacity() - the array's bytes by a superblock
 * @sb: a valid superblock.
 *
 * Return: the sum of the members' data bytes.
 */
uint64_t mqs_sb_capacity(const struct mqs_sb *sb)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < sb->nr_members; i++)
		sum += mqs_sb_slot_bytes(sb, i);
	return sum;
}

/**
 * mqs_sb_fault_slot() - does the fault record name this slot
 * @sb: the superblock.
 * @slot: the slot.
 *
 * Return: true when @sb has the fault record (MQS_SB_FEAT_COMPAT_FAULTS)
 * and its bitmap has @slot.
 */
bool mqs_sb_fault_slot(const struct mqs_sb *sb, uint32_t slot)
{
	return (sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS) &&
	       sb->fault_events && slot < MQSTRIPE_MAX_MEMBERS &&
	       (sb->fault_slots[slot / 8] & (1U << (slot % 8)));
}

/**
 * mqs_sb_min_data_offset() - the smallest data offset a format allows
 * @version: MQS_SB_VERSION_1 or MQS_SB_VERSION_2.
 *
 * Return: bytes: the end of the copies, 8K (one copy) or 12K (two).
 */
uint64_t mqs_sb_min_data_offset(uint32_t version)
{
	return version == MQS_SB_VERSION_1 ? MQS_SB_OFFSET + MQS_SB_SIZE :
					     MQS_SB_MIN_DATA_OFFSET;
}

static uint32_t table_off(const struct mqs_sb *sb)
{
	if (sb->version == MQS_SB_VERSION_1)
		return MQS_SB_OFF_TABLE;
	return mqs_sb_zoned(sb) ? MQS_SB_OFF_V2_SIZES_TABLE :
				  MQS_SB_OFF_V2_TABLE;
}

/* The smallest of @n sizes. */
static uint64_t min_size(const uint64_t *sizes, uint32_t n)
{
	uint64_t min = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (sizes[i] < min)
			min = sizes[i];
	return min;
}

/*
 * Version 2: the segment table at @seg (MQS_SB_V2_SEGMENTS entries).
 * One segment: the header's geometry, the others zero.  With SEGMENTS:
 * entry k starts where the segments before it end, holds its first
 * zone's bytes per member (its smallest member's), its member count and
 * its first slot; the unused entries zero.  @sb->seg_members must add
 * up to @sb->nr_members.
 */
static void encode_segments(const struct mqs_sb *sb, uint8_t *seg)
{
	uint32_t k, i, first = 0, nseg = 1, nr[MQS_SB_V2_SEGMENTS];
	uint64_t start = 0, bytes;

	memset(seg, 0, MQS_SB_V2_SEGMENTS * MQS_SB_SEG_SIZE);
	if (mqs_sb_segmented(sb)) {
		nseg = sb->nr_segments < MQS_SB_V2_SEGMENTS ?
		       sb->nr_segments : MQS_SB_V2_SEGMENTS;
		for (k = 0; k < nseg; k++)
			nr[k] = sb->seg_members[k];
	} else {
		nr[0] = sb->nr_members;
	}
	for (k = 0; k < nseg; k++, seg += MQS_SB_SEG_SIZE) {
		bytes = nseg > 1 ? min_size(sb->sizes + first, nr[k]) :
				   sb->data_bytes;
		put_le64(seg + MQS_SB_SEG_ARRAY_START, start);
		put_le64(seg + MQS_SB_SEG_DATA_OFFSET, sb->data_offset_bytes);
		put_le64(seg + MQS_SB_SEG_DATA_BYTES, bytes);
		put_le64(seg + MQS_SB_SEG_CHUNK, sb->chunk_bytes);
		put_le32(seg + MQS_SB_SEG_LAYOUT, sb->layout);
		put_le32(seg + MQS_SB_SEG_NR_MEMBERS, nr[k]);
		if (nseg > 1) {
			put_le32(seg + MQS_SB_SEG_FIRST_SLOT, first);
			for (i = 0; i < nr[k]; i++)
				start += sb->sizes[first + i];
		}
		first += nr[k];
	}
}

/**
 * mqs_sb_encode_over() - rewrite the fields of an existing block
 * @sb: the superblock; @sb->crc is ignored; @sb->version says which
 *	format's fields are written.
 * @block: the block as read, of the same format version; every field of
 *	that format is written, its reserved bytes are kept as they were (a
 *	newer writer may have put a compatible feature's data there), and the
 *	checksum is recomputed.
 */
void mqs_sb_encode_over(const struct mqs_sb *sb, uint8_t *block)
{
	uint32_t i, n, slots = mqs_sb_table_slots(sb);

	memcpy(block + MQS_SB_OFF_MAGIC, MQS_SB_MAGIC, MQS_SB_MAGIC_LEN);
	put_le32(block + MQS_SB_OFF_VERSION, sb->version);
	put_le64(block + MQS_SB_OFF_FEAT_COMPAT, sb->feature_compat);
	put_le64(block + MQS_SB_OFF_FEAT_INCOMPAT, sb->feature_incompat);
	put_le64(block + MQS_SB_OFF_SB_OFFSET, sb->sb_offset);
	put_le32(block + MQS_SB_OFF_LAYOUT, sb->layout);
	put_le32(block + MQS_SB_OFF_STATE, sb->state);
	memcpy(block + MQS_SB_OFF_ARRAY_UUID, sb->array_uuid,
	       MQSTRIPE_UUID_LEN);
	memcpy(block + MQS_SB_OFF_MEMBER_UUID, sb->member_uuid,
	       MQSTRIPE_UUID_LEN);
	put_le32(block + MQS_SB_OFF_SLOT, sb->slot);
	put_le32(block + MQS_SB_OFF_NR_MEMBERS, sb->nr_members);
	put_le64(block + MQS_SB_OFF_CHUNK, sb->chunk_bytes);
	put_le64(block + MQS_SB_OFF_DATA_OFFSET, sb->data_offset_bytes);
	put_le64(block + MQS_SB_OFF_DATA_BYTES, sb->data_bytes);
	put_le32(block + MQS_SB_OFF_ARRAY_LBS, sb->array_lbs);
	put_le32(block + MQS_SB_OFF_MEMBER_LBS, sb->member_lbs);
	put_le64(block + MQS_SB_OFF_CTIME, sb->ctime);
	put_le64(block + MQS_SB_OFF_UTIME, sb->utime);
	put_le64(block + MQS_SB_OFF_EVENTS, sb->events);
	/* NUL-padded; the last byte stays NUL */
	memset(block + MQS_SB_OFF_NAME, 0, MQSTRIPE_NAME_LEN);
	memcpy(block + MQS_SB_OFF_NAME, sb->name,
	       strnlen(sb->name, MQSTRIPE_NAME_LEN - 1));
	if (sb->version != MQS_SB_VERSION_1) {
		put_le64(block + MQS_SB_OFF_FEAT_RO_COMPAT,
			 sb->feature_ro_compat);
		put_le64(block + MQS_SB_OFF_GENERATION, sb->generation);
		put_le32(block + MQS_SB_OFF_QUEUE_DEPTH, sb->queue_depth);
		put_le32(block + MQS_SB_OFF_NR_SEGMENTS, sb->nr_segments);
		put_le64(block + MQS_SB_OFF_RESHAPE_POS, sb->reshape_pos);
		encode_segments(sb, block + MQS_SB_OFF_SEGMENTS);
	}
	if (mqs_sb_zoned(sb))
		for (i = 0; i < MQSTRIPE_MAX_MEMBERS; i++)
			put_le64(block + MQS_SB_OFF_V2_SIZES + 8 * i,
				 i < sb->nr_members ? sb->sizes[i] : 0);
	if (sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS) {
		put_le64(block + MQS_SB_OFF_FAULT_EVENTS, sb->fault_events);
		memcpy(block + MQS_SB_OFF_FAULT_SLOTS, sb->fault_slots,
		       MQS_SB_FAULT_SLOTS_LEN);
	}
	n = sb->nr_members < slots ? sb->nr_members : slots;
	memset(block + table_off(sb), 0, slots * MQSTRIPE_UUID_LEN);
	for (i = 0; i < n; i++)
		memcpy(block + table_off(sb) + i * MQSTRIPE_UUID_LEN,
		       sb->table[i], MQSTRIPE_UUID_LEN);
	put_le32(block + MQS_SB_OFF_CRC, mqs_sb_block_crc(block));
}

/**
 * mqs_sb_encode_area() - the superblock area of a member to write
 * @sb: the superblock; its @version says how many copies (1 or 2); its
 *	@sb_offset is set per copy.
 * @from: the copy it was read from (its reserved bytes are kept when it
 *	has @sb's format version), or NULL for a fresh block.
 * @area: MQS_SB_AREA_SIZE bytes: copy 0 (byte 4096 of the member) then
 *	copy 1 (byte 8192); only the copies returned are written.
 *
 * Return: the copies to write: 1 (format version 1) or 2.
 */
unsigned int mqs_sb_encode_area(const struct mqs_sb *sb, const uint8_t *from,
				uint8_t *area)
{
	unsigned int i, nr = sb->version == MQS_SB_VERSION_1 ? 1 : 2;
	struct mqs_sb copy = *sb;
	uint8_t *block;

	for (i = 0; i < nr; i++) {
		block = area + i * MQS_SB_SIZE;
		if (from && mqs_sb_has_magic(from) &&
		    get_le32(from + MQS_SB_OFF_VERSION) == sb->version) {
			if (block != from)
				memcpy(block, from, MQS_SB_SIZE);
		} else {
			memset(block, 0, MQS_SB_SIZE);
		}
		copy.sb_offset = MQS_SB_OFFSET + i * MQS_SB_SIZE;
		mqs_sb_encode_over(&copy, block);
	}
	return nr;
}

static void decode_fields(const uint8_t *block, struct mqs_sb *sb)
{
	uint32_t i;

	sb->version = get_le32(block + MQS_SB_OFF_VERSION);
	sb->crc = get_le32(block + MQS_SB_OFF_CRC);
	sb->feature_compat = get_le64(block + MQS_SB_OFF_FEAT_COMPAT);
	sb->feature_incompat = get_le64(block + MQS_SB_OFF_FEAT_INCOMPAT);
	sb->sb_offset = get_le64(block + MQS_SB_OFF_SB_OFFSET);
	sb->layout = get_le32(block + MQS_SB_OFF_LAYOUT);
	sb->state = get_le32(block + MQS_SB_OFF_STATE);
	memcpy(sb->array_uuid, block + MQS_SB_OFF_ARRAY_UUID,
	       MQSTRIPE_UUID_LEN);
	memcpy(sb->member_uuid, block + MQS_SB_OFF_MEMBER_UUID,
	       MQSTRIPE_UUID_LEN);
	sb->slot = get_le32(block + MQS_SB_OFF_SLOT);
	sb->nr_members = get_le32(block + MQS_SB_OFF_NR_MEMBERS);
	sb->chunk_bytes = get_le64(block + MQS_SB_OFF_CHUNK);
	sb->data_offset_bytes = get_le64(block + MQS_SB_OFF_DATA_OFFSET);
	sb->data_bytes = get_le64(block + MQS_SB_OFF_DATA_BYTES);
	sb->array_lbs = get_le32(block + MQS_SB_OFF_ARRAY_LBS);
	sb->member_lbs = get_le32(block + MQS_SB_OFF_MEMBER_LBS);
	sb->ctime = get_le64(block + MQS_SB_OFF_CTIME);
	sb->utime = get_le64(block + MQS_SB_OFF_UTIME);
	sb->events = get_le64(block + MQS_SB_OFF_EVENTS);
	memcpy(sb->name, block + MQS_SB_OFF_NAME, MQSTRIPE_NAME_LEN);
	if (sb->version == MQS_SB_VERSION_2) {
		sb->feature_ro_compat =
			get_le64(block + MQS_SB_OFF_FEAT_RO_COMPAT);
		sb->generation = get_le64(block + MQS_SB_OFF_GENERATION);
		sb->queue_depth = get_le32(block + MQS_SB_OFF_QUEUE_DEPTH);
		sb->nr_segments = get_le32(block + MQS_SB_OFF_NR_SEGMENTS);
		sb->reshape_pos = get_le64(block + MQS_SB_OFF_RESHAPE_POS);
	}
	memset(sb->seg_members, 0, sizeof(sb->seg_members));
	if (mqs_sb_segmented(sb))
		for (i = 0; i < MQS_SB_V2_SEGMENTS; i++)
			sb->seg_members[i] =
				get_le32(block + MQS_SB_OFF_SEGMENTS +
					 i * MQS_SB_SEG_SIZE +
					 MQS_SB_SEG_NR_MEMBERS);
	if (mqs_sb_zoned(sb))
		for (i = 0; i < MQSTRIPE_MAX_MEMBERS; i++)
			sb->sizes[i] = get_le64(block + MQS_SB_OFF_V2_SIZES +
						8 * i);
	sb->fault_events = 0;
	memset(sb->fault_slots, 0, MQS_SB_FAULT_SLOTS_LEN);
	if (sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS) {
		sb->fault_events = get_le64(block + MQS_SB_OFF_FAULT_EVENTS);
		memcpy(sb->fault_slots, block + MQS_SB_OFF_FAULT_SLOTS,
		       MQS_SB_FAULT_SLOTS_LEN);
	}
	for (i = 0; i < mqs_sb_table_slots(sb); i++)
		memcpy(sb->table[i],
		       block + table_off(sb) + i * MQSTRIPE_UUID_LEN,
		       MQSTRIPE_UUID_LEN);
}

/*
 * Version 2: the segment table must say what the header says: one
 * segment, the whole array; or, with SEGMENTS, 2..4 segments whose
 * member counts add up to the array's, each entry as encode_segments()
 * writes it from the header and the member sizes.  A reshape in progress
 * comes with an incompatible feature flag this reader does not know,
 * refused before.
 */
static const char *check_v2_layout(const uint8_t *block,
				   const struct mqs_sb *sb)
{
	const uint8_t *seg = block + MQS_SB_OFF_SEGMENTS;
	uint8_t want[MQS_SB_V2_SEGMENTS * MQS_SB_SEG_SIZE];
	uint32_t i, sum = 0;

	if (sb->reshape_pos)
		return "it records a reshape position, but no reshape feature";
	if (!mqs_sb_segmented(sb)) {
		if (sb->nr_segments != 1)
			return "the segment count is not 1";
		encode_segments(sb, want);
		/* its reserved bytes are not looked at, as ever */
		if (memcmp(seg, want, MQS_SB_SEG_FIRST_SLOT))
			return "segment 0 does not match the array geometry";
		if (memcmp(seg + MQS_SB_SEG_SIZE, want + MQS_SB_SEG_SIZE,
			   sizeof(want) - MQS_SB_SEG_SIZE))
			return "an unused segment entry is not zero";
		return NULL;
	}
	if (!(sb->feature_incompat & MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES))
		return "it has segments without member sizes";
	if (sb->nr_segments < 2 || sb->nr_segments > MQS_SB_V2_SEGMENTS)
		return "the segment count is not 2 to 4";
	if (sb->nr_members > MQS_SB_SEGMENTS_MAX_MEMBERS)
		return "an array of segments has more than 96 members";
	for (i = 0; i < MQS_SB_V2_SEGMENTS; i++) {
		if (i < sb->nr_segments && !sb->seg_members[i])
			return "a segment has no members";
		if (i >= sb->nr_segments && sb->seg_members[i])
			return "an unused segment entry is not zero";
		sum += sb->seg_members[i];
	}
	if (sum != sb->nr_members)
		return "the segments' members do not add up to the member count";
	encode_segments(sb, want);
	if (memcmp(seg, want, sizeof(want)))
		return "a segment entry does not match the member sizes";
	return NULL;
}

/**
 * mqs_sb_decode_at() - read and check one 4096-byte copy
 * @block: the bytes read at @offset.
 * @offset: the member byte @block was read at: a copy must say where it
 *	lives (a block copied elsewhere is not a superblock there).
 * @sb: filled with every field of its format version (of version 1 when
 *	the version is unknown) whenever the magic is there, even when the
 *	block is refused, so that examine can show it; @sb->name is always
 *	NUL-terminated.
 * @err: the reason when the result is not MQS_SB_OK or MQS_SB_NONE.
 * @len: room at @err.
 *
 * The checks run in the order of docs/FORMAT.md "Reading": magic,
 * checksum (its place and rule are those of every format version), format
 * version, incompatible features, layout, then the field ranges.
 *
 * Return: what was found.
 */
enum mqs_sb_status mqs_sb_decode_at(const uint8_t *block, uint64_t offset,
				    struct mqs_sb *sb, char *err, size_t len)
{
	const char *bad;
	uint32_t crc;
	uint64_t unknown;

	memset(sb, 0, sizeof(*sb));
	mqs_set_err(err, len, "no mqstripe superblock");
	if (!mqs_sb_has_magic(block))
		return MQS_SB_NONE;
	decode_fields(block, sb);
	sb->name[MQSTRIPE_NAME_LEN - 1] = '\0';
	crc = mqs_sb_block_crc(block);
	if (crc != sb->crc) {
		mqs_set_err(err, len,
			"superblock checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 "): the superblock is damaged",
			sb->crc, crc);
		return MQS_SB_BAD_CRC;
	}
	if (sb->version != MQS_SB_VERSION_1 &&
	    sb->version != MQS_SB_VERSION_2) {
		mqs_set_err(err, len,
			"superblock format version %" PRIu32 " is not supported (this stripectl reads versions 1 and 2): use a newer stripectl",
			sb->version);
		return MQS_SB_BAD_VERSION;
	}
	unknown = sb->feature_incompat & ~MQS_SB_FEAT_INCOMPAT_KNOWN;
	if (unknown) {
		mqs_set_err(err, len,
			"superblock has unknown incompatible feature flags 0x%" PRIx64 ": this stripectl cannot use the array, use a newer stripectl",
			unknown);
		return MQS_SB_INCOMPAT;
	}
	if (sb->layout != MQS_SB_LAYOUT_STRIPE) {
		mqs_set_err(err, len,
			"superblock has layout version %" PRIu32 ", this stripectl and module know only layout %u: use a newer stripectl",
			sb->layout, MQS_SB_LAYOUT_STRIPE);
		return MQS_SB_BAD_LAYOUT;
	}
	if (!memchr(block + MQS_SB_OFF_NAME, '\0', MQSTRIPE_NAME_LEN)) {
		mqs_set_err(err, len,
			"superblock is invalid: the name is not NUL-terminated");
		return MQS_SB_INVALID;
	}
	if (mqs_sb_check_fields(sb, err, len))
		return MQS_SB_INVALID;
	if (sb->sb_offset != offset) {
		mqs_set_err(err, len,
			"superblock is invalid: it says it lives at byte %" PRIu64 ", it was read at byte %" PRIu64 " (a copy made at another offset?)",
			sb->sb_offset, offset);
		return MQS_SB_INVALID;
	}
	bad = sb->version == MQS_SB_VERSION_2 ?
	      check_v2_layout(block, sb) : NULL;
	if (bad) {
		mqs_set_err(err, len, "superblock is invalid: %s", bad);
		return MQS_SB_INVALID;
	}
	mqs_set_err(err, len, "valid");
	return MQS_SB_OK;
}

/**
 * mqs_sb_decode() - read and check the copy at byte 4096
 * @block: the bytes read at MQS_SB_OFFSET.
 * @sb: as for mqs_sb_decode_at().
 * @err: the reason when the result is not MQS_SB_OK or MQS_SB_NONE.
 * @len: room at @err.
 *
 * Return: what was found.
 */
enum mqs_sb_status mqs_sb_decode(const uint8_t *block, struct mqs_sb *sb,
				 char *err, size_t len)
{
	return mqs_sb_decode_at(block, MQS_SB_OFFSET, sb, err, len);
}

/**
 * mqs_sb_decode_area() - the superblock of a member, from its copies
 * @area: the bytes read from MQS_SB_OFFSET: @area_len of them.
 * @area_len: MQS_SB_AREA_SIZE, or MQS_SB_SIZE for a device too small to
 *	hold a second copy.
 * @sb: the chosen copy, decoded (see mqs_sb_decode_at()).
 * @cp: what each copy holds and which was chosen.
 * @err: the chosen copy's reason when the result is not MQS_SB_OK.
 * @len: room at @err.
 *
 * docs/FORMAT.md "Reading": a valid format-1 superblock at byte 4096 is
 * the superblock (bytes from 8192 may be data).  Otherwise, of the valid
 * format-2 copies the one with the higher generation counts (the one at
 * 4096 of equals): an update cut between the two writes, or a torn write
 * of one copy, leaves the other.  Without a valid copy the result is the
 * first copy's, or the second's when the first has no magic.
 *
 * Return: the chosen copy's status.
 */
enum mqs_sb_status mqs_sb_decode_area(const uint8_t *area, size_t area_len,
				      struct mqs_sb *sb,
				      struct mqs_sb_copies *cp, char *err,
				      size_t len)
{
	struct mqs_sb b;
	unsigned int i;

	memset(cp, 0, sizeof(*cp));
	cp->status[0] = mqs_sb_decode_at(area, MQS_SB_OFFSET, sb, cp->why[0],
					 sizeof(cp->why[0]));
	cp->generation[0] = sb->generation;
	cp->status[1] = MQS_SB_NONE;
	mqs_set_err(cp->why[1], sizeof(cp->why[1]), "no mqstripe superblock");
	cp->nr = 1;
	if (cp->status[0] == MQS_SB_OK && sb->version == MQS_SB_VERSION_1)
		goto out;
	if (area_len >= MQS_SB_AREA_SIZE) {
		cp->status[1] = mqs_sb_decode_at(area + MQS_SB_SIZE,
						 MQS_SB_OFFSET + MQS_SB_SIZE,
						 &b, cp->why[1],
						 sizeof(cp->why[1]));
		cp->generation[1] = b.generation;
	}
	if (cp->status[1] == MQS_SB_OK &&
	    (cp->status[0] != MQS_SB_OK ||
	     cp->generation[1] > cp->generation[0]))
		cp->chosen = 1;
	else if (cp->status[0] == MQS_SB_NONE &&
		 cp->status[1] != MQS_SB_NONE)
		cp->chosen = 1;
	if (cp->chosen)
		*sb = b;
	cp->nr = sb->version == MQS_SB_VERSION_1 ? 1 : 2;
out:
	i = cp->chosen;
	mqs_set_err(err, len, "%s", cp->why[i]);
	return cp->status[i];
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * The member size table (MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES): format 2
 * only; each slot's size a positive multiple of the chunk that fits after
 * the data offset, the unused entries zero, @data_bytes the smallest, and
 * a sum that fits the block layer (a signed 64-bit byte count).
 */
static void check_sizes(const struct mqs_sb *sb, char *why, size_t len)
{
	uint64_t min = UINT64_MAX, sum = 0;
	uint32_t i;

	if (!(sb->feature_incompat & MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES))
		return;
	if (sb->version != MQS_SB_VERSION_2) {
		snprintf(why, len, "member sizes in format version %" PRIu32
			 " (they need format 2)", sb->version);
		return;
	}
	for (i = 0; i < MQSTRIPE_MAX_MEMBERS; i++) {
		uint64_t s = sb->sizes[i];

		if (i >= sb->nr_members) {
			if (s) {
				snprintf(why, len,
					 "the member size of unused slot %" PRIu32 " is not zero",
					 i);
				return;
			}
			continue;
		}
		if (!s || s % sb->chunk_bytes ||
		    s > UINT64_MAX - sb->data_offset_bytes ||
		    s > (uint64_t)INT64_MAX - sum) {
			snprintf(why, len,
				 "the data size %" PRIu64 " of slot %" PRIu32 " is not a positive multiple of the chunk",
				 s, i);
			return;
		}
		sum += s;
		if (s < min)
			min = s;
	}
	if (sb->data_bytes != min)
		snprintf(why, len,
			 "data size %" PRIu64 " is not the smallest member size %" PRIu64,
			 sb->data_bytes, min);
}

/**
 * mqs_sb_check_fields() - the range checks of docs/FORMAT.md "Reading"
 * @sb: decoded superblock.
 * @err: "superblock is invalid: ..." on failure.
 * @len: room at @err.
 *
 * Return: 0 or -EINVAL.
 */
int mqs_sb_check_fields(const struct mqs_sb *sb, char *err, size_t len)
{
	char why[MQS_ERR_LEN];

	why[0] = '\0';
	if (sb->sb_offset != MQS_SB_OFFSET &&
	    (sb->version == MQS_SB_VERSION_1 ||
	     sb->sb_offset != MQS_SB_OFFSET + MQS_SB_SIZE))
		snprintf(why, sizeof(why),
			 "it says it lives at byte %" PRIu64 ", not %s (a copy made at another offset?)",
			 sb->sb_offset, sb->version == MQS_SB_VERSION_1 ?
			 "4096" : "4096 or 8192");
	else if (sb->nr_members < MQSTRIPE_MIN_MEMBERS ||
		 sb->nr_members > MQSTRIPE_MAX_MEMBERS)
		snprintf(why, sizeof(why), "member count %" PRIu32
			 " is outside 1..%d", sb->nr_members,
			 MQSTRIPE_MAX_MEMBERS);
	else if (sb->slot >= sb->nr_members)
		snprintf(why, sizeof(why),
			 "slot %" PRIu32 " is not below the member count %" PRIu32,
			 sb->slot, sb->nr_members);
	else if (!is_pow2(sb->chunk_bytes) ||
		 sb->chunk_bytes < MQSTRIPE_MIN_CHUNK_BYTES ||
		 sb->chunk_bytes > MQSTRIPE_MAX_CHUNK_BYTES)
		snprintf(why, sizeof(why),
			 "chunk %" PRIu64 " is not a power of two from 4K to 16M",
			 sb->chunk_bytes);
	else if (sb->chunk_bytes * sb->nr_members >
		 MQSTRIPE_MAX_STRIPE_WIDTH_BYTES)
		snprintf(why, sizeof(why), "stripe width above 1G");
	else if (sb->data_offset_bytes < mqs_sb_min_data_offset(sb->version) ||
		 sb->data_offset_bytes % MQSTRIPE_DATA_OFFSET_ALIGN_BYTES)
		snprintf(why, sizeof(why),
			 "data offset %" PRIu64 " is below %s or not a multiple of 4K",
			 sb->data_offset_bytes,
			 sb->version == MQS_SB_VERSION_1 ? "8K" : "12K");
	else if (!sb->data_bytes || sb->data_bytes % sb->chunk_bytes ||
		 sb->data_bytes > UINT64_MAX - sb->data_offset_bytes)
		snprintf(why, sizeof(why),
			 "data size %" PRIu64 " is not a positive multiple of the chunk",
			 sb->data_bytes);
	else if (!is_pow2(sb->member_lbs) || sb->member_lbs < MQS_SB_MIN_LBS ||
		 sb->member_lbs > MQS_SB_MAX_LBS)
		snprintf(why, sizeof(why),
			 "member logical block size %" PRIu32 " is not a power of two from 512 to 4096",
			 sb->member_lbs);
	else if (!is_pow2(sb->array_lbs) || sb->array_lbs < sb->member_lbs ||
		 sb->array_lbs > MQS_SB_MAX_LBS)
		snprintf(why, sizeof(why),
			 "array logical block size %" PRIu32 " is not a power of two from the member's to 4096",
			 sb->array_lbs);
	else if (sb->state != MQS_SB_STATE_CLEAN &&
		 sb->state != MQS_SB_STATE_ACTIVE)
		snprintf(why, sizeof(why), "state %" PRIu32 " is unknown",
			 sb->state);
	else if (uuid_is_null(sb->array_uuid) ||
		 uuid_is_null(sb->member_uuid))
		snprintf(why, sizeof(why), "the array or member UUID is nil");
	else if (sb->queue_depth &&
		 (sb->queue_depth < MQSTRIPE_MIN_QUEUE_DEPTH ||
		  sb->queue_depth > MQSTRIPE_MAX_QUEUE_DEPTH))
		snprintf(why, sizeof(why),
			 "queue depth %" PRIu32 " is outside %d..%d",
			 sb->queue_depth, MQSTRIPE_MIN_QUEUE_DEPTH,
			 MQSTRIPE_MAX_QUEUE_DEPTH);
	else if (sb->slot < mqs_sb_table_slots(sb) &&
		 memcmp(sb->table[sb->slot], sb->member_uuid,
			MQSTRIPE_UUID_LEN))
		snprintf(why, sizeof(why),
			 "the member table names another UUID for slot %" PRIu32,
			 sb->slot);
	else if (!memchr(sb->name, '\0', sizeof(sb->name)))
		snprintf(why, sizeof(why), "the name is not NUL-terminated");
	else if (sb->name[0] && mqs_check_name(sb->name, NULL, 0))
		snprintf(why, sizeof(why), "the name has characters outside A-Z a-z 0-9 . _ -");
	else
		check_sizes(sb, why, sizeof(why));

	if (!why[0])
		return 0;
	mqs_set_err(err, len, "superblock is invalid: %s", why);
	return -EINVAL;
}

const char *mqs_sb_status_name(enum mqs_sb_status status)
{
	switch (status) {
	case MQS_SB_NONE:
		return "none";
	case MQS_SB_BAD_VERSION:
		return "unknown-version";
	case MQS_SB_BAD_CRC:
		return "bad-checksum";
	case MQS_SB_INCOMPAT:
		return "unknown-incompat-feature";
	case MQS_SB_BAD_LAYOUT:
		return "unknown-layout";
	case MQS_SB_INVALID:
		return "invalid";
	case MQS_SB_OK:
		return "ok";
	}
	return "unknown";
}

/**
 * mqs_sb_shown_name() - a name read from a superblock, safe to print
 * @name: NUL-terminated, as decoded (any bytes when the block was refused).
 * @buf: room for MQS_SB_SHOWN_NAME_LEN bytes.
 *
 * A damaged superblock may hold any bytes in its name, which must not
 * reach a terminal (escape sequences) or a JSON document (bytes that are
 * not UTF-8) raw.  Printable ASCII stays, a backslash is doubled, any other
 * byte becomes \xHH.  A valid name (A-Z a-z 0-9 . _ -) is unchanged.
 *
 * Return: @buf.
 */
const char *mqs_sb_shown_name(const char *name, char *buf)
{
	const unsigned char *p = (const unsigned char *)name;
	char *o = buf;

	for (; *p && p < (const unsigned char *)name + MQSTRIPE_NAME_LEN;
	     p++) {
		if (*p == '\\') {
			*o++ = '\\';
			*o++ = '\\';
		} else if (*p >= 0x20 && *p < 0x7f) {
			*o++ = (char)*p;
		} else {
			o += sprintf(o, "\\x%02x", *p);
		}
	}
	*o = '\0';
	return buf;
}

const char *mqs_sb_state_name(uint32_t state)
{
	switch (state) {
	case MQS_SB_STATE_CLEAN:
		return "clean";
	case MQS_SB_STATE_ACTIVE:
		return "active";
	}
	return "unknown";
}

/*
 * Bytes of data per member, as the module computes the capacity:
 * (smallest member - data offset) rounded down to whole chunks.
 */
uint64_t mqs_data_bytes(uint64_t min_member_bytes, uint64_t offset,
			uint64_t chunk)
{
	if (!chunk || min_member_bytes <= offset)
		return 0;
	return (min_member_bytes - offset) / chunk * chunk;
}

/**
 * mqs_zones_describe() - the zones of an array (docs/FORMAT.md "The layout")
 * @sizes: each member's data bytes, by slot (all > 0).
 * @n: members.
 * @zones: room for @n entries: filled in array order.
 *
 * Zone j covers member bytes [s_(j-1), s_j) of the members holding at
 * least s_j, the distinct sizes s_1 < ... < s_k in order.
 *
 * Return: the number of zones (1 for equal sizes).
 */
uint32_t mqs_zones_describe(const uint64_t *sizes, uint32_t n,
			    struct mqs_zone_desc *zones)
{
	uint64_t prev = 0, start = 0, s;
	uint32_t nr = 0, i;

	for (;;) {
		zones[nr].seg = 0;
		zones[nr].first_slot = 0;
		s = 0;
		for (i = 0; i < n; i++)
			if (sizes[i] > prev && (!s || sizes[i] < s))
				s = sizes[i];
		if (!s)
			return nr;
		zones[nr].nr = 0;
		for (i = 0; i < n; i++)
			if (sizes[i] >= s)
				zones[nr].nr++;
		zones[nr].array_start = start;
		zones[nr].member_start = prev;
		zones[nr].member_bytes = s - prev;
		zones[nr].array_bytes = (s - prev) * zones[nr].nr;
		start += zones[nr].array_bytes;
		prev = s;
		nr++;
	}
}

/**
 * mqs_segzones_describe() - the zones of an array of segments
 * @sizes: each member's data bytes, by slot (all > 0).
 * @seg: the members of each segment, in slot order.
 * @nseg: segments (1: mqs_zones_describe() over every member).
 * @zones: room for as many entries as members: filled in array order.
 *
 * Each segment is laid out as an array of its own (its zones over its
 * members) and follows the segments before it (docs/FORMAT.md
 * "Segments"): a zone's @array_start counts from the array's start, its
 * @member_start from the data offset of its members.
 *
 * Return: the number of zones of all segments.
 */
uint32_t mqs_segzones_describe(const uint64_t *sizes, const uint32_t *seg,
			       uint32_t nseg, struct mqs_zone_desc *zones)
{
	uint64_t start = 0;
	uint32_t k, i, nr = 0, first = 0, z;

	for (k = 0; k < nseg; k++) {
		z = mqs_zones_describe(sizes + first, seg[k], zones + nr);
		for (i = nr; i < nr + z; i++) {
			zones[i].seg = k;
			zones[i].first_slot = first;
			zones[i].array_start += start;
		}
		for (i = 0; i < seg[k]; i++)
			start += sizes[first + i];
		nr += z;
		first += seg[k];
	}
	return nr;
}
