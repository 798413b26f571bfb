#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--kernel K]... [--boots B,...] [-j N] [--timeout SEC] [--keep] [TEST...]
#
# Host side of the selftests: builds the C helpers (and stripectl for the
# persistence tests), boots QEMU guests with tools/vm/run-vm.sh and runs
# run_guest.sh in them, on each kernel asked for (default: 6.1 and 6.12;
# any --kernel value run-vm.sh takes, e.g. debug).
# Tests are grouped into as few boots as the drive configurations allow:
#   main:  4 vCPUs, 4 NVMe (272M: mkfs.xfs sets sunit only from 1 GiB on;
#          sparse), 512-byte blocks, 2 virtio-blk 512/4096
#   lbs4k: 4 vCPUs, 4 NVMe with 4096-byte blocks, 1 virtio-blk 512/16384,
#          4 virtio-blk 4096/4096
#   poll:  4 vCPUs, 4 NVMe with poll queues (nvme.poll_queues=2), 1
#          virtio-blk without; nvme_core.multipath=N (test_36_nvme_paths:
#          two paths of one namespace as two disks)
#   hotrm: 4 vCPUs, 4 NVMe 96M, nvme_core.io_timeout=5
#   pi:    4 vCPUs, 4 NVMe 48M, the first 3 with T10 PI (ms=8,mset=0,pi=1)
# and the persistence boots (--boots persist; the tests of persist/), three
# boots one after the other over the same NVMe images (6 of 320M: XFS
# needs 300M; sparse, in a temporary directory per kernel), which share a
# directory (MQS_PERSIST_DIR) for the first boot's records:
#   persist-create: 2 vCPUs, fresh images 0..5, kept
#   persist-reboot: 2 vCPUs, images 3,2,1,0,4,5 (every name now another
#                   member), udev
#   persist-lbs4k:  2 vCPUs, images 0..3 as namespaces of 4096-byte blocks
# A boot over the images of an earlier one that left none is not run (its
# tests fail).
# A test runs in the main boot, or in the boots its header names in a
# line "# mqs-boots: BOOT..." (test_03_limits: main lbs4k; test_31_poll:
# poll; test_16_hot_remove: hotrm, it removes a drive; test_32_integrity:
# pi; each persistence test its boot), so a new test needs no edit here.
# A header line "# mqs-needs: TEST..." names the tests whose records it
# reads (persist/test_11_reboot: persist/test_01_create): asking for the
# test runs them too, before it.
# A header line "# mqs-kernels: K..." names the kernels a test is for
# (test_21_failslab: debug, for fault injection): on another kernel it is
# counted skipped and not run; "# mqs-timeout: SEC" is its time budget in
# the guest (run_guest.sh).  The header lines: header.sh.  A header line
# that names no boot or kernel, or no number of seconds, stops run.sh
# (exit 2) before any guest boots.
# A test run in several boots counts once per kernel: failed if it failed
# anywhere, passed if it passed somewhere, else skipped.
# Prints each kernel's KTAP and ends with one line
# "N passed, N failed, N skipped"; exit 1 on any failure.
# Console logs: selftests/output/<kernel>/<boot>.log.
#   --boots B,B only these boots (default: all but the persistence boots),
#               e.g. --boots main, or --boots lbs4k,poll,hotrm,pi (make check
#               runs the two sets in its two lanes); "persist" stands for
#               the three persistence boots; a test counts only over the
#               boots run
#   -j N        run up to N guests at once (default 1; the host has few cores)
#   --timeout   guest timeout per boot in seconds (default 3600 main, 1200
#               the persistence boots, 600 the others; on the debug kernel
#               these and the per-test timeouts are multiplied by
#               MQS_DEBUG_SLOWDOWN, default 3: KASAN, lockdep and kmemleak
#               make everything several times slower)
#   --env N=V   export N=V in the guests (e.g. STRIPECTL=..., MQS_TIMEOUT=...)
#   --keep      keep the persistence boots' images and records (path printed)
#   TEST...     only these tests (test_05_fio_verify, test_05 or 05;
#               persist/test_11_reboot, persist/test_11 or persist/11), run
#               in this order within each boot; naming a persistence test
#               adds the persistence boots to the default ones

set -u
# The whole script is one compound command: bash parses it completely
# before running, so editing the file during a run cannot break the run.
{
SELF=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SELF/.." && pwd)
RUNVM=${MQS_RUNVM:-$REPO/tools/vm/run-vm.sh}
OUT=$SELF/output

kernels=()
jobs=1
boots_only=
gtimeout=
only=()
envs=()
keep=0
usage() {
	sed -n '3,/^$/s/^# \{0,1\}//p' "$0"
	exit "$1"
}
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage 2; kernels+=("$2"); shift 2 ;;
	--kernel=*) kernels+=("${1#*=}"); shift ;;
	--boots) [ $# -ge 2 ] || usage 2; boots_only=$2; shift 2 ;;
	-j) [ $# -ge 2 ] || usage 2; jobs=$2; shift 2 ;;
	--timeout) [ $# -ge 2 ] || usage 2; gtimeout=$2; shift 2 ;;
	--env) [ $# -ge 2 ] || usage 2; envs+=(--env "$2"); shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage 2 ;;
	*) only+=("$1"); shift ;;
	esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(6.1 6.12)
[ -x "$RUNVM" ] || { echo "run.sh: $RUNVM not found" >&2; exit 2; }

# The boots: name, run-vm options, time limit
BOOTS=(main lbs4k poll hotrm pi)
declare -A BOOT_OPTS BOOT_TESTS BOOT_TIMEOUT BOOT_NEEDS
BOOT_OPTS[main]="--cpus 4 --mem 3072 --nvme 4 --nvme-size 272M --virtio-blk 2:64M:512:4096"
# the main boot's own limit is only a backstop (each test has its
# timeout, run_guest.sh): in CI beside the other lane it takes 1900-2300 s
BOOT_TIMEOUT[main]=${gtimeout:-3600}
BOOT_OPTS[lbs4k]="--cpus 4 --mem 1024 --nvme 4 --nvme-size 80M --nvme-lbs 4096 --nvme-pbs 4096 --virtio-blk 1:64M:512:16384 --virtio-blk 4:64M:4096:4096"
BOOT_TIMEOUT[lbs4k]=${gtimeout:-600}
BOOT_OPTS[poll]="--cpus 4 --mem 1536 --nvme 4 --nvme-size 80M --virtio-blk 1:64M:512:512 --append nvme.poll_queues=2 --append nvme_core.multipath=N"
BOOT_TIMEOUT[poll]=${gtimeout:-600}
BOOT_OPTS[hotrm]="--cpus 4 --mem 2048 --nvme 4 --nvme-size 96M --append nvme_core.io_timeout=5"
BOOT_TIMEOUT[hotrm]=${gtimeout:-600}
BOOT_OPTS[pi]="--cpus 4 --mem 1536 --nvme 4 --nvme-size 48M --nvme-ns-opts ms=8,mset=0,pi=1;ms=8,mset=0,pi=1;ms=8,mset=0,pi=1; --env MQS_PI_BOOT=1"
BOOT_TIMEOUT[pi]=${gtimeout:-600}
# The persistence boots run one after the other, in this order, in one
# job per kernel, over the images and records of @WORK@, a directory of
# that kernel's chain (BOOT_NEEDS: a file of an earlier boot without which
# the boot is not run).  Not booted again after an int3 oops: a second
# create boot would make fresh images, a second reboot boot would find
# the array the first one changed.
PERSIST_BOOTS=(persist-create persist-reboot persist-lbs4k)
persist_opts="--cpus 2 --mem 2048 --share @WORK@/share --env MQS_PERSIST_DIR=@WORK@/share"
BOOT_OPTS[persist-create]="$persist_opts --nvme 6 --nvme-size 320M --keep-images @WORK@/img"
BOOT_OPTS[persist-reboot]="$persist_opts --udev --nvme-images @WORK@/img/nvme3.img,@WORK@/img/nvme2.img,@WORK@/img/nvme1.img,@WORK@/img/nvme0.img,@WORK@/img/nvme4.img,@WORK@/img/nvme5.img"
BOOT_NEEDS[persist-reboot]=@WORK@/img/nvme5.img
BOOT_OPTS[persist-lbs4k]="$persist_opts --nvme-lbs 4096 --nvme-images @WORK@/img/nvme0.img,@WORK@/img/nvme1.img,@WORK@/img/nvme2.img,@WORK@/img/nvme3.img"
BOOT_NEEDS[persist-lbs4k]=@WORK@/img/nvme3.img
for b in "${PERSIST_BOOTS[@]}"; do BOOT_TIMEOUT[$b]=${gtimeout:-1200}; done
ALL_BOOTS=("${BOOTS[@]}" "${PERSIST_BOOTS[@]}")
is_persist() { [[ " ${PERSIST_BOOTS[*]} " == *" $1 "* ]]; }

# shellcheck source=SCRIPTDIR/header.sh
. "$SELF/header.sh"
# All tests (persistence tests as persist/test_NN_name), the tests of
# each boot, and the tests each test needs
ALL=()
declare -A NEEDS
for b in "${ALL_BOOTS[@]}"; do BOOT_TESTS[$b]=; done
for f in "$SELF"/test_[0-9][0-9]_*.sh "$SELF"/persist/test_[0-9][0-9]_*.sh; do
	[ -e "$f" ] || continue
	t=${f#"$SELF"/}
	t=${t%.sh}
	ALL+=("$t")
	NEEDS[$t]=$(test_header "$f" needs "")
	e=$(header_error "$f")
	[ -z "$e" ] || { echo "run.sh: $t.sh: $e" >&2; exit 2; }
	read -r -a tb <<<"$(test_header "$f" boots main)"
	[ ${#tb[@]} -gt 0 ] || { echo "run.sh: $t.sh: its '# mqs-boots:' line names no boot: name one or more of ${ALL_BOOTS[*]}, or drop the line (main)" >&2; exit 2; }
	for b in "${tb[@]}"; do
		[ -n "${BOOT_OPTS[$b]:-}" ] || { echo "run.sh: $t.sh: '# mqs-boots:' names no boot '$b': name one or more of ${ALL_BOOTS[*]}" >&2; exit 2; }
		BOOT_TESTS[$b]+="$t "
	done
done

# is_arg TEST ARG: whether TEST (test_05_fio_verify,
# persist/test_11_reboot) is what the TEST argument ARG (test_05_fio_verify,
# test_05, 05, with or without .sh; persist/ before them) names
is_arg() {
	local o=${2%.sh} dir=
	[[ $o == */* ]] && dir=${o%/*}/ && o=${o##*/}
	[[ $o =~ ^[0-9]+$ ]] && o=$(printf 'test_%02d' "$((10#$o))")
	o=$dir$o
	[[ $1 == "$o" || $1 == "$o"_* ]]
}
# the tests each argument needs (# mqs-needs:) go before it
if [ ${#only[@]} -gt 0 ]; then
	args=()
	for o in "${only[@]}"; do
		for t in "${ALL[@]}"; do
			# shellcheck disable=SC2206	# a word list
			is_arg "$t" "$o" && args+=(${NEEDS[$t]})
		done
		args+=("$o")
	done
	only=("${args[@]}")
fi
# the tests asked for
selected() {
	local o
	[ ${#only[@]} -eq 0 ] && return 0
	for o in "${only[@]}"; do
		is_arg "$1" "$o" && return 0
	done
	return 1
}
if [ -n "$boots_only" ]; then
	IFS=', ' read -r -a want <<<"$boots_only"
	BOOTS=()
	for b in "${want[@]}"; do
		if [ "$b" = persist ]; then
			BOOTS+=("${PERSIST_BOOTS[@]}")
			continue
		fi
		[ -n "${BOOT_OPTS[$b]:-}" ] || { echo "run.sh: --boots: no boot '$b' (${ALL_BOOTS[*]}, persist)" >&2; exit 2; }
		BOOTS+=("$b")
	done
else
	for o in "${only[@]}"; do
		[[ $o == persist/* ]] && { BOOTS=("${ALL_BOOTS[@]}"); break; }
	done
fi
# in_boots TEST: whether a boot run has TEST
in_boots() {
	local b
	for b in "${BOOTS[@]}"; do
		[[ " ${BOOT_TESTS[$b]} " == *" $1 "* ]] && return 0
	done
	return 1
}
TESTS=()
for t in "${ALL[@]}"; do selected "$t" && in_boots "$t" && TESTS+=("$t"); done
[ ${#TESTS[@]} -gt 0 ] || { echo "run.sh: no test matches: ${only[*]}" >&2; exit 2; }

# the C helpers (test_11, persist/test_04_cut's shim) are built here, on
# the host, and for the persistence tests stripectl
mk=("$SELF all")
for b in "${BOOTS[@]}"; do
	is_persist "$b" && { mk+=("$REPO/tools/stripectl all"); break; }
done
for d in "${mk[@]}"; do
	# shellcheck disable=SC2086	# directory and target
	if ! make -s -C $d >/dev/null 2>"$OUT.make.err"; then
		echo "# make -C ${d#"$REPO"/} failed: $(head -c 500 "$OUT.make.err")"
	fi
done
rm -f "$OUT.make.err"

# emulator_int3 LOG: whether the guest whose console is LOG died of an
# "Oops: int3" with no mqstripe function in its report.  Under
# multi-threaded TCG, x86's live code patching (text_poke_bp(): int3 on
# the site, the new bytes, then the first byte; a static key or tracepoint
# turned on, e.g. when a test enables a trace event) now and then leaves
# another vCPU executing the int3 after the patch completed: an oops in
# __schedule or sched_clock_cpu, "Fatal exception in interrupt"; in task
# context it kills the task (taint D) and the guest fails the test it was
# in and runs none after it.  That is the emulator's fault, not the
# test's: BUG() and WARN() are ud2, and the module patches no code.  The
# tests it took then run in a new boot (up to MQS_INT3_RETRIES more,
# default 2); any other crash fails them.
emulator_int3() {
	tr -d '\r' <"$1" | awk '
		/Oops: int3/ { inoops = 1; int3 = 1 }
		inoops && /\[mqstripe\]/ && !/Modules linked in/ { ours = 1 }
		inoops && /---\[ end trace/ { inoops = 0 }
		END { exit !(int3 && !ours) }'
}

# run_boot KERNEL BOOT [WORK]: one guest (more after an emulator_int3
# crash, but for a persistence boot), over the images and records of WORK
# (@WORK@ in its options); its console goes to OUT/KERNEL/BOOT.log, its
# result lines to stdout prefixed with the kernel and boot
run_boot() {
	local k=$1 b=$2 work=${3:-} t tests=() log rc start
	# in the order of the TEST arguments when given (make check runs the
	# debug kernel's most valuable tests first), else in name order
	local o
	local -A taken=()
	for o in "${only[@]:-*}"; do
		for t in ${BOOT_TESTS[$b]}; do
			[ "$o" = "*" ] || is_arg "$t" "$o" || continue
			[ -z "${taken[$t]:-}" ] || continue
			for_kernel "$SELF/$t.sh" "$k" || continue
			taken[$t]=1
			tests+=("$t.sh")
		done
	done
	[ ${#tests[@]} -gt 0 ] || return 0
	mkdir -p "$OUT/$k"
	log=$OUT/$k/$b.log
	local opts=${BOOT_OPTS[$b]//@WORK@/$work} needs=${BOOT_NEEDS[$b]:-} retries=${MQS_INT3_RETRIES:-2}
	if [ -n "$needs" ] && [ ! -e "${needs//@WORK@/$work}" ]; then
		: >"$log"
		echo "125 0" >"$OUT/$k/$b.status"
		echo "# [$k/$b] not run: no ${needs//@WORK@\//} from an earlier boot"
		return 0
	fi
	is_persist "$b" && retries=0
	local scale=1 btimeout=${BOOT_TIMEOUT[$b]}
	if [ "$k" = debug ]; then
		scale=${MQS_DEBUG_SLOWDOWN:-3}
		[ -n "$gtimeout" ] || btimeout=$((btimeout * scale))
	fi
	start=$(date +%s)
	: >"$log"
	local boots=0 left=()
	while :; do
		boots=$((boots + 1))
		# shellcheck disable=SC2086	# BOOT_OPTS is a word list
		(cd "$REPO" && "$RUNVM" --kernel "$k" $opts --timeout "$btimeout" \
			--env MQS_TIMEOUT_SCALE="$scale" "${envs[@]}" -- \
			selftests/run_guest.sh "${tests[@]}") </dev/null >"$log.boot" 2>&1
		rc=$?
		cat "$log.boot" >>"$log"
		[ "$boots" -le "$retries" ] &&
			emulator_int3 "$log.boot" || break
		# the tests the oops took: from the first one with no result
		# (the guest died in it) or that the oops failed (it killed a
		# task: the guest fails that test and runs none after it) on
		left=()
		for t in "${tests[@]}"; do
			if [ ${#left[@]} -eq 0 ]; then
				line=$(tr -d '\r' <"$log.boot" |
					grep -E "^(not )?ok [0-9]+ selftests: mqstripe: $t( |\$)" | tail -n 1)
				[ -z "$line" ] || [[ $line == "not ok "*"kernel oops (taint D)"* ]] ||
					continue
			fi
			left+=("$t")
		done
		[ ${#left[@]} -gt 0 ] || break
		echo "# [$k/$b] an int3 oops outside mqstripe (the emulator's text-patching fault, see emulator_int3): booting again for the ${#left[@]} tests it took, from ${left[0]%.sh}; the oops:"
		tr -d '\r' <"$log.boot" | sed -n '/Oops: int3/,/end trace/p' | head -n 40 |
			sed "s|^|# [$k/$b]   |"
		tests=("${left[@]}")
	done
	rm -f "$log.boot"
	echo "$rc $(($(date +%s) - start))" >"$OUT/$k/$b.status"
	tr -d '\r' <"$log" | grep -E '^(not )?ok [0-9]+ selftests: mqstripe: ' |
		sed "s|^|# [$k/$b] |"
	echo "# [$k/$b] guest exit status $rc after $(($(date +%s) - start)) s ($boots boots)"
	# A guest that died or timed out printed its reason (panic, oops,
	# hung task) on the console only: show the end of it here, where CI
	# output is all there is to read.
	if [ "$rc" = 124 ] || [ "$rc" = 125 ]; then
		echo "# [$k/$b] last ${MQS_CONSOLE_TAIL:-80} console lines:"
		tr -d '\r' <"$log" | tail -n "${MQS_CONSOLE_TAIL:-80}" | sed "s|^|# [$k/$b]   |"
	elif tr -d '\r' <"$log" | grep -qE '^not ok [0-9]+ selftests: mqstripe: '; then
		# a test failed with a kernel report (oops, warning, KASAN...):
		# its first lines, as the console has them
		tr -d '\r' <"$log" | grep -nE '\bBUG\b|Oops|UBSAN:|KASAN|KFENCE|WARNING:|Call Trace|hung_task' |
			head -n 1 | cut -d: -f1 | while read -r n; do
			echo "# [$k/$b] the console from the first kernel report on (${MQS_CONSOLE_TAIL:-80} lines):"
			tr -d '\r' <"$log" | tail -n "+$n" | head -n "${MQS_CONSOLE_TAIL:-80}" |
				sed "s|^|# [$k/$b]   |"
		done
	fi
}

# run_persist KERNEL: the persistence boots run, one after the other, over
# the images and records of a temporary directory
run_persist() {
	local k=$1 b work
	work=$(mktemp -d "${TMPDIR:-/var/tmp}/mqs-persist.XXXXXX") || return
	# shellcheck disable=SC2064	# this job's directory
	[ $keep = 1 ] || trap "rm -rf '$work'" EXIT
	mkdir -p "$work/share" "$work/img"
	for b in "${BOOTS[@]}"; do
		is_persist "$b" && run_boot "$k" "$b" "$work"
	done
	[ $keep = 0 ] || echo "# [$k] kept: $work"
}

start_all=$(date +%s)
pids=()
for k in "${kernels[@]}"; do
	# only the boots run here: make check runs the persistence boots of a
	# kernel while another lane runs its other boots
	for b in "${BOOTS[@]}"; do rm -f "$OUT/$k/$b.log" "$OUT/$k/$b.status"; done
	persist=0
	for b in "${BOOTS[@]}"; do
		if is_persist "$b"; then
			[ $persist = 0 ] || continue
			persist=1
			run_persist "$k" &
		else
			run_boot "$k" "$b" &
		fi
		pids+=($!)
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	done
done
wait "${pids[@]}"

# aggregate
tp=0
tf=0
ts=0
for k in "${kernels[@]}"; do
	declare -A res=() why=()
	extra=()
	boots_txt=""
	# not for this kernel (# mqs-kernels:): skipped, not booted
	for t in "${TESTS[@]}"; do
		for_kernel "$SELF/$t.sh" "$k" && continue
		res[$t]=skip
		why[$t]="not for kernel $k: its header names the kernels it is for ('# mqs-kernels: $(test_header "$SELF/$t.sh" kernels "")')"
	done
	for b in "${BOOTS[@]}"; do
		log=$OUT/$k/$b.log
		[ -f "$OUT/$k/$b.status" ] || continue
		read -r rc secs <"$OUT/$k/$b.status"
		boots_txt+="$b ${secs}s (exit $rc); "
		for t in ${BOOT_TESTS[$b]}; do
			selected "$t" || continue
			for_kernel "$SELF/$t.sh" "$k" || continue
			line=$(tr -d '\r' <"$log" | grep -E "^(not )?ok [0-9]+ selftests: mqstripe: $t\.sh( |$)" | tail -n 1)
			if [ -z "$line" ]; then
				r=fail
				w="no result from boot $b (guest exit $rc: 124 timeout, 125 crash)"
			elif [[ $line == "not ok"* ]]; then
				r=fail
				w="$b: ${line#*# }"
			elif [[ $line == *"# SKIP"* ]]; then
				r=skip
				w="$b: ${line#*# SKIP }"
			else
				r=pass
				w=""
			fi
			prev=${res[$t]:-}
			if [ "$r" = fail ] || [ -z "$prev" ] || { [ "$prev" = skip ] && [ "$r" = pass ]; }; then
				if [ "$prev" != fail ]; then
					res[$t]=$r
					why[$t]=$w
				fi
			fi
		done
		# a kernel with kmemleak: the guest's whole-run scan after rmmod
		# is one more result per boot
		if tr -d '\r' <"$log" | grep -q '^# kmemleak: a scan after the tests'; then
			t="kmemleak_final_scan ($b boot)"
			extra+=("$t")
			line=$(tr -d '\r' <"$log" | grep -E "^(not )?ok [0-9]+ selftests: mqstripe: kmemleak_final_scan( |$)" | tail -n 1)
			if [ -z "$line" ]; then
				res[$t]=fail
				why[$t]="no result from boot $b (guest exit $rc: 124 timeout, 125 crash)"
			elif [[ $line == "not ok"* ]]; then
				res[$t]=fail
				why[$t]="${line#*# }"
			else
				res[$t]=pass
			fi
		fi
	done
	echo "TAP version 13"
	echo "# kernel $k: ${boots_txt}logs in $OUT/$k/"
	echo "1..$((${#TESTS[@]} + ${#extra[@]}))"
	i=0
	for t in "${TESTS[@]}" "${extra[@]}"; do
		i=$((i + 1))
		case ${res[$t]:-fail} in
		pass) echo "ok $i $k: $t"; tp=$((tp + 1)) ;;
		skip) echo "ok $i $k: $t # SKIP ${why[$t]}"; ts=$((ts + 1)) ;;
		*) echo "not ok $i $k: $t # ${why[$t]:-not run}"; tf=$((tf + 1)) ;;
		esac
	done
	unset res why extra
done
echo "# total time $(($(date +%s) - start_all)) s"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
exit
}
