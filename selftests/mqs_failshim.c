// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_failshim.so - LD_PRELOAD shim of test_21_failslab.sh
 *
 * Marks the calling thread for fault injection (/proc/thread-self/
 * make-it-fail = 1) for the duration of each MQSTRIPE_IOC_CREATE that
 * stripectl issues, so that FAILSLAB with task-filter=Y fails slab
 * allocations of the module's create path, not of the program's exec and
 * start-up (which would end it long before it reaches the ioctl).
 * MQS_FAILSHIM_ALL=1 marks every ioctl of the process instead.
 *
 * MQS_FAILSHIM_NTH=N: instead of make-it-fail, write N to /proc/thread-self/
 * fail-nth before the CREATE, so that exactly its N-th fault-injection
 * point fails (a systematic walk over the create path); afterwards write
 * "injected" or "not-injected" (the ioctl has fewer than N points) to the
 * file MQS_FAILSHIM_REPORT.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mqstripe.h"

static void make_it_fail(int fd, int on)
{
	if (fd >= 0 && pwrite(fd, on ? "1" : "0", 1, 0) != 1)
		_exit(99);	/* the test would not test what it says */
}

static int nth_ioctl(int (*real)(int, unsigned long, ...), int fd,
		     unsigned long req, void *arg)
{
	const char *nth = getenv("MQS_FAILSHIM_NTH");
	const char *report = getenv("MQS_FAILSHIM_REPORT");
	char left[32] = "";
	int nfd, rfd, r, e;
	ssize_t n;

	nfd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nfd < 0)
		_exit(98);
	if (pwrite(nfd, nth, strlen(nth), 0) != (ssize_t)strlen(nth))
		_exit(99);
	r = real(fd, req, arg);
	e = errno;
	n = pread(nfd, left, sizeof(left) - 1, 0);
	/* 0 left: the N-th point was reached and failed */
	if (n > 0 && atoi(left) != 0) {
		if (pwrite(nfd, "0", 1, 0) != 1)
			_exit(99);
	}
	close(nfd);
	if (report) {
		rfd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (rfd >= 0) {
			const char *msg = n > 0 && atoi(left) == 0 ?
					  "injected\n" : "not-injected\n";

			if (write(rfd, msg, strlen(msg)) < 0)
				_exit(99);
			close(rfd);
		}
	}
	errno = e;
	return r;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *all = getenv("MQS_FAILSHIM_ALL");
	int mfd, r, e;
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (req != MQSTRIPE_IOC_CREATE && !(all && *all == '1'))
		return real(fd, req, arg);
	if (req == MQSTRIPE_IOC_CREATE && getenv("MQS_FAILSHIM_NTH"))
		return nth_ioctl(real, fd, req, arg);
	/* opened before the mark: the open itself must not fail */
	mfd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (mfd < 0)
		_exit(98);
	make_it_fail(mfd, 1);
	r = real(fd, req, arg);
	e = errno;
	make_it_fail(mfd, 0);
	close(mfd);
	errno = e;
	return r;
}
