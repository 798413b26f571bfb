#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-kernels: debug
#
# Member bios from the bio reserve alone, on kernels with FAILSLAB (the
# debug kernel; Debian's stock kernels have no fault injection: skipped
# there).  FAILSLAB with cache-filter=Y fails every allocation from the
# array's own bio slab cache (the bio-N cache its bio set created: found
# as the one that appears when the array is made), in any task, sleeping
# allocations too: every member bio then comes from the bio set's
# mempool, a reserve of a few hundred bios that only completed member
# bios refill.  A driver that waits on that reserve while it holds member
# bios it has not submitted waits for ever once the reserve is empty and
# every bio out of it is held that way.  Over 16 members (4 partitions
# on each of the 4 NVMe drives: volatile write cache, discard), 4K chunk, the array's discard_max_bytes at 64K (each discard request is 16
# member bios, and under the 128K at which a plug is flushed early,
# BLK_PLUG_FLUSH_SIZE in block/blk-mq.c) and writeback throttling off
# (wbt_lat_usec 0: its waits for discards break a batch into single
# requests, and a batch is what holds many bios):
#  - blkdiscard of 48 such requests, with no IO scheduler and with
#    mq-deadline: requests are handed over in batches (->queue_rqs(), or
#    ->queue_rq() with the submission deferred to the end of the batch),
#    so the bios of the requests made first are held while the next ones
#    are made: 16 requests hold the whole reserve.  Without injection the
#    same discard takes T0; under injection it must end within 60 s + 20
#    x T0 (the guest's own speed: a waiting allocation is woken by the
#    completion of a bio it submitted, 12 s against a T0 of 11 s on a
#    loaded host; with the bios held it waits for good, or until something
#    else submits them: still waiting after 250 s there);
#  - fio, 8 jobs of random writes of 4K to 16K (io_uring, iodepth 64; a
#    write over 2 to 4 chunks is as many member bios, clones of its bio,
#    all but the first from the bio set) with an fsync
#    every 16 writes (a flush: up to 16 member bios, made in kblockd) and
#    2 jobs of 64K random discards, 3 s, with no scheduler and with
#    mq-deadline.
# Each must end within its time limit (else a deadlock on the reserve:
# the injection is then turned off, which lets the IO finish, and the
# check fails), without an IO error.  The injection's counter proves the
# reserve was used.  Afterwards a pattern write/verify passes.
# Catches: a member bio allocated with a sleeping mempool allocation while
# bios of the same request (flush, discard, write-zeroes), of earlier
# requests of a ->queue_rqs() batch or of the batch deferred on the
# hardware context are held unsubmitted.

. "$(dirname "$0")/lib.sh"
mqs_init

FS=/sys/kernel/debug/failslab
[ -d "$FS" ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
[ -d "$FS" ] || mqs_skip "no FAILSLAB: $FS missing (CONFIG_FAILSLAB; Debian's stock kernels have no fault injection, the debug kernel runs this)"
mqs_require_cmd fio blkdiscard sfdisk wipefs
mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
[ -z "$(mqs_arrays)" ] || mqs_die "no other array (the array's bio slab cache must be its own)" "arrays: $(mqs_arrays | tr '\n' ' ')"

DMAX=65536
SCALE=${MQS_TIMEOUT_SCALE:-1}
# 4 partitions of 64 MiB on each NVMe drive, removed at exit
wipe_parts() {
	local d
	for d in "${NV[@]:0:4}"; do
		wipefs -a -q "$d" 2>/dev/null
		blockdev --rereadpt "$d" 2>/dev/null
	done
}
trap 'mqs_cleanup; wipe_parts' EXIT
M=()
for d in "${NV[@]:0:4}"; do
	printf 'label: gpt\nstart=2048, size=64M\nsize=64M\nsize=64M\nsize=64M\n' |
		sfdisk -q "$d" >"$MQS_TMP/sfdisk" 2>&1 ||
		mqs_die "4 partitions on $d" "$(cat "$MQS_TMP/sfdisk")"
	for i in 1 2 3 4; do
		M+=("${d}p$i")
	done
done
for _ in $(seq 50); do
	[ -b "${M[15]}" ] && break
	sleep 0.1
done
for m in "${M[@]}"; do
	[ -b "$m" ] || mqs_die "16 partitions as members" "$m missing"
done

slabs() { ls -d /sys/kernel/slab/bio-* 2>/dev/null | sort; }
before=$(slabs)
mqs_must_create --chunk 4K "${M[@]}"
A=$MQS_DEV
mapfile -t new < <(comm -13 <(echo "$before") <(slabs))
[ ${#new[@]} -eq 1 ] || mqs_die "the array's bio set made one new bio slab cache" \
	"new caches: ${new[*]:-none} (none: its size is shared with another bio set, and faults could not be kept to the array)"
SLAB=${new[0]}
diag "the array's bio slab cache: ${SLAB##*/}"
# refused for a cache merged with others (SLUB's failslab_store());
# cleared before the array stops (the cache goes with the last array)
echo 1 2>"$MQS_TMP/err" >"$SLAB/failslab" ||
	mqs_die "failslab set on ${SLAB##*/}" "$(cat "$MQS_TMP/err") (a cache merged with others)"
echo "$DMAX" >"$(blk_sys "$A")/queue/discard_max_bytes"
echo 0 >"$(blk_sys "$A")/queue/wbt_lat_usec"
check_eq "array discard_max_bytes and wbt_lat_usec set" "$DMAX 0" \
	"$(qattr "$A" discard_max_bytes) $(qattr "$A" wbt_lat_usec)"

mqs_sysfs_set "$FS/task-filter" N
mqs_sysfs_set "$FS/cache-filter" Y
mqs_sysfs_set "$FS/ignore-gfp-wait" N
mqs_sysfs_set "$FS/verbose" 0
mqs_sysfs_set "$FS/interval" 1
mqs_sysfs_set "$FS/space" 0
mqs_sysfs_set "$FS/probability" 0
TIMES=1000000000
mqs_sysfs_set "$FS/times" "$TIMES"

# faults injected since the last call
injected() {
	local left
	left=$(cat "$FS/times")
	echo $((TIMES - left))
	echo "$TIMES" >"$FS/times"
}

# bounded WHAT LIMIT CMD...: CMD under injection must end within LIMIT
# seconds, exit 0.  If it does not, the injection stops (allocations then
# succeed and the IO drains) and the check fails.
bounded() {
	local what=$1 limit=$2 pid rc t0=$SECONDS n
	shift 2
	injected >/dev/null
	echo 100 >"$FS/probability"
	"$@" >"$MQS_TMP/out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ $((SECONDS - t0)) -lt "$limit" ]; do
		sleep 1
	done
	echo 0 >"$FS/probability"
	n=$(injected)
	if kill -0 "$pid" 2>/dev/null; then
		fail "$what: still running after $limit s with member bios from the reserve only (a wait on the reserve while holding its bios)"
		wait "$pid"
		diag "ended $((SECONDS - t0)) s after the start once the injection stopped, exit $?"
		return
	fi
	wait "$pid"
	rc=$?
	diag "$what: $((SECONDS - t0)) s, $n slab allocations failed"
	if [ "$rc" -ne 0 ]; then
		fail "$what: exit $rc: $(tail -c 600 "$MQS_TMP/out")"
		return
	fi
	check_ge "$what: ended, exit 0, with bio slab allocations failed (reserve used)" 1 "$n"
}

FIO=(fio --name=w --filename="$A" --direct=1 --ioengine=io_uring --rw=randwrite
	--bsrange=4k-16k --iodepth=64 --numjobs=8 --fsync=16 --size=200M
	--time_based --runtime=3 --group_reporting
	--name=t --filename="$A" --direct=1 --ioengine=psync --rw=randtrim
	--bs=64k --numjobs=2 --size=200M --time_based --runtime=3)
mark=$(klog_mark "test_33 bio reserve start")
DISCARD=(blkdiscard -o 0 -l $((48 * DMAX)) "$A")
for sched in none mq-deadline; do
	echo "$sched" >"$(blk_sys "$A")/queue/scheduler" ||
		mqs_die "scheduler $sched set" "write to queue/scheduler failed"
	t0=$SECONDS
	"${DISCARD[@]}" || fail "scheduler $sched: blkdiscard without injection"
	t0=$((SECONDS - t0))
	bounded "scheduler $sched: blkdiscard of 48 requests of 16 member bios (T0 $t0 s)" \
		$((60 + 20 * t0)) "${DISCARD[@]}"
	bounded "scheduler $sched: fio 4K-16K random writes with fsync and discards" \
		$((120 * SCALE)) "${FIO[@]}"
done
check_cmd "pattern write/verify afterwards" bash -c \
	"'$PYTHON' -S '$MQS_DIR/pattern.py' fill '$A' 0 4M 33 && '$PYTHON' -S '$MQS_DIR/pattern.py' check '$A' 0 4M 33"
echo 0 >"$SLAB/failslab"
check_klog "no kernel warning or hung task" "$mark"
check_stop "$A"
mqs_finish
