/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one KTAP printer of the project's C tests: the host unit tests
 * (tools/tests/) and the selftests' C helpers run in the guests (mqs_ioctl,
 * mqs_fuzz).  "ok N name", "not ok N name", "ok N name # SKIP why",
 * diagnostics as "# ...", the plan "1..N" at the end (the number of checks
 * is known only then) with a "# totals:" line, and exit status 0 if nothing
 * failed, else 1.  tools/tests/run.sh adds up the results of all programs;
 * the selftests' import_checks (selftests/lib.sh) counts the ok / not ok
 * lines.  kselftest.h is not used: it prints the plan first.
 */
#ifndef KTAP_H
#define KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	fflush(stdout);
}

/* errno @e by name ("EINVAL"), "success" for 0 (glibc's strerrorname_np) */
static inline const char *ktap_errname(int e)
{
	const char *name;

	if (!e)
		return "success";
	name = strerrorname_np(e);
	return name ? name : "an unknown errno";
}

static inline int ktap_finish(void)
{
	printf("1..%u\n# totals: pass:%u fail:%u skip:%u\n", ktap_nr,
	       ktap_pass, ktap_fail, ktap_skip);
	fflush(stdout);
	return ktap_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* KTAP_H */
