// SPDX-License-Identifier: GPL-2.0
/*
 * What all commands share: the one-line error, opening the control device
 * with the right message, the names of states, the metadata lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "devio.h"
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
	char small[2 * MQS_ERR_LEN], *buf = NULL;
	va_list ap;

	/* whole, however long (a create command line naming every member) */
	va_start(ap, fmt);
	if (vasprintf(&buf, fmt, ap) < 0)
		buf = NULL;
	va_end(ap);
	if (!buf) {
		va_start(ap, fmt);
		vsnprintf(small, sizeof(small), fmt, ap);
		va_end(ap);
	}
	make_printable((unsigned char *)(buf ? buf : small));
	fflush(stdout);
	fprintf(stderr, "stripectl: %s\n", buf ? buf : small);
	free(buf);
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

/**
 * find_array_locked() - find_array_or_report() under the metadata lock
 * @ctl: as for find_array_or_report().
 * @arg: as for find_array_or_report().
 * @index: as for find_array_or_report().
 * @info: as for find_array_or_report().
 * @members: as for find_array_or_report().
 * @nr: as for find_array_or_report().
 * @lock: out: from mqs_meta_lock(false), for mqs_meta_unlock().
 *
 * The lock first: no other superblock writer (a stop, a record-fault, a
 * clear) between reading the members' states and writing.
 *
 * Return: MQS_EXIT_OK; or MQS_EXIT_FAIL (said) with nothing held.
 */
int find_array_locked(struct mqs_ctl *ctl, const char *arg, uint32_t *index,
		      struct mqstripe_info *info,
		      struct mqstripe_member_info **members, uint32_t *nr,
		      int *lock)
{
	*lock = mqs_meta_lock(false);
	if (*lock == -ETIMEDOUT)
		return MQS_EXIT_FAIL;
	if (find_array_or_report(ctl, arg, index, info, members, nr)) {
		mqs_meta_unlock(*lock);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
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

/**
 * member_label() - how messages name a running member: "PATH, MAJ:MIN"
 * @m: the member, as INFO reports it.
 * @buf: PATH is its node (mqs_find_node(): a dm map by its /dev/mapper
 *	name); "MAJ:MIN" alone when no node reaches it (a gone member's node
 *	goes with its disk).
 * @len: room at @buf.
 *
 * Return: @buf.
 */
const char *member_label(const struct mqstripe_member_info *m, char *buf,
			 size_t len)
{
	char path[PATH_MAX];

	if (!mqs_find_node(makedev(m->major, m->minor), path, sizeof(path)))
		snprintf(buf, len, "%s, %u:%u", path, m->major, m->minor);
	else
		snprintf(buf, len, "%u:%u", m->major, m->minor);
	return buf;
}

/*
 * A member the module reports faulty or gone: left behind in the
 * superblocks (stop, record-fault), as md leaves a failed disk.
 */
bool member_failed(const struct mqstripe_member_info *m)
{
	return m->state == MQSTRIPE_MEMBER_FAULTY ||
	       m->state == MQSTRIPE_MEMBER_GONE;
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

#define LOCK_TIMEOUT_DEFAULT	60	/* seconds */
#define LOCK_POLL_MS		100

/*
 * $MQSTRIPE_LOCK_TIMEOUT, else LOCK_TIMEOUT_DEFAULT: how many seconds a
 * command waits for the lock (0: not at all).  Below the start timeout
 * of a systemd unit (90 s by default) and udev's event timeout (180 s),
 * so that the boot's assembly says what holds it instead of being killed.
 */
static unsigned int lock_timeout(void)
{
	const char *s = getenv("MQSTRIPE_LOCK_TIMEOUT");
	char err[MQS_ERR_LEN];
	uint64_t v;

	if (!s || !*s)
		return LOCK_TIMEOUT_DEFAULT;
	if (mqs_parse_uint(s, 24 * 3600, &v, err, sizeof(err))) {
		mqs_error("warning: MQSTRIPE_LOCK_TIMEOUT: %s; waiting %u s",
			  err, LOCK_TIMEOUT_DEFAULT);
		return LOCK_TIMEOUT_DEFAULT;
	}
	return (unsigned int)v;
}

/* " (pid N)": the holder the lock file names, or "" */
static void lock_holder(int fd, char *buf, size_t len)
{
	char pid[16];
	ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
	long v;
	char *end;

	buf[0] = '\0';
	if (n <= 0)
		return;
	pid[n] = '\0';
	v = strtol(pid, &end, 10);
	/* not one that died holding it (the lock went with it) */
	if (v > 0 && v <= INT_MAX && (*end == '\n' || !*end) &&
	    (!kill((pid_t)v, 0) || errno == EPERM))
		snprintf(buf, len, " (pid %ld)", v);
}

/**
 * mqs_meta_lock() - take the lock every superblock writer holds
 * @need: the command cannot go on without it (assemble --incremental,
 *	which records members in the same directory).
 *
 * create, stop, rename, zero-superblock and every kind of assemble hold
 * it, flock() on RUN_DIR/lock, for as long as they read and write
 * superblocks and create or remove arrays: a member's uevent (udev runs
 * "assemble --incremental") cannot start an array between create's
 * superblock writes and its CREATE, or between stop's REMOVE and its
 * superblock update.  Taken once per command: a second flock() in the
 * same process would wait for the first.  The holder writes its pid in
 * the file, for the message of one that waits too long.
 *
 * A lock that cannot be opened (a read-only /run, no room): said on
 * stderr, naming the path and the reason; without @need the command goes
 * on without it, as mdadm goes on without its map lock (no other
 * stripectl can hold it either).  A lock held by another for longer than
 * lock_timeout(): said, naming the holder's pid; the command must give up
 * (going on would race the writer the lock is for).
 *
 * Return: a descriptor (close it to unlock); -ETIMEDOUT (said: give up);
 * else a negative errno (said; go on without the lock unless @need).
 */
int mqs_meta_lock(bool need)
{
	char path[PATH_MAX + 8], holder[32], pid[16];
	unsigned int timeout = lock_timeout();
	struct timespec start, now;
	int fd, err, n;

	snprintf(path, sizeof(path), "%s/lock", mqs_run_dir());
	if (mkdir(mqs_run_dir(), 0700) && errno != EEXIST) {
		err = errno;
		goto cannot;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		err = errno;
		goto cannot;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		err = errno;
		if (err == EINTR)
			continue;
		if (err != EWOULDBLOCK) {
			close(fd);
			goto cannot;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000LL +
		    (now.tv_nsec - start.tv_nsec) / 1000000 >=
		    timeout * 1000LL) {
			lock_holder(fd, holder, sizeof(holder));
			close(fd);
			mqs_error("%s is held by another stripectl%s for more than %u s (MQSTRIPE_LOCK_TIMEOUT): giving up; if that one hangs, find out why before you stop it",
				  path, holder, timeout);
			return -ETIMEDOUT;
		}
		mqs_sleep_ms(LOCK_POLL_MS);
	}
	/* for the message of one that waits too long: best effort */
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (!ftruncate(fd, 0))
		n = (int)pwrite(fd, pid, (size_t)n, 0);
	return fd;
cannot:
	if (need)
		mqs_error("cannot take the lock %s: %s", path, strerror(err));
	else
		mqs_error("warning: cannot take the lock %s: %s; going on without it (nothing keeps udev's 'assemble --incremental' from running meanwhile)",
			  path, strerror(err));
	return -err;
}

/* Drop the lock from mqs_meta_lock() (nothing when it was not taken). */
void mqs_meta_unlock(int fd)
{
	int unused;

	if (fd < 0)
		return;
	/* its pid no longer names the holder (best effort, as the write) */
	unused = ftruncate(fd, 0);
	(void)unused;
	close(fd);
}
