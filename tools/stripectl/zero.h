/* SPDX-License-Identifier: GPL-2.0 */
/* zero.c: stripectl zero-superblock */
#ifndef STRIPECTL_ZERO_H
#define STRIPECTL_ZERO_H

#include "stripectl.h"

int cmd_zero_superblock(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_ZERO_H */
