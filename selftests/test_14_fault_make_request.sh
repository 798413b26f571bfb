#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-kernels: debug
#
# Member errors under load, injector fail_make_request.  The members are
# the NVMe namespaces themselves; once fio runs,
# /sys/block/MEMBER/make-it-fail of member 2 is set with the
# fail_make_request knobs at probability 100, so every bio the array sends
# to that member fails in submit_bio_noacct().  Same assertions as
# test_13: only the fio jobs and IOs touching member 2 get EIO, the others
# verify; every job ends within 60 s of the fault; `stripectl status
# --json` shows member 2 faulty with error counts; the array stops; after
# the fault is lifted and the array assembled, acknowledged data reads back.
# For the debug kernel (mqs-kernels): Debian's kernels have no fault
# injection.  CONFIG_FAIL_MAKE_REQUEST is probed too: a kernel without it
# skips.
# Catches: as test_13, for bios that fail at submission on a blk-mq member
# (no dm in between).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
BADDEV=${NV[2]}
FMR=/sys/kernel/debug/fail_make_request
MIF=$(blk_sys "$BADDEV")/make-it-fail
[ -d "$FMR" ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
if [ ! -e "$MIF" ] || [ ! -d "$FMR" ]; then
	mqs_skip "kernel has no CONFIG_FAIL_MAKE_REQUEST (no $MIF or $FMR)"
fi

# fail every bio of a device with make-it-fail set, without stack dumps
mqs_sysfs_set "$FMR/verbose" 0 || mqs_die "set $FMR/verbose"
mqs_sysfs_set "$FMR/interval" 1
mqs_sysfs_set "$FMR/times" -1
mqs_sysfs_set "$FMR/space" 0
mqs_sysfs_set "$FMR/probability" 100 || mqs_die "set $FMR/probability"
mqs_sysfs_set "$MIF" 0 || mqs_die "set $MIF"

fault_on() { echo 1 >"$MIF"; }
fault_off() { echo 0 >"$MIF"; }

FT_MEMBERS=("${NV[@]:0:4}")
FT_BAD=2
FT_CHUNK=$((64 << 10))
member_fault_test
mqs_finish
