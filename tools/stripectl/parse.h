/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure parsers and validators of stripectl: no system calls, no output, so
 * that the host unit tests (tools/tests/test_parse.c) link them as they are.
 *
 * Every function that can fail returns 0 or a negative errno and writes a
 * reason (no "stripectl: " prefix, no newline) to @err; the caller puts the
 * option or member in front of it.
 */
#ifndef STRIPECTL_PARSE_H
#define STRIPECTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MQS_ERR_LEN	512

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/*
 * Write a reason to @err (at most @len bytes); does nothing when @err is
 * NULL or @len is 0.  Shared by parse.c, superblock.c and sbgroup.c.
 */
void mqs_set_err(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

int mqs_parse_size(const char *s, uint64_t *out, char *err, size_t len);
int mqs_parse_uint(const char *s, uint64_t max, uint64_t *out,
		   char *err, size_t len);
int mqs_parse_uuid(const char *s, uint8_t uuid[16], char *err, size_t len);
void mqs_format_uuid(const uint8_t uuid[16], char out[37]);
bool mqs_parse_dev_index(const char *s, uint32_t *index);
void mqs_array_kname(uint32_t index, char *buf, size_t len);
void mqs_array_node(uint32_t index, char *buf, size_t len);
void mqs_array_sysfs(uint32_t index, const char *file, char *buf, size_t len);

int mqs_check_nr_members(uint64_t nr, char *err, size_t len);
int mqs_check_chunk(uint64_t chunk, char *err, size_t len);
int mqs_check_stripe_width(uint64_t chunk, uint64_t nr, char *err,
			   size_t len);
int mqs_check_data_offset(uint64_t offset, char *err, size_t len);
int mqs_check_queue_depth(uint64_t depth, char *err, size_t len);
int mqs_check_name(const char *name, char *err, size_t len);
int mqs_check_new_name(const char *name, char *err, size_t len);
int mqs_check_member_fit(uint64_t size, unsigned int pbs, uint64_t chunk,
			 uint64_t offset, const char *pbs_hint,
			 char *err, size_t len);

/*
 * The reasons a member does not fit, shared by the userspace checks above
 * and by the messages for the kernel's error codes (errmsg.c).  @size may
 * be MQS_SIZE_UNKNOWN, @pbs 0 for "unknown"; @pbs_hint names the sysfs
 * file to check.
 */
#define MQS_SIZE_UNKNOWN	UINT64_MAX

void mqs_reason_too_small(uint64_t size, uint64_t chunk, uint64_t offset,
			  char *err, size_t len);
void mqs_reason_chunk_lt_pbs(uint64_t chunk, unsigned int pbs,
			     const char *pbs_hint, char *err, size_t len);
void mqs_reason_offset_align(uint64_t offset, unsigned int pbs,
			     const char *pbs_hint, char *err, size_t len);

uint64_t mqs_member_min_bytes(uint64_t chunk, uint64_t offset);
bool mqs_find_duplicate(const uint64_t *ids, size_t n, size_t *first,
			size_t *second);
bool mqs_find_overlap(const uint64_t *devs, const uint64_t *disks, size_t n,
		      size_t *first, size_t *second);

/*
 * "512K", "1M", "3000", "1024T": exact, the largest unit up to T that
 * divides @v, so that mqs_parse_size() takes it back.
 */
const char *mqs_size_exact(uint64_t v, char *buf, size_t len);
/* "3.6T", "512K", "100B": rounded to one decimal, lsblk style. */
const char *mqs_size_human(uint64_t v, char *buf, size_t len);

#endif /* STRIPECTL_PARSE_H */
