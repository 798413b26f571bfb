#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Members of unequal size: zones (md raid0's rule).  Four dm-linear
# members of 5M, 9M, 9M and 13M (4M, 8M, 8M and 12M of data after the 1M
# data offset: 1:2:2:3), 64K chunk: zone 0 stripes 16M over all four,
# zone 1 12M over the three larger, zone 2 4M over the largest alone.
#  - create uses all of every member: the capacity is the sum, 32M (an
#    array of equal use would be 4 x 4M = 16M), said in one line; examine
#    and status show the three zones; format 1 refuses unequal members;
#  - the whole array filled through the array with IO of odd sizes, then
#    every member read directly where the rule puts each chunk (pattern.py
#    zonecheck: a brute-force layout, row by row of member bytes);
#  - every zone boundary crossed by O_DIRECT writes and reads of odd sizes
#    (a 3-sector write and a 511-sector read across it, among others),
#    checked through the array and on the members;
#  - grow refused (not supported for zones), saying so;
#  - stop, the member devices made again in another order (other device
#    numbers) and given to assemble in another order: the same capacity
#    and every byte reads back;
#  - create --size 16M: one zone over all four (the old capacity).
#  - segments (members added as a set, MQSTRIPE_CREATE_F_SEGMENTS, made
#    through the control ioctl by mqs_ioctl create): segment 0 the first
#    two members with 4M of data each (one zone, 8M), segment 1 the other
#    two with 8M and 12M (16M over both, then 4M on the last): 28M, INFO
#    reports the segments; io_opt is segment 0's stripe; the whole array
#    filled and every chunk checked on its member (pattern.py zonecheck
#    --segments: each segment laid out by brute force on its own); the
#    segment boundary (8M) and the zone boundary in segment 1 (24M)
#    crossed by odd-sized writes and reads, a write-zeroes across the
#    segment boundary; the array removed and made again with the same
#    layout: every byte reads back.  Malformed segment lists are refused
#    (EINVAL, MQSTRIPE_ERR_GEOMETRY) and leave no array.
# Catches: a capacity of N x the smallest (the rest of larger members
# lost), a zone table or lookup that puts a chunk elsewhere than the rule,
# a request across a zone boundary mapped by one zone's rule, sizes not
# kept by the superblocks (an assemble that loses the zones); a module
# that refuses segments, maps a later segment over every member (or the
# first segment's zones moved), or cuts a request at the segment boundary
# wrongly.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dmsetup
modprobe dm-mod 2>/dev/null

NV=$(nvme_disks | head -n 1)
[ -n "$NV" ] || mqs_skip "needs an NVMe disk"
SIZES=(5 9 9 13)	# MiB of each member
# make member $1 (a slice of $NV), its device in M[$1]
M=()
make_member() {
	mqs_dm_slice zone "$NV" "$1" "${SIZES[@]}" || mqs_die "dm device zone$1"
	M[$1]=$DM_DEV
}
for i in 0 1 2 3; do make_member "$i"; done
K=65536
B1=$((16 << 20)) B2=$((28 << 20)) CAP=$((32 << 20))
mark=$(klog_mark "test_40 zones")

mqs_must_create --chunk 64K --name zoned "${M[@]}"
ARR=$MQS_DEV
check_match "create says the array has zones" \
	"note: members of unequal size: the array is 32M in 3 zones; the first 16M stripes over all 4 members \(up to the smallest, 4M of each\), the other 16M over the members that are larger" \
	"$(cat "$MQS_TMP/create.err")"
check_eq "capacity: the sum of the members' data (4M + 8M + 8M + 12M)" \
	"$CAP" "$(blk_bytes "$ARR")"
"$STRIPECTL" examine --json "${M[3]}" >"$MQS_TMP/ex.json" 2>&1
check_eq "examine: 3 zones of 4, 3 and 1 members, at 0, 16M and 28M" \
	"4 3 1 0 $B1 $B2 $CAP" \
	"$(jget "$MQS_TMP/ex.json" zones.0.nr_members zones.1.nr_members zones.2.nr_members zones.0.array_start_bytes zones.1.array_start_bytes zones.2.array_start_bytes capacity_bytes)"
"$PYTHON" -S "$MQS_DIR/persist/sbtool.py" parse "${M[1]}" >"$MQS_TMP/sbt.json" 2>&1
check_eq "sbtool.py (docs/FORMAT.md alone): valid, feature_incompat 1, each member's data" \
	"ok 1 $((4 << 20)) $((4 << 20)) $((8 << 20)) $((8 << 20)) $((12 << 20))" \
	"$(jget "$MQS_TMP/sbt.json" status feature_incompat data_bytes member_data_bytes.0 member_data_bytes.1 member_data_bytes.2 member_data_bytes.3)"
"$STRIPECTL" status --json "$ARR" >"$MQS_TMP/st.json" 2>&1
check_eq "status: each member's data, the zones" \
	"$((4 << 20)) $((8 << 20)) $((8 << 20)) $((12 << 20)) 3 1" \
	"$(jget "$MQS_TMP/st.json" members.0.data_bytes members.1.data_bytes members.2.data_bytes members.3.data_bytes zones.1.nr_members zones.2.nr_members)"
check_eq "io_opt: the first zone's stripe (4 x 64K)" $((4 * K)) \
	"$(cat "$MQS_SYS/queue/optimal_io_size")"

# the whole array, IO of odd sizes, the members checked directly; then
# every zone boundary crossed by odd-sized writes and reads, checked on
# the members and through the array (one pattern.py: steps)
MS=()
for i in 0 1 2 3; do MS+=("${M[i]}:$(((SIZES[i] - 1) << 20))"); done
steps "write the whole array, IO of odd sizes" fill "$ARR" 0 "$CAP" 40 --vary
steps "every chunk on the member where the zone rule puts it" \
	zonecheck 64K 1M 40 "${MS[@]}"
S=197120 L=459776	# a range from 385 sectors before a boundary
# cross DEV CAP WHAT B...: odd-sized writes (seed 41) and reads across
# each boundary B, from S before it, L long; the ranges in R (--range
# OFF:LEN) and the whole array's OFF:LEN:SEED (40 elsewhere) in RANGES
cross() {
	local dev=$1 cap=$2 what=$3 b s prev=0
	shift 3
	R=() RANGES=()
	for b in "$@"; do
		s=$((b - S))
		steps "${what}a 3-sector write across byte $b" \
			fill "$dev" $s $L 41 --sizes 196608,1536,261632
		steps "${what}a 511-sector write across byte $b" \
			fill "$dev" $s $L 41 --sizes 100352,261632,97792
		steps "${what}a 7-sector read across byte $b" \
			check "$dev" $s $L 41 --sizes 195584,3584,260608
		steps "${what}a 511-sector read across byte $b" \
			check "$dev" $s $L 41 --sizes 100352,261632,97792
		R+=(--range "$s:$L")
		RANGES+=("$prev:$((s - prev)):40" "$s:$L:41")
		prev=$((s + L))
	done
	RANGES+=("$prev:$((cap - prev)):40")
}
cross "$ARR" "$CAP" "" $B1 $B2
steps "the writes across the boundaries on the members, by the zone rule" \
	zonecheck 64K 1M 41 "${MS[@]}" "${R[@]}"
steps "the whole array reads back (each range its seed)" \
	each check "${RANGES[@]/#/$ARR:}"
steps_run

check_fails "grow: refused for an array of zones, saying so" 1 \
	"its members are of unequal size \(the array is made of zones\): growing such an array is not supported yet" \
	"$STRIPECTL" grow "$ARR"

# stop; the members again in another order, assembled in another order
mqs_stop "$ARR" || mqs_die "stop"
old="${M[*]}"
for i in 0 1 2 3; do mqs_dm_remove "zone$i" || mqs_die "remove zone$i"; done
for i in 3 1 0 2; do make_member "$i"; done
[ "${M[*]}" != "$old" ] || diag "the members got the same device names again"
out=$("$STRIPECTL" assemble "${M[2]}" "${M[0]}" "${M[3]}" "${M[1]}" 2>&1) ||
	mqs_die "assemble in another order" "$out"
_mqs_set_dev "$(echo "$out" | grep -o '/dev/mqstripe[0-9]*' | head -n 1)"
MQS_ARRAYS+=("$MQS_DEV")
ARR=$MQS_DEV
check_eq "assembled: the same capacity" "$CAP" "$(blk_bytes "$ARR")"
steps "after the assemble every byte reads back" \
	each check "${RANGES[@]/#/$ARR:}"
steps_run
mqs_stop "$ARR" || mqs_die "stop again"

# format 1 cannot record the sizes; --size: one zone over every member,
# the capacity of equal use
check_fails "create --metadata 1 over members of unequal size: refused" 2 \
	"members of unequal size \(room for 4M to 12M of data\): superblock format 1 cannot record each member's size; give --size 16M" \
	"$STRIPECTL" create "${MQS_FORCE[@]}" --metadata 1 --chunk 64K "${M[@]}"

mqs_must_create --chunk 64K --size 16M "${M[@]}"
check_eq "create --size 16M: 4 x 4M, one zone" "$B1" "$(blk_bytes "$MQS_DEV")"
"$STRIPECTL" examine --export "${M[3]}" >"$MQS_TMP/ex" 2>&1
check_eq "... its superblocks record no member sizes" 0 \
	"$(grep -c '^MQSTRIPE_MEMBER_DATA_BYTES=' "$MQS_TMP/ex")"
mqs_stop "$MQS_DEV" || mqs_die "stop the array of one zone"

# segments, through the control ioctl (stripectl's add is its own test)
IOCTL=$MQS_DIR/mqs_ioctl
[ -x "$IOCTL" ] || mqs_die "mqs_ioctl built" "$IOCTL missing: run 'make -C selftests' on the host"
for i in 0 1 2 3; do	# no superblock of the arrays before
	dd if=/dev/zero of="${M[i]}" bs=8K count=1 oflag=direct status=none
done
SEGSIZES=4M,4M,8M,12M
SB1=$((8 << 20)) SB2=$((24 << 20)) SCAP=$((28 << 20))
GEOM=10	# MQSTRIPE_ERR_GEOMETRY
before=$(mqs_arrays | wc -l)
check_fails "segments without member sizes: EINVAL, MQSTRIPE_ERR_GEOMETRY, no member" \
	1 "^error EINVAL code $GEOM member -1\$" \
	"$IOCTL" create -c 64K -g 2,2 "${M[@]}"
for bad in 4 2,1 2,0,2 1,1,1,2; do
	check_fails "segments $bad of 4 members: EINVAL, MQSTRIPE_ERR_GEOMETRY, no member" \
		1 "^error EINVAL code $GEOM member -1\$" \
		"$IOCTL" create -c 64K -s $SEGSIZES -g $bad "${M[@]}"
done
check_fails "segment_members without the flag: EINVAL" \
	1 "^error EINVAL code 0 member 0\$" \
	"$IOCTL" create -c 64K -s $SEGSIZES -G 2,2 "${M[@]}"
check_eq "the refusals left no array" "$before" "$(mqs_arrays | wc -l)"

# mqs_seg_create: the array of segments 2,2, its device in SEG_DEV
mqs_seg_create() {
	local out
	out=$("$IOCTL" create -c 64K -s $SEGSIZES -g 2,2 "${M[@]}") ||
		mqs_die "create segments 2,2" "$out"
	SEG_IDX=$(echo "$out" | sed -n 's/^index \([0-9]*\) .*/\1/p')
	SEG_DEV=/dev/mqstripe$SEG_IDX
	MQS_ARRAYS+=("$SEG_DEV")
	udevadm settle 2>/dev/null
	check_eq "segments 2,2: INFO: 28M, member_data 4M (the first zone's), segments 2 and 2, each member's data" \
		"capacity $SCAP member_data $((4 << 20)) segments 2 2 2 0 0 data $((4 << 20)) $((4 << 20)) $((8 << 20)) $((12 << 20))" \
		"${out#"index $SEG_IDX "}"
}
mqs_seg_remove() {
	local out
	out=$("$IOCTL" remove "$SEG_IDX") || mqs_die "remove $SEG_DEV" "$out"
	unset 'MQS_ARRAYS[${#MQS_ARRAYS[@]}-1]'
}
mqs_seg_create
check_eq "segments: the capacity" "$SCAP" "$(blk_bytes "$SEG_DEV")"
check_eq "segments: io_opt is the first segment's stripe (2 x 64K)" \
	$((2 * K)) "$(cat "/sys/block/mqstripe$SEG_IDX/queue/optimal_io_size")"
SMS=("${M[0]}:4M" "${M[1]}:4M" "${M[2]}:8M" "${M[3]}:12M")
steps "segments: write the whole array, IO of odd sizes" \
	fill "$SEG_DEV" 0 "$SCAP" 40 --vary
steps "segments: every chunk on its member, each segment laid out alone" \
	zonecheck 64K 1M 40 "${SMS[@]}" --segments 2,2
cross "$SEG_DEV" "$SCAP" "segments: " $SB1 $SB2
steps "segments: the writes across the boundaries on the members" \
	zonecheck 64K 1M 41 "${SMS[@]}" --segments 2,2 "${R[@]}"
# write-zeroes across the segment boundary, within the range of seed 41
ZS=$((SB1 - 99840)) ZL=199680
steps "segments: write-zeroes (BLKZEROOUT) across byte $SB1" \
	discard "$SEG_DEV" zeroout "$ZS:$ZL"
steps "... reads as zeroes" zero "$SEG_DEV" $ZS $ZL
steps "... and the data around it is intact" \
	each check "$SEG_DEV:$((SB1 - S)):$((ZS - SB1 + S)):41" \
	"$SEG_DEV:$((ZS + ZL)):$((SB1 - S + L - ZS - ZL)):41"
steps_run
mqs_seg_remove
mqs_seg_create
SEGRANGES=()
for r in "${RANGES[@]}"; do
	IFS=: read -r o n sd <<<"$r"
	if [ "$o" -eq $((SB1 - S)) ]; then	# the zeroed part apart
		SEGRANGES+=("$SEG_DEV:$o:$((ZS - o)):$sd"
			"$SEG_DEV:$((ZS + ZL)):$((o + n - ZS - ZL)):$sd")
	else
		SEGRANGES+=("$SEG_DEV:$r")
	fi
done
steps "segments: made again with the same layout, every byte reads back" \
	each check "${SEGRANGES[@]}"
steps "... the zeroed range too" zero "$SEG_DEV" $ZS $ZL
steps_run
mqs_seg_remove
check_klog "no kernel report" "$mark"
mqs_finish
