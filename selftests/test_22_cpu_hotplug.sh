#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CPU hotplug during IO: vCPUs 1-3 go offline and online
# in turn, and two at once, in rounds for MQS_HOTPLUG_SECS seconds (default
# 20, at least one round) while fio writes and verifies (crc32c) the array
# in a loop from 4 jobs.
# Catches: requests lost or hung when their hardware context's CPU goes
# away (blk-mq drains an hctx whose last CPU goes offline: a driver that
# completes on the wrong context or sleeps in the wrong place stalls it),
# corrupted data, a queue mapping that no longer covers the online CPUs.

. "$(dirname "$0")/lib.sh"
. "$MQS_DIR/lib_reliab.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
cpus=()
for c in 1 2 3; do
	[ -w "/sys/devices/system/cpu/cpu$c/online" ] && cpus+=("$c")
done
[ ${#cpus[@]} -ge 1 ] || mqs_skip "no hot-pluggable CPU (cpu1..3/online missing)"
secs=${MQS_HOTPLUG_SECS:-20}

doff=$((($(blk_bytes "${NV[0]}") >> 20) - 4))
mqs_must_create --chunk 64K --data-offset "${doff}M" "${NV[@]:0:4}"
DEV=$MQS_DEV
size=$(blk_bytes "$DEV")
diag "$DEV: $size bytes; hot-plugging CPUs ${cpus[*]} for $secs s"

mark=$(klog_mark "test_22 hotplug start")
rel_fio_loop_start "$DEV" 0 "$size"
sleep 1
offline_fail=0
online_fail=0
transitions=0
start=$SECONDS
rounds=0
while [ $rounds -eq 0 ] || [ $((SECONDS - start)) -lt "$secs" ]; do
	rounds=$((rounds + 1))
	for c in "${cpus[@]}"; do
		rel_fio_running || break 2
		f=/sys/devices/system/cpu/cpu$c/online
		if echo 0 >"$f"; then transitions=$((transitions + 1)); else offline_fail=$((offline_fail + 1)); fi
		sleep 0.3
		if echo 1 >"$f"; then transitions=$((transitions + 1)); else online_fail=$((online_fail + 1)); fi
		sleep 0.2
	done
	# two CPUs away at once: more contexts lose their CPU together
	if [ ${#cpus[@]} -ge 2 ] && rel_fio_running; then
		echo 0 >"/sys/devices/system/cpu/cpu${cpus[0]}/online" &&
			echo 0 >"/sys/devices/system/cpu/cpu${cpus[1]}/online" &&
			transitions=$((transitions + 2))
		sleep 0.3
		echo 1 >"/sys/devices/system/cpu/cpu${cpus[0]}/online" || online_fail=$((online_fail + 1))
		echo 1 >"/sys/devices/system/cpu/cpu${cpus[1]}/online" || online_fail=$((online_fail + 1))
	fi
done
diag "$transitions CPU offline/online transitions in $rounds rounds, $((SECONDS - start)) s, fio passes so far: $(rel_fio_passes)"
check_num -eq "every CPU went offline when asked" 0 "$offline_fail"
check_num -eq "every CPU came back online" 0 "$online_fail"
check_num -ge "hotplug transitions during IO (at least one round)" $((${#cpus[@]} * 2)) "$transitions"
rel_fio_loop_stop "fio write+verify during hotplug" 120
check_num -ge "at least one full fio pass overlapped the hotplug" 1 "$(rel_fio_passes)"

# every online CPU is mapped to exactly one hardware context
online=$(cat /sys/devices/system/cpu/online)
mapped=$(cat "$MQS_SYS"/mq/*/cpu_list | tr ',' '\n' | tr -d ' ' | grep -v '^$' | sort -n | tr '\n' ' ')
expand() {
	local part
	for part in ${1//,/ }; do
		if [[ $part == *-* ]]; then
			seq "${part%-*}" "${part#*-}"
		else
			echo "$part"
		fi
	done | sort -n | tr '\n' ' '
}
check_eq "all CPUs online again" "$(expand "0-$(($(nproc --all) - 1))")" "$(expand "$online")"
missing=
for c in $(expand "$online"); do
	n=$(grep -o -w "$c" <<<"$mapped" | wc -l)
	[ "$n" -eq 1 ] || missing+="cpu$c:$n "
done
check_eq "each online CPU in exactly one hctx cpu_list" "" "$missing"
diag "hctx cpu_lists: $(for h in "$MQS_SYS"/mq/*; do echo -n "$(basename "$h")=$(cat "$h/cpu_list") "; done)"
# the data is still right after the last pass, read again
args=$(rel_fio_args "$DEV" 0 "$size" final)
# shellcheck disable=SC2086
check_cmd "fio verify-only of the last pass after hotplug" fio $args --verify_only
check_klog "no kernel warning during hotplug" "$mark"
check_stop "$DEV"
mqs_finish
