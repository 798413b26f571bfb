#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A create that waits on a member, and a create that fails with its disk
# open.  Member 0 of the new array is a dm device whose part under the
# array's first chunk is a second dm device, suspended: stripectl writes
# the superblocks (outside that part) and calls CREATE, whose partition
# scan of the new disk then waits in device_add_disk() until the resume.
# Meanwhile:
#   - stripectl list and status of another array answer at once;
#   - member 7, the last (a configfs null_blk device, as are members 1-6),
#     is powered off, so the create fails after its disk was added (member
#     7 cannot be linked as a holder; the links of members 0-6 before it
#     give the readers time to open);
#   - six readers (SCHED_FIFO, on the create's CPU) open the new disk (their opens wait
#     for the scan, in line before the create's teardown); those that get in keep it open
#     across that failure, then read, set it read-write (BLKROSET: the
#     driver's ->set_read_only) and close it.
# After the resume the create fails naming member 7, a reader held the
# disk across it and closed it without harm, and nothing is left: no disk, no claim, no kernel
# report (KASAN on the debug kernel), and the other array still works.
# Catches: the control mutex held across member opens and
# device_add_disk() (every command on every array hangs behind one
# suspended member); a failed create that frees the array while an opener
# holds its disk (use after free).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
trap fault_cleanup EXIT
mqs_require_cmd dmsetup

nbwhy=$(nullb_ready) || mqs_skip "$nbwhy"
modprobe dm-mod 2>/dev/null

NB=()
for i in 0 1 2 3 4 5 6 7 8 9; do
	nullb_create "mqs38_$i" size=64 blocksize=512 memory_backed=1 ||
		mqs_die "null_blk device $i"
	NB+=("$NULLB_DEV")
done
SECT=$(($(blk_bytes "${NB[0]}") / 512))
# the array's first chunk on member 0: data offset 16M, chunk 512K
OFF=32768
LEN=1024
mqs_dm_create slow "0 $LEN linear ${NB[0]} $OFF" || mqs_die "dm device slow"
SLOW=$DM_DEV
mqs_dm_create m0 "0 $OFF linear ${NB[0]} 0
$OFF $LEN linear $SLOW 0
$((OFF + LEN)) $((SECT - OFF - LEN)) linear ${NB[0]} $((OFF + LEN))" ||
	mqs_die "dm device m0"
M0=$DM_DEV

mqs_must_create --chunk 64K --name other "${NB[8]}" "${NB[9]}"
OTHER=$MQS_DEV
pattern fill "$OTHER" 0 4M 38 >/dev/null ||
	mqs_die "write the other array"
before=$(ls /sys/block)
mark=$(klog_mark "test_38 create over a suspended member")

dmsetup suspend --noudevsync mqst-slow || mqs_die "dmsetup suspend"
taskset -c 0 "$STRIPECTL" create --force --chunk 512K --data-offset 16M --name blocked \
	"$M0" "${NB[@]:1:7}" >"$MQS_TMP/create.out" 2>"$MQS_TMP/create.err" &
CPID=$!

# the new disk appears before its partition scan
NEW=
for ((i = 0; i < 300; i++)); do
	NEW=$(comm -13 <(echo "$before" | sort) <(ls /sys/block | sort) |
		grep '^mqstripe' | head -n 1)
	[ -n "$NEW" ] && break
	kill -0 $CPID 2>/dev/null || break
	sleep 0.1
done
if [ -z "$NEW" ]; then
	dmsetup resume --noudevsync mqst-slow
	wait $CPID
	mqs_die "the new disk appears while the create waits" \
		"$(cat "$MQS_TMP/create.err")"
fi
pass "the new disk $NEW appears while the create waits"
check_cmd "the create still waits (on the suspended member)" kill -0 $CPID

check_cmd "stripectl list answers meanwhile" timeout 10 "$STRIPECTL" list
check_cmd "stripectl status of the other array answers meanwhile" \
	timeout 10 "$STRIPECTL" status "$OTHER"

# the readers: their opens wait for the scan, in line for the disk's
# open_mutex before the create's teardown.  On the create's CPU and in
# SCHED_FIFO, a reader woken by the scan's unlock preempts the create at
# its next might_sleep() (in the holder links) and gets in first: it holds
# the disk.
chrt -f 10 taskset -c 0 "$PYTHON" -S - "/dev/$NEW" >"$MQS_TMP/reader.out" 2>&1 <<'EOF' &
import fcntl, os, struct, sys, threading, time
BLKROSET = 0x125d
out = []
def reader():
    try:
        fd = os.open(sys.argv[1], os.O_RDONLY)
    except OSError as e:
        out.append("open: %d" % e.errno)
        return
    time.sleep(3)
    r = ["opened"]
    try:
        os.pread(fd, 4096, 32 << 20)
        r.append("read: ok")
    except OSError as e:
        r.append("read: %d" % e.errno)
    try:
        fcntl.ioctl(fd, BLKROSET, struct.pack("i", 0))
        r.append("roset: ok")
    except OSError as e:
        r.append("roset: %d" % e.errno)
    os.close(fd)
    out.append(" ".join(r + ["closed"]))
ts = [threading.Thread(target=reader) for _ in range(6)]
for t in ts:
    t.start()
for t in ts:
    t.join()
print("\n".join(out))
EOF
RPID=$!
sleep 2
check_cmd "the readers wait for the scan" kill -0 $RPID

# member 7 goes: the create fails after its disk was added
echo 0 >"${NULLB_DIRS[7]}/power" || mqs_die "power member 7 off"
dmsetup resume --noudevsync mqst-slow || mqs_die "dmsetup resume"
wait_pid_until $CPID $((SECONDS + 60))
rc=$?
check_num -ne "the create fails (member 7 gone)" 0 "$rc"
check_match "its message names member 7" "member 7|${NB[7]##*/}" \
	"$(cat "$MQS_TMP/create.err")"
wait_pid_until $RPID $((SECONDS + 30))
out=$(cat "$MQS_TMP/reader.out")
diag "readers: $(tr '\n' ';' <<<"$out")"
check_match "a reader held the disk across the failure, then closed it" \
	"^opened.*closed$" "$out"
check_eq "no new array is left" "" \
	"$(ls /sys/block | grep -x "$NEW")"
check_eq "member 0 has no holder" "" "$(ls "$(blk_sys "$M0")/holders")"
check_eq "the other array lists alone" "1" \
	"$("$STRIPECTL" list | grep -c mqstripe)"
check_cmd "the other array reads back" \
	pattern check "$OTHER" 0 4M 38
check_stop "$OTHER"
mqs_dm_remove m0
mqs_dm_remove slow
check_klog "no warning or KASAN report in the kernel log" "$mark"
mqs_finish
