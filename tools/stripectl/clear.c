// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl clear: a member that the module marked faulty after IO errors
 * that were transient (a path, a cable, a controller reset) is ok again
 * (MQSTRIPE_IOC_CLEAR), and current again in the superblocks: the members
 * that are ok get one event counter again (sb_bring_current()), so that
 * the one record-fault left behind is not refused at the next assemble.
 * A member that is gone cannot be cleared: its disk went away, and only a
 * stop and an assemble bring it back.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clear.h"
#include "common.h"
#include "fault.h"
#include "libmqs.h"
#include "opts.h"
#include "parse.h"
#include "stripectl.h"
#include "sysfs.h"

int cmd_clear(const struct cmd *cmd, int argc, char **argv)
{
	const struct opt opts[] = { { 0 } };
	struct mqstripe_member_info *members = NULL;
	struct mqstripe_info info;
	struct mqs_ctl ctl;
	char err[MQS_ERR_LEN], node[64], dev[PATH_MAX + 32];
	uint32_t index, nr, before;
	uint64_t slot;
	int first, rc, lock;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	if (argc - first != 2) {
		mqs_error("clear: give ARRAY and SLOT: see 'stripectl clear --help'");
		return MQS_EXIT_USAGE;
	}
	if (mqs_parse_uint(argv[first + 1], MQSTRIPE_MAX_MEMBERS - 1, &slot,
			   err, sizeof(err))) {
		mqs_error("clear: SLOT: %s", err);
		return MQS_EXIT_USAGE;
	}
	/* no record-fault or stop between CLEAR and the superblocks */
	if (find_array_locked(&ctl, argv[first], &index, &info, &members,
			      &nr, &lock))
		return MQS_EXIT_FAIL;
	mqs_array_node(index, node, sizeof(node));
	rc = MQS_EXIT_FAIL;
	if (slot >= info.nr_members) {
		mqs_error("%s: no slot %" PRIu64 ": the array has slots 0 to %u (see 'stripectl status %s')",
			  node, slot, info.nr_members - 1, node);
		goto out;
	}
	member_label(&members[slot], dev, sizeof(dev));
	rc = mqs_clear(&ctl, index, (uint32_t)slot, &before);
	switch (-rc) {
	case 0:
		if (before == MQSTRIPE_MEMBER_OK)
			printf("%s: slot %" PRIu64 " (%s) is ok: nothing to clear\n",
			       node, slot, dev);
		else
			printf("%s: slot %" PRIu64 " (%s) was %s, is ok now\n",
			       node, slot, dev, member_state_name(before));
		rc = mqs_info(&ctl, index, &info, members,
			      MQSTRIPE_MAX_MEMBERS);
		if (rc) {
			report_ctl_error(node, rc, ctl.kernel_abi);
			rc = MQS_EXIT_FAIL;
		} else if (!mqs_array_readonly(index)) {
			rc = sb_bring_current(node, &info, members, nr);
		}
		break;
	case ENXIO:
		mqs_error("%s: slot %" PRIu64 " (%s) is gone: its disk went away, and clear cannot bring it back; stop the array and assemble it once the disk is back",
			  node, slot, dev);
		rc = MQS_EXIT_FAIL;
		break;
	case ENOTTY:
		mqs_error("%s: the loaded mqstripe module has no clear command (an older module): load the module of this stripectl",
			  node);
		rc = MQS_EXIT_FAIL;
		break;
	default:
		mqs_error("%s: clear slot %" PRIu64 ": %s", node, slot,
			  strerror(-rc));
		rc = MQS_EXIT_FAIL;
		break;
	}
out:
	free(members);
	mqs_ctl_close(&ctl);
	mqs_meta_unlock(lock);
	return rc;
}
