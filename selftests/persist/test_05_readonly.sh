#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-create
#
# assemble --readonly: the array starts read-only and nothing reaches the
# members' media: no superblock update at assemble or stop, no write or
# flush from the array (the members' write and flush counters in
# /sys/block/*/stat stay put), writes through the array fail, the disk
# cannot be made read-write (BLKROSET), reads return the data.  A member
# set read-only itself (a write-blocked disk) assembles only with
# --readonly.  Then a plain assemble works as before.
# Catches: a "read-only" assembly that still bumps the event counters or
# marks the superblocks active, writes or flushes forwarded to members,
# a read-only array turned read-write by blockdev --setrw.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init

mapfile -t NV < <(nvme_disks_by_pci)
[ ${#NV[@]} -ge 6 ] || mqs_skip "needs 6 NVMe namespaces, found ${#NV[@]}"
# images 4 and 5 (test_03's and test_04's): images 0..3 carry the later
# boots' array
C=("${NV[4]}" "${NV[5]}")
SEED=11
[ "$("$STRIPECTL" --version 2>/dev/null | grep -c 'readonly')" -ge 1 ] ||
	mqs_die "the module has the readonly feature" "$("$STRIPECTL" --version 2>&1)"

# the members' writes and flushes completed so far (fields 5 and 15 of
# the disk's stat; 15 exists from 5.5 on), and their superblock areas
media() {
	local d s
	for d in "${C[@]}"; do
		read -ra s <"$(blk_sys "$d")/stat"
		echo "$(blk_name "$d") writes ${s[4]} flushes ${s[14]:-none}"
		dd if="$d" bs=4K count=3 status=none | sha256sum | cut -c1-16
	done
}

out=$("$STRIPECTL" create --force --name rotest --chunk 64K "${C[@]}" 2>&1) ||
	mqs_die "create over ${C[*]}" "$out"
track_array "$out"
pattern fill "$out" 0 8M $SEED >/dev/null || mqs_die "data written through $out"
"$STRIPECTL" stop rotest >/dev/null || mqs_die "stop rotest"
events=$(ex "${C[0]}" MQSTRIPE_EVENTS)

mark=$(klog_mark "persist readonly")
before=$(media)
A=$("$STRIPECTL" assemble --readonly "${C[@]}" 2>"$MQS_TMP/err")
rc=$?
check_eq "assemble --readonly: exit 0, no message" "0 " "$rc $(cat "$MQS_TMP/err")"
[[ $A == /dev/mqstripe* ]] || mqs_die "assemble --readonly printed the array" "$A"
track_array "$A"
check_eq "the disk is read-only (blockdev --getro)" 1 "$(blockdev --getro "$A")"
check_eq "mqstripe/readonly is 1" 1 "$(cat "/sys/block/${A#/dev/}/mqstripe/readonly")"
check_match "status says read-only" "read-only: +yes" "$("$STRIPECTL" status "$A")"
check_cmd "reads return the data written before" pattern check "$A" 0 8M $SEED
check_fails "a direct write through the array fails" 1 "not permitted|permission denied|read-only" \
	dd if=/dev/zero of="$A" bs=4K count=1 oflag=direct conv=notrunc status=none
check_fails "blockdev --setrw is refused" 1 "read-only file system" blockdev --setrw "$A"
check_eq "... and the disk stays read-only" 1 "$(blockdev --getro "$A")"
# fsync of the array: a flush request, which must not reach the members
check_cmd "a flush of the array (fsync) succeeds" \
	"$PYTHON" -c "import os; fd = os.open('$A', os.O_RDONLY); os.fsync(fd)"
for d in "${C[@]}"; do
	if blk_claimable "$d"; then
		fail "member $d is claimed by the array" "it can be claimed exclusively"
	else
		pass "member $d is claimed by the array"
	fi
done
check_eq "the superblocks still say events $events" "$events $events" \
	"$(ex "${C[0]}" MQSTRIPE_EVENTS) $(ex "${C[1]}" MQSTRIPE_EVENTS)"
check_stop "$A"
check_eq "nothing reached the members: writes, flushes, superblocks as before" \
	"$before" "$(media)"
check_klog "no kernel warning" "$mark"

# a member that is read-only itself (write-blocked): only --readonly
blockdev --setro "${C[1]}"
check_fails "a read-only member: plain assemble refused" 1 "${C[1]}.*read-only" \
	"$STRIPECTL" assemble "${C[@]}"
check_no_arrays "... nothing started"
A=$("$STRIPECTL" assemble --readonly "${C[@]}" 2>&1)
if [[ $A == /dev/mqstripe* ]]; then
	pass "a read-only member: assemble --readonly starts the array"
	track_array "$A"
	check_cmd "... and reads return the data" pattern check "$A" 0 8M $SEED
	check_stop "$A"
else
	fail "a read-only member: assemble --readonly starts the array" "$A"
fi
blockdev --setrw "${C[1]}"

A=$("$STRIPECTL" assemble "${C[@]}" 2>&1)
if [[ $A == /dev/mqstripe* ]]; then
	track_array "$A"
	check_eq "plain assemble afterwards: read-write, events bumped by 2" \
		"0 $((events + 2))" "$(blockdev --getro "$A") $(ex "${C[0]}" MQSTRIPE_EVENTS)"
	check_cmd "... data intact" pattern check "$A" 0 8M $SEED
	check_stop "$A"
else
	fail "plain assemble afterwards" "$A"
fi
"$STRIPECTL" zero-superblock "${C[@]}" >/dev/null 2>&1
mqs_finish
