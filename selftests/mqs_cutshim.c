// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_cutshim.so - LD_PRELOAD shim of persist/test_04_cut.sh
 *
 * MQS_CUT_AFTER=N: stripectl writes every superblock as one pwrite() of
 * 4096 bytes at byte 4096 of a member (O_DIRECT, fsync() after: see
 * tools/stripectl/devio.c).  On the N-th such write the shim lets the
 * write happen, makes it durable (fsync()) and stops the process
 * (SIGSTOP) before it does anything more.  The test then makes every
 * member drop its writes (dm-flakey drop_writes), kills the process and
 * brings the members back: nothing after write N reached them, as after
 * a power cut right after write N.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#define SB_OFFSET	4096
#define SB_SIZE		4096

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);

static ssize_t cut_write(const char *sym, int fd, const void *buf,
			 size_t len, off_t off)
{
	static unsigned long writes;
	const char *cut = getenv("MQS_CUT_AFTER");
	pwrite_fn real = (pwrite_fn)dlsym(RTLD_NEXT, sym);
	ssize_t n;

	if (!real)
		_exit(98);
	n = real(fd, buf, len, off);
	if (cut && len == SB_SIZE && off == SB_OFFSET && n == SB_SIZE &&
	    ++writes >= strtoul(cut, NULL, 10)) {
		if (fsync(fd))
			_exit(99);	/* the write is not known durable */
		raise(SIGSTOP);
		_exit(137);	/* continued instead of killed: still no more */
	}
	return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return cut_write("pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return cut_write("pwrite64", fd, buf, len, off);
}
