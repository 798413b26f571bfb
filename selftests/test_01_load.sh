#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload; create, list, status, stop; JSON output parses.
# Catches: control node missing or with a wrong mode, rmmod refused or
# leaving arrays, wrong capacity rounding, sysfs attributes missing or
# wrong, list/status not seeing an array, invalid JSON, stop leaving the
# node or a claim on the members behind.

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")

json_ok() { "$PYTHON" -S -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }
# --- unload and load
if mqs_module_loaded; then
	check_cmd "rmmod mqstripe" rmmod mqstripe
fi
if [ -e "$MQS_CONTROL" ] || [ -d /sys/module/mqstripe ]; then
	fail "control node and /sys/module/mqstripe gone after rmmod" "$(ls -l "$MQS_CONTROL" 2>&1)"
else
	pass "control node and /sys/module/mqstripe gone after rmmod"
fi
check_cmd "insmod $MQS_MODULE" mqs_load_module || mqs_finish
check_eq "control node is a char device with mode 600 owned by root" \
	"c 600 0" "$(stat -c '%F %a %u' "$MQS_CONTROL" | sed 's/^character special file/c/')"
check_eq "control node is the misc device mqstripe-control" \
	"$(cat /sys/class/misc/mqstripe-control/dev 2>/dev/null)" \
	"$(printf '%d:%d' "0x$(stat -c %t "$MQS_CONTROL")" "0x$(stat -c %T "$MQS_CONTROL")")"

modver=$(modinfo -F version "$MQS_MODULE" 2>/dev/null)
check_match "modinfo has a version" '^[0-9A-Za-z.+~_-]+$' "$modver"
check_eq "/sys/module/mqstripe/version matches modinfo" "$modver" \
	"$(cat /sys/module/mqstripe/version 2>/dev/null)"
ver_out=$("$STRIPECTL" --version 2>&1)
check_match "stripectl --version names the version $modver" "(^|[^0-9.])${modver//./\\.}([^0-9.]|$)" "$ver_out"
check_cmd "stripectl --help exits 0" "$STRIPECTL" --help
check_fails "stripectl with an unknown command: usage error" 2 'bogus|unknown|usage' \
	"$STRIPECTL" bogus-command

# --- list with no array
out=$("$STRIPECTL" list --json 2>&1) && echo "$out" >"$MQS_TMP/empty.json"
check_cmd "list --json with no array parses" json_ok "$MQS_TMP/empty.json"
if grep -q mqstripe "$MQS_TMP/empty.json"; then
	fail "list --json with no array names no array" "$(cat "$MQS_TMP/empty.json")"
else
	pass "list --json with no array names no array"
fi

# --- create: chunk 64K, name, 4 members
mqs_create --chunk 64K --name t01 "${M[@]}" || mqs_die "stripectl create --chunk 64K --name t01 ${M[*]}"
pass "create printed $MQS_DEV"
A=$MQS_DEV
AD=$MQS_DISK
AS=$MQS_SYS
check_eq "sysfs name" t01 "$(cat "$AS/mqstripe/name" 2>&1)"
check_eq "sysfs chunk_bytes" 65536 "$(cat "$AS/mqstripe/chunk_bytes" 2>&1)"
check_match "sysfs uuid is a UUID" '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' \
	"$(cat "$AS/mqstripe/uuid" 2>&1)"
check_match "sysfs state is active" 'active' "$(cat "$AS/mqstripe/state" 2>&1)"
if [ -e "$AS/mqstripe/errors" ]; then pass "sysfs errors exists"; else fail "sysfs errors exists"; fi
members_txt=$(cat "$AS/mqstripe/members" 2>&1)
for i in 0 1 2 3; do
	n=$(blk_name "${M[i]}")
	d=$(blk_devno "${M[i]}")
	check_match "sysfs members names slot $i: $n or $d" "(^|[^0-9a-z])($n|$d)([^0-9]|$)" "$members_txt"
done
# slot order: the members appear in the order given (by name if the file
# names them, else by major:minor)
exp_order=""
if grep -q "$(blk_name "${M[0]}")" <<<"$members_txt"; then
	order=$(grep -oE "nvme[0-9]+n[0-9]+" <<<"$members_txt" | tr '\n' ' ')
	for m in "${M[@]}"; do exp_order+="$(blk_name "$m") "; done
else
	order=$(grep -oE "[0-9]+:[0-9]+" <<<"$members_txt" | tr '\n' ' ')
	for m in "${M[@]}"; do exp_order+="$(blk_devno "$m") "; done
fi
check_eq "sysfs members in slot order" "$exp_order" "$order"
check_eq "slaves/ lists the 4 members" \
	"$(for m in "${M[@]}"; do blk_name "$m"; done | sort | tr '\n' ' ')" \
	"$(find "$AS/slaves/" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | sort | tr '\n' ' ')"
for m in "${M[@]}"; do
	if [ -e "$(blk_sys "$m")/holders/$AD" ]; then
		pass "$(blk_name "$m")/holders has $AD"
	else
		fail "$(blk_name "$m")/holders has $AD" "holders: $(ls "$(blk_sys "$m")/holders")"
	fi
done
cap=$(mqs_expected_capacity 65536 "$MQS_DEFAULT_DATA_OFFSET" "${M[@]}")
check_eq "capacity = 4 x (smallest member - 1 MiB) in whole 64K chunks" "$cap" "$(blk_bytes "$A")"
check_eq "lsblk shows $AD under ${M[0]}" "$AD" \
	"$(lsblk -ln -o NAME "${M[0]}" 2>/dev/null | grep -x "$AD")"
if blk_claimable "${M[0]}"; then
	fail "member is claimed exclusively while in the array" "O_EXCL open of ${M[0]} succeeded"
else
	pass "member is claimed exclusively while in the array"
fi

# --- status, text and JSON
out=$("$STRIPECTL" status "$A" 2>&1)
rc=$?
check_eq "stripectl status exits 0" 0 "$rc"
for m in "${M[@]}"; do
	check_match "status names member $m" "$(blk_name "$m")" "$out"
done
check_match "status shows the chunk (64K / 65536)" '64 ?K|65536' "$out"
check_match "status shows the stripe width (256K / 262144)" '256 ?K|262144' "$out"
"$STRIPECTL" status --json "$A" >"$MQS_TMP/status.json" 2>&1
check_cmd "status --json parses" json_ok "$MQS_TMP/status.json"
J=$MQS_TMP/status.json
# every value in one jget (a python start costs about 0.5 s under TCG)
keys=(chunk_bytes capacity_bytes name nr_members stripe_width_bytes data_offset_bytes uuid)
for i in 0 1 2 3; do keys+=("members.$i.slot" "members.$i.major" "members.$i.minor"); done
read -r -a v <<<"$(jget "$J" "${keys[@]}")"
check_eq "status --json chunk_bytes" 65536 "${v[0]}"
check_eq "status --json capacity_bytes" "$cap" "${v[1]}"
check_eq "status --json name" t01 "${v[2]}"
check_eq "status --json nr_members" 4 "${v[3]}"
check_eq "status --json stripe_width_bytes" 262144 "${v[4]}"
check_eq "status --json data_offset_bytes" "$MQS_DEFAULT_DATA_OFFSET" "${v[5]}"
check_eq "status --json uuid matches sysfs" "$(cat "$AS/mqstripe/uuid")" "${v[6]}"
for i in 0 1 2 3; do
	check_eq "status --json members.$i is slot $i, $(blk_devno "${M[i]}")" \
		"$i $(blk_devno "${M[i]}")" \
		"${v[7 + 3 * i]} ${v[8 + 3 * i]}:${v[9 + 3 * i]}"
done
"$STRIPECTL" status "$A" --json >"$MQS_TMP/status2.json" 2>&1
check_cmd "status DEVICE --json (option after the device) parses" json_ok "$MQS_TMP/status2.json"

# --- list
out=$("$STRIPECTL" list 2>&1)
check_match "list names $AD" "$AD" "$out"
"$STRIPECTL" list --json >"$MQS_TMP/list.json" 2>&1
check_cmd "list --json parses" json_ok "$MQS_TMP/list.json"
check_match "list --json names $AD" "$AD" "$(cat "$MQS_TMP/list.json")"

check_stop "$A"
# claims of all members in one python (blk_busy lists the claimed ones;
# if it fails, every member counts as claimed)
busy=$(blk_busy "${M[@]}") && busy=" ${busy//$'\n'/ } " || busy=" ${M[*]} "
for m in "${M[@]}"; do
	if [[ $busy != *" $m "* ]]; then
		pass "$(blk_name "$m") free after stop"
	else
		fail "$(blk_name "$m") free after stop" "O_EXCL open failed"
	fi
done
check_eq "no holders left on ${M[0]}" "" "$(ls "$(blk_sys "${M[0]}")/holders")"
check_fails "stop of a stopped array fails" 1 "$AD" "$STRIPECTL" stop "$A"
check_fails "status of a stopped array fails" 1 "$AD" "$STRIPECTL" status "$A"

# --- default chunk, data offset not a multiple of the chunk: rounding
mqs_must_create --data-offset 1028K "${M[@]:0:2}"
B=$MQS_DEV
check_eq "default chunk is 512 KiB" "$MQS_DEFAULT_CHUNK" "$(cat "$MQS_SYS/mqstripe/chunk_bytes" 2>&1)"
cap=$(mqs_expected_capacity "$MQS_DEFAULT_CHUNK" $((1028 << 10)) "${M[@]:0:2}")
check_eq "capacity with data offset 1028K rounds down to whole chunks" "$cap" "$(blk_bytes "$B")"
"$STRIPECTL" status --json "$B" >"$MQS_TMP/b.json" 2>&1
check_eq "status --json shows data offset $((1028 << 10))" $((1028 << 10)) "$(jget "$MQS_TMP/b.json" data_offset_bytes)"

# --- two arrays at once
mqs_must_create --chunk 4K --name second "${M[@]:2:2}"
C=$MQS_DEV
check_eq "a second array gets another index" 1 "$([ "$B" != "$C" ] && echo 1)"
"$STRIPECTL" list --json >"$MQS_TMP/list2.json" 2>&1
check_cmd "list --json with two arrays parses" json_ok "$MQS_TMP/list2.json"
check_match "list --json names both arrays" "$(basename "$B").*$(basename "$C")|$(basename "$C").*$(basename "$B")" \
	"$(tr -d '\n' <"$MQS_TMP/list2.json")"

# --- rmmod refused while an array is open, then removes unopened arrays
exec 7<"$B"
if rmmod mqstripe 2>/dev/null; then
	fail "rmmod refused while $B is open"
	exec 7<&-
	mqs_load_module
else
	pass "rmmod refused while $B is open"
	check_cmd "$B still reads after the refused rmmod" dd if="$B" of=/dev/null bs=4k count=1 status=none
	exec 7<&-
	check_cmd "rmmod with two unopened arrays" rmmod mqstripe
	if [ -n "$(mqs_arrays)$(mqs_nodes)" ]; then
		fail "rmmod removed the arrays" "$(mqs_arrays) $(mqs_nodes)"
	else
		pass "rmmod removed the arrays"
		MQS_ARRAYS=()
	fi
	busy=$(blk_busy "${M[@]}") && busy=" ${busy//$'\n'/ } " || busy=" ${M[*]} "
	for m in "${M[@]}"; do
		if [[ $busy != *" $m "* ]]; then
			pass "$(blk_name "$m") free after rmmod"
		else
			fail "$(blk_name "$m") free after rmmod"
		fi
	done
	check_cmd "insmod again" mqs_load_module
fi

# --- one more create/stop cycle after reload
if mqs_create --chunk 16M "${M[@]}"; then
	pass "create after reload (16M chunk)"
	check_eq "16 MiB chunk accepted" $((16 << 20)) "$(cat "$MQS_SYS/mqstripe/chunk_bytes" 2>&1)"
	check_stop "$MQS_DEV"
else
	fail "create after reload (16M chunk)"
fi
mqs_finish
