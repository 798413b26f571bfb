/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny KTAP printer for host unit tests (the kselftest.h subset we need,
 * without extracting a kernel tree): "ok N name", "not ok N name",
 * "ok N name # SKIP why", diagnostics as "# ...", the plan at the end, and
 * exit status 0 if nothing failed, else 1.  tools/tests/run.sh adds up
 * the results of all programs.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned int ktap_nr, ktap_pass, ktap_fail, ktap_skip;

static inline void ktap_header(const char *suite)
{
	printf("KTAP version 1\n# %s\n", suite);
	fflush(stdout);
}

static inline void ktap_vresult(bool ok, const char *fmt, va_list ap)
{
	printf("%s %u ", ok ? "ok" : "not ok", ++ktap_nr);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	if (ok)
		ktap_pass++;
	else
		ktap_fail++;
}

static inline bool ktap_result(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline bool ktap_result(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ktap_vresult(ok, fmt, ap);
	va_end(ap);
	return ok;
}

static inline void ktap_skipped(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void ktap_skipped(const char *why, const char *fmt, ...)
{
	va_list ap;

	printf("ok %u ", ++ktap_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
	ktap_skip++;
}

static inline void ktap_diag(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int ktap_finish(void)
{
	printf("1..%u\n# totals: pass:%u fail:%u skip:%u\n", ktap_nr,
	       ktap_pass, ktap_fail, ktap_skip);
	fflush(stdout);
	return ktap_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* KTAP_H */
