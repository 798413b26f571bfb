/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The striping rule, shared by the module and the userspace unit test
 * (tools/tests/test_map.c), so that both compile the very same code.
 *
 * Layout version 1: array chunk c lives on member (c mod N) at byte offset
 * data_offset + (c div N) x chunk.  The chunk is a power of two.  The layout
 * never depends on a module parameter (the lesson of md raid0's 3.14 layout
 * change, drivers/md/raid0.h).
 *
 * Members of unequal size (md raid0's zones): with the distinct member
 * data sizes s_1 < ... < s_k (s_0 = 0), zone j covers member sectors
 * [s_(j-1), s_j) after the data offset of every member holding at least
 * s_j, striped by the rule above over those n_j members in slot order;
 * the zones follow each other in the array.  A zone is a whole number of
 * stripes: no chunk crosses a zone boundary.  Equal members make one zone,
 * which is the rule above unchanged (mqs_map_sector()).
 *
 * Segments (members added as a set of their own): the slots are split into
 * consecutive segments; each segment is laid out by the zone rule over its
 * own members alone, and follows the segments before it in the array.  The
 * zone table is the segments' zone tables one after the other (two
 * segments of equal members are two zones): the members of a later
 * segment hold only what they brought, and nothing of an earlier segment
 * moves (mqs_segments_build()).
 */
#ifndef MQSTRIPE_MAP_H
#define MQSTRIPE_MAP_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include <stdint.h>
typedef uint64_t u64;
typedef uint32_t u32;
static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}
#endif

#define MQS_SECTOR_SHIFT	9
#define MQS_LAYOUT_VERSION	1

/**
 * struct mqs_geom - what the mapping needs to know of an array
 * @nr_members: number of members, 1..MQSTRIPE_MAX_MEMBERS.
 * @chunk_shift: log2 of the chunk size in 512-byte sectors.
 * @data_offset_sectors: start of data on every member, in sectors.
 */
struct mqs_geom {
	u32 nr_members;
	u32 chunk_shift;
	u64 data_offset_sectors;
};

/**
 * struct mqs_loc - where one array sector lives
 * @member: slot of the member, 0..nr_members-1.
 * @sector: sector on that member (data offset included).
 * @chunk_left: sectors from this one to the end of its chunk (>= 1).
 */
struct mqs_loc {
	u32 member;
	u64 sector;
	u64 chunk_left;
};

/**
 * mqs_map_sector() - map an array sector to its member and member sector
 * @g: geometry of the array.
 * @array_sector: sector of the array device, in 512-byte sectors.
 * @loc: filled with the member, member sector and sectors to chunk end.
 *
 * Pure function; no locking.  Cost: one 64-by-32-bit division.
 */
static inline void mqs_map_sector(const struct mqs_geom *g, u64 array_sector,
				  struct mqs_loc *loc)
{
	u64 chunk_sectors = 1ULL << g->chunk_shift;
	u64 chunk = array_sector >> g->chunk_shift;
	u64 in_chunk = array_sector & (chunk_sectors - 1);
	u32 member;
	u64 row = div_u64_rem(chunk, g->nr_members, &member);

	loc->member = member;
	loc->sector = g->data_offset_sectors + (row << g->chunk_shift) +
		      in_chunk;
	loc->chunk_left = chunk_sectors - in_chunk;
}

/**
 * mqs_member_range() - the one contiguous range a request puts on a member
 * @g: geometry of the array.
 * @start: first array sector of the request.
 * @nr_sectors: length of the request in sectors (> 0).
 * @member: slot asked about.
 * @member_start: filled with the first member sector of the range.
 * @array_first: filled with the first array sector that maps into it.
 *
 * Consecutive chunks of one member are consecutive rows, so the part of a
 * contiguous array range that lands on one member is itself contiguous on
 * that member: one member bio carries it.
 *
 * Return: number of sectors of the request on @member (0 if none).
 */
static inline u64 mqs_member_range(const struct mqs_geom *g, u64 start,
				   u64 nr_sectors, u32 member,
				   u64 *member_start, u64 *array_first)
{
	u64 end = start + nr_sectors;	/* exclusive */
	u64 first_chunk = start >> g->chunk_shift;
	u64 last_chunk = (end - 1) >> g->chunk_shift;
	u32 first_member, last_member, rem;
	u64 c, cl, row, s, e, nr_chunks;

	div_u64_rem(first_chunk, g->nr_members, &first_member);
	div_u64_rem(last_chunk, g->nr_members, &last_member);
	/* the first chunk at or after first_chunk that lives on @member */
	c = first_chunk + (member + g->nr_members - first_member) %
			  g->nr_members;
	if (c > last_chunk)
		return 0;
	/* and the last one at or before last_chunk */
	cl = last_chunk - (last_member + g->nr_members - member) %
			  g->nr_members;
	nr_chunks = div_u64_rem(cl - c, g->nr_members, &rem) + 1;

	s = c << g->chunk_shift;
	if (s < start)
		s = start;
	e = (cl + 1) << g->chunk_shift;
	if (e > end)
		e = end;
	row = div_u64_rem(c, g->nr_members, &rem);
	*array_first = s;
	*member_start = g->data_offset_sectors + (row << g->chunk_shift) +
			(s & ((1ULL << g->chunk_shift) - 1));
	/* whole chunks, less the head before s and the tail after e */
	return (nr_chunks << g->chunk_shift) - (s - (c << g->chunk_shift)) -
	       (((cl + 1) << g->chunk_shift) - e);
}

/**
 * struct mqs_zone - one zone of an array of members of unequal size
 * @array_start: first array sector of the zone.
 * @array_end: first array sector after it.
 * @geom: the zone's rule: its member count, the chunk, and its start on
 *	its members (the data offset plus the sizes of the zones before).
 * @slots: slot of each of its @geom.nr_members members, in slot order.
 */
struct mqs_zone {
	u64 array_start;
	u64 array_end;
	struct mqs_geom geom;
	u32 *slots;
};

/* The smallest member size above @floor, or 0 when none is. */
static inline u64 mqs_zone_next_size(const u64 *sizes, u32 n, u64 floor)
{
	u64 next = 0;
	u32 i;

	for (i = 0; i < n; i++)
		if (sizes[i] > floor && (!next || sizes[i] < next))
			next = sizes[i];
	return next;
}

/**
 * mqs_zones_count() - zones of an array and the slot entries they need
 * @sizes: each member's data size in sectors, by slot (all > 0).
 * @n: members.
 * @nr_slots: set to the sum of the zones' member counts.
 *
 * Return: the number of zones: the number of distinct sizes.
 */
static inline u32 mqs_zones_count(const u64 *sizes, u32 n, u32 *nr_slots)
{
	u64 s = 0;
	u32 nr = 0, i;

	*nr_slots = 0;
	while ((s = mqs_zone_next_size(sizes, n, s))) {
		nr++;
		for (i = 0; i < n; i++)
			if (sizes[i] >= s)
				(*nr_slots)++;
	}
	return nr;
}

/**
 * mqs_zones_build() - the zone table of an array
 * @chunk_shift: log2 of the chunk in sectors.
 * @data_offset_sectors: start of data on every member.
 * @sizes: each member's data size in sectors, by slot: multiples of the
 *	chunk, all > 0.
 * @n: members.
 * @zones: filled, mqs_zones_count() entries.
 * @slots: room for the slot entries mqs_zones_count() counted.
 *
 * Return: the array's size in sectors (the sum of the zones).
 */
static inline u64 mqs_zones_build(u32 chunk_shift, u64 data_offset_sectors,
				  const u64 *sizes, u32 n,
				  struct mqs_zone *zones, u32 *slots)
{
	u64 prev = 0, s, start = 0;
	u32 i;

	while ((s = mqs_zone_next_size(sizes, n, prev))) {
		u32 nr = 0;

		zones->slots = slots;
		for (i = 0; i < n; i++)
			if (sizes[i] >= s)
				slots[nr++] = i;
		zones->geom.nr_members = nr;
		zones->geom.chunk_shift = chunk_shift;
		zones->geom.data_offset_sectors = data_offset_sectors + prev;
		zones->array_start = start;
		start += (s - prev) * nr;
		zones->array_end = start;
		slots += nr;
		zones++;
		prev = s;
	}
	return start;
}

/**
 * mqs_segments_count() - zones of an array of segments, and their slots
 * @sizes: each member's data size in sectors, by slot (all > 0).
 * @seg: members of each segment, in slot order; they add up to the
 *	members.
 * @nr_seg: segments (> 0).
 * @nr_slots: set to the sum of the zones' member counts.
 *
 * One segment is mqs_zones_count() over every member.
 *
 * Return: the number of zones: each segment's distinct sizes, summed.
 */
static inline u32 mqs_segments_count(const u64 *sizes, const u32 *seg,
				     u32 nr_seg, u32 *nr_slots)
{
	u32 nr = 0, first = 0, k, ns;

	*nr_slots = 0;
	for (k = 0; k < nr_seg; k++) {
		nr += mqs_zones_count(sizes + first, seg[k], &ns);
		*nr_slots += ns;
		first += seg[k];
	}
	return nr;
}

/**
 * mqs_segments_build() - the zone table of an array of segments
 * @chunk_shift: log2 of the chunk in sectors.
 * @data_offset_sectors: start of data on every member.
 * @sizes: each member's data size in sectors, by slot: multiples of the
 *	chunk, all > 0.
 * @seg: members of each segment, in slot order (as mqs_segments_count()).
 * @nr_seg: segments (> 0).
 * @zones: filled, mqs_segments_count() entries, in array order.
 * @slots: room for the slot entries mqs_segments_count() counted.
 *
 * Each segment's zones are mqs_zones_build() over its members, their
 * slots moved up by the segment's first slot and their array sectors by
 * the sizes of the segments before it.  One segment is mqs_zones_build()
 * over every member.
 *
 * Return: the array's size in sectors (the sum of the sizes).
 */
static inline u64 mqs_segments_build(u32 chunk_shift, u64 data_offset_sectors,
				     const u64 *sizes, const u32 *seg,
				     u32 nr_seg, struct mqs_zone *zones,
				     u32 *slots)
{
	u64 start = 0, size;
	u32 first = 0, k, i, nr, ns;

	for (k = 0; k < nr_seg; k++) {
		nr = mqs_zones_count(sizes + first, seg[k], &ns);
		size = mqs_zones_build(chunk_shift, data_offset_sectors,
				       sizes + first, seg[k], zones, slots);
		for (i = 0; i < nr; i++) {
			zones[i].array_start += start;
			zones[i].array_end += start;
		}
		for (i = 0; i < ns; i++)
			slots[i] += first;
		start += size;
		zones += nr;
		slots += ns;
		first += seg[k];
	}
	return start;
}

/**
 * mqs_zone_find() - the zone of an array sector
 * @zones: the table, @nr entries (> 0) in array order.
 * @nr: zones.
 * @array_sector: a sector below the array's size.
 *
 * Return: index of the zone holding @array_sector (a binary search).
 */
static inline u32 mqs_zone_find(const struct mqs_zone *zones, u32 nr,
				u64 array_sector)
{
	u32 lo = 0, hi = nr - 1;

	while (lo < hi) {
		u32 mid = (lo + hi + 1) / 2;

		if (zones[mid].array_start <= array_sector)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/**
 * mqs_map_zoned() - mqs_map_sector() for an array of several zones
 * @zones: the table, @nr entries (> 0).
 * @nr: zones.
 * @array_sector: a sector below the array's size.
 * @loc: filled as by mqs_map_sector(), @loc->member a slot; the chunk
 *	ends within the zone.
 */
static inline void mqs_map_zoned(const struct mqs_zone *zones, u32 nr,
				 u64 array_sector, struct mqs_loc *loc)
{
	const struct mqs_zone *z = &zones[mqs_zone_find(zones, nr,
							array_sector)];

	mqs_map_sector(&z->geom, array_sector - z->array_start, loc);
	loc->member = z->slots[loc->member];
}

#endif /* MQSTRIPE_MAP_H */
