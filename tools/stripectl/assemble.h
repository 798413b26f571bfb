/* SPDX-License-Identifier: GPL-2.0 */
/* assemble.c: what stop shares with assemble */
#ifndef STRIPECTL_ASSEMBLE_H
#define STRIPECTL_ASSEMBLE_H

#include <stdint.h>

void incr_forget(const uint8_t uuid[16]);
void incr_stopped(const uint8_t uuid[16]);

#endif /* STRIPECTL_ASSEMBLE_H */
