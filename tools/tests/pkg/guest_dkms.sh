#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# In a tools/vm guest (run by test_dkms.sh and test_deb.sh), with the
# module installed by DKMS on the host: modprobe must load the DKMS copy,
# then an array of the 4 NVMe drives gets XFS, is mounted, written, read
# back after a remount, and taken down.  Prints "GUEST ok|not ok ..." lines
# and "GUEST done" when every step passed; exit 0 then.
#   guest_dkms.sh VERSION [STRIPECTL]
set -u
want_version=$1
stripectl=${2:-tools/stripectl/stripectl}
rel=$(uname -r)
say() { echo "GUEST $*"; }
fail() { say "not ok $*"; exit 1; }

path=$(modinfo -n mqstripe 2>&1)
case $path in
/lib/modules/"$rel"/updates/dkms/mqstripe.ko*) say "ok modinfo -n mqstripe: $path" ;;
*) fail "modinfo -n mqstripe: $path (want /lib/modules/$rel/updates/dkms/)" ;;
esac
modprobe mqstripe || fail "modprobe mqstripe"
v=$(cat /sys/module/mqstripe/version)
[ "$v" = "$want_version" ] || fail "loaded module version $v, want $want_version"
sv=$(cat /sys/module/mqstripe/srcversion)
[ "$sv" = "$(modinfo -F srcversion "$path")" ] ||
	fail "loaded srcversion $sv is not the DKMS module's"
say "ok modprobe mqstripe loaded $path (version $v)"

dev=$("$stripectl" create --chunk 64K /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1) ||
	fail "stripectl create"
say "ok stripectl create: $dev"
mkfs.xfs -f -q "$dev" || fail "mkfs.xfs $dev"
mnt=$(mktemp -d)
mount "$dev" "$mnt" || fail "mount $dev"
dd if=/dev/urandom of="$mnt/data" bs=1M count=32 status=none || fail "write"
sum=$(sha256sum <"$mnt/data")
{ umount "$mnt" && mount "$dev" "$mnt"; } || fail "remount"
[ "$(sha256sum <"$mnt/data")" = "$sum" ] || fail "data read back after remount differs"
say "ok mkfs.xfs, mount, 32 MiB written and read back after remount"
say "# $(findmnt -n -o SOURCE,FSTYPE,TARGET "$mnt")"
umount "$mnt" || fail "umount"
"$stripectl" stop "$dev" || fail "stripectl stop"
modprobe -r mqstripe || fail "modprobe -r mqstripe"
say "ok umount, stop, modprobe -r"
say "done"
