#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the mqstripe selftests.  Sourced by every test_NN_*.sh
# and by run_guest.sh.  The tests write to block devices: they run only in
# the test guest (tools/vm/run-vm.sh sets MQS_GUEST=1), never on a host.
#
# Output: each test prints its own checks as KTAP lines ("ok N desc",
# "not ok N desc", diagnostics as "# ...") and the plan at the end;
# run_guest.sh indents that output and prints one line per test.
# Exit codes follow kselftest: 0 pass, 1 fail, 4 skip.

# shellcheck disable=SC2034,SC2317	# used by the sourcing scripts; called indirectly

MQS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MQS_REPO=$(cd "$MQS_DIR/.." && pwd)
KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

STRIPECTL=${STRIPECTL:-$MQS_REPO/tools/stripectl/stripectl}
MQS_KVER=${MQS_KVER:-$(uname -r)}
MQS_MODULE=${MQS_MODULE:-$MQS_REPO/build/$MQS_KVER/mqstripe.ko}
MQS_CONTROL=/dev/mqstripe-control
if [ -x /usr/bin/python3 ]; then
	PYTHON=${PYTHON:-/usr/bin/python3}	# not a pyenv shim: fast start
else
	PYTHON=${PYTHON:-python3}
fi
MQS_DEFAULT_DATA_OFFSET=$((1 << 20))
MQS_DEFAULT_CHUNK=$((512 << 10))
# Ceiling of max_hw_sectors_kb documented by the module (docs/IO_PATH.md,
# "Queue limits"); override with MQS_MAX_HW_CEILING_KB when the documented
# value changes.
if [ -z "${MQS_MAX_HW_CEILING_KB:-}" ] && [ -r "$MQS_REPO/docs/IO_PATH.md" ]; then
	MQS_MAX_HW_CEILING_KB=$(grep -m1 '^| .max_hw_sectors_kb. |' "$MQS_REPO/docs/IO_PATH.md" |
		sed -n 's/.*at most \([0-9][0-9]*\).*/\1/p')
fi
MQS_MAX_HW_CEILING_KB=${MQS_MAX_HW_CEILING_KB:-32768}

# ---------------------------------------------------------------- KTAP
ktap_header() { echo "TAP version 13"; }
ktap_plan() { echo "1..$1"; }
ktap_ok() { echo "ok $1 $2"; }
ktap_not_ok() { echo "not ok $1 $2"; }
ktap_skip() { echo "ok $1 $2 # SKIP $3"; }
diag() { local l; while IFS= read -r l; do echo "# $l"; done <<<"$*"; }

# ---------------------------------------------------------- checks
MQS_NCHECK=0
MQS_NFAIL=0
_mqs_self=${0##*/}
MQS_TEST=${MQS_TEST:-${_mqs_self%.sh}}

# MQS_TIMING=1: each check line also shows the seconds since the test began
_t() { [ "${MQS_TIMING:-0}" = 1 ] && echo " [${SECONDS}s]"; }

pass() {
	MQS_NCHECK=$((MQS_NCHECK + 1))
	echo "ok $MQS_NCHECK $1$(_t)"
}

# fail DESC [DIAGNOSTIC...]
fail() {
	MQS_NCHECK=$((MQS_NCHECK + 1))
	MQS_NFAIL=$((MQS_NFAIL + 1))
	echo "not ok $MQS_NCHECK $1$(_t)"
	shift
	[ $# -gt 0 ] && diag "$*"
	return 0
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: '$2'" "actual:   '$3'"
	fi
}

_numcmp() {
	case $2 in
	-eq) [ "$1" -eq "$3" ] ;;
	-ne) [ "$1" -ne "$3" ] ;;
	-ge) [ "$1" -ge "$3" ] ;;
	-le) [ "$1" -le "$3" ] ;;
	-gt) [ "$1" -gt "$3" ] ;;
	-lt) [ "$1" -lt "$3" ] ;;
	*) return 2 ;;
	esac
}

# check_num OP DESC EXPECTED ACTUAL (OP: -eq -ge -le -gt -lt -ne)
check_num() {
	local op=$1 desc=$2 exp=$3 act=$4
	if [[ ! $act =~ ^-?[0-9]+$ ]]; then
		fail "$desc" "expected a number $op $exp, actual: '$act'"
	elif _numcmp "$act" "$op" "$exp"; then
		pass "$desc"
	else
		fail "$desc" "expected: $op $exp" "actual:   $act"
	fi
}
check_ge() { check_num -ge "$@"; }
check_le() { check_num -le "$@"; }

# _mqs_grep_i ERE TEXT: some line of TEXT matches ERE, case-insensitive
# (grep -qiE without a process: bash's =~ is the same regcomp ERE)
_mqs_grep_i() {
	local line had=0 rc=1
	shopt -q nocasematch && had=1
	shopt -s nocasematch
	while IFS= read -r line; do
		[[ $line =~ $1 ]] && { rc=0; break; }
	done <<<"$2"
	[ $had = 1 ] || shopt -u nocasematch
	return $rc
}

# check_match DESC ERE TEXT (case-insensitive)
check_match() {
	if _mqs_grep_i "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "expected to match /$2/i" "actual: '$3'"
	fi
}

# check_cmd DESC CMD... : CMD must exit 0
check_cmd() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$desc"
	else
		fail "$desc" "command: $*" "exit status $rc, expected 0" "$out"
	fi
	return $rc
}

# check_fails DESC RC ERE CMD... : CMD must exit with RC ("any" = non-zero)
# and print exactly one line on stderr matching ERE (case-insensitive).
# The stderr text is left in MQS_ERR.
MQS_ERR=
check_fails() {
	local desc=$1 exp_rc=$2 re=$3 rc nl ok=1 why=()
	shift 3
	"$@" >"$MQS_TMP/cf.out" 2>"$MQS_TMP/cf.err"
	rc=$?
	# no cat or grep: a process start costs 0.1-0.5 s under TCG, and
	# test_11 makes this check dozens of times
	local -a lines
	mapfile -t lines <"$MQS_TMP/cf.err"
	nl=${#lines[@]}
	printf -v MQS_ERR '%s\n' "${lines[@]}"
	while [[ $MQS_ERR == *$'\n' ]]; do MQS_ERR=${MQS_ERR%$'\n'}; done
	if [ "$exp_rc" = any ]; then
		[ $rc -ne 0 ] || { ok=0; why+=("exit status 0, expected non-zero"); }
	elif [ $rc -ne "$exp_rc" ]; then
		ok=0
		why+=("exit status $rc, expected $exp_rc")
	fi
	if ! _mqs_grep_i "$re" "$MQS_ERR"; then
		ok=0
		why+=("stderr does not match /$re/i")
	fi
	if [ "$nl" -ne 1 ]; then
		ok=0
		why+=("stderr has $nl lines, expected exactly one")
	fi
	if [ $ok -eq 1 ]; then
		pass "$desc"
	else
		fail "$desc" "command: $*" "${why[@]}" "stderr: $MQS_ERR" \
			"stdout: $(cat "$MQS_TMP/cf.out")"
	fi
}

# Finish the test: print the plan, exit 0 or 1.
mqs_finish() {
	echo "1..$MQS_NCHECK"
	if [ "$MQS_NFAIL" -gt 0 ]; then
		diag "$MQS_TEST: $MQS_NFAIL of $MQS_NCHECK checks failed"
		exit $KSFT_FAIL
	fi
	exit $KSFT_PASS
}

# A check failed such that going on makes no sense.
mqs_die() {
	fail "$@"
	mqs_finish
}

# A real prerequisite is missing: print why and exit 4.
mqs_skip() {
	echo "ok 1 $MQS_TEST # SKIP $*"
	echo "1..1"
	exit $KSFT_SKIP
}

mqs_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || mqs_skip "command '$c' not found"
	done
}

# ------------------------------------------------- kernel log marks
# kmsg.py reads /dev/kmsg by sequence number, so a mark survives
# ring-buffer wrap-around better than a dmesg text search.
klog_mark() { "$PYTHON" -S "$MQS_DIR/kmsg.py" mark "mqstripe-selftest: $*"; }
klog_since() { "$PYTHON" -S "$MQS_DIR/kmsg.py" since "$1"; }
# klog_scan SEQ: print bad lines (WARNING, BUG, ...) since SEQ, exit 1 if any
klog_scan() { "$PYTHON" -S "$MQS_DIR/kmsg.py" scan "$1"; }

# One kmsg.py for many requests (kmsg.py serve), for a test that marks,
# scans and checks claims in a loop: a python start costs about 0.5 s
# under TCG.  pyd_start once; then pyd REQUEST ARG...: the answer in
# PYD_OUT (lines), the request's status as the return value (2: it
# failed, or the server is gone).
PYD_OUT=
pyd_start() {
	coproc MQS_PYD { "$PYTHON" -S -u "$MQS_DIR/kmsg.py" serve; }
	MQS_BG+=("$MQS_PYD_PID")
}
pyd() {
	local line req
	PYD_OUT=
	printf -v req '%s\t' "$@"
	if [ -z "${MQS_PYD[1]:-}" ] ||
		! printf '%s\n' "${req%$'\t'}" >&"${MQS_PYD[1]}"; then
		PYD_OUT="kmsg.py serve is not running"
		return 2
	fi
	while IFS= read -r line <&"${MQS_PYD[0]}"; do
		[[ $line == $'\x1e'* ]] && return "${line#$'\x1e'}"
		PYD_OUT+=$line$'\n'
	done
	PYD_OUT+="kmsg.py serve ended"
	return 2
}

# check_klog DESC SEQ: a check that no bad line appeared since SEQ.
check_klog() {
	local out
	if out=$(klog_scan "$2"); then
		pass "$1"
	else
		fail "$1" "kernel log since the mark:" "$out"
	fi
}

# ----------------------------------------------------- block helpers
blk_name() {
	local b=${1##*/}
	if [ ! -L "$1" ] && [ -e "/sys/class/block/$b" ]; then
		echo "$b"	# no fork: forks are slow under TCG
	else
		b=$(readlink -f "$1")
		echo "${b##*/}"
	fi
}
blk_sys() { echo "/sys/class/block/$(blk_name "$1")"; }
qattr() { local v; read -r v 2>/dev/null <"$(blk_sys "$1")/queue/$2" && echo "$v"; }
blk_bytes() { blockdev --getsize64 "$1"; }
blk_devno() { local d; read -r d <"$(blk_sys "$1")/dev" && echo "$d"; }

# Arrays that exist (mqstripeN names), and their /dev nodes.
mqs_arrays() {
	local d
	for d in /sys/block/mqstripe*; do
		[ -e "$d" ] && echo "${d##*/}"
	done
	return 0
}
mqs_nodes() {
	local d
	for d in /dev/mqstripe[0-9]*; do
		[ -e "$d" ] && echo "$d"
	done
	return 0
}

# The NVMe namespaces of the guest, in numeric order.
nvme_disks() {
	local d
	for d in /sys/block/nvme*n1; do
		[ -e "$d" ] && echo "/dev/${d##*/}"
	done | sort -V
}
virtio_disks() {
	local d
	for d in /sys/block/vd*; do
		[ -e "$d" ] && echo "/dev/${d##*/}"
	done | sort -V
}

# Exclusive open: succeeds only when nothing (mount, array, dm) claims DEV.
blk_claimable() {
	"$PYTHON" -S -c 'import os,sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
os.close(fd)' "$1" 2>/dev/null
}

# blk_busy DEV...: print the devices that an O_EXCL open refuses (claimed)
blk_busy() {
	"$PYTHON" -S -c 'import os,sys
for d in sys.argv[1:]:
    try:
        os.close(os.open(d, os.O_RDONLY | os.O_EXCL))
    except OSError:
        print(d)' "$@"
}

# udevd runs from boot or not at all (run-vm.sh --udev): asked once
MQS_UDEVD=
mqs_settle() {
	if [ -z "$MQS_UDEVD" ]; then
		MQS_UDEVD=no
		pidof systemd-udevd udevd >/dev/null 2>&1 && MQS_UDEVD=yes
	fi
	if [ "$MQS_UDEVD" = yes ]; then
		udevadm settle --timeout=30 >/dev/null 2>&1
	fi
	return 0
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# -------------------------------------------------- module handling
mqs_module_loaded() { [ -d /sys/module/mqstripe ]; }

mqs_load_module() {
	if mqs_module_loaded; then
		return 0
	fi
	if [ ! -f "$MQS_MODULE" ]; then
		echo "# module not built: $MQS_MODULE" >&2
		return 1
	fi
	insmod "$MQS_MODULE" || return 1
	local i
	for i in $(seq 50); do
		[ -c "$MQS_CONTROL" ] && return 0
		sleep 0.1
	done
	echo "# $MQS_CONTROL did not appear after insmod" >&2
	return 1
}

mqs_unload_module() {
	mqs_module_loaded || return 0
	rmmod mqstripe
}

# ------------------------------------------ cleanup registry + trap
MQS_ARRAYS=()	# /dev/mqstripeN created by this test
MQS_DMS=()	# dm names
MQS_LOOPS=()	# /dev/loopN
MQS_MOUNTS=()	# mount points
MQS_RESTORE=()	# "file<TAB>value" to write back
MQS_BG=()	# background pids
MQS_TRACE=	# tracefs dir whose events to switch off
MQS_NULLBS=()	# configfs null_blk directories
MQS_TMP=

# hugepages_set N: ask for N huge pages (vm.nr_hugepages); the count the
# kernel granted is in MQS_HP_GOT.  The count before the first call comes
# back with hugepages_restore, or at cleanup.
MQS_HP=/proc/sys/vm/nr_hugepages
MQS_HP0=
MQS_HP_GOT=
hugepages_set() {
	[ -n "$MQS_HP0" ] || MQS_HP0=$(cat "$MQS_HP")
	echo "$1" >"$MQS_HP" 2>/dev/null
	MQS_HP_GOT=$(cat "$MQS_HP")
}
hugepages_restore() {
	[ -z "$MQS_HP0" ] || echo "$MQS_HP0" >"$MQS_HP"
	MQS_HP0=
}

mqs_cleanup() {
	local i p dev name
	set +e
	hugepages_restore
	for p in "${MQS_BG[@]}"; do
		kill "$p" 2>/dev/null
	done
	if [ -n "$MQS_TRACE" ]; then
		echo 0 >"$MQS_TRACE/tracing_on" 2>/dev/null
		echo 0 >"$MQS_TRACE/events/enable" 2>/dev/null
		echo >"$MQS_TRACE/events/block/block_rq_issue/filter" 2>/dev/null
		echo >"$MQS_TRACE/trace" 2>/dev/null
	fi
	for ((i = ${#MQS_MOUNTS[@]} - 1; i >= 0; i--)); do
		p=${MQS_MOUNTS[i]}
		mountpoint -q "$p" && { umount "$p" || umount -l "$p"; }
	done
	for ((i = ${#MQS_ARRAYS[@]} - 1; i >= 0; i--)); do
		dev=${MQS_ARRAYS[i]}
		[ -e "/sys/block/${dev##*/}" ] || continue
		timeout 60 "$STRIPECTL" stop "$dev" >/dev/null 2>&1 ||
			echo "# cleanup: stripectl stop $dev failed"
	done
	for ((i = ${#MQS_DMS[@]} - 1; i >= 0; i--)); do
		name=${MQS_DMS[i]}
		dmsetup info "$name" >/dev/null 2>&1 || continue
		dmsetup remove --retry "$name" >/dev/null 2>&1 ||
			echo "# cleanup: dmsetup remove $name failed"
	done
	for dev in "${MQS_LOOPS[@]}"; do
		losetup -d "$dev" 2>/dev/null
	done
	for name in "${MQS_NULLBS[@]}"; do
		echo 0 >"$name/power" 2>/dev/null
		rmdir "$name" 2>/dev/null || echo "# cleanup: rmdir $name failed"
	done
	[ ${#MQS_NULLBS[@]} -gt 0 ] && rmmod null_blk 2>/dev/null
	mqs_sysfs_restore
	[ -n "$MQS_TMP" ] && rm -rf "$MQS_TMP"
}

# mqs_init: every test calls this first.
mqs_init() {
	if [ "${MQS_GUEST:-0}" != 1 ]; then
		mqs_skip "not in a test guest (MQS_GUEST!=1): these tests overwrite block devices; use selftests/run.sh"
	fi
	[ "$(id -u)" -eq 0 ] || mqs_skip "must run as root"
	MQS_TMP=$(mktemp -d "/tmp/mqs-$MQS_TEST.XXXXXX")
	trap mqs_cleanup EXIT
	trap 'exit 1' INT TERM
	[ -c /dev/kmsg ] || mqs_die "/dev/kmsg missing"
	[ -x "$STRIPECTL" ] || mqs_die "stripectl not built: $STRIPECTL"
	mqs_load_module || mqs_die "module loads" "insmod $MQS_MODULE failed"
	# stripectl with superblocks refuses members that carry one (from an
	# earlier test) unless given --force: mqs_create passes it
	MQS_FORCE=()
	if "$STRIPECTL" create --help 2>&1 | grep -q -- '--force'; then
		MQS_FORCE=(--force)
	fi
	diag "kernel $MQS_KVER, test $MQS_TEST"
}

# ----------------------------------------------- arrays, dm, loop, sysfs
MQS_DEV=	# last array made by mqs_create
MQS_DISK=	# its name, mqstripeN
MQS_SYS=	# /sys/block/mqstripeN

_mqs_set_dev() {
	MQS_DEV=$1
	MQS_DISK=${1##*/}
	MQS_SYS=/sys/block/$MQS_DISK
}

# mqs_create [stripectl create options] MEMBER...: sets MQS_DEV.
# Returns 1 (after printing why) if stripectl fails or prints no device.
# Passes --force where stripectl has it (members reused between tests).
MQS_FORCE=()
mqs_create() {
	local out rc
	out=$("$STRIPECTL" create "${MQS_FORCE[@]}" "$@" 2>"$MQS_TMP/create.err")
	rc=$?
	if [ $rc -ne 0 ]; then
		diag "stripectl create $* failed with status $rc: $(cat "$MQS_TMP/create.err")"
		return 1
	fi
	if [[ ! $out =~ ^/dev/mqstripe[0-9]+$ ]]; then
		diag "stripectl create $* printed '$out', expected /dev/mqstripeN"
		[[ $out =~ (/dev/mqstripe[0-9]+) ]] && MQS_ARRAYS+=("${BASH_REMATCH[1]}")
		return 1
	fi
	MQS_ARRAYS+=("$out")
	_mqs_set_dev "$out"
	mqs_settle
	if [ ! -b "$out" ]; then
		diag "stripectl create printed $out but it is not a block device"
		return 1
	fi
	return 0
}

# Create or die.
mqs_must_create() {
	mqs_create "$@" || mqs_die "stripectl create $*"
}

# mqs_stop DEV: stripectl stop, forget DEV on success.
mqs_stop() {
	local dev=$1 i
	timeout 120 "$STRIPECTL" stop "$dev" || return 1
	for i in "${!MQS_ARRAYS[@]}"; do
		[ "${MQS_ARRAYS[i]}" = "$dev" ] && unset 'MQS_ARRAYS[i]'
	done
	MQS_ARRAYS=("${MQS_ARRAYS[@]}")
	return 0
}

# Stop and check that nothing is left.
check_stop() {
	local dev=$1 name
	name=${dev##*/}
	# not check_cmd: mqs_stop must run in this shell to update MQS_ARRAYS
	if mqs_stop "$dev" >"$MQS_TMP/stop.out" 2>&1; then
		pass "stripectl stop $dev"
	else
		fail "stripectl stop $dev" "$(cat "$MQS_TMP/stop.out")"
	fi
	if [ -e "/sys/block/$name" ] || [ -e "$dev" ]; then
		fail "$dev gone after stop" "still present: $(ls -d "/sys/block/$name" "$dev" 2>&1)"
	else
		pass "$dev gone after stop"
	fi
}

# mqs_dm_slice NAME DISK I SIZE_MIB...: mqs_dm_create NAME+I, a dm-linear
# map of the I-th SIZE_MIB over DISK, after the ones before it: slices of
# one disk as members of any size (sets DM_DEV as mqs_dm_create does)
mqs_dm_slice() {
	local name=$1 disk=$2 i=$3 start=0 k
	shift 3
	for ((k = 0; k < i; k++)); do
		start=$((start + $1))
		shift
	done
	mqs_dm_create "$name$i" "0 $(($1 << 11)) linear $disk $((start << 11))"
}

# mqs_dm_create NAME TABLE: sets DM_DEV to /dev/dm-N (works without udev)
# and DM_MAP to /dev/mapper/mqst-NAME, the path stripectl's messages and
# status name the map by (DM_DEV when that node is missing: libdevmapper
# makes it without udev, udev's rules with it).
DM_DEV=
DM_MAP=
mqs_dm_create() {
	local name="mqst-$1" table=$2 kname
	dmsetup create "$name" --noudevsync --table "$table" || return 1
	MQS_DMS+=("$name")
	kname=$(dm_kname "$name")
	DM_DEV=/dev/$kname
	local i
	for ((i = 0; i < 50; i++)); do
		[ -b "$DM_DEV" ] && break
		sleep 0.1
	done
	[ -b "$DM_DEV" ] || return 1
	DM_MAP=/dev/mapper/$name
	[ -b "$DM_MAP" ] || mqs_settle
	[ -b "$DM_MAP" ] || DM_MAP=$DM_DEV
	return 0
}

# dm_kname NAME: the kernel name (dm-N) of the dm device NAME, from sysfs
# (no process per lookup: each costs under TCG), else from dmsetup
dm_kname() {
	local f n
	for f in /sys/block/dm-*/dm/name; do
		[ -e "$f" ] || continue
		read -r n <"$f" 2>/dev/null || continue
		if [ "$n" = "$1" ]; then
			f=${f%/dm/name}
			echo "${f##*/}"
			return 0
		fi
	done
	dmsetup info -c --noheadings -o blkdevname "$1" | tr -d ' '
}

mqs_dm_remove() {
	local name="mqst-$1" i
	dmsetup remove --noudevsync --retry "$name" || return 1
	for i in "${!MQS_DMS[@]}"; do
		[ "${MQS_DMS[i]}" = "$name" ] && unset 'MQS_DMS[i]'
	done
	MQS_DMS=("${MQS_DMS[@]}")
}

# mqs_nullb_create NAME ATTR=VALUE...: a configfs null_blk device with
# these attributes (size in MiB, memory_backed, hw_queue_depth, ...), then
# power=1.  Sets NULLB_DEV: /dev/NAME on 6.12 (the configfs directory names
# the disk), /dev/nullbINDEX before.  mqs_cleanup powers it off and removes
# it.  Returns 1 (after a diagnostic) on failure.
NULLB_DEV=
mqs_nullb_create() {
	local name=$1 cfg=/sys/kernel/config/nullb d kv i idx
	shift
	[ -d "$cfg" ] || modprobe null_blk nr_devices=0 2>/dev/null
	[ -d /sys/kernel/config/nullb ] ||
		mount -t configfs none /sys/kernel/config 2>/dev/null
	[ -d "$cfg" ] || { diag "null_blk configfs missing ($cfg)"; return 1; }
	d=$cfg/$name
	mkdir "$d" || return 1
	MQS_NULLBS+=("$d")
	for kv in "$@" power=1; do
		if ! echo "${kv#*=}" >"$d/${kv%%=*}"; then
			diag "null_blk $name: cannot set ${kv%%=*}=${kv#*=}"
			return 1
		fi
	done
	idx=$(cat "$d/index")
	for i in $(seq 50); do
		for NULLB_DEV in "/dev/$name" "/dev/nullb$idx"; do
			[ -b "$NULLB_DEV" ] && [ -e "/sys/class/block/${NULLB_DEV#/dev/}" ] &&
				return 0
		done
		sleep 0.1
	done
	diag "null_blk $name (index $idx): no /dev/$name or /dev/nullb$idx"
	return 1
}

# mqs_loop_create FILE: sets LOOP_DEV.
LOOP_DEV=
mqs_loop_create() {
	modprobe loop 2>/dev/null
	LOOP_DEV=$(losetup --find --show "$@") || return 1
	MQS_LOOPS+=("$LOOP_DEV")
}

mqs_mount() {
	mkdir -p "$2"
	mount "$1" "$2" || return 1
	MQS_MOUNTS+=("$2")
}

# mqs_sysfs_set FILE VALUE: write VALUE, restore the old one at exit.
mqs_sysfs_set() {
	local old
	old=$(cat "$1") || return 1
	# write_cache reads "write back"/"write through", accepts the same
	MQS_RESTORE+=("$1	$old")
	echo "$2" >"$1"
}

# Write back every value mqs_sysfs_set changed, newest first.
mqs_sysfs_restore() {
	local i entry f v
	for ((i = ${#MQS_RESTORE[@]} - 1; i >= 0; i--)); do
		entry=${MQS_RESTORE[i]}
		f=${entry%%	*}
		v=${entry#*	}
		echo "$v" >"$f" 2>/dev/null ||
			echo "# could not restore $f to '$v'"
	done
	MQS_RESTORE=()
}

# Bytes of each member that hold data, rounded down to whole chunks.
# mqs_expected_capacity CHUNK DATA_OFFSET MEMBER...
mqs_expected_capacity() {
	local chunk=$1 off=$2 min="" s m
	shift 2
	for m in "$@"; do
		s=$(blk_bytes "$m")
		if [ -z "$min" ] || [ "$s" -lt "$min" ]; then min=$s; fi
	done
	echo $(( $# * ((min - off) / chunk) * chunk ))
}

# Major.minor of the running kernel as a number: 601, 612.
kver_num() {
	local v=${MQS_KVER%%-*}
	local maj=${v%%.*} rest=${v#*.}
	local min=${rest%%.*}
	echo $((maj * 100 + min))
}

# tracefs mount point (mounting it if needed), with the recording of task
# names and tgids off: with it on, enabling an event hooks sched_switch,
# which patches the code of __schedule() on every CPU while they run it;
# under multi-threaded TCG such patching now and then kills the guest with
# an int3 oops (see emulator_int3 in run.sh).  The tests read no task name.
tracefs_dir() {
	local d
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$d/trace" ] && break
		d=
	done
	if [ -z "$d" ]; then
		if mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
			[ -e /sys/kernel/tracing/trace ]; then
			d=/sys/kernel/tracing
		else
			mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
			[ -e /sys/kernel/debug/tracing/trace ] || return 1
			d=/sys/kernel/debug/tracing
		fi
	fi
	echo 0 >"$d/options/record-cmd" 2>/dev/null
	echo 0 >"$d/options/record-tgid" 2>/dev/null
	echo "$d"
}

# trace_block EVENT...: trace these block events from now on (the trace
# emptied first); sets MQS_TRACE, the tracefs directory (switched off at
# cleanup)
trace_block() {
	local t e
	t=$(tracefs_dir) || return 1
	MQS_TRACE=$t
	echo 0 >"$t/tracing_on"
	echo >"$t/trace"
	for e in "$@"; do
		echo 1 >"$t/events/block/$e/enable" || return 1
	done
	echo 1 >"$t/tracing_on"
}

# Field N (1-based) of /sys/block/DEV/stat.
blk_stat() {
	local -a fields
	read -r -a fields <"$(blk_sys "$1")/stat"
	echo "${fields[$(($2 - 1))]:-}"
}

# array_ios DEV: completed reads + writes of an array (or any disk)
array_ios() { echo $(($(blk_stat "$1" 1) + $(blk_stat "$1" 5))); }

# blk_inflight DEV: requests of DEV in flight (reads + writes)
blk_inflight() {
	local r w
	read -r r w <"$(blk_sys "$1")/inflight"
	echo $((r + w))
}

# wait_inflight SYSDIR SECS [reads]: wait up to SECS seconds until the
# disk SYSDIR (/sys/block/NAME) has a request in flight (with "reads": a
# read); returns 1 if none came
wait_inflight() {
	local t0=$SECONDS r w
	while [ $((SECONDS - t0)) -lt "$2" ]; do
		read -r r w <"$1/inflight"
		[ "${3:-}" = reads ] && w=0
		[ $((r + w)) -ge 1 ] && return 0
		sleep 0.2
	done
	return 1
}

# Run the pattern tool (pattern.py) with PYTHON.
pattern() { "$PYTHON" -S "$MQS_DIR/pattern.py" "$@"; }

# steps DESC PATTERN-ARGS...: a step of the next steps_run, which runs
# them in order in one pattern.py (batch), each a check
STEPS=()
steps() {
	local line
	printf -v line '%s\t' "$@"
	STEPS+=("${line%$'\t'}")
}
steps_run() {
	printf '%s\n' "${STEPS[@]}" >"$MQS_TMP/steps"
	STEPS=()
	import_checks "" pattern batch <"$MQS_TMP/steps"
}

# write_tree DIR SUMS DIRS FILES STEP ODD BIG [NAME=BYTES...]: a tree of
# files of many sizes, random data: DIRS directories of FILES files (file
# j of directory i of ((i * FILES + j) * STEP KiB + ODD * j + 1) bytes, one
# of a third of that plus one in sub/), a file of BIG MiB and each file
# NAME of BYTES; their checksums in SUMS.
# The files are written by one python process: a head per file (50 for
# test_06's tree) cost 10-25 s under TCG.
write_tree() {
	local dir=$1 sums=$2
	"$PYTHON" -S - "$@" <<'PYEOF'
import os, sys
d, _, dirs, files, step, odd, big = sys.argv[1:8]
dirs, files, step, odd, big = (int(x) for x in (dirs, files, step, odd, big))

def put(path, n):
    with open(path, "wb") as f:
        while n > 0:
            k = min(n, 1 << 20)
            f.write(os.urandom(k))
            n -= k

for i in range(dirs):
    os.makedirs("%s/d%d/sub" % (d, i), exist_ok=True)
    for j in range(files):
        sz = (i * files + j) * step * 1024 + odd * j + 1
        put("%s/d%d/f%d" % (d, i, j), sz)
        put("%s/d%d/sub/g%d" % (d, i, j), sz // 3 + 1)
put("%s/big" % d, big << 20)
for f in sys.argv[8:]:
    name, size = f.split("=", 1)
    put("%s/%s" % (d, name), int(size))
PYEOF
	(cd "$dir" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$sums"
}

# import_checks PREFIX CMD...: run a checker that prints "ok N desc" /
# "not ok N desc" lines (limits.py, mqs_ioctl) and count them as checks of
# this test, with PREFIX before each description.
import_checks() {
	local prefix=$1 line rc nfail=0 n=0
	shift
	"$@" >"$MQS_TMP/ic.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		if [[ $line =~ ^ok\ [0-9]+\ (.*)$ ]]; then
			pass "$prefix${BASH_REMATCH[1]}"
			n=$((n + 1))
		elif [[ $line =~ ^not\ ok\ [0-9]+\ (.*)$ ]]; then
			fail "$prefix${BASH_REMATCH[1]}"
			n=$((n + 1))
			nfail=$((nfail + 1))
		elif [[ $line =~ ^1\.\.[0-9]+$ ]]; then
			:
		elif [[ $line == '#'* ]]; then
			echo "$line"
		else
			echo "# $line"
		fi
	done <"$MQS_TMP/ic.out"
	if [ $rc -ne 0 ] && [ $nfail -eq 0 ]; then
		fail "${prefix}checker exited with status $rc after $n checks" "command: $*"
	fi
	return $rc
}

# jget FILE PATH...: values of a JSON document, space-separated on one
# line, PATH like "chunk_bytes" or "members.1.read_errors" (list indexes
# are numbers).  The first component is looked up anywhere in the document
# (the output may wrap it); a missing value prints as "?".
jget() {
	"$PYTHON" -S - "$@" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
def find(o, key):
    if isinstance(o, dict):
        if key in o:
            return o
        for v in o.values():
            r = find(v, key)
            if r is not None:
                return r
    elif isinstance(o, list):
        for v in o:
            r = find(v, key)
            if r is not None:
                return r
    return None
out = []
for arg in sys.argv[2:]:
    path = arg.split(".")
    o = find(doc, path[0])
    try:
        for p in path:
            o = o[int(p)] if isinstance(o, list) else o[p]
        out.append(json.dumps(o) if isinstance(o, (dict, list)) else str(o))
    except (KeyError, IndexError, ValueError, TypeError):
        out.append("?")
print(" ".join(out))
PYEOF
}
