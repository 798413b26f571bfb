// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers and validators of stripectl's arguments.  Pure functions: the
 * limits come from the ABI header, the messages say what is wrong and what
 * to do, and the unit tests call them directly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <uuid.h>

#include "mqstripe.h"
#include "parse.h"

void mqs_set_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Decimal digits only: no sign, no blanks, no base prefix (strtoull would
 * take " -1" and "0x10").  Returns the number of digits read, 0 if none,
 * -ERANGE on overflow.
 */
static int read_decimal(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;

	while (is_digit(s[n])) {
		unsigned int d = s[n] - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		n++;
	}
	*out = v;
	return n;
}

static int suffix_shift(const char *s)
{
	static const struct {
		const char *suffix;
		int shift;
	} suffixes[] = {
		{ "", 0 },
		{ "k", 10 }, { "kib", 10 },
		{ "m", 20 }, { "mib", 20 },
		{ "g", 30 }, { "gib", 30 },
		{ "t", 40 }, { "tib", 40 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (!strcasecmp(s, suffixes[i].suffix))
			return suffixes[i].shift;
	return -1;
}

/* the largest size is 2^64 - 1 bytes; in whole T, 16777215T */
#define SIZE_TOO_LARGE \
	"'%s' is too large: a size must be below 2^64 bytes (16777216T)"

/**
 * mqs_parse_size() - parse "4096", "512K", "1MiB", "2g", "1T"
 * @s: the text; plain bytes or a K, M, G, T, KiB, MiB, GiB, TiB suffix
 *	(powers of 1024, any case).
 * @out: the size in bytes.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Return: 0, -EINVAL (not a size), -ERANGE (does not fit 64 bits).
 */
int mqs_parse_size(const char *s, uint64_t *out, char *err, size_t len)
{
	uint64_t v;
	int n, shift;

	if (!*s) {
		mqs_set_err(err, len, "empty size: give bytes or a K, M, G or T suffix, e.g. 512K");
		return -EINVAL;
	}
	if (s[0] == '-' && is_digit(s[1])) {
		mqs_set_err(err, len, "'%s' is negative: sizes are positive, e.g. 512K",
			s);
		return -EINVAL;
	}
	n = read_decimal(s, &v);
	if (n == -ERANGE) {
		mqs_set_err(err, len, SIZE_TOO_LARGE, s);
		return -ERANGE;
	}
	if (n > 0 && (s[n] == '.' || s[n] == ',') && is_digit(s[n + 1])) {
		mqs_set_err(err, len,
			"'%s' is not a whole number: use a smaller unit, e.g. 1536K for 1.5M",
			s);
		return -EINVAL;
	}
	shift = n > 0 ? suffix_shift(s + n) : -1;
	if (shift < 0) {
		mqs_set_err(err, len,
			"'%s' is not a size: give bytes or a K, M, G or T suffix (KiB, MiB, GiB, TiB), e.g. 512K",
			s);
		return -EINVAL;
	}
	if (v > (UINT64_MAX >> shift)) {
		mqs_set_err(err, len, SIZE_TOO_LARGE, s);
		return -ERANGE;
	}
	*out = v << shift;
	return 0;
}

/**
 * mqs_parse_uint() - parse a plain decimal number, at most @max
 * @s: the text.
 * @max: the largest value accepted.
 * @out: the value.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Return: 0, -EINVAL, -ERANGE.
 */
int mqs_parse_uint(const char *s, uint64_t max, uint64_t *out,
		   char *err, size_t len)
{
	uint64_t v;
	int n = read_decimal(s, &v);

	if (n == -ERANGE || (n > 0 && !s[n] && v > max)) {
		mqs_set_err(err, len, "'%s' is too large (at most %" PRIu64 ")",
			s, max);
		return -ERANGE;
	}
	if (n <= 0 || s[n]) {
		if (s[0] == '-' && is_digit(s[1]))
			mqs_set_err(err, len, "'%s' is negative", s);
		else
			mqs_set_err(err, len, "'%s' is not a number", s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/**
 * mqs_parse_uuid() - parse the 8-4-4-4-12 hex form
 * @s: the text, any case.
 * @uuid: the 16 bytes, in the order written.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * The nil UUID is refused: it cannot tell one array from another.
 *
 * Return: 0 or -EINVAL.
 */
int mqs_parse_uuid(const char *s, uint8_t uuid[16], char *err, size_t len)
{
	uuid_t u;

	/* libuuid: exactly 36 characters, dashes at 8, 13, 18, 23 */
	if (uuid_parse(s, u))
		goto bad;
	if (uuid_is_null(u)) {
		mqs_set_err(err, len,
			"'%s' is the nil UUID: give another one or leave out --uuid for a random one",
			s);
		return -EINVAL;
	}
	memcpy(uuid, u, sizeof(u));
	return 0;
bad:
	mqs_set_err(err, len,
		"'%s' is not a UUID: use the form 01234567-89ab-cdef-0123-456789abcdef",
		s);
	return -EINVAL;
}

/* The 8-4-4-4-12 form, lower case (libuuid), as blkid and lsblk print. */
void mqs_format_uuid(const uint8_t uuid[16], char out[37])
{
	uuid_unparse_lower(uuid, out);
}

/**
 * mqs_parse_dev_index() - N of "/dev/mqstripeN" or "mqstripeN"
 * @s: the text.
 * @index: N.
 *
 * Only the kernel's spelling counts: "mqstripe01" and "mqstripe1x" are not
 * device names (they may be array names).
 *
 * Return: true if @s names a device by its index.
 */
bool mqs_parse_dev_index(const char *s, uint32_t *index)
{
	size_t plen = strlen(MQSTRIPE_DISK_PREFIX);
	uint64_t v;
	int n;

	if (!strncmp(s, "/dev/", 5))
		s += 5;
	if (strncmp(s, MQSTRIPE_DISK_PREFIX, plen))
		return false;
	s += plen;
	n = read_decimal(s, &v);
	if (n <= 0 || s[n] || (s[0] == '0' && n > 1) || v > UINT32_MAX)
		return false;
	*index = (uint32_t)v;
	return true;
}

/*
 * The names of the array with index @index, spelled here alone (the parse
 * above reads them back): "mqstripeN", the kernel's name; /dev/mqstripeN,
 * its node; /sys/block/mqstripeN/@file, a file of its sysfs directory.
 */
void mqs_array_kname(uint32_t index, char *buf, size_t len)
{
	snprintf(buf, len, "%s%u", MQSTRIPE_DISK_PREFIX, index);
}

void mqs_array_node(uint32_t index, char *buf, size_t len)
{
	snprintf(buf, len, "/dev/%s%u", MQSTRIPE_DISK_PREFIX, index);
}

void mqs_array_sysfs(uint32_t index, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/block/%s%u/%s", MQSTRIPE_DISK_PREFIX, index,
		 file);
}

int mqs_check_nr_members(uint64_t nr, char *err, size_t len)
{
	if (nr < MQSTRIPE_MIN_MEMBERS) {
		mqs_set_err(err, len, "no members given");
		return -EINVAL;
	}
	if (nr > MQSTRIPE_MAX_MEMBERS) {
		mqs_set_err(err, len, "too many members: %" PRIu64
			" given, at most %d", nr, MQSTRIPE_MAX_MEMBERS);
		return -EINVAL;
	}
	return 0;
}

int mqs_check_chunk(uint64_t chunk, char *err, size_t len)
{
	char a[32], b[32], c[32];

	if (!chunk || (chunk & (chunk - 1))) {
		mqs_set_err(err, len,
			"chunk %s is not a power of two: use e.g. 64K or 512K",
			mqs_size_exact(chunk, a, sizeof(a)));
		return -EINVAL;
	}
	if (chunk < MQSTRIPE_MIN_CHUNK_BYTES) {
		mqs_set_err(err, len,
			"chunk %s is smaller than %s (the smallest): use e.g. 64K or 512K",
			mqs_size_exact(chunk, a, sizeof(a)),
			mqs_size_exact(MQSTRIPE_MIN_CHUNK_BYTES, b, sizeof(b)));
		return -EINVAL;
	}
	if (chunk > MQSTRIPE_MAX_CHUNK_BYTES) {
		mqs_set_err(err, len,
			"chunk %s is larger than %s (the largest): use at most %s (the default is %s)",
			mqs_size_exact(chunk, a, sizeof(a)),
			mqs_size_exact(MQSTRIPE_MAX_CHUNK_BYTES, b, sizeof(b)),
			b, mqs_size_exact(MQSTRIPE_DEFAULT_CHUNK_BYTES, c,
					  sizeof(c)));
		return -EINVAL;
	}
	return 0;
}

/* Call after mqs_check_chunk() and mqs_check_nr_members() succeeded. */
int mqs_check_stripe_width(uint64_t chunk, uint64_t nr, char *err,
			   size_t len)
{
	char a[32], b[32], c[32], d[32];
	uint64_t best;

	if (nr && chunk <= MQSTRIPE_MAX_STRIPE_WIDTH_BYTES / nr)
		return 0;
	/* the largest power-of-two chunk that fits */
	best = MQSTRIPE_MAX_CHUNK_BYTES;
	while (nr && best > MQSTRIPE_MIN_CHUNK_BYTES &&
	       best > MQSTRIPE_MAX_STRIPE_WIDTH_BYTES / nr)
		best >>= 1;
	mqs_set_err(err, len,
		"stripe width %" PRIu64 " members x %s chunk = %s is larger than %s: use --chunk %s or smaller",
		nr, mqs_size_exact(chunk, a, sizeof(a)),
		mqs_size_exact(nr * chunk, b, sizeof(b)),
		mqs_size_exact(MQSTRIPE_MAX_STRIPE_WIDTH_BYTES, c, sizeof(c)),
		mqs_size_exact(best, d, sizeof(d)));
	return -EINVAL;
}

int mqs_check_data_offset(uint64_t offset, char *err, size_t len)
{
	char a[32], b[32];

	if (offset % MQSTRIPE_DATA_OFFSET_ALIGN_BYTES) {
		mqs_set_err(err, len,
			"data offset %s is not a multiple of %s: use e.g. 1M",
			mqs_size_exact(offset, a, sizeof(a)),
			mqs_size_exact(MQSTRIPE_DATA_OFFSET_ALIGN_BYTES, b,
				       sizeof(b)));
		return -EINVAL;
	}
	return 0;
}

int mqs_check_queue_depth(uint64_t depth, char *err, size_t len)
{
	if (depth < MQSTRIPE_MIN_QUEUE_DEPTH ||
	    depth > MQSTRIPE_MAX_QUEUE_DEPTH) {
		mqs_set_err(err, len, "queue depth %" PRIu64
			" is outside %d..%d (leave it out for the default: the members' nr_requests summed, at least %d)",
			depth, MQSTRIPE_MIN_QUEUE_DEPTH,
			MQSTRIPE_MAX_QUEUE_DEPTH,
			MQSTRIPE_DEFAULT_QUEUE_DEPTH);
		return -EINVAL;
	}
	return 0;
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '.' || c == '_' || c == '-';
}

/**
 * mqs_check_name() - is @name a name stripectl accepts for an array
 * @name: the name.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * The module takes up to MQSTRIPE_NAME_LEN - 1 characters of [A-Za-z0-9._-],
 * also the empty name.  stripectl refuses, on top, what would make
 * "stripectl stop NAME" ambiguous: the empty name (leave out --name
 * instead), a leading '-' (an option) and "mqstripeN" (a device).
 *
 * Return: 0 or -EINVAL.
 */
int mqs_check_name(const char *name, char *err, size_t len)
{
	uint32_t index;
	size_t i, n = strlen(name);

	if (!n) {
		mqs_set_err(err, len,
			"the name is empty: leave out --name for an array without a name");
		return -EINVAL;
	}
	if (n > MQSTRIPE_NAME_LEN - 1) {
		mqs_set_err(err, len,
			"name '%.40s%s' is %zu characters long, at most %d are allowed",
			name, n > 40 ? "..." : "", n, MQSTRIPE_NAME_LEN - 1);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = name[i];

		if (name_char_ok(c))
			continue;
		if (c > ' ' && c < 0x7f)
			mqs_set_err(err, len,
				"name '%s' has the character '%c': use only A-Z a-z 0-9 . _ -",
				name, c);
		else
			mqs_set_err(err, len,
				"name has the byte 0x%02x: use only A-Z a-z 0-9 . _ -",
				c);
		return -EINVAL;
	}
	if (name[0] == '-') {
		mqs_set_err(err, len,
			"name '%s' starts with '-' and would read as an option: choose another name",
			name);
		return -EINVAL;
	}
	if (mqs_parse_dev_index(name, &index)) {
		mqs_set_err(err, len,
			"name '%s' looks like a device name (%sN): choose another name",
			name, MQSTRIPE_DISK_PREFIX);
		return -EINVAL;
	}
	return 0;
}

/**
 * mqs_check_new_name() - may a new array be given @name
 * @name: the name.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * mqs_check_name(), and not "." or "..": the udev rule links the array
 * as /dev/stripe/NAME (tools/udev/64-mqstripe.rules), which those names
 * cannot be.  Only for names being given (create): an existing superblock
 * with such a name still assembles.
 *
 * Return: 0 or -EINVAL.
 */
int mqs_check_new_name(const char *name, char *err, size_t len)
{
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		mqs_set_err(err, len,
			"name '%s' cannot be a link in /dev/stripe/ (udev links every named array as /dev/stripe/NAME): choose another name",
			name);
		return -EINVAL;
	}
	return mqs_check_name(name, err, len);
}

/* data offset + one chunk, saturated */
uint64_t mqs_member_min_bytes(uint64_t chunk, uint64_t offset)
{
	return offset > UINT64_MAX - chunk ? UINT64_MAX : offset + chunk;
}

void mqs_reason_too_small(uint64_t size, uint64_t chunk, uint64_t offset,
			  char *err, size_t len)
{
	uint64_t need = mqs_member_min_bytes(chunk, offset);

	if (size != MQS_SIZE_UNKNOWN)
		mqs_set_err(err, len,
			"member is too small: needs at least data offset + one chunk (%" PRIu64 " bytes), has %" PRIu64 " bytes",
			need, size);
	else
		mqs_set_err(err, len,
			"member is too small: needs at least data offset + one chunk (%" PRIu64 " bytes)",
			need);
}

#define PBS_GENERIC_HINT "/sys/block/DISK/queue/physical_block_size"

void mqs_reason_chunk_lt_pbs(uint64_t chunk, unsigned int pbs,
			     const char *pbs_hint, char *err, size_t len)
{
	char a[32];

	if (!pbs_hint)
		pbs_hint = PBS_GENERIC_HINT;
	if (pbs)
		mqs_set_err(err, len,
			"chunk %" PRIu64 " is smaller than the member's physical block size %u (check %s): use --chunk %s or larger",
			chunk, pbs, pbs_hint, mqs_size_exact(pbs, a, sizeof(a)));
	else
		mqs_set_err(err, len,
			"chunk %" PRIu64 " is smaller than the member's physical block size (check %s): use a larger --chunk",
			chunk, pbs_hint);
}

void mqs_reason_offset_align(uint64_t offset, unsigned int pbs,
			     const char *pbs_hint, char *err, size_t len)
{
	char a[32], b[32];

	if (!pbs_hint)
		pbs_hint = PBS_GENERIC_HINT;
	if (pbs && offset <= UINT64_MAX - pbs)
		mqs_set_err(err, len,
			"data offset %" PRIu64 " is not a multiple of the member's physical block size %u (check %s): use a --data-offset that is a multiple of %s, e.g. %s",
			offset, pbs, pbs_hint, mqs_size_exact(pbs, a, sizeof(a)),
			mqs_size_exact((offset / pbs + 1) * pbs, b, sizeof(b)));
	else
		mqs_set_err(err, len,
			"data offset %" PRIu64 " is not a multiple of the member's physical block size (check %s): use a --data-offset that is a multiple of it",
			offset, pbs_hint);
}

/**
 * mqs_check_member_fit() - can a member of @size bytes and physical block
 * size @pbs hold the array's geometry
 * @size: bytes of the member.
 * @pbs: physical block size of the member, 0 if unknown (not checked).
 * @chunk: chunk in bytes.
 * @offset: data offset in bytes.
 * @pbs_hint: the sysfs file that shows @pbs, for the message.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Return: 0, -ENOSPC (too small), -EINVAL (block size).
 */
int mqs_check_member_fit(uint64_t size, unsigned int pbs, uint64_t chunk,
			 uint64_t offset, const char *pbs_hint,
			 char *err, size_t len)
{
	if (pbs && chunk < pbs) {
		mqs_reason_chunk_lt_pbs(chunk, pbs, pbs_hint, err, len);
		return -EINVAL;
	}
	if (pbs && offset % pbs) {
		mqs_reason_offset_align(offset, pbs, pbs_hint, err, len);
		return -EINVAL;
	}
	if (size < mqs_member_min_bytes(chunk, offset)) {
		mqs_reason_too_small(size, chunk, offset, err, len);
		return -ENOSPC;
	}
	return 0;
}

/**
 * mqs_find_duplicate() - the first pair of equal ids
 * @ids: device numbers (st_rdev) of the members, in order.
 * @n: entries at @ids.
 * @first: index of the first occurrence.
 * @second: index of the repeat.
 *
 * Return: true if a device is given twice.
 */
bool mqs_find_duplicate(const uint64_t *ids, size_t n, size_t *first,
			size_t *second)
{
	size_t i, j;

	for (j = 1; j < n; j++) {
		for (i = 0; i < j; i++) {
			if (ids[i] == ids[j]) {
				*first = i;
				*second = j;
				return true;
			}
		}
	}
	return false;
}

/**
 * mqs_find_overlap() - a whole disk given together with one of its
 *	partitions
 * @devs: device numbers of the members.
 * @disks: device numbers of the whole disks holding them (equal to @devs
 *	for a whole disk).
 * @n: entries in each.
 * @first: index of the first member of the pair.
 * @second: index of the second member of the pair.
 *
 * Two partitions of one disk do not overlap; a disk and its partition do,
 * and the module cannot tell (it claims both with the same holder).
 *
 * Return: true if two members overlap.
 */
bool mqs_find_overlap(const uint64_t *devs, const uint64_t *disks, size_t n,
		      size_t *first, size_t *second)
{
	size_t i, j;

	for (j = 1; j < n; j++) {
		for (i = 0; i < j; i++) {
			if (disks[i] != disks[j])
				continue;
			if (devs[i] == disks[i] || devs[j] == disks[j]) {
				*first = i;
				*second = j;
				return true;
			}
		}
	}
	return false;
}

static const char units[] = "KMGTPE";

const char *mqs_size_exact(uint64_t v, char *buf, size_t len)
{
	int u;

	/* K to T, the units mqs_parse_size() takes: 1P is 1024T */
	for (u = 3; u >= 0 && v; u--) {
		uint64_t unit = 1ULL << (10 * (u + 1));

		if (!(v % unit)) {
			snprintf(buf, len, "%" PRIu64 "%c", v / unit,
				 units[u]);
			return buf;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

const char *mqs_size_human(uint64_t v, char *buf, size_t len)
{
	double d = (double)v;
	int u = -1;
	size_t n;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64 "B", v);
		return buf;
	}
	while (u < 5 && d >= 1024.0) {
		d /= 1024.0;
		u++;
	}
	snprintf(buf, len, "%.1f", d);
	/* 1023.96K prints as 1024.0: step up a unit */
	if (u < 5 && !strcmp(buf, "1024.0")) {
		u++;
		snprintf(buf, len, "1.0");
	}
	n = strlen(buf);
	if (n > 2 && !strcmp(buf + n - 2, ".0"))
		buf[n - 2] = '\0';
	n = strlen(buf);
	if (n + 1 < len) {
		buf[n] = units[u];
		buf[n + 1] = '\0';
	}
	return buf;
}
