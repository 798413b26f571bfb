#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Members over NVMe over Fabrics (nvme-tcp, fabric_lib.sh): two nvmet
# targets on 127.0.0.1, two namespaces each (sparse files), connected with
# nvme-cli; one array over the 4 remote namespaces.
# Remote members: the array's limits follow the nvme-tcp members' (no
# poll queues: io_poll 0), fio verifies large direct IO with no member
# splitting a bio of ours (block_split on the members: 0), XFS over the
# array verifies a file.
# Catches: limits not stacked from fabric members (poll advertised over
# members without poll queues), member bios beyond a member's limits.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"
mqs_init
trap fab_cleanup EXIT
mqs_require_cmd fio
mqs_require_cmd mkfs.xfs

fab_ready >"$MQS_TMP/fab.out" 2>&1 || mqs_skip "$(cat "$MQS_TMP/fab.out")"
CH=$((64 << 10))

# ------------------------------------------------------------ test bed
if fab_setup 2 2 128M >"$MQS_TMP/fab.out" 2>&1; then
	pass "2 nvmet targets, 2 namespaces each, connected over nvme-tcp"
else
	mqs_die "2 nvmet targets, 2 namespaces each, connected over nvme-tcp" \
		"$(cat "$MQS_TMP/fab.out")"
fi
diag "$(cat "$MQS_TMP/fab.out")"
M=("${FAB_DEVS[@]}")
check_eq "4 remote namespaces" 4 "${#M[@]}"
diag "members: ${M[*]}"
for m in "${M[@]}"; do
	check_eq "$(blk_name "$m"): transport tcp" tcp \
		"$(cat "$(blk_sys "$m")/device/transport" 2>/dev/null ||
			cat "$(blk_sys "$m")"/device/nvme*/transport 2>/dev/null | head -n 1)"
	check_eq "$(blk_name "$m"): no poll queues (io_poll 0)" 0 "$(qattr "$m" io_poll)"
done

# ------------------------------------------------- limits, large IO
mqs_must_create --chunk "$CH" "${M[@]}"
DEV=$MQS_DEV
import_checks "limits: " "$PYTHON" -S "$MQS_DIR/limits.py" "$DEV" "$CH" "${M[@]}"
check_eq "array over nvme-tcp members: io_poll 0" 0 "$(qattr "$DEV" io_poll)"

trace_block block_split || mqs_die "tracefs: the block_split event" "cannot enable it"
T=$MQS_TRACE
check_cmd "fio: direct 1M and 192K writes verify (libaio)" \
	fio --filename="$DEV" --direct=1 --ioengine=libaio --iodepth=4 \
	--verify=crc32c --do_verify=1 --output="$MQS_TMP/fio1.out" \
	--name=w1m --rw=write --bs=1M --size=16M \
	--name=w192k --rw=randwrite --bs=192K --offset=16M --size=12M --stonewall
echo 0 >"$T/tracing_on"
splits=0
for m in "${M[@]}"; do
	dc=$(blk_devno "$m" | tr : ,)
	splits=$((splits + $(grep -c "block_split: $dc " "$T/trace")))
done
check_eq "no member split a bio of the array (block_split on the members)" 0 "$splits"
echo 0 >"$T/events/block/block_split/enable"

# ------------------------------------------------------------ XFS
MNT=$MQS_TMP/mnt
mkdir -p "$MNT"
check_cmd "mkfs.xfs on $MQS_DISK" mkfs.xfs -f -q "$DEV"
if mount "$DEV" "$MNT"; then
	MQS_MOUNTS+=("$MNT")
	check_cmd "fio verify of a file on XFS" \
		fio --directory="$MNT" --name=f --rw=randwrite --bs=16k --size=24M \
		--ioengine=psync --verify=crc32c --do_verify=1 --end_fsync=1 \
		--output="$MQS_TMP/fio2.out"
	check_cmd "umount" umount "$MNT"
else
	fail "mount XFS on $MQS_DISK"
fi
check_stop "$DEV"

mqs_finish
