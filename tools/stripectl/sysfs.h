/* SPDX-License-Identifier: GPL-2.0 */
#ifndef STRIPECTL_SYSFS_H
#define STRIPECTL_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int mqs_sysfs_read(const char *path, char *buf, size_t len);
int mqs_sysfs_read_u64(const char *path, uint64_t *v);
bool mqs_array_readonly(uint32_t index);
int mqs_sysfs_devt(const char *path, uint32_t *major, uint32_t *minor);
int mqs_devname(uint32_t major, uint32_t minor, char *buf, size_t len);
int mqs_devpath(uint32_t major, uint32_t minor, char *buf, size_t len);
const char *mqs_people_path(const char *given, char *buf, size_t len);
int mqs_disk_name(uint32_t major, uint32_t minor, char *buf, size_t len);
int mqs_is_zoned(uint32_t major, uint32_t minor);
int mqs_dev_identity(uint32_t major, uint32_t minor, char *buf, size_t len);
int mqs_whole_disk(uint32_t major, uint32_t minor, uint32_t *disk_major,
		   uint32_t *disk_minor);

#endif /* STRIPECTL_SYSFS_H */
