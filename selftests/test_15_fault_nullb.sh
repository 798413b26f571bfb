#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member errors under load, null_blk members.
# Four memory-backed configfs null_blk devices are the members; once fio
# runs, every sector of member 3 is marked bad (configfs "badblocks"), so
# the blk-mq driver itself completes each read and write of it with
# BLK_STS_IOERR (flushes carry no sectors and still succeed).  Same
# assertions as test_13: only the jobs and IOs touching member 3 get EIO,
# the others verify, every job ends within 60 s, status shows member 3
# faulty with error counts, the array stops, and after the bad blocks are
# cleared and the array assembled, acknowledged data reads back.
# null_blk's own fault injection (timeout_inject, requeue_inject) needs
# CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION; badblocks exists on every kernel
# but fails IO only on some (probed first: not on Debian's 6.1).
# Catches: as test_13, for errors completed by a blk-mq member driver.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd fio
trap fault_cleanup EXIT

nbwhy=$(nullb_ready) || mqs_skip "$nbwhy"
nullb_has badblocks || mqs_skip "null_blk has no badblocks attribute ($(cat "$NULLB_CFG/features"))"

MB=48
# probe: do bad blocks fail IO here?  (Debian's 6.1 accepts and lists
# them on a memory-backed device but reads them without error)
nullb_create mqs15_probe size=4 blocksize=512 memory_backed=1 || mqs_die "null_blk probe device"
echo "+0-8191" >"${NULLB_DIRS[0]}/badblocks" || mqs_die "set badblocks of the probe device"
if dd if="$NULLB_DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
	mqs_skip "null_blk badblocks do not fail IO on this kernel (read of a bad sector succeeded)"
fi
FT_MEMBERS=()
for i in 0 1 2 3; do
	nullb_create "mqs15_$i" size=$MB blocksize=512 memory_backed=1 ||
		mqs_die "null_blk device $i"
	FT_MEMBERS+=("$NULLB_DEV")
done
BADCFG=${NULLB_DIRS[4]}/badblocks
fault_on() { echo "+0-$((MB * 2048 - 1))" >"$BADCFG"; }
fault_off() { echo "-0-$((MB * 2048 - 1))" >"$BADCFG"; }

FT_BAD=3
FT_CHUNK=$((64 << 10))
FT_FLUSH=OK
member_fault_test
mqs_finish
