// SPDX-License-Identifier: GPL-2.0
/*
 * mqs_failio - O_DIRECT IO under fault injection, for test_21_failslab.sh
 *
 * Usage: mqs_failio DEV OFFSET LENGTH SEED
 *
 * Opens DEV with O_DIRECT, marks its own thread for fault injection
 * (/proc/thread-self/make-it-fail = 1), writes LENGTH bytes at OFFSET in
 * random sizes of 4 to 16 KiB (synchronous direct IO of at most 4 pages
 * keeps its bio on the stack, so the only slab allocations that can fail
 * are those below the block layer: the array's and the members'), then
 * unmarks itself, reads everything back and compares.  Every write must
 * succeed: the array allocates its member bios from a mempool.  Prints the
 * number of writes; exit 0 if all succeeded and verified, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAXIO	(16 << 10)

static uint64_t state;

static uint64_t rnd(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* the expected content of the 8 bytes at byte @pos */
static uint64_t word(uint64_t seed, uint64_t pos)
{
	return (pos * 0x100000001b3ULL) ^ seed;
}

static void fill(uint64_t *p, uint64_t seed, uint64_t pos, size_t len)
{
	size_t i;

	for (i = 0; i < len / 8; i++)
		p[i] = word(seed, pos + i * 8);
}

int main(int argc, char **argv)
{
	uint64_t off, len, seed, pos, *buf;
	unsigned long writes = 0;
	int fd, mfd;
	ssize_t r;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV OFFSET LENGTH SEED\n", argv[0]);
		return 2;
	}
	off = strtoull(argv[2], NULL, 0);
	len = strtoull(argv[3], NULL, 0);
	seed = strtoull(argv[4], NULL, 0);
	state = seed;
	fd = open(argv[1], O_RDWR | O_DIRECT | O_CLOEXEC);
	buf = mmap(NULL, MAXIO, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	mfd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || buf == MAP_FAILED || mfd < 0) {
		perror("mqs_failio: setup");
		return 1;
	}
	if (pwrite(mfd, "1", 1, 0) != 1) {
		perror("mqs_failio: make-it-fail");
		return 1;
	}
	for (pos = 0; pos < len; ) {
		size_t n = 4096 * (1 + rnd() % (MAXIO / 4096));

		if (n > len - pos)
			n = len - pos;
		fill(buf, seed, pos, n);
		r = pwrite(fd, buf, n, off + pos);
		if (r != (ssize_t)n) {
			pwrite(mfd, "0", 1, 0);
			printf("write of %zu bytes at %llu under fault injection: %s\n",
			       n, (unsigned long long)(off + pos),
			       r < 0 ? strerror(errno) : "short");
			return 1;
		}
		writes++;
		pos += n;
	}
	if (pwrite(mfd, "0", 1, 0) != 1)
		return 1;
	for (pos = 0; pos < len; pos += MAXIO) {
		size_t n = len - pos < MAXIO ? len - pos : MAXIO, i;

		r = pread(fd, buf, n, off + pos);
		if (r != (ssize_t)n) {
			printf("read back at %llu: %s\n",
			       (unsigned long long)(off + pos),
			       r < 0 ? strerror(errno) : "short");
			return 1;
		}
		for (i = 0; i < n / 8; i++)
			if (buf[i] != word(seed, pos + i * 8)) {
				printf("mismatch at byte %llu\n",
				       (unsigned long long)(off + pos + i * 8));
				return 1;
			}
	}
	printf("%lu writes under fault injection, %llu bytes verified\n",
	       writes, (unsigned long long)len);
	return 0;
}
