/* SPDX-License-Identifier: GPL-2.0 */
/* examine.c: stripectl examine */
#ifndef STRIPECTL_EXAMINE_H
#define STRIPECTL_EXAMINE_H

#include "stripectl.h"

int cmd_examine(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_EXAMINE_H */
