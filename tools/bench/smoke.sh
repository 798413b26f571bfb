#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh: the benchmark harness's smoke test (make bench-smoke).  Runs
# "make bench QUICK=1" on setups a, b, c and d on one kernel (SMOKE_KVER,
# else KVER, else 6.12) into bench-results/smoke/ and checks that
# results.json and report.md are well-formed, that every workload W1..W8
# and every CPU-cost point is there, and that setup d's two rounds agree
# (tools/bench/validate.py).  Asserts nothing about speed.  KTAP-style output; the last
# line is "N passed, N failed, N skipped"; exit 1 on any failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cd "$top" || exit 1
kver=${SMOKE_KVER:-${KVER:-6.12}}
out=${SMOKE_OUT:-bench-results/smoke}
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3

rm -rf "$out"
mkdir -p "$out"
echo "# bench smoke: QUICK=1 KVER=$kver into $out"
start=$(date +%s)
# every setup, d (CPU cost in guest time, its own icount guest) too:
# validate.py checks its figures, both rounds of each, and its verdicts
QUICK=1 KVER=$kver BENCH_SETUPS="a b c d" BENCH_OUT=$out bash "$here/bench.sh" 2>&1 |
	grep --line-buffered -E '^bench: |^run-vm: ' | sed -u 's/^/# /'
# the exit status of bench.sh, not of the pipeline
rc=$(cat "$out/raw/bench-rc" 2>/dev/null)
[ -n "$rc" ] || rc=1
echo "# bench.sh QUICK run: $(($(date +%s) - start)) s, exit $rc"
exec $py "$here/validate.py" --bench-rc "$rc" "$out"
