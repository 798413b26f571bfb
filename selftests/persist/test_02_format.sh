#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-create
#
# The on-disk format document matches the bytes: create an
# array with known parameters, read every member's superblock (both
# copies of format 2) with sbtool.py, a parser written from
# docs/FORMAT.md alone, and check every field against what was asked,
# what the kernel reports and what examine prints; again after stop.
# Then format 1 (create --metadata 1) and its conversion (assemble
# --metadata 2) on the same members.
# Catches: a field at another offset or byte order than documented, a
# checksum computed otherwise, the member table out of step, events,
# generation or state not updated, a copy not written.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init

mapfile -t NV < <(nvme_disks_by_pci)
[ ${#NV[@]} -ge 6 ] || mqs_skip "needs 6 NVMe namespaces, found ${#NV[@]}"
S=("${NV[5]}" "${NV[4]}")	# slot 0 on the higher name
GIVEN_UUID=5eedf00d-1234-4abc-8def-0123456789ab

check_eq "sbtool.py: crc32c check value" 0xe3069283 "$(sbtool crc32c 123456789)"

t0=$(date +%s)
"$STRIPECTL" create --force --uuid "$GIVEN_UUID" --name fmt-1.x --chunk 128K \
	--data-offset 2M --queue-depth 96 "${S[@]}" >"$MQS_TMP/create.out" 2>&1 ||
	mqs_die "create with known parameters" "$(cat "$MQS_TMP/create.out")"
A=$(cat "$MQS_TMP/create.out")
track_array "$A"
t1=$(date +%s)
pass "create printed $A"
"$STRIPECTL" status --json "$A" >"$MQS_TMP/status.json"
ALBS=$(cat "/sys/block/$(basename "$A")/queue/logical_block_size")

# field CHECK for one member: every field of the document
verify() {	# verify WHEN EVENTS STATE
	local when=$1 events=$2 state=$3 i m j rc
	: >"$MQS_TMP/verify.out"
	for i in 0 1; do
		m=${S[i]}
		sbtool parse "$m" >"$MQS_TMP/p$i.json" 2>&1 ||
			fail "$when: $m: sbtool.py finds a valid superblock" "$(cat "$MQS_TMP/p$i.json")"
		"$STRIPECTL" examine --json "$m" >"$MQS_TMP/e$i.json" 2>&1
		"$PYTHON" - "$MQS_TMP/p$i.json" "$MQS_TMP/e$i.json" "$MQS_TMP/status.json" \
			"$i" "$events" "$state" "$t0" "$t1" "$GIVEN_UUID" \
			"$(qattr "$m" logical_block_size)" "$ALBS" \
			"$(blk_bytes "${S[0]}")" "$(blk_bytes "${S[1]}")" "$when" <<'PYEOF'
import json, sys
p = json.load(open(sys.argv[1]))
e = json.load(open(sys.argv[2]))
st = json.load(open(sys.argv[3]))
slot, events, state, t0, t1 = (int(x) for x in sys.argv[4:9])
uuid = sys.argv[9]
mlbs, albs, size0, size1 = (int(x) for x in sys.argv[10:14])
when = sys.argv[14]
chunk, off = 128 << 10, 2 << 20
data = (min(size0, size1) - off) // chunk * chunk
want = {
    "magic": "MQSTRIPE", "format_version": 2, "feature_compat": 0,
    "feature_incompat": 0, "sb_offset_bytes": 4096, "layout_version": 1,
    "state": state, "array_uuid": uuid, "slot": slot, "nr_members": 2,
    "chunk_bytes": chunk, "data_offset_bytes": off, "data_bytes": data,
    "array_logical_block_size": albs, "member_logical_block_size": mlbs,
    "events": events, "name": "fmt-1.x", "reserved_zero": True,
    "table_tail_zero": True, "status": "ok",
    "feature_ro_compat": 0, "generation": events, "queue_depth": 96,
    "nr_segments": 1, "reshape_position_bytes": 0, "copy_in_use": 0,
}
n = 0
def check(ok, what):
    global n
    n += 1
    print("%s %d %s: slot %d: %s" % ("ok" if ok else "not ok", n, when, slot, what))
for k, v in want.items():
    check(p[k] == v, "%s = %r (parsed %r)" % (k, v, p[k]))
check(p["checksum"] == p["checksum_computed"], "checksum is the CRC-32C of the block")
check([c["status"] for c in p["copies"]] == ["ok", "ok"] and
      [c["generation"] for c in p["copies"]] == [events, events],
      "both copies valid, at generation %d (parsed %r)" % (events, p["copies"]))
seg = p["segments"][0]
check((seg["array_start_bytes"], seg["data_offset_bytes"], seg["data_bytes"],
       seg["chunk_bytes"], seg["nr_members"]) == (0, off, data, chunk, 2),
      "segment 0 is the whole array (parsed %r)" % seg)
check(p["member_uuids"][slot] == p["member_uuid"], "member table entry of its slot is its member UUID")
check(len(p["member_uuids"]) == 2 and p["member_uuids"][0] != p["member_uuids"][1],
      "two distinct member UUIDs in the table")
check(t0 <= p["ctime"] <= t1, "ctime %d within the create (%d..%d)" % (p["ctime"], t0, t1))
check(p["utime"] >= p["ctime"], "utime >= ctime")
check(data == st["member_data_bytes"], "data_bytes = the module's member_data_bytes")
check(p["array_uuid"] == st["uuid"], "array UUID = the running array's")
check(st["members"][slot]["member_uuid"] == p["member_uuid"], "status shows the member UUID")
same = ["format_version", "checksum", "feature_compat", "feature_incompat",
        "sb_offset_bytes", "layout_version", "array_uuid", "member_uuid",
        "slot", "nr_members", "chunk_bytes", "data_offset_bytes", "data_bytes",
        "ctime", "utime", "events", "name", "member_uuids",
        "feature_ro_compat", "generation", "queue_depth"]
for k in same:
    check(p[k] == e[k], "examine --json agrees on %s" % k)
check(e["array_logical_block_size_bytes"] == p["array_logical_block_size"] and
      e["member_logical_block_size_bytes"] == p["member_logical_block_size"],
      "examine --json agrees on the logical block sizes")
check(e["state"] == ("active" if state else "clean"), "examine --json agrees on the state")
print("1..%d" % n)
PYEOF
		rc=$?
		[ $rc -eq 0 ] || echo "not ok 1 $when: slot $i: the field checks ran (exit $rc)"
	done >>"$MQS_TMP/verify.out" 2>&1
	import_checks "" cat "$MQS_TMP/verify.out"
	for j in member_uuids array_uuid ctime; do
		check_eq "$when: both members agree on $j" \
			"$(jget "$MQS_TMP/p0.json" "$j")" "$(jget "$MQS_TMP/p1.json" "$j")"
	done
}
verify "running" 1 1
check_stop "$A"
verify "stopped" 3 0
MQS_ARRAYS=()
check_eq "examine and sbtool agree on the first 8 bytes" "MQSTRIPE" \
	"$(dd if="${S[0]}" bs=1 skip=4096 count=8 status=none)"
check_eq "the second copy starts with the magic at byte 8192" "MQSTRIPE" \
	"$(dd if="${S[0]}" bs=1 skip=8192 count=8 status=none)"

# format 1: one copy at 4096, nothing written at 8192; then converted
"$STRIPECTL" zero-superblock "${S[@]}" >/dev/null 2>&1
dd if=/dev/urandom of="$MQS_TMP/junk" bs=4K count=1 status=none
for m in "${S[@]}"; do
	dd if="$MQS_TMP/junk" of="$m" bs=4K seek=2 count=1 oflag=direct conv=notrunc status=none
done
A=$("$STRIPECTL" create --metadata 1 --name fmt-1 --chunk 128K "${S[@]}" 2>&1) ||
	mqs_die "create --metadata 1" "$A"
track_array "$A"
for i in 0 1; do
	sbtool parse "${S[i]}" >"$MQS_TMP/v1.json" 2>&1
	check_eq "format 1: ${S[i]}: parsed valid, format 1, slot $i, 240-entry table" \
		"ok 1 $i True" \
		"$("$PYTHON" -c 'import json,sys; p = json.load(open(sys.argv[1])); print(p["status"], p["format_version"], p["slot"], p["table_tail_zero"] and len(p["member_uuids"]) == 2)' "$MQS_TMP/v1.json")"
	check_eq "format 1: ${S[i]}: bytes 8192.. as they were (not written)" \
		"$(sha256sum <"$MQS_TMP/junk")" \
		"$(dd if="${S[i]}" bs=4K skip=2 count=1 iflag=direct status=none | sha256sum)"
done
check_stop "$A"
A=$("$STRIPECTL" assemble --metadata 2 "${S[@]}" 2>"$MQS_TMP/conv.err") ||
	mqs_die "assemble --metadata 2" "$(cat "$MQS_TMP/conv.err")"
track_array "$A"
if grep -q "converting the superblocks of array 'fmt-1'" "$MQS_TMP/conv.err"; then
	pass "assemble --metadata 2 says it converts"
else
	fail "assemble --metadata 2 says it converts" "$(cat "$MQS_TMP/conv.err")"
fi
for i in 0 1; do
	sbtool parse "${S[i]}" >"$MQS_TMP/v2.json" 2>&1
	check_eq "converted: ${S[i]}: format 2, both copies valid, events 5" \
		"ok 2 ['ok', 'ok'] 5 $i" \
		"$("$PYTHON" -c 'import json,sys; p = json.load(open(sys.argv[1])); print(p["status"], p["format_version"], [c["status"] for c in p["copies"]], p["events"], p["slot"])' "$MQS_TMP/v2.json")"
done
check_stop "$A"
MQS_ARRAYS=()
mqs_finish
