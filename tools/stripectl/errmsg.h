/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What to tell the admin when the kernel says no: pure functions from
 * (errno, error_code, error_member) to one line of text, so that the unit
 * tests can check a message exists for every enum mqstripe_error_code.
 */
#ifndef STRIPECTL_ERRMSG_H
#define STRIPECTL_ERRMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mqstripe.h"

#define MQS_HINT_LEN	320	/* /sys/block/NAME_MAX/queue/... */

#define MQS_CONTROL_PATH	"/dev/" MQSTRIPE_CONTROL_NAME

#ifndef MQSTRIPE_VERSION
#define MQSTRIPE_VERSION	"unknown"	/* the Makefile passes it */
#endif

/* One member of a create request, as stripectl saw it. */
struct mqs_member_dev {
	const char *path;		/* as given on the command line */
	int fd;				/* -1 when not open */
	uint64_t rdev;			/* st_rdev */
	uint64_t size_bytes;		/* MQS_SIZE_UNKNOWN when unknown */
	unsigned int pbs;		/* physical block size, 0 when unknown */
	unsigned int lbs;		/* logical block size, 0 when unknown */
	char pbs_hint[MQS_HINT_LEN];	/* sysfs file showing pbs, or "" */
};

/* A create request, with the defaults applied. */
struct mqs_create_req {
	struct mqs_member_dev *members;
	uint32_t nr_members;
	uint64_t chunk_bytes;
	uint64_t data_offset_bytes;	/* the one in effect */
	uint64_t member_data_bytes;	/* recorded; 0: all the members hold */
	/* each member's data bytes, by slot (zones); NULL: member_data_bytes */
	const uint64_t *member_sizes;
	/* the members of each segment (MQSTRIPE_CREATE_F_SEGMENTS), or NULL */
	const uint32_t *segment_members;
	uint32_t nr_segments;
	uint64_t queue_depth;		/* 0: the module's default */
	const char *name;		/* NULL: no name */
	const char *uuid;		/* NULL: random */
	bool readonly;			/* MQSTRIPE_CREATE_F_READONLY */
	uint32_t metadata;		/* superblock format version */
};

/*
 * EPROTO from the ioctl wrappers (libmqs.c) means the module answered with
 * an ABI version stripectl was not built for.
 */
void mqs_ctl_reason(int err, uint32_t kernel_abi, char *buf, size_t len);
void mqs_control_open_error(int err, uint32_t kernel_abi, char *buf,
			    size_t len);
void mqs_create_error(int err, uint32_t code, uint32_t member,
		      uint32_t kernel_abi, const struct mqs_create_req *req,
		      char *buf, size_t len);
const char *mqs_error_code_name(uint32_t code);

#endif /* STRIPECTL_ERRMSG_H */
