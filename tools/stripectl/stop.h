/* SPDX-License-Identifier: GPL-2.0 */
/* stop.c: stripectl stop */
#ifndef STRIPECTL_STOP_H
#define STRIPECTL_STOP_H

#include "stripectl.h"

int cmd_stop(const struct cmd *cmd, int argc, char **argv);

#endif /* STRIPECTL_STOP_H */
