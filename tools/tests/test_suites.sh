#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/suites.sh, the scheduler of make check, with stand-in suites:
#  - at most JOBS suites run at once, and with JOBS=2 two do run at once;
#  - a suite with AFTER starts only once that suite has ended, and at
#    once then, even while another suite runs on;
#  - each suite's output comes as one block: its title, its output
#    without its last "N passed, ..." line, then "-- NAME: N s (...)";
#  - the hook gets each suite's name, output file and exit status.
# Prints KTAP.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# shellcheck source=SCRIPTDIR/check_lib.sh
. "$TOP/tools/tests/check_lib.sh"
# shellcheck source=SCRIPTDIR/../suites.sh
. "$TOP/tools/suites.sh"

# shellcheck disable=SC2317 # fake and suite_ended are called by suites_run
# stand-in suite: NAME SECS RC; records its start and end, prints a line
# and a summary line
fake() {
	echo "start $1 $(date +%s%N)" >>"$TMP/events"
	sleep "$2"
	echo "output of $1"
	echo "1 passed, 0 failed, 0 skipped"
	echo "end $1 $(date +%s%N)" >>"$TMP/events"
	return "$3"
}
ended=()
suite_ended() { ended+=("$1:$3:$(tail -n 1 "$2")"); }

suite_add a - "title of a" fake a 1.5 0
suite_add b - "title of b" fake b 0.5 3
suite_add c b "title of c" fake c 0.2 0
suite_add d - "title of d" fake d 0.2 0
suites_run 2 >"$TMP/out"

# the largest number of suites running at once
most=$(sort -k3n "$TMP/events" | awk '$1 == "start" {n++} $1 == "end" {n--} n > m {m = n} END {print m}')
check "two suites ran at once, never more (most: $most)" [ "$most" = 2 ]
t_end_b=$(awk '$1 == "end" && $2 == "b" {print $3}' "$TMP/events")
t_start_c=$(awk '$1 == "start" && $2 == "c" {print $3}' "$TMP/events")
check "c (AFTER b) started after b ended" [ "$t_start_c" -ge "$t_end_b" ]
check "every suite ended once" [ "${#ended[@]}" = 4 ]
check "the hook got b's exit status 3 and its output file" \
	bash -c '[[ " $* " == *" b:3:1 passed, 0 failed, 0 skipped "* ]]' - "${ended[@]}"
check "a's block: title, output, time line" \
	grep -Pzq '== title of a\noutput of a\n-- a: [0-9]+ s \(\+[0-9]+\.\.\+[0-9]+ s\)\n' "$TMP/out"
check "the summary lines are not in the blocks" bash -c "! grep -q passed '$TMP/out'"

suites_names=() suites_after=() suites_title=() suites_cmd=()
: >"$TMP/events"
suite_add e - "title of e" fake e 0.3 0
suite_add f - "title of f" fake f 0.3 0
suites_run 1 >"$TMP/out"
most=$(sort -k3n "$TMP/events" | awk '$1 == "start" {n++} $1 == "end" {n--} n > m {m = n} END {print m}')
check "with JOBS=1 one at a time (most: $most)" [ "$most" = 1 ]

# make check's shape: a serial lane beside one long suite; the lane's
# next suite starts as soon as the one before ends, not when the long
# one does
suites_names=() suites_after=() suites_title=() suites_cmd=()
: >"$TMP/events"
suite_add long - "title of long" fake long 3 0
suite_add x - "title of x" fake x 0.3 0
suite_add y x "title of y" fake y 0.3 0
suites_run 2 >"$TMP/out"
t_end_x=$(awk '$1 == "end" && $2 == "x" {print $3}' "$TMP/events")
t_start_y=$(awk '$1 == "start" && $2 == "y" {print $3}' "$TMP/events")
t_end_long=$(awk '$1 == "end" && $2 == "long" {print $3}' "$TMP/events")
check "y (AFTER x) started while long still ran (x ended $t_end_x, y started $t_start_y, long ended $t_end_long)" \
	bash -c '[ "$1" -ge "$2" ] && [ "$1" -lt "$3" ]' - "$t_start_y" "$t_end_x" "$t_end_long"

# AFTER a list: z waits for both p and q, whichever ends last
suites_names=() suites_after=() suites_title=() suites_cmd=()
: >"$TMP/events"
suite_add p - "title of p" fake p 0.2 0
suite_add q - "title of q" fake q 1 0
suite_add z p,q "title of z" fake z 0.1 0
suites_run 3 >"$TMP/out"
t_end_q=$(awk '$1 == "end" && $2 == "q" {print $3}' "$TMP/events")
t_start_z=$(awk '$1 == "start" && $2 == "z" {print $3}' "$TMP/events")
check "z (AFTER p,q) started after q, the later, ended (q ended $t_end_q, z started $t_start_z)" \
	[ "$t_start_z" -ge "$t_end_q" ]

# mistakes in the plan end it at once, with a message: a suite name with
# a comma (AFTER lists are comma-separated), an AFTER naming no suite
out=$( (suite_add "a, b" - "t" true) 2>&1)
rc=$?
check "a suite name with a comma: status 2 and a message ($out)" \
	bash -c '[ "$1" = 2 ] && [[ $2 == *"a suite name with a comma: '"'a, b'"'"* ]]' - "$rc" "$out"
out=$( (suites_names=() suites_after=() suites_title=() suites_cmd=()
	suite_add v - "title of v" fake v 0.1 0
	suite_add w "v,nosuch" "title of w" fake w 0.1 0
	suites_run 2) 2>&1 >/dev/null)
rc=$?
check "an AFTER naming no suite: status 2 and a message ($out)" \
	bash -c '[ "$1" = 2 ] && [[ $2 == *"w: AFTER names no suite: '"'nosuch'"'"* ]]' - "$rc" "$out"

[ "$fail" -eq 0 ]
