#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Members over NVMe over Fabrics (nvme-tcp, fabric_lib.sh): two nvmet
# targets on 127.0.0.1, two namespaces each (sparse files), connected with
# nvme-cli; one array over the 4 remote namespaces.
# Remote members: the array's limits follow the nvme-tcp members' (no
# poll queues: io_poll 0), fio verifies large direct IO with no member
# splitting a bio of ours (block_split on the members: 0), XFS over the
# array verifies a file.
# Transient path loss: under fio randrw+verify, every packet of target 2
# is dropped until the host sees the loss (its controller leaves "live":
# keep-alive timeout, error recovery), then let through again before
# ctrl-loss-tmo: the host reconnects, fio runs on and ends with no error,
# no member is faulty, the array stays active.
# Permanent path loss: target 2 cut for good with XFS mounted on the
# array and a file fsynced: past ctrl-loss-tmo its controller and
# namespaces are removed, IO on its slots fails with EIO (on the others
# completes), status shows them faulty or gone, XFS unmounts, the array
# stops; the target back and reconnected, plain assemble refuses its
# members as stale (the others recorded the loss), assemble --force
# starts the array and the file reads back.
# Catches: limits not stacked from fabric members (poll advertised over
# members without poll queues), member bios beyond a member's limits, a
# member marked faulty or an EIO while the fabric queues IO across a
# reconnect, a hang (IO, umount, stop) when a remote member is gone.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
. "$(dirname "$0")/fabric_lib.sh"
mqs_init
trap fab_cleanup EXIT
mqs_require_cmd fio
mqs_require_cmd mkfs.xfs

fab_require
CH=$((64 << 10))

# ------------------------------------------------------------ test bed
if fab_setup 2 2 128M >"$MQS_TMP/fab.out" 2>&1; then
	pass "2 nvmet targets, 2 namespaces each, connected over nvme-tcp"
else
	mqs_die "2 nvmet targets, 2 namespaces each, connected over nvme-tcp" \
		"$(cat "$MQS_TMP/fab.out")"
fi
diag "$(cat "$MQS_TMP/fab.out")"
M=("${FAB_DEVS[@]}")
check_eq "4 remote namespaces" 4 "${#M[@]}"
diag "members: ${M[*]}"
for m in "${M[@]}"; do
	check_eq "$(blk_name "$m"): transport tcp" tcp \
		"$(cat "$(blk_sys "$m")/device/transport" 2>/dev/null ||
			cat "$(blk_sys "$m")"/device/nvme*/transport 2>/dev/null | head -n 1)"
	check_eq "$(blk_name "$m"): no poll queues (io_poll 0)" 0 "$(qattr "$m" io_poll)"
done

# ------------------------------------------------- limits, large IO
mqs_must_create --chunk "$CH" "${M[@]}"
DEV=$MQS_DEV
import_checks "limits: " "$PYTHON" -S "$MQS_DIR/limits.py" "$DEV" "$CH" "${M[@]}"
check_eq "array over nvme-tcp members: io_poll 0" 0 "$(qattr "$DEV" io_poll)"

trace_block block_split || mqs_die "tracefs: the block_split event" "cannot enable it"
T=$MQS_TRACE
check_cmd "fio: direct 1M and 192K writes verify (libaio)" \
	fio --filename="$DEV" --direct=1 --ioengine=libaio --iodepth=4 \
	--verify=crc32c --do_verify=1 --output="$MQS_TMP/fio1.out" \
	--name=w1m --rw=write --bs=1M --size=16M \
	--name=w192k --rw=randwrite --bs=192K --offset=16M --size=12M --stonewall
echo 0 >"$T/tracing_on"
splits=0
for m in "${M[@]}"; do
	dc=$(blk_devno "$m" | tr : ,)
	splits=$((splits + $(grep -c "block_split: $dc " "$T/trace")))
done
check_eq "no member split a bio of the array (block_split on the members)" 0 "$splits"
echo 0 >"$T/events/block/block_split/enable"

# ----------------------------------------------- transient path loss
# wait_ctrl CTRL STATE SECS: until /sys/class/nvme/CTRL/state is (or with
# a leading !, is no longer) STATE
wait_ctrl() {
	local f=/sys/class/nvme/$1/state want=$2 t0=$SECONDS st
	while :; do
		st=gone
		[ -r "$f" ] && read -r st <"$f"
		if [ "${want#!}" != "$want" ]; then
			[ "$st" != "${want#!}" ] && break
		else
			[ "$st" = "$want" ] && break
		fi
		[ $((SECONDS - t0)) -ge "$3" ] && { echo "$st"; return 1; }
		sleep 0.5
	done
	echo "$st"
}
C2=$(fab_ctrl 2) || mqs_die "the controller of target 2" "none has $FAB_NQN""2"
# with native multipath, a second path to target 1's namespaces (port 11)
# adds no block device, and cut under IO it is invisible to the array
C1B=
if [ "$(cat /sys/module/nvme_core/parameters/multipath 2>/dev/null)" = Y ]; then
	check_cmd "a second path to target 1 (port 11)" fab_second_path 1 11
	C1B=$(fab_ctrl 1 11) || fail "the second controller of target 1" "none on port 11"
	mapfile -t P1 < <(fab_disks 1)
	check_eq "target 1 over two paths: still its 2 multipath heads" \
		"${M[*]:0:2}" "${P1[*]}"
else
	diag "nvme_core.multipath off: no second path"
fi
fio_bg "$MQS_TMP/fio-cut" "$DEV" --name=cut0 --offset=32M --size=4M \
	--name=cut1 --offset=40M --size=4M
CUTPID=$FIO_PID
if wait_ios "$DEV" 200 60 && kill -0 "$CUTPID" 2>/dev/null; then
	pass "fio randrw+verify runs on $MQS_DISK"
else
	fail "fio randrw+verify runs on $MQS_DISK" "$(cat "$MQS_TMP/fio-cut.out")"
fi
check_cmd "target 2's link cut (nft drops its port)" fab_cut 2
[ -n "$C1B" ] && check_cmd "target 1's second path cut" fab_cut 11
st=$(wait_ctrl "$C2" '!live' 120)
check_cmd "the host sees the path loss within 120 s ($C2: $st)" [ "$st" != live ]
if [ -n "$C1B" ]; then
	st=$(wait_ctrl "$C1B" '!live' 120)
	check_cmd "the host sees target 1's second path lost within 120 s ($C1B: $st)" \
		[ "$st" != live ]
	fab_restore 11
fi
fab_restore 2
st=$(wait_ctrl "$C2" live $((FAB_LOSS_TMO + 60)))
check_eq "$C2 reconnects after the link is back" live "$st"
if [ -n "$C1B" ]; then
	st=$(wait_ctrl "$C1B" live $((FAB_LOSS_TMO + 60)))
	check_eq "$C1B (target 1's second path) reconnects" live "$st"
fi
if wait_ios "$DEV" 200 60 && kill -0 "$CUTPID" 2>/dev/null; then
	pass "fio runs on after the reconnect"
else
	fail "fio runs on after the reconnect" "$(cat "$MQS_TMP/fio-cut.out")"
fi
kill -INT "$CUTPID"
wait_pid_until "$CUTPID" $((SECONDS + 60))
check_num -ne "fio ends within 60 s of SIGINT" 124 "$?"
# per job: errno (EIO, or EILSEQ for data that does not verify), did IO
check_eq "fio: both jobs did IO and verified, no error" "cut0 0 1 cut1 0 1" \
	"$("$PYTHON" -S - "$MQS_TMP/fio-cut.json" 2>&1 <<'EOF'
import json, sys
t = open(sys.argv[1]).read()
d = json.loads(t[t.index("{"):])
print(" ".join("%s %d %d" % (j["jobname"], j["error"],
                             j["read"]["total_ios"] + j["write"]["total_ios"] > 0)
               for j in d["jobs"]))
EOF
)"
"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/st.json" 2>&1
keys=(state)
for i in 0 1 2 3; do
	keys+=("members.$i.state" "members.$i.read_errors" "members.$i.write_errors")
done
check_eq "status: array active, every member ok with no error" \
	"active ok 0 0 ok 0 0 ok 0 0 ok 0 0" "$(jget "$MQS_TMP/st.json" "${keys[@]}")"

# ------------------------------------------------------------ XFS
MNT=$MQS_TMP/mnt
mkdir -p "$MNT"
check_cmd "mkfs.xfs on $MQS_DISK" mkfs.xfs -f -q "$DEV"
mount "$DEV" "$MNT" || mqs_die "mount XFS on $MQS_DISK"
MQS_MOUNTS+=("$MNT")
check_cmd "fio verify of a file on XFS" \
	fio --directory="$MNT" --name=f --rw=randwrite --bs=16k --size=24M \
	--ioengine=psync --verify=crc32c --do_verify=1 --end_fsync=1 \
	--output="$MQS_TMP/fio2.out"

# ----------------------------------------------- permanent path loss
# a file acknowledged (fsync) before the loss
dd if=/dev/urandom of="$MNT/keep" bs=1M count=8 conv=fsync status=none ||
	mqs_die "write and fsync an 8 MiB file on XFS"
SUM=$(sha256sum <"$MNT/keep")
check_cmd "target 2's link cut for good" fab_cut 2
st=$(wait_ctrl "$C2" gone $((FAB_LOSS_TMO + 150)))
check_eq "past ctrl-loss-tmo ($FAB_LOSS_TMO s) $C2 and its namespaces are removed" gone "$st"
# chunk c of the array is on slot c % 4; slots 2 and 3 are target 2's
single_ios "$DEV" "read:$((6 * CH)):4096" "read:$((4 * CH)):4096" \
	"write:$((7 * CH)):4096:71" >"$MQS_TMP/ios" 2>&1
check_eq "IO on the lost members fails with EIO, on the others completes" \
	"EIO OK EIO" "$(tr '\n' ' ' <"$MQS_TMP/ios" | sed 's/ $//')"
t0=$SECONDS
while :; do
	"$STRIPECTL" status --json "$DEV" >"$MQS_TMP/st.json" 2>&1
	st=$(jget "$MQS_TMP/st.json" members.0.state members.1.state members.2.state members.3.state)
	[[ $st =~ ^ok\ ok\ (faulty|gone)\ (faulty|gone)$ ]] && break
	[ $((SECONDS - t0)) -ge 60 ] && break
	sleep 1
done
check_match "status: slots 2 and 3 faulty or gone within 60 s, 0 and 1 ok" \
	'^ok ok (faulty|gone) (faulty|gone)$' "$st"
check_cmd "umount of XFS on the array without its members (120 s)" \
	timeout 120 umount "$MNT"
check_stop "$DEV"

# the target back: a new connection, the same namespaces
fab_restore 2
check_cmd "target 2 reconnected" fab_connect 2
fab_wait_disks 2 2
mapfile -t M2 < <(fab_disks 1; fab_disks 2)
check_eq "the 4 namespaces are back" 4 "${#M2[@]}"
diag "members: ${M2[*]}"
mqs_settle
# the members that stayed recorded the loss (events): the lost ones are
# refused as stale until the admin accepts their data with --force
T2RE=$(fab_disks 2 | tr '\n' '|' | sed 's/|$//')
check_fails "assemble refuses target 2's members as stale, saying to use --force" \
	1 "^stripectl: ($T2RE): stale member of array .*'stripectl assemble --force'" \
	"$STRIPECTL" assemble "${M2[@]}"
out=$("$STRIPECTL" assemble --force "${M2[@]}" 2>"$MQS_TMP/asm.err")
rc=$?
diag "assemble --force: $(cat "$MQS_TMP/asm.err")"
check_eq "assemble --force starts the array again" 0 "$rc"
if [[ $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
	MQS_ARRAYS+=("$out")
	_mqs_set_dev "$out"
	mqs_settle
	if mount "$MQS_DEV" "$MNT"; then
		check_eq "the file acknowledged before the loss reads back" "$SUM" \
			"$(sha256sum <"$MNT/keep")"
		check_cmd "umount" umount "$MNT"
	else
		fail "mount XFS after assemble"
	fi
	check_stop "$MQS_DEV"
else
	fail "assemble printed the array" "$out $(cat "$MQS_TMP/asm.err")"
fi

mqs_finish
