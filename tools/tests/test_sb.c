// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the member superblock (tools/stripectl/superblock.c)
 * and of the assembly rules (sbgroup.c), linked as they are: CRC-32C
 * against published check values, the byte positions of docs/FORMAT.md
 * read back independently of the decoder, encode/decode round trips,
 * every single-byte corruption caught, the reader's order of checks,
 * every range check, and each refusal of "stripectl assemble" with its
 * message.  make_sb() makes format-1 superblocks (still read and written
 * for arrays made so); make_sb2() format 2, whose two copies have tests
 * of their own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "sbgroup.h"
#include "superblock.h"

static char err[4096];	/* room for a create command line */
static uint8_t block[MQS_SB_SIZE];
static uint8_t area[MQS_SB_AREA_SIZE];

static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void fill_uuid(uint8_t *u, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < MQSTRIPE_UUID_LEN; i++)
		u[i] = (uint8_t)(seed * 37 + i * 11 + 1);
	u[6] = (u[6] & 0x0f) | 0x40;	/* RFC 4122 version 4, as libuuid makes */
	u[8] = (u[8] & 0x3f) | 0x80;
}

/* A valid superblock of an array of @nr members, for slot @slot. */
static void make_sb(struct mqs_sb *sb, uint32_t nr, uint32_t slot,
		    unsigned int array_seed)
{
	uint32_t i;

	memset(sb, 0, sizeof(*sb));
	sb->version = MQS_SB_VERSION_1;
	sb->sb_offset = MQS_SB_OFFSET;
	sb->layout = MQS_SB_LAYOUT_STRIPE;
	sb->state = MQS_SB_STATE_CLEAN;
	fill_uuid(sb->array_uuid, array_seed);
	sb->nr_members = nr;
	sb->slot = slot;
	sb->chunk_bytes = 65536;
	sb->data_offset_bytes = 1 << 20;
	sb->data_bytes = 100 * 65536;
	sb->array_lbs = 512;
	sb->member_lbs = 512;
	sb->ctime = 1700000000;
	sb->utime = 1700000100;
	sb->events = 7;
	snprintf(sb->name, sizeof(sb->name), "db-%u", array_seed);
	for (i = 0; i < nr && i < MQS_SB_TABLE_SLOTS; i++)
		fill_uuid(sb->table[i], array_seed * 1000 + i + 1);
	if (slot < MQS_SB_TABLE_SLOTS)
		memcpy(sb->member_uuid, sb->table[slot], MQSTRIPE_UUID_LEN);
	else
		fill_uuid(sb->member_uuid, array_seed * 1000 + slot + 1);
}

/* The same in format 2: 224 table slots, one segment, a generation. */
static void make_sb2(struct mqs_sb *sb, uint32_t nr, uint32_t slot,
		     unsigned int array_seed)
{
	make_sb(sb, nr, slot, array_seed);
	sb->version = MQS_SB_VERSION_2;
	sb->nr_segments = 1;
	sb->generation = 5;
	if (slot >= MQS_SB_V2_TABLE_SLOTS)
		fill_uuid(sb->member_uuid, array_seed * 1000 + slot + 1);
	memset(sb->table[MQS_SB_V2_TABLE_SLOTS], 0,
	       (MQS_SB_TABLE_SLOTS - MQS_SB_V2_TABLE_SLOTS) *
	       MQSTRIPE_UUID_LEN);
}

static void test_crc32c(void)
{
	uint8_t buf[32];
	unsigned int i;

	/* the check value, and the vectors of RFC 3720 B.4 */
	ktap_result(mqs_crc32c(0, "123456789", 9) == 0xE3069283,
		    "crc32c(\"123456789\") = 0xE3069283");
	memset(buf, 0, sizeof(buf));
	ktap_result(mqs_crc32c(0, buf, 32) == 0x8A9136AA,
		    "crc32c(32 x 0x00) = 0x8A9136AA");
	memset(buf, 0xff, sizeof(buf));
	ktap_result(mqs_crc32c(0, buf, 32) == 0x62A8AB43,
		    "crc32c(32 x 0xFF) = 0x62A8AB43");
	for (i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	ktap_result(mqs_crc32c(0, buf, 32) == 0x46DD794E,
		    "crc32c(0x00..0x1F) = 0x46DD794E");
	ktap_result(mqs_crc32c(mqs_crc32c(0, buf, 10), buf + 10, 22) ==
		    0x46DD794E, "crc32c chains across calls");
}

/* The bytes at the offsets of docs/FORMAT.md, read without the decoder. */
static void test_layout(void)
{
	struct mqs_sb sb;
	bool ok;
	uint32_t crc;

	make_sb(&sb, 4, 2, 1);
	sb.feature_compat = 0x0102030405060708ULL;
	sb.state = MQS_SB_STATE_ACTIVE;
	mqs_sb_encode(&sb, block);
	ok = !memcmp(block, "MQSTRIPE", 8) && le32(block + 0x08) == 1 &&
	     le64(block + 0x10) == 0x0102030405060708ULL &&
	     block[0x10] == 0x08 && le64(block + 0x18) == 0 &&
	     le64(block + 0x20) == 4096 && le32(block + 0x28) == 1 &&
	     le32(block + 0x2c) == 1 &&
	     !memcmp(block + 0x30, sb.array_uuid, 16) &&
	     !memcmp(block + 0x40, sb.member_uuid, 16) &&
	     le32(block + 0x50) == 2 && le32(block + 0x54) == 4 &&
	     le64(block + 0x58) == 65536 && le64(block + 0x60) == 1 << 20 &&
	     le64(block + 0x68) == 100 * 65536 && le32(block + 0x70) == 512 &&
	     le32(block + 0x74) == 512 && le64(block + 0x78) == 1700000000 &&
	     le64(block + 0x80) == 1700000100 && le64(block + 0x88) == 7 &&
	     !strcmp((char *)block + 0x90, "db-1") && block[0xaf] == 0;
	ktap_result(ok, "encode: every field at its documented offset, little-endian");
	ok = !memcmp(block + 0x100 + 2 * 16, sb.member_uuid, 16) &&
	     !memcmp(block + 0x100, sb.table[0], 16) &&
	     !memcmp(block + 0x100 + 3 * 16, sb.table[3], 16);
	ktap_result(ok, "encode: member table at 0x100, 16 bytes per slot");
	ok = true;
	for (size_t i = 0xb0; i < 0x100; i++)
		ok &= !block[i];
	for (size_t i = 0x100 + 4 * 16; i < MQS_SB_SIZE; i++)
		ok &= !block[i];
	ktap_result(ok, "encode: reserved bytes and unused table entries are zero");
	crc = mqs_crc32c(0, block, 0x0c);
	crc = mqs_crc32c(crc, "\0\0\0\0", 4);
	crc = mqs_crc32c(crc, block + 0x10, MQS_SB_SIZE - 0x10);
	ktap_result(le32(block + 0x0c) == crc,
		    "encode: checksum = crc32c of the block with the field as zero");
}

static void test_roundtrip(void)
{
	static const uint32_t nrs[] = { 1, 2, 4, 7, 239, 240, 241, 256 };
	struct mqs_sb a, b;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		uint32_t slot = nrs[i] - 1;
		enum mqs_sb_status st;

		make_sb(&a, nrs[i], slot, (unsigned int)i + 3);
		if (nrs[i] * a.chunk_bytes > MQSTRIPE_MAX_STRIPE_WIDTH_BYTES)
			a.chunk_bytes = 4096;
		a.data_bytes = 10 * a.chunk_bytes;
		mqs_sb_encode(&a, block);
		st = mqs_sb_decode(block, &b, err, sizeof(err));
		a.crc = b.crc;
		ktap_result(st == MQS_SB_OK && !memcmp(&a, &b, sizeof(a)),
			    "round trip, %" PRIu32 " members, slot %" PRIu32
			    " (%s)", nrs[i], slot, mqs_sb_status_name(st));
	}
	make_sb(&a, 3, 0, 9);
	a.name[0] = '\0';
	mqs_sb_encode(&a, block);
	ktap_result(mqs_sb_decode(block, &b, err, sizeof(err)) == MQS_SB_OK &&
		    !b.name[0], "round trip, empty name");
	make_sb(&a, 3, 0, 9);
	memset(a.name, 'x', MQSTRIPE_NAME_LEN - 1);
	a.name[MQSTRIPE_NAME_LEN - 1] = '\0';
	mqs_sb_encode(&a, block);
	ktap_result(mqs_sb_decode(block, &b, err, sizeof(err)) == MQS_SB_OK &&
		    strlen(b.name) == MQSTRIPE_NAME_LEN - 1,
		    "round trip, 31-character name");
}

/*
 * Any single flipped bit is caught; which check catches it follows the
 * reader's order: magic, then checksum, so that a flipped bit of the
 * format version says "damaged", not "use a newer stripectl".
 */
static void test_corruption(void)
{
	struct mqs_sb sb, out;
	uint8_t copy[MQS_SB_SIZE];
	size_t off, missed = 0, wrong = 0;

	make_sb(&sb, 4, 1, 2);
	mqs_sb_encode(&sb, copy);
	for (off = 0; off < MQS_SB_SIZE; off++) {
		enum mqs_sb_status st, want;

		memcpy(block, copy, MQS_SB_SIZE);
		block[off] ^= 0x10;
		st = mqs_sb_decode(block, &out, err, sizeof(err));
		want = off < 8 ? MQS_SB_NONE : MQS_SB_BAD_CRC;
		if (st == MQS_SB_OK)
			missed++;
		else if (st != want)
			wrong++;
	}
	ktap_result(!missed && !wrong,
		    "a flipped bit in each of the 4096 bytes is refused (missed %zu, wrong reason %zu)",
		    missed, wrong);
	memcpy(block, copy, MQS_SB_SIZE);
	block[0x60] ^= 1;
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) ==
		    MQS_SB_BAD_CRC && strstr(err, "checksum") && one_line(err),
		    "checksum message: %s", err);
	memset(block, 0, sizeof(block));
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) == MQS_SB_NONE,
		    "zeroes: no superblock");
}

/* Re-encode with a raw field changed: the checksum stays right. */
static enum mqs_sb_status decode_with(const struct mqs_sb *sb)
{
	mqs_sb_encode(sb, block);
	return mqs_sb_decode(block, &(struct mqs_sb){ 0 }, err, sizeof(err));
}

static void test_versions_and_features(void)
{
	struct mqs_sb sb;
	enum mqs_sb_status st;

	make_sb(&sb, 4, 0, 4);
	sb.version = 3;
	st = decode_with(&sb);
	ktap_result(st == MQS_SB_BAD_VERSION && strstr(err, "version 3") &&
		    strstr(err, "newer"), "format version 3 refused: %s", err);
	make_sb(&sb, 4, 0, 4);
	sb.feature_incompat = 1ULL << 63;
	st = decode_with(&sb);
	ktap_result(st == MQS_SB_INCOMPAT && strstr(err, "0x8000000000000000"),
		    "unknown incompatible feature refused: %s", err);
	make_sb(&sb, 4, 0, 4);
	sb.feature_compat = 1ULL << 5 | 1ULL << 40;
	ktap_result(decode_with(&sb) == MQS_SB_OK,
		    "unknown compatible features ignored");
	make_sb(&sb, 4, 0, 4);
	sb.layout = 2;
	st = decode_with(&sb);
	ktap_result(st == MQS_SB_BAD_LAYOUT && strstr(err, "layout version 2"),
		    "layout version 2 refused: %s", err);
	make_sb(&sb, 4, 0, 4);
	sb.layout = 2;
	sb.feature_incompat = 1ULL << 2;
	ktap_result(decode_with(&sb) == MQS_SB_INCOMPAT,
		    "incompatible features are checked before the layout");
	/*
	 * A v1 block whose version field took a bit flip (1 -> 3): the
	 * checksum, whose place and rule every format version keeps, says
	 * it is damaged; only a block with a matching checksum is "a newer
	 * format".
	 */
	make_sb(&sb, 4, 0, 4);
	mqs_sb_encode(&sb, block);
	block[0x08] ^= 0x02;
	ktap_result(mqs_sb_decode(block, &sb, err, sizeof(err)) ==
		    MQS_SB_BAD_CRC && strstr(err, "damaged") &&
		    !strstr(err, "newer"),
		    "a flipped bit in the format version is damage: %s", err);
}

static void test_ranges(void)
{
	static const struct {
		const char *what;
		int field;
		uint64_t value;
	} vec[] = {
		{ "sb_offset 8192", 0, 8192 },
		{ "0 members", 1, 0 },
		{ "257 members", 1, 257 },
		{ "slot = member count", 2, 4 },
		{ "chunk 3K", 3, 3072 },
		{ "chunk 2K", 3, 2048 },
		{ "chunk 32M", 3, 32 << 20 },
		{ "data offset 4K", 4, 4096 },
		{ "data offset 1M+512", 4, (1 << 20) + 512 },
		{ "data bytes 0", 5, 0 },
		{ "data bytes not whole chunks", 5, 65536 * 3 + 4096 },
		{ "member lbs 256", 6, 256 },
		{ "member lbs 8192", 6, 8192 },
		{ "member lbs 1000", 6, 1000 },
		{ "array lbs below member's", 7, 256 },
		{ "state 2", 8, 2 },
	};
	struct mqs_sb sb;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		make_sb(&sb, 4, 1, 5);
		switch (vec[i].field) {
		case 0:
			sb.sb_offset = vec[i].value;
			break;
		case 1:
			sb.nr_members = (uint32_t)vec[i].value;
			break;
		case 2:
			sb.slot = (uint32_t)vec[i].value;
			break;
		case 3:
			sb.chunk_bytes = vec[i].value;
			break;
		case 4:
			sb.data_offset_bytes = vec[i].value;
			break;
		case 5:
			sb.data_bytes = vec[i].value;
			break;
		case 6:
			sb.member_lbs = (uint32_t)vec[i].value;
			break;
		case 7:
			sb.array_lbs = (uint32_t)vec[i].value;
			break;
		case 8:
			sb.state = (uint32_t)vec[i].value;
			break;
		}
		ktap_result(decode_with(&sb) == MQS_SB_INVALID &&
			    strstr(err, "invalid") && one_line(err),
			    "invalid: %s (%s)", vec[i].what, err);
	}
	make_sb(&sb, 65, 1, 5);
	sb.chunk_bytes = 16 << 20;	/* 65 x 16M > 1G */
	sb.data_bytes = sb.chunk_bytes;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID,
		    "invalid: stripe width above 1G");
	make_sb(&sb, 4, 1, 5);
	memset(sb.array_uuid, 0, 16);
	ktap_result(decode_with(&sb) == MQS_SB_INVALID, "invalid: nil array UUID");
	make_sb(&sb, 4, 1, 5);
	sb.table[1][3] ^= 1;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID && strstr(err, "table"),
		    "invalid: member table disagrees with member_uuid");
	make_sb(&sb, 4, 1, 5);
	snprintf(sb.name, sizeof(sb.name), "a/b");
	ktap_result(decode_with(&sb) == MQS_SB_INVALID, "invalid: name 'a/b'");
	make_sb(&sb, 4, 1, 5);
	mqs_sb_encode(&sb, block);
	memset(block + 0x90, 'n', 32);
	{
		uint32_t crc = mqs_sb_block_crc(block);

		block[0x0c] = (uint8_t)crc;
		block[0x0d] = (uint8_t)(crc >> 8);
		block[0x0e] = (uint8_t)(crc >> 16);
		block[0x0f] = (uint8_t)(crc >> 24);
	}
	ktap_result(mqs_sb_decode(block, &sb, err, sizeof(err)) ==
		    MQS_SB_INVALID && strstr(err, "NUL"),
		    "invalid: name without NUL (%s)", err);
	make_sb(&sb, 4, 1, 5);
	sb.array_lbs = 4096;
	ktap_result(decode_with(&sb) == MQS_SB_OK,
		    "valid: array lbs 4096 over a member of 512");
}

/* What a newer writer put in the reserved bytes survives our rewrite. */
static void test_encode_over(void)
{
	struct mqs_sb sb, out;
	bool ok = true;
	size_t i;

	make_sb(&sb, 4, 1, 6);
	sb.feature_compat = 1ULL << 7;
	mqs_sb_encode(&sb, block);
	for (i = 0xb0; i < 0x100; i++)
		block[i] = (uint8_t)i;
	sb.crc = mqs_sb_block_crc(block);
	block[0x0c] = (uint8_t)sb.crc;
	block[0x0d] = (uint8_t)(sb.crc >> 8);
	block[0x0e] = (uint8_t)(sb.crc >> 16);
	block[0x0f] = (uint8_t)(sb.crc >> 24);
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) == MQS_SB_OK,
		    "reserved bytes and an unknown compatible flag: still valid");
	out.events++;
	out.state = MQS_SB_STATE_ACTIVE;
	mqs_sb_encode_over(&out, block);
	for (i = 0xb0; i < 0x100; i++)
		ok &= block[i] == (uint8_t)i;
	ktap_result(ok && mqs_sb_decode(block, &sb, err, sizeof(err)) ==
		    MQS_SB_OK && sb.events == 8 && sb.feature_compat == 1ULL << 7,
		    "a rewrite keeps the reserved bytes and the compatible flag");
}

static void test_data_bytes(void)
{
	ktap_result(mqs_data_bytes(80 << 20, 1 << 20, 65536) == 79 << 20,
		    "data bytes: 80M member, 1M offset, 64K chunk = 79M");
	ktap_result(mqs_data_bytes((80 << 20) + 4096, 1 << 20, 65536) ==
		    79 << 20, "data bytes: rounded down to whole chunks");
	ktap_result(mqs_data_bytes(1 << 20, 1 << 20, 65536) == 0,
		    "data bytes: nothing past the offset");
}

/* ----- assembly rules ----- */

#define NC 6
static struct mqs_cand cands[NC];
static struct mqs_cand *cp[NC];
static size_t slots[MQSTRIPE_MAX_MEMBERS];
static char paths[NC][16];

/* Devices 0..n-1 holding slots @order[i] of array @seed. */
static void make_group(unsigned int seed, const uint32_t *order, size_t n,
		       uint32_t nr)
{
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&cands[i], 0, sizeof(cands[i]));
		snprintf(paths[i], sizeof(paths[i]), "/dev/d%zu", i);
		cands[i].path = paths[i];
		cands[i].devno = 100 + i;
		cands[i].status = MQS_SB_OK;
		make_sb(&cands[i].sb, nr, order[i], seed);
		cands[i].lbs = 512;
		cands[i].size_bytes = (1 << 20) + 100 * 65536;
		cp[i] = &cands[i];
	}
}

/*
 * A device without a superblock given with members of an array short of
 * slots: what a cut create or zero-superblock leaves.
 */
static void test_cut_hint(void)
{
	static const uint32_t order[] = { 0, 1, 2 };
	static uint8_t zeros[MQS_SB_AREA_SIZE], junk[MQS_SB_AREA_SIZE];
	char hint[4096], want[256], u[37];

	make_group(5, order, 3, 3);
	cands[0].status = MQS_SB_NONE;
	cands[0].block = zeros;
	cands[0].area_len = sizeof(zeros);
	mqs_cut_hint(cp, 3, 0, hint, sizeof(hint));
	ktap_result(strstr(hint, "its superblock area is all zeros") &&
		    strstr(hint, "/dev/d1 /dev/d2 hold 2 of the 3 slots of array 'db-5'") &&
		    strstr(hint, "run 'stripectl zero-superblock /dev/d1 /dev/d2' to finish it"),
		    "erased member, the others at later events: finish the zero-superblock: %s",
		    hint);
	junk[100] = 1;
	cands[0].block = junk;
	mqs_cut_hint(cp, 3, 0, hint, sizeof(hint));
	ktap_result(!hint[0],
		    "... but not when its area holds something else: '%s'",
		    hint);
	cands[1].sb.events = cands[2].sb.events = 1;
	mqs_cut_hint(cp, 3, 0, hint, sizeof(hint));
	ktap_result(strstr(hint, "as 'create' wrote them, never assembled or stopped since (event 1): if that create was cut short, run it again"),
		    "the others at event 1: the create again: %s", hint);
	mqs_format_uuid(cands[1].sb.array_uuid, u);
	snprintf(want, sizeof(want),
		 ": 'stripectl create --force --chunk 64K --metadata 1 --name db-5 --uuid %s /dev/d0 /dev/d1 /dev/d2'",
		 u);
	ktap_result(strstr(hint, want) != NULL,
		    "... as the exact command: geometry, name, UUID, the members in slot order (want %s)",
		    want);
	cands[0].path = "/dev/disk/by-id/a b";
	cands[1].sb.data_offset_bytes = cands[2].sb.data_offset_bytes = 2 << 20;
	cands[1].sb.chunk_bytes = cands[2].sb.chunk_bytes = 4096;
	cands[1].sb.version = cands[2].sb.version = MQS_SB_VERSION_2;
	cands[1].sb.queue_depth = cands[2].sb.queue_depth = 256;
	cands[1].sb.name[0] = cands[2].sb.name[0] = '\0';
	mqs_cut_hint(cp, 3, 0, hint, sizeof(hint));
	snprintf(want, sizeof(want),
		 ": 'stripectl create --force --chunk 4K --data-offset 2M --queue-depth 256 --uuid %s '/dev/disk/by-id/a b' /dev/d1 /dev/d2'",
		 u);
	ktap_result(strstr(hint, want) != NULL,
		    "... a data offset, queue depth and format not the default, no name, a path quoted (want %s): %s",
		    want, hint);
	cands[0].path = paths[0];
	make_group(5, order, 3, 3);
	cands[2].status = MQS_SB_NONE;
	cands[2].block = zeros;
	cands[2].area_len = sizeof(zeros);
	make_sb(&cands[1].sb, 3, 1, 6);		/* of another array */
	mqs_cut_hint(cp, 3, 2, hint, sizeof(hint));
	ktap_result(!hint[0], "devices of two arrays: no hint: '%s'", hint);
	make_group(5, order, 3, 3);
	cands[1].status = MQS_SB_NONE;
	cands[1].block = zeros;
	cands[1].area_len = sizeof(zeros);
	mqs_cut_hint(cp, 3, 1, hint, sizeof(hint));
	ktap_result(strstr(hint, "hold 2 of the 3 slots"),
		    "one slot short: a hint: %s", hint);
	make_group(5, order, 3, 3);
	cp[3] = &cands[3];
	memset(&cands[3], 0, sizeof(cands[3]));
	cands[3].path = "/dev/extra";
	cands[3].status = MQS_SB_NONE;
	cands[3].block = zeros;
	cands[3].area_len = sizeof(zeros);
	mqs_cut_hint(cp, 4, 3, hint, sizeof(hint));
	ktap_result(!hint[0], "the array whole without it: no hint: '%s'",
		    hint);
}

static void test_group(void)
{
	static const uint32_t shuffled[] = { 2, 0, 3, 1 };
	uint32_t order[NC];
	bool chosen[NC];
	int rc;

	make_group(1, shuffled, 4, 4);
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(!rc && slots[0] == 1 && slots[1] == 3 && slots[2] == 0 &&
		    slots[3] == 2,
		    "members given in any order are put in slot order");

	make_group(1, shuffled, 3, 4);
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(rc == -ENODEV && strstr(err, "slot 1 (member UUID ") &&
		    strstr(err, "is missing") && one_line(err),
		    "missing slot named with its member UUID: %s", err);

	ktap_result(!strstr(err, "create"),
		    "... at later events: no word of a cut create");
	cands[0].sb.events = cands[1].sb.events = cands[2].sb.events = 1;
	mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(strstr(err, "is missing: found 3 of 4 members; attach that device and retry (if it is attached, something wrote over its superblock: 'stripectl examine DEVICE' says what is on it now); all found are as 'create' wrote them") &&
		    strstr(err, "run it again") && one_line(err),
		    "missing slot, every member at event 1: names the create again: %s",
		    err);
	ktap_result(strstr(err, "--name db-1 --uuid ") &&
		    strstr(err, " /dev/d1 <device of slot 1> /dev/d0 /dev/d2'"),
		    "... as the command, the members in slot order, the missing one to fill in");

	order[0] = 1;
	order[1] = 3;
	make_group(1, order, 2, 4);
	mqs_group_check(cp, 2, false, slots, err, sizeof(err));
	ktap_result(strstr(err, "slot 0") && strstr(err, "and 1 more"),
		    "two missing slots: %s", err);

	order[0] = 0;
	order[1] = 1;
	order[2] = 1;
	make_group(1, order, 3, 3);
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(rc == -EEXIST && strstr(err, "/dev/d1 and /dev/d2 both claim slot 1") &&
		    strstr(err, "copy"), "duplicate slot: %s", err);

	/* a clone set with the originals, in any order: each slot twice */
	{
		static const uint32_t twice[] = { 1, 0, 2, 0, 1, 2 };
		size_t x = 99, y = 99, dup;

		make_group(1, twice, 6, 3);
		dup = mqs_find_copies(cp, 6, &x, &y);
		ktap_result(dup == 3 && x == 1 && y == 3,
			    "a clone set: 3 slots on two devices (%zu), the first slot 0 on /dev/d1 and /dev/d3 (%zu, %zu)",
			    dup, x, y);
		make_group(1, shuffled, 4, 4);
		dup = mqs_find_copies(cp, 4, &x, &y);
		ktap_result(!dup, "one device per slot: no copies");
		order[0] = 1;
		order[1] = 1;
		order[2] = 1;
		make_group(1, order, 3, 3);
		dup = mqs_find_copies(cp, 3, &x, &y);
		ktap_result(dup == 1 && !x && y == 1,
			    "a slot on three devices counts once (%zu)", dup);
	}

	make_group(1, shuffled, 4, 4);
	cands[2].sb.chunk_bytes = 131072;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "/dev/d2") &&
		    strstr(err, "chunk bytes (131072 vs 65536)"),
		    "geometry disagrees: %s", err);

	make_group(1, shuffled, 4, 4);
	snprintf(cands[3].sb.name, sizeof(cands[3].sb.name), "other");
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "name"), "name disagrees: %s",
		    err);
	/* a name as a damaged superblock may hold it: escaped in messages */
	snprintf(cands[3].sb.name, sizeof(cands[3].sb.name), "\033[2J\\\xff");
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL &&
		    strstr(err, "('\\x1b[2J\\\\\\xff' vs ") &&
		    !strchr(err, '\033') && !strchr(err, '\xff'),
		    "a name with an escape, a backslash and 0xff: escaped: %s",
		    err);
	mqs_array_label(&cands[3].sb, err, sizeof(err));
	ktap_result(!strncmp(err, "array '\\x1b[2J\\\\\\xff' (UUID ", 28),
		    "the array label escapes the name: %s", err);

	make_group(1, shuffled, 4, 4);
	cands[1].sb.events = 8;	/* an interrupted update: fine */
	ktap_result(!mqs_group_check(cp, 4, false, slots, err, sizeof(err)),
		    "event counters one apart are accepted");
	cands[1].sb.events = 9;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "stale") && one_line(err),
		    "a member two events behind is stale: %s", err);
	ktap_result(!mqs_group_check(cp, 4, true, slots, err, sizeof(err)),
		    "... accepted when the admin accepts stale members (--force)");

	/* a rename cut short: the members one behind keep the old name */
	make_group(1, shuffled, 4, 4);
	cands[1].sb.events = 8;
	snprintf(cands[1].sb.name, sizeof(cands[1].sb.name), "renamed");
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(!rc, "a name differing on members one event behind (a cut rename) is accepted: %s",
		    rc ? err : "");
	cands[2].sb.events = 8;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "on the name of") &&
		    strstr(err, "at the same event count 8"),
		    "two names at the newest event count are refused: %s", err);

	/* an assembly that grew the array, cut after two of four writes */
	make_group(1, shuffled, 4, 4);
	cands[1].sb.events = 8;
	cands[3].sb.events = 8;
	cands[1].sb.data_bytes += 65536;
	cands[3].sb.data_bytes += 65536;
	cands[0].size_bytes += 65536;
	cands[1].size_bytes += 65536;
	cands[2].size_bytes += 65536;
	cands[3].size_bytes += 65536;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(!rc, "members one event apart with other data bytes (a cut grow) are accepted: %s",
		    rc ? err : "ok");
	cands[0].size_bytes -= 65536;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -ENOSPC && strstr(err, "/dev/d0"),
		    "... and need the newest data bytes on every member: %s", err);
	cands[0].size_bytes += 65536;
	cands[0].sb.events = 8;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "data bytes per member") &&
		    strstr(err, "same event count 8") && one_line(err),
		    "other data bytes at the same event count: %s", err);

	make_group(1, shuffled, 4, 4);
	cands[3].sb.member_lbs = 4096;
	ktap_result(!mqs_group_check(cp, 4, false, slots, err, sizeof(err)),
		    "a member reformatted from 4096- to 512-byte blocks is accepted");
	make_group(1, shuffled, 4, 4);
	cands[3].lbs = 4096;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "/dev/d3: logical block size is now 4096 bytes, it was 512"),
		    "changed logical block size: %s", err);

	make_group(1, shuffled, 4, 4);
	cands[0].size_bytes -= 4096;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -ENOSPC && strstr(err, "/dev/d0") &&
		    strstr(err, "shrank"), "member shrank: %s", err);

	/* a second array among the devices */
	make_group(1, shuffled, 4, 4);
	memset(&cands[4], 0, sizeof(cands[4]));
	snprintf(paths[4], sizeof(paths[4]), "/dev/other");
	cands[4].path = paths[4];
	cands[4].status = MQS_SB_OK;
	make_sb(&cands[4].sb, 1, 0, 2);
	cp[4] = &cands[4];
	rc = mqs_select_array(cp, 5, NULL, NULL, chosen, err, sizeof(err));
	ktap_result(rc == -EINVAL && !strncmp(err, "/dev/other: a member of another array 'db-2'", 44),
		    "a device of another array is refused, named: %s", err);
	rc = mqs_select_array(cp, 5, "db-1", NULL, chosen, err, sizeof(err));
	ktap_result(!rc && chosen[0] && chosen[3] && !chosen[4],
		    "--name picks one array's devices");
	rc = mqs_select_array(cp, 5, NULL, cands[4].sb.array_uuid, chosen, err,
			      sizeof(err));
	ktap_result(!rc && !chosen[0] && chosen[4], "--uuid picks one array's devices");
	rc = mqs_select_array(cp, 5, "nope", NULL, chosen, err, sizeof(err));
	ktap_result(rc == -ENOENT && strstr(err, "'nope'"),
		    "--name of no array: %s", err);
	snprintf(cands[4].sb.name, sizeof(cands[4].sb.name), "db-1");
	rc = mqs_select_array(cp, 5, "db-1", NULL, chosen, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "two arrays are named 'db-1'"),
		    "two arrays of one name: %s", err);
	rc = mqs_select_array(cp, 4, NULL, NULL, chosen, err, sizeof(err));
	ktap_result(!rc && chosen[0] && chosen[1] && chosen[2] && chosen[3],
		    "one array: every device chosen");
}

/* ----- format 2: two copies ----- */

static void fix_crc(uint8_t *b)
{
	uint32_t crc = mqs_sb_block_crc(b);

	b[0x0c] = (uint8_t)crc;
	b[0x0d] = (uint8_t)(crc >> 8);
	b[0x0e] = (uint8_t)(crc >> 16);
	b[0x0f] = (uint8_t)(crc >> 24);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* The bytes of both copies at the offsets of docs/FORMAT.md. */
static void test_v2_layout(void)
{
	struct mqs_sb sb;
	const uint8_t *b = area + MQS_SB_SIZE, *seg = area + 0x100;
	unsigned int nr;
	bool ok;

	make_sb2(&sb, 4, 2, 1);
	sb.queue_depth = 256;
	sb.feature_ro_compat = 0x0a0b;
	memset(area, 0xee, sizeof(area));
	nr = mqs_sb_encode_area(&sb, NULL, area);
	ok = nr == 2 && !memcmp(area, "MQSTRIPE", 8) &&
	     le32(area + 0x08) == 2 && le64(area + 0x20) == 4096 &&
	     le64(area + 0x58) == 65536 && le64(area + 0x88) == 7 &&
	     le64(area + 0xb0) == 0x0a0b && le64(area + 0xb8) == 5 &&
	     le32(area + 0xc0) == 256 && le32(area + 0xc4) == 1 &&
	     le64(area + 0xc8) == 0 && all_zero(area + 0xd0, 0x30);
	ktap_result(ok, "format 2: header fields at their documented offsets");
	ok = le64(seg) == 0 && le64(seg + 0x08) == 1 << 20 &&
	     le64(seg + 0x10) == 100 * 65536 && le64(seg + 0x18) == 65536 &&
	     le32(seg + 0x20) == 1 && le32(seg + 0x24) == 4 &&
	     all_zero(seg + 0x28, 0x18) && all_zero(seg + 0x40, 3 * 0x40);
	ktap_result(ok, "format 2: segment 0 at 0x100 says the geometry, segments 1..3 zero");
	ok = !memcmp(area + 0x200 + 2 * 16, sb.member_uuid, 16) &&
	     !memcmp(area + 0x200 + 3 * 16, sb.table[3], 16) &&
	     all_zero(area + 0x200 + 4 * 16, MQS_SB_SIZE - 0x200 - 4 * 16);
	ktap_result(ok, "format 2: member table at 0x200, unused entries zero");
	ok = le64(b + 0x20) == 8192 && !memcmp(b, area, 0x0c) &&
	     !memcmp(b + 0x10, area + 0x10, 0x10) &&
	     !memcmp(b + 0x28, area + 0x28, MQS_SB_SIZE - 0x28) &&
	     le32(b + 0x0c) == mqs_sb_block_crc(b) &&
	     le32(area + 0x0c) == mqs_sb_block_crc(area);
	ktap_result(ok, "format 2: the copy at 8192 differs only in sb_offset_bytes and checksum");
	make_sb(&sb, 4, 2, 1);
	memset(area, 0xee, sizeof(area));
	ktap_result(mqs_sb_encode_area(&sb, NULL, area) == 1 &&
		    area[MQS_SB_SIZE] == 0xee,
		    "format 1: one copy, nothing written at 8192");
	ktap_result(mqs_sb_min_data_offset(1) == 8192 &&
		    mqs_sb_min_data_offset(2) == 12288,
		    "smallest data offset: 8K for format 1, 12K for format 2");
}

static void test_v2_roundtrip(void)
{
	static const uint32_t nrs[] = { 1, 4, 223, 224, 225, 256 };
	struct mqs_sb_copies c;
	struct mqs_sb a, b;
	enum mqs_sb_status st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		uint32_t slot = nrs[i] - 1;

		make_sb2(&a, nrs[i], slot, (unsigned int)i + 3);
		if (nrs[i] * a.chunk_bytes > MQSTRIPE_MAX_STRIPE_WIDTH_BYTES)
			a.chunk_bytes = 4096;
		a.data_bytes = 10 * a.chunk_bytes;
		a.queue_depth = 64;
		mqs_sb_encode_area(&a, NULL, area);
		st = mqs_sb_decode_area(area, sizeof(area), &b, &c, err,
					sizeof(err));
		a.crc = b.crc;
		ktap_result(st == MQS_SB_OK && !memcmp(&a, &b, sizeof(a)) &&
			    c.chosen == 0 && c.nr == 2 &&
			    c.status[1] == MQS_SB_OK,
			    "format 2 round trip, %" PRIu32 " members, slot %" PRIu32 " (%s)",
			    nrs[i], slot, mqs_sb_status_name(st));
	}
}

/* Two valid copies @gen0/@gen1 apart; which one decode takes. */
static unsigned int chosen_of(uint64_t gen0, uint64_t gen1, uint64_t *events)
{
	struct mqs_sb_copies c;
	struct mqs_sb sb;

	make_sb2(&sb, 4, 1, 7);
	sb.generation = gen1;
	sb.events = 100 + gen1;
	mqs_sb_encode_area(&sb, NULL, area);
	sb.generation = gen0;
	sb.events = 100 + gen0;
	sb.sb_offset = MQS_SB_OFFSET;
	mqs_sb_encode(&sb, area);
	if (mqs_sb_decode_area(area, sizeof(area), &sb, &c, err,
			       sizeof(err)) != MQS_SB_OK)
		return 9;
	*events = sb.events;
	return c.chosen;
}

static void test_v2_copies(void)
{
	uint8_t good[MQS_SB_AREA_SIZE];
	struct mqs_sb_copies c;
	struct mqs_sb sb, v1;
	size_t off, lost = 0, wrong = 0;
	enum mqs_sb_status st;
	uint64_t ev = 0;

	make_sb2(&sb, 4, 1, 2);
	mqs_sb_encode_area(&sb, NULL, good);
	for (off = 0; off < MQS_SB_SIZE; off++) {
		memcpy(area, good, sizeof(area));
		area[off] ^= 0x10;
		st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err,
					sizeof(err));
		if (st != MQS_SB_OK)
			lost++;
		else if (c.chosen != 1 || sb.sb_offset != 8192 ||
			 c.status[0] == MQS_SB_OK)
			wrong++;
	}
	ktap_result(!lost && !wrong,
		    "a flipped bit in any byte of the copy at 4096: the copy at 8192 is used (lost %zu, wrong %zu)",
		    lost, wrong);
	for (off = 0; off < MQS_SB_SIZE; off++) {
		memcpy(area, good, sizeof(area));
		area[MQS_SB_SIZE + off] ^= 0x10;
		st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err,
					sizeof(err));
		if (st != MQS_SB_OK)
			lost++;
		else if (c.chosen != 0 || c.status[1] == MQS_SB_OK)
			wrong++;
	}
	ktap_result(!lost && !wrong,
		    "a flipped bit in any byte of the copy at 8192: the copy at 4096 is used (lost %zu, wrong %zu)",
		    lost, wrong);
	memcpy(area, good, sizeof(area));
	area[0x60] ^= 1;
	area[MQS_SB_SIZE + 0x60] ^= 1;
	st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err, sizeof(err));
	ktap_result(st == MQS_SB_BAD_CRC && c.chosen == 0 &&
		    strstr(err, "checksum") && one_line(err),
		    "both copies damaged: refused (%s)", err);
	memcpy(area, good, sizeof(area));
	memset(area, 0, MQS_SB_SIZE);
	st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err, sizeof(err));
	ktap_result(st == MQS_SB_OK && c.chosen == 1 &&
		    c.status[0] == MQS_SB_NONE,
		    "the copy at 4096 erased (a zero-superblock cut short): the other still counts");
	ktap_result(mqs_sb_decode_area(area, MQS_SB_SIZE, &sb, &c, err,
				       sizeof(err)) == MQS_SB_NONE,
		    "a device ending before 12K: only the copy at 4096 is read");

	ktap_result(chosen_of(5, 6, &ev) == 1 && ev == 106,
		    "an update cut between the copies (8192 written, 4096 not): the newer generation counts");
	ktap_result(chosen_of(6, 5, &ev) == 0 && ev == 106,
		    "... and the other way round");
	ktap_result(chosen_of(6, 6, &ev) == 0,
		    "equal generations: the copy at 4096");

	/* a format-1 superblock at 4096 over a format-2 copy left at 8192 */
	make_sb2(&sb, 4, 1, 3);
	sb.generation = 50;
	mqs_sb_encode_area(&sb, NULL, area);
	make_sb(&v1, 2, 0, 4);
	mqs_sb_encode(&v1, area);
	st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err, sizeof(err));
	ktap_result(st == MQS_SB_OK && sb.version == 1 && c.nr == 1 &&
		    c.chosen == 0 && !strcmp(sb.name, "db-4"),
		    "a valid format-1 superblock at 4096 is the superblock: bytes from 8192 are not read as a copy");
	/* a format-1 block copied to 8192 is no superblock there */
	memset(area, 0, MQS_SB_SIZE);
	mqs_sb_encode(&v1, area + MQS_SB_SIZE);
	st = mqs_sb_decode_area(area, sizeof(area), &sb, &c, err, sizeof(err));
	ktap_result(st == MQS_SB_INVALID && strstr(err, "read at byte 8192"),
		    "a format-1 block at 8192 is refused: %s", err);
	make_sb2(&sb, 4, 1, 3);
	sb.sb_offset = 8192;
	mqs_sb_encode(&sb, block);
	ktap_result(mqs_sb_decode(block, &v1, err, sizeof(err)) ==
		    MQS_SB_INVALID && strstr(err, "read at byte 4096"),
		    "a copy saying 8192 read at 4096 is refused: %s", err);
}

/* Format 2's own checks: segments, reshape, queue depth, ro_compat. */
static void test_v2_checks(void)
{
	struct mqs_sb sb, out;
	enum mqs_sb_status st;

	make_sb2(&sb, 4, 1, 8);
	sb.nr_segments = 2;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID &&
		    strstr(err, "segment count"),
		    "format 2: two segments without a feature refused: %s",
		    err);
	make_sb2(&sb, 4, 1, 8);
	mqs_sb_encode(&sb, block);
	block[0x100 + 0x18] ^= 0x01;	/* segment 0's chunk */
	fix_crc(block);
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) ==
		    MQS_SB_INVALID && strstr(err, "segment 0"),
		    "format 2: segment 0 disagreeing with the header refused: %s",
		    err);
	mqs_sb_encode(&sb, block);
	block[0x100 + 0x40 + 3] = 1;
	fix_crc(block);
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) ==
		    MQS_SB_INVALID && strstr(err, "unused segment"),
		    "format 2: an unused segment entry not zero refused: %s",
		    err);
	make_sb2(&sb, 4, 1, 8);
	sb.reshape_pos = 65536;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID &&
		    strstr(err, "reshape"),
		    "format 2: a reshape position without a feature refused: %s",
		    err);
	make_sb2(&sb, 4, 1, 8);
	sb.queue_depth = 4097;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID &&
		    strstr(err, "queue depth 4097"),
		    "format 2: queue depth 4097 refused: %s", err);
	sb.queue_depth = 4096;
	ktap_result(decode_with(&sb) == MQS_SB_OK,
		    "format 2: queue depth 4096 valid");
	make_sb2(&sb, 4, 1, 8);
	sb.data_offset_bytes = 8192;
	ktap_result(decode_with(&sb) == MQS_SB_INVALID &&
		    strstr(err, "below 12K"),
		    "format 2: data offset 8K refused (the second copy is there): %s",
		    err);
	sb.data_offset_bytes = 12288;
	ktap_result(decode_with(&sb) == MQS_SB_OK,
		    "format 2: data offset 12K valid");
	make_sb2(&sb, 4, 1, 8);
	sb.feature_ro_compat = 1ULL << 3;
	mqs_sb_encode(&sb, block);
	st = mqs_sb_decode(block, &out, err, sizeof(err));
	ktap_result(st == MQS_SB_OK && out.feature_ro_compat == 1ULL << 3,
		    "format 2: an unknown read-only-compatible flag decodes (assembly starts it read-only only)");
	make_sb2(&sb, 4, 1, 8);
	mqs_sb_encode(&sb, block);
	memset(block + 0xd0, 0x5a, 0x30);
	fix_crc(block);
	st = mqs_sb_decode(block, &out, err, sizeof(err));
	out.events++;
	out.generation++;
	mqs_sb_encode_area(&out, block, area);
	ktap_result(st == MQS_SB_OK &&
		    area[0xd0] == 0x5a && area[0xff] == 0x5a &&
		    area[MQS_SB_SIZE + 0xd0] == 0x5a &&
		    mqs_sb_decode(area, &sb, err, sizeof(err)) == MQS_SB_OK &&
		    sb.events == 8 && sb.generation == 6,
		    "format 2: a rewrite of both copies keeps the reserved bytes");
	/* converting: a format-1 block as the source starts format 2 fresh */
	make_sb(&sb, 4, 1, 8);
	mqs_sb_encode(&sb, block);
	memset(block + 0xb0, 0x77, 0x50);
	fix_crc(block);
	ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) == MQS_SB_OK,
		    "format 1 with reserved bytes set: valid");
	out.version = 2;
	out.nr_segments = 1;
	mqs_sb_encode_area(&out, block, area);
	ktap_result(mqs_sb_decode(area, &sb, err, sizeof(err)) == MQS_SB_OK &&
		    sb.version == 2 && !sb.feature_ro_compat &&
		    !sb.generation && all_zero(area + 0xd0, 0x30) &&
		    !memcmp(area + 0x200 + 16, out.member_uuid, 16),
		    "a conversion from format 1 writes format 2 from scratch (%s)",
		    err);
}

static void test_group_formats(void)
{
	static const uint32_t order[] = { 0, 1, 2 };
	int rc;

	/* a conversion to format 2 cut after the first member */
	make_group(1, order, 3, 3);
	make_sb2(&cands[0].sb, 3, 0, 1);
	cands[0].sb.events = 8;
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(!rc, "members of formats 1 and 2 one event apart (a conversion cut short) are accepted: %s",
		    rc ? err : "ok");
	cands[1].sb.table[2][0] ^= 1;
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "slot 2"),
		    "... and their member tables compared: %s", err);
}

/*
 * Members of unequal size (MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES): the size
 * table at 0x200, the member table at 0xa00 (96 entries), a round trip,
 * the checks, and the zones the sizes make.
 */
static void make_zoned(struct mqs_sb *sb, uint32_t nr, uint32_t slot)
{
	uint32_t i;

	make_sb2(sb, nr, slot, 9);
	if (nr * sb->chunk_bytes > MQSTRIPE_MAX_STRIPE_WIDTH_BYTES)
		sb->chunk_bytes = 4096;
	sb->feature_incompat = MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES;
	for (i = 0; i < nr; i++)
		sb->sizes[i] = (100 + 100 * (i % 3)) * sb->chunk_bytes;
	sb->data_bytes = 100 * sb->chunk_bytes;
	memset(sb->table[MQS_SB_V2_SIZES_TABLE_SLOTS], 0,
	       (MQS_SB_TABLE_SLOTS - MQS_SB_V2_SIZES_TABLE_SLOTS) *
	       MQSTRIPE_UUID_LEN);
	if (slot >= MQS_SB_V2_SIZES_TABLE_SLOTS)
		fill_uuid(sb->member_uuid, 9 * 1000 + slot + 1);
}

/* @sb encoded (both copies) is refused as invalid, saying @why */
static bool zoned_refused(const struct mqs_sb *sb, const char *why)
{
	struct mqs_sb_copies c;
	struct mqs_sb b;

	mqs_sb_encode_area(sb, NULL, area);
	return mqs_sb_decode_area(area, sizeof(area), &b, &c, err,
				  sizeof(err)) == MQS_SB_INVALID &&
	       strstr(err, why);
}

static void test_zoned(void)
{
	static const uint32_t nrs[] = { 1, 4, 95, 96, 97, 256 };
	struct mqs_zone_desc z[4];
	struct mqs_sb_copies c;
	struct mqs_sb a, b;
	enum mqs_sb_status st;
	uint64_t ch = 65536;
	uint32_t i, nz;
	bool ok;

	make_zoned(&a, 4, 1);
	mqs_sb_encode_area(&a, NULL, area);
	ok = le64(area + 0x18) == 1 && le64(area + 0x68) == 100 * ch &&
	     le64(area + 0x200) == 100 * ch && le64(area + 0x208) == 200 * ch &&
	     le64(area + 0x210) == 300 * ch && le64(area + 0x218) == 100 * ch &&
	     all_zero(area + 0x220, 0xa00 - 0x220) &&
	     !memcmp(area + 0xa00 + 16, a.member_uuid, 16) &&
	     !memcmp(area + 0xa00 + 3 * 16, a.table[3], 16) &&
	     all_zero(area + 0xa00 + 4 * 16, MQS_SB_SIZE - 0xa00 - 4 * 16) &&
	     le64(area + 0x100 + 0x10) == 100 * ch;
	ktap_result(ok, "member sizes: feature_incompat bit 0, sizes at 0x200 (256 x le64), member table at 0xa00, segment 0 the smallest");
	ktap_result(mqs_sb_table_slots(&a) == 96 && mqs_sb_zoned(&a) &&
		    mqs_sb_capacity(&a) == 700 * ch &&
		    mqs_sb_slot_bytes(&a, 2) == 300 * ch,
		    "member sizes: 96 member UUIDs, capacity the sum, each slot's size");
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		uint32_t slot = nrs[i] - 1;

		make_zoned(&a, nrs[i], slot);
		mqs_sb_encode_area(&a, NULL, area);
		st = mqs_sb_decode_area(area, sizeof(area), &b, &c, err,
					sizeof(err));
		a.crc = b.crc;
		ktap_result(st == MQS_SB_OK && !memcmp(&a, &b, sizeof(a)),
			    "member sizes round trip, %" PRIu32 " members, slot %" PRIu32 " (%s)",
			    nrs[i], slot, err);
	}

	make_zoned(&a, 4, 1);
	a.data_bytes = 200 * ch;
	ktap_result(zoned_refused(&a, "not the smallest"),
		    "member sizes: data_bytes other than the smallest refused: %s",
		    err);
	make_zoned(&a, 4, 1);
	a.sizes[2] += 4096;
	ktap_result(zoned_refused(&a, "slot 2"),
		    "member sizes: a size not whole chunks refused, its slot named: %s",
		    err);
	make_zoned(&a, 4, 1);
	mqs_sb_encode_area(&a, NULL, area);
	area[0x200 + 8 * 7] = 1;
	fix_crc(area);
	ktap_result(mqs_sb_decode_area(area, MQS_SB_SIZE, &b, &c, err,
				       sizeof(err)) == MQS_SB_INVALID &&
		    strstr(err, "unused slot 7"),
		    "member sizes: an unused slot's size not zero refused: %s",
		    err);
	make_sb(&a, 4, 1, 9);
	a.feature_incompat = MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES;
	ktap_result(decode_with(&a) == MQS_SB_INVALID &&
		    strstr(err, "format 2"),
		    "member sizes in format 1 refused: %s", err);

	{
		const uint64_t sizes[] = { ch, 2 * ch, 2 * ch, 3 * ch };

		nz = mqs_zones_describe(sizes, 4, z);
		ok = nz == 3 && z[0].nr == 4 && z[0].array_start == 0 &&
		     z[0].array_bytes == 4 * ch && z[0].member_start == 0 &&
		     z[1].nr == 3 && z[1].array_start == 4 * ch &&
		     z[1].array_bytes == 3 * ch && z[1].member_start == ch &&
		     z[2].nr == 1 && z[2].array_start == 7 * ch &&
		     z[2].array_bytes == ch && z[2].member_bytes == ch;
		ktap_result(ok, "zones of members 1:2:2:3: 4, 3 and 1 members, one after the other");
		nz = mqs_zones_describe((const uint64_t[]){ ch, ch }, 2, z);
		ktap_result(nz == 1 && z[0].array_bytes == 2 * ch,
			    "equal members: one zone");
	}
}

/*
 * The fault record (record-fault's and stop's first pass): in both
 * formats at 0x0d0, read back only with its compatible flag; a member of
 * a recorded slot below its event counter is stale even one event behind
 * the newest (a cut before the second pass), not with --force, not once
 * it is at the record's counter (cleared, or started with --force since).
 */
static void test_fault_record(void)
{
	static const uint32_t order[] = { 0, 1, 2 };
	struct mqs_sb sb, out;
	uint32_t v;
	int rc;

	for (v = MQS_SB_VERSION_1; v <= MQS_SB_VERSION_2; v++) {
		if (v == MQS_SB_VERSION_2)
			make_sb2(&sb, 3, 0, 9);
		else
			make_sb(&sb, 3, 0, 9);
		sb.feature_compat = MQS_SB_FEAT_COMPAT_FAULTS;
		sb.fault_events = 8;
		sb.fault_slots[0] = 1U << 1;
		sb.fault_slots[31] = 1U << 7;
		mqs_sb_encode(&sb, block);
		ktap_result(le64(block + 0x0d0) == 8 && block[0x0d8] == 2 &&
			    block[0x0d8 + 31] == 0x80 &&
			    mqs_sb_decode(block, &out, err, sizeof(err)) ==
			    MQS_SB_OK && out.fault_events == 8 &&
			    mqs_sb_fault_slot(&out, 1) &&
			    mqs_sb_fault_slot(&out, 255) &&
			    !mqs_sb_fault_slot(&out, 0) &&
			    !mqs_sb_fault_slot(&out, 2),
			    "format %u: the fault record at 0x0d0 (event 8, slots 1 and 255) reads back", v);
		block[0x10] = 0;	/* the flag off: reserved bytes */
		fix_crc(block);
		ktap_result(mqs_sb_decode(block, &out, err, sizeof(err)) ==
			    MQS_SB_OK && !out.fault_events &&
			    !mqs_sb_fault_slot(&out, 1),
			    "format %u: without its flag the bytes are not a record", v);
	}

	/* slot 1 failed at event 7; slot 0 has the first pass (event 8) */
	make_group(9, order, 3, 3);
	cands[0].sb.events = 8;
	cands[0].sb.feature_compat = MQS_SB_FEAT_COMPAT_FAULTS;
	cands[0].sb.fault_events = 8;
	cands[0].sb.fault_slots[0] = 1U << 1;
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "/dev/d1: stale member of") &&
		    strstr(err, "/dev/d0 records slot 1 as faulty or gone at event 8 and its event counter is 7") &&
		    strstr(err, "'stripectl assemble --force'") && one_line(err),
		    "a recorded member one event behind: stale: %s", err);
	ktap_result(mqs_fault_recorded(cp, 3, 1) == 0 &&
		    mqs_fault_recorded(cp, 3, 2) == 3 &&
		    mqs_fault_recorded(cp, 3, 0) == 3,
		    "... only slot 1: slot 2, one behind too, is an update cut short");
	rc = mqs_group_check(cp, 3, true, slots, err, sizeof(err));
	ktap_result(!rc, "... --force starts it");
	cands[1].sb.events = 8;
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(!rc, "... at the record's event counter it is current again");
	cands[1].sb.events = 7;
	cands[0].sb.feature_compat = 0;
	rc = mqs_group_check(cp, 3, false, slots, err, sizeof(err));
	ktap_result(!rc, "without the record one event behind starts (an update cut short)");
}

/*
 * Segments (MQS_SB_FEAT_INCOMPAT_SEGMENTS, "stripectl add"): members
 * 0, 1 (100 and 200 chunks) and 2, 3 (300 and 100 chunks) in two
 * segments; the entries as FORMAT.md "Segments" has them, a round trip,
 * each check, the zones, and the assembly of members one event behind an
 * add cut short.
 */
static void make_segmented(struct mqs_sb *sb, uint32_t slot)
{
	static const uint64_t ch = 65536;

	make_zoned(sb, 4, slot);
	sb->feature_incompat |= MQS_SB_FEAT_INCOMPAT_SEGMENTS;
	sb->sizes[0] = 100 * ch;
	sb->sizes[1] = 200 * ch;
	sb->sizes[2] = 300 * ch;
	sb->sizes[3] = 100 * ch;
	sb->data_bytes = 100 * ch;
	sb->nr_segments = 2;
	sb->seg_members[0] = 2;
	sb->seg_members[1] = 2;
}

static void test_segments(void)
{
	const uint64_t ch = 65536;
	struct mqs_zone_desc z[8];
	struct mqs_sb_copies c;
	struct mqs_sb a, b;
	enum mqs_sb_status st;
	const uint8_t *e1 = area + 0x100 + 0x40;
	uint32_t seg[MQS_SB_V2_SEGMENTS], nz;
	uint32_t order[] = { 0, 1, 2, 3 };
	bool ok;
	int rc;

	make_segmented(&a, 2);
	mqs_sb_encode_area(&a, NULL, area);
	ok = le64(area + 0x18) == 3 && le32(area + 0xc4) == 2 &&
	     le64(area + 0x100) == 0 && le64(area + 0x110) == 100 * ch &&
	     le32(area + 0x124) == 2 && le32(area + 0x128) == 0 &&
	     le64(e1) == 300 * ch && le64(e1 + 0x08) == 1 << 20 &&
	     le64(e1 + 0x10) == 100 * ch && le64(e1 + 0x18) == ch &&
	     le32(e1 + 0x20) == 1 && le32(e1 + 0x24) == 2 &&
	     le32(e1 + 0x28) == 2 && all_zero(e1 + 0x2c, 20) &&
	     all_zero(area + 0x180, 0x80);
	ktap_result(ok, "segments: feature_incompat bits 0 and 1, nr_segments 2, entry 1 starts after segment 0 (300 chunks), its smallest member, 2 members from slot 2");
	st = mqs_sb_decode_area(area, sizeof(area), &b, &c, err, sizeof(err));
	a.crc = b.crc;
	ktap_result(st == MQS_SB_OK && !memcmp(&a, &b, sizeof(a)) &&
		    mqs_sb_segmented(&b) && mqs_sb_segments(&b, seg) == 2 &&
		    seg[0] == 2 && seg[1] == 2 && seg[2] == 0 &&
		    mqs_sb_capacity(&b) == 700 * ch,
		    "segments round trip: 2 + 2 members, capacity the sum (%s)",
		    err);
	make_zoned(&a, 4, 1);
	ktap_result(mqs_sb_segments(&a, seg) == 1 && seg[0] == 4 &&
		    !mqs_sb_segmented(&a),
		    "without the bit: one segment of every member");

	make_segmented(&a, 0);
	a.nr_segments = 1;
	a.seg_members[1] = 0;
	a.seg_members[0] = 4;
	ktap_result(zoned_refused(&a, "not 2 to 4"),
		    "segments: one segment with the bit refused: %s", err);
	make_segmented(&a, 0);
	a.seg_members[1] = 1;
	ktap_result(zoned_refused(&a, "do not add up"),
		    "segments: members not adding up refused: %s", err);
	make_segmented(&a, 0);
	a.feature_incompat = MQS_SB_FEAT_INCOMPAT_SEGMENTS;
	ktap_result(zoned_refused(&a, "without member sizes"),
		    "segments without member sizes refused: %s", err);
	make_segmented(&a, 0);
	mqs_sb_encode_area(&a, NULL, area);
	area[0x140] ^= 0x10;	/* entry 1's start */
	fix_crc(area);
	ktap_result(mqs_sb_decode_area(area, MQS_SB_SIZE, &b, &c, err,
				       sizeof(err)) == MQS_SB_INVALID &&
		    strstr(err, "does not match the member sizes"),
		    "segments: an entry that does not match the sizes refused: %s",
		    err);
	make_segmented(&a, 0);
	mqs_sb_encode_area(&a, NULL, area);
	area[0x18] |= 4;	/* a bit this reader does not know */
	fix_crc(area);
	ktap_result(mqs_sb_decode_area(area, MQS_SB_SIZE, &b, &c, err,
				       sizeof(err)) == MQS_SB_INCOMPAT,
		    "segments: an unknown incompatible bit next to them refused: %s",
		    err);
	make_zoned(&a, 97, 0);
	a.feature_incompat |= MQS_SB_FEAT_INCOMPAT_SEGMENTS;
	a.nr_segments = 2;
	a.seg_members[0] = 96;
	a.seg_members[1] = 1;
	ktap_result(zoned_refused(&a, "more than 96"),
		    "segments: 97 members refused: %s", err);

	{
		const uint64_t sizes[] = { 100 * ch, 200 * ch, 300 * ch,
					   100 * ch };
		const uint32_t sm[] = { 2, 2 };

		nz = mqs_segzones_describe(sizes, sm, 2, z);
		ok = nz == 4 && z[0].seg == 0 && z[0].array_bytes == 200 * ch &&
		     z[1].seg == 0 && z[1].array_start == 200 * ch &&
		     z[1].array_bytes == 100 * ch &&
		     z[2].seg == 1 && z[2].first_slot == 2 &&
		     z[2].array_start == 300 * ch &&
		     z[2].array_bytes == 200 * ch &&
		     z[2].member_start == 0 &&
		     z[3].seg == 1 && z[3].array_start == 500 * ch &&
		     z[3].array_bytes == 200 * ch && z[3].nr == 1 &&
		     z[3].member_start == 100 * ch;
		ktap_result(ok, "zones of segments 100:200 and 300:100: two each, segment 1 from the end of segment 0, its member bytes from 0");
	}

	/*
	 * An add cut short: devices 2 and 3 written (the new members), the
	 * array's own (slots 0, 1) not yet: the array as it was, 2 and 3
	 * left out; then slot 0 written too: the new geometry, slot 1 (one
	 * event behind, 2 members) taken.
	 */
	make_group(31, order, 4, 4);
	for (rc = 0; rc < 4; rc++) {
		make_segmented(&cands[rc].sb, (uint32_t)rc);
		fill_uuid(cands[rc].sb.array_uuid, 31);
		cands[rc].sb.events = 8;
		cands[rc].size_bytes = (1 << 20) + 300 * ch;
		memcpy(cands[rc].sb.table, cands[0].sb.table,
		       sizeof(cands[0].sb.table));
		memcpy(cands[rc].sb.member_uuid, cands[0].sb.table[rc], 16);
	}
	for (rc = 0; rc < 2; rc++) {
		b = cands[rc].sb;
		b.events = 7;
		b.nr_members = 2;
		b.feature_incompat = MQS_SB_FEAT_INCOMPAT_MEMBER_SIZES;
		b.nr_segments = 1;
		memset(b.seg_members, 0, sizeof(b.seg_members));
		b.sizes[2] = b.sizes[3] = 0;
		cands[rc].sb = b;
	}
	ktap_result(!mqs_add_leftover(cp, 4, 0) && !mqs_add_leftover(cp, 4, 1) &&
		    mqs_add_leftover(cp, 4, 2) && mqs_add_leftover(cp, 4, 3),
		    "an add cut before the array's own members: the new ones are left over");
	rc = mqs_group_check(cp, 2, false, slots, err, sizeof(err));
	ktap_result(!rc && slots[1] == 1, "the array as it was assembles (%s)",
		    err);
	make_segmented(&b, 0);
	b.events = 8;
	fill_uuid(b.array_uuid, 31);
	memcpy(b.table, cands[2].sb.table, sizeof(b.table));
	memcpy(b.member_uuid, b.table[0], 16);
	cands[0].sb = b;
	ktap_result(!mqs_add_leftover(cp, 4, 2) && !mqs_add_leftover(cp, 4, 1),
		    "once slot 0 has the new geometry nothing is left over");
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(!rc && slots[3] == 3,
		    "the new geometry assembles, slot 1 one event behind with 2 members (%s)",
		    err);
	cands[1].sb.events = 8;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "member count"),
		    "at one event count 2 and 4 members disagree: %s", err);
	cands[1].sb.events = 7;
	cands[1].sb.sizes[1] += ch;
	rc = mqs_group_check(cp, 4, false, slots, err, sizeof(err));
	ktap_result(rc == -EINVAL && strstr(err, "data bytes of slot 1"),
		    "one event behind with another size for its slot disagrees: %s",
		    err);
}

int main(void)
{
	ktap_header("stripectl superblock and assembly rules");
	test_crc32c();
	test_layout();
	test_roundtrip();
	test_corruption();
	test_versions_and_features();
	test_ranges();
	test_encode_over();
	test_data_bytes();
	test_group();
	test_cut_hint();
	test_v2_layout();
	test_v2_roundtrip();
	test_v2_copies();
	test_v2_checks();
	test_group_formats();
	test_zoned();
	test_fault_record();
	test_segments();
	return ktap_finish();
}
