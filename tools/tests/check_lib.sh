# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # fail, nskip: read by the tests that source this
#
# The KTAP helper of the bash host tests (tools/tests/test_*.sh), sourced:
# they print their checks one at a time, numbered in order.
#   ok DESC                      "ok N DESC"
#   not_ok DESC                  "not ok N DESC"; counts it in fail
#   skip WHY DESC                "ok N DESC # SKIP WHY"; counts it in nskip
#   check DESC COND-COMMAND...   ok DESC when the command succeeds, else
#                                not_ok DESC and then check_failed, when
#                                the test defines it (what to show then)
#   ktap_done                    the plan "1..N" (for tests that print it
#                                last) and "# totals: pass:N fail:N skip:N";
#                                false when a check failed

n=0
fail=0
nskip=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n $*"; }
skip() {
	local why=$1
	shift
	n=$((n + 1))
	nskip=$((nskip + 1))
	echo "ok $n $* # SKIP $why"
}
check() {
	local d=$1
	shift
	if "$@"; then
		ok "$d"
	else
		not_ok "$d"
		! declare -F check_failed >/dev/null || check_failed
	fi
}
ktap_done() {
	echo "1..$n"
	echo "# totals: pass:$((n - fail - nskip)) fail:$fail skip:$nskip"
	[ "$fail" -eq 0 ]
}
