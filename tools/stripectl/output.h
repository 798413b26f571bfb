/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output back-ends shared by list and status: columns for people, JSON
 * (json-c) for scripts.  JSON keys are snake_case with the unit in the
 * name (chunk_bytes, max_sectors_kb).  Every JSON document starts with
 * "json_version": MQS_JSON_VERSION; within a version keys are only added,
 * never renamed, removed or given another meaning (stripectl(8), JSON
 * OUTPUT).
 */
#ifndef STRIPECTL_OUTPUT_H
#define STRIPECTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include <json.h>

#define MQS_JSON_VERSION	1

#define TABLE_MAX_COLS	10
#define TABLE_CELL	64

struct table {
	int ncols;
	int nrows;		/* rows filled, header included */
	int max_rows;
	const bool *right;	/* right-align column i */
	char (*cells)[TABLE_MAX_COLS][TABLE_CELL];
};

int table_init(struct table *t, int ncols, const char *const *headers,
	       const bool *right, int max_rows);
void table_set(struct table *t, int row, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void table_print(const struct table *t, int indent);
void table_free(struct table *t);

/* @s, or "-" when it is empty (a table cell) */
static inline const char *cell_or_dash(const char *s)
{
	return s[0] ? s : "-";
}

struct json_object *json_u64(uint64_t v);
void json_add(struct json_object *obj, const char *key,
	      struct json_object *val);
int json_print(struct json_object *obj);

/* Members of unequal size (docs/FORMAT.md "The layout"). */
uint32_t zones_print(const uint64_t *sizes, uint32_t n, const uint32_t *seg,
		     uint32_t nseg, int width);
struct json_object *json_zones(const uint64_t *sizes, uint32_t n,
			       const uint32_t *seg, uint32_t nseg);

#endif /* STRIPECTL_OUTPUT_H */
