// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl rename ARRAY NAME: a running array gets a new name, in the
 * module (sysfs, uevents: udev moves /dev/stripe/NAME) and in every
 * member's superblock, while its IO goes on.
 *
 * The module learns the name first (MQSTRIPE_IOC_RENAME: it refuses a
 * name another running array has, atomically); then every member's
 * superblock is rewritten with the name and the event counter one past
 * the newest, the copy not in use first (docs/FORMAT.md "Updates").  A
 * failed write puts the written members' old superblocks back and the
 * old name in the module; a cut between the writes leaves members one
 * event apart, which assemble takes, with the newest member's name.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/sysmacros.h>

#include "common.h"
#include "create.h"
#include "devio.h"
#include "livesb.h"
#include "opts.h"
#include "parse.h"
#include "rename.h"
#include "sbgroup.h"
#include "sbwrite.h"
#include "stripectl.h"
#include "superblock.h"
#include "sysfs.h"

/* The new superblocks: @name, events one past the newest member's. */
static void build_renamed(struct livesb *rm, struct sbw *w, uint32_t nr,
			  const char *name)
{
	uint32_t i;

	for (i = 0; i < nr; i++) {
		struct mqs_sb *sb = &rm[i].cand.sb;

		memset(sb->name, 0, sizeof(sb->name));
		snprintf(sb->name, sizeof(sb->name), "%s", name);
	}
	livesb_build(rm, w, nr);
}

/*
 * Is @name another running array's?  Said, naming it, before anything is
 * written; the module refuses it too (atomically: a create meanwhile).
 * Return: MQS_EXIT_OK (free) or MQS_EXIT_FAIL.
 */
static int check_not_running(struct mqs_ctl *ctl, uint32_t self,
			     const char *node, const char *name)
{
	struct mqstripe_info info;
	uint32_t other;
	char dev[64];
	int rc = mqs_find_name(ctl, name, &other, &info);

	if (rc == -ENODEV || (!rc && other == self))
		return MQS_EXIT_OK;
	if (rc) {
		report_ctl_error(node, rc, ctl->kernel_abi);
		return MQS_EXIT_FAIL;
	}
	mqs_array_node(other, dev, sizeof(dev));
	mqs_error("%s: rename '%s': the running array %s has this name: pick another name",
		  node, name, dev);
	return MQS_EXIT_FAIL;
}

/* The module's answer to RENAME, said; MQS_EXIT_OK or MQS_EXIT_FAIL. */
static int module_rename(struct mqs_ctl *ctl, uint32_t index,
			 const char *node, const char *name)
{
	int rc = mqs_rename(ctl, index, name);

	switch (-rc) {
	case 0:
		return MQS_EXIT_OK;
	case EEXIST:
		mqs_error("%s: rename '%s': another running array has this name (see 'stripectl list'): pick another name",
			  node, name);
		break;
	case ENOTTY:
		mqs_error("%s: the loaded mqstripe module has no rename command (an older module): load the module of this stripectl",
			  node);
		break;
	default:
		report_ctl_error(node, rc, ctl->kernel_abi);
		break;
	}
	return MQS_EXIT_FAIL;
}

int cmd_rename(const struct cmd *cmd, int argc, char **argv)
{
	bool force = false;
	const struct opt opts[] = {
		{ "force", 'f', OPT_FLAG, &force, NULL, NULL,
		  "take NAME even if another array's superblocks carry it (then of the two the one started first gets the name, the other starts without it)" },
		{ 0 }
	};
	struct mqstripe_member_info *members = NULL;
	struct livesb *rm = NULL;
	struct sbw *w = NULL;
	struct mqstripe_info info;
	static const struct livesb_words words = {
		.what = "the new name",
		.nothing = "nothing renamed",
		.then = "rename it",
	};
	struct mqs_ctl ctl;
	char err[MQS_ERR_LEN], node[64], what[96], old[MQSTRIPE_NAME_LEN];
	const char *name;
	bool no_sb = false;
	uint32_t index, nr;
	int first, rc, lock;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	name = argv[first + 1];
	if (mqs_check_new_name(name, err, sizeof(err))) {
		mqs_error("rename: NAME: %s", err);
		return MQS_EXIT_USAGE;
	}
	if (find_array_or_report(&ctl, argv[first], &index, &info, &members,
				 &nr))
		return MQS_EXIT_FAIL;
	mqs_array_node(index, node, sizeof(node));
	snprintf(old, sizeof(old), "%s", info.name);
	lock = mqs_meta_lock(false);
	rc = MQS_EXIT_FAIL;
	if (lock == -ETIMEDOUT)
		goto out;
	if (!strcmp(old, name)) {
		printf("%s: already named '%s': nothing to do\n", node, name);
		rc = MQS_EXIT_OK;
		goto out;
	}
	if (mqs_array_readonly(index)) {
		mqs_error("%s: assembled read-only (--readonly): nothing is written to its members; stop it and assemble it without --readonly to rename it",
			  node);
		goto out;
	}
	if (check_not_running(&ctl, index, node, name))
		goto out;
	snprintf(what, sizeof(what), "%s: rename", node);
	if (check_name_unused(&ctl, what, name, NULL, info.uuid, force))
		goto out;
	rc = livesb_read(node, &info, members, &rm, &w, nr, &no_sb, &words);
	if (!rc && no_sb) {
		rc = module_rename(&ctl, index, node, name);
		if (!rc)
			printf("%s: renamed from '%s' to '%s' (no superblocks: the name lasts until the array stops)\n",
			       node, old, name);
		goto out;
	}
	if (rc)
		goto out;
	build_renamed(rm, w, nr, name);
	rc = module_rename(&ctl, index, node, name);
	if (rc)
		goto out;
	rc = sbw_write_all(w, nr);
	if (rc) {
		/* sbw_write_all() put the written members' blocks back */
		if (module_rename(&ctl, index, node, old))
			mqs_error("%s: the module keeps the name '%s' until the array stops; the superblocks say '%s'",
				  node, name, old);
		else
			mqs_error("%s: nothing renamed: the name is '%s' again",
				  node, old);
		goto out;
	}
	printf("%s: renamed from '%s' to '%s' in the module and the superblocks of %u members\n",
	       node, old, name, nr);
out:
	livesb_free(rm, w, nr);
	mqs_meta_unlock(lock);
	free(members);
	mqs_ctl_close(&ctl);
	return rc;
}
