#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-lbs4k
# mqs-needs: persist/test_01_create
#
# A member whose logical block size changed: the
# images made with 512-byte blocks are attached as namespaces of 4096-byte
# blocks.  assemble (--scan, explicit and incremental) refuses, naming the
# member and both sizes, and starts nothing.  The other way round (an array
# made on members of 4096-byte blocks, now of 512) assembles, its data
# intact.
# Catches: an array started over members whose block size changed under a
# filesystem made for another, or one refused although its layout still
# fits.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
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

# The other way round: an array made on members of 4096-byte blocks whose
# devices now have 512-byte blocks (loop devices over the same files,
# attached again with another sector size) assembles: every offset of
# the layout stays aligned (the array's logical block size follows the
# members': a filesystem made for 4096-byte sectors works on 512).
F=()
for i in 0 1; do
	F+=("$MQS_TMP/lbs$i.img")
	truncate -s 64M "${F[i]}"
done
attach() {	# attach SECTOR_SIZE: L[] over F[]
	L=()
	for f in "${F[@]}"; do
		mqs_loop_create --sector-size "$1" "$f" || mqs_die "losetup --sector-size $1 $f"
		L+=("$LOOP_DEV")
	done
}
attach 4096
check_eq "loop devices of 4096-byte blocks" "4096 4096" \
	"$(for d in "${L[@]}"; do qattr "$d" logical_block_size; done | xargs)"
A=$("$STRIPECTL" create --name lbsdown --chunk 64K "${L[@]}" 2>&1)
[ -b "$A" ] || mqs_die "create over ${L[*]}" "$A"
LUUID=$(ex "${L[0]}" MQSTRIPE_ARRAY_UUID)
check_eq "the array's logical block size: 4096" 4096 "$(qattr "$A" logical_block_size)"
check_cmd "pattern written through the array" pattern fill "$A" 0 16M 7
check_stop "$A"
for d in "${L[@]}"; do losetup -d "$d"; done
MQS_LOOPS=()
attach 512
check_eq "the same files as loop devices of 512-byte blocks" "512 512" \
	"$(for d in "${L[@]}"; do qattr "$d" logical_block_size; done | xargs)"
A=$("$STRIPECTL" assemble "${L[1]}" "${L[0]}" 2>&1)
if [ "$(array_by_uuid "$LUUID")" = "$A" ]; then
	pass "4096-byte blocks then 512: assembled"
	track_array "$A"
	check_eq "... the array's blocks follow its members: 512 bytes" 512 "$(qattr "$A" logical_block_size)"
	check_cmd "... the pattern reads back" pattern check "$A" 0 16M 7
	check_stop "$A"
else
	fail "4096-byte blocks then 512: assembled" "$A"
fi
rm -rf "/run/mqstripe/$LUUID"
check_klog "no kernel warning" "$mark"
mqs_finish
