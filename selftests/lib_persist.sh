# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared by the persistence tests (selftests/persist/test_*.sh): sources
# lib.sh (KTAP checks, module loading, kernel log marks, cleanup
# registry) and adds what the superblock tests need.  The tests run in
# the persistence boots of selftests/run.sh (--boots persist), which keep
# the NVMe images between boots and share $MQS_PERSIST_DIR (read-write)
# with every boot.

# shellcheck disable=SC2034	# used by the sourcing tests

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SBTOOL=$MQS_DIR/persist/sbtool.py
PERSIST_DIR=${MQS_PERSIST_DIR:-}
ARRAY_NAME=persist

sbtool() { "$PYTHON" "$SBTOOL" "$@"; }

# persist_init: mqs_init, and the share with the first boot's records
persist_init() {
	mqs_init
	if [ -z "$PERSIST_DIR" ] || [ ! -d "$PERSIST_DIR" ]; then
		mqs_skip "MQS_PERSIST_DIR not set: run through selftests/run.sh --boots persist"
	fi
}

# ex DEV KEY: one value of "stripectl examine --export DEV"
ex() {
	"$STRIPECTL" examine --export "$1" 2>/dev/null | sed -n "s/^$2=//p"
}

# The NVMe serial of DEV: it follows the image, not the attachment order.
serial() { tr -d ' ' <"/sys/class/block/$(blk_name "$1")/device/serial" 2>/dev/null; }

# nvme_disks_by_pci: the NVMe namespaces in the order of their
# controllers' PCI addresses, which is the order of run-vm's images
# (--nvme-images).  nvme-pci probes asynchronously, so the kernel's names
# follow the order in which the probes finish: nvme0n1 need not be the
# first image.  The first boot creates the array over images 0..3 this
# way, since the lbs4k boot attaches those four.
nvme_disks_by_pci() {
	local d ctrl
	for d in $(nvme_disks); do
		ctrl=$(readlink -f "/sys/block/$(blk_name "$d")/device")
		echo "$(basename "$(readlink -f "$ctrl/device")") $d"
	done | sort | awk '{ print $2 }'
}

# members_by_slot UUID: the devices carrying array UUID, in slot order
# (one per line, "-" for a slot nobody holds).
members_by_slot() {
	local uuid=$1 d n=0 s
	declare -A by=()
	for d in $(nvme_disks); do
		[ "$(ex "$d" MQSTRIPE_ARRAY_UUID)" = "$uuid" ] || continue
		s=$(ex "$d" MQSTRIPE_SLOT)
		by[$s]=$d
		n=$(ex "$d" MQSTRIPE_MEMBERS)
	done
	for ((s = 0; s < n; s++)); do
		echo "${by[$s]:--}"
	done
}

# need_members UUID N: set M to the N members of array UUID in slot order,
# or end the test, with what "stripectl examine" says of every NVMe disk
# (a slot nobody holds is "-" in members_by_slot, which a count misses).
need_members() {
	local d diag
	mapfile -t M < <(members_by_slot "$1")
	if [ ${#M[@]} -eq "$2" ] && [[ " ${M[*]} " != *" - "* ]]; then
		return 0
	fi
	diag="by slot: ${M[*]}"
	for d in $(nvme_disks); do
		diag+="; $d: $("$STRIPECTL" examine --export "$d" 2>&1 | tr '\n' ' ')"
	done
	mqs_die "$2 members of $1 found" "$diag"
}

# The array running with this UUID: /dev/mqstripeN, or nothing.
array_by_uuid() {
	local d
	for d in /sys/block/mqstripe*; do
		[ -e "$d/mqstripe/uuid" ] || continue
		if [ "$(cat "$d/mqstripe/uuid")" = "$1" ]; then
			echo "/dev/$(basename "$d")"
			return 0
		fi
	done
	return 1
}

# Register an array started by assemble for the cleanup of lib.sh.
track_array() { MQS_ARRAYS+=("$1"); }

# no_arrays DESC: a check that no array exists
check_no_arrays() {
	local left
	left=$(mqs_arrays | tr '\n' ' ')
	if [ -z "$left" ]; then
		pass "$1"
	else
		fail "$1" "arrays: $left"
	fi
}

# check_free DESC DEV...: every DEV can be claimed exclusively
check_free() {
	local desc=$1 d
	shift
	for d in "$@"; do
		if ! blk_claimable "$d"; then
			fail "$desc" "$d is claimed"
			return
		fi
	done
	pass "$desc"
}

# read_record: the first boot's array (UUID, NAME) and files
read_record() {
	[ -r "$PERSIST_DIR/array" ] ||
		mqs_die "the first boot's record $PERSIST_DIR/array exists" "test_01_create did not finish"
	UUID=$(sed -n 's/^UUID=//p' "$PERSIST_DIR/array")
	NAME=$(sed -n 's/^NAME=//p' "$PERSIST_DIR/array")
	NFILES=$(sed -n 's/^NFILES=//p' "$PERSIST_DIR/array")
	[ -n "$UUID" ] || mqs_die "record has the array UUID"
}
