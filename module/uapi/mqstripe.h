/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mqstripe control ABI, shared by the kernel module and stripectl.
 *
 * Every command is issued on /dev/mqstripe-control (mode 0600) and needs
 * CAP_SYS_ADMIN.  Every argument struct starts with struct mqstripe_ioctl_hdr
 * that carries the ABI version and the struct size; the kernel refuses a
 * version it does not know and a size that is not the size it expects (both
 * EINVAL).  Reserved fields and flag bits not defined here must be zero, else
 * EINVAL.  All commands are _IOWR encoded (the struct size is part of the
 * command number: a caller built with another size gets ENOTTY, which is
 * why struct mqstripe_version never changes).  The kernel copies the struct
 * back with hdr.version set to its own version on success, and CREATE also
 * on a failure after its header was accepted, so that error_member and
 * error_code can be read.  Callers start with GET_VERSION, which accepts
 * any hdr.version (the layout follows dm-ioctl.h and ublk_cmd.h).
 *
 * Units are in the names: _bytes are bytes, _sectors are 512-byte sectors.
 */
#ifndef _UAPI_LINUX_MQSTRIPE_H
#define _UAPI_LINUX_MQSTRIPE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MQSTRIPE_CONTROL_NAME	"mqstripe-control"
#define MQSTRIPE_DISK_PREFIX	"mqstripe"

/* Bumped on any incompatible change of a struct below. */
#define MQSTRIPE_ABI_VERSION	1U

/* Geometry rules (see README "Limits"). */
#define MQSTRIPE_MIN_MEMBERS			1
#define MQSTRIPE_MAX_MEMBERS			256
#define MQSTRIPE_MIN_CHUNK_BYTES		4096U
#define MQSTRIPE_MAX_CHUNK_BYTES		(16U << 20)
#define MQSTRIPE_DEFAULT_CHUNK_BYTES		(512U << 10)
/* members x chunk: io_opt (unsigned int bytes) and read-ahead must fit. */
#define MQSTRIPE_MAX_STRIPE_WIDTH_BYTES		(1ULL << 30)
#define MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES	(1ULL << 20)
#define MQSTRIPE_DATA_OFFSET_ALIGN_BYTES	4096U
/*
 * stripectl's superblock is bytes 4096..8191 of every member (docs/FORMAT.md):
 * a data offset below this end needs MQSTRIPE_CREATE_F_NO_SUPERBLOCK.
 */
#define MQSTRIPE_SUPERBLOCK_END_BYTES		8192U
#define MQSTRIPE_MIN_QUEUE_DEPTH		1
#define MQSTRIPE_MAX_QUEUE_DEPTH		4096
/*
 * Arrays stacked on arrays: at most this many levels (an array over plain
 * devices is level 1); CREATE refuses one more (MQSTRIPE_ERR_STACK_DEPTH).
 */
#define MQSTRIPE_MAX_STACK_DEPTH		8
#define MQSTRIPE_DEFAULT_QUEUE_DEPTH		128
#define MQSTRIPE_NAME_LEN			32	/* with the NUL */
#define MQSTRIPE_UUID_LEN			16
/* segments of an array: the first members, then up to three added sets */
#define MQSTRIPE_MAX_SEGMENTS			4

/**
 * struct mqstripe_ioctl_hdr - first member of every command struct
 * @version: in: MQSTRIPE_ABI_VERSION the caller was built with; out: the
 *	kernel's MQSTRIPE_ABI_VERSION.  GET_VERSION accepts any value, every
 *	other command refuses a version other than its own with EINVAL.
 * @size: in: sizeof() the whole command struct; a different size is EINVAL.
 * @flags: in: command flags (MQSTRIPE_CREATE_F_* for CREATE, else 0);
 *	unknown bits are EINVAL.
 * @reserved: must be zero.
 */
struct mqstripe_ioctl_hdr {
	__u32 version;
	__u32 size;
	__u32 flags;
	__u32 reserved;
};

/* Feature mask reported by GET_VERSION. */
#define MQSTRIPE_FEAT_DISCARD		(1ULL << 0)
#define MQSTRIPE_FEAT_WRITE_ZEROES	(1ULL << 1)
#define MQSTRIPE_FEAT_FLUSH_FUA		(1ULL << 2)
#define MQSTRIPE_FEAT_ERROR_MEMBER	(1ULL << 3)
/* polled IO when every member has poll queues (io_poll) */
#define MQSTRIPE_FEAT_POLL		(1ULL << 4)
/* REQ_NOWAIT honoured when every member supports it */
#define MQSTRIPE_FEAT_NOWAIT		(1ULL << 5)
/* CREATE takes MQSTRIPE_CREATE_F_READONLY */
#define MQSTRIPE_FEAT_READONLY		(1ULL << 6)
/* MQSTRIPE_IOC_CLEAR */
#define MQSTRIPE_FEAT_CLEAR		(1ULL << 7)
/* MQSTRIPE_IOC_RENAME */
#define MQSTRIPE_FEAT_RENAME		(1ULL << 8)
/* member IO figures: INFO's member flags and window latency, sysfs */
#define MQSTRIPE_FEAT_IO_STATS		(1ULL << 9)
/* CREATE takes MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES */
#define MQSTRIPE_FEAT_MEMBER_DATA_BYTES	(1ULL << 10)
/* MQSTRIPE_IOC_RESIZE: a running array grows onto its members' new room */
#define MQSTRIPE_FEAT_RESIZE		(1ULL << 11)
/* CREATE takes MQSTRIPE_CREATE_F_MEMBER_SIZES (members of unequal size) */
#define MQSTRIPE_FEAT_MEMBER_SIZES	(1ULL << 12)
/* CREATE takes MQSTRIPE_CREATE_F_SEGMENTS, INFO reports the segments */
#define MQSTRIPE_FEAT_SEGMENTS		(1ULL << 13)
#define MQSTRIPE_FEAT_ALL		((1ULL << 14) - 1)

/**
 * struct mqstripe_version - MQSTRIPE_IOC_GET_VERSION
 * @hdr: common header; hdr.version may be any value here.
 * @abi_version: out: MQSTRIPE_ABI_VERSION of the module.
 * @reserved0: must be zero.
 * @features: out: MQSTRIPE_FEAT_* the module implements.
 * @module_version: out: NUL-terminated module version string (the same as
 *	modinfo's "version" and stripectl --version).
 * @reserved: must be zero.
 *
 * Errors: EINVAL (size, reserved), EPERM (no CAP_SYS_ADMIN), EFAULT.
 */
struct mqstripe_version {
	struct mqstripe_ioctl_hdr hdr;
	__u32 abi_version;
	__u32 reserved0;
	__u64 features;
	char module_version[32];
	__u64 reserved[4];
};

/* CREATE flags (hdr.flags). */
#define MQSTRIPE_CREATE_F_UUID		(1U << 0) /* use @uuid, else random */
#define MQSTRIPE_CREATE_F_DATA_OFFSET	(1U << 1) /* use @data_offset_bytes */
/* an array without superblocks: data may start below 8 KiB */
#define MQSTRIPE_CREATE_F_NO_SUPERBLOCK	(1U << 2)
/*
 * a read-only array: the members are claimed read-only, the disk is
 * read-only (BLKROSET cannot clear it), writes fail, flushes go nowhere
 */
#define MQSTRIPE_CREATE_F_READONLY	(1U << 3)
/* use @member_data_bytes of every member, else all that fits */
#define MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES	(1U << 4)
/* use each member's own data size, @member_sizes_ptr: zones */
#define MQSTRIPE_CREATE_F_MEMBER_SIZES	(1U << 5)
/* the members are split into segments, @segment_members: members added */
#define MQSTRIPE_CREATE_F_SEGMENTS	(1U << 6)
#define MQSTRIPE_CREATE_F_ALL		((1U << 7) - 1)

/*
 * Why a CREATE failed (error_code), with error_member naming the member
 * (index into the fd array) where one is at fault.
 */
#define MQSTRIPE_NO_MEMBER	((__u32)-1)	/* error_member: none */

enum mqstripe_error_code {
	MQSTRIPE_ERR_NONE = 0,
	MQSTRIPE_ERR_BAD_FD,		/* fd is not open */
	MQSTRIPE_ERR_NOT_BLOCK,		/* fd is not a block device */
	MQSTRIPE_ERR_DUPLICATE,		/* same device twice, or a disk and
					 * one of its partitions
					 */
	MQSTRIPE_ERR_BUSY,		/* claimed: mounted, in another array */
	MQSTRIPE_ERR_ZONED,		/* zoned members are refused */
	MQSTRIPE_ERR_TOO_SMALL,		/* < data offset + one chunk (or +
					 * member_data_bytes when given)
					 */
	MQSTRIPE_ERR_CHUNK_LT_PBS,	/* chunk < member physical block */
	MQSTRIPE_ERR_OFFSET_ALIGN,	/* data offset % member pbs != 0 */
	MQSTRIPE_ERR_OPEN,		/* opening the member failed, or it
					 * went away during the create
					 */
	MQSTRIPE_ERR_GEOMETRY,		/* chunk/member count/width/offset */
	MQSTRIPE_ERR_NAME,		/* name not NUL-terminated or invalid */
	MQSTRIPE_ERR_QUEUE_DEPTH,	/* queue depth out of range */
	MQSTRIPE_ERR_NAME_EXISTS,	/* another array has this name */
	MQSTRIPE_ERR_UUID_EXISTS,	/* another array has this UUID */
	MQSTRIPE_ERR_STACK_DEPTH,	/* the member is an array at the
					 * deepest level of a stack already
					 */
	__MQSTRIPE_ERR_COUNT
};

/**
 * struct mqstripe_create - MQSTRIPE_IOC_CREATE: start a new array
 * @hdr: common header; hdr.flags takes MQSTRIPE_CREATE_F_*.
 * @members_ptr: in: user pointer to an array of @nr_members __s32 file
 *	descriptors, one per member in slot order, each open on a block
 *	device.  The module claims each member exclusively itself; the caller
 *	must not hold them with O_EXCL.
 * @nr_members: in: MQSTRIPE_MIN_MEMBERS..MQSTRIPE_MAX_MEMBERS.
 * @queue_depth: in: requests of the array (one tag space shared by its
 *	hardware contexts, so the count does not grow with the CPUs),
 *	MQSTRIPE_MIN_QUEUE_DEPTH..MQSTRIPE_MAX_QUEUE_DEPTH; 0 for the sum of
 *	the members' nr_requests, at least MQSTRIPE_DEFAULT_QUEUE_DEPTH and at
 *	most MQSTRIPE_MAX_QUEUE_DEPTH.
 * @chunk_bytes: in: 0 for MQSTRIPE_DEFAULT_CHUNK_BYTES, else a power of
 *	two from 4 KiB to 16 MiB, not smaller than any member's physical
 *	block size; @nr_members x @chunk_bytes at most
 *	MQSTRIPE_MAX_STRIPE_WIDTH_BYTES (with MQSTRIPE_CREATE_F_SEGMENTS,
 *	each segment's members x @chunk_bytes).
 * @data_offset_bytes: in, with MQSTRIPE_CREATE_F_DATA_OFFSET: where data
 *	starts on every member; a multiple of 4 KiB and of every member's
 *	physical block size, and at least MQSTRIPE_SUPERBLOCK_END_BYTES (data
 *	must not overwrite the superblock) unless the caller sets
 *	MQSTRIPE_CREATE_F_NO_SUPERBLOCK, saying the members carry none.
 *	Without MQSTRIPE_CREATE_F_DATA_OFFSET: 1 MiB.
 * @name: in: NUL-terminated name of [A-Za-z0-9._-], may be empty.
 * @uuid: in, with MQSTRIPE_CREATE_F_UUID: the array UUID; else random.
 * @index: out: N of /dev/mqstripeN; must be 0 on input.
 * @error_member: out: index into the fd array of the member at fault, or
 *	MQSTRIPE_NO_MEMBER when the failure is not a member's; 0 on input.
 * @error_code: out: enum mqstripe_error_code; 0 on input.
 * @reserved0: must be zero.
 * @member_data_bytes: in, with MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES: bytes
 *	of every member the array uses for data, from the data offset on (an
 *	array's recorded size: members that grew since leave it as it was).
 *	Greater than 0 and a multiple of the chunk, else EINVAL
 *	(MQSTRIPE_ERR_GEOMETRY); a member smaller than the data offset plus
 *	this is ENOSPC (MQSTRIPE_ERR_TOO_SMALL, @error_member naming it).
 *	The array's capacity is @nr_members times this.  Without the flag it
 *	must be zero, and every member gives what the smallest member holds
 *	after the data offset, rounded down to the chunk.  The module has
 *	the flag when GET_VERSION reports MQSTRIPE_FEAT_MEMBER_DATA_BYTES.
 *	Not with MQSTRIPE_CREATE_F_MEMBER_SIZES (EINVAL).
 * @member_sizes_ptr: in, with MQSTRIPE_CREATE_F_MEMBER_SIZES: user
 *	pointer to @nr_members __u64, each member's data bytes (from the data
 *	offset on), in slot order; without the flag it must be zero.  Each
 *	greater than 0 and a multiple of the chunk, else EINVAL
 *	(MQSTRIPE_ERR_GEOMETRY, @error_member naming it); a member smaller
 *	than the data offset plus its size is ENOSPC (MQSTRIPE_ERR_TOO_SMALL,
 *	@error_member); a sum too large for the block layer is EINVAL
 *	(MQSTRIPE_ERR_GEOMETRY, no member).  Members of unequal size make
 *	zones (md raid0's rule, docs/FORMAT.md "The layout"): the first
 *	stripes over every member up to the smallest size, the next over the
 *	members that are larger, and so on; the capacity is the sum of the
 *	sizes.  Equal sizes are one zone, as MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES
 *	makes.  The module has the flag when GET_VERSION reports
 *	MQSTRIPE_FEAT_MEMBER_SIZES.
 * @segment_members: in, with MQSTRIPE_CREATE_F_SEGMENTS (which needs
 *	MQSTRIPE_CREATE_F_MEMBER_SIZES): the members of each segment, in
 *	slot order: segment 0 is the first @segment_members[0] members,
 *	segment 1 the next @segment_members[1], and so on.  At least two
 *	entries are not zero, the first zero entry ends the list (the rest
 *	must be zero too), and the entries add up to @nr_members, else
 *	EINVAL (MQSTRIPE_ERR_GEOMETRY, no member); so is the flag without
 *	MQSTRIPE_CREATE_F_MEMBER_SIZES, and a segment whose members x
 *	@chunk_bytes is above MQSTRIPE_MAX_STRIPE_WIDTH_BYTES.  Two segments
 *	of members of equal size are two zones.  Each segment is laid out as an
 *	array of its own (its zones, by md raid0's rule over its members'
 *	sizes) and follows the segments before it in the array: the
 *	members of a set added to an array hold only the room they brought,
 *	and nothing already written moves (docs/FORMAT.md "Segments").
 *	Without the flag every entry must be zero.  The module has the flag
 *	when GET_VERSION reports MQSTRIPE_FEAT_SEGMENTS.
 * @reserved: must be zero.
 *
 * Errors: EINVAL (header, geometry, name, duplicate member, zoned member,
 * chunk or offset not fitting a member), EBADF (bad fd), ENOTBLK (not a
 * block device), EBUSY (member claimed elsewhere), ENOSPC (member too
 * small), EEXIST (name or UUID in use), ENOMEM, EPERM, EFAULT.  On failure
 * nothing is left behind: no device, no claimed member.
 */
struct mqstripe_create {
	struct mqstripe_ioctl_hdr hdr;
	__u64 members_ptr;
	__u32 nr_members;
	__u32 queue_depth;
	__u64 chunk_bytes;
	__u64 data_offset_bytes;
	char name[MQSTRIPE_NAME_LEN];
	__u8 uuid[MQSTRIPE_UUID_LEN];
	__u32 index;
	__u32 error_member;
	__u32 error_code;
	__u32 reserved0;
	__u64 member_data_bytes;
	__u64 member_sizes_ptr;
	__u32 segment_members[MQSTRIPE_MAX_SEGMENTS];
	__u64 reserved[2];
};

/**
 * struct mqstripe_remove - MQSTRIPE_IOC_REMOVE: stop an array
 * @hdr: common header.
 * @index: in: N of /dev/mqstripeN.
 * @reserved0: must be zero.
 * @reserved: must be zero.
 *
 * Releases the device node and the members.  Errors: ENODEV (no such
 * array), EBUSY (the device is open, e.g. mounted: nothing changed),
 * EINVAL, EPERM, EFAULT.
 */
struct mqstripe_remove {
	struct mqstripe_ioctl_hdr hdr;
	__u32 index;
	__u32 reserved0;
	__u64 reserved[4];
};

/**
 * struct mqstripe_clear - MQSTRIPE_IOC_CLEAR: a faulty member is ok again
 * @hdr: common header.
 * @index: in: N of /dev/mqstripeN.
 * @slot: in: the member's slot, 0..nr_members-1.
 * @state: out: the member's state before (MQSTRIPE_MEMBER_*).
 * @reserved0: must be zero.
 * @reserved: must be zero.
 *
 * For a member marked faulty by IO errors that were transient (a path, a
 * cable, a controller reset) and that answers again: its state goes back
 * to MQSTRIPE_MEMBER_OK, its first error is forgotten (its error counts
 * stay), the array is active again when no other member is faulty or
 * gone, and a change uevent (MQSTRIPE_EVENT=member_cleared) goes out.  A
 * member that is ok stays so (@state tells).  Nothing is read or written
 * to check the member: the admin vouches for it.  Errors: ENODEV (no such
 * array), ENXIO (the member is gone: its disk went away, nothing brings it
 * back but a stop and an assemble), EINVAL (@slot out of range, header,
 * reserved fields), EPERM, EFAULT.
 */
struct mqstripe_clear {
	struct mqstripe_ioctl_hdr hdr;
	__u32 index;
	__u32 slot;
	__u32 state;
	__u32 reserved0;
	__u64 reserved[4];
};

/**
 * struct mqstripe_rename - MQSTRIPE_IOC_RENAME: a running array's new name
 * @hdr: common header.
 * @index: in: N of /dev/mqstripeN.
 * @reserved0: must be zero.
 * @name: in: the new name, NUL-terminated, of [A-Za-z0-9._-], may be
 *	empty (as CREATE's).
 * @reserved: must be zero.
 *
 * The array's name (sysfs mqstripe/name, INFO, the uevents'
 * MQSTRIPE_NAME) becomes @name at once; IO goes on undisturbed.  A change
 * uevent (MQSTRIPE_EVENT=renamed) follows, at which udev moves the
 * /dev/stripe/NAME link.  The superblocks on the members are not touched:
 * the caller writes them.  The array's own name again is no error and
 * sends nothing.  Errors: ENODEV (no such array), EEXIST (another array
 * has this name), EINVAL (name not NUL-terminated or invalid, header,
 * reserved fields), EPERM, EFAULT.
 */
struct mqstripe_rename {
	struct mqstripe_ioctl_hdr hdr;
	__u32 index;
	__u32 reserved0;
	char name[MQSTRIPE_NAME_LEN];
	__u64 reserved[4];
};

/* Array and member states. */
/**
 * struct mqstripe_resize - MQSTRIPE_IOC_RESIZE: a running array grows
 * @hdr: common header.
 * @index: in: N of /dev/mqstripeN.
 * @error_member: out: the slot of the member without room for
 *	@member_data_bytes, or MQSTRIPE_NO_MEMBER; 0 on input.
 * @member_data_bytes: in: the bytes of every member the array uses for
 *	data from now on, from the data offset on: a multiple of the chunk,
 *	not less than the array's (INFO's member_data_bytes), and held by
 *	every member after its data offset.
 * @capacity_bytes: out: the array's size after the call; 0 on input.
 * @error_code: out: MQSTRIPE_ERR_TOO_SMALL with @error_member, else 0;
 *	0 on input.
 * @reserved0: must be zero.
 * @reserved: must be zero.
 *
 * An array of several zones (MQSTRIPE_CREATE_F_MEMBER_SIZES with
 * unequal sizes) does not grow: EOPNOTSUPP, nothing changed.
 *
 * Layout version 1 puts array chunk c at row c / nr_members of member
 * c % nr_members (docs/FORMAT.md), so more rows extend the array at its
 * end and nothing already written moves: the array grows online, under
 * IO, with no copy.  Each member's size is read again (a member that grew
 * since the array started: a namespace resize, a dm reload, a bigger
 * volume); the capacity changes with a change uevent (RESIZE=1), after
 * which a mounted file system can grow (xfs_growfs, resize2fs).  The same
 * size again is no error and changes nothing.  The superblocks on the
 * members are not touched: the caller writes the new size first, so that
 * a cut after the call finds it.  Errors: ENODEV (no such array), EINVAL
 * (@member_data_bytes not a multiple of the chunk, less than the array's,
 * or an array too large for the block layer; header, reserved fields),
 * ENOSPC (a member is too small: @error_member), EIO (a member is faulty
 * or gone: the array is failed), EROFS (assembled read-only), EOPNOTSUPP
 * (an array of several zones), EPERM, EFAULT.
 */
struct mqstripe_resize {
	struct mqstripe_ioctl_hdr hdr;
	__u32 index;
	__u32 error_member;
	__u64 member_data_bytes;
	__u64 capacity_bytes;
	__u32 error_code;
	__u32 reserved0;
	__u64 reserved[4];
};

#define MQSTRIPE_STATE_ACTIVE	0	/* every member answers */
#define MQSTRIPE_STATE_FAILED	1	/* a member failed: IO to it fails */

#define MQSTRIPE_MEMBER_OK	0
#define MQSTRIPE_MEMBER_FAULTY	1	/* returned IO errors */
#define MQSTRIPE_MEMBER_GONE	2	/* the member disk went away */

/*
 * Member flags (struct mqstripe_member_info.flags), beside its state: a
 * slow member is healthy, its IO succeeds.
 */
#define MQSTRIPE_MEMBER_F_SLOW	(1U << 0)	/* latency well above the
						 * median member's
						 */

/* Buckets of a member's latency histogram (sysfs mqstripe/latency_hist). */
#define MQSTRIPE_LAT_BUCKETS	16

/**
 * struct mqstripe_member_info - one member, as INFO reports it
 * @major: device number of the member.
 * @minor: device number of the member.
 * @slot: position in the stripe, 0..nr_members-1.
 * @state: MQSTRIPE_MEMBER_*.
 * @size_bytes: size of the member device.
 * @read_errors: member reads that failed since create.
 * @write_errors: member writes (also discard, write-zeroes) that failed.
 * @flush_errors: member flushes that failed.
 * @flags: MQSTRIPE_MEMBER_F_*; zero from a module without
 *	MQSTRIPE_FEAT_IO_STATS.
 * @window_latency_us: the member's mean completion latency over the last
 *	window (a second) with IO on it, in us; zero without
 *	MQSTRIPE_FEAT_IO_STATS and before any IO.
 * @data_bytes: bytes of the member the array uses for data, from the data
 *	offset on: the array's @member_data_bytes for every member, but in an
 *	array of several zones, each member's own; zero from a module without
 *	MQSTRIPE_FEAT_MEMBER_SIZES.
 */
struct mqstripe_member_info {
	__u32 major;
	__u32 minor;
	__u32 slot;
	__u32 state;
	__u64 size_bytes;
	__u64 read_errors;
	__u64 write_errors;
	__u64 flush_errors;
	__u32 flags;
	__u32 window_latency_us;
	__u64 data_bytes;
};

/**
 * struct mqstripe_info - MQSTRIPE_IOC_INFO: describe one array
 * @hdr: common header.
 * @index: in: N of /dev/mqstripeN.
 * @members_cap: in: room, in entries, at @members_ptr (may be 0).
 * @members_ptr: in: user pointer to struct mqstripe_member_info
 *	[@members_cap], filled in slot order up to min(cap, nr_members).
 * @major: out: device number of the array.
 * @minor: out: device number of the array.
 * @nr_members: out.
 * @state: out: MQSTRIPE_STATE_*.
 * @chunk_bytes: out.
 * @data_offset_bytes: out.
 * @capacity_bytes: out: size of the array device.
 * @member_data_bytes: out: bytes of each member used for data; in an
 *	array of several zones, the first zone's (the smallest member's; with
 *	segments, the smallest of the first segment's members):
 *	each member's own is its struct mqstripe_member_info.data_bytes.
 * @queue_depth: out: requests of the array, shared by its hardware
 *	contexts.
 * @nr_hw_queues: out: hardware contexts.
 * @name: out: NUL-terminated.
 * @uuid: out.
 * @nr_segments: out: the array's segments (CREATE's
 *	@segment_members): 1 for an array made without
 *	MQSTRIPE_CREATE_F_SEGMENTS; zero from a module without
 *	MQSTRIPE_FEAT_SEGMENTS.
 * @segment_members: out: the members of each segment, in slot order, as
 *	CREATE had them; entry 0 is @nr_members with one segment, the
 *	entries from @nr_segments on are zero.
 * @reserved0: must be zero.
 * @reserved: must be zero.
 *
 * Errors: ENODEV, EINVAL, EPERM, EFAULT.
 */
struct mqstripe_info {
	struct mqstripe_ioctl_hdr hdr;
	__u32 index;
	__u32 members_cap;
	__u64 members_ptr;
	__u32 major;
	__u32 minor;
	__u32 nr_members;
	__u32 state;
	__u64 chunk_bytes;
	__u64 data_offset_bytes;
	__u64 capacity_bytes;
	__u64 member_data_bytes;
	__u32 queue_depth;
	__u32 nr_hw_queues;
	char name[MQSTRIPE_NAME_LEN];
	__u8 uuid[MQSTRIPE_UUID_LEN];
	__u32 nr_segments;
	__u32 segment_members[MQSTRIPE_MAX_SEGMENTS];
	__u32 reserved0;
	__u64 reserved[3];
};

/**
 * struct mqstripe_list - MQSTRIPE_IOC_LIST: the arrays that exist
 * @hdr: common header.
 * @indexes_cap: in: room, in entries, at @indexes_ptr (may be 0).
 * @count: out: number of arrays (may exceed @indexes_cap: call again).
 * @indexes_ptr: in: user pointer to __u32[@indexes_cap], filled with the
 *	array indexes in ascending order.
 * @reserved: must be zero.
 *
 * Errors: EINVAL, EPERM, EFAULT.
 */
struct mqstripe_list {
	struct mqstripe_ioctl_hdr hdr;
	__u32 indexes_cap;
	__u32 count;
	__u64 indexes_ptr;
	__u64 reserved[4];
};

#define MQSTRIPE_IOC_MAGIC	0xB5
#define MQSTRIPE_IOC_GET_VERSION \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x00, struct mqstripe_version)
#define MQSTRIPE_IOC_CREATE \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x01, struct mqstripe_create)
#define MQSTRIPE_IOC_REMOVE \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x02, struct mqstripe_remove)
#define MQSTRIPE_IOC_INFO \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x03, struct mqstripe_info)
#define MQSTRIPE_IOC_LIST \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x04, struct mqstripe_list)
#define MQSTRIPE_IOC_CLEAR \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x05, struct mqstripe_clear)
#define MQSTRIPE_IOC_RENAME \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x06, struct mqstripe_rename)
#define MQSTRIPE_IOC_RESIZE \
	_IOWR(MQSTRIPE_IOC_MAGIC, 0x07, struct mqstripe_resize)

#endif /* _UAPI_LINUX_MQSTRIPE_H */
