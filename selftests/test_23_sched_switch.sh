#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# IO scheduler switch during IO: the array's scheduler
# cycles through none, mq-deadline, kyber and bfq (those the kernel offers
# after modprobe) for MQS_SCHED_SECS seconds (default 20, at least one
# round) while fio writes and verifies (crc32c) the array in a loop from 4
# jobs.
# Catches: requests lost or hung while blk-mq freezes the queue and swaps
# the elevator (a driver that completes a request twice, keeps a request
# past the freeze or depends on the scheduler tags), a switch refused or
# silently not taken, corrupted data.

. "$(dirname "$0")/lib.sh"
. "$MQS_DIR/lib_reliab.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
secs=${MQS_SCHED_SECS:-20}
for m in mq-deadline kyber-iosched bfq; do
	modprobe -q "$m" 2>/dev/null
done

doff=$((($(blk_bytes "${NV[0]}") >> 20) - 4))
mqs_must_create --chunk 64K --data-offset "${doff}M" "${NV[@]:0:4}"
DEV=$MQS_DEV
size=$(blk_bytes "$DEV")
SCHED=$MQS_SYS/queue/scheduler
offered=$(tr -d '[]' <"$SCHED")
wanted=(none mq-deadline kyber bfq)
scheds=()
for s in "${wanted[@]}"; do
	[[ " $offered " == *" $s "* ]] && scheds+=("$s")
done
diag "$DEV: $size bytes; schedulers offered: $offered; cycling: ${scheds[*]}"
# none and mq-deadline are in every kernel the tests run on (kyber too,
# as a module or built in); bfq is cycled when present
check_eq "none, mq-deadline and kyber offered" "none mq-deadline kyber" \
	"$(for s in none mq-deadline kyber; do [[ " $offered " == *" $s "* ]] && echo -n "$s "; done | sed 's/ $//')"
[[ " ${scheds[*]} " == *" bfq "* ]] || diag "bfq not offered by this kernel: not cycled"

current() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$SCHED"; }
mark=$(klog_mark "test_23 scheduler switching start")
rel_fio_loop_start "$DEV" 0 "$size"
sleep 1
switched=0
wrong=()
start=$SECONDS
rounds=0
while [ $rounds -eq 0 ] || [ $((SECONDS - start)) -lt "$secs" ]; do
	rounds=$((rounds + 1))
	for s in "${scheds[@]}"; do
		rel_fio_running || break 2
		if ! echo "$s" >"$SCHED"; then
			wrong+=("write $s failed")
			continue
		fi
		got=$(current)
		if [ "$got" = "$s" ]; then
			switched=$((switched + 1))
		else
			wrong+=("$s: scheduler shows $got")
		fi
		sleep 0.5
	done
done
diag "$switched switches in $rounds rounds, $((SECONDS - start)) s, fio passes so far: $(rel_fio_passes)"
check_eq "every switch took effect" "" "${wrong[*]}"
check_num -ge "switches during IO (at least one round)" "${#scheds[@]}" "$switched"
rel_fio_loop_stop "fio write+verify during scheduler switches" 120
check_num -ge "at least one full fio pass overlapped the switching" 1 "$(rel_fio_passes)"
# IO still flows through each scheduler after the storm: one short verified
# pass per scheduler
for s in "${scheds[@]}"; do
	echo "$s" >"$SCHED"
	args=$(rel_fio_args "$DEV" 0 $((size / 2)) "after-$s")
	# shellcheck disable=SC2086
	check_cmd "fio write+verify with $s after the switching" fio $args
done
echo none >"$SCHED"
check_klog "no kernel warning during scheduler switches" "$mark"
check_stop "$DEV"
mqs_finish
