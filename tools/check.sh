#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the VM selftests on each kernel.
# Prints every suite's output and ends with one line
# "N passed, N failed, N skipped" summed over all of them.
#
# Env: CHECK_KERNELS (default "6.1 6.12"; add "debug" for the debug kernel).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kernels=${CHECK_KERNELS:-6.1 6.12}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

pass=0 fail=0 skip=0 rc=0
add_counts() {
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "check: $1 printed no summary line: counted as a failure"
		fail=$((fail + 1))
		return
	fi
	# shellcheck disable=SC2086
	set -- $line
	pass=$((pass + $1))
	fail=$((fail + $3))
	skip=$((skip + $5))
}

echo "== unit tests (host)"
make -s -C tools/tests check >"$log" 2>&1 || rc=1
sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
add_counts "unit tests"

echo "== packaging: install, man page, DKMS and .deb (host and guests)"
make -s pkg-check >"$log" 2>&1 || rc=1
sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
add_counts "package tests"

echo "== benchmark harness smoke test (make bench QUICK=1 on one kernel; no speed asserted)"
sh tools/bench/smoke.sh >"$log" 2>&1 || rc=1
sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
add_counts "bench smoke"

for k in $kernels; do
	echo "== selftests on kernel $k (QEMU guest)"
	bash selftests/run.sh --kernel "$k" >"$log" 2>&1 || rc=1
	sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
	add_counts "selftests on $k"
	echo "== persistence tests on kernel $k (QEMU guests)"
	bash selftests/persist/run.sh --kernel "$k" >"$log" 2>&1 || rc=1
	sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
	add_counts "persistence tests on $k"
done

[ "$fail" -eq 0 ] || rc=1
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
