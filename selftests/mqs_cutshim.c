// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_cutshim.so - LD_PRELOAD shim of persist/test_04_cut.sh
 *
 * MQS_CUT_AFTER=N: stripectl writes every superblock copy as one pwrite()
 * of 4096 bytes at byte 4096 or 8192 of a member (O_DIRECT), then makes it
 * durable with fsync() (tools/stripectl/devio.c).  The shim counts those writes;
 * after the N-th it lets stripectl's own fsync() of that member run and
 * then stops the process (SIGSTOP) before it does anything more.  The
 * test then makes every member drop its writes (dm-flakey drop_writes),
 * kills the process and brings the members back: nothing after write N
 * reached them, as after a power cut right after write N.
 *
 * MQS_CUT_REPORT=FILE: the shim writes there where it stopped: "fsync"
 * (after the fsync() that followed write N, as it should be), "write"
 * (stripectl went on to the next superblock write without an fsync()) or
 * "exit" (it ended without one), so that the test can require "fsync".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SB_OFFSET	4096	/* the first copy; the second follows it */
#define SB_SIZE		4096

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off64_t);
typedef int (*sync_fn)(int);

static unsigned long writes;
static int pending = -1;	/* the descriptor of write N, until its fsync */

static void *real(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);

	if (!f)
		_exit(98);
	return f;
}

/* the power fails here */
static void cut(const char *where)
{
	const char *report = getenv("MQS_CUT_REPORT");
	int fd;

	pending = -1;
	if (report) {
		fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, where, strlen(where)) < 0)
			_exit(99);
		close(fd);
	}
	raise(SIGSTOP);
	_exit(137);	/* continued instead of killed: still no more */
}

static bool is_sb(size_t len, off64_t off)
{
	return len == SB_SIZE &&
	       (off == SB_OFFSET || off == SB_OFFSET + SB_SIZE);
}

static ssize_t cut_write(const char *sym, int fd, const void *buf,
			 size_t len, off64_t off)
{
	const char *n = getenv("MQS_CUT_AFTER");
	ssize_t done;

	if (pending >= 0 && is_sb(len, off))
		cut("write");
	done = ((pwrite_fn)real(sym))(fd, buf, len, off);
	if (n && is_sb(len, off) && done == SB_SIZE &&
	    ++writes == strtoul(n, NULL, 10))
		pending = fd;
	return done;
}

static int cut_sync(const char *sym, int fd)
{
	int rc = ((sync_fn)real(sym))(fd);

	if (pending >= 0 && fd == pending && !rc)
		cut("fsync");
	return rc;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
	return cut_write("pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
	return cut_write("pwrite64", fd, buf, len, off);
}

int fsync(int fd)
{
	return cut_sync("fsync", fd);
}

int fdatasync(int fd)
{
	return cut_sync("fdatasync", fd);
}

__attribute__((destructor)) static void cut_at_exit(void)
{
	if (pending >= 0)
		cut("exit");
}
