#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member bios are charged to the cgroup of the IO they carry.  A task in
# its own cgroup (v2, io controller) writes and discards on a 2-member
# array whose requests go through an IO scheduler (mq-deadline: they are
# dispatched by kblockd, not by the task) and with none (dispatched by the
# task itself); the cgroup's io.stat must count the bytes on each member,
# as it does on the array.  Then the member's io.max applies to that
# cgroup: a limit of 1 write IO per second on member 0 holds the task's
# writes back (IO counted against it, not against the root cgroup).
# Catches: member bios associated with the dispatching task (kblockd, a
# writeback worker): io.max, io.weight and io.latency set on the members
# bypassed for every scheduled, requeued or written-back request.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dd blkdiscard

CG=/sys/fs/cgroup
[ -r "$CG/cgroup.controllers" ] ||
	mount -t cgroup2 none "$CG" 2>/dev/null
[ -r "$CG/cgroup.controllers" ] || mqs_skip "no cgroup v2 hierarchy at $CG"
grep -qw io "$CG/cgroup.controllers" || mqs_skip "cgroup v2 has no io controller here"

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 2 ] || mqs_skip "needs 2 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:2}")

io_was_on=0
grep -qw io "$CG/cgroup.subtree_control" && io_was_on=1
GRP=$CG/mqs-test26
cg_cleanup() {
	[ -d "$GRP" ] && rmdir "$GRP" 2>/dev/null
	[ $io_was_on = 1 ] || echo -io >"$CG/cgroup.subtree_control" 2>/dev/null
}
trap 'mqs_cleanup; cg_cleanup' EXIT
echo +io >"$CG/cgroup.subtree_control" || mqs_die "enable the io controller ($CG/cgroup.subtree_control)"
mkdir "$GRP" || mqs_die "mkdir $GRP"

# in_cg CMD...: run CMD in the test cgroup
in_cg() {
	bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' in_cg "$GRP" "$@"
}
# cg_stat DEV KEY: KEY (wbytes, dbytes, ...) of DEV in the cgroup's io.stat
cg_stat() {
	local devno v
	devno=$(blk_devno "$1")
	v=$(awk -v d="$devno" -v k="$2" '$1 == d {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' \
		"$GRP/io.stat")
	echo "${v:-0}"
}

mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
MIB=$((1 << 20))
off=0
for sched in mq-deadline none; do
	if ! echo "$sched" >"$MQS_SYS/queue/scheduler" 2>/dev/null; then
		fail "scheduler $sched on $MQS_DISK" "$(cat "$MQS_SYS/queue/scheduler")"
		continue
	fi
	declare -A w0=() d0=()
	for d in "$DEV" "${M[@]}"; do
		w0[$d]=$(cg_stat "$d" wbytes)
		d0[$d]=$(cg_stat "$d" dbytes)
	done
	# 8 direct writes of 1 MiB: each spans every member (not the
	# one-chunk clone path), 4 MiB land on each member
	check_cmd "[$sched] 8 MiB of 1 MiB direct writes from the cgroup" \
		in_cg dd if=/dev/zero of="$DEV" bs=1M count=8 seek=$((off / MIB)) oflag=direct status=none
	check_cmd "[$sched] blkdiscard of 2 MiB from the cgroup" \
		in_cg blkdiscard -o $((off + 8 * MIB)) -l $((2 * MIB)) "$DEV"
	off=$((off + 16 * MIB))
	diag "[$sched] io.stat: $(tr '\n' ';' <"$GRP/io.stat")"
	check_ge "[$sched] the cgroup's array writes in io.stat" $((8 * MIB)) \
		$(($(cg_stat "$DEV" wbytes) - w0[$DEV]))
	for m in "${M[@]}"; do
		check_ge "[$sched] the cgroup's writes on member $(blk_name "$m") in io.stat" \
			$((4 * MIB)) $(($(cg_stat "$m" wbytes) - w0[$m]))
		check_ge "[$sched] the cgroup's discards on member $(blk_name "$m") in io.stat" \
			"$MIB" $(($(cg_stat "$m" dbytes) - d0[$m]))
	done
	unset w0 d0
done

# io.max on a member applies to the cgroup's IO through the array
echo mq-deadline >"$MQS_SYS/queue/scheduler"
m0=$(blk_devno "${M[0]}")
if echo "$m0 wiops=2" >"$GRP/io.max" 2>/dev/null; then
	t0=$(date +%s%N)
	check_cmd "[io.max wiops=2 on $(blk_name "${M[0]}")] 8 direct 1 MiB writes from the cgroup" \
		in_cg dd if=/dev/zero of="$DEV" bs=1M count=8 seek=64 oflag=direct status=none
	ms=$((($(date +%s%N) - t0) / 1000000))
	diag "8 writes under wiops=2 on member 0 took $ms ms"
	# 8 member writes at 2 per second, the first ones within the burst
	# allowance: at least 2 s (unlimited, these take well under that)
	check_ge "[io.max] the member's limit held the cgroup's writes back (ms)" 2000 "$ms"
	echo "$m0 wiops=max" >"$GRP/io.max"
else
	diag "no io.max here (CONFIG_BLK_DEV_THROTTLING off): limit not tried"
fi
check_stop "$DEV"
mqs_finish
