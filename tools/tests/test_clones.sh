#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A clone set attached with the originals (a SAN or VM snapshot, a dd
# migration: every member present twice, same array UUID, same member
# UUIDs and slots, on different disks): "assemble --incremental" (udev)
# and "assemble --scan" must decide the same way, whatever the order the
# devices appear in.  Nothing starts from a mix of the copies; a slot seen
# on two devices stops the start and the error names both; a copy that
# appears after its array started from the other copy is refused, naming
# both, on stderr and in the system log.  An older copy of one member (a
# lower event count) is no clone: both ways take the newer one, naming the
# older.  A stray disk carrying the array's name does not keep --scan
# from starting the complete array.  Against fake_mqstripe.so
# (LD_PRELOAD), as test_fake.sh; members are loop devices over small
# sparse files, each a disk of its own (a wwid of its own): needs root and
# losetup, else everything skips.
#
#   test_clones.sh [PATH/TO/stripectl [PATH/TO/fake_mqstripe.so]]
#
# The checks are single-quoted for check()'s eval, which expands them late.
# shellcheck disable=SC2016,SC2317

TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"
# shellcheck source=SCRIPTDIR/fake_lib.sh
. "$TOP/tools/tests/fake_lib.sh"
fake_begin "a clone set: assemble --incremental and --scan" "$@"
declare -A dev=()	# image name -> its loop device, while attached
cleanup() {
	local l
	for l in "${dev[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
fake_root
R=$FAKE_MQS_ROOT
export FAKE_MQS_SYSLOG=$TMP/syslog

sc() {	# run stripectl with the fake module
	LD_PRELOAD=$FAKE "$STRIPECTL" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
}
rc_is() { [ "$rc" -eq "$1" ]; }
q() { LD_PRELOAD=$FAKE "$STRIPECTL" "$@" >/dev/null 2>&1; }
list() { LD_PRELOAD=$FAKE "$STRIPECTL" list; }
nothing_runs() { [ -z "$(list)" ]; }
# runs_from DEV...: the array runs, its members these devices in slot order
runs_from() {
	local want=" " d
	for d in "$@"; do
		want+="${d#/dev/},"
	done
	list | grep -qE -- "${want%,}\$"
}

# attach IMAGE: a loop device over $TMP/IMAGE, a disk with a wwid of its own
attach() {
	local l d
	l=$(losetup --find --show "$TMP/$1") || return 1
	dev[$1]=$l
	d=$R/sys/dev/block/$((0x$(stat -c %t "$l"))):$((0x$(stat -c %T "$l")))
	mkdir -p "$d"
	echo "naa.5000c500a1b2$(printf %04x "$((0x$(stat -c %T "$l")))")" >"$d/wwid"
}
detach_all() {
	local i
	for i in "${!dev[@]}"; do
		losetup -d "${dev[$i]}"
		unset "dev[$i]"
	done
	rm -rf "$R/sys/dev"
}
# as a reboot: no array runs, /run is empty, nothing attached; and the
# disks as they were when the clones were taken (a start writes its
# members' superblocks: each case begins with the copies alike)
reboot() {
	local i
	q stop --scan
	detach_all
	rm -rf "$MQSTRIPE_RUN_DIR" "$TMP/syslog"
	for i in a0 a1 b0 b1; do
		cp --sparse=always "$TMP/taken${i#?}" "$TMP/$i"
	done
}

# the array: two members, stopped; the clones: copies of their files
truncate -s 64M "$TMP/a0" "$TMP/a1"
if ! attach a0 || ! attach a1; then
	skip "cannot attach loop devices" "a clone set against the fake module"
	finish
fi
sc create --name clone --chunk 64K "${dev[a0]}" "${dev[a1]}"
if [ "$rc" -ne 0 ]; then
	not_ok "create the array"
	check_failed
	finish
fi
U=$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "${dev[a0]}" | sed -n 's/^MQSTRIPE_ARRAY_UUID=//p')
q stop clone
detach_all
mv "$TMP/a0" "$TMP/taken0"
mv "$TMP/a1" "$TMP/taken1"

# copies_named: some line of the output says a slot is claimed by two
# devices, naming both (one of each copy), and says nothing started
copies_named() {
	local s
	for s in 0 1; do
		grep -E -- "(${dev[a$s]} and ${dev[b$s]}|${dev[b$s]} and ${dev[a$s]}) both claim slot $s of array 'clone' \\(UUID $U\\)" "$TMP/all" |
			grep -q 'nothing started' && return 0
	done
	return 1
}

# incremental ORDER...: every image attached first (a boot: udev replays
# the devices' add events in any order), then --incremental for each in
# ORDER; then --scan --uuid on the same devices
coldplug() {
	local desc=$1 i fails=0
	shift
	reboot
	for i in a0 a1 b0 b1; do
		attach "$i"
	done
	: >"$TMP/all"
	for i in "$@"; do
		sc assemble --incremental "${dev[$i]}"
		cat "$TMP/err" >>"$TMP/all"
		[ "$rc" -ne 0 ] && fails=$((fails + 1))
		check "coldplug, $desc: --incremental ${dev[$i]} ($i) starts nothing" \
			eval 'nothing_runs && [ ! -s "$TMP/out" ]'
	done
	check "coldplug, $desc: --incremental refuses, naming both devices of a slot" \
		eval '[ "$fails" -gt 0 ] && copies_named'
	check "coldplug, $desc: ... and says so in the system log" \
		eval 'grep -q "both claim slot" "$TMP/syslog"'
	sc assemble --scan --uuid "$U"
	cp "$TMP/err" "$TMP/all"
	check "coldplug, $desc: --scan decides the same: refused, naming both devices of a slot" \
		eval 'rc_is 1 && nothing_runs && copies_named'
}
coldplug "originals first" a0 a1 b0 b1
coldplug "clones first" b0 b1 a0 a1
coldplug "interleaved, a mix complete first" a0 b1 b0 a1
coldplug "interleaved by slot" a0 b0 a1 b1

# the way out the message gives: by hand, naming one copy's devices
sc assemble "${dev[b0]}" "${dev[b1]}"
check "by hand, naming the clone's devices: started from them" \
	eval 'rc_is 0 && runs_from "${dev[b0]}" "${dev[b1]}"'
q stop clone
# ... or with one copy detached, --incremental as udev runs it
reboot
attach a0
attach a1
q assemble --incremental "${dev[a0]}"
sc assemble --incremental "${dev[a1]}"
check "one copy detached: --incremental starts the other" \
	eval 'rc_is 0 && runs_from "${dev[a0]}" "${dev[a1]}"'

# hotplug ORDER...: each image attached just before its --incremental
# (disks that come one by one): the first complete copy starts; a device
# of the other copy is refused, naming it and the running member of its
# slot
hotplug() {
	local desc=$1 i
	shift
	reboot
	: >"$TMP/all"
	for i in "$@"; do
		attach "$i"
		sc assemble --incremental "${dev[$i]}"
		cat "$TMP/err" >>"$TMP/all"
		printf '%s %s\n' "$i" "$rc" >>"$TMP/rcs"
	done
}
# copy_refused IMAGE RUNNING-IMAGE: IMAGE's --incremental was refused,
# naming it and the running member of its slot
copy_refused() {
	grep -qx "$1 1" "$TMP/rcs" &&
		grep -E -- "${dev[$1]}: a copy of slot ${1#?} of array 'clone' \\(UUID $U\\), which runs as /dev/mqstripe0 from ${dev[$2]}: not taken" "$TMP/all" >/dev/null &&
		grep -q -- "${dev[$1]}: a copy of slot ${1#?} .* from ${dev[$2]}: not taken" "$TMP/syslog"
}
: >"$TMP/rcs"
hotplug "originals first" a0 a1 b0 b1
check "hotplug, originals first: started from the originals" \
	eval 'runs_from "${dev[a0]}" "${dev[a1]}"'
check "hotplug, originals first: each clone device refused, naming it and the running member (stderr, system log)" \
	eval 'copy_refused b0 a0 && copy_refused b1 a1'
: >"$TMP/rcs"
hotplug "clones first" b0 b1 a0 a1
check "hotplug, clones first: started from the clones" \
	eval 'runs_from "${dev[b0]}" "${dev[b1]}"'
check "hotplug, clones first: each original refused, naming it and the running member (stderr, system log)" \
	eval 'copy_refused a0 b0 && copy_refused a1 b1'
: >"$TMP/rcs"
hotplug "interleaved by slot" a0 b0 a1 b1
check "hotplug, interleaved by slot: nothing started" nothing_runs
check "hotplug, interleaved by slot: refused, naming both devices of a slot" \
	eval 'grep -qx "b0 1" "$TMP/rcs" && copies_named'
sc assemble --scan --uuid "$U"
cp "$TMP/err" "$TMP/all"
check "hotplug, interleaved by slot: --scan decides the same" \
	eval 'rc_is 1 && nothing_runs && copies_named'

# A stale copy of a slot (b1: slot 1 as it was before the array ran
# again; a0 and a1 are 4 events on) is no clone: the newer copy is the
# member, as md keeps the device with the higher event count, and the
# stale one is named.  stale_setup: a0 and a1 assembled and stopped,
# then a reboot (nothing recorded)
stale_setup() {
	reboot
	attach a0
	attach a1
	q assemble "${dev[a0]}" "${dev[a1]}"
	q stop clone
	rm -rf "$MQSTRIPE_RUN_DIR"
}
stale_named() {
	grep -q -- "${dev[b1]}: an older copy of slot 1 of array 'clone' (UUID $U) (events 3, ${dev[a1]} has [0-9]*): left out" "$1"
}
stale_setup
attach b1
: >"$TMP/all"
for i in b1 a0 a1; do
	sc assemble --incremental "${dev[$i]}"
	cat "$TMP/err" >>"$TMP/all"
done
check "--incremental, a stale copy of slot 1 first: started from the current devices, the stale one named" \
	eval 'runs_from "${dev[a0]}" "${dev[a1]}" && stale_named "$TMP/all"'
stale_setup
detach_all
: >"$TMP/all"
for i in b1 a0 a1; do
	attach "$i"
	sc assemble --incremental "${dev[$i]}"
	cat "$TMP/err" >>"$TMP/all"
done
check "--incremental, hotplug, a stale copy of slot 1 first: the current one is taken when it comes" \
	eval 'rc_is 0 && runs_from "${dev[a0]}" "${dev[a1]}" && stale_named "$TMP/all"'
q stop clone
rm -rf "$MQSTRIPE_RUN_DIR"
sc assemble --scan
check "--scan with a stale copy of slot 1 attached: decides the same" \
	eval 'runs_from "${dev[a0]}" "${dev[a1]}" && stale_named "$TMP/err"'

# One stray disk carrying the array's name (s0: slot 0 of another array
# named 'clone', its other disk elsewhere) does not keep --scan from
# starting the complete array of that name: the stray is named and left
# alone
reboot
truncate -s 64M "$TMP/s0" "$TMP/s1"
attach s0
attach s1
q create --force --name clone --chunk 64K "${dev[s0]}" "${dev[s1]}"
q stop clone
S=$(LD_PRELOAD=$FAKE "$STRIPECTL" examine --export "${dev[s0]}" | sed -n 's/^MQSTRIPE_ARRAY_UUID=//p')
detach_all
attach a0
attach a1
attach s0
sc assemble --scan
check "--scan, a stray disk with the complete array's name: the complete array starts" \
	eval 'runs_from "${dev[a0]}" "${dev[a1]}"'
check "... the stray is named and left alone" \
	eval 'rc_is 1 && grep -q -- "^stripectl: array $S (on ${dev[s0]}) not started: 1 of its 2 members found, and the complete array $U (on .*) has the same name .clone.: a stray disk; left alone" "$TMP/err" && [ "$(LD_PRELOAD=$FAKE "$STRIPECTL" list | grep -c clone)" = 1 ]'
q stop clone

finish
