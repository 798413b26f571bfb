#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: hotrm
#
# Hot removal of a member under IO.  Runs in a boot
# of its own (selftests/run.sh boot "hotrm", kernel option
# nvme_core.io_timeout=5): it destroys a drive.  ext4 on an array over 4
# NVMe namespaces, fio randrw with verify on a file in it and on the raw
# array; then member 2's NVMe controller is removed from the PCI bus in
# the guest (echo 1 > /sys/bus/pci/devices/BDF/remove, an orderly removal).
# Then: the removal itself returns; the IO in flight completes (fio ends,
# successfully or with EIO) within 60 s; IO touching member 2 gets EIO
# within 3 x io_timeout = 15 s of the removal and IO on the other members
# still works; the driver marks the member gone (sysfs
# mqstripe/members, mqstripe/state, `stripectl status --json`; through
# the holder's mark_dead on 6.8+, by looking at the disk before); the
# filesystem unmounts, the array stops, the module unloads and loads
# again, and a new array over the remaining members works.  Then a
# removal without IO: a new array over those members, its slot 2's
# controller removed, the array's state and members read before IO
# touches the slot (reported failed and gone), then a read of the slot
# (EIO): the array's uevents are exactly member_gone (slot 2, its
# major:minor) then array_failed, and a poll() on mqstripe/state wakes.
# The kernel log is scanned for hung tasks, warnings and leaks after the
# test.
# Catches: requests that never complete when a member disappears, a
# removal that waits forever on the array, a gone member reported ok, an
# array or module that cannot be released afterwards (reference leaks), a
# removal noticed by a reader and never told (no member_gone uevent, no
# poll() wake-up: before 6.8 nothing else tells the module).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd fio mkfs.ext4

IOT=$(cat /sys/module/nvme_core/parameters/io_timeout 2>/dev/null)
if [ -z "$IOT" ] || [ "$IOT" -gt 10 ]; then
	mqs_skip "needs a boot with nvme_core.io_timeout=5 (io_timeout is '${IOT:-none}'; selftests/run.sh runs it in boot hotrm): it removes a drive"
fi
mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
GONE=2
GONEDEV=$(blk_name "${M[GONE]}")
ctrl=$(readlink -f "/sys/block/$GONEDEV/device")
BDF=$(basename "$(readlink -f "$ctrl/device")")
[ -e "/sys/bus/pci/devices/$BDF/remove" ] ||
	mqs_skip "$GONEDEV is not on a removable PCI device ($ctrl -> $BDF)"
diag "removing $GONEDEV: controller $(basename "$ctrl"), PCI $BDF; io_timeout $IOT s"

CH=$((64 << 10))
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_cmd "mkfs.ext4 on $DEV" mkfs.ext4 -F -q "$DEV"
MNT=$MQS_TMP/mnt
mqs_mount "$DEV" "$MNT" || mqs_die "mount ext4 on $DEV"

# fio: randrw with verify on a file, random direct reads of the raw array
fio --output-format=json --output="$MQS_TMP/fio.json" --ioengine=libaio \
	--direct=1 --bs=4k --iodepth=4 --time_based --runtime=600 \
	--name=fs --filename="$MNT/f" --size=16M --rw=randrw \
	--verify=crc32c --verify_backlog=8 \
	--name=raw --filename="$DEV" --rw=randread --size=$((64 << 20)) \
	>"$MQS_TMP/fio.out" 2>&1 &
fiopid=$!
MQS_BG+=("$fiopid")
if wait_ios "$DEV" 256 60 && kill -0 "$fiopid" 2>/dev/null; then
	pass "fio runs on $MQS_DISK"
else
	fail "fio runs on $MQS_DISK" "$(cat "$MQS_TMP/fio.out")"
fi

mark=$(klog_mark "test_16 removing $GONEDEV (PCI $BDF)")
t_rm=$SECONDS
echo 1 >"/sys/bus/pci/devices/$BDF/remove" &
rmpid=$!
MQS_BG+=("$rmpid")
wait_pid_until "$rmpid" $((t_rm + 60))
rc=$?
if [ $rc -eq 124 ]; then
	fail "the PCI removal of $BDF returns" "still blocked after 60 s"
else
	check_eq "the PCI removal of $BDF returns ($((SECONDS - t_rm)) s)" 0 "$rc"
fi
check_eq "$GONEDEV is gone from /sys/block" no "$([ -e "/sys/block/$GONEDEV" ] && echo yes || echo no)"

# IO touching member 2 (chunk 2, row 0): EIO within 3 x io_timeout of
# the removal; chunk 0 (member 0) still reads
left=$((t_rm + 3 * IOT - SECONDS))
[ $left -ge 1 ] || left=1
out=$(timeout "$left" dd if="$DEV" of=/dev/null bs=4k count=1 skip=$((2 * CH / 4096)) iflag=direct 2>&1)
rc=$?
if [ $rc -eq 124 ]; then
	fail "read of member $GONE's chunk gets EIO within $((3 * IOT)) s of the removal" \
		"no answer after $((SECONDS - t_rm)) s"
else
	check_match "read of member $GONE's chunk gets EIO within $((3 * IOT)) s of the removal ($((SECONDS - t_rm)) s)" \
		"Input/output error" "$out"
fi
out=$(timeout 60 dd if="$DEV" of=/dev/null bs=4k count=16 skip=0 iflag=direct 2>&1)
check_eq "read of member 0's chunk still works (dd exit)" 0 "$?"

wait_pid_until "$fiopid" $((t_rm + 60))
rc=$?
if [ $rc -eq 124 ]; then
	fail "fio (IO in flight) ends within 60 s of the removal" "killed after $((SECONDS - t_rm)) s"
else
	pass "fio (IO in flight) ends within 60 s of the removal ($((SECONDS - t_rm)) s, exit $rc)"
fi
"$PYTHON" -S - "$MQS_TMP/fio.json" >"$MQS_TMP/jobs" 2>&1 <<'PYEOF'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])
for j in d["jobs"]:
    print(j["jobname"], j["error"])
PYEOF
while read -r job err; do
	# fio's error is an errno: 0, EIO (5); the fs may say EROFS (30)
	check_match "fio job $job ended with success or an IO error (errno $err)" '^(0|5|30)$' "$err"
done <"$MQS_TMP/jobs"
[ -s "$MQS_TMP/jobs" ] || fail "fio reported its jobs" "$(cat "$MQS_TMP/fio.out")"

# the driver knows
members=$(cat "$MQS_SYS/mqstripe/members")
diag "members: $members"
check_match "sysfs members: slot $GONE is gone" "^$GONE [0-9]+:[0-9]+ [^ ]+ gone$" \
	"$(sed -n "$((GONE + 1))p" <<<"$members")"
check_eq "sysfs state" failed "$(cat "$MQS_SYS/mqstripe/state")"
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
read -r -a st <<<"$(jget "$MQS_TMP/status.json" members.0.state members.1.state \
	members.2.state members.3.state)"
check_eq "status --json: member states" "ok ok gone ok" "${st[*]}"
# mark_dead (6.8+) logs the removal unless a failed IO marked the member
# gone first (seen on the slow debug kernel): information, not a check
diag "kernel log on the removal: $(klog_since "$mark" | grep -m1 -E "is gone|member $GONE" )"

# everything can be released
out=$(timeout 60 umount "$MNT" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	pass "umount ext4 after the removal"
	MQS_MOUNTS=()
else
	mqs_die "umount ext4 after the removal" "exit $rc: $out"
fi
check_stop "$DEV"
check_cmd "rmmod mqstripe" timeout 60 rmmod mqstripe
check_cmd "insmod mqstripe again" mqs_load_module
if mqs_create --chunk 64K "${M[0]}" "${M[1]}" "${M[3]}"; then
	pass "a new array over the remaining members"
	check_cmd "and it takes data" bash -c "'$PYTHON' -S '$MQS_DIR/pattern.py' fill '$MQS_DEV' 0 1M 72 &&
		'$PYTHON' -S '$MQS_DIR/pattern.py' check '$MQS_DEV' 0 1M 72"
	check_stop "$MQS_DEV"
else
	fail "a new array over the remaining members"
fi

# A removal that a reader notices first: an array over the remaining
# members, nothing in flight; the controller of its slot 2 is removed, the
# array's state and members are read before any IO touches that slot (on
# 6.1, without mark_dead, this read is what notices the removal), then a
# read touches it.  The uevents are exactly member_gone (slot 2, its
# major:minor) and then array_failed, and a poll() on mqstripe/state wakes.
R=("${M[0]}" "${M[1]}" "${M[3]}")
RSLOT=2
RDEV=$(blk_name "${R[RSLOT]}")
rctrl=$(readlink -f "/sys/block/$RDEV/device")
RBDF=$(basename "$(readlink -f "$rctrl/device")")
RDEVNO=$(blk_devno "${R[RSLOT]}")
if [ ! -e "/sys/bus/pci/devices/$RBDF/remove" ]; then
	MQS_NCHECK=$((MQS_NCHECK + 1))
	ktap_skip "$MQS_NCHECK" "a removal read before IO is told" \
		"$RDEV is not on a removable PCI device ($rctrl -> $RBDF)"
elif mqs_create --chunk 64K "${R[@]}"; then
	DEV=$MQS_DEV
	UEV=$MQS_TMP/uevents
	"$PYTHON" -S "$MQS_DIR/uevent.py" "$UEV" "$MQS_DISK" 300 \
		"$MQS_SYS/mqstripe/state" &
	uevpid=$!
	MQS_BG+=("$uevpid")
	for _ in $(seq 100); do [ -e "$UEV.ready" ] && break; sleep 0.1; done
	[ -e "$UEV.ready" ] || fail "the uevent listener started" "no $UEV.ready after 10 s"
	diag "removing $RDEV (slot $RSLOT of $MQS_DISK): PCI $RBDF"
	echo 1 >"/sys/bus/pci/devices/$RBDF/remove" &
	rmpid=$!
	MQS_BG+=("$rmpid")
	wait_pid_until "$rmpid" $((SECONDS + 60))
	check_eq "the PCI removal of $RBDF (no IO in flight) returns" 0 "$?"
	check_eq "state read before any IO touches slot $RSLOT" failed \
		"$(cat "$MQS_SYS/mqstripe/state")"
	check_match "members read before any IO: slot $RSLOT is gone" \
		"^$RSLOT $RDEVNO [^ ]+ gone$" \
		"$(sed -n "$((RSLOT + 1))p" "$MQS_SYS/mqstripe/members")"
	out=$(timeout 60 dd if="$DEV" of=/dev/null bs=4k count=1 \
		skip=$((RSLOT * CH / 4096)) iflag=direct 2>&1)
	check_match "then a read of slot $RSLOT's chunk gets EIO" "Input/output error" "$out"
	for _ in $(seq 200); do
		grep -q '^MQSTRIPE_EVENT=array_failed$' "$UEV" 2>/dev/null &&
			grep -q '^POLL_WOKE=' "$UEV" && break
		sleep 0.1
	done
	sleep 1		# room for an event too many
	kill "$uevpid" 2>/dev/null
	wait "$uevpid" 2>/dev/null
	diag "uevents: $(tr '\n' ' ' <"$UEV" 2>/dev/null | head -c 2000)"
	check_eq "the array's uevents: member_gone, then array_failed" \
		"member_gone array_failed" \
		"$(sed -n 's/^MQSTRIPE_EVENT=//p' "$UEV" | paste -sd ' ')"
	gone_ev() { awk -v RS= -v k="$1" '/MQSTRIPE_EVENT=member_gone\n/ {
		n = split($0, l, "\n"); for (i = 1; i <= n; i++)
		if (index(l[i], k "=") == 1) print substr(l[i], length(k) + 2) }' "$UEV"; }
	check_eq "member_gone names slot $RSLOT and $RDEVNO" "$RSLOT $RDEVNO" \
		"$(gone_ev MQSTRIPE_SLOT) $(gone_ev MQSTRIPE_MEMBER)"
	check_eq "poll() on mqstripe/state woke up, reading failed" failed \
		"$(sed -n 's/^POLL_WOKE=//p' "$UEV" | head -n 1)"
	check_stop "$DEV"
else
	fail "an array over the remaining members, again"
fi
check_klog "no warning or hung task in the kernel log" "$mark"
mqs_finish
