/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memberio.c: the module's IO figures of an array's members (sysfs
 * mqstripe/io_stats and mqstripe/latency_hist), for status.
 */
#ifndef STRIPECTL_MEMBERIO_H
#define STRIPECTL_MEMBERIO_H

#include <stdbool.h>
#include <stdint.h>

#include "mqstripe.h"

/* Directions of the figures: reads, and the rest (writes, flushes...). */
enum { MQS_IO_READ, MQS_IO_WRITE, MQS_IO_DIRS };

/* Latency histogram bucket i counts IOs below 2^(14 + i) ns (the last: all). */
#define MQS_LAT_BUCKET_SHIFT	14

/**
 * struct mqs_member_io - one member's figures
 * @have: the module has them (io_stats has the member's line).
 * @done: member IOs completed, by direction.
 * @in_flight: member IOs in flight, by direction.
 * @lat_ns: their latencies summed, in ns, by direction.
 * @window_us: mean latency of the last window with IO on it, in us.
 * @median_us: the median member's then.
 * @slow: the module reports the member slow.
 * @have_hist: @hist was read.
 * @hist: the latency histogram, by direction.
 */
struct mqs_member_io {
	bool have;
	uint64_t done[MQS_IO_DIRS];
	uint64_t in_flight[MQS_IO_DIRS];
	uint64_t lat_ns[MQS_IO_DIRS];
	uint32_t window_us;
	uint32_t median_us;
	bool slow;
	bool have_hist;
	uint64_t hist[MQS_IO_DIRS][MQSTRIPE_LAT_BUCKETS];
};

int mqs_member_io_read(uint32_t index, struct mqs_member_io *io, uint32_t nr);
const char *mqs_latency_human(uint64_t ns, char *buf, size_t len);

#endif /* STRIPECTL_MEMBERIO_H */
