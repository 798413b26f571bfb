#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--kernel K]... [--timeout SEC] [--keep]
#
# Host side of the persistence tests: for each kernel (default
# 6.1 and 6.12), three boots of tools/vm/run-vm.sh over the same NVMe
# images (6 of 320M: XFS needs 300M; sparse, kept in a temporary directory):
#   create  fresh images 0..5          test_01_create test_02_format
#                                      test_03_force test_04_cut
#                                      test_05_readonly
#   reboot  images 3,2,1,0,4,5, udev   test_11_reboot test_12_incremental
#           (every name now another    test_13_refusals test_14_udev
#           member)
#   lbs4k   images 0..3 as namespaces  test_21_lbs
#           of 4096-byte blocks
# The boots share a directory (--share) for the first boot's records.
# A test of a boot that did not run counts as failed.  Prints each
# kernel's KTAP and ends with one line "N passed, N failed, N skipped";
# exit 1 on any failure.  Console logs: selftests/persist/output/<kernel>/.
#   --timeout SEC   guest timeout per boot (default 1200; on the debug kernel
#                   it and the per-test timeout are multiplied by
#                   MQS_DEBUG_SLOWDOWN, default 3)
#   --keep          keep the images and records (path printed)
# Each test gets MQS_TIMEOUT seconds (default 600): test_04_cut, a power
# cut after every superblock write of six commands (two copies each in
# format 2), takes about 320 s beside the other CI lanes, the others
# under 100 s.

set -u
SELF=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SELF/../.." && pwd)
RUNVM=${MQS_RUNVM:-$REPO/tools/vm/run-vm.sh}
OUT=$SELF/output

kernels=()
gtimeout=1200
keep=0
usage() {
	sed -n '3,29s/^# \{0,1\}//p' "$0"
	exit "$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage 2; kernels+=("$2"); shift 2 ;;
	--kernel=*) kernels+=("${1#*=}"); shift ;;
	--timeout) [ $# -ge 2 ] || usage 2; gtimeout=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; usage 2 ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
[ -x "$RUNVM" ] || { echo "run.sh: $RUNVM not found" >&2; exit 2; }

BOOTS=(create reboot lbs4k)
declare -A TESTS
TESTS[create]="test_01_create.sh test_02_format.sh test_03_force.sh test_04_cut.sh test_05_readonly.sh"
TESTS[reboot]="test_11_reboot.sh test_12_incremental.sh test_13_refusals.sh test_14_udev.sh"
TESTS[lbs4k]="test_21_lbs.sh"

if ! make -s -C "$REPO/tools/stripectl" >/dev/null 2>"$SELF/.make.err"; then
	echo "# make -C tools/stripectl failed: $(head -c 500 "$SELF/.make.err")"
fi
# test_04_cut's shim
if ! make -s -C "$REPO/selftests" "$REPO/selftests/mqs_cutshim.so" >/dev/null 2>"$SELF/.make.err"; then
	echo "# make -C selftests mqs_cutshim.so failed: $(head -c 500 "$SELF/.make.err")"
fi
rm -f "$SELF/.make.err"

# boot K BOOT WORK: one guest, its result lines kept in OUT/K/BOOT.log
boot() {
	local k=$1 b=$2 work=$3 img=$3/img opts=() start rc
	case $b in
	create) opts=(--nvme 6 --nvme-size 320M --keep-images "$img") ;;
	reboot)
		opts=(--udev --nvme-images "$img/nvme3.img,$img/nvme2.img,$img/nvme1.img,$img/nvme0.img,$img/nvme4.img,$img/nvme5.img")
		;;
	lbs4k)
		opts=(--nvme-lbs 4096 --nvme-images "$img/nvme0.img,$img/nvme1.img,$img/nvme2.img,$img/nvme3.img")
		;;
	esac
	# the debug kernel (KASAN, lockdep, kmemleak) is several times slower
	local scale=1
	[ "$k" = debug ] && scale=${MQS_DEBUG_SLOWDOWN:-3}
	start=$(date +%s)
	# shellcheck disable=SC2086	# TESTS is a word list
	(cd "$REPO" && "$RUNVM" --kernel "$k" --cpus 2 --mem 2048 \
		--timeout "$((gtimeout * scale))" --share "$work/share" \
		--env "MQS_TIMEOUT=$((${MQS_TIMEOUT:-600} * scale))" \
		--env "MQS_PERSIST_DIR=$work/share" "${opts[@]}" -- \
		selftests/persist/run_guest.sh ${TESTS[$b]}) </dev/null \
		>"$OUT/$k/$b.log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - start))" >"$OUT/$k/$b.status"
	# a dead or stuck guest said why on its console only: show its end
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		echo "# [$k/$b] guest exit status $rc; last ${MQS_CONSOLE_TAIL:-80} console lines:"
		tr -d '\r' <"$OUT/$k/$b.log" | tail -n "${MQS_CONSOLE_TAIL:-80}" | sed "s|^|# [$k/$b]   |"
	fi
}

work=
# shellcheck disable=SC2317	# run by the traps
cleanup() {
	[ -n "$work" ] && [ $keep = 0 ] && rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_all=$(date +%s)
tp=0
tf=0
ts=0
for k in "${kernels[@]}"; do
	rm -rf "${OUT:?}/$k"
	mkdir -p "$OUT/$k"
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/mqs-persist.XXXXXX")
	mkdir -p "$work/share" "$work/img"
	kstart=$(date +%s)
	for b in "${BOOTS[@]}"; do
		# the later boots need the first one's images
		if [ "$b" != create ] && [ ! -f "$work/img/nvme5.img" ]; then
			echo "125 0" >"$OUT/$k/$b.status"
			: >"$OUT/$k/$b.log"
			continue
		fi
		boot "$k" "$b" "$work"
	done
	echo "TAP version 13"
	txt=""
	for b in "${BOOTS[@]}"; do
		read -r rc secs <"$OUT/$k/$b.status"
		txt+="$b ${secs}s (exit $rc); "
	done
	echo "# kernel $k: ${txt}$(($(date +%s) - kstart)) s in all; logs in $OUT/$k/"
	n=0
	for b in "${BOOTS[@]}"; do
		for t in ${TESTS[$b]}; do n=$((n + 1)); done
	done
	echo "1..$n"
	i=0
	for b in "${BOOTS[@]}"; do
		read -r rc secs <"$OUT/$k/$b.status"
		for t in ${TESTS[$b]}; do
			i=$((i + 1))
			line=$(tr -d '\r' <"$OUT/$k/$b.log" |
				grep -E "^(not )?ok [0-9]+ selftests: mqstripe-persist: $t( |$)" | tail -n 1)
			if [ -z "$line" ]; then
				echo "not ok $i $k: $t # no result from boot $b (guest exit $rc: 124 timeout, 125 crash or not run)"
				tf=$((tf + 1))
			elif [[ $line == "not ok"* ]]; then
				echo "not ok $i $k: $t # ${line#*# }"
				tf=$((tf + 1))
				tr -d '\r' <"$OUT/$k/$b.log" | sed -n "/^# selftests: mqstripe-persist: $t\$/,/selftests: mqstripe-persist: $t /p" |
					grep -E '^# (not ok|#)' | head -n 40
			elif [[ $line == *"# SKIP"* ]]; then
				echo "ok $i $k: $t # SKIP ${line#*# SKIP }"
				ts=$((ts + 1))
			else
				echo "ok $i $k: $t # ${line##*# }"
				tp=$((tp + 1))
			fi
		done
	done
	if [ $keep = 1 ]; then
		echo "# kept: $work"
	else
		rm -rf "$work"
	fi
	work=
done
echo "# total time $(($(date +%s) - start_all)) s"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
