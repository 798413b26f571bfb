/* SPDX-License-Identifier: GPL-2.0 */
/* clear.c: stripectl clear */
#ifndef STRIPECTL_CLEAR_H
#define STRIPECTL_CLEAR_H

#include "stripectl.h"

int cmd_clear(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_CLEAR_H */
