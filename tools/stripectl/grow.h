/* SPDX-License-Identifier: GPL-2.0 */
/* grow.c: stripectl grow */
#ifndef STRIPECTL_GROW_H
#define STRIPECTL_GROW_H

#include "stripectl.h"

int cmd_grow(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_GROW_H */
