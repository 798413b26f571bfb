#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hctx mapping: one hardware context per possible CPU, each serving exactly
# one CPU, all CPUs covered.  One tag space shared by the contexts: the
# queue depth is the array's request count (default: the members'
# nr_requests summed, 128..4096; settable 1..4096), no IO scheduler by
# default (as for any multi-queue device); a request in flight from CPU 0
# (held by a suspended dm member) is busy in the tags of CPU 1's context
# too.  mqstripe/memory_bytes grows by one request's size (256 B
# to 1 KiB) per unit of depth, not by CPUs times that.
# Catches: a single hw queue, a queue count from online instead of possible
# CPUs, several CPUs mapped to one hctx, the depth option ignored, tags
# per context (requests and memory growing with the CPUs).

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dmsetup taskset

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 2 ] || mqs_skip "needs 2 NVMe namespaces, found ${#NV[@]}"

# possible CPUs, e.g. "0-3" -> 0 1 2 3
cpus=()
IFS=, read -r -a parts </sys/devices/system/cpu/possible
for p in "${parts[@]}"; do
	if [[ $p == *-* ]]; then
		for ((c = ${p%-*}; c <= ${p#*-}; c++)); do cpus+=("$c"); done
	else
		cpus+=("$p")
	fi
done
ncpu=${#cpus[@]}
diag "possible CPUs: ${cpus[*]}"
[ "$ncpu" -ge 2 ] || mqs_skip "needs at least 2 possible CPUs (boot with --cpus 4), found $ncpu"

# the default queue depth: the members' nr_requests summed, 128..4096
DEFDEPTH=$(($(qattr "${NV[0]}" nr_requests) + $(qattr "${NV[1]}" nr_requests)))
[ $DEFDEPTH -lt 128 ] && DEFDEPTH=128
[ $DEFDEPTH -gt 4096 ] && DEFDEPTH=4096
mqs_must_create --chunk 64K "${NV[@]:0:2}"
mq=$MQS_SYS/mq
n=$(find "$mq" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | wc -l)
check_eq "one hctx directory per possible CPU in $mq" "$ncpu" "$n"
seen=()
for d in "$mq"/*/; do
	[ -d "$d" ] || continue
	h=$(basename "$d")
	l=$(tr -d ' \n' <"$d/cpu_list")
	if [[ $l =~ ^[0-9]+$ ]]; then
		pass "hctx $h serves one CPU ($l)"
		seen+=("$l")
	else
		fail "hctx $h serves one CPU" "cpu_list: '$l'"
	fi
	check_eq "hctx $h nr_tags = default queue depth $DEFDEPTH" $DEFDEPTH "$(cat "$d/nr_tags" 2>&1)"
done
check_eq "nr_requests = default queue depth" $DEFDEPTH "$(qattr "$MQS_DEV" nr_requests)"
check_match "no IO scheduler by default" '\[none\]' "$(qattr "$MQS_DEV" scheduler)"
mem_default=$(cat "$MQS_SYS/mqstripe/memory_bytes")
check_eq "every possible CPU has its own hctx" "${cpus[*]}" \
	"$(printf '%s\n' "${seen[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_stop "$MQS_DEV"

mqs_must_create --chunk 64K --queue-depth 64 "${NV[@]:0:2}"
check_eq "--queue-depth 64: nr_tags of hctx 0" 64 "$(cat "$MQS_SYS/mq/0/nr_tags" 2>&1)"
check_eq "--queue-depth 64: still one hctx per CPU" "$ncpu" \
	"$(find "$MQS_SYS/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)"
mem64=$(cat "$MQS_SYS/mqstripe/memory_bytes")
check_stop "$MQS_DEV"

mqs_must_create --chunk 64K --queue-depth 4096 "${NV[@]:0:2}"
check_eq "--queue-depth 4096 (the maximum): nr_tags" 4096 "$(cat "$MQS_SYS/mq/0/nr_tags" 2>&1)"
mem4096=$(cat "$MQS_SYS/mqstripe/memory_bytes")
check_stop "$MQS_DEV"
per_rq=$(((mem4096 - mem64) / (4096 - 64)))
diag "memory_bytes: $mem64 at depth 64, $mem_default at depth $DEFDEPTH, $mem4096 at depth 4096 ($per_rq bytes per request, $ncpu CPUs)"
check_ge "memory_bytes grows by at least 256 bytes per request" 256 "$per_rq"
check_le "memory_bytes grows by at most 1 KiB per request, whatever the CPUs" 1024 "$per_rq"

# one tag space: a request held by a suspended dm-linear member (chunk 0,
# member 0) from CPU 0 is busy in the tags of every context
sectors=$(($(blk_bytes "${NV[0]}") / 512))
mqs_dm_create hctxlin "0 $sectors linear ${NV[0]} 0" || mqs_die "dm-linear over ${NV[0]}"
mqs_must_create --chunk 64K --queue-depth 8 "$DM_DEV" "${NV[1]}"
dmsetup suspend --noudevsync mqst-hctxlin || mqs_die "dmsetup suspend mqst-hctxlin"
taskset -c 0 dd if="$MQS_DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
ddpid=$!
MQS_BG+=("$ddpid")
wait_inflight "$MQS_SYS" 20
D=/sys/kernel/debug/block/$MQS_DISK
[ -d "$D" ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
busy=()
for c in 0 1; do
	busy+=("$(sed -n 's/^busy=//p' "$D/hctx$c/tags" 2>&1 | head -n 1)")
done
dmsetup resume --noudevsync mqst-hctxlin || mqs_die "dmsetup resume mqst-hctxlin"
check_eq "the request from CPU 0, held by the suspended member, is busy in the tags of hctx 0 and hctx 1 (one tag space)" \
	"1 1" "${busy[*]}"
wait "$ddpid"
check_stop "$MQS_DEV"
mqs_dm_remove hctxlin
check_fails "--queue-depth 4097 refused" any 'queue-depth' \
	"$STRIPECTL" create --queue-depth 4097 "${NV[@]:0:2}"
check_fails "--queue-depth 0 refused" any 'queue-depth' \
	"$STRIPECTL" create --queue-depth 0 "${NV[@]:0:2}"
check_eq "no array left after the refused depths" "" "$(mqs_arrays)"
mqs_finish
