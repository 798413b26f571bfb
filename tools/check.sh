#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the VM selftests on each Debian kernel; beside them the host
# unit tests, the package tests, the persistence tests on 6.12, the boot
# tests on 6.12 and the benchmark smoke test; with
# CHECK_KERNELS naming "debug", also the debug kernel's selftests at a low
# priority (tools/suites.sh; see "The plan" below).  Prints every suite's
# output as one block when it ends, with its time, and ends with one line
# "N passed, N failed, N skipped" summed over all of them.
#
# Env: CHECK_KERNELS (default "6.1 6.12"; "6.1 6.12 debug" adds the debug
# kernel's list).  The debug kernel's guest gets almost no CPU while the
# two lanes run, so its tests run in the time make check takes after
# them: on a 2-core CI machine that is more than CI's 90 minutes allow
# (the lanes alone took 75-80 minutes on a slower machine of that kind).
# "debug" is the debug
# kernel (KASAN, lockdep, kmemleak; tools/vm/README.md): $MQS_DEBUG_KERNEL,
# ../shared/debug-kernel or build/debug-kernel.  Without one its suites
# are reported skipped (make debug-kernel builds one, about 40 min).
# CHECK_DEBUG_SUITES (default "selftests") chooses what runs on it: the
# persistence suite ("persist") runs on the Debian kernels only by default,
# to keep make check within the CI budget (selftests/README.md, "Time");
# CHECK_DEBUG_TESTS (default: a list, below; "all" for every test) limits
# the debug kernel's selftests (run.sh TEST arguments, run in that order).
# CHECK_BUDGET (seconds, default 2400; 0: none): a debug-kernel test not
# started that long after make check began is reported skipped ("not
# started: the run's time budget ended"), so that CI's deps step plus make
# check stay within 65 of its 90 minutes on a 2-core machine: the Debian
# kernels' selftests end about then, and the debug test still running
# then has the whole machine to finish.
# CHECK_PERSIST_KERNELS (default "6.12"; "6.1 6.12" adds 6.1): the kernels
# of CHECK_KERNELS the persistence suite runs on.
# CHECK_END (seconds, default 4800; 0: none): a debug-kernel test still
# running that long after make check began is killed and fails ("timed
# out at the run's hard end"): its own timeout is long, as it runs at the
# lowest priority (below), and must not carry make check past CI's limit.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
kernels=${CHECK_KERNELS:-6.1 6.12}
debug_suites=${CHECK_DEBUG_SUITES:-selftests}
# The debug kernel is 3-4x slower than the stock ones: by default it runs
# the tests of the IO path, flush, member errors, the fault injectors only
# it has (14 fail_make_request, 21 FAILSLAB, 33 the bio reserve under
# FAILSLAB), power failure, the ABI
# fuzzer, CPU hotplug, scheduler switch, stress and NOWAIT, so that make
# check stays within CI's 90 minutes; CHECK_DEBUG_TESTS=all runs every
# test there.
# Most valuable first (what only the debug kernel can run, then the IO
# path, control path and error paths): when the budget runs out, the tail
# is skipped.  On the debug kernel test_24 makes 30 rmmod/insmod cycles,
# not 100 (each takes 1.4 s there).
debug_tests=${CHECK_DEBUG_TESTS:-21 33 14 24 05 25 01 10 20 22 30 08 18 15 13 23 19}
budget=${CHECK_BUDGET:-2400}
hard_end=${CHECK_END:-4800}
[ "$debug_tests" = all ] && debug_tests=
# shellcheck source=SCRIPTDIR/suites.sh
. tools/suites.sh

pass=0 fail=0 skip=0 rc=0
check_t0=$(date +%s)
# suite_ended NAME LOG STATUS (tools/suites.sh): add the suite's counts
suite_ended() {
	local line
	[ "$3" = 0 ] || rc=1
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -n 1)
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

# The C helpers of the selftests, built once here: the suites that use
# them run at the same time.
make -s -C selftests all >/dev/null || echo "check: make -C selftests failed (the selftests report it)"

# The plan.  The host has two cores and one guest under TCG keeps them
# only about two thirds busy.  Two lanes run side by side, each suite of a
# lane after the one before it (AFTER): lane A, the VM selftests: the main boot
# of each Debian kernel, one kernel after the other, then their small
# boots; lane B beside it, the host's unit tests, the package tests, the
# persistence suites, the boot tests and the benchmark smoke test.  The
# persistence suites come after the package tests, which install on the
# host (DKMS in /lib/modules, the packages' udev rule and stripectl), as
# their reboot guest runs the host's udev rules; the selftests' guests run no udev and load the module from the
# build tree.  The debug kernel's selftests, the suite with a time budget,
# start once the package tests' builds are done and run in the SCHED_IDLE
# class (chrt --idle): they take only the cycles the lanes leave idle, and
# all of them once the lanes have ended.  (nice 15 was not enough: beside
# a nice 15 debug guest, some tests of the other guests, which wake and
# sleep all the time, took up to 1.7 times as long and their short boots
# twice as long; beside a SCHED_IDLE one their tests took their usual
# times.)  So the debug guest runs up to ten times slower than alone
# while the lanes run (test_21: 242 s alone, more than 2100 s beside
# them): its timeouts are four times longer again (MQS_DEBUG_SLOWDOWN 12,
# not 3), bounded by CHECK_END, and its boot may take up to 1500 s
# (MQS_BOOT_WAIT).
debian_kernels=
debug_kernel=0
for k in $kernels; do
	if [ "$k" = debug ]; then
		debug_kernel=1
	else
		debian_kernels="$debian_kernels $k"
	fi
done
# lane A|B NAME [--after NAME] TITLE CMD...: a suite of lane A or B, after
# the one before it in that lane (and after suite NAME too)
declare -A lane_last=([A]=- [B]=-)
lane() {
	local l=$1 name=$2 after
	shift 2
	after=${lane_last[$l]}
	if [ "$1" = --after ]; then
		[ "$after" = - ] && after=$2 || after="$after,$2"
		shift 2
	fi
	suite_add "$name" "$after" "$@"
	lane_last[$l]=$name
}

[ "$debug_kernel" = 1 ] ||
	echo "== debug kernel (KASAN, lockdep, kmemleak): not in CHECK_KERNELS (\"$kernels\"): its suite does not fit CI's time beside the lanes; CHECK_KERNELS=\"6.1 6.12 debug\" adds it, 'bash selftests/run.sh --kernel debug' runs it alone"
if [ "$debug_kernel" = 1 ]; then
	dbg=$(bash -c '. tools/vm/common.sh && mqs_debug_kernel_dir')
	what="debug ($dbg: KASAN, lockdep, kmemleak)"
	if [ ! -r "$dbg/bzImage" ]; then
		echo "== debug kernel (KASAN, lockdep, kmemleak): skipped: no debug kernel in $dbg (make debug-kernel builds one, about 40 min on 2 cores)"
		skip=$((skip + 1))
		debug_kernel=0
	fi
fi
if [ "$debug_kernel" = 1 ]; then
	dbg_env=(env MQS_DEBUG_SLOWDOWN=12 MQS_BOOT_WAIT=1500 chrt --idle 0)
	case " $debug_suites " in
	*" selftests "*)
		args=(--kernel debug)
		title="selftests on kernel $what (QEMU guest, SCHED_IDLE)"
		if [ -n "$debug_tests" ]; then
			title="$title; CHECK_DEBUG_TESTS: $debug_tests"
			args+=(--env MQS_STRESS_CYCLES=30)
			if [ "$budget" -gt 0 ]; then
				args+=(--env MQS_DEADLINE=$((check_t0 + budget)))
				title="$title; tests not started by $(date -u -d "@$((check_t0 + budget))" +%T) UTC, ${budget} s after make check began, are skipped (CHECK_BUDGET)"
			fi
			if [ "$hard_end" -gt 0 ]; then
				args+=(--env MQS_HARD_END=$((check_t0 + hard_end)))
				title="$title; a test still running at $(date -u -d "@$((check_t0 + hard_end))" +%T) UTC is killed (CHECK_END)"
			fi
			# shellcheck disable=SC2206	# a word list
			args+=($debug_tests)
		fi
		suite_add "selftests on debug" "package tests" "$title" "${dbg_env[@]}" bash selftests/run.sh "${args[@]}"
		;;
	*) echo "== selftests on kernel $what: not run (CHECK_DEBUG_SUITES=\"$debug_suites\")" ;;
	esac
fi

# Lane A: each kernel's main boot (every selftest but the three that
# need a drive setup of their own), then the four small boots of both
# kernels (selftests/run.sh --boots): a suite that can move to lane B
# when that lane is the shorter one.
kargs=()
for k in $debian_kernels; do
	lane A "selftests on $k" "selftests on kernel $k, main boot (QEMU guest)" \
		bash selftests/run.sh --kernel "$k" --boots main
	kargs+=(--kernel "$k")
done
if [ ${#kargs[@]} -gt 0 ]; then
	lane A "selftests small boots" "selftests on kernels$debian_kernels: the lbs4k, poll, hotrm and pi boots (QEMU guests)" \
		bash selftests/run.sh "${kargs[@]}" --boots lbs4k,poll,hotrm,pi
fi
# The boot tests' root image, from the start beside the lanes: on a new
# machine debootstrap and the kernel package take about 200 s, off lane B's
# path; where it is cached (outside the clone) this takes a second.  A
# failure here is the boot tests' to report: they try again and say why.
# shellcheck disable=SC2317	# run by suites_run (eval)
boot_image() {
	local img
	if img=$(bash tools/vm/mkrootimg.sh 6.12); then
		echo "# root image: $img"
	else
		echo "# no root image: the boot tests try again and report why"
	fi
	echo "0 passed, 0 failed, 0 skipped"
}
case " $debian_kernels " in
*" 6.12 "*) suite_add "boot image" - "the boot tests' root image (tools/vm/mkrootimg.sh)" boot_image ;;
esac
lane B "unit tests" "unit tests (host)" make -s -C tools/tests check
lane B "package tests" "packaging: install, man page, DKMS and .deb (host and guests)" \
	make -s pkg-check
# The persistence suite, in lane B, on 6.12 by default
# (CHECK_PERSIST_KERNELS="6.1 6.12" adds 6.1): it tests stripectl, the
# superblock, udev and reboots more than the module, whose paths the
# selftests run on both kernels.  In CI lane B took 3,726 s with it on
# 6.12 and lane A 3,813 s; on 6.1 as well it takes another 1,100 s, which
# would make lane B about 80 minutes long, too close to CI's 90.
persist_kernels=${CHECK_PERSIST_KERNELS:-6.12}
for k in $debian_kernels; do
	case " $persist_kernels " in
	*" $k "*) ;;
	*)
		echo "== persistence tests on kernel $k: not run (CHECK_PERSIST_KERNELS=\"$persist_kernels\")"
		continue
		;;
	esac
	lane B "persistence tests on $k" "persistence tests on kernel $k (QEMU guests)" \
		bash selftests/run.sh --kernel "$k" --boots persist
done
# a real boot (systemd, the image's own initramfs, the package installed)
# on 6.12: after the package tests, whose .deb it installs in the image
case " $debian_kernels " in
*" 6.12 "*)
	lane B "boot tests on 6.12" --after "boot image" \
		"boot tests on kernel 6.12 (a Debian 12 image booted with systemd, QEMU guests)" \
		bash selftests/boot/run.sh --kernel 6.12
	;;
esac
if [ "$debug_kernel" = 1 ]; then
	case " $debug_suites " in
	*" persist "*)
		lane B "persistence tests on debug" "persistence tests on kernel $what (QEMU guests)" \
			bash selftests/run.sh --kernel debug --boots persist
		;;
	*) echo "== persistence tests on kernel $what: not run (CHECK_DEBUG_SUITES=\"$debug_suites\"; the Debian kernels run it)" ;;
	esac
fi
# last in lane B (lane A, both kernels' selftests, is the longer one); its
# guest's clock is checked against the host's (bench.sh boots again when
# it is off)
lane B "bench smoke" "benchmark harness smoke test (make bench QUICK=1 on one kernel; no speed asserted)" \
	sh tools/bench/smoke.sh

suites_run 3

[ "$fail" -eq 0 ] || rc=1
echo "-- make check: $(($(date +%s) - check_t0)) s in all"
echo "$pass passed, $fail failed, $skip skipped"
exit "$rc"
