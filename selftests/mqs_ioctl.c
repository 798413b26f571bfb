// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_ioctl - the control ioctl ABI checks of test_11_bad_input.sh
 *
 * Usage: mqs_ioctl abi MEMBER MEMBER MEMBER   (three free block devices)
 *        mqs_ioctl eperm                       (run without CAP_SYS_ADMIN)
 *
 * Compiled on the host by selftests/Makefile against module/uapi, so the
 * struct layouts are the ones the module and stripectl use.  Prints KTAP-like
 * "ok N ..."/"not ok N ..." lines; exit 0 if all passed, 1 otherwise.
 * Every negative case has a positive control: the same struct with the
 * fault removed succeeds, so an EINVAL for another reason cannot pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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
#include <linux/fs.h>
#include <linux/userfaultfd.h>

#include "mqstripe.h"
#include "ktap.h"

static int ctl = -1;

/* ioctl returning 0 or the errno */
static int xioctl(unsigned long cmd, void *arg)
{
	return ioctl(ctl, cmd, arg) ? errno : 0;
}

static void expect(int got, int want, const char *what)
{
	if (got == want)
		ktap_result(1, "%s: %s", what, ktap_errname(want));
	else
		ktap_result(0, "%s # expected %s, got %s", what,
			    ktap_errname(want), ktap_errname(got));
}

#define HDR(s) { .version = MQSTRIPE_ABI_VERSION, .size = sizeof(s) }

static __u32 list_count(void)
{
	struct mqstripe_list l = { .hdr = HDR(l) };

	if (xioctl(MQSTRIPE_IOC_LIST, &l))
		return (__u32)-1;
	return l.count;
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
	__u32 before = list_count();
	int e = xioctl(MQSTRIPE_IOC_CREATE, c);
	__u32 after;

	expect(e, want, what);
	if (e == 0) {
		do_remove(c->index);
		return;
	}
	if (code >= 0)
		ktap_result(c->error_code == (__u32)code && c->error_member == member,
			    "%s: error_code %d error_member %d (got %u, %d)", what,
			    code, (int)member, c->error_code, (int)c->error_member);
	after = list_count();
	ktap_result(after == before, "%s: no array left behind (LIST count %u -> %u)",
		    what, before, after);
}

static void t_create(void)
{
	struct mqstripe_create c;
	struct mqstripe_info info;
	struct mqstripe_member_info mi[3];
	struct mqstripe_remove r;
	char path[64];
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
	info.reserved[5] = 1;
	expect(xioctl(MQSTRIPE_IOC_INFO, &info), EINVAL, "INFO reserved[5] 1");
	info.reserved[5] = 0;
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
	c.reserved[5] = 1;
	bad_create(&c, EINVAL, -1, 0, "CREATE reserved[5] 1");
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

	/* an array on top of it, without a superblock, takes it read-write */
	create_init(&top, &afd, 1);
	top.hdr.flags = MQSTRIPE_CREATE_F_DATA_OFFSET |
			MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
	top.data_offset_bytes = 0;
	e = xioctl(MQSTRIPE_IOC_CREATE, &top);
	expect(e, 0, "READONLY: CREATE an array on top of it");
	if (!e) {
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

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/mqs_ioctl.XXXXXX";
	int i;

	ctl = open("/dev/" MQSTRIPE_CONTROL_NAME, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("not ok 1 open /dev/%s: %s\n", MQSTRIPE_CONTROL_NAME, strerror(errno));
		return 1;
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
		fprintf(stderr, "usage: %s abi MEMBER MEMBER MEMBER | eperm\n", argv[0]);
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
	t_list_order();
	t_info_fault();
	t_readonly();
	return ktap_finish();
}
