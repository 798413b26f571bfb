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
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "errmsg.h"
#include "parse.h"
#include "stripectl.h"

/**
 * mqs_error() - print "stripectl: MESSAGE" as exactly one line on stderr
 * @fmt: printf format of the message.
 *
 * Paths and names come from the admin and could hold a newline or an
 * escape sequence: such bytes print as '?', so the message stays one line
 * for the scripts that read it.
 */
void mqs_error(const char *fmt, ...)
{
	char buf[2 * MQS_ERR_LEN];
	unsigned char *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (p = (unsigned char *)buf; *p; p++)
		if (*p < ' ' || *p == 0x7f)
			*p = '?';
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

/* /dev/mqstripeN, the node of the array with index @index */
void mqs_array_node(uint32_t index, char *buf, size_t len)
{
	snprintf(buf, len, "/dev/%s%u", MQSTRIPE_DISK_PREFIX, index);
}
