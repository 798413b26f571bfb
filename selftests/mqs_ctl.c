// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_ctl - what the control-ABI test programs share: see mqs_ctl.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "mqs_ctl.h"

long page_size;

/* ------------------------------------------------------- random */

uint64_t rnd_state;

uint64_t rnd(void)
{
	/* splitmix64: small, good enough, reproducible from the seed */
	uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t rndn(uint32_t n)
{
	return n ? rnd() % n : 0;
}

bool chance(unsigned int percent)
{
	return rndn(100) < percent;
}

/* ---------------------------------------------------- the device */

int ctl = -1;

int ctl_open(void)
{
	if (!page_size)
		page_size = sysconf(_SC_PAGESIZE);
	ctl = open(CTL_PATH, O_RDWR | O_CLOEXEC);
	return ctl < 0 ? -1 : 0;
}

int xioctl(unsigned long cmd, void *arg)
{
	long r = ioctl(ctl, cmd, arg);

	if (r == 0)
		return 0;
	if (r == -1)
		return errno;
	return 1000;
}

/* ---------------------------------------------- command numbers */

const unsigned long valid_cmds[NR_VALID] = {
	MQSTRIPE_IOC_GET_VERSION, MQSTRIPE_IOC_CREATE, MQSTRIPE_IOC_REMOVE,
	MQSTRIPE_IOC_INFO, MQSTRIPE_IOC_LIST, MQSTRIPE_IOC_CLEAR,
	MQSTRIPE_IOC_RENAME, MQSTRIPE_IOC_RESIZE,
};

const size_t cmd_sizes[NR_VALID] = {
	sizeof(struct mqstripe_version), sizeof(struct mqstripe_create),
	sizeof(struct mqstripe_remove), sizeof(struct mqstripe_info),
	sizeof(struct mqstripe_list), sizeof(struct mqstripe_clear),
	sizeof(struct mqstripe_rename), sizeof(struct mqstripe_resize),
};

/* index of @cmd in valid_cmds, NR_VALID if it is not one */
unsigned int valid_index(unsigned long cmd)
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
bool vfs_type(unsigned long cmd)
{
	unsigned int t = _IOC_TYPE(cmd);

	return t == 0 || t == 0x15 || t == 'T' || t == 'X' || t == 'f' ||
	       t == 0x94;
}

/* a command number of the driver's type with random nr, dir and size */
unsigned long type_random_cmd(void)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	unsigned int size = chance(50) ? cmd_sizes[rndn(NR_VALID)] + rndn(3) - 1 :
			    rndn(1 << _IOC_SIZEBITS);

	return _IOC(dirs[rndn(4)], MQSTRIPE_IOC_MAGIC,
		    chance(50) ? rndn(8) : rndn(256), size);
}

/* a valid command's number with another size or direction */
unsigned long bad_size_cmd(int vi)
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

unsigned long random_cmd(void)
{
	unsigned long c;

	do {
		c = (uint32_t)rnd();
	} while (vfs_type(c) || valid_index(c) < NR_VALID);
	return c;
}

/* ------------------------------------------------- list, remove */

/* indexes of the arrays that exist; returns the count or -errno */
int list_arrays(uint32_t *idx, uint32_t cap)
{
	struct mqstripe_list l = { .hdr = HDR(l) };
	int e;

	l.indexes_cap = cap;
	l.indexes_ptr = (uintptr_t)idx;
	e = xioctl(MQSTRIPE_IOC_LIST, &l);
	return e ? -e : (int)l.count;
}

int remove_array(uint32_t index)
{
	struct mqstripe_remove r = { .hdr = HDR(r), .index = index };

	return xioctl(MQSTRIPE_IOC_REMOVE, &r);
}

/* remove every array; stacked ones go top first, so retry until none */
int remove_all(int *removed)
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

bool claimable(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int count_arrays(void)
{
	uint32_t idx[1];

	return list_arrays(idx, 0);
}

/* ------------------------------------------------------ members */

int real_fd[MAX_REAL], nreal;
const char *real_path[MAX_REAL];
int wide_fd[MAX_WIDE], nwide;
const char *wide_path[MAX_WIDE];

int open_members(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && nreal < MAX_REAL; i++) {
		real_path[nreal] = argv[i];
		real_fd[nreal] = open(argv[i], O_RDWR | O_CLOEXEC);
		if (real_fd[nreal] < 0) {
			printf("not ok 1 open %s: %s\n", argv[i], strerror(errno));
			return -1;
		}
		nreal++;
	}
	return 0;
}

int read_list(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[256];

	if (!f) {
		printf("not ok 1 read %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (nwide < MAX_WIDE && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		wide_path[nwide] = strdup(line);
		wide_fd[nwide] = open(line, O_RDONLY | O_CLOEXEC);
		if (wide_fd[nwide] < 0) {
			printf("not ok 1 open %s: %s\n", line, strerror(errno));
			fclose(f);
			return -1;
		}
		nwide++;
	}
	fclose(f);
	return 0;
}

int ctl_prepare(int argc, char **argv, const char *wide_file,
		const char *what)
{
	int left;

	if (open_members(argc, argv))
		return -1;
	if (wide_file && read_list(wide_file))
		return -1;
	left = count_arrays();
	if (left != 0) {
		printf("not ok 1 no array exists before %s # LIST: %d\n", what,
		       left);
		return -1;
	}
	return 0;
}

/* ---------------------------------------------- memory regions */

void region_init(struct region *r)
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

const char *const place_names[NR_PLACES] = {
	"normal", "flush-to-unmapped", "straddling", "read-only", "unmapped",
	"NULL", "kernel", "non-canonical", "low",
};

void region_free(struct region *r)
{
	munmap(r->base, 2 * page_size);
	munmap(r->base + 3 * page_size, page_size);
}

void *place_obj(struct region *r, enum place pl, const void *obj,
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
