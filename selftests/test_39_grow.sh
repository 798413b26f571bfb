#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stripectl grow: a running array takes its members' new room online.
# Three dm-linear members over the first 32M of three NVMe disks (an LV or
# a volume that an admin extends); the members grow by dm reload and
# resume, while the array runs (to 64M, 160M, then 270M):
#  - raw: the array filled with a pattern; a grow before every member has
#    room is refused, naming the member, and changes nothing; then the
#    capacity is the members' new room (blockdev, the superblocks'
#    data_bytes, sysfs size), the old data did not move, and the new end,
#    filled, sits where the striping rule puts it (every member checked
#    directly: pattern.py mapcheck);
#  - XFS mounted on the array, fio writing and verifying a file across
#    the members' reload, the grow and xfs_growfs: the file system grows
#    (df), a file that did not fit before fits, fio verifies; after a stop
#    and an assemble the array has the grown size and the data reads back.
# Also: status reports each member's size now (a member reloaded bigger).
# Catches: a capacity the module does not change or changes without the
# superblocks (an assemble then shrinks the array under its file system),
# rows added anywhere but at the end (data moved), a grow that does not
# reach the file system (no change uevent / bdev size), IO errors or
# kernel reports while the capacity changes under IO.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dmsetup fio mkfs.xfs xfs_growfs
modprobe dm-mod 2>/dev/null

mapfile -t NV < <(nvme_disks | head -n 3)
[ ${#NV[@]} -eq 3 ] || mqs_skip "needs 3 NVMe disks"
MB=2048	# sectors per MiB
M=()
for i in 0 1 2; do
	mqs_dm_create "grow$i" "0 $((32 * MB)) linear ${NV[i]} 0" ||
		mqs_die "dm device grow$i"
	M+=("$DM_DEV")
done
# reload member $1 to $2 MiB
grow_member() {
	dmsetup reload "mqst-grow$1" --table "0 $(($2 * MB)) linear ${NV[$1]} 0" &&
		dmsetup resume --noudevsync "mqst-grow$1"
}
mark=$(klog_mark "test_39 grow")
mqs_must_create --chunk 64K --name grown "${M[@]}"
ARR=$MQS_DEV
cap0=$(blk_bytes "$ARR")
check_eq "the array: 3 x 31M" $((3 * 31 << 20)) "$cap0"
pattern fill "$ARR" 0 "$cap0" 39 >/dev/null || fail "fill the array"

# one member grown: refused, naming the one that has no room
grow_member 0 64 || mqs_die "reload member 0"
"$STRIPECTL" status --json "$ARR" >"$MQS_TMP/status.json" 2>&1
check_eq "status: each member's size now (64M, 32M, 32M), not at create" \
	"$((64 << 20)) $((32 << 20)) $((32 << 20))" \
	"$(jget "$MQS_TMP/status.json" members.0.size_bytes members.1.size_bytes members.2.size_bytes)"
check_fails "grow --size while two members have no room: refused, naming one, no smaller size offered" 1 \
	"needs 63M of data on every member; /dev/[a-z0-9/-]+ \(slot [12]\) holds 31M after its data offset: grow that member first$" \
	"$STRIPECTL" grow --size 189M "$ARR"
check_eq "... the capacity unchanged" "$cap0" "$(blk_bytes "$ARR")"
out=$("$STRIPECTL" grow "$ARR" 2>&1)
check_match "grow without --size while two members have no room: nothing to grow, naming one" \
	"already uses its members' room \(31M of data on each; /dev/[a-z0-9/-]+ \(slot [12]\) has no more\): nothing to grow" "$out"

grow_member 1 64 && grow_member 2 64 || mqs_die "reload members 1 and 2"
out=$("$STRIPECTL" grow "$ARR" 2>&1)
check_match "grow: said, from 93M to 189M" "grown from 93M to 189M \(63M of data on every member, was 31M\)" "$out"
cap1=$(blk_bytes "$ARR")
check_eq "the array's capacity: 3 x 63M" $((3 * 63 << 20)) "$cap1"
check_eq "sysfs size follows" $((cap1 / 512)) "$(cat "$MQS_SYS/size")"
sbs=$(for m in "${M[@]}"; do "$STRIPECTL" examine --export "$m" | sed -n 's/^MQSTRIPE_DATA_BYTES=//p'; done | tr '\n' ' ')
check_eq "every member's superblock records 63M of data" "$((63 << 20)) $((63 << 20)) $((63 << 20)) " "$sbs"
pattern check "$ARR" 0 "$cap0" 39 >/dev/null
check_eq "the data written before the grow reads back through the array" 0 $?
pattern fill "$ARR" "$cap0" $((cap1 - cap0)) 39 >/dev/null || fail "fill the new end"
pattern mapcheck "$ARR" 65536 $((1 << 20)) 39 "${M[@]}" >"$MQS_TMP/map" 2>&1
check_eq "old and new rows on the members where the striping rule puts them" 0 $? 
[ -s "$MQS_TMP/map" ] && diag "$(head -n 5 "$MQS_TMP/map")"

# XFS (300M at least) mounted, fio verifying across the reload, the grow
# and xfs_growfs
for i in 0 1 2; do
	grow_member "$i" 160 || mqs_die "reload member $i to 160M"
done
check_cmd "grow to 3 x 159M" "$STRIPECTL" grow "$ARR"
MNT=$MQS_TMP/mnt
mkfs.xfs -q -f "$ARR" || mqs_die "mkfs.xfs"
mqs_mount "$ARR" "$MNT" || mqs_die "mount"
df0=$(df -B1 --output=size "$MNT" | tail -n 1)
fio --name=across --filename="$MNT/across" --size=32M --rw=randwrite \
	--bsrange=4k-64k --direct=1 --ioengine=psync --verify=crc32c \
	--do_verify=1 --loops=2 --output="$MQS_TMP/fio.out" >/dev/null 2>&1 &
FIO=$!
MQS_BG+=("$FIO")
fallocate -l 460M "$MNT/big" 2>/dev/null
check_eq "before the grow a 460M file does not fit" 1 $?
rm -f "$MNT/big"
for i in 0 1 2; do
	grow_member "$i" 270 || fail "reload member $i to 270M under IO"
done
check_cmd "grow while mounted and under IO" "$STRIPECTL" grow "$ARR"
check_eq "the array's capacity: 3 x 269M" $((3 * 269 << 20)) "$(blk_bytes "$ARR")"
check_cmd "xfs_growfs" xfs_growfs "$MNT"
df1=$(df -B1 --output=size "$MNT" | tail -n 1)
check_ge "df: the file system grew by at least 300M (the array by 330M)" $((df0 + (300 << 20))) "$df1"
check_cmd "a 460M file fits now" fallocate -l 460M "$MNT/big"
wait "$FIO"
rc=$?
check_eq "fio wrote and verified its file across the grow" 0 "$rc"
[ "$rc" = 0 ] || diag "$(tail -n 20 "$MQS_TMP/fio.out")"
umount "$MNT" || mqs_die "umount"

# the grown size lasts: stop, assemble
check_cmd "stop" "$STRIPECTL" stop "$ARR"
out=$("$STRIPECTL" assemble "${M[@]}" 2>&1) || fail "assemble" "$out"
_mqs_set_dev "$(echo "$out" | grep -o '/dev/mqstripe[0-9]*' | head -n 1)"
MQS_ARRAYS+=("$MQS_DEV")
check_eq "assembled with the grown capacity" $((3 * 269 << 20)) "$(blk_bytes "$MQS_DEV")"
check_cmd "xfs_repair -n: the grown file system is consistent" xfs_repair -n "$MQS_DEV"
mqs_mount "$MQS_DEV" "$MNT" || mqs_die "mount again"
check_cmd "fio verifies the file again" fio --name=across --filename="$MNT/across" \
	--size=32M --rw=randwrite --bsrange=4k-64k --direct=1 --ioengine=psync \
	--verify=crc32c --verify_only --loops=2
check_klog "no kernel report" "$mark"
mqs_finish
