/* SPDX-License-Identifier: GPL-2.0 */
/* start.c: starting an array */
#ifndef STRIPECTL_START_H
#define STRIPECTL_START_H

#include <stdint.h>

#include "errmsg.h"
#include "libmqs.h"

uint64_t mqs_req_data_bytes(const struct mqs_create_req *req);
int start_array(struct mqs_ctl *ctl, const struct mqs_create_req *req,
		const uint8_t uuid[16], uint32_t *index);
int announce_array(struct mqs_ctl *ctl, uint32_t index);

#endif /* STRIPECTL_START_H */
