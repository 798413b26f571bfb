// SPDX-License-Identifier: GPL-2.0
/*
 * What all commands share: the one-line error, opening the control device
 * with the right message, the names of states, the metadata lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "errmsg.h"
#include "parse.h"
#include "stripectl.h"

/* Bytes of the UTF-8 sequence at @p, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (*p < 0x80)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, surrogates or code points above U+10FFFF */
	if (*p == 0xe0)
		lo = 0xa0;
	else if (*p == 0xed)
		hi = 0x9f;
	else if (*p == 0xf0)
		lo = 0x90;
	else if (*p == 0xf4)
		hi = 0x8f;
	for (i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (p[i] < lo || p[i] > hi)
			return 0;
	return n;
}

/*
 * Every byte that could move the cursor, end the line or start a terminal
 * sequence becomes '?': C0 controls and DEL, C1 controls (U+0080 to
 * U+009F), and each byte of what is not UTF-8 (a lone 0x9b is CSI to some
 * terminals).  UTF-8 text (a path with a non-ASCII name) stays.
 */
static void make_printable(unsigned char *p)
{
	size_t n;

	while (*p) {
		n = utf8_len(p);
		if (!n || (n == 1 && (*p < ' ' || *p == 0x7f)) ||
		    (n == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			memset(p, '?', n ? n : 1);
			n = n ? n : 1;
		}
		p += n;
	}
}

/**
 * mqs_error() - print "stripectl: MESSAGE" as exactly one line on stderr
 * @fmt: printf format of the message.
 *
 * Paths and names come from the admin or from a device and could hold a
 * newline, an escape sequence or bytes that are not UTF-8: such bytes
 * print as '?' (make_printable()), so the message stays one line for the
 * scripts that read it and cannot drive a terminal.
 */
void mqs_error(const char *fmt, ...)
{
	char buf[2 * MQS_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	make_printable((unsigned char *)buf);
	fflush(stdout);
	fprintf(stderr, "stripectl: %s\n", buf);
}

/* Open /dev/mqstripe-control; on failure print why and return exit 1. */
int ctl_open_or_report(struct mqs_ctl *ctl)
{
	char msg[MQS_ERR_LEN];
	int rc = mqs_ctl_open(ctl);

	if (!rc)
		return MQS_EXIT_OK;
	mqs_control_open_error(-rc, ctl->kernel_abi, msg, sizeof(msg));
	mqs_error("%s", msg);
	return MQS_EXIT_FAIL;
}

/*
 * Open the control and list the arrays (mqs_list()); on failure print why
 * (naming @what, the command), leave the control closed and return exit 1.
 */
int ctl_list_or_report(struct mqs_ctl *ctl, const char *what,
		       uint32_t **indexes, uint32_t *count)
{
	int rc = ctl_open_or_report(ctl);

	if (rc)
		return rc;
	rc = mqs_list(ctl, indexes, count);
	if (!rc)
		return MQS_EXIT_OK;
	report_ctl_error(what, rc, ctl->kernel_abi);
	mqs_ctl_close(ctl);
	return MQS_EXIT_FAIL;
}

/* An ioctl failed on @what (a device or "list"). */
void report_ctl_error(const char *what, int rc, uint32_t kernel_abi)
{
	char reason[MQS_ERR_LEN];

	mqs_ctl_reason(-rc, kernel_abi, reason, sizeof(reason));
	mqs_error("%s: %s", what, reason);
}

/* mqs_find_array() failed for what the admin typed */
void report_find_error(const char *arg, int rc, uint32_t kernel_abi)
{
	switch (rc) {
	case -ENODEV:
		mqs_error("%s: no such array: see 'stripectl list'", arg);
		return;
	case -ENOENT:
		mqs_error("%s does not exist: give /dev/mqstripeN, mqstripeN or the array name (see 'stripectl list')",
			  arg);
		return;
	case -ENOTBLK:
		mqs_error("%s: not a block device, so not an mqstripe array: see 'stripectl list'",
			  arg);
		return;
	}
	report_ctl_error(arg, rc, kernel_abi);
}

/**
 * find_array_or_report() - open the control device, find the array the
 *	admin named and read its members
 * @ctl: the control device; open on success, for the caller to close.
 * @arg: what the admin typed (see mqs_find_array()).
 * @index: N of the array.
 * @info: INFO of the array.
 * @members: set to an array of MQSTRIPE_MAX_MEMBERS for the caller to free.
 * @nr: how many of @members are filled.
 *
 * Return: MQS_EXIT_OK; or MQS_EXIT_FAIL with the reason printed, @ctl
 * closed and nothing to free.
 */
int find_array_or_report(struct mqs_ctl *ctl, const char *arg,
			 uint32_t *index, struct mqstripe_info *info,
			 struct mqstripe_member_info **members, uint32_t *nr)
{
	struct mqstripe_member_info *m;
	int rc = ctl_open_or_report(ctl);

	if (rc)
		return rc;
	rc = mqs_find_array(ctl, arg, index, info);
	if (rc)
		goto fail;
	m = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*m));
	if (!m) {
		mqs_error("out of memory");
		mqs_ctl_close(ctl);
		return MQS_EXIT_FAIL;
	}
	rc = mqs_info(ctl, *index, info, m, MQSTRIPE_MAX_MEMBERS);
	if (rc) {
		free(m);
		goto fail;
	}
	*members = m;
	*nr = info->nr_members < MQSTRIPE_MAX_MEMBERS ? info->nr_members :
							MQSTRIPE_MAX_MEMBERS;
	return MQS_EXIT_OK;
fail:
	report_find_error(arg, rc, ctl->kernel_abi);
	mqs_ctl_close(ctl);
	return MQS_EXIT_FAIL;
}

const char *array_state_name(uint32_t state)
{
	switch (state) {
	case MQSTRIPE_STATE_ACTIVE:
		return "active";
	case MQSTRIPE_STATE_FAILED:
		return "failed";
	}
	return "unknown";
}

const char *member_state_name(uint32_t state)
{
	switch (state) {
	case MQSTRIPE_MEMBER_OK:
		return "ok";
	case MQSTRIPE_MEMBER_FAULTY:
		return "faulty";
	case MQSTRIPE_MEMBER_GONE:
		return "gone";
	}
	return "unknown";
}

void mqs_sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000L,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#define RUN_DIR_DEFAULT	"/run/mqstripe"

/* $MQSTRIPE_RUN_DIR, else /run/mqstripe: the lock and incremental records */
const char *mqs_run_dir(void)
{
	const char *d = getenv("MQSTRIPE_RUN_DIR");

	return d && *d ? d : RUN_DIR_DEFAULT;
}

/**
 * mqs_meta_lock() - take the lock every superblock writer holds
 *
 * create, stop, zero-superblock and every kind of assemble hold it, flock()
 * on RUN_DIR/lock, for as long as they read and write superblocks and
 * create or remove arrays: a member's uevent (udev runs "assemble
 * --incremental") cannot start an array between create's superblock writes
 * and its CREATE, or between stop's REMOVE and its superblock update.
 * Taken once per command: a second flock() in the same process would wait
 * for the first.
 *
 * Return: a descriptor (close it to unlock), or a negative errno; callers
 * go on without the lock then (a read-only /run), as they did before it.
 */
int mqs_meta_lock(void)
{
	char path[PATH_MAX + 8];
	int fd;

	if (mkdir(mqs_run_dir(), 0700) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/lock", mqs_run_dir());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			int err = errno;

			close(fd);
			return -err;
		}
	}
	return fd;
}

/* Drop the lock from mqs_meta_lock() (nothing when it was not taken). */
void mqs_meta_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
