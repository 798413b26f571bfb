/* SPDX-License-Identifier: GPL-2.0 */
/* rename.c: stripectl rename */
#ifndef STRIPECTL_RENAME_H
#define STRIPECTL_RENAME_H

#include "stripectl.h"

int cmd_rename(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_RENAME_H */
