# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Which arrays start at boot: with "AUTO no" in /etc/mqstripe.conf and no
# ARRAY line for it, an array is not started (neither by the initramfs,
# which carries the file, nor by udev or the boot-time unit, whose note
# says why and which line would allow it); the line "stripectl examine
# --scan --brief" prints, added, starts it at the next boot.  Beside it an
# array that has its ARRAY line, over four dm-crypt members that
# systemd-cryptsetup opens at boot from /etc/crypttab (LUKS2, by the LUKS
# UUID, a key file in /etc/keys, nofail): started at boot by the udev
# rule at the maps' activation (or by the boot-time unit, if the maps
# came first), its XFS mounted by systemd from fstab (UUID, nofail) after
# the drives came back in another order.  A member of that array fails
# during the run (its map's table replaced by dm's error target, a read of
# its chunk): the udev rule's record-fault puts the others two events
# ahead at once, the shutdown stops the array without updating that
# member, and before systemd-cryptsetup detaches the maps (each member's
# unit ordered before mqstripe-stop.service by the drop-in of the
# package's generator, from the list of member maps that create wrote;
# the journal's order), so the next boot refuses it as stale (udev and the boot-time
# unit), the journal naming it and --force; assemble --scan --force
# starts the array, its data intact.  A member of another array (over
# dm-linear maps) fails and gets its table back: clear takes it back and
# makes its superblock current (a stop and a plain assemble take it).
# Then another member of the dm-crypt array fails and the power is cut
# (sysrq o, no stop): the next boot refuses it as stale too, and
# assemble --force says the array was not stopped cleanly.  The monitor's unit, enabled by
# the package, runs without a MAILADDR or PROGRAM line and logs the
# member's fault to syslog; with a PROGRAM line it runs at boot and the
# program gets the array's array_stopped event.
# Catches: a boot path that ignores the file (the initramfs with a copy
# of it, the udev rule, the unit), a note that does not say what to add;
# an array over dm-crypt maps that the boot never starts (the maps appear
# after the boot-time unit ran and get no "add" event with their
# content), or starts from the wrong drives; a member that failed during
# the run accepted again after a plain reboot (a shutdown that does not
# stop the arrays, or writes a clean superblock on a faulty member) or
# after a power cut (a fault not recorded when it happened), a refusal
# that does not name it; a cleared member refused at the next assembly;
# maps detached before the array over them is stopped (no drop-in made
# for the members' maps); a monitor unit that does not run unconfigured
# (nothing records a fault that udev missed), or not at all when configured.

boot_test() {
	drives 6 256M
	step <<'GUEST'
modprobe mqstripe
new_xfs_array guestdisk /dev/nvme0n1 /dev/nvme1n1
mkdir -p /srv/guest
echo "UUID=$U /srv/guest xfs defaults,nofail 0 0" >>/etc/fstab
$STRIPECTL stop guestdisk
# dm-crypt members: a key file, LUKS2 on four drives (PBKDF2 at its
# fewest iterations: a random key file needs no stretching, and TCG is
# slow), crypttab by the LUKS UUID (the drives' names change)
install -d -m 0700 /etc/keys
head -c 64 /dev/urandom >/etc/keys/mqs.key
chmod 0400 /etc/keys/mqs.key
M=()
for i in 2 3 4 5; do
	cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
		--key-file /etc/keys/mqs.key "/dev/nvme${i}n1" ||
		echo "not ok - luksFormat /dev/nvme${i}n1"
	echo "mqscrypt$i UUID=$(cryptsetup luksUUID "/dev/nvme${i}n1") /etc/keys/mqs.key luks,nofail" >>/etc/crypttab
	cryptsetup open --key-file /etc/keys/mqs.key "/dev/nvme${i}n1" "mqscrypt$i"
	M+=("/dev/mapper/mqscrypt$i")
done
new_xfs_array cryptdata "${M[@]}"
# no drop-in by hand: create lists the member maps for the package's
# generator, which orders their cryptsetup units before
# mqstripe-stop.service at the next boot
check_eq "create listed the four member maps in /etc/mqstripe/crypt-members" \
	"mqscrypt2 mqscrypt3 mqscrypt4 mqscrypt5" \
	"$(grep -v '^#' /etc/mqstripe/crypt-members 2>/dev/null | awk '{ print $1 }' | sort | xargs)"
mkdir -p /srv/crypt
echo "UUID=$U /srv/crypt xfs defaults,nofail 0 0" >>/etc/fstab
mount "$A" /srv/crypt
dd if=/dev/urandom of=/srv/crypt/blob bs=1M count=8 status=none
sha256sum /srv/crypt/blob >/root/blob.sha256
umount /srv/crypt
save_slots cryptdata
$STRIPECTL stop cryptdata
echo "AUTO no" >/etc/mqstripe.conf
$STRIPECTL examine --scan --brief | grep ' name=cryptdata$' >>/etc/mqstripe.conf
check "cryptdata's ARRAY line" grep -q "^ARRAY uuid=.* name=cryptdata$" /etc/mqstripe.conf
# the initramfs carries the file: rebuild it after a change
update-initramfs -u >/dev/null 2>&1
check "the initramfs has /etc/mqstripe.conf" \
	sh -c "lsinitramfs /boot/initrd.img-$KVER | grep -qx etc/mqstripe.conf"
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]},${D[4]},${D[5]}" "create, dm-crypt, AUTO no" || return
	step <<'GUEST'
check "multi-user.target reached" systemctl is-active multi-user.target
# the dm-crypt array: the boot's (nofail: not waited for)
wait_for 120 findmnt -n /srv/crypt
check "the dm-crypt maps opened from /etc/crypttab" systemctl is-active \
	systemd-cryptsetup@mqscrypt2.service systemd-cryptsetup@mqscrypt3.service \
	systemd-cryptsetup@mqscrypt4.service systemd-cryptsetup@mqscrypt5.service
check "srv-crypt.mount active" systemctl is-active srv-crypt.mount
check_eq "/srv/crypt is the array's XFS" "xfs /dev/mqstripe0" \
	"$(findmnt -n -o FSTYPE,SOURCE /srv/crypt | awk '{print $1, $2}')"
check "the data is intact" sha256sum -c /root/blob.sha256
check_slots cryptdata
check_eq "its members are the dm-crypt maps" "CRYPT-LUKS2 CRYPT-LUKS2 CRYPT-LUKS2 CRYPT-LUKS2" \
	"$(for d in $($STRIPECTL list | awk '$2 == "cryptdata" { print $NF }' | tr , ' '); do
		cut -d- -f1,2 "/sys/class/block/$d/dm/uuid"; done | xargs)"
# the AUTO no array: not started
check "only 'cryptdata' runs" test "$($STRIPECTL list 2>/dev/null | tail -n +2 | awk '{print $2}')" = cryptdata
check "/srv/guest not mounted" test -z "$(findmnt -n /srv/guest)"
journalctl -b -u mqstripe-assemble.service -o cat --no-pager >/tmp/unit.log
check "the boot-time unit says why, and which line would allow it" \
	grep -q "AUTO no in /etc/mqstripe.conf (line 1) and no ARRAY line names it; to start it at boot add the line 'ARRAY uuid=" /tmp/unit.log
sed 's/^/#   /' /tmp/unit.log | head -4
$STRIPECTL examine --scan --brief | grep ' name=guestdisk$' >>/etc/mqstripe.conf
update-initramfs -u >/dev/null 2>&1
check "examine --scan --brief gave its ARRAY line" grep -q "^ARRAY uuid=.* name=guestdisk$" /etc/mqstripe.conf
check "mqstripe-monitor.service enabled by the package" systemctl is-enabled -q mqstripe-monitor.service
check "... and running without MAILADDR or PROGRAM" systemctl is-active -q mqstripe-monitor.service
# the members' maps ordered before mqstripe-stop.service by the drop-ins
# of the package's generator (none in /etc)
for i in 2 3 4 5; do
	check "systemd-cryptsetup@mqscrypt$i.service before mqstripe-stop.service, by mqstripe-generator's drop-in" sh -c \
		"systemctl show -p Before --value systemd-cryptsetup@mqscrypt$i.service | tr ' ' '\n' | grep -qx mqstripe-stop.service &&
		 systemctl show -p DropInPaths --value systemd-cryptsetup@mqscrypt$i.service | grep -q /run/systemd/generator/systemd-cryptsetup@mqscrypt$i.service.d/mqstripe.conf"
done
printf '#!/bin/sh\necho "$*" >>/var/log/mqs-events\n' >/usr/local/sbin/mqs-event
chmod +x /usr/local/sbin/mqs-event
echo "PROGRAM /usr/local/sbin/mqs-event" >>/etc/mqstripe.conf
# slot 1 of cryptdata fails: its map errors every IO from now on, and a
# direct read of the array's second chunk (slot 1's first) marks it
# faulty; the file system unmounted first, so that nothing is lost
systemctl stop srv-crypt.mount
A=$(readlink -f /dev/stripe/cryptdata)
m1=$($STRIPECTL list | awk '$2 == "cryptdata" { print $NF }' | cut -d, -f2)
cat "/sys/class/block/$m1/dm/name" >/root/faulty.cryptdata
sb_events "/dev/mapper/$(cat /root/faulty.cryptdata)" >/root/events.cryptdata
dmsetup wipe_table "$(cat /root/faulty.cryptdata)"
dd if="$A" of=/dev/null bs=64K skip=1 count=1 iflag=direct status=none
check_eq "slot 1 of cryptdata ($(cat /root/faulty.cryptdata)) faulty" faulty \
	"$(awk '$1 == 1 { print $4 }' "/sys/block/${A#/dev/}/mqstripe/members")"
# the udev rule's record-fault at the member_faulty uevent: the others
# two events ahead at once (slot 1's map errors every read: not read)
udevadm settle
m0=/dev/mapper/$(cat "/sys/class/block/$($STRIPECTL list | awk '$2 == "cryptdata" { print $NF }' | cut -d, -f1)/dm/name")
check_eq "the udev rule recorded the fault at once: slot 0 two events ahead" \
	"$(($(cat /root/events.cryptdata) + 2))" "$(sb_events "$m0")"
check "... naming slot 1 in the system log" sh -c \
	"journalctl -b -o cat --no-pager | grep -q \"record-fault: $A: slot 1 ([^)]*) is faulty: recorded in the superblocks of the 3 other members\""
# the monitor, running without MAILADDR or PROGRAM, logged the event
wait_for 30 sh -c "journalctl -b -t stripectl-monitor -o cat --no-pager | grep -q '^member_faulty $A .*slot 1'"
check "the monitor (no MAILADDR or PROGRAM) logged member_faulty of slot 1 to syslog" sh -c \
	"journalctl -b -t stripectl-monitor -o cat --no-pager | grep -q '^member_faulty $A .*slot 1'"
GUEST
	# the crypt drives in another order, among the others
	boot "${D[5]},${D[1]},${D[3]},${D[0]},${D[2]},${D[4]}" "AUTO no: not started; dm-crypt array started" || return
	step <<'GUEST'
# cryptdata: the member that failed was left behind by the shutdown's stop
journalctl -b -1 -o cat --no-pager >/tmp/prev.log
check "the shutdown stopped cryptdata, its faulty member's superblock not updated" \
	grep -q "(slot 1, [0-9:]*) is faulty (the module saw IO errors on it): its superblock was not updated" /tmp/prev.log
# the shutdown's order (mqstripe-generator's drop-ins): the arrays stopped
# (mqstripe-stop.service) before systemd-cryptsetup began to detach the
# member maps
stopped=$(grep -nE "^Stopped (mqstripe-stop.service|Stop mqstripe arrays after)" /tmp/prev.log | head -1 | cut -d: -f1)
detach=$(grep -nE "^Stopping (systemd-cryptsetup@mqscrypt|Cryptography Setup for mqscrypt)" /tmp/prev.log | head -1 | cut -d: -f1)
grep -nE "^Stopped (mqstripe-stop.service|Stop mqstripe arrays after)|^Stopping (systemd-cryptsetup@mqscrypt|Cryptography Setup for mqscrypt)" /tmp/prev.log |
	sed 's/^/#   /' | head -6
check "the shutdown stopped the arrays before it detached their dm-crypt members" \
	test -n "$stopped" -a -n "$detach" -a "${stopped:-0}" -lt "${detach:-0}"
check "no ordering cycle of units in the boot with the dm-crypt maps (the generator's drop-ins)" \
	sh -c "! grep -qi 'ordering cycle' /tmp/prev.log"
check_stale_at_boot cryptdata "$(cat /root/faulty.cryptdata)" "the boot refused it as stale, naming it"
check "... saying it was faulty or gone when the array stopped, and that --force starts it" \
	grep -q "faulty or gone when the array stopped.*'stripectl assemble --force'" /tmp/stale.log
check "assemble --scan --force --name cryptdata starts it" \
	$STRIPECTL assemble --scan --force --name cryptdata
udevadm settle
systemctl start srv-crypt.mount
check "... its data intact" sha256sum -c /root/blob.sha256

wait_for 120 findmnt -n /srv/guest
check "with its ARRAY line: started and mounted" systemctl is-active srv-guest.mount
check "with a PROGRAM line: mqstripe-monitor.service runs" systemctl is-active mqstripe-monitor.service
umount /srv/guest && $STRIPECTL stop guestdisk
wait_for 60 grep -q "^array_stopped /dev/mqstripe" /var/log/mqs-events
check "the monitor's program gets array_stopped" grep -qx "array_stopped /dev/mqstripe[0-9]*" /var/log/mqs-events

# clear: an array over two dm-linear maps (of loop devices); slot 1's map
# errors (its table swapped for dm's error target: recorded by the udev
# rule), gets its table back, and clear takes it back and makes its
# superblock current: a stop and a plain assemble take it
truncate -s 64M /root/clr0.img /root/clr1.img
for i in 0 1; do
	l=$(losetup -f --show "/root/clr$i.img")
	echo "0 $(blockdev --getsz "$l") linear $l 0" | dmsetup create "mqsclr$i"
done
C=$($STRIPECTL create --name clr --chunk 64K /dev/mapper/mqsclr0 /dev/mapper/mqsclr1)
udevadm settle
t1=$(dmsetup table mqsclr1)
dmsetup wipe_table mqsclr1
dd if="$C" of=/dev/null bs=64K skip=1 count=1 iflag=direct status=none
udevadm settle
check_eq "clr: slot 1 faulty" faulty "$(awk '$1 == 1 { print $4 }' "/sys/block/${C#/dev/}/mqstripe/members")"
dmsetup load mqsclr1 --table "$t1" && dmsetup resume mqsclr1
check_eq "... recorded: slot 1 two events behind slot 0" 2 \
	"$(($(sb_events /dev/mapper/mqsclr0) - $(sb_events /dev/mapper/mqsclr1)))"
check "stripectl clear clr 1" $STRIPECTL clear clr 1
e0=$(sb_events /dev/mapper/mqsclr0)
check "... both superblocks at one event counter again" \
	test -n "$e0" -a "$e0" = "$(sb_events /dev/mapper/mqsclr1)"
check "... a stop and a plain assemble take the cleared member" sh -c \
	"$STRIPECTL stop clr && $STRIPECTL assemble /dev/mapper/mqsclr0 /dev/mapper/mqsclr1 && $STRIPECTL stop clr"
udevadm settle

maps() {	# the array's maps by slot
	for d in $($STRIPECTL list | awk '$2 == "cryptdata" { print $NF }' | tr , ' '); do
		echo "/dev/mapper/$(cat "/sys/class/block/$d/dm/name")"
	done
}
# a crash: slot 2 fails, the udev rule records it, and the power is cut
# (no stop): the next boot refuses slot 2 as stale
systemctl stop srv-crypt.mount
A=$(readlink -f /dev/stripe/cryptdata)
read -r -a M <<<"$(maps | xargs)"
basename "${M[2]}" >/root/faulty2.cryptdata
ev0=$(sb_events "${M[0]}")
dmsetup wipe_table "${M[2]}"
dd if="$A" of=/dev/null bs=64K skip=2 count=1 iflag=direct status=none
udevadm settle
check_eq "slot 2 faulty" faulty "$(awk '$1 == 2 { print $4 }' "/sys/block/${A#/dev/}/mqstripe/members")"
check_eq "... recorded at once: slot 0 two events ahead" "$((ev0 + 2))" "$(sb_events "${M[0]}")"
power_cut
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]},${D[4]},${D[5]}" "ARRAY line added; clear; a member fails, power cut" || return
	step <<'GUEST'
check_stale_at_boot cryptdata "$(cat /root/faulty2.cryptdata)" \
	"after the power cut the boot refused slot 2 as stale, naming it"
check "... and --force" grep -q "'stripectl assemble --force'" /tmp/stale.log
$STRIPECTL assemble --scan --force --name cryptdata 2>/tmp/force.log
check "assemble --scan --force starts it, saying it was not stopped cleanly (no stop before the cut)" \
	grep -q "'cryptdata' .*was not stopped cleanly" /tmp/force.log
udevadm settle
systemctl start srv-crypt.mount
check "... its data intact" sha256sum -c /root/blob.sha256
GUEST
	boot "${D[2]},${D[0]},${D[5]},${D[1]},${D[4]},${D[3]}" "after the power cut"
}
