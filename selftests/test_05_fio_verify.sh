#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity with fio: write then verify (crc32c) the whole array with
# block sizes from the array's logical block size to 2 MiB, random and
# sequential, libaio and io_uring, O_DIRECT and buffered.  Random sizes and
# a sequential job starting at an odd sector make requests start and end
# anywhere: across chunk and stripe boundaries.  Buffered jobs are verified a
# second time after dropping the page cache, so the device itself is read.
# Then a stack of 8 arrays on arrays, fio with fsyncs through its top, and a
# ninth level refused.
# Catches: data on the wrong member or offset, lost or torn parts of
# multi-member requests, completion before all member bios are done, a
# lockdep report when flushes of stacked arrays complete, a stack deeper
# than its lock classes.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"

# the whole device, kept at 4 x 32 MiB with a large data offset (TCG is slow)
doff=$((($(blk_bytes "${NV[0]}") >> 20) - 32))
[ "$doff" -ge 1 ] || doff=1
mqs_must_create --chunk 64K --data-offset "${doff}M" "${NV[@]:0:4}"
DEV=$MQS_DEV
lbs=$(qattr "$DEV" logical_block_size)
size=$(blk_bytes "$DEV")
diag "$DEV: $size bytes, logical block $lbs, chunk 64K, stripe 256K"

# fio_job NAME [fio options...]: write + verify over the whole device
fio_job() {
	local name=$1 out=$MQS_TMP/fio-$1.out
	shift
	local common=(--name="$name" --filename="$DEV" --verify=crc32c --do_verify=1
		--verify_fatal=1 --verify_dump=0 --bsrange="$lbs"-2m --blockalign="$lbs"
		--randrepeat=1 --randseed=4242 --end_fsync=1 "$@")
	if timeout 600 fio "${common[@]}" >"$out" 2>&1; then
		pass "fio $name: write and verify"
		diag "$(grep -E '^ +(READ|WRITE):' "$out")"
	else
		fail "fio $name: write and verify" "fio ${common[*]}" "$(tail -n 25 "$out")"
		return 1
	fi
	if [[ " $* " == *" --direct=0 "* ]]; then
		drop_caches
		if timeout 600 fio "${common[@]}" --verify_only >"$out" 2>&1; then
			pass "fio $name: verify again from the device (page cache dropped)"
		else
			fail "fio $name: verify again from the device (page cache dropped)" \
				"$(tail -n 25 "$out")"
		fi
	fi
}

uring_ok=1
if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" != 0 ]; then
	uring_ok=0
fi

fio_job rand-libaio-direct --ioengine=libaio --iodepth=16 --direct=1 --rw=randwrite \
	--size="$size"
if [ $uring_ok = 1 ]; then
	fio_job seq-uring-direct-odd-start --ioengine=io_uring --iodepth=16 --direct=1 \
		--rw=write --offset=$((3 * lbs)) --size=$((size - 3 * lbs))
	fio_job rand-uring-buffered --ioengine=io_uring --iodepth=8 --direct=0 \
		--rw=randwrite --size="$size"
else
	fail "io_uring available" "kernel.io_uring_disabled = $(cat /proc/sys/kernel/io_uring_disabled)"
fi
fio_job seq-libaio-buffered --ioengine=libaio --iodepth=4 --direct=0 --rw=write \
	--offset=$((5 * lbs)) --size=$((size - 5 * lbs))
# many small random IOs at a high depth over a few stripes: concurrency
fio_job rand-small-deep --ioengine=libaio --iodepth=64 --direct=1 --rw=randwrite \
	--bsrange="$lbs"-16k --size=$((4 << 20)) --numjobs=1

# Buffers in huge pages: a 2 MiB physically contiguous buffer makes one
# multi-page bvec that spans many chunks and members, which the gather cuts
# into chunk-sized pieces of several pages each (not page by page).
hugepages_set 32
if [ "$MQS_HP_GOT" -ge 16 ]; then
	pass "reserve 16+ huge pages for fio's buffers ($MQS_HP_GOT)"
	fio_job seq-hugepage-direct --ioengine=libaio --iodepth=4 --direct=1 \
		--rw=write --mem=shmhuge --offset=$((7 * lbs)) --size=$((48 << 20))
	fio_job rand-hugepage-direct --ioengine=libaio --iodepth=4 --direct=1 \
		--rw=randwrite --mem=shmhuge --size=$((48 << 20))
else
	fail "reserve 16+ huge pages for fio's buffers" "$MQS_HP reads $MQS_HP_GOT after writing 32"
fi
hugepages_restore

# Arrays on arrays: a flush of an upper one completes inside the lower
# one's flush completion, which holds the lower queue's flush lock while
# the upper one's is taken (on the debug kernel lockdep took the two for
# one lock taken twice, "possible recursive locking", and turned itself
# off): each level has a lock class of its own.  A stack of the most
# levels there are classes for (8, the bottom array included), fio with
# an fsync every 4 writes through the top, verified; one level more is
# refused, naming the member, and leaves nothing behind.
STACK=("$DEV")
for _ in 2 3 4 5 6 7 8; do
	mqs_must_create --chunk 64K "${STACK[-1]}"
	STACK+=("$MQS_DEV")
done
DEV=${STACK[-1]}
diag "$DEV: level 8 of a stack of arrays: ${STACK[*]}"
fio_job stacked-fsync --ioengine=libaio --iodepth=8 --direct=1 --rw=randwrite \
	--fsync=4 --size=$((4 << 20))
before=$(ls /sys/block)
check_fails "create over level 8 of a stack: refused, naming the member" 1 \
	"${DEV}: the member is an array at the deepest level of a stack of arrays already: at most 8 levels" \
	"$STRIPECTL" create "${MQS_FORCE[@]}" --chunk 64K "$DEV"
check_eq "refused create: no new disk" "$before" "$(ls /sys/block)"
check_eq "refused create: no holder on $DEV" "" "$(ls "/sys/block/${DEV##*/}/holders")"
for ((i = ${#STACK[@]} - 1; i >= 0; i--)); do
	check_stop "${STACK[i]}"
done
mqs_finish
