// SPDX-License-Identifier: GPL-2.0
/*
 * The module's IO figures of an array's members: sysfs mqstripe/io_stats
 * (completed, in flight, latency sums, the last window's mean, slow) and
 * mqstripe/latency_hist (the log2 histograms), one line per slot.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memberio.h"
#include "parse.h"

/* sysfs mqstripe/FILE of array @index, or NULL */
static FILE *open_attr(uint32_t index, const char *file)
{
	char path[128];
	FILE *f;
	int fd;

	mqs_array_sysfs(index, file, path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static void read_io_stats(FILE *f, struct mqs_member_io *io, uint32_t nr)
{
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		struct mqs_member_io v = { .have = true };
		unsigned int slot, slow;

		if (sscanf(line, "%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %"
			   SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu32 " %"
			   SCNu32 " %u", &slot, &v.done[0], &v.done[1],
			   &v.in_flight[0], &v.in_flight[1], &v.lat_ns[0],
			   &v.lat_ns[1], &v.window_us, &v.median_us,
			   &slow) != 10 || slot >= nr)
			continue;
		v.slow = slow;
		io[slot] = v;
	}
}

static void read_hist(FILE *f, struct mqs_member_io *io, uint32_t nr)
{
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		uint64_t h[MQS_IO_DIRS * MQSTRIPE_LAT_BUCKETS];
		unsigned int slot;
		char *p = line;
		int n, i;

		if (sscanf(p, "%u%n", &slot, &n) != 1 || slot >= nr ||
		    !io[slot].have)
			continue;
		p += n;
		for (i = 0; i < (int)(sizeof(h) / sizeof(h[0])); i++, p += n)
			if (sscanf(p, " %" SCNu64 "%n", &h[i], &n) != 1)
				break;
		if (i < (int)(sizeof(h) / sizeof(h[0])))
			continue;
		memcpy(io[slot].hist, h, sizeof(h));
		io[slot].have_hist = true;
	}
}

/**
 * mqs_member_io_read() - the IO figures of an array's members
 * @index: the array's N.
 * @io: filled for @nr slots; a slot the module has no line for keeps
 *	have false.
 * @nr: the members.
 *
 * Return: 0, or -ENOENT when the module keeps no figures (a module without
 * MQSTRIPE_FEAT_IO_STATS) or they cannot be read.
 */
int mqs_member_io_read(uint32_t index, struct mqs_member_io *io, uint32_t nr)
{
	FILE *f;

	memset(io, 0, nr * sizeof(*io));
	f = open_attr(index, "mqstripe/io_stats");
	if (!f)
		return -ENOENT;
	read_io_stats(f, io, nr);
	fclose(f);
	f = open_attr(index, "mqstripe/latency_hist");
	if (f) {
		read_hist(f, io, nr);
		fclose(f);
	}
	return 0;
}

/**
 * mqs_latency_human() - a latency for people: "850us", "12.3ms", "1.20s"
 * @ns: the latency in ns.
 * @buf: where to write it.
 * @len: room at @buf.
 *
 * Return: @buf.
 */
const char *mqs_latency_human(uint64_t ns, char *buf, size_t len)
{
	if (ns < 10000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1000000)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.1fms", ns / 1e6);
	else
		snprintf(buf, len, "%.2fs", ns / 1e9);
	return buf;
}
