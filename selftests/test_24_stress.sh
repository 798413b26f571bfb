#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress, MQS_STRESS_SECS seconds (default 30; a long run, e.g. 30 minutes:
# MQS_STRESS_SECS=1800):
#  - three loops create and stop arrays concurrently on overlapping members
#    (NVMe 2+3, the two virtio disks, and NVMe 2 + virtio 0 that races both),
#    a fourth reads stripectl list/status of whatever exists, while array A
#    on NVMe 0+1 carries fio write+verify passes (crc32c);
#  - then MQS_STRESS_CYCLES (default 100) rmmod/insmod cycles with no array.
# Memory back near the baseline: after dropping caches, unreclaimable slab
# (SUnreclaim) may grow by at most 8 MiB and MemAvailable drop by at most
# 48 MiB (per-CPU slab caches, page tables and lazily freed vmalloc areas
# move by a few MiB between samples; one leaked array costs ~0.5 MiB of tag
# set and requests, so 100 or more leaked creates or module loads exceed
# it; the debug kernel's kmemleak scan, done by run_guest.sh after the
# test, catches single objects).
# Catches: races between create, stop and status (use-after-free, a member
# left claimed, an index reused while its disk lives), IO corrupted or hung
# while other arrays come and go on the same host, leaks per create or per
# module load, a module that cannot be unloaded.

. "$(dirname "$0")/lib.sh"
. "$MQS_DIR/lib_reliab.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
mapfile -t VD < <(virtio_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
[ ${#VD[@]} -ge 2 ] || mqs_skip "needs 2 virtio disks, found ${#VD[@]}"
secs=${MQS_STRESS_SECS:-30}
cycles=${MQS_STRESS_CYCLES:-100}

meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
drop_caches
base_sunr=$(meminfo SUnreclaim)
base_avail=$(meminfo MemAvailable)
diag "baseline: SUnreclaim $base_sunr kB, MemAvailable $base_avail kB"

mark=$(klog_mark "test_24 stress start")
doff=$((($(blk_bytes "${NV[0]}") >> 20) - 8))
mqs_must_create --chunk 64K --data-offset "${doff}M" "${NV[0]}" "${NV[1]}"
A=$MQS_DEV
rel_fio_loop_start "$A" 0 "$(blk_bytes "$A")"

# cs_loop NAME MEMBER...: create, check, stop until the deadline; counts in
# $MQS_TMP/NAME.res: "ok N busy N bad N"; reasons for bad ones in NAME.bad
end=$((SECONDS + secs))
cs_loop() {
	local name=$1 ok=0 busy=0 bad=0 out rc dev
	shift
	while [ $SECONDS -lt $end ]; do
		out=$("$STRIPECTL" create "${MQS_FORCE[@]}" --chunk 16K "$@" 2>"$MQS_TMP/$name.err")
		rc=$?
		if [ $rc -eq 0 ] && [[ $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
			dev=$out
			if [ ! -b "$dev" ] || [ "$(cat "/sys/block/${dev#/dev/}/mqstripe/nr_members" 2>/dev/null)" != $# ]; then
				bad=$((bad + 1))
				echo "created $dev but it looks wrong" >>"$MQS_TMP/$name.bad"
			fi
			# an open may race with the status loop: retry a busy stop
			for _ in 1 2 3 4 5 6 7 8 9 10; do
				"$STRIPECTL" stop "$dev" 2>>"$MQS_TMP/$name.stoperr" && { dev=; break; }
				sleep 0.2
			done
			if [ -n "$dev" ]; then
				bad=$((bad + 1))
				echo "stop $dev failed: $(tail -n 1 "$MQS_TMP/$name.stoperr")" >>"$MQS_TMP/$name.bad"
			fi
			ok=$((ok + 1))
		elif grep -qiE 'busy|in use|claimed' "$MQS_TMP/$name.err"; then
			busy=$((busy + 1))	# another loop holds a member: expected
		else
			bad=$((bad + 1))
			echo "create exit $rc: $(cat "$MQS_TMP/$name.err")" >>"$MQS_TMP/$name.bad"
		fi
		echo "ok $ok busy $busy bad $bad" >"$MQS_TMP/$name.res"
	done
}
status_loop() {
	local n=0 bad=0 d
	while [ $SECONDS -lt $end ]; do
		"$STRIPECTL" list >/dev/null 2>&1 || { bad=$((bad + 1)); }
		for d in /sys/block/mqstripe*; do
			[ -e "$d" ] || continue
			# the array may go away while we look: only a crash counts
			"$STRIPECTL" status --json "/dev/${d##*/}" >/dev/null 2>&1
			[ $? -ge 128 ] && bad=$((bad + 1))
		done
		n=$((n + 1))
		echo "ok $n busy 0 bad $bad" >"$MQS_TMP/status.res"
	done
}
cs_loop nv23 "${NV[2]}" "${NV[3]}" &
p1=$!
cs_loop vd01 "${VD[0]}" "${VD[1]}" &
p2=$!
cs_loop mixed "${NV[2]}" "${VD[0]}" &
p3=$!
status_loop &
p4=$!
MQS_BG+=("$p1" "$p2" "$p3" "$p4")
for p in $p1 $p2 $p3 $p4; do
	# a loop ends at the deadline; it may be in a stop at that moment
	timeout_at=$((end + 120))
	while kill -0 "$p" 2>/dev/null && [ $SECONDS -lt $timeout_at ]; do sleep 0.5; done
done
stuck=
for p in $p1 $p2 $p3 $p4; do kill -0 "$p" 2>/dev/null && stuck+="$p "; done
check_eq "create/stop loops ended within 120 s of the deadline" "" "$stuck"
total_ok=0
for n in nv23 vd01 mixed status; do
	read -r _ ok _ busy _ bad <"$MQS_TMP/$n.res" 2>/dev/null
	diag "$n: ${ok:-0} created and stopped (status: rounds), ${busy:-0} refused busy, ${bad:-0} bad"
	[ -s "$MQS_TMP/$n.bad" ] && diag "$(head -n 5 "$MQS_TMP/$n.bad")"
	check_num -eq "$n: no unexpected failure" 0 "${bad:-1}"
	[ "$n" != status ] && total_ok=$((total_ok + ${ok:-0}))
done
check_num -ge "arrays created and stopped concurrently" 3 "$total_ok"
rel_fio_loop_stop "fio write+verify on $A during the create/stop storm" 120
check_num -ge "at least one full fio pass overlapped the storm" 1 "$(rel_fio_passes)"
check_eq "only $A left" "${A#/dev/}" "$(mqs_arrays | tr '\n' ' ' | sed 's/ $//')"
check_stop "$A"
check_eq "every member claimable" "" "$(blk_busy "${NV[@]}" "${VD[@]}")"

# rmmod/insmod with no array: the system calls of rmmod (delete_module,
# O_NONBLOCK) and insmod (finit_module) from one process, as a process
# start per call made half of each cycle's time under TCG
fails=
start=$SECONDS
out=$("$PYTHON" -S - "$MQS_MODULE" "$cycles" 2>&1 <<'PYEOF'
import ctypes, os, platform, sys
NR = {"x86_64": (176, 313), "aarch64": (106, 273)}.get(platform.machine())
if NR is None:
    print("0 no system call numbers for %s" % platform.machine())
    sys.exit(1)
libc = ctypes.CDLL(None, use_errno=True)
path, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    if libc.syscall(NR[0], b"mqstripe", os.O_NONBLOCK) != 0:
        print("%d rmmod in cycle %d: %s" % (i, i, os.strerror(ctypes.get_errno())))
        sys.exit(1)
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    rc = libc.syscall(NR[1], fd, b"", 0)
    err = ctypes.get_errno()
    os.close(fd)
    if rc != 0:
        print("%d insmod in cycle %d: %s" % (i, i, os.strerror(err)))
        sys.exit(1)
print(n)
PYEOF
)
rc=$?
i=${out%% *}
[ $rc -eq 0 ] || fails=${out#* }
[[ $i =~ ^[0-9]+$ ]] || { i=0; fails="module cycles: $out"; }
diag "$i rmmod/insmod cycles in $((SECONDS - start)) s"
check_eq "$cycles rmmod/insmod cycles" "" "$fails"
mqs_load_module >/dev/null 2>&1
for _ in $(seq 50); do [ -c "$MQS_CONTROL" ] && break; sleep 0.1; done
check_cmd "the module works after the cycles (stripectl list)" "$STRIPECTL" list

drop_caches
sleep 1
sunr=$(meminfo SUnreclaim)
avail=$(meminfo MemAvailable)
diag "after: SUnreclaim $sunr kB ($((sunr - base_sunr)) kB), MemAvailable $avail kB ($((avail - base_avail)) kB)"
check_num -le "SUnreclaim growth (kB) at most 8 MiB" 8192 $((sunr - base_sunr))
check_num -le "MemAvailable drop (kB) at most 48 MiB" 49152 $((base_avail - avail))
check_klog "no kernel warning during the stress" "$mark"
mqs_finish
