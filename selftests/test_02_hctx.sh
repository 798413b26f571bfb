#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hctx mapping: one hardware context per possible CPU, each serving exactly
# one CPU, all CPUs covered; queue depth default 128 and settable.
# Catches: a single hw queue, a queue count from online instead of possible
# CPUs, several CPUs mapped to one hctx, the depth option ignored.

. "$(dirname "$0")/lib.sh"
mqs_init

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
	check_eq "hctx $h nr_tags = default queue depth 128" 128 "$(cat "$d/nr_tags" 2>&1)"
done
check_eq "every possible CPU has its own hctx" "${cpus[*]}" \
	"$(printf '%s\n' "${seen[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//')"
check_stop "$MQS_DEV"

mqs_must_create --chunk 64K --queue-depth 64 "${NV[@]:0:2}"
check_eq "--queue-depth 64: nr_tags of hctx 0" 64 "$(cat "$MQS_SYS/mq/0/nr_tags" 2>&1)"
check_eq "--queue-depth 64: still one hctx per CPU" "$ncpu" \
	"$(find "$MQS_SYS/mq" -mindepth 1 -maxdepth 1 -type d | wc -l)"
check_stop "$MQS_DEV"

mqs_must_create --chunk 64K --queue-depth 4096 "${NV[@]:0:2}"
check_eq "--queue-depth 4096 (the maximum): nr_tags" 4096 "$(cat "$MQS_SYS/mq/0/nr_tags" 2>&1)"
check_stop "$MQS_DEV"
check_fails "--queue-depth 4097 refused" any 'queue-depth' \
	"$STRIPECTL" create --queue-depth 4097 "${NV[@]:0:2}"
check_fails "--queue-depth 0 refused" any 'queue-depth' \
	"$STRIPECTL" create --queue-depth 0 "${NV[@]:0:2}"
check_eq "no array left after the refused depths" "" "$(mqs_arrays)"
mqs_finish
