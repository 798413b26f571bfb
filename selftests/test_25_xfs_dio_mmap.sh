#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# XFS on a 2-member array (64K chunk): fill a file with buffered writes and
# syncfs it, then race a direct IO overwriter (dd oflag=direct, 1 MiB) with
# an mmap writer going through the file's first 32 MiB backwards (xfs_io
# mmap + mwrite, 1 MiB each), then syncfs again.  Every phase must end, and no array request
# may stay in flight with nothing in flight on the members.
# Catches: member bios left behind array bios on the submitter's
# current->bio_list.  Writeback bios larger than the array's max_sectors are
# split; the rest of the split waits in submit_bio() for writeback
# throttling or a tag while the member bios of the requests it waits for
# are queued behind it: writeback and syncfs hang for good.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd mkfs.xfs xfs_io dd

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 2 ] || mqs_skip "needs 2 NVMe namespaces, found ${#NV[@]}"
MNT=$MQS_TMP/mnt
STALL=${MQS_XFS_STALL_SECS:-60}		# no completion on the array for that long
DEADLINE=${MQS_XFS_PHASE_SECS:-600}	# per phase, then it failed anyway

mqs_must_create --chunk 64K "${NV[0]}" "${NV[1]}"
DEV=$MQS_DEV
mkfs.xfs -f -q "$DEV" >"$MQS_TMP/mkfs.out" 2>&1 ||
	mqs_die "mkfs.xfs" "$(cat "$MQS_TMP/mkfs.out")"
mqs_mount "$DEV" "$MNT" || mqs_die "mount $DEV"
# a quarter of the filesystem, in MiB, at most 128 (TCG is slow); the race
# runs over its first 32 MiB (an xfs_io process per MiB)
mb=$(($(stat -f -c '%a * %S / 4 / 1048576' "$MNT")))
[ "$mb" -gt 128 ] && mb=128
rmb=$((mb < 32 ? mb : 32))
FILE=$MNT/file
diag "$DEV: 2 members, chunk 64K, max_sectors_kb $(qattr "$DEV" max_sectors_kb), wbt_lat_usec $(qattr "$DEV" wbt_lat_usec); file of $mb MiB, race over $rmb MiB"

# watch_phase DESC PID...: wait for the PIDs; fail DESC when an array request
# stays in flight with no completion on the array and nothing in flight on
# the members for STALL seconds, or at DEADLINE.  Return 1 then.
watch_phase() {
	local desc=$1 p alive last now t0=$SECONDS still=0 a m
	shift
	last=$(array_ios "$MQS_DISK")
	while :; do
		alive=0
		for p in "$@"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ $alive = 0 ] && break
		sleep 5
		now=$(array_ios "$MQS_DISK")
		a=$(blk_inflight "$MQS_DISK")
		m=$(($(blk_inflight "${NV[0]}") + $(blk_inflight "${NV[1]}")))
		if [ "$now" = "$last" ] && [ "$a" -gt 0 ] && [ "$m" = 0 ]; then
			still=$((still + 5))
		else
			still=0
		fi
		last=$now
		if [ $still -ge "$STALL" ] || [ $((SECONDS - t0)) -ge "$DEADLINE" ]; then
			fail "$desc" "after $((SECONDS - t0)) s: $a array requests in flight, $m on the members, no array completion for $still s" \
				"$(cat /sys/kernel/debug/block/"$MQS_DISK"/hctx*/busy 2>/dev/null)"
			return 1
		fi
	done
	for p in "$@"; do
		wait "$p" || { fail "$desc" "a process ended with status $?"; return 1; }
	done
	pass "$desc ($((SECONDS - t0)) s)"
}

dd if=/dev/zero of="$FILE" bs=1M count="$mb" status=none &
watch_phase "buffered fill of $mb MiB" $! || mqs_finish
xfs_io -c syncfs "$MNT" &
watch_phase "syncfs after the fill" $! || mqs_finish

dd if=/dev/zero of="$FILE" oflag=direct bs=1M count="$rmb" conv=notrunc status=none &
dio=$!
(
	for ((i = rmb - 1; i >= 0; i--)); do
		xfs_io -c "mmap -w $((i << 20)) 1m" -c "mwrite $((i << 20)) 1m" "$FILE" ||
			exit 1
	done
) &
watch_phase "direct IO overwriter racing an mmap writer" $dio $! || mqs_finish
xfs_io -c syncfs "$MNT" &
watch_phase "syncfs after the race" $! || mqs_finish

check_cmd "umount" umount "$MNT"
check_cmd "xfs_repair -n finds the filesystem clean" xfs_repair -n "$DEV"
check_stop "$DEV"
mqs_finish
