// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl examine: print a member's superblock, as text, JSON, or
 * KEY=value lines for udev's IMPORT{program}.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common.h"
#include "devio.h"
#include "examine.h"
#include "opts.h"
#include "output.h"
#include "parse.h"
#include "sbgroup.h"
#include "stripectl.h"
#include "superblock.h"

static const char *fmt_time(uint64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ",
					       &tm))
		snprintf(buf, len, "?");
	return buf;
}

static void print_size(const char *label, uint64_t v)
{
	char buf[32];

	printf("  %-22s%" PRIu64 " bytes (%s)\n", label, v,
	       mqs_size_exact(v, buf, sizeof(buf)));
}

static uint32_t table_len(const struct mqs_sb *sb)
{
	return sb->nr_members < mqs_sb_table_slots(sb) ? sb->nr_members :
							 mqs_sb_table_slots(sb);
}

/*
 * Members of unequal size: this member's data, the array's size and its
 * zones, one line each (an array of equal members shows none of it).
 */
static void print_zones(const struct mqs_sb *sb)
{
	uint32_t seg[MQS_SB_V2_SEGMENTS], nseg = mqs_sb_segments(sb, seg);

	if (!mqs_sb_zoned(sb))
		return;
	print_size("this member's data:", sb->sizes[sb->slot]);
	print_size("array size:", mqs_sb_capacity(sb));
	zones_print(sb->sizes, sb->nr_members, seg, nseg, 22);
}

/* The copy the superblock was taken from. */
static const uint8_t *chosen_block(const struct mqs_cand *c)
{
	return c->block + c->copies.chosen * MQS_SB_SIZE;
}

/* "ok, generation 7" or the reason a copy is not used. */
static const char *copy_state(const struct mqs_cand *c, unsigned int i,
			      char *buf, size_t len)
{
	if (c->copies.status[i] != MQS_SB_OK)
		return c->copies.why[i];
	snprintf(buf, len, "ok, generation %" PRIu64 "%s",
		 c->copies.generation[i],
		 i == c->copies.chosen ? " (in use)" : "");
	return buf;
}

static void examine_text(const struct mqs_cand *c)
{
	const struct mqs_sb *sb = &c->sb;
	char a[64], b[64], name[MQS_SB_SHOWN_NAME_LEN];
	uint32_t i, crc;

	printf("%s:\n", c->path);
	printf("  %-22s%s\n", "magic:", MQS_SB_MAGIC);
	printf("  %-22s%" PRIu32 "%s\n", "format version:", sb->version,
	       sb->version == MQS_SB_VERSION_1 ||
	       sb->version == MQS_SB_VERSION_2 ? "" : " (not supported)");
	if (c->status == MQS_SB_BAD_VERSION)
		return;
	crc = mqs_sb_block_crc(chosen_block(c));
	if (crc == sb->crc)
		printf("  %-22s0x%08" PRIx32 " (correct)\n", "checksum:", sb->crc);
	else
		printf("  %-22s0x%08" PRIx32 " (WRONG: computed 0x%08" PRIx32 ")\n",
		       "checksum:", sb->crc, crc);
	printf("  %-22scompat 0x%" PRIx64 ", ro_compat 0x%" PRIx64 ", incompat 0x%" PRIx64 "%s%s\n",
	       "features:", sb->feature_compat, sb->feature_ro_compat,
	       sb->feature_incompat,
	       sb->feature_ro_compat & ~MQS_SB_FEAT_RO_COMPAT_KNOWN ?
	       " (unknown read-only-compatible features: read-only)" : "",
	       sb->feature_incompat & ~MQS_SB_FEAT_INCOMPAT_KNOWN ?
	       " (unknown incompatible features)" : "");
	mqs_format_uuid(sb->array_uuid, a);
	printf("  %-22s%s\n", "array uuid:", a);
	printf("  %-22s%s\n", "name:",
	       sb->name[0] ? mqs_sb_shown_name(sb->name, name) : "-");
	printf("  %-22s%s (%" PRIu64 ")\n", "created:",
	       fmt_time(sb->ctime, a, sizeof(a)), sb->ctime);
	printf("  %-22s%s (%" PRIu64 ")\n", "updated:",
	       fmt_time(sb->utime, b, sizeof(b)), sb->utime);
	printf("  %-22s%s\n", "state:", mqs_sb_state_name(sb->state));
	printf("  %-22s%" PRIu64 "\n", "events:", sb->events);
	printf("  %-22s%" PRIu32 "%s\n", "layout:", sb->layout,
	       sb->layout == MQS_SB_LAYOUT_STRIPE ?
	       " (chunk c on slot c mod N at data offset + (c div N) x chunk)" :
	       " (unknown)");
	printf("  %-22s%" PRIu32 "\n", "members:", sb->nr_members);
	printf("  %-22s%" PRIu32 "\n", "slot:", sb->slot);
	mqs_format_uuid(sb->member_uuid, a);
	printf("  %-22s%s\n", "member uuid:", a);
	print_size("chunk:", sb->chunk_bytes);
	print_size("data offset:", sb->data_offset_bytes);
	print_size("data per member:", sb->data_bytes);
	print_zones(sb);
	printf("  %-22sarray %" PRIu32 ", this member %" PRIu32 " bytes (now %u)\n",
	       "logical block size:", sb->array_lbs, sb->member_lbs, c->lbs);
	printf("  %-22sbyte %" PRIu64 "\n", "superblock at:", sb->sb_offset);
	if (sb->version != MQS_SB_VERSION_1) {
		printf("  %-22s%" PRIu64 "\n", "generation:", sb->generation);
		printf("  %-22s%s\n", "copy at byte 4096:",
		       copy_state(c, 0, a, sizeof(a)));
		printf("  %-22s%s\n", "copy at byte 8192:",
		       copy_state(c, 1, b, sizeof(b)));
		if (sb->queue_depth)
			printf("  %-22s%" PRIu32 "\n", "queue depth:",
			       sb->queue_depth);
		else
			printf("  %-22s%s\n", "queue depth:",
			       "the module's default");
	}
	if (sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS && sb->fault_events) {
		printf("  %-22sslots", "fault record:");
		for (i = 0; i < sb->nr_members; i++)
			if (mqs_sb_fault_slot(sb, i))
				printf(" %" PRIu32, i);
		printf(" faulty or gone at event %" PRIu64 " (a member of these slots below it is stale)\n",
		       sb->fault_events);
	}
	printf("  member uuids by slot:\n");
	for (i = 0; i < table_len(sb); i++) {
		mqs_format_uuid(sb->table[i], a);
		printf("    %3" PRIu32 "  %s%s\n", i, a,
		       i == sb->slot ? "  (this member)" : "");
	}
	if (sb->nr_members > mqs_sb_table_slots(sb))
		printf("    slots %u..%" PRIu32 ": not recorded\n",
		       mqs_sb_table_slots(sb), sb->nr_members - 1);
}

static void examine_json(const struct mqs_cand *c)
{
	const struct mqs_sb *sb = &c->sb;
	struct json_object *o = json_object_new_object();
	struct json_object *arr, *copies;
	char u[37], name[MQS_SB_SHOWN_NAME_LEN];
	uint32_t i, crc;

	json_add(o, "device", json_object_new_string(c->path));
	json_add(o, "status",
		 json_object_new_string(mqs_sb_status_name(c->status)));
	if (c->status == MQS_SB_NONE) {
		/* readable, no superblock: scripts still get a document */
		json_print(o);
		return;
	}
	json_add(o, "format_version", json_u64(sb->version));
	if (c->status == MQS_SB_BAD_VERSION) {
		json_print(o);
		return;
	}
	crc = mqs_sb_block_crc(chosen_block(c));
	json_add(o, "checksum", json_u64(sb->crc));
	json_add(o, "checksum_ok", json_object_new_boolean(crc == sb->crc));
	json_add(o, "feature_compat", json_u64(sb->feature_compat));
	json_add(o, "feature_incompat", json_u64(sb->feature_incompat));
	json_add(o, "sb_offset_bytes", json_u64(sb->sb_offset));
	if (sb->version != MQS_SB_VERSION_1) {
		json_add(o, "feature_ro_compat",
			 json_u64(sb->feature_ro_compat));
		json_add(o, "generation", json_u64(sb->generation));
		json_add(o, "queue_depth", json_u64(sb->queue_depth));
		copies = json_object_new_array();
		for (i = 0; i < MQS_SB_COPIES_MAX; i++) {
			struct json_object *cpo = json_object_new_object();

			json_add(cpo, "offset_bytes",
				 json_u64(MQS_SB_OFFSET + i * MQS_SB_SIZE));
			json_add(cpo, "status", json_object_new_string(
				 mqs_sb_status_name(c->copies.status[i])));
			if (c->copies.status[i] == MQS_SB_OK)
				json_add(cpo, "generation",
					 json_u64(c->copies.generation[i]));
			json_add(cpo, "in_use", json_object_new_boolean(
				 i == c->copies.chosen));
			json_object_array_add(copies, cpo);
		}
		json_add(o, "copies", copies);
	}
	json_add(o, "layout_version", json_u64(sb->layout));
	json_add(o, "state",
		 json_object_new_string(mqs_sb_state_name(sb->state)));
	mqs_format_uuid(sb->array_uuid, u);
	json_add(o, "array_uuid", json_object_new_string(u));
	mqs_format_uuid(sb->member_uuid, u);
	json_add(o, "member_uuid", json_object_new_string(u));
	json_add(o, "slot", json_u64(sb->slot));
	json_add(o, "nr_members", json_u64(sb->nr_members));
	json_add(o, "chunk_bytes", json_u64(sb->chunk_bytes));
	json_add(o, "data_offset_bytes", json_u64(sb->data_offset_bytes));
	json_add(o, "data_bytes", json_u64(sb->data_bytes));
	if (mqs_sb_zoned(sb)) {
		uint32_t j;

		arr = json_object_new_array();
		for (j = 0; j < sb->nr_members; j++)
			json_object_array_add(arr, json_u64(sb->sizes[j]));
		json_add(o, "member_data_bytes", arr);
		json_add(o, "capacity_bytes", json_u64(mqs_sb_capacity(sb)));
		uint32_t seg[MQS_SB_V2_SEGMENTS];
		uint32_t nseg = mqs_sb_segments(sb, seg);

		json_add(o, "zones", json_zones(sb->sizes, sb->nr_members,
						seg, nseg));
		arr = json_object_new_array();
		for (j = 0; j < nseg; j++)
			json_object_array_add(arr, json_u64(seg[j]));
		json_add(o, "segment_members", arr);
	}
	json_add(o, "array_logical_block_size_bytes", json_u64(sb->array_lbs));
	json_add(o, "member_logical_block_size_bytes",
		 json_u64(sb->member_lbs));
	json_add(o, "ctime", json_u64(sb->ctime));
	json_add(o, "utime", json_u64(sb->utime));
	json_add(o, "events", json_u64(sb->events));
	json_add(o, "name", json_object_new_string(mqs_sb_shown_name(sb->name, name)));
	arr = json_object_new_array();
	for (i = 0; i < table_len(sb); i++) {
		mqs_format_uuid(sb->table[i], u);
		json_object_array_add(arr, json_object_new_string(u));
	}
	json_add(o, "member_uuids", arr);
	if (sb->feature_compat & MQS_SB_FEAT_COMPAT_FAULTS && sb->fault_events) {
		struct json_object *fr = json_object_new_object();

		arr = json_object_new_array();
		for (i = 0; i < sb->nr_members; i++)
			if (mqs_sb_fault_slot(sb, i))
				json_object_array_add(arr, json_u64(i));
		json_add(fr, "events", json_u64(sb->fault_events));
		json_add(fr, "slots", arr);
		json_add(o, "fault_record", fr);
	}
	json_print(o);
}

/* A readable device without a superblock: people get the error alone. */
static void examine_text_none(const struct mqs_cand *c)
{
	(void)c;
}

/*
 * The two back-ends of examine, side by side: text for people, JSON for
 * scripts.  show() prints a superblock, good or not (c->status says which);
 * none() what a readable device without one gives, before its error.
 */
struct examine_ops {
	void (*show)(const struct mqs_cand *c);
	void (*none)(const struct mqs_cand *c);
};

static const struct examine_ops examine_text_ops = {
	.show = examine_text,
	.none = examine_text_none,
};

static const struct examine_ops examine_json_ops = {
	.show = examine_json,
	.none = examine_json,	/* readable, no superblock: still a document */
};

/* KEY=value for udev; values are UUIDs, numbers and [A-Za-z0-9._-]. */
static void examine_export(const struct mqs_cand *c)
{
	const struct mqs_sb *sb = &c->sb;
	char u[37];

	printf("MQSTRIPE_FORMAT_VERSION=%" PRIu32 "\n", sb->version);
	mqs_format_uuid(sb->array_uuid, u);
	printf("MQSTRIPE_ARRAY_UUID=%s\n", u);
	mqs_format_uuid(sb->member_uuid, u);
	printf("MQSTRIPE_MEMBER_UUID=%s\n", u);
	printf("MQSTRIPE_NAME=%s\n", sb->name);
	printf("MQSTRIPE_SLOT=%" PRIu32 "\n", sb->slot);
	printf("MQSTRIPE_MEMBERS=%" PRIu32 "\n", sb->nr_members);
	printf("MQSTRIPE_CHUNK_BYTES=%" PRIu64 "\n", sb->chunk_bytes);
	printf("MQSTRIPE_DATA_OFFSET_BYTES=%" PRIu64 "\n",
	       sb->data_offset_bytes);
	printf("MQSTRIPE_DATA_BYTES=%" PRIu64 "\n", sb->data_bytes);
	if (mqs_sb_zoned(sb))
		printf("MQSTRIPE_MEMBER_DATA_BYTES=%" PRIu64 "\n",
		       sb->sizes[sb->slot]);
	if (mqs_sb_segmented(sb)) {
		uint32_t seg[MQS_SB_V2_SEGMENTS], nseg, j;

		nseg = mqs_sb_segments(sb, seg);
		printf("MQSTRIPE_SEGMENTS=%" PRIu32 "\n", nseg);
		printf("MQSTRIPE_SEGMENT_MEMBERS=");
		for (j = 0; j < nseg; j++)
			printf("%s%" PRIu32, j ? " " : "", seg[j]);
		printf("\n");
	}
	printf("MQSTRIPE_LAYOUT=%" PRIu32 "\n", sb->layout);
	printf("MQSTRIPE_EVENTS=%" PRIu64 "\n", sb->events);
	printf("MQSTRIPE_STATE=%s\n", mqs_sb_state_name(sb->state));
}

/*
 * examine --export: udev runs it for every disk, so a device without a
 * superblock (or unreadable) prints nothing and exits 1 without a word.
 */
static int examine_udev(const char *path)
{
	struct mqs_cand c;
	int rc = MQS_EXIT_FAIL;

	mqs_cand_read(&c, path);
	if (!c.read_err && c.status == MQS_SB_OK) {
		examine_export(&c);
		rc = MQS_EXIT_OK;
	} else if (c.status != MQS_SB_NONE) {
		mqs_error("%s: %s", c.path, c.why);
	}
	mqs_cand_free(&c);
	return rc;
}

/*
 * examine --scan: one "ARRAY uuid=... name=..." line (mqstripe.conf(5))
 * per array with a valid superblock on a device of /proc/partitions, in
 * the order of its first device; without --brief each line ends with a
 * comment naming the devices found, in slot order.
 */
static bool same_valid_array(const struct mqs_cand *a,
			     const struct mqs_cand *b)
{
	return b->status == MQS_SB_OK &&
	       !memcmp(a->sb.array_uuid, b->sb.array_uuid, MQSTRIPE_UUID_LEN);
}

/*
 * The devices of @c[first]'s array, from @c[first] on, in slot order (two
 * copies of a slot in the order found).
 */
static void print_by_slot(const struct mqs_cand *c, size_t n, size_t first)
{
	uint32_t slot, next = 0;
	bool more = true;
	size_t j;

	for (slot = 0; more; slot = next) {
		more = false;
		for (j = first; j < n; j++) {
			if (!same_valid_array(&c[first], &c[j]))
				continue;
			if (c[j].sb.slot == slot) {
				printf(" %s", c[j].path);
			} else if (c[j].sb.slot > slot &&
				   (!more || c[j].sb.slot < next)) {
				next = c[j].sb.slot;
				more = true;
			}
		}
	}
}

static int examine_scan(bool brief)
{
	struct mqs_cand *c = NULL;
	size_t n = 0, i, j, found, arrays = 0;
	bool *done;
	char u[37];
	int rc;

	rc = mqs_scan_devices(&c, &n);
	if (rc)
		return rc;
	done = calloc(n ? n : 1, sizeof(*done));
	if (!done) {
		mqs_error("out of memory");
		mqs_free_cands(c, n);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (done[i] || c[i].status != MQS_SB_OK)
			continue;
		mqs_format_uuid(c[i].sb.array_uuid, u);
		printf("ARRAY uuid=%s%s%s", u, c[i].sb.name[0] ? " name=" : "",
		       c[i].sb.name);
		arrays++;
		for (j = i, found = 0; j < n; j++)
			if (same_valid_array(&c[i], &c[j])) {
				done[j] = true;
				found++;
			}
		if (!brief) {
			printf("  # %zu of %" PRIu32 " members:", found,
			       c[i].sb.nr_members);
			print_by_slot(c, n, i);
		}
		printf("\n");
	}
	if (!arrays)
		mqs_error("no device carries a valid mqstripe superblock (%zu carry a damaged or unsupported one: see 'stripectl examine DEVICE')",
			  n);
	free(done);
	mqs_free_cands(c, n);
	return arrays ? MQS_EXIT_OK : MQS_EXIT_FAIL;
}

int cmd_examine(const struct cmd *cmd, int argc, char **argv)
{
	bool json = false, export = false, scan = false, brief = false;
	const struct opt opts[] = {
		{ "json", 'j', OPT_FLAG, &json, NULL, NULL,
		  "print JSON: every field of docs/FORMAT.md, with \"status\" and \"checksum_ok\"" },
		{ "export", 'e', OPT_FLAG, &export, NULL, NULL,
		  "print MQSTRIPE_*=value lines for udev's IMPORT{program}; prints nothing and exits 1 when MEMBER has no valid superblock" },
		{ "scan", 's', OPT_FLAG, &scan, NULL, NULL,
		  "examine every block device (/proc/partitions) instead of MEMBER and print one ARRAY line per array found, as /etc/mqstripe.conf takes it, with the devices found, in slot order, as a comment" },
		{ "brief", 'b', OPT_FLAG, &brief, NULL, NULL,
		  "with --scan: the ARRAY lines alone" },
		{ 0 }
	};
	const struct examine_ops *ops;
	struct mqs_cand c;
	char desc[MQS_ERR_LEN];
	int first, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (json && export) {
		mqs_error("examine: give --json or --export, not both: see 'stripectl examine --help'");
		return MQS_EXIT_USAGE;
	}
	if (scan) {
		if (json || export || first < argc) {
			mqs_error("examine: --scan takes no MEMBER, --json or --export: see 'stripectl examine --help'");
			return MQS_EXIT_USAGE;
		}
		return examine_scan(brief);
	}
	if (brief) {
		mqs_error("examine: --brief goes with --scan: see 'stripectl examine --help'");
		return MQS_EXIT_USAGE;
	}
	if (first >= argc) {
		mqs_error("examine: no MEMBER given (or --scan): see 'stripectl examine --help'");
		return MQS_EXIT_USAGE;
	}
	if (export)
		return examine_udev(argv[first]);
	ops = json ? &examine_json_ops : &examine_text_ops;
	mqs_cand_read(&c, argv[first]);
	if (c.read_err) {
		if (c.read_err == ENOTBLK)
			mqs_error("%s: not a block device", c.path);
		else if (c.read_err == ENOENT)
			mqs_error("%s: does not exist: check the path (see 'lsblk')",
				  c.path);
		else
			mqs_error("%s: %s", c.path, c.why);
		mqs_cand_free(&c);
		return MQS_EXIT_FAIL;
	}
	if (c.status == MQS_SB_NONE) {
		ops->none(&c);
		/* what is there instead, as blkid would show it */
		if (mqs_signatures_at(c.path, desc, sizeof(desc)))
			mqs_error("%s: %s: it holds %s", c.path, c.why, desc);
		else
			mqs_error("%s: %s", c.path, c.why);
		mqs_cand_free(&c);
		return MQS_EXIT_FAIL;
	}
	ops->show(&c);
	rc = MQS_EXIT_OK;
	if (c.status != MQS_SB_OK) {
		mqs_error("%s: %s", c.path, c.why);
		rc = MQS_EXIT_FAIL;
	}
	mqs_cand_free(&c);
	return rc;
}
