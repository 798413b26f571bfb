#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member errors.  Member 1 is a dm device over an NVMe namespace; once the
# array is up its table is switched to the dm "error" target, so the member
# returns EIO for everything.  Then: reads and writes touching member 1
# fail with EIO, within a timeout (nothing hangs); reads and writes that
# touch only the other members work and return the right data; the error
# counters and the kernel log name the array and the member; the array
# stops.  The failure is told: one change uevent MQSTRIPE_EVENT=
# member_faulty with the slot, the member's major:minor, the error and the
# array's UUID and state, one MQSTRIPE_EVENT=array_failed, and a poll() on
# the state attribute wakes up.
# Catches: errors swallowed (success with garbage), a request that never
# completes when one of its member bios fails, failures spreading to
# requests that did not touch the member, a stop that hangs, a failure
# nobody is told of (a bare uevent, or none).

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dmsetup

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
K=1024
CH=$((64 * K))
sectors=$(($(blk_bytes "${NV[1]}") / 512))
mqs_dm_create err1 "0 $sectors linear ${NV[1]} 0" || mqs_die "dmsetup create over ${NV[1]}"
BAD=$DM_DEV
BADNAME=$(blk_name "$BAD")
M=("${NV[0]}" "$BAD" "${NV[2]}" "${NV[3]}")
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_cmd "fill the first 2 MiB" pattern fill "$DEV" 0 $((2 << 20)) 41
mark=$(klog_mark "test_10 switching $BADNAME to the error target")
# the array's change uevents (from the kernel's netlink socket) and a
# poll() on its state attribute, from before the first failure
UEV=$MQS_TMP/uevents
"$PYTHON" -S "$MQS_DIR/uevent.py" "$UEV" "$MQS_DISK" 300 "$MQS_SYS/mqstripe/state" &
uevpid=$!
MQS_BG+=("$uevpid")
for _ in $(seq 100); do [ -e "$UEV.ready" ] && break; sleep 0.1; done
[ -e "$UEV.ready" ] || fail "the uevent listener started" "no $UEV.ready after 10 s"

if ! { dmsetup suspend --noudevsync mqst-err1 &&
	dmsetup load --noudevsync mqst-err1 --table "0 $sectors error" &&
	dmsetup resume --noudevsync mqst-err1; }; then
	mqs_die "switch $BADNAME to the error target"
fi
pass "$BADNAME now returns errors"

# io DESC EXPECT(OK|EIO) read|write OFF LEN
io() {
	local desc=$1 exp=$2 out rc
	out=$(timeout 60 "$PYTHON" -S "$MQS_DIR/pattern.py" rw "$3" "$DEV" "$4" "$5" 2>&1)
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "$desc: $exp" "the IO did not complete within 60 s (hang)"
	else
		check_eq "$desc" "$exp" "$out"
	fi
}
# chunk c is on member c mod 4, row c div 4
io "read chunk 1 (member 1)" EIO read $CH $CH
io "read chunk 5 (member 1, row 1)" EIO read $((5 * CH)) 4096
io "read 256K from 0 (all members)" EIO read 0 $((4 * CH))
io "read 8K across chunks 0/1" EIO read $((CH - 4096)) 8192
io "write chunk 1 (member 1)" EIO write $CH $CH
io "write 12K across chunks 4/5" EIO write $((5 * CH - 8192)) 12288
io "read chunk 0 (member 0)" OK read 0 $CH
io "read chunk 2 (member 2)" OK read $((2 * CH)) $CH
io "read chunks 2-3 (members 2 and 3)" OK read $((2 * CH)) $((2 * CH))
io "read chunk 4 (member 0, row 1)" OK read $((4 * CH)) $CH
io "write chunk 3 (member 3)" OK write $((3 * CH)) $CH
# (the failed write across chunks 4/5 may have written its part of chunk 4)
check_cmd "chunks 0, 2, 4 (before the failed write), 6, 7 still hold their data" \
	pattern each check "$DEV:0:$CH:41" "$DEV:$((2 * CH)):$CH:41" \
	"$DEV:$((4 * CH)):$((CH - 8192)):41" "$DEV:$((6 * CH)):$((2 * CH)):41"
# buffered reads go through readahead: must fail too, not hang
out=$(timeout 60 dd if="$DEV" of=/dev/null bs=4k count=64 skip=16 2>&1)
rc=$?
if [ $rc -eq 124 ]; then
	fail "buffered read of chunk 1 fails without hanging" "timed out"
elif [ $rc -ne 0 ] && grep -q "Input/output error" <<<"$out"; then
	pass "buffered read of chunk 1 fails with EIO"
else
	fail "buffered read of chunk 1 fails with EIO" "dd exit $rc: $out"
fi

# the events: one member_faulty naming slot 1, its device and the error,
# one array_failed, and the state attribute's poll() woke up
for _ in $(seq 200); do
	grep -q '^MQSTRIPE_EVENT=array_failed$' "$UEV" 2>/dev/null &&
		grep -q '^POLL_WOKE=' "$UEV" && break
	sleep 0.1
done
kill "$uevpid" 2>/dev/null
wait "$uevpid" 2>/dev/null
diag "uevents: $(tr '\n' ' ' <"$UEV" 2>/dev/null | head -c 2000)"
# ev NAME KEY: KEY's value in the event MQSTRIPE_EVENT=NAME
ev() { awk -v RS= -v e="MQSTRIPE_EVENT=$1" -v k="$2" \
	'index($0, e "\n") { n = split($0, l, "\n"); for (i = 1; i <= n; i++) if (index(l[i], k "=") == 1) print substr(l[i], length(k) + 2) }' "$UEV"; }
check_eq "one member_faulty uevent" 1 "$(grep -c '^MQSTRIPE_EVENT=member_faulty$' "$UEV")"
check_eq "member_faulty: slot, device, error, array UUID, state" \
	"1 $(blk_devno "$BAD") -EIO $(cat "$MQS_SYS/mqstripe/uuid") failed" \
	"$(ev member_faulty MQSTRIPE_SLOT) $(ev member_faulty MQSTRIPE_MEMBER) $(ev member_faulty MQSTRIPE_ERROR) $(ev member_faulty MQSTRIPE_ARRAY_UUID) $(ev member_faulty MQSTRIPE_STATE)"
check_eq "one array_failed uevent, state failed" "1 failed" \
	"$(grep -c '^MQSTRIPE_EVENT=array_failed$' "$UEV") $(ev array_failed MQSTRIPE_STATE)"
check_eq "poll() on mqstripe/state woke up, reading failed" failed \
	"$(sed -n 's/^POLL_WOKE=//p' "$UEV" | head -n 1)"

errs=$(cat "$MQS_SYS/mqstripe/errors" 2>&1)
diag "errors: $errs"
diag "state: $(cat "$MQS_SYS/mqstripe/state" 2>&1)"
check_match "sysfs errors shows non-zero counts" '[1-9]' "$errs"
log=$(klog_since "$mark")
if grep "$MQS_DISK" <<<"$log" | grep -q "$BADNAME"; then
	pass "a kernel log line names $MQS_DISK and $BADNAME"
else
	fail "a kernel log line names $MQS_DISK and $BADNAME" "log: $(head -n 20 <<<"$log")"
fi
nlog=$(grep -c "$MQS_DISK" <<<"$log")
check_le "kernel log lines of $MQS_DISK are rate-limited (< 100 for these IOs)" 100 "$nlog"
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/status.json" 2>&1
J=$MQS_TMP/status.json
# the counters of all members in one jget (a python start each costs)
read -r -a e <<<"$(jget "$J" members.{0,1,2,3}.{read,write}_errors)"
check_ge "status --json: member 1 read_errors" 1 "${e[2]}"
check_ge "status --json: member 1 write_errors" 1 "${e[3]}"
for i in 0 2 3; do
	check_eq "status --json: member $i has no errors" "0 0" \
		"${e[2 * i]} ${e[2 * i + 1]}"
done
check_cmd "stripectl status works with a failing member" "$STRIPECTL" status "$DEV"
out=$(timeout 120 "$STRIPECTL" stop "$DEV" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	pass "stop with a failing member"
	MQS_ARRAYS=()
else
	fail "stop with a failing member" "exit $rc: $out"
fi
check_eq "$MQS_DEV gone" "" "$(mqs_arrays)"
mqs_finish
