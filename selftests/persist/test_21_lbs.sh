#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A member whose logical block size changed: the
# images made with 512-byte blocks are attached as namespaces of 4096-byte
# blocks.  assemble (--scan, explicit and incremental) refuses, naming the
# member and both sizes, and starts nothing.
# Catches: an array started over members whose block size changed under a
# filesystem made for another.

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
persist_init
read_record

need_members "$UUID" 4
[ "$(qattr "${M[0]}" logical_block_size)" = 4096 ] ||
	mqs_skip "the namespaces do not have 4096-byte blocks (run-vm.sh --nvme-lbs 4096)"
check_eq "the superblock still says 512" 512 \
	"$(sbtool parse "${M[0]}" >"$MQS_TMP/p.json"; jget "$MQS_TMP/p.json" member_logical_block_size)"

events() { for d in "${M[@]}"; do ex "$d" MQSTRIPE_EVENTS; done | tr '\n' ' '; }
before=$(events)
mark=$(klog_mark "persist lbs")
RE="^stripectl: ${M[0]}: logical block size is now 4096 bytes, it was 512 when array '$NAME' \\(UUID $UUID\\) was created"
check_fails "assemble --scan refused" 1 "$RE" "$STRIPECTL" assemble --scan
check_no_arrays "assemble --scan: nothing started"
check_fails "assemble refused" 1 "$RE" "$STRIPECTL" assemble "${M[3]}" "${M[2]}" "${M[1]}" "${M[0]}"
check_no_arrays "assemble: nothing started"
for i in 0 1 2; do
	"$STRIPECTL" assemble --incremental "${M[i]}" >/dev/null 2>&1
done
check_fails "assemble --incremental of the last member refused" 1 "$RE" \
	"$STRIPECTL" assemble --incremental "${M[3]}"
check_no_arrays "assemble --incremental: nothing started"
check_eq "the superblocks were not touched (events)" "$before" "$(events)"
rm -rf "/run/mqstripe/$UUID"
check_klog "no kernel warning" "$mark"
mqs_finish
