# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A server's boot: an XFS on an array named "data", in /etc/fstab by its
# UUID with nofail as the README says, is mounted by systemd during boot
# after the NVMe drives came back in another order; the udev rule gives
# the array's filesystem its /dev/disk/by-uuid and by-label links (what
# systemd waits for), lsblk -f and findmnt see it, the data is intact.
# Catches: an array whose filesystem has no by-uuid link (the fstab line
# never mounted: systemd times out on the device), an array not assembled
# at boot, or assembled from the drives in the wrong order.

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
$STRIPECTL stop data
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, mkfs, fstab" || return
	step <<'GUEST'
# the mount is systemd's (nofail: not waited for by local-fs.target)
wait_for 120 findmnt -n /srv/data
check "srv-data.mount active" systemctl is-active srv-data.mount
check_eq "/srv/data is the array's XFS" "xfs /dev/mqstripe0" \
	"$(findmnt -n -o FSTYPE,SOURCE /srv/data | awk '{print $1, $2}')"
check "the data is intact" sha256sum -c /root/data.sha256
check_slots data
check_no_failed_unit
GUEST
	# the same drives, attached in another order
	boot "${D[2]},${D[1]},${D[3]},${D[0]}" "reboot, drives reordered"
}
