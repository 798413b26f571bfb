#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member request count: with a 64 KiB chunk and 4 members, one aligned
# 1 MiB O_DIRECT read is 4 chunks per member, contiguous on each member:
# the driver must send one 256 KiB bio per member, so each member's
# completed reads (stat field 1) rise by exactly 1 and its merged reads
# (field 2) by 0.  Plugging could merge per-chunk bios into one request,
# which shows as merges, so field 2 proves the gathering.  The same for an
# aligned 1 MiB write (fields 5 and 6).
# Catches: one bio per chunk, requests split at chunk boundaries
# (chunk_sectors), a max_sectors below 1 MiB splitting the array request.

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
for m in "${M[@]}"; do
	kb=$(qattr "$m" max_sectors_kb)
	[ "$kb" -ge 256 ] || mqs_skip "member $m max_sectors_kb $kb < 256: it would split 256 KiB itself"
done

mqs_must_create --chunk 64K "${M[@]}"
DEV=$MQS_DEV
mqs_settle

# stats F1 F2: "f1 f2" of every member
NAMES=()
for m in "${M[@]}"; do NAMES+=("$(blk_name "$m")"); done
stats() {
	local n
	local -a fields
	for n in "${NAMES[@]}"; do
		read -r -a fields <"/sys/block/$n/stat"
		echo "${fields[$1 - 1]} ${fields[$2 - 1]}"
	done
}

# one_io DESC F CMD...: run CMD, compare member counters (fields F, F+1)
one_io() {
	local desc=$1 f=$2 i b1 b2 a1 a2
	local -a before after
	shift 2
	mqs_settle
	mapfile -t before < <(stats "$f" $((f + 1)))
	if ! "$@" 2>"$MQS_TMP/io.err"; then
		fail "$desc: $1" "$(cat "$MQS_TMP/io.err")"
		return
	fi
	mapfile -t after < <(stats "$f" $((f + 1)))
	for i in "${!M[@]}"; do
		read -r b1 b2 <<<"${before[i]}"
		read -r a1 a2 <<<"${after[i]}"
		check_eq "$desc: $(blk_name "${M[i]}") completed +1, merged +0" "+1 +0" \
			"+$((a1 - b1)) +$((a2 - b2))"
	done
}

# offsets: 1 MiB aligned and stripe (256K) aligned
for k in 4 17; do
	one_io "1 MiB O_DIRECT read at $k MiB" 1 dd if="$DEV" of=/dev/null bs=1M count=1 \
		skip="$k" iflag=direct status=none
done
head -c $((1 << 20)) /dev/urandom >"$MQS_TMP/data"
one_io "1 MiB O_DIRECT write at 8 MiB" 5 dd if="$MQS_TMP/data" of="$DEV" bs=1M count=1 \
	seek=8 oflag=direct status=none
check_cmd "the written MiB reads back" cmp "$MQS_TMP/data" \
	<(dd if="$DEV" bs=1M count=1 skip=8 iflag=direct status=none)
# 2 MiB read: 8 chunks per member, still one bio each (512 KiB <= member max)
# (needs 2048 KiB max_sectors_kb and 512 segments on the array: the rules).
# The buffer is one huge page: a member bio is then 8 segments, one per
# chunk.  In 4 KiB pages it can be 128 segments, and 6.1's NVMe driver
# takes 127: the member itself would split it (seen once in a make check
# run, when no two of dd's pages were adjacent), which is not the
# driver's doing.
hp_read() { # DEV OFFSET LEN: one O_DIRECT preadv into a MAP_HUGETLB buffer
	"$PYTHON" -S - "$@" <<'PYEOF'
import mmap, os, sys
dev, off, ln = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MAP_HUGETLB = 0x40000  # linux/mman.h (x86, arm64)
buf = mmap.mmap(-1, ln, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_HUGETLB)
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
n = os.preadv(fd, [buf], off)
if n != ln:
    sys.exit("short read: %d of %d bytes" % (n, ln))
PYEOF
}
big=1
for m in "${M[@]}"; do
	[ "$(qattr "$m" max_sectors_kb)" -ge 512 ] || big=0
done
if [ $big = 1 ]; then
	hp0=$(cat "$MQS_HP")
	hugepages_set $((hp0 + 1))
	if [ "$MQS_HP_GOT" -gt "$hp0" ]; then
		one_io "2 MiB O_DIRECT read at 2 MiB" 1 hp_read "$DEV" $((2 << 20)) $((2 << 20))
	else
		fail "reserve a huge page for the 2 MiB read's buffer" "$MQS_HP reads $MQS_HP_GOT after writing $((hp0 + 1))"
	fi
	hugepages_restore
fi
check_stop "$DEV"
mqs_finish
