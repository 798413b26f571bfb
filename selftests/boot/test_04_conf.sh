# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Which arrays start at boot: with "AUTO no" in /etc/mqstripe.conf and no
# ARRAY line for it, an array is not started (neither by the initramfs,
# which carries the file, nor by udev or the boot-time unit, whose note
# says why and which line would allow it); the line "stripectl examine
# --scan --brief" prints, added, starts it at the next boot.  The
# monitor's unit, enabled by the package, does not run while the file has
# no MAILADDR or PROGRAM line; with a PROGRAM line it runs at boot and
# the program gets the array's array_stopped event.
# Catches: a boot path that ignores the file (the initramfs with a copy
# of it, the udev rule, the unit), a note that does not say what to add,
# a monitor unit that runs unconfigured, or not at all when configured.

boot_test() {
	drives 2 256M
	step <<'GUEST'
modprobe mqstripe
A=$($STRIPECTL create --name guestdisk --chunk 64K /dev/nvme0n1 /dev/nvme1n1) ||
	{ echo "not ok - stripectl create"; exit 1; }
mkfs.xfs -q -f "$A"
udevadm settle
U=$(blkid -s UUID -o value "$A")
mkdir -p /srv/guest
echo "UUID=$U /srv/guest xfs defaults,nofail 0 0" >>/etc/fstab
$STRIPECTL stop guestdisk
echo "AUTO no" >/etc/mqstripe.conf
# the initramfs carries the file: rebuild it after a change
update-initramfs -u >/dev/null 2>&1
check "the initramfs has /etc/mqstripe.conf" \
	sh -c "lsinitramfs /boot/initrd.img-$KVER | grep -qx etc/mqstripe.conf"
GUEST
	boot "${D[0]},${D[1]}" "create, AUTO no" || return
	step <<'GUEST'
check "multi-user.target reached" systemctl is-active multi-user.target
check "no array runs" test -z "$($STRIPECTL list 2>/dev/null | tail -n +2)"
check "/srv/guest not mounted" test -z "$(findmnt -n /srv/guest)"
journalctl -b -u mqstripe-assemble.service -o cat --no-pager >/tmp/unit.log
check "the boot-time unit says why, and which line would allow it" \
	grep -q "AUTO no in /etc/mqstripe.conf (line 1) and no ARRAY line names it; to start it at boot add the line 'ARRAY uuid=" /tmp/unit.log
sed 's/^/#   /' /tmp/unit.log | head -4
$STRIPECTL examine --scan --brief >>/etc/mqstripe.conf
update-initramfs -u >/dev/null 2>&1
check "examine --scan --brief gave its ARRAY line" grep -q "^ARRAY uuid=.* name=guestdisk$" /etc/mqstripe.conf
check "mqstripe-monitor.service enabled by the package" systemctl is-enabled -q mqstripe-monitor.service
check "... and not running without MAILADDR or PROGRAM" test "$(systemctl is-active mqstripe-monitor.service)" = inactive
printf '#!/bin/sh\necho "$*" >>/var/log/mqs-events\n' >/usr/local/sbin/mqs-event
chmod +x /usr/local/sbin/mqs-event
echo "PROGRAM /usr/local/sbin/mqs-event" >>/etc/mqstripe.conf
GUEST
	boot "${D[1]},${D[0]}" "AUTO no: not started" || return
	step <<'GUEST'
wait_for 120 findmnt -n /srv/guest
check "with its ARRAY line: started and mounted" systemctl is-active srv-guest.mount
check "with a PROGRAM line: mqstripe-monitor.service runs" systemctl is-active mqstripe-monitor.service
umount /srv/guest && $STRIPECTL stop guestdisk
wait_for 60 grep -q "^array_stopped /dev/mqstripe" /var/log/mqs-events
check "the monitor's program gets array_stopped" grep -qx "array_stopped /dev/mqstripe[0-9]*" /var/log/mqs-events
GUEST
	boot "${D[0]},${D[1]}" "ARRAY line added"
}
