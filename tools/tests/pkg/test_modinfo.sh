#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modinfo of build/<release>/mqstripe.ko (make vm-modules): license,
# description, version = PACKAGE_VERSION of dkms.conf = stripectl
# --version, vermagic of that release, every parameter described.
set -u
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

mods=(build/*/mqstripe.ko)
[ -f "${mods[0]}" ] || skip_all "no build/<release>/mqstripe.ko (make vm-modules)" "modinfo"
if [ -x "$STRIPECTL" ]; then
	expect "stripectl --version is dkms.conf's PACKAGE_VERSION" "stripectl $VERSION" \
		"$("$STRIPECTL" --version 2>/dev/null | head -n 1)"
fi
for m in "${mods[@]}"; do
	rel=${m#build/}
	rel=${rel%/mqstripe.ko}
	expect "$rel: license" GPL "$(modinfo -F license "$m")"
	d=$(modinfo -F description "$m")
	if [ -n "$d" ]; then ok "$rel: description: $d"; else not_ok "$rel: description"; fi
	expect "$rel: version" "$VERSION" "$(modinfo -F version "$m")"
	vm=$(modinfo -F vermagic "$m")
	expect "$rel: vermagic" "$rel" "${vm%% *}"
	parms=$(modinfo -F parm "$m")
	if [ -z "$parms" ]; then
		ok "$rel: parameters: none"
	else
		# "name:description (type)"
		bad=$(printf '%s\n' "$parms" | grep -vE '^[a-z_0-9]+:[^ ].* \([a-z]+\)$')
		if [ -z "$bad" ]; then
			ok "$rel: parameters, each described: $(printf '%s\n' "$parms" | cut -d: -f1 | xargs)"
		else
			not_ok "$rel: parameters without a description: $bad"
		fi
	fi
done
finish
