#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the reliability tests (test_2x): verified IO that runs
# in the background while a test disturbs the array.  Sourced after lib.sh.

# shellcheck disable=SC2034,SC2317	# used by the sourcing scripts

# rel_fio_args DEV OFFSET SIZE NAME: one fio write+verify pass (crc32c,
# verify_fatal) over SIZE bytes at OFFSET, random 4k..256k direct writes
# from 4 jobs at depth 8, each over its own quarter.
rel_fio_args() {
	local dev=$1 off=$2 size=$3 name=$4 q
	q=$((size / 4 / 65536 * 65536))
	echo "--name=$name --filename=$dev --ioengine=libaio --direct=1 --iodepth=8" \
		"--rw=randwrite --bsrange=4k-256k --blockalign=4k --numjobs=4" \
		"--offset=$off --size=$q --offset_increment=$q --verify=crc32c" \
		"--do_verify=1 --verify_fatal=1 --verify_dump=0 --group_reporting"
}

# rel_fio_loop_start DEV OFFSET SIZE: write+verify passes in the background
# until rel_fio_loop_stop; each pass must succeed.  Sets REL_FIO_PID.
REL_FIO_PID=
rel_fio_loop_start() {
	local args
	args=$(rel_fio_args "$@" relfio)
	rm -f "$MQS_TMP/relfio.stop" "$MQS_TMP/relfio.res"
	(
		n=0
		while [ ! -e "$MQS_TMP/relfio.stop" ]; do
			# shellcheck disable=SC2086	# args is a word list
			if ! fio $args >"$MQS_TMP/relfio.out" 2>&1; then
				cp "$MQS_TMP/relfio.out" "$MQS_TMP/relfio.fail"
				echo "fail $n" >"$MQS_TMP/relfio.res"
				exit 1
			fi
			n=$((n + 1))
			echo "pass $n" >"$MQS_TMP/relfio.res"
		done
	) &
	REL_FIO_PID=$!
	MQS_BG+=("$REL_FIO_PID")
}

# rel_fio_passes: the number of passes finished so far
rel_fio_passes() {
	local r n
	read -r r n <"$MQS_TMP/relfio.res" 2>/dev/null || { echo 0; return; }
	[ "$r" = pass ] && echo "$n" || echo 0
}

# rel_fio_running: the loop has not stopped or failed
rel_fio_running() { kill -0 "$REL_FIO_PID" 2>/dev/null; }

# rel_fio_loop_stop DESC TIMEOUT: let the running pass finish; a check that
# every pass passed and the last one ended within TIMEOUT seconds.
rel_fio_loop_stop() {
	local desc=$1 t=$2 i res
	touch "$MQS_TMP/relfio.stop"
	for ((i = 0; i < t * 5; i++)); do
		rel_fio_running || break
		sleep 0.2
	done
	if rel_fio_running; then
		fail "$desc" "fio still running ${t} s after the stop (stalled IO?)" \
			"$(cat /proc/"$REL_FIO_PID"/task/*/stack 2>/dev/null | head -20)"
		return 1
	fi
	wait "$REL_FIO_PID" 2>/dev/null
	res=$(cat "$MQS_TMP/relfio.res" 2>/dev/null)
	if [[ $res == pass* ]]; then
		pass "$desc (${res#pass } write+verify passes)"
		return 0
	fi
	fail "$desc" "result: ${res:-none}" "$(tail -n 25 "$MQS_TMP/relfio.fail" 2>/dev/null)"
	return 1
}
