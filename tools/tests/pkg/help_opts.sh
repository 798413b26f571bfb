# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Parsers shared by test_man.sh and test_completion.sh: what stripectl's
# help text lists.

# help_commands: the commands "stripectl --help" lists under "Commands:"
help_commands() {
	"$STRIPECTL" --help | awk '
		/^Commands:/ { on = 1; next }
		on && /^[^ ]/ { on = 0 }
		on && /^  [a-z]/ { print $1 }'
}

# help_options TEXT: one line per option, "SHORT, LONG ARG" normalized to
# "-c --chunk SIZE" (ARG and SHORT may be missing), from lines such as
# "  -c, --chunk SIZE  ..." of a help text or a rendered man page.
help_options() {
	grep -E '^ +(-[A-Za-z], )?--[a-z][a-z-]*( [A-Z]+)?( |$)' |
		sed -E 's/^ +//; s/^(-[A-Za-z]), /\1 /; s/^((-[A-Za-z] )?--[a-z][a-z-]*( [A-Z]+)?)( .*)?$/\1/' |
		LC_ALL=C sort -u
}
