#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_guest.sh [TEST...] - run selftests inside a test guest
#
# Loads the module, runs the given tests (names like test_03_limits.sh,
# test_03_limits or 03, persist/test_11_reboot or persist/11; default: all
# but persist/) in order and prints KTAP, one line per test, each test's
# own output indented with "# ".  A test gets the
# time budget its header gives ("# mqs-timeout: SEC", header.sh), else
# the timeout= of ./settings (kselftest style); MQS_TIMEOUT overrides
# both; times MQS_TIMEOUT_SCALE, which run.sh sets to 3 on the debug
# kernel.  A test that exceeds it is killed and fails.  After each test
# the kernel log written since the test started is scanned (WARNING, BUG,
# Oops, hung tasks, RCU stalls, UBSAN, KASAN, lockdep, leaks): any hit fails
# it, and so do arrays or dm devices it left behind (they are removed).
# With MQS_DEADLINE (epoch seconds) set, a test not started by then is
# reported skipped ("not started: the run's time budget ended"); with
# MQS_HARD_END (epoch seconds) set, a test still running then is killed
# and fails ("timed out at the run's hard end"), whatever its timeout.
# On a kernel with kmemleak (the debug kernel), after the last test the
# module is unloaded and kmemleak scans the whole run, reported as one more
# result, kmemleak_final_scan: an unreferenced object fails it when it was
# allocated after the module was first loaded or when its report names
# mqstripe; the reason names the tests during which they were allocated
# (see kmsg.py leaks).
# Ends with "# totals: pass:N fail:N skip:N"; exit 1 if any test failed.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/guest_lib.sh"
. "$(dirname "$0")/header.sh"

# The whole script is one compound command: bash parses it completely
# before running, so editing the file during a run cannot break the run.
{
# the per-test time budgets (header.sh test_timeout) are multiplied by
# MQS_TIMEOUT_SCALE: run.sh sets 3 on the debug kernel
scale=${MQS_TIMEOUT_SCALE:-1}

tests=()
if [ $# -eq 0 ]; then
	for t in "$MQS_DIR"/test_[0-9][0-9]_*.sh; do tests+=("${t##*/}"); done
else
	for a in "$@"; do
		a=${a%.sh}
		dir=
		[[ $a == */* ]] && dir=${a%/*}/ && a=${a##*/}
		[[ $a =~ ^[0-9]+$ ]] && a=$(printf 'test_%02d_' "$((10#$a))")
		m=
		for f in "$MQS_DIR/$dir"test_[0-9][0-9]_*.sh; do
			f=$dir${f##*/}
			if [[ $f == "$dir$a".sh || $f == "$dir$a"* ]]; then
				m=$f
				break
			fi
		done
		if [ -z "$m" ]; then
			echo "run_guest.sh: no test matches '$a'" >&2
			exit 2
		fi
		tests+=("$m")
	done
fi

kmemleak=/sys/kernel/debug/kmemleak
[ -e "$kmemleak" ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
final_scan=0
[ "${MQS_GUEST:-0}" = 1 ] && [ -w "$kmemleak" ] && final_scan=1

ktap_header
ktap_plan $((${#tests[@]} + final_scan))
if [ "${MQS_GUEST:-0}" != 1 ]; then
	i=0
	for t in "${tests[@]}"; do
		i=$((i + 1))
		ktap_skip $i "selftests: mqstripe: $t" "not in a test guest (MQS_GUEST!=1)"
	done
	echo "# totals: pass:0 fail:0 skip:${#tests[@]}"
	exit 0
fi

# Debian's guests: raise the hung-task timeout and printk so that slow TCG
# emulation does not cause noise, and keep tests from writing the console.
sysctl -q kernel.hung_task_timeout_secs=240 2>/dev/null
diag "kernel $(uname -r), $(nproc) CPUs, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), time budget per test: settings' $(MQS_TIMEOUT='' test_timeout /dev/null "$MQS_DIR/settings") s or its header's (mqs-timeout)${MQS_TIMEOUT:+; MQS_TIMEOUT=$MQS_TIMEOUT over both}, times $scale"
diag "NVMe: $(nvme_disks | tr '\n' ' ') virtio: $(virtio_disks | tr '\n' ' ')"

kmsg() { "$PYTHON" -S "$MQS_DIR/kmsg.py" "$@"; }
# kmemleak: objects allocated from here on are the run's (the jiffies of the
# start; boot's own reports come before and do not count).  One scan after
# all the tests, not one per test: kmemleak reports an object only when two
# scans in a row found it unreferenced and unchanged, and at least 5 s old,
# so a test's leak would only show in the next test's scan, and two scans
# per test cost minutes under TCG.  Each test's start is recorded instead,
# and the final scan names the test during which each leaked object was
# allocated.
leak_marks=()
if [ $final_scan = 1 ]; then
	diag "kmemleak: a scan after the tests, after rmmod (kmemleak_final_scan)"
	run_jiffies=$(kmsg jiffies)
fi
# lockdep: on when debug_locks is 1; any report (or a taint that makes it
# unreliable, e.g. KASAN) turns it off for the rest of the boot
lockdep_on() { grep -Eq '^ *debug_locks: *1$' /proc/lockdep_stats 2>/dev/null; }
if [ -r /proc/lockdep_stats ] && ! lockdep_on; then
	diag "WARNING: lockdep is already off (taint $(cat /proc/sys/kernel/tainted)): no lock checking in this run"
fi

# The first child cgroup enables static keys (the memory controller's
# kmem accounting: a jump label in every kmalloc), and code patching
# while other vCPUs run that code has hung TCG guests (both vCPUs spun in
# __kmem_cache_alloc_node for ever, seen in test_26 on 6.1).  Make that
# first child now, before any test starts processes, with the io
# controller test_26 enables; a later mkdir patches nothing.
cg=/sys/fs/cgroup
if [ -w "$cg/cgroup.subtree_control" ]; then
	io_on=0
	grep -qw io "$cg/cgroup.subtree_control" && io_on=1
	echo +io >"$cg/cgroup.subtree_control" 2>/dev/null
	mkdir "$cg/mqs-first" 2>/dev/null && rmdir "$cg/mqs-first"
	[ $io_on = 1 ] || echo -io >"$cg/cgroup.subtree_control" 2>/dev/null
fi

mod_ok=1
modmsg=
if ! modmsg=$(mqs_load_module 2>&1); then
	mod_ok=0
	diag "cannot load $MQS_MODULE: $modmsg"
fi


# remove what a killed test may have left: mounts on arrays, arrays, dm,
# loop devices, md arrays (persist/test_03_force makes one)
leftovers() {
	local what d
	what=$(leftover_mounts_arrays '^/dev/mqstripe|^/dev/mapper/mqst-|mqs-tmpfs')
	for d in $(dmsetup ls 2>/dev/null | awk '$1 ~ /^mqst-/ { print $1 }'); do
		what+="dm $d; "
		dmsetup remove --noudevsync --retry "$d" >/dev/null 2>&1
	done
	for d in $(losetup -n -O NAME,BACK-FILE 2>/dev/null | awk '$2 ~ /^\/tmp\/mqs-/ { print $1 }'); do
		what+="loop $d; "
		losetup -d "$d"
	done
	for d in /sys/block/md[0-9]*; do
		[ -e "$d" ] || continue
		what+="md ${d##*/}; "
		mdadm --stop "/dev/${d##*/}" >/dev/null 2>&1
	done
	echo "$what"
}

# gone_within PID N SECONDS: wait up to N x SECONDS for PID to exit
# (kill -0, so it works for processes that are not our children and does
# not block on one stuck in D state as wait would); false if still there.
gone_within() {
	local _
	for _ in $(seq "$2"); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep "$3"
	done
	! kill -0 "$1" 2>/dev/null
}

# leftovers (into $left), but a cleanup that blocks in the kernel (an
# umount or a stop of an array whose IO never completes) does not hold the
# guest until its timeout: after 120 s it is reported, with the blocked
# tasks, and later tests of the boot are not run (wedged).
wedged=
bounded_leftovers() {
	local f p
	f=$(mktemp /tmp/mqs-left.XXXXXX)
	leftovers >"$f" 2>&1 </dev/null &
	p=$!
	if ! gone_within "$p" 600 0.2; then
		show_blocked
		left="cleanup (umount, stripectl stop) still blocked after 120 s"
		wedged=1
	else
		left=$(cat "$f")
	fi
	rm -f "$f"
}

# show_blocked: the kernel's stacks of blocked (D state) tasks
# (sysrq w), as diagnostics on the console: a test that hangs says where.
show_blocked() {
	local m
	m=$(klog_mark "blocked tasks")
	echo w >/proc/sysrq-trigger 2>/dev/null || return 0
	sleep 1
	diag "blocked tasks (sysrq w):"
	klog_since "$m" | head -n 200 | sed 's/^/#   /'
}

# taint bit 7 (D): an oops or BUG killed a task; later tests would only
# hang on its leftovers, so they are reported as failed without running
died() {
	local taint
	read -r taint </proc/sys/kernel/tainted
	[ $((taint & 128)) -ne 0 ]
}
died_in=
died && died_in="the kernel oopsed before the tests"

[ -z "${MQS_DEADLINE:-}" ] || deadline_utc=$(date -u -d "@$MQS_DEADLINE" +%T)
npass=0
nfail=0
nskip=0
i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	name="selftests: mqstripe: $t"
	echo "# $name"
	if [ $mod_ok = 0 ]; then
		ktap_not_ok $i "$name # module not loaded: $modmsg"
		nfail=$((nfail + 1))
		continue
	fi
	if [ -n "$died_in" ]; then
		ktap_not_ok $i "$name # not run: $died_in"
		nfail=$((nfail + 1))
		continue
	fi
	# MQS_DEADLINE (epoch seconds, make check's CHECK_BUDGET): a test not
	# started by then is skipped, said so, so that the run ends in time
	if [ -n "${MQS_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$MQS_DEADLINE" ]; then
		ktap_skip $i "$name" "not started: the run's time budget ended at $deadline_utc UTC (MQS_DEADLINE, make check's CHECK_BUDGET)"
		nskip=$((nskip + 1))
		continue
	fi
	mqs_load_module >/dev/null 2>&1 || diag "module reload failed before $t"
	lockdep_was_on=0
	lockdep_on && lockdep_was_on=1
	mark=$(klog_mark "start $t")
	[ $final_scan = 0 ] || leak_marks+=("$(kmsg jiffies)=$t")
	start=$(date +%s)
	# MQS_HARD_END (make check's CHECK_END): no test runs past it
	timeout_s=$(($(test_timeout "$MQS_DIR/$t" "$MQS_DIR/settings") * scale))
	limit=$timeout_s
	why="timed out after ${timeout_s}s"
	if [ -n "${MQS_HARD_END:-}" ] && [ $((MQS_HARD_END - start)) -lt "$limit" ]; then
		limit=$((MQS_HARD_END - start))
		why="timed out at the run's hard end, $(date -u -d "@$MQS_HARD_END" +%T) UTC (MQS_HARD_END, make check's CHECK_END), after $((limit < 0 ? 0 : limit))s of its ${timeout_s}s"
	fi
	fifo=$(mktemp -u /tmp/mqs-fifo.XXXXXX)
	mkfifo "$fifo"
	log=$(mktemp /tmp/mqs-log.XXXXXX)
	awk -v lf="$log" '{ print "# " $0; fflush(); print > lf; fflush(lf) }' <"$fifo" &
	sedpid=$!
	MQS_TEST=$(basename "$t" .sh) setsid bash "$MQS_DIR/$t" >"$fifo" 2>&1 </dev/null &
	tpid=$!
	rc=
	timed_out=0
	oops_at=
	while :; do
		if ! kill -0 "$tpid" 2>/dev/null; then
			wait "$tpid"
			rc=$?
			break
		fi
		# an oops leaves the test stuck: give it 20 s, not the full timeout
		if [ -z "$oops_at" ] && died; then
			oops_at=$(date +%s)
		fi
		if [ $(($(date +%s) - start)) -ge "$limit" ] ||
			{ [ -n "$oops_at" ] && [ $(($(date +%s) - oops_at)) -ge 20 ]; }; then
			timed_out=1
			[ -n "$oops_at" ] || show_blocked
			kill -TERM -- "-$tpid" 2>/dev/null
			gone_within "$tpid" 20 0.5
			kill -KILL -- "-$tpid" 2>/dev/null
			gone_within "$tpid" 20 0.5
			rc=124
			break
		fi
		sleep 0.2
	done
	# the reader ends when every writer has closed the fifo; a process
	# stuck in D state may keep it open: do not wait for it forever
	gone_within "$sedpid" 25 0.2
	kill "$sedpid" 2>/dev/null
	wait "$sedpid" 2>/dev/null
	rm -f "$fifo"
	ended=$(date +%s)
	took=$((ended - start))

	reasons=()
	if [ $timed_out = 1 ] && [ -n "$oops_at" ]; then
		reasons+=("killed 20 s after a kernel oops")
	elif [ $timed_out = 1 ]; then
		reasons+=("$why")
	fi
	left=
	died || bounded_leftovers	# after an oops, umount and stop may hang
	if [ -n "$left" ]; then
		diag "left behind: $left"
		reasons+=("left behind: $left")
	fi
	klog_reason "$mark"
	if [ $lockdep_was_on = 1 ] && ! lockdep_on; then
		reasons+=("lockdep turned itself off during the test")
	fi
	if died; then
		died_in="the kernel oopsed in $t"
		reasons+=("kernel oops (taint D)")
	elif [ -n "$wedged" ]; then
		died_in="the cleanup after $t blocks in the kernel"
	fi
	failwhy="exit code $rc"
	if [ ${#reasons[@]} -gt 0 ]; then
		rc=1
		failwhy=$(IFS=';'; echo "${reasons[*]}")
	fi
	test_result $i "$name" "$rc" "$took" "$log" "$failwhy"
done

# The whole run: unload the module (what it did not free on exit is no
# longer referenced from its data), then one more scan.  Objects allocated
# before the module was first loaded (boot; the debug kernel's known
# early-boot reports) do not count, unless they name mqstripe.
if [ $final_scan = 1 ]; then
	i=$((i + 1))
	name="selftests: mqstripe: kmemleak_final_scan"
	echo "# $name"
	reasons=()
	if [ -n "$died_in" ]; then
		reasons+=("not run: $died_in")
	else
		left=$(leftovers)
		[ -z "$left" ] || reasons+=("left behind: $left")
		if mqs_module_loaded && ! rmmod mqstripe 2>/dev/null; then
			reasons+=("rmmod mqstripe failed after the tests: $(cat /sys/module/mqstripe/refcnt 2>/dev/null) references")
		fi
		# at least 5 s old, and unchanged over two scans
		sleep 6
		t0=$(date +%s)
		echo scan >"$kmemleak"
		echo scan >"$kmemleak"
		diag "kmemleak: two scans in $(($(date +%s) - t0)) s"
		if ! leaks=$(kmsg leaks "$run_jiffies" "$kmemleak" "${leak_marks[@]}"); then
			diag "kmemleak: unreferenced objects of the run:"
			diag "$leaks"
			reasons+=("kmemleak: $(tail -n 1 <<<"$leaks")")
		else
			diag "kmemleak: no unreferenced object of the run ${leaks:+($leaks)}"
		fi
	fi
	if [ ${#reasons[@]} -gt 0 ]; then
		ktap_not_ok $i "$name # $(IFS=';'; echo "${reasons[*]}")"
		nfail=$((nfail + 1))
	else
		ktap_ok $i "$name"
		npass=$((npass + 1))
	fi
fi
echo "# totals: pass:$npass fail:$nfail skip:$nskip"
[ $nfail -eq 0 ]
exit
}
