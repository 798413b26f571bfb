#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: pi
#
# T10 PI: the integrity profile is stacked from the members and protection
# information travels through the array.  Needs NVMe namespaces with PI
# (the "pi" boot of run.sh: QEMU nvme-ns ms=8,mset=0,pi=1 on all disks but
# the last).
#  - an array over members with the same profile has that profile (format,
#    tag size, protection interval; generate and verify on);
#  - fio writes and verifies (crc32c) with O_DIRECT requests of 4K..1M that
#    cross 64K chunks: every piece carries its part of the PI with ref tags
#    remapped to the member sector (a wrong remap fails the member's
#    ref tag check or the array's read verify: EIO, "ref tag"/"guard tag"
#    in the kernel log);
#  - where a clone's integrity payload comes from kmalloc() (kernels
#    without bioset_integrity_create(), 6.14 on: no bio set pool behind
#    it) and FAILSLAB has its stack trace filter: 20 % of the slab
#    allocations made under bio_integrity_clone() fail, in every task,
#    sleeping ones too, while fio writes and verifies (libaio, 4K..512K
#    across chunks): a clone that bio_alloc_clone(GFP_NOIO) could not make
#    must have its request made again (the array's block_rq_requeue
#    events), never fail it or oops; FAILSLAB's times counter proves the
#    failures were injected.  Elsewhere that part is a SKIP that says why
#    (a clone cannot fail there, or the kernel cannot inject);
#  - an array over a PI member and a plain one has no profile, says so in the
#    log, and works.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio

# integrity/format of a disk ("none" without a profile)
ifmt() { cat "$(blk_sys "$1")/integrity/format" 2>/dev/null || echo missing; }
iattr() { cat "$(blk_sys "$1")/integrity/$2" 2>/dev/null; }

PI=() PLAIN=()
[ -d "$(blk_sys "$(nvme_disks | head -n 1)")/integrity" ] ||
	mqs_skip "kernel without block integrity support (CONFIG_BLK_DEV_INTEGRITY)"
for d in $(nvme_disks); do
	if [ "$(ifmt "$d")" = none ]; then PLAIN+=("$d"); else PI+=("$d"); fi
done
diag "PI namespaces: ${PI[*]:-none}; without: ${PLAIN[*]:-none}"
if [ ${#PI[@]} -lt 2 ] || [ ${#PLAIN[@]} -lt 1 ]; then
	# in the pi boot they must be there: a missing one is a failure there
	[ "${MQS_PI_BOOT:-0}" = 1 ] && mqs_die "pi boot without 2 PI + 1 plain NVMe namespaces"
	mqs_skip "needs 2 NVMe namespaces with PI and 1 without (run.sh's pi boot)"
fi

# A fresh QEMU PI namespace reads an unwritten block as zeros with no PI
# check, but only when the whole command is over unallocated image space;
# a read over written and unwritten blocks gets zero PI for the unwritten
# ones: a ref tag error (sc 0x84), e.g. libblkid's reads after stripectl
# wrote its superblock.  So every block gets real PI first.
for d in "${PI[@]}"; do
	b=$(blk_bytes "$d")
	if ! dd if=/dev/zero of="$d" bs=1M count=$((b >> 20)) oflag=direct status=none ||
		! dd if=/dev/zero of="$d" bs=512 seek=$((b >> 20 << 11)) \
			count=$(((b & ((1 << 20) - 1)) / 512)) oflag=direct status=none; then
		mqs_die "fill $d"
	fi
done

fmt=$(ifmt "${PI[0]}")
check_match "${PI[0]} reports a T10 PI format" '^T10-DIF-TYPE[123]-(CRC|IP)$' "$fmt"
tag=$(iattr "${PI[0]}" tag_size)
ival=$(iattr "${PI[0]}" protection_interval_bytes)

# fio_verify DEV NAME [fio options...]: write + verify, no IO error
fio_verify() {
	local dev=$1 name=$2 out=$MQS_TMP/fio-$2.out
	shift 2
	local cmd=(fio --name="$name" --filename="$dev" --verify=crc32c --do_verify=1
		--verify_fatal=1 --verify_dump=0 --direct=1 --randrepeat=1 --randseed=32
		--end_fsync=1 "$@")
	if timeout 300 "${cmd[@]}" >"$out" 2>&1; then
		pass "fio $name: write and verify"
		diag "$(grep -E '^ +(READ|WRITE):' "$out")"
	else
		fail "fio $name: write and verify" "${cmd[*]}" "$(tail -n 25 "$out")"
	fi
}

# check_no_pi_errors DESC SEQ: no IO or PI error in the log since SEQ
check_no_pi_errors() {
	local bad
	bad=$(klog_since "$2" | grep -iE 'guard tag|ref tag|app tag|integrity|I/O error|critical|blk_update_request|nvme.*(error|status)' |
		grep -v 'mqstripe-selftest' | grep -v 'differs from' | head -n 20)
	check_eq "$1" "" "$bad"
}

# A function's address range in /proc/kallsyms: "0xSTART 0xEND" (END: the
# next symbol), nothing if absent or hidden (kptr_restrict)
ksym_range() {
	awk -v n="$1" 'NR == FNR { if ($3 == n && NF == 3) s = $1; next }
		s != "" && ("x" $1) > ("x" s) && (e == "" || ("x" $1) < ("x" e)) { e = $1 }
		END { if (s ~ /[1-9a-f]/ && e != "") print "0x" s, "0x" e }' \
		/proc/kallsyms /proc/kallsyms
}

FS=/sys/kernel/debug/failslab
# Why a clone's integrity payload cannot be made to fail here; nothing
# when it can
clone_nomem_why() {
	if grep -qw bioset_integrity_create /proc/kallsyms; then
		echo "this kernel has bioset_integrity_create(): a clone's integrity payload comes from the bio set's pool, bio_alloc_clone(GFP_NOIO) cannot fail"
		return
	fi
	[ -d "$FS" ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
	if [ ! -d "$FS" ]; then
		echo "no FAILSLAB: $FS missing (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)"
	elif [ ! -e "$FS/require-start" ]; then
		echo "FAILSLAB without its stack trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER)"
	fi
}

# clone_nomem DEV: fio writes and verifies while 20 % of the slab
# allocations under bio_integrity_clone() fail (its payload: bio_alloc_clone()
# calls it with our GFP_NOWAIT, then GFP_NOIO)
clone_nomem() {
	local dev=$1 why range start end t0=1000000 left injected dc nreq mark
	why=$(clone_nomem_why)
	[ -n "$why" ] || range=$(ksym_range bio_integrity_clone)
	[ -n "$why$range" ] || why="bio_integrity_clone() not found in /proc/kallsyms"
	if [ -n "$why" ]; then
		MQS_NCHECK=$((MQS_NCHECK + 1))
		ktap_skip "$MQS_NCHECK" "clones whose integrity payload cannot be allocated" "$why"
		return
	fi
	read -r start end <<<"$range"
	diag "FAILSLAB on the slab allocations under bio_integrity_clone() ($start..$end)"
	mark=$(klog_mark "PI clone payload failures")
	trace_block block_rq_requeue || { fail "trace block_rq_requeue events"; return; }
	mqs_sysfs_set "$FS/probability" 0
	mqs_sysfs_set "$FS/task-filter" N
	mqs_sysfs_set "$FS/cache-filter" N
	mqs_sysfs_set "$FS/ignore-gfp-wait" N
	mqs_sysfs_set "$FS/verbose" 0
	mqs_sysfs_set "$FS/interval" 1
	mqs_sysfs_set "$FS/space" 0
	mqs_sysfs_set "$FS/reject-start" 0
	mqs_sysfs_set "$FS/reject-end" 0
	mqs_sysfs_set "$FS/require-start" "$start"
	mqs_sysfs_set "$FS/require-end" "$end"
	mqs_sysfs_set "$FS/times" $t0
	echo 20 >"$FS/probability"
	fio_verify "$dev" pi-clone-nomem --ioengine=libaio --iodepth=16 --rw=randwrite \
		--bsrange=4k-512k --blockalign=4k --size=$((size / 4))
	echo 0 >"$FS/probability"
	left=$(cat "$FS/times")
	injected=$((t0 - left))
	echo 0 >"$MQS_TRACE/tracing_on"
	dc=$(blk_devno "$dev" | tr : ,)
	nreq=$(grep -c "block_rq_requeue: $dc " "$MQS_TRACE/trace")
	echo 0 >"$MQS_TRACE/events/block/block_rq_requeue/enable"
	mqs_sysfs_restore
	diag "clone payload allocations failed: $injected; $MQS_DISK requests made again: $nreq"
	check_ge "FAILSLAB failed clone payload allocations (bio_integrity_clone) during the IO" 1 "$injected"
	check_ge "$MQS_DISK: requests whose clone failed were made again (block_rq_requeue)" 1 "$nreq"
	check_eq "$MQS_DISK: state after the failed clones" active "$(cat "$MQS_SYS/mqstripe/state")"
	check_klog "$MQS_DISK: no kernel warning or oops under failed clone payloads" "$mark"
}

# ---- every member with the same profile
mark=$(klog_mark "PI array")
nm=${#PI[@]}
[ "$nm" -gt 4 ] && nm=4
# 16 MiB per member at the end of the namespaces (TCG is slow)
doff=$((($(blk_bytes "${PI[0]}") >> 20) - 16))
mqs_must_create --chunk 64K --data-offset "${doff}M" "${PI[@]:0:nm}"
DEV=$MQS_DEV
check_eq "$MQS_DISK: integrity format of its members" "$fmt" "$(ifmt "$DEV")"
check_eq "$MQS_DISK: integrity tag_size" "$tag" "$(iattr "$DEV" tag_size)"
check_eq "$MQS_DISK: integrity protection_interval_bytes" "$ival" \
	"$(iattr "$DEV" protection_interval_bytes)"
check_eq "$MQS_DISK: integrity write_generate" 1 "$(iattr "$DEV" write_generate)"
check_eq "$MQS_DISK: integrity read_verify" 1 "$(iattr "$DEV" read_verify)"
check_eq "$MQS_DISK: stable_writes (PI is computed before the member)" 1 \
	"$(qattr "$DEV" stable_writes)"

size=$(blk_bytes "$DEV")
fio_verify "$DEV" pi-rand-libaio --ioengine=libaio --iodepth=16 --rw=randwrite \
	--bsrange=4k-1m --blockalign=4k --size="$size"
# starts at an odd sector: pieces start and end anywhere in a chunk
fio_verify "$DEV" pi-seq-odd --ioengine=libaio --iodepth=8 --rw=write \
	--bsrange=512-300k --blockalign=512 --offset=$((7 * 512)) \
	--size=$((size / 2))
if [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ]; then
	# REQ_NOWAIT: the clones are tried without waiting first
	fio_verify "$DEV" pi-rand-uring --ioengine=io_uring --iodepth=32 \
		--rw=randwrite --bsrange=4k-256k --blockalign=4k --size=$((size / 4))
fi
clone_nomem "$DEV"
check_eq "$MQS_DISK: member error counters" "$(printf '%s 0 0 0\n' $(seq 0 $((nm - 1))))" \
	"$(cat "$MQS_SYS/mqstripe/errors")"
check_no_pi_errors "$MQS_DISK: no IO or protection information error in the log" "$mark"
check_stop "$DEV"
# what the array wrote has the members' own ref tags: a plain read of a
# member checks them (the device, and the member's read_verify)
mark=$(klog_mark "PI members read directly")
for d in "${PI[@]:0:nm}"; do
	check_cmd "$(blk_name "$d"): the array's data reads back directly with PI checks" \
		dd if="$d" of=/dev/null bs=1M skip="$doff" iflag=direct status=none
done
check_no_pi_errors "members: no IO or protection information error in the log" "$mark"

# ---- a PI member and a plain one: no profile, and it works
mark=$(klog_mark "mixed array")
doff=$((($(blk_bytes "${PLAIN[0]}") >> 20) - 8))
mqs_must_create --chunk 64K --data-offset "${doff}M" "${PI[0]}" "${PLAIN[0]}"
DEV=$MQS_DEV
check_eq "$MQS_DISK over ${PI[0]} (PI) and ${PLAIN[0]}: integrity format" none "$(ifmt "$DEV")"
check_match "$MQS_DISK: the log names the member without the profile" \
	"$MQS_DISK: integrity profile of $(blk_name "${PLAIN[0]}") differs from $(blk_name "${PI[0]}")" \
	"$(klog_since "$mark")"
fio_verify "$DEV" mixed-rand --ioengine=libaio --iodepth=16 --rw=randwrite \
	--bsrange=4k-1m --blockalign=4k --size="$(blk_bytes "$DEV")"
check_no_pi_errors "$MQS_DISK: no IO or protection information error in the log" "$mark"
check_stop "$DEV"

mqs_finish
