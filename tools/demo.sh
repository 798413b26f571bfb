#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: boot a guest (Debian 6.12 by default, KVER=6.1 for the other)
# with 4 emulated NVMe drives, create an array, put XFS on it, write and
# verify data with fio, and show what was made.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
kver=${KVER:-6.12}

if [ -z "${MQS_GUEST:-}" ]; then
	exec bash tools/vm/run-vm.sh --kernel "$kver" --cpus 4 --nvme 4 \
		--nvme-size 2G -- sh tools/demo.sh
fi

# ---- in the guest ----------------------------------------------------
rel=$(uname -r)
stripectl=tools/stripectl/stripectl
insmod "build/$rel/mqstripe.ko"
trap 'umount /mnt/mqs 2>/dev/null; $stripectl stop "$dev" 2>/dev/null; rmmod mqstripe 2>/dev/null' EXIT

echo "+ stripectl create --chunk 64K /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1"
dev=$($stripectl create --chunk 64K /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1)
echo "$dev"
name=${dev#/dev/}

echo "+ mkfs.xfs $dev"
mkfs.xfs -q -f "$dev"
mkdir -p /mnt/mqs
mount "$dev" /mnt/mqs

echo
echo "+ lsblk (members under the array)"
lsblk -o NAME,SIZE,TYPE,MOUNTPOINT /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1 /dev/nvme3n1

echo
echo "+ queue limits: one member and the array"
printf '%-24s %12s %12s\n' limit nvme0n1 "$name"
for l in logical_block_size physical_block_size minimum_io_size \
	optimal_io_size max_hw_sectors_kb max_sectors_kb max_segments \
	discard_granularity discard_max_bytes write_zeroes_max_bytes \
	write_cache fua rotational read_ahead_kb nr_requests; do
	printf '%-24s %12s %12s\n' "$l" \
		"$(cat /sys/block/nvme0n1/queue/$l)" \
		"$(cat /sys/block/$name/queue/$l)"
done

echo
echo "+ xfs_info /mnt/mqs (sunit = chunk, swidth = 4 x chunk)"
xfs_info /mnt/mqs

echo
echo "+ fio: write and verify 512 MiB (crc32c)"
fio --name=demo --directory=/mnt/mqs --size=512M --bs=1M --rw=write \
	--ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c \
	--do_verify=1 --group_reporting --output-format=normal |
	grep -E 'WRITE:|READ:|err=|verify'

echo
$stripectl status "$dev"
umount /mnt/mqs
$stripectl stop "$dev"
rmmod mqstripe
trap - EXIT
echo "demo: done"
