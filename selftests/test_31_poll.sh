#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: poll
#
# Polled IO.  Runs in the "poll" boot of run.sh: NVMe members with poll
# queues (nvme.poll_queues=2) and one virtio-blk disk without.
# 1. Every member polls: queue/io_poll reads 1, the array has one poll
#    context per CPU after its default ones, io_uring IOPOLL (fio hipri=1)
#    writes and verifies, pvsync2 hipri reads verify.
# 2. The member bios of polled requests really are polled: a hipri read job
#    of a known number of IOs raises the members' NVMe interrupt counts by
#    far less than one per IO (polled queues have no interrupts), while the
#    same job without hipri raises them by many (the control that shows the
#    counter measures what we think).
# 3. One member without poll queues (virtio-blk): io_poll reads 0 and a
#    hipri job still completes and verifies (never a hang).
# 4. More member poll queues than one ->poll() call polls (20 null_blk
#    members with a poll queue each, a 4K chunk so that one request reaches
#    all of them): hipri writes and reads verify, nothing hangs, and the
#    polled reads raise no member interrupts (null_blk counts none, so the
#    proof is that every job ends: a member bio no ->poll() call reaches
#    would never complete).
# 5. A member that loses polling after create (a dm-linear map moved from
#    its NVMe drive onto a copy on the virtio-blk disk): hipri reads verify
#    and hipri writes go on, the member stays ok (6.12 refuses its polled
#    bios with EOPNOTSUPP: the array makes the request again unpolled and
#    logs that its member IO is no longer polled; 6.1 clears REQ_POLLED).
# Catches: io_poll advertised without poll queues, polled array requests
# whose member bios are not polled (they would complete by interrupt, or
# hang when nobody polls them), lost or double completions in ->poll().

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
mapfile -t VD < <(virtio_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
[ ${#VD[@]} -ge 1 ] || mqs_skip "needs a virtio-blk disk"
M=("${NV[@]:0:4}")
for m in "${M[@]}"; do
	[ "$(qattr "$m" io_poll)" = 1 ] ||
		mqs_skip "member $m has no poll queues (io_poll 0): run in the 'poll' boot of selftests/run.sh (nvme.poll_queues=2)"
done
check_eq "virtio-blk ${VD[0]} has no poll queues" 0 "$(qattr "${VD[0]}" io_poll)"

# interrupts of the NVMe IO queues (nvmeXqY, Y >= 1), all CPUs
nvme_irqs() {
	awk '$NF ~ /^nvme[0-9]+q[1-9][0-9]*$/ {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) t += $i
	} END { print t + 0 }' /proc/interrupts
}

# ---- 1. all members poll
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_eq "array io_poll" 1 "$(qattr "$DEV" io_poll)"
ncpu=$(nproc --all)
nctx=$(find "$MQS_SYS/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)
check_eq "hardware contexts: $ncpu default + $ncpu poll" $((2 * ncpu)) "$nctx"

FIO=(fio --filename="$DEV" --direct=1 --bs=4k --size=16M --group_reporting)
check_cmd "io_uring hipri randrw write+verify (iodepth 16)" timeout 300 \
	"${FIO[@]}" --name=uring-hipri --ioengine=io_uring --hipri=1 --iodepth=16 \
	--rw=randrw --verify=crc32c --do_verify=1 --verify_fatal=1 --bsrange=4k-256k
check_cmd "io_uring hipri sequential write of 16M with verify" timeout 300 \
	"${FIO[@]}" --name=seqw --ioengine=io_uring --hipri=1 --iodepth=8 \
	--rw=write --bs=64k --verify=crc32c --do_verify=0
check_cmd "pvsync2 hipri reads verify what was written" timeout 300 \
	"${FIO[@]}" --name=seqw --ioengine=pvsync2 --hipri=1 \
	--rw=read --bs=64k --verify=crc32c --verify_only=1 --verify_fatal=1

# ---- 2. polled, not interrupt-driven: 4096 4K reads
nio=4096
job=(timeout 300 "${FIO[@]}" --rw=randread --ioengine=io_uring --iodepth=8 --randrepeat=1)
i0=$(nvme_irqs)
"${job[@]}" --name=hipri --hipri=1 >"$MQS_TMP/hipri.out" 2>&1 ||
	fail "hipri read job" "$(tail -n 5 "$MQS_TMP/hipri.out")"
i1=$(nvme_irqs)
"${job[@]}" --name=irq --hipri=0 >"$MQS_TMP/irq.out" 2>&1 ||
	fail "interrupt-driven read job" "$(tail -n 5 "$MQS_TMP/irq.out")"
i2=$(nvme_irqs)
polled=$((i1 - i0))
irqd=$((i2 - i1))
diag "NVMe IO-queue interrupts for $nio 4K reads: hipri $polled, without hipri $irqd"
check_ge "control: $nio interrupt-driven reads raise at least $((nio / 8)) interrupts" $((nio / 8)) "$irqd"
check_le "hipri: $nio polled reads raise fewer than $((nio / 16)) interrupts" $((nio / 16 - 1)) "$polled"
check_stop "$DEV"

# ---- 3. one member without poll queues
mqs_must_create --chunk 64K "${NV[0]}" "${NV[1]}" "${NV[2]}" "${VD[0]}"
DEV=$MQS_DEV
check_eq "array with a virtio-blk member: io_poll" 0 "$(qattr "$DEV" io_poll)"
nctx=$(find "$MQS_SYS/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)
check_eq "no poll contexts: $ncpu hardware contexts" "$ncpu" "$nctx"
# the block layer either clears REQ_POLLED (6.1: the IO completes by
# interrupt) or refuses the polled bio with EOPNOTSUPP (6.12's
# blk_mq_submit_bio(): blk_mq_can_poll()); either way, no hang
timeout 120 fio --filename="$DEV" --direct=1 --size=16M --name=nopoll --ioengine=io_uring \
	--hipri=1 --iodepth=16 --rw=randrw --bsrange=4k-128k --verify=crc32c \
	--do_verify=1 --verify_fatal=1 >"$MQS_TMP/nopoll.out" 2>&1
rc=$?
errs=$(grep -o 'io_u error on file [^:]*: [^:]*' "$MQS_TMP/nopoll.out" | sed 's/.*: //' | sort -u)
if [ $rc -eq 0 ]; then
	pass "hipri randrw verify without poll queues: completed normally"
elif [ $rc -ne 124 ] && [ "$errs" = "Operation not supported" ]; then
	pass "hipri randrw without poll queues: refused with EOPNOTSUPP by the block layer"
else
	fail "hipri randrw without poll queues: completes or is refused (EOPNOTSUPP), no hang" \
		"fio exit $rc (124: timed out); errors: ${errs:-none}" "$(tail -n 5 "$MQS_TMP/nopoll.out")"
fi
check_cmd "the same array: io_uring randrw verify without hipri" timeout 120 \
	fio --filename="$DEV" --direct=1 --size=16M --name=nopoll2 --ioengine=io_uring \
	--iodepth=16 --rw=randrw --bsrange=4k-128k --verify=crc32c \
	--do_verify=1 --verify_fatal=1
check_stop "$DEV"

# ---- 4. more member queues than one ->poll() call polls
# configfs null_blk devices take poll_queues from the module parameter
if modprobe null_blk nr_devices=0 poll_queues=1; then
	NB=()
	for i in $(seq 0 19); do
		mqs_nullb_create "mqspoll$i" size=8 memory_backed=1 submit_queues=1 ||
			fail "null_blk member $i"
		NB+=("$NULLB_DEV")
	done
	check_eq "null_blk members with a poll queue each: io_poll" \
		"1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1" \
		"$(for d in "${NB[@]}"; do qattr "$d" io_poll; done | xargs)"
	mqs_must_create --chunk 4K "${NB[@]}"
	DEV=$MQS_DEV
	check_eq "array over 20 polling null_blk: io_poll" 1 "$(qattr "$DEV" io_poll)"
	# written once without polling first: memory-backed null_blk allocates
	# a missing backing page with a sleeping allocation even when the
	# write completes in ->poll(), under io_uring's RCU read lock
	# (null_insert_page() in drivers/block/null_blk/main.c); the debug
	# kernel reports that.  Pages that exist are not allocated again.
	check_cmd "20 members: the array's first 64M written without polling" \
		timeout 300 fio --filename="$DEV" --direct=1 --size=64M --name=fill \
		--ioengine=libaio --iodepth=4 --rw=write --bs=1M
	check_cmd "20 members: io_uring hipri randrw 4k-256k write+verify (iodepth 32)" \
		timeout 300 fio --filename="$DEV" --direct=1 --size=64M --name=wide \
		--ioengine=io_uring --hipri=1 --iodepth=32 --rw=randrw --bsrange=4k-256k \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --group_reporting
	check_cmd "20 members: io_uring hipri 4k randread of what was written (iodepth 64)" \
		timeout 300 fio --filename="$DEV" --direct=1 --size=64M --name=wide4k \
		--ioengine=io_uring --hipri=1 --iodepth=64 --rw=randread --bs=4k \
		--number_ios=8192 --group_reporting
	check_stop "$DEV"
else
	fail "modprobe null_blk poll_queues=1"
fi

# ---- 5. a member that loses polling after create: 4 dm-linear maps over
# the NVMe drives (dm polls when every device below does); map 1 is moved
# onto a copy of its data on the virtio-blk disk, which has no poll
# queues.  6.12 refuses its polled bios with NOTSUPP (blk_mq_submit_bio()),
# 6.1 clears REQ_POLLED: either way no member fault, the data reads back
MAPSZ=$((48 << 11))
LIN=()
for i in 0 1 2 3; do
	mqs_dm_create "polllin$i" "0 $MAPSZ linear ${M[i]} 0" || mqs_die "dm-linear over ${M[i]}"
	LIN+=("$DM_DEV")
done
mqs_must_create --chunk 64K "${LIN[@]}"
DEV=$MQS_DEV
check_eq "lost polling: precondition: the array over dm-linear maps polls" 1 "$(qattr "$DEV" io_poll)"
PFIO=(fio --filename="$DEV" --direct=1 --size=32M --group_reporting --ioengine=io_uring
	--hipri=1 --iodepth=16 --verify=crc32c)
check_cmd "lost polling: hipri write of 32M" timeout 300 \
	"${PFIO[@]}" --name=lost --rw=write --bs=64k --do_verify=0
mark=$(klog_mark "test_31 moving $(blk_name "${LIN[1]}") onto ${VD[0]}")
dmsetup suspend --noudevsync mqst-polllin1 &&
	dd if="${M[1]}" of="${VD[0]}" bs=1M count=48 iflag=direct oflag=direct status=none &&
	dmsetup load mqst-polllin1 --table "0 $MAPSZ linear ${VD[0]} 0" &&
	dmsetup resume --noudevsync mqst-polllin1 ||
	mqs_die "moving mqst-polllin1 onto ${VD[0]}"
check_eq "lost polling: precondition: map 1 no longer polls" 0 "$(qattr "${LIN[1]}" io_poll)"
check_cmd "lost polling: hipri reads verify what was written" timeout 300 \
	"${PFIO[@]}" --name=lost --rw=read --bs=64k --verify_only=1 --verify_fatal=1
check_cmd "lost polling: hipri randrw 4k-256k write+verify" timeout 300 \
	"${PFIO[@]}" --name=lostrw --rw=randrw --bsrange=4k-256k --do_verify=1 --verify_fatal=1
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
check_eq "lost polling: member 1 stays ok without errors, the array active" \
	"ok 0 0 active" \
	"$(jget "$MQS_TMP/status.json" members.1.state members.1.read_errors members.1.write_errors state)"
log=$(klog_since "$mark")
case $(uname -r) in
6.1.*)	diag "6.1 clears REQ_POLLED of a bio for a queue that does not poll: no refusal to log" ;;
*)	check_match "lost polling: the kernel log says member IO is no longer polled" \
		"$MQS_DISK: member 1 .* no longer polls" "$log" ;;
esac
check_eq "lost polling: no error line for $MQS_DISK in the kernel log" "" \
	"$(grep -E "$MQS_DISK.*(error|fail)|(error|fail).*$MQS_DISK" <<<"$log")"
check_stop "$DEV"
mqs_finish
