#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mqs-boots: persist-create
# mqs-timeout: 600
#
# A power cut after every superblock write (each copy of format 2 is a
# write of its own) of create, stop, assemble (also 'assemble --grow' over
# members that grew, and one that converts format 1 to 2), zero-superblock
# and rename of the running array, on real members: two dm maps over NVMe
# namespaces.  mqs_cutshim.so stops stripectl right after its K-th
# superblock write and the fsync() that makes it durable (a write not
# followed by one fails); then every member drops its writes (dm-flakey
# drop_writes: the power is gone), stripectl is killed, and the members
# come back as they were (dm-linear).  After each cut, plain assemble does
# what docs/FORMAT.md ("Updates") says for that command and write: it
# gives the array back with the data written through it before the
# command (stop, assemble, create once every member has a copy,
# zero-superblock before a member lost both; rename with the new name),
# or refuses with the documented message, starting nothing (create's
# earlier writes, zero-superblock's later ones).  K runs from 1 until the
# command ends without a cut.
# Catches: a write order that a cut leaves unrecoverable (members refused,
# or needing --force), an array started on a half-written set, data of the
# array lost by an update, a superblock write not made durable.
# Its time budget (mqs-timeout) is 600 s: it takes 230-320 s beside the
# other lane of make check, more than settings' 300 s allow for.

# shellcheck source=SCRIPTDIR/../lib_persist.sh
. "$(dirname "$0")/../lib_persist.sh"
persist_init
mqs_require_cmd dmsetup

SHIM=$MQS_DIR/mqs_cutshim.so
[ -r "$SHIM" ] || mqs_die "mqs_cutshim.so built" "$SHIM missing: run 'make -C selftests' on the host"
modprobe dm-flakey 2>/dev/null
mapfile -t NV < <(nvme_disks_by_pci)
[ ${#NV[@]} -ge 6 ] || mqs_skip "needs 6 NVMe namespaces, found ${#NV[@]}"
# images 4 and 5 (test_03's): the array of images 0..3 is the later boots'
B=("${NV[4]}" "${NV[5]}")
SMALL=$((256 << 11))	# member sizes in sectors: 256 MiB, grown: 288 MiB
BIG=$((288 << 11))
size=$SMALL
C=()
for i in 0 1; do
	dd if=/dev/zero of="${B[i]}" bs=1M count=2 oflag=direct status=none
	mqs_dm_create "cut$i" "0 $size linear ${B[i]} 0" ||
		mqs_die "dm-linear map $i over ${B[i]}"
	C+=("$DM_DEV")
done
diag "members: ${C[*]} over ${B[*]}"
ARRAY=pcut
RENAMED=$ARRAY-renamed	# rename's new name
SEED=7
DATA=4M

# members MODE: every member's table: linear (power on) or a flakey map
# that drops every write and passes reads (the power is gone: nothing
# more reaches the drives)
members() {
	local i t
	for i in 0 1; do
		case $1 in
		linear) t="0 $size linear ${B[i]} 0" ;;
		cut) t="0 $size flakey ${B[i]} 0 0 3600 1 drop_writes" ;;
		esac
		dmsetup reload "mqst-cut$i" --table "$t" &&
			dmsetup resume --noudevsync "mqst-cut$i" || return 1
	done
}

# the running array named $ARRAY (or $RENAMED), or nothing
running() {
	local d
	for d in /sys/block/mqstripe*; do
		case $(cat "$d/mqstripe/name" 2>/dev/null) in
		"$ARRAY" | "$RENAMED") echo "/dev/${d##*/}" && return 0 ;;
		esac
	done
	return 1
}

quiet() { "$STRIPECTL" "$@" >/dev/null 2>&1; }
stop_all() {
	local a
	a=$(running) && quiet stop "$a"
}

# setups: the members before the command
fresh() {
	stop_all
	quiet zero-superblock "${C[@]}"
	if [ "$size" != "$SMALL" ]; then
		size=$SMALL
		members linear
	fi
}
# The setups of the cuts: the members' superblock areas (their first 12
# KiB: both copies of either format; the data starts at 1 MiB, and no
# command here writes data) of the stopped array, saved once after a
# create, a fill through it and a stop, and put back before each cut (a
# create, a fill and a stop before every cut cost seconds under TCG)
SB_AREA=12K
save() {	# save NAME: the members' superblock areas as they are now
	local i
	for i in 0 1; do
		dd if="${C[i]}" of="$MQS_TMP/sb-$1.$i" bs=$SB_AREA count=1 \
			iflag=direct status=none || return 1
	done
}
put() {	# put NAME: no array running, the members at their first size
	local i
	stop_all
	if [ "$size" != "$SMALL" ]; then
		size=$SMALL
		members linear || { reason="setup: members back at their size"; return 1; }
	fi
	for i in 0 1; do
		dd if="$MQS_TMP/sb-$1.$i" of="${C[i]}" bs=$SB_AREA count=1 \
			oflag=direct status=none ||
			{ reason="setup: superblock area of ${C[i]} put back"; return 1; }
	done
}
# make FORMAT: the stopped array of that format, data written through it
make_stopped() {
	local a
	fresh
	a=$("$STRIPECTL" create --metadata "$1" --name "$ARRAY" --chunk 64K "${C[@]}" 2>"$MQS_TMP/setup.err") ||
		mqs_die "create --metadata $1" "$(cat "$MQS_TMP/setup.err")"
	pattern fill "$a" 0 "$DATA" "$SEED" >/dev/null ||
		mqs_die "data written through $a"
	quiet stop "$ARRAY" || mqs_die "stop of the format-$1 array"
	save "format$1" || mqs_die "superblock areas saved"
}
stopped() { put format2; }
made() {	# the array running
	put format2 || return 1
	"$STRIPECTL" assemble "${C[@]}" >/dev/null 2>"$MQS_TMP/setup.err" ||
		{ reason="setup: assemble failed: $(cat "$MQS_TMP/setup.err")"; return 1; }
}
grown() {	# stopped, then the members grow by 32 MiB each
	stopped || return 1
	size=$BIG
	members linear || { reason="setup: members grown"; return 1; }
}
stopped1() { put format1; }	# a format-1 array, stopped

# run_cut K ARGS...: stripectl ARGS, cut after its K-th superblock write;
# sets rc (137: cut)
run_cut() {
	local k=$1 pid st i
	shift
	rm -f "$MQS_TMP/where"
	MQS_CUT_AFTER=$k MQS_CUT_REPORT=$MQS_TMP/where LD_PRELOAD=$SHIM \
		"$STRIPECTL" "$@" >"$MQS_TMP/out" 2>"$MQS_TMP/err" &
	pid=$!
	for i in $(seq 1200); do
		st=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null)
		case $st in T | Z | '') break ;; esac
		sleep 0.05
	done
	if [ "$st" != T ]; then
		wait $pid
		rc=$?
		return
	fi
	members cut
	kill -KILL $pid
	wait $pid 2>/dev/null
	stop_all	# an array still running goes with the power: no write lands
	members linear
	for i in "${C[@]}"; do
		blockdev --flushbufs "$i"
	done
	rc=137
}

# recoveries (docs/FORMAT.md, "Updates", the table), after the cut of
# write k: set ok=1 when the outcome is right, else reason=...
# plain assemble gives the array back with its data (members at most one
# event apart: no --force needed)
comes_back() {
	local a
	"$STRIPECTL" assemble "${C[@]}" >"$MQS_TMP/rout" 2>"$MQS_TMP/rerr"
	if ! a=$(running); then
		reason="assemble failed: $(head -c 300 "$MQS_TMP/rerr")"
	elif ! pattern check "$a" 0 "$DATA" "$SEED" >"$MQS_TMP/pat" 2>&1; then
		reason="assembled, but the data differ: $(head -c 300 "$MQS_TMP/pat")"
	elif [ "$size" = "$BIG" ] && [ "$(blk_bytes "$a")" -le $(((SMALL << 9) * 2)) ]; then
		reason="assembled over grown members, but not grown: $(blk_bytes "$a") bytes"
	else
		ok=1
	fi
}
# refused as documented (a member without a superblock, or a slot
# missing), nothing started
refused() {
	if "$STRIPECTL" assemble "${C[@]}" >"$MQS_TMP/rout" 2>"$MQS_TMP/rerr"; then
		reason="started, expected a refusal: $(cat "$MQS_TMP/rout")"
	elif ! grep -qE "no mqstripe superblock: not a member|is missing: found" "$MQS_TMP/rerr"; then
		reason="refused, but not as documented: $(head -c 300 "$MQS_TMP/rerr")"
	elif running >/dev/null; then
		reason="refused, but an array runs"
	else
		ok=1
	fi
}
# create cut after write k of 2N (each member: the copy at 8192, then the
# one at 4096): refused while the last member has no copy (k < 2N - 1),
# started from then on
created() {
	local a
	if [ "$k" -lt $((2 * ${#C[@]} - 1)) ]; then
		refused
	elif "$STRIPECTL" assemble "${C[@]}" >"$MQS_TMP/rout" 2>"$MQS_TMP/rerr" &&
		a=$(running); then
		ok=1
	else
		reason="every superblock written, but assemble failed: $(head -c 300 "$MQS_TMP/rerr")"
	fi
}

# zero-superblock cut after write k (each member: the copy at 8192, then
# the one at 4096): the array comes back while the first member keeps a
# copy (k = 1), refused from then on
zeroed() {
	if [ "$k" -lt 2 ]; then
		comes_back
	else
		refused
	fi
}
# rename of the running array cut after write k (each member: the copy
# not in use, then the other): the member written is the newest from the
# first write on, so the array comes back with the new name, which the
# assembly writes on every member
renamed() {
	local a m names=
	comes_back
	[ "$ok" = 1 ] || return
	a=$(running)
	for m in "${C[@]}"; do
		names+="$("$STRIPECTL" examine --export "$m" | sed -n 's/^MQSTRIPE_NAME=//p') "
	done
	if [ "$(cat "/sys/block/${a#/dev/}/mqstripe/name")" != "$RENAMED" ]; then
		ok=0
		reason="came back as '$(cat "/sys/block/${a#/dev/}/mqstripe/name")', not $RENAMED"
	elif [ "$names" != "$RENAMED $RENAMED " ]; then
		ok=0
		reason="the members' names after the assembly: $names"
	fi
}
# cut_each DESC SETUP RECOVERY ARGS...: for K = 1, 2, ...: SETUP, then
# stripectl ARGS cut after write K, then RECOVERY judges; until ARGS end
# without a cut
cut_each() {
	local desc=$1 setup=$2 recover=$3 k bad=() ncut=0
	shift 3
	for k in $(seq 1 20); do
		reason=
		if ! $setup; then
			bad+=("before write $k: $reason")
			break
		fi
		run_cut "$k" "$@"
		[ "$rc" = 137 ] || break
		ncut=$((ncut + 1))
		ok=0
		where=$(cat "$MQS_TMP/where" 2>/dev/null)
		if [ "$where" != fsync ]; then
			reason="write $k was not followed by an fsync() of its member (the shim stopped stripectl at '$where')"
		else
			$recover
		fi
		[ "$ok" = 1 ] || bad+=("after write $k: $reason")
	done
	if [ "$rc" = 0 ] && [ "$ncut" -gt 0 ] && [ ${#bad[@]} -eq 0 ]; then
		pass "$desc: a cut after each of its $ncut superblock writes recovered or refused as documented"
	else
		fail "$desc: a cut after each superblock write (cut $ncut times, last exit $rc: $(head -c 200 "$MQS_TMP/err"))" \
			"$(printf '%s\n' "${bad[@]}")"
	fi
	stop_all
}

mark=$(klog_mark "persist power cuts")
make_stopped 1
make_stopped 2
cut_each "create" fresh created create --name "$ARRAY" --chunk 64K "${C[@]}"
cut_each "stop" made comes_back stop $ARRAY
cut_each "assemble" stopped comes_back assemble "${C[@]}"
cut_each "assemble --grow growing the array" grown comes_back assemble --grow "${C[@]}"
cut_each "zero-superblock" stopped zeroed zero-superblock "${C[@]}"
cut_each "assemble converting format 1 to 2" stopped1 comes_back assemble --metadata 2 "${C[@]}"
cut_each "rename of the running array" made renamed rename "$ARRAY" "$RENAMED"
fresh
check_no_arrays "no array left"
check_klog "no kernel warning" "$mark"
mqs_finish
