#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-reboot
# mqs-needs: persist/test_01_create
#
# Second boot of the reboot test: the images of the first
# boot are attached in reverse order, so every device name now points at
# another member.  "stripectl assemble --scan" must find the array by its
# UUID, put every member in its recorded slot (checked by the NVMe serial,
# which follows the image) and every file must match its checksum.
# Catches: assembly by device name or argument order (which would corrupt
# every filesystem on the array), lost data, events not bumped.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
read_record
mqs_require_cmd sha256sum

# every slot held (a count of lines would take "-" for a member)
need_members "$UUID" 4
BYSLOT=("${M[@]}")
# the first boot had slot i on nvme<i>n1; the images are now attached in
# reverse order (NVMe probes in parallel, so not every name need move)
renamed=0
for slot in 0 1 2 3; do
	[ "$(blk_name "${BYSLOT[slot]}")" = "nvme${slot}n1" ] || renamed=$((renamed + 1))
done
check_ge "the device names changed (slots under another name)" 2 "$renamed"
diag "slots 0..3 are now on: ${BYSLOT[*]}"

# a udev rule installed on the host (this guest runs the host's /lib/udev)
# may have started it at boot already: that is not what is tested here
if A=$(array_by_uuid "$UUID"); then
	diag "$A was started at boot (an installed udev rule): stopping it"
	"$STRIPECTL" stop "$A" >/dev/null 2>&1
fi
mark=$(klog_mark "persist assemble --scan")
"$STRIPECTL" assemble --scan >"$MQS_TMP/scan.out" 2>"$MQS_TMP/scan.err"
rc=$?
check_eq "assemble --scan exits 0" 0 "$rc"
check_eq "assemble --scan printed nothing on stderr" "" "$(cat "$MQS_TMP/scan.err")"
A=$(array_by_uuid "$UUID") || mqs_die "the array $UUID runs" "$(cat "$MQS_TMP/scan.out" "$MQS_TMP/scan.err")"
track_array "$A"
check_eq "assemble --scan printed the one array it started" "$A" "$(cat "$MQS_TMP/scan.out")"
check_eq "the name is kept (the first boot's rename)" "$NAME" \
	"$(cat "/sys/block/$(basename "$A")/mqstripe/name")"
"$STRIPECTL" status --json "$A" >"$MQS_TMP/status.json"
while read -r slot ser; do
	dev=$(jget "$MQS_TMP/status.json" "members.$slot.device")
	check_eq "slot $slot is the image of serial $ser (now $dev)" "$ser" "$(serial "$dev")"
done <"$PERSIST_DIR/slots"
check_eq "status shows the superblock events: 1 at create, + 1 for the rename, then + 2 for each of the two updates since" 6 \
	"$(jget "$MQS_TMP/status.json" superblock.events)"

mqs_mount "$A" "$MQS_TMP/mnt" || mqs_die "mount $A"
check_cmd "every checksum matches" bash -c "cd '$MQS_TMP/mnt' && sha256sum --quiet -c '$PERSIST_DIR/sums'"
check_eq "file count" "$NFILES" "$(find "$MQS_TMP/mnt" -type f | wc -l)"
check_cmd "umount" umount "$MQS_TMP/mnt"
check_cmd "xfs_repair -n finds the filesystem clean" xfs_repair -n "$A"
check_stop "$A"
for d in "${BYSLOT[@]}"; do
	check_eq "$d: events 8, clean after stop" "8 clean" \
		"$(ex "$d" MQSTRIPE_EVENTS) $(ex "$d" MQSTRIPE_STATE)"
done
"$STRIPECTL" assemble --scan >"$MQS_TMP/scan2.out" 2>&1
check_eq "assemble --scan again starts it again" 0 "$?"
A=$(array_by_uuid "$UUID") && track_array "$A"
"$STRIPECTL" assemble --scan >"$MQS_TMP/scan3.out" 2>&1
check_eq "assemble --scan with the array running: nothing to do" "0 " \
	"$? $(cat "$MQS_TMP/scan3.out")"
check_stop "$A"
check_klog "no kernel warning" "$mark"
mqs_finish
