#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-reboot
# mqs-needs: persist/test_01_create
#
# Every refusal of assemble, each with its own message,
# naming the device, slot or member UUID, exit 1, nothing started, the
# members free again, no kernel warning: a missing member, an extra member
# of another array, two devices claiming one slot (a copy of a member's
# first 2 MiB on a spare), a flipped byte in a superblock (checksum), an
# unknown incompatible feature flag.  A dm map over all of a member: --scan
# takes the map.  The changed logical block size is test_21 (another
# boot).  Then the same members assemble fine.
# Catches: arrays started with a hole or a copy in them, a damaged
# superblock believed, a newer format misread.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
read_record

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 6 ] || mqs_skip "needs 6 NVMe namespaces, found ${#NV[@]}"
need_members "$UUID" 4
SPARES=()
for d in "${NV[@]}"; do
	[[ " ${M[*]} " == *" $d "* ]] || SPARES+=("$d")
done
S1=${SPARES[0]}
S2=${SPARES[1]}
LABEL="array '$NAME' \\(UUID $UUID\\)"

# refused DESC REGEX ARGS...: stripectl ARGS fails as it should
refused() {
	local desc=$1 re=$2 mark
	shift 2
	mark=$(klog_mark "persist refusal: $desc")
	check_fails "$desc: refused" 1 "$re" "$STRIPECTL" "$@"
	check_no_arrays "$desc: nothing started"
	check_free "$desc: members free" "${M[@]}"
	check_klog "$desc: no kernel warning" "$mark"
}

u3=$(ex "${M[3]}" MQSTRIPE_MEMBER_UUID)
refused "missing member" \
	"^stripectl: $LABEL: slot 3 \\(member UUID $u3\\) is missing: found 3 of 4" \
	assemble "${M[2]}" "${M[0]}" "${M[1]}"

out=$("$STRIPECTL" create --force --name other "$S1" 2>&1) && "$STRIPECTL" stop "$out"
refused "extra member of another array" \
	"^stripectl: $S1: a member of another array 'other' .*not of $LABEL" \
	assemble "${M[@]}" "$S1"
A=$("$STRIPECTL" assemble --name "$NAME" "$S1" "${M[@]}" 2>&1) && track_array "$A"
check_eq "with --name the other array's device is left out" \
	"$(array_by_uuid "$UUID")" "$A"
[ -b "$A" ] && check_stop "$A"

dd if="${M[1]}" of="$S2" bs=1M count=2 oflag=direct status=none
refused "duplicate slot (a copy of slot 1)" \
	"^stripectl: ${M[1]} and $S2 both claim slot 1 of $LABEL with member UUID $(ex "${M[1]}" MQSTRIPE_MEMBER_UUID): one is a copy" \
	assemble "${M[@]}" "$S2"
refused "duplicate slot, --scan" "both claim slot 1 of $LABEL" assemble --scan --uuid "$UUID"
"$STRIPECTL" zero-superblock "$S1" "$S2" >/dev/null

sbtool save "${M[2]}" "$MQS_TMP/sb2"
sbtool flip "${M[2]}" 0x68	# a byte of data_bytes
refused "flipped byte (checksum)" \
	"^stripectl: ${M[2]}: superblock checksum mismatch \\(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\\): the superblock is damaged" \
	assemble "${M[@]}"
refused "flipped byte (checksum), --scan" "^stripectl: ${M[2]}: superblock checksum mismatch" \
	assemble --scan --name "$NAME"
check_fails "examine shows the damage" 1 "${M[2]}: superblock checksum mismatch" \
	"$STRIPECTL" examine "${M[2]}"
sbtool restore "${M[2]}" "$MQS_TMP/sb2"

sbtool save "${M[0]}" "$MQS_TMP/sb0"
sbtool set-incompat "${M[0]}" 62
sbtool parse "${M[0]}" >"$MQS_TMP/p0.json"
check_eq "sbtool: checksum right, the flag is what is unknown" unknown-incompat-feature \
	"$(jget "$MQS_TMP/p0.json" status)"
refused "unknown incompatible feature" \
	"^stripectl: ${M[0]}: superblock has unknown incompatible feature flags 0x4000000000000000" \
	assemble "${M[3]}" "${M[2]}" "${M[1]}" "${M[0]}"
sbtool restore "${M[0]}" "$MQS_TMP/sb0"

# A device-mapper map over all of member 0 shows its superblock at the same
# place (as a multipath map over its paths, or an md mirror with its
# metadata at the end, would): --scan takes the map, never the device
# under it, and does not call the two a copy.
sz=$(blockdev --getsz "${M[0]}")
if mqs_dm_create over0 "0 $sz linear ${M[0]} 0"; then
	udevadm settle 2>/dev/null
	dm=$(blk_name "$DM_DEV")
	A=$("$STRIPECTL" assemble --scan --uuid "$UUID" 2>&1)
	if [ "$(array_by_uuid "$UUID")" = "$A" ]; then
		track_array "$A"
		slaves=$(ls "/sys/block/${A#/dev/}/slaves" | sort | tr '\n' ' ')
		check_match "--scan with a dm map over ${M[0]}: the map ($dm) is the member, not $(blk_name "${M[0]}")" \
			"(^| )$dm " "$slaves"
		[[ " $slaves" == *" $(blk_name "${M[0]}") "* ]] &&
			fail "--scan with a dm map over ${M[0]}: the device under it is not a member" "slaves: $slaves"
		check_stop "$A"
	else
		fail "--scan with a dm map over ${M[0]} starts the array" "$A"
	fi
	# udev probes the map after the array let it go: settle, then remove
	# (retrying while a probe still has it open)
	udevadm settle 2>/dev/null
	mqs_dm_remove over0 || fail "dmsetup remove the map over ${M[0]}"
	udevadm settle 2>/dev/null
else
	fail "dmsetup create a map over ${M[0]}"
fi

A=$("$STRIPECTL" assemble "${M[3]}" "${M[1]}" "${M[0]}" "${M[2]}" 2>&1)
if [ "$(array_by_uuid "$UUID")" = "$A" ]; then
	pass "restored: the members assemble again"
	track_array "$A"
	check_stop "$A"
else
	fail "restored: the members assemble again" "$A"
fi
mqs_finish
