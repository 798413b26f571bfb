// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl status: INFO of an array, the members' names from sysfs,
 * their superblocks, their IO figures (sysfs, memberio.c), the queue limits
 * the block layer applies, as text or JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/sysmacros.h>

#include "common.h"
#include "devio.h"
#include "memberio.h"
#include "opts.h"
#include "output.h"
#include "parse.h"
#include "prom.h"
#include "status.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

enum ql_type { QL_U64, QL_BOOL, QL_STR };

/* /sys/block/mqstripeN/queue/ATTR, with its JSON key */
static const struct {
	const char *attr;
	const char *key;
	enum ql_type type;
} qlimits[] = {
	{ "logical_block_size", "logical_block_size_bytes", QL_U64 },
	{ "physical_block_size", "physical_block_size_bytes", QL_U64 },
	{ "minimum_io_size", "minimum_io_size_bytes", QL_U64 },
	{ "optimal_io_size", "optimal_io_size_bytes", QL_U64 },
	{ "max_sectors_kb", "max_sectors_kb", QL_U64 },
	{ "max_hw_sectors_kb", "max_hw_sectors_kb", QL_U64 },
	{ "max_segments", "max_segments", QL_U64 },
	{ "discard_granularity", "discard_granularity_bytes", QL_U64 },
	{ "discard_max_bytes", "discard_max_bytes", QL_U64 },
	{ "write_zeroes_max_bytes", "write_zeroes_max_bytes", QL_U64 },
	{ "write_cache", "write_cache", QL_STR },
	{ "fua", "fua", QL_BOOL },
	{ "rotational", "rotational", QL_BOOL },
	{ "read_ahead_kb", "read_ahead_kb", QL_U64 },
};

#define NR_QLIMITS ARRAY_SIZE(qlimits)

/* What status shows of one array. */
struct status_view {
	uint32_t index;
	const struct mqstripe_info *info;
	const struct mqstripe_member_info *members;
	const struct mqs_sb *sbs;	/* each member's, where @has_sb */
	const bool *has_sb;
	const struct mqs_member_io *io;
	uint32_t nr;			/* entries of the four above */
	const char *qdir;		/* /sys/block/mqstripeN/queue */
};

/*
 * Each member's data bytes (INFO's data_bytes) into @sizes (room for
 * MQSTRIPE_MAX_MEMBERS) when they are not all one size (an array of
 * zones) or the array has segments; else false (also from a module that
 * does not say).
 */
static bool view_zoned(const struct status_view *v, uint64_t *sizes)
{
	bool unequal = false;
	uint32_t i;

	if (v->nr != v->info->nr_members)
		return false;
	for (i = 0; i < v->nr; i++) {
		sizes[i] = v->members[i].data_bytes;
		if (!sizes[i])
			return false;
		unequal |= sizes[i] != v->info->member_data_bytes;
	}
	return unequal || v->info->nr_segments > 1;
}

/*
 * The superblock of a running member, if it carries one of this array
 * (read without claiming it: the module holds it).
 */
static bool member_sb(const struct mqstripe_member_info *m,
		      const uint8_t uuid[16], struct mqs_sb *sb)
{
	char path[PATH_MAX];
	struct mqs_cand *c;
	bool ok = false;

	if (mqs_find_node(makedev(m->major, m->minor), path, sizeof(path)))
		return false;
	c = malloc(sizeof(*c));
	if (!c)
		return false;
	if (!mqs_cand_read(c, path) && c->status == MQS_SB_OK &&
	    !memcmp(c->sb.array_uuid, uuid, MQSTRIPE_UUID_LEN)) {
		*sb = c->sb;
		ok = true;
	}
	mqs_cand_free(c);
	free(c);
	return ok;
}

/*
 * The member's path: for people (the text) a dm map's /dev/mapper/NAME;
 * for the JSON the kernel's node (/dev/dm-3), as json_version 1 has it.
 */
static void member_name(const struct mqstripe_member_info *m, bool people,
			char *buf, size_t len)
{
	if ((people ? mqs_devpath : mqs_devname)(m->major, m->minor, buf, len))
		buf[0] = '\0';
}

static struct json_object *qlimit_json(const char *dir, size_t i)
{
	char path[PATH_MAX], buf[128];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, qlimits[i].attr);
	if (mqs_sysfs_read(path, buf, sizeof(buf)))
		return NULL;	/* null: this kernel has no such file */
	switch (qlimits[i].type) {
	case QL_U64:
		if (!mqs_parse_uint(buf, UINT64_MAX, &v, NULL, 0))
			return json_u64(v);
		break;
	case QL_BOOL:
		if (!strcmp(buf, "0") || !strcmp(buf, "1"))
			return json_object_new_boolean(buf[0] == '1');
		break;
	case QL_STR:
		break;
	}
	return json_object_new_string(buf);
}

/* A member's IO figures, null when the module keeps none. */
static struct json_object *member_io_json(const struct mqs_member_io *io)
{
	static const char *const dirs[] = { "read", "write" };
	struct json_object *o;
	char key[48];
	int d, b;

	if (!io->have)
		return NULL;
	o = json_object_new_object();
	for (d = 0; d < MQS_IO_DIRS; d++) {
		snprintf(key, sizeof(key), "%ss_completed", dirs[d]);
		json_add(o, key, json_u64(io->done[d]));
		snprintf(key, sizeof(key), "%ss_in_flight", dirs[d]);
		json_add(o, key, json_u64(io->in_flight[d]));
		snprintf(key, sizeof(key), "%s_latency_ns_total", dirs[d]);
		json_add(o, key, json_u64(io->lat_ns[d]));
	}
	json_add(o, "window_latency_us", json_u64(io->window_us));
	json_add(o, "median_latency_us", json_u64(io->median_us));
	for (d = 0; d < MQS_IO_DIRS; d++) {
		struct json_object *h = NULL;

		if (io->have_hist) {
			h = json_object_new_array();
			for (b = 0; b < MQSTRIPE_LAT_BUCKETS; b++)
				json_object_array_add(h,
						      json_u64(io->hist[d][b]));
		}
		snprintf(key, sizeof(key), "%s_latency_hist", dirs[d]);
		json_add(o, key, h);
	}
	return o;
}

static int status_json(const struct status_view *v)
{
	struct json_object *o = json_object_new_object();
	struct json_object *arr = json_object_new_array();
	struct json_object *ql = json_object_new_object();
	struct json_object *sbo = NULL;
	char path[64], uuid[37], name[PATH_MAX];
	uint64_t sizes[MQSTRIPE_MAX_MEMBERS];
	bool zoned;
	uint32_t i;

	mqs_array_node(v->index, path, sizeof(path));
	mqs_format_uuid(v->info->uuid, uuid);
	json_add(o, "device", json_object_new_string(path));
	json_add(o, "index", json_u64(v->index));
	json_add(o, "major", json_u64(v->info->major));
	json_add(o, "minor", json_u64(v->info->minor));
	json_add(o, "name", json_object_new_string(v->info->name));
	json_add(o, "uuid", json_object_new_string(uuid));
	json_add(o, "state",
		 json_object_new_string(array_state_name(v->info->state)));
	json_add(o, "read_only",
		 json_object_new_boolean(mqs_array_readonly(v->index)));
	json_add(o, "nr_members", json_u64(v->info->nr_members));
	json_add(o, "chunk_bytes", json_u64(v->info->chunk_bytes));
	json_add(o, "stripe_width_bytes",
		 json_u64(v->info->chunk_bytes * v->info->nr_members));
	json_add(o, "data_offset_bytes", json_u64(v->info->data_offset_bytes));
	json_add(o, "capacity_bytes", json_u64(v->info->capacity_bytes));
	json_add(o, "member_data_bytes", json_u64(v->info->member_data_bytes));
	json_add(o, "queue_depth", json_u64(v->info->queue_depth));
	json_add(o, "nr_hw_queues", json_u64(v->info->nr_hw_queues));
	zoned = view_zoned(v, sizes);
	if (zoned)
		json_add(o, "zones", json_zones(sizes, v->nr,
						v->info->segment_members,
						v->info->nr_segments));
	if (v->info->nr_segments > 1) {
		struct json_object *sm = json_object_new_array();

		for (i = 0; i < v->info->nr_segments &&
		     i < MQSTRIPE_MAX_SEGMENTS; i++)
			json_object_array_add(sm,
				json_u64(v->info->segment_members[i]));
		json_add(o, "segment_members", sm);
	}

	for (i = 0; i < v->nr; i++) {
		const struct mqstripe_member_info *m = &v->members[i];
		struct json_object *mo = json_object_new_object();

		member_name(m, false, name, sizeof(name));
		json_add(mo, "slot", json_u64(m->slot));
		json_add(mo, "device",
			 name[0] ? json_object_new_string(name) : NULL);
		json_add(mo, "major", json_u64(m->major));
		json_add(mo, "minor", json_u64(m->minor));
		json_add(mo, "size_bytes", json_u64(m->size_bytes));
		if (zoned)
			json_add(mo, "data_bytes", json_u64(m->data_bytes));
		json_add(mo, "state",
			 json_object_new_string(member_state_name(m->state)));
		json_add(mo, "read_errors", json_u64(m->read_errors));
		json_add(mo, "write_errors", json_u64(m->write_errors));
		json_add(mo, "flush_errors", json_u64(m->flush_errors));
		if (v->has_sb[i])
			mqs_format_uuid(v->sbs[i].member_uuid, uuid);
		json_add(mo, "member_uuid",
			 v->has_sb[i] ? json_object_new_string(uuid) : NULL);
		json_add(mo, "slow", json_object_new_boolean(
			 !!(m->flags & MQSTRIPE_MEMBER_F_SLOW)));
		json_add(mo, "io", member_io_json(&v->io[i]));
		json_object_array_add(arr, mo);
		if (v->has_sb[i] && !sbo) {
			sbo = json_object_new_object();
			json_add(sbo, "format_version",
				 json_u64(v->sbs[i].version));
			json_add(sbo, "events", json_u64(v->sbs[i].events));
			json_add(sbo, "state", json_object_new_string(
				 mqs_sb_state_name(v->sbs[i].state)));
			json_add(sbo, "ctime", json_u64(v->sbs[i].ctime));
		}
	}
	json_add(o, "members", arr);
	json_add(o, "superblock", sbo);

	for (i = 0; i < NR_QLIMITS; i++)
		json_add(ql, qlimits[i].key, qlimit_json(v->qdir, i));
	json_add(o, "queue_limits", ql);
	json_print(o);
	return 0;
}

static void print_size_line(const char *label, uint64_t v)
{
	char buf[32];

	printf("  %-18s%" PRIu64 " bytes (%s)\n", label, v,
	       mqs_size_human(v, buf, sizeof(buf)));
}

/* The members' IO: a table, and a line per slow member. */
static int io_text(const struct mqstripe_member_info *members,
		   const struct mqs_member_io *io, uint32_t nr)
{
	static const char *const headers[] = {
		"SLOT", "READS", "WRITES", "IN_FLIGHT", "READ_LAT",
		"WRITE_LAT", "LAST_LAT", "FLAGS",
	};
	static const bool right[] = {
		true, true, true, true, true, true, true, false,
	};
	char a[32], b[32];
	struct table t;
	uint32_t i;
	int d;

	for (i = 0; i < nr && !io[i].have; i++)
		;
	if (i == nr)
		return 0;	/* a module without the figures */
	if (table_init(&t, 8, headers, right, (int)nr)) {
		mqs_error("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		const struct mqs_member_io *v = &io[i];
		int row = (int)i + 1;

		table_set(&t, row, 0, "%u", members[i].slot);
		if (!v->have)
			continue;
		table_set(&t, row, 1, "%" PRIu64, v->done[MQS_IO_READ]);
		table_set(&t, row, 2, "%" PRIu64, v->done[MQS_IO_WRITE]);
		table_set(&t, row, 3, "%" PRIu64,
			  v->in_flight[MQS_IO_READ] +
			  v->in_flight[MQS_IO_WRITE]);
		for (d = 0; d < MQS_IO_DIRS; d++) {
			if (v->done[d])
				mqs_latency_human(v->lat_ns[d] / v->done[d],
						  a, sizeof(a));
			table_set(&t, row, 4 + d, "%s",
				  v->done[d] ? a : "-");
		}
		table_set(&t, row, 6, "%s", v->window_us ?
			  mqs_latency_human((uint64_t)v->window_us * 1000,
					    a, sizeof(a)) : "-");
		table_set(&t, row, 7, "%s",
			  members[i].flags & MQSTRIPE_MEMBER_F_SLOW ? "slow" :
			  "-");
	}
	printf("\n  member IO (READ_LAT, WRITE_LAT: mean since the start; LAST_LAT: mean of the last second with IO):\n");
	table_print(&t, 4);
	table_free(&t);
	for (i = 0; i < nr; i++) {
		if (!(members[i].flags & MQSTRIPE_MEMBER_F_SLOW))
			continue;
		printf("  slot %u is slow: latency %s, the median member's %s (its IO succeeds: not a fault)\n",
		       members[i].slot,
		       mqs_latency_human((uint64_t)io[i].window_us * 1000, a,
					 sizeof(a)),
		       mqs_latency_human((uint64_t)io[i].median_us * 1000, b,
					 sizeof(b)));
	}
	return 0;
}

static int status_text(const struct status_view *v)
{
	static const char *const headers[] = {
		"SLOT", "DEVICE", "SIZE", "STATE", "READ_ERRORS",
		"WRITE_ERRORS", "FLUSH_ERRORS", "MEMBER_UUID",
	};
	static const bool right[] = {
		true, false, true, false, true, true, true, false,
	};
	char path[PATH_MAX], uuid[37], buf[128];
	uint64_t sizes[MQSTRIPE_MAX_MEMBERS];
	struct table t;
	uint32_t i;

	mqs_array_node(v->index, path, sizeof(path));
	mqs_format_uuid(v->info->uuid, uuid);
	printf("%s:\n", path);
	printf("  %-18s%s\n", "name:", cell_or_dash(v->info->name));
	printf("  %-18s%s\n", "uuid:", uuid);
	printf("  %-18s%s\n", "state:", array_state_name(v->info->state));
	if (mqs_array_readonly(v->index))
		printf("  %-18syes (assemble --readonly: nothing is written to the members)\n",
		       "read-only:");
	printf("  %-18s%u\n", "members:", v->info->nr_members);
	print_size_line("chunk:", v->info->chunk_bytes);
	print_size_line("stripe width:",
			v->info->chunk_bytes * v->info->nr_members);
	print_size_line("data offset:", v->info->data_offset_bytes);
	print_size_line("capacity:", v->info->capacity_bytes);
	print_size_line("member data:", v->info->member_data_bytes);
	if (view_zoned(v, sizes))
		zones_print(sizes, v->nr, v->info->segment_members,
			    v->info->nr_segments, 18);
	printf("  %-18s%u\n", "queue depth:", v->info->queue_depth);
	printf("  %-18s%u\n", "hw queues:", v->info->nr_hw_queues);
	for (i = 0; i < v->nr && !v->has_sb[i]; i++)
		;
	if (i < v->nr)
		printf("  %-18sformat %u, events %" PRIu64 ", %s\n",
		       "superblock:", v->sbs[i].version, v->sbs[i].events,
		       mqs_sb_state_name(v->sbs[i].state));
	else
		printf("  %-18snone (not started by stripectl)\n",
		       "superblock:");

	if (table_init(&t, 8, headers, right, (int)v->nr)) {
		mqs_error("out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < v->nr; i++) {
		const struct mqstripe_member_info *m = &v->members[i];
		int row = (int)i + 1;

		member_name(m, true, path, sizeof(path));
		table_set(&t, row, 0, "%u", m->slot);
		if (path[0])
			table_set(&t, row, 1, "%s", path);
		else
			table_set(&t, row, 1, "(%u:%u)", m->major, m->minor);
		table_set(&t, row, 2, "%s",
			  mqs_size_human(m->size_bytes, buf, sizeof(buf)));
		table_set(&t, row, 3, "%s", member_state_name(m->state));
		table_set(&t, row, 4, "%" PRIu64, (uint64_t)m->read_errors);
		table_set(&t, row, 5, "%" PRIu64, (uint64_t)m->write_errors);
		table_set(&t, row, 6, "%" PRIu64, (uint64_t)m->flush_errors);
		if (v->has_sb[i])
			mqs_format_uuid(v->sbs[i].member_uuid, uuid);
		table_set(&t, row, 7, "%s", v->has_sb[i] ? uuid : "-");
	}
	printf("\n");
	table_print(&t, 2);
	table_free(&t);
	if (io_text(v->members, v->io, v->nr))
		return -ENOMEM;

	printf("\n  queue limits (%s):\n", v->qdir);
	for (i = 0; i < NR_QLIMITS; i++) {
		snprintf(path, sizeof(path), "%s/%s", v->qdir, qlimits[i].attr);
		if (mqs_sysfs_read(path, buf, sizeof(buf)))
			snprintf(buf, sizeof(buf), "-");
		printf("    %-24s%s\n", qlimits[i].attr, buf);
	}
	return 0;
}

/*
 * The two back-ends of status, side by side: text for people, JSON for
 * scripts; show() prints the array's view and returns 0 or -ENOMEM
 * (message printed).
 */
struct status_ops {
	int (*show)(const struct status_view *v);
};

static const struct status_ops status_text_ops = {
	.show = status_text,
};

static const struct status_ops status_json_ops = {
	.show = status_json,
};

int cmd_status(const struct cmd *cmd, int argc, char **argv)
{
	bool json = false, prom = false;
	const struct opt opts[] = {
		{ "json", 'j', OPT_FLAG, &json, NULL, NULL,
		  "print JSON (keys in snake_case with the unit in the name, e.g. chunk_bytes, max_sectors_kb)" },
		{ "prometheus", 'p', OPT_FLAG, &prom, NULL, NULL,
		  "print metrics in the Prometheus text format, for node_exporter's textfile collector: the array's (without DEVICE, every array's) state, IO counters, its members' states, error and IO counters, latency histograms and slow flags" },
		{ 0 }
	};
	struct mqstripe_member_info *members;
	const struct status_ops *ops;
	struct status_view view;
	struct mqstripe_info info;
	struct mqs_member_io *io;
	struct mqs_sb *sbs;
	struct mqs_ctl ctl;
	bool *has_sb;
	char qdir[64];
	uint32_t index, nr, i;
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (json && prom) {
		mqs_error("status: give --json or --prometheus, not both");
		return MQS_EXIT_USAGE;
	}
	if (prom)
		return status_prometheus(first < argc ? argv[first] : NULL);
	ops = json ? &status_json_ops : &status_text_ops;
	if (first >= argc) {
		mqs_error("status: no DEVICE given (only --prometheus goes without): see 'stripectl status --help'");
		return MQS_EXIT_USAGE;
	}
	rc = find_array_or_report(&ctl, argv[first], &index, &info, &members,
				  &nr);
	if (rc)
		return rc;
	mqs_ctl_close(&ctl);
	mqs_array_sysfs(index, "queue", qdir, sizeof(qdir));
	sbs = calloc(nr ? nr : 1, sizeof(*sbs));
	has_sb = calloc(nr ? nr : 1, sizeof(*has_sb));
	io = calloc(nr ? nr : 1, sizeof(*io));
	if (!sbs || !has_sb || !io) {
		mqs_error("out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nr; i++)
		has_sb[i] = member_sb(&members[i], info.uuid, &sbs[i]);
	mqs_member_io_read(index, io, nr);	/* none: left out */
	view = (struct status_view){
		.index = index, .info = &info, .members = members, .sbs = sbs,
		.has_sb = has_sb, .io = io, .nr = nr, .qdir = qdir,
	};
	rc = ops->show(&view);
out:
	free(io);
	free(sbs);
	free(has_sb);
	free(members);
	return rc ? MQS_EXIT_FAIL : MQS_EXIT_OK;
}
