// SPDX-License-Identifier: GPL-2.0
/*
 * Messages for the kernel's answers.  Each says what is wrong and what to
 * do, and names the member at fault by the path the admin typed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "errmsg.h"
#include "parse.h"

static void put(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

const char *mqs_error_code_name(uint32_t code)
{
	static const char *const names[] = {
		[MQSTRIPE_ERR_NONE] = "NONE",
		[MQSTRIPE_ERR_BAD_FD] = "BAD_FD",
		[MQSTRIPE_ERR_NOT_BLOCK] = "NOT_BLOCK",
		[MQSTRIPE_ERR_DUPLICATE] = "DUPLICATE",
		[MQSTRIPE_ERR_BUSY] = "BUSY",
		[MQSTRIPE_ERR_ZONED] = "ZONED",
		[MQSTRIPE_ERR_TOO_SMALL] = "TOO_SMALL",
		[MQSTRIPE_ERR_CHUNK_LT_PBS] = "CHUNK_LT_PBS",
		[MQSTRIPE_ERR_OFFSET_ALIGN] = "OFFSET_ALIGN",
		[MQSTRIPE_ERR_OPEN] = "OPEN",
		[MQSTRIPE_ERR_GEOMETRY] = "GEOMETRY",
		[MQSTRIPE_ERR_NAME] = "NAME",
		[MQSTRIPE_ERR_QUEUE_DEPTH] = "QUEUE_DEPTH",
		[MQSTRIPE_ERR_NAME_EXISTS] = "NAME_EXISTS",
		[MQSTRIPE_ERR_UUID_EXISTS] = "UUID_EXISTS",
		[MQSTRIPE_ERR_STACK_DEPTH] = "STACK_DEPTH",
	};

	if (code < ARRAY_SIZE(names) && names[code])
		return names[code];
	return NULL;
}

/**
 * mqs_ctl_reason() - the reason for an errno every command can get
 * @err: positive errno; EPROTO for an ABI version mismatch.
 * @kernel_abi: the module's ABI version (for EPROTO).
 * @buf: the reason.
 * @len: room at @buf.
 */
void mqs_ctl_reason(int err, uint32_t kernel_abi, char *buf, size_t len)
{
	switch (err) {
	case EPERM:
	case EACCES:
		put(buf, len, "permission denied: needs root (CAP_SYS_ADMIN)");
		break;
	case EPROTO:
		put(buf, len,
		    "the module has ABI version %u, stripectl %s has ABI version %u: install the stripectl of the module's release",
		    kernel_abi, MQSTRIPE_VERSION,
		    (unsigned int)MQSTRIPE_ABI_VERSION);
		break;
	case ENOTTY:
		put(buf, len,
		    "the module does not know this request: stripectl %s (ABI version %u) does not match the loaded module: install matching versions",
		    MQSTRIPE_VERSION, (unsigned int)MQSTRIPE_ABI_VERSION);
		break;
	case EINVAL:
		put(buf, len,
		    "the module rejected the request as invalid: check that stripectl %s matches the loaded module ('stripectl --version')",
		    MQSTRIPE_VERSION);
		break;
	case ENOMEM:
		put(buf, len, "out of kernel memory: free memory and retry");
		break;
	case EFAULT:
		put(buf, len,
		    "the module could not read the request (EFAULT): a stripectl bug, please report it");
		break;
	default:
		put(buf, len, "%s", strerror(err));
		break;
	}
}

/**
 * mqs_control_open_error() - why /dev/mqstripe-control is not usable
 * @err: positive errno of open() or of the GET_VERSION handshake.
 * @kernel_abi: the module's ABI version (for EPROTO).
 * @buf: the whole message.
 * @len: room at @buf.
 */
void mqs_control_open_error(int err, uint32_t kernel_abi, char *buf,
			    size_t len)
{
	char reason[MQS_ERR_LEN];

	switch (err) {
	case ENOENT:
		put(buf, len,
		    "%s not found: load the module with 'modprobe mqstripe'",
		    MQS_CONTROL_PATH);
		return;
	case ENXIO:
	case ENODEV:
		put(buf, len,
		    "%s: no driver behind the device node: load the module with 'modprobe mqstripe'",
		    MQS_CONTROL_PATH);
		return;
	case ENOTTY:
		put(buf, len,
		    "%s does not answer mqstripe requests: it is not the mqstripe module's control device, or the module is too old for stripectl %s",
		    MQS_CONTROL_PATH, MQSTRIPE_VERSION);
		return;
	}
	mqs_ctl_reason(err, kernel_abi, reason, sizeof(reason));
	put(buf, len, "%s: %s", MQS_CONTROL_PATH, reason);
}

/* Only errno, no error code: an older module or a generic failure. */
static void create_errno(int err, uint32_t kernel_abi, const char *who,
			 char *buf, size_t len)
{
	char reason[MQS_ERR_LEN];

	switch (err) {
	case EBUSY:
		put(buf, len,
		    "%s: device is busy: it is mounted, in use or a member of another array (check 'lsblk' and 'stripectl list')",
		    who);
		return;
	case ENOSPC:
		put(buf, len,
		    "%s: member is too small: needs at least data offset + one chunk",
		    who);
		return;
	case ENOTBLK:
		put(buf, len, "%s: not a block device", who);
		return;
	case EEXIST:
		put(buf, len,
		    "an array with this name or UUID exists already: choose another (see 'stripectl list')");
		return;
	}
	mqs_ctl_reason(err, kernel_abi, reason, sizeof(reason));
	put(buf, len, "create failed: %s", reason);
}

/**
 * mqs_create_error() - the message for a failed MQSTRIPE_IOC_CREATE
 * @err: positive errno of the ioctl.
 * @code: error_code the module wrote back (enum mqstripe_error_code).
 * @member: error_member the module wrote back: index into req->members,
 *	or (__u32)-1.
 * @kernel_abi: the module's ABI version (for EPROTO).
 * @req: what was asked, for the numbers and the member's path.
 * @buf: the whole message, without "stripectl: ".
 * @len: room at @buf.
 */
void mqs_create_error(int err, uint32_t code, uint32_t member,
		      uint32_t kernel_abi, const struct mqs_create_req *req,
		      char *buf, size_t len)
{
	const struct mqs_member_dev *m = NULL;
	const char *who = "one of the members";
	char reason[MQS_ERR_LEN], a[32], b[32];

	if (member < req->nr_members) {
		m = &req->members[member];
		who = m->path;
	}
	/* these say nothing about the request itself */
	if (err == EPROTO || err == EPERM || err == EACCES || err == EFAULT ||
	    err == ENOTTY || err == ENOMEM) {
		mqs_ctl_reason(err, kernel_abi, reason, sizeof(reason));
		put(buf, len, "create failed: %s", reason);
		return;
	}

	switch (code) {
	case MQSTRIPE_ERR_NONE:
		create_errno(err, kernel_abi, who, buf, len);
		return;
	case MQSTRIPE_ERR_BAD_FD:
		put(buf, len,
		    "%s: the module got no open file for this member (EBADF): a stripectl bug, please report it",
		    who);
		return;
	case MQSTRIPE_ERR_NOT_BLOCK:
		put(buf, len,
		    "%s: not a block device: give a disk, namespace or partition",
		    who);
		return;
	case MQSTRIPE_ERR_DUPLICATE:
		put(buf, len,
		    "%s: the same device as another member: give each device once",
		    who);
		return;
	case MQSTRIPE_ERR_BUSY:
		put(buf, len,
		    "%s: device is busy: it is mounted, in use or a member of another array (check 'lsblk%s%s' and 'stripectl list')",
		    who, m ? " " : "", m ? m->path : "");
		return;
	case MQSTRIPE_ERR_ZONED:
		put(buf, len,
		    "%s: zoned block devices cannot be members: use a conventional (non-zoned) device",
		    who);
		return;
	case MQSTRIPE_ERR_TOO_SMALL:
		/* its own recorded size does not fit (the member shrank) */
		if (req->member_sizes && m &&
		    m->size_bytes != MQS_SIZE_UNKNOWN) {
			uint64_t own = req->member_sizes[member];

			put(buf, len,
			    "%s: member is too small: the array records %s of data on it after a data offset of %" PRIu64 " bytes, so needs %" PRIu64 " bytes, has %" PRIu64 " bytes",
			    who, mqs_size_human(own, a, sizeof(a)),
			    req->data_offset_bytes,
			    req->data_offset_bytes + own, m->size_bytes);
			return;
		}
		/* the recorded size does not fit (the member shrank) */
		if (req->member_data_bytes && m &&
		    m->size_bytes != MQS_SIZE_UNKNOWN &&
		    m->size_bytes < req->data_offset_bytes +
				    req->member_data_bytes) {
			put(buf, len,
			    "%s: member is too small: the array records %s of data per member after a data offset of %" PRIu64 " bytes, so needs %" PRIu64 " bytes, has %" PRIu64 " bytes",
			    who, mqs_size_human(req->member_data_bytes, a,
						sizeof(a)),
			    req->data_offset_bytes,
			    req->data_offset_bytes + req->member_data_bytes,
			    m->size_bytes);
			return;
		}
		mqs_reason_too_small(m ? m->size_bytes : MQS_SIZE_UNKNOWN,
				     req->chunk_bytes,
				     req->data_offset_bytes, reason,
				     sizeof(reason));
		put(buf, len, "%s: %s", who, reason);
		return;
	case MQSTRIPE_ERR_CHUNK_LT_PBS:
		mqs_reason_chunk_lt_pbs(req->chunk_bytes, m ? m->pbs : 0,
					m && m->pbs_hint[0] ?
					m->pbs_hint : NULL,
					reason, sizeof(reason));
		put(buf, len, "%s: %s", who, reason);
		return;
	case MQSTRIPE_ERR_OFFSET_ALIGN:
		mqs_reason_offset_align(req->data_offset_bytes,
					m ? m->pbs : 0,
					m && m->pbs_hint[0] ?
					m->pbs_hint : NULL,
					reason, sizeof(reason));
		put(buf, len, "%s: %s", who, reason);
		return;
	case MQSTRIPE_ERR_OPEN:
		put(buf, len,
		    "%s: the module could not open the member (%s): check that it is present and writable",
		    who, strerror(err));
		return;
	case MQSTRIPE_ERR_GEOMETRY:
		if (req->member_sizes) {
			put(buf, len,
			    "%s%sthe module refused the member sizes (%u members, chunk %s): each must be a positive multiple of the chunk, and their sum at most 8E",
			    m ? who : "", m ? ": " : "", req->nr_members,
			    mqs_size_exact(req->chunk_bytes, a, sizeof(a)));
			return;
		}
		put(buf, len,
		    "%s%sthe module refused the geometry (%u members, chunk %s, data offset %s): the chunk must be a power of two from 4K to 16M, members x chunk at most 1G, the data offset a multiple of 4K",
		    m ? who : "", m ? ": " : "", req->nr_members,
		    mqs_size_exact(req->chunk_bytes, a, sizeof(a)),
		    mqs_size_exact(req->data_offset_bytes, b, sizeof(b)));
		return;
	case MQSTRIPE_ERR_NAME:
		put(buf, len,
		    "--name '%s': the module refused the name: use at most %d characters of A-Z a-z 0-9 . _ -",
		    req->name ? req->name : "", MQSTRIPE_NAME_LEN - 1);
		return;
	case MQSTRIPE_ERR_QUEUE_DEPTH:
		put(buf, len,
		    "--queue-depth %" PRIu64 ": the module refused it: use %d..%d",
		    req->queue_depth, MQSTRIPE_MIN_QUEUE_DEPTH,
		    MQSTRIPE_MAX_QUEUE_DEPTH);
		return;
	case MQSTRIPE_ERR_NAME_EXISTS:
		put(buf, len,
		    "--name '%s': an array with this name exists already: choose another name (see 'stripectl list')",
		    req->name ? req->name : "");
		return;
	case MQSTRIPE_ERR_UUID_EXISTS:
		put(buf, len,
		    "--uuid %s: an array with this UUID exists already: give another or leave out --uuid (see 'stripectl list')",
		    req->uuid ? req->uuid : "(random)");
		return;
	case MQSTRIPE_ERR_STACK_DEPTH:
		put(buf, len,
		    "%s: the member is an array at the deepest level of a stack of arrays already: at most %d levels of arrays on arrays",
		    who, MQSTRIPE_MAX_STACK_DEPTH);
		return;
	}
	put(buf, len,
	    "%s%sthe module refused the create (error code %u, %s): stripectl %s may be older than the module",
	    m ? who : "", m ? ": " : "", code, strerror(err),
	    MQSTRIPE_VERSION);
}
