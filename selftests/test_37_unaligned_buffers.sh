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
# Then 24 dm-linear slices of the virtio disks, 32K and 4K chunks, written
# by a buffered copy (requests of many bios, more members than the
# gather's 16 slots), checked on the members by the striping rule.
# Catches: member bios cut at a vector or segment limit, or before a
# sleeping allocation, at a size that is not a multiple of the member's
# logical block size; a gather that loses or misplaces a member's data
# when a request of several bios touches more than 16 members.

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

# More members than the gather has slots (16), requests of many bios: the
# writeback of a buffered copy sends a bio per block, which the block
# layer merges into requests.  24 dm-linear slices of the virtio disks,
# 12K data offset, 12 MiB of data.  At a 32K chunk, with the array's
# max_sectors_kb at 736 (23 chunks), no request wraps (each member it
# touches has one range in it) and one of more than 512K touches more
# than 16 members: the gather's single walk.  At 4K requests wrap (a
# walk per group of 16 members).  The members must hold each chunk where
# the striping rule puts it.
SL=()
for i in $(seq 0 23); do
	mqs_dm_create "many$i" "0 1048 linear ${V4[i % 4]} $((i / 4 * 2048))" ||
		mqs_die "dmsetup create slice $i"
	SL+=("$DM_DEV")
done
mqs_dm_create many-src "0 24576 linear ${V4[0]} 16384" ||
	mqs_die "dmsetup create the pattern's source"
SRC=$DM_DEV

# member_writes: write requests of all the slices (one per member bio)
member_writes() {
	local m st sum=0
	for m in "${SL[@]}"; do
		read -r -a st <"$(blk_sys "$m")/stat"
		sum=$((sum + st[4]))
	done
	echo "$sum"
}

# many CHUNK-BYTES: copy a pattern onto the array through the page cache
many() {
	local chunk=$1 desc="24 members, $(($1 >> 10))K chunk, merged writes"
	local s0 s1 m0 m1
	seed=$((seed + 1))
	if ! mqs_create --chunk "$chunk" --data-offset 12K "${SL[@]}"; then
		fail "$desc: create" "$(cat "$MQS_TMP/create.err")"
		return
	fi
	check_eq "$desc: capacity" $((12 << 20)) "$(blk_bytes "$MQS_DEV")"
	[ "$chunk" = 32768 ] && mqs_sysfs_set "$MQS_SYS/queue/max_sectors_kb" 736
	check_cmd "$desc: pattern written to the source" \
		pattern fill "$SRC" 0 12M "$seed"
	read -r -a s0 <"$MQS_SYS/stat"
	m0=$(member_writes)
	check_cmd "$desc: buffered copy onto the array" \
		dd if="$SRC" of="$MQS_DEV" bs=1M iflag=direct conv=fsync status=none
	read -r -a s1 <"$MQS_SYS/stat"
	m1=$(member_writes)
	# field 6: bios merged into write requests
	check_ge "$desc: write requests of several bios" 1 $((s1[5] - s0[5]))
	if [ "$chunk" = 32768 ]; then
		# member writes per array write: members a request touches
		check_ge "$desc: a request touches more than 16 members (on average)" \
			$((16 * (s1[4] - s0[4]) + 1)) $((m1 - m0))
	fi
	check_cmd "$desc: members hold every chunk where the rule puts it" \
		pattern mapcheck "$MQS_DEV" "$chunk" 12288 "$seed" "${SL[@]}"
	check_cmd "$desc: reads back" pattern check "$MQS_DEV" 0 12M "$seed"
	mqs_sysfs_restore
	check_stop "$MQS_DEV"
}
many 32768
many 4096
mqs_finish
