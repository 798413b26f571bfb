#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-kernels: debug
#
# Allocation failure, on kernels with FAILSLAB (the debug
# kernel; Debian's stock kernels have no fault injection: skipped there).
# FAILSLAB with task-filter=Y fails slab allocations of stripectl's CREATE
# ioctl only (the mqs_failshim.so LD_PRELOAD shim marks the thread with
# /proc/thread-self/make-it-fail around the ioctl, so exec and start-up do
# not fail first):
#  - a systematic walk: the N-th fault point of the create fails (fail-nth)
#    for N = 1, 2, 3, 4, 16, 64, ... (times four) until the create has
#    fewer points;
#  - random: probabilities 2, 5, 10, 25, 50 % (MQS_FAILSLAB_ITERS runs,
#    default 5).
# Every create either fails cleanly (one error message, no /sys/block/
# mqstripe*, members claimable with O_EXCL, no holders links) or yields a
# working array (nr_requests at most the --queue-depth asked for: blk-mq
# may settle for less) that passes a pattern write/verify.  The creates
# ask for a queue depth of 64: the default (the members' depths summed,
# 4092 here) makes a create thousands of fault points long and the walk
# ten times slower on the debug kernel, through the same allocation loops.
# Then IO with FAILSLAB on
# the IO-issuing thread (mqs_failio, probability 25 %): every write
# completes (member bios come from a mempool) and verifies.  run_guest.sh
# scans kmemleak after the test.  A bystander array on the virtio disks
# exists throughout (see below why).
# Catches: unwinding bugs in create (a member left claimed, an index or
# holder link leaked, a double free), a create that fails without saying
# why, IO that fails or hangs when memory is short.

. "$(dirname "$0")/lib.sh"
mqs_init

FS=/sys/kernel/debug/failslab
[ -d /sys/kernel/debug/failslab ] || mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
[ -d "$FS" ] || mqs_skip "no FAILSLAB: $FS missing (CONFIG_FAILSLAB; Debian's stock kernels have no fault injection, the debug kernel runs this)"
[ -w /proc/self/make-it-fail ] || mqs_skip "no /proc/self/make-it-fail (CONFIG_FAULT_INJECTION_DEBUG_FS)"
[ -e /proc/self/fail-nth ] || mqs_skip "no /proc/self/fail-nth"
SHIM=$MQS_DIR/mqs_failshim.so
FAILIO=$MQS_DIR/mqs_failio
{ [ -f "$SHIM" ] && [ -x "$FAILIO" ]; } || mqs_die "helpers built (make -C selftests)" "missing: $SHIM or $FAILIO"
mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
DEPTH=64
mapfile -t VD < <(virtio_disks)
[ ${#VD[@]} -ge 2 ] || mqs_skip "needs 2 virtio disks, found ${#VD[@]}"
iters=${MQS_FAILSLAB_ITERS:-5}

# fail any slab allocation (also sleeping ones) of marked tasks only
mqs_sysfs_set "$FS/task-filter" Y
mqs_sysfs_set "$FS/ignore-gfp-wait" N
mqs_sysfs_set "$FS/cache-filter" N
mqs_sysfs_set "$FS/verbose" 0
mqs_sysfs_set "$FS/interval" 1
mqs_sysfs_set "$FS/space" 0
mqs_sysfs_set "$FS/times" -1
mqs_sysfs_set "$FS/probability" 0

holders() {
	local m h
	shopt -s nullglob
	for m in "${M[@]}"; do
		h=(/sys/class/block/"${m#/dev/}"/holders/*)
		[ ${#h[@]} -gt 0 ] && echo -n "${m#/dev/}: ${h[*]##*/} "
	done
	shopt -u nullglob
}

created=0
failed=0
nomem=0
bad=()
depths=()
# try WHAT ENV...: one create under fault injection, then the checks
try() {
	local what=$1 out err rc dev depth
	shift
	out=$(env LD_PRELOAD="$SHIM" "$@" "$STRIPECTL" create "${MQS_FORCE[@]}" \
		--chunk 64K --queue-depth $DEPTH "${M[@]}" 2>"$MQS_TMP/err")
	rc=$?
	err=$(cat "$MQS_TMP/err")
	if [ $rc -eq 98 ] || [ $rc -eq 99 ]; then
		bad+=("$what: the shim could not mark the thread (exit $rc)")
		return
	fi
	if [ $rc -eq 0 ]; then
		created=$((created + 1))
		dev=$out
		if [[ ! $dev =~ ^/dev/mqstripe[0-9]+$ ]] || [ ! -b "$dev" ]; then
			bad+=("$what: created, but printed '$dev'")
			return
		fi
		MQS_ARRAYS+=("$dev")
		depth=$(qattr "$dev" nr_requests)
		depths+=("$depth")
		if [ -z "$depth" ] || [ "$depth" -lt 1 ] || [ "$depth" -gt "$DEPTH" ]; then
			bad+=("$what: nr_requests '$depth' not in 1..$DEPTH")
		fi
		# one process (a start costs seconds on the debug kernel)
		if ! pattern verify "$dev" 0 1M $((created + 7)) >"$MQS_TMP/pc" 2>&1; then
			bad+=("$what: the array fails a pattern write/verify: $(head -c 300 "$MQS_TMP/pc")")
		fi
		mqs_stop "$dev" >/dev/null 2>&1 || bad+=("$what: stop $dev failed")
	else
		failed=$((failed + 1))
		grep -qi 'memory' <<<"$err" && nomem=$((nomem + 1))
		[ -n "$err" ] || bad+=("$what: exit $rc without an error message")
	fi
	# nothing left in either case
	[ -z "$(others)" ] || bad+=("$what (exit $rc): left $(others | tr '\n' ' ')")
	[ -z "$(blk_busy "${M[@]}")" ] || bad+=("$what (exit $rc): members still claimed: $(blk_busy "${M[@]}" | tr '\n' ' ')")
	[ -z "$(holders)" ] || bad+=("$what (exit $rc): holder links left: $(holders)")
}

# A bystander array (same bio size): the creates under test then reuse
# its bio slab cache.  Else each create makes the cache anew, and a fault
# in SLUB's sysfs_slab_add() leaks the kobject name (kstrdup "bio-232"; a
# kernel bug outside the module, kmemleak blames the create).
mqs_must_create --chunk 64K "${VD[0]}" "${VD[1]}"
KEEP=${MQS_DISK}
others() { mqs_arrays | grep -vx "$KEEP"; }

mark=$(klog_mark "test_21 failslab start")
start=$SECONDS
# the walk: fail the N-th fault point of the create
n=1
walked=0
while :; do
	rm -f "$MQS_TMP/nth"
	try "fail-nth $n" MQS_FAILSHIM_NTH=$n MQS_FAILSHIM_REPORT="$MQS_TMP/nth"
	walked=$((walked + 1))
	[ "$(cat "$MQS_TMP/nth" 2>/dev/null)" = injected ] || break
	[ $walked -ge 40 ] && break
	# 1, 2, 3, 4, 16, 64, ...: dense where the early unwinding steps
	# are, sparse later, where a single failure is mostly absorbed (the
	# create succeeds) and each create, write/verify and stop costs about
	# 25 s on the debug kernel alone, several times that beside the
	# other CI lanes
	n=$((n < 4 ? n + 1 : n * 4))
done
diag "fail-nth walk: $walked creates, last N $n ($(cat "$MQS_TMP/nth" 2>/dev/null)) in $((SECONDS - start)) s"
check_eq "fail-nth walk reached a create with no fault left (the whole path covered)" \
	not-injected "$(cat "$MQS_TMP/nth" 2>/dev/null)"
# random faults around the create ioctl, make-it-fail with a probability
probs=(2 5 10 25 50)
for ((i = 0; i < iters; i++)); do
	p=${probs[i % 5]}
	echo "$p" >"$FS/probability"
	try "probability $p% run $i"
done
echo 0 >"$FS/probability"
diag "creates: $created succeeded (nr_requests: ${depths[*]}), $failed failed ($nomem with ENOMEM) in $((SECONDS - start)) s"
check_eq "every create failed cleanly or gave a working array" "" "$(printf '%s\n' "${bad[@]}")"
check_num -ge "creates that failed on an injected allocation failure (ENOMEM)" 1 "$nomem"
check_num -ge "creates that succeeded despite fault points (fail-nth past the end)" 1 "$created"

# IO with FAILSLAB on the IO-issuing thread
mqs_must_create --chunk 64K "${M[@]}"
echo 25 >"$FS/probability"
check_cmd "O_DIRECT writes with 25% slab failures on the writer: all complete and verify" \
	timeout 120 "$FAILIO" "$MQS_DEV" 0 $((8 << 20)) 4242
diag "$(timeout 120 "$FAILIO" "$MQS_DEV" $((8 << 20)) $((4 << 20)) 77 2>&1)"
echo 0 >"$FS/probability"
check_cmd "pattern write/verify after the faults" bash -c \
	"'$PYTHON' -S '$MQS_DIR/pattern.py' fill '$MQS_DEV' 16M 1M 5 && '$PYTHON' -S '$MQS_DIR/pattern.py' check '$MQS_DEV' 16M 1M 5"
check_klog "no kernel warning under fault injection" "$mark"
check_stop "$MQS_DEV"
check_stop "/dev/$KEEP"
mqs_finish
