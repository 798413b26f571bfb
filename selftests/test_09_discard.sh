#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Discard and write-zeroes.  On NVMe members: blkdiscard and blkdiscard -z
# over the whole device and over ranges that cross chunk and stripe
# boundaries; zeroed ranges read back as zeroes, data around them intact
# (emulated NVMe need not zero on discard: only -z ranges must read zero).
# On members that do zero on discard (loop devices over tmpfs files, which
# punch holes): discarded ranges read zero, so a discard mapped to the
# wrong member offset shows; concurrent discards of non-adjacent ranges
# (which the block layer may merge into one request) leave the data
# between them intact.
# A member that loses write-zeroes at runtime (dm reloaded onto a target
# without it; loop over tmpfs, which has no zero-range fallocate, drops it
# at the first one): the request fails with EOPNOTSUPP, the member stays
# ok, the array active, and it stops offering write-zeroes (blkdiscard -z
# then writes zero pages).
# Catches: discard/write-zeroes mapped like a single range, merged discards
# treated as one contiguous range, ranges rounded past their ends, a
# member's BLK_STS_NOTSUPP taken for a fault (member faulty, array failed).

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd blkdiscard losetup

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
K=1024

# region_check DESC DEV SEED RANGES...: RANGES are "off:len:zero|pat"
region_check() {
	local desc=$1 dev=$2 seed=$3 out
	shift 3
	if out=$(pattern regions "$dev" "$seed" "$@"); then
		pass "$desc"
	else
		fail "$desc" "$out"
	fi
}

# ------------------------------------------------------------- NVMe
# "whole device" kept at 4 x 32 MiB with a large data offset (TCG is slow)
doff=$((($(blk_bytes "${M[0]}") >> 20) - 32))
[ "$doff" -ge 1 ] || doff=1
mqs_must_create --chunk 64K --data-offset "${doff}M" "${M[@]}"
DEV=$MQS_DEV
size=$(blk_bytes "$DEV")
[ "$(qattr "$DEV" discard_max_bytes)" -gt 0 ] || mqs_die "array offers discard over NVMe" \
	"discard_max_bytes 0 though every member has discard"
W=$((4 << 20))
check_cmd "fill the first 4 MiB" pattern fill "$DEV" 0 "$W" 21

# -z across chunk (64K) and stripe (256K) boundaries
check_cmd "blkdiscard -z -o 60K -l 200K" blkdiscard -z -o $((60 * K)) -l $((200 * K)) "$DEV"
region_check "-z 60K+200K: zero inside, data outside" "$DEV" 21 \
	"0:$((60 * K)):pat" "$((60 * K)):$((200 * K)):zero" "$((260 * K)):$((W - 260 * K)):pat"
check_cmd "blkdiscard -z -o 1020K -l 1032K (5 stripes' worth of boundaries)" \
	blkdiscard -z -o $((1020 * K)) -l $((1032 * K)) "$DEV"
region_check "-z 1020K+1032K: zero inside, data outside" "$DEV" 21 \
	"$((260 * K)):$((760 * K)):pat" "$((1020 * K)):$((1032 * K)):zero" \
	"$((2052 * K)):$((W - 2052 * K)):pat"
# plain discard across boundaries: content inside undefined, outside intact
check_cmd "blkdiscard -o 2560K -l 520K" blkdiscard -o $((2560 * K)) -l $((520 * K)) "$DEV"
region_check "discard 2560K+520K: data outside intact" "$DEV" 21 \
	"$((2052 * K)):$((508 * K)):pat" "$((3080 * K)):$((W - 3080 * K)):pat"

# whole device: put data at the start, middle and end first
mid=$((size / 2 / (1 << 20) * (1 << 20)))
pattern fill "$DEV" "$mid" $((1 << 20)) 22
pattern fill "$DEV" $((size - (1 << 20))) $((1 << 20)) 23
check_cmd "blkdiscard -z of the whole device" timeout 300 blkdiscard -z "$DEV"
check_cmd "the whole device reads zeroes" pattern zero "$DEV" 0 "$size"
check_cmd "blkdiscard of the whole device" timeout 300 blkdiscard "$DEV"
check_cmd "blkdiscard -z of 1 sector at the last sector" \
	blkdiscard -z -o $((size - 512)) -l 512 "$DEV"
check_stop "$DEV"

# --------------------------- a member that loses write-zeroes at runtime
# Member 0 is dm-linear over an NVMe namespace (write-zeroes), reloaded
# after create onto dm-delay over the same namespace (same data, no
# write-zeroes): its BLK_STS_NOTSUPP is not a member fault.
mqs_require_cmd dmsetup fallocate
modprobe dm-delay 2>/dev/null
sectors=$(($(blk_bytes "${M[0]}") / 512))
mqs_dm_create wz0 "0 $sectors linear ${M[0]} 0" || mqs_die "dmsetup create over ${M[0]}"
WZ=$DM_DEV
mqs_must_create --chunk 64K "$WZ" "${M[1]}"
DEV=$MQS_DEV
[ "$(qattr "$DEV" write_zeroes_max_bytes)" -gt 0 ] ||
	mqs_die "array over dm-linear and NVMe offers write-zeroes" \
		"write_zeroes_max_bytes 0 though both members have it"
check_cmd "fill the first 1 MiB" pattern fill "$DEV" 0 $((1 << 20)) 24
mark=$(klog_mark "test_09 reloading $(blk_name "$WZ") without write-zeroes")
if ! { dmsetup suspend --noudevsync mqst-wz0 &&
	dmsetup load --noudevsync mqst-wz0 --table "0 $sectors delay ${M[0]} 0 0" &&
	dmsetup resume --noudevsync mqst-wz0; }; then
	mqs_die "reload $(blk_name "$WZ") onto dm-delay"
fi
check_eq "member 0 has no write-zeroes after the reload" 0 "$(qattr "$WZ" write_zeroes_max_bytes)"
# punch-hole: write-zeroes without the fallback of writing zero pages
check_fails "fallocate --punch-hole (no fallback) over both members: not supported" \
	any 'not supported|unsupported' fallocate --punch-hole -o 0 -l $((128 * K)) "$DEV"
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
check_eq "member 0 stays ok, the array active, no write error counted" "ok active 0" \
	"$(jget "$MQS_TMP/status.json" members.0.state state members.0.write_errors)"
check_eq "the array no longer offers write-zeroes" 0 "$(qattr "$DEV" write_zeroes_max_bytes)"
log=$(klog_since "$mark")
if grep "$MQS_DISK" <<<"$log" | grep "$(blk_name "$WZ")" | grep -qi 'write.zeroes'; then
	pass "a kernel log line names the array, the member and write-zeroes"
else
	fail "a kernel log line names the array, the member and write-zeroes" "log: $(head -n 20 <<<"$log")"
fi
# with the fallback: zero pages written instead
check_cmd "blkdiscard -z -o 60K -l 200K (written as zero pages)" \
	blkdiscard -z -o $((60 * K)) -l $((200 * K)) "$DEV"
region_check "-z 60K+200K after the loss: zero inside, data outside" "$DEV" 24 \
	"0:$((60 * K)):pat" "$((60 * K)):$((200 * K)):zero" "$((260 * K)):$((764 * K)):pat"
check_stop "$DEV"
mqs_dm_remove wz0 || fail "dmsetup remove mqst-wz0"

# ---------------------------------------- loop members that zero on discard
modprobe loop 2>/dev/null
TMPFS=$MQS_TMP/tmpfs
mkdir -p "$TMPFS"
mount -t tmpfs -o size=200m mqs-tmpfs "$TMPFS" || mqs_die "mount a tmpfs"
MQS_MOUNTS+=("$TMPFS")
L=()
for i in 0 1 2 3; do
	truncate -s 33M "$TMPFS/m$i"
	mqs_loop_create "$TMPFS/m$i" || mqs_die "losetup $TMPFS/m$i"
	L+=("$LOOP_DEV")
done
[ "$(qattr "${L[0]}" discard_max_bytes)" -gt 0 ] ||
	mqs_skip "loop devices over tmpfs have no discard here"
mqs_must_create --chunk 64K "${L[@]}"
DEV=$MQS_DEV
size=$(blk_bytes "$DEV")
gran=$(qattr "$DEV" discard_granularity)
diag "loop array: $size bytes, discard_granularity $gran"
check_cmd "fill the loop array" pattern fill "$DEV" 0 "$size" 31
check_cmd "blkdiscard -o 60K -l 200K" blkdiscard -o $((60 * K)) -l $((200 * K)) "$DEV"
region_check "discard 60K+200K on hole-punching members: zero inside, data outside" "$DEV" 31 \
	"0:$((60 * K)):pat" "$((60 * K)):$((200 * K)):zero" "$((260 * K)):$((4 << 20)):pat"

# 48 concurrent discards of 136K every 392K from 8M+4K: gaps of 256K
# between them (non-adjacent ranges the block layer may merge)
ranges=()
args=()
for i in $(seq 0 47); do
	off=$(((8 << 20) + i * 392 * K + 4 * K))
	ranges+=("$off")
	args+=("$off:$((136 * K))")
done
check_cmd "48 concurrent discards (one thread each)" pattern discard "$DEV" discard "${args[@]}"
checks=()
prev=$((260 * K + (4 << 20)))
for off in "${ranges[@]}"; do
	checks+=("$prev:$((off - prev)):pat" "$off:$((136 * K)):zero")
	prev=$((off + 136 * K))
done
checks+=("$prev:$((size - prev)):pat")
region_check "concurrent discards: each range zero, the data between them intact" \
	"$DEV" 31 "${checks[@]}"

# write-zeroes concurrently too, with odd lengths
args=()
checks=()
prev=$((260 * K))
for i in 0 1 2 3 4 5 6 7; do
	off=$(((2 << 20) + i * 200 * K))
	args+=("$off:$((100 * K + 512))")
	checks+=("$prev:$((off - prev)):pat" "$off:$((100 * K + 512)):zero")
	prev=$((off + 100 * K + 512))
done
checks+=("$prev:$(((4 << 20) + 260 * K - prev)):pat")
check_cmd "8 concurrent write-zeroes (one thread each)" pattern discard "$DEV" zeroout "${args[@]}"
region_check "concurrent write-zeroes: each range zero, the data between intact" \
	"$DEV" 31 "${checks[@]}"
check_eq "the array is still active (a member refusing write-zeroes is no fault)" active \
	"$(cat "$MQS_SYS/mqstripe/state")"
check_stop "$DEV"
mqs_finish
