/* SPDX-License-Identifier: GPL-2.0 */
/* common.c: helpers every command uses */
#ifndef STRIPECTL_COMMON_H
#define STRIPECTL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libmqs.h"

void mqs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ctl_open_or_report(struct mqs_ctl *ctl);
int ctl_list_or_report(struct mqs_ctl *ctl, const char *what,
		       uint32_t **indexes, uint32_t *count);
void report_find_error(const char *arg, int rc, uint32_t kernel_abi);
void report_ctl_error(const char *what, int rc, uint32_t kernel_abi);
int find_array_or_report(struct mqs_ctl *ctl, const char *arg,
			 uint32_t *index, struct mqstripe_info *info,
			 struct mqstripe_member_info **members, uint32_t *nr);
int find_array_locked(struct mqs_ctl *ctl, const char *arg, uint32_t *index,
		      struct mqstripe_info *info,
		      struct mqstripe_member_info **members, uint32_t *nr,
		      int *lock);
void mqs_sleep_ms(unsigned int ms);
const char *mqs_run_dir(void);
int mqs_meta_lock(bool need);
void mqs_meta_unlock(int fd);
const char *array_state_name(uint32_t state);
const char *member_state_name(uint32_t state);
bool member_failed(const struct mqstripe_member_info *m);
const char *member_label(const struct mqstripe_member_info *m, char *buf,
			 size_t len);

#endif /* STRIPECTL_COMMON_H */
