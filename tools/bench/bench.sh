#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: mqstripe against md raid0, dm-stripe, the members in parallel
# (JBOD) and one member, in QEMU guests (tools/vm/run-vm.sh), one boot per
# member setup; then tools/bench/report.py writes results.json, report.md
# and the plots.  Run by "make bench" (see tools/bench/README.md).
#
# Environment:
#   QUICK=1          quick mode (1 run per figure, short runs, fewer points)
#   KVER=6.12        guest kernel (6.1, 6.12, a full release, debug)
#   BENCH_SETUPS     member setups to run, default "a b c d" (d: CPU cost
#                    in guest time, always single-threaded TCG with icount;
#                    e, nvme-tcp members over veth, only when named)
#   BENCH_CPUS       guest vCPUs (default 2, the host's cores)
#   BENCH_MEM        guest memory in MiB (default 4096)
#   BENCH_OUT        result directory (default bench-results/<timestamp>)
#   MQS_ACCEL        tcg (default) | kvm | auto, as for run-vm.sh
#   BENCH_CLOCKSOURCE  the guest's clocksource (under TCG default tsc, as
#                    on real servers and as run-vm.sh gives it, with the
#                    host's TSC rate; hpet costs an emulated MMIO read per
#                    clock read, 21 % of setup a's samples; a miscalibrated
#                    TSC is caught by the guest's clock check, which boots
#                    again, see guest.py)
#   PROFILE=1        instead of the plan: perf profiles of the array systems
#                    (setup d: and JBOD) on the points of benchlib.PROFILE,
#                    into OUT/profile/; under icount (setup d) perf's
#                    cpu-clock runs on the guest clock, so the samples
#                    count instructions
#   MQS_RUNVM        run-vm.sh to use (a stand-in in the host tests)
# Exit status: 0 when every setup ran and the report was written (targets
# MISSED do not fail it), 1 otherwise.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1

profile=${PROFILE:-0}
case $profile in '' | 0 | no | false) profile=0 ;; *) profile=1 ;; esac
quick=${QUICK:-0}
case $quick in '' | 0 | no | false) quick=0 ;; *) quick=1 ;; esac
kver=${KVER:-6.12}
setups=${BENCH_SETUPS:-a b c d}
cpus=${BENCH_CPUS:-2}
mem=${BENCH_MEM:-4096}
accel=${MQS_ACCEL:-tcg}
clocksource=${BENCH_CLOCKSOURCE:-}
[ -z "$clocksource" ] && [ "$accel" = tcg ] && clocksource=tsc
out=${BENCH_OUT:-bench-results/$(date +%Y%m%d-%H%M%S)}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
# a stand-in for run-vm.sh: tools/tests/test_bench_retry.sh
runvm=${MQS_RUNVM:-tools/vm/run-vm.sh}

mkdir -p "$out/raw" || exit 1
out=$(cd "$out" && pwd)
t0=$(date +%s)

say() { printf 'bench: %s\n' "$*"; }
fmt() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
# the end of a guest's console, where only "bench:" lines are shown
console_tail() { tail -n 40 "$1" 2>/dev/null | sed 's/^/bench: | /'; }

# known_crash CONSOLE: when the guest's kernel died of the crash that
# Debian's 6.12 under TCG shows with setup b's null_blk members (a double
# fault with RIP in a slab fast path, kmem_cache_alloc_noprof() or
# __kmalloc_cache_noprof(), saved EFLAGS garbage) print
# the step it hit, else fail.  It came in md raid0's, dm-stripe's and the
# raw members' steps, and also with no mqstripe module loaded at all
# (tools/bench/README.md, "Known crash").
known_crash() {
	local step
	grep -q 'Oops: double fault' "$1" 2>/dev/null || return 1
	grep -qE 'RIP: 0010:(kmem_cache_alloc_noprof|__kmalloc_cache_noprof)\+' "$1" || return 1
	step=$(grep -E '^bench: (\[.*\] setup .*: (rep|round) [0-9]+/[0-9]+|profile [a-z]+) .* on ' "$1" |
		tail -n 1)
	step=${step#*] setup }
	step=${step#bench: }
	echo "${step:-no step yet}"
}

# Estimates (seconds) per setup, for the progress lines and the guests'
# timeouts
declare -A est
estimate=estimate
[ "$profile" = 1 ] && estimate="estimate-profile"
# shellcheck disable=SC2086 # $setups is a word list
while read -r s e; do est[$s]=$e; done < <(BENCH_CPUS=$cpus $py "$here/benchlib.py" $estimate "$quick" $setups)
total=0
for s in $setups; do
	[ -n "${est[$s]:-}" ] || { say "unknown setup '$s' (a, b, c, d, e)"; exit 2; }
	total=$((total + est[$s]))
done

mode=full
[ "$quick" = 1 ] && mode=quick
command -v gnuplot >/dev/null || say "warning: gnuplot not installed (apt-get install gnuplot-nox): no plots"
say "$mode run on kernel $kver, setups: $setups, ${cpus} vCPUs; estimate $(fmt "$total") (host load $(cut -d' ' -f1-3 /proc/loadavg))"
say "results: $out"

# The binaries of this run: copies, so that all boots use the same ones even
# while the tree is being rebuilt (make briefly removes them)
mkdir -p "$out/bin"
for _ in $(seq 1 30); do
	[ -x tools/stripectl/stripectl ] && break
	sleep 2
done
cp tools/stripectl/stripectl "$out/bin/" || { say "tools/stripectl/stripectl missing: run make"; exit 1; }
for ko in build/*/mqstripe.ko; do
	[ -f "$ko" ] || continue
	r=$(basename "$(dirname "$ko")")
	mkdir -p "$out/bin/$r"
	cp "$ko" "$out/bin/$r/"
done
rev=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)

# Host facts for the report
{
	printf '{"host_cores": %s, "host_cpu": "%s", "host_kernel": "%s",' \
		"$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//; s/"/ /g')" "$(uname -r)"
	printf ' "host_mem_kib": %s, "qemu": "%s", "accel_requested": "%s",' \
		"$(awk '/MemTotal/ {print $2}' /proc/meminfo)" \
		"$(qemu-system-x86_64 --version 2>/dev/null | head -n1 | sed 's/"/ /g')" "$accel"
	printf ' "kver": "%s", "mode": "%s", "setups": "%s", "vcpus": %s, "mem_mib": %s,' \
		"$kver" "$mode" "$setups" "$cpus" "$mem"
	printf ' "git": "%s", "module_sha256": {%s},' "$rev" \
		"$(for k in "$out"/bin/*/mqstripe.ko; do [ -f "$k" ] && printf '"%s": "%s", ' "$(basename "$(dirname "$k")")" "$(sha256sum "$k" | cut -c1-16)"; done | sed 's/, $//')"
	printf ' "loadavg_start": "%s", "started": %s}\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$t0"
} >"$out/raw/host-start.json"

rc=0
left=$total
for s in $setups; do
	left=$((left - est[$s]))
	saccel=$accel
	# setup d: the guest's clock counts its instructions (QEMU icount,
	# TCG only), whatever MQS_ACCEL says
	[ "$s" = d ] && saccel=tcg
	opts=(--kernel "$kver" --cpus "$cpus" --mem "$mem" --share "$out"
		--accel "$saccel" --env "BENCH_T0=$t0" --env "BENCH_LATER=$left"
		--env "BENCH_ACCEL=$saccel" --timeout $((est[$s] * 2 + 300)))
	[ -n "$clocksource" ] && opts+=(--append "clocksource=$clocksource")
	case $s in
	# poll queues on the NVMe members: W1's polled variant
	c) opts+=(--nvme 4 --nvme-size 2G --append nvme.poll_queues=2) ;;
	d)
		opts+=(--nvme 0 --icount --env BENCH_ICOUNT=1)
		[ -z "$clocksource" ] && opts+=(--append clocksource=tsc)
		;;
	# nvme-tcp members without native multipath: each namespace one
	# blk-mq disk, whose stat counts its flushes (W5); a multipath head
	# is bio-based and counts none
	e) opts+=(--nvme 0 --append nvme_core.multipath=N) ;;
	*) opts+=(--nvme 0) ;;
	esac
	qflag=()
	[ "$quick" = 1 ] && qflag=(--quick)
	[ "$profile" = 1 ] && qflag+=(--profile)
	bt=$(date +%s)
	# 75: the guest's clock was wrong (TSC miscalibrated at boot, see
	# guest.py): boot again; the third time the guest falls back to HPET.
	# The known crash of the emulated kernel (known_crash): the whole
	# setup again, at most twice, its console kept and counted.
	clock_tries=0
	crashes=0
	while :; do
		say "[$(fmt $(($(date +%s) - t0))) elapsed] booting the guest for setup $s"
		fb=()
		[ "$clock_tries" -ge 2 ] && fb=(--env BENCH_CLOCK_FALLBACK=1)
		bash "$runvm" "${opts[@]}" "${fb[@]}" \
			--console-log "$out/raw/console-$s.log" -- /usr/bin/python3 \
			tools/bench/guest.py --setup "$s" --out "$out" "${qflag[@]}"
		grc=$?
		if [ "$grc" = 75 ] && [ "$clock_tries" -lt 2 ]; then
			clock_tries=$((clock_tries + 1))
		elif [ "$grc" = 125 ] && [ "$crashes" -lt 2 ] &&
			where=$(known_crash "$out/raw/console-$s.log"); then
			crashes=$((crashes + 1))
			keep="$out/raw/console-$s-known-crash$crashes.log"
			mv "$out/raw/console-$s.log" "$keep"
			say "setup $s: the guest's kernel died of the known emulation crash (double fault in a slab fast path, also seen with no mqstripe loaded: tools/bench/README.md, \"Known crash\") at: $where; running the setup again. The end of its console ($keep):"
			console_tail "$keep"
		else
			break
		fi
		rm -rf "$out/raw/$s"
	done
	et=$(date +%s)
	printf '{"setup": "%s", "rc": %d, "boot_wall_seconds": %d, "known_crashes": %d}\n' \
		"$s" "$grc" $((et - bt)) "$crashes" >"$out/raw/host-$s.json"
	if [ "$grc" != 0 ]; then
		# say why where only "bench:" lines are shown (make bench-smoke,
		# CI): the end of the guest's console
		say "setup $s: guest exited with status $grc (124: timeout, 125: crash); the end of its console ($out/raw/console-$s.log):"
		console_tail "$out/raw/console-$s.log"
		rc=1
	fi
done

te=$(date +%s)
printf '{"loadavg_end": "%s", "finished": %s, "wall_seconds": %d}\n' \
	"$(cut -d' ' -f1-3 /proc/loadavg)" "$te" $((te - t0)) >"$out/raw/host-end.json"
if [ "$profile" = 1 ]; then
	say "done in $(fmt $((te - t0))): profiles in $out/profile/"
	ls "$out/profile/" 2>/dev/null | sed 's/^/bench:   /'
	echo "$rc" >"$out/raw/bench-rc"
	exit "$rc"
fi
say "[$(fmt $((te - t0))) elapsed] writing the report"
if ! $py "$here/report.py" "$out"; then
	say "report.py failed"
	rc=1
fi
say "done in $(fmt $(($(date +%s) - t0))): $out/report.md"
echo "$rc" >"$out/raw/bench-rc"
exit "$rc"
