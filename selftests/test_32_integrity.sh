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
