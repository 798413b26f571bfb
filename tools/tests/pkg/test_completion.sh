#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion offers every command of "stripectl --help", every
# long option of "stripectl COMMAND --help" and the global options.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/help_opts.sh
. "$(dirname "$0")/help_opts.sh"

[ -x "$STRIPECTL" ] || skip_all "stripectl not built (make stripectl)" "bash completion"
# shellcheck source=tools/stripectl/stripectl.bash-completion
. "$TOP/tools/stripectl/stripectl.bash-completion"

# complete WORDS...: what the completion offers for the last word
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_stripectl
	printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

# has DESC WANT... -- WORDS...: the completion of WORDS offers all of WANT
has() {
	local desc=$1 w missing=
	shift
	local want=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	local got
	got=$(complete_words "$@")
	for w in "${want[@]}"; do
		grep -qxF -- "$w" <<<"$got" || missing="$missing $w"
	done
	if [ -z "$missing" ]; then
		ok "$desc"
	else
		not_ok "$desc: missing$missing"
	fi
}

mapfile -t cmds < <(help_commands)
has "stripectl <TAB>: the commands" "${cmds[@]}" -- stripectl ""
mapfile -t g < <("$STRIPECTL" --help | help_options | grep -oE -- '--[a-z-]+')
has "stripectl -<TAB>: ${g[*]}" "${g[@]}" -- stripectl -
for c in "${cmds[@]}"; do
	mapfile -t o < <("$STRIPECTL" "$c" --help | help_options | grep -oE -- '--[a-z-]+')
	has "stripectl $c --<TAB>: ${o[*]}" "${o[@]}" -- stripectl "$c" --
done
has "stripectl help <TAB>: the commands" "${cmds[@]}" -- stripectl help ""
finish
