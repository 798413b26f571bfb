// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of the striping rule, module/mqstripe_map.h, the very
 * code the module compiles.
 *
 * The reference is deliberately naive and works in bytes, with divisions
 * only (no shifts, no masks): array chunk c = byte / chunk lives on member
 * c % N at byte data_offset + (c / N) * chunk + byte % chunk.
 * mqs_member_range() is checked against a walk over the request, sector
 * by sector, that collects which sectors land on each member and checks
 * that they are contiguous there.
 *
 * Geometries: members 1..8, 16, 255, 256; chunks 4K, 8K, 64K, 512K, 16M;
 * data offsets 0, 1M and odd multiples of 4K.  Some of them are wider than
 * the module accepts (members x chunk > 1G): the arithmetic must hold
 * anyway.  Sectors: small, at chunk and stripe boundaries, random, and
 * near 2^50.  The PRNG is seeded: every run checks the same cases.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/mqstripe_map.h"
#include "ktap.h"

#define SECTOR		((uint64_t)512)
#define HUGE_SECTOR	((uint64_t)1 << 50)
#define MAX_N		256
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_REPORTS	5	/* failing examples printed per geometry */
/* sectors walked per geometry for the medium ranges */
#define WALK_BUDGET	(8ULL << 20)

struct geo {
	uint32_t n;
	uint64_t chunk;		/* bytes */
	uint64_t offset;	/* bytes */
	struct mqs_geom g;
};

static uint64_t rng_state = 0x6d71737472697065ULL;	/* "mqstripe" */

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* ----- the naive reference ----- */

struct ref_loc {
	uint32_t member;
	uint64_t member_byte;
	uint64_t chunk_left_bytes;
};

static void ref_map(const struct geo *geo, uint64_t sector, struct ref_loc *r)
{
	uint64_t byte = sector * SECTOR;
	uint64_t c = byte / geo->chunk;

	r->member = (uint32_t)(c % geo->n);
	r->member_byte = geo->offset + (c / geo->n) * geo->chunk +
			 byte % geo->chunk;
	r->chunk_left_bytes = geo->chunk - byte % geo->chunk;
}

struct ref_range {
	uint64_t count;
	uint64_t member_first;	/* sector */
	uint64_t member_last;	/* sector */
	uint64_t array_first;	/* sector */
	bool contiguous;
};

static struct ref_range ref[MAX_N];

static void ref_walk(const struct geo *geo, uint64_t start, uint64_t len)
{
	uint64_t s;

	memset(ref, 0, sizeof(ref[0]) * geo->n);
	for (s = start; s < start + len; s++) {
		struct ref_loc l;
		struct ref_range *r;
		uint64_t ms;

		ref_map(geo, s, &l);
		r = &ref[l.member];
		ms = l.member_byte / SECTOR;
		if (!r->count) {
			r->member_first = ms;
			r->array_first = s;
			r->contiguous = true;
		} else if (ms != r->member_last + 1) {
			r->contiguous = false;
		}
		r->member_last = ms;
		r->count++;
	}
}

/* ----- checks ----- */

static const char *kib(uint64_t bytes, char *buf, size_t len)
{
	if (bytes >= (1 << 20) && !(bytes % (1 << 20)))
		snprintf(buf, len, "%" PRIu64 "M", bytes >> 20);
	else
		snprintf(buf, len, "%" PRIu64 "K", bytes >> 10);
	return buf;
}

struct tally {
	uint64_t checks;
	uint64_t failures;
	const struct geo *geo;
	char name[96];
};

static void fail(struct tally *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failures++ >= MAX_REPORTS)
		return;
	printf("# FAIL %s: ", t->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void check_sector(struct tally *t, uint64_t sector)
{
	struct ref_loc r;
	struct mqs_loc l;

	ref_map(t->geo, sector, &r);
	mqs_map_sector(&t->geo->g, sector, &l);
	t->checks++;
	if (l.member != r.member || l.sector * SECTOR != r.member_byte ||
	    l.chunk_left * SECTOR != r.chunk_left_bytes)
		fail(t, "mqs_map_sector(%" PRIu64 ") = member %u sector %" PRIu64
		     " chunk_left %" PRIu64 ", want member %u sector %" PRIu64
		     " chunk_left %" PRIu64, sector, l.member, (uint64_t)l.sector,
		     (uint64_t)l.chunk_left, r.member, r.member_byte / SECTOR,
		     r.chunk_left_bytes / SECTOR);
}

static void check_range(struct tally *t, uint64_t start, uint64_t len)
{
	const struct geo *geo = t->geo;
	uint64_t total = 0;
	uint32_t m;

	ref_walk(geo, start, len);
	for (m = 0; m < geo->n; m++) {
		const struct ref_range *r = &ref[m];
		uint64_t mstart = UINT64_MAX, afirst = UINT64_MAX, cnt;

		cnt = mqs_member_range(&geo->g, start, len, m, &mstart,
				       &afirst);
		t->checks++;
		total += cnt;
		if (r->count && !r->contiguous) {
			fail(t, "start %" PRIu64 " len %" PRIu64 " member %u: the range is not contiguous on the member",
			     start, len, m);
			continue;
		}
		if (cnt != r->count ||
		    (r->count && (mstart != r->member_first ||
				  afirst != r->array_first))) {
			fail(t, "mqs_member_range(start %" PRIu64 ", len %" PRIu64
			     ", member %u) = %" PRIu64 " sectors at member sector %"
			     PRIu64 " from array sector %" PRIu64 ", want %" PRIu64
			     " at %" PRIu64 " from %" PRIu64, start, len, m, cnt,
			     mstart, afirst, r->count, r->member_first,
			     r->array_first);
		}
	}
	t->checks++;
	if (total != len)
		fail(t, "start %" PRIu64 " len %" PRIu64 ": members get %" PRIu64
		     " sectors in all", start, len, total);
}

static void test_geometry(struct geo *geo)
{
	uint64_t cs = geo->chunk / SECTOR;		/* chunk sectors */
	uint64_t ss = cs * geo->n;			/* stripe sectors */
	uint64_t max_chunk = HUGE_SECTOR / cs;
	uint64_t nr_medium, i;
	struct tally t = { .geo = geo };
	char a[32], b[32];

	snprintf(t.name, sizeof(t.name), "members %u chunk %s offset %s",
		 geo->n, kib(geo->chunk, a, sizeof(a)),
		 kib(geo->offset, b, sizeof(b)));

	/* mqs_map_sector: the first sectors, boundaries, random, huge */
	for (i = 0; i < 2 * cs + 4 && i < 4096; i++)
		check_sector(&t, i);
	for (i = 0; i < 200; i++) {
		uint64_t k = rnd_below(max_chunk - 2) + 1;
		uint64_t row = rnd_below(HUGE_SECTOR / ss - 2) + 1;

		check_sector(&t, k * cs - 1);
		check_sector(&t, k * cs);
		check_sector(&t, k * cs + 1);
		check_sector(&t, row * ss - 1);
		check_sector(&t, row * ss);
		check_sector(&t, rnd_below(HUGE_SECTOR));
		check_sector(&t, HUGE_SECTOR - 1 - rnd_below(ss));
		check_sector(&t, HUGE_SECTOR + rnd_below(ss));
	}

	/* mqs_member_range: one sector, within and across chunks */
	for (i = 0; i < 40; i++) {
		uint64_t k = rnd_below(max_chunk - 2) + 1;
		uint64_t start;

		switch (i % 5) {
		case 0:
			start = rnd_below(4 * ss);
			break;
		case 1:		/* ends exactly at, or crosses, a chunk end */
			start = k * cs - 1 - rnd_below(cs);
			break;
		case 2:		/* starts at a chunk start */
			start = k * cs;
			break;
		case 3:		/* near 2^50 */
			start = HUGE_SECTOR - 1 - rnd_below(2 * ss);
			break;
		default:
			start = rnd_below(HUGE_SECTOR);
			break;
		}
		check_range(&t, start, 1);
		check_range(&t, start, 1 + rnd_below(cs));
		check_range(&t, start, cs + 1 + rnd_below(cs));
	}
	/* across a stripe boundary: every member gets a head or a tail */
	nr_medium = WALK_BUDGET / (ss + 2 * cs);
	if (nr_medium < 2)
		nr_medium = 2;
	if (nr_medium > 12)
		nr_medium = 12;
	for (i = 0; i < nr_medium; i++) {
		uint64_t row = rnd_below(HUGE_SECTOR / ss - 2) + 1;
		uint64_t start = row * ss - 1 - rnd_below(ss);

		if (i & 1)
			start = HUGE_SECTOR - rnd_below(ss);
		check_range(&t, start, 1 + rnd_below(ss + 2 * cs));
	}
	/* exact chunk and stripe multiples, aligned */
	check_range(&t, 0, cs);
	check_range(&t, ss, ss);
	/* more than two stripes: several rows on every member */
	check_range(&t, rnd_below(HUGE_SECTOR / 2),
		    2 * ss + 1 + rnd_below(cs));

	ktap_result(!t.failures, "map %s (%" PRIu64 " checks%s)", t.name,
		    t.checks, t.failures ? ", see FAIL above" : "");
}

int main(void)
{
	static const uint32_t members[] = {
		1, 2, 3, 4, 5, 6, 7, 8, 16, 255, 256,
	};
	static const uint64_t chunks[] = {
		4096, 8192, 64 << 10, 512 << 10, 16 << 20,
	};
	static const uint64_t offsets[] = {
		0, 1 << 20, 4096, 3 * 4096, 1001 * 4096,
	};
	size_t mi, ci, oi;

	ktap_header("mqstripe_map.h: mqs_map_sector, mqs_member_range");
	for (mi = 0; mi < ARRAY_SIZE(members); mi++) {
		for (ci = 0; ci < ARRAY_SIZE(chunks); ci++) {
			for (oi = 0; oi < ARRAY_SIZE(offsets);
			     oi++) {
				struct geo geo = {
					.n = members[mi],
					.chunk = chunks[ci],
					.offset = offsets[oi],
				};

				geo.g.nr_members = geo.n;
				geo.g.chunk_shift = 0;
				while ((SECTOR << geo.g.chunk_shift) < geo.chunk)
					geo.g.chunk_shift++;
				geo.g.data_offset_sectors = geo.offset / SECTOR;
				test_geometry(&geo);
			}
		}
	}
	return ktap_finish();
}
