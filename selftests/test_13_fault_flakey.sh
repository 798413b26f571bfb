#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Member errors under load, injector dm-flakey.
# Member 1 is a dm device over an NVMe namespace.  fio runs randrw with
# verify, one job per chunk (so each job touches one member), then member 1
# is switched to dm-flakey with error_reads and error_writes (on kernels
# whose flakey lacks those features: no features, which fails all IO).
# Then: the fio jobs on member 1 end with EIO, the others verify without
# error, every job ends within 60 s of the fault, single IOs touching
# member 1 fail and the others work, `stripectl status --json` shows
# member 1 faulty with error counts and no errors elsewhere; with the
# fault lifted, "stripectl clear" makes member 1 ok and the array active,
# and data written then verifies; failing again, the array
# stops, and after the fault is lifted and the array assembled again the
# data acknowledged before and during the fault reads back.
# Catches: errors reported on requests that did not touch the member, a
# request that never completes after a member bio fails, lost or
# misdirected data after a fault, a stop that hangs on a failed member.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fault_lib.sh"
mqs_init
mqs_require_cmd dmsetup fio

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
modprobe dm-flakey 2>/dev/null
dmsetup targets | grep -qw flakey || mqs_skip "no dm-flakey target"
sectors=$(($(blk_bytes "${NV[1]}") / 512))
LINEAR="0 $sectors linear ${NV[1]} 0"
mqs_dm_create fl1 "$LINEAR" || mqs_die "dmsetup create over ${NV[1]}"

fault_on() {
	# up 0 s, down 1 s: always down
	if dm_switch fl1 "0 $sectors flakey ${NV[1]} 0 0 1 2 error_reads error_writes" 2>"$MQS_TMP/dm.err"; then
		return 0
	fi
	diag "flakey without error_reads ($(cat "$MQS_TMP/dm.err")): no features, all IO fails"
	dmsetup resume --noudevsync mqst-fl1 2>/dev/null
	dm_switch fl1 "0 $sectors flakey ${NV[1]} 0 0 1"
}
fault_off() { dm_switch fl1 "$LINEAR"; }

FT_MEMBERS=("${NV[0]}" "$DM_DEV" "${NV[2]}" "${NV[3]}")
FT_BAD=1
FT_CHUNK=$((64 << 10))
FT_CLEAR=1
member_fault_test
mqs_finish
