#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stripectl(8): renders without warnings (MANWIDTH=80 man --warnings -l),
# and documents exactly the commands of "stripectl --help" and, for each,
# exactly the options (short form, long form, argument) of
# "stripectl COMMAND --help"; the global options likewise; the stripectl
# command lines of README.md name commands and options of --help.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=SCRIPTDIR/help_opts.sh
. "$(dirname "$0")/help_opts.sh"
MAN=$TOP/tools/stripectl/stripectl.8

[ -x "$STRIPECTL" ] || skip_all "stripectl not built (make stripectl)" "man page"
command -v man >/dev/null || skip_all "man-db not installed" "man page"
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

MANWIDTH=80 man --warnings -l "$MAN" >"$TMP/man80" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/man80" ]; then
	ok "MANWIDTH=80 man --warnings -l stripectl.8: no warnings"
else
	not_ok "MANWIDTH=80 man --warnings -l stripectl.8 (exit $rc)"
	diag <"$TMP/err"
fi
if command -v groff >/dev/null; then
	check "groff -man -ww -z: no warnings" \
		bash -c "groff -man -ww -z -Tutf8 '$MAN' 2>&1 | { ! grep .; }"
fi
CONF5=$TOP/tools/stripectl/mqstripe.conf.5
MANWIDTH=80 man --warnings -l "$CONF5" >"$TMP/conf80" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/err" ] && grep -q 'AUTO' "$TMP/conf80"; then
	ok "MANWIDTH=80 man --warnings -l mqstripe.conf.5: no warnings"
else
	not_ok "MANWIDTH=80 man --warnings -l mqstripe.conf.5 (exit $rc)"
	diag <"$TMP/err"
fi

# Wide rendering, so that no option line wraps; plain ASCII hyphens.
MANWIDTH=200 man -E ascii -l "$MAN" 2>/dev/null | col -bx >"$TMP/man"

# section NAME: the lines of a top-level section of the rendered page
section() {
	awk -v s="$1" '/^[A-Z]/ { on = ($0 == s); next } on' "$TMP/man"
}
section COMMANDS >"$TMP/commands"
section SYNOPSIS >"$TMP/synopsis"

# man_command CMD: the entry of CMD in COMMANDS (7-space indented head line
# up to the next one)
man_command() {
	awk -v c="$1" '
		/^       [a-z]/ { split($0, w, " "); on = (w[1] == c) }
		on' "$TMP/commands"
}

mapfile -t cmds < <(help_commands)
[ ${#cmds[@]} -gt 0 ] || not_ok "stripectl --help lists commands"
mapfile -t mancmds < <(awk '/^       [a-z]/ { print $1 }' "$TMP/commands")
expect "COMMANDS documents the commands of stripectl --help" \
	"$(printf '%s\n' "${cmds[@]}" | sort | xargs)" \
	"$(printf '%s\n' "${mancmds[@]}" | sort | xargs)"

for c in "${cmds[@]}"; do
	if grep -qE "^ +stripectl $c( |$)" "$TMP/synopsis"; then
		ok "SYNOPSIS shows stripectl $c"
	else
		not_ok "SYNOPSIS shows stripectl $c"
	fi
	"$STRIPECTL" "$c" --help | help_options >"$TMP/help-$c"
	man_command "$c" | help_options >"$TMP/man-$c"
	if [ ! -s "$TMP/help-$c" ]; then
		not_ok "stripectl $c --help lists options"
	elif diff "$TMP/help-$c" "$TMP/man-$c" >"$TMP/d"; then
		ok "stripectl $c: the man page has its options: $(tr "\n" " " <"$TMP/help-$c")"
	else
		not_ok "stripectl $c: options differ (< --help, > man page)"
		diag <"$TMP/d"
	fi
done

# README.md: every "stripectl COMMAND --option" line of its sh blocks names
# a command of --help and, for each option, one that "stripectl COMMAND
# --help" lists (so README, --help and the man page agree).
README=$TOP/README.md
awk '/^```/ { on = !on; next } on && /^stripectl [a-z]/' "$README" |
	sed 's/#.*//' >"$TMP/readme-lines"
[ -s "$TMP/readme-lines" ] || not_ok "README.md shows stripectl commands"
while read -r _ c rest; do
	if ! printf '%s\n' "${cmds[@]}" | grep -qx -- "$c"; then
		not_ok "README.md: stripectl $c is a command of --help"
		continue
	fi
	bad=
	for o in $(printf '%s\n' "$rest" | grep -oE -- '(^| )--[a-z][a-z-]*' | tr -d ' '); do
		grep -qE -- "(^| )$o( |$)" "$TMP/help-$c" || bad="$bad $o"
	done
	if [ -z "$bad" ]; then
		ok "README.md: stripectl $c $(printf '%s' "$rest" | grep -oE -- '--[a-z-]+' | xargs)"
	else
		not_ok "README.md: stripectl $c: not in its --help:$bad"
	fi
done <"$TMP/readme-lines"

# SIZE: the man page (ARGUMENTS) names the suffixes that every
# "stripectl COMMAND --help" with a SIZE option names
suffixes() {	# the "K, M, ... suffix (also ...)" words of a text, one line
	tr '\n' ' ' | tr -s ' ' | grep -oE 'a number with a [^(]* suffix \(also [^;]*;' | head -n 1
}
man_size=$(section ARGUMENTS | awk '/^       SIZE( |$)/ { on = 1 } on && /^       [A-Z]/ && !/^       SIZE( |$)/ { exit } on' | suffixes)
if printf '%s' "$man_size" | grep -qF 'a number with a K, M, G or T suffix (also KiB, MiB, GiB, TiB;'; then
	ok "ARGUMENTS: SIZE takes K, M, G or T: $man_size"
else
	not_ok "ARGUMENTS: SIZE takes K, M, G or T: got '$man_size'"
fi
for c in "${cmds[@]}"; do
	grep -qE ' SIZE$' "$TMP/help-$c" || continue
	help_size=$("$STRIPECTL" "$c" --help | suffixes)
	expect "stripectl $c --help says what SIZE is, as the man page does" \
		"$man_size" "$help_size"
done

"$STRIPECTL" --help | help_options >"$TMP/help-global"
section OPTIONS | help_options >"$TMP/man-global"
if [ -s "$TMP/help-global" ] && diff "$TMP/help-global" "$TMP/man-global" >"$TMP/d"; then
	ok "global options in OPTIONS: $(tr "\n" " " <"$TMP/help-global")"
else
	not_ok "global options differ (< --help, > OPTIONS)"
	diag <"$TMP/d"
fi
finish
