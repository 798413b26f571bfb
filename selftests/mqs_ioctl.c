// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_ioctl - the deterministic checks of the control ioctl ABI
 *
 * Usage: mqs_ioctl abi MEMBER MEMBER MEMBER   (three free block devices)
 *        mqs_ioctl eperm                       (run without CAP_SYS_ADMIN)
 *        mqs_ioctl boundaries [-s SEED] [-w LIST] MEMBER MEMBER...
 *        mqs_ioctl create [-c CHUNK] [-n] [-s SIZE,...] [-g N,...] [-G N,...]
 *                         MEMBER...
 *        mqs_ioctl remove INDEX
 *
 * create and remove are one command each, for a VM test that needs a
 * layout stripectl does not make (test_40_zones.sh's segments): CREATE
 * of the members (chunk CHUNK, 64K by default; -n MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
 * -s each member's data bytes, MQSTRIPE_CREATE_F_MEMBER_SIZES; -g the
 * segments' members, MQSTRIPE_CREATE_F_SEGMENTS; -G the same entries
 * without the flag), then INFO of the new array.  Prints "index N
 * capacity BYTES member_data BYTES segments NR N N N N data BYTES..."
 * and exits 0, or "error ENAME code CODE member MEMBER" on stderr and
 * exits 1.
 *
 * abi and eperm are test_11_bad_input.sh's: each command's fields, errors
 * and results.  boundaries is test_20_fuzz.sh's, before its fuzzing, with
 * no array there; LIST holds one block device per line (257 for the
 * 256-member cases):
 *  1. access: a non-root caller (uid 65534) cannot open the control device
 *     (EACCES); a caller holding an fd opened by root but without
 *     CAP_SYS_ADMIN (capset, and setresuid keeping the fd) gets EPERM for
 *     every command the driver sees (all 0xB5 numbers, each command
 *     with valid arguments, random numbers from SEED), and nothing is
 *     created.
 *  2. output bytes: GET_VERSION, INFO (and its member array) and LIST with
 *     the output fields pre-filled with 0xAA: every output and reserved
 *     byte comes back written (reserved = 0, strings NUL-padded), entries
 *     beyond the count are left alone.
 *  3. edges: 256 members (from -w) work, 257 are refused; member arrays and
 *     command structs straddling into an unmapped page or in a read-only
 *     page fail with EFAULT and leave no array behind.
 *
 * Compiled on the host by selftests/Makefile against module/uapi, so the
 * struct layouts are the ones the module and stripectl use.  Prints KTAP-like
 * "ok N ..."/"not ok N ..." lines; exit 0 if all passed, 1 otherwise.
 * Every negative case has a positive control: the same struct with the
 * fault removed succeeds, so an EINVAL for another reason cannot pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>

#include "mqstripe.h"
#include "mqs_ctl.h"
#include "ktap.h"

static void expect(int got, int want, const char *what)
{
	if (got == want)
		ktap_result(1, "%s: %s", what, ktap_errname(want));
	else
		ktap_result(0, "%s # expected %s, got %s", what,
			    ktap_errname(want), ktap_errname(got));
}

/* ---------------------------------------------------------- version */
static void t_version(void)
{
	struct mqstripe_version v = { .hdr = HDR(v) }, b;
	int e;

	e = xioctl(MQSTRIPE_IOC_GET_VERSION, &v);
	expect(e, 0, "GET_VERSION valid");
	ktap_result(v.hdr.version == MQSTRIPE_ABI_VERSION && v.abi_version == MQSTRIPE_ABI_VERSION,
		    "GET_VERSION reports ABI %u (hdr.version %u, abi_version %u)",
		    MQSTRIPE_ABI_VERSION, v.hdr.version, v.abi_version);
	ktap_result(!(v.features & ~MQSTRIPE_FEAT_ALL),
		    "GET_VERSION features 0x%llx within FEAT_ALL",
		    (unsigned long long)v.features);
	ktap_result(memchr(v.module_version, 0, sizeof(v.module_version)) && v.module_version[0],
		    "GET_VERSION module_version is a NUL-terminated non-empty string");

	memset(&b, 0, sizeof(b));
	b.hdr.version = 99;
	b.hdr.size = sizeof(b);
	e = xioctl(MQSTRIPE_IOC_GET_VERSION, &b);
	expect(e, 0, "GET_VERSION accepts any hdr.version (99)");
	ktap_result(b.hdr.version == MQSTRIPE_ABI_VERSION,
		    "GET_VERSION writes its own version back (got %u)", b.hdr.version);

	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.hdr.size -= 8;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION hdr.size - 8");
	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.hdr.size = 0;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION hdr.size 0");
	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.hdr.reserved = 1;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION hdr.reserved 1");
	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.hdr.flags = 1;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION hdr.flags 1");
	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION reserved0 1");
	b = (struct mqstripe_version){ .hdr = HDR(b) };
	b.reserved[3] = 1;
	expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &b), EINVAL, "GET_VERSION reserved[3] 1");
}

/* ------------------------------------------------------------- list */
static void t_list(void)
{
	struct mqstripe_list l;

	l = (struct mqstripe_list){ .hdr = HDR(l) };
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), 0, "LIST valid");
	ktap_result(l.count == 0, "LIST count 0 with no array (got %u)", l.count);
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.hdr.size += 8;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST hdr.size + 8");
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.hdr.version = MQSTRIPE_ABI_VERSION + 1;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST unknown version");
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.hdr.version = 0;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST version 0");
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.hdr.reserved = 1;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST hdr.reserved 1");
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.reserved[0] = 1;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST reserved[0] 1");
	l = (struct mqstripe_list){ .hdr = HDR(l) };
	l.hdr.flags = 0x80000000u;
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), EINVAL, "LIST unknown flag");
}

/* ----------------------------------------------------------- create */
static int fds[3];
static const char *paths[3];
static int regfd = -1;

static void create_init(struct mqstripe_create *c, int *mfds, __u32 n)
{
	memset(c, 0, sizeof(*c));
	c->hdr.version = MQSTRIPE_ABI_VERSION;
	c->hdr.size = sizeof(*c);
	c->members_ptr = (__u64)(uintptr_t)mfds;
	c->nr_members = n;
	c->chunk_bytes = 64 << 10;
}

/*
 * The default queue depth CREATE gives with queue_depth 0: the members'
 * nr_requests summed (read from sysfs: a partition's is its disk's),
 * clamped to MQSTRIPE_DEFAULT_QUEUE_DEPTH..MQSTRIPE_MAX_QUEUE_DEPTH; 0 when
 * a member's could not be read.
 */
static __u32 default_depth(const int *mfds, __u32 n)
{
	unsigned long long sum = 0;
	__u32 i;

	for (i = 0; i < n; i++) {
		static const char *const fmt[] = {
			"/sys/dev/block/%u:%u/queue/nr_requests",
			"/sys/dev/block/%u:%u/../queue/nr_requests",
		};
		unsigned long long v = 0;
		struct stat st;
		char p[96];
		int k, got = 0;
		FILE *f;

		if (fstat(mfds[i], &st))
			return 0;
		for (k = 0; k < 2 && !got; k++) {
			snprintf(p, sizeof(p), fmt[k], major(st.st_rdev),
				 minor(st.st_rdev));
			f = fopen(p, "r");
			if (!f)
				continue;
			got = fscanf(f, "%llu", &v) == 1;
			fclose(f);
		}
		if (!got)
			return 0;
		sum += v;
	}
	if (sum < MQSTRIPE_DEFAULT_QUEUE_DEPTH)
		sum = MQSTRIPE_DEFAULT_QUEUE_DEPTH;
	if (sum > MQSTRIPE_MAX_QUEUE_DEPTH)
		sum = MQSTRIPE_MAX_QUEUE_DEPTH;
	return sum;
}

static int do_remove(__u32 index)
{
	struct mqstripe_remove r = { .hdr = HDR(r), .index = index };
	int i, e = EBUSY;

	/* a transient open (e.g. udev probing) may make it busy briefly */
	for (i = 0; i < 50 && e == EBUSY; i++) {
		e = xioctl(MQSTRIPE_IOC_REMOVE, &r);
		if (e == EBUSY)
			usleep(100000);
	}
	return e;
}

/* A CREATE that must fail with @want (and error_code @code if >= 0). */
static void bad_create(struct mqstripe_create *c, int want, int code,
		       __u32 member, const char *what)
{
	int before = count_arrays();
	int e = xioctl(MQSTRIPE_IOC_CREATE, c);
	int after;

	expect(e, want, what);
	if (e == 0) {
		do_remove(c->index);
		return;
	}
	if (code >= 0)
		ktap_result(c->error_code == (__u32)code && c->error_member == member,
			    "%s: error_code %d error_member %d (got %u, %d)", what,
			    code, (int)member, c->error_code, (int)c->error_member);
	after = count_arrays();
	ktap_result(after == before, "%s: no array left behind (LIST count %d -> %d)",
		    what, before, after);
}

/*
 * RESIZE of the array @idx (3 members, all their room used: @info): the
 * same size is no change; one chunk more is ENOSPC naming the first member
 * without room; each malformed call is refused; nothing changes the size.
 */
static void t_resize(__u32 idx, const struct mqstripe_info *info)
{
	__u64 per = info->member_data_bytes, chunk = info->chunk_bytes;
	struct mqstripe_resize z;
	struct mqstripe_info after;
	__u32 first = MQSTRIPE_NO_MEMBER, k;
	int e;

	/* the first member without room for one chunk more */
	for (k = 0; k < 3 && first == MQSTRIPE_NO_MEMBER; k++) {
		__u64 size = 0;

		if (!ioctl(fds[k], BLKGETSIZE64, &size) &&
		    size < info->data_offset_bytes + per + chunk)
			first = k;
	}
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx,
				      .member_data_bytes = per };
	e = xioctl(MQSTRIPE_IOC_RESIZE, &z);
	expect(e, 0, "RESIZE to the same size");
	ktap_result(!e && z.capacity_bytes == info->capacity_bytes &&
		    z.error_member == MQSTRIPE_NO_MEMBER,
		    "RESIZE to the same size: capacity %llu as before, no member blamed (%d)",
		    (unsigned long long)z.capacity_bytes, (int)z.error_member);
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx,
				      .member_data_bytes = per + chunk };
	e = xioctl(MQSTRIPE_IOC_RESIZE, &z);
	expect(e, ENOSPC, "RESIZE one chunk beyond the members' room");
	ktap_result(z.error_code == MQSTRIPE_ERR_TOO_SMALL && z.error_member == first,
		    "RESIZE beyond the room: TOO_SMALL naming member %u (got code %u member %d)",
		    first, z.error_code, (int)z.error_member);
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx,
				      .member_data_bytes = per + 512 };
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE not a multiple of the chunk");
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx,
				      .member_data_bytes = per - chunk };
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE smaller (never shrinks)");
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx };
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE to 0");
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = idx,
				      .member_data_bytes = per };
	z.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE reserved0 1");
	z.reserved0 = 0;
	z.reserved[3] = 1;
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE reserved[3] 1");
	z.reserved[3] = 0;
	z.capacity_bytes = 1;
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE capacity_bytes in (an output)");
	z.capacity_bytes = 0;
	z.error_code = 1;
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE error_code in (an output)");
	z.error_code = 0;
	z.hdr.size -= 8;
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EINVAL, "RESIZE hdr.size - 8");
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = 100000,
				      .member_data_bytes = per };
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), ENODEV, "RESIZE of a missing array");
	after = (struct mqstripe_info){ .hdr = HDR(after), .index = idx };
	e = xioctl(MQSTRIPE_IOC_INFO, &after);
	ktap_result(!e && after.capacity_bytes == info->capacity_bytes &&
		    after.member_data_bytes == per,
		    "RESIZE refusals changed nothing (capacity %llu, was %llu)",
		    (unsigned long long)after.capacity_bytes,
		    (unsigned long long)info->capacity_bytes);
}

/*
 * CREATE with each member's own size (MQSTRIPE_CREATE_F_MEMBER_SIZES):
 * members of 1, 2 and 3 chunks make three zones, the capacity their sum,
 * INFO each member's data_bytes, RESIZE refused (EOPNOTSUPP); sizes that
 * are zero, not whole chunks or too large are refused naming the member,
 * a pointer without the flag and the flag with MEMBER_DATA_BYTES too.
 */
static void t_sizes(void)
{
	const __u64 ch = 64 << 10;
	__u64 sizes[3] = { ch, 2 * ch, 3 * ch };
	struct mqstripe_member_info mi[3];
	struct mqstripe_info info;
	struct mqstripe_create c;
	struct mqstripe_resize z;
	const struct {
		__u32 slot;
		__u64 size;
		int e, code;
		const char *what;
	} bad[] = {
		{ 1, 0, EINVAL, MQSTRIPE_ERR_GEOMETRY, "CREATE member 1's size 0" },
		{ 2, 3 * ch + 4096, EINVAL, MQSTRIPE_ERR_GEOMETRY,
		  "CREATE member 2's size not whole chunks" },
		{ 2, 1ULL << 50, ENOSPC, MQSTRIPE_ERR_TOO_SMALL,
		  "CREATE member 2's size larger than the member" },
	};
	unsigned int k;
	int e;

	create_init(&c, fds, 3);
	c.member_sizes_ptr = (uintptr_t)sizes;
	bad_create(&c, EINVAL, -1, 0, "CREATE member_sizes_ptr without its flag");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_SIZES |
		      MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
	c.member_sizes_ptr = (uintptr_t)sizes;
	c.member_data_bytes = ch;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, MQSTRIPE_NO_MEMBER,
		   "CREATE member sizes and member_data_bytes");
	for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		__u64 keep = sizes[bad[k].slot];

		sizes[bad[k].slot] = bad[k].size;
		create_init(&c, fds, 3);
		c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_SIZES;
		c.member_sizes_ptr = (uintptr_t)sizes;
		bad_create(&c, bad[k].e, bad[k].code, bad[k].slot, bad[k].what);
		sizes[bad[k].slot] = keep;
	}

	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_SIZES;
	c.member_sizes_ptr = (uintptr_t)sizes;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "CREATE member sizes 64K, 128K, 192K");
	if (e)
		return;
	memset(&info, 0, sizeof(info));
	info.hdr.version = MQSTRIPE_ABI_VERSION;
	info.hdr.size = sizeof(info);
	info.index = c.index;
	info.members_cap = 3;
	info.members_ptr = (__u64)(uintptr_t)mi;
	e = xioctl(MQSTRIPE_IOC_INFO, &info);
	ktap_result(!e && info.capacity_bytes == 6 * ch &&
		    info.member_data_bytes == ch && mi[0].data_bytes == ch &&
		    mi[1].data_bytes == 2 * ch && mi[2].data_bytes == 3 * ch,
		    "INFO of member sizes: capacity %llu (want %llu), member_data %llu, members %llu %llu %llu",
		    (unsigned long long)info.capacity_bytes,
		    (unsigned long long)(6 * ch),
		    (unsigned long long)info.member_data_bytes,
		    (unsigned long long)mi[0].data_bytes,
		    (unsigned long long)mi[1].data_bytes,
		    (unsigned long long)mi[2].data_bytes);
	z = (struct mqstripe_resize){ .hdr = HDR(z), .index = c.index,
				      .member_data_bytes = 2 * ch };
	expect(xioctl(MQSTRIPE_IOC_RESIZE, &z), EOPNOTSUPP,
	       "RESIZE of an array of zones");
	expect(do_remove(c.index), 0, "REMOVE the array of zones");
}

static void t_create(void)
{
	struct mqstripe_create c;
	struct mqstripe_info info;
	struct mqstripe_member_info mi[3];
	struct mqstripe_remove r;
	struct mqstripe_clear x;
	struct mqstripe_rename n;
	char path[64], sys[96], buf[64];
	FILE *f;
	struct stat st;
	int e, dup[2], bad[2];
	__u32 idx;

	/* positive control */
	create_init(&c, fds, 3);
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "CREATE valid (3 members, 64K chunk)");
	if (e)
		return;
	idx = c.index;
	snprintf(path, sizeof(path), "/dev/" MQSTRIPE_DISK_PREFIX "%u", idx);
	ktap_result(!stat(path, &st) && S_ISBLK(st.st_mode), "CREATE made %s", path);
	ktap_result(c.error_code == MQSTRIPE_ERR_NONE, "CREATE error_code 0 on success (got %u)",
		    c.error_code);

	memset(&info, 0, sizeof(info));
	info.hdr.version = MQSTRIPE_ABI_VERSION;
	info.hdr.size = sizeof(info);
	info.index = idx;
	info.members_cap = 3;
	info.members_ptr = (__u64)(uintptr_t)mi;
	e = xioctl(MQSTRIPE_IOC_INFO, &info);
	expect(e, 0, "INFO valid");
	ktap_result(!e && info.nr_members == 3 && info.chunk_bytes == 65536 &&
		    info.data_offset_bytes == MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES &&
		    info.queue_depth == default_depth(fds, 3) &&
		    info.capacity_bytes == 3 * info.member_data_bytes &&
		    info.member_data_bytes % 65536 == 0,
		    "INFO geometry (members %u chunk %llu offset %llu depth %u of default %u capacity %llu member_data %llu)",
		    info.nr_members, (unsigned long long)info.chunk_bytes,
		    (unsigned long long)info.data_offset_bytes, info.queue_depth,
		    default_depth(fds, 3),
		    (unsigned long long)info.capacity_bytes,
		    (unsigned long long)info.member_data_bytes);
	ktap_result(!e && info.nr_segments == 1 &&
		    info.segment_members[0] == 3 && !info.segment_members[1] &&
		    !info.segment_members[2] && !info.segment_members[3],
		    "INFO of an array made without segments: 1 segment of its 3 members (got %u: %u %u %u %u)",
		    info.nr_segments, info.segment_members[0],
		    info.segment_members[1], info.segment_members[2],
		    info.segment_members[3]);
	{
		struct stat ms;
		int k, ok = !e;

		for (k = 0; k < 3 && ok; k++)
			if (fstat(fds[k], &ms) || mi[k].major != major(ms.st_rdev) ||
			    mi[k].minor != minor(ms.st_rdev) || mi[k].slot != (__u32)k)
				ok = 0;
		ktap_result(ok, "INFO members report the member device numbers in slot order");
	}

	info.hdr.size -= 8;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), EINVAL, "INFO hdr.size - 8");
	info.hdr.size += 8;
	info.hdr.version = 2;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), EINVAL, "INFO unknown version");
	info.hdr.version = MQSTRIPE_ABI_VERSION;
	info.reserved[2] = 1;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), EINVAL, "INFO reserved[2] 1");
	info.reserved[2] = 0;
	info.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), EINVAL, "INFO reserved0 1");
	info.reserved0 = 0;
	info.index = 100000;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), ENODEV, "INFO of a missing array");

	r = (struct mqstripe_remove){ .hdr = HDR(r), .index = idx };
	r.hdr.size += 8;
	expect(xioctl(MQSTRIPE_IOC_REMOVE, &r), EINVAL, "REMOVE hdr.size + 8");
	r = (struct mqstripe_remove){ .hdr = HDR(r), .index = idx };
	r.hdr.version = 2;
	expect(xioctl(MQSTRIPE_IOC_REMOVE, &r), EINVAL, "REMOVE unknown version");
	r = (struct mqstripe_remove){ .hdr = HDR(r), .index = idx };
	r.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_REMOVE, &r), EINVAL, "REMOVE reserved0 1");
	r = (struct mqstripe_remove){ .hdr = HDR(r), .index = idx };
	r.reserved[0] = 1;
	expect(xioctl(MQSTRIPE_IOC_REMOVE, &r), EINVAL, "REMOVE reserved[0] 1");
	ktap_result(!stat(path, &st), "%s still there after the refused REMOVEs", path);

	/* CLEAR: of an ok member nothing changes; the refusals */
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = idx, .slot = 2 };
	x.state = 77;
	e = xioctl(MQSTRIPE_IOC_CLEAR, &x);
	expect(e, EINVAL, "CLEAR state 77 in (an output)");
	x.state = 0;
	e = xioctl(MQSTRIPE_IOC_CLEAR, &x);
	expect(e, 0, "CLEAR of an ok member");
	ktap_result(!e && x.state == MQSTRIPE_MEMBER_OK && x.slot == 2 && x.index == idx,
		    "CLEAR of an ok member: state ok before, slot and index kept (state %u)",
		    x.state);
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = idx, .slot = 3 };
	expect(xioctl(MQSTRIPE_IOC_CLEAR, &x), EINVAL, "CLEAR slot 3 of 3 members");
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = 100000 };
	expect(xioctl(MQSTRIPE_IOC_CLEAR, &x), ENODEV, "CLEAR of a missing array");
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = idx };
	x.hdr.size -= 8;
	expect(xioctl(MQSTRIPE_IOC_CLEAR, &x), EINVAL, "CLEAR hdr.size - 8");
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = idx };
	x.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_CLEAR, &x), EINVAL, "CLEAR reserved0 1");
	x = (struct mqstripe_clear){ .hdr = HDR(x), .index = idx };
	x.reserved[3] = 1;
	expect(xioctl(MQSTRIPE_IOC_CLEAR, &x), EINVAL, "CLEAR reserved[3] 1");

	/* RENAME: sysfs and INFO follow; the refusals change nothing */
	n = (struct mqstripe_rename){ .hdr = HDR(n), .index = idx };
	snprintf(n.name, sizeof(n.name), "ioctl-renamed");
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), 0, "RENAME to ioctl-renamed");
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), 0, "RENAME to its own name");
	n.name[1] = ' ';
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EINVAL, "RENAME to a name with a space");
	memset(n.name, 'a', sizeof(n.name));
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EINVAL, "RENAME name not NUL-terminated");
	n = (struct mqstripe_rename){ .hdr = HDR(n), .index = idx };
	n.reserved0 = 1;
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EINVAL, "RENAME reserved0 1");
	n = (struct mqstripe_rename){ .hdr = HDR(n), .index = idx };
	n.reserved[3] = 1;
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EINVAL, "RENAME reserved[3] 1");
	n = (struct mqstripe_rename){ .hdr = HDR(n), .index = idx };
	n.hdr.size -= 8;
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EINVAL, "RENAME hdr.size - 8");
	n = (struct mqstripe_rename){ .hdr = HDR(n), .index = 100000 };
	expect(xioctl(MQSTRIPE_IOC_RENAME, &n), ENODEV, "RENAME of a missing array");
	snprintf(sys, sizeof(sys), "/sys/block/" MQSTRIPE_DISK_PREFIX "%u/mqstripe/name",
		 idx);
	f = fopen(sys, "r");
	ktap_result(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "ioctl-renamed\n"),
		    "RENAME: mqstripe/name reads ioctl-renamed");
	if (f)
		fclose(f);
	memset(&info, 0, sizeof(info));
	info = (struct mqstripe_info){ .hdr = HDR(info), .index = idx };
	ktap_result(!xioctl(MQSTRIPE_IOC_INFO, &info) && !strcmp(info.name, "ioctl-renamed"),
		    "RENAME: INFO names it ioctl-renamed ('%s')", info.name);

	t_resize(idx, &info);

	/* a member of this array cannot go into another one */
	{
		struct mqstripe_create c2;

		create_init(&c2, fds, 1);
		bad_create(&c2, EBUSY, MQSTRIPE_ERR_BUSY, 0, "CREATE with a member of another array");
	}

	expect(do_remove(idx), 0, "REMOVE valid");
	ktap_result(stat(path, &st) != 0, "%s gone after REMOVE", path);
	expect(do_remove(idx), ENODEV, "REMOVE again");

	/* each fault on its own, over the same members */
	create_init(&c, fds, 3);
	c.hdr.size -= 8;
	bad_create(&c, EINVAL, -1, 0, "CREATE hdr.size - 8");
	create_init(&c, fds, 3);
	c.hdr.size += 8;
	bad_create(&c, EINVAL, -1, 0, "CREATE hdr.size + 8");
	create_init(&c, fds, 3);
	c.hdr.version = MQSTRIPE_ABI_VERSION + 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE unknown version");
	create_init(&c, fds, 3);
	c.hdr.version = 0;
	bad_create(&c, EINVAL, -1, 0, "CREATE version 0");
	create_init(&c, fds, 3);
	c.hdr.reserved = 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE hdr.reserved 1");
	create_init(&c, fds, 3);
	c.hdr.flags = 1u << 31;
	bad_create(&c, EINVAL, -1, 0, "CREATE unknown flag");
	create_init(&c, fds, 3);
	c.reserved0 = 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE reserved0 1");
	create_init(&c, fds, 3);
	c.reserved[1] = 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE reserved[1] 1");
	create_init(&c, fds, 3);
	c.segment_members[0] = 2;
	c.segment_members[1] = 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE segment_members without their flag");
	create_init(&c, fds, 0);
	bad_create(&c, EINVAL, -1, 0, "CREATE 0 members");
	create_init(&c, fds, MQSTRIPE_MAX_MEMBERS + 1);
	bad_create(&c, EINVAL, -1, 0, "CREATE 257 members");
	create_init(&c, fds, 3);
	c.chunk_bytes = 3072;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1, "CREATE chunk 3K");
	create_init(&c, fds, 3);
	c.chunk_bytes = 32 << 20;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1, "CREATE chunk 32M");
	create_init(&c, fds, 3);
	c.queue_depth = MQSTRIPE_MAX_QUEUE_DEPTH + 1;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_QUEUE_DEPTH, (__u32)-1, "CREATE queue depth 4097");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET;
	c.data_offset_bytes = 4096 + 512;
	bad_create(&c, EINVAL, -1, 0, "CREATE data offset 4.5K");
	/* data over the superblock area (bytes 4096..8191) */
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET;
	c.data_offset_bytes = 4096;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1,
		   "CREATE data offset 4K without NO_SUPERBLOCK");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET;
	c.data_offset_bytes = 0;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1,
		   "CREATE data offset 0 without NO_SUPERBLOCK");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET |
		      MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
	c.data_offset_bytes = 0;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "CREATE data offset 0 with NO_SUPERBLOCK (no superblock to keep)");
	if (!e)
		do_remove(c.index);
	/* the recorded data bytes per member (an assembled array's size) */
	create_init(&c, fds, 3);
	c.member_data_bytes = 1 << 20;
	bad_create(&c, EINVAL, -1, 0, "CREATE member_data_bytes without its flag");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1,
		   "CREATE member_data_bytes 0");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
	c.member_data_bytes = (1 << 20) + 4096;
	bad_create(&c, EINVAL, MQSTRIPE_ERR_GEOMETRY, (__u32)-1,
		   "CREATE member_data_bytes not a multiple of the chunk");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
	c.member_data_bytes = 1ULL << 50;
	bad_create(&c, ENOSPC, MQSTRIPE_ERR_TOO_SMALL, 0,
		   "CREATE member_data_bytes beyond the members");
	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES;
	c.member_data_bytes = 1 << 20;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "CREATE member_data_bytes 1M");
	if (!e) {
		info = (struct mqstripe_info){ .hdr = HDR(info),
					       .index = c.index };
		ktap_result(!xioctl(MQSTRIPE_IOC_INFO, &info) &&
			    info.member_data_bytes == 1 << 20 &&
			    info.capacity_bytes == 3 << 20,
			    "CREATE member_data_bytes 1M: INFO says 1M per member, capacity 3M (%llu, %llu)",
			    (unsigned long long)info.member_data_bytes,
			    (unsigned long long)info.capacity_bytes);
		do_remove(c.index);
	}
	create_init(&c, fds, 3);
	memset(c.name, 'a', sizeof(c.name));
	bad_create(&c, EINVAL, MQSTRIPE_ERR_NAME, (__u32)-1, "CREATE name without NUL");
	create_init(&c, fds, 3);
	strcpy(c.name, "a/b");
	bad_create(&c, EINVAL, MQSTRIPE_ERR_NAME, (__u32)-1, "CREATE name with '/'");

	/* the same device through a second open file: found by dev_t */
	dup[0] = fds[1];
	dup[1] = open(paths[1], O_RDWR | O_CLOEXEC);
	create_init(&c, dup, 2);
	bad_create(&c, EINVAL, MQSTRIPE_ERR_DUPLICATE, 1, "CREATE same member twice (two opens)");
	close(dup[1]);
	dup[1] = fds[1];
	create_init(&c, dup, 2);
	bad_create(&c, EINVAL, MQSTRIPE_ERR_DUPLICATE, 1, "CREATE same member twice (same fd)");

	bad[0] = fds[0];
	bad[1] = regfd;
	create_init(&c, bad, 2);
	bad_create(&c, ENOTBLK, MQSTRIPE_ERR_NOT_BLOCK, 1, "CREATE with a regular file");
	bad[1] = 999;
	create_init(&c, bad, 2);
	bad_create(&c, EBADF, MQSTRIPE_ERR_BAD_FD, 1, "CREATE with a closed fd");
	create_init(&c, fds, 3);
	c.members_ptr = 8;
	bad_create(&c, EFAULT, -1, 0, "CREATE with a bad members_ptr");

	/* name and UUID must be unique */
	create_init(&c, fds, 1);
	strcpy(c.name, "abi-test");
	c.hdr.flags = MQSTRIPE_CREATE_F_UUID;
	memset(c.uuid, 0x5a, sizeof(c.uuid));
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "CREATE named abi-test with a given UUID");
	if (!e) {
		struct mqstripe_create c2;

		idx = c.index;
		create_init(&c2, fds + 1, 1);
		strcpy(c2.name, "abi-test");
		bad_create(&c2, EEXIST, MQSTRIPE_ERR_NAME_EXISTS, (__u32)-1,
			   "CREATE with a name in use");
		create_init(&c2, fds + 1, 1);
		c2.hdr.flags = MQSTRIPE_CREATE_F_UUID;
		memset(c2.uuid, 0x5a, sizeof(c2.uuid));
		bad_create(&c2, EEXIST, MQSTRIPE_ERR_UUID_EXISTS, (__u32)-1,
			   "CREATE with a UUID in use");
		expect(do_remove(idx), 0, "REMOVE abi-test");
	}
}

/*
 * LIST with less room than there are arrays: the lowest indexes, in
 * ascending order.  The module keeps its arrays in creation order and a new
 * array takes the lowest free index: after A, B, C (indexes i, i+1, i+2),
 * REMOVE A and CREATE D (index i again, last in creation order), a room of
 * 2 must give i, i+1, not i+1, i+2.
 */
static void t_list_order(void)
{
	struct mqstripe_create c;
	struct mqstripe_list l;
	__u32 idx[3], got[2] = { 0, 0 }, d;
	int i, n = 0, e;

	for (i = 0; i < 3; i++) {
		create_init(&c, fds + i, 1);
		e = xioctl(MQSTRIPE_IOC_CREATE, &c);
		expect(e, 0, "LIST order: CREATE a 1-member array");
		if (e)
			goto out;
		idx[n++] = c.index;
	}
	expect(do_remove(idx[0]), 0, "LIST order: REMOVE the first array");
	create_init(&c, fds, 1);
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "LIST order: CREATE again on its member");
	if (e) {
		idx[0] = idx[--n];
		goto out;
	}
	d = c.index;
	ktap_result(d == idx[0], "LIST order: the new array took the freed index %u (got %u)",
		    idx[0], d);
	l = (struct mqstripe_list){ .hdr = HDR(l), .indexes_cap = 2,
				    .indexes_ptr = (__u64)(uintptr_t)got };
	expect(xioctl(MQSTRIPE_IOC_LIST, &l), 0, "LIST order: LIST with room for 2");
	ktap_result(l.count == 3 && got[0] == d && got[1] == idx[1],
		    "LIST order: room for 2 of 3 arrays gives the lowest indexes %u %u (got count %u, %u %u)",
		    d, idx[1], l.count, got[0], got[1]);
	idx[0] = d;
out:
	for (i = 0; i < n; i++)
		expect(do_remove(idx[i]), 0, "LIST order: REMOVE");
}

/*
 * INFO writes the member table to user memory only after dropping the
 * module's control mutex: a user fault may wait for any time (IO, or
 * userfaultfd as here), and every create, remove, info and list would wait
 * with it.  The table's page is held back by userfaultfd; while INFO waits
 * in that fault, a LIST from another thread must answer.
 */
static struct mqstripe_info fault_info;
static int fault_info_rc = -1;
static int fault_list_rc = -1;

static void *fault_info_thread(void *unused)
{
	(void)unused;
	fault_info_rc = xioctl(MQSTRIPE_IOC_INFO, &fault_info);
	return NULL;
}

static void *fault_list_thread(void *unused)
{
	struct mqstripe_list l = { .hdr = HDR(l) };

	(void)unused;
	fault_list_rc = xioctl(MQSTRIPE_IOC_LIST, &l);
	return NULL;
}

/* join @t within @secs seconds: true when it ended */
static bool join_within(pthread_t t, int secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	return !pthread_timedjoin_np(t, NULL, &ts);
}

static void t_info_fault(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_zeropage zp = { 0 };
	struct mqstripe_member_info *mi;
	struct mqstripe_create c;
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t ti, tl;
	bool faulted, listed;
	int uffd, e;
	void *page;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 && errno == ENOSYS) {
		/* the debug kernel has none: no result, not a pass */
		ktap_diag("INFO fault: not checked: this kernel has no userfaultfd (CONFIG_USERFAULTFD)");
		return;
	}
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		ktap_result(0, "INFO fault: userfaultfd: %s", strerror(errno));
		return;
	}
	page = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (__u64)(uintptr_t)page;
	reg.range.len = psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (page == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		ktap_result(0, "INFO fault: register a page: %s", strerror(errno));
		close(uffd);
		return;
	}
	create_init(&c, fds, 1);
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "INFO fault: CREATE a 1-member array");
	if (e)
		goto out_unmap;
	fault_info = (struct mqstripe_info){
		.hdr = HDR(fault_info), .index = c.index, .members_cap = 1,
		.members_ptr = (__u64)(uintptr_t)page,
	};
	pthread_create(&ti, NULL, fault_info_thread, NULL);
	pfd = (struct pollfd){ .fd = uffd, .events = POLLIN };
	faulted = poll(&pfd, 1, 30000) == 1 &&
		  read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		  msg.event == UFFD_EVENT_PAGEFAULT;
	ktap_result(faulted, "INFO fault: INFO waits in a fault on its member table");
	pthread_create(&tl, NULL, fault_list_thread, NULL);
	listed = join_within(tl, 10);
	ktap_result(listed && fault_list_rc == 0,
		    "INFO fault: LIST answers while INFO waits in the fault (%s)",
		    listed ? ktap_errname(fault_list_rc) : "still waiting after 10 s");
	/* let the fault go: a zero page, which INFO then writes */
	zp.range.start = (__u64)(uintptr_t)page;
	zp.range.len = psz;
	ioctl(uffd, UFFDIO_ZEROPAGE, &zp);
	pthread_join(ti, NULL);
	if (!listed)
		pthread_join(tl, NULL);
	mi = page;
	ktap_result(fault_info_rc == 0 && fault_info.nr_members == 1 && mi->slot == 0 &&
		    mi->major != 0,
		    "INFO fault: INFO ends with the member table written (%s, member major %u)",
		    ktap_errname(fault_info_rc), mi->major);
	expect(do_remove(c.index), 0, "INFO fault: REMOVE");
out_unmap:
	munmap(page, psz);
	close(uffd);
}

/* writes and flushes the members have completed (their disk's stat) */
static unsigned long long member_writes(void)
{
	unsigned long long sum = 0, v[17];
	char p[96];
	int i, k;

	for (i = 0; i < 3; i++) {
		struct stat st;
		FILE *f;

		if (fstat(fds[i], &st))
			return 0;
		snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/stat",
			 major(st.st_rdev), minor(st.st_rdev));
		f = fopen(p, "r");
		if (!f)
			return 0;
		memset(v, 0, sizeof(v));
		for (k = 0; k < 17 && fscanf(f, "%llu", &v[k]) == 1; k++)
			;
		fclose(f);
		sum += v[4] + v[14];	/* writes completed, flushes completed */
	}
	return sum;
}

/*
 * CREATE_F_READONLY: the disk read-only, BLKROSET to read-write refused
 * with EROFS; a write that reaches the array from the kernel (here from a
 * second array stacked on it: userspace writes stop at the read-only
 * disk) fails, and neither it nor a flush reaches the members.
 */
static void t_readonly(void)
{
	struct mqstripe_create c, top;
	struct mqstripe_rename n;
	char path[64], tpath[64], sys[96], buf[8];
	unsigned long long w0;
	int afd, tfd, ro = 0, zero = 0, e;
	void *io = NULL;
	FILE *f;

	create_init(&c, fds, 3);
	c.hdr.flags = MQSTRIPE_CREATE_F_READONLY;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	expect(e, 0, "READONLY: CREATE");
	if (e)
		return;
	snprintf(path, sizeof(path), "/dev/" MQSTRIPE_DISK_PREFIX "%u", c.index);
	snprintf(sys, sizeof(sys), "/sys/block/" MQSTRIPE_DISK_PREFIX "%u/mqstripe/readonly",
		 c.index);
	f = fopen(sys, "r");
	ktap_result(f && fgets(buf, sizeof(buf), f) && !strcmp(buf, "1\n"),
		    "READONLY: mqstripe/readonly reads 1");
	if (f)
		fclose(f);
	afd = open(path, O_RDWR | O_CLOEXEC);
	e = afd < 0 || ioctl(afd, BLKROGET, &ro);
	ktap_result(!e && ro == 1, "READONLY: BLKROGET 1 (%d)", ro);
	e = afd >= 0 && ioctl(afd, BLKROSET, &zero) ? errno : 0;
	expect(e, EROFS, "READONLY: BLKROSET 0");
	ro = 0;
	e = afd < 0 || ioctl(afd, BLKROGET, &ro);
	ktap_result(!e && ro == 1, "READONLY: still read-only after BLKROSET 0 (%d)",
		    ro);
	{
		struct mqstripe_resize z = { .hdr = HDR(z), .index = c.index };
		struct mqstripe_info ri = { .hdr = HDR(ri), .index = c.index };

		e = xioctl(MQSTRIPE_IOC_INFO, &ri);
		z.member_data_bytes = ri.member_data_bytes;
		expect(e ? e : xioctl(MQSTRIPE_IOC_RESIZE, &z), EROFS,
		       "READONLY: RESIZE refused");
	}

	/* an array on top of it, without a superblock, takes it read-write */
	create_init(&top, &afd, 1);
	top.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET |
			MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
	top.data_offset_bytes = 0;
	e = xioctl(MQSTRIPE_IOC_CREATE, &top);
	expect(e, 0, "READONLY: CREATE an array on top of it");
	if (!e) {
		/* RENAME: a name that another array has is refused */
		n = (struct mqstripe_rename){ .hdr = HDR(n), .index = c.index };
		snprintf(n.name, sizeof(n.name), "ro-bottom");
		expect(xioctl(MQSTRIPE_IOC_RENAME, &n), 0, "RENAME the read-only array ro-bottom");
		n.index = top.index;
		expect(xioctl(MQSTRIPE_IOC_RENAME, &n), EEXIST,
		       "RENAME the array on top to ro-bottom (the other's name)");
		n.name[0] = '\0';
		expect(xioctl(MQSTRIPE_IOC_RENAME, &n), 0,
		       "RENAME the array on top to the empty name (unnamed arrays may be many)");
		snprintf(tpath, sizeof(tpath), "/dev/" MQSTRIPE_DISK_PREFIX "%u",
			 top.index);
		tfd = open(tpath, O_RDWR | O_DIRECT | O_CLOEXEC);
		w0 = member_writes();
		if (posix_memalign(&io, 4096, 4096))
			io = NULL;
		if (io)
			memset(io, 0x5a, 4096);
		/* first the flush: the write's failure fails the top array */
		ktap_result(tfd >= 0 && !fsync(tfd),
			    "READONLY: a flush through the array on top succeeds");
		e = tfd >= 0 && io && pwrite(tfd, io, 4096, 0) < 0 ? errno : 0;
		expect(e, EIO, "READONLY: a write through the array on top");
		ktap_result(w0 && member_writes() == w0,
			    "READONLY: no write or flush reached the members (%llu before, %llu after)",
			    w0, member_writes());
		if (tfd >= 0)
			close(tfd);
		free(io);
		expect(do_remove(top.index), 0, "READONLY: REMOVE the array on top");
	}
	if (afd >= 0)
		close(afd);
	expect(do_remove(c.index), 0, "READONLY: REMOVE");
}

/* --------------------------------------------------- phase: access */

static int capset_drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1U << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1U << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].inheritable &= ~(1U << (CAP_SYS_ADMIN % 32));
	return syscall(SYS_capset, &h, d);
}

/*
 * In a child without CAP_SYS_ADMIN: every command the driver sees must be
 * EPERM.  Returns a one-line report through @out; exit 0 if all EPERM.
 */
static int eperm_all(char *out, size_t outlen)
{
	union mqs_any_cmd u;
	int32_t fds[MAX_REAL];
	unsigned int nr, dir, n = 0, bad = 0, i;
	unsigned long cmd, first_bad = 0;
	int e, first_e = 0;

#define TRY(c, a) do {						\
		e = xioctl((c), (a));				\
		n++;						\
		if (e != EPERM) {				\
			if (!bad++) {				\
				first_bad = (c);		\
				first_e = e;			\
			}					\
		}						\
	} while (0)

	/* each command with valid arguments */
	u.v = (struct mqstripe_version){ .hdr = HDR(u.v) };
	TRY(MQSTRIPE_IOC_GET_VERSION, &u);
	for (i = 0; i < (unsigned int)nreal; i++)
		fds[i] = real_fd[i];
	u.c = (struct mqstripe_create){ .hdr = HDR(u.c) };
	u.c.nr_members = nreal ? nreal : 1;
	u.c.members_ptr = (uintptr_t)fds;
	TRY(MQSTRIPE_IOC_CREATE, &u);
	u.r = (struct mqstripe_remove){ .hdr = HDR(u.r) };
	TRY(MQSTRIPE_IOC_REMOVE, &u);
	u.i = (struct mqstripe_info){ .hdr = HDR(u.i) };
	TRY(MQSTRIPE_IOC_INFO, &u);
	u.l = (struct mqstripe_list){ .hdr = HDR(u.l) };
	TRY(MQSTRIPE_IOC_LIST, &u);
	u.x = (struct mqstripe_clear){ .hdr = HDR(u.x) };
	TRY(MQSTRIPE_IOC_CLEAR, &u);
	u.n = (struct mqstripe_rename){ .hdr = HDR(u.n) };
	TRY(MQSTRIPE_IOC_RENAME, &u);
	/* every number of the driver's type, with a zeroed and a NULL arg */
	memset(&u, 0, sizeof(u));
	for (nr = 0; nr < 256; nr++)
		for (dir = 0; dir < 4; dir++) {
			TRY(_IOC(dir, MQSTRIPE_IOC_MAGIC, nr,
				 cmd_sizes[nr % NR_VALID]), &u);
			TRY(_IOC(dir, MQSTRIPE_IOC_MAGIC, nr, 0), NULL);
		}
	/* random numbers the VFS does not take for itself */
	for (i = 0; i < 4000; i++) {
		cmd = random_cmd();
		TRY(cmd, chance(50) ? (void *)&u : NULL);
	}
#undef TRY
	snprintf(out, outlen, "%u commands, %u not EPERM%s%s%s", n, bad,
		 bad ? " (first: cmd " : "", bad ? ktap_errname(first_e) : "",
		 bad ? ")" : "");
	if (bad)
		snprintf(out + strlen(out), outlen - strlen(out), " cmd %#lx",
			 first_bad);
	return bad ? 1 : 0;
}

/* run @fn in a child after @setup; the child's status and report */
static int in_child(int (*setup)(void), int (*fn)(char *, size_t),
		    char *report, size_t len)
{
	int p[2], status;
	pid_t pid;
	ssize_t r;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char buf[512] = "";
		int rc;

		close(p[0]);
		if (setup && setup()) {
			snprintf(buf, sizeof(buf), "setup failed: %s",
				 strerror(errno));
			rc = 3;
		} else {
			rc = fn(buf, sizeof(buf));
		}
		if (write(p[1], buf, strlen(buf)) < 0)
			rc = 3;
		_exit(rc);
	}
	close(p[1]);
	r = read(p[0], report, len - 1);
	report[r > 0 ? r : 0] = 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (!WIFEXITED(status)) {
		snprintf(report, len, "child died: signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : -1);
		return -1;
	}
	return WEXITSTATUS(status);
}

static int setup_nobody(void)
{
	/* groups first: after setresuid we could not drop them */
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534))
		return -1;
	return setresuid(65534, 65534, 65534);
}

static int open_as_nobody(char *out, size_t len)
{
	int fd_rw = open(CTL_PATH, O_RDWR), e_rw = errno;
	int fd_ro = open(CTL_PATH, O_RDONLY), e_ro = errno;

	snprintf(out, len, "O_RDWR: %s, O_RDONLY: %s",
		 fd_rw >= 0 ? "opened" : ktap_errname(e_rw),
		 fd_ro >= 0 ? "opened" : ktap_errname(e_ro));
	return fd_rw < 0 && e_rw == EACCES && fd_ro < 0 && e_ro == EACCES ? 0 : 1;
}

static void phase_access(void)
{
	char rep[512];
	uint32_t idx[8];
	int rc;

	rc = in_child(setup_nobody, open_as_nobody, rep, sizeof(rep));
	ktap_result(rc == 0, "uid 65534 cannot open %s (EACCES) # %s", CTL_PATH, rep);

	rc = in_child(capset_drop_sys_admin, eperm_all, rep, sizeof(rep));
	ktap_result(rc == 0, "fd opened by root, CAP_SYS_ADMIN dropped (capset): EPERM for every command # %s",
		    rep);
	rc = in_child(setup_nobody, eperm_all, rep, sizeof(rep));
	ktap_result(rc == 0, "fd opened by root, then setresuid(65534) keeping the fd: EPERM for every command # %s",
		    rep);
	rc = list_arrays(idx, 8);
	ktap_result(rc == 0, "no array was created without CAP_SYS_ADMIN # LIST count %d", rc);
}

/* ---------------------------------------------- phase: output bytes */

static bool all_bytes(const void *p, int c, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++ != (unsigned char)c)
			return false;
	return true;
}

/* bytes after the NUL of a string field must be 0 as well */
static bool nul_padded(const char *s, size_t n)
{
	const char *z = memchr(s, 0, n);

	return z && all_bytes(z, 0, n - (z - s));
}

static void phase_output(void)
{
	struct mqstripe_version v;
	struct mqstripe_create c;
	struct mqstripe_info in;
	struct mqstripe_member_info mi[MAX_REAL + 2];
	struct mqstripe_list l;
	uint32_t idx[8];
	int32_t fds[2];
	uint32_t i, n, index;
	int e;
	bool ok;

	/* GET_VERSION: out fields prefilled, reserved must be 0 on input */
	memset(&v, 0xaa, sizeof(v));
	v.hdr = (struct mqstripe_ioctl_hdr){ .version = 0xaaaaaaaa, .size = sizeof(v) };
	v.reserved0 = 0;
	memset(v.reserved, 0, sizeof(v.reserved));
	e = xioctl(MQSTRIPE_IOC_GET_VERSION, &v);
	ok = !e && v.hdr.version == MQSTRIPE_ABI_VERSION &&
	     v.hdr.size == sizeof(v) && !v.hdr.flags && !v.hdr.reserved &&
	     v.abi_version == MQSTRIPE_ABI_VERSION &&
	     !(v.features & ~MQSTRIPE_FEAT_ALL) && !v.reserved0 &&
	     nul_padded(v.module_version, sizeof(v.module_version)) &&
	     all_bytes(v.reserved, 0, sizeof(v.reserved));
	ktap_result(ok, "GET_VERSION over 0xAA: every output byte written (version %u, features %#llx, module '%.32s') # %s",
		    v.abi_version, (unsigned long long)v.features,
		    e ? "" : v.module_version, ktap_errname(e));

	if (nreal < 2) {
		ktap_result(false, "INFO/LIST output bytes: needs 2 members, got %d", nreal);
		return;
	}
	fds[0] = real_fd[0];
	fds[1] = real_fd[1];
	c = (struct mqstripe_create){ .hdr = HDR(c) };
	c.nr_members = 2;
	c.members_ptr = (uintptr_t)fds;
	c.chunk_bytes = 65536;
	strcpy(c.name, "fz-out");
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	ktap_result(!e && !c.reserved0 && all_bytes(c.reserved, 0, sizeof(c.reserved)) &&
		    c.error_code == 0 && c.error_member == MQSTRIPE_NO_MEMBER,
		    "CREATE 2 members: reserved 0, error_code 0, error_member none # %s",
		    ktap_errname(e));
	if (e)
		return;
	index = c.index;

	memset(&in, 0xaa, sizeof(in));
	in.hdr = (struct mqstripe_ioctl_hdr)HDR(in);
	in.reserved0 = 0;
	memset(in.reserved, 0, sizeof(in.reserved));
	in.index = index;
	in.members_cap = MAX_REAL + 2;
	in.members_ptr = (uintptr_t)mi;
	memset(mi, 0xaa, sizeof(mi));
	e = xioctl(MQSTRIPE_IOC_INFO, &in);
	ok = !e && in.hdr.version == MQSTRIPE_ABI_VERSION &&
	     in.hdr.size == sizeof(in) && !in.hdr.flags && !in.hdr.reserved &&
	     in.index == index && in.members_cap == MAX_REAL + 2 &&
	     in.members_ptr == (uintptr_t)mi && in.major && in.nr_members == 2 &&
	     in.state == MQSTRIPE_STATE_ACTIVE && in.chunk_bytes == 65536 &&
	     in.data_offset_bytes == MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES &&
	     in.capacity_bytes == 2 * in.member_data_bytes &&
	     in.queue_depth >= MQSTRIPE_DEFAULT_QUEUE_DEPTH &&
	     in.queue_depth <= MQSTRIPE_MAX_QUEUE_DEPTH &&
	     in.nr_hw_queues >= 1 && in.nr_hw_queues < 0xaaaaaaaa &&
	     !strcmp(in.name, "fz-out") && nul_padded(in.name, sizeof(in.name)) &&
	     !all_bytes(in.uuid, 0xaa, sizeof(in.uuid)) &&
	     in.nr_segments == 1 && in.segment_members[0] == 2 &&
	     all_bytes(&in.segment_members[1], 0,
		       sizeof(in.segment_members) - sizeof(__u32)) &&
	     !in.reserved0 && all_bytes(in.reserved, 0, sizeof(in.reserved)) &&
	     (in.minor & 0xaaaa0000) != 0xaaaa0000 &&
	     (in.major & 0xaaaa0000) != 0xaaaa0000;
	ktap_result(ok, "INFO over 0xAA: every output field written (major %u minor %u depth %u hw %u) # %s",
		    in.major, in.minor, in.queue_depth, in.nr_hw_queues, ktap_errname(e));
	ok = !e;
	for (i = 0; !e && i < 2; i++) {
		struct stat sb;

		ok &= mi[i].slot == i && mi[i].state == MQSTRIPE_MEMBER_OK &&
		      !mi[i].read_errors && !mi[i].write_errors &&
		      !mi[i].flush_errors && mi[i].size_bytes &&
		      mi[i].data_bytes == in.member_data_bytes &&
		      !(mi[i].flags & MQSTRIPE_MEMBER_F_SLOW) &&
		      mi[i].window_latency_us != 0xaaaaaaaa &&
		      !fstat(fds[i], &sb) && mi[i].major == major(sb.st_rdev) &&
		      mi[i].minor == minor(sb.st_rdev);
	}
	for (i = 2; i < MAX_REAL + 2; i++)
		ok &= all_bytes(&mi[i], 0xaa, sizeof(mi[i]));
	ktap_result(ok, "INFO members over 0xAA: 2 entries fully written (data_bytes the array's), the rest untouched");

	memset(&l, 0xaa, sizeof(l));
	l.hdr = (struct mqstripe_ioctl_hdr)HDR(l);
	l.count = 0;
	memset(l.reserved, 0, sizeof(l.reserved));
	l.indexes_cap = 8;
	l.indexes_ptr = (uintptr_t)idx;
	memset(idx, 0xaa, sizeof(idx));
	e = xioctl(MQSTRIPE_IOC_LIST, &l);
	n = l.count;
	ok = !e && n == 1 && idx[0] == index && l.hdr.version == MQSTRIPE_ABI_VERSION &&
	     l.indexes_cap == 8 && l.indexes_ptr == (uintptr_t)idx &&
	     all_bytes(l.reserved, 0, sizeof(l.reserved)) &&
	     all_bytes(idx + 1, 0xaa, sizeof(idx) - sizeof(idx[0]));
	ktap_result(ok, "LIST over 0xAA: count 1, index written, the rest untouched # %s, count %u",
		    ktap_errname(e), n);

	/* cap 0: count only, the buffer is not touched */
	memset(idx, 0xaa, sizeof(idx));
	l = (struct mqstripe_list){ .hdr = HDR(l), .indexes_ptr = (uintptr_t)idx };
	e = xioctl(MQSTRIPE_IOC_LIST, &l);
	ktap_result(!e && l.count == 1 && all_bytes(idx, 0xaa, sizeof(idx)),
		    "LIST with indexes_cap 0: count 1, buffer untouched # %s", ktap_errname(e));

	e = remove_array(index);
	ktap_result(!e, "REMOVE fz-out # %s", ktap_errname(e));
}

/* ------------------------------------------------------ phase: edges */

static void phase_edges(void)
{
	struct region r;
	struct mqstripe_create c, *pc;
	static int32_t fds[MQSTRIPE_MAX_MEMBERS + 1];
	uint32_t i, k;
	int e, before;
	char *p;

	region_init(&r);
	if (nwide >= MQSTRIPE_MAX_MEMBERS + 1) {
		for (i = 0; i <= MQSTRIPE_MAX_MEMBERS; i++)
			fds[i] = wide_fd[i];
		c = (struct mqstripe_create){ .hdr = HDR(c) };
		c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET |
			      MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
		c.chunk_bytes = 4096;
		c.queue_depth = 4;
		c.nr_members = MQSTRIPE_MAX_MEMBERS + 1;
		c.members_ptr = (uintptr_t)fds;
		e = xioctl(MQSTRIPE_IOC_CREATE, &c);
		ktap_result(e == EINVAL && c.error_code == MQSTRIPE_ERR_GEOMETRY &&
			    c.error_member == MQSTRIPE_NO_MEMBER && count_arrays() == 0,
			    "CREATE %u members: EINVAL, geometry, nothing created # %s code %u",
			    MQSTRIPE_MAX_MEMBERS + 1, ktap_errname(e), c.error_code);
		c = (struct mqstripe_create){ .hdr = HDR(c) };
		c.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET |
			      MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
		c.chunk_bytes = 4096;
		c.queue_depth = 4;
		c.nr_members = MQSTRIPE_MAX_MEMBERS;
		c.members_ptr = (uintptr_t)fds;
		e = xioctl(MQSTRIPE_IOC_CREATE, &c);
		ktap_result(!e, "CREATE %u members (the maximum) # %s, code %u member %u",
			    MQSTRIPE_MAX_MEMBERS, ktap_errname(e), c.error_code, c.error_member);
		if (!e) {
			struct mqstripe_info in = { .hdr = HDR(in), .index = c.index };

			e = xioctl(MQSTRIPE_IOC_INFO, &in);
			ktap_result(!e && in.nr_members == MQSTRIPE_MAX_MEMBERS,
				    "INFO of the %u-member array: nr_members %u # %s",
				    MQSTRIPE_MAX_MEMBERS, in.nr_members, ktap_errname(e));
			e = remove_array(c.index);
			ktap_result(!e, "REMOVE the %u-member array # %s",
				    MQSTRIPE_MAX_MEMBERS, ktap_errname(e));
		}
	} else {
		ktap_diag("no -w list of %u devices: the %u-member cases are fuzzed only",
			  MQSTRIPE_MAX_MEMBERS + 1, MQSTRIPE_MAX_MEMBERS);
	}
	if (nreal < 2)
		return;

	/* a member array straddling into an unmapped page */
	before = count_arrays();
	for (k = 0; k < 2; k++)
		fds[k] = real_fd[k];
	p = place_obj(&r, PL_FLUSH, fds, 8);
	c = (struct mqstripe_create){ .hdr = HDR(c) };
	c.nr_members = 3;
	c.members_ptr = (uintptr_t)p;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	ktap_result(e == EFAULT && count_arrays() == before,
		    "CREATE with the member array running into an unmapped page: EFAULT, nothing created # %s",
		    ktap_errname(e));

	/* the command struct straddling into an unmapped page */
	c = (struct mqstripe_create){ .hdr = HDR(c) };
	c.nr_members = 2;
	c.members_ptr = (uintptr_t)place_obj(&r, PL_NORMAL, fds, 8);
	for (k = 1; k < sizeof(c); k += 37) {
		pc = (void *)(r.base + 2 * page_size - sizeof(c) + k);
		memcpy(pc, &c, sizeof(c) - k);
		e = xioctl(MQSTRIPE_IOC_CREATE, pc);
		if (e != EFAULT)
			break;
	}
	ktap_result(e == EFAULT && count_arrays() == before,
		    "CREATE struct straddling into an unmapped page (every 37th offset): EFAULT, nothing created # %s",
		    ktap_errname(e));

	/*
	 * A valid CREATE in a read-only page: the result cannot be written
	 * back, so the caller would never learn the index.  The ABI says a
	 * failed create leaves nothing behind.
	 */
	pc = place_obj(&r, PL_RO, &c, sizeof(c));
	e = xioctl(MQSTRIPE_IOC_CREATE, pc);
	ktap_result(e == EFAULT && count_arrays() == before,
		    "CREATE from a read-only page: EFAULT and no array left behind # %s, arrays %d (before %d)",
		    ktap_errname(e), count_arrays(), before);
	if (count_arrays() != before) {
		int removed;

		remove_all(&removed);
	}

	/* REMOVE from a read-only page must not remove and then fail */
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	if (!e) {
		struct mqstripe_remove rm = { .hdr = HDR(rm), .index = c.index };
		struct mqstripe_remove *prm = place_obj(&r, PL_RO, &rm, sizeof(rm));
		int after;

		e = xioctl(MQSTRIPE_IOC_REMOVE, prm);
		after = count_arrays();
		ktap_result((e == EFAULT && after == before + 1) || (!e && after == before),
			    "REMOVE from a read-only page: either EFAULT with the array kept or success # %s, arrays %d",
			    ktap_errname(e), after);
		remove_array(c.index);
	} else {
		ktap_result(false, "CREATE 2 members for the read-only REMOVE case # %s",
			    ktap_errname(e));
	}
	region_free(&r);
}

/*
 * boundaries [-s SEED] [-w LIST] MEMBER MEMBER...: who may call (access),
 * what comes back byte for byte (output bytes) and the edges, with no
 * array there before.  -s seeds the random command numbers the access
 * checks send (default: time; printed).
 */
static int boundaries(int argc, char **argv)
{
	const char *wide_file = NULL;
	uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	int opt;

	while ((opt = getopt(argc, argv, "s:w:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'w': wide_file = optarg; break;
		default:
			return 2;
		}
	}
	ktap_diag("seed %" PRIu64 " (repeat with -s %" PRIu64 ")", seed, seed);
	rnd_state = seed;
	if (ctl_prepare(argc - optind, argv + optind, wide_file, "the checks"))
		return 1;
	phase_access();
	phase_output();
	phase_edges();
	return ktap_finish();
}

/* a byte count with an optional K or M suffix; 0 for none */
static __u64 bytes_arg(const char *s)
{
	char *end;
	__u64 v = strtoull(s, &end, 0);

	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return v;
}

/* comma-separated list into @v (at most @cap); the count */
static unsigned int list_arg(char *s, __u64 *v, unsigned int cap)
{
	unsigned int n = 0;
	char *tok;

	for (tok = strtok(s, ","); tok && n < cap; tok = strtok(NULL, ","))
		v[n++] = bytes_arg(tok);
	return n;
}

/* mqs_ioctl create ...: see the top of this file */
static int cmd_create(int argc, char **argv)
{
	struct mqstripe_member_info mi[MAX_REAL];
	__u64 sizes[MAX_REAL], seg[MQSTRIPE_MAX_SEGMENTS];
	int32_t mfds[MAX_REAL];
	struct mqstripe_create c;
	struct mqstripe_info info;
	unsigned int n, k, nseg;
	int opt, e;

	create_init(&c, mfds, 0);
	while ((opt = getopt(argc, argv, "c:ns:g:G:")) != -1) {
		switch (opt) {
		case 'c':
			c.chunk_bytes = bytes_arg(optarg);
			break;
		case 'n':
			c.hdr.flags |= MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
			break;
		case 's':
			c.hdr.flags |= MQSTRIPE_CREATE_F_MEMBER_SIZES;
			c.member_sizes_ptr = (uintptr_t)sizes;
			list_arg(optarg, sizes, MAX_REAL);
			break;
		case 'g':
			c.hdr.flags |= MQSTRIPE_CREATE_F_SEGMENTS;
			/* fall through */
		case 'G':
			nseg = list_arg(optarg, seg, MQSTRIPE_MAX_SEGMENTS);
			for (k = 0; k < nseg; k++)
				c.segment_members[k] = seg[k];
			break;
		default:
			return 2;
		}
	}
	n = argc - optind;
	if (!n || n > MAX_REAL)
		return 2;
	for (k = 0; k < n; k++) {
		mfds[k] = open(argv[optind + k], O_RDWR | O_CLOEXEC);
		if (mfds[k] < 0) {
			printf("open %s: %s\n", argv[optind + k],
			       strerror(errno));
			return 1;
		}
	}
	c.nr_members = n;
	e = xioctl(MQSTRIPE_IOC_CREATE, &c);
	if (e) {
		fprintf(stderr, "error %s code %u member %d\n", ktap_errname(e),
			c.error_code, (int)c.error_member);
		return 1;
	}
	info = (struct mqstripe_info){ .hdr = HDR(info), .index = c.index,
				       .members_cap = n,
				       .members_ptr = (uintptr_t)mi };
	e = xioctl(MQSTRIPE_IOC_INFO, &info);
	if (e) {
		printf("INFO of %u: %s\n", c.index, ktap_errname(e));
		return 1;
	}
	printf("index %u capacity %llu member_data %llu segments %u", c.index,
	       (unsigned long long)info.capacity_bytes,
	       (unsigned long long)info.member_data_bytes, info.nr_segments);
	for (k = 0; k < MQSTRIPE_MAX_SEGMENTS; k++)
		printf(" %u", info.segment_members[k]);
	printf(" data");
	for (k = 0; k < n; k++)
		printf(" %llu", (unsigned long long)mi[k].data_bytes);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/mqs_ioctl.XXXXXX";
	int i;

	if (ctl_open()) {
		printf("not ok 1 open %s: %s\n", CTL_PATH, strerror(errno));
		return 1;
	}
	if (argc >= 2 && !strcmp(argv[1], "boundaries"))
		return boundaries(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "create"))
		return cmd_create(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "remove")) {
		i = do_remove(strtoul(argv[2], NULL, 0));
		if (i)
			fprintf(stderr, "error %s\n", ktap_errname(i));
		return !!i;
	}
	if (argc == 2 && !strcmp(argv[1], "eperm")) {
		struct mqstripe_version v = { .hdr = HDR(v) };
		struct mqstripe_list l = { .hdr = HDR(l) };

		expect(xioctl(MQSTRIPE_IOC_GET_VERSION, &v), EPERM,
		       "GET_VERSION without CAP_SYS_ADMIN");
		expect(xioctl(MQSTRIPE_IOC_LIST, &l), EPERM, "LIST without CAP_SYS_ADMIN");
		return ktap_fail ? 1 : 0;
	}
	if (argc != 5 || strcmp(argv[1], "abi")) {
		fprintf(stderr, "usage: %s abi MEMBER MEMBER MEMBER | eperm | boundaries [-s SEED] [-w LIST] MEMBER MEMBER... | create [-c CHUNK] [-n] [-s SIZE,...] [-g N,...] [-G N,...] MEMBER... | remove INDEX\n",
			argv[0]);
		return 2;
	}
	for (i = 0; i < 3; i++) {
		paths[i] = argv[2 + i];
		fds[i] = open(argv[2 + i], O_RDWR | O_CLOEXEC);
		if (fds[i] < 0) {
			printf("not ok 1 open %s: %s\n", argv[2 + i], strerror(errno));
			return 1;
		}
	}
	regfd = mkstemp(tmpl);
	if (regfd < 0 || ftruncate(regfd, 64 << 20)) {
		printf("not ok 1 temporary file: %s\n", strerror(errno));
		return 1;
	}
	unlink(tmpl);

	t_version();
	t_list();
	t_create();
	t_sizes();
	t_list_order();
	t_info_fault();
	t_readonly();
	return ktap_finish();
}
