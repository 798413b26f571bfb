#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Filesystems: mkfs.xfs takes sunit = chunk and swidth = members x chunk
# from the array's io_min/io_opt; mkfs.ext4 takes stride and stripe width.
# Mount, write a tree of files, sync, umount, stop; create again over the
# same members in the same order, mount, verify every checksum.
# Catches: io_min/io_opt not exported, data that lives only in the page
# cache or on the wrong member, a layout that changes between creates.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd mkfs.xfs xfs_info mkfs.ext4 dumpe2fs sha256sum

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
CHUNK=65536
N=${#M[@]}
MNT=$MQS_TMP/mnt

# fs_cycle FS: mkfs, geometry check, write, stop, create again, verify
fs_cycle() {
	local fs=$1 bs
	diag "--- $fs"
	mqs_create --chunk 64K "${M[@]}" || { fail "$fs: create"; return; }
	if [ "$fs" = xfs ]; then
		mkfs.xfs -f -q "$MQS_DEV" >"$MQS_TMP/mkfs.out" 2>&1 ||
			{ fail "mkfs.xfs" "$(cat "$MQS_TMP/mkfs.out")"; return; }
		local info
		info=$(xfs_info "$MQS_DEV" 2>&1)
		bs=$(sed -n 's/^data *= *bsize=\([0-9]*\).*/\1/p' <<<"$info")
		local su sw
		su=$(sed -n 's/.*sunit=\([0-9]*\) *swidth=\([0-9]*\) blks.*/\1/p' <<<"$info" | head -n 1)
		sw=$(sed -n 's/.*sunit=\([0-9]*\) *swidth=\([0-9]*\) blks.*/\2/p' <<<"$info" | head -n 1)
		diag "xfs_info: bsize=$bs sunit=$su swidth=$sw blks"
		check_eq "xfs sunit = chunk / block size ($CHUNK / $bs)" $((CHUNK / bs)) "$su"
		check_eq "xfs swidth = members x chunk / block size" $((N * CHUNK / bs)) "$sw"
	else
		mkfs.ext4 -F -q -b 4096 "$MQS_DEV" >"$MQS_TMP/mkfs.out" 2>&1 ||
			{ fail "mkfs.ext4" "$(cat "$MQS_TMP/mkfs.out")"; return; }
		local d
		d=$(dumpe2fs -h "$MQS_DEV" 2>/dev/null)
		bs=$(sed -n 's/^Block size: *//p' <<<"$d")
		diag "dumpe2fs: block size $bs, $(grep RAID <<<"$d" | tr '\n' ' ')"
		check_eq "ext4 RAID stride = chunk / block size ($CHUNK / $bs)" $((CHUNK / bs)) \
			"$(sed -n 's/^RAID stride: *//p' <<<"$d")"
		check_eq "ext4 RAID stripe width = members x chunk / block size" $((N * CHUNK / bs)) \
			"$(sed -n 's/^RAID stripe width: *//p' <<<"$d")"
	fi
	mqs_mount "$MQS_DEV" "$MNT" || { fail "$fs: mount"; return; }
	# files of many sizes, some larger than a stripe
	write_tree "$MNT" "$MQS_TMP/sums" 4 6 37 513 3 "stripe-plus=$((CHUNK * N + 4097))"
	sync
	check_cmd "$fs: checksums right before umount" bash -c "cd '$MNT' && sha256sum --quiet -c '$MQS_TMP/sums'"
	check_cmd "$fs: umount" umount "$MNT"
	check_stop "$MQS_DEV"
	mqs_create --chunk 64K "${M[@]}" || { fail "$fs: create again, same members, same order"; return; }
	pass "$fs: create again, same members, same order"
	if [ "$fs" = ext4 ]; then
		check_cmd "$fs: fsck -n finds the filesystem clean" fsck.ext4 -n -f "$MQS_DEV"
	else
		check_cmd "$fs: xfs_repair -n finds the filesystem clean" xfs_repair -n "$MQS_DEV"
	fi
	mqs_mount "$MQS_DEV" "$MNT" || { fail "$fs: mount after create again"; return; }
	pass "$fs: mount after create again"
	check_cmd "$fs: every checksum verifies after stop and create again" \
		bash -c "cd '$MNT' && sha256sum --quiet -c '$MQS_TMP/sums'"
	check_eq "$fs: file count" "$(wc -l <"$MQS_TMP/sums")" "$(find "$MNT" -type f | wc -l)"
	umount "$MNT"
	check_stop "$MQS_DEV"
}

fs_cycle xfs
fs_cycle ext4
mqs_finish
