#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input: each refused with its own one-line error (naming the member or
# option) and exit code, and nothing left behind: no new /dev/mqstripe* or
# /sys/block/mqstripe*, the members claimable again (O_EXCL open), no
# kernel warning.  Rename refusals (an invalid name, a missing array,
# another array's name, running or in a stopped array's superblocks, an
# array assembled read-only) leave the superblocks as they were.  Then the
# control ABI directly (mqs_ioctl, built on the
# host by selftests/Makefile): wrong hdr.size, unknown version, non-zero
# reserved fields and flags, duplicates by device number, bad fds, each
# with a positive control; LIST with less room than arrays (the lowest
# indexes); INFO whose member table faults (userfaultfd) while LIST must
# still answer.
# Catches: a half-created array or a member left claimed after a refused
# create, unchecked reserved fields, duplicate detection by path only,
# geometry limits not enforced in the kernel, LIST keeping the first arrays
# created instead of the lowest indexes, a user fault taken under the
# control mutex.

. "$(dirname "$0")/lib.sh"
mqs_init

mapfile -t NV < <(nvme_disks)
[ ${#NV[@]} -ge 4 ] || mqs_skip "needs 4 NVMe namespaces, found ${#NV[@]}"
M=("${NV[@]:0:4}")
IOCTL=$MQS_DIR/mqs_ioctl

# The arrays and their nodes ("mqstripe0 /dev/mqstripe0 "), in ARRAYS.
# In this shell, and marks, scans and claim checks by one kmsg.py
# (pyd): a process start costs 0.1-1 s under TCG, and each case below
# made a dozen.
arrays() {
	local d
	ARRAYS=
	for d in /sys/block/mqstripe*; do [ -e "$d" ] && ARRAYS+="${d##*/} "; done
	for d in /dev/mqstripe[0-9]*; do [ -e "$d" ] && ARRAYS+="$d "; done
	return 0
}
pyd_start

# check_free DESC DEV...: no DEV claimed (an O_EXCL open works)
check_free() {
	local desc=$1
	shift
	if pyd busy "$@"; then
		pass "$desc"
	else
		fail "$desc" "claimed: $PYD_OUT"
	fi
}

# check_pyd_klog DESC SEQ: no bad line in the kernel log since SEQ
check_pyd_klog() {
	if [[ $2 =~ ^[0-9]+$ ]] && pyd scan "$2"; then
		pass "$1"
	else
		fail "$1" "kernel log since the mark ${2:-(none)}:" "$PYD_OUT"
	fi
}

# mark TEXT: a kernel log mark, its sequence number in MARK
mark() {
	pyd mark "mqstripe-selftest: $*"
	MARK=${PYD_OUT%$'\n'}
}

# bad DESC RC ERE [--keep "arrays"] -- ARGS...: stripectl ARGS must fail
# with RC and ERE on stderr; then nothing new exists, members free, log clean
bad() {
	local desc=$1 rc=$2 re=$3 before m
	shift 3
	[ "$1" = -- ] && shift
	arrays
	before=$ARRAYS
	mark "test_11 case: $desc"
	check_fails "$desc: exit $rc, message /$re/" "$rc" "$re" "$STRIPECTL" "$@"
	arrays
	check_eq "$desc: nothing left behind" "$before" "$ARRAYS"
	local free=()
	for m in "${M[@]}"; do
		# members that are legitimately busy in this case are skipped
		[[ " ${BUSY[*]} " == *" $m "* ]] || free+=("$m")
	done
	check_free "$desc: members free again (O_EXCL open works)" "${free[@]}"
	check_pyd_klog "$desc: no kernel warning" "$MARK"
}
BUSY=()

n0=$(blk_name "${M[0]}")
n1=$(blk_name "${M[1]}")
bad "no members" 2 'member' -- create "${MQS_FORCE[@]}" --chunk 64K
bad "the same member twice" 1 "$n1.*(twice|same device|duplicate)" -- create "${MQS_FORCE[@]}" "${M[0]}" "${M[1]}" "${M[1]}"
# the same device under another name: found by device number
IFS=: read -r maj min < <(blk_devno "${M[1]}")
mknod "$MQS_TMP/alias" b "$maj" "$min"
bad "the same member twice, by another path" 1 "alias.*(twice|same device|duplicate)" -- \
	create "${MQS_FORCE[@]}" "${M[1]}" "$MQS_TMP/alias"
bad "a path that does not exist" 1 '/dev/nonexistent-mqs.*(not exist|no such|not found)' -- \
	create "${MQS_FORCE[@]}" "${M[0]}" /dev/nonexistent-mqs
truncate -s 64M "$MQS_TMP/regular"
bad "a regular file" 1 'regular.*not a block device|not a block device' -- \
	create "${MQS_FORCE[@]}" "${M[0]}" "$MQS_TMP/regular"
bad "a character device" 1 'not a block device' -- create "${MQS_FORCE[@]}" "${M[0]}" /dev/null

# mounted member
mkfs.ext4 -q -F "${M[3]}" >/dev/null 2>&1
if [ ${#MQS_FORCE[@]} -gt 0 ]; then
	# a member carrying a filesystem is refused without --force, untouched
	bad "a member with a filesystem, no --force" 1 "$(blk_name "${M[3]}").*(ext4|filesystem)" -- \
		create "${M[3]}"
	check_eq "the refused member still carries its ext4 signature" ext4 \
		"$(blkid -p -o value -s TYPE "${M[3]}" 2>&1)"
	bad "data offset 4K (below the superblock's 8K)" 2 '--data-offset' -- \
		create --force --data-offset 4K "${M[0]}" "${M[1]}"
fi
# a mount point with a space: mountinfo escapes it (\040), the message
# names it as it is
mp="$MQS_TMP/mnt point"
if mqs_mount "${M[3]}" "$mp"; then
	BUSY=("${M[3]}")
	bad "a mounted member" 1 "$(blk_name "${M[3]}").*mounted on $mp \(unmount it first\)" -- \
		create "${MQS_FORCE[@]}" "${M[0]}" "${M[3]}"
	umount "$mp"
	BUSY=()
	check_free "unmounted member free" "${M[3]}"
else
	fail "mount ext4 on ${M[3]}"
fi

# member of another array
if mqs_create --chunk 64K "${M[0]}" "${M[1]}"; then
	first=$MQS_DEV
	BUSY=("${M[0]}" "${M[1]}")
	bad "a member of another array" 1 "$n1.*(busy|in use|another array)" -- \
		create "${MQS_FORCE[@]}" "${M[2]}" "${M[1]}"
	check_cmd "the other array still reads" dd if="$first" of=/dev/null bs=64k count=4 iflag=direct status=none
	check_eq "the other array keeps its members" "$n0 $n1 " \
		"$(find "/sys/block/$(basename "$first")/slaves/" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')"
	check_stop "$first"
	BUSY=()
else
	fail "create the first array"
fi

# rename refusals: the array keeps its name and superblocks
if mqs_create --name ren-a --chunk 64K "${M[0]}" "${M[1]}"; then
	ra=$MQS_DEV
	BUSY=("${M[0]}" "${M[1]}")
	sb0=$("$STRIPECTL" examine --export "${M[0]}" 2>&1)
	bad "rename to an invalid name" 2 "rename: NAME: name 'a/b' has the character '/'" -- \
		rename ren-a 'a/b'
	bad "rename of a missing array" 1 "mqstripe99: no such array" -- rename mqstripe99 x
	if mqs_create --name ren-b "${M[2]}"; then
		rb=$MQS_DEV
		BUSY+=("${M[2]}")
		bad "rename --force to another running array's name" 1 \
			"rename 'ren-b': the running array $rb has this name: pick another name" -- \
			rename --force ren-a ren-b
		check_stop "$rb"
		BUSY=("${M[0]}" "${M[1]}")
		bad "rename to the name a stopped array's superblock carries" 1 \
			"rename 'ren-b': already the name of array .* on .*$(blk_name "${M[2]}").*give --force" -- \
			rename ren-a ren-b
	else
		fail "create the second array"
	fi
	check_eq "rename refusals: ren-a's superblock as it was" "$sb0" \
		"$("$STRIPECTL" examine --export "${M[0]}" 2>&1)"
	check_stop "$ra"
	sb0=$("$STRIPECTL" examine --export "${M[0]}" 2>&1)
	if ra=$("$STRIPECTL" assemble --readonly "${M[0]}" "${M[1]}" 2>&1) && [ -b "$ra" ]; then
		MQS_ARRAYS+=("$ra")
		bad "rename of an array assembled --readonly" 1 \
			"assembled read-only \(--readonly\): nothing is written to its members" -- \
			rename ren-a ren-c
		check_stop "$ra"
	else
		fail "assemble --readonly ren-a" "$ra"
	fi
	BUSY=()
	check_eq "rename of a read-only array: nothing written" "$sb0" \
		"$("$STRIPECTL" examine --export "${M[0]}" 2>&1)"
else
	fail "create ren-a"
fi

# geometry refused by stripectl's option checks: usage errors
bad "chunk 3K (not a power of two)" 2 '--chunk.*(power of two)' -- create "${MQS_FORCE[@]}" --chunk 3K "${M[@]}"
bad "chunk 2K (below 4K)" 2 '--chunk.*(4K|4 KiB|4096|at least|small)' -- create "${MQS_FORCE[@]}" --chunk 2K "${M[@]}"
bad "chunk 32M (above 16M)" 2 '--chunk.*(16M|16 MiB|at most|large)' -- create "${MQS_FORCE[@]}" --chunk 32M "${M[@]}"
bad "data offset 1M+512 (not a multiple of 4K)" 2 '--data-offset' -- \
	create "${MQS_FORCE[@]}" --data-offset 1049088 "${M[@]}"
bad "name with a slash" 2 '--name' -- create "${MQS_FORCE[@]}" --name 'a/b' "${M[@]}"
bad "name '..' (no /dev/stripe/ link can have it)" 2 "--name: name '\\.\\.' cannot be a link in /dev/stripe/" -- \
	create "${MQS_FORCE[@]}" --name '..' "${M[@]}"

# a read-only member (blockdev --setro): the superblock write fails on it,
# the one written before it is put back
sb0=$("$STRIPECTL" examine --export "${M[0]}" 2>&1)
blockdev --setro "${M[1]}" || mqs_die "blockdev --setro ${M[1]}"
bad "a read-only member" 1 "$n1: writing the superblock failed: .*the device is read-only" -- \
	create "${MQS_FORCE[@]}" "${M[@]}"
blockdev --setrw "${M[1]}" || mqs_die "blockdev --setrw ${M[1]}"
check_eq "a read-only member: the first member's superblock put back" \
	"$sb0" "$("$STRIPECTL" examine --export "${M[0]}" 2>&1)"

# member smaller than data offset + one chunk: 1 MiB + 4 KiB with a 64K chunk
mqs_dm_create small "0 $(((1 << 20) / 512 + 8)) linear ${M[2]} 0" || mqs_die "dmsetup create small"
SMALL=$DM_DEV
BUSY=("${M[2]}")	# held by the dm device
bad "a member smaller than data offset + one chunk" 1 \
	"$(blk_name "$SMALL").*(too small|small|size)" -- create "${MQS_FORCE[@]}" --chunk 64K "${M[0]}" "$SMALL"
check_free "small member free again" "$SMALL"
# exactly data offset + one chunk is enough
if mqs_create --chunk 4K "$SMALL"; then
	check_eq "a member of exactly data offset + one chunk gives one chunk" 4096 "$(blk_bytes "$MQS_DEV")"
	check_stop "$MQS_DEV"
else
	fail "a member of 1 MiB + 4 KiB with a 4K chunk is accepted"
fi
mqs_dm_remove small
BUSY=()

# stripe width above 1 GiB: 65 members of 16 MiB chunks, made of dm-zero
if modprobe dm-zero 2>/dev/null || dmsetup targets | grep -q '^zero'; then
	# one dmsetup call for all 65 (one each would take a minute under TCG)
	concise=""
	names=()
	for i in $(seq 0 64); do
		concise+="mqst-z$i,,,,0 $(((64 << 20) / 512)) zero;"
		names+=("mqst-z$i")
	done
	MQS_DMS+=("${names[@]}")
	Z=()
	if dmsetup create --noudevsync --concise "${concise%;}"; then
		# their kernel names from sysfs: a dmsetup call each would take
		# half a minute under TCG
		declare -A kname=()
		for f in /sys/block/dm-*/dm/name; do
			read -r n <"$f" && f=${f%/dm/name} && kname[$n]=${f##*/}
		done
		for n in "${names[@]}"; do
			Z+=("/dev/${kname[$n]:-$(dm_kname "$n")}")
		done
		bad "65 members x 16M chunk (stripe width > 1G)" 2 '--chunk.*(1G|1 GiB|width)' -- \
			create "${MQS_FORCE[@]}" --chunk 16M "${Z[@]}"
	else
		fail "create 65 dm-zero devices"
	fi
	dmsetup remove --noudevsync "${names[@]}" >/dev/null 2>&1
	MQS_DMS=("${MQS_DMS[@]:0:${#MQS_DMS[@]}-65}")
else
	diag "dm-zero not available: stripe width case not run"
fi

# the control ABI directly
if [ -x "$IOCTL" ]; then
	mark "test_11 ioctl ABI"
	import_checks "ioctl: " "$IOCTL" abi "${M[0]}" "${M[1]}" "${M[2]}"
	arrays
	check_eq "ioctl: nothing left behind" "" "$ARRAYS"
	for m in "${M[@]:0:3}"; do
		check_free "ioctl: $m free again" "$m"
	done
	if command -v setpriv >/dev/null; then
		import_checks "ioctl: " setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$IOCTL" eperm
	fi
	check_pyd_klog "ioctl: no kernel warning" "$MARK"
else
	fail "mqs_ioctl built" "$IOCTL missing: run 'make -C selftests' on the host"
fi
mqs_finish
