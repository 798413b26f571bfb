#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mapping: array chunk c lives on member (c mod N) at byte
# data_offset + (c div N) x chunk.  Write a sector-tagged pattern through
# the array (IO of odd sizes, so requests cross chunk and stripe
# boundaries), read every member directly at the computed offsets and
# compare byte for byte; then write the members directly and read the
# array (in 1 MiB reads, and in odd sizes, so that reads too cross chunk
# and stripe boundaries anywhere).  The member space before the data offset and after the last row
# must stay untouched.
# Geometries: 4 NVMe, 64K chunk, 20 MiB of data per member (a large data
# offset); 3 members, 4K chunk, 12K offset; 5 members, 128K chunk, default
# offset (dm-linear slices of the NVMe drives).
# Catches: wrong member order, row or offset arithmetic, a data offset
# ignored or applied twice, power-of-two-only math, capacity off by a row.

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
[ "$(qattr "${NV[0]}" logical_block_size)" = 512 ] ||
	mqs_skip "needs 512-byte NVMe blocks"

# guard fill|check: write or check guard patterns in the member space up
# to 1 MiB before the data offset and up to 4 MiB after the last row.
# The first 12 KiB are left alone: stripectl keeps its superblock's two
# copies at 4 KiB and 8 KiB.
# All ranges in one pattern.py run (a python start costs about 0.5 s
# under TCG); the member sizes were read by geometry() (msizes).
guard() {
	local op=$1 i m tail_len out ok=0 head_off ranges=()
	head_off=$((doff > (1 << 20) + 12288 ? doff - (1 << 20) : 12288))
	for i in "${!members[@]}"; do
		m=${members[i]}
		tail_len=$(((msizes[i] - tail_off) / 512 * 512))
		[ "$tail_len" -gt $((4 << 20)) ] && tail_len=$((4 << 20))
		if [ "$doff" -gt "$head_off" ]; then
			ranges+=("$m:$head_off:$((doff - head_off)):3")
		fi
		if [ "$tail_len" -gt 0 ]; then
			ranges+=("$m:$tail_off:$tail_len:4")
		fi
	done
	[ ${#ranges[@]} -gt 0 ] || return 0
	out=$(pattern each "$op" "${ranges[@]}") || { ok=1; diag "$out"; }
	return $ok
}

# geometry NAME CHUNK DOFF [create options] -- MEMBER...
# The members are written directly only while no array holds them (the
# module may open them with write restrictions).
geometry() {
	local name=$1 chunk=$2 cap rows
	doff=$3
	shift 3
	local opts=() m
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	members=("$@")
	local n=$#
	diag "--- $name"
	msizes=()
	for m in "${members[@]}"; do msizes+=("$(blk_bytes "$m")"); done
	cap=$(mqs_expected_capacity "$chunk" "$doff" "${members[@]}")
	rows=$((cap / n / chunk))
	tail_off=$((doff + rows * chunk))
	guard fill || { fail "$name: write guard bands on the members"; return; }
	if ! mqs_create --chunk "$chunk" "${opts[@]}" "${members[@]}"; then
		fail "$name: create"
		return
	fi
	check_eq "$name: capacity" "$cap" "$(blk_bytes "$MQS_DEV")"
	# the steps of each direction in one pattern.py (pattern batch: a
	# check per step, as check_cmd made; a python start costs under TCG)
	steps "$name: write the pattern through the array (odd IO sizes)" \
		fill "$MQS_DEV" 0 "$cap" 11 --vary
	steps "$name: array reads back what was written" \
		check "$MQS_DEV" 0 "$cap" 11
	steps "$name: members hold every chunk where the rule puts it" \
		mapcheck "$MQS_DEV" "$chunk" "$doff" 11 "${members[@]}"
	steps_run
	local dev=$MQS_DEV
	check_stop "$dev"
	if guard check; then
		pass "$name: member space before the data offset and after the last row untouched"
	else
		fail "$name: member space before the data offset and after the last row untouched"
	fi
	# the reverse: members written directly, read through a new array
	check_cmd "$name: write the members directly" \
		pattern mapfill "$cap" "$chunk" "$doff" 12 "${members[@]}"
	if ! mqs_create --chunk "$chunk" "${opts[@]}" "${members[@]}"; then
		fail "$name: create again"
		return
	fi
	steps "$name: the array reads what the members hold, by the rule" \
		check "$MQS_DEV" 0 "$cap" 12
	steps "$name: the same read in odd IO sizes" \
		check "$MQS_DEV" 0 "$cap" 12 --vary
	steps "$name: 1 MiB read ending at the array's end" \
		check "$MQS_DEV" $((cap - (1 << 20))) $((1 << 20)) 12
	steps_run
	check_stop "$MQS_DEV"
}

# a large data offset keeps the NVMe array small (quick under TCG)
doff=$((($(blk_bytes "${NV[0]}") >> 20) - 20))
geometry "4 NVMe, 64K chunk, ${doff}M offset" 65536 $((doff << 20)) --data-offset "${doff}M" \
	-- "${NV[@]:0:4}"

# dm-linear slices: small members so that odd geometries stay quick
S=()
for i in 0 1 2; do
	mqs_dm_create "map$i" "0 $(((16 << 20) / 512 + 40)) linear ${NV[i]} 0" ||
		mqs_die "dmsetup create slice $i"
	S+=("$DM_DEV")
done
geometry "3 members, 4K chunk, 12K offset" 4096 12288 --data-offset 12K -- "${S[@]}"
for i in 3 4; do
	mqs_dm_create "map$i" "0 $(((9 << 20) / 512 + 8)) linear ${NV[i - 2]} $(((20 << 20) / 512))" ||
		mqs_die "dmsetup create slice $i"
	S+=("$DM_DEV")
done
# members of two sizes: --size uses the same part of each (one zone, the
# rule above; the larger members' rest untouched: the guard bands)
geometry "5 members of two sizes, 128K chunk, default offset, --size 40M" \
	131072 "$MQS_DEFAULT_DATA_OFFSET" --size 40M -- "${S[@]}"
mqs_finish
