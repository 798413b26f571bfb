/* SPDX-License-Identifier: GPL-2.0 */
/* add.c: stripectl add */
#ifndef STRIPECTL_ADD_H
#define STRIPECTL_ADD_H

#include "stripectl.h"

int cmd_add(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_ADD_H */
