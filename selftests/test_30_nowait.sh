#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NOWAIT (REQ_NOWAIT, RWF_NOWAIT, io_uring's inline submission).
# 1. Members that support NOWAIT: the array does too, and an RWF_NOWAIT
#    O_DIRECT read returns the right data.
# 2. One member without NOWAIT (dm-delay has no DM_TARGET_NOWAIT): the array
#    must not advertise it either: RWF_NOWAIT gets EOPNOTSUPP, plain reads
#    work.
# 3. A saturated array (queue depth 1, fio keeping its one tag busy):
#    RWF_NOWAIT reads from that CPU get EAGAIN instead of
#    blocking, and never another error or wrong data.
# 4. Saturated members under an idle array (null_blk members with 2 tags
#    and 1 ms completions, fio keeping them busy): an RWF_NOWAIT read must
#    not sleep on a member tag inside the driver; the driver passes
#    REQ_NOWAIT to the member and requeues the array request when a member
#    would block (block_rq_requeue on the array), so the read still returns
#    the right data and never EAGAIN (the array itself has free tags).
# 5. A stacked member that answers AGAIN: members are dm-linear maps over
#    the NVMe drives; one is suspended (dm answers a REQ_NOWAIT bio with
#    BLK_STS_AGAIN and fails a REQ_RAHEAD bio at once, drivers/md/dm.c
#    dm_submit_bio()).  While it is suspended, RWF_NOWAIT reads, io_uring
#    reads and a buffered read (read-ahead) of the array wait; after the
#    resume they all return the right data, never EAGAIN or EIO.  The
#    read-ahead bio that failed is no member fault (as for dm-stripe's
#    stripe_end_io() and md's raid1_should_handle_error()): the member
#    stays ok with no error counted, the array active, and the kernel log
#    has no error line for the array.
# 6. A member that loses NOWAIT after create (member 1 of part 5 reloaded
#    onto dm-delay): its REQ_NOWAIT bios get NOTSUPP from the block layer.
#    RWF_NOWAIT reads of the array go on being served (a request that
#    reaches member 1 is made again without REQ_NOWAIT; the array keeps
#    offering NOWAIT: files opened before would otherwise meet EOPNOTSUPP
#    for ever), logged once; the member stays ok, the data reads back.
# Catches: NOWAIT advertised over a member without it (EOPNOTSUPP or
# blocking surprises), REQ_NOWAIT ignored (no requeue: the submitter slept),
# an AGAIN from a member completion leaking to the caller (io_uring returns
# it to the application as EAGAIN), wrong data after a requeue, a member
# marked faulty (and the array failed) because read-ahead met a suspended
# dm member.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio taskset dmsetup

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
[ "$(nproc)" -ge 2 ] || mqs_skip "needs 2 CPUs"
M=("${NV[@]:0:4}")
nowait() { "$PYTHON" -S "$MQS_DIR/nowait.py" "$@"; }
K=1024

# ---- 1. every member supports NOWAIT
for m in "${M[@]}"; do
	check_eq "member $(blk_name "$m"): RWF_NOWAIT read works" OK "$(nowait once "$m" 0 4096)"
done
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_cmd "fill the first 8 MiB" pattern fill "$DEV" 0 8M 7
check_eq "array: RWF_NOWAIT read of 4K" OK "$(nowait once "$DEV" 4096 4096)"
check_eq "array: RWF_NOWAIT read of 256K over 4 members" OK "$(nowait once "$DEV" $((32 * K)) $((256 * K)))"
out=$(nowait loop "$DEV" 2 $((16 * K)) 7 $((8 << 20)))
diag "idle array, 2 s of 16K RWF_NOWAIT reads: $out"
check_match "idle array: RWF_NOWAIT reads return the pattern, no error" \
	'^ok=[1-9][0-9]* eagain=[0-9]+ other=0 bad=0' "$out"
check_stop "$DEV"

# ---- 2. a member without NOWAIT
sectors=$(($(blk_bytes "${NV[3]}") / 512))
mqs_dm_create nwdly "0 $sectors delay ${NV[3]} 0 0" || mqs_die "dm-delay over ${NV[3]}"
DLY=$DM_DEV
r=$(nowait once "$DLY" 0 4096)
if [ "$r" != EOPNOTSUPP ]; then
	fail "precondition: dm-delay refuses RWF_NOWAIT (EOPNOTSUPP)" \
		"got $r: this kernel's dm-delay supports NOWAIT; case 2 needs another member without it"
else
	pass "precondition: dm-delay $(blk_name "$DLY") refuses RWF_NOWAIT"
	mqs_must_create --chunk 64K "${NV[0]}" "${NV[1]}" "${NV[2]}" "$DLY"
	DEV=$MQS_DEV
	check_eq "array with a non-NOWAIT member: RWF_NOWAIT read gets EOPNOTSUPP" \
		EOPNOTSUPP "$(nowait once "$DEV" 0 4096)"
	check_eq "array with a non-NOWAIT member: a plain read works" OK \
		"$("$PYTHON" -S "$MQS_DIR/pattern.py" rw read "$DEV" 0 $((256 * K)))"
	check_stop "$DEV"
fi
mqs_dm_remove nwdly

# ---- 3. a saturated array: EAGAIN
mqs_must_create --chunk 64K --queue-depth 1 "${M[@]}"
DEV=$MQS_DEV
check_eq "queue depth 1" 1 "$(cat "$MQS_SYS/queue/nr_requests")"
check_cmd "fill the first 8 MiB" pattern fill "$DEV" 0 8M 7
taskset -c 1 fio --name=sat --filename="$DEV" --rw=randread --bs=64k --direct=1 \
	--ioengine=libaio --iodepth=32 --size=8M --time_based --runtime=60 \
	--output="$MQS_TMP/fio-sat.out" >/dev/null 2>&1 &
MQS_BG+=($!)
fiopid=$!
# fio takes seconds to start in a slow guest: the reads below need its load
check_cmd "saturated array: fio has the array's tag busy" wait_inflight "$MQS_SYS" 120
out=$(taskset -c 1 "$PYTHON" -S "$MQS_DIR/nowait.py" loop "$DEV" 30 4096 7 $((8 << 20)) --until-eagain)
diag "RWF_NOWAIT reads on CPU 1 while fio keeps its only tag busy: $out"
check_match "saturated array: an RWF_NOWAIT read gets EAGAIN, no other error, no bad data" \
	'^ok=[0-9]+ eagain=[1-9][0-9]* other=0 bad=0' "$out"
kill "$fiopid" 2>/dev/null
wait "$fiopid" 2>/dev/null
check_stop "$DEV"

# ---- 4. saturated members, idle array: requeue, not sleep, not EAGAIN
NBDEV=()
for i in 0 1 2 3; do
	mqs_nullb_create "mqsnw$i" size=64 blocksize=512 memory_backed=1 submit_queues=1 \
		hw_queue_depth=2 irqmode=2 completion_nsec=1000000 ||
		mqs_die "null_blk member mqsnw$i (configfs)"
	NBDEV+=("$NULLB_DEV")
done
if mqs_create --chunk 64K "${NBDEV[@]}"; then
	DEV=$MQS_DEV
	check_cmd "fill the first 8 MiB" pattern fill "$DEV" 0 8M 9
	T=$(tracefs_dir) || mqs_die "tracefs available" "cannot mount tracefs"
	MQS_TRACE=$T
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo 1 >"$T/events/block/block_rq_requeue/enable"
	taskset -c 2 fio --name=memsat --filename="$DEV" --rw=randread --bs=4k --direct=1 \
		--ioengine=libaio --iodepth=64 --size=8M --time_based --runtime=60 \
		--output="$MQS_TMP/fio-memsat.out" >/dev/null 2>&1 &
	MQS_BG+=($!)
	fiopid=$!
	check_cmd "busy members: fio has requests in flight" wait_inflight "$MQS_SYS" 120
	echo 1 >"$T/tracing_on"
	out=$(taskset -c 1 "$PYTHON" -S "$MQS_DIR/nowait.py" loop "$DEV" 8 4096 9 $((8 << 20)))
	echo 0 >"$T/tracing_on"
	kill "$fiopid" 2>/dev/null
	wait "$fiopid" 2>/dev/null
	dc=$(blk_devno "$DEV" | tr : ,)
	nreq=$(grep -c "block_rq_requeue: $dc " "$T/trace")
	echo 0 >"$T/events/block/block_rq_requeue/enable"
	diag "RWF_NOWAIT reads with busy members: $out; array requeues: $nreq"
	check_match "busy members: RWF_NOWAIT reads return the pattern, never EAGAIN or another error" \
		'^ok=[1-9][0-9]* eagain=0 other=0 bad=0' "$out"
	check_ge "busy members: the driver requeued NOWAIT requests instead of sleeping" 1 "$nreq"
	check_cmd "the pattern reads back after the load" pattern check "$DEV" 0 8M 9
	check_stop "$DEV"
else
	fail "create an array over 4 null_blk members"
fi

# ---- 5. a stacked member that answers AGAIN: dm-linear, suspended
LIN=()
for i in 0 1 2 3; do
	mqs_dm_create "nwlin$i" "0 $(($(blk_bytes "${M[i]}") / 512)) linear ${M[i]} 0" ||
		mqs_die "dm-linear over ${M[i]}"
	LIN+=("$DM_DEV")
done
check_eq "precondition: dm-linear $(blk_name "${LIN[1]}") supports RWF_NOWAIT" OK \
	"$(nowait once "${LIN[1]}" 0 4096)"
mqs_must_create --chunk 64K "${LIN[@]}"
DEV=$MQS_DEV
check_cmd "fill the first 8 MiB" pattern fill "$DEV" 0 8M 11
drop_caches
T=$(tracefs_dir) || mqs_die "tracefs available" "cannot mount tracefs"
MQS_TRACE=$T
echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo 1 >"$T/events/block/block_rq_requeue/enable"
echo 1 >"$T/events/block/block_rq_complete/enable"
mark=$(klog_mark "test_30 suspending $(blk_name "${LIN[1]}")")
dmsetup suspend --noudevsync mqst-nwlin1 || mqs_die "dmsetup suspend mqst-nwlin1"
# from here on, nothing may stop the test before the resume
r=$(nowait once "${LIN[1]}" 0 4096)
echo 1 >"$T/tracing_on"
# chunk 1 (member 1) is in every read below
"$PYTHON" -S "$MQS_DIR/nowait.py" loop "$DEV" 4 $((16 * K)) 11 $((8 << 20)) \
	>"$MQS_TMP/nw-loop.out" 2>&1 &
nwpid=$!
MQS_BG+=($nwpid)
fio --name=susp --filename="$DEV" --rw=randread --bs=16k --direct=1 \
	--ioengine=io_uring --iodepth=16 --size=8M --io_size=2M \
	--output="$MQS_TMP/fio-susp.out" >/dev/null 2>&1 &
fiopid=$!
MQS_BG+=($fiopid)
dd if="$DEV" of="$MQS_TMP/ra.bin" bs=64k count=16 2>"$MQS_TMP/dd.err" &
ddpid=$!
MQS_BG+=($ddpid)
sleep 3
alive=0
for p in $nwpid $fiopid $ddpid; do
	kill -0 "$p" 2>/dev/null && alive=$((alive + 1))
done
dmsetup resume --noudevsync mqst-nwlin1 || mqs_die "dmsetup resume mqst-nwlin1"
check_eq "precondition: the suspended dm member answers RWF_NOWAIT with EAGAIN" EAGAIN "$r"
check_eq "the three readers wait while the member is suspended" 3 "$alive"
# rc_of PID: RC = its exit status once it ends, "hung" after 60 s (then
# killed); not in a subshell, which could not wait for it
rc_of() {
	local t=$((SECONDS + 60))
	while kill -0 "$1" 2>/dev/null && [ $SECONDS -lt $t ]; do
		sleep 0.2
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		wait "$1" 2>/dev/null
		RC=hung
	else
		wait "$1"
		RC=$?
	fi
}
rc_of $nwpid
nrc=$RC
rc_of $fiopid
frc=$RC
rc_of $ddpid
drc=$RC
check_eq "after the resume the three readers end" "0 0 0" "$nrc $frc $drc"
echo 0 >"$T/tracing_on"
dc=$(blk_devno "$DEV" | tr : ,)
nreq=$(grep -c "block_rq_requeue: $dc " "$T/trace")
nra=$(grep -c "block_rq_complete: $dc R[A-Z]*A[A-Z]* .*\[-5\]" "$T/trace")
echo 0 >"$T/events/block/block_rq_requeue/enable"
echo 0 >"$T/events/block/block_rq_complete/enable"
out=$(cat "$MQS_TMP/nw-loop.out")
diag "suspended member: RWF_NOWAIT reads $out; array requeues $nreq, failed read-ahead requests $nra"
check_match "suspended member: RWF_NOWAIT reads return the pattern, never EAGAIN or another error" \
	'^ok=[1-9][0-9]* eagain=0 other=0 bad=0' "$out"
check_ge "suspended member: the member's AGAIN requeued array requests" 1 "$nreq"
check_eq "suspended member: io_uring reads end without error" 0 \
	"$(grep -c 'err= *[1-9]' "$MQS_TMP/fio-susp.out")"
check_cmd "suspended member: the buffered read returned the pattern" \
	cmp "$MQS_TMP/ra.bin" <(dd if="$DEV" bs=64k count=16 iflag=direct 2>/dev/null)
check_ge "suspended member: read-ahead met the suspended member (a failed RA request)" 1 "$nra"
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
J=$MQS_TMP/status.json
check_eq "suspended member: member 1 stays ok without errors, the array active" \
	"ok 0 active" "$(jget "$J" members.1.state members.1.read_errors state)"
log=$(klog_since "$mark")
check_eq "suspended member: no error line for $MQS_DISK in the kernel log" "" \
	"$(grep -E "$MQS_DISK.*(error|fail)|(error|fail).*$MQS_DISK" <<<"$log")"
check_stop "$DEV"

# ---- 6. a member that loses NOWAIT after create: member 1 reloaded from
# dm-linear onto dm-delay (no DM_TARGET_NOWAIT), so submit_bio_noacct()
# answers its REQ_NOWAIT bios with NOTSUPP.  No member fault: the request
# is made again without REQ_NOWAIT
mqs_must_create --chunk 64K "${LIN[@]}"
DEV=$MQS_DEV
check_cmd "lost NOWAIT: fill the first 8 MiB" pattern fill "$DEV" 0 8M 13
check_eq "lost NOWAIT: precondition: the array takes RWF_NOWAIT" OK \
	"$(nowait once "$DEV" $((64 * K)) 4096)"
mark=$(klog_mark "test_30 reloading $(blk_name "${LIN[1]}") onto dm-delay")
dmsetup load mqst-nwlin1 --table \
	"0 $(($(blk_bytes "${M[1]}") / 512)) delay ${M[1]} 0 0" &&
	dmsetup resume --noudevsync mqst-nwlin1 ||
	mqs_die "dm reload of mqst-nwlin1 onto dm-delay"
check_eq "lost NOWAIT: precondition: member 1 now refuses RWF_NOWAIT" EOPNOTSUPP \
	"$(nowait once "${LIN[1]}" 0 4096)"
# chunk 1 is on member 1
check_eq "lost NOWAIT: an RWF_NOWAIT read of member 1's chunk is served" OK \
	"$(nowait once "$DEV" $((64 * K)) 4096)"
out=$(nowait loop "$DEV" 2 $((16 * K)) 13 $((8 << 20)))
diag "lost NOWAIT: 2 s of 16K RWF_NOWAIT reads: $out"
check_match "lost NOWAIT: RWF_NOWAIT reads go on returning the pattern (made again without REQ_NOWAIT where they reach member 1), no EOPNOTSUPP or other error" \
	'^ok=[1-9][0-9]* eagain=[0-9]+ other=0 bad=0' "$out"
check_cmd "lost NOWAIT: plain reads return the pattern" pattern check "$DEV" 0 8M 13
check_cmd "lost NOWAIT: writes go on" pattern fill "$DEV" 0 2M 14
check_cmd "lost NOWAIT: and read back" pattern check "$DEV" 0 2M 14
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
check_eq "lost NOWAIT: member 1 stays ok without errors, the array active" \
	"ok 0 active" "$(jget "$J" members.1.state members.1.read_errors state)"
log=$(klog_since "$mark")
check_match "lost NOWAIT: the kernel log says so" \
	"$MQS_DISK: member 1 .* no longer supports NOWAIT: NOWAIT IO of the array is made again without it there" "$log"
check_eq "lost NOWAIT: ... once" 1 "$(grep -c "no longer supports NOWAIT" <<<"$log")"
check_eq "lost NOWAIT: no error line for $MQS_DISK in the kernel log" "" \
	"$(grep -E "$MQS_DISK.*(error|fail)|(error|fail).*$MQS_DISK" <<<"$log")"
check_stop "$DEV"
mqs_finish
