/* SPDX-License-Identifier: GPL-2.0 */
/* cryptlist.c: the list of dm-crypt maps that are array members */
#ifndef STRIPECTL_CRYPTLIST_H
#define STRIPECTL_CRYPTLIST_H

#include <stdint.h>

const char *mqs_crypt_list_path(void);
void mqs_crypt_list_started(const uint8_t uuid[16], const int *fds,
			    uint32_t nr);
void mqs_crypt_list_running(void);
void mqs_crypt_list_forget(const int *fds, uint32_t nr);

#endif /* STRIPECTL_CRYPTLIST_H */
