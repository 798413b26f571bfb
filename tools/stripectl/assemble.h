/* SPDX-License-Identifier: GPL-2.0 */
/* assemble.c: stripectl assemble, and what stop shares with it */
#ifndef STRIPECTL_ASSEMBLE_H
#define STRIPECTL_ASSEMBLE_H

#include <stdint.h>

#include "stripectl.h"

int cmd_assemble(const struct cmd *cmd, int argc, char **argv);

void incr_forget(const uint8_t uuid[16]);
void incr_stopped(const uint8_t uuid[16]);

#endif /* STRIPECTL_ASSEMBLE_H */
