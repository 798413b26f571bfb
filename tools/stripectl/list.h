/* SPDX-License-Identifier: GPL-2.0 */
/* list.c: stripectl list */
#ifndef STRIPECTL_LIST_H
#define STRIPECTL_LIST_H

#include "stripectl.h"

int cmd_list(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_LIST_H */
