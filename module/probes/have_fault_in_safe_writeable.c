// SPDX-License-Identifier: GPL-2.0
/* 5.16+ and later 5.15.y: fault_in_safe_writeable() */
#include <linux/pagemap.h>
size_t mqs_probe(const char __user *uaddr, size_t size);
size_t mqs_probe(const char __user *uaddr, size_t size)
{
	return fault_in_safe_writeable(uaddr, size);
}
