// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl list: one line per running array (device, name, UUID, member
 * count, chunk, capacity, state, member devices), as columns or JSON.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "list.h"
#include "opts.h"
#include "output.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

/* "nvme0n1,nvme1n1,..." in slot order, cut to fit a table cell */
static void slot_devices(const struct mqstripe_member_info *m, uint32_t nr,
			 char *buf, size_t len)
{
	char name[PATH_MAX];
	size_t used = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < nr; i++) {
		const char *base;
		int n;

		if (mqs_devname(m[i].major, m[i].minor, name, sizeof(name)))
			snprintf(name, sizeof(name), "%u:%u", m[i].major,
				 m[i].minor);
		base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
		n = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
			     base);
		if (n < 0 || used + (size_t)n + 5 > len) {
			snprintf(buf + used, len - used, ",...");
			return;
		}
		used += (size_t)n;
	}
}

static struct json_object *members_json(const struct mqstripe_member_info *m,
					uint32_t nr)
{
	struct json_object *arr = json_object_new_array();
	char name[PATH_MAX];
	uint32_t i;

	for (i = 0; i < nr; i++) {
		struct json_object *mo = json_object_new_object();

		json_add(mo, "slot", json_u64(m[i].slot));
		json_add(mo, "device",
			 mqs_devname(m[i].major, m[i].minor, name,
				     sizeof(name)) ?
			 NULL : json_object_new_string(name));
		json_add(mo, "major", json_u64(m[i].major));
		json_add(mo, "minor", json_u64(m[i].minor));
		json_object_array_add(arr, mo);
	}
	return arr;
}

/* What list shows of one array. */
struct list_entry {
	uint32_t index;
	const struct mqstripe_info *info;
	const struct mqstripe_member_info *members;
	uint32_t nr;		/* entries of @members */
};

/* The output being built, by whichever back-end prints it. */
struct list_out {
	struct table t;
	int rows;
	struct json_object *root;
	struct json_object *arrays;
};

/*
 * The two back-ends of list, side by side: columns for people, JSON for
 * scripts.  begin() is told how many arrays there may be, entry() is given
 * each one still there, end() prints, put() frees what is left.
 */
struct list_ops {
	int (*begin)(struct list_out *o, uint32_t max);
	int (*entry)(struct list_out *o, const struct list_entry *e);
	int (*end)(struct list_out *o);
	void (*put)(struct list_out *o);
};

/* ----- columns ----- */

static int list_text_begin(struct list_out *o, uint32_t max)
{
	static const char *const headers[] = {
		"DEVICE", "NAME", "UUID", "MEMBERS", "CHUNK", "CAPACITY",
		"STATE", "DEVICES",
	};
	static const bool right[] = {
		false, false, false, true, true, true, false, false,
	};

	return table_init(&o->t, 8, headers, right, (int)max) ? -ENOMEM : 0;
}

static int list_text_entry(struct list_out *o, const struct list_entry *e)
{
	char path[64], uuid[37], chunk[32], cap[32], devs[TABLE_CELL];
	int row = ++o->rows;

	mqs_array_node(e->index, path, sizeof(path));
	mqs_format_uuid(e->info->uuid, uuid);
	table_set(&o->t, row, 0, "%s", path);
	table_set(&o->t, row, 1, "%s", cell_or_dash(e->info->name));
	table_set(&o->t, row, 2, "%s", uuid);
	table_set(&o->t, row, 3, "%u", e->info->nr_members);
	table_set(&o->t, row, 4, "%s",
		  mqs_size_exact(e->info->chunk_bytes, chunk, sizeof(chunk)));
	table_set(&o->t, row, 5, "%s",
		  mqs_size_human(e->info->capacity_bytes, cap, sizeof(cap)));
	table_set(&o->t, row, 6, "%s", array_state_name(e->info->state));
	slot_devices(e->members, e->nr, devs, sizeof(devs));
	table_set(&o->t, row, 7, "%s", devs);
	return 0;
}

/* no arrays, no output (like lsblk) */
static int list_text_end(struct list_out *o)
{
	if (o->rows)
		table_print(&o->t, 0);
	return 0;
}

static void list_text_put(struct list_out *o)
{
	table_free(&o->t);
}

/* ----- JSON ----- */

static int list_json_begin(struct list_out *o, uint32_t max)
{
	(void)max;
	o->root = json_object_new_object();
	o->arrays = json_object_new_array();
	json_add(o->root, "arrays", o->arrays);
	return 0;
}

static int list_json_entry(struct list_out *o, const struct list_entry *e)
{
	struct json_object *a = json_object_new_object();
	char path[64], uuid[37];

	mqs_array_node(e->index, path, sizeof(path));
	mqs_format_uuid(e->info->uuid, uuid);
	json_add(a, "device", json_object_new_string(path));
	json_add(a, "index", json_u64(e->index));
	json_add(a, "name", json_object_new_string(e->info->name));
	json_add(a, "uuid", json_object_new_string(uuid));
	json_add(a, "nr_members", json_u64(e->info->nr_members));
	json_add(a, "chunk_bytes", json_u64(e->info->chunk_bytes));
	json_add(a, "capacity_bytes", json_u64(e->info->capacity_bytes));
	json_add(a, "state",
		 json_object_new_string(array_state_name(e->info->state)));
	json_add(a, "members", members_json(e->members, e->nr));
	json_object_array_add(o->arrays, a);
	return 0;
}

static int list_json_end(struct list_out *o)
{
	json_print(o->root);
	o->root = NULL;
	return 0;
}

static void list_json_put(struct list_out *o)
{
	if (o->root)
		json_object_put(o->root);
}

static const struct list_ops list_text_ops = {
	.begin = list_text_begin,
	.entry = list_text_entry,
	.end = list_text_end,
	.put = list_text_put,
};

static const struct list_ops list_json_ops = {
	.begin = list_json_begin,
	.entry = list_json_entry,
	.end = list_json_end,
	.put = list_json_put,
};

int cmd_list(const struct cmd *cmd, int argc, char **argv)
{
	bool json = false;
	const struct opt opts[] = {
		{ "json", 'j', OPT_FLAG, &json, NULL, NULL,
		  "print JSON: {\"json_version\": 1, \"arrays\": [{\"device\", \"index\", \"name\", \"uuid\", \"nr_members\", \"chunk_bytes\", \"capacity_bytes\", \"state\", \"members\": [{\"slot\", \"device\", \"major\", \"minor\"}]}]}" },
		{ 0 }
	};
	struct mqstripe_member_info *members = NULL;
	const struct list_ops *ops;
	struct mqstripe_info info;
	struct list_out o = { 0 };
	struct mqs_ctl ctl;
	uint32_t *idx = NULL, n = 0, i;
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	ops = json ? &list_json_ops : &list_text_ops;
	rc = ctl_list_or_report(&ctl, "list", &idx, &n);
	if (rc)
		return rc;
	members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*members));
	if (!members || ops->begin(&o, n)) {
		mqs_error("out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct list_entry e = {
			.index = idx[i], .info = &info, .members = members,
		};

		rc = mqs_info(&ctl, idx[i], &info, members,
			      MQSTRIPE_MAX_MEMBERS);
		if (rc == -ENODEV) {	/* stopped meanwhile */
			rc = 0;
			continue;
		}
		if (rc) {
			char path[64];

			mqs_array_node(idx[i], path, sizeof(path));
			report_ctl_error(path, rc, ctl.kernel_abi);
			goto out;
		}
		e.nr = info.nr_members < MQSTRIPE_MAX_MEMBERS ?
		       info.nr_members : MQSTRIPE_MAX_MEMBERS;
		rc = ops->entry(&o, &e);
		if (rc)
			goto out;
	}
	rc = ops->end(&o);
out:
	ops->put(&o);
	free(idx);
	free(members);
	mqs_ctl_close(&ctl);
	return rc ? MQS_EXIT_FAIL : MQS_EXIT_OK;
}
