#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member bios fit each member's limits.  The members' max_sectors_kb is
# lowered to 128 (what an NVMe drive with an MDTS of 128 KiB has, e.g. a
# Samsung 980 PRO), arrays are made with a 512K and a 64K chunk, and fio
# runs direct IO through io_uring (inline submission with REQ_NOWAIT) and
# libaio: reads and verified writes of 2 MiB and 640 KiB, at an aligned and
# an unaligned offset.  Then: no member split a bio of ours (block_split
# events on the members: 0), no array request was requeued
# (block_rq_requeue on the array: 0), and the sectors the members moved are
# the array's.  The same over two dm-stripe members of 64K chunks (a
# member's chunk_sectors, as an NVMe drive's NOIOB), hit by every IO not
# aligned to them.
# Catches: member bios built from the member ranges alone, larger than a
# member takes: the member splits every large IO, and in 6.x the split of
# a REQ_NOWAIT bio is refused with BLK_STS_AGAIN (bio_split_rw_at()), so
# the whole array request is requeued and dispatched again from kblockd;
# member bios across a member's chunk_sectors boundary, split there.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
for m in "${M[@]}"; do
	mqs_sysfs_set "$(blk_sys "$m")/queue/max_sectors_kb" 128 ||
		mqs_die "set max_sectors_kb 128 on $m"
done
check_eq "members' max_sectors_kb lowered to 128" "128 128 128 128" \
	"$(for m in "${M[@]}"; do qattr "$m" max_sectors_kb; done | tr '\n' ' ' | sed 's/ $//')"

T=$(tracefs_dir) || mqs_die "tracefs available" "cannot mount tracefs"
for e in block_split block_rq_requeue; do
	[ -d "$T/events/block/$e" ] || mqs_die "the $e tracepoint exists" "no $T/events/block/$e"
done
MQS_TRACE=$T
echo 0 >"$T/tracing_on"
echo 1 >"$T/events/block/block_split/enable"
echo 1 >"$T/events/block/block_rq_requeue/enable"

# sectors read + written of DEV (stat fields 3 and 7)
sectors() { echo $(($(blk_stat "$1" 3) + $(blk_stat "$1" 7))); }

# run_fio CHUNK ENGINES: one array, one fio run of stonewalled jobs
run_fio() {
	local chunk=$1 engines=$2 eng rw bs off jobs=() mdev msum0=0 msum1=0 a0 a1 dc
	mqs_must_create --chunk "$chunk" "${M[@]}"
	local dev=$MQS_DEV
	for eng in $engines; do
		for bs in 2M 640K; do
			for rw in write read; do
				# aligned for 2M, 60K past a stripe for 640K
				off=0
				[ "$bs" = 640K ] && off=$((60 << 10))
				jobs+=(--name="$eng-$rw-$bs" --ioengine="$eng" --rw="$rw" --bs="$bs"
					--offset="$off" --size=4M --stonewall)
				[ "$rw" = write ] && jobs+=(--verify=crc32c --do_verify=1)
			done
		done
	done
	mqs_settle
	for mdev in "${M[@]}"; do msum0=$((msum0 + $(sectors "$mdev"))); done
	a0=$(sectors "$dev")
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	if fio --filename="$dev" --direct=1 --iodepth=4 --output="$MQS_TMP/fio.out" \
		"${jobs[@]}" >"$MQS_TMP/fio.err" 2>&1; then
		pass "[chunk $chunk] fio ($engines): 2M and 640K reads and verified writes"
	else
		fail "[chunk $chunk] fio ($engines): 2M and 640K reads and verified writes" \
			"$(tail -n 20 "$MQS_TMP/fio.err" "$MQS_TMP/fio.out")"
	fi
	echo 0 >"$T/tracing_on"
	for mdev in "${M[@]}"; do msum1=$((msum1 + $(sectors "$mdev"))); done
	a1=$(sectors "$dev")
	# "... block_split: 259,1 R 2048 / 2304 [fio]"
	local splits=0 requeues=0
	for mdev in "${M[@]}"; do
		dc=$(blk_devno "$mdev" | tr : ,)
		splits=$((splits + $(grep -c "block_split: $dc " "$T/trace")))
	done
	dc=$(blk_devno "$dev" | tr : ,)
	requeues=$(grep -c "block_rq_requeue: $dc " "$T/trace")
	diag "[chunk $chunk] trace: $(grep -c . "$T/trace") lines; $(grep -m 3 -E 'block_split|block_rq_requeue' "$T/trace" | tr -s ' ' | tr '\n' ';')"
	check_eq "[chunk $chunk] no member split a member bio (block_split events)" 0 "$splits"
	check_eq "[chunk $chunk] no array request requeued (block_rq_requeue events)" 0 "$requeues"
	check_eq "[chunk $chunk] sectors moved by the members = by the array" \
		$((a1 - a0)) $((msum1 - msum0))
	check_stop "$dev"
}

run_fio 512K "io_uring libaio"
run_fio 64K "io_uring"

# Members with a chunk_sectors (dm-stripe's chunk here; an NVMe drive's
# NOIOB, md raid0's): two dm-stripe devices of 64K chunks, each over two
# of the namespaces.  A bio across a 64K boundary of the member is split
# there (dm_split_and_process_bio(), or bio_split_rw_at() for a blk-mq
# member), and a NOWAIT one refused with BLK_STS_AGAIN.
modprobe dm-mod 2>/dev/null
if command -v dmsetup >/dev/null && dmsetup targets 2>/dev/null | grep -qw striped; then
	half=$(($(blk_bytes "${M[0]}") / 512))
	for m in "${M[@]}"; do half=$((half < $(blk_bytes "$m") / 512 ? half : $(blk_bytes "$m") / 512)); done
	half=$((half / 256 * 256))
	mqs_dm_create s0 "0 $((2 * half)) striped 2 128 ${M[0]} 0 ${M[1]} 0" ||
		mqs_die "dm-stripe s0"
	S0=$DM_DEV
	mqs_dm_create s1 "0 $((2 * half)) striped 2 128 ${M[2]} 0 ${M[3]} 0" ||
		mqs_die "dm-stripe s1"
	S1=$DM_DEV
	cs="$(qattr "$S0" chunk_sectors) $(qattr "$S1" chunk_sectors)"
	if [ "$cs" = "0 0" ] && [ "$(kver_num)" -lt 612 ]; then
		# the chunk is dm-stripe's own: nothing above it can see it
		MQS_NCHECK=$((MQS_NCHECK + 1))
		ktap_skip "$MQS_NCHECK" "[dm-stripe members] no member split a member bio" \
			"dm-stripe of $(uname -r) does not publish its chunk as chunk_sectors"
	else
		check_eq "the dm-stripe members' chunk_sectors" "128 128" "$cs"
		M=("$S0" "$S1")
		run_fio 512K "io_uring libaio"
	fi
	mqs_dm_remove s0
	mqs_dm_remove s1
else
	fail "dm-stripe members" "no dmsetup or no striped target"
fi
mqs_finish
