#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run each test program (one argument each), pass its KTAP
# through, and add up the results:
#   "ok N ..." passed, "ok N ... # SKIP ..." skipped, "not ok N ..." failed.
# A program that exits non-zero without a "not ok" line (a crash) counts as
# one failure.  The last line is exactly "N passed, N failed, N skipped".

passed=0
failed=0
skipped=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT

for t in "$@"; do
	echo "# running $t"
	"$t" >"$out" 2>&1
	rc=$?
	cat "$out"
	p=$(grep -E '^ok [0-9]+' "$out" | grep -cv '# SKIP')
	s=$(grep -cE '^ok [0-9]+.*# SKIP' "$out")
	f=$(grep -cE '^not ok [0-9]+' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		f=1
	fi
	passed=$((passed + p))
	skipped=$((skipped + s))
	failed=$((failed + f))
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
