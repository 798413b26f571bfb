#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each test program (one argument each), pass its KTAP through, and add
# up the results (run_lib.sh); the last line is exactly
# "N passed, N failed, N skipped".

# shellcheck source=SCRIPTDIR/run_lib.sh
. "$(dirname "$0")/run_lib.sh"

for t in "$@"; do
	run_test "$t" "$t"
done

run_summary
