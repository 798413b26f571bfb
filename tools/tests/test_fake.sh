#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stripectl against a fake module (fake_mqstripe.so, LD_PRELOAD): the
# ioctl flow, the messages for the module's error codes, the device node
# fallback without udev, EBUSY retries, list and status output and their
# JSON, and the superblocks: create/stop/assemble/examine/zero-superblock,
# incremental assembly, each refusal, signature checks with libblkid.
# The fake checks the ABI header as strictly as the uapi header says; it
# does not claim the members (the real module does).  Members are loop
# devices over sparse 1 GiB files: needs root and losetup, else
# everything skips.  MQS_VALGRIND=1 runs every stripectl under valgrind.
#
#   test_fake.sh [PATH/TO/stripectl [PATH/TO/fake_mqstripe.so]]
#
# The checks are single-quoted for check()'s eval, which expands them late.
# shellcheck disable=SC2016,SC2317

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"
# shellcheck source=SCRIPTDIR/fake_lib.sh
. "$TOP/tools/tests/fake_lib.sh"
fake_begin stripectl "$@"
loops=()
cleanup() {
	local l
	for l in "${loops[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
for i in 0 1 2 3 4 5; do
	truncate -s 1G "$TMP/disk$i"
	l=$(losetup --find --show "$TMP/disk$i" 2>/dev/null) || break
	loops+=("$l")
done
if [ "${#loops[@]}" -lt 6 ]; then
	skip "cannot attach 6 loop devices" "stripectl against the fake module"
	finish
fi
L0=${loops[0]} L1=${loops[1]} L2=${loops[2]} L3=${loops[3]} L4=${loops[4]}
L5=${loops[5]}
fake_root
R=$FAKE_MQS_ROOT
# the list of dm-crypt members (stripectl create, assemble): not /etc's
export MQSTRIPE_CRYPT_MEMBERS=$TMP/crypt-members
export FAKE_MQS_MEMBER_SIZE=$((1 << 30))

VG=()
if [ "${MQS_VALGRIND:-0}" = 1 ]; then
	VG=(valgrind -q --leak-check=full --show-leak-kinds=definite,indirect
	    --errors-for-leak-kinds=definite,indirect --error-exitcode=99)
fi
sc() {	# run stripectl with the fake module
	LD_PRELOAD=$FAKE "${VG[@]}" "$STRIPECTL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 99 ]; then
		not_ok "valgrind: stripectl $*"
		sed 's/^/# /' "$TMP/err"
	fi
	# libblkid's cdrom probe ioctl is unknown to valgrind: a warning
	[ ${#VG[@]} -gt 0 ] && sed -i '/^==[0-9]*==/d' "$TMP/err"
}
rc_is() { [ "$rc" -eq "$1" ]; }
stdout_is() { [ "$(cat "$TMP/out")" = "$1" ]; }
err_is() {	# one line, matching the regex
	[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -qE -- "$1" "$TMP/err"
}
no_err() { [ ! -s "$TMP/err" ]; }
have_jq() { command -v jq >/dev/null; }
jq_is() {	# jq_is FILTER VALUE: the JSON on stdout has it
	[ "$(jq -c "$1" "$TMP/out")" = "$2" ]
}

# --- version and an empty list ---
sc --version
check "--version shows the module" \
	grep -q '^mqstripe module 0.1.0-fake (ABI version 1, features: discard write_zeroes flush_fua error_member poll nowait readonly clear rename member_data_bytes resize member_sizes segments)$' "$TMP/out"
sc list
check "list without arrays: no output, exit 0" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err'
sc list --json
if have_jq; then
	check "list --json without arrays: {\"arrays\": []}" eval 'rc_is 0 && jq_is .arrays "[]"'
else
	skip "no jq" "list --json without arrays"
fi

# --- create: devtmpfs makes the node at once ---
FAKE_MQS_DEVNODE=1 sc create --name db --chunk 64K "$L0" "$L1" "$L2"
check "create prints /dev/mqstripe0" eval 'rc_is 0 && stdout_is /dev/mqstripe0 && no_err'

# --- create without udev or devtmpfs: stripectl makes the node ---
start=$SECONDS
sc create --uuid 01234567-89AB-cdef-0123-456789abcdef --data-offset 2M \
	--queue-depth 64 "$L3" "$L4"
check "create without udev prints /dev/mqstripe1" eval 'rc_is 0 && stdout_is /dev/mqstripe1 && no_err'
check "create without udev waited at most ~5 s" [ $((SECONDS - start)) -le 20 ]  # 5 s wait; slack for a loaded host
check "create without udev made the node 60:1" \
	eval '[ -b "$R/dev/mqstripe1" ] && [ "$(stat -c %t:%T "$R/dev/mqstripe1")" = 3c:1 ]'

# --- refusals by the module, named by member ---
sc create --name db "$L3"
check "name of a running array: refused, naming that array's device and link" eval "rc_is 1 && err_is \"^stripectl: --name 'db': the running array /dev/mqstripe0 \\(/dev/stripe/db\\) has this name: choose another name\""
sc create --uuid 01234567-89ab-cdef-0123-456789abcdef "$L0"
check "UUID of a running array: refused, naming that array's device" eval "rc_is 1 && err_is \"^stripectl: --uuid 01234567-89ab-cdef-0123-456789abcdef: the running array /dev/mqstripe1 has this UUID: give another or leave out --uuid\""
FAKE_MQS_CREATE_FAIL=16,4,1 sc create --force "$L0" "$L1" "$L2"
check "EBUSY/BUSY names member 1" eval "rc_is 1 && err_is '^stripectl: $L1: device is busy: it is mounted, in use or a member of another array'"
LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$L0" >"$TMP/ex0" 2>&1
check "a failed CREATE puts the old superblock back" grep -qx 'MQSTRIPE_NAME=db' "$TMP/ex0"
# another program writes member 1 while CREATE runs: the failed CREATE
# puts back member 0's old block, and leaves member 1's new content
dd if="$L1" of="$TMP/sb1" bs=4K skip=1 count=2 status=none
FAKE_MQS_CREATE_EXEC="printf OTHERWRITER | dd of=$L1 bs=1 seek=4096 conv=notrunc status=none" \
	FAKE_MQS_CREATE_FAIL=16,4,1 sc create --force "$L0" "$L1" "$L2"
check "a failed CREATE leaves a superblock area another program wrote since, and says so" \
	eval "rc_is 1 && grep -q '^stripectl: $L1: not putting its old superblock area back: it no longer holds the superblock stripectl wrote' \"\$TMP/err\" && [ \"\$(dd if=$L1 bs=1 skip=4096 count=11 status=none)\" = OTHERWRITER ] && [ \"\$(LD_PRELOAD=$FAKE $STRIPECTL examine --export $L2 | grep ^MQSTRIPE_NAME=)\" = MQSTRIPE_NAME=db ]"
dd if="$TMP/sb1" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
FAKE_MQS_CREATE_FAIL=28,6,2 sc create --force --chunk 1M --data-offset 4M "$L0" "$L1" "$L2"
check "ENOSPC/TOO_SMALL names member 2" eval "rc_is 1 && err_is '^stripectl: $L2: member is too small: needs at least data offset \+ one chunk \(5242880 bytes\), has 1073741824 bytes'"
FAKE_MQS_CREATE_FAIL=22,5,0 sc create --force "$L0" "$L1"
check "EINVAL/ZONED names member 0" eval "rc_is 1 && err_is '^stripectl: $L0: zoned block devices cannot be members'"
FAKE_MQS_CREATE_FAIL=22,10,4294967295 sc create --force "$L0" "$L1"
check "GEOMETRY without a member" eval "rc_is 1 && err_is '^stripectl: the module refused the geometry \(2 members, chunk 512K, data offset 1M\)'"
FAKE_MQS_CREATE_FAIL=16,0,0 sc create --force "$L0" "$L1"
check "EBUSY without an error code blames no member" eval "rc_is 1 && err_is '^stripectl: one of the members: device is busy'"
FAKE_MQS_CREATE_FAIL=22,77,4294967295 sc create --force "$L0" "$L1"
check "unknown error code" eval "rc_is 1 && err_is 'error code 77'"
FAKE_MQS_MEMBER_PBS=8192 sc create --chunk 4K "$L0" "$L1"
check "chunk below the member's pbs, before the kernel" eval "rc_is 1 && err_is '^stripectl: $L0: chunk 4096 is smaller than the member.s physical block size 8192 \(check /sys/block/${L0#/dev/}/queue/physical_block_size\)'"
FAKE_MQS_MEMBER_SIZE=$((1 << 20)) sc create "$L0"
check "member too small, before the kernel" eval "rc_is 1 && err_is '^stripectl: $L0: member is too small: needs at least data offset \+ one chunk \(1572864 bytes\), has 1048576 bytes'"
FAKE_MQS_ABI=2 sc list
check "ABI mismatch names both versions" eval "rc_is 1 && err_is 'ABI version 2, stripectl .* has ABI version 1'"
FAKE_MQS_EPERM=1 sc list
check "EPERM: needs root" eval "rc_is 1 && err_is '^stripectl: /dev/mqstripe-control: permission denied: needs root \(CAP_SYS_ADMIN\)$'"

# --- one disk through two nodes (here two loop devices over one file):
# create reads every superblock back before CREATE and refuses
L5B=$(losetup --find --show "$TMP/disk5" 2>/dev/null)
if [ -n "$L5B" ]; then
	loops+=("$L5B")
	sc create --force --name twice "$L2" "$L5" "$L5B"
	check "one disk through two nodes: refused, naming both, before CREATE" \
		eval "rc_is 1 && err_is '^stripectl: $L5B and $L5 are one disk: the superblock written through $L5B \(slot 2\) reads back through $L5 \(slot 1\)' && [ \"\$(LD_PRELOAD=$FAKE $STRIPECTL list | wc -l)\" -eq 3 ]"
	check "one disk through two nodes: its superblock area put back (none), the other member's too" \
		eval '[ "$(od -An -v -tx1 -j4096 -N8192 "$TMP/disk5" | tr -d " 0\n")" = "" ] && [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$L2" | grep ^MQSTRIPE_NAME=)" = MQSTRIPE_NAME=db ]'
	losetup -d "$L5B"
	unset 'loops[-1]'
else
	skip "cannot attach a 7th loop device" "one disk through two nodes"
fi

# --- a member that keeps no data (null_blk without memory_backed, used in
# benchmarks): its superblock reads back as zeros; create warns, naming it,
# and the array starts
FAKE_MQS_FORGET=$L5 sc create --name nodata "$L5"
check "create over a device that keeps no data: started, with a warning naming it" \
	eval "rc_is 0 && stdout_is /dev/mqstripe2 && err_is '^stripectl: warning: $L5: the superblock reads back as zeros \\(a device that keeps no data, such as null_blk without memory_backed\\): the array cannot be assembled from it later'"
LD_PRELOAD=$FAKE "$STRIPECTL" stop nodata
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L5"
# ... and one whose superblock reads back as something else (another
# writer): refused, the other member's old block put back
sb4=$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$L4" | grep '^MQSTRIPE_\(ARRAY\|MEMBER\)_UUID=')
FAKE_MQS_FORGET=$L5 FAKE_MQS_FORGET_FILL=0x5a sc create --force --name other "$L4" "$L5"
check "create over a device that another program writes: refused, naming it" \
	eval "rc_is 1 && [ ! -s \"\$TMP/out\" ] && grep -q '^stripectl: $L5: the superblock just written reads back as something else: another program writes to this device' \"\$TMP/err\" && [ -z \"\$(list_names)\" ]"
check "... the other member's old superblock is back" \
	eval '[ -n "$sb4" ] && [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$L4" | grep "^MQSTRIPE_\(ARRAY\|MEMBER\)_UUID=")" = "$sb4" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L5"

# --- two nodes that report one identity (two paths of a namespace): create
# refuses before writing anything
for l in "$L3" "$L4"; do
	d=$R/sys/dev/block/$((0x$(stat -c %t "$l"))):$((0x$(stat -c %T "$l")))
	mkdir -p "$d"
	echo "eui.0025388b91c1a2b3" >"$d/wwid"
done
before=$(od -An -v -tx1 -j4096 -N8192 "$L3" | md5sum)
sc create --force --name paths "$L3" "$L4" "$L0"
check "two nodes with one WWID: refused before writing, naming both and the identity" \
	eval "rc_is 1 && err_is '^stripectl: $L3 and $L4 are one disk: both report the identity eui.0025388b91c1a2b3' && [ \"\$(od -An -v -tx1 -j4096 -N8192 $L3 | md5sum)\" = \"$before\" ]"
rm -rf "$R/sys/dev"

# --- list and status (slot 1 of db and of mqstripe1 faulty) ---
export FAKE_MQS_FAULTY=1
sc list
U0=$(sed -n 's/^MQSTRIPE_ARRAY_UUID=//p' "$TMP/ex0")
check "list: header and two arrays" eval 'rc_is 0 && [ "$(wc -l <"$TMP/out")" -eq 3 ] && grep -qE "^/dev/mqstripe0 +db +$U0 +3 +64K +3G +active +${L0#/dev/},${L1#/dev/},${L2#/dev/}$" "$TMP/out"'
FAKE_MQS_SLOW=0 sc status db
check "status by name" eval 'rc_is 0 && grep -q "^/dev/mqstripe0:" "$TMP/out" && grep -qE "^ +1 +$L1 +1G +faulty +3 +1 +0 +[0-9a-f-]{36}$" "$TMP/out" && grep -qE "superblock: +format 2, events 1, active" "$TMP/out" && grep -qE "^ +read_ahead_kb +-$" "$TMP/out"'
check "status: the members' IO, latency means, the slow flag apart from the state" eval 'grep -qE "^ +0 +1000 +500 +3 +100us +2\.0ms +52\.0ms +slow$" "$TMP/out" && grep -qE "^ +2 +1002 +502 +3 +100us +2\.0ms +1\.2ms +-$" "$TMP/out" && grep -qE "^ +0 +$L0 +1G +ok " "$TMP/out" && grep -qx "  slot 0 is slow: latency 52.0ms, the median member.s 1.2ms (its IO succeeds: not a fault)" "$TMP/out" && [ "$(grep -c "is slow" "$TMP/out")" = 1 ]'
ln -s "$R/dev/mqstripe1" "$TMP/link1"
sc status "$TMP/link1"
check "status by a link to the node" eval 'rc_is 0 && grep -q "^/dev/mqstripe1:" "$TMP/out"'
sc status /dev/mqstripe7
check "status of a missing array" eval "rc_is 1 && err_is '^stripectl: /dev/mqstripe7: no such array'"
sc status "$TMP/nothing"
check "status of a missing path" eval "rc_is 1 && err_is 'nothing does not exist'"
sc status /dev/null
check "status of a non-block path" eval "rc_is 1 && err_is '^stripectl: /dev/null: not a block device'"
if have_jq; then
	sc list --json
	check "list --json" eval 'rc_is 0 && jq_is "[.arrays[] | [.device, .index, .name, .nr_members, .chunk_bytes, .capacity_bytes, .state]]" "[[\"/dev/mqstripe0\",0,\"db\",3,65536,3218079744,\"active\"],[\"/dev/mqstripe1\",1,\"\",2,524288,2143289344,\"active\"]]"'
	check "list --json keys: json_version first, then arrays" eval 'jq_is "keys_unsorted" "[\"json_version\",\"arrays\"]" && jq_is .json_version 1'
	check "list --json keys of arrays and members" eval 'jq_is "[.arrays[] | keys], (.arrays[0].members[0] | keys)" "[[\"capacity_bytes\",\"chunk_bytes\",\"device\",\"index\",\"members\",\"name\",\"nr_members\",\"state\",\"uuid\"],[\"capacity_bytes\",\"chunk_bytes\",\"device\",\"index\",\"members\",\"name\",\"nr_members\",\"state\",\"uuid\"]]
[\"device\",\"major\",\"minor\",\"slot\"]"'
	FAKE_MQS_SLOW=0 sc status --json mqstripe1
	check "status --json geometry" eval 'rc_is 0 && jq_is "[.uuid, .chunk_bytes, .stripe_width_bytes, .data_offset_bytes, .queue_depth, .nr_hw_queues, .major, .minor]" "[\"01234567-89ab-cdef-0123-456789abcdef\",524288,1048576,2097152,64,2,60,1]"'
	check "status --json members" eval 'jq_is "[.members[] | [.slot, .device, .state, .size_bytes, .read_errors]]" "[[0,\"$L3\",\"ok\",1073741824,0],[1,\"$L4\",\"faulty\",1073741824,3]]"'
	check "status --json queue limits" eval 'jq_is "[.queue_limits | .logical_block_size_bytes, .optimal_io_size_bytes, .max_sectors_kb, .discard_max_bytes, .write_cache, .fua, .rotational, .read_ahead_kb]" "[512,1048576,1280,2199023255040,\"write back\",true,false,null]"'
	check "status --json keys" eval 'jq_is "keys" "[\"capacity_bytes\",\"chunk_bytes\",\"data_offset_bytes\",\"device\",\"index\",\"json_version\",\"major\",\"member_data_bytes\",\"members\",\"minor\",\"name\",\"nr_hw_queues\",\"nr_members\",\"queue_depth\",\"queue_limits\",\"read_only\",\"state\",\"stripe_width_bytes\",\"superblock\",\"uuid\"]"'
	check "status --json members' IO: slow apart from the state, counts, window latency, histograms" eval 'jq_is "[.members[] | [.state, .slow, .io.reads_completed, .io.writes_in_flight, .io.read_latency_ns_total, .io.window_latency_us, .io.median_latency_us, .io.read_latency_hist[3], .io.write_latency_hist[15]]]" "[[\"ok\",true,1000,1,100000000,52000,1200,990,1],[\"faulty\",false,1001,1,100100000,1200,1200,991,1]]" && jq_is "[.members[0].io | keys, (.read_latency_hist | length)]" "[[\"median_latency_us\",\"read_latency_hist\",\"read_latency_ns_total\",\"reads_completed\",\"reads_in_flight\",\"window_latency_us\",\"write_latency_hist\",\"write_latency_ns_total\",\"writes_completed\",\"writes_in_flight\"],16]"'
	check "status --json keys of members, superblock and queue_limits" eval 'jq_is "(.members[] | keys), (.superblock | keys), (.queue_limits | keys)" "[\"device\",\"flush_errors\",\"io\",\"major\",\"member_uuid\",\"minor\",\"read_errors\",\"size_bytes\",\"slot\",\"slow\",\"state\",\"write_errors\"]
[\"device\",\"flush_errors\",\"io\",\"major\",\"member_uuid\",\"minor\",\"read_errors\",\"size_bytes\",\"slot\",\"slow\",\"state\",\"write_errors\"]
[\"ctime\",\"events\",\"format_version\",\"state\"]
[\"discard_granularity_bytes\",\"discard_max_bytes\",\"fua\",\"logical_block_size_bytes\",\"max_hw_sectors_kb\",\"max_sectors_kb\",\"max_segments\",\"minimum_io_size_bytes\",\"optimal_io_size_bytes\",\"physical_block_size_bytes\",\"read_ahead_kb\",\"rotational\",\"write_cache\",\"write_zeroes_max_bytes\"]" && jq_is "keys_unsorted[0]" "\"json_version\""'
else
	skip "no jq" "list and status JSON"
fi

# --- status --prometheus: the text format (prom_check.py), the values
PROMCHECK=$TOP/tools/tests/prom_check.py
printf '# TYPE a_total counter\na_total{x="1"} 1\n# TYPE b gauge\nb 1\na_total{x="2"} 1\n' >"$TMP/bad.prom"
printf 'a 1\n' >"$TMP/untyped.prom"
printf '# TYPE a gauge\na{x="\\q"} 1\n' >"$TMP/escape.prom"
check "prom_check.py refuses a metric's samples apart, a sample without TYPE, a bad escape" \
	eval '! python3 "$PROMCHECK" "$TMP/bad.prom" 2>/dev/null && ! python3 "$PROMCHECK" "$TMP/untyped.prom" 2>/dev/null && ! python3 "$PROMCHECK" "$TMP/escape.prom" 2>/dev/null'
prom() {	# prom NAME{LABELS}: its value in $TMP/out
	awk -v k="$1" '$1 == k { print $2 }' "$TMP/out"
}
FAKE_MQS_SLOW=0 sc status --prometheus
check "status --prometheus: every array, in the text format" \
	eval 'rc_is 0 && no_err && python3 "$PROMCHECK" "$TMP/out" && [ "$(prom mqstripe_arrays)" = 2 ] && [ "$(prom "mqstripe_array_info{array=\"mqstripe0\",name=\"db\",uuid=\"$U0\"}")" = 1 ] && [ "$(prom "mqstripe_array_capacity_bytes{array=\"mqstripe1\"}")" = 2143289344 ]'
check "status --prometheus: states, one sample per state" \
	eval '[ "$(prom "mqstripe_array_state{array=\"mqstripe0\",state=\"active\"}") $(prom "mqstripe_array_state{array=\"mqstripe0\",state=\"failed\"}")" = "1 0" ] && [ "$(prom "mqstripe_member_state{array=\"mqstripe0\",slot=\"1\",state=\"faulty\"}") $(prom "mqstripe_member_state{array=\"mqstripe0\",slot=\"1\",state=\"ok\"}") $(prom "mqstripe_member_state{array=\"mqstripe0\",slot=\"0\",state=\"ok\"}")" = "1 0 1" ]'
check "status --prometheus: member error counters" \
	eval '[ "$(prom "mqstripe_member_read_errors_total{array=\"mqstripe0\",slot=\"1\"}") $(prom "mqstripe_member_write_errors_total{array=\"mqstripe0\",slot=\"1\"}") $(prom "mqstripe_member_flush_errors_total{array=\"mqstripe0\",slot=\"1\"}") $(prom "mqstripe_member_read_errors_total{array=\"mqstripe0\",slot=\"0\"}")" = "3 1 0 0" ]'
check "status --prometheus: the array's IO from its stat file, in IOs, bytes and seconds" \
	eval '[ "$(prom "mqstripe_array_io_completed_total{array=\"mqstripe0\",op=\"read\"}") $(prom "mqstripe_array_io_completed_total{array=\"mqstripe0\",op=\"write\"}") $(prom "mqstripe_array_io_completed_total{array=\"mqstripe0\",op=\"discard\"}") $(prom "mqstripe_array_io_completed_total{array=\"mqstripe0\",op=\"flush\"}")" = "100 50 4 7" ] && [ "$(prom "mqstripe_array_io_bytes_total{array=\"mqstripe0\",op=\"read\"}") $(prom "mqstripe_array_io_bytes_total{array=\"mqstripe0\",op=\"write\"}") $(prom "mqstripe_array_io_bytes_total{array=\"mqstripe0\",op=\"discard\"}")" = "409600 204800 8192" ] && [ "$(prom "mqstripe_array_io_time_seconds_total{array=\"mqstripe0\",op=\"read\"}") $(prom "mqstripe_array_io_time_seconds_total{array=\"mqstripe0\",op=\"flush\"}") $(prom "mqstripe_array_io_in_flight{array=\"mqstripe0\"}") $(prom "mqstripe_array_io_busy_seconds_total{array=\"mqstripe0\"}")" = "0.030 0.008 3 0.040" ]'
read -r -a lst < "/sys/dev/block/$((0x$(stat -c %t "$L1"))):$((0x$(stat -c %T "$L1")))/stat"
check "status --prometheus: a member's IO from its device's stat file, its device named" \
	eval '[ "$(prom "mqstripe_member_io_completed_total{array=\"mqstripe0\",slot=\"1\",op=\"write\"}") $(prom "mqstripe_member_io_bytes_total{array=\"mqstripe0\",slot=\"1\",op=\"write\"}")" = "${lst[4]} $((lst[6] * 512))" ] && [ "$(prom "mqstripe_member_info{array=\"mqstripe0\",slot=\"1\",device=\"${L1#/dev/}\",major_minor=\"$((0x$(stat -c %t "$L1"))):$((0x$(stat -c %T "$L1")))\"}")" = 1 ]'
check "status --prometheus: the members' latency histogram from the module, cumulative, in seconds" \
	eval '[ "$(prom "mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"0\",op=\"read\",le=\"0.000016384\"}") $(prom "mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"0\",op=\"read\",le=\"0.000131072\"}") $(prom "mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"0\",op=\"read\",le=\"+Inf\"}") $(prom "mqstripe_member_io_latency_seconds_count{array=\"mqstripe0\",slot=\"0\",op=\"read\"}") $(prom "mqstripe_member_io_latency_seconds_sum{array=\"mqstripe0\",slot=\"0\",op=\"read\"}")" = "10 1000 1000 1000 0.100000000" ] && [ "$(prom "mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"1\",op=\"write\",le=\"0.268435456\"}") $(prom "mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"1\",op=\"write\",le=\"+Inf\"}")" = "500 501" ] && [ "$(grep -c "^mqstripe_member_io_latency_seconds_bucket{array=\"mqstripe0\",slot=\"2\",op=\"write\"" "$TMP/out")" = 16 ]'
check "status --prometheus: the members' IOs in flight and the slow flag" \
	eval '[ "$(prom "mqstripe_member_io_array_in_flight{array=\"mqstripe0\",slot=\"2\",op=\"read\"}") $(prom "mqstripe_member_io_array_in_flight{array=\"mqstripe0\",slot=\"2\",op=\"write\"}") $(prom "mqstripe_member_slow{array=\"mqstripe0\",slot=\"0\"}") $(prom "mqstripe_member_slow{array=\"mqstripe0\",slot=\"1\"}")" = "2 1 1 0" ]'
sc status --prometheus db
check "status --prometheus DEVICE: that array alone" \
	eval 'rc_is 0 && python3 "$PROMCHECK" "$TMP/out" && [ "$(prom mqstripe_arrays)" = 1 ] && ! grep -q "array=\"mqstripe1\"" "$TMP/out" && [ "$(grep -c "^mqstripe_member_state{array=\"mqstripe0\"" "$TMP/out")" = 9 ]'
sc status --prometheus --json db
check "status --prometheus --json: refused" eval "rc_is 2 && err_is '^stripectl: status: give --json or --prometheus, not both'"

unset FAKE_MQS_FAULTY

# --- stop ---
start=$SECONDS
FAKE_MQS_BUSY=3 sc stop db
check "stop retries EBUSY (udev probe) and succeeds" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err'
FAKE_MQS_BUSY=always sc stop mqstripe1
check "stop of an array in use" eval "rc_is 1 && err_is '^stripectl: /dev/mqstripe1: device is in use \(mounted or open\): unmount it first'"
check "stop gives up after ~5 s" [ $((SECONDS - start)) -le 20 ]  # 5 s wait; slack for a loaded host
sc stop /dev/mqstripe1
check "stop without udev removes the node it made" eval 'rc_is 0 && [ ! -e "$R/dev/mqstripe1" ]'
sc stop mqstripe1
check "stop of a stopped array" eval "rc_is 1 && err_is '^stripectl: mqstripe1: no such array'"
sc list
check "list after stop: nothing" eval 'rc_is 0 && [ ! -s "$TMP/out" ]'


# --- persistence: superblocks, assemble, examine, zero-superblock ---
SBTOOL=$TOP/selftests/persist/sbtool.py
ex() {	# ex DEV KEY: a value of examine --export
	LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$1" 2>/dev/null |
		sed -n "s/^$2=//p"
}
# the names of the running arrays, sorted, each followed by a space
list_names() { LD_PRELOAD=$FAKE "$STRIPECTL" list | awk 'NR > 1 { print $2 }' | sort | tr '\n' ' '; }
check "stop marked the superblocks clean and bumped the events twice (two passes)" \
	eval '[ "$(ex "$L0" MQSTRIPE_STATE) $(ex "$L0" MQSTRIPE_EVENTS)" = "clean 3" ] && [ "$(ex "$L2" MQSTRIPE_EVENTS)" = 3 ]'
sc examine "$L1"
check "examine: text" eval 'rc_is 0 && grep -qE "^  slot: +1$" "$TMP/out" && grep -qE "^  name: +db$" "$TMP/out" && grep -q "(correct)" "$TMP/out" && no_err'
sc examine --json "$L1"
if have_jq; then
	check "examine --json" eval 'rc_is 0 && jq_is "[.status, .slot, .nr_members, .chunk_bytes, .name, .state, .checksum_ok, (.member_uuids | length)]" "[\"ok\",1,3,65536,\"db\",\"clean\",true,3]"'
	check "examine --json keys, json_version first" eval 'jq_is "keys" "[\"array_logical_block_size_bytes\",\"array_uuid\",\"checksum\",\"checksum_ok\",\"chunk_bytes\",\"copies\",\"ctime\",\"data_bytes\",\"data_offset_bytes\",\"device\",\"events\",\"feature_compat\",\"feature_incompat\",\"feature_ro_compat\",\"format_version\",\"generation\",\"json_version\",\"layout_version\",\"member_logical_block_size_bytes\",\"member_uuid\",\"member_uuids\",\"name\",\"nr_members\",\"queue_depth\",\"sb_offset_bytes\",\"slot\",\"state\",\"status\",\"utime\"]" && jq_is "keys_unsorted[0]" "\"json_version\""'
fi
if command -v python3 >/dev/null; then
	python3 "$SBTOOL" parse "$L1" >"$TMP/parsed.json" 2>&1
	check "an independent parser (sbtool.py) agrees with examine --json" \
		python3 -c 'import json,sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
keys = {"format_version": "format_version", "checksum": "checksum",
        "array_uuid": "array_uuid", "member_uuid": "member_uuid",
        "slot": "slot", "nr_members": "nr_members",
        "chunk_bytes": "chunk_bytes", "data_offset_bytes": "data_offset_bytes",
        "data_bytes": "data_bytes", "events": "events", "name": "name",
        "ctime": "ctime", "member_uuids": "member_uuids",
        "sb_offset_bytes": "sb_offset_bytes", "layout_version": "layout_version",
        "array_logical_block_size": "array_logical_block_size_bytes",
        "generation": "generation", "queue_depth": "queue_depth",
        "feature_ro_compat": "feature_ro_compat"}
bad = [k for k, v in keys.items() if a[k] != b[v]]
sys.exit(1 if bad or a["status"] != "ok" else 0)' "$TMP/parsed.json" "$TMP/out"
fi
dd if="$L1" of="$TMP/member1.img" bs=12K count=1 status=none
sc examine --export "$TMP/member1.img"
check "examine of an image file" eval 'rc_is 0 && grep -qx MQSTRIPE_SLOT=1 "$TMP/out"'
# A damaged name (a terminal escape, a byte that is not UTF-8) is shown
# escaped, never as raw bytes: text and JSON (--export prints only valid
# superblocks, whose names are checked).
cp "$TMP/member1.img" "$TMP/badname.img"
for at in 4096 8192; do	# both copies
	printf '\033[31m\377' | dd of="$TMP/badname.img" bs=1 seek=$((at + 0x90)) conv=notrunc status=none
done
sc examine "$TMP/badname.img"
check "examine of a damaged name, text: escaped, no control byte" \
	eval 'grep -qE "^  name: +\\\\x1b\\[31m\\\\xff$" "$TMP/out" && ! grep -q $'"'"'\033'"'"' "$TMP/out"'
sc examine --json "$TMP/badname.img"
if have_jq; then
	check "examine of a damaged name, JSON: valid, escaped" \
		eval '[ "$(jq -r .name "$TMP/out")" = "\\x1b[31m\\xff" ]'
fi
sc examine --export "$L5"
check "examine --export of a non-member: nothing, exit 1" eval 'rc_is 1 && [ ! -s "$TMP/out" ] && no_err'
sc examine "$L5"
check "examine of a non-member" eval "rc_is 1 && err_is '^stripectl: $L5: no mqstripe superblock'"

# assemble in any order: slots from the superblocks
sc assemble "$L2" "$L0" "$L1"
check "assemble in another order prints the device" eval 'rc_is 0 && stdout_is /dev/mqstripe0 && no_err'
sc list --json
if have_jq; then
	check "assembled in slot order, name and UUID kept" eval "jq_is '[.arrays[0] | .name, .uuid, .chunk_bytes, ([.members[].device] | join(\",\"))]' '[\"db\",\"$U0\",65536,\"$L0,$L1,$L2\"]'"
fi
check "assemble bumped the events twice (two passes) and marked active" \
	eval '[ "$(ex "$L1" MQSTRIPE_STATE) $(ex "$L1" MQSTRIPE_EVENTS)" = "active 5" ]'
# a copy of a member taken while the array runs is stale after the stop
dd if="$L1" of="$TMP/running1" bs=4K skip=1 count=2 status=none
sc assemble "$L0" "$L1" "$L2"
check "assemble of a running array" eval "rc_is 1 && err_is \"array 'db' .* is already running as /dev/mqstripe0\""
sc stop db
dd if="$L1" of="$TMP/stopped1" bs=4K skip=1 count=2 status=none
dd if="$TMP/running1" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
sc assemble "$L0" "$L1" "$L2"
check "a member copied while the array ran is stale after the stop (two events behind)" \
	eval "rc_is 1 && err_is \"^stripectl: $L1: stale member of array 'db' .*: its event counter is 5, $L0 is at 7\""
dd if="$TMP/stopped1" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none

# each refusal with its own message, nothing started
refused() {	# refused DESC REGEX ARGS...
	local desc=$1 re=$2
	shift 2
	sc "$@"
	check "refused: $desc" eval "rc_is 1 && err_is \"$re\" && [ ! -s \"\$TMP/out\" ] && [ -z \"\$(LD_PRELOAD=$FAKE $STRIPECTL list)\" ]"
}
refused "missing member" "slot 1 \\(member UUID [0-9a-f-]{36}\\) is missing: found 2 of 3 members; attach that device and retry \\(if it is attached, something wrote over its superblock: 'stripectl examine DEVICE'" \
	assemble "$L0" "$L2"
dd if="$L1" of="$L5" bs=12K count=1 conv=notrunc status=none
refused "duplicate slot (a copy)" "$L1 and $L5 both claim slot 1 .* one is a copy" \
	assemble "$L0" "$L1" "$L2" "$L5"
refused "duplicate slot, --scan" "$L1 and $L5 both claim slot 1" \
	assemble --scan --uuid "$U0"
sc zero-superblock "$L5"
check "zero-superblock" eval 'rc_is 0 && no_err && [ -z "$(ex "$L5" MQSTRIPE_ARRAY_UUID)" ]'
sc zero-superblock "$L5"
check "zero-superblock without one" eval "rc_is 1 && err_is 'no mqstripe superblock: nothing to erase'"
# two paths of one namespace (NVMe multipath off; here a second loop
# device over the file of L1, both reporting one wwid): never two slots,
# by hand, --scan or --incremental, refused naming both and the identity
L1B=$(losetup --find --show "$TMP/disk1" 2>/dev/null)
if [ -n "$L1B" ]; then
	loops+=("$L1B")
	for l in "$L1" "$L1B"; do
		d=$R/sys/dev/block/$((0x$(stat -c %t "$l"))):$((0x$(stat -c %T "$l")))
		mkdir -p "$d"
		echo "eui.00a0b1c2d3e4f501" >"$d/wwid"
	done
	paths_re="^stripectl: $L1 and $L1B are one disk: both report the identity eui.00a0b1c2d3e4f501; .*use the multipath device"
	refused "two paths of one namespace, by hand" "$paths_re" \
		assemble "$L0" "$L1" "$L2" "$L1B"
	refused "two paths of one namespace, --scan" "$paths_re" \
		assemble --scan --uuid "$U0"
	sc assemble --incremental "$L1"
	sc assemble --incremental "$L1B"
	check "refused: two paths of one namespace, --incremental" \
		eval "rc_is 1 && err_is \"$paths_re\" && [ -z \"\$(LD_PRELOAD=$FAKE $STRIPECTL list)\" ]"
	# the array started from the other slots' paths, a path of a running
	# member is refused as such, not taken for a copy of its slot
	LD_PRELOAD=$FAKE "$STRIPECTL" assemble --incremental "$L0"
	sc assemble --incremental "$L2"
	check "--incremental: started over one path per slot" \
		eval "rc_is 0 && stdout_is /dev/mqstripe0 && grep -qE \" ${L0#/dev/},${L1#/dev/},${L2#/dev/}\$\" <(LD_PRELOAD=$FAKE $STRIPECTL list)"
	sc assemble --incremental "$L1B"
	check "refused: another path of a running member, --incremental" \
		eval "rc_is 1 && err_is \"$paths_re\""
	LD_PRELOAD=$FAKE "$STRIPECTL" stop db
	rm -rf "${MQSTRIPE_RUN_DIR:?}/$U0" "$R/sys/dev"
	losetup -d "$L1B"
	unset 'loops[-1]'
else
	skip "cannot attach a 7th loop device" "two paths of one namespace"
fi
sc create --name other "$L5"
LD_PRELOAD=$FAKE "$STRIPECTL" stop other
refused "member of another array" "$L5: a member of another array 'other'" \
	assemble "$L0" "$L1" "$L2" "$L5"
sc assemble --name db "$L5" "$L2" "$L1" "$L0"
check "--name picks one array" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
python3 "$SBTOOL" save "$L2" "$TMP/sb2"
python3 "$SBTOOL" flip "$L2" 0x58
refused "checksum" "$L2: superblock checksum mismatch" assemble "$L0" "$L1" "$L2"
refused "checksum, --scan" "$L2: superblock checksum mismatch" assemble --scan --name db
python3 "$SBTOOL" restore "$L2" "$TMP/sb2"
python3 "$SBTOOL" set-incompat "$L2" 40
refused "unknown incompatible feature" "$L2: superblock has unknown incompatible feature flags 0x10000000000" \
	assemble "$L0" "$L1" "$L2"
python3 "$SBTOOL" restore "$L2" "$TMP/sb2"
sc zero-superblock "$L3" "$L4"
check "zero-superblock of two members" eval 'rc_is 0 && [ -z "$(ex "$L3" MQSTRIPE_ARRAY_UUID)$(ex "$L4" MQSTRIPE_ARRAY_UUID)" ]'
refused "no superblock" "$L3: no mqstripe superblock: not a member" assemble "$L3"
sc assemble --scan --uuid "$U0"
check "assemble --scan --uuid" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
sc assemble --scan --uuid "$U0"
check "assemble --scan skips a running array" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# names are unique where superblocks are visible, running or not
sc create --name db "$L5"
check "create refuses a name a stopped array carries, saying where and what to do" \
	eval "rc_is 1 && err_is \"^stripectl: --name 'db': already the name of array $U0 \\(not running\\) on $L0, $L1, $L2: pick another name; or rename that array \\('stripectl rename ARRAY NEWNAME', a stopped one once started with 'stripectl assemble --scan --uuid UUID'\\); or, if it is no longer wanted, erase its superblocks \\('stripectl zero-superblock' on the devices named\\); or give --force to use the name anyway\\\$\" && [ ! -s \"\$TMP/out\" ] && [ \"\$(ex $L5 MQSTRIPE_NAME)\" = other ]"
sc create --force --name db "$L5"
check "create --force takes the name, with a warning saying what assembly does with two" \
	eval "rc_is 0 && err_is \"^stripectl: warning: --name 'db': also the name of array $U0 \\(not running\\) on $L0, $L1, $L2; of two arrays of one name the one started first gets the name, the other starts without it\\\$\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
U5=$(ex "$L5" MQSTRIPE_ARRAY_UUID)

# two arrays of one name: the one that runs first keeps the name (and
# /dev/stripe/db); the other starts too, without the name (under its UUID),
# with a warning on stderr and in the system log naming both UUIDs and
# 'stripectl rename'; --scan, --incremental and by hand alike
name_of() { LD_PRELOAD=$FAKE "$STRIPECTL" list | awk -v u="$1" '$3 == u { print $2 }'; }
nameless_re() {	# nameless_re UUID-WITHOUT UUID-WITH: the warning
	echo "array 'db' \\(UUID $1\\) started as /dev/mqstripe[0-9] without its name: the running array /dev/mqstripe[0-9] \\(UUID $2\\) has the name 'db' \\(/dev/stripe/db\\); give one of the two another name: 'stripectl rename /dev/mqstripe[0-9] NEWNAME'\$"
}
FAKE_MQS_SYSLOG=$TMP/syslog sc assemble --scan
if [ "$(name_of "$U0")" = db ]; then UA=$U0 UB=$U5; else UA=$U5 UB=$U0; fi
check "assemble --scan of two arrays named db: both start, one of them without the name" \
	eval "rc_is 0 && [ \"\$(name_of $UA)/\$(name_of $UB)\" = db/- ] && [ \"\$(wc -l <\"\$TMP/out\")\" = 2 ]"
check "... saying which and why, naming both UUIDs and 'stripectl rename' (stderr, system log)" \
	eval "err_is \"^stripectl: warning: \$(nameless_re $UB $UA)\" && grep -qE \"^4 assemble: \$(nameless_re $UB $UA)\" \"\$TMP/syslog\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop --scan
check "... its superblocks keep the name through a stop" \
	eval "[ \"\$(ex $L0 MQSTRIPE_NAME)/\$(ex $L5 MQSTRIPE_NAME)\" = db/db ]"
rm -f "$TMP/syslog"
LD_PRELOAD=$FAKE "$STRIPECTL" assemble --incremental "$L5" >/dev/null
for d in "$L0" "$L1" "$L2"; do
	FAKE_MQS_SYSLOG=$TMP/syslog sc assemble --incremental "$d"
done
check "--incremental: the second array of one name starts without it" \
	eval "rc_is 0 && stdout_is /dev/mqstripe1 && [ \"\$(name_of $U5)/\$(name_of $U0)\" = db/- ]"
check "... saying so on stderr and in the system log" \
	eval "err_is \"^stripectl: warning: \$(nameless_re $U0 $U5)\" && grep -qE \"^4 assemble: \$(nameless_re $U0 $U5)\" \"\$TMP/syslog\""
rm -f "$TMP/syslog"
LD_PRELOAD=$FAKE "$STRIPECTL" stop /dev/mqstripe1
sc assemble --scan
check "assemble --scan with the other 'db' running: starts without the name" \
	eval "rc_is 0 && stdout_is /dev/mqstripe1 && [ \"\$(name_of $U0)\" = - ] && err_is \"^stripectl: warning: \$(nameless_re $U0 $U5)\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop /dev/mqstripe1
sc assemble "$L0" "$L1" "$L2"
check "assemble by hand with the other 'db' running: starts without the name" \
	eval "rc_is 0 && stdout_is /dev/mqstripe1 && [ \"\$(name_of $U0)\" = - ] && err_is \"^stripectl: warning: \$(nameless_re $U0 $U5)\""
sc create --name db "$L3"
check "create --name db with one 'db' running (the other without the name): refused as the running array's name, naming it" \
	eval "rc_is 1 && grep -q \"^stripectl: --name 'db': the running array /dev/mqstripe0 (/dev/stripe/db) has this name\" \"\$TMP/err\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
sc create --name db "$L3"
check "... with the named one stopped: refused, saying which runs without the name and how to rename it" \
	eval "rc_is 1 && grep -qE \"^stripectl: --name 'db': already the name of array ($U0 \\(running as /dev/mqstripe1 without that name\\) on $L0, $L1, $L2 and of array $U5 \\(not running\\) on $L5|$U5 \\(not running\\) on $L5 and of array $U0 \\(running as /dev/mqstripe1 without that name\\) on $L0, $L1, $L2): pick another name; or rename those arrays\" \"\$TMP/err\" && [ -z \"\$(ex $L3 MQSTRIPE_NAME)\" ]"
LD_PRELOAD=$FAKE "$STRIPECTL" stop /dev/mqstripe1
sc assemble --scan --uuid "$U0"
check "... --uuid starts one of them, with the name" eval 'rc_is 0 && stdout_is /dev/mqstripe0 && [ "$(name_of "$U0")" = db ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L5"

# superblocks that fail their checksum are no twins: a damaged copy of a
# superblock naming another array 'db' ($L3), two damaged ones of other
# arrays both named with a terminal escape and bytes that are not UTF-8
# ($L4, $L5): --scan starts db, names the damaged devices, and prints no
# byte of those names raw
damaged() {	# damaged DEV UUID-BYTE NAME: $L1's superblock, another array
	dd if="$L1" of="$1" bs=4K count=3 conv=notrunc status=none
	for at in 4096 8192; do
		printf "\\$2%.0s" $(seq 16) | dd of="$1" bs=1 seek=$((at + 0x30)) conv=notrunc status=none
		printf '%s\0' "$3" | dd of="$1" bs=1 seek=$((at + 0x90)) conv=notrunc status=none
	done
}
damaged "$L3" 101 db
damaged "$L4" 102 $'\033[31m\377'
damaged "$L5" 103 $'\033[31m\377'
sc assemble --scan
check "a damaged superblock naming 'db' does not keep the valid 'db' from starting" \
	eval "rc_is 1 && stdout_is /dev/mqstripe0 && [ \"\$(list_names)\" = 'db ' ] && ! grep -q 'same name' \"\$TMP/err\""
check "... the damaged devices are named, no byte of their names printed raw" \
	eval "[ \"\$(grep -c 'superblock checksum mismatch' \"\$TMP/err\")\" = 3 ] && grep -q '^stripectl: $L3: ' \"\$TMP/err\" && grep -q '^stripectl: $L4: ' \"\$TMP/err\" && ! LC_ALL=C grep -q \"\$(printf '[\\200-\\377\\033]')\" \"\$TMP/err\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
sc assemble --scan --name db
check "assemble --scan --name db: the damaged one is no second 'db'" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0"
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
dd if=/dev/zero bs=4K count=3 status=none | tee "$L4" "$L5" >"$L3"

# a member that missed updates (an old copy put back): stale, refused;
# assemble --force starts it, saying which and by how much, and bumps it
dd if="$L1" of="$TMP/old1" bs=4K skip=1 count=2 status=none
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
dd if="$TMP/old1" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
refused "stale member" "$L1: stale member of .*start it anyway with 'stripectl assemble --force'" \
	assemble "$L0" "$L1" "$L2"
ev=$(ex "$L0" MQSTRIPE_EVENTS)
FAKE_MQS_SYSLOG=$TMP/syslog sc assemble --force "$L0" "$L1" "$L2"
check "assemble --force starts it, saying which member is how far behind" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: warning: $L1 \\(slot 1 of array 'db' \\(UUID $U0\\)\\) is 4 events behind $L0 \\([0-9]+ vs [0-9]+\\): started anyway \\(--force\\)\""
check "... and logs it: one warning (priority 4) in the system log, naming the member and how far behind" \
	eval "[ \"\$(cat \"\$TMP/syslog\")\" = \"4 assemble: $L1 (slot 1 of array 'db' (UUID $U0)) is 4 events behind $L0 ($((ev - 4)) vs $ev): started anyway (--force)\" ]"
check "... and bumps it with the others" \
	eval '[ "$(ex "$L1" MQSTRIPE_EVENTS)" = "$(ex "$L0" MQSTRIPE_EVENTS)" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# a member the module reports faulty (or gone) at the stop: its superblock
# stays as it was (events and state), so it is two events behind the
# others, as md leaves a faulty disk; stop names it (slot, device, why,
# what assemble will do) and exits 0, the array being stopped; a plain
# assemble refuses it as stale, --force starts it anyway
ev_json() {	# ev_json DEV: "EVENTS STATE" of examine --json
	LD_PRELOAD=$FAKE "$STRIPECTL" examine --json "$1" 2>/dev/null |
		jq -r '"\(.events) \(.state)"'
}
for how in faulty gone; do
	LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
	ev=$(ex "$L1" MQSTRIPE_EVENTS)
	m1=$(stat -L -c '%t %T' "$L1" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
	if [ $how = faulty ]; then
		FAKE_MQS_FAULTY=1 sc stop db
	else
		FAKE_MQS_GONE=1 sc stop db
	fi
	check "stop with slot 1 $how: exit 0, the array stopped" \
		eval 'rc_is 0 && [ -z "$(list_names)" ]'
	check "stop with slot 1 $how: a warning naming slot 1, its device, why, and what assemble will do" \
		eval "err_is \"^stripectl: warning: $L1 \\\\(slot 1, $m1\\\\) is $how.*superblock was not updated.*two events behind.*'stripectl assemble' refuses it as a stale member.*'stripectl assemble --force'\""
	if have_jq; then
		check "stop with slot 1 $how: its superblock not rewritten (examine --json: events and state as they were)" \
			eval '[ "$(ev_json "$L1")" = "$ev active" ]'
		check "stop with slot 1 $how: the others written clean, two events ahead" \
			eval '[ "$(ev_json "$L0")|$(ev_json "$L2")" = "$((ev + 2)) clean|$((ev + 2)) clean" ]'
	fi
	sc assemble "$L0" "$L1" "$L2"
	check "stop with slot 1 $how: a plain assemble refuses it as stale, starting nothing" \
		eval "rc_is 1 && err_is \"^stripectl: $L1: stale member of array 'db' .*: its event counter is $ev, $L0 is at $((ev + 2))\" && [ -z \"\$(list_names)\" ]"
	# what the boot runs: udev's --incremental as each member comes (the
	# last one completes the array), and the boot-time unit's --scan
	rm -rf "${MQSTRIPE_RUN_DIR:?}"/*
	for d in "$L0" "$L2" "$L1"; do
		sc assemble --incremental "$d"
	done
	check "stop with slot 1 $how: --incremental of the last member refuses it as stale, naming it, why, and --force" \
		eval "rc_is 1 && err_is \"^stripectl: $L1: stale member of array 'db' .*faulty or gone when the array stopped.*'stripectl assemble --force'\" && [ -z \"\$(list_names)\" ]"
	sc assemble --scan
	check "stop with slot 1 $how: assemble --scan refuses it too" \
		eval "rc_is 1 && grep -q \"^stripectl: $L1: stale member of array 'db' \" \"\$TMP/err\" && [ -z \"\$(list_names)\" ]"
	rm -rf "${MQSTRIPE_RUN_DIR:?}"/*
	sc assemble --force "$L0" "$L1" "$L2"
	check "stop with slot 1 $how: assemble --force starts it, saying it is 2 events behind" \
		eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: warning: $L1 \\\\(slot 1 of array 'db' .* is 2 events behind\""
	LD_PRELOAD=$FAKE "$STRIPECTL" stop db
done

# record-fault (the udev rule's, at member_faulty and member_gone): a
# member the module reports faulty or gone is left behind in the
# superblocks while the array runs, so that a crash or a power cut (no
# stop) does not bring it back at the next assemble; clear brings it up
# to date again.  A crash: the stand-in forgets its arrays, nothing is
# written (its state file emptied, no array running but this one).
crash() { : >"$R/state"; }
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
ev=$(ex "$L1" MQSTRIPE_EVENTS)
m1=$(stat -L -c '%t %T' "$L1" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
sc record-fault db
check "record-fault with every member ok: nothing to record, nothing written" \
	eval 'rc_is 0 && no_err && stdout_is "/dev/mqstripe0: no member is faulty or gone: nothing to record" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$ev $ev" ]'
rm -f "$TMP/syslog"
FAKE_MQS_FAULTY=1 FAKE_MQS_SYSLOG=$TMP/syslog sc record-fault db
msg="/dev/mqstripe0: slot 1 ($L1, $m1) is faulty: recorded in the superblocks of the 2 other members, now two events ahead of it; the next 'stripectl assemble' refuses it as a stale member (start the array with it anyway with 'stripectl assemble --force'); 'stripectl clear' brings it back once the fault is gone"
check "record-fault with slot 1 faulty: names it, what assemble will do, clear; exit 0" \
	eval 'rc_is 0 && no_err && stdout_is "$msg"'
check "... and says so in the system log (a warning)" \
	eval '[ "$(cat "$TMP/syslog")" = "4 record-fault: $msg" ]'
check "... the others two events ahead, still active; slot 1 as it was" \
	eval '[ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS) $(ex "$L0" MQSTRIPE_STATE) $(ex "$L1" MQSTRIPE_STATE)" = "$((ev + 2)) $((ev + 2)) $ev active active" ]'
check "... the array runs on" eval '[ "$(list_names)" = "db " ]'
check "... sbtool.py (written from FORMAT.md) reads the fault record: events $((ev + 1)), slot 1, the rest of the reserved bytes zero" \
	eval '[ "$(python3 "$SBTOOL" parse "$L0" | python3 -c "import json, sys; p = json.load(sys.stdin); print(p[\"status\"], p[\"fault_events\"], p[\"fault_slots\"], p[\"reserved_zero\"])")" = "ok $((ev + 1)) [1] True" ]'
crash
refused "after record-fault and a crash: the failed member is stale" \
	"^stripectl: $L1: stale member of array 'db' .*: its event counter is $ev, $L0 is at $((ev + 2)) .*'stripectl assemble --force'" \
	assemble "$L0" "$L1" "$L2"
sc assemble --force "$L0" "$L1" "$L2"
check "... assemble --force starts it" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_GONE=2 sc record-fault db
m2=$(stat -L -c '%t %T' "$L2" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
check "record-fault with slot 2 gone: names it, no clear advice" \
	eval 'rc_is 0 && no_err && stdout_is "/dev/mqstripe0: slot 2 ($L2, $m2) is gone: recorded in the superblocks of the 2 other members, now two events ahead of it; the next '"'"'stripectl assemble'"'"' refuses it as a stale member (start the array with it anyway with '"'"'stripectl assemble --force'"'"')" && [ "$(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L0" MQSTRIPE_EVENTS)" = "$ev $((ev + 2))" ]'
FAKE_MQS_GONE=2 sc clear db 2
check "clear of a gone member: refused, nothing written" \
	eval 'rc_is 1 && err_is "slot 2 \($L2, $m2\) is gone: its disk went away" && [ "$(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L0" MQSTRIPE_EVENTS)" = "$ev $((ev + 2))" ]'
# slot 2 back (a stop and assemble --force), slot 1 faulty, recorded,
# then cleared
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
LD_PRELOAD=$FAKE "$STRIPECTL" assemble --force "$L0" "$L1" "$L2" >/dev/null 2>&1
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_FAULTY=1 LD_PRELOAD=$FAKE "$STRIPECTL" record-fault db >/dev/null
FAKE_MQS_FAULTY=1 sc clear db 1
check "clear after record-fault: slot 1 ok, the superblocks of the three current again, exit 0" \
	eval 'rc_is 0 && no_err && stdout_is "/dev/mqstripe0: slot 1 ($L1, $m1) was faulty, is ok now
/dev/mqstripe0: the superblocks of its 3 working members are current again (events $((ev + 3)))" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS) $(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_STATE)" = "$((ev + 3)) $((ev + 3)) $((ev + 3)) active" ]'
sc clear db 1
check "clear again: nothing to clear, nothing written" \
	eval 'rc_is 0 && stdout_is "/dev/mqstripe0: slot 1 ($L1, $m1) is ok: nothing to clear" && [ "$(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 3))" ]'
crash
sc assemble "$L0" "$L1" "$L2"
check "after clear and a crash: assemble takes the cleared member (not stopped cleanly: a warning)" \
	eval 'rc_is 0 && stdout_is /dev/mqstripe0 && grep -q "was not stopped cleanly" "$TMP/err"'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# a fault that udev did not record (no udevd yet or any more, an event
# lost): assemble --scan (the boot-time unit), stop --scan --skip-busy
# leaving the array running (the shutdown's) and the monitor record it
# when they see the member failed; once recorded nothing more is written
# (record-fault again: nothing to write); a crash then: refused as stale
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null 2>&1
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_FAULTY=1 sc assemble --scan
check "assemble --scan with slot 1 of a running array faulty: recorded, said on stderr, exit 0" \
	eval 'rc_is 0 && [ ! -s "$TMP/out" ] && err_is "^stripectl: /dev/mqstripe0: slot 1 \\($L1, $m1\\) is faulty: recorded in the superblocks of the 2 other members" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 2)) $((ev + 2)) $ev" ]'
FAKE_MQS_FAULTY=1 sc assemble --scan
check "... again: recorded already, nothing written, nothing said" \
	eval 'rc_is 0 && no_err && [ "$(ex "$L0" MQSTRIPE_EVENTS)" = $((ev + 2)) ]'
FAKE_MQS_FAULTY=1 sc record-fault db
check "... record-fault then: recorded already, nothing written" \
	eval 'rc_is 0 && no_err && stdout_is "/dev/mqstripe0: the superblocks of its other members record every member faulty or gone already: nothing to write" && [ "$(ex "$L0" MQSTRIPE_EVENTS)" = $((ev + 2)) ]'
FAKE_MQS_FAULTY=1 FAKE_MQS_GONE=2 sc record-fault db
check "... another member failed since: recorded, both left behind" \
	eval 'rc_is 0 && [ "$(sed -n "s/^\/dev\/mqstripe0: slot \([12]\) .* is \([a-z]*\): recorded in the superblocks of the 1 other members.*/\1 \2/p" "$TMP/out" | tr "\n" " ")" = "1 faulty 2 gone " ] && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS) $(ex "$L2" MQSTRIPE_EVENTS)" = "$((ev + 4)) $ev $((ev + 2))" ]'
crash
sc assemble "$L0" "$L1" "$L2"
check "... after a crash: refused as stale" eval 'rc_is 1 && err_is "stale member of array .db."'
sc assemble --force "$L0" "$L1" "$L2"
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_FAULTY=1 FAKE_MQS_BUSY=always sc stop --scan --skip-busy
check "stop --scan --skip-busy leaving an array with slot 1 faulty running: recorded" \
	eval 'rc_is 0 && grep -q "^stripectl: /dev/mqstripe0: slot 1 ($L1, $m1) is faulty: recorded" "$TMP/err" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 2)) $ev" ] && [ "$(list_names)" = "db " ]'
crash
sc assemble --force "$L0" "$L1" "$L2"
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_FAULTY=1 sc monitor --program /bin/true --oneshot db
check "monitor (--oneshot) finding slot 1 faulty: recorded" \
	eval 'rc_is 0 && grep -q "^stripectl: /dev/mqstripe0: slot 1 ($L1, $m1) is faulty: recorded" "$TMP/err" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 2)) $ev" ]'
FAKE_MQS_FAULTY=1 sc clear db 1
check "clear: the fault record names no slot any more" \
	eval 'rc_is 0 && ! LD_PRELOAD=$FAKE "$STRIPECTL" examine "$L0" | grep -q "fault record"'
FAKE_MQS_FAULTY=1 sc assemble --scan
check "... a member faulty again after its clear: recorded again" \
	eval 'rc_is 0 && err_is "slot 1 .* is faulty: recorded" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 5)) $((ev + 3))" ]'
FAKE_MQS_FAULTY=1 LD_PRELOAD=$FAKE "$STRIPECTL" clear db 1 >/dev/null

# the monitor with a conf that has no MAILADDR or PROGRAM line (a machine
# without mail settings): it runs all the same and records the fault that
# nothing else recorded.  First the monitor's unit as systemd runs it: its
# ExecCondition lines (if any) must pass with such a conf, and its
# ExecStart (the long-running monitor) records the fault it finds; then
# "monitor --scan --oneshot" without any destination
unit=$TOP/tools/systemd/mqstripe-monitor.service
printf 'AUTO yes\n' >"$TMP/nomail.conf"
conds_ok=yes
while IFS= read -r c; do
	c=${c//\/etc\/mqstripe.conf/$TMP\/nomail.conf}
	c=${c#-}
	sh -c "$c" || conds_ok="no: $c"
done < <(sed -n 's/^ExecCondition=//p' "$unit")
check "mqstripe-monitor.service: its conditions pass with a conf lacking MAILADDR and PROGRAM" \
	eval '[ "$conds_ok" = yes ] || { echo "# $conds_ok"; false; }'
read -r -a margs < <(sed -n 's|^ExecStart=/usr/sbin/stripectl ||p' "$unit")
ev=$(ex "$L1" MQSTRIPE_EVENTS)
rm -f "$TMP/syslog"
FAKE_MQS_FAULTY=1 FAKE_MQS_SYSLOG=$TMP/syslog MQSTRIPE_CONF=$TMP/nomail.conf \
	LD_PRELOAD=$FAKE "$STRIPECTL" "${margs[@]}" >"$TMP/out" 2>"$TMP/err" &
mpid=$!
for _ in $(seq 100); do
	[ "$(ex "$L0" MQSTRIPE_EVENTS)" = $((ev + 2)) ] && break
	sleep 0.1
done
running=no
kill -0 "$mpid" 2>/dev/null && running=yes
kill -TERM "$mpid" 2>/dev/null
wait "$mpid"
check "... and its command (${margs[*]}) runs, recording slot 1 faulty, saying so" \
	eval '[ "$running" = yes ] && grep -q "^stripectl: /dev/mqstripe0: slot 1 ($L1, $m1) is faulty: recorded" "$TMP/err" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L2" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 2)) $((ev + 2)) $ev" ]'
FAKE_MQS_FAULTY=1 LD_PRELOAD=$FAKE "$STRIPECTL" clear db 1 >/dev/null
ev=$(ex "$L1" MQSTRIPE_EVENTS)
FAKE_MQS_FAULTY=1 MQSTRIPE_CONF=$TMP/nomail.conf sc monitor --scan --oneshot
check "monitor --scan --oneshot, no MAILADDR, PROGRAM, --syslog: runs, the event on stdout, the fault recorded" \
	eval 'rc_is 0 && grep -q "^member_faulty /dev/mqstripe0 (array .db., UUID [0-9a-f-]*): slot 1, member $L1 ($m1), array active\$" "$TMP/out" && grep -q "^stripectl: /dev/mqstripe0: slot 1 ($L1, $m1) is faulty: recorded" "$TMP/err" && [ "$(ex "$L0" MQSTRIPE_EVENTS) $(ex "$L1" MQSTRIPE_EVENTS)" = "$((ev + 2)) $ev" ]'
crash
sc assemble "$L0" "$L1" "$L2"
check "... after a crash: the member refused as stale" eval 'rc_is 1 && err_is "stale member of array .db."'
LD_PRELOAD=$FAKE "$STRIPECTL" assemble --force "$L0" "$L1" "$L2" >/dev/null 2>&1
FAKE_MQS_FAULTY=1 LD_PRELOAD=$FAKE "$STRIPECTL" clear db 1 >/dev/null
LD_PRELOAD=$FAKE "$STRIPECTL" stop db >/dev/null 2>&1

# the metadata lock (the one "assemble --incremental" takes, which udev
# runs on the uevents of members just written): create, stop,
# zero-superblock, assemble --scan and assemble by hand wait for it
mkdir -p "$MQSTRIPE_RUN_DIR"
locked() {	# locked DESC CHECK-WHILE-HELD CHECK-AFTER STRIPECTL-ARGS...
	local desc=$1 during=$2 after=$3 pid
	shift 3
	exec 9>"$MQSTRIPE_RUN_DIR/lock"
	flock 9
	LD_PRELOAD=$FAKE "$STRIPECTL" "$@" >"$TMP/out" 2>"$TMP/err" 9>&- &
	pid=$!
	sleep 1
	check "$desc waits while another holds the lock" \
		eval "kill -0 $pid && $during"
	exec 9>&-
	wait "$pid"
	rc=$?
	check "$desc goes on when it is released" eval "rc_is 0 && $after"
}
locked "create" '[ -z "$(ex "$L5" MQSTRIPE_NAME)" ]' '[ "$(ex "$L5" MQSTRIPE_NAME)" = locked ]' \
	create --name locked "$L5"
locked "stop" '[ -n "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ]' '[ -z "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ]' \
	stop locked
locked "zero-superblock" '[ "$(ex "$L5" MQSTRIPE_NAME)" = locked ]' '[ -z "$(ex "$L5" MQSTRIPE_NAME)" ]' \
	zero-superblock "$L5"
ev=$(ex "$L0" MQSTRIPE_EVENTS)
locked "assemble --scan" '[ -z "$(list_names)" ] && [ "$(ex "$L0" MQSTRIPE_EVENTS)" = "$ev" ]' \
	'stdout_is /dev/mqstripe0 && [ "$(list_names)" = "db " ]' assemble --scan
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
ev=$(ex "$L0" MQSTRIPE_EVENTS)
locked "assemble DEVICE..." '[ -z "$(list_names)" ] && [ "$(ex "$L2" MQSTRIPE_EVENTS)" = "$ev" ]' \
	'stdout_is /dev/mqstripe0 && [ "$(list_names)" = "db " ]' assemble "$L0" "$L1" "$L2"
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# ... for at most MQSTRIPE_LOCK_TIMEOUT seconds (a boot unit must not
# hang): then they give up, saying so, and start or write nothing
exec 9>"$MQSTRIPE_RUN_DIR/lock"
flock 9
sc_bounded() {	# sc with a lock timeout of 1 s, killed after 20 s
	MQSTRIPE_LOCK_TIMEOUT=1 timeout 20 env LD_PRELOAD="$FAKE" "$STRIPECTL" "$@" \
		>"$TMP/out" 2>"$TMP/err" 9>&-
	rc=$?
}
held="^stripectl: $MQSTRIPE_RUN_DIR/lock is held by another stripectl for more than 1 s \\(MQSTRIPE_LOCK_TIMEOUT\\): giving up"
sc_bounded assemble --scan
check "assemble --scan gives up when the lock stays held past MQSTRIPE_LOCK_TIMEOUT" \
	eval "rc_is 1 && err_is \"$held\" && [ -z \"\$(list_names)\" ]"
sc_bounded create --name late "$L5"
check "... and so does create, writing nothing" \
	eval "rc_is 1 && err_is \"$held\" && [ -z \"\$(ex $L5 MQSTRIPE_NAME)\" ]"
exec 9>&-
# a lock that cannot be taken (here the run directory is a file): said,
# naming the path and the reason; assembly by hand goes on without it,
# incremental assembly (whose records live there) does not
: >"$TMP/runfile"
MQSTRIPE_RUN_DIR=$TMP/runfile sc assemble "$L0" "$L1" "$L2"
check "assemble without a usable lock: goes on, saying which lock and why" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: warning: cannot take the lock $TMP/runfile/lock: Not a directory; going on without it\""
MQSTRIPE_RUN_DIR=$TMP/runfile LD_PRELOAD=$FAKE "$STRIPECTL" stop db 2>/dev/null
MQSTRIPE_RUN_DIR=$TMP/runfile sc assemble --incremental "$L0"
check "assemble --incremental without a usable lock: refused, saying which lock and why" \
	eval "rc_is 1 && err_is \"^stripectl: cannot take the lock $TMP/runfile/lock: Not a directory\\\$\""

# incremental: starts exactly when the last slot arrives
# records [UUID]: the members --incremental recorded (of one array)
records() { find "$MQSTRIPE_RUN_DIR${1:+/$1}" -name 'slot-*' 2>/dev/null; }
for d in "$L2" "$L0"; do
	sc assemble --incremental "$d"
	check "incremental $d: recorded, not started" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && [ -z "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ]'
done
sc assemble --incremental "$L0"
check "incremental again: idempotent" eval 'rc_is 0 && [ ! -s "$TMP/out" ]'
sc assemble --incremental "$L1"
check "incremental, last member: started" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
sc assemble --incremental "$L1"
check "incremental of a running member: nothing to do" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err'
check "incremental records gone after the start" eval '[ -z "$(records)" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# --change (udev's change events of dm, md and loop members): an array
# that stop stopped stays stopped, the stop's own writes make such events;
# a plain --incremental (an add event) still records, and a start by hand
# ends the stopped mark
uuid_db=$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "$L0" | sed -n 's/^MQSTRIPE_ARRAY_UUID=//p')
check "stop marks the array stopped" test -e "$MQSTRIPE_RUN_DIR/$uuid_db/stopped"
for d in "$L0" "$L1" "$L2"; do
	sc assemble --incremental --change "$d"
	check "--change after a stop, $d: nothing recorded, not started" eval \
		'rc_is 0 && [ ! -s "$TMP/out" ] && no_err && [ -z "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ] && [ -z "$(records "$uuid_db")" ]'
done
sc assemble "$L0" "$L1" "$L2"
check "a start by hand ends the stopped mark" eval \
	'stdout_is /dev/mqstripe0 && [ ! -e "$MQSTRIPE_RUN_DIR/$uuid_db/stopped" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
rm -rf "${MQSTRIPE_RUN_DIR:?}/$uuid_db"	# as a reboot empties /run
for d in "$L2" "$L0"; do
	sc assemble --incremental --change "$d"
	check "--change after a boot, $d: recorded, not started" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && [ -z "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ]'
done
sc assemble --incremental --change "$L1"
check "--change after a boot, last member: started" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
# a start at a change event that fails leaves the array as a stop does:
# its own writes (the blocks put back) make change events on md and loop
# members, which must not try again and again
rm -rf "${MQSTRIPE_RUN_DIR:?}/$uuid_db"
for d in "$L2" "$L0"; do
	sc assemble --incremental --change "$d"
done
FAKE_MQS_CREATE_FAIL=16,4,1 sc assemble --incremental --change "$L1"
check "--change, a start that fails: refused, the array marked stopped, no records" \
	eval 'rc_is 1 && [ -z "$(LD_PRELOAD=$FAKE $STRIPECTL list)" ] && [ -e "$MQSTRIPE_RUN_DIR/$uuid_db/stopped" ] && [ -z "$(records "$uuid_db")" ]'
sc assemble --incremental --change "$L1"
check "... the next change event tries nothing" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err && [ -z "$(records "$uuid_db")" ]'
rm -rf "${MQSTRIPE_RUN_DIR:?}/$uuid_db"

# /etc/mqstripe.conf (MQSTRIPE_CONF): with AUTO no, assemble --scan and
# --incremental start only the arrays its ARRAY lines name; a disk from
# another host (here array 'db' on $L5, the name of ours too) is left
# alone and does not count as a second 'db'; by hand, --uuid, --name
# start it; an unknown keyword is warned about, a misspelt AUTO starts nothing
CONF=$TMP/mqstripe.conf
LD_PRELOAD=$FAKE "$STRIPECTL" create --force --name db "$L5" >/dev/null 2>&1
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
UG=$(ex "$L5" MQSTRIPE_ARRAY_UUID)
sc examine --scan --brief
check "examine --scan --brief: one ARRAY line per array" \
	eval "rc_is 0 && grep -qx 'ARRAY uuid=$U0 name=db' \"\$TMP/out\" && grep -qx 'ARRAY uuid=$UG name=db' \"\$TMP/out\" && ! grep -qv '^ARRAY uuid=[0-9a-f-]\\{36\\}\\( name=[A-Za-z0-9._-]*\\)\\?$' \"\$TMP/out\" && no_err"
sc examine --scan
check "examine --scan: the devices found as a comment" \
	eval "rc_is 0 && grep -qx 'ARRAY uuid=$U0 name=db  # 3 of 3 members: $L0 $L1 $L2' \"\$TMP/out\" && grep -qx 'ARRAY uuid=$UG name=db  # 1 of 1 members: $L5' \"\$TMP/out\""
LD_PRELOAD=$FAKE "$STRIPECTL" examine --scan >/dev/full 2>"$TMP/err"
rc=$?
check "examine --scan > /dev/full (a full disk): exit 1, saying so" \
	eval 'rc_is 1 && err_is "^stripectl: cannot write to standard output: No space left on device\$"'
printf '# this host\nAUTO no\n%s\n' "$(grep "uuid=$U0" "$TMP/out")" >"$CONF"
MQSTRIPE_CONF=$CONF sc assemble --scan
check "AUTO no: --scan starts the array an ARRAY line names, not the other one of that name" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && [ \"\$(list_names)\" = 'db ' ] && [ \"\$(ex $L0 MQSTRIPE_STATE)\" = active ] && [ \"\$(ex $L5 MQSTRIPE_STATE)\" = clean ]"
check "... and says why the other is not started, with the line that would allow it" \
	eval "err_is \"^stripectl: note: array 'db' \\(UUID $UG\\) \\(on $L5\\) not started: AUTO no in $CONF \\(line 2\\) and no ARRAY line names it; to start it at boot add the line 'ARRAY uuid=$UG name=db'; to start it now: 'stripectl assemble --scan --uuid $UG'\$\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L5"
check "AUTO no: --incremental does not record or start an array no line names" \
	eval "rc_is 1 && err_is \"^stripectl: $L5: array 'db' \\(UUID $UG\\) not started: AUTO no in $CONF\" && [ -z \"\$(records $UG)\" ] && [ -z \"\$(list_names)\" ]"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L0"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L1"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L2"
check "AUTO no: --incremental starts the array a line names" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
MQSTRIPE_CONF=$CONF sc assemble --scan --uuid "$UG"
check "AUTO no: --scan --uuid starts what it names" eval "rc_is 0 && stdout_is /dev/mqstripe0 && [ \"\$(ex $L5 MQSTRIPE_STATE)\" = active ]"
LD_PRELOAD=$FAKE "$STRIPECTL" stop /dev/mqstripe0
printf 'AUTO no\nARRAY uuid=%s name=data\n' "$U0" >"$CONF"
MQSTRIPE_CONF=$CONF sc assemble --scan
check "AUTO no: a line whose name differs does not allow the array" \
	eval "rc_is 0 && [ ! -s \"\$TMP/out\" ] && grep -q \"array 'db' (UUID $U0) (on $L0) not started: AUTO no in $CONF, and its ARRAY line (line 2) names 'data', not 'db'\" \"\$TMP/err\" && [ -z \"\$(list_names)\" ]"
printf 'AUTO no\nARRAY uuid=%s\nDEVICE partitions\n' "$U0" >"$CONF"
MQSTRIPE_CONF=$CONF sc assemble --scan
check "an unknown keyword (mdadm's DEVICE): --scan warns, naming file and line, and goes on" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && grep -qx \"stripectl: warning: $CONF:3: unknown keyword 'DEVICE' (known: AUTO, ARRAY, MAILADDR, MAILFROM, PROGRAM, GROW; see mqstripe.conf(5)); the line is ignored\" \"\$TMP/err\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
printf 'AUTOSTART no\nARRAY uuid=%s\n' "$U0" >"$CONF"
MQSTRIPE_CONF=$CONF sc assemble --scan
check "a misspelt AUTO (ignoring it would start every array): --scan starts nothing and names file and line" \
	eval "rc_is 1 && err_is \"^stripectl: $CONF:1: unknown keyword 'AUTOSTART', a misspelt AUTO\\? .*: nothing started\$\" && [ -z \"\$(list_names)\" ]"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L0"
check "... and --incremental records nothing" \
	eval "rc_is 1 && err_is \"^stripectl: $L0: $CONF:1: unknown keyword 'AUTOSTART'\" && [ -z \"\$(records $U0)\" ]"
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L5"
MQSTRIPE_CONF=$CONF sc assemble --scan --uuid "$U0"
check "... but --scan --uuid, by hand, starts what it names" eval 'rc_is 0 && stdout_is /dev/mqstripe0 && no_err'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
MQSTRIPE_CONF=$CONF sc assemble --scan --name db
check "... and so does --scan --name" eval 'rc_is 0 && stdout_is /dev/mqstripe0 && no_err'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# stripectl monitor --scan --oneshot --test, MAILADDR, MAILFROM and
# PROGRAM from the conf: a 'test' event for the array, then what is wrong
# with it now (the fake module says slot 1 is faulty), each to the program
# (arguments and MQSTRIPE_* environment), in a mail through the stand-in
# sendmail (MQSTRIPE_SENDMAIL) and as a line on stdout
export FAKE_MQS_FAULTY=1
LD_PRELOAD=$FAKE "$STRIPECTL" assemble --scan --name db >/dev/null 2>&1
cat >"$TMP/prog" <<'EOF'
#!/bin/sh
echo "$*|$MQSTRIPE_NAME|$MQSTRIPE_ARRAY_UUID|$MQSTRIPE_MEMBER|$MQSTRIPE_STATE" >>"${0%/*}/prog.out"
EOF
cat >"$TMP/sendmail" <<'EOF'
#!/bin/sh
{ echo "ARGS $*"; cat; echo "--"; } >>"${0%/*}/mail.out"
EOF
chmod +x "$TMP/prog" "$TMP/sendmail"
printf 'MAILADDR ops@example.invalid\nMAILFROM raid <raid@example.invalid>\nPROGRAM %s\n' "$TMP/prog" >"$CONF"
m1=$(stat -L -c '%t %T' "$L1" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
MQSTRIPE_CONF=$CONF MQSTRIPE_SENDMAIL=$TMP/sendmail sc monitor --scan --oneshot --test
check "monitor --oneshot --test: one line per event on stdout" \
	eval "rc_is 0 && no_err && [ \"\$(cat \"\$TMP/out\")\" = \"test /dev/mqstripe0 (array 'db', UUID $U0), array active
member_faulty /dev/mqstripe0 (array 'db', UUID $U0): slot 1, member $L1 ($m1), array active\" ]"
check "... the program gets EVENT DEVICE [SLOT MEMBER] and the fields in its environment" \
	eval "[ \"\$(cat \"\$TMP/prog.out\")\" = \"test /dev/mqstripe0|db|$U0||active
member_faulty /dev/mqstripe0 1 $L1|db|$U0|$m1|active\" ]"
check "... two mails through 'sendmail -t', MAILFROM and MAILADDR in the headers" \
	eval "[ \"\$(grep -c '^ARGS -t\$' \"\$TMP/mail.out\")\" = 2 ] && [ \"\$(grep -c '^From: raid <raid@example.invalid>\$' \"\$TMP/mail.out\")\" = 2 ] && [ \"\$(grep -c '^To: ops@example.invalid\$' \"\$TMP/mail.out\")\" = 2 ]"
check "... the fault's mail names event, host, array, UUID, slot and member" \
	eval "grep -qx \"Subject: mqstripe member_faulty event on \$(hostname): array db (/dev/mqstripe0)\" \"\$TMP/mail.out\" && grep -qx 'Slot:    1' \"\$TMP/mail.out\" && grep -qx \"Member:  $L1 ($m1)\" \"\$TMP/mail.out\" && grep -qx \"UUID:    $U0\" \"\$TMP/mail.out\" && grep -qx 'Subject: mqstripe test event on .*' \"\$TMP/mail.out\""
rm -f "$TMP/prog.out" "$TMP/mail.out"
MQSTRIPE_CONF=$CONF MQSTRIPE_SENDMAIL=$TMP/sendmail sc monitor --program "$TMP/prog" --oneshot --test other
check "monitor --test of an array not running: refused, nothing sent" \
	eval "rc_is 1 && err_is '^stripectl: monitor: --test: no running array of those given to send a test event for\$' && [ ! -e \"\$TMP/prog.out\" ] && [ ! -e \"\$TMP/mail.out\" ]"
sc monitor --program "$TMP/prog" --oneshot "$U0"
check "monitor --oneshot UUID: only the fault, to the program given, no mail without --scan" \
	eval "rc_is 0 && [ \"\$(cat \"\$TMP/prog.out\")\" = \"member_faulty /dev/mqstripe0 1 $L1|db|$U0|$m1|active\" ] && [ ! -e \"\$TMP/mail.out\" ]"
rm -f "$TMP/prog.out"
m2=$(stat -L -c '%t %T' "$L2" | { read -r a b; echo "$((16#$a)):$((16#$b))"; })
FAKE_MQS_SLOW=2 sc monitor --program "$TMP/prog" --oneshot "$U0"
check "monitor --oneshot: a slow member as member_slow with its latency, apart from the fault" \
	eval "rc_is 0 && [ \"\$(cat \"\$TMP/prog.out\")\" = \"member_faulty /dev/mqstripe0 1 $L1|db|$U0|$m1|active
member_slow /dev/mqstripe0 2 $L2|db|$U0|$m2|active\" ] && grep -qx \"member_slow /dev/mqstripe0 (array 'db', UUID $U0): slot 2, member $L2 ($m2), latency 52000 us, array active\" \"\$TMP/out\""
MQSTRIPE_SENDMAIL=/bin/false sc monitor --program /bin/false --mail root --oneshot --test "$U0"
check "monitor --oneshot --test: a program or a mail that fails is exit status 1, each failure a line naming event and array" \
	eval "rc_is 1 && [ \"\$(cat \"\$TMP/err\")\" = 'stripectl: monitor: program /bin/false, for test of /dev/mqstripe0: exit status 1
stripectl: monitor: mail to root through /bin/false, for test of /dev/mqstripe0: exit status 1
stripectl: monitor: program /bin/false, for member_faulty of /dev/mqstripe0: exit status 1
stripectl: monitor: mail to root through /bin/false, for member_faulty of /dev/mqstripe0: exit status 1' ]"
# a name the module should have refused (a newline, an escape sequence)
# reaches the mail, stdout and syslog escaped: it makes no mail header
rm -f "$TMP/mail.out" "$TMP/syslog"
FAKE_MQS_INFO_NAME=$'db\nBcc: x@evil.example\e[2J' FAKE_MQS_SYSLOG=$TMP/syslog \
	MQSTRIPE_SENDMAIL=$TMP/sendmail sc monitor --mail ops@example.invalid --syslog --oneshot "$U0"
name_escaped() {
	! grep -q '^Bcc:' "$TMP/mail.out" &&
	grep -qxF "Subject: mqstripe member_faulty event on $(hostname): array db\\x0aBcc: x@evil.example\\x1b[2J (/dev/mqstripe0)" "$TMP/mail.out" &&
	[ "$(wc -l <"$TMP/out")" = 1 ] && [ "$(wc -l <"$TMP/syslog")" = 1 ] &&
	! grep -q $'\e' "$TMP/out" "$TMP/mail.out" "$TMP/syslog"
}
check "monitor: an array name with a newline or an escape is escaped in the mail, on stdout and in syslog" \
	eval 'rc_is 0 && no_err && name_escaped'
# the monitor (not --oneshot) waits for its program, but a program that
# hangs does not keep SIGTERM from ending it: it says so, exits 0
cat >"$TMP/hang" <<'EOF'
#!/bin/sh
echo $$ >"${0%/*}/hang.pid"
unset LD_PRELOAD	# the fake's nanosleep() returns at once
exec sleep 60
EOF
chmod +x "$TMP/hang"
LD_PRELOAD=$FAKE "$STRIPECTL" monitor --program "$TMP/hang" "$U0" >"$TMP/out" 2>"$TMP/err" &
mpid=$!
for _ in $(seq 100); do [ -s "$TMP/hang.pid" ] && break; sleep 0.1; done
kill -TERM "$mpid"
for _ in $(seq 50); do kill -0 "$mpid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$mpid" 2>/dev/null; then
	kill -KILL "$mpid"
	wait "$mpid"
	rc=124
else
	wait "$mpid"
	rc=$?
fi
[ -s "$TMP/hang.pid" ] && kill "$(cat "$TMP/hang.pid")" 2>/dev/null
check "monitor: SIGTERM while its program hangs ends it, exit 0, saying so" \
	eval "rc_is 0 && err_is '^stripectl: monitor: SIGTERM while program $TMP/hang \\(pid [0-9]+\\) runs: exiting without waiting for it\$'"
printf 'MAILADDR\n' >"$CONF"
MQSTRIPE_CONF=$CONF sc monitor --scan --syslog --oneshot
check "monitor --scan: a MAILADDR line without address names file and line" \
	eval "rc_is 1 && err_is \"^stripectl: monitor: $CONF:1: MAILADDR takes one word, the address to mail the events to\\\$\""
# the monitors recorded the fault of slot 1: cleared, as after a repair
LD_PRELOAD=$FAKE "$STRIPECTL" clear db 1 >/dev/null
unset FAKE_MQS_FAULTY
# ... but the assembly, which does not use it, warns and starts the arrays
# (the root array at boot must not wait for a typo in a mail address)
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
monwarn="^stripectl: warning: $CONF:1: MAILADDR takes one word, the address to mail the events to; the assembly does not use it and goes on; 'stripectl monitor --scan' refuses to start until it is fixed\$"
MQSTRIPE_CONF=$CONF sc assemble --scan
check "... but assemble --scan, which reads the same file, warns naming file and line, and starts the array" \
	eval 'rc_is 0 && stdout_is /dev/mqstripe0 && err_is "$monwarn"'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L0"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L1"
MQSTRIPE_CONF=$CONF sc assemble --incremental "$L2"
check "... and so does assemble --incremental" \
	eval 'rc_is 0 && stdout_is /dev/mqstripe0 && err_is "^stripectl: $L2: ${monwarn#^stripectl: }"'
printf 'PROGRAM mail-me\n' >"$CONF"
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
MQSTRIPE_CONF=$CONF sc assemble --scan
check "... a PROGRAM that is no absolute path: the same" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: warning: $CONF:1: PROGRAM 'mail-me' is not an absolute path\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# assemble --readonly: started read-only (the module's CREATE flag), not
# a byte written to the members by assemble or by stop
sums() { local d; for d in "$L0" "$L1" "$L2"; do dd if="$d" bs=4K count=3 status=none | sha256sum; done; }
before=$(sums)
sc assemble --readonly "$L0" "$L1" "$L2"
check "assemble --readonly: started read-only, no superblock written" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && [ \"\$(cat $R/sys/block/mqstripe0/mqstripe/readonly)\" = 1 ] && [ \"\$before\" = \"\$(sums)\" ]"
sc status db
check "status: read-only: yes" eval 'rc_is 0 && grep -qE "^  read-only: +yes" "$TMP/out"'
sc status --json db
check "status --json: read_only true" eval 'rc_is 0 && jq_is .read_only true'
sc stop db
check "stop of a read-only array writes no superblock" eval "rc_is 0 && no_err && [ \"\$before\" = \"\$(sums)\" ]"
sc assemble --incremental --readonly "$L0"
check "assemble --incremental --readonly: a usage error" eval "rc_is 2 && err_is 'no --name, --uuid, --force, --readonly, --metadata or --grow'"
sc assemble "$L0" "$L1" "$L2"
check "assemble without --readonly: read-write, superblocks updated" \
	eval "rc_is 0 && [ \"\$(cat $R/sys/block/mqstripe0/mqstripe/readonly)\" = 0 ] && [ \"\$before\" != \"\$(sums)\" ]"
sc status --json db
check "status --json: read_only false" eval 'rc_is 0 && jq_is .read_only false'
sc status db
check "status: no read-only line" eval 'rc_is 0 && ! grep -q "read-only:" "$TMP/out"'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db

# stop --scan: every array not in use; one in use is named, exit 1
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
LD_PRELOAD=$FAKE "$STRIPECTL" create --force --name other2 "$L5" >/dev/null 2>&1
FAKE_MQS_BUSY=always sc stop --scan
check "stop --scan with arrays in use: each named, exit 1, none stopped" \
	eval "rc_is 1 && [ \"\$(grep -c 'is in use\\|is busy' \"\$TMP/err\")\" = 2 ] && [ \"\$(list_names)\" = 'db other2 ' ]"
FAKE_MQS_BUSY=1 sc stop --scan
check "stop --scan: an array busy at first (udev probing it) is still stopped, silently; superblocks clean" \
	eval "rc_is 0 && no_err && [ -z \"\$(list_names)\" ] && [ \"\$(ex $L0 MQSTRIPE_STATE) \$(ex $L5 MQSTRIPE_STATE)\" = 'clean clean' ]"
sc stop --scan
check "stop --scan without arrays: nothing to do" eval 'rc_is 0 && no_err && [ ! -s "$TMP/out" ]'
sc stop --scan db
check "stop --scan with a DEVICE: a usage error" eval "rc_is 2 && err_is \"unexpected argument 'db' with --scan\""
# stop --scan --skip-busy (the boot-time unit's ExecStop at shutdown): an
# array in use is left running with a note, exit 0; one busy only for a
# moment is stopped as with --scan
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
FAKE_MQS_BUSY=always sc stop --scan --skip-busy
check "stop --scan --skip-busy with an array in use: left running, a note saying so, exit 0" \
	eval "rc_is 0 && err_is '^stripectl: note: /dev/mqstripe0 left running: .*the next assembly says it was not stopped cleanly' && [ \"\$(list_names)\" = 'db ' ]"
FAKE_MQS_BUSY=always sc stop --scan --skip-busy --quiet
check "stop --scan --skip-busy --quiet: left running without a note" \
	eval "rc_is 0 && no_err && [ \"\$(list_names)\" = 'db ' ]"
# --mark-clean (the shutdown's last step): only an array whose users are
# read-only mounts alone gets clean superblocks; one open by something
# else (here: not mounted at all) keeps them active
FAKE_MQS_BUSY=always sc stop --scan --skip-busy --mark-clean
check "stop --scan --skip-busy --mark-clean, an array in use but not by read-only mounts: left running, superblocks still active" \
	eval "rc_is 0 && err_is '^stripectl: note: /dev/mqstripe0 left running: .*its superblocks still say active' && [ \"\$(list_names)\" = 'db ' ] && [ \"\$(ex $L0 MQSTRIPE_STATE)\" = active ]"
sc stop --scan --mark-clean
check "stop --scan --mark-clean without --skip-busy: a usage error" eval "rc_is 2 && err_is 'mark-clean goes with --skip-busy'"
FAKE_MQS_BUSY=1 sc stop --scan --skip-busy
check "stop --scan --skip-busy: an array busy at first is stopped, silently; superblocks clean" \
	eval "rc_is 0 && no_err && [ -z \"\$(list_names)\" ] && [ \"\$(ex $L0 MQSTRIPE_STATE)\" = clean ]"
sc stop --skip-busy db
check "stop --skip-busy without --scan: a usage error" eval "rc_is 2 && err_is 'skip-busy goes with --scan'"
sc stop --scan --quiet
check "stop --scan --quiet without --skip-busy: a usage error" eval "rc_is 2 && err_is 'quiet goes with --skip-busy'"
# an array that was not stopped (a crash: the fake module forgets its
# arrays) starts as before, with a warning saying what it means; one
# stopped cleanly starts without it
LD_PRELOAD=$FAKE "$STRIPECTL" assemble "$L0" "$L1" "$L2" >/dev/null
rm -f "$R/state"
sc assemble "$L0" "$L1" "$L2"
check "assemble after a crash: started, a warning that it was not stopped cleanly and what it means" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: warning: array 'db' .*was not stopped cleanly .*nothing to resync.*may be lost\""
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
sc assemble "$L0" "$L1" "$L2"
check "assemble after a clean stop: no warning" eval 'rc_is 0 && no_err'
LD_PRELOAD=$FAKE "$STRIPECTL" stop db
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L5"

# create: signatures refused, --force wipes them, a busy member always
if command -v mkfs.ext4 >/dev/null; then
	mkfs.ext4 -q -F "$L3" >/dev/null 2>&1
	sc create "$L3" "$L4"
	check "create refuses an ext4 member" eval "rc_is 1 && err_is '^stripectl: $L3: holds a filesystem \\(ext4, UUID .*give --force'"
	ext4=$(blkid -p -o export "$L3" | grep -E '^(TYPE|UUID)=' | tr '\n' ' ')
	python3 "$SBTOOL" gpt "$L4"
	FAKE_MQS_CREATE_FAIL=16,4,1 sc create --force --name e "$L3" "$L4"
	check "create --force whose CREATE fails puts back what it wiped: the ext4 and the GPT" \
		eval "rc_is 1 && [ \"\$(blkid -p -o export $L3 | grep -E '^(TYPE|UUID)=' | tr '\\n' ' ')\" = '$ext4' ] && e2fsck -fn $L3 >/dev/null 2>&1 && blkid -p $L4 | grep -q PTTYPE=.gpt"
	# another program writes over the wiped ext4 magic (byte 1080) while
	# CREATE runs: its bytes stay, the message says so, the GPT comes back
	FAKE_MQS_CREATE_EXEC="printf OW | dd of=$L3 bs=1 seek=1080 conv=notrunc status=none" \
		FAKE_MQS_CREATE_FAIL=16,4,1 sc create --force --name e "$L3" "$L4"
	check "create --force whose CREATE fails keeps what another program wrote over a wiped signature, and says so" \
		eval "rc_is 1 && [ \"\$(dd if=$L3 bs=1 skip=1080 count=2 status=none)\" = OW ] && grep -q '^stripectl: $L3: not putting back the ext4 signature at byte 1080 (2 bytes): another program wrote there since the wipe; it stays as it is' \"\$TMP/err\" && blkid -p $L4 | grep -q PTTYPE=.gpt"
	printf '\123\357' | dd of="$L3" bs=1 seek=1080 conv=notrunc status=none
	sc create --force --name e "$L3" "$L4"
	check "create --force wipes it" eval 'rc_is 0 && ! blkid -p "$L3" >/dev/null 2>&1'
	LD_PRELOAD=$FAKE "$STRIPECTL" stop e
fi
python3 "$SBTOOL" gpt "$L3"
sc create --force "$L3"
sc create --name g "$L3"
check "create refuses our own superblock" eval "rc_is 1 && err_is \"holds an mqstripe superblock of array \\(UUID .*slot 0 of 1.*stripectl assemble\""
python3 "$SBTOOL" gpt "$L4"
sc create "$L4"
check "create refuses a GPT member" eval "rc_is 1 && err_is '^stripectl: $L4: holds a partition table \\(gpt\\)'"
python3 - "$L4" <<'PYEOF' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(os.environ["TMP"] + "/held", "w").close()
time.sleep(10)
PYEOF
holder=$!
for _ in $(seq 50); do [ -e "$TMP/held" ] && break; sleep 0.1; done
sc create --force "$L4"
check "create --force refuses a member in use" eval "rc_is 1 && err_is '^stripectl: $L4: device is busy'"
sc zero-superblock "$L4"
check "zero-superblock refuses a member in use" eval "rc_is 1 && err_is '^stripectl: $L4: device is busy'"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
check "the GPT is still there" eval 'blkid -p "$L4" | grep -q PTTYPE=.gpt'
sc create --data-offset 8K "$L4"
check "data offset below 12K is a usage error (two superblock copies)" eval "rc_is 2 && err_is 'data offset 8K is below 12K'"
sc create --metadata 1 --data-offset 4K "$L4"
check "... below 8K with --metadata 1 (one copy)" eval "rc_is 2 && err_is 'data offset 4K is below 8K'"

# usage errors of assemble
sc assemble
check "assemble without devices" eval "rc_is 2 && err_is 'no DEVICE given'"
sc assemble --scan "$L0"
check "assemble --scan with a device" eval "rc_is 2 && err_is 'unexpected argument'"
sc assemble --incremental "$L0" "$L1"
check "assemble --incremental with two devices" eval "rc_is 2 && err_is 'exactly one DEVICE'"
sc assemble --name a --uuid "$U0" "$L0"
check "assemble --name and --uuid" eval "rc_is 2 && err_is 'not both'"

# --- superblock format 2: two copies (4096 and 8192) with a generation
# counter, the recorded queue depth, read-only-compatible features; format
# 1 still read, written with --metadata 1 and converted by assemble
# --metadata 2 (docs/FORMAT.md)
LD_PRELOAD=$FAKE "$STRIPECTL" stop --scan >/dev/null 2>&1
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "$L0" "$L1" "$L2" >/dev/null 2>&1
F=("$L0" "$L1" "$L2")
pj() {	# pj DEV EXPR: a value of sbtool.py's parse, as Python sees it
	python3 "$SBTOOL" parse "$1" >"$TMP/pj.json" 2>/dev/null
	python3 -c 'import json,sys
p = json.load(open(sys.argv[1]))
r = eval(sys.argv[2])
print(*r) if isinstance(r, tuple) else print(r)' "$TMP/pj.json" "$2"
}
sc create --name f2 --chunk 64K --queue-depth 64 "${F[@]}"
check "create writes format 2: both copies valid, generation 1, the copy at 4096 in use" \
	eval '[ "$(pj "$L1" "p[\"format_version\"], [c[\"status\"] for c in p[\"copies\"]], [c[\"generation\"] for c in p[\"copies\"]], p[\"copy_in_use\"]")" = "2 ['"'ok', 'ok'"'] [1, 1] 0" ]'
check "create records --queue-depth in the superblock" \
	eval '[ "$(pj "$L2" "p[\"queue_depth\"]")" = 64 ] && [ "$(ex "$L2" MQSTRIPE_FORMAT_VERSION)" = 2 ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f2
sc assemble "${F[@]}"
sc status --json f2
check "assemble starts the array with the recorded queue depth" eval 'rc_is 0 && jq_is .queue_depth 64'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f2
# create 1; stop, assemble and stop each write two passes
check "assemble and stop write both copies: generation 7 on both" \
	eval '[ "$(pj "$L0" "[c[\"generation\"] for c in p[\"copies\"]]")" = "[7, 7]" ]'
# a torn write of the copy at 4096 (a bit flipped in it): the copy at 8192
# is used, and the next update writes both again
python3 "$SBTOOL" flip "$L1" 0x60 0
sc examine "$L1"
check "examine: the damaged copy named, the other in use" \
	eval 'rc_is 0 && grep -qE "^  copy at byte 4096: +superblock checksum mismatch" "$TMP/out" && grep -qE "^  copy at byte 8192: +ok, generation 7 \(in use\)" "$TMP/out"'
sc assemble "${F[@]}"
check "assemble with one copy of a member damaged: started from the other copy" \
	eval 'rc_is 0 && stdout_is /dev/mqstripe0'
check "... and both copies are whole again" \
	eval '[ "$(pj "$L1" "[c[\"status\"] for c in p[\"copies\"]], p[\"copy_in_use\"]")" = "['"'ok', 'ok'"'] 0" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f2
python3 "$SBTOOL" flip "$L2" 0x60 1
sc assemble "${F[@]}"
check "assemble with the copy at 8192 damaged: started" eval 'rc_is 0 && stdout_is /dev/mqstripe0'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f2
python3 "$SBTOOL" flip "$L2" 0x60
sc assemble "${F[@]}"
check "both copies damaged: refused, naming the member" \
	eval "rc_is 1 && err_is '^stripectl: $L2: superblock checksum mismatch'"
python3 "$SBTOOL" flip "$L2" 0x60
# a read-only-compatible feature this stripectl does not know: only
# --readonly starts it (nothing written)
python3 "$SBTOOL" set-ro-compat "$L0" 5
sc assemble "${F[@]}"
check "an unknown read-only-compatible feature: assemble refused, saying --readonly" \
	eval "rc_is 1 && err_is \"^stripectl: $L0: the superblock of array 'f2' .* has read-only-compatible features 0x20 this stripectl does not know: it can start the array only read-only\""
before=$(sums)
sc assemble --readonly "${F[@]}"
check "... assemble --readonly starts it, writing nothing" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && [ \"\$before\" = \"\$(sums)\" ]"
LD_PRELOAD=$FAKE "$STRIPECTL" stop f2
sc zero-superblock "${F[@]}"
check "zero-superblock erases both copies" \
	eval 'rc_is 0 && [ "$(od -An -v -tx1 -j4096 -N8192 "$L0" | tr -d " 0\n")" = "" ] && [ "$(pj "$L1" "p[\"copies\"][1][\"status\"]")" = none ]'
# format 1: one copy; converted only when asked
sc create --name f1 --chunk 64K --metadata 1 "${F[@]}"
check "create --metadata 1: format 1, one copy, nothing at 8192" \
	eval 'rc_is 0 && [ "$(ex "$L0" MQSTRIPE_FORMAT_VERSION)" = 1 ] && [ "$(od -An -v -tx1 -j8192 -N4096 "$L0" | tr -d " 0\n")" = "" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f1
sc assemble "${F[@]}"
check "assemble keeps format 1" eval 'rc_is 0 && [ "$(ex "$L1" MQSTRIPE_FORMAT_VERSION)" = 1 ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f1
ev=$(ex "$L0" MQSTRIPE_EVENTS)
sc assemble --metadata 2 "${F[@]}"
check "assemble --metadata 2 converts, saying so" \
	eval "rc_is 0 && stdout_is /dev/mqstripe0 && err_is \"^stripectl: note: converting the superblocks of array 'f1' .* to format 2\""
check "... every member format 2 with both copies, events bumped twice" \
	eval '[ "$(pj "$L2" "p[\"format_version\"], [c[\"status\"] for c in p[\"copies\"]], p[\"events\"]")" = "2 ['"'ok', 'ok'"'] $((ev + 2))" ]'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f1
sc assemble --metadata 2 "${F[@]}"
check "assemble --metadata 2 of format 2: nothing to convert, no note" \
	eval 'rc_is 0 && no_err'
LD_PRELOAD=$FAKE "$STRIPECTL" stop f1
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "${F[@]}" >/dev/null 2>&1
sc create --name f8 --chunk 64K --metadata 1 --data-offset 8K "${F[@]}"
LD_PRELOAD=$FAKE "$STRIPECTL" stop f8
sc assemble --metadata 2 "${F[@]}"
check "no conversion where the data starts at 8K, saying why" \
	eval "rc_is 1 && err_is \"^stripectl: array 'f8' .*: cannot write superblock format 2: its data offset of 8192 bytes leaves no room for the second copy\" && [ \"\$(ex $L0 MQSTRIPE_FORMAT_VERSION)\" = 1 ]"
# a format-1 create over a format-2 member clears its copy at 8192, so
# that erasing the new superblock cannot bring the old array back
LD_PRELOAD=$FAKE "$STRIPECTL" zero-superblock "${F[@]}" >/dev/null 2>&1
LD_PRELOAD=$FAKE "$STRIPECTL" create --name old2 "$L0" >/dev/null 2>&1
LD_PRELOAD=$FAKE "$STRIPECTL" stop old2
sc create --force --name new1 --metadata 1 "$L0"
LD_PRELOAD=$FAKE "$STRIPECTL" stop new1
sc zero-superblock "$L0"
sc examine "$L0"
check "create --metadata 1 over a format-2 member: no old copy comes back after zero-superblock" \
	eval "rc_is 1 && err_is '^stripectl: $L0: no mqstripe superblock'"

# --- a power cut after each superblock write (FAKE_MQS_CUT_AFTER: the
# write reaches the device, then the process ends) of create, stop,
# assemble (also one that grows the array, and one whose start fails) and
# zero-superblock.  After each cut, "assemble" (or "assemble --force")
# gives the array back, or refuses with a message docs/FORMAT.md names,
# starting nothing.
C=("$L0" "$L1" "$L2")
CUT_ENV=	# VAR=VALUE for the cut command and the recovery, not the setup
CUT_CMD_ENV=	# VAR=VALUE for the cut command only
CUT_FROM=1	# the first write cut after (earlier ones: tested already)
quiet() { LD_PRELOAD=$FAKE "$STRIPECTL" "$@" >/dev/null 2>&1; }
fresh() {	# no array, no superblock on the three members
	quiet stop cut
	quiet zero-superblock "${C[@]}"
}
# cut OP SETUP RECOVERY: for k = 1, 2, ... run "stripectl OP" cut after
# write k (after SETUP, a function) until it runs to its end; after each
# cut, RECOVERY (a function setting ok=1 when the outcome is right, else
# why=...) judges what "assemble" makes of the members
cut() {
	local op=$1 setup=$2 recover=$3 k bad=() ncut=0 what="superblock writes"
	[[ $CUT_CMD_ENV == *FAKE_MQS_CUT_ANY* ]] && what=writes
	[ "$CUT_FROM" -gt 1 ] && what+=" from write $CUT_FROM on"
	for k in $(seq "$CUT_FROM" 20); do
		fresh
		$setup
		# shellcheck disable=SC2086	# OP and CUT_ENV are word lists
		env $CUT_ENV $CUT_CMD_ENV FAKE_MQS_CUT_AFTER=$k LD_PRELOAD=$FAKE "$STRIPECTL" $op >"$TMP/out" 2>"$TMP/err"
		rc=$?
		[ "$rc" = 137 ] || break
		ncut=$((ncut + 1))
		ok=0
		why=
		$recover
		[ "$ok" = 1 ] || bad+=("after write $k: $why")
	done
	if [ "$rc" != 137 ] && [ "$ncut" -gt 0 ] && [ ${#bad[@]} -eq 0 ]; then
		ok "power cut after each of the $ncut $what of '$op'${CUT_CMD_ENV:+ ($CUT_CMD_ENV)}${CUT_ENV:+ ($CUT_ENV)}: recovered or refused as documented"
	else
		not_ok "power cut after each superblock write of '$op' (cut $ncut times, last exit $rc)"
		printf '# %s\n' "${bad[@]}"
	fi
	quiet stop cut
}
running_cut() { [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "cut"' | wc -l)" = 1 ]; }
# "data" of the array: a line at the data offset (1M) of every member,
# written after the create; no superblock write may touch it
fill() {
	local i
	for i in "${!C[@]}"; do
		printf 'data of member %s\n' "$i" | dd of="${C[i]}" bs=1M seek=1 conv=notrunc status=none
	done
}
filled() {
	local i
	for i in "${!C[@]}"; do
		[ "$(dd if="${C[i]}" bs=1M skip=1 count=1 status=none | head -1)" = "data of member $i" ] || return 1
	done
}
# plain assemble of the members after a cut
recovery() {
	# shellcheck disable=SC2086	# CUT_ENV is a word list
	env $CUT_ENV LD_PRELOAD=$FAKE "$STRIPECTL" assemble "${C[@]}" >"$TMP/rout" 2>"$TMP/rerr"
}
# plain assemble gives the array back, its data as it was
comes_back() {
	if ! recovery || ! running_cut; then
		why="assemble failed: $(head -c 300 "$TMP/rerr")"
	elif ! filled; then
		why="assembled, but the data at the data offset changed"
	else
		ok=1
	fi
}
# refused_with [TEXT]: plain assemble refuses as docs/FORMAT.md says (a
# member without a superblock, or a slot missing), naming the way out
# (TEXT), and starts nothing
refused_with() {
	if recovery || running_cut; then
		why="started, expected a refusal: $(cat "$TMP/rout")"
	elif ! grep -qE "no mqstripe superblock: not a member|is missing: found" "$TMP/rerr"; then
		why="refused, but not as documented: $(head -c 300 "$TMP/rerr")"
	elif [ -n "$1" ] && ! grep -qF -- "$1" "$TMP/rerr"; then
		why="refused without naming the way out ($1): $(head -c 400 "$TMP/rerr")"
	else
		ok=1
	fi
}
# create cut after write k: writes 1 .. 2N put the new superblock on each
# member (the copy at 8192, then the one at 4096), and when CREATE fails
# writes 2N + 1 .. 4N put the old areas back in the same order: member i
# holds the new superblock from write 2i + 1 until write 2N + 2i + 2.
# Every member holding it: started; some: refused, saying to run the
# create again; none (every old area back): refused
created() {
	local i nr=${#C[@]} have=0
	for i in "${!C[@]}"; do
		[ "$k" -ge $((2 * i + 1)) ] && [ "$k" -lt $((2 * nr + 2 * i + 2)) ] &&
			have=$((have + 1))
	done
	if [ "$have" = "$nr" ]; then
		comes_back
	elif [ "$have" -gt 0 ]; then
		refused_with "if that create was cut short, run it again"
		# as the command line: the geometry, name and UUID recorded,
		# the members in slot order
		if [ "$ok" = 1 ] && ! grep -qE -- "'stripectl create --force --chunk 64K --name cut --uuid [0-9a-f-]{36} ${C[*]}'" "$TMP/rerr"; then
			ok=0
			why="refused without the create command line: $(head -c 600 "$TMP/rerr")"
		fi
	else
		refused_with ""
	fi
}
# create --force over an ext4 member whose CREATE fails, every write cut
# (FAKE_MQS_CUT_ANY): the superblock writes as above, then write 4N + 1
# puts the wiped ext4 magic back; before it the member stays wiped (what
# --force asked for), after it the ext4 is back and nothing else
unwiped() {
	local back=0
	[ "$(blkid -p -s TYPE -o value "${C[0]}" 2>/dev/null)" = ext4 ] && back=1
	if [ "$k" -le $((4 * ${#C[@]})) ]; then
		created
		[ "$back" = 0 ] || { ok=0; why="the ext4 is back before its write"; }
	elif [ "$back" = 1 ]; then
		refused_with ""
	else
		why="the ext4 is not back after its write"
	fi
}
ext4_filled() { mkfs.ext4 -q -F "${C[0]}" >/dev/null 2>&1 && fill; }
# zero-superblock cut after write k of 2N: the array comes back while the
# first member keeps a copy (k = 1); then refused, naming the devices that
# still carry a superblock (members k/2 ..) for the zero-superblock again
zeroed() {
	if [ "$k" -lt 2 ]; then
		comes_back
	elif [ "$k" -lt $((2 * ${#C[@]})) ]; then
		refused_with "run 'stripectl zero-superblock ${C[*]:k/2}' to finish it"
	else
		refused_with ""
	fi
}
made() { quiet create --name cut --chunk 64K "${C[@]}" && fill; }
stopped() { made; quiet stop cut; }
cut "create --name cut --chunk 64K ${C[*]}" fill created
# CREATE fails (the module finds member 1 busy): the old areas go back
CUT_CMD_ENV=FAKE_MQS_CREATE_FAIL=16,4,1
cut "create --name cut --chunk 64K ${C[*]}" fill created
if command -v mkfs.ext4 >/dev/null; then
	CUT_CMD_ENV="FAKE_MQS_CREATE_FAIL=16,4,1 FAKE_MQS_CUT_ANY=1"
	cut "create --force --name cut --chunk 64K ${C[*]}" ext4_filled unwiped
	dd if=/dev/zero of="${C[0]}" bs=4K count=1 conv=notrunc status=none
else
	skip "no mkfs.ext4" "power cut after each write of 'create --force' over ext4 whose CREATE fails"
fi
CUT_CMD_ENV=
cut "stop cut" made comes_back
cut "assemble ${C[*]}" stopped comes_back
# the start fails (the module finds member 1 busy): the event counters go
# back, and a cut anywhere in that (writes 9 .. 16 of two members: both
# passes first, as above) leaves the members at most one apart
quiet zero-superblock "$L2"
C=("$L0" "$L1")
CUT_CMD_ENV=FAKE_MQS_CREATE_FAIL=16,4,1 CUT_FROM=9
cut "assemble ${C[*]}" stopped comes_back
CUT_CMD_ENV=
CUT_FROM=1
C=("$L0" "$L1" "$L2")
# members grown by 64 MiB since the stop: assemble --grow grows the array
CUT_ENV="FAKE_MQS_MEMBER_SIZE=$(((1 << 30) + (64 << 20)))"
cut "assemble --grow ${C[*]}" stopped comes_back
CUT_ENV=
cut "zero-superblock ${C[*]}" stopped zeroed
# a conversion to format 2 cut anywhere: format 1 and 2 members assemble
stopped1() { quiet create --name cut --chunk 64K --metadata 1 "${C[@]}" && fill; quiet stop cut; }
cut "assemble --metadata 2 ${C[*]}" stopped1 comes_back
fresh

# --- rename: the module and every member's superblock, events + 1 ---
ex_all() {	# ex_all KEY: KEY of each member of C, each followed by a space
	local l
	for l in "${C[@]}"; do
		printf '%s ' "$(ex "$l" "$1")"
	done
}
running_name() { LD_PRELOAD=$FAKE "$STRIPECTL" list | awk -v d="$1" '$1 == d { print $2 }'; }
made
dev=$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "cut" { print $1 }')
ev=$(ex "${C[0]}" MQSTRIPE_EVENTS)
sc rename cut web
check "rename: says what it did" \
	eval "rc_is 0 && no_err && stdout_is \"$dev: renamed from 'cut' to 'web' in the module and the superblocks of 3 members\""
check "... the module has the new name, every superblock too, one event on" \
	eval '[ "$(running_name "$dev")" = web ] && [ "$(ex_all MQSTRIPE_NAME)$(ex_all MQSTRIPE_EVENTS)" = "web web web $((ev + 1)) $((ev + 1)) $((ev + 1)) " ]'
sc rename web web
check "rename to its own name: nothing to do, nothing written" \
	eval "rc_is 0 && stdout_is \"$dev: already named 'web': nothing to do\" && [ \"\$(ex_all MQSTRIPE_EVENTS)\" = \"$((ev + 1)) $((ev + 1)) $((ev + 1)) \" ]"
sc rename web 'a/b'
check "rename to an invalid name: usage error" \
	eval "rc_is 2 && err_is \"^stripectl: rename: NAME: name 'a/b' has the character '/': use only A-Z a-z 0-9 . _ -\""
sc rename web mqstripe3
check "rename to a device's name: usage error" eval "rc_is 2 && err_is 'looks like a device name'"
sc rename mqstripe7 x
check "rename of a missing array" eval "rc_is 1 && err_is '^stripectl: mqstripe7: no such array'"
# another array, running on L5 (its superblock carries its name), then stopped
other=$(LD_PRELOAD=$FAKE "$STRIPECTL" create --name other "$L5" 2>/dev/null)
sc rename --force web other
check "rename (--force too) to a running array's name: refused, naming it, nothing written" \
	eval "rc_is 1 && err_is \"^stripectl: $dev: rename 'other': the running array $other has this name: pick another name\$\" && [ \"\$(ex_all MQSTRIPE_NAME)\" = 'web web web ' ] && [ \"\$(running_name \"$dev\")\" = web ]"
quiet stop other
sc rename web other
check "rename to a name a stopped array's superblock carries: refused, naming where" \
	eval "rc_is 1 && err_is \"^stripectl: $dev: rename 'other': already the name of array [0-9a-f-]{36} \\(not running\\) on $L5: pick another name; or rename that array .*; or give --force to use the name anyway\$\" && [ \"\$(ex_all MQSTRIPE_NAME)\" = 'web web web ' ]"
sc rename --force web other
check "rename --force to a stopped array's name: a warning, renamed" \
	eval "rc_is 0 && grep -q \"^stripectl: warning: $dev: rename 'other': also the name of array\" \"\$TMP/err\" && [ \"\$(ex_all MQSTRIPE_NAME)\" = 'other other other ' ]"
quiet zero-superblock "$L5"
# a member whose write fails: the written ones put back, the old name too
ev=$(ex "${C[0]}" MQSTRIPE_EVENTS)
blockdev --setro "${C[2]}"
sc rename other web
blockdev --setrw "${C[2]}"
check "rename with a member that cannot be written: refused, the old superblocks and name back" \
	eval "rc_is 1 && grep -q \"^stripectl: ${C[2]}: writing the superblock failed: .*read-only\" \"\$TMP/err\" && grep -q \"^stripectl: $dev: nothing renamed: the name is 'other' again\$\" \"\$TMP/err\" && [ \"\$(ex_all MQSTRIPE_NAME)\$(ex_all MQSTRIPE_EVENTS)\" = \"other other other $ev $ev $ev \" ] && [ \"\$(running_name \"$dev\")\" = other ]"
quiet stop other
check "rename, then stop and assemble: the new name, data intact" \
	eval 'recovery && [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk "NR > 1 { print \$2 }")" = other ] && filled'
quiet stop other

# a power cut after each superblock write of rename (the module renamed
# first), then a reboot (the fake module forgets its arrays): from the
# first write on, the member written is the newest, so assemble starts
# the array with the new name and writes it on every member
reboot() { rm -f "$R/state"; }
renamed() {
	reboot
	if ! recovery; then
		why="assemble failed: $(head -c 300 "$TMP/rerr")"
	elif [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk 'NR > 1 { print $2 }')" != renamed ]; then
		why="assembled, not as 'renamed': $(LD_PRELOAD=$FAKE "$STRIPECTL" list)"
	elif [ "$(ex_all MQSTRIPE_NAME)" != "renamed renamed renamed " ]; then
		why="the members' names after the assembly: $(ex_all MQSTRIPE_NAME)"
	elif ! filled; then
		why="assembled, but the data at the data offset changed"
	else
		ok=1
	fi
	quiet stop renamed
}
cut "rename cut renamed" made renamed
quiet stop renamed
fresh

# a power cut after each superblock write of record-fault (slot 1
# faulty), and of a stop with slot 1 faulty, then a reboot: plain
# assemble never takes the failed member back, from the first write on
# (the first pass records which slot is left behind: a cut there leaves
# it only one event behind the newest member); assemble --force still
# starts the array with its data
fault_refused() {
	reboot
	if recovery || running_cut; then
		why="started with the failed member: $(cat "$TMP/rout") $(head -c 300 "$TMP/rerr")"
	elif ! grep -qE "^stripectl: $L1: stale member of array 'cut' .*'stripectl assemble --force'" "$TMP/rerr"; then
		why="refused, but not as stale naming $L1: $(head -c 400 "$TMP/rerr")"
	elif ! LD_PRELOAD=$FAKE "$STRIPECTL" assemble --force "${C[@]}" >/dev/null 2>&1 || ! running_cut || ! filled; then
		why="assemble --force did not give the array back with its data"
	else
		ok=1
	fi
	quiet stop cut
}
CUT_CMD_ENV=FAKE_MQS_FAULTY=1
cut "record-fault cut" made fault_refused
cut "stop cut" made fault_refused
CUT_CMD_ENV=
fresh

# --- the array's size is the superblock's: members grown since the create
# (256 MiB, now 1 GiB) leave it as it was; 'assemble --grow' takes the
# room; a member smaller than the recorded size is refused, naming it
data_line() { LD_PRELOAD=$FAKE "$STRIPECTL" status size | sed -n 's/^  member data: *\([0-9]*\) bytes.*/\1/p'; }
small=$(((256 - 1) << 20)) big=$(((1024 - 1) << 20))
FAKE_MQS_MEMBER_SIZE=$((256 << 20)) quiet create --name size --chunk 64K "$L0" "$L1"
quiet stop size
sc assemble "$L0" "$L1"
check "assemble over members that grew: the size the superblock records, said nowhere" \
	eval 'rc_is 0 && no_err && [ "$(data_line)" = $small ] && [ "$(ex "$L0" MQSTRIPE_DATA_BYTES) $(ex "$L1" MQSTRIPE_DATA_BYTES)" = "$small $small" ]'
quiet stop size
sc assemble --grow "$L0" "$L1"
check "assemble --grow: the members' new room, said, in the superblocks too" \
	eval 'rc_is 0 && err_is "^stripectl: note: array .size. .* grows: 1023M of data per member instead of 255M" && [ "$(data_line)" = $big ] && [ "$(ex "$L1" MQSTRIPE_DATA_BYTES)" = $big ]'
quiet stop size
FAKE_MQS_MEMBER_SIZE=$((256 << 20)) sc assemble "$L0" "$L1"
check "a member smaller than the recorded size: refused, naming it, its size and the need" \
	eval "rc_is 1 && err_is \"^stripectl: $L0: is 268435456 bytes now, array 'size' .* needs $((big + (1 << 20))) \(data offset \+ data\) on slot 0: the device shrank\" && [ -z \"\$(list_names)\" ]"
quiet zero-superblock "$L0" "$L1"

# --- grow: a running array takes its members' new room online; the
# superblocks record the size first, the module takes it second; a
# refusal writes nothing or puts the superblocks back
C=("$L0" "$L1")
both() { printf '%s %s' "$(ex "$L0" "$1")" "$(ex "$L1" "$1")"; }
mid=$((512 << 20))
FAKE_MQS_MEMBER_SIZE=$((256 << 20)) quiet create --name size --chunk 64K "$L0" "$L1"
gdev=$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "size" { print $1 }')
gev=$(ex "$L0" MQSTRIPE_EVENTS)
unchanged="[ \"\$(both MQSTRIPE_EVENTS) \$(both MQSTRIPE_DATA_BYTES)\" = \"$gev $gev $small $small\" ] && [ \"\$(data_line)\" = $small ]"
FAKE_MQS_MEMBER_SIZE=$((256 << 20)) sc grow size
check "grow without new room: nothing to grow, said, nothing written" \
	eval "rc_is 0 && no_err && stdout_is \"$gdev: already uses its members' room (255M of data on each; $L0 (slot 0) has no more): nothing to grow\" && $unchanged"
FAKE_MQS_FAULTY=1 sc grow size
check "grow with a faulty member: refused, naming it, nothing written" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: slot 1 \\($L1, $m1\\) is faulty: a failed array does not grow\" && $unchanged"
FAKE_MQS_RESIZE_FAIL=5 sc grow size
check "grow the module refuses (EIO): said, the superblocks put back" \
	eval "rc_is 1 && grep -q '^stripectl: $gdev: a member failed meanwhile' \"\$TMP/err\" && grep -q '^stripectl: $gdev: nothing grown: the superblocks were put back to 255M of data per member\$' \"\$TMP/err\" && $unchanged"
blockdev --setro "$L1"
sc grow size
blockdev --setrw "$L1"
check "grow with a member that cannot be written: refused, the written one put back" \
	eval "rc_is 1 && grep -q \"^stripectl: $L1: writing the superblock failed\" \"\$TMP/err\" && grep -q '^stripectl: $gdev: nothing grown: the superblocks say 255M of data per member again\$' \"\$TMP/err\" && $unchanged"
sc grow --size 614464K size
check "grow --size not a whole number of stripes: refused, with the two nearest" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: --size 614464K is not a whole number of stripes \\(2 members x 64K chunk = 128K\\): use 600M or 614528K\\$\" && $unchanged"
sc grow --size 256M size
check "grow --size below the array's size: refused (never shrinks)" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: --size 256M is smaller than the array \\(510M\\): grow never shrinks\" && $unchanged"
sc grow --size 100K size
check "grow --size below the array and not whole stripes: refused as smaller, no size below the array offered" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: --size 100K is smaller than the array \\(510M\\): grow never shrinks\" && $unchanged"
sc grow --size 4G size
check "grow --size beyond the members' room: refused, naming the member and the most" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: --size 4G needs 2G of data on every member; $L0 \\(slot 0\\) holds 1023M after its data offset: grow that member first, or give --size 2046M or less\\$\" && $unchanged"
sc grow --size 1G size
check "grow --size 1G: grown, said, in the module and both superblocks, one event on" \
	eval "rc_is 0 && no_err && grep -q \"^$gdev: grown from 510M to 1G (512M of data on every member, was 255M); now grow what is on it\" \"\$TMP/out\" && [ \"\$(data_line)\" = $mid ] && [ \"\$(both MQSTRIPE_DATA_BYTES) \$(both MQSTRIPE_EVENTS)\" = \"$mid $mid $((gev + 1)) $((gev + 1))\" ]"
# --on-resize (the udev rule, on a member's RESIZE=1 uevent): only with GROW auto
unchanged="[ \"\$(data_line)\" = $mid ] && [ \"\$(both MQSTRIPE_DATA_BYTES)\" = \"$mid $mid\" ]"
printf 'AUTO yes\n' >"$CONF"
MQSTRIPE_CONF=$CONF sc grow --on-resize "$L0"
check "grow --on-resize without a GROW line: nothing, silently" \
	eval "rc_is 0 && no_err && [ ! -s \"\$TMP/out\" ] && $unchanged"
printf 'GROW yes\n' >"$CONF"
MQSTRIPE_CONF=$CONF sc grow --on-resize "$L0"
check "grow --on-resize with a bad GROW line: warned, nothing grown" \
	eval "rc_is 0 && err_is \"^stripectl: warning: $CONF:1: GROW takes one word, auto or manual \\(not 'yes'\\); the line is ignored: no array grows by itself\" && $unchanged"
printf 'GROW auto\n' >"$CONF"
MQSTRIPE_CONF=$CONF sc grow --on-resize "$L2"
check "grow --on-resize of a device no running array holds: nothing, silently" \
	eval "rc_is 0 && no_err && [ ! -s \"\$TMP/out\" ] && $unchanged"
: >"$TMP/syslog"
MQSTRIPE_CONF=$CONF FAKE_MQS_SYSLOG=$TMP/syslog sc grow --on-resize "$L0"
check "grow --on-resize with GROW auto: the array holding it grows to all the room, logged" \
	eval "rc_is 0 && grep -q \"grow: $gdev: grown from 1G to 2046M\" \"\$TMP/syslog\" && [ \"\$(data_line)\" = $big ] && [ \"\$(both MQSTRIPE_DATA_BYTES)\" = \"$big $big\" ]"
MQSTRIPE_CONF=$CONF sc grow --on-resize "$L0"
check "grow --on-resize again: nothing to grow, silently" eval "rc_is 0 && no_err && [ ! -s \"\$TMP/out\" ]"
quiet stop size
sc assemble "$L0" "$L1"
check "grow, stop, assemble: the grown size" eval "rc_is 0 && [ \"\$(data_line)\" = $big ]"
sc grow --on-resize "$L0"
check "grow --on-resize without mqstripe.conf: nothing" eval "rc_is 0 && no_err && [ \"\$(data_line)\" = $big ]"
FAKE_MQS_MEMBER_SIZE=$((512 << 20)) sc grow size
check "grow over a member that shrank: refused, naming it, what it holds and what it needs" \
	eval "rc_is 1 && err_is \"^stripectl: $gdev: $L0 \\(slot 0\\) shrank: it holds 511M of data after its data offset, less than the 1023M the array keeps on every member, and IO to the array's end on it fails; give it back at least 1G in all\\$\" && [ \"\$(data_line)\" = $big ]"
: >"$TMP/syslog"
FAKE_MQS_MEMBER_SIZE=$((512 << 20)) FAKE_MQS_SYSLOG=$TMP/syslog sc grow --on-resize "$L0"
check "grow --on-resize of a member that shrank, without GROW auto: said, in the system log too" \
	eval "rc_is 1 && grep -q \"grow: $gdev: $L0 (slot 0) shrank\" \"\$TMP/syslog\" && [ \"\$(data_line)\" = $big ]"
quiet stop size
quiet zero-superblock "$L0" "$L1"
# a power cut after each superblock write of grow, then a reboot: the
# array starts with its data, all members agreeing on one size
small_made() { FAKE_MQS_MEMBER_SIZE=$((256 << 20)) quiet create --name cut --chunk 64K "${C[@]}" && fill; }
grown_back() {
	reboot
	comes_back
	if [ "$ok" = 1 ] && [ "$(ex "$L0" MQSTRIPE_DATA_BYTES)" != "$(ex "$L1" MQSTRIPE_DATA_BYTES)" ]; then
		ok=0
		why="the members disagree on the size after the assembly: $(both MQSTRIPE_DATA_BYTES)"
	fi
	quiet stop cut
}
cut "grow cut" small_made grown_back
fresh

# --- a device-mapper member is named by its map, /dev/mapper/NAME (its
# sysfs dm/name), in messages and listings, also when udev names it
# /dev/dm-N ($devnode); the Prometheus label device keeps the kernel's
# name.  $L1 is made to look like dm-9, map crypt1, with both nodes.
dmm=$((0x$(stat -c %t "$L1"))):$((0x$(stat -c %T "$L1")))
mkdir -p "$R/sys/dev/block/$dmm/dm" "$R/dev/mapper"
echo crypt1 >"$R/sys/dev/block/$dmm/dm/name"
echo CRYPT-LUKS2-0123456789abcdef0123456789abcdef-crypt1 >"$R/sys/dev/block/$dmm/dm/uuid"
printf 'MAJOR=%s\nMINOR=%s\nDEVNAME=dm-9\nDEVTYPE=disk\n' "${dmm%:*}" "${dmm#*:}" >"$R/sys/dev/block/$dmm/uevent"
mknod "$R/dev/mapper/crypt1" b "${dmm%:*}" "${dmm#*:}"
mknod "$R/dev/dm-9" b "${dmm%:*}" "${dmm#*:}"
check "no list of dm-crypt members after arrays without one" test ! -e "$MQSTRIPE_CRYPT_MEMBERS"
quiet create --name dmx --chunk 64K "$L0" "$L1" "$L2"
ddev=$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "dmx" { print $1 }')
duuid=$(ex "$L0" MQSTRIPE_ARRAY_UUID)
cline="crypt1 $duuid CRYPT-LUKS2-0123456789abcdef0123456789abcdef-crypt1"
check "create over a dm-crypt map (dm UUID CRYPT-...): the map in the list of dm-crypt members, with the array's UUID" \
	eval '[ "$(grep -v "^#" "$MQSTRIPE_CRYPT_MEMBERS")" = "$cline" ]'
# mqstripe-generator: the list and /etc/crypttab to drop-ins that order
# the members' cryptsetup units before mqstripe-stop.service; a line of a
# map that crypttab does not open, or opens from another LUKS volume now
# (a stale line), orders nothing: it must not hold the boot
gen() {	# gen CRYPTTAB-TEXT: run the generator into $TMP/gen
	rm -rf "$TMP/gen" && mkdir "$TMP/gen"
	printf '%s\n' "$1" >"$TMP/crypttab"
	MQSTRIPE_CRYPTTAB=$TMP/crypttab sh "$TOP/tools/systemd/mqstripe-generator" \
		"$TMP/gen" "$TMP/gen.early" "$TMP/gen.late" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	(cd "$TMP/gen" && find . -type f | sort) >"$TMP/gen.files"
}
drop=./systemd-cryptsetup@crypt1.service.d/mqstripe.conf
gen "# a comment
crypt1 UUID=01234567-89AB-cdef-0123-456789abcdef /etc/keys/k luks,nofail
swap1 /dev/sdz /dev/urandom swap"
check "mqstripe-generator: a drop-in for the member's map alone, ordering it before mqstripe-stop.service" \
	eval 'rc_is 0 && no_err && [ "$(cat "$TMP/gen.files")" = "$drop" ] && [ "$(grep -v "^#" "$TMP/gen/$drop")" = "[Unit]
Before=mqstripe-stop.service" ]'
gen "crypt1 UUID=fedcba98-89ab-cdef-0123-456789abcdef /etc/keys/k luks,nofail"
check "mqstripe-generator: crypttab opens another LUKS volume as crypt1 now: no drop-in, a note naming the map and the list" \
	eval 'rc_is 0 && [ ! -s "$TMP/gen.files" ] && grep -q "^mqstripe-generator: crypt1: .* opens UUID=fedcba98-89ab-cdef-0123-456789abcdef, not the LUKS volume .*remove its line from $MQSTRIPE_CRYPT_MEMBERS\$" "$TMP/err"'
gen "other /dev/sdz /etc/keys/k luks"
check "mqstripe-generator: a listed map that crypttab does not open: no drop-in" \
	eval 'rc_is 0 && no_err && [ ! -s "$TMP/gen.files" ]'
cp "$MQSTRIPE_CRYPT_MEMBERS" "$TMP/crypt-members.keep"
echo "db-0 $duuid CRYPT-PLAIN-db-0" >>"$MQSTRIPE_CRYPT_MEMBERS"
gen "db-0 /dev/disk/by-id/x /etc/keys/k plain"
check "mqstripe-generator: a map name with a dash: the unit name escaped as systemd does" \
	eval 'rc_is 0 && no_err && [ "$(cat "$TMP/gen.files")" = "./systemd-cryptsetup@db\\x2d0.service.d/mqstripe.conf" ]'
cp "$TMP/crypt-members.keep" "$MQSTRIPE_CRYPT_MEMBERS"
sc list
check "list: the DEVICES column keeps the kernel's names (dm-9), for scripts" \
	eval 'rc_is 0 && grep -qE "^$ddev +dmx .* ${L0#/dev/},dm-9,${L2#/dev/}\$" "$TMP/out"'
sc status dmx
check "status: a dm member as /dev/mapper/NAME" \
	eval 'rc_is 0 && grep -qE "^ +1 +/dev/mapper/crypt1 +1G +ok " "$TMP/out"'
if have_jq; then
	sc list --json
	check "list --json: a dm member's device keeps the kernel's node (/dev/dm-9, as json_version 1 has it)" \
		eval 'rc_is 0 && jq_is "[.arrays[] | select(.name == \"dmx\") | .members[1] | .device, .major, .minor]" "[\"/dev/dm-9\",${dmm%:*},${dmm#*:}]"'
	sc status --json dmx
	check "status --json: a dm member's device keeps the kernel's node" \
		eval 'rc_is 0 && jq_is ".members[1].device" "\"/dev/dm-9\""'
fi
sc status --prometheus dmx
check "status --prometheus: the label device keeps the kernel's name (dm-9, as node_exporter's)" \
	eval 'rc_is 0 && grep -q "^mqstripe_member_info{array=\"${ddev#/dev/}\",slot=\"1\",device=\"dm-9\",major_minor=\"$dmm\"} 1\$" "$TMP/out"'
FAKE_MQS_FAULTY=1 sc record-fault dmx
check "record-fault: a faulty dm member as /dev/mapper/NAME and major:minor" \
	eval 'rc_is 0 && grep -q "^$ddev: slot 1 (/dev/mapper/crypt1, $dmm) is faulty: recorded" "$TMP/out"'
FAKE_MQS_FAULTY=1 sc monitor --program /bin/true --oneshot dmx
check "monitor: a faulty dm member as /dev/mapper/NAME" \
	eval 'rc_is 0 && grep -q "^member_faulty $ddev (array .dmx., UUID [0-9a-f-]*): slot 1, member /dev/mapper/crypt1 ($dmm), array active\$" "$TMP/out"'
FAKE_MQS_FAULTY=1 sc clear dmx 1
check "clear: a dm member as /dev/mapper/NAME and major:minor" \
	eval 'rc_is 0 && grep -q "^$ddev: slot 1 (/dev/mapper/crypt1, $dmm) was faulty, is ok now\$" "$TMP/out"'
sc examine --scan
check "examine --scan: a dm member as /dev/mapper/NAME" \
	eval 'rc_is 0 && grep -qx "ARRAY uuid=[0-9a-f-]* name=dmx  # 3 of 3 members: $L0 /dev/mapper/crypt1 $L2" "$TMP/out"'
quiet stop dmx
rm -rf "${MQSTRIPE_RUN_DIR:?}/$duuid"	# as a reboot empties /run
for d in "$L0" "$L2"; do
	quiet assemble --incremental "$d"
done
FAKE_MQS_CREATE_FAIL=16,4,1 sc assemble --incremental /dev/dm-9
check "assemble --incremental /dev/dm-9 (udev's \$devnode): the map named /dev/mapper/NAME" \
	eval 'rc_is 1 && grep -q "^stripectl: /dev/mapper/crypt1: device is busy" "$TMP/err" && ! grep -q dm-9 "$TMP/err"'
quiet stop dmx
sc assemble "$L0" /dev/mapper/crypt1 "$L2"
check "assemble again over the map: the list as it was" \
	eval 'rc_is 0 && [ "$(grep -v "^#" "$MQSTRIPE_CRYPT_MEMBERS")" = "$cline" ]'
printf '# emptied by hand\n' >"$MQSTRIPE_CRYPT_MEMBERS"
sc assemble --scan --name dmx
check "assemble --scan (dmx running already): the members of the running arrays listed again" \
	eval '[ "$(grep -v "^#" "$MQSTRIPE_CRYPT_MEMBERS")" = "$cline" ]'
quiet stop dmx
check "... and after its stop" eval '[ "$(grep -v "^#" "$MQSTRIPE_CRYPT_MEMBERS")" = "$cline" ]'
quiet zero-superblock "$L0" "$L1" "$L2"
check "zero-superblock of the map: its line gone from the list" \
	eval '[ -z "$(grep -v "^#" "$MQSTRIPE_CRYPT_MEMBERS")" ]'
rm -rf "$R/sys/dev" "$R/dev/mapper" "$R/dev/dm-9" "${MQSTRIPE_RUN_DIR:?}/$duuid"

# --- members in slot order whatever the device order: examine --scan,
# list, status and their JSON (slots 0, 1, 2 on $L2, $L0, $L1)
quiet create --name order --chunk 64K "$L2" "$L0" "$L1"
odev=$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "order" { print $1 }')
# slot_devs: "SLOT DEVICE ..." of the member rows of status
slot_devs() { awk '$1 ~ /^[0-9]+$/ && $2 ~ /^\/dev\// { printf "%s %s ", $1, $2 }' "$TMP/out"; }
sc examine --scan
check "examine --scan: the devices found in slot order" \
	eval 'rc_is 0 && grep -qx "ARRAY uuid=[0-9a-f-]* name=order  # 3 of 3 members: $L2 $L0 $L1" "$TMP/out"'
sc list
check "list: the devices in slot order" \
	eval 'rc_is 0 && grep -qE "^$odev +order .* ${L2#/dev/},${L0#/dev/},${L1#/dev/}\$" "$TMP/out"'
sc status order
check "status: the members in slot order" \
	eval 'rc_is 0 && [ "$(slot_devs)" = "0 $L2 1 $L0 2 $L1 " ]'
if have_jq; then
	sc list --json
	check "list --json: the members in slot order" \
		eval 'rc_is 0 && jq_is "[.arrays[] | select(.name == \"order\") | .members[] | [.slot, .device]]" "[[0,\"$L2\"],[1,\"$L0\"],[2,\"$L1\"]]"'
	sc status --json order
	check "status --json: the members in slot order" \
		eval 'rc_is 0 && jq_is "[.members[] | [.slot, .device]]" "[[0,\"$L2\"],[1,\"$L0\"],[2,\"$L1\"]]"'
fi
quiet stop order
quiet zero-superblock "$L3"
sc create --name order "$L3"
check "create --name of a stopped array's name: its devices named in slot order" \
	eval 'rc_is 1 && grep -q "already the name of array [0-9a-f-]* (not running) on $L2, $L0, $L1: pick another name" "$TMP/err"'
quiet zero-superblock "$L0" "$L1" "$L2"

# --- members of unequal size (512M, 768M, 1G): zones; the capacity is the
# sum, create says so, status and examine show it, the sizes survive an
# assemble in another order; grow, format 1 refuse; --size: one zone
truncate -s 512M "$TMP/disk2"
truncate -s 768M "$TMP/disk3"
losetup -c "$L2" && losetup -c "$L3"
Z=("$L2" "$L3" "$L4")
zsc() {	# sc with the loop devices' own sizes
	local keep=$FAKE_MQS_MEMBER_SIZE
	unset FAKE_MQS_MEMBER_SIZE
	sc "$@"
	export FAKE_MQS_MEMBER_SIZE=$keep
}
cap_line() { LD_PRELOAD=$FAKE "$STRIPECTL" status zf | sed -n 's/^  capacity: *\([0-9]*\) bytes.*/\1/p'; }
zsc create --metadata 1 --chunk 64K --name zf "${Z[@]}"
check "create --metadata 1 over members of unequal size: refused, saying what to do" \
	eval 'rc_is 2 && err_is "^stripectl: members of unequal size \(room for 511M to 1023M of data\): superblock format 1 cannot record each member.s size; give --size 1533M" && [ -z "$(list_names)" ]'
zsc create --force --chunk 64K --name zf "${Z[@]}"
check "create over members of unequal size: all of each, in 3 zones, said in one line" \
	eval 'rc_is 0 && grep -qE "^stripectl: note: members of unequal size: the array is 2301M in 3 zones; the first 1533M stripes over all 3 members \(up to the smallest, 511M of each\), the other 768M over the members that are larger; --size 1533M makes one zone over all of them$" "$TMP/err" && [ "$(cap_line)" = $((2301 << 20)) ]'
check "examine: each member's own size, the capacity, the zones" \
	eval '[ "$(ex "$L3" MQSTRIPE_MEMBER_DATA_BYTES) $(ex "$L3" MQSTRIPE_DATA_BYTES)" = "$((767 << 20)) $((511 << 20))" ]'
sc status zf
check "status: 3 zones, the last over one member" \
	eval 'rc_is 0 && grep -q "^  zones: *3 (members of unequal size)" "$TMP/out" && grep -q "zone 2: 256M of the array from 2045M, over 1 members, 256M of each from data byte 767M" "$TMP/out"'
if have_jq; then
	sc status --json zf
	check "status --json: each member's data_bytes, the zones" \
		eval 'rc_is 0 && jq_is "[.members[].data_bytes, (.zones | length)]" "[$((511 << 20)),$((767 << 20)),$((1023 << 20)),3]"'
fi
sc grow zf
check "grow: refused for an array of zones, saying so" \
	eval 'rc_is 1 && err_is "its members are of unequal size \(the array is made of zones\): growing such an array is not supported yet$"'
quiet stop zf
zsc assemble "$L4" "$L2" "$L3"
check "assemble in another order: the same zones and capacity" \
	eval 'rc_is 0 && [ "$(cap_line)" = $((2301 << 20)) ]'
quiet stop zf
zsc assemble --grow "${Z[@]}"
check "assemble --grow: refused for an array of zones" \
	eval 'rc_is 1 && err_is "assemble --grow: growing an array of members of unequal size \(zones\) is not supported yet" && [ -z "$(list_names)" ]'
zsc create --force --chunk 64K --size 1000M --name zf "${Z[@]}"
check "create --size not whole stripes: refused" \
	eval 'rc_is 2 && err_is "^stripectl: --size: 1000M is not a whole number of stripes \(3 members x chunk 64K = 192K\) from 192K to 1533M" && [ -z "$(list_names)" ]'
zsc create --force --chunk 64K --size 1533M --name zf "${Z[@]}"
check "create --size 1533M: one zone over all members, no member sizes recorded" \
	eval 'rc_is 0 && no_err && [ "$(cap_line)" = $((1533 << 20)) ] && [ -z "$(ex "$L3" MQSTRIPE_MEMBER_DATA_BYTES)" ]'
quiet stop zf
quiet zero-superblock "${Z[@]}"
truncate -s 1G "$TMP/disk2" "$TMP/disk3"
losetup -c "$L2" && losetup -c "$L3"

# --- add: members added to a stopped array as a segment after its end
# (docs/FORMAT.md "Segments"): the capacity is the old one plus what the
# new members bring (512M and 768M: two zones in their segment), also
# assembled in another order; each refusal names the device and what to
# do, and writes nothing; a power cut after each superblock write
# assembles the array as it was or with the new members
truncate -s 512M "$TMP/disk3"
truncate -s 768M "$TMP/disk4"
losetup -c "$L3" && losetup -c "$L4"
AU=$(cat /proc/sys/kernel/random/uuid)
acap() { LD_PRELOAD=$FAKE "$STRIPECTL" status "$1" | sed -n 's/^  capacity: *\([0-9]*\) bytes.*/\1/p'; }
areas() { local d; for d in "$@"; do dd if="$d" bs=4K skip=1 count=2 status=none | sha256sum; done; }
zsc create --chunk 64K --name ad --uuid "$AU" "$L0" "$L1"
adev=$(LD_PRELOAD=$FAKE "$STRIPECTL" list | awk '$2 == "ad" { print $1 }')
zsc add ad "$L3" "$L4"
check "add to a running array: refused, saying to stop it first" \
	eval 'rc_is 1 && err_is "^stripectl: add: ad is running as $adev: stop it first \(.stripectl stop $adev.\), add, then assemble it; adding to a running array is not supported yet$"'
zsc add "$L0" "$L3"
check "add to a running array named by a member: refused, naming the array" \
	eval 'rc_is 1 && err_is "^stripectl: add: $L0 is slot 0 of the running array $adev: stop it first"'
quiet stop ad
before=$(areas "$L0" "$L1" "$L3" "$L4")
unchanged() { [ "$(areas "$L0" "$L1" "$L3" "$L4")" = "$before" ]; }
arefused() {	# arefused DESC REGEX ARGS...: add refused, nothing written
	local desc=$1 re=$2
	shift 2
	zsc add "$@"
	check "add refused: $desc" eval "rc_is 1 && err_is \"$re\" && [ ! -s \"\$TMP/out\" ] && unchanged"
}
arefused "a device given twice" "^stripectl: $L3: given twice" ad "$L3" "$L3"
arefused "a member of the array" "^stripectl: add: $L0: already slot 0 of array 'ad' \(UUID $AU\): give devices that are not its members$" ad "$L3" "$L0"
arefused "by a device that is not a member" "^stripectl: add: $L3: no mqstripe superblock: not a member of an array" "$L3" "$L4"
arefused "an unknown name" "^stripectl: add: no array named 'nosuch' found" nosuch "$L3"
for l in "$L3" "$L4"; do
	d=$R/sys/dev/block/$((0x$(stat -c %t "$l"))):$((0x$(stat -c %T "$l")))
	mkdir -p "$d"
	echo "eui.0025388b91c1a2b4" >"$d/wwid"
done
arefused "two paths of one disk (one WWID)" "^stripectl: $L3 and $L4 are one disk: both report the identity eui.0025388b91c1a2b4" ad "$L3" "$L4"
rm -rf "$R/sys/dev"
FAKE_MQS_MEMBER_PBS=131072 arefused "a physical block larger than the chunk" "^stripectl: add: $L3: chunk 65536 is smaller than the member.s physical block size 131072 .*\(the chunk and data offset of array 'ad'" ad "$L3"
truncate -s 1M "$TMP/disk5" && losetup -c "$L5"
arefused "a device too small" "^stripectl: add: $L5: member is too small: needs at least data offset \+ one chunk \(1114112 bytes\), has 1048576 bytes" ad "$L5"
truncate -s 1G "$TMP/disk5" && losetup -c "$L5"
python3 -c 'import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
print("held", flush=True)
time.sleep(60)' "$L4" >"$TMP/held" &
holder=$!
for _ in $(seq 50); do [ -s "$TMP/held" ] && break; sleep 0.1; done
arefused "a device in use (held exclusively)" "^stripectl: $L4: device is busy" ad "$L3" "$L4"
kill "$holder"
wait "$holder" 2>/dev/null
zsc create --chunk 64K --name other5 "$L5" "$L2"
quiet stop other5
arefused "a member of another array" "^stripectl: add: $L5: holds an mqstripe superblock of array 'other5' .*refusing to overwrite it; give --force to wipe it" ad "$L5"
quiet zero-superblock "$L5" "$L2"
zsc create --chunk 64K --name f1 --metadata 1 "$L5" "$L2"
quiet stop f1
zsc add f1 "$L3"
check "add to a format-1 array: refused, saying how to convert it" \
	eval 'rc_is 1 && err_is "^stripectl: add: array .f1. \(UUID [0-9a-f-]*\) has superblock format 1, .*convert it first with .stripectl assemble --metadata 2 DEVICE\.\.\.. \(then stop it\)" && unchanged'
quiet zero-superblock "$L5" "$L2"
# a member missing, one stale, one recorded faulty
dd if="$L1" of="$TMP/l1area" bs=4K skip=1 count=2 status=none
dd if="$L0" of="$TMP/l0area" bs=4K skip=1 count=2 status=none
dd if=/dev/zero of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
zsc add ad "$L3"
check "add with a member missing: refused, naming the slot" \
	eval 'rc_is 1 && err_is "^stripectl: add: array .ad. \(UUID $AU\): slot 1 \(member UUID [0-9a-f-]*\) is missing: .*nothing added" && [ "$(areas "$L3")" = "$(echo "$before" | sed -n 3p)" ]'
dd if="$TMP/l1area" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
quiet assemble "$L0" "$L1" && quiet stop ad
dd if="$TMP/l1area" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
zsc add ad "$L3"
check "add with a stale member: refused, naming it" \
	eval 'rc_is 1 && err_is "^stripectl: add: $L1: stale member of array .ad. .*nothing added" && [ "$(areas "$L3")" = "$(echo "$before" | sed -n 3p)" ]'
dd if="$TMP/l0area" of="$L0" bs=4K seek=1 count=2 conv=notrunc status=none
quiet assemble "$L0" "$L1"
FAKE_MQS_FAULTY=1 quiet record-fault ad
FAKE_MQS_FAULTY=1 quiet stop ad
zsc add ad "$L3"
check "add with a member that failed while the array ran (recorded, then left behind by stop): refused, naming it" \
	eval 'rc_is 1 && err_is "^stripectl: add: $L1: stale member of array .ad. .*its event counter is [0-9]*, $L0 is at [0-9]* .*nothing added" && [ "$(areas "$L3")" = "$(echo "$before" | sed -n 3p)" ]'
dd if="$TMP/l0area" of="$L0" bs=4K seek=1 count=2 conv=notrunc status=none
dd if="$TMP/l1area" of="$L1" bs=4K seek=1 count=2 conv=notrunc status=none
check "the refusals left the array's superblocks as they were" unchanged
# the add itself: 2 x 1023M, then 511M and 767M
zsc add "$L1" "$L3" "$L4"
check "add: says what was added, the new capacity and how to start it" \
	eval 'rc_is 0 && no_err && [ "$(cat "$TMP/out")" = "$L3: added as slot 2 (511M of data)
$L4: added as slot 3 (767M of data)
array '"'ad'"' (UUID $AU): 4 members in 2 segments; capacity 3324M (was 2046M); start it with '"'stripectl assemble --scan --uuid $AU'"'" ]'
check "add: every superblock says 4 members in segments of 2 and 2, each member its size" \
	eval '[ "$(for d in "$L0" "$L1" "$L3" "$L4"; do ex "$d" MQSTRIPE_SLOT; ex "$d" MQSTRIPE_MEMBERS; ex "$d" MQSTRIPE_SEGMENT_MEMBERS; ex "$d" MQSTRIPE_MEMBER_DATA_BYTES; done | tr "\n" " ")" = "0 4 2 2 $((1023 << 20)) 1 4 2 2 $((1023 << 20)) 2 4 2 2 $((511 << 20)) 3 4 2 2 $((767 << 20)) " ]'
check "add: sbtool.py (written from FORMAT.md) reads the segments: both copies valid, entry 1 from 2046M, 511M, slots 2 and 3" \
	eval '[ "$(pj "$L4" "p[\"status\"], [c[\"status\"] for c in p[\"copies\"]], p[\"feature_incompat\"], p[\"nr_segments\"], [(s[\"array_start_bytes\"], s[\"data_bytes\"], s[\"nr_members\"], s[\"first_slot\"]) for s in p[\"segments\"][:2]]")" = "ok ['"'ok', 'ok'"'] 3 2 [(0, $((1023 << 20)), 2, 0), ($((2046 << 20)), $((511 << 20)), 2, 2)]" ]'
FAKE_MQS_NO_SEGMENTS=1 zsc assemble --scan --uuid "$AU"
check "assemble with a module without segments: refused, saying so" \
	eval 'rc_is 1 && err_is "^stripectl: the loaded mqstripe module cannot start an array of segments, members added with .stripectl add. \(its features lack .segments.: see .stripectl --version.\); update the module$" && [ -z "$(list_names)" ]'
zsc assemble --scan --uuid "$AU"
check "assemble --scan after add: capacity = 2046M + 511M + 767M" \
	eval 'rc_is 0 && [ "$(acap ad)" = $((3324 << 20)) ]'
sc status ad
check "status: the segments and their zones" \
	eval 'rc_is 0 && grep -q "^  segments: *2 (members added with .stripectl add.): 2, 2 members" "$TMP/out" && grep -q "zone 1: segment 1, slots 2-3: 1022M of the array from 2046M, over 2 members, 511M of each from data byte 0" "$TMP/out" && grep -q "zone 2: segment 1, slots 2-3: 256M of the array from 3068M, over 1 members, 256M of each from data byte 511M" "$TMP/out"'
if have_jq; then
	sc status --json ad
	check "status --json: segment_members, each zone's segment" \
		eval 'rc_is 0 && jq_is "[.segment_members, [.zones[] | [.segment, .array_start_bytes]]]" "[[2,2],[[0,0],[1,$((2046 << 20))],[1,$((3068 << 20))]]]"'
	sc examine --json "$L4"
	check "examine --json: segment_members" \
		eval 'rc_is 0 && [ "$(jq -c ".. | .segment_members? // empty" "$TMP/out" | head -1)" = "[2,2]" ]'
fi
sc grow ad
check "grow: refused for an array of segments, saying so" \
	eval 'rc_is 1 && err_is "its members were added in 2 segments \(.stripectl add.\): growing such an array is not supported yet$"'
quiet stop ad
zsc assemble "$L4" "$L1" "$L3" "$L0"
check "assemble in another order after add: the same capacity" \
	eval 'rc_is 0 && [ "$(acap ad)" = $((3324 << 20)) ]'
quiet stop ad
zsc assemble --readonly "$L3" "$L0" "$L4" "$L1"
check "assemble --readonly after add: the same capacity" \
	eval 'rc_is 0 && [ "$(acap ad)" = $((3324 << 20)) ]'
quiet stop ad
# segments 3 and 4, then no more
zsc add ad "$L5"
zsc add ad "$L2"
check "add twice more: 4 segments, 6 members" \
	eval 'rc_is 0 && [ "$(ex "$L2" MQSTRIPE_SEGMENT_MEMBERS)" = "2 2 1 1" ]'
before=$(areas "$L0" "$L1" "$L3" "$L4")
arefused "an array of 4 segments" "^stripectl: add: array 'ad' \(UUID $AU\) has 4 segments already, the most its superblocks record: nothing added" ad "$L2"
zsc assemble --scan --uuid "$AU"
check "an array of 4 segments assembles: 2046M + 1278M + 2 x 1023M" \
	eval 'rc_is 0 && [ "$(acap ad)" = $(((2046 + 1278 + 2046) << 20)) ]'
quiet stop ad
quiet zero-superblock "$L0" "$L1" "$L2" "$L3" "$L4" "$L5"
truncate -s 1G "$TMP/disk3" "$TMP/disk4"
losetup -c "$L3" && losetup -c "$L4"
# a power cut after each superblock write of add: the new member's two
# copies first (writes 1, 2: the array assembles as it was, the new
# member left out with a warning), then the array's own (from write 3:
# the array assembles with the new member)
C=("$L0" "$L1" "$L2")
add_made() { quiet create --name cut --uuid "$AU" --chunk 64K "$L0" "$L1" && fill; quiet stop cut; }
added_back() {
	local want=$((2046 << 20))
	[ "$k" -ge 3 ] && want=$((3069 << 20))
	if ! LD_PRELOAD=$FAKE "$STRIPECTL" assemble --scan --uuid "$AU" >"$TMP/rout" 2>"$TMP/rerr" || ! running_cut; then
		why="assemble failed: $(head -c 300 "$TMP/rerr")"
	elif [ "$(acap cut)" != "$want" ]; then
		why="capacity $(acap cut), expected $want"
	elif [ "$k" -lt 3 ] && ! grep -q "^stripectl: warning: $L2: slot 2 of an add to array 'cut' .* that did not complete .*: left out, the array starts as it was; run 'stripectl add' again to add it$" "$TMP/rerr"; then
		why="the new member left out without the warning: $(head -c 300 "$TMP/rerr")"
	elif ! filled; then
		why="assembled, but the data at the data offset changed"
	else
		ok=1
	fi
}
cut "add cut $L2" add_made added_back
fresh

finish
