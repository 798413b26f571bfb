# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034 # STRIPECTL, FAKE: read by the tests
#
# The start of the host tests that run stripectl against the module's
# stand-in, fake_mqstripe.so (LD_PRELOAD): test_fake.sh, test_clones.sh.
# Sourced after check_lib.sh, with the test's own arguments:
#   fake_begin WHAT [PATH/TO/stripectl [PATH/TO/fake_mqstripe.so]]
#       prints the KTAP header ("# WHAT against fake_mqstripe.so"), sets
#       STRIPECTL and FAKE (default: the tree's builds) and TMP, a new
#       directory (exported); without root, the builds or losetup one
#       skip says why and the test ends (finish)
#   fake_root     the stand-in's /dev and /sys (FAKE_MQS_ROOT) and
#                 stripectl's run directory (MQSTRIPE_RUN_DIR) in TMP
#   finish        the KTAP plan and totals, then exit
#   check_failed  what a failed check shows: stripectl's stdout and stderr
#                 ($TMP/out, $TMP/err)

check_failed() {
	sed 's/^/# stdout: /' "$TMP/out"
	sed 's/^/# stderr: /' "$TMP/err"
}
finish() {
	ktap_done
	exit
}

fake_begin() {
	local what=$1 why=
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	STRIPECTL=${2:-$top/tools/stripectl/stripectl}
	FAKE=${3:-$top/tools/tests/fake_mqstripe.so}
	echo "KTAP version 1"
	echo "# $what against fake_mqstripe.so"
	[ "$(id -u)" -ne 0 ] && why="needs root"
	[ -z "$why" ] && [ ! -f "$FAKE" ] && why="$FAKE not built"
	[ -z "$why" ] && [ ! -x "$STRIPECTL" ] && why="$STRIPECTL not built"
	[ -z "$why" ] && ! command -v losetup >/dev/null && why="needs losetup"
	if [ -n "$why" ]; then
		skip "$why" "$what against the fake module"
		finish
	fi
	# assemble --scan reads every block device: a second run on the host
	# (another checkout) would see this run's loop devices, and this one
	# its; one at a time
	exec {MQS_LOOP_LOCK}>"${TMPDIR:-/tmp}/mqstripe-loop-tests.lock"
	flock "$MQS_LOOP_LOCK"
	TMP=$(mktemp -d) || exit 1
	export TMP
}

fake_root() {
	mkdir -p "$TMP/root/dev" "$TMP/root/sys/block"
	: >"$TMP/root/dev/mqstripe-control"
	export FAKE_MQS_ROOT=$TMP/root
	export MQSTRIPE_RUN_DIR=$TMP/run
}
