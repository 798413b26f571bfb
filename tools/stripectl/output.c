// SPDX-License-Identifier: GPL-2.0
/*
 * Columns and JSON.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "parse.h"
#include "superblock.h"

int table_init(struct table *t, int ncols, const char *const *headers,
	       const bool *right, int max_rows)
{
	int c;

	t->ncols = ncols < TABLE_MAX_COLS ? ncols : TABLE_MAX_COLS;
	t->max_rows = max_rows + 1;
	t->nrows = 1;
	t->right = right;
	t->cells = calloc((size_t)t->max_rows, sizeof(*t->cells));
	if (!t->cells)
		return -1;
	for (c = 0; c < t->ncols; c++)
		snprintf(t->cells[0][c], TABLE_CELL, "%s", headers[c]);
	return 0;
}

/* Row 1 is the first row under the header. */
void table_set(struct table *t, int row, int col, const char *fmt, ...)
{
	va_list ap;

	if (row < 1 || row >= t->max_rows || col < 0 || col >= t->ncols)
		return;
	va_start(ap, fmt);
	vsnprintf(t->cells[row][col], TABLE_CELL, fmt, ap);
	va_end(ap);
	if (row >= t->nrows)
		t->nrows = row + 1;
}

void table_print(const struct table *t, int indent)
{
	int width[TABLE_MAX_COLS] = { 0 };
	int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			int n = (int)strlen(t->cells[r][c]);

			if (n > width[c])
				width[c] = n;
		}
	for (r = 0; r < t->nrows; r++) {
		printf("%*s", indent, "");
		for (c = 0; c < t->ncols; c++) {
			bool last = c == t->ncols - 1;

			if (t->right && t->right[c])
				printf("%*s", width[c], t->cells[r][c]);
			else if (last)
				printf("%s", t->cells[r][c]);
			else
				printf("%-*s", width[c], t->cells[r][c]);
			if (!last)
				printf("  ");
		}
		printf("\n");
	}
}

void table_free(struct table *t)
{
	free(t->cells);
	t->cells = NULL;
}

struct json_object *json_u64(uint64_t v)
{
#if defined(JSON_C_VERSION_NUM) && JSON_C_VERSION_NUM >= ((0 << 16) | (14 << 8))
	return json_object_new_uint64(v);
#else
	/* json-c before 0.14 has no unsigned 64-bit numbers */
	return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t)v);
#endif
}

void json_add(struct json_object *obj, const char *key,
	      struct json_object *val)
{
	json_object_object_add(obj, key, val);
}

/*
 * Print the document @obj on stdout, "json_version" first, and drop it.
 * The keys of @obj follow in their order.
 */
int json_print(struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	struct json_object *doc = json_object_new_object();

#ifdef JSON_C_TO_STRING_NOSLASHESCAPE
	flags |= JSON_C_TO_STRING_NOSLASHESCAPE;	/* "/dev/x", not "\/dev\/x" */
#endif
	json_add(doc, "json_version", json_u64(MQS_JSON_VERSION));
	{
		json_object_object_foreach(obj, key, val)
			json_add(doc, key, json_object_get(val));
	}
	json_object_put(obj);
	printf("%s\n", json_object_to_json_string_ext(doc, flags));
	json_object_put(doc);
	return fflush(stdout) ? -1 : 0;
}

/**
 * zones_print() - the zones of an array of members of unequal size or of
 *	several segments
 * @sizes: each member's data bytes, by slot.
 * @n: members.
 * @seg: the members of each segment, in slot order.
 * @nseg: segments (1: every member in one).
 * @width: of the label column (two spaces of indent before it).
 *
 * With segments, "segments: K" first (their members); then "zones: K",
 * a line per zone: its segment, its size and start in the array, its
 * members, its part of each.  Nothing for members of one size in one
 * segment.
 *
 * Return: the number of zones.
 */
uint32_t zones_print(const uint64_t *sizes, uint32_t n, const uint32_t *seg,
		     uint32_t nseg, int width)
{
	struct mqs_zone_desc z[MQSTRIPE_MAX_MEMBERS];
	char a[32], b[32], c[32], d[32], s[32];
	uint32_t i, nr = nseg > 1 ? mqs_segzones_describe(sizes, seg, nseg, z) :
			 mqs_zones_describe(sizes, n, z);

	if (nr < 2 && nseg < 2)
		return nr;
	if (nseg > 1) {
		printf("  %-*s%u (members added with 'stripectl add'):", width,
		       "segments:", nseg);
		for (i = 0; i < nseg; i++)
			printf("%s%u", i ? ", " : " ", seg[i]);
		printf(" members\n");
	}
	printf("  %-*s%u%s\n", width, "zones:", nr,
	       nseg > 1 ? "" : " (members of unequal size)");
	for (i = 0; i < nr; i++) {
		s[0] = '\0';
		if (nseg > 1)
			snprintf(s, sizeof(s), "segment %u, slots %u-%u: ",
				 z[i].seg, z[i].first_slot,
				 z[i].first_slot + seg[z[i].seg] - 1);
		printf("    zone %u: %s%s of the array from %s, over %u members, %s of each from data byte %s\n",
		       i, s, mqs_size_exact(z[i].array_bytes, a, sizeof(a)),
		       mqs_size_exact(z[i].array_start, b, sizeof(b)), z[i].nr,
		       mqs_size_exact(z[i].member_bytes, c, sizeof(c)),
		       mqs_size_exact(z[i].member_start, d, sizeof(d)));
	}
	return nr;
}

/**
 * json_zones() - the zones of an array of members of unequal size or of
 *	several segments, as a JSON array of objects (segment,
 *	array_start_bytes, array_bytes, member_start_bytes, member_bytes,
 *	nr_members)
 * @sizes: each member's data bytes, by slot.
 * @n: members.
 * @seg: the members of each segment, in slot order.
 * @nseg: segments (1: every member in one).
 *
 * Return: the new array (one entry for members of one size).
 */
struct json_object *json_zones(const uint64_t *sizes, uint32_t n,
			       const uint32_t *seg, uint32_t nseg)
{
	struct mqs_zone_desc z[MQSTRIPE_MAX_MEMBERS];
	struct json_object *arr = json_object_new_array();
	uint32_t i, nr = nseg > 1 ? mqs_segzones_describe(sizes, seg, nseg, z) :
			 mqs_zones_describe(sizes, n, z);

	for (i = 0; i < nr; i++) {
		struct json_object *o = json_object_new_object();

		json_add(o, "segment", json_u64(z[i].seg));
		json_add(o, "array_start_bytes", json_u64(z[i].array_start));
		json_add(o, "array_bytes", json_u64(z[i].array_bytes));
		json_add(o, "member_start_bytes", json_u64(z[i].member_start));
		json_add(o, "member_bytes", json_u64(z[i].member_bytes));
		json_add(o, "nr_members", json_u64(z[i].nr));
		json_object_array_add(arr, o);
	}
	return arr;
}
