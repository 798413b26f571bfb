/* SPDX-License-Identifier: GPL-2.0 */
/* status.c: stripectl status */
#ifndef STRIPECTL_STATUS_H
#define STRIPECTL_STATUS_H

#include "stripectl.h"

int cmd_status(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_STATUS_H */
