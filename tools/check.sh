#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make check: host unit tests, then the VM selftests on each kernel.
# Prints every suite's output and ends with one line
# "N passed, N failed, N skipped" summed over all of them.
#
# Env: CHECK_KERNELS (default "6.1 6.12 debug").  "debug" is the debug
# kernel (KASAN, lockdep, kmemleak; tools/vm/README.md): $MQS_DEBUG_KERNEL,
# ../shared/debug-kernel or build/debug-kernel.  Without one its suites
# are reported skipped (make debug-kernel builds one, about 40 min).
# CHECK_DEBUG_SUITES (default "selftests") chooses what runs on it: the
# persistence suite ("persist") runs on the Debian kernels only by default,
# to keep make check within the CI budget (README.md, "Reliability");
# CHECK_DEBUG_TESTS (default: a list, below; "all" for every test) limits
# the debug kernel's selftests (run.sh TEST arguments, run in that order).
# CHECK_BUDGET (seconds, default 4300; 0: none): a debug-kernel test not
# started that long after make check began is reported skipped ("not
# started: the run's time budget ended"), so that CI's deps step plus make
# check stay within its 90 minutes on a slow machine.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kernels=${CHECK_KERNELS:-6.1 6.12 debug}
debug_suites=${CHECK_DEBUG_SUITES:-selftests}
# The debug kernel is 3-4x slower than the stock ones: by default it runs
# the tests of the IO path, flush, member errors, the fault injectors only
# it has (14 fail_make_request, 21 FAILSLAB), power failure, the ABI
# fuzzer, CPU hotplug, scheduler switch, stress and NOWAIT, so that make
# check stays within CI's 90 minutes; CHECK_DEBUG_TESTS=all runs every
# test there.
# Most valuable first (what only the debug kernel can run, then the IO
# path, control path and error paths): when the budget runs out, the tail
# is skipped.  On the debug kernel test_24 makes 30 rmmod/insmod cycles,
# not 100 (each takes 1.4 s there).
debug_tests=${CHECK_DEBUG_TESTS:-21 14 24 05 01 10 20 22 30 08 18 15 13 23}
budget=${CHECK_BUDGET:-4300}
[ "$debug_tests" = all ] && debug_tests=
log=$(mktemp)
trap 'rm -f "$log"' EXIT

pass=0 fail=0 skip=0 rc=0
check_t0=$(date +%s)
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

# suite NAME COMMAND...: run one suite, show its output and time, add its
# counts
suite() {
	name=$1
	shift
	t0=$(date +%s)
	"$@" >"$log" 2>&1 || rc=1
	sed -e '$!b' -e '/^[0-9]* passed, /d' "$log"
	echo "-- $name: $(($(date +%s) - t0)) s"
	add_counts "$name"
}

echo "== unit tests (host)"
suite "unit tests" make -s -C tools/tests check

echo "== packaging: install, man page, DKMS and .deb (host and guests)"
suite "package tests" make -s pkg-check

echo "== benchmark harness smoke test (make bench QUICK=1 on one kernel; no speed asserted)"
suite "bench smoke" sh tools/bench/smoke.sh

for k in $kernels; do
	what=$k
	if [ "$k" = debug ]; then
		dbg=$(bash -c '. tools/vm/common.sh && mqs_debug_kernel_dir')
		if [ ! -r "$dbg/bzImage" ]; then
			echo "== debug kernel (KASAN, lockdep, kmemleak): skipped: no debug kernel in $dbg (make debug-kernel builds one, about 40 min on 2 cores)"
			skip=$((skip + 1))
			continue
		fi
		what="debug ($dbg: KASAN, lockdep, kmemleak)"
	fi
	for s in selftests persist; do
		if [ "$k" = debug ]; then
			case " $debug_suites " in
			*" $s "*) ;;
			*)
				echo "== $([ "$s" = persist ] && echo "persistence tests" || echo "$s") on kernel $what: not run (CHECK_DEBUG_SUITES=\"$debug_suites\"; the Debian kernels run it)"
				continue
				;;
			esac
		fi
		case $s in
		selftests)
			echo "== selftests on kernel $what (QEMU guest)"
			if [ "$k" = debug ] && [ -n "$debug_tests" ]; then
				echo "   (CHECK_DEBUG_TESTS: $debug_tests)"
				denv="--env MQS_STRESS_CYCLES=30"
				if [ "$budget" -gt 0 ]; then
					denv="$denv --env MQS_DEADLINE=$((check_t0 + budget))"
					echo "   (tests not started by $(date -u -d "@$((check_t0 + budget))" +%T) UTC, ${budget} s after make check began, are skipped: CHECK_BUDGET)"
				fi
				# shellcheck disable=SC2086	# word lists
				suite "selftests on $k" bash selftests/run.sh --kernel "$k" $denv $debug_tests
			else
				suite "selftests on $k" bash selftests/run.sh --kernel "$k"
			fi
			;;
		persist)
			echo "== persistence tests on kernel $what (QEMU guests)"
			suite "persistence tests on $k" bash selftests/persist/run.sh --kernel "$k"
			;;
		esac
	done
done

[ "$fail" -eq 0 ] || rc=1
echo "-- make check: $(($(date +%s) - check_t0)) s in all"
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
