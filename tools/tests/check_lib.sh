# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # fail: read by the test that sources this
#
# Sourced by the bash host tests that print KTAP one check at a time
# (test_selftest_runner.sh, test_bench_retry.sh):
#   check DESC COND-COMMAND...   "ok N DESC" when the command succeeds,
#                                "not ok N DESC" (and fail=1) otherwise.

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n $*"; }
check() {
	local d=$1
	shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
