// SPDX-License-Identifier: GPL-2.0
/*
 * mqstripe: module entry and the control device /dev/mqstripe-control.
 *
 * The ioctl ABI is in uapi/mqstripe.h.  One dispatcher checks the
 * capability once and hands each verb to mqs_ctl_<verb>() (as ublk does);
 * every struct is copied in whole, its header checked (version, size,
 * reserved) and copied back with the kernel's version (as dm-ioctl does).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/capability.h>
#include <linux/string.h>
#include <linux/pagemap.h>

#include "mqs.h"

#ifndef MQSTRIPE_VERSION
#define MQSTRIPE_VERSION "unknown"
#endif

static bool mqs_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * Copy in a command struct of @size bytes and check its header.
 * @any_version: GET_VERSION accepts any caller version.
 */
static int mqs_copy_in(void *buf, const void __user *arg, size_t size,
		       u32 allowed_flags, bool any_version)
{
	struct mqstripe_ioctl_hdr *hdr = buf;

	if (copy_from_user(buf, arg, size))
		return -EFAULT;
	if (hdr->size != size || hdr->reserved ||
	    (hdr->flags & ~allowed_flags))
		return -EINVAL;
	if (!any_version && hdr->version != MQSTRIPE_ABI_VERSION)
		return -EINVAL;
	return 0;
}

static int mqs_copy_out(void __user *arg, void *buf, size_t size)
{
	struct mqstripe_ioctl_hdr *hdr = buf;

	hdr->version = MQSTRIPE_ABI_VERSION;
	return copy_to_user(arg, buf, size) ? -EFAULT : 0;
}

/*
 * A command that changes something (CREATE, REMOVE) reports its result in
 * the struct: make sure the struct can be written before acting, so that a
 * caller passing read-only memory gets EFAULT with nothing changed instead
 * of an array created or removed behind an EFAULT.
 */
static int mqs_check_writable(void __user *arg, size_t size)
{
	return fault_in_safe_writeable(arg, size) ? -EFAULT : 0;
}

static int mqs_ctl_get_version(void __user *arg)
{
	struct mqstripe_version v;
	int err;

	err = mqs_copy_in(&v, arg, sizeof(v), 0, true);
	if (err)
		return err;
	if (v.reserved0 || !mqs_zero(v.reserved, sizeof(v.reserved)))
		return -EINVAL;
	v.abi_version = MQSTRIPE_ABI_VERSION;
	v.features = MQSTRIPE_FEAT_ALL;
	if (!MQS_CAN_POLL)
		v.features &= ~MQSTRIPE_FEAT_POLL;
	memset(v.module_version, 0, sizeof(v.module_version));
	strscpy(v.module_version, MQSTRIPE_VERSION, sizeof(v.module_version));
	return mqs_copy_out(arg, &v, sizeof(v));
}

static int mqs_ctl_create(void __user *arg)
{
	struct mqstripe_create c;
	u64 *sizes = NULL;
	s32 *fds;
	int err, err2;

	err = mqs_copy_in(&c, arg, sizeof(c), MQSTRIPE_CREATE_F_ALL, false);
	if (err)
		return err;
	if (c.reserved0 || !mqs_zero(c.reserved, sizeof(c.reserved)) ||
	    c.index || c.error_member || c.error_code)
		return -EINVAL;
	if (!(c.hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS) &&
	    !mqs_zero(c.segment_members, sizeof(c.segment_members)))
		return -EINVAL;
	if (!(c.hdr.flags & MQSTRIPE_CREATE_F_UUID) &&
	    !mqs_zero(c.uuid, sizeof(c.uuid)))
		return -EINVAL;
	if (!(c.hdr.flags & MQSTRIPE_CREATE_F_DATA_OFFSET) &&
	    c.data_offset_bytes)
		return -EINVAL;
	if (!(c.hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES) &&
	    c.member_data_bytes)
		return -EINVAL;
	if (!(c.hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) &&
	    c.member_sizes_ptr)
		return -EINVAL;
	if (c.nr_members < MQSTRIPE_MIN_MEMBERS ||
	    c.nr_members > MQSTRIPE_MAX_MEMBERS ||
	    ((c.hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) &&
	     (c.hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES))) {
		c.error_member = MQSTRIPE_NO_MEMBER;
		c.error_code = MQSTRIPE_ERR_GEOMETRY;
		err = -EINVAL;
		goto out;
	}

	err = mqs_check_writable(arg, sizeof(c));
	if (err)
		return err;
	fds = memdup_user(u64_to_user_ptr(c.members_ptr),
			  array_size(c.nr_members, sizeof(*fds)));
	if (IS_ERR(fds))
		return PTR_ERR(fds);
	if (c.hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) {
		sizes = memdup_user(u64_to_user_ptr(c.member_sizes_ptr),
				    array_size(c.nr_members, sizeof(*sizes)));
		if (IS_ERR(sizes)) {
			kfree(fds);
			return PTR_ERR(sizes);
		}
	}
	err = mqs_array_create(&c, fds, sizes);
	kfree(sizes);
	kfree(fds);
out:
	err2 = mqs_copy_out(arg, &c, sizeof(c));
	if (!err && err2) {
		/*
		 * The memory went away since the check: the caller cannot
		 * learn the index, so the array must not stay.  It cannot be
		 * open yet unless someone raced for the new node; then it
		 * stays and the caller finds it with LIST.
		 */
		if (mqs_array_remove(c.index))
			pr_warn("mqstripe%u: created, but its index could not be returned\n",
				c.index);
	}
	return err ? err : err2;
}

static int mqs_ctl_remove(void __user *arg)
{
	struct mqstripe_remove r;
	int err;

	err = mqs_copy_in(&r, arg, sizeof(r), 0, false);
	if (err)
		return err;
	if (r.reserved0 || !mqs_zero(r.reserved, sizeof(r.reserved)))
		return -EINVAL;
	err = mqs_check_writable(arg, sizeof(r));
	if (err)
		return err;
	err = mqs_array_remove(r.index);
	if (err)
		return err;
	return mqs_copy_out(arg, &r, sizeof(r));
}

static int mqs_ctl_info(void __user *arg)
{
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	u32 index, cap;
	u64 ptr;
	int err;

	err = mqs_copy_in(&info, arg, sizeof(info), 0, false);
	if (err)
		return err;
	/* out fields (nr_segments, segment_members, ...) may hold anything */
	if (info.reserved0 || !mqs_zero(info.reserved, sizeof(info.reserved)))
		return -EINVAL;
	index = info.index;
	cap = info.members_cap;
	ptr = info.members_ptr;
	/* every output byte is written: nothing stale reaches the caller */
	memset(&info, 0, sizeof(info));
	info.hdr.size = sizeof(info);
	info.index = index;
	info.members_cap = cap;
	info.members_ptr = ptr;
	/* never more members than an array has */
	cap = min_t(u32, cap, MQSTRIPE_MAX_MEMBERS);
	if (cap) {
		members = kvcalloc(cap, sizeof(*members), GFP_KERNEL);
		if (!members)
			return -ENOMEM;
	}
	err = mqs_array_info(index, &info, members, cap);
	if (!err && cap &&
	    copy_to_user(u64_to_user_ptr(ptr), members,
			 min(cap, info.nr_members) * sizeof(*members)))
		err = -EFAULT;
	kvfree(members);
	if (err)
		return err;
	return mqs_copy_out(arg, &info, sizeof(info));
}

static int mqs_ctl_list(void __user *arg)
{
	struct mqstripe_list l;
	u32 *indexes = NULL;
	u32 cap;
	int err;

	err = mqs_copy_in(&l, arg, sizeof(l), 0, false);
	if (err)
		return err;
	if (l.count || !mqs_zero(l.reserved, sizeof(l.reserved)))
		return -EINVAL;
	/* never more arrays than indexes the IDA hands out */
	cap = min_t(u32, l.indexes_cap, MINORMASK >> MQS_PART_SHIFT);
	if (cap) {
		indexes = kvcalloc(cap, sizeof(*indexes), GFP_KERNEL);
		if (!indexes)
			return -ENOMEM;
	}
	err = mqs_array_list(indexes, cap, &l.count);
	if (!err && cap &&
	    copy_to_user(u64_to_user_ptr(l.indexes_ptr), indexes,
			 min(cap, l.count) * sizeof(*indexes)))
		err = -EFAULT;
	kvfree(indexes);
	if (err)
		return err;
	return mqs_copy_out(arg, &l, sizeof(l));
}

static int mqs_ctl_clear(void __user *arg)
{
	struct mqstripe_clear c;
	int err;

	err = mqs_copy_in(&c, arg, sizeof(c), 0, false);
	if (err)
		return err;
	if (c.state || c.reserved0 || !mqs_zero(c.reserved, sizeof(c.reserved)))
		return -EINVAL;
	err = mqs_check_writable(arg, sizeof(c));
	if (err)
		return err;
	err = mqs_array_clear(c.index, c.slot, &c.state);
	if (err)
		return err;
	return mqs_copy_out(arg, &c, sizeof(c));
}

static int mqs_ctl_rename(void __user *arg)
{
	struct mqstripe_rename r;
	int err = mqs_copy_in(&r, arg, sizeof(r), 0, false);

	if (!err && (r.reserved0 || !mqs_zero(r.reserved, sizeof(r.reserved))))
		err = -EINVAL;
	if (!err)
		err = mqs_check_writable(arg, sizeof(r));
	if (!err)
		err = mqs_array_rename(r.index, r.name);
	return err ? err : mqs_copy_out(arg, &r, sizeof(r));
}

static int mqs_ctl_resize(void __user *arg)
{
	struct mqstripe_resize r;
	int err = mqs_copy_in(&r, arg, sizeof(r), 0, false), err2;

	if (!err && (r.error_member || r.error_code || r.capacity_bytes ||
		     r.reserved0 || !mqs_zero(r.reserved, sizeof(r.reserved))))
		err = -EINVAL;
	if (!err)
		err = mqs_check_writable(arg, sizeof(r));
	if (err)
		return err;
	r.error_member = MQSTRIPE_NO_MEMBER;
	err = mqs_array_resize(&r);
	err2 = mqs_copy_out(arg, &r, sizeof(r));
	return err ? err : err2;
}

static long mqs_ctl_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	void __user *argp = (void __user *)arg;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	switch (cmd) {
	case MQSTRIPE_IOC_GET_VERSION:
		return mqs_ctl_get_version(argp);
	case MQSTRIPE_IOC_CREATE:
		return mqs_ctl_create(argp);
	case MQSTRIPE_IOC_REMOVE:
		return mqs_ctl_remove(argp);
	case MQSTRIPE_IOC_INFO:
		return mqs_ctl_info(argp);
	case MQSTRIPE_IOC_LIST:
		return mqs_ctl_list(argp);
	case MQSTRIPE_IOC_CLEAR:
		return mqs_ctl_clear(argp);
	case MQSTRIPE_IOC_RENAME:
		return mqs_ctl_rename(argp);
	case MQSTRIPE_IOC_RESIZE:
		return mqs_ctl_resize(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations mqs_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= nonseekable_open,
	.unlocked_ioctl	= mqs_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice mqs_ctl_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= MQSTRIPE_CONTROL_NAME,
	.nodename	= MQSTRIPE_CONTROL_NAME,
	.mode		= 0600,
	.fops		= &mqs_ctl_fops,
};

static int __init mqs_init(void)
{
	int err;

	mqs_major = register_blkdev(0, MQS_NAME);
	if (mqs_major < 0)
		return mqs_major;
	err = misc_register(&mqs_ctl_misc);
	if (err)
		goto out_unregister_blkdev;
	pr_info("version %s loaded\n", MQSTRIPE_VERSION);
	return 0;

out_unregister_blkdev:
	unregister_blkdev(mqs_major, MQS_NAME);
	return err;
}

static void __exit mqs_exit(void)
{
	misc_deregister(&mqs_ctl_misc);
	mqs_array_remove_all();
	unregister_blkdev(mqs_major, MQS_NAME);
}

module_init(mqs_init);
module_exit(mqs_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("mqstripe developers");
MODULE_DESCRIPTION("mqstripe: blk-mq striped (RAID0) block device over NVMe and other block devices");
MODULE_VERSION(MQSTRIPE_VERSION);
