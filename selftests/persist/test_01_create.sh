#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-create
#
# First boot of the reboot test: create an array over the
# first four NVMe namespaces, mkfs.xfs, write files, rename the array
# while it is mounted (the name the next boots expect), record the files'
# checksums and which image (NVMe serial) holds which slot in the shared
# directory, stop.  Checks the superblocks as create, rename and stop
# leave them.
# Catches: create not writing superblocks, or writing them after the array
# started; a rename that disturbs IO or does not reach every superblock;
# stop not marking them clean.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
mqs_require_cmd mkfs.xfs sha256sum

mapfile -t NV < <(nvme_disks_by_pci)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
diag "members (images 0..3, by PCI address): ${M[*]}"
rm -f "$PERSIST_DIR/array" "$PERSIST_DIR/sums" "$PERSIST_DIR/slots"

for m in "${M[@]}"; do
	check_eq "$m is blank before create" "" "$(ex "$m" MQSTRIPE_ARRAY_UUID)"
done
# blank members need no --force (lib.sh's mqs_create would pass it); the
# array gets its lasting name by a rename below
FIRST_NAME=${ARRAY_NAME}0
out=$("$STRIPECTL" create --name "$FIRST_NAME" --chunk 64K "${M[@]}" 2>&1)
[[ $out =~ ^/dev/mqstripe[0-9]+$ ]] ||
	mqs_die "stripectl create --name $FIRST_NAME --chunk 64K ${M[*]}" "$out"
track_array "$out"
MQS_DEV=$out
MQS_SYS=/sys/block/$(basename "$out")
pass "create printed $MQS_DEV"
UUID=$(cat "$MQS_SYS/mqstripe/uuid")
for i in 0 1 2 3; do
	check_eq "${M[i]}: superblock of the running array, slot $i, events 1, active" \
		"$UUID $i 4 1 active $FIRST_NAME" \
		"$(ex "${M[i]}" MQSTRIPE_ARRAY_UUID) $(ex "${M[i]}" MQSTRIPE_SLOT) $(ex "${M[i]}" MQSTRIPE_MEMBERS) $(ex "${M[i]}" MQSTRIPE_EVENTS) $(ex "${M[i]}" MQSTRIPE_STATE) $(ex "${M[i]}" MQSTRIPE_NAME)"
done

mkfs.xfs -f -q "$MQS_DEV" >"$MQS_TMP/mkfs.out" 2>&1 ||
	mqs_die "mkfs.xfs $MQS_DEV" "$(cat "$MQS_TMP/mkfs.out")"
mqs_mount "$MQS_DEV" "$MQS_TMP/mnt" || mqs_die "mount $MQS_DEV"
# files of many sizes, some larger than a stripe
write_tree "$MQS_TMP/mnt" "$MQS_TMP/sums" 3 5 53 511 5
sync
# a rename of the mounted array, with a write going on meanwhile
dd if=/dev/urandom of="$MQS_TMP/mnt/during-rename" bs=1M count=8 oflag=direct status=none &
ddpid=$!
check_eq "rename $FIRST_NAME to $ARRAY_NAME while mounted: says what it did" \
	"$MQS_DEV: renamed from '$FIRST_NAME' to '$ARRAY_NAME' in the module and the superblocks of 4 members" \
	"$("$STRIPECTL" rename "$FIRST_NAME" "$ARRAY_NAME" 2>&1)"
wait "$ddpid"
check_eq "the write during the rename completed" 0 "$?"
check_eq "sysfs: the new name" "$ARRAY_NAME" "$(cat "$MQS_SYS/mqstripe/name")"
for i in 0 1 2 3; do
	check_eq "${M[i]}: after rename: events 2, active, the new name" \
		"2 active $ARRAY_NAME" \
		"$(ex "${M[i]}" MQSTRIPE_EVENTS) $(ex "${M[i]}" MQSTRIPE_STATE) $(ex "${M[i]}" MQSTRIPE_NAME)"
done
rm -f "$MQS_TMP/mnt/during-rename"
check_cmd "checksums verify before umount" \
	bash -c "cd '$MQS_TMP/mnt' && sha256sum --quiet -c '$MQS_TMP/sums'"
check_cmd "umount" umount "$MQS_TMP/mnt"
check_stop "$MQS_DEV"
for i in 0 1 2 3; do
	check_eq "${M[i]}: after stop: events 4 (two passes), clean" "4 clean" \
		"$(ex "${M[i]}" MQSTRIPE_EVENTS) $(ex "${M[i]}" MQSTRIPE_STATE)"
done
check_free "members free after stop" "${M[@]}"

# the record for the next boots
cp "$MQS_TMP/sums" "$PERSIST_DIR/sums"
for i in 0 1 2 3; do
	echo "$i $(serial "${M[i]}")"
done >"$PERSIST_DIR/slots"
printf 'UUID=%s\nNAME=%s\nNFILES=%s\n' "$UUID" "$ARRAY_NAME" \
	"$(wc -l <"$MQS_TMP/sums")" >"$PERSIST_DIR/array"
diag "array $UUID; slots by serial: $(tr '\n' ' ' <"$PERSIST_DIR/slots")"
mqs_finish
