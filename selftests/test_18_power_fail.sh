#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Power-fail consistency.  The members are four
# memory-backed configfs null_blk devices with a volatile write cache
# (cache_size): power=0 deletes the disk and drops what is still in its
# cache, power=1 brings back what reached its "media".
#  0. Control: a null_blk device of the same kind written with O_DIRECT
#     and no flush, powered off and on, reads as zeroes: the injector
#     really loses unflushed writes, so the test below can fail.
#  1. On the array: a region written then fsynced, a region written with
#     O_DSYNC, ext4 (first 128 MiB) with files written and fsynced (and
#     their directory); then power is cut on all members at once, the
#     filesystem unmounted and the array stopped (members gone), power
#     comes back, the array is assembled from its superblocks (stripectl
#     create flushed them), and every acknowledged write reads back, ext4
#     mounts (the kernel replays its journal), its files hold what was
#     fsynced and e2fsck -fn then finds no error.
# Catches: flushes or FUA not forwarded to every member written (lost
# fsync/O_DSYNC data, a journal that does not replay), a superblock
# written by stripectl but never flushed, an array that cannot be stopped
# once its members are gone.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd mkfs.ext4 e2fsck sha256sum
trap fault_cleanup EXIT

nbwhy=$(nullb_ready) || mqs_skip "$nbwhy"
for f in memory_backed cache_size power; do
	nullb_has "$f" || mqs_skip "null_blk has no $f attribute ($(cat "$NULLB_CFG/features"))"
done
MB=64
ATTRS=("size=$MB" blocksize=512 memory_backed=1 cache_size=16)

# ---- 0. the control
nullb_create mqs18_ctl "${ATTRS[@]}" || mqs_die "null_blk control device"
CTL=$NULLB_DEV
CTLCFG=${NULLB_DIRS[0]}
check_eq "$(blk_name "$CTL") has a volatile write cache" "write back" "$(qattr "$CTL" write_cache)"
check_cmd "control: 1 MiB fsynced at 0" pattern fill "$CTL" 0 1M 90
check_cmd "control: 1 MiB not flushed at 4M" pattern fill "$CTL" 4M 1M 90 --sync none
if ! { echo 0 >"$CTLCFG/power" && echo 1 >"$CTLCFG/power"; }; then
	mqs_die "power cycle of the control device"
fi
for i in $(seq 50); do [ -b "$CTL" ] && break; sleep 0.1; done
check_cmd "control: the fsynced MiB survives the power cut" pattern check "$CTL" 0 1M 90
check_cmd "control: the unflushed MiB is lost (reads as zeroes)" pattern zero "$CTL" 4M 1M

# ---- 1. the array
M=()
CFG=()
for i in 0 1 2 3; do
	nullb_create "mqs18_$i" "${ATTRS[@]}" || mqs_die "null_blk member $i"
	M+=("$NULLB_DEV")
	CFG+=("${NULLB_DIRS[-1]}")
done
mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
check_eq "$MQS_DISK has a volatile write cache" "write back" "$(qattr "$DEV" write_cache)"
diag "fua: $(qattr "$DEV" fua), members: $(qattr "${M[0]}" fua)"
FS=$((128 << 20))
A=$((160 << 20))
B=$((176 << 20))
check_cmd "region A: 2 MiB written, then fsync" pattern fill "$DEV" $A 2M 91
check_cmd "region B: 2 MiB written with O_DSYNC" pattern fill "$DEV" $B 2M 92 --sync dsync --vary
check_cmd "mkfs.ext4 on the first 128 MiB" mkfs.ext4 -F -q "$DEV" $((FS / 4096))
MNT=$MQS_TMP/mnt
mqs_mount "$DEV" "$MNT" || mqs_die "mount ext4"
# files written and fsynced, their directory fsynced; sha256 recorded
"$PYTHON" -S - "$MNT" >"$MQS_TMP/files" 2>&1 <<'PYEOF'
import hashlib, os, sys
d = os.path.join(sys.argv[1], "acked")
os.mkdir(d)
for i in range(8):
    data = os.urandom(64 * 1024 * (i + 1))
    p = os.path.join(d, "f%d" % i)
    fd = os.open(p, os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    print(hashlib.sha256(data).hexdigest(), "acked/f%d" % i)
dfd = os.open(d, os.O_RDONLY)
os.fsync(dfd)
os.close(dfd)
dfd = os.open(sys.argv[1], os.O_RDONLY)
os.fsync(dfd)
os.close(dfd)
PYEOF
check_eq "8 files written and fsynced" 8 "$(grep -c acked/ "$MQS_TMP/files")"
# and some that nobody waits for
dd if=/dev/urandom of="$MNT/unsynced" bs=64k count=16 2>/dev/null

# cut power on every member at once
for c in "${CFG[@]}"; do
	echo 0 >"$c/power" &
done
wait
pass "power cut on all members"
check_eq "the members are gone" "" "$(for m in "${M[@]}"; do [ -b "$m" ] && echo "$m"; done)"
out=$(timeout 60 umount "$MNT" 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	pass "umount after the power cut"
	MQS_MOUNTS=()
else
	fail "umount after the power cut" "exit $rc: $out"
	umount -l "$MNT"
	MQS_MOUNTS=()
fi
check_stop "$DEV"
for c in "${CFG[@]}"; do
	echo 1 >"$c/power" || fail "power on $c"
done
for i in $(seq 50); do
	n=0
	for m in "${M[@]}"; do [ -b "$m" ] && n=$((n + 1)); done
	[ $n -eq 4 ] && break
	sleep 0.1
done
check_eq "the members are back" 4 "$n"

# the stop after the cut could write no member: the superblocks still
# say active, and the assembly says the array was not stopped cleanly
out=$("$STRIPECTL" assemble "${M[@]}" 2>"$MQS_TMP/assemble.err")
check_match "assemble after the power cut: warns that the array was not stopped cleanly" \
	"^stripectl: warning: array .* was not stopped cleanly" "$(<"$MQS_TMP/assemble.err")"
if [[ $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
	pass "assemble from the superblocks after the power cut"
	MQS_ARRAYS+=("$out")
	_mqs_set_dev "$out"
	DEV=$out
else
	fail "assemble from the superblocks after the power cut" "$out" "$(<"$MQS_TMP/assemble.err")"
	mqs_must_create --chunk 64K "${M[@]}"
	DEV=$MQS_DEV
fi
check_cmd "region A (fsynced) reads back" pattern check "$DEV" $A 2M 91
check_cmd "region B (O_DSYNC) reads back" pattern check "$DEV" $B 2M 92
if mqs_mount "$DEV" "$MNT"; then
	pass "ext4 mounts after the power cut (journal replay)"
	check_cmd "the fsynced files hold what was written" \
		bash -c "cd '$MNT' && sha256sum -c --quiet '$MQS_TMP/files'"
	umount "$MNT" && MQS_MOUNTS=()
else
	fail "ext4 mounts after the power cut (journal replay)"
fi
check_cmd "e2fsck -fn finds no error" e2fsck -fn "$DEV"
check_stop "$DEV"
mqs_finish
