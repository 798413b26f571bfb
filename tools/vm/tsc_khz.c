// SPDX-License-Identifier: GPL-2.0
/*
 * tsc_khz: print the host's TSC rate in kHz, measured against
 * CLOCK_MONOTONIC_RAW over 3 x 100 ms (the median).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static double ns(const struct timespec *t)
{
	return t->tv_sec * 1e9 + t->tv_nsec;
}

/* one paired reading: the TSC between two clock reads, the pair kept tight */
static void pair(double *t_ns, uint64_t *tsc)
{
	struct timespec a, b;
	double best = 1e18;
	int i;

	for (i = 0; i < 20; i++) {
		uint64_t c;

		clock_gettime(CLOCK_MONOTONIC_RAW, &a);
		c = __rdtsc();
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
		if (ns(&b) - ns(&a) < best) {
			best = ns(&b) - ns(&a);
			*t_ns = (ns(&a) + ns(&b)) / 2;
			*tsc = c;
		}
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	struct timespec d = { 0, 100 * 1000 * 1000 };
	double khz[3], t0, t1;
	uint64_t c0, c1;
	int i;

	for (i = 0; i < 3; i++) {
		pair(&t0, &c0);
		nanosleep(&d, NULL);
		pair(&t1, &c1);
		khz[i] = (c1 - c0) / (t1 - t0) * 1e6;
	}
	qsort(khz, 3, sizeof(khz[0]), cmp);
	printf("%.0f\n", khz[1]);
	return 0;
}
