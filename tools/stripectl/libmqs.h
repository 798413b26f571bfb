/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thin wrappers of the mqstripe control ioctls: they fill the header
 * (version, size), issue the call on /dev/mqstripe-control and return 0 or
 * a negative errno.  -EPROTO means the module answered with another ABI
 * version (in ctl->kernel_abi).  Nothing here prints.
 */
#ifndef STRIPECTL_LIBMQS_H
#define STRIPECTL_LIBMQS_H

#include <stdint.h>

#include "mqstripe.h"

struct mqs_ctl {
	int fd;
	uint32_t kernel_abi;		/* the module's, once known */
	struct mqstripe_version version;	/* from the handshake */
};

int mqs_ctl_open(struct mqs_ctl *ctl);
void mqs_ctl_close(struct mqs_ctl *ctl);
int mqs_get_version(struct mqs_ctl *ctl, struct mqstripe_version *v);
int mqs_create(struct mqs_ctl *ctl, struct mqstripe_create *c);
int mqs_remove(struct mqs_ctl *ctl, uint32_t index);
int mqs_clear(struct mqs_ctl *ctl, uint32_t index, uint32_t slot,
	      uint32_t *before);
int mqs_rename(struct mqs_ctl *ctl, uint32_t index, const char *name);
int mqs_resize(struct mqs_ctl *ctl, uint32_t index, uint64_t member_data_bytes,
	       uint64_t *capacity, uint32_t *error_member);
int mqs_info(struct mqs_ctl *ctl, uint32_t index, struct mqstripe_info *info,
	     struct mqstripe_member_info *members, uint32_t cap);
int mqs_list(struct mqs_ctl *ctl, uint32_t **indexes, uint32_t *count);
int mqs_find_array(struct mqs_ctl *ctl, const char *arg, uint32_t *index,
		   struct mqstripe_info *info);
int mqs_find_uuid(struct mqs_ctl *ctl, const uint8_t uuid[16],
		  uint32_t *index, struct mqstripe_info *info);
int mqs_find_name(struct mqs_ctl *ctl, const char *name, uint32_t *index,
		  struct mqstripe_info *info);

#endif /* STRIPECTL_LIBMQS_H */
