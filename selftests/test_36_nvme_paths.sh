#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: poll
#
# Two paths of one NVMe namespace without native multipath.  Runs in the
# "poll" boot, whose kernel command line has nvme_core.multipath=N (the
# parameter is read-only at runtime): one nvmet target (fabric_lib.sh)
# with 2 namespaces, connected through two ports of its subsystem, shows
# each namespace as two block devices, path A and path B, with one wwid.
# 1. create over two paths of one namespace is refused before anything is
#    written, naming both devices and the identity: no array, no member
#    claimed, no superblock on any path.
# 2. An array made over path A of each namespace, stopped, with path B
#    present: assemble naming all four paths and assemble --scan refuse,
#    naming two paths of one namespace and the identity, and start
#    nothing; assemble --incremental of A0, then B0 (refused the same
#    way), then A1 starts the array over A0 and A1, one path per slot;
#    --incremental of B1, another path of a running member, is refused
#    the same way (not taken for a copy) and changes nothing.
# 3. A dm-multipath map over the two paths of each namespace (dmsetup and
#    the kernel's multipath target, as multipathd would set it up): the
#    array, stopped, comes back with assemble --scan over the two maps,
#    never over their paths, --incremental of a path does nothing, and
#    create over a path is refused, naming the map that holds it.  A
#    kernel without CONFIG_DM_MULTIPATH skips this part (a debug kernel
#    built before tools/vm/debug.config had it).
# Catches: two paths of one namespace taken as two members or two slots
# (one slot's data on another slot's disk), an identity stripectl cannot
# read from real devices (sysfs layout, wwid format), a path taken
# instead of the multipath map over it.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fabric_lib.sh"
mqs_init
trap fab_cleanup EXIT

fab_require
# nvme_core is loaded now (nvme_tcp needs it); a kernel without
# CONFIG_NVME_MULTIPATH has no parameter and no native multipath
mp=N
[ -e /sys/module/nvme_core/parameters/multipath ] &&
	read -r mp </sys/module/nvme_core/parameters/multipath
[ "$mp" = N ] ||
	mqs_die "nvme_core.multipath is N in this boot" \
		"it is '$mp': the boot's kernel command line needs nvme_core.multipath=N (selftests/run.sh BOOT_OPTS)"
export MQSTRIPE_RUN_DIR=$MQS_TMP/run
mkdir -p "$MQSTRIPE_RUN_DIR"

# ------------------------------------------------------------ test bed
if fab_setup 1 2 32M >"$MQS_TMP/fab.out" 2>&1 &&
	fab_second_path 1 11 >>"$MQS_TMP/fab.out" 2>&1; then
	pass "an nvmet target with 2 namespaces, connected through ports 1 and 11"
else
	mqs_die "an nvmet target with 2 namespaces, connected through ports 1 and 11" \
		"$(cat "$MQS_TMP/fab.out")"
fi
for ((i = 0; i < 60; i++)); do
	mapfile -t B < <(fab_path_disks 1 11)
	[ ${#B[@]} -ge 2 ] && break
	sleep 0.5
done
mapfile -t A < <(fab_path_disks 1 1)
mqs_settle
diag "path A: ${A[*]}, path B: ${B[*]}"
if [ ${#A[@]} != 2 ] || [ ${#B[@]} != 2 ]; then
	mqs_die "each path shows the 2 namespaces" "path A: ${A[*]}, path B: ${B[*]}"
fi
W=()
for i in 0 1; do
	read -r a <"$(blk_sys "${A[i]}")/wwid"
	read -r b <"$(blk_sys "${B[i]}")/wwid"
	W+=("$a")
	diag "namespace $((i + 1)): wwid $a"
	check_eq "namespace $((i + 1)): ${A[i]} and ${B[i]} report one wwid" "$a" "$b"
done
if [ -n "${W[0]}" ] && [ "${W[0]}" != "${W[1]}" ]; then
	pass "the two namespaces have wwids, not the same"
else
	fail "the two namespaces have wwids, not the same" "wwids: '${W[0]}' '${W[1]}'"
fi

# the 8 KiB of superblock copies at 4096 of DEV, as hex, read directly
sb_area() { dd if="$1" bs=4096 skip=1 count=2 iflag=direct status=none | od -An -v -tx1 | tr -d ' \n'; }
# "ok" when none of DEV... carries anything at the superblock copies
sb_clean() {
	local d
	for d in "$@"; do
		[ -z "$(sb_area "$d" | tr -d 0)" ] || { echo "$d has data at 4096..12287"; return; }
	done
	echo ok
}
# the members of the running array DEV by slot
members() {
	"$STRIPECTL" status --json "$1" >"$MQS_TMP/st.json" 2>&1
	jget "$MQS_TMP/st.json" members.0.device members.1.device
}
# started DESC MEMBERS CMD...: CMD starts an array (printing its node)
# whose members by slot are MEMBERS; it becomes MQS_DEV
started() {
	local desc=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>"$MQS_TMP/start.err")
	rc=$?
	check_match "$desc: the array starts" '^0 /dev/mqstripe[0-9]+$' "$rc $out"
	[[ $out =~ ^/dev/mqstripe[0-9]+$ ]] ||
		mqs_die "$desc: the array started" "$(cat "$MQS_TMP/start.err")"
	MQS_ARRAYS+=("$out")
	_mqs_set_dev "$out"
	check_eq "$desc: members $want" "$want" "$(members "$MQS_DEV")"
}
# one_disk I: what refuses two paths of namespace I, naming both (either
# order) and its identity
one_disk() {
	echo "^stripectl: (${A[$1]} and ${B[$1]}|${B[$1]} and ${A[$1]}) are one disk: both report the identity ${W[$1]}; .*use the multipath device"
}

# -------------------------------------------------------------- create
check_fails "create over two paths of namespace 1: refused, naming both and the identity" \
	1 "$(one_disk 0)" "$STRIPECTL" create --force --chunk 64K "${A[0]}" "${A[1]}" "${B[0]}"
check_eq "... no array" "" "$(mqs_arrays)"
check_eq "... no path claimed" "" "$(blk_busy "${A[@]}" "${B[@]}")"
check_eq "... no superblock written" ok "$(sb_clean "${A[@]}" "${B[@]}")"

# ------------------------------------------------------------ assemble
mqs_must_create --chunk 64K "${A[0]}" "${A[1]}"
U=$("$STRIPECTL" examine --export "${A[0]}" | sed -n 's/^MQSTRIPE_ARRAY_UUID=//p')
check_match "the array's superblock shows through path B" \
	"^MQSTRIPE_ARRAY_UUID=$U$" "$("$STRIPECTL" examine --export "${B[0]}" 2>&1)"
check_stop "$MQS_DEV"
check_fails "assemble naming all four paths: refused, naming two paths of one namespace" \
	1 "$(one_disk 0)|$(one_disk 1)" "$STRIPECTL" assemble "${A[@]}" "${B[@]}"
check_eq "... nothing started" "" "$(mqs_arrays)"
check_fails "assemble --scan: refused, naming two paths of one namespace" \
	1 "$(one_disk 0)|$(one_disk 1)" "$STRIPECTL" assemble --scan --uuid "$U"
check_eq "... nothing started" "" "$(mqs_arrays)"

check_cmd "--incremental ${A[0]}: recorded" "$STRIPECTL" assemble --incremental "${A[0]}"
check_fails "--incremental ${B[0]}, its other path: refused, naming both and the identity" \
	1 "$(one_disk 0)" "$STRIPECTL" assemble --incremental "${B[0]}"
started "--incremental ${A[1]}" "${A[*]}" \
	"$STRIPECTL" assemble --incremental "${A[1]}"
check_fails "--incremental ${B[1]}, another path of a running member: refused, naming both and the identity" \
	1 "$(one_disk 1)" "$STRIPECTL" assemble --incremental "${B[1]}"
check_eq "... the array unchanged" "${A[*]}" "$(members "$MQS_DEV")"
check_stop "$MQS_DEV"

# -------------------------------------------------- dm-multipath maps
# a kernel without the target (CONFIG_DM_MULTIPATH) skips this part; one
# with it whose modprobe fails fails it
if ! modinfo -n dm_multipath >/dev/null 2>&1; then
	MQS_NCHECK=$((MQS_NCHECK + 1))
	ktap_skip "$MQS_NCHECK" "the dm-multipath maps" \
		"kernel $(uname -r) has no module dm_multipath (CONFIG_DM_MULTIPATH)"
elif modprobe dm_multipath 2>"$MQS_TMP/dm.err" && modprobe dm_round_robin 2>>"$MQS_TMP/dm.err"; then
	sectors=$(blockdev --getsz "${A[0]}")
	MP=()
	for i in 0 1; do
		if mqs_dm_create "mp$i" "0 $sectors multipath 0 0 1 1 round-robin 0 2 1 ${A[i]} 1 ${B[i]} 1"; then
			MP+=("$DM_DEV")
		fi
	done
	[ ${#MP[@]} = 2 ] || mqs_die "a dm-multipath map over the two paths of each namespace"
	diag "maps: ${MP[*]}"
	started "assemble --scan with the maps up" "${MP[*]}" \
		"$STRIPECTL" assemble --scan --uuid "$U"
	check_cmd "--incremental ${B[0]}, a path under a map: nothing to do" \
		"$STRIPECTL" assemble --incremental "${B[0]}"
	check_eq "... the array unchanged" "${MP[*]}" "$(members "$MQS_DEV")"
	check_stop "$MQS_DEV"
	check_fails "create over ${B[1]}, a path under a map: refused, naming the map" \
		1 "^stripectl: ${B[1]}: .*held by ${MP[1]#/dev/}" \
		"$STRIPECTL" create --force "${B[1]}"
	check_eq "... no array" "" "$(mqs_arrays)"
	for i in 0 1; do
		mqs_dm_remove "mp$i"
	done
else
	fail "the kernel's dm-multipath target (dm_multipath, dm_round_robin)" "$(cat "$MQS_TMP/dm.err")"
fi

mqs_finish
