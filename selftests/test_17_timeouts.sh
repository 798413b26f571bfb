#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A member that stops answering.  Member 1 is a dm
# device over an NVMe namespace, switched to dm-delay with a 20 s delay
# (under the 120 s hung-task limit); the array's own request timeout is
# lowered to 5 s so that its timeout handler runs several times while the
# member holds the IO.
#  1. IO touching member 1 waits: still pending after IO on the other
#     members has completed; then completes with the right data (read) or
#     is acknowledged and reads back (write) when the member completes.
#  2. IO waiting in dm-delay, then `dmsetup suspend --noflush`: dm-delay
#     hands its held bios to the device, that IO completes; IO sent while
#     the member is suspended waits; the table is switched to the error
#     target and resumed: that IO fails with EIO.
#  3. Nothing hangs: every IO ends within 60 s of its member's answer, the
#     array stops.
# Catches: an array timeout handler that fails or completes a request the
# member still owns (early EIO, or garbage data), a request that never
# ends after its member ends it, a deadlock of the array on a stalled or
# suspended member.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd dmsetup

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
modprobe dm-delay 2>/dev/null
dmsetup targets | grep -qw delay || mqs_skip "no dm-delay target"
DELAY=${MQS_DELAY_S:-20}
sectors=$(($(blk_bytes "${NV[1]}") / 512))
LINEAR="0 $sectors linear ${NV[1]} 0"
mqs_dm_create dly1 "$LINEAR" || mqs_die "dmsetup create over ${NV[1]}"
DMNAME=$(blk_name "$DM_DEV")
M=("${NV[0]}" "$DM_DEV" "${NV[2]}" "${NV[3]}")
CH=$((64 << 10))
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_cmd "rows 0-1 written" pattern fill "$DEV" 0 $((8 * CH)) 81
if echo 5000 >"$MQS_SYS/queue/io_timeout"; then
	diag "array request timeout: $(cat "$MQS_SYS/queue/io_timeout") ms"
else
	diag "array request timeout not settable: $(cat "$MQS_SYS/queue/io_timeout" 2>&1)"
fi

# bg_ios OUT SPEC...: single_ios in the background, pid in BG_PID
BG_PID=
bg_ios() {
	local out=$1
	shift
	single_ios "$DEV" "$@" >"$out" 2>&1 &
	BG_PID=$!
	MQS_BG+=("$BG_PID")
}

# wait_bg PID DEADLINE DESC EXPECTED OUT
wait_bg() {
	local rc
	wait_pid_until "$1" "$2"
	rc=$?
	if [ $rc -eq 124 ]; then
		fail "$3" "no answer after $(($2 - t0)) s: killed"
	else
		check_eq "$3" "$4" "$(tr '\n' ' ' <"$5" | sed 's/ $//')"
	fi
}

# ---- 1. the member holds IO for DELAY s, then completes it
dm_switch dly1 "0 $sectors delay ${NV[1]} 0 $((DELAY * 1000))" ||
	mqs_die "switch $DMNAME to dm-delay"
pass "$DMNAME delays IO by $DELAY s"
t0=$SECONDS
bg_ios "$MQS_TMP/r1" "check:$CH:$CH:81"	# chunk 1: member 1
rpid=$BG_PID
bg_ios "$MQS_TMP/w1" "write:$((5 * CH)):$CH:82"	# chunk 5: member 1
wpid=$BG_PID
out=$(timeout 60 "$PYTHON" -S "$MQS_DIR/pattern.py" regions "$DEV" 81 \
	"0:$CH:pat" "$((2 * CH)):$((2 * CH)):pat" "$((4 * CH)):$CH:pat" 2>&1)
check_eq "IO on members 0, 2, 3 completes while member 1 holds its IO" 0 "$?"
[ -n "$out" ] && diag "$out"
t1=$SECONDS
if kill -0 "$rpid" 2>/dev/null && kill -0 "$wpid" 2>/dev/null; then
	pass "IO on member 1 still waits after $((t1 - t0)) s (not ended early)"
else
	fail "IO on member 1 still waits after $((t1 - t0)) s (not ended early)" \
		"read: $(cat "$MQS_TMP/r1") write: $(cat "$MQS_TMP/w1")"
fi
wait_bg "$rpid" $((t0 + DELAY + 60)) "the read of member 1 completes with its data" OK "$MQS_TMP/r1"
wait_bg "$wpid" $((t0 + DELAY + 60)) "the write to member 1 completes" OK "$MQS_TMP/w1"
diag "member 1 IO took $((SECONDS - t0)) s (delay $DELAY s)"
check_eq "array request timeouts were not turned into errors: member 1 has no errors" \
	"1 0 0 0" "$(sed -n 2p "$MQS_SYS/mqstripe/errors")"

# ---- 2. held IO, then suspend --noflush and the error target
t0=$SECONDS
bg_ios "$MQS_TMP/r2" "check:$((5 * CH)):$CH:82"	# member 1, written above
rpid=$BG_PID
held=0
while [ $((SECONDS - t0)) -lt 30 ]; do
	# dm-delay's status: reads, writes (and flushes) it holds
	read -r _ _ _ inr _ < <(dmsetup status mqst-dly1)
	if [ "${inr:-0}" -ge 1 ]; then
		held=1
		break
	fi
	sleep 0.2
done
check_eq "a read is held in dm-delay" 1 "$held"
if dmsetup suspend --noudevsync --noflush mqst-dly1; then
	pass "dmsetup suspend --noflush with IO held"
else
	mqs_die "dmsetup suspend --noflush with IO held"
fi
wait_bg "$rpid" $((SECONDS + 60)) "the held read completes when dm-delay hands it on (suspend)" \
	OK "$MQS_TMP/r2"
bg_ios "$MQS_TMP/r3" "read:$((9 * CH)):4096"	# chunk 9: member 1
epid=$BG_PID
waiting=0
wait_inflight "$MQS_SYS" 30 reads && waiting=1
check_eq "a read of member 1 waits in the array while the member is suspended" 1 "$waiting"
sleep 2
if kill -0 "$epid" 2>/dev/null; then
	pass "it still waits 2 s later"
else
	fail "it still waits 2 s later" "ended: $(cat "$MQS_TMP/r3")"
fi
if dmsetup load --noudevsync mqst-dly1 --table "0 $sectors error" &&
	dmsetup resume --noudevsync mqst-dly1; then
	pass "$DMNAME switched to the error target"
else
	mqs_die "$DMNAME switched to the error target"
fi
wait_bg "$epid" $((SECONDS + 60)) "the waiting read fails with EIO when the member errors" \
	EIO "$MQS_TMP/r3"
out=$(timeout 60 "$PYTHON" -S "$MQS_DIR/pattern.py" check "$DEV" 0 "$CH" 81 2>&1)
check_eq "member 0 still reads" 0 "$?"
[ -n "$out" ] && diag "$out"
check_ge "member 1 has read errors" 1 "$(sed -n 2p "$MQS_SYS/mqstripe/errors" | cut -d' ' -f2)"
check_match "member 1 is faulty" "^1 [0-9]+:[0-9]+ [^ ]+ faulty$" \
	"$(sed -n 2p "$MQS_SYS/mqstripe/members")"
check_stop "$DEV"	# with member 1 failing
mqs_finish
