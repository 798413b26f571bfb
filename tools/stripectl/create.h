/* SPDX-License-Identifier: GPL-2.0 */
/* create.c: stripectl create, and the name check rename shares */
#ifndef STRIPECTL_CREATE_H
#define STRIPECTL_CREATE_H

#include <stdbool.h>
#include <stdint.h>

#include "errmsg.h"
#include "stripectl.h"

int cmd_create(const struct cmd *cmd, int argc, char **argv);
struct mqs_ctl;
int check_name_unused(struct mqs_ctl *ctl, const char *what,
		      const char *name, const struct mqs_create_req *req,
		      const uint8_t *self, bool force);

#endif /* STRIPECTL_CREATE_H */
