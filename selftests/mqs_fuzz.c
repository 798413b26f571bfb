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
 * Phases, each printing KTAP "ok N ..." / "not ok N ..." lines (the
 * deterministic checks of the same ABI, access, output bytes and edges,
 * are mqs_ioctl's "boundaries"):
 *  1. fuzz: WORKERS processes send random and mutated ioctls (random
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
 *  2. cleanup: LIST, REMOVE every array (all must go), members claimable
 *     with O_EXCL again.
 * Exit 0 if every check passed, 1 otherwise, 2 on usage errors.
 */
#define _GNU_SOURCE
#include <errno.h>
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
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "mqstripe.h"
#include "mqs_ctl.h"
#include "ktap.h"

#define MAX_MEMBERS_TRY	300	/* beyond MQSTRIPE_MAX_MEMBERS */
#define MAX_POOL	64
#define NR_ERRNO	256
#define NR_BADMSG	16
#define CLOSED_FD	900	/* an fd number known to be closed */
#define LIVE_MAX	2	/* arrays a worker keeps before removing */

/* ------------------------------------------------------- random */

/* a value near a boundary, sometimes any */
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

/* errnos the ABI documents for its commands (ENXIO: a member's open) */
static bool errno_documented(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EBADF: case ENOTBLK:
	case EBUSY: case ENOSPC: case EEXIST: case ENOMEM: case ENODEV:
	case ENXIO: case EIO: case EROFS:
	case EOPNOTSUPP:	/* RESIZE of an array of zones */
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

/* where a fuzzed object goes: mostly a normal place */
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
		if (chance(15)) {
			/* each member's own size: zones, or sizes refused */
			static uint64_t sizes[MQSTRIPE_MAX_MEMBERS + 8];
			uint64_t ch = c->chunk_bytes ? c->chunk_bytes :
				      MQSTRIPE_DEFAULT_CHUNK_BYTES;
			uint32_t k;

			for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
				sizes[k] = chance(90) ? (1 + rndn(4)) * ch :
					   chance(50) ? 0 : rnd();
			c->hdr.flags |= MQSTRIPE_CREATE_F_MEMBER_SIZES;
			c->member_sizes_ptr = (uintptr_t)sizes;
			if (chance(40)) {
				/* segments: a valid split, or a random list */
				c->hdr.flags |= MQSTRIPE_CREATE_F_SEGMENTS;
				for (k = 0; k < MQSTRIPE_MAX_SEGMENTS; k++)
					c->segment_members[k] = chance(70) ?
						0 : rndn(nr + 2);
				if (nr >= 2 && chance(70)) {
					c->segment_members[0] = 1 + rndn(nr - 1);
					c->segment_members[1] = nr -
						c->segment_members[0];
					c->segment_members[2] = 0;
					c->segment_members[3] = 0;
				}
			}
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
	case 5: {
		struct mqstripe_clear *x = buf;

		*x = (struct mqstripe_clear){ .hdr = HDR(*x) };
		x->index = W->nlive && chance(50) ? W->live[rndn(W->nlive)] :
			   chance(90) ? rndn(16) : rnd();
		x->slot = chance(90) ? rndn(4) : rnd();
		break;
	}
	case 6: {
		struct mqstripe_rename *n = buf;

		*n = (struct mqstripe_rename){ .hdr = HDR(*n) };
		n->index = W->nlive && chance(50) ? W->live[rndn(W->nlive)] :
			   chance(90) ? rndn(16) : rnd();
		rnd_name(n->name, chance(70));
		break;
	}
	case 7: {
		struct mqstripe_resize *z = buf;

		*z = (struct mqstripe_resize){ .hdr = HDR(*z) };
		z->index = W->nlive && chance(50) ? W->live[rndn(W->nlive)] :
			   chance(90) ? rndn(16) : rnd();
		z->member_data_bytes = chance(50) ? (uint64_t)rndn(64) << 16 :
				       ((uint64_t)rnd() << 32) | rnd();
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
			sizeof(struct mqstripe_clear),
		};

		h->size = chance(50) ? s[rndn(sizeof(s) / sizeof(s[0]))] :
				       (uint32_t)size + rndn(3) - 1;
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
	__u64 seg_sum = 0;
	__u32 k;

	for (k = 0; k < MQSTRIPE_MAX_SEGMENTS; k++)
		seg_sum += k < o->nr_segments ? o->segment_members[k] :
			   o->segment_members[k] ? ~0ULL >> 1 : 0;
	if (o->nr_members < MQSTRIPE_MIN_MEMBERS ||
	    o->nr_members > MQSTRIPE_MAX_MEMBERS ||
	    o->chunk_bytes < MQSTRIPE_MIN_CHUNK_BYTES ||
	    o->chunk_bytes > MQSTRIPE_MAX_CHUNK_BYTES ||
	    (o->chunk_bytes & (o->chunk_bytes - 1)) ||
	    /*
	     * member_data_bytes is the first zone's: over the first
	     * segment's members (every member without segments); more with
	     * zones (members of unequal size) and with later segments
	     */
	    o->nr_segments < 1 || o->nr_segments > MQSTRIPE_MAX_SEGMENTS ||
	    seg_sum != o->nr_members ||
	    o->capacity_bytes < o->member_data_bytes * o->segment_members[0] ||
	    o->queue_depth < MQSTRIPE_MIN_QUEUE_DEPTH ||
	    o->queue_depth > MQSTRIPE_MAX_QUEUE_DEPTH || !o->nr_hw_queues ||
	    o->state > MQSTRIPE_STATE_FAILED ||
	    o->hdr.version != MQSTRIPE_ABI_VERSION ||
	    memchr(o->name, 0, sizeof(o->name)) == NULL)
		bad_call("INFO %u: nr_members %u segments %u (%u %u %u %u) chunk %llu capacity %llu member_data %llu depth %u hw %u state %u",
			 o->index, o->nr_members, o->nr_segments,
			 o->segment_members[0], o->segment_members[1],
			 o->segment_members[2], o->segment_members[3],
			 (unsigned long long)o->chunk_bytes,
			 (unsigned long long)o->capacity_bytes,
			 (unsigned long long)o->member_data_bytes,
			 o->queue_depth, o->nr_hw_queues, o->state);
}

static void fuzz_one(void)
{
	union mqs_any_cmd in, out;
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
	case 5:
		if (!e && out.x.state > MQSTRIPE_MEMBER_GONE)
			bad_call("CLEAR: state %u", out.x.state);
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

/* -------------------------------------------------------- main */

int main(int argc, char **argv)
{
	uint64_t seed = 0, min_calls = 100000, start, end, hard_end, t;
	unsigned int secs = 30, workers = 0, i;
	const char *wide_file = NULL;
	pid_t pids[64];
	int opt, removed, left, rc, status;
	bool have_seed = false, died = false;

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

	if (ctl_open()) {
		printf("not ok 1 open %s: %s\n", CTL_PATH, strerror(errno));
		return 1;
	}
	/* REMOVE is fuzzed: never with arrays that are not ours */
	if (ctl_prepare(argc - optind, argv + optind, wide_file, "fuzzing"))
		return 1;
	build_pool();

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
