// SPDX-License-Identifier: GPL-2.0
/*
 * stripectl zero-superblock: erase the superblock of members, each only
 * while it is free (held exclusively for the write), under the metadata
 * lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common.h"
#include "cryptlist.h"
#include "devio.h"
#include "member.h"
#include "opts.h"
#include "sbwrite.h"
#include "stripectl.h"
#include "superblock.h"
#include "zero.h"

/*
 * A device given twice would be erased once and then reported as having no
 * superblock: refuse that before erasing anything, as create and assemble
 * do.  Paths that are no block device are left to the loop's message.
 */
static int zero_check_distinct(int n, char **paths)
{
	uint64_t *ids;
	int *which;
	size_t a, b, nr = 0;
	int i, rc = MQS_EXIT_OK;

	ids = calloc(n, sizeof(*ids));	/* n >= 1: the command needs a MEMBER */
	which = calloc(n, sizeof(*which));
	if (!ids || !which) {
		mqs_error("out of memory");
		rc = MQS_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		/* no block device: reported in the erase loop */
		if (!stat(paths[i], &st) && S_ISBLK(st.st_mode)) {
			ids[nr] = st.st_rdev;
			which[nr++] = i;
		}
	}
	if (mqs_find_duplicate(ids, nr, &a, &b)) {
		report_duplicate(paths[which[a]], paths[which[b]],
				 "; nothing was erased");
		rc = MQS_EXIT_FAIL;
	}
out:
	free(which);
	free(ids);
	return rc;
}

/*
 * How many copies to erase: the one at 4096 and, when it holds a
 * superblock (format 2, or one left over), the one at 8192, but never the
 * bytes at 8192 of a format-1 member whose data starts there.  Sets
 * @w->copies; 0 when neither copy has the magic.
 */
static unsigned int zero_copies(struct sbw *w)
{
	const uint8_t *second = w->old + MQS_SB_SIZE;
	struct mqs_sb sb;
	bool data_at_8k;

	data_at_8k = mqs_sb_decode(w->old, &sb, NULL, 0) == MQS_SB_OK &&
		     sb.version == MQS_SB_VERSION_1 &&
		     sb.data_offset_bytes < MQS_SB_MIN_DATA_OFFSET;
	if (mqs_sb_has_magic(second) && !data_at_8k)
		w->copies = 2;
	else if (mqs_sb_has_magic(w->old))
		w->copies = 1;
	else
		w->copies = 0;
	/* with two, the copy at 8192 goes first (w->second_first) */
	return w->copies;
}

int cmd_zero_superblock(const struct cmd *cmd, int argc, char **argv)
{
	static const struct opt opts[] = { { 0 } };
	struct mqs_member_dev m;
	int first, i, rc, lock;

	rc = opts_parse_exit(cmd, opts, argc, argv, &first);
	if (rc >= 0)
		return rc;
	rc = zero_check_distinct(argc - first, argv + first);
	if (rc)
		return rc;
	lock = mqs_meta_lock(false);
	if (lock == -ETIMEDOUT)
		return MQS_EXIT_FAIL;
	for (i = first; i < argc; i++) {
		struct sbw w;

		memset(&m, 0, sizeof(m));
		m.path = argv[i];
		if (check_member_path(&m)) {
			rc = MQS_EXIT_FAIL;
			continue;
		}
		sbw_init(&w, argv[i]);
		if (sbw_claim(&w)) {
			rc = MQS_EXIT_FAIL;
		} else if (!zero_copies(&w)) {
			mqs_error("%s: no mqstripe superblock: nothing to erase",
				  argv[i]);
			rc = MQS_EXIT_FAIL;
		} else {
			memset(w.new, 0, MQS_SB_AREA_SIZE);
			if (sbw_write_all(&w, 1))
				rc = MQS_EXIT_FAIL;
			else	/* a dm-crypt map no longer a member */
				mqs_crypt_list_forget(&w.excl, 1);
		}
		sbw_release(&w, 1);
		free(w.old);
		free(w.new);
	}
	mqs_meta_unlock(lock);
	return rc;
}
