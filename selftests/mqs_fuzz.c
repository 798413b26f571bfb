// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_fuzz - control-ABI fuzzer of test_20_fuzz.sh
 *
 * Usage: mqs_fuzz [-s SEED] [-t SECS] [-n MIN_CALLS] [-j WORKERS]
 *                 [-w WIDE_LIST] MEMBER...
 *   MEMBER      free block devices (not claimed, no filesystem in use)
 *   -w FILE     file with one block device per line (e.g. 257 dm-zero
 *               devices): members for creates of up to and beyond
 *               MQSTRIPE_MAX_MEMBERS members
 *   -t SECS     fuzzing time budget (default 30)
 *   -n CALLS    go on after the budget until this many calls (default
 *               100000; at most 3 x the budget in all)
 *   -j WORKERS  processes fuzzing at once (default: online CPUs)
 *   -s SEED     seed (default: time); printed, so a run can be repeated
 *
 * Phases, each printing KTAP "ok N ..." / "not ok N ..." lines:
 *  1. access: a non-root caller (uid 65534) cannot open the control device
 *     (EACCES); a caller holding an fd opened by root but without
 *     CAP_SYS_ADMIN (capset, and setresuid keeping the fd) gets EPERM for
 *     every command the driver sees (all 0xB5 numbers, the five commands
 *     with valid arguments, random numbers), and nothing is created.
 *  2. output bytes: GET_VERSION, INFO (and its member array) and LIST with
 *     the output fields pre-filled with 0xAA: every output and reserved
 *     byte comes back written (reserved = 0, strings NUL-padded), entries
 *     beyond the count are left alone.
 *  3. edges: 256 members (from -w) work, 257 are refused; member arrays and
 *     command structs straddling into an unmapped page or in a read-only
 *     page fail with EFAULT and leave no array behind.
 *  4. fuzz: WORKERS processes send random and mutated ioctls (random
 *     command numbers; valid numbers with wrong sizes and directions;
 *     versions, sizes, flags, reserved fields, member counts up to 300,
 *     fds that are not block devices, closed, O_PATH, held O_EXCL, member
 *     fds of real free devices and of arrays just created (stacking);
 *     unterminated names; pointers to unmapped, read-only and kernel
 *     memory; structs straddling a page boundary).  Every call must return
 *     0 or -1; on the driver's own command type the errno must be one the
 *     ABI documents; unknown commands must be ENOTTY; results must be
 *     consistent (error_code matches errno, INFO and LIST fields sane).
 *     Prints the call count and the errno histogram.
 *  5. cleanup: LIST, REMOVE every array (all must go), members claimable
 *     with O_EXCL again.
 * Exit 0 if every check passed, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "mqstripe.h"
#include "ktap.h"

#ifndef CTL_PATH
#define CTL_PATH	"/dev/" MQSTRIPE_CONTROL_NAME
#endif
#define MAX_MEMBERS_TRY	300	/* beyond MQSTRIPE_MAX_MEMBERS */
#define MAX_POOL	64
#define MAX_WIDE	300
#define MAX_REAL	16
#define NR_ERRNO	256
#define NR_BADMSG	16
#define CLOSED_FD	900	/* an fd number known to be closed */
#define LIVE_MAX	2	/* arrays a worker keeps before removing */

static long page_size;

/* ------------------------------------------------------- random */

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	/* splitmix64: small, good enough, reproducible from the seed */
	uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rndn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return rndn(100) < percent;
}

static uint64_t interesting64(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 7, 8, 255, 256, 257, 511, 512, 4095, 4096, 4097,
		65535, 65536, 1 << 20, (1 << 20) + 1, 16 << 20, (16 << 20) + 1,
		32 << 20, 1ULL << 30, (1ULL << 30) + 4096, 0x7fffffff,
		0x80000000, 0xffffffff, 0x100000000ULL, 1ULL << 62,
		(1ULL << 63) - 4096, 1ULL << 63, ~0ULL - 4095, ~0ULL,
	};

	if (chance(20))
		return rnd();
	return v[rndn(sizeof(v) / sizeof(v[0]))];
}

/* ------------------------------------------------------- ioctl */

static int ctl = -1;

/* ioctl returning 0 or the errno; a return other than 0 and -1 is 1000 */
static int xioctl(unsigned long cmd, void *arg)
{
	long r = ioctl(ctl, cmd, arg);

	if (r == 0)
		return 0;
	if (r == -1)
		return errno;
	return 1000;
}

#define HDR(s) { .version = MQSTRIPE_ABI_VERSION, .size = sizeof(s) }

static const unsigned long valid_cmds[] = {
	MQSTRIPE_IOC_GET_VERSION, MQSTRIPE_IOC_CREATE, MQSTRIPE_IOC_REMOVE,
	MQSTRIPE_IOC_INFO, MQSTRIPE_IOC_LIST,
};
#define NR_VALID 5

static const size_t cmd_sizes[] = {
	sizeof(struct mqstripe_version), sizeof(struct mqstripe_create),
	sizeof(struct mqstripe_remove), sizeof(struct mqstripe_info),
	sizeof(struct mqstripe_list),
};

/* index of @cmd in valid_cmds, NR_VALID if it is not one */
static unsigned int valid_index(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < NR_VALID; i++)
		if (valid_cmds[i] == cmd)
			break;
	return i;
}

/*
 * ioctl types the VFS handles itself before the driver (do_vfs_ioctl):
 * FIOCLEX.. ('T'), FIFREEZE/FSSETXATTR ('X'), FS_IOC_*FLAGS ('f'),
 * FICLONE ('\x94'), FIGETBSZ (0), FS_IOC_GETFSUUID (0x15).  Random
 * commands avoid them: some would change the devtmpfs inode or freeze
 * /dev, and none reaches the driver.
 */
static bool vfs_type(unsigned long cmd)
{
	unsigned int t = _IOC_TYPE(cmd);

	return t == 0 || t == 0x15 || t == 'T' || t == 'X' || t == 'f' ||
	       t == 0x94;
}

/* errnos the ABI documents for its commands (ENXIO: a member's open) */
static bool errno_documented(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EBADF: case ENOTBLK:
	case EBUSY: case ENOSPC: case EEXIST: case ENOMEM: case ENODEV:
	case ENXIO:
		return true;
	}
	return false;
}

/* ------------------------------------------------- shared state */

struct stats {
	uint64_t calls;
	uint64_t succeeded;
	uint64_t creates_ok;
	uint64_t creates_wide_ok;
	uint64_t removes_ok;
	uint64_t stacked_ok;
	uint64_t bad;
	uint64_t by_class[8];
	uint64_t hist[NR_ERRNO + 1];	/* [NR_ERRNO]: other return value */
	uint32_t nmsg;
	char msg[NR_BADMSG][240];
	volatile int stop;
};

static struct stats *st;

static const char *const class_names[] = {
	"valid-mutated", "valid-sane", "type-random-nr", "valid-nr-bad-size",
	"random-cmd", "remove-live",
};

static void bad_call(const char *fmt, ...)
{
	uint32_t slot = __atomic_fetch_add(&st->nmsg, 1, __ATOMIC_RELAXED);
	va_list ap;

	__atomic_fetch_add(&st->bad, 1, __ATOMIC_RELAXED);
	if (slot >= NR_BADMSG)
		return;
	va_start(ap, fmt);
	vsnprintf(st->msg[slot], sizeof(st->msg[slot]), fmt, ap);
	va_end(ap);
}

/* -------------------------------------------------------- fds */

struct fdent {
	int fd;
	const char *kind;
	bool block;	/* a claimable block device */
};

static struct fdent pool[MAX_POOL];
static int npool;
static int real_fd[MAX_REAL], nreal;
static const char *real_path[MAX_REAL];
static int wide_fd[MAX_WIDE], nwide;
static const char *wide_path[MAX_WIDE];

static void pool_add(int fd, const char *kind, bool block)
{
	if (fd < 0 || npool >= MAX_POOL)
		return;
	pool[npool].fd = fd;
	pool[npool].kind = kind;
	pool[npool].block = block;
	npool++;
}

/* fds of every kind a member fd array may carry (inherited by workers) */
static void build_pool(void)
{
	char tmpl[] = "/tmp/mqs_fuzz.XXXXXX";
	int p[2], s[2], fd, i;

	for (i = 0; i < nreal; i++)
		pool_add(real_fd[i], "member", true);
	pool_add(open("/dev/null", O_RDWR | O_CLOEXEC), "chardev", false);
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		unlink(tmpl);
		if (ftruncate(fd, 64 << 20) == 0)
			pool_add(fd, "regular", false);
	}
	pool_add(open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), "dir", false);
	if (pipe2(p, O_CLOEXEC) == 0) {
		pool_add(p[0], "pipe", false);
		pool_add(p[1], "pipe", false);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s) == 0)
		pool_add(s[0], "socket", false);
	pool_add(eventfd(0, EFD_CLOEXEC), "eventfd", false);
	pool_add(ctl, "control", false);
	if (nreal)
		pool_add(open(real_path[0], O_PATH | O_CLOEXEC), "opath-block",
			 false);
	pool_add(memfd_create("mqs_fuzz", MFD_CLOEXEC), "memfd", false);
	close(CLOSED_FD);
	pool_add(CLOSED_FD, "closed", false);
	pool_add(-1, "minus-one", false);	/* pool_add skips it */
}

static int bad_fd_number(void)
{
	static const int v[] = { -1, -2, INT32_MIN, INT32_MAX, CLOSED_FD,
				 65536, 1 << 20 };

	return v[rndn(sizeof(v) / sizeof(v[0]))];
}

/* ---------------------------------------------- memory regions */

/*
 * A region: [RW page][RW page][unmapped page][RO page].  Objects go at the
 * start of page 1, flush against the unmapped page, straddling into it, in
 * the read-only page, or into the unmapped page itself.
 */
struct region {
	char *base;
};

static void region_init(struct region *r)
{
	r->base = mmap(NULL, 4 * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	munmap(r->base + 2 * page_size, page_size);
	mprotect(r->base + 3 * page_size, page_size, PROT_READ);
}

enum place { PL_NORMAL, PL_FLUSH, PL_STRADDLE, PL_RO, PL_UNMAPPED, PL_NULL,
	     PL_KERNEL, PL_NONCANON, PL_LOW, NR_PLACES };

static const char *const place_names[] = {
	"normal", "flush-to-unmapped", "straddling", "read-only", "unmapped",
	"NULL", "kernel", "non-canonical", "low",
};

/*
 * Where an object of @size bytes goes; copies @obj there (the read-only
 * page is made writable for the copy).  Returns the user address.
 */
static void *place_obj(struct region *r, enum place pl, const void *obj,
		       size_t size)
{
	char *p;

	switch (pl) {
	case PL_NORMAL:
		p = r->base + page_size;
		break;
	case PL_FLUSH:
		p = r->base + 2 * page_size - size;
		break;
	case PL_STRADDLE:
		p = r->base + 2 * page_size - size;
		if (size > 1)
			p += 1 + rndn(size - 1);
		break;
	case PL_RO:
		p = r->base + 3 * page_size;
		mprotect(p, page_size, PROT_READ | PROT_WRITE);
		memcpy(p, obj, size);
		mprotect(p, page_size, PROT_READ);
		return p;
	case PL_UNMAPPED:
		return r->base + 2 * page_size + rndn(page_size);
	case PL_NULL:
		return NULL;
	case PL_KERNEL:
		return (void *)(0xffffffff81000000UL + rndn(1 << 20) * 8);
	case PL_NONCANON:
		return (void *)(0x8000000000000000UL + rndn(4096));
	default:
		return (void *)(uintptr_t)rndn(4096);
	}
	/* the part that lands in the unmapped page is dropped */
	if (p + size > r->base + 2 * page_size)
		memcpy(p, obj, r->base + 2 * page_size - p);
	else
		memcpy(p, obj, size);
	return p;
}

static enum place pick_place(void)
{
	if (chance(80))
		return PL_NORMAL;
	return rndn(NR_PLACES);
}

/* ------------------------------------------------------ workers */

struct worker {
	int id;
	struct region sreg;	/* command structs */
	struct region areg;	/* member fd arrays, index and member buffers */
	uint32_t live[LIVE_MAX + 1];
	int nlive;
	int arr_fd[2];		/* /dev/mqstripeN held open (stacking) */
	int excl_fd;		/* a member held with O_EXCL for one call */
	unsigned int name_seq;
	uint64_t next_create_ms;	/* throttle: see fuzz_one() */
};

static struct worker *W;

static void live_add(uint32_t idx)
{
	if (W->nlive <= LIVE_MAX)
		W->live[W->nlive++] = idx;
}

static void live_del(uint32_t idx)
{
	int i;

	for (i = 0; i < W->nlive; i++)
		if (W->live[i] == idx) {
			W->live[i] = W->live[--W->nlive];
			return;
		}
}

/* a member fd for slot filling: mostly real members, sometimes anything */
static int pick_fd(void)
{
	unsigned int r = rndn(100);

	if (r < 8)
		return bad_fd_number();
	if (r < 14 && W->arr_fd[0] >= 0)
		return W->arr_fd[rndn(2)] >= 0 ? W->arr_fd[rndn(2)] : W->arr_fd[0];
	if (r < 18 && W->excl_fd >= 0)
		return W->excl_fd;
	if (r < 30 && npool)
		return pool[rndn(npool)].fd;
	if (nreal)
		return real_fd[rndn(nreal)];
	return bad_fd_number();
}

/* fill @fds with @n member fds; sane: distinct real members in random order */
static void fill_fds(int32_t *fds, uint32_t n, bool sane, bool wide)
{
	uint32_t i;

	if (wide && nwide) {
		for (i = 0; i < n; i++)
			fds[i] = wide_fd[i % nwide];
		for (i = n; i > 1; i--) {
			uint32_t j = rndn(i), t = fds[i - 1];

			fds[i - 1] = fds[j];
			fds[j] = t;
		}
		if (!sane && n)
			fds[rndn(n)] = pick_fd();
		return;
	}
	if (sane && nreal) {
		int idx[MAX_REAL];

		for (i = 0; i < (uint32_t)nreal; i++)
			idx[i] = i;
		for (i = nreal; i > 1; i--) {
			uint32_t j = rndn(i), t = idx[i - 1];

			idx[i - 1] = idx[j];
			idx[j] = t;
		}
		for (i = 0; i < n; i++)
			fds[i] = real_fd[idx[i % nreal]];
		return;
	}
	for (i = 0; i < n; i++)
		fds[i] = pick_fd();
}

static void rnd_name(char *name, bool sane)
{
	static const char ok[] = "abcXYZ019._-";
	size_t len, i;

	memset(name, 0, MQSTRIPE_NAME_LEN);
	if (sane) {
		if (chance(50))
			snprintf(name, MQSTRIPE_NAME_LEN, "fz%d-%u", W->id,
				 W->name_seq++ % 8);
		return;
	}
	switch (rndn(5)) {
	case 0:		/* unterminated */
		memset(name, 'a' + rndn(26), MQSTRIPE_NAME_LEN);
		break;
	case 1:		/* invalid characters */
		for (i = 0; i < MQSTRIPE_NAME_LEN - 1; i++)
			name[i] = 1 + rndn(255);
		break;
	case 2:		/* a name in use, maybe */
		snprintf(name, MQSTRIPE_NAME_LEN, "fz%u-%u", rndn(8), rndn(8));
		break;
	default:
		len = rndn(MQSTRIPE_NAME_LEN + 1);
		for (i = 0; i < len && i < MQSTRIPE_NAME_LEN; i++)
			name[i] = ok[rndn(sizeof(ok) - 1)];
		break;
	}
}

/* the sane ingredients of a command struct */
static void sane_struct(int vi, void *buf, bool sane_members, bool *wide,
			void **fd_arr, uint32_t *nr_out)
{
	*wide = false;
	*fd_arr = NULL;
	*nr_out = 0;
	switch (vi) {
	case 0: {
		struct mqstripe_version *v = buf;

		*v = (struct mqstripe_version){ .hdr = HDR(*v) };
		v->hdr.version = chance(70) ? MQSTRIPE_ABI_VERSION : rnd();
		break;
	}
	case 1: {
		struct mqstripe_create *c = buf;
		static const uint32_t chunks[] = { 0, 4096, 8192, 65536,
						   512 << 10, 16 << 20 };
		uint32_t nr;

		*c = (struct mqstripe_create){ .hdr = HDR(*c) };
		*wide = nwide && chance(3);
		if (*wide)
			nr = chance(50) ? 1 + rndn(nwide) :
			     MQSTRIPE_MAX_MEMBERS + rndn(3) - 1;
		else
			nr = 1 + rndn(nreal ? nreal : 4);
		c->nr_members = nr;
		c->queue_depth = chance(70) ? 0 : 1 + rndn(chance(90) ? 256 : 4096);
		c->chunk_bytes = chunks[rndn(6)];
		if (*wide) {
			/* tiny members: no data offset, small chunks */
			c->hdr.flags |= MQSTRIPE_CREATE_F_DATA_OFFSET |
					MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
			c->chunk_bytes = 4096;
			c->queue_depth = 4;
		} else if (chance(20)) {
			c->hdr.flags |= MQSTRIPE_CREATE_F_DATA_OFFSET;
			c->data_offset_bytes = rndn(3) * 4096;
			if (chance(50))
				c->hdr.flags |= MQSTRIPE_CREATE_F_NO_SUPERBLOCK;
		}
		if (chance(20)) {
			c->hdr.flags |= MQSTRIPE_CREATE_F_UUID;
			memset(c->uuid, rndn(4), sizeof(c->uuid));
		}
		rnd_name(c->name, sane_members || chance(50));
		*nr_out = nr;
		*fd_arr = &c->members_ptr;
		break;
	}
	case 2: {
		struct mqstripe_remove *r = buf;

		*r = (struct mqstripe_remove){ .hdr = HDR(*r) };
		r->index = W->nlive && chance(50) ? W->live[rndn(W->nlive)] :
			   chance(90) ? rndn(16) : rnd();
		break;
	}
	case 3: {
		struct mqstripe_info *in = buf;

		*in = (struct mqstripe_info){ .hdr = HDR(*in) };
		in->index = W->nlive && chance(50) ? W->live[rndn(W->nlive)] :
			    chance(90) ? rndn(16) : rnd();
		in->members_cap = chance(30) ? 0 : rndn(300);
		*fd_arr = &in->members_ptr;
		*nr_out = in->members_cap;
		break;
	}
	case 4: {
		struct mqstripe_list *l = buf;

		*l = (struct mqstripe_list){ .hdr = HDR(*l) };
		l->indexes_cap = chance(30) ? 0 : chance(90) ? rndn(64) : rnd();
		*fd_arr = &l->indexes_ptr;
		*nr_out = l->indexes_cap;
		break;
	}
	}
}

/* apply one random mutation to a struct of @size bytes */
static void mutate(void *buf, size_t size)
{
	struct mqstripe_ioctl_hdr *h = buf;
	unsigned char *b = buf;
	uint64_t v;
	size_t off;

	switch (rndn(9)) {
	case 0:
		h->version = chance(50) ? interesting64() : MQSTRIPE_ABI_VERSION + 1;
		break;
	case 1: {
		static const uint32_t s[] = {
			0, 16, sizeof(struct mqstripe_version),
			sizeof(struct mqstripe_create), sizeof(struct mqstripe_info),
			sizeof(struct mqstripe_remove), sizeof(struct mqstripe_list),
		};

		h->size = chance(50) ? s[rndn(7)] : (uint32_t)size + rndn(3) - 1;
		break;
	}
	case 2:
		h->flags = chance(50) ? 1U << rndn(32) : (uint32_t)rnd();
		break;
	case 3:
		h->reserved = 1U << rndn(32);
		break;
	case 4:		/* a random 4- or 8-byte field to an interesting value */
		v = interesting64();
		off = 16 + rndn((size - 16) / 4) * 4;
		if (off + 8 <= size && chance(50))
			memcpy(b + off, &v, 8);
		else
			memcpy(b + off, &v, 4);
		break;
	case 5:		/* a random bit */
		off = rndn(size);
		b[off] ^= 1 << rndn(8);
		break;
	case 6:		/* a random byte */
		b[16 + rndn(size - 16)] = rnd();
		break;
	case 7:		/* the last 8 bytes: reserved[] of every struct */
		b[size - 1 - rndn(8)] = 1 + rndn(255);
		break;
	default:	/* a run of 0xff or 0xaa */
		off = rndn(size);
		memset(b + off, chance(50) ? 0xff : 0xaa,
		       1 + rndn(size - off));
		break;
	}
}

/* a command number of the driver's type with random nr, dir and size */
static unsigned long type_random_cmd(void)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	unsigned int size = chance(50) ? cmd_sizes[rndn(NR_VALID)] + rndn(3) - 1 :
			    rndn(1 << _IOC_SIZEBITS);

	return _IOC(dirs[rndn(4)], MQSTRIPE_IOC_MAGIC,
		    chance(50) ? rndn(8) : rndn(256), size);
}

/* a valid command's number with another size or direction */
static unsigned long bad_size_cmd(int vi)
{
	unsigned long c = valid_cmds[vi];
	unsigned int dir = _IOC_DIR(c), size = _IOC_SIZE(c);

	if (chance(50))
		dir = rndn(4);
	if (chance(70) || dir == _IOC_DIR(c))
		size = chance(50) ? cmd_sizes[rndn(NR_VALID)] + rndn(3) - 1 :
		       rndn(1 << _IOC_SIZEBITS);
	c = _IOC(dir, _IOC_TYPE(c), _IOC_NR(c), size);
	if (c == valid_cmds[vi])
		c ^= 1UL << _IOC_SIZESHIFT;
	return c;
}

static unsigned long random_cmd(void)
{
	unsigned long c;

	do {
		c = (uint32_t)rnd();
	} while (vfs_type(c) || valid_index(c) < NR_VALID);
	return c;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* keep @fd of /dev/mqstripe@idx open for stacking (a later create) */
static void hold_array(uint32_t idx)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/" MQSTRIPE_DISK_PREFIX "%u", idx);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (W->arr_fd[1] >= 0)
		close(W->arr_fd[1]);
	W->arr_fd[1] = W->arr_fd[0];
	W->arr_fd[0] = fd;
}

/* check what a CREATE wrote back (its struct was in a writable place) */
/*
 * @fds: the @nfds fds we placed for the kernel (readable where it read
 * them).  A mutated nr_members can make the kernel read past them, into
 * memory we did not fill: a member at or beyond @nfds has no fd to check.
 */
static void check_create_result(const struct mqstripe_create *in,
				const struct mqstripe_create *out, int e,
				const int32_t *fds, unsigned int nfds,
				bool fds_readable)
{
	static const struct { int e; uint32_t code; } map[] = {
		{ EBADF, MQSTRIPE_ERR_BAD_FD }, { ENOTBLK, MQSTRIPE_ERR_NOT_BLOCK },
		{ EBUSY, MQSTRIPE_ERR_BUSY }, { ENOSPC, MQSTRIPE_ERR_TOO_SMALL },
	};
	unsigned int i;

	if (e == 0) {
		if (out->error_code != MQSTRIPE_ERR_NONE ||
		    out->error_member != MQSTRIPE_NO_MEMBER ||
		    out->hdr.version != MQSTRIPE_ABI_VERSION ||
		    out->index >= (1U << 20) >> 4)
			bad_call("CREATE succeeded with index %u error_code %u error_member %u version %u",
				 out->index, out->error_code, out->error_member,
				 out->hdr.version);
		return;
	}
	/* a header refused early leaves the struct as it was */
	if (in->index || in->error_code || in->error_member)
		return;
	if (out->error_code >= __MQSTRIPE_ERR_COUNT ||
	    (out->error_member != MQSTRIPE_NO_MEMBER && out->error_member != 0 &&
	     out->error_member >= in->nr_members)) {
		bad_call("CREATE %s: error_code %u error_member %u (nr_members %u)",
			 ktap_errname(e), out->error_code, out->error_member,
			 in->nr_members);
		return;
	}
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].e != e)
			continue;
		if (out->error_code != map[i].code ||
		    out->error_member >= in->nr_members)
			bad_call("CREATE %s: error_code %u error_member %u, expected code %u and a member",
				 ktap_errname(e), out->error_code, out->error_member,
				 map[i].code);
		else if (e == EBADF && fds_readable &&
			 out->error_member < nfds) {
			int32_t fd = fds[out->error_member];

			int fl = fd >= 0 && fd < 1024 && fd != CLOSED_FD ?
				 fcntl(fd, F_GETFL) : -1;

			/* fget() refuses O_PATH files: EBADF is right */
			if (fl != -1 && !(fl & O_PATH))
				bad_call("CREATE EBADF names member %u, fd %d, which is open",
					 out->error_member, fd);
		}
	}
	if (e == EEXIST && out->error_code != MQSTRIPE_ERR_NAME_EXISTS &&
	    out->error_code != MQSTRIPE_ERR_UUID_EXISTS)
		bad_call("CREATE EEXIST: error_code %u", out->error_code);
}

static void check_info_result(const struct mqstripe_info *o)
{
	if (o->nr_members < MQSTRIPE_MIN_MEMBERS ||
	    o->nr_members > MQSTRIPE_MAX_MEMBERS ||
	    o->chunk_bytes < MQSTRIPE_MIN_CHUNK_BYTES ||
	    o->chunk_bytes > MQSTRIPE_MAX_CHUNK_BYTES ||
	    (o->chunk_bytes & (o->chunk_bytes - 1)) ||
	    o->capacity_bytes != o->member_data_bytes * o->nr_members ||
	    o->queue_depth < MQSTRIPE_MIN_QUEUE_DEPTH ||
	    o->queue_depth > MQSTRIPE_MAX_QUEUE_DEPTH || !o->nr_hw_queues ||
	    o->state > MQSTRIPE_STATE_FAILED ||
	    o->hdr.version != MQSTRIPE_ABI_VERSION ||
	    memchr(o->name, 0, sizeof(o->name)) == NULL)
		bad_call("INFO %u: nr_members %u chunk %llu capacity %llu member_data %llu depth %u hw %u state %u",
			 o->index, o->nr_members,
			 (unsigned long long)o->chunk_bytes,
			 (unsigned long long)o->capacity_bytes,
			 (unsigned long long)o->member_data_bytes,
			 o->queue_depth, o->nr_hw_queues, o->state);
}

static void fuzz_one(void)
{
	union {
		struct mqstripe_version v;
		struct mqstripe_create c;
		struct mqstripe_remove r;
		struct mqstripe_info i;
		struct mqstripe_list l;
		unsigned char raw[512];
	} in, out;
	int32_t fds[MAX_MEMBERS_TRY + 8];
	unsigned long cmd;
	unsigned int cls, nmut, k;
	int vi, e;
	bool wide, sane, fds_readable = false;
	unsigned int nfds = 0;
	void *fd_arr, *argp;
	uint32_t nr;
	enum place pl = PL_NORMAL, apl = PL_NORMAL;
	uint64_t uptr_placed = 0, t0, t1;
	size_t size;

	memset(&in, 0, sizeof(in));
	vi = rndn(NR_VALID);
	/* creates are slow (add_disk): fewer of them */
	cls = rndn(100);
	/*
	 * A create that gets far holds the control mutex through add_disk,
	 * which blocks every other worker's INFO, LIST and REMOVE: after a
	 * successful one, no sane create for 8 x as long as it took (at least
	 * 500 ms), so creates take a bounded share of the time on any kernel
	 * (the debug kernel's creates are slow).
	 */
	if (vi == 1 && (chance(50) || now_ms() < W->next_create_ms))
		vi = 3;
	if (W->nlive > LIVE_MAX - 1 && chance(30))
		cls = 100;
	if (cls < 45) {
		cls = 0;
		cmd = valid_cmds[vi];
	} else if (cls < 60) {
		cls = 1;
		cmd = valid_cmds[vi];
	} else if (cls < 72) {
		cls = 2;
		cmd = type_random_cmd();
	} else if (cls < 85) {
		cls = 3;
		cmd = bad_size_cmd(vi);
	} else if (cls < 100) {
		cls = 4;
		cmd = random_cmd();
	} else {
		cls = 5;
		vi = 2;
		cmd = valid_cmds[2];
	}
	/* a random number may hit a valid command: give it its struct */
	k = valid_index(cmd);
	if (k < NR_VALID)
		vi = k;
	sane = cls == 1 || cls == 5;
	size = cmd_sizes[vi];
	sane_struct(vi, &in, sane, &wide, &fd_arr, &nr);
	if (cls == 5)
		in.r.index = W->live[rndn(W->nlive)];

	/* the member / index / member-info array */
	if (fd_arr) {
		uint64_t uptr;

		if (vi == 1) {
			if (!sane && chance(15))
				nr = in.c.nr_members = chance(50) ?
					MQSTRIPE_MAX_MEMBERS + rndn(MAX_MEMBERS_TRY - MQSTRIPE_MAX_MEMBERS + 1) :
					interesting64();
			k = nr < MAX_MEMBERS_TRY ? nr : MAX_MEMBERS_TRY;
			fill_fds(fds, k, sane || chance(40), wide);
			nfds = k;
			if (!sane && !wide && chance(10) && k >= 2)
				fds[1 + rndn(k - 1)] = fds[0];	/* duplicate */
			apl = sane ? PL_NORMAL : pick_place();
			uptr = (uintptr_t)place_obj(&W->areg, apl, fds, k * 4);
			fds_readable = apl == PL_NORMAL || apl == PL_FLUSH ||
				       apl == PL_RO;
		} else {
			/* output buffers: INFO members, LIST indexes */
			size_t bytes = vi == 3 ? 64 : 4;
			unsigned char fill[4096];
			size_t need = (size_t)nr * bytes;

			if (need > (size_t)page_size)
				need = page_size;
			memset(fill, 0xaa, need);
			apl = sane ? PL_NORMAL : pick_place();
			uptr = (uintptr_t)place_obj(&W->areg, apl, fill, need);
		}
		memcpy(fd_arr, &uptr, sizeof(uptr));
		uptr_placed = uptr;
	}

	/* the excl fd: take a real member O_EXCL for this call, sometimes */
	if (!sane && nreal && chance(5) && W->excl_fd < 0)
		W->excl_fd = open(real_path[rndn(nreal)],
				  O_RDONLY | O_EXCL | O_CLOEXEC);

	nmut = cls == 0 ? 1 + rndn(3) : 0;
	for (k = 0; k < nmut; k++)
		mutate(&in, size);
	if (fd_arr && memcmp(fd_arr, &uptr_placed, sizeof(uptr_placed))) {
		uint64_t p;

		/* the kernel reads another fd array than ours */
		fds_readable = false;
		/*
		 * A flipped bit can point the kernel's output (INFO members,
		 * LIST indexes) at our own memory: keep such pointers out of
		 * the user half, or in the unmapped page.
		 */
		memcpy(&p, fd_arr, sizeof(p));
		if (vi != 1 && p >= 4096 && p < (1ULL << 47)) {
			p = (uintptr_t)W->areg.base + 2 * page_size +
			    rndn(page_size);
			memcpy(fd_arr, &p, sizeof(p));
		}
	}

	if (cls != 1 && cls != 5)
		pl = pick_place();
	argp = place_obj(&W->sreg, pl, &in, size);

	t0 = vi == 1 ? now_ms() : 0;
	e = xioctl(cmd, argp);
	if (vi == 1 && !e) {
		t1 = now_ms();
		W->next_create_ms = t1 + (8 * (t1 - t0) > 500 ? 8 * (t1 - t0) : 500);
	}
	__atomic_fetch_add(&st->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->by_class[cls], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&st->hist[e < NR_ERRNO ? e : NR_ERRNO], 1,
			   __ATOMIC_RELAXED);
	if (!e)
		__atomic_fetch_add(&st->succeeded, 1, __ATOMIC_RELAXED);

	if (W->excl_fd >= 0 && chance(50)) {
		close(W->excl_fd);
		W->excl_fd = -1;
	}

	if (e == 1000) {
		bad_call("cmd %#lx returned neither 0 nor -1", cmd);
		return;
	}
	if (_IOC_TYPE(cmd) == MQSTRIPE_IOC_MAGIC && e && !errno_documented(e)) {
		bad_call("cmd %#lx (%s, struct %s, array %s): undocumented %s",
			 cmd, class_names[cls], place_names[pl],
			 place_names[apl], ktap_errname(e));
		return;
	}
	if (valid_index(cmd) == NR_VALID) {
		if (e != ENOTTY)
			bad_call("unknown cmd %#lx: %s, expected ENOTTY", cmd,
				 ktap_errname(e));
		return;
	}
	if (pl != PL_NORMAL && pl != PL_FLUSH && pl != PL_RO &&
	    e != EFAULT && e != ENOTTY)
		bad_call("cmd %#lx with its struct %s: %s, expected EFAULT",
			 cmd, place_names[pl], ktap_errname(e));
	if (pl != PL_NORMAL && pl != PL_FLUSH) {
		/* a create whose result could not be written is gone */
		return;
	}
	memcpy(&out, argp, size);
	switch (vi) {
	case 1:
		check_create_result(&in.c, &out.c, e, fds, nfds,
				    fds_readable);
		if (!e) {
			__atomic_fetch_add(&st->creates_ok, 1, __ATOMIC_RELAXED);
			if (wide)
				__atomic_fetch_add(&st->creates_wide_ok, 1,
						   __ATOMIC_RELAXED);
			if (fds_readable) {
				for (k = 0; k < in.c.nr_members && k < nfds; k++)
					if (fds[k] == W->arr_fd[0] ||
					    fds[k] == W->arr_fd[1])
						break;
				if (k < in.c.nr_members && k < nfds)
					__atomic_fetch_add(&st->stacked_ok, 1,
							   __ATOMIC_RELAXED);
			}
			live_add(out.c.index);
			if (chance(15))
				hold_array(out.c.index);
		}
		break;
	case 2:
		if (!e) {
			__atomic_fetch_add(&st->removes_ok, 1, __ATOMIC_RELAXED);
			live_del(in.r.index);
		} else if (e == ENODEV) {
			live_del(in.r.index);
		} else if (e == EBUSY && (cls == 5 || chance(20))) {
			/* let it go: ours keep it open, or it is a member */
			for (k = 0; k < 2; k++)
				if (W->arr_fd[k] >= 0 && (cls == 5 || k == 1)) {
					close(W->arr_fd[k]);
					W->arr_fd[k] = -1;
				}
		}
		break;
	case 3:
		if (!e)
			check_info_result(&out.i);
		break;
	case 4:
		if (!e && (out.l.count > (1U << 20) >> 4 ||
			   out.l.hdr.version != MQSTRIPE_ABI_VERSION))
			bad_call("LIST: count %u version %u", out.l.count,
				 out.l.hdr.version);
		break;
	}
}

static void worker_main(int id, uint64_t seed, uint64_t end_ms,
			uint64_t hard_end_ms, uint64_t min_calls)
{
	struct worker w = { .id = id, .arr_fd = { -1, -1 }, .excl_fd = -1 };
	unsigned int n = 0;

	W = &w;
	rnd_state = seed;
	region_init(&w.sreg);
	region_init(&w.areg);
	for (;;) {
		fuzz_one();
		if ((++n & 63) == 0) {
			uint64_t t = now_ms();

			if (st->stop || t >= hard_end_ms)
				break;
			if (t >= end_ms &&
			    __atomic_load_n(&st->calls, __ATOMIC_RELAXED) >= min_calls)
				break;
		}
	}
	if (w.arr_fd[0] >= 0)
		close(w.arr_fd[0]);
	if (w.arr_fd[1] >= 0)
		close(w.arr_fd[1]);
	if (w.excl_fd >= 0)
		close(w.excl_fd);
	_exit(0);
}

/* ------------------------------------------------- list, remove */

/* indexes of the arrays that exist; returns the count or -errno */
static int list_arrays(uint32_t *idx, uint32_t cap)
{
	struct mqstripe_list l = { .hdr = HDR(l) };
	int e;

	l.indexes_cap = cap;
	l.indexes_ptr = (uintptr_t)idx;
	e = xioctl(MQSTRIPE_IOC_LIST, &l);
	return e ? -e : (int)l.count;
}

static int remove_array(uint32_t index)
{
	struct mqstripe_remove r = { .hdr = HDR(r), .index = index };

	return xioctl(MQSTRIPE_IOC_REMOVE, &r);
}

/* remove every array; stacked ones go top first, so retry until none */
static int remove_all(int *removed)
{
	static uint32_t idx[4096];
	int round, n, i, last = -1;

	*removed = 0;
	for (round = 0; round < 300; round++) {
		n = list_arrays(idx, 4096);
		if (n <= 0)
			return n;
		for (i = n - 1; i >= 0 && i < 4096; i--)
			if (!remove_array(idx[i]))
				(*removed)++;
		if (n == last)
			usleep(100000);	/* something still holds one */
		last = n;
	}
	return list_arrays(idx, 4096);
}

static bool claimable(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
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
	union {
		struct mqstripe_version v;
		struct mqstripe_create c;
		struct mqstripe_remove r;
		struct mqstripe_info i;
		struct mqstripe_list l;
		unsigned char raw[512];
	} u;
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

	/* the five commands with valid arguments */
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
	     all_bytes(in.reserved, 0, sizeof(in.reserved)) &&
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
		      all_bytes(mi[i].reserved, 0, sizeof(mi[i].reserved)) &&
		      !fstat(fds[i], &sb) && mi[i].major == major(sb.st_rdev) &&
		      mi[i].minor == minor(sb.st_rdev);
	}
	for (i = 2; i < MAX_REAL + 2; i++)
		ok &= all_bytes(&mi[i], 0xaa, sizeof(mi[i]));
	ktap_result(ok, "INFO members over 0xAA: 2 entries fully written (reserved 0), the rest untouched");

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

static int count_arrays(void)
{
	uint32_t idx[1];

	return list_arrays(idx, 0);
}

static void phase_edges(void)
{
	struct region r;
	struct mqstripe_create c, *pc;
	static int32_t fds[MAX_MEMBERS_TRY];
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
	munmap(r.base, 2 * page_size);
	munmap(r.base + 3 * page_size, page_size);
}

/* -------------------------------------------------------- main */

static int read_list(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[256];

	if (!f)
		return -1;
	while (nwide < MAX_WIDE && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		wide_path[nwide] = strdup(line);
		wide_fd[nwide] = open(line, O_RDONLY | O_CLOEXEC);
		if (wide_fd[nwide] < 0) {
			printf("not ok 1 open %s: %s\n", line, strerror(errno));
			exit(1);
		}
		nwide++;
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 0, min_calls = 100000, start, end, hard_end, t;
	unsigned int secs = 30, workers = 0, i;
	const char *wide_file = NULL;
	pid_t pids[64];
	int opt, removed, left, rc, status;
	bool have_seed = false, died = false;

	page_size = sysconf(_SC_PAGESIZE);
	while ((opt = getopt(argc, argv, "s:t:n:j:w:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 't': secs = strtoul(optarg, NULL, 0); break;
		case 'n': min_calls = strtoull(optarg, NULL, 0); break;
		case 'j': workers = strtoul(optarg, NULL, 0); break;
		case 'w': wide_file = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-s SEED] [-t SECS] [-n MIN_CALLS] [-j WORKERS] [-w LIST] MEMBER...\n",
				argv[0]);
			return 2;
		}
	}
	if (!have_seed)
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!workers)
		workers = sysconf(_SC_NPROCESSORS_ONLN);
	if (workers > 64)
		workers = 64;
	if (!secs)
		secs = 1;
	ktap_diag("seed %" PRIu64 " (repeat with -s %" PRIu64 "), budget %u s, at least %" PRIu64 " calls, %u workers",
		  seed, seed, secs, min_calls, workers);
	rnd_state = seed;

	for (i = optind; i < (unsigned int)argc && nreal < MAX_REAL; i++) {
		real_path[nreal] = argv[i];
		real_fd[nreal] = open(argv[i], O_RDWR | O_CLOEXEC);
		if (real_fd[nreal] < 0) {
			printf("not ok 1 open %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		nreal++;
	}
	if (wide_file && read_list(wide_file)) {
		printf("not ok 1 read %s: %s\n", wide_file, strerror(errno));
		return 1;
	}
	ctl = open(CTL_PATH, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("not ok 1 open %s: %s\n", CTL_PATH, strerror(errno));
		return 1;
	}
	left = count_arrays();
	if (left != 0) {
		/* REMOVE is fuzzed: never touch arrays that are not ours */
		printf("not ok 1 no array exists before fuzzing # LIST: %d\n", left);
		return 1;
	}
	build_pool();

	phase_access();
	phase_output();
	phase_edges();

	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(st, 0, sizeof(*st));
	start = now_ms();
	end = start + secs * 1000ULL;
	hard_end = start + secs * 3000ULL;
	fflush(stdout);
	for (i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker_main(i, seed + 0x1000193ULL * (i + 1), end,
				    hard_end, min_calls);
		if (pids[i] < 0) {
			perror("fork");
			return 2;
		}
	}
	/* a worker that never ends is stuck in the kernel: report it */
	for (i = 0; i < workers; i++) {
		for (;;) {
			pid_t p = waitpid(pids[i], &status, WNOHANG);

			if (p == pids[i])
				break;
			t = now_ms();
			if (t > hard_end + 60000) {
				ktap_result(false, "fuzz worker %u finished # still running %" PRIu64 " s after the budget (stuck in the kernel?)",
					    i, (t - end) / 1000);
				st->stop = 1;
				died = true;
				goto report;
			}
			usleep(50000);
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			died = true;
			ktap_result(false, "fuzz worker %u exited normally # status %#x%s",
				    i, status, WIFSIGNALED(status) ? " (killed by a signal)" : "");
		}
	}
report:
	t = now_ms();
	ktap_diag("%" PRIu64 " calls in %.1f s (%" PRIu64 " succeeded): creates %" PRIu64 " (with %u+ members: %" PRIu64 ", stacked on an array: %" PRIu64 "), removes %" PRIu64,
		  st->calls, (t - start) / 1000.0, st->succeeded, st->creates_ok,
		  MQSTRIPE_MAX_MEMBERS / 4, st->creates_wide_ok, st->stacked_ok,
		  st->removes_ok);
	for (i = 0; i < sizeof(class_names) / sizeof(class_names[0]); i++)
		ktap_diag("class %-18s %" PRIu64 " calls", class_names[i], st->by_class[i]);
	for (i = 0; i <= NR_ERRNO; i++)
		if (st->hist[i])
			ktap_diag("errno %-12s %" PRIu64, i == NR_ERRNO ? "other" : ktap_errname(i),
				  st->hist[i]);
	for (i = 0; i < st->nmsg && i < NR_BADMSG; i++)
		ktap_diag("bad call: %s", st->msg[i]);
	ktap_result(!died && st->calls >= min_calls, "at least %" PRIu64 " fuzz calls # %" PRIu64,
		    min_calls, st->calls);
	ktap_result(st->bad == 0, "every call returned 0 or -1 with a documented errno and consistent results # %" PRIu64 " bad",
		    st->bad);
	ktap_result(st->creates_ok > 0, "the fuzzer created arrays (deep paths reached) # %" PRIu64,
		    st->creates_ok);
	if (st->stop)
		return 1;	/* a worker is stuck in the kernel: no cleanup */

	left = remove_all(&removed);
	ktap_result(left == 0, "every array left by the fuzzer removed (LIST, REMOVE) # removed %d, left %d",
		    removed, left);
	rc = 0;
	for (i = 0; i < (unsigned int)nreal; i++)
		if (!claimable(real_path[i])) {
			rc++;
			ktap_diag("%s: O_EXCL open: %s", real_path[i], strerror(errno));
		}
	for (i = 0; i < (unsigned int)nwide; i++)
		if (!claimable(wide_path[i])) {
			rc++;
			ktap_diag("%s: O_EXCL open: %s", wide_path[i], strerror(errno));
		}
	ktap_result(rc == 0, "every member claimable again (O_EXCL open) # %d of %d busy",
		    rc, nreal + nwide);
	return ktap_finish();
}
