# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A server's boot: an XFS on an array named "data", in /etc/fstab by its
# UUID with nofail as the README says, is mounted by systemd during boot
# after the NVMe drives came back in another order; the udev rule gives
# the array's filesystem its /dev/disk/by-uuid and by-label links (what
# systemd waits for), lsblk -f and findmnt see it, the data is intact.
# The first boot powers off with the array running and mounted: the
# shutdown unmounts it, then mqstripe-stop.service's stop stops the
# array, so its members' superblocks were clean (events two ahead of the
# create's) when the next boot assembled them (two more), and that boot
# says nothing of an array not stopped cleanly; no boot has an ordering
# cycle of systemd units.
# Catches: an array whose filesystem has no by-uuid link (the fstab line
# never mounted: systemd times out on the device), an array not assembled
# at boot, or assembled from the drives in the wrong order; a shutdown
# that leaves the arrays running (a member lost during the run would be
# accepted again at the next boot), or stops them before their file
# systems are unmounted; units whose order makes a cycle.

boot_test() {
	drives 4 256M
	step <<'GUEST'
modprobe mqstripe
A=$($STRIPECTL create --name data --chunk 64K /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1) ||
	{ echo "not ok - stripectl create"; exit 1; }
udevadm settle
mkfs.xfs -q -f -L dbdata "$A"
udevadm settle
U=$(blkid -s UUID -o value "$A")
check "/dev/stripe/data" test -b /dev/stripe/data
check "/dev/disk/by-uuid/$U" test "$(readlink -f /dev/disk/by-uuid/"$U")" = "$A"
check "/dev/disk/by-label/dbdata" test "$(readlink -f /dev/disk/by-label/dbdata)" = "$A"
check_eq "lsblk -f: FSTYPE xfs" xfs "$(lsblk -dno FSTYPE "$A")"
fstab_data /srv/data defaults,nofail
save_slots data
# left running and mounted: the shutdown's to unmount and stop
mount /srv/data
$STRIPECTL examine --export /dev/nvme0n1 | sed -n 's/^MQSTRIPE_EVENTS=//p' >/root/events.data
check "the array's events recorded" test -s /root/events.data
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, mkfs, fstab; powered off running" || return
	step <<'GUEST'
# the mount is systemd's (nofail: not waited for by local-fs.target)
wait_for 120 findmnt -n /srv/data
check "srv-data.mount active" systemctl is-active srv-data.mount
check_eq "/srv/data is the array's XFS" "xfs /dev/mqstripe0" \
	"$(findmnt -n -o FSTYPE,SOURCE /srv/data | awk '{print $1, $2}')"
check "the data is intact" sha256sum -c /root/data.sha256
check_slots data
check_no_failed_unit
# the shutdown's stop (+2, clean), then this boot's assembly (+2)
e=$(cat /root/events.data)
check_eq "the shutdown stopped the array: every member 4 events past the create's" \
	"$((e + 4)) $((e + 4)) $((e + 4)) $((e + 4))" \
	"$(for d in $($STRIPECTL list | awk '$2 == "data" { print $NF }' | tr , ' '); do
		$STRIPECTL examine --export "/dev/$d" | sed -n 's/^MQSTRIPE_EVENTS=//p'; done | xargs)"
journalctl -b -1 -o cat --no-pager >/tmp/prev.log
check "... after its file system was unmounted, by mqstripe-stop.service" \
	awk '/^Unmounted srv-data.mount/ { u = NR } /^Stopped mqstripe-stop.service/ { s = NR } END { exit !(u && s > u) }' /tmp/prev.log
grep -E '^(Unmounted srv-data|Stopp.*mqstripe)' /tmp/prev.log | sed 's/^/#   /'
check "no 'not stopped cleanly' warning at this boot" \
	sh -c "! journalctl -b -o cat --no-pager | grep -q 'not stopped cleanly'"
check "no ordering cycle of units in either boot" \
	sh -c "! { journalctl -b -1 -o cat --no-pager; journalctl -b -o cat --no-pager; } | grep -qi 'ordering cycle'"
GUEST
	# the same drives, attached in another order
	boot "${D[2]},${D[1]},${D[3]},${D[0]}" "reboot, drives reordered"
}
