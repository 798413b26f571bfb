/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output of the selftests' C helpers (mqs_ioctl, mqs_fuzz): one
 * "ok N ..." / "not ok N ..." line per check, "# ..." diagnostics, the plan
 * "1..N" at the end (the number of checks is known only then).
 *
 * kselftest.h is not used: it prints the plan first, a "TAP version" header
 * and a "# Totals" line, which would change what run.sh parses.
 */
#ifndef MQS_KTAP_H
#define MQS_KTAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int nr_checks, nr_fail;

static inline void result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void result(bool ok, const char *fmt, ...)
{
	va_list ap;

	nr_checks++;
	if (!ok)
		nr_fail++;
	printf("%sok %d ", ok ? "" : "not ", nr_checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline void diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The plan line; returns the exit status: 0 if every check passed, else 1 */
static inline int ktap_finish(void)
{
	printf("1..%d\n", nr_checks);
	return nr_fail ? 1 : 0;
}

/* The errno's name, "success" for 0, "errno N" for one not listed */
static inline const char *ename(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EBADF: return "EBADF";
	case ENOTBLK: return "ENOTBLK";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case ENODEV: return "ENODEV";
	case ENXIO: return "ENXIO";
	case EEXIST: return "EEXIST";
	case ENOTTY: return "ENOTTY";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

#endif /* MQS_KTAP_H */
