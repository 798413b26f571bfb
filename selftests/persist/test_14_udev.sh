#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The udev rule: installed in the guest's udevd, an "add"
# event for each member (in random order) imports "stripectl examine
# --export", runs "stripectl assemble --incremental", and the array gets
# /dev/stripe/NAME.  The members are tagged as mqstripe members in udev's
# database; a stop removes the link and does not start the array again
# (its superblock writes make "change" events).
# Catches: a rule that never matches, a name link missing or left behind,
# an array restarted by the events of its own stop.

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
