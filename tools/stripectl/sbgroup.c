// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of "stripectl assemble": members are matched by array UUID
 * and ordered by the slot in their superblocks, never by device name or
 * by the order they were given in.  Every refusal is one message that
 * names the device (and the slot or UUID) at fault.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sbgroup.h"

/*
 * "array 'db' (UUID ...)" or "array (UUID ...)" for an unnamed one; the
 * name escaped (mqs_sb_shown_name()): a refused superblock's may hold any
 * bytes.
 */
void mqs_array_label(const struct mqs_sb *sb, char *buf, size_t len)
{
	char uuid[37], name[MQS_SB_SHOWN_NAME_LEN];

	mqs_format_uuid(sb->array_uuid, uuid);
	if (sb->name[0])
		snprintf(buf, len, "array '%s' (UUID %s)",
			 mqs_sb_shown_name(sb->name, name), uuid);
	else
		snprintf(buf, len, "array (UUID %s)", uuid);
}

static bool same_uuid(const uint8_t *a, const uint8_t *b)
{
	return !memcmp(a, b, MQSTRIPE_UUID_LEN);
}

/**
 * mqs_select_array() - pick the members of one array among devices
 * @c: the devices, each with a valid superblock (status MQS_SB_OK).
 * @n: how many.
 * @name: --name, or NULL.
 * @uuid: --uuid (16 bytes), or NULL.
 * @chosen: out: chosen[i] tells whether @c[i] is a member of the array.
 * @err: the reason on failure.
 * @len: room at @err.
 *
 * Without @name and @uuid every device must belong to one array: a device
 * of another array is refused, named.  With them, the devices of other
 * arrays are left out.
 *
 * Return: 0; -ENOENT (nothing matches the selection), -EINVAL (devices of
 * different arrays, or two arrays share the name).
 */
int mqs_select_array(struct mqs_cand *const *c, size_t n, const char *name,
		     const uint8_t *uuid, bool *chosen, char *err,
		     size_t len)
{
	char a[MQS_ERR_LEN], b[MQS_ERR_LEN];
	size_t i, j, best = 0, best_count = 0, first = n;

	if (!name && !uuid) {
		/* the array most devices belong to; the others are extra */
		for (i = 0; i < n; i++) {
			size_t count = 0;

			for (j = 0; j < n; j++)
				count += same_uuid(c[i]->sb.array_uuid,
						   c[j]->sb.array_uuid);
			if (count > best_count) {
				best = i;
				best_count = count;
			}
		}
		for (i = 0; i < n; i++) {
			chosen[i] = same_uuid(c[i]->sb.array_uuid,
					      c[best]->sb.array_uuid);
			if (!chosen[i] && first == n)
				first = i;
		}
		if (first == n)
			return n ? 0 : -ENOENT;
		mqs_array_label(&c[first]->sb, a, sizeof(a));
		mqs_array_label(&c[best]->sb, b, sizeof(b));
		mqs_set_err(err, len,
			"%s: a member of another %s, not of %s like %s: members of different arrays; leave it out or pick one array with --name or --uuid",
			c[first]->path, a, b, c[best]->path);
		return -EINVAL;
	}

	for (i = 0; i < n; i++) {
		chosen[i] = name ? !strcmp(c[i]->sb.name, name) :
				   same_uuid(c[i]->sb.array_uuid, uuid);
		if (!chosen[i])
			continue;
		if (first == n) {
			first = i;
		} else if (!same_uuid(c[i]->sb.array_uuid,
				      c[first]->sb.array_uuid)) {
			mqs_format_uuid(c[first]->sb.array_uuid, a);
			mqs_format_uuid(c[i]->sb.array_uuid, b);
			mqs_set_err(err, len,
				"two arrays are named '%s' (UUID %s on %s, UUID %s on %s): pick one with --uuid",
				name, a, c[first]->path, b, c[i]->path);
			return -EINVAL;
		}
	}
	if (first < n)
		return 0;
	if (name) {
		mqs_set_err(err, len, "no member of an array named '%s' found",
			name);
	} else {
		mqs_format_uuid(uuid, a);
		mqs_set_err(err, len,
			"no member of the array with UUID %s found", a);
	}
	return -ENOENT;
}

/*
 * @x, one event or more behind @y, holds the array as it was before an
 * "add" that was cut short after it reached @y (docs/FORMAT.md
 * "Updates"): fewer members, whose segments are @y's first ones.
 */
static bool added_since(const struct mqs_sb *x, const struct mqs_sb *y)
{
	uint32_t xs[MQS_SB_V2_SEGMENTS], ys[MQS_SB_V2_SEGMENTS], xn, yn, k;

	if (x->nr_members >= y->nr_members || x->events >= y->events ||
	    !mqs_sb_segmented(y))
		return false;
	xn = mqs_sb_segments(x, xs);
	yn = mqs_sb_segments(y, ys);
	if (xn >= yn)
		return false;
	for (k = 0; k < xn; k++)
		if (xs[k] != ys[k])
			return false;
	return true;
}

/*
 * The first array-wide field on which @x and @y (the newest) disagree, as
 * text.  The name is not one of them: a rename cut short leaves members
 * one event apart with two names (mqs_group_check() compares the newest
 * ones).  Nor is the member count and segments of a member behind an add
 * cut short (added_since()): the slots it has must agree.
 */
static bool disagree(const struct mqs_sb *x, const struct mqs_sb *y,
		     char *what, size_t len)
{
	bool added = added_since(x, y);
	uint32_t xs[MQS_SB_V2_SEGMENTS], ys[MQS_SB_V2_SEGMENTS];
	const struct {
		const char *label;
		uint64_t x, y;
		bool skip;
	} fields[] = {
		{ "member count", x->nr_members, y->nr_members, added },
		{ "chunk bytes", x->chunk_bytes, y->chunk_bytes, false },
		{ "data offset bytes", x->data_offset_bytes,
		  y->data_offset_bytes, false },
		{ "layout version", x->layout, y->layout, false },
		{ "array logical block size", x->array_lbs, y->array_lbs,
		  false },
		{ "creation time", x->ctime, y->ctime, false },
		{ "member sizes", mqs_sb_zoned(x), mqs_sb_zoned(y), added },
		{ "segments", mqs_sb_segments(x, xs), mqs_sb_segments(y, ys),
		  added },
	};
	uint32_t i, n;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (!fields[i].skip && fields[i].x != fields[i].y) {
			snprintf(what, len, "%s (%" PRIu64 " vs %" PRIu64 ")",
				 fields[i].label, fields[i].x, fields[i].y);
			return true;
		}
	}
	for (i = 0; !added && i < MQS_SB_V2_SEGMENTS; i++) {
		if (xs[i] != ys[i]) {
			snprintf(what, len, "members of segment %" PRIu32
				 " (%" PRIu32 " vs %" PRIu32 ")", i, xs[i],
				 ys[i]);
			return true;
		}
	}
	for (i = 0; (added || mqs_sb_zoned(x)) && i < x->nr_members; i++) {
		if (mqs_sb_slot_bytes(x, i) != mqs_sb_slot_bytes(y, i)) {
			snprintf(what, len, "data bytes of slot %" PRIu32
				 " (%" PRIu64 " vs %" PRIu64 ")", i,
				 mqs_sb_slot_bytes(x, i),
				 mqs_sb_slot_bytes(y, i));
			return true;
		}
	}
	/* formats 1 and 2 (a conversion cut short) hold 240 and 224 */
	n = mqs_sb_table_slots(x) < mqs_sb_table_slots(y) ?
	    mqs_sb_table_slots(x) : mqs_sb_table_slots(y);
	if (x->nr_members < n)
		n = x->nr_members;
	for (i = 0; i < n; i++) {
		if (!same_uuid(x->table[i], y->table[i])) {
			snprintf(what, len, "member UUID of slot %" PRIu32, i);
			return true;
		}
	}
	return false;
}

/**
 * mqs_add_leftover() - is this device a new member of an add that did not
 *	complete
 * @c: devices with valid superblocks of one array UUID.
 * @n: how many.
 * @i: the one asked about.
 *
 * "stripectl add" writes the new members first, then the array's own
 * (docs/FORMAT.md "Updates"): until the first of those holds the new
 * geometry, the array is what it was, and a new member (a slot past the
 * array's members) is no part of it.  The array's geometry is that of the
 * newest device among the slots every geometry found has (below the
 * smallest member count).
 *
 * Return: true when @c[@i]'s slot is past that geometry's members.
 */
bool mqs_add_leftover(struct mqs_cand *const *c, size_t n, size_t i)
{
	uint32_t min_nr = UINT32_MAX;
	size_t j, ref = n;

	for (j = 0; j < n; j++)
		if (c[j]->sb.nr_members < min_nr)
			min_nr = c[j]->sb.nr_members;
	for (j = 0; j < n; j++) {
		if (c[j]->sb.slot >= min_nr)
			continue;
		if (ref == n || c[j]->sb.events > c[ref]->sb.events ||
		    (c[j]->sb.events == c[ref]->sb.events &&
		     c[j]->sb.nr_members > c[ref]->sb.nr_members))
			ref = j;
	}
	return ref < n && c[i]->sb.slot >= c[ref]->sb.nr_members;
}

static void slot_uuid(const struct mqs_sb *sb, uint32_t slot, char *buf,
		      size_t len)
{
	char u[37];

	if (slot < mqs_sb_table_slots(sb)) {
		mqs_format_uuid(sb->table[slot], u);
		snprintf(buf, len, "member UUID %s", u);
	} else {
		snprintf(buf, len,
			 "member UUID not recorded: the table holds slots 0..%u",
			 mqs_sb_table_slots(sb) - 1);
	}
}

/**
 * mqs_newest() - the device whose superblock has the highest event count
 * @c: devices with valid superblocks of one array.
 * @n: how many, at least 1.
 *
 * Return: its index in @c (the first of equals).
 */
size_t mqs_newest(struct mqs_cand *const *c, size_t n)
{
	size_t i, newest = 0;

	for (i = 1; i < n; i++)
		if (c[i]->sb.events > c[newest]->sb.events)
			newest = i;
	return newest;
}

/*
 * Every superblock as "create" wrote it (event 1): the array was never
 * assembled or stopped since, so a slot without one may be one a cut
 * create never reached (docs/FORMAT.md "Updates").
 */
static bool as_created(struct mqs_cand *const *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i]->status != MQS_SB_OK || c[i]->sb.events != 1)
			return false;
	return n > 0;
}

/* @v as create's SIZE: the largest of G, M, K that divides it, else bytes */
static void size_arg(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "GMK";
	int u;

	for (u = 0; u < 3 && v; u++) {
		uint64_t unit = 1ULL << (10 * (3 - u));

		if (!(v % unit)) {
			snprintf(buf, len, "%" PRIu64 "%c", v / unit, units[u]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

/* Append @s to @buf (of @len, @used taken); the count grows past @len. */
static size_t put(char *buf, size_t len, size_t used, const char *s)
{
	if (used < len)
		snprintf(buf + used, len - used, "%s", s);
	return used + strlen(s);
}

/*
 * Append " WORD", in single quotes unless it is made of characters the
 * shell takes as they are (a device path mostly is).
 */
static size_t put_word(char *buf, size_t len, size_t used, const char *w)
{
	const char *p;

	used = put(buf, len, used, " ");
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+:@%=,-") == strlen(w))
		return put(buf, len, used, w);
	used = put(buf, len, used, "'");
	for (p = w; *p; p++) {
		char one[2] = { *p, '\0' };

		used = put(buf, len, used, *p == '\'' ? "'\\''" : one);
	}
	return put(buf, len, used, "'");
}

/**
 * cut_create_hint() - the way out of a cut create: that create again, as
 *	the command line that writes the array anew over the same members
 * @c: devices with valid superblocks of one array, all at event 1.
 * @n: how many.
 * @blank: devices given without a superblock, in the order given: they
 *	take the slots no superblock names, in slot order (with one such
 *	slot, exactly; with more, as given).
 * @nblank: how many.
 * @buf: the phrase.
 * @len: room at @buf.
 *
 * The command carries everything the superblocks record that create
 * takes: the chunk, the data offset, queue depth and format when not
 * create's defaults, the name and the UUID (so that the ARRAY lines of
 * mqstripe.conf and the fstab entries by UUID still match); --force,
 * since the members carry a superblock now.  A slot that neither a
 * superblock nor a device given fills shows as "<device of slot S>".
 */
static void cut_create_hint(struct mqs_cand *const *c, size_t n,
			    struct mqs_cand *const *blank, size_t nblank,
			    char *buf, size_t len)
{
	const struct mqs_sb *sb = &c[0]->sb;
	char v[64], u[37];
	size_t i, used = 0, next = 0;
	uint32_t s;

	used = put(buf, len, used,
		   nblank > 1 ? "if that create was cut short, run it again over the same members, those without a superblock in the order that create had them (it writes every member anew): 'stripectl create --force" :
		   "if that create was cut short, run it again over the same members in slot order (it writes every member anew): 'stripectl create --force");
	size_arg(sb->chunk_bytes, v, sizeof(v));
	used = put(buf, len, used, " --chunk ");
	used = put(buf, len, used, v);
	if (sb->data_offset_bytes != MQSTRIPE_DEFAULT_DATA_OFFSET_BYTES) {
		size_arg(sb->data_offset_bytes, v, sizeof(v));
		used = put(buf, len, used, " --data-offset ");
		used = put(buf, len, used, v);
	}
	if (sb->queue_depth) {
		snprintf(v, sizeof(v), " --queue-depth %" PRIu32,
			 sb->queue_depth);
		used = put(buf, len, used, v);
	}
	if (sb->version != MQS_SB_VERSION) {
		snprintf(v, sizeof(v), " --metadata %" PRIu32, sb->version);
		used = put(buf, len, used, v);
	}
	/* a valid superblock's name passed mqs_check_name(): no quotes */
	if (sb->name[0]) {
		used = put(buf, len, used, " --name ");
		used = put(buf, len, used, sb->name);
	}
	mqs_format_uuid(sb->array_uuid, u);
	used = put(buf, len, used, " --uuid ");
	used = put(buf, len, used, u);
	for (s = 0; s < sb->nr_members; s++) {
		for (i = 0; i < n; i++)
			if (c[i]->sb.slot == s)
				break;
		if (i < n) {
			used = put_word(buf, len, used, c[i]->path);
		} else if (next < nblank) {
			used = put_word(buf, len, used, blank[next++]->path);
		} else {
			snprintf(v, sizeof(v), " <device of slot %" PRIu32 ">",
				 s);
			used = put(buf, len, used, v);
		}
	}
	put(buf, len, used, "'");
}

/**
 * mqs_cut_hint() - the way out when a device without a superblock was
 *	given with members of an array that lacks slots
 * @c: the devices given.
 * @n: how many.
 * @none: the index in @c of the device without a superblock.
 * @buf: the phrase, to follow the refusal of @c[@none] ("" for none).
 * @len: room at @buf.
 *
 * What a cut create or zero-superblock leaves (docs/FORMAT.md "Updates"),
 * as far as the superblocks tell: the other devices hold valid
 * superblocks of one array, short of slots.  All of them at event 1 (as
 * create wrote them, never assembled or stopped since): the way out is
 * that create again.  Later events and @c[@none]'s superblock area all
 * zeros (what zero-superblock leaves): finishing the zero-superblock on
 * the devices that still carry one.  Either way the device may also just
 * be the wrong one, which the phrase says too.
 */
void mqs_cut_hint(struct mqs_cand *const *c, size_t n, size_t none,
		  char *buf, size_t len)
{
	struct mqs_cand *valid[MQSTRIPE_MAX_MEMBERS];
	struct mqs_cand *blank[MQSTRIPE_MAX_MEMBERS];
	char label[MQS_ERR_LEN], paths[MQS_ERR_LEN] = "";
	char how[MQS_GROUP_ERR_LEN];
	const struct mqs_cand *me = c[none];
	size_t i, k = 0, nblank = 0, used = 0;
	uint32_t s, slots = 0;

	buf[0] = '\0';
	for (i = 0; i < n && k < ARRAY_SIZE(valid); i++) {
		if (c[i]->read_err || c[i]->status != MQS_SB_OK) {
			/* read, blank: may be a slot the create never reached */
			if (!c[i]->read_err && c[i]->status == MQS_SB_NONE &&
			    nblank < ARRAY_SIZE(blank))
				blank[nblank++] = c[i];
			continue;
		}
		if (k && !same_uuid(c[i]->sb.array_uuid,
				    valid[0]->sb.array_uuid))
			return;		/* devices of several arrays */
		valid[k++] = c[i];
		if (used < sizeof(paths))
			used += (size_t)snprintf(paths + used,
						 sizeof(paths) - used, "%s%s",
						 used ? " " : "", c[i]->path);
	}
	if (!k)
		return;
	for (s = 0; s < valid[0]->sb.nr_members; s++)
		for (i = 0; i < k; i++)
			if (valid[i]->sb.slot == s) {
				slots++;
				break;
			}
	if (slots >= valid[0]->sb.nr_members)
		return;		/* the array is whole without it */
	mqs_array_label(&valid[0]->sb, label, sizeof(label));
	if (as_created(valid, k)) {
		cut_create_hint(valid, k, blank, nblank, how, sizeof(how));
		snprintf(buf, len,
			 "; %s hold%s %" PRIu32 " of the %" PRIu32 " slots of %s as 'create' wrote them, never assembled or stopped since (event 1): %s; else give the missing members",
			 paths, k > 1 ? "" : "s", slots,
			 valid[0]->sb.nr_members, label, how);
		return;
	}
	if (me->block && me->area_len &&
	    mqs_all_zero(me->block, me->area_len))
		snprintf(buf, len,
			 "; its superblock area is all zeros, as 'zero-superblock' leaves it, and %s hold%s %" PRIu32 " of the %" PRIu32 " slots of %s: if a zero-superblock of its members was cut short, run 'stripectl zero-superblock %s' to finish it; else give the missing members",
			 paths, k > 1 ? "" : "s", slots,
			 valid[0]->sb.nr_members, label, paths);
}

/**
 * mqs_find_copies() - a slot claimed by two devices
 * @c: devices with valid superblocks of one array UUID.
 * @n: how many.
 * @x: out: the index into @c of the first device of the first such slot.
 * @y: out: the index of the second device of that slot.
 *
 * What a clone set attached with the originals shows (a SAN or VM
 * snapshot, a dd copy: every member twice, the same superblock on two
 * disks), or two members of one slot that differ.  The superblocks cannot
 * tell which copy is meant.  (An older copy of a member is told apart:
 * mqs_newer_copy().)
 *
 * Return: how many slots more than one device claims (0: none, @x and @y
 * untouched).
 */
size_t mqs_find_copies(struct mqs_cand *const *c, size_t n, size_t *x,
		       size_t *y)
{
	size_t i, j, first, before, dup = 0;

	for (i = 0; i < n; i++) {
		/* a slot counts once: at its second device */
		for (j = 0, before = 0, first = 0; j < i; j++) {
			if (c[j]->sb.slot != c[i]->sb.slot)
				continue;
			if (!before++)
				first = j;
		}
		if (before != 1)
			continue;
		if (!dup++) {
			*x = first;
			*y = i;
		}
	}
	return dup;
}

/**
 * mqs_newer_copy() - a device that holds a newer copy of @c[i]'s member
 * @c: devices with valid superblocks of one array UUID.
 * @n: how many.
 * @i: the device in question.
 *
 * A device whose superblock has the slot and member UUID of another's but
 * a lower event counter is an older copy of that member (a disk copied,
 * or replaced by its copy, and the array run since from the other): the
 * newer one is the member, as md keeps the device with the higher event
 * count.  Copies at one event count (a clone set) are not told apart here.
 *
 * Return: the index of the newest such device, or @n when none is newer.
 */
size_t mqs_newer_copy(struct mqs_cand *const *c, size_t n, size_t i)
{
	size_t j, newer = n;

	for (j = 0; j < n; j++) {
		if (c[j]->sb.slot != c[i]->sb.slot ||
		    c[j]->sb.events <= c[i]->sb.events ||
		    memcmp(c[j]->sb.member_uuid, c[i]->sb.member_uuid,
			   MQSTRIPE_UUID_LEN))
			continue;
		if (newer == n || c[j]->sb.events > c[newer]->sb.events)
			newer = j;
	}
	return newer;
}

/**
 * mqs_fault_recorded() - which member's fault record leaves this one behind
 * @c: devices with valid superblocks of one array UUID.
 * @n: how many.
 * @i: the one asked about.
 *
 * record-fault and stop write, with the first of their two passes, which
 * slots the module had as faulty or gone (the fault record, docs/FORMAT.md
 * "Updates"): a cut before the second pass leaves the failed member only
 * one event behind the newest, as an update cut short leaves a member
 * that works, and the record tells them apart.
 *
 * Return: the index in @c of a member whose record names @c[@i]'s slot
 * at an event counter above @c[@i]'s, or @n: none does.
 */
size_t mqs_fault_recorded(struct mqs_cand *const *c, size_t n, size_t i)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (j != i && c[j]->sb.slot != c[i]->sb.slot &&
		    mqs_sb_fault_slot(&c[j]->sb, c[i]->sb.slot) &&
		    c[i]->sb.events < c[j]->sb.fault_events)
			return j;
	return n;
}

/**
 * mqs_group_check() - are these the complete, consistent members of one
 *	array, and which is in which slot
 * @c: devices with valid superblocks of one array UUID.
 * @n: how many.
 * @accept_stale: members behind by any number of events pass ("assemble
 *	--force": the admin accepts their stale data).
 * @slots: out: @slots[s] is the index into @c of slot s, for every slot of
 *	the array (room for MQSTRIPE_MAX_MEMBERS).
 * @err: the reason on failure, naming the device, slot or member UUID.
 * @len: room at @err.
 *
 * The checks, in order: every superblock agrees on the array-wide fields
 * (not the name);
 * no slot is claimed twice; no slot is missing; no member is stale (its
 * event counter more than one behind: an interrupted update leaves at most
 * one; or below the fault record of another member naming its slot,
 * mqs_fault_recorded()); the members at the newest event count agree on the name (one
 * behind may hold the name before a rename that was cut short: the newest
 * name counts) and on the data bytes per member (one behind may hold the
 * value before an assembly that grew the array and was cut short); every device's
 * logical block size is at most what it was (the layout is in bytes, all
 * of it a multiple of 4096: a 4096-byte device reformatted to 512 keeps
 * every offset aligned, the other way round the array's block size would
 * grow under its file system) and it holds data offset + data bytes.
 *
 * Return: 0; -EINVAL (disagreement, stale, block size), -EEXIST (slot
 * claimed twice), -ENODEV (slot missing), -ENOSPC (device shrank).
 */
int mqs_group_check(struct mqs_cand *const *c, size_t n, bool accept_stale,
		    size_t *slots, char *err, size_t len)
{
	char label[MQS_ERR_LEN], what[MQS_ERR_LEN], u[96];
	const struct mqs_sb *ref;
	uint64_t min_ev = UINT64_MAX, max_ev;
	uint32_t s, missing = 0, first_missing = 0;
	size_t i, newest = 0;

	if (!n) {
		mqs_set_err(err, len, "no members");
		return -ENODEV;
	}
	/* the newest: a member one event behind a cut add has fewer slots */
	newest = mqs_newest(c, n);
	ref = &c[newest]->sb;
	mqs_array_label(&c[0]->sb, label, sizeof(label));
	for (i = 0; i < n; i++) {
		if (i != newest &&
		    disagree(&c[i]->sb, ref, what, sizeof(what))) {
			mqs_set_err(err, len,
				"%s: disagrees with %s on the %s of %s: the superblocks do not describe one array; leave out the odd one",
				c[i]->path, c[newest]->path, what, label);
			return -EINVAL;
		}
	}

	for (s = 0; s < ref->nr_members; s++)
		slots[s] = n;
	for (i = 0; i < n; i++) {
		const struct mqs_sb *sb = &c[i]->sb;
		size_t other = slots[sb->slot];

		if (other < n) {
			char m1[37], m2[37];

			mqs_format_uuid(c[other]->sb.member_uuid, m1);
			mqs_format_uuid(sb->member_uuid, m2);
			if (!strcmp(m1, m2))
				mqs_set_err(err, len,
					"%s and %s both claim slot %" PRIu32 " of %s with member UUID %s: one is a copy of the other; leave the copy out",
					c[other]->path, c[i]->path, sb->slot,
					label, m1);
			else
				mqs_set_err(err, len,
					"%s and %s both claim slot %" PRIu32 " of %s (member UUIDs %s and %s); leave the wrong one out",
					c[other]->path, c[i]->path, sb->slot,
					label, m1, m2);
			return -EEXIST;
		}
		slots[sb->slot] = i;
	}
	for (s = 0; s < ref->nr_members; s++) {
		if (slots[s] < n)
			continue;
		if (!missing++)
			first_missing = s;
	}
	if (missing) {
		char cut[MQS_GROUP_ERR_LEN] = "";

		if (as_created(c, n)) {
			size_t used = (size_t)snprintf(cut, sizeof(cut), "; all found are as 'create' wrote them, never assembled or stopped since (event 1): ");

			cut_create_hint(c, n, NULL, 0, cut + used,
					sizeof(cut) - used);
		}

		slot_uuid(ref, first_missing, u, sizeof(u));
		if (missing == 1)
			mqs_set_err(err, len,
				"%s: slot %" PRIu32 " (%s) is missing: found %zu of %" PRIu32 " members; attach that device and retry (if it is attached, something wrote over its superblock: 'stripectl examine DEVICE' says what is on it now)%s",
				label, first_missing, u, n, ref->nr_members,
				cut);
		else
			mqs_set_err(err, len,
				"%s: slot %" PRIu32 " (%s) and %" PRIu32 " more are missing: found %zu of %" PRIu32 " members; attach those devices and retry (if they are attached, something wrote over their superblocks: 'stripectl examine DEVICE' says what is on each now)%s",
				label, first_missing, u, missing - 1, n,
				ref->nr_members, cut);
		return -ENODEV;
	}

	newest = mqs_newest(c, n);
	max_ev = c[newest]->sb.events;
	for (i = 0; i < n; i++)
		if (c[i]->sb.events < min_ev)
			min_ev = c[i]->sb.events;
	if (max_ev - min_ev > 1 && !accept_stale) {
		for (s = 0; s < ref->nr_members; s++) {
			const struct mqs_cand *m = c[slots[s]];

			if (m->sb.events + 1 >= max_ev)
				continue;
			mqs_set_err(err, len,
				"%s: stale member of %s: its event counter is %" PRIu64 ", %s is at %" PRIu64 " (it missed the array's last updates: faulty or gone when the array stopped, or an old copy of slot %" PRIu32 "); replace it, or find the current device for that slot, or start it anyway with 'stripectl assemble --force'",
				m->path, label, m->sb.events,
				c[newest]->path, max_ev, s);
			return -EINVAL;
		}
	}
	for (s = 0; s < ref->nr_members && !accept_stale; s++) {
		const struct mqs_cand *m = c[slots[s]];
		size_t by = mqs_fault_recorded(c, n, slots[s]);

		if (by == n)
			continue;
		mqs_set_err(err, len,
			"%s: stale member of %s: %s records slot %" PRIu32 " as faulty or gone at event %" PRIu64 " and its event counter is %" PRIu64 " (the array ran on without it; an update that recorded it was cut short); replace it, or start it anyway with 'stripectl assemble --force'",
			m->path, label, c[by]->path, s,
			c[by]->sb.fault_events, m->sb.events);
		return -EINVAL;
	}

	for (i = 0; i < n; i++) {
		char xn[MQS_SB_SHOWN_NAME_LEN], yn[MQS_SB_SHOWN_NAME_LEN];

		if (c[i]->sb.events != max_ev ||
		    !strcmp(c[i]->sb.name, c[newest]->sb.name))
			continue;
		mqs_set_err(err, len,
			"%s: disagrees with %s on the name of %s ('%s' vs '%s') at the same event count %" PRIu64 ": the superblocks do not describe one array; leave out the odd one",
			c[i]->path, c[newest]->path, label,
			mqs_sb_shown_name(c[i]->sb.name, xn),
			mqs_sb_shown_name(c[newest]->sb.name, yn), max_ev);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (c[i]->sb.events != max_ev ||
		    c[i]->sb.data_bytes == c[newest]->sb.data_bytes)
			continue;
		mqs_set_err(err, len,
			"%s: disagrees with %s on the data bytes per member of %s (%" PRIu64 " vs %" PRIu64 ") at the same event count %" PRIu64 ": the superblocks do not describe one array; leave out the odd one",
			c[i]->path, c[newest]->path, label,
			c[i]->sb.data_bytes, c[newest]->sb.data_bytes, max_ev);
		return -EINVAL;
	}

	for (s = 0; s < ref->nr_members; s++) {
		const struct mqs_cand *m = c[slots[s]];
		uint64_t need = m->sb.data_offset_bytes +
				mqs_sb_slot_bytes(&c[newest]->sb, s);

		if (m->lbs > m->sb.member_lbs) {
			mqs_set_err(err, len,
				"%s: logical block size is now %u bytes, it was %" PRIu32 " when %s was created: the device changed (reformatted?); refusing to assemble",
				m->path, m->lbs, m->sb.member_lbs, label);
			return -EINVAL;
		}
		if (m->size_bytes < need) {
			mqs_set_err(err, len,
				"%s: is %" PRIu64 " bytes now, %s needs %" PRIu64 " (data offset + data) on slot %" PRIu32 ": the device shrank",
				m->path, m->size_bytes, label, need, s);
			return -ENOSPC;
		}
	}
	return 0;
}
