// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl assemble: start an array from the superblocks on its members.
 *
 *   assemble [--name NAME | --uuid UUID] DEVICE...   the devices given
 *   assemble --scan [--name NAME | --uuid UUID]      every block device
 *   assemble --incremental [--change] DEVICE         one member (udev)
 *
 * Members are matched by array UUID and ordered by the slot in their
 * superblocks (sbgroup.c), never by name or argument order.  Every
 * refusal starts nothing.  Starting bumps the event counter of every
 * member and marks it active, then hands the members in slot order to
 * MQSTRIPE_IOC_CREATE with the recorded UUID, name, chunk and data offset.
 *
 * Incremental assembly records each member under $MQSTRIPE_RUN_DIR
 * (default /run/mqstripe): <array-uuid>/slot-<N> holds "MAJ:MIN
 * MEMBER-UUID".  The array starts when the last slot arrives; every
 * recorded device is read again first, so a record of a device that went
 * away or changed does not count.  The records hold the first device
 * seen per slot, so before the start every device is read as --scan reads
 * them (incr_copies()): a slot on two devices, a clone set attached with
 * the originals, starts nothing whichever copy came first, as --scan
 * refuses it.  One lock file (mqs_meta_lock())
 * serializes all assembly and every other superblock writer: create, stop,
 * zero-superblock (udev runs events in parallel, and the boot-time --scan
 * may race it).
 *
 * --scan without --name or --uuid and --incremental are the automatic
 * assembly: they start only what /etc/mqstripe.conf allows (conf.c).
 * Devices given by hand, --name and --uuid start what they name.
 *
 * A name is one array's: every kind of assembly starts an array whose
 * name another running array has without it (under its UUID), with a
 * warning naming both (start_group()), so the first started keeps
 * /dev/stripe/NAME, whichever order udev's events come in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "assemble.h"
#include "common.h"
#include "conf.h"
#include "cryptlist.h"
#include "devio.h"
#include "fault.h"
#include "member.h"
#include "opts.h"
#include "parse.h"
#include "sbgroup.h"
#include "sbwrite.h"
#include "start.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

struct asm_ctx {
	struct mqs_ctl ctl;
	bool ctl_open;
	int lock_fd;		/* the metadata lock, or a negative errno */
	bool force;		/* --force: stale members accepted */
	bool readonly;		/* --readonly: no superblock written */
	bool grow;		/* --grow: the members' room, not the recorded size */
	bool change;		/* --change: a change event's device */
	bool incremental;	/* --incremental: udev's, without a terminal */
	bool found;		/* --scan, --incremental: devices found, not given */
	bool defer_missing;	/* --scan: defer_missing() */
	/* --scan: the rounds so far (an array on arrays needs one each) */
	unsigned int round;
	size_t started;		/* arrays this round started */
	uint64_t *seen;		/* devices earlier rounds examined */
	size_t nseen;
	/* --scan: arrays with a slot missing, said after the last round */
	struct asm_missing *missing;
	size_t nmissing;
	uint32_t metadata;	/* --metadata: format to write, 0 to keep */
};

/* an array --scan found incomplete: a later round may complete it */
struct asm_missing {
	uint8_t uuid[MQSTRIPE_UUID_LEN];
	char why[MQS_GROUP_ERR_LEN];
};

/* The result of check_and_start() for a missing slot with --scan. */
#define ASM_DEFERRED	(-1)

static void uuid_dir(const uint8_t uuid[16], char *buf, size_t len)
{
	char u[37];

	mqs_format_uuid(uuid, u);
	snprintf(buf, len, "%s/%s", mqs_run_dir(), u);
}

/*
 * Remove the incremental records of an array (after it started, and after
 * stop: a stopped array's partial records must not start it again).  The
 * caller holds the metadata lock (mqs_meta_lock()).
 */
void incr_forget(const uint8_t uuid[16])
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	struct dirent *d;
	DIR *dp;

	uuid_dir(uuid, dir, sizeof(dir));
	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		unlink(path);
	}
	closedir(dp);
	rmdir(dir);
}

#define INCR_STOPPED	"stopped"

/* RUN_DIR/UUID/stopped, for the array directory @dir */
static void stopped_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" INCR_STOPPED, dir);
}

/**
 * incr_stopped() - forget an array's incremental records and mark it
 *	stopped by "stripectl stop"
 * @uuid: the array UUID.
 *
 * The mark (RUN_DIR/UUID/stopped) keeps "assemble --incremental --change"
 * from starting the array again: the superblock writes of the stop itself
 * make change events on members that udev watches (md, dm).  Any start of
 * the array removes it (incr_forget()), and so does a reboot (/run).  The
 * caller holds the metadata lock.
 */
void incr_stopped(const uint8_t uuid[16])
{
	char dir[PATH_MAX], path[PATH_MAX + sizeof(INCR_STOPPED) + 1];
	int fd;

	incr_forget(uuid);
	uuid_dir(uuid, dir, sizeof(dir));
	if (mkdir(dir, 0700) && errno != EEXIST)
		return;
	stopped_path(dir, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
}

/* Did "stripectl stop" stop this array since boot (incr_stopped())? */
static bool incr_was_stopped(const char *dir)
{
	char path[PATH_MAX + sizeof(INCR_STOPPED) + 1];

	stopped_path(dir, path, sizeof(path));
	return !access(path, F_OK);
}

/**
 * conf_load() - read /etc/mqstripe.conf for the automatic assembly
 * @conf: filled in; mqs_conf_free() it, also on failure.
 * @what: what the messages start with ("" or "DEVICE: ").
 *
 * Each line not taken that the assembly can do without (a bad MAILADDR,
 * an unknown keyword, a bad ARRAY line) is a warning on stderr, naming
 * the file and line; one it cannot (a bad or misspelt AUTO) fails.
 *
 * Return: MQS_EXIT_OK, or MQS_EXIT_FAIL with the reason said: nothing
 * may start.
 */
static int conf_load(struct mqs_conf *conf, const char *what)
{
	char msg[2 * MQS_ERR_LEN];
	int rc = MQS_EXIT_OK;
	size_t i;

	if (mqs_conf_load(conf, msg, sizeof(msg))) {
		mqs_error("%s%s: nothing started", what, msg);
		return MQS_EXIT_FAIL;
	}
	for (i = 0; i < conf->nr_issues; i++) {
		mqs_conf_issue_text(&conf->issues[i], false, msg, sizeof(msg));
		if (!mqs_conf_blocks(&conf->issues[i], false)) {
			mqs_error("%s%s", what, msg);
		} else if (!rc) {
			mqs_error("%s%s: nothing started", what, msg);
			rc = MQS_EXIT_FAIL;
		}
	}
	return rc;
}

static int ctx_ctl(struct asm_ctx *ctx)
{
	if (ctx->ctl_open)
		return MQS_EXIT_OK;
	if (ctl_open_or_report(&ctx->ctl))
		return MQS_EXIT_FAIL;
	ctx->ctl_open = true;
	return MQS_EXIT_OK;
}

/* ----- starting one array ----- */

/*
 * Why @c cannot be a member; @hint follows a missing superblock.  A device
 * without one that holds something libblkid knows (mkfs, a partition
 * table, md or LVM made over a member, which libblkid cannot see as one
 * and so does not warn about) says what is there now.
 */
static void report_cand_hint(const struct mqs_cand *c, const char *hint)
{
	char desc[MQS_ERR_LEN];

	if (c->read_err)
		mqs_error("%s: cannot read its superblock: %s", c->path,
			  strerror(c->read_err));
	else if (c->status == MQS_SB_NONE &&
		 mqs_signatures_at(c->path, desc, sizeof(desc)))
		mqs_error("%s: %s: not a member of an array, or one written over since (its data in the array lost): it holds %s (see 'stripectl examine %s')%s",
			  c->path, c->why, desc, c->path, hint);
	else if (c->status == MQS_SB_NONE)
		mqs_error("%s: %s: not a member of an array (see 'stripectl examine %s')%s",
			  c->path, c->why, c->path, hint);
	else
		mqs_error("%s: %s", c->path, c->why);
}

static void report_cand(const struct mqs_cand *c)
{
	report_cand_hint(c, "");
}

/* Already running? */
static int check_running(struct asm_ctx *ctx, const struct mqs_sb *sb,
			 bool quiet_if_running, bool *running)
{
	struct mqstripe_info info;
	char label[MQS_ERR_LEN], path[64];
	uint32_t index;
	int rc;

	*running = false;
	rc = mqs_find_uuid(&ctx->ctl, sb->array_uuid, &index, &info);
	if (!rc) {
		*running = true;
		if (quiet_if_running)
			return MQS_EXIT_OK;
		mqs_array_label(sb, label, sizeof(label));
		mqs_array_node(index, path, sizeof(path));
		mqs_error("%s is already running as %s (see 'stripectl status %s')",
			  label, path, path);
		return MQS_EXIT_FAIL;
	}
	if (rc != -ENODEV) {
		report_ctl_error("list", rc, ctx->ctl.kernel_abi);
		return MQS_EXIT_FAIL;
	}
	return MQS_EXIT_OK;
}

/*
 * Has another running array the name of @sb?  1 and @holder, @holder_uuid
 * filled: it has; 0: it has not (or @sb has no name); -1: the module could
 * not be asked (said).  The name (/dev/stripe/NAME) stays with the array
 * that runs first; the array of @sb then starts without it
 * (say_nameless()).
 */
static int name_taken(struct asm_ctx *ctx, const struct mqs_sb *sb,
		      uint32_t *holder, uint8_t holder_uuid[16])
{
	struct mqstripe_info info;
	int rc;

	if (!sb->name[0])
		return 0;
	rc = mqs_find_name(&ctx->ctl, sb->name, holder, &info);
	if (rc == -ENODEV)
		return 0;
	if (rc) {
		report_ctl_error("list", rc, ctx->ctl.kernel_abi);
		return -1;
	}
	memcpy(holder_uuid, info.uuid, MQSTRIPE_UUID_LEN);
	return 1;
}

/*
 * The array of @sb started as @index without its name, which the running
 * array @holder has: said on stderr and in the system log (udev's
 * --incremental has no terminal), naming both and the way out.
 */
static void say_nameless(const struct mqs_sb *sb, uint32_t index,
			 uint32_t holder, const uint8_t holder_uuid[16])
{
	char label[MQS_ERR_LEN], what[2 * MQS_ERR_LEN], node[64], other[64];
	char u[37];

	mqs_array_label(sb, label, sizeof(label));
	mqs_array_node(index, node, sizeof(node));
	mqs_array_node(holder, other, sizeof(other));
	mqs_format_uuid(holder_uuid, u);
	/* a valid superblock's name passed mqs_check_name(): printable */
	snprintf(what, sizeof(what),
		 "%s started as %s without its name: the running array %s (UUID %s) has the name '%s' (/dev/stripe/%s); give one of the two another name: 'stripectl rename %s NEWNAME'",
		 label, node, other, u, sb->name, sb->name, node);
	mqs_error("warning: %s", what);
	syslog(LOG_WARNING, "assemble: %s", what);
}

/*
 * The new superblocks: events @bump past the newest member's, state
 * active, the newest member's name.  Assembly writes them twice, bump 1 then bump 2, each pass on
 * every member: a member copied or left out while the array ran is then
 * two events behind after the next complete update (stale), a cut update
 * leaves at most one (docs/FORMAT.md "Updates").
 */
static int build_assembled(struct sbw *w, struct mqs_cand **m, uint32_t nr,
			   uint64_t data_bytes, uint32_t version,
			   uint32_t bump)
{
	uint64_t events = 0, now = (uint64_t)time(NULL);
	struct mqs_sb *sb;
	uint32_t s, newest = 0;

	for (s = 0; s < nr; s++) {
		if (m[s]->sb.events > events) {
			events = m[s]->sb.events;
			newest = s;
		}
	}
	sb = malloc(sizeof(*sb));
	if (!sb) {
		mqs_error("out of memory");
		return MQS_EXIT_FAIL;
	}
	for (s = 0; s < nr; s++) {
		/* the claim re-read the area: it must not have changed */
		if (memcmp(w[s].old, m[s]->block, MQS_SB_AREA_SIZE)) {
			mqs_error("%s: its superblock changed while assembling: retry",
				  m[s]->path);
			free(sb);
			return MQS_EXIT_FAIL;
		}
		*sb = m[s]->sb;
		if (sb->version != version) {
			/* --metadata 2: what format 1 does not record */
			sb->version = version;
			sb->nr_segments = 1;
			sb->queue_depth = 0;
			sb->feature_ro_compat = 0;
			sb->reshape_pos = 0;
		}
		/*
		 * every member is taken (current, or --force): a fault
		 * record of the last run has done its work
		 */
		sb->feature_compat &= ~MQS_SB_FEAT_COMPAT_FAULTS;
		sb->fault_events = 0;
		memset(sb->fault_slots, 0, sizeof(sb->fault_slots));
		/* a member one event behind a cut rename: the new name */
		memcpy(sb->name, m[newest]->sb.name, sizeof(sb->name));
		/* one behind a cut add: the members and segments after it */
		sb->nr_members = m[newest]->sb.nr_members;
		sb->feature_incompat = m[newest]->sb.feature_incompat;
		memcpy(sb->sizes, m[newest]->sb.sizes, sizeof(sb->sizes));
		if (mqs_sb_segmented(&m[newest]->sb)) {
			sb->nr_segments = m[newest]->sb.nr_segments;
			memcpy(sb->seg_members, m[newest]->sb.seg_members,
			       sizeof(sb->seg_members));
		}
		memcpy(sb->table, m[newest]->sb.table, sizeof(sb->table));
		sb->events = events + bump;
		sb->generation = m[s]->sb.generation + bump;
		sb->state = MQS_SB_STATE_ACTIVE;
		sb->utime = now;
		sb->data_bytes = data_bytes;
		memcpy(w[s].new, w[s].old, MQS_SB_AREA_SIZE);
		w[s].copies = mqs_sb_encode_area(sb, w[s].old +
						 m[s]->copies.chosen *
						 MQS_SB_SIZE, w[s].new);
	}
	free(sb);
	return MQS_EXIT_OK;
}

/*
 * The superblock format the update writes: --metadata, else the newest
 * one among the members (finishing a conversion a cut left half done).
 * Refuses what cannot be written: read-only-compatible features this
 * stripectl does not know (unless --readonly: nothing is written), a
 * conversion with no room for the second copy, or back to format 1.
 */
static int update_format(const struct asm_ctx *ctx, struct mqs_cand **m,
			 uint32_t nr, uint32_t *version)
{
	char label[MQS_ERR_LEN];
	uint32_t s, newest = 0;
	uint64_t ro;

	mqs_array_label(&m[0]->sb, label, sizeof(label));
	for (s = 0; s < nr; s++) {
		ro = m[s]->sb.feature_ro_compat &
		     (uint64_t)~MQS_SB_FEAT_RO_COMPAT_KNOWN;
		if (ro && !ctx->readonly) {
			mqs_error("%s: the superblock of %s has read-only-compatible features 0x%" PRIx64 " this stripectl does not know: it can start the array only read-only ('stripectl assemble --readonly'), or use a newer stripectl",
				  m[s]->path, label, ro);
			return MQS_EXIT_FAIL;
		}
		if (m[s]->sb.version > newest)
			newest = m[s]->sb.version;
	}
	if (ctx->metadata && ctx->metadata < newest) {
		mqs_error("%s: its superblocks are format %" PRIu32 ": they cannot be converted back to format %" PRIu32,
			  label, newest, ctx->metadata);
		return MQS_EXIT_FAIL;
	}
	*version = ctx->metadata ? ctx->metadata : newest;
	if (*version != MQS_SB_VERSION_1 &&
	    m[0]->sb.data_offset_bytes < mqs_sb_min_data_offset(*version)) {
		mqs_error("%s: cannot write superblock format %" PRIu32 ": its data offset of %" PRIu64 " bytes leaves no room for the second copy at byte 8192 (format 2 needs a data offset of at least 12K); assemble it without --metadata: it stays format 1",
			  label, *version, m[0]->sb.data_offset_bytes);
		return MQS_EXIT_FAIL;
	}
	for (s = 0; s < nr && !ctx->readonly; s++) {
		if (m[s]->sb.version == *version)
			continue;
		mqs_error("note: converting the superblocks of %s to format %" PRIu32 " (two copies, at bytes 4096 and 8192 of every member)",
			  label, *version);
		break;
	}
	return MQS_EXIT_OK;
}

/*
 * An array whose newest superblock says active was not stopped: a crash, a
 * power cut, or a shutdown that left it running (in use to the end, as an
 * array under /, or a system without the boot-time unit's stop).  Said on
 * stderr and in the system log once it runs: RAID0 keeps no redundancy, so
 * there is nothing to resync, but what the file system had not flushed
 * when it stopped may be lost, and a member that failed during that run
 * is behind only if record-fault recorded it (docs/FORMAT.md "Updates").
 */
static void report_unclean(const struct mqs_sb *sb)
{
	char label[MQS_ERR_LEN], what[2 * MQS_ERR_LEN];

	mqs_array_label(sb, label, sizeof(label));
	snprintf(what, sizeof(what),
		 "%s was not stopped cleanly (its superblocks say active: a crash, a power cut, or a shutdown that did not stop it); started: a RAID0 has nothing to resync, but writes its file system had not flushed may be lost (the file system's own recovery runs at mount), and a member that failed during that run is refused as stale only if its fault was recorded (stripectl record-fault, which the udev rule runs)",
		 label);
	mqs_error("warning: %s", what);
	syslog(LOG_WARNING, "assemble: %s", what);
}

/**
 * start_group() - start the array whose members are @m[0..nr-1], in slot
 *	order, already checked by mqs_group_check()
 * @ctx: assembly context.
 * @m: the members by slot.
 * @nr: the array's member count.
 * @quiet_if_running: an array already running is not an error (--scan).
 *
 * Return: MQS_EXIT_OK or MQS_EXIT_FAIL (message printed).
 */
static int start_group(struct asm_ctx *ctx, struct mqs_cand **m, uint32_t nr,
		       bool quiet_if_running)
{
	const struct mqs_sb *sb = &m[0]->sb;
	struct mqs_member_dev *members;
	struct mqs_create_req req;
	struct sbw *w = NULL;
	uint64_t min_size = UINT64_MAX, data_bytes;
	char uuid[37], a[32], b[32];
	uint8_t holder_uuid[MQSTRIPE_UUID_LEN];
	uint32_t s, index, version, holder;
	bool running, unclean;
	int rc, taken;

	/* the state as the array left it, before this start writes active */
	unclean = m[mqs_newest(m, nr)]->sb.state == MQS_SB_STATE_ACTIVE;
	rc = update_format(ctx, m, nr, &version);
	if (rc)
		return rc;
	if (ctx_ctl(ctx))
		return MQS_EXIT_FAIL;
	if (ctx->readonly &&
	    !(ctx->ctl.version.features & MQSTRIPE_FEAT_READONLY)) {
		mqs_error("assemble --readonly: the loaded mqstripe module cannot start an array read-only (its features lack 'readonly': see 'stripectl --version'); update the module");
		return MQS_EXIT_FAIL;
	}
	rc = check_running(ctx, sb, quiet_if_running, &running);
	if (rc || running)
		return rc;
	/* the newest superblock's name: a member one behind a cut rename */
	taken = name_taken(ctx, &m[mqs_newest(m, nr)]->sb, &holder,
			   holder_uuid);
	if (taken < 0)
		return MQS_EXIT_FAIL;

	members = calloc(nr, sizeof(*members));
	w = calloc(nr, sizeof(*w));
	if (!members || !w) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	for (s = 0; s < nr; s++) {
		members[s].path = m[s]->path;
		members[s].rdev = m[s]->devno;
		members[s].size_bytes = m[s]->size_bytes;
		members[s].lbs = m[s]->lbs;
		members[s].fd = -1;
		sbw_init(&w[s], m[s]->path);
		if (m[s]->size_bytes < min_size)
			min_size = m[s]->size_bytes;
	}
	for (s = 0; s < nr; s++) {
		members[s].fd = open(members[s].path, (ctx->readonly ?
				     O_RDONLY : O_RDWR) | O_CLOEXEC);
		if (members[s].fd < 0) {
			report_open_error(members[s].path, errno);
			rc = MQS_EXIT_FAIL;
			goto out;
		}
	}
	if (ctx->readonly) {
		/* nothing written: the members stay as they are, bit for bit */
		sb = &m[mqs_newest(m, nr)]->sb;
		data_bytes = sb->data_bytes;
		goto start;
	}
	for (s = 0; s < nr; s++) {
		rc = sbw_claim(&w[s]);
		if (rc)
			goto out;
	}
	/*
	 * The size is the newest recorded one (a member one event behind may
	 * hold the value before a cut-short assembly that grew the array),
	 * however much the members grew since: only --grow takes their room.
	 */
	sb = &m[mqs_newest(m, nr)]->sb;
	data_bytes = sb->data_bytes;
	if (ctx->grow && mqs_sb_zoned(sb)) {
		char label[MQS_ERR_LEN];

		mqs_array_label(sb, label, sizeof(label));
		mqs_error("%s: assemble --grow: growing an array of members of unequal size (zones) is not supported yet; assemble it without --grow",
			  label);
		rc = MQS_EXIT_FAIL;
		sbw_release(w, nr);
		goto out;
	}
	if (ctx->grow && mqs_data_bytes(min_size, sb->data_offset_bytes,
					sb->chunk_bytes) > data_bytes) {
		char label[MQS_ERR_LEN];

		data_bytes = mqs_data_bytes(min_size, sb->data_offset_bytes,
					    sb->chunk_bytes);
		mqs_array_label(sb, label, sizeof(label));
		mqs_error("note: %s grows: %s of data per member instead of %s",
			  label, mqs_size_human(data_bytes, a, sizeof(a)),
			  mqs_size_human(sb->data_bytes, b, sizeof(b)));
	}
	rc = build_assembled(w, m, nr, data_bytes, version, 1);
	if (!rc)
		rc = sbw_write_all(w, nr);
	/* a failed start goes back through it (sbw_restore_all()) */
	if (!rc)
		rc = sbw_keep_mid(w, nr);
	if (!rc)
		rc = build_assembled(w, m, nr, data_bytes, version, 2);
	if (!rc)
		rc = sbw_write_all(w, nr);
	sbw_release(w, nr);
	if (rc)
		goto out;

start:
	mqs_format_uuid(sb->array_uuid, uuid);
	req = (struct mqs_create_req){
		.members = members,
		.nr_members = nr,
		.chunk_bytes = sb->chunk_bytes,
		.data_offset_bytes = sb->data_offset_bytes,
		.member_data_bytes = data_bytes,
		.member_sizes = mqs_sb_zoned(sb) ? sb->sizes : NULL,
		.segment_members = mqs_sb_segmented(sb) ? sb->seg_members :
							  NULL,
		.nr_segments = mqs_sb_segmented(sb) ? sb->nr_segments : 0,
		/* the superblocks keep the name: a later start may have it */
		.name = sb->name[0] && !taken ? sb->name : NULL,
		.uuid = uuid,
		.readonly = ctx->readonly,
		.queue_depth = sb->queue_depth,
	};
	rc = start_array(&ctx->ctl, &req, sb->array_uuid, &index);
	if (rc) {
		if (!ctx->readonly)
			sbw_restore_all(w, nr);
		goto out;
	}
	incr_forget(sb->array_uuid);
	if (taken)
		say_nameless(sb, index, holder, holder_uuid);
	if (unclean)
		report_unclean(sb);
	rc = announce_array(&ctx->ctl, index);
out:
	for (s = 0; members && s < nr; s++)
		if (members[s].fd >= 0)
			close(members[s].fd);
	free(members);
	sbw_free(w, nr);
	return rc;
}

/*
 * --force: say which members are behind and by how much, on stderr and in
 * the system log (the admin accepted their stale data: a later look at
 * the data should find why).  The start bumps them with the others.
 */
static void report_stale(struct mqs_cand *const *c, size_t n)
{
	char label[MQS_ERR_LEN], what[2 * MQS_ERR_LEN];
	size_t i, newest = mqs_newest(c, n);
	uint64_t max_ev = c[newest]->sb.events;

	mqs_array_label(&c[0]->sb, label, sizeof(label));
	for (i = 0; i < n; i++) {
		size_t by = mqs_fault_recorded(c, n, i);

		if (c[i]->sb.events + 1 >= max_ev && by < n) {
			snprintf(what, sizeof(what),
				 "%s (slot %" PRIu32 " of %s) is recorded as faulty or gone by %s (at event %" PRIu64 ", its counter is %" PRIu64 "): started anyway (--force)",
				 c[i]->path, c[i]->sb.slot, label, c[by]->path,
				 c[by]->sb.fault_events, c[i]->sb.events);
			mqs_error("warning: %s; its data may be stale", what);
			syslog(LOG_WARNING, "assemble: %s", what);
			continue;
		}
		if (c[i]->sb.events + 1 >= max_ev)
			continue;
		snprintf(what, sizeof(what),
			 "%s (slot %" PRIu32 " of %s) is %" PRIu64 " events behind %s (%" PRIu64 " vs %" PRIu64 "): started anyway (--force)",
			 c[i]->path, c[i]->sb.slot, label,
			 max_ev - c[i]->sb.events, c[newest]->path,
			 c[i]->sb.events, max_ev);
		mqs_error("warning: %s; its data may be stale", what);
		syslog(LOG_WARNING, "assemble: %s", what);
	}
}

/* Check @c[0..n-1] (one array) and start it. */
/*
 * --scan: remember why array @uuid is incomplete (a slot missing) instead
 * of saying it now: its missing member may be an array that a later round
 * starts (an array on arrays).  Said after the last round if it still does
 * not run (assemble_scan_rounds()).
 */
static int defer_missing(struct asm_ctx *ctx, const uint8_t *uuid,
			 const char *why)
{
	struct asm_missing *more;
	size_t i;

	for (i = 0; i < ctx->nmissing; i++)
		if (!memcmp(ctx->missing[i].uuid, uuid, MQSTRIPE_UUID_LEN))
			break;
	if (i == ctx->nmissing) {
		more = realloc(ctx->missing, (i + 1) * sizeof(*more));
		if (!more) {
			mqs_error("%s", why);
			return MQS_EXIT_FAIL;
		}
		ctx->missing = more;
		ctx->nmissing++;
		memcpy(more[i].uuid, uuid, MQSTRIPE_UUID_LEN);
	}
	snprintf(ctx->missing[i].why, sizeof(ctx->missing[i].why), "%s", why);
	return ASM_DEFERRED;
}

/*
 * Two candidates on one disk (check_one_disk(): two paths of a namespace
 * with NVMe multipath off) are never taken as two members: they carry one
 * superblock, and whichever slot it names, the array must be assembled
 * through the multipath device.
 */
static int check_cand_disks(struct mqs_cand *const *c, size_t n)
{
	const char **paths;
	uint64_t *devs;
	size_t i;
	int rc = MQS_EXIT_FAIL;

	paths = calloc(n, sizeof(*paths));
	devs = calloc(n, sizeof(*devs));
	if (!paths || !devs) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		paths[i] = c[i]->path;
		devs[i] = c[i]->devno;
	}
	rc = check_one_disk(paths, devs, n);
out:
	free(paths);
	free(devs);
	return rc;
}

/*
 * An error of the automatic assembly about devices that udev's
 * --incremental found: also in the system log, where its stderr does not
 * go.
 */
static void incr_error(const struct asm_ctx *ctx, const char *what)
{
	mqs_error("%s", what);
	if (ctx->incremental)
		syslog(LOG_ERR, "assemble: %s", what);
}

/*
 * Devices @x and @y, found by --scan or --incremental, both claim one slot
 * (mqs_find_copies()); @more: how many other slots two devices claim.  A
 * clone set attached with the originals (a SAN or VM snapshot, a dd copy:
 * every member twice, the same superblocks on other disks) looks so: which
 * copy is meant cannot be told from the superblocks, and a start from the
 * devices that came first could take a mix of both.  Nothing starts, in
 * whichever order the devices come; the error names both devices and the
 * ways out.
 */
static void say_copies(const struct asm_ctx *ctx, const struct mqs_cand *x,
		       const struct mqs_cand *y, size_t more)
{
	char label[MQS_ERR_LEN], what[3 * MQS_ERR_LEN], others[64] = "";
	char m1[37], m2[37], u[37];

	mqs_array_label(&x->sb, label, sizeof(label));
	mqs_format_uuid(x->sb.member_uuid, m1);
	mqs_format_uuid(y->sb.member_uuid, m2);
	mqs_format_uuid(x->sb.array_uuid, u);
	if (more)
		snprintf(others, sizeof(others),
			 " (and %zu more slot%s on two devices)", more,
			 more > 1 ? "s" : "");
	if (!strcmp(m1, m2))
		snprintf(what, sizeof(what),
			 "%s and %s both claim slot %" PRIu32 " of %s with member UUID %s%s: two copies of the array's disks are attached (a clone or snapshot?); nothing started: detach one copy and run 'stripectl assemble --scan --uuid %s', or start one copy by hand, naming its devices: 'stripectl assemble DEVICE...' ('lsblk -o NAME,SERIAL,WWN' tells the disks apart)",
			 x->path, y->path, x->sb.slot, label, m1, others, u);
	else
		snprintf(what, sizeof(what),
			 "%s and %s both claim slot %" PRIu32 " of %s (member UUIDs %s and %s)%s; nothing started: detach the wrong one and run 'stripectl assemble --scan --uuid %s', or start the array by hand, naming its devices: 'stripectl assemble DEVICE...'",
			 x->path, y->path, x->sb.slot, label, m1, m2, others,
			 u);
	incr_error(ctx, what);
}

/* Two of @c[0..n-1] (one array) in one slot: said (say_copies()). */
static int refuse_copies(const struct asm_ctx *ctx, struct mqs_cand *const *c,
			 size_t n)
{
	size_t x, y, dup = mqs_find_copies(c, n, &x, &y);

	if (!dup)
		return MQS_EXIT_OK;
	say_copies(ctx, c[x], c[y], dup - 1);
	return MQS_EXIT_FAIL;
}

/*
 * Devices found by --scan or --incremental: leave out each of @c[0..*n-1]
 * that holds an older copy of a member another one holds newer
 * (mqs_newer_copy(): a disk copied or replaced, the array run since from
 * the other), naming it; @c is compacted.  Copies at one event count stay
 * for refuse_copies().
 */
static void drop_stale_copies(const struct asm_ctx *ctx, struct mqs_cand **c,
			      size_t *n)
{
	char label[MQS_ERR_LEN], what[2 * MQS_ERR_LEN + PATH_MAX];
	size_t i, k = 0, *newer;

	newer = calloc(*n ? *n : 1, sizeof(*newer));
	if (!newer)
		return;		/* refuse_copies() refuses them */
	for (i = 0; i < *n; i++)
		newer[i] = mqs_newer_copy(c, *n, i);
	for (i = 0; i < *n; i++) {
		if (newer[i] == *n) {
			c[k++] = c[i];
			continue;
		}
		mqs_array_label(&c[i]->sb, label, sizeof(label));
		snprintf(what, sizeof(what),
			 "%s: an older copy of slot %" PRIu32 " of %s (events %" PRIu64 ", %s has %" PRIu64 "): left out",
			 c[i]->path, c[i]->sb.slot, label, c[i]->sb.events,
			 c[newer[i]]->path, c[newer[i]]->sb.events);
		mqs_error("warning: %s", what);
		if (ctx->incremental)
			syslog(LOG_WARNING, "assemble: %s", what);
	}
	*n = k;
	free(newer);
}

/*
 * Leave out each of @c[0..*n-1] that is a new member of an add that did
 * not complete (mqs_add_leftover(): cut before any of the array's own
 * members took the new geometry), naming it; @c is compacted.  The array
 * starts as it was; "stripectl add" takes such a device again.
 */
static void drop_add_leftovers(const struct asm_ctx *ctx, struct mqs_cand **c,
			       size_t *n)
{
	char label[MQS_ERR_LEN], what[2 * MQS_ERR_LEN + PATH_MAX];
	size_t i, k = 0;
	bool *left;

	left = calloc(*n ? *n : 1, sizeof(*left));
	if (!left)
		return;		/* mqs_group_check() refuses them */
	for (i = 0; i < *n; i++)
		left[i] = mqs_add_leftover(c, *n, i);
	for (i = 0; i < *n; i++) {
		if (!left[i]) {
			c[k++] = c[i];
			continue;
		}
		mqs_array_label(&c[i]->sb, label, sizeof(label));
		snprintf(what, sizeof(what),
			 "%s: slot %" PRIu32 " of an add to %s that did not complete (the array's own members do not have it): left out, the array starts as it was; run 'stripectl add' again to add it",
			 c[i]->path, c[i]->sb.slot, label);
		mqs_error("warning: %s", what);
		if (ctx->incremental)
			syslog(LOG_WARNING, "assemble: %s", what);
	}
	*n = k;
	free(left);
}

static int check_and_start(struct asm_ctx *ctx, struct mqs_cand **c, size_t n,
			   bool quiet_if_running)
{
	char err[MQS_GROUP_ERR_LEN];
	struct mqs_cand **by_slot;
	size_t *slots;
	uint32_t s, nr;
	int rc;

	slots = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*slots));
	by_slot = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*by_slot));
	if (!slots || !by_slot) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	rc = check_cand_disks(c, n);
	if (rc)
		goto out;
	/* devices given by hand: mqs_group_check() says "leave the copy out" */
	if (ctx->found)
		drop_stale_copies(ctx, c, &n);
	rc = ctx->found ? refuse_copies(ctx, c, n) : MQS_EXIT_OK;
	if (rc)
		goto out;
	drop_add_leftovers(ctx, c, &n);
	rc = mqs_group_check(c, n, ctx->force, slots, err, sizeof(err));
	if (rc == -ENODEV && ctx->defer_missing) {
		rc = defer_missing(ctx, c[0]->sb.array_uuid, err);
		goto out;
	}
	if (rc) {
		/* udev's --incremental: its stderr goes nowhere */
		incr_error(ctx, err);
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	if (ctx->force)
		report_stale(c, n);
	/* the newest: one behind a cut add has fewer members */
	nr = c[mqs_newest(c, n)]->sb.nr_members;
	for (s = 0; s < nr; s++) {
		by_slot[s] = slots[s] < n ? c[slots[s]] : NULL;
		/* mqs_group_check() filled every slot */
		if (!by_slot[s]) {
			mqs_error("internal error: slot %u has no member", s);
			rc = MQS_EXIT_FAIL;
			goto out;
		}
	}
	rc = start_group(ctx, by_slot, nr, quiet_if_running);
out:
	free(slots);
	free(by_slot);
	return rc;
}

/* ----- assemble DEVICE... ----- */

static int assemble_devices(struct asm_ctx *ctx, char **paths, size_t n,
			    const char *name, const uint8_t *uuid)
{
	struct mqs_member_dev *members;
	struct mqs_cand *cands, **c = NULL, **chosen_c = NULL;
	bool *chosen = NULL;
	char err[MQS_GROUP_ERR_LEN];
	size_t i, k = 0;
	int rc = MQS_EXIT_FAIL;

	members = calloc(n, sizeof(*members));
	cands = calloc(n, sizeof(*cands));
	c = calloc(n, sizeof(*c));
	chosen_c = calloc(n, sizeof(*chosen_c));
	chosen = calloc(n, sizeof(*chosen));
	if (!members || !cands || !c || !chosen_c || !chosen) {
		mqs_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		members[i].path = paths[i];
		if (check_member_path(&members[i]))
			goto out;
	}
	if (check_distinct(members, n))
		goto out;
	for (i = 0; i < n; i++) {
		mqs_cand_read(&cands[i], paths[i]);
		c[i] = &cands[i];
	}
	for (i = 0; i < n; i++) {
		if (!cands[i].read_err && cands[i].status == MQS_SB_OK)
			continue;
		/* without a superblock: a cut create or zero-superblock? */
		mqs_cut_hint(c, n, i, err, sizeof(err));
		report_cand_hint(&cands[i], err);
		goto out;
	}
	if (mqs_select_array(c, n, name, uuid, chosen, err, sizeof(err))) {
		mqs_error("%s", err);
		goto out;
	}
	for (i = 0; i < n; i++)
		if (chosen[i])
			chosen_c[k++] = c[i];
	rc = check_and_start(ctx, chosen_c, k, false);
out:
	for (i = 0; cands && i < n; i++)
		mqs_cand_free(&cands[i]);
	free(members);
	free(cands);
	free(c);
	free(chosen_c);
	free(chosen);
	return rc;
}

/* ----- assemble --scan ----- */

/* Statuses whose version-1 fields (the array UUID) can be trusted a bit. */
static bool has_v1_fields(enum mqs_sb_status st)
{
	return st != MQS_SB_NONE && st != MQS_SB_BAD_VERSION;
}

/* A name counts only from a valid superblock (a damaged one's is noise). */
static bool selected(const struct mqs_cand *c, const char *name,
		     const uint8_t *uuid)
{
	if (name)
		return c->status == MQS_SB_OK && !strcmp(c->sb.name, name);
	if (uuid)
		return !memcmp(c->sb.array_uuid, uuid, MQSTRIPE_UUID_LEN);
	return true;
}

/* Two groups (by their first devices) of valid superblocks, one name? */
static bool same_name(const struct mqs_cand *a, const struct mqs_cand *b)
{
	return a->status == MQS_SB_OK && b->status == MQS_SB_OK &&
	       a->sb.name[0] && !strcmp(a->sb.name, b->sb.name);
}

/*
 * The slots of array @uuid that the devices with valid superblocks among
 * @cands[0..n-1] fill (each slot once).
 */
static uint32_t slots_found(const struct mqs_cand *cands, size_t n,
			    const uint8_t *uuid)
{
	bool seen[MQSTRIPE_MAX_MEMBERS] = { false };
	uint32_t found = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct mqs_sb *sb = &cands[i].sb;

		if (cands[i].status != MQS_SB_OK ||
		    memcmp(sb->array_uuid, uuid, MQSTRIPE_UUID_LEN) ||
		    sb->slot >= MQSTRIPE_MAX_MEMBERS || seen[sb->slot])
			continue;
		seen[sb->slot] = true;
		found++;
	}
	return found;
}

/*
 * An array that /etc/mqstripe.conf keeps --scan from starting: a note
 * saying so, unless it runs (started by hand).
 */
static void note_denied(struct asm_ctx *ctx, const struct mqs_conf *conf,
			const struct mqs_sb *sb, const char *path)
{
	char label[MQS_ERR_LEN], why[MQS_ERR_LEN], u[37];
	struct mqstripe_info info;
	uint32_t index;

	if (!mqs_find_uuid(&ctx->ctl, sb->array_uuid, &index, &info))
		return;
	mqs_array_label(sb, label, sizeof(label));
	mqs_conf_allows(conf, sb->array_uuid, sb->name, why, sizeof(why));
	mqs_format_uuid(sb->array_uuid, u);
	mqs_error("note: %s (on %s) not started: %s; to start it now: 'stripectl assemble --scan --uuid %s'",
		  label, path, why, u);
}

/* Has array @array_uuid a device no earlier --scan round examined? */
static bool group_is_new(const struct asm_ctx *ctx,
			 const struct mqs_cand *cands, size_t n,
			 const uint8_t *array_uuid)
{
	size_t i, j;

	if (!ctx->round)
		return true;
	for (i = 0; i < n; i++) {
		if (!has_v1_fields(cands[i].status) ||
		    memcmp(cands[i].sb.array_uuid, array_uuid,
			   MQSTRIPE_UUID_LEN))
			continue;
		for (j = 0; j < ctx->nseen; j++)
			if (ctx->seen[j] == cands[i].devno)
				break;
		if (j == ctx->nseen)
			return true;
	}
	return false;
}

/* Remember the devices of this --scan round; false when out of memory. */
static bool remember_seen(struct asm_ctx *ctx, const struct mqs_cand *cands,
			  size_t n)
{
	uint64_t *more;
	size_t i;

	more = realloc(ctx->seen, (ctx->nseen + n + 1) * sizeof(*more));
	if (!more)
		return false;
	ctx->seen = more;
	for (i = 0; i < n; i++)
		ctx->seen[ctx->nseen++] = cands[i].devno;
	return true;
}

/*
 * Group the scanned devices by array UUID; a group's first device is its
 * first with a valid superblock, if it has one.  Names count only from
 * valid superblocks: with --name, two arrays of that name refuse both;
 * without --name or --uuid, of two of one name the first started gets the
 * name and the other starts without it (start_group(); a damaged
 * superblock is no twin: it is refused on its own); an incomplete array
 * whose twin is complete is a stray disk of another array (a disk moved
 * from another host): it is named and left alone.  An array that
 * /etc/mqstripe.conf does not allow is left alone (a note says why) and
 * does not count as a twin.  For each selected array: skip it if it runs,
 * refuse it if one of its devices has a damaged superblock, else check
 * and start it.  One array failing does not keep the others from starting.
 */
static int assemble_scan(struct asm_ctx *ctx, const char *name,
			 const uint8_t *uuid, const struct mqs_conf *conf)
{
	struct mqs_cand *cands = NULL, **group = NULL;
	size_t n = 0, i, j, k, ngroups = 0, *first = NULL;
	char u1[37], u2[37], why[MQS_ERR_LEN];
	char shown[MQS_SB_SHOWN_NAME_LEN];
	int rc, ret = MQS_EXIT_OK;
	bool *done = NULL, *denied = NULL, *complete = NULL;

	rc = mqs_scan_devices(&cands, &n);
	if (rc)
		return rc;
	group = calloc(n ? n : 1, sizeof(*group));
	done = calloc(n ? n : 1, sizeof(*done));
	first = calloc(n ? n : 1, sizeof(*first));
	denied = calloc(n ? n : 1, sizeof(*denied));
	complete = calloc(n ? n : 1, sizeof(*complete));
	if (!group || !done || !first || !denied || !complete) {
		mqs_error("out of memory");
		ret = MQS_EXIT_FAIL;
		goto out;
	}
	/* the first device of every selected array */
	for (i = 0; i < n; i++) {
		if (!has_v1_fields(cands[i].status)) {
			/* not even its array can be told */
			if (!name && !uuid) {
				report_cand(&cands[i]);
				ret = MQS_EXIT_FAIL;
			}
			continue;
		}
		if (!selected(&cands[i], name, uuid))
			continue;
		for (j = 0; j < ngroups; j++)
			if (!memcmp(cands[first[j]].sb.array_uuid,
				    cands[i].sb.array_uuid, MQSTRIPE_UUID_LEN))
				break;
		if (j == ngroups)
			first[ngroups++] = i;
		else if (cands[i].status == MQS_SB_OK &&
			 cands[first[j]].status != MQS_SB_OK)
			first[j] = i;
	}
	for (j = 0; j < ngroups; j++) {
		denied[j] = !name && !uuid &&
			!mqs_conf_allows(conf, cands[first[j]].sb.array_uuid,
					 cands[first[j]].sb.name, why,
					 sizeof(why));
		complete[j] = slots_found(cands, n,
					  cands[first[j]].sb.array_uuid) ==
			      cands[first[j]].sb.nr_members;
	}
	if (name && ngroups > 1) {
		mqs_format_uuid(cands[first[0]].sb.array_uuid, u1);
		mqs_format_uuid(cands[first[1]].sb.array_uuid, u2);
		mqs_error("two arrays are named '%s' (UUID %s on %s, UUID %s on %s): pick one with --uuid",
			  name, u1, cands[first[0]].path, u2,
			  cands[first[1]].path);
		ret = MQS_EXIT_FAIL;
		goto out;
	}
	if ((name || uuid) && !ngroups) {
		if (name) {
			mqs_error("no member of an array named '%s' found (%zu devices carry a superblock)",
				  name, n);
		} else {
			mqs_format_uuid(uuid, u1);
			mqs_error("no member of the array with UUID %s found (%zu devices carry a superblock)",
				  u1, n);
		}
		ret = MQS_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < ngroups; i++) {
		const struct mqs_sb *ref = &cands[first[i]].sb;
		const struct mqs_cand *bad = NULL;
		bool running;
		size_t twin;

		/* said in an earlier round */
		if (!group_is_new(ctx, cands, n, ref->array_uuid))
			continue;

		/*
		 * Two arrays of one name: both start, the first one with the
		 * name (/dev/stripe/NAME), the other without it, saying so
		 * (start_group()), as --incremental decides; one that runs
		 * keeps it.  An incomplete array whose twin is complete is a
		 * stray disk (a disk moved from another host): named and left
		 * alone.
		 */
		for (twin = 0; twin < ngroups; twin++)
			if (twin != i && !denied[twin] && complete[twin] &&
			    same_name(&cands[first[i]], &cands[first[twin]]))
				break;
		if (!denied[i] && twin < ngroups && !complete[i]) {
			mqs_format_uuid(ref->array_uuid, u1);
			mqs_format_uuid(cands[first[twin]].sb.array_uuid, u2);
			mqs_error("array %s (on %s) not started: %" PRIu32 " of its %" PRIu32 " members found, and the complete array %s (on %s) has the same name '%s': a stray disk; left alone",
				  u1, cands[first[i]].path,
				  slots_found(cands, n, ref->array_uuid),
				  ref->nr_members, u2, cands[first[twin]].path,
				  mqs_sb_shown_name(ref->name, shown));
			ret = MQS_EXIT_FAIL;
			continue;
		}

		k = 0;
		for (j = 0; j < n; j++) {
			if (done[j] || !has_v1_fields(cands[j].status) ||
			    memcmp(cands[j].sb.array_uuid, ref->array_uuid,
				   MQSTRIPE_UUID_LEN))
				continue;
			done[j] = true;
			if (cands[j].status != MQS_SB_OK) {
				if (!bad)
					bad = &cands[j];
				continue;
			}
			group[k++] = &cands[j];
		}
		if (ctx_ctl(ctx)) {
			ret = MQS_EXIT_FAIL;
			break;
		}
		if (denied[i]) {
			note_denied(ctx, conf, ref, cands[first[i]].path);
			continue;
		}
		/* no valid superblock: its name and the rest are not to be trusted */
		if (!k) {
			report_cand(bad);
			ret = MQS_EXIT_FAIL;
			continue;
		}
		if (check_running(ctx, ref, true, &running)) {
			ret = MQS_EXIT_FAIL;
			continue;
		}
		if (running)
			continue;
		if (bad) {
			report_cand(bad);
			ret = MQS_EXIT_FAIL;
			continue;
		}
		rc = check_and_start(ctx, group, k, true);
		if (!rc)
			ctx->started++;
		else if (rc != ASM_DEFERRED)
			ret = MQS_EXIT_FAIL;
	}
	if (!remember_seen(ctx, cands, n))
		ctx->started = 0;	/* no further round */
out:
	free(group);
	free(done);
	free(first);
	free(denied);
	free(complete);
	mqs_free_cands(cands, n);
	return ret;
}

/*
 * --scan in rounds: an array whose members are arrays (or partitions of
 * arrays) can start only once they run, so another round follows every
 * round that started an array, examining only arrays with a device no
 * round has seen (no message twice).  Bounded by the stacking depth the
 * module allows and then some.
 */
#define MQS_SCAN_ROUNDS	8

static int assemble_scan_rounds(struct asm_ctx *ctx, const char *name,
				const uint8_t *uuid)
{
	struct mqs_conf conf = { .auto_start = true };
	struct mqstripe_info info;
	uint32_t index;
	int rc = MQS_EXIT_OK;
	size_t i;

	/* the automatic assembly only: --name and --uuid start what they name */
	if (!name && !uuid && conf_load(&conf, "")) {
		mqs_conf_free(&conf);
		return MQS_EXIT_FAIL;
	}
	ctx->defer_missing = true;
	for (ctx->round = 0; ctx->round < MQS_SCAN_ROUNDS; ctx->round++) {
		ctx->started = 0;
		if (assemble_scan(ctx, name, uuid, &conf))
			rc = MQS_EXIT_FAIL;
		/* a started array's node exists (start.c makes it if need be) */
		if (!ctx->started)
			break;
	}
	/* the incomplete arrays that no round completed */
	for (i = 0; i < ctx->nmissing; i++) {
		if (!ctx_ctl(ctx) &&
		    !mqs_find_uuid(&ctx->ctl, ctx->missing[i].uuid, &index,
				   &info))
			continue;
		mqs_error("%s", ctx->missing[i].why);
		rc = MQS_EXIT_FAIL;
	}
	free(ctx->missing);
	ctx->missing = NULL;
	ctx->nmissing = 0;
	ctx->defer_missing = false;
	free(ctx->seen);
	ctx->seen = NULL;
	ctx->nseen = 0;
	mqs_conf_free(&conf);
	return rc;
}

/* ----- assemble --incremental DEVICE ----- */

static int write_record(const char *dir, uint32_t slot, uint64_t devno,
			const uint8_t member_uuid[16])
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 32], u[37];
	FILE *f;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	mqs_format_uuid(member_uuid, u);
	snprintf(path, sizeof(path), "%s/slot-%u", dir, slot);
	snprintf(tmp, sizeof(tmp), "%s/.slot-%u.tmp", dir, slot);
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "%u:%u %s\n", major(devno), minor(devno), u);
	if (fclose(f)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path))
		return -errno;
	return 0;
}

/*
 * The device recorded for @slot, read again: 0 and @c filled if it still
 * carries a valid superblock of this array in that slot, else -ENOENT
 * (and the stale record is removed).
 */
static int read_record(const char *dir, uint32_t slot, const uint8_t uuid[16],
		       struct mqs_cand *c)
{
	char path[PATH_MAX + 32], node[PATH_MAX], u[40];
	unsigned int ma, mi;
	char *p;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/slot-%u", dir, slot);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	n = fscanf(f, "%u:%u %39s", &ma, &mi, u);
	fclose(f);
	/* gone, or a stacked device (dm, md) took it over since */
	if (n != 3 || mqs_find_node(makedev(ma, mi), node, sizeof(node)) ||
	    mqs_stacked_under(makedev(ma, mi), node, sizeof(node)))
		goto stale;
	p = strdup(node);
	if (!p)
		return -ENOMEM;
	mqs_cand_read(c, p);
	if (!c->read_err && c->status == MQS_SB_OK && c->sb.slot == slot &&
	    !memcmp(c->sb.array_uuid, uuid, MQSTRIPE_UUID_LEN))
		return 0;
	mqs_cand_free(c);
	free(p);
	c->path = NULL;
stale:
	unlink(path);
	return -ENOENT;
}

/*
 * Is @me a member of the running array @index?  1: it is; 0: it is not
 * (@holder: the node of the member in @me's slot, "" if it has none);
 * -1: it is another path of one of them (one identity, check_one_disk():
 * two paths of a namespace with NVMe multipath off), an error said here,
 * naming both.
 */
static int running_member(struct asm_ctx *ctx, uint32_t index,
			  const struct mqs_cand *me, char *holder, size_t len)
{
	struct mqstripe_member_info *m;
	struct mqstripe_info info;
	char node[PATH_MAX];
	const char *pair[2];
	uint64_t devs[2];
	uint32_t i, nr;
	int ret = 0;

	holder[0] = '\0';
	m = calloc(MQSTRIPE_MAX_MEMBERS, sizeof(*m));
	if (!m)
		return 0;
	if (mqs_info(&ctx->ctl, index, &info, m, MQSTRIPE_MAX_MEMBERS))
		goto out;
	nr = info.nr_members < MQSTRIPE_MAX_MEMBERS ? info.nr_members :
						     MQSTRIPE_MAX_MEMBERS;
	for (i = 0; i < nr; i++) {
		if (makedev(m[i].major, m[i].minor) == me->devno) {
			ret = 1;
			goto out;
		}
	}
	pair[1] = me->path;
	devs[1] = me->devno;
	for (i = 0; i < nr; i++) {
		devs[0] = makedev(m[i].major, m[i].minor);
		if (mqs_find_node(devs[0], node, sizeof(node)))
			continue;	/* gone */
		pair[0] = node;
		if (check_one_disk(pair, devs, 2) != MQS_EXIT_OK) {
			ret = -1;
			break;
		}
		if (m[i].slot == me->sb.slot)
			snprintf(holder, len, "%s", node);
	}
out:
	free(m);
	return ret;
}

/*
 * May udev's --incremental start this array (/etc/mqstripe.conf)?  When
 * not, says why: the device is not recorded, nothing is started.
 */
static bool incr_allowed(const char *path, const struct mqs_sb *sb,
			 const char *label)
{
	char why[MQS_ERR_LEN], u[37], what[PATH_MAX + 3];
	struct mqs_conf conf;
	bool ok = false;

	snprintf(what, sizeof(what), "%s: ", path);
	if (conf_load(&conf, what))
		goto out;	/* said */
	ok = mqs_conf_allows(&conf, sb->array_uuid, sb->name, why,
			     sizeof(why));
	if (!ok) {
		mqs_format_uuid(sb->array_uuid, u);
		mqs_error("%s: %s not started: %s; to start it now: 'stripectl assemble --scan --uuid %s'",
			  path, label, why, u);
	}
out:
	mqs_conf_free(&conf);
	return ok;
}

/*
 * --incremental starts an array from its recorded devices @c (one per
 * slot) together with every other device that carries one of its slots,
 * as --scan finds devices (mqs_scan_devices()).  The records hold the
 * first device seen per slot: at a boot udev runs the devices' add events
 * in any order, and a clone set attached with the originals could start
 * from a mix of both.  Here the start is decided as --scan decides it
 * (check_and_start()), whichever copy came first: an older copy of a
 * member is left out for the newer one, a slot on two devices otherwise
 * starts nothing (say_copies()).  Another path of a recorded device (one
 * identity: check_one_disk()) is no copy: it was refused as such when it
 * came, and the array starts over the recorded one.
 */
static int incr_start(struct asm_ctx *ctx, struct mqs_cand **c, uint32_t nr)
{
	struct mqs_cand *cands = NULL, **all = NULL;
	size_t n = 0, i, k = 0;
	uint32_t s;
	int rc;

	rc = mqs_scan_devices(&cands, &n);
	if (rc)
		return rc;
	all = calloc(nr + n, sizeof(*all));
	if (!all) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	for (s = 0; s < nr; s++)
		all[k++] = c[s];
	for (i = 0; i < n; i++) {
		const struct mqs_cand *d = &cands[i];

		if (d->read_err || d->status != MQS_SB_OK ||
		    memcmp(d->sb.array_uuid, c[0]->sb.array_uuid,
			   MQSTRIPE_UUID_LEN))
			continue;
		for (s = 0; s < nr; s++)
			if (c[s]->devno == d->devno ||
			    (c[s]->sb.slot == d->sb.slot &&
			     same_disk(c[s]->devno, d->devno)))
				break;
		if (s == nr)
			all[k++] = &cands[i];
	}
	rc = check_and_start(ctx, all, k, false);
out:
	free(all);
	mqs_free_cands(cands, n);
	return rc;
}

static int assemble_incremental(struct asm_ctx *ctx, const char *given)
{
	char dir[PATH_MAX], label[MQS_ERR_LEN], node[64], holder[PATH_MAX];
	char what[3 * MQS_ERR_LEN], pbuf[PATH_MAX];
	/* udev's $devnode of a map is /dev/dm-N: named by its map */
	const char *path = mqs_people_path(given, pbuf, sizeof(pbuf));
	struct mqs_member_dev member = { .path = path };
	struct mqstripe_info info;
	struct mqs_cand me, *cands = NULL, **c = NULL;
	uint32_t s, nr = 0, index, have = 0;
	int rc = MQS_EXIT_FAIL, r, running;

	memset(&me, 0, sizeof(me));
	if (check_member_path(&member))
		return MQS_EXIT_FAIL;
	mqs_cand_read(&me, path);
	if (me.read_err || me.status != MQS_SB_OK) {
		report_cand(&me);
		goto out;
	}
	/*
	 * Under a dm map or an md mirror that shows the same superblock: the
	 * device on top is the member and gets an event of its own.
	 */
	if (mqs_stacked_under(me.devno, node, sizeof(node))) {
		rc = MQS_EXIT_OK;
		goto out;
	}
	mqs_array_label(&me.sb, label, sizeof(label));
	/* the records are kept next to the lock: no going on without it */
	ctx->lock_fd = mqs_meta_lock(true);
	if (ctx->lock_fd < 0)
		goto out;
	/* idempotent: a member of the running array is done */
	if (ctx_ctl(ctx))
		goto out;
	r = mqs_find_uuid(&ctx->ctl, me.sb.array_uuid, &index, &info);
	if (!r) {
		running = running_member(ctx, index, &me, holder,
					 sizeof(holder));
		if (running > 0)
			rc = MQS_EXIT_OK;
		if (running)
			goto out;
		/* a clone's member after the array started from the other copy */
		mqs_array_node(index, node, sizeof(node));
		snprintf(what, sizeof(what),
			 "%s: a copy of slot %" PRIu32 " of %s, which runs as %s from %s: not taken; two copies of the array's disks are attached (a clone or snapshot?): detach one ('lsblk -o NAME,SERIAL,WWN' tells the disks apart); if the array runs from the wrong one, stop it and start it by hand, naming the devices: 'stripectl assemble DEVICE...'",
			 path, me.sb.slot, label, node,
			 holder[0] ? holder : "a device no longer present");
		incr_error(ctx, what);
		goto out;
	}
	uuid_dir(me.sb.array_uuid, dir, sizeof(dir));
	/* the change events of its own stop's writes */
	if (ctx->change && incr_was_stopped(dir)) {
		rc = MQS_EXIT_OK;
		goto out;
	}
	if (!incr_allowed(path, &me.sb, label))
		goto out;

	cands = calloc(me.sb.nr_members, sizeof(*cands));
	c = calloc(me.sb.nr_members, sizeof(*c));
	if (!cands || !c) {
		mqs_error("out of memory");
		goto out;
	}
	nr = me.sb.nr_members;
	for (s = 0; s < nr; s++) {
		if (s == me.sb.slot)
			continue;
		if (!read_record(dir, s, me.sb.array_uuid, &cands[s]))
			c[have++] = &cands[s];
	}
	/*
	 * Another device recorded for our slot: one is a copy.  An older copy
	 * of the member gives way to the newer (the start names it, if it is
	 * still there); else nothing is taken.
	 */
	if (!read_record(dir, me.sb.slot, me.sb.array_uuid,
			 &cands[me.sb.slot])) {
		struct mqs_cand *pair[2] = { &cands[me.sb.slot], &me };

		if (cands[me.sb.slot].devno != me.devno &&
		    mqs_newer_copy(pair, 2, 0) == 2) {
			size_t slots[MQSTRIPE_MAX_MEMBERS], two = 2;
			char err[MQS_ERR_LEN];

			if (check_cand_disks(pair, 2))
				goto out;
			/* we are the older copy: said, not recorded */
			if (mqs_newer_copy(pair, 2, 1) == 0) {
				drop_stale_copies(ctx, pair, &two);
				goto out;
			}
			if (mqs_group_check(pair, 2, false, slots, err,
					    sizeof(err)) == -EEXIST)
				say_copies(ctx, pair[0], pair[1], 0);
			else
				mqs_error("%s", err);
			goto out;
		}
		mqs_cand_free(&cands[me.sb.slot]);
		free((char *)cands[me.sb.slot].path);
		cands[me.sb.slot].path = NULL;
	}
	r = write_record(dir, me.sb.slot, me.devno, me.sb.member_uuid);
	if (r) {
		mqs_error("cannot record %s in %s: %s", path, dir,
			  strerror(-r));
		goto out;
	}
	c[have++] = &me;
	if (have < nr) {
		rc = MQS_EXIT_OK;	/* waiting for the others */
		goto out;
	}
	/* as --scan would see them: a copy of a slot anywhere counts */
	rc = incr_start(ctx, c, have);
	/*
	 * A failed start may have written the members (and put their blocks
	 * back): on md and loop members those writes make change events,
	 * which would try again, and again.  At a change event a failed start
	 * leaves the array as a stop does; add events record it anew, and a
	 * start by hand goes on.
	 */
	if (rc && ctx->change)
		incr_stopped(me.sb.array_uuid);
out:
	mqs_cand_free(&me);
	for (s = 0; cands && s < nr; s++) {
		mqs_cand_free(&cands[s]);
		free((char *)cands[s].path);
	}
	free(cands);
	free(c);
	return rc;
}

int cmd_assemble(const struct cmd *cmd, int argc, char **argv)
{
	bool scan = false, incremental = false, force = false, readonly = false;
	bool change = false, grow = false;
	const char *name = NULL, *uuid_str = NULL;
	uint64_t metadata = 0;
	const struct opt opts[] = {
		{ "scan", 's', OPT_FLAG, &scan, NULL, NULL,
		  "examine every block device (/proc/partitions) instead of the DEVICEs given, and start every complete array found that is not running; of two arrays of one name the one running or started first gets the name, the other starts without it, with a warning (as every kind of assemble does)" },
		{ "incremental", 'I', OPT_FLAG, &incremental, NULL, NULL,
		  "record one DEVICE (for udev) and start its array when its last member has arrived, unless another device carries one of its slots too (a copy: as --scan, nothing starts; an older copy of a member, at a lower event count, is left out for the newer one); again for a member of a running array does nothing" },
		{ "change", 0, OPT_FLAG, &change, NULL, NULL,
		  "with --incremental, for udev's change events (a device-mapper or md device activated, a loop device attached): as --incremental, except that an array 'stripectl stop' stopped since boot stays stopped" },
		{ "name", 'n', OPT_STR, &name, NULL, "NAME",
		  "assemble only the array with this name" },
		{ "uuid", 'u', OPT_STR, &uuid_str, NULL, "UUID",
		  "assemble only the array with this UUID" },
		{ "force", 'f', OPT_FLAG, &force, NULL, NULL,
		  "start the array even with stale members (a copy, or one that missed updates: behind by more than one event), saying which and by how much; not for incremental assembly" },
		{ "readonly", 'r', OPT_FLAG, &readonly, NULL, NULL,
		  "start the array read-only without writing anything to the members (no superblock update, the members claimed read-only, writes to the array refused): to look at an array as it is; not for incremental assembly" },
		{ "metadata", 'e', OPT_UINT, &metadata, NULL, "VERSION",
		  "convert the superblocks to this format version while starting (2: two copies with a generation counter; needs a data offset of at least 12K); without it the format stays as it is" },
		{ "grow", 'g', OPT_FLAG, &grow, NULL, NULL,
		  "use all the room the members now have (the smallest, after the data offset) and record it, when they grew since the array was created; without it the array keeps the size its superblocks record; not for incremental assembly" },
		{ 0 }
	};
	struct asm_ctx ctx = { .lock_fd = -1 };
	char err[MQS_ERR_LEN];
	uint8_t uuid[16];
	int first, nargs, rc;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	nargs = argc - first;
	if (scan && incremental) {
		mqs_error("assemble: --scan and --incremental exclude each other: see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (name && uuid_str) {
		mqs_error("assemble: give --name or --uuid, not both: see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (change && !incremental) {
		mqs_error("assemble: --change goes with --incremental: see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (incremental && (name || uuid_str || force || readonly ||
			    metadata || grow || nargs != 1)) {
		mqs_error("assemble: --incremental takes exactly one DEVICE and no --name, --uuid, --force, --readonly, --metadata or --grow: see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (metadata && readonly) {
		mqs_error("assemble: --metadata converts the superblocks, --readonly writes nothing: give one of them");
		return MQS_EXIT_USAGE;
	}
	if (grow && readonly) {
		mqs_error("assemble: --grow records the new size in the superblocks, --readonly writes nothing: give one of them");
		return MQS_EXIT_USAGE;
	}
	if (metadata && metadata != MQS_SB_VERSION_2) {
		mqs_error("--metadata: superblocks can be converted to format 2 only (from format 1): see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (scan && nargs) {
		mqs_error("assemble: unexpected argument '%s' with --scan: see 'stripectl assemble --help'",
			  argv[first]);
		return MQS_EXIT_USAGE;
	}
	if (!scan && !nargs) {
		mqs_error("assemble: no DEVICE given (or --scan): see 'stripectl assemble --help'");
		return MQS_EXIT_USAGE;
	}
	if (name && mqs_check_name(name, err, sizeof(err))) {
		mqs_error("--name: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (uuid_str && mqs_parse_uuid(uuid_str, uuid, err, sizeof(err))) {
		mqs_error("--uuid: %s", err);
		return MQS_EXIT_USAGE;
	}

	ctx.force = force;
	ctx.readonly = readonly;
	ctx.grow = grow;
	ctx.change = change;
	ctx.incremental = incremental;
	ctx.found = incremental || scan;
	ctx.metadata = (uint32_t)metadata;
	if (!incremental) {
		ctx.lock_fd = mqs_meta_lock(false);
		if (ctx.lock_fd == -ETIMEDOUT)
			return MQS_EXIT_FAIL;
	}
	if (incremental) {
		rc = assemble_incremental(&ctx, argv[first]);
	} else if (scan) {
		rc = assemble_scan_rounds(&ctx, name, uuid_str ? uuid : NULL);
		/*
		 * a member of a running array that failed while no udevd ran
		 * record-fault (in the initramfs after its udevd, an event
		 * lost): recorded now, under the lock held
		 */
		if (record_faults_all(false))
			rc = MQS_EXIT_FAIL;
		/* the dm-crypt members of every running array, listed */
		mqs_crypt_list_running();
	} else {
		rc = assemble_devices(&ctx, argv + first, (size_t)nargs, name,
				      uuid_str ? uuid : NULL);
	}
	if (ctx.ctl_open)
		mqs_ctl_close(&ctx.ctl);
	mqs_meta_unlock(ctx.lock_fd);
	return rc;
}
