#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-create
#
# create on members that carry something: XFS, ext4, a GPT
# partition table (with a partition the kernel knows), an md superblock,
# and an mqstripe superblock are each refused without --force, naming what
# was found, leaving it in place and starting nothing; with --force the
# array is created and blkid finds nothing on the members any more.  A
# member of a running array is refused even with --force, before anything
# is written.
# Catches: members overwritten silently, --force leaving old signatures
# (and udev/blkid later mistaking the member for a filesystem), the
# kernel's stale partitions, writes to a member in use.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
mqs_require_cmd mkfs.xfs mkfs.ext4 mdadm blkid wipefs

mapfile -t NV < <(nvme_disks_by_pci)
[ ${#NV[@]} -ge 6 ] || mqs_skip "needs 6 NVMe namespaces, found ${#NV[@]}"
S1=${NV[4]}
S2=${NV[5]}
n1=$(blk_name "$S1")

blank() {
	local d
	for d in /dev/md/mqst-persist /dev/md127; do
		[ -b "$d" ] && mdadm --stop --quiet "$d" >/dev/null 2>&1
	done
	for d in "$S1" "$S2"; do
		wipefs -a -q "$d" >/dev/null 2>&1
		"$STRIPECTL" zero-superblock "$d" >/dev/null 2>&1
		dd if=/dev/zero of="$d" bs=1M count=2 oflag=direct status=none
	done
	blockdev --rereadpt "$S1" 2>/dev/null
}

# kind: how to plant it, what blkid -p says, what stripectl must name
plant() {
	case $1 in
	xfs) mkfs.xfs -f -q "$S1" ;;
	ext4) mkfs.ext4 -F -q "$S1" ;;
	gpt)
		sbtool gpt "$S1" && blockdev --rereadpt "$S1" &&
			udevadm settle >/dev/null 2>&1
		;;
	md)
		modprobe raid0 2>/dev/null
		mdadm --create /dev/md/mqst-persist --run --quiet --level=0 \
			--raid-devices=2 --metadata=1.2 --chunk=64 "$S1" "$S2" &&
			mdadm --stop --quiet /dev/md/mqst-persist
		;;
	esac
}

for kind in xfs ext4 gpt md; do
	case $kind in
	xfs) blk='TYPE="xfs"' msg='a filesystem \(xfs, UUID' ;;
	ext4) blk='TYPE="ext4"' msg='a filesystem \(ext4, UUID' ;;
	gpt) blk='PTTYPE="gpt"' msg='a partition table \(gpt\)' ;;
	md) blk='TYPE="linux_raid_member"' msg='an md RAID superblock \(linux_raid_member' ;;
	esac
	blank
	plant $kind >"$MQS_TMP/plant.out" 2>&1 ||
		{ fail "$kind: plant it" "$(cat "$MQS_TMP/plant.out")"; continue; }
	check_match "$kind: blkid -p sees it on $n1" "$blk" "$(blkid -p "$S1" 2>&1)"
	[ $kind = gpt ] && check_eq "gpt: the kernel has the partition" 1 \
		"$(find "/sys/class/block/$n1/" -maxdepth 1 -name "${n1}p*" | wc -l)"
	mark=$(klog_mark "persist force $kind")
	check_fails "$kind: create refused without --force, naming it" 1 \
		"^stripectl: $S1: holds $msg.*--force" "$STRIPECTL" create "$S1" "$S2"
	check_no_arrays "$kind: nothing started"
	check_match "$kind: still there after the refusal" "$blk" "$(blkid -p "$S1" 2>&1)"
	out=$("$STRIPECTL" create --force --name "force-$kind" "$S1" "$S2" 2>&1)
	if [[ $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
		pass "$kind: create --force"
		track_array "$out"
	else
		fail "$kind: create --force" "$out"
		continue
	fi
	for d in "$S1" "$S2"; do
		if blkid -p "$d" >"$MQS_TMP/blkid.out" 2>&1; then
			fail "$kind: blkid -p finds nothing on $d after --force" "$(cat "$MQS_TMP/blkid.out")"
		else
			pass "$kind: blkid -p finds nothing on $d after --force"
		fi
	done
	check_eq "$kind: the superblocks are there" "force-$kind force-$kind" \
		"$(ex "$S1" MQSTRIPE_NAME) $(ex "$S2" MQSTRIPE_NAME)"
	[ $kind = gpt ] && check_eq "gpt: the kernel's partition is gone" 0 \
		"$(find "/sys/class/block/$n1/" -maxdepth 1 -name "${n1}p*" | wc -l)"
	check_stop "$out"
	check_klog "$kind: no kernel warning" "$mark"
done

# our own superblock: refused, naming the array; --force overwrites it
check_fails "mqstripe superblock: create refused without --force" 1 \
	"^stripectl: $S1: holds an mqstripe superblock of array 'force-md'.*slot 0 of 2.*stripectl assemble" \
	"$STRIPECTL" create "$S1" "$S2"
check_no_arrays "mqstripe superblock: nothing started"

# a member of a running array: refused with --force too, nothing written
B=$("$STRIPECTL" create --force --name busy "$S1" 2>&1)
[[ $B =~ ^/dev/mqstripe[0-9]+$ ]] || mqs_die "create over $S1" "$B"
track_array "$B"
before=$(ex "$S2" MQSTRIPE_NAME)
check_fails "member of a running array: refused even with --force" 1 \
	"^stripectl: $S1: device is busy: a member of the running array $B" \
	"$STRIPECTL" create --force --name other "$S2" "$S1"
check_eq "the other member was not written" "$before" "$(ex "$S2" MQSTRIPE_NAME)"
check_eq "the running member keeps its superblock" busy "$(ex "$S1" MQSTRIPE_NAME)"
check_fails "zero-superblock of a running member: refused" 1 \
	"^stripectl: $S1: device is busy: a member of the running array" \
	"$STRIPECTL" zero-superblock "$S1"
check_stop "$B"

names=$(ex "$S1" MQSTRIPE_NAME)/$(ex "$S2" MQSTRIPE_NAME)
check_fails "zero-superblock with a device given twice: refused" 1 \
	"^stripectl: $S1: given twice: give each device once; nothing was erased" \
	"$STRIPECTL" zero-superblock "$S2" "$S1" "$S1"
check_eq "given twice: nothing erased" "busy/${names#*/}" "$(ex "$S1" MQSTRIPE_NAME)/$(ex "$S2" MQSTRIPE_NAME)"
check_cmd "zero-superblock of two members" "$STRIPECTL" zero-superblock "$S1" "$S2"
check_eq "no superblock left on them" "" "$(ex "$S1" MQSTRIPE_ARRAY_UUID)$(ex "$S2" MQSTRIPE_ARRAY_UUID)"
# leave the spares blank for the next boot (its udev would start an md)
blank
mqs_finish
