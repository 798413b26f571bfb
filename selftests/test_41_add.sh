#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Members added to a stopped array as a segment after its end (stripectl
# add, docs/FORMAT.md "Segments").  Two dm-linear members of 5M (4M of
# data after the 1M data offset), 64K chunk: an array of 8M, filled
# through the array; stopped; two members of 5M and 9M added (4M and 8M
# of data: segment 1, its two zones 8M over both, 4M over the larger).
#  - add prints what it added and the new capacity, 8M + 12M = 20M;
#  - assemble: the capacity is 20M, the old 8M read back unchanged (nothing
#    moved), the new room written and read back, also across the segment
#    boundary at 8M (a 3-sector write, a 511-sector read); segment 1's
#    first chunks on the new members at their data offset (slot 2, then
#    slot 3, then slot 2);
#  - examine and status show the segments; grow refused, saying so;
#  - stop, the member devices made again in another order (other device
#    numbers) and given to assemble in another order: the same capacity
#    and every byte reads back.
# Catches: data moved by an add, segment 1 mapped as a reshape of the
# whole array (its chunks striped over all four members), the segments
# not passed at assembly (an array of two zones over all four instead),
# a request across the segment boundary mapped by one segment's rule.

. "$(dirname "$0")/lib.sh"
mqs_init
mqs_require_cmd dmsetup
modprobe dm-mod 2>/dev/null

NV=$(nvme_disks | head -n 1)
[ -n "$NV" ] || mqs_skip "needs an NVMe disk"
SIZES=(5 5 5 9)	# MiB of each member
# make member $1 (a slice of $NV), its device in M[$1]
M=()
make_member() {
	mqs_dm_slice add "$NV" "$1" "${SIZES[@]}" || mqs_die "dm device add$1"
	M[$1]=$DM_DEV
}
for i in 0 1 2 3; do make_member "$i"; done
K=65536
OLD=$((8 << 20)) CAP=$((20 << 20))
mark=$(klog_mark "test_41 add")

mqs_must_create --chunk 64K --name added "${M[0]}" "${M[1]}"
ARR=$MQS_DEV
check_eq "capacity before: 2 x 4M" "$OLD" "$(blk_bytes "$ARR")"
steps "write the whole array, IO of odd sizes" fill "$ARR" 0 "$OLD" 40 --vary
steps_run
check_fails "add to the running array: refused, saying to stop it first" 1 \
	"is running as $ARR: stop it first" \
	"$STRIPECTL" add added "${M[2]}" "${M[3]}"
mqs_stop "$ARR" || mqs_die "stop"

out=$("$STRIPECTL" add added "${M[2]}" "${M[3]}" 2>&1) || mqs_die "add" "$out"
check_match "add: the new members, the capacity 20M (was 8M)" \
	"4 members in 2 segments; capacity 20M \(was 8M\)" "$out"
out=$("$STRIPECTL" assemble "${M[@]}" 2>&1) || mqs_die "assemble after add" "$out"
_mqs_set_dev "$(echo "$out" | grep -o '/dev/mqstripe[0-9]*' | head -n 1)"
MQS_ARRAYS+=("$MQS_DEV")
ARR=$MQS_DEV
check_eq "capacity: 8M + 4M + 8M" "$CAP" "$(blk_bytes "$ARR")"
"$STRIPECTL" examine --json "${M[3]}" >"$MQS_TMP/ex.json" 2>&1
check_eq "examine: segments of 2 and 2, segment 1 from 8M in two zones" \
	"2 2 1 $OLD 1 $((16 << 20))" \
	"$(jget "$MQS_TMP/ex.json" segment_members.0 segment_members.1 zones.1.segment zones.1.array_start_bytes zones.2.segment zones.2.array_start_bytes)"
"$PYTHON" -S "$MQS_DIR/persist/sbtool.py" parse "${M[2]}" >"$MQS_TMP/sbt.json" 2>&1
check_eq "sbtool.py (docs/FORMAT.md alone): valid, feature_incompat 3, entry 1 from 8M, slot 2 on" \
	"ok 3 2 $OLD 2" \
	"$(jget "$MQS_TMP/sbt.json" status feature_incompat nr_segments segments.1.array_start_bytes segments.1.first_slot)"
"$STRIPECTL" status --json "$ARR" >"$MQS_TMP/st.json" 2>&1
check_eq "status: the segments" "2 2" \
	"$(jget "$MQS_TMP/st.json" segment_members.0 segment_members.1)"

S=197120 L=459776	# a range from 385 sectors before the boundary
s=$((OLD - S))
steps "the old data reads back: nothing moved" check "$ARR" 0 "$OLD" 40
steps "a 3-sector write across the segment boundary" \
	fill "$ARR" $s $L 41 --sizes 196608,1536,261632
steps "a 7-sector read across the segment boundary" \
	check "$ARR" $s $L 41 --sizes 195584,3584,260608
steps "a 511-sector read across the segment boundary" \
	check "$ARR" $s $L 41 --sizes 100352,261632,97792
steps "the rest of the new room, IO of odd sizes" \
	fill "$ARR" $((s + L)) $((CAP - s - L)) 42 --vary
steps "the new room reads back" check "$ARR" $((s + L)) $((CAP - s - L)) 42
steps_run
# segment 1's chunks 0, 1, 2 (array bytes 8M, 8M + 64K, 8M + 128K): on
# slot 2 at its data offset, slot 3 at its data offset, slot 2 one chunk on
seg_chunk() { dd if="$1" bs=$K skip="$2" count=1 iflag=direct status=none | md5sum; }
check_eq "segment 1's first chunks on the new members, by its own stripe" \
	"$(seg_chunk "$ARR" 128) $(seg_chunk "$ARR" 129) $(seg_chunk "$ARR" 130)" \
	"$(seg_chunk "${M[2]}" 16) $(seg_chunk "${M[3]}" 16) $(seg_chunk "${M[2]}" 17)"
check_fails "grow: refused for an array of segments, saying so" 1 \
	"its members were added in 2 segments \('stripectl add'\): growing such an array is not supported yet" \
	"$STRIPECTL" grow "$ARR"

# stop; the members again in another order, assembled in another order
mqs_stop "$ARR" || mqs_die "stop"
old="${M[*]}"
for i in 0 1 2 3; do mqs_dm_remove "add$i" || mqs_die "remove add$i"; done
for i in 3 1 0 2; do make_member "$i"; done
[ "${M[*]}" != "$old" ] || diag "the members got the same device names again"
out=$("$STRIPECTL" assemble "${M[3]}" "${M[0]}" "${M[2]}" "${M[1]}" 2>&1) ||
	mqs_die "assemble in another order" "$out"
_mqs_set_dev "$(echo "$out" | grep -o '/dev/mqstripe[0-9]*' | head -n 1)"
MQS_ARRAYS+=("$MQS_DEV")
ARR=$MQS_DEV
check_eq "assembled in another order: the same capacity" "$CAP" \
	"$(blk_bytes "$ARR")"
steps "after the assemble every byte reads back" \
	each check "$ARR:0:$s:40" "$ARR:$s:$L:41" \
	"$ARR:$((s + L)):$((CAP - s - L)):42"
steps_run
mqs_stop "$ARR" || mqs_die "stop again"
check_klog "no kernel report" "$mark"
mqs_finish
