# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A selftest's header: lines "# mqs-KEY: WORD..." in the comment block at
# the top of its script declare what it needs, so that adding a test is
# writing only the test.  Sourced by run.sh (on the host) and run_guest.sh
# (in the guest).
#   # mqs-boots: BOOT...   the boots it runs in (run.sh; default main)
#   # mqs-needs: TEST...   tests whose records it reads: naming it runs
#                          them first (run.sh)
#   # mqs-kernels: K...    the kernels it is for, as run.sh --kernel names
#                          them (6.1, 6.12, debug); on another it is
#                          reported skipped and not run (run.sh; default:
#                          every kernel)
#   # mqs-timeout: SEC     its time budget in seconds (run_guest.sh;
#                          default: timeout= of selftests/settings, 300
#                          without one); MQS_TIMEOUT overrides every
#                          test's, and the debug kernel multiplies it

# test_header FILE KEY DEFAULT: the words of FILE's header line
# "# mqs-KEY: WORD...", else DEFAULT
test_header() {
	local line words
	while IFS= read -r line; do
		[[ $line == "#"* ]] || break
		if [[ $line =~ ^#\ mqs-$2:(.*)$ ]]; then
			read -r -a words <<<"${BASH_REMATCH[1]}"
			echo "${words[*]}"
			return
		fi
	done <"$1"
	echo "$3"
}

# header_has FILE KEY: whether FILE's header has a line "# mqs-KEY:"
header_has() { awk -v k="# mqs-$2:" '!/^#/ { exit } index($0, k) == 1 { f = 1 } END { exit !f }' "$1"; }

# header_error FILE: what is wrong with FILE's "# mqs-kernels:" or
# "# mqs-timeout:" line (one line), or nothing
header_error() {
	local v
	if header_has "$1" kernels && [ -z "$(test_header "$1" kernels "")" ]; then
		echo "its '# mqs-kernels:' line names no kernel: name one or more of 6.1 6.12 debug, or drop the line (every kernel)"
		return
	fi
	header_has "$1" timeout || return 0
	v=$(test_header "$1" timeout "")
	[[ $v =~ ^[1-9][0-9]*$ ]] ||
		echo "its '# mqs-timeout:' line is '$v', not a number of seconds: give one (e.g. '# mqs-timeout: 600') or drop the line (timeout= of settings)"
}

# for_kernel FILE KERNEL: whether FILE's "# mqs-kernels:" line (none: every
# kernel) names KERNEL, a run.sh --kernel value or a release: the same
# word, or the word followed by "." or "-" (6.1 names 6.1.0-41-amd64, not
# 6.12)
for_kernel() {
	local w words
	read -r -a words <<<"$(test_header "$1" kernels "")"
	[ ${#words[@]} -eq 0 ] && return 0
	for w in "${words[@]}"; do
		[[ $2 == "$w" || $2 == "$w".* || $2 == "$w"-* ]] && return 0
	done
	return 1
}

# test_timeout FILE SETTINGS: FILE's time budget in seconds: MQS_TIMEOUT
# when set, else its "# mqs-timeout:" line, else timeout= of the kselftest
# settings file SETTINGS, else 300
test_timeout() {
	local s
	s=$(sed -n 's/^timeout=\([0-9][0-9]*\)$/\1/p' "$2" 2>/dev/null)
	s=$(test_header "$1" timeout "${s:-300}")
	echo "${MQS_TIMEOUT:-$s}"
}
