#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: lbs4k
#
# Member bios end on the members' logical blocks, whatever the buffer.
# O_DIRECT needs a buffer aligned only to the array's dma_alignment + 1
# (512 bytes), so on members of 4096-byte blocks a buffer at a page + 512
# is legal: every 4 KiB block of it straddles two pages, and no vector
# ends on a block.  A member bio that ends where a limit of the member
# (its vectors, max_sectors, max_segments) or a wait for a bio happens to
# fall ends mid-block: the member fails it (EIO, and the array loses the
# member) or, on some drivers, truncates it and writes the rest elsewhere.
# Each configuration writes a pattern from such a buffer in IO sizes that
# cross chunks and rows at many places (4M, 1028K, 148K, ...), reads it
# back into an aligned buffer and into an unaligned one, and compares.
# The buffer's pages are faulted in an order that keeps neighbours
# physically apart, so the block layer cannot merge them into one vector.
#   4 virtio-blk 4096/4096 (no virt boundary, 1280K max_sectors): 512K
#     and 64K chunks (a member bio runs out of vectors mid-block), 4K;
#   the same with one member at max_sectors_kb 36 (9 blocks);
#   4 NVMe 4096/4096 (a virt boundary: bios end at every gap), 512K.
# Catches: member bios cut at a vector or segment limit, or before a
# sleeping allocation, at a size that is not a multiple of the member's
# logical block size.

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
V4=()
for d in $(virtio_disks); do
	[ "$(qattr "$d" logical_block_size)" = 4096 ] && V4+=("$d")
done
[ ${#V4[@]} -ge 4 ] || mqs_skip "needs 4 virtio-blk disks of 4096-byte blocks, found ${#V4[@]}"
[ ${#NV[@]} -ge 4 ] && [ "$(qattr "${NV[0]}" logical_block_size)" = 4096 ] ||
	mqs_skip "needs 4 NVMe namespaces of 4096-byte blocks"

SIZES=4M,1028K,148K,4K,2044K,3076K,516K,64K,1M
LEN=16M
seed=0

# run DESC CHUNK MEMBER...: write, read back both ways, stop
run() {
	local desc=$1 chunk=$2
	shift 2
	seed=$((seed + 1))
	if ! mqs_create --chunk "$chunk" "$@"; then
		fail "$desc: create" "$(cat "$MQS_TMP/create.err")"
		return
	fi
	check_cmd "$desc: write from a buffer at a page + 512" \
		pattern fill "$MQS_DEV" 0 "$LEN" "$seed" --sizes "$SIZES" --buf-offset 512
	check_cmd "$desc: reads back into an aligned buffer" \
		pattern check "$MQS_DEV" 0 "$LEN" "$seed"
	check_cmd "$desc: reads back into a buffer at a page + 512" \
		pattern check "$MQS_DEV" 0 "$LEN" "$seed" --sizes "$SIZES" --buf-offset 512
	check_eq "$desc: array state" active "$(cat "$MQS_SYS/mqstripe/state")"
	check_stop "$MQS_DEV"
}

run "virtio 4Kn, 512K chunk" 512K "${V4[@]:0:4}"
run "virtio 4Kn, 64K chunk" 64K "${V4[@]:0:4}"
run "virtio 4Kn, 4K chunk" 4K "${V4[@]:0:4}"
mqs_sysfs_set "$(blk_sys "${V4[1]}")/queue/max_sectors_kb" 36
run "virtio 4Kn, 64K chunk, a member at max_sectors_kb 36" 64K "${V4[@]:0:4}"
mqs_sysfs_restore
run "NVMe 4Kn, 512K chunk" 512K "${NV[@]:0:4}"
mqs_finish
