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
 *
 * Zones (members of unequal size): the reference lays the array out by
 * brute force, row by row of member bytes from the data offset on: at
 * member byte b, each member (in slot order) that holds data at b takes
 * the next array chunk.  mqs_map_zoned() is checked against that table at
 * every chunk's first, last and a random sector, the zone table for its
 * capacity (the sum of the sizes) and its boundaries, and the ranges a
 * request puts on each member, summed over the zones it crosses as the
 * module cuts it (mqs_member_range() per zone), against a sector walk.
 *
 * Segments (members added as a set): the reference lays each segment out
 * as above over its own members alone, one after the other in the array;
 * the zone table of mqs_segments_build() is checked against it the same
 * way, its zone count (each segment's distinct sizes, summed: two
 * segments of equal members are two zones), and that the first segment
 * maps as the array of its members alone did (nothing moves when a
 * segment is added).  One segment must give mqs_zones_build()'s table.
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

/* ----- zones: the brute-force reference ----- */

#define ZMAX_N		12
#define ZMAX_CHUNKS	4096	/* array chunks of a zone case */
#define ZMAX_SEG	4	/* MQSTRIPE_MAX_SEGMENTS */

struct zref {
	uint32_t member;
	uint64_t member_chunk;	/* chunk index on the member, from offset */
};

static struct zref zref[ZMAX_CHUNKS];

/*
 * The layout of members @first.. @first + @n - 1, row by row, from array
 * chunk @c on; returns the chunk after them.
 */
static uint64_t zref_build(const uint64_t *size_chunks, uint32_t first,
			   uint32_t n, uint64_t c)
{
	uint64_t b, max = 0;
	uint32_t i;

	for (i = first; i < first + n; i++)
		if (size_chunks[i] > max)
			max = size_chunks[i];
	for (b = 0; b < max; b++)
		for (i = first; i < first + n; i++)
			if (size_chunks[i] > b) {
				zref[c].member = i;
				zref[c].member_chunk = b;
				c++;
			}
	return c;
}

struct zcase {
	uint32_t n;
	uint32_t chunk_shift;		/* sectors */
	uint64_t offset;		/* sectors */
	uint64_t size_chunks[ZMAX_N];
	uint32_t seg[ZMAX_SEG];		/* segments' members; none: 0 */
	uint32_t nr_seg;
	struct mqs_zone zones[ZMAX_N];
	uint32_t slots[ZMAX_N * ZMAX_N];
	uint32_t nr_zones;
	uint64_t capacity;		/* sectors */
	uint64_t nr_chunks;
};

static void zcheck_sector(struct tally *t, const struct zcase *z,
			  uint64_t sector)
{
	uint64_t cs = 1ULL << z->chunk_shift;
	const struct zref *r = &zref[sector / cs];
	uint64_t want = z->offset + r->member_chunk * cs + sector % cs;
	struct mqs_loc l;

	mqs_map_zoned(z->zones, z->nr_zones, sector, &l);
	t->checks++;
	if (l.member != r->member || l.sector != want ||
	    l.chunk_left != cs - sector % cs)
		fail(t, "mqs_map_zoned(%" PRIu64 ") = member %u sector %" PRIu64
		     " chunk_left %" PRIu64 ", want member %u sector %" PRIu64
		     " chunk_left %" PRIu64, sector, l.member, (uint64_t)l.sector,
		     (uint64_t)l.chunk_left, r->member, want, cs - sector % cs);
}

/* a request's sectors per member, as the module cuts it at the zones */
static void zcheck_range(struct tally *t, const struct zcase *z,
			 uint64_t start, uint64_t len)
{
	uint64_t cs = 1ULL << z->chunk_shift, end = start + len, s;
	uint64_t want[ZMAX_N] = { 0 }, got[ZMAX_N] = { 0 };
	uint64_t wfirst[ZMAX_N], gfirst[ZMAX_N];
	uint32_t i, zi;

	for (i = 0; i < z->n; i++)
		wfirst[i] = gfirst[i] = UINT64_MAX;
	for (s = start; s < end; s++) {
		const struct zref *r = &zref[s / cs];

		if (!want[r->member])
			wfirst[r->member] = s;
		want[r->member]++;
	}
	for (zi = mqs_zone_find(z->zones, z->nr_zones, start);
	     zi < z->nr_zones && z->zones[zi].array_start < end; zi++) {
		const struct mqs_zone *zn = &z->zones[zi];
		uint64_t zs = start > zn->array_start ? start : zn->array_start;
		uint64_t ze = end < zn->array_end ? end : zn->array_end;

		for (i = 0; i < zn->geom.nr_members; i++) {
			uint64_t mstart, afirst, cnt;
			uint32_t slot = zn->slots[i];

			cnt = mqs_member_range(&zn->geom, zs - zn->array_start,
					       ze - zs, i, &mstart, &afirst);
			if (cnt && !got[slot])
				gfirst[slot] = afirst + zn->array_start;
			got[slot] += cnt;
		}
	}
	for (i = 0; i < z->n; i++) {
		t->checks++;
		if (got[i] != want[i] || gfirst[i] != wfirst[i])
			fail(t, "range start %" PRIu64 " len %" PRIu64 " slot %u: %"
			     PRIu64 " sectors from %" PRIu64 ", want %" PRIu64
			     " from %" PRIu64, start, len, i, got[i], gfirst[i],
			     want[i], wfirst[i]);
	}
}

/*
 * Segment 0 alone, the array before the others were added: every sector
 * of it maps as in @z (nothing moved), its zones are @z's first ones.
 */
static void check_first_segment(struct tally *t, const struct zcase *z,
				const uint64_t *sizes)
{
	struct mqs_zone zones[ZMAX_N];
	uint32_t slots[ZMAX_N * ZMAX_N], nr, ns, zi;
	uint64_t cap, s, step;

	nr = mqs_zones_count(sizes, z->seg[0], &ns);
	cap = mqs_zones_build(z->chunk_shift, z->offset, sizes, z->seg[0],
			      zones, slots);
	t->checks++;
	if (cap > z->capacity || nr >= z->nr_zones ||
	    z->zones[nr].array_start != cap)
		fail(t, "segment 0 alone: %" PRIu64 " sectors in %u zones, but "
		     "the array's segment 1 starts at %" PRIu64, cap, nr,
		     nr < z->nr_zones ? z->zones[nr].array_start : 0);
	for (zi = 0; zi < nr && zi < z->nr_zones; zi++) {
		t->checks++;
		if (memcmp(&zones[zi].geom, &z->zones[zi].geom,
			   sizeof(zones[zi].geom)) ||
		    zones[zi].array_start != z->zones[zi].array_start ||
		    memcmp(zones[zi].slots, z->zones[zi].slots,
			   zones[zi].geom.nr_members * sizeof(uint32_t)))
			fail(t, "segment 0 alone: zone %u differs", zi);
	}
	step = (1ULL << z->chunk_shift) / 2 + 1;
	for (s = 0; s < cap; s += step) {
		struct mqs_loc a, b;

		mqs_map_zoned(zones, nr, s, &a);
		mqs_map_zoned(z->zones, z->nr_zones, s, &b);
		t->checks++;
		if (a.member != b.member || a.sector != b.sector ||
		    a.chunk_left != b.chunk_left)
			fail(t, "segment 0 alone: sector %" PRIu64 " moved", s);
	}
}

static void test_zones(struct zcase *z, const char *what)
{
	uint64_t cs = 1ULL << z->chunk_shift, sizes[ZMAX_N], sum = 0, c;
	uint32_t nr_slots, i, k, zi, distinct = 0, first = 0;
	struct tally t = { 0 };

	snprintf(t.name, sizeof(t.name), "%s %s: %u members, chunk %" PRIu64
		 "K", z->nr_seg ? "segments" : "zones", what, z->n, cs / 2);
	z->nr_chunks = 0;
	for (k = 0; k < (z->nr_seg ? z->nr_seg : 1); k++) {
		uint32_t n = z->nr_seg ? z->seg[k] : z->n;

		for (i = first; i < first + n; i++) {
			uint32_t j;

			sizes[i] = z->size_chunks[i] * cs;
			sum += sizes[i];
			/* distinct within the segment */
			for (j = first; j < i &&
			     z->size_chunks[j] != z->size_chunks[i]; j++)
				;
			distinct += j == i;
		}
		z->nr_chunks = zref_build(z->size_chunks, first, n,
					  z->nr_chunks);
		first += n;
	}
	if (z->nr_seg)
		z->nr_zones = mqs_segments_count(sizes, z->seg, z->nr_seg,
						 &nr_slots);
	else
		z->nr_zones = mqs_zones_count(sizes, z->n, &nr_slots);
	t.checks++;
	if (z->nr_zones != distinct || nr_slots > ZMAX_N * ZMAX_N)
		fail(&t, "%u zones (%u slot entries), want %u", z->nr_zones,
		     nr_slots, distinct);
	if (z->nr_seg)
		z->capacity = mqs_segments_build(z->chunk_shift, z->offset,
						 sizes, z->seg, z->nr_seg,
						 z->zones, z->slots);
	else
		z->capacity = mqs_zones_build(z->chunk_shift, z->offset, sizes,
					      z->n, z->zones, z->slots);
	t.checks++;
	if (z->capacity != sum || z->capacity != z->nr_chunks * cs)
		fail(&t, "capacity %" PRIu64 " sectors, want %" PRIu64,
		     z->capacity, sum);
	/* the zones tile the array; each is whole stripes of its members */
	for (zi = 0; zi < z->nr_zones; zi++) {
		const struct mqs_zone *zn = &z->zones[zi];
		uint64_t stripe = cs * zn->geom.nr_members;

		t.checks++;
		if (zn->array_start != (zi ? z->zones[zi - 1].array_end : 0) ||
		    (zn->array_end - zn->array_start) % stripe ||
		    zn->array_end <= zn->array_start ||
		    (zi == z->nr_zones - 1 && zn->array_end != z->capacity))
			fail(&t, "zone %u: sectors %" PRIu64 "..%" PRIu64, zi,
			     zn->array_start, zn->array_end);
		t.checks++;
		if (mqs_zone_find(z->zones, z->nr_zones, zn->array_start) != zi ||
		    mqs_zone_find(z->zones, z->nr_zones, zn->array_end - 1) != zi)
			fail(&t, "zone %u not found at its ends", zi);
	}
	/* one zone: the plain rule */
	if (z->nr_zones == 1) {
		struct mqs_geom g = {
			.nr_members = z->n, .chunk_shift = z->chunk_shift,
			.data_offset_sectors = z->offset,
		};

		t.checks++;
		if (memcmp(&g, &z->zones[0].geom, sizeof(g)))
			fail(&t, "one zone, not the array's geometry");
	}
	/* one segment of every member: the same table as mqs_zones_build() */
	if (!z->nr_seg) {
		struct mqs_zone zones[ZMAX_N];
		uint32_t slots[ZMAX_N * ZMAX_N], ns, all = z->n;
		uint64_t cap;

		t.checks++;
		cap = mqs_segments_build(z->chunk_shift, z->offset, sizes, &all,
					 1, zones, slots);
		if (mqs_segments_count(sizes, &all, 1, &ns) != z->nr_zones ||
		    ns != nr_slots || cap != z->capacity)
			fail(&t, "one segment: not mqs_zones_build()'s table");
		for (zi = 0; zi < z->nr_zones; zi++) {
			t.checks++;
			if (memcmp(&zones[zi].geom, &z->zones[zi].geom,
				   sizeof(zones[zi].geom)) ||
			    zones[zi].array_start != z->zones[zi].array_start ||
			    zones[zi].array_end != z->zones[zi].array_end ||
			    memcmp(zones[zi].slots, z->zones[zi].slots,
				   zones[zi].geom.nr_members * sizeof(uint32_t)))
				fail(&t, "one segment: zone %u differs", zi);
		}
	} else {
		check_first_segment(&t, z, sizes);
	}
	for (c = 0; c < z->nr_chunks; c++) {
		zcheck_sector(&t, z, c * cs);
		zcheck_sector(&t, z, c * cs + cs - 1);
		zcheck_sector(&t, z, c * cs + rnd_below(cs));
	}
	/* ranges over every zone boundary, of odd lengths, and random */
	for (zi = 1; zi < z->nr_zones; zi++) {
		uint64_t b = z->zones[zi].array_start;

		zcheck_range(&t, z, b - 1, 2);
		zcheck_range(&t, z, b - 3, 7);
		zcheck_range(&t, z, b - 1 - rnd_below(b < 3 * cs ? b : 3 * cs),
			     1 + rnd_below(z->capacity - b) + 1);
	}
	zcheck_range(&t, z, 0, z->capacity);
	for (i = 0; i < 20; i++) {
		uint64_t s = rnd_below(z->capacity);

		zcheck_range(&t, z, s, 1 + rnd_below(z->capacity - s));
	}
	ktap_result(!t.failures, "map %s (%" PRIu64 " checks%s)", t.name,
		    t.checks, t.failures ? ", see FAIL above" : "");
}

static void segments_tests(void)
{
	static const struct {
		const char *what;
		uint32_t n;
		uint64_t size_chunks[ZMAX_N];
		uint32_t seg[ZMAX_SEG];
	} fixed[] = {
		{ "2+2 equal", 4, { 4, 4, 4, 4 }, { 2, 2 } },
		{ "4+2 equal", 6, { 5, 5, 5, 5, 5, 5 }, { 4, 2 } },
		{ "3+1, the added one larger", 4, { 3, 3, 3, 9 }, { 3, 1 } },
		{ "2+3, the added ones smaller", 5, { 8, 8, 2, 2, 2 }, { 2, 3 } },
		{ "zones in both", 6, { 2, 4, 6, 1, 3, 3 }, { 3, 3 } },
		{ "1+1+1+1", 4, { 3, 1, 4, 1 }, { 1, 1, 1, 1 } },
		{ "4 segments of zones", 10,
		  { 1, 2, 2, 3, 3, 5, 5, 1, 7, 4 }, { 3, 2, 4, 1 } },
		{ "1+11", 12, { 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2 },
		  { 1, 11 } },
	};
	static const uint32_t shifts[] = { 3, 7, 10 };
	uint32_t k, i;

	for (k = 0; k < ARRAY_SIZE(fixed); k++) {
		for (i = 0; i < ARRAY_SIZE(shifts); i++) {
			struct zcase z = {
				.n = fixed[k].n,
				.chunk_shift = shifts[i],
				.offset = i * 2048 + (i & 1) * 8,
			};

			memcpy(z.size_chunks, fixed[k].size_chunks,
			       sizeof(z.size_chunks));
			memcpy(z.seg, fixed[k].seg, sizeof(z.seg));
			for (z.nr_seg = 0; z.nr_seg < ZMAX_SEG &&
			     z.seg[z.nr_seg]; z.nr_seg++)
				;
			test_zones(&z, fixed[k].what);
		}
	}
	for (k = 0; k < 24; k++) {
		struct zcase z = {
			.n = 2 + (uint32_t)rnd_below(ZMAX_N - 1),
			.chunk_shift = 3 + (uint32_t)rnd_below(6),
			.offset = 8 * rnd_below(4096),
		};
		uint32_t left = z.n;

		/* 2..4 segments of at least one member */
		z.nr_seg = 2 + (uint32_t)rnd_below(ZMAX_SEG - 1);
		if (z.nr_seg > z.n)
			z.nr_seg = z.n;
		for (i = 0; i < z.nr_seg; i++) {
			uint32_t rest = z.nr_seg - i - 1;

			z.seg[i] = i == z.nr_seg - 1 ? left :
				   1 + (uint32_t)rnd_below(left - rest);
			left -= z.seg[i];
		}
		for (i = 0; i < z.n; i++)
			z.size_chunks[i] = 1 + rnd_below(ZMAX_CHUNKS / ZMAX_N /
							  2);
		test_zones(&z, "random");
	}
}

static void zones_tests(void)
{
	static const struct {
		const char *what;
		uint32_t n;
		uint64_t size_chunks[ZMAX_N];
	} fixed[] = {
		{ "1:2:2:3", 4, { 2, 4, 4, 6 } },
		{ "3:2:2:1", 4, { 6, 4, 4, 2 } },
		{ "equal", 4, { 5, 5, 5, 5 } },
		{ "one larger", 3, { 3, 3, 7 } },
		{ "one member", 1, { 9 } },
		{ "all distinct", 6, { 6, 1, 5, 2, 4, 3 } },
		{ "two of each", 6, { 1, 9, 4, 9, 1, 4 } },
	};
	static const uint32_t shifts[] = { 3, 4, 7, 10 };
	uint32_t k, i;

	for (k = 0; k < ARRAY_SIZE(fixed); k++) {
		for (i = 0; i < ARRAY_SIZE(shifts); i++) {
			struct zcase z = {
				.n = fixed[k].n,
				.chunk_shift = shifts[i],
				.offset = i * 2048 + (i & 1) * 8,
			};

			memcpy(z.size_chunks, fixed[k].size_chunks,
			       sizeof(z.size_chunks));
			test_zones(&z, fixed[k].what);
		}
	}
	for (k = 0; k < 24; k++) {
		struct zcase z = {
			.n = 1 + (uint32_t)rnd_below(ZMAX_N),
			.chunk_shift = 3 + (uint32_t)rnd_below(6),
			.offset = 8 * rnd_below(4096),
		};

		for (i = 0; i < z.n; i++)
			z.size_chunks[i] = 1 + rnd_below(ZMAX_CHUNKS / ZMAX_N /
							  2);
		test_zones(&z, "random");
	}
	segments_tests();
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

	ktap_header("mqstripe_map.h: mqs_map_sector, mqs_member_range, zones, segments");
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
	zones_tests();
	return ktap_finish();
}
