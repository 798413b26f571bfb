# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by tools/check.sh: run test suites a few at a time, each with its
# output in a file of its own, and print each suite's output as one block
# when it ends (blocks in the order the suites end).
#
#   suite_add NAME AFTER TITLE CMD...
#       a suite: CMD... run from the current directory, its output to a file.
#       AFTER: the NAME of a suite that must have ended before this one
#       starts, several as NAME,NAME (so no NAME has a comma), or "-".
#       A NAME with a comma, or an AFTER naming no suite (checked when
#       suites_run starts), ends the caller with a message and status 2.
#       TITLE: the block's "== " line.  Suites start in
#       the order they were added, as slots free up.
#   suites_run JOBS
#       runs them, at most JOBS at once; for each suite that ends, prints
#       "== TITLE", its output, "-- NAME: N s (+START..+END s)" (times from
#       the call of suites_run), then calls the hook
#       suite_ended NAME LOGFILE STATUS, which the caller defines.
#       Returns when every suite has ended.
#
# make check (tools/check.sh) runs its suites one after the other (each
# AFTER the one before) with one low-priority suite beside them, which
# takes the cycles the others leave idle.

suites_names=()
suites_after=()
suites_title=()
suites_cmd=()

suite_add() {
	local name=$1 after=$2 title=$3
	shift 3
	# AFTER is a list: a name with a comma could not be in one
	if [[ $name == *,* ]]; then
		echo "suites: a suite name with a comma: '$name'" >&2
		exit 2
	fi
	suites_names+=("$name")
	suites_after+=("$after")
	suites_title+=("$title")
	suites_cmd+=("$(printf '%q ' "$@")")
}

# suites_index NAME: the index of suite NAME, or nothing
suites_index() {
	local i
	for i in "${!suites_names[@]}"; do
		[ "${suites_names[$i]}" = "$1" ] && { echo "$i"; return 0; }
	done
	return 1
}

# suites_ready AFTER (in suites_run): whether every suite AFTER names
# (NAME,NAME or -) has ended
suites_ready() {
	local names n ai
	[ "$1" = - ] && return 0
	IFS=, read -r -a names <<<"$1"
	for n in "${names[@]}"; do
		ai=$(suites_index "$n")
		[ "${state[ai]}" = ended ] || return 1
	done
}

suites_run() {
	local jobs=$1 dir t0 i n=${#suites_names[@]} running=0 n_ended=0 a
	local -a names
	local reported
	local -a state start_s pid
	[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
	for i in "${!suites_names[@]}"; do
		[ "${suites_after[i]}" != - ] || continue
		IFS=, read -r -a names <<<"${suites_after[i]}"
		for a in "${names[@]}"; do
			[ -n "$(suites_index "$a")" ] && continue
			echo "suites: ${suites_names[i]}: AFTER names no suite: '$a'" >&2
			exit 2
		done
	done
	dir=$(mktemp -d) || return 1
	t0=$(date +%s)
	for i in "${!suites_names[@]}"; do state[i]=waiting; done
	while [ "$n_ended" -lt "$n" ]; do
		# start what may start, in the order added
		for i in "${!suites_names[@]}"; do
			[ "$running" -lt "$jobs" ] || break
			[ "${state[i]}" = waiting ] || continue
			suites_ready "${suites_after[i]}" || continue
			start_s[i]=$(date +%s)
			# shellcheck disable=SC2086	# the command, quoted by suite_add
			(eval "${suites_cmd[i]}" >"$dir/$i.log" 2>&1 </dev/null
				echo $? >"$dir/$i.rc.tmp" && mv "$dir/$i.rc.tmp" "$dir/$i.rc") &
			pid[i]=$!
			state[i]=run
			running=$((running + 1))
		done
		# report what ended
		reported=0
		for i in "${!suites_names[@]}"; do
			{ [ "${state[i]}" = run ] && [ -e "$dir/$i.rc" ]; } || continue
			wait "${pid[i]}" 2>/dev/null
			state[i]=ended
			running=$((running - 1))
			n_ended=$((n_ended + 1))
			reported=1
			local now rc
			now=$(date +%s)
			rc=$(cat "$dir/$i.rc")
			echo "== ${suites_title[i]}"
			sed -e '$!b' -e '/^[0-9]* passed, /d' "$dir/$i.log"
			echo "-- ${suites_names[i]}: $((now - start_s[i])) s (+$((start_s[i] - t0))..+$((now - t0)) s)"
			suite_ended "${suites_names[i]}" "$dir/$i.log" "$rc"
		done
		# Until a suite ends (its status file is written before it
		# exits); not when one just did: a suite AFTER it, or one for
		# its freed slot, starts first.  (wait -n returns only when a
		# suite still running ends: the ended one was waited for.)
		[ "$reported" = 1 ] || [ "$n_ended" -ge "$n" ] ||
			wait -n 2>/dev/null || true
	done
	rm -rf "$dir"
}
