# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Sourced by run.sh (the unit tests) and pkg/run.sh (the packaging tests):
# run each test, pass its KTAP through, and add up the results:
#   "ok N ..." passed, "ok N ... # SKIP ..." skipped, "not ok N ..." failed.
# A test that exits non-zero without a "not ok" line (a crash) counts as
# one failure.  run_summary prints exactly "N passed, N failed, N skipped"
# and returns non-zero when anything failed.

passed=0
failed=0
skipped=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

# run_test NAME CMD...: run CMD, show its output, count its results under NAME
run_test() {
	run_name=$1
	shift
	echo "# running $run_name"
	"$@" >"$out" 2>&1
	run_rc=$?
	cat "$out"
	run_p=$(grep -E '^ok [0-9]+' "$out" | grep -cv '# SKIP')
	run_s=$(grep -cE '^ok [0-9]+.*# SKIP' "$out")
	run_f=$(grep -cE '^not ok [0-9]+' "$out")
	if [ "$run_rc" -ne 0 ] && [ "$run_f" -eq 0 ]; then
		echo "not ok - $run_name exited with status $run_rc"
		run_f=1
	fi
	passed=$((passed + run_p))
	skipped=$((skipped + run_s))
	failed=$((failed + run_f))
}

run_summary() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
