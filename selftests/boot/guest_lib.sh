# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by every guest step of the boot tests (selftests/boot/run.sh):
# one line per check, "ok - DESC" or "not ok - DESC", and "# " lines of
# diagnostics, which the host counts and prints.

# shellcheck disable=SC2034	# for the steps
STRIPECTL=/usr/sbin/stripectl

diag() { printf '# %s\n' "$*"; }

# check DESC COMMAND...: passes if COMMAND succeeds
check() {
	local desc=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		echo "ok - $desc"
	else
		echo "not ok - $desc"
		sed 's/^/#   /' /tmp/check.out | head -20
	fi
}

# check_eq DESC WANT GOT
check_eq() {
	if [ "$2" = "$3" ]; then
		echo "ok - $1"
	else
		echo "not ok - $1"
		printf '#   want: %s\n#   got:  %s\n' "$2" "$3"
	fi
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds; 1 if it never did
wait_for() {
	local s=$1
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$s" -gt 0 ] || return 1
		sleep 1
		s=$((s - 1))
	done
}

# new_xfs_array NAME MEMBER...: array NAME (64K chunks) over the members,
# an XFS on it; A the array's device, U its XFS's UUID.  The step ends
# when create fails.
new_xfs_array() {
	local name=$1
	shift
	A=$($STRIPECTL create --name "$name" --chunk 64K "$@") ||
		{ echo "not ok - stripectl create --name $name $*"; exit 1; }
	mkfs.xfs -q -f "$A"
	udevadm settle
	U=$(blkid -s UUID -o value "$A")
}

# fstab_data DIR OPTIONS: the file system of UUID U in /etc/fstab at DIR
# with OPTIONS, mounted, a file of 16 MiB of random data written in it
# (DIR/blob, its sum in /root/BASENAME.sha256), unmounted
fstab_data() {
	mkdir -p "$1"
	echo "UUID=$U $1 xfs $2 0 0" >>/etc/fstab
	systemctl daemon-reload
	mount "$1"
	dd if=/dev/urandom of="$1/blob" bs=1M count=16 status=none
	sha256sum "$1/blob" >"/root/${1##*/}.sha256"
	umount "$1"
}

# slot_drives NAME: array NAME's drives, a line per slot: the drive's
# NVMe serial (QEMU's follows the drive's image, while the guest's
# nvmeXnY names follow the order of probing) and its name now; of a member
# that is a device-mapper map (dm-crypt), the drive under it
slot_drives() {
	local d
	for d in $($STRIPECTL list | awk -v n="$1" '$2 == n { print $NF }' | tr , ' '); do
		[ -d "/sys/class/block/$d/device" ] ||
			d=$(ls "/sys/class/block/$d/slaves")
		echo "$(cat "/sys/class/block/$d/device/serial") $d"
	done
}

# save_slots NAME: slot_drives NAME in /root/slots.NAME
save_slots() {
	slot_drives "$1" >"/root/slots.$1"
	diag "$1's slots: $(xargs <"/root/slots.$1")"
}

# check_slots NAME: after a reboot with the drives in another order, array
# NAME has the drives of save_slots in the same slots, under other names
check_slots() {
	slot_drives "$1" >/tmp/slots
	check_eq "array '$1' assembled with the drives in their slots" \
		"$(awk '{ print $1 }' "/root/slots.$1" | xargs)" "$(awk '{ print $1 }' /tmp/slots | xargs)"
	check "... which now have other names" test -s /tmp/slots -a \
		"$(awk '{ print $2 }' "/root/slots.$1" | xargs)" != "$(awk '{ print $2 }' /tmp/slots | xargs)"
}

# check_no_failed_unit: systemctl lists no failed unit
check_no_failed_unit() {
	check "no failed unit" test -z "$(systemctl list-units --failed --no-legend)"
	systemctl list-units --failed --no-legend | sed 's/^/#   /'
}

# fab_namespaces T: the block devices of the namespaces of the test's
# storage host T (test_03_missing: nvmet subsystem
# nqn.2014-08.org.mqstripe:boot-tT), sorted
fab_namespaces() {
	local d
	for d in /sys/block/nvme*; do
		[[ ${d##*/} =~ ^nvme[0-9]+n[0-9]+$ ]] || continue
		[ "$(cat "$d/device/subsysnqn" 2>/dev/null)" = "nqn.2014-08.org.mqstripe:boot-t$1" ] &&
			echo "/dev/${d##*/}"
	done | sort -V
}

# power_cut: end the step with a power cut instead of a shutdown: what
# mqs-step leaves in the share (status 0, the journal, the kernel log, the
# initramfs) written first, then the power goes off at once (sysrq o): no
# unit is stopped, no file system unmounted, no array stopped
power_cut() {
	cd /mnt/share || exit 1
	cp "/boot/initrd.img-$(uname -r)" initrd.tmp && mv initrd.tmp initrd
	journalctl -b -o short-monotonic --no-pager >journal.log 2>&1
	journalctl -k -b -o cat --no-pager >kernel.log 2>&1
	echo 0 >step.rc
	sync
	echo o >/proc/sysrq-trigger
	sleep 120
}

# sb_events DEV: the event counter of DEV's superblock
sb_events() {
	$STRIPECTL examine --export "$1" 2>/dev/null | sed -n 's/^MQSTRIPE_EVENTS=//p'
}

# check_stale_at_boot NAME MAP DESC: array NAME was not started at this
# boot, and the boot refused MAP (a /dev/mapper name) as a stale member,
# naming it (the journal: udev's and the boot-time unit's messages)
check_stale_at_boot() {
	local named
	check "$1 not started at boot" test -z "$($STRIPECTL list 2>/dev/null | awk -v n="$1" '$2 == n')"
	journalctl -b -o cat --no-pager | grep "stale member of array '$1'" >/tmp/stale.log
	sed 's/^/#   /' /tmp/stale.log | head -3
	named=$(sed -n "s|.*\\(/dev/[^: ]*\\): stale member of array '$1'.*|\\1|p" /tmp/stale.log | head -1)
	check_eq "$3" "$(readlink -f "/dev/mapper/$2")" "$(readlink -f "${named:-none}")"
}
