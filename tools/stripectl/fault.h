/* SPDX-License-Identifier: GPL-2.0 */
/* fault.c: stripectl record-fault, and clear's superblock update */
#ifndef STRIPECTL_FAULT_H
#define STRIPECTL_FAULT_H

#include "libmqs.h"
#include "stripectl.h"

#include <stdbool.h>
#include <stdio.h>

int cmd_record_fault(const struct cmd *cmd, int argc, char **argv);
int record_faults(uint32_t index, const struct mqstripe_info *info,
		  const struct mqstripe_member_info *members, uint32_t nr,
		  FILE *out);
int record_faults_of(uint32_t index, bool lock);
int record_faults_all(bool lock);
int sb_bring_current(const char *node, const struct mqstripe_info *info,
		     const struct mqstripe_member_info *members, uint32_t nr);

#endif /* STRIPECTL_FAULT_H */
