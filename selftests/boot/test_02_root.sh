# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Root on an array: the image's / copied onto an ext4 on a 4-member array,
# then booted with root=UUID=... of that file system: the initramfs that
# the stripectl package's trigger rebuilt (initramfs-tools hook: module,
# stripectl, udev rule; local-block script) starts the array before the
# root is mounted.
# The shutdown of that boot cannot stop the array (/ is on it to the
# end): the package's system-shutdown hook (mqstripe.shutdown, run by
# systemd-shutdown after / is remounted read-only) marks its superblocks
# clean; the host reads them from the drives after the guest is off.
# Catches: a hook that leaves out the module, stripectl or the rule, a
# package that does not rebuild the initramfs, a local-block script that
# does not start the array (the boot then waits for the root and drops to
# the initramfs shell: the step never runs); an array under / left active
# by the shutdown (a warning that it was not stopped cleanly at every
# boot), or marked clean while still writable.

boot_test() {
	drives 4 384M
	step <<'GUEST'
modprobe mqstripe
A=$($STRIPECTL create --name root --chunk 64K /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1) ||
	{ echo "not ok - stripectl create"; exit 1; }
mkfs.ext4 -q -F -L arrayroot "$A"
mkdir -p /tmp/newroot /tmp/oldroot
mount "$A" /tmp/newroot
# the root file system alone (a bind mount has none of the others)
mount --bind / /tmp/oldroot
cp -a /tmp/oldroot/. /tmp/newroot/ || echo "not ok - copy / onto the array"
umount /tmp/oldroot
U=$(blkid -s UUID -o value "$A")
echo "UUID=$U / ext4 defaults 0 1" >/tmp/newroot/etc/fstab
echo "on the array" >/tmp/newroot/root/where
umount /tmp/newroot
$STRIPECTL stop root
echo "$U" >/mnt/share/root-uuid
check "root copied onto the array" test -s /mnt/share/root-uuid
GUEST
	boot "${D[0]},${D[1]},${D[2]},${D[3]}" "create, copy /" || return
	step <<'GUEST'
check_eq "/ is the array's ext4" "ext4 /dev/mqstripe0" \
	"$(findmnt -n -o FSTYPE,SOURCE / | awk '{print $1, $2}')"
check_eq "the copy on the array" "on the array" "$(cat /root/where)"
check_eq "the array is 'root', 4 members, active" "root 4 active" \
	"$($STRIPECTL list | awk '$2 == "root" { print $2, $4, $7 }')"
check "the system-shutdown hook is installed" test -x /lib/systemd/system-shutdown/mqstripe.shutdown
check "no failed unit" test -z "$(systemctl list-units --failed --no-legend)"
systemctl list-units --failed --no-legend | sed 's/^/#   /'
GUEST
	# shellcheck disable=SC2154	# share: the test's share (run.sh)
	boot "${D[3]},${D[2]},${D[1]},${D[0]}" "root on the array, drives reordered" \
		"root=UUID=$(cat "$share/root-uuid")" || return
	# after that boot's shutdown: every member's superblock says clean
	# (state 0), the members at one event counter
	local d states=() events=()
	for d in "${D[@]}"; do
		states+=("$(python3 selftests/persist/sbtool.py parse "$d" | jq -r .state)")
		events+=("$(python3 selftests/persist/sbtool.py parse "$d" | jq -r .events)")
	done
	# shellcheck disable=SC2154	# nboot, checks_ok, checks_bad: run.sh's
	if [ "${states[*]}" = "0 0 0 0" ] && [ "$(printf '%s\n' "${events[@]}" | sort -u | wc -l)" = 1 ]; then
		checks_ok=$((checks_ok + 1))
		echo "# boot $nboot (after its shutdown): ok - the array under / marked clean by the system-shutdown hook (events ${events[0]})"
	else
		checks_bad=$((checks_bad + 1))
		echo "# boot $nboot (after its shutdown): not ok - the array under / marked clean by the system-shutdown hook"
		echo "#   states (0 clean, 1 active): ${states[*]}; events: ${events[*]}"
	fi
}
