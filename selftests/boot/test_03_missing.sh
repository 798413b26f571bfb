# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A member missing at boot: the array of the fstab line (nofail) cannot
# start, the boot still completes (no emergency shell: the step runs),
# the file system is not mounted, no array runs, and the boot-time unit's
# journal names the missing drive's slot; with the drive back, the next boot
# mounts it.
# Catches: a boot that waits for or fails on an incomplete array, an
# array started without a member, a refusal that does not say what is
# missing.

boot_test() {
	drives 4 256M
	step <<'GUEST'
modprobe mqstripe
new_xfs_array data /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1
mkdir -p /srv/data
echo "UUID=$U /srv/data xfs defaults,nofail 0 0" >>/etc/fstab
echo "data" >/srv/marker
save_slots data
$STRIPECTL stop data
check "array created and stopped" test -n "$U"
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, fstab" || return
	step <<'GUEST'
check "the boot completed (multi-user.target)" systemctl is-active multi-user.target
check "no array runs" test -z "$($STRIPECTL list 2>/dev/null | tail -n +2)"
check "/srv/data not mounted" test -z "$(findmnt -n /srv/data)"
journalctl -b -u mqstripe-assemble.service -o cat --no-pager >/tmp/unit.log
# the slot of the drive left out: the one whose serial no disk has now
cat /sys/class/block/nvme*n1/device/serial >/tmp/serials
S=$(awk 'NR == FNR { here[$1] = 1; next } !($1 in here) { print FNR - 1 }' /tmp/serials /root/slots.data)
check_eq "one slot's drive is absent" 1 "$(wc -w <<<"$S")"
check "the boot-time unit says slot $S is missing" \
	grep -qE "slot $S \(member UUID [0-9a-f-]{36}\) is missing: found 3 of 4" /tmp/unit.log
sed 's/^/#   /' /tmp/unit.log | head -5
GUEST
	# the third drive left out
	boot "${D[0]},${D[1]},${D[3]}" "one drive missing" || return
	step <<'GUEST'
wait_for 120 findmnt -n /srv/data
check "with every drive back: /srv/data mounted" systemctl is-active srv-data.mount
GUEST
	boot "${D[3]},${D[2]},${D[1]},${D[0]}" "every drive back"
}
