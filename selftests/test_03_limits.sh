#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: main lbs4k
#
# Queue limits.  Every expected value is computed by limits.py from the
# members' own sysfs values (rules: docs/IO_PATH.md, "Queue limits").  The configurations
# run are those the guest's drives allow, so run.sh boots twice:
#   NVMe 512-byte blocks (+ virtio-blk 512/4096): uniform 4 members, 1 and 3
#     members, a wide stripe, one member with a lowered max_sectors_kb, one
#     rotational member, one without discard, write-through members, mixed
#     NVMe + 512/4096 virtio members, and the sysfs max_sectors_kb write;
#   NVMe 4096-byte blocks (+ virtio-blk 512/16384): 4K-logical members, a
#     chunk smaller than a member's physical block refused, a data offset not
#     a multiple of it refused.
# Catches: limits taken from one member only, chunk_sectors set (splits at
# every chunk), max_sectors capped by the chunk or left at the block layer's
# 1280 KiB, too few segments, discard/FUA/write-cache/rotational misreported,
# max_segment_size lost beside a virt boundary (6.1), read-ahead of twice a
# stripe wider than the largest request (up to 2 GiB).

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
mapfile -t VD < <(virtio_disks)
export MQS_MAX_HW_CEILING_KB MQS_KVER
nv_lbs=0
[ ${#NV[@]} -gt 0 ] && nv_lbs=$(qattr "${NV[0]}" logical_block_size)
vd_lbs=0
vd_pbs=0
if [ ${#VD[@]} -gt 0 ]; then
	vd_lbs=$(qattr "${VD[0]}" logical_block_size)
	vd_pbs=$(qattr "${VD[0]}" physical_block_size)
fi
diag "NVMe: ${NV[*]:-none} (lbs $nv_lbs); virtio: ${VD[*]:-none} (lbs $vd_lbs pbs $vd_pbs)"
nconf=0

# config NAME CHUNK_BYTES MEMBER...
config() {
	local name=$1 chunk=$2
	shift 2
	nconf=$((nconf + 1))
	diag "--- $name: chunk $chunk, members $*"
	if ! mqs_create --chunk "$chunk" "$@"; then
		fail "$name: create"
		return 1
	fi
	import_checks "$name: " "$PYTHON" -S "$MQS_DIR/limits.py" "$MQS_DEV" "$chunk" "$@"
	return 0
}

# The kernel's own answer to max_sectors_kb above max_hw_sectors_kb:
# 6.1 refuses (EINVAL), 6.10+ stores it and clamps max_sectors to the
# hardware limit.  The same write to a member shows the block layer's rule.
sysfs_max_sectors() {
	local dev=$1 what=$2 f hw cur err val
	f=$(blk_sys "$dev")/queue/max_sectors_kb
	hw=$(qattr "$dev" max_hw_sectors_kb)
	cur=$(cat "$f")
	err=$( (echo $((hw + 4)) >"$f") 2>&1)
	val=$(cat "$f")
	if [ "$(kver_num)" -ge 610 ]; then
		if [ -z "$err" ] && [ "$val" = "$hw" ]; then
			pass "$what: max_sectors_kb $((hw + 4)) > max_hw $hw is clamped to $hw"
		else
			fail "$what: max_sectors_kb $((hw + 4)) > max_hw $hw is clamped to $hw" \
				"write: '${err:-ok}', reads back $val"
		fi
	else
		if [[ $err == *"Invalid argument"* ]] && [ "$val" = "$cur" ]; then
			pass "$what: max_sectors_kb $((hw + 4)) > max_hw $hw refused with EINVAL"
		else
			fail "$what: max_sectors_kb $((hw + 4)) > max_hw $hw refused with EINVAL" \
				"write: '${err:-ok}', reads back $val (was $cur)"
		fi
	fi
	err=$( (echo 64 >"$f") 2>&1)
	check_eq "$what: max_sectors_kb 64 accepted" "64" "$(cat "$f")${err}"
	echo "$cur" >"$f"
	check_eq "$what: max_sectors_kb restored" "$cur" "$(cat "$f")"
}

if [ "$nv_lbs" = 512 ] && [ ${#NV[@]} -ge 4 ]; then
	M=("${NV[@]:0:4}")
	if config "4 NVMe, 64K chunk" 65536 "${M[@]}"; then
		sysfs_max_sectors "${M[0]}" "member ${M[0]}"
		sysfs_max_sectors "$MQS_DEV" "array"
		check_stop "$MQS_DEV"
	fi
	config "4 NVMe, 1M chunk (stripe 4M)" $((1 << 20)) "${M[@]}" && check_stop "$MQS_DEV"
	config "4 NVMe, 16M chunk (largest)" $((16 << 20)) "${M[@]}" && check_stop "$MQS_DEV"
	config "1 NVMe member, 64K chunk" 65536 "${M[0]}" && check_stop "$MQS_DEV"
	config "3 NVMe members, 128K chunk" 131072 "${M[@]:0:3}" && check_stop "$MQS_DEV"

	f=$(blk_sys "${M[1]}")/queue/max_sectors_kb
	if mqs_sysfs_set "$f" 128 && [ "$(cat "$f")" = 128 ]; then
		config "member ${M[1]} max_sectors_kb lowered to 128" 65536 "${M[@]}" &&
			check_stop "$MQS_DEV"
	else
		fail "lower max_sectors_kb of ${M[1]} to 128" "reads $(cat "$f")"
	fi
	mqs_sysfs_restore

	f=$(blk_sys "${M[2]}")/queue/rotational
	if mqs_sysfs_set "$f" 1 && [ "$(cat "$f")" = 1 ]; then
		config "member ${M[2]} rotational" 65536 "${M[@]}" && check_stop "$MQS_DEV"
	else
		fail "set ${M[2]} rotational" "reads $(cat "$f")"
	fi
	mqs_sysfs_restore

	# A member without discard and write-zeroes: dm-crypt passes neither
	# unless asked to (sysfs discard_max_bytes=0 cannot be undone on 6.12).
	key=$(printf '%064x' 42)
	if mqs_dm_create crypt3 "0 $(($(blk_bytes "${M[3]}") / 512)) crypt aes-cbc-essiv:sha256 $key 0 ${M[3]} 0"; then
		diag "dm-crypt over ${M[3]}: discard_max_bytes $(qattr "$DM_DEV" discard_max_bytes), write_zeroes_max_bytes $(qattr "$DM_DEV" write_zeroes_max_bytes)"
		config "member $(blk_name "$DM_DEV") (dm-crypt) without discard and write-zeroes" 65536 \
			"${M[@]:0:3}" "$DM_DEV" && check_stop "$MQS_DEV"
		mqs_dm_remove crypt3
	else
		diag "dm-crypt not available: configuration without discard not run"
	fi

	f=$(blk_sys "${M[0]}")/queue/write_cache
	if mqs_sysfs_set "$f" "write through" && [ "$(cat "$f")" = "write through" ]; then
		config "member ${M[0]} write through" 65536 "${M[@]}" && check_stop "$MQS_DEV"
		for m in "${M[@]:1}"; do
			mqs_sysfs_set "$(blk_sys "$m")/queue/write_cache" "write through"
		done
		config "all members write through" 65536 "${M[@]}" && check_stop "$MQS_DEV"
	else
		fail "set ${M[0]} write through" "reads $(cat "$f")"
	fi
	mqs_sysfs_restore
fi

if [ "$nv_lbs" = 4096 ] && [ ${#NV[@]} -ge 2 ]; then
	config "${#NV[@]} NVMe with 4096-byte logical blocks, 64K chunk" 65536 "${NV[@]}" &&
		check_stop "$MQS_DEV"
	config "2 NVMe with 4096-byte logical blocks, 4K chunk" 4096 "${NV[@]:0:2}" &&
		check_stop "$MQS_DEV"
fi

if [ "$vd_pbs" = 4096 ] && [ "$vd_lbs" = 512 ] && [ ${#VD[@]} -ge 2 ]; then
	config "virtio-blk 512 logical / 4096 physical, 4K chunk" 4096 "${VD[@]:0:2}" &&
		check_stop "$MQS_DEV"
	if [ "$nv_lbs" = 512 ] && [ ${#NV[@]} -ge 2 ]; then
		config "2 NVMe + 2 virtio-blk 512/4096, 64K chunk" 65536 "${NV[@]:0:2}" "${VD[@]:0:2}" &&
			check_stop "$MQS_DEV"
	fi
	# a stripe wider than the largest request: read-ahead two requests
	if [ "$nv_lbs" = 512 ] && [ ${#NV[@]} -ge 4 ]; then
		config "4 NVMe + 2 virtio-blk, 16M chunk (stripe 96M)" $((16 << 20)) \
			"${NV[@]:0:4}" "${VD[@]:0:2}" && check_stop "$MQS_DEV"
	fi
fi

if [ "$vd_pbs" -gt 4096 ] && [ ${#VD[@]} -ge 1 ]; then
	V=${VD[0]}
	small=$((vd_pbs / 2))
	nconf=$((nconf + 1))
	before=$(mqs_arrays | wc -l)
	check_fails "chunk $small < physical block $vd_pbs of $V refused" 1 \
		"$(blk_name "$V").*(physical|block size)|(physical|block size).*$(blk_name "$V")" \
		"$STRIPECTL" create --chunk "$small" "$V"
	check_eq "no array left after the refused chunk" "$before" "$(mqs_arrays | wc -l)"
	if blk_claimable "$V"; then pass "$V free after the refused create"; else fail "$V free after the refused create"; fi
	check_fails "data offset 1028K (not a multiple of $vd_pbs) refused" 1 \
		"offset" "$STRIPECTL" create --chunk "$vd_pbs" --data-offset 1028K "$V"
	check_eq "no array left after the refused offset" "$before" "$(mqs_arrays | wc -l)"
	if [ ${#NV[@]} -ge 2 ]; then
		config "2 NVMe (lbs $nv_lbs) + virtio-blk pbs $vd_pbs, chunk $vd_pbs" "$vd_pbs" \
			"${NV[@]:0:2}" "$V" && check_stop "$MQS_DEV"
	else
		config "virtio-blk pbs $vd_pbs, chunk $vd_pbs" "$vd_pbs" "$V" && check_stop "$MQS_DEV"
	fi
fi

[ $nconf -gt 0 ] || mqs_skip "no drive configuration of this test in this guest (NVMe lbs $nv_lbs, virtio pbs $vd_pbs)"
mqs_finish
