#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_guest.sh TEST... - run persistence tests inside a test guest
#
# Loads the module, runs the given tests (file names in this directory) in
# order and prints KTAP, one line per test ("selftests: mqstripe-persist:
# NAME"), each test's own output indented with "# ".  Each test gets
# MQS_TIMEOUT seconds (default 600).  After each test the kernel log
# written since it started is scanned (WARNING, BUG, Oops, hung tasks, RCU
# stalls, UBSAN, KASAN, leaks; selftests/kmsg.py): a hit fails it, and so
# do arrays it left behind (they are stopped).

# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=SCRIPTDIR/../guest_lib.sh
. "$PERSIST_SELF/../guest_lib.sh"

timeout_s=${MQS_TIMEOUT:-600}

ktap_header
ktap_plan $#
if [ "${MQS_GUEST:-0}" != 1 ]; then
	i=0
	for t in "$@"; do
		i=$((i + 1))
		ktap_skip $i "selftests: mqstripe-persist: $t" "not in a test guest (MQS_GUEST!=1)"
	done
	exit 0
fi

sysctl -q kernel.hung_task_timeout_secs=240 2>/dev/null
diag "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), timeout ${timeout_s}s per test"
for d in $(nvme_disks); do
	diag "$d: serial $(serial "$d"), logical block $(qattr "$d" logical_block_size)"
done
modmsg=$(mqs_load_module 2>&1)
mod_ok=$?
[ $mod_ok = 0 ] || diag "cannot load $MQS_MODULE: $modmsg"

leftovers() {
	local what d
	what=$(leftover_mounts_arrays '^/dev/mqstripe')
	for d in /sys/block/md[0-9]*; do
		[ -e "$d" ] || continue
		what+="md $(basename "$d"); "
		mdadm --stop "/dev/$(basename "$d")" >/dev/null 2>&1
	done
	echo "$what"
}

npass=0
nfail=0
nskip=0
i=0
for t in "$@"; do
	i=$((i + 1))
	name="selftests: mqstripe-persist: $t"
	echo "# $name"
	if [ $mod_ok != 0 ]; then
		ktap_not_ok $i "$name # module not loaded"
		nfail=$((nfail + 1))
		continue
	fi
	mqs_load_module >/dev/null 2>&1
	mark=$(klog_mark "start persist $t")
	start=$(date +%s)
	log=$(mktemp /tmp/mqs-plog.XXXXXX)
	MQS_TEST=${t%.sh} timeout -k 10 "$timeout_s" setsid bash "$PERSIST_SELF/$t" </dev/null 2>&1 |
		tee "$log" | sed -u 's/^/# /'
	rc=${PIPESTATUS[0]}
	took=$(($(date +%s) - start))
	reasons=()
	[ "$rc" = 124 ] && reasons+=("timed out after ${timeout_s}s")
	left=$(leftovers)
	[ -n "$left" ] && reasons+=("left behind: $left")
	klog_reason "$mark"
	[ ${#reasons[@]} -gt 0 ] && rc=1
	rtxt=$(IFS=';'; echo "${reasons[*]}")
	test_result $i "$name" "$rc" "$took" "$log" "exit $rc${rtxt:+; $rtxt}"
done
echo "# totals: pass:$npass fail:$nfail skip:$nskip"
[ $nfail -eq 0 ]
