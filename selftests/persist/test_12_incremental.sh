#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-reboot
# mqs-needs: persist/test_01_create
#
# Incremental assembly: "stripectl assemble --incremental"
# for the members one by one in random order; the array starts exactly
# when the last one arrives, with the data intact; repeating it for a
# member of the running array does nothing; stop forgets the records.
# Catches: starting early with a member missing, never starting, starting
# twice, records that outlive the array and restart it later.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
read_record

# every slot held (a count of lines would take "-" for a member)
need_members "$UUID" 4
BYSLOT=("${M[@]}")
mapfile -t ORDER < <(printf '%s\n' "${BYSLOT[@]}" | shuf)
diag "order: ${ORDER[*]}"
RUNDIR=/run/mqstripe/$UUID

for i in 0 1 2; do
	d=${ORDER[i]}
	out=$("$STRIPECTL" assemble --incremental "$d" 2>&1)
	rc=$?
	check_eq "incremental $d ($((i + 1)) of 4): exit 0, silent" "0 " "$rc $out"
	check_no_arrays "incremental $d ($((i + 1)) of 4): not started"
	check_eq "incremental $d: $((i + 1)) recorded" $((i + 1)) \
		"$(find "$RUNDIR" -name 'slot-*' 2>/dev/null | wc -l)"
done
out=$("$STRIPECTL" assemble --incremental "${ORDER[1]}" 2>&1)
check_eq "incremental of a recorded member again: exit 0, silent" "0 " "$? $out"
check_no_arrays "still not started"

out=$("$STRIPECTL" assemble --incremental "${ORDER[3]}" 2>&1)
rc=$?
A=$(array_by_uuid "$UUID")
check_eq "the last member starts the array and prints it" "0 $A" "$rc $out"
[ -n "$A" ] || mqs_die "array started"
track_array "$A"
check_eq "records gone once started" 0 "$(find "$RUNDIR" -name 'slot-*' 2>/dev/null | wc -l)"
for d in "${ORDER[@]}"; do
	out=$("$STRIPECTL" assemble --incremental "$d" 2>&1)
	check_eq "incremental of running member $d: nothing to do" "0 " "$? $out"
done
check_eq "still one array" 1 "$(mqs_arrays | wc -l)"
mqs_mount "$A" "$MQS_TMP/mnt" || mqs_die "mount $A"
check_cmd "every checksum matches" bash -c "cd '$MQS_TMP/mnt' && sha256sum --quiet -c '$PERSIST_DIR/sums'"
umount "$MQS_TMP/mnt"
check_stop "$A"

# a stop forgets partial records: they must not start it later
"$STRIPECTL" assemble --incremental "${ORDER[0]}" >/dev/null 2>&1
"$STRIPECTL" assemble --incremental "${ORDER[1]}" >/dev/null 2>&1
A=$("$STRIPECTL" assemble "${BYSLOT[@]}" 2>&1) && track_array "$A"
check_stop "$A"
check_eq "stop removed the records" 0 "$(find "$RUNDIR" -name 'slot-*' 2>/dev/null | wc -l)"
out=$("$STRIPECTL" assemble --incremental "${ORDER[2]}" 2>&1)
check_eq "one member after the stop: recorded, not started" "0 " "$? $out"
check_no_arrays "nothing started from old records"
rm -rf "$RUNDIR"
mqs_finish
