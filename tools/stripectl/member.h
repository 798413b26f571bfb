/* SPDX-License-Identifier: GPL-2.0 */
/* member.c: member checks of create and assemble */
#ifndef STRIPECTL_MEMBER_H
#define STRIPECTL_MEMBER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "libmqs.h"

int check_member_path(struct mqs_member_dev *m);
void report_open_error(const char *path, int err);
void report_duplicate(const char *first, const char *second, const char *tail);
int check_distinct(const struct mqs_member_dev *members, size_t nr);
int check_one_disk(const char *const *paths, const uint64_t *devs, size_t nr);
bool same_disk(uint64_t a, uint64_t b);

#endif /* STRIPECTL_MEMBER_H */
