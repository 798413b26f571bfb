// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of stripectl's pure parts: the size and number parsers,
 * the option validators, UUIDs, device names, duplicate detection, size
 * formatting, and the message for every enum mqstripe_error_code
 * (tools/stripectl/parse.c and errmsg.c, linked as they are).
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "errmsg.h"
#include "ktap.h"
#include "parse.h"


static char err[MQS_ERR_LEN];

/* A message is one line that says something. */
static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

/* @s with control characters as '?', for a KTAP line */
static const char *tap_safe(const char *s)
{
	static char buf[4][MQS_ERR_LEN];
	static unsigned int next;
	char *b = buf[next++ % 4];
	size_t i;

	for (i = 0; i < MQS_ERR_LEN - 1 && s[i]; i++)
		b[i] = (unsigned char)s[i] < ' ' ? '?' : s[i];
	b[i] = '\0';
	return b;
}

static void test_parse_size(void)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t out;
	} vec[] = {
		{ "0", 0, 0 },
		{ "1", 0, 1 },
		{ "4096", 0, 4096 },
		{ "007", 0, 7 },
		{ "4k", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "4KiB", 0, 4096 },
		{ "4kib", 0, 4096 },
		{ "4KIB", 0, 4096 },
		{ "512K", 0, 512 << 10 },
		{ "1m", 0, 1 << 20 },
		{ "1M", 0, 1 << 20 },
		{ "1MiB", 0, 1 << 20 },
		{ "16M", 0, 16 << 20 },
		{ "1G", 0, 1ULL << 30 },
		{ "1gib", 0, 1ULL << 30 },
		{ "3G", 0, 3ULL << 30 },
		{ "1T", 0, 1ULL << 40 },
		{ "1t", 0, 1ULL << 40 },
		{ "1TiB", 0, 1ULL << 40 },
		{ "1tib", 0, 1ULL << 40 },
		{ "12T", 0, 12ULL << 40 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "17179869183G", 0, 17179869183ULL << 30 },
		{ "16777215T", 0, 16777215ULL << 40 },
		{ "16777216T", -ERANGE, 0 },
		{ "99999999999T", -ERANGE, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
		{ "18014398509481984K", -ERANGE, 0 },
		{ "17592186044416M", -ERANGE, 0 },
		{ "", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-4K", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1 K", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ "KiB", -EINVAL, 0 },
		{ "1KB", -EINVAL, 0 },
		{ "1B", -EINVAL, 0 },
		{ "1iB", -EINVAL, 0 },
		{ "1Ki", -EINVAL, 0 },
		{ "1KK", -EINVAL, 0 },
		{ "1P", -EINVAL, 0 },
		{ "1PiB", -EINVAL, 0 },
		{ "1E", -EINVAL, 0 },
		{ "1TB", -EINVAL, 0 },
		{ "T", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },
		{ "1,5M", -EINVAL, 0 },
		{ "0x1000", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "--name", -EINVAL, 0 },
		{ "12M\n", -EINVAL, 0 },
	};
	/* what the message of a refused size says */
	static const struct {
		const char *in;
		const char *needle;
	} says[] = {
		{ "-1", "negative" },
		{ "1P", "K, M, G or T suffix (KiB, MiB, GiB, TiB)" },
		{ "", "K, M, G or T suffix" },
		{ "16777216T", "is too large: a size must be below 2^64 bytes (16777216T)" },
		{ "99999999999999999999", "is too large: a size must be below 2^64 bytes (16777216T)" },
		{ "1.5M", "1536K" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		uint64_t out = 12345;
		int rc;

		err[0] = '\0';
		rc = mqs_parse_size(vec[i].in, &out, err, sizeof(err));
		/* the input is quoted in the message: mqs_error() masks it */
		if (vec[i].rc)
			ktap_result(rc == vec[i].rc && out == 12345 &&
				    err[0],
				    "size '%s' is refused (%d): %s",
				    tap_safe(vec[i].in), rc, tap_safe(err));
		else
			ktap_result(!rc && out == vec[i].out,
				    "size '%s' = %" PRIu64 " (got %d, %" PRIu64 ")",
				    vec[i].in, vec[i].out, rc, out);
	}
	for (i = 0; i < ARRAY_SIZE(says); i++) {
		mqs_parse_size(says[i].in, &(uint64_t){ 0 }, err, sizeof(err));
		ktap_result(strstr(err, says[i].needle) != NULL,
			    "size '%s' says '%s': %s", says[i].in,
			    says[i].needle, err);
	}
}

static void test_parse_uint(void)
{
	uint64_t v = 0;

	ktap_result(!mqs_parse_uint("128", 4096, &v, err, sizeof(err)) &&
		    v == 128, "uint '128'");
	ktap_result(!mqs_parse_uint("0", 4096, &v, err, sizeof(err)) && !v,
		    "uint '0'");
	ktap_result(mqs_parse_uint("4097", 4096, &v, err, sizeof(err)) ==
		    -ERANGE, "uint '4097' > max: %s", err);
	ktap_result(mqs_parse_uint("18446744073709551616", UINT64_MAX, &v,
				   err, sizeof(err)) == -ERANGE,
		    "uint 2^64 overflows: %s", err);
	ktap_result(mqs_parse_uint("-1", 4096, &v, err, sizeof(err)) ==
		    -EINVAL && strstr(err, "negative"),
		    "uint '-1': %s", err);
	ktap_result(mqs_parse_uint("12K", 4096, &v, err, sizeof(err)) ==
		    -EINVAL, "uint '12K': %s", err);
	ktap_result(mqs_parse_uint("", 4096, &v, err, sizeof(err)) == -EINVAL,
		    "uint '': %s", err);
	ktap_result(mqs_parse_uint(" 1", 4096, &v, err, sizeof(err)) ==
		    -EINVAL, "uint ' 1': %s", err);
}

static void test_chunk(void)
{
	static const struct {
		uint64_t chunk;
		bool ok;
	} vec[] = {
		{ 0, false }, { 512, false }, { 2048, false },
		{ 4095, false }, { 4096, true }, { 6144, false },
		{ 8192, true }, { 65536, true }, { 524288, true },
		{ 524289, false }, { 8 << 20, true }, { 16 << 20, true },
		{ (16 << 20) + 4096, false }, { 32 << 20, false },
		{ 1ULL << 63, false }, { UINT64_MAX, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		int rc = mqs_check_chunk(vec[i].chunk, err, sizeof(err));

		ktap_result(vec[i].ok ? !rc : rc == -EINVAL && one_line(err),
			    "chunk %" PRIu64 " %s%s", vec[i].chunk,
			    vec[i].ok ? "accepted" : "refused: ",
			    vec[i].ok ? "" : err);
	}
	mqs_check_chunk(12288, err, sizeof(err));
	ktap_result(strstr(err, "power of two") != NULL,
		    "chunk 12K: says power of two: %s", err);
}

static void test_stripe_width(void)
{
	ktap_result(!mqs_check_stripe_width(16 << 20, 64, err, sizeof(err)),
		    "64 x 16M = 1G accepted");
	ktap_result(!mqs_check_stripe_width(4 << 20, 256, err, sizeof(err)),
		    "256 x 4M = 1G accepted");
	ktap_result(mqs_check_stripe_width(16 << 20, 65, err, sizeof(err)) ==
		    -EINVAL && strstr(err, "--chunk 8M"),
		    "65 x 16M refused, suggests 8M: %s", err);
	ktap_result(mqs_check_stripe_width(8 << 20, 256, err, sizeof(err)) ==
		    -EINVAL && strstr(err, "--chunk 4M"),
		    "256 x 8M refused, suggests 4M: %s", err);
	ktap_result(!mqs_check_stripe_width(512 << 10, 256, err, sizeof(err)),
		    "256 x 512K accepted");
}

static void test_data_offset(void)
{
	ktap_result(!mqs_check_data_offset(0, err, sizeof(err)),
		    "data offset 0 accepted");
	ktap_result(!mqs_check_data_offset(4096, err, sizeof(err)),
		    "data offset 4K accepted");
	ktap_result(!mqs_check_data_offset(1 << 20, err, sizeof(err)),
		    "data offset 1M accepted");
	ktap_result(!mqs_check_data_offset(1001 * 4096, err, sizeof(err)),
		    "data offset 1001 x 4K accepted");
	ktap_result(mqs_check_data_offset(512, err, sizeof(err)) == -EINVAL,
		    "data offset 512 refused: %s", err);
	ktap_result(mqs_check_data_offset(4097, err, sizeof(err)) == -EINVAL,
		    "data offset 4097 refused: %s", err);
}

static void test_queue_depth(void)
{
	ktap_result(mqs_check_queue_depth(0, err, sizeof(err)) == -EINVAL,
		    "queue depth 0 refused: %s", err);
	ktap_result(!mqs_check_queue_depth(1, err, sizeof(err)),
		    "queue depth 1 accepted");
	ktap_result(!mqs_check_queue_depth(4096, err, sizeof(err)),
		    "queue depth 4096 accepted");
	ktap_result(mqs_check_queue_depth(4097, err, sizeof(err)) == -EINVAL,
		    "queue depth 4097 refused: %s", err);
}

static void test_nr_members(void)
{
	ktap_result(mqs_check_nr_members(0, err, sizeof(err)) == -EINVAL &&
		    !strcmp(err, "no members given"),
		    "0 members: '%s'", err);
	ktap_result(!mqs_check_nr_members(1, err, sizeof(err)),
		    "1 member accepted");
	ktap_result(!mqs_check_nr_members(256, err, sizeof(err)),
		    "256 members accepted");
	ktap_result(mqs_check_nr_members(257, err, sizeof(err)) == -EINVAL,
		    "257 members refused: %s", err);
}

static void test_name(void)
{
	static const struct {
		const char *name;
		bool ok;
	} vec[] = {
		{ "db", true },
		{ "a", true },
		{ "pg-data_01.main", true },
		{ "A.B-C_D", true },
		{ "0123456789012345678901234567890", true },	/* 31 */
		{ "01234567890123456789012345678901", false },	/* 32 */
		{ "", false },
		{ "has space", false },
		{ "slash/name", false },
		{ "bad!", false },
		{ "tab\tname", false },
		{ "new\nline", false },
		{ "caf\xc3\xa9", false },
		{ "-leading", false },
		{ "mqstripe0", false },
		{ "mqstripe12", false },
		{ "mqstripe", true },
		{ "mqstripe01", true },
		{ "mqstripe1x", true },
		{ "xmqstripe1", true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		int rc = mqs_check_name(vec[i].name, err, sizeof(err));

		ktap_result(vec[i].ok ? !rc : rc == -EINVAL && one_line(err),
			    "name #%zu %s%s", i,
			    vec[i].ok ? "accepted" : "refused: ",
			    vec[i].ok ? "" : err);
	}
}

/* "." and "..": no /dev/stripe/ link; refused for new arrays only */
static void test_new_name(void)
{
	static const char *const dots[] = { ".", ".." };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dots); i++) {
		ktap_result(mqs_check_new_name(dots[i], err, sizeof(err)) ==
			    -EINVAL && strstr(err, "/dev/stripe/") &&
			    one_line(err),
			    "new name '%s' refused: %s", dots[i], err);
		ktap_result(!mqs_check_name(dots[i], err, sizeof(err)),
			    "existing name '%s' still valid (superblocks)",
			    dots[i]);
	}
	ktap_result(!mqs_check_new_name(".db", err, sizeof(err)) &&
		    !mqs_check_new_name("...", err, sizeof(err)),
		    "new names '.db' and '...' accepted");
	ktap_result(mqs_check_new_name("a b", err, sizeof(err)) == -EINVAL &&
		    strstr(err, "use only"),
		    "new names get mqs_check_name's checks too: %s", err);
}

static void test_uuid(void)
{
	static const uint8_t want[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	static const char *const bad[] = {
		"",
		"0123456789abcdef0123456789abcdef",
		"01234567-89ab-cdef-0123-456789abcde",
		"01234567-89ab-cdef-0123-456789abcdef0",
		"01234567-89ab-cdef-0123_456789abcdef",
		"0123456789-ab-cdef-0123-456789abcdef",
		"01234567-89ab-cdef-0123-456789abcdeg",
		"{1234567-89ab-cdef-0123-456789abcdef}",
		"00000000-0000-0000-0000-000000000000",
	};
	uint8_t u[16];
	char s[37];
	size_t i;

	ktap_result(!mqs_parse_uuid("01234567-89ab-cdef-0123-456789abcdef",
				    u, err, sizeof(err)) &&
		    !memcmp(u, want, 16), "uuid lower case");
	ktap_result(!mqs_parse_uuid("01234567-89AB-CDEF-0123-456789ABCDEF",
				    u, err, sizeof(err)) &&
		    !memcmp(u, want, 16), "uuid upper case");
	mqs_format_uuid(want, s);
	ktap_result(!strcmp(s, "01234567-89ab-cdef-0123-456789abcdef"),
		    "uuid formats back: %s", s);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		ktap_result(mqs_parse_uuid(bad[i], u, err, sizeof(err)) ==
			    -EINVAL && one_line(err),
			    "uuid '%s' refused: %s", bad[i], err);
}

static void test_dev_index(void)
{
	static const struct {
		const char *s;
		bool ok;
		uint32_t index;
	} vec[] = {
		{ "/dev/mqstripe0", true, 0 },
		{ "mqstripe0", true, 0 },
		{ "mqstripe7", true, 7 },
		{ "/dev/mqstripe123", true, 123 },
		{ "mqstripe4294967295", true, 4294967295U },
		{ "mqstripe4294967296", false, 0 },
		{ "mqstripe", false, 0 },
		{ "mqstripe01", false, 0 },
		{ "mqstripe1x", false, 0 },
		{ "mqstripe-1", false, 0 },
		{ "/dev/mqstripe", false, 0 },
		{ "/dev/mqstripe-control", false, 0 },
		{ "/devmqstripe1", false, 0 },
		{ "/tmp/mqstripe1", false, 0 },
		{ "db", false, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		uint32_t idx = 99;
		bool ok = mqs_parse_dev_index(vec[i].s, &idx);

		ktap_result(ok == vec[i].ok && (!ok || idx == vec[i].index),
			    "device name '%s' %s", vec[i].s,
			    vec[i].ok ? "is a device" : "is not a device");
	}
}

static void test_duplicate(void)
{
	const uint64_t none[] = { 1, 2, 3, 4 };
	const uint64_t dup[] = { 10, 11, 12, 11, 10 };
	size_t a = 99, b = 99;
	bool found;

	ktap_result(!mqs_find_duplicate(none, 4, &a, &b), "no duplicate");
	ktap_result(!mqs_find_duplicate(none, 0, &a, &b), "no members");
	found = mqs_find_duplicate(dup, 5, &a, &b);
	ktap_result(found && a == 1 && b == 3,
		    "first repeat found: %zu and %zu", a, b);
}

static void test_overlap(void)
{
	/* 259:0 a disk, 259:1 and 259:2 its partitions, 259:5 another disk */
	const uint64_t devs[] = { 2590, 2591, 2592, 2595 };
	const uint64_t disks[] = { 2590, 2590, 2590, 2595 };
	size_t a = 99, b = 99;
	bool found;

	ktap_result(!mqs_find_overlap(devs + 1, disks + 1, 3, &a, &b),
		    "two partitions of one disk do not overlap");
	found = mqs_find_overlap(devs, disks, 4, &a, &b);
	ktap_result(found && a == 0 && b == 1,
		    "a disk and its partition overlap: %zu and %zu", a, b);
	found = mqs_find_overlap(devs + 1, disks + 1, 3, &a, &b) ||
		mqs_find_overlap((const uint64_t[]){ 2592, 2590 },
				 (const uint64_t[]){ 2590, 2590 }, 2, &a, &b);
	ktap_result(found && a == 0 && b == 1,
		    "a partition given before its disk overlaps");
}

static void test_member_fit(void)
{
	const char *hint = "/sys/block/nvme1n1/queue/physical_block_size";

	ktap_result(!mqs_check_member_fit(2 << 20, 4096, 1 << 20, 1 << 20,
					  hint, err, sizeof(err)),
		    "member of exactly data offset + one chunk fits");
	ktap_result(mqs_check_member_fit((2 << 20) - 1, 512, 1 << 20, 1 << 20,
					 hint, err, sizeof(err)) == -ENOSPC &&
		    strstr(err, "too small") && strstr(err, "2097152"),
		    "member one byte short: %s", err);
	ktap_result(mqs_check_member_fit(1ULL << 40, 8192, 4096, 1 << 20,
					 hint, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "physical block size") && strstr(err, hint) &&
		    strstr(err, "8K"),
		    "chunk below pbs: %s", err);
	ktap_result(mqs_check_member_fit(1ULL << 40, 8192, 8192, 12288,
					 hint, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "data offset") && strstr(err, hint) &&
		    strstr(err, "use a --data-offset that is a multiple of 8K, e.g. 16K"),
		    "offset not a pbs multiple, with a usable value: %s", err);
	ktap_result(mqs_check_member_fit(UINT64_MAX - 1, 0, 16 << 20,
					 UINT64_MAX - 4095, NULL, err,
					 sizeof(err)) == -ENOSPC,
		    "data offset + chunk overflowing 64 bits is too small");
	ktap_result(mqs_member_min_bytes(1 << 20, UINT64_MAX) == UINT64_MAX,
		    "min bytes saturate");
}

static void test_size_format(void)
{
	static const struct {
		uint64_t v;
		const char *exact;
		const char *human;
	} vec[] = {
		{ 0, "0", "0B" },
		{ 512, "512", "512B" },
		{ 4096, "4K", "4K" },
		{ 524288, "512K", "512K" },
		{ 1 << 20, "1M", "1M" },
		{ 1536 << 10, "1536K", "1.5M" },
		{ 16 << 20, "16M", "16M" },
		{ 1ULL << 30, "1G", "1G" },
		{ 1ULL << 40, "1T", "1T" },
		{ 1ULL << 50, "1024T", "1P" },
		{ 3ULL << 60, "3145728T", "3E" },
		{ 1048575, "1048575", "1M" },
		{ 4000787030016ULL, "3907018584K", "3.6T" },
		{ UINT64_MAX, "18446744073709551615", "16E" },
	};
	char a[32], b[32];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		uint64_t back = 0;

		mqs_size_exact(vec[i].v, a, sizeof(a));
		mqs_size_human(vec[i].v, b, sizeof(b));
		ktap_result(!strcmp(a, vec[i].exact) &&
			    !strcmp(b, vec[i].human),
			    "format %" PRIu64 ": '%s' '%s'", vec[i].v, a, b);
		/* an exact size in a message ("use --size X") is one to give back */
		ktap_result(!mqs_parse_size(a, &back, err, sizeof(err)) &&
			    back == vec[i].v,
			    "exact '%s' parses back to %" PRIu64 " (got %" PRIu64 ")",
			    a, vec[i].v, back);
	}
}

/* Every error code gets a message of its own that names the culprit. */
static void test_create_errors(void)
{
	static const struct {
		uint32_t code;
		int err;
		const char *needle;
		bool names_member;
	} vec[] = {
		{ MQSTRIPE_ERR_BAD_FD, EBADF, "bug", true },
		{ MQSTRIPE_ERR_NOT_BLOCK, ENOTBLK, "not a block device", true },
		{ MQSTRIPE_ERR_DUPLICATE, EINVAL, "another member", true },
		{ MQSTRIPE_ERR_BUSY, EBUSY, "device is busy: it is mounted, in use or a member of another array", true },
		{ MQSTRIPE_ERR_ZONED, EINVAL, "zoned", true },
		{ MQSTRIPE_ERR_TOO_SMALL, ENOSPC, "member is too small: needs at least data offset + one chunk (1572864 bytes)", true },
		{ MQSTRIPE_ERR_CHUNK_LT_PBS, EINVAL, "chunk 524288 is smaller than the member's physical block size 1048576 (check /sys/block/nvme1n1/queue/physical_block_size)", true },
		{ MQSTRIPE_ERR_OFFSET_ALIGN, EINVAL, "data offset 1048576 is not a multiple", true },
		{ MQSTRIPE_ERR_OPEN, ENXIO, "could not open", true },
		{ MQSTRIPE_ERR_GEOMETRY, EINVAL, "geometry", false },
		{ MQSTRIPE_ERR_NAME, EINVAL, "--name 'db'", false },
		{ MQSTRIPE_ERR_QUEUE_DEPTH, EINVAL, "--queue-depth 128", false },
		{ MQSTRIPE_ERR_NAME_EXISTS, EEXIST, "--name 'db': an array with this name exists already", false },
		{ MQSTRIPE_ERR_UUID_EXISTS, EEXIST, "--uuid 01234567-89ab-cdef-0123-456789abcdef: an array with this UUID", false },
		{ MQSTRIPE_ERR_STACK_DEPTH, EINVAL, "an array at the deepest level of a stack of arrays already: at most 8 levels", true },
	};
	struct mqs_member_dev members[2] = {
		{ .path = "/dev/nvme0n1", .size_bytes = 1ULL << 40,
		  .pbs = 4096 },
		{ .path = "/dev/nvme1n1", .size_bytes = 1ULL << 40,
		  .pbs = 1 << 20,
		  .pbs_hint = "/sys/block/nvme1n1/queue/physical_block_size" },
	};
	struct mqs_create_req req = {
		.members = members,
		.nr_members = 2,
		.chunk_bytes = 512 << 10,
		.data_offset_bytes = 1 << 20,
		.queue_depth = 128,
		.name = "db",
		.uuid = "01234567-89ab-cdef-0123-456789abcdef",
	};
	char msg[MQS_ERR_LEN], other[MQS_ERR_LEN];
	bool seen[64] = { false };
	uint32_t code;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vec); i++) {
		seen[vec[i].code] = true;
		members[1].size_bytes = vec[i].code ==
			MQSTRIPE_ERR_TOO_SMALL ? MQS_SIZE_UNKNOWN : 1ULL << 40;
		mqs_create_error(vec[i].err, vec[i].code, 1,
				 MQSTRIPE_ABI_VERSION, &req, msg, sizeof(msg));
		ktap_result(one_line(msg) && strstr(msg, vec[i].needle) &&
			    (!vec[i].names_member ||
			     !strncmp(msg, "/dev/nvme1n1: ", 14)) &&
			    !strstr(msg, "error code"),
			    "error code %s: %s",
			    mqs_error_code_name(vec[i].code), msg);
	}
	/* a new enum value without a message here fails this */
	for (code = MQSTRIPE_ERR_NONE + 1; mqs_error_code_name(code); code++)
		ktap_result(code < ARRAY_SIZE(seen) && seen[code],
			    "error code %u (%s) has a test", code,
			    mqs_error_code_name(code));

	mqs_create_error(EINVAL, 99, (uint32_t)-1, MQSTRIPE_ABI_VERSION, &req,
			 msg, sizeof(msg));
	ktap_result(one_line(msg) && strstr(msg, "error code 99"),
		    "unknown error code: %s", msg);
	mqs_create_error(EBUSY, MQSTRIPE_ERR_BUSY, (uint32_t)-1,
			 MQSTRIPE_ABI_VERSION, &req, msg, sizeof(msg));
	ktap_result(one_line(msg) && strstr(msg, "one of the members"),
		    "member code without a member: %s", msg);
	mqs_create_error(EBUSY, MQSTRIPE_ERR_BUSY, 2, MQSTRIPE_ABI_VERSION,
			 &req, msg, sizeof(msg));
	ktap_result(one_line(msg) && !strstr(msg, "/dev/nvme"),
		    "error_member out of range is not used: %s", msg);
	mqs_create_error(EBUSY, MQSTRIPE_ERR_NONE, 0, MQSTRIPE_ABI_VERSION,
			 &req, msg, sizeof(msg));
	ktap_result(one_line(msg) && strstr(msg, "/dev/nvme0n1: device is busy"),
		    "EBUSY without a code: %s", msg);
	mqs_create_error(EPERM, MQSTRIPE_ERR_NONE, (uint32_t)-1,
			 MQSTRIPE_ABI_VERSION, &req, msg, sizeof(msg));
	ktap_result(strstr(msg, "needs root (CAP_SYS_ADMIN)") != NULL,
		    "EPERM: %s", msg);
	mqs_create_error(EPROTO, MQSTRIPE_ERR_NONE, (uint32_t)-1, 7, &req,
			 msg, sizeof(msg));
	snprintf(other, sizeof(other), "ABI version %u",
		 (unsigned int)MQSTRIPE_ABI_VERSION);
	ktap_result(strstr(msg, "ABI version 7") && strstr(msg, other),
		    "ABI mismatch names both versions: %s", msg);
}

static void test_control_errors(void)
{
	char msg[MQS_ERR_LEN];

	mqs_control_open_error(ENOENT, 0, msg, sizeof(msg));
	ktap_result(!strcmp(msg, "/dev/mqstripe-control not found: load the module with 'modprobe mqstripe'"),
		    "control missing: %s", msg);
	mqs_control_open_error(EACCES, 0, msg, sizeof(msg));
	ktap_result(strstr(msg, "needs root (CAP_SYS_ADMIN)") != NULL,
		    "control EACCES: %s", msg);
	mqs_control_open_error(EPERM, 0, msg, sizeof(msg));
	ktap_result(strstr(msg, "needs root (CAP_SYS_ADMIN)") != NULL,
		    "control EPERM: %s", msg);
	mqs_control_open_error(EPROTO, 2, msg, sizeof(msg));
	ktap_result(strstr(msg, "ABI version 2") && strstr(msg, "ABI version 1"),
		    "control ABI mismatch: %s", msg);
	mqs_control_open_error(ENOTTY, 0, msg, sizeof(msg));
	ktap_result(one_line(msg), "control ENOTTY: %s", msg);
	mqs_control_open_error(ENXIO, 0, msg, sizeof(msg));
	ktap_result(strstr(msg, "modprobe mqstripe") != NULL,
		    "control ENXIO: %s", msg);
}

/* parse TEXT as a configuration file named "t.conf" */
static int conf_text(const char *text, struct mqs_conf *conf)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	if (!f)
		return -errno;
	rc = mqs_conf_parse(f, "t.conf", conf, err, sizeof(err));
	fclose(f);
	return rc;
}

static void test_conf(void)
{
	static const uint8_t u1[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
	};
	static const uint8_t u2[16] = { 0xfe, 0xdc, 1, 2, 3, 4, 5, 6,
					7, 8, 9, 10, 11, 12, 13, 14 };
	/* @assembly, @monitor: the line keeps that user from going on */
	static const struct {
		const char *text, *msg;
		bool assembly, monitor;
	} bad[] = {
		{ "AUTO maybe\n", "t.conf:1: AUTO takes one word, yes or no (not 'maybe')", true, false },
		{ "AUTO\n", "t.conf:1: AUTO takes one word, yes or no", true, false },
		{ "AUTO no\n\nauto yes\n", "t.conf:3: AUTO given again (first on line 1)", true, false },
		{ "AUTOSTART no\n", "t.conf:1: unknown keyword 'AUTOSTART', a misspelt AUTO?", true, false },
		{ "AUTO=no\n", "t.conf:1: unknown keyword 'AUTO=no', a misspelt AUTO?", true, false },
		{ "ATUO no\n", "t.conf:1: unknown keyword 'ATUO', a misspelt AUTO?", true, false },
		{ "# c\nDEVICE /dev/sda\n", "t.conf:2: unknown keyword 'DEVICE'", false, false },
		{ "MAILADR root\n", "t.conf:1: unknown keyword 'MAILADR'", false, false },
		{ "ARRAY\n", "t.conf:1: ARRAY without uuid= or name=", false, false },
		{ "ARRAY uuid=xyz\n", "t.conf:1: ARRAY uuid=: 'xyz' is not a UUID", false, false },
		{ "ARRAY name=a/b\n", "t.conf:1: ARRAY name=: name 'a/b' has the character '/'", false, false },
		{ "ARRAY devices=/dev/x\n", "t.conf:1: ARRAY: unknown key 'devices'", false, false },
		{ "ARRAY /dev/md0\n", "t.conf:1: ARRAY: '/dev/md0' is not KEY=VALUE", false, false },
		{ "ARRAY name=a NAME=b\n", "t.conf:1: ARRAY: NAME= given twice", false, false },
		{ "MAILADDR\n", "t.conf:1: MAILADDR takes one word, the address to mail the events to", false, true },
		{ "MAILADDR a@b c@d\n", "t.conf:1: MAILADDR takes one word", false, true },
		{ "MAILADDR a@b\nMAILADDR c@d\n", "t.conf:2: MAILADDR given again (first on line 1)", false, true },
		{ "MAILFROM\n", "t.conf:1: MAILFROM without a sender", false, true },
		{ "PROGRAM bin/x\n", "t.conf:1: PROGRAM 'bin/x' is not an absolute path", false, true },
	};
	struct mqs_conf c;
	char why[MQS_ERR_LEN];
	size_t i;
	int rc;

	rc = conf_text("", &c);
	ktap_result(!rc && c.present && c.auto_start && !c.nr_arrays &&
		    mqs_conf_allows(&c, u2, "x", why, sizeof(why)),
		    "conf: an empty file allows every array");
	mqs_conf_free(&c);
	rc = conf_text("  # the arrays of this host\n"
		       "auto No   # only these\n"
		       "ARRAY uuid=01234567-89AB-cdef-0123-456789abcdef name=db\n"
		       "\tarray\tName=logs\n", &c);
	ktap_result(!rc && !c.auto_start && c.auto_line == 2 &&
		    c.nr_arrays == 2 && c.arrays[0].has_uuid &&
		    !memcmp(c.arrays[0].uuid, u1, 16) &&
		    !strcmp(c.arrays[0].name, "db") && c.arrays[0].line == 3 &&
		    !c.arrays[1].has_uuid && !strcmp(c.arrays[1].name, "logs") &&
		    c.arrays[1].line == 4,
		    "conf: comments, blanks, any case: AUTO no and two ARRAY lines (%s)",
		    rc ? err : "parsed");
	ktap_result(mqs_conf_allows(&c, u1, "db", why, sizeof(why)),
		    "conf: uuid and name match: allowed");
	ktap_result(mqs_conf_allows(&c, u2, "logs", why, sizeof(why)),
		    "conf: a name-only line allows any UUID of that name");
	ktap_result(!mqs_conf_allows(&c, u1, "other", why, sizeof(why)) &&
		    !strcmp(why, "AUTO no in t.conf, and its ARRAY line (line 3) names 'db', not 'other'"),
		    "conf: the UUID's line names another name: refused: %s", why);
	ktap_result(!mqs_conf_allows(&c, u2, "x", why, sizeof(why)) &&
		    !strcmp(why, "AUTO no in t.conf (line 2) and no ARRAY line names it; to start it at boot add the line 'ARRAY uuid=fedc0102-0304-0506-0708-090a0b0c0d0e name=x'"),
		    "conf: no line names it: refused, with the line to add: %s", why);
	ktap_result(!mqs_conf_allows(&c, u2, "", why, sizeof(why)) &&
		    strstr(why, "'ARRAY uuid=fedc0102-0304-0506-0708-090a0b0c0d0e'"),
		    "conf: an unnamed array: the line to add has no name=: %s", why);
	mqs_conf_free(&c);
	rc = conf_text("AUTO yes\nARRAY name=db\n", &c);
	ktap_result(!rc && mqs_conf_allows(&c, u2, "x", why, sizeof(why)),
		    "conf: AUTO yes allows arrays no line names");
	mqs_conf_free(&c);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rc = conf_text(bad[i].text, &c);
		ktap_result(!rc && c.nr_issues == 1 &&
			    one_line(c.issues[0].msg) &&
			    !strncmp(c.issues[0].msg, bad[i].msg,
				     strlen(bad[i].msg)) &&
			    mqs_conf_blocks(&c.issues[0], false) == bad[i].assembly &&
			    mqs_conf_blocks(&c.issues[0], true) == bad[i].monitor,
			    "conf: %s: noted%s%s",
			    c.nr_issues ? c.issues[0].msg : "(nothing)",
			    bad[i].assembly ? ", the assembly stops" : "",
			    bad[i].monitor ? ", the monitor stops" : "");
		mqs_conf_free(&c);
	}
	/* the good lines around a bad one still count */
	rc = conf_text("AUTO no\nMAILADDR\nARRAY uuid=xyz\nFROBNICATE 1\n"
		       "ARRAY name=logs\nPROGRAM /bin/true\n", &c);
	ktap_result(!rc && c.nr_issues == 3 && !c.auto_start &&
		    c.nr_arrays == 1 && !strcmp(c.arrays[0].name, "logs") &&
		    c.program && !strcmp(c.program, "/bin/true") &&
		    !mqs_conf_blocks(&c.issues[0], false) &&
		    !mqs_conf_blocks(&c.issues[1], false) &&
		    !mqs_conf_blocks(&c.issues[2], false),
		    "conf: a bad MAILADDR, a bad ARRAY line, an unknown keyword: each noted, the other lines taken, the assembly goes on");
	mqs_conf_issue_text(&c.issues[0], false, why, sizeof(why));
	ktap_result(!strcmp(why, "warning: t.conf:2: MAILADDR takes one word, the address to mail the events to; the assembly does not use it and goes on; 'stripectl monitor --scan' refuses to start until it is fixed"),
		    "conf: the assembly's warning for a bad MAILADDR: %s", why);
	mqs_conf_free(&c);
}

int main(void)
{
	ktap_header("stripectl parsers, validators and messages");
	test_parse_size();
	test_parse_uint();
	test_chunk();
	test_stripe_width();
	test_data_offset();
	test_queue_depth();
	test_nr_members();
	test_name();
	test_new_name();
	test_uuid();
	test_dev_index();
	test_duplicate();
	test_overlap();
	test_member_fit();
	test_size_format();
	test_create_errors();
	test_control_errors();
	test_conf();
	return ktap_finish();
}
