// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the mqstripe module, for testing stripectl on a host that
 * cannot load modules: an LD_PRELOAD library that answers the ioctls of
 * module/uapi/mqstripe.h on /dev/mqstripe-control, as strictly as the
 * header says (version, size, reserved fields, flags), and keeps its arrays
 * in a file so that create, list, status and stop see the same state.
 *
 * Paths under /dev/mqstripe*, /sys/block/mqstripe* and /sys/module/mqstripe
 * are moved below $FAKE_MQS_ROOT, and a file under /sys/dev/block/ (a
 * device's wwid, its uevent, dm/name) or a node under /dev/mapper/ or
 * /dev/dm-* when the test made one there (a loop device made to look like
 * a device-mapper map); everything else is the real system.
 *
 * Knobs (environment):
 *   FAKE_MQS_ROOT          directory for the fake /dev and /sys (required)
 *   FAKE_MQS_ABI           ABI version the fake module speaks (default 1)
 *   FAKE_MQS_EPERM         any value: every ioctl fails with EPERM
 *   FAKE_MQS_BUSY          REMOVE answers EBUSY this many times, or "always"
 *   FAKE_MQS_DEVNODE       any value: make /dev/mqstripeN at once (devtmpfs)
 *   FAKE_MQS_CREATE_FAIL   "errno,error_code,error_member": CREATE fails so
 *   FAKE_MQS_MEMBER_SIZE   bytes BLKGETSIZE64 reports for any device
 *   FAKE_MQS_MEMBER_PBS    bytes BLKPBSZGET reports for any device
 *   FAKE_MQS_CREATE_EXEC   a shell command run when CREATE is called
 *   FAKE_MQS_CUT_AFTER     N: a power cut right after the Nth superblock
 *                          copy write (4096 bytes at byte 4096 or 8192) has reached the
 *                          device: the process ends at once (exit 137)
 *   FAKE_MQS_CUT_ANY       any value: FAKE_MQS_CUT_AFTER counts every
 *                          pwrite() to a block device (the signatures
 *                          "create --force" puts back, too)
 *   FAKE_MQS_FORGET        a device: once this process wrote its superblock
 *                          area (bytes 4096 to 12287), reads of that area
 *                          return zeros (a device that keeps no data, such
 *                          as null_blk without memory_backed)
 *   FAKE_MQS_FORGET_FILL   with FAKE_MQS_FORGET: the byte those reads return
 *                          instead of zeros (another writer's data)
 *   FAKE_MQS_SYSLOG        a file: syslog() appends "PRIORITY MESSAGE" lines
 *                          to it instead of logging
 *   FAKE_MQS_INFO_NAME     the name INFO reports for every array, any bytes
 *                          (a name the real module would have refused)
 *   FAKE_MQS_FAULTY        a slot: INFO reports that member faulty (3 read
 *                          errors, 1 write error); unset, every member is
 *                          ok; CLEAR of it makes it ok for the rest of the
 *                          process
 *   FAKE_MQS_GONE          a slot: INFO reports that member gone (CLEAR:
 *                          ENXIO)
 *   FAKE_MQS_RESIZE_FAIL   an errno: RESIZE fails with it (after its
 *                          header checks)
 *   FAKE_MQS_NO_SEGMENTS   any value: the module lacks MQSTRIPE_FEAT_SEGMENTS
 *                          (an older module): CREATE refuses
 *                          MQSTRIPE_CREATE_F_SEGMENTS as an unknown flag
 *   FAKE_MQS_SLOW          a slot: INFO reports that member slow
 *                          (MQSTRIPE_MEMBER_F_SLOW, 52000 us; the others
 *                          1200 us)
 *
 * nanosleep() returns at once (below): stripectl's waits take no time here.
 *
 * This is test code: it trusts its environment and its state file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include "mqstripe.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define FAKE_MAJOR	60	/* local/experimental: nothing behind it */
#define MAX_ARRAYS	16

struct fake_array {
	uint32_t index;
	char name[MQSTRIPE_NAME_LEN];
	uint8_t uuid[MQSTRIPE_UUID_LEN];
	uint32_t nr;
	uint64_t chunk;
	uint64_t offset;
	uint32_t qd;
	uint64_t member_data;
	uint32_t maj[MQSTRIPE_MAX_MEMBERS];
	uint32_t min[MQSTRIPE_MAX_MEMBERS];
	uint64_t size[MQSTRIPE_MAX_MEMBERS];
	/* each member's own data bytes (MQSTRIPE_CREATE_F_MEMBER_SIZES), or 0 */
	uint64_t data[MQSTRIPE_MAX_MEMBERS];
	/* MQSTRIPE_CREATE_F_SEGMENTS: the members of each segment, else 0 */
	uint32_t nseg;
	uint32_t seg[MQSTRIPE_MAX_SEGMENTS];
};

/* the array's bytes: every member's data, or member_data each */
static uint64_t capacity(const struct fake_array *a)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < a->nr; i++)
		sum += a->data[i] ? a->data[i] : a->member_data;
	return sum;
}

static struct fake_array arrays[MAX_ARRAYS];
static unsigned int nr_arrays;
static int ctl_fd = -1;

/* ----- the real functions ----- */

#define REAL(ret, name, ...)						\
	static ret (*real_##name)(__VA_ARGS__);				\
	static void init_##name(void)					\
	{								\
		if (!real_##name)					\
			real_##name = dlsym(RTLD_NEXT, #name);		\
	}

REAL(int, open, const char *, int, ...)
REAL(int, open64, const char *, int, ...)
REAL(FILE *, fopen, const char *, const char *)
REAL(FILE *, fopen64, const char *, const char *)
REAL(int, stat, const char *, struct stat *)
REAL(int, lstat, const char *, struct stat *)
REAL(int, mknod, const char *, mode_t, dev_t)
REAL(int, unlink, const char *)
REAL(int, chown, const char *, uid_t, gid_t)
REAL(int, ioctl, int, unsigned long, ...)
REAL(int, close, int)
REAL(ssize_t, pwrite, int, const void *, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void *, size_t, off_t)
REAL(ssize_t, pread, int, void *, size_t, off_t)
REAL(ssize_t, pread64, int, void *, size_t, off_t)
REAL(void, vsyslog, int, const char *, va_list)

static const char *root(void)
{
	const char *r = getenv("FAKE_MQS_ROOT");

	if (!r) {
		fprintf(stderr, "fake_mqstripe: FAKE_MQS_ROOT is not set\n");
		abort();
	}
	return r;
}

static const char *moved(const char *path, char *buf, size_t len)
{
	static const char *const prefixes[] = {
		"/dev/" MQSTRIPE_DISK_PREFIX,
		"/sys/block/" MQSTRIPE_DISK_PREFIX,
		"/sys/class/misc/" MQSTRIPE_CONTROL_NAME,
		"/sys/module/mqstripe/",
	};
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(path, prefixes[i], strlen(prefixes[i]))) {
			snprintf(buf, len, "%s%s", root(), path);
			return buf;
		}
	}
	/*
	 * a file of a device the test made, $FAKE_MQS_ROOT/sys/dev/block/M:m/wwid
	 * (an identity), .../uevent, .../dm/name; a node it made,
	 * $FAKE_MQS_ROOT/dev/mapper/NAME or $FAKE_MQS_ROOT/dev/dm-N
	 */
	if (!strncmp(path, "/sys/dev/block/", 15)) {
		snprintf(buf, len, "%s%s", root(), path);
		init_stat();
		if (!real_stat(buf, &st) && S_ISREG(st.st_mode))
			return buf;
	}
	if (!strncmp(path, "/dev/mapper/", 12) || !strncmp(path, "/dev/dm-", 8)) {
		snprintf(buf, len, "%s%s", root(), path);
		init_stat();
		if (!real_stat(buf, &st) && S_ISBLK(st.st_mode))
			return buf;
	}
	return path;
}

/* ----- state ----- */

static void state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/state", root());
}

static void load(void)
{
	char path[4096];
	FILE *f;

	state_path(path, sizeof(path));
	nr_arrays = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	while (nr_arrays < MAX_ARRAYS &&
	       fread(&arrays[nr_arrays], sizeof(arrays[0]), 1, f) == 1)
		nr_arrays++;
	fclose(f);
}

static void save(void)
{
	char path[4096];
	FILE *f;

	state_path(path, sizeof(path));
	f = fopen(path, "w");
	if (!f)
		abort();
	if (nr_arrays)
		fwrite(arrays, sizeof(arrays[0]), nr_arrays, f);
	fclose(f);
}

static struct fake_array *find(uint32_t index)
{
	unsigned int i;

	for (i = 0; i < nr_arrays; i++)
		if (arrays[i].index == index)
			return &arrays[i];
	return NULL;
}

static void put_file(const char *dir, const char *name, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/*
 * The members' IO figures: slot S completed 1000 + S reads (10 under 16 us,
 * the rest in bucket 3) and 500 + S writes (one in the last bucket), 2
 * reads and 1 write in flight, a mean read latency of 100 us and write of
 * 2 ms; slot 0 is slow (52 ms in the last window against a median of
 * 1.2 ms; INFO says so with FAKE_MQS_SLOW=0).
 */
static void make_io_stats(const struct fake_array *a, const char *mq)
{
	char path[4096 + 32];
	FILE *st, *hist;
	uint32_t s;
	int b;

	snprintf(path, sizeof(path), "%s/io_stats", mq);
	st = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/latency_hist", mq);
	hist = fopen(path, "w");
	for (s = 0; st && hist && s < a->nr; s++) {
		fprintf(st, "%u %u %u 2 1 %" PRIu64 " %" PRIu64 " %u 1200 %d\n",
			s, 1000 + s, 500 + s, (uint64_t)(1000 + s) * 100000,
			(uint64_t)(500 + s) * 2000000, s ? 1200 : 52000, !s);
		fprintf(hist, "%u", s);
		for (b = 0; b < MQSTRIPE_LAT_BUCKETS; b++)
			fprintf(hist, " %u", b == 0 ? 10 : b == 3 ? 990 + s : 0);
		for (b = 0; b < MQSTRIPE_LAT_BUCKETS; b++)
			fprintf(hist, " %u", b == 1 ? 499 + s :
				b == MQSTRIPE_LAT_BUCKETS - 1 ? 1 : 0);
		fprintf(hist, "\n");
	}
	if (st)
		fclose(st);
	if (hist)
		fclose(hist);
}

static void make_sysfs(const struct fake_array *a, bool readonly)
{
	char dir[4096], mq[4096 + 16];

	snprintf(dir, sizeof(dir), "%s/sys/block/%s%u", root(),
		 MQSTRIPE_DISK_PREFIX, a->index);
	mkdir(dir, 0755);	/* parents made by the test */
	snprintf(mq, sizeof(mq), "%s/mqstripe", dir);
	mkdir(mq, 0755);
	put_file(mq, "readonly", "%d\n", readonly);
	make_io_stats(a, mq);
	/* the 17 fields of a kernel's block stat file, each its own value */
	put_file(dir, "stat",
		 "     100        1      800       30       50        2      400       20        3       40       60        4        5       16        6        7        8\n");
	strcat(dir, "/queue");
	mkdir(dir, 0755);
	put_file(dir, "logical_block_size", "512\n");
	put_file(dir, "physical_block_size", "4096\n");
	put_file(dir, "minimum_io_size", "%" PRIu64 "\n", a->chunk);
	put_file(dir, "optimal_io_size", "%" PRIu64 "\n", a->chunk * a->nr);
	put_file(dir, "max_sectors_kb", "1280\n");
	put_file(dir, "max_hw_sectors_kb", "2048\n");
	put_file(dir, "max_segments", "128\n");
	put_file(dir, "discard_granularity", "%" PRIu64 "\n", a->chunk);
	put_file(dir, "discard_max_bytes", "2199023255040\n");
	put_file(dir, "write_zeroes_max_bytes", "0\n");
	put_file(dir, "write_cache", "write back\n");
	put_file(dir, "fua", "1\n");
	put_file(dir, "rotational", "0\n");
	/* read_ahead_kb left out: status must print it as missing */
}

/* ----- the ioctls ----- */

static uint32_t abi(void)
{
	const char *v = getenv("FAKE_MQS_ABI");

	return v ? (uint32_t)atoi(v) : MQSTRIPE_ABI_VERSION;
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static int check_hdr(struct mqstripe_ioctl_hdr *h, size_t size,
		     uint32_t flags_ok)
{
	uint32_t want = abi();
	bool bad = h->version != want || h->size != size || h->reserved ||
		   (h->flags & ~flags_ok);

	h->version = want;
	return bad ? -EINVAL : 0;
}

static int get_version(struct mqstripe_version *v)
{
	if (v->hdr.size != sizeof(*v) || v->hdr.flags || v->hdr.reserved ||
	    v->reserved0 || !all_zero(v->reserved, sizeof(v->reserved))) {
		v->hdr.version = abi();
		return -EINVAL;
	}
	v->hdr.version = abi();
	v->abi_version = abi();
	v->features = MQSTRIPE_FEAT_ALL;
	if (getenv("FAKE_MQS_NO_SEGMENTS"))
		v->features &= ~MQSTRIPE_FEAT_SEGMENTS;
	snprintf(v->module_version, sizeof(v->module_version), "0.1.0-fake");
	return 0;
}

static int create_fail(struct mqstripe_create *c, int err, uint32_t code,
		       uint32_t member)
{
	c->error_code = code;
	c->error_member = member;
	return -err;
}

static int create(struct mqstripe_create *c)
{
	const int32_t *fds = (const int32_t *)(uintptr_t)c->members_ptr;
	const char *inject = getenv("FAKE_MQS_CREATE_FAIL");
	struct fake_array *a;
	uint64_t min_size = UINT64_MAX, rows, need;
	uint32_t i, j, index;
	int rc;

	rc = check_hdr(&c->hdr, sizeof(*c), MQSTRIPE_CREATE_F_ALL &
		       ~(getenv("FAKE_MQS_NO_SEGMENTS") ?
			 MQSTRIPE_CREATE_F_SEGMENTS : 0));
	if (rc)
		return rc;
	/* like the module: the outputs must be zero on input */
	if (c->reserved0 || !all_zero(c->reserved, sizeof(c->reserved)) ||
	    c->index || c->error_member || c->error_code)
		return -EINVAL;
	c->error_code = MQSTRIPE_ERR_NONE;
	c->error_member = (uint32_t)-1;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_DATA_OFFSET) &&
	    c->data_offset_bytes)
		return -EINVAL;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES) &&
	    c->member_data_bytes)
		return -EINVAL;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) &&
	    c->member_sizes_ptr)
		return -EINVAL;
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS) &&
	    !all_zero(c->segment_members, sizeof(c->segment_members)))
		return -EINVAL;
	/* like the module: 2 or more segments, adding up to the members */
	if (c->hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS) {
		uint32_t sum = 0, nseg = 0;
		bool ended = false;

		for (i = 0; i < MQSTRIPE_MAX_SEGMENTS; i++) {
			if (!c->segment_members[i])
				ended = true;
			else if (ended)
				nseg = 0;
			else
				nseg++;
			sum += c->segment_members[i];
		}
		if (!(c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) ||
		    nseg < 2 || sum != c->nr_members)
			return create_fail(c, EINVAL, MQSTRIPE_ERR_GEOMETRY,
					   MQSTRIPE_NO_MEMBER);
	}
	if ((c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) &&
	    (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES))
		return create_fail(c, EINVAL, MQSTRIPE_ERR_GEOMETRY,
				   MQSTRIPE_NO_MEMBER);
	if (!(c->hdr.flags & MQSTRIPE_CREATE_F_UUID) &&
	    !all_zero(c->uuid, sizeof(c->uuid)))
		return -EINVAL;
	/* like the module: data over the superblock only when asked for */
	if ((c->hdr.flags & MQSTRIPE_CREATE_F_DATA_OFFSET) &&
	    c->data_offset_bytes < MQSTRIPE_SUPERBLOCK_END_BYTES &&
	    !(c->hdr.flags & MQSTRIPE_CREATE_F_NO_SUPERBLOCK))
		return create_fail(c, EINVAL, MQSTRIPE_ERR_GEOMETRY,
				   MQSTRIPE_NO_MEMBER);
	/* another program at work while CREATE runs (a shell command) */
	if (getenv("FAKE_MQS_CREATE_EXEC") &&
	    system(getenv("FAKE_MQS_CREATE_EXEC")))
		return -EIO;
	if (inject) {
		int err;
		unsigned int code, member;

		if (sscanf(inject, "%d,%u,%u", &err, &code, &member) == 3)
			return create_fail(c, err, code, member);
	}
	if (c->nr_members < 1 || c->nr_members > MQSTRIPE_MAX_MEMBERS)
		return create_fail(c, EINVAL, MQSTRIPE_ERR_GEOMETRY, -1);
	if (!memchr(c->name, '\0', sizeof(c->name)))
		return create_fail(c, EINVAL, MQSTRIPE_ERR_NAME, -1);
	load();
	if (nr_arrays == MAX_ARRAYS)
		return -ENOMEM;
	for (i = 0; i < nr_arrays; i++)
		if (c->name[0] && !strcmp(arrays[i].name, c->name))
			return create_fail(c, EEXIST,
					   MQSTRIPE_ERR_NAME_EXISTS, -1);
	for (index = 0; find(index); index++)
		;
	a = &arrays[nr_arrays];
	memset(a, 0, sizeof(*a));
	a->index = index;
	memcpy(a->name, c->name, sizeof(a->name));
	if (c->hdr.flags & MQSTRIPE_CREATE_F_UUID)
		memcpy(a->uuid, c->uuid, sizeof(a->uuid));
	else
		memset(a->uuid, 0x42, sizeof(a->uuid));
	a->nr = c->nr_members;
	if (c->hdr.flags & MQSTRIPE_CREATE_F_SEGMENTS) {
		for (i = 0; i < MQSTRIPE_MAX_SEGMENTS &&
		     c->segment_members[i]; i++)
			a->seg[i] = c->segment_members[i];
		a->nseg = i;
	}
	a->chunk = c->chunk_bytes ? c->chunk_bytes :
		   MQSTRIPE_DEFAULT_CHUNK_BYTES;
	need = a->chunk;
	a->offset = (c->hdr.flags & MQSTRIPE_CREATE_F_DATA_OFFSET) ?
		    c->data_offset_bytes : MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES;
	a->qd = c->queue_depth ? c->queue_depth :
		MQSTRIPE_DEFAULT_QUEUE_DEPTH;
	/* like the module: a recorded size is whole chunks, held by all */
	if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES) {
		if (!c->member_data_bytes || c->member_data_bytes % a->chunk ||
		    c->member_data_bytes > (UINT64_MAX >> 1))
			return create_fail(c, EINVAL, MQSTRIPE_ERR_GEOMETRY,
					   MQSTRIPE_NO_MEMBER);
		need = c->member_data_bytes;
	}
	/* like the module: each member's own size, whole chunks */
	if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) {
		const uint64_t *sizes =
			(const uint64_t *)(uintptr_t)c->member_sizes_ptr;

		for (i = 0; i < a->nr; i++) {
			if (!sizes[i] || sizes[i] % a->chunk ||
			    sizes[i] > (UINT64_MAX >> 1))
				return create_fail(c, EINVAL,
						   MQSTRIPE_ERR_GEOMETRY, i);
			a->data[i] = sizes[i];
		}
	}
	for (i = 0; i < a->nr; i++) {
		struct stat st;
		uint64_t size = 0;

		if (fstat(fds[i], &st))
			return create_fail(c, EBADF, MQSTRIPE_ERR_BAD_FD, i);
		if (!S_ISBLK(st.st_mode))
			return create_fail(c, ENOTBLK, MQSTRIPE_ERR_NOT_BLOCK,
					   i);
		for (j = 0; j < i; j++)
			if (makedev(a->maj[j], a->min[j]) == st.st_rdev)
				return create_fail(c, EINVAL,
						   MQSTRIPE_ERR_DUPLICATE, i);
		a->maj[i] = major(st.st_rdev);
		a->min[i] = minor(st.st_rdev);
		init_ioctl();
		if (ioctl(fds[i], BLKGETSIZE64, &size))
			return create_fail(c, EINVAL, MQSTRIPE_ERR_OPEN, i);
		a->size[i] = size;
		if (size < a->offset + (a->data[i] ? a->data[i] : need))
			return create_fail(c, ENOSPC, MQSTRIPE_ERR_TOO_SMALL,
					   i);
		if (size < min_size)
			min_size = size;
	}
	rows = (min_size - a->offset) / a->chunk;
	a->member_data = rows * a->chunk;
	if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_DATA_BYTES)
		a->member_data = c->member_data_bytes;
	if (c->hdr.flags & MQSTRIPE_CREATE_F_MEMBER_SIZES) {
		a->member_data = UINT64_MAX;
		for (i = 0; i < a->nr; i++)
			if (a->data[i] < a->member_data)
				a->member_data = a->data[i];
	}
	nr_arrays++;
	save();
	make_sysfs(a, c->hdr.flags & MQSTRIPE_CREATE_F_READONLY);
	if (getenv("FAKE_MQS_DEVNODE")) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/dev/%s%u", root(),
			 MQSTRIPE_DISK_PREFIX, index);
		init_mknod();
		real_mknod(path, S_IFBLK | 0660, makedev(FAKE_MAJOR, index));
	}
	c->index = index;
	return 0;
}

static int busy_left = -1;

static int remove_array(struct mqstripe_remove *r)
{
	const char *busy = getenv("FAKE_MQS_BUSY");
	struct fake_array *a;
	int rc = check_hdr(&r->hdr, sizeof(*r), 0);

	if (rc)
		return rc;
	if (r->reserved0 || !all_zero(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	load();
	a = find(r->index);
	if (!a)
		return -ENODEV;
	if (busy_left < 0)
		busy_left = busy ? atoi(busy) : 0;
	if (busy && !strcmp(busy, "always"))
		return -EBUSY;
	if (busy_left > 0) {
		busy_left--;
		return -EBUSY;
	}
	if (getenv("FAKE_MQS_DEVNODE")) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/dev/%s%u", root(),
			 MQSTRIPE_DISK_PREFIX, a->index);
		init_unlink();
		real_unlink(path);
	}
	*a = arrays[--nr_arrays];
	save();
	return 0;
}

/* like the module: a valid name, not another array's; the same is no-op */
static int rename_array(struct mqstripe_rename *r)
{
	struct fake_array *a;
	size_t len = strnlen(r->name, sizeof(r->name)), i;
	int rc = check_hdr(&r->hdr, sizeof(*r), 0);

	if (rc)
		return rc;
	if (r->reserved0 || !all_zero(r->reserved, sizeof(r->reserved)) ||
	    len == sizeof(r->name))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)r->name[i]) &&
		    !strchr("._-", r->name[i]))
			return -EINVAL;
	load();
	a = find(r->index);
	if (!a)
		return -ENODEV;
	for (i = 0; i < nr_arrays; i++)
		if (&arrays[i] != a && len && !strcmp(arrays[i].name, r->name))
			return -EEXIST;
	memcpy(a->name, r->name, sizeof(a->name));
	save();
	return 0;
}

/* A member's size now: FAKE_MQS_MEMBER_SIZE, else the kernel's. */
static uint64_t member_size_now(uint32_t maj, uint32_t min)
{
	const char *size = getenv("FAKE_MQS_MEMBER_SIZE");
	unsigned long long sectors = 0;
	char path[64];
	FILE *f;

	if (size)
		return strtoull(size, NULL, 0);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size", maj, min);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &sectors) != 1)
		sectors = 0;
	fclose(f);
	return sectors * 512;
}

static int resize_array(struct mqstripe_resize *r)
{
	struct fake_array *a;
	const char *fail = getenv("FAKE_MQS_RESIZE_FAIL");
	uint64_t size;
	uint32_t i;
	int rc = check_hdr(&r->hdr, sizeof(*r), 0);

	if (rc)
		return rc;
	if (r->error_member || r->error_code || r->capacity_bytes ||
	    r->reserved0 || !all_zero(r->reserved, sizeof(r->reserved)))
		return -EINVAL;
	r->error_member = MQSTRIPE_NO_MEMBER;
	load();
	a = find(r->index);
	if (!a)
		return -ENODEV;
	/* like the module: an array of zones does not grow */
	for (i = 0; i < a->nr; i++)
		if (a->data[i] && a->data[i] != a->member_data)
			return -EOPNOTSUPP;
	if (!r->member_data_bytes || r->member_data_bytes % a->chunk ||
	    r->member_data_bytes < a->member_data)
		return -EINVAL;
	if (fail)
		return -atoi(fail);
	for (i = 0; i < a->nr; i++) {
		size = member_size_now(a->maj[i], a->min[i]);
		a->size[i] = size;
		if (size < a->offset + r->member_data_bytes) {
			r->error_member = i;
			r->error_code = MQSTRIPE_ERR_TOO_SMALL;
			return -ENOSPC;
		}
	}
	a->member_data = r->member_data_bytes;
	r->capacity_bytes = capacity(a);
	save();
	return 0;
}

/* a slot named by an environment variable, or -1 (unset) */
static int64_t env_slot(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? (int64_t)strtoul(v, NULL, 10) : -1;
}

/*
 * CLEAR: the slot of FAKE_MQS_GONE is gone (ENXIO); that of
 * FAKE_MQS_FAULTY was faulty and is ok from then on (in this process:
 * the variable is dropped, so a later INFO reports it ok).
 */
static int clear_member(struct mqstripe_clear *c)
{
	struct fake_array *a;
	int rc = check_hdr(&c->hdr, sizeof(*c), 0);

	if (rc)
		return rc;
	if (c->reserved0 || !all_zero(c->reserved, sizeof(c->reserved)))
		return -EINVAL;
	load();
	a = find(c->index);
	if (!a)
		return -ENODEV;
	if (c->slot >= a->nr)
		return -EINVAL;
	if (env_slot("FAKE_MQS_GONE") == c->slot)
		return -ENXIO;
	c->state = MQSTRIPE_MEMBER_OK;
	if (env_slot("FAKE_MQS_FAULTY") == c->slot) {
		c->state = MQSTRIPE_MEMBER_FAULTY;
		unsetenv("FAKE_MQS_FAULTY");
	}
	return 0;
}

static int info(struct mqstripe_info *in)
{
	struct mqstripe_member_info *m =
		(struct mqstripe_member_info *)(uintptr_t)in->members_ptr;
	struct fake_array *a;
	uint32_t i;
	int rc = check_hdr(&in->hdr, sizeof(*in), 0);

	if (rc)
		return rc;
	if (!all_zero(in->reserved, sizeof(in->reserved)))
		return -EINVAL;
	load();
	a = find(in->index);
	if (!a)
		return -ENODEV;
	in->major = FAKE_MAJOR;
	in->minor = a->index;
	in->nr_members = a->nr;
	in->state = MQSTRIPE_STATE_ACTIVE;
	in->chunk_bytes = a->chunk;
	in->data_offset_bytes = a->offset;
	in->member_data_bytes = a->member_data;
	in->capacity_bytes = capacity(a);
	in->queue_depth = a->qd;
	in->nr_hw_queues = 2;
	memcpy(in->name, a->name, sizeof(in->name));
	if (getenv("FAKE_MQS_INFO_NAME"))
		strncpy(in->name, getenv("FAKE_MQS_INFO_NAME"),
			sizeof(in->name) - 1);
	memcpy(in->uuid, a->uuid, sizeof(in->uuid));
	memset(in->segment_members, 0, sizeof(in->segment_members));
	in->nr_segments = 0;
	if (!getenv("FAKE_MQS_NO_SEGMENTS")) {
		in->nr_segments = a->nseg ? a->nseg : 1;
		if (a->nseg)
			memcpy(in->segment_members, a->seg, sizeof(a->seg));
		else
			in->segment_members[0] = a->nr;
	}
	for (i = 0; i < a->nr && i < in->members_cap; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		m[i].major = a->maj[i];
		m[i].minor = a->min[i];
		m[i].slot = i;
		m[i].state = env_slot("FAKE_MQS_GONE") == i ?
			     MQSTRIPE_MEMBER_GONE :
			     env_slot("FAKE_MQS_FAULTY") == i ?
			     MQSTRIPE_MEMBER_FAULTY : MQSTRIPE_MEMBER_OK;
		m[i].size_bytes = a->size[i];
		m[i].data_bytes = a->data[i] ? a->data[i] : a->member_data;
		if (m[i].state == MQSTRIPE_MEMBER_FAULTY) {
			m[i].read_errors = 3;
			m[i].write_errors = 1;
		}
		if (getenv("FAKE_MQS_SLOW") &&
		    (uint32_t)atoi(getenv("FAKE_MQS_SLOW")) == i)
			m[i].flags = MQSTRIPE_MEMBER_F_SLOW;
		m[i].window_latency_us = m[i].flags ? 52000 : 1200;
	}
	return 0;
}

static int list(struct mqstripe_list *l)
{
	uint32_t *idx = (uint32_t *)(uintptr_t)l->indexes_ptr;
	uint32_t i, j, n = 0, sorted[MAX_ARRAYS];
	int rc = check_hdr(&l->hdr, sizeof(*l), 0);

	if (rc)
		return rc;
	if (l->count || !all_zero(l->reserved, sizeof(l->reserved)))
		return -EINVAL;
	load();
	for (i = 0; i < nr_arrays; i++) {	/* ascending */
		for (j = n; j > 0 && sorted[j - 1] > arrays[i].index; j--)
			sorted[j] = sorted[j - 1];
		sorted[j] = arrays[i].index;
		n++;
	}
	l->count = n;
	for (i = 0; i < n && i < l->indexes_cap; i++)
		idx[i] = sorted[i];
	return 0;
}

static int control(unsigned long req, void *arg)
{
	if (getenv("FAKE_MQS_EPERM"))
		return -EPERM;
	switch (req) {
	case MQSTRIPE_IOC_GET_VERSION:
		return get_version(arg);
	case MQSTRIPE_IOC_CREATE:
		return create(arg);
	case MQSTRIPE_IOC_REMOVE:
		return remove_array(arg);
	case MQSTRIPE_IOC_INFO:
		return info(arg);
	case MQSTRIPE_IOC_LIST:
		return list(arg);
	case MQSTRIPE_IOC_RENAME:
		return rename_array(arg);
	case MQSTRIPE_IOC_RESIZE:
		return resize_array(arg);
	case MQSTRIPE_IOC_CLEAR:
		return clear_member(arg);
	}
	return -ENOTTY;
}

/* ----- the interposed functions ----- */

int ioctl(int fd, unsigned long req, ...)
{
	const char *size = getenv("FAKE_MQS_MEMBER_SIZE");
	const char *pbs = getenv("FAKE_MQS_MEMBER_PBS");
	va_list ap;
	void *arg;
	int rc;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd >= 0 && fd == ctl_fd) {
		rc = control(req, arg);
		if (rc) {
			errno = -rc;
			return -1;
		}
		return 0;
	}
	if (req == BLKGETSIZE64 && size) {
		*(uint64_t *)arg = strtoull(size, NULL, 0);
		return 0;
	}
	if (req == BLKPBSZGET && pbs) {
		*(unsigned int *)arg = (unsigned int)strtoul(pbs, NULL, 0);
		return 0;
	}
	init_ioctl();
	return real_ioctl(fd, req, arg);
}

static int do_open(int (*fn)(const char *, int, ...), const char *path,
		   int flags, mode_t mode)
{
	char buf[4096];
	const char *p = moved(path, buf, sizeof(buf));
	int fd = fn(p, flags, mode);

	if (fd >= 0 && !strcmp(path, "/dev/" MQSTRIPE_CONTROL_NAME))
		ctl_fd = fd;
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	init_open();
	return do_open(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & O_CREAT)
		mode = va_arg(ap, mode_t);
	va_end(ap);
	init_open64();
	return do_open(real_open64, path, flags, mode);
}

/* glibc's fopen() opens without open(): moved here too (uevent files) */
FILE *fopen(const char *path, const char *mode)
{
	char buf[4096];

	init_fopen();
	return real_fopen(moved(path, buf, sizeof(buf)), mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	char buf[4096];

	init_fopen64();
	return real_fopen64(moved(path, buf, sizeof(buf)), mode);
}

/* a closed control fd number is soon a member's: forget it */
int close(int fd)
{
	if (fd >= 0 && fd == ctl_fd)
		ctl_fd = -1;
	init_close();
	return real_close(fd);
}

int stat(const char *path, struct stat *st)
{
	char buf[4096];

	init_stat();
	return real_stat(moved(path, buf, sizeof(buf)), st);
}

int lstat(const char *path, struct stat *st)
{
	char buf[4096];

	init_lstat();
	return real_lstat(moved(path, buf, sizeof(buf)), st);
}

int mknod(const char *path, mode_t mode, dev_t dev)
{
	char buf[4096];

	init_mknod();
	return real_mknod(moved(path, buf, sizeof(buf)), mode, dev);
}

int unlink(const char *path)
{
	char buf[4096];

	init_unlink();
	return real_unlink(moved(path, buf, sizeof(buf)));
}

int chown(const char *path, uid_t uid, gid_t gid)
{
	char buf[4096];

	init_chown();
	return real_chown(moved(path, buf, sizeof(buf)), uid, gid);
}

/*
 * No time passes in the fake: stripectl's waits (for the node of a new
 * array, for a busy array or member) count their steps, and what they wait
 * for depends on the fake's answers, not on time, so each sleep returns at
 * once.  Without devtmpfs a create waited its whole node wait (5 s) here.
 */
int nanosleep(const struct timespec *req, struct timespec *rem)
{
	(void)req;
	if (rem)
		*rem = (struct timespec){ 0 };
	return 0;
}

/*
 * FAKE_MQS_CUT_AFTER: stripectl writes each superblock copy as one
 * pwrite() of 4096 bytes at byte 4096 or 8192 (O_DIRECT, fsync after), so
 * "the power failed right after write N" is: do write N, make it durable,
 * and end the process before it does anything more.
 */
static bool is_blk(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISBLK(st.st_mode);
}

/* FAKE_MQS_FORGET: is @fd the device that keeps no data? */
static bool forgetful(int fd)
{
	const char *path = getenv("FAKE_MQS_FORGET");
	struct stat a, b;

	init_stat();
	return path && !fstat(fd, &a) && S_ISBLK(a.st_mode) &&
	       !real_stat(path, &b) && a.st_rdev == b.st_rdev;
}

static bool forgot;	/* its superblock area was written */

static ssize_t cut_write(ssize_t (*real)(int, const void *, size_t, off_t),
			 int fd, const void *buf, size_t len, off_t off)
{
	static unsigned long writes;
	const char *cut = getenv("FAKE_MQS_CUT_AFTER");
	ssize_t n = real(fd, buf, len, off);

	if (n > 0 && off < 3 * 4096 && off + n > 4096 && forgetful(fd))
		forgot = true;
	if (cut && n > 0 && (getenv("FAKE_MQS_CUT_ANY") ? is_blk(fd) :
	    len == 4096 && (off == 4096 || off == 8192) && n == 4096) &&
	    ++writes >= strtoul(cut, NULL, 10)) {
		fsync(fd);
		_exit(137);
	}
	return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	init_pwrite();
	return cut_write(real_pwrite, fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	init_pwrite64();
	return cut_write(real_pwrite64, fd, buf, len, off);
}

/* FAKE_MQS_FORGET: after the write, the superblock area reads as zeros */
static ssize_t forget_read(ssize_t (*real)(int, void *, size_t, off_t),
			   int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = real(fd, buf, len, off);
	off_t from, to;

	if (n <= 0 || !forgot || !forgetful(fd))
		return n;
	from = off > 4096 ? off : 4096;
	to = off + n < 3 * 4096 ? off + n : 3 * 4096;
	if (from < to)
		memset((char *)buf + (from - off),
		       (int)strtol(getenv("FAKE_MQS_FORGET_FILL") ?: "0", NULL, 0),
		       (size_t)(to - from));
	return n;
}

ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	init_pread();
	return forget_read(real_pread, fd, buf, len, off);
}

ssize_t pread64(int fd, void *buf, size_t len, off_t off)
{
	init_pread64();
	return forget_read(real_pread64, fd, buf, len, off);
}

/*
 * FAKE_MQS_SYSLOG: what stripectl logs, one "PRIORITY MESSAGE" line per
 * call in that file, for the test to read (glibc's fortified callers go
 * through __syslog_chk).
 */
static void log_line(int prio, const char *fmt, va_list ap)
{
	const char *file = getenv("FAKE_MQS_SYSLOG");
	FILE *f;

	if (!file) {
		init_vsyslog();
		real_vsyslog(prio, fmt, ap);
		return;
	}
	f = fopen(file, "a");
	if (!f)
		abort();
	fprintf(f, "%d ", LOG_PRI(prio));
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fclose(f);
}

void syslog(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(prio, fmt, ap);
	va_end(ap);
}

void vsyslog(int prio, const char *fmt, va_list ap)
{
	log_line(prio, fmt, ap);
}

void __syslog_chk(int prio, int flag, const char *fmt, ...)
{
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	log_line(prio, fmt, ap);
	va_end(ap);
}

void __vsyslog_chk(int prio, int flag, const char *fmt, va_list ap)
{
	(void)flag;
	log_line(prio, fmt, ap);
}
