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

static struct json_object *list_entry_json(uint32_t index,
					   const struct mqstripe_info *info,
					   const struct mqstripe_member_info *m,
					   uint32_t nr)
{
	struct json_object *o = json_object_new_object();
	char path[64], uuid[37];

	mqs_array_node(index, path, sizeof(path));
	mqs_format_uuid(info->uuid, uuid);
	json_add(o, "device", json_object_new_string(path));
	json_add(o, "index", json_u64(index));
	json_add(o, "name", json_object_new_string(info->name));
	json_add(o, "uuid", json_object_new_string(uuid));
	json_add(o, "nr_members", json_u64(info->nr_members));
	json_add(o, "chunk_bytes", json_u64(info->chunk_bytes));
	json_add(o, "capacity_bytes", json_u64(info->capacity_bytes));
	json_add(o, "state",
		 json_object_new_string(array_state_name(info->state)));
	json_add(o, "members", members_json(m, nr));
	return o;
}

int cmd_list(const struct cmd *cmd, int argc, char **argv)
{
	static const char *const headers[] = {
		"DEVICE", "NAME", "UUID", "MEMBERS", "CHUNK", "CAPACITY",
		"STATE", "DEVICES",
	};
	static const bool right[] = {
		false, false, false, true, true, true, false, false,
	};
	bool json = false;
	const struct opt opts[] = {
		{ "json", 'j', OPT_FLAG, &json, NULL, NULL,
		  "print JSON: {\"json_version\": 1, \"arrays\": [{\"device\", \"index\", \"name\", \"uuid\", \"nr_members\", \"chunk_bytes\", \"capacity_bytes\", \"state\", \"members\": [{\"slot\", \"device\", \"major\", \"minor\"}]}]}" },
		{ 0 }
	};
	struct json_object *root = NULL, *arr = NULL;
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	struct table t = { 0 };
	uint32_t *idx = NULL, n = 0, i;
	int first, rc, row = 0;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	rc = ctl_open_or_report(&ctl);
	if (rc)
		return rc;
	rc = mqs_list(&ctl, &idx, &n);
	if (rc) {
		report_ctl_error("list", rc, ctl.kernel_abi);
		mqs_ctl_close(&ctl);
		return MQS_EXIT_FAIL;
	}
	members = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*members));
	if (!members) {
		mqs_error("out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (json) {
		root = json_object_new_object();
		arr = json_object_new_array();
		json_add(root, "arrays", arr);
	} else if (table_init(&t, 8, headers, right, (int)n)) {
		mqs_error("out of memory");
		rc = -ENOMEM;
		goto out;
	}

	for (i = 0; i < n; i++) {
		char path[64], uuid[37], a[32], b[32], devs[TABLE_CELL];
		uint32_t nr;

		rc = mqs_info(&ctl, idx[i], &info, members,
			      MQSTRIPE_MAX_MEMBERS);
		if (rc == -ENODEV) {	/* stopped meanwhile */
			rc = 0;
			continue;
		}
		if (rc) {
			mqs_array_node(idx[i], path, sizeof(path));
			report_ctl_error(path, rc, ctl.kernel_abi);
			goto out;
		}
		nr = info.nr_members < MQSTRIPE_MAX_MEMBERS ?
		     info.nr_members : MQSTRIPE_MAX_MEMBERS;
		if (json) {
			json_object_array_add(arr,
					      list_entry_json(idx[i], &info,
							      members, nr));
			continue;
		}
		row++;
		mqs_array_node(idx[i], path, sizeof(path));
		mqs_format_uuid(info.uuid, uuid);
		table_set(&t, row, 0, "%s", path);
		table_set(&t, row, 1, "%s", cell_or_dash(info.name));
		table_set(&t, row, 2, "%s", uuid);
		table_set(&t, row, 3, "%u", info.nr_members);
		table_set(&t, row, 4, "%s",
			  mqs_size_exact(info.chunk_bytes, a, sizeof(a)));
		table_set(&t, row, 5, "%s",
			  mqs_size_human(info.capacity_bytes, b, sizeof(b)));
		table_set(&t, row, 6, "%s", array_state_name(info.state));
		slot_devices(members, nr, devs, sizeof(devs));
		table_set(&t, row, 7, "%s", devs);
	}
	if (json) {
		json_print(root);
		root = NULL;
	} else if (row) {	/* no arrays, no output (like lsblk) */
		table_print(&t, 0);
	}
out:
	if (root)
		json_object_put(root);
	table_free(&t);
	free(idx);
	free(members);
	mqs_ctl_close(&ctl);
	return rc ? MQS_EXIT_FAIL : MQS_EXIT_OK;
}

