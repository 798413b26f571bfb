#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flush and FUA.  fio with fsync=1 completes and the members' flush
# counters rise (field 16 of /sys/block/MEMBER/stat, "flush I/Os";
# Documentation/block/stat.rst); an fsync after a write to one member, and
# after a full-stripe write, flushes every member written.  A write with
# RWF_DSYNC on the O_DIRECT array reaches every member it touches as FUA or
# with a flush: the block_rq_issue tracepoint's rwbs holds an 'F' (stat
# cannot show FUA).  A plain write must not.
# A member without a volatile cache at create that gains one later gets
# flushes.
# Catches: flushes dropped or sent to one member only, FUA bits lost on the
# member bios, every write turned into FUA, the write cache decided once at
# create.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
[ -n "$(blk_stat "${M[0]}" 16)" ] || mqs_skip "/sys/block/*/stat has no flush field (kernel < 5.5)"
wb=0
for m in "${M[@]}"; do
	[ "$(qattr "$m" write_cache)" = "write back" ] && wb=$((wb + 1))
done
[ $wb -gt 0 ] || mqs_skip "no member has a volatile write cache: flushes are not sent"

mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
mqs_settle

# --- fsync=1 over all members: completes, every member's counter rises
fl() { local m; for m in "${M[@]}"; do blk_stat "$m" 16; done | tr '\n' ' '; }
before=$(fl)
nfsync=32
if fio --name=fsync --filename="$DEV" --rw=write --bs=8k --size=$((nfsync * 8192)) \
	--offset=$((32 << 10)) --ioengine=psync --direct=1 --fsync=1 \
	>"$MQS_TMP/fio.out" 2>&1; then
	pass "fio --fsync=1 completes"
else
	fail "fio --fsync=1 completes" "$(tail -n 20 "$MQS_TMP/fio.out")"
fi
after=$(fl)
diag "member flush counters before: $before after: $after"
read -r -a b <<<"$before"
read -r -a a <<<"$after"
for i in "${!M[@]}"; do
	check_ge "$(blk_name "${M[i]}"): flush counter rose during fio --fsync=1" $((b[i] + 1)) "${a[i]}"
done

# --- one member written, one fsync: that member must be flushed (the
# driver may skip members not written since their last flush)
# fsync_after_write OFF LEN: O_DIRECT write, then fsync of the array
fsync_after_write() {
	"$PYTHON" -S - "$DEV" "$1" "$2" <<'EOF'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
n = int(sys.argv[3])
buf = mmap.mmap(-1, n)
buf.write(os.urandom(n))
assert os.pwritev(fd, [buf], int(sys.argv[2])) == n
os.fsync(fd)
os.close(fd)
EOF
}
for i in "${!M[@]}"; do
	read -r -a b <<<"$(fl)"
	# chunk 8+i lives on member i (row 2)
	fsync_after_write $(((8 + i) * 65536)) 4096 || fail "write + fsync on member $i"
	read -r -a a <<<"$(fl)"
	if [ "$(qattr "${M[i]}" write_cache)" = "write back" ]; then
		check_ge "$(blk_name "${M[i]}") flushed by the fsync after a write to it" \
			$((b[i] + 1)) "${a[i]}"
	fi
done
read -r -a b <<<"$(fl)"
fsync_after_write $((16 * 65536)) $((4 * 65536)) || fail "256K write + fsync"
read -r -a a <<<"$(fl)"
for i in "${!M[@]}"; do
	check_ge "$(blk_name "${M[i]}") flushed by the fsync after a full-stripe write" \
		$((b[i] + 1)) "${a[i]}"
done

# --- tracepoint: rwbs of the member requests
T=$(tracefs_dir) || mqs_die "tracefs available" "cannot mount tracefs"
[ -d "$T/events/block/block_rq_issue" ] || mqs_die "block_rq_issue tracepoint exists" "no $T/events/block/block_rq_issue"
MQS_TRACE=$T
echo 0 >"$T/tracing_on"
echo 1 >"$T/events/block/block_rq_issue/enable"

# write_traced DESC FLAGS OFF LEN: one O_DIRECT pwritev on the array,
# leaves the member requests ("maj,min rwbs") in $MQS_TMP/trace
write_traced() {
	echo >"$T/trace"
	echo 1 >"$T/tracing_on"
	"$PYTHON" -S - "$DEV" "$2" "$3" "$4" <<'EOF'
import mmap, os, sys
dev, flags, off, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, n)
buf.write(os.urandom(n))
f = os.RWF_DSYNC if flags == "dsync" else 0
assert os.pwritev(fd, [buf], off, f) == n
os.close(fd)
EOF
	local rc=$?
	echo 0 >"$T/tracing_on"
	# "... block_rq_issue: 259,0 WFS 4096 () 2048 + 8 [python3]"
	sed -n 's/.*block_rq_issue: \([0-9]*,[0-9]*\) \([A-Z]*\) .*/\1 \2/p' "$T/trace" >"$MQS_TMP/trace"
	return "$rc"
}

devcomma() { blk_devno "$1" | tr : ,; }

# 128 KiB at 32 KiB: chunks 0, 1, 2 -> members 0, 1, 2
check_cmd "RWF_DSYNC O_DIRECT write of 128K at 32K" write_traced dsync dsync $((32 << 10)) $((128 << 10))
diag "member requests: $(tr '\n' ';' <"$MQS_TMP/trace")"
for i in 0 1 2; do
	dc=$(devcomma "${M[i]}")
	got=$(awk -v d="$dc" '$1 == d { print $2 }' "$MQS_TMP/trace" | tr '\n' ' ')
	if grep -q F <<<"$got"; then
		pass "$(blk_name "${M[i]}") got FUA or a flush for the RWF_DSYNC write ($got)"
	else
		fail "$(blk_name "${M[i]}") got FUA or a flush for the RWF_DSYNC write" \
			"rwbs of its requests: '${got}' (expected one with F)"
	fi
done
check_cmd "plain O_DIRECT write of 128K at 32K" write_traced plain 0 $((32 << 10)) $((128 << 10))
diag "member requests: $(tr '\n' ';' <"$MQS_TMP/trace")"
seen=0
for i in 0 1 2; do
	dc=$(devcomma "${M[i]}")
	got=$(awk -v d="$dc" '$1 == d { print $2 }' "$MQS_TMP/trace" | tr '\n' ' ')
	grep -q W <<<"$got" && seen=$((seen + 1))
	if grep -q F <<<"$got"; then
		fail "$(blk_name "${M[i]}"): a plain write carries no FUA or flush" "rwbs: '$got'"
	else
		pass "$(blk_name "${M[i]}"): a plain write carries no FUA or flush ($got)"
	fi
done
check_eq "the plain write reached members 0, 1 and 2 (tracing works)" 3 "$seen"
check_stop "$DEV"

# --- the write cache is looked at per flush, not once at create: members
# without a volatile cache at create (here by sysfs; a dm member reloaded
# onto another target is the same), then member 0 gains one
for m in "${M[@]:0:2}"; do
	mqs_sysfs_set "$(blk_sys "$m")/queue/write_cache" "write through"
done
mqs_must_create --chunk 64K "${M[@]:0:2}"
DEV=$MQS_DEV
echo "write back" >"$(blk_sys "${M[0]}")/queue/write_cache"
read -r -a b <<<"$(fl)"
# chunk 2 is on member 0
fsync_after_write $((2 * 65536)) 4096 || fail "write + fsync on member 0"
read -r -a a <<<"$(fl)"
check_ge "$(blk_name "${M[0]}") (write cache turned on after create) flushed by the fsync after a write to it" \
	$((b[0] + 1)) "${a[0]}"
check_eq "$(blk_name "${M[1]}") (write through) not flushed" "${b[1]}" "${a[1]}"
mqs_sysfs_restore
check_stop "$DEV"
mqs_finish
