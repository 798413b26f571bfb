#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stop while in use: with the array mounted (and, separately, merely held
# open, or a member of another array), stripectl stop exits 1 with an
# in-use message (naming the holding array), within its bounded
# retry time; the array, the mount and the data are intact.  After umount
# (close) stop works and releases everything.
# Catches: REMOVE tearing down an open disk (use after free, lost data),
# an EBUSY that still changed something, a stop that retries forever.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd mkfs.xfs sha256sum

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
MNT=$MQS_TMP/mnt

mqs_must_create --chunk 64K --name busy "${M[@]}"
DEV=$MQS_DEV
mkfs.xfs -f -q "$DEV" >"$MQS_TMP/mkfs.out" 2>&1 || mqs_die "mkfs.xfs" "$(cat "$MQS_TMP/mkfs.out")"
mqs_mount "$DEV" "$MNT" || mqs_die "mount $DEV"
head -c $((5 << 20)) /dev/urandom >"$MNT/data"
sync
sum=$(sha256sum <"$MNT/data")
uuid=$(cat "$MQS_SYS/mqstripe/uuid")

start=$(date +%s)
check_fails "stop while mounted: exit 1, in-use message" 1 \
	"$(basename "$DEV").*(busy|in use|mounted|open)|(busy|in use|mounted|open).*$(basename "$DEV")" \
	timeout 120 "$STRIPECTL" stop "$DEV"
took=$(($(date +%s) - start))
check_le "stop gave up within 60 s (bounded retry)" 60 "$took"
check_eq "the array is still there" "$uuid" "$(cat "$MQS_SYS/mqstripe/uuid" 2>&1)"
check_cmd "still mounted" mountpoint -q "$MNT"
check_eq "the file is intact (page cache)" "$sum" "$(sha256sum <"$MNT/data")"
drop_caches
check_eq "the file is intact (read from the device)" "$sum" "$(sha256sum <"$MNT/data")"
head -c $((1 << 20)) /dev/urandom >"$MNT/more" && sync
check_cmd "the filesystem still takes writes" test -s "$MNT/more"
check_cmd "umount" umount "$MNT"
check_stop "$DEV"
# claims of all members in one python (blk_busy lists the claimed ones;
# if it fails, every member counts as claimed)
busy=$(blk_busy "${M[@]}") && busy=" ${busy//$'\n'/ } " || busy=" ${M[*]} "
for m in "${M[@]}"; do
	if [[ $busy != *" $m "* ]]; then pass "$(blk_name "$m") free after stop"; else fail "$(blk_name "$m") free after stop"; fi
done

# held open by a process, not mounted
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
exec 8<"$DEV"
check_fails "stop while held open: exit 1, in-use message" 1 '(busy|in use|open)' \
	timeout 120 "$STRIPECTL" stop "$DEV"
check_cmd "the array still reads through the open descriptor" \
	dd if=/proc/self/fd/8 of=/dev/null bs=64k count=4 status=none
exec 8<&-
check_stop "$DEV"

# the same members again: the data made before is still there
mqs_must_create --chunk 64K --name busy "${M[@]}"
mqs_mount "$MQS_DEV" "$MNT" || mqs_die "mount again"
check_eq "data intact after stop and create again" "$sum" "$(sha256sum <"$MNT/data")"
umount "$MNT"
check_stop "$MQS_DEV"

# a member of another array (stacked): the message names that array (after
# the data check: the upper array wipes the lower one's XFS signature)
mqs_must_create --chunk 64K "${M[0]}" "${M[1]}"
LOW=$MQS_DEV
mqs_must_create --chunk 64K "$LOW" "${M[2]}"
TOP=$MQS_DEV
check_fails "stop of an array that is a member of another: names it" 1 \
	"^stripectl: $LOW: device is busy: a member of the running array $TOP \(stop it first" \
	timeout 120 "$STRIPECTL" stop "$LOW"
check_stop "$TOP"
check_stop "$LOW"
mqs_finish
