// SPDX-License-Identifier: GPL-2.0
/*
 * 6.16+: bin_attribute ->read() takes a const struct bin_attribute *, and
 * attribute_group.bin_attrs is an array of const pointers
 */
#include <linux/sysfs.h>
static ssize_t mqs_probe_read(struct file *f, struct kobject *k,
			      const struct bin_attribute *a, char *b,
			      loff_t o, size_t c)
{
	return 0;
}

const struct bin_attribute mqs_probe_attr = {
	.read = mqs_probe_read,
};
