#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stripectl against a fake module (fake_mqstripe.so, LD_PRELOAD): the
# ioctl flow, the messages for the module's error codes, the device node
# fallback without udev, EBUSY retries, list and status output and their
# JSON.  The fake checks the ABI header as strictly as the uapi header
# says.  Members are unbound loop devices (they open, and the fake makes
# them 1 GiB): needs root and five of them, else everything skips.
#
#   test_fake.sh [PATH/TO/stripectl [PATH/TO/fake_mqstripe.so]]
#
# The checks are single-quoted for check()'s eval, which expands them late.
# shellcheck disable=SC2016,SC2317

TOP=$(cd "$(dirname "$0")/../.." && pwd)
STRIPECTL=${1:-$TOP/tools/stripectl/stripectl}
FAKE=${2:-$TOP/tools/tests/fake_mqstripe.so}

n=0
fail=0
nskip=0

ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $*"; }
skip() {
	local why=$1
	shift
	n=$((n + 1))
	nskip=$((nskip + 1))
	echo "ok $n $* # SKIP $why"
}
check() {	# check DESC COMMAND...: passes if COMMAND succeeds
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/# stdout: /' "$TMP/out"
		sed 's/^/# stderr: /' "$TMP/err"
	fi
}
finish() {
	echo "1..$n"
	echo "# totals: pass:$((n - fail - nskip)) fail:$fail skip:$nskip"
	[ "$fail" -eq 0 ]
	exit
}

echo "KTAP version 1"
echo "# stripectl against fake_mqstripe.so"

loops=()
for s in /sys/block/loop*; do
	[ -e "$s" ] || break
	if [ "$(cat "$s/size" 2>/dev/null)" = 0 ] && [ ! -e "$s/loop" ] &&
	   [ -b "/dev/${s##*/}" ]; then
		loops+=("/dev/${s##*/}")
	fi
done
why=
[ "$(id -u)" -ne 0 ] && why="needs root"
[ -z "$why" ] && [ "${#loops[@]}" -lt 5 ] && why="needs 5 unbound loop devices"
[ -z "$why" ] && [ ! -f "$FAKE" ] && why="$FAKE not built"
[ -z "$why" ] && [ ! -x "$STRIPECTL" ] && why="$STRIPECTL not built"
if [ -n "$why" ]; then
	skip "$why" "stripectl against the fake module"
	finish
fi
L0=${loops[0]} L1=${loops[1]} L2=${loops[2]} L3=${loops[3]} L4=${loops[4]}

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
R=$TMP/root
mkdir -p "$R/dev" "$R/sys/block"
: >"$R/dev/mqstripe-control"

export FAKE_MQS_ROOT=$R
export FAKE_MQS_MEMBER_SIZE=$((1 << 30))

sc() {	# run stripectl with the fake module
	LD_PRELOAD=$FAKE "$STRIPECTL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
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
	grep -q '^mqstripe module 0.1.0-fake (ABI version 1, features: discard write_zeroes flush_fua error_member)$' "$TMP/out"
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
check "create without udev waited at most ~5 s" [ $((SECONDS - start)) -le 7 ]
check "create without udev made the node 60:1" \
	eval '[ -b "$R/dev/mqstripe1" ] && [ "$(stat -c %t:%T "$R/dev/mqstripe1")" = 3c:1 ]'

# --- refusals by the module, named by member ---
sc create --name db "$L3"
check "name in use" eval "rc_is 1 && err_is \"^stripectl: --name 'db': an array with this name exists already\""
FAKE_MQS_CREATE_FAIL=16,4,1 sc create "$L0" "$L1" "$L2"
check "EBUSY/BUSY names member 1" eval "rc_is 1 && err_is '^stripectl: $L1: device is busy: it is mounted, in use or a member of another array'"
FAKE_MQS_CREATE_FAIL=28,6,2 sc create --chunk 1M --data-offset 4M "$L0" "$L1" "$L2"
check "ENOSPC/TOO_SMALL names member 2" eval "rc_is 1 && err_is '^stripectl: $L2: member is too small: needs at least data offset \+ one chunk \(5242880 bytes\), has 1073741824 bytes'"
FAKE_MQS_CREATE_FAIL=22,5,0 sc create "$L0" "$L1"
check "EINVAL/ZONED names member 0" eval "rc_is 1 && err_is '^stripectl: $L0: zoned block devices cannot be members'"
FAKE_MQS_CREATE_FAIL=22,10,4294967295 sc create "$L0" "$L1"
check "GEOMETRY without a member" eval "rc_is 1 && err_is '^stripectl: the module refused the geometry \(2 members, chunk 512K, data offset 1M\)'"
FAKE_MQS_CREATE_FAIL=16,0,0 sc create "$L0" "$L1"
check "EBUSY without an error code blames no member" eval "rc_is 1 && err_is '^stripectl: one of the members: device is busy'"
FAKE_MQS_CREATE_FAIL=22,77,4294967295 sc create "$L0" "$L1"
check "unknown error code" eval "rc_is 1 && err_is 'error code 77'"
FAKE_MQS_MEMBER_PBS=8192 sc create --chunk 4K "$L0" "$L1"
check "chunk below the member's pbs, before the kernel" eval "rc_is 1 && err_is '^stripectl: $L0: chunk 4096 is smaller than the member.s physical block size 8192 \(check /sys/block/${L0#/dev/}/queue/physical_block_size\)'"
FAKE_MQS_MEMBER_SIZE=$((1 << 20)) sc create "$L0"
check "member too small, before the kernel" eval "rc_is 1 && err_is '^stripectl: $L0: member is too small: needs at least data offset \+ one chunk \(1572864 bytes\), has 1048576 bytes'"
FAKE_MQS_ABI=2 sc list
check "ABI mismatch names both versions" eval "rc_is 1 && err_is 'ABI version 2, stripectl .* has ABI version 1'"
FAKE_MQS_EPERM=1 sc list
check "EPERM: needs root" eval "rc_is 1 && err_is '^stripectl: /dev/mqstripe-control: permission denied: needs root \(CAP_SYS_ADMIN\)$'"

# --- list and status ---
sc list
check "list: header and two arrays" eval 'rc_is 0 && [ "$(wc -l <"$TMP/out")" -eq 3 ] && grep -qE "^/dev/mqstripe0 +db +42424242-4242-4242-4242-424242424242 +3 +64K +3G +active$" "$TMP/out"'
sc status db
check "status by name" eval 'rc_is 0 && grep -q "^/dev/mqstripe0:" "$TMP/out" && grep -qE "^ +1 +$L1 +1G +faulty +3 +1 +0$" "$TMP/out" && grep -qE "^ +read_ahead_kb +-$" "$TMP/out"'
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
	sc status --json mqstripe1
	check "status --json geometry" eval 'rc_is 0 && jq_is "[.uuid, .chunk_bytes, .stripe_width_bytes, .data_offset_bytes, .queue_depth, .nr_hw_queues, .major, .minor]" "[\"01234567-89ab-cdef-0123-456789abcdef\",524288,1048576,2097152,64,2,60,1]"'
	check "status --json members" eval 'jq_is "[.members[] | [.slot, .device, .state, .size_bytes, .read_errors]]" "[[0,\"$L3\",\"ok\",1073741824,0],[1,\"$L4\",\"faulty\",1073741824,3]]"'
	check "status --json queue limits" eval 'jq_is "[.queue_limits | .logical_block_size_bytes, .optimal_io_size_bytes, .max_sectors_kb, .discard_max_bytes, .write_cache, .fua, .rotational, .read_ahead_kb]" "[512,1048576,1280,2199023255040,\"write back\",true,false,null]"'
	check "status --json keys" eval 'jq_is "keys" "[\"capacity_bytes\",\"chunk_bytes\",\"data_offset_bytes\",\"device\",\"index\",\"major\",\"member_data_bytes\",\"members\",\"minor\",\"name\",\"nr_hw_queues\",\"nr_members\",\"queue_depth\",\"queue_limits\",\"state\",\"stripe_width_bytes\",\"uuid\"]"'
else
	skip "no jq" "list and status JSON"
fi

# --- stop ---
start=$SECONDS
FAKE_MQS_BUSY=3 sc stop db
check "stop retries EBUSY (udev probe) and succeeds" eval 'rc_is 0 && [ ! -s "$TMP/out" ] && no_err'
FAKE_MQS_BUSY=always sc stop mqstripe1
check "stop of an array in use" eval "rc_is 1 && err_is '^stripectl: /dev/mqstripe1: device is in use \(mounted or open\): unmount it first'"
check "stop gives up after ~5 s" [ $((SECONDS - start)) -le 8 ]
sc stop /dev/mqstripe1
check "stop without udev removes the node it made" eval 'rc_is 0 && [ ! -e "$R/dev/mqstripe1" ]'
sc stop mqstripe1
check "stop of a stopped array" eval "rc_is 1 && err_is '^stripectl: mqstripe1: no such array'"
sc list
check "list after stop: nothing" eval 'rc_is 0 && [ ! -s "$TMP/out" ]'

finish
