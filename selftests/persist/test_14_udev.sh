#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The udev rule: installed in the guest's udevd, an "add"
# event for each member (in random order) imports "stripectl examine
# --export", runs "stripectl assemble --incremental", and the array gets
# /dev/stripe/NAME.  The members are tagged as mqstripe members in udev's
# database; the array's filesystem and its partitions get the
# /dev/disk/by-uuid, by-label, by-partuuid and by-partlabel links and
# lsblk -f sees them; a stop removes the link and does not start the
# array again (its superblock writes make "change" events).
# Catches: a rule that never matches, a name link missing or left behind,
# an array's filesystem without by-uuid link (fstab's UUID= never
# mounted at boot), an array restarted by the events of its own stop.

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
persist_init
read_record
pidof systemd-udevd >/dev/null 2>&1 || mqs_skip "no udevd in this guest (run-vm.sh --udev)"
RULE_SRC=$MQS_REPO/tools/udev/64-mqstripe.rules
RULE=/etc/udev/rules.d/64-mqstripe.rules
[ -r "$RULE_SRC" ] || mqs_die "$RULE_SRC exists"

need_members "$UUID" 4
check_no_arrays "no array before the events"

mkdir -p /etc/udev/rules.d
sed "s|/usr/sbin/stripectl|$STRIPECTL|g" "$RULE_SRC" >"$RULE"
cleanup_rule() {
	rm -f "$RULE"
	udevadm control --reload >/dev/null 2>&1
}
trap 'cleanup_rule; mqs_cleanup' EXIT
check_cmd "udevadm control --reload" udevadm control --reload
check_cmd "udevadm test parses the rule" bash -c \
	"udevadm test --action=change /sys/class/block/$(blk_name "${M[0]}") 2>&1 | grep -q 64-mqstripe.rules"

mark=$(klog_mark "persist udev")
for d in $(printf '%s\n' "${M[@]}" | shuf); do
	udevadm trigger --action=add "/sys/class/block/$(blk_name "$d")"
done
udevadm settle --timeout=60
A=$(array_by_uuid "$UUID")
if [ -n "$A" ]; then
	pass "the add events started the array ($A)"
	track_array "$A"
else
	mqs_die "the add events started the array" "$(journalctl 2>/dev/null | tail -n 5)"
fi
check_eq "/dev/stripe/$NAME points at $A" "$A" "$(readlink -f "/dev/stripe/$NAME")"
check_eq "/dev/disk/by-id/mqstripe-uuid-$UUID points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-id/mqstripe-uuid-$UUID")"
udevadm info --query=property "${M[0]}" >"$MQS_TMP/prop"
check_match "udev database: MQSTRIPE_ARRAY_UUID of ${M[0]}" "^MQSTRIPE_ARRAY_UUID=$UUID$" "$(cat "$MQS_TMP/prop")"
check_match "udev database: MQSTRIPE_SLOT of ${M[0]}" "^MQSTRIPE_SLOT=0$" "$(cat "$MQS_TMP/prop")"
check_match "udev database: ID_FS_TYPE=mqstripe_member" "^ID_FS_TYPE=mqstripe_member$" "$(cat "$MQS_TMP/prop")"
check_eq "lsblk -f: FSTYPE mqstripe_member" mqstripe_member "$(lsblk -dno FSTYPE "${M[0]}")"
udevadm trigger --action=add "/sys/class/block/$(blk_name "${M[2]}")"
udevadm settle --timeout=60
check_eq "another add of a member: still one array" 1 "$(mqs_arrays | wc -l)"
check_eq "/dev/disk/by-id/mqstripe-name-$NAME points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-id/mqstripe-name-$NAME")"

# What is on the array, in udev's database and as /dev/disk links, the
# way /etc/fstab's UUID= and LABEL= find it at boot (the rule's watch
# makes mkfs's close a change event that probes it again).
check_cmd "mkfs.xfs -L dbdata on the array" mkfs.xfs -q -f -L dbdata "$A"
udevadm settle --timeout=60
fsuuid=$(blkid -p -s UUID -o value "$A")
check_eq "/dev/disk/by-uuid/$fsuuid (the filesystem's) points at $A" "$A" \
	"$(readlink -f "/dev/disk/by-uuid/$fsuuid")"
check_eq "/dev/disk/by-label/dbdata points at $A" "$A" "$(readlink -f /dev/disk/by-label/dbdata)"
check_eq "lsblk -f: FSTYPE xfs on the array" xfs "$(lsblk -dno FSTYPE "$A")"
check_eq "lsblk -f: LABEL dbdata on the array" dbdata "$(lsblk -dno LABEL "$A")"
# a partition table on the array: the partition's links
check_cmd "a GPT with one partition named dbpart on the array" bash -c \
	"wipefs -qa '$A' && printf 'label: gpt\\nsize=64M, type=L, name=dbpart\\n' | sfdisk -q '$A'"
udevadm settle --timeout=60
P=$(lsblk -lnpo NAME,TYPE "$A" | awk '$2 == "part" { print $1; exit }')
[ -b "$P" ] || fail "the partition of $A appeared" "lsblk: $(lsblk -lnpo NAME,TYPE "$A" | tr '\n' ' ')"
P=${P:-no-partition}
partuuid=$(blkid -p -s PART_ENTRY_UUID -o value "$P" 2>/dev/null)
check_eq "/dev/disk/by-partlabel/dbpart points at the partition ($P)" "$P" \
	"$(readlink -f /dev/disk/by-partlabel/dbpart)"
check_eq "/dev/disk/by-partuuid/$partuuid points at $P" "$P" \
	"$(readlink -f "/dev/disk/by-partuuid/$partuuid")"
check_cmd "mkfs.ext4 -L dbpartfs on the partition" mkfs.ext4 -q -F -L dbpartfs "$P"
udevadm settle --timeout=60
check_eq "/dev/disk/by-label/dbpartfs points at $P" "$P" "$(readlink -f /dev/disk/by-label/dbpartfs)"
wipefs -qa "$P" "$A" >/dev/null 2>&1
udevadm settle --timeout=60

check_cmd "stop by its /dev/stripe name" "$STRIPECTL" stop "/dev/stripe/$NAME"
MQS_ARRAYS=()
udevadm settle --timeout=60
if [ -e "/dev/stripe/$NAME" ]; then
	fail "/dev/stripe/$NAME gone after stop" "$(ls -l "/dev/stripe/$NAME")"
else
	pass "/dev/stripe/$NAME gone after stop"
fi
sleep 2
udevadm settle --timeout=60
check_no_arrays "the change events of the stop did not start it again"
check_eq "members clean after the stop" "clean clean clean clean" \
	"$(for d in "${M[@]}"; do ex "$d" MQSTRIPE_STATE; done | tr '\n' ' ' | sed 's/ $//')"
check_klog "no kernel warning" "$mark"
mqs_finish
